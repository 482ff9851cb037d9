"""Tests of the dynamic-XAPP regression ensemble (``starchart.xapp.regression``, ``.stepwise``).

These are code tests on synthetic kernels whose GPU time follows a known law: they check
that the selection, combination, cross-validation, persistence and validation do what
the thesis describes. They are not claims about accuracy on real kernels.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from starchart.analyses.stepwise import _candidates, fit_stepwise, term_matrix
from starchart.errors import InputError, NotFittedError
from starchart.xapp.regression import MIN_KERNELS, SpeedupRegressionEnsemble, trimmed_mean


def synthetic(n: int, k: int = 6, noise: float = 0.05, seed: int = 0):
    """Kernels with ``gpu = ninst · 1e-10 · (1 + 4·x1 + 6·x1·x2)`` × lognormal noise."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.uniform(0, 1, (n, k)), columns=[f"x{j}" for j in range(1, k + 1)],
                     index=[f"kernel{seed}_{i}" for i in range(n)])
    X["ninst"] = 10 ** rng.uniform(6, 9, n)
    law = X["ninst"] * 1e-10 * (1 + 4 * X["x1"] + 6 * X["x1"] * X["x2"])
    gpu = law * np.exp(rng.normal(0, noise, n))
    cpu = X["ninst"] * 1e-9 * 10 ** rng.uniform(0, 2, n)
    return X, gpu, cpu, law


@pytest.fixture(scope="module")
def data():
    return synthetic(40)


@pytest.fixture(scope="module")
def fitted(data):
    X, gpu, cpu, _ = data
    return SpeedupRegressionEnsemble(n_learners=30, seed=0).fit(X, gpu, cpu)


# ---------------------------------------------------------------- stepwise learner
def test_stepwise_trace_matches_statsmodels_refits():
    """The one-fit candidate screen gives the adjusted R² of a full OLS refit, and the
    term it picks at every step is the best of all candidates refitted one by one."""
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 1, (35, 5))
    y = 1 + 2 * X[:, 0] - 3 * X[:, 0] * X[:, 3] + X[:, 2] + rng.normal(0, 0.3, 35)
    model = fit_stepwise(X, y, list("abcde"), max_terms=5)
    assert len(model.terms) >= 3
    for step in range(len(model.terms)):
        chosen = model.terms[:step + 1]
        ols = sm.OLS(y, sm.add_constant(term_matrix(X, chosen))).fit()
        assert model.adjusted_r2[step] == pytest.approx(ols.rsquared_adj, abs=1e-9)
        before = model.adjusted_r2[step - 1] if step else 0.0
        refits = {c: sm.OLS(y, sm.add_constant(term_matrix(X, model.terms[:step] + [c]))).fit().rsquared_adj
                  for c in _candidates(5, model.terms[:step])}
        # the best candidate whose gain passes its threshold (θ2 = 0 feature, θ1 = 0.0095 pair)
        best = max(a for c, a in refits.items() if a - before > (0.0095 if len(c) == 2 else 0.0))
        assert model.adjusted_r2[step] == pytest.approx(best, abs=1e-9)
    final = sm.OLS(y, sm.add_constant(term_matrix(X, model.terms))).fit()
    assert model.intercept == pytest.approx(final.params[0])
    np.testing.assert_allclose(model.coefficients, final.params[1:], rtol=1e-8)


def test_interactions_need_a_factor_in_the_model_and_pass_theta1():
    assert _candidates(3, []) == [(0,), (1,), (2,)]
    assert _candidates(3, [(1,)]) == [(0,), (2,), (0, 1), (1, 2)]
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 1, (50, 3))
    y = X[:, 0] + 5 * X[:, 0] * X[:, 1] + rng.normal(0, 0.05, 50)
    with_pairs = fit_stepwise(X, y, list("abc"), max_terms=4)
    assert "a:b" in with_pairs.names()
    # θ1 above any possible gain: no interaction can ever enter
    mains_only = fit_stepwise(X, y, list("abc"), interaction_threshold=1.0, max_terms=4)
    assert mains_only.terms and all(len(t) == 1 for t in mains_only.terms)
    nothing = fit_stepwise(X, y, list("abc"), entry_threshold=1.0, interaction_threshold=1.0)
    assert nothing.terms == [] and nothing.intercept == pytest.approx(y.mean())


