"""Growing a Starchart tree fast: the algorithm of Fig. 3 as one compiled kernel.

The literal algorithm (the authors' R tool) refits a mean model for every
candidate split.  This module computes the same splits with running sums:

1. Rows with identical parameter values always travel together, so they are
   merged first into *units* carrying their count, sum and within-unit SSE
   (a space sampled with repeats shrinks a lot; unique samples cost nothing).
2. Nodes are processed breadth first (the R tool's work queue, so node ids come
   level by level).  Per node and parameter a histogram of unit counts and
   centred sums over the value codes is built; its cumulative sums give every
   split ``P ≤ v`` and its SSE reduction ``n_l·n_r/n · (ȳ_l − ȳ_r)²`` — the same
   quantity as ``SSE0 − (SSE1 + SSE2)``, without cancellation.
3. Parameters with more than :data:`MAX_HISTOGRAM_CODES` distinct values are
   scanned after sorting the node's units instead (a histogram would be mostly empty).
4. Categorical parameters order their levels by mean response within the node
   (Breiman's rule) before the scan.

Ties (equal reductions up to float summation order) go to the first parameter in
column order, then to the smallest threshold, as in the R tool.

The kernel is compiled with numba (cached on disk after the first call).  A
level-at-a-time numpy version (all nodes of a level through one ``bincount``)
was measured first and was 1.8–5.5× slower for a whole fit (docs/concepts/tree.md).

Compiling takes seconds (9 s on a 2-core machine with a cold cache), which a first small fit would
wait for. So until the kernels are compiled in this process, a fit of up to :data:`SMALL_FIT` units ×
parameters runs the same kernel functions as plain Python (their ``py_func``, calling one another):
the same code, so the same tree, in 10 ms for 200 rows. A larger fit compiles them (or loads them from
numba's cache), and every fit after it runs compiled. So does the fit that takes a process's interpreted
work past :data:`INTERPRETED_WORK`: a search or an Optuna sampler fits hundreds of small trees.
"""

from __future__ import annotations

import functools
import types
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

# Splits whose SSE reduction is within this relative distance of the best are
# ties: float summation order must not decide between mathematically equal splits.
TIE_RTOL = 1e-9
# A split must also beat float noise, relative to the node's SSE.
NOISE_RTOL = 1e-12
# Ordered parameters with more distinct values than this are scanned after
# sorting instead of through per-node histograms.
MAX_HISTOGRAM_CODES = 256
# Until the kernels are compiled in this process, fits of at most this many units × parameters run them as
# plain Python (0.2 s for 2,000 rows of 10 parameters; compiling them takes seconds).
SMALL_FIT = 20_000
# Units × parameters a process grows as plain Python, all fits together, before it compiles the kernels anyway
# (about 2 s of interpreted growth). A search or an Optuna sampler fits hundreds of small trees: a sampler's
# trial took 62 ms interpreted and 9 ms compiled (benchmarks/optuna_sampler.py); loading the compiled kernels
# from numba's cache takes under a second, compiling them (once per machine) about 10 s.
INTERPRETED_WORK = 10 * SMALL_FIT
_interpreted_work = 0  # so far in this process


@dataclass
class TreeArrays:
    """A grown tree as parallel arrays, one entry per node (root = 0, children after parents).

    ``feature`` is −1 for a leaf.  For a split on an ordered parameter the rows with
    value code ≤ ``cut`` go left; for a categorical one, the level codes listed in
    ``left_levels[node]`` go left: those of the node's samples that the split sends left,
    and, when the left child holds at least as many samples as the right one, the levels
    that can reach the node but that none of its samples has (they follow the majority).
    Trees saved by earlier versions list the first kind only (their absent levels go
    right); they load and route as they were grown.
    """

    parent: np.ndarray
    depth: np.ndarray
    n_samples: np.ndarray
    mean: np.ndarray
    sse: np.ndarray
    min: np.ndarray
    max: np.ndarray
    feature: np.ndarray
    cut: np.ndarray
    left: np.ndarray
    right: np.ndarray
    improvement: np.ndarray
    left_levels: dict[int, np.ndarray] = field(default_factory=dict)
    # Per node, the smallest value code of its ordered split parameter among the training
    # rows that went right (−1 elsewhere); set by :func:`set_right_low`, used by forests.
    right_low: np.ndarray | None = None

    @property
    def node_count(self) -> int:
        return len(self.parent)

    def split_masks(self, width: int) -> tuple[np.ndarray, np.ndarray]:
        """Which nodes split a categorical parameter, and per node which level codes
        (< ``width``) go left: ``(categorical_node, left_mask)`` for compiled walks."""
        categorical_node = np.zeros(self.node_count, dtype=np.bool_)
        left_mask = np.zeros((self.node_count, max(int(width), 1)), dtype=np.bool_)
        for node, levels in self.left_levels.items():
            categorical_node[node] = True
            left_mask[node, levels] = True
        return categorical_node, left_mask


