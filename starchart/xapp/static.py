"""Static XAPP features: the 10 program features of the thesis's Table 4.2 from a C file.

The user marks the *parallel band* (the loop or perfectly nested loops a GPU port would
spread over threads) with ``#pragma xapp parallel`` / ``parallel(N)``, or passes
``band_line=``; everything inside is the *kernel body* (one GPU thread). The file is
compiled to LLVM IR (:mod:`starchart.xapp.ir`), its loops, induction variables and trip
counts found (:mod:`~starchart.xapp.loops`), the loop dependence and affine form of every
index computed (:mod:`~starchart.xapp.affine`), each instruction weighted by its expected
occurrence frequency f_I (:mod:`~starchart.xapp.frequency`), and the features are

================== ==========================================================================
``coalesced``      f-weighted share of memory operations that are coalesced
``divergent``      f-weighted share of control statements whose condition varies across threads
``ksize``          f-weighted number of instructions of the kernel body
``parallelism``    iterations of the band (product of the band loops' trip counts)
``arith_intensity`` arithmetic operations per memory operation
``ctrl_intensity`` control statements / ksize
``muldiv``         FP multiplications and divisions / ksize
``sincos``         sine/cosine (trigonometric) calls / ksize
``logexp``         exponential/logarithm/power calls / ksize
``sqrt``           square roots / ksize
================== ==========================================================================

See ``docs/xapp-features.md`` for every counting rule and the choices the thesis leaves open.

Examples
--------
>>> f = static_features("saxpy.c")                    # doctest: +SKIP
>>> f["coalesced"], f["divergent"]                    # doctest: +SKIP
(1.0, 0.0)
>>> static_features("saxpy.c", trip_counts=100)       # doctest: +SKIP
"""

from __future__ import annotations

import functools
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import InputError, arg
from .affine import Affine, Dependences, loops_in
from .frequency import block_frequencies
from .ir import STATIC_IR_FLAGS, Function, Inst, band_function
from .loops import LoopForest, find_loops, reverse_postorder
from .mathlib import lookup
from .pragmas import Pragma, no_band_hint, scan_pragmas
from .toolchain import clang_command, compile_to_ir, require_c_file

FEATURES = ("coalesced", "divergent", "ksize", "parallelism", "arith_intensity", "ctrl_intensity",
            "muldiv", "sincos", "logexp", "sqrt")
COALESCING = ("stride1", "thesis")

#: Trip count of a kernel-body loop whose count is not a constant and not annotated. The
#: thesis gives none (its sensitivity study sweeps 1, 10, 100, 1000); 10 is the sweep's
#: second value and the order of Fig. 4.2's annotated 16.
DEFAULT_TRIP = 10.0
#: Iterations assumed for a whole band whose trip counts are unknown: Fig. 4.2's 1048576,
#: shared geometrically by the band's loops (2^20 for one loop, 2^10 each for two).
DEFAULT_BAND_ITERATIONS = 2.0 ** 20
#: Probability of a conditional branch without annotation (the middle of the thesis's sweep).
DEFAULT_PROB = 0.5

# ----------------------------------------------------------------------------- instruction classes


MEMORY_FUNCS = frozenset({"memcpy", "memmove", "memset"})
IGNORED_INTRINSICS = ("llvm.dbg.", "llvm.lifetime.", "llvm.assume", "llvm.experimental.noalias.scope.decl",
                      "llvm.stacksave", "llvm.stackrestore", "llvm.invariant.", "llvm.var.annotation",
                      "llvm.ptr.annotation", "llvm.annotation", "llvm.prefetch", "llvm.sideeffect",
                      "llvm.pseudoprobe", "llvm.expect")
ARITH_OPS = frozenset({"add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or",
                       "xor", "fadd", "fsub", "fmul", "fdiv", "frem", "fneg"})
#: FP multiplications and divisions (``frem`` is a division, as in the dynamic classes).
MULDIV_OPS = frozenset({"fmul", "fdiv", "frem"})
MEM_OPS = frozenset({"load", "store", "atomicrmw", "cmpxchg"})
NOT_COUNTED = frozenset({"phi", "alloca", "fence", "unreachable"})


