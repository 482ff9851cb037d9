"""Dynamic XAPP features of small programs whose values follow by hand from the code.

Each case in ``dyn_cases/`` is run instrumented; the expected values are derived from the
access pattern (comments give the derivation). Instruction counts per iteration refer to
the ``-O1`` IR (e.g. the stream copy: 2 GEPs, a load, a store, the induction add, the
compare and the branch).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import pytest

from starchart.xapp.dynamic import FEATURES, DynamicRun, dynamic_features, measure

CASES = Path(__file__).parent / "dyn_cases"

pytestmark = pytest.mark.llvm  # tests/conftest.py skips it where no clang is found

N = 4096


def line_of(case: str, marker: str) -> int:
    """Line of the first `for` whose text contains ``marker`` (band_line for a second loop)."""
    lines = (CASES / case).read_text().split("\n")
    return next(i + 1 for i, ln in enumerate(lines) if "for (" in ln and marker in ln)


@functools.cache
def run(case: str, *args: str, band_line: int | None = None) -> DynamicRun:
    return measure(CASES / case, args, band_line)


def test_keys_are_the_documented_features():
    f = dynamic_features(CASES / "stream.c", ["64"])
    assert list(f) == list(FEATURES)
    assert all(isinstance(v, (int, float)) and math.isfinite(v) for v in f.values())


def test_stream_copy():
    r = run("stream.c", str(N))
    f = r.features
    assert r.region_entries == 1
    assert f["ninst"] == 7 * N
    assert f["mem"] == pytest.approx(2 / 7) and f["ctrl"] == pytest.approx(1 / 7)
    assert f["int"] == pytest.approx(4 / 7) and f["fp"] == f["dp"] == 0
    # stride 1: each window of 32 floats is one 128 B transaction, conflict-free banks
    assert f["coalesced"] == f["gMemBW"] == f["shMemBW"] == f["noConflict"] == 1.0
    assert f["stride0"] == 0.0
    # two arrays of N floats: a cold miss per 32 accesses, the rest reuse distance 1
    assert f["blocks"] == 2 * math.ceil(4 * N / 128) and f["pages"] == 2 * math.ceil(4 * N / 4096)
    assert f["coldRef"] == pytest.approx(1 / 32) and f["reuseDist2"] == pytest.approx(31 / 32)
    # the latch branch is taken N-1 times, then falls through: one divergent window of X
    for k in range(4, 11):
        assert f[f"Lbdiv{1 << k}"] == pytest.approx((1 << k) / N)
    # one new iteration per step of the induction chain: ILP tends to 7 instructions/step
    assert 6.9 < f["ilp65536"] <= 7.0
    assert f["ilp32"] < f["ilp256"] < f["ilp2048"] < f["ilp16384"] <= f["ilp65536"] + 1e-9
    assert f["ilpRate"] == pytest.approx(f["ilp16384"] / f["ilp32"])


def test_footprint_of_n_floats():
    n = 1000                              # not a multiple of 32: ceil matters
    f = run("stream.c", str(n)).features
    assert f["blocks"] == 2 * math.ceil(4 * n / 128) == 64
    assert f["pages"] == 2


def test_stride_two_load():
    f = run("stride2.c", str(N)).features
    # load: 32 floats 8 B apart span 256 B = 2 transactions (utilisation 1/2), 2-way bank
    # conflict; store: stride 1. Equal dynamic counts, so the features average the two.
    assert f["gMemBW"] == pytest.approx(0.75) and f["coalesced"] == pytest.approx(0.5)
    assert f["shMemBW"] == pytest.approx(0.75) and f["noConflict"] == pytest.approx(0.5)
    assert f["stride0"] == 0.0
    assert f["blocks"] == math.ceil(4 * (2 * N - 1) / 128) + math.ceil(4 * N / 128)


def test_broadcast_load():
    f = run("broadcast.c", str(N), "5").features
    # three static accesses per iteration: idx[i] and b[i] stream, a[idx[i]] is one address
    assert f["stride0"] == pytest.approx(1 / 3)
    assert f["coalesced"] == f["gMemBW"] == 1.0          # a broadcast is one transaction
    assert f["shMemBW"] == pytest.approx(2 / 3) and f["noConflict"] == pytest.approx(2 / 3)
    assert f["blocks"] == 2 * math.ceil(4 * N / 128) + 1
    # the three blocks in use always sit in the top 3 of the LRU stack: every reuse is <= 2
    assert f["reuseDist2"] == pytest.approx(1 - f["coldRef"])
    assert f["mulf"] == 1.0                               # the only fp operation is 2.0f * ...


def test_branch_patterns():
    f = run("branches.c", str(N)).features
    # per window of X decisions: the alternating branch always diverges, the always-taken one
    # never, the loop latch once (its exit): (N/X + 1) divergent of 3 N/X windows
    for k in range(4, 11):
        x = 1 << k
        assert f[f"Lbdiv{x}"] == pytest.approx((N / x + 1) / (3 * N / x))


def test_dependent_chain_vs_independent_operations():
    chain = run("ilp.c", str(N), band_line=line_of("ilp.c", "chain")).features
    indep = run("ilp.c", str(N), band_line=line_of("ilp.c", "independent")).features
    # chain: 16 dependent multiply-adds + add, compare, branch per iteration -> 19/16
    assert chain["ninst"] == 19 * N
    assert chain["ilp65536"] == pytest.approx(19 / 16, rel=1e-3)
    # independent: 8 accumulators advance in parallel, 11 instructions per step
    assert indep["ninst"] == 11 * N
    assert indep["ilp65536"] == pytest.approx(11, rel=2e-3)
    assert indep["ilp32"] > 3 * chain["ilp32"]
    assert chain["mulf"] == indep["mulf"] == 1.0          # fmuladd counts as a multiply


def test_dependences_through_memory():
    f = run("memchain.c", str(N)).features
    # b[i] = b[prev[i]] + a[i]: 13 instructions per iteration; the load of b waits for the
    # previous iteration's store, so the path grows by load -> fadd -> store each iteration
    assert f["ninst"] == 13 * (N - 1)
    assert f["ilp65536"] == pytest.approx(13 / 3, rel=1e-3)


def test_transcendentals():
    single = run("math.c", str(N)).features
    double = run("math.c", str(N), band_line=line_of("math.c", "double")).features
    # per iteration: sqrt, exp, sin and two adds -> each transcendental is 1/5 of the fp ops
    for f, p in ((single, "f"), (double, "d")):
        assert f[f"sqrt{p}"] == f[f"exp{p}"] == f[f"sincos{p}"] == pytest.approx(0.2)
        assert f[f"mul{p}"] == f[f"div{p}"] == 0.0
    assert single["dp"] == 0.0 and double["fp"] == 0.0
    assert single["fp"] == pytest.approx(double["dp"])


def test_values_flow_through_calls_and_returns():
    n = 4000
    r = run("calls.c", str(n))
    f = r.features
    # x = step(x, a): 4 dependent fp ops + return per iteration form the critical path; if
    # arguments or return values were not followed the ILP would be far higher
    assert f["ilp65536"] == pytest.approx(f["ninst"] / (5 * n), rel=0.01)
    assert f["stride0"] == 1.0                            # hist[k] += ...: one address each
    assert r.region_entries == 1


def test_region_excludes_code_outside_the_band():
    # stream.c initialises a[] before the band and prints after it: none of it is counted
    r = run("stream.c", str(N))
    assert r.counts["mem"] == 2 * N and r.counts["branch_decisions"] == N


def test_band_in_a_function_called_twice():
    r = run("twice.c", "1000")
    assert r.region_entries == 2
    # n + n/2 iterations of: 2 GEPs, load, fmul, store, add, compare, branch
    assert r.features["ninst"] == 8 * 1500 and r.counts["fp"] == 1500


def test_native_run_is_timed():
    r = measure(CASES / "stream.c", ["256"], native=True)
    assert r.native_wall_s is not None and r.native_wall_s > 0 and r.wall_s > 0
