"""The bootstrap intervals of ``benchmarks/search_confidence.py`` against a plain loop."""

from __future__ import annotations

import numpy as np
import pytest

confidence = pytest.importorskip("search_confidence")


def test_stratified_bootstrap_matches_a_loop_over_the_same_draws():
    rng = np.random.default_rng(5)
    qualities = rng.uniform(0.5, 1.0, size=(3, 12))
    medians, shares = confidence.bootstrap(qualities, np.random.default_rng(9), 50)
    picks = np.random.default_rng(9).integers(0, 12, size=(50, 3, 12))  # the draws bootstrap() makes
    for r in range(50):
        pooled = np.concatenate([qualities[s, picks[r, s]] for s in range(3)])  # seeds resampled within a space
        assert medians[r] == np.median(pooled)
        assert shares[r] == np.mean(pooled >= 1 / 1.05)
    low, high = confidence.interval(medians)
    assert low <= np.median(qualities) <= high


def test_runs_are_read_per_space_in_seed_order_and_methods_missing_a_space_are_left_out():
    runs = {"starchart": {"a": {str(s): {"20": s / 10} for s in range(11)}, "b": {str(s): {"20": 1.0} for s in range(11)}},
            "tpe": {"a": {str(s): {"20": 0.5} for s in range(11)}}}  # ran on "a" only
    table = confidence.run_qualities({"runs": runs, "budgets": [20]}, ["a", "b"])
    assert list(table) == ["starchart"]
    assert table["starchart"][20][0].tolist() == [s / 10 for s in range(11)]  # "10" after "9", not after "1"
