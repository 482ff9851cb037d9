"""Tests of cost-complexity pruning, the CP table and cross-validated errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from shared_data import dataset_path

from starchart import StarchartTree
from starchart.errors import InputError
from starchart.tree._pruning import (
    CP_COLUMNS,
    choose_cp,
    collapse_alphas,
    cp_table,
    cross_validated_error,
    describe_error,
    fit_pruned,
    prune,
    pruning_path,
)


@pytest.fixture(scope="module")
def noisy() -> tuple[pd.DataFrame, np.ndarray]:
    """Continuous parameters (no ties), signal in a and b, noise everywhere."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.random((150, 3)), columns=["a", "b", "c"])
    y = np.sin(6 * X["a"]) + X["b"] ** 2 + rng.normal(0, 0.2, 150) + 3
    return X, y.to_numpy()


@pytest.fixture(scope="module")
def kmeans() -> tuple[pd.DataFrame, np.ndarray]:
    frame = pd.read_csv(dataset_path("starchart_kmeans/kmeans_hd7970.csv")).iloc[:200]
    return frame[["ppb", "tpp", "consec"]], frame["runtime"].to_numpy()


def splits(tree: StarchartTree) -> set[tuple]:
    """Splits identified by their node's sample statistics, comparable across subtrees."""
    return {(n.feature, n.threshold, n.n_samples, round(n.mean, 9)) for n in tree.nodes_
            if not n.is_leaf}


# ------------------------------------------------------------------- the path
def test_path_matches_scikit_learn(noisy):
    """Weakest-link pruning is unique: scikit-learn's path on the same tree is ours / n."""
    tree_module = pytest.importorskip("sklearn.tree")
    X, y = noisy
    ours = StarchartTree().fit(X, y)
    theirs = tree_module.DecisionTreeRegressor(min_samples_split=10, random_state=0).fit(X, y)
    assert ours.n_leaves_ == theirs.get_n_leaves()
    reference = theirs.cost_complexity_pruning_path(X, y)
    path = pruning_path(ours)
    np.testing.assert_allclose(path.alphas, reference.ccp_alphas * len(y), rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(path.sse, reference.impurities * len(y), rtol=1e-7)
    for alpha in reference.ccp_alphas[1::5]:
        pruned_theirs = tree_module.DecisionTreeRegressor(min_samples_split=10, random_state=0,
                                                          ccp_alpha=alpha).fit(X, y)
        pruned_ours = prune(ours, alpha * len(y))
        assert pruned_ours.n_leaves_ == pruned_theirs.get_n_leaves()
        np.testing.assert_allclose(pruned_ours.predict(X), pruned_theirs.predict(X), rtol=1e-12)


def test_path_is_monotone_and_nested(kmeans):
    X, y = kmeans
    tree = StarchartTree().fit(X, y)
    path = pruning_path(tree)
    assert path.alphas[0] == 0 and np.all(np.diff(path.alphas) > 0)
    assert path.n_splits[0] == tree.n_leaves_ - 1 and path.n_splits[-1] == 0
    assert np.all(np.diff(path.n_splits) < 0)
    assert np.all(np.diff(path.sse) >= -1e-9 * path.root_sse)
    assert path.sse[-1] == pytest.approx(path.root_sse)
    previous = splits(tree)
    for alpha in path.alphas:
        subtree = prune(tree, alpha)
        assert subtree.n_leaves_ - 1 == path.n_splits[list(path.alphas).index(alpha)]
        assert splits(subtree) <= previous  # each subtree is pruned from the one before
        previous = splits(subtree)
    # an ancestor never collapses before its descendants
    alpha = collapse_alphas(tree)
    inner = np.flatnonzero(tree.tree_.feature >= 0)
    parents = tree.tree_.parent[inner[inner > 0]]
    assert np.all(alpha[parents] >= alpha[inner[inner > 0]])


def test_alpha_zero_is_the_full_tree_and_infinity_the_root(kmeans):
    X, y = kmeans
    tree = StarchartTree().fit(X, y)
    full = prune(tree, 0.0)
    assert full.n_leaves_ == tree.n_leaves_
    np.testing.assert_array_equal(full.predict(X), tree.predict(X))
    assert full.export_text() == tree.export_text()
    root = prune(tree, np.inf)
    assert root.n_leaves_ == 1 and root.leaves_[0].description == "all designs"
    np.testing.assert_allclose(root.predict(X), np.mean(y))
    assert prune(tree, cp=1e9).n_leaves_ == 1


def test_pruned_tree_is_a_real_tree(kmeans):
    X, y = kmeans
    tree = StarchartTree().fit(X, y)
    path = pruning_path(tree)
    small = prune(tree, path.alphas[-3])
    assert small.n_leaves_ == path.n_splits[-3] + 1
    assert small.tree_.sse[small.tree_.feature < 0].sum() == pytest.approx(path.sse[-3])
    # leaves partition the training designs; prediction = the mean of the leaf's samples
    masks = np.array([leaf.contains(X) for leaf in small.leaves_])
    assert np.all(masks.sum(axis=0) == 1)
    for leaf, mask in zip(small.leaves_, masks):
        assert leaf.n_samples == mask.sum()
        np.testing.assert_allclose(small.predict(X[mask]), y[mask].mean())
    assert small.export_text().count("leaf") == small.n_leaves_
    again = StarchartTree.from_json(small.to_json())
    np.testing.assert_array_equal(again.predict(X), small.predict(X))
    assert json.loads(small.to_json())["arrays"]["parent"][0] == -1
    assert tree.n_leaves_ == path.n_splits[0] + 1  # the original is untouched


def test_pruning_keeps_categorical_splits():
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"kind": rng.choice(["a", "b", "c", "d"], 120), "n": rng.integers(0, 8, 120)})
    y = X["kind"].map({"a": 1.0, "b": 5.0, "c": 1.2, "d": 5.1}) + 0.1 * X["n"] \
        + rng.normal(0, 0.05, 120)
    tree = StarchartTree().fit(X, y)
    path = pruning_path(tree)
    top = prune(tree, path.alphas[-2])  # one split: the categorical one
    assert top.n_leaves_ == 2 and top.root_.feature == "kind"
    assert sorted(top.root_.left_levels) in (["a", "c"], ["b", "d"])
    np.testing.assert_allclose(top.predict(pd.DataFrame({"kind": ["a", "d"], "n": [0, 0]})),
                               [y[X["kind"].isin(["a", "c"])].mean(),
                                y[X["kind"].isin(["b", "d"])].mean()])


