"""Cost-complexity pruning of Starchart trees, sized by cross-validation (rpart semantics).

A Starchart tree grown with threshold 0 splits while any parameter explains any
variation, so it fits the noise of the sample as well as its structure.  Breiman
et al.'s *weakest-link* pruning (CART, ch. 3) orders its subtrees: for a penalty
``α`` per split the subtree minimising ``SSE(T) + α·splits(T)`` is unique, and as
``α`` grows whole branches collapse, weakest (least SSE reduction per split) first.
Cross-validation then picks the size, as R's ``rpart`` does:

- :func:`pruning_path` — the α at which each subtree takes over;
- :func:`prune` — the subtree for a given α (a real :class:`StarchartTree`);
- :func:`cp_table` — rpart's ``printcp`` table (``CP``, ``nsplit``, ``rel error``,
  ``xerror``, ``xstd``) with k-fold cross-validation, plus ``xrel``, the
  cross-validated median relative error;
- :func:`fit_pruned` — grow, cross-validate and prune by the 1-SE rule in one call;
- :func:`cross_validated_error` — the k-fold *median relative error* of a tree
  configuration, the number the CLI prints under every tree;
- :func:`fit_stated_tree` — the tree a user is shown (full or pruned) with the sentence
  stating that error, as ``starchart tree`` and ``starchart report`` print it.

Like rpart, ``rel error`` and ``xerror`` are SSEs relative to the root SSE of the
whole sample, ``CP`` is ``α / root SSE``, the tree of a row is optimal for CPs from
its own value up to the one above it, and ``xerror`` of a row is measured by pruning
each fold's tree at the geometric mean of those two CPs (scaled by the fold's share
of the samples).  Differences from rpart, all deliberate:

- the tree is grown the Starchart way (every observed value tried, threshold 0,
  ``min_samples_split`` 10) rather than with rpart's ``cp = 0.01``, ``minsplit = 20``
  and ``minbucket = 7``, so tables start from a larger tree and the last row has
  ``CP = 0`` (the full tree) rather than 0.01;
- the first row's cross-validated tree is each fold's root (rpart prunes at
  10 × the largest CP, "close enough to infinity");
- folds are a seeded random permutation of ``0 … k−1`` repeated (rpart's default
  ``sample(rep(1:xval, length = n))``, with numpy's generator), so tables are
  reproducible but do not match rpart's random draws number for number.

Examples
--------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(1)
>>> X = pd.DataFrame({"tpp": rng.choice([1, 2, 4, 8, 16], 120),
...                   "ppb": rng.choice([16, 32, 64, 128], 120)})
>>> y = 8.0 / X["tpp"] + rng.normal(0, 0.3, 120)
>>> tree, table = fit_pruned(X, y, cv=10, seed=0)
>>> list(table.columns)
['CP', 'nsplit', 'rel error', 'xerror', 'xstd', 'xrel']
>>> sorted(tree.importance_[tree.importance_ > 0].index)  # the noise parameter is gone
['tpp']
>>> full = StarchartTree().fit(X, y)
>>> prune(full, 0.0).n_leaves_ == full.n_leaves_, prune(full, np.inf).n_leaves_
(True, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from numba import njit

from starchart._util.validation import Interval, check
from starchart.errors import InputError, StarchartError, arg
from starchart.tree._growth import TreeArrays
from starchart.tree._tree import StarchartTree, _rng, _validate_xy, check_tree_options

# Weakest links within this relative distance of each other are cut together, and
# ``prune`` treats an α this close to a node's own as equal (CP × root SSE round trips).
ALPHA_RTOL = 1e-9
CP_COLUMNS = ["CP", "nsplit", "rel error", "xerror", "xstd", "xrel"]
Rule = Literal["1se", "min", "relative"]


@dataclass(frozen=True)
class PruningPath:
    """The nested subtrees of weakest-link pruning, from the full tree to the root.

    Subtree ``i`` has ``n_splits[i]`` splits and training SSE ``sse[i]``, and is the
    optimal subtree for penalties ``alphas[i] ≤ α < alphas[i + 1]`` (``alphas[0] = 0``:
    the full tree; the last entry is the root alone).
    """

    alphas: np.ndarray
    n_splits: np.ndarray
    sse: np.ndarray
    root_sse: float

    def __len__(self) -> int:
        return len(self.alphas)


# ------------------------------------------------------------------- the path
def collapse_alphas(tree: StarchartTree) -> np.ndarray:
    """Per node, the penalty α at which weakest-link pruning turns it into a leaf.

    Leaves get ``inf`` (they never change).  An ancestor never collapses before its
    descendants: values never increase from a node down to its leaves.
    """
    t = _arrays(tree)
    return _weakest_links(t.parent, t.left, t.right, t.sse.astype(np.float64), ALPHA_RTOL)


def pruning_path(tree: StarchartTree) -> PruningPath:
    """The weakest-link pruning sequence of a fitted tree.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1, 1, 2, 2, 3, 3, 4, 4]})
    >>> tree = StarchartTree(min_samples_split=2).fit(X, [1.0, 1.2, 2.0, 2.2, 7.0, 7.2, 9.0, 9.2])
    >>> path = pruning_path(tree)
    >>> path.n_splits.tolist(), path.alphas.round(2).tolist()
    ([3, 2, 1, 0], [0.0, 1.0, 4.0, 84.5])
    """
    t = _arrays(tree)
    alpha = collapse_alphas(tree)
    inner = np.flatnonzero(t.feature >= 0)
    cuts = np.unique(alpha[inner])
    alphas = np.concatenate([[0.0], cuts])
    n_splits, sse = [], []
    leaf_sse = t.sse.copy()
    for a in alphas:
        kept, leaf = _kept_nodes(t, alpha, a)
        n_splits.append(int(np.sum(kept & ~leaf)))
        sse.append(float(np.sum(leaf_sse[kept & leaf])))
    return PruningPath(alphas, np.array(n_splits), np.array(sse), float(t.sse[0]))


def prune(tree: StarchartTree, alpha: float | None = None, *, cp: float | None = None
          ) -> StarchartTree:
    """The subtree of ``tree`` optimal for penalty ``alpha`` (SSE per split), or ``cp``.

    ``cp`` is rpart's scale, ``alpha / root SSE``.  ``alpha = 0`` keeps every split,
    ``alpha = inf`` leaves the root alone.  The result is a fitted
    :class:`StarchartTree` (``predict``, ``leaves_``, ``export_text`` … all work);
    ``tree`` is not changed.
    """
    if (alpha is None) == (cp is None):
        raise InputError("give exactly one of alpha and cp", where="prune",
                         hint="alpha is in SSE units per split; cp = alpha / root SSE")
    t = _arrays(tree)
    if cp is not None:
        alpha = _check_penalty(cp, "cp") * float(t.sse[0])
    alpha = _check_penalty(alpha, "alpha")
    kept, leaf = _kept_nodes(t, collapse_alphas(tree), alpha)
    return _subtree(tree, kept, leaf)


def _check_penalty(value: Any, name: str) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be a number ≥ 0, got {value!r}", where=name,
                         hint="use 0 for the full tree, inf for the root alone") from exc
    if np.isnan(value) or value < 0:
        raise InputError(f"{name} must be a number ≥ 0, got {value}", where=name,
                         hint="use 0 for the full tree, inf for the root alone")
    return value


def _arrays(tree: StarchartTree) -> TreeArrays:
    if not isinstance(tree, StarchartTree):
        raise InputError(f"expected a fitted StarchartTree, got {type(tree).__name__}",
                         where="tree", hint="fit a StarchartTree first")
    tree._check_fitted()
    return tree.tree_


def _kept_nodes(t: TreeArrays, alpha: np.ndarray, penalty: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes of the subtree for ``penalty`` and which of them are its leaves."""
    collapsed = (t.feature >= 0) & (alpha <= penalty * (1 + ALPHA_RTOL))
    kept = np.ones(t.node_count, dtype=bool)
    for node in range(1, t.node_count):  # children follow their parents
        p = t.parent[node]
        kept[node] = kept[p] and not collapsed[p]
    leaf = (t.feature < 0) | collapsed
    return kept, leaf


