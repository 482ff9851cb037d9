"""starchart's search as an Optuna sampler: the same proposals as ``starchart.search``, resumable from
Optuna's storage, no configuration measured twice, failures charged, clear errors."""

from __future__ import annotations

import math
import warnings

import pytest
from shared_data import dataset_path

optuna = pytest.importorskip("optuna")  # the test extra installs it; the sampler itself is optional

import starchart  # noqa: E402
from starchart import Space, StarchartSampler  # noqa: E402
from starchart.errors import InputError  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)

SPACE = {"x": list(range(12)), "y": [1, 2, 4, 8, 16], "mode": ["a", "b", "c"]}


def cost(config: dict) -> float:
    """A small landscape with its optimum at x=9, y=4, mode=b."""
    return 1.0 + (config["x"] - 9) ** 2 + 3 * abs(math.log2(config["y"]) - 2) + (config["mode"] != "b") * 5


def suggest(trial, space=SPACE) -> dict:
    return {name: trial.suggest_categorical(name, values) for name, values in space.items()}


def configs(study) -> list[tuple]:
    return [tuple(t.params[n] for n in SPACE) for t in study.trials if t.params]


def test_it_proposes_what_starchart_search_measures_on_a_replayed_gpu_space():
    """Same space, budget and seed: the Optuna study measures the same configurations in the same order as
    starchart.search (failed ones included), so the search benchmark's figures hold for Optuna users."""
    from starchart.explore import search
    from starchart.measure import ReplayEvaluator

    data = starchart.load(dataset_path("convolution/A4000.json.gz"))
    space = Space.from_dataset(data)
    found = search(ReplayEvaluator(data, metrics=["time"]), space, 25, seed=3)
    expected = [tuple(row) for row in found.history[list(space.names)].itertuples(index=False)]
    times = data.frame.set_index(list(space.names))["time"].where(data.valid.to_numpy())
    lookup = dict(zip(times.index, times.to_numpy(dtype=float)))

    def objective(trial):
        value = lookup[tuple(trial.suggest_categorical(n, space.tune_params[n]) for n in space.names)]
        if not math.isfinite(value):
            raise RuntimeError("the kernel failed")
        return value

    study = optuna.create_study(sampler=StarchartSampler(space, budget=25, seed=3))
    study.optimize(objective, n_trials=25, catch=(RuntimeError,))
    measured = [tuple(t.params[n] for n in space.names) for t in study.trials]
    assert measured == expected
    failed = sum(t.state == optuna.trial.TrialState.FAIL for t in study.trials)
    assert failed == found.failures and failed > 0  # failures cost a trial each, as in the search
    assert study.best_value == pytest.approx(found.best.value)


def test_a_study_continued_from_its_storage_goes_on_as_if_it_had_not_stopped(tmp_path):
    storage = f"sqlite:///{tmp_path / 'study.db'}"
    whole = optuna.create_study(sampler=StarchartSampler(SPACE, budget=30, seed=7))
    whole.optimize(lambda t: cost(suggest(t)), n_trials=30)

    first = optuna.create_study(study_name="s", storage=storage, sampler=StarchartSampler(SPACE, budget=30, seed=7))
    first.optimize(lambda t: cost(suggest(t)), n_trials=13)
    again = optuna.load_study(study_name="s", storage=storage, sampler=StarchartSampler(SPACE, budget=30, seed=7))
    again.optimize(lambda t: cost(suggest(t)), n_trials=17)
    assert configs(again) == configs(whole)


def test_no_configuration_twice_failures_and_pruned_trials_charged_and_the_optimum_found():
    def objective(trial):
        config = suggest(trial)
        if config["y"] == 16:
            raise ValueError("out of shared memory")
        if config["x"] == 0:
            raise optuna.TrialPruned()
        return cost(config)

    study = optuna.create_study(sampler=StarchartSampler(SPACE, budget=60, seed=1))
    study.optimize(objective, n_trials=60, catch=(ValueError,))
    seen = configs(study)
    assert len(seen) == 60 and len(set(seen)) == 60
    states = [t.state for t in study.trials]
    assert optuna.trial.TrialState.FAIL in states and optuna.trial.TrialState.PRUNED in states
    assert study.best_params == {"x": 9, "y": 4, "mode": "b"}
    # the failed region is learnt: after the uniform start, fewer failures than uniform draws would meet (1 in 5)
    late = [t for t in study.trials[20:]]
    assert sum(t.params["y"] == 16 for t in late) < len(late) / 5


