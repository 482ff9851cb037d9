"""Measure the paper's six kernels on an NVIDIA GPU into starchart stores (issue 8's data).

For each kernel: a uniform sample of its space (default 400 configurations, seed 0), every
configuration checked against its reference before it is timed (CUDA events, a warm-up
launch, 10 repeats), power and energy from NVML for the kernels named by ``--power``
(a sustained run of ``--power-duration`` seconds per configuration). Results go to
``OUT/NAME.db`` as they arrive; running the same command again resumes where it stopped
(also after a kill), then writes ``OUT/NAME.csv`` and ``OUT/NAME.json`` (Kernel Tuner cache).

Compiling is the slow part (NVRTC, ~0.2–0.5 s a configuration), so each kernel's sampled
configurations are first compiled in parallel processes into CuPy's kernel cache; the
measuring run then finds them compiled.

Usage (on the GPU machine, from the repository root)::

    python examples/gpu/measure_h200.py [KERNEL ...] [--samples 400] [--out data/h200]
        [--power kmeans] [--power-duration 1.0] [--jobs 16]

Needs CuPy and nvidia-ml-py (``pip install ".[cuda]"``). Run on an NVIDIA H200 on 2026-11-23:
its results are in ``data/h200/`` (see the README there); ``examples/gpu/test_gpu_examples.py`` checks the
kernels on the CPU.

``--cpu`` is a dry run of this whole script on a machine without a GPU: each configuration's
CUDA source runs on the CPU (:mod:`cpu_check`, g++, small inputs), is checked against the same
reference and timed by the wall clock, through the same store, resume and export — so the
first minutes of GPU time are not spent finding a bug in the plumbing.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a source checkout

import kernels

import starchart
from starchart._util.configs import plain_config
from starchart.errors import StarchartError
from starchart.measure import Measurement, PythonEvaluator
from starchart.study.store import Store

#: How often the script restarts itself after a configuration broke the CUDA context
#: (an illegal address leaves it unusable; the store keeps everything measured before).
MAX_RESTARTS = 5
_RESTARTS = "STARCHART_MEASURE_RESTARTS"


def compile_one(job: tuple[str, str, tuple[str, ...]]) -> bool:
    """Compile one configuration into CuPy's on-disk cache; False if it does not compile."""
    import cupy

    code, name, options = job
    try:
        cupy.RawModule(code=code, options=options).get_function(name)  # as CudaEvaluator compiles
        return True
    except Exception:  # noqa: BLE001 - the measuring run records the compiler's message
        return False


def precompile(evaluator: Any, configs: list[dict[str, Any]], jobs: int) -> tuple[int, float]:
    """Compile ``configs`` in ``jobs`` processes; returns (failures, seconds)."""
    work = []
    for config in configs:
        grid, block = evaluator.geometry(config)
        work.append((evaluator.source, evaluator.kernel_name, tuple(evaluator.options(config, grid, block))))
    start = time.perf_counter()
    context = multiprocessing.get_context("spawn")  # CUDA does not survive fork
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        failures = sum(not ok for ok in pool.map(compile_one, work, chunksize=4))
    return failures, time.perf_counter() - start


def cpu_evaluator(name: str, repeats: int) -> PythonEvaluator:
    """``--cpu``: run each configuration's CUDA source on the CPU, checked, wall-clock timed (ms)."""
    import cpu_check

    cuda = kernels.KERNELS[name]("cpu")

    def run(config: dict[str, Any]) -> Measurement | list[float]:
        return cpu_check.measure_on_cpu(cuda, config, repeats)

    return PythonEvaluator(run, metrics="time")


def measure(name: str, args: argparse.Namespace) -> starchart.Dataset:
    """Sample, check, time (and with --power, power) one kernel into OUT/NAME.db; export it."""
    power = name in args.power
    if args.cpu:  # only configurations that fit the CPU-size inputs
        return _run_and_export(name, kernels.cpu_space(name), cpu_evaluator(name, args.repeats), args)
    space = kernels.space(name)
    evaluator = kernels.KERNELS[name]("gpu", repeats=args.repeats, power=power,
                                      power_duration_s=args.power_duration)
    store = args.out / f"{name}.db"
    todo = space.sample(args.samples, seed=args.seed).to_dict("records")
    if store.exists():
        with Store.open(store, read_only=True) as done:
            measured = {tuple(sorted(m.config.items())) for m in done.measurements()}
        todo = [c for c in todo if tuple(sorted(c.items())) not in measured]
    if todo and args.jobs > 1:
        failures, seconds = precompile(evaluator, todo, args.jobs)
        print(f"{name}: compiled {len(todo)} configurations in {seconds:.0f} s ({failures} do not compile)",
              flush=True)
    return _run_and_export(name, space, evaluator, args)


def _run_and_export(name: str, space: Any, evaluator: Any, args: argparse.Namespace) -> starchart.Dataset:
    """Measure the sample into OUT/NAME.db (resuming what is there), then write the CSV and the cache."""
    store = args.out / f"{name}.db"
    data = starchart.run(space, evaluator, samples=args.samples, store=store, seed=args.seed)
    with Store.open(store, read_only=True) as done:
        done.export(args.out / f"{name}.csv")
        done.export(args.out / f"{name}.json")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="*",
                        metavar="KERNEL", help="kernels to measure (default: all six)")
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("data/h200"))
    parser.add_argument("--power", nargs="*", default=["kmeans"], metavar="KERNEL",
                        help="kernels whose power and energy are measured too (default: kmeans)")
    parser.add_argument("--power-duration", type=float, default=1.0, help="seconds of each sustained power run")
    parser.add_argument("--jobs", type=int, default=16, help="processes that compile ahead (1: none)")
    parser.add_argument("--cpu", action="store_true",
                        help="dry run without a GPU: the CUDA sources run on the CPU (g++), small inputs")
    args = parser.parse_args(argv)
    args.kernels = kernels.chosen(parser, args.kernels, kernels.KERNELS)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.kernels:
        try:
            data = measure(name, args)
        except StarchartError as exc:  # no CuPy, no GPU, NVML missing: one line, not a traceback
            print(f"error: {exc}", file=sys.stderr)
            restarts = int(os.environ.get(_RESTARTS, "0"))
            if "CUDA context failed" in str(exc) and restarts < MAX_RESTARTS:
                # a kernel broke the context; what was measured is stored, a new process resumes
                print(f"restarting ({restarts + 1} of {MAX_RESTARTS}) to resume in a fresh CUDA context",
                      file=sys.stderr, flush=True)
                os.environ[_RESTARTS] = str(restarts + 1)
                os.execv(sys.executable, [sys.executable, *sys.argv])
            return 2
        ok = data.frame[data.valid.to_numpy()]
        best = ok.loc[ok["time"].idxmin()] if len(ok) else None
        rows.append((name, len(ok), len(data) - len(ok),
                     f"{best['time']:.4g} ms" if best is not None else "-",
                     plain_config(best[data.params]) if best is not None else "-"))
    print(f"\n{'kernel':<14} {'ok':>5} {'failed':>6}  best")
    for name, ok, failed, best, config in rows:
        print(f"{name:<14} {ok:>5} {failed:>6}  {best} {config}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
