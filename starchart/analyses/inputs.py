"""Input sensitivity (paper §VII-C): input size and shape as parameters, time as throughput.

A tuning study over several inputs treats the input characteristics (``n``, a
matrix shape, a graph's connectivity...) as parameters like any other. Times at
different sizes are not comparable, so they are first turned into throughput
(units of work per second) with a declared work function (:mod:`starchart.analyses.throughput`);
then :func:`input_sensitivity` tells

- how much the input itself matters (its share of the tree's SSE reduction, and
  how high in the tree it first splits),
- which tuning parameters' effect depends on the input: for each parameter, the
  share of the variance of log-throughput explained by its interaction with the
  input beyond their separate effects (a two-way ANOVA interaction term with its
  F test), and how its importance changes between the per-input trees,
- whether the best configuration and best subspace change with the input, and how
  well the best configuration of one input does on another (``transfer``).

:class:`PerInputEvaluator` measures a kernel whose input is fixed at build time
(``-DN=...``) at several sizes, with one evaluator (and one reference answer) per size.

Examples
--------
>>> rng = np.random.default_rng(1)
>>> X = pd.MultiIndex.from_product([[100, 200, 400], [1, 2, 4, 8], [0, 1], [1, 2]],
...                                names=["n", "tile", "vec", "pad"]).to_frame(index=False)
>>> # tile helps only at large n; vec helps at every n: only tile interacts with the input
>>> rate = 1e6 * (1 + X.vec) * np.where(X.n >= 400, X.tile, 1) * rng.uniform(0.97, 1.03, len(X))
>>> ds = Dataset.from_frame(X.assign(time=1e3 * X.n ** 2 / rate), metrics=["time"])
>>> result = input_sensitivity(ds, inputs=["n"], work="n^2")
>>> result.interactions[["parameter", "depends_on_input"]].to_dict("list")
{'parameter': ['tile', 'vec', 'pad'], 'depends_on_input': [True, False, False]}
>>> result.best["best_leaf"].tolist()      # the best subspace changes with the input
['vec = 1', 'vec = 1', 'tile = 8']
>>> result.transfer.round(2).loc["n=100"].tolist()   # n=100's best configuration at n=100, 200, 400
[1.0, 0.96, 0.13]
"""

from __future__ import annotations

import numbers
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from starchart._compat import moved_name
from starchart._util.configs import config_key, plain_config
from starchart._util.direction import lower_is_better
from starchart._util.plugins import load_reference
from starchart._util.validation import Interval, check
from starchart.analyses.throughput import WorkSpec, throughput_column
from starchart.dataset import Dataset
from starchart.errors import InputError, arg, say
from starchart.measure.base import Evaluator, FreshLockOnUnpickle, Measurement
from starchart.measure.process import space_names
from starchart.space import Space
from starchart.tree import StarchartTree, check_tree_options

if TYPE_CHECKING:  # the figures are drawn in starchart.report.figures
    from matplotlib.figure import Figure

__all__ = ["InputSensitivity", "PerInputEvaluator", "add_throughput", "input_sensitivity", "interaction_test"]


