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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from starchart._util.configs import config_key, plain_config
from starchart._util.plugins import load_reference
from starchart._util.text import shorten
from starchart._util.validation import Interval, check
from starchart.analyses.throughput import WorkSpec, work_function
from starchart.errors import InputError, arg, say
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
from starchart.msp.search import (
    Cost,
    Phase,
    Recorder,
    measured_seconds,
    resolve_search,
    run_search,
)
from starchart.msp.store import Stopwatch, StoredEvaluator, msp_study, space_with_sizes
from starchart.space import Space

__all__ = ["BASELINES", "MSPTuningResult", "space_at", "threshold_sweep", "tune_at_msp"]

#: Where the figures of a result are drawn: a floor above this one, named and loaded when called.
FIGURES = "starchart.report.msp_figures"

#: How the target-size reference is obtained: the same search, an exhaustive one, or none.
BASELINES = ("search", "exhaustive", None)


def space_at(space: Space, size_param: str, size: float) -> Space:
    """``space`` with the input-size parameter fixed to ``size`` (added if the space lacks it).

    Restrictions may name the size parameter (e.g. ``"TILE <= n"``; the space then holds it).

    >>> s = space_at(Space({"TILE": [4, 8, 16], "n": [8, 16]}, "TILE <= n"), "n", 8)
    >>> s.names, s.size()
    (('TILE', 'n'), 2)
    """
    return space_with_sizes(space, size_param, [size])


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
        Its objective (ms when a time) at the MSP and at the target (NaN when it failed there, or
        when the space forbids it at the target: a restriction naming the size).
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
        Caveats: the MSP's own notes, configurations that failed at the target (how many, and
        the first reason; also when the MSP winner runs there), sizes of a transfer run where
        no configuration ran (their transfer row has no winner and quality 0), winners the space
        forbids at the target (not run there: quality 0), a baseline that is not exhaustive.
    objective:
        The evaluator's objective, which the winners' values are (``metric`` when it is the time).
    stable:
        Whether the MSP was found with ``stable=True`` (:func:`threshold_sweep` follows it).
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
    objective: str | None = None
    stable: bool = False

    def summary(self) -> dict[str, Any]:
        """A JSON-able summary (no frames)."""
        return {"msp": self.msp.to_dict(), "default_config": self.default_config, "size_param": self.size_param,
                "target": self.target, "search": self.search, "baseline": self.baseline,
                "threshold": self.threshold, "stable": self.stable, "stat": self.stat, "metric": self.metric,
                "objective": self.objective or self.metric, "minimize": self.minimize,
                "winner": self.winner, "winner_value_msp": _json_float(self.winner_value_msp),
                "winner_value_target": _json_float(self.winner_value_target), "target_best": self.target_best,
                "target_best_value": _json_float(self.target_best_value), "quality": _json_float(self.quality),
                "speedup": _json_float(self.speedup), "kernel_speedup": _json_float(self.kernel_speedup),
                "costs": {k: v.to_dict() for k, v in self.costs.items()}, "notes": list(self.notes)}

    def __str__(self) -> str:
        # the values are the objective's, which is not the time metric when e.g. GFLOP/s is optimised
        objective = self.objective or self.metric
        lines = [str(self.msp),
                 (f"search ({self.search}) at the MSP {self.msp.size}: winner {self.winner}, "
                  f"{objective} {self.winner_value_msp:.4g} there, {self.winner_value_target:.4g} at the target "
                  f"{self.target}")]
        if self.quality is not None:
            lines.append(f"target best ({self.baseline}): {self.target_best} {objective} "
                         f"{self.target_best_value:.4g}; quality {self.quality:.1%}")
        if self.speedup is not None:
            c = self.costs
            lines.append(f"search speedup {_times(self.speedup)} = T_target {c['target'].wall_s:.3g} s / "
                         f"(T_MSP {c['msp'].wall_s:.3g} s + T_curve {c['curve'].wall_s:.3g} s); "
                         f"kernel-time speedup {_times(self.kernel_speedup)}")
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def plot_curve(self, **options: Any) -> Any:
        """The throughput curve with the MSP marked (:func:`starchart.report.msp_figures.plot_throughput_curve`)."""
        return load_reference(f"{FIGURES}:plot_throughput_curve")(self.curve, self.msp, **options)

    def plot_transfer(self, **options: Any) -> Any:
        """Quality at the target of the winner found at each size (:func:`starchart.report.msp_figures.plot_transfer`)."""
        if self.transfer is None:
            raise InputError("no transfer curve was measured", where="plot_transfer",
                             hint="call tune_at_msp(..., transfer=True)")
        return load_reference(f"{FIGURES}:plot_transfer")(self.transfer, self.msp, **options)


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python number it holds (the store records settings as JSON)."""
    return value.item() if isinstance(value, np.generic) else value


def _json_float(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def tune_at_msp(evaluator: Evaluator, space: Space, sizes: Sequence[int | float], *, target: float | None = None,
                size_param: str = "n", config: Mapping[str, Any] | None = None, work: WorkSpec = "n",
                search: str | Callable[..., Any] = "exhaustive", budget: int | None = None, seed: int | None = 0,
                threshold: float = 0.10, stable: bool = False, repeats: int = 1, stat: str = "median",
                metric: str | None = None, baseline: str | None = "search", transfer: bool = False,
                confirm: int = 0, curve: pd.DataFrame | None = None, store: Any = None,
                before_measuring: Callable[[], None] | None = None) -> MSPTuningResult:
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
        Units of work of a configuration (see :func:`starchart.analyses.throughput.work_function`).
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
    store:
        A :class:`~starchart.study.store.Store` or a path (created if missing): every measurement —
        curve, searches, the target, confirmations — is committed there as it arrives, with
        the space (the size parameter listing the sizes), the evaluator and these settings.
        Calling again with the same store measures nothing it holds (an interrupted study
        resumes where it stopped; one that finished is only recomputed); a store of another
        space or evaluator is refused before anything is measured. Default: nothing is kept.
        See :mod:`starchart.msp.store`.
    before_measuring:
        Called once every argument is accepted, before the store is opened and anything is measured:
        e.g. to create an output folder, so that a call refused for its arguments leaves none behind
        (and a refused folder leaves no store).

    Returns
    -------
    MSPTuningResult
    """
    sizes = check_sizes(sizes)
    stat = check_stat(stat)
    metric = time_metric(evaluator, metric)
    confirm = check("confirm", confirm, Interval(int, 0, None), hint="a number of rounds: 0 confirms nothing")
    if not isinstance(space, Space):
        raise InputError(f"space must be a starchart Space, got {type(space).__name__}", where="space")
    if all(name == size_param for name in space.names):  # e.g. size_param naming the one tuning parameter
        raise InputError(f"the space has no parameter to tune besides the input size {size_param!r}", where="space",
                         hint=f"{arg('size_param')} names the input size and the space the parameters to tune: check both")
    if target is None:
        target = sizes[-1]
    elif target not in sizes:
        raise InputError(f"the target size {target!r} is not among the sizes {sizes}", where="target",
                         hint=f"add it to {arg('sizes')}: the curve must reach the target")
    else:  # the plain size: a numpy target (sizes[-2] of an array) is not JSON, and 256.0 reads as a float
        target = next(size for size in sizes if size == target)
    sizes = [s for s in sizes if s <= target]
    if baseline not in BASELINES:
        raise InputError(f"unknown baseline {baseline!r}", where="baseline",
                         hint=say("use 'search', 'exhaustive' or None", "use search, exhaustive or none"))
    if transfer and baseline is None:
        raise InputError("a transfer curve needs a baseline at the target", where="transfer",
                         hint=say("pass baseline='search' or 'exhaustive'",
                                  "pass --baseline search or --baseline exhaustive"))
    name, search_fn = resolve_search(search, stat)
    if baseline == "exhaustive":
        target_name, target_fn = resolve_search("exhaustive", stat)
    else:
        target_name, target_fn = name, search_fn
    default = _default_config(space, config, size_param, sizes)
    units = work_function(work, size_param)
    for size in sizes:  # the curve would refuse a bad work expression too, but only once the store is written
        units({**default, size_param: size})
    setup = _Setup(sizes=sizes, target=target, size_param=size_param, default=default, work=work, name=name,
                   search_fn=search_fn, target_name=target_name, target_fn=target_fn, budget=budget, seed=seed,
                   threshold=threshold, stable=stable, repeats=repeats, stat=stat, metric=metric,
                   baseline=baseline, transfer=transfer, confirm=confirm)
    if curve is not None:
        _check_given_curve(curve, setup)
    if before_measuring is not None:
        before_measuring()
    # every measurement below goes to the store as it arrives; a rerun replays what is stored
    with msp_study(store, evaluator, space=space, size_param=size_param, sizes=sizes,
                   settings=setup.settings()) as measuring:
        return _tune(measuring, space, setup, curve)


