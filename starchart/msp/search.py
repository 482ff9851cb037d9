"""Searches run at one input size, and what they cost.

A *search* is any callable ``search(evaluator, space, budget, seed)`` returning an
object with ``.best`` (the best configuration found, as a dict, a pandas row or a
:class:`~starchart.measure.Measurement`). Two are built in:

- :func:`exhaustive_search` — every valid configuration (the paper's search);
- :func:`uniform_search` — ``budget`` configurations drawn uniformly (through
  :func:`starchart.run`);
- ``tree`` (:func:`strategy_search`) — the tree-guided search, and so every strategy of the search
  registry (:mod:`starchart.strategies.registry`), installed plug-ins included.

Others are passed as callables. While a search runs,
its evaluator is wrapped in a :class:`Recorder`, which keeps every measurement and
the wall time of every evaluation, so what a search cost is known whatever the
search is.

Examples
--------
>>> from starchart.measure import PythonEvaluator
>>> from starchart.space import Space
>>> space = Space({"x": [1, 2, 3, 4], "n": [10]})
>>> result = exhaustive_search(PythonEvaluator(lambda c: (c["x"] - 3) ** 2 + 1.0), space)
>>> result.best, result.best_value
({'x': 3, 'n': 10}, 1.0)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from starchart._util.configs import config_key, frame_configs, plain_config
from starchart.dataset import REPEATS_PREFIX, Dataset
from starchart.errors import InputError, arg, say
from starchart.measure.base import Evaluator, Measurement, mean_of
from starchart.msp.curve import aggregate, measurement_value
from starchart.msp.store import Stopwatch, Wrapper
from starchart.space import Space
from starchart.strategies.registry import strategy_names
from starchart.strategies.search import search as run_strategy
from starchart.study.runner import run

__all__ = ["SEARCHES", "Cost", "NothingRan", "Recorder", "SearchResult", "best_config", "exhaustive_search",
           "measured_seconds", "resolve_search", "uniform_search"]

SearchFn = Callable[[Evaluator, Space, "int | None", "int | None"], Any]


class NothingRan(InputError):
    """A search in which no configuration ran successfully, so it has no best."""


@dataclass
class SearchResult:
    """What a built-in search found.

    Attributes
    ----------
    best:
        The best configuration measured.
    best_value:
        Its objective value (repeats reduced by the search's statistic).
    dataset:
        Every configuration the search measured.
    """

    best: dict[str, Any]
    best_value: float
    dataset: Dataset


def _best_of(dataset: Dataset, evaluator: Evaluator, stat: str) -> SearchResult:
    metric = evaluator.objective
    frame = dataset.frame
    ok = frame[frame["status"] == "ok"]
    if ok.empty:
        reasons = frame["reason"].dropna().astype(str)
        first = reasons.iloc[0] if len(reasons) else "no configuration was measured"
        raise NothingRan(f"no configuration of the search ran successfully ({len(frame)} tried; first failure: "
                         f"{first})", where="search", hint="check the evaluator on one configuration first")
    column = REPEATS_PREFIX + metric
    if column in ok.columns:
        values = ok[column].map(lambda v: aggregate(v if isinstance(v, list) else [v], stat))
    else:
        values = ok[metric].astype(float)
    values = values.where(values.map(math.isfinite))
    if values.isna().all():
        raise InputError(f"the search measured no finite {metric!r}", where="search")
    index = values.idxmin() if evaluator.minimize else values.idxmax()
    best = plain_config({p: ok.at[index, p] for p in dataset.params})
    return SearchResult(best=best, best_value=float(values[index]), dataset=dataset)


def exhaustive_search(evaluator: Evaluator, space: Space, budget: int | None = None, seed: int | None = None, *,
                      stat: str = "median") -> SearchResult:
    """Measure every valid configuration of ``space`` and return the best.

    ``budget``, when given, must cover the whole space (an exhaustive search cannot
    stop early); ``seed`` is ignored.
    """
    size = space.size()
    if budget is not None and int(budget) < size:
        raise InputError(f"an exhaustive search needs {size} evaluations, but the budget is {budget}",
                         where="budget", hint=f"raise the budget, or use {arg('search', repr('uniform'))} with that budget")

    configs = list(frame_configs(space.to_frame(), space.names))
    dataset = run(space, evaluator, configs=configs, progress=False)
    return _best_of(dataset, evaluator, stat)


def uniform_search(evaluator: Evaluator, space: Space, budget: int | None, seed: int | None = None, *,
                   stat: str = "median") -> SearchResult:
    """Measure ``budget`` configurations drawn uniformly at random (without repeats) and return the best.

    With the same ``seed``, spaces that differ only in the value of a fixed parameter
    (the input size) get the same configurations.
    """
    if budget is None or isinstance(budget, bool) or int(budget) < 1:
        raise InputError(f"a uniform search needs a budget of at least 1 evaluation, got {budget!r}",
                         where="budget", hint=f"pass {arg('budget', 'N')}")

    samples = min(int(budget), space.size())
    dataset = run(space, evaluator, samples=samples, seed=0 if seed is None else int(seed), progress=False)
    return _best_of(dataset, evaluator, stat)


def strategy_search(evaluator: Evaluator, space: Space, budget: int | None, seed: int | None = None, *,
                    strategy: str = "tree", stat: str = "median") -> SearchResult:
    """Spend ``budget`` evaluations on a strategy of the search registry (:mod:`starchart.strategies.registry`),
    by default the tree-guided search, and return the best configuration it measured.

    >>> from starchart.measure import PythonEvaluator
    >>> space = Space({"x": list(range(1, 13)), "n": [10]})
    >>> strategy_search(PythonEvaluator(lambda c: (c["x"] - 7) ** 2 + 1.0), space, budget=12, seed=1).best
    {'x': 7, 'n': 10}
    """
    if budget is None or isinstance(budget, bool) or int(budget) < 1:
        raise InputError(f"a {strategy} search needs a budget of at least 1 evaluation, got {budget!r}",
                         where="budget", hint=f"pass {arg('budget', 'N')}")
    result = run_strategy(evaluator, space, min(int(budget), space.size()), seed=0 if seed is None else int(seed),
                          strategy=strategy)
    return _best_of(result.to_dataset(), evaluator, stat)


#: The built-in searches by name; every strategy of the search registry (``tree`` and installed ones)
#: is a search too (:func:`resolve_search`).
SEARCHES: dict[str, Callable[..., SearchResult]] = {"exhaustive": exhaustive_search, "uniform": uniform_search,
                                                   "tree": functools.partial(strategy_search, strategy="tree")}


def resolve_search(search: str | Callable[..., Any], stat: str) -> tuple[str, SearchFn]:
    """``(name, callable)`` for a search name or callable; built-ins get ``stat`` bound."""
    if isinstance(search, str):
        fn = SEARCHES.get(search)
        if fn is None and search in strategy_names():  # a strategy a plug-in installed
            fn = functools.partial(strategy_search, strategy=search)
        if fn is None:
            names = [*SEARCHES, *(name for name in strategy_names() if name not in SEARCHES)]
            raise InputError(f"unknown search {search!r}", where="search",
                             hint=f"use one of {', '.join(names)}"
                                  + say(", or pass a callable search(evaluator, space, budget, seed) returning an "
                                        "object with .best", ""))
        return search, functools.partial(fn, stat=stat)
    if not callable(search):
        raise InputError(f"search must be a name or a callable, got {search!r}", where="search")
    name = getattr(search, "__qualname__", None) or type(search).__name__
    module = getattr(search, "__module__", None)
    return (f"{module}.{name}" if module else name), search


def best_config(result: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """The configuration in a search result's ``.best`` (restricted to ``names``)."""
    best = getattr(result, "best", None)
    if best is None:
        raise InputError(f"the search returned {type(result).__name__}, which has no .best", where="search",
                         hint="a search must return an object whose .best is the best configuration")
    if isinstance(best, Measurement) or hasattr(best, "config") and isinstance(best.config, Mapping):
        best = best.config
    if isinstance(best, pd.DataFrame):
        if len(best) != 1:
            raise InputError(f"the search's .best is a frame of {len(best)} rows", where="search",
                             hint="return one configuration")
        best = best.iloc[0]
    if isinstance(best, pd.Series):
        best = best.to_dict()
    if not isinstance(best, Mapping):
        raise InputError(f"the search's .best is {type(best).__name__}, not a configuration", where="search",
                         hint="return the best configuration as a dict of parameter values")
    missing = [n for n in names if n not in best]
    if missing:
        raise InputError(f"the search's best configuration lacks parameter(s) {missing}", where="search")
    return plain_config({n: best[n] for n in names})


# ---------------------------------------------------------------------- cost accounting
@dataclass
class Cost:
    """What a phase (a search, the throughput curve) cost.

    Attributes
    ----------
    wall_s:
        Wall-clock seconds of the whole phase (evaluations, compiles, the search's own work).
    evaluations, failures:
        Evaluations made, and how many of them failed.
    compile_s, run_s, overhead_s:
        Sums over the evaluations (see :class:`~starchart.measure.Measurement`).
    measured_s:
        Sum of every measured value of the time metric, in seconds: the kernel's own
        run time, which is what Magni et al. count as search time.
    """

    wall_s: float = 0.0
    evaluations: int = 0
    failures: int = 0
    compile_s: float = 0.0
    run_s: float = 0.0
    overhead_s: float = 0.0
    measured_s: float = 0.0

    def to_dict(self) -> dict[str, float]:
        return {"wall_s": self.wall_s, "evaluations": self.evaluations, "failures": self.failures,
                "compile_s": self.compile_s, "run_s": self.run_s, "overhead_s": self.overhead_s,
                "measured_s": self.measured_s}


class Recorder(Wrapper):
    """An evaluator that passes every call to ``inner`` and keeps the measurements and their wall times.

    Parameters
    ----------
    inner:
        The evaluator doing the work.
    metric:
        The time metric (ms) summed into :attr:`Cost.measured_s`.
    stat:
        How :meth:`value` reduces a measurement's repeats.
    """

    def __init__(self, inner: Evaluator, metric: str, stat: str):
        super().__init__(inner)
        self.metric = metric
        self.stat = stat
        self.measurements: list[Measurement] = []
        self.walls: list[float] = []
        self._by_key: dict[str, Measurement] = {}

    def evaluate(self, config: Mapping[str, Any]) -> Measurement:
        clock = Stopwatch(self.inner)  # a measurement replayed from a store costs what it cost when made
        measurement = self.inner.evaluate(config)
        self.walls.append(clock.seconds())
        self.measurements.append(measurement)
        self._by_key.setdefault(config_key(measurement.config), measurement)
        if measurement.ok:  # an ok measurement wins over an earlier failure of the same configuration
            previous = self._by_key[config_key(measurement.config)]
            if not previous.ok:
                self._by_key[config_key(measurement.config)] = measurement
        return measurement

    def measurement(self, config: Mapping[str, Any]) -> Measurement | None:
        """The measurement of ``config`` (full configuration, size included), if it was made."""
        return self._by_key.get(config_key(config))

    def value(self, config: Mapping[str, Any]) -> float | None:
        """``config``'s objective value (NaN when it failed), or ``None`` when it was not measured."""
        m = self.measurement(config)
        return None if m is None else measurement_value(m, self.inner.objective, self.stat)

    def cost(self, wall_s: float | None = None) -> Cost:
        """The cost of everything recorded; ``wall_s`` defaults to the sum of the evaluations' wall times."""
        ms = self.measurements
        measured = measured_seconds(v for m in ms for v in m.values.get(self.metric, []))
        return Cost(wall_s=math.fsum(self.walls) if wall_s is None else wall_s, evaluations=len(ms),
                    failures=sum(not m.ok for m in ms), compile_s=math.fsum(m.compile_s for m in ms),
                    run_s=math.fsum(m.run_s for m in ms), overhead_s=math.fsum(m.overhead_s for m in ms),
                    measured_s=measured)


def measured_seconds(values_ms: Iterable[float]) -> float:
    """The sum of run times given in ms, in seconds.

    Each value is scaled before adding, so that huge times (a 1e308 ms sentinel) still add up to a
    finite number; ``inf`` only when even the sum in seconds overflows.

    >>> measured_seconds([1e308, 1e308, float("nan")]), measured_seconds([1e308] * 2000), measured_seconds([])
    (2e+305, inf, 0.0)
    """
    scaled = [float(v) / 1000.0 for v in values_ms if math.isfinite(float(v))]
    # the mean times the count: mean_of averages sums that overflow, and the product overflows to inf
    return mean_of(scaled) * len(scaled) if scaled else 0.0


@dataclass
class Phase:
    """One search at one input size: what it found and what it cost.

    ``best`` is ``None`` (and ``failure`` says why) when no configuration ran there.
    """

    size: int | float
    search: str
    best: dict[str, Any] | None
    value: float
    cost: Cost
    recorder: Recorder = field(repr=False)
    failure: str = ""


def run_search(search: SearchFn, name: str, evaluator: Evaluator, space: Space, size: float,
               size_param: str, budget: int | None, seed: int | None, metric: str, stat: str, *,
               tolerate: bool = False) -> Phase:
    """Run ``search`` on ``space`` (its size fixed to ``size``), timing it and keeping its measurements.

    When no configuration runs at this size, :class:`NothingRan` names the size; with
    ``tolerate`` the phase is returned instead, without a best.
    """
    recorder = Recorder(evaluator, metric, stat)
    clock = Stopwatch(evaluator)
    try:
        result = search(recorder, space, budget, seed)
    except NothingRan as exc:
        failure = f"at size {size} ({size_param}={size}): {exc.message}"
        if not tolerate:
            raise NothingRan(failure, where=exc.where, hint=exc.hint) from None
        return Phase(size=size, search=name, best=None, value=math.nan, cost=recorder.cost(clock.seconds()),
                     recorder=recorder, failure=failure)
    wall = clock.seconds()
    best = best_config(result, space.names)
    best[size_param] = size
    value = recorder.value(best)
    if value is None:  # the search reported a configuration it did not measure through our evaluator
        value = math.nan
    tuning = {k: v for k, v in best.items() if k != size_param}
    return Phase(size=size, search=name, best=tuning, value=value, cost=recorder.cost(wall), recorder=recorder)
