"""Measure every configuration of the demo's matrix multiply on this CPU: a held-out search space.

The demo kernel (``starchart/demo/matmul.c``, 256 × 256 doubles) has 15,468 valid
configurations (tile sizes, loop order, unroll, transposed B). This script compiles
all of them first (``gcc -O3``, ``--build-workers`` at a time, into the evaluator's
binary cache), then measures them one at a time with the demo's evaluator (checksum
checked against the naive loop nest), 3 timed runs after 1 warm-up per configuration,
into a resumable store, and writes ``data/matmul_<cpu>_gcc.csv.gz`` (parameters,
``time`` in ms = the mean of the 3 runs, status, reason) for
``benchmarks/search_held_out.py``. Keep the machine otherwise idle while it measures:
the times are wall-clock.

One at a time, because two kernels running at once on this 2-core machine slow each
other by up to 2× and by amounts that depend on the pair (the best configuration:
1.42 ms alone, 2.58 ms beside another), which a first file, measured two at a time,
recorded as if it were the kernel's own time.

Run: ``python benchmarks/measure_matmul_cpu.py [--store PATH] [--out PATH] [--workers N]``
(39 minutes on an idle 2-core AMD EPYC: 16 compiling, 23 measuring; re-running resumes the store).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from starchart.demo import demo_evaluator, demo_space
from starchart.measure.environment import environment
from starchart.study.runner import run

DATA = Path(__file__).resolve().parent / "data"


def cpu_slug() -> str:
    """This processor in a file name: ``"epyc"`` for an "AMD EPYC"."""
    return re.sub(r"[^a-z0-9]+", "_", str(environment().get("cpu") or "cpu").lower()).strip("_").removeprefix("amd_")


def main() -> None:
    cpu = cpu_slug()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", default="matmul_cpu.db", help="resumable store (default: ./matmul_cpu.db)")
    parser.add_argument("--out", default=str(DATA / f"matmul_{cpu}_gcc.csv.gz"), help="CSV written at the end")
    parser.add_argument("--workers", type=int, default=1,
                        help="configurations measured at a time (default 1: kernels running side by side slow "
                             "each other)")
    parser.add_argument("--build-workers", type=int, default=2, help="compilations at a time before measuring")
    args = parser.parse_args()
    space = demo_space()
    evaluator = demo_evaluator(repeats=3, warmup=1)
    build_all(evaluator, [row for chunk in space.enumerate() for row in chunk.to_dict("records")], args.build_workers)
    dataset = run(space, evaluator, samples=space.size(), store=args.store, seed=0, workers=args.workers)
    dataset.to_csv(args.out)
    counts = dataset.frame["status"].value_counts().to_dict()
    print(f"{len(dataset)} configurations ({counts}); wrote {args.out}")


def build_all(evaluator, configs: list[dict], workers: int) -> None:
    """Compile these configurations into the evaluator's binary cache (cached ones are found, not rebuilt), so
    that no compiler runs beside the measurements."""
    from concurrent.futures import ThreadPoolExecutor

    from starchart._util.progress import stderr_progress

    with ThreadPoolExecutor(workers) as pool, stderr_progress() as bar:
        task = bar.add_task("compiling", total=len(configs))
        for _ in pool.map(evaluator.build, configs):
            bar.advance(task)


if __name__ == "__main__":
    main()
