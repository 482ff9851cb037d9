"""Expected occurrence frequency f_I of the blocks of a parallel band (thesis Section 4.2.3).

f_I(s) is the product of the trip counts of the kernel-body loops enclosing s and of the
probabilities of the branches leading to s, counted per GPU thread, i.e. per iteration of
the band (band loops count once). It is computed like LLVM's block frequencies: inside one
iteration of a loop, frequencies flow from the header along forward edges (a conditional
branch sends p of its frequency to the taken side and 1 - p to the other; a switch splits
evenly); a nested loop is one node whose blocks get ``entry frequency * trip count * their
own per-iteration frequency``, and whose exits share the entry frequency in proportion to
how often each exit edge is taken (a loop's own test leaves with weight 1/trip per
iteration, a ``break`` with its branch probability).

The branch that tests a loop's own end does not split frequency inside the loop: the trip
count already says how often the body runs.

Examples
--------
>>> freq = block_frequencies(fn, forest, band, trip, prob)   # doctest: +SKIP
>>> freq[body_block]                                          # doctest: +SKIP
16.0
"""

from __future__ import annotations

from collections.abc import Callable

from .ir import Function, Inst
from .loops import LoopForest


def edge_probabilities(fn: Function, forest: LoopForest, block: int,
                       branch_prob: Callable[[Inst], float]) -> list[tuple[int, float, bool]]:
    """``(successor, probability, leaves_by_loop_test)`` for each out-edge of ``block``.

    For a loop's controlling test the edge that stays in the loop has probability 1 and
    the exit edge is flagged (its weight is 1/trip, see :func:`block_frequencies`)."""
    term = fn.terminator(block)
    succs = fn.blocks[block].succs
    if not succs:
        return []
    if term.opcode == "br" and len(term.ops) == 3 and len(succs) == 2:
        inner = forest.block_loop[block]
        if inner is not None and block in forest.loops[inner].controlling:
            loop = forest.loops[inner]
            inside = [s for s in succs if s in loop.blocks]
            if len(inside) == 1:
                return [(s, 1.0, False) if s in loop.blocks else (s, 1.0, True) for s in succs]
        p = branch_prob(term)
        return [(succs[0], p, False), (succs[1], 1.0 - p, False)]
    return [(s, 1.0 / len(succs), False) for s in succs]


def block_frequencies(fn: Function, forest: LoopForest, root: int, trip: Callable[[int], float],
                      branch_prob: Callable[[Inst], float], band: set[int]) -> dict[int, float]:
    """f_I of every block of loop ``root`` (the outermost band loop), per band iteration.

    ``trip(loop)`` gives a kernel-body loop's trip count; ``band`` loops count once.
    The region must be reducible (the caller rejects ``forest.irreducible`` edges inside
    it, as :func:`starchart.xapp.static.analyse` does): then inside one iteration of a loop
    the forward edges form a DAG (a cycle avoiding the header would be a nested natural
    loop, collapsed to one node) and a nested loop is only entered through its header
    (its header dominates it).
    """
    local_cache: dict[int, dict[object, float]] = {}

    def node_of(block: int, loop: int) -> object:
        """The node that stands for ``block`` inside ``loop``: itself or a nested loop."""
        inner = forest.block_loop[block]
        if inner == loop:
            return block
        while inner is not None and forest.loops[inner].parent != loop:
            inner = forest.loops[inner].parent
        return ("loop", inner)

    def exit_share(loop: int) -> dict[int, float]:
        """Where the frequency entering ``loop`` leaves to (target block -> share)."""
        local = local_freqs(loop)
        weights: dict[int, float] = {}
        t = trip(loop) if loop not in band else 1.0
        for b, s in forest.loops[loop].exits:
            inner_node = node_of(b, loop)
            f = local.get(inner_node, 0.0) if inner_node == b else 0.0
            for succ, p, by_test in edge_probabilities(fn, forest, b, branch_prob):
                if succ == s:
                    weights[s] = weights.get(s, 0.0) + f * (1.0 / max(t, 1.0) if by_test else p)
        total = sum(weights.values())
        if total <= 0:
            targets = {s for _, s in forest.loops[loop].exits}
            return {s: 1.0 / len(targets) for s in targets} if targets else {}
        return {s: w / total for s, w in weights.items()}

    def out_edges(node: object, loop: int) -> list[tuple[int, float]]:
        if isinstance(node, tuple):
            return list(exit_share(node[1]).items())  # type: ignore[index]
        return [(s, p) for s, p, _ in edge_probabilities(fn, forest, node, branch_prob)]  # type: ignore[arg-type]

    def local_freqs(loop: int) -> dict[object, float]:
        """Per-iteration frequency of each node of ``loop`` (header = 1)."""
        if loop in local_cache:
            return local_cache[loop]
        info = forest.loops[loop]
        nodes = {node_of(b, loop) for b in info.blocks}
        edges: dict[object, list[tuple[object, float]]] = {n: [] for n in nodes}
        indegree = {n: 0 for n in nodes}
        for n in nodes:
            for s, p in out_edges(n, loop):
                if s == info.header or s not in info.blocks:
                    continue  # back edge, or leaving the loop
                target = node_of(s, loop)
                edges[n].append((target, p))
                indegree[target] += 1
        freq = {n: 0.0 for n in nodes}
        freq[info.header] = 1.0
        ready = [n for n in nodes if indegree[n] == 0]
        while ready:
            n = ready.pop()
            for target, p in edges[n]:
                freq[target] += freq[n] * p
                indegree[target] -= 1
                if indegree[target] == 0:
                    ready.append(target)
        local_cache[loop] = freq
        return freq

    out: dict[int, float] = {}

    def assign(loop: int, mass: float) -> None:
        scale = mass * (1.0 if loop in band else trip(loop))
        for node, f in local_freqs(loop).items():
            if isinstance(node, tuple):
                assign(node[1], scale * f)  # type: ignore[index]
            else:
                out[node] = scale * f  # type: ignore[index]

    assign(root, 1.0)
    return out
