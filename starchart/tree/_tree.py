"""The Starchart regression tree (Jia, Shaw & Martonosi, PACT 2013, Fig. 3).

The tree recursively partitions the sampled designs.  For a node with mean ``r̄``
and ``SSE0 = Σ(r_j − r̄)²`` every parameter ``P`` and every observed value ``v``
(except the largest) is tried as a split ``P ≤ v`` / ``P > v``; the split with the
smallest ``SSE1 + SSE2`` wins and is made when ``SSE0 − SSEmin > threshold``.
This is exactly what the authors' R tool (``starchartSplitLeaf``) does, including
its ``splittable`` minimum node size and its tie-breaking (first parameter in
column order, then the smallest threshold).  Categorical parameters, which the R
tool ignores, are split with Breiman's rule: levels ordered by their mean
response within the node, then scanned as if ordered.

The growing itself lives in :mod:`starchart.tree._growth` (breadth first, through
per-node histograms, in one compiled kernel); this module is the estimator around it
and the readable view of the result: nodes, leaves as subspaces, importance.

Examples
--------
>>> import pandas as pd
>>> X = pd.DataFrame({"tpp": [1, 1, 2, 2, 4, 4, 8, 8, 16, 16, 16, 1],
...                   "consec": [0, 1] * 6})
>>> y = [9.0, 9.2, 5.0, 5.1, 3.0, 3.2, 2.9, 3.1, 3.0, 3.1, 2.9, 9.1]
>>> tree = StarchartTree(min_samples_split=4, max_depth=2).fit(X, y)
>>> tree.root_.feature, tree.root_.threshold
('tpp', 1.0)
>>> [leaf.description for leaf in tree.leaves_]
['tpp = 1', 'tpp = 2', 'tpp > 2']
>>> tree.predict(pd.DataFrame({"tpp": [1, 32], "consec": [0, 0]})).round(2).tolist()
[9.1, 3.03]
"""

from __future__ import annotations

import json
import keyword
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

import numpy as np
import pandas as pd

from starchart._util.validation import Constraint, Instances, Interval, Options, Validated, check, check_seed
from starchart.errors import InputError, NotFittedError
from starchart.tree._graphviz import tree_to_dot
from starchart.tree._growth import TreeArrays, grow_tree
from starchart.tree._leaves import fit_linear_leaves, predict_linear_leaves
from starchart.tree._text import format_value, tree_to_text
from starchart.tree._walk import BY_POSITION, CATEGORICAL, ORDERED, walk

ParamKind = Literal["ordered", "categorical"]


@dataclass
class TreeNode:
    """One node of a fitted tree: its split (if any) and the statistics of its samples.

    ``threshold`` is set for splits on ordered parameters (left: ``value ≤ threshold``);
    ``left_levels`` for splits on categorical parameters (left: ``value in left_levels``), with
    ``right_levels`` the other levels that can reach the node (those an earlier split on the same
    parameter sent elsewhere are in neither). A level that can reach the node but that none of
    its training samples has is on the side of the majority of them (the left one on a tie), as a
    level never seen in training is routed.
    ``improvement`` is the SSE reduction the split achieved (0 for a leaf).
    """

    id: int
    depth: int
    parent: int | None
    n_samples: int
    mean: float
    sse: float
    std: float
    min: float
    max: float
    feature: str | None = None
    threshold: float | None = None
    left_levels: list[Any] | None = None
    left: int | None = None
    right: int | None = None
    improvement: float = 0.0
    right_levels: list[Any] | None = None

    @property
    def is_leaf(self) -> bool:
        return self.feature is None


