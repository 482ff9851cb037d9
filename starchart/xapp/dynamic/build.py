"""Compile a C file to the IR XAPP measures, link instrumented/native executables, run them.

The IR is clang's ``-O1 -g`` without unrolling or vectorisation (the toolchain's
:data:`~starchart.xapp.toolchain.IR_FLAGS`) plus ``-mllvm -disable-loop-idiom-all``:

* ``-O1`` puts locals in registers (``-O0`` would count every variable access as a load or
  store and inflate ``mem``), inlines small helpers and simplifies address arithmetic, so
  the counted stream is close to what an optimised CPU binary executes — what the thesis's
  Pin tools saw;
* no unrolling/vectorisation keeps one IR instruction per source operation per iteration,
  so 32 consecutive instances of a static load are 32 consecutive iterations (the warp
  analogy behind the memory-window features); the source's own unroll and vectorize pragmas
  are overridden too (``-unroll-count=1``, ``-force-vector-width=1``...), else a tuning
  ``#pragma GCC unroll 4`` turned a coalesced band into a stride-4 one;
* no loop-idiom recognition keeps copy and fill loops as loops instead of ``memcpy`` /
  ``memset`` calls whose accesses the runtime would not see;
* ``-g`` gives the debug locations that map the pragma's line to the loop.

Both executables are built from that same IR with ``clang -O2``; the instrumented one
links the runtime (``runtime/xapp_rt.c``).
"""

from __future__ import annotations

import atexit
import functools
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from ...errors import InputError, StarchartError, arg, say
from ...measure.process import run_process
from ..toolchain import IR_FLAGS, clang_command, compile_to_ir
from .instrument import Instrumented

RUNTIME_DIR = Path(__file__).resolve().parent / "runtime"
#: Flags of the measured IR (see the module docstring).
DYNAMIC_IR_FLAGS = (*IR_FLAGS, "-mllvm", "-disable-loop-idiom-all",
                    # a source's `#pragma unroll` / `GCC unroll N` / `clang loop vectorize(enable)` still
                    # unrolled or vectorised the band under -fno-unroll-loops / -fno-vectorize
                    "-mllvm", "-unroll-count=1", "-mllvm", "-pragma-unroll-threshold=0",
                    "-mllvm", "-force-vector-width=1", "-mllvm", "-force-vector-interleave=1")
#: Environment variable naming the JSON file the runtime writes at exit.
OUT_ENV = "XAPP_OUT"


#: How to give a library and its folder, for each reader.
_LIB_DIR_EXAMPLE = say("libs=['-LDIR', '-lNAME']", "-L DIR -l NAME")

def program_ir(path: str | Path, *, defines: dict[str, object] | None = None,
               include_dirs: tuple[str | Path, ...] = ()) -> str:
    """The ``-O1 -g`` IR of one C file (raises InputError when clang rejects it)."""
    return compile_to_ir(path, flags=DYNAMIC_IR_FLAGS, defines=defines, include_dirs=include_dirs)


@functools.cache
def _cache_dir() -> Path:
    d = Path(tempfile.mkdtemp(prefix="starchart-xapp-rt-"))
    atexit.register(shutil.rmtree, d, True)
    return d


@functools.cache
def runtime_object() -> Path:
    """The runtime compiled once per process (``clang -O2 -c xapp_rt.c``)."""
    out = _cache_dir() / "xapp_rt.o"
    _clang([*clang_command(), "-O2", "-w", "-c", str(RUNTIME_DIR / "xapp_rt.c"), "-o", str(out)], "the runtime")
    return out


#: The linker's "undefined reference to `name'" (GNU ld; lld writes "undefined symbol: name").
_UNDEFINED = re.compile(r"undefined (?:reference to [`']([^'`]+)'|symbol: (\S+))")
#: The linker's "cannot find -lfoo" (GNU ld) or "unable to find library -lfoo" (lld).
# ld / lld ("cannot find -lNAME", "unable to find library -lNAME") and the ziglang wheel's
# linker ("unable to find dynamic system library 'NAME' using strategy ...")
_NO_LIBRARY = re.compile(r"cannot find (-l[^\s:]+)|unable to find library (-l[^\s:]+)"
                         r"|unable to find (?:dynamic |static )?system library '([^']+)'")


