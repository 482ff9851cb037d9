"""Threshold and tradeoff carving (Ryoo et al. 2008, §4.1): prune configurations before measuring them.

:func:`carve` takes one row per configuration with metric columns (typically
``efficiency`` and ``utilization`` from :mod:`starchart.carve.metrics`) and

1. **threshold carving** — drops the rows failing any user predicate, a pandas
   expression over the columns such as ``"BLOCK_SIZE_X >= 32"`` (coalesced loads)
   or ``"bandwidth_gbs < 900"``. As in the paper ("we prune configurations that do
   not perform global memory coalescing when configurations that enable coalescing
   exist"), a predicate that *no* remaining configuration satisfies is skipped and
   reported rather than emptying the space;
2. **tradeoff carving** — keeps the Pareto-optimal configurations in the metrics
   (all maximised). By default the paper's rule (§4.1.2): a configuration is pruned
   when another is better *in every metric*; ``strict=True`` also prunes those
   another one equals in one metric and beats in the other (the usual Pareto front).
   With ``within > 0`` it also keeps configurations close to the front (the paper's
   suggestion for robustness, §4.1.2): the distance of a configuration ``p`` to the
   front is the additive ε-indicator on metrics scaled to [0, 1] over the candidates,
   ``max(0, max_q min_k (q_k − p_k))`` — the smallest amount by which every metric
   of ``p`` would have to rise for no configuration to beat it in all of them.

Then :func:`measure_survivors` measures only the kept configurations with any
evaluator, through :func:`starchart.run`.

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"tile": [1, 2, 4, 8, 16], "coalesced": [0, 1, 1, 1, 1],
...                    "efficiency": [5.0, 1.0, 2.0, 3.0, 2.5], "utilization": [5.0, 4.0, 3.0, 1.0, 0.5]})
>>> result = carve(df, predicates=["coalesced == 1"], params=["tile"])
>>> result.kept["tile"].tolist(), result.dropped_by
([2, 4, 8], {'coalesced == 1': 1, 'dominated': 1})
>>> carve(df, predicates=["coalesced == 1"], within=0.25).kept["tile"].tolist()
[2, 4, 8, 16]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from starchart._util.configs import frame_configs, plain_config, plain_value
from starchart._util.validation import Interval, check
from starchart.carve.metrics import KTT_COUNTERS, _evaluate, counter_metrics, resolve
from starchart.errors import InputError
from starchart.space import Space as SpaceClass
from starchart.study.runner import run

if TYPE_CHECKING:
    from starchart.dataset import Dataset
    from starchart.measure import Evaluator
    from starchart.space import Space
    from starchart.study.store import Store

__all__ = ["CarveResult", "carve", "carve_counters", "front_distance", "measure_survivors", "pareto_front"]

#: Reasons written in the ``carved_by`` column besides the predicates themselves.
DOMINATED = "dominated"
NO_METRICS = "missing metrics"
#: A configuration of a CUDA source that the compiler refused (:func:`starchart.carve.static.carve_source`).
NOT_COMPILED = "does not compile"
#: Reasons for configurations carving could not judge (failed ones): reported apart, never counted as removed.
FAILED = (NO_METRICS, NOT_COMPILED)


@dataclass
class CarveResult:
    """What :func:`carve` kept and why it dropped the rest.

    Attributes
    ----------
    frame:
        The input rows with three columns added: ``carved_by`` (``""`` when kept,
        else the predicate that failed first, ``"missing metrics"``, ``"does not compile"``
        or ``"dominated"``), ``on_front`` (Pareto-optimal among the rows that passed the
        predicates) and ``front_distance`` (see :func:`front_distance`; NaN for rows
        that did not reach tradeoff carving).
    metrics:
        The metric names or expressions, all maximised.
    predicates:
        The threshold predicates, in order.
    skipped:
        Predicates not applied because no remaining configuration satisfied them.
    within, strict:
        The tradeoff-carving options used.
    params:
        The parameter columns (for :meth:`configs`), when known.
    """

    frame: pd.DataFrame
    metrics: tuple[str, ...]
    predicates: tuple[str, ...]
    skipped: tuple[str, ...] = ()
    within: float = 0.0
    strict: bool = False
    params: list[str] | None = None
    _metric_values: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)

    @property
    def kept(self) -> pd.DataFrame:
        """The configurations to measure."""
        return self.frame[self.frame["carved_by"] == ""]

    @property
    def front(self) -> pd.DataFrame:
        """The Pareto-optimal configurations (among those that passed the predicates)."""
        return self.frame[self.frame["on_front"]]

    @property
    def dropped_by(self) -> dict[str, int]:
        """How many configurations each predicate, missing metrics, compile errors and domination removed."""
        counts = self.frame["carved_by"].value_counts()
        order = [*self.predicates, *FAILED, DOMINATED]
        return {reason: int(counts[reason]) for reason in order if reason in counts.index}

    @property
    def failed(self) -> int:
        """How many configurations had no metrics or did not compile: carving could not judge them."""
        return int(self.frame["carved_by"].isin(FAILED).sum())

    @property
    def removed_share(self) -> float:
        """The fraction of the configurations with metrics that carving removed.

        Failed configurations (:attr:`failed`: no metrics, or no compile) are left out of both counts:
        carving did not remove them, they could not run, and counting them would inflate the share.
        """
        judged = len(self.frame) - self.failed
        return 1.0 - len(self.kept) / judged if judged else 0.0

    @property
    def metric_values(self) -> pd.DataFrame:
        """The metric values used (one column per metric, expressions evaluated), indexed like ``frame``."""
        return self._metric_values

    def configs(self, params: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """The kept configurations as plain ``{parameter: value}`` dicts."""
        names = list(params) if params is not None else self.params
        if not names:
            raise InputError("the parameter columns are unknown", where="CarveResult.configs",
                             hint="pass params=[...] to carve() or to configs(), or carve a Dataset")
        missing = [n for n in names if n not in self.frame.columns]
        if missing:
            raise InputError(f"parameter column(s) {missing} not in the carved table", where="params",
                             hint=f"choose among {list(self.frame.columns)}")
        return list(frame_configs(self.kept, names))

    def best(self, objective: str, *, minimize: bool = True) -> dict[str, Any]:
        """How the best kept configuration compares with the best of all, for a measured objective.

        Returns ``kept``, ``total``, ``removed_share``, ``best_overall``,
        ``best_kept`` and ``relative`` (best overall / best kept for a minimised
        objective, best kept / best overall for a maximised one: 1.0 means carving
        kept the optimum), plus ``best_kept_index`` and ``best_overall_index``.
        Rows without a finite objective value are ignored.

        Examples
        --------
        The fastest configuration (time 1.0) is dominated, the best kept one takes 2.0:

        >>> df = pd.DataFrame({"efficiency": [1, 2, 0.5], "utilization": [3, 2, 1], "time": [4.0, 2.0, 1.0]})
        >>> r = carve(df)
        >>> r.best("time")["relative"], r.best("time")["best_kept_index"]
        (0.5, 1)
        """
        values = pd.to_numeric(self.frame[objective], errors="coerce")
        values = values[np.isfinite(values)]
        kept = values[self.frame.loc[values.index, "carved_by"] == ""]
        pick = (lambda s: s.idxmin()) if minimize else (lambda s: s.idxmax())
        out: dict[str, Any] = {"kept": len(self.kept), "total": len(self.frame), "removed_share": self.removed_share,
                               "best_overall": None, "best_kept": None, "relative": None,
                               "best_overall_index": None, "best_kept_index": None}
        if len(values):
            out["best_overall_index"] = pick(values)
            out["best_overall"] = float(values[out["best_overall_index"]])
        if len(kept):
            out["best_kept_index"] = pick(kept)
            out["best_kept"] = float(kept[out["best_kept_index"]])
            a, b = out["best_overall"], out["best_kept"]
            out["relative"] = (a / b if minimize else b / a) if a and b else None
        return out

    def summary(self) -> str:
        """A few lines: the space, what each step removed, what is left.

        Examples
        --------
        >>> df = pd.DataFrame({"efficiency": [1, 2, 3], "utilization": [3, 2, 1], "ok": [1, 1, 0]})
        >>> print(carve(df, predicates="ok == 1").summary())
        carving kept 2 of 3 configurations (33.3 % removed)
          predicate ok == 1: removed 1
          kept: Pareto-optimal in (efficiency, utilization)
        """
        total, failed = len(self.frame), self.failed
        share = f"{100 * self.removed_share:.1f} %"
        # failed configurations are named apart: the share removed is of those carving could judge
        how = f"{share} of the {total - failed} with metrics removed; {failed} failed" if failed else f"{share} removed"
        lines = [f"carving kept {len(self.kept)} of {total} configurations ({how})"]
        dropped = self.dropped_by
        for reason in self.predicates:
            if reason in self.skipped:
                lines.append(f"  predicate {reason}: skipped (no configuration satisfies it)")
            else:
                lines.append(f"  predicate {reason}: removed {dropped.get(reason, 0)}")
        if dropped.get(NO_METRICS):  # failed configurations: not among the configurations above, not "removed"
            why = _why_missing(self.frame, self.frame["carved_by"] == NO_METRICS)
            lines.append(f"  missing metrics (failed, not counted as removed): {dropped[NO_METRICS]}"
                         + (f"; e.g. {why}" if why else ""))
        if dropped.get(NOT_COMPILED):
            first = self.frame.loc[self.frame["carved_by"] == NOT_COMPILED, "reason"].iloc[0] \
                if "reason" in self.frame.columns else ""
            lines.append(f"  do not compile (failed, not counted as removed): {dropped[NOT_COMPILED]}"
                         + (f"; first error: {first}" if first else ""))
        if dropped.get(DOMINATED):
            lines.append(f"  dominated: removed {dropped[DOMINATED]}")
        rule = "Pareto-optimal" + (" (strict)" if self.strict else "")
        near = f" or within {self.within:g} of the front" if self.within > 0 else ""
        lines.append(f"  kept: {rule}{near} in ({', '.join(self.metrics)})")
        return "\n".join(lines)

    def to_dict(self, params: Sequence[str] | None = None, *, objective: str | None = None,
                minimize: bool = True) -> dict[str, Any]:
        """A JSON-friendly description: counts, options, the kept configurations and, with a
        measured ``objective``, how the best kept one compares with the best of all (:meth:`best`).

        Examples
        --------
        >>> df = pd.DataFrame({"b": [1, 2, 4], "efficiency": [3, 2, 1], "utilization": [1, 2, 0.5],
        ...                    "time": [2.0, 1.0, 0.5]})
        >>> d = carve(df, params=["b"]).to_dict(objective="time")
        >>> d["kept"], d["kept_count"], d["best"]["relative"]
        ([{'b': 1}, {'b': 2}], 2, 0.5)
        """
        names = list(params) if params is not None else self.params
        out = {"total": len(self.frame), "failed": self.failed, "kept_count": len(self.kept),
               "removed_share": self.removed_share,
               "front_count": int(self.frame["on_front"].sum()), "dropped_by": self.dropped_by,
               "metrics": list(self.metrics), "predicates": list(self.predicates), "skipped": list(self.skipped),
               "within": self.within, "strict": self.strict,
               "kept": self.configs(names) if names else None}
        if objective is not None:
            best = self.best(objective, minimize=minimize)
            best["best_kept_config"] = (plain_config(self.frame.loc[best["best_kept_index"], names].to_dict())
                                        if names and best["best_kept_index"] is not None else None)
            best["best_overall_config"] = (plain_config(self.frame.loc[best["best_overall_index"], names].to_dict())
                                           if names and best["best_overall_index"] is not None else None)
            out["best"] = {k: plain_value(v) for k, v in best.items() if not k.endswith("_index")}
        return out


def carve(data: pd.DataFrame | Dataset, *, metrics: Sequence[str] = ("efficiency", "utilization"),
          predicates: str | Iterable[str] = (), within: float = 0.0, strict: bool = False,
          params: Sequence[str] | None = None) -> CarveResult:
    """Threshold-carve by ``predicates``, then keep the Pareto-optimal configurations in ``metrics``.

    Parameters
    ----------
    data:
        One row per configuration (a DataFrame, or a :class:`starchart.Dataset`
        whose ``frame`` is used and whose ``params`` become the parameters).
    metrics:
        Columns or expressions to maximise jointly (two or more); write ``"-x"`` to
        minimise ``x``.
    predicates:
        Threshold predicates, each keeping the rows where it is true; NaN counts as
        false. Each is compiled with the restriction whitelist (column names, numbers,
        strings, arithmetic, comparisons, and/or/not or ``& | ~``, ``in (...)``,
        ``a if c else b``, min/max/abs/int/float/round; backticks around names that are
        not identifiers) and never ``eval``-ed, so a predicate cannot run code.
    within:
        Also keep configurations at most this far from the front, on metrics scaled
        to [0, 1] over the candidates (see the module docstring); 0 keeps the front only.
    strict:
        Use the usual Pareto front instead of the paper's rule (see module docstring).
    params:
        Parameter columns (for :meth:`CarveResult.configs`); default: the
        Dataset's parameters.

    Returns
    -------
    CarveResult

    Raises
    ------
    InputError
        Unknown columns in a metric or predicate, a predicate that is not boolean,
        fewer than two metrics, a negative ``within``, an empty table, or no row with finite metrics.
    """
    frame, params = _frame_and_params(data, params)
    predicates = (predicates,) if isinstance(predicates, str) else tuple(predicates)
    metrics = tuple(metrics)
    if len(metrics) < 2:
        raise InputError(f"tradeoff carving needs two or more metrics, got {list(metrics)}", where="metrics",
                         hint='e.g. metrics=("efficiency", "utilization")')
    within = check_within(within)
    if len(frame) == 0:
        raise InputError("nothing to carve: the table has no rows", where="carve",
                         hint="give one row per configuration")
    values = pd.DataFrame({m: resolve(frame, m, "metric") for m in metrics}, index=frame.index)  # names m itself
    reason = pd.Series("", index=frame.index, dtype=object)
    # Failed configurations first: they are reported apart and must not count as removed by a predicate.
    reason[~np.isfinite(values.to_numpy()).all(axis=1)] = NO_METRICS
    if (reason == NO_METRICS).all():  # nothing to choose from: say why instead of "kept 0 of N"
        why = _why_missing(frame, reason == NO_METRICS)
        raise InputError(f"no configuration has finite {' and '.join(metrics)}" + (f": e.g. {why}" if why else ""),
                         where="carve", hint="check the launch (threads per block, threads) and that the rows have "
                                             "the counters or resource usage the metrics need")
    skipped = []
    for predicate in predicates:
        passed = _predicate_mask(frame, predicate)
        alive = reason == ""
        if not (passed & alive).any():
            skipped.append(predicate)  # the paper prunes uncoalesced configs only "when coalesced ones exist"
            continue
        reason[alive & ~passed] = predicate
    candidates = (reason == "").to_numpy()
    on_front = np.zeros(len(frame), dtype=bool)
    distance = np.full(len(frame), np.nan)
    if candidates.any():
        points = values.to_numpy()[candidates]
        front = pareto_front(points, strict=strict)
        on_front[candidates] = front
        distance[candidates] = front_distance(points)
        keep = front | (distance[candidates] <= within) if within > 0 else front
        dominated = np.flatnonzero(candidates)[~keep]
        reason.iloc[dominated] = DOMINATED
    out = frame.copy()
    out["carved_by"] = reason
    out["on_front"] = on_front
    out["front_distance"] = distance
    return CarveResult(out, metrics, predicates, tuple(skipped), float(within), bool(strict), params, values)


def carve_counters(data: pd.DataFrame | Dataset, cc: str | float, *, threads_per_block: str | float,
                   threads: str | float, predicates: str | Iterable[str] = (), within: float = 0.0,
                   strict: bool = False, params: Sequence[str] | None = None, **metric_options: Any) -> CarveResult:
    """Compute the metrics from profiler counters (:func:`~starchart.carve.metrics.counter_metrics`) and carve.

    The whole table is carved: rows without counters or resource data (failed
    configurations) are dropped as ``"missing metrics"``.

    Parameters
    ----------
    data:
        A measured dataset with counters, e.g. a KTT output file loaded with :func:`starchart.load`.
    cc, threads_per_block, threads, metric_options:
        Passed to :func:`~starchart.carve.metrics.counter_metrics` (``barriers_per_thread``,
        ``loads_per_region``, ``extra_instructions``, counter column names...).
    predicates, within, strict, params:
        As for :func:`carve`.

    Examples
    --------
    >>> df = pd.DataFrame({"bx": [32, 64, 128], "warp_inst": [4e6, 3e6, 5e6], "ld": [1e5, 1e5, 1e5]})
    >>> r = carve_counters(df, "8.0", threads_per_block="bx", threads=2**16, warp_instructions="warp_inst",
    ...                    global_loads="ld", registers=32, shared=0, params=["bx"])
    >>> r.configs(), r.frame["blocks_per_sm"].tolist()
    ([{'bx': 64}, {'bx': 128}], [32.0, 32.0, 16.0])
    """
    frame, params = _frame_and_params(data, params)
    require_counters(data, metric_options)
    metrics = counter_metrics(frame, cc, threads_per_block=threads_per_block, threads=threads, **metric_options)
    return carve(metrics, predicates=predicates, within=within, strict=strict, params=params)


def require_counters(data: pd.DataFrame | Dataset, metric_options: Mapping[str, Any] | None = None) -> None:
    """Refuse, naming the missing columns, data that has no profiler counters or resource usage to carve with
    (``metric_options`` of :func:`carve_counters` may name other columns or give ``blocks_on_sm``).

    >>> require_counters(pd.DataFrame({"bx": [32], "time": [1.0]}))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: data: the data has no profiler counters ... (no 'smsp__inst_executed.sum', ...
    """
    options = dict(metric_options or {})
    frame, _ = _frame_and_params(data, None)
    # Only these columns make a measured file carvable: say so before any expression fails on one of them.
    needed = ("warp_instructions", "global_loads") + (() if "blocks_on_sm" in options else ("registers", "shared"))
    missing = [KTT_COUNTERS[k] for k in needed if k not in options and KTT_COUNTERS[k] not in frame.columns]
    if missing:
        raise InputError(f"the data has no profiler counters or compiler resource usage to carve with (no "
                         f"{', '.join(map(repr, missing))} column)",
                         where=getattr(data, "meta", {}).get("source", "data"),
                         hint="carve a file with Nsight Compute counters and registers/shared memory per "
                              "configuration (KTT's output), or the kernel's CUDA source: starchart carve "
                              "KERNEL.cu --kernel K --space SPACE.yaml --cc CC --threads-per-block E --threads E")


def _why_missing(frame: pd.DataFrame, rows: pd.Series) -> str:
    """Why the first of ``rows`` has no metrics, from the columns that say it: the occupancy calculator's
    ``limiter`` (``"more than 1024 threads per block"``), else a failed run's ``reason``; ``""`` if neither."""
    for column, unknown in (("limiter", "unknown"), ("reason", "")):
        if column in frame.columns:
            said = frame.loc[rows, column].dropna().astype(str)
            said = said[(said != unknown) & (said != "")]
            if len(said):
                return f"row {said.index[0]}: {said.iloc[0]}"
    return ""


def _frame_and_params(data: Any, params: Sequence[str] | None) -> tuple[pd.DataFrame, list[str] | None]:
    if isinstance(data, pd.DataFrame):
        frame = data
    elif hasattr(data, "frame") and hasattr(data, "params"):
        frame = data.frame
        params = list(data.params) if params is None else params
    else:
        raise InputError(f"carve needs a DataFrame or a Dataset, got {type(data).__name__}", where="carve",
                         hint="give one row per configuration with metric columns")
    return frame, (list(params) if params is not None else None)


def _predicate_mask(frame: pd.DataFrame, predicate: str) -> pd.Series:
    if not isinstance(predicate, str) or not predicate.strip():
        raise InputError(f"a predicate must be a non-empty expression, got {predicate!r}", where="predicates",
                         hint='e.g. "BLOCK_SIZE_X >= 32" or "bandwidth_gbs < 900"')
    result = _evaluate(frame, predicate, "predicate")
    if np.isscalar(result):
        raise InputError(f"predicate {predicate!r} does not depend on any column", where="predicates",
                         hint="compare a column with a value, e.g. \"coalesced == 1\"")
    series = pd.Series(result, index=frame.index) if not isinstance(result, pd.Series) else result
    if series.dtype != bool:
        non_null = series.dropna()
        if len(non_null) and not non_null.map(lambda v: isinstance(v, (bool, np.bool_))).all():
            raise InputError(f"predicate {predicate!r} gives {series.dtype} values, not true/false",
                             where="predicates", hint="write a comparison, e.g. \"bandwidth_gbs < 900\"")
    return series.fillna(False).astype(bool)


def check_within(within: Any) -> float:
    """The tradeoff's ``within`` checked: a distance ≥ 0 in units of each metric's range."""
    return check("within", within, Interval(float, 0, None),
                 hint="0 keeps the Pareto front only; 0.05 also keeps configurations within 5 % of the metric ranges")


def pareto_front(points: Any, *, strict: bool = False) -> np.ndarray:
    """Which rows of ``points`` (n × k, all maximised) are Pareto-optimal.

    By default a row is dropped only when another row is greater in *every*
    column (the paper's rule); with ``strict`` also when another is greater or
    equal in every column and greater in one. Identical rows are kept together.

    Examples
    --------
    >>> pts = [[3, 1], [2, 2], [1, 3], [1, 1], [3, 0.5], [2, 2]]
    >>> pareto_front(pts).tolist()
    [True, True, True, False, True, True]
    >>> pareto_front(pts, strict=True).tolist()
    [True, True, True, False, False, True]
    """
    p = np.asarray(points, dtype=float)
    if p.ndim != 2 or p.shape[1] < 1:
        raise InputError(f"points must be an n × k array, got shape {p.shape}", where="pareto_front")
    n, k = p.shape
    if n == 0:
        return np.zeros(0, dtype=bool)
    if k == 2:
        return _front_2d(p, strict)
    keep = np.ones(n, dtype=bool)
    for start in range(0, n, _chunk(n, k)):
        block = p[start:start + _chunk(n, k)]
        ge = (p[None, :, :] >= block[:, None, :]).all(axis=2)
        gt = p[None, :, :] > block[:, None, :]
        beaten = (ge & gt.any(axis=2)) if strict else gt.all(axis=2)
        keep[start:start + len(block)] = ~beaten.any(axis=1)
    return keep


def _chunk(n: int, k: int) -> int:
    return max(1, 2_000_000 // max(1, n * k))


def _front_2d(p: np.ndarray, strict: bool) -> np.ndarray:
    """O(n log n) sweep: sort by the first metric, descending, and track the best second metric."""
    x, y = p[:, 0], p[:, 1]
    order = np.lexsort((-y, -x))
    xs, ys = x[order], y[order]
    # best y among rows with a strictly greater x: the running max up to the previous x group
    starts = np.r_[0, np.flatnonzero(np.diff(xs) != 0) + 1]
    group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(xs)]))
    group_max = ys[starts]  # rows are sorted by y descending within a group
    before = np.r_[-np.inf, np.maximum.accumulate(group_max)[:-1]]
    best_greater_x = before[group]
    if strict:
        # beaten by a greater x with y ≥, or by an equal x with a greater y
        dominated = (best_greater_x >= ys) | (ys < group_max[group])
    else:
        dominated = best_greater_x > ys
    keep = np.empty(len(p), dtype=bool)
    keep[order] = ~dominated
    return keep


