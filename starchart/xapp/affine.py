"""Which loops each value depends on, and affine forms of indices and addresses.

The thesis calls an expression *loop invariant* with respect to a loop when it does not
depend on the loop's induction variable (Section 4.2.1). :class:`Dependences` computes, for
every SSA value of a function, the set of loops it depends on (a bit mask over
:class:`~starchart.xapp.loops.LoopForest` loop indices), following

* operands (data dependence); a load depends on its address: the loaded memory itself is
  assumed not to change with the loops (values stored and reloaded inside the band are not
  tracked);
* header phis: a value carried around loop L depends on L;
* other phis: the conditions of the branches that decide which incoming value arrives
  (control dependence);
* values leaving a loop: their final value depends on the conditions that end the loop,
  not on the loop itself.

:class:`Affine` refines this for integers and pointers: a value is
``sum(coefficient[L] * iteration(L)) + (anything invariant)`` plus an *opaque* part that
depends non-linearly on some loops. Coefficients are per iteration (an induction variable
``i += 2`` has coefficient 2), pointer values are in bytes, and ``None`` stands for a
coefficient that is invariant but not a constant (``i * n``).

Examples
--------
>>> a = Affine({0: Fraction(4)}, 0).add(Affine({1: Fraction(1)}, 0b100))
>>> a.coefficient(0), a.depends_on(1), a.depends_on(2), a.mask
(Fraction(4, 1), True, True, 7)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .ir import Function, Inst, Val
from .loops import CAST_OPS, LoopForest, constant_value, gep_source_type


@dataclass(frozen=True)
class Affine:
    """``terms``: loop index -> coefficient per iteration (None: symbolic); ``opaque``: loops
    the value depends on in a way that is not affine."""

    terms: dict[int, Fraction | None] = field(default_factory=dict)
    opaque: int = 0

    @property
    def mask(self) -> int:
        """All loops the value depends on."""
        out = self.opaque
        for k in self.terms:
            out |= 1 << k
        return out

    def depends_on(self, loop: int) -> bool:
        """Whether the value changes with loop ``loop``'s iterations."""
        return bool(self.mask >> loop & 1)

    def coefficient(self, loop: int) -> Fraction | None:
        """Per-iteration change along ``loop`` (0 when independent, None when not constant)."""
        if self.opaque >> loop & 1:
            return None
        return self.terms.get(loop, Fraction(0))

    def add(self, other: Affine, sign: int = 1) -> Affine:
        """``self + sign * other``."""
        terms = dict(self.terms)
        for k, c in other.terms.items():
            if k in terms:
                a = terms[k]
                terms[k] = None if a is None or c is None else a + sign * c
            else:
                terms[k] = None if c is None else sign * c
        return Affine({k: c for k, c in terms.items() if c != 0}, self.opaque | other.opaque)

    def scale(self, factor: Fraction | None) -> Affine:
        """``self * factor`` (``None``: an invariant factor that is not a constant)."""
        if factor == 0:
            return Affine()
        return Affine({k: None if c is None or factor is None else c * factor for k, c in self.terms.items()},
                      self.opaque)


def _bits(mask: int) -> list[int]:
    return [k for k in range(mask.bit_length()) if mask >> k & 1]


