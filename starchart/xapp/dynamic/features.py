"""Dynamic XAPP features of a C program's marked region, measured by an instrumented run.

``dynamic_features("k.c", args=["1024"])`` compiles ``k.c`` to ``-O1`` IR, instruments the
loop nest after ``#pragma xapp parallel`` (or the loop on ``band_line``), links the runtime,
runs the program and returns the thesis's Table 3.1 properties, computed by the runtime
during the run (no trace is written). :data:`FEATURES` documents each key;
``docs/xapp-dynamic.md`` gives the exact definitions.

Examples
--------
>>> f = dynamic_features("saxpy.c", args=["100000"])        # doctest: +SKIP
>>> f["coalesced"], f["ilp256"]                              # doctest: +SKIP
(1.0, 6.2)
"""

from __future__ import annotations

import json
import math
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import InputError, StarchartError, arg
from ..toolchain import require_c_file
from .build import OUT_ENV, link_instrumented, link_native, program_ir, run_program
from .instrument import BlockInfo, BranchInfo, instrument_ir
from .irloops import source_loop_lines
from .irtext import parse_module
from .region import band_line_of

#: Feature keys (thesis names) and what each measures; see docs/xapp-dynamic.md.
FEATURES: dict[str, str] = {
    "ninst": "dynamic IR instructions executed in the region",
    "mem": "fraction of instructions that are loads/stores/atomics/memcpy",
    "ctrl": "fraction that are branches, switches, returns and non-libm calls",
    "int": "fraction that are integer/address arithmetic, compares, casts, selects",
    "fp": "fraction that are single-precision floating-point operations (libm call = 1)",
    "dp": "fraction that are double-precision floating-point operations",
    "mulf": "fraction of fp operations that are multiplies (fmul, fma)",
    "divf": "fraction of fp operations that are divisions (fdiv, frem, fmod)",
    "sqrtf": "fraction of fp operations that are sqrt/rsqrt/cbrt/hypot",
    "expf": "fraction of fp operations that are exp/log/pow (and hyperbolic) functions",
    "sincosf": "fraction of fp operations that are trigonometric functions",
    "muld": "as mulf, over dp operations",
    "divd": "as divf, over dp operations",
    "sqrtd": "as sqrtf, over dp operations",
    "expd": "as expf, over dp operations",
    "sincosd": "as sincosf, over dp operations",
    "ilp32": "mean ILP over aligned windows of 2^5 dynamic instructions (ideal dataflow, unit latency)",
    "ilp256": "mean ILP over windows of 2^8 instructions",
    "ilp2048": "mean ILP over windows of 2^11 instructions",
    "ilp16384": "mean ILP over windows of 2^14 instructions",
    "ilp65536": "mean ILP over windows of 2^16 instructions",
    "ilpRate": "ilp16384 / ilp32: growth of ILP from a window of 32 to one of 16384",
    "gMemBW": "mean over windows of 32 instances of a static load/store of bytes requested / bytes "
              "of the 128 B transactions they touch (at most 1)",
    "coalesced": "fraction of those windows served by the fewest 128 B transactions possible",
    "stride0": "fraction of those windows whose 32 instances access one address",
    "shMemBW": "sum over constant-stride windows of 1/(bank-conflict degree, 32 banks x 4 B) / windows",
    "noConflict": "fraction of windows with a constant non-zero stride and no bank conflict",
    "reuseDist2": "fraction of memory references whose LRU stack distance on 128 B blocks is <= 2",
    "coldRef": "fraction of memory references to a 128 B block not touched before in the region",
    "blocks": "distinct 128 B blocks touched in the region",
    "pages": "distinct 4 KB pages touched in the region",
    **{f"Lbdiv{1 << k}": f"fraction of windows of {1 << k} consecutive decisions of a static branch "
                         "(local history) that do not all go the same way" for k in range(4, 11)},
}


@dataclass
class DynamicRun:
    """One instrumented run: the features plus what supports them.

    Attributes
    ----------
    features:
        The Table 3.1 properties (keys of :data:`FEATURES`).
    counts:
        The runtime's raw counters (class counts, memory references, window counts...).
    region_entries:
        How many times the band loop was entered.
    blocks, branches:
        Per IR block its execution count inside the region; per conditional branch/switch
        its successor counts (used to cross-check against clang's profile).
    loop_headers:
        Source line -> header block ids of the loops starting there (all copies).
    wall_s, cpu_s, native_wall_s, native_cpu_s:
        Wall and CPU time of the instrumented and (when asked for) the native run.
    """

    source: Path
    band_line: int
    band_end_line: int | None
    features: dict[str, float]
    counts: dict[str, Any]
    region_entries: int
    blocks: list[tuple[BlockInfo, int]] = field(repr=False)
    branches: list[tuple[BranchInfo, list[int]]] = field(repr=False)
    loop_headers: dict[int, list[int]] = field(repr=False)
    wall_s: float
    cpu_s: float
    native_wall_s: float | None = None
    native_cpu_s: float | None = None
    stdout: str = field(default="", repr=False)

    @property
    def slowdown(self) -> float | None:
        """Instrumented over native CPU time (None when the native run was not made).

        CPU time (user + system of the child) rather than wall time, so that other load
        on the machine does not distort the ratio.
        """
        if not self.native_cpu_s:
            return None
        return self.cpu_s / self.native_cpu_s


