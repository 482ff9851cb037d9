"""Tree-guided search: determinism, budget, failures, resuming, quality on a real space, Kernel Tuner."""

from __future__ import annotations

import gzip
import importlib
import json
import math
import shutil
import sys

import numpy as np
import pandas as pd
import pytest
from shared_data import dataset_path
from typer.testing import CliRunner

from starchart.cli import app
from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.io.load import load
from starchart.measure import PythonEvaluator, ReplayEvaluator
from starchart.space import Space
from starchart.strategies.engine import SearchOptions, TreeGuidedOptimizer
from starchart.strategies.registry import STRATEGIES
from starchart.strategies.search import resume_search, search
from starchart.study.store import Store

search_module = importlib.import_module("starchart.strategies.search")  # the module, not the function

SPACE = Space({"x": list(range(16)), "y": list(range(12)), "mode": ["a", "b", "c"]}, ["x + y < 24"])


def objective(config):
    """Smooth bowl with a categorical effect and a crashing corner (module level: resumable)."""
    if config["x"] >= 14 and config["y"] >= 8:
        raise RuntimeError("out of registers")
    return 1.0 + (config["x"] - 9) ** 2 + 0.5 * (config["y"] - 3) ** 2 + {"a": 4.0, "b": 0.0, "c": 9.0}[config["mode"]]


def keys(history, names=("x", "y", "mode")):
    return [tuple(row) for row in history[list(names)].itertuples(index=False)]


def test_same_seed_same_search_and_no_configuration_twice():
    first = search(PythonEvaluator(objective), SPACE, budget=40, seed=7)
    again = search(PythonEvaluator(objective), SPACE, budget=40, seed=7)
    other = search(PythonEvaluator(objective), SPACE, budget=40, seed=8)
    pd.testing.assert_frame_equal(first.history, again.history)
    assert keys(first.history) != keys(other.history)
    assert len(set(keys(first.history))) == 40 == len(first.history)
    assert SPACE.contains(first.history).all()
    assert first.seed == 7 and first.budget == 40


def test_budget_spent_exactly_best_and_curve():
    result = search(PythonEvaluator(objective), SPACE, budget=50, seed=1)
    assert list(result.history["step"]) == list(range(1, 51))
    values = result.history["time"].to_numpy()
    best = result.best
    assert best.value == np.nanmin(values) and best.config == dict(zip(("x", "y", "mode"), keys(
        result.history.iloc[[best.step - 1]])[0]))
    curve = result.best_so_far.to_numpy()
    assert np.all(np.diff(curve[~np.isnan(curve)]) <= 0)
    assert curve[-1] == best.value
    assert best.value <= 2.0  # the optimum is 1.0 (x=9, y=3, b); 50 of 546 configurations find it or a neighbour


def test_failures_count_against_the_budget_and_are_recorded():
    def mostly_failing(config):
        if config["x"] < 12:
            raise RuntimeError("launch failed")
        return objective(config)

    result = search(PythonEvaluator(mostly_failing), SPACE, budget=30, seed=3)
    failed = result.history[result.history["status"] != "ok"]
    assert len(result.history) == 30 and result.failures == len(failed) > 0
    assert failed["time"].isna().all() and failed["reason"].str.contains("launch failed").all()
    # once the failure region is learnt, the search stays mostly out of it
    late = result.history.iloc[15:]
    assert (late["status"] == "ok").mean() > (result.history.iloc[:10]["status"] == "ok").mean() - 0.1
    assert (late["status"] == "ok").mean() >= 0.5


def test_a_search_where_everything_fails_has_no_best():
    def broken(config):
        raise RuntimeError("no device")

    result = search(PythonEvaluator(broken), SPACE, budget=12, seed=0)
    assert result.best is None and result.failures == 12 and result.best_so_far.isna().all()
    assert len(set(keys(result.history))) == 12


def test_maximises_when_the_evaluator_says_so():
    result = search(PythonEvaluator(lambda c: -objective(c), minimize=False), SPACE, budget=40, seed=2)
    assert result.best.value == np.nanmax(result.history["time"])
    assert result.best.value >= -3.0