# ---------------------------------------------------------------- the ensemble
def test_recovers_the_synthetic_law_and_selects_the_interaction(fitted):
    Xn, _, cpun, lawn = synthetic(25, seed=7)  # new kernels from the same law
    err = (fitted.predict(Xn) / lawn - 1).abs()
    assert err.median() < 0.05 and err.max() < 0.25
    table = fitted.explanation()
    share = dict(zip(table["term"], table["share"]))
    assert share["x1"] > 0.9 and share["x1:x2"] > 0.8
    assert table["share"].is_monotonic_decreasing
    assert table.loc[table["term"] == "x1:x2", "positive_share"].item() > 0.9
    speed = fitted.predict_speedup(Xn, cpun)
    np.testing.assert_allclose(speed, cpun / fitted.predict(Xn))
    assert list(fitted.training_.columns) == ["actual_gpu_seconds", "predicted_gpu_seconds",
                                              "actual_speedup", "predicted_speedup"]


def test_log_response_and_no_count_column(data):
    X, gpu, _, law = data
    log = SpeedupRegressionEnsemble(n_learners=15, response="log").fit(X, gpu)
    assert (log.predict(X) / law - 1).abs().median() < 0.1
    plain = SpeedupRegressionEnsemble(n_learners=5, count_column=None).fit(X.drop(columns="ninst"), gpu)
    assert plain.predict(X.drop(columns="ninst")).gt(0).all()


def test_trimmed_mean_arithmetic_by_hand():
    row = np.array([[7.0, 1.0, 100.0, 3.0, 2.0, 5.0, -50.0, 4.0, 6.0, 8.0]])
    # 10 values, keep 60 %: drop the 2 lowest (−50, 1) and the 2 highest (8, 100)
    assert trimmed_mean(row, 0.6).tolist() == [(2 + 3 + 4 + 5 + 6 + 7) / 6]
    assert trimmed_mean(row, 1.0).tolist() == [row.mean()]
    assert trimmed_mean(row, 0.0).tolist() == [4.5]  # the median
    hundred = np.arange(100.0)[None, ::-1]
    assert trimmed_mean(hundred, 0.6).tolist() == [np.arange(20.0, 80.0).mean()]  # ranks 21-80
    assert trimmed_mean(np.array([[1.0, 2.0, 3.0, 4.0, 10.0, 11.0, 50.0]]), 0.6).tolist() == [6.0]


def test_prediction_is_the_trimmed_mean_of_the_learners(data, fitted):
    X = data[0]
    per_learner = fitted.predict_learners(X.head(5))
    assert per_learner.shape == (5, 30)
    np.testing.assert_allclose(fitted.predict(X.head(5)),
                               trimmed_mean(per_learner.to_numpy(), 0.6), rtol=1e-12)


def test_same_seed_same_model_other_seed_other_samples(data):
    X, gpu, _, _ = data
    a = SpeedupRegressionEnsemble(n_learners=8, seed=3).fit(X, gpu).to_json()
    b = SpeedupRegressionEnsemble(n_learners=8, seed=3).fit(X, gpu).to_json()
    c = SpeedupRegressionEnsemble(n_learners=8, seed=4).fit(X, gpu).to_json()
    assert a == b and a != c