def test_maximising_restrictions_and_a_space_measured_whole():
    space = Space({"a": [1, 2, 3, 4], "b": [1, 2, 3]}, ["a + b <= 5"])
    study = optuna.create_study(direction="maximize", sampler=StarchartSampler(space, seed=0))
    with pytest.warns(UserWarning, match="every configuration of the space has been measured"):
        study.optimize(lambda t: t.suggest_categorical("a", [1, 2, 3, 4]) * 10 + t.suggest_categorical("b", [1, 2, 3]),
                       n_trials=20)
    pairs = [(t.params["a"], t.params["b"]) for t in study.trials]
    assert all(a + b <= 5 for a, b in pairs)
    assert len(set(pairs)) == space.size() == len(pairs) - 1  # each once, then the best again, and the study stops
    assert study.best_params == {"a": 4, "b": 1} and pairs[-1] == (4, 1)


def test_parallel_trials_are_not_proposed_twice():
    study = optuna.create_study(sampler=StarchartSampler(SPACE, budget=24, seed=2))
    study.optimize(lambda t: cost(suggest(t)), n_trials=24, n_jobs=3)
    assert len(set(configs(study))) == 24


def test_enqueued_trials_are_measured_as_given_and_learnt():
    study = optuna.create_study(sampler=StarchartSampler(SPACE, budget=15, seed=4))
    study.enqueue_trial({"x": 9, "y": 4, "mode": "b"})
    study.optimize(lambda t: cost(suggest(t)), n_trials=15)
    seen = configs(study)
    assert seen[0] == (9, 4, "b") and len(set(seen)) == 15  # the enqueued one is not proposed again


