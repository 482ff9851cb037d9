"""Tree-guided search: find the best configuration of a space with few measurements.

:func:`search` measures, one configuration at a time (or a batch per round of
``workers``), what a model of the measurements so far says is most worth
measuring, until ``budget`` evaluations are spent. The model is an ensemble of Starchart trees (bagged, on random
parameter subsets) fitted to the log of the objective, and a second ensemble
fitted to which configurations failed; the first may also split on the product
of any two numeric parameters, such as threads per block:

1. the first few configurations are drawn uniformly at random (a Starchart
   sample: a map of the space);
2. after that, every step refits both ensembles and measures the unmeasured
   configuration with the largest expected improvement over the best so far
   (the trees' mean and spread give the expectation), weighted by the chance
   that it runs at all. The leaves that hold low values, or that few samples
   vouch for, win;
3. every second step only looks at the configurations that differ from the
   best one in a single parameter (refinement, still ranked by the model).

Failed configurations count against the budget (they cost a measurement on
hardware) and teach the failure model to avoid their region. No configuration
is measured twice, and the same seed gives the same search.

With a ``prior`` — earlier measurements of the same space, say on another GPU —
the trees may also split on how fast those rank a configuration. On the
convolution data, a search on the RTX A4000 or A6000 given another GPU's
measurements is within 5 % of the optimum after 100 evaluations in 97–100 % of
runs (63–70 % without); given data that ranks the space differently (the A100
given the A6000's) it does worse early on: median 0.68 instead of 0.87 at 50
evaluations (``benchmarks/search_prior.py``).

With a ``store``, every measurement is committed as it arrives, and calling
:func:`search` again with the same store, seed and budget resumes: the stored
measurements are replayed, not measured again.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from starchart._util.configs import config_key, plain_config
from starchart._util.text import shorten
from starchart._util.units import unit_of, with_unit
from starchart._util.validation import Instances, Interval, check, check_seed
from starchart.dataset import Dataset
from starchart.errors import InputError, SpaceError, arg
from starchart.measure.base import Evaluator, Measurement
from starchart.space import Space
from starchart.strategies.encoding import CandidatePool, Encoding
from starchart.strategies.engine import SearchOptions
from starchart.strategies.neighbourhood import Neighbourhood, best_neighbourhood
from starchart.strategies.prior import prior_dataset, prior_measurements
from starchart.strategies.registry import strategy_class
from starchart.strategies.static import StaticFeatures, static_table
from starchart.study.records import GIVEN_TABLE, SearchRecord
from starchart.study.runner import (
    A_SPACE,
    AN_EVALUATOR,
    EVALUATOR_HINT,
    SPACE_HINT,
    Progress,
    RunPlan,
    check_parameter_names,
    evaluate_all,
    session_record,
    stored_study,
    study_evaluator,
    study_space,
)
from starchart.study.store import Store, opened_store

__all__ = ["Best", "SearchResult", "resume_search", "search"]

#: Spaces with at most this many valid configurations are enumerated and scored whole.
ENUMERATE_LIMIT = 200_000

#: Columns of a search's history besides the parameters and the objective (no parameter may take their names).
HISTORY_COLUMNS = ("step", "status", "reason", "best_so_far")

#: The clock a ``time_limit`` is read on (seconds; monotonic, so a changed system clock does not end a search).
_clock = time.monotonic


@dataclass(frozen=True)
class Best:
    """The best configuration a search measured: its values, objective value and step (1-based)."""

    config: dict[str, Any]
    value: float
    step: int


@dataclass
class SearchResult:
    """What a search measured, in order.

    Attributes
    ----------
    history:
        One row per evaluation, in order: ``step`` (1, 2, …), the parameters,
        the objective column, ``status`` and ``reason`` (failures), ``best_so_far``.
    objective, minimize:
        The metric optimised and its direction.
    budget, seed:
        The evaluations allowed and the seed used (pass it again to repeat the search).
    measurements:
        The full :class:`~starchart.measure.Measurement` of every evaluation.
    neighbourhood:
        The valid configurations one parameter away from the best and how many were measured
        (:class:`~starchart.strategies.neighbourhood.Neighbourhood`: ``.local_optimum`` when all
        were); ``None`` when nothing valid was found.
    stopped:
        Why the search ended before spending its budget (its ``time_limit`` passed), or ``None``.
    """

    history: pd.DataFrame
    objective: str
    minimize: bool
    budget: int
    seed: int
    measurements: list[Measurement]
    params: list[str]
    neighbourhood: Neighbourhood | None = None
    stopped: str | None = None

    @property
    def best(self) -> Best | None:
        """The best valid configuration measured, or ``None`` if every evaluation failed."""
        values = self.history[self.objective].to_numpy(dtype=float)
        if not np.isfinite(values).any():
            return None
        masked = np.where(np.isfinite(values), values, np.inf if self.minimize else -np.inf)
        row = int(np.argmin(masked) if self.minimize else np.argmax(masked))
        config = {p: self.history[p].iloc[row] for p in self.params}
        return Best(plain_config(config), float(values[row]), row + 1)

    @property
    def best_so_far(self) -> pd.Series:
        """The best objective value after each step (NaN until something succeeded), indexed by step."""
        return self.history.set_index("step")["best_so_far"]

    @property
    def failures(self) -> int:
        """How many evaluations gave no usable value: failed, or ran without a finite objective value (inf)."""
        # a run that printed inf is no result either: counting only status != "ok" said "0 failed" beside
        # "every evaluation failed"
        return int((~np.isfinite(self.history[self.objective].to_numpy(dtype=float))).sum())

    def to_dataset(self) -> Dataset:
        """The evaluations as a :class:`~starchart.Dataset` (e.g. to fit a tree on them)."""
        frame = self.history[[*self.params, self.objective, "status", "reason"]].copy()
        return Dataset.from_frame(frame, params=self.params, metrics=[self.objective],
                                  meta={"objective": self.objective, "minimize": self.minimize,
                                        "format": "starchart-search"})

    def summary(self, reasons: bool = True) -> str:
        """For people: what was spent, the best configuration found, and whether it is a local optimum;
        when nothing worked, the commonest failure (``reasons=False``: not, for a caller that lists them).

        >>> from starchart.measure import PythonEvaluator
        >>> space = Space({"x": list(range(20))})
        >>> print(search(PythonEvaluator(lambda c: (c["x"] - 7) ** 2 + 1.0), space, budget=6, seed=0).summary())
        ... # doctest: +ELLIPSIS
        6 evaluations of 6 (seed 0, 0 failed)
        best time ... at evaluation ...: x=...
        ... of the 19 configurations that differ from it in one parameter were measured; ... were not
        """
        head = f"{len(self.history)} evaluations of {self.budget} (seed {self.seed}, {self.failures} failed)"
        if self.stopped:
            head = f"{head}\n{self.stopped}"
        best = self.best
        if best is None:
            return f"{head}\nno valid result: every evaluation failed{self._commonest_failure() if reasons else ''}"
        sense = "" if self.minimize else " (maximised)"
        config = ", ".join(f"{k}={v}" for k, v in best.config.items())
        shown = with_unit(best.value, unit_of(self.objective), ".6g")
        text = f"{head}\nbest {self.objective}{sense} {shown} at evaluation {best.step}: {config}"
        return text if self.neighbourhood is None else f"{text}\n{self.neighbourhood.describe()}"

    def _commonest_failure(self) -> str:
        """``"; most often (28 of 30) runtime: …"``: the commonest reason of the commonest failure status,
        what to fix first when nothing worked ("" when no failure gave a reason)."""
        for status, reasons in self.to_dataset().failure_reasons(top=1).items():  # largest status first
            for reason, n in reasons:
                return f"; most often ({n} of {len(self.history)}) {status}: {shorten(reason, 200, collapse=True)}"
        return ""

    def __repr__(self) -> str:
        best = self.best
        shown = "none valid" if best is None else f"{best.value:.6g} at step {best.step}: {best.config}"
        sense = "" if self.minimize else " (maximised)"
        return (f"SearchResult({len(self.history)} evaluations of {self.budget}, seed {self.seed}, "
                f"{self.failures} failed, best {self.objective}{sense} {shown})")


def search(evaluator: Evaluator, space: Space, budget: int, seed: int | None = None, *,
           initial: Iterable[Mapping[str, Any]] | pd.DataFrame | None = None,
           store: Store | str | Path | None = None, progress: bool = False,
           options: SearchOptions | None = None, prior: Dataset | str | Path | None = None,
           workers: int = 1, time_limit: float | None = None, strategy: str | None = None,
           static: Any = None) -> SearchResult:
    """Search ``space`` for the configuration that optimises ``evaluator``'s objective.

    Parameters
    ----------
    evaluator:
        Measures a configuration (:class:`~starchart.measure.Evaluator`); its first
        metric is the objective, minimised unless ``evaluator.minimize`` is false.
    space:
        The tuning space (``Space.from_dataset(ds)`` for a replayed one).
    budget:
        Evaluations to spend, failures included (≥ 1, at most the number of
        valid configurations).
    seed:
        Seed of every random choice (0 … 2³² − 1); default: the seed of the search
        ``store`` holds, else a fresh one, kept in the result.
    initial:
        Configurations to measure first (e.g. a known good default); they count
        against the budget.
    store:
        A :class:`~starchart.Store` or a path: every measurement is committed
        there, and a search with the same store, seed and budget resumes. What
        the store already holds of the space counts against the budget (a budget
        smaller than that is refused).
    progress:
        Show a live progress bar.
    workers:
        Configurations measured at a time (threads: several GPUs, or a benchmark that leaves cores free).
        The search proposes them ``workers`` at a time, each batch spread by telling the model the best
        value so far for the proposals before it (a *constant liar*), and learns their results in the
        order proposed, so it stays a deterministic function of the seed. On the seven replayed spaces of
        ``benchmarks/search_parallel.py``, 4 workers reach nearly the quality of one at the same budget in
        a quarter of the rounds.
    time_limit:
        Seconds of wall time this call may spend: once they have passed, no new configuration is
        proposed, the evaluations under way finish and are stored, and the result says it stopped
        early (``.stopped``). The budget stays the search's: with a ``store``, calling :func:`search`
        again (or :func:`resume_search`) continues it with the same proposals it would have made
        without the stop. At least one round is measured per call.
    options:
        :class:`~starchart.strategies.engine.SearchOptions` (for experiments).
    prior:
        Earlier measurements of the same space (a :class:`~starchart.Dataset` or
        a file :func:`starchart.load` reads), e.g. from another GPU, with the
        objective among their metrics: a warm start. Where they rank
        configurations as this platform does, the search finds the best far
        sooner; where they do not, the trees learn to ignore them (a misleading
        prior can still cost some evaluations early on).

    strategy:
        How to choose what to measure next (:mod:`starchart.strategies.registry`): ``"tree"`` (the
        tree-guided search), ``"static"`` (the same, told ``static``), ``"uniform"``, ``"exhaustive"`` or a
        registered plug-in; default: the strategy ``store`` recorded, else ``"static"`` when ``static`` is
        given, else ``"tree"``. ``prior``, ``options`` and ``static`` guide the tree only.
    static:
        What the compiler says of each configuration, before anything runs: the table of a carving (the
        result of :func:`starchart.carve_source`, its ``.frame``, or the CSV ``starchart carve ... --table FILE.csv``
        writes). The trees may split on its metrics (registers, occupancy, instructions, …) from the first
        model on, and the ``static`` strategy draws its initial design among the configurations carving kept
        (:mod:`starchart.strategies.static`). A file is recorded, so a resume finds it again.

    Returns
    -------
    SearchResult
        ``.history`` (every evaluation, in order), ``.best``, ``.best_so_far``.

    Examples
    --------
    >>> from starchart.measure import PythonEvaluator
    >>> space = Space({"x": list(range(20)), "y": list(range(20))})
    >>> ev = PythonEvaluator(lambda c: 1 + (c["x"] - 13) ** 2 + (c["y"] - 4) ** 2)
    >>> result = search(ev, space, budget=60, seed=1)
    >>> len(result.history), result.best.config
    (60, {'x': 13, 'y': 4})
    """
    budget = _check_budget(budget)
    check("options", options, None, Instances(SearchOptions, "SearchOptions(...)"),
          hint="e.g. options=SearchOptions(pair_products=False)")
    check("space", space, A_SPACE, hint=SPACE_HINT)
    check("evaluator", evaluator, AN_EVALUATOR, hint=EVALUATOR_HINT)
    _check_names(space, evaluator)
    count = space.size_estimate(seed=0)
    if count.exact and count.estimate == 0:
        raise InputError("the space has no valid configurations", where="space",
                         hint="loosen its restrictions (starchart space FILE --size counts them)")
    if count.exact and budget > count.estimate:
        raise InputError(f"budget {budget} is more than the {count.estimate} valid configurations of the space",
                         where="budget", hint=f"use {arg('budget', str(count.estimate))} to measure the whole space, or less")
    seed = _check_seed(seed)
    workers, time_limit = _check_workers(workers), _check_time_limit(time_limit)  # before a store file is made
    if strategy is not None:
        strategy_class(strategy)  # an unknown name: refused before a store file is made
    with opened_store(store) as db:
        recorded = SearchRecord.read(db)
        if seed is None:  # continuing a stored search: its seed, so the rerun repeats the proposals
            seed = int(recorded.seed) if recorded else int(np.random.SeedSequence().entropy % 2**32)
        if prior is None and recorded and recorded.prior:  # and its warm start, for the same reason
            prior = _stored_prior(recorded.prior, store)
        if static is None and recorded and recorded.static:  # and its static metrics
            static = _stored_static(recorded.static, store)
        if strategy is None:  # and its strategy
            strategy = str(recorded.strategy) if recorded else "static" if static is not None else "tree"
        strategy_class(strategy)  # a recorded name no longer installed: refused before anything is measured
        return _search(evaluator, space, budget, seed, initial, db, progress, options, count, prior, recorded,
                       workers, time_limit, strategy, static)


def resume_search(store: str | Path, *, progress: bool = False, workers: int | None = None,
                  time_limit: float | None = None) -> SearchResult:
    """Continue the search ``store`` holds, with the space, evaluator, budget, seed, warm start and
    workers it recorded (``workers``: another number of them); what it measured is not measured again.
    ``time_limit``: seconds this call may spend, as for :func:`search`.

    Examples
    --------
    >>> import sys
    >>> from starchart.measure import CommandEvaluator
    >>> space = Space({"n": list(range(1, 30))})
    >>> ev = CommandEvaluator([sys.executable, "-c", "print('time_ms:', abs({n} - 17) + 1)"], pattern=r"time_ms: (\\S+)")
    >>> import tempfile, os; path = os.path.join(tempfile.mkdtemp(), "s.db")
    >>> first = search(ev, space, budget=8, seed=2, store=path)
    >>> resume_search(path).history.equals(first.history)   # nothing left to measure: the same search
    True
    """
    stored, space, evaluator = stored_study(store, "search", "search")
    recorded = SearchRecord.from_json(stored, where=str(store))
    return search(evaluator, space, int(recorded.budget), seed=int(recorded.seed), store=store,
                  progress=progress, workers=int(recorded.workers) if workers is None else workers,
                  time_limit=time_limit, strategy=str(recorded.strategy))


def _stored_prior(prior: str, store: Any) -> str:
    """The warm start a stored search recorded (a file's absolute path), to continue the search with it."""
    if not Path(prior).is_file():
        raise InputError(f"the search in this store was warm-started from {prior}, which is not a file here",
                         where=str(getattr(store, "path", store)),
                         hint=f"pass the same earlier measurements again ({arg('prior', '...')}), or search with a new store")
    return prior


def _stored_static(static: str, store: Any) -> str:
    """The static metrics a stored search recorded (a file's absolute path), to continue the search with them."""
    if static == GIVEN_TABLE or not Path(static).is_file():
        told = "given as a table" if static == GIVEN_TABLE else f"read from {static}, which is not a file here"
        raise InputError(f"the search in this store was told static metrics {told}",
                         where=str(getattr(store, "path", store)),
                         hint=f"pass the same static metrics again ({arg('static', '...')}), or search with a new store")
    return static


def _static_features(static: Any, enc: Encoding, strategy: str) -> tuple[dict[str, Any], str | None]:
    """The strategy's ``static`` argument (none when not given) and what the store records of it."""
    if static is None:
        return {}, None
    cls = strategy_class(strategy)
    if "static" not in inspect.signature(cls).parameters:
        raise InputError(f"the {strategy!r} strategy cannot use static metrics", where="strategy",
                         hint=f"use {arg('strategy', repr('static'))} or {arg('strategy', repr('tree'))}, "
                              f"or leave out {arg('static', '')}")
    features = StaticFeatures.from_table(enc, static_table(static))
    # a file is recorded by its absolute path, so the search resumes from any folder
    source = str(Path(static).resolve()) if isinstance(static, (str, Path)) else GIVEN_TABLE
    return {"static": features}, source


def _check_seed(seed: Any) -> int | None:
    return check_seed(seed, hint=f"e.g. {arg('seed', '1')}, or leave it out for a fresh one (kept in the result)")


def _settings(budget: int, seed: int, evaluator: Evaluator, prior: str | None,
              recorded: SearchRecord | None, workers: int = 1, strategy: str = "tree",
              static: str | None = None) -> SearchRecord:
    """What the store records of this search; a store first searched with other settings keeps those too.

    ``workers`` and ``strategy`` are written only when not the default, so stores of one-worker tree searches
    stay as they were (proposals come in batches of ``workers``: a resume needs it to propose the same ones).
    """
    return SearchRecord(budget=budget, seed=seed, objective=evaluator.objective, minimize=evaluator.minimize,
                        prior=prior, workers=workers, strategy=strategy, static=static).after(recorded)


def _check_workers(workers: Any) -> int:
    return check("workers", workers, Interval(int, 1, None),
                 hint=f"e.g. {arg('workers', '4')} to measure four configurations at a time")


def _check_names(space: Space, evaluator: Evaluator) -> None:
    """Refuse parameter names the history or the store's dataset needs for itself (the columns would collide,
    silently or not)."""
    check_parameter_names(space)  # status, reason, repeats_*: as run() does
    for name in space.names:
        if name == evaluator.objective:
            raise InputError(f"parameter {name!r} has the name of the objective (the evaluator's first metric)",
                             where=f"space, parameter {name!r}",
                             hint="rename the parameter or the metric: the history holds both as columns")
        if name in HISTORY_COLUMNS:
            raise InputError(f"parameter {name!r} has the name of a column of the search's history "
                             f"({', '.join(HISTORY_COLUMNS)})", where=f"space, parameter {name!r}",
                             hint=f"rename the parameter, e.g. to {name + '_'!r}")


def _check_time_limit(time_limit: Any) -> float | None:
    return check("time_limit", time_limit, None, Interval(float, 0, None, closed="neither"),
                 hint=f"seconds: e.g. {arg('time_limit', '3600')} for an hour, or leave it out for no limit")


def _check_budget(budget: Any) -> int:
    return check("budget", budget, Interval(int, 1, None), hint=f"evaluations: e.g. {arg('budget', '100')}")


def _search(evaluator: Evaluator, space: Space, budget: int, seed: int, initial: Any, db: Store,
            progress: bool, options: SearchOptions | None, count: Any, prior: Any,
            recorded: SearchRecord | None, workers: int, time_limit: float | None = None,
            strategy: str = "tree", static: Any = None) -> SearchResult:

    space = study_space(db, space)
    evaluator = study_evaluator(db, evaluator, space)
    stored = _stored(db, space.names)
    _check_stored(stored, space, budget, db)  # before the store records this search's settings
    _learn_objective(evaluator, stored)  # before the objective is read: by the prior, the optimizer, the settings
    enc = Encoding.from_space(space)
    pool, sampler = _pool(space, enc, seed, count)
    first = _initial_indices(initial, space, enc, pool)
    earlier, source = None, None
    if prior is not None:
        given = prior
        prior = prior_dataset(prior)
        earlier = prior_measurements(prior, enc, evaluator.objective)
        # a file is recorded by its absolute path, so the search resumes from any folder
        source = str(Path(given).resolve()) if isinstance(given, (str, Path)) else str(
            prior.meta.get("source", "a Dataset"))
    told, static_source = _static_features(static, enc, strategy)
    optimizer = strategy_class(strategy)(pool, seed=seed, minimize=evaluator.minimize, budget=budget,
                                         options=options, sampler=sampler, prior=earlier, **told)
    settings = _settings(budget, seed, evaluator, source, recorded, workers, strategy, static_source)
    settings.write(db)
    # as run() records its sessions (with the machine's environment, which the store's dataset reports)
    db.add_session(session_record(evaluator, search=True))
    done = _finished(db, stored, space, budget, settings, recorded)
    if done is not None:  # nothing left to measure: the stored search as it was, without refitting its model
        with Progress(RunPlan(todo=[], done=budget, total=budget), evaluator, db, enabled=progress):
            pass  # the bar drawn full, as a resumed run's would end: the user sees the budget was spent
        return _result(done, space, evaluator, budget, seed)
    diverged = False
    measurements: list[Measurement] = []
    plan = RunPlan(todo=[{}] * budget, done=0, total=budget)
    deadline = None if time_limit is None else _clock() + time_limit
    measured_any, stopped = False, None  # each call measures one new round at least (a replayed one is none)
    with Progress(plan, evaluator, db, enabled=progress, from_store=False) as bar:  # stored results advance it
        while len(measurements) < budget:
            if deadline is not None and measured_any and _clock() >= deadline:
                stopped = (f"stopped at its time limit ({time_limit:g} s) with {budget - len(measurements)} "
                           f"of the budget left")
                break
            room = budget - len(measurements)
            if first:
                batch = [first.pop(0) for _ in range(min(workers, room, len(first)))]
            else:
                batch = optimizer.ask_batch(min(workers, room)) if workers > 1 else [optimizer.ask()]
            found: dict[int, Measurement] = {}  # of this batch: stored earlier, or measured now
            todo: dict[str, tuple[int, dict[str, Any]]] = {}  # to measure, by key: pool index, configuration
            # a batch stopped part-way stored whichever of its members finished first, in any order: a member
            # not stored is no divergence while every stored result left belongs to this batch
            batch_keys = {config_key(c, space.names) for c in enc.decode(pool.codes[batch])}
            for index in batch:
                if pool.evaluated[index]:  # an initial configuration already learnt from a stored study
                    continue
                config = enc.decode(pool.codes[index])[0]
                key = config_key(config, space.names)
                if stored and not diverged and key not in stored and not set(stored) <= batch_keys:
                    # the stored study went another way (another seed or budget): learn from all of it first
                    diverged = True
                    for m in _take_stored(stored, len(stored)):
                        other = _pool_index(m.config, space, enc, pool)
                        # outside the space (other restrictions) or beyond the budget: not part of this search
                        if other >= 0 and not pool.evaluated[other] and len(measurements) < budget:
                            optimizer.tell(other, _objective(m, evaluator))
                            measurements.append(m)
                            bar.advance(m)
                if pool.evaluated[index] or len(measurements) + len(found) + len(todo) >= budget:
                    continue
                if key in stored:
                    found[index] = stored.pop(key)  # measured by an earlier, interrupted search: not again
                else:
                    todo[key] = (index, config)
            measured_any = measured_any or bool(todo)
            for m in evaluate_all(evaluator, [c for _, c in todo.values()], workers=workers):  # stored on arrival
                db.add(m)
                found[todo[config_key(m.config, space.names)][0]] = m
                optimizer.minimize = evaluator.minimize  # an evaluator may learn its objective from a result
                if settings.objective != evaluator.objective:  # recorded as learnt, so a rerun matches them
                    settings = replace(settings, objective=evaluator.objective, minimize=evaluator.minimize)
                    settings.write(db)
            for index in batch:  # told in the order asked: the search does not depend on which worker was first
                if index in found:
                    optimizer.tell(index, _objective(found[index], evaluator))
                    measurements.append(found[index])
                    bar.advance(found[index])
    result = _result(measurements, space, evaluator, budget, seed)
    result.stopped = stopped
    return result


def _pool(space: Space, enc: Encoding, seed: int, count: Any) -> tuple[CandidatePool, Any]:
    """All valid configurations when there are few enough; else a uniform sample that grows."""
    if count.exact and count.estimate <= ENUMERATE_LIMIT:
        return CandidatePool(enc, enc.encode(space.to_frame())), None

    def valid(codes: np.ndarray) -> np.ndarray:
        return space.contains(pd.DataFrame(enc.decode(codes), columns=list(space.names)))

    def sampler(rng: np.random.Generator, n: int) -> np.ndarray:
        return _sample_codes(space, enc, n, rng)

    start = _sample_codes(space, enc, min(20_000, max(1, count.estimate)), seed)
    return CandidatePool(enc, start, valid=valid, complete=False), sampler


def _sample_codes(space: Space, enc: Encoding, n: int, seed: Any) -> np.ndarray:
    """Codes of ``n`` uniform valid configurations, or of a tenth or a hundredth as many when the
    restrictions make valid ones too rare to draw ``n`` (the candidate pool grows as it is used)."""
    for size in dict.fromkeys((n, max(1, n // 10), max(1, n // 100))):
        try:
            return enc.encode(space.sample(size, seed=seed))
        except SpaceError as exc:
            rare = exc
    raise InputError(f"the restrictions leave too few valid configurations to find by random draws ({rare.message})",
                     where="space", hint="tighten the parameters' value lists so that fewer combinations are "
                                         "invalid, or raise space.max_draws") from rare


def _initial_indices(initial: Any, space: Space, enc: Encoding, pool: CandidatePool) -> list[int]:
    if initial is None:
        return []
    if isinstance(initial, Mapping) or not isinstance(initial, (pd.DataFrame, Iterable)):
        raise InputError(f"initial must be a list of configurations, got {type(initial).__name__}", where="initial",
                         hint="e.g. initial=[{'bx': 32, 'by': 4}] (a list, even for one configuration)")
    rows = None if isinstance(initial, pd.DataFrame) else list(initial)
    bad = [] if rows is None else [i for i, c in enumerate(rows) if not isinstance(c, Mapping)]
    if bad:
        raise InputError(f"initial[{bad[0]}] is not a configuration: {rows[bad[0]]!r}", where="initial",
                         hint="give each configuration as a dict {parameter: value}")
    frame = initial if rows is None else pd.DataFrame([dict(c) for c in rows])
    if frame.empty:
        return []
    missing = [n for n in space.names if n not in frame.columns]
    if missing:
        raise InputError(f"the initial configurations lack the parameter(s) {', '.join(missing)}", where="initial",
                         hint=f"give a value for each of: {', '.join(space.names)}")
    inside = space.contains(frame)
    if not inside.all():
        row = int(np.flatnonzero(~inside)[0])
        raise InputError(f"initial configuration {plain_config(frame.iloc[row][list(space.names)].to_dict())} "
                         "is not in the space", where=f"initial[{row}]",
                         hint="give configurations whose values are listed and that meet the restrictions")
    codes = enc.encode(frame)
    found = pool.find(codes)
    missing = found < 0
    if missing.any():
        found[missing] = pool.extend(codes[missing], check=False)
    return list(dict.fromkeys(int(i) for i in found))  # each once, in the order given


def _check_stored(stored: dict[str, Measurement], space: Space, budget: int, db: Store) -> None:
    """Refuse a budget smaller than what the store already holds of the space: the search counts those against
    its budget, and dropping some would lose them from the result silently (its best among them, say)."""
    if len(stored) <= budget:
        return
    configs = pd.DataFrame([{n: m.config[n] for n in space.names} for m in stored.values()],
                           columns=list(space.names))
    inside = int(space.contains(configs).sum())
    if inside > budget:
        raise InputError(f"the store already holds {inside} measured configurations of this space, more than "
                         f"the budget of {budget}: a search counts what its store holds against its budget",
                         where=str(db.path or "store"),
                         hint=f"use {arg('budget', str(inside))} or more to search on from them, or a new store")


def _learn_objective(evaluator: Evaluator, stored: dict[str, Measurement]) -> None:
    """Teach an evaluator that learns its metrics from its first result (a Python function returning a dict) the
    metrics of a stored result: a resumed search replays those first, and would otherwise read them by the
    default objective (time), as failures, and search on from there another way than the first run did."""
    if not stored or not evaluator.describe().get("learn_metrics"):
        return
    for m in stored.values():
        if m.ok and m.values:
            evaluator.metrics = tuple(m.values)
            return


def _take_stored(stored: dict[str, Measurement], limit: int) -> list[Measurement]:
    """Remove and return (at most ``limit``) stored measurements, in stored order."""
    taken = list(stored.values())[:max(limit, 0)]
    stored.clear()
    return taken


def _pool_index(config: Mapping[str, Any], space: Space, enc: Encoding, pool: CandidatePool) -> int:
    """The pool index of a stored configuration (added to a sampled pool if need be); −1 if outside the space."""
    if not all(n in config for n in space.names) or not space.is_valid({n: config[n] for n in space.names}):
        return -1
    codes = enc.encode([config])
    index = int(pool.find(codes)[0])
    return index if index >= 0 else int(pool.extend(codes, check=False)[0])


def _finished(db: Store, stored: dict[str, Measurement], space: Space, budget: int, settings: SearchRecord,
              recorded: SearchRecord | None) -> list[Measurement] | None:
    """The measurements of a search that already spent its budget, in the order it made them, when the
    store holds that search alone (these settings, no other session or result); else ``None``.

    Such a search stored each result as it measured it, so the stored order is its history, and
    replaying it step by step (refitting the model every step) would only find the same steps again.
    """
    if recorded is None or recorded.to_json() != settings.to_json() or settings.earlier or len(stored) != budget \
            or len(db) != budget:
        return None
    if settings.workers > 1:  # stored in the order measurements finished, learnt in the order asked
        return None
    if not all(session.get("search") for session in db.get("sessions", [])):
        return None  # also a uniform study, say: replayed, as it may have been learnt from out of order
    done = list(stored.values())
    configs = pd.DataFrame([{n: m.config[n] for n in space.names} for m in done], columns=list(space.names))
    return done if space.contains(configs).all() else None


def _stored(db: Store, names: tuple[str, ...]) -> dict[str, Measurement]:
    """The measurements already in the store, first of each configuration, in stored order."""
    stored: dict[str, Measurement] = {}
    for m in db.measurements():
        if all(n in m.config for n in names):
            stored.setdefault(config_key(m.config, names), m)
    return stored


def _objective(m: Measurement, evaluator: Evaluator) -> float | None:
    if not m.ok:
        return None
    value = m.summary().get(evaluator.objective)
    return None if value is None or not math.isfinite(value) else float(value)


def _result(measurements: list[Measurement], space: Space, evaluator: Evaluator, budget: int,
            seed: int) -> SearchResult:
    objective, minimize, names = evaluator.objective, evaluator.minimize, space.names
    rows, best = [], math.nan
    for step, m in enumerate(measurements, start=1):
        value = _objective(m, evaluator)
        if value is not None and (math.isnan(best) or (value < best if minimize else value > best)):
            best = value
        reason = f"no finite {objective} value" if m.ok and value is None else m.reason
        rows.append({"step": step, **{n: m.config.get(n) for n in names},
                     objective: math.nan if value is None else value,
                     "status": m.status, "reason": reason, "best_so_far": best})
    columns = ["step", *names, objective, "status", "reason", "best_so_far"]
    history = pd.DataFrame(rows, columns=columns)
    for n in names:  # None among a parameter's values: pandas would make it NaN and 32 beside it 32.0
        values = [row[n] for row in rows]
        if any(v is None for v in values):
            history[n] = pd.Series(values, dtype=object)
    result = SearchResult(history, objective, minimize, budget, seed, measurements, list(names))
    best = result.best
    if best is not None:
        result.neighbourhood = best_neighbourhood(space, best.config, history[list(names)])
    return result