@dataclass
class _Setup:
    """tune_at_msp's arguments, checked and resolved."""

    sizes: list[int | float]
    target: int | float
    size_param: str
    default: dict[str, Any]
    work: WorkSpec
    name: str
    search_fn: Callable[..., Any]
    target_name: str
    target_fn: Callable[..., Any]
    budget: int | None
    seed: int | None
    threshold: float
    stable: bool
    repeats: int
    stat: str
    metric: str
    baseline: str | None
    transfer: bool
    confirm: int

    def settings(self) -> dict[str, Any]:
        """What a store records of this study (JSON-able; a callable search or work is recorded by name)."""
        return {"sizes": list(self.sizes), "target": self.target, "size_param": self.size_param,
                "config": self.default, "work": self.work if isinstance(self.work, str) else repr(self.work),
                "search": self.name, "budget": _plain(self.budget), "seed": _plain(self.seed), "threshold": float(self.threshold),
                "stable": bool(self.stable), "repeats": int(self.repeats), "stat": self.stat,
                "metric": self.metric, "baseline": self.baseline, "transfer": bool(self.transfer),
                "confirm": int(self.confirm)}


def _tune(evaluator: Evaluator, space: Space, s: _Setup, curve: pd.DataFrame | None) -> MSPTuningResult:
    """tune_at_msp's measuring and conclusions, with ``evaluator`` already keeping what it measures."""
    curve, curve_cost = _the_curve(evaluator, s, curve)
    try:
        msp = find_msp(curve, s.threshold, target=s.target, stable=s.stable)
    except InputError as exc:
        failed = curve["status"] != "ok" if "status" in curve.columns else ()
        if isinstance(evaluator, StoredEvaluator) and evaluator.replayed and any(failed):
            # a rerun on the same store replays the failures: fixing the machine alone changes nothing
            raise InputError(exc.raw_message, where=exc.raw_where,
                             hint=f"{exc.raw_hint}; the curve's measurements were read back from the store, which "
                                  "gives the same failures on every rerun: once the cause is fixed, measure into "
                                  f"another store ({arg('store', repr('new.db'))})") from None
        raise
    notes = list(msp.notes)

    phases: dict[Any, Phase] = {}

    def phase(size: float, at_target: bool = False, tolerate: bool = False) -> Phase:
        key = (size, at_target and s.target_name != s.name)
        if key not in phases:
            fn, label = (s.target_fn, s.target_name) if at_target else (s.search_fn, s.name)
            # an exhaustive baseline measures everything, whatever the budget of the search it is compared with
            limit = None if label == "exhaustive" and s.name != "exhaustive" else s.budget
            phases[key] = run_search(fn, label, evaluator, space_at(space, s.size_param, size), size, s.size_param,
                                     limit, s.seed, s.metric, s.stat, tolerate=tolerate)
        return phases[key]

    searched = s.sizes if s.transfer else [msp.size]
    for size in searched:  # smallest first: a broken set-up fails cheaply
        # a size where nothing runs is a point of the transfer curve (quality 0), unless tuning needs it
        phase(size, tolerate=size not in (msp.size, s.target))
    reference = phase(s.target, at_target=True) if s.baseline is not None else None
    msp_phase = phase(msp.size)
    notes += [p.failure for p in phases.values() if p.best is None]

    # The winners (and the baseline's best) at the target: from the baseline's own measurements, or
    # measured afresh; with confirm > 0, all of them re-measured together, alternating, in rounds.
    # A winner the space forbids at the target (a restriction naming the size) is not run there: the kernel
    # may not support it, and its time could beat the target's best, whose search never tried it (quality > 1).
    target_space = space_at(space, s.size_param, s.target)

    def invalid_at_target(cfg: Mapping[str, Any]) -> str:
        """Why ``cfg`` is not valid at the target size, or ``""``."""
        full = {**cfg, s.size_param: s.target}
        return "" if target_space.is_valid(full) else _why_invalid(target_space, full)

    confirm_rec = Recorder(evaluator, s.metric, s.stat)
    confirm_clock = Stopwatch(evaluator)
    finalists = [p.best for key, p in sorted(phases.items(), key=lambda kv: (kv[0][0], kv[0][1]))
                 if p.best is not None and not invalid_at_target(p.best)]
    confirmed = _confirm(confirm_rec, finalists, s.size_param, s.target, s.confirm, s.stat)

    def at_target(cfg: Mapping[str, Any]) -> float:
        full = {**cfg, s.size_param: s.target}
        if invalid_at_target(cfg):
            return math.nan
        if confirmed:
            return confirmed[config_key(full)]
        for source in ([reference.recorder] if reference is not None else []) + [confirm_rec]:
            value = source.value(full)
            if value is not None:
                return value
        return measurement_value(confirm_rec.evaluate(full), evaluator.objective, s.stat)

    assert msp_phase.best is not None  # the MSP's search is not tolerated to find nothing
    winner_target = at_target(msp_phase.best)
    quality = speedup = kernel_speedup = None
    best_value = None
    target_best = None
    why = invalid_at_target(msp_phase.best)
    if why:
        notes.append(f"the MSP winner {msp_phase.best} is not valid at the target size {s.target} ({why}), so it "
                     "was not run there" + (": quality 0" if reference is not None else ""))
    elif not math.isfinite(winner_target):
        notes.append(f"the MSP winner {msp_phase.best} fails at the target size {s.target}"
                     + (": quality 0" if reference is not None else ""))
    if reference is not None:
        target_best, best_value = reference.best, reference.value
        if confirmed:  # the reference is the best of the re-measured finalists
            values = {config_key({**f, s.size_param: s.target}): f for f in finalists}
            finite = {k: v for k, v in confirmed.items() if math.isfinite(v)}
            if finite:
                key = (min if evaluator.minimize else max)(finite, key=finite.__getitem__)
                target_best, best_value = values[key], finite[key]
            else:
                best_value = math.nan
        quality = _quality(best_value, winner_target, evaluator.minimize)
        speedup = _ratio(reference.cost.wall_s, msp_phase.cost.wall_s + curve_cost.wall_s)
        kernel_speedup = _ratio(reference.cost.measured_s, msp_phase.cost.measured_s + curve_cost.measured_s)
        if s.baseline == "search" and s.name != "exhaustive":
            notes.append(f"the target's best comes from the same {s.name} search, not an exhaustive one: quality "
                         "is relative to what that search finds at the target")
    notes += _target_failures(reference, confirm_rec, s.target, s.size_param)
    transfer_frame = None
    if s.transfer:
        forbidden = [(size, p.best) for (size, separate), p in sorted(phases.items(), key=lambda kv: kv[0])
                     if not separate and size != msp.size and p.best is not None and invalid_at_target(p.best)]
        if forbidden:
            size, cfg = forbidden[0]
            notes.append(f"the winner(s) found at size(s) {[f[0] for f in forbidden]} are not valid at the target "
                         f"size {s.target} (e.g. {cfg} from size {size}: {invalid_at_target(cfg)}): not run there, "
                         "quality 0")
        assert reference is not None and best_value is not None  # transfer without a baseline was refused above
        transfer_frame = _transfer_frame(s.sizes, phases, s.name, s.target, at_target, best_value,
                                         evaluator.minimize, reference, curve_cost, msp.size, s.size_param,
                                         s.target_name != s.name)
    costs = {"curve": curve_cost, "msp": msp_phase.cost}
    if reference is not None:
        costs["target"] = reference.cost
    costs["confirm"] = confirm_rec.cost(confirm_clock.seconds() if confirm_rec.measurements else 0.0)
    return MSPTuningResult(
        msp=msp, curve=curve, default_config=s.default, size_param=s.size_param, target=s.target, search=s.name,
        threshold=float(s.threshold), stat=s.stat, metric=s.metric, minimize=evaluator.minimize,
        winner=msp_phase.best, winner_value_msp=msp_phase.value, winner_value_target=winner_target,
        target_best=target_best, target_best_value=best_value,
        quality=quality, speedup=speedup, kernel_speedup=kernel_speedup, baseline=s.baseline, costs=costs,
        transfer=transfer_frame, notes=notes, objective=evaluator.objective, stable=bool(s.stable))