def set_right_low(arrays: TreeArrays, codes: np.ndarray, width: int) -> TreeArrays:
    """Record in ``arrays.right_low`` where each ordered split's right side begins in the
    training ``codes`` (the rows the tree was grown on), so a split can be placed halfway
    between the two sides instead of just after the left one; returns ``arrays``.

    Examples
    --------
    >>> codes = np.array([[0], [0], [3], [3]])
    >>> t = grow_tree(codes, np.array([4]), np.array([False]), np.array([1.0, 1.2, 5.0, 5.2]),
    ...               threshold=0.0, min_samples_split=2, max_depth=None)
    >>> set_right_low(t, codes, 4).right_low.tolist()
    [3, -1, -1]
    """
    categorical_node, left_mask = arrays.split_masks(width)
    arrays.right_low, _ = training_paths(np.ascontiguousarray(codes, dtype=np.int64), arrays.feature,
                                         arrays.cut.astype(np.float64), arrays.left, arrays.right,
                                         categorical_node, left_mask)
    return arrays


@njit(cache=True)
def training_paths(codes, feature, cut, left, right, categorical_node, left_mask):
    """Walk training rows down a grown tree (ordered splits: ``code <= cut[node]`` goes left).

    Returns, per node, the smallest code that went right at an ordered split (−1 where
    none did), and which level codes reached each node (for categorical splits).
    """
    nodes = feature.shape[0]
    low_right = np.full(nodes, -1, np.int64)
    seen = np.zeros(left_mask.shape, np.bool_)
    for i in range(codes.shape[0]):
        node = 0
        while feature[node] >= 0:
            code = codes[i, feature[node]]
            if categorical_node[node]:
                seen[node, code] = True
                node = left[node] if left_mask[node, code] else right[node]
            elif code <= cut[node]:
                node = left[node]
            else:
                if low_right[node] < 0 or code < low_right[node]:
                    low_right[node] = code
                node = right[node]
    return low_right, seen


@dataclass
class _Units:
    """Distinct parameter vectors with the statistics of the rows that share them."""

    codes: np.ndarray  # (u, p)
    weight: np.ndarray  # rows per unit
    total: np.ndarray  # sum of responses
    within: np.ndarray  # SSE of the responses around the unit mean
    low: np.ndarray
    high: np.ndarray


def _merge_duplicates(codes: np.ndarray, n_levels: np.ndarray, y: np.ndarray) -> _Units:
    n, p = codes.shape
    ones = np.ones(n)
    if p == 0:
        return _Units(codes, ones, y.copy(), np.zeros(n), y.copy(), y.copy())
    if np.sum(np.log2(np.maximum(n_levels, 1).astype(np.float64))) < 62:
        radix = np.cumprod(np.concatenate([[1], n_levels[::-1][:-1]]))[::-1].astype(np.int64)
        keys = codes @ radix
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    else:
        first, inverse = _unique_rows(codes)
    inverse = inverse.reshape(-1)
    if len(first) == n:
        return _Units(codes, ones, y.copy(), np.zeros(n), y.copy(), y.copy())
    u = len(first)
    weight = np.bincount(inverse, minlength=u).astype(np.float64)
    total = np.bincount(inverse, weights=y, minlength=u)
    resid = y - (total / weight)[inverse]
    within = np.bincount(inverse, weights=resid * resid, minlength=u)
    order = np.argsort(inverse, kind="stable")
    starts = np.searchsorted(inverse[order], np.arange(u))
    low = np.minimum.reduceat(y[order], starts)
    high = np.maximum.reduceat(y[order], starts)
    return _Units(codes[first], weight, total, within, low, high)


