"""Surrogate models for the tree-guided search: bagged Starchart trees on value codes.

The search works on *value codes*: each parameter's values numbered 0, 1, … in
their natural order (numbers sorted, categories as listed), so a configuration
is a row of small integers. :class:`CodeTree` grows one Starchart tree on such
rows with the compiled kernel of :mod:`starchart.tree._growth` (well under a
millisecond for a few hundred rows) and predicts with a compiled walk, so a
search can refit a whole ensemble after every measurement and score thousands
of candidates.

Two details differ from :class:`starchart.StarchartTree`, both because a search
predicts configurations *between* the ones it has measured:

- an ordered split is placed halfway between the largest code that went left and
  the smallest that went right (CART's midpoint), not just after the left one;
- an ensemble (:class:`TreeEnsemble`) grows each tree on a bootstrap resample and
  a random subset of the parameters (the random-subspace method), so that the
  spread of the trees' predictions measures how sure the model is.

Examples
--------
>>> codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]])
>>> y = np.array([3.0, 3.1, 2.0, 2.1, 1.0, 1.1])
>>> tree = CodeTree.fit(codes, y, n_levels=np.array([3, 2]), categorical=np.array([False, False]),
...                     min_samples_split=2)
>>> tree.predict(np.array([[2, 0], [0, 1]])).round(2).tolist()
[1.0, 3.1]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from starchart.tree._growth import grow_tree, training_paths

__all__ = ["CodeTree", "TreeEnsemble"]


@dataclass
class CodeTree:
    """One grown tree over value codes: node arrays and a compiled ``predict``.

    ``threshold[node]`` is the float code position of an ordered split (left:
    ``code <= threshold``); ``left_mask[node, code]`` says which codes of a
    categorical split go left (unseen categories go to the larger child).
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    n_samples: np.ndarray
    categorical_node: np.ndarray
    left_mask: np.ndarray

    @classmethod
    def fit(cls, codes: np.ndarray, y: np.ndarray, n_levels: np.ndarray, categorical: np.ndarray, *,
            min_samples_split: int = 2, max_depth: int | None = None) -> CodeTree:
        """Grow a Starchart tree (threshold 0) on ``codes`` (n × p ints) and response ``y``."""
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        n_levels = np.asarray(n_levels, dtype=np.int64)
        arrays = grow_tree(codes, n_levels, np.asarray(categorical, dtype=np.bool_),
                           np.asarray(y, dtype=np.float64), 0.0, int(min_samples_split), max_depth)
        width = int(n_levels.max()) if len(n_levels) else 1
        categorical_node, left_mask = arrays.split_masks(width)
        low_right, seen = training_paths(codes, arrays.feature, arrays.cut.astype(np.float64), arrays.left,
                                         arrays.right, categorical_node, left_mask)
        # An ordered split sits halfway between the last code that went left and the first that went right.
        ordered = (arrays.feature >= 0) & ~categorical_node
        upper = np.where(low_right >= 0, low_right, arrays.cut + 1).astype(np.float64)
        threshold = np.where(ordered, 0.5 * (arrays.cut + upper), np.nan)
        for node in np.flatnonzero(categorical_node):
            # a category no training row of this node had follows the larger child
            if arrays.n_samples[arrays.left[node]] >= arrays.n_samples[arrays.right[node]]:
                left_mask[node, ~seen[node]] = True
        return cls(arrays.feature, threshold, arrays.left, arrays.right, arrays.mean, arrays.n_samples,
                   categorical_node, left_mask)

    def apply(self, codes: np.ndarray) -> np.ndarray:
        """The leaf (node id) each row of ``codes`` falls into."""
        return _apply(np.ascontiguousarray(codes, dtype=np.int64), self.feature, self.threshold, self.left,
                      self.right, self.categorical_node, self.left_mask)

    def predict(self, codes: np.ndarray) -> np.ndarray:
        """The leaf mean of each row of ``codes``."""
        return self.value[self.apply(codes)]


@njit(cache=True)
def _walk(codes, i, node, feature, threshold, left, right, categorical_node, left_mask):
    """The leaf that row ``i`` reaches from ``node`` (shared by apply and predict)."""
    while feature[node] >= 0:
        code = codes[i, feature[node]]
        if categorical_node[node]:
            go_left = left_mask[node, code]
        else:
            go_left = code <= threshold[node]
        node = left[node] if go_left else right[node]
    return node


