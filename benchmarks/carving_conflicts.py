"""Bank conflicts counted from SASS, checked against KTT's measured counters, and carving with them.

    python benchmarks/carving_conflicts.py [-j 2] [--limit N] [--source PATH/KernelTunerConvolution.cu]

The data is KTT's convolution on an RTX 2080 Ti (``../shared/datasets/ktt``): 5,280 configurations that ran,
each with Nsight Compute's shared-memory wavefront counters. The source is the kernel KTT measured,
``Examples/KernelTunerConvolution/KernelTunerConvolution.cu`` of HiPerCoRe/KTT as of commit 6a8cea9a (2024-04-25;
unchanged since): a port of Kernel Tuner's convolution example that reads the filter from ``__constant__``
memory. It is MIT-licensed and copied unchanged into ``benchmarks/carving/ktt_convolution/`` (licence in
``benchmarks/carving/licenses/``), the default ``--source``. The first version of the file (commit
07918806) reads the filter from global memory; its binaries hold up to 5.7× the measured registers, where this
version's agree with the measured ones (the ``registers`` entry of the JSON says how often).

Every configuration is compiled for compute capability 7.5 (NVRTC and ptxas from PyPI, no GPU; cached in
``~/.cache/starchart/carve``). Then:

1. **The conflict count, validated.** :func:`starchart.carve.shared_memory.shared_wavefronts` predicts each
   configuration's shared-memory wavefronts per warp from its SASS; times the warps of the launch, that is
   compared with the measured ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum``: rank
   correlation, exact matches, share within 1 %, median relative error. The static instruction count is
   checked the same way against ``smsp__inst_executed.sum``, and so is the block run's count of the warp
   instructions it issued (``executed_instructions``: each thread runs its own loop trips).
2. **Carving, by rules stated before scoring.** All from the compiler's view, no measurement:
   the paper's metrics (Pareto front of efficiency and utilization), and the same with each shared-memory
   wavefront counted as an instruction in Efficiency (``weighted_efficiency``; a replay hides no latency, so
   Utilization stays the paper's). No predicates, no margin. Both with NVRTC's register counts and with the measured binaries' (KTT's compilation data),
   because the two compilers differ. Each is scored against the measured optimum and against random sampling
   of the same size (exact order statistics). The ``executed`` rules, stated before they were scored, take
   Instr and Regions from the block run instead of the static count. The ``coalesced`` rule first drops the
   configurations whose global accesses take more than twice the sectors their bytes need (``coalescing``
   from the block run): the paper's threshold carving on coalescing, from the code. It was stated after the
   sample showed uncoalesced configurations dominating the optimum, so on this kernel it is not an independent
   test; ``carving_spaces.py`` scores it on other spaces, and the record sweeps its threshold.

The kernel never reads ``PADDING`` (it tests a macro ``use_padding`` that KTT does not define), so the
configurations differing only in it are the same binary: the script checks the source for the name and then
compiles the ``PADDING=0`` half only.

Prints the tables and writes ``benchmarks/results/carving_conflicts.json`` (date, machine, tools, command;
``--limit N``: ``carving_conflicts_sample.json``, a record of its own, since carving a sample is not carving the
space).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from common import DATASETS, report

import starchart
from starchart.carve.carving import CarveResult, carve
from starchart.carve.metrics import resolve, static_metrics
from starchart.carve.resources import ResourceCompiler
from starchart.carve.sampling import random_sampling_table
from starchart.carve.shared_memory import shared_wavefronts_frame
from starchart.carve.toolchain import find_toolchain

DATA = DATASETS / "ktt" / "KTConvolutionOutput_2080Ti.json.gz"
SOURCE = Path(__file__).resolve().parent / "carving" / "ktt_convolution" / "KernelTunerConvolution.cu"
CC = "7.5"
PARAMS = ["BLOCK_SIZE_X", "BLOCK_SIZE_Y", "TILE_SIZE_X", "TILE_SIZE_Y", "PADDING", "READ_ONLY"]
CONSTANTS = {"IMAGE_WIDTH": 4096, "IMAGE_HEIGHT": 4096, "HFS": 7}
BLOCK = "BLOCK_SIZE_X, BLOCK_SIZE_Y"
THREADS_PER_BLOCK = "BLOCK_SIZE_X * BLOCK_SIZE_Y"
# KTT's grid: ceil(ceil(4096 / BLOCK) / TILE) blocks per axis
BLOCKS = ("-(-(-(-IMAGE_WIDTH // BLOCK_SIZE_X)) // TILE_SIZE_X) * -(-(-(-IMAGE_HEIGHT // BLOCK_SIZE_Y)) // TILE_SIZE_Y)")
THREADS = f"({BLOCKS}) * BLOCK_SIZE_X * BLOCK_SIZE_Y"
MEASURED = {"load": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
            "store": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
            "instructions": "smsp__inst_executed.sum"}
# Stated before the full run: wavefronts weigh into Efficiency only (a replay costs an issue slot but hides no
# latency, so Utilization must not grow with conflicts; see examples/carve/transpose.cu, where weighting both lets
# the 32-way conflicting tile stay on the front through its Utilization).
# Stated 2026-11-29 before scoring them: the `executed` rules take Instr and Regions from the block run (each thread
# its own loop trips) instead of the static count, which counts the tile-loading loops once.
# Stated 2026-11-29 after the sample showed the optimum dominated under the executed rules by configurations
# whose warps read 2 or 4 floats per image row (uncoalesced), and before scoring the full space or any other: the
# paper's threshold carving on coalescing, computed from the code (the block run's global sectors), then the
# executed weighted rule. "Uncoalesced" is fixed at more than twice the sectors the bytes need (coalescing < 0.5).
RULES = {"paper": ("efficiency", "utilization"), "weighted": ("weighted_efficiency", "utilization"),
         "executed": ("efficiency", "utilization"), "executed weighted": ("weighted_efficiency", "utilization"),
         "coalesced executed weighted": ("weighted_efficiency", "utilization")}
#: Where each rule's Instr and Regions come from: the static count, or the block run.
COUNTS = {"paper": ("instructions", "regions"), "weighted": ("instructions", "regions"),
          "executed": ("executed_instructions", "executed_regions"),
          "executed weighted": ("executed_instructions", "executed_regions"),
          "coalesced executed weighted": ("executed_instructions", "executed_regions")}
#: Threshold carving before the Pareto front, per rule (none unless named).
PREDICATES = {"coalesced executed weighted": ("coalescing >= 0.5",)}
#: The coalescing thresholds also reported for the last rule, to show how much its result hangs on the 0.5.
COALESCING_SWEEP = (0.25, 0.4, 0.5, 0.6, 0.75, 0.9)


def compile_space(source: Path, ran: pd.DataFrame, jobs: int) -> pd.DataFrame:
    """Static counts and wavefronts of every configuration of ``ran`` (one compile per distinct binary)."""
    text = source.read_text()
    if re.search(r"\bPADDING\b", text):
        raise SystemExit(f"{source} reads PADDING: compile both halves (this script assumes it does not)")
    distinct = ran[ran["PADDING"] == 0][PARAMS].drop_duplicates()
    compiler = ResourceCompiler(source, "Convolution", CC, jobs=jobs,
                                options=[f"-D{k}={v}" for k, v in CONSTANTS.items()])
    table = compiler.frame(distinct, params=PARAMS, counts=True, constants=CONSTANTS, progress=True)
    ok = table[table["status"] == "ok"]
    shared = shared_wavefronts_frame(ok, "Convolution", BLOCK, params=PARAMS, constants=CONSTANTS, jobs=jobs,
                                     progress=True)
    static = pd.concat([ok, shared], axis=1).drop(columns=["PADDING"])
    keys = [p for p in PARAMS if p != "PADDING"]
    return ran.merge(static, on=keys, how="left", validate="many_to_one")


def validate(frame: pd.DataFrame) -> dict[str, Any]:
    """Predicted against measured counters (launch totals) over the configurations with both."""
    values = frame.assign(**CONSTANTS)
    warps = resolve(values, BLOCKS, "blocks") * np.ceil(resolve(values, THREADS_PER_BLOCK, "threads") / 32)
    predicted = {"load": frame["shared_load_wavefronts"] * warps, "store": frame["shared_store_wavefronts"] * warps,
                 "instructions": frame["instructions"] * warps,
                 "executed_instructions": frame["executed_instructions"] * warps}
    measured = {**MEASURED, "executed_instructions": MEASURED["instructions"]}
    out: dict[str, Any] = {name: _agreement(predicted[name], frame[column]) for name, column in measured.items()}
    # Where the tiles do not divide the image, the kernel guards its loads into shared memory, so edge blocks store
    # fewer elements than the one (interior) block the run follows: split the stores by that, as the kernel does
    divides = ((CONSTANTS["IMAGE_WIDTH"] % (frame["BLOCK_SIZE_X"] * frame["TILE_SIZE_X"]) == 0)
               & (CONSTANTS["IMAGE_HEIGHT"] % (frame["BLOCK_SIZE_Y"] * frame["TILE_SIZE_Y"]) == 0))
    out["store_by_tiling"] = {
        name: _agreement(predicted["store"][mask], frame.loc[mask, MEASURED["store"]]) | {
            "predicted_over_measured_range": [float(r) for r in (predicted["store"][mask]
                                                                 / frame.loc[mask, MEASURED["store"]]).agg(["min", "max"])]}
        for name, mask in (("tiles divide the image", divides), ("edge blocks guarded", ~divides))}
    speed = (1 / frame["time"]).rank()
    out["rank_correlation_with_speed"] = {
        name: float(speed.corr((-predicted[name]).rank())) for name in ("load", "instructions", "executed_instructions")}
    out["rank_correlation_with_speed"]["measured load wavefronts"] = float(speed.corr((-frame[MEASURED["load"]]).rank()))
    out["shared_unknown_accesses"] = int(frame["shared_unknown"].fillna(0).sum())
    return out


def _agreement(predicted: pd.Series, measured: pd.Series) -> dict[str, Any]:
    """How well ``predicted`` counts match ``measured`` ones, over the configurations with both."""
    both = pd.DataFrame({"p": predicted, "m": measured}).dropna()
    relative = (both["p"] - both["m"]).abs() / both["m"]
    return {"configurations": len(both), "rank_correlation": float(both["p"].rank().corr(both["m"].rank())),
            "exact": int((both["p"].round() == both["m"].round()).sum()),
            "within_1pct": float((relative <= 0.01).mean()), "median_relative_error": float(relative.median()),
            "predicted_over_measured_median": float((both["p"] / both["m"]).median())}


def carved(frame: pd.DataFrame, rule: str, registers: str = "nvrtc",
           predicates: tuple[str, ...] | None = None) -> tuple[CarveResult, tuple[str, ...]]:
    """Carve ``frame`` by ``rule`` with ``registers`` (``"nvrtc"`` or ``"ktt"``) and ``predicates`` (default: the
    rule's own); the result keeps the constants as columns. Returns it with the predicates used."""
    column = "registers" if registers == "nvrtc" else "RegistersCount"
    shared = "shared_bytes" if registers == "nvrtc" else "LocalMemorySize"
    instructions, regions = COUNTS[rule]
    metrics = static_metrics(frame.assign(**CONSTANTS), CC, threads_per_block=THREADS_PER_BLOCK, threads=THREADS,
                             registers=column, shared=shared, instructions=instructions, regions=regions)
    predicates = tuple(predicates or PREDICATES.get(rule, ()))
    return carve(metrics, metrics=RULES[rule], params=PARAMS, predicates=predicates), predicates


def carve_scored(frame: pd.DataFrame, rule: str, registers: str,
                 predicates: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Carve by ``rule`` with ``registers`` (``"nvrtc"`` or ``"ktt"``) and score against the measured times
    (``predicates`` in place of the rule's own)."""
    result, predicates = carved(frame, rule, registers, predicates)
    kept_mask = result.frame["carved_by"] == ""
    # judged: carving had the metrics to decide (a threshold's verdict is a judgement too)
    judged_mask = result.frame["carved_by"].isin(["", "dominated", *predicates])
    times = frame["time"].to_numpy(dtype=float)
    kept_times = times[kept_mask.to_numpy()]
    best_kept = float(kept_times.min()) if len(kept_times) else float("nan")
    table = random_sampling_table(times, int(kept_mask.sum()), best_kept, name=rule, fractions=(0.95,))
    optimum = int(np.argmin(times))
    return {"rule": rule, "registers": registers, "predicates": list(predicates),
            "removed_by_threshold": int(result.frame["carved_by"].isin(predicates).sum()),
            "judged": int(judged_mask.sum()), "kept": int(kept_mask.sum()),
            "removed_share": 1 - float(kept_mask.sum()) / float(judged_mask.sum()),
            "kept_share_of_all": float(kept_mask.sum()) / len(frame),
            "optimum_ms": float(times.min()), "best_kept_ms": best_kept,
            "best_kept_relative": table["carving_relative"],
            "random_same_size_relative": table["random_relative"],
            "random_size_for_95": table["random_size_for_95"],
            "optimum_kept": bool(kept_mask.iloc[optimum]),
            "optimum_dropped_by": str(result.frame["carved_by"].iloc[optimum]) or None,
            "cannot_launch": int((~judged_mask).sum())}


def search_table(source: Path, jobs: int) -> pd.DataFrame:
    """Every configuration that ran, with its static metrics and its verdict under the paper's rule (NVRTC's
    registers): the table the ``static`` search strategy is given (``benchmarks/search_static.py``). The
    constants stay as columns: the replayed space has them as one-value parameters."""
    data = starchart.load(DATA)
    ran = data.frame[data.frame["status"] == "ok"].reset_index(drop=True)
    return carved(compile_space(source, ran, jobs), "paper")[0].frame


def other_toolkit_registers(source: Path, ran: pd.DataFrame, nvrtc: Path, ptxas: Path, n: int) -> dict[str, Any]:
    """Registers from another CUDA toolkit (NVRTC library and ptxas, e.g. 11.8 from PyPI) on ``n`` sampled
    configurations, beside NVRTC 12.9's and the measured binaries'."""
    import dataclasses

    from starchart.carve.toolchain import Tool, _nvrtc_version, _probe

    here = find_toolchain()
    other = dataclasses.replace(here, nvrtc=(Tool(nvrtc, _nvrtc_version(nvrtc)),),
                                ptxas=(Tool(ptxas, _probe(ptxas)[0]),), nvcc=())
    options = [f"-D{k}={v}" for k, v in CONSTANTS.items()]
    compilers = {"other": ResourceCompiler(source, "Convolution", CC, options=options, toolchain=other),
                 "nvrtc": ResourceCompiler(source, "Convolution", CC, options=options)}
    sample = ran[ran["PADDING"] == 0].sample(n, random_state=1)
    rows = []
    for _, row in sample.iterrows():
        config = {p: int(row[p]) for p in PARAMS}
        counts = {name: c.compile(config).usage for name, c in compilers.items()}
        rows.append({**config, "ktt": int(row["RegistersCount"]),
                     **{name: (u.registers if u else None) for name, u in counts.items()}})
    table = pd.DataFrame(rows)
    return {"toolkit": f"NVRTC {_nvrtc_version(nvrtc)}, ptxas {_probe(ptxas)[0]}", "sampled": n,
            "same_as_nvrtc_12_9": int((table["other"] == table["nvrtc"]).sum()),
            "within_one_of_nvrtc_12_9": int(((table["other"] - table["nvrtc"]).abs() <= 1).sum()),
            "same_as_ktt": int((table["other"] == table["ktt"]).sum()), "rows": rows}


def toolchain_text() -> str:
    """The tools that compiled and disassembled, e.g. ``NVRTC 12.9, ptxas 12.9, nvdisasm 13.5``."""
    tc = find_toolchain()
    sm = int(CC.replace(".", ""))
    tools = [("NVRTC", tc.nvrtc[0] if tc.nvrtc else None), ("ptxas", tc.pick("ptxas", sm)),
             ("nvdisasm", tc.pick("nvdisasm", sm))]
    return ", ".join(f"{name} {'.'.join(map(str, tool.version or ()))}" for name, tool in tools if tool)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE,
                        help="KTT's KernelTunerConvolution.cu (default: the copy in benchmarks/carving)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="configurations compiled at once (default 2)")
    parser.add_argument("--limit", type=int, default=0,
                        help="only the first N binaries of a fixed shuffle (and their PADDING twins); written to "
                             "carving_conflicts_sample.json")
    parser.add_argument("--other-toolkit", nargs=2, type=Path, metavar=("LIBNVRTC", "PTXAS"),
                        help="also compare the registers another toolkit gives on --other-sample configurations, "
                             "e.g. CUDA 11.8's from `pip install --target DIR nvidia-cuda-nvrtc-cu11 "
                             "nvidia-cuda-nvcc-cu11`")
    parser.add_argument("--other-sample", type=int, default=30, help="configurations for --other-toolkit")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"{DATA} not found: the measured data is needed")
    if not args.source.is_file():
        sys.exit(f"{args.source}: no such file (see this script's docstring for where to get it)")
    data = starchart.load(DATA)
    ran = data.frame[data.frame["status"] == "ok"].reset_index(drop=True)
    if args.limit:  # the first of a fixed shuffle of the PADDING=0 half, with their PADDING=1 twins
        half = ran[ran["PADDING"] == 0].sample(frac=1.0, random_state=0).head(args.limit)
        keys = [p for p in PARAMS if p != "PADDING"]
        ran = ran.merge(half[keys], on=keys).reset_index(drop=True)
    frame = compile_space(args.source, ran, args.jobs)
    checks = validate(frame)
    same = (frame["registers"] == frame["RegistersCount"]).mean()
    registers = {"same_share": float(same),
                 "nvrtc_over_ktt_median": float((frame["registers"] / frame["RegistersCount"]).median()),
                 "nvrtc_over_ktt_range": [float((frame["registers"] / frame["RegistersCount"]).min()),
                                          float((frame["registers"] / frame["RegistersCount"]).max())]}
    if args.other_toolkit:
        registers["other_toolkit"] = other_toolkit_registers(args.source, ran, *args.other_toolkit, args.other_sample)
    sweep = [carve_scored(frame, "coalesced executed weighted", "nvrtc", (f"coalescing >= {c}",))
             for c in COALESCING_SWEEP]
    for name, row in checks.items():
        print(name, row)
    print("registers", {k: v for k, v in registers.items() if k != "other_toolkit"})
    for row in sweep:
        print(row["predicates"], "kept", row["kept"], "best kept", round(row["best_kept_relative"], 3))
    if args.other_toolkit:
        print("other toolkit", {k: v for k, v in registers["other_toolkit"].items() if k != "rows"})
    rows = [carve_scored(frame, rule, regs) for regs in ("nvrtc", "ktt") for rule in RULES]
    command = f"python benchmarks/carving_conflicts.py --source {args.source.name}" + (
        f" --limit {args.limit}" if args.limit else "") + (
        f" --other-toolkit libnvrtc.so.11.2 ptxas --other-sample {args.other_sample}" if args.other_toolkit else "")
    # a sample is its own record (validation and registers hold on it; carving a sample is not carving the space)
    report("carving_conflicts_sample" if args.limit else "carving_conflicts",
           "Carving KTT convolution (RTX 2080 Ti) from the compiler's view, with and without bank conflicts", rows,
           extra={"validation": checks, "registers": registers, "toolchain": toolchain_text(),
                  "coalescing_sweep": sweep,
                  "coalescing_by_block_size_x": frame.groupby("BLOCK_SIZE_X")["coalescing"].median().to_dict(),
                  "rules": {k: f"Pareto front of {v}, Instr and Regions from {COUNTS[k]}, paper's dominance, "
                                f"predicates {list(PREDICATES.get(k, ())) or 'none'}, within=0"
                            for k, v in RULES.items()},
                  "source": "HiPerCoRe/KTT Examples/KernelTunerConvolution/KernelTunerConvolution.cu @ 6a8cea9a",
                  "source_sha256": hashlib.sha256(args.source.read_bytes()).hexdigest(),
                  "sample": args.limit or None, "command": command})


if __name__ == "__main__":
    main()
