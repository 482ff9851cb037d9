"""Whether a search's best is a local optimum: its one-parameter neighbourhood, checked by brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from shared_data import dataset_path

import starchart
from starchart import Space
from starchart._util.configs import config_key
from starchart.measure import PythonEvaluator, ReplayEvaluator
from starchart.strategies.neighbourhood import Neighbourhood, best_neighbourhood


def one_parameter_away(frame: pd.DataFrame, best: dict, names: list[str]) -> pd.DataFrame:
    """Rows of ``frame`` that differ from ``best`` in exactly one of ``names`` (brute force)."""
    differ = sum((frame[n] != best[n]).astype(int) for n in names)
    return frame[differ == 1]


def test_the_neighbourhood_counts_valid_configurations_one_change_away_under_restrictions():
    space = Space({"x": [1, 2, 4, 8, 16], "y": [1, 2, 4, 8], "mode": ["a", "b", "c"]},
                  restrictions=["x * y <= 32", "mode != 'c' or x >= 4"])
    best = {"x": 4, "y": 8, "mode": "a"}
    everything = space.to_frame()
    expected = one_parameter_away(everything, best, list(space.names))
    measured = pd.concat([expected.head(5), pd.DataFrame([best, {"x": 1, "y": 1, "mode": "a"}])])  # one not near
    hood = best_neighbourhood(space, best, measured)
    assert hood == Neighbourhood(size=len(expected), measured=5)
    assert not hood.local_optimum
    assert "5 of the" in hood.describe()


def test_a_search_of_the_whole_space_ends_at_a_local_optimum_and_says_so():
    space = Space({"x": list(range(6)), "y": [None, 32, 64]})
    evaluator = PythonEvaluator(lambda c: (c["x"] - 2) ** 2 + (0 if c["y"] == 32 else 5) + 1.0)
    result = starchart.search(evaluator, space, budget=18, seed=0)
    assert result.best.config == {"x": 2, "y": 32}
    assert result.neighbourhood == Neighbourhood(size=5 + 2, measured=7)
    assert result.neighbourhood.local_optimum
    assert "a local optimum" in result.summary().splitlines()[-1]


@pytest.mark.parametrize(("seed", "budget"), [(3, 60), (0, 100)])
def test_on_a_replayed_gpu_space_a_local_optimum_has_no_faster_neighbour_and_the_counts_match(seed, budget):
    data = starchart.load(dataset_path("convolution/A4000.json.gz"))
    space = Space.from_dataset(data)
    names = list(space.names)
    result = starchart.search(ReplayEvaluator(data, metrics=["time"]), space, budget=budget, seed=seed)
    best = result.best.config
    frame = data.frame.assign(time=data.frame["time"].where(data.valid.to_numpy()))
    around = one_parameter_away(frame, best, names)
    measured = {config_key(m.config, names) for m in result.measurements}
    done = [config_key(row, names) in measured for row in around[names].to_dict("records")]
    assert result.neighbourhood == Neighbourhood(size=len(around), measured=int(np.sum(done)))
    faster_measured = around[np.array(done)]["time"] < result.best.value
    assert not faster_measured.any()  # the best is the best of what was measured
    assert result.neighbourhood.local_optimum == (budget == 100)  # both cases are checked
    if result.neighbourhood.local_optimum:  # (this one at 0.81 of the optimum: a trap, see search_difficulty.py)
        assert not (around["time"] < result.best.value).any()


def test_a_search_where_everything_failed_has_no_neighbourhood():
    space = Space({"x": [1, 2, 3]})
    result = starchart.search(PythonEvaluator(lambda c: float("nan")), space, budget=3, seed=0)
    assert result.best is None and result.neighbourhood is None