def _unique_rows(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, axis=0, return_index=True, return_inverse=True)[1:]``, several times faster.

    Each row is hashed to one int64 (a wrapping multiply-add with fixed odd weights), the keys
    are made unique, the result is checked row by row (a collision falls back to the exact
    row sort), and the units are put back in lexicographic row order, as ``np.unique`` gives them.

    >>> codes = np.array([[2, 1], [0, 3], [2, 1], [0, 0]])
    >>> first, inverse = _unique_rows(codes)
    >>> codes[first].tolist(), inverse.tolist()
    ([[0, 0], [0, 3], [2, 1]], [2, 1, 2, 0])
    """
    _, first, inverse = np.unique(codes @ _row_hash_weights(codes.shape[1]), return_index=True,
                                  return_inverse=True)
    inverse = inverse.reshape(-1)
    if not np.array_equal(codes[first][inverse], codes):  # two different rows share a key
        _, first, inverse = np.unique(codes, axis=0, return_index=True, return_inverse=True)
        return first, inverse.reshape(-1)
    order = np.lexsort(codes[first].T[::-1])  # lexicographic, first column most significant
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse]


@functools.lru_cache(maxsize=64)
def _row_hash_weights(p: int) -> np.ndarray:
    """Fixed odd int64 weights of :func:`_unique_rows`' row hash (drawn once per width: it runs per tree)."""
    weights = np.random.default_rng(0x5EED).integers(1, 2**62, size=p, dtype=np.int64) | 1
    weights.flags.writeable = False  # shared by every caller
    return weights


def grow_tree(codes: np.ndarray, n_levels: np.ndarray, categorical: np.ndarray, y: np.ndarray,
              threshold: float, min_samples_split: int, max_depth: int | None) -> TreeArrays:
    """Grow the Starchart tree on value ``codes`` (n × p ints, 0 … n_levels−1) and response ``y``.

    ``categorical[j]`` marks parameters split by Breiman's rule instead of by order.

    Examples
    --------
    >>> codes = np.array([[0], [0], [1], [1]])
    >>> t = grow_tree(codes, np.array([2]), np.array([False]), np.array([1.0, 1.2, 5.0, 5.2]),
    ...               threshold=0.0, min_samples_split=2, max_depth=None)
    >>> t.feature.tolist(), t.cut.tolist(), t.n_samples.tolist()
    ([0, -1, -1], [0, -1, -1], [4, 2, 2])
    """
    units = _merge_duplicates(np.ascontiguousarray(codes, dtype=np.int64),
                              np.asarray(n_levels, dtype=np.int64), np.asarray(y, dtype=np.float64))
    grow = _kernel("_grow_kernel", units.codes.size)
    out = grow(units.codes, np.asarray(n_levels, dtype=np.int64),
                       np.asarray(categorical, dtype=np.bool_), units.weight, units.total,
                       units.within, units.low, units.high, float(threshold),
                       float(min_samples_split), -1 if max_depth is None else int(max_depth),
                       TIE_RTOL, NOISE_RTOL, MAX_HISTOGRAM_CODES)
    (parent, depth, n_samples, mean, sse, low, high, feature, cut, left, right, improvement,
     cat_codes, cat_lo, cat_mid, cat_hi) = out
    n_samples = np.rint(n_samples).astype(np.int64)
    split = np.flatnonzero(cat_hi > cat_lo)
    left_levels = _place_absent_levels(
        split, feature, parent, left, right, n_samples, np.asarray(n_levels, dtype=np.int64),
        {int(node): cat_codes[cat_lo[node]:cat_mid[node]].copy() for node in split},
        {int(node): cat_codes[cat_mid[node]:cat_hi[node]] for node in split})
    return TreeArrays(parent=parent, depth=depth, n_samples=n_samples,
                      mean=mean, sse=sse, min=low, max=high, feature=feature, cut=cut, left=left,
                      right=right, improvement=improvement, left_levels=left_levels)


