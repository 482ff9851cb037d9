"""The Starchart paper's accuracy protocol (Fig. 4) on real measured spaces.

For each space and metric, 20 repeats: hold out 200 valid configurations drawn
uniformly as the validation set, draw training sets of 20, 50, 100, 200, 400 from the
remaining ones (nested, disjoint from validation), fit the tree (defaults: threshold 0,
min_samples_split 10), and take the median relative error |pred − true| / true over
the validation set.  The table shows the mean over repeats (± standard deviation).

kmeans holds 500 designs: 200 are held out, so its training sets stop at 300.

Run: python benchmarks/bench_accuracy.py [--repeats N]
"""

from __future__ import annotations

import argparse

import numpy as np
from common import dataset, report

import starchart

SIZES = (20, 50, 100, 200, 400)
CASES = [  # label, file, metric, load options
    ("convolution A100", "convolution/A100.json.gz", "time", {}),
    ("dedispersion A100", "dedispersion/A100.json.gz", "time", {}),
    ("gemm RTX 3090", "gemm/RTX_3090.json.gz", "time", {}),
    ("wmma AD4000 time", "energy/AD4000_wmma_complex_gemm_opt_16bit_1x4096x4096x4096.json.gz",
     "time", {}),
    ("wmma AD4000 power", "energy/AD4000_wmma_complex_gemm_opt_16bit_1x4096x4096x4096.json.gz",
     "ps_power", {}),
    ("kmeans HD7970 runtime", "starchart_kmeans/kmeans_hd7970.csv", "runtime",
     {"metrics": ["runtime", "wattage"]}),
    ("kmeans HD7970 wattage", "starchart_kmeans/kmeans_hd7970.csv", "wattage",
     {"metrics": ["runtime", "wattage"]}),
]
# What the exact algorithm reaches at 200 samples (core issue); the paper: ~8% perf, ~4% power.
EXPECTED_AT_200 = {"convolution A100": 0.129, "dedispersion A100": 0.021, "gemm RTX 3090": 0.23,
                   "kmeans HD7970 runtime": 0.023, "kmeans HD7970 wattage": 0.008}


def median_relative_errors(ds: "starchart.Dataset", metric: str, repeats: int, holdout: int,
                           seed: int) -> dict[int, list[float]]:
    """Median relative validation error per training size, one value per repeat."""
    ok = ds.ok()
    X, y = ok.X, ok.y(metric)
    rng = np.random.default_rng(seed)
    errors: dict[int, list[float]] = {n: [] for n in SIZES if n <= len(y) - holdout}
    for _ in range(repeats):
        order = rng.permutation(len(y))
        valid, pool = order[:holdout], order[holdout:]
        for n in errors:
            train = pool[:n]
            tree = starchart.StarchartTree().fit(X.iloc[train], y[train])
            predicted = tree.predict(X.iloc[valid])
            errors[n].append(float(np.median(np.abs(predicted - y[valid]) / np.abs(y[valid]))))
    return errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--holdout", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2013)
    args = parser.parse_args()
    rows = []
    for label, relative, metric, options in CASES:
        ds = starchart.load(dataset(relative), **options)
        errors = median_relative_errors(ds, metric, args.repeats, args.holdout, args.seed)
        row = {"space": label, "metric": metric, "valid configs": int(ds.valid.sum())}
        for n in SIZES:
            row[f"n={n}"] = (f"{100 * np.mean(errors[n]):.1f}% ±{100 * np.std(errors[n]):.1f}"
                             if n in errors else "")
        row["expected@200"] = (f"{100 * EXPECTED_AT_200[label]:.1f}%"
                               if label in EXPECTED_AT_200 else "")
        row["_raw"] = {n: e for n, e in errors.items()}
        rows.append(row)
    table = [{k: v for k, v in row.items() if k != "_raw"} for row in rows]
    report("accuracy", f"Median relative error vs training samples ({args.repeats} repeats, "
           f"{args.holdout} held out)", table,
           extra={"protocol": vars(args), "raw_median_errors": {r["space"]: r["_raw"] for r in rows}})


if __name__ == "__main__":
    main()