def math_family(callee: str) -> str | None:
    """``sincos``/``logexp``/``sqrt``/``arith`` for a math function or intrinsic, ``memory``
    for memcpy/memset, ``ignore`` for bookkeeping intrinsics, else None (unknown).

    A view of :data:`starchart.xapp.mathlib.MATH_FAMILIES` (shared with dynamic XAPP):
    its ``div``/``mul``/None families and other LLVM intrinsics are ``arith``.

    >>> [math_family(n) for n in ("sinf", "llvm.exp.f32", "sqrt", "llvm.fmuladd.f64", "tanh", "printf")]
    ['sincos', 'logexp', 'sqrt', 'arith', 'logexp', None]
    """
    if callee.startswith(IGNORED_INTRINSICS):
        return "ignore"
    if _base_name(callee) in MEMORY_FUNCS:
        return "memory"
    found = lookup(callee)
    if found is not None:
        return found.family if found.family in ("sincos", "logexp", "sqrt") else "arith"
    return "arith" if callee.startswith("llvm.") else None


def _is_muldiv_call(callee: str | None) -> bool:
    """fma/fmuladd (a multiplication) and fmod/remainder (a division)."""
    found = lookup(callee) if callee else None
    return found is not None and found.family in ("mul", "div")


# ----------------------------------------------------------------------------- result objects


@dataclass
class LoopInfo:
    """One loop of the band region or around it: its line, role, depth and the trip count used."""

    line: int | None
    role: str            # "band", "body", or "host" (a loop around the band: each iteration a launch)
    depth: int
    trip: float
    trip_source: str     # parameter | pragma | constant | argument | default | band-default


@dataclass
class AccessInfo:
    """One memory operation of the kernel body."""

    line: int | None
    column: int | None
    kind: str
    frequency: float
    coalesced: bool
    stride_elements: float | None   # change of the index per iteration of the innermost band loop
    band_loops: list[int | None]    # lines of the band loops the index depends on
    reason: str


@dataclass
class BranchInfo:
    """One control statement of the kernel body."""

    line: int | None
    kind: str            # if | loop-exit | switch | select
    frequency: float
    divergent: bool
    probability: float | None
    band_loops: list[int | None]


@dataclass
class StaticAnalysis:
    """Everything :func:`static_analysis` found; ``features`` holds the 10 feature values."""

    path: str
    function: str
    band_lines: list[int | None]
    coalescing: str
    features: dict[str, float]
    counts: dict[str, float]
    #: Iterations of the loops around the band in its function: how many times the band
    #: runs, i.e. the kernel launches of a GPU port (1 when nothing encloses it).
    host_steps: float = 1.0
    loops: list[LoopInfo] = field(default_factory=list)
    accesses: list[AccessInfo] = field(default_factory=list)
    branches: list[BranchInfo] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return asdict(self)


# ----------------------------------------------------------------------------- band selection


def _choose_band(pragmas: list[Pragma], band_line: int | None, where: str, source_text: str = "") -> tuple[int, int]:
    """(line of the outermost band loop, number of band loops)."""
    bands = [p for p in pragmas if p.parallel is not None]
    if band_line is not None:
        depth = next((p.parallel for p in bands if p.target_line == band_line), 1)
        return int(band_line), int(depth or 1)
    if not bands:
        raise InputError(f"no parallel band: no `#pragma xapp parallel` in the file and no {arg('band_line')} given",
                         where=where, hint=no_band_hint(source_text))
    if len(bands) > 1:
        lines = ", ".join(str(p.line) for p in bands)
        loops = [p.target_line for p in bands if p.target_line is not None]
        # the loop's line, not the pragma's: the pragma lines listed here were passed and refused
        raise InputError(f"several `#pragma xapp parallel` (lines {lines}); one band per analysis",
                         where=where, hint="pass " + arg("band_line", "<line of the band's loop>") + " to choose one: "
                                           + " or ".join(str(l) for l in loops))
    if bands[0].target_line is None:
        raise InputError("#pragma xapp parallel is not followed by a loop", where=f"{where}, line {bands[0].line}")
    return bands[0].target_line, int(bands[0].parallel)  # type: ignore[arg-type]


