"""Regression of log speedup: predictions with an interval, leave-one-out, explanation."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from starchart.errors import InputError, NotFittedError, StarchartError
from starchart.xapp.log_speedup import SpeedupRegressor, error_factor

FEATURES = ("parallelism", "coalesced", "ksize")


def _data(n: int = 40, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Speedup grows with parallelism up to 10^4 threads, and with coalescing."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"parallelism": 10 ** rng.uniform(0, 7, n), "coalesced": rng.random(n),
                      "ksize": 10 ** rng.uniform(0, 4, n)}, index=[f"k{i}" for i in range(n)])
    speedup = np.minimum(X["parallelism"], 1e4) ** 0.8 * (0.25 + X["coalesced"])
    return X, speedup.rename("speedup")


@pytest.mark.parametrize("method", ["forest", "stepwise"])
def test_predictions_carry_an_interval_around_them(method: str):
    X, y = _data()
    model = SpeedupRegressor(method=method, features=FEATURES, n_trees=60).fit(X, y)
    predicted = model.predict(X)
    assert list(predicted.columns) == ["speedup", "low", "high"] and (predicted.index == X.index).all()
    assert (predicted["low"] <= predicted["speedup"]).all() and (predicted["speedup"] <= predicted["high"]).all()
    assert (predicted["low"] > 0).all()
    # in-sample the model follows the rule within a factor of 3 for most kernels
    assert np.median(error_factor(predicted["speedup"], y)) < 3


@pytest.mark.parametrize("method", ["forest", "stepwise"])
def test_leave_one_out_scores_each_kernel_by_a_model_that_never_saw_it(method: str):
    X, y = _data()
    result = SpeedupRegressor(method=method, features=FEATURES, n_trees=40).loocv(X, y)
    table = result.table
    assert list(table.columns) == ["speedup", "predicted", "low", "high", "error_factor"]
    assert (table.index == X.index).all() and table["speedup"].tolist() == pytest.approx(y.tolist())
    assert 1 <= result.median_error_factor < 3
    assert 0 <= result.coverage <= 1 and 0 <= result.within_2x <= 1
    # the same predictions cut at any cutoffs: at the median, well above a coin toss
    assert result.accuracy([float(y.median())]) > 0.7
    assert "median error" in result.summary()


def test_a_kernel_left_out_changes_its_prediction():
    """LOOCV is not the in-sample fit: a kernel unlike all others is predicted from the others."""
    X, y = _data()
    y = y.copy()
    y.iloc[0] = y.iloc[0] * 1000  # an outlier only the in-sample fit can follow
    fitted = SpeedupRegressor(features=FEATURES, n_trees=40).fit(X, y).predict(X.iloc[[0]])["speedup"].iloc[0]
    held_out = SpeedupRegressor(features=FEATURES, n_trees=40).loocv(X, y).table["predicted"].iloc[0]
    assert held_out < fitted


def test_the_explanation_tree_reads_in_speedups_and_feature_units():
    X, y = _data()
    text = SpeedupRegressor(features=FEATURES, n_trees=40).fit(X, y).explain(max_depth=2)
    assert text.startswith("# one tree for the forest regression")
    assert "parallelism <= " in text and "->  speedup " in text


def test_bad_input_and_parameters_are_named():
    X, y = _data()
    with pytest.raises(NotFittedError):
        SpeedupRegressor(features=FEATURES).predict(X)
    bad = y.copy()
    bad.iloc[3] = -1.0
    with pytest.raises(InputError, match="speedup"):
        SpeedupRegressor(features=FEATURES, n_trees=10).fit(X, bad)
    with pytest.raises(InputError, match="method"):
        SpeedupRegressor(method="lasso", features=FEATURES).fit(X, y)
    with pytest.raises(InputError, match="coverage"):
        SpeedupRegressor(features=FEATURES, coverage=1.5).fit(X, y)
    with pytest.raises(InputError, match="at least 5"):
        SpeedupRegressor(features=FEATURES, n_trees=10).fit(X.iloc[:4], y.iloc[:4])
    with pytest.raises(InputError, match="missing feature column"):
        SpeedupRegressor(n_trees=10).fit(X, y)  # the default features include the 10 static ones


@pytest.mark.parametrize("method", ["forest", "stepwise"])
def test_a_saved_model_loads_and_predicts_the_same(tmp_path, method: str):
    X, y = _data()
    model = SpeedupRegressor(method=method, features=FEATURES, n_trees=30, seed=4).fit(X, y)
    path = tmp_path / "model.json"
    model.to_json(path)
    loaded = SpeedupRegressor.from_json(path)
    assert loaded.method == method and loaded.seed == 4
    pd.testing.assert_frame_equal(loaded.predict(X), model.predict(X))


def test_a_changed_or_foreign_file_is_refused(tmp_path):
    X, y = _data()
    data = json.loads(SpeedupRegressor(features=FEATURES, n_trees=20).fit(X, y).to_json())
    data["training"]["speedups"][0] *= 50  # edited after saving: the refit disagrees
    with pytest.raises(StarchartError, match="does not reproduce"):
        SpeedupRegressor.from_json(json.dumps(data))
    with pytest.raises(InputError, match="not a saved SpeedupRegressor"):
        SpeedupRegressor.from_json('{"format": "something else"}')
    (tmp_path / "broken.json").write_text('{"format": "starchart.xapp.SpeedupRegressor", "params": 3}')
    with pytest.raises(InputError, match="malformed saved model"):
        SpeedupRegressor.from_json(tmp_path / "broken.json")
