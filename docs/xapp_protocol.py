"""The XAPP evaluation of ``docs/xapp.md``: the protocol, written before any figure, and its run.

Imported by ``docs/xapp.py``. The variant table takes about half an hour on one core (42 LOOCVs of
1000-tree forests per variant, cut set and seed), so its result is kept in
``docs/xapp-evaluation.json`` with a key of everything it depends on (features, labels, variants,
cuts, seeds); the page reuses it while the key matches and recomputes it when anything changed.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd

from starchart.xapp.corpus import Corpus, read_measurement_file
from starchart.xapp.discretize import FEATURES
from starchart.xapp.encoding import CONTINUOUS, EXTENDED_FEATURES
from starchart.xapp.evaluation import (
    default_variants,
    evaluate_variants,
    pair_factor,
    quantile_cutoffs,
    scaled_cutoffs,
)

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "docs" / "xapp-evaluation.json"
SEEDS = (0, 1, 2)
N_TREES = 1000
#: The labels before the C side was rewritten (naive loops, -march=x86-64-v2, no fast-math).
OLD_CPU_FILE = "2026-11-22-cpu-shared-2core-vm-b.json"
#: Peak single-precision throughput of this corpus's pair, for the thesis's cuts moved to it.
#: H200 SXM: 67 TFLOP/s FP32 (NVIDIA data sheet). One core of the CPU side's machine: an AMD EPYC
#: (Zen 4 by its AVX-512 BF16 flags) at 2.6 GHz (BogoMIPS / 2), two 256-bit FMA pipes = 32 FLOP/cycle.
PAIR = {"gpu_gflops": 66900.0, "cpu_gflops": 83.0}
#: The 42 kernels the models were chosen on; kernels added later are the held-out set.
HELD_OUT_AFTER = (
    "batched_matmul4", "bfs_step", "blackscholes", "col_sums", "collatz", "conv2d3x3",
    "covariance", "dft_naive", "dot_product", "game_of_life", "gather_random", "gaussian_exp",
    "gemv", "gemv_t", "grayscale_aos", "haversine", "heat1d", "histogram",
    "jacobi2d", "l2norm", "label_propagation", "lu_decompose", "mandelbrot", "matmul",
    "minmax", "nbody", "needleman_wunsch", "pagerank_pull", "particle_boundary", "pointer_chase",
    "recurrence_few", "row_sums", "saxpy", "scatter_add", "small_matmul", "sobel",
    "spmv_csr", "stencil3d7", "threshold_filter", "transpose", "triad", "tridiagonal_few",
)
#: The headline models, fixed before the relabelled corpus was evaluated (see the protocol).
HEADLINE_CLASSIFIER = "continuous + host steps"
HEADLINE_REGRESSOR = "log-speedup forest, cut afterwards"


def cut_sets(speedups: pd.Series) -> tuple[dict[str, tuple[float, ...]], str]:
    """The cuts the page reports, and the sentence that says how the thesis's were moved."""
    factor, sentence = pair_factor(PAIR["gpu_gflops"], PAIR["cpu_gflops"])
    cuts = {"median (2 ranges)": quantile_cutoffs(speedups, 2), "terciles (3 ranges)": quantile_cutoffs(speedups, 3),
            "quartiles (4 ranges)": quantile_cutoffs(speedups, 4),
            "thesis 3, 20 moved to this pair": scaled_cutoffs((3, 20), factor),
            "thesis 3, 20 as given": (3.0, 20.0)}
    # three significant digits: range names read "<= 533", not "<= 533.318641925"
    return {name: tuple(float(f"{c:.3g}") for c in values) for name, values in cuts.items()}, sentence


