"""A search with a time limit: it stops between rounds, says so, and a resume continues it exactly."""

from __future__ import annotations

import importlib
import itertools
import math
import time

import pytest
from typer.testing import CliRunner

from starchart.cli import app
from starchart.errors import InputError
from starchart.measure import PythonEvaluator
from starchart.space import Space
from starchart.strategies.search import resume_search, search
from starchart.study.store import Store

search_module = importlib.import_module("starchart.strategies.search")  # the package's `search` is the function
SPACE = Space({"x": list(range(12)), "y": list(range(10))})


def bowl(config):
    return 1.0 + (config["x"] - 8) ** 2 + 0.5 * (config["y"] - 3) ** 2


@pytest.fixture()
def ticking_clock(monkeypatch):
    """A clock one second later each time it is read: a limit of N seconds allows a known number of rounds."""
    ticks = itertools.count()
    monkeypatch.setattr(search_module, "_clock", lambda: float(next(ticks)))
    return ticks


@pytest.mark.parametrize("workers", [1, 3])
def test_a_time_limit_stops_between_rounds_and_the_rest_resumes_to_the_same_search(tmp_path, ticking_clock,
                                                                                     workers):
    store = tmp_path / "s.db"
    # read at the start (0), then before every round after the first: 1 … 5 are before 5.5, 6 stops it
    stopped = search(PythonEvaluator(bowl), SPACE, budget=40, seed=4, store=store, workers=workers,
                     time_limit=5.5)
    assert len(stopped.history) == 6 * workers
    assert stopped.stopped == f"stopped at its time limit (5.5 s) with {40 - 6 * workers} of the budget left"
    assert stopped.stopped in stopped.summary().splitlines()[1]
    with Store.open(store) as db:
        assert len(db) == 6 * workers  # every result of the stopped rounds is kept
    continued = search(PythonEvaluator(bowl), SPACE, budget=40, seed=4, store=store, workers=workers)
    whole = search(PythonEvaluator(bowl), SPACE, budget=40, seed=4, workers=workers)
    assert continued.stopped is None and len(continued.history) == 40
    assert continued.history.equals(whole.history)  # the stop changed nothing the search proposes


def test_a_limit_shorter_than_one_round_still_measures_one(tmp_path, monkeypatch):
    times = iter([0.0] + [1e9] * 100)  # the limit has passed at every read after the start
    monkeypatch.setattr(search_module, "_clock", lambda: next(times))
    result = search(PythonEvaluator(bowl), SPACE, budget=20, seed=1, time_limit=1e-6)
    assert len(result.history) == 1 and "19 of the budget left" in result.stopped


def test_replayed_results_are_not_the_round_a_call_must_measure(tmp_path, monkeypatch):
    """A resumed search whose limit passes at once still measures one new round past what it replays."""
    store = tmp_path / "s.db"
    search(PythonEvaluator(bowl), SPACE, budget=6, seed=2, store=store)
    with Store.open(store) as db:
        db.put("search", {**db.get("search"), "budget": 20})
    times = iter([0.0] + [1e9] * 100)
    monkeypatch.setattr(search_module, "_clock", lambda: next(times))
    result = search(PythonEvaluator(bowl), SPACE, budget=20, seed=2, store=store, time_limit=1.0)
    assert len(result.history) == 7 and "13 of the budget left" in result.stopped


def test_resume_search_takes_a_time_limit(tmp_path, ticking_clock):
    import sys

    from starchart.measure import CommandEvaluator

    store = tmp_path / "s.db"
    ev = CommandEvaluator([sys.executable, "-c", "print('time:', abs({x} - 8) + abs({y} - 3) + 1)"],
                          pattern=r"time: (\S+)")
    first = search(ev, SPACE, budget=12, seed=5, store=store, time_limit=2.5)
    assert len(first.history) == 3  # the first round unread, then 1 and 2 before 2.5
    second = resume_search(store, time_limit=3.5)  # three replayed (no read), one measured, three more
    assert len(second.history) == 7 and "5 of the budget left" in second.stopped
    assert resume_search(store).stopped is None and len(resume_search(store).history) == 12


def test_a_real_clock_stops_a_slow_search_early():
    def slow(config):
        time.sleep(0.05)
        return bowl(config)

    result = search(PythonEvaluator(slow), SPACE, budget=100, seed=0, time_limit=0.5)
    assert 1 <= len(result.history) < 100 and result.stopped
    assert result.best is not None


@pytest.mark.parametrize("bad", [0, -3, math.nan, math.inf, True, "1h"])
def test_a_bad_time_limit_is_refused_by_name(tmp_path, bad):
    with pytest.raises(InputError, match="time_limit: must be None or a number > 0"):
        search(PythonEvaluator(bowl), SPACE, budget=5, seed=0, time_limit=bad, store=tmp_path / "s.db")
    assert not (tmp_path / "s.db").exists()  # refused before a store was made


runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_cli_search_stops_at_its_time_limit_and_resume_finishes_it(tmp_path, ticking_clock):
    from shared_data import dataset_path

    data = dataset_path("convolution/A4000.json.gz")
    store = tmp_path / "s.db"
    stopped = invoke("search", "--replay", data, "--budget", "25", "--seed", "3", "--store", store,
                     "--time-limit", "8s")
    assert stopped.exit_code == 0, stopped.output
    assert "8 evaluations of 25" in stopped.output and "stopped at its time limit (8 s)" in stopped.output
    assert f"starchart resume {store} continues it" in stopped.output
    assert f"budget 25, seed 3; 8 evaluations spent (starchart resume {store} continues it)" in " ".join(
        invoke("info", store).output.split())
    resumed = invoke("resume", store)
    whole = invoke("search", "--replay", data, "--budget", "25", "--seed", "3")
    assert resumed.exit_code == 0 and "25 evaluations of 25" in resumed.output
    assert resumed.output.splitlines()[-2:] == whole.output.splitlines()[-2:]  # the best and its neighbourhood
    assert "evaluations spent" not in invoke("info", store).output


def test_cli_time_limit_errors(tmp_path):
    from shared_data import dataset_path

    data = dataset_path("convolution/A4000.json.gz")
    bad = invoke("search", "--replay", data, "--budget", "5", "--time-limit", "soon", "--store", tmp_path / "s.db")
    assert bad.exit_code == 2 and "--time-limit: 'soon' is not a duration" in bad.output
    assert not (tmp_path / "s.db").exists()  # refused before anything was stored
    unstored = invoke("search", "--replay", data, "--budget", "400", "--time-limit", "0.01")
    assert unstored.exit_code == 0 and "run it again with --store FILE" in unstored.output
    study = tmp_path / "u.db"
    assert invoke("run", "--replay", data, "--samples", "5", "--store", study).exit_code == 0
    refused = invoke("resume", study, "--time-limit", "1h")
    assert refused.exit_code == 2 and "only a search stops at a time limit" in refused.output
