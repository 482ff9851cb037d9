"""Static XAPP: classify the GPU speedup of a CPU kernel into user-given ranges.

The thesis's model (§4.3, ch. 6): discretise the 10 static features into levels
(:class:`~starchart.xapp.discretize.Discretizer`), discretise the measured speedups by
the user's cutoffs (``cutoffs=(3,)`` gives "<= 3" and "> 3"), and fit a random forest
of 1000 trees that tries 3 features per split with leaves grown down to one kernel
(nodesize 1).  The forest predicts by majority of the trees' votes.

Choices here, where the thesis leaves room:

- split criterion: entropy (information gain, the ID3 rule of §4.3.3);
- the forest's answer is the range with the most tree votes (R randomForest, which
  the thesis used, also takes hard votes); a tie goes to the lower range, the
  conservative "not worth porting" answer.  :meth:`SpeedupRangeModel.predict_proba`
  gives scikit-learn's averaged leaf probabilities instead;
- a speedup equal to a cutoff belongs to the lower range: ranges are ``(lo, hi]``;
- :meth:`SpeedupRangeModel.loocv` refits the discretiser inside every fold, so the
  held-out kernel never influences the cut points it is judged by.

A saved model (:meth:`~SpeedupRangeModel.to_json`) holds the settings, the training
data and the seed, not the trees: loading refits the forest, which is deterministic
for a seed, and checks that the refit casts exactly the saved votes on the training
kernels.

Examples
--------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> X = pd.DataFrame(rng.random((40, len(FEATURES))), columns=FEATURES)
>>> speedup = np.where((X.coalesced > 0.5) & (X.parallelism > 0.5), 30.0, 1.0)
>>> model = SpeedupRangeModel(cutoffs=(3,), n_trees=50).fit(X, speedup)
>>> model.labels
['<= 3', '> 3']
>>> bool((model.predict(X) == model.classify(speedup)).mean() > 0.9)
True
>>> model.explain(max_depth=2).rules()[0]
(['coalesced = L (<= 0.5644)'], '<= 3', 512)
>>> model.loocv(X, speedup).accuracy > 0.8
True
"""

from __future__ import annotations

import copy
import itertools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._util.validation import SEED, Interval, Validated
from ..errors import InputError, NotFittedError, StarchartError, say
from .align import aligned_positive, feature_ranges
from .discretize import FEATURES, Discretizer, as_feature_frame
from .encoding import ContinuousEncoder, encoder_from_dict, explanation_vectors, make_encoder

_FORMAT = "starchart.xapp.SpeedupRangeModel"
#: ``explain`` enumerates every level combination; above this many it refuses.
MAX_GRID = 3 ** 10


def _sklearn():
    try:
        import sklearn.ensemble
        import sklearn.tree
    except ImportError:
        raise StarchartError("static XAPP needs scikit-learn",
                             hint='pip install scikit-learn (or pip install ".[xapp]" in the starchart source '
                                  'folder)') from None
    return sklearn


def range_labels(cutoffs: Sequence[float]) -> list[str]:
    """Readable names of the speedup ranges cut by ``cutoffs``: ``(lo, hi]`` each.

    Examples
    --------
    >>> range_labels((3, 20))
    ['<= 3', '3 – 20', '> 20']
    """
    c = [f"{float(x):.12g}" for x in cutoffs]
    return [f"<= {c[0]}"] + [f"{a} – {b}" for a, b in itertools.pairwise(c)] + [f"> {c[-1]}"]


def check_cutoffs(cutoffs: Any, where: str = "cutoffs") -> tuple[float, ...]:
    """Validate speedup cutoffs: at least one, finite, positive, strictly increasing."""
    try:
        values = tuple(float(c) for c in (cutoffs if isinstance(cutoffs, Sequence | np.ndarray) else [cutoffs]))
    except (TypeError, ValueError):
        raise InputError(f"cutoffs {cutoffs!r} are not numbers", where=where,
                         hint=f"give speedup cutoffs {say('such as (3,) or (3, 20)', 'such as 3 or 3,20')}") from None
    if not values:
        raise InputError("no cutoffs: at least one is needed to make 2 ranges", where=where,
                         hint=f"give speedup cutoffs {say('such as (3,) or (3, 20)', 'such as 3 or 3,20')}")
    if not all(np.isfinite(values)) or min(values) <= 0:
        raise InputError(f"cutoffs {values} must be finite positive speedups", where=where)
    if any(b <= a for a, b in itertools.pairwise(values)):
        raise InputError(f"cutoffs {values} are not strictly increasing", where=where,
                         hint=f"sort them and drop repeats, {say('e.g. (3, 20)', 'e.g. 3,20')}")
    return values


