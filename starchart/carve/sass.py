"""Static instruction counts from SASS, scaled by the loop trip counts the user annotates.

Ryoo et al. (§4.1.2) count the dynamic instructions per thread (``Instr``) and the blocking
instructions that delimit ``Regions`` statically, from the compiled code and "the average
iteration counts of the major loops", annotated by the developer. This module does that on the
SASS that ``nvdisasm`` (or ``cuobjdump -sass``) prints for a cubin:

1. **Parse** every function: address, predicate, opcode, operands, branch target and, when the
   code was compiled with ``-lineinfo``, the source line.
2. **Reachable code**: from the entry, following fall-through and branches; what follows an
   unconditional ``EXIT``/``BRA``/``RET`` and is never branched to (the ``BRA`` self-loop and
   ``NOP`` padding at the end of every function) is not counted.
3. **Loops**: a reachable branch to an address at or before itself closes a loop whose body
   is the address range ``[target, branch]``. Loops are numbered by start address, outer
   first. Each instruction runs ``product of the trip counts of the loops around it`` times.
4. **Trip counts** are read from the SASS where the loop's counter starts, steps and ends at
   constants (the usual shape when tuning parameters are ``-D`` macros; see
   :func:`infer_trip_count`): that is the compiled loop's real count, whatever the compiler
   unrolled. Otherwise they are the user's: per loop index (``{0: 64}``), per source line of the loop's
   backward branch (``{"line:38": 64}``, needs ``-lineinfo``), or ``"*"`` for all others; a
   value may be a function of the configuration, or an expression over its parameters
   (``"N / TILE"``). A trip count is the number of times the **SASS** loop body runs per entry:
   where the compiler unrolled a source loop by ``U``, that is the source count divided by ``U``,
   and a fully unrolled loop has no SASS loop at all (its annotation is then reported unused).
   Trip counts can also be written in the source, ``// trips: N / TILE`` on the line of the
   ``for`` (see :func:`source_trip_counts`).
5. **Blocking instructions** (``Regions`` = blocking + 1): barriers that wait (``BAR.SYNC``,
   ``BAR.RED``, ``DEPBAR``, ``SYNCS...TRYWAIT``) and the first instruction that reads a register
   still awaited from a long-latency load (global/local/texture loads, atomics with a result),
   found by a forward data-flow analysis over the control-flow graph (loads pending at a loop's
   end reach its start). A consumer waits for every load issued before it, as the paper assumes
   ("both loads execute before the stores, which mark the end of the region").

Where an annotation disagrees with the count read from the SASS, the SASS wins and ``notes``
says so (e.g. a loop of 128 iterations that the compiler unrolled 2× runs 64 times).

Limits, stated: trip counts are constants per configuration (no data-dependent branches: both
sides of an ``if`` count fully, predicated instructions count as issued); code reached by ``CALL``
is not added to the caller; loops whose blocks the compiler placed outside their address range
are missed; instructions are counted once each (the paper counts 32-bit integer multiplication
several times on its GPU; none is weighted here); shared-memory loads are not blocking (the paper
treats only long-latency operations as such). ``nvdisasm`` 13.x no longer reads sm_70 cubins:
use a CUDA 12 toolkit's ``nvdisasm`` for 7.0.

Examples
--------
>>> text = '''
... .text.k:
...         /*0000*/                   S2R R0, SR_TID.X ;
... .L_x_0:
...         /*0010*/                   LDG.E R2, [R4.64] ;
...         /*0020*/                   FADD R3, R2, R3 ;
...         /*0030*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
...         /*0040*/               @P0 BRA `(.L_x_0) ;
...         /*0050*/                   EXIT ;
... .L_x_1:
...         /*0060*/                   BRA `(.L_x_1);'''
>>> k = parse_sass(text)["k"]
>>> [(loop.index, loop.start, loop.end) for loop in k.loops]
[(0, 16, 64)]
>>> c = count_instructions(k, {0: 10})
>>> c.instructions, c.barriers, c.load_consumers, c.regions
(42.0, 10.0, 10.0, 21.0)
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from starchart.carve.progress import step_progress
from starchart.carve.toolchain import (
    CARVE_HINT,
    ResourceUsage,
    _each,
    find_kernel,
    find_toolchain,
)
from starchart.errors import InputError, StarchartError
from starchart.measure.launch import evaluate_expression

__all__ = [
    "INSTRUCTION_CLASSES",
    "Instruction",
    "KernelSass",
    "Loop",
    "SassCounts",
    "blocking_instructions",
    "classify",
    "count_instructions",
    "disassemble",
    "infer_trip_count",
    "kernel_sass",
    "parse_sass",
    "sass_counts_frame",
    "source_trip_counts",
]

# --- instruction classes ----------------------------------------------------------------------------

_CLASS_OF: dict[str, str] = {}
#: Opcode (without modifiers) of every class; anything else is ``"other"``.
INSTRUCTION_CLASSES: dict[str, tuple[str, ...]] = {
    "global_load": ("LDG", "LD", "LDGSTS"),
    "global_store": ("STG", "ST"),
    "global_atomic": ("ATOMG", "ATOM", "RED"),
    "shared_load": ("LDS", "LDSM"),
    "shared_store": ("STS", "STSM"),
    "shared_atomic": ("ATOMS",),
    "local_load": ("LDL",),
    "local_store": ("STL",),
    "constant_load": ("LDC", "ULDC"),
    "texture": ("TEX", "TLD", "TLD4", "TMML", "TXD", "TXQ", "SULD", "SUST", "SUATOM", "SURED"),
    "barrier": ("BAR", "MEMBAR", "DEPBAR", "LDGDEPBAR", "ERRBAR", "SYNCS", "ARRIVES", "WARPSYNC", "CCTL"),
    "control": ("BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BSSY", "BSYNC", "BREAK", "BMOV", "YIELD",
                "KILL", "NANOSLEEP", "BPT", "ACQBULK", "ELECT", "ENDCOLLECTIVE"),
    "fp32": ("FADD", "FADD32I", "FMUL", "FMUL32I", "FFMA", "FFMA32I", "FMNMX", "FSET", "FSETP", "FSEL", "FCHK",
             "FSWZADD", "FMNMX3", "FADD2", "FMUL2", "FFMA2"),
    "fp64": ("DADD", "DMUL", "DFMA", "DMNMX", "DSET", "DSETP"),
    "fp16": ("HADD2", "HADD2_32I", "HMUL2", "HMUL2_32I", "HFMA2", "HFMA2_32I", "HMNMX2", "HSET2", "HSETP2"),
    "tensor": ("HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA", "QGMMA", "BGMMA", "OMMA", "QMMA", "UTCHMMA",
               "UTCQMMA", "UTCIMMA", "UTCOMMA"),
    "integer": ("IADD", "IADD3", "IADD32I", "IMAD", "IMADSP", "IMUL", "IMUL32I", "ISCADD", "LEA", "LOP", "LOP3",
                "LOP32I", "SHF", "SHL", "SHR", "ISETP", "IMNMX", "IABS", "POPC", "FLO", "BREV", "BMSK", "SGXT",
                "IDP", "IDP4A", "VIADD", "VIMNMX", "VIMNMX3", "IADD2", "IMNMX3", "VABSDIFF", "VABSDIFF4"),
    "conversion": ("F2F", "F2I", "I2F", "I2I", "FRND", "F2FP", "I2FP", "F2IP"),
    "sfu": ("MUFU",),
    "move": ("MOV", "MOV32I", "PRMT", "SEL", "SHFL", "S2R", "S2UR", "CS2R", "R2P", "P2R", "R2UR", "PLOP3", "PSETP",
             "VOTE", "VOTEU", "MATCH", "REDUX", "B2R", "R2B", "GETLMEMBASE", "SETLMEMBASE", "LEPC"),
    "nop": ("NOP",),
}
for _cls, _ops in INSTRUCTION_CLASSES.items():
    for _op in _ops:
        _CLASS_OF[_op] = _cls

#: Loads whose consumers stall for a long latency (global, generic, local, texture, atomics with a result).
LONG_LATENCY_LOADS = frozenset({"LDG", "LD", "LDL", "TEX", "TLD", "TLD4", "TMML", "TXD", "SULD", "ATOMG", "ATOM",
                                "SUATOM"})
_NO_DESTINATION = frozenset({"ST", "STG", "STS", "STL", "STSM", "RED", "SUST", "SURED", "BAR", "BRA", "BRX", "JMP",
                             "EXIT", "RET", "CALL", "MEMBAR", "DEPBAR", "BSSY", "BSYNC", "WARPSYNC", "NOP", "YIELD",
                             "LDGSTS", "ERRBAR", "CCTL"})
_UNCONDITIONAL_END = frozenset({"EXIT", "RET", "BPT", "KILL"})


def classify(opcode: str) -> str:
    """The class of an opcode (modifiers ignored): ``"global_load"``, ``"fp32"``, ``"barrier"``...

    Uniform-datapath instructions (``UIADD3``, ``UMOV``...) are ``"uniform"`` unless named above.

    >>> classify("LDG.E.128.CONSTANT"), classify("BAR.SYNC.DEFER_BLOCKING"), classify("UIADD3"), classify("FOO")
    ('global_load', 'barrier', 'uniform', 'other')
    """
    base = opcode.split(".", 1)[0]
    if base in _CLASS_OF:
        return _CLASS_OF[base]
    if base.startswith("U") and len(base) > 2:
        return "uniform"
    return "other"


# --- parsing ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Instruction:
    """One SASS instruction."""

    address: int
    opcode: str
    operands: str
    predicate: str = ""
    line: int | None = None
    file: str | None = None
    target: int | None = None

    @property
    def base(self) -> str:
        """The opcode without modifiers (``LDG`` for ``LDG.E.128``)."""
        return self.opcode.split(".", 1)[0]

    @property
    def klass(self) -> str:
        """See :func:`classify`."""
        return classify(self.opcode)


@dataclass(frozen=True)
class Loop:
    """A loop: the address range from a backward branch's target to the branch."""

    index: int
    start: int
    end: int
    depth: int
    line: int | None
    instructions: int

    @property
    def key(self) -> str:
        """``"line:N"`` when the branch has a source line, else ``"loop<index>"``."""
        return f"line:{self.line}" if self.line is not None else f"loop{self.index}"


