"""The runtime's block and branch counts against clang's source-based profile of the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

from starchart.xapp.dynamic import measure
from starchart.xapp.dynamic.crosscheck import (
    clang_profile,
    crosscheck,
    missing_profile_runtime,
    parse_lcov,
    profile_tools,
)
from starchart.xapp.toolchain import ToolchainError, clang_command

CASES = Path(__file__).parent / "dyn_cases"


def _why_not() -> str | None:
    try:
        clang_command()
    except ToolchainError:
        return "no clang"
    if profile_tools() is None:
        return "llvm-profdata/llvm-cov not found next to clang or on PATH"
    return missing_profile_runtime()


WHY_NOT = _why_not()  # asked once: each answer runs clang
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=str(WHY_NOT))


@pytest.mark.parametrize("case, args", [
    ("branches.c", ["1000"]),      # two ifs: alternating and always taken
    ("findindex.c", ["300"]),      # data-dependent inner trip count and early exit
    ("calls.c", ["400"]),          # a switch and calls to non-inlined functions
    ("matmul.c", ["24"]),          # a three-deep nest
    ("twice.c", ["1000"]),         # the band in three copies (two inlined), entered twice
])
def test_counts_agree_with_llvm_cov(case, args):
    run = measure(CASES / case, args)
    rows = crosscheck(run, clang_profile(CASES / case, args))
    assert {r.kind for r in rows} >= {"loop", "line"}
    assert [r for r in rows if not r.agrees] == []
    band = next(r for r in rows if r.kind == "loop" and r.line == run.band_line)
    assert band.xapp == band.clang == int(args[0]) * (1.5 if case == "twice.c" else 1)


def test_branch_pairs_are_compared():
    run = measure(CASES / "branches.c", ["1000"])
    rows = {(r.kind, r.line): r for r in crosscheck(run, clang_profile(CASES / "branches.c", ["1000"]))}
    alternating = rows[("branch", run.band_line + 1)]
    always = rows[("branch", run.band_line + 3)]
    assert alternating.xapp == alternating.clang == (500, 500)
    assert always.xapp == always.clang == (0, 1000)


def test_parse_lcov_takes_only_the_source_file():
    text = ("SF:/x/other.c\nDA:1,5\nend_of_record\nSF:/x/k.c\nDA:4,7\nBRDA:4,0,0,6\nBRDA:4,0,1,1\n"
            "BRDA:5,0,0,-\nBRDA:5,0,1,-\nend_of_record\n")
    p = parse_lcov(text, "/x/k.c")
    assert p.lines == {4: 7} and p.branches == {4: [(6, 1)], 5: [(0, 0)]}
