"""Keeping an MSP study's measurements: each one stored as it arrives, none made twice.

An MSP study measures configurations of a tuning space at several input sizes. The
size is an ordinary parameter of the configuration (``{"B": 16, "n": 4096}``), so one
:class:`~starchart.store.Store` holds the whole study, and ``starchart tree msp.db``,
``starchart inputs msp.db --input n`` or ``starchart.load("msp.db")`` read it like any other.
The store records

- ``space``: the tuning space, its size parameter listing every size measured into it
  (a study rerun with more sizes extends that list; any other change of the space is refused);
- ``evaluator``: refused when another program, metric or option set measures into the store;
- ``sessions``: the environment of each run;
- ``msp``: the settings of the latest :func:`~starchart.msp.tune_at_msp` (and, under
  ``earlier``, any different ones an earlier run used).

Resuming is replay: :class:`StoredEvaluator` answers the *i*-th evaluation of a
configuration with the *i*-th stored measurement of it when there is one, and measures
(and stores, committed before it returns) otherwise. A rerun of the same study makes the
same evaluations in the same order (the searches are seeded), so it measures exactly what
the interrupted run had not; a run with other settings reuses every stored measurement of
the configurations it asks for.

Examples
--------
>>> import os, tempfile
>>> from starchart.measure import PythonEvaluator
>>> from starchart.store import Store
>>> calls = []
>>> ev = PythonEvaluator(lambda c: calls.append(c) or 1.0)
>>> path = os.path.join(tempfile.mkdtemp(), "msp.db")
>>> with msp_study(path, ev) as stored:
...     _ = stored.evaluate({"B": 4, "n": 16})
>>> with msp_study(path, ev) as stored:       # the same evaluation again: replayed, not measured
...     again = stored.evaluate({"B": 4, "n": 16})
>>> len(calls), again.values, stored.replayed
(1, {'time': [1.0]}, 1)
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starchart.configs import config_key
from starchart.errors import InputError
from starchart.measure.base import Evaluator, Measurement
from starchart.space import Space

__all__ = ["SETTINGS_KEY", "Stopwatch", "StoredEvaluator", "msp_study", "replayed_seconds", "space_with_sizes"]

#: The study-level key under which tune_at_msp records its settings.
SETTINGS_KEY = "msp"


class StoredEvaluator(Evaluator):
    """An evaluator that replays what ``store`` holds and stores everything it measures.

    The *i*-th call for a configuration returns the *i*-th stored measurement of that
    configuration, if any (a curve's repeats and a confirmation's rounds measure one
    configuration several times, so each call must get its own measurement); otherwise
    ``inner`` measures it and the result is committed to ``store`` before it is returned.

    Attributes
    ----------
    replayed, measured:
        How many evaluations were answered from the store, and how many were made.
    replayed_s:
        The wall seconds the replayed measurements took when they were made (counted by
        :class:`Stopwatch`, so a resumed study reports the costs of an uninterrupted one).
    """

    def __init__(self, inner: Evaluator, store: Any):
        self.inner = inner
        self.store = store
        self.kind = inner.kind
        self.replayed = 0
        self.measured = 0
        self.replayed_s = 0.0
        self._stored: dict[str, list[Measurement]] = defaultdict(list)
        for m in store.measurements():
            self._stored[config_key(m.config)].append(m)
        self._asked: dict[str, int] = defaultdict(int)

    # the inner evaluator may learn its metrics (or have its direction set) after this wrapper is made
    @property  # type: ignore[override]
    def metrics(self) -> tuple[str, ...]:
        return self.inner.metrics

    @property  # type: ignore[override]
    def minimize(self) -> bool:
        return self.inner.minimize

    def prepare(self, space: Any) -> None:
        self.inner.prepare(space)

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def evaluate(self, config: Mapping[str, Any]) -> Measurement:
        key = config_key(config)
        index = self._asked[key]
        self._asked[key] += 1
        if index < len(self._stored[key]):
            stored = self._stored[key][index]
            self.replayed += 1
            self.replayed_s += wall_seconds(stored)
            return stored
        start = time.perf_counter()
        measurement = self.inner.evaluate(config)
        # kept with the result, so that a resumed study can count what this evaluation cost
        measurement.extra["wall_s"] = time.perf_counter() - start
        self.store.add(measurement)
        self._stored[key].append(measurement)
        self.measured += 1
        return measurement

    def _measure(self, config: dict[str, Any]) -> Measurement:  # pragma: no cover - evaluate() is overridden
        raise NotImplementedError


def wall_seconds(measurement: Measurement) -> float:
    """The wall seconds an evaluation took: as recorded when stored, else its compile + run + overhead times."""
    recorded = measurement.extra.get("wall_s")
    if isinstance(recorded, (int, float)) and math.isfinite(recorded) and recorded >= 0:
        return float(recorded)
    return float(measurement.compile_s + measurement.run_s + measurement.overhead_s)


def replayed_seconds(evaluator: Any) -> float:
    """The :attr:`StoredEvaluator.replayed_s` of ``evaluator`` or of one it wraps (``.inner``); 0 without one."""
    seen = 0
    while evaluator is not None and seen < 10:  # a few wrappers at most (Recorder → StoredEvaluator)
        if isinstance(evaluator, StoredEvaluator):
            return evaluator.replayed_s
        evaluator, seen = getattr(evaluator, "inner", None), seen + 1
    return 0.0


class Stopwatch:
    """Wall seconds since it was started, each replayed measurement counted as the time it took when made.

    >>> from starchart.measure import PythonEvaluator
    >>> Stopwatch(PythonEvaluator(lambda c: 1.0)).seconds() >= 0
    True
    """

    def __init__(self, evaluator: Any):
        self._evaluator = evaluator
        self._start = time.perf_counter()
        self._replayed = replayed_seconds(evaluator)

    def seconds(self) -> float:
        return time.perf_counter() - self._start + replayed_seconds(self._evaluator) - self._replayed


def space_with_sizes(space: Space, size_param: str, sizes: Sequence[int | float]) -> Space:
    """``space`` with the input-size parameter taking the values ``sizes`` (added if the space lacks it).

    >>> space_with_sizes(Space({"TILE": [4, 8], "n": [1]}, "TILE <= n"), "n", [8, 64]).tune_params
    {'TILE': [4, 8], 'n': [8, 64]}
    """
    params = {name: values for name, values in space.tune_params.items() if name != size_param}
    params[size_param] = list(sizes)
    return Space(params, list(space.restrictions))


# ---------------------------------------------------------------------- opening a study
@contextmanager
def msp_study(store: Any, evaluator: Evaluator, *, space: Space | None = None, size_param: str = "n",
              sizes: Sequence[int | float] = (), settings: Mapping[str, Any] | None = None) -> Iterator[Evaluator]:
    """``evaluator`` replaying and keeping its measurements in ``store`` (a Store, a path, or ``None``: no store).

    With ``space``, the store records it (the size parameter listing ``sizes``, and every
    size stored before) and the evaluator is checked against it; a store of another space
    or evaluator is refused before anything is recorded or measured. ``settings`` are
    recorded under :data:`SETTINGS_KEY`. A store opened from a path is closed on exit.
    """
    if store is None:
        yield evaluator
        return
    db, owns = open_store(store)
    try:
        evaluator = _check_study(db, evaluator, space, size_param, sizes)
        if settings is not None:
            db.put(SETTINGS_KEY, _with_earlier(dict(settings), db.get(SETTINGS_KEY)))
        db.add_session(_session(evaluator))
        yield StoredEvaluator(evaluator, db)
    finally:
        if owns:
            db.close()


def _check_study(db: Any, evaluator: Evaluator, space: Space | None, size_param: str,
                 sizes: Sequence[int | float]) -> Evaluator:
    """Record the space and evaluator in ``db``, or refuse those of another study (naming the way out)."""
    from starchart.runner import study_evaluator, study_space

    try:
        checked = None if space is None else study_space(db, _extend_stored_sizes(db, space, size_param, sizes))
        return study_evaluator(db, evaluator, checked)
    except InputError as exc:
        if "holds" in exc.message:  # the runner's hint offers `starchart resume`, which does not continue an MSP study
            exc.hint = ("measure into another store (--store new.db, or store=), or rerun the command that made "
                        "this one as it was")
            exc.args = (str(exc),)
        raise


def open_store(store: Any) -> tuple[Any, bool]:
    """``(Store, whether it was opened here)`` for a :class:`~starchart.store.Store` or a path."""
    from starchart.store import Store

    if isinstance(store, Store):
        return store, False
    if isinstance(store, (str, Path)):
        return Store.open(store), True
    raise InputError(f"store must be a Store or a path, got {type(store).__name__}", where="store",
                     hint="e.g. store='msp.db'")


def _extend_stored_sizes(db: Any, space: Space, size_param: str, sizes: Sequence[int | float]) -> Space:
    """The space to record: with the sizes of this run and, when the store holds this same space at
    other sizes, those too (the stored description is widened first, so the check that follows passes)."""
    wanted = space_with_sizes(space, size_param, sizes)
    stored = db.get("space")
    before = (stored or {}).get("parameters", {}).get(size_param)
    if not stored or not isinstance(before, list):
        return wanted
    others = {k: v for k, v in wanted.tune_params.items() if k != size_param}
    if _plain({k: v for k, v in stored["parameters"].items() if k != size_param}) != _plain(others):
        return wanted  # another space: study_space refuses it
    merged = space_with_sizes(space, size_param, sorted(set(before) | set(sizes)))
    if _plain(before) != _plain(merged.tune_params[size_param]):
        db.put("space", {**stored, "parameters": _plain(merged.tune_params)})
    return merged


def _plain(value: Any) -> Any:
    """``value`` as it reads back from the store's JSON (tuples as lists, numpy numbers as numbers)."""
    return json.loads(json.dumps(value, default=str))


def _with_earlier(settings: dict[str, Any], before: Mapping[str, Any] | None) -> dict[str, Any]:
    """These settings, with the different ones earlier runs recorded kept under ``earlier``."""
    if not before:
        return settings
    earlier = list(before.get("earlier", []))
    previous = {k: v for k, v in before.items() if k != "earlier"}
    if _plain(previous) != _plain(settings) and previous not in earlier:
        earlier.append(previous)
    return {**settings, "earlier": earlier} if earlier else settings


def _session(evaluator: Evaluator) -> dict[str, Any]:
    """What a store records of one run: when, with which evaluator and command line, on what machine."""
    from starchart.measure.environment import environment

    packages = ["cupy", "nvidia-ml-py"] if evaluator.kind == "cuda" else []
    return {"started": time.time(), "evaluator": evaluator.describe(), "workers": 1, "ray": None,
            "argv": list(sys.argv), "msp": True, "environment": environment(extra_packages=packages)}
