"""The search's model: extra tree features (products of numeric parameter pairs), and how often it is refitted."""

from __future__ import annotations

import numpy as np

from starchart.measure import PythonEvaluator
from starchart.space import Space
from starchart.strategies.encoding import CandidatePool, Encoding
from starchart.strategies.engine import SearchOptions, TreeGuidedOptimizer
from starchart.strategies.features import MAX_PAIRED, ProductFeatures
from starchart.strategies.search import search


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


# ------------------------------------------------------------------ refitting less often as results grow
def _fits(monkeypatch, **options):
    """How often a search of the bowl refits its models, and its history."""
    count = []
    original = TreeGuidedOptimizer._fit
    monkeypatch.setattr(TreeGuidedOptimizer, "_fit", lambda self, *a: (count.append(self.n_told), original(self, *a)))
    result = search(PythonEvaluator(_bowl), _BOWL_SPACE, budget=options.pop("budget"), seed=2,
                    options=SearchOptions(**options))
    monkeypatch.undo()
    return count, result.history[["x", "y"]].to_dict("records")


def _bowl(c):
    return 1.0 + (c["x"] - 17) ** 2 + abs(c["y"] - 5) * 3


_BOWL_SPACE = Space({"x": list(range(40)), "y": list(range(12))})


def test_the_models_are_refitted_after_every_result_until_their_share_is_reached(monkeypatch):
    every, every_history = _fits(monkeypatch, budget=160, refit_share=0.0)
    share, share_history = _fits(monkeypatch, budget=160, refit_share=0.05)
    assert every == list(range(every[0], 160))  # one fit per model-guided proposal
    assert share[:20 - share[0]] == list(range(share[0], 20))  # under 1 / 0.05 results: after each
    gaps = np.diff(share)
    assert gaps.max() == int(0.05 * share[-2]) and len(share) < len(every) * 0.6
    assert share_history[:21] == every_history[:21]  # the same proposals while it refits after each result
    assert len({(r["x"], r["y"]) for r in share_history}) == 160  # and never one twice between fits


def test_a_batch_does_not_keep_models_fitted_to_its_stand_in_values():
    enc = Encoding.from_space(_BOWL_SPACE)
    configs = enc.decode(enc.encode(_BOWL_SPACE.to_frame()))

    def after_a_batch(refit_share):
        optimizer = TreeGuidedOptimizer(CandidatePool(enc, enc.encode(_BOWL_SPACE.to_frame())), seed=1, budget=200,
                                        options=SearchOptions(refit_share=refit_share))
        for index in optimizer.ask_batch(30):
            optimizer.tell(index, _bowl(configs[index]))
        optimizer.ask_batch(4)  # fitted to the 30 results, then told stand-ins for three proposals
        return optimizer

    kept = after_a_batch(0.5)  # not refitted within the batch: its model saw measured values only
    assert kept._fit_at == 30 and kept._model is not None
    assert after_a_batch(0.0)._model is None  # refitted after each stand-in: dropped


def test_a_space_too_large_to_enumerate_is_searched_between_refits_as_its_pool_grows():
    big = Space({"a": list(range(100)), "b": list(range(100)), "c": list(range(30))})  # 300,000: sampled
    result = search(PythonEvaluator(lambda c: 1.0 + abs(c["a"] - 70) + abs(c["b"] - 20) + abs(c["c"] - 9)), big,
                    budget=60, seed=4, options=SearchOptions(refit_share=0.25))
    keys = {(c["a"], c["b"], c["c"]) for c in result.history[["a", "b", "c"]].to_dict("records")}
    assert len(keys) == 60 and result.best.value < 20
