"""MSP-tuning: tune at the minimum saturation point, use the result at the target size.

Magni et al. (§5.3): (1) measure the throughput curve of the default
configuration, (2) take its minimum saturation point (MSP), (3) run the search at
the MSP, and use its winner at the (much larger) target size. What it saves is
the *search speedup* ``T_target / (T_MSP + T_curve)`` — ``T_x`` the time the search
takes measuring at size ``x``, ``T_curve`` the time the curve took; what it costs
is the winner's *quality* at the target, ``best time at the target / winner's
time at the target`` (1 = the winner is the best the search finds at the target).

:func:`tune_at_msp` does all of it and, to report both numbers from
measurements, also runs the reference search at the target (``baseline``). With
``transfer=True`` it searches at *every* size of the curve and reports, for each,
how good its winner is at the target (the paper's Fig. 3) and what the search
there cost; :func:`threshold_sweep` then reads off the speedup/quality trade-off
of the noise threshold (the paper's Fig. 7) without measuring anything again.

Examples
--------
A simulated kernel: a fixed launch cost, work spread over ``B`` lanes, so a small
input leaves lanes idle; the best ``B`` depends on the size until the input is
large enough.

>>> from starchart.measure import PythonEvaluator
>>> from starchart.space import Space
>>> def model(c):
...     lanes = min(c["B"], c["n"])
...     return 0.05 + c["n"] / lanes * 1e-3 + c["B"] * 2e-4   # launch + waves + per-lane set-up
>>> space = Space({"B": [1, 4, 16, 64, 256]})
>>> sizes = [2 ** k for k in range(4, 17, 2)]
>>> result = tune_at_msp(PythonEvaluator(model), space, sizes, config={"B": 16}, transfer=True)
>>> result.msp.size, result.winner, result.target_best, result.quality
(16384, {'B': 256}, {'B': 256}, 1.0)
>>> round(result.kernel_speedup, 2)   # simulated kernel time: (1 target search) / (1 MSP search + curve)
3.13
>>> result.transfer["quality"].round(2).tolist()   # tuning at the small sizes picks B = 16 or 64
[0.09, 0.09, 0.33, 0.33, 1.0, 1.0, 1.0]
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from starchart.configs import config_key, plain_config
from starchart.errors import InputError
from starchart.measure.base import Evaluator
from starchart.msp.curve import (
    MSP,
    aggregate,
    check_sizes,
    check_stat,
    find_msp,
    measurement_value,
    throughput_curve,
    time_metric,
)
from starchart.msp.search import Cost, Phase, Recorder, resolve_search, run_search
from starchart.space import Space
from starchart.throughput import WorkSpec

__all__ = ["BASELINES", "MSPTuningResult", "space_at", "threshold_sweep", "tune_at_msp"]

#: How the target-size reference is obtained: the same search, an exhaustive one, or none.
BASELINES = ("search", "exhaustive", None)


def space_at(space: Space, size_param: str, size: float) -> Space:
    """``space`` with the input-size parameter fixed to ``size`` (added if the space lacks it).

    Restrictions may name the size parameter (e.g. ``"TILE <= n"``; the space then holds it).

    >>> s = space_at(Space({"TILE": [4, 8, 16], "n": [8, 16]}, "TILE <= n"), "n", 8)
    >>> s.names, s.size()
    (('TILE', 'n'), 2)
    """
    params = {name: values for name, values in space.tune_params.items() if name != size_param}
    params[size_param] = [size]
    return Space(params, list(space.restrictions))


@dataclass
class MSPTuningResult:
    """Everything :func:`tune_at_msp` measured and concluded.

    Attributes
    ----------
    msp:
        The minimum saturation point (:class:`~starchart.msp.curve.MSP`).
    curve:
        The throughput curve of the default configuration.
    default_config:
        The configuration the curve was measured with.
    size_param, target, search, threshold, stat, metric, minimize:
        The set-up.
    winner:
        The best configuration the search found at the MSP.
    winner_value_msp, winner_value_target:
        Its objective (ms when a time) at the MSP and at the target (NaN when it failed there).
    target_best, target_best_value:
        The best configuration the baseline found at the target, and its value.
    quality:
        ``target_best_value / winner_value_target`` (inverted for maximised objectives):
        1 when the MSP winner is as good as the target's best; ``None`` without a baseline.
    speedup:
        ``T_target / (T_MSP + T_curve)``, wall times; ``None`` without a baseline.
    kernel_speedup:
        The same ratio of the kernels' own measured run times (what the paper counts).
    costs:
        :class:`~starchart.msp.search.Cost` of each phase: ``"curve"``, ``"msp"``,
        ``"target"`` (the baseline) and ``"confirm"`` (measuring winners at the target
        that the baseline did not measure; not part of the speedup).
    transfer:
        With ``transfer=True``, one row per size: the search's winner there, its value
        there and at the target, ``quality`` at the target, the search's cost and the
        speedup had the search been run at that size.
    notes:
        Caveats: the MSP's own notes, failures at the target, a baseline that is not exhaustive.
    """

    msp: MSP
    curve: pd.DataFrame
    default_config: dict[str, Any]
    size_param: str
    target: int | float
    search: str
    threshold: float
    stat: str
    metric: str
    minimize: bool
    winner: dict[str, Any]
    winner_value_msp: float
    winner_value_target: float
    target_best: dict[str, Any] | None
    target_best_value: float | None
    quality: float | None
    speedup: float | None
    kernel_speedup: float | None
    baseline: str | None
    costs: dict[str, Cost]
    transfer: pd.DataFrame | None = None
    notes: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """A JSON-able summary (no frames)."""
        return {"msp": self.msp.to_dict(), "default_config": self.default_config, "size_param": self.size_param,
                "target": self.target, "search": self.search, "baseline": self.baseline,
                "threshold": self.threshold, "stat": self.stat, "metric": self.metric, "minimize": self.minimize,
                "winner": self.winner, "winner_value_msp": _json_float(self.winner_value_msp),
                "winner_value_target": _json_float(self.winner_value_target), "target_best": self.target_best,
                "target_best_value": _json_float(self.target_best_value), "quality": _json_float(self.quality),
                "speedup": _json_float(self.speedup), "kernel_speedup": _json_float(self.kernel_speedup),
                "costs": {k: v.to_dict() for k, v in self.costs.items()}, "notes": list(self.notes)}

    def __str__(self) -> str:
        lines = [str(self.msp),
                 (f"search ({self.search}) at the MSP {self.msp.size}: winner {self.winner}, "
                  f"{self.metric} {self.winner_value_msp:.4g} there, {self.winner_value_target:.4g} at the target "
                  f"{self.target}")]
        if self.quality is not None:
            lines.append(f"target best ({self.baseline}): {self.target_best} {self.metric} "
                         f"{self.target_best_value:.4g}; quality {self.quality:.1%}")
        if self.speedup is not None:
            c = self.costs
            lines.append(f"search speedup {self.speedup:.3g}x = T_target {c['target'].wall_s:.3g} s / "
                         f"(T_MSP {c['msp'].wall_s:.3g} s + T_curve {c['curve'].wall_s:.3g} s); "
                         f"kernel-time speedup {self.kernel_speedup:.3g}x")
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def plot_curve(self, **options: Any) -> Any:
        """The throughput curve with the MSP marked (:func:`starchart.msp.plots.plot_throughput_curve`)."""
        from starchart.msp.plots import plot_throughput_curve

        return plot_throughput_curve(self.curve, self.msp, **options)

    def plot_transfer(self, **options: Any) -> Any:
        """Quality at the target of the winner found at each size (:func:`starchart.msp.plots.plot_transfer`)."""
        from starchart.msp.plots import plot_transfer

        if self.transfer is None:
            raise InputError("no transfer curve was measured", where="plot_transfer",
                             hint="call tune_at_msp(..., transfer=True)")
        return plot_transfer(self.transfer, self.msp, **options)


def _json_float(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def tune_at_msp(evaluator: Evaluator, space: Space, sizes: Sequence[int | float], *, target: float | None = None,
                size_param: str = "n", config: Mapping[str, Any] | None = None, work: WorkSpec = "n",
                search: str | Callable[..., Any] = "exhaustive", budget: int | None = None, seed: int | None = 0,
                threshold: float = 0.10, stable: bool = False, repeats: int = 1, stat: str = "median",
                metric: str | None = None, baseline: str | None = "search", transfer: bool = False,
                confirm: int = 0, curve: pd.DataFrame | None = None) -> MSPTuningResult:
    """Tune at the minimum saturation point and evaluate the winner at the target size.

    Parameters
    ----------
    evaluator:
        Measures a configuration (tuning parameters plus ``size_param``); its
        objective is what the search optimises, ``metric`` (a time in ms) gives the throughput.
    space:
        The tuning space. It may hold ``size_param`` (its values are ignored) and its
        restrictions may name it.
    sizes:
        Input sizes of the throughput curve; the target is among them.
    target:
        The size tuned for; default: the largest of ``sizes`` (the paper's choice).
    size_param:
        Name of the input-size parameter.
    config:
        The default configuration the curve is measured with; default: the first
        value of every parameter (an error if that is not valid).
    work:
        Units of work of a configuration (see :func:`starchart.throughput.work_function`).
    search:
        ``"exhaustive"`` (default; the paper's), ``"uniform"`` (``budget`` random
        configurations via :func:`starchart.run`) or a callable
        ``search(evaluator, space, budget, seed)`` returning an object with ``.best``.
    budget, seed:
        Passed to the search.
    threshold, stable:
        Of :func:`~starchart.msp.curve.find_msp`.
    repeats, stat:
        Evaluations per size of the curve, and how repeated values become one number
        (``"median"``, ``"mean"``, ``"min"``); ``stat`` also ranks the built-in searches' results.
    metric:
        The time metric (ms) of the throughput; default: the evaluator's objective.
    baseline:
        The reference at the target that speedup and quality are measured against:
        ``"search"`` (the same search run at the target), ``"exhaustive"`` (every
        configuration at the target, the paper's reference) or ``None`` (skip it:
        the cheap way to use MSP-tuning, without speedup and quality).
    transfer:
        Also search at every size of the curve and report how each winner does at the
        target (needs a baseline).
    confirm:
        Rounds of re-measuring the finalists at the target — the baseline's best and
        every search's winner — together, alternating, before comparing them. ``0``
        (default) compares the values the baseline measured (winners it did not
        measure are measured once). On a noisy machine one unlucky measurement of a
        40 ms run can halve a configuration's apparent quality; rounds make the
        comparison fair. The reference is then the best re-measured finalist.
    curve:
        A throughput curve already measured (by :func:`throughput_curve`, with the
        same default configuration); its ``attrs["wall_s"]`` is taken as ``T_curve``.

    Returns
    -------
    MSPTuningResult
    """
    sizes = check_sizes(sizes)
    stat = check_stat(stat)
    metric = time_metric(evaluator, metric)
    if isinstance(confirm, bool) or not isinstance(confirm, int) or confirm < 0:
        raise InputError(f"confirm must be a number of rounds >= 0, got {confirm!r}", where="confirm")
    if not isinstance(space, Space):
        raise InputError(f"space must be a starchart Space, got {type(space).__name__}", where="space")
    if target is None:
        target = sizes[-1]
    elif target not in sizes:
        raise InputError(f"the target size {target!r} is not among the sizes {sizes}", where="target",
                         hint="add it to sizes: the curve must reach the target")
    sizes = [s for s in sizes if s <= target]
    if baseline not in BASELINES:
        raise InputError(f"unknown baseline {baseline!r}", where="baseline",
                         hint="use 'search', 'exhaustive' or None")
    if transfer and baseline is None:
        raise InputError("a transfer curve needs a baseline at the target", where="transfer",
                         hint="pass baseline='search' or 'exhaustive'")
    name, search_fn = resolve_search(search, stat)
    if baseline == "exhaustive":
        target_name, target_fn = resolve_search("exhaustive", stat)
    else:
        target_name, target_fn = name, search_fn
    default = _default_config(space, config, size_param, sizes)

    notes: list[str] = []
    if curve is None:
        curve = throughput_curve(evaluator, sizes, size_param=size_param, config=default, work=work,
                                 repeats=repeats, stat=stat, metric=metric)
        curve_cost = _curve_cost(curve, metric)
    else:
        curve = curve[curve["size"] <= target].reset_index(drop=True)
        missing = sorted(set(sizes) - set(curve["size"].tolist()))
        if missing:
            raise InputError(f"the given curve lacks size(s) {missing}", where="curve",
                             hint="measure the curve over the same sizes, or pass curve=None")
        curve_cost = _curve_cost(curve, metric)
    msp = find_msp(curve, threshold, target=target, stable=stable)
    notes += msp.notes

    phases: dict[Any, Phase] = {}

    def phase(size: float, at_target: bool = False) -> Phase:
        key = (size, at_target and target_name != name)
        if key not in phases:
            fn, label = (target_fn, target_name) if at_target else (search_fn, name)
            # an exhaustive baseline measures everything, whatever the budget of the search it is compared with
            limit = None if label == "exhaustive" and name != "exhaustive" else budget
            phases[key] = run_search(fn, label, evaluator, space_at(space, size_param, size), size, size_param,
                                     limit, seed, metric, stat)
        return phases[key]

    searched = sizes if transfer else [msp.size]
    for size in searched:  # smallest first: a broken set-up fails cheaply
        phase(size)
    reference = phase(target, at_target=True) if baseline is not None else None
    msp_phase = phase(msp.size)

    # The winners (and the baseline's best) at the target: from the baseline's own measurements, or
    # measured afresh; with confirm > 0, all of them re-measured together, alternating, in rounds.
    confirm_rec = Recorder(evaluator, metric, stat)
    confirm_start = time.perf_counter()
    finalists = [p.best for key, p in sorted(phases.items(), key=lambda kv: (kv[0][0], kv[0][1]))]
    confirmed = _confirm(confirm_rec, finalists, size_param, target, confirm, stat)

    def at_target(cfg: Mapping[str, Any]) -> float:
        full = {**cfg, size_param: target}
        if confirmed:
            return confirmed[config_key(full)]
        for source in ([reference.recorder] if reference is not None else []) + [confirm_rec]:
            value = source.value(full)
            if value is not None:
                return value
        return measurement_value(confirm_rec.evaluate(full), evaluator.objective, stat)

    winner_target = at_target(msp_phase.best)
    quality = speedup = kernel_speedup = None
    best_value = None
    target_best = None
    if reference is not None:
        target_best, best_value = reference.best, reference.value
        if confirmed:  # the reference is the best of the re-measured finalists
            values = {config_key({**f, size_param: target}): f for f in finalists}
            finite = {k: v for k, v in confirmed.items() if math.isfinite(v)}
            if finite:
                key = (min if evaluator.minimize else max)(finite, key=finite.__getitem__)
                target_best, best_value = values[key], finite[key]
            else:
                best_value = math.nan
        quality = _quality(best_value, winner_target, evaluator.minimize)
        speedup = _ratio(reference.cost.wall_s, msp_phase.cost.wall_s + curve_cost.wall_s)
        kernel_speedup = _ratio(reference.cost.measured_s, msp_phase.cost.measured_s + curve_cost.measured_s)
        if not math.isfinite(winner_target):
            notes.append(f"the MSP winner {msp_phase.best} fails at the target size {target}: quality 0")
        if baseline == "search" and name != "exhaustive":
            notes.append(f"the target's best comes from the same {name} search, not an exhaustive one: quality is "
                         "relative to what that search finds at the target")
    transfer_frame = None
    if transfer:
        assert reference is not None and best_value is not None  # transfer without a baseline was refused above
        transfer_frame = _transfer_frame(sizes, phases, name, target, at_target, best_value, evaluator.minimize,
                                         reference, curve_cost, msp.size, size_param, target_name != name)
    costs = {"curve": curve_cost, "msp": msp_phase.cost}
    if reference is not None:
        costs["target"] = reference.cost
    costs["confirm"] = confirm_rec.cost(time.perf_counter() - confirm_start if confirm_rec.measurements else 0.0)
    return MSPTuningResult(
        msp=msp, curve=curve, default_config=default, size_param=size_param, target=target, search=name,
        threshold=float(threshold), stat=stat, metric=metric, minimize=evaluator.minimize, winner=msp_phase.best,
        winner_value_msp=msp_phase.value, winner_value_target=winner_target,
        target_best=target_best, target_best_value=best_value,
        quality=quality, speedup=speedup, kernel_speedup=kernel_speedup, baseline=baseline, costs=costs,
        transfer=transfer_frame, notes=notes)


def _default_config(space: Space, config: Mapping[str, Any] | None, size_param: str,
                    sizes: Sequence[int | float]) -> dict[str, Any]:
    names = [n for n in space.names if n != size_param]
    if config is None:
        config = {n: space.tune_params[n][0] for n in names}
        how = "the first value of every parameter (the default when config= is not given)"
    else:
        if not isinstance(config, Mapping):
            raise InputError(f"config must be a dict of parameter values, got {config!r}", where="config")
        config = {k: v for k, v in config.items() if k != size_param}
        unknown = sorted(set(config) - set(names))
        missing = [n for n in names if n not in config]
        if unknown or missing:
            raise InputError(f"the default configuration {dict(config)} "
                             + (f"names unknown parameter(s) {unknown}" if unknown else
                                f"lacks parameter(s) {missing}"), where="config",
                             hint=f"give a value for each of {names}")
        how = "config="
    config = plain_config(config)
    for size in sizes:
        fixed = space_at(space, size_param, size)
        if not fixed.is_valid({**config, size_param: size}):
            raise InputError(f"the default configuration {config} ({how}) is not valid at size {size}: "
                             f"{_why_invalid(fixed, {**config, size_param: size})}", where="config",
                             hint="pass config= (--default on the command line) with a configuration valid at "
                                  "every size")
    return config


def _why_invalid(space: Space, config: Mapping[str, Any]) -> str:
    """Why ``config`` is not in ``space``: a value the space lacks, or the restrictions it breaks.

    >>> space = Space({"BLOCK": [64, 256], "n": [8]}, ["BLOCK <= 128", "BLOCK >= n"])
    >>> _why_invalid(space, {"BLOCK": 100, "n": 8}), _why_invalid(space, {"BLOCK": 256, "n": 8})
    ('BLOCK=100 is not among its values [64, 256]', 'it breaks the restriction(s) BLOCK <= 128')
    """
    for name, values in space.tune_params.items():
        if config.get(name) not in values:
            return f"{name}={config.get(name)!r} is not among its values {values}"
    broken = [str(r.source) if isinstance(r.source, str) else repr(r.source) for r in space.restrictions
              if not Space(space.tune_params, [r]).is_valid(config)]
    return f"it breaks the restriction(s) {', '.join(broken)}" if broken else "it is not in the space"


def _confirm(recorder: Recorder, finalists: Sequence[Mapping[str, Any]], size_param: str, target: float,
             rounds: int, stat: str) -> dict[str, float]:
    """Re-measure the distinct finalists at the target ``rounds`` times, alternating; value per config key."""
    if rounds == 0:
        return {}
    configs: dict[str, dict[str, Any]] = {}
    for f in finalists:
        full = {**f, size_param: target}
        configs.setdefault(config_key(full), full)
    keys = list(configs)
    values: dict[str, list[float]] = {k: [] for k in keys}
    objective = recorder.inner.objective
    for r in range(rounds):
        for key in keys[r % len(keys):] + keys[:r % len(keys)]:  # rotate so no configuration always goes first
            m = recorder.evaluate(configs[key])
            if m.ok:
                values[key].extend(m.values.get(objective, []))
    return {k: aggregate(v, stat) for k, v in values.items()}


def _curve_cost(curve: pd.DataFrame, metric: str) -> Cost:
    wall = curve.attrs.get("wall_s")
    if wall is None:
        wall = float(curve["eval_s"].sum()) if "eval_s" in curve.columns else 0.0
    measured = 0.0
    if "repeats" in curve.columns:
        measured = sum(math.fsum(v for v in values if math.isfinite(v)) for values in curve["repeats"]) / 1000.0
    evaluations = int(curve["evaluations"].sum()) if "evaluations" in curve.columns else len(curve)
    failures = int((curve["status"] != "ok").sum()) if "status" in curve.columns else 0
    return Cost(wall_s=float(wall), evaluations=evaluations, failures=failures, measured_s=measured)


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator > 0 else math.inf


def _quality(best: float, value: float, minimize: bool) -> float:
    """How good ``value`` is relative to ``best``: 1 = as good, 0.5 = twice as slow; 0 when it failed."""
    if not math.isfinite(value) or value <= 0 or not math.isfinite(best) or best <= 0:
        return 0.0
    return best / value if minimize else value / best


def _transfer_frame(sizes: Sequence[int | float], phases: Mapping[Any, Phase], name: str, target: float,
                    at_target: Callable[[Mapping[str, Any]], float], best_value: float, minimize: bool,
                    reference: Phase, curve_cost: Cost, msp_size: float, size_param: str,
                    separate_target: bool) -> pd.DataFrame:
    rows = []
    for size in sizes:
        p = phases[(size, False)]
        value_target = at_target(p.best)
        rows.append({"size": size, **{f"best_{k}": v for k, v in p.best.items()}, "value": p.value,
                     "value_at_target": value_target, "quality": _quality(best_value, value_target, minimize),
                     "search_s": p.cost.wall_s, "measured_s": p.cost.measured_s, "evaluations": p.cost.evaluations,
                     "speedup": _ratio(reference.cost.wall_s, p.cost.wall_s + curve_cost.wall_s),
                     "kernel_speedup": _ratio(reference.cost.measured_s, p.cost.measured_s + curve_cost.measured_s),
                     "is_msp": size == msp_size})
    frame = pd.DataFrame(rows)
    frame.attrs.update({"target": target, "search": name, "size_param": size_param,
                        "reference": "exhaustive" if separate_target else name,
                        "target_s": reference.cost.wall_s,
                        "curve_s": curve_cost.wall_s})
    return frame


def threshold_sweep(result: MSPTuningResult, thresholds: Sequence[float] | None = None, *,
                    stable: bool = False) -> pd.DataFrame:
    """Speedup and quality of MSP-tuning for each noise threshold (the paper's Fig. 7), from a transfer run.

    Nothing is measured again: each threshold's MSP is read off the curve, and its
    search's cost and winner off the transfer table. Columns: ``threshold``, ``msp``,
    ``saturated``, ``quality``, ``speedup`` and ``kernel_speedup``.
    """
    if result.transfer is None:
        raise InputError("a threshold sweep needs the transfer table", where="threshold_sweep",
                         hint="call tune_at_msp(..., transfer=True)")
    if thresholds is None:
        thresholds = [round(t, 2) for t in np.arange(0.0, 0.155, 0.01)]
    by_size = result.transfer.set_index("size")
    rows = []
    for threshold in thresholds:
        msp = find_msp(result.curve, float(threshold), target=result.target, stable=stable)
        row = by_size.loc[msp.size]
        rows.append({"threshold": float(threshold), "msp": msp.size, "saturated": msp.saturated,
                     "quality": float(row["quality"]), "speedup": float(row["speedup"]),
                     "kernel_speedup": float(row["kernel_speedup"])})
    return pd.DataFrame(rows)
