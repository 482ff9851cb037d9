"""Tuning runs: sample → evaluate (serially, on local workers or on Ray) → store, with progress.

:func:`run` is the whole loop. It is resumable by construction: the sample is a
deterministic function of the space, the sample size and the seed (kept in the
store), and configurations already in the store are never measured again. A
run killed at any moment therefore resumes to exactly the planned set, having
lost at most the configurations that were in flight. Several runs of one study
at once (from several shells or hosts) claim each configuration in the store
before measuring it, so each is measured by one of them.
"""

from __future__ import annotations

import math
import os
import signal
import sqlite3
import sys
import threading
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich.markup import (
    escape,  # the bar reads its fields as markup: a metric "t[/ms]" would crash it
)

from starchart._util.configs import config_key, frame_configs, frame_keys, plain_config
from starchart._util.direction import lower_is_better
from starchart._util.progress import stderr_progress
from starchart._util.text import shorten
from starchart._util.validation import Instances, Interval, check, check_seed
from starchart.dataset import BOOKKEEPING_COLUMNS, REPEATS_PREFIX, Dataset
from starchart.errors import InputError, SpaceError, arg
from starchart.io.load import warn_if_negative  # load()'s own check, in its words
from starchart.measure import Evaluator, Measurement, evaluator_from_dict
from starchart.measure.environment import environment
from starchart.measure.process import kill_running
from starchart.space import Space
from starchart.study.distributed import ray_evaluate, require_ray
from starchart.study.kinds import kind_named, study_kind
from starchart.study.records import PlanRecord
from starchart.study.store import Claims, Store, as_stored, opened_store


@dataclass
class RunPlan:
    """What a run will measure: ``todo`` configurations, ``done`` already stored."""

    todo: list[dict[str, Any]]
    done: int
    total: int


def run(space: Space | None = None, evaluator: Evaluator | None = None, samples: int | None = None,
        store: Store | str | Path | None = None, seed: int | None = None, *,
        configs: Iterable[Mapping[str, Any]] | None = None, workers: int = 1, ray: str | bool | None = None,
        progress: bool = True) -> Dataset:
    """Measure ``samples`` uniformly drawn valid configurations of ``space`` and store them.

    Calling it again on the same store resumes: nothing stored is measured again.
    A failed configuration counts as a sample (it is stored with its reason), as
    it costs a measurement on real hardware.

    Parameters
    ----------
    space:
        The tuning space; default: the one stored in ``store`` (resuming).
    evaluator:
        Measures one configuration; default: rebuilt from the store's description.
    samples:
        How many distinct configurations the study should hold; default: the stored plan.
    store:
        A :class:`Store`, a path (created if missing) or ``None`` (in memory).
    seed:
        Seed of the uniform sample; default: a fresh one, kept in the store so a
        resumed run draws the same sample.
    configs:
        Measure these configurations instead of a uniform sample (e.g. a strategy's
        proposals); already stored ones are skipped. Each must be a configuration of
        ``space`` (the first that is not is refused, saying why); not with ``samples``.
    workers:
        Evaluations at a time (a whole number ≥ 1). Local workers are threads (evaluators
        spend their time in subprocesses or native code); with ``ray`` one actor per worker.
    ray:
        Run evaluations on Ray: ``True``/``"local"`` starts a local instance,
        ``"auto"`` or ``"ray://host:10001"`` joins a cluster. The driver alone
        writes the store.
    progress:
        Show a live progress bar (done/total, failures, best so far, ETA).

    Returns
    -------
    Dataset
        Everything the study holds (not only this call's measurements). A negative duration, energy or
        power of a valid configuration (an error code read as a value) is warned of, as
        :func:`starchart.load` does (:class:`~starchart.io.load.NothingToModelWarning`).

    Examples
    --------
    >>> from starchart.measure import PythonEvaluator
    >>> space = Space({"x": range(10), "y": [1, 2, 4]}, "x * y < 20")
    >>> ds = run(space, PythonEvaluator(lambda c: (c["x"] - 3) ** 2 + c["y"]), samples=12, seed=1,
    ...          progress=False)
    >>> len(ds), bool(ds.frame["status"].eq("ok").all())
    (12, True)
    """
    workers = check("workers", workers, WORKERS, hint=f"evaluations at a time, e.g. {arg('workers', '4')}")
    if samples is not None and configs is not None:  # the configurations are the plan: samples was ignored
        raise InputError(f"{arg('samples', str(samples))} and {arg('configs', '')} cannot be given together: the "
                         "configurations are what is measured", where="configs",
                         hint=f"leave out {arg('samples')} to measure the configurations, or {arg('configs')} "
                              "to measure a uniform sample")
    if ray:  # before the store records a session that cannot run

        require_ray()
    if isinstance(space, Space):  # before the store records it
        check_parameter_names(space)
    if isinstance(space, Space) and isinstance(evaluator, Evaluator):
        check_metric_names(space, evaluator)
    with _sigterm_stops_programs():
        with opened_store(store) as db:
            space = study_space(db, space)
            evaluator = study_evaluator(db, evaluator, space)
            plan = plan_run(db, space, samples=samples, seed=seed, configs=configs)
            record = session_record(evaluator, workers=workers, ray=ray)
            db.add_session(record)
            bar = Progress(plan, evaluator, db, enabled=progress)
            with db.claims() as claims:  # on any exit, after the workers stopped: what this run left is free
                todo = _Unstored(_session_order(plan.todo, _session_index(db, record)), bar,
                                 claims if db.path is not None else None)
                results = evaluate_all(evaluator, todo, workers=workers, ray=ray)
                try:
                    with bar:
                        for measurement in results:
                            _store(db, measurement)
                            bar.advance(measurement)
                finally:  # stopped by an error or Ctrl-C outside the evaluation: no worker goes on measuring unseen
                    close = getattr(results, "close", None)
                    if close is not None:
                        close()
            dataset = db.to_dataset()
            # in load()'s words: a run reported "best time: -5 ms" of a program's error code without a word
            warn_if_negative(dataset, db.path or Path("the store"))
            return dataset