def _check_speedups(speedups: Any, index: pd.Index, where: str = "speedups") -> np.ndarray:
    """Speedups aligned with the feature rows: by index for a Series/dict, by position otherwise."""
    return aligned_positive(speedups, index, where, "speedup",
                            hint="speedup = CPU time / GPU time; drop kernels that were not measured")


@dataclass
class LoocvResult:
    """Leave-one-out cross-validation of a :class:`SpeedupRangeModel`.

    Attributes
    ----------
    table:
        One row per kernel: ``speedup``, ``measured`` and ``predicted`` range,
        ``correct``, ``vote_share`` (share of trees voting for the prediction).
    accuracy:
        Share of kernels whose range is predicted correctly.
    confusion:
        Counts, rows = measured range, columns = predicted range.
    ppv, npv:
        For 2 ranges only (else ``None``).  "Positive" is the upper range ``> cutoff``
        (worth porting): PPV = true positives / predicted positives, NPV = true
        negatives / predicted negatives; NaN when nothing was predicted in that class.
    wall_s:
        Seconds the whole cross-validation took.
    """

    table: pd.DataFrame
    accuracy: float
    confusion: pd.DataFrame
    labels: list[str]
    ppv: float | None = None
    npv: float | None = None
    wall_s: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        """A few lines to print."""
        text = f"LOOCV accuracy {self.accuracy:.1%} over {len(self.table)} kernels ({self.wall_s:.1f} s)"
        if self.ppv is not None:
            c = self.counts
            text += (f"\nPPV {self.ppv:.1%} ({c['tp']}/{c['tp'] + c['fp']}), "
                     f"NPV {self.npv:.1%} ({c['tn']}/{c['tn'] + c['fn']})")
        return text + "\n" + self.confusion.to_string()


def binary_scores(measured: Sequence[int], predicted: Sequence[int]) -> dict[str, float]:
    """TP/FP/TN/FN, PPV and NPV of two-range predictions; class 1 (upper range) is positive.

    Examples
    --------
    >>> s = binary_scores([1, 1, 0, 0, 0], [1, 0, 1, 0, 0])
    >>> s["tp"], s["fp"], s["tn"], s["fn"], s["ppv"], round(s["npv"], 3)
    (1, 1, 2, 1, 0.5, 0.667)
    """
    m, p = np.asarray(measured), np.asarray(predicted)
    tp, fp = int(((p == 1) & (m == 1)).sum()), int(((p == 1) & (m == 0)).sum())
    tn, fn = int(((p == 0) & (m == 0)).sum()), int(((p == 0) & (m == 1)).sum())
    return {"tp": tp, "fp": fp, "tn": tn, "fn": fn,
            "ppv": tp / (tp + fp) if tp + fp else float("nan"),
            "npv": tn / (tn + fn) if tn + fn else float("nan")}


