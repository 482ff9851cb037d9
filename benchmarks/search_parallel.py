"""Benchmark: the tree-guided search with several workers — quality at a budget, and in how many rounds.

``search(..., workers=W)`` proposes W configurations per round (a *constant liar* batch:
:meth:`~starchart.strategies.engine.TreeGuidedOptimizer.ask_batch`) and learns them in the
order proposed. This runs the engine alone, as ``search_options.py`` does, on the replayed spaces
of ``search.py`` (its seven and the four it keeps apart), failures charged, for W = 1, 4, 8 at
budgets of 20, 50 and 100 evaluations: the median quality (optimum ÷ best found) and the share of
runs within 5 % of the optimum, with the rounds each takes (a round lasts about one measurement
when the workers are separate GPUs). Also "exclusion only" at W = 4: a batch of the model's top
proposals without the liar, to show what the liar is for.

Run: ``python benchmarks/search_parallel.py [--seeds 10]`` (about 4 minutes on 2 cores);
prints a table and writes ``benchmarks/results/search_parallel.json``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import search as bench
import search_options
from common import report

SETTINGS = [(1, "liar"), (4, "liar"), (4, "exclusion only"), (8, "liar")]
BUDGETS = (20, 50, 100)


def run_one(task: tuple[str, int, int, int, str]) -> tuple[str, int, int, int, str, float]:
    """One search of ``budget`` evaluations in batches of ``workers``: its quality."""
    from starchart.strategies.encoding import CandidatePool
    from starchart.strategies.engine import TreeGuidedOptimizer

    name, seed, budget, workers, batch_kind = task
    enc, codes, values, optimum = search_options._space(name)
    optimizer = TreeGuidedOptimizer(CandidatePool(enc, codes), seed=seed, budget=budget)
    best, spent = np.inf, 0
    while spent < budget:
        size = min(workers, budget - spent)
        if size == 1:
            batch = [optimizer.ask()]
        elif batch_kind == "liar":
            batch = optimizer.ask_batch(size)
        else:  # the top proposals, each left out of the next ask, nothing told in between
            batch = []
            for _ in range(size):
                batch.append(optimizer.ask())
                optimizer.pool.evaluated[batch[-1]] = True
            optimizer.pool.evaluated[batch] = False
        for index in batch:  # told in the order proposed, as search() does
            value = values[index]
            optimizer.tell(index, value if np.isfinite(value) else None)
            if np.isfinite(value):
                best = min(best, value)
        spent += len(batch)
    return name, seed, budget, workers, batch_kind, bench._quality(optimum, best)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    spaces = list(bench.SPACES) + list(bench.OTHER_SPACES)
    tasks = [(s, k, b, w, kind) for (w, kind) in SETTINGS for s in spaces for b in BUDGETS for k in range(args.seeds)]
    started = time.perf_counter()
    found: dict[tuple, dict[str, list[float]]] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, _seed, budget, workers, kind, quality in pool.map(run_one, tasks, chunksize=4):
            found.setdefault((workers, kind, budget), {}).setdefault(name, []).append(quality)
    rows = []
    for workers, kind in SETTINGS:
        for budget in BUDGETS:
            runs = found[(workers, kind, budget)]
            seven = np.array([q for s in bench.SPACES for q in runs[s]])
            others = np.array([q for s in bench.OTHER_SPACES for q in runs[s]])
            rows.append({"workers": workers, "batch": kind, "budget": budget, "rounds": math.ceil(budget / workers),
                         "seven: median": float(np.median(seven)), "seven: within 5%": float(np.mean(seven >= 1 / 1.05)),
                         "other four: median": float(np.median(others)),
                         "other four: within 5%": float(np.mean(others >= 1 / 1.05))})
    report("search_parallel", f"Tree-guided search in batches of W workers ({args.seeds} seeds, failures charged)",
           rows, extra={"seeds": args.seeds, "seconds": time.perf_counter() - started})


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