def _number(value: float) -> str:
    """A bound as a restriction writes it: ``8`` for 8.0, else the float's own repr."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@dataclass
class Subspace:
    """A leaf of the tree read as a region of the design space.

    ``allowed`` lists, per parameter that the path restricts, the values seen in
    training that fall inside the region; ``bounds`` gives, per numeric parameter
    the path restricts, the interval ``(low, high]`` its splits leave (``None``: open),
    so that values never sampled are placed as :meth:`StarchartTree.apply` places them;
    ``description`` is the readable form, e.g. ``"tpp > 8 ∧ consec = 1"``.

    Examples
    --------
    >>> region = Subspace(3, 10, 1.0, 0.1, 0.9, 1.2, allowed={"tpp": [16, 32], "consec": [1]},
    ...                   bounds={"tpp": (8.0, None)}, description="tpp > 8 ∧ consec = 1")
    >>> region.contains(pd.DataFrame({"tpp": [8, 12, 64], "consec": [1, 1, 1]})).tolist()
    [False, True, True]
    """

    node_id: int
    n_samples: int
    mean: float
    std: float
    min: float
    max: float
    allowed: dict[str, list[Any]] = field(default_factory=dict)
    description: str = "all designs"
    bounds: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)

    def to_restrictions(self, space_values: Mapping[str, Sequence[Any]] | None = None) -> list[str]:
        """The region as restrictions a :class:`~starchart.Space` takes (and a space file lists): the interval
        its splits leave a numeric parameter, the values they leave any other (:meth:`Space.within`).

        ``space_values`` (a space's ``tune_params``) writes those values as the space holds them: a tree fits
        a column that mixes numbers and text as text, so its region lists ``'1'`` where the space has ``1``.

        >>> region = Subspace(3, 10, 1.0, 0.1, 0.9, 1.2, allowed={"tpp": [16, 32], "mode": ["1"]},
        ...                   bounds={"tpp": (8.0, 32.0)}, description="8 < tpp ≤ 32 ∧ mode = 1")
        >>> region.to_restrictions(), region.to_restrictions({"mode": [1, "a"]})[-1]
        (['tpp > 8', 'tpp <= 32', "mode in ('1',)"], 'mode in (1,)')
        """
        restrictions = []
        for name, values in self.allowed.items():
            if not name.isidentifier() or keyword.iskeyword(name):
                raise InputError(f"the parameter {name!r} cannot be named in a restriction", where="region",
                                 hint="select the region's rows with region.contains(X) instead")
            if name in self.bounds:
                low, high = self.bounds[name]
                restrictions += [f"{name} > {_number(low)}"] if low is not None else []
                restrictions += [f"{name} <= {_number(high)}"] if high is not None else []
            else:
                if space_values is not None and name in space_values:
                    texts = {str(v) for v in values}
                    values = [v for v in space_values[name] if str(v) in texts]
                restrictions.append(f"{name} in ({', '.join(map(repr, values))},)")
        return restrictions

    def contains(self, X: pd.DataFrame) -> np.ndarray:
        """Boolean mask of the rows of ``X`` whose values lie inside this region.

        A numeric parameter is judged by the interval its splits leave (a value the
        training sample lacked is in if it lies between the thresholds), any other by
        the values the region lists.
        """
        X = _as_frame(X)
        missing = [name for name in self.allowed if name not in X.columns]
        if missing:
            raise InputError(f"missing parameter column(s) {missing}", where="X",
                             hint=f"this region restricts {list(self.allowed)}: pass a table with those columns")
        mask = np.ones(len(X), dtype=bool)
        for name, values in self.allowed.items():
            if name in self.bounds:
                low, high = self.bounds[name]
                column = pd.to_numeric(X[name], errors="coerce").to_numpy(dtype=float)
                if low is not None:
                    mask &= column > low
                if high is not None:
                    mask &= column <= high
            else:
                # a category is matched by its text too, as apply() reads it (an object column of
                # 1 and "a" was fitted as the levels "1" and "a")
                column = X[name]
                mask &= (column.isin(values) | column.astype(str).isin([str(v) for v in values])).to_numpy()
        return mask


@dataclass
class _Encoded:
    """Parameters of a training set turned into integer value codes."""

    names: list[str]
    codes: np.ndarray  # (n, p) int: index of each value in its parameter's sorted levels
    levels: list[np.ndarray]  # per parameter: the sorted distinct values
    kinds: list[ParamKind]


def _param_kind(column: pd.Series) -> ParamKind:
    if isinstance(column.dtype, pd.CategoricalDtype):
        return "ordered" if column.cat.ordered else "categorical"
    if pd.api.types.is_bool_dtype(column) or pd.api.types.is_numeric_dtype(column):
        return "ordered"
    return "categorical"


def _column_values(column: pd.Series, kind: ParamKind) -> np.ndarray:
    """The values of one parameter as a sortable numpy array (checked for missing values)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        values = column.cat.codes.to_numpy() if kind == "ordered" else column.astype(str).to_numpy()
        missing = column.isna().to_numpy().any()
    elif kind == "ordered":
        # Booleans stay booleans: they sort False < True and compare as 0/1 with the thresholds,
        # and a leaf then reads "flag = True" rather than "flag = 1".
        values = column.to_numpy()
        missing = values.dtype.kind == "f" and np.isnan(values).any()
        if values.dtype.kind == "O":
            missing = pd.isna(values).any()
    else:
        missing = pd.isna(column.to_numpy()).any()
        values = column.astype(str).to_numpy()
    if missing:
        raise InputError(f"parameter column {column.name!r} has missing values", where="X",
                         hint="fill or drop the rows with missing parameter values")
    return values


def _encode(X: pd.DataFrame) -> _Encoded:
    """Turn every parameter into integer codes of its sorted distinct values."""
    codes = np.empty(X.shape, dtype=np.int64)
    levels: list[np.ndarray] = []
    kinds: list[ParamKind] = []
    for j, (name, column) in enumerate(X.items()):
        kind = _param_kind(column)
        uniq, codes[:, j] = np.unique(_column_values(column, kind), return_inverse=True)
        if isinstance(column.dtype, pd.CategoricalDtype) and kind == "ordered":
            uniq = np.asarray(column.cat.categories)[uniq]
        levels.append(uniq)
        kinds.append(kind)
    return _Encoded([str(c) for c in X.columns], codes, levels, kinds)


def _as_frame(X: Any, where: str = "X") -> pd.DataFrame:
    """Parameters as a DataFrame: a DataFrame as it is, a named Series as one column, a mapping
    of columns (or of one configuration's values), or an array (1-D: one parameter; 2-D: rows ×
    parameters, named ``x0``, ``x1``, …)."""
    if isinstance(X, pd.DataFrame):
        return X
    if isinstance(X, pd.Series):
        return X.to_frame(name=X.name if X.name is not None else "x0")
    if isinstance(X, Mapping):
        columns = any(pd.api.types.is_list_like(v) for v in X.values())
        return pd.DataFrame(X) if columns else pd.DataFrame([dict(X)])
    try:
        array = np.asarray(X)
    except (TypeError, ValueError) as exc:  # ragged rows
        raise InputError(f"the parameters are not a table ({exc})", where=where,
                         hint="pass a DataFrame with one column per parameter") from exc
    if array.ndim == 0:
        raise _not_a_table(X, where)
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2:
        raise InputError(f"the parameters must be a 2-D table (rows × parameters), got an array of "
                         f"shape {array.shape}", where=where,
                         hint="pass a DataFrame with one column per parameter")
    # an array of mixed types is all objects: numbers in it are still numbers (ordered parameters)
    return pd.DataFrame(array, columns=[f"x{j}" for j in range(array.shape[1])]).infer_objects()


#: What an estimator's seed may be besides None and a whole number (scikit-learn's random_state takes the like).
NUMPY_SEEDS = Instances((np.random.Generator, np.random.SeedSequence), "a numpy Generator or SeedSequence")


def _rng(seed: Any, where: str) -> np.random.Generator:
    """``numpy.random.default_rng(seed)`` for a seed :func:`check_seed` accepts (or a numpy generator), named
    as the caller's parameter."""
    if NUMPY_SEEDS.accepts(seed):
        return np.random.default_rng(seed)
    return np.random.default_rng(check_seed(seed, where))


def _not_a_table(X: Any, where: str) -> InputError:
    return InputError(f"the parameters must be a table (rows × parameters), got {type(X).__name__}",
                      where=where, hint="pass a DataFrame with one column per parameter (of a Dataset: its .X)")


def _validate_xy(X: Any, y: Any) -> tuple[pd.DataFrame, np.ndarray]:
    X = _as_frame(X)
    if X.shape[1] == 0:
        raise InputError("X has no parameter columns", where="X",
                         hint="pass one column per tuning parameter")
    if X.columns.has_duplicates:
        raise InputError("duplicate parameter names", where="X", hint="rename the columns")
    # object columns that hold only numbers (or only booleans) are ordered parameters, not categories
    if any(dtype == object for dtype in X.dtypes):  # noqa: E721  (pandas dtypes compare to object)
        X = X.infer_objects()
        for name in X.columns[X.dtypes == object]:  # noqa: E721
            # a list or a dict is no setting of a parameter: as text "[1]" it would split like one
            held = X[name].map(lambda v: isinstance(v, (list, dict, set, tuple, np.ndarray))).to_numpy(dtype=bool)
            if held.any():
                row = int(np.argmax(held))
                raise InputError(f"parameter column {name!r} holds a {type(X[name].iloc[row]).__name__} at row {row}: "
                                 "a tree splits one value per parameter", where="X",
                                 hint="give each parameter one number or string per sample (split a tuple-valued "
                                      "parameter into one column per element)")
    try:
        y_arr = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"the response is not numeric ({exc})", where="y",
                         hint="pass one number per sample") from exc
    if y_arr.ndim > 1 and sum(size > 1 for size in y_arr.shape) > 1:
        raise InputError(f"the response must be one value per sample, got an array of shape {y_arr.shape}",
                         where="y", hint="fit one metric at a time, e.g. y = data['time']")
    y_arr = y_arr.reshape(-1)
    if len(y_arr) != len(X):
        raise InputError(f"X has {len(X)} rows but y has {len(y_arr)} values", where="y",
                         hint="pass one response value per row of X")
    if len(y_arr) == 0:
        raise InputError("no samples to fit", where="X", hint="pass at least one sample")
    if not np.isfinite(y_arr).all():
        bad = int(np.flatnonzero(~np.isfinite(y_arr))[0])
        raise InputError(f"the response has a missing or infinite value at row {bad}", where="y",
                         hint="drop failed configurations first (e.g. Dataset.ok())")
    return X, y_arr