def check_parameter_names(space: Space) -> None:
    """Refuse a parameter named like a column every dataset holds: the study could be measured, but
    not read back (two ``status`` columns), so say it before measuring, not after."""
    for name in space.names:
        if name in BOOKKEEPING_COLUMNS or name.startswith(REPEATS_PREFIX):
            raise InputError(f"parameter {name!r} has the name of a column every dataset holds "
                             f"({', '.join(BOOKKEEPING_COLUMNS)}, {REPEATS_PREFIX}…)", where=f"space, parameter {name!r}",
                             hint=f"rename the parameter, e.g. to {name + '_'!r}")


def check_metric_names(space: Space, evaluator: Evaluator, where: str = "evaluator") -> None:
    """Refuse a metric named like a parameter of ``space``: the study could be measured, but not read back
    (two ``x`` columns), so say it before measuring. Metrics a Python function's results will name are
    checked as they come (their names are not known yet). ``where``: where the evaluator came from."""
    if evaluator.describe().get("learn_metrics"):
        return
    clash = [name for name in evaluator.metrics if name in space.names]
    if clash:
        raise InputError(f"metric {clash[0]!r} is also a parameter of the space: the study could not be read "
                         "back", where=f"{where}, metric",
                         hint=f"name the metric otherwise (e.g. {clash[0]}_time), or rename the parameter")


def plan_run(store: Store, space: Space, *, samples: int | None = None, seed: int | None = None,
             configs: Iterable[Mapping[str, Any]] | None = None) -> RunPlan:
    """Decide what is left to measure, and record the plan in ``store``.

    With ``configs`` (or, given neither ``configs`` nor ``samples``, those of the stored
    plan): those not yet stored. Otherwise the first ``samples`` − stored configurations of
    the uniform sample ``space.sample(samples, seed)`` that are not stored yet (configurations
    stored by other means still count towards ``samples``); a ``seed`` other than the one the
    stored sample was drawn with is refused.
    """
    # under the write lock: of two runs started at once on one store, the second reads the plan (the fresh
    # seed) the first recorded, instead of drawing another
    with store.transaction():
        return _plan(store, space, samples=samples, seed=seed, configs=configs)