def _subtree(tree: StarchartTree, kept: np.ndarray, leaf: np.ndarray) -> StarchartTree:
    """A new fitted tree made of the ``kept`` nodes, the ``leaf`` ones without children."""
    t = tree.tree_
    new_id = np.cumsum(kept) - 1
    old = np.flatnonzero(kept)
    inner = ~leaf[old]

    def remap(ids: np.ndarray) -> np.ndarray:
        return np.where(ids >= 0, new_id[np.maximum(ids, 0)], -1)

    arrays = TreeArrays(
        parent=remap(t.parent[old]), depth=t.depth[old].copy(), n_samples=t.n_samples[old].copy(),
        mean=t.mean[old].copy(), sse=t.sse[old].copy(), min=t.min[old].copy(),
        max=t.max[old].copy(), feature=np.where(inner, t.feature[old], -1),
        cut=np.where(inner, t.cut[old], -1), left=np.where(inner, remap(t.left[old]), -1),
        right=np.where(inner, remap(t.right[old]), -1),
        improvement=np.where(inner, t.improvement[old], 0.0),
        left_levels={int(new_id[node]): levels.copy() for node, levels in t.left_levels.items()
                     if kept[node] and not leaf[node]},
        # a forest's tree places its splits halfway between the sides: its pruned subtree too
        right_low=None if t.right_low is None else np.where(inner, t.right_low[old], -1))
    pruned = StarchartTree(**tree.get_params())
    pruned._set_fitted(list(tree.feature_names_in_), dict(tree.param_kinds_),
                       {k: list(v) for k, v in tree.values_.items()}, arrays)
    return pruned