#: What each hyperparameter of a tree accepts, and what to do otherwise (shared with the forest).
TREE_CONSTRAINTS: dict[str, tuple[Constraint, ...]] = {
    "threshold": (Interval(float, 0, None),),
    "min_samples_split": (Interval(int, 2, None),),
    "max_depth": (None, Interval(int, 0, None)),
}
TREE_HINTS = {"threshold": "use 0 (the paper's default) or a small value",
              "min_samples_split": "the R tool's default is 10", "max_depth": "leave it unset for no limit"}


class StarchartTree(Validated):
    """Starchart recursive-partitioning regression tree (scikit-learn style).

    Parameters
    ----------
    threshold:
        A node is split only when the best split reduces its SSE by more than this
        (the paper's *threshold*; 0 splits while any parameter explains variation).
    min_samples_split:
        Nodes with fewer samples are not split (the R tool's ``splittable``, default 10).
    max_depth:
        Optional limit on the depth of the tree (the root has depth 0).
    leaf_model:
        What a leaf predicts: ``"mean"`` (the paper's tree) or ``"linear"``: a least-squares line in the
        numeric parameters that vary within the leaf, clipped to the leaf's range of responses
        (:mod:`starchart.tree._leaves`; a leaf with too few designs keeps its mean). The splits are the
        same either way.

    Attributes (after ``fit``)
    --------------------------
    tree_ : TreeArrays              the grown tree as parallel arrays (fast to walk)
    nodes_ : list[TreeNode]         every node, root first (``nodes_[0]``)
    leaves_ : list[Subspace]        the leaves as regions of the space, left to right
    importance_ : pandas.Series     SSE reduction attributed to each parameter
    feature_names_in_ : list[str]   parameter names in column order
    param_kinds_ : dict             "ordered" or "categorical" per parameter
    values_ : dict                  the distinct training values of each parameter, sorted
    """

    _parameter_constraints = {**TREE_CONSTRAINTS, "leaf_model": (Options("mean", "linear"),)}
    _parameter_hints = {**TREE_HINTS, "leaf_model": "'linear' fits a line per leaf, 'mean' is the paper's"}

    def __init__(self, threshold: float = 0.0, min_samples_split: int = 10,
                 max_depth: int | None = None, leaf_model: str = "mean"):
        self.threshold = threshold
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.leaf_model = leaf_model

    # ------------------------------------------------------------------ fitting
    def fit(self, X: pd.DataFrame, y: Any) -> "StarchartTree":
        """Grow the tree on parameters ``X`` (one column per parameter) and response ``y``."""
        params = self._validate_params()
        X, y_arr = _validate_xy(X, y)
        enc = _encode(X)
        n_levels = np.array([len(lv) for lv in enc.levels], dtype=np.int64)
        categorical = np.array([kind == "categorical" for kind in enc.kinds], dtype=bool)
        arrays = grow_tree(enc.codes, n_levels, categorical, y_arr, params["threshold"],
                           params["min_samples_split"], params["max_depth"])
        self._set_fitted(enc.names, dict(zip(enc.names, enc.kinds)),
                         {name: lv.tolist() for name, lv in zip(enc.names, enc.levels)},
                         arrays)
        if params["leaf_model"] == "linear":
            columns = self._numeric_columns()
            leaf = self.apply(X)
            self._set_leaf_lines(columns, fit_linear_leaves(_numeric(X, columns), y_arr, leaf, arrays.node_count))
        return self

    def _numeric_columns(self) -> list[str]:
        """The parameters a linear leaf may use: ordered ones whose values are numbers."""
        return [name for name in self.feature_names_in_ if self.param_kinds_[name] == "ordered"
                and all(isinstance(v, (int, float, np.number)) for v in self.values_[name])]

    def _set_leaf_lines(self, columns: list[str], coef: np.ndarray) -> None:
        self.leaf_columns_ = columns
        self.leaf_coef_ = coef

    def _set_fitted(self, names: list[str], kinds: dict[str, ParamKind],
                    values: dict[str, list[Any]], arrays: TreeArrays) -> None:
        self.feature_names_in_ = names
        self.param_kinds_ = kinds
        self.values_ = values
        self.tree_ = arrays
        self.n_samples_ = int(arrays.n_samples[0])
        self._cache: dict[str, Any] = {}

    def _check_fitted(self) -> None:
        if not hasattr(self, "tree_"):
            raise NotFittedError("this StarchartTree is not fitted yet",
                                 hint="call fit(X, y) before using it")

    def _cached(self, key: str, build: Any) -> Any:
        self._check_fitted()
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    # --------------------------------------------------------------- prediction
    def apply(self, X: pd.DataFrame) -> np.ndarray:
        """Return the id of the leaf each row of ``X`` falls into."""
        self._check_fitted()
        return walk(self._routing(), self._positions(self._check_columns(X)))

    def _routing(self) -> tuple[Any, ...]:
        """The arrays :func:`starchart.tree._walk.walk` routes rows with."""
        def build() -> tuple[Any, ...]:
            t = self.tree_
            categorical_node, keys, width = self._left_keys()
            inner = t.feature >= 0
            majority_left = np.zeros(t.node_count, dtype=bool)
            majority_left[inner] = t.n_samples[t.left[inner]] >= t.n_samples[t.right[inner]]
            kind = np.full(t.node_count, ORDERED, dtype=np.int8)
            kind[inner & self._ordered_by_position()[np.maximum(t.feature, 0)]] = BY_POSITION
            kind[categorical_node] = CATEGORICAL
            return (t.feature.astype(np.int64), self._thresholds().astype(np.float64), t.left.astype(np.int64),
                    t.right.astype(np.int64), kind, keys.astype(np.int64), int(width), majority_left)
        return self._cached("routing", build)

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """Predict each row of ``X`` as the mean response of its leaf (with ``leaf_model="linear"``: by its
        leaf's line, where the leaf has one)."""
        leaf = self.apply(X)
        mean = self.tree_.mean[leaf]
        if getattr(self, "leaf_coef_", None) is None:
            return mean
        t = self.tree_
        lines = predict_linear_leaves(self.leaf_coef_, leaf, _numeric(self._check_columns(X), self.leaf_columns_),
                                      t.min, t.max)
        return np.where(np.isnan(lines), mean, lines)

    def _thresholds(self) -> np.ndarray:
        """Per node, the largest position that goes left (NaN for leaves and categorical splits).

        That is the last value of the left side (the R tool's rule), or, for a tree that
        recorded where its right side begins (``tree_.right_low``: a forest's trees),
        halfway between the two sides: geometrically for positive numbers (tuning
        parameters are mostly powers of two), by position otherwise.
        """
        def build() -> np.ndarray:
            t = self.tree_
            out = np.full(t.node_count, np.nan)
            numeric: dict[str, bool] = {}  # decided once per parameter, not once per node
            for node in np.flatnonzero(t.feature >= 0):
                name = self.feature_names_in_[t.feature[node]]
                if self.param_kinds_[name] == "ordered":
                    levels = self.values_[name]
                    if name not in numeric:
                        numeric[name] = _is_numeric_levels(levels)
                    # the split value: the level itself, or its position for an ordered categorical
                    cut = int(t.cut[node])
                    out[node] = float(levels[cut]) if numeric[name] else float(cut)
                    if t.right_low is not None and t.right_low[node] >= 0:  # halfway to the right side
                        upper = int(t.right_low[node])
                        high = float(levels[upper]) if numeric[name] else float(upper)
                        low = out[node]
                        geometric = numeric[name] and low > 0 and high > 0
                        out[node] = np.sqrt(low * high) if geometric else 0.5 * (low + high)
            return out
        return self._cached("thresholds", build)

    def _ordered_by_position(self) -> np.ndarray:
        """Per parameter: ordered, but compared by level position (not numeric: an ordered
        categorical of strings), so that an unseen value has position −1."""
        return self._cached("by_position", lambda: np.array(
            [self.param_kinds_[name] == "ordered" and not _is_numeric_levels(self.values_[name])
             for name in self.feature_names_in_], dtype=bool))

    def _left_keys(self) -> tuple[np.ndarray, np.ndarray, int]:
        """Per node, whether it splits a categorical parameter; the sorted keys
        ``node · width + code`` of the level codes such splits send left; and ``width``.

        One sorted array answers every (node, level) question at once, also for trees with
        thousands of categorical splits or levels (a dense node × level table would not fit).
        """
        def build() -> tuple[np.ndarray, np.ndarray, int]:
            t = self.tree_
            width = 1 + max((len(v) for v in self.values_.values()), default=0)
            categorical_node = np.zeros(t.node_count, dtype=bool)
            keys = [np.zeros(0, dtype=np.int64)]
            for node, levels in t.left_levels.items():
                categorical_node[node] = True
                keys.append(int(node) * width + np.asarray(levels, dtype=np.int64))
            return categorical_node, np.sort(np.concatenate(keys)), width
        return self._cached("left_keys", build)

    def _positions(self, X: pd.DataFrame) -> np.ndarray:
        """A float matrix that compares with the thresholds: raw values of numeric
        parameters, level positions of the others (−1 where unseen)."""
        names = self.feature_names_in_
        for name in names:  # fit() refuses missing values too; NaN would go right at every split
            if X[name].hasnans:  # known at once for an integer column
                raise InputError(f"parameter column {name!r} has a missing value "
                                 f"(row {int(np.argmax(X[name].isna().to_numpy()))})",
                                 where="X", hint="fill or drop the rows with missing parameter values")
        numeric = [self.param_kinds_[name] == "ordered" and _is_numeric_levels(self.values_[name]) for name in names]
        if all(numeric):  # one conversion, no copy: a third of a prediction's time when done column by column
            try:
                return X[names].to_numpy(dtype=np.float64)
            except (TypeError, ValueError):  # a column that is no number: found and named below
                pass
        out = np.empty((len(X), len(names)))
        for j in (j for j, is_numeric in enumerate(numeric) if is_numeric):
            out[:, j] = self._numeric_column(X[names[j]], names[j])
        for j, name in enumerate(names):
            if not numeric[j]:
                levels = pd.Index([str(v) for v in self.values_[name]])
                out[:, j] = levels.get_indexer(X[name].astype(str))
        return out

    @staticmethod
    def _numeric_column(column: pd.Series, name: str) -> np.ndarray:
        try:
            return column.to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InputError(f"parameter {name!r} must be numeric ({exc})", where=name,
                             hint="pass the kind of values the tree was fitted on") from exc

    def _check_columns(self, X: Any) -> pd.DataFrame:
        names = self.feature_names_in_
        if not isinstance(X, (pd.DataFrame, pd.Series, Mapping)):
            try:
                array = np.asarray(X)
            except (TypeError, ValueError) as exc:  # ragged rows
                raise InputError(f"the parameters are not a table ({exc})", where="X",
                                 hint=f"pass a table with the columns {names}") from exc
            if array.ndim == 0:
                raise _not_a_table(X, "X")
            if array.ndim == 1 and len(names) == 1:
                array = array.reshape(-1, 1)
            if array.ndim != 2 or array.shape[1] != len(names):
                shape = "×".join(map(str, array.shape)) or "scalar"
                raise InputError(f"the tree was fitted on {len(names)} parameter(s) but X is an array of "
                                 f"shape {shape}", where="X",
                                 hint=f"pass a table with the columns {names} (one row per configuration; "
                                      "a DataFrame may have them in any order)")
            return pd.DataFrame(array, columns=names)
        X = _as_frame(X)
        if not all(isinstance(c, str) for c in X.columns):
            # fit() names parameters str(column) (e.g. 0 -> "0"); look them up the same way
            X = X.set_axis([str(c) for c in X.columns], axis=1)
        missing = [name for name in names if name not in X.columns]
        if missing:
            raise InputError(f"missing parameter column(s) {missing}", where="X",
                             hint=f"the tree was fitted on {names}; for one configuration pass a "
                                  "one-row DataFrame (or a dict of its values)")
        return X

    # ------------------------------------------------------------ interpretation
    @property
    def nodes_(self) -> list[TreeNode]:
        return self._cached("nodes", self._build_nodes)

    @property
    def leaves_(self) -> list[Subspace]:
        return self._cached("leaves", self._build_leaves)

    @property
    def importance_(self) -> pd.Series:
        return self._cached("importance", self.importance)

    @property
    def root_(self) -> TreeNode:
        return self.nodes_[0]

    @property
    def n_leaves_(self) -> int:
        self._check_fitted()
        return int(np.sum(self.tree_.feature < 0))

    @property
    def depth_(self) -> int:
        self._check_fitted()
        return int(self.tree_.depth.max())

    def _build_nodes(self) -> list[TreeNode]:
        t = self.tree_
        nodes = []
        for i in range(t.node_count):
            n = int(t.n_samples[i])
            node = TreeNode(i, int(t.depth[i]), None if t.parent[i] < 0 else int(t.parent[i]), n,
                            float(t.mean[i]), float(t.sse[i]),
                            float(np.sqrt(t.sse[i] / (n - 1))) if n > 1 else 0.0,
                            float(t.min[i]), float(t.max[i]))
            if t.feature[i] >= 0:
                name = self.feature_names_in_[t.feature[i]]
                node.feature = name
                node.left, node.right = int(t.left[i]), int(t.right[i])
                node.improvement = float(t.improvement[i])
                if i in t.left_levels:
                    node.left_levels = [self.values_[name][c] for c in t.left_levels[i]]
                    node.right_levels = [self.values_[name][c] for c in self._right_codes(i)]
                else:
                    node.threshold = float(self._thresholds()[i])
            nodes.append(node)
        return nodes

    def _right_codes(self, node_id: int) -> list[int]:
        """Level codes that a categorical split sends right among those its path lets reach it
        (an earlier split on the same parameter may have sent some levels elsewhere)."""
        reach = self._cached("reach", self._categorical_reach)[node_id]
        return np.setdiff1d(reach, self.tree_.left_levels[node_id]).tolist()

    def _categorical_reach(self) -> dict[int, np.ndarray]:
        """Per categorical split, the level codes that its path lets reach it.

        Each split looks up only the nearest earlier split on its parameter (whose side already
        holds what the earlier ones let through), so thousands of splits over thousands of levels
        cost one set operation each.
        """
        t = self.tree_
        reach: dict[int, np.ndarray] = {}
        for node in sorted(t.left_levels):  # parents before children
            j = int(t.feature[node])
            child, above = node, int(t.parent[node])
            while above >= 0 and not (above in t.left_levels and t.feature[above] == j):
                child, above = above, int(t.parent[above])
            if above < 0:
                reach[node] = np.arange(len(self.values_[self.feature_names_in_[j]]))
            elif t.left[above] == child:
                reach[node] = np.intersect1d(reach[above], t.left_levels[above])
            else:
                reach[node] = np.setdiff1d(reach[above], t.left_levels[above])
        return reach

    def _build_leaves(self) -> list[Subspace]:
        """Every leaf as the region of the space that its path allows, left to right."""
        t = self.tree_
        # Allowed value codes per parameter, propagated top-down (children follow parents).
        regions: list[dict[int, np.ndarray]] = [dict() for _ in range(t.node_count)]
        # Numeric parameters also keep the interval (low, high] the thresholds leave, as apply() routes.
        intervals: list[dict[str, tuple[float | None, float | None]]] = [dict() for _ in range(t.node_count)]
        thresholds = self._thresholds()
        for node in np.flatnonzero(t.feature >= 0):  # parents come before their children
            j = int(t.feature[node])
            name = self.feature_names_in_[j]
            codes = regions[node].get(j, np.arange(len(self.values_[name])))
            if node in t.left_levels:
                left_mask = np.isin(codes, t.left_levels[node])
            else:
                left_mask = codes <= t.cut[node]
            for child, mask in ((t.left[node], left_mask), (t.right[node], ~left_mask)):
                regions[child] = {**regions[node], j: codes[mask]}
                intervals[child] = dict(intervals[node])
            if node not in t.left_levels and _is_numeric_levels(self.values_[name]):
                low, high = intervals[node].get(name, (None, None))
                intervals[t.left[node]][name] = (low, float(thresholds[node]))
                intervals[t.right[node]][name] = (float(thresholds[node]), high)
        nodes = self.nodes_
        leaves = []
        for node in self._leaf_order():
            allowed = {self.feature_names_in_[j]: [self.values_[self.feature_names_in_[j]][c]
                                                   for c in regions[node][j]]
                       for j in sorted(regions[node])}
            info = nodes[node]
            leaves.append(Subspace(int(node), info.n_samples, info.mean, info.std, info.min,
                                   info.max, allowed, self._describe(allowed), intervals[node]))
        return leaves

    def _leaf_order(self, node_id: int = 0) -> list[int]:
        """Leaf ids under ``node_id`` from left to right."""
        t = self.tree_
        out, stack = [], [node_id]
        while stack:
            node = stack.pop()
            if t.feature[node] < 0:
                out.append(node)
            else:
                stack.extend([int(t.right[node]), int(t.left[node])])
        return out

    def path(self, node_id: "int | TreeNode | Subspace") -> list[TreeNode]:
        """The nodes from the root down to ``node_id`` (both included; a node or leaf also does)."""
        nodes = self.nodes_
        node_id = self._check_node(node_id)
        chain = [nodes[node_id]]
        while chain[-1].parent is not None:
            chain.append(nodes[chain[-1].parent])
        return chain[::-1]

    def _check_node(self, node_id: Any) -> int:
        """The id of one of this tree's nodes — given as an id, a :class:`TreeNode` or a leaf's
        :class:`Subspace` — or a clear error (a negative id would count from the end)."""
        self._check_fitted()
        if isinstance(node_id, TreeNode):
            node_id = node_id.id
        elif isinstance(node_id, Subspace):
            node_id = node_id.node_id
        count = int(self.tree_.node_count)
        if isinstance(node_id, bool) or not isinstance(node_id, (int, np.integer)) or not 0 <= node_id < count:
            raise InputError(f"no node {node_id!r}: this tree's nodes are 0…{count - 1}", where="node_id",
                             hint="use a TreeNode's id (tree.nodes_) or a Subspace's node_id (tree.leaves_)")
        return int(node_id)

    def _describe(self, allowed: dict[str, list[Any]]) -> str:
        parts = []
        for name, keep in allowed.items():
            everything = self.values_[name]
            if len(keep) == 1:
                parts.append(f"{name} = {_fmt(keep[0])}")
            elif self.param_kinds_[name] == "categorical":
                parts.append(f"{name} ∈ {{{', '.join(_fmt(v) for v in keep)}}}")
            else:
                low_open = keep[0] != everything[0]
                high_open = keep[-1] != everything[-1]
                below = everything[everything.index(keep[0]) - 1] if low_open else None
                if low_open and high_open:
                    parts.append(f"{_fmt(below)} < {name} ≤ {_fmt(keep[-1])}")
                elif low_open:
                    parts.append(f"{name} > {_fmt(below)}")
                else:
                    parts.append(f"{name} ≤ {_fmt(keep[-1])}")
        return " ∧ ".join(parts) if parts else "all designs"

    def importance(self, node_id: "int | TreeNode | Subspace" = 0, normalize: bool = False) -> pd.Series:
        """SSE reduction per parameter over the subtree rooted at ``node_id`` (an id, a node or a leaf).

        The whole tree (``node_id=0``) gives the global ranking the paper reads off the
        top splits; a deeper node gives the importance *within that subspace*.
        """
        node_id = self._check_node(node_id)  # also checks that the tree is fitted
        t = self.tree_
        inside = np.zeros(t.node_count, dtype=bool)
        inside[node_id] = True
        for node in range(node_id + 1, t.node_count):  # children follow their parents
            inside[node] = inside[t.parent[node]]
        split = inside & (t.feature >= 0)
        totals = np.bincount(t.feature[split], weights=t.improvement[split],
                             minlength=len(self.feature_names_in_)).astype(float)  # float also with no split
        series = pd.Series(totals, index=self.feature_names_in_, name="sse_reduction")
        if normalize and series.sum() > 0:
            series = series / series.sum()
        return series

    def best_leaf(self, minimize: bool = True, stat: str = "mean") -> Subspace:
        """The leaf with the best ``stat``: "mean", "max" (worst case when minimizing) or "min"."""
        if stat not in ("mean", "max", "min"):
            raise InputError(f"unknown stat {stat!r}", where="stat", hint="use 'mean', 'max' or 'min'")
        leaves = self.leaves_
        key = [getattr(leaf, stat) for leaf in leaves]
        return leaves[int(np.argmin(key) if minimize else np.argmax(key))]

    def leaves_frame(self) -> pd.DataFrame:
        """The leaves as a table: description, sample count and statistics."""
        # not dataclasses.asdict: it deep-copies each leaf's allowed values, to leave them out (0.6 s on 1,000 leaves)
        names = [f.name for f in fields(Subspace) if f.name not in ("allowed", "bounds")]
        return pd.DataFrame([{name: getattr(leaf, name) for name in names} for leaf in self.leaves_], columns=names)

    # --------------------------------------------------------------- exporting
    def export_text(self, decimals: int = 4, max_depth: int | None = None, top_splits: int | None = None,
                    minimize: bool = True) -> str:
        """An indented text rendering of the tree (see :mod:`starchart.tree._text`).

        ``max_depth`` shows the splits above that depth; ``top_splits=K`` only the K splits that reduce the
        squared error most, with the path to the best leaf (lowest mean when ``minimize``, else highest) and
        the splits above them: a deep tree read by importance, not by depth. A hidden split's node says how
        many nodes lie below it.

        >>> import pandas as pd
        >>> X = pd.DataFrame({"tpp": [1, 1, 1, 1, 8, 8, 8, 8], "ppb": [1, 2, 1, 2, 1, 2, 1, 2]})
        >>> tree = StarchartTree(min_samples_split=2).fit(X, [30, 30.1, 30, 30.1, 1, 1.2, 1, 1.2])
        >>> print(tree.export_text(decimals=3, top_splits=1))
        [0] all designs  n=8  mean=15.6
        ├── tpp = 1  [1] n=4  mean=30.1  (+2 nodes below)
        └── tpp = 8  [2] n=4  mean=1.1
            ├── ppb = 1  [5] leaf  n=2  mean=1
            └── ppb = 2  [6] leaf  n=2  mean=1.2
        """
        self._check_fitted()
        _check_render_options(decimals, max_depth, top_splits)
        return tree_to_text(self, decimals=decimals, max_depth=max_depth, top_splits=top_splits,
                            minimize=bool(minimize))

    def to_dot(self, decimals: int = 4, max_depth: int | None = None, top_splits: int | None = None,
               minimize: bool = True) -> str:
        """Graphviz DOT source of the tree (see :mod:`starchart.tree._graphviz`); ``max_depth``, ``top_splits``
        and ``minimize`` as for :meth:`export_text`."""
        self._check_fitted()
        _check_render_options(decimals, max_depth, top_splits)
        return tree_to_dot(self, decimals=decimals, max_depth=max_depth, top_splits=top_splits,
                           minimize=bool(minimize))

    def to_json(self) -> str:
        """Serialise the fitted tree (hyper-parameters, node arrays, training values) as JSON."""
        self._check_fitted()
        t = self.tree_
        arrays = {key: getattr(t, key).tolist() for key in _ARRAY_FIELDS}
        payload = {
            "format": "starchart-tree",
            "version": 1,
            "params": self.get_params(),
            "feature_names": self.feature_names_in_,
            "param_kinds": self.param_kinds_,
            "values": self.values_,
            "arrays": arrays,
            "left_levels": {str(k): v.tolist() for k, v in t.left_levels.items()},
        }
        if t.right_low is not None:  # a forest's tree: its splits sit halfway between the sides
            payload["right_low"] = t.right_low.tolist()
        if getattr(self, "leaf_coef_", None) is not None:
            payload["leaf_lines"] = {"columns": self.leaf_columns_,
                                     "coef": [None if np.isnan(row[0]) else row.tolist() for row in self.leaf_coef_]}
        return json.dumps(payload, default=_json_default)

    @classmethod
    def from_json(cls, text: str) -> "StarchartTree":
        """Rebuild a fitted tree from :meth:`to_json` output."""
        try:
            payload = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg}, line {exc.lineno})", where="tree JSON",
                             hint="pass the text produced by StarchartTree.to_json()") from exc
        if not isinstance(payload, dict) or payload.get("format") != "starchart-tree":
            raise InputError("not a Starchart tree", where="tree JSON",
                             hint="pass the text produced by StarchartTree.to_json()")
        try:
            tree = cls(**payload["params"])
            arrays = TreeArrays(**{key: np.asarray(payload["arrays"][key]) for key in _ARRAY_FIELDS},
                                left_levels={int(k): np.asarray(v, dtype=np.int64)
                                             for k, v in payload["left_levels"].items()},
                                right_low=(np.asarray(payload["right_low"], dtype=np.int64)
                                           if "right_low" in payload else None))
            names = list(payload["feature_names"])
            kinds, values = dict(payload["param_kinds"]), dict(payload["values"])
            if not all(name in kinds and name in values for name in names):
                raise KeyError("a parameter's kind or values")
            tree._set_fitted(names, kinds, values, arrays)
            if "leaf_lines" in payload:
                lines = payload["leaf_lines"]
                width = 1 + len(lines["columns"])
                coef = np.array([[np.nan] * width if row is None else row for row in lines["coef"]], dtype=float)
                tree._set_leaf_lines(list(lines["columns"]), coef.reshape(-1, width))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            missing = f"no {exc.args[0]!r}" if isinstance(exc, KeyError) and exc.args else str(exc)
            raise InputError(f"incomplete or damaged Starchart tree ({missing})", where="tree JSON",
                             hint="pass the whole text produced by StarchartTree.to_json()") from exc
        return tree

    def __repr__(self) -> str:
        fitted = f" [{self.n_leaves_} leaves]" if hasattr(self, "tree_") else ""
        return super().__repr__() + fitted