def _the_curve(evaluator: Evaluator, s: _Setup, curve: pd.DataFrame | None) -> tuple[pd.DataFrame, Cost]:
    """The throughput curve (measured, or the one given, checked against the sizes) and what it cost."""
    if curve is None:
        curve = throughput_curve(evaluator, s.sizes, size_param=s.size_param, config=s.default, work=s.work,
                                 repeats=s.repeats, stat=s.stat, metric=s.metric)
    else:  # checked by tune_at_msp before the store was opened
        curve = curve[curve["size"] <= s.target].reset_index(drop=True)
        missing = sorted(set(s.sizes) - set(curve["size"].tolist()))
        if missing:
            raise InputError(f"the given curve lacks size(s) {missing}", where="curve",
                             hint="measure the curve over the same sizes, or pass curve=None")
    return curve, _curve_cost(curve, s.metric)


def _check_given_curve(curve: Any, s: _Setup) -> None:
    """Refuse a ``curve=`` that is not a :func:`throughput_curve` frame of this study: its MSP would be
    another configuration's (or work's), and the result would name the wrong one."""
    if not isinstance(curve, pd.DataFrame) or not {"size", "throughput"} <= set(curve.columns):
        raise InputError(f"curve= must be the frame throughput_curve() returns, got {type(curve).__name__}"
                         + (f" with columns {list(curve.columns)}" if isinstance(curve, pd.DataFrame) else ""),
                         where="curve", hint="measure it with throughput_curve(...), or pass curve=None")
    check_sizes(curve["size"].tolist(), where="curve sizes")
    given = {"config": s.default, "work": s.work, "size_param": s.size_param}
    for name, value in given.items():
        measured = curve.attrs.get(name)
        if name == "config" and isinstance(measured, Mapping):
            measured, value = plain_config(measured), plain_config(value)
        if measured is not None and isinstance(value, (str, dict)) and measured != value:
            raise InputError(f"the given curve was measured with {name} {measured!r}, this call has {value!r}",
                             where="curve", hint="pass the same config/work/size_param as the curve's, or "
                                                 "curve=None to measure it again")