def front_distance(points: Any) -> np.ndarray:
    """Each row's additive ε distance to the Pareto front, on columns scaled to [0, 1].

    Columns are scaled by ``(v − min) / (max − min)`` over the rows (a constant
    column contributes nothing). The distance of ``p`` is
    ``max(0, max_q min_k (q_k − p_k))``: 0 for rows no other row beats in every
    column, else how much every column of ``p`` would have to rise to get there.

    Examples
    --------
    >>> front_distance([[1, 0], [0, 1], [0.5, 0.5], [0.25, 0.25]]).tolist()
    [0.0, 0.0, 0.0, 0.25]
    """
    p = np.asarray(points, dtype=float)
    if len(p) == 0:
        return np.zeros(0)
    lo, hi = p.min(axis=0), p.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    s = (p - lo) / span
    if s.shape[1] == 2:
        return _distance_2d(s)
    out = np.empty(len(s))
    step = _chunk(len(s), s.shape[1])
    for start in range(0, len(s), step):
        block = s[start:start + step]
        out[start:start + len(block)] = (s[None, :, :] - block[:, None, :]).min(axis=2).max(axis=1)
    return np.maximum(out, 0.0)


def _distance_2d(s: np.ndarray) -> np.ndarray:
    """max_q min(q_x − p_x, q_y − p_y) over the strict front, by binary search along it.

    Along the front sorted by x ascending (y descending), ``q_x − q_y`` increases:
    ``min`` is ``q_x − p_x`` (rising) before the crossing and ``q_y − p_y``
    (falling) after it, so the maximum sits at one of the two fronts points around it.
    """
    front = s[pareto_front(s, strict=True)]
    front = np.unique(front, axis=0)  # sorted by x ascending; y then descends strictly
    key = front[:, 0] - front[:, 1]
    j = np.searchsorted(key, s[:, 0] - s[:, 1], side="left")
    best = np.full(len(s), -np.inf)
    for idx in (j - 1, j):
        ok = (idx >= 0) & (idx < len(front))
        q = front[np.clip(idx, 0, len(front) - 1)]
        value = np.minimum(q[:, 0] - s[:, 0], q[:, 1] - s[:, 1])
        best = np.where(ok, np.maximum(best, value), best)
    return np.maximum(best, 0.0)