def _plan(store: Store, space: Space, *, samples: int | None, seed: int | None,
          configs: Iterable[Mapping[str, Any]] | None) -> RunPlan:
    done = store.keys()
    stored_plan = PlanRecord.read(store) or PlanRecord()
    if configs is None and samples is None and stored_plan.configs is not None:
        configs = stored_plan.configs  # resuming a run of given configurations
    if configs is not None:
        listed = [] if isinstance(configs, (str, bytes, Mapping)) or not isinstance(configs, Iterable) \
            else list(configs)
        if not listed and configs or not all(isinstance(c, Mapping) for c in listed):
            raise InputError("must be a list of configurations, each {parameter: value}", where="configs",
                             hint="e.g. [{'bx': 16, 'by': 2}, {'bx': 32, 'by': 1}]")
        wanted = [plain_config(c) for c in listed]
        _check_configs(wanted, space)
        todo, seen = [], set(done)
        for c in wanted:
            key = config_key(c)
            if key not in seen:
                seen.add(key)
                todo.append(c)
        PlanRecord(configs=wanted).write(store)  # so that an interrupted run resumes to the same set
        return RunPlan(todo, len(done), len(done) + len(todo))
    samples = stored_plan.samples if samples is None else samples
    if samples is None:
        raise InputError("how many configurations to measure is not known", where=str(store.path or "store"),
                         hint=f"pass {arg('samples', 'N')}")
    samples = check("samples", samples, Interval(int, 1, None), hint="how many configurations to measure")
    if seed is not None and stored_plan.seed not in (None, seed) and done:
        raise InputError(f"the store's sample was drawn with seed {stored_plan.seed}, not {seed}",
                         where=str(store.path or "store"),
                         hint="leave out --seed to continue that sample, or measure the new one into a new store")
    seed = stored_plan.seed if seed is None else check_seed(seed)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**32)
    need = samples - len(done)
    drawn = space.sample(samples, seed=int(seed)) if need > 0 else None
    planned = int(stored_plan.samples or 0)
    larger_plan = need <= 0 and planned > samples  # an interrupted study asked for less than it planned
    if need < 0 or larger_plan:  # a study never shrinks: say so, and keep the larger plan for a later resume
        kept = f"; its plan of {planned} stays" if larger_plan else ""
        warnings.warn(f"{store.path or 'the store'} already holds {len(done)} configurations, "
                      f"{'more than' if need < 0 else 'as many as'} the {samples} asked for: nothing to "
                      f"measure{kept}", stacklevel=4)
    if not larger_plan:
        PlanRecord(samples=samples, seed=int(seed)).write(store)  # only a plan that can be drawn
    if need <= 0:
        return RunPlan([], len(done), len(done))
    # keys of the whole sample at once: a resume of a 200,000-configuration study keys every one of them
    unstored = [i for i, key in enumerate(frame_keys(drawn, sorted(space.names))) if key not in done][:need]
    todo = list(frame_configs(drawn.iloc[unstored], space.names))
    return RunPlan(todo, len(done), len(done) + len(todo))


def _check_configs(configs: list[dict[str, Any]], space: Space) -> None:
    """Refuse no configurations, and name the first one outside ``space`` and why (a parameter missing or
    unknown, a value the parameter does not take, a restriction broken): measured, it was stored as part
    of a study of that space."""
    if not configs:
        raise InputError("no configuration to measure", where="configs",
                         hint="give at least one, e.g. [{'bx': 16, 'by': 2}]")
    names = set(space.names)
    for config in configs:
        if not names <= set(config):
            raise InputError(f"configuration {config} lacks parameter(s) {sorted(names - set(config))}",
                             where="configs", hint=f"give a value of each of: {', '.join(space.names)}")
        if not set(config) <= names:
            raise InputError(f"configuration {config} has parameter(s) {sorted(set(config) - names)} the space "
                             "does not have", where="configs", hint=f"the space's parameters are {list(space.names)}")
    inside = space.contains(configs)
    if inside.all():
        return
    config = configs[int(inside.argmin())]
    for parameter in space.parameters:
        value = config[parameter.name]
        if parameter.index.get_indexer(pd.Index([value], tupleize_cols=False))[0] < 0:  # as contains() looks
            raise InputError(f"configuration {config}: {parameter.name} = {value!r} is not one of "
                             "its values", where="configs",
                             hint=f"{parameter.name} takes {shorten(', '.join(map(str, parameter.values)), 120)}")
    labels = "; ".join(r.label for r in space.restrictions)
    why = f"it breaks a restriction: {shorten(labels, 120)}" if labels else "not one of its allowed configurations"
    raise InputError(f"configuration {config} is not in the space ({why})", where="configs",
                     hint="give only configurations of the space (Space.contains tells which are)")