class Dependences:
    """Loop dependences (bit masks) of every instruction, and affine forms on demand.

    Examples
    --------
    >>> dep = Dependences(fn, forest)       # doctest: +SKIP
    >>> dep.value(branch.ops[0], branch.block) & band_mask   # doctest: +SKIP
    1
    """

    def __init__(self, fn: Function, forest: LoopForest, order: list[int]):
        self.fn, self.forest = fn, forest
        self.order = order  # blocks in reverse postorder
        self.deps = [0] * len(fn.insts)
        self._subtree_mask = [sum(1 << k for k in forest.subtree(l.index)) for l in forest.loops]
        self._header_of = {l.header: l.index for l in forest.loops}
        self._control = {b.index: self._controlling_conditions(b.index) for b in fn.blocks
                         if b.index not in self._header_of and any(fn.insts[k].opcode == "phi" for k in b.insts)}
        self._solve()
        self._affine: dict[int, Affine] = {}
        for b in order:
            for k in fn.blocks[b].insts:
                self._affine[k] = self._affine_of(fn.insts[k])

    # ---------------------------------------------------------------- dependence masks

    def _controlling_conditions(self, block: int) -> list[tuple[Val, int]]:
        """Conditions of the branches between ``block``'s immediate dominator and its
        predecessors: they decide which incoming value a phi in ``block`` takes."""
        stop = self.forest.idom[block]
        seen, todo, conds = set(), list(self.fn.blocks[block].preds), []
        while todo:
            b = todo.pop()
            if b in seen or b == block:
                continue
            seen.add(b)
            term = self.fn.terminator(b)
            if term.opcode in ("br", "switch") and len(term.ops) > 1 and term.ops[0].kind != "block":
                conds.append((term.ops[0], b))
            if b != stop:
                todo.extend(self.fn.blocks[b].preds)
        return conds

    def _exit_mask(self, loop: int) -> int:
        out = 0
        for b, _ in self.forest.loops[loop].exits:
            term = self.fn.terminator(b)
            if term.ops and term.ops[0].kind == "inst" and term.opcode in ("br", "switch"):
                out |= self.value(term.ops[0], b)
        return out

    def value(self, v: Val, user_block: int) -> int:
        """Loops that operand ``v`` depends on, as seen from a use in ``user_block``."""
        if v.kind != "inst":
            return 0
        inst = self.fn.insts[v.ref]  # type: ignore[index]
        d = self.deps[inst.index]
        left = [l for l in self.forest.chain(inst.block) if user_block not in self.forest.loops[l].blocks]
        if not left:
            return d
        for l in left:
            d |= self._exit_mask(l)
        return d & ~self._subtree_mask[left[-1]]

    def _inst_mask(self, inst: Inst) -> int:
        if inst.opcode == "phi":
            values = [op for op in inst.ops if op.kind != "block"]
            d = 0
            for v, b in zip(values, inst.incoming):
                d |= self.value(v, b)
            header = self._header_of.get(inst.block)
            if header is not None:
                return d | 1 << header
            for cond, b in self._control.get(inst.block, ()):
                d |= self.value(cond, b)
            return d
        d = 0
        for op in inst.ops:
            if op.kind == "inst":
                d |= self.value(op, inst.block)
        return d

    def _solve(self) -> None:
        changed = True
        while changed:
            changed = False
            for b in self.order:
                for k in self.fn.blocks[b].insts:
                    new = self._inst_mask(self.fn.insts[k])
                    if new != self.deps[k]:
                        self.deps[k] = new
                        changed = True

    # ---------------------------------------------------------------- affine forms

    def affine(self, v: Val, user_block: int) -> Affine:
        """The affine form of operand ``v`` used in ``user_block``."""
        if v.kind != "inst":
            return Affine()
        inst = self.fn.insts[v.ref]  # type: ignore[index]
        if any(user_block not in self.forest.loops[l].blocks for l in self.forest.chain(inst.block)):
            return Affine({}, self.value(v, user_block))  # a loop's final value
        return self._affine.get(inst.index, Affine({}, self.deps[inst.index]))

    def _affine_of(self, inst: Inst) -> Affine:
        fn, op = self.fn, inst.opcode
        opaque = Affine({}, self.deps[inst.index])
        if self.deps[inst.index] == 0:
            return Affine()
        if op == "phi":
            header = self._header_of.get(inst.block)
            if header is not None:
                iv = self.forest.loops[header].iv
                if iv is not None and iv.phi == inst.index:
                    v, b = next((v, b) for v, b in zip(inst.ops, inst.incoming)
                                if b not in self.forest.loops[header].blocks)
                    return self.affine(v, b).add(Affine({header: Fraction(iv.step)}))
                return opaque
            incoming = [self.affine(v, b) for v, b in zip(inst.ops, inst.incoming)]
            if incoming and all(a == incoming[0] for a in incoming):
                control = 0
                for cond, b in self._control.get(inst.block, ()):
                    control |= self.value(cond, b)
                return Affine(incoming[0].terms, incoming[0].opaque | control)
            return opaque
        a = [self.affine(o, inst.block) for o in inst.ops]
        if op in CAST_OPS:
            return a[0]
        if op in ("add", "sub"):
            return a[0].add(a[1], 1 if op == "add" else -1)
        if op in ("mul", "shl"):
            c = [constant_value(fn, o) for o in inst.ops]
            if op == "shl":
                return a[0].scale(Fraction(2) ** c[1]) if c[1] is not None and 0 <= c[1] < 64 else opaque
            for k in (0, 1):
                if c[k] is not None:
                    return a[1 - k].scale(Fraction(c[k]))
            for k in (0, 1):
                if a[k].mask == 0:  # invariant, not constant
                    return a[1 - k].scale(None)
            return opaque
        if op == "getelementptr":
            return self._gep(inst, a, opaque)
        return opaque

    def _gep(self, inst: Inst, a: list[Affine], opaque: Affine) -> Affine:
        types = self.fn.types
        try:
            t = gep_source_type(self.fn, inst)
            out = a[0].add(a[1].scale(Fraction(types.size(t))))
            for op, form in zip(inst.ops[2:], a[2:]):
                if isinstance(t, tuple) and t[0] == "struct" or isinstance(t, str) and t.startswith("%"):
                    t = types.field_type(t, constant_value(self.fn, op) or 0)
                    continue
                t = types.field_type(t, 0)
                out = out.add(form.scale(Fraction(types.size(t))))
            return out
        except (ValueError, IndexError, KeyError, TypeError):
            return opaque


def loops_in(mask: int) -> list[int]:
    """Loop indices in a dependence mask.

    >>> loops_in(0b101)
    [0, 2]
    """
    return _bits(mask)