@njit(cache=True)
def _weakest_links(parent, left, right, sse, rtol):
    """Breiman's weakest-link cutting: the α at which every internal node collapses."""
    m = parent.shape[0]
    alpha = np.full(m, np.inf)
    gone = np.zeros(m, np.bool_)  # collapsed, or inside a collapsed subtree
    branch_sse = np.zeros(m)
    n_leaves = np.zeros(m)
    last = 0.0
    while True:
        for i in range(m - 1, -1, -1):  # children come after their parents
            if left[i] >= 0 and not gone[i]:
                branch_sse[i] = branch_sse[left[i]] + branch_sse[right[i]]
                n_leaves[i] = n_leaves[left[i]] + n_leaves[right[i]]
            else:
                branch_sse[i] = sse[i]
                n_leaves[i] = 1.0
        best = np.inf
        for i in range(m):
            if left[i] >= 0 and not gone[i]:
                g = (sse[i] - branch_sse[i]) / (n_leaves[i] - 1.0)
                best = min(best, g)
        if best == np.inf:
            break
        cut_at = max(best, last)  # the sequence cannot decrease (float noise aside)
        limit = best + rtol * abs(best)
        for i in range(m):
            if left[i] >= 0 and not gone[i] and \
                    (sse[i] - branch_sse[i]) / (n_leaves[i] - 1.0) <= limit:
                alpha[i] = cut_at
                gone[i] = True
        for i in range(1, m):  # everything below a collapsed node goes with it
            if gone[parent[i]] and not gone[i]:
                gone[i] = True
                if left[i] >= 0:
                    alpha[i] = cut_at
        last = cut_at
    return alpha


# ------------------------------------------------------------ cross-validation
def _fold_ids(n: int, folds: int, seed: int | None, where: str = "folds") -> np.ndarray:
    """Balanced random fold labels, as rpart's ``sample(rep(1:xval, length = n))``.

    ``where``: the caller's name for the number of folds (``fit_pruned`` calls it ``cv``).
    """
    folds = check(where, folds, Interval(int, 2, None), hint="the number of folds: 10 is rpart's default; 5 is faster")
    if folds > n:
        raise InputError(f"{folds} folds need at least {folds} samples, got {n}", where=where,
                         hint=f"use fewer folds ({where}=...) or measure more configurations")
    return _rng(seed, "seed").permutation(np.arange(n) % int(folds))


def _predict_pruned(tree: StarchartTree, X: pd.DataFrame, penalties: np.ndarray) -> np.ndarray:
    """Predictions of ``tree`` pruned at each penalty, shape (rows, penalties), without
    building the subtrees: a row stops at the first node of its path that is collapsed."""
    t = tree.tree_
    alpha = collapse_alphas(tree)
    leaf = tree.apply(X)
    depth = int(t.depth[leaf].max()) if len(leaf) else 0
    path = np.empty((len(leaf), depth + 1), dtype=np.int64)  # root … leaf, leaf repeated
    node = leaf.copy()
    for level in range(depth, -1, -1):
        path[:, level] = node
        node = np.where(t.depth[node] == level, t.parent[node], node)
    stops_leaf = t.feature[path] < 0
    out = np.empty((len(leaf), len(penalties)))
    for k, a in enumerate(penalties):
        stop = stops_leaf | (alpha[path] <= a * (1 + ALPHA_RTOL))
        first = np.argmax(stop, axis=1)
        out[:, k] = t.mean[path[np.arange(len(leaf)), first]]
    return out


