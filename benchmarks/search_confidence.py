"""How sure are the search benchmark's figures? Bootstrap intervals from its recorded runs (seconds).

``benchmarks/search.py`` reports, per method and budget, the median quality of 210 runs
(7 replayed spaces × 30 seeds) and the share within 5 % of the optimum. With 30 seeds per
space those figures carry sampling noise, and a reader comparing 0.839 with 0.805, or with
a goal of 0.90, needs to know how much. This script re-runs nothing: it reads the per-run
qualities that ``search.py`` recorded (``runs`` in ``benchmarks/results/search.json``) and,
for every method and budget, prints

- the pooled median and the share within 5 %, each with a 95 % percentile-bootstrap interval
  (seeds resampled within each space, so every resample keeps seven spaces × 30 runs);
- the difference from ``starchart.search`` with its 95 % interval (the methods' runs are
  independent draws, so each is resampled on its own), and whether it excludes zero.

It writes ``benchmarks/results/search_confidence.json`` with the source file's date.

Run: ``python benchmarks/search_confidence.py [--results benchmarks/results/search.json] [--resamples 10000]``
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from common import RESULTS, report

#: a run counts as "within 5 %" when optimum ÷ best found ≥ 1 / 1.05, as in search.py
WITHIN = 1 / 1.05
OURS = "starchart"


def run_qualities(results: dict[str, Any], spaces: list[str]) -> dict[str, dict[int, np.ndarray]]:
    """``{method: {budget: (spaces, seeds) array of qualities}}`` from search.py's ``runs`` record,
    for the methods that ran on every one of ``spaces``.

    >>> runs = {"m": {"a": {"0": {"20": 0.5}, "1": {"20": 1.0}}, "b": {"0": {"20": 0.8}, "1": {"20": 0.9}}}}
    >>> run_qualities({"runs": runs, "budgets": [20]}, ["a", "b"])["m"][20].tolist()
    [[0.5, 1.0], [0.8, 0.9]]
    """
    if "runs" not in results:
        raise SystemExit("the results file has no per-run record ('runs'): run benchmarks/search.py first")
    table: dict[str, dict[int, np.ndarray]] = {}
    for method, ran in results["runs"].items():
        if not set(spaces) <= set(ran):  # Kernel Tuner and Optuna ran on the seven only
            continue
        table[method] = {}
        for budget in results["budgets"]:
            rows = [[float(ran[space][seed][str(budget)]) for seed in sorted(ran[space], key=int)]
                    for space in spaces]
            if len({len(row) for row in rows}) != 1:
                raise SystemExit(f"{method}: the spaces hold different numbers of seeds; the bootstrap needs equal ones")
            table[method][int(budget)] = np.array(rows)
    return table


def bootstrap(qualities: np.ndarray, rng: np.random.Generator, resamples: int) -> tuple[np.ndarray, np.ndarray]:
    """Pooled medians and shares within 5 % of ``resamples`` stratified resamples of a (spaces, seeds) array.

    Each resample draws, within every space, as many seeds as it has, with replacement.

    >>> q = np.array([[1.0, 1.0, 1.0], [0.5, 0.5, 0.5]])
    >>> medians, shares = bootstrap(q, np.random.default_rng(0), 4)
    >>> medians.tolist(), shares.tolist()
    ([0.75, 0.75, 0.75, 0.75], [0.5, 0.5, 0.5, 0.5])
    """
    spaces, seeds = qualities.shape
    picks = rng.integers(0, seeds, size=(resamples, spaces, seeds))
    drawn = np.take_along_axis(np.broadcast_to(qualities, (resamples, spaces, seeds)), picks, axis=2)
    pooled = drawn.reshape(resamples, spaces * seeds)
    return np.median(pooled, axis=1), (pooled >= WITHIN).mean(axis=1)


def interval(values: np.ndarray) -> tuple[float, float]:
    """The central 95 % of ``values`` (a percentile-bootstrap interval)."""
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _difference(differences: np.ndarray, digits: int) -> str:
    """A difference's 95 % interval, ``+0.006…+0.088``, starred when it excludes 0 (a lead that is real).

    >>> _difference(np.linspace(0.01, 0.05, 101), 2), _difference(np.linspace(-0.01, 0.05, 101), 2)
    ('+0.01…+0.05 *', '-0.01…+0.05')
    """
    low, high = interval(differences)
    return f"{low:+.{digits}f}…{high:+.{digits}f}" + (" *" if low > 0 or high < 0 else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS / "search.json", help="search.py's results file")
    parser.add_argument("--resamples", type=int, default=10000, help="bootstrap resamples (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling")
    args = parser.parse_args()
    results = json.loads(args.results.read_text(encoding="utf-8"))
    rng = np.random.default_rng(args.seed)
    rows = _rows(run_qualities(results, results["spaces"]), "seven", rng, args.resamples)
    if results.get("other_spaces"):  # the four the settings were not chosen on: the search and uniform only
        rows += _rows(run_qualities(results, results["other_spaces"]), "other four", rng, args.resamples)
    report("search_confidence",
           f"95 % bootstrap intervals of {args.results.name} ({results['seeds']} seeds per space, "
           f"{args.resamples} resamples; * excludes 0)", rows,
           extra={"source": str(args.results.name), "source_date": results.get("environment", {}).get("date"),
                  "resamples": args.resamples, "seed": args.seed})


def _rows(table: dict[str, dict[int, np.ndarray]], spaces: str, rng: np.random.Generator,
          resamples: int) -> list[dict[str, Any]]:
    """One row per budget and method: medians, shares within 5 %, their intervals and the differences."""
    if OURS not in table:
        raise SystemExit(f"no {OURS!r} runs on the {spaces} spaces")
    # one bootstrap per method and budget, drawn in a fixed order: the intervals repeat for a seed
    draws = {(m, b): bootstrap(q, rng, resamples) for m in table for b, q in table[m].items()}
    rows = []
    for budget in sorted(table[OURS]):
        for method in table:
            q = table[method][budget]
            medians, shares = draws[method, budget]
            ours_medians, ours_shares = draws[OURS, budget]
            row: dict[str, Any] = {
                "spaces": spaces, "budget": budget, "method": method,
                "median": round(float(np.median(q)), 3),
                "median 95% CI": "{:.3f}–{:.3f}".format(*interval(medians)),
                "within 5%": round(float((q >= WITHIN).mean()), 3),
                "within 5% CI": "{:.2f}–{:.2f}".format(*interval(shares)),
            }
            ours = method == OURS
            row["ours − it (median) CI"] = "" if ours else _difference(ours_medians - medians, 3)
            row["ours − it (within 5%) CI"] = "" if ours else _difference(ours_shares - shares, 2)
            rows.append(row)
    return rows


if __name__ == "__main__":
    main()