@dataclass
class Explanation:
    """One readable decision tree that stands in for the forest (thesis Fig. 6.5).

    Attributes
    ----------
    tree:
        The fitted ``sklearn.tree.DecisionTreeClassifier`` on feature *levels*.
    fidelity:
        Share of all ``n_vectors`` discretised feature vectors on which the tree gives
        the forest's answer (1.0 for an unlimited tree).
    training_fidelity:
        The same share over the training kernels' feature vectors.
    n_vectors:
        Number of level combinations enumerated.
    """

    tree: Any
    fidelity: float
    training_fidelity: float
    n_vectors: int
    features: tuple[str, ...]
    labels: list[str]
    discretizer: Discretizer | ContinuousEncoder

    def _condition(self, feature: int, cut: float, left: bool, reachable: tuple[int, int]) -> str:
        """Words for ``level <= cut`` (left) or ``level > cut``, naming only levels that can reach here."""
        name = self.features[feature]
        if isinstance(self.discretizer, ContinuousEncoder):  # a value threshold, in the feature's own unit
            return f"{name} {'<=' if left else '>'} {self.discretizer.level_text(name, cut)}"
        names = self.discretizer.level_names(name)
        lo, hi, level = reachable[0], reachable[1], int(cut)
        side = names[lo:level + 1] if left else names[level + 1:hi + 1]
        raw = self.discretizer.cuts_[name][level]
        values = f"<= {raw:.4g}" if left else f"> {raw:.4g}"
        if len(side) == 1:
            return f"{name} = {side[0]} ({values})"
        return f"{name} in {{{', '.join(side)}}} ({values})"

    def to_dict(self) -> dict[str, Any]:
        """The tree as nested dicts.

        A split is ``{"feature", "cut_level", "condition_low", "condition_high", "low",
        "high"}`` (``low``: level <= ``cut_level``); a leaf is ``{"range", "n_vectors",
        "purity"}`` (purity: share of the leaf's vectors the forest puts in that range).
        Sibling leaves with the same range are merged: the split does not change the answer.
        """
        return copy.deepcopy(self._nodes())

    def _nodes(self) -> dict[str, Any]:
        if getattr(self, "_dict", None) is None:
            t = self.tree.tree_
            continuous = isinstance(self.discretizer, ContinuousEncoder)
            sizes = [1 if continuous else self.discretizer.n_levels(f) for f in self.features]  # type: ignore[union-attr]

            def node(i: int, reachable: list[tuple[int, int]]) -> dict[str, Any]:
                counts = t.value[i][0] * t.n_node_samples[i]  # sklearn >= 1.4 stores fractions
                if t.children_left[i] == -1:
                    k = int(np.argmax(counts))
                    return {"range": self.labels[int(self.tree.classes_[k])],
                            "n_vectors": int(t.n_node_samples[i]), "purity": float(counts[k] / counts.sum())}
                f = int(t.feature[i])
                # levels are ints, sklearn thresholds are j + 0.5; values keep the threshold
                cut = float(t.threshold[i]) if continuous else int(np.floor(t.threshold[i]))
                lo, hi = reachable[f]
                left_r, right_r = list(reachable), list(reachable)
                if not continuous:  # the levels each side can still hold
                    left_r[f], right_r[f] = (lo, int(cut)), (int(cut) + 1, hi)
                low, high = node(int(t.children_left[i]), left_r), node(int(t.children_right[i]), right_r)
                if "range" in low and "range" in high and low["range"] == high["range"]:
                    n = low["n_vectors"] + high["n_vectors"]
                    purity = (low["purity"] * low["n_vectors"] + high["purity"] * high["n_vectors"]) / n
                    return {"range": low["range"], "n_vectors": n, "purity": purity}
                return {"feature": self.features[f], "cut_level": cut,
                        "condition_low": self._condition(f, cut, True, reachable[f]),
                        "condition_high": self._condition(f, cut, False, reachable[f]),
                        "low": low, "high": high}

            self._dict = node(0, [(0, s - 1) for s in sizes])
        return self._dict

    def path(self, levels: Mapping[str, float]) -> tuple[list[str], str]:
        """Conditions met by one level-coded (or encoded, for a continuous model) feature vector,
        and the leaf's range."""
        node, conds = self._nodes(), []
        while "range" not in node:
            left = float(levels[node["feature"]]) <= node["cut_level"]
            conds.append(node["condition_low"] if left else node["condition_high"])
            node = node["low"] if left else node["high"]
        return conds, node["range"]

    def rules(self) -> list[tuple[list[str], str, int]]:
        """Root-to-leaf paths as ``(conditions, range, n_vectors)``, one per leaf."""
        out = []

        def walk(node: dict[str, Any], conds: list[str]) -> None:
            if "range" in node:
                out.append((conds, node["range"], node["n_vectors"]))
                return
            walk(node["low"], conds + [node["condition_low"]])
            walk(node["high"], conds + [node["condition_high"]])

        walk(self._nodes(), [])
        return out

    def text(self) -> str:
        """The tree as indented text, one line per node."""
        lines = [(f"# single tree for the forest: fidelity {self.fidelity:.1%} over {self.n_vectors} "
                  f"feature vectors, {self.training_fidelity:.1%} on training kernels")]

        def walk(node: dict[str, Any], depth: int) -> None:
            pad = "|   " * depth
            if "range" in node:
                lines[-1] += f"  ->  {node['range']}  [{node['n_vectors']} vectors, {node['purity']:.0%}]"
                return
            lines.append(f"{pad}{node['condition_low']}")
            walk(node["low"], depth + 1)
            lines.append(f"{pad}{node['condition_high']}")
            walk(node["high"], depth + 1)

        root = self._nodes()
        if "range" in root:
            lines.append(f"(every vector)  ->  {root['range']}")
        else:
            walk(root, 0)
        return "\n".join(lines)