def test_json_round_trip_predicts_identically(tmp_path, data, fitted):
    X = data[0]
    path = tmp_path / "model.json"
    text = fitted.to_json(path)
    assert json.loads(path.read_text())["learners"][0]["terms"]
    for again in (SpeedupRegressionEnsemble.from_json(path), SpeedupRegressionEnsemble.from_json(text)):
        assert again.predict(X).equals(fitted.predict(X))
        assert again.explanation().equals(fitted.explanation())
        assert again.get_params() == fitted.get_params()
    with pytest.raises(InputError, match="not a starchart"):
        SpeedupRegressionEnsemble.from_json('{"format": "other"}')
    with pytest.raises(InputError, match="malformed"):
        SpeedupRegressionEnsemble.from_json(text.replace('"learners"', '"lerners"'))
    with pytest.raises(InputError, match="cannot read"):
        SpeedupRegressionEnsemble.from_json(tmp_path / "absent.json")


def test_plot_explanation_writes_a_png(tmp_path, fitted):
    path = tmp_path / "terms.png"
    fig = fitted.plot_explanation(path, top=4)
    assert path.read_bytes()[:4] == b"\x89PNG"
    assert len(fig.axes[0].patches) == min(4, len(fitted.explanation()))


def test_constant_columns_are_dropped_with_a_note(data):
    X, gpu, _, _ = data
    Xc = X.assign(flat=1.0)
    with pytest.warns(UserWarning, match="constant column.*flat"):
        model = SpeedupRegressionEnsemble(n_learners=4).fit(Xc, gpu)
    assert model.dropped_ == ["flat"] and "flat" not in model.columns_
    assert all("flat" not in t for t in model.explanation()["term"])
    assert model.predict(Xc).equals(model.predict(X))  # the dropped column may be absent


# ---------------------------------------------------------------- cross-validation
def test_leave_one_out_predicts_every_kernel_once():
    X, gpu, cpu, _ = synthetic(12, k=3, seed=1)
    cv = SpeedupRegressionEnsemble(n_learners=4).cross_validate(X, gpu, cpu, leave_out=1)
    assert len(cv.table) == 12 and len(cv.fold_errors) == 12
    assert sorted(cv.table["kernel"]) == sorted(X.index)
    s, p = cv.table["actual_speedup"], cv.table["predicted_speedup"]
    np.testing.assert_allclose(cv.table["relative_error"], (s - p).abs() / s)
    np.testing.assert_allclose(s, (cpu / gpu)[cv.table["kernel"]].to_numpy())
    assert cv.mean_relative_error == pytest.approx(cv.table["relative_error"].mean())


def test_leave_ten_out_fold_sizes_repeats_and_test_pool():
    X, gpu, cpu, _ = synthetic(25, k=3, seed=2)
    model = SpeedupRegressionEnsemble(n_learners=3)
    cv = model.cross_validate(X, gpu, cpu, leave_out=10, repeats=2, seed=9)
    sizes = cv.table.groupby(["repeat", "fold"]).size()
    assert sizes.tolist() == [10, 10, 5, 10, 10, 5]
    assert cv.table["kernel"].value_counts().eq(2).all() and cv.per_kernel["predictions"].eq(2).all()
    # the thesis's CV error: mean over test sets of their mean error (not over predictions)
    by_hand = np.mean([g["relative_error"].mean() for _, g in cv.table.groupby(["repeat", "fold"])])
    assert cv.mean_relative_error == pytest.approx(by_hand)
    assert "6 test sets" in cv.summary()
    again = model.cross_validate(X, gpu, cpu, leave_out=10, repeats=2, seed=9)
    assert again.table.equals(cv.table)
    pool = list(X.index[:8])
    restricted = model.cross_validate(X, gpu, cpu, leave_out=4, test_kernels=pool)
    assert sorted(restricted.table["kernel"]) == sorted(pool) and len(restricted.fold_errors) == 2
    assert not hasattr(model, "learners_")  # folds are fresh ensembles