def _target_failures(reference: Phase | None, confirm_rec: Recorder, target: float, size_param: str) -> list[str]:
    """A note on the configurations that failed at the target size (the baseline's, and the winners
    measured there to compare them), with the first reason: quality is relative to those that ran."""
    recorders = ([reference.recorder] if reference is not None else []) + [confirm_rec]
    measured = [m for r in recorders for m in r.measurements]  # all of them at the target size
    ran = {config_key(m.config) for m in measured if m.ok}
    failed: dict[str, Any] = {}
    for m in measured:
        if not m.ok and config_key(m.config) not in ran:
            failed.setdefault(config_key(m.config), m)
    if not failed:
        return []
    first = next(iter(failed.values()))
    shown = {k: v for k, v in first.config.items() if k != size_param}
    tried = len({config_key(m.config) for m in measured})
    return [f"{len(failed)} of the {tried} configurations measured at the target size {target} failed "
            f"(e.g. {shown}: {first.status}: {shorten(first.reason or 'no reason given', 120)})"]


def _default_config(space: Space, config: Mapping[str, Any] | None, size_param: str,
                    sizes: Sequence[int | float]) -> dict[str, Any]:
    names = [n for n in space.names if n != size_param]
    if config is None:
        config = {n: space.tune_params[n][0] for n in names}
        how = "the first value of every parameter (the default when config= is not given)"
    else:
        if not isinstance(config, Mapping):
            raise InputError(f"config must be a dict of parameter values, got {config!r}", where="config")
        if size_param in config:  # dropping it silently made the error blame the other parameters
            raise InputError(f"{arg('config')} sets the input-size parameter {size_param!r}", where="config",
                             hint=f"give a value for each of {names} and leave {size_param!r} out: its values "
                                  "are the input sizes")
        unknown = sorted(set(config) - set(names))
        missing = [n for n in names if n not in config]
        if unknown or missing:
            raise InputError(f"the default configuration {dict(config)} "
                             + (f"names unknown parameter(s) {unknown}" if unknown else
                                f"lacks parameter(s) {missing}"), where="config",
                             hint=f"give a value for each of {names}")
        how = arg("config", "")
    config = plain_config(config)
    for size in sizes:
        fixed = space_at(space, size_param, size)
        if not fixed.is_valid({**config, size_param: size}):
            raise InputError(f"the default configuration {config} ({how}) is not valid at size {size}: "
                             f"{_why_invalid(fixed, {**config, size_param: size})}", where="config",
                             hint=f"pass {arg('config', '')} with a configuration valid at every size")
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
        measured = measured_seconds(v for values in curve["repeats"] for v in values)
    evaluations = int(curve["evaluations"].sum()) if "evaluations" in curve.columns else len(curve)
    failures = int((curve["status"] != "ok").sum()) if "status" in curve.columns else 0
    return Cost(wall_s=float(wall), evaluations=evaluations, failures=failures, measured_s=measured)


