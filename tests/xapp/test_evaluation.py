"""The evaluation protocol: cuts, baselines and the variant table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from starchart.errors import InputError
from starchart.xapp.discretize import FEATURES
from starchart.xapp.evaluation import (
    THESIS_PAIR,
    Variant,
    evaluate_variants,
    majority_share,
    one_feature_loocv,
    pair_factor,
    quantile_cutoffs,
    scaled_cutoffs,
)


def test_quantile_cuts_split_the_corpus_into_equal_ranges():
    speedups = 10 ** np.linspace(0, 4, 12)
    for k in (2, 3, 4):
        cuts = quantile_cutoffs(speedups, k)
        counts = np.bincount(np.searchsorted(cuts, speedups, side="left"), minlength=k)
        assert len(cuts) == k - 1 and counts.tolist() == [12 // k] * k
    with pytest.raises(InputError, match="ranges"):
        quantile_cutoffs(speedups, 1)


def test_majority_share_is_the_commonest_range():
    assert majority_share([1, 2, 3, 50], (10,)) == 0.75
    assert majority_share([1, 50, 500], (10, 100)) == pytest.approx(1 / 3)


def test_the_thesis_cuts_move_with_the_pair():
    # the thesis's own pair moves nothing
    factor, sentence = pair_factor(THESIS_PAIR["gpu_gflops"], THESIS_PAIR["cpu_gflops"])
    assert factor == pytest.approx(1.0) and "Cuts scaled by 1" in sentence
    factor, sentence = pair_factor(2 * THESIS_PAIR["gpu_gbs"], THESIS_PAIR["cpu_gbs"] / 5, kind="gbs")
    assert factor == pytest.approx(10.0) and "GB/s" in sentence
    assert scaled_cutoffs((3, 20), factor) == pytest.approx((30.0, 200.0))
    with pytest.raises(InputError, match="cpu_peak"):
        pair_factor(1000.0, 0.0)
    with pytest.raises(InputError, match="kind"):
        pair_factor(1000.0, 10.0, kind="tops")


def _data(n: int = 30) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.random((n, len(FEATURES))), columns=FEATURES, index=[f"k{i}" for i in range(n)])
    X["parallelism"] = 10 ** rng.uniform(0, 7, n)
    X["host_steps"] = 1.0
    return X, pd.Series(np.where(X["parallelism"] > 1e3, 300.0, 3.0), index=X.index)


def test_the_one_feature_baseline_reads_parallelism_alone():
    X, y = _data()
    assert one_feature_loocv(X, y, (30,)) >= 0.9
    shuffled = X.assign(parallelism=X["parallelism"].sample(frac=1, random_state=1).to_numpy())
    assert one_feature_loocv(shuffled, y, (30,)) < 0.8


def test_every_variant_is_scored_at_every_cut_beside_the_baselines():
    X, y = _data()
    variants = [Variant("levels", "classifier", {"levels": 2, "features": FEATURES}),
                Variant("forest", "regressor", {"method": "forest", "features": (*FEATURES, "host_steps"), "n_trees": 20})]
    cuts = {"median": quantile_cutoffs(y.rank(method="first"), 2), "at 30": (30.0,)}
    seen = []
    accuracy, regression = evaluate_variants(X, y, cuts, variants, seeds=(0, 1), n_trees=20, progress=seen.append)
    assert seen == ["levels", "forest"]
    assert len(accuracy) == 4 and set(accuracy["cuts"]) == {"median", "at 30"}
    at30 = accuracy[accuracy["cuts"] == "at 30"].set_index("variant")
    assert (at30["majority"] == majority_share(y, (30,))).all()
    assert (at30["low"] <= at30["mean"]).all() and (at30["mean"] <= at30["high"]).all()
    assert regression["variant"].tolist() == ["forest"] and regression["median_error_factor"].iloc[0] >= 1