def test_a_rate_learnt_from_the_first_dict_returned_is_maximised():
    def rates(config):
        gflops = 100.0 - (config["x"] - 9) ** 2 - (config["y"] - 3) ** 2
        return {"GFLOP/s": gflops, "time": 1.0 / gflops}

    learnt = PythonEvaluator(rates)
    result = search(learnt, SPACE, budget=30, seed=2)
    named = search(PythonEvaluator(rates, metrics=["GFLOP/s", "time"]), SPACE, budget=30, seed=2)
    assert learnt.objective == "GFLOP/s" and not learnt.minimize and not result.minimize
    pd.testing.assert_frame_equal(result.history, named.history)  # searched as if the metrics were named
    assert result.best.value == result.history["GFLOP/s"].max()
    forced = PythonEvaluator(rates, minimize=True)
    forced.evaluate({"x": 1, "y": 1, "mode": "a"})
    assert forced.objective == "GFLOP/s" and forced.minimize  # a direction given is kept


def test_initial_configurations_come_first_and_count():
    start = [{"x": 0, "y": 0, "mode": "a"}, {"x": 9, "y": 3, "mode": "b"}]
    result = search(PythonEvaluator(objective), SPACE, budget=10, seed=0, initial=start)
    assert keys(result.history)[:2] == [(0, 0, "a"), (9, 3, "b")] and len(result.history) == 10
    with pytest.raises(InputError, match="not in the space"):
        search(PythonEvaluator(objective), SPACE, budget=10, initial=[{"x": 15, "y": 11, "mode": "a"}])


@pytest.mark.parametrize("budget", [0, -3, 2.5, True, "10"])
def test_bad_budget_is_one_clear_error(budget):
    with pytest.raises(InputError, match="budget: must be an integer ≥ 1"):
        search(PythonEvaluator(objective), SPACE, budget=budget)


def test_budget_larger_than_the_space_is_refused_and_the_whole_space_allowed():
    small = Space({"x": [1, 2, 3], "y": [1, 2]})
    with pytest.raises(InputError, match="more than the 6 valid configurations") as info:
        search(PythonEvaluator(lambda c: c["x"] * c["y"]), small, budget=7)
    assert "budget=6" in info.value.hint
    whole = search(PythonEvaluator(lambda c: c["x"] * c["y"]), small, budget=6, seed=0)
    assert len(set(keys(whole.history, ("x", "y")))) == 6 and whole.best.value == 1


def test_wrong_argument_types_are_clear():
    with pytest.raises(InputError, match="starchart.Space"):
        search(PythonEvaluator(objective), {"x": [1, 2]}, budget=1)
    with pytest.raises(InputError, match="evaluator"):
        search(objective, SPACE, budget=1)


class Interrupting(PythonEvaluator):
    """Stops the search (like Ctrl-C) after a number of evaluations."""

    def __init__(self, fn, after):
        super().__init__(fn)
        self.after, self.calls = after, 0

    def evaluate(self, config):
        if self.calls == self.after:
            raise KeyboardInterrupt
        self.calls += 1
        return super().evaluate(config)


def test_store_records_everything_and_an_interrupted_search_resumes(tmp_path):
    path = tmp_path / "search.db"
    whole = search(PythonEvaluator(objective), SPACE, budget=30, seed=5)
    with pytest.raises(KeyboardInterrupt):
        search(Interrupting(objective, after=12), SPACE, budget=30, seed=5, store=path)
    with Store.open(path) as db:
        assert len(db) == 12 and db.get("search")["budget"] == 30
    resumed_evaluator = Interrupting(objective, after=10**9)
    resumed = search(resumed_evaluator, SPACE, budget=30, seed=5, store=path)
    assert resumed_evaluator.calls == 18  # only what the first call had not measured
    pd.testing.assert_frame_equal(resumed.history, whole.history)
    with Store.open(path) as db:
        ds = db.to_dataset()
    assert len(ds) == 30 and set(keys(ds.frame)) == set(keys(whole.history))


def test_a_finished_search_resumes_to_its_result_without_refitting(tmp_path, monkeypatch):
    path = tmp_path / "done.db"
    first = search(PythonEvaluator(objective), SPACE, budget=20, seed=4, store=path)
    asked = []

    class Counting(TreeGuidedOptimizer):
        def ask(self):
            asked.append(1)
            return super().ask()

    monkeypatch.setitem(STRATEGIES, "tree", Counting)  # the strategy registry: what the search drives
    again = search(Interrupting(objective, after=0), SPACE, budget=20, seed=4, store=path)
    resumed = search_module.resume_search(path)
    assert asked == []  # the stored result at once: no model refitted, nothing measured
    pd.testing.assert_frame_equal(again.history, first.history)
    pd.testing.assert_frame_equal(resumed.history, first.history)
    assert resumed.best == first.best and len(resumed.measurements) == 20