def _band_loops(fn: Function, forest: LoopForest, line: int, depth: int, where: str) -> list[int]:
    candidates = [l for l in forest.loops if l.line == line and l.loc is not None and not l.loc.inlined]
    if not candidates:
        raise InputError(f"line {line} is not the line of a loop's `for`/`while` in function {fn.name}",
                         where=f"{where}, line {line}", hint=f"{arg('band_line')} must be the line where the band loop starts")
    band = [min(candidates, key=lambda l: l.depth).index]
    while len(band) < depth:
        outer = forest.loops[band[-1]]
        if len(outer.children) != 1:
            found = "no loop" if not outer.children else f"{len(outer.children)} loops"
            raise InputError(f"parallel({depth}) needs {depth} perfectly nested loops, but the loop at line "
                             f"{outer.line} has {found} directly inside", where=f"{where}, line {line}",
                             hint=f"use parallel({len(band)}) or nest the loops")
        band.append(outer.children[0])
    for k, b in enumerate(band):
        loop = forest.loops[b]
        for src, _ in loop.exits:
            if src not in loop.controlling:
                term = fn.terminator(src)
                raise InputError("a band loop is left early (break, return or goto): its iterations are not "
                                 "independent", where=f"{where}, line {term.line or loop.line}",
                                 hint="a parallel band must run all its iterations; move the exit out of the band")
    return band


# ----------------------------------------------------------------------------- the analysis


def _access_size(fn: Function, inst: Inst) -> int:
    text = re.sub(r"\b(volatile|atomic|weak|syncscope\(\"[^\"]*\"\))\s+", "", inst.text.split("=", 1)[-1]
                  if inst.opcode == "load" else inst.text)
    try:
        if inst.opcode == "load":
            return fn.types.size(fn.types.parse(text.strip()[len("load"):].strip())[0])
        if inst.opcode == "store":
            return fn.types.size(fn.types.parse(text.strip()[len("store"):].strip())[0])
        m = re.search(r"ptr %[^,]+, ([^%]+?) %", text)
        return fn.types.size(m.group(1).strip()) if m else 1
    except (ValueError, IndexError):
        return 1


#: clang's C99 complex multiplication helpers (``double complex`` x ``double complex``).
_COMPLEX_MUL = re.compile(r"^__mul[sdxt]c3$")


def _complex_nan_recovery(fn: Function, blocks: set[int]) -> set[int]:
    """Instructions of clang's NaN recovery after an inline complex multiplication: not counted.

    clang writes ``a * b`` on ``_Complex`` values as its 4 multiplications and 2 additions,
    then (C99 Annex G) tests real and imaginary part for NaN and only then calls
    ``__muldc3``: two ``fcmp uno`` + ``br`` the programmer did not write, and a call the run
    never makes for finite values. Counted, they were two divergent branches taken with the
    default probability 0.5 and an unknown call. A GPU port multiplies with the 4 + 2
    operations alone (cuCmul, thrust::complex), which stay counted; the tests, their
    branches and the rarely-run call block are left out. A ``__muldc3`` called otherwise
    counts as one multiplication (:mod:`starchart.xapp.mathlib`).
    """
    skip: set[int] = set()
    for blk in blocks:
        calls = [k for k in fn.blocks[blk].insts
                 if fn.insts[k].opcode == "call" and _COMPLEX_MUL.match(fn.insts[k].callee or "")]
        if not calls:
            continue
        tests = _nan_tests_to(fn, blk, blocks)
        if tests is None:
            continue
        skip.update(fn.blocks[blk].insts)  # the call, its extractvalues and the branch back
        skip.update(tests)
    return skip


def _nan_tests_to(fn: Function, target: int, blocks: set[int]) -> set[int] | None:
    """The ``fcmp uno`` tests and branches that alone lead to ``target`` (clang's NaN checks),
    or None when ``target`` is reached otherwise (then it is not a recovery block)."""
    found: set[int] = set()
    todo, seen = [target], {target}
    while todo:
        blk = todo.pop()
        for pred in fn.blocks[blk].preds:
            term = fn.terminator(pred)
            cond = term.ops[0] if term.opcode == "br" and len(term.ops) == 3 else None
            test = fn.insts[cond.ref] if cond is not None and cond.kind == "inst" else None  # type: ignore[index]
            if (pred not in blocks or test is None or test.opcode != "fcmp"
                    or not test.text.split("=", 1)[-1].split()[1:2] == ["uno"] or test.users != [term.index]):
                return None
            found.update((term.index, test.index))
            # the imaginary part's test sits alone in its block, reached from the real part's test
            if pred not in seen and set(fn.blocks[pred].insts) == {term.index, test.index}:
                seen.add(pred)
                todo.append(pred)
    return found