def cp_table(tree: StarchartTree, X: pd.DataFrame, y: Any, folds: int = 10,
             seed: int | None = 0) -> pd.DataFrame:
    """rpart's complexity-parameter table for ``tree``, fitted on ``X``, ``y``.

    One row per subtree of the pruning path, root first: ``CP`` (α / root SSE),
    ``nsplit``, ``rel error`` (training SSE / root SSE), ``xerror`` (k-fold
    cross-validated SSE / root SSE), ``xstd`` (its standard error) and, beyond rpart's
    columns, ``xrel``: the cross-validated median relative error.  Each fold
    grows a tree with ``tree``'s hyper-parameters.  The penalties (α) are in
    ``table.attrs["alpha"]``.
    """
    _arrays(tree)  # checks that it is a fitted tree
    X, y_arr = _validate_xy(X, y)
    if len(y_arr) != tree.n_samples_:
        raise InputError(f"the tree was fitted on {tree.n_samples_} samples but {len(y_arr)} were "
                         "given", where="X", hint="pass the data the tree was fitted on")
    path = pruning_path(tree)
    root_sse = path.root_sse
    fold = _fold_ids(len(y_arr), folds, seed)
    cps = path.alphas[::-1] / root_sse if root_sse > 0 else np.zeros(len(path))
    # The CP a row's xerror is measured at: the geometric mean of its interval (rpart).
    probe = np.concatenate([[np.inf], np.sqrt(cps[1:] * cps[:-1])])
    predictions = np.empty((len(y_arr), len(cps)))
    for k in range(int(folds)):
        test = fold == k
        train = ~test
        fold_tree = StarchartTree(**tree.get_params()).fit(X.iloc[np.flatnonzero(train)],
                                                           y_arr[train])
        scale = root_sse * train.sum() / len(y_arr)
        penalties = np.concatenate([[np.inf], probe[1:] * scale])
        predictions[test] = _predict_pruned(fold_tree, X.iloc[np.flatnonzero(test)], penalties)
    squared = (predictions - y_arr[:, None]) ** 2
    total = squared.sum(axis=0)
    spread = np.sqrt(np.maximum((squared ** 2).sum(axis=0) - total ** 2 / len(y_arr), 0.0))
    denominator = root_sse if root_sse > 0 else 1.0  # a constant response is fitted exactly
    table = pd.DataFrame({"CP": cps, "nsplit": path.n_splits[::-1],
                          "rel error": path.sse[::-1] / denominator,
                          "xerror": total / denominator, "xstd": spread / denominator,
                          "xrel": _median_relative(predictions, y_arr)})
    table.attrs["alpha"] = path.alphas[::-1].tolist()
    table.attrs["root_sse"] = root_sse
    table.attrs["folds"] = int(folds)
    return table


