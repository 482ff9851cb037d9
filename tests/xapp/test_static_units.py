"""Unit tests of the pieces of static XAPP: pragmas, types, affine forms, trip counts, band errors."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from starchart.errors import InputError
from starchart.xapp.affine import Affine
from starchart.xapp.ir import DebugInfo, Types
from starchart.xapp.loops import _first_false
from starchart.xapp.pragmas import scan_pragmas, strip_comments
from starchart.xapp.static import math_family, static_analysis, static_features

# ----------------------------------------------------------------------------- pragmas

def test_pragma_clauses_and_thesis_spellings():
    src = "\n".join([
        "#pragma xapp parallel(2) trip(64)",  # 1
        "for (i = 0; i < n; i++)",            # 2
        "  #pragma XAPP(16)",                 # 3
        "  // a comment line is skipped",     # 4
        "  for (j = 0; j < m; j++) {",        # 5
        "#pragma xapp prob(0.25)",            # 6
        "    } else if (x) {",                # 7
        "#pragma parallel XAPP (1048576)",    # 8
        "while (p) {",                        # 9
        "#pragma omp parallel for",           # 10: not ours
        "for (;;) {}",                        # 11
    ])
    got = [(p.line, p.target_line, p.parallel, p.trip, p.prob) for p in scan_pragmas(src)]
    assert got == [(1, 2, 2, 64.0, None), (3, 5, None, 16.0, None), (6, 7, None, None, 0.25),
                   (8, 9, 1, 1048576.0, None)]


def test_pragmas_in_comments_are_ignored():
    src = "/* #pragma xapp parallel\n */\n// #pragma xapp trip(3)\nint x;\n"
    assert scan_pragmas(src) == []
    assert strip_comments(src).count("\n") == src.count("\n")


@pytest.mark.parametrize("text, message", [
    ("#pragma xapp trip(3)\nint x = 1;\n", "line 1: this #pragma xapp annotates a loop"),
    ("#pragma xapp prob(0.5)\nfor (;;) {}\n", "line 1: #pragma xapp prob(...) annotates an `if`"),
    ("#pragma xapp prob(2)\nif (a) {}\n", "prob(2) is not a probability"),
    ("#pragma xapp parallel(0)\nfor (;;) {}\n", "parallel(0) needs at least one loop"),
    ("#pragma xapp unroll(4)\nfor (;;) {}\n", "unknown clause `unroll`"),
    ("#pragma xapp\nfor (;;) {}\n", "empty #pragma xapp"),
    ("\n#pragma xapp trip(-1)\nfor (;;) {}\n", "line 2: trip(-1) is negative"),
])
def test_malformed_pragmas_name_their_line(text: str, message: str):
    with pytest.raises(InputError, match=None) as err:
        scan_pragmas(text, "k.c")
    assert message in str(err.value) and "k.c" in str(err.value)


# ----------------------------------------------------------------------------- IR helpers

def test_math_families():
    assert math_family("cosf") == "sincos" and math_family("llvm.sin.f64") == "sincos"
    assert math_family("log10l") == "logexp" and math_family("llvm.pow.f32") == "logexp"
    assert math_family("llvm.sqrt.f32") == "sqrt" and math_family("sqrtl") == "sqrt"
    assert math_family("fabsf") == "arith" and math_family("llvm.smax.i32") == "arith"
    assert math_family("llvm.memcpy.p0.p0.i64") == "memory"
    assert math_family("llvm.lifetime.start.p0") == "ignore"
    assert math_family("printf") is None and math_family("lookup") is None


def test_type_sizes_follow_natural_alignment():
    t = Types('%struct.s = type { i8, double, [3 x i16] }\n%struct.p = type <{ i8, i32 }>\n')
    assert t.size("%struct.s") == 24      # 1 + pad 7 + 8 + 6 + pad 2
    assert t.size("%struct.p") == 5       # packed
    assert t.size("[4 x [2 x float]]") == 32
    assert t.size("<4 x float>") == 16 and t.size("x86_fp80") == 16 and t.size("i1") == 1
    assert t.field_type("%struct.s", 2) == ("array", 3, "i16")


def test_debug_locations_know_the_main_file_and_inlining():
    text = "\n".join([
        '!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1)',
        '!1 = !DIFile(filename: "k.c", directory: "/w")',
        '!2 = !DIFile(filename: "../h/x.h", directory: "/w")',
        '!3 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1)',
        '!4 = distinct !DISubprogram(name: "g", scope: !2, file: !2, line: 1)',
        '!5 = !DILocation(line: 9, column: 2, scope: !4, inlinedAt: !6)',
        '!6 = !DILocation(line: 3, column: 1, scope: !3)',
        '!7 = distinct !{!7, !6, !5}',
    ])
    d = DebugInfo(text)
    assert d.loc(5).main is False and d.loc(5).inlined is True
    assert d.loc(6).main is True and d.loc(6).line == 3
    assert d.loop_start(7) == d.loc(6)
    assert d.loc(1) is None


def test_affine_arithmetic():
    i, j = Affine({0: Fraction(1)}), Affine({1: Fraction(1)})
    row = i.scale(None).add(j)               # i*n + j
    assert row.coefficient(1) == 1 and row.terms[0] is None
    assert i.add(i, -1).terms == {}          # i - i
    assert row.add(row, -1).terms == {0: None}   # n*i - m*i: two unknown invariants need not cancel
    assert Affine({}, 0b10).coefficient(1) is None and Affine({}, 0b10).depends_on(1)
    assert i.scale(Fraction(4)).scale(Fraction(0)) == Affine()


@pytest.mark.parametrize("start, step, pred, bound, want", [
    (0, 1, "slt", 16, 16), (0, 1, "sle", 15, 16), (10, -3, "sgt", 0, 4), (10, -3, "sge", 1, 4),
    (0, 4, "ne", 16, 4), (0, 3, "ne", 16, None), (5, 1, "slt", 0, 0), (0, -1, "slt", 5, None),
    (3, 1, "eq", 3, 1), (-4, 2, "slt", 4, 4),
])
def test_first_false(start, step, pred, bound, want):
    assert _first_false(start, step, pred, bound) == want


# ----------------------------------------------------------------------------- band errors

def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "k.c"
    path.write_text(body)
    return path


def test_several_bands_need_band_line(tmp_path: Path):
    path = _write(tmp_path, "\n".join([
        "void f(long n, float *x) {",
        "#pragma xapp parallel",
        "    for (long i = 0; i < n; i++) x[i] = 0;",
        "#pragma xapp parallel",
        "    for (long i = 0; i < n; i++) x[i] += 1;",
        "}"]))
    with pytest.raises(InputError, match="several `#pragma xapp parallel` \\(lines 2, 4\\)"):
        static_features(path)
    assert static_features(path, band_line=5)["arith_intensity"] == pytest.approx(0.5)  # fadd / (load + store)


def test_parallel_depth_needs_nested_loops(tmp_path: Path):
    path = _write(tmp_path, "\n".join([
        "void f(long n, float *x) {",
        "#pragma xapp parallel(2)",
        "    for (long i = 0; i < n; i++) x[i] = 0;",
        "}"]))
    with pytest.raises(InputError, match=r"line 3: parallel\(2\) needs 2 perfectly nested loops"):
        static_features(path)


def test_collapse_of_three_loops_and_imperfect_code(tmp_path: Path):
    path = _write(tmp_path, "\n".join([
        "void f(float *x) {",
        "#pragma xapp parallel(3)",
        "    for (long i = 0; i < 8; i++)",
        "        for (long j = 0; j < 4; j++) {",
        "            long row = i * 4 + j;",          # runs once per (i, j), like the innermost body
        "            for (long k = 0; k < 2; k++)",
        "                x[row * 2 + k] = 1.0f;",
        "        }",
        "}"]))
    result = static_analysis(path)
    assert result.band_lines == [3, 4, 6]
    assert result.features["parallelism"] == 64.0
    assert result.features["coalesced"] == 1.0    # stride 1 along k
    assert result.features["ksize"] == 6.0        # mul,add | mul,add,gep,store
    (access,) = result.accesses
    assert access.stride_elements == 1.0 and access.band_loops == [3, 4, 6]


def test_clang_errors_are_reported(tmp_path: Path):
    path = _write(tmp_path, "void f( {\n")
    with pytest.raises(InputError, match="clang could not compile"):
        static_features(path)
