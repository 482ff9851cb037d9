"""Tree fit time against scikit-learn, on real data resampled to 200 … 200,000 rows.

Rows are drawn from the convolution A100 cache (Kernel Tuner, benchmark_hub): a valid
configuration and one of its 32 measured repeats, so large sets repeat configurations
with real measurement noise, as a re-measured tuning space does.  A synthetic set of
200,000 nearly unique configurations shows the cost without repeated configurations.

Run: python benchmarks/bench_tree_fit.py [--quick]  (about 20 s; writes benchmarks/results/tree_fit.json,
or with --quick, sizes up to 20,000 rows only, a JSON file in the temporary folder)
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from common import best_time, dataset, quick_path, report
from sklearn.tree import DecisionTreeRegressor

import starchart

# The authors' R tool on this kind of machine (2 cores), as quoted in the core issue;
# R is not installed here, so these are references, not measurements of this run.
R_TOOL_SECONDS = {200: 1.08, 2000: 7.3}


def resampled_convolution(n: int, rng: np.random.Generator) -> tuple[pd.DataFrame, np.ndarray]:
    ds = starchart.load(dataset("convolution/A100.json.gz")).ok()
    pick = rng.integers(0, len(ds), n)
    repeats = ds.repeats["time"].to_numpy()
    y = np.array([repeats[i][rng.integers(0, len(repeats[i]))] for i in pick])
    return ds.X.iloc[pick].reset_index(drop=True), y


def synthetic_unique(n: int, rng: np.random.Generator) -> tuple[pd.DataFrame, np.ndarray]:
    X = pd.DataFrame({f"p{j}": rng.integers(0, 16, n) for j in range(6)})
    y = 1.0 + X["p0"] * (X["p1"] > 7) + np.log1p(X["p2"] * X["p3"]) + rng.normal(0, 0.1, n)
    return X, y.to_numpy()


def main(quick: bool = False) -> None:
    rng = np.random.default_rng(2013)
    sizes = [200, 2000, 20000] if quick else [200, 2000, 20000, 200000]
    StarchartTree = starchart.StarchartTree
    StarchartTree().fit(*resampled_convolution(50, rng))  # compile the kernel once (cached on disk)
    cases = [(f"convolution A100 ×{n}", n, resampled_convolution) for n in sizes]
    if not quick:
        cases.append(("synthetic unique ×200000", 200000, synthetic_unique))
    rows = []
    for label, n, make in cases:
        X, y = make(n, rng)
        repeats = 3 if n >= 100000 else 10
        ours = best_time(lambda: StarchartTree().fit(X, y), repeats)
        sk = best_time(lambda: DecisionTreeRegressor(min_samples_split=10).fit(X, y), repeats)
        tree = StarchartTree().fit(X, y)
        rows.append({"data": label, "rows": n, "starchart_s": ours, "sklearn_s": sk,
                     "sklearn/starchart": sk / ours, "leaves": tree.n_leaves_, "depth": tree.depth_,
                     "R_tool_s (quoted)": R_TOOL_SECONDS.get(n, "")})
    report("tree_fit", "StarchartTree.fit vs sklearn DecisionTreeRegressor(min_samples_split=10), "
           "best of repeats", rows, path=quick_path("tree_fit") if quick else None)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: sizes up to 20,000 rows, no 200,000-row cases; the JSON goes to the "
                             "temporary folder, not benchmarks/results/")
    main(quick=parser.parse_args().quick)
