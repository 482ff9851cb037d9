"""The continuous encoding of static features and the continuous speedup-range model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from starchart.errors import InputError, NotFittedError
from starchart.xapp.discretize import FEATURES, Discretizer
from starchart.xapp.encoding import (
    EXTENDED_FEATURES,
    ContinuousEncoder,
    encoder_from_dict,
    make_encoder,
)
from starchart.xapp.model import SpeedupRangeModel


def test_counts_are_logs_and_shares_are_kept():
    enc = ContinuousEncoder(("ksize", "coalesced", "host_steps")).fit(
        pd.DataFrame({"ksize": [9.0], "coalesced": [0.3], "host_steps": [0.0]}))
    row = enc.transform({"ksize": 999.0, "coalesced": 0.3, "host_steps": 99.0}).iloc[0]
    assert row.tolist() == pytest.approx([3.0, 0.3, 2.0])
    assert enc.raw("ksize", 3.0) == pytest.approx(999.0) and enc.raw("coalesced", 0.3) == 0.3


def test_bad_input_is_refused_with_the_column_named():
    enc = ContinuousEncoder(("parallelism",))
    with pytest.raises(NotFittedError):
        enc.transform({"parallelism": 1.0})
    with pytest.raises(InputError, match="'parallelism' is negative"):
        enc.fit({"parallelism": -4.0})
    with pytest.raises(InputError, match="missing feature column"):
        ContinuousEncoder(EXTENDED_FEATURES).fit({f: 1.0 for f in FEATURES})


def test_the_levels_argument_chooses_the_encoder_and_saving_keeps_it():
    assert isinstance(make_encoder("continuous", FEATURES), ContinuousEncoder)
    assert isinstance(make_encoder(2, FEATURES), Discretizer)
    saved = ContinuousEncoder(EXTENDED_FEATURES).to_dict()
    loaded = encoder_from_dict(saved, "test")
    assert isinstance(loaded, ContinuousEncoder) and loaded.features == EXTENDED_FEATURES


def _threshold_data(n: int = 60, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Fast exactly when parallelism exceeds 5,000: a cut that median levels cannot place."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.random((n, len(FEATURES))), columns=FEATURES, index=[f"k{i}" for i in range(n)])
    # a third of the kernels below 1,000 threads, the rest from 10,000 to 10^8
    X["parallelism"] = np.concatenate([10 ** rng.uniform(0, 3, n // 3), 10 ** rng.uniform(4, 8, n - n // 3)])
    return X, pd.Series(np.where(X["parallelism"] > 5000, 100.0, 2.0), index=X.index)


def test_a_continuous_model_finds_a_cut_that_levels_miss():
    X, y = _threshold_data()
    # the median of parallelism lies far above 5,000: "low" mixes both ranges
    assert X["parallelism"].median() > 5000
    continuous = SpeedupRangeModel(cutoffs=(10,), levels="continuous", n_trees=60).loocv(X, y).accuracy
    binary = SpeedupRangeModel(cutoffs=(10,), levels=2, n_trees=60).loocv(X, y).accuracy
    assert continuous >= 0.95 and continuous > binary


def test_the_explanation_of_a_continuous_model_reads_in_the_features_own_units():
    X, y = _threshold_data()
    model = SpeedupRangeModel(cutoffs=(10,), levels="continuous", n_trees=60).fit(X, y)
    explanation = model.explain(max_depth=1)
    (low, low_range, _), (high, high_range, _) = explanation.rules()
    assert low[0].startswith("parallelism <= ") and high[0].startswith("parallelism > ")
    cut = float(low[0].split("<= ")[1])
    assert 1000 < cut < 5e4 and (low_range, high_range) == ("<= 10", "> 10")
    assert explanation.training_fidelity == 1.0
    path = model.explain_path(X.iloc[[0]], max_depth=1)
    assert path["tree_range"] == path["forest_range"] == model.predict(X.iloc[[0]]).iloc[0]
    assert float(path["levels"]["parallelism"]) == pytest.approx(X["parallelism"].iloc[0], rel=1e-3)


def test_a_saved_continuous_model_loads_and_votes_the_same():
    X, y = _threshold_data()
    model = SpeedupRangeModel(cutoffs=(10,), levels="continuous", n_trees=40, features=FEATURES).fit(X, y)
    loaded = SpeedupRangeModel.from_json(model.to_json())
    assert loaded.continuous and (loaded.predict(X) == model.predict(X)).all()