@dataclass
class KernelSass:
    """The SASS of one function, with its reachable instructions and loops."""

    name: str
    instructions: list[Instruction]
    reachable: list[bool] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)

    def describe_loops(self) -> pd.DataFrame:
        """One row per loop: index, start/end address, depth, source line, static instructions.

        >>> parse_sass(EXAMPLE)["k"].describe_loops().to_dict("records")
        [{'index': 0, 'start': '0x0010', 'end': '0x0040', 'depth': 0, 'line': None, 'instructions': 4}]
        """
        return pd.DataFrame([{"index": lp.index, "start": f"0x{lp.start:04x}", "end": f"0x{lp.end:04x}",
                              "depth": lp.depth, "line": lp.line, "instructions": lp.instructions}
                             for lp in self.loops],
                            columns=["index", "start", "end", "depth", "line", "instructions"])


EXAMPLE = """
.text.k:
        /*0000*/                   S2R R0, SR_TID.X ;
.L_x_0:
        /*0010*/                   LDG.E R2, [R4.64] ;
        /*0020*/                   FADD R3, R2, R3 ;
        /*0030*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0040*/               @P0 BRA `(.L_x_0) ;
        /*0050*/                   EXIT ;
.L_x_1:
        /*0060*/                   BRA `(.L_x_1);"""