def measure_survivors(result: CarveResult, evaluator: Evaluator, *, space: Space | None = None,
                      store: Store | str | Path | None = None, params: Sequence[str] | None = None,
                      **run_options: Any) -> Dataset:
    """Measure only the configurations carving kept, with any evaluator.

    Parameters
    ----------
    result:
        What :func:`carve` returned.
    evaluator:
        Any :class:`starchart.measure.Evaluator` (Python, command, C, CUDA, replay...).
    space:
        The tuning space; default: the finite space of the carved table's
        configurations (:meth:`starchart.Space.from_dataset`).
    store:
        Where to keep the measurements (a path makes the run resumable).
    params:
        Parameter columns; default: those of the carve.
    run_options:
        Passed to :func:`starchart.run` (``workers``, ``ray``, ``progress``...).

    Returns
    -------
    Dataset
        The measurements of the kept configurations (plus any already in ``store``).

    Examples
    --------
    >>> from starchart.measure import PythonEvaluator
    >>> df = pd.DataFrame({"b": [1, 2, 4, 8], "efficiency": [4, 3, 2, 1], "utilization": [1, 2, 3, 0.5]})
    >>> result = carve(df, params=["b"])
    >>> ds = measure_survivors(result, PythonEvaluator(lambda c: 10.0 / c["b"]), progress=False)
    >>> sorted(ds.frame["b"].tolist())
    [1, 2, 4]
    """
    names = list(params) if params is not None else (list(space.names) if space is not None else result.params)
    configs = result.configs(names)
    if space is None:
        space = SpaceClass.from_dataset(result.frame[names])
    return run(space, evaluator, store=store, configs=configs, **run_options)