def test_a_search_session_records_the_environment_as_a_run_does(tmp_path):
    """Before: a search's session had no environment, so its store's dataset reported none."""
    path = tmp_path / "env.db"
    search(PythonEvaluator(objective), SPACE, budget=5, seed=1, store=path)
    with Store.open(path) as db:
        (session,) = db.get("sessions")
        environment = db.to_dataset().meta.get("environment")
    assert session["search"] is True and session["evaluator"]["kind"] == "python"
    assert environment is not None and environment == session["environment"] and "python" in environment


def test_a_store_from_another_search_is_learnt_from_not_measured_again(tmp_path):
    path = tmp_path / "other.db"
    search(PythonEvaluator(objective), SPACE, budget=10, seed=1, store=path)
    evaluator = Interrupting(objective, after=10**9)
    result = search(evaluator, SPACE, budget=25, seed=2, store=path)
    assert evaluator.calls == 15 and len(result.history) == 25
    assert len(set(keys(result.history))) == 25


def test_a_store_keeps_the_settings_of_an_earlier_search_and_its_seed_by_default(tmp_path):
    path = tmp_path / "s.db"
    search(PythonEvaluator(objective), SPACE, budget=10, seed=1, store=path)
    search(PythonEvaluator(objective), SPACE, budget=25, seed=2, store=path)
    again = search(PythonEvaluator(objective), SPACE, budget=25, store=path)  # no seed: the stored one
    assert again.seed == 2
    with Store.open(path) as db:
        settings = db.get("search")
    assert (settings["seed"], settings["budget"]) == (2, 25)
    assert [(e["seed"], e["budget"]) for e in settings["earlier"]] == [(1, 10)]


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, True])
def test_a_bad_seed_is_a_clear_error(seed):
    with pytest.raises(InputError, match="seed: must be None or an integer from 0 to 4294967295"):
        search(PythonEvaluator(objective), SPACE, budget=5, seed=seed)


def test_spaces_too_large_to_enumerate_search_a_growing_sample(monkeypatch):
    monkeypatch.setattr(search_module, "ENUMERATE_LIMIT", 100)
    result = search(PythonEvaluator(objective), SPACE, budget=40, seed=4)
    assert len(set(keys(result.history))) == 40 and SPACE.contains(result.history).all()
    assert result.best.value <= 3.0


POWERS_OF_TWO = [2 ** k for k in range(11)]
THREADS_SPACE = Space({"bx": POWERS_OF_TWO, "by": POWERS_OF_TWO, "unroll": list(range(1, 9))})


def threads_per_block(config):
    """Fastest at 256 threads per block (any bx × by = 256) and unroll 3: a diagonal optimum."""
    return 1.0 + abs(math.log2(config["bx"] * config["by"]) - 8) + 0.3 * abs(config["unroll"] - 3)


def test_trees_that_split_on_parameter_products_find_a_diagonal_optimum():
    """Same seeds, one run: offered bx × by as a feature, the trees find the optimum every time; without it, not."""
    found = {}
    for products in (True, False):
        options = SearchOptions(pair_products=products)
        found[products] = sum(search(PythonEvaluator(threads_per_block), THREADS_SPACE, budget=30, seed=seed,
                                     options=options).best.value == 1.0 for seed in range(8))
    assert found[True] == 8 and found[False] < 8, found


@pytest.fixture(scope="module")
def convolution():
    return load(dataset_path("convolution/A100.json.gz"))


def test_beats_uniform_random_sampling_on_a_real_space(convolution):
    """Same budget, same seeds, one run: the tree-guided search finds faster kernels than random sampling."""
    space = Space.from_dataset(convolution)
    evaluator = ReplayEvaluator(convolution, metrics=["time"])
    optimum = np.nanmin(convolution.frame["time"])
    ours, uniform = [], []
    for seed in range(4):
        result = search(evaluator, space, budget=50, seed=seed)
        ours.append(optimum / result.best.value)
        drawn = space.sample(50, seed=seed).merge(convolution.frame, on=list(space.names))
        uniform.append(optimum / np.nanmin(drawn["time"]))
    assert np.median(ours) > np.median(uniform) + 0.05, (ours, uniform)
    assert np.median(ours) >= 0.8