def _median_relative(predictions: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Median relative error of each column of ``predictions`` (rows with y = 0 left out)."""
    usable = y != 0
    if not usable.any():
        return np.full(predictions.shape[1], np.nan)
    return np.median(np.abs(predictions[usable] - y[usable, None]) / np.abs(y[usable, None]), axis=0)


def choose_cp(table: pd.DataFrame, rule: Rule = "1se") -> int:
    """Row of a CP table to prune to.

    ``"1se"``: the smallest tree whose ``xerror`` is within one ``xstd`` of the
    minimum (Breiman et al.'s rule, rpart's usual choice); ``"min"``: the smallest
    ``xerror``; ``"relative"``: the smallest cross-validated median relative error
    ``xrel`` (the smallest tree among equals).  ``xerror`` is a squared error, so the
    slowest configurations dominate it; ``"relative"`` sizes the tree for the error
    the CLI reports instead.
    """
    if rule not in ("1se", "min", "relative"):
        raise InputError(f"unknown rule {rule!r}", where="rule", hint="use '1se', 'min' or 'relative'")
    if not isinstance(table, pd.DataFrame) or len(table) == 0 \
            or not {"xerror", "xstd", "xrel"} <= set(table.columns):
        raise InputError("not a CP table (it needs rows with xerror, xstd and xrel)", where="table",
                         hint="pass the table returned by cp_table() or fit_pruned()")
    if rule == "relative":
        xrel = table["xrel"].to_numpy()
        if np.isnan(xrel).all():
            raise InputError("every response is 0: a relative error is undefined", where="rule",
                             hint="size the tree by squared error: rule '1se' or 'min' (`starchart tree "
                                  "--prune 1se` on the command line)")
        return int(np.nanargmin(xrel))
    best = int(np.argmin(table["xerror"].to_numpy()))
    if rule == "min":
        return best
    limit = table["xerror"].iloc[best] + table["xstd"].iloc[best]
    return int(np.flatnonzero(table["xerror"].to_numpy() <= limit * (1 + ALPHA_RTOL))[0])


def fit_pruned(X: pd.DataFrame, y: Any, cv: int = 10, seed: int | None = 0,
               rule: Rule = "1se", **tree_params: Any
               ) -> tuple[StarchartTree, pd.DataFrame]:
    """Grow a Starchart tree, cross-validate its pruning path and prune it.

    Returns the pruned tree and the CP table, whose ``attrs["selected"]`` is the row
    chosen by ``rule`` (see :func:`choose_cp`).  ``tree_params`` go to
    :class:`StarchartTree` (threshold, min_samples_split, max_depth).
    """
    # checked before the fit, naming cv (cp_table calls it folds); a misspelt option is named as such,
    # not as a TypeError from StarchartTree.__init__
    X, y = _validate_xy(X, y)
    _fold_ids(len(y), cv, seed, where="cv")
    if tree_params.get("leaf_model", "mean") != "mean":  # the CP table prices mean leaves
        raise InputError("pruning sizes a tree of mean leaves", where="leaf_model",
                         hint=f"prune with {arg('leaf_model', repr('mean'))}, or limit a tree of linear leaves "
                              f"by {arg('max_depth', 'D')} instead")
    full = StarchartTree(**check_tree_options(tree_params, where="fit_pruned")).fit(X, y)
    table = cp_table(full, X, y, folds=cv, seed=seed)
    row = choose_cp(table, rule)
    table.attrs["selected"] = row
    table.attrs["rule"] = rule
    return prune(full, table.attrs["alpha"][row]), table


def cross_validated_error(X: pd.DataFrame, y: Any, folds: int = 5, seed: int | None = 0,
                          model: Any = None, **tree_params: Any) -> float:
    """k-fold cross-validated median relative error ``|ŷ − y| / |y|`` of a tree configuration.

    Every sample is predicted once, by a model fitted on the other folds; the result
    is the median over the samples (those with ``y = 0`` have no relative error and
    are left out).  ``model`` is an unfitted estimator to validate instead of
    ``StarchartTree(**tree_params)`` (e.g. a :class:`~starchart.tree._forest.StarchartForest`).
    A Starchart tree on a few hundred samples fits in about a millisecond, so five
    folds cost a few milliseconds.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> X = pd.DataFrame({"tpp": np.tile([1, 2, 4, 8], 30)})
    >>> y = 8.0 / X["tpp"] * np.linspace(0.95, 1.05, 120)
    >>> error = cross_validated_error(X, y, folds=5, seed=0)
    >>> round(error, 3), error == cross_validated_error(X, y, folds=5, seed=0)
    (0.027, True)
    """
    X, y_arr = _validate_xy(X, y)
    fold = _fold_ids(len(y_arr), folds, seed)
    if model is None:
        model = StarchartTree(**check_tree_options(tree_params, where="cross_validated_error"))
    elif tree_params:
        raise InputError(f"tree parameters {sorted(tree_params)} given together with a model",
                         where="cross_validated_error", hint="set them on the model instead")
    elif isinstance(model, type) or not all(callable(getattr(model, name, None))
                                            for name in ("get_params", "fit", "predict")):
        what = f"the class {model.__name__}" if isinstance(model, type) else type(model).__name__
        raise InputError(f"model must be an estimator object (with get_params, fit and predict), got {what}",
                         where="model", hint="pass an instance, e.g. model=StarchartForest(n_estimators=50)")
    predicted = np.empty(len(y_arr))
    for k in range(int(folds)):
        test = fold == k
        fitted = type(model)(**model.get_params()).fit(X.iloc[np.flatnonzero(~test)], y_arr[~test])
        predicted[test] = fitted.predict(X.iloc[np.flatnonzero(test)])
    usable = y_arr != 0
    if not usable.any():
        raise InputError("every response is 0: a relative error is undefined", where="y",
                         hint="validate a metric that is not zero")
    return float(np.median(np.abs(predicted[usable] - y_arr[usable]) / np.abs(y_arr[usable])))


#: how a CP table's row was chosen, in the words the tree's error line ends with
RULE_WORDS = {"1se": "pruned by the 1-SE rule", "relative": "pruned to the lowest relative error",
              "min": "pruned to the lowest cross-validated error"}


def fit_stated_tree(X: pd.DataFrame, y: Any, *, prune: Rule | None = None, cv: int = 10, folds: int = 5,
                    metric: str = "the response", **tree_params: Any
                    ) -> tuple[StarchartTree, str, pd.DataFrame | None]:
    """Fit the tree a user is shown, and the sentence that says how well it predicts unseen configurations.

    Without ``prune`` it is the full tree of ``tree_params`` (threshold, min_samples_split,
    max_depth), stated with the ``folds``-fold cross-validated error of the same settings
    (leave-one-out under ``folds`` samples). With ``prune`` (``"1se"``, ``"relative"``,
    ``"min"``: :func:`choose_cp`) it is :func:`fit_pruned` with ``cv`` folds, stated with the CP
    table's cross-validated median relative error at the chosen size (slightly optimistic: the
    same folds chose the size). Returns the tree, the sentence (or why there is none, e.g. every
    value is 0) and the CP table (``None`` unpruned). ``metric`` names the response in errors.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> X = pd.DataFrame({"tpp": np.tile([1, 2, 4, 8], 30)})
    >>> y = 8.0 / X["tpp"] * np.linspace(0.95, 1.05, 120)
    >>> tree, said, table = fit_stated_tree(X, y, prune="1se")
    >>> tree.n_leaves_, said
    (4, 'predicts unseen configurations within 2.6 % median error (10-fold CP table, pruned by the 1-SE rule)')
    """
    if prune is not None and prune not in RULE_WORDS:
        raise InputError(f"unknown pruning rule {prune!r}", where="prune", hint="use 1se or relative")
    X, y_arr = _validate_xy(X, y)
    if prune is None:
        tree = StarchartTree(**check_tree_options(tree_params, where="fit_stated_tree")).fit(X, y_arr)
        k = min(folds, max(len(y_arr), 2))  # leave-one-out on 2-4 samples
        try:
            said = describe_error(cross_validated_error(X, y_arr, folds=k, seed=0, **tree_params)) + f" ({k}-fold CV)"
        except StarchartError as exc:  # e.g. every value is 0: a relative error means nothing
            said = f"cross-validated error not available: {exc.message}"
        return tree, said, None
    if len(y_arr) < cv:
        raise InputError(f"pruning is sized by {cv}-fold cross-validation, which needs {cv} valid samples, "
                         f"got {len(y_arr)}", where="prune", hint="fit on more configurations, or do not prune")
    if prune == "relative" and not (y_arr != 0).any():  # choose_cp's refusal names "rule", and rules the CLI lacks
        raise InputError(f"every {metric} is 0, so a relative error is undefined", where="prune",
                         hint=f"use {arg('prune', repr('1se'))}, which sizes the tree by squared error")
    tree, table = fit_pruned(X, y_arr, cv=cv, seed=0, rule=prune, **tree_params)
    error = float(table["xrel"].iloc[table.attrs["selected"]])
    # the source only where there is an error to source (not after "error not available")
    said = describe_error(error) + (f" ({cv}-fold CP table, {RULE_WORDS[prune]})" if np.isfinite(error) else "")
    return tree, said, table


def describe_error(error: float) -> str:
    """The sentence the CLI prints under a tree, e.g. ``predicts unseen configurations
    within 12.3 % median error``.

    >>> describe_error(0.1234)
    'predicts unseen configurations within 12.3 % median error'

    A NaN (a CP table's ``xrel`` when every response is 0) is said as such, not as "nan %".
    """
    if np.isnan(error):
        return "cross-validated error not available: every response is 0, so a relative error is undefined"
    return f"predicts unseen configurations within {100 * error:.1f} % median error"
