"""How hard is each replayed space to search? Near-optimal configurations, and what luck alone finds.

The search goals of issue 4 (median quality 0.90 at 20 evaluations, 85 % of runs within
5 % of the optimum at 100) are pooled over the runs of seven spaces. Whether they can
be met depends on how many configurations of each space are that good: this script
counts them, gives the chance that a uniform sample of 20 or 100 configurations (failed
ones charged) holds one, and sets beside it the share of ``starchart.search`` runs that
did, read from the benchmark of record (``benchmarks/results/search.json``; run
``python benchmarks/search.py --other-spaces`` first). It also says how many of the
pooled runs each goal needs and how many the search reached.

Run: ``python benchmarks/search_difficulty.py`` (seconds; writes
``benchmarks/results/search_difficulty.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from common import RESULTS, report

import search as bench

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


def space_row(name: str, recorded: dict) -> dict:
    """Counts of near-optimal configurations of one space, chances by luck, and the search's shares."""
    ds, _space, metric, optimum = bench._space_data(name)
    values = ds.frame[metric].to_numpy(dtype=float)
    quality = np.where(ds.valid.to_numpy(), optimum / values, 0.0)
    size = len(quality)
    row: dict = {"space": name, "configs": size, "failed": int((~ds.valid).sum())}
    for label, bound in CLOSE.items():
        row[f"configs {label}"] = int((quality >= bound).sum())
    good_09, good_5 = row["configs q>=0.90"], row["configs within 5%"]
    row["luck q>=0.90 @20"] = chance_of_hit(size, good_09, 20)
    row["luck within 5% @100"] = chance_of_hit(size, good_5, 100)
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
