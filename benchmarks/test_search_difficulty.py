"""The landscape figures of ``benchmarks/search_difficulty.py`` against a brute-force climb."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

difficulty = pytest.importorskip("search_difficulty")


def brute_force_climb(codes: np.ndarray, values: np.ndarray, start: int) -> int:
    """Move to the best configuration one parameter away while it is strictly better."""
    here = start
    while True:
        neighbours = np.flatnonzero((codes != codes[here]).sum(axis=1) == 1)
        better = neighbours[values[neighbours] < values[here]]
        if not len(better):
            return here
        here = int(better[np.argmin(values[better])])


def test_greedy_climbs_match_a_brute_force_climb_on_a_partial_space_with_failures():
    rng = np.random.default_rng(3)
    grid = pd.MultiIndex.from_product([range(4), range(3), range(5), range(2)]).to_frame(index=False)
    grid.columns = ["a", "b", "c", "d"]
    frame = grid.sample(frac=0.7, random_state=1).reset_index(drop=True)  # restrictions remove some
    values = rng.permutation(len(frame)).astype(float) + 1.0  # distinct values: one best neighbour
    values[rng.choice(len(frame), 8, replace=False)] = np.inf  # failures are never moved to
    codes = frame.to_numpy()
    ends = difficulty.greedy_climbs(frame, list(frame.columns), values)
    assert ends.tolist() == [brute_force_climb(codes, values, i) for i in range(len(frame))]


def test_escape_radius_counts_the_parameters_to_change_for_anything_better():
    codes = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 1, 0]])
    values = np.array([2.0, 1.0, 3.0, 4.0])
    assert difficulty.escape_radius(codes, values, 0) == 2  # only row 1 is faster, two changes away
    assert difficulty.escape_radius(codes, values, 1) == 0  # the optimum
    assert difficulty.escape_radius(codes, values, 3) == 1