def _place_absent_levels(split: np.ndarray, feature: np.ndarray, parent: np.ndarray, left: np.ndarray,
                         right: np.ndarray, n_samples: np.ndarray, n_levels: np.ndarray,
                         left_present: dict[int, np.ndarray], right_present: dict[int, np.ndarray]
                         ) -> dict[int, np.ndarray]:
    """The level codes each categorical split sends left, the levels absent from its node included.

    The growth places the levels present in a node (``left_present`` go left, ``right_present``
    right). A level that can reach the node (no earlier split on the parameter sent it elsewhere)
    but that none of its training samples has follows the majority of them, as rpart sends a level
    with no data at a split, and as a level never seen in training goes: to the left child when it
    holds at least as many samples as the right one. Levels that cannot reach the node are left out,
    so that ``left_levels`` reads as the node's own condition.

    >>> feature, parent = np.array([0, -1, 0, -1, -1]), np.array([-1, 0, 0, 2, 2])
    >>> left, right = np.array([1, -1, 3, -1, -1]), np.array([2, -1, 4, -1, -1])
    >>> n = np.array([10, 2, 8, 5, 3])  # level 3 is never in node 2: it goes left, with the 5
    >>> out = _place_absent_levels(np.array([0, 2]), feature, parent, left, right, n, np.array([4]),
    ...                            {0: np.array([0]), 2: np.array([1])}, {0: np.array([1, 2, 3]), 2: np.array([2])})
    >>> {node: codes.tolist() for node, codes in out.items()}
    {0: [0], 2: [1, 3]}
    """
    out: dict[int, np.ndarray] = {}
    if not len(split):
        return out
    wanted = set(split.tolist())
    reach: dict[tuple[int, bool], np.ndarray] = {}  # (node, left side?) -> codes that reach that child
    for node in sorted(wanted):  # parents before children
        j = int(feature[node])
        # the nearest earlier split on the same parameter decides which levels can reach this node
        child, above = node, int(parent[node])
        while above >= 0 and not (above in wanted and feature[above] == j):
            child, above = above, int(parent[above])
        codes = (np.arange(int(n_levels[j]), dtype=np.int64) if above < 0
                 else reach[(above, bool(left[above] == child))])
        go_left = left_present[node]
        if n_samples[left[node]] >= n_samples[right[node]]:
            present = np.concatenate([left_present[node], right_present[node]])
            go_left = np.union1d(go_left, np.setdiff1d(codes, present)).astype(np.int64)
        out[node] = go_left
        reach[(node, True)] = np.intersect1d(codes, go_left)
        reach[(node, False)] = np.setdiff1d(codes, go_left)
    return out


@njit(cache=True)
def _split_gain(n_left: float, sum_left: float, n: float, total: float) -> float:
    """SSE0 − (SSE1 + SSE2) of a split, as n_l·n_r/n·(ȳ_l − ȳ_r)²."""
    n_right = n - n_left
    diff = sum_left / n_left - (total - sum_left) / n_right
    return n_left * n_right / n * diff * diff


@njit(cache=True)
def _first_near_best(gains, count, best, tie_rtol):
    """Index of the first gain within the tie tolerance of ``best``."""
    limit = best - tie_rtol * abs(best)
    for r in range(count):
        if gains[r] >= limit:
            return r
    return 0


@njit(cache=True)
def _histogram_split(codes, j, n_codes, is_categorical, idx, a, b, weight, centred, n, total,
                     hist_n, hist_s, order, rank, gains, tie_rtol):
    """Best split of units ``idx[a:b]`` on parameter ``j`` through a value histogram.

    Returns (gain, cut); for a categorical parameter ``rank`` receives each level's
    position in the mean-sorted order and ``cut`` is a rank.
    """
    for c in range(n_codes):
        hist_n[c] = 0.0
        hist_s[c] = 0.0
    for t in range(a, b):
        i = idx[t]
        hist_n[codes[i, j]] += weight[i]
        hist_s[codes[i, j]] += centred[i]
    if is_categorical:  # Breiman: levels in order of their mean response in the node
        level_mean = np.empty(n_codes)
        for c in range(n_codes):
            level_mean[c] = hist_s[c] / hist_n[c] if hist_n[c] > 0 else np.inf
        sorted_levels = np.argsort(level_mean, kind="mergesort")
        for r in range(n_codes):
            order[r] = sorted_levels[r]
            rank[sorted_levels[r]] = r
    else:
        for r in range(n_codes):
            order[r] = r
    n_left = 0.0
    sum_left = 0.0
    best = -np.inf
    for r in range(n_codes):
        c = order[r]
        n_left += hist_n[c]
        sum_left += hist_s[c]
        # A threshold is a value present in the node with samples on both sides.
        if hist_n[c] > 0 and n_left < n:
            gains[r] = _split_gain(n_left, sum_left, n, total)
            best = max(best, gains[r])
        else:
            gains[r] = -np.inf
    if best == -np.inf:
        return best, 0
    return best, _first_near_best(gains, n_codes, best, tie_rtol)


