"""Shared-memory wavefronts counted from SASS: bank conflicts known before anything runs.

Ryoo et al.'s metrics count instructions, so a shared load that hits one bank eight times costs what
a conflict-free one costs. On Volta and later the shared-memory pipe serves a warp's access in
**wavefronts**: one when the 32 lanes touch distinct banks (or the same word, broadcast), and one more
for every further distinct 32-bit word a bank must deliver. Nsight Compute counts them
(``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum``); this module predicts them from the code.

How (for one kernel and one block shape):

1. **Values per thread.** Every integer register holds its value in each thread of the block: exactly where
   it follows from ``threadIdx``, immediates, the block shape (``blockDim`` is ``c[0x0][0x0..0x8]`` on
   sm_70–sm_90) and integer arithmetic (``IMAD``, ``IADD3``, ``LEA``/``LEA.HI``, ``SHF``, ``LOP3``,
   ``IMNMX``, ``SEL``...); as "one unknown number, the same in every thread, plus a known offset per thread"
   where a block-uniform unknown enters (``blockIdx``, kernel arguments, uniform registers); and as unknown
   otherwise (loaded values, float arithmetic). Predicates set by ``ISETP`` on known values are kept per
   thread too.
2. **The block runs like a SIMT machine.** A branch on a per-thread predicate splits the threads; the lowest
   address runs first, so a loop's threads finish it before those that left it go on, and threads meeting
   at an address merge. So ``for (j = tx; j < W; j += BX)`` runs each thread its own trip count, and its tail
   stores come from the threads with ``j < W`` only. A loop on an unknown bound runs its trip count
   (read from the SASS or annotated, as for :func:`~starchart.carve.sass.count_instructions`); a forward
   branch on an unknown predicate sends every thread both ways (both sides of an ``if`` count, as for
   instructions). Code too long to run (over 50,000 instructions for a group of threads, or as many for one
   thread without divergence: about half a second) falls back to a fixed point of the same values over the
   control-flow graph, each access weighted by its loops' trip counts.
3. **Wavefronts per access.** For each ``LDS``/``STS``/``ATOMS``/``LDSM`` run, each warp's active lanes are
   split into the phases the hardware serves at once (32 lanes for 32-bit accesses, 16 for 64-bit, 8 for
   128-bit) and each phase costs the largest number of distinct 32-bit words any one bank must deliver. A
   block-uniform unknown part of an address shifts every lane's bank alike and changes nothing; an address
   unknown per thread is counted conflict-free and reported (``unknown``).
4. **Per warp.** Each access's wavefronts are averaged over the block's warps and summed over its runs.

The same run also counts, per warp, the instructions issued (every instruction a warp runs with a lane active:
``executed_instructions``, each loop its threads' own trips, where the static count takes a loop whose trip count
differs per thread as running once), the blocking points among them (``executed_regions``), and the 32-byte
sectors its global loads and stores touch against the fewest their bytes could take (``coalescing``; the
block-uniform part of an address, the array's base and ``blockIdx``, is taken as 32-byte aligned).

Checked against Nsight Compute on KTT's convolution (5,280 configurations of an RTX 2080 Ti), wavefronts and
executed instructions: ``benchmarks/carving_conflicts.py`` and ``docs/carving.md``.

Limits, stated: 8- and 16-bit accesses count as the 32-bit word they touch; ``LDSM`` is counted like a
32-bit load of its address operand; the block shape must be given (the SASS does not know it).

Examples
--------
A 32×32 tile read by columns (stride 32 words: every lane in one bank) and by rows:

>>> text = '''
... .text.k:
...         /*0000*/                   S2R R0, SR_TID.X ;
...         /*0010*/                   SHF.L.U32 R1, R0, 0x7, RZ ;
...         /*0020*/                   LDS R2, [R1] ;
...         /*0030*/                   LDS R3, [R0.X4+0x80] ;
...         /*0040*/                   EXIT ;'''
>>> from starchart.carve.sass import parse_sass
>>> report = shared_wavefronts(parse_sass(text)["k"], (32, 1, 1))
>>> report.accesses[["opcode", "wavefronts", "ideal"]].to_dict("list")
{'opcode': ['LDS', 'LDS'], 'wavefronts': [32.0, 1.0], 'ideal': [1.0, 1.0]}
>>> report.load_wavefronts, report.conflict_wavefronts
(33.0, 31.0)
"""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from starchart._util.files import write_json_atomic
from starchart.carve.metrics import Spec, resolve
from starchart.carve.progress import ProgressOption, step_progress
from starchart.carve.sass import (
    KernelSass,
    TripCount,
    _loop_trips,
    _successors,
    blocking_instructions,
    kernel_sass,
    trip_weights,
)
from starchart.errors import InputError

__all__ = ["SharedWavefronts", "block_shape", "shared_wavefronts", "shared_wavefronts_frame"]

#: Opcodes that access shared memory, and whether they load (``True``) or store.
_SHARED = {"LDS": True, "LDSM": True, "STS": False, "STSM": False, "ATOMS": True}
#: Global-memory accesses whose sectors the block run counts.
_GLOBAL = frozenset({"LDG", "STG"})
_MASK32 = (1 << 32) - 1


@dataclass(frozen=True)
class _Value:
    """A register's value in every thread: ``lanes`` exactly, or ``lanes`` plus one unknown block-uniform number."""

    lanes: np.ndarray
    exact: bool

    def same(self, other: _Value | None) -> bool:
        return other is not None and self.exact == other.exact and np.array_equal(self.lanes, other.lanes)


def _uniform(value: _Value) -> bool:
    return bool((value.lanes == value.lanes[0]).all())