_INSN = re.compile(r"^\s*/\*([0-9a-fA-F]{4,})\*/\s+(.*?)\s*;")
_LABEL = re.compile(r"^\s*([.$\w]+):\s*(?://.*)?$")
_LINEINFO = re.compile(r'//## File "([^"]*)", line (\d+)')
_SECTION = re.compile(r"^\s*(?://-+\s*|\.section\s+)?\.text\.([^\s,\":]+)")
_CUOBJDUMP_FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
_PREDICATE = re.compile(r"^@!?U?P(?:\d+|T)\s+")
_OPERAND_PREDICATE = re.compile(r"^(!?U?P(?:\d+|T))\s*,")
_TARGET_LABEL = re.compile(r"`\(([^)]+)\)")
_TARGET_ADDRESS = re.compile(r"^(?:0x)?([0-9a-fA-F]+)\s*$")


def parse_sass(text: str) -> dict[str, KernelSass]:
    """Every function in ``nvdisasm`` (``-c``, optionally ``-g`` for source lines) or
    ``cuobjdump -sass`` output, by name, with reachability and loops worked out.

    >>> sorted(parse_sass(EXAMPLE))
    ['k']
    """
    functions: dict[str, list[tuple[int, str, str | None, int | None]]] = {}
    labels: dict[str, dict[str, int]] = {}
    current: str | None = None
    pending_labels: list[str] = []
    line: tuple[str | None, int | None] = (None, None)
    for raw in text.splitlines():
        if m := (_SECTION.match(raw) or _CUOBJDUMP_FUNCTION.match(raw)):
            current = m.group(1)
            functions.setdefault(current, [])
            labels.setdefault(current, {})
            pending_labels, line = [], (None, None)
            continue
        if m := _LINEINFO.search(raw):
            line = (m.group(1), int(m.group(2)))
            continue
        if current is None:
            continue
        if m := _INSN.match(raw):
            address = int(m.group(1), 16)
            for label in pending_labels:
                labels[current][label] = address
            pending_labels = []
            functions[current].append((address, m.group(2), line[0], line[1]))
            continue
        if m := _LABEL.match(raw):
            pending_labels.append(m.group(1))
    return {name: _build(name, rows, labels.get(name, {})) for name, rows in functions.items() if rows}


def _build(name: str, rows: list[tuple[int, str, str | None, int | None]], labels: dict[str, int]) -> KernelSass:
    instructions = []
    for address, text, file, line in rows:
        predicate = ""
        if m := _PREDICATE.match(text):
            predicate = m.group(0).strip()
            text = text[m.end():]
        opcode, _, operands = text.partition(" ")
        target = None
        if opcode.split(".", 1)[0] in ("BRA", "JMP"):
            # sm_100+ name a branch's (uniform) predicate as its first operand: BRA.U !UP0, `(.L_x_1)
            if not predicate and (m := _OPERAND_PREDICATE.match(operands.strip())):
                predicate = "@" + m.group(1)
            if m := _TARGET_LABEL.search(operands):
                target = labels.get(m.group(1))
            elif m := _TARGET_ADDRESS.match(operands.split(",")[-1].strip()):
                target = int(m.group(1), 16)
        instructions.append(Instruction(address, opcode, operands.strip(), predicate, line, file, target))
    kernel = KernelSass(name, instructions)
    kernel.reachable = _reachable(instructions)
    kernel.loops = _loops(instructions, kernel.reachable)
    return kernel


