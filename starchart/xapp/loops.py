"""Natural loops of a function model: dominators, loop nest, induction variables, trip counts.

A loop is the natural loop of its back edges (an edge ``latch -> header`` where the header
dominates the latch; back edges to one header are one loop). A retreating edge whose target
does not dominate its source makes the CFG irreducible; :func:`find_loops` reports such
edges and the caller decides whether they matter (inside the band they are an error).

An induction variable is a header phi ``i = phi [init, outside], [i + c, latch]`` with a
constant step ``c`` (integers and pointers, whose step is in bytes). A trip count is
*constant* when the loop's controlling exit (a branch in the header or a latch) compares the
induction variable (plus a constant) with a constant, and the start is constant.

Examples
--------
>>> fn = band_function(ir, 5)                   # doctest: +SKIP
>>> forest = find_loops(fn)                     # doctest: +SKIP
>>> [(l.line, l.const_trip) for l in forest.loops]   # doctest: +SKIP
[(5, None), (7, 16)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .ir import Function, Inst, Loc, Val

CAST_OPS = frozenset({"sext", "zext", "trunc", "bitcast", "freeze", "addrspacecast", "ptrtoint", "inttoptr"})


@dataclass(frozen=True)
class InductionVariable:
    """``phi`` (instruction index) starts at ``init`` and grows by ``step`` per iteration;
    ``update`` is the instruction computing the next value."""

    phi: int
    init: Val
    step: int
    update: int


@dataclass(eq=False)
class Loop:
    """A natural loop: header, blocks, latches, nesting, source position, IV, trip count."""

    index: int
    header: int
    blocks: frozenset[int]
    latches: tuple[int, ...]
    parent: int | None = None
    children: list[int] = field(default_factory=list)
    depth: int = 1
    loc: Loc | None = None
    iv: InductionVariable | None = None
    const_trip: float | None = None
    exits: list[tuple[int, int]] = field(default_factory=list)  # (inside block, outside block)
    controlling: list[int] = field(default_factory=list)        # blocks whose branch is the loop test

    @property
    def line(self) -> int | None:
        """The source line of the loop statement in the analysed file, or None."""
        return self.loc.line if self.loc is not None and self.loc.main else None


@dataclass(eq=False)
class LoopForest:
    """All loops of a function, with per-block innermost loop and irreducible edges."""

    loops: list[Loop]
    block_loop: list[int | None]
    idom: list[int | None]
    irreducible: list[tuple[int, int]]

    def chain(self, block: int) -> list[int]:
        """Loops containing ``block``, innermost first."""
        out, loop = [], self.block_loop[block]
        while loop is not None:
            out.append(loop)
            loop = self.loops[loop].parent
        return out

    def subtree(self, loop: int) -> list[int]:
        """``loop`` and all loops nested in it."""
        out, todo = [], [loop]
        while todo:
            k = todo.pop()
            out.append(k)
            todo.extend(self.loops[k].children)
        return out

    def dominates(self, a: int, b: int) -> bool:
        """Whether block ``a`` dominates block ``b``."""
        while b is not None:
            if b == a:
                return True
            b = self.idom[b]  # type: ignore[assignment]
        return False


def reverse_postorder(fn: Function) -> list[int]:
    """Blocks reachable from the entry, in reverse postorder."""
    order, seen, stack = [], {0}, [(0, iter(fn.blocks[0].succs))]
    while stack:
        block, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            order.append(block)
            stack.pop()
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(fn.blocks[nxt].succs)))
    return order[::-1]


def dominator_tree(fn: Function, rpo: list[int]) -> list[int | None]:
    """Immediate dominators (Cooper, Harvey & Kennedy's iterative algorithm)."""
    pos = {b: k for k, b in enumerate(rpo)}
    idom: list[int | None] = [None] * len(fn.blocks)
    idom[0] = 0
    changed = True
    while changed:
        changed = False
        for b in rpo[1:]:
            preds = [p for p in fn.blocks[b].preds if idom[p] is not None and p in pos]
            new = preds[0]
            for p in preds[1:]:
                a, c = p, new
                while a != c:
                    while pos[a] > pos[c]:
                        a = idom[a]  # type: ignore[assignment]
                    while pos[c] > pos[a]:
                        c = idom[c]  # type: ignore[assignment]
                new = a
            if idom[b] != new:
                idom[b] = new
                changed = True
    idom[0] = None
    return idom


def find_loops(fn: Function) -> LoopForest:
    """Natural loops with nesting, exits, induction variables and constant trip counts."""
    rpo = reverse_postorder(fn)
    idom = dominator_tree(fn, rpo)
    forest = LoopForest([], [None] * len(fn.blocks), idom, [])
    pos = {b: k for k, b in enumerate(rpo)}
    latches: dict[int, list[int]] = {}
    for b in rpo:
        for s in fn.blocks[b].succs:
            if pos.get(s, -1) <= pos[b]:  # retreating edge
                if forest.dominates(s, b):
                    latches.setdefault(s, []).append(b)
                else:
                    forest.irreducible.append((b, s))
    for header, tails in latches.items():
        body, todo = {header}, list(tails)
        while todo:
            b = todo.pop()
            if b not in body:
                body.add(b)
                todo.extend(p for p in fn.blocks[b].preds if p in pos)
        forest.loops.append(Loop(index=len(forest.loops), header=header, blocks=frozenset(body),
                                 latches=tuple(tails)))
    by_size = sorted(forest.loops, key=lambda l: len(l.blocks))
    for k, loop in enumerate(by_size):  # parent: the smallest strictly larger loop holding the header
        loop.parent = next((o.index for o in by_size[k + 1:] if loop.header in o.blocks and o is not loop), None)
        for b in loop.blocks:
            inner = forest.block_loop[b]
            if inner is None:
                forest.block_loop[b] = loop.index
    for loop in forest.loops:
        if loop.parent is not None:
            forest.loops[loop.parent].children.append(loop.index)
    for loop in forest.loops:
        loop.depth = len(forest.chain(loop.header))
        loop.exits = [(b, s) for b in sorted(loop.blocks) for s in fn.blocks[b].succs if s not in loop.blocks]
        loop.controlling = _controlling_blocks(fn, forest, loop)
        loop.loc = _loop_location(fn, loop)
        loop.iv = induction_variable(fn, loop)
        loop.const_trip = constant_trip_count(fn, loop)
    return forest


def _controlling_blocks(fn: Function, forest: LoopForest, loop: Loop) -> list[int]:
    """Exiting blocks that test the loop's own condition: the header, a latch, or a block on
    every path to the latches whose branch has the header test's source line (the second
    half of ``while (a && b)``). A ``break`` under an ``if`` is not one of them."""
    test_line = fn.terminator(loop.header).line
    out = set()
    for b, _ in loop.exits:
        if b == loop.header or b in loop.latches:
            out.add(b)
        elif (test_line is not None and fn.terminator(b).line == test_line
              and all(forest.dominates(b, latch) for latch in loop.latches)):
            out.add(b)
    return sorted(out)


def _loop_location(fn: Function, loop: Loop) -> Loc | None:
    for latch in loop.latches:
        loc = fn.terminator(latch).loop_start
        if loc is not None:
            return loc
    term = fn.terminator(loop.header)
    return term.loc


def strip_casts(fn: Function, v: Val) -> Val:
    """``v`` without integer/pointer casts around it."""
    while v.kind == "inst" and fn.insts[v.ref].opcode in CAST_OPS:  # type: ignore[index]
        v = fn.insts[v.ref].ops[0]  # type: ignore[index]
    return v


def constant_value(fn: Function, v: Val, depth: int = 0) -> int | None:
    """The integer value of ``v`` when it is a constant expression of constants, else None."""
    v = strip_casts(fn, v)
    if v.kind == "const":
        return v.ref  # type: ignore[return-value]
    if v.kind != "inst" or depth > 8:
        return None
    inst = fn.insts[v.ref]  # type: ignore[index]
    if inst.opcode not in ("add", "sub", "mul", "shl") or len(inst.ops) != 2:
        return None
    a, b = (constant_value(fn, o, depth + 1) for o in inst.ops)
    if a is None or b is None:
        return None
    return {"add": a + b, "sub": a - b, "mul": a * b, "shl": a << b if 0 <= b < 64 else None}[inst.opcode]


def _offset_from(fn: Function, v: Val, phi: int) -> int | None:
    """``d`` when ``v`` is ``phi + d`` (through casts and constant add/sub), else None."""
    v = strip_casts(fn, v)
    if v.kind == "inst" and v.ref == phi:
        return 0
    if v.kind != "inst":
        return None
    inst = fn.insts[v.ref]  # type: ignore[index]
    if inst.opcode in ("add", "sub") and len(inst.ops) == 2:
        for k in (0, 1):
            if inst.opcode == "sub" and k == 1:
                break
            c = constant_value(fn, inst.ops[1 - k])
            if c is not None:
                inner = _offset_from(fn, inst.ops[k], phi)
                if inner is not None:
                    return inner + (c if inst.opcode == "add" else -c)
    if inst.opcode == "getelementptr" and len(inst.ops) == 2:
        c = constant_value(fn, inst.ops[1])
        inner = _offset_from(fn, inst.ops[0], phi)
        if c is not None and inner is not None:
            return inner + c * gep_element_size(fn, inst)
    return None


def gep_element_size(fn: Function, inst: Inst) -> int:
    """Bytes per unit of a GEP's first index (its source element type's size)."""
    return fn.types.size(gep_source_type(fn, inst))


def gep_source_type(fn: Function, inst: Inst) -> object:
    """The source element type of a ``getelementptr``, parsed from its text."""
    text = inst.text
    at = text.index("getelementptr") + len("getelementptr")
    rest = text[at:]
    stripped = rest.lstrip()
    while True:
        for flag in ("inbounds ", "nuw ", "nusw "):
            if stripped.startswith(flag):
                stripped = stripped[len(flag):].lstrip()
                break
        else:
            break
    return fn.types.parse(stripped)[0]


def induction_variable(fn: Function, loop: Loop) -> InductionVariable | None:
    """The loop's first header phi of the form ``phi [init, outside], [phi + c, latch]``."""
    for k in fn.blocks[loop.header].insts:
        inst = fn.insts[k]
        if inst.opcode != "phi":
            break
        values = [op for op in inst.ops if op.kind != "block"]
        incoming = inst.incoming
        outside = [v for v, b in zip(values, incoming) if b not in loop.blocks]
        inside = [v for v, b in zip(values, incoming) if b in loop.blocks]
        if len(outside) != 1 or not inside or any(v != inside[0] for v in inside):
            continue
        step = _offset_from(fn, inside[0], k)
        if step is None or step == 0 or strip_casts(fn, inside[0]).kind != "inst":
            continue
        return InductionVariable(phi=k, init=outside[0], step=step, update=strip_casts(fn, inside[0]).ref)  # type: ignore[arg-type]
    return None


def _first_false(start: int, step: int, pred: str, bound: int) -> int | None:
    """Smallest k >= 0 with not (start + k*step <pred> bound), or None when never."""
    holds = {"slt": lambda x: x < bound, "sle": lambda x: x <= bound, "sgt": lambda x: x > bound,
             "sge": lambda x: x >= bound, "ne": lambda x: x != bound, "eq": lambda x: x == bound}[pred]
    if not holds(start):
        return 0
    if pred == "eq":
        return 1
    if pred == "ne":
        diff = bound - start
        return diff // step if diff % step == 0 and diff // step > 0 else None
    if pred in ("slt", "sle"):
        if step <= 0:
            return None
        limit = bound if pred == "slt" else bound + 1
        return math.ceil((limit - start) / step)
    if step >= 0:
        return None
    limit = bound if pred == "sgt" else bound - 1
    return math.ceil((start - limit) / -step)


_SWAP = {"slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle", "eq": "eq", "ne": "ne"}
_NEGATE = {"slt": "sge", "sle": "sgt", "sgt": "sle", "sge": "slt", "eq": "ne", "ne": "eq"}


def constant_trip_count(fn: Function, loop: Loop) -> float | None:
    """Iterations of the loop body when every number involved is a constant, else None.

    With several controlling exits the smallest count wins; ``break``-style exits elsewhere
    in the body are ignored (the count is then an upper bound, as LLVM's max trip count)."""
    iv = loop.iv
    if iv is None:
        return None
    start = constant_value(fn, iv.init)
    if start is None:
        return None
    counts = []
    for b in loop.controlling:
        term = fn.terminator(b)
        if term.opcode != "br" or len(term.ops) != 3 or term.ops[0].kind != "inst":
            continue
        cmp = fn.insts[term.ops[0].ref]  # type: ignore[index]
        if cmp.opcode != "icmp":
            continue
        pred = cmp.text.split("icmp", 1)[1].split()[0]
        pred = {"ult": "slt", "ule": "sle", "ugt": "sgt", "uge": "sge"}.get(pred, pred)
        if pred not in _SWAP:
            continue
        lhs, rhs = cmp.ops[0], cmp.ops[1]
        d, bound = _offset_from(fn, lhs, iv.phi), constant_value(fn, rhs)
        if d is None or bound is None:
            d, bound, pred = _offset_from(fn, rhs, iv.phi), constant_value(fn, lhs), _SWAP[pred]
        if d is None or bound is None:
            continue
        true_succ = fn.blocks[b].succs[0]
        if true_succ not in loop.blocks:
            pred = _NEGATE[pred]  # the loop continues while the condition is false
        if cmp.text.split("icmp", 1)[1].split()[0].startswith("u") and min(start + d, bound) < 0:
            continue  # an unsigned test with values that only fit as unsigned
        k = _first_false(start + d, iv.step, pred, bound)
        if k is None:
            continue
        counts.append(k + (0 if b == loop.header else 1))
    return float(min(counts)) if counts else None
