"""How many samples does a tree need? Paper §VI-A: grow the training set until a held-out set is predicted well.

:func:`choose_sample_size` holds out ``validation`` uniformly drawn designs
(measured once, never fitted on), then measures uniformly drawn training designs
in growing batches (20, 40, 80, ... by default), refits a Starchart tree after
each batch and stops as soon as the median relative prediction error on the
validation set reaches ``target``, or when the training budget is spent.

Measurements go through :func:`starchart.run`, so a live evaluator (C, CUDA,
command line) and a :class:`~starchart.measure.ReplayEvaluator` are driven the
same way, and with ``store=`` the study is kept on disk and resumes. A failed
design costs a measurement (it counts towards the budget) but is not fitted on.

Examples
--------
>>> import numpy as np
>>> from starchart import Space
>>> from starchart.measure import PythonEvaluator
>>> space = Space({"a": range(16), "b": range(16)})
>>> evaluator = PythonEvaluator(lambda c: 1.0 + (c["a"] > 7) * 4 + (c["b"] > 3) * 2)
>>> result = choose_sample_size(space, evaluator, validation=40, target=0.01, budget=160)
>>> bool(result.reached), result.samples
(True, 40)
>>> result.curve[["samples", "fitted", "median_rel_error"]].round(3).to_dict("list")
{'samples': [20, 40], 'fitted': [20, 40], 'median_rel_error': [0.333, 0.0]}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from starchart._compat import moved_name
from starchart._util.configs import config_key, frame_configs, frame_keys
from starchart._util.plugins import load_reference
from starchart._util.text import percent
from starchart._util.validation import Interval, check
from starchart.dataset import Dataset
from starchart.errors import InputError, arg, say
from starchart.measure.base import Evaluator
from starchart.measure.replay import ReplayEvaluator
from starchart.space import Space
from starchart.study.records import SampleSizeRecord
from starchart.study.runner import run, stored_study, study_evaluator, study_space
from starchart.study.store import Store, opened_store
from starchart.tree import StarchartTree, check_tree_options

if TYPE_CHECKING:  # the figures are drawn in starchart.report.figures
    from matplotlib.figure import Figure

__all__ = ["SampleSizeResult", "choose_sample_size", "relative_errors", "resume_sample_size",
           "training_sizes"]

#: The columns of :attr:`SampleSizeResult.curve`.
CURVE_COLUMNS = ("samples", "fitted", "failures", "median_rel_error", "mean_rel_error", "p90_rel_error",
                 "leaves", "depth")

#: The default training budget; the first uniform draw holds ``validation`` + this many designs.
DEFAULT_BUDGET = 3200


@dataclass
class SampleSizeResult:
    """What :func:`choose_sample_size` found.

    Attributes
    ----------
    curve:
        One row per training-set size tried: ``samples`` (training designs measured,
        failures included), ``fitted`` (valid ones the tree was fitted on),
        ``failures``, the ``median``/``mean``/``p90`` relative error on the
        validation set, and the tree's ``leaves`` and ``depth``.
    samples:
        The chosen training-set size: the first that reached ``target``, else the last tried.
    reached:
        Whether ``target`` was reached within the budget.
    tree:
        The tree fitted on the chosen training set.
    target:
        The median relative error aimed at.
    metric:
        The response.
    training, validation:
        The measured training and validation designs (failures included).
    exhausted:
        Whether the target was missed because every design of the space was measured
        (a larger budget cannot help).
    """

    curve: pd.DataFrame
    samples: int
    reached: bool
    tree: StarchartTree
    target: float
    metric: str
    training: Dataset
    validation: Dataset
    options: dict[str, Any] = field(default_factory=dict)
    exhausted: bool = False

    def plot(self, *, title: str | None = None) -> Figure:
        """The accuracy-vs-samples curve (see :func:`plot_sample_size`)."""
        return load_reference("starchart.report.figures:plot_sample_size")(self.curve, target=self.target, chosen=self.samples, metric=self.metric,
                                title=title)

    def summary(self) -> str:
        """One line: the chosen size and the error it reached."""
        row = self.curve[self.curve["samples"] == self.samples].iloc[-1]
        verdict = ("reached" if self.reached else "not reached: every design of the space is measured"
                   if self.exhausted else "not reached within the budget")
        y_valid = self.validation.ok().y(self.metric)
        scored = int((np.isfinite(y_valid) & (y_valid != 0)).sum())
        # a design whose value is 0 (or not finite) has no relative error: say it was left out, don't hide it
        left_out = (f" ({len(y_valid) - scored} more left out: a value of 0 has no relative error)"
                    if scored < len(y_valid) else "")
        return (f"{self.samples} training samples: median relative error {percent(row['median_rel_error'])} "
                f"on {scored} validation designs{left_out} (target {percent(self.target)} {verdict}); "
                f"tree with {int(row['leaves'])} {'leaf' if int(row['leaves']) == 1 else 'leaves'}")

    def report_sections(self) -> list[tuple[str, Any]]:
        """``(heading, content)`` pairs for :func:`starchart.report.html.write_html_report`'s ``extra_sections``."""
        table = self.curve.copy()
        for column in ("median_rel_error", "mean_rel_error", "p90_rel_error"):
            table[column] = (100 * table[column]).round(2)
        table = table.rename(columns={c: c.replace("_rel_error", " rel. error (%)") for c in table.columns})
        return [("Accuracy vs training samples", self.plot()), ("Accuracy vs training samples (table)", table)]