def _band_control(fn: Function, forest: LoopForest, band: list[int]) -> set[int]:
    """Instructions that only run the band loops (test, counter update): a GPU thread has none.

    Only each band loop's induction variable (its header phi and update chain) is
    bookkeeping: other header phis carry values between iterations (``s += a[i]`` in a
    ``while`` band) and what computes them is kernel-body work."""
    control: set[int] = set()
    ivs: set[int] = set()
    candidates: set[int] = set()
    for b in band:
        loop = forest.loops[b]
        for blk in (loop.header, *loop.latches):
            candidates.update(fn.blocks[blk].insts)
        control |= {fn.blocks[c].insts[-1] for c in loop.controlling}
        if loop.iv is not None:
            ivs.add(loop.iv.phi)
            candidates.add(loop.iv.update)  # the update may sit in a body block that is not the latch
    changed = True
    while changed:
        changed = False
        for k in candidates:
            inst = fn.insts[k]
            if k in control or inst.opcode == "phi" or not inst.users:
                continue
            if all(u in control or u in ivs for u in inst.users):
                control.add(k)
                changed = True
    return control


def _by_line(values: object, name: str, where: str) -> dict[int, Any]:
    """A ``{line: value}`` parameter with integer lines (JSON gives strings), else {}."""
    if not isinstance(values, Mapping):
        return {}
    try:
        return {int(line): v for line, v in values.items()}
    except (TypeError, ValueError):
        raise InputError(f"{name} keys must be source line numbers, got {list(values)!r}",
                         where=f"{where}, {name}", hint="e.g. {12: 100}") from None


def _resolve_trips(forest: LoopForest, region: list[int], band: list[int], pragmas: list[Pragma],
                   trip_counts: float | Mapping[int, float] | None, where: str) -> dict[int, tuple[float, str]]:
    by_line = {p.target_line: p.trip for p in pragmas if p.trip is not None}
    explicit = _by_line(trip_counts, "trip_counts", where)
    fallback = None if isinstance(trip_counts, Mapping) or trip_counts is None else float(trip_counts)
    if fallback is not None and fallback < 0:
        raise InputError(f"{arg('trip_counts', str(trip_counts))} is negative", where=f"{where}, trip_counts",
                         hint="give a count >= 0")
    if fallback is not None and not math.isfinite(fallback):  # nan/inf made NaN features (and invalid JSON)
        raise InputError(f"{arg('trip_counts', str(trip_counts))} is not a finite count", where=f"{where}, trip_counts",
                         hint="give a count >= 0, e.g. 100")
    lines = {forest.loops[l].line for l in region}
    for line, count in explicit.items():
        if line not in lines:
            raise InputError(f"{arg('trip_counts')} names line {line}, which is not a loop inside the parallel band",
                             where=f"{where}, trip_counts", hint=f"loops of the band start at lines "
                             f"{sorted(x for x in lines if x is not None)}")
        if count is None or not 0 <= float(count) < math.inf:  # also refuses nan
            raise InputError(f"trip_counts[{line}]={count!r} is not a count", where=f"{where}, trip_counts",
                             hint="give a count >= 0")
    out = {}
    for l in region:
        loop = forest.loops[l]
        if loop.line in explicit:
            out[l] = (float(explicit[loop.line]), "parameter")
        elif loop.line in by_line:
            out[l] = (float(by_line[loop.line]), "pragma")  # type: ignore[arg-type]
        elif loop.const_trip is not None:
            out[l] = (loop.const_trip, "constant")
        elif l in band:
            out[l] = (DEFAULT_BAND_ITERATIONS ** (1.0 / len(band)), "band-default")
        elif fallback is not None:
            out[l] = (fallback, "argument")
        else:
            out[l] = (DEFAULT_TRIP, "default")
    return out


