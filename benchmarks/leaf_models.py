"""Linear leaves against mean leaves: accuracy and leaf count on the shared spaces and the H200 data.

    python benchmarks/leaf_models.py [--seeds 10] [--train 200]

For each space, ``--train`` designs drawn uniformly are fitted and the rest of the space is predicted (on the H200
spaces, 400 designs each, half of them). The same tree is grown either way (the paper's splits); what differs is
what a leaf predicts: its mean, or a least-squares line in the numeric parameters that vary in it
(``StarchartTree(leaf_model="linear")``). Depth limits 2, 4, 6 and none show the claim of the paper and slides that
linear leaves need fewer levels. The figure is the median relative error on the unseen designs, the median over
seeds; leaves are the median leaf count. Prints a table and writes ``benchmarks/results/leaf_models.json``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from common import DATASETS, dataset, report

import starchart
from starchart import StarchartTree

H200 = Path(__file__).resolve().parent.parent / "data" / "h200"
SPACES = {
    "kmeans HD7970 runtime": ("starchart_kmeans/kmeans_hd7970.csv", "runtime"),
    "kmeans HD7970 wattage": ("starchart_kmeans/kmeans_hd7970.csv", "wattage"),
    "convolution A100": ("convolution/A100.json.gz", "time"),
    "gemm RTX 3090": ("gemm/RTX_3090.json.gz", "time"),
    "pnpoly RTX 3090": ("pnpoly/RTX_3090.json.gz", "time"),
    "dedispersion A100": ("dedispersion/A100.json.gz", "time"),
    **{f"{k} H200": (H200 / f"{k}.csv", "time") for k in ("bfs", "hotspot", "kmeans", "matrix", "streamcluster")},
}
DEPTHS = [2, 4, 6, None]


def errors(path: Any, metric: str, train: int, seeds: int) -> list[dict[str, Any]]:
    ds = starchart.load(path if isinstance(path, Path) else dataset(path)).ok()
    y = ds.y(metric)
    keep = np.isfinite(y) & (y != 0)
    X, y = ds.X[keep].reset_index(drop=True), y[keep]
    n_train = min(train, len(y) // 2)
    rows = []
    for depth in DEPTHS:
        for leaf_model in ("mean", "linear"):
            err, leaves = [], []
            for seed in range(seeds):
                order = np.random.default_rng(seed).permutation(len(y))
                fit, test = order[:n_train], order[n_train:]
                tree = StarchartTree(max_depth=depth, leaf_model=leaf_model).fit(X.iloc[fit], y[fit])
                err.append(float(np.median(np.abs(tree.predict(X.iloc[test]) - y[test]) / np.abs(y[test]))))
                leaves.append(tree.n_leaves_)
            rows.append({"depth": "none" if depth is None else depth, "leaves": leaf_model,
                         "median relative error": float(np.median(err)), "leaf count": float(np.median(leaves)),
                         "trained on": n_train})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--train", type=int, default=200)
    args = parser.parse_args()
    table, per_space = [], {}
    for name, (path, metric) in SPACES.items():
        if not isinstance(path, Path) and not (DATASETS / path).exists():
            continue
        per_space[name] = errors(path, metric, args.train, args.seeds)
        by = {(r["depth"], r["leaves"]): r for r in per_space[name]}
        row: dict[str, Any] = {"space": name}
        for depth in ("2", "4", "6", "none"):
            d = depth if depth == "none" else int(depth)
            row[f"depth {depth}: mean"] = by[(d, "mean")]["median relative error"]
            row[f"depth {depth}: linear"] = by[(d, "linear")]["median relative error"]
        row["leaves (none)"] = by[("none", "mean")]["leaf count"]
        table.append(row)
        print(name, {k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}, flush=True)
    report("leaf_models", "Median relative error on unseen designs: mean leaves against linear leaves, by depth limit",
           table, extra={"seeds": args.seeds, "train": args.train, "per_space": per_space,
                         "command": "python benchmarks/leaf_models.py"})


if __name__ == "__main__":
    main()