def test_kernel_tuner_runs_our_strategy_in_simulation_mode(convolution, tmp_path):
    kernel_tuner = pytest.importorskip("kernel_tuner")
    from constraint import FunctionConstraint

    from starchart.explore import kernel_tuner_strategy
    from starchart.integrations.kernel_tuner_strategy import StarchartStrategy

    cache = tmp_path / "convolution_A100.json"
    with gzip.open(dataset_path("convolution/A100.json.gz"), "rb") as src, open(cache, "wb") as dst:
        shutil.copyfileobj(src, dst)
    data = json.loads(cache.read_text())
    names = data["tune_params_keys"]
    # every cached configuration, failed ones too: a failure then costs an evaluation
    present = {tuple(entry[n] for n in names) for entry in data["cache"].values()}

    def tune(strategy, options):
        return kernel_tuner.tune_kernel(
            data["kernel_name"], "", tuple(data["problem_size"]), [], data["tune_params"],
            restrictions=[FunctionConstraint(lambda *values: values in present)], cache=str(cache),
            simulation_mode=True, strategy=strategy, strategy_options=options, quiet=True,
            objective="time", objective_higher_is_better=False)

    results, env = tune(StarchartStrategy(seed=1), {"max_fevals": 50})
    evaluated = [tuple(r[n] for n in names) for r in results]
    assert len(evaluated) == len(set(evaluated)) == 50
    assert all(config in present for config in evaluated)
    times = [r["time"] for r in results if "__error__" not in r]
    optimum = min(e["time"] for e in data["cache"].values() if isinstance(e["time"], float))
    assert optimum / min(times) >= 0.5 and env["best_config"]["time"] == min(times)
    again, _ = tune(StarchartStrategy(seed=1), {"max_fevals": 50})
    assert [tuple(r[n] for n in names) for r in again] == evaluated
    # the module itself is a strategy too, and strategy_options may carry the seed
    module_results, _ = tune(kernel_tuner_strategy, {"max_fevals": 20, "seed": 1})
    assert len(module_results) == 20
    with pytest.raises(ValueError, match="Unrecognized option"):
        tune(StarchartStrategy(), {"max_fevals": 5, "popsize": 3})
    # warm start from another GPU's measurements of the same space
    cold, _ = tune(StarchartStrategy(seed=1), {"max_fevals": 20})
    warm, _ = tune(StarchartStrategy(seed=1), {"max_fevals": 20, "prior": dataset_path("convolution/A6000.json.gz")})
    assert len(warm) == 20 and [tuple(r[n] for n in names) for r in warm] != [tuple(r[n] for n in names) for r in cold]


def test_kernel_tuner_strategy_checks_x0_seed_and_initial(tmp_path):
    """x0 used to be zipped with the parameter names as given: a short list became NaNs (an error about
    'configuration 0: tile_size_x=nan'), and an x0 the restrictions exclude was silently skipped. A bad
    seed or initial surfaced as numpy's or int()'s error, not naming the option."""
    kernel_tuner = pytest.importorskip("kernel_tuner")
    from starchart.dataset import Dataset
    from starchart.integrations.kernel_tuner_strategy import StarchartStrategy

    rows = [{"a": a, "b": b, "c": c, "time": float(a * {"x": 1, "y": 2}[b] + c)}
            for a in (1, 2, 4, 8) for b in ("x", "y") for c in (0.5, 1.5)]
    cache = tmp_path / "cache.json"
    Dataset.from_frame(pd.DataFrame(rows), metrics=["time"]).to_kernel_tuner(cache)
    data = json.loads(cache.read_text())

    def tune(options, strategy=None):
        return kernel_tuner.tune_kernel(data["kernel_name"], "", 1, [], data["tune_params"], restrictions=["a * c > 1"],
                                        cache=str(cache), simulation_mode=True, quiet=True,
                                        strategy=strategy or StarchartStrategy(seed=1), strategy_options=options)

    results, _ = tune({"max_fevals": 4, "x0": [8, "y", 1.5]})
    assert [(r["a"], r["b"], r["c"]) for r in results][0] == (8, "y", 1.5) and len(results) == 4
    bad = {"x0": ([8, "y"], "one value per tunable parameter"),
           "x0 ": ([3, "y", 1.5], r"a=3, which is not among its values \[1, 2, 4, 8\]"),
           "x0  ": ([1, "x", 0.5], "restrictions exclude it"),
           "seed": (-1, "seed of the starchart strategy: must be None or an integer from 0"),
           "initial": ("ten", "initial of the starchart strategy: must be None or an integer ≥ 0")}
    for key, (value, message) in bad.items():
        with pytest.raises(InputError, match=message) as caught:
            tune({"max_fevals": 4, key.strip(): value})
        assert caught.value.where == f"{key.strip()} of the starchart strategy"
    with pytest.raises(InputError, match="seed of the starchart strategy: must be"):
        tune({"max_fevals": 4}, StarchartStrategy(seed=1.5))