def add_throughput(dataset: Dataset, work: WorkSpec, *, size: str = "n", time: str = "time",
                   name: str = "throughput") -> Dataset:
    """``dataset`` with a metric ``name``: units of work per second, from ``time`` (ms) and ``work``.

    >>> ds = Dataset.from_frame(pd.DataFrame({"n": [10, 20], "bx": [1, 1], "time": [1.0, 4.0]}), metrics=["time"])
    >>> add_throughput(ds, "n^2").frame["throughput"].tolist()
    [100000.0, 100000.0]
    """
    if time not in dataset.metrics:
        raise InputError(f"no metric named {time!r}", where=dataset.meta.get("source") or "dataset",
                         hint=f"the metrics are: {', '.join(dataset.metrics)}; name the time metric with {arg('time', '')}")
    if name in dataset.frame.columns and name not in dataset.metrics:
        raise InputError(f"the dataset already has a column {name!r}", where="name", hint="choose another name")
    frame = dataset.frame.copy()
    # only the parameters (and the time) may appear in the work function, not status or other metrics
    rate = throughput_column(frame[[*dataset.params, time]], time, _numeric_work(work), size).to_numpy(float)
    if np.isinf(rate).any():  # a finite time and infinite work: the rows would vanish as "not valid"
        i = int(np.argmax(np.isinf(rate)))
        raise InputError(f"the work function gives infinite units of work for "
                         f"{plain_config(frame[dataset.params].iloc[i].to_dict())}", where="work",
                         hint="work must be a finite positive number, e.g. 'n^2' or 'n * m'")
    frame[name] = rate
    frame.loc[frame["status"] != "ok", name] = np.nan
    metrics = [*dataset.metrics, name] if name not in dataset.metrics else list(dataset.metrics)
    # the new objective is a rate: a "minimize" recorded for the time (a store's) must not carry over
    meta = {**dataset.meta, "work": work if isinstance(work, str) else getattr(work, "__name__", "callable"),
            "objective": name, "minimize": False}
    return Dataset(frame=frame, params=list(dataset.params), metrics=metrics, meta=meta)


def _numeric_work(work: WorkSpec) -> WorkSpec:
    """``work``, a callable's result checked to be a number (a string or None raised a bare TypeError).

    >>> _numeric_work(lambda c: "n")({"n": 2})
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: work: the work function returned 'n' for {'n': 2}, not a number (hint: return the units of work as a number, e.g. lambda c: c['n'] ** 3)
    """
    if not callable(work):
        return work

    def numeric(config: Mapping[str, Any]) -> float:
        value = work(config)
        if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
            return float(value)
        raise InputError(f"the work function returned {value!r} for {plain_config(config)}, not a number",
                         where="work", hint="return the units of work as a number, e.g. lambda c: c['n'] ** 3")
    return numeric


# ---------------------------------------------------------------------- interaction test
def _one_hot(codes: np.ndarray, levels: int) -> np.ndarray:
    out = np.zeros((len(codes), levels))
    out[np.arange(len(codes)), codes] = 1.0
    return out[:, 1:]  # the first level is the baseline


