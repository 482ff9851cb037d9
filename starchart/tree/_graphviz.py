"""Graphviz rendering of a Starchart tree (DOT source, and SVG when ``dot`` is installed)."""

from __future__ import annotations

import shutil
import subprocess
from typing import TYPE_CHECKING

from starchart.errors import StarchartError
from starchart.tree._text import count_below, expanded_nodes, split_labels

if TYPE_CHECKING:
    from starchart.tree._tree import StarchartTree


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def tree_to_dot(tree: "StarchartTree", decimals: int = 4, max_depth: int | None = None,
                top_splits: int | None = None, minimize: bool = True) -> str:
    """Graphviz DOT source: boxes for splits, ellipses for leaves, labelled edges. ``max_depth`` and
    ``top_splits`` choose the splits shown as :func:`~starchart.tree._text.expanded_nodes` does; a node whose
    split is hidden is drawn as a leaf that says how many nodes lie below it.

    Examples
    --------
    >>> import pandas as pd
    >>> from starchart.tree._tree import StarchartTree
    >>> tree = StarchartTree(min_samples_split=2).fit(pd.DataFrame({"x": [1, 1, 2, 2]}), [1, 1, 5, 5])
    >>> print(tree.to_dot().splitlines()[0])
    digraph starchart {
    """
    lines = ["digraph starchart {", '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    shown = expanded_nodes(tree, max_depth, top_splits, minimize)
    for node in tree.nodes_:
        if node.parent is not None and node.parent not in shown:
            continue
        collapsed = not node.is_leaf and node.id not in shown
        shape = "ellipse" if node.is_leaf or collapsed else "box"
        label = f"n={node.n_samples}\\nmean={node.mean:.{decimals}g}"
        if node.is_leaf or collapsed:
            label += f"\\nstd={node.std:.{decimals}g}"
        if collapsed:
            label += f"\\n(+{count_below(tree, node.id)} nodes below)"
        lines.append(f'  n{node.id} [shape={shape}, label="{label}"];')
        if node.is_leaf or collapsed:
            continue
        left_label, right_label = split_labels(tree, node)
        lines.append(f"  n{node.id} -> n{node.left} [label={_quote(left_label)}];")
        lines.append(f"  n{node.id} -> n{node.right} [label={_quote(right_label)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dot_to_svg(dot_source: str) -> str:
    """Render DOT source to SVG with the Graphviz ``dot`` program."""
    exe = shutil.which("dot")
    if exe is None:
        raise StarchartError("Graphviz 'dot' is not installed, so no SVG can be drawn",
                             hint="install Graphviz (e.g. apt-get install graphviz) or use --format dot")
    result = subprocess.run([exe, "-Tsvg"], input=dot_source, capture_output=True, text=True,
                            timeout=120, check=False)
    if result.returncode != 0:
        raise StarchartError(f"Graphviz failed: {result.stderr.strip()[-500:]}",
                             hint="report this with the DOT source (--format dot)")
    return result.stdout
