"""Natural loops of an IR function, and the loop(s) a source line names.

A back edge ``t -> h`` (``h`` dominates ``t``) makes ``h`` a loop header; the loop is ``h``
plus every block that reaches ``t`` without passing ``h``. Clang attaches ``!llvm.loop``
metadata to a loop's latch branch when compiling with ``-g``; its first location is the
line of the ``for``/``while``/``do`` keyword, which is how a pragma's loop is found after
optimisation (rotation, inlining) has reshaped the blocks.

Examples
--------
>>> from starchart.xapp.dynamic.irtext import parse_module
>>> ir = '''define void @f(i32 %n) {
... entry:
...   br label %h
... h:
...   %i = phi i32 [ 0, %entry ], [ %j, %h ]
...   %j = add i32 %i, 1
...   %c = icmp slt i32 %j, %n
...   br i1 %c, label %h, label %x
... x:
...   ret void
... }'''
>>> [(l.header, sorted(l.blocks), l.exits) for l in natural_loops(parse_module(ir).functions[0])]
[('h', ['h'], ['x'])]
"""

from __future__ import annotations

from dataclasses import dataclass

from .irtext import Function, Module


@dataclass
class Loop:
    """A natural loop: header, member blocks, latches and exit blocks (names)."""

    function: str
    header: str
    blocks: set[str]
    latches: list[str]
    exits: list[str]

    def contains(self, other: Loop) -> bool:
        return other.function == self.function and other.blocks <= self.blocks


def predecessors(fn: Function) -> dict[str, list[str]]:
    """Predecessor names of every block."""
    preds: dict[str, list[str]] = {b.name: [] for b in fn.blocks}
    for b in fn.blocks:
        for s in b.succs:
            if s in preds and b.name not in preds[s]:
                preds[s].append(b.name)
    return preds


def dominators(fn: Function) -> dict[str, str | None]:
    """Immediate dominators (Cooper, Harvey & Kennedy's iterative algorithm)."""
    succs = {b.name: b.succs for b in fn.blocks}
    entry = fn.blocks[0].name
    order: list[str] = []
    seen = {entry}
    stack = [(entry, iter(succs[entry]))]
    while stack:                                   # iterative DFS post-order
        node, it = stack[-1]
        nxt = next((s for s in it if s in succs and s not in seen), None)
        if nxt is None:
            order.append(node)
            stack.pop()
        else:
            seen.add(nxt)
            stack.append((nxt, iter(succs[nxt])))
    rpo = order[::-1]
    index = {n: i for i, n in enumerate(rpo)}
    preds = predecessors(fn)
    idom: dict[str, str | None] = {entry: entry}

    def intersect(a: str, b: str) -> str:
        while a != b:
            while index[a] > index[b]:
                a = idom[a]  # type: ignore[assignment]
            while index[b] > index[a]:
                b = idom[b]  # type: ignore[assignment]
        return a

    changed = True
    while changed:
        changed = False
        for n in rpo[1:]:
            ready = [p for p in preds[n] if p in idom]
            if not ready:
                continue
            new = ready[0]
            for p in ready[1:]:
                new = intersect(p, new)
            if idom.get(n) != new:
                idom[n] = new
                changed = True
    idom[entry] = None
    return idom


def _dominates(idom: dict[str, str | None], a: str, b: str) -> bool:
    while b is not None:
        if a == b:
            return True
        b = idom.get(b)  # type: ignore[assignment]
    return False


def natural_loops(fn: Function) -> list[Loop]:
    """Natural loops of ``fn`` (back edges to one header merged), outermost first."""
    idom = dominators(fn)
    preds = predecessors(fn)
    bodies: dict[str, tuple[set[str], list[str]]] = {}
    for b in fn.blocks:
        if b.name not in idom:
            continue                               # unreachable block
        for h in b.succs:
            if h in idom and _dominates(idom, h, b.name):
                body, latches = bodies.setdefault(h, ({h}, []))
                latches.append(b.name)
                work = [b.name]
                while work:
                    n = work.pop()
                    if n not in body:
                        body.add(n)
                        work.extend(preds[n])
    succs = {b.name: b.succs for b in fn.blocks}
    loops = []
    for h, (body, latches) in bodies.items():
        exits = sorted({s for n in body for s in succs[n] if s not in body},
                       key=[b.name for b in fn.blocks].index)
        loops.append(Loop(fn.name, h, body, latches, exits))
    return sorted(loops, key=lambda lp: -len(lp.blocks))


def loop_line(module: Module, fn: Function, loop: Loop) -> int | None:
    """Source line clang recorded for ``loop`` (its ``!llvm.loop`` start), if any.

    None too for a loop written in an included header: its line numbers are the header's,
    and would otherwise collide with the compiled file's (see :meth:`Module.line_of`).
    """
    for name in loop.latches:
        md = fn.block(name).terminator.loop_md
        if md is not None and md in module.loop_starts:
            return module.line_of(module.loop_starts[md][0])
    return None


def loops_at_line(module: Module, line: int) -> list[tuple[Function, Loop]]:
    """The outermost loops, in every function, whose source line is ``line`` of the compiled file.

    A loop appears once per copy the optimiser left (e.g. a function inlined into its
    caller and also kept); each copy is returned.
    """
    found: list[tuple[Function, Loop]] = []
    for fn in module.functions:
        matching = [lp for lp in natural_loops(fn) if loop_line(module, fn, lp) == line]
        found += [(fn, lp) for lp in matching if not any(o is not lp and o.contains(lp) for o in matching)]
    return found


def source_loop_lines(module: Module) -> set[int]:
    """Every source line a loop of the IR starts on."""
    return {ln for fn in module.functions for lp in natural_loops(fn)
            if (ln := loop_line(module, fn, lp)) is not None}
