"""Code tests of the static XAPP discretiser and speedup-range model.

The data here is synthetic with a known rule; these tests check that the code does what
it says (cut points, voting, LOOCV bookkeeping, the single-tree approximation, saving),
not how accurate static XAPP is on real kernels.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from starchart.errors import InputError, NotFittedError, StarchartError
from starchart.xapp.discretize import FEATURES, Discretizer
from starchart.xapp.model import SpeedupRangeModel, binary_scores, range_labels

# ----------------------------------------------------------------------------- data


def synthetic(n: int = 60, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Speedup > 3 exactly when coalesced and parallelism are both above their medians."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.random((n, len(FEATURES))), columns=FEATURES,
                     index=[f"k{i}" for i in range(n)])
    fast = (X.coalesced > X.coalesced.median()) & (X.parallelism > X.parallelism.median())
    return X, pd.Series(np.where(fast, 25.0, 1.5), index=X.index)


@pytest.fixture(scope="module")
def fitted() -> tuple[SpeedupRangeModel, pd.DataFrame, pd.Series]:
    X, y = synthetic()
    return SpeedupRangeModel(cutoffs=(3,), n_trees=100, seed=1).fit(X, y), X, y


def raw_for_levels(model: SpeedupRangeModel, levels: pd.DataFrame) -> pd.DataFrame:
    """Raw feature values that fall in the given levels (inverse of the discretiser)."""
    out = {}
    for name in model.features:
        cuts = list(model.discretizer_.cuts_[name])
        reps = [cuts[0] - 1.0] + [(a + b) / 2 for a, b in itertools.pairwise(cuts)] + [cuts[-1] + 1.0] if cuts else [0.0]
        out[name] = [reps[j] for j in levels[name]]
    return pd.DataFrame(out, index=levels.index)


# ----------------------------------------------------------------------------- discretiser


def test_equal_frequency_three_levels_of_nine_values():
    x = pd.DataFrame({"f": [5, 1, 9, 3, 7, 2, 8, 4, 6]})
    d = Discretizer(3, features=("f",)).fit(x)
    assert d.cuts_ == {"f": (3.0, 6.0)}
    assert d.transform(x)["f"].tolist() == [1, 0, 2, 0, 2, 0, 2, 1, 1]


@pytest.mark.parametrize("k", [2, 3])
def test_matches_pandas_qcut_without_ties(k):
    x = np.random.default_rng(3).random(30)
    d = Discretizer(k, features=("f",)).fit(pd.DataFrame({"f": x}))
    ours = d.transform(pd.DataFrame({"f": x}))["f"].to_numpy()
    assert (ours == pd.qcut(x, k, labels=False)).all()


def test_ties_never_split_a_run_of_equal_values():
    x = pd.DataFrame({"f": [0.0] * 7 + [1.0, 2.0, 3.0]})
    two = Discretizer(2, features=("f",)).fit(x)
    assert two.cuts_["f"] == (0.0,)  # "high" = present at all
    assert np.bincount(two.transform(x)["f"]).tolist() == [7, 3]
    three = Discretizer(3, features=("f",)).fit(x)
    assert three.cuts_["f"] == (0.0, 1.0)
    assert np.bincount(three.transform(x)["f"]).tolist() == [7, 1, 2]


def test_fewer_distinct_values_give_fewer_levels():
    x = pd.DataFrame({"const": [4.0] * 6, "two": [0, 1, 0, 1, 1, 0]})
    d = Discretizer(3, features=("const", "two")).fit(x)
    assert d.n_levels("const") == 1 and d.level_names("const") == ("any",)
    assert d.n_levels("two") == 2
    assert d.transform(pd.DataFrame({"const": [-1, 99], "two": [0, 1]}))["const"].tolist() == [0, 0]


def test_auto_levels_rule():
    x = pd.DataFrame({"spread": np.linspace(0, 1, 30), "rare": [0.0] * 26 + [0.1, 0.2, 0.3, 0.4]})
    d = Discretizer("auto", features=("spread", "rare"), min_per_level=5).fit(x)
    assert d.n_levels("spread") == 3  # 10 / 10 / 10
    assert d.n_levels("rare") == 2  # 3 levels would hold 26 / 1 / 3


def test_value_on_a_cut_goes_low_and_extremes_clip():
    d = Discretizer(2, features=("f",)).fit(pd.DataFrame({"f": [1.0, 2.0, 3.0, 4.0]}))
    assert d.cuts_["f"] == (2.0,)
    assert d.transform(pd.DataFrame({"f": [2.0, 2.0001, -50, 50]}))["f"].tolist() == [0, 1, 0, 1]


def test_discretizer_json_round_trip_and_bad_input():
    X, _ = synthetic(20)
    d = Discretizer({"coalesced": 3}).fit(X)
    again = Discretizer.from_json(d.to_json())
    assert again.cuts_ == d.cuts_ and again.levels == {"coalesced": 3}
    pd.testing.assert_frame_equal(again.transform(X), d.transform(X))
    with pytest.raises(InputError, match="format"):
        Discretizer.from_json(json.dumps({"cuts": {}}))
    with pytest.raises(InputError, match="not JSON"):
        Discretizer.from_json("{oops")
    with pytest.raises(InputError, match="2 or 3"):
        Discretizer(4)
    with pytest.raises(InputError, match="unknown feature"):
        Discretizer({"colesced": 3})
    with pytest.raises(NotFittedError, match="this Discretizer has not been fitted"):
        Discretizer().transform(X)


def test_missing_column_and_nan_are_named():
    X, _ = synthetic(10)
    with pytest.raises(InputError, match="'sqrt'"):
        Discretizer().fit(X.drop(columns="sqrt"))
    X.loc["k4", "logexp"] = np.nan
    with pytest.raises(InputError, match=r"'logexp' of kernel 'k4'"):
        Discretizer().fit(X)


# ----------------------------------------------------------------------------- model: inputs


def test_range_labels_and_classify():
    assert range_labels((3,)) == ["<= 3", "> 3"]
    assert range_labels((3, 20)) == ["<= 3", "3 – 20", "> 20"]
    model = SpeedupRangeModel(cutoffs=(3, 20))
    assert model.classify([0.5, 3.0, 3.01, 20.0, 21.0]).tolist() == ["<= 3", "<= 3", "3 – 20", "3 – 20", "> 20"]
    assert model.range_table.loc["> 20"].tolist() == [20.0, np.inf]


@pytest.mark.parametrize("cutoffs, match", [((3, 3), "strictly increasing"), ((20, 3), "strictly increasing"),
                                            ((), "at least one"), ((0,), "positive"), (("x",), "not numbers")])
def test_bad_cutoffs(cutoffs, match):
    """Checked in fit, as every hyperparameter (scikit-learn's rule), and wherever the ranges are used."""
    model = SpeedupRangeModel(cutoffs=cutoffs, n_trees=10)  # stored as given
    assert model.get_params()["cutoffs"] == cutoffs
    X, y = synthetic(12)
    for use in (lambda: model.fit(X, y), lambda: model.classify([1.0]), lambda: model.labels):
        with pytest.raises(InputError, match=match) as err:
            use()
        assert err.value.where == "cutoffs"


def test_bad_training_inputs():
    X, y = synthetic(12)
    model = SpeedupRangeModel(n_trees=10)
    with pytest.raises(InputError, match="'ksize'"):
        model.fit(X.drop(columns="ksize"), y)
    bad = X.copy()
    bad.loc["k3", "divergent"] = np.nan
    with pytest.raises(InputError, match="kernel 'k3'"):
        model.fit(bad, y)
    with pytest.raises(InputError, match="at least two ranges") as err:
        model.fit(X, np.full(len(X), 10.0))
    assert err.value.where == "cutoffs"
    with pytest.raises(InputError, match="kernel 'k2'"):
        model.fit(X, y.where(y.index != "k2", -1.0))
    with pytest.raises(InputError, match="11 speedups for 12"):
        model.fit(X, y.to_numpy()[:11])
    with pytest.raises(InputError, match="no speedup for kernel"):
        model.fit(X, y.rename(index={"k0": "other"}))
    with pytest.raises(InputError, match="n_trees: must be an integer ≥ 1, got 0"):
        SpeedupRangeModel(n_trees=0).fit(X, y)
    with pytest.raises(NotFittedError, match="this SpeedupRangeModel has not been fitted"):
        model.predict(X)  # none of the refused fits left a model behind


def test_speedups_align_by_index():
    X, y = synthetic(30)
    a = SpeedupRangeModel(n_trees=30).fit(X, y)
    b = SpeedupRangeModel(n_trees=30).fit(X, y.sample(frac=1.0, random_state=0))  # shuffled Series
    c = SpeedupRangeModel(n_trees=30).fit(X, y.to_dict())
    pd.testing.assert_frame_equal(a.vote_share(X), b.vote_share(X))
    pd.testing.assert_frame_equal(a.vote_share(X), c.vote_share(X))


# ----------------------------------------------------------------------------- model: predictions


def test_learns_the_known_rule(fitted):
    model, X, y = fitted
    predicted = model.predict(X)
    assert list(predicted.index) == list(X.index)
    assert (predicted == model.classify(y)).mean() >= 0.95
    fast = {**dict.fromkeys(FEATURES, 0.5), "coalesced": 0.95, "parallelism": 0.95}
    slow = {**fast, "coalesced": 0.05}
    assert model.predict([fast, slow]).tolist() == ["> 3", "<= 3"]


def test_votes_and_probabilities(fitted):
    model, X, _ = fitted
    share = model.vote_share(X)
    assert list(share.columns) == model.labels
    assert np.allclose(share.sum(axis=1), 1.0)
    assert (share * model.n_trees).round(9).eq((share * model.n_trees).round()).all().all()  # whole votes
    assert (model.predict(X).astype(str) == share.idxmax(axis=1)).all()
    proba = model.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)


