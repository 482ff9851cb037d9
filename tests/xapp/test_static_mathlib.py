"""Static and dynamic XAPP classify math calls from one table (starchart.xapp.mathlib)."""

from __future__ import annotations

import pytest

from starchart.xapp.dynamic.classify import classify, libm_kind
from starchart.xapp.mathlib import MATH_FAMILIES, lookup
from starchart.xapp.static import _is_muldiv_call, math_family

# name -> (family, precision); the family names are mathlib's
TABLE = {
    "sin": ("sincos", "dp"), "cosf": ("sincos", "fp"), "atan2l": ("sincos", "dp"), "llvm.sin.v4f32": ("sincos", "fp"),
    "exp": ("logexp", "dp"), "expf": ("logexp", "fp"), "__expf_finite": ("logexp", "fp"),
    "__log_finite": ("logexp", "dp"), "llvm.pow.f32": ("logexp", "fp"), "llvm.powi.f64.i32": ("logexp", "dp"),
    "llvm.powi.f32.i32": ("logexp", "fp"), "tanh": ("logexp", "dp"), "sinhf": ("logexp", "fp"),
    "acoshl": ("logexp", "dp"), "erf": ("logexp", "dp"), "erff": ("logexp", "fp"), "lgammaf": ("logexp", "fp"),
    "sqrt": ("sqrt", "dp"), "sqrtl": ("sqrt", "dp"), "llvm.sqrt.f32": ("sqrt", "fp"), "hypotf": ("sqrt", "fp"),
    "fmod": ("div", "dp"), "fmodf": ("div", "fp"), "remainderl": ("div", "dp"),
    "fma": ("mul", "dp"), "llvm.fmuladd.f32": ("mul", "fp"), "llvm.fma.v2f64": ("mul", "dp"),
    "fabsf": (None, "fp"), "modf": (None, "dp"), "ldexpf": (None, "fp"), "llvm.ldexp.f64.i32": (None, "dp"),
    "llvm.lround.i64.f32": (None, "fp"), "llvm.minnum.f64": (None, "dp"),
}
NOT_MATH = ("printf", "lookup", "expand", "llvm.smax.i32", "llvm.memcpy.p0.p0.i64", "llvm.experimental.constrained.sin.f64")
STATIC = {"sincos": "sincos", "logexp": "logexp", "sqrt": "sqrt", "div": "arith", "mul": "arith", None: "arith"}
DYNAMIC = {"sincos": "sin", "logexp": "exp", "sqrt": "sqrt", "div": "div", "mul": "mul", None: None}


@pytest.mark.parametrize("name, family, precision", [(n, *v) for n, v in TABLE.items()])
def test_both_sides_agree(name, family, precision):
    found = lookup(name)
    assert (found.family, found.precision) == (family, precision)
    assert math_family(name) == STATIC[family]
    assert libm_kind(name) == (precision, DYNAMIC[family])
    # static muldiv counts exactly the calls dynamic puts in its mul/div sub-classes
    assert _is_muldiv_call(name) == (DYNAMIC[family] in ("mul", "div"))
    assert classify("call", f"call float @{name}(float %x)").cls == precision


@pytest.mark.parametrize("name", NOT_MATH)
def test_not_math_on_either_side(name):
    assert lookup(name) is None and libm_kind(name) is None


def test_every_table_entry_round_trips_with_suffixes():
    for base, family in MATH_FAMILIES.items():
        for name, precision in ((base, "dp"), (base + "f", "fp"), (base + "l", "dp"), (f"llvm.{base}.f32", "fp")):
            assert lookup(name).base == base and lookup(name).precision == precision, name
            assert math_family(name) == STATIC[family] and libm_kind(name) == (precision, DYNAMIC[family])


def test_integer_abs_is_integer_arithmetic():
    assert lookup("labs").precision == "int" and libm_kind("labs") is None
    assert math_family("abs") == "arith" and classify("call", "call i32 @abs(i32 %x)").cls == "int"


def test_static_muldiv_counts_frem_like_fdiv(tmp_path):
    """With -fno-math-errno clang turns fmodf into `frem`: still one division (and the same
    features as the fmodf call it replaces)."""
    from starchart.xapp.ir import STATIC_IR_FLAGS, band_function
    from starchart.xapp.static import analyse
    from starchart.xapp.toolchain import compile_to_ir

    src = tmp_path / "rem.c"
    src.write_text("void rem(long n, float m, const float *x, float *y) {\n#pragma xapp parallel\n"
                   "    for (long i = 0; i < n; i++)\n        y[i] = __builtin_fmodf(x[i], m) * 2.0f;\n}\n")
    features = {}
    for extra in ((), ("-fno-math-errno",)):
        ir = compile_to_ir(src, flags=STATIC_IR_FLAGS + extra)
        assert (" frem " in ir) == bool(extra)
        fn = band_function(ir, 3, str(src))
        features[extra] = analyse(fn, src.read_text(), where=str(src)).features
    # gep,load | frem or fmodf | fmul | gep,store = 6; muldiv = 2 / 6
    for f in features.values():
        assert f["ksize"] == 6.0 and f["muldiv"] == pytest.approx(2 / 6)