def _ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``; ``inf`` for a zero denominator, NaN when both are infinite (undefined)."""
    if math.isinf(numerator) and math.isinf(denominator):
        return math.nan
    return numerator / denominator if denominator > 0 else math.inf


def _times(ratio: float | None) -> str:
    """A speedup as text: ``12.3x``, or why there is none (times too large to add up give inf / inf).

    >>> _times(12.345), _times(float("nan"))
    ('12.3x', 'undefined (the measured times are too large to add up)')
    """
    if ratio is None or math.isnan(ratio):
        return "undefined (the measured times are too large to add up)"
    return f"{ratio:.3g}x"


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
        # a size where nothing ran has no winner: quality 0, as a winner failing at the target has
        value_target = math.nan if p.best is None else at_target(p.best)
        best = p.best if p.best is not None else dict.fromkeys(reference.best or {})
        rows.append({"size": size, **{f"best_{k}": v for k, v in best.items()}, "value": p.value,
                     "value_at_target": value_target, "quality": _quality(best_value, value_target, minimize),
                     "search_s": p.cost.wall_s, "measured_s": p.cost.measured_s, "evaluations": p.cost.evaluations,
                     "speedup": _ratio(reference.cost.wall_s, p.cost.wall_s + curve_cost.wall_s),
                     "kernel_speedup": _ratio(reference.cost.measured_s, p.cost.measured_s + curve_cost.measured_s),
                     "is_msp": size == msp_size})
    frame = pd.DataFrame(rows)
    if any(phases[(size, False)].best is None for size in sizes):
        for column in [c for c in frame.columns if c.startswith("best_")]:
            # as objects: a size without a winner (None) must not turn the other sizes' values into floats
            frame[column] = pd.Series([row[column] for row in rows], dtype=object)
    frame.attrs.update({"target": target, "search": name, "size_param": size_param,
                        "reference": "exhaustive" if separate_target else name,
                        "target_s": reference.cost.wall_s,
                        "curve_s": curve_cost.wall_s})
    return frame


def threshold_sweep(result: MSPTuningResult, thresholds: Sequence[float] | None = None, *,
                    stable: bool | None = None) -> pd.DataFrame:
    """Speedup and quality of MSP-tuning for each noise threshold (the paper's Fig. 7), from a transfer run.

    Nothing is measured again: each threshold's MSP is read off the curve, and its
    search's cost and winner off the transfer table. ``stable`` defaults to the run's own
    (so the sweep's row at the run's threshold shows the run's MSP). Columns: ``threshold``,
    ``msp``, ``saturated``, ``quality``, ``speedup`` and ``kernel_speedup``. Where the default
    configuration failed at the target, a threshold at which no smaller size is known to be saturated
    has ``msp`` ``None`` and NaN values; ``frame.attrs["notes"]`` says why.
    """
    if result.transfer is None:
        raise InputError("a threshold sweep needs the transfer table", where="threshold_sweep",
                         hint="call tune_at_msp(..., transfer=True)")
    if thresholds is None:
        thresholds = [round(t, 2) for t in np.arange(0.0, 0.155, 0.01)]
    if stable is None:
        stable = result.stable
    by_size = result.transfer.set_index("size")
    rows = []
    notes: list[str] = []
    for threshold in thresholds:
        try:
            msp = find_msp(result.curve, float(threshold), target=result.target, stable=stable)
        except InputError as exc:  # the default configuration failed at the target: at this threshold no
            # size of the curve is known to be saturated (the run's own threshold had one)
            rows.append({"threshold": float(threshold), "msp": None, "saturated": False, "quality": math.nan,
                         "speedup": math.nan, "kernel_speedup": math.nan})
            notes.append(f"threshold {float(threshold):g}: {exc.message}")
            continue
        row = by_size.loc[msp.size]
        rows.append({"threshold": float(threshold), "msp": msp.size, "saturated": msp.saturated,
                     "quality": float(row["quality"]), "speedup": float(row["speedup"]),
                     "kernel_speedup": float(row["kernel_speedup"])})
    frame = pd.DataFrame(rows)
    if notes:  # as objects: a threshold without an MSP (None) must not turn the other sizes into floats
        frame["msp"] = pd.Series([row["msp"] for row in rows], dtype=object)
    frame.attrs["notes"] = notes
    return frame
