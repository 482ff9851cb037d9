"""Figures of a fitted tree and of the measurements behind it (matplotlib, no display needed).

Every function returns a :class:`matplotlib.figure.Figure` built without
:mod:`matplotlib.pyplot`, so nothing depends on a GUI backend or on pyplot's
global list of open figures; save one with ``fig.savefig("tree.svg")`` (or
``.png``, ``.pdf``).

- :func:`plot_tree` — the tree itself: split parameters in the boxes, conditions on
  the edges, leaves coloured by their mean, the best leaf outlined (no Graphviz); a tree
  wider than a page starts at the top-left corner, where a browser shows it first;
- :func:`plot_importance` — each parameter's share of the SSE reduction;
- :func:`plot_leaf_distributions` — the measured values in every leaf, best first;
- :func:`plot_measurements` — all measured values sorted, with their repeat spread;
- :func:`plot_progress` — values in the order measured, the best so far, failures apart.

Examples
--------
>>> import pandas as pd
>>> from starchart.tree import StarchartTree
>>> X = pd.DataFrame({"tpp": [1, 1, 2, 2, 4, 4, 8, 8], "consec": [0, 1] * 4})
>>> tree = StarchartTree(min_samples_split=2).fit(X, [9, 9.2, 5, 5.1, 3, 3.2, 2.9, 3.1])
>>> fig = plot_tree(tree, metric="time")
>>> fig.axes[0].get_title(loc="left")
'Starchart tree of time (ms): 8 leaves, depth 4'
>>> plot_importance(tree).axes[0].get_xlabel()
'share of the SSE reduction (%)'
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.colors import Colormap, ListedColormap, LogNorm, Normalize, to_rgb
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import FancyBboxPatch, Patch
from matplotlib.textpath import TextToPath
from matplotlib.ticker import NullLocator

from starchart._util.axes import plain_log_ticks
from starchart._util.text import shorten
from starchart._util.units import KNOWN_UNITS, metric_label, metric_unit, unit_of  # noqa: F401  (KNOWN_UNITS: re-exported, it lived here)
from starchart._util.validation import Interval, check, check_seed
from starchart.dataset import REPEATS_PREFIX
from starchart.errors import InputError
from starchart.tree import expanded_nodes, format_value, split_labels, with_ancestors

if TYPE_CHECKING:
    from starchart.dataset import Dataset
    from starchart.tree import StarchartTree

__all__ = ["PAGE_INCHES", "splits_that_matter", "failure_counts", "figures", "metric_label", "metric_unit",
           "plot_importance", "plot_leaf_distributions", "plot_measurements", "plot_progress", "plot_scatter",
           "plot_tree", "validation_pair"]

_BEST_COLOR = "#1f3fbf"
_FONT = 8

#: Point clouds larger than this are drawn as one embedded image instead of one vector mark per point:
#: a 100,000-configuration study made 10-25 MB figures (46 MB of HTML) that took seconds to draw and to open.
DENSE_POINTS = 5000

#: Widest figure (inches) the HTML report's column shows without scrolling: 1200 px less its
#: padding, at 96 px per inch. A wider tree is drawn with its root at the left (see :func:`plot_tree`).
PAGE_INCHES = 11.5


def _fmt(value: float, digits: int = 3) -> str:
    """A compact number: 3 significant digits, no exponent for everyday magnitudes."""
    if not np.isfinite(value):
        return str(value)
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
        return f"{value:.{digits - 1}e}"
    return f"{value:.{digits}g}"


def _norm(values: np.ndarray) -> Normalize:
    """Log colour/axis scale when positive values span more than a factor 10."""
    finite = values[np.isfinite(values)]
    if finite.size and finite.min() > 0 and finite.max() / finite.min() > 10:
        return LogNorm(finite.min(), finite.max())
    low, high = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
    return Normalize(low, high if high > low else low + 1)


def _use_log(values: np.ndarray, log: bool | None) -> bool:
    if log is not None:
        return log
    return isinstance(_norm(values), LogNorm)


def _text_inches(text: str, size: float) -> float:
    """The width of one line of ``text`` at ``size`` points in the default font (no renderer needed)."""
    width, _, _ = TextToPath().get_text_width_height_descent(text, FontProperties(size=size), ismath=False)
    return 1.05 * width / 72  # a renderer's extent is a few per cent wider


def _leaf_colormap(name: str | None, minimize: bool) -> Colormap:
    """The leaf colours: red-yellow-green (green good) without its darkest ends, so text stays legible."""
    base = colormaps[name or ("RdYlGn_r" if minimize else "RdYlGn")]
    if name is not None:
        return base
    return ListedColormap(base(np.linspace(0.1, 0.9, 256)), name="starchart_leaves")


def _text_color(face: Any) -> str:
    """Black or white, whichever reads better on ``face``."""
    r, g, b = to_rgb(face)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


# ------------------------------------------------------------------------- the tree
def _tree_layout(tree: StarchartTree, max_depth: int | None, *, parent_over_left: bool = False,
                 expand: Collection[int] | None = None) -> tuple[dict[int, float], list[int]]:
    """x position of every drawn node (one slot per terminal node) and the ids of the terminal
    nodes (leaves, or nodes cut off at ``max_depth`` or, given ``expand``, not in it), left to right.

    A parent is centred over its two children, or, with ``parent_over_left``, drawn straight
    above its left child: then the root and every first split sit at the left edge, where a
    browser shows a figure wider than the page before it is scrolled (centred, the root of a
    wide tree lies half-way across, out of view, above an empty left part).
    """
    nodes = tree.nodes_
    x: dict[int, float] = {}
    terminals: list[int] = []
    stack: list[tuple[int, bool]] = [(0, False)]
    while stack:  # post-order without recursion (deep trees)
        node_id, children_done = stack.pop()
        node = nodes[node_id]
        cut = (max_depth is not None and node.depth >= max_depth) or (expand is not None and node_id not in expand)
        if node.is_leaf or cut:
            x[node_id] = float(len(terminals))
            terminals.append(node_id)
        elif children_done:
            x[node_id] = x[node.left] if parent_over_left else (x[node.left] + x[node.right]) / 2
        else:
            stack += [(node_id, True), (node.right, False), (node.left, False)]
    return x, terminals


def _slot_width(tree: StarchartTree, x: dict[int, float], terminals: set[int], slot_width: float) -> float:
    """Inches per slot so that each node's two edge conditions fit side by side: they sit half-way
    down its edges, (x_right - x_left) / 2 slots apart (at most 1.5 inches: labels are shortened anyway)."""
    nodes = tree.nodes_
    for node_id in x:
        node = nodes[node_id]
        if node_id not in terminals:
            pair = sum(_text_inches(shorten(t, 28), _FONT - 1.5) for t in _edge_label(tree, node)) + 0.08
            slot_width = max(slot_width, min(1.5, pair / (x[node.right] - x[node.left])))
    return slot_width


def _edge_label(tree: StarchartTree, node: Any) -> tuple[str, str]:
    """The branch conditions without the parameter name (it is in the box): ``≤ 8`` / ``> 8``."""
    left, right = split_labels(tree, node)
    prefix = f"{node.feature} "
    return left.removeprefix(prefix), right.removeprefix(prefix)


def plot_tree(tree: StarchartTree, *, metric: str | None = None, unit: str | None = None,
              minimize: bool = True, max_depth: int | None = None, title: str | None = None,
              cmap: str | None = None, slot_width: float = 0.62, level_height: float = 0.95,
              root_left: bool | None = None, expand: Collection[int] | None = None,
              top_splits: int | None = None, marks: Mapping[int, str] | None = None) -> Figure:
    """Draw a fitted tree: one box per node, leaves coloured by their mean.

    Inner nodes show the split parameter, their sample count and mean; the edges
    carry the conditions (left: ``≤`` or the first level set). Leaves show their
    count and mean on a colour scale (green is good: low when ``minimize``), and the
    best leaf (:meth:`~starchart.tree._tree.StarchartTree.best_leaf`) is outlined and
    starred. The figure grows with the number of leaves (``slot_width`` inches
    each) and levels, so that labels never overlap; pass ``max_depth`` to draw only
    the top of a large tree (cut nodes are drawn as leaves marked ``…``).

    Parameters
    ----------
    tree:
        A fitted :class:`~starchart.tree._tree.StarchartTree`.
    metric, unit:
        Name (and unit, when not known from the name) of the response, for labels.
    minimize:
        Whether small means are good (colours and the best leaf).
    max_depth:
        Draw nodes down to this depth only.
    expand:
        Draw the children of these nodes only (see :func:`splits_that_matter`); the others are drawn
        as boxes marked ``…`` when they hold more splits.
    top_splits:
        Draw only the ``top_splits`` splits that reduce the squared error most, the splits on the way to the
        best leaf and those above them (:func:`~starchart.tree.expanded_nodes`), instead of ``expand``.
    marks:
        Nodes to shade, each with a label written under it (node id: label), e.g. each platform's best
        subspace in a tree over several platforms (Fig. 8 of the paper). Nodes with the same label share
        a colour; a node that is not drawn is not marked.
    title:
        Figure title; default names the metric, leaf count and depth.
    cmap:
        A matplotlib colormap name; default red-yellow-green, green for good.
    root_left:
        Draw each parent above its left child, so the root sits at the top-left corner, instead of
        centred over its children; default: when the centred figure is wider than
        :data:`PAGE_INCHES`, so that a browser, which shows the left part of a wide figure first,
        shows the top of the tree (and the colour bar, then placed beside the title).
    """
    tree._check_fitted()
    if top_splits is not None:
        check("top_splits", top_splits, Interval(int, 1, None), hint="e.g. 3")
        expand = expanded_nodes(tree, max_depth, top_splits, minimize)
    nodes = tree.nodes_
    what = metric_label(metric, unit) if metric else "the response"
    if title is None:
        leaves = "1 leaf" if tree.n_leaves_ == 1 else f"{tree.n_leaves_} leaves"
        title = f"Starchart tree of {what}: {leaves}, depth {tree.depth_}"
    title_inches = _text_inches(title, _FONT + 3)

    def layout(over_left: bool) -> tuple[dict[int, float], list[int], float, float]:
        x, order = _tree_layout(tree, max_depth, parent_over_left=over_left, expand=expand)
        slot = _slot_width(tree, x, set(order), slot_width)
        # The title (left) and the 2.4-inch colour bar share the top strip: wide enough for both.
        return x, order, slot, max(6.5, slot * len(order) + 0.8, title_inches + 3.6)

    x, terminal_order, slot_width, width = layout(bool(root_left))
    if root_left is None and width > PAGE_INCHES:
        # Centred over a tree wider than the page, the root and the first splits lie out of view and
        # a reader first sees an empty corner: start the tree at the left edge instead.
        root_left = True
        x, terminal_order, slot_width, width = layout(True)
    terminals = set(terminal_order)
    best = tree.best_leaf(minimize=minimize).node_id
    depth = max(nodes[i].depth for i in x)
    means = np.array([nodes[i].mean for i in terminal_order])
    norm = _norm(means)
    colors = _leaf_colormap(cmap, minimize)
    height = level_height * (depth + 1) + 1.3
    fig = Figure(figsize=(width, height))
    # Axes at a fixed inch margin: the title on top, colour bar in the top-right corner.
    top, bottom, side = 0.75, 0.25, 0.4
    ax = fig.add_axes((side / width, bottom / height, 1 - 2 * side / width, 1 - (top + bottom) / height))
    ax.set_xlim(-0.55, len(terminals) - 0.45)
    ax.set_ylim(-depth - 0.55, 0.45)
    ax.axis("off")

    for node_id, xpos in x.items():
        node = nodes[node_id]
        if node_id not in terminals:
            left_text, right_text = _edge_label(tree, node)
            for child, text in ((node.left, left_text), (node.right, right_text)):
                cx, cy = x[child], -nodes[child].depth
                ax.plot([xpos, cx], [-node.depth, cy], color="#888888", lw=0.9, zorder=1)
                ax.text(xpos + 0.5 * (cx - xpos), -node.depth - 0.5, shorten(text, 28), ha="center",
                        va="center", fontsize=_FONT - 1.5, color="#333333", zorder=2, parse_math=False,
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.9})
    for node_id, xpos in x.items():
        node = nodes[node_id]
        y = -node.depth
        if node_id in terminals:
            cut = not node.is_leaf
            label = f"[{node_id}]\nn={node.n_samples}\n{_fmt(node.mean)}" + ("\n…" if cut else "")
            face = colors(norm(node.mean)) if node.mean > 0 or not isinstance(norm, LogNorm) else "white"
            is_best = node_id == best
            ax.text(xpos, y, label, ha="center", va="center", fontsize=_FONT - 0.5, zorder=3,
                    fontweight="bold" if is_best else "normal", color=_text_color(face),
                    bbox={"boxstyle": "round,pad=0.3", "fc": face,
                          "ec": _BEST_COLOR if is_best else "#555555", "lw": 2.4 if is_best else 0.7})
            if is_best:
                ax.text(xpos, y - 0.36, "★ best", ha="center", va="top", fontsize=_FONT - 1,
                        color=_BEST_COLOR, fontweight="bold", zorder=3)
        else:
            ax.text(xpos, y, f"{node.feature}\nn={node.n_samples}\n{_fmt(node.mean)}", ha="center",
                    va="center", fontsize=_FONT - 0.5, zorder=3, linespacing=1.15, parse_math=False,
                    bbox={"boxstyle": "round,pad=0.3", "fc": "#eef1f6", "ec": "#555555", "lw": 0.7})

    _draw_marks(ax, x, nodes, marks or {}, best)
    ax.set_title(title, fontsize=_FONT + 3, loc="left", pad=14, parse_math=False)
    # Colour bar: fixed 2.4-inch wide strip in the top-right corner, or, for a tree drawn from the
    # left, right after the title, where it is seen before the figure is scrolled.
    bar_left = width - 2.4 - side
    if root_left:
        bar_left = min(bar_left, side + title_inches + 0.6)
    cax = fig.add_axes((bar_left / width, 1 - 0.42 / height, 2.4 / width, 0.11 / height))
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=colors), cax=cax, orientation="horizontal")
    ticks = (np.geomspace if isinstance(norm, LogNorm) else np.linspace)(norm.vmin, norm.vmax, 4)
    bar.set_ticks(ticks, labels=[_fmt(t) for t in ticks])
    bar.ax.xaxis.set_minor_locator(NullLocator())
    bar.ax.tick_params(labelsize=_FONT - 1.5, length=2, pad=1)
    bar.set_label(f"leaf mean {metric_label(metric, unit) if metric else ''}".strip(),
                  fontsize=_FONT - 1, labelpad=1, parse_math=False)
    bar.ax.xaxis.set_label_position("top")
    return fig


#: Colours of the marks of :func:`plot_tree`: one per distinct label (colour-blind-safe, light enough to read on).
_MARK_COLORS = ("#56b4e9", "#e69f00", "#cc79a7", "#009e73", "#f0e442", "#0072b2", "#d55e00")


def _draw_marks(ax: Any, x: Mapping[int, float], nodes: Sequence[Any], marks: Mapping[int, str], best: int) -> None:
    """Shade each marked node that is drawn, and write its label under it (under the best leaf's star)."""
    colors = {label: _MARK_COLORS[i % len(_MARK_COLORS)] for i, label in enumerate(dict.fromkeys(marks.values()))}
    for node_id, label in marks.items():
        if node_id not in x:
            continue
        y = -nodes[node_id].depth
        ax.add_patch(FancyBboxPatch((x[node_id] - 0.46, y - 0.42), 0.92, 0.84, boxstyle="round,pad=0.02",
                                    fc=colors[label], ec=colors[label], alpha=0.35, lw=1.5, zorder=0.5))
        ax.text(x[node_id], y - (0.62 if node_id == best else 0.46), shorten(label, 24), ha="center", va="top",
                fontsize=_FONT - 1.5, color="#222222", fontweight="bold", zorder=3, parse_math=False)


def splits_that_matter(tree: StarchartTree, max_boxes: int = 16, minimize: bool = True) -> set[int] | None:
    """The splits to draw so that a tree of any size reads on one page: the path to the best leaf,
    then the splits with the largest SSE reduction (each with its ancestors), as long as the drawing
    keeps at most ``max_boxes`` terminal boxes (more only when the best leaf lies deeper than that);
    None when the whole tree fits.

    Examples
    --------
    >>> import pandas as pd
    >>> from starchart.tree import StarchartTree
    >>> tree = StarchartTree(min_samples_split=2).fit(pd.DataFrame({"x": range(16)}), [x ** 2 for x in range(16)])
    >>> tree.n_leaves_, splits_that_matter(tree, 100)
    (16, None)
    >>> shown = splits_that_matter(tree, 10)   # 10 boxes: the best leaf's 6 splits, and 3 more
    >>> len(shown) + 1, tree.best_leaf().node_id in {c for n in tree.nodes_ if n.id in shown for c in (n.left, n.right)}
    (10, True)
    """
    if tree.n_leaves_ <= max_boxes:
        return None
    best = tree.best_leaf(minimize=minimize).node_id
    shown = set(with_ancestors(tree, best)) - {best}  # every split above the best leaf: it is always drawn
    # a drawing that expands k splits has k + 1 terminal boxes
    for node in sorted((n for n in tree.nodes_ if not n.is_leaf), key=lambda n: -n.improvement):
        more = set(with_ancestors(tree, node.id)) - shown
        if len(shown | more) + 1 > max_boxes:
            continue
        shown |= more
    return shown


# ------------------------------------------------------------------- importance
def plot_importance(tree: StarchartTree, *, title: str | None = None, node_id: int = 0) -> Figure:
    """Horizontal bars: each parameter's share of the tree's SSE reduction, largest on top.

    ``node_id`` gives the importance within the subtree below that node.
    """
    importance = tree.importance(node_id, normalize=True).sort_values() * 100
    fig = Figure(figsize=(6.4, max(2.2, 0.9 + 0.32 * len(importance))))
    ax = fig.add_subplot()
    bars = ax.barh(range(len(importance)), importance.to_numpy(), color="#4c72b0", height=0.65)
    ax.set_yticks(range(len(importance)), importance.index.astype(str), parse_math=False)
    for bar, value in zip(bars, importance.to_numpy()):
        ax.text(bar.get_width() + 1, bar.get_y() + bar.get_height() / 2, f"{value:.1f} %",
                va="center", fontsize=_FONT)
    ax.set_xlim(0, max(10.0, importance.max() * 1.18))  # room for the value labels
    ax.set_xlabel("share of the SSE reduction (%)")
    where = "the whole tree" if node_id == 0 else f"the subtree of node {node_id}"
    ax.set_title(title or f"Parameter importance over {where}", fontsize=_FONT + 3, loc="left", parse_math=False)
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=_FONT + 1)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------- leaf distributions
def plot_leaf_distributions(tree: StarchartTree, dataset: Dataset, metric: str | None = None, *,
                            unit: str | None = None, minimize: bool = True, log: bool | None = None,
                            title: str | None = None, label_chars: int = 70, max_leaves: int | None = 20,
                            seed: int = 0) -> Figure:
    """The measured values of every leaf, one row per leaf, best leaf mean on top.

    Each row shows the valid configurations of ``dataset`` that fall into the leaf
    (:meth:`~starchart.tree._tree.StarchartTree.apply`) as jittered points over their
    quartile box and range, and the leaf's training mean as a diamond; rows are
    labelled ``[id]`` (the leaf's node id, as in the text tree, the tree figure and the leaf table)
    with the leaf's description. Only the ``max_leaves`` best leaves are drawn
    (None: all). ``log`` (default: when values span more than a factor 10) puts the
    value axis on a log scale.
    """
    tree._check_fitted()
    metric = dataset.default_metric if metric is None else metric
    ok = dataset.ok()
    values = ok.y(metric)
    keep = np.isfinite(values)
    leaf_of = tree.apply(ok.X[keep]) if keep.any() else np.array([], dtype=int)
    values = values[keep]
    leaves = list(enumerate(tree.leaves_))
    leaves.sort(key=lambda item: item[1].mean, reverse=not minimize)
    n_leaves = len(leaves)
    if max_leaves is not None and n_leaves > max_leaves:
        leaves = leaves[:max_leaves]
    best = tree.best_leaf(minimize=minimize).node_id

    labels = [f"[{leaf.node_id}]  {shorten(leaf.description, label_chars)}  (n={leaf.n_samples})"
              for _, leaf in leaves]
    # Room for the longest label (about 0.55 em per character) plus a 6-inch plot.
    label_inches = max(map(len, labels)) * (_FONT - 0.5) * 0.55 / 72
    fig = Figure(figsize=(label_inches + 6.5, 1.5 + 0.27 * len(leaves)), layout="constrained")
    ax = fig.add_subplot()
    rows = len(leaves)
    # Every other row shaded, in one collection (x in axes units, y in rows).
    shade = [[(0, r - 0.5), (1, r - 0.5), (1, r + 0.5), (0, r + 0.5)] for r in range(1, rows, 2)]
    ax.add_collection(PolyCollection(shade, facecolors="#f3f3f3", edgecolors="none", zorder=0,
                                     transform=ax.get_yaxis_transform()), autolim=False)
    row_of = {leaf.node_id: r for r, (_, leaf) in enumerate(leaves)}
    shown = np.array([node in row_of for node in leaf_of], dtype=bool)
    point_rows = np.array([row_of[node] for node in leaf_of[shown]], dtype=float)
    rng = np.random.default_rng(seed)
    ax.scatter(values[shown], point_rows + rng.uniform(-0.22, 0.22, point_rows.size), s=8, alpha=0.6,
               color="#4c72b0", lw=0, zorder=2, rasterized=point_rows.size > DENSE_POINTS)
    # Quartile boxes, medians and ranges drawn as three collections (fast for hundreds of rows).
    boxes, medians, ranges = [], [], []
    for r, (_, leaf) in enumerate(leaves):
        here = values[leaf_of == leaf.node_id]
        if here.size:
            q1, med, q3 = np.percentile(here, [25, 50, 75])
            boxes.append([(q1, r - 0.3), (q3, r - 0.3), (q3, r + 0.3), (q1, r + 0.3)])
            medians.append([(med, r - 0.3), (med, r + 0.3)])
            ranges.append([(here.min(), r), (here.max(), r)])
    ax.add_collection(LineCollection(ranges, colors="#777777", linewidths=0.8, zorder=1))
    ax.add_collection(PolyCollection(boxes, facecolors="white", edgecolors="#777777", linewidths=0.8,
                                     zorder=1))
    ax.add_collection(LineCollection(medians, colors="#333333", linewidths=1.0, zorder=1))
    ax.autoscale_view()
    means = ax.scatter([leaf.mean for _, leaf in leaves], range(len(leaves)), marker="D", s=20,
                       color="#dd8452", edgecolor="black", lw=0.4, zorder=3)
    ax.set_yticks(range(len(leaves)), labels, fontsize=_FONT - 0.5, parse_math=False)
    for tick, (_, leaf) in zip(ax.get_yticklabels(), leaves):
        if leaf.node_id == best:
            tick.set_color(_BEST_COLOR)
            tick.set_fontweight("bold")
    ax.set_ylim(len(leaves) - 0.5, -0.5)  # best on top
    all_values = np.concatenate([values, [leaf.mean for _, leaf in leaves]])
    if _use_log(all_values, log):
        ax.set_xscale("log")
        plain_log_ticks(ax.xaxis)
    ax.set_xlabel(metric_label(metric, unit), parse_math=False)
    ax.grid(axis="x", color="#dddddd", lw=0.6, zorder=0)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    points = ax.scatter([], [], s=8, color="#4c72b0", lw=0)
    # Above the plot, so it never hides a leaf.
    ax.legend([points, Patch(fc="white", ec="#777777"), means],
              ["configuration", "quartiles and range", "leaf mean (training)"],
              loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=3, fontsize=_FONT - 0.5, frameon=False,
              borderaxespad=0.2)
    order = "lowest" if minimize else "highest"
    count = f"{n_leaves} leaves" if rows == n_leaves else f"the {rows} best of {n_leaves} leaves"
    fig.suptitle(title or f"Measured {metric} per leaf: {count}, {order} mean on top, "
                 f"{values.size} valid configurations", fontsize=_FONT + 3, x=0.01, ha="left", parse_math=False)
    return fig