def test_cli_search_errors_name_the_options(tmp_path):
    from typer.testing import CliRunner

    from starchart.cli import app

    data = dataset_path("energy/synthetic_fp32_cache_NVIDIA_A100-PCIE-40GB.json")  # 81 configurations
    result = CliRunner().invoke(app, ["search", "--replay", str(data), "--budget", "100"])
    assert result.exit_code == 2
    assert "error: --budget: budget 100 is more than the 81 valid configurations" in result.output
    assert "use --budget 81 to measure the whole space" in result.output
    result = CliRunner().invoke(app, ["search", "--replay", str(data), "--budget", "5", "--prior",
                                      str(tmp_path / "missing.json")])
    assert result.exit_code == 2 and "error: --prior: " in result.output and "is not a file" in result.output


# ---------------------------------------------------------------------- review rounds (test_search_user_edges)
# The tree-guided search at its edges, as a performance engineer meets them: odd values, odd names,
# stores that hold more (or other things) than the search asks for, resumes, priors that do not match.


BOWL = Space({"x": list(range(20)), "y": list(range(20))})


def bowl(config):
    """Module level, so a store can rebuild it."""
    return 1.0 + (config["x"] - 13) ** 2 + (config["y"] - 4) ** 2


RATE_CALLS: list[dict] = []


STOP_AT: list[int] = [0]


def rate(config):
    """A rate learnt from the first dict returned (maximised); raises Ctrl-C at call STOP_AT[0] when set."""
    RATE_CALLS.append(config)
    if STOP_AT[0] and len(RATE_CALLS) == STOP_AT[0]:
        raise KeyboardInterrupt
    return {"GFLOP/s": 1100.0 - (config["x"] - 13) ** 2 - (config["y"] - 4) ** 2}


class Counting(PythonEvaluator):
    """Counts what it actually measures."""

    def __init__(self, fn):
        super().__init__(fn)
        self.calls = 0

    def evaluate(self, config):
        self.calls += 1
        return super().evaluate(config)


def test_infinite_values_count_as_failures_and_the_cli_says_so(tmp_path):
    """Before: a run that printed inf was status ok, so the summary said '0 failed' beside
    'no valid result: every evaluation failed', with no line saying why."""
    space = Space({"x": list(range(8))})
    result = search(PythonEvaluator(lambda c: [math.inf, -math.inf, 2.0, 1.0][c["x"] % 4]), space, 8, seed=0)
    assert result.failures == 4 and result.best.value == 1.0
    assert "(seed 0, 4 failed)" in result.summary()
    (tmp_path / "space.yaml").write_text("parameters:\n  x: [1, 2, 3]\n")
    out = CliRunner().invoke(app, ["search", str(tmp_path / "space.yaml"), "--budget", "3", "--seed", "1",
                                   "--command", f"{sys.executable} -c \"print(float('inf'))\"",
                                   "--pattern", r"(\S+)"])
    assert out.exit_code == 1, out.output  # nothing to tune with: a script must see it
    assert "no finite time: 3 of 3 evaluations ran but gave no finite value" in out.output
    assert "3 evaluations of 3 (seed 1, 3 failed)" in out.output


def test_a_store_holding_more_than_the_budget_is_refused_not_cut_short(tmp_path):
    """Before: a budget-10 search on a store of 40 took 10 of them and reported their best (18), while the
    store held the optimum (1); and it overwrote the store's search settings."""
    path = tmp_path / "s.db"
    search(PythonEvaluator(bowl), BOWL, 40, seed=1, store=path)
    evaluator = Counting(bowl)
    with pytest.raises(InputError, match=r"already holds 40 measured configurations.*budget of 10") as error:
        search(evaluator, BOWL, 10, seed=3, store=path)
    assert "budget=40 or more" in error.value.hint and evaluator.calls == 0
    with Store.open(path) as db:
        assert (db.get("search")["budget"], db.get("search")["seed"]) == (40, 1) and len(db) == 40
    assert search(PythonEvaluator(bowl), BOWL, 40, store=path).best.value == 1.0  # still resumes as it was


