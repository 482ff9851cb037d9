"""Would another surrogate model find better configurations from a few measurements?

The tree-guided search misses its goal at 20 evaluations (median quality 0.90): after
9 uniform draws its model picks the other 11. This benchmark asks the question one
step at a time and without the search around it: given ``n`` uniformly drawn valid
configurations of a replayed space, each model (fitted to log time) picks the 5
unmeasured configurations it predicts fastest; the score is the quality (optimum ÷
best) of the best of those ``n + 5`` measurements. Models:

- ``trees``: the search's own ensemble (16 bagged Starchart trees on value codes and
  pair products: :class:`~starchart.strategies.model.TreeEnsemble`);
- ``additive``: ridge regression on one-hot codes (every parameter value its own
  effect, no interactions; α by leave-one-out);
- ``gp``: a Gaussian process (Matérn 5/2 with a length scale per parameter on codes
  scaled to 0…1, plus noise; scikit-learn, hyper-parameters by marginal likelihood);
- ``uniform``: 5 more uniform draws instead (the floor any model must beat).

Run: ``python benchmarks/search_surrogates.py --seeds 30`` (about 10 minutes on 2
cores; writes ``benchmarks/results/search_surrogates.json``); ``--quick`` for a smoke
run on two spaces.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import search as bench
import search_options
from common import quick_path, report

PICKS = 5  # configurations each model adds to the n measured
MODELS = ("trees", "additive", "gp", "uniform")


def one_hot(codes: np.ndarray, n_levels: np.ndarray) -> np.ndarray:
    """One column per value of every parameter (the additive model's design matrix)."""
    return np.hstack([np.eye(int(levels))[codes[:, j]] for j, levels in enumerate(n_levels)])


def predictions(model: str, codes: np.ndarray, n_levels: np.ndarray, features: tuple,
                train: np.ndarray, y: np.ndarray, rest: np.ndarray,
                rng: np.random.Generator) -> np.ndarray:
    """Predicted log time of every ``rest`` row by ``model`` fitted to rows ``train``."""
    if model == "trees":
        from starchart.strategies.model import TreeEnsemble

        rows, levels, categorical = features
        ensemble = TreeEnsemble(16, 0.8, 2)
        ensemble.fit(rows[train], y, levels, categorical, rng)
        return ensemble.predict_all(rows[rest]).mean(axis=0)
    if model == "additive":
        from sklearn.linear_model import RidgeCV

        design = one_hot(codes, n_levels)
        return RidgeCV(alphas=np.logspace(-2, 2, 9)).fit(design[train], y).predict(design[rest])
    if model == "gp":
        from sklearn.gaussian_process import GaussianProcessRegressor
        from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

        scaled = codes / np.maximum(n_levels - 1, 1)
        kernel = ConstantKernel() * Matern(length_scale=np.ones(codes.shape[1]), nu=2.5) + WhiteKernel(1e-2)
        with warnings.catch_warnings():  # length scales at their bounds: expected with so few points
            warnings.simplefilter("ignore")
            gp = GaussianProcessRegressor(kernel, normalize_y=True, random_state=0).fit(scaled[train], y)
        return gp.predict(scaled[rest])
    raise ValueError(model)


def run_one(task: tuple[str, int, int]) -> tuple[str, int, int, dict[str, float]]:
    """Qualities of every model's n + 5 measurements for one space, sample size and seed."""
    from starchart.strategies.features import ProductFeatures

    name, n, seed = task
    enc, codes, values, optimum = search_options._space(name)
    products = ProductFeatures.from_encoding(enc)
    features = (products.features(codes), products.n_levels(enc.n_levels), products.categorical(enc.categorical))
    rng = np.random.default_rng(seed)
    train = rng.choice(np.flatnonzero(np.isfinite(values)), n, replace=False)
    rest = np.setdiff1d(np.arange(len(codes)), train)
    y = np.log(values[train])
    out = {}
    for model in MODELS:
        if model == "uniform":
            picked = rng.choice(rest, PICKS, replace=False)
        else:
            predicted = predictions(model, codes, enc.n_levels, features, train, y, rest, rng)
            picked = rest[np.argsort(predicted, kind="stable")[:PICKS]]
        found = np.concatenate([values[train], values[picked]])  # a failed pick is NaN: it finds nothing
        out[model] = optimum / float(np.nanmin(found))
    return name, n, seed, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--sizes", default="9,15,40", help="measured configurations before the models pick")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="two spaces, 3 seeds; writes to the temporary folder")
    args = parser.parse_args()
    spaces = list(bench.SPACES) + list(bench.OTHER_SPACES)
    seeds = args.seeds
    if args.quick:
        spaces, seeds = spaces[3:5], 3
    sizes = [int(s) for s in args.sizes.split(",")]
    tasks = [(s, n, k) for s in spaces for n in sizes for k in range(seeds)]
    started = time.perf_counter()
    found: dict[tuple[str, int], dict[str, list[float]]] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, n, _seed, qualities in pool.map(run_one, tasks, chunksize=2):
            for model, quality in qualities.items():
                found.setdefault((name, n), {}).setdefault(model, []).append(quality)
    rows = []
    for group, names in (("seven", [s for s in spaces if s in bench.SPACES]),
                         ("other four", [s for s in spaces if s in bench.OTHER_SPACES])):
        for n in sizes:
            if names:
                rows.append({"spaces": group, "n": n, **{
                    m: float(np.median([q for s in names for q in found[s, n][m]])) for m in MODELS}})
    for name in spaces:
        for n in sizes:
            rows.append({"spaces": name, "n": n, **{m: float(np.median(found[name, n][m])) for m in MODELS}})
    report("search_surrogates", f"median quality of n measured + {PICKS} picked by each model ({seeds} seeds)",
           rows, extra={"seeds": seeds, "picks": PICKS, "seconds": time.perf_counter() - started},
           path=quick_path("search_surrogates") if args.quick else None)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
