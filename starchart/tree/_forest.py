"""Bagged Starchart trees: a forest for accuracy and for uncertainty.

Each tree is a :class:`~starchart.tree._tree.StarchartTree` grown by the same compiled
kernel on a bootstrap sample of the designs.  Four choices differ from a single
Starchart tree, each measured in ``benchmarks/bench_ensemble.py``:

- trees are grown out (``min_samples_split=2``), as in a random forest: averaging
  removes the variance that the R tool's minimum node size of 10 guards against;
- an ordered split is placed halfway between the two sides' nearest values in the
  tree's sample (geometrically: tuning parameters are mostly powers of two), not just
  after the left one, so a value a deep node never saw goes to the nearer side, as in
  scikit-learn's trees (wmma power, 200 samples: 5.72 % → 5.58 % median error, RF(100) 5.57 %);
- ties between parameters are broken at random per tree (the kernel takes the first
  parameter in column order, so every tree gets its own column order), which keeps
  trees of perfectly correlated parameters from all making the same choice;
- with ``target="auto"`` a response that is positive everywhere (times, energies,
  power) is modelled both as ``y`` and as ``log y`` (leaves then average ratios,
  which is what a *relative* error measures; the prediction is the geometric mean
  of the trees), and the forest keeps whichever predicts its out-of-bag designs
  with the smaller median relative error.  The log wins clearly where times span
  orders of magnitude (gemm, wmma); elsewhere the two are within noise.

Feature subsampling (``max_features``) is per tree, the random-subspace method.  On
the real tuning spaces every subsampling measured was less accurate than none (per
tree, fractions 0.8 and 0.5 with this class; per split, scikit-learn's random forest
with 0.5 and 0.33), so the default keeps all parameters: tuning spaces have few
parameters and most of them matter somewhere.

Examples
--------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> X = pd.DataFrame({"tpp": rng.choice([1, 2, 4, 8], 80), "ppb": rng.choice([16, 32, 64], 80)})
>>> y = 10.0 / X["tpp"] + 0.01 * X["ppb"] + rng.normal(0, 0.05, 80)
>>> forest = StarchartForest(n_estimators=20, random_state=0).fit(X, y)
>>> mean, std = forest.predict(pd.DataFrame({"tpp": [1, 8], "ppb": [32, 32]}), return_std=True)
>>> mean.round(1).tolist()
[10.3, 1.6]
>>> forest.predict_distribution(X.head(3)).shape
(3, 20)
>>> forest.importance_.idxmax()
'tpp'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from starchart._util.validation import SEED, Interval, Options, Validated
from starchart.errors import InputError, NotFittedError
from starchart.tree._growth import TreeArrays, grow_tree, set_right_low
from starchart.tree._tree import NUMPY_SEEDS, TREE_CONSTRAINTS, TREE_HINTS, StarchartTree, _encode, _validate_xy
from starchart.tree._walk import walk_packed

Target = Literal["auto", "log", "identity"]


@dataclass
class _Packed:
    """All trees' nodes in one set of arrays, so that prediction walks every tree at once."""

    roots: np.ndarray  # (T,) global id of each tree's root
    feature: np.ndarray
    threshold: np.ndarray  # NaN for leaves and categorical splits
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray  # leaf prediction in the fitted (possibly log) scale
    cat_row: np.ndarray  # row of ``cat_left`` for categorical splits, −1 otherwise
    cat_left: np.ndarray  # (rows, 1 + max levels): column 0 is an unseen level


