"""The occupancy calculator against NVIDIA's published limits, worked examples and NVIDIA's own calculator."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from starchart.carve import (
    LIMITS,
    device_limits,
    occupancy,
    occupancy_frame,
    shared_carveout,
)
from starchart.carve.occupancy import UNLIMITED
from starchart.errors import InputError

DATA = Path(__file__).parent / "data" / "ptxas"
KB = 1024

# --- the limits table ------------------------------------------------------------------------------
# CUDA C++ Programming Guide, "Compute Capabilities", Table 30 "Device and Streaming Multiprocessor (SM)
# Information per Compute Capability" and Table 31 "Memory Information per Compute Capability"
# (https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/compute-capabilities.html, the 13.x
# guide, which starts at 7.5); 7.0 from the 12.x guide's "Technical Specifications per Compute Capability"
# table and §20.6.4 (Volta: 96 KB of shared memory per SM and per block). Columns: resident blocks,
# warps and threads per SM, shared memory per SM and per block (with opt-in), in KB.
GUIDE_TABLE = {
    "7.0": (32, 64, 2048, 96, 96),
    "7.5": (16, 32, 1024, 64, 64),
    "8.0": (32, 64, 2048, 164, 163),
    "8.6": (16, 48, 1536, 100, 99),
    "8.9": (24, 48, 1536, 100, 99),
    "9.0": (32, 64, 2048, 228, 227),
}
# Table 32 "Shared Memory Capacity per Compute Capability" (SMEM capacity sizes, KB); 7.0 from §20.6.4.
GUIDE_CARVEOUTS = {
    "7.0": (0, 8, 16, 32, 64, 96),
    "7.5": (32, 64),
    "8.0": (0, 8, 16, 32, 64, 100, 132, 164),
    "8.6": (0, 8, 16, 32, 64, 100),
    "8.9": (0, 8, 16, 32, 64, 100),
    "9.0": (0, 8, 16, 32, 64, 100, 132, 164, 196, 228),
}


@pytest.mark.parametrize("cc", sorted(GUIDE_TABLE))
def test_limits_match_the_programming_guide_tables(cc):
    blocks, warps, threads, smem_sm, smem_block = GUIDE_TABLE[cc]
    lim = device_limits(cc)
    assert (lim.max_blocks_per_sm, lim.max_warps_per_sm, lim.max_threads_per_sm) == (blocks, warps, threads)
    assert (lim.shared_per_sm, lim.max_shared_per_block_optin) == (smem_sm * KB, smem_block * KB)
    assert lim.shared_carveouts == tuple(c * KB for c in GUIDE_CARVEOUTS[cc])
    # Same table, every column: 64 K registers per SM and per block, 255 per thread, 1024 threads per block.
    assert (lim.registers_per_sm, lim.max_registers_per_block, lim.max_registers_per_thread) == (65536, 65536, 255)
    assert lim.max_threads_per_block == 1024 and lim.max_shared_per_block == 48 * KB
    # §20.7.3 / §20.8.3: "The 1 KB of shared memory not made available to a thread block is reserved for
    # system use" (8.x, 9.0): per-block opt-in limit + 1 KB = per-SM maximum there.
    assert lim.reserved_shared_per_block == (KB if cc >= "8.0" else 0)
    if cc >= "8.0":
        assert lim.max_shared_per_block_optin + lim.reserved_shared_per_block == lim.shared_per_sm


def test_compute_capability_spellings_and_unknown():
    assert {device_limits(x).cc for x in ("8.6", 8.6, 86, "86", "sm_86", "SM86", "compute_86", (8, 6))} == {"8.6"}
    assert device_limits(device_limits("9.0")) is LIMITS["9.0"]
    with pytest.raises(InputError, match=r"unknown compute capability '6.1'.*7.0, 7.5"):
        device_limits("6.1")


# --- worked examples written down by others ---------------------------------------------------------

def test_best_practices_guide_register_granularity_example():
    # CUDA C++ Best Practices Guide, "Calculating Occupancy": "on a device of compute capability 7.0, a kernel
    # with 128-thread blocks using 37 registers per thread results in an occupancy of 75% with 12 active
    # 128-thread blocks per multi-processor, whereas a kernel with 320-thread blocks using the same 37
    # registers per thread results in an occupancy of 63% because only four 320-thread blocks can reside on a
    # multiprocessor. Furthermore, register allocations are rounded up to the nearest 256 registers per warp."
    small = occupancy("7.0", 128, 37)
    assert (small.blocks_per_sm, small.occupancy, small.limiting) == (12, 0.75, ("registers",))
    large = occupancy("7.0", 320, 37)
    assert large.blocks_per_sm == 4 and large.occupancy == 0.625  # "63%"
    assert small.registers_per_block == 4 * 1280  # 37 × 32 = 1184 → 1280 per warp


def test_spreadsheet_rules_as_ported_by_cuda_calculator():
    # NVIDIA's CUDA Occupancy Calculator spreadsheet as ported to CoffeeScript in fabiodrg/cuda-calculator
    # (js/calculator.coffee): registers per warp = ceil(regs × 32, 256); warps limited by registers =
    # floor(65536 / that, 4); shared memory rounded up to 256 B (7.x) / 128 B (8.x).
    # 8.6, 256 threads, 40 registers, 16 KB: 1280 per warp, 48 warps → 6 blocks by registers; 8 warps per
    # block → 6 by warps; (16384 + 1024 reserved) → 17408 B per block → 5 by shared memory.
    r = occupancy("8.6", 256, 40, 16384)
    assert r.limits == {"warps": 6, "blocks": 16, "registers": 6, "shared": 5, "barriers": UNLIMITED}
    assert (r.blocks_per_sm, r.limiting, r.shared_per_block) == (5, ("shared",), 17408)
    # 7.5: 256-byte shared allocation unit, no reserved memory: 12345 B → 12544 B → 5 blocks in 64 KB.
    assert occupancy("7.5", 64, 16, 12345).limits["shared"] == 65536 // 12544 == 5


def test_ryoo_register_cliff_on_a_modern_sm():
    # Ryoo et al. §2.2: one more register per thread can drop a whole block per SM. On 7.5 (64 K registers,
    # 32 warps), 256 threads × 64 registers fit 4 blocks (the warp limit too); 65 → 72 per thread → 3 blocks.
    assert occupancy("7.5", 256, 64).blocks_per_sm == 4
    assert occupancy("7.5", 256, 65).blocks_per_sm == 3


# --- invalid launches are results, not errors ------------------------------------------------------

@pytest.mark.parametrize("args, kwargs, words", [
    ((2048, 32), {}, "more than 1024 threads"),
    ((256, 256), {}, "more than 255 registers"),
    ((1024, 72), {}, "73728 registers per block"),
    ((320, 200), {}, "registers are granted to 4 warps at a time"),
    ((128, 32, 60 * KB), {}, "pass opt_in=True"),
    ((128, 32, 200 * KB), {"opt_in": True}, "above the 166912 allowed"),
    ((0, 32), {}, "at least one thread"),
])
def test_invalid_launches_say_why(args, kwargs, words):
    r = occupancy("8.0", *args, **kwargs)
    assert not r.valid and r.blocks_per_sm == 0 and r.occupancy == 0 and r.limiting == ()
    assert words in r.reason


def test_opt_in_and_dynamic_shared_memory():
    assert not occupancy("9.0", 256, 32, 40 * KB, dynamic_shared_bytes=20 * KB).valid
    r = occupancy("9.0", 256, 32, 40 * KB, dynamic_shared_bytes=20 * KB, opt_in=True)
    assert r.valid and r.shared_per_block == 61 * KB and r.blocks_per_sm == 228 // 61  # 3


def test_carveout_preference():
    # Programming Guide §20.7.3: "for devices of compute capability 8.0, 50% will map to a 100 KB carveout";
    # §20.6.4: on 7.0, 50 % of 96 KB is 48 KB, "rounded up to 64 KB".
    assert shared_carveout("8.0", 50) == 100 * KB and shared_carveout("7.0", 50) == 64 * KB
    assert occupancy("8.0", 64, 16, 10 * KB, carveout=50).limits["shared"] == 100 // 11  # 11 KB per block
    # A preference too small for one block grows to the smallest capacity that holds it (the driver's hint rule).
    r = occupancy("8.0", 64, 16, 10 * KB, carveout=0)
    assert r.shared_per_sm == 16 * KB and r.blocks_per_sm == 1
    with pytest.raises(InputError, match="percentage"):
        shared_carveout("8.0", 150)


def test_unused_resources_do_not_limit():
    r = occupancy("9.0", 32, 0, 0)
    assert r.limits["registers"] == UNLIMITED and r.limiting == ("blocks",) and r.blocks_per_sm == 32
    # The 1 KB reserved per block still counts on 9.0: 228 blocks' worth, far above the 32-block cap.
    assert r.limits["shared"] == 228


def test_bad_input_raises_one_clear_error():
    with pytest.raises(InputError, match="must not be negative"):
        occupancy("8.0", 128, -1)
    with pytest.raises(InputError, match="whole numbers"):
        occupancy("8.0", 128.5, 32)
    with pytest.raises(InputError, match="occupancy_frame"):
        occupancy("8.0", [128, 256], 32)


# --- the vectorised variant ------------------------------------------------------------------------

def test_frame_matches_scalar_calls_and_accepts_columns_functions_constants():
    rng = np.random.default_rng(3)
    f = pd.DataFrame({"bx": rng.choice([16, 32, 64, 128], 300), "by": rng.choice([1, 2, 4, 8], 300),
                      "regs": rng.integers(0, 256, 300), "smem": rng.integers(0, 60000, 300)},
                     index=pd.RangeIndex(100, 400))
    out = occupancy_frame(f, "8.9", threads=lambda d: d.bx * d.by, registers="regs", shared=f["smem"],
                          dynamic_shared=512, opt_in=True)
    assert list(out.index) == list(f.index)
    for i in f.index[::7]:
        row = f.loc[i]
        one = occupancy("8.9", int(row.bx * row.by), int(row.regs), int(row.smem), dynamic_shared_bytes=512,
                        opt_in=True)
        got = out.loc[i]
        assert (got.blocks_per_sm, got.valid, got.reason, got.limiting) == \
               (one.blocks_per_sm, one.valid, one.reason, "+".join(one.limiting))
        assert got.occupancy == pytest.approx(one.occupancy)
    with pytest.raises(InputError, match="no column 'nope'"):
        occupancy_frame(f, "8.9", threads="nope")


def test_frame_takes_nullable_columns_and_names_missing_values():
    # ResourceCompiler.frame gives nullable Int64 columns, <NA> where a configuration did not compile.
    f = pd.DataFrame({"t": [128, 256], "r": pd.array([32, 40], dtype="Int64"), "s": pd.array([0, 4096], dtype="Int64")})
    assert occupancy_frame(f, "8.0", threads="t", registers="r", shared="s").blocks_per_sm.tolist() == [16, 6]
    f.loc[1, "r"] = pd.NA
    with pytest.raises(InputError, match="got nan.*failed to compile"):
        occupancy_frame(f, "8.0", threads="t", registers="r", shared="s")


# --- NVIDIA's own calculator as an oracle ----------------------------------------------------------

ORACLE_COLUMNS = ["limit_registers", "limit_shared", "limit_warps", "limit_blocks"]


def _compare_with_oracle(table: pd.DataFrame) -> int:
    """Compare every oracle row with occupancy_frame; returns the number of rows compared."""
    compared = 0
    with_barriers = "barriers" in table.columns  # the stored fixture predates them: 0, not counted
    for (cc, opt_in, carveout), group in table.groupby(["cc", "opt_in", "carveout"]):
        # cuda_occupancy.h does not check the 255-registers-per-thread limit (ptxas never exceeds it); we do.
        group = group[group.registers <= 255]
        ours = occupancy_frame(group, f"{cc:.1f}" if isinstance(cc, float) else str(cc), threads="threads",
                               registers="registers", shared="static_shared", dynamic_shared="dynamic_shared",
                               opt_in=bool(opt_in), carveout=None if carveout < 0 else float(carveout),
                               barriers="barriers" if with_barriers else 0)
        assert (ours.blocks_per_sm.to_numpy() == group.blocks_per_sm.to_numpy()).all(), \
            group[ours.blocks_per_sm.to_numpy() != group.blocks_per_sm.to_numpy()].head()
        assert (ours.valid.to_numpy() == (group.blocks_per_sm.to_numpy() > 0)).all()
        launchable = group.blocks_per_sm.to_numpy() > 0
        for column in ORACLE_COLUMNS + ["limit_barriers"] * with_barriers:
            mine = ours[column].to_numpy()
            mine = np.where(mine == UNLIMITED, -1, mine)  # the oracle writes INT_MAX as -1
            assert (mine[launchable] == group[column].to_numpy()[launchable]).all(), (cc, column)
        assert (ours.registers_per_block.to_numpy()[launchable] ==
                group.registers_per_block.to_numpy()[launchable]).all()
        assert (ours.shared_per_block.to_numpy()[launchable] == group.shared_per_block.to_numpy()[launchable]).all()
        compared += len(group)
    return compared


def test_matches_cuda_occupancy_h_fixture():
    # 702 cases (all six compute capabilities, opt-in, dynamic shared memory, carveouts) computed by NVIDIA's
    # cuda_occupancy.h (CUDA 13.0) through tests/data/ptxas/occupancy_oracle.cpp; see the README there.
    table = pd.read_csv(DATA / "occupancy_oracle.csv", dtype={"cc": str})
    assert (table.error == 0).all()
    assert _compare_with_oracle(table) >= 650


def _oracle_binary(tmp_path: Path) -> Path:
    compiler = shutil.which("g++") or shutil.which("c++")
    headers = [Path(p) / "include" for p in ("/usr/local/cuda",) if (Path(p) / "include" / "cuda_occupancy.h").exists()]
    import os
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var) and (Path(os.environ[var]) / "include" / "cuda_occupancy.h").exists():
            headers.insert(0, Path(os.environ[var]) / "include")
    if not compiler or not headers:
        pytest.skip("live oracle needs a C++ compiler and the CUDA toolkit's cuda_occupancy.h "
                    "(set CUDA_HOME); the stored fixture test still runs")
    exe = tmp_path / "oracle"
    subprocess.run([compiler, "-O1", "-std=c++14", f"-I{headers[0]}", str(DATA / "occupancy_oracle.cpp"), "-o", str(exe)],
                   check=True, capture_output=True, timeout=120)
    return exe


def test_matches_cuda_occupancy_h_live_on_random_cases(tmp_path):
    exe = _oracle_binary(tmp_path)
    rnd = random.Random(20240601)
    ccs = [tuple(map(int, cc.split("."))) for cc in LIMITS]  # 8.7, 10.3, 11.0, 12.1 too (the oracle has them)
    lines = []
    for _ in range(6000):
        major, minor = rnd.choice(ccs)
        lines.append(" ".join(map(str, (
            major, minor, rnd.choice([rnd.randint(1, 1024), 32 * rnd.randint(1, 32)]), rnd.randint(0, 255),
            rnd.choice([0, rnd.randint(0, 49152)]), rnd.choice([0, 0, rnd.randint(0, 240000)]), rnd.randint(0, 1),
            rnd.choice([-1, -1, 0, 10, 25, 50, 75, 100]), rnd.choice([0, 1, 1, 2, 3, 4, rnd.randint(5, 16)])))))
    out = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True,
                         timeout=60).stdout
    header = ("cc,threads,registers,static_shared,dynamic_shared,opt_in,carveout,error,blocks_per_sm,limiting_bits,"
              "limit_registers,limit_shared,limit_warps,limit_blocks,registers_per_block,shared_per_block,barriers,"
              "limit_barriers")
    from io import StringIO
    table = pd.read_csv(StringIO(header + "\n" + out), dtype={"cc": str})
    assert len(table) == 6000 and (table.error == 0).all() and set(table.cc) == set(LIMITS)
    assert _compare_with_oracle(table) == 6000