@njit(cache=True)
def _apply(codes, feature, threshold, left, right, categorical_node, left_mask):
    n = codes.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = _walk(codes, i, 0, feature, threshold, left, right, categorical_node, left_mask)
    return out


class TreeEnsemble:
    """Bagged Starchart trees on random parameter subsets; predictions of every tree.

    Parameters
    ----------
    n_trees:
        Trees in the ensemble.
    feature_fraction:
        Share of the parameters each tree may split on (at least one).
    min_samples_split:
        Smallest node a tree splits.
    bootstrap:
        Grow each tree on a bootstrap resample (else on all rows).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> codes = rng.integers(0, 4, size=(40, 3))
    >>> y = codes[:, 0] + 0.1 * codes[:, 1]
    >>> ens = TreeEnsemble(n_trees=8).fit(codes, y, np.array([4, 4, 4]), np.zeros(3, bool), rng)
    >>> ens.predict_all(np.array([[0, 0, 0], [3, 3, 3]])).shape
    (8, 2)
    """

    def __init__(self, n_trees: int = 16, feature_fraction: float = 0.8, min_samples_split: int = 2,
                 bootstrap: bool = True):
        self.n_trees = int(n_trees)
        self.feature_fraction = float(feature_fraction)
        self.min_samples_split = int(min_samples_split)
        self.bootstrap = bool(bootstrap)
        self.trees: list[CodeTree] = []
        self._packed: tuple[np.ndarray, ...] | None = None

    def fit(self, codes: np.ndarray, y: np.ndarray, n_levels: np.ndarray, categorical: np.ndarray,
            rng: np.random.Generator) -> TreeEnsemble:
        """Grow the trees; ``rng`` draws the resamples and parameter subsets."""
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        y = np.asarray(y, dtype=np.float64)
        n = codes.shape[0]
        varying = np.flatnonzero(np.asarray(n_levels) > 1)
        keep = max(1, round(self.feature_fraction * len(varying)))
        self.trees = []
        self._packed = None
        for _ in range(self.n_trees):
            rows = rng.integers(0, n, size=n) if self.bootstrap else np.arange(n)
            sub = codes[rows]
            if len(varying) > keep:
                hidden = np.setdiff1d(varying, rng.choice(varying, size=keep, replace=False))
                sub = sub.copy()
                sub[:, hidden] = 0  # a constant column offers no split
            self.trees.append(CodeTree.fit(sub, y[rows], n_levels, categorical,
                                           min_samples_split=self.min_samples_split))
        return self

    def predict_all(self, codes: np.ndarray) -> np.ndarray:
        """Predictions of each tree: an array of shape (n_trees, rows)."""
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        if not self.trees:
            return np.empty((0, len(codes)))
        if self._packed is None:
            self._packed = _pack(self.trees)
        return _predict_many(codes, *self._packed)


def _pack(trees: list[CodeTree]) -> tuple[np.ndarray, ...]:
    """All trees' node arrays end to end (child ids shifted), for one compiled pass."""
    offsets = np.cumsum([0] + [len(t.feature) for t in trees])
    width = max(t.left_mask.shape[1] for t in trees)
    masks = np.zeros((offsets[-1], width), dtype=np.bool_)
    for t, start in zip(trees, offsets):
        masks[start:start + len(t.feature), :t.left_mask.shape[1]] = t.left_mask
    shift = [np.where(t.left >= 0, t.left + start, -1) for t, start in zip(trees, offsets)]
    shift_r = [np.where(t.right >= 0, t.right + start, -1) for t, start in zip(trees, offsets)]
    return (np.concatenate([t.feature for t in trees]), np.concatenate([t.threshold for t in trees]),
            np.concatenate(shift), np.concatenate(shift_r), np.concatenate([t.value for t in trees]),
            np.concatenate([t.categorical_node for t in trees]), masks, offsets[:-1].astype(np.int64))


@njit(cache=True)
def _predict_many(codes, feature, threshold, left, right, value, categorical_node, left_mask, roots):
    n = codes.shape[0]
    out = np.empty((roots.shape[0], n))
    for t in range(roots.shape[0]):
        for i in range(n):
            leaf = _walk(codes, i, roots[t], feature, threshold, left, right, categorical_node, left_mask)
            out[t, i] = value[leaf]
    return out
