"""Power against performance (paper §VII-D): one tree per metric, subspaces meeting every target.

:func:`tradeoff` fits a Starchart tree to each metric (say runtime and power),
picks in each tree the subspaces whose summary meets that metric's target, and
intersects them: the result is a list of parameter regions *likely* to meet all
targets at once, each with its sample count, mean, worst case (max for a metric
to minimise) and the share of its measured designs that do meet them.

Which nodes of a tree qualify is set by ``level``:

- ``"topmost"`` (default): the largest subspaces that meet the target; the tree is
  descended only where a node does not. Tightening a target therefore only ever
  goes *deeper* under the subspaces already chosen (the paper's "users just need to
  go deeper into the tree instead of backtracking"); see :meth:`TradeoffResult.tighten`;
- an integer ``d``: the nodes at depth ``d`` (leaves above it) — coarse to fine;
- ``"leaves"``: the leaves only (the smallest, tightest subspaces).

How a node is judged is set by ``stat``: by default (``0.9``) it qualifies when 90 %
of its designs meet the target — "likely to meet"; ``"mean"`` judges it by its mean
(the paper's node summary: generous near the root), ``"worst"`` by its worst
measured value (max power / max runtime: only subspaces every measured design of
which meets the target).

Also here: Pareto fronts of the measured designs (:func:`pareto_mask`) and of the
subspaces, what a power budget costs in speed (:func:`power_savings`), and the
scatter plot of paper Fig. 10c (:func:`plot_tradeoff`).

Examples
--------
>>> X = pd.MultiIndex.from_product([[1, 2, 3], [1, 2, 4, 8], [1, 2, 4, 8]],
...                                names=["clock", "tile", "unroll"]).to_frame(index=False)
>>> frame = X.assign(time=12 / X.clock + 2 * (X.tile == 1) + 0.01 * X.unroll,
...                  power=20 * X.clock + 5 * (X.tile == 8))
>>> ds = Dataset.from_frame(frame, metrics=["time", "power"])
>>> result = tradeoff(ds, limits={"time": 8.5, "power": 50}, stat="worst")
>>> result.subspaces[["description", "n", "share_meeting", "worst_time", "worst_power"]].to_dict("records")
[{'description': 'clock = 2', 'n': 16, 'share_meeting': 1.0, 'worst_time': 8.08, 'worst_power': 45.0}]
>>> list(result.tighten(time=6.1).subspaces["description"])   # deeper under the same node
['clock = 2 ∧ tile > 1']
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from starchart._compat import moved_name
from starchart._util.direction import resolve_directions
from starchart._util.plugins import load_reference
from starchart._util.validation import Instances, Interval, Options, check
from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.tree import StarchartTree, check_tree_options

if TYPE_CHECKING:  # the figures are drawn in starchart.report.figures
    from matplotlib.figure import Figure

__all__ = ["POWER_NAMES", "TIME_NAMES", "TradeoffResult", "node_regions", "node_stats", "pareto_mask", "power_savings",
           "select_nodes", "suggest_limits", "traded_metrics", "tradeoff"]

Level = Literal["topmost", "leaves"] | int
Stat = Literal["mean", "worst"] | float
Region = dict[str, list[Any]]


# ---------------------------------------------------------------------- tree nodes as regions
def node_regions(tree: StarchartTree) -> list[Region]:
    """For every node of a fitted tree, the values each restricted parameter may take there.

    ``regions[0]`` is ``{}`` (the root: all designs); a child restricts its split
    parameter to the values on its side (among those seen in training).

    >>> X = pd.DataFrame({"a": [1, 1, 2, 2, 3, 3]})
    >>> tree = StarchartTree(min_samples_split=2).fit(X, [1, 1, 5, 5, 9, 9])
    >>> node_regions(tree)[1:]
    [{'a': [1]}, {'a': [2, 3]}, {'a': [2]}, {'a': [3]}]
    """
    tree._check_fitted()
    t = tree.tree_
    names = tree.feature_names_in_
    codes: list[dict[int, np.ndarray]] = [dict() for _ in range(t.node_count)]
    for node in range(t.node_count):  # children follow their parents in the arrays
        if t.feature[node] < 0:
            continue
        j = int(t.feature[node])
        here = codes[node].get(j, np.arange(len(tree.values_[names[j]])))
        left = np.isin(here, t.left_levels[node]) if node in t.left_levels else here <= t.cut[node]
        codes[int(t.left[node])] = {**codes[node], j: here[left]}
        codes[int(t.right[node])] = {**codes[node], j: here[~left]}
    return [{names[j]: [tree.values_[names[j]][c] for c in region[j]] for j in sorted(region)}
            for region in codes]


def _meets(value: float, limit: float, minimize: bool) -> bool:
    return bool(value <= limit) if minimize else bool(value >= limit)


def _check_stat(stat: Any) -> Stat:
    """``stat`` if it is one a node can be judged by: ``"mean"``, ``"worst"`` or a share in (0, 1].

    >>> _check_stat("worst"), _check_stat(1)
    ('worst', 1.0)
    >>> _check_stat("median")
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: stat: must be 'mean' or 'worst' or a number in (0, 1], got 'median' \
(hint: use 'mean', 'worst' or a share such as 0.9 (90 % of a node's designs must meet it))
    """
    return check("stat", stat, Options("mean", "worst"), Interval(float, 0, 1, closed="right"),
                 hint="use 'mean', 'worst' or a share such as 0.9 (90 % of a node's designs must meet it)")


def _check_level(level: Any) -> Level:
    """``level`` if it says which nodes may be chosen: ``"topmost"``, ``"leaves"`` or a depth ≥ 0.

    >>> _check_level("leaves"), _check_level(2)
    ('leaves', 2)
    >>> _check_level("junk")
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: level: must be 'topmost' or 'leaves' or an integer ≥ 0, got 'junk' \
(hint: a depth (0 is the root), 'topmost' (the largest subspaces that meet the targets) or 'leaves')
    """
    return check("level", level, Options("topmost", "leaves"), Interval(int, 0, None),
                 hint="a depth (0 is the root), 'topmost' (the largest subspaces that meet the targets) or 'leaves'")


def node_stats(tree: StarchartTree, stat: Stat, *, minimize: bool = True, X: pd.DataFrame | None = None,
               y: np.ndarray | None = None) -> np.ndarray:
    """Per node of ``tree``: its mean, its worst value (max when minimising), or — ``stat`` a
    share ``q`` — the value that a share ``q`` of its designs do not exceed (the
    ``q``-quantile when minimising, the ``1 − q`` one otherwise).

    With ``X, y`` (designs and their values) the statistics are of those values, so
    a tree fitted on a transformed response (e.g. log time) is judged in the
    metric's own units; without them, of the tree's own node arrays (mean and
    worst only).

    >>> X = pd.DataFrame({"a": [1, 1, 2, 2, 3, 3, 4, 4]})
    >>> tree = StarchartTree(min_samples_split=2).fit(X, [1, 1, 2, 2, 5, 5, 9, 9])
    >>> node_stats(tree, "worst")[:3].tolist(), node_stats(tree, 0.5, X=X, y=[1, 1, 2, 2, 5, 5, 9, 9])[:3].tolist()
    ([9.0, 2.0, 9.0], [3.5, 1.5, 7.0])
    """
    stat = _check_stat(stat)
    t = tree.tree_
    if X is None or y is None:
        if stat == "mean":
            return t.mean.astype(float)
        if stat == "worst":
            return (t.max if minimize else t.min).astype(float)
        raise InputError("a share as stat needs the training designs", where="stat",
                         hint="pass X= and y= (the rows the tree was fitted on)")
    y = np.asarray(y, dtype=float)
    # The leaves under a node are consecutive in left-to-right order: sorted by that order, each node's
    # designs are one slice (a mask per node made 100,000 designs take 25 s).
    order = np.asarray(tree._leaf_order(), dtype=np.int64)
    position = np.full(t.node_count, -1, dtype=np.int64)
    position[order] = np.arange(len(order))
    first, last = np.full(t.node_count, len(order)), np.full(t.node_count, -1)
    for leaf_id in order:
        at = int(leaf_id)
        while at >= 0:
            first[at] = min(first[at], position[leaf_id])
            last[at] = max(last[at], position[leaf_id])
            at = int(t.parent[at])
    rank = position[tree.apply(X)]
    by_rank = np.argsort(rank, kind="stable")
    rank, y = rank[by_rank], y[by_rank]
    start, end = np.searchsorted(rank, first, "left"), np.searchsorted(rank, last, "right")
    if stat == "mean":
        reduce = np.mean
    elif stat == "worst":
        reduce = np.max if minimize else np.min
    else:
        q = float(stat) if minimize else 1 - float(stat)
        reduce = lambda v: np.quantile(v, q)  # noqa: E731
    out = np.full(t.node_count, np.nan)
    for node in range(t.node_count):
        if end[node] > start[node]:
            out[node] = reduce(y[start[node]:end[node]])
    return out


def select_nodes(tree: StarchartTree, limit: float, *, minimize: bool = True, stat: Stat = "mean",
                 level: Level = "topmost", X: pd.DataFrame | None = None, y: np.ndarray | None = None) -> list[int]:
    """Ids of the nodes of ``tree`` whose ``stat`` meets ``limit`` (≤ when minimising), at ``level``.

    ``"topmost"``: the highest nodes that meet it (descending only below nodes that
    do not); an integer: the nodes at that depth (and leaves above it); ``"leaves"``.
    ``stat``: see :func:`node_stats` (a share needs the training rows ``X``, ``y``).

    >>> X = pd.DataFrame({"a": [1, 1, 2, 2, 3, 3, 4, 4]})
    >>> tree = StarchartTree(min_samples_split=2).fit(X, [1, 1, 2, 2, 5, 5, 9, 9])
    >>> select_nodes(tree, 2.0), select_nodes(tree, 1.0), select_nodes(tree, 5.0, stat="worst")
    ([1], [3], [1, 5])
    """
    tree._check_fitted()
    level = _check_level(level)
    t = tree.tree_
    values = node_stats(tree, stat, minimize=minimize, X=X, y=y)
    ok = [_meets(values[i], limit, minimize) for i in range(t.node_count)]
    is_leaf = t.feature < 0
    if level == "leaves":
        return [int(i) for i in tree._leaf_order() if ok[i]]
    if isinstance(level, int):
        frontier = [i for i in _preorder(tree) if t.depth[i] == level or (is_leaf[i] and t.depth[i] < level)]
        return [i for i in frontier if ok[i]]
    chosen, stack = [], [0]
    while stack:
        node = stack.pop()
        if ok[node]:
            chosen.append(node)
        elif not is_leaf[node]:
            stack.extend([int(t.right[node]), int(t.left[node])])
    return chosen


def _preorder(tree: StarchartTree) -> list[int]:
    t = tree.tree_
    out, stack = [], [0]
    while stack:
        node = stack.pop()
        out.append(node)
        if t.feature[node] >= 0:
            stack.extend([int(t.right[node]), int(t.left[node])])
    return out


def _intersect(a: Region, b: Region) -> Region | None:
    """The region allowed by both, or None when it is empty."""
    out = dict(a)
    for name, values in b.items():
        if name in out:
            keep = [v for v in out[name] if v in set(values)]
            if not keep:
                return None
            out[name] = keep
        else:
            out[name] = list(values)
    return out


def _cell_masks(frame: pd.DataFrame, trees: Mapping[str, StarchartTree], metrics: Sequence[str],
                cells: Sequence[Sequence[int]]) -> np.ndarray:
    """Which rows of ``frame`` lie in each cell (one chosen node per metric's tree), routed as the trees
    route them: a value no training design had is placed by the split thresholds, as ``apply`` does.

    >>> X = pd.DataFrame({"a": [1, 1, 2, 2, 8, 8]})
    >>> tree = StarchartTree(min_samples_split=2).fit(X, [1, 1, 5, 5, 9, 9])
    >>> _cell_masks(pd.DataFrame({"a": [1, 5, 8]}), {"t": tree}, ["t"], [(2,)]).astype(int).tolist()
    [[0, 1, 1]]
    """
    leaf = {m: trees[m].apply(frame[trees[m].feature_names_in_]) for m in metrics}
    out = np.ones((len(cells), len(frame)), dtype=bool)
    for i, nodes in enumerate(cells):
        for m, node in zip(metrics, nodes):
            out[i] &= np.isin(leaf[m], trees[m]._leaf_order(int(node)))
    return out


# ---------------------------------------------------------------------- Pareto fronts
def pareto_mask(values: np.ndarray | pd.DataFrame, minimize: Sequence[bool] | bool = True) -> np.ndarray:
    """True for the rows not dominated by any other row (no worse in every column, better in one).

    >>> pareto_mask(np.array([[1, 5], [2, 2], [3, 3], [5, 1], [1, 6]])).tolist()
    [True, True, False, True, False]
    >>> pareto_mask(np.array([[1, 5], [2, 2]]), minimize=[True, False]).tolist()
    [True, False]
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 2:
        raise InputError("pareto_mask needs a 2-D table of values", where="values")
    signs = np.where(np.broadcast_to(np.asarray(minimize, dtype=bool), (v.shape[1],)), 1.0, -1.0)
    v = v * signs  # now every column is minimised
    finite = np.isfinite(v).all(axis=1)
    mask = np.zeros(len(v), dtype=bool)
    idx = np.flatnonzero(finite)
    # Sorted lexicographically, a point can only be dominated by points before it.
    order = idx[np.lexsort(v[idx].T[::-1])]
    front: list[int] = []
    for i in order:
        p = v[i]
        if front:
            f = v[front]
            if np.any(np.all(f <= p, axis=1) & np.any(f < p, axis=1)):
                continue  # equal points do not dominate each other: both stay
        front.append(int(i))
    mask[front] = True
    return mask


# ---------------------------------------------------------------------- the analysis
@dataclass(repr=False)
class TradeoffResult:
    """Subspaces likely to meet every target, from one tree per metric.

    Attributes
    ----------
    subspaces:
        One row per intersection of chosen nodes that holds measured designs:
        ``description``, ``n`` (measured designs in it), ``share_meeting`` (the share
        of them meeting every target), per metric ``mean_<m>``, ``worst_<m>``,
        ``best_<m>``, ``meets_worst`` (every measured design meets every target),
        and ``nodes`` (the chosen node of each tree). Sorted: highest share first, then largest.
    regions:
        The parameter values each subspace allows, in the order of ``subspaces``.
    coverage:
        ``precision`` (share of the designs inside the subspaces that meet the
        targets), ``recall`` (share of the designs meeting the targets that lie
        inside), ``meeting`` (designs meeting the targets) and ``inside``.
    trees, limits, minimize, stat, level, data:
        What it was computed from (``data``: the valid designs with every metric).
    """

    subspaces: pd.DataFrame
    regions: list[Region]
    coverage: dict[str, float]
    trees: dict[str, StarchartTree]
    metrics: list[str]
    limits: dict[str, float]
    minimize: dict[str, bool]
    stat: Stat
    level: Level
    data: Dataset
    chosen_nodes: dict[str, list[int]] = field(default_factory=dict)
    min_samples: int = 1

    def __repr__(self) -> str:
        # The dataclass repr printed every field (tables, trees, the data): tens of kB in a notebook.
        lims = ", ".join(f"{m} {'≤' if self.minimize[m] else '≥'} {v:.4g}" for m, v in self.limits.items())
        n = len(self.subspaces)
        return (f"<TradeoffResult {' vs '.join(self.metrics)}, targets {lims or 'none'}: "
                f"{n} {'subspace' if n == 1 else 'subspaces'}, {self.coverage['inside']} of {len(self.data)} "
                f"measured designs inside, {self.coverage['meeting']} meet every target; .summary() for more>")

    # ------------------------------------------------------------ queries
    def _designs(self, frame: pd.DataFrame | Dataset | None, columns: Sequence[str]) -> pd.DataFrame:
        """``frame`` as a table holding ``columns`` (default: the measured designs; a Dataset: its table).

        A Dataset raised TypeError and a missing column a bare KeyError.
        """
        if frame is None:
            return self.data.frame
        if isinstance(frame, Dataset):
            frame = frame.frame
        if not isinstance(frame, pd.DataFrame):
            raise InputError(f"designs must be a DataFrame or a Dataset, got {type(frame).__name__}",
                             where="frame", hint="e.g. result.coverage_on(dataset.ok())")
        lacking = [c for c in columns if c not in frame.columns]
        if lacking:
            raise InputError(f"the designs lack column(s) {lacking}", where="frame",
                             hint="pass designs of the same space with every traded metric, "
                                  "e.g. result.coverage_on(dataset.ok())")
        return frame

    def meets(self, frame: pd.DataFrame | Dataset | None = None) -> np.ndarray:
        """Which designs (default: the measured ones) meet every target."""
        frame = self._designs(frame, list(self.limits))
        ok = np.ones(len(frame), dtype=bool)
        for m, limit in self.limits.items():
            values = frame[m].to_numpy(dtype=float)
            ok &= values <= limit if self.minimize[m] else values >= limit
        return ok

    def inside(self, frame: pd.DataFrame | Dataset | None = None, which: Sequence[int] | None = None) -> np.ndarray:
        """Which designs (default: the measured ones) lie in the chosen subspaces (or in those listed)."""
        frame = self._designs(frame, self.data.params)
        cells = list(self.subspaces["nodes"]) if which is None else [self.subspaces["nodes"].iloc[i] for i in which]
        return _cell_masks(frame, self.trees, self.metrics, cells).any(axis=0)

    def coverage_on(self, frame: pd.DataFrame | Dataset) -> dict[str, float]:
        """:attr:`coverage` measured on other designs (e.g. the whole space, when the trees
        were fitted on a sample): how many of them the subspaces hold, and how well.

        A Dataset counts with all its rows: a failed design (no value) meets no target."""
        frame = self._designs(frame, [*self.data.params, *self.limits])
        inside, meeting = self.inside(frame), self.meets(frame)
        return {"designs": int(len(frame)), "meeting": int(meeting.sum()), "inside": int(inside.sum()),
                "precision": float(meeting[inside].mean()) if inside.any() else float("nan"),
                "recall": float(inside[meeting].mean()) if meeting.any() else float("nan")}

    def tighten(self, **limits: float) -> TradeoffResult:
        """The same trees with some targets changed (e.g. ``tighten(time=5)``).

        With ``level="topmost"``, a tighter target selects nodes at or below the ones
        chosen before: the answer is found by going deeper, never by backtracking.
        """
        unknown = [m for m in limits if m not in self.trees]
        if unknown:
            raise InputError(f"no tree for metric(s) {unknown}", where="limits",
                             hint=f"the metrics are: {', '.join(self.trees)}")
        limits = _numeric_limits(limits, "tighten")
        return _analyse(self.data, self.trees, self.metrics, {**self.limits, **limits}, self.minimize,
                        self.stat, self.level, self.min_samples)

    def pareto_designs(self) -> pd.DataFrame:
        """The measured designs on the Pareto front of the metrics, sorted by the first metric."""
        frame = self.data.frame
        mask = pareto_mask(frame[self.metrics].to_numpy(float), [self.minimize[m] for m in self.metrics])
        return frame.loc[mask, [*self.data.params, *self.metrics]].sort_values(self.metrics[0])

    def pareto_subspaces(self) -> pd.DataFrame:
        """The cells of the joint partition (intersections of one leaf per tree) whose means are
        Pareto-optimal: ``description``, ``n`` and ``mean_<metric>``, sorted by the first metric."""
        cells = _cells(self.data, self.trees, self.metrics, [list(self.trees[m]._leaf_order()) for m in self.metrics])
        if not cells:
            return pd.DataFrame(columns=["description", "n", *(f"mean_{m}" for m in self.metrics)])
        rows = []
        describe = self.trees[self.metrics[0]]._describe
        values = {m: self.data.frame[m].to_numpy(dtype=float) for m in self.metrics}
        for nodes, region, at in cells:
            rows.append({"description": describe(region), "n": len(at),
                         **{f"mean_{m}": float(np.nanmean(values[m][at])) for m in self.metrics}, "nodes": nodes})
        table = pd.DataFrame(rows)
        front = pareto_mask(table[[f"mean_{m}" for m in self.metrics]].to_numpy(float),
                            [self.minimize[m] for m in self.metrics])
        return table[front].sort_values(f"mean_{self.metrics[0]}").reset_index(drop=True)

    def savings(self, time: str | None = None, power: str | None = None, max_slowdown: float = 0.10,
                inside_only: bool = False) -> dict[str, Any]:
        """:func:`power_savings` on the measured designs (``time``/``power``: the first two metrics).

        Both must be metrics where lower is better (a time; a power or an energy).
        """
        time = self.metrics[0] if time is None else time
        power = (self.metrics[1] if len(self.metrics) > 1 else None) if power is None else power
        for role, metric in (("time", time), ("power", power)):
            if metric not in self.data.metrics:
                raise InputError(f"{role}={metric!r} is not a metric of this trade-off's data", where=role,
                                 hint=f"name one of: {', '.join(self.metrics)}")
            if not self.minimize.get(metric, True):
                raise InputError(f"savings() compares a time with a power, both lower-is-better, but {metric!r} "
                                 "is maximised here", where=role,
                                 hint="name a time and a power or energy metric, e.g. savings(time='time', "
                                      "power='ps_power')")
        within = self.inside() if inside_only else None
        return power_savings(self.data.frame, time=time, power=power, max_slowdown=max_slowdown, within=within,
                             params=self.data.params)

    # ------------------------------------------------------------ output
    def plot(self, x: str | None = None, y: str | None = None, **options: Any) -> Figure:
        """The scatter plot of paper Fig. 10c (see :func:`plot_tradeoff`)."""
        return load_reference("starchart.report.figures:plot_tradeoff")(self, x=x, y=y, **options)

    def summary(self) -> str:
        """A few lines: targets, chosen subspaces and how well they cover the target region."""
        lims = ", ".join(f"{m} {'≤' if self.minimize[m] else '≥'} {v:.4g}" for m, v in self.limits.items())
        if self.stat == "mean":
            rule = "whose mean meets the target"
        elif self.stat == "worst":
            rule = "where every measured design meets the target"
        else:
            rule = f"where {float(self.stat):.0%} of the measured designs meet the target"
        level = "" if self.level == "topmost" else f" at level {self.level}"
        n = len(self.subspaces)
        lines = [f"targets: {lims or 'none (every design qualifies)'} (per metric, the tree's nodes{level} {rule}; "
                 "subspaces: where they intersect)",
                 f"{n} {'subspace' if n == 1 else 'subspaces'}; {self.coverage['inside']} measured designs inside, "
                 f"{_share(self.coverage['precision'])} of them meet the targets; they hold "
                 f"{_share(self.coverage['recall'])} of the {self.coverage['meeting']} "
                 + ("design that does" if self.coverage["meeting"] == 1 else "designs that do")]
        if not self.coverage["meeting"] and self.limits:
            frame = self.data.frame
            best = ", ".join(f"{m} {frame[m].min() if self.minimize[m] else frame[m].max():.4g}"
                             for m in self.limits)
            lines.append(f"no measured design meets every target; the best reached, each on its own: {best} "
                         "— loosen the targets")
        for _, row in self.subspaces.head(8).iterrows():
            stats = ", ".join(f"{m} mean {row[f'mean_{m}']:.4g} worst {row[f'worst_{m}']:.4g}" for m in self.metrics)
            lines.append(f"  {row['description']}  (n={row['n']}, {row['share_meeting']:.0%} meet; {stats})")
        if n > 8:  # the list stops at 8: say so, rather than leave the count and the list disagreeing
            lines.append(f"  … and {n - 8} more (all of them: starchart report, or .subspaces in Python)")
        return "\n".join(lines)

    def report_sections(self) -> list[tuple[str, Any]]:
        """``(heading, content)`` pairs for the HTML report's ``extra_sections``."""
        table: Any = _for_people(self.subspaces)
        if table.empty:  # say why, rather than show an empty table

            lines = [line for line in self.summary().splitlines() if not line.startswith("  ")]
            table = "<p>No subspace meets the targets.</p>" + "".join(f"<p>{escape(line)}</p>" for line in lines)
        return [("Power/performance trade-off", self.plot()), ("Subspaces meeting the targets", table),
                ("Pareto-optimal subspaces", _for_people(self.pareto_subspaces()))]


def _for_people(table: pd.DataFrame) -> pd.DataFrame:
    """A subspace table as a report shows it: worded headers, shares in per cent, no node ids.

    >>> _for_people(pd.DataFrame({"description": ["clock = 2"], "n": [16], "share_meeting": [0.5],
    ...                           "worst_time": [8.1], "meets_worst": [True], "nodes": [(1, 2)]})).columns.tolist()
    ['subspace', 'designs', 'meeting every target (%)', 'worst time', 'all meet']
    """
    out = table.drop(columns=["nodes"], errors="ignore")
    if "share_meeting" in out:
        out["share_meeting"] = (100 * out["share_meeting"]).round(1)
    if "meets_worst" in out:
        out["meets_worst"] = out["meets_worst"].map({True: "yes", False: "no"})
    fixed = {"description": "subspace", "n": "designs", "share_meeting": "meeting every target (%)",
             "meets_worst": "all meet"}
    return out.rename(columns=lambda c: fixed.get(c, c.replace("_", " ", 1)))


def tradeoff(dataset: Dataset, metrics: Sequence[str] = ("time", "power"), limits: Mapping[str, float] | None = None,
             *, minimize: Mapping[str, bool] | bool | None = None, stat: Stat = 0.9, level: Level = "topmost",
             min_samples: int = 1, log: bool | Sequence[str] = False,
             tree_options: Mapping[str, Any] | None = None,
             trees: Mapping[str, StarchartTree] | None = None) -> TradeoffResult:
    """Subspaces likely to meet every target: one tree per metric, chosen nodes intersected.

    Parameters
    ----------
    dataset:
        Measured designs with every metric (failures and rows missing a metric are left out).
    metrics:
        The metrics traded off, e.g. ``("time", "power")`` (the first is the plot's x axis).
    limits:
        Targets ``{metric: value}``: ≤ for a metric to minimise, ≥ for one to maximise.
        A metric without a target is not constrained (its tree still serves the Pareto view).
    minimize:
        Per metric (or for all): whether smaller is better. Metrics not named are judged by
        their name (:func:`starchart._util.direction.lower_is_better`: rates and efficiencies
        such as ``GFLOP/s`` or ``TFLOPS/J`` are maximised, times, powers and energies minimised).
    stat:
        Judge a node by its ``"mean"``, by its ``"worst"`` measured value, or by the value
        that a share of its designs meet (``0.9``: 90 % of them must meet the target).
    level:
        ``"topmost"``, ``"leaves"`` or a depth: which nodes may be chosen (see the module).
    min_samples:
        Drop intersections holding fewer measured designs.
    log:
        Fit the trees of these metrics (True: all) to the logarithm of the values, so
        that splits follow relative rather than absolute differences (useful when a
        few very slow designs would otherwise take every split). Subspaces are still
        judged and reported in the metric's own units.
    tree_options:
        Keyword arguments of :class:`~starchart.StarchartTree`.
    trees:
        Already fitted trees by metric (fitted on the same rows), instead of fitting.
    """
    check("dataset", dataset, Instances(Dataset, "a starchart Dataset"), hint="e.g. starchart.load('cache.json')")
    check("metrics", metrics, Instances((str, Iterable), "metric names"), hint="e.g. metrics=('time', 'power')")
    metrics = [metrics] if isinstance(metrics, str) else [str(m) for m in metrics]
    if len(set(metrics)) != len(metrics):
        raise InputError(f"metrics must name distinct metrics, got {metrics}", where="metrics",
                         hint="e.g. metrics=('time', 'power')")
    if len(metrics) < 2:  # one tree's nodes meeting one target: no trade-off, no Pareto front, no savings
        raise InputError(f"a trade-off needs two metrics or more, got {metrics}", where="metrics",
                         hint=f"name a second metric to trade against, e.g. metrics=('time', 'power') "
                              f"(the metrics are: {', '.join(map(str, dataset.metrics))})")
    # checked here, not only where a node is judged: without a target no node is, and they went unchecked
    stat, level = _check_stat(stat), _check_level(level)
    minimize = _check_minimize(minimize)
    check("log", log, Instances((bool, str, Iterable), "True, False or metric names"),
          hint="e.g. log=True, or log=['time']")
    check("trees", trees, None, Instances(Mapping, "a mapping {metric: fitted StarchartTree}"),
          hint="e.g. trees={'time': tree_of_time, 'power': tree_of_power}")
    missing = [m for m in metrics if m not in dataset.metrics]
    if missing:
        raise InputError(f"no metric named {missing[0]!r}", where=dataset.meta.get("source") or "dataset",
                         hint=f"the metrics are: {', '.join(dataset.metrics)}")
    check("limits", limits, None, Instances(Mapping, "a mapping {metric: target}"),
          hint="e.g. limits={'time': 0.002, 'power': 150}")
    limits = _numeric_limits(limits or {}, "limits")
    stray = [m for m in limits if m not in metrics]
    if stray:
        raise InputError(f"a target is given for {stray[0]!r}, which is not among the metrics {metrics}",
                         where="limits", hint="add it to metrics=, or drop the target")
    min_samples = check("min_samples", min_samples, Interval(int, 1, None),
                        hint="1 keeps every intersection that holds a measured design")
    directions = resolve_directions(metrics, minimize, dataset.meta)
    ok = dataset.ok()
    keep = np.isfinite(ok.frame[metrics].to_numpy(float)).all(axis=1)
    data = Dataset(frame=ok.frame[keep], params=list(ok.params), metrics=list(ok.metrics), meta=dict(ok.meta))
    if len(data) < 2:
        has = "design has" if len(data) == 1 else "designs have"
        raise InputError(f"only {len(data)} {has} every metric {metrics}",
                         where=dataset.meta.get("source") or "dataset", hint="measure more designs")
    if trees is None:
        options = check_tree_options(tree_options)
        # log="time" names one metric (iterating the string would name its letters)
        logged = (set(metrics) if log is True else set() if log is False
                  else {log} if isinstance(log, str) else {str(m) for m in log})
        for m in logged:
            if m not in metrics or not (data.y(m) > 0).all():
                raise InputError(f"cannot fit log({m}): " + ("not a traded metric" if m not in metrics
                                                             else "it has values ≤ 0"), where="log",
                                 hint="name metrics with positive values only")
        trees = {m: StarchartTree(**options).fit(data.X, np.log(data.y(m)) if m in logged else data.y(m))
                 for m in metrics}
    else:
        trees = dict(trees)
        absent = [m for m in metrics if m not in trees]
        if absent:
            raise InputError(f"no tree given for metric(s) {absent}", where="trees")
        for m in metrics:
            check("trees", trees[m], Instances(StarchartTree, f"a fitted StarchartTree for {m!r}"),
                  hint="fit one per metric on the same rows, e.g. StarchartTree().fit(ds.X, ds.y('time'))")
    return _analyse(data, trees, metrics, limits, directions, stat, level, int(min_samples))


def _check_minimize(minimize: Any) -> Mapping[str, bool] | bool | None:
    """``minimize`` as :func:`tradeoff` takes it (None, a bool, or ``{metric: bool}``); "yes" or 1 is refused
    rather than read as truthy (and a numpy bool taken as the bool it is).

    >>> _check_minimize(None), _check_minimize(np.bool_(False)), _check_minimize({"time": True})
    (None, False, {'time': True})
    """
    minimize = check("minimize", minimize, None, Instances((bool, np.bool_), "True or False"),
                     Instances(Mapping, "a mapping {metric: True or False}"),
                     hint="e.g. minimize={'time': True, 'GFLOP/s': False}, or leave it out to judge by the names")
    if isinstance(minimize, Mapping):
        return {m: bool(check("minimize", value, Instances((bool, np.bool_), "True or False"),
                              hint=f"e.g. minimize={{{str(m)!r}: True}}"))
                for m, value in minimize.items()}
    return None if minimize is None else bool(minimize)


def _cells(data: Dataset, trees: Mapping[str, StarchartTree], metrics: Sequence[str],
           node_lists: Sequence[Sequence[int]]) -> list[tuple[tuple[int, ...], Region, np.ndarray]]:
    """Non-empty intersections of one node from each list (nodes of a list are disjoint), with
    their regions and the positions of their designs (ascending), in order of their first design.

    Each design falls in at most one node of each list, so the intersections holding
    designs are found by grouping the designs, not by trying every combination.
    """
    X = data.frame
    owner = np.empty((len(X), len(metrics)), dtype=np.int64)
    for j, (metric, nodes) in enumerate(zip(metrics, node_lists)):
        tree = trees[metric]
        t = tree.tree_
        of_leaf = np.full(t.node_count, -1, dtype=np.int64)
        for node in nodes:  # every leaf below a chosen node belongs to it
            stack = [int(node)]
            while stack:
                at = stack.pop()
                if t.feature[at] < 0:
                    of_leaf[at] = int(node)
                else:
                    stack += [int(t.left[at]), int(t.right[at])]
        owner[:, j] = of_leaf[tree.apply(X[tree.feature_names_in_])]
    keep = (owner >= 0).all(axis=1)
    if not keep.any():
        return []
    combos, first, inverse = np.unique(owner[keep], axis=0, return_index=True, return_inverse=True)
    rows = np.flatnonzero(keep)
    # the designs of each cell, grouped once (a full-length mask per cell was cells × designs)
    grouped = np.argsort(inverse.reshape(-1), kind="stable")
    bounds = np.searchsorted(inverse.reshape(-1)[grouped], np.arange(len(combos) + 1))
    regions = {m: node_regions(trees[m]) for m in metrics}
    out = []
    for c in np.argsort(first):
        nodes = tuple(int(n) for n in combos[c])
        region: Region | None = {}
        for metric, node in zip(metrics, nodes):
            region = _intersect(region, regions[metric][node])
        out.append((nodes, region or {}, rows[grouped[bounds[c]:bounds[c + 1]]]))
    return out


def _analyse(data: Dataset, trees: Mapping[str, StarchartTree], metrics: list[str], limits: dict[str, float],
             minimize: dict[str, bool], stat: Stat, level: Level, min_samples: int) -> TradeoffResult:
    chosen = {m: (select_nodes(trees[m], limits[m], minimize=minimize[m], stat=stat, level=level, X=data.X,
                               y=data.y(m)) if m in limits else [0]) for m in metrics}
    frame = data.frame
    meeting = np.ones(len(frame), dtype=bool)
    for m, limit in limits.items():
        values = frame[m].to_numpy(float)
        meeting &= values <= limit if minimize[m] else values >= limit
    describe = trees[metrics[0]]._describe
    rows, regions = [], []
    columns_of = {m: frame[m].to_numpy(float) for m in metrics}
    for nodes, region, at in _cells(data, trees, metrics, [chosen[m] for m in metrics]):
        if len(at) < min_samples:
            continue
        row: dict[str, Any] = {"description": describe(region), "n": len(at),
                               "share_meeting": float(meeting[at].mean())}
        for m in metrics:
            values = columns_of[m][at]
            worst, best = (values.max(), values.min()) if minimize[m] else (values.min(), values.max())
            row |= {f"mean_{m}": float(values.mean()), f"worst_{m}": float(worst), f"best_{m}": float(best)}
        row["meets_worst"] = bool(meeting[at].all())
        row["nodes"] = nodes
        rows.append(row)
        regions.append(region)
    columns = ["description", "n", "share_meeting",
               *itertools.chain.from_iterable((f"mean_{m}", f"worst_{m}", f"best_{m}") for m in metrics),
               "meets_worst", "nodes"]
    table = pd.DataFrame(rows, columns=columns)
    order = np.lexsort((-table["n"].to_numpy(), -table["share_meeting"].to_numpy())) if len(table) else []
    table = table.iloc[order].reset_index(drop=True)
    regions = [regions[i] for i in order]
    inside = _cell_masks(frame, trees, metrics, list(table["nodes"])).any(axis=0)
    coverage = {"meeting": int(meeting.sum()), "inside": int(inside.sum()),
                "precision": float(meeting[inside].mean()) if inside.any() else float("nan"),
                "recall": float(inside[meeting].mean()) if meeting.any() else float("nan")}
    return TradeoffResult(subspaces=table, regions=regions, coverage=coverage, trees=dict(trees), metrics=metrics,
                          limits=limits, minimize=minimize, stat=stat, level=level, data=data, chosen_nodes=chosen,
                          min_samples=min_samples)


def _numeric_limits(limits: Mapping[str, Any], where: str) -> dict[str, float]:
    """Targets as floats, or a clear error naming the metric whose target is not a number."""
    out = {}
    for metric, value in limits.items():
        try:
            if isinstance(value, bool):  # float(True) is 1.0: surely not the target meant
                raise TypeError
            out[str(metric)] = float(value)
        except (TypeError, ValueError):
            raise InputError(f"the target for {metric!r} must be a number, got {value!r}", where=where,
                             hint=f"e.g. {{{str(metric)!r}: 0.2}}") from None
        if out[str(metric)] != out[str(metric)]:  # NaN: no design meets it, and the summary said "loosen"
            raise InputError(f"the target for {metric!r} is NaN", where=where,
                             hint="give a number, or leave the metric out of the limits to leave it free")
    return out


#: Names of time-like and power-like metrics, as the trade-off finds them in a dataset.
TIME_NAMES = ("time", "runtime", "duration")
POWER_NAMES = ("power", "wattage", "watt", "ps_power", "nvml_power", "energy", "ps_energy", "nvml_energy")


def traded_metrics(dataset: Dataset, limits: Mapping[str, float] | None = None) -> list[str] | None:
    """The two metrics of the power/performance section: those ``limits`` name when it names two
    or more, else the data's time-like and power-like metrics (by name); one target pairs its
    metric with the time (with the power when it is itself a time); ``None``: none apply.

    >>> frame = __import__("pandas").DataFrame({"a": [1, 2], "time": [1.0, 2], "Watt": [9.0, 8],
    ...                                         "ps_power": [9.0, 8]})
    >>> ds = Dataset.from_frame(frame, metrics=["time", "Watt", "ps_power"])
    >>> traded_metrics(ds), traded_metrics(ds, {"ps_power": 8.5}), traded_metrics(ds, {"time": 1.5})
    (['time', 'Watt'], ['time', 'ps_power'], ['time', 'Watt'])
    """
    limits = dict(limits or {})
    unknown = [m for m in limits if m not in dataset.metrics]
    if unknown:
        raise InputError(f"a target is given for {unknown[0]!r}, which is not a metric of the data",
                         where="--limit", hint=f"the metrics are: {', '.join(dataset.metrics)}")
    if len(limits) >= 2:
        return list(limits)
    lowered = {m.lower(): m for m in dataset.metrics}
    time = next((lowered[n] for n in TIME_NAMES if n in lowered), None)
    power = next((lowered[n] for n in POWER_NAMES if n in lowered), None)
    if not limits:
        return None if time is None or power is None else [time, power]
    target = next(iter(limits))
    other = power if target.lower() in TIME_NAMES else time
    if other is None:
        raise InputError(f"one target ({target}) but no metric to trade it against", where="--limit",
                         hint=f"give a target for a second metric too, e.g. --limit {target}={limits[target]:g} "
                              f"--limit OTHER=VALUE (the metrics are: {', '.join(dataset.metrics)})")
    return [target, other] if target.lower() in TIME_NAMES else [other, target]


def suggest_limits(dataset: Dataset, metrics: Sequence[str], quantile: float = 0.25,
                   minimize: Mapping[str, bool] | bool | None = None) -> dict[str, float]:
    """Targets for a first look when the user gave none: per metric, the value that the best
    ``quantile`` of the valid designs reach (e.g. the fastest quarter's time, the most frugal
    quarter's power), so that the subspaces meeting all of them are the interesting corner.

    >>> ds = Dataset.from_frame(pd.DataFrame({"a": range(5), "time": [1.0, 2, 3, 4, 5],
    ...                                       "power": [9.0, 8, 7, 6, 5]}))
    >>> suggest_limits(ds, ["time", "power"], quantile=0.5)
    {'time': 3.0, 'power': 7.0}
    """
    if not 0 < quantile <= 1:
        raise InputError(f"quantile must be in (0, 1], got {quantile}", where="quantile", hint="e.g. 0.25")
    ok = dataset.ok()
    out = {}
    directions = resolve_directions(metrics, minimize, dataset.meta)
    for m in metrics:
        values = ok.y(m)
        values = values[np.isfinite(values)]
        if not values.size:
            raise InputError(f"no valid value of {m!r}", where=dataset.meta.get("source") or "dataset")
        out[str(m)] = float(np.quantile(values, quantile if directions[str(m)] else 1 - quantile))
    return out


# ---------------------------------------------------------------------- what a power budget costs
def power_savings(frame: pd.DataFrame, *, time: str = "time", power: str = "power", max_slowdown: float = 0.10,
                  within: np.ndarray | None = None, params: Sequence[str] | None = None) -> dict[str, Any]:
    """Power saved by accepting at most ``max_slowdown`` over the fastest measured design.

    The reference is the fastest design (``time`` minimal); the candidates are the
    designs at most ``max_slowdown`` slower (optionally only those in ``within``);
    the pick is the candidate drawing the least power. ``saved_w``/``saved_pct``
    compare it with the fastest design; ``saved_up_to_w``/``..._pct`` with the most
    power-hungry candidate (the paper's "save up to 47 W (26 %)" compares with "a
    high-performance high-power design").

    >>> f = pd.DataFrame({"t": [1.0, 1.05, 1.2, 1.08], "p": [100.0, 80.0, 50.0, 110.0]})
    >>> s = power_savings(f, time="t", power="p")
    >>> s["saved_w"], round(s["slowdown"], 2), s["saved_up_to_w"]
    (20.0, 0.05, 30.0)
    """
    if not max_slowdown >= 0:  # also NaN, which would leave no candidate without saying why
        raise InputError(f"max_slowdown must be ≥ 0, got {max_slowdown}", where="max_slowdown",
                         hint="0.10 accepts designs up to 10 % slower than the fastest")
    absent = [m for m in (time, power) if m not in frame.columns]
    if absent:
        raise InputError(f"no column {absent[0]!r} among the designs", where="frame",
                         hint=f"pass time= and power= naming columns of: {', '.join(map(str, frame.columns))}")
    t = frame[time].to_numpy(float)
    p = frame[power].to_numpy(float)
    good = np.isfinite(t) & np.isfinite(p)
    if not good.any():
        raise InputError(f"no design has both {time!r} and {power!r}", where="frame")
    fastest = int(np.flatnonzero(good)[np.argmin(t[good])])
    candidates = good & (t <= t[fastest] * (1 + max_slowdown))
    if within is not None:
        candidates &= np.asarray(within, dtype=bool)
    if not candidates.any():
        return {"fastest_time": float(t[fastest]), "fastest_power": float(p[fastest]), "candidates": 0}
    idx = np.flatnonzero(candidates)
    pick = int(idx[np.argmin(p[idx])])
    hungry = int(idx[np.argmax(p[idx])])
    out = {"fastest_time": float(t[fastest]), "fastest_power": float(p[fastest]), "candidates": int(idx.size),
           "pick_time": float(t[pick]), "pick_power": float(p[pick]), "slowdown": float(t[pick] / t[fastest] - 1),
           "saved_w": float(p[fastest] - p[pick]), "saved_pct": float((p[fastest] - p[pick]) / p[fastest]),
           "saved_up_to_w": float(p[hungry] - p[pick]), "saved_up_to_pct": float((p[hungry] - p[pick]) / p[hungry])}
    if params is not None:
        out["fastest_config"] = {k: _plain(frame.iloc[fastest][k]) for k in params}
        out["pick_config"] = {k: _plain(frame.iloc[pick][k]) for k in params}
    return out


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


# ---------------------------------------------------------------------- the figure
_COLORS = ("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#bcbd22")
_MARKERS = ("^", "o", "s", "D", "v", "P", "X", "h")




def _share(value: float) -> str:
    """A share as a percentage; "none" where there was nothing to divide (NaN)."""
    return "none" if value != value else f"{value:.0%}"


def __getattr__(name: str) -> Any:
    # plot_tradeoff moved to starchart.report.figures with the other figures; its old name still works here
    return moved_name(__name__, name)
