"""Measure with a Python callable: :class:`PythonEvaluator`."""

from __future__ import annotations

import importlib
import importlib.util
import math
import numbers
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from starchart._util.validation import Interval, check
from starchart.errors import InputError, arg
from starchart.measure.base import Evaluator, Measurement, check_metric_name, check_metrics, unknown_options
from starchart.measure.command import check_bool, check_timeout
from starchart.measure.deadline import CallTimedOut, call_with_timeout
from starchart.measure.process import MAX_REPEATS


class PythonEvaluator(Evaluator):
    """Evaluate configurations with ``fn(config) -> float | dict``.

    ``fn`` returns the objective as a number, a list of numbers (repeats), a dict
    ``{metric: number or list}``, or a full :class:`Measurement`. An exception,
    a non-numeric or a NaN result is recorded as a ``runtime`` failure with its
    reason; the run goes on, also after ``sys.exit()`` in the function.

    The function runs in this process (on its thread, or a Ray worker's), not in a
    child: what ends the process ends the run. ``os._exit()``, a crash in native
    code (a segfault) or running out of memory kill the whole run, not one
    configuration, and only the results stored before it are kept (``starchart
    resume`` continues from them). A function that may do so is better measured in
    a process of its own: a :class:`~starchart.measure.CommandEvaluator` running a
    script records each of these as a failure of its configuration.

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
    timeout:
        Seconds each call may run before it is interrupted and the configuration
        recorded as a ``"timeout"`` failure (:mod:`starchart.measure.deadline`:
        sleeps and Python code are interrupted at once, a long call into C when it
        returns); ``None``: no limit.
    minimize:
        Whether smaller objective values are better; default by the objective's name
        (:func:`starchart._util.direction.lower_is_better`: GFLOP/s maximised, time minimised),
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
    >>> import time
    >>> m = PythonEvaluator(lambda c: time.sleep(5), timeout=0.1).evaluate({})
    >>> m.status, m.reason
    ('timeout', 'the function ran past 0.1 s (call 1 of 1)')
    >>> rate = PythonEvaluator(lambda c: {"GFLOP/s": 120.0, "time": 2.5})
    >>> _ = rate.evaluate({}); rate.objective, rate.minimize
    ('GFLOP/s', False)
    """

    kind = "python"
    #: ``path``: the folder of the function's module (an evaluator file's own by default)
    path_options = ("source", "cwd", "cache_dir", "path")
    path_defaults = {"path": "."}

    def __init__(self, fn: Callable[[dict[str, Any]], Any], *, metrics: str | Sequence[str] | None = None,
                 repeats: int = 1, minimize: bool | None = None, timeout: float | None = None):
        if not callable(fn):
            raise InputError(f"PythonEvaluator needs a callable, got {type(fn).__name__}",
                             hint="pass a function taking a configuration dict")
        repeats = check("repeats", repeats, Interval(int, 1, MAX_REPEATS), where="PythonEvaluator, repeats",
                        hint=f"e.g. {arg('repeats', '3')}")
        self.fn = fn
        self.path: str | None = None  # the folder its module was imported from (set by from_description)
        self._named = metrics is not None
        self._given_metrics = metrics is not None  # else learnt from the first dict returned, in every session
        self.metrics = check_metrics(metrics, "PythonEvaluator") if metrics is not None else ("time",)
        self._minimize = minimize  # as given: None follows the objective, also one learnt later
        self.repeats = int(repeats)
        self.timeout = check_timeout(timeout, "timeout", "PythonEvaluator")

    @property  # type: ignore[override]
    def minimize(self) -> bool:
        """Whether smaller objective values are better: as given (or set), else by the objective's name."""
        return self._direction(self._minimize)

    @minimize.setter
    def minimize(self, value: bool | None) -> None:
        self._minimize = None if value is None else bool(value)

    def _measure(self, config: dict[str, Any]) -> Measurement:
        values: dict[str, list[float]] = {}
        run_s = 0.0
        for call in range(self.repeats):
            start = time.perf_counter()
            try:
                result = call_with_timeout(self.fn, dict(config), self.timeout)
            except CallTimedOut as exc:
                return Measurement.failure(config, "timeout", f"{exc} (call {call + 1} of {self.repeats})",
                                           run_s=run_s + time.perf_counter() - start)
            run_s += time.perf_counter() - start
            if isinstance(result, Measurement):
                result.run_s = result.run_s or run_s
                return result
            for metric, got in self._as_values(result).items():
                values.setdefault(metric, []).extend(got)
        if self.objective not in values:
            return Measurement.failure(config, "runtime", f"the function returned no value of the objective "
                                       f"{self.objective!r} (it gave {', '.join(map(repr, values)) or 'nothing'})",
                                       run_s=run_s)
        bad = [m for m, v in values.items() if any(math.isnan(x) for x in v)]
        if bad:
            return Measurement.failure(config, "runtime", f"the function returned NaN for {bad}", run_s=run_s)
        return Measurement(config, values=values, run_s=run_s)

    def _as_values(self, result: Any) -> dict[str, list[float]]:
        if isinstance(result, Mapping):
            if not result:
                raise ValueError("the function returned an empty dict; return {metric: value}, e.g. {'time': 1.5}")
            values = {check_metric_name(str(k), "the function's result"): _numbers(v, str(k))
                      for k, v in result.items()}
            if not self._named:  # learn the metric names from the first dict (and so the objective's direction)
                self.metrics = tuple(values)
                self._named = True
            return values
        return {self.metrics[0]: _numbers(result, self.metrics[0])}

    def describe(self) -> dict[str, Any]:
        module = getattr(self.fn, "__module__", None)
        name = getattr(self.fn, "__qualname__", type(self.fn).__name__)
        description = {**super().describe(), "function": f"{module}:{name}", "repeats": self.repeats}
        if not self._given_metrics:
            # Learnt from the first dict the function returns: described as before that (a store compares
            # the description of each session with the one it recorded, so it must not change on learning).
            # A store reads the learnt names from the measurements themselves (Store.to_dataset).
            description["metrics"] = ["time"]
            description["learn_metrics"] = True
            if self._minimize is None:  # the direction follows the learnt objective's name
                description.pop("minimize", None)
            else:
                description["minimize"] = self._minimize
        if self.timeout is not None:  # only when set: stores made before timeouts existed compare equal
            description["timeout"] = self.timeout
        if self.path is not None:
            description["path"] = self.path
        return description

    @classmethod
    def from_description(cls, data: Mapping[str, Any]) -> PythonEvaluator:
        """Rebuild from :meth:`describe` or an evaluator file, importing a module-level function.

        ``function`` is ``"module:name"`` (or ``"module.name"``); the module is imported as usual,
        else from the folder ``path`` (an evaluator file's own folder), else from the current folder.

        >>> PythonEvaluator.from_description({"function": "math:sqrt"}).evaluate({}).status
        'runtime'
        >>> PythonEvaluator.from_description({"function": "math:sqrt", "repeat": 2})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        starchart.errors.UnknownOptionsError: PythonEvaluator description: unknown option(s) repeat (hint: did you mean ...
        """
        where = "PythonEvaluator description"
        accepted = ("kind", "function", "metrics", "minimize", "repeats", "path", "learn_metrics", "timeout")
        unknown = sorted(str(k) for k in data if k not in accepted)
        if unknown:
            raise unknown_options(unknown, accepted, "python", where)
        target = data.get("function")
        importable = _IMPORTABLE
        if not isinstance(target, str) or not target.strip():
            raise InputError("a python evaluator needs the function to call" if target is None
                             else f"function must be a 'module:name' string, got {target!r}", where=where,
                             hint=f"e.g. function: mybench:measure ({importable})")
        target = target.strip()
        module_name, sep, name = target.partition(":")
        if not sep and "." in target:  # module.name
            module_name, _, name = target.rpartition(".")
        # a lambda, a closure, or a function of the script that ran (module __main__): only that script has it
        again = "<" in name or module_name == "__main__"
        if not module_name or not name or again:
            hint = ("run the script that started the study again (it resumes), or call starchart.run(...) or "
                    "starchart.search(...) from Python passing the evaluator" if again else importable)
            raise InputError(f"the function {target!r} cannot be imported" + (" again" if again else ""),
                             where=where, hint=hint)
        path = data.get("path")
        if path is not None and not isinstance(path, str):
            raise InputError(f"path must be a folder, got {path!r}", where=where, hint="e.g. path: .")
        fn: Any = _import(module_name, path)
        try:
            for part in name.split("."):
                fn = getattr(fn, part)
        except AttributeError:
            raise InputError(f"module {module_name!r} ({getattr(fn, '__file__', '?')}) has no {name!r}",
                             where=where, hint=importable) from None
        if not callable(fn):
            raise InputError(f"{target!r} is not a function, it is a {type(fn).__name__}", where=where,
                             hint=importable)

        minimize = data.get("minimize")
        repeats = data.get("repeats", 1)
        repeats = check("repeats", repeats, Interval(int, 1, MAX_REPEATS), where=f"{where}, repeats", hint="e.g. repeats: 3")
        metrics = data.get("metrics") or None
        if data.get("learn_metrics") or metrics in (["time"], ("time",), "time"):
            metrics = None  # the default, or described before its objective was learnt (see describe): learn it
        evaluator = cls(fn, metrics=metrics, repeats=int(repeats),
                        minimize=None if minimize is None else check_bool(minimize, "minimize", where),
                        timeout=check_timeout(data.get("timeout"), "timeout", where))
        evaluator.path = path
        return evaluator