def test_the_command_line_names_budget_when_the_store_holds_more(tmp_path):
    (tmp_path / "space.yaml").write_text("parameters:\n  x: [1, 2, 3, 4, 5, 6]\n")
    prog = f"{sys.executable} -c \"print('time:', abs({{x}} - 4) + 1)\""
    args = ["search", str(tmp_path / "space.yaml"), "--command", prog, "--pattern", r"time: (\S+)",
            "--store", str(tmp_path / "s.db"), "--seed", "2"]
    assert CliRunner().invoke(app, [*args, "--budget", "5"]).exit_code == 0
    out = CliRunner().invoke(app, [*args, "--budget", "3"])
    assert out.exit_code == 2 and "Traceback" not in out.output
    assert "already holds 5 measured configurations" in out.output and "--budget 5 or more" in out.output


def test_stored_results_outside_a_restricted_space_do_not_crowd_out_the_others(tmp_path):
    """Before: the stored results learnt from were cut to the budget before those outside the (now restricted)
    space were dropped, so results inside it were neither learnt from nor kept: measured again instead."""
    path = tmp_path / "s.db"
    first = search(PythonEvaluator(bowl), BOWL, 16, seed=1, store=path)
    restricted = Space({"x": list(range(20)), "y": list(range(20))}, ["x >= 10"])
    inside = [k for k in zip(first.history["x"], first.history["y"]) if k[0] >= 10]
    # the first stored results lie outside the restricted space: the old cut kept too few of the rest
    assert 0 < len(inside) < 16 and first.history["x"].iloc[0] < 10
    budget = len(inside) + 3
    evaluator = Counting(bowl)
    result = search(evaluator, restricted, budget, seed=2, store=path)
    done = list(zip(result.history["x"], result.history["y"]))
    assert set(inside) <= set(done) and len(set(done)) == budget
    assert evaluator.calls == 3  # only what the store did not hold


@pytest.mark.parametrize("name", ["step", "status", "reason", "best_so_far", "time"])
def test_parameter_names_the_history_needs_are_refused_before_measuring(name):
    """Before: a parameter 'step' silently replaced the step column; 'status' or 'time' crashed
    summary() or .best with a TypeError after everything was measured."""
    evaluator = Counting(lambda c: 1.0)
    with pytest.raises(InputError, match=f"parameter '{name}' has the name of") as error:
        search(evaluator, Space({name: [1, 2, 3], "b": [1, 2]}), 3, seed=0)
    assert "rename" in error.value.hint and evaluator.calls == 0


def test_initial_configurations_given_wrongly_are_clear_errors():
    """Before: initial={'x': 3} raised a bare ValueError; a missing parameter a SpaceError about 'configurations'."""
    space = Space({"x": list(range(10)), "y": [1, 2]})
    with pytest.raises(InputError, match="initial must be a list of configurations, got dict"):
        search(PythonEvaluator(lambda c: 1.0), space, 3, seed=0, initial={"x": 3, "y": 1})
    with pytest.raises(InputError, match=r"initial\[1\] is not a configuration"):
        search(PythonEvaluator(lambda c: 1.0), space, 3, seed=0, initial=[{"x": 3, "y": 1}, 4])
    with pytest.raises(InputError, match="lack the parameter") as error:
        search(PythonEvaluator(lambda c: 1.0), space, 3, seed=0, initial=[{"x": 3}])
    assert error.value.where == "initial" and "y" in str(error.value)


def test_a_prior_whose_values_never_match_names_the_parameter():
    """Before: 'only 0 valid configurations of the prior lie in the space', with the hint to measure more."""
    rows = [{"x": x, "mode": m, "time": 1.0 + x} for x in range(10) for m in ("on", "off")]
    prior = Dataset.from_frame(pd.DataFrame(rows), params=["x", "mode"], metrics=["time"])
    space = Space({"x": list(range(10)), "mode": [0, 1]})
    with pytest.raises(InputError, match=r"only 0 valid configurations .*: none of its values of mode "
                                         r"\('on', 'off'\) is one of the space's values \(0, 1\)") as error:
        search(PythonEvaluator(lambda c: 1.0 + c["x"]), space, 5, seed=0, prior=prior)
    assert "spelt as the space spells them" in error.value.hint


