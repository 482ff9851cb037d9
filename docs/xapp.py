"""XAPP on the project's own corpus: features, their agreement, and (once measured) accuracy.

Run from the project root (needs clang or the ziglang wheel: ``pip install ".[xapp]"``)::

    python docs/xapp.py              # seconds with the recorded dynamic features; hours without
    python docs/xapp.py --recorded   # dynamic features only of the kernels already recorded

It loads ``corpus/`` and writes ``docs/xapp.md`` with, every number computed here:

1. the corpus: kernels per category and the measured CPU and GPU times (speedups where both exist);
2. the static features of every kernel (Table 4.2 of the thesis) and the time to extract them;
3. the dynamic features (Table 3.1) recorded in ``corpus/features/dynamic.json`` (computed and
   recorded on first use: an instrumented run of each kernel at its measured input);
4. static against dynamic in the discretised space: for the properties both measure, the share of
   kernels that land on the same side of an equal-frequency cut (the thesis, §4.1: "static analysis
   is 100% accurate" in that space);
5. when the corpus has measured speedups (its GPU side): static XAPP's leave-one-out accuracy for 2-5
   ranges with confusion matrices, dynamic XAPP's cross-validated mean relative error, and the two
   compared in the discretised space (thesis ch. 7). Without them the page says so; it never reports
   an accuracy on invented labels.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starchart.xapp.corpus import Corpus  # noqa: E402
from starchart.xapp.discretize import Discretizer  # noqa: E402
from starchart.xapp.static import FEATURES  # noqa: E402
from starchart.xapp.toolchain import clang_command  # noqa: E402
from starchart.xapp.training import corpus_features, features_file  # noqa: E402

#: Speedup cut points per number of ranges (the thesis's Fig. 6.2 averages over many choices;
#: these are fixed and stated so the run is reproducible).
RANGES = {2: (3.0,), 3: (3.0, 20.0), 4: (2.0, 5.0, 20.0), 5: (2.0, 5.0, 10.0, 30.0)}
#: The thesis (§8.1): speedup ranges predicted with 86, 77, 70 and 62 % average accuracy for 2-5 ranges,
#: and 94 % for two ranges cut at 3.
THESIS_STATIC = {2: "86 % on average over cutoffs, 94 % at 3", 3: "77 %", 4: "70 %", 5: "62 %"}

#: Static feature -> the same property computed from dynamic features.
def _dynamic_equivalents(d: pd.DataFrame) -> pd.DataFrame:
    fp, dp = d["fp"], d["dp"]
    return pd.DataFrame({
        "coalesced": d["coalesced"],
        "divergent": d["Lbdiv32"],
        "arith_intensity": (d["int"] + fp + dp) / d["mem"].replace(0, np.nan),
        "ctrl_intensity": d["ctrl"],
        "muldiv": (d["mulf"] + d["divf"]) * fp + (d["muld"] + d["divd"]) * dp,
        "sincos": d["sincosf"] * fp + d["sincosd"] * dp,
        "logexp": d["expf"] * fp + d["expd"] * dp,
        "sqrt": d["sqrtf"] * fp + d["sqrtd"] * dp,
    }, index=d.index)


def _md(frame: pd.DataFrame, floatfmt: str = ".3g") -> str:
    frame = frame.copy()
    header = "| " + " | ".join([frame.index.name or ""] + [str(c) for c in frame.columns]) + " |"
    lines = [header, "|" + "---|" * (len(frame.columns) + 1)]
    for idx, row in frame.iterrows():
        cells = [str(idx)]
        for value in row:
            if isinstance(value, (float, np.floating)):
                cells.append("–" if np.isnan(value) else format(value, floatfmt))
            else:
                cells.append(str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def corpus_section(corpus: Corpus, table: pd.DataFrame) -> list[str]:
    counts = table.groupby("category").size().rename("kernels").to_frame()
    measured = int(table["speedup"].notna().sum())
    cpu_files = sorted({f for f in table["cpu_file"].dropna()})
    return [
        "## The corpus", "",
        f"{len(table)} kernels in `corpus/kernels/`, each in single-threaded C and in CUDA (same algorithm, "
        f"same inputs from the harness's generator, checksums compared). CPU side measured in "
        f"{', '.join(f'`corpus/measurements/{f}`' for f in cpu_files) or 'no file yet'}; "
        f"{measured} kernels have a measured speedup.", "",
        _md(counts), "",
        "CPU seconds per run of the region (minimum of the repeats), GPU seconds and speedup where measured:", "",
        _md(table[["category", "cpu_seconds", "gpu_seconds", "speedup"]]), "",
    ]


def static_section(corpus: Corpus) -> tuple[list[str], pd.DataFrame]:
    from starchart.xapp.static import static_analysis

    start = time.perf_counter()
    features = corpus_features(corpus, "static", progress=False)
    wall = time.perf_counter() - start
    # analysis alone, the IR already compiled (static_analysis caches the compiled module)
    start = time.perf_counter()
    for kernel in corpus.kernels:
        static_analysis(kernel.c_path)
    analysis = time.perf_counter() - start
    lines = [
        "## Static features (thesis Table 4.2)", "",
        f"All {len(features.frame)} kernels in {wall:.2f} s with `{' '.join(clang_command())}` "
        f"({1e3 * wall / max(len(features.frame), 1):.0f} ms per kernel, clang included; the analysis of "
        f"already-compiled IR took {1e3 * analysis / max(len(corpus.kernels), 1):.1f} ms per kernel). "
        "The thesis: under a second per kernel.", "",
    ]
    if features.skipped:
        lines += ["Not analysed: " + "; ".join(f"{k}: {v}" for k, v in features.skipped.items()), ""]
    lines += [_md(features.frame[list(FEATURES)]), ""]
    return lines, features.frame


def dynamic_section(corpus: Corpus, recorded_only: bool) -> tuple[list[str], pd.DataFrame]:
    kernels = None
    if recorded_only:
        path = features_file(corpus, "dynamic")
        recorded = json.loads(path.read_text())["kernels"] if path.is_file() else {}
        kernels = [k.name for k in corpus.kernels if k.name in recorded]
    start = time.perf_counter()
    features = corpus_features(corpus, "dynamic", kernels=kernels, progress=True)
    wall = time.perf_counter() - start
    frame = features.frame
    lines = ["## Dynamic features (thesis Table 3.1)", "",
             f"{len(frame)} of {len(corpus.kernels)} kernels, read from or added to `corpus/features/dynamic.json` in {wall:.0f} s "
             "(an instrumented run at each kernel's measured input; see docs/xapp-dynamic.md for the "
             "definitions and the slowdown).", ""]
    if features.skipped:
        lines += ["Not measured: " + "; ".join(f"{k}: {v}" for k, v in features.skipped.items()), ""]
    if len(frame):
        shown = [c for c in ("ninst", "mem", "ctrl", "fp", "dp", "ilp32", "ilp65536", "gMemBW", "coalesced",
                             "stride0", "reuseDist2", "blocks", "Lbdiv32") if c in frame.columns]
        lines += [_md(frame[shown]), ""]
    return lines, frame


def agreement_section(static: pd.DataFrame, dynamic: pd.DataFrame) -> list[str]:
    common = static.index.intersection(dynamic.index)
    if len(common) < 4:
        return ["## Static against dynamic", "", "Too few kernels with both kinds of features.", ""]
    dyn = _dynamic_equivalents(dynamic.loc[common])
    rows = {}
    for name in dyn.columns:
        a = static.loc[common, [name]]
        b = dyn[[name]].fillna(0.0)
        la = Discretizer(2, features=[name]).fit_transform(a)[name]
        lb = Discretizer(2, features=[name]).fit_transform(b)[name]
        rows[name] = {"same level": float((la == lb).mean()),
                      "Spearman ρ": float(a[name].rank().corr(b[name].rank()))}
    table = pd.DataFrame(rows).T
    table.index.name = "feature"
    return ["## Static against dynamic in the discretised space", "",
            f"Over the {len(common)} kernels with both kinds of features, each property is cut into 2 equal-frequency levels on each side separately; *same level* is "
            "the share of kernels the static estimate puts on the same side as the instrumented run (the "
            "thesis reports 100 %). Dynamic equivalents: coalesced ↔ coalesced windows, divergent ↔ Lbdiv32, "
            "arith_intensity ↔ (int + fp + dp) / mem, ctrl_intensity ↔ ctrl, muldiv/sincos/logexp/sqrt ↔ "
            "the fp and dp fractions of those operations. The two do not measure the same thing for coalescing: "
            "the static rule follows the GPU mapping (consecutive threads take consecutive iterations of the "
            "innermost band loop), the dynamic one the CPU's order (32 consecutive executions of a load, i.e. "
            "of the innermost loop, band or not), as the thesis defines each; `col_sums` (a thread per column, "
            "a loop over rows) is coalesced on the GPU and strided in CPU order.", "",
            _md(table, ".2f"), ""]


def accuracy_section(static: pd.DataFrame, dynamic: pd.DataFrame, table: pd.DataFrame) -> list[str]:
    labelled = table[table["speedup"].notna()]
    if len(labelled) < 5:
        return ["## Accuracy", "",
                f"Not measured: {len(labelled)} of {len(table)} kernels have a GPU time. The GPU side is "
                "measured with `python -m starchart.xapp.measure_corpus corpus --side gpu` on a machine with "
                "an NVIDIA GPU (none was lent to the sessions that wrote this page). No accuracy is reported "
                "on invented labels.", ""]
    from starchart.xapp.model import SpeedupRangeModel
    from starchart.xapp.regression import SpeedupRegressionEnsemble

    lines = ["## Accuracy on the measured corpus", ""]
    X = static.loc[static.index.intersection(labelled.index)]
    y = labelled.loc[X.index, "speedup"]
    gpus = sorted(set(labelled["gpu_machine"].dropna()))
    lines += [f"Speedups of {', '.join(gpus) or 'the GPU'} over one core of the CPU side's machine: median "
              f"{y.median():.0f}×, {y.min():.2g}× to {y.max():.0f}×; {int(y.le(3).sum())} of {len(y)} kernels at "
              "3× or less. Each accuracy is shown beside the **majority baseline** (always predicting the most "
              "common range): a model is only worth its lead over that.", ""]
    # the thesis's fixed cuts, then the corpus's own terciles / quartiles (balanced ranges: the fixed
    # cuts put nearly every kernel of a modern GPU in the top range, which makes accuracy meaningless)
    balanced = {f"{k} ranges at the corpus's quantiles": tuple(float(f"{q:.3g}") for q in
                                                               y.quantile(np.arange(1, k) / k))
                for k in (2, 3, 4)}
    cases = [(f"{k} ranges", cutoffs, f" (thesis {THESIS_STATIC[k]})") for k, cutoffs in RANGES.items()]
    cases += [(label, cutoffs, "") for label, cutoffs in balanced.items()]
    for label, cutoffs, thesis in cases:
        if y.gt(cutoffs[-1]).sum() == 0 or y.le(cutoffs[0]).sum() == 0:
            lines += [f"{label} {cutoffs}: the measured speedups do not span these ranges.", ""]
            continue
        result = SpeedupRangeModel(cutoffs=cutoffs).loocv(X, y)
        majority = float(np.bincount(np.searchsorted(cutoffs, y.to_numpy(), side="left")).max() / len(y))
        lines += [f"### Static XAPP, {label} (cut at {', '.join(f'{c:g}' for c in cutoffs)}): LOOCV "
                  f"accuracy {result.accuracy:.1%}, majority baseline {majority:.1%}{thesis}", "",
                  _md(result.confusion), ""]
    D = dynamic.loc[dynamic.index.intersection(labelled.index)]
    if len(D) >= 5:
        cv = SpeedupRegressionEnsemble().cross_validate(D, labelled.loc[D.index, "gpu_seconds"],
                                                        labelled.loc[D.index, "cpu_seconds"], leave_out=1)
        actual = labelled.loc[D.index, "speedup"]
        # leave-one-out constant predictor: the median speedup of the other kernels
        constant = np.mean([abs(actual[k] - actual.drop(k).median()) / actual[k] for k in actual.index])
        lines += [f"### Dynamic XAPP: cross-validated mean relative error {cv.mean_relative_error:.1%} "
                  f"(thesis 26.9 %); predicting every kernel's speedup as the median of the others: "
                  f"{constant:.1%}", "",
                  "Per kernel (leave-one-out):", "",
                  _md(cv.per_kernel[["actual_speedup", "predicted_speedup", "relative_error"]], ".3g"), ""]
    return lines


def main(recorded: bool = False) -> None:
    corpus = Corpus.load(ROOT / "corpus")
    table = corpus.table()
    lines = ["# XAPP on the starchart corpus", "",
             f"Generated by `python docs/xapp.py` on {dt.date.today().isoformat()} ({platform.machine()}, "
             f"{platform.python_version()}); every number below is computed by that run.", ""]
    lines += corpus_section(corpus, table)
    static_lines, static = static_section(corpus)
    lines += static_lines
    dynamic_lines, dynamic = dynamic_section(corpus, recorded)
    lines += dynamic_lines
    lines += agreement_section(static, dynamic)
    lines += accuracy_section(static, dynamic, table)
    (ROOT / "docs" / "xapp.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recorded", action="store_true",
                        help="dynamic features only of the kernels already recorded (seconds, not hours)")
    main(recorded=parser.parse_args().recorded)
