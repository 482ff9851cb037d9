"""Plain-text rendering of a Starchart tree.

Examples
--------
>>> import pandas as pd
>>> from starchart.tree._tree import StarchartTree
>>> X = pd.DataFrame({"tpp": [1, 1, 1, 8, 8, 8]})
>>> tree = StarchartTree(min_samples_split=2).fit(X, [3.0, 3.1, 2.9, 1.0, 1.1, 0.9])
>>> print(tree.export_text(decimals=2))
[0] all designs  n=6  mean=2
├── tpp = 1  [1] leaf  n=3  mean=3
└── tpp = 8  [2] leaf  n=3  mean=1
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from starchart._util.direction import direction_word
from starchart._util.units import with_unit

if TYPE_CHECKING:
    from starchart.tree._tree import StarchartTree, TreeNode


# A string value reads bare when it is one "word" (letters of any script, digits, _ . + - / : @ # % *);
# anything else (a space, a comma, a brace, a quote, ∧ …, or nothing at all) would blur the condition
# around it ("a ∈ {x, y, z}" with a level "y, z"), so it is quoted.
_BARE = re.compile(r"[\w.+\-/:@#%*]+")


def format_value(value: Any) -> str:
    """A parameter value as leaf descriptions and split labels (text, HTML, Graphviz) show it.

    Whole floats lose their ``.0``, other floats keep 6 significant digits, and a string is
    written bare when it is one word, else in double quotes (JSON escapes inside), so that a
    level holding ", " or "}" cannot be read as two levels or as the end of the set.

    >>> [format_value(v) for v in (8.0, 0.125, True, "nvidia", "sm_90", "tiled, v2", "", 'say "hi"')]
    ['8', '0.125', 'True', 'nvidia', 'sm_90', '"tiled, v2"', '""', '"say \\\\"hi\\\\""']
    """
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    if isinstance(value, str) and not _BARE.fullmatch(value):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def split_labels(tree: "StarchartTree", node: "TreeNode") -> tuple[str, str]:
    """The conditions on the left and right branches of an internal node."""
    if node.left_levels is not None:
        # the levels that can reach this node and go right (an earlier split may have sent some away)
        right = (node.right_levels if node.right_levels is not None
                 else [v for v in tree.values_[node.feature] if v not in node.left_levels])
        return (f"{node.feature} ∈ {{{', '.join(map(format_value, node.left_levels))}}}",
                f"{node.feature} ∈ {{{', '.join(map(format_value, right))}}}")
    values = tree.values_[node.feature]
    if len(values) == 2 and all(isinstance(v, (bool, np.bool_)) for v in values):  # False ≤ 0 < True
        return f"{node.feature} = False", f"{node.feature} = True"
    if len(values) == 2 and tree.param_kinds_.get(str(node.feature)) == "ordered":
        low, high = values  # in the tree's order; a switch of two values: "consec ≤ 0" read as a range, not as "off"
        return f"{node.feature} = {format_value(low)}", f"{node.feature} = {format_value(high)}"
    value = _threshold_label(tree, node)
    return f"{node.feature} ≤ {value}", f"{node.feature} > {value}"


def _threshold_label(tree: "StarchartTree", node: "TreeNode") -> str:
    if tree.param_kinds_[node.feature] == "ordered" and any(
            isinstance(v, str) for v in tree.values_[node.feature]):

        return format_value(tree.values_[node.feature][int(node.threshold)])  # ordered categorical
    threshold = node.threshold
    return str(int(threshold)) if float(threshold).is_integer() else f"{threshold:.6g}"


def best_leaf_line(tree: "StarchartTree", metric: str, minimize: bool = True, unit: str | None = None) -> str:
    """The line naming the best leaf: its region, size, mean and worst case — the largest value
    when lower is better, the smallest when higher is better (a maximised GFLOP/s's worst case is its min).

    >>> import pandas as pd
    >>> from starchart.tree._tree import StarchartTree
    >>> tree = StarchartTree(min_samples_split=2).fit(pd.DataFrame({"tpp": [1, 1, 8, 8]}), [3.0, 3.4, 1.0, 1.2])
    >>> best_leaf_line(tree, "time")
    'lowest-mean leaf (time: lower is better): tpp = 8  (n=2, mean=1.1, max=1.2)'
    >>> best_leaf_line(tree, "GFLOP/s", minimize=False)
    'highest-mean leaf (GFLOP/s: higher is better): tpp = 1  (n=2, mean=3.2, min=3)'
    """
    best = tree.best_leaf(minimize=minimize)
    worst = f"max={with_unit(best.max, unit)}" if minimize else f"min={with_unit(best.min, unit)}"
    return (f"{'lowest' if minimize else 'highest'}-mean leaf ({metric}: {direction_word(minimize)}): "
            f"{best.description}  (n={best.n_samples}, mean={with_unit(best.mean, unit)}, {worst})")


def _stats(node: "TreeNode", decimals: int, hidden: int = 0) -> str:
    kind = "leaf  " if node.is_leaf else ""
    below = f"  (+{hidden} nodes below)" if hidden else ""
    return f"[{node.id}] {kind}n={node.n_samples}  mean={node.mean:.{decimals}g}{below}"


def count_below(tree: "StarchartTree", node_id: int) -> int:
    """How many nodes lie below node ``node_id`` (0 for a leaf)."""
    left, right = tree.tree_.left, tree.tree_.right
    count, stack = 0, [node_id]
    while stack:
        i = stack.pop()
        if left[i] >= 0:
            count += 2
            stack += [int(left[i]), int(right[i])]
    return count


def expanded_nodes(tree: "StarchartTree", max_depth: int | None = None, top_splits: int | None = None,
                   minimize: bool = True, reach: Iterable[int] = ()) -> set[int]:
    """The internal nodes whose split a rendering shows: those above ``max_depth``, and with ``top_splits=K``
    only the K splits that reduce the squared error most, the splits on the path to the best leaf (lowest mean
    when ``minimize``) and to every node of ``reach``, and the splits above those, so the view stays one tree.

    >>> import pandas as pd
    >>> from starchart.tree._tree import StarchartTree
    >>> X = pd.DataFrame({"tpp": [1, 1, 1, 1, 8, 8, 8, 8], "ppb": [1, 2, 1, 2, 1, 2, 1, 2]})
    >>> tree = StarchartTree(min_samples_split=2).fit(X, [30, 30.1, 30, 30.1, 1, 1.2, 1, 1.2])
    >>> sorted(expanded_nodes(tree, top_splits=1, minimize=False))  # the root, and the way to the slow leaf
    [0, 1]
    """
    internal = {node.id for node in tree.nodes_ if not node.is_leaf}
    if max_depth is not None:
        internal = {i for i in internal if tree.nodes_[i].depth < max_depth}
    if top_splits is None:
        return internal
    ranked = sorted(internal, key=lambda i: (-tree.nodes_[i].improvement, i))[:top_splits]
    best = tree.best_leaf(minimize=minimize).node_id
    shown = {i for node in (*ranked, best, *reach) for i in with_ancestors(tree, node)}
    return shown & internal  # a leaf of best or reach is drawn as its parent's child, not expanded


def with_ancestors(tree: "StarchartTree", node_id: int) -> list[int]:
    """``node_id`` and every node above it, up to the root."""
    path: list[int] = []
    node: int | None = node_id
    while node is not None:
        path.append(node)
        node = tree.nodes_[node].parent
    return path


def tree_to_text(tree: "StarchartTree", decimals: int = 4, max_depth: int | None = None,
                 top_splits: int | None = None, minimize: bool = True) -> str:
    """Render ``tree`` as an indented tree, one line per node with its sample count and mean; a node whose
    split is not shown (below ``max_depth``, or not among the ``top_splits``: :func:`expanded_nodes`) says how
    many nodes lie below it."""
    shown = expanded_nodes(tree, max_depth, top_splits, minimize)
    root = tree.nodes_[0]
    lines = [f"[{root.id}] all designs  n={root.n_samples}  mean={root.mean:.{decimals}g}"]
    # Depth-first with explicit stack: (node id, label, prefix, is_last)
    stack: list[tuple[int, str, str, bool]] = []

    def push_children(node: "TreeNode", prefix: str) -> None:
        if node.id not in shown:
            return
        left_label, right_label = split_labels(tree, node)
        stack.append((node.right, right_label, prefix, True))
        stack.append((node.left, left_label, prefix, False))

    push_children(root, "")
    while stack:
        node_id, label, prefix, last = stack.pop()
        node = tree.nodes_[node_id]
        branch = "└── " if last else "├── "
        cut = node.id not in shown and not node.is_leaf
        lines.append(f"{prefix}{branch}{label}  {_stats(node, decimals, count_below(tree, node_id) if cut else 0)}")
        push_children(node, prefix + ("    " if last else "│   "))
    return "\n".join(lines)
