"""Accuracy against the share of the space sampled, on a space of more than 10⁵ designs (the paper's Fig. 4 and
its "at most 0.3 % of the space").

The paper samples at most 0.3 % of spaces of 66,000 designs and more. Every space shared with us holds
500–17,956, so this script measures one of the paper's size on this CPU: the demo's matrix multiply
(``starchart/demo/matmul.c``, 256 × 256 doubles) with its six parameters and three of code generation, which the
kernel sets for itself through GCC pragmas (``OPT`` 2/3, ``VECTORIZE`` 0/1, ``AVX2`` 0/1): 123,744 valid designs.

Protocol, as the paper's §VI-A: one uniform sample of ``--designs`` distinct designs (seed 0) is compiled first
(``gcc -O3``, two at a time, into the evaluator's binary cache), then measured one at a time (1 warm-up and 3
timed runs each, checksum checked against the naive loop nest; the time is their mean) into a resumable store.
Then, for each of ``--splits`` random splits of what was measured, 200 designs are held out and Starchart trees
are fitted on the first 20, 40, … 2,560 and 3,200 of the rest, and on 0.3 % of the space (371); the error is the median relative error on the 200.
The table gives, per training size, its share of the space and the median, lowest and highest error over splits.

Run: ``python benchmarks/large_space.py [--designs 3400] [--store PATH]`` (about 30 minutes on an idle 2-core AMD
EPYC; re-running resumes the store). Keep the machine otherwise idle while it measures: the times are wall-clock.
Writes ``benchmarks/results/large_space.json``, the measurements ``benchmarks/data/matmul_large_<cpu>.csv.gz``
and ``docs/figures/large_space_accuracy.png``; ``--analyse`` redoes the table and figure from the CSV alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from common import report
from measure_matmul_cpu import build_all, cpu_slug

from starchart import Space, StarchartTree
from starchart.analyses.sample_size import relative_errors, training_sizes
from starchart.demo import DEMO_DEFINES, DEMO_REFERENCE, DEMO_RESTRICTIONS, DEMO_TUNE_PARAMS, KERNEL_SOURCE
from starchart.io.load import load
from starchart.measure.c import CEvaluator
from starchart.study.runner import run

HERE = Path(__file__).resolve().parent
FIGURE = HERE.parent / "docs" / "figures" / "large_space_accuracy.png"

#: The code-generation parameters (defaults first: the demo's build).
CODEGEN = {"OPT": [3, 2], "VECTORIZE": [1, 0], "AVX2": [0, 1]}
#: Held out per split, as the paper.
VALIDATION = 200
#: The largest share of a space the paper samples (abstract, §VI-A).
PAPER_SHARE = 0.003


def large_space() -> Space:
    """The demo's space times the three code-generation parameters.

    >>> large_space().size()
    123744
    """
    return Space({**DEMO_TUNE_PARAMS, **{name: sorted(values) for name, values in CODEGEN.items()}},
                 DEMO_RESTRICTIONS)


def evaluator() -> CEvaluator:
    """The demo's evaluator with the checksum of the naive loop nest at the default code generation."""
    reference = {**DEMO_REFERENCE, **{name: values[0] for name, values in CODEGEN.items()}}
    return CEvaluator(KERNEL_SOURCE, compiler="gcc", flags=("-O3",), defines=dict(DEMO_DEFINES), metric="time",
                      repeats=3, warmup=1, reference=reference)


def curve(frame: pd.DataFrame, params: list[str], size: int, splits: int, budget: int) -> pd.DataFrame:
    """Median relative error on 200 held-out designs against training size, one row per size and split."""
    ok = frame[frame["status"] == "ok"].reset_index(drop=True)
    # the doubling sizes of §VI-A, and the paper's largest share (0.3 %) itself
    sizes = sorted({*training_sizes(20, 2.0, min(budget, len(ok) - VALIDATION)), round(PAPER_SHARE * size)})
    rows = []
    for split in range(splits):
        order = np.random.default_rng(split).permutation(len(ok))
        held, pool = ok.iloc[order[:VALIDATION]], ok.iloc[order[VALIDATION:]]
        for n in sizes:
            train = pool.iloc[:n]
            tree = StarchartTree().fit(train[params], train["time"].to_numpy())
            error = relative_errors(tree.predict(held[params]), held["time"].to_numpy())
            rows.append({"samples": n, "share": n / size, "split": split, "median_rel_error": float(np.median(error)),
                         "leaves": tree.n_leaves_})
    return pd.DataFrame(rows)


