"""The tree-guided search as an Optuna sampler, for studies over a finite space of settings.

Optuna users keep their study, objective, storage and dashboard and let the
tree-guided search choose the settings::

    import optuna
    from starchart import StarchartSampler

    space = {"block_size_x": [32, 64, 128, 256], "tile": [1, 2, 4, 8], "cache": ["shared", "global"]}

    def objective(trial):
        config = {name: trial.suggest_categorical(name, values) for name, values in space.items()}
        return measure(config)  # e.g. the kernel's time in ms; raise to mark a failed configuration

    study = optuna.create_study(sampler=StarchartSampler(space, budget=100, seed=1))
    study.optimize(objective, n_trials=100)

Each trial is one configuration of the space (``dict`` of value lists, or a
:class:`starchart.Space` with restrictions) that no earlier trial measured: the
sampler proposes it before the trial starts (:class:`~starchart.strategies.engine.TreeGuidedOptimizer`)
and hands its values to ``suggest_*``. A failed trial (the objective raised or
returned NaN) or a pruned one costs its evaluation and teaches the search to avoid
its region, as a failure on a GPU does. The search is deterministic for a seed, and
a study continued from its storage (``optuna.load_study`` with a new sampler of the
same seed) goes on as if it had not stopped: the sampler replays the stored trials.
Trials running in other threads of the study (``n_jobs``) are not proposed twice.
When every configuration of the space has been measured the study is stopped.

Each model-guided trial refits the search's tree ensembles: a few milliseconds once the tree kernel is
compiled, which it is after a few trials (:data:`starchart.tree._growth.INTERPRETED_WORK`). Compiled or
not, it grows the same trees, so a seed proposes the same configurations either way.

The sampler pickles (Optuna's multiprocessing and distributed setups send it to other processes, where it
replays the study's storage), and one sampler may serve several studies in turn, each learnt from its own
trials. Every trial must suggest every parameter of the space: a trial that does not (a conditional
parameter left out, a ``PartialFixedSampler``) teaches the search nothing, and the sampler warns.

Optuna is not a dependency of starchart: ``pip install optuna`` (or ``".[optuna]"``).
"""

from __future__ import annotations

import math
import threading
import warnings
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from starchart._util.configs import plain_value
from starchart._util.validation import Interval, check, check_seed
from starchart.errors import InputError
from starchart.space import Space
from starchart.strategies.encoding import Encoding
from starchart.strategies.engine import SearchOptions, TreeGuidedOptimizer
from starchart.strategies.search import _pool

__all__ = ["StarchartSampler", "UnsupportedStudyError"]

#: The trial system attribute that holds the configuration the sampler proposed (values in space order).
PROPOSAL = "starchart:proposal"

class UnsupportedStudyError(InputError, ValueError):
    """A study the sampler cannot serve (several objectives); a ``ValueError``, as Optuna's samplers raise."""


try:  # a real subclass where Optuna is installed, so Optuna's own checks accept it
    from optuna.samplers import BaseSampler as _Base
except ImportError:  # the module still imports; making a sampler says what to install
    _Base = object  # type: ignore[assignment,misc]


