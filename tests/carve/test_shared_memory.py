"""Shared-memory wavefronts predicted from SASS (starchart.carve.shared_memory)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cuda_toolchain import toolchain_or_skip

from starchart.carve import carve_source
from starchart.carve.resources import ResourceCompiler
from starchart.carve.sass import count_instructions, kernel_sass, parse_sass
from starchart.carve.shared_memory import block_shape, shared_wavefronts, shared_wavefronts_frame
from starchart.errors import InputError
from starchart.space import Space

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "carve"
TRANSPOSE = EXAMPLES / "transpose.cu"


def sass(*lines: str) -> str:
    body = "\n".join(f"        /*{16 * i:04x}*/                   {line} ;" for i, line in enumerate(lines))
    return f".text.k:\n{body}"


def waves(*lines: str, block=(32, 1, 1), **options):
    return shared_wavefronts(parse_sass(sass(*lines))["k"], block, **options)


def test_stride_decides_the_conflicts():
    # words 0, 2, 4 ... : two lanes per bank (2-way); stride 33 words: every lane its own bank
    report = waves("S2R R0, SR_TID.X", "SHF.L.U32 R1, R0, 0x3, RZ", "LDS R2, [R1]",
                   "IMAD R3, R0, 0x84, RZ", "LDS R4, [R3]", "EXIT")
    assert report.accesses["wavefronts"].tolist() == [2.0, 1.0]
    assert report.load_wavefronts == 3.0 and report.conflict_wavefronts == 1.0


def test_every_lane_reading_one_word_is_a_broadcast():
    report = waves("S2R R0, SR_TID.X", "LOP3.LUT R1, R0, 0x20, RZ, 0xc0, !PT", "LDS R2, [R1]", "EXIT")
    assert report.accesses["wavefronts"].tolist() == [1.0]


def test_wide_accesses_are_served_in_phases():
    # 16-byte loads of consecutive elements: 8 lanes fill the 32 banks, so a warp takes 4 phases
    report = waves("S2R R0, SR_TID.X", "SHF.L.U32 R1, R0, 0x4, RZ", "LDS.128 R4, [R1]", "EXIT")
    assert report.accesses[["bytes", "wavefronts", "ideal"]].values.tolist() == [[16, 4.0, 4.0]]


def test_a_block_uniform_unknown_offset_changes_nothing():
    # blockIdx and a kernel argument shift every lane's address alike
    report = waves("S2R R0, SR_TID.X", "S2R R5, SR_CTAID.X", "IMAD R1, R5, c[0x0][0x160], RZ",
                   "LEA R2, R0, R1, 0x7", "LDS R3, [R2+0x10]", "EXIT")
    assert report.accesses[["wavefronts", "known"]].values.tolist() == [[32.0, True]]


def test_an_address_unknown_per_thread_is_counted_conflict_free_and_reported():
    report = waves("S2R R0, SR_TID.X", "LDG.E R1, [R4.64]", "LDS R2, [R1]", "EXIT")
    assert report.accesses[["wavefronts", "known"]].values.tolist() == [[1.0, False]]
    assert report.unknown == 1


def test_two_dimensional_blocks_map_lanes_to_threadIdx():
    # tile[tx][ty] with 16-word rows in a 16 x 2 block: banks 16·tx + ty, 8 distinct words in each of 4 banks
    report = waves("S2R R0, SR_TID.X", "S2R R1, SR_TID.Y", "LEA R2, R0, R1, 0x4", "LDS R3, [R2.X4]", "EXIT",
                   block=(16, 2))
    assert report.accesses["wavefronts"].tolist() == [8.0]


def test_a_branch_on_the_thread_index_counts_only_the_threads_that_take_it():
    report = waves("S2R R0, SR_TID.X", "ISETP.GE.AND P0, PT, R0, 0x10, PT", "@P0 EXIT",
                   "SHF.L.U32 R1, R0, 0x7, RZ", "STS [R1], R2", "EXIT")
    # 16 lanes left, all in bank 0: 16 wavefronts for the one warp
    assert report.store_wavefronts == 16.0


def test_a_loop_bounded_by_the_thread_index_runs_each_thread_its_own_trips():
    # for (i = tx; i < 40; i += 32) sh[i] = ...: lanes 0-7 store twice, the rest once
    lines = ["S2R R0, SR_TID.X", "SHF.L.U32 R1, R0, 0x2, RZ", "STS [R1], R2", "IADD3 R0, R0, 0x20, RZ",
             "IADD3 R1, R1, 0x80, RZ", "ISETP.GE.AND P0, PT, R0, 0x28, PT", "@!P0 BRA `(.L_x_0)", "EXIT"]
    text = sass(*lines).replace("        /*0020*/", ".L_x_0:\n        /*0020*/")
    report = shared_wavefronts(parse_sass(text)["k"], (32,))
    assert report.accesses[["executions", "wavefronts"]].values.tolist() == [[2.0, 1.0]]
    assert report.store_wavefronts == 2.0


def test_a_loop_on_an_unknown_bound_runs_its_trip_count():
    lines = ["S2R R0, SR_TID.X", "SHF.L.U32 R1, R0, 0x2, RZ", "LDS R3, [R1]", "IADD3 R4, R4, 0x1, RZ",
             "ISETP.GE.AND P0, PT, R4, c[0x0][0x160], PT", "@!P0 BRA `(.L_x_0)", "EXIT"]
    text = sass(*lines).replace("        /*0020*/", ".L_x_0:\n        /*0020*/")
    kernel = parse_sass(text)["k"]
    assert shared_wavefronts(kernel, (32,), trip_counts={0: 5}).load_wavefronts == 5.0
    assert shared_wavefronts(kernel, (32,)).load_wavefronts == 1.0  # unannotated: once


def test_the_block_run_counts_the_warp_instructions_each_warp_issues():
    # for (i = tx; i < 40; i += 32) {sh[i] = ...; __syncthreads();} on 64 threads: warp 0 (lanes 0-7 go round
    # twice) issues the six-instruction body twice, warp 1 once; the static count sees it once
    lines = ["S2R R0, SR_TID.X", "SHF.L.U32 R1, R0, 0x2, RZ", "STS [R1], R2", "BAR.SYNC.DEFER_BLOCKING 0x0",
             "IADD3 R0, R0, 0x20, RZ", "IADD3 R1, R1, 0x80, RZ", "ISETP.GE.AND P0, PT, R0, 0x28, PT",
             "@!P0 BRA `(.L_x_0)", "EXIT"]
    text = sass(*lines).replace("        /*0020*/", ".L_x_0:\n        /*0020*/")
    report = shared_wavefronts(parse_sass(text)["k"], (64,))
    assert report.executed_instructions == (2 + 6 * 2 + 1 + 2 + 6 + 1) / 2
    assert report.executed_regions == (2 + 1) / 2 + 1  # the barrier, run twice and once, plus one
    assert count_instructions(parse_sass(text)["k"]).instructions == 9.0


def test_threads_that_leave_early_issue_nothing_more():
    report = waves("S2R R0, SR_TID.X", "ISETP.GE.AND P0, PT, R0, 0x10, PT", "@P0 EXIT", "IADD3 R1, R0, 0x1, RZ",
                   "EXIT", block=(64,))
    # both warps issue the first three; only warp 0 (lanes 0-15) issues the last two
    assert report.executed_instructions == (5 + 3) / 2


@pytest.mark.parametrize("stride, sectors", [(0x4, 4.0), (0x8, 8.0), (0x80, 32.0)])
def test_global_sectors_follow_the_warps_stride(stride, sectors):
    # a[tx * stride / 4] through a 64-bit address from the argument's base: 4, 8 or 32 sectors per warp of 32
    report = waves("S2R R0, SR_TID.X", f"IMAD.WIDE R2, R0, {stride:#x}, c[0x0][0x160]", "LDG.E R4, [R2.64]",
                   "EXIT", block=(64,))
    assert (report.global_sectors, report.global_ideal_sectors) == (sectors, 4.0)
    assert report.coalescing == 4.0 / sectors


def test_a_broadcast_read_is_coalesced():
    # one address for every lane: one sector per warp
    report = waves("MOV R6, c[0x0][0x160]", "LDG.E R4, [R6.64]", "EXIT", block=(64,))
    assert (report.global_sectors, report.coalescing) == (1.0, 1.0)


def test_the_fixed_point_counts_global_sectors_too(monkeypatch):
    lines = ["S2R R0, SR_TID.X", "IMAD.WIDE R2, R0, 0x80, c[0x0][0x160]", "LDG.E R4, [R2.64]", "EXIT"]
    monkeypatch.setattr("starchart.carve.shared_memory._execute", lambda *args: False)
    assert waves(*lines).coalescing == 4.0 / 32.0


def test_a_constant_loaded_as_two_halves_is_known():
    # ptxas loads 4 as HFMA2.MMA's fp16 pair (0, 2^-22): the stride must stay known for the sectors
    report = waves("S2R R0, SR_TID.X", "HFMA2.MMA R5, -RZ, RZ, 0, 2.384185791015625e-07",
                   "IMAD.WIDE R2, R0, R5, c[0x0][0x160]", "LDG.E R4, [R2.64]", "EXIT")
    assert report.coalescing == 1.0 and report.global_sectors == 4.0


def test_code_too_long_to_run_falls_back_to_the_fixed_point(monkeypatch):
    lines = ["S2R R0, SR_TID.X", "S2R R1, SR_TID.Y", "LEA R2, R0, R1, 0x4", "LDS R3, [R2.X4]", "EXIT"]
    ran = waves(*lines, block=(16, 2))
    monkeypatch.setattr("starchart.carve.shared_memory._execute", lambda *args: False)
    fixed = waves(*lines, block=(16, 2))
    assert fixed.accesses["wavefronts"].tolist() == ran.accesses["wavefronts"].tolist()
    assert ran.executed_instructions == 5.0
    assert np.isnan(fixed.executed_instructions)  # the fixed point runs no thread: nothing issued is known


def test_min_max_and_rounded_division_follow_the_hardware():
    # IMNMX with PT is the minimum, with !PT the maximum; LEA.HI d, a, 1, RZ, 0x19 is 1 + (a >> 7)
    report = waves("S2R R0, SR_TID.X", "IADD3 R3, R0, 0x7f, RZ", "LEA.HI R3, R3, 0x1, RZ, 0x19",
                   "ISETP.NE.AND P0, PT, R3, 0x2, PT", "@P0 EXIT",  # lane 0 has 1 + 0 and leaves
                   "IMNMX R1, R0, 0x4, PT", "SHF.L.U32 R5, R1, 0x7, RZ", "LDS R6, [R5]",
                   "IMNMX R2, R0, 0x1c, !PT", "SHF.L.U32 R7, R2, 0x7, RZ", "LDS R8, [R7]", "EXIT")
    # lanes 1-31, all in bank 0: min(tx, 4) and max(tx, 28) give 4 distinct words each (swapped: 28 each)
    assert report.accesses["wavefronts"].tolist() == [4.0, 4.0]


def test_block_shape_is_read_and_checked():
    assert block_shape("TILE, BLOCK_ROWS") == ["TILE", "BLOCK_ROWS"]
    for bad in ("", "a, b, c, d", "a,,b"):
        with pytest.raises(InputError, match="one to three dimensions"):
            block_shape(bad)


def test_the_frame_refuses_a_block_that_cannot_launch():
    with pytest.raises(InputError, match="not a launchable block"):
        shared_wavefronts_frame(pd.DataFrame({"T": [64], "cubin": ["x.cubin"]}), "k", "T, T", params=["T"])


# --- on compiled code ---------------------------------------------------------------------------------

@pytest.mark.parametrize("cc", ["7.5", "8.0"])
def test_transpose_conflicts_are_what_the_textbook_says(tmp_path, cc):
    toolchain_or_skip(int(cc.replace(".", "")), disasm=True)
    compiler = ResourceCompiler(TRANSPOSE, "transpose", cc, cache_dir=tmp_path)
    expected = {  # (load, store) wavefronts per warp
        (32, 8, 0): (4 * 32.0, 4.0),  # 4 column reads of stride 32 words: one bank each
        (32, 8, 1): (4.0, 4.0),  # stride 33: conflict-free
        (16, 16, 0): (8.0, 1.0),  # a warp spans two tile rows: 8 words in each of 4 banks
    }
    for (tile, rows, pad), (loads, stores) in expected.items():
        result = compiler.compile({"TILE": tile, "BLOCK_ROWS": rows, "PAD": pad})
        kernel = kernel_sass(result.cubin, "transpose")
        report = shared_wavefronts(kernel, (tile, rows))
        assert (report.load_wavefronts, report.store_wavefronts, report.unknown) == (loads, stores, 0)
        # rows of 4-byte words in and out: coalesced; no thread-dependent loop, so the run issues the static count
        assert report.coalescing == 1.0 and report.global_sectors == 2 * 4 * tile // rows
        assert report.executed_instructions == count_instructions(kernel).instructions


def test_carving_with_wavefronts_weighted_in(tmp_path, monkeypatch):
    toolchain_or_skip(80, disasm=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    space = Space.from_file(EXAMPLES / "transpose.yaml")
    common = dict(threads_per_block="TILE * BLOCK_ROWS", threads="4096 * 4096 // (TILE // BLOCK_ROWS)")
    paper = carve_source(TRANSPOSE, "transpose", space, "8.0", **common)
    weighted = carve_source(TRANSPOSE, "transpose", space, "8.0", block="TILE, BLOCK_ROWS",
                            metrics=("weighted_efficiency", "utilization"), strict=True, **common)
    frame = weighted.frame.set_index(["TILE", "BLOCK_ROWS", "PAD"])
    # the paper's metrics cannot tell padding from none: same instructions, same regions
    assert (paper.frame.groupby(["TILE", "BLOCK_ROWS"])["efficiency"].nunique() == 1).all()
    assert frame.loc[(32, 8, 0), "bank_conflicts"] == 124 and frame.loc[(32, 8, 1), "bank_conflicts"] == 0
    assert frame.loc[(32, 8, 0), "weighted_efficiency"] < frame.loc[(32, 8, 1), "weighted_efficiency"]
    kept = weighted.frame[weighted.frame["carved_by"] == ""]
    assert len(kept) and (kept["PAD"] == 1).all()
    # a predicate may use the new columns
    free = carve_source(TRANSPOSE, "transpose", space, "8.0", block="TILE, BLOCK_ROWS",
                        predicates="bank_conflicts == 0", **common)
    assert set(free.frame.loc[free.frame["carved_by"] != "bank_conflicts == 0", "TILE"]) == {32}


def test_carving_on_the_block_runs_counts(tmp_path, monkeypatch):
    toolchain_or_skip(80, disasm=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    space = Space.from_file(EXAMPLES / "transpose.yaml")
    common = dict(threads_per_block="TILE * BLOCK_ROWS", threads="4096 * 4096 // (TILE // BLOCK_ROWS)",
                  block="TILE, BLOCK_ROWS")
    static = carve_source(TRANSPOSE, "transpose", space, "8.0", **common).frame
    executed = carve_source(TRANSPOSE, "transpose", space, "8.0", counts="executed",
                            predicates="coalescing >= 0.5", **common).frame
    # transpose's loops run the same in every thread: the two counts agree, and every access coalesces
    assert executed["instr"].tolist() == static["instr"].tolist()
    assert (executed["coalescing"] == 1.0).all() and "coalescing >= 0.5" not in set(executed["carved_by"])
    with pytest.raises(InputError, match="needs the block's shape"):
        carve_source(TRANSPOSE, "transpose", space, "8.0", threads_per_block="TILE * BLOCK_ROWS", threads=4096,
                     counts="executed")
    with pytest.raises(InputError, match="'static' or 'executed'"):
        carve_source(TRANSPOSE, "transpose", space, "8.0", counts="dynamic", **common)


def test_block_runs_are_stored_beside_the_cubin_and_run_in_processes(tmp_path, monkeypatch):
    toolchain_or_skip(80, disasm=True)
    compiler = ResourceCompiler(TRANSPOSE, "transpose", "8.0", cache_dir=tmp_path)
    table = compiler.frame(Space.from_file(EXAMPLES / "transpose.yaml").to_frame(), counts=True)
    seen = []
    first = shared_wavefronts_frame(table, "transpose", "TILE, BLOCK_ROWS", jobs=2,
                                    progress=lambda step, done, total: seen.append((step, done, total)))
    assert seen[-1] == ("running blocks", len(table), len(table))
    assert first.loc[first.index[0], "executed_instructions"] > 0
    assert len(list(tmp_path.rglob("block_run_*.json"))) == len(table)

    def refuse(*args, **kwargs):
        raise AssertionError("ran again")

    monkeypatch.setattr("starchart.carve.shared_memory.shared_wavefronts", refuse)
    again = shared_wavefronts_frame(table, "transpose", "TILE, BLOCK_ROWS")  # read back, nothing runs
    pd.testing.assert_frame_equal(first, again)


def test_weighted_metrics_need_the_block_and_say_so(tmp_path):
    space = Space.from_file(EXAMPLES / "transpose.yaml")
    with pytest.raises(InputError, match="need the block's shape") as info:
        carve_source(TRANSPOSE, "transpose", space, "8.0", threads_per_block="TILE * BLOCK_ROWS", threads=4096,
                     metrics=("weighted_efficiency", "utilization"))
    assert "block=" in str(info.value)