def best_leaf_per_group(tree: StarchartTree, frame: pd.DataFrame, groups: pd.Series, response: Any, *,
                        minimize: bool = True, min_samples: int = 3) -> dict[Any, tuple[int, float, int]]:
    """Per group of rows (a platform, an input size), the leaf of ``tree`` where that group's own responses are
    best on average, among the leaves holding at least ``min_samples`` of its rows: ``{group: (leaf id, mean,
    rows)}``. A group with no such leaf is left out. The leaves of a tree over several platforms or inputs that
    the paper's Fig. 8 shades.

    >>> X = pd.DataFrame({"gpu": ["a"] * 4 + ["b"] * 4, "bx": [1, 1, 2, 2] * 2})
    >>> y = np.array([1.0, 1.1, 3.0, 3.1, 5.0, 5.2, 2.0, 2.1])
    >>> tree = StarchartTree(min_samples_split=2).fit(X, y)
    >>> {g: (leaf, round(mean, 2), n) for g, (leaf, mean, n) in
    ...  best_leaf_per_group(tree, X, X["gpu"], y, min_samples=2).items()}
    {'a': (3, 1.05, 2), 'b': (6, 2.05, 2)}
    """
    rows = pd.DataFrame({"group": np.asarray(groups), "leaf": tree.apply(frame[tree.feature_names_in_]),
                         "y": np.asarray(response, dtype=float)})
    stats = rows.groupby(["group", "leaf"], sort=True)["y"].agg(["mean", "size"])
    stats = stats[stats["size"] >= min_samples]
    picked = stats.groupby(level="group", sort=False)["mean"].idxmin() if minimize else \
        stats.groupby(level="group", sort=False)["mean"].idxmax()
    return {group: (int(key[1]), float(stats.loc[key, "mean"]), int(stats.loc[key, "size"]))
            for group, key in picked.items()}


