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

sys.path.insert(0, str(ROOT / "docs"))
from xapp_protocol import (  # noqa: E402
    HELD_OUT_AFTER,
    accuracy_section,
    cut_sets,
    labels_moved_section,
    protocol_section,
    thesis_levels_note,
)


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
    shown = [*FEATURES, "host_steps"] if "host_steps" in features.frame.columns else list(FEATURES)
    lines += ["`host_steps` is not one of the thesis's features: the iterations of the loops around the band "
              "(the launches a GPU port makes), from constant trip counts or `#pragma xapp trip(N)`.", "",
              _md(features.frame[shown]), ""]
    return lines, features.frame


def dynamic_section(corpus: Corpus, recorded_only: bool) -> tuple[list[str], pd.DataFrame]:
    # the kernels the models were chosen on: an instrumented run takes up to minutes per kernel, and the
    # held-out kernels have no GPU time yet to be scored with
    kernels = [k.name for k in corpus.kernels if k.name in HELD_OUT_AFTER]
    if recorded_only:
        path = features_file(corpus, "dynamic")
        recorded = json.loads(path.read_text())["kernels"] if path.is_file() else {}
        kernels = [name for name in kernels if name in recorded]
    start = time.perf_counter()
    features = corpus_features(corpus, "dynamic", kernels=kernels, progress=True)
    wall = time.perf_counter() - start
    frame = features.frame
    lines = ["## Dynamic features (thesis Table 3.1)", "",
             f"{len(frame)} of the {len(HELD_OUT_AFTER)} kernels the models were chosen on, read from or added to `corpus/features/dynamic.json` in {wall:.0f} s "
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


def dynamic_accuracy_section(dynamic: pd.DataFrame, table: pd.DataFrame) -> list[str]:
    """Dynamic XAPP: the thesis's ensemble on GPU time, and the log-speedup forest on the same features."""
    labelled = table[table["speedup"].notna()]
    D = dynamic.loc[dynamic.index.intersection(labelled.index)]
    if len(D) < 5:
        return []
    from starchart.xapp.log_speedup import SpeedupRegressor, error_factor
    from starchart.xapp.regression import SpeedupRegressionEnsemble

    cv = SpeedupRegressionEnsemble().cross_validate(D, labelled.loc[D.index, "gpu_seconds"],
                                                    labelled.loc[D.index, "cpu_seconds"], leave_out=1)
    actual = labelled.loc[D.index, "speedup"]
    # leave-one-out constant predictor: the median speedup of the other kernels
    constant = np.mean([abs(actual[k] - actual.drop(k).median()) / actual[k] for k in actual.index])
    per = cv.per_kernel
    factor = pd.Series(error_factor(per["predicted_speedup"], per["actual_speedup"]))
    forest = SpeedupRegressor(features=tuple(D.columns)).loocv(D, actual)
    return ["## Dynamic XAPP", "",
            "### The thesis's ensemble (GPU time per instruction)", "",
            f"Cross-validated mean relative error {cv.mean_relative_error:.1%} (thesis 26.9 %), median error "
            f"factor {float(factor.median()):.2f}×; predicting every kernel's speedup as the median of the others: "
            f"{constant:.1%}.", "",
            "### A log-speedup forest on the same dynamic features", "",
            f"With host_steps (the band's entries): {forest.summary()}.", "",
            "Per kernel (leave-one-out, the thesis's ensemble):", "",
            _md(per[["actual_speedup", "predicted_speedup", "relative_error"]], ".3g"), ""]


def held_out_section(table: pd.DataFrame) -> list[str]:
    """Kernels added after the models were fixed: scored apart once both sides are measured."""
    added = [k for k in table.index if k not in HELD_OUT_AFTER]
    if not added:
        return []
    part = table.loc[added]
    labelled = part["speedup"].notna()
    lines = ["## Held-out kernels", "",
             f"{len(added)} kernels were added after the models were fixed ({int(labelled.sum())} with a measured "
             "speedup). They are scored apart, never used to choose a model."]
    if not labelled.all():
        lines += ["", f"The GPU side of {int((~labelled).sum())} of them is not measured: no GPU was lent to the "
                  "session that wrote them. `corpus/measure_gpu.sh` measures exactly these on a machine with an "
                  "NVIDIA GPU; it was dry-run on the CPU emulator (`--dry-run`). Their CPU side is measured:"]
    lines += ["", _md(part[["category", "cpu_seconds", "gpu_seconds", "speedup"]]), ""]
    return lines


WALKTHROUGH = """## Your own CPU-GPU pair

The corpus's labels belong to one pair (this CPU core, an H200). To predict for yours, measure the corpus
on it and train on those measurements:

```sh
# 1. the CPU side, on the machine whose single core is your baseline (minutes)
python -m starchart.xapp.measure_corpus corpus --side cpu --host-kind my-workstation
# 2. the GPU side, on the machine with your GPU (needs nvcc)
python -m starchart.xapp.measure_corpus corpus --side gpu --host-kind my-gpu-node
# 3. score the models on your labels, by the protocol above
starchart xapp evaluate corpus --levels continuous --host-steps --cutoffs 50,500
starchart xapp evaluate corpus --regress --host-steps
# 4. move the thesis's cuts to your pair, if you want its ranges (peaks from the data sheets)
starchart xapp cutoffs --gpu-peak 66900 --cpu-peak 83
# 5. train, then ask about your own C file (its band marked with #pragma xapp parallel)
starchart xapp train corpus --regress --host-steps -o speedup.json
starchart xapp predict my_kernel.c --model speedup.json
```

`measure_corpus` writes one JSON file per run into `corpus/measurements/` as results arrive (a killed run
resumes), records the compile commands, the vectorisation report and the machine, and compares the two
sides' checksums; the newest measurement of each side wins. `starchart xapp corpus corpus` shows the labels
it will train on.
"""


def main(recorded: bool = False, skip_dynamic: bool = False) -> None:
    corpus = Corpus.load(ROOT / "corpus")
    table = corpus.table()
    frozen = table.loc[[k for k in table.index if k in HELD_OUT_AFTER]]
    labelled = frozen["speedup"].dropna()
    cuts, sentence = cut_sets(labelled) if len(labelled) >= 5 else ({}, "")
    lines = ["# XAPP on the starchart corpus", "",
             f"Generated by `python docs/xapp.py` on {dt.date.today().isoformat()} ({platform.machine()}, "
             f"{platform.python_version()}); every number below is computed by that run.", ""]
    if cuts:
        lines += protocol_section(cuts, sentence)
    lines += corpus_section(corpus, table)
    lines += labels_moved_section(corpus, frozen, _md)
    static_lines, static = static_section(corpus)
    lines += static_lines
    dynamic = pd.DataFrame()
    if skip_dynamic:
        lines += ["## Dynamic features", "", "Skipped in this run (`--skip-dynamic`).", ""]
    else:
        dynamic_lines, dynamic = dynamic_section(corpus, recorded)
        lines += dynamic_lines
        lines += agreement_section(static, dynamic)
    if cuts:
        X = static.loc[labelled.index]
        lines += thesis_levels_note(X, labelled)
        lines += accuracy_section(X, labelled, cuts, _md)
    if len(dynamic):
        lines += dynamic_accuracy_section(dynamic.loc[dynamic.index.intersection(frozen.index)], frozen)
    lines += held_out_section(table)
    lines += [WALKTHROUGH]
    (ROOT / "docs" / "xapp.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recorded", action="store_true",
                        help="dynamic features only of the kernels already recorded (seconds, not hours)")
    parser.add_argument("--skip-dynamic", action="store_true",
                        help="leave the dynamic features and model out (a quick look; not for the committed page)")
    options = parser.parse_args()
    main(recorded=options.recorded, skip_dynamic=options.skip_dynamic)