def _inexact(lanes: np.ndarray) -> _Value:
    # the unknown part absorbs any constant, so keep the offsets from thread 0: equal patterns compare equal
    return _Value(lanes - lanes[0], False)


def _join(a: _Value | None, b: _Value | None) -> _Value | None:
    """Where two paths meet: equal values stay; values differing by a block-uniform amount keep their pattern."""
    if a is None or b is None:
        return None
    if a.same(b):
        return a
    diff = a.lanes - b.lanes
    if (diff == diff[0]).all():
        return _inexact(a.lanes)
    return None


def _add(a: _Value | None, b: _Value | None) -> _Value | None:
    if a is None or b is None:
        return None
    lanes = a.lanes + b.lanes
    return _Value(_signed(lanes), True) if a.exact and b.exact else _inexact(lanes)


def _mul(a: _Value | None, b: _Value | None) -> _Value | None:
    if a is None or b is None:
        return None
    if a.exact and b.exact:  # 32-bit registers wrap, as the hardware's do
        return _Value(_signed((a.lanes & _MASK32) * (b.lanes & _MASK32)), True)
    known, other = (a, b) if a.exact else (b, a) if b.exact else (None, None)
    if known is not None and other is not None and _uniform(known):
        return _inexact(other.lanes * known.lanes[0])  # (u + v) × k = u·k + v·k
    if _uniform(a) and _uniform(b):
        return _inexact(np.zeros_like(a.lanes))  # a uniform product, unknown
    return None


def _exact_op(a: _Value | None, b: _Value | None, op: Any) -> _Value | None:
    if a is None or b is None or not (a.exact and b.exact):
        if a is not None and b is not None and _uniform(a) and _uniform(b):
            return _inexact(np.zeros_like(a.lanes))
        return None
    return _Value(op(a.lanes, b.lanes), True)


def _lop3(a: _Value | None, b: _Value | None, c: _Value | None, lut: int) -> _Value | None:
    if a is None or b is None or c is None:
        return None
    if not (a.exact and b.exact and c.exact):
        return _inexact(np.zeros_like(a.lanes)) if _uniform(a) and _uniform(b) and _uniform(c) else None
    x, y, z = (v.lanes & _MASK32 for v in (a, b, c))
    out = np.zeros_like(x)
    for bit in range(8):  # LUT bit index = a<<2 | b<<1 | c over the operand bits
        if lut >> bit & 1:
            ta = x if bit & 4 else ~x
            tb = y if bit & 2 else ~y
            tc = z if bit & 1 else ~z
            out |= ta & tb & tc
    return _Value(_signed(out & _MASK32), True)


def _signed(lanes: np.ndarray) -> np.ndarray:
    lanes = lanes & _MASK32
    return np.where(lanes >= 1 << 31, lanes - (1 << 32), lanes)


@dataclass
class _State:
    regs: dict[str, _Value]
    preds: dict[str, np.ndarray]
    active: np.ndarray | None  # threads that reach here (None: unknown, counted as all)

    def copy(self) -> _State:
        return _State(dict(self.regs), dict(self.preds), self.active)

    def same(self, other: _State | None) -> bool:
        if other is None or self.regs.keys() != other.regs.keys() or self.preds.keys() != other.preds.keys():
            return False
        if self.active is None or other.active is None:
            if self.active is not other.active:
                return False
        elif not np.array_equal(self.active, other.active):
            return False
        return all(v.same(other.regs[k]) for k, v in self.regs.items()) and all(
            np.array_equal(v, other.preds[k]) for k, v in self.preds.items())


def _join_states(a: _State | None, b: _State) -> _State:
    if a is None:
        return b.copy()
    regs = {k: v for k in a.regs.keys() & b.regs.keys() if (v := _join(a.regs[k], b.regs[k])) is not None}
    preds = {k: a.preds[k] for k in a.preds.keys() & b.preds.keys() if np.array_equal(a.preds[k], b.preds[k])}
    active = None if a.active is None or b.active is None else a.active | b.active
    return _State(regs, preds, active)


_IMM = re.compile(r"^(-)?(0x[0-9a-fA-F]+|\d+)$")
_REGISTER = re.compile(r"U?R\d+")
_PREDICATE = re.compile(r"!?U?P(\d+|T)")
_CONST = re.compile(r"^c\[0x0\]\[(0x[0-9a-fA-F]+)\]$")
_ADDRESS = re.compile(r"\[([^\]]*)\]")


