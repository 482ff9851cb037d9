"""Check a :class:`~starchart.CudaEvaluator`'s kernel for correctness on the CPU, where there is no GPU.

:func:`run_on_cpu` compiles the evaluator's CUDA source for one configuration with g++
and ``cuda_on_cpu.h`` (every GPU thread a CPU thread, blocks one after another),
launches it on the grid and thread block the evaluator would use, with the same
``-D`` defines, on copies of the evaluator's arguments, and returns the arguments
as the kernel left them. :func:`check_on_cpu` then compares them with the
evaluator's ``reference``/``answer`` exactly as the GPU run does
(:func:`starchart.measure.cuda.compare_outputs`).

It runs the kernel's own source, so it finds indexing mistakes, missing barriers
that make results wrong, and reference mistakes before an hour of GPU time is spent.
It does not find what only a GPU shows: timing, resource limits, warp-level races.
Keep the inputs small: every GPU thread becomes a CPU thread.

Example (needs g++ with C++20)::

    >>> import numpy as np
    >>> from starchart.measure.cuda import VECTOR_ADD, CudaEvaluator
    >>> a, b = np.arange(300, dtype=np.float32), np.ones(300, np.float32)
    >>> ev = CudaEvaluator(VECTOR_ADD, "vector_add", [np.zeros(300, np.float32), a, b, np.int32(300)],
    ...                    problem_size=300, answer=[a + b, None, None, None])
    >>> check_on_cpu(ev, {"block_size_x": 128}) is None       # doctest: +SKIP
    True
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from starchart.measure import Measurement
from starchart.measure.cuda import CudaEvaluator, compare_outputs

HEADER = Path(__file__).resolve().parent / "cuda_on_cpu.h"
_CACHE = Path(tempfile.gettempdir()) / "starchart-cuda-on-cpu"


def compiler() -> str | None:
    """The C++ compiler used (``$CXX`` or g++), or None when there is none."""
    return shutil.which(os.environ.get("CXX", "g++"))


def build(evaluator: CudaEvaluator, config: Mapping[str, Any]) -> tuple[ctypes.CDLL, tuple, tuple]:
    """Compile ``config`` of the evaluator's kernel for the CPU: the library, grid and block.

    Libraries are cached by source and options, so a repeated check compiles nothing.
    """
    grid, block = evaluator.geometry(dict(config))
    options = evaluator.options(dict(config), grid, block)
    launcher = (f'#include "{HEADER}"\n{evaluator.source}\n'
                'extern "C" void starchart_cpu_launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx,'
                ' unsigned by, unsigned bz, void** args) {\n'
                f'    cuda_on_cpu::launch(dim3{{gx, gy, gz}}, dim3{{bx, by, bz}}, &{evaluator.kernel_name}, args);\n'
                '}\n')
    key = hashlib.sha256((launcher + "\0".join(options) + HEADER.read_text()).encode()).hexdigest()[:20]
    _CACHE.mkdir(parents=True, exist_ok=True)
    library = _CACHE / f"{evaluator.kernel_name}-{key}.so"
    if not library.exists():
        source = _CACHE / f"{evaluator.kernel_name}-{key}.cpp"
        source.write_text(launcher)
        command = [compiler() or "g++", "-std=c++20", "-O1", "-pthread", "-shared", "-fPIC",
                   "-w", *options, str(source), "-o", str(library) + ".tmp"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode:
            raise RuntimeError(f"g++ could not compile {evaluator.kernel_name} for {dict(config)}:\n"
                               f"{done.stderr[-4000:]}")
        os.replace(str(library) + ".tmp", library)
    return ctypes.CDLL(str(library)), grid, block


def run_on_cpu(evaluator: CudaEvaluator, config: Mapping[str, Any]) -> list[Any]:
    """Launch one configuration on copies of the evaluator's arguments; returns them afterwards."""
    library, grid, block = build(evaluator, config)
    arguments = [a.copy() if isinstance(a, np.ndarray) else a for a in evaluator.arguments]
    # cuLaunchKernel's convention: an array of pointers to each argument's value (an array's
    # value is its data pointer); each value is held in a one-element numpy array.
    held = [np.array([a.ctypes.data], dtype=np.uintp) if isinstance(a, np.ndarray) else np.array([a])
            for a in arguments]
    pointers = (ctypes.c_void_p * len(held))(*[h.ctypes.data for h in held])
    library.starchart_cpu_launch(*[ctypes.c_uint(int(v)) for v in (*grid, *block)], pointers)
    return arguments


def check_on_cpu(evaluator: CudaEvaluator, config: Mapping[str, Any]) -> str | None:
    """None when the CPU run of ``config`` matches the evaluator's reference, else what differs."""
    outputs = run_on_cpu(evaluator, config)
    expected = evaluator.expected_outputs(config)  # as the GPU run checks it
    if expected is None:
        return None
    return compare_outputs(outputs, expected, rtol=evaluator.rtol, atol=evaluator.atol)


def measure_on_cpu(evaluator: CudaEvaluator, config: Mapping[str, Any], repeats: int) -> Measurement | list[float]:
    """Check ``config`` on the CPU, then time ``repeats`` runs (wall clock, ms): the GPU scripts' dry run.

    A wrong answer is returned as a failed :class:`~starchart.measure.Measurement`; the times are
    meaningless as GPU figures (each GPU thread is a CPU thread).
    """
    wrong = check_on_cpu(evaluator, config)  # builds once (cached), then checks
    if wrong:
        return Measurement.failure(dict(config), "wrong-answer", wrong)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run_on_cpu(evaluator, config)
        times.append(1e3 * (time.perf_counter() - start))
    return times