def protocol_section(cuts: dict[str, tuple[float, ...]], sentence: str) -> list[str]:
    shown = "; ".join(f"{name}: {', '.join(f'{c:g}' for c in values)}" for name, values in cuts.items())
    return [
        "## The evaluation protocol", "",
        "Written before the relabelled corpus was evaluated, and followed as written:", "",
        "1. **Labels.** Speedup = CPU seconds of the rewritten C side (one core of the CPU side's machine, "
        "`-O3 -march=native`, `-ffast-math` where the checksum allows) / the committed H200 kernel seconds "
        "(`corpus/measurements/2026-11-23-gpu-h200.json`, unchanged).",
        "2. **Cuts.** The corpus's own median, terciles and quartiles (balanced ranges); the thesis's cuts "
        "(3, 20) moved to this CPU-GPU pair by the ratio of peak throughputs; and the thesis's cuts as given, "
        "although on this pair nearly every kernel lies above them. " + sentence + ".",
        f"   Values: {shown}.",
        f"3. **Leave-one-out, repeated over seeds.** Each variant is scored by LOOCV (n kernels, each predicted "
        f"by a model fitted on the others; level cut points are relearned in each fold), once per forest seed "
        f"({', '.join(map(str, SEEDS))}); the table shows the mean and the range over seeds.",
        "4. **Baselines beside every accuracy.** *Majority*: always answer the corpus's commonest range. "
        "*One feature*: a depth-2 tree on parallelism alone (log-scaled), by LOOCV. A model is worth only its "
        "lead over both.",
        f"5. **Fixed settings.** Range forests as the thesis: {N_TREES} trees, 3 features tried per split, "
        "leaves of one kernel, entropy. Log-speedup forest: 500 trees, a third of the features per split, "
        "leaves of two kernels; its interval is the 10th to 90th percentile of its out-of-bag errors. Stepwise "
        "ensemble: the thesis's (100 learners, pairwise terms, trimmed mean). Nothing is tuned on these figures.",
        f"6. **Headline models, fixed in advance.** Classifier: *{HEADLINE_CLASSIFIER}*; regression: "
        f"*{HEADLINE_REGRESSOR}*. Every variant tried is in the table, kept or not.",
        "7. **Held out.** Kernels added to the corpus after these choices are scored apart, as a held-out set, "
        "once their GPU side is measured.", "",
    ]


def labels_moved_section(corpus: Corpus, table: pd.DataFrame, md) -> list[str]:
    """The CPU side before and after the rewrite, and how each speedup label moved."""
    path = corpus.measurements_dir / OLD_CPU_FILE
    if not path.is_file():
        return []
    old = read_measurement_file(path).kernels
    rows = {}
    for name in table.index:
        entry = old.get(name, {}).get("cpu", {})
        if entry.get("status") != "ok" or not np.isfinite(table.loc[name, "speedup"]):
            continue
        kernel = corpus.kernel(name)
        gpu = table.loc[name, "gpu_seconds"]
        rows[name] = {"old cpu s": entry["time_s"], "new cpu s": table.loc[name, "cpu_seconds"],
                      "faster": entry["time_s"] / table.loc[name, "cpu_seconds"],
                      "old speedup": entry["time_s"] / gpu, "new speedup": table.loc[name, "speedup"],
                      "c_flags": " ".join(kernel.c_flags) or "–"}
    if not rows:
        return []
    frame = pd.DataFrame(rows).T
    frame.index.name = "kernel"
    for col in ("old cpu s", "new cpu s", "faster", "old speedup", "new speedup"):
        frame[col] = frame[col].astype(float)
    spread_old = float(np.log10(frame["old cpu s"]).std())
    spread_new = float(np.log10(frame["new cpu s"]).std())
    return [
        "## How the labels moved when the C side was rewritten", "",
        f"The first CPU side (`corpus/measurements/{OLD_CPU_FILE}`) was naive: built with `-march=x86-64-v2`, "
        "without fast-math, and with several loops in a cache-hostile order. Each kernel is now written as a "
        "competent programmer writes serial code (loop interchange for col_sums, gemv_t and covariance, "
        "`restrict`, chunked histogram, split transcendental loops in dft_naive; the algorithm and the "
        "checksums are unchanged) and built `-O3 -march=native`, with `-ffast-math` where the checksum stays "
        "within the kernel's tolerance. The compiler's vectorisation report is kept per kernel in the "
        "measurement file (`vectorized`).", "",
        f"The C side is {np.exp(np.log(frame['faster']).mean()):.2g}× faster on geometric mean "
        f"({frame['faster'].min():.2g}× to {frame['faster'].max():.3g}×); the median speedup label went from "
        f"{frame['old speedup'].median():.0f}× to {frame['new speedup'].median():.0f}×. The spread of log10 "
        f"CPU time went from {spread_old:.2f} to {spread_new:.2f} (log10 GPU time: "
        f"{float(np.log10(table['gpu_seconds'].dropna()).std()):.2f}).", "",
        md(frame), "",
    ]


