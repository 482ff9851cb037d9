"""Tree-guided search against every other method on spaces held out from its design.

``benchmarks/search.py`` compares the methods on the issue's seven spaces, on which
the search's settings were chosen. This script runs the same methods, with the same
rules (failures charged, one budget's run per seed, quality = optimum ÷ best found),
on the five spaces of ``search.HELD_OUT_SPACES`` that no setting was chosen on:

- KTT convolution on an RTX 2080 Ti (time) — another tuner's file and kernel;
- the AD4000 wmma kernel's energy (``ps_energy``) — another objective;
- kmeans on an AMD HD 7970 (runtime, and wattage) — another vendor's GPU;
- the demo's tiled matrix multiply measured exhaustively on this machine's CPU
  (``benchmarks/data``) — another kind of processor, measured after the search's
  settings were frozen.

With ``--set h200`` it runs them on five of the paper's kernels measured on an NVIDIA H200
after the search's proposals last changed (``search.H200_SPACES``: bfs, hotspot, kmeans, matrix and
streamcluster, time; ``data/h200``): another GPU generation and other kernels. Each of
those spaces is the 400 configurations sampled uniformly and measured, so the budgets
stop at 100 (a quarter of the space) and the optimum is the best of the 400.

Kernel Tuner's strategies run in simulation mode on a cache written from each dataset
(:meth:`~starchart.Dataset.to_kernel_tuner`, the space's metric as the objective,
failed configurations carrying Kernel Tuner's error strings), with the restriction
"the configuration is in the cache" as in ``search.py``.

Run: ``python benchmarks/search_held_out.py [--set h200] [--seeds N] [--jobs N]`` (results:
``results/search_held_out.json``, ``results/search_held_out_h200.json``; per-run results are shared with ``search.py``'s
``--work`` folder, so an interrupted run resumes).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from common import report
from search import (
    BUDGETS,
    H200_BUDGETS,
    H200_SPACES,
    HELD_OUT_SPACES,
    KT_PER_BUDGET,
    KT_STRATEGIES,
    METHODS,
    OPTUNA_METHODS,
    WITHIN,
    check_prefix,
    load_runs,
    measure_runs,
    parse_methods,
    reuse_record,
    summarise,
    work_folder,
)

# Runs not made, and why: at 400 evaluations of kmeans' 500 configurations Optuna's sampler mostly re-proposes
# measured ones (free, but each proposal costs a multivariate TPE step): 2 workers had not finished its 60 runs
# after 45 minutes, when every other method had finished every space.
_OPTUNA_KMEANS = "Optuna TPE at 400 of 500 configurations: over 45 minutes for 60 runs, not finished"
LEFT_OUT = {("optuna_tpe", "kmeans HD7970 (runtime)"): _OPTUNA_KMEANS,
            ("optuna_tpe", "kmeans HD7970 (wattage)"): _OPTUNA_KMEANS}

# The H200 spaces are 400 configurations sampled from 16,384 (bfs) and 24,200 (matrix) parameter combinations:
# nearly all of Optuna's proposals fall outside them (free, but each a TPE step), so a run took 90-110 s and
# ended at the 50-proposals-per-evaluation cap with 73-100 distinct evaluations (2 seeds tried).
_OPTUNA_SPARSE = ("Optuna TPE on 400 configurations sampled from over 16,000 combinations: ~100 s per run, most "
                  "proposals outside the sample, and 73-100 distinct evaluations before its proposal cap")
H200_LEFT_OUT = {("optuna_tpe", "bfs H200 (time)"): _OPTUNA_SPARSE,
                 ("optuna_tpe", "matrix H200 (time)"): _OPTUNA_SPARSE}
H200_NOTES = ("None of these spaces was used to choose the search's settings, nor watched while they were "
              "chosen: they were measured (2026-11-23, 06:17-06:48 UTC) after the last change to how the search "
              "proposes (03:47 UTC that day). Each space is the 400 "
              "configurations of the kernel's space drawn uniformly and measured on the H200 (data/h200); the "
              "optimum is the best of them.")
NOTES = ("None of these spaces was used to choose the search's settings. The four GPU spaces were watched "
         "(starchart and uniform only) while the settings were chosen on the seven of search.py; the CPU space "
         "was measured after the last change to the search.")


@dataclass(frozen=True)
class SpaceSet:
    """One ``--set``: its spaces (name: (file, metric)), budgets, runs not made and why, notes, results name."""

    files: dict
    budgets: list[int]
    left_out: dict
    notes: str
    result: str
    title: str


SETS = {"held-out": SpaceSet(HELD_OUT_SPACES, BUDGETS, LEFT_OUT, NOTES, "search_held_out", "held-out spaces"),
        "h200": SpaceSet(H200_SPACES, H200_BUDGETS, H200_LEFT_OUT, H200_NOTES, "search_held_out_h200",
                         "five kernels on an H200")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=list(SETS), default="held-out",
                        help="the five held-out spaces (default) or five kernels measured on an H200")
    parser.add_argument("--seeds", type=int, default=30, help="runs per method, space and budget (default 30)")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--work", default=None, help="folder for Kernel Tuner caches and per-run results")
    parser.add_argument("--reuse-record", action="store_true",
                        help="take every method not in --methods from the runs of record (results/*.json)")
    args = parser.parse_args()
    methods = parse_methods(args.methods)
    chosen = SETS[args.set]
    left_out = chosen.left_out
    spaces, budgets, seeds = list(chosen.files), chosen.budgets, args.seeds
    work = work_folder(args.work)
    runs = load_runs(work, False, methods)
    pairs = [(m, s) for m in methods for s in spaces if (m, s) not in left_out]
    measure_runs(runs, pairs, budgets, seeds, work, False, args.jobs)
    reused: list[str] = []
    if args.reuse_record:  # the other methods as recorded, with their checks
        record, methods = reuse_record(runs, chosen.result, methods)
        reused = record["reused"]

    # A strategy run once at the largest budget stands for every smaller one: check that on one space here too.
    prefix_checks = [{"strategy": m, "space": spaces[-1], "budget": budgets[0], "prefix_of": budgets[-1],
                      "identical": check_prefix(spaces[-1], m, budgets[0], budgets[-1], 0, work)}
                     for m in methods if ((m in KT_STRATEGIES and m not in KT_PER_BUDGET) or m in OPTUNA_METHODS)
                     and m not in reused]
    if reused:
        prefix_checks += [c for c in record.get("prefix_checks", []) if c["strategy"] in reused]
    # Pooled figures over each method's own spaces, and over the spaces every method ran (comparable).
    common = [s for s in spaces if all((m, s) not in left_out for m in methods)]
    summary, per_space, table = [], [], []
    for method in methods:
        own = [s for s in spaces if (method, s) not in left_out]
        rows, space_rows = summarise(runs, [method], own, budgets, seeds)
        same = summarise(runs, [method], common, budgets, seeds)[0]
        summary += rows
        per_space += space_rows
        table += [{"method": method, "budget": r["budget"], **{s: r.get(s, "—") for s in spaces},
                   "median all": r["median (all runs)"], "within 5%": r["within 5% (all runs)"],
                   f"median ({len(common)} all ran)": c["median (all runs)"],
                   f"within 5% ({len(common)} all ran)": c["within 5% (all runs)"]}
                  for r, c in zip(rows, same)]
    root = Path(__file__).resolve().parent.parent
    # A file of this repository by its path from the root, one of ../shared/datasets by its path there.
    named = {s: [str(path.relative_to(root)) if isinstance(path, Path) else path, metric]
             for s, (path, metric) in chosen.files.items()}
    extra = {"notes": chosen.notes, "spaces": named,
             "left_out": [{"method": m, "space": s, "why": why} for (m, s), why in left_out.items()],
             "spaces_every_method_ran": common, "budgets": budgets, "seeds": seeds,
             "quality": "optimum / best value found of the space's metric (0 if every evaluation failed)",
             "within_5pct": f"share of runs with quality >= {WITHIN:.4f} (1/1.05)",
             "failures": "charged: every configuration of the dataset, failed ones included, is in the space",
             "prefix_checks": prefix_checks, "per_space": per_space, "summary": summary,
             "reused_from_record": reused,
             "runs": {m: {s: {k: {b: round(runs[m][s][k][b], 5) for b in map(str, budgets)}
                              for k in map(str, range(seeds))} for s in spaces if (m, s) not in left_out}
                      for m in methods}}
    report(chosen.result, f"Search quality on {chosen.title} (median over {seeds} seeds; failures charged)",
           table, extra=extra)
    bad = [c for c in prefix_checks if not c["identical"]]
    if bad:
        print(f"WARNING: {len(bad)} prefix checks failed: {bad}")


if __name__ == "__main__":
    main()