# ---------------------------------------------------------------------- study set-up
def stored_study(path: str | Path, key: str, what: str) -> tuple[dict[str, Any], Space, Evaluator]:
    """What a search or a sample-size study recorded under ``key`` in the store at ``path``, with the
    study's space and evaluator: all it takes to resume it (``what`` names it in the error)."""
    with Store.open(path, create=False) as db:
        recorded = db.get(key)
        if not recorded:
            raise InputError(f"the store holds no {what}", where=str(path),
                             hint=f"a uniform study continues with: starchart resume {path} --samples N")
        return recorded, study_space(db, None), study_evaluator(db, None)


#: What a study accepts as its space and as its evaluator (``run``, ``search``, the analyses), and the hints.
A_SPACE = Instances(Space, "a starchart Space")
SPACE_HINT = "build one with Space(tune_params, restrictions) or Space.from_dataset(ds)"
AN_EVALUATOR = Instances(Evaluator, "a starchart evaluator")
#: What ``workers`` accepts: evaluations at a time.
WORKERS = Interval(int, 1, None)
EVALUATOR_HINT = "e.g. PythonEvaluator(f) or ReplayEvaluator(dataset)"


def study_space(store: Store, space: Space | None, *, continue_with: str | None = None) -> Space:
    """The study's space: ``space`` (saved if new, checked against the stored one) or the stored one.

    ``continue_with``: the hint of the refusal of another space, for a study that ``starchart resume``
    does not continue (default: a new store, or resume without giving a space).
    """
    check("space", space, A_SPACE, None, hint=SPACE_HINT)
    stored = store.get("space", copy=space is None)  # given a space, the stored one is only compared with it
    if space is None:
        if stored is None:
            raise InputError("no space given and none stored", where=str(store.path or "store"),
                             hint="pass the space (a space file on the command line)")
        if stored.get("unsaved_restrictions"):
            started_by = (study_kind(store) or kind_named("uniform")).started_by
            raise InputError("the study's space has function restrictions that were not saved",
                             where=str(store.path), hint=f"pass the space again: {started_by}")
        return Space.from_dict(stored, where=f"{store.path}: stored space")
    if stored is not None:  # only the parameters are compared (a dataset's space lists every configuration)
        if stored.get("parameters") != space.tune_params:
            raise InputError("the store holds a study of a different space", where=str(store.path),
                             hint=continue_with or "use a new store file, or resume without giving a space")
        return space
    try:
        description = space.to_dict()
    except SpaceError:  # function restrictions cannot be saved; keep what can be
        description = {"parameters": space.tune_params,
                       "restrictions": [r.label for r in space.restrictions], "unsaved_restrictions": True}
    store.put("space", description)
    return space


def study_evaluator(store: Store, evaluator: Evaluator | None, space: Space | None = None, *,
                    continue_with: str | None = None) -> Evaluator:
    """The study's evaluator: ``evaluator`` (described in the store if new) or rebuilt from the store.

    With ``space``, the evaluator is checked against it (:meth:`Evaluator.prepare`)
    before the store records it, so a mistyped command is never stored as the study's.
    ``continue_with``: see :func:`check_same_evaluator`.
    """
    check("evaluator", evaluator, AN_EVALUATOR, None, hint=EVALUATOR_HINT)
    stored = store.get("evaluator")
    if evaluator is None:
        if stored is None:
            raise InputError("no evaluator given and none stored", where=str(store.path or "store"),
                             hint="pass an evaluator")
        evaluator = evaluator_from_dict(stored, where=f"{store.path}: stored evaluator")
    elif stored is not None:
        check_same_evaluator(store, stored, evaluator, continue_with=continue_with)
    if space is not None:
        evaluator.prepare(space)
    if stored is None:
        store.put("evaluator", evaluator.describe())
    return evaluator