# ------------------------------------------------------------------ measurements
def failure_counts(dataset: Dataset) -> dict[str, int]:
    """Number of configurations per failure status (statuses other than ``ok``), largest first.

    Examples
    --------
    >>> import pandas as pd
    >>> from starchart.dataset import Dataset
    >>> ds = Dataset.from_frame(pd.DataFrame({"a": [1, 2, 3], "time": [1.0, None, None],
    ...                                       "status": ["ok", "compile", "compile"]}))
    >>> failure_counts(ds)
    {'compile': 2}
    """
    counts = dataset.status[dataset.status != "ok"].value_counts()
    return {str(k): int(v) for k, v in counts.items()}


def _repeat_range(dataset: Dataset, metric: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Per row of ``dataset``, the smallest and largest repeat of ``metric`` (NaN where none).

    All repeats at once, not an array per row (0.1 s on 18,000 rows of 32 repeats).

    >>> import pandas as pd
    >>> from starchart.dataset import Dataset
    >>> ds = Dataset.from_frame(pd.DataFrame({"a": [1, 2, 3], "time": [2.0, 1.0, 5.0],
    ...                                       "repeats_time": [[1.0, 3.0], [], [float("nan"), 5.0]]}))
    >>> _repeat_range(ds, "time")
    (array([ 1., nan,  5.]), array([ 3., nan,  5.]))
    """
    column = REPEATS_PREFIX + metric
    if column not in dataset.frame.columns:
        return None
    lists = [item if isinstance(item, (list, tuple, np.ndarray)) else () for item in dataset.frame[column]]
    lengths = np.fromiter(map(len, lists), dtype=int, count=len(lists))
    values = np.fromiter(itertools.chain.from_iterable(lists), dtype=float, count=int(lengths.sum()))
    rows = np.repeat(np.arange(len(lists)), lengths)
    finite = np.isfinite(values)
    low, high = np.full(len(lists), np.inf), np.full(len(lists), -np.inf)
    np.minimum.at(low, rows[finite], values[finite])
    np.maximum.at(high, rows[finite], values[finite])
    none = np.isinf(low)  # no finite repeat
    low[none], high[none] = np.nan, np.nan
    return low, high


def plot_measurements(dataset: Dataset, metric: str | None = None, *, unit: str | None = None,
                      minimize: bool = True, log: bool | None = None, title: str | None = None) -> Figure:
    """All valid measurements of ``metric`` sorted best first, with the spread of their repeats.

    Points are the per-configuration values (the mean over repeats); where the
    dataset has per-repeat values (``repeats_<metric>``) a vertical bar spans their
    minimum to maximum. The title counts the failed configurations by status.
    """
    metric = dataset.default_metric if metric is None else metric
    ok = dataset.ok()
    values = ok.y(metric)
    finite = np.isfinite(values)
    order = np.argsort(values[finite] if minimize else -values[finite], kind="stable")
    shown = values[finite][order]
    rank = np.arange(1, shown.size + 1)

    fig = Figure(figsize=(10, 4.2))  # 8 inches of axes and the legend to their right
    ax = fig.add_subplot()
    spread = _repeat_range(ok, metric)
    if spread is not None and shown.size:
        low, high = spread[0][finite][order], spread[1][finite][order]
        has = np.isfinite(low) & np.isfinite(high)
        if int(has.sum()) > DENSE_POINTS:
            # thousands of bars, each under a pixel wide, draw as one band: the same picture, where a
            # bar per rank cost a path transform each (0.5 s of a report on 18,000 configurations)
            ax.fill_between(rank, low, high, where=has, step="mid", color="#9db4d6", lw=0, zorder=1,
                            label="min–max of repeats", rasterized=True)
        elif has.any():
            ax.vlines(rank[has], low[has], high[has], color="#9db4d6", lw=1.2 if shown.size < 300 else 0.6,
                      zorder=1, label="min–max of repeats")
    if shown.size:
        ax.scatter(rank, shown, s=9 if shown.size < 500 else 4, color="#4c72b0", zorder=2,
                   rasterized=shown.size > DENSE_POINTS,
                   label="configuration (mean of repeats)" if spread is not None else "configuration")
        ax.scatter(rank[:1], shown[:1], s=60, marker="*", color=_BEST_COLOR, zorder=3,
                   label=f"best: {_fmt(shown[0], 4)} {metric_unit(metric, unit) or ''}".rstrip())
        if _use_log(shown, log):
            ax.set_yscale("log")
            plain_log_ticks(ax.yaxis)
        # Beside the axes, never on them: inside a corner it hid the first points' repeat bars,
        # which "best" placement does not see (a LineCollection has no offsets to avoid).
        legend = ax.legend(fontsize=_FONT, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                           frameon=False)
        for text in legend.get_texts():  # the unit is the data's text, not mathtext
            text.set_parse_math(False)
    else:
        ax.text(0.5, 0.5, "no valid measurements", transform=ax.transAxes, ha="center", va="center",
                fontsize=_FONT + 4, color="#aa3333")
    ax.set_xlabel("configurations, best first (rank)")
    ax.set_ylabel(metric_label(metric, unit), parse_math=False)
    ax.grid(color="#e5e5e5", lw=0.6)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    failures = failure_counts(dataset)
    failed = sum(failures.values())
    detail = f" ({', '.join(f'{n} {s}' for s, n in failures.items())})" if failed else ""
    ax.set_title(title or f"{metric}: {shown.size} valid of {len(dataset)} configurations, "
                 f"{failed} failed{detail}", fontsize=_FONT + 3, loc="left", parse_math=False)
    fig.tight_layout()
    return fig


#: Markers of the hue groups of :func:`plot_scatter`, one per group (the paper's plots use symbols and colours).
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
#: Distinct x values up to which :func:`plot_scatter` places them evenly, as categories, with a little jitter.
_FEW_VALUES = 16


def plot_scatter(dataset: Dataset, x: str, hue: str | None = None, metric: str | None = None, *,
                 unit: str | None = None, log: bool | None = None, title: str | None = None,
                 seed: int = 0) -> Figure:
    """A metric against one parameter, with symbols and colours by another: the paper's validation plots
    (Fig. 1b/c, Fig. 7b/c, the slides' "Results validation"), to check what the tree says by eye.

    Each valid configuration is one point. A parameter of few values (up to 16) sits on evenly spaced
    positions with a little sideways jitter (``seed``), so that designs with equal values do not hide one
    another; a wider one keeps its own axis. ``hue`` groups the points (up to 10 groups, one symbol and colour
    each; more are refused: choose another parameter). Returns the figure.

    >>> import pandas as pd
    >>> from starchart.dataset import Dataset
    >>> ds = Dataset.from_frame(pd.DataFrame({"tpp": [1, 2, 4, 8] * 2, "consec": [0] * 4 + [1] * 4,
    ...                                       "time": [8.0, 4, 2, 1, 9, 3, 2.5, 1.5]}))
    >>> fig = plot_scatter(ds, "tpp", hue="consec")
    >>> fig.axes[0].get_xlabel(), [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ('tpp', ['consec = 0', 'consec = 1'])
    """
    metric = dataset.default_metric if metric is None else metric
    for name, given in (("x", x), ("hue", hue)):
        if given is not None and given not in dataset.params:
            raise InputError(f"{given!r} is not a parameter of the data", where=name,
                             hint=f"the parameters are: {', '.join(dataset.params)}")
    if metric not in dataset.metrics:
        raise InputError(f"no metric named {metric!r}", where="metric", hint=f"the metrics are: {', '.join(dataset.metrics)}")
    ok = dataset.ok()
    values = ok.y(metric)
    keep = np.isfinite(values)
    frame = ok.frame.loc[keep]
    values = values[keep]
    groups = [None] if hue is None else sorted(frame[hue].unique().tolist(), key=_order_key)
    if len(groups) > len(_MARKERS):
        raise InputError(f"{hue!r} has {len(groups)} values, more than the {len(_MARKERS)} symbols of one plot",
                         where="hue", hint="choose a parameter of fewer values, or leave hue out")
    levels = sorted(frame[x].unique().tolist(), key=_order_key)
    few = len(levels) <= _FEW_VALUES or not all(isinstance(v, (int, float)) for v in levels)
    rng = np.random.default_rng(check_seed(seed))
    position = {level: i for i, level in enumerate(levels)}
    fig = Figure(figsize=(8, 4.2), layout="constrained")
    ax = fig.add_subplot()
    colours = colormaps["tab10"]
    for k, group in enumerate(groups):
        inside = np.ones(len(frame), dtype=bool) if group is None else (frame[hue] == group).to_numpy()
        xs = frame[x].to_numpy()[inside]
        where = (np.array([position[v] for v in xs], dtype=float) + rng.uniform(-0.22, 0.22, xs.size) if few
                 else xs.astype(float))
        ax.scatter(where, values[inside], s=14, marker=_MARKERS[k], color=colours(k % 10), alpha=0.75, lw=0,
                   label=None if group is None else f"{hue} = {format_value(group)}",
                   rasterized=len(values) > DENSE_POINTS)  # the whole plot is dense, not one group
    if few:
        ax.set_xticks(range(len(levels)), [format_value(v) for v in levels])
    if _use_log(values, log):
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
    ax.set_xlabel(x)
    ax.set_ylabel(metric_label(metric, unit if unit is not None else unit_of(metric, dataset.meta) or ""),
                  parse_math=False)
    ax.grid(color="#e5e5e5", lw=0.6)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    if hue is not None:
        legend = ax.legend(fontsize=_FONT, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        for text in legend.get_texts():
            text.set_parse_math(False)
    ax.set_title(title or f"{metric} against {x}" + (f", by {hue}" if hue else "") + f" ({len(values)} designs)",
                 fontsize=_FONT + 3, loc="left", parse_math=False)
    return fig


def validation_pair(tree: StarchartTree, dataset: Dataset) -> tuple[str, str | None] | None:
    """The parameters of the validation plot beside a tree: ``x`` splits the node whose split reduces the
    squared error most, ``hue`` the most reducing split on another parameter that has few enough values for
    one symbol each (None when there is none); None for a tree without a split.

    >>> import pandas as pd
    >>> from starchart.dataset import Dataset
    >>> from starchart.tree import StarchartTree
    >>> ds = Dataset.from_frame(pd.DataFrame({"a": [1, 2, 3, 4] * 2, "b": [0] * 4 + [1] * 4,
    ...                                       "time": [1, 2, 3, 4, 9, 9, 9, 9.5]}))
    >>> validation_pair(StarchartTree(min_samples_split=2).fit(ds.X, ds.y("time")), ds)
    ('b', 'a')
    """
    splits = sorted((node for node in tree.nodes_ if not node.is_leaf), key=lambda node: -node.improvement)
    order = list(dict.fromkeys(str(node.feature) for node in splits))
    if not order:
        return None
    few = [name for name in order[1:] if dataset.frame[name].nunique() <= len(_MARKERS)]
    return order[0], (few[0] if few else None)


def _order_key(value: Any) -> tuple[int, Any]:
    """Sorts numbers before text, each in its own order (a parameter may mix them)."""
    return (0, value) if isinstance(value, (int, float)) else (1, str(value))


def plot_progress(values: Any, *, metric: str = "time", unit: str | None = None, minimize: bool = True,
                  failed: Any = None, title: str | None = None) -> Figure:
    """Each evaluation's value in the order measured, with the best so far as a step line.

    ``values`` are the objective values in evaluation order (NaN for failures, or
    pass ``failed`` as a boolean mask). Failures have no value: they are marked × in a
    strip of their own above the plot, labelled "failed" (drawn at the lowest value, as
    before, they sat on the best-so-far line and read as good results).

    >>> fig = plot_progress([5.0, 3.0, float("nan"), 4.0, 2.5])
    >>> fig.axes[0].get_xlabel(), fig.axes[1].get_ylabel()
    ('evaluation', 'failed')
    """
    y = np.asarray(values, dtype=float)
    bad = ~np.isfinite(y) if failed is None else np.asarray(failed, dtype=bool) | ~np.isfinite(y)
    step = np.arange(1, y.size + 1)
    filled = np.where(bad, np.inf if minimize else -np.inf, y)
    best = np.minimum.accumulate(filled) if minimize else np.maximum.accumulate(filled)
    # constrained, not tight_layout: the latter cannot lay out the shared-axis strip
    fig = Figure(figsize=(8, 3.8 + (0.4 if bad.any() else 0.0)), layout="constrained")
    if bad.any():  # the value axes first (axes[0]), the strip of failures above it
        grid = fig.add_gridspec(2, 1, height_ratios=(1, 11))
        ax = fig.add_subplot(grid[1])
        strip = fig.add_subplot(grid[0], sharex=ax)
    else:
        ax = fig.add_subplot()
        strip = None
    ax.scatter(step[~bad], y[~bad], s=10, color="#9db4d6", label="evaluation", zorder=2,
               rasterized=int((~bad).sum()) > DENSE_POINTS)
    # the best so far only where it changes, and at the end: the same line without a vertex per evaluation
    shown = np.isfinite(best) & (np.r_[True, best[1:] != best[:-1]] | (step == y.size))
    if shown.any():
        ax.step(step[shown], best[shown], where="post", color=_BEST_COLOR, lw=1.8, label="best so far", zorder=3)
        if _use_log(y[~bad], None):
            ax.set_yscale("log")
            plain_log_ticks(ax.yaxis)
    ax.set_xlabel("evaluation")
    ax.set_ylabel(metric_label(metric, unit), parse_math=False)
    ax.grid(color="#e5e5e5", lw=0.6)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=_FONT)
    heading = title or f"{metric} in the order measured ({y.size} evaluations)"
    if strip is not None:
        strip.scatter(step[bad], np.zeros(int(bad.sum())), marker="x", s=18, color="#aa3333", lw=1.2,
                      rasterized=int(bad.sum()) > DENSE_POINTS)
        strip.set_ylim(-1, 1)
        strip.set_yticks([])
        strip.set_ylabel("failed", rotation=0, ha="right", va="center", fontsize=_FONT, color="#aa3333")
        strip.tick_params(axis="x", labelbottom=False, length=0)
        strip.spines[["top", "right", "left"]].set_visible(False)
        strip.grid(axis="x", color="#e5e5e5", lw=0.6)
        strip.set_axisbelow(True)
        heading += f", {int(bad.sum())} failed (×, no value)"
    (strip or ax).set_title(heading, fontsize=_FONT + 3, loc="left", parse_math=False)
    return fig


def figures(tree: StarchartTree, dataset: Dataset, metric: str | None = None, *,
            minimize: bool = True, unit: str | None = None,
            tree_options: Mapping[str, Any] | None = None) -> dict[str, Figure]:
    """The standard figures by file stem: ``tree``, ``importance``, ``leaves``, ``measurements``, and
    ``validation`` (:func:`plot_scatter` of :func:`validation_pair`) for a tree with a split.

    ``tree_options`` are keyword arguments of :func:`plot_tree` (e.g. ``{"max_depth": 3}``).
    """
    return {name: draw() for name, draw in figure_makers(tree, dataset, metric, minimize=minimize, unit=unit,
                                                          tree_options=tree_options).items()}


def figure_makers(tree: StarchartTree, dataset: Dataset, metric: str | None = None, *,
                  minimize: bool = True, unit: str | None = None,
                  tree_options: Mapping[str, Any] | None = None) -> dict[str, Callable[[], Figure]]:
    """What :func:`figures` draws, one function per figure, to draw each where it suits (another process)."""
    metric = dataset.default_metric if metric is None else metric
    if metric not in dataset.metrics:
        raise InputError(f"no metric named {metric!r}", where=dataset.meta.get("source"),
                         hint=f"the metrics are: {', '.join(dataset.metrics)}")
    makers: dict[str, Callable[[], Figure]] = {
        "tree": partial(plot_tree, tree, metric=metric, unit=unit, minimize=minimize, **dict(tree_options or {})),
        "importance": partial(plot_importance, tree),
        "leaves": partial(plot_leaf_distributions, tree, dataset, metric, unit=unit, minimize=minimize),
        "measurements": partial(plot_measurements, dataset, metric, unit=unit, minimize=minimize),
    }
    pair = validation_pair(tree, dataset)
    if pair is not None:  # the paper's validation plot (Fig. 1b/c): the metric against the top split's parameter
        makers["validation"] = partial(plot_scatter, dataset, pair[0], hue=pair[1], metric=metric, unit=unit)
    return makers