def _key(features: pd.DataFrame, speedups: pd.Series, cuts: dict, variants: list) -> str:
    payload = json.dumps({"features": features.round(12).to_dict(orient="split"),
                          "speedups": speedups.round(12).to_dict(), "cuts": cuts, "seeds": SEEDS,
                          "trees": N_TREES, "variants": [(v.name, v.kind, repr(sorted(v.params.items())))
                                                          for v in variants]}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def evaluation(features: pd.DataFrame, speedups: pd.Series, cuts: dict[str, tuple[float, ...]],
               progress: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The variant table (cached in docs/xapp-evaluation.json while its inputs are unchanged)."""
    variants = default_variants(EXTENDED_FEATURES)
    key = _key(features, speedups, cuts, variants)
    if CACHE.is_file():
        saved = json.loads(CACHE.read_text())
        if saved.get("key") == key:
            return pd.DataFrame(saved["accuracy"]), pd.DataFrame(saved["regression"])
    accuracy, regression = evaluate_variants(features, speedups, cuts, variants, SEEDS, n_trees=N_TREES,
                                             progress=(lambda name: print(f"evaluating: {name}", flush=True))
                                             if progress else None)
    CACHE.write_text(json.dumps({"key": key, "accuracy": accuracy.to_dict(orient="records"),
                                 "regression": regression.to_dict(orient="records")}, indent=1) + "\n")
    return accuracy, regression


def accuracy_section(features: pd.DataFrame, speedups: pd.Series, cuts: dict[str, tuple[float, ...]],
                     md) -> list[str]:
    """The variant table, the headline models' confusion matrices, per-kernel regression and one tree."""
    from starchart.xapp.log_speedup import SpeedupRegressor
    from starchart.xapp.model import SpeedupRangeModel

    accuracy, regression = evaluation(features, speedups, cuts)
    lines = targets_section(accuracy, regression)
    lines += ["## Accuracy on the relabelled corpus", "",
             f"{len(speedups)} kernels, speedups {speedups.min():.2g}× to {speedups.max():.0f}× "
             f"(median {speedups.median():.0f}×). Accuracy is the LOOCV share of kernels put in their measured "
             f"range: mean over seeds {', '.join(map(str, SEEDS))} [lowest – highest], beside the two baselines "
             "of the protocol. *Lead* is the mean minus the better baseline. (The thesis, on its 122 kernels "
             "and GTX 750: 86, 77, 70 and 62 % for 2 to 5 ranges averaged over cuts, 94 % at the cut 3.)", ""]
    for name in cuts:
        part = accuracy[accuracy["cuts"] == name]
        view = pd.DataFrame({
            "accuracy": [f"{m:.1%} [{lo:.1%} – {hi:.1%}]" for m, lo, hi in zip(part["mean"], part["low"], part["high"])],
            "majority": [f"{v:.1%}" for v in part["majority"]],
            "one feature": [f"{v:.1%}" for v in part["one_feature"]],
            "lead": [f"{100 * (m - max(a, b)):+.1f} points" for m, a, b in
                     zip(part["mean"], part["majority"], part["one_feature"])]},
            index=pd.Index(part["variant"], name="variant"))
        lines += [f"### Cut: {name} ({', '.join(f'{c:g}' for c in cuts[name])})", "", md(view), ""]
    if len(regression):
        reg = regression.set_index("variant")
        view = pd.DataFrame({
            "median error": [f"{m:.2f}× [{lo:.2f} – {hi:.2f}]" for m, lo, hi in
                             zip(reg["median_error_factor"], reg["error_low"], reg["error_high"])],
            "within 2×": [f"{v:.0%}" for v in reg["within_2x"]],
            "inside the 80 % interval": [f"{v:.0%}" for v in reg["coverage"]]}, index=reg.index)
        constant = float(np.median([max(speedups[k] / speedups.drop(k).median(), speedups.drop(k).median()
                                        / speedups[k]) for k in speedups.index]))
        lines += ["### Regression of log speedup", "",
                  "Median error factor (a prediction off by 2× either way counts 2), LOOCV, mean over seeds "
                  f"[range]. Predicting every kernel as the median of the others: {constant:.2f}×.", "",
                  md(view), ""]
    headline = features[list(EXTENDED_FEATURES)]
    median_cut = cuts["median (2 ranges)"]
    classifier = SpeedupRangeModel(cutoffs=median_cut, levels=CONTINUOUS, features=EXTENDED_FEATURES, n_trees=N_TREES)
    result = classifier.loocv(headline, speedups)
    lines += ["### The headline classifier at the median cut", "",
              f"Seed 0: LOOCV accuracy {result.accuracy:.1%}.", "",
              md(result.confusion), "",
              "One tree standing in for it (depth 3), fitted on all kernels:", "", "```",
              classifier.fit(headline, speedups).explain(max_depth=3).text(), "```", ""]
    regressor = SpeedupRegressor(features=EXTENDED_FEATURES)
    loo = regressor.loocv(headline, speedups)
    per_kernel = loo.table.copy()
    per_kernel["inside"] = (per_kernel["speedup"] >= per_kernel["low"]) & (per_kernel["speedup"] <= per_kernel["high"])
    from starchart.report.xapp_figures import plot_predicted_speedups

    plot_predicted_speedups(loo.table, ROOT / "docs" / "figures" / "xapp_regression_loocv.png",
                            title=f"Log-speedup forest, leave-one-out over {len(loo.table)} kernels")
    lines += ["### The headline regression per kernel", "", f"Seed 0: {loo.summary()}.", "",
              "![predicted against measured speedup](figures/xapp_regression_loocv.png)", "",
              md(per_kernel.sort_values("error_factor")), "",
              "One tree standing in for it (depth 3):", "", "```",
              regressor.fit(headline, speedups).explain(max_depth=3), "```", ""]
    return lines


def targets_section(accuracy: pd.DataFrame, regression: pd.DataFrame) -> list[str]:
    """The issue's three figures against what the protocol measured, said plainly."""
    def best(cut: str, kind: str | None = None) -> pd.Series:
        part = accuracy[accuracy["cuts"] == cut]
        if kind == "headline":
            part = part[part["variant"] == HEADLINE_CLASSIFIER]
        return part.loc[part["mean"].idxmax()]

    median, terciles = best("median (2 ranges)"), best("terciles (3 ranges)")
    head_median = best("median (2 ranges)", "headline")
    head_terciles = best("terciles (3 ranges)", "headline")
    over_majority = (accuracy["mean"] - accuracy["majority"]).groupby(accuracy["cuts"]).max()
    over_both = (accuracy["mean"] - accuracy[["majority", "one_feature"]].max(axis=1)).groupby(accuracy["cuts"]).max()
    short = [f"{cut} ({100 * value:+.1f} points)" for cut, value in over_majority.items() if value < 0.10]
    behind = [f"{cut} ({round(100 * value, 1) + 0.0:+.1f})" for cut, value in over_both.items() if value <= 0]
    forest = regression.set_index("variant").loc[HEADLINE_REGRESSOR]
    reached = "reached" if forest["median_error_factor"] <= 2 else "not reached"
    return [
        "## Against the targets", "",
        "The targets set before this work, on the relabelled 42 kernels under the protocol above:", "",
        f"- **At least 85 % at the median cut: not reached.** The headline classifier gets "
        f"{head_median['mean']:.1%}; the best variant tried, *{median['variant']}*, {median['mean']:.1%} "
        f"(majority {median['majority']:.1%}, parallelism alone {median['one_feature']:.1%}).",
        f"- **At least 70 % at the terciles: not reached.** Headline {head_terciles['mean']:.1%}; best, "
        f"*{terciles['variant']}*, {terciles['mean']:.1%} (majority {terciles['majority']:.1%}, parallelism "
        f"alone {terciles['one_feature']:.1%}).",
        "- **A lead of at least 10 points over the majority at every reported cut: "
        + ("reached.**" if not short else "not reached** at " + ", ".join(short) + " (the best variant's lead).")
        + (" Parallelism alone, the other baseline, is not beaten by any variant at " + ", ".join(behind) + "."
           if behind else ""),
        f"- **Log-speedup regression within 2× median error: {reached}.** The forest's LOOCV median error is "
        f"{forest['median_error_factor']:.2f}× ({forest['error_low']:.2f}–{forest['error_high']:.2f} over "
        f"seeds), {forest['within_2x']:.0%} of kernels within 2×, {forest['coverage']:.0%} inside their 80 % "
        "interval; the thesis's dynamic ensemble, on this corpus, is below.", "",
        "What was tried is every row of the tables below; nothing was tuned to these figures after the protocol "
        "was written. What the relabelling did: the rewritten C side is faster by very different factors "
        "(table above), which moved the labels towards the GPU-side's own spread, and 42 kernels leave about 14 "
        "per tercile to learn from. The held-out set (60 kernels, below) is the next step once its GPU side is "
        "measured.", "",
    ]


def thesis_levels_note(features: pd.DataFrame, speedups: pd.Series) -> list[str]:
    """How many distinct binary vectors the thesis's levels leave, and which kernels share one."""
    from starchart.xapp.discretize import Discretizer

    levels = Discretizer(2, features=FEATURES).fit_transform(features[list(FEATURES)])
    groups = levels.astype(str).agg("".join, axis=1)
    shared = groups[groups.duplicated(keep=False)]
    widest = max(shared.groupby(shared).groups.values(), key=lambda g: speedups[list(g)].max() / speedups[list(g)].min(),
                 default=None)
    text = (f"With the thesis's binary levels the {len(features)} kernels fall into {groups.nunique()} distinct "
            "feature vectors")
    if widest is not None:
        members = sorted(widest, key=lambda k: -speedups[k])
        text += ("; the widest shared vector holds " + ", ".join(f"{k} ({speedups[k]:.3g}×)" for k in members)
                 + ", which no model on levels can tell apart")
    return [text + ".", ""]