def _successors(instructions: list[Instruction], i: int, index_of: dict[int, int]) -> list[int]:
    ins = instructions[i]
    out: list[int] = []
    conditional = bool(ins.predicate) and ins.predicate not in ("@PT", "@UPT")
    ends = ins.base in _UNCONDITIONAL_END or ins.base in ("BRA", "JMP", "BRX", "JMX")
    if ins.target is not None and ins.target in index_of:
        out.append(index_of[ins.target])
    if (conditional or not ends) and i + 1 < len(instructions):
        out.append(i + 1)
    return out


def _reachable(instructions: list[Instruction]) -> list[bool]:
    index_of = {ins.address: i for i, ins in enumerate(instructions)}
    seen = [False] * len(instructions)
    stack = [0] if instructions else []
    while stack:
        i = stack.pop()
        if seen[i]:
            continue
        seen[i] = True
        stack.extend(j for j in _successors(instructions, i, index_of) if not seen[j])
    return seen


def _loops(instructions: list[Instruction], reachable: list[bool]) -> list[Loop]:
    spans = sorted({(ins.target, ins.address, ins.line) for ins, ok in zip(instructions, reachable)
                    if ok and ins.target is not None and ins.target <= ins.address},
                   key=lambda s: (s[0], -s[1]))
    loops = []
    for index, (start, end, line) in enumerate(spans):
        depth = sum(1 for s, e, _ in spans if (s, e) != (start, end) and s <= start and end <= e)
        size = sum(1 for ins, ok in zip(instructions, reachable) if ok and start <= ins.address <= end)
        loops.append(Loop(index, start, end, depth, line, size))
    return loops


# --- trip counts and counting -----------------------------------------------------------------------

TripCount = float | int | str | Callable[[dict[str, Any]], float]

_SOURCE_TRIPS = re.compile(r"//\s*trips?\s*[:=]\s*(.+?)\s*$", re.IGNORECASE)


def source_trip_counts(source: str) -> dict[str, str]:
    """Trip counts written in the source: ``// trips: <expression>`` on the line of a loop.

    The expression is over the configuration's parameters (``N / TILE``) and is evaluated per
    configuration; keys are ``"line:<n>"`` (1-based), matching the loop whose backward branch
    the compiler attributes to that line (compile with ``-lineinfo``; the ``for`` line in
    practice).

    >>> source_trip_counts("for (t = 0; t < N / TILE; t++) {  // trips: N / TILE\\n  x += 1;\\n")
    {'line:1': 'N / TILE'}
    """
    out = {}
    for number, text in enumerate(source.splitlines(), start=1):
        if m := _SOURCE_TRIPS.search(text):
            out[f"line:{number}"] = m.group(1)
    return out


@dataclass(frozen=True)
class SassCounts:
    """Dynamic instruction counts per thread of one kernel, from its SASS and the trip counts.

    ``instructions`` is the paper's ``Instr``; ``regions = blocking + 1`` its ``Regions``.
    ``trips`` is the trip count used per loop key; ``unannotated`` lists loops that were
    neither inferred nor annotated (they got the default); ``unused`` the annotations that
    matched no loop (e.g. a loop fully unrolled); ``notes`` where an annotation and the
    trip count read from the SASS disagree.
    """

    kernel: str
    instructions: float
    static_instructions: int
    by_class: dict[str, float]
    barriers: float
    load_consumers: float
    blocking: float
    regions: float
    trips: dict[str, float]
    unannotated: tuple[str, ...] = ()
    unused: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """A flat dict for a DataFrame row (classes as ``n_<class>``)."""
        out = {"instructions": self.instructions, "static_instructions": self.static_instructions,
               "barriers": self.barriers, "load_consumers": self.load_consumers, "blocking": self.blocking,
               "regions": self.regions, "loops": len(self.trips), "unannotated_loops": ", ".join(self.unannotated),
               "unused_trip_counts": ", ".join(self.unused), "trip_notes": "; ".join(self.notes)}
        out.update({f"n_{name}": value for name, value in sorted(self.by_class.items())})
        return out


def _resolve(value: TripCount, config: Mapping[str, Any] | None, key: str) -> float:
    if callable(value):
        if config is None:
            raise InputError(f"trip count for {key} is a function but no configuration was given", where=key,
                             hint="pass config=..., or give a number")
        value = value(dict(config))
    elif isinstance(value, str):
        try:
            value = evaluate_expression(value, dict(config or {}), label=f"trip count {key}")
        except InputError as exc:
            unknown = re.search(r"unknown parameter '(\w+)'", exc.message)
            if unknown:  # a macro the source defines itself (#define N 1024) is no parameter: say how to give it
                name = unknown.group(1)
                exc.hint = (f"{exc.hint}; for a macro that is not a tuning parameter, give its value: -D {name}=VALUE "
                            f"on the command line, constants {{{name!r}: VALUE}} in Python")
            raise
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"trip count for {key} is not a number: {value!r}", where=key,
                         hint="give a number, an expression over the parameters, or a function") from None
    if not number >= 0:
        raise InputError(f"trip count for {key} must be ≥ 0, got {number}", where=key, hint="give a count")
    return number