# ---------------------------------------------------------------- bad input
def test_bad_input_names_the_kernel_and_column(data, fitted):
    X, gpu, cpu, _ = data
    model = SpeedupRegressionEnsemble(n_learners=2)
    with pytest.raises(InputError, match=r"gpu_seconds: kernel 'kernel0_3' has time -1,"):
        model.fit(X, gpu.where(gpu.index != "kernel0_3", -1.0))
    with pytest.raises(InputError, match=r"cpu_seconds: kernel 'kernel0_5' has time 0,"):
        model.fit(X, gpu, cpu.where(cpu.index != "kernel0_5", 0.0))
    bad = X.copy()
    bad.loc["kernel0_2", "x4"] = np.nan
    with pytest.raises(InputError, match=r"kernel 'kernel0_2'.*column 'x4'"):
        model.fit(bad, gpu)
    bad.loc["kernel0_2", "x4"] = np.inf
    with pytest.raises(InputError, match=r"kernel 'kernel0_2'.*column 'x4'"):
        fitted.predict(bad)
    with pytest.raises(InputError, match=f"needs at least {MIN_KERNELS}"):
        model.fit(X.head(MIN_KERNELS - 1), gpu.head(MIN_KERNELS - 1))
    with pytest.raises(InputError, match=r"\['surprise'\] were not among the training features"):
        fitted.predict(X.assign(surprise=0.5))
    with pytest.raises(InputError, match=r"missing feature column\(s\) \['x2'\]"):
        fitted.predict(X.drop(columns="x2"))
    with pytest.raises(InputError, match="instruction-count column 'ninst'"):
        model.fit(X.drop(columns="ninst"), gpu)
    with pytest.raises(InputError, match="kernel 'kernel0_1' has instruction count"):
        model.fit(X.assign(ninst=X["ninst"].where(X.index != "kernel0_1", 0)), gpu)
    with pytest.raises(InputError, match="3 times for 40 kernels"):
        model.fit(X, [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="not numeric"):
        model.fit(X.assign(name="a"), gpu)
    with pytest.raises(InputError, match="DataFrame"):
        model.fit(X.to_numpy(), gpu)
    with pytest.raises(InputError, match="leaves fewer than"):
        model.cross_validate(X.head(12), gpu.head(12), cpu.head(12), leave_out=10)
    with pytest.raises(InputError, match=r"keep_fraction: must be a number from 0 to 1, got 1.5"):
        SpeedupRegressionEnsemble(keep_fraction=1.5).fit(X, gpu)
    with pytest.raises(NotFittedError, match="this SpeedupRegressionEnsemble is not fitted"):
        SpeedupRegressionEnsemble().predict(X)


def test_times_align_by_kernel_name(data):
    X, gpu, _, _ = data
    shuffled = gpu.sample(frac=1.0, random_state=0)
    a = SpeedupRegressionEnsemble(n_learners=3).fit(X, shuffled)
    b = SpeedupRegressionEnsemble(n_learners=3).fit(X, gpu.to_numpy())
    assert a.predict(X).equals(b.predict(X))


def test_times_indexed_by_other_kernels_are_refused():
    """A Series naming other kernels is an error, never a silent match by position."""
    from starchart.xapp.align import aligned_positive

    index = pd.Index(["a", "b", "c"])
    with pytest.raises(InputError, match=r"no time for kernel\(s\) \['a'\]"):
        aligned_positive(pd.Series([1.0, 2.0, 3.0], index=["c", "b", "x"]), index, "gpu_seconds", "time")
    assert aligned_positive(pd.Series([1.0, 2.0, 3.0], index=["c", "b", "a"]), index).tolist() == [3.0, 2.0, 1.0]


def test_whole_numbers_given_as_floats_fit_as_the_counts_they_are(data):
    """The settings are checked in fit, and the checked values are the ones used (20.0 learners are 20)."""
    X, gpu, cpu, _ = data
    model = SpeedupRegressionEnsemble(n_learners=20.0, seed=2.0).fit(X, gpu, cpu)
    same = SpeedupRegressionEnsemble(n_learners=20, seed=2).fit(X, gpu, cpu)
    assert len(model.learners_) == 20
    pd.testing.assert_series_equal(model.predict(X), same.predict(X))