def test_absent_range_gets_zero_probability():
    X, y = synthetic(30)
    model = SpeedupRangeModel(cutoffs=(3, 100), n_trees=20).fit(X, y)  # no speedup above 100
    assert model.labels == ["<= 3", "3 – 100", "> 100"]
    assert (model.predict_proba(X)["> 100"] == 0).all() and (model.vote_share(X)["> 100"] == 0).all()


def test_same_seed_same_forest_other_seed_differs():
    X, y = synthetic(40, seed=5)
    a = SpeedupRangeModel(n_trees=50, seed=7).fit(X, y).vote_share(X)
    b = SpeedupRangeModel(n_trees=50, seed=7, n_jobs=2).fit(X, y).vote_share(X)
    c = SpeedupRangeModel(n_trees=50, seed=8).fit(X, y).vote_share(X)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


# ----------------------------------------------------------------------------- LOOCV


def two_groups() -> tuple[pd.DataFrame, pd.Series]:
    """Group A (all features 0.1) mostly slow, group B (all 0.9) mostly fast, odd kernels in each.

    Leaving one kernel out, the forest can only follow its group's majority, so: the 5 slow A
    kernels are right (TN), the fast A kernel is called slow (FN), the 4 fast B kernels are right
    (TP), the 2 slow B kernels are called fast (FP).
    """
    rows = {f"a{i}": (0.1, 1.0) for i in range(5)} | {"a_odd": (0.1, 10.0)}
    rows |= {f"b{i}": (0.9, 10.0) for i in range(4)} | {"b_odd1": (0.9, 1.0), "b_odd2": (0.9, 2.0)}
    X = pd.DataFrame({f: [v for v, _ in rows.values()] for f in FEATURES}, index=list(rows))
    return X, pd.Series([s for _, s in rows.values()], index=list(rows))


