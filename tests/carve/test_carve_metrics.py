"""Efficiency and Utilization (Ryoo et al. 2008, eqs. 1–2) from counts and from profiler counters."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from starchart.carve.metrics import (
    blocks_per_sm,
    carving_metrics,
    counter_metrics,
    efficiency,
    resolve,
    static_metrics,
    utilization,
    warps_per_block,
)
from starchart.errors import InputError


def test_paper_worked_example():
    # §4.2: 13 registers, 256 threads/block → B_SM = floor(8192 / (13·256)) = 2 on the 8800;
    # Instr = 15,150, Regions = 512 + 256 + 1 = 769, Threads = 2^24 → 3.93e-12 and 227.
    assert efficiency(15150, 2**24) == pytest.approx(3.93e-12, rel=1e-3)
    assert warps_per_block(256) == 8
    assert utilization(15150, 769, 8, 2) == pytest.approx(227, abs=0.5)
    # by hand: 15150 / 769 × (7/2 + 1·8)
    assert utilization(15150, 769, 8, 2) == pytest.approx(15150 / 769 * 11.5)


def test_utilization_terms_by_hand():
    # W_TB = 4, B_SM = 3: other warps = 3/2 + 2·4 = 9.5; 120 instructions in 6 regions → 20 · 9.5
    assert utilization(120, 6, 4, 3) == pytest.approx(190.0)
    # one warp per block and one block per SM: nothing to switch to
    assert utilization(120, 6, 1, 1) == 0.0
    # a block that does not fit (B_SM = 0) or a zero region count cannot be judged
    assert np.isnan(utilization(120, 6, 4, 0))
    assert np.isnan(utilization(120, 0, 4, 2))


def test_efficiency_vectorised_and_nonpositive():
    out = efficiency([10, 20, 0], [4, 4, 4])
    assert out[:2].tolist() == [1 / 40, 1 / 80]
    assert np.isnan(out[2])


def test_warps_round_up():
    assert warps_per_block([1, 32, 33, 1024]).tolist() == [1, 1, 2, 32]
    assert warps_per_block(64, warp_size=64).tolist() == 1


def test_carving_metrics_columns_and_expressions():
    df = pd.DataFrame({"bx": [16, 32], "by": [16, 8], "n": [4096, 4096], "instr": [15150.0, 9000.0],
                       "reg": [769, 301]})
    out = carving_metrics(df, instructions="instr", regions="reg", threads="n * n", threads_per_block="bx * by",
                          blocks_on_sm=[2, 3])
    assert out["warps_per_block"].tolist() == [8, 8]
    assert out["efficiency"].tolist() == pytest.approx([1 / (15150 * 4096**2), 1 / (9000 * 4096**2)])
    assert out["utilization"].tolist() == pytest.approx([15150 / 769 * 11.5, 9000 / 301 * (3.5 + 16)])
    assert "efficiency" not in df.columns  # the input is not modified


def test_counter_metrics_by_hand_with_stand_in_occupancy():
    calls = []

    def fake_occupancy(cc, threads, registers, shared):
        calls.append((cc, threads, registers, shared))
        return SimpleNamespace(blocks_per_sm=65536 // (threads * registers), limiting=("registers",))

    df = pd.DataFrame({"bx": [64, 64, 128], "regs": [32, 32, 64], "smem": [1024, 1024, 0],
                       "warp_inst": [2.0e6, 2.0e6, 1.0e6], "loads": [8.0e4, 8.0e4, 4.0e4]})
    out = counter_metrics(df, "7.5", threads_per_block="bx", threads=64_000, warp_instructions="warp_inst",
                          global_loads="loads", registers="regs", shared="smem", barriers_per_thread=2,
                          occupancy=fake_occupancy)
    assert calls == [("7.5", 64, 32, 1024), ("7.5", 128, 64, 0)]  # once per distinct triple
    # 64 threads/block: 1000 blocks × 2 warps = 2000 warps; Instr = 2e6 / 2000 = 1000;
    # loads/warp = 40 → Regions = 40 + 2 + 1 = 43; B_SM = 65536 / 2048 = 32; other warps = 0.5 + 31·2
    assert out["instr"].iloc[0] == pytest.approx(1000)
    assert out["regions"].iloc[0] == pytest.approx(43)
    assert out["blocks_per_sm"].iloc[0] == 32
    assert out["utilization"].iloc[0] == pytest.approx(1000 / 43 * 62.5)
    assert out["efficiency"].iloc[0] == pytest.approx(1 / (2.0e6 * 32))
    # 128 threads/block: 500 blocks × 4 warps; Instr = 500; loads/warp = 20; B_SM = 8
    assert out["utilization"].iloc[2] == pytest.approx(500 / 23 * (1.5 + 7 * 4))
    assert out["limiter"].tolist() == ["registers"] * 3
    batched = counter_metrics(df, threads_per_block="bx", threads=64_000, warp_instructions="warp_inst",
                              global_loads="loads", blocks_on_sm=[32, 32, 8], loads_per_region=4)
    assert batched["regions"].iloc[0] == pytest.approx(40 / 4 + 1 + 1)
    # extra (weighted) instructions count in both metrics, as the paper's multi-cycle instructions do
    weighted = counter_metrics(df, threads_per_block="bx", threads=64_000, warp_instructions="warp_inst",
                               global_loads="loads", blocks_on_sm=[32, 32, 8], extra_instructions="loads * 5")
    assert weighted["instr"].iloc[0] == pytest.approx((2.0e6 + 4.0e5) / 2000)
    assert weighted["efficiency"].iloc[0] == pytest.approx(1 / (2.4e6 * 32))


def test_counter_metrics_missing_counters_give_nan():
    df = pd.DataFrame({"bx": [64, 64], "smsp__inst_executed.sum": [1e6, np.nan],
                       "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": [1e4, np.nan]})
    out = counter_metrics(df, threads_per_block="bx", threads=6400, blocks_on_sm=[4, np.nan])
    assert np.isfinite(out.loc[0, ["efficiency", "utilization"]]).all()
    assert out.loc[1, ["efficiency", "utilization"]].isna().all()


def test_blocks_per_sm_skips_missing_resources():
    seen = []

    def occ(cc, t, r, s):
        seen.append((t, r, s))
        return SimpleNamespace(blocks_per_sm=2)

    df = pd.DataFrame({"t": [64, 64], "r": [32, np.nan], "s": [0, 0]})
    out = blocks_per_sm(df, 8.0, threads_per_block="t", registers="r", shared="s", occupancy=occ)
    assert seen == [(64, 32, 0)]
    assert out["blocks_per_sm"].iloc[0] == 2 and np.isnan(out["blocks_per_sm"].iloc[1])
    assert out["limiter"].tolist() == ["", "unknown"]


def test_bad_columns_are_clear_input_errors():
    df = pd.DataFrame({"bx": [32], "a.b": [1.0], "name": ["x"]})
    with pytest.raises(InputError, match="unknown column 'by'") as err:
        resolve(df, "bx * by", "threads per block")
    assert "bx" in str(err.value) and "`a.b`" in str(err.value)  # lists the columns, quoting dotted ones
    with pytest.raises(InputError, match="not numeric"):
        resolve(df, "name", "threads")
    with pytest.raises(InputError, match="2 values for 1"):
        resolve(df, np.array([1.0, 2.0]), "threads")
    with pytest.raises(InputError, match="cannot be evaluated"):
        resolve(df, "bx *", "threads")
    with pytest.raises(InputError, match="compute capability"):
        counter_metrics(df, threads_per_block="bx", threads=32, warp_instructions="bx", global_loads="bx")
    with pytest.raises(InputError, match=r"threads 'bx - 32' is 0 for row 0, not a thread count"):
        counter_metrics(df, threads_per_block=32, threads="bx - 32", blocks_on_sm=1, warp_instructions="bx",
                        global_loads="bx")
    with pytest.raises(InputError, match="threads per block 'bx - 64' is -32"):
        carving_metrics(df, instructions=1, regions=1, threads=32, threads_per_block="bx - 64", blocks_on_sm=1)
    with pytest.raises(InputError, match="loads_per_region"):
        counter_metrics(df, threads_per_block="bx", threads=32, blocks_on_sm=1, warp_instructions="bx",
                        global_loads="bx", loads_per_region=0)


def test_ktt_counters_give_metrics_for_every_measured_configuration():
    from shared_data import dataset_path

    import starchart
    ds = starchart.load(dataset_path("ktt/KTConvolutionOutput_2080Ti.json.gz"))
    frame = ds.frame
    out = counter_metrics(frame, "7.5", threads_per_block="BLOCK_SIZE_X * BLOCK_SIZE_Y",
                          threads="IMAGE_WIDTH * IMAGE_HEIGHT / (TILE_SIZE_X * TILE_SIZE_Y)")
    ok = (frame["status"] == "ok").to_numpy()
    assert np.isfinite(out.loc[ok, ["efficiency", "utilization"]].to_numpy()).all()
    assert out.loc[~ok, "efficiency"].isna().all()
    # every configuration that ran fits on a Turing SM; the failed ones have no resource data
    assert (out.loc[ok, "blocks_per_sm"] >= 1).all() and (out.loc[~ok, "limiter"] == "unknown").all()
    # Instr × Threads from warp instructions agrees with the thread-level instruction mix counters:
    # they differ by the inactive lanes (thread_inst_executed_per_inst_executed < 32) only.
    ops = frame.loc[ok, [c for c in frame.columns if c.startswith("smsp__sass_thread_inst_executed_op_")]].sum(axis=1)
    ratio = ops / out.loc[ok, "total_instructions"]
    lanes = frame.loc[ok, "smsp__thread_inst_executed_per_inst_executed.ratio"] / 32
    assert (ratio <= 1.0 + 1e-9).all() and ratio.median() > 0.9
    assert np.corrcoef(ratio, lanes)[0, 1] > 0.5


def test_instruction_weights_count_slow_classes_in_weighted_efficiency():
    frame = pd.DataFrame({"instructions": [100.0, 100.0], "regions": [10.0, 10.0], "registers": [32, 32],
                          "shared_bytes": [0, 0], "n_global_load": [10.0, 40.0]})
    out = static_metrics(frame, "8.0", threads_per_block=256, threads=2 ** 20, instruction_weights={"global_load": 4})
    assert out["weighted_instructions"].tolist() == [130.0, 220.0]
    assert out["weighted_efficiency"].tolist() == [1 / (130 * 2 ** 20), 1 / (220 * 2 ** 20)]
    assert out["utilization"].iloc[0] == out["utilization"].iloc[1]  # weights leave Utilization alone
    # a class no configuration has weighs nothing; without weights or wavefronts there is no weighted metric
    same = static_metrics(frame, "8.0", threads_per_block=256, threads=2 ** 20, instruction_weights={"fp64": 8})
    assert same["weighted_instructions"].tolist() == [100.0, 100.0]
    assert "weighted_efficiency" not in static_metrics(frame, "8.0", threads_per_block=256, threads=2 ** 20).columns


@pytest.mark.parametrize("weights, message", [({"global_lod": 4}, "did you mean 'global_load'"),
                                               ({"global_load": 0}, "not a positive number"),
                                               ({"shared_load": 2}, "counted by its wavefronts already")])
def test_instruction_weights_are_checked(weights, message):
    frame = pd.DataFrame({"instructions": [100.0], "regions": [10.0], "registers": [32], "shared_bytes": [0],
                          "shared_wavefronts": [12.0]})
    with pytest.raises(InputError, match=message):
        static_metrics(frame, "8.0", threads_per_block=256, threads=2 ** 20, instruction_weights=weights)
