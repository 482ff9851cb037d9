"""Where a search ends short of the optimum, does its model know where the optimum is?

``search_difficulty.py`` shows that the convolution runs that miss 5 % of the optimum at 100
evaluations end in a trap several parameters away from every configuration within 5 %. This
script asks whether a better *choice* among the model's candidates could have found one
anyway: it replays the engine (as ``search_options.py`` does) for ``budget`` evaluations, and
for each run that ended short refits the model to all its measurements and ranks every
unmeasured configuration by predicted mean and by expected improvement. If the nearest-ranked
configuration within 5 % sat near the top, another acquisition rule could reach it; if it sits
hundreds deep, the measurements do not point there and no rule that reads this model will. For
comparison, a Gaussian process (Matérn 5/2 with a length scale per parameter, as in
``search_surrogates.py``) is fitted to the same measurements and ranks the same configurations.

Run: ``python benchmarks/search_blind_spot.py [--seeds 10] [--budget 100]`` (under a minute for
30 seeds on 2 cores; writes ``benchmarks/results/search_blind_spot.json``).
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import search as bench
import search_options as harness
import search_surrogates
from common import report

SPACES = ("convolution A100", "convolution A4000", "convolution A6000")


def ranks(score: np.ndarray) -> np.ndarray:
    """1 for the smallest score, 2 for the next, … (ties in index order)."""
    return np.argsort(np.argsort(score, kind="stable"), kind="stable") + 1


def model_view(task: tuple[str, int, int]) -> dict:
    """One replayed search; where it ended short, the final model's ranks of the open configurations within 5 %."""
    from starchart.strategies.encoding import CandidatePool
    from starchart.strategies.engine import (
        SearchOptions,
        TreeGuidedOptimizer,
        expected_improvement,
    )
    from starchart.strategies.model import TreeEnsemble

    name, seed, budget = task
    enc, codes, values, optimum = harness._space(name)
    optimizer = TreeGuidedOptimizer(CandidatePool(enc, codes), seed=seed, budget=budget, options=SearchOptions())
    quality = bench._quality(optimum, harness.replay(optimizer, values, budget))
    row = {"space": name, "seed": seed, "quality": quality}
    if quality >= bench.WITHIN:
        return row
    measured = np.array(optimizer.indices)
    found = np.array(optimizer.values)
    ok = np.isfinite(found)
    y = optimizer._transform(found[ok])
    features = optimizer._features()
    options = optimizer.options
    model = TreeEnsemble(options.n_trees, options.feature_fraction, options.min_samples_split)
    model.fit(features[measured[ok]], y, optimizer._feature_levels, optimizer._feature_categorical,
              np.random.default_rng(seed))
    unmeasured = np.flatnonzero(~optimizer.pool.evaluated)
    predictions = model.predict_all(features[unmeasured])
    mean = predictions.mean(axis=0)
    improvement = expected_improvement(float(y.min()), mean, np.maximum(predictions.std(axis=0), 1e-9))
    process = search_surrogates.predictions("gp", codes, enc.n_levels, (), measured[ok], y, unmeasured, None)
    good = np.isin(unmeasured, np.flatnonzero(values <= optimum / bench.WITHIN))
    best = measured[ok][int(np.argmin(y))]
    row.update({"open": len(unmeasured), "rank by mean": int(ranks(mean)[good].min()),
                "rank by expected improvement": int(ranks(-improvement)[good].min()),
                "Gaussian process: rank by mean": int(ranks(process)[good].min()),
                "parameters from the best found": int((codes[values <= optimum / bench.WITHIN] != codes[best])
                                                      .sum(axis=1).min())})
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    tasks = [(name, seed, args.budget) for name in SPACES for seed in range(args.seeds)]
    with ProcessPoolExecutor(args.jobs) as pool:
        runs = list(pool.map(model_view, tasks))
    rows = []
    for name in SPACES:
        short = [r for r in runs if r["space"] == name and "open" in r]
        rows.append({"space": name, "runs": args.seeds, "short of 5 %": len(short),
                     "open configurations": short[0]["open"] if short else None,
                     "best rank by mean (median)": float(np.median([r["rank by mean"] for r in short])) if short else None,
                     "by expected improvement (median)":
                         float(np.median([r["rank by expected improvement"] for r in short])) if short else None,
                     "in the top 10 by either": sum(min(r["rank by mean"], r["rank by expected improvement"]) <= 10
                                                    for r in short),
                     "Gaussian process: rank (median)":
                         float(np.median([r["Gaussian process: rank by mean"] for r in short])) if short else None,
                     "Gaussian process: in its top 10": sum(r["Gaussian process: rank by mean"] <= 10 for r in short),
                     "parameters from the best found (median)":
                         float(np.median([r["parameters from the best found"] for r in short])) if short else None})
    report("search_blind_spot", f"Runs short of 5 % at {args.budget} evaluations: the final model's rank of the "
           "nearest-ranked configuration within 5 % (1 = the model's first choice)", rows,
           extra={"seeds": args.seeds, "budget": args.budget, "runs": runs})


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
