"""How stable the input-sensitivity verdict is: the CPU matmul study measured again and again, quiet and busy.

    python benchmarks/input_verdict.py [--repeats 5] [--configs 30]

The case study of ``docs/case-studies.md`` §4 measures the bundled tiled matrix multiply (``starchart/demo``) at
N = 64, 128, 256 and 512, the same uniformly drawn configurations at every size, and asks which parameters'
effect depends on N. **The test, stated before measuring:** ``input_sensitivity(ds, inputs=['N'], work='n^3',
size='N')`` fits log-throughput with a two-way model blocked on the configuration; a parameter depends on the
input when its interaction with N explains at least 2 % of the variance and the F test's p < 0.01.

One run of the study once said ORDER depends on N (p = 0.006) and, on a busy machine, that no parameter does
(p = 0.0116): a p-value near the threshold flips with noise. So the study is measured ``--repeats`` times on a
quiet machine and as many times with the other core busy (a process spinning on it), and the script reports,
per parameter, how often each repeat calls it input-dependent and the spread of its p-value, and the verdict of
the repeats pooled (each configuration's median throughput over the repeats at each size). Prints a table and
writes ``benchmarks/results/input_verdict.json``. Needs gcc; takes about 20 s per repeat.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import sys
import time
from typing import Any

import numpy as np
import pandas as pd
from common import report

from starchart import Dataset, Space
from starchart.analyses.inputs import PerInputEvaluator, input_sensitivity
from starchart.demo import DEMO_REFERENCE, DEMO_RESTRICTIONS, DEMO_TUNE_PARAMS, KERNEL_SOURCE, demo_space
from starchart.measure.c import CEvaluator
from starchart.study.runner import run

SIZES = [64, 128, 256, 512]


def _spin(stop: Any) -> None:
    """Keep one core busy until told to stop (the busy machine of the flipped verdict)."""
    x = 0
    while not stop.is_set():
        x = (x * 1103515245 + 12345) % 2**31


def measure(configs: list[dict[str, Any]], busy: bool) -> Dataset:
    def make(inputs: dict[str, Any]) -> CEvaluator:
        return CEvaluator(KERNEL_SOURCE, defines={"N": inputs["N"]}, repeats=3, warmup=1,
                          reference=dict(DEMO_REFERENCE))

    space = Space({"N": SIZES, **DEMO_TUNE_PARAMS}, DEMO_RESTRICTIONS)
    stop = multiprocessing.Event()
    burner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True) if busy else None
    if burner:
        burner.start()
    try:
        return run(space, PerInputEvaluator(make, ["N"]), configs=configs, progress=False)
    finally:
        if burner:
            stop.set()
            burner.join()


def verdict(ds: Dataset) -> pd.DataFrame:
    result = input_sensitivity(ds, inputs=["N"], work="n^3", size="N")
    return result.interactions.set_index("parameter")[["interaction_share", "p_value", "depends_on_input"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--configs", type=int, default=30, help="configurations per size (the case study's 30)")
    args = parser.parse_args()
    if shutil.which("gcc") is None:
        sys.exit("gcc is needed to measure the matrix multiply")
    tuning = demo_space().sample(args.configs, seed=0).to_dict("records")
    configs = [{"N": n, **c} for n in SIZES for c in tuning]
    verdicts: dict[str, list[pd.DataFrame]] = {"quiet": [], "busy": []}
    frames = []
    for condition in ("quiet", "busy"):
        for repeat in range(args.repeats):
            start = time.perf_counter()
            ds = measure(configs, busy=condition == "busy")
            verdicts[condition].append(verdict(ds))
            frames.append(ds.frame.assign(repeat=f"{condition}{repeat}"))
            print(f"{condition} repeat {repeat}: {time.perf_counter() - start:.0f} s; depends on N: "
                  f"{', '.join(verdicts[condition][-1].index[verdicts[condition][-1]['depends_on_input']]) or 'none'}",
                  flush=True)
    # pooled: each configuration's median time over every repeat at each size, then the same test
    every = pd.concat(frames)
    ok = every[every["status"] == "ok"]
    keys = ["N", *DEMO_TUNE_PARAMS]
    pooled_frame = ok.groupby(keys, as_index=False)["time"].median()
    pooled = verdict(Dataset.from_frame(pooled_frame, params=keys, metrics=["time"]))
    rows = []
    for parameter in pooled.index:
        row: dict[str, Any] = {"parameter": parameter}
        for condition, found in verdicts.items():
            p = np.array([f.loc[parameter, "p_value"] for f in found], dtype=float)
            share = np.array([f.loc[parameter, "interaction_share"] for f in found], dtype=float)
            row[f"{condition}: input-dependent"] = f"{sum(bool(f.loc[parameter, 'depends_on_input']) for f in found)}/{len(found)}"
            row[f"{condition}: p range"] = f"{np.nanmin(p):.2g}–{np.nanmax(p):.2g}" if np.isfinite(p).any() else "—"
            row[f"{condition}: interaction share"] = f"{100 * np.nanmin(share):.1f}–{100 * np.nanmax(share):.1f} %"
        row["pooled: p"] = float(pooled.loc[parameter, "p_value"])
        row["pooled: input-dependent"] = bool(pooled.loc[parameter, "depends_on_input"])
        rows.append(row)
    report("input_verdict", "Which parameters' effect depends on N, repeat by repeat (the CPU matmul input study)",
           rows, extra={"repeats": args.repeats, "configs_per_size": args.configs, "sizes": SIZES,
                        "test": "input_sensitivity: interaction with N >= 2 % of the variance of log-throughput "
                                "and p < 0.01 (F test blocked on the configuration)",
                        "command": "python benchmarks/input_verdict.py"})


if __name__ == "__main__":
    main()
