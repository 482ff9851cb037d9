"""Measure every configuration of the demo's matrix multiply on this CPU: a held-out search space.

The demo kernel (``starchart/demo/matmul.c``, 256 × 256 doubles) has 15,468 valid
configurations (tile sizes, loop order, unroll, transposed B). This script measures
all of them with the demo's evaluator (``gcc -O3``, checksum checked against the
naive loop nest), 3 timed runs after 1 warm-up per configuration, two at a time,
into a resumable store, then writes ``data/matmul_<cpu>_gcc.csv.gz`` (parameters,
``time`` in ms = the mean of the 3 runs, status, reason) for
``benchmarks/search_held_out.py``. Keep the machine otherwise idle while it runs:
the times are wall-clock.

Run: ``python benchmarks/measure_matmul_cpu.py [--store PATH] [--out PATH] [--workers N]``
(17 minutes on an idle 2-core AMD EPYC; re-running resumes the store).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from starchart.demo import demo_evaluator, demo_space
from starchart.measure.environment import environment
from starchart.runner import run

DATA = Path(__file__).resolve().parent / "data"


def main() -> None:
    cpu = re.sub(r"[^a-z0-9]+", "_", str(environment().get("cpu") or "cpu").lower()).strip("_").removeprefix("amd_")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", default="matmul_cpu.db", help="resumable store (default: ./matmul_cpu.db)")
    parser.add_argument("--out", default=str(DATA / f"matmul_{cpu}_gcc.csv.gz"), help="CSV written at the end")
    parser.add_argument("--workers", type=int, default=2, help="configurations measured at a time (default 2)")
    args = parser.parse_args()
    space = demo_space()
    dataset = run(space, demo_evaluator(repeats=3, warmup=1), samples=space.size(), store=args.store, seed=0,
                  workers=args.workers)
    dataset.to_csv(args.out)
    counts = dataset.frame["status"].value_counts().to_dict()
    print(f"{len(dataset)} configurations ({counts}); wrote {args.out}")


if __name__ == "__main__":
    main()