#: A definition of ``main`` in the IR (``define dso_local i32 @main(...)``).
_DEFINES_MAIN = re.compile(r"^define\b[^\n]*@main\(", re.M)


def measure(path: str | Path, args: Sequence[object] = (), band_line: int | None = None, *,
            defines: dict[str, object] | None = None, include_dirs: tuple[str | Path, ...] = (),
            libs: Sequence[str] = ("-lm",), timeout: float | None = 600.0,
            cwd: str | Path | None = None, native: bool = False) -> DynamicRun:
    """Instrument, run and measure the band region of one C program.

    Parameters
    ----------
    path:
        The C file; its band is marked ``#pragma xapp parallel`` unless ``band_line`` is given.
    args:
        Command-line arguments of the run (the features describe this input).
    band_line:
        Line of the band loop's ``for`` (overrides the pragma).
    defines, include_dirs, libs:
        ``-D``/``-I`` for compiling and libraries for linking (default ``-lm``).
    timeout:
        Seconds the instrumented run may take.
    cwd:
        Working directory of the run (input files relative to it).
    native:
        Also build and time the uninstrumented program (for :attr:`DynamicRun.slowdown`).

    Raises
    ------
    InputError
        No band, band line not a loop (or the loop optimised away), the program fails,
        the band never runs, or the runtime's output is missing.
    """
    source = require_c_file(path)
    if band_line is not None and (not isinstance(band_line, int) or isinstance(band_line, bool)):
        raise InputError(f"{arg('band_line')} must be a line number, got {band_line!r}", where=source)
    if timeout is not None and not (isinstance(timeout, int | float) and 0 < timeout < math.inf):
        # nan crashed in subprocess, 0 or a negative value reported every run as "did not finish"
        raise InputError(f"{arg('timeout', repr(timeout))} is not a positive number of seconds",
                         where=f"{source}, timeout", hint=f"give e.g. {arg('timeout', '600')}")
    compiled: list[str] = []

    def compile_once() -> str:
        if not compiled:
            compiled.append(program_ir(source, defines=defines, include_dirs=include_dirs))
        return compiled[0]

    # the IR's loop lines only for a band_line whose text starts no loop (a loop written by a macro)
    line = band_line_of(source.read_text(errors="replace"), str(source), band_line,
                        lambda: source_loop_lines(parse_module(compile_once())))
    ir = compile_once()
    if not _DEFINES_MAIN.search(ir):  # else the link fails with a linker error blamed on starchart
        raise InputError("the file has no main(): dynamic XAPP runs the program to measure its band",
                         where=source, hint="add a main() that calls the band's function on a realistic input "
                                            "(its arguments go after --); static features need no main")
    inst = instrument_ir(ir, line, str(source))
    with tempfile.TemporaryDirectory(prefix="starchart-xapp-dyn-") as tmp:
        work = Path(tmp)
        exe = link_instrumented(inst, work, libs, source)
        out = work / "features.json"
        stdout, wall, cpu = run_program(exe, args, source=source, env={OUT_ENV: str(out)}, timeout=timeout,
                                        cwd=cwd)
        if not out.is_file():
            raise InputError("the program ended without the XAPP runtime writing its features",
                             where=source, hint="the run must end through exit() or main's return "
                                                "(not _exit, exec or a kill)")
        try:
            data = json.loads(out.read_text())
        except json.JSONDecodeError as err:
            raise StarchartError(f"the runtime's output is not JSON ({err})", where=out) from None
        native_wall = native_cpu = None
        if native:
            _, native_wall, native_cpu = run_program(link_native(ir, work, libs, source), args, source=source,
                                                     timeout=timeout, cwd=cwd)
    entries = int(data["region_entries"])
    if entries == 0:
        raise InputError(f"the band loop on line {line} never ran with args {list(map(str, args))}",
                         where=f"{source}, line {line}",
                         hint="check the arguments: the region must execute to be measured")
    features = {k: data["features"][k] for k in FEATURES}
    block_counts = data.get("block_counts", [])
    succ_counts = data.get("succ_counts", [])
    blocks = list(zip(inst.blocks, block_counts))
    branches = [(br, succ_counts[br.succ_offset:br.succ_offset + len(br.succs)]) for br in inst.branches]
    return DynamicRun(source, line, inst.band_end_line, features, data["counts"], entries, blocks, branches,
                      inst.loop_headers, wall, cpu, native_wall, native_cpu, stdout)


def dynamic_features(path: str | Path, args: Sequence[object] = (), band_line: int | None = None,
                     **options: Any) -> dict[str, float]:
    """The dynamic XAPP features of ``path``'s band region for one run (see :func:`measure`)."""
    return measure(path, args, band_line, **options).features

