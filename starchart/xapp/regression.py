"""Dynamic XAPP: predict GPU time and speedup from a CPU run's features (thesis ch. 3, 5).

:class:`SpeedupRegressionEnsemble` is the thesis's two-level model (§3.3.2, lines
655-660 of the seed text; ch. 5 lines 955 and 1042):

1. **Base learners.** Each of ``n_learners`` (100) learners gets a bootstrap sample of
   the training kernels (m drawn with replacement from m, line 660) and is a forward
   stepwise OLS regression over the features and their pairwise interactions
   (:mod:`starchart.analyses.stepwise`; entry thresholds θ₂ = 0 for a feature and
   θ₁ = 0.0095 for an interaction, line 655).
2. **Instruction count as a multiplicative term.** The thesis "enforce[s] the number of
   instructions (*ninst*) as a multiplicative term" (line 655); its Table 3.2 writes
   a learner as ``ninst*(Lbdiv32 + mem + gMemBW + gMemBW:Lbdiv32 + …)``. We read this
   as: the learners model the *GPU time per dynamic CPU instruction*,
   ``gpu_seconds / ninst``, and a prediction is ``ninst ×`` that. ``response="log"``
   models ``log(gpu_seconds / ninst)`` instead (a log-linear variant, not the
   thesis's: it cannot predict a negative time and weighs errors relatively).
3. **Combination.** For each kernel the learners' predictions are sorted and the mean
   of the middle ``keep_fraction`` (60 %: 30 % either side of the median, line 660)
   is the prediction; ``keep_fraction=0`` gives the median (the thesis's sweep,
   line 1042). Speedup is CPU time divided by the predicted GPU time.

``cross_validate`` repeats the thesis's evaluation (ch. 5 §5.2.2, line 992): hold out
``leave_out`` kernels (10 in the thesis, 1 for leave-one-out), train on the rest,
and report the mean absolute relative error of the speedup, ``|S − Ŝ| / S``, averaged
over test sets (the thesis's CV error, 26.9 % on its 122 kernels).

Two choices are ours, not the thesis's: a learner keeps at most ``n_unique // 3``
terms by default (its adjusted R² counts the bootstrap's repeated kernels as
independent, so without a cap it fits the distinct kernels exactly), and a
non-positive combined prediction (possible with the linear response) is raised to the
smallest GPU time per instruction seen in training, with a note.

Examples
--------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(1)
>>> X = pd.DataFrame(rng.uniform(0, 1, (30, 3)), columns=["mem", "div", "ilp"],
...                  index=[f"k{i}" for i in range(30)])
>>> X["ninst"] = rng.uniform(1e6, 1e8, 30)
>>> gpu = X["ninst"] * 1e-9 * (1 + 2 * X["mem"] + 3 * X["mem"] * X["div"])
>>> model = SpeedupRegressionEnsemble(n_learners=20, seed=0).fit(X, gpu)
>>> bool((model.predict(X) / gpu - 1).abs().max() < 1e-6)
True
>>> model.explanation()["term"].head(2).tolist()
['mem', 'mem:div']
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._util.plugins import load_reference
from .._util.validation import SEED, Interval, Options, Validated, check, check_seed
from ..analyses.stepwise import (
    INTERACTION_ENTRY_THRESHOLD,
    MAIN_ENTRY_THRESHOLD,
    StepwiseModel,
    fit_stepwise,
    term_name,
)
from ..errors import InputError, NotFittedError, arg
from .align import aligned_positive, feature_ranges

Response = Literal["per_instruction", "log"]

#: Fewest training kernels: a bootstrap sample of fewer rarely has three distinct
#: kernels, the least a one-term learner with an adjusted R² needs.
MIN_KERNELS = 5
_FORMAT = "starchart.xapp.SpeedupRegressionEnsemble"
_VERSION = 1


def trimmed_mean(predictions: np.ndarray, keep_fraction: float = 0.6) -> np.ndarray:
    """Per row, the mean of the middle ``keep_fraction`` of the sorted values.

    The thesis's outlier removal (line 660): sort a kernel's predictions, keep the
    ``keep_fraction / 2`` either side of the median, average them. Of 100 learners,
    60 are kept (ranks 21-80). Where the count to drop is odd, one fewer is dropped so
    the kept values stay centred. ``keep_fraction=0`` is the median.

    >>> trimmed_mean(np.array([[1.0, 2.0, 3.0, 4.0, 100.0]]), 0.6).tolist()
    [3.0]
    >>> trimmed_mean(np.array([[1.0, 2.0, 3.0, 4.0, 100.0]]), 1.0).tolist()
    [22.0]
    """
    values = np.sort(np.atleast_2d(np.asarray(predictions, dtype=np.float64)), axis=1)
    p = values.shape[1]
    if p == 0:
        raise InputError("no predictions to combine", where="predictions",
                         hint="fit at least one learner")
    if keep_fraction <= 0.0:
        return np.median(values, axis=1)
    cut = math.floor(p * (1.0 - keep_fraction) / 2.0 + 1e-9)  # per side
    return values[:, cut:p - cut].mean(axis=1)


@dataclass
class CrossValidationResult:
    """Held-out predictions of :meth:`SpeedupRegressionEnsemble.cross_validate`.

    ``table`` has one row per held-out prediction: ``repeat``, ``fold``, ``kernel``,
    ``actual_gpu_seconds``, ``predicted_gpu_seconds``, ``actual_speedup``,
    ``predicted_speedup`` and ``relative_error`` (``|S − Ŝ| / S`` of the speedup).
    """

    table: pd.DataFrame
    leave_out: int
    repeats: int
    notes: list[str] = field(default_factory=list)

    @property
    def fold_errors(self) -> pd.Series:
        """Mean relative error of each test set, indexed by (repeat, fold)."""
        return self.table.groupby(["repeat", "fold"])["relative_error"].mean()

    @property
    def mean_relative_error(self) -> float:
        """Mean over test sets of their mean relative error (the thesis's CV error)."""
        return float(self.fold_errors.mean())

    @property
    def per_kernel(self) -> pd.DataFrame:
        """Actual speedup, mean predicted speedup and mean relative error per kernel."""
        return self.table.groupby("kernel", sort=False).agg(
            actual_speedup=("actual_speedup", "first"),
            predicted_speedup=("predicted_speedup", "mean"),
            relative_error=("relative_error", "mean"),
            predictions=("relative_error", "size"))

    def to_frame(self) -> pd.DataFrame:
        """A copy of ``table``."""
        return self.table.copy()

    def summary(self) -> str:
        """One line: test sets, predictions, and the mean / median relative error."""
        err = self.table["relative_error"]
        return (f"{len(self.fold_errors)} test sets of ≤{self.leave_out} kernels, "
                f"{len(err)} held-out predictions: mean relative error of speedup "
                f"{100 * self.mean_relative_error:.1f}% (median {100 * err.median():.1f}%)")


@dataclass(eq=False, repr=False)
class SpeedupRegressionEnsemble(Validated):
    """The dynamic-XAPP ensemble of stepwise regression learners (see the module doc).

    Parameters
    ----------
    n_learners:
        Base learners (bootstrap samples); the thesis uses 100.
    sample_fraction:
        Each bootstrap sample draws ``round(sample_fraction · m)`` of the ``m`` training
        kernels with replacement (1.0, the thesis's bagging).
    entry_threshold, interaction_threshold:
        Least gain in adjusted R² for a feature (θ₂ = 0) and for a pairwise interaction
        (θ₁ = 0.0095) to enter a learner (thesis line 655).
    keep_fraction:
        Share of each kernel's learner predictions, centred on the median, that are
        averaged (0.6; 0 uses the median).
    max_terms:
        Most terms per learner; ``None`` for ``max(1, distinct kernels in its sample // 3)``.
    count_column:
        Feature column holding the dynamic instruction count, the multiplicative term
        (not itself a candidate term); ``None`` to model GPU seconds directly.
    response:
        ``"per_instruction"`` (thesis: linear in GPU seconds per instruction) or ``"log"``.
    seed:
        Seed of the bootstrap samples; the same seed and data give the same model.
    """

    _parameter_constraints = {
        "n_learners": (Interval(int, 1, None),),
        "sample_fraction": (Interval(float, 0, 10, closed="right"),),
        "entry_threshold": (Interval(float, None, None),),
        "interaction_threshold": (Interval(float, None, None),),
        "keep_fraction": (Interval(float, 0, 1),),
        "max_terms": (None, Interval(int, 1, None)),
        "response": (Options("per_instruction", "log"),),
        "seed": (SEED,),
    }
    _parameter_hints = {"n_learners": "use e.g. 100 (the thesis's)", "sample_fraction": "use 1.0 for the thesis's bagging",
                        "keep_fraction": "use 0.6 (the thesis's 60 %)",
                        "entry_threshold": "use 0 and 0.0095 (the thesis's)",
                        "interaction_threshold": "use 0 and 0.0095 (the thesis's)",
                        "max_terms": "use None for the default cap", "response": "use 'per_instruction'"}

    # the constructor (a dataclass's) stores each argument as given; fit checks them
    n_learners: int = 100
    sample_fraction: float = 1.0
    entry_threshold: float = MAIN_ENTRY_THRESHOLD
    interaction_threshold: float = INTERACTION_ENTRY_THRESHOLD
    keep_fraction: float = 0.6
    max_terms: int | None = None
    count_column: str | None = "ninst"
    response: Response = "per_instruction"
    seed: int = 0

    # ------------------------------------------------------------------ validation
    def _features(self, features: Any, where: str) -> pd.DataFrame:
        if not isinstance(features, pd.DataFrame):
            raise InputError(f"features must be a pandas DataFrame (one row per kernel), "
                             f"got {type(features).__name__}", where=where,
                             hint="build one with a column per feature, indexed by kernel name")
        features = features.rename(columns=str)  # names are strings in terms and in JSON
        if features.columns.has_duplicates:
            dup = features.columns[features.columns.duplicated()][0]
            raise InputError(f"column {dup!r} appears twice", where=where, hint="rename the columns")
        if features.index.has_duplicates:
            dup = features.index[features.index.duplicated()][0]
            raise InputError(f"kernel {dup!r} appears twice", where=where,
                             hint="give every kernel (row) a unique index label")
        for col in features.columns:
            if not (pd.api.types.is_numeric_dtype(features[col])
                    or pd.api.types.is_bool_dtype(features[col])):
                raise InputError(f"column {col!r} is not numeric ({features[col].dtype})",
                                 where=where, hint="drop it or convert it to numbers")
        values = features.to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise InputError(f"kernel {features.index[r]!r} has a missing or infinite value in "
                             f"column {features.columns[c]!r}", where=where,
                             hint="measure the feature again or drop the kernel")
        if self.count_column is not None:
            if self.count_column not in features.columns:
                raise InputError(f"no instruction-count column {self.count_column!r} among "
                                 f"{list(features.columns)}", where=where,
                                 hint="pass count_column= naming the dynamic instruction count, "
                                      "or count_column=None to model GPU time directly")
            counts = features[self.count_column].to_numpy(dtype=np.float64)
            if (counts <= 0).any():
                i = int(np.argmax(counts <= 0))
                raise InputError(f"kernel {features.index[i]!r} has instruction count {counts[i]:g}",
                                 where=f"{where}, column {self.count_column!r}",
                                 hint="instruction counts must be positive")
        return features

    @staticmethod
    def _times(times: Any, index: pd.Index, where: str) -> np.ndarray:
        return aligned_positive(times, index, where, "time",
                                hint="times must be positive seconds; drop kernels that failed")

    def _counts(self, features: pd.DataFrame) -> np.ndarray:
        if self.count_column is None:
            return np.ones(len(features))
        return features[self.count_column].to_numpy(dtype=np.float64)

    def _to_response(self, seconds: np.ndarray, counts: np.ndarray) -> np.ndarray:
        per = seconds / counts
        return np.log(per) if self.response == "log" else per

    # ------------------------------------------------------------------ fitting
    def fit(self, features: pd.DataFrame, gpu_seconds: Any,
            cpu_seconds: Any = None) -> SpeedupRegressionEnsemble:
        """Fit the learners on kernels' features (rows) and measured GPU times.

        ``cpu_seconds`` is optional: when given it is checked and ``training_``
        gains the kernels' actual and in-sample predicted speedups.
        """
        params = self._validate_params()  # the values as checked (a whole float 20.0 as the count 20)
        features = self._features(features, "features")
        n = len(features)
        if n < MIN_KERNELS:
            raise InputError(f"{n} kernels to train on; the ensemble needs at least {MIN_KERNELS}",
                             where="features", hint="add kernels to the training set")
        gpu = self._times(gpu_seconds, features.index, "gpu_seconds")
        cpu = None if cpu_seconds is None else self._times(cpu_seconds, features.index, "cpu_seconds")

        self.notes_: list[str] = []
        self.input_columns_ = [str(c) for c in features.columns]
        candidates = [c for c in features.columns if c != self.count_column]
        X = features[candidates].to_numpy(dtype=np.float64)
        constant = np.ptp(X, axis=0) == 0 if X.size else np.zeros(0, dtype=bool)
        self.dropped_ = [str(c) for c, k in zip(candidates, constant) if k]
        self.columns_ = [str(c) for c, k in zip(candidates, constant) if not k]
        if self.dropped_:
            self._note(f"dropped {len(self.dropped_)} constant column(s): {', '.join(self.dropped_)}")
        if not self.columns_:
            self._note("no varying feature: every learner predicts the mean GPU time per instruction")
        X = X[:, ~constant]

        counts = self._counts(features)
        y = self._to_response(gpu, counts)
        self.floor_ = float(np.min(gpu / counts))
        rng = np.random.default_rng(params["seed"])
        m = max(1, round(params["sample_fraction"] * n))
        self.learners_: list[StepwiseModel] = []
        for _ in range(params["n_learners"]):
            rows = rng.integers(0, n, size=m)
            cap = params["max_terms"] or max(1, len(np.unique(rows)) // 3)
            self.learners_.append(fit_stepwise(
                X[rows], y[rows], self.columns_, entry_threshold=params["entry_threshold"],
                interaction_threshold=params["interaction_threshold"], max_terms=cap))
        self.kernels_ = list(features.index)
        self.ranges_: dict[str, list[float]] | None = feature_ranges(features)
        self.n_training_: int | None = n
        predicted = self.predict(features)
        self.training_ = pd.DataFrame({"actual_gpu_seconds": gpu,
                                       "predicted_gpu_seconds": predicted.to_numpy()},
                                      index=features.index)
        if cpu is not None:
            self.training_["actual_speedup"] = cpu / gpu
            self.training_["predicted_speedup"] = cpu / predicted.to_numpy()
        return self

    def _note(self, text: str) -> None:
        self.notes_.append(text)
        warnings.warn(text, UserWarning, stacklevel=3)

    def _check_fitted(self) -> None:
        if not hasattr(self, "learners_"):
            raise NotFittedError("this SpeedupRegressionEnsemble is not fitted", where="model",
                                 hint="call fit(features, gpu_seconds) or load one with from_json")

    # ------------------------------------------------------------------ prediction
    def _matrix(self, features: pd.DataFrame) -> np.ndarray:
        features = self._features(features, "features")
        known = set(self.input_columns_)
        unknown = [c for c in features.columns if str(c) not in known]
        if unknown:
            raise InputError(f"column(s) {unknown} were not among the training features",
                             where="features", hint="pass the columns the model was fitted on: "
                                                    f"{self.input_columns_}")
        missing = [c for c in self.columns_ if c not in features.columns]
        if missing:
            raise InputError(f"missing feature column(s) {missing}", where="features",
                             hint="measure the same features as for the training kernels")
        return features[self.columns_].to_numpy(dtype=np.float64)

    def predict_learners(self, features: pd.DataFrame) -> pd.DataFrame:
        """Every learner's GPU-time prediction (kernels × learners), before combination.

        The spread across learners is what the thesis's Fig. 5.4 shows.
        """
        self._check_fitted()
        X = self._matrix(features)
        raw = np.column_stack([lr.predict(X) for lr in self.learners_])
        per = np.exp(raw) if self.response == "log" else raw
        return pd.DataFrame(per * self._counts(features)[:, None], index=features.index)

    def predict(self, features: pd.DataFrame) -> pd.Series:
        """Predicted GPU seconds per kernel: the trimmed mean of the learners (see module doc)."""
        self._check_fitted()
        X = self._matrix(features)
        raw = np.column_stack([lr.predict(X) for lr in self.learners_])
        combined = trimmed_mean(raw, self.keep_fraction)
        if self.response == "log":
            per = np.exp(combined)
        else:
            low = combined <= 0
            if low.any():
                warnings.warn(f"{int(low.sum())} kernel(s) got a non-positive predicted GPU time "
                              f"(e.g. {features.index[int(np.argmax(low))]!r}); reported as the "
                              "fastest training kernel's time per instruction", UserWarning,
                              stacklevel=2)
            per = np.where(low, self.floor_, combined)
        return pd.Series(per * self._counts(features), index=features.index, name="gpu_seconds")

    def predict_speedup(self, features: pd.DataFrame, cpu_seconds: Any) -> pd.Series:
        """Predicted speedup per kernel: measured CPU seconds / predicted GPU seconds."""
        gpu = self.predict(features)
        cpu = self._times(cpu_seconds, features.index, "cpu_seconds")
        return pd.Series(cpu / gpu.to_numpy(), index=features.index, name="speedup")

    # ------------------------------------------------------------------ evaluation
    def cross_validate(self, features: pd.DataFrame, gpu_seconds: Any, cpu_seconds: Any, *,
                       leave_out: int = 10, repeats: int = 1, test_kernels: Any = None,
                       seed: int | None = None) -> CrossValidationResult:
        """Hold out ``leave_out`` kernels at a time, fit on the rest, predict them.

        Each repeat shuffles the eligible kernels (``test_kernels``, default all; the
        thesis draws its test sets only from its 24 "QFT" kernels) and cuts them into
        test sets of ``leave_out`` (the last one smaller when they do not divide); the
        other kernels always train. Every fold fits a fresh ensemble with this one's
        parameters (this model is left as it is). ``leave_out=1`` is leave-one-out.

        Example: ``model.cross_validate(X, gpu, cpu, leave_out=10, repeats=10).mean_relative_error``.
        """
        features = self._features(features, "features")
        gpu = self._times(gpu_seconds, features.index, "gpu_seconds")
        cpu = self._times(cpu_seconds, features.index, "cpu_seconds")
        n = len(features)
        leave_out = check("leave_out", leave_out, Interval(int, 1, None),
                          hint="use 10 (the thesis's test sets) or 1 (leave-one-out)")
        repeats = check("repeats", repeats, Interval(int, 1, None),
                        hint="use 1, or e.g. 100 for the thesis's 100 test sets")
        if n - leave_out < MIN_KERNELS:
            raise InputError(f"leaving out {leave_out} of {n} kernels leaves fewer than "
                             f"{MIN_KERNELS} to train on", where="leave_out",
                             hint=f"use a smaller {arg('leave_out')} or more kernels")
        if test_kernels is None:
            pool = np.arange(n)
        else:
            wanted = list(test_kernels)
            absent = [k for k in wanted if k not in features.index]
            if absent:
                raise InputError(f"test kernel(s) {absent[:5]} are not in the features' index",
                                 where="test_kernels", hint="name kernels by their row labels")
            pool = np.flatnonzero(features.index.isin(wanted))
        rng = np.random.default_rng(check_seed(self.seed) if seed is None else check_seed(seed))
        rows, notes = [], []
        for r in range(repeats):
            order = rng.permutation(pool)
            for f, start in enumerate(range(0, len(order), leave_out)):
                test = order[start:start + leave_out]
                train = np.setdiff1d(np.arange(n), test)
                fold = SpeedupRegressionEnsemble(**{**self.get_params(),
                                                    "seed": int(rng.integers(2**31))})
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    fold.fit(features.iloc[train], gpu[train])
                    pred = fold.predict(features.iloc[test]).to_numpy()
                notes += [f"repeat {r}, fold {f}: {w.message}" for w in caught]
                actual_s, pred_s = cpu[test] / gpu[test], cpu[test] / pred
                rows.append(pd.DataFrame({
                    "repeat": r, "fold": f, "kernel": features.index[test],
                    "actual_gpu_seconds": gpu[test], "predicted_gpu_seconds": pred,
                    "actual_speedup": actual_s, "predicted_speedup": pred_s,
                    "relative_error": np.abs(actual_s - pred_s) / actual_s}))
        return CrossValidationResult(pd.concat(rows, ignore_index=True), int(leave_out),
                                     int(repeats), notes)

    # ------------------------------------------------------------------ interpretation
    def explanation(self) -> pd.DataFrame:
        """How often each term appears across the learners (the thesis's Fig. 5.5).

        Columns: ``term`` (``"a"`` or ``"a:b"``), ``learners`` (how many use it),
        ``share`` (that over ``n_learners``) and ``positive_share`` (of those, the share
        with a positive coefficient: a positive sign means slower per instruction).
        Most frequent first.
        """
        self._check_fitted()
        uses: dict[str, list[float]] = {}
        for lr in self.learners_:
            for term, coef in zip(lr.terms, lr.coefficients):
                uses.setdefault(term_name(term, self.columns_), []).append(float(coef))
        table = pd.DataFrame({
            "term": list(uses),
            "learners": [len(v) for v in uses.values()],
            "share": [len(v) / len(self.learners_) for v in uses.values()],
            "positive_share": [float(np.mean(np.asarray(v) > 0)) for v in uses.values()]},
            columns=["term", "learners", "share", "positive_share"])
        return table.sort_values(["learners", "term"], ascending=[False, True],
                                 kind="stable").reset_index(drop=True)

    def plot_explanation(self, path: str | Path | None = None, top: int = 10) -> Any:
        """Bar chart of the ``top`` most frequent terms; saved to ``path`` when given.

        Returns the :class:`matplotlib.figure.Figure`, drawn by
        :func:`starchart.report.xapp_figures.plot_explanation` (built without pyplot, so no display is needed).
        """
        return load_reference("starchart.report.xapp_figures:plot_explanation")(self, path, top)

    # ------------------------------------------------------------------ persistence
    def to_json(self, path: str | Path | None = None) -> str:
        """The fitted model as JSON (parameters, columns, each learner's terms and
        coefficients); written to ``path`` when given. :meth:`from_json` reloads it."""
        self._check_fitted()
        doc = {"format": _FORMAT, "version": _VERSION, "params": self.get_params(),
               "input_columns": self.input_columns_, "columns": self.columns_,
               "dropped": self.dropped_, "floor": self.floor_, "notes": self.notes_,
               # the training kernels' feature ranges, so a prediction can say it extrapolates
               "n_training": getattr(self, "n_training_", None),
               "ranges": getattr(self, "ranges_", None),
               "learners": [{"terms": [[self.columns_[j] for j in t] for t in lr.terms],
                             "intercept": lr.intercept,
                             "coefficients": [float(c) for c in lr.coefficients],
                             "adjusted_r2": lr.adjusted_r2} for lr in self.learners_]}
        text = json.dumps(doc, indent=1)
        if path is not None:
            Path(path).write_text(text)
        return text

    @classmethod
    def from_json(cls, source: str | Path) -> SpeedupRegressionEnsemble:
        """Load a model written by :meth:`to_json` (a path, or the JSON text itself)."""
        where = "model JSON"
        text = str(source)
        if isinstance(source, Path) or not text.lstrip().startswith("{"):
            where = str(source)
            try:
                text = Path(source).read_text()
            except OSError as exc:
                raise InputError(f"cannot read the model ({exc.strerror})", where=where,
                                 hint="pass a file written by to_json") from exc
        try:
            doc = json.loads(text)
            if doc.get("format") != _FORMAT:
                raise InputError(f"not a {_FORMAT} model (format {doc.get('format')!r})",
                                 where=where, hint="pass a file written by to_json")
            if doc.get("version") != _VERSION:
                raise InputError(f"model format version {doc.get('version')!r}; this starchart "
                                 f"reads version {_VERSION}", where=where,
                                 hint="refit the model with this version")
            model = cls(**doc["params"])
            columns = list(doc["columns"])
            index = {c: j for j, c in enumerate(columns)}
            model.learners_ = [StepwiseModel(
                columns=columns,
                terms=[tuple(index[c] for c in t) for t in lr["terms"]],
                intercept=float(lr["intercept"]),
                coefficients=np.asarray(lr["coefficients"], dtype=np.float64),
                adjusted_r2=[float(v) for v in lr["adjusted_r2"]]) for lr in doc["learners"]]
            model.columns_, model.input_columns_ = columns, list(doc["input_columns"])
            model.dropped_, model.floor_ = list(doc["dropped"]), float(doc["floor"])
            model.notes_ = list(doc["notes"])
            model.ranges_ = doc.get("ranges")  # absent from models saved before it was recorded
            model.n_training_ = doc.get("n_training")
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed model JSON ({type(exc).__name__}: {exc})", where=where,
                             hint="pass a file written by to_json") from exc
        return model