# ------------------------------------------------------------------ CP table
def test_cp_table_follows_rpart(kmeans):
    X, y = kmeans
    tree = StarchartTree().fit(X, y)
    table = cp_table(tree, X, y, folds=5, seed=1)
    assert list(table.columns) == CP_COLUMNS
    assert table["nsplit"].iloc[0] == 0 and table["rel error"].iloc[0] == pytest.approx(1.0)
    assert table["nsplit"].iloc[-1] == tree.n_leaves_ - 1 and table["CP"].iloc[-1] == 0
    assert np.all(np.diff(table["CP"]) < 0) and np.all(np.diff(table["rel error"]) <= 1e-12)
    root_sse = np.sum((y - y.mean()) ** 2)
    np.testing.assert_allclose(table["CP"] * root_sse, table.attrs["alpha"])
    # Rebuild the first and last rows' cross-validation by hand: the root of each fold
    # predicts its training mean; the last row is each fold's full tree.
    fold = np.random.default_rng(1).permutation(np.arange(len(y)) % 5)
    first, last = np.empty(len(y)), np.empty(len(y))
    for k in range(5):
        test = fold == k
        first[test] = y[~test].mean()
        last[test] = StarchartTree().fit(X[~test], y[~test]).predict(X[test])
    for row, predicted in ((0, first), (-1, last)):
        loss = (predicted - y) ** 2
        assert table["xerror"].iloc[row] == pytest.approx(loss.sum() / root_sse)
        spread = np.sqrt(np.sum((loss - loss.mean()) ** 2)) / root_sse
        assert table["xstd"].iloc[row] == pytest.approx(spread)
        assert table["xrel"].iloc[row] == pytest.approx(np.median(np.abs(predicted - y) / y))


def test_cp_table_is_deterministic_per_seed(kmeans):
    X, y = kmeans
    tree = StarchartTree().fit(X, y)
    pd.testing.assert_frame_equal(cp_table(tree, X, y, seed=4), cp_table(tree, X, y, seed=4))
    assert not cp_table(tree, X, y, seed=4)["xerror"].equals(cp_table(tree, X, y, seed=5)["xerror"])