def test_clear_errors():
    with pytest.raises(InputError, match="one objective"):
        study = optuna.create_study(directions=["minimize", "minimize"], sampler=StarchartSampler(SPACE, seed=0))
        study.optimize(lambda t: (cost(suggest(t)), 1.0), n_trials=1)
    study = optuna.create_study(sampler=StarchartSampler(SPACE, seed=0))
    with pytest.raises(InputError, match=r"suggest x from the space's values"):
        study.optimize(lambda t: t.suggest_categorical("x", [100, 200]), n_trials=5)
    with pytest.raises(InputError, match="budget: must be None or an integer ≥ 1"):
        StarchartSampler(SPACE, budget=0)
    study = optuna.create_study(sampler=StarchartSampler(SPACE, seed=0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        study.optimize(lambda t: cost(suggest(t)) + t.suggest_float("extra", 0, 1), n_trials=2)
    assert any("'extra' is not a parameter" in str(w.message) for w in caught)


def test_the_ask_and_tell_interface():
    """study.ask() / study.tell() (no optimize loop): distinct configurations, then the best again with a warning."""
    space = {"a": [1, 2, 3]}
    study = optuna.create_study(sampler=StarchartSampler(space, seed=5))
    for _ in range(3):
        trial = study.ask()
        study.tell(trial, (trial.suggest_categorical("a", space["a"]) - 2) ** 2)
    assert sorted(t.params["a"] for t in study.trials) == [1, 2, 3]
    with pytest.warns(UserWarning, match="every configuration"):
        trial = study.ask()
    assert trial.suggest_categorical("a", space["a"]) == 2


# ----------------------------------------------------------------------------- Optuna's conventions (issue 42)
def test_parallel_trials_never_measure_a_configuration_twice_while_some_are_left():
    """Before: the proposal was stored after the lock was released, so a thread starting in between saw no
    proposal for the running trial and proposed the same configuration (7 of 12 studies with n_jobs=2..4).
    A storage as slow as a database server's (here: 20 ms to store an attribute) widens that gap."""
    import time

    for seed in range(3):
        study = optuna.create_study(sampler=StarchartSampler(SPACE, budget=20, seed=seed))
        storage, store = study._storage, study._storage.set_trial_system_attr

        def slow_store(*args, store=store):
            time.sleep(0.02)
            return store(*args)

        storage.set_trial_system_attr = slow_store
        study.optimize(lambda t: cost(suggest(t)), n_trials=20, n_jobs=4)
        seen = configs(study)
        assert len(seen) == 20 and len(set(seen)) == 20, f"seed {seed}: a configuration measured twice"


def test_one_sampler_in_a_second_study_learns_that_study():
    """Before: trials were remembered by number alone, so the second study's trials 0, 1, ... counted as
    already learnt: the search stayed blind and proposed what the first study had measured."""
    sampler = StarchartSampler(SPACE, budget=15, seed=3)
    first = optuna.create_study(sampler=sampler)
    first.optimize(lambda t: cost(suggest(t)), n_trials=15)
    second = optuna.create_study(sampler=sampler)
    second.optimize(lambda t: cost(suggest(t)), n_trials=15)
    fresh = optuna.create_study(sampler=StarchartSampler(SPACE, budget=15, seed=3))
    fresh.optimize(lambda t: cost(suggest(t)), n_trials=15)
    assert configs(second) == configs(fresh)  # the second study is searched as a new one would be


def test_studies_made_one_after_another_are_each_searched_whole():
    """A study's storage freed, the next one can get its memory address: the sampler must not take the new
    study for the old one (it kept the old search and stopped the new study after one trial)."""
    sampler = StarchartSampler(SPACE, budget=16, seed=3)

    def one_study():
        study = optuna.create_study(sampler=sampler)
        study.optimize(lambda t: cost(suggest(t)), n_trials=16)
        return configs(study)

    first = one_study()
    assert [len(one_study()) for _ in range(3)] == [16, 16, 16] and len(set(first)) == 16


def test_the_sampler_pickles_and_goes_on_from_the_storage(tmp_path):
    """Optuna's multiprocessing and distributed setups pickle the sampler. Before: a thread lock and a
    compiled restriction's closure made that fail, even before any trial."""
    import pickle

    space = Space(SPACE, "x != 3")
    sampler = StarchartSampler(space, budget=12, seed=1)
    assert pickle.loads(pickle.dumps(sampler)).space.tune_params == space.tune_params
    storage = f"sqlite:///{tmp_path / 'study.db'}"
    study = optuna.create_study(study_name="s", storage=storage, sampler=sampler)
    study.optimize(lambda t: cost(suggest(t)), n_trials=6)
    again = pickle.loads(pickle.dumps(sampler))  # mid-study: the copy replays the storage
    study = optuna.load_study(study_name="s", storage=storage, sampler=again)
    study.optimize(lambda t: cost(suggest(t)), n_trials=6)
    whole = optuna.create_study(sampler=StarchartSampler(space, budget=12, seed=1))
    whole.optimize(lambda t: cost(suggest(t)), n_trials=12)
    assert configs(study) == configs(whole) and all(c[0] != 3 for c in configs(study))


def test_a_multi_objective_study_is_refused_without_leaving_a_running_trial():
    study = optuna.create_study(directions=["minimize", "minimize"], sampler=StarchartSampler(SPACE, seed=0))
    with pytest.raises(InputError, match="one objective"):
        study.optimize(lambda t: (cost(suggest(t)), 1.0), n_trials=1)
    running = [t for t in study.trials if t.state == optuna.trial.TrialState.RUNNING]
    assert not running, "the refused trial is left RUNNING in the storage"


def test_a_low_high_pair_is_not_taken_as_two_values_without_a_word():
    with pytest.warns(UserWarning, match=r"x = \(1, 64\) is taken as the two values 1 and 64.*list\(range\(1, 65\)\)"):
        sampler = StarchartSampler({"x": (1, 64), "y": [1, 2]})
    assert sampler.space.tune_params["x"] == [1, 64]  # two values, as a tuple of values means elsewhere
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        StarchartSampler({"x": [1, 64], "y": [1, 2]})  # a list names its values: no warning


def test_trials_that_are_no_configuration_of_the_space_are_said_not_to_teach():
    """A conditional search space (tile sizes suggested only with shared memory) or a PartialFixedSampler:
    before, such trials silently taught the search nothing (2 of 50 learnt, no word)."""
    space = {"shmem": [0, 1], "tile": [1, 2, 4]}

    def conditional(trial):
        shmem = trial.suggest_categorical("shmem", space["shmem"])
        tile = trial.suggest_categorical("tile", space["tile"]) if shmem else 1
        return 10.0 / tile + shmem

    study = optuna.create_study(sampler=StarchartSampler(space, budget=6, seed=0))
    with pytest.warns(UserWarning, match=r"trial \d+ .*not a configuration of the space.*tile"):
        study.optimize(conditional, n_trials=6)


# ----------------------------------------------------------------------------- speed (issue 42): same proposals
def test_the_compiled_tree_kernel_proposes_what_the_interpreted_one_does(monkeypatch):
    """A process compiles the tree kernel once it has grown ``INTERPRETED_WORK`` as Python (a sampler's small fits
    ran it as plain Python for good: 92 % of a trial's time). The compiled kernel must grow the same trees: the
    same proposals, failures and a restriction included."""
    from starchart.tree import _growth

    space = Space(SPACE, "x * y <= 64")

    def objective(trial):
        config = suggest(trial)
        if config["mode"] == "c" and config["x"] < 3:
            raise ValueError("out of shared memory")
        return cost(config)

    def study_configs():
        study = optuna.create_study(sampler=StarchartSampler(space, budget=40, seed=5))
        study.optimize(objective, n_trials=40, catch=(ValueError,))
        return configs(study)

    with monkeypatch.context() as patch:  # every fit as plain Python, and no compiling
        patch.setattr(_growth, "_kernel", lambda name, work: _growth.interpreted_kernels()[name])
        interpreted = study_configs()
    monkeypatch.setattr(_growth, "INTERPRETED_WORK", 0)  # compiled from the first fit
    compiled = study_configs()
    assert _growth._grow_kernel.signatures
    assert compiled == interpreted and len(set(compiled)) == 40


@pytest.mark.parametrize("whole", [True, False], ids=["enumerated pool", "sampled pool"])
def test_a_trial_is_mapped_to_the_pool_as_the_space_and_the_encoding_say(whole, monkeypatch):
    """The sampler maps a finished trial to its configuration through dictionaries made once (before, each trial
    indexed every value of every parameter: 50 ms a trial for a million values). It must map every trial as
    ``Space.is_valid`` and ``Encoding.encode`` do: values of another type (32.0 for 32, 1 for True, numpy
    scalars), values not in the space, restrictions broken, parameters missing."""
    import numpy as np

    from starchart.strategies import search

    if not whole:  # the pool is a sample that grows with the configurations trials bring
        monkeypatch.setattr(search, "ENUMERATE_LIMIT", 10)
    space = Space({"n": [32, 8, 16], "f": [0.5, 1.5], "on": [True, False], "mix": [True, "a", None, 2.5]},
                  "n * f <= 24 or not on")

    def reference(sampler, params):  # the mapping before the dictionaries
        names = sampler.space.names
        if not all(n in params for n in names):
            return -1
        config = {n: params[n].item() if isinstance(params[n], np.generic) else params[n] for n in names}
        try:
            if not sampler.space.is_valid(config):
                return -1
            codes = sampler._encoding.encode([config])
        except InputError:
            return -1
        pool = sampler._optimizer.pool
        index = int(pool.find(codes)[0])
        return index if index >= 0 else int(pool.extend(codes, check=False)[0])

    values = {"n": [32, 8, 16, 32.0, 8.0, np.int64(16), 7, True, "32"],
              "f": [0.5, 1.5, 1, np.float64(0.5), 2.5, None],
              "on": [True, False, 1, 0, np.bool_(True), "True"],
              "mix": [True, "a", None, 2.5, 1, 1.0, False, "b", np.float64(2.5)]}
    rng = np.random.default_rng(0)
    trials = [{name: options[rng.integers(len(options))] for name, options in values.items()} for _ in range(400)]
    trials += [{"n": 32, "f": 1.5, "on": True, "mix": "a"}, {"n": 32, "f": 1.5, "on": False, "mix": "a"},  # listed:
               {"n": 32, "f": 0.5, "on": True}, {}]  # invalid, then valid; a parameter missing; none
    fast, slow = StarchartSampler(space, seed=0), StarchartSampler(space, seed=0)
    for sampler in (fast, slow):
        sampler._sync(optuna.create_study(sampler=sampler))
    assert fast._optimizer.pool.complete == whole
    mapped = [fast._index(params) for params in trials]
    assert mapped == [reference(slow, params) for params in trials]
    assert (fast._optimizer.pool.codes == slow._optimizer.pool.codes).all()
    assert 0 < sum(i >= 0 for i in mapped) < len(mapped)