class SpeedupRangeModel(Validated):
    """Random-forest classifier of GPU speedup ranges from static XAPP features.

    Parameters
    ----------
    cutoffs:
        Increasing speedups splitting the ranges; ``(3,)`` gives "<= 3" / "> 3".
    levels:
        Levels per feature for the :class:`Discretizer` (2, 3, a dict, or "auto"), or
        ``"continuous"``: the values themselves, counts as logs
        (:class:`~starchart.xapp.encoding.ContinuousEncoder`), not the thesis's choice.
    n_trees:
        Trees in the forest (thesis: 1000).
    max_features:
        Features tried per split (thesis: 3).
    seed:
        Random state of the forest; the same seed and data give the same forest.
    n_jobs:
        Processes scikit-learn grows trees with; does not change the result.
    features:
        The feature columns (default the 10 static XAPP features; add ``"host_steps"``,
        :data:`~starchart.xapp.encoding.EXTENDED_FEATURES`, for the launches around the band).
    """

    _parameter_constraints = {"n_trees": (Interval(int, 1, None),), "max_features": (Interval(int, 1, None),),
                              "n_jobs": (Interval(int, 1, None),), "seed": (SEED,)}
    _parameter_hints = {"n_trees": "the thesis grows 1000", "max_features": "the thesis tries 3",
                        "n_jobs": "1 grows the forest in this process", "seed": "e.g. 0"}

    def __init__(self, cutoffs: Sequence[float] = (3.0,), levels: int | str | Mapping[str, int] = 2,
                 n_trees: int = 1000, max_features: int = 3, seed: int = 0, n_jobs: int = 1,
                 features: Sequence[str] = FEATURES):
        # stored as given and checked in fit (scikit-learn's rule), the cutoffs also where they are used
        self.cutoffs = cutoffs
        self.levels = levels
        self.n_trees, self.max_features, self.n_jobs, self.seed = n_trees, max_features, n_jobs, seed
        self.features = tuple(features)
        #: The fitted encoder: a Discretizer (levels) or a ContinuousEncoder.
        self.discretizer_: Discretizer | ContinuousEncoder | None = None
        self.forest_: Any = None
        self._train: tuple[pd.DataFrame, np.ndarray] | None = None
        self._explained: dict[tuple, Explanation] = {}

    # ------------------------------------------------------------------ ranges
    @property
    def _cutoffs(self) -> tuple[float, ...]:
        return check_cutoffs(self.cutoffs)

    @property
    def labels(self) -> list[str]:
        """The names of the speedup ranges, lowest first (``"<= 3"``, ``"> 3"``)."""
        return range_labels(self._cutoffs)

    @property
    def range_table(self) -> pd.DataFrame:
        """Each range's label with its ``(lower, upper]`` speedup bounds (0 and inf at the ends)."""
        bounds = (0.0,) + self._cutoffs + (float("inf"),)
        return pd.DataFrame({"lower": bounds[:-1], "upper": bounds[1:]}, index=pd.Index(self.labels, name="range"))

    def classify(self, speedups: Any) -> pd.Series:
        """The range label of each measured speedup (a speedup equal to a cutoff goes below it)."""
        values = np.atleast_1d(np.asarray(speedups, dtype=float))
        codes = np.searchsorted(np.asarray(self._cutoffs), values, side="left")
        index = speedups.index if isinstance(speedups, pd.Series) else None
        return pd.Series(pd.Categorical.from_codes(codes, categories=self.labels, ordered=True), index=index)

    # ------------------------------------------------------------------ fitting
    def _new_forest(self, n_features: int):
        params = self._validate_params()
        sk = _sklearn()
        return sk.ensemble.RandomForestClassifier(
            n_estimators=params["n_trees"], max_features=min(params["max_features"], n_features),
            criterion="entropy", min_samples_leaf=1, bootstrap=True, random_state=params["seed"],
            n_jobs=params["n_jobs"])

    def fit(self, features: Any, speedups: Any) -> SpeedupRangeModel:
        """Learn cut points and the forest from training kernels.

        Parameters
        ----------
        features:
            DataFrame (one row per kernel, index = kernel names) or list of feature dicts.
        speedups:
            Measured GPU speedups: a Series/dict keyed like ``features`` or a sequence in row order.

        Raises
        ------
        InputError
            Missing feature columns, non-finite values, a speedup that is not positive,
            or fewer than two ranges present among the speedups; a hyperparameter out of range.
        """
        self._validate_params()
        make_encoder(self.levels, self.features)  # the levels, before the features are read
        frame = as_feature_frame(features, self.features)
        values = _check_speedups(speedups, frame.index)
        codes = np.searchsorted(np.asarray(self._cutoffs), values, side="left")
        present = np.unique(codes)
        if len(present) < 2:
            raise InputError(f"every training speedup is in range {self.labels[present[0]]!r}; "
                             "a classifier needs at least two ranges present", where="cutoffs",
                             hint=f"choose cutoffs inside the measured speedups ({values.min():.3g} .. "
                                  f"{values.max():.3g}) or add kernels from the other range(s)")
        self._fit_arrays(frame, values)
        return self

    def _fit_arrays(self, frame: pd.DataFrame, values: np.ndarray) -> None:
        """Fit without the class-count check (a LOOCV fold may hold one range only)."""
        disc = make_encoder(self.levels, self.features).fit(frame)
        X = disc.transform(frame).to_numpy(np.float32)
        codes = np.searchsorted(np.asarray(self._cutoffs), values, side="left")
        forest = self._new_forest(X.shape[1]).fit(X, codes)
        self.discretizer_, self.forest_ = disc, forest
        self._train = (frame.copy(), values.copy())
        self._explained = {}

    def _check_fitted(self) -> None:
        if self.forest_ is None:
            raise NotFittedError("this SpeedupRangeModel has not been fitted",
                                 hint="call fit(features, speedups) or load a saved model")

    # ------------------------------------------------------------------ predicting
    def _votes_levels(self, X: np.ndarray) -> np.ndarray:
        """Tree votes per range, shape (rows, ranges), for level-coded rows."""
        X = np.ascontiguousarray(X, dtype=np.float32)
        classes = self.forest_.classes_.astype(int)
        votes = np.zeros((len(X), len(self.labels)), dtype=np.int64)
        rows = np.arange(len(X))
        for tree in self.forest_.estimators_:
            # sub-trees predict indices into the forest's classes_
            k = tree.predict(X, check_input=False).astype(int)
            np.add.at(votes, (rows, classes[k]), 1)
        return votes

    def vote_share(self, features: Any) -> pd.DataFrame:
        """Share of trees voting for each range, one row per kernel (rows sum to 1)."""
        self._check_fitted()
        levels = self._encoder.transform(features)
        votes = self._votes_levels(levels.to_numpy())
        return pd.DataFrame(votes / len(self.forest_.estimators_), index=levels.index, columns=self.labels)

    def _majority(self, votes: np.ndarray) -> np.ndarray:
        return np.argmax(votes, axis=1)  # first maximum: ties go to the lower range

    def predict(self, features: Any) -> pd.Series:
        """Predicted range label per kernel (ordered categorical Series, index as the input)."""
        self._check_fitted()
        levels = self._encoder.transform(features)
        codes = self._majority(self._votes_levels(levels.to_numpy()))
        return pd.Series(pd.Categorical.from_codes(codes, categories=self.labels, ordered=True),
                         index=levels.index, name="predicted")

    def predict_proba(self, features: Any) -> pd.DataFrame:
        """scikit-learn's forest probabilities (mean of the trees' leaf class shares) per range."""
        self._check_fitted()
        levels = self._encoder.transform(features)
        proba = self.forest_.predict_proba(levels.to_numpy(np.float32))
        out = np.zeros((len(levels), len(self.labels)))
        out[:, self.forest_.classes_.astype(int)] = proba
        return pd.DataFrame(out, index=levels.index, columns=self.labels)

    @property
    def training_ranges(self) -> dict[str, list[float]]:
        """``{feature: [min, max]}`` over the training kernels (see :func:`~.align.outside_ranges`)."""
        self._check_fitted()
        return feature_ranges(self._training[0])

    @property
    def n_training(self) -> int:
        """How many kernels the model was trained on."""
        self._check_fitted()
        return len(self._training[1])

    # ------------------------------------------------------------------ evaluation
    def loocv(self, features: Any, speedups: Any,
              progress: Callable[[int, int], None] | None = None) -> LoocvResult:
        """Leave-one-out cross-validation (thesis §6.1.1): N forests, each on N - 1 kernels.

        Cut points are relearned in every fold.  ``progress(done, total)`` is called after each fold.
        """
        frame = as_feature_frame(features, self.features)
        values = _check_speedups(speedups, frame.index)
        measured = np.searchsorted(np.asarray(self._cutoffs), values, side="left")
        if len(np.unique(measured)) < 2:
            raise InputError("every speedup is in one range; LOOCV of a classifier needs two",
                             where="cutoffs", hint="choose cutoffs inside the measured speedups")
        if len(frame) < 3:
            raise InputError(f"LOOCV needs at least 3 kernels, got {len(frame)}", where="features")
        start = time.perf_counter()
        predicted, share = np.empty(len(frame), dtype=int), np.empty(len(frame))
        for i in range(len(frame)):
            keep = np.arange(len(frame)) != i
            fold = self._clone()
            fold._fit_arrays(frame.iloc[keep], values[keep])
            votes = fold._votes_levels(fold._encoder.transform(frame.iloc[[i]]).to_numpy())[0]
            predicted[i] = int(np.argmax(votes))
            share[i] = votes[predicted[i]] / votes.sum()
            if progress is not None:
                progress(i + 1, len(frame))
        wall = time.perf_counter() - start

        def cat(codes: np.ndarray) -> pd.Categorical:
            return pd.Categorical.from_codes(codes, categories=self.labels, ordered=True)

        table = pd.DataFrame({"speedup": values, "measured": cat(measured), "predicted": cat(predicted),
                              "correct": measured == predicted, "vote_share": share}, index=frame.index)
        confusion = pd.crosstab(table["measured"], table["predicted"], dropna=False)
        confusion = confusion.reindex(index=self.labels, columns=self.labels, fill_value=0)
        confusion.index.name, confusion.columns.name = "measured", "predicted"
        result = LoocvResult(table=table, accuracy=float(table["correct"].mean()), confusion=confusion,
                             labels=list(self.labels), wall_s=wall)
        if len(self.labels) == 2:
            scores = binary_scores(measured, predicted)
            result.ppv, result.npv = scores.pop("ppv"), scores.pop("npv")
            result.counts = scores
        return result

    def _clone(self) -> SpeedupRangeModel:
        return SpeedupRangeModel(self.cutoffs, self.levels, self.n_trees, self.max_features, self.seed,
                                 self.n_jobs, self.features)

    # ------------------------------------------------------------------ interpretation
    @property
    def _training(self) -> tuple[pd.DataFrame, np.ndarray]:
        """The training features and speedups; refuses an unfitted model."""
        if self._train is None:
            raise NotFittedError("this SpeedupRangeModel has not been fitted",
                                 hint="call fit(features, speedups) or load a saved model")
        return self._train

    @property
    def _encoder(self) -> Discretizer | ContinuousEncoder:
        """The fitted encoder (levels or values); refuses an unfitted model."""
        if self.discretizer_ is None:
            raise NotFittedError("this SpeedupRangeModel has not been fitted",
                                 hint="call fit(features, speedups) or load a saved model")
        return self.discretizer_

    @property
    def continuous(self) -> bool:
        """Whether the model reads feature values rather than levels."""
        return isinstance(self.discretizer_, ContinuousEncoder) or self.levels == "continuous"

    def level_grid(self) -> pd.DataFrame:
        """Every combination of feature levels (the discretised "program space").

        For a continuous model: :data:`~starchart.xapp.encoding.EXPLAIN_SAMPLES` vectors, each feature drawn
        independently from its encoded training values (the same "every combination" idea,
        sampled, since values have no finite product).
        """
        self._check_fitted()
        if self.continuous:
            grid = explanation_vectors(self._encoder.transform(self._training[0]).to_numpy(), self.seed)
            return pd.DataFrame(grid, columns=list(self.features))
        levels = self._encoder
        assert isinstance(levels, Discretizer)  # continuous models returned above
        sizes = [levels.n_levels(f) for f in self.features]
        n = int(np.prod(sizes))
        if n > MAX_GRID:
            raise InputError(f"{n} level combinations are too many to enumerate (limit {MAX_GRID})",
                             where="levels", hint="use 2 or 3 levels for at most 10 features")
        return pd.DataFrame(list(itertools.product(*[range(s) for s in sizes])), columns=list(self.features))

    def explain(self, max_depth: int | None = None, max_leaf_nodes: int | None = None) -> Explanation:
        """Approximate the forest by one CART tree over all discretised feature vectors.

        Every level combination (at most 3^10 = 59,049) is labelled by the forest, and one
        ``DecisionTreeClassifier`` is fitted to reproduce those labels (thesis §6.2.5, after
        its ref. [64]).  Unlimited, the tree reproduces the forest exactly but can be large;
        ``max_depth``/``max_leaf_nodes`` trade fidelity for readability.  Cached per setting.
        A continuous model is explained over the vectors of :meth:`level_grid` (the
        training kernels and samples of their values); conditions then read
        ``parallelism <= 16``.
        """
        self._check_fitted()
        key = (max_depth, max_leaf_nodes)
        if key not in self._explained:
            sk = _sklearn()
            grid = self.level_grid().to_numpy(np.float32)
            target = self._majority(self._votes_levels(grid))
            tree = sk.tree.DecisionTreeClassifier(max_depth=max_depth, max_leaf_nodes=max_leaf_nodes,
                                                  random_state=self.seed).fit(grid, target)
            train = self._encoder.transform(self._training[0]).to_numpy(np.float32)
            train_forest = self._majority(self._votes_levels(train))
            self._explained[key] = Explanation(
                tree=tree, fidelity=float((tree.predict(grid) == target).mean()),
                training_fidelity=float((tree.predict(train) == train_forest).mean()),
                n_vectors=len(grid), features=self.features, labels=list(self.labels),
                discretizer=self.discretizer_)  # type: ignore[arg-type]
        return self._explained[key]

    def explain_path(self, features: Any, max_depth: int | None = None,
                     max_leaf_nodes: int | None = None) -> dict[str, Any]:
        """The path of one kernel through the :meth:`explain` tree.

        Returns ``{"levels": {feature: level text}, "path": [condition, ...], "tree_range",
        "forest_range"}``; the two ranges differ only where the tree is not faithful.
        """
        expl = self.explain(max_depth, max_leaf_nodes)
        levels = self._encoder.transform(features)
        if len(levels) != 1:
            raise InputError(f"explain_path takes one kernel, got {len(levels)} rows", where="features")
        x = levels.to_numpy(np.float32)
        path, tree_range = expl.path(levels.iloc[0].to_dict())
        def text(f: str) -> str:
            value = levels.iloc[0][f]
            return self._encoder.level_text(f, value if self.continuous else int(value))

        return {"levels": {f: text(f) for f in self.features},
                "path": path, "tree_range": tree_range,
                "forest_range": self.labels[int(self._majority(self._votes_levels(x))[0])]}

    # ------------------------------------------------------------------ saving
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: settings, training data, cut points and the training votes."""
        self._check_fitted()
        sk = _sklearn()
        frame, values = self._train
        levels = self.levels if isinstance(self.levels, int | str) else dict(self.levels)
        # kernel names as JSON can hold them; anything else (timestamps, tuples) as text
        index = [k.item() if isinstance(k, np.generic) else k for k in frame.index]
        index = [k if isinstance(k, str | int | float | bool) else str(k) for k in index]
        votes = self._votes_levels(self._encoder.transform(frame).to_numpy())
        params = self._validate_params()  # plain ints (an np.int64 given is no JSON)
        return {"format": _FORMAT, "version": 1, "sklearn": sk.__version__,
                "params": {"cutoffs": list(self._cutoffs), "levels": levels, "n_trees": params["n_trees"],
                           "max_features": params["max_features"], "seed": params["seed"],
                           "features": list(self.features)},
                "training": {"index": index, "features": frame.to_numpy().tolist(), "speedups": values.tolist()},
                "discretizer": self._encoder.to_dict(), "training_votes": votes.tolist()}

    def to_json(self, path: str | Path | None = None) -> str:
        """The model as JSON text; also written to ``path`` when given."""
        text = json.dumps(self.to_dict(), ensure_ascii=False)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    @classmethod
    def from_json(cls, source: str | Path, n_jobs: int = 1) -> SpeedupRangeModel:
        """Load a model saved by :meth:`to_json` (JSON text or a file path) by refitting it.

        Raises
        ------
        InputError
            Malformed input.
        StarchartError
            The refit forest does not cast the saved votes (different scikit-learn build).
        """
        where = "model JSON"
        text = source
        if isinstance(source, Path) or (isinstance(source, str) and not source.lstrip().startswith("{")):
            where = str(source)
            try:
                text = Path(source).read_text(encoding="utf-8")
            except OSError as exc:
                raise InputError(f"cannot read the model file ({exc.strerror})", where=where) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON: {exc}", where=where) from None
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise InputError("not a saved SpeedupRangeModel (missing format tag)", where=where,
                             hint="pass the output of SpeedupRangeModel.to_json()")
        try:
            p, train = data["params"], data["training"]
            model = cls(tuple(p["cutoffs"]), p["levels"], p["n_trees"], p["max_features"], p["seed"], n_jobs,
                        p["features"])
            frame = pd.DataFrame(train["features"], columns=model.features, index=pd.Index(train["index"]))
            model.fit(frame, pd.Series(train["speedups"], index=frame.index))
            saved_cuts = encoder_from_dict(data["discretizer"], where=f"{where}, discretizer").cuts_
            saved_votes = np.asarray(data["training_votes"], dtype=np.int64)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed saved model ({exc!r})", where=where,
                             hint="pass the output of SpeedupRangeModel.to_json()") from None
        votes = model._votes_levels(model._encoder.transform(frame).to_numpy())
        if saved_cuts != model._encoder.cuts_ or votes.shape != saved_votes.shape or (votes != saved_votes).any():
            saved_with, here = data.get("sklearn"), _sklearn().__version__
            # the same version cannot be the cause: "install that version" sent the user in a circle
            hint = (f"it was saved with scikit-learn {saved_with}, this is {here}; install that version or "
                    "refit and save again" if saved_with != here else
                    "the file was changed after it was saved (same scikit-learn); train the model again")
            raise StarchartError("the refit forest does not reproduce the saved model's votes", where=where,
                                 hint=hint)
        return model

    def __repr__(self) -> str:
        state = "unfitted" if self.forest_ is None else f"fitted on {len(self._training[1])} kernels"
        return (f"SpeedupRangeModel(cutoffs={self.cutoffs}, levels={self.levels!r}, n_trees={self.n_trees}, "
                f"max_features={self.max_features}, seed={self.seed}; {state})")