@njit(cache=True)
def _sorted_split(codes, j, idx, a, b, weight, centred, n, total, gains, tie_rtol):
    """Best split of units ``idx[a:b]`` on a many-valued ordered parameter, by sorting."""
    m = b - a
    values = np.empty(m, np.int64)
    for t in range(m):
        values[t] = codes[idx[a + t], j]
    order = np.argsort(values, kind="mergesort")
    n_left = 0.0
    sum_left = 0.0
    best = -np.inf
    for t in range(m):
        i = idx[a + order[t]]
        n_left += weight[i]
        sum_left += centred[i]
        last_of_value = t == m - 1 or values[order[t + 1]] != values[order[t]]
        if last_of_value and n_left < n:
            gains[t] = _split_gain(n_left, sum_left, n, total)
            best = max(best, gains[t])
        else:
            gains[t] = -np.inf
    if best == -np.inf:
        return best, 0
    return best, values[order[_first_near_best(gains, m, best, tie_rtol)]]


@njit(cache=True)
def _partition(codes, j, cut, is_categorical, rank, idx, a, b, spill):
    """Stable in-place partition of ``idx[a:b]`` into left (≤ cut) then right; returns the left size."""
    n_left = 0
    n_right = 0
    for t in range(a, b):
        i = idx[t]
        position = rank[codes[i, j]] if is_categorical else codes[i, j]
        if position <= cut:
            idx[a + n_left] = i
            n_left += 1
        else:
            spill[n_right] = i
            n_right += 1
    for t in range(n_right):
        idx[a + n_left + t] = spill[t]
    return n_left


@njit(cache=True)
def _append_code(cat_codes, n_cat, c):
    """``cat_codes`` with ``c`` stored at ``n_cat`` (a copy twice as long when it is full)."""
    if n_cat == cat_codes.shape[0]:
        bigger = np.zeros(2 * n_cat + 1, np.int64)
        bigger[:n_cat] = cat_codes
        cat_codes = bigger
    cat_codes[n_cat] = c
    return cat_codes


