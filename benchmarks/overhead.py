"""Benchmark: framework time per evaluation through the full run path.

For each evaluator (Python callable, command line, replay) ``starchart.run`` samples a
space, evaluates, stores every result in a SQLite file (WAL, one commit per result)
and draws the progress bar. The framework time per evaluation is the run's wall time
minus what the evaluations themselves report as compile and run time, divided by the
number of evaluations: sampling, bookkeeping, the store, progress, process spawning
overhead outside the measured run. For comparison, the ``framework_time`` that Kernel
Tuner recorded per configuration in the shared datasets' caches is printed (median and
mean) when they are present.

Run ``python benchmarks/overhead.py [--samples N]``; prints a table and writes
``benchmarks/results/overhead.json``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from common import DATASETS, report

from starchart.measure import CommandEvaluator, PythonEvaluator, ReplayEvaluator
from starchart.space import Space
from starchart.study.runner import run
from starchart.study.store import Store


def _timed_run(space: Space, evaluator: Any, samples: int, folder: Path, name: str,
               workers: int = 1) -> dict[str, Any]:
    path = folder / f"{name}.db"
    start = time.perf_counter()
    run(space, evaluator, samples=samples, store=path, seed=1, workers=workers, progress=True)
    wall = time.perf_counter() - start
    with Store.open(path) as store:
        frame = store.results_frame()
    measured = float((frame["compile_s"] + frame["run_s"]).sum())
    n = len(frame)
    return {"evaluator": name, "evaluations": n, "workers": workers, "wall_s": wall,
            "measured_s": measured, "framework_ms_per_eval": 1000 * (wall - measured) / n,
            "evaluator_overhead_ms": 1000 * float(frame["overhead_s"].mean())}


def kernel_tuner_framework_ms() -> dict[str, float] | None:
    """Median and mean ``framework_time`` (ms) per configuration recorded in the shared Kernel Tuner caches."""
    values: list[float] = []
    for path in sorted(DATASETS.glob("*/*.json*")):
        opener = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(path, "rt") as handle:
                cache = json.load(handle)
        except (OSError, ValueError, EOFError):
            continue
        if not isinstance(cache, dict) or not isinstance(cache.get("cache"), dict):
            continue
        values += [float(e["framework_time"]) for e in cache["cache"].values()
                   if isinstance(e, dict) and isinstance(e.get("framework_time"), (int, float))]
    if not values:
        return None
    return {"median_ms": statistics.median(values), "mean_ms": statistics.fmean(values), "entries": len(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000, help="evaluations per evaluator")
    args = parser.parse_args()
    space = Space({"bx": [16, 32, 64, 128, 256, 512, 1024], "by": [1, 2, 4, 8, 16, 32],
                   "tile": list(range(1, 9)), "unroll": [0, 1, 2, 4], "shared": [False, True]},
                  ["bx * by <= 1024", "tile * by <= 64"])
    frame = space.to_frame()
    replay_data = frame.assign(time=(frame["bx"] / frame["by"] + frame["tile"]).astype(float))
    from starchart.dataset import Dataset

    dataset = Dataset.from_frame(replay_data, params=space.names, metrics=["time"])
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        folder_path = Path(folder)
        rows.append(_timed_run(space, PythonEvaluator(lambda c: c["bx"] * 0.001 + c["tile"]), args.samples,
                               folder_path, "python"))
        rows.append(_timed_run(space, ReplayEvaluator(dataset), args.samples, folder_path, "replay"))
        rows.append(_timed_run(space, CommandEvaluator(["true", "{bx}"]), min(args.samples, 300),
                               folder_path, "command"))
    kt = kernel_tuner_framework_ms()
    report("overhead", "Framework time per evaluation (full run path: sample, evaluate, store, progress)",
           rows, {"kernel_tuner_cache_framework_time": kt, "goal_ms": 5.0})
    if kt is not None:
        print(f"Kernel Tuner caches in {DATASETS} ({kt['entries']} entries): framework_time per configuration "
              f"median {kt['median_ms']:.1f} ms, mean {kt['mean_ms']:.1f} ms")


if __name__ == "__main__":
    main()
