"""Predict the speedup itself: regression of log speedup, with an interval.

The thesis's static model answers with a range ("> 3"); its dynamic model predicts GPU time
and divides. :class:`SpeedupRegressor` predicts ``log10(speedup)`` straight from features
(static or dynamic), so its error is a *factor* ("within 2x"), the way speedups are read,
and its answer can be cut at any cutoffs afterwards (:meth:`SpeedupRegressor.classify`).

Two learners:

``"forest"``
    scikit-learn's random forest regressor on the continuous encoding
    (:class:`~starchart.xapp.encoding.ContinuousEncoder`). The interval comes from its
    out-of-bag errors: each training kernel is predicted by the trees that did not see it,
    and the ``coverage`` quantiles of those log errors are added to a prediction.
``"stepwise"``
    the thesis's ensemble of bootstrap stepwise regressions
    (:class:`~starchart.xapp.regression.SpeedupRegressionEnsemble`, pairwise terms, trimmed
    mean), here on log speedup from the encoded features; the interval is the spread of its
    learners.

:meth:`SpeedupRegressor.loocv` refits in every fold and reports the median error factor,
the share within 2x and the share of held-out kernels inside their interval.

Examples
--------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> X = pd.DataFrame({"parallelism": 10 ** rng.uniform(0, 7, 40), "coalesced": rng.random(40)})
>>> speedup = np.minimum(X["parallelism"], 1e4) ** 0.8 * (0.5 + X["coalesced"])
>>> model = SpeedupRegressor(features=("parallelism", "coalesced"), n_trees=100).fit(X, speedup)
>>> list(model.predict(X.iloc[:1]).columns)
['speedup', 'low', 'high']
>>> model.loocv(X, speedup).median_error_factor < 2
True
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._util.files import parse_json, read_text
from .._util.validation import SEED, Interval, Options, Validated
from ..errors import InputError, NotFittedError, StarchartError
from .align import aligned_positive, feature_ranges
from .discretize import as_feature_frame
from .encoding import EXTENDED_FEATURES, ContinuousEncoder, explanation_vectors

METHODS = ("forest", "stepwise")
_FORMAT = "starchart.xapp.SpeedupRegressor"


@dataclass
class RegressionLoocv:
    """Leave-one-out predictions of a :class:`SpeedupRegressor`.

    ``table`` has one row per kernel: ``speedup`` (measured), ``predicted``, ``low``,
    ``high`` and ``error_factor`` (``max(p/a, a/p)``, 1 is exact).
    """

    table: pd.DataFrame
    wall_s: float = 0.0

    @property
    def median_error_factor(self) -> float:
        """The median of the error factors: 2.0 means half the kernels are within 2x."""
        return float(self.table["error_factor"].median())

    @property
    def within_2x(self) -> float:
        """Share of kernels predicted within a factor of 2."""
        return float((self.table["error_factor"] <= 2.0).mean())

    @property
    def coverage(self) -> float:
        """Share of kernels whose measured speedup lies inside their predicted interval."""
        t = self.table
        return float(((t["speedup"] >= t["low"]) & (t["speedup"] <= t["high"])).mean())

    def accuracy(self, cutoffs: Sequence[float]) -> float:
        """Share of kernels whose predicted speedup falls in the measured one's range."""
        cuts = np.asarray(sorted(cutoffs), dtype=float)
        t = self.table
        return float((np.searchsorted(cuts, t["speedup"], side="left")
                      == np.searchsorted(cuts, t["predicted"], side="left")).mean())

    def summary(self) -> str:
        """One line to print."""
        return (f"LOOCV over {len(self.table)} kernels: median error {self.median_error_factor:.2f}x, "
                f"{self.within_2x:.0%} within 2x, {self.coverage:.0%} inside their interval")