def test_none_among_the_values_keeps_every_value_as_it_was():
    """Before: pandas made None NaN and 32 beside it 32.0, in the history and in .best's config."""
    space = Space({"regs": [None, 32, 64], "bx": [1, 2]})
    result = search(PythonEvaluator(lambda c: (5.0 if c["regs"] is None else c["regs"] / 32) * c["bx"]), space, 6,
                    seed=0)
    assert result.best.config == {"regs": 32, "bx": 1} and type(result.best.config["regs"]) is int
    assert set(result.history["regs"]) == {None, 32, 64}


def test_a_resumed_search_learns_a_learnt_objective_from_the_store(tmp_path):
    """Before: a resumed search read the stored results of a function returning {'GFLOP/s': ...} by the
    default objective (time), as failures, and searched on another way than the uninterrupted search."""
    whole = search(PythonEvaluator(rate), BOWL, 25, seed=1)
    RATE_CALLS.clear()
    STOP_AT[0] = 9
    path = tmp_path / "s.db"
    try:
        with pytest.raises(KeyboardInterrupt):
            search(PythonEvaluator(rate), BOWL, 25, seed=1, store=path)
    finally:
        STOP_AT[0] = 0
    RATE_CALLS.clear()
    resumed = search(PythonEvaluator(rate), BOWL, 25, seed=1, store=path)
    assert len(RATE_CALLS) == 25 - 8 and resumed.objective == "GFLOP/s" and not resumed.minimize
    pd.testing.assert_frame_equal(resumed.history, whole.history)
    with Store.open(path) as db:
        assert (db.get("search")["objective"], db.get("search")["minimize"]) == ("GFLOP/s", False)
        assert "earlier" not in db.get("search")
    again = resume_search(path)  # finished: the stored result, read by the learnt objective
    pd.testing.assert_frame_equal(again.history, whole.history)


def test_a_space_whose_valid_configurations_are_rare_starts_from_a_smaller_pool():
    """Before: a large space where one in ten draws is valid stopped with Space.sample's error ("ask for
    fewer samples", which a search user cannot do) when 20,000 starting candidates needed more draws than allowed."""
    space = Space({f"p{i}": list(range(20)) for i in range(6)}, ["p0 < 2"])
    space.max_draws = 50_000  # 20,000 valid need about 200,000 draws; 2,000 need 20,000
    result = search(PythonEvaluator(lambda c: 1.0 + sum(c.values())), space, 12, seed=0)
    assert len(result.history) == 12 and (result.history["p0"] < 2).all()


def test_a_space_with_no_valid_configuration_found_by_drawing_is_a_search_error():
    space = Space({f"p{i}": list(range(40)) for i in range(8)}, ["p0 + p1 + p2 + p3 + p4 + p5 + p6 + p7 == 3"])
    space.max_draws = 100_000
    with pytest.raises(InputError, match="too few valid configurations to find by random draws"):
        search(PythonEvaluator(lambda c: 1.0), space, 5, seed=0)


def test_a_search_where_everything_failed_says_what_failed_most_and_the_cli_says_it_once(tmp_path):
    """Before: the summary said only 'every evaluation failed'; a user of the Python API had to dig in
    ``history`` to learn that the function took the wrong arguments."""
    space = Space({"x": list(range(8))})
    result = search(PythonEvaluator(lambda x, y: 1.0), space, 4, seed=0)  # takes the config dict, not x=, y=
    assert "failed; most often (4 of 4) runtime: TypeError: " in result.summary()
    assert result.summary().endswith("<lambda>() missing 1 required positional argument: 'y'"), result.summary()
    assert "most often" not in result.summary(reasons=False)
    (tmp_path / "space.yaml").write_text("parameters:\n  x: [1, 2, 3]\n")
    out = CliRunner().invoke(app, ["search", str(tmp_path / "space.yaml"), "--budget", "3", "--seed", "1",
                                   "--command", f"{sys.executable} -c \"raise SystemExit('no device')\""])
    assert out.exit_code == 1, out.output
    assert out.output.count("no device") == 1, out.output  # the failure reasons above the summary, not twice
