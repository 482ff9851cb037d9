"""Linear leaf models: the same splits, each leaf predicting by a line in its numeric parameters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from starchart import StarchartTree
from starchart.errors import InputError
from starchart.tree import fit_pruned


def kinked():
    """A response of two straight pieces, and a categorical parameter that shifts it."""
    x = np.tile(np.arange(20), 2)
    mode = np.repeat(["a", "b"], 20)
    y = np.where(x < 10, 3.0 * x, 100.0 - 2.0 * x) + np.where(mode == "b", 0.5, 0.0)
    return pd.DataFrame({"x": x, "mode": mode}), y


def test_linear_leaves_fit_straight_pieces_that_mean_leaves_only_step_through():
    X, y = kinked()
    mean = StarchartTree(min_samples_split=2, max_depth=2).fit(X, y)
    line = StarchartTree(min_samples_split=2, max_depth=2, leaf_model="linear").fit(X, y)
    assert mean.n_leaves_ == line.n_leaves_ and mean.export_text() == line.export_text()  # the same splits
    assert line.leaf_columns_ == ["x"]  # the categorical parameter has no line
    assert np.max(np.abs(line.predict(X) - y)) < 0.3 < np.max(np.abs(mean.predict(X) - y))


def test_a_line_is_clipped_to_its_leafs_responses_and_a_small_leaf_keeps_its_mean():
    X = pd.DataFrame({"x": [1, 2, 3, 4, 10, 11]})
    y = np.array([1.0, 2.0, 3.0, 4.0, 50.0, 51.0])
    tree = StarchartTree(min_samples_split=2, max_depth=1, leaf_model="linear").fit(X, y)
    low, high = tree.leaves_
    assert not np.isnan(tree.leaf_coef_[low.node_id]).any() and np.isnan(tree.leaf_coef_[high.node_id]).all()
    # 2.5 on the line; 0 below the leaf's designs, its line (0) clipped to its smallest response; 6 and 10 in the
    # leaf of two designs, which keeps its mean
    assert tree.predict(pd.DataFrame({"x": [2.5, 0, 6, 10]})).tolist() == [2.5, 1.0, 50.5, 50.5]


def test_linear_leaves_round_trip_through_json_and_are_a_parameter():
    X, y = kinked()
    tree = StarchartTree(min_samples_split=4, leaf_model="linear").fit(X, y)
    again = StarchartTree.from_json(tree.to_json())
    assert np.array_equal(again.predict(X), tree.predict(X))
    assert "leaf_model='linear'" in repr(again) and again.get_params()["leaf_model"] == "linear"
    with pytest.raises(InputError, match="leaf_model: must be 'mean' or 'linear', got 'cubic'"):
        StarchartTree(leaf_model="cubic").fit(X, y)
    with pytest.raises(InputError, match="pruning sizes a tree of mean leaves"):
        fit_pruned(X, y, leaf_model="linear")


def test_linear_leaves_need_fewer_levels_on_the_authors_kmeans(kmeans_runtime):
    X, y = kmeans_runtime
    order = np.random.default_rng(0).permutation(len(X))
    train, test = order[:200], order[200:]

    def error(**options):
        tree = StarchartTree(**options).fit(X.iloc[train], y[train])
        return float(np.median(np.abs(tree.predict(X.iloc[test]) - y[test]) / y[test])), tree.n_leaves_

    (deep, deep_leaves), (shallow, shallow_leaves) = error(), error(max_depth=4, leaf_model="linear")
    assert shallow_leaves < deep_leaves / 2 and shallow <= deep * 1.1  # a third of the leaves, the same error


@pytest.fixture
def kmeans_runtime():
    from starchart import datasets

    ds = datasets.load_kmeans()
    return ds.X, ds.y("runtime")
