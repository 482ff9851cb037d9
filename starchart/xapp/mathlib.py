"""The one table of math-library functions shared by static and dynamic XAPP.

Both feature extractors must put a call such as ``tanhf`` or ``llvm.powi.f64.i32`` in the
same class, so both read :data:`MATH_FAMILIES` through :func:`lookup`, the only name
normaliser. Families:

==========  ==================================================================
``sincos``  trigonometric functions and their inverses (sin, cos, tan, asin, ...)
``logexp``  exponentials, logarithms, powers, and the functions computed from
            exp/log: hyperbolics (sinh, cosh, tanh, asinh, acosh, atanh: e.g.
            tanh x = (e^2x - 1) / (e^2x + 1)), erf/erfc, tgamma/lgamma
``sqrt``    square and cube roots, rsqrt, hypot
``div``     fmod, remainder (a division; like ``fdiv``/``frem``)
``mul``     fma, fmuladd (a multiplication and an addition)
None        other math (fabs, floor, fmin, copysign, ...): plain arithmetic;
            ldexp/scalbn/frexp/logb/ilogb only move the exponent bits, so they
            are plain arithmetic too
==========  ==================================================================

C99 ``_Complex`` multiplication and division are the compiler runtime's ``__mulsc3`` /
``__muldc3`` / ``__mulxc3`` / ``__multc3`` and ``__divsc3`` / ``__divdc3`` / ... (float,
double, long double, __float128): a ``mul`` and a ``div`` family call, one operation each
like a libm call (a GPU port does the same operation with cuCmul/cuCdiv or
thrust::complex). The ``<complex.h>`` functions join the family of their real counterparts
(``cexp`` logexp, ``csin`` sincos, ``csqrt`` and ``cabs`` sqrt, ``carg`` sincos as atan2,
``conj``/``creal``/``cimag`` plain arithmetic).

Names are recognised with C's ``f`` (float) / ``l`` (long double) suffixes, as LLVM
intrinsics with their type overloads (``llvm.sqrt.f32``, ``llvm.powi.f64.i32``,
``llvm.lround.i64.f64``, ``llvm.sin.v4f32``), and as glibc's ``-ffast-math`` aliases
(``__expf_finite``).

Examples
--------
>>> lookup("tanhf")
MathFunc(base='tanh', family='logexp', precision='fp')
>>> lookup("llvm.powi.f64.i32")
MathFunc(base='powi', family='logexp', precision='dp')
>>> lookup("__sqrtf_finite").family, lookup("fmodl").family, lookup("printf")
('sqrt', 'div', None)
>>> lookup("__divdc3"), lookup("__mulsc3").precision
(MathFunc(base='complex div', family='div', precision='dp'), 'fp')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FAMILIES = ("sincos", "logexp", "sqrt", "div", "mul", None)


def _family(name: str | None, *bases: str) -> dict[str, str | None]:
    return dict.fromkeys(bases, name)


#: C math base name (no f/l suffix) -> family.
MATH_FAMILIES: dict[str, str | None] = {
    **_family("sincos", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sincos", "sinpi", "cospi",
              "tanpi"),
    **_family("logexp", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow", "powi",
              "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "tgamma", "lgamma"),
    **_family("sqrt", "sqrt", "rsqrt", "cbrt", "hypot"),
    **_family("div", "fmod", "remainder"),
    **_family("mul", "fma", "fmuladd"),
    # <complex.h> (C99): one operation each, like their real counterparts; cabs is a hypot and
    # carg an atan2; cexp = exp x (cos y + i sin y) counts as the exponential it is named after
    **_family("sincos", "csin", "ccos", "ctan", "casin", "cacos", "catan", "carg"),
    **_family("logexp", "cexp", "clog", "cpow", "csinh", "ccosh", "ctanh", "casinh", "cacosh", "catanh"),
    **_family("sqrt", "csqrt", "cabs"),
    **_family(None, "conj", "cproj", "creal", "cimag"),
    **_family(None, "fabs", "floor", "ceil", "trunc", "round", "roundeven", "rint", "nearbyint", "lround",
              "llround", "lrint", "llrint", "fmin", "fmax", "fdim", "copysign", "ldexp", "scalbn", "frexp", "modf",
              "logb", "ilogb", "minnum", "maxnum", "minimum", "maximum", "canonicalize"),
}
#: C library integer math (no f/l variants): plain integer arithmetic.
INTEGER_FUNCS = frozenset({"abs", "labs", "llabs"})

#: compiler-rt/libgcc's complex multiplication and division: ``__<mul|div><s|d|x|t>c3``.
_COMPLEX = re.compile(r"^__(mul|div)([sdxt])c3$")

_TYPE = re.compile(r"^(?:v\d+)?(?:i\d+|f16|bf16|f32|f64|f80|f128|ppcf128|p\d*)$")
_SINGLE = re.compile(r"^(?:v\d+)?(?:f16|bf16|f32)$")
_FLOAT = re.compile(r"^(?:v\d+)?(?:f16|bf16|f32|f64|f80|f128|ppcf128)$")


@dataclass(frozen=True)
class MathFunc:
    """A recognised math function: table ``base`` name, ``family`` (see the module
    docstring) and ``precision``: ``fp`` (float or narrower), ``dp`` (double or wider) or
    ``int`` (integer functions)."""

    base: str
    family: str | None
    precision: str


def lookup(name: str) -> MathFunc | None:
    """The math function ``name`` calls (C name or LLVM intrinsic), or None if it is not one.

    >>> lookup("erff"), lookup("llvm.lround.i64.f32").precision, lookup("llvm.smax.i32")
    (MathFunc(base='erf', family='logexp', precision='fp'), 'fp', None)
    """
    if name.startswith("llvm."):
        base, *overloads = name[5:].split(".")
        if base not in MATH_FAMILIES or not all(_TYPE.match(t) for t in overloads):
            return None
        floats = [t for t in overloads if _FLOAT.match(t)]
        single = bool(floats) and bool(_SINGLE.match(floats[0]))
        return MathFunc(base, MATH_FAMILIES[base], "fp" if single else "dp")
    complex_op = _COMPLEX.match(name)
    if complex_op:  # float (s) is single precision; double, long double and __float128 are not
        return MathFunc(f"complex {complex_op[1]}", complex_op[1], "fp" if complex_op[2] == "s" else "dp")
    if name.startswith("__") and name.endswith("_finite"):   # glibc's -ffast-math aliases
        return lookup(name[2:-7])
    if name in INTEGER_FUNCS:
        return MathFunc(name, None, "int")
    if name in MATH_FAMILIES:                                # before suffixes: erf, modf end in f
        return MathFunc(name, MATH_FAMILIES[name], "dp")
    if name[-1:] in ("f", "l") and name[:-1] in MATH_FAMILIES:
        return MathFunc(name[:-1], MATH_FAMILIES[name[:-1]], "fp" if name.endswith("f") else "dp")
    return None