@njit(cache=True)
def _grow_kernel(codes, n_levels, categorical, weight, total, within, unit_low, unit_high,
                 threshold, min_split, max_depth, tie_rtol, noise_rtol, max_hist):
    """Breadth-first growth (the R tool's work queue); returns the node arrays."""
    u, p = codes.shape
    cap = 2 * u + 1  # a binary tree over u units has at most 2u − 1 nodes
    parent = np.full(cap, -1, np.int64)
    depth = np.zeros(cap, np.int64)
    n_samples = np.zeros(cap)
    mean = np.zeros(cap)
    sse = np.zeros(cap)
    feature = np.full(cap, -1, np.int64)
    cut = np.full(cap, -1, np.int64)
    left = np.full(cap, -1, np.int64)
    right = np.full(cap, -1, np.int64)
    improvement = np.zeros(cap)
    start = np.zeros(cap, np.int64)
    stop = np.zeros(cap, np.int64)
    cat_lo = np.zeros(cap, np.int64)
    cat_mid = np.zeros(cap, np.int64)
    cat_hi = np.zeros(cap, np.int64)
    cat_codes = np.zeros(u + 1, np.int64)  # grows when needed
    n_cat = 0

    width = 1
    for j in range(p):
        if categorical[j] or n_levels[j] <= max_hist:
            width = max(width, n_levels[j])
    hist_n = np.zeros(width)
    hist_s = np.zeros(width)
    order = np.zeros(width, np.int64)
    rank = np.zeros(width, np.int64)
    present = np.zeros(width, np.bool_)
    ranks = np.zeros((p, width), np.int64)
    gains = np.zeros(max(width, u))
    param_gain = np.zeros(p)
    param_cut = np.zeros(p, np.int64)
    idx = np.arange(u)
    spill = np.zeros(u, np.int64)
    centred = np.zeros(u)
    node_of_unit = np.zeros(u, np.int64)

    count = 1
    stop[0] = u
    for node in range(cap):  # the queue: nodes are appended as they are created
        if node >= count:
            break
        a, b = start[node], stop[node]
        n = 0.0
        s = 0.0
        for t in range(a, b):
            n += weight[idx[t]]
            s += total[idx[t]]
        mu = s / n
        e = 0.0
        for t in range(a, b):
            i = idx[t]
            gap = total[i] / weight[i] - mu
            e += within[i] + weight[i] * gap * gap
            node_of_unit[i] = node
        n_samples[node], mean[node], sse[node] = n, mu, e
        if n < min_split or e <= 0.0 or (max_depth >= 0 and depth[node] >= max_depth):
            continue
        s_centred = 0.0
        for t in range(a, b):
            i = idx[t]
            centred[i] = total[i] - weight[i] * mu
            s_centred += centred[i]

        for j in range(p):
            if categorical[j] or n_levels[j] <= max_hist:
                g, c = _histogram_split(codes, j, n_levels[j], categorical[j], idx, a, b, weight,
                                        centred, n, s_centred, hist_n, hist_s, order, rank,
                                        gains, tie_rtol)
                if categorical[j]:
                    ranks[j, :n_levels[j]] = rank[:n_levels[j]]
            else:
                g, c = _sorted_split(codes, j, idx, a, b, weight, centred, n, s_centred, gains,
                                     tie_rtol)
            param_gain[j], param_cut[j] = g, c
        # The first parameter (in column order) that ties with the best wins.
        best = param_gain.max()
        if best == -np.inf:
            continue
        j = _first_near_best(param_gain, p, best, tie_rtol)
        if not (param_gain[j] > threshold and param_gain[j] > noise_rtol * e):
            continue

        feature[node], cut[node], improvement[node] = j, param_cut[j], param_gain[j]
        if categorical[j]:
            # cat_codes[lo:mid]: the levels that go left (all present in the node: an absent level
            # ranks last); cat_codes[mid:hi]: the present levels that go right. The levels absent
            # from the node are placed afterwards (grow_tree: with the majority of its samples).
            for t in range(a, b):
                present[codes[idx[t], j]] = True
            cat_lo[node] = n_cat
            for c in range(n_levels[j]):
                if ranks[j, c] <= param_cut[j]:
                    cat_codes = _append_code(cat_codes, n_cat, c)
                    n_cat += 1
            cat_mid[node] = n_cat
            for c in range(n_levels[j]):
                if present[c]:
                    present[c] = False
                    if ranks[j, c] > param_cut[j]:
                        cat_codes = _append_code(cat_codes, n_cat, c)
                        n_cat += 1
            cat_hi[node] = n_cat
        n_left = _partition(codes, j, param_cut[j], categorical[j], ranks[j], idx, a, b, spill)
        for child, lo, hi in ((count, a, a + n_left), (count + 1, a + n_left, b)):
            parent[child] = node
            depth[child] = depth[node] + 1
            start[child], stop[child] = lo, hi
        left[node], right[node] = count, count + 1
        count += 2

    # Min / max over each leaf's units, then up the tree (children follow parents).
    low = np.full(count, np.inf)
    high = np.full(count, -np.inf)
    for i in range(u):
        low[node_of_unit[i]] = min(low[node_of_unit[i]], unit_low[i])
        high[node_of_unit[i]] = max(high[node_of_unit[i]], unit_high[i])
    for node in range(count - 1, 0, -1):
        low[parent[node]] = min(low[parent[node]], low[node])
        high[parent[node]] = max(high[parent[node]], high[node])
    return (parent[:count], depth[:count], n_samples[:count], mean[:count], sse[:count], low,
            high, feature[:count], cut[:count], left[:count], right[:count], improvement[:count],
            cat_codes[:n_cat], cat_lo[:count], cat_mid[:count], cat_hi[:count])


#: The numba kernels of this module, by name (each calls the others by these names).
KERNELS = ("training_paths", "_split_gain", "_first_near_best", "_histogram_split", "_sorted_split", "_partition",
           "_append_code", "_grow_kernel")


@functools.cache
def interpreted_kernels() -> dict[str, Any]:
    """The kernels as plain Python functions that call one another (not their compiled dispatchers).

    >>> interpreted_kernels()["_split_gain"](1.0, 2.0, 2.0, 2.0)
    2.0
    """
    namespace = dict(globals())
    for name in KERNELS:
        fn = globals()[name].py_func
        namespace[name] = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    return namespace


def _kernel(name: str, work: int) -> Any:
    """Kernel ``name``: compiled once it is compiled in this process, when ``work`` is large or when this
    process has already grown :data:`INTERPRETED_WORK` as Python; else as Python."""
    global _interpreted_work
    compiled = globals()[name]
    if compiled.signatures or work > SMALL_FIT or _interpreted_work + work > INTERPRETED_WORK:
        return compiled
    _interpreted_work += work
    return interpreted_kernels()[name]