def _resolve_prob(pragmas: list[Pragma], branch_probs: float | Mapping[int, float] | None,
                  where: str) -> tuple[dict[int, float], dict[int, float], float]:
    by_line = {p.target_line: p.prob for p in pragmas if p.prob is not None}
    explicit = _by_line(branch_probs, "branch_probs", where)
    fallback = DEFAULT_PROB if branch_probs is None or isinstance(branch_probs, Mapping) else float(branch_probs)
    for line, p in [*explicit.items(), (None, fallback)]:
        if p is None or not 0.0 <= float(p) <= 1.0:
            name = arg("branch_probs", repr(p)) if line is None else f"branch_probs[{line}]={p!r}"
            raise InputError(f"{name} is not a probability", where=f"{where}, branch_probs",
                             hint="give a value in [0, 1]")
    return {k: float(v) for k, v in explicit.items()}, by_line, fallback  # type: ignore[return-value]


def analyse(fn: Function, source_text: str, *, where: str, band_line: int | None = None,
            trip_counts: float | Mapping[int, float] | None = None,
            branch_probs: float | Mapping[int, float] | None = None,
            coalescing: str = "stride1", pragmas: list[Pragma] | None = None) -> StaticAnalysis:
    """The analysis of an already-built function model (see :func:`static_analysis`)."""
    if coalescing not in COALESCING:
        raise InputError(f"{arg('coalescing', repr(coalescing))} is not known", where=f"{where}, coalescing",
                         hint="use " + " or ".join(repr(c) for c in COALESCING))
    pragmas = scan_pragmas(source_text, where) if pragmas is None else pragmas
    line, depth = _choose_band(pragmas, band_line, where, source_text)
    explicit_p, pragma_p, default_p = _resolve_prob(pragmas, branch_probs, where)
    forest = find_loops(fn)
    band = _band_loops(fn, forest, line, depth, where)
    root = forest.loops[band[0]]
    region_blocks = root.blocks
    for src, dst in forest.irreducible:
        if src in region_blocks:
            term = fn.terminator(src)
            raise InputError("irreducible loop (a cycle entered other than through its header) inside the "
                             "parallel band", where=f"{where}, line {term.line}" if term.line else where,
                             hint="rewrite the goto-style loop as a for/while loop")
    region = sorted(forest.subtree(band[0]), key=lambda l: (forest.loops[l].depth, forest.loops[l].line or 0))
    trips = _resolve_trips(forest, region, band, pragmas, trip_counts, where)
    recovery = _complex_nan_recovery(fn, region_blocks)
    branch_lines = {fn.terminator(b).line for b in region_blocks
                    if (fn.terminator(b).opcode == "switch" or len(fn.terminator(b).ops) == 3)
                    and fn.terminator(b).index not in recovery}
    for l in explicit_p:
        if l not in branch_lines:
            raise InputError(f"{arg('branch_probs')} names line {l}, which has no branch inside the parallel band",
                             where=f"{where}, branch_probs", hint="give the line of an `if` in the band")

    def prob(inst: Inst) -> float:
        if inst.line in explicit_p:
            return explicit_p[inst.line]  # type: ignore[index]
        if inst.line in pragma_p:
            return pragma_p[inst.line]  # type: ignore[index]
        return default_p

    band_set = set(band)
    freq = block_frequencies(fn, forest, band[0], lambda l: trips[l][0], prob, band_set)
    deps = Dependences(fn, forest, reverse_postorder(fn))
    control = _band_control(fn, forest, band)
    band_mask = sum(1 << b for b in band)
    band_line_of = {b: forest.loops[b].line for b in band}

    counts = dict.fromkeys(("ksize", "mem", "mem_coalesced", "arith", "ctrl", "ctrl_divergent",
                            "muldiv", "sincos", "logexp", "sqrt"), 0.0)
    accesses: list[AccessInfo] = []
    branches: list[BranchInfo] = []
    for blk in sorted(region_blocks):
        f = freq.get(blk, 0.0)
        for k in fn.blocks[blk].insts:
            inst = fn.insts[k]
            op = inst.opcode
            if k in control or k in recovery or op in NOT_COUNTED or (op == "br" and len(inst.ops) == 1):
                continue
            family = None
            if op == "call":
                family = _call_family(inst, fn.defined, where)
                if family == "ignore":
                    continue
            counts["ksize"] += f
            if op in ARITH_OPS or family in ("arith", "sincos", "logexp", "sqrt"):
                counts["arith"] += f
            if op in MULDIV_OPS or (family == "arith" and _is_muldiv_call(inst.callee)):
                counts["muldiv"] += f
            if family in ("sincos", "logexp", "sqrt"):
                counts[family] += f
            if op in MEM_OPS or family == "memory":
                access = _access(fn, inst, deps, f, band, band_line_of, coalescing)
                accesses.append(access)
                counts["mem"] += f
                counts["mem_coalesced"] += f if access.coalesced else 0.0
            if (op == "br" and len(inst.ops) == 3) or op in ("switch", "select"):
                branch = _branch(fn, forest, inst, deps, f, band_mask, band_line_of, prob)
                branches.append(branch)
                counts["ctrl"] += f
                counts["ctrl_divergent"] += f if branch.divergent else 0.0

    features = _features(counts, [trips[b][0] for b in band])
    overflow = [name for name, value in features.items() if not math.isfinite(value)]
    if overflow:  # finite but huge trip counts multiply past the float range: Infinity in JSON
        given = ", ".join(f"line {forest.loops[l].line}: {trips[l][0]:g} ({trips[l][1]})" for l in region)
        raise InputError(f"{', '.join(overflow)} overflow: the trip counts of the band's loops ({given}) "
                         "multiply beyond any real count", where=where,
                         hint=f"give realistic trip counts ({arg('trip_counts')} or #pragma xapp trip(N))")
    loops = [LoopInfo(line=forest.loops[l].line, role="band" if l in band_set else "body",
                      depth=forest.loops[l].depth - root.depth + 1, trip=trips[l][0],
                      trip_source=trips[l][1]) for l in region]
    host = _host_loops(forest, band[0], pragmas)
    host_steps = math.prod(loop.trip for loop in host)
    return StaticAnalysis(path=where, function=fn.name, band_lines=[forest.loops[b].line for b in band],
                          coalescing=coalescing, features=features, counts=counts, loops=host + loops,
                          accesses=accesses, branches=branches, host_steps=float(host_steps))


