"""Warm-started search: does another GPU's data of the same space help, and what does a misleading one cost?

The convolution space was measured exhaustively on an A100, an RTX A4000 and an
RTX A6000 (``../shared/datasets/convolution``). For each GPU as the target and
each other GPU as the prior, this runs the search engine (as ``search(…, prior=…)``
does: the prior's valid configurations, read by
:func:`~starchart.strategies.prior.prior_measurements`) and the same engine
without a prior, over ``--seeds`` seeds at budgets 20, 50 and 100, failures
charged, and prints the median quality (optimum ÷ best found) and the share of
runs within 5 % of the optimum.

Run: ``python benchmarks/search_prior.py --seeds 30`` (about 3 minutes on 2 cores;
writes ``benchmarks/results/search_prior.json``).
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import search as bench
import search_options
from common import report

GPUS = ("convolution A100", "convolution A4000", "convolution A6000")


@functools.cache
def _prior(target: str, source: str) -> tuple[np.ndarray, np.ndarray]:
    """The source GPU's valid measurements, coded in the target space's encoding."""
    from starchart.strategies.prior import prior_measurements

    enc = search_options._space(target)[0]
    ds, _space, metric, _optimum = bench._space_data(source)
    return prior_measurements(ds, enc, metric)


def run_one(task: tuple[str, str | None, int, int]) -> tuple[str, str | None, int, float]:
    """One search of ``budget`` evaluations on ``target`` (with ``source``'s data, or none)."""
    from starchart.strategies.encoding import CandidatePool
    from starchart.strategies.engine import TreeGuidedOptimizer

    target, source, seed, budget = task
    enc, codes, values, optimum = search_options._space(target)
    prior = None if source is None else _prior(target, source)
    optimizer = TreeGuidedOptimizer(CandidatePool(enc, codes), seed=seed, budget=budget, prior=prior)
    return target, source, budget, bench._quality(optimum, search_options.replay(optimizer, values, budget))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--budgets", default="20,50,100")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    pairs = [(t, None) for t in GPUS] + [(t, s) for t in GPUS for s in GPUS if s != t]
    tasks = [(t, s, k, b) for t, s in pairs for b in budgets for k in range(args.seeds)]
    started = time.perf_counter()
    found: dict[tuple, list[float]] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for target, source, budget, quality in pool.map(run_one, tasks, chunksize=2):
            found.setdefault((target, source, budget), []).append(quality)
    rows = []
    for target, source in pairs:
        row: dict = {"target": target.removeprefix("convolution "),
                     "prior": "none" if source is None else source.removeprefix("convolution ")}
        for budget in budgets:
            q = np.asarray(found[(target, source, budget)])
            row[f"median @{budget}"] = float(np.median(q))
            row[f"within 5% @{budget}"] = float(np.mean(q >= 1 / 1.05))
        rows.append(row)
    report("search_prior", f"Search with another GPU's data of the convolution space ({args.seeds} seeds, "
           "failures charged)", rows, extra={"seeds": args.seeds, "seconds": time.perf_counter() - started})


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