def _clang(argv: list[str], what: str, source: str | Path | None = None) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        missing = sorted({a or b for a, b in _UNDEFINED.findall(proc.stderr)})
        if missing:  # the user's program, not starchart: it was called "a bug in starchart.xapp.dynamic"
            raise InputError(f"the program uses {', '.join(f'`{m}`' for m in missing[:5])}, defined neither "
                             "in this C file nor in the libraries it is linked with (dynamic XAPP builds one file)",
                             where=source, hint="put the definitions it needs in this file (e.g. #include "
                                                "\"helpers.c\"); for a library give " + say("libs=['-lNAME']", "-l NAME") + ", and its "
                                                f"folder when it is not a system one: {_LIB_DIR_EXAMPLE}")
        unfound = sorted({a or b or f"-l{name}" for a, b, name in _NO_LIBRARY.findall(proc.stderr)})
        if unfound:  # a misspelt or missing -l was also called a bug in starchart
            raise InputError(f"the linker found no library {', '.join(unfound)}", where=source,
                             hint="check the name (-lNAME links libNAME.so or libNAME.a), and give the folder "
                                  f"that holds it when it is not a system one: {_LIB_DIR_EXAMPLE}")
        tail = " | ".join(proc.stderr.strip().splitlines()[-4:])
        raise StarchartError(f"clang could not build {what}: {tail}",
                             hint="this is a bug in starchart.xapp.dynamic unless your program needs "
                                  "extra libraries: " + say("libs=['-lNAME']", "-l NAME"))


def link_instrumented(inst: Instrumented, workdir: Path, libs: Sequence[str] = ("-lm",),
                      source: str | Path | None = None) -> Path:
    """Write the instrumented IR and tables under ``workdir`` and link them with the runtime."""
    ll, tables, exe = workdir / "instrumented.ll", workdir / "xapp_tables.c", workdir / "prog.xapp"
    ll.write_text(inst.ir)
    tables.write_text(inst.tables)
    _clang([*clang_command(), "-O2", "-w", f"-I{RUNTIME_DIR}", str(ll), str(tables), str(runtime_object()),
            *libs, "-o", str(exe)], "the instrumented program", source)
    return exe


def link_native(ir: str, workdir: Path, libs: Sequence[str] = ("-lm",), source: str | Path | None = None) -> Path:
    """The uninstrumented program from the same IR (for the slowdown)."""
    ll, exe = workdir / "native.ll", workdir / "prog.native"
    ll.write_text(ir)
    _clang([*clang_command(), "-O2", "-w", str(ll), *libs, "-o", str(exe)], "the native program", source)
    return exe


def run_program(exe: Path, args: Sequence[object], *, source: str | Path, env: dict[str, str] | None = None,
                timeout: float | None = None, cwd: str | Path | None = None) -> tuple[str, float, float]:
    """Run ``exe args``; return (stdout, wall seconds, CPU seconds of the child).

    Raises
    ------
    InputError
        The program timed out, exited non-zero or died of a signal (stderr's tail quoted).
    """
    argv = [str(exe), *map(str, args)]
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # its own process group (stdin /dev/null): a timeout kills what it started too, and so does the
    # watchdog if this process is killed
    proc = run_process(argv, timeout=timeout, env=env, cwd=cwd)
    if proc.timed_out:
        raise InputError(f"the program did not finish within {timeout:g} s with args {list(map(str, args))}",
                         where=source, hint=f"use a smaller input, or raise {arg('timeout', '')}")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        tail = " | ".join(proc.stderr.strip().splitlines()[-5:]) or "(no stderr)"
        how = (f"was killed by {_signal_name(-proc.returncode)}" if proc.returncode < 0
               else f"exited with status {proc.returncode}")
        raise InputError(f"the program {how} (args {list(map(str, args))}); stderr: {tail}", where=source,
                         # stdin is /dev/null: a program reading it failed with no word of why
                         hint="run it natively with the same arguments and an empty stdin (< /dev/null); "
                              "dynamic features need a run that ends normally, reading its input from files "
                              "named in its arguments")
    return proc.stdout, wall, cpu


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