def _host_loops(forest: LoopForest, band_root: int, pragmas: list[Pragma]) -> list[LoopInfo]:
    """The loops enclosing the band in its function, outermost first, with their trip counts.

    A ``trip(N)`` pragma wins over a constant count; a loop with neither counts
    :data:`DEFAULT_TRIP` (say so with ``trip_source="default"``).
    """
    by_line = {p.target_line: p.trip for p in pragmas if p.trip is not None}
    found = []
    parent = forest.loops[band_root].parent
    while parent is not None:
        loop = forest.loops[parent]
        if loop.line in by_line:
            trip, source = float(by_line[loop.line]), "pragma"  # type: ignore[arg-type]
        elif loop.const_trip is not None:
            trip, source = float(loop.const_trip), "constant"
        else:
            trip, source = DEFAULT_TRIP, "default"
        # the band's own depth is 1 (as for the region's loops): the loop just around it is 0, then -1, ...
        found.append(LoopInfo(line=loop.line, role="host", depth=loop.depth - forest.loops[band_root].depth + 1,
                              trip=trip, trip_source=source))
        parent = loop.parent
    return found[::-1]


def _base_name(callee: str | None) -> str:
    if not callee:
        return ""
    return callee[5:].split(".")[0] if callee.startswith("llvm.") else callee


#: An inline-assembly call: ``call void asm sideeffect "", "~{memory}"()``.
_INLINE_ASM = re.compile(r'\basm (?:sideeffect |alignstack |inteldialect |unwind )*"')


