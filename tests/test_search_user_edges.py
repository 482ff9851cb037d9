"""The tree-guided search at its edges, as a performance engineer meets them: odd values, odd names,
stores that hold more (or other things) than the search asks for, resumes, priors that do not match."""

from __future__ import annotations

import math
import sys

import pandas as pd
import pytest
from typer.testing import CliRunner

from starchart.cli import app
from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.measure import PythonEvaluator
from starchart.space import Space
from starchart.strategies.search import resume_search, search
from starchart.study.store import Store

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