class StarchartSampler(_Base):  # type: ignore[misc,valid-type]
    """An Optuna sampler that runs starchart's tree-guided search over a finite space.

    Parameters
    ----------
    space:
        The settings: ``{name: [values]}`` or a :class:`starchart.Space` (with its restrictions).
    budget:
        The trials planned (sizes the uniform exploration before the model decides); ``None``: 10 first.
    seed:
        Seed of every choice: equal seeds and equal results give equal proposals.
    options:
        :class:`~starchart.strategies.engine.SearchOptions` (for experiments).

    Examples
    --------
    >>> import optuna
    >>> optuna.logging.set_verbosity(optuna.logging.WARNING)
    >>> space = {"x": [1, 2, 3, 4, 5, 6, 7, 8], "y": ["a", "b"]}
    >>> study = optuna.create_study(sampler=StarchartSampler(space, budget=12, seed=0))
    >>> study.optimize(lambda t: (t.suggest_categorical("x", space["x"]) - 6) ** 2
    ...                + (t.suggest_categorical("y", space["y"]) == "a"), n_trials=12)
    >>> study.best_params, len({tuple(t.params.values()) for t in study.trials})
    ({'x': 6, 'y': 'b'}, 12)
    """

    def __init__(self, space: Space | Mapping[str, Sequence[Any]], *, budget: int | None = None,
                 seed: int | None = None, options: SearchOptions | None = None):
        if _Base is object:
            raise InputError("the starchart sampler needs Optuna", where="StarchartSampler",
                             hint="pip install optuna")
        self.space = space if isinstance(space, Space) else Space(_value_lists(space))
        budget = check("budget", budget, None, Interval(int, 1, None), where="StarchartSampler, budget",
                       hint="the number of trials planned, e.g. 100, or leave it out")
        seed = check_seed(seed)
        self.budget, self.seed, self.options = budget, seed, options
        self._encoding = Encoding.from_space(self.space)
        self._lock = threading.Lock()
        self._fallback: Any = None
        self._codes_of: list[dict[Any, int]] | None = None  # per parameter: value -> code (made on first use)
        self._reset(None)

    def _serves(self, study: Any) -> bool:
        """Whether the search state is ``study``'s: the same storage object (held weakly: a storage's ``id`` is
        reused once it is freed) and the same study in it."""
        if self._study is None:
            return False
        storage, study_id = self._study
        return storage() is study._storage and study_id == study._study_id

    def _reset(self, study_key: Any) -> None:
        """Forget the search: a new study (or a copy in another process) learns its own trials from storage."""
        self._study = study_key
        self._optimizer: TreeGuidedOptimizer | None = None
        self._told: set[int] = set()  # numbers of the finished trials the search has learnt from
        self._replaying = True  # until a stored trial differs from what this seed proposes
        self._unmapped: set[int] = set()  # trials said not to teach the search (no configuration of the space)

    def __getstate__(self) -> dict[str, Any]:
        # Optuna's multiprocessing and distributed setups pickle the sampler: the search is rebuilt from the
        # study's storage where it is loaded (a replay of the finished trials gives the same proposals)
        search = ("_lock", "_fallback", "_study", "_optimizer", "_told", "_replaying", "_unmapped", "_codes_of")
        return {key: value for key, value in self.__dict__.items() if key not in search}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._fallback = None
        self._codes_of = None
        self._reset(None)

    def __repr__(self) -> str:
        return f"StarchartSampler({len(self.space.names)} parameters, budget={self.budget!r}, seed={self.seed!r})"

    # ------------------------------------------------------------------ Optuna's sampler interface
    def infer_relative_search_space(self, study: Any, trial: Any) -> dict[str, Any]:
        return {}  # every value comes from the proposal, through sample_independent

    def sample_relative(self, study: Any, trial: Any, search_space: dict[str, Any]) -> dict[str, Any]:
        _single_objective(study)
        return {}

    def before_trial(self, study: Any, trial: Any) -> None:
        """Learn from the trials finished since the last one, then propose this trial's configuration."""
        if len(study.directions) > 1:
            from optuna.trial import TrialState

            # the trial exists already: failed, not left RUNNING in the storage
            study._storage.set_trial_state_values(trial._trial_id, TrialState.FAIL)
            _single_objective(study)
        if "fixed_params" in trial.system_attrs:  # enqueued by the user: measured as given, learnt afterwards
            return
        with self._lock:
            optimizer = self._sync(study)
            if optimizer.pool.evaluated.all():  # this trial measures the best again; none after it
                warnings.warn("every configuration of the space has been measured: the study stops",
                              UserWarning, stacklevel=2)
                try:
                    study.stop()
                except RuntimeError:  # outside study.optimize (study.ask()): nothing to stop, the warning says it
                    pass
                index = _best(optimizer)
            else:
                index = self._ask(study, optimizer, exclude=trial.number)
            values = [plain_value(v) for v in self._encoding.decode(optimizer.pool.codes[index])[0].values()]
            # stored before the lock is released: a trial starting in another thread sees it as running
            study._storage.set_trial_system_attr(trial._trial_id, PROPOSAL, values)

    def sample_independent(self, study: Any, trial: Any, param_name: str, param_distribution: Any) -> Any:
        """The proposed value of ``param_name`` (a parameter outside the space: Optuna's random sampler)."""
        _single_objective(study)
        proposal = trial.system_attrs.get(PROPOSAL)
        if param_name not in self.space.names or proposal is None:
            if param_name not in self.space.names:
                warnings.warn(f"{param_name!r} is not a parameter of the starchart sampler's space "
                              f"({', '.join(self.space.names)}): it is drawn at random", UserWarning, stacklevel=2)
            return self._random().sample_independent(study, trial, param_name, param_distribution)
        value = proposal[self.space.names.index(param_name)]
        try:
            allowed = param_distribution._contains(param_distribution.to_internal_repr(value))
        except (ValueError, TypeError):  # a categorical distribution without this value
            allowed = False
        if not allowed:
            raise InputError(f"the sampler proposes {param_name}={value!r}, which the objective's suggest call "
                             f"does not allow ({param_distribution})", where=f"trial {trial.number}",
                             hint=f"suggest {param_name} from the space's values: "
                                  f"trial.suggest_categorical({param_name!r}, {list(self._values(param_name))})")
        return value

    def after_trial(self, study: Any, trial: Any, state: Any, values: Sequence[float] | None) -> None:
        """Learn the trial's result now (a failed or pruned trial: a failure)."""
        with self._lock:
            if self._optimizer is not None and self._serves(study) and trial.number not in self._told:
                self._tell(self._optimizer, trial.number, trial.params, _result(state, values))

    # ------------------------------------------------------------------ the search behind it
    def _sync(self, study: Any) -> TreeGuidedOptimizer:
        """The optimizer, having learnt every finished trial it has not yet (a study continued from storage:
        replayed in order, so that a seed proposes what it proposed before)."""
        from optuna.trial import TrialState

        if not self._serves(study):  # a sampler reused in another study: that study's trials, from scratch
            self._reset((weakref.ref(study._storage), study._study_id))
        if self._optimizer is None:
            self._optimizer = self._new_optimizer(study)
        optimizer = self._optimizer
        finished = (TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED)
        for past in study.get_trials(deepcopy=False, states=finished):
            if past.number in self._told:
                continue
            index = self._index(past.params)
            if self._replaying and index >= 0 and not optimizer.pool.evaluated[index]:
                self._replaying = bool(optimizer.ask() == index)  # the asks draw from the seeded generator
            self._tell(optimizer, past.number, past.params, _result(past.state, past.values))
        return optimizer

    def _ask(self, study: Any, optimizer: TreeGuidedOptimizer, exclude: int) -> int:
        """The next proposal, leaving out what running trials (other threads) measure."""
        from optuna.trial import TrialState

        self._replaying = False
        running = [self._index(_config(t, self.space.names))
                   for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.WAITING))
                   if t.number != exclude]
        busy = np.array([i for i in running if i >= 0 and not optimizer.pool.evaluated[i]], dtype=np.int64)
        optimizer.pool.evaluated[busy] = True
        try:
            if optimizer.pool.evaluated.all():  # every one left is running elsewhere: measure one again
                return int(busy[0])
            return optimizer.ask()
        finally:
            optimizer.pool.evaluated[busy] = False

    def _tell(self, optimizer: TreeGuidedOptimizer, number: int, params: Mapping[str, Any],
              value: float | None) -> None:
        self._told.add(number)
        index = self._index(params)
        if index < 0:
            self._say_unmapped(number, params)
        elif not optimizer.pool.evaluated[index]:  # a repeat (an enqueued trial) teaches nothing new
            optimizer.tell(index, value)

    def _say_unmapped(self, number: int, params: Mapping[str, Any]) -> None:
        """Warn (once per trial) that a trial taught the search nothing: its parameters are no configuration."""
        if number in self._unmapped or not params:
            return
        self._unmapped.add(number)
        missing = [name for name in self.space.names if name not in params]
        why = (f"it suggested no {', '.join(missing)}" if missing
               else "its values are not among the space's, or break its restrictions")
        warnings.warn(f"trial {number} is not a configuration of the space ({why}), so the search cannot learn "
                      "from it: suggest every parameter of the space in every trial (a conditional parameter "
                      "included, with a value of its list), or use an Optuna sampler for a conditional space",
                      UserWarning, stacklevel=3)

    def _new_optimizer(self, study: Any) -> TreeGuidedOptimizer:
        from optuna.study import StudyDirection


        pool, sampler = _pool(self.space, self._encoding, self.seed, self.space.size_estimate(seed=0))
        return TreeGuidedOptimizer(pool, seed=self.seed, minimize=study.direction == StudyDirection.MINIMIZE,
                                   budget=self.budget, options=self.options, sampler=sampler)

    def _index(self, params: Mapping[str, Any]) -> int:
        """The pool position of a trial's configuration (added to a sampled pool); −1 when it is not one."""
        names = self.space.names
        pool = self._optimizer.pool if self._optimizer is not None else None
        if pool is None or not all(n in params for n in names):
            return -1
        config = {n: plain_value(params[n]) for n in names}
        codes = self._codes(config)
        listed = codes is not None  # every value as the space lists it: validity is still to check
        if codes is None:  # a value not as the space lists it (32.0 for 32, 1 for True): the space decides
            try:
                if not self.space.is_valid(config):
                    return -1
                codes = self._encoding.encode([config])
            except InputError:  # a value the space does not have
                return -1
        index = int(pool.find(codes)[0])
        if index >= 0:
            return index
        if listed and (pool.complete or not self.space.is_valid(config)):  # a whole pool holds every valid one
            return -1
        return int(pool.extend(codes, check=False)[0])

    def _codes(self, config: Mapping[str, Any]) -> np.ndarray | None:
        """The codes of ``config`` (one row) when each value is one of its parameter's, of the same type; else
        ``None``. Dictionaries made once: ``Encoding.encode`` indexes every value of a parameter per call,
        which for a parameter of a million values cost 50 ms a trial."""
        if self._codes_of is None:
            self._codes_of = [dict(zip(values.tolist(), range(len(values)))) for values in self._encoding.values]
        row = np.empty((1, len(self._codes_of)), dtype=np.int64)
        for j, (lookup, value) in enumerate(zip(self._codes_of, config.values())):
            code = lookup.get(value)
            # a dictionary takes 1, 1.0 and True for one key: the type must match too
            if code is None or type(self._encoding.values[j][code]) is not type(value):
                return None
            row[0, j] = code
        return row

    def _values(self, name: str) -> list[Any]:
        return list(self._encoding.values[self.space.names.index(name)])

    def _random(self) -> Any:
        if self._fallback is None:
            from optuna.samplers import RandomSampler

            self._fallback = RandomSampler(seed=self.seed)
        return self._fallback