def _call_family(inst: Inst, defined: frozenset[str], where: str) -> str:
    at = f"{where}, line {inst.line}" if inst.line else where
    if inst.callee is None and _INLINE_ASM.search(inst.text):
        # one instruction, as dynamic XAPP counts it (classify: "int"); it was reported as a
        # "call through a function pointer", which the code does not have
        return "arith"
    if inst.callee is None:
        raise InputError("a call through a function pointer inside the parallel band", where=at,
                         hint="call the function directly so it can be inlined, or move the call out of the band")
    family = math_family(inst.callee)
    if family is None and inst.callee in defined:
        raise InputError(f"call to `{inst.callee}` inside the parallel band could not be inlined (it is recursive)",
                         where=at, hint="write the recursion as a loop, or move the call out of the band")
    if family is None:
        raise InputError(f"call to `{inst.callee}` inside the parallel band: static XAPP understands only math "
                         "library functions and functions defined (non-recursively) in the same file", where=at,
                         hint="define the function in this file so it is inlined, or move the call out of the band")
    return family


def _access(fn: Function, inst: Inst, deps: Dependences, f: float, band: list[int],
            band_line_of: dict[int, int | None], coalescing: str) -> AccessInfo:
    """Coalescing of one memory operation (see docs/xapp-features.md)."""
    innermost = band[-1]
    pointer = inst.ops[1] if inst.opcode == "store" else inst.ops[0]
    address: Affine = deps.affine(pointer, inst.block)
    on_band = [b for b in band if address.depends_on(b)]
    size = _access_size(fn, inst)
    coefficient = address.coefficient(innermost)
    stride = None if coefficient is None else float(Fraction(coefficient) / size)
    if inst.opcode == "call":
        coalesced, reason = not on_band, "memory intrinsic" if on_band else "invariant in the band"
    elif not on_band:
        coalesced, reason = True, "invariant in the band (every thread reads the same address)"
    elif coalescing == "thesis" and any(b != innermost for b in on_band):
        coalesced, reason = False, "depends on a band loop other than the innermost"
    elif not address.depends_on(innermost):
        coalesced, reason = True, "independent of the innermost band loop"
    elif stride is None:
        non_const = innermost in address.terms and address.terms[innermost] is None
        coalesced, reason = False, "stride is not a constant" if non_const else "index is not affine in the band"
    else:
        coalesced = abs(stride) <= 1.0
        reason = f"stride {stride:g} element(s) per thread"
    kind = inst.opcode if inst.opcode != "call" else _base_name(inst.callee)
    return AccessInfo(line=inst.line, column=inst.loc.column if inst.loc and inst.loc.main else None, kind=kind,
                      frequency=f, coalesced=coalesced, stride_elements=stride,
                      band_loops=[band_line_of[b] for b in on_band], reason=reason)


def _branch(fn: Function, forest: LoopForest, inst: Inst, deps: Dependences, f: float, band_mask: int,
            band_line_of: dict[int, int | None], prob: Callable[[Inst], float]) -> BranchInfo:
    """Divergence of one control statement: its condition depends on a band loop."""
    cond = inst.ops[0]
    mask = deps.value(cond, inst.block) & band_mask
    on_band = [band_line_of[b] for b in loops_in(mask)]
    if inst.opcode == "br":
        inner = forest.block_loop[inst.block]
        is_exit = inner is not None and any(s not in forest.loops[inner].blocks for s in fn.blocks[inst.block].succs)
        kind = "loop-exit" if is_exit and inst.block in forest.loops[inner].controlling else "if"  # type: ignore[union-attr]
        p = None if kind == "loop-exit" else prob(inst)
    else:
        kind, p = inst.opcode, None
    return BranchInfo(line=inst.line, kind=kind, frequency=f, divergent=bool(mask), probability=p,
                      band_loops=on_band)


def _features(c: dict[str, float], band_trips: list[float]) -> dict[str, float]:
    ksize, mem, ctrl = c["ksize"], c["mem"], c["ctrl"]
    parallelism = 1.0
    for t in band_trips:
        parallelism *= t

    def per_ksize(x: float) -> float:
        return x / ksize if ksize > 0 else 0.0
    return {
        "coalesced": c["mem_coalesced"] / mem if mem > 0 else 1.0,
        "divergent": c["ctrl_divergent"] / ctrl if ctrl > 0 else 0.0,
        "ksize": ksize,
        "parallelism": parallelism,
        "arith_intensity": c["arith"] / mem if mem > 0 else c["arith"],
        "ctrl_intensity": per_ksize(ctrl),
        "muldiv": per_ksize(c["muldiv"]),
        "sincos": per_ksize(c["sincos"]),
        "logexp": per_ksize(c["logexp"]),
        "sqrt": per_ksize(c["sqrt"]),
    }


