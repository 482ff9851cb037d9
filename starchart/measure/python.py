"""Measure with a Python callable: :class:`PythonEvaluator`."""

from __future__ import annotations

import importlib
import math
import numbers
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from starchart.errors import InputError
from starchart.measure.base import Evaluator, Measurement, check_metrics


class PythonEvaluator(Evaluator):
    """Evaluate configurations with ``fn(config) -> float | dict``.

    ``fn`` returns the objective as a number, a list of numbers (repeats), a dict
    ``{metric: number or list}``, or a full :class:`Measurement`. An exception,
    a non-numeric or a NaN result is recorded as a ``runtime`` failure with its
    reason; the run goes on.

    Parameters
    ----------
    fn:
        The callable. A module-level function can be rebuilt from the study's
        store by ``starchart resume``; a lambda or closure cannot.
    metrics:
        Metric names; default ``("time",)`` for numeric results, or the keys of
        the first dict returned.
    repeats:
        How many times ``fn`` is called per configuration (each call one repeat).
    minimize:
        Whether smaller objective values are better; default by the objective's name
        (:func:`starchart.direction.lower_is_better`: GFLOP/s maximised, time minimised),
        also when the objective is learnt from the first dict returned.

    Examples
    --------
    >>> ev = PythonEvaluator(lambda c: c["x"] ** 2)
    >>> ev.evaluate({"x": 3}).values
    {'time': [9.0]}
    >>> m = ev.evaluate({"x": "a"})
    >>> m.status, m.reason
    ('runtime', "TypeError: unsupported operand type(s) for ** or pow(): 'str' and 'int'")
    >>> PythonEvaluator(lambda c: {"time": [1, 2], "power": 80}).evaluate({}).values
    {'time': [1.0, 2.0], 'power': [80.0]}
    >>> rate = PythonEvaluator(lambda c: {"GFLOP/s": 120.0, "time": 2.5})
    >>> _ = rate.evaluate({}); rate.objective, rate.minimize
    ('GFLOP/s', False)
    """

    kind = "python"

    def __init__(self, fn: Callable[[dict[str, Any]], Any], *, metrics: str | Sequence[str] | None = None,
                 repeats: int = 1, minimize: bool | None = None):
        if not callable(fn):
            raise InputError(f"PythonEvaluator needs a callable, got {type(fn).__name__}",
                             hint="pass a function taking a configuration dict")
        if int(repeats) < 1:
            raise InputError(f"repeats must be at least 1, got {repeats}", where="PythonEvaluator")
        self.fn = fn
        self._named = metrics is not None
        self.metrics = check_metrics(metrics, "PythonEvaluator") if metrics is not None else ("time",)
        self._minimize = minimize  # as given: None follows the objective, also one learnt later
        self.minimize = self._direction(minimize)
        self.repeats = int(repeats)

    def _measure(self, config: dict[str, Any]) -> Measurement:
        values: dict[str, list[float]] = {}
        run_s = 0.0
        for _ in range(self.repeats):
            start = time.perf_counter()
            result = self.fn(dict(config))
            run_s += time.perf_counter() - start
            if isinstance(result, Measurement):
                result.run_s = result.run_s or run_s
                return result
            for metric, got in self._as_values(result).items():
                values.setdefault(metric, []).extend(got)
        bad = [m for m, v in values.items() if any(math.isnan(x) for x in v)]
        if bad:
            return Measurement.failure(config, "runtime", f"the function returned NaN for {bad}", run_s=run_s)
        return Measurement(config, values=values, run_s=run_s)

    def _as_values(self, result: Any) -> dict[str, list[float]]:
        if isinstance(result, Mapping):
            values = {str(k): _numbers(v, str(k)) for k, v in result.items()}
            if not self._named:  # learn the metric names from the first dict, and the objective's direction
                self.metrics = tuple(values)
                self.minimize = self._direction(self._minimize)
                self._named = True
            return values
        return {self.metrics[0]: _numbers(result, self.metrics[0])}

    def describe(self) -> dict[str, Any]:
        module = getattr(self.fn, "__module__", None)
        name = getattr(self.fn, "__qualname__", type(self.fn).__name__)
        return {**super().describe(), "function": f"{module}:{name}", "repeats": self.repeats}

    @classmethod
    def from_description(cls, data: Mapping[str, Any]) -> PythonEvaluator:
        """Rebuild from :meth:`describe`, importing a module-level function.

        >>> PythonEvaluator.from_description({"function": "math:sqrt"}).evaluate({}).status
        'runtime'
        """
        target = str(data.get("function", ""))
        module_name, _, name = target.partition(":")
        hint = "call starchart.run(...) or starchart.search(...) from Python again, passing the evaluator"
        if not module_name or "<" in name or not name:
            raise InputError(f"the function {target!r} cannot be imported again", hint=hint)
        try:
            fn: Any = importlib.import_module(module_name)
            for part in name.split("."):
                fn = getattr(fn, part)
        except (ImportError, AttributeError) as exc:
            raise InputError(f"cannot import {target!r}: {exc}", hint=hint) from None
        return cls(fn, metrics=data.get("metrics"), repeats=int(data.get("repeats", 1)),
                   minimize=bool(data.get("minimize", True)))


def _numbers(value: Any, metric: str) -> list[float]:
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, numbers.Real):
            raise TypeError(f"metric {metric!r}: expected a number, got {item!r}")
        out.append(float(item))
    if not out:
        raise ValueError(f"metric {metric!r}: empty list of values")
    return out