def _condition_line(kernel: KernelSass, loop: Loop) -> int | None:
    """The source line of the instruction in ``loop`` that sets its backward branch's predicate, if any."""
    body = [x for i, x in enumerate(kernel.instructions)
            if kernel.reachable[i] and loop.start <= x.address <= loop.end]
    if not body or not body[-1].predicate.startswith("@"):
        return None
    pred = body[-1].predicate.lstrip("@!")
    for x in reversed(body[:-1]):
        if x.operands.split(",", 1)[0].strip() == pred:
            return x.line
    return None


def _loop_trips(kernel: KernelSass, trip_counts: Mapping[Any, TripCount] | None, config: Mapping[str, Any] | None,
                default_trip: float, infer: bool
                ) -> tuple[list[float], dict[str, float], list[str], list[str], list[str]]:
    given = dict(trip_counts or {})
    used: set[Any] = set()
    trips, named, unannotated, notes = [], {}, [], []
    for loop in kernel.loops:
        keys = [loop.index, f"loop{loop.index}"] + ([f"line:{loop.line}", f"line {loop.line}"] if loop.line else [])
        # sm_100+ attribute the backward branch to the body's last line; its condition keeps the `for` line
        condition = _condition_line(kernel, loop)
        if condition is not None and condition != loop.line:
            keys += [f"line:{condition}", f"line {condition}"]
        hit = next((k for k in keys if k in given), None)
        inferred = infer_trip_count(kernel, loop) if infer else None
        if hit is not None:
            used.add(hit)
        if inferred is not None:
            value = float(inferred)
            if hit is not None and (annotated := _resolve(given[hit], config, str(hit))) != value:
                notes.append(f"loop{loop.index} ({hit}): annotated {annotated:g}, the SASS counter gives "
                             f"{value:g} (the compiler unrolled or rotated it); used {value:g}")
        elif hit is not None:
            value = _resolve(given[hit], config, str(hit))
        elif "*" in given:
            used.add("*")
            value = _resolve(given["*"], config, "*")
        else:
            value = float(default_trip)
            unannotated.append(f"loop{loop.index}")
        trips.append(value)
        named[f"loop{loop.index}" + (f"@line:{loop.line}" if loop.line else "")] = value
    unused = [str(k) for k in given if k not in used and k != "*"]
    return trips, named, unannotated, unused, notes


_REGISTER = re.compile(r"(?<![\w.])R(\d+)\b")


def _destinations(ins: Instruction) -> set[int]:
    if ins.base in _NO_DESTINATION or not ins.operands:
        return set()
    first = ins.operands.split(",", 1)[0].strip()
    if first.startswith("[") or not (m := re.match(r"^R(\d+)\b", first)):
        return set()
    start = int(m.group(1))
    width = 4 if ".128" in ins.opcode else 2 if ".64" in ins.opcode else 1
    return set(range(start, start + width)) if ins.base in LONG_LATENCY_LOADS else {start}


def _sources(ins: Instruction) -> set[int]:
    operands = ins.operands
    if ins.base not in _NO_DESTINATION and operands:
        head, _, rest = operands.partition(",")
        # The destination is written, not read; an address in brackets in it is read.
        operands = " ".join(re.findall(r"\[[^\]]*\]", head)) + "," + rest
    return {int(r) for r in _REGISTER.findall(operands)}


def _mask(registers: set[int]) -> int:
    """A set of register numbers as a bit mask."""
    out = 0
    for r in registers:
        out |= 1 << r
    return out


def _is_waiting_barrier(ins: Instruction) -> bool:
    if ins.base == "BAR":
        return ".ARV" not in ins.opcode  # arrive does not wait
    if ins.base == "DEPBAR":
        return True
    return ins.base == "SYNCS" and ("TRYWAIT" in ins.opcode or "PHASECHK" in ins.opcode)


def blocking_instructions(kernel: KernelSass) -> tuple[list[bool], list[bool]]:
    """Per instruction: (waits at a barrier, first consumer of a pending long-latency load).

    Forward data-flow to a fixed point: the set of registers awaited from long-latency loads,
    joined (union) where paths meet, so loads issued at the end of a loop body reach its start.
    """
    ins = kernel.instructions
    index_of = {x.address: i for i, x in enumerate(ins)}
    preds: list[list[int]] = [[] for _ in ins]
    for i, ok in enumerate(kernel.reachable):
        if ok:
            for j in _successors(ins, i, index_of):
                preds[j].append(i)
    # register sets as bit masks (bit r: register r): the passes over a space's unrolled kernels (up to ~20,000
    # instructions each, thousands of kernels) are dominated by these unions
    reads_of = [_mask(_sources(x)) if ok else 0 for x, ok in zip(ins, kernel.reachable)]
    written_of = [_mask(_destinations(x)) if ok else 0 for x, ok in zip(ins, kernel.reachable)]
    loads = [x.base in LONG_LATENCY_LOADS for x in ins]
    pending_out = [0] * len(ins)
    consumer = [False] * len(ins)
    changed, rounds = True, 0
    # "A consumer clears everything" is not monotone, so cap the rounds; real code settles in 2-4.
    while changed and rounds < 100:
        changed, rounds = False, rounds + 1
        for i in range(len(ins)):
            if not kernel.reachable[i]:
                continue
            state = 0
            for p in preds[i]:
                state |= pending_out[p]
            waits = bool(reads_of[i] & state)
            if waits:
                state = 0
            written = written_of[i]
            state &= ~written
            if loads[i] and written:
                state |= written
            consumer[i] = waits
            if state != pending_out[i]:
                pending_out[i] = state
                changed = True
    barrier = [kernel.reachable[i] and _is_waiting_barrier(x) for i, x in enumerate(ins)]
    return barrier, [c and kernel.reachable[i] for i, c in enumerate(consumer)]