#: Parts of an evaluator's description that may change between sessions of one study.
INFORMATIONAL_KEYS = ("compiler_version", "source_names")


def check_same_evaluator(store: Store, stored: Mapping[str, Any], evaluator: Evaluator, *,
                         continue_with: str | None = None) -> None:
    """Refuse to add measurements of another program (or metric, options, source) to a study.

    Results already stored would otherwise be mixed with new ones, or a fixed
    program's old failures kept as if they were still true.

    ``continue_with``: the hint of the refusal of another evaluator, for a study that ``starchart
    resume`` does not continue (an MSP study is continued by its own command); default: a new store,
    or ``starchart resume``. Another version of a C source keeps its own hint (restore the source).
    """
    old, new = as_stored(dict(stored)), as_stored(evaluator.describe())
    # learn_metrics last: "metrics was ['time'], now ['cost']" says more than that flag does
    for key in sorted(set(old) | set(new), key=lambda k: (k == "learn_metrics", k)):
        if key in INFORMATIONAL_KEYS or old.get(key) == new.get(key):
            continue
        if key == "cwd" and old.get(key) is None:
            continue  # stored before the working folder was recorded

        name = store.path or "the store"
        if key == "source_sha256":
            raise InputError("the store holds measurements of another version of the C source", where=str(name),
                             hint="restore the source to continue this study, or measure the new one into a new "
                                  "store (--store new.db)")
        raise InputError(f"the store holds measurements of another evaluator: {key} was "
                         f"{shorten(repr(old.get(key)), 80)}, now {shorten(repr(new.get(key)), 80)}", where=str(name),
                         hint=continue_with or "measure into a new store (--store new.db), or continue the stored "
                                               f"study as it was with: starchart resume {name}")


def session_record(evaluator: Evaluator, *, workers: int = 1, ray: str | bool | None = None,
                   **flags: Any) -> dict[str, Any]:
    """What a store records of one session (:meth:`Store.add_session`): when, with which evaluator, workers
    and command line, on what machine; ``flags`` mark what kind of study measured (``search=True``...).

    >>> from starchart.measure import PythonEvaluator
    >>> record = session_record(PythonEvaluator(lambda c: 1.0), msp=True)
    >>> record["evaluator"]["kind"], record["workers"], record["ray"], record["msp"], "environment" in record
    ('python', 1, None, True, True)
    """
    packages = list(evaluator.packages) + (["ray"] if ray else [])
    return {"started": time.time(), "evaluator": evaluator.describe(), "workers": workers, "ray": ray if ray else None,
            "argv": list(sys.argv), **flags, "environment": environment(extra_packages=packages)}


# ---------------------------------------------------------------------- execution
def _store(db: Store, measurement: Measurement) -> None:
    """Store one result; a store that cannot be written (a full disk) stops the run with a clear error."""
    try:
        db.add(measurement)
    except sqlite3.Error as exc:
        raise _unwritable(db, f"cannot store the result of {plain_config(measurement.config)}", exc) from exc


def _unwritable(db: Store, what: str, exc: sqlite3.Error) -> InputError:
    where = str(db.path or "the store")
    return InputError(f"{what} ({exc}); every result before it is kept", where=where,
                      hint=f"free disk space (or fix the file's permissions), then continue with: "
                           f"starchart resume {where}")


def _session_index(store: Store, record: Mapping[str, Any]) -> int:
    """The position of the session ``record`` among the store's (added atomically: two runs started at
    once get different positions)."""
    stored = as_stored(dict(record))
    sessions = store.get("sessions", [])
    return next((i for i in range(len(sessions) - 1, -1, -1) if sessions[i] == stored), len(sessions) - 1)


#: How far on the start of session 2k (and 2k + 1) lies in its list of configurations, per k: the golden
#: ratio keeps the starting points of any number of sessions apart.
_SESSION_OFFSET = 0.6180339887498949


