"""Prediction time against scikit-learn, side by side in one run, on 2,000 … 200,000 rows.

    python benchmarks/bench_predict.py [--repeats 7]

A tree and a forest are fitted once on 2,000 rows of the bundled convolution A100 measurements (4,362
configurations; rows drawn with their measured repeats, so that the trees are as deep as a re-measured space
makes them), then predict rows drawn from the same space:

- ``StarchartTree.predict`` against ``DecisionTreeRegressor(min_samples_split=10).predict``;
- ``StarchartForest(100, target="log").predict`` against ``RandomForestRegressor(100).predict``.

scikit-learn gets the parameter columns as they are (numbers), starchart the same frame. Each cell is the best
of ``--repeats`` calls, after one untimed call (it loads the compiled walk). The table gives each row's ratio
starchart / sklearn; the JSON goes to ``benchmarks/results/predict.json``.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from common import best_time, report
from sklearn.ensemble import RandomForestRegressor
from sklearn.tree import DecisionTreeRegressor

from starchart import StarchartForest, StarchartTree, datasets


def resampled(n: int, rng: np.random.Generator) -> tuple[pd.DataFrame, np.ndarray]:
    ds = datasets.load_convolution("A100").ok()
    pick = rng.integers(0, len(ds), n)
    repeats = ds.repeats["time"].to_numpy()
    y = np.array([repeats[i][rng.integers(0, len(repeats[i]))] for i in pick])
    return ds.X.iloc[pick].reset_index(drop=True), y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed calls per cell (default 7)")
    args = parser.parse_args()
    rng = np.random.default_rng(2013)
    X, y = resampled(2000, rng)
    models = {
        "tree": (StarchartTree(min_samples_split=10).fit(X, y), DecisionTreeRegressor(min_samples_split=10).fit(X, y)),
        "forest (100 trees)": (StarchartForest(100, target="log", random_state=0).fit(X, y),
                               RandomForestRegressor(100, random_state=0).fit(X, np.log(y))),
    }
    rows = []
    for model, (ours, theirs) in models.items():
        for n in (2_000, 20_000, 200_000):
            if model.startswith("forest") and n > 20_000:
                continue  # 20 million tree walks: minutes for both, nothing more to learn
            query = X.iloc[rng.integers(0, len(X), n)].reset_index(drop=True)
            starchart_s = best_time(lambda: ours.predict(query), args.repeats, warm=True)
            sklearn_s = best_time(lambda: theirs.predict(query), args.repeats, warm=True)
            rows.append({"model": model, "rows": n, "starchart_s": starchart_s, "sklearn_s": sklearn_s,
                         "starchart/sklearn": starchart_s / sklearn_s})
    report("predict", "predict(): starchart against scikit-learn, best of repeats", rows,
           extra={"repeats": args.repeats, "command": f"python benchmarks/bench_predict.py --repeats {args.repeats}"})


if __name__ == "__main__":
    main()
