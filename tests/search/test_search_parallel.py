"""search(..., workers=N): batches measured at a time, learnt in the order proposed — deterministic, resumable."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from starchart.errors import InputError
from starchart.measure import PythonEvaluator
from starchart.space import Space
from starchart.strategies.search import search
from starchart.study.store import Store

SPACE = Space({"x": list(range(16)), "y": list(range(16)), "z": ["a", "b", "c"]})


class Jittery:
    """A benchmark whose runs take random times (so workers finish in a random order), fails on a diagonal,
    and counts how many run at once and how often each configuration is measured."""

    def __init__(self, stop_after: int | None = None):
        self.lock = threading.Lock()
        self.running = self.most = self.calls = 0
        self.measured: list[tuple] = []
        self.stop_after = stop_after
        self.rng = np.random.default_rng()  # unseeded on purpose: the order of completion must not matter

    def __call__(self, c):
        with self.lock:
            self.calls += 1
            if self.stop_after is not None and self.calls > self.stop_after:
                raise KeyboardInterrupt  # as Ctrl-C in the middle of a batch
            self.running += 1
            self.most = max(self.most, self.running)
            pause = float(self.rng.uniform(0, 0.02))
        time.sleep(pause)
        with self.lock:
            self.running -= 1
            self.measured.append((c["x"], c["y"], c["z"]))
        if c["x"] == c["y"]:
            raise RuntimeError("fails on the diagonal")
        return {"time": 1.0 + (c["x"] - 11) ** 2 + (c["y"] - 3) ** 2 + {"a": 2, "b": 0, "c": 5}[c["z"]]}


class StopsOn:
    """A bowl that stops (as Ctrl-C) on the configurations given, after the others of their batch finished."""

    def __init__(self, stop_on: set | None = None):
        self.stop_on = stop_on or set()

    def __call__(self, c):
        if (c["x"], c["y"], c["z"]) in self.stop_on:
            time.sleep(0.3)  # the other members of the batch finish, and are stored, first
            raise KeyboardInterrupt
        return 1.0 + (c["x"] - 11) ** 2 + (c["y"] - 3) ** 2 + {"a": 2, "b": 0, "c": 5}[c["z"]]


def _history(result):
    return result.history[["x", "y", "z", "time", "status"]].fillna(-1).to_dict("records")


def test_a_parallel_search_is_deterministic_whatever_order_the_workers_finish():
    first, second = Jittery(), Jittery()
    a = search(PythonEvaluator(first), SPACE, budget=40, seed=3, workers=4)
    b = search(PythonEvaluator(second), SPACE, budget=40, seed=3, workers=4)
    assert _history(a) == _history(b)
    assert first.most == 4 and first.calls == 40 == len(set(first.measured))  # 4 at a time, none twice
    assert len(a.history) == 40 and (a.history["status"] != "ok").any()  # failures charged
    assert a.best.config == {"x": 11, "y": 3, "z": "b"}


def test_one_worker_is_the_sequential_search():
    sequential = search(PythonEvaluator(Jittery()), SPACE, budget=25, seed=5)
    one = search(PythonEvaluator(Jittery()), SPACE, budget=25, seed=5, workers=1)
    batched = search(PythonEvaluator(Jittery()), SPACE, budget=25, seed=5, workers=3)
    assert _history(one) == _history(sequential)
    assert _history(batched) != _history(sequential)  # batches are proposed differently, on purpose


def test_a_parallel_search_stopped_mid_batch_resumes_to_the_same_search(tmp_path):
    """Ctrl-C in the fourth batch: what finished is stored; the rerun on the store measures only the rest
    and ends as the uninterrupted search did."""
    whole = search(PythonEvaluator(Jittery()), SPACE, budget=30, seed=8, workers=4)
    path = tmp_path / "s.db"
    with pytest.raises(KeyboardInterrupt):
        search(PythonEvaluator(Jittery(stop_after=14)), SPACE, budget=30, seed=8, workers=4, store=path)
    with Store.open(path) as db:
        kept = len(db)
        assert db.get("search")["workers"] == 4
    assert 12 <= kept <= 14
    again = Jittery()  # a Python function is not stored: the same call again resumes
    resumed = search(PythonEvaluator(again), SPACE, budget=30, seed=8, workers=4, store=path)
    assert _history(resumed) == _history(whole)
    assert again.calls == 30 - kept
    with Store.open(path) as db:
        assert len(db) == 30


def test_a_batch_stopped_with_its_later_members_stored_resumes_to_the_same_search(tmp_path):
    """Workers finish in any order: a stop can store the second and third of a batch but not its first. The
    rerun takes those two from the store, measures the rest, and learns all four in the order proposed (it
    used to take the missing first one for a divergence, learn the stored ones first, and go another way)."""
    whole = search(PythonEvaluator(StopsOn()), SPACE, budget=16, seed=8, workers=4)
    last = whole.history.iloc[12:16]
    stop_on = {(r.x, r.y, r.z) for r in last.iloc[[0, 3]].itertuples()}  # the batch's first and last
    path = tmp_path / "s.db"
    with pytest.raises(KeyboardInterrupt):
        search(PythonEvaluator(StopsOn(stop_on)), SPACE, budget=16, seed=8, workers=4, store=path)
    with Store.open(path) as db:
        assert len(db) == 14
    resumed = search(PythonEvaluator(StopsOn()), SPACE, budget=16, seed=8, workers=4, store=path)
    assert _history(resumed) == _history(whole)


@pytest.mark.parametrize("workers", [0, -1, 1.5, True])
def test_workers_must_be_a_positive_whole_number(workers):
    with pytest.raises(InputError, match="workers: must be"):
        search(PythonEvaluator(Jittery()), SPACE, budget=5, seed=1, workers=workers)


def test_the_command_line_searches_with_workers_and_resume_keeps_them(tmp_path):
    """`starchart search --workers 3` is the library's search with workers=3; `resume` continues with 3."""
    from shared_data import dataset_path
    from typer.testing import CliRunner

    from starchart import load
    from starchart.cli import app
    from starchart.measure import ReplayEvaluator

    data = dataset_path("gemm/RTX_3090.json.gz")
    store = tmp_path / "s.db"
    cli = CliRunner().invoke(app, ["search", "--replay", str(data), "--budget", "5", "--seed", "7", "--workers", "3",
                                   "--store", str(store)])
    assert cli.exit_code == 0, cli.output
    with Store.open(store) as db:  # as if a 14-evaluation search had been stopped after 5
        db.put("search", {**db.get("search"), "budget": 14})
    resumed = CliRunner().invoke(app, ["resume", str(store)])
    assert resumed.exit_code == 0, resumed.output
    dataset = load(data)
    library = search(ReplayEvaluator(dataset), Space.from_dataset(dataset), budget=14, seed=7, workers=3)
    assert resumed.output.splitlines()[-2:] == library.summary().splitlines()[-2:]  # the best and its neighbourhood
    with Store.open(store) as db:
        assert len(db) == 14 and db.get("search")["workers"] == 3
