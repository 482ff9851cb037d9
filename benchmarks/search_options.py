"""Try settings of the tree-guided search quickly: the engine alone on the replayed spaces.

``benchmarks/search.py`` is the benchmark of record (the public ``search`` API, Kernel
Tuner's strategies, 30 seeds; hours). This script is for developing the search: it
drives :class:`~starchart.strategies.engine.TreeGuidedOptimizer` directly on the
eleven replayed spaces of ``search.py`` (its seven and the four it keeps apart) with
any :class:`~starchart.strategies.engine.SearchOptions`, and prints per budget the
median quality and the share within 5 % of the optimum, for the seven and for the
other four separately (10 seeds × 4 budgets take about 2.5 minutes on 2 cores). Failed
configurations are charged, as in ``search.py``.

With 10 seeds a pooled median moves by ±0.02–0.04 between equally good settings: use
it to reject ideas, and confirm any change with ``search.py``.

Run: ``python benchmarks/search_options.py '{"local_every": 3}' --seeds 10 --budgets 20,50,100,200``
(``--first-seed 100`` for seeds 100, 101, …, to confirm a setting on other seeds)
(writes ``benchmarks/results/search_options.json``; the default ``{}`` is the shipped settings).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import search as bench
from common import report


@functools.lru_cache(maxsize=None)
def _space(name: str) -> tuple:
    """Codes of every configuration of a replayed space, its objective (NaN: failed) and optimum."""
    from starchart.strategies.encoding import Encoding

    ds, space, metric, optimum = bench._space_data(name)
    enc = Encoding.from_space(space)
    frame = space.to_frame()
    values = ds.frame.set_index(list(space.names))[metric].where(ds.valid.to_numpy())
    found = values.reindex(list(frame.itertuples(index=False, name=None))).to_numpy(dtype=float)
    return enc, enc.encode(frame), found, optimum


def run_one(task: tuple[str, int, int, dict]) -> tuple[str, int, int, float]:
    """One search of ``budget`` evaluations: its quality (optimum ÷ best found; 0 if all failed)."""
    from starchart.strategies.encoding import CandidatePool
    from starchart.strategies.engine import SearchOptions, TreeGuidedOptimizer

    name, seed, budget, options = task
    enc, codes, values, optimum = _space(name)
    optimizer = TreeGuidedOptimizer(CandidatePool(enc, codes), seed=seed, budget=budget,
                                    options=SearchOptions(**options))
    return name, seed, budget, bench._quality(optimum, replay(optimizer, values, budget))


def replay(optimizer, values: np.ndarray, budget: int) -> float:
    """Let ``optimizer`` spend ``budget`` evaluations on a replayed space (NaN: failed); the best value found."""
    best = np.inf
    for _ in range(budget):
        index = optimizer.ask()
        value = values[index]
        optimizer.tell(index, value if np.isfinite(value) else None)
        if np.isfinite(value):
            best = min(best, value)
    return best


def _pooled(qualities: list[float]) -> tuple[float, float]:
    q = np.asarray(qualities)
    return float(np.median(q)), float(np.mean(q >= 1 / 1.05))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("options", nargs="?", default="{}", help="SearchOptions as JSON, e.g. '{\"n_trees\": 32}'")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed … first-seed + seeds − 1")
    parser.add_argument("--budgets", default="20,50,100,200")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    options = json.loads(args.options)
    budgets = [int(b) for b in args.budgets.split(",")]
    spaces = list(bench.SPACES) + list(bench.OTHER_SPACES)
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    tasks = [(s, k, b, options) for s in spaces for b in budgets for k in seeds]
    started = time.perf_counter()
    found: dict[int, dict[str, list[float]]] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, _seed, budget, quality in pool.map(run_one, tasks, chunksize=2):
            found.setdefault(budget, {}).setdefault(name, []).append(quality)
    rows = []
    for budget in budgets:
        seven = [q for s in bench.SPACES for q in found[budget][s]]
        others = [q for s in bench.OTHER_SPACES for q in found[budget][s]]
        (m7, w7), (mo, wo) = _pooled(seven), _pooled(others)
        rows.append({"budget": budget, "seven: median": m7, "seven: within 5%": w7,
                     "other four: median": mo, "other four: within 5%": wo,
                     **{s: float(np.median(found[budget][s])) for s in spaces}})
    report("search_options", f"SearchOptions {options} ({args.seeds} seeds from {args.first_seed}, failures charged)",
           rows, extra={"options": options, "seeds": args.seeds, "first_seed": args.first_seed,
                        "seconds": time.perf_counter() - started})


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