class SpeedupRegressor(Validated):
    """Regression of ``log10(speedup)`` from features (see the module doc).

    Parameters
    ----------
    method:
        ``"forest"`` (random forest, out-of-bag interval) or ``"stepwise"`` (the thesis's
        stepwise ensemble).
    features:
        The feature columns (default the 10 static features and ``host_steps``).
    n_trees:
        Trees of the forest, or learners of the stepwise ensemble.
    coverage:
        The share of kernels the interval aims to hold (0.8: from the 10th to the 90th
        percentile of the errors).
    seed:
        Random state; the same seed and data give the same model.
    n_jobs:
        Processes scikit-learn grows trees with; does not change the result.
    """

    _parameter_constraints = {"method": (Options(*METHODS),), "n_trees": (Interval(int, 5, None),),
                              "coverage": (Interval(float, 0, 1, closed="neither"),),
                              "seed": (SEED,), "n_jobs": (Interval(int, 1, None),)}
    _parameter_hints = {"method": "use 'forest' or 'stepwise'", "n_trees": "e.g. 500",
                        "coverage": "e.g. 0.8", "seed": "e.g. 0", "n_jobs": "1 fits in this process"}

    def __init__(self, method: str = "forest", features: Sequence[str] = EXTENDED_FEATURES, n_trees: int = 500,
                 coverage: float = 0.8, seed: int = 0, n_jobs: int = 1):
        self.method, self.features, self.n_trees = method, tuple(features), n_trees
        self.coverage, self.seed, self.n_jobs = coverage, seed, n_jobs
        self.model_: Any = None
        self.encoder_: ContinuousEncoder | None = None

    # ------------------------------------------------------------------ fitting
    def fit(self, features: Any, speedups: Any) -> SpeedupRegressor:
        """Learn from training kernels: a feature frame (one row per kernel) and measured speedups.

        Raises
        ------
        InputError
            Missing or non-finite features, a speedup that is not positive, fewer than 5
            kernels, or a parameter out of range.
        """
        params = self._validate_params()
        self.encoder_ = ContinuousEncoder(self.features)
        X = self.encoder_.fit_transform(features)
        values = aligned_positive(speedups, X.index, "speedups", "speedup",
                                  hint="speedup = CPU time / GPU time; drop kernels that were not measured")
        if len(X) < 5:
            raise InputError(f"{len(X)} kernels to train on; a regression needs at least 5", where="features",
                             hint="add kernels to the training set")
        y = np.log10(values)
        lo_q, hi_q = (1 - params["coverage"]) / 2, (1 + params["coverage"]) / 2
        if params["method"] == "forest":
            from sklearn.ensemble import RandomForestRegressor

            forest = RandomForestRegressor(n_estimators=params["n_trees"], max_features=1 / 3, min_samples_leaf=2,
                                           oob_score=True, random_state=params["seed"], n_jobs=params["n_jobs"])
            with warnings.catch_warnings():  # a few kernels without out-of-bag trees at small n
                warnings.simplefilter("ignore", UserWarning)
                forest.fit(X.to_numpy(), y)
            oob = np.asarray(forest.oob_prediction_)
            errors = (y - oob)[np.isfinite(oob)]
            self.error_band_ = (float(np.quantile(errors, lo_q)), float(np.quantile(errors, hi_q)))
            self.model_ = forest
        else:
            from .regression import SpeedupRegressionEnsemble

            ensemble = SpeedupRegressionEnsemble(n_learners=params["n_trees"], count_column=None, response="log",
                                                 seed=params["seed"])
            with warnings.catch_warnings():  # constant columns of a fold are dropped, as said in its notes
                warnings.simplefilter("ignore", UserWarning)
                ensemble.fit(X, 1.0 / values)  # "GPU seconds" of 1/speedup: log response = -ln speedup
            self.model_ = ensemble
            self.quantiles_ = (lo_q, hi_q)
        self._train = (as_feature_frame(features, self.features), values.copy())
        return self

    @property
    def training_ranges(self) -> dict[str, list[float]]:
        """``{feature: [min, max]}`` over the training kernels (see :func:`~.align.outside_ranges`)."""
        self._check_fitted()
        return feature_ranges(self._train[0])

    @property
    def n_training(self) -> int:
        """How many kernels the model was trained on."""
        self._check_fitted()
        return len(self._train[1])

    def _check_fitted(self) -> None:
        if self.model_ is None:
            raise NotFittedError("this SpeedupRegressor has not been fitted", hint="call fit(features, speedups)")

    # ------------------------------------------------------------------ predicting
    def predict(self, features: Any) -> pd.DataFrame:
        """Predicted ``speedup`` per kernel with the interval's ``low`` and ``high`` ends."""
        self._check_fitted()
        X = self.encoder_.transform(features)  # type: ignore[union-attr]
        if self.method == "forest":
            log = self.model_.predict(X.to_numpy())
            low, high = log + self.error_band_[0], log + self.error_band_[1]
            speedup, low, high = 10.0 ** log, 10.0 ** low, 10.0 ** high
        else:
            speedup = 1.0 / self.model_.predict(X).to_numpy()
            learners = 1.0 / self.model_.predict_learners(X).to_numpy()
            low = np.minimum(np.quantile(learners, self.quantiles_[0], axis=1), speedup)
            high = np.maximum(np.quantile(learners, self.quantiles_[1], axis=1), speedup)
        return pd.DataFrame({"speedup": speedup, "low": low, "high": high}, index=X.index)

    def classify(self, features: Any, cutoffs: Sequence[float]) -> pd.Series:
        """The range (0 = lowest) each predicted speedup falls in, for ``cutoffs``."""
        speedup = self.predict(features)["speedup"]
        codes = np.searchsorted(np.asarray(sorted(cutoffs), dtype=float), speedup.to_numpy(), side="left")
        return pd.Series(codes, index=speedup.index, name="range")

    # ------------------------------------------------------------------ evaluation
    def loocv(self, features: Any, speedups: Any,
              progress: Callable[[int, int], None] | None = None) -> RegressionLoocv:
        """Leave-one-out: N models, each fitted on N - 1 kernels, predict the one left out."""
        rows = as_feature_frame(features, self.features)  # checks the columns first
        values = aligned_positive(speedups, rows.index, "speedups", "speedup",
                                  hint="speedup = CPU time / GPU time; drop kernels that were not measured")
        start = time.perf_counter()
        out = []
        for i in range(len(rows)):
            keep = np.arange(len(rows)) != i
            fold = SpeedupRegressor(**self.get_params()).fit(rows.iloc[keep], values[keep])
            out.append(fold.predict(rows.iloc[[i]]))
            if progress is not None:
                progress(i + 1, len(rows))
        table = pd.concat(out).rename(columns={"speedup": "predicted"})
        table.insert(0, "speedup", values)
        table["error_factor"] = error_factor(table["predicted"], table["speedup"])
        return RegressionLoocv(table, wall_s=time.perf_counter() - start)

    # ------------------------------------------------------------------ interpretation
    def explain(self, max_depth: int = 3) -> str:
        """One regression tree standing in for the model, as text, fitted to its predictions.

        The tree is fitted on the training kernels plus samples of their values (as
        :meth:`SpeedupRangeModel.explain <starchart.xapp.model.SpeedupRangeModel.explain>`
        does for a continuous classifier); its fidelity is the R² of its predictions
        against the model's, in log space.
        """
        from sklearn.tree import DecisionTreeRegressor

        self._check_fitted()
        grid = explanation_vectors(self.encoder_.transform(self._train[0]).to_numpy(), self.seed)  # type: ignore[union-attr]
        frame = pd.DataFrame(grid, columns=list(self.features))
        target = np.log10(self._predict_encoded(frame))
        tree = DecisionTreeRegressor(max_depth=max_depth, random_state=self.seed).fit(grid, target)
        fit = tree.predict(grid)
        r2 = 1 - float(((fit - target) ** 2).sum() / max(((target - target.mean()) ** 2).sum(), 1e-300))
        t = tree.tree_
        lines = [f"# one tree for the {self.method} regression: R^2 {r2:.2f} against its log predictions "
                 f"over {len(grid)} vectors"]

        def walk(i: int, depth: int) -> None:
            pad = "|   " * depth
            if t.children_left[i] == -1:
                lines[-1] += f"  ->  speedup {10 ** float(t.value[i][0][0]):.3g}  [{int(t.n_node_samples[i])} vectors]"
                return
            name = self.features[int(t.feature[i])]
            cut = self.encoder_.level_text(name, float(t.threshold[i]))  # type: ignore[union-attr]
            lines.append(f"{pad}{name} <= {cut}")
            walk(int(t.children_left[i]), depth + 1)
            lines.append(f"{pad}{name} > {cut}")
            walk(int(t.children_right[i]), depth + 1)

        walk(0, 0)
        return "\n".join(lines)

    def _predict_encoded(self, encoded: pd.DataFrame) -> np.ndarray:
        if self.method == "forest":
            return 10.0 ** self.model_.predict(encoded.to_numpy())
        return 1.0 / self.model_.predict(encoded).to_numpy()

    # ------------------------------------------------------------------ saving
    def to_json(self, path: str | Path | None = None) -> str:
        """The model as JSON: settings, training data and the training predictions.

        Loading refits (deterministic for a seed) and checks the refit predicts the same.
        """
        self._check_fitted()
        frame, values = self._train
        index = [k if isinstance(k, str | int | float) else str(k) for k in frame.index]
        raw = frame
        params = self._validate_params()
        data = {"format": _FORMAT, "version": 1, "params": {**params, "features": list(self.features)},
                "training": {"index": index, "features": raw.to_numpy().tolist(), "speedups": values.tolist()},
                "predicted": self.predict(raw)["speedup"].tolist()}
        text = json.dumps(data, ensure_ascii=False)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    @classmethod
    def from_json(cls, source: str | Path) -> SpeedupRegressor:
        """Load a model saved by :meth:`to_json` (JSON text or a file path).

        Raises
        ------
        InputError
            Not a saved model, or malformed.
        StarchartError
            The refit does not reproduce the saved predictions (another scikit-learn, or an edited file).
        """
        where = "model JSON"
        text = source
        if isinstance(source, Path) or not str(source).lstrip().startswith("{"):
            where = str(source)
            text = read_text(Path(source))
        data = parse_json(str(text), where)
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise InputError("not a saved SpeedupRegressor (missing format tag)", where=where,
                             hint="pass the output of SpeedupRegressor.to_json()")
        try:
            params, train = dict(data["params"]), data["training"]
            frame = pd.DataFrame(train["features"], columns=params["features"], index=pd.Index(train["index"]))
            model = cls(**params).fit(frame, pd.Series(train["speedups"], index=frame.index))
            saved = np.asarray(data["predicted"], dtype=float)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed saved model ({exc!r})", where=where,
                             hint="pass the output of SpeedupRegressor.to_json()") from None
        again = model.predict(frame)["speedup"].to_numpy()
        if saved.shape != again.shape or not np.allclose(saved, again, rtol=1e-9):
            raise StarchartError("the refit model does not reproduce the saved predictions", where=where,
                                 hint="train the model again with this scikit-learn")
        return model

    def __repr__(self) -> str:
        state = "unfitted" if self.model_ is None else f"fitted on {len(self._train[1])} kernels"
        return (f"SpeedupRegressor(method={self.method!r}, n_trees={self.n_trees}, coverage={self.coverage}, "
                f"seed={self.seed}; {state})")


def error_factor(predicted: Any, measured: Any) -> np.ndarray:
    """``max(p/a, a/p)`` per kernel: 1 is exact, 2 is off by a factor of two either way.

    >>> error_factor([20.0, 5.0], [10.0, 10.0]).tolist()
    [2.0, 2.0]
    """
    p, a = np.asarray(predicted, dtype=float), np.asarray(measured, dtype=float)
    return np.maximum(p / a, a / p)

