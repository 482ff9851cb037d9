"""The search told what the compiler says (the ``static`` strategy) against the search without it and every
method of ``benchmarks/search.py``, on the replayed spaces whose kernel sources were found.

    python benchmarks/search_static.py [--seeds 30] [--jobs 1] [--only NAME] [--convolution-source PATH/convolution.cu]

Spaces: pnpoly (RTX 3090) and dedispersion (A100), whose sources are in ``benchmarks/carving/`` (MIT); KTT's
convolution (RTX 2080 Ti), whose source is there too (MIT); and, given ``--convolution-source``, convolution on the
A100, A4000 and A6000. The convolution kernel that made those caches has no licence, so it is not in the
repository: ``benchmarks/carving/SOURCES.md`` §1 says where it is.

Per space, every configuration is compiled for the measured GPU's compute capability and carved by the paper's
rule (the Pareto front of efficiency and utilization), exactly as ``benchmarks/carving_spaces.py`` and, for KTT,
``benchmarks/carving_conflicts.py`` do (NVRTC and ptxas from PyPI, no GPU; the binaries are cached in
``~/.cache/starchart/carve``). Each space's carving table is then committed in ``benchmarks/results/static_tables/``
and read from there by later runs, which compile nothing (``--recompile`` builds it again). Then, for seeds 0 … N − 1 and budgets
20/50/100/200, failures charged (the rules of ``benchmarks/search.py``):

- ``static``: the ``static`` strategy: the trees may split on the carving table's metrics from the first model
  on, and the initial design is drawn among what carving kept (every seed);
- ``static features``: the ``tree`` strategy given the same table, its initial design uniform: which half of the
  strategy does the work (``--ablation-seeds``, 10 by default).

``starchart`` (the ``tree`` strategy, as it is) and the other methods (uniform, Kernel Tuner's strategies, Optuna's
TPE; on KTT's space, which is no Kernel Tuner cache, only uniform and TACO's leaf sampling) are read from the runs
of record in ``benchmarks/results/search.json`` (same seeds, same budgets, same quality: optimum ÷ best time found).
So that the record can stand in for a fresh run, ``--check-seeds`` seeds (3 by default) of ``starchart`` are run
again here on every space and must give the recorded qualities; the JSON keeps the comparison.

A run restricted to some spaces (``--only``, or without ``--convolution-source``) keeps the other spaces' runs
from the existing record, so one space can be added without compiling the others again.

Prints a table and writes ``benchmarks/results/search_static.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import carving_conflicts
import numpy as np
import pandas as pd
from carving_spaces import KERNELS, Kernel, convolution_kernels
from common import DATASETS, RESULTS, report
from search import BUDGETS, WITHIN, _quality, _space_data

from starchart.strategies.static import STATIC_METRICS

ROOT = Path(__file__).resolve().parent.parent
OURS = ["static", "static features", "starchart"]
OTHERS = ["starchart", "starchart_leaf", "uniform", "genetic_algorithm", "bayes_opt", "diff_evo", "pso", "random_sample",
          "optuna_tpe"]
SPACE_OF = {"pnpoly": "pnpoly RTX 3090", "dedispersion": "dedispersion A100"}
KTT = "KTT convolution 2080Ti (time)"
#: The order of the spaces in the record and the docs' tables, whichever were run last.
ORDER = [*SPACE_OF.values(), KTT, "convolution A100", "convolution A4000", "convolution A6000"]


#: The carving tables of record (parameters, static metrics, carving's verdict), small enough to commit, so that
#: the search can be measured again without compiling every configuration (hours on 2 cores); ``--recompile``
#: builds them again from the sources.
TABLES = RESULTS / "static_tables"
#: Block-run columns kept in the tables beyond STATIC_METRICS, for later use.
EXTRA_COLUMNS = ("coalescing", "global_sectors", "executed_instructions", "executed_regions", "carved_by")


#: Spaces whose kernel is compiled for the same compute capability share one table: the same binaries, the same
#: carving. The A6000's (cc 8.6) is the A4000's; built separately once (2026-11-29), the two were equal.
SAME_TABLE = {"convolution A6000": "convolution A4000"}


def table_path(name: str) -> Path:
    """Where the carving table of the space ``name`` is committed.

    >>> table_path("convolution A6000").name, table_path("KTT convolution 2080Ti (time)").name
    ('convolution_A4000.csv.gz', 'KTT_convolution_2080Ti.csv.gz')
    """
    return TABLES / f"{SAME_TABLE.get(name, name).split(' (')[0].replace(' ', '_')}.csv.gz"


def carving_table(name: str, kernel: Kernel | Path, jobs: int, recompile: bool = False) -> pd.DataFrame:
    """Every configuration's static metrics and carving verdict: the committed table, or compiled and carved
    (``kernel`` a path: KTT's convolution source) and then committed."""
    from starchart.carve import carve_source
    from starchart.space import Space

    path = table_path(name)
    if path.exists() and not recompile:
        return pd.read_csv(path).fillna({"carved_by": ""})  # a survivor's empty verdict reads back as NaN
    if isinstance(kernel, Path):
        frame = carving_conflicts.search_table(kernel, jobs)
        params = [*carving_conflicts.PARAMS, *carving_conflicts.CONSTANTS]
    else:
        frame = carve_source(kernel.source, kernel.kernel, Space.from_file(kernel.space), kernel.cc,
                             threads_per_block=kernel.threads_per_block, threads=kernel.threads, jobs=jobs,
                             progress=True, block=kernel.block).frame
        params = list(Space.from_file(kernel.space).names)
    columns = [*params, *[c for c in (*STATIC_METRICS, *EXTRA_COLUMNS) if c in frame.columns]]
    TABLES.mkdir(parents=True, exist_ok=True)
    frame[columns].to_csv(path, index=False)  # full precision: the bands must be those of the frame
    return carving_table(name, kernel, jobs)


def one_run(task: tuple[str, str, int, list[int], str]) -> tuple[str, str, int, dict[int, float]]:
    """Quality per budget of one method on one space for one seed."""
    method, name, seed, budgets, table_path = task
    from starchart import search
    from starchart.measure import ReplayEvaluator

    ds, space, metric, optimum = _space_data(name)
    evaluator = ReplayEvaluator(ds, metrics=[metric])
    table = pd.read_pickle(table_path) if method != "starchart" else None
    strategy = {"starchart": "tree", "static features": "tree", "static": "static"}[method]
    out = {}
    for budget in budgets:
        best = search(evaluator, space, budget, seed=seed, strategy=strategy, static=table).best
        out[budget] = _quality(optimum, best.value if best else np.nan)
    return method, name, seed, out


def summary_rows(runs: dict[str, dict[str, dict[str, dict[str, float]]]], spaces: list[str],
                 budgets: list[int]) -> list[dict[str, Any]]:
    rows = []
    for method, by_space in runs.items():
        for budget in budgets:
            row: dict[str, Any] = {"method": method, "budget": budget}
            every = []
            present = 0
            for name in spaces:
                values = [seeds[str(budget)] for seeds in by_space.get(name, {}).values() if str(budget) in seeds]
                row[name] = float(np.median(values)) if values else None
                every += values
                present += bool(values)
            if not every:
                continue
            row["median all"] = float(np.median(every))
            row["within 5%"] = float(np.mean(np.array(every) >= WITHIN))
            row["runs"] = len(every)
            # a method without runs on some space (Kernel Tuner's and Optuna's on KTT's data) pools fewer spaces
            row["spaces"] = present
            rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--ablation-seeds", type=int, default=10, help="seeds of the 'static features' variant")
    parser.add_argument("--check-seeds", type=int, default=3, help="seeds of starchart run again, to check the record")
    parser.add_argument("--jobs", type=int, default=1, help="runs at once (and configurations compiled at once)")
    parser.add_argument("--convolution-source", type=Path, help="the unlicensed convolution.cu (SOURCES.md §1)")
    parser.add_argument("--ktt-source", type=Path, default=carving_conflicts.SOURCE,
                        help="KTT's KernelTunerConvolution.cu (default: the copy in benchmarks/carving)")
    parser.add_argument("--only", default="", help="only the spaces whose name contains this")
    parser.add_argument("--work", type=Path, default=Path("/tmp/starchart-search-static"))
    parser.add_argument("--markdown", type=int, metavar="BUDGET",
                        help="print the record's table at BUDGET evaluations for docs/search.md, and run nothing")
    parser.add_argument("--recompile", action="store_true",
                        help="compile and carve again instead of reading benchmarks/results/static_tables")
    args = parser.parse_args()
    if args.markdown:
        print(markdown(json.loads((RESULTS / "search_static.json").read_text()), args.markdown))
        return
    if not DATASETS.exists():
        sys.exit(f"{DATASETS} not found: the measured caches are needed")
    args.work.mkdir(parents=True, exist_ok=True)
    kernels: list[tuple[str, Kernel | Path]] = [(SPACE_OF[k.name], k) for k in KERNELS]
    kernels.append((KTT, args.ktt_source))
    if args.convolution_source:
        kernels += convolution_kernels(args.convolution_source)
    kernels = [(name, k) for name, k in kernels if args.only in name]
    budgets = [b for b in BUDGETS if b <= 200]
    tables = {name: carving_table(name, k, args.jobs, args.recompile) for name, k in kernels}
    table_paths = {}
    for name, table in tables.items():
        table_paths[name] = str(args.work / f"table_{name.replace(' ', '_')}.pkl")
        table.to_pickle(table_paths[name])

    runs_path = args.work / "runs.json"
    runs: dict[str, Any] = json.loads(runs_path.read_text()) if runs_path.exists() else {}
    kept = _kept_from_record(set(tables))
    seeds = {"static": args.seeds, "static features": args.ablation_seeds, "starchart": args.check_seeds}
    tasks = [(m, name, seed, budgets, table_paths[name]) for m in OURS for name in tables for seed in range(seeds[m])
             if str(seed) not in runs.get(m, {}).get(name, {})]
    start = time.process_time()
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    results = pool.map(one_run, tasks) if pool else map(one_run, tasks)
    for i, (method, name, seed, out) in enumerate(results, 1):
        runs.setdefault(method, {}).setdefault(name, {})[str(seed)] = {str(b): round(q, 5) for b, q in out.items()}
        runs_path.write_text(json.dumps(runs))  # every run kept as it ends: an interrupted benchmark resumes
        print(f"{i}/{len(tasks)} {method} {name} seed {seed}: "
              + " ".join(f"{b}:{q:.3f}" for b, q in out.items()), flush=True)
    if pool:
        pool.shutdown()

    of_record = json.loads((RESULTS / "search.json").read_text())["runs"]
    spaces = _ordered([*kept["carving"], *tables])
    check = {name: {seed: {"now": runs["starchart"][name][seed], "record": _recorded(of_record, name, seed, budgets)}
                    for seed in sorted(runs["starchart"][name], key=int)[:args.check_seeds]} for name in tables}
    check = kept["starchart_rerun"] | check
    same = all(c["now"] == c["record"] for by_seed in check.values() for c in by_seed.values())
    print(f"starchart run again on {args.check_seeds} seeds per space: {'the recorded qualities' if same else 'DIFFERS'}")
    every = {m: kept["runs"].get(m, {}) | {name: {s: v for s, v in runs[m][name].items() if int(s) < seeds[m]}
                                            for name in tables if name in runs.get(m, {})}
             for m in OURS if m != "starchart"}
    every |= {m: {name: {s: v for s, v in of_record[m][name].items() if int(s) < args.seeds}
                  for name in spaces if name in of_record.get(m, {})} for m in OTHERS}
    rows = summary_rows(every, spaces, budgets)
    carving = kept["carving"] | {
        name: {"configurations": len(t), "kept_by_carving": int((t["carved_by"] == "").sum()),
               "metrics": [c for c in t.columns if c in STATIC_METRICS]} for name, t in tables.items()}
    carving = {name: carving[name] for name in spaces}
    report("search_static", "The search told the compiler's static metrics, against the search without them and "
           "the methods of benchmarks/search.py (median quality; share of runs within 5 % of the optimum)", rows,
           extra={"seeds": args.seeds, "ablation_seeds": args.ablation_seeds, "budgets": budgets, "carving": carving,
                  "starchart_rerun_matches_record": same, "starchart_rerun": check,
                  "others_from": "benchmarks/results/search.json (runs of record, same seeds and budgets)",
                  "cpu_seconds_this_run": time.process_time() - start,
                  "command": "python benchmarks/search_static.py" + (f" --seeds {args.seeds}" if args.seeds != 30 else "")
                             + (" --convolution-source convolution.cu" if args.convolution_source else "")
                             + (f" --only {args.only!r}" if args.only else ""),
                  "kept_from_record": sorted(kept["carving"]),
                  "runs": every})


def markdown(record: dict[str, Any], budget: int) -> str:
    """The record's median quality at ``budget`` per method and space (share within 5 % in brackets), as the
    table ``docs/search.md`` shows."""
    spaces = _ordered(record["carving"])
    head = ["method", *[name.replace(" (time)", "") for name in spaces], "all spaces"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for method, by_space in record["runs"].items():
        cells, every = [], []
        for name in spaces:
            values = [seeds[str(budget)] for seeds in by_space.get(name, {}).values() if str(budget) in seeds]
            every += values
            cells.append(f"{np.median(values):.3f} ({np.mean(np.array(values) >= WITHIN):.0%})" if values else "—")
        total = f"{np.median(every):.3f} ({np.mean(np.array(every) >= WITHIN):.0%})" if every else "—"
        present = len([c for c in cells if c != "—"])
        if present < len(spaces):
            total += f", {present} space{'s' if present != 1 else ''}"
        label = {"static": "**static**", "static features": "static features, uniform start",
                 "starchart": "starchart (`tree`)", "starchart_leaf": "TACO leaf sampling"}.get(method, method)
        lines.append("| " + " | ".join([label, *cells, total]) + " |")
    return "\n".join(lines)


def _ordered(names: Any) -> list[str]:
    """``names`` in :data:`ORDER` (others after, as given).

    >>> _ordered(["convolution A4000", "other", "pnpoly RTX 3090"])
    ['pnpoly RTX 3090', 'convolution A4000', 'other']
    """
    return sorted(names, key=lambda name: ORDER.index(name) if name in ORDER else len(ORDER))  # stable: others as given


def _kept_from_record(rerun: set[str]) -> dict[str, dict[str, Any]]:
    """What the existing record holds for the spaces not run now: their carving summary, the check of
    ``starchart`` against the search record, and the runs of the strategies measured here."""
    path = RESULTS / "search_static.json"
    record = json.loads(path.read_text()) if path.exists() else {}
    keep = [name for name in record.get("carving", {}) if name not in rerun]
    return {"carving": {name: record["carving"][name] for name in keep},
            "starchart_rerun": {name: record["starchart_rerun"][name] for name in keep},
            "runs": {m: {name: by_space[name] for name in keep if name in by_space}
                     for m, by_space in record.get("runs", {}).items() if m in OURS}}


def _recorded(of_record: dict, name: str, seed: str, budgets: list[int]) -> dict[str, float] | None:
    """The recorded qualities of ``starchart`` on ``name`` for ``seed`` (None: not in the record)."""
    runs = of_record.get("starchart", {}).get(name, {}).get(seed)
    return None if runs is None else {str(b): runs[str(b)] for b in budgets}


if __name__ == "__main__":
    main()