def _numeric(X: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """The ``columns`` of ``X`` as floats (booleans as 0 / 1), rows × columns."""
    return X[columns].to_numpy(dtype=float) if columns else np.zeros((len(X), 0))


_ARRAY_FIELDS = ("parent", "depth", "n_samples", "mean", "sse", "min", "max", "feature", "cut",
                 "left", "right", "improvement")


def _check_render_options(decimals: Any, max_depth: Any, top_splits: Any = None) -> None:
    """The options of ``export_text`` and ``to_dot``, checked before they reach a format string."""
    check("decimals", decimals, Interval(int, 0, None), hint="4 significant digits is the default")
    check("max_depth", max_depth, None, Interval(int, 0, None),
          hint="leave it unset to show the whole tree, 0 shows the root alone")
    check("top_splits", top_splits, None, Interval(int, 1, None),
          hint="e.g. 3: the three splits that explain most, and the way to the best leaf")


def _is_numeric_levels(values: list[Any]) -> bool:
    return all(isinstance(v, (int, float, bool, np.number)) for v in values)



_fmt = format_value


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot serialise {type(value).__name__}")


def check_tree_options(options: Mapping[str, Any] | None, where: str = "tree_options") -> dict[str, Any]:
    """Keyword arguments for :class:`StarchartTree`, checked: an unknown name is a clear error.

    >>> check_tree_options({"min_samples_split": 2})
    {'min_samples_split': 2}
    >>> check_tree_options({"max_deph": 3})
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: tree_options: unknown tree option 'max_deph' (hint: the options are threshold, min_samples_split, max_depth, leaf_model)
    """
    options = dict(options or {})
    known = ("threshold", "min_samples_split", "max_depth", "leaf_model")
    for name in options:
        if name not in known:
            raise InputError(f"unknown tree option {name!r}", where=where, hint=f"the options are {', '.join(known)}")
    return options