def test_loocv_counts_and_predictive_values_by_hand():
    X, y = two_groups()
    result = SpeedupRangeModel(cutoffs=(3,), n_trees=101, seed=0).loocv(X, y)
    assert result.table["predicted"].astype(str).to_dict() == {
        **{f"a{i}": "<= 3" for i in range(5)}, "a_odd": "<= 3",
        **{f"b{i}": "> 3" for i in range(4)}, "b_odd1": "> 3", "b_odd2": "> 3"}
    assert result.accuracy == pytest.approx(9 / 12)
    assert result.confusion.loc["<= 3"].tolist() == [5, 2]  # rows: measured, columns: predicted
    assert result.confusion.loc["> 3"].tolist() == [1, 4]
    assert result.counts == {"tp": 4, "fp": 2, "tn": 5, "fn": 1}
    assert result.ppv == pytest.approx(4 / 6) and result.npv == pytest.approx(5 / 6)
    assert not result.table.loc["a_odd", "correct"] and result.table.loc["b0", "correct"]
    assert "PPV 66.7% (4/6), NPV 83.3% (5/6)" in result.summary()


def test_binary_scores_undefined_ppv_is_nan():
    s = binary_scores([0, 1, 0], [0, 0, 0])
    assert s["tp"] + s["fp"] == 0 and np.isnan(s["ppv"]) and s["npv"] == pytest.approx(2 / 3)