def summary(runs: pd.DataFrame) -> list[dict[str, object]]:
    """Per training size: its share of the space and the error's median, lowest and highest over splits."""
    rows = []
    for n, group in runs.groupby("samples"):
        errors = group["median_rel_error"]
        rows.append({"samples": int(n), "share of space": f"{group['share'].iloc[0]:.3%}",
                     "median error": round(float(errors.median()), 4), "lowest": round(float(errors.min()), 4),
                     "highest": round(float(errors.max()), 4), "leaves": int(group["leaves"].median())})
    return rows


def draw(runs: pd.DataFrame, size: int) -> None:
    """Fig. 4's plot: error against the share of the space, one line per split and their median."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.8), dpi=150)
    for _, group in runs.groupby("split"):
        ax.plot(group["share"] * 100, group["median_rel_error"] * 100, color="0.8", lw=0.8)
    medians = runs.groupby("share")["median_rel_error"].median()
    ax.plot(medians.index * 100, medians * 100, "o-", color="C0", label="median over splits")
    ax.axvline(PAPER_SHARE * 100, color="C3", ls="--", lw=1, label="0.3 % of the space (the paper's largest)")
    ax.set_xscale("log")
    ax.set_xlabel(f"training designs, % of the {size:,}-design space")
    ax.set_ylabel("median relative error on 200 held out (%)")
    ax.set_title("Matrix multiply on this CPU: accuracy against samples (paper Fig. 4)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(FIGURE)
    print(f"wrote {FIGURE.relative_to(HERE.parent)}")


def main() -> None:
    cpu = cpu_slug()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--designs", type=int, default=3400, help="designs measured (200 held out, the rest train)")
    parser.add_argument("--splits", type=int, default=10, help="random splits of what was measured")
    parser.add_argument("--store", default="/tmp/starchart-large-space.db", help="resumable store")
    parser.add_argument("--data", type=Path, default=HERE / "data" / f"matmul_large_{cpu}.csv.gz",
                        help="the measurements, written at the end")
    parser.add_argument("--analyse", action="store_true", help="measure nothing: redo the table from --data")
    args = parser.parse_args()
    space = large_space()
    size = space.size()
    record = HERE / "results" / "large_space.json"
    # the repeats are in the store, not in the CSV: --analyse keeps the measured run's figure
    spread = json.loads(record.read_text()).get("repeat_spread") if record.exists() else None
    if not args.analyse:
        configs = space.sample(args.designs, seed=0)
        measurer = evaluator()
        build_all(measurer, configs.to_dict("records"), workers=2)
        dataset = run(space, measurer, configs=configs.to_dict("records"), store=args.store, workers=1)
        dataset.to_csv(args.data)
        spread = dataset.repeat_spread("time")
        print(f"wrote {args.data}")
    elif not args.data.exists():
        sys.exit(f"{args.data} not found: run without --analyse to measure it")
    frame = load(args.data).frame
    params = list(space.names)
    runs = curve(frame, params, size, args.splits, args.designs - VALIDATION)
    draw(runs, size)
    statuses = frame["status"].value_counts().to_dict()
    report("large_space", f"Accuracy against samples on a {size:,}-design space (matrix multiply, this CPU; "
           f"{args.splits} splits, 200 held out)", summary(runs),
           extra={"space_size": size, "measured": len(frame), "statuses": statuses,
                  "repeat_spread": spread,
                  "time_ms": {q: round(float(frame.loc[frame["status"] == "ok", "time"].quantile(q)), 4)
                              for q in (0.0, 0.5, 1.0)},
                  "data": str(args.data.resolve().relative_to(HERE.parent) if args.data.resolve().is_relative_to(HERE.parent)
                              else args.data),
                  "command": "python benchmarks/large_space.py", "runs": runs.to_dict("records")})


if __name__ == "__main__":
    main()
