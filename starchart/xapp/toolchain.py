"""Find a C compiler that emits LLVM IR, and compile C files to IR text.

XAPP reads programs as LLVM IR. Two routes give a clang:

* a system clang (``clang``, ``clang-NN`` on ``PATH``, or ``$STARCHART_CLANG``), e.g.
  Debian's ``apt-get install clang``;
* the ``ziglang`` wheel from PyPI (``pip install ".[xapp]"`` in the starchart source folder), whose ``zig cc``
  is a full clang; this is the pip-only route.

The IR of any clang since 14 parses in llvmlite's LLVM (older typed-pointer IR is
upgraded on parse), so the route does not change the analysis.

Examples
--------
>>> cmd = clang_command()            # doctest: +SKIP
>>> ir = compile_to_ir("saxpy.c")    # doctest: +SKIP
>>> "define" in ir                   # doctest: +SKIP
True
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import InputError, StarchartError, say

#: Flags that keep loops as the programmer wrote them (no unrolling or vectorisation),
#: keep names and debug locations (pragma lines map to loops through them), and still
#: put values in SSA form so induction variables and address arithmetic can be read.
IR_FLAGS = (
    "-S", "-emit-llvm", "-g", "-O1",
    "-fno-discard-value-names", "-fno-unroll-loops", "-fno-vectorize", "-fno-slp-vectorize",
    "-Wno-unknown-pragmas",
)


class ToolchainError(StarchartError):
    """No usable clang was found, or it could not compile the file."""


@functools.cache
def clang_command() -> tuple[str, ...]:
    """The command that runs clang here, as an argv prefix.

    Order: ``$STARCHART_CLANG``, ``clang``, the newest ``clang-NN`` on ``PATH``, then
    ``python -m ziglang cc``.

    Raises
    ------
    ToolchainError
        When none is available, with the two ways to get one.
    """
    override = os.environ.get("STARCHART_CLANG")
    if override:
        if shutil.which(override) is None:
            raise ToolchainError(f"STARCHART_CLANG={override!r} is not an executable",
                                 hint="point it at a clang binary or unset it")
        # gcc (or a `cc` that is gcc) failed on every file with "clang could not compile the file",
        # blaming the user's C code for a wrong compiler
        version = _version_line(override)
        if "clang" not in version.lower():
            raise ToolchainError(f"STARCHART_CLANG={override!r} is not clang ({version or 'no --version'}): "
                                 "XAPP reads clang's LLVM IR", hint="point it at a clang binary or unset it")
        return (override,)
    if shutil.which("clang"):
        return ("clang",)
    versioned = sorted((int(p.name.split("-")[1]), p.name)
                       for d in os.environ.get("PATH", "").split(os.pathsep) if os.path.isdir(d)
                       for p in Path(d).glob("clang-[0-9]*") if p.name.split("-")[1].isdigit())
    if versioned:
        return (versioned[-1][1],)
    try:
        import ziglang  # noqa: F401  (only to know it is installed)
    except ImportError:
        raise ToolchainError(
            "no clang found: XAPP compiles C to LLVM IR with clang",
            hint='pip install ".[xapp]" in the starchart source folder (brings the ziglang wheel), '
                 'or apt-get install clang',
        ) from None
    return (sys.executable, "-m", "ziglang", "cc")


def _version_line(command: str) -> str:
    """First line of ``command --version`` ('' when it does not answer)."""
    try:
        proc = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return next((line.strip() for line in proc.stdout.splitlines() if line.strip()), "")


def require_c_file(path: str | Path, where: object = None) -> Path:
    """``path`` as a Path when it is an existing file; else an InputError that says what it is.

    A folder given where a C file belongs was reported as "no such C file", which sends the
    user looking for a typo in a path that exists.
    """
    source = Path(path)
    where = source if where is None else where
    if source.is_dir():
        raise InputError("is a folder, not a C file", where=where, hint="give the .c file inside it")
    if not source.is_file():
        raise InputError("no such C file", where=where, hint="check the path")
    return source


def compile_to_ir(path: str | Path, *, flags: tuple[str, ...] = IR_FLAGS,
                  defines: dict[str, object] | None = None,
                  include_dirs: tuple[str | Path, ...] = (), where: object = None) -> str:
    """Compile one C file to textual LLVM IR and return it.

    Parameters
    ----------
    path:
        The C source.
    flags:
        clang flags; the default keeps loops and debug locations (see :data:`IR_FLAGS`).
    defines:
        ``-DNAME=VALUE`` macros.
    include_dirs:
        ``-I`` directories (the file's own directory is always searched).
    where:
        How errors name the file (default: ``path``), e.g. as the user wrote it when ``path``
        is resolved.

    Raises
    ------
    InputError
        The file is missing or clang rejects it (clang's first error lines are quoted).
    """
    source = require_c_file(path, where)
    argv = [*clang_command(), *flags, f"-I{source.resolve().parent}"]
    argv += [f"-I{d}" for d in include_dirs]
    argv += [f"-D{k}={v}" for k, v in (defines or {}).items()]
    with tempfile.TemporaryDirectory(prefix="starchart-ir-") as tmp:
        out = Path(tmp) / (source.stem + ".ll")
        proc = subprocess.run([*argv, "-x", "c", str(source), "-o", str(out)],  # C whatever the file is named
                              capture_output=True, text=True)
        if proc.returncode != 0 or not out.exists():
            errors = [ln for ln in proc.stderr.splitlines() if "error" in ln][:3] or proc.stderr.splitlines()[-3:]
            raise InputError("clang could not compile the file: " + " | ".join(errors),
                             where=source if where is None else where,
                             hint="the file must compile as C: give the folders of headers that lie neither next "
                                  "to it nor on the system include path with "
                                  f"{say('include_dirs=[DIR]', '-I DIR')}, and the macros its build defines with "
                                  f"{say('defines={NAME: VALUE}', '-D NAME=VALUE')}")
        return out.read_text()