# ----------------------------------------------------------------------------- public API


@functools.lru_cache(maxsize=64)
def _compile(path: str, mtime_ns: int, size: int, clang: tuple[str, ...], defines: tuple[tuple[str, str], ...],
             include_dirs: tuple[str, ...], where: str) -> str:
    """IR of a file, reused while the file, the clang and the options are unchanged: a
    sensitivity sweep analyses one file under many trip counts and probabilities. ``path`` is
    resolved (the cache key); errors name the file as ``where``, as the user gave it."""
    return compile_to_ir(path, flags=STATIC_IR_FLAGS, defines=dict(defines), include_dirs=include_dirs,
                         where=where)


@functools.lru_cache(maxsize=32)
def _model(ir: str, line: int, where: str) -> Function:
    """The band function's model (read-only for the analysis, so it can be shared)."""
    return band_function(ir, line, where)


def static_analysis(path: str | Path, band_line: int | None = None,
                    trip_counts: float | Mapping[int, float] | None = None,
                    branch_probs: float | Mapping[int, float] | None = None,
                    coalescing: str = "stride1", *, defines: Mapping[str, object] | None = None,
                    include_dirs: tuple[str | Path, ...] = ()) -> StaticAnalysis:
    """Analyse the parallel band of a C file: features plus per-loop/access/branch details.

    Parameters
    ----------
    path:
        The C file, with ``#pragma xapp parallel`` before the band (or give ``band_line``).
    band_line:
        Line of the outermost band loop's ``for`` (overrides the pragma).
    trip_counts:
        None; a number used for every kernel-body loop whose trip count is neither a
        constant nor annotated (the thesis's sensitivity sweep: 1, 10, 100, 1000); or
        ``{line of a for: count}``, which overrides everything for those loops.
    branch_probs:
        None; a probability for every branch without ``#pragma xapp prob``; or
        ``{line of an if: p}``, which overrides the pragma.
    coalescing:
        ``"stride1"`` (default: an access is coalesced when consecutive iterations of the
        innermost band loop touch the same or adjacent elements) or ``"thesis"`` (the
        thesis's wording: also invariant in every other band loop).
    defines, include_dirs:
        ``-D`` macros and ``-I`` directories for clang.

    Repeated calls on an unchanged file reuse its IR (``timing["clang_s"]`` is then ~0).

    Raises
    ------
    InputError
        No band, a band_line that is not a loop, unknown calls or irreducible loops in the
        band, malformed pragmas or parameters; the message names the line.
    """
    where = str(path)
    source = require_c_file(path, where)
    t0 = time.perf_counter()
    stat = source.stat()
    ir = _compile(str(source.resolve()), stat.st_mtime_ns, stat.st_size, clang_command(),
                  tuple(sorted((str(k), str(v)) for k, v in (defines or {}).items())),
                  tuple(str(d) for d in include_dirs), where)
    t1 = time.perf_counter()
    text = source.read_text(errors="replace")
    pragmas = scan_pragmas(text, where)
    line, _ = _choose_band(pragmas, band_line, where, text)
    fn = _model(ir, line, where)
    result = analyse(fn, text, where=where, band_line=band_line, trip_counts=trip_counts,
                     branch_probs=branch_probs, coalescing=coalescing, pragmas=pragmas)
    t2 = time.perf_counter()
    result.timing = {"clang_s": t1 - t0, "analysis_s": t2 - t1}
    return result


def static_features(path: str | Path, band_line: int | None = None,
                    trip_counts: float | Mapping[int, float] | None = None,
                    branch_probs: float | Mapping[int, float] | None = None,
                    coalescing: str = "stride1", **compile_options: Any) -> dict[str, float]:
    """The 10 static XAPP features of a C file's parallel band (see :func:`static_analysis`).

    Returns
    -------
    dict
        Exactly the keys of :data:`FEATURES`, float values.
    """
    return dict(static_analysis(path, band_line, trip_counts, branch_probs, coalescing,
                                **compile_options).features)
