"""Expected best of k uniform samples: exact order statistics against enumeration and simulation."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from starchart.carve.sampling import (
    best_rank_distribution,
    expected_best,
    expected_best_curve,
    probability_within,
    random_sampling_table,
    relative_to_best,
    sample_size_for,
    simulate_best_of_k,
)
from starchart.errors import InputError


def enumerated_best(values, k, minimize=True) -> Fraction:
    """E[best of k] over every k-subset, in exact arithmetic."""
    pick = min if minimize else max
    subsets = list(itertools.combinations([Fraction(v) for v in values], k))
    return sum((pick(s) for s in subsets), Fraction(0)) / len(subsets)


@pytest.mark.parametrize("values", [
    [3, 1, 4, 1, 5, 9, 2, 6],          # with a tie
    [7, 7, 7, 2, 2, 10],                # mostly ties
    [0.5, 8, 1.25, 3, 16, 2.5, 4, 11, 6],
])
@pytest.mark.parametrize("minimize", [True, False])
def test_exact_against_enumeration_of_all_subsets(values, minimize):
    for k in range(1, len(values) + 1):
        exact = float(enumerated_best(values, k, minimize))
        assert expected_best(values, k, minimize=minimize) == pytest.approx(exact, rel=1e-12)


def test_rank_distribution():
    n, k = 50, 7
    p = best_rank_distribution(n, k)
    assert p.sum() == pytest.approx(1.0)
    assert p[0] == pytest.approx(k / n)  # the optimum is in the sample with probability k/N
    assert (p[n - k + 1:] == 0).all() and p[n - k] > 0  # the best of 7 has rank ≤ N − 6
    assert best_rank_distribution(n, n).tolist() == [1.0] + [0.0] * (n - 1)


@pytest.mark.parametrize("k", [1, 4, 25])
def test_exact_against_simulation(k):
    rng = np.random.default_rng(11)
    values = rng.lognormal(0, 0.5, 300)
    trials = 20_000
    simulated = simulate_best_of_k(values, k, trials=trials, seed=5)
    exact = expected_best(values, k)
    # 5 standard errors of the Monte-Carlo mean, from the exact distribution's variance
    p = best_rank_distribution(len(values), k)
    ranked = np.sort(values)
    sd = np.sqrt(p @ ranked**2 - (p @ ranked) ** 2)
    assert abs(simulated - exact) < 5 * sd / np.sqrt(trials) + 1e-12


def test_sample_size_is_the_first_k_reaching_the_fraction():
    rng = np.random.default_rng(2)
    values = rng.gamma(2.0, 1.0, 400) + 1.0
    for minimize in (True, False):
        rel = relative_to_best(values, np.arange(1, 401), minimize=minimize)
        assert (np.diff(rel) >= -1e-12).all()  # more samples never hurt
        for fraction in (0.5, 0.9, 0.95, 0.99):
            k = sample_size_for(values, fraction, minimize=minimize)
            assert rel[k - 1] >= fraction - 1e-12
            assert k == 1 or rel[k - 2] < fraction


def test_probability_within_against_enumeration():
    values = [1.0, 1.05, 1.2, 2.0, 3.0, 1.1, 5.0]
    for k in range(1, 8):
        subsets = list(itertools.combinations(values, k))
        hit = sum(min(s) <= 1.0 / 0.9 for s in subsets) / len(subsets)
        assert probability_within(values, k, 0.9) == pytest.approx(hit)


def test_curve_and_table_layout():
    values = np.r_[1.0, np.linspace(1.5, 3.0, 99)]
    curve = expected_best_curve(values)
    assert curve["k"].iloc[0] == 1 and curve["k"].iloc[-1] == 100
    assert curve["relative"].iloc[-1] == pytest.approx(1.0)
    row = random_sampling_table(values, 10, carved_best=1.0, name="toy")
    assert row["carving_relative"] == 1.0 and row["configurations"] == 100
    assert row["random_expected_best"] == pytest.approx(expected_best(values, 10))
    assert row["random_relative"] == pytest.approx(1.0 / expected_best(values, 10))
    assert row["random_p_best"] == pytest.approx(0.1)
    assert row["random_size_for_90"] == sample_size_for(values, 0.9)
    assert row["random_size_for_95"] >= row["random_size_for_90"]
    # throughput (maximised): the same space in GFLOP/s
    up = random_sampling_table(1 / values, 10, carved_best=1 / 1.5, minimize=False)
    assert up["carving_relative"] == pytest.approx(1 / 1.5)
    assert up["random_expected_best"] == pytest.approx(expected_best(1 / values, 10, minimize=False))


def test_nonfinite_values_are_ignored_and_errors_are_clear():
    assert expected_best([1.0, np.nan, 3.0, np.inf], 2) == pytest.approx(1.0)
    with pytest.raises(InputError, match="1 to 3"):
        expected_best([1, 2, 3], 4)
    with pytest.raises(InputError, match="1 to 3"):
        expected_best([1, 2, 3], 0)
    with pytest.raises(InputError, match="no finite"):
        expected_best([np.nan], 1)
    with pytest.raises(InputError, match="fraction"):
        sample_size_for([1, 2], 1.5)