def _session_order(todo: list[dict[str, Any]], session: int) -> list[dict[str, Any]]:
    """``todo`` in the order the ``session``-th session of a study measures it.

    Runs of one study at once (a second ``starchart resume``) each claim what they measure
    (:class:`_Unstored`); walking the list in the same order they would contend for the same
    configurations all along. An odd session walks the list backwards, so two sessions meet head
    on, once; later ones start elsewhere. The set measured is the same; a study's first session
    keeps the sample's order.

    >>> _session_order([1, 2, 3, 4, 5], 0), _session_order([1, 2, 3, 4, 5], 1)
    ([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])
    >>> _session_order([1, 2, 3, 4, 5], 2), _session_order([1, 2, 3, 4, 5], 3)
    ([4, 5, 1, 2, 3], [3, 2, 1, 5, 4])
    """
    start = int(len(todo) * ((session // 2 * _SESSION_OFFSET) % 1.0))
    rotated = todo[start:] + todo[:start]
    return rotated[::-1] if session % 2 else rotated


#: Claims are taken for about this many seconds of evaluations at a time, at most _MOST_AHEAD configurations:
#: one at a time for measurements that take longer, up to 64 for quick ones, whose claim (a write transaction,
#: 0.1-0.3 ms) would otherwise cost more than the rest of the run path. What a run has claimed and not yet
#: started is so at most about this much work, which the other runs leave to it.
_AHEAD_S = 0.5
_MOST_AHEAD = 64


class _Unstored:
    """The configurations of ``todo`` that no run of the study has stored or is measuring.

    Each is claimed (``claims``, :meth:`Store.claims`) before it is handed out, so runs sharing a store
    measure it once. One another run holds is put back and tried once more after the others: if that run
    died meanwhile, its claim lapsed and this run measures it. What another run stored or measures counts
    as done on ``bar``. Without ``claims`` (a store in memory: no other process writes it) every
    configuration is handed out.
    """

    def __init__(self, todo: Sequence[dict[str, Any]], bar: Progress, claims: Claims | None):
        self.todo, self.bar, self.claims = todo, bar, claims
        self._ahead = 1

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if self.claims is None:
            yield from self.todo
            return
        held: list[dict[str, Any]] = []
        yield from self._claimed(self.claims, self.todo, held)
        still: list[dict[str, Any]] = []
        yield from self._claimed(self.claims, held, still)
        for _ in still:  # measured by another run
            self.bar.skip()

    def _claimed(self, claims: Claims, configs: Sequence[dict[str, Any]],
                 held: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """Those of ``configs`` this run claims, a few at a time; those another run holds go to ``held``."""
        at = 0
        while at < len(configs):
            batch = configs[at:at + self._ahead]
            at += len(batch)
            keys = [config_key(c) for c in batch]
            try:
                claimed, busy = map(set, claims.take(keys))
            except sqlite3.Error as exc:
                raise _unwritable(claims.store, f"cannot claim {plain_config(batch[0])} in the store", exc) from exc
            started = time.monotonic()
            for config, key in zip(batch, keys):
                if key in claimed:
                    yield config
                elif key in busy:
                    held.append(config)
                else:
                    self.bar.skip()
            each = (time.monotonic() - started) / max(1, len(claimed))
            self._ahead = max(1, min(2 * self._ahead, _MOST_AHEAD, int(_AHEAD_S / max(each, 1e-9))))


def evaluate_all(evaluator: Evaluator, todo: Iterable[dict[str, Any]], *, workers: int = 1,
                 ray: str | bool | None = None) -> Iterator[Measurement]:
    """Measure ``todo`` with ``workers`` at a time (threads, or Ray actors with ``ray``); results in the order
    they finish, each configuration's in its :attr:`Measurement.config`."""
    workers = check("workers", workers, WORKERS, hint=f"evaluations at a time, e.g. {arg('workers', '4')}")
    if ray:

        return ray_evaluate(evaluator, todo, workers=int(workers), address=ray)
    if int(workers) == 1:
        return (evaluator.evaluate(c) for c in todo)
    return _threaded(evaluator, todo, int(workers))


def _threaded(evaluator: Evaluator, todo: Iterable[dict[str, Any]], workers: int) -> Iterator[Measurement]:
    """Evaluate on ``workers`` threads, yielding results as they finish.

    At most ``2 × workers`` evaluations are queued, so an interrupted run leaves
    little unstarted work behind and results reach the store promptly.
    """
    pending: set[Future[Measurement]] = set()
    queue = iter(todo)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="starchart-worker") as pool:
        try:
            while True:
                while len(pending) < 2 * workers:
                    config = next(queue, None)
                    if config is None:
                        break
                    pending.add(pool.submit(evaluator.evaluate, config))
                if not pending:
                    return
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
        except BaseException:  # Ctrl-C, or the caller stopped: the pool must not wait for running programs
            for future in pending:
                future.cancel()
            kill_running()
            raise


# ---------------------------------------------------------------------- progress
class Progress:
    """A rich progress bar: done/total, failures, best so far, ETA (silent when disabled)."""

    def __init__(self, plan: RunPlan, evaluator: Evaluator, store: Store, enabled: bool, from_store: bool = True):
        """``from_store``: start the failures and best from what ``store`` holds (a resumed run counts
        only what it measures itself); off for a caller that advances the bar for stored results too."""
        self.enabled = enabled and plan.total > 0
        description = evaluator.describe()
        # A Python function's objective is the first metric its results carry (learnt by the evaluator from
        # its first result, here from the results themselves: a Ray worker's copy learns it, not this one)
        self._learns = bool(description.get("learn_metrics"))
        self._direction_given = description.get("minimize") if self._learns else None
        self.minimize = evaluator.minimize
        self.objective = evaluator.objective
        self.failures = 0
        self.best: float | None = None
        self._total, self._done = plan.total, plan.done
        self._bar: Any = None
        if self.enabled and from_store:  # start from what is stored: a resumed run shows the study's best
            for ok, summary in store.outcomes():
                self._note_outcome(ok, summary)

    def __enter__(self) -> Progress:
        if self.enabled:

            self._bar = stderr_progress("failed {task.fields[failed]}", "best {task.fields[best]}")
            self._bar.__enter__()
            self._task = self._bar.add_task("measuring", total=self._total, completed=self._done,
                                            failed=self.failures, best=self._best_text())
        return self

    def _note(self, m: Measurement) -> None:
        self._note_outcome(m.ok, m.summary())

    def _note_outcome(self, ok: bool, summary: Mapping[str, float]) -> None:
        """Count a result: a failure, or its mean of each metric (in the order its evaluator named them)."""
        if not ok:
            self.failures += 1
            return
        if self._learns and summary:
            self._learn(next(iter(summary)))
        value = summary.get(self.objective)
        if value is None or not math.isfinite(value):  # an inf is no best (the search counts it as failed)
            return
        if self.best is None or (value < self.best if self.minimize else value > self.best):
            self.best = value

    def _learn(self, objective: str) -> None:
        """Follow the objective a Python function's results name first, as its evaluator does (and its
        direction, unless one was given)."""
        self._learns = False
        self.objective = objective
        self.minimize = lower_is_better(objective) if self._direction_given is None else bool(self._direction_given)

    def _best_text(self) -> str:

        return "-" if self.best is None else escape(f"{self.best:.4g} ({self.objective})")

    def advance(self, m: Measurement) -> None:
        if not self.enabled:
            return
        self._note(m)
        if self._bar is not None:
            self._bar.update(self._task, advance=1, failed=self.failures, best=self._best_text())

    def skip(self) -> None:
        """Count a configuration that another process stored meanwhile as done."""
        if self.enabled and self._bar is not None:
            self._bar.update(self._task, advance=1)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None


# ---------------------------------------------------------------------- SIGTERM
class _Terminated(KeyboardInterrupt):
    """SIGTERM arrived while measuring: stop as on Ctrl-C (killing the programs of every worker), then die of it."""


@contextmanager
def _sigterm_stops_programs() -> Iterator[None]:
    """While measuring, SIGTERM (a batch system's time limit, ``kill``) stops the run as Ctrl-C does, then
    ends the process by SIGTERM as before. Its default action would end this process at once, leaving the
    programs its workers run (each in its own session) running on.

    Only where SIGTERM has its default action, in the main thread: a caller's own handler (the CLI's) stays.
    """
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise _Terminated(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    except _Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)  # every program is stopped and every result stored: die of it
        raise
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
