"""A newcomer's first tree, against scikit-learn's, side by side in one run.

    python benchmarks/first_use.py [--runs 5]

Each row is a fresh Python process, so imports count, as they do for a person's first command:

- ``starchart first fit, cold cache``: import starchart, load 200 rows of the bundled convolution A100
  measurements, fit a tree, with numba's cache folder empty (a fresh install, or a cache it cannot write);
- ``starchart first fit, warm cache``: the same with the cache filled;
- ``sklearn import + first fit``: scikit-learn's ``DecisionTreeRegressor(min_samples_split=10)`` on the same
  200 rows (the data loaded the same way);
- ``starchart tree`` on the whole convolution A100 file (4,362 rows, with its 5-fold cross-validated error)
  and ``plain script``: json + pandas + scikit-learn reading the same file and fitting one tree;
- ``starchart report`` on CLBlast's gemm cache (RTX 3090, 17,956 rows, from ``../shared``; left out when it
  is absent): the tree, its cross-validated error, the accuracy-against-samples replay and five figures.

The commands take turns, so a drift in the machine's speed touches all alike. The table gives medians and
each row's ratio to scikit-learn's first fit; the JSON goes to ``benchmarks/results/first_use.json``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from common import DATASETS, report

from starchart import datasets

DATA = str(datasets.data_path("convolution_A100"))
GEMM = DATASETS / "gemm" / "RTX_3090.json.gz"
LOAD = ("from starchart import datasets\n"
        "ds = datasets.load_convolution('A100').ok().sample(200, seed=1)\n")
STARCHART = "from starchart import StarchartTree\n" + LOAD + "StarchartTree().fit(ds.X, ds.y('time'))\n"
SKLEARN = ("from sklearn.tree import DecisionTreeRegressor\n" + LOAD
           + "DecisionTreeRegressor(min_samples_split=10).fit(ds.X, ds.y('time'))\n")
PLAIN_SCRIPT = f"""
import gzip, json
import pandas as pd
from sklearn.tree import DecisionTreeRegressor
cache = json.load(gzip.open({DATA!r}))
rows = [dict(entry) for entry in cache["cache"].values() if isinstance(entry.get("time"), (int, float))]
frame = pd.DataFrame(rows)
params = cache["tune_params_keys"]
tree = DecisionTreeRegressor(min_samples_split=10).fit(frame[params], frame["time"])
print(tree.get_n_leaves())
"""


def commands(cold_cache: str, warm_cache: str, out: str) -> dict[str, tuple[list[str], dict[str, str]]]:
    python = sys.executable
    report_row = {"starchart report, 17,956 rows (gemm)": (
        [python, "-m", "starchart", "report", str(GEMM), "-o", os.path.join(out, "report.html")],
        {"NUMBA_CACHE_DIR": warm_cache})} if GEMM.exists() else {}
    return {
        "sklearn import + first fit": ([python, "-c", SKLEARN], {}),
        "starchart first fit, cold cache": ([python, "-c", STARCHART], {"NUMBA_CACHE_DIR": cold_cache}),
        "starchart first fit, warm cache": ([python, "-c", STARCHART], {"NUMBA_CACHE_DIR": warm_cache}),
        "plain script (json + pandas + sklearn), 4,362 rows": ([python, "-c", PLAIN_SCRIPT], {}),
        "starchart tree, 4,362 rows": ([python, "-m", "starchart", "tree", DATA], {"NUMBA_CACHE_DIR": warm_cache}),
        **report_row,
    }


def wall_seconds(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True, env={**os.environ, **env})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (default 5)")
    args = parser.parse_args()
    warm = tempfile.mkdtemp(prefix="numba-warm-")
    out = tempfile.mkdtemp(prefix="report-")
    if not GEMM.exists():
        print(f"{GEMM} not found: the starchart report row is left out", file=sys.stderr)
    times: dict[str, list[float]] = {}
    for run in range(args.runs + 1):  # run 0 fills the warm cache and the file caches; it is not counted
        cold = tempfile.mkdtemp(prefix="numba-cold-")  # empty for every run
        for name, (argv, env) in commands(cold, warm, out).items():
            seconds = wall_seconds(argv, env)
            if run:
                times.setdefault(name, []).append(seconds)
    base = statistics.median(times["sklearn import + first fit"])
    rows = [{"command": name, "median_s": statistics.median(runs), "min_s": min(runs), "max_s": max(runs),
             "ratio_to_sklearn_first_fit": statistics.median(runs) / base} for name, runs in times.items()]
    report("first_use", f"A first tree in a fresh process, median of {args.runs} runs", rows,
           extra={"runs": args.runs, "command": f"python benchmarks/first_use.py --runs {args.runs}"})


if __name__ == "__main__":
    main()
