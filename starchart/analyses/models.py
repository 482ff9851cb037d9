"""The tree against other models of the same measurements: the paper's §VI-B and Fig. 5.

The Starchart paper compares its tree with Stargazer's linear regression (stepwise, with pairwise
interactions) on designs it did not train on, and checks the design each model picks as best: its predicted
against its measured value (kmeans: the tree 31.9 µs predicted for 29.3 µs measured, Stargazer 57.8 for 85.2).
:func:`compare_models` repeats that over seeds: for each, ``train`` designs drawn uniformly among the valid
ones, and ``validation`` others. The models:

- ``tree``: :class:`~starchart.StarchartTree` with the paper's settings;
- ``linear``: forward stepwise least squares over the parameters and their pairwise products
  (:func:`~starchart.analyses.stepwise.fit_stepwise`), a text parameter one indicator column per value;
  ``log_response=True`` fits the logarithm of the metric (Stargazer's option for a positive response);
- ``forest``: a :class:`~starchart.StarchartForest` of 50 trees (bagged, as a random forest).

Examples
--------
>>> from starchart import datasets
>>> result = compare_models(datasets.load_kmeans(), "runtime", seeds=2, models=("tree", "linear"))
>>> result.medians()["median_rel_error"].round(2).to_dict()
{'tree': 0.03, 'linear': 0.81}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from starchart._util.direction import direction_word, lower_is_better
from starchart._util.plugins import load_reference
from starchart._util.units import unit_of, with_unit
from starchart._util.validation import SEED, Interval, Options, check, check_seed
from starchart.analyses.stepwise import fit_stepwise
from starchart.dataset import Dataset
from starchart.errors import InputError, say
from starchart.tree import StarchartForest, StarchartTree

if TYPE_CHECKING:  # drawn in starchart.report.figures
    from matplotlib.figure import Figure

__all__ = ["MODELS", "ModelComparison", "compare_models"]

#: The models :func:`compare_models` knows, in the order it reports them.
MODELS = ("tree", "linear", "forest")
#: Columns of :attr:`ModelComparison.table`.
TABLE_COLUMNS = ("model", "seed", "median_rel_error", "pick_predicted", "pick_actual", "best_actual")


@dataclass
class ModelComparison:
    """What :func:`compare_models` measured: one row per model and seed (:data:`TABLE_COLUMNS`)."""

    table: pd.DataFrame
    metric: str
    minimize: bool
    train: int
    validation: int
    log_response: bool
    meta: dict[str, Any] = field(default_factory=dict)

    def medians(self) -> pd.DataFrame:
        """Per model, the median over seeds of each column (the figure's bars), models in :data:`MODELS` order."""
        numbers = self.table.drop(columns="seed").groupby("model").median()
        return numbers.loc[[m for m in MODELS if m in numbers.index]]

    def summary(self) -> str:
        """A few lines: each model's median error on unseen designs, and the design it picks as best."""
        unit = unit_of(self.metric, self.meta)
        seeds = self.table["seed"].nunique()
        lines = [f"{self.metric} ({direction_word(self.minimize)}) predicted for {self.validation} unseen designs "
                 f"after training on {self.train}; medians over {seeds} seed{'s' if seeds > 1 else ''}"
                 + (" (linear: on the log of the metric)" if self.log_response else "")]
        for model, row in self.medians().iterrows():
            lines.append(f"  {model:<7} {row['median_rel_error']:7.1%} median relative error; its picks (medians): predicted "
                         f"{with_unit(row['pick_predicted'], unit)}, measured {with_unit(row['pick_actual'], unit)} "
                         f"(the best unseen design: {with_unit(row['best_actual'], unit)})")
        return "\n".join(lines)

    def plot(self, *, title: str | None = None) -> Figure:
        """Fig. 5's bars: each model's median relative error, with the spread over seeds."""
        draw = load_reference("starchart.report.figures:plot_model_comparison")
        return draw(self, title=title)

    def report_sections(self) -> list[tuple[str, Any]]:
        """Sections for the HTML report: the summary and the bars."""
        return [("Tree against other models", self.summary()), ("Models on unseen designs", self.plot())]


def compare_models(dataset: Dataset, metric: str | None = None, *, train: int = 200, validation: int = 200,
                   seeds: int = 10, models: Sequence[str] = MODELS, log_response: bool = False,
                   minimize: bool | None = None, seed: int = 0) -> ModelComparison:
    """The tree, stepwise linear regression and a forest, each trained on ``train`` designs and judged on
    ``validation`` others, over ``seeds`` draws (paper §VI-B, Fig. 5).

    Parameters
    ----------
    dataset:
        Measured configurations; the valid ones with a finite ``metric`` are drawn from.
    metric:
        The response; default the dataset's default metric.
    train, validation:
        Designs to train on and to judge on, drawn without overlap (the paper: 200 and 200).
    seeds:
        Independent draws; the table holds every one, the summary their medians.
    models:
        Which of :data:`MODELS` to compare.
    log_response:
        Fit the linear model to the logarithm of the metric (all values must be positive).
    minimize:
        Whether lower is better, for the best pick; default by the metric's name.
    seed:
        The first draw's seed; draw ``k`` uses ``seed + k``.

    Returns
    -------
    ModelComparison
        One row per model and draw (:data:`TABLE_COLUMNS`), with ``medians()``, ``summary()`` and ``plot()``.
    """
    metric = dataset.default_metric if metric is None else metric
    if metric not in dataset.metrics:
        raise InputError(f"no metric named {metric!r}", where="metric", hint=f"the metrics are: {', '.join(dataset.metrics)}")
    train = check("train", train, Interval(int, 2, None), hint="designs to train on: the paper uses 200")
    validation = check("validation", validation, Interval(int, 1, None), hint="designs to judge on: the paper uses 200")
    seeds = check("seeds", seeds, Interval(int, 1, None), hint="independent draws, e.g. 10")
    first_seed = int(check_seed(seed) or 0)
    largest = int(SEED.right or 0)
    if first_seed + seeds - 1 > largest:  # draw k is seeded seed + k
        raise InputError(f"seed {first_seed} + {seeds} draws passes the largest seed, {largest}", where="seed",
                         hint="choose a smaller seed")
    models = [check("models", m, Options(*MODELS)) for m in ([models] if isinstance(models, str) else models)]
    if not models:
        raise InputError("no model to compare", where="models", hint=f"choose among {', '.join(MODELS)}")
    minimize = lower_is_better(metric, dataset.meta) if minimize is None else bool(minimize)
    ok = dataset.ok()
    y_all = ok.y(metric)
    usable = np.isfinite(y_all) & (y_all != 0)  # a relative error needs a value that is not 0
    if log_response and not (y_all[usable] > 0).all():
        raise InputError(f"{metric!r} has values ≤ 0, which have no logarithm", where="log_response",
                         hint=say("compare with log_response=False", "compare without --log"))
    if usable.sum() < train + validation:
        raise InputError(f"{int(usable.sum())} valid designs with a non-zero {metric!r}, fewer than the "
                         f"{train} + {validation} to train and judge on", where="train",
                         hint=f"ask for at most {int(usable.sum())} in all")
    X_all = ok.X[usable].reset_index(drop=True)
    y_all = y_all[usable]
    encoded = _numeric_columns(X_all)
    rows = []
    for k in range(seeds):
        order = np.random.default_rng(first_seed + k).permutation(len(y_all))
        fit_on, judge = order[:train], order[train:train + validation]
        for model in models:
            predicted = _predict(model, X_all, encoded, y_all, fit_on, judge, log_response, first_seed + k)
            truth = y_all[judge]
            pick = int(np.argmin(predicted) if minimize else np.argmax(predicted))
            rows.append({"model": model, "seed": first_seed + k,
                         "median_rel_error": float(np.median(np.abs(predicted - truth) / np.abs(truth))),
                         "pick_predicted": float(predicted[pick]), "pick_actual": float(truth[pick]),
                         "best_actual": float(truth.min() if minimize else truth.max())})
    return ModelComparison(pd.DataFrame(rows, columns=list(TABLE_COLUMNS)), metric, minimize, train, validation,
                           bool(log_response), meta=dict(dataset.meta))


def _predict(model: str, X: pd.DataFrame, encoded: pd.DataFrame, y: np.ndarray, fit_on: np.ndarray,
             judge: np.ndarray, log_response: bool, seed: int) -> np.ndarray:
    """The ``judge`` rows' values as ``model`` predicts them, trained on the ``fit_on`` rows."""
    if model == "tree":
        return np.asarray(StarchartTree().fit(X.iloc[fit_on], y[fit_on]).predict(X.iloc[judge]), dtype=float)
    if model == "forest":
        forest = StarchartForest(n_estimators=50, random_state=seed).fit(X.iloc[fit_on], y[fit_on])
        return np.asarray(forest.predict(X.iloc[judge]), dtype=float)
    response = np.log(y[fit_on]) if log_response else y[fit_on]
    columns = list(encoded.columns)
    fitted = fit_stepwise(encoded.to_numpy(float)[fit_on], response, columns)
    predicted = fitted.predict(encoded.to_numpy(float)[judge])
    return np.exp(predicted) if log_response else predicted


def _numeric_columns(X: pd.DataFrame) -> pd.DataFrame:
    """The parameters as numbers for least squares: numeric ones as they are, booleans as 0/1, a text
    parameter one 0/1 column per value but its first (the regression's usual coding)."""
    parts = []
    for name in X.columns:
        column = X[name]
        if pd.api.types.is_bool_dtype(column):
            parts.append(column.astype(float).rename(name))
        elif pd.api.types.is_numeric_dtype(column):
            parts.append(column.astype(float))
        else:
            parts.append(pd.get_dummies(column.astype(str), prefix=name, drop_first=True, dtype=float))
    return pd.concat(parts, axis=1)