def test_one_standard_error_rule():
    table = pd.DataFrame({"CP": [0.5, 0.1, 0.05, 0.01, 0.0], "nsplit": [0, 1, 2, 4, 6],
                          "rel error": [1.0, 0.5, 0.3, 0.2, 0.1],
                          "xerror": [1.0, 0.6, 0.42, 0.40, 0.45],
                          "xstd": [0.1, 0.05, 0.04, 0.03, 0.03],
                          "xrel": [0.5, 0.3, 0.2, 0.25, 0.2]})
    assert choose_cp(table, "min") == 3
    assert choose_cp(table, "1se") == 2  # 0.42 ≤ 0.40 + 0.03; 0.6 is not
    assert choose_cp(table, "relative") == 2  # the smaller of the two equal trees
    with pytest.raises(InputError, match="rule"):
        choose_cp(table, "2se")


def test_fit_pruned(kmeans):
    X, y = kmeans
    full = StarchartTree().fit(X, y)
    tree, table = fit_pruned(X, y, cv=10, seed=0)
    row = table.attrs["selected"]
    assert row == choose_cp(table, "1se") and table.attrs["rule"] == "1se"
    assert tree.n_leaves_ == table["nsplit"].iloc[row] + 1 <= full.n_leaves_
    assert splits(tree) <= splits(full)
    relative, table_rel = fit_pruned(X, y, cv=10, seed=0, rule="relative")
    assert relative.n_leaves_ == table_rel["nsplit"].iloc[table_rel.attrs["selected"]] + 1
    deep, _ = fit_pruned(X, y, cv=10, seed=0, min_samples_split=4)
    assert deep.min_samples_split == 4


def test_constant_response_is_one_leaf():
    X = pd.DataFrame({"a": np.arange(20)})
    tree, table = fit_pruned(X, np.full(20, 3.0), cv=5)
    assert tree.n_leaves_ == 1 and len(table) == 1
    assert table[["rel error", "xerror", "xstd", "xrel"]].to_numpy().tolist() == [[0, 0, 0, 0]]


# ----------------------------------------------------- cross-validated error
def test_cross_validated_error(kmeans):
    X, y = kmeans
    error = cross_validated_error(X, y, folds=5, seed=0)
    assert error == cross_validated_error(X, y, folds=5, seed=0)
    assert error != cross_validated_error(X, y, folds=5, seed=1)
    fold = np.random.default_rng(0).permutation(np.arange(len(y)) % 5)
    predicted = np.empty(len(y))
    for k in range(5):
        test = fold == k
        predicted[test] = StarchartTree().fit(X[~test], y[~test]).predict(X[test])
    assert error == pytest.approx(np.median(np.abs(predicted - y) / y))
    assert 0 < error < 0.5
    assert describe_error(error).startswith("predicts unseen configurations within ")
    # any estimator with get_params/fit/predict can be validated the same way
    from starchart.tree import StarchartForest
    forest_error = cross_validated_error(X, y, folds=5, seed=0,
                                         model=StarchartForest(n_estimators=10, random_state=0))
    assert 0 < forest_error < 0.5


def test_bad_input():
    X = pd.DataFrame({"a": np.arange(12) % 4})
    y = np.arange(12) + 1.0
    tree = StarchartTree().fit(X, y)
    with pytest.raises(InputError, match="alpha must be a number ≥ 0"):
        prune(tree, -1)
    with pytest.raises(InputError, match="exactly one"):
        prune(tree, 1.0, cp=0.1)
    with pytest.raises(InputError, match="exactly one"):
        prune(tree)
    with pytest.raises(InputError, match="StarchartTree"):
        prune("tree", 1.0)
    with pytest.raises(InputError, match="folds"):
        cross_validated_error(X, y, folds=1)
    with pytest.raises(InputError, match="13 folds need at least 13 samples"):
        cross_validated_error(X, y, folds=13)
    with pytest.raises(InputError, match="every response is 0"):
        cross_validated_error(X, np.zeros(12), folds=3)
    with pytest.raises(InputError, match="fitted on 12 samples"):
        cp_table(tree, X.iloc[:6], y[:6], folds=3)
    with pytest.raises(InputError, match="together with a model"):
        cross_validated_error(X, y, model=StarchartTree(), max_depth=2)
    with pytest.raises(InputError, match="missing or infinite"):
        fit_pruned(X, np.r_[y[:-1], np.nan])
