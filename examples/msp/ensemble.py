"""The MSP example: an ensemble of damped oscillators (``ensemble.c``), its tuning space and evaluator.

The kernel advances ``n`` independent oscillators through 256 time steps. A CPU
core is parallel hardware (SIMD lanes, several pipelined floating-point units),
and each oscillator's step depends on its previous one, so the core is only busy
when enough independent oscillators are in flight: with a few dozen the core
idles, exactly as a GPU does with too few threads. Throughput (oscillator-steps
per second) therefore rises with ``n`` and saturates — the premise of Magni et
al.'s minimum saturation point — without the cache effects that make most CPU
kernels *slower* per unit of work as the input grows (each block of oscillators
stays in L1 for all its steps).

Its tuning parameters are read at run time, so one binary (built once, in well
under a second) serves the whole space at every size:

- ``BLOCK``: oscillators advanced together through all their time steps (kept in
  cache meanwhile); a block larger than the ensemble is the whole ensemble;
- ``GROUP``: oscillators per inner-loop iteration, held in registers and turned
  into SIMD vectors by the compiler (4 doubles = one AVX2 vector); leftovers that
  do not fill a group run one at a time;
- ``STEPS``: time steps per pass over a block (the group stays in registers).

``GROUP`` and ``STEPS`` are the analogue of Magni's thread coarsening (more
independent work per iteration), ``BLOCK`` of the work-group size.

Usage::

    binary = build(tmpdir)
    evaluator = ensemble_evaluator(binary)
    evaluator.evaluate({**DEFAULT_CONFIG, "n": 4096}).summary()   # {'time_ms': ..., 'cpu_ms': ...}
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from starchart.errors import InputError
from starchart.measure import CommandEvaluator
from starchart.space import Space

#: The C source.
SOURCE = Path(__file__).resolve().with_name("ensemble.c")

#: Time steps per oscillator (``STEPS_TOTAL`` in the source): the work of size n is n * STEPS_TOTAL.
STEPS_TOTAL = 256

#: The input-size parameter: the number of oscillators.
SIZE_PARAM = "n"

#: Units of work of a configuration: oscillator-steps.
WORK = f"n * {STEPS_TOTAL}"

#: The tuning space (60 configurations).
TUNE_PARAMS: dict[str, list[int]] = {
    "BLOCK": [64, 256, 1024, 4096, 16384],
    "GROUP": [4, 8, 16, 32],
    "STEPS": [1, 2, 4],
}

#: The untuned configuration: blocks of 256 (a typical default work-group size), one vector per
#: iteration, one step per pass (no coarsening).
DEFAULT_CONFIG: dict[str, int] = {"BLOCK": 256, "GROUP": 4, "STEPS": 1}

#: Compiler flags of the build.
FLAGS = ("-O3", "-march=native")


def space() -> Space:
    """The tuning space (without the input size)."""
    return Space(TUNE_PARAMS)


def build(directory: str | Path, compiler: str = "gcc") -> tuple[Path, float]:
    """Compile ``ensemble.c`` into ``directory``; return the binary and the seconds the build took."""
    if shutil.which(compiler) is None:
        raise InputError(f"compiler {compiler!r} not found", where="examples/msp", hint="install gcc")
    binary = Path(directory) / "ensemble"
    start = time.perf_counter()
    result = subprocess.run([compiler, *FLAGS, "-Wall", "-Wextra", str(SOURCE), "-o", str(binary)],
                            capture_output=True, text=True, timeout=300, check=False)
    if result.returncode != 0:
        raise InputError(f"{compiler} failed: {result.stderr.strip()[-500:]}", where=str(SOURCE))
    return binary, time.perf_counter() - start


#: The two clocks the kernel reads: wall-clock time, and the CPU time of its thread.
CLOCKS = {"wall": "time_ms", "cpu": "cpu_ms"}


def ensemble_evaluator(binary: str | Path, repeats: int = 3, warmup: int = 1, clock: str = "wall",
                       **options: Any) -> CommandEvaluator:
    """Run the built kernel per configuration, one value per run (after ``warmup`` runs) of both clocks.

    ``clock`` picks the objective: ``"wall"`` (metric ``time_ms``) or ``"cpu"`` (``cpu_ms``, the
    thread's CPU time: the same on a quiet machine, unaffected by sharing the core on a busy one).
    Both are kept in every measurement's ``values``.
    """
    if clock not in CLOCKS:
        raise InputError(f"unknown clock {clock!r}", where="ensemble_evaluator", hint="use 'wall' or 'cpu'")
    return CommandEvaluator([str(binary), "{n}", "{BLOCK}", "{GROUP}", "{STEPS}"], json_lines=True,
                            metric=CLOCKS[clock], repeats=repeats, warmup=warmup,
                            timeout=options.pop("timeout", 120), **options)
