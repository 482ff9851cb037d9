"""Throughput curves and the minimum saturation point (Magni, Dubach & O'Boyle, GPGPU 2014, §4–5).

A kernel run on too small an input leaves the hardware partly idle; its
*throughput* (units of work per second, :mod:`starchart.analyses.throughput`) rises with
the input size until the hardware is saturated, then stays on a plateau.
:func:`throughput_curve` measures that curve for one configuration (the default
one) over a list of input sizes; :func:`find_msp` picks the *minimum saturation
point*: the smallest size whose throughput is within a noise threshold (the
paper's 10 %) of the maximum.

Examples
--------
>>> import pandas as pd
>>> curve = pd.DataFrame({"size": [1, 2, 4, 8, 16], "throughput": [10.0, 40.0, 92.0, 100.0, 97.0]})
>>> msp = find_msp(curve)
>>> msp.size, msp.saturated
(4, True)
>>> find_msp(curve, threshold=0.05).size
8
>>> rising = pd.DataFrame({"size": [1, 2, 4], "throughput": [1.0, 2.0, 4.0]})
>>> find_msp(rising).message
'no saturation: throughput still rises at the target size 4 (no smaller size is within 10% of the maximum); MSP = target'
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from starchart._util.configs import plain_config
from starchart._util.text import shorten
from starchart._util.validation import Interval, check
from starchart.analyses.throughput import WorkSpec, work_function
from starchart.errors import InputError, arg, say
from starchart.measure.base import Evaluator, Measurement, mean_of
from starchart.msp.store import Stopwatch, msp_study
from starchart.space import Space

__all__ = ["MSP", "STATS", "aggregate", "check_sizes", "find_msp", "throughput_curve"]

#: How the repeats of one measurement are reduced to one number. The paper takes the median of 50 runs;
#: the minimum is the usual estimate of an undisturbed run time on a shared machine.
STATS = ("median", "mean", "min")


def aggregate(values: Sequence[float], stat: str = "median") -> float:
    """Reduce repeated values to one number (``"median"``, ``"mean"`` or ``"min"``); NaN when empty.

    >>> aggregate([3.0, 1.0, 2.0, 10.0]), aggregate([3.0, 1.0, 2.0, 10.0], "min"), aggregate([])
    (2.5, 1.0, nan)
    """
    finite = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if not finite:
        return math.nan
    if stat == "median":
        return _median(finite)
    if stat == "mean":
        return mean_of(finite)  # finite also for huge times (a 1e308 sentinel)
    if stat == "min":
        return min(finite)
    raise InputError(f"unknown statistic {stat!r}", where="stat", hint=f"use one of {', '.join(STATS)}")


def _median(values: list[float]) -> float:
    """The median, without overflow: the middle pair is halved before adding, so two 1e308 ms give 1e308
    (``np.median`` adds first and gives inf). Halving is exact, so other values give what ``np.median`` gives.

    >>> _median([3.0, 1.0, 2.0, 10.0]), _median([1e308, 1e308])
    (2.5, 1e+308)
    """
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return ordered[middle - 1] / 2 + ordered[middle] / 2


#: How to write a list of sizes, for each reader.
_SIZES_EXAMPLE = say("sizes=[1024, 4096, 16384]", "--sizes 1024,4096,16384")

def check_stat(stat: str) -> str:
    """``stat`` if it is one of :data:`STATS`, else an :class:`InputError`."""
    if stat not in STATS:
        raise InputError(f"unknown statistic {stat!r}", where="stat", hint=f"use one of {', '.join(STATS)}")
    return stat


def check_sizes(sizes: Any, where: str = "sizes") -> list[int | float]:
    """The input sizes, checked (positive numbers, no repeats) and sorted ascending.

    >>> check_sizes([64, 8, 512])
    [8, 64, 512]
    >>> check_sizes([8, 0])
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: sizes: input sizes must be positive numbers, got 0 (hint: e.g. sizes=[1024, 4096, 16384])
    """
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, (Sequence, np.ndarray, pd.Index, range)):
        raise InputError(f"sizes must be a list of input sizes, got {sizes!r}", where=where,
                         hint=f"e.g. {_SIZES_EXAMPLE}")
    checked: list[int | float] = []
    for size in list(sizes):
        if isinstance(size, np.generic):
            size = size.item()
        if isinstance(size, bool) or not isinstance(size, numbers.Real) or not math.isfinite(size) or size <= 0:
            raise InputError(f"input sizes must be positive numbers, got {size!r}", where=where,
                             hint=f"e.g. {_SIZES_EXAMPLE}")
        checked.append(int(size) if float(size).is_integer() else float(size))
    if not checked:
        raise InputError("no input sizes given", where=where, hint=f"e.g. {_SIZES_EXAMPLE}")
    if len(set(checked)) != len(checked):
        repeated = sorted({s for s in checked if checked.count(s) > 1})
        raise InputError(f"input size(s) {repeated} appear more than once", where=where, hint="list each size once")
    return sorted(checked)


def time_metric(evaluator: Evaluator, metric: str | None) -> str:
    """The metric a throughput is computed from: a run time in milliseconds."""
    metric = evaluator.objective if metric is None else metric
    if not isinstance(metric, str) or not metric:
        raise InputError(f"metric must be a metric name, got {metric!r}", where="metric")
    if metric == evaluator.objective and not evaluator.minimize:
        raise InputError(f"the evaluator's objective {metric!r} is maximised, so it is not a run time",
                         where="metric", hint=f"throughput = work / time: pass {arg('metric', '')} naming a time in ms")
    return metric


def measurement_value(measurement: Measurement, metric: str, stat: str) -> float:
    """One number for ``metric`` from a measurement (its repeats reduced by ``stat``); NaN on failure."""
    if not measurement.ok:
        return math.nan
    return aggregate(measurement.values.get(metric, []), stat)


# ---------------------------------------------------------------------- the curve
def throughput_curve(evaluator: Evaluator, sizes: Sequence[int | float], *, size_param: str = "n",
                     config: Mapping[str, Any] | None = None, work: WorkSpec = "n", repeats: int = 1,
                     stat: str = "median", metric: str | None = None, store: Any = None) -> pd.DataFrame:
    """Measure one configuration at every input size: time and throughput.

    The input size is a parameter of the configuration: size ``s`` is measured as
    ``{**config, size_param: s}``, so any evaluator works (a C kernel whose size is
    a define or an argument, a command, a Python function).

    Parameters
    ----------
    evaluator:
        Measures a configuration; its ``metric`` (default: the objective) is a time in ms.
    sizes:
        The input sizes (sorted ascending in the result).
    size_param:
        Name of the input-size parameter.
    config:
        The configuration measured (Magni: the default one), without the size.
    work:
        Units of work as a function of the configuration: ``"n"``, ``"n log n"``,
        ``"n^2"``, ``"n^3"``, an expression over parameters or a callable
        (:func:`starchart.analyses.throughput.work_function`; named ones apply to ``size_param``).
    repeats:
        Evaluations per size (each may itself hold several repeats); all values are pooled.
    stat:
        How the pooled values become the size's time: ``"median"`` (the paper's), ``"mean"``, ``"min"``.
    metric:
        The time metric (ms); default: the evaluator's objective.
    store:
        A :class:`~starchart.study.store.Store` or a path: every measurement is kept there as it
        arrives, and a curve measured again into the same store replays what it holds
        instead of measuring it again (:mod:`starchart.msp.store`).

    Returns
    -------
    pandas.DataFrame
        One row per size: ``size``, ``work``, ``time`` (ms, by ``stat``), ``throughput``
        (work per second), ``throughput_low``/``throughput_high`` (from the fastest and
        slowest repeat), ``repeats`` (every time value), ``evaluations``, ``status``,
        ``reason`` and ``eval_s`` (wall seconds spent measuring that size, compiles
        included); any other metric the evaluator measured becomes a column
        ``values_<metric>`` (reduced by ``stat``). ``frame.attrs`` keeps ``size_param``, ``work``, ``metric``,
        ``stat``, ``config`` and ``wall_s`` (the whole curve's cost).

    Examples
    --------
    >>> from starchart.measure import PythonEvaluator
    >>> ev = PythonEvaluator(lambda c: 0.01 + c["n"] * 1e-6)   # 10 us launch + 1 ns per element
    >>> curve = throughput_curve(ev, [1_000, 100_000, 10_000_000])
    >>> [f"{t:.3g}" for t in curve["throughput"]]
    ['9.09e+07', '9.09e+08', '9.99e+08']
    >>> find_msp(curve).size
    100000
    """
    sizes = check_sizes(sizes)
    _check_name(size_param, "size_param")
    config = _check_config(config, size_param)
    metric = time_metric(evaluator, metric)
    stat = check_stat(stat)
    repeats = check("repeats", repeats, Interval(int, 1, None))
    units = work_function(work, size_param)
    configs = [{**config, size_param: s} for s in sizes]
    work_units = [units(c) for c in configs]  # a bad work expression fails here, before anything is measured
    _prepare(evaluator, config, size_param, sizes)
    with msp_study(store, evaluator) as measuring:  # each measurement stored as it arrives, none made twice
        whole = Stopwatch(measuring)
        rows = [_measure_size(measuring, size, cfg, units_of_work, int(repeats), metric, stat)
                for size, cfg, units_of_work in zip(sizes, configs, work_units)]
        wall_s = whole.seconds()
    frame = pd.DataFrame(rows)
    frame.attrs.update({"size_param": size_param, "work": work if isinstance(work, str) else repr(work),
                        "metric": metric, "stat": stat, "config": plain_config(config),
                        "wall_s": wall_s})
    return frame


def _measure_size(evaluator: Evaluator, size: float, config: dict[str, Any], units_of_work: float, repeats: int,
                  metric: str, stat: str) -> dict[str, Any]:
    """One row of the curve: ``config`` evaluated ``repeats`` times, its values pooled."""
    values: list[float] = []
    others: dict[str, list[float]] = {}
    failures: list[Measurement] = []
    clock = Stopwatch(evaluator)
    for _ in range(repeats):
        m = evaluator.evaluate(config)
        if m.ok and m.values.get(metric):
            values.extend(float(v) for v in m.values[metric])
            for name, got in m.values.items():
                if name != metric:
                    others.setdefault(name, []).extend(float(v) for v in got)
        else:
            failures.append(m)
    row = _curve_row(size, units_of_work, values, failures, metric, stat, clock.seconds(), repeats)
    row.update({f"values_{name}": aggregate(got, stat) for name, got in others.items()})
    return row


def _curve_row(size: float, units: float, values: list[float], failures: list[Measurement], metric: str,
               stat: str, eval_s: float, evaluations: int) -> dict[str, Any]:
    t = aggregate(values, stat)
    finite = [v for v in values if math.isfinite(v) and v > 0]
    if failures and not values:
        status, reason = failures[0].status, failures[0].reason or f"no {metric!r} value"
        if failures[0].ok:
            status = "runtime"
            reason = f"the evaluator measured no {metric!r} (it measured {sorted(failures[0].values)})"
    else:
        status, reason = "ok", ""
        # a run that "succeeded" but gives no usable throughput: say why, or the curve's error would blame
        # failed measurements that did not happen
        if not (math.isfinite(t) and t > 0):
            reason = (f"no finite {metric!r} value was measured" if math.isnan(t) else
                      f"{metric!r} is {t:g} ms, not a positive run time")
        elif not (math.isfinite(units) and units > 0):
            reason = f"the work is {units:g} units, not a positive amount (check the work function)"
    return {"size": size, "work": units, "time": t,
            "throughput": units / (t / 1000.0) if t > 0 else math.nan,
            "throughput_low": units / (max(finite) / 1000.0) if finite else math.nan,
            "throughput_high": units / (min(finite) / 1000.0) if finite else math.nan,
            "repeats": values, "evaluations": evaluations, "status": status, "reason": reason, "eval_s": eval_s}


def _check_name(name: Any, where: str) -> None:
    if not isinstance(name, str) or not name:
        raise InputError(f"{where} must be a parameter name, got {name!r}", where=where, hint=f"e.g. {arg('size_param', repr('n'))}")


def _check_config(config: Mapping[str, Any] | None, size_param: str) -> dict[str, Any]:
    if config is None:
        return {}
    if not isinstance(config, Mapping):
        raise InputError(f"config must be a dict of parameter values, got {config!r}", where="config",
                         hint="e.g. " + say("config={'BLOCK': 128}", "--default BLOCK=128"))
    if size_param in config:
        raise InputError(f"{arg('config')} sets the input-size parameter {size_param!r}", where="config",
                         hint=f"leave it out: the sizes come from {arg('sizes', '')}")
    return plain_config(config)


def _prepare(evaluator: Evaluator, config: Mapping[str, Any], size_param: str, sizes: Sequence[Any]) -> None:
    """Let the evaluator check its set-up against the parameters it will see (templates, tools)."""
    evaluator.prepare(Space({**{k: [v] for k, v in config.items()}, size_param: list(sizes)}))


# ---------------------------------------------------------------------- the MSP
@dataclass
class MSP:
    """A minimum saturation point.

    Attributes
    ----------
    size:
        The MSP: the smallest size whose throughput is within ``threshold`` of the
        maximum (the target itself when nothing smaller is).
    target:
        The size tuned for (default: the largest of the curve).
    threshold:
        The noise threshold, as a fraction of the maximum throughput.
    saturated:
        Whether the MSP is smaller than the target. ``False`` means the curve does
        not saturate before the target, and tuning at the MSP *is* tuning at the target.
    max_throughput, max_size:
        The largest throughput of the curve (up to the target) and where it is.
    throughput:
        The throughput at the MSP.
    message:
        One sentence saying what was found.
    notes:
        Anything that makes the MSP less trustworthy (failed sizes, a curve that falls
        after its peak).
    """

    size: int | float
    target: int | float
    threshold: float
    saturated: bool
    max_throughput: float
    max_size: int | float
    throughput: float
    message: str
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field."""
        return {"size": self.size, "target": self.target, "threshold": self.threshold,
                "saturated": self.saturated, "max_throughput": self.max_throughput, "max_size": self.max_size,
                "throughput": self.throughput, "message": self.message, "notes": list(self.notes)}


def find_msp(curve: pd.DataFrame | pd.Series | Mapping[Any, float], threshold: float = 0.10, *,
             target: float | None = None, stable: bool = False) -> MSP:
    """The minimum saturation point of a throughput curve.

    Parameters
    ----------
    curve:
        A :func:`throughput_curve` frame (columns ``size`` and ``throughput``), or
        throughputs indexed by size (a Series or a dict).
    threshold:
        Noise threshold: sizes whose throughput is at least ``(1 - threshold) ×``
        the maximum count as saturated (paper: 10 %).
    target:
        The size being tuned for; default: the largest size. Larger sizes are ignored.
    stable:
        The paper takes the smallest saturated size. With ``stable=True`` the MSP is
        the smallest size from which *every* larger size is saturated too, so one
        lucky measurement before a dip cannot be chosen.

    Returns
    -------
    MSP
        ``saturated`` is ``False`` (and ``size == target``) when no size below the target
        reaches the plateau; ``message`` says so.

    Raises
    ------
    InputError
        When no size has a valid throughput, or when the target failed and no size that ran
        is followed by a larger one on the plateau (only one size ran, or the throughput still
        rises at the largest size that ran): there is no curve to read a saturation point from.
        The message names the failed sizes and, for a :func:`throughput_curve` frame, why they failed.

    Examples
    --------
    >>> bumpy = {8: 50.0, 16: 95.0, 32: 70.0, 64: 98.0, 128: 100.0}
    >>> find_msp(bumpy).size, find_msp(bumpy, stable=True).size
    (16, 64)
    """
    frame = _curve_frame(curve)
    threshold = check("threshold", threshold, Interval(float, 0, 1, closed="left"),
                      hint=f"a fraction: e.g. {arg('threshold', '0.10')} for 10 %")
    sizes = frame["size"].tolist()
    if target is None:
        target = max(sizes)
    elif target not in sizes:
        raise InputError(f"the target size {target!r} is not on the curve", where="target",
                         hint=f"measure it too; the curve has sizes {sizes}")
    else:  # the curve's own size: 256, not 256.0 or numpy.int64(256), in the MSP and its message
        target = next(size for size in sizes if size == target)
    frame = frame[frame["size"] <= target]
    notes: list[str] = []
    good = frame[np.isfinite(frame["throughput"]) & (frame["throughput"] > 0)]
    failed = [_plain_size(s) for s in frame.loc[~frame.index.isin(good.index), "size"]]
    why_failed = _failure_reasons(curve, failed)
    if failed:
        notes.append(f"size(s) {failed} have no valid measurement and were skipped{why_failed}")
    if good.empty:
        raise InputError("no size of the curve has a valid throughput" + _first_failure(curve), where="curve",
                         hint="check the evaluator (a positive run time in ms at every size) and the work function")
    peak = float(good["throughput"].max())
    peak_size = good.loc[good["throughput"].idxmax(), "size"]
    band = (1.0 - threshold) * peak
    inside = (good["throughput"] >= band).to_numpy()
    if stable:  # smallest size from which every larger size stays in the band
        tail_ok = np.logical_and.accumulate(inside[::-1])[::-1]
        index = int(np.argmax(tail_ok)) if tail_ok.any() else len(good) - 1
    else:
        index = int(np.argmax(inside))
    pct = f"{threshold:.0%}" if threshold * 100 == round(threshold * 100) else f"{threshold:.1%}"
    size = _plain_size(good["size"].iloc[index])
    peak_size = _plain_size(peak_size)
    at_target = good.loc[good["size"] == target, "throughput"]
    if at_target.empty and index == len(good) - 1:
        # Nothing larger that ran confirms a plateau, and the target, which would be the fallback, failed.
        largest = _plain_size(good["size"].iloc[-1])
        if len(good) == 1:
            seen = f"only size {largest} has a valid throughput"
        elif stable:
            seen = (f"no size before {largest}, the largest size that ran, starts a plateau within {pct} of the "
                    "maximum")
        else:
            seen = f"the throughput still rises at size {largest}, the largest size that ran"
        raise InputError(f"no saturation curve to read: {seen}, and the target size {target} failed; "
                         f"failed size(s) {failed}{why_failed}", where="curve",
                         hint="make the default configuration run at every size (a longer timeout, more memory), "
                              f"or choose one that does with {arg('config', '')}, or tune for a size that runs: "
                              f"{arg('target', str(largest))}")
    if at_target.empty:
        notes.append(f"the target size {target} has no valid measurement: the plateau is read from the sizes "
                     f"up to {_plain_size(good['size'].iloc[-1])}")
    elif float(at_target.iloc[0]) < band:
        drop = 1 - float(at_target.iloc[0]) / peak
        notes.append(f"throughput falls after its peak at size {peak_size}: the target's is {drop:.0%} below it "
                     "(cache or memory effects?), so sizes near the peak may not behave like the target")
    saturated = size != target
    if saturated:
        message = (f"MSP = {size}: the smallest size whose throughput is within {pct} of the maximum "
                   f"({peak:.4g} at size {peak_size}); target {target}, {target / size:.3g}x larger")
    elif len(good) == 1:  # nothing to compare with: "still rises" would be a guess
        smaller = [f for f in failed if f < target]
        todo = (f"the smaller size(s) {smaller} failed: make them run to find one" if smaller else
                "measure smaller sizes to find one")
        message = (f"no saturation point: only the target size {target} has a valid throughput; MSP = target "
                   f"({todo})")
    elif not inside[-1]:  # stable=True past a peak: the target itself is off the plateau
        message = (f"no stable saturation: the throughput at the target size {target} is more than {pct} below "
                   f"the maximum ({peak:.4g} at size {peak_size}); MSP = target")
    else:
        message = (f"no saturation: throughput still rises at the target size {target} "
                   f"(no smaller size is within {pct} of the maximum); MSP = target")
    return MSP(size=size, target=target, threshold=threshold, saturated=saturated, max_throughput=peak,
               max_size=peak_size, throughput=float(good["throughput"].iloc[index]), message=message, notes=notes)


def _plain_size(size: Any) -> int | float:
    """A size as the Python number it holds (a numpy scalar prints as ``np.int64(8)`` in a list)."""
    return size.item() if isinstance(size, np.generic) else size


def _failure_reasons(curve: Any, sizes: Sequence[Any], shown: int = 3) -> str:
    """``" (size 16: <reason>; size 32: <reason>)"`` for the failed ``sizes`` of a :func:`throughput_curve`
    frame (reasons are a plain curve's to give: ``""`` without a ``reason`` column).

    >>> frame = pd.DataFrame({"size": [8, 16], "throughput": [1.0, float("nan")], "reason": ["", "exit status 2"]})
    >>> _failure_reasons(frame, [16])
    ' (size 16: exit status 2)'
    """
    if not sizes or not isinstance(curve, pd.DataFrame) or "reason" not in curve.columns:
        return ""

    parts = []
    for size in sizes[:shown]:
        reasons = curve.loc[curve["size"] == size, "reason"].fillna("").astype(str)
        reason = next((r for r in reasons if r.strip()), "no reason recorded")
        parts.append(f"size {size}: {shorten(reason, 160, collapse=True)}")
    more = f"; {len(sizes) - shown} more" if len(sizes) > shown else ""
    return f" ({'; '.join(parts)}{more})"


def _first_failure(curve: Any) -> str:
    """``"; size 8: <reason>"`` from a :func:`throughput_curve` frame's first failed size, else ``""``.

    >>> _first_failure(pd.DataFrame({"size": [8], "throughput": [float("nan")], "reason": ["exit status 2"]}))
    '; size 8: exit status 2'
    """
    if not isinstance(curve, pd.DataFrame) or "reason" not in curve.columns:
        return ""
    reasons = curve.loc[curve["reason"].fillna("").astype(str) != "", ["size", "reason"]]
    return f"; size {reasons['size'].iloc[0]}: {reasons['reason'].iloc[0]}" if len(reasons) else ""


def _curve_frame(curve: Any) -> pd.DataFrame:
    if isinstance(curve, pd.DataFrame):
        missing = [c for c in ("size", "throughput") if c not in curve.columns]
        if missing:
            raise InputError(f"the curve lacks column(s) {missing}", where="curve",
                             hint="pass the frame throughput_curve() returns, or a Series of throughputs by size")
        frame = curve[["size", "throughput"]].copy()
    elif isinstance(curve, pd.Series):
        frame = pd.DataFrame({"size": curve.index.to_list(), "throughput": curve.to_numpy()})
    elif isinstance(curve, Mapping):
        frame = pd.DataFrame({"size": list(curve.keys()), "throughput": list(curve.values())})
    else:
        raise InputError(f"a throughput curve must be a DataFrame, Series or dict, got {type(curve).__name__}",
                         where="curve")
    check_sizes(frame["size"].tolist(), where="curve sizes")
    try:
        frame["throughput"] = pd.to_numeric(frame["throughput"], errors="raise").astype(float)
    except (TypeError, ValueError):
        raise InputError("the curve's throughputs must be numbers", where="curve") from None
    return frame.sort_values("size").reset_index(drop=True)