def test_loocv_three_ranges_and_progress(fitted):
    _, X, _ = fitted
    X = X.iloc[:15]
    speedups = np.linspace(1, 60, 15)
    seen = []
    result = SpeedupRangeModel(cutoffs=(3, 20), n_trees=20).loocv(X, speedups, progress=lambda d, t: seen.append((d, t)))
    assert result.ppv is None and result.npv is None
    assert result.confusion.shape == (3, 3) and result.confusion.to_numpy().sum() == 15
    assert result.accuracy == pytest.approx(np.trace(result.confusion.to_numpy()) / 15)
    assert seen[-1] == (15, 15) and len(seen) == 15
    with pytest.raises(InputError, match="one range"):
        SpeedupRangeModel().loocv(X, np.full(15, 50.0))


# ----------------------------------------------------------------------------- explain


def test_explain_fidelity_recomputed_independently(fitted):
    model, _, _ = fitted
    expl = model.explain(max_depth=2)
    assert expl.n_vectors == 2 ** 10
    grid = pd.DataFrame(list(itertools.product(range(2), repeat=10)), columns=list(FEATURES))
    forest = model.predict(raw_for_levels(model, grid)).astype(str).to_numpy()
    tree = np.asarray(model.labels)[expl.tree.classes_[expl.tree.predict(grid.to_numpy(np.float32))]]
    assert expl.fidelity == pytest.approx((forest == tree).mean())
    assert expl.fidelity > 0.9
    # the depth-2 stand-in uses exactly the two features of the rule
    assert {node["feature"] for node in (expl.to_dict(), expl.to_dict()["high"], expl.to_dict()["low"])
            if "feature" in node} == {"coalesced", "parallelism"}


def test_unlimited_tree_is_exact_and_paths_follow_levels(fitted):
    model, X, _ = fitted
    expl = model.explain()
    assert expl.fidelity == 1.0 and expl.training_fidelity == 1.0
    levels = model.discretizer_.transform(X)
    for name in X.index[:10]:
        info = model.explain_path(X.loc[[name]])
        assert info["tree_range"] == info["forest_range"] == model.predict(X.loc[[name]]).iloc[0]
        for condition in info["path"]:
            feature = condition.split()[0]
            level = model.discretizer_.level_names(feature)[levels.loc[name, feature]]
            assert level in condition.split("(")[0]
    rules = expl.rules()
    assert sum(n for _, _, n in rules) == 2 ** 10
    assert all(r in model.labels for _, r, _ in rules)
    assert "fidelity 100.0%" in expl.text()


def test_explain_grid_with_three_level_features():
    X, y = synthetic(60, seed=2)
    model = SpeedupRangeModel(levels={"coalesced": 3, "sqrt": 3}, n_trees=20).fit(X, y)
    assert model.level_grid().shape == (2 ** 8 * 9, 10)
    expl = model.explain(max_leaf_nodes=4)
    assert expl.n_vectors == 2 ** 8 * 9 and len(expl.rules()) <= 4
    with pytest.raises(InputError, match="one kernel"):
        model.explain_path(X.iloc[:2])


# ----------------------------------------------------------------------------- saving


def test_json_round_trip_predicts_identically(fitted, tmp_path):
    model = fitted[0]
    new = pd.DataFrame(np.random.default_rng(9).random((25, 10)), columns=FEATURES)
    path = tmp_path / "model.json"
    text = model.to_json(path)
    for source in (text, path, str(path)):
        again = SpeedupRangeModel.from_json(source)
        assert again.cutoffs == model.cutoffs and again.n_trees == model.n_trees and again.seed == model.seed
        pd.testing.assert_frame_equal(again.vote_share(new), model.vote_share(new))
        assert again.explain(max_depth=2).text() == model.explain(max_depth=2).text()


def test_reload_detects_a_forest_that_votes_differently(fitted):
    model, _, _ = fitted
    data = model.to_dict()
    data["training_votes"][0] = data["training_votes"][0][::-1]
    with pytest.raises(StarchartError, match="does not reproduce"):
        SpeedupRangeModel.from_json(json.dumps(data))
    with pytest.raises(InputError, match="format"):
        SpeedupRangeModel.from_json(json.dumps({"params": {}}))
    data = model.to_dict()
    del data["training"]
    with pytest.raises(InputError, match="malformed"):
        SpeedupRangeModel.from_json(json.dumps(data))
    with pytest.raises(InputError, match="cannot read"):
        SpeedupRangeModel.from_json("/nonexistent/model.json")


def test_numpy_settings_save_as_json():
    """Settings stored as given (numpy integers) are written as the plain numbers they were checked to be."""
    X, y = synthetic(40)
    model = SpeedupRangeModel(n_trees=np.int64(10), seed=np.int64(0)).fit(X, y)
    params = json.loads(model.to_json())["params"]
    assert (params["n_trees"], params["seed"]) == (10, 0)
