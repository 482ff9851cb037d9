"""How hard is each replayed space to search? Near-optimal configurations, and what luck alone finds.

The search goals of issue 4 (median quality 0.90 at 20 evaluations, 85 % of runs within
5 % of the optimum at 100) are pooled over the runs of seven spaces. Whether they can
be met depends on how many configurations of each space are that good: this script
counts them, gives the chance that a uniform sample of 20 or 100 configurations (failed
ones charged) holds one, and sets beside it the share of ``starchart.search`` runs that
did, read from the benchmark of record (``benchmarks/results/search.json``; run
``python benchmarks/search.py --other-spaces`` first). It also says how many of the
pooled runs each goal needs and how many the search reached.

The landscape columns say why some runs stay short: a greedy climb that always moves to
the best configuration differing in one parameter ends in one of few local optima; the
share of valid starting points whose climb ends within 5 % of the optimum is how often
plain refinement from a random start would get there, and the largest basin that ends
short of it is the trap most runs meet, with how many parameters must change at once to
leave it for anything better (a local search of that radius is the least that escapes).

Run: ``python benchmarks/search_difficulty.py`` (seconds; writes
``benchmarks/results/search_difficulty.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import search as bench
from common import RESULTS, report

CLOSE = {"q>=0.90": 0.90, "within 5%": bench.WITHIN}


def chance_of_hit(size: int, good: int, draws: int) -> float:
    """Probability that ``draws`` distinct uniform picks from ``size`` items include one of ``good``.

    >>> round(chance_of_hit(100, 1, 10), 3)
    0.1
    >>> chance_of_hit(10, 0, 5)
    0.0
    """
    draws = min(draws, size)
    miss = np.prod([(size - good - i) / (size - i) for i in range(draws)]) if size - good >= draws else 0.0
    return float(1.0 - miss)


def greedy_climbs(frame: pd.DataFrame, names: list[str], values: np.ndarray) -> np.ndarray:
    """Row index where a best-improvement climb by one-parameter moves ends, from every row.

    ``values`` are minimised, ``inf`` for a failure (never moved to); neighbours are the rows
    of ``frame`` that differ from a row in exactly one of ``names``.

    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1]})
    >>> greedy_climbs(frame, ["a", "b"], np.array([4.0, 3.0, 2.0, 5.0])).tolist()  # row 1: its neighbours are slower
    [2, 1, 2, 2]
    """
    n = len(frame)
    target, best = np.arange(n), values.copy()
    work = frame[names].reset_index(drop=True).assign(_value=values, _row=np.arange(n))
    for name in names:
        others = [other for other in names if other != name]
        ordered = work.sort_values("_value", kind="stable")
        line_best = ordered.groupby(others, sort=False, dropna=False)["_row"].transform("first") if others \
            else pd.Series(ordered["_row"].iloc[0], index=ordered.index)
        line_best = line_best.sort_index().to_numpy()
        better = values[line_best] < best
        target[better], best[better] = line_best[better], values[line_best][better]
    end = np.arange(n)
    for _ in range(n):  # each step strictly improves, so the walk ends
        moved = target[end]
        if np.array_equal(moved, end):
            break
        end = moved
    return end


def escape_radius(codes: np.ndarray, values: np.ndarray, row: int) -> int:
    """The fewest parameters that must change at once from ``row`` to reach a better configuration."""
    better = values < values[row]
    if not better.any():
        return 0
    return int((codes[better] != codes[row]).sum(axis=1).min())


def landscape(ds, names: list[str], quality: np.ndarray) -> dict:
    """Local optima of one-parameter moves, the share of climbs that end within 5 %, and the largest trap."""
    frame = ds.frame[names].reset_index(drop=True)
    values = np.where(quality > 0, 1.0 / np.where(quality > 0, quality, 1.0), np.inf)
    ends = greedy_climbs(frame, names, values)
    valid = np.isfinite(values)
    optima, basin = np.unique(ends[valid], return_counts=True)
    close = quality[optima] >= bench.WITHIN
    out = {"local optima (1-param moves)": len(optima),
           "climbs ending within 5%": float(basin[close].sum() / valid.sum())}
    if (~close).any():
        trap = optima[~close][int(np.argmax(basin[~close]))]
        codes = np.column_stack([pd.factorize(frame[n])[0] for n in names])
        out.update({"largest trap: quality": float(quality[trap]),
                    "largest trap: basin": float(basin[~close].max() / valid.sum()),
                    "largest trap: params to change": escape_radius(codes, values, trap)})
    return out


def space_row(name: str, recorded: dict) -> dict:
    """Counts of near-optimal configurations of one space, chances by luck, and the search's shares."""
    ds, space, metric, optimum = bench._space_data(name)
    values = ds.frame[metric].to_numpy(dtype=float)
    quality = np.where(ds.valid.to_numpy(), optimum / values, 0.0)
    size = len(quality)
    row: dict = {"space": name, "configs": size, "failed": int((~ds.valid).sum())}
    for label, bound in CLOSE.items():
        row[f"configs {label}"] = int((quality >= bound).sum())
    good_09, good_5 = row["configs q>=0.90"], row["configs within 5%"]
    row["luck q>=0.90 @20"] = chance_of_hit(size, good_09, 20)
    row["luck within 5% @100"] = chance_of_hit(size, good_5, 100)
    row.update(landscape(ds, list(space.names), quality))
    runs = recorded.get(name)
    if runs:
        at20 = np.array([r["20"] for r in runs.values()])
        at100 = np.array([r["100"] for r in runs.values()])
        row["search q>=0.90 @20"] = float(np.mean(at20 >= 0.90))
        row["search within 5% @100"] = float(np.mean(at100 >= bench.WITHIN))
    return row


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    path = RESULTS / "search.json"
    recorded = json.loads(path.read_text())["runs"]["starchart"] if path.exists() else {}
    rows = [space_row(name, recorded) for name in [*bench.SPACES, *bench.OTHER_SPACES]]
    seven = [recorded[s] for s in bench.SPACES if s in recorded]
    goals = {}
    if seven:
        at20 = np.array([r["20"] for runs in seven for r in runs.values()])
        at100 = np.array([r["100"] for runs in seven for r in runs.values()])
        goals = {"runs pooled": len(at20),
                 "median 0.90 @20: runs needed": int(np.ceil(len(at20) / 2)),
                 "median 0.90 @20: runs reached": int((at20 >= 0.90).sum()),
                 "85% within 5% @100: runs needed": int(np.ceil(0.85 * len(at100))),
                 "85% within 5% @100: runs reached": int((at100 >= bench.WITHIN).sum())}
        print(", ".join(f"{k}: {v}" for k, v in goals.items()))
    report("search_difficulty", "Near-optimal configurations per space; chance a uniform sample holds one",
           rows, extra={"goals": goals, "source of search runs": str(path.relative_to(RESULTS.parent.parent))})


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