_IMMEDIATE = re.compile(r"^(-)?(0x[0-9a-fA-F]+|\d+)$")


def _immediate(text: str) -> int | None:
    m = _IMMEDIATE.match(text.strip())
    return (-1 if m.group(1) else 1) * int(m.group(2), 0) if m else None


def _counter_update(ins: Instruction, reg: str) -> int | None:
    """The step of ``reg += step`` (IADD3/VIADD/IADD/IADD32I/IMAD.IADD with an immediate), else None."""
    ops = [o.strip() for o in ins.operands.split(",")]
    if not ops or ops[0] != reg or ins.base not in ("IADD3", "VIADD", "IADD", "IADD32I", "IMAD"):
        return None
    if ins.base == "IMAD" and ".IADD" not in ins.opcode:
        return None
    rest = [o.split(".reuse")[0] for o in ops[1:] if o not in ("RZ", "PT", "!PT")]
    if len(rest) == 2 and reg in rest:
        other = rest[1] if rest[0] == reg else rest[0]
        return _immediate(other)
    return None


def _initial_value(ins: Instruction, reg: str) -> int | None:
    """The constant ``reg`` is set to by a move before the loop (MOV, IMAD.MOV, CS2R, HFMA2.MMA zero)."""
    ops = [o.strip() for o in ins.operands.split(",")]
    if not ops or ops[0] != reg:
        return None
    if ins.base in ("MOV", "MOV32I") and len(ops) >= 2:
        return 0 if ops[1] == "RZ" else _immediate(ops[1])
    if ins.base == "IMAD" and ".MOV" in ins.opcode and len(ops) == 4 and ops[1] == "RZ":
        return 0 if ops[3] == "RZ" else _immediate(ops[3])
    if ins.base == "CS2R" and len(ops) == 2 and ops[1] == "SRZ":
        return 0
    if ins.base == "HFMA2" and ops[1:] in (["-RZ", "RZ", "0", "0"], ["RZ", "RZ", "0", "0"]):
        return 0
    return None


def _writes(ins: Instruction, reg: str) -> bool:
    first = ins.operands.split(",", 1)[0].strip()
    return ins.base not in _NO_DESTINATION and (first == reg or first.startswith(reg + "."))


_CMP = {"LT": lambda a, b: a < b, "LE": lambda a, b: a <= b, "GT": lambda a, b: a > b,
        "GE": lambda a, b: a >= b, "EQ": lambda a, b: a == b, "NE": lambda a, b: a != b}


def infer_trip_count(kernel: KernelSass, loop: Loop, limit: int = 1 << 31) -> int | None:
    """The trip count of a loop whose counter the SASS shows, else ``None``.

    Recognises the shape compilers emit for loops with compile-time bounds (as tuning
    parameters given as ``-D`` macros make them): a counter set to a constant before the loop
    (``MOV R0, RZ``), stepped once in the body by a constant (``IADD3 R0, R0, 0x2, RZ``) and
    compared with a constant to decide the backward branch (``ISETP.NE.AND P0, PT, R0, 0x80, PT``
    + ``@P0 BRA``). The count is the SASS loop's, so a loop the compiler unrolled 2× shows half
    the source count. Anything else (bounds from kernel arguments, several updates) gives None.

    >>> k = parse_sass(EXAMPLE.replace("LDG.E R2, [R4.64]", "IADD3 R7, R7, 0x2, RZ").replace(
    ...     "S2R R0, SR_TID.X", "MOV R7, RZ").replace("FADD R3, R2, R3", "ISETP.NE.AND P0, PT, R7, 0x80, PT"))["k"]
    >>> infer_trip_count(k, k.loops[0])
    64
    """
    body = [(i, x) for i, x in enumerate(kernel.instructions)
            if kernel.reachable[i] and loop.start <= x.address <= loop.end]
    branch = body[-1][1] if body else None
    if branch is None or branch.address != loop.end or not branch.predicate.startswith("@"):
        return None
    negated = branch.predicate.startswith("@!")
    pred = branch.predicate.lstrip("@!")
    compare = None
    for _, x in reversed(body[:-1]):
        if x.base == "ISETP" and x.operands.split(",", 1)[0].strip() == pred:
            compare = x
            break
    if compare is None:
        return None
    ops = [o.strip().split(".reuse")[0] for o in compare.operands.split(",")]
    parts = compare.opcode.split(".")
    cmp = next((p for p in parts[1:] if p in _CMP), None)
    if cmp is None or len(ops) != 5 or ops[1] != "PT" or ops[4] not in ("PT", "!PT") or not re.match(r"^R\d+$", ops[2]):
        return None
    counter, bound = ops[2], _immediate(ops[3])
    if bound is None:
        return None
    updates = [(i, x) for i, x in body if _writes(x, counter)]
    if len(updates) != 1 or (step := _counter_update(updates[0][1], counter)) is None or step == 0:
        return None
    incremented_first = updates[0][1].address < compare.address
    start_index = body[0][0]
    init = None
    for x in reversed(kernel.instructions[:start_index]):
        if _writes(x, counter):
            init = _initial_value(x, counter)
            break
    if init is None:
        return None
    unsigned = "U32" in parts
    wrap = (lambda v: v % (1 << 32)) if unsigned else (lambda v: v)
    op = _CMP[cmp]

    def keeps_going(k: int) -> bool:  # after iteration k (1-based)
        value = init + step * (k if incremented_first else k - 1)
        return op(wrap(value), wrap(bound)) != negated

    if cmp in ("EQ", "NE"):
        if not keeps_going(1):
            return 1
        # NE continues until the counter hits the bound exactly; EQ stops after the first step.
        if cmp == "EQ" or negated:
            return 2 if not keeps_going(2) else None
        offset = bound - init - (step if incremented_first else 0)
        if offset % step or offset // step < 0:
            return None
        return offset // step + 1
    if not keeps_going(1):
        return 1
    lo, hi = 1, 2
    while keeps_going(hi):  # the counter moves monotonically: find the first k that stops
        lo, hi = hi, hi * 2
        if hi > limit:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if keeps_going(mid) else (lo, mid)
    return hi


