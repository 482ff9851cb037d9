"""Which Table 3.1 instruction class each IR instruction belongs to.

Classes (fractions of the region's dynamic instruction count):

* ``mem``  — load, store, atomics, ``llvm.memcpy``/``memmove``/``memset``;
* ``ctrl`` — branches, switches, returns, and calls that transfer control to code
  (user functions, external functions other than libm);
* ``fp`` / ``dp`` — single / double precision arithmetic, comparisons, conversions
  (by the floating-point type involved; conversions touching a double count as ``dp``),
  ``select`` of a float/double, and libm calls, each libm call counting as one operation;
* ``int``  — everything else that computes: integer arithmetic and compares, address
  arithmetic (``getelementptr``), integer casts, selects, vector element moves.

Not counted: ``phi``, ``bitcast``/``addrspacecast``/``freeze`` (value copies), ``alloca``,
and debug/lifetime/assume intrinsics — they produce no work on either CPU or GPU.

Sub-classes of floating-point operations: ``mul`` (``fmul``, fma), ``div`` (``fdiv``,
``frem``, fmod, remainder), ``sqrt`` (sqrt, rsqrt, cbrt, hypot), ``exp`` (exp/log/pow families,
hyperbolic functions, erf, gamma), ``sin`` (sin/cos/tan and inverses, sincos): the families of
:mod:`starchart.xapp.mathlib`, shared with static XAPP.

Examples
--------
>>> classify("fmul", "fmul float %a, %b")
Kind(cls='fp', sub='mul', mem=None, segment_end=False, callee=None)
>>> classify("call", "call double @exp(double noundef %x)").sub
'exp'
>>> classify("call", "call void @llvm.dbg.value(metadata i32 %x, metadata !1, metadata !DIExpression())").cls
'skip'
>>> classify("call", "call i32 @work(i32 %x)")
Kind(cls='ctrl', sub=None, mem=None, segment_end=True, callee='work')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..mathlib import lookup
from .irtext import matching_paren, split_top

_FAST_MATH = {"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"}
_FP_TYPES = {"half": "fp", "bfloat": "fp", "float": "fp", "double": "dp", "x86_fp80": "dp",
             "fp128": "dp", "ppc_fp128": "dp"}
_FP_BINOPS = {"fadd": None, "fsub": None, "fmul": "mul", "fdiv": "div", "frem": "div", "fneg": None}
_COPIES = {"bitcast", "addrspacecast", "freeze", "alloca"}
_SKIP_INTRINSICS = ("llvm.dbg.", "llvm.lifetime.", "llvm.assume", "llvm.experimental.noalias.scope.decl",
                    "llvm.invariant.", "llvm.sideeffect", "llvm.pseudoprobe", "llvm.donothing",
                    "llvm.var.annotation", "llvm.launder.invariant.group", "llvm.strip.invariant.group")
_MEM_INTRINSICS = ("llvm.memcpy", "llvm.memmove", "llvm.memset")

# libm families (shared with static XAPP, see starchart.xapp.mathlib) -> this module's sub-classes
_SUB = {"sincos": "sin", "logexp": "exp", "sqrt": "sqrt", "div": "div", "mul": "mul", None: None}


@dataclass(frozen=True)
class Kind:
    """How one instruction counts.

    ``cls``: ``mem``/``ctrl``/``int``/``fp``/``dp``, ``copy`` (passes a value on, not
    counted) or ``skip`` (ignored); ``sub``: floating-point sub-class; ``mem``: ``load``,
    ``store`` or ``rmw`` for accesses whose address the runtime sees; ``segment_end``: a
    call that may run instrumented code (the runtime must see the caller's instructions
    first); ``callee``: the called function's name for direct calls.
    """

    cls: str
    sub: str | None = None
    mem: str | None = None
    segment_end: bool = False
    callee: str | None = None


def _after_flags(words: list[str]) -> list[str]:
    while words and words[0] in _FAST_MATH:
        words = words[1:]
    return words


def fp_class(type_text: str) -> str | None:
    """``fp``/``dp`` for a (vector of) floating-point type, else None.

    >>> fp_class("float"), fp_class("<4 x double>"), fp_class("i32")
    ('fp', 'dp', None)
    """
    t = type_text.strip()
    m = re.match(r"<\s*\d+\s*x\s*(\w+)\s*>", t)
    return _FP_TYPES.get(m.group(1) if m else t.split()[0] if t else "")


def libm_kind(name: str) -> tuple[str, str | None] | None:
    """(precision, sub-class) of a libm function or fp intrinsic name, None if it is not one.

    A view of :func:`starchart.xapp.mathlib.lookup` (the table static XAPP uses too).

    >>> libm_kind("sinf"), libm_kind("llvm.sqrt.f64"), libm_kind("llvm.powi.f32.i32"), libm_kind("printf")
    (('fp', 'sin'), ('dp', 'sqrt'), ('fp', 'exp'), None)
    """
    found = lookup(name)
    if found is None or found.precision == "int":
        return None
    return found.precision, _SUB[found.family]


def call_target(body: str) -> tuple[str | None, str]:
    """(callee name or None for indirect/asm calls, argument text) of a call instruction.

    >>> call_target('call i32 (i8*, ...) @printf(i8* %f, i32 %x)')
    ('printf', 'i8* %f, i32 %x')
    """
    m = re.search(r'@([-a-zA-Z$._0-9]+|"[^"]*")\s*\(', body)
    if m is None:
        open_at = body.rfind("(")
        close = body.rfind(")")
        return None, body[open_at + 1:close] if 0 <= open_at < close else ""
    open_at = body.index("(", m.end(1))
    return m.group(1).strip('"'), body[open_at + 1:matching_paren(body, open_at)]


def _call_kind(body: str) -> Kind:
    name, _ = call_target(body)
    if name is None:
        if " asm " in f" {body} ":
            return Kind("int")
        return Kind("ctrl", segment_end=True)               # indirect call
    if name.startswith(_SKIP_INTRINSICS):
        return Kind("skip")
    if name.startswith(_MEM_INTRINSICS):
        return Kind("mem")
    found = lookup(name)
    if found is not None:
        return Kind("int") if found.precision == "int" else Kind(found.precision, _SUB[found.family])
    if name.startswith("llvm."):
        return Kind("int")
    return Kind("ctrl", segment_end=True, callee=name)


def classify(opcode: str, body: str) -> Kind:
    """The class of one instruction from its opcode and operand text (see module docstring)."""
    words = body.split()
    if opcode in ("load", "store"):
        return Kind("mem", mem=opcode)
    if opcode in ("atomicrmw", "cmpxchg"):
        return Kind("mem", mem="rmw")
    if opcode in ("br", "switch", "indirectbr", "ret", "unreachable", "resume", "callbr",
                  "catchswitch", "catchret", "cleanupret"):
        return Kind("ctrl")
    if opcode == "invoke":
        name, _ = call_target(body)
        return Kind("ctrl", segment_end=True, callee=name)
    if opcode == "call":
        return _call_kind(body)
    if opcode in _COPIES:
        return Kind("copy")
    if opcode == "phi":
        return Kind("skip")
    if opcode in _FP_BINOPS:
        rest = _after_flags(words[1:])
        return Kind(fp_class(" ".join(rest)) or "int", _FP_BINOPS[opcode])
    if opcode == "fcmp":
        rest = _after_flags(words[1:])[1:]                    # drop the predicate
        return Kind(fp_class(" ".join(rest)) or "int")
    if opcode in ("sitofp", "uitofp"):
        return Kind(fp_class(body.rsplit(" to ", 1)[-1]) or "int")
    if opcode in ("fptosi", "fptoui"):
        return Kind(fp_class(" ".join(words[1:])) or "int")
    if opcode in ("fpext", "fptrunc"):
        return Kind("dp" if "double" in body or "fp128" in body or "x86_fp80" in body else "fp")
    if opcode == "select":
        parts = split_top(" ".join(_after_flags(words[1:])))
        return Kind(fp_class(parts[1]) if len(parts) > 1 and fp_class(parts[1]) else "int")
    return Kind("int")
