"""Keeping an MSP study's measurements: each one stored as it arrives, none made twice.

An MSP study measures configurations of a tuning space at several input sizes. The
size is an ordinary parameter of the configuration (``{"B": 16, "n": 4096}``), so one
:class:`~starchart.study.store.Store` holds the whole study, and ``starchart tree msp.db``,
``starchart inputs msp.db --input n`` or ``starchart.load("msp.db")`` read it like any other.
The store records

- ``space``: the tuning space, its size parameter listing every size measured into it
  (a study rerun with more sizes extends that list; any other change of the space is refused);
- ``evaluator``: refused when another program, metric or option set measures into the store;
- ``sessions``: the environment, command line and working folder of each run (``starchart resume``
  names the command to run again from them);
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
>>> from starchart.study.store import Store
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

import os
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from starchart._util.configs import config_key
from starchart.errors import arg
from starchart.measure.base import Evaluator, Measurement
from starchart.space import Space
from starchart.study.runner import session_record, study_evaluator, study_space
from starchart.study.store import StoreLike, as_stored, opened_store, with_earlier

__all__ = ["SETTINGS_KEY", "Stopwatch", "StoredEvaluator", "Wrapper", "msp_study", "space_with_sizes"]

#: The study-level key under which tune_at_msp records its settings.
SETTINGS_KEY = "msp"

#: How a refused MSP store says to go on: ``starchart resume`` (the runner's hint) does not continue an MSP study.
CONTINUE_ELSEWHERE = (f"measure into another store ({arg('store', repr('new.db'))}), or rerun the command that "
                      "made this one as it was")


class Wrapper(Evaluator):
    """An evaluator handing every call to ``inner``, for wrappers that only add to :meth:`evaluate`.

    Its metrics and direction are read from ``inner`` when asked, as ``inner`` may learn its metrics
    (or have its direction set) after the wrapper is made.
    """

    def __init__(self, inner: Evaluator):
        self.inner = inner
        # describes itself, and is scheduled and recorded, as what it wraps
        self.kind = inner.kind  # type: ignore[misc]
        self.needs_gpu = inner.needs_gpu  # type: ignore[misc]
        self.packages = inner.packages  # type: ignore[misc]

    @property  # type: ignore[override]
    def metrics(self) -> tuple[str, ...]:
        return self.inner.metrics

    @property  # type: ignore[override]
    def minimize(self) -> bool:
        return self.inner.minimize

    def prepare(self, space: Space) -> None:
        self.inner.prepare(space)

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def evaluate(self, config: Mapping[str, Any]) -> Measurement:
        return self.inner.evaluate(config)

    def _measure(self, config: dict[str, Any]) -> Measurement:  # pragma: no cover - evaluate() is overridden
        raise NotImplementedError


class StoredEvaluator(Wrapper):
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
        super().__init__(inner)
        self.store = store
        self.replayed = 0
        self.measured = 0
        self.replayed_s = 0.0
        self._stored: dict[str, list[Measurement]] = defaultdict(list)
        for m in store.measurements():
            self._stored[config_key(m.config)].append(m)
        self._asked: dict[str, int] = defaultdict(int)

    def evaluate(self, config: Mapping[str, Any]) -> Measurement:
        key = config_key(config)
        index = self._asked[key]
        self._asked[key] += 1
        if index < len(self._stored[key]):
            stored = self._stored[key][index]
            self.replayed += 1
            self.replayed_s += wall_seconds(stored)
            return stored
        measurement = self.inner.evaluate(config)
        self.store.add(measurement)
        self._stored[key].append(measurement)
        self.measured += 1
        return measurement


def wall_seconds(measurement: Measurement) -> float:
    """The wall seconds an evaluation took: its compile + run + overhead times
    (:meth:`Evaluator.evaluate` sets the overhead to the rest of the call's wall time).

    >>> wall_seconds(Measurement({"x": 1}, compile_s=1.0, run_s=0.5, overhead_s=0.25))
    1.75
    """
    return float(measurement.compile_s + measurement.run_s + measurement.overhead_s)


class Stopwatch:
    """Wall seconds since it was started, each replayed measurement counted as the time it took when made.

    ``evaluator`` is the one the measurements go through: a :class:`StoredEvaluator` (its replays
    are counted) or any other evaluator, or ``None`` (nothing is replayed: plain wall time).

    >>> from starchart.measure import PythonEvaluator
    >>> Stopwatch(PythonEvaluator(lambda c: 1.0)).seconds() >= 0
    True
    """

    def __init__(self, evaluator: Evaluator | None):
        self._store = evaluator if isinstance(evaluator, StoredEvaluator) else None
        self._start = time.perf_counter()
        self._replayed = self._replayed_s()

    def _replayed_s(self) -> float:
        return 0.0 if self._store is None else self._store.replayed_s

    def seconds(self) -> float:
        return time.perf_counter() - self._start + self._replayed_s() - self._replayed


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
def msp_study(store: StoreLike, evaluator: Evaluator, *, space: Space | None = None, size_param: str = "n",
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
    with opened_store(store, example="msp.db") as db:
        evaluator = _check_study(db, evaluator, space, size_param, sizes)
        if settings is not None:
            db.put(SETTINGS_KEY, with_earlier(settings, db.get(SETTINGS_KEY)))
        # the working folder too: `starchart resume` tells the command to run again, and its paths are relative to it
        db.add_session(session_record(evaluator, msp=True, cwd=os.getcwd()))
        yield StoredEvaluator(evaluator, db)


def _check_study(db: Any, evaluator: Evaluator, space: Space | None, size_param: str,
                 sizes: Sequence[int | float]) -> Evaluator:
    """Record the space and evaluator in ``db``, or refuse those of another study (naming the way out).

    The same space at more sizes widens the stored space, but only once the evaluator is accepted:
    a refused store is left as it was.
    """
    if space is None:
        return study_evaluator(db, evaluator, continue_with=CONTINUE_ELSEWHERE)
    merged, widened = _with_stored_sizes(db.get("space"), space, size_param, sizes)
    if widened is None:  # a new store, the stored sizes, or another space (refused here)
        checked = study_space(db, merged, continue_with=CONTINUE_ELSEWHERE)
    else:
        checked = merged  # the stored space at more sizes: recorded below
    evaluator = study_evaluator(db, evaluator, checked, continue_with=CONTINUE_ELSEWHERE)
    if widened is not None:
        db.put("space", widened)
    return evaluator



def _with_stored_sizes(stored: Mapping[str, Any] | None, space: Space, size_param: str,
                       sizes: Sequence[int | float]) -> tuple[Space, dict[str, Any] | None]:
    """The space of this study (with the sizes of this run and, when the store holds this same space
    at other sizes, those too), and the widened description to store when it lists sizes the stored
    one lacks (``None``: nothing to widen). Nothing is written here.

    >>> stored = {"parameters": {"B": [1, 4], "n": [16, 64]}, "restrictions": []}
    >>> space, widened = _with_stored_sizes(stored, Space({"B": [1, 4]}), "n", [64, 256])
    >>> space.tune_params["n"], widened["parameters"]
    ([16, 64, 256], {'B': [1, 4], 'n': [16, 64, 256]})
    >>> _with_stored_sizes(stored, Space({"B": [1, 4]}), "n", [16])[1] is None   # the stored sizes cover it
    True
    """
    wanted = space_with_sizes(space, size_param, sizes)
    before = (stored or {}).get("parameters", {}).get(size_param)
    if not stored or not isinstance(before, list):
        return wanted, None
    others = {k: v for k, v in wanted.tune_params.items() if k != size_param}
    if as_stored({k: v for k, v in stored["parameters"].items() if k != size_param}) != as_stored(others):
        return wanted, None  # another space: study_space refuses it
    merged = space_with_sizes(space, size_param, sorted(set(before) | set(sizes)))
    if as_stored(before) == as_stored(merged.tune_params[size_param]):
        return merged, None
    return merged, {**stored, "parameters": as_stored(merged.tune_params)}