class _Machine:
    """Evaluates integer SASS per thread of one block (see the module docstring)."""

    def __init__(self, block: tuple[int, int, int]):
        self.block = block
        n = block[0] * block[1] * block[2]
        t = np.arange(n, dtype=np.int64)
        self.threads = n
        self.special = {"SR_TID.X": t % block[0], "SR_TID.Y": t // block[0] % block[1],
                        "SR_TID.Z": t // (block[0] * block[1]), "SR_LANEID": t % 32}
        # blockDim on sm_70–sm_90 (c[0x0][0x0], [0x4], [0x8]); the grid and the arguments stay unknown
        self.constants = {0: block[0], 4: block[1], 8: block[2]}

    def known(self, number: int) -> _Value:
        return _Value(np.full(self.threads, number, dtype=np.int64), True)

    def uniform(self) -> _Value:
        return _Value(np.zeros(self.threads, dtype=np.int64), False)

    def operand(self, text: str, state: _State) -> _Value | None:
        text = text.strip().replace(".reuse", "")
        negate = text.startswith("-")
        text = text.lstrip("-")
        value: _Value | None
        if text in ("RZ", "URZ"):
            value = self.known(0)
        elif _REGISTER.fullmatch(text):
            value = state.regs.get(text, self.uniform() if text.startswith("U") else None)
        elif m := _IMM.match(text):
            value = self.known(int(m.group(2), 0))
        elif m := _CONST.match(text):
            offset = int(m.group(1), 16)
            value = self.known(self.constants[offset]) if offset in self.constants else self.uniform()
        elif text.startswith("c["):
            value = self.uniform()
        else:
            return None
        if negate and value is not None:
            value = _Value(-value.lanes, value.exact)
        return value

    def predicate(self, text: str, state: _State) -> np.ndarray | None:
        text = text.strip().lstrip("@")
        negate = text.startswith("!")
        name = text.lstrip("!")
        if name in ("PT", "UPT"):
            mask: np.ndarray | None = np.ones(self.threads, dtype=bool)
        else:
            mask = state.preds.get(name)
        if mask is None:
            return None
        return ~mask if negate else mask

    def address(self, operands: str, state: _State) -> _Value | None:
        """The byte address of a ``[R2.X4+UR4+0x10]`` operand."""
        m = _ADDRESS.search(operands)
        if not m:
            return None
        total: _Value | None = self.known(0)
        for part in m.group(1).replace("-", "+-").split("+"):
            part = part.strip()
            if not part:
                continue
            scale = 1
            if part.endswith(".X4"):
                part, scale = part[:-3], 4
            elif part.endswith(".X8"):
                part, scale = part[:-3], 8
            elif part.endswith(".X16"):
                part, scale = part[:-4], 16
            term = self.operand(part.replace(".64", "").replace(".U32", ""), state)
            total = _add(total, _mul(term, self.known(scale)) if scale != 1 else term)
        return total

    def step(self, ins: Any, state: _State) -> None:
        """Apply one instruction to ``state`` (in place)."""
        ops = [o.strip() for o in ins.operands.split(",")] if ins.operands else []
        base, opcode = ins.base, ins.opcode
        value: _Value | None = None
        dest = ops[0] if ops and _REGISTER.fullmatch(ops[0].replace(".reuse", "")) else None
        args = [o for o in ops[1:] if not _PREDICATE.fullmatch(o)]
        guard = self.predicate(ins.predicate, state) if ins.predicate else None
        if base == "ISETP" and len(ops) >= 4:
            self._isetp(opcode, ops, state, guard if ins.predicate else np.ones(self.threads, dtype=bool))
            return
        if dest is None:  # a predicate written (LOP3 P0, ..., FSETP...): no longer known
            if ops and _PREDICATE.fullmatch(ops[0]):
                state.preds.pop(ops[0].lstrip("!"), None)
            return
        get = lambda i: self.operand(args[i], state) if i < len(args) else None  # noqa: E731
        if base == "S2R" and args:
            lanes = self.special.get(args[0])
            value = _Value(lanes.copy(), True) if lanes is not None else (
                self.uniform() if args[0].startswith("SR_CTAID") else None)
        elif base == "CS2R" and args and args[0] == "SRZ":
            value = self.known(0)
            state.regs[_next(dest)] = self.known(0)
        elif base == "HFMA2" and len(args) >= 4 and args[0].lstrip("-") == "RZ" and args[1] == "RZ":
            value = self._half_pair(args[2], args[3])  # 0 × 0 + (hi, lo): how ptxas loads a small constant
        elif base in ("MOV", "MOV32I", "UMOV", "ULDC"):
            value = get(0) if base != "ULDC" else self.operand(args[0], state)
        elif base == "IMAD" and not any(m in opcode for m in (".WIDE", ".HI", ".X")):
            if ".MOV" in opcode:
                value = get(2)
            else:
                value = _add(_mul(get(0), get(1)), get(2))
        elif base == "IMAD" and ".WIDE" in opcode:  # a 64-bit address: its low word (the high one stays unknown)
            value = _add(_mul(get(0), get(1)), get(2))
        elif base in ("IADD3", "UIADD3") and ".X" not in opcode:
            value = _add(_add(get(0), get(1)), get(2))
        elif base in ("IADD", "IADD32I", "VIADD", "UIADD") and ".X" not in opcode:
            value = _add(get(0), get(1))
        elif base in ("LEA", "ULEA") and ".HI" not in opcode and len(args) >= 3:
            shift = get(2)
            value = _add(_mul(get(0), self.known(1 << int(shift.lanes[0])))
                         if shift is not None and shift.exact and _uniform(shift) else None, get(1))
        elif base in ("LEA", "ULEA") and ".HI" in opcode and ".X" not in opcode and len(args) >= 4:
            value = self._lea_hi(opcode, get(0), get(1), get(2), get(3))
        elif base in ("SHF", "USHF") and len(args) >= 3:
            value = self._shift(opcode, get(0), get(1), get(2))
        elif base in ("LOP3", "ULOP3") and len(args) >= 4:
            lut = self.operand(args[3], state)
            value = _lop3(get(0), get(1), get(2), int(lut.lanes[0])) if lut is not None and lut.exact else None
        elif base == "IMNMX" and len(ops) >= 4:
            pick = np.minimum if ops[3].strip() == "PT" else np.maximum  # PT: the minimum, !PT: the maximum
            value = _exact_op(get(0), get(1), pick)
        elif base == "SEL" and len(ops) >= 4:
            mask = self.predicate(ops[3], state)
            a, b = get(0), get(1)
            if mask is not None and a is not None and b is not None and a.exact and b.exact:
                value = _Value(np.where(mask, a.lanes, b.lanes), True)
            else:
                value = _join(a, b)
        elif base.startswith("U"):  # other uniform-datapath results: the same in every thread, unknown
            value = self.uniform()
        width = 4 if ".128" in opcode else 2 if (".64" in opcode or ".WIDE" in opcode) else 1
        if ins.predicate and value is not None:
            old = state.regs.get(dest)
            if guard is not None and old is not None and old.exact and value.exact:
                value = _Value(np.where(guard, value.lanes, old.lanes), True)
            else:
                value = _join(old, value)
        for k in range(width):
            name = dest if k == 0 else _next(dest, k)
            if k == 0 and value is not None:
                state.regs[name] = value
            else:
                state.regs.pop(name, None)

    def _half_pair(self, high: str, low: str) -> _Value | None:
        """The 32 bits of two fp16 immediates, ``high`` in the upper half."""
        try:
            bits = [int(np.array(float(h), dtype=np.float16).view(np.uint16)) for h in (high, low)]
        except ValueError:
            return None
        return self.known(bits[0] << 16 | bits[1])

    def _lea_hi(self, opcode: str, a: _Value | None, b: _Value | None, hi: _Value | None,
                amount: _Value | None) -> _Value | None:
        """``LEA.HI d, a, b, hi, s`` = b + the high word of ``(hi:a) << s`` (how ``x / 2^k`` is rounded)."""
        if a is None or b is None or hi is None or amount is None:
            return None
        if not (a.exact and b.exact and hi.exact and amount.exact and _uniform(amount)):
            return None
        s = int(amount.lanes[0]) & 31
        low = a.lanes & _MASK32
        # the high word: a's sign for .SX32 (a sign-extended to 64 bits), else the hi operand
        high = np.where(_signed(a.lanes) < 0, _MASK32, 0) if ".SX32" in opcode else hi.lanes & _MASK32
        shifted = ((high << s) | (low >> (32 - s) if s else 0)) & _MASK32
        return _Value(_signed(b.lanes + shifted), True)

    def _shift(self, opcode: str, lo: _Value | None, amount: _Value | None, hi: _Value | None) -> _Value | None:
        if amount is None or not amount.exact or not _uniform(amount):
            return None
        s = int(amount.lanes[0]) & 31
        if ".L." in opcode and (".U32" in opcode or ".S32" in opcode) and ".HI" not in opcode:
            return _mul(lo, self.known(1 << s))
        if ".R." in opcode and ".HI" in opcode and hi is not None and hi.exact:
            lanes = hi.lanes & _MASK32 if ".U32" in opcode else _signed(hi.lanes)
            return _Value(_signed(lanes >> s), True)
        return None

    def _isetp(self, opcode: str, ops: list[str], state: _State, guard: np.ndarray | None) -> None:
        parts = opcode.split(".")
        cmp = next((p for p in parts if p in ("LT", "LE", "GT", "GE", "EQ", "NE")), None)
        combine = next((p for p in parts if p in ("AND", "OR", "XOR")), "AND")
        a, b = self.operand(ops[2], state), self.operand(ops[3], state)
        chained = self.predicate(ops[4], state) if len(ops) > 4 else np.ones(self.threads, dtype=bool)
        result = None
        if cmp and a is not None and b is not None and a.exact and b.exact and chained is not None:
            x, y = (a.lanes & _MASK32, b.lanes & _MASK32) if ".U32" in opcode else (_signed(a.lanes),
                                                                                   _signed(b.lanes))
            test = {"LT": x < y, "LE": x <= y, "GT": x > y, "GE": x >= y, "EQ": x == y, "NE": x != y}[cmp]
            result = {"AND": test & chained, "OR": test | chained, "XOR": test ^ chained}[combine]
        for name in ops[:2]:
            name = name.strip()
            if name in ("PT", "UPT"):
                continue
            state.preds.pop(name, None)
            if name == ops[0].strip() and result is not None:
                old = state.preds.get(name)
                if guard is None:
                    continue
                state.preds[name] = result if guard.all() or old is None else np.where(guard, result, old)


def _next(reg: str, k: int = 1) -> str:
    prefix = "UR" if reg.startswith("UR") else "R"
    return f"{prefix}{int(reg[len(prefix):]) + k}"


def _bytes_of(opcode: str) -> int:
    if ".128" in opcode:
        return 16
    if ".64" in opcode:
        return 8
    return 4


def _wavefronts(addresses: np.ndarray, active: np.ndarray, width: int, threads: int) -> tuple[np.ndarray, np.ndarray]:
    """Wavefronts and the conflict-free count per warp for one access (32 banks of 4 bytes)."""
    warps = -(-threads // 32)
    lanes_per_phase = 32 // (width // 4) if width > 4 else 32
    words = width // 4 if width > 4 else 1
    t = np.arange(threads)
    group = t // lanes_per_phase  # phase index over the whole block (a warp holds 32 / lanes_per_phase)
    phases = warps * (32 // lanes_per_phase)
    base = addresses // 4
    keys_group = np.repeat(group[active], words)
    word = (base[active][:, None] + np.arange(words)[None, :]).ravel()
    bank = word % 32
    out = np.zeros(phases)
    if len(word):
        triples = np.unique(np.stack([keys_group, bank, word]), axis=1)  # distinct words per (phase, bank)
        pairs, counts = np.unique(triples[:2], axis=1, return_counts=True)
        np.maximum.at(out, pairs[0], counts)
    ideal = np.zeros(phases)
    ideal[np.unique(group[active])] = 1.0
    per = 32 // lanes_per_phase
    return out.reshape(warps, per).sum(axis=1), ideal.reshape(warps, per).sum(axis=1)


def _sectors(addresses: np.ndarray, active: np.ndarray, width: int, threads: int) -> tuple[np.ndarray, np.ndarray]:
    """32-byte sectors each warp's request touches, and the fewest its bytes could take, for one global access."""
    warps = -(-threads // 32)
    warp = np.arange(threads) // 32
    first = addresses[active] // 32
    last = (addresses[active] + width - 1) // 32
    out = np.zeros(warps)
    keys = np.concatenate([np.stack([warp[active], first]), np.stack([warp[active], last])], axis=1)
    if keys.size:
        distinct = np.unique(keys, axis=1)
        np.add.at(out, distinct[0], 1.0)
    # the fewest: the distinct bytes asked for, packed (lanes reading one address share it: a broadcast)
    distinct_lanes = np.unique(np.stack([warp[active], addresses[active]]), axis=1)
    ideal = np.ceil(np.bincount(distinct_lanes[0], minlength=warps) * width / 32) if distinct_lanes.size else out * 0
    return out, ideal


@dataclass
class SharedWavefronts:
    """Shared-memory wavefronts of one kernel for one block shape (see :func:`shared_wavefronts`).

    Totals are per warp (the average warp of the block), each access weighted by how often it runs.
    """

    accesses: pd.DataFrame
    load_wavefronts: float
    store_wavefronts: float
    ideal_wavefronts: float
    shared_instructions: float
    unknown: int
    #: Warp instructions issued per warp of the block by the block run (NaN where it fell back to the fixed point):
    #: every instruction a warp runs with at least one lane active, each loop its threads' own trip count.
    executed_instructions: float = float("nan")
    #: The same run's blocking instructions per warp (barriers, first consumers of long-latency loads) + 1: the
    #: paper's ``Regions`` as executed.
    executed_regions: float = float("nan")
    #: 32-byte sectors per warp the run's global loads and stores touch (``LDG``/``STG`` with an address known per
    #: thread; a block-uniform unknown part, e.g. the array's base and ``blockIdx``, is taken as 32-byte aligned).
    global_sectors: float = float("nan")
    #: The fewest sectors those accesses' bytes could take: ``global_sectors`` equals it when every warp coalesces.
    global_ideal_sectors: float = float("nan")

    @property
    def coalescing(self) -> float:
        """Ideal over touched sectors of the global accesses: 1 when fully coalesced, 1/8 when each lane of a
        warp reading 4 bytes needs its own sector (1 where there is none)."""
        if not self.global_sectors:
            return 1.0 if self.global_sectors == 0 else float("nan")
        return self.global_ideal_sectors / self.global_sectors

    @property
    def wavefronts(self) -> float:
        """Load and store wavefronts per warp."""
        return self.load_wavefronts + self.store_wavefronts

    @property
    def conflict_wavefronts(self) -> float:
        """Wavefronts beyond one per phase: the replays bank conflicts cost, per warp."""
        return self.wavefronts - self.ideal_wavefronts

    def as_dict(self) -> dict[str, float]:
        """The per-configuration columns: ``shared_wavefronts``, ``shared_load_wavefronts``,
        ``shared_store_wavefronts``, ``bank_conflicts``, ``shared_instructions``, ``shared_unknown``,
        ``executed_instructions``, ``executed_regions``, ``global_sectors``, ``coalescing``."""
        return {"shared_wavefronts": self.wavefronts, "shared_load_wavefronts": self.load_wavefronts,
                "shared_store_wavefronts": self.store_wavefronts, "bank_conflicts": self.conflict_wavefronts,
                "shared_instructions": self.shared_instructions, "shared_unknown": float(self.unknown),
                "executed_instructions": self.executed_instructions, "executed_regions": self.executed_regions,
                "global_sectors": self.global_sectors, "coalescing": self.coalescing}


def _blocks(kernel: KernelSass) -> tuple[list[list[int]], dict[int, int]]:
    ins = kernel.instructions
    index_of = {x.address: i for i, x in enumerate(ins)}
    leaders = {0}
    for i, x in enumerate(ins):
        if not kernel.reachable[i]:
            continue
        succ = _successors(ins, i, index_of)
        if x.target is not None or succ != [i + 1]:
            leaders.update(succ)
            leaders.add(i + 1)
    starts = sorted(j for j in leaders if j < len(ins) and kernel.reachable[j])
    blocks, block_of = [], {}
    for n, s in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(ins)
        members = [j for j in range(s, end) if kernel.reachable[j]]
        blocks.append(members)
        block_of[s] = n
    return blocks, block_of


def shared_wavefronts(kernel: KernelSass, block: Sequence[int], *, trip_counts: Mapping[Any, TripCount] | None = None,
                      config: Mapping[str, Any] | None = None, default_trip: float = 1.0) -> SharedWavefronts:
    """Predict the shared-memory wavefronts of ``kernel`` launched with ``block`` threads (x, y[, z]).

    Parameters
    ----------
    kernel:
        From :func:`~starchart.carve.sass.parse_sass` or :func:`~starchart.carve.sass.kernel_sass`.
    block:
        The block shape: ``(x,)``, ``(x, y)`` or ``(x, y, z)``.
    trip_counts, config, default_trip:
        How often each loop runs, as for :func:`~starchart.carve.sass.count_instructions`.

    Returns
    -------
    SharedWavefronts
        Per access (``accesses``: address, opcode, source line, load or store, bytes, executions per
        thread, wavefronts and the conflict-free count per warp, whether the address was known) and the
        totals per warp.
    """
    shape = tuple(int(v) for v in block) + (1,) * (3 - len(block))
    machine = _Machine(shape[:3])  # type: ignore[arg-type]
    trips = _loop_trips(kernel, trip_counts, config, default_trip, True)[0]
    counter = _AccessCounter(machine)
    # the run costs about 10 µs per instruction a group of threads runs: code that runs long even without
    # divergence (long constant-trip loops) goes to the fixed point at once, not after the limit's worth of steps
    weights = trip_weights(kernel, trips)
    straight = sum(w for w, ok in zip(weights, kernel.reachable) if ok)  # one thread's count if nothing diverges
    if straight > _RUN_LIMIT or not _execute(kernel, machine, trips, counter, _RUN_LIMIT):
        counter = _AccessCounter(machine)
        _dataflow(kernel, machine, weights, counter)
    return counter.result()


class _AccessCounter:
    """Wavefronts of every shared access seen, per instruction (memoised on the access pattern)."""

    def __init__(self, machine: _Machine):
        self.machine = machine
        self.memo: dict[tuple[bytes, bytes, int], tuple[float, float]] = {}
        self.rows: dict[int, dict[str, Any]] = {}
        self.issued: float | None = None  # None: the block did not run (the fixed point counted)
        self.blocking = 0.0
        self.sectors = [0.0, 0.0]  # touched, ideal: per block
        self._warps = -(-machine.threads // 32)

    def add_global(self, x: Any, state: _State, active: np.ndarray, times: float = 1.0) -> None:
        """Count the sectors of global access ``x`` run ``times`` times by the threads in ``active`` (an unknown
        address: skipped)."""
        guard = self.machine.predicate(x.predicate, state) if x.predicate else None
        if guard is not None:
            active = active & guard
        address = self.machine.address(x.operands, state)
        if address is None or not active.any():
            return
        key = (address.lanes.tobytes(), active.tobytes(), -_bytes_of(x.opcode))
        if key not in self.memo:
            touched, ideal = _sectors(address.lanes, active, _bytes_of(x.opcode), self.machine.threads)
            self.memo[key] = (float(touched.sum()), float(ideal.sum()))
        touched_sum, ideal_sum = self.memo[key]
        self.sectors[0] += times * touched_sum
        self.sectors[1] += times * ideal_sum

    def issue(self, active: np.ndarray, count: int, blocking: int) -> None:
        """``count`` instructions (``blocking`` of them blocking) run by the threads in ``active``: each warp
        with a lane in it issues them."""
        padded = np.zeros(self._warps * 32, dtype=bool)
        padded[:len(active)] = active
        warps = float(padded.reshape(self._warps, 32).any(axis=1).sum())
        self.issued = (self.issued or 0.0) + count * warps
        self.blocking += blocking * warps

    def add(self, x: Any, state: _State, active: np.ndarray, times: float = 1.0) -> None:
        """Count ``x`` run ``times`` times by the threads in ``active`` (``state``: the values before it)."""
        guard = self.machine.predicate(x.predicate, state) if x.predicate else None
        if guard is not None:
            active = active & guard
        width = _bytes_of(x.opcode)
        address = self.machine.address(x.operands, state)
        threads = self.machine.threads
        lanes = address.lanes if address is not None else np.arange(threads, dtype=np.int64) * 4
        # a shift common to every lane permutes the banks and changes no count: unrolled code repeats one
        # pattern at many offsets, counted once
        lanes = lanes - lanes.min()
        key = (lanes.tobytes(), active.tobytes(), width)
        if key not in self.memo:
            per_warp, ideal_per_warp = _wavefronts(lanes, active, width, threads)
            self.memo[key] = (float(per_warp.mean()), float(ideal_per_warp.mean()))
        waves, ideal = self.memo[key]
        row = self.rows.setdefault(x.address, {"address": x.address, "opcode": x.opcode, "line": x.line,
                                               "load": _SHARED[x.base], "bytes": width, "executions": 0.0,
                                               "wavefronts": 0.0, "ideal": 0.0, "known": True})
        row["executions"] += times
        row["wavefronts"] += times * waves
        row["ideal"] += times * ideal
        row["known"] = row["known"] and address is not None

    def result(self) -> SharedWavefronts:
        rows = []
        for row in sorted(self.rows.values(), key=lambda r: r["address"]):
            n = row["executions"] or 1.0  # per execution in the table, totals below
            rows.append({**row, "wavefronts": row["wavefronts"] / n, "ideal": row["ideal"] / n})
        accesses = pd.DataFrame(rows, columns=["address", "opcode", "line", "load", "bytes", "executions",
                                               "wavefronts", "ideal", "known"])
        w = accesses["executions"] * accesses["wavefronts"]
        loads = accesses["load"].astype(bool)
        return SharedWavefronts(accesses=accesses, load_wavefronts=float(w[loads].sum()),
                                store_wavefronts=float(w[~loads].sum()),
                                ideal_wavefronts=float((accesses["executions"] * accesses["ideal"]).sum()),
                                shared_instructions=float(accesses["executions"].sum()),
                                unknown=int((~accesses["known"].astype(bool)).sum()),
                                executed_instructions=(float("nan") if self.issued is None
                                                       else self.issued / self._warps),
                                executed_regions=(float("nan") if self.issued is None
                                                  else self.blocking / self._warps + 1),
                                global_sectors=self.sectors[0] / self._warps,
                                global_ideal_sectors=self.sectors[1] / self._warps)


#: Instructions a block run may take (per group of threads) before the fixed point counts instead.
_RUN_LIMIT = 50_000


_BRANCHES = frozenset({"BRA", "JMP"})
_ENDS = frozenset({"EXIT", "RET", "KILL"})


def _merge(a: tuple[np.ndarray, _State], b: tuple[np.ndarray, _State]) -> tuple[np.ndarray, _State]:
    """Two groups of threads arriving at one instruction: each thread keeps its own values."""
    (ma, sa), (mb, sb) = a, b
    regs = {}
    for k in sa.regs.keys() & sb.regs.keys():
        x, y = sa.regs[k], sb.regs[k]
        if x.exact and y.exact:
            regs[k] = _Value(np.where(ma, x.lanes, y.lanes), True)
        elif (v := _join(x, y)) is not None:
            regs[k] = v
    preds = {k: np.where(ma, sa.preds[k], sb.preds[k]) for k in sa.preds.keys() & sb.preds.keys()}
    return ma | mb, _State(regs, preds, None)


def _execute(kernel: KernelSass, machine: _Machine, trips: list[float], counter: _AccessCounter,
             limit: int = _RUN_LIMIT) -> bool:
    """Run the block's threads through the SASS, diverging and reconverging like a SIMT machine.

    Branches on a per-thread known predicate split the threads; the lowest address runs first, so a loop's
    threads finish it before those that left it go on, and groups meeting at an address merge. A backward
    branch on an unknown predicate is taken ``trip - 1`` times (the loop's trip count), a forward one sends
    every thread both ways. Returns False (nothing counted) past ``limit`` instructions.
    """
    ins = kernel.instructions
    index_of = {x.address: i for i, x in enumerate(ins)}
    trip_of = {loop.end: trip for loop, trip in zip(kernel.loops, trips)}
    barrier, consumer = blocking_instructions(kernel)
    blocking = np.concatenate([[0], np.cumsum(np.array(barrier, dtype=int) | np.array(consumer, dtype=int))])
    everyone = np.ones(machine.threads, dtype=bool)
    pending: dict[int, tuple[np.ndarray, _State]] = {0: (everyone, _State({}, {}, None))}
    taken_unknown: dict[int, int] = {}
    steps = 0

    def arrive(i: int, mask: np.ndarray, state: _State) -> None:
        if i >= len(ins) or not mask.any():
            return
        pending[i] = _merge((mask, state), pending[i]) if i in pending else (mask, state)

    while pending:
        i = min(pending)
        mask, state = pending.pop(i)
        first = last = i
        while i < len(ins):
            steps += 1
            if steps > limit:
                return False
            last = i
            x = ins[i]
            if x.base in _SHARED:
                counter.add(x, state, mask)
            elif x.base in _GLOBAL:
                counter.add_global(x, state, mask)
            if x.base in _BRANCHES or x.base in _ENDS:
                guard = machine.predicate(x.predicate, state) if x.predicate else everyone
                target = index_of.get(x.target) if x.target is not None else None
                if x.base in _ENDS:
                    stay = mask & ~guard if guard is not None else mask
                    arrive(i + 1, stay, state)
                elif guard is not None:
                    arrive(i + 1, mask & ~guard, state)
                    if target is not None:
                        arrive(target, mask & guard, state.copy())
                elif target is not None and target <= i:  # a loop's branch on a value nobody knows
                    done = taken_unknown.get(i, 0)
                    if done + 1 < trip_of.get(x.address, 1.0):
                        taken_unknown[i] = done + 1
                        arrive(target, mask, state.copy())
                    else:
                        taken_unknown[i] = 0
                        arrive(i + 1, mask, state)
                else:  # forward, unknown: both sides, every thread
                    arrive(i + 1, mask, state)
                    if target is not None:
                        arrive(target, mask, state.copy())
                break
            machine.step(x, state)
            i += 1
            if i in pending:
                arrive(i, mask, state)
                break
        # a segment runs straight from ``first`` to ``last``: its warps issue each instruction once
        counter.issue(mask, last - first + 1, int(blocking[last + 1] - blocking[first]))
    return True


def _dataflow(kernel: KernelSass, machine: _Machine, weights: list[float], counter: _AccessCounter) -> None:
    """The fallback for code too long to run: one state per address, joined where paths meet (a fixed point),
    each shared access counted with the trip counts of the loops around it."""
    ins = kernel.instructions
    blocks, block_of = _blocks(kernel)
    index_of = {x.address: i for i, x in enumerate(ins)}
    entry: list[_State | None] = [None] * len(blocks)
    entry[0] = _State({}, {}, np.ones(machine.threads, dtype=bool))
    seen: dict[int, _State] = {}
    visits = [0] * len(blocks)
    work = [0]
    while work:
        b = work.pop(0)
        state = entry[b]
        if state is None or visits[b] > 50:
            continue
        visits[b] += 1
        state = state.copy()
        for i in blocks[b]:
            x = ins[i]
            if x.base in _SHARED or x.base in _GLOBAL:
                seen[i] = state.copy()
            if x.base in ("BRA", "EXIT", "RET", "JMP", "BRX", "JMX"):
                continue
            machine.step(x, state)
        last = blocks[b][-1]
        x = ins[last]
        taken = machine.predicate(x.predicate, state) if x.predicate else None
        for j in _successors(ins, last, index_of):
            nxt = state.copy()
            if x.predicate and nxt.active is not None and taken is not None:
                is_target = x.target is not None and j == index_of.get(x.target)
                nxt.active = nxt.active & (taken if is_target else ~taken)
            target = block_of.get(j)
            if target is None:
                continue
            joined = _join_states(entry[target], nxt)
            if not joined.same(entry[target]):
                entry[target] = joined
                if target not in work:
                    work.append(target)
    for i, state in sorted(seen.items()):
        x = ins[i]
        weight = weights[i]
        active = state.active if state.active is not None else np.ones(machine.threads, dtype=bool)
        if x.base in _GLOBAL:
            counter.add_global(x, state, active, weight)
        else:
            counter.add(x, state, active, weight)

#: The columns :func:`shared_wavefronts_frame` adds (see :meth:`SharedWavefronts.as_dict`).
SHARED_COLUMNS = ("shared_wavefronts", "shared_load_wavefronts", "shared_store_wavefronts", "bank_conflicts",
                  "shared_instructions", "shared_unknown", "executed_instructions", "executed_regions",
                  "global_sectors", "coalescing")


def block_shape(block: str | Sequence[Spec]) -> list[Spec]:
    """The block shape's expressions, from ``"BX, BY"`` or a sequence (commas inside parentheses kept).

    >>> block_shape("BLOCK_SIZE_X, max(2, BLOCK_SIZE_Y)")
    ['BLOCK_SIZE_X', 'max(2, BLOCK_SIZE_Y)']
    >>> block_shape([128, "BY"])
    [128, 'BY']
    """
    if not isinstance(block, str):
        parts = list(block)
    else:
        parts, depth, current = [], 0, ""
        for ch in block:
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(current.strip())
                current = ""
            else:
                current += ch
        parts.append(current.strip())
    if not 1 <= len(parts) <= 3 or any(p == "" for p in parts):
        raise InputError(f"a block shape has one to three dimensions, got {block!r}", where="block",
                         hint="give x, y and z separated by commas, e.g. 'BLOCK_SIZE_X, BLOCK_SIZE_Y'")
    return parts


def shared_wavefronts_frame(frame: pd.DataFrame, kernel: str, block: str | Sequence[Spec], *,
                            trip_counts: Mapping[Any, TripCount] | None = None, params: Sequence[str] | None = None,
                            constants: Mapping[str, Any] | None = None, cubin_column: str = "cubin",
                            default_trip: float = 1.0, toolchain: Any = None, jobs: int = 1,
                            progress: ProgressOption = False) -> pd.DataFrame:
    """The :data:`SHARED_COLUMNS` of every row of a :meth:`ResourceCompiler.frame` result (NaN without a cubin).

    ``block`` gives the block's x, y and z (``"BLOCK_SIZE_X, BLOCK_SIZE_Y"``): expressions over the
    parameters and ``constants``. Each cubin's SASS is read from beside it (kept there when it was counted), and
    each run's result is stored there too, so carving the same space again runs nothing. ``jobs`` > 1 runs the
    blocks in that many processes (each run is pure Python); ``progress`` reports the step ``"running blocks"``
    (see :mod:`starchart.carve.progress`).
    """
    scalars = {k: v for k, v in (constants or {}).items() if k not in frame.columns}
    values = frame.assign(**scalars)
    dims = np.column_stack([resolve(values, spec, "block shape") for spec in block_shape(block)])
    columns = list(frame.columns)
    if params is None:
        params = columns[:columns.index("registers")] if "registers" in columns else []
    tasks: list[tuple[int, str, tuple[int, ...], dict[str, Any]]] = []
    for n, ((_, row), shape) in enumerate(zip(values.iterrows(), dims)):
        cubin = row.get(cubin_column)
        if not isinstance(cubin, str) or not cubin or np.isnan(shape).any():
            continue
        if (shape < 1).any() or shape.prod() > 1024:
            raise InputError(f"block shape {tuple(int(v) for v in shape)} of a configuration is not a launchable "
                             "block", where="block", hint="check the block expressions: 1 to 1024 threads")
        config = {k: (v.item() if isinstance(v, np.generic) else v)
                  for k, v in {**scalars, **{p: row[p] for p in params}}.items()}
        tasks.append((n, cubin, tuple(int(v) for v in shape), config))
    run = partial(_stored_run, kernel=kernel, trip_counts=trip_counts, default_trip=default_trip, toolchain=toolchain)
    try:
        pickle.dumps(run)
    except (pickle.PicklingError, AttributeError, TypeError):
        jobs = 1  # trip counts given as local functions cannot travel to other processes
    bar = step_progress(progress)
    results: list[dict[str, float]] = []
    with bar:
        bar.start("running blocks", len(tasks))
        if jobs > 1 and len(tasks) > 1:
            with ProcessPoolExecutor(min(jobs, len(tasks))) as pool:
                for result in pool.map(run, tasks, chunksize=max(1, min(16, len(tasks) // (4 * jobs)))):
                    results.append(result)
                    bar.advance("running blocks")
        else:
            for task in tasks:
                results.append(run(task))
                bar.advance("running blocks")
    rows: list[dict[str, float]] = [{} for _ in range(len(frame))]
    for task, result in zip(tasks, results):
        rows[task[0]] = result
    return pd.DataFrame(rows, index=frame.index, columns=list(SHARED_COLUMNS)).astype(float)


#: Bump when what a block run counts changes: runs stored by an older version are run again.
_RUN_VERSION = 4


def _stored_run(task: tuple[int, str, tuple[int, ...], dict[str, Any]], *, kernel: str,
                trip_counts: Mapping[Any, TripCount] | None, default_trip: float, toolchain: Any) -> dict[str, float]:
    """One configuration's :meth:`SharedWavefronts.as_dict`, read from beside its cubin when it ran before."""
    _, cubin, shape, config = task
    trips = sorted(((str(k), repr(v)) for k, v in (trip_counts or {}).items()))
    key = hashlib.sha256(repr((_RUN_VERSION, kernel, shape, trips, sorted(config.items(), key=str),
                               default_trip)).encode()).hexdigest()[:24]
    path = Path(cubin).with_name(f"block_run_{key}.json")
    try:
        return {k: float(v) for k, v in json.loads(path.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        pass
    sass = kernel_sass(cubin, kernel, toolchain=toolchain)
    out = shared_wavefronts(sass, shape, trip_counts=trip_counts, config=config, default_trip=default_trip).as_dict()
    try:
        write_json_atomic(path, out)
    except OSError:
        pass  # a read-only cache: the result is still returned
    return out