@dataclass(eq=False, repr=False)
class StarchartForest(Validated):
    """Bagged Starchart regression trees (scikit-learn style).

    Parameters
    ----------
    n_estimators:
        Number of trees.
    max_features:
        Parameters each tree may split on: ``None`` or 1.0 for all, a fraction in
        (0, 1] (of the parameters, rounded to the nearest count, halves up, at least 1),
        an integer count, ``"sqrt"`` or ``"log2"``; drawn at random per tree.
    bootstrap:
        Grow each tree on a bootstrap sample (with replacement) of the designs;
        otherwise on all of them (the trees then differ only by tie-breaking).
    random_state:
        Seed (int) or ``None`` for fresh randomness; equal seeds give equal forests.
    n_jobs:
        Processes used to grow the trees (``None`` or 1: none, −1 or any negative: all cores).
        A tree on a few hundred samples takes about a millisecond, so this only pays
        for large samples or many trees.  The result does not depend on it.
    min_samples_split, threshold, max_depth:
        As for :class:`~starchart.tree._tree.StarchartTree`, applied to every tree.
    target:
        ``"log"`` models ``log y`` (needs ``y > 0``), ``"identity"`` models ``y``,
        ``"auto"`` grows both when every response is positive (and ``bootstrap``)
        and keeps the one with the smaller out-of-bag error; this doubles the fit time.
        Without ``bootstrap`` there are no out-of-bag designs to compare them on, so a
        positive response is modelled as ``log y`` (``oob_errors_`` then holds NaN).

    Attributes (after ``fit``)
    --------------------------
    estimators_ : list[StarchartTree]  the trees, fitted on the transformed response
    target_ : str                      "log" or "identity": the transform used
    importance_ : pandas.Series        mean normalised SSE reduction per parameter
    oob_prediction_ : numpy.ndarray    out-of-bag prediction per training row (NaN if none)
    oob_error_ : float                 median relative error of the out-of-bag predictions
    oob_errors_ : dict                 that error for each target grown
    feature_names_in_ : list[str]
    """

    _parameter_constraints = {
        "n_estimators": (Interval(int, 1, None),),
        "target": (Options("auto", "log", "identity"),),
        "n_jobs": (None, Interval(int, None, -1), Interval(int, 1, None)),  # negative: all cores
        "random_state": (None, SEED, NUMPY_SEEDS),
        **TREE_CONSTRAINTS,
    }
    _parameter_hints = {
        "n_estimators": "100 trees are plenty for a few hundred samples",
        "n_jobs": "leave it unset to grow the trees in this process",
        "random_state": "use a whole number such as 0 to get the same forest every time",
        **TREE_HINTS,
    }

    # the constructor (a dataclass's) stores each argument as given; fit checks them
    n_estimators: int = 100
    max_features: float | str | None = None
    bootstrap: bool = True
    random_state: int | None = None
    n_jobs: int | None = None
    min_samples_split: int = 2
    threshold: float = 0.0
    max_depth: int | None = None
    target: Target = "auto"

    # ------------------------------------------------------------------ fitting
    def fit(self, X: pd.DataFrame, y: Any) -> StarchartForest:
        """Grow ``n_estimators`` trees on bootstrap samples of ``X`` (parameters) and ``y``."""
        params = self._validate_params()
        X, y_arr = _validate_xy(X, y)
        enc = _encode(X)
        n, p = enc.codes.shape
        n_levels = np.array([len(lv) for lv in enc.levels], dtype=np.int64)
        categorical = np.array([kind == "categorical" for kind in enc.kinds], dtype=bool)
        k = self._n_features(p)
        targets = self._candidate_targets(y_arr)  # checked before anything of a previous fit changes
        # One seed per tree, drawn up front: the forest does not depend on n_jobs.
        seeds = np.random.default_rng(params["random_state"]).integers(0, 2**63 - 1, params["n_estimators"])
        plans = [_plan(int(s), n, p, k, self.bootstrap) for s in seeds]
        settings = (params["threshold"], params["min_samples_split"], params["max_depth"])
        names = enc.names
        kinds = dict(zip(names, enc.kinds))
        values = {name: lv.tolist() for name, lv in zip(names, enc.levels)}
        self.feature_names_in_ = names
        self.n_samples_ = n

        self.oob_errors_: dict[str, float] = {}
        fitted: dict[str, tuple] = {}
        for target in targets:
            y_fit = np.log(y_arr) if target == "log" else y_arr
            arrays = _grow_all(enc.codes, n_levels, categorical, y_fit, plans, settings, params["n_jobs"])
            trees = []
            for tree_arrays in arrays:
                tree = StarchartTree(self.threshold, self.min_samples_split, self.max_depth)
                tree._set_fitted(names, kinds, values, tree_arrays)
                trees.append(tree)
            self.estimators_, self.target_, self._packed = trees, target, _pack(trees)
            self._set_oob(X, y_arr, [rows for rows, _ in plans])
            self.oob_errors_[target] = self.oob_error_
            fitted[target] = (trees, self._packed, self.oob_prediction_, self.oob_error_)
        # "auto" with a positive response grew both; keep the one that predicts its
        # out-of-bag designs better (the log when they tie or cannot be compared).
        best = min(self.oob_errors_, key=lambda t: (np.nan_to_num(self.oob_errors_[t], nan=np.inf),
                                                     t != "log"))
        self.target_ = best
        self.estimators_, self._packed, self.oob_prediction_, self.oob_error_ = fitted[best]
        return self

    def _candidate_targets(self, y: np.ndarray) -> list[str]:
        if self.target == "identity":
            return ["identity"]
        positive = bool(np.all(y > 0))
        if self.target == "log":
            if not positive:
                bad = int(np.flatnonzero(y <= 0)[0])
                raise InputError(f"target='log' needs a positive response, but row {bad} is {y[bad]}",
                                 where="y", hint="use target='identity' (or 'auto')")
            return ["log"]
        if not positive:
            return ["identity"]
        return ["log", "identity"] if self.bootstrap else ["log"]

    def _n_features(self, p: int) -> int:
        mf = self.max_features
        if mf is None:
            return p
        if mf == "sqrt":
            return max(1, int(np.sqrt(p)))
        if mf == "log2":
            return max(1, int(np.log2(p))) if p > 1 else 1
        if isinstance(mf, (int, np.integer)) and not isinstance(mf, bool):
            if not 1 <= mf <= p:
                raise InputError(f"max_features={mf} is not between 1 and the {p} parameters",
                                 where="max_features", hint=f"use an integer in 1…{p} or a fraction")
            return int(mf)
        if isinstance(mf, (float, np.floating)) and 0 < mf <= 1:
            # the nearest count, halves up (Python's round() would take 2.5 to 2 but 3.5 to 4)
            return max(1, min(p, int(np.floor(mf * p + 0.5))))
        raise InputError(f"max_features must be None, a fraction in (0, 1], a count, 'sqrt' or "
                         f"'log2', got {mf!r}", where="max_features", hint="leave it unset for all")

    def _check_fitted(self) -> None:
        if not hasattr(self, "estimators_"):
            raise NotFittedError("this StarchartForest is not fitted yet",
                                 hint="call fit(X, y) before using it")

    # --------------------------------------------------------------- prediction
    def _tree_values(self, X: pd.DataFrame) -> np.ndarray:
        """Per-tree predictions in the fitted scale, shape (n_rows, n_trees)."""
        self._check_fitted()
        template = self.estimators_[0]
        positions = template._positions(template._check_columns(X))
        return _walk(self._packed, positions).T

    def _back(self, values: np.ndarray) -> np.ndarray:
        return np.exp(values) if self.target_ == "log" else values

    def predict_distribution(self, X: pd.DataFrame) -> np.ndarray:
        """Every tree's prediction for every row of ``X``: an array (n_rows, n_estimators).

        Its spread is the forest's uncertainty: quantiles over axis 1 give an interval.
        """
        return self._back(self._tree_values(X))

    def predict(self, X: pd.DataFrame, return_std: bool = False
                ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Predict each row of ``X``: the mean of the trees (geometric mean with a log target).

        With ``return_std=True`` also return the standard deviation of the trees'
        predictions, in the response's units.
        """
        values = self._tree_values(X)
        mean = self._back(values.mean(axis=1))
        if not return_std:
            return mean
        return mean, self._back(values).std(axis=1)

    def _set_oob(self, X: pd.DataFrame, y: np.ndarray, rows: list[np.ndarray]) -> None:
        n = len(y)
        if not self.bootstrap:
            self.oob_prediction_ = np.full(n, np.nan)
            self.oob_error_ = float("nan")
            return
        values = self._tree_values(X)  # (n, T)
        out_of_bag = np.ones_like(values, dtype=bool)
        for t, r in enumerate(rows):
            out_of_bag[r, t] = False
        counts = out_of_bag.sum(axis=1)
        sums = np.where(out_of_bag, values, 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.oob_prediction_ = np.where(counts > 0, self._back(sums / counts), np.nan)
            usable = (counts > 0) & (y != 0)
            rel = np.abs(self.oob_prediction_[usable] - y[usable]) / np.abs(y[usable])
        self.oob_error_ = float(np.median(rel)) if rel.size else float("nan")

    # ------------------------------------------------------------ interpretation
    @property
    def importance_(self) -> pd.Series:
        """Mean over the trees of each parameter's share of the SSE reduction."""
        self._check_fitted()
        shares = [tree.importance(normalize=True) for tree in self.estimators_]
        return pd.concat(shares, axis=1).mean(axis=1).rename("importance")



# ------------------------------------------------------------------- growing
def _plan(seed: int, n: int, p: int, k: int, bootstrap: bool) -> tuple[np.ndarray, np.ndarray]:
    """The rows (bootstrap sample) and the column order (random subset of k) of one tree."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, n, n) if bootstrap else np.arange(n)
    cols = rng.permutation(p)[:k]
    return rows, cols


def _grow_one(codes: np.ndarray, n_levels: np.ndarray, categorical: np.ndarray, y: np.ndarray,
              plan: tuple[np.ndarray, np.ndarray], settings: tuple) -> TreeArrays:
    rows, cols = plan
    threshold, min_split, max_depth = settings
    sample = codes[np.ix_(rows, cols)]
    arrays = grow_tree(sample, n_levels[cols], categorical[cols], y[rows], threshold, min_split, max_depth)
    set_right_low(arrays, sample, int(n_levels.max()) if len(n_levels) else 1)
    # Back from this tree's column order to the parameters' order.
    arrays.feature = np.where(arrays.feature >= 0, cols[np.maximum(arrays.feature, 0)], -1)
    return arrays


def _grow_chunk(codes, n_levels, categorical, y, plans, settings) -> list[TreeArrays]:
    return [_grow_one(codes, n_levels, categorical, y, plan, settings) for plan in plans]


def _grow_all(codes, n_levels, categorical, y, plans, settings, n_jobs) -> list[TreeArrays]:
    if n_jobs is None or n_jobs == 1 or len(plans) == 1:
        return _grow_chunk(codes, n_levels, categorical, y, plans, settings)
    from joblib import Parallel, cpu_count, delayed

    workers = min(cpu_count() if n_jobs < 0 else int(n_jobs), len(plans))
    chunks = [plans[i::workers] for i in range(workers)]
    grown = Parallel(n_jobs=workers)(delayed(_grow_chunk)(codes, n_levels, categorical, y, chunk,
                                                          settings) for chunk in chunks)
    # Undo the round-robin split so that tree t is always grown from plan t.
    out: list[TreeArrays] = [None] * len(plans)  # type: ignore[list-item]
    for i, trees in enumerate(grown):
        out[i::workers] = trees
    return out


# ---------------------------------------------------------------- prediction
def _pack(trees: list[StarchartTree]) -> _Packed:
    sizes = np.array([t.tree_.node_count for t in trees])
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    feature = np.concatenate([t.tree_.feature for t in trees])
    threshold = np.concatenate([t._thresholds() for t in trees])
    left = np.concatenate([np.where(t.tree_.left >= 0, t.tree_.left + o, -1)
                           for t, o in zip(trees, offsets)])
    right = np.concatenate([np.where(t.tree_.right >= 0, t.tree_.right + o, -1)
                            for t, o in zip(trees, offsets)])
    value = np.concatenate([t.tree_.mean for t in trees])
    cat_row = np.full(len(feature), -1, dtype=np.int64)
    width = 1 + max((len(v) for v in trees[0].values_.values()), default=0)
    rows = []
    by_position = trees[0]._ordered_by_position()  # ordered categoricals: compared by level position
    codes = np.arange(width - 1)
    for t, o in zip(trees, offsets):
        ta = t.tree_
        ordered_nodes = [node for node in np.flatnonzero(ta.feature >= 0) if by_position[ta.feature[node]]]
        for node, levels in [*t.tree_.left_levels.items(), *((node, None) for node in ordered_nodes)]:
            row = np.zeros(width, dtype=bool)
            if levels is None:  # level positions up to the split's go left
                row[1:] = codes <= threshold[o + node]
            else:
                row[1 + levels] = True
            # column 0: a level never seen in training follows the larger side, as in StarchartTree.apply
            row[0] = ta.n_samples[ta.left[node]] >= ta.n_samples[ta.right[node]]
            cat_row[o + node] = len(rows)
            rows.append(row)
    cat_left = np.array(rows) if rows else np.zeros((0, width), dtype=bool)
    return _Packed(offsets.astype(np.int64), feature, threshold, left, right, value, cat_row,
                   cat_left)


def _walk(packed: _Packed, positions: np.ndarray) -> np.ndarray:
    """Leaf values of every (tree, row) pair, shape (n_trees, n_rows)."""
    return packed.value[walk_packed(packed.roots, packed.feature, packed.threshold, packed.left, packed.right,
                                    packed.cat_row, packed.cat_left, positions)]
