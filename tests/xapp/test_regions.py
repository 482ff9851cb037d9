"""Amdahl's-law region projection, checked against hand arithmetic."""

from __future__ import annotations

import math

import numpy as np
import pytest

from starchart.errors import InputError
from starchart.xapp.model import SpeedupRangeModel
from starchart.xapp.regions import project, range_bounds


def test_thesis_case_study_numbers():
    # thesis §6.3.2: 70% and 14% of the time, both predicted 3.5 (midpoint of (0, 7)) -> 2.5
    p = project({"lu": 0.70, "cc": 0.14}, {"lu": 3.5, "cc": 3.5})
    assert p.point == pytest.approx(1 / (0.70 / 3.5 + 0.14 / 3.5 + 0.16)) == pytest.approx(2.5)
    assert p.cpu_share == pytest.approx(0.16)
    # ... and the measured 4x and 135x give 2.9759 (the thesis prints 2.97)
    assert project({"lu": 0.70, "cc": 0.14}, {"lu": 4, "cc": 135}).point == pytest.approx(2.9759, abs=1e-4)
    assert str(p) == "whole-program speedup 2.5x"


def test_interval_by_hand():
    p = project({"a": 0.5, "b": 0.3}, {"a": (2, 10), "b": 4})
    assert p.lower == pytest.approx(1 / (0.2 + 0.5 / 2 + 0.3 / 4))
    assert p.upper == pytest.approx(1 / (0.2 + 0.5 / 10 + 0.3 / 4))
    assert p.point is None
    assert p.table.loc["a", "time_at_lower"] == pytest.approx(0.25)
    assert p.table.loc["b", ["lower", "upper"]].tolist() == [4.0, 4.0]


def test_bounds_are_the_extremes_of_sampled_speedups():
    shares = {"a": 0.4, "b": 0.25, "c": 0.2}
    bounds = {"a": (1.5, 8.0), "b": (0.5, 3.0), "c": (10.0, 40.0)}
    p = project(shares, bounds)
    rng = np.random.default_rng(0)
    for _ in range(200):
        s = {k: rng.uniform(*b) for k, b in bounds.items()}
        assert p.lower <= project(shares, s).point <= p.upper


def test_range_labels_with_model_cutoffs():
    model = SpeedupRangeModel(cutoffs=(3, 20))
    assert range_bounds("3 – 20", model.cutoffs) == (3.0, 20.0)
    p = project({"x": 0.6, "y": 0.2}, {"x": "> 20", "y": "3 – 20"}, cutoffs=model)
    assert p.lower == pytest.approx(1 / (0.2 + 0.6 / 20 + 0.2 / 3))
    assert p.upper == pytest.approx(1 / (0.2 + 0 + 0.2 / 20))  # "> 20" has no upper bound
    # an open lower range can be infinitely slow: the whole program's lower bound is 0
    assert project({"x": 0.5}, {"x": "<= 3"}, cutoffs=(3,)).lower == 0.0
    # a region taking the whole time and unbounded above: no upper bound either
    assert project({"x": 1.0}, {"x": (2, math.inf)}).upper == math.inf


def test_zero_share_costs_nothing_and_empty_is_one():
    assert project({"x": 0.0, "y": 0.5}, {"x": (0, 1), "y": 2}).point == pytest.approx(1 / 0.75)
    assert project({}, {}).point == 1.0


@pytest.mark.parametrize("shares, speedups, match", [
    ({"a": 1.2}, {"a": 2}, r"\[0, 1\]"),
    ({"a": -0.1}, {"a": 2}, r"\[0, 1\]"),
    ({"a": 0.6, "b": 0.5}, {"a": 2, "b": 2}, "sum to 1.1"),
    ({"a": 0.5}, {"b": 2}, "regions differ"),
    ({"a": 0.5}, {"a": 0}, "positive finite"),
    ({"a": 0.5}, {"a": float("nan")}, "positive finite"),
    ({"a": 0.5}, {"a": (5, 2)}, "lower <= upper"),
    ({"a": 0.5}, {"a": (1, 2, 3)}, "2 bounds"),
    ({"a": 0.5}, {"a": "> 3"}, "cutoffs"),
    ({"a": "half"}, {"a": 2}, "not a number"),
    ([0.5], {"a": 2}, "map region names"),
])
def test_bad_input(shares, speedups, match):
    with pytest.raises(InputError, match=match):
        project(shares, speedups)


def test_unknown_label():
    with pytest.raises(InputError, match="not a speedup range"):
        project({"a": 0.5}, {"a": "> 4"}, cutoffs=(3,))