def trip_weights(kernel: KernelSass, trips: Sequence[float]) -> list[float]:
    """How often each instruction runs per thread: the product of the trip counts of the loops around it."""
    weights = []
    for ins in kernel.instructions:
        weight = 1.0
        for loop, trip in zip(kernel.loops, trips):
            if loop.start <= ins.address <= loop.end:
                weight *= trip
        weights.append(weight)
    return weights


def count_instructions(kernel: KernelSass, trip_counts: Mapping[Any, TripCount] | None = None, *,
                       config: Mapping[str, Any] | None = None, default_trip: float = 1.0,
                       infer: bool = True) -> SassCounts:
    """Dynamic instructions per thread, by class, and the blocking instructions, of one kernel.

    Parameters
    ----------
    kernel:
        From :func:`parse_sass` / :func:`kernel_sass`.
    trip_counts:
        Per loop: keys ``0``/``"loop0"`` (index), ``"line:46"`` (source line of the loop's
        backward branch) or ``"*"`` (every loop not named); values a number, an expression
        over the configuration's parameters, or a function of the configuration.
    config:
        The configuration, for expressions and functions.
    default_trip:
        Trip count of loops neither inferred nor annotated (1: counted once, as in the static code).
    infer:
        Read the trip count from the SASS where the loop's counter and bounds are constants
        (:func:`infer_trip_count`); it then wins over an annotation, and a disagreement is
        reported in ``notes`` (typically a loop the compiler unrolled on its own).
    """
    trips, named, unannotated, unused, notes = _loop_trips(kernel, trip_counts, config, default_trip, infer)
    barrier, consumer = blocking_instructions(kernel)
    by_class: dict[str, float] = {}
    total = barriers = consumers = 0.0
    static = 0
    weights = trip_weights(kernel, trips)
    for i, ins in enumerate(kernel.instructions):
        if not kernel.reachable[i]:
            continue
        static += 1
        weight = weights[i]
        total += weight
        by_class[ins.klass] = by_class.get(ins.klass, 0.0) + weight
        barriers += weight * barrier[i]
        consumers += weight * consumer[i]
    blocking = barriers + consumers
    return SassCounts(kernel=kernel.name, instructions=total, static_instructions=static, by_class=by_class,
                      barriers=barriers, load_consumers=consumers, blocking=blocking, regions=blocking + 1,
                      trips=named, unannotated=tuple(unannotated), unused=tuple(unused), notes=tuple(notes))


# --- disassembling ----------------------------------------------------------------------------------

