"""Carving inputs without a GPU: the occupancy calculator against NVIDIA's, and a whole space compiled.

1. ``occupancy``: our calculator against NVIDIA's own ``cuda_occupancy.h`` (CUDA toolkit header, built
   with g++ as a black-box oracle from tests/data/ptxas/occupancy_oracle.cpp) on a grid of block sizes,
   registers, shared memory (static, dynamic, opt-in, carveouts) and named barriers for every compute capability:
   blocks per SM and every per-resource limit must agree.
2. ``compile``: every configuration of examples/carve/matmul.cu (TILE × WPT × UNROLL, 45 configurations)
   compiled for each compute capability with NVRTC + ptxas (the ``carve`` extra; nvcc 13 for 11.0, which
   CUDA 12.9 does not know), cold and cached:
   seconds per configuration, register range, and the occupancy that follows.
3. ``counts``: SASS instruction counts of the whole space (sm_86) against facts of the kernel that hold
   whatever the compiler does: N × WPT FFMAs per thread, 2 barriers and 1 load-consuming instruction per
   tile step (N / TILE steps).

Run: ``nice python benchmarks/bench_carve_resources.py`` (about a minute on 2 cores).
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import shutil
import subprocess
import tempfile
import time
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
from common import ROOT, report

from starchart.carve import occupancy_frame
from starchart.carve.occupancy import LIMITS, UNLIMITED
from starchart.carve.resources import ResourceCompiler
from starchart.carve.toolchain import find_toolchain

ORACLE = ROOT / "tests" / "data" / "ptxas" / "occupancy_oracle.cpp"
MATMUL = ROOT / "examples" / "carve" / "matmul.cu"
CCS = list(LIMITS)  # every compute capability the calculator knows
COLUMNS = ["cc", "threads", "registers", "static_shared", "dynamic_shared", "opt_in", "carveout", "error",
           "blocks_per_sm", "limiting_bits", "limit_registers", "limit_shared", "limit_warps", "limit_blocks",
           "registers_per_block", "shared_per_block", "barriers", "limit_barriers"]


def oracle_rows(tmp: Path) -> tuple[list[dict], dict]:
    include = next((Path(p) / "include" for p in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda")
                    if p and (Path(p) / "include" / "cuda_occupancy.h").exists()), None)
    compiler = shutil.which("g++")
    if include is None or compiler is None:
        return [], {"occupancy_oracle": "skipped: needs g++ and the CUDA toolkit's cuda_occupancy.h"}
    exe = tmp / "oracle"
    subprocess.run([compiler, "-O1", "-std=c++14", f"-I{include}", str(ORACLE), "-o", str(exe)], check=True)
    threads = [1, 31, 32, 33, 64, 96, 100, 128, 192, 256, 320, 384, 512, 640, 768, 1024]
    registers = [0, 1, 8, 16, 24, 32, 33, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 255]
    shared = [0, 1, 100, 1000, 2048, 4096, 8192, 12345, 16384, 24576, 32768, 40000, 49152, 49153, 65536, 98304,
              102400, 140000, 166912, 167936, 200000, 232448, 233472]
    cases = [(cc, t, r, s, 0, o, -1, b)
             for cc, t, r, s, o, b in itertools.product(CCS, threads, registers, shared, (0, 1), (0, 3))]
    rnd = random.Random(7)
    for _ in range(20000):
        cases.append((rnd.choice(CCS), rnd.randint(1, 1024), rnd.randint(0, 255), rnd.randint(0, 60000),
                      rnd.choice([0, 0, rnd.randint(0, 240000)]), rnd.randint(0, 1),
                      rnd.choice([-1, 0, 10, 25, 50, 75, 100]), rnd.choice([0, 1, 2, 4, rnd.randint(5, 16)])))
    text = "\n".join(f"{cc.replace('.', ' ')} {t} {r} {s} {d} {o} {c} {b}" for cc, t, r, s, d, o, c, b in cases) + "\n"
    out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True).stdout
    table = pd.read_csv(StringIO(",".join(COLUMNS) + "\n" + out), dtype={"cc": str})
    rows = []
    for cc, group in table.groupby("cc"):
        compared = mismatched = limits_bad = launchable_n = 0
        for (opt_in, carveout), g in group.groupby(["opt_in", "carveout"]):
            ours = occupancy_frame(g, cc, threads="threads", registers="registers", shared="static_shared",
                                   dynamic_shared="dynamic_shared", opt_in=bool(opt_in),
                                   carveout=None if carveout < 0 else float(carveout), barriers="barriers")
            blocks = ours.blocks_per_sm.to_numpy()
            mismatched += int((blocks != g.blocks_per_sm.to_numpy()).sum())
            launchable = g.blocks_per_sm.to_numpy() > 0
            for column in ("limit_registers", "limit_shared", "limit_warps", "limit_blocks", "limit_barriers"):
                mine = np.where(ours[column].to_numpy() == UNLIMITED, -1, ours[column].to_numpy())
                limits_bad += int((mine[launchable] != g[column].to_numpy()[launchable]).sum())
            compared += len(g)
            launchable_n += int(launchable.sum())
        rows.append({"part": "occupancy", "cc": cc, "cases": compared, "launchable": launchable_n,
                     "blocks_mismatch": mismatched, "limit_mismatch": limits_bad})
    return rows, {"occupancy_oracle": f"cuda_occupancy.h from {include}", "oracle_cases": len(table),
                  "note": "cases with more than 255 registers are absent: the header does not check that limit"}


def space() -> pd.DataFrame:
    return pd.DataFrame([{"TILE": t, "WPT": w, "UNROLL": u} for t in (8, 16, 32) for w in (1, 2, 4)
                         for u in (1, 2, 4, 8, 16, 32) if u <= t and t % w == 0])


def compile_rows(tmp: Path) -> list[dict]:
    configs = space()
    rows = []
    for cc in CCS:
        # NVRTC where it targets the capability (the carve extra's 12.9 has no sm_110: nvcc 13 then)
        rc = ResourceCompiler(MATMUL, "matmul", cc, cache_dir=tmp / "cache", backend="auto")
        start = time.perf_counter()
        out = rc.frame(configs)
        cold = time.perf_counter() - start
        start = time.perf_counter()
        rc.frame(configs)
        warm = time.perf_counter() - start
        ok = out[out.status == "ok"]
        occ = occupancy_frame(ok, cc, threads=lambda f: f.TILE * f.TILE // f.WPT, registers="registers",
                              shared="shared_bytes")
        tools = rc.compile(configs.iloc[0].to_dict()).tools
        rows.append({"part": "compile", "cc": cc, "cases": len(out), "ok": len(ok), "tools": tools,
                     "s_per_config_cold": cold / len(out), "s_per_config_cached": warm / len(out),
                     "registers_min": int(ok.registers.min()), "registers_max": int(ok.registers.max()),
                     "spilling": int((ok.spill_stores > 0).sum()),
                     "occupancy_min": float(occ.occupancy.min()), "occupancy_max": float(occ.occupancy.max())})
    return rows


def count_rows(tmp: Path) -> list[dict]:
    configs = space()
    rc = ResourceCompiler(MATMUL, "matmul", "8.6", cache_dir=tmp / "cache", backend="nvrtc")
    start = time.perf_counter()
    out = rc.frame(configs, trip_counts="source", constants={"N": 1024})
    seconds = time.perf_counter() - start
    steps = 1024 / out.TILE
    return [{"part": "counts", "cc": "8.6", "cases": len(out), "seconds": seconds,
             "fp32_is_N_x_WPT": int((out.n_fp32 == 1024 * out.WPT).sum()),
             "barriers_is_2_steps": int((out.barriers_executed == 2 * steps).sum()),
             "consumers_is_steps": int((out.load_consumers == steps).sum()),
             "annotation_overridden": int((out.trip_notes != "").sum()),
             "instructions_min": float(out.instructions.min()), "instructions_max": float(out.instructions.max())}]


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-carve-"))
    try:
        occupancy, extra = oracle_rows(tmp)
        tc = find_toolchain()
        extra["toolchain"] = tc.describe()
        compiled = compile_rows(tmp) if tc.nvrtc and tc.ptxas else []
        counted = count_rows(tmp) if compiled and tc.nvdisasm else []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if occupancy:
        report("carve_occupancy_oracle", "Occupancy: ours vs NVIDIA cuda_occupancy.h", occupancy, extra)
    else:
        print(f"occupancy oracle {extra['occupancy_oracle']} (CUDA_HOME or /usr/local/cuda)")
    if compiled:
        report("carve_compile", "matmul.cu compiled for every compute capability (NVRTC + ptxas or nvcc, no GPU)",
               compiled, {"toolchain": extra["toolchain"]})
    else:
        print('compile: skipped, needs NVRTC and ptxas (pip install ".[carve]")')
    if counted:
        report("carve_sass_counts", "SASS instruction counts of the matmul space vs the kernel's arithmetic",
               counted, {"toolchain": extra["toolchain"]})
    elif compiled:
        print('counts: skipped, needs nvdisasm (pip install ".[carve]")')


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