def _within(values: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``values`` (a vector or the columns of a matrix) minus their mean within each group of ``codes``.

    >>> _within(np.array([1.0, 3.0, 5.0]), np.array([0, 0, 1])).tolist()
    [-1.0, 1.0, 0.0]
    """
    counts = np.bincount(codes).astype(float)
    if values.ndim == 1:
        return values - (np.bincount(codes, weights=values) / counts)[codes]
    sums = np.zeros((counts.size, values.shape[1]))
    for j in range(values.shape[1]):
        sums[:, j] = np.bincount(codes, weights=values[:, j], minlength=counts.size)
    return values - (sums / counts[:, None])[codes]


def _rss(design: np.ndarray, y: np.ndarray) -> tuple[float, int]:
    """Residual sum of squares of a least-squares fit, and the rank of the design."""
    coef, _, rank, _ = np.linalg.lstsq(design, y, rcond=None)
    resid = y - design @ coef
    return float(resid @ resid), int(rank)


def interaction_test(y: np.ndarray, group: np.ndarray, factor: np.ndarray,
                     block: np.ndarray | None = None) -> dict[str, float]:
    """Two-way ANOVA of ``y`` on an input ``group`` and a parameter ``factor``: does the
    factor's effect depend on the group?

    Compares the additive model (group + factor) with one mean per (group, factor)
    cell. When the same configurations were measured at several inputs, pass their
    identity as ``block``: the additive model then has one effect per configuration
    (which absorbs the factor's and every other parameter's main effect), so the
    interaction is tested against what is left — a much more sensitive test.

    Returns ``interaction_share`` (the variance the interaction explains, as a share
    of the total), ``main_share`` (the factor's own share beyond the group), the F
    statistic and its p-value (NaN without SciPy or without residual degrees of
    freedom), and the degrees of freedom.

    >>> g = np.repeat([0, 1], 8); f = np.tile([0, 0, 1, 1], 4); noise = np.tile([0.1, -0.1], 8)
    >>> round(interaction_test(np.where(g == 1, f, 0) + noise, g, f)["interaction_share"], 2)
    0.32
    >>> round(interaction_test(f + g + noise, g, f)["interaction_share"], 6)
    0.0
    """
    y = np.asarray(y, dtype=float)
    g_codes = pd.factorize(np.asarray(group, dtype=object))[0]
    f_codes = pd.factorize(np.asarray(factor, dtype=object))[0]
    cells = pd.factorize(pd.Series(list(zip(g_codes, f_codes))))[0]
    ones = np.ones((len(y), 1))
    total = float(((y - y.mean()) ** 2).sum())
    g_design = np.hstack([ones, _one_hot(g_codes, g_codes.max() + 1)])
    with_factor = np.hstack([g_design, _one_hot(f_codes, f_codes.max() + 1)])
    rss_group, _ = _rss(g_design, y)
    rss_factor, rank_factor = _rss(with_factor, y)
    if block is None:
        rss_add, rank_add = rss_factor, rank_factor
        n_cells = int(cells.max() + 1)
        means = pd.Series(y).groupby(cells).transform("mean").to_numpy()
        rss_full, rank_full = float(((y - means) ** 2).sum()), n_cells
    else:
        # One dummy per configuration made designs of n × (configurations) columns: a dense least-squares fit
        # of 11,130 rows took minutes per parameter. The configuration effects are projected out exactly
        # instead (Frisch–Waugh–Lovell: subtract each configuration's mean), leaving only the few group,
        # factor and cell columns to fit; rank([blocks, A]) = blocks + rank(A within blocks).
        b_codes = pd.factorize(np.asarray(block, dtype=object))[0]
        n_blocks = int(b_codes.max() + 1)
        y_within = _within(y, b_codes)
        f_all = np.hstack([_one_hot(g_codes, g_codes.max() + 1), _one_hot(f_codes, f_codes.max() + 1)])
        rss_add, rank_add = _rss(_within(f_all, b_codes), y_within)
        rss_full, rank_full = _rss(_within(np.eye(cells.max() + 1)[cells], b_codes), y_within)
        rank_add, rank_full = rank_add + n_blocks, rank_full + n_blocks
    df_int = rank_full - rank_add
    df_resid = len(y) - rank_full
    ss_int = max(rss_add - rss_full, 0.0)
    f_stat, p_value = float("nan"), float("nan")
    if df_int > 0 and df_resid > 0 and rss_full > 1e-12 * max(total, 1e-300):
        f_stat = (ss_int / df_int) / (rss_full / df_resid)
        try:
            from scipy.stats import f as f_dist
        except ImportError:  # SciPy is optional: the shares still say how strong the interaction is
            pass
        else:
            p_value = float(f_dist.sf(f_stat, df_int, df_resid))
    elif df_int > 0 and df_resid > 0 and ss_int > 0:
        f_stat, p_value = float("inf"), 0.0
    share = (lambda ss: ss / total) if total > 0 else (lambda ss: 0.0)
    return {"interaction_share": share(ss_int), "main_share": share(max(rss_group - rss_factor, 0.0)),
            "F": f_stat, "p_value": p_value, "df_interaction": int(df_int), "df_residual": int(df_resid)}


# ---------------------------------------------------------------------- the analysis
@dataclass(repr=False)
class InputSensitivity:
    """What :func:`input_sensitivity` found.

    Attributes
    ----------
    tree:
        One tree over every parameter, the inputs included.
    trees:
        One tree per input (keyed by the input's values as a tuple) over the tuning parameters.
    importance:
        Tuning parameters × inputs: each per-input tree's normalised importance,
        plus a column ``"all inputs"`` (the merged tree, inputs included as rows).
    interactions:
        Per tuning parameter: ``interaction_share``, ``main_share``, ``F``,
        ``p_value`` and ``depends_on_input``; strongest interaction first.
    best:
        Per input: the best measured configuration and value, and the best leaf of its tree.
    transfer:
        Inputs × inputs: the performance, relative to the best measured at the column's
        input, of the best configuration of the row's input (0 where it failed there, as a
        failure is worth nothing; NaN where it was not measured there).
    """

    data: Dataset
    metric: str
    minimize: bool
    inputs: list[str]
    params: list[str]
    tree: StarchartTree
    trees: dict[tuple, StarchartTree]
    importance: pd.DataFrame
    interactions: pd.DataFrame
    best: pd.DataFrame
    transfer: pd.DataFrame
    options: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        # The dataclass repr printed every field (the data, the trees, the tables) in a notebook.
        return (f"<InputSensitivity {self.metric} over {len(self.best)} inputs of {', '.join(self.inputs)}: "
                f"{self.input_share:.0%} of the tree's SSE reduction is the input's; depends on the input: "
                f"{', '.join(self.dependent()) or 'no parameter'}; .summary() for more>")

    @property
    def input_share(self) -> float:
        """The inputs' share of the merged tree's SSE reduction."""
        imp = self.tree.importance(normalize=True)
        return float(imp[self.inputs].sum())

    def input_depth(self) -> int | None:
        """The shallowest depth at which the merged tree splits on an input (None: never)."""
        depths = [n.depth for n in self.tree.nodes_ if n.feature in self.inputs]
        return min(depths) if depths else None

    def dependent(self) -> list[str]:
        """The tuning parameters whose effect depends on the input."""
        return self.interactions.loc[self.interactions["depends_on_input"], "parameter"].tolist()

    def summary(self) -> str:
        """A few lines: the inputs' importance, the parameters that interact with them, the bests."""
        depth = self.input_depth()
        rule = (f"interaction ≥ {self.options.get('min_share', 0.02):.0%} of the variance, "
                f"p < {self.options.get('alpha', 0.01):g}")
        lines = [f"inputs {self.inputs}: {self.input_share:.0%} of the merged tree's SSE reduction "
                 f"({self.metric}); first input split at depth {depth if depth is not None else '—'}",
                 f"effect depends on the input ({rule}): " + (", ".join(self.dependent()) or "no parameter")]
        for _, row in self.interactions.iterrows():
            if row["interaction_share"] == 0 and row["main_share"] == 0:
                continue  # a parameter with one value (in this data) has no effect to show
            p_value = f", p={row['p_value']:.2g}" if np.isfinite(row["p_value"]) else ""
            lines.append(f"  {row['parameter']}: interaction {row['interaction_share']:.1%} of the variance, "
                         f"own effect {row['main_share']:.1%}{p_value}")
        for _, row in self.best.iterrows():
            where = ", ".join(f"{k}={row[k]}" for k in self.inputs)
            lines.append(f"  best at {where}: {row['best_value']:.4g} with {row['best_config']}")
        for label in self.options.get("no_valid", []):
            lines.append(f"  no valid measurement of {self.metric} at {label}: left out of the analysis")
        return "\n".join(lines)

    def plot(self, *, title: str | None = None) -> Figure:
        """See :func:`plot_input_sensitivity`."""
        return load_reference("starchart.report.figures:plot_input_sensitivity")(self, title=title)

    def plot_tree(self, *, top_splits: int | None = 3, title: str | None = None) -> Figure:
        """The merged tree over the inputs and the tuning parameters with each input's best subspace shaded (the
        paper's Fig. 9): the ``top_splits`` splits that explain most and the way to every input's best leaf.
        See :func:`starchart.report.figures.plot_input_tree`."""
        return load_reference("starchart.report.figures:plot_input_tree")(self, top_splits=top_splits, title=title)

    def report_sections(self) -> list[tuple[str, Any]]:
        """``(heading, content)`` pairs for the HTML report's ``extra_sections``."""
        best = self.best.copy()
        best["best_config"] = best["best_config"].map(str)
        return [("Input sensitivity", self.plot()), ("Input sensitivity: interactions", self.interactions),
                ("Input sensitivity: best per input", best),
                ("Input sensitivity: best configuration of one input at another", self.transfer.reset_index())]


def input_sensitivity(dataset: Dataset, inputs: Sequence[str], metric: str | None = None, *,
                      work: WorkSpec | None = None, size: str | None = None, time: str = "time",
                      minimize: bool | None = None, alpha: float = 0.01, min_share: float = 0.02,
                      tree_options: Mapping[str, Any] | None = None) -> InputSensitivity:
    """How the input changes the tuning: merged and per-input trees, interactions, bests, transfer.

    Parameters
    ----------
    dataset:
        Measurements where the input characteristics are parameters.
    inputs:
        The parameters that describe the input (e.g. ``["n"]`` or ``["rows", "cols"]``).
    metric:
        The response; default ``"throughput"`` when ``work`` is given, else the default metric.
    work:
        A work function (``"n"``, ``"n^2"``, ``"n * m"``...): ``time`` is turned into
        throughput (work per second, to maximise) first, see :func:`add_throughput`.
    size:
        The size parameter for named work functions; default the first input.
    time:
        The time metric (in ms) that ``work`` turns into throughput.
    minimize:
        Whether smaller is better; default by the metric's name
        (:func:`starchart._util.direction.lower_is_better`: throughput and GFLOP/s are maximised, time minimised).
    alpha, min_share:
        A parameter's effect *depends on the input* when its interaction explains at
        least ``min_share`` of the variance of the log metric and its F test has
        p < ``alpha`` (the p-value is skipped when SciPy is absent). When most
        configurations were measured at several inputs, the test is blocked on the
        configuration (see :func:`interaction_test`; ``options["paired"]``).
    tree_options:
        Keyword arguments of :class:`~starchart.StarchartTree`.
    """
    # inputs="rows" names one parameter (iterating the string would name its letters)
    inputs = [inputs] if isinstance(inputs, str) else [str(i) for i in inputs]
    missing = [i for i in inputs if i not in dataset.params]
    if not inputs or missing:
        raise InputError(f"input parameter(s) {missing or inputs} not among the parameters {dataset.params}",
                         where="inputs", hint="name the parameters that describe the input, e.g. " + say("inputs=['n']", "--input N"))
    for label, value in (("alpha", alpha), ("min_share", min_share)):
        check(label, value, Interval(float, 0, 1, closed="neither"),
              hint="alpha is a p-value threshold (0.01), min_share a share of variance (0.02)")
    params = [p for p in dataset.params if p not in inputs]
    if not params:
        raise InputError("every parameter is an input: nothing is tuned", where="inputs",
                         hint="keep at least one tuning parameter")
    if work is not None:
        dataset = add_throughput(dataset, work, size=size or inputs[0], time=time)
        metric = "throughput" if metric is None else metric
    metric = dataset.default_metric if metric is None else metric
    minimize = lower_is_better(metric, dataset.meta) if minimize is None else bool(minimize)
    y_all = dataset.y(metric)
    keep = dataset.valid.to_numpy() & np.isfinite(y_all)
    frame = dataset.frame[keep]
    if len(frame) < 4:
        raise InputError(f"only {len(frame)} valid measurements of {metric!r}", where="dataset",
                         hint="measure more configurations at each input")
    data = Dataset(frame=frame, params=list(dataset.params), metrics=list(dataset.metrics), meta=dict(dataset.meta))
    y = frame[metric].to_numpy(float)
    options = check_tree_options(tree_options)
    tree = StarchartTree(**options).fit(frame[dataset.params], y)

    groups = frame.groupby(inputs, sort=True, observed=True).indices
    # inputs at which nothing valid was measured would otherwise vanish from every table without a word
    measured = dataset.frame.groupby(inputs, sort=True, observed=True).indices
    no_valid = [_input_label(inputs, k if isinstance(k, tuple) else (k,)) for k in measured if k not in groups]
    if len(groups) < 2:
        raise InputError(f"the data holds a single input ({list(groups)[0]})", where="inputs",
                         hint="measure at two input sizes at least")
    trees, best_rows, imp = {}, [], {}
    for key, rows in groups.items():
        key = key if isinstance(key, tuple) else (key,)
        part = frame.iloc[rows]
        values = y[rows]
        label = _input_label(inputs, key)
        trees[key] = StarchartTree(**options).fit(part[params], values)
        imp[label] = trees[key].importance(normalize=True)
        at = int(np.argmin(values) if minimize else np.argmax(values))
        leaf = trees[key].best_leaf(minimize=minimize)
        best_rows.append({**{k: _plain(v) for k, v in zip(inputs, key)}, "samples": len(rows),
                          "best_value": float(values[at]),
                          "best_config": plain_config({p: part.iloc[at][p] for p in params}),
                          "best_leaf": leaf.description, "best_leaf_mean": leaf.mean})
    importance = pd.DataFrame(imp)
    merged = tree.importance(normalize=True)
    importance["all inputs"] = merged.reindex(importance.index)
    for i in inputs:
        importance.loc[i, "all inputs"] = merged[i]
    importance = importance.sort_values("all inputs", ascending=False)

    # Interactions on the log scale: a parameter that scales throughput by the same factor
    # at every size does not interact, however large the sizes' own differences.
    response = np.log(y) if (y > 0).all() else y
    group = np.array([config_key(dict(zip(inputs, r))) for r in frame[inputs].itertuples(index=False)])
    configs = np.array([config_key(dict(zip(params, r))) for r in frame[params].itertuples(index=False)])
    # The same configurations measured at several inputs: test against their own effects.
    paired = len(set(configs)) <= len(configs) / 1.5
    rows = []
    for p in params:
        stats = interaction_test(response, group, frame[p].to_numpy(), block=configs if paired else None)
        significant = not np.isfinite(stats["p_value"]) or stats["p_value"] < alpha
        rows.append({"parameter": p, **stats,
                     "depends_on_input": bool(stats["interaction_share"] >= min_share and significant)})
    interactions = pd.DataFrame(rows).sort_values("interaction_share", ascending=False, kind="stable")
    interactions = interactions.reset_index(drop=True)

    transfer = _transfer(frame, inputs, params, y, minimize, best_rows, failed=dataset.frame[~keep])
    return InputSensitivity(data=data, metric=metric, minimize=minimize, inputs=inputs, params=params, tree=tree,
                            trees=trees, importance=importance, interactions=interactions,
                            best=pd.DataFrame(best_rows), transfer=transfer,
                            options={"alpha": alpha, "min_share": min_share, "tree_options": options,
                                     "paired": paired, "no_valid": no_valid,
                                     "work": work if isinstance(work, str) or work is None else "callable"})


def _transfer(frame: pd.DataFrame, inputs: list[str], params: list[str], y: np.ndarray, minimize: bool,
              best_rows: list[dict[str, Any]], failed: pd.DataFrame) -> pd.DataFrame:
    keys = pd.Series([config_key(dict(zip(params, r))) for r in frame[params].itertuples(index=False)],
                     index=frame.index)
    failed_at: dict[str, set[str]] = {}  # input label -> configurations that failed there
    for row in failed[inputs + params].itertuples(index=False):
        label = _input_label(inputs, row[:len(inputs)])
        failed_at.setdefault(label, set()).add(config_key(dict(zip(params, row[len(inputs):]))))
    labels, table = [], {}
    groups = frame.groupby(inputs, sort=True, observed=True).indices
    for key, rows in groups.items():
        key = key if isinstance(key, tuple) else (key,)
        labels.append(_input_label(inputs, key))
        table[labels[-1]] = dict(zip(keys.iloc[rows], y[rows]))
    out = pd.DataFrame(index=pd.Index(labels, name="best of"), columns=labels, dtype=float)
    for row_label, best in zip(labels, best_rows):
        config = config_key(best["best_config"])
        for col in labels:
            there = table[col]
            if config in there:
                best_there = min(there.values()) if minimize else max(there.values())
                out.loc[row_label, col] = best_there / there[config] if minimize else there[config] / best_there
            elif config in failed_at.get(col, ()):
                out.loc[row_label, col] = 0.0
    return out


def _input_label(inputs: Sequence[str], values: Sequence[Any]) -> str:
    """How tables name one input, e.g. ``"n=256"`` or ``"rows=64, cols=32"``."""
    return ", ".join(f"{k}={_plain(v)}" for k, v in zip(inputs, values))


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


# ---------------------------------------------------------------------- measuring at several inputs
class PerInputEvaluator(FreshLockOnUnpickle, Evaluator):
    """Measure at several inputs with one evaluator per input, built on demand by ``make``.

    For kernels whose input is fixed when they are built (``gcc -DN=256``), each size
    needs its own reference answer: ``make({"N": 256})`` returns the evaluator for
    that size. Configurations (which include the input parameters) are passed on
    whole, and come back whole.

    The evaluator cannot be rebuilt from its description: resume such a study by
    passing the evaluator again (and, for Ray, make ``make`` a module-level function).

    >>> from starchart.measure import PythonEvaluator
    >>> ev = PerInputEvaluator(lambda i: PythonEvaluator(lambda c: c["n"] * c["b"]), ["n"])
    >>> ev.evaluate({"n": 3, "b": 2}).values
    {'time': [6.0]}
    """

    kind = "per-input"

    def __init__(self, make: Callable[[dict[str, Any]], Evaluator], inputs: Sequence[str], *,
                 metrics: Sequence[str] = ("time",), minimize: bool = True):
        if not callable(make):
            raise InputError("make must be a function from an input to an evaluator", where="PerInputEvaluator",
                             hint="e.g. lambda i: CEvaluator('k.c', defines={'N': i['N']})")
        self.make = make
        self.inputs = [str(i) for i in inputs]
        if not self.inputs:
            raise InputError("name the input parameters", where="PerInputEvaluator", hint="e.g. inputs=['N']")
        self.metrics = tuple(metrics)
        self.minimize = bool(minimize)
        self._space: Any = None
        self._evaluators: dict[str, Evaluator] = {}
        self._lock = threading.Lock()  # worker threads must not build one input's evaluator twice

    def prepare(self, space: Space) -> None:

        lacking = [i for i in self.inputs if i not in space_names(space)]
        if lacking:
            raise InputError(f"the space has no input parameter(s) {lacking}", where="PerInputEvaluator",
                             hint=f"its parameters are {list(space_names(space))}")
        self._space = space

    def evaluator_for(self, config: Mapping[str, Any]) -> Evaluator:
        """The evaluator of ``config``'s input (built and prepared the first time)."""
        values = {i: _plain(config[i]) for i in self.inputs}
        key = config_key(values)
        with self._lock:
            if key not in self._evaluators:
                evaluator = self.make(values)
                if self._space is not None:
                    evaluator.prepare(self._space)
                self._evaluators[key] = evaluator
            return self._evaluators[key]

    def _measure(self, config: dict[str, Any]) -> Measurement:
        missing = [i for i in self.inputs if i not in config]
        if missing:
            return Measurement.failure(config, "runtime", f"the configuration lacks input parameter(s) {missing}")
        result = self.evaluator_for(config).evaluate(config)
        result.config = dict(config)
        return result

    def describe(self) -> dict[str, Any]:
        described = {key: ev.describe() for key, ev in self._evaluators.items()}
        return {**super().describe(), "inputs": self.inputs, "evaluators": described}

    def close(self) -> None:
        for evaluator in self._evaluators.values():
            evaluator.close()


def __getattr__(name: str) -> Any:
    # plot_input_sensitivity moved to starchart.report.figures with the other figures; its old name still works here
    return moved_name(__name__, name)
