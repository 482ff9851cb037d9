"""``benchmarks/search_blind_spot.py``: the final model's ranks of the near-optimal configurations a run missed."""

from __future__ import annotations

import numpy as np
import pytest
from shared_data import dataset_path

blind_spot = pytest.importorskip("search_blind_spot")


def test_a_run_short_of_five_percent_reports_ranks_among_the_configurations_it_left_open():
    dataset_path("convolution/A100.json.gz")
    row = blind_spot.model_view(("convolution A100", 0, 20))
    assert row["quality"] < 1 / 1.05  # 20 evaluations on a space with one configuration within 5 %
    assert row["open"] == 4362 - 20  # every configuration of the space but the ones measured
    for rank in ("rank by mean", "rank by expected improvement", "Gaussian process: rank by mean"):
        assert 1 <= row[rank] <= row["open"], rank
    assert row["parameters from the best found"] >= 1  # the best found is not within 5 %
    assert blind_spot.model_view(("convolution A100", 0, 20)) == row  # a function of the seed


def test_ranks_count_from_one_for_the_smallest_score():
    assert blind_spot.ranks(np.array([0.3, -1.0, 0.3, 2.0])).tolist() == [2, 1, 3, 4]


def test_a_run_that_reached_five_percent_has_no_ranks():
    dataset_path("dedispersion/A100.json.gz")
    row = blind_spot.model_view(("dedispersion A100", 1, 20))  # 4,405 of 11,130 configurations within 5 %
    assert row["quality"] >= 1 / 1.05 and "open" not in row and np.isfinite(row["quality"])