def relative_errors(predicted: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """``|predicted − actual| / |actual|`` element-wise (the paper's relative prediction error).

    >>> relative_errors(np.array([1.1, 2.0]), np.array([1.0, 4.0])).round(3).tolist()
    [0.1, 0.5]
    """
    actual = np.asarray(actual, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.abs(np.asarray(predicted, dtype=float) - actual) / np.abs(actual)


def training_sizes(start: int, growth: float | Sequence[int], budget: int) -> list[int]:
    """The training-set sizes to try: ``start`` multiplied by ``growth`` each round (or the
    sizes given), never beyond ``budget``, which is always the last size.

    >>> training_sizes(20, 2.0, 200)
    [20, 40, 80, 160, 200]
    >>> training_sizes(20, [20, 50, 100, 200, 400], 300)
    [20, 50, 100, 200, 300]
    >>> training_sizes(20, 1.5, 40)
    [20, 30, 40]
    """
    if budget < 1:
        raise InputError(f"the training budget must be at least 1, got {budget}", where="budget",
                         hint="allow more measurements, or hold out fewer validation designs")
    if isinstance(growth, (int, float, np.number)) and not isinstance(growth, bool):
        # a finite factor: inf would overflow int(round(n * growth))
        factor: float = check("growth", growth, Interval(float, 1, None, closed="neither"),
                              hint=f"a factor: {arg('growth', '2')} doubles the training set every round")
        start = check("start", start, Interval(int, 2, None), hint="the paper starts with 20 samples")
        sizes, n = [], int(start)
        while n < budget:
            sizes.append(n)
            n = max(n + 1, int(round(n * factor)))
    else:
        given = [int(s) for s in growth]
        if not given or any(b <= a for a, b in zip(given, given[1:])) or given[0] < 2:
            raise InputError(f"growth as a list must hold increasing sizes of at least 2, got {list(growth)}",
                             where="growth", hint="e.g. " + say("growth=[20, 50, 100, 200, 400]", "--growth 2"))
        sizes = [s for s in given if s < budget]
    return [*sizes, int(budget)]


def choose_sample_size(space: Space, evaluator: Evaluator, *, validation: int = 200, start: int = 20,
                       growth: float | Sequence[int] = 2.0, target: float = 0.08, budget: int = 3200,
                       seed: int = 0, store: Store | str | Path | None = None, metric: str | None = None,
                       tree_options: Mapping[str, Any] | None = None, workers: int = 1,
                       progress: bool = False) -> SampleSizeResult:
    """Measure growing uniform training samples until the tree predicts held-out designs well (§VI-A).

    Parameters
    ----------
    space:
        The tuning space (for replayed data: ``Space.from_dataset(dataset)``).
    evaluator:
        Measures one design (live, or a :class:`~starchart.measure.ReplayEvaluator`).
    validation:
        Designs held out for validation (the paper: 200); measured first, never fitted on.
        Failed ones are left out of the error.
    start:
        The first training-set size (the paper: 20).
    growth:
        Factor by which the training set grows each round (2: 20, 40, 80...), or an
        increasing list of sizes (e.g. ``range(20, 401, 20)`` for +20 steps).
    target:
        Stop at this median relative error on the validation set (0.08 = 8 %).
    budget:
        The most training designs to measure, failures included (the validation
        set comes on top). Capped by the space: training and validation are drawn
        from one uniform sample without duplicates.
    seed:
        Seed of that sample (same seed, same designs, same curve).
    store:
        Keep the measurements in this :class:`~starchart.Store` (or file), with these
        settings: a run interrupted and started again (or continued by
        :func:`resume_sample_size`, ``starchart resume``) measures nothing twice.
    metric:
        The response to model; default ``evaluator.objective``.
    tree_options:
        Keyword arguments of :class:`~starchart.StarchartTree` (threshold, min_samples_split, max_depth).
    workers, progress:
        Passed to :func:`starchart.run`.

    Returns
    -------
    SampleSizeResult
        The curve, the chosen size, and the tree fitted on it.
    """
    metric = evaluator.objective if metric is None else metric
    target = check("target", target, Interval(float, 0, 1, closed="neither"),
                   hint=f"a relative error: {arg('target', '0.08')} for 8 % median relative error")
    validation = check("validation", validation, Interval(int, 1, None), hint="designs held out: the paper holds 200")
    size = space.size()
    if size <= validation + 1:
        raise InputError(f"the space holds {size} designs, too few to hold out {validation} and train on the rest",
                         where="validation", hint=f"hold out fewer than {size - 1} designs")
    budget = min(int(budget), size - validation)
    sizes = training_sizes(start, growth, budget)
    options = check_tree_options(tree_options)

    configs = _uniform_designs(space, validation + sizes[-1], min(size, validation + DEFAULT_BUDGET), seed)
    names = list(space.names)
    valid_configs, pool = configs[:validation], configs[validation:]

    settings = SampleSizeRecord(validation=validation, start=int(start),
                                growth=float(growth) if np.isscalar(growth) else [int(g) for g in growth],
                                target=float(target), budget=budget, seed=int(seed), metric=metric,
                                tree_options=options)
    with opened_store(store) as db:
        if store is not None:
            # refuse another space or evaluator before recording these settings: a refused command
            # must not leave the stored study with settings that cannot be resumed
            space = study_space(db, space)
            evaluator = study_evaluator(db, evaluator, space)
            settings.write(db)
        # A replay kept nowhere measures nothing: one run over every design the study may use, then each
        # round's rows of it (a run per round re-read the growing study 8 times: 0.6 s of a report)
        replayed = None
        if store is None and isinstance(evaluator, ReplayEvaluator):
            replayed = run(space, evaluator, store=db, configs=configs, workers=workers, progress=progress)

        def measure(batch: list[dict[str, Any]]) -> Dataset:
            if replayed is not None:
                return _select(replayed, batch, names)
            fresh = not {config_key(c) for c in batch} <= db.keys()  # a bar only for work left
            data = run(space, evaluator, store=db, configs=batch, workers=workers, progress=progress and fresh)
            return _select(data, batch, names)

        held_out = measure(valid_configs)
        if metric not in held_out.metrics:  # some evaluators learn their metrics from the first result
            raise InputError(f"the evaluator does not measure {metric!r}", where="metric",
                             hint=f"it measures: {', '.join(held_out.metrics) or 'nothing yet (all failed)'}")
        ok_validation = held_out.ok()
        y_valid = ok_validation.y(metric)
        if len(y_valid) == 0:
            common = [f"{status}: {reasons[0][0]}" for status, reasons in held_out.failure_reasons(top=1).items()
                      if reasons]
            why = f" (most often {common[0]})" if common else ""
            raise InputError(f"all {len(held_out)} validation designs failed{why}, so accuracy cannot be measured",
                             where="evaluator", hint="check the evaluator on a few designs first")
        usable = np.isfinite(y_valid) & (y_valid != 0)
        if not usable.any():  # every error would be x/0: the curve read "nan%" and the whole budget was spent
            raise InputError(f"{metric!r} is 0 or not a finite number in all {len(y_valid)} valid validation "
                             "designs, so a relative error cannot be measured", where="metric",
                             hint="check that the evaluator reports the metric, or model another one")

        rows, tree, training = [], None, None
        for n in sizes:
            training = measure(pool[:n])
            fit_on = training.ok()
            y_train = fit_on.y(metric)
            keep = np.isfinite(y_train)
            if keep.sum() == 0:
                rows.append(_row(n, 0, len(training), None, y_valid, ok_validation))
                continue
            tree = StarchartTree(**options).fit(fit_on.X[keep], y_train[keep])
            rows.append(_row(n, int(keep.sum()), len(training) - int(keep.sum()), tree, y_valid, ok_validation))
            if rows[-1]["median_rel_error"] <= target:
                break
    if tree is None:
        raise InputError(f"no training design of the {sizes[-1]} measured gave a value for {metric!r}",
                         where="evaluator", hint="check the evaluator on a few designs first")
    curve = pd.DataFrame(rows, columns=list(CURVE_COLUMNS))
    reached = bool(curve["median_rel_error"].iloc[-1] <= target)
    exhausted = not reached and validation + len(training) >= size
    return SampleSizeResult(curve=curve, samples=int(curve["samples"].iloc[-1]), reached=reached, tree=tree,
                            target=float(target), metric=metric, training=training, validation=held_out,
                            options=settings.to_json(), exhausted=exhausted)


def resume_sample_size(store: str | Path, *, workers: int = 1, progress: bool = False) -> SampleSizeResult:
    """Continue the sample-size study ``store`` holds, with the space, evaluator and settings
    it recorded; nothing it measured is measured again (a finished study returns at once).

    Examples
    --------
    >>> import os, sys, tempfile
    >>> from starchart.measure import CommandEvaluator
    >>> space = Space({"a": list(range(12)), "b": list(range(12))})
    >>> ev = CommandEvaluator([sys.executable, "-c", "print('time_ms:', 1 + ({a} > 5) * 4 + ({b} > 2))"],
    ...                       pattern=r"time_ms: (\\S+)")
    >>> path = os.path.join(tempfile.mkdtemp(), "s.db")
    >>> first = choose_sample_size(space, ev, validation=30, target=0.01, budget=80, store=path)
    >>> again = resume_sample_size(path)
    >>> again.samples == first.samples and again.curve.equals(first.curve)
    True
    """
    stored, space, evaluator = stored_study(store, "sample_size", "sample-size study")
    settings = SampleSizeRecord.from_json(stored, where=str(store)).arguments()
    # the recorded budget is already capped by the space; the cap is applied again, so it stays the same
    return choose_sample_size(space, evaluator, store=store, workers=workers, progress=progress, **settings)


def _uniform_designs(space: Space, n: int, block: int, seed: int) -> list[dict[str, Any]]:
    """The first ``n`` distinct designs of a uniform random order of the space fixed by ``seed`` and ``block``
    alone, not by ``n``: a larger budget extends the sample (same validation set, same training prefix)
    instead of redrawing it, so a study rerun with more budget measures only the new designs.

    Designs are drawn ``block`` at a time, the first block being ``space.sample(block, seed)``;
    dropping repeats of earlier blocks keeps the order uniform.
    """
    names = list(space.names)
    configs: list[dict[str, Any]] = []
    seen: set[str] = set()
    round_ = 0
    while len(configs) < n:
        rng = seed if round_ == 0 else np.random.default_rng([seed, round_])
        for config in frame_configs(space.sample(block, seed=rng), names):
            key = config_key(config, names)
            if key not in seen:
                seen.add(key)
                configs.append(config)
        round_ += 1
    return configs[:n]


def _select(data: Dataset, batch: list[dict[str, Any]], names: list[str]) -> Dataset:
    """The rows of ``data`` for the configurations in ``batch``, in batch order."""
    keys = [config_key(c, names) for c in batch]
    position = {key: i for i, key in enumerate(frame_keys(data.frame, names))}
    missing = [k for k in keys if k not in position]
    if missing:  # run() stores every configuration it is given; anything else is a bug upstream
        raise InputError(f"{len(missing)} configurations were not stored, e.g. {missing[0]}", where="store")
    frame = data.frame.iloc[[position[k] for k in keys]].reset_index(drop=True)
    return Dataset(frame=frame, params=list(data.params), metrics=list(data.metrics), meta=dict(data.meta))


def _row(n: int, fitted: int, failures: int, tree: StarchartTree | None, y_valid: np.ndarray,
         validation: Dataset) -> dict[str, Any]:
    if tree is None:
        errors = np.full(len(y_valid), np.nan)
    else:
        errors = relative_errors(tree.predict(validation.X), y_valid)
    finite = errors[np.isfinite(errors)]
    stat = (lambda f: float(f(finite))) if finite.size else (lambda f: np.nan)
    return {"samples": n, "fitted": fitted, "failures": failures,
            "median_rel_error": stat(np.median), "mean_rel_error": stat(np.mean),
            "p90_rel_error": stat(lambda e: np.quantile(e, 0.9)),
            "leaves": tree.n_leaves_ if tree is not None else 0, "depth": tree.depth_ if tree is not None else 0}


def __getattr__(name: str) -> Any:
    # plot_sample_size moved to starchart.report.figures with the other figures; its old name still works here
    return moved_name(__name__, name)