def disassemble(cubin: str | Path, *, line_info: bool = True, toolchain: Any = None, arch: str | None = None) -> str:
    """SASS text of a cubin: ``nvdisasm -c [-g]``, else ``cuobjdump -sass``.

    Raises :class:`~starchart.errors.StarchartError` with an install hint when neither tool
    exists or none reads this architecture (``nvdisasm`` 13.x refuses sm_70).
    """
    path = Path(cubin)
    if not path.is_file():
        raise InputError(f"no cubin {path}", where=path, hint="compile the kernel first (ResourceCompiler)")
    tc = toolchain or find_toolchain()
    sm = int(re.sub(r"\D", "", arch or "") or _cubin_sm(path) or 0)
    errors = []
    for name in ("nvdisasm", "cuobjdump"):
        tool = tc.pick(name, sm) if sm else (getattr(tc, name)[0] if getattr(tc, name) else None)
        if tool is None:
            continue
        cmd = [str(tool.path), "-c", *(["-g"] if line_info else []), str(path)] if name == "nvdisasm" else \
              [str(tool.path), "-sass", str(path)]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
        if out.returncode == 0 and "/*0000*/" in out.stdout:
            return out.stdout
        errors.append(f"{tool.path.name}: {(out.stderr or out.stdout).strip()[:300]}")
    detail = "; ".join(errors) or "no nvdisasm or cuobjdump found"
    raise StarchartError(f"cannot disassemble {path.name} (sm_{sm or '?'}): {detail}",
                         hint=CARVE_HINT + ("; for sm_70 use a CUDA 12 toolkit's nvdisasm" if sm == 70 else ""))


def _cubin_sm(path: Path) -> int | None:
    """The sm of a cubin from its ELF header flags (low byte of e_flags on CUDA ELF)."""
    try:
        head = path.read_bytes()[:64]
    except OSError:
        return None
    if head[:4] != b"\x7fELF" or len(head) < 52:
        return None
    flags = int.from_bytes(head[48:52], "little")
    # e_flags holds the sm: bits 0-7 in the classic CUDA ELF (OS ABI 51), bits 8-15 in the
    # newer one nvcc 13 writes (OS ABI 65).
    sm = (flags >> 8) & 0xFF if head[7] == 65 else flags & 0xFF
    return sm if 30 <= sm <= 200 else None


def kernel_sass(cubin: str | Path, kernel: str, *, line_info: bool = True, toolchain: Any = None,
                cache: bool = True) -> KernelSass:
    """Disassemble ``cubin`` (kept beside it as ``.sass`` when ``cache``) and return ``kernel``'s SASS."""
    path = Path(cubin)
    sass_file = path.with_suffix(".g.sass" if line_info else ".sass")
    if cache and sass_file.is_file():
        text = sass_file.read_text()
    else:
        text = disassemble(path, line_info=line_info, toolchain=toolchain)
        if cache:  # whole or not at all: a file cut short by Ctrl-C would be read as the kernel's code next time
            partial = sass_file.with_name(f"{sass_file.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            try:
                partial.write_text(text)
                partial.replace(sass_file)
            finally:
                partial.unlink(missing_ok=True)
    functions = parse_sass(text)
    # Reuse the name matching of the resource parsers (exact, else C++-mangled).
    found = find_kernel([ResourceUsage(name, 0, 0) for name in functions], kernel)
    return functions[found.kernel]


def sass_counts_frame(frame: pd.DataFrame, kernel: str, trip_counts: Mapping[Any, TripCount] | None = None, *,
                      params: list[str] | None = None, constants: Mapping[str, Any] | None = None,
                      cubin_column: str = "cubin", default_trip: float = 1.0, toolchain: Any = None,
                      jobs: int = 1, progress: Any = False) -> pd.DataFrame:
    """Instruction counts of every row of a :meth:`ResourceCompiler.frame` result.

    ``trip_counts`` values may be expressions over the parameters or functions of the
    configuration: the row's ``params`` columns (default: the columns before ``registers``)
    plus ``constants`` (macros that are not tuning parameters, e.g. ``{"N": 1024}``).
    Rows without a cubin (compile errors) get NaN. Returns the count columns of
    :meth:`SassCounts.as_dict`, indexed like ``frame``.

    Each cubin is disassembled once (``jobs`` at a time; the SASS is kept beside it), with
    ``progress`` as in :mod:`starchart.carve.progress` (step ``"disassembling"``).
    """
    if cubin_column not in frame.columns:
        raise InputError(f"no {cubin_column!r} column", where=cubin_column,
                         hint="pass the frame returned by ResourceCompiler.frame()")
    if params is None:
        columns = list(frame.columns)
        params = columns[:columns.index("registers")] if "registers" in columns else []
    cubins = {c: c for c in frame[cubin_column] if isinstance(c, str) and c}
    cache: dict[str, KernelSass] = {}
    with step_progress(progress) as bar:  # the slow part: one nvdisasm per cubin
        if cubins:
            bar.start("disassembling", len(cubins))

        def finished(cubin: str, sass: KernelSass) -> None:
            cache[cubin] = sass
            bar.advance("disassembling")

        _each(lambda c: kernel_sass(c, kernel, toolchain=toolchain), cubins, max(1, int(jobs)), finished)
    rows = []
    for _, row in frame.iterrows():
        cubin = row[cubin_column]
        if not isinstance(cubin, str) or not cubin:
            rows.append({})
            continue
        config = {**dict(constants or {}), **{p: row[p] for p in params}}
        rows.append(count_instructions(cache[cubin], trip_counts, config=config, default_trip=default_trip).as_dict())
    out = pd.DataFrame(rows, index=frame.index)
    # the count columns even when no row compiled, so that callers can always select them
    for column in ("instructions", "static_instructions", "barriers", "load_consumers", "blocking", "regions"):
        if column not in out.columns:
            out[column] = float("nan")
    return out