def _single_objective(study: Any) -> None:
    if len(study.directions) > 1:
        raise UnsupportedStudyError("the starchart sampler optimises one objective", where="StarchartSampler",
                                    hint="create the study with one direction, or use an Optuna sampler for several")


def _value_lists(space: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """The space's value lists, with a warning for a ``(low, high)`` pair (Optuna's ``suggest_int(low, high)``
    habit), which a finite space takes as the two values it names."""
    for name, values in space.items():
        if (isinstance(values, tuple) and len(values) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
                and values[1] - values[0] > 1):
            low, high = values
            every = f"list(range({low}, {high + 1}))" if all(isinstance(v, int) for v in values) else \
                "the values to try, as a list"
            warnings.warn(f"StarchartSampler: {name} = {values} is taken as the two values {low} and {high}, "
                          f"not a range; for every value between, give {every}; a list [{low}, {high}] says "
                          "the two values without this warning", UserWarning, stacklevel=3)
    return dict(space)


def _best(optimizer: TreeGuidedOptimizer) -> int:
    """The pool index of the best configuration measured (the first one when all failed)."""
    values = np.array(optimizer.values, dtype=float)
    if not np.isfinite(values).any():
        return int(optimizer.indices[0])
    scores = np.where(np.isfinite(values), values if optimizer.minimize else -values, np.inf)
    return int(optimizer.indices[int(np.argmin(scores))])


def _config(trial: Any, names: Sequence[str]) -> dict[str, Any]:
    """A running trial's configuration: what it suggested so far, else what the sampler proposed to it."""
    proposal = trial.system_attrs.get(PROPOSAL)
    if proposal is not None:
        return dict(zip(names, proposal))
    return dict(trial.params)


def _result(state: Any, values: Sequence[float] | None) -> float | None:
    """The objective value of a finished trial; ``None`` for a failure (failed, pruned, NaN or infinite)."""
    from optuna.trial import TrialState

    if state != TrialState.COMPLETE or not values:
        return None
    value = float(values[0])
    return value if math.isfinite(value) else None
