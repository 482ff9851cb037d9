"""The registry of search strategies: tree, static, uniform, exhaustive, leaf and plug-ins, driven by one search loop
with the same store, resume and determinism as the tree-guided search."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from starchart.cli import app
from starchart.errors import InputError
from starchart.measure import PythonEvaluator
from starchart.space import Space
from starchart.strategies.registry import STRATEGIES, PoolStrategy, register_strategy, strategy_names
from starchart.strategies.search import resume_search, search
from starchart.study.store import Store

SPACE = Space({"x": list(range(10)), "y": list(range(6))})


def bowl(config):
    return 1.0 + (config["x"] - 7) ** 2 + (config["y"] - 2) ** 2


def configs(result):
    return [(row.x, row.y) for row in result.history.itertuples()]


def test_the_built_in_strategies_are_registered():
    assert strategy_names()[:5] == ["tree", "static", "uniform", "exhaustive", "leaf"]


def test_leaf_sampling_gathers_its_draws_in_the_best_leaf_and_resumes(tmp_path):
    space = Space({"x": list(range(30)), "y": list(range(20))})
    whole = search(PythonEvaluator(cone), space, budget=60, seed=3, strategy="leaf")
    uniform = search(PythonEvaluator(cone), space, budget=60, seed=3, strategy="uniform")
    values = whole.history["time"].to_numpy()
    assert len(set(configs_of(whole))) == 60
    assert values[-20:].mean() < 0.5 * uniform.history["time"].to_numpy()[-20:].mean()  # drawn where it is good
    store = tmp_path / "s.db"
    stopped = search(PythonEvaluator(cone), space, budget=60, seed=3, strategy="leaf", store=store, time_limit=1e-9)
    assert stopped.stopped and Store.open(store).get("search")["strategy"] == "leaf"
    assert configs_of(resume_search(store)) == configs_of(whole)


def cone(c):
    return 1.0 + abs(c["x"] - 21) + 0.7 * abs(c["y"] - 7)


def configs_of(result):
    return [(row.x, row.y) for row in result.history.itertuples()]


def test_uniform_measures_distinct_configurations_and_repeats_for_a_seed():
    first = search(PythonEvaluator(bowl), SPACE, budget=20, seed=5, strategy="uniform")
    again = search(PythonEvaluator(bowl), SPACE, budget=20, seed=5, strategy="uniform")
    other = search(PythonEvaluator(bowl), SPACE, budget=20, seed=6, strategy="uniform")
    assert len(set(configs(first))) == 20
    assert configs(first) == configs(again) != configs(other)


def test_exhaustive_visits_the_space_in_its_order():
    result = search(PythonEvaluator(bowl), SPACE, budget=60, seed=0, strategy="exhaustive")
    assert configs(result) == [(int(r.x), int(r.y)) for r in SPACE.to_frame().itertuples()]
    assert result.best.config == {"x": 7, "y": 2}


STOP = {"after": None, "calls": 0}


def stoppable_bowl(config):
    """:func:`bowl`, interrupted (Ctrl-C) after ``STOP["after"]`` calls; importable, so a store can resume it."""
    if STOP["after"] is not None and STOP["calls"] >= STOP["after"]:
        raise KeyboardInterrupt
    STOP["calls"] += 1
    return bowl(config)


def test_a_uniform_search_is_stored_and_resumes_to_the_same_search(tmp_path, monkeypatch):
    path = tmp_path / "u.db"
    whole = search(PythonEvaluator(bowl), SPACE, budget=15, seed=2, strategy="uniform")
    monkeypatch.setitem(STOP, "after", 6)
    with pytest.raises(KeyboardInterrupt):
        search(PythonEvaluator(stoppable_bowl), SPACE, budget=15, seed=2, strategy="uniform", store=path)
    with Store.open(path, read_only=True) as db:
        assert db.get("search")["strategy"] == "uniform" and len(db) == 6
    monkeypatch.setitem(STOP, "after", None)
    resumed = resume_search(path)                      # the recorded strategy, seed, budget and evaluator
    assert configs(resumed) == configs(whole)
    assert STOP["calls"] == 15                         # the six stored were not measured again


def test_a_tree_search_records_no_strategy_key(tmp_path):
    """Stores of tree-guided searches stay as they were before strategies existed."""
    path = tmp_path / "t.db"
    search(PythonEvaluator(bowl), SPACE, budget=8, seed=1, store=path)
    with Store.open(path, read_only=True) as db:
        assert "strategy" not in db.get("search")


def test_the_default_strategy_is_the_tree_guided_search():
    assert configs(search(PythonEvaluator(bowl), SPACE, budget=25, seed=3)) == \
        configs(search(PythonEvaluator(bowl), SPACE, budget=25, seed=3, strategy="tree"))


def test_an_unknown_strategy_is_refused_before_a_store_is_made(tmp_path):
    with pytest.raises(InputError, match="unknown search strategy 'unifrom'") as info:
        search(PythonEvaluator(bowl), SPACE, budget=5, strategy="unifrom", store=tmp_path / "s.db")
    assert "did you mean 'uniform'" in info.value.hint
    assert not (tmp_path / "s.db").exists()


def test_a_warm_start_guides_only_the_tree(tmp_path):
    prior = search(PythonEvaluator(bowl), SPACE, budget=10, seed=1).to_dataset()
    with pytest.raises(InputError, match="takes no tree options and no warm start"):
        search(PythonEvaluator(bowl), SPACE, budget=5, seed=1, strategy="uniform", prior=prior)


def test_a_registered_strategy_is_driven_like_the_built_in_ones():
    @register_strategy
    class LastFirst(PoolStrategy):
        name = "last-first-example"

        def choose(self, open_: np.ndarray) -> int:
            return int(open_[-1])

    try:
        result = search(PythonEvaluator(bowl), SPACE, budget=3, seed=0, strategy="last-first-example")
        assert configs(result) == [(9, 5), (9, 4), (9, 3)]
    finally:
        del STRATEGIES["last-first-example"]


def test_cli_search_strategy_is_stored_resumed_and_shown(tmp_path):
    space = tmp_path / "s.yaml"
    space.write_text("parameters:\n  x: [1, 2, 3, 4, 5, 6, 7, 8]\n  y: [1, 2, 3]\n")
    store = tmp_path / "s.db"
    command = "python3 -c \"print('time:', abs({x} - 6) + abs({y} - 2) + 1)\""
    runner = CliRunner()
    first = runner.invoke(app, ["search", str(space), "--command", command, "--pattern", r"time: (\S+)",
                                "--budget", "10", "--seed", "4", "--strategy", "uniform", "--store", str(store)])
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, ["resume", str(store)])
    assert again.exit_code == 0, again.output
    assert first.output.splitlines()[-2:] == again.output.splitlines()[-2:]
    assert "strategy uniform" in runner.invoke(app, ["info", str(store)]).output
    bad = runner.invoke(app, ["search", str(space), "--command", "true", "--budget", "2", "--strategy", "bogus"])
    assert bad.exit_code == 2 and "error: --strategy: unknown search strategy 'bogus'" in bad.output