_IMPORTABLE = ("name a module-level function as function: module:name, its module importable (beside the "
               "evaluator file, in the current folder, or installed)")


def _import(module_name: str, path: str | None) -> Any:
    """Import ``module_name``; if it is not found, from ``path`` and then from the current folder."""
    hint = _IMPORTABLE
    where = "PythonEvaluator description"
    top = module_name.split(".")[0]
    folders = [os.fspath(f) for f in (path, os.getcwd()) if f]
    for folder in [None, *folders]:
        added = folder is not None and folder not in sys.path
        if added:
            sys.path.insert(0, folder)  # kept once it worked: the module may import its neighbours later
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name not in (top, module_name):  # the module itself imports something missing
                raise InputError(f"importing {module_name!r}{_file_of(module_name)} failed: {exc}", where=where,
                                 hint="install what it needs") from None
        except SystemExit as exc:  # sys.exit() at import (a script's guard): it ended the command without a word
            raise InputError(f"importing {module_name!r}{_file_of(module_name)} raised SystemExit({exc.code!r})",
                             where=where, hint="a module measured from must not exit when imported: move the "
                                               "script's code under if __name__ == '__main__':") from None
        except Exception as exc:  # noqa: BLE001 - the user's module failed while importing
            raise InputError(f"importing {module_name!r}{_file_of(module_name)} failed: {type(exc).__name__}: "
                             f"{exc}", where=where, hint="fix the module") from None
        if added:
            sys.path.remove(folder)
    looked = ", ".join(folders)
    raise InputError(f"cannot import {module_name!r}: no such module (also looked in {looked})", where=where,
                     hint=hint)


def _file_of(module_name: str) -> str:
    """`` (its file)`` of a module that failed while importing, for the error (empty if it cannot be found)."""
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):  # a parent package that fails, or a half-imported module
        return ""
    origin = getattr(spec, "origin", None)
    return f" ({origin})" if origin and origin not in ("built-in", "frozen") else ""


def _numbers(value: Any, metric: str) -> list[float]:
    if type(value).__module__ == "numpy" and getattr(value, "ndim", 0) == 1:  # an array of repeats
        value = value.tolist()
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, numbers.Real):
            raise TypeError(f"metric {metric!r}: expected a number, got {item!r}")
        out.append(float(item))
    if not out:
        raise ValueError(f"metric {metric!r}: empty list of values")
    return out
