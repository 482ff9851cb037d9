"""The search's extra tree features: products of numeric parameter pairs."""

from __future__ import annotations

import numpy as np

from starchart.strategies.encoding import CandidatePool, Encoding
from starchart.strategies.engine import TreeGuidedOptimizer
from starchart.strategies.features import MAX_PAIRED, ProductFeatures


def test_only_positive_numeric_parameters_with_three_values_are_paired():
    enc = Encoding.from_tune_params({"bx": [32, 64, 128], "flag": [True, False], "offset": [-1, 0, 1],
                                     "two": [1, 2], "mode": ["a", "b", "c"], "tile": [1.5, 2, 3]})
    assert ProductFeatures.from_encoding(enc).pairs == ((0, 5),)


def test_product_codes_rank_the_products():
    enc = Encoding.from_tune_params({"bx": [16, 32, 64, 128], "by": [1, 2, 4, 8]})
    codes = enc.encode([{"bx": bx, "by": by} for bx in (16, 32, 64, 128) for by in (1, 2, 4, 8)])
    product = np.array([bx * by for bx in (16, 32, 64, 128) for by in (1, 2, 4, 8)])
    feature = ProductFeatures.from_encoding(enc).features(codes)[:, 2]
    # same product, same code; larger product, larger code
    for i in range(len(product)):
        for j in range(len(product)):
            assert (feature[i] == feature[j]) == (product[i] == product[j])
            assert (feature[i] < feature[j]) == (product[i] < product[j])


def test_wide_spaces_pair_only_the_parameters_with_most_values():
    tune_params = {f"p{i}": [1, 2, 4] for i in range(30)}
    tune_params["p7"] = [1, 2, 4, 8, 16]
    pairs = ProductFeatures.from_encoding(Encoding.from_tune_params(tune_params)).pairs
    assert len(pairs) == MAX_PAIRED * (MAX_PAIRED - 1) // 2
    assert any(7 in pair for pair in pairs)


def test_features_follow_a_growing_pool():
    enc = Encoding.from_tune_params({"bx": [16, 32, 64], "by": [1, 2, 4]})
    pool = CandidatePool(enc, enc.encode([{"bx": 16, "by": 1}]), complete=False)
    optimizer = TreeGuidedOptimizer(pool, seed=0)
    assert optimizer._features().shape == (1, 3)
    pool.extend(enc.encode([{"bx": 64, "by": 4}, {"bx": 32, "by": 2}]), check=False)
    rows = optimizer._features()
    np.testing.assert_array_equal(rows, ProductFeatures.from_encoding(enc).features(pool.codes))
