"""What deciding costs: CPU time per evaluation of the search and of the other methods, side by side in one run.

    python benchmarks/search_cost.py [--space "gemm RTX 3090"] [--budgets 100,400,1000] [--seeds 2]

On a replayed space (default gemm on the RTX 3090: 17,956 configurations, so every proposal scores a large pool),
each method runs to each budget with the rules of ``benchmarks/search.py`` (failures charged, the same replayed
cache), and the CPU time of the whole run (``time.process_time``: deciding, plus the replay's bookkeeping, which is
well under 0.1 ms per evaluation) is divided by the evaluations it made. Methods:

- ``starchart``: :func:`starchart.search` as it is, refitting its models once the results told since the last fit
  reach 2 % of all (``SearchOptions.refit_share``);
- ``starchart-refit-each``: ``refit_share=0``, the search before that change;
- Kernel Tuner 1.5's ``genetic_algorithm``, ``pso``, ``random_sample`` and ``bayes_opt`` in simulation mode;
- Optuna's multivariate TPE, as ``benchmarks/search.py`` drives it.

The growth exponent is the slope of log(total CPU time) against log(evaluations) between the smallest and the
largest budget: 1 is linear. Run nothing else meanwhile: the figures are times. Prints a table and writes
``benchmarks/results/search_cost.json``.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import report
from search import SPACES, _space_data, kt_trajectory, optuna_trajectory, work_folder

METHODS = ["starchart", "starchart-refit-each", "genetic_algorithm", "pso", "random_sample", "bayes_opt",
           "optuna_tpe"]


def one_run(method: str, name: str, budget: int, seed: int, work: Path) -> tuple[float, int]:
    """CPU seconds of one run, and the evaluations it made."""
    from starchart import search
    from starchart.measure import ReplayEvaluator
    from starchart.strategies.engine import SearchOptions

    start = time.process_time()
    if method.startswith("starchart"):
        ds, space, metric, _ = _space_data(name)
        options = SearchOptions(refit_share=0.0) if method == "starchart-refit-each" else None
        made = len(search(ReplayEvaluator(ds, metrics=[metric]), space, budget, seed=seed, options=options).history)
    elif method == "optuna_tpe":
        made = len(optuna_trajectory(name, budget, seed))
    else:
        made = len(kt_trajectory(name, method, budget, seed, work))
    return time.process_time() - start, made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--space", default="gemm RTX 3090", choices=list(SPACES))
    parser.add_argument("--budgets", default="100,400,1000")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--methods", default=",".join(METHODS))
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    methods = [m for m in args.methods.split(",") if m]
    work = work_folder(None)
    _space_data(args.space)  # loaded once, before any clock starts
    one_run("starchart", args.space, budgets[0], 99, work)  # every compiled kernel loaded before any clock starts
    rows: list[dict[str, Any]] = []
    for method in methods:
        row: dict[str, Any] = {"method": method}
        totals = {}
        for budget in budgets:
            runs = [one_run(method, args.space, budget, seed, work) for seed in range(args.seeds)]
            seconds = float(np.median([s for s, _ in runs]))
            made = int(np.median([m for _, m in runs]))
            totals[budget] = (seconds, made)
            row[f"ms/eval at {budget}"] = 1000 * seconds / max(made, 1)
            row[f"evaluations at {budget}"] = made
            print(f"{method} {budget}: {1000 * seconds / max(made, 1):.2f} ms per evaluation ({made} made)", flush=True)
        (s0, m0), (s1, m1) = totals[budgets[0]], totals[budgets[-1]]
        row["growth exponent"] = math.log(s1 / s0) / math.log(m1 / m0) if m1 > m0 and s0 > 0 else float("nan")
        rows.append(row)
    report("search_cost", f"CPU time per evaluation on {args.space} (median of {args.seeds} seeds)", rows,
           extra={"space": args.space, "budgets": budgets, "seeds": args.seeds,
                  "command": "python benchmarks/search_cost.py"})


if __name__ == "__main__":
    main()
