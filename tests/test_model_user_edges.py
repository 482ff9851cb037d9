"""What a performance engineer tries on the modelling API in a notebook: odd inputs, odd options.

Each test pins a defect found by using the tree, the pruning and the forest as a user would:
a wrong answer given silently, a bare numpy/pandas traceback instead of an error that names
the parameter, or an option that was accepted and not honoured.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from shared_data import dataset_path

from starchart import StarchartTree
from starchart.errors import InputError
from starchart.tree import StarchartForest, choose_cp, cross_validated_error, fit_pruned, prune


@pytest.fixture(scope="module")
def kmeans() -> tuple[pd.DataFrame, np.ndarray]:
    data = pd.read_csv(dataset_path("starchart_kmeans/kmeans_hd7970.csv"))
    return data[["ppb", "tpp", "consec"]], data["runtime"].to_numpy()


@pytest.fixture(scope="module")
def kmeans_tree(kmeans) -> StarchartTree:
    return StarchartTree().fit(*kmeans)


# ------------------------------------------------------------------ the tree's inputs
def test_predict_refuses_missing_parameter_values(kmeans, kmeans_tree):
    """fit() refuses NaN parameters; predict() sent them right at every split, silently."""
    X, _ = kmeans
    with pytest.raises(InputError, match="'ppb' has a missing value"):
        kmeans_tree.predict(X.head(3).assign(ppb=[16, np.nan, 32]))
    categorical = StarchartTree(min_samples_split=2).fit(pd.DataFrame({"algo": ["a", "b", "a", "b"]}),
                                                         [1.0, 5.0, 1.1, 5.1])
    with pytest.raises(InputError, match="'algo' has a missing value"):
        categorical.predict(pd.DataFrame({"algo": ["a", None]}))


def test_predict_on_an_array_of_the_wrong_width_names_x(kmeans, kmeans_tree):
    X, _ = kmeans
    with pytest.raises(InputError, match=r"fitted on 3 parameter\(s\) but X is an array of shape 500×2"):
        kmeans_tree.predict(X.to_numpy()[:, :2])
    with pytest.raises(InputError, match="X is an array of shape 3"):
        kmeans_tree.predict([16, 4, 1])  # one configuration as a flat list
    np.testing.assert_array_equal(kmeans_tree.predict(X.to_numpy()[:5]), kmeans_tree.predict(X.head(5)))


def test_predict_takes_a_dict_of_one_configuration_or_of_columns(kmeans, kmeans_tree):
    X, _ = kmeans
    row = X.iloc[7].to_dict()
    assert kmeans_tree.predict(row).tolist() == kmeans_tree.predict(X.iloc[[7]]).tolist()
    columns = {name: X[name].head(4).tolist() for name in X.columns}
    np.testing.assert_array_equal(kmeans_tree.predict(columns), kmeans_tree.predict(X.head(4)))


def test_a_single_row_series_gets_a_hint(kmeans, kmeans_tree):
    X, _ = kmeans
    with pytest.raises(InputError, match="one-row DataFrame"):
        kmeans_tree.predict(X.iloc[0])


def test_fit_on_a_named_series_keeps_the_parameter_name(kmeans):
    X, y = kmeans
    tree = StarchartTree().fit(X["tpp"], y)
    assert tree.feature_names_in_ == ["tpp"]
    np.testing.assert_array_equal(tree.predict(X), tree.predict(X[["tpp"]]))
    np.testing.assert_array_equal(tree.predict(X["tpp"]), tree.predict(X[["tpp"]]))


def test_numbers_in_an_object_array_stay_ordered_parameters():
    """df.to_numpy() of a frame with a string column is all objects; tile must still be ordered."""
    frame = pd.DataFrame({"algo": ["a", "b"] * 10, "tile": [8, 16, 32, 64, 128] * 4})
    y = frame["tile"] / 8.0 + (frame["algo"] == "b")
    tree = StarchartTree(min_samples_split=2).fit(frame.to_numpy(), y)
    assert tree.param_kinds_ == {"x0": "categorical", "x1": "ordered"}
    # an unsampled tile size is placed by the thresholds, not sent to the majority as an unseen level
    assert tree.predict(np.array([["a", 96]], dtype=object))[0] == pytest.approx(16.0)
    assert StarchartTree().fit(frame.astype(object), y).param_kinds_["tile"] == "ordered"


def test_fit_without_parameter_columns_is_explained(kmeans):
    X, y = kmeans
    with pytest.raises(InputError, match="no parameter columns"):
        StarchartTree().fit(X[[]], y)
    with pytest.raises(InputError, match="no parameter columns"):
        StarchartForest(n_estimators=2).fit(X[[]], y)


def test_a_two_column_response_is_named_as_such(kmeans):
    X, y = kmeans
    with pytest.raises(InputError, match=r"one value per sample, got an array of shape \(500, 2\)"):
        StarchartTree().fit(X, np.column_stack([y, y]))
    assert StarchartTree().fit(X, y.reshape(-1, 1)).n_samples_ == 500  # a column vector is fine


@pytest.mark.parametrize("option, value", [("min_samples_split", np.nan), ("min_samples_split", np.inf),
                                           ("max_depth", np.inf), ("max_depth", float("nan"))])
def test_non_finite_hyperparameters_are_named(kmeans, option, value):
    X, y = kmeans
    with pytest.raises(InputError, match=option):
        StarchartTree(**{option: value}).fit(X, y)


def test_render_options_are_checked(kmeans_tree):
    for call in (kmeans_tree.export_text, kmeans_tree.to_dot):
        with pytest.raises(InputError, match="decimals"):
            call(decimals=-1)
        with pytest.raises(InputError, match="max_depth"):
            call(max_depth=-1)
    assert kmeans_tree.export_text(max_depth=0).count("\n") == 0


def test_damaged_json_is_an_input_error(kmeans_tree):
    for text in ('{"format": "starchart-tree"}', kmeans_tree.to_json().replace('"arrays"', '"arrayz"')):
        with pytest.raises(InputError, match="incomplete or damaged"):
            StarchartTree.from_json(text)


def test_region_contains_names_a_missing_column(kmeans, kmeans_tree):
    X, _ = kmeans
    leaf = kmeans_tree.best_leaf()
    with pytest.raises(InputError, match="missing parameter column"):
        leaf.contains(X[["ppb"]])
    assert leaf.contains(X).sum() == leaf.n_samples


# ------------------------------------------------------------- unseen values, categories
def ordered_sizes() -> tuple[pd.DataFrame, list[float]]:
    sizes = pd.Categorical(["s"] * 2 + ["l"] * 8, categories=["s", "m", "l"], ordered=True)
    return pd.DataFrame({"size": sizes}), [1.0] * 2 + [5.0] * 8


def test_unseen_value_of_an_ordered_categorical_follows_the_majority():
    """It used to take position −1 and go left at every split, i.e. count as the smallest level."""
    X, y = ordered_sizes()
    new = pd.DataFrame({"size": ["s", "l", "xl", "m"]})
    tree = StarchartTree(min_samples_split=2).fit(X, y)
    assert tree.predict(new).tolist() == [1.0, 5.0, 5.0, 5.0]
    forest = StarchartForest(n_estimators=1, bootstrap=False, target="identity").fit(X, y)
    assert forest.predict(new).tolist() == [1.0, 5.0, 5.0, 5.0]


def test_forest_walk_agrees_with_its_trees_on_unseen_values():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"algo": rng.choice(["naive", "tiled"], 120), "tile": rng.choice([8, 32, 128], 120),
                      "size": pd.Categorical(rng.choice(["lo", "mid", "hi"], 120),
                                             categories=["lo", "mid", "hi"], ordered=True)})
    y = (X["algo"] == "naive") * 5.0 + X["tile"] / 32 + X["size"].cat.codes + 1.0
    forest = StarchartForest(n_estimators=12, random_state=0, target="identity").fit(X, y)
    new = pd.concat([X.head(20), X.head(20).assign(size="huge"), X.head(20).assign(algo="blocked"),
                     X.head(20).assign(tile=20)])
    per_tree = np.column_stack([tree.predict(new) for tree in forest.estimators_])
    np.testing.assert_allclose(forest.predict_distribution(new), per_tree)


def test_categorical_split_lists_only_the_levels_that_reach_it():
    """The right side of a split is what reaches the node and is not on the left: a level that
    an earlier split sent elsewhere is on neither side."""
    X = pd.DataFrame({"algo": ["naive", "tiled", "blocked"] * 8, "tile": [8] * 12 + [64] * 12})
    y = X["algo"].map({"naive": 10.0, "tiled": 3.0, "blocked": 5.0}) + (X["tile"] == 64) * (X["algo"] != "naive")
    tree = StarchartTree(min_samples_split=2).fit(X, y)
    root = tree.root_
    assert root.left_levels == ["blocked", "tiled"] and root.right_levels == ["naive"]
    inner = [node for node in tree.nodes_[1:] if node.left_levels is not None]
    assert inner and all("naive" not in node.left_levels + node.right_levels for node in inner
                         if tree.path(node)[1].id == root.left)


# ------------------------------------------------------------------------- the forest
@pytest.mark.parametrize("option, value", [("n_estimators", None), ("n_estimators", "5"), ("n_jobs", "a"),
                                           ("n_jobs", True), ("n_jobs", 1.5)])
def test_forest_options_are_named(kmeans, option, value):
    X, y = kmeans
    with pytest.raises(InputError, match=option):
        StarchartForest(**{"n_estimators": 2, option: value}).fit(X, y)


def test_max_features_fractions_round_half_up_and_take_numpy_floats():
    counts = {p: StarchartForest(max_features=0.5)._n_features(p) for p in (3, 5, 7)}
    assert counts == {3: 2, 5: 3, 7: 4}  # Python's round() gave 2 for 2.5 but 4 for 3.5
    assert StarchartForest(max_features=np.float32(0.5))._n_features(4) == 2
    assert StarchartForest(max_features=1.0)._n_features(6) == 6 and StarchartForest(max_features=1)._n_features(6) == 1


def test_a_refused_refit_leaves_the_fitted_forest_alone(kmeans):
    X, y = kmeans
    forest = StarchartForest(n_estimators=3, random_state=0).fit(X, y)
    before = forest.predict(X.head(5))
    with pytest.raises(InputError, match="target='log'"):
        forest.set_params(target="log").fit(X.rename(columns={"ppb": "other"}), -y)
    assert forest.feature_names_in_ == ["ppb", "tpp", "consec"]
    np.testing.assert_array_equal(forest.predict(X.head(5)), before)


# ------------------------------------------------------------------------ pruning / CV
def test_pruning_a_forest_tree_keeps_its_halfway_splits(kmeans):
    X, y = kmeans
    tree = StarchartForest(n_estimators=1, random_state=0, target="identity").fit(X, y).estimators_[0]
    unsampled = X.assign(ppb=X["ppb"] + 0.5, tpp=X["tpp"] + 0.5)
    np.testing.assert_array_equal(prune(tree, 0.0).predict(unsampled), tree.predict(unsampled))
    assert prune(tree, 0.0).tree_.right_low is not None


def test_cross_validated_error_wants_a_model_object(kmeans):
    X, y = kmeans
    with pytest.raises(InputError, match="model must be an estimator object.*class StarchartTree"):
        cross_validated_error(X, y, model=StarchartTree)
    with pytest.raises(InputError, match="model"):
        cross_validated_error(X, y, model="forest")


def test_choose_cp_on_an_empty_table_is_explained():
    with pytest.raises(InputError, match="not a CP table"):
        choose_cp(pd.DataFrame(columns=["CP", "nsplit", "rel error", "xerror", "xstd", "xrel"]))


def test_fit_pruned_takes_a_dict_of_columns(kmeans):
    X, y = kmeans
    columns = {name: X[name].to_numpy() for name in X.columns}
    tree, table = fit_pruned(columns, y, cv=5, seed=0)
    same, same_table = fit_pruned(X, y, cv=5, seed=0)
    pd.testing.assert_frame_equal(table, same_table)
    assert tree.n_leaves_ == same.n_leaves_


def test_a_dataset_passed_as_x_is_explained(kmeans_tree):
    import starchart

    data = starchart.load(dataset_path("starchart_kmeans/kmeans_hd7970.csv")).ok()
    with pytest.raises(InputError, match=r"got Dataset .*its \.X"):
        kmeans_tree.predict(data)
    with pytest.raises(InputError, match="got Dataset"):
        StarchartTree().fit(data, data.y("runtime"))
    np.testing.assert_array_equal(kmeans_tree.predict(data.X), kmeans_tree.predict(data.X.to_numpy()))


@pytest.mark.parametrize("seed", [1.5, -1, "x", True])
def test_bad_seeds_name_their_parameter(kmeans, seed):
    X, y = kmeans
    with pytest.raises(InputError, match="random_state must be None or an integer"):
        StarchartForest(n_estimators=2, random_state=seed).fit(X, y)
    with pytest.raises(InputError, match="seed must be None or an integer"):
        cross_validated_error(X, y, seed=seed)
    with pytest.raises(InputError, match="seed must be None or an integer"):
        fit_pruned(X, y, cv=5, seed=seed)


def test_all_zero_response_has_no_nan_percent_error():
    """The CLI printed "within nan % median error" under a pruned tree of an all-zero metric."""
    from starchart.tree import describe_error

    X = pd.DataFrame({"a": np.arange(30)})
    tree, table = fit_pruned(X, np.zeros(30), cv=10, seed=0)
    message = describe_error(float(table["xrel"].iloc[table.attrs["selected"]]))
    assert "nan" not in message and "not available" in message
    with pytest.raises(InputError, match="--prune 1se"):
        fit_pruned(X, np.zeros(30), cv=10, seed=0, rule="relative")


def test_split_labels_name_only_the_levels_that_reach_the_node():
    # naive is split off first; the second split on algo must not list it on either side
    from starchart.tree import split_labels

    rows = [{"algo": a, "n": n} for a in ("naive", "blocked", "tiled") for n in range(12)]
    times = {"naive": 100.0, "blocked": 10.0, "tiled": 1.0}
    X = pd.DataFrame(rows)
    y = [times[r["algo"]] + 0.01 * r["n"] for r in rows]
    tree = StarchartTree(min_samples_split=2).fit(X, y)
    inner = [node for node in tree.nodes_ if not node.is_leaf and node.feature == "algo"]
    labels = [split_labels(tree, node) for node in inner]
    assert len(inner) == 2
    second = labels[1]
    assert "naive" not in second[0] + second[1], labels
