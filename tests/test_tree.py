"""Tests of the Starchart tree: the paper's algorithm exactly, and its readable outputs."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from shared_data import dataset_path

import starchart.tree._growth as growth
from starchart import StarchartTree
from starchart.errors import InputError, NotFittedError


def literal_starchart(X: pd.DataFrame, y: np.ndarray, splittable: int = 10) -> list[tuple]:
    """The R tool's algorithm transcribed literally, in exact rational arithmetic.

    Returns the splits (parameter, threshold, node size) in the R tool's node order.
    Ties: ``which.max`` takes the first maximum, i.e. first parameter, then smallest value.
    """
    queue, splits = [(X, [Fraction(v) for v in y])], []
    while queue:
        x, yy = queue.pop(0)
        best = (Fraction(0), None, None)
        if len(x) >= splittable:
            n, total = len(yy), sum(yy)
            for name in x.columns:
                values = x[name].to_numpy()
                for v in np.unique(values)[:-1]:
                    left = [r for r, keep in zip(yy, values <= v) if keep]
                    nl, sl = len(left), sum(left)
                    gain = Fraction(nl * (n - nl), n) * (sl / nl - (total - sl) / (n - nl)) ** 2
                    if gain > best[0]:
                        best = (gain, name, v)
        if best[1] is None:
            continue
        splits.append((best[1], float(best[2]), len(x)))
        mask = x[best[1]].to_numpy() <= best[2]
        queue.append((x[mask], [r for r, k in zip(yy, mask) if k]))
        queue.append((x[~mask], [r for r, k in zip(yy, ~mask) if k]))
    return splits


def splits_of(tree: StarchartTree) -> list[tuple]:
    return [(n.feature, n.threshold, n.n_samples) for n in tree.nodes_ if not n.is_leaf]


# --------------------------------------------------------------- the authors' data
@pytest.fixture(scope="module")
def kmeans() -> pd.DataFrame:
    return pd.read_csv(dataset_path("starchart_kmeans/kmeans_hd7970.csv"))


@pytest.mark.parametrize("rows, metric, leaves", [
    (100, "runtime", 16), (200, "runtime", 34), (500, "runtime", 93),
    (100, "wattage", 22), (200, "wattage", 45), (500, "wattage", 101),
])
def test_kmeans_tree_matches_the_r_tool(kmeans, rows, metric, leaves):
    X, y = kmeans[["ppb", "tpp", "consec"]].iloc[:rows], kmeans[metric].to_numpy()[:rows]
    tree = StarchartTree().fit(X, y)
    assert tree.n_leaves_ == leaves
    assert len(tree.leaves_) == leaves
    assert sum(leaf.n_samples for leaf in tree.leaves_) == rows


def test_kmeans_runtime_top_splits(kmeans):
    tree = StarchartTree().fit(kmeans[["ppb", "tpp", "consec"]], kmeans["runtime"])
    root = tree.root_
    left, right = tree.nodes_[root.left], tree.nodes_[root.right]
    assert (root.feature, root.threshold) == ("tpp", 1.0)
    assert (left.n_samples, right.n_samples) == (122, 378)
    assert (left.feature, left.threshold) == ("ppb", 129.0)
    assert (right.feature, right.threshold) == ("tpp", 2.0)
    assert tree.importance_.idxmax() == "tpp"


def test_kmeans_every_split_equals_the_literal_algorithm(kmeans):
    X, y = kmeans[["ppb", "tpp", "consec"]].iloc[:200], kmeans["runtime"].to_numpy()[:200]
    assert splits_of(StarchartTree().fit(X, y)) == literal_starchart(X, y)


# ------------------------------------------------------------ exactness, ties
@pytest.mark.parametrize("max_histogram", [256, 1])
def test_random_integer_data_matches_exact_arithmetic(monkeypatch, max_histogram):
    # Integer responses make exact ties common: the tie rule must decide, not float noise.
    # max_histogram=1 forces the sorted-scan path for every parameter with > 1 value.
    monkeypatch.setattr(growth, "MAX_HISTOGRAM_CODES", max_histogram)
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(5, 60))
        X = pd.DataFrame({c: rng.integers(0, rng.integers(1, 6), n) for c in "abcd"})
        y = rng.integers(0, 4, n).astype(float)
        assert splits_of(StarchartTree(min_samples_split=3).fit(X, y)) == \
            literal_starchart(X, y, splittable=3)


def test_tie_goes_to_first_parameter_then_smallest_threshold():
    # a and b induce the same partition: the first column wins.
    X = pd.DataFrame({"b": [0, 0, 1, 1], "a": [5, 5, 9, 9]})
    tree = StarchartTree(min_samples_split=2).fit(X, [1.0, 1.0, 3.0, 3.0])
    assert tree.root_.feature == "b"
    # Two thresholds of one parameter with equal gain: the smaller one wins.
    X = pd.DataFrame({"p": [1, 2, 3]})
    tree = StarchartTree(min_samples_split=2, max_depth=1).fit(X, [0.0, 1.0, 2.0])
    assert tree.root_.threshold == 1.0


def test_stopping_rules():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 8, 300), "b": rng.integers(0, 8, 300)})
    y = X["a"] * 3.0 + X["b"] + rng.normal(0, 0.1, 300)
    full = StarchartTree().fit(X, y)
    shallow = StarchartTree(max_depth=2).fit(X, y)
    assert shallow.depth_ == 2 and shallow.n_leaves_ == 4
    big_nodes = StarchartTree(min_samples_split=100).fit(X, y)
    assert all(n.n_samples >= 100 for n in big_nodes.nodes_ if not n.is_leaf)
    assert big_nodes.n_leaves_ < full.n_leaves_
    # A large threshold keeps only splits that explain much variation.
    coarse = StarchartTree(threshold=0.05 * full.root_.sse).fit(X, y)
    assert coarse.n_leaves_ < full.n_leaves_
    assert all(n.improvement > 0.05 * full.root_.sse for n in coarse.nodes_ if not n.is_leaf)
    assert StarchartTree().fit(X, np.full(300, 2.0)).n_leaves_ == 1  # nothing to explain


def test_node_statistics_are_those_of_their_samples():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.integers(0, 5, 80), "b": rng.integers(0, 3, 80)})
    y = rng.random(80)
    tree = StarchartTree(min_samples_split=5).fit(X, y)
    leaf_of = tree.apply(X)
    for node in tree.nodes_:
        if node.is_leaf:
            values = y[leaf_of == node.id]
            assert node.n_samples == len(values)
            assert node.mean == pytest.approx(values.mean())
            assert node.sse == pytest.approx(((values - values.mean()) ** 2).sum(), abs=1e-12)
            assert (node.min, node.max) == (values.min(), values.max())
    assert tree.root_.min == y.min() and tree.root_.max == y.max()
    # The SSE reductions add up: root SSE = Σ improvements + Σ leaf SSE.
    total = sum(n.improvement for n in tree.nodes_) + sum(n.sse for n in tree.nodes_ if n.is_leaf)
    assert total == pytest.approx(tree.root_.sse)
    assert tree.importance_.sum() == pytest.approx(sum(n.improvement for n in tree.nodes_))


def test_repeated_configurations_match_the_literal_algorithm():
    # Rows sharing a configuration are merged before growing; the splits must not change.
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"a": rng.integers(0, 4, 30), "b": rng.integers(0, 3, 30)})
    reps = rng.integers(0, 30, 90)
    Xr = X.iloc[reps].reset_index(drop=True)
    y = rng.integers(0, 5, 90).astype(float)
    tree = StarchartTree(min_samples_split=4).fit(Xr, y)
    assert tree.n_samples_ == 90
    assert splits_of(tree) == literal_starchart(Xr, y, splittable=4)


# --------------------------------------------------------------------- categorical
def test_categorical_parameter_uses_breiman_ordering():
    X = pd.DataFrame({"platform": ["amd", "nvidia", "intel", "amd", "nvidia", "intel"] * 5,
                      "block": [64, 128] * 15})
    speed = {"amd": 5.0, "nvidia": 1.0, "intel": 5.2}
    y = X["platform"].map(speed).to_numpy() + np.where(X["block"] == 64, 0.0, 0.01)
    tree = StarchartTree(min_samples_split=4).fit(X, y)
    root = tree.root_
    assert root.feature == "platform"
    assert root.left_levels == ["nvidia"]  # the lowest-mean level is split off first
    assert tree.param_kinds_["platform"] == "categorical"
    descriptions = [leaf.description for leaf in tree.leaves_]
    assert any("platform = nvidia" in d for d in descriptions)
    assert tree.predict(pd.DataFrame({"platform": ["nvidia", "amd"], "block": [64, 64]}))[0] < 2
    # Unseen level: follows the bigger child instead of failing.
    assert np.isfinite(tree.predict(pd.DataFrame({"platform": ["arm"], "block": [64]}))).all()


# ------------------------------------------------------------ prediction, regions
def test_predict_apply_and_leaves_agree():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"tpp": rng.choice([1, 2, 4, 8, 16], 200), "consec": rng.integers(0, 2, 200)})
    y = 10.0 / X["tpp"] + X["consec"] * (X["tpp"] <= 8) + rng.normal(0, 0.01, 200)
    tree = StarchartTree().fit(X, y)
    leaf_ids = tree.apply(X)
    assert set(leaf_ids) == {leaf.node_id for leaf in tree.leaves_}
    means = {leaf.node_id: leaf.mean for leaf in tree.leaves_}
    np.testing.assert_allclose(tree.predict(X), [means[i] for i in leaf_ids])
    for leaf in tree.leaves_:  # each leaf's region holds exactly its training rows
        np.testing.assert_array_equal(leaf.contains(X), leaf_ids == leaf.node_id)
    # Values never seen in training are routed by comparison with the thresholds.
    assert np.isfinite(tree.predict(pd.DataFrame({"tpp": [3, 1000], "consec": [0, 1]}))).all()


def test_leaf_regions_hold_what_apply_routes_there_including_unsampled_values(kmeans):
    """A tree fitted on a sample describes regions of the whole space: 'tpp > 12' holds tpp = 13 too."""
    X = kmeans[["ppb", "tpp", "consec"]]
    sample = kmeans.sample(100, random_state=1)
    tree = StarchartTree().fit(sample[["ppb", "tpp", "consec"]], sample["runtime"])
    unsampled = ~X["tpp"].isin(sample["tpp"])
    assert unsampled.any()
    leaf_ids = tree.apply(X)
    for leaf in tree.leaves_:
        np.testing.assert_array_equal(leaf.contains(X), leaf_ids == leaf.node_id, err_msg=leaf.description)
    assert sum(leaf.contains(X[unsampled]).sum() for leaf in tree.leaves_) == unsampled.sum()


def test_leaf_descriptions_are_readable():
    X = pd.DataFrame({"tpp": [1, 1, 2, 2, 4, 4, 8, 8, 16, 16, 16, 1], "consec": [0, 1] * 6})
    y = [9.0, 9.2, 5.0, 5.1, 3.0, 3.2, 2.9, 3.1, 3.0, 3.1, 2.9, 9.1]
    tree = StarchartTree(min_samples_split=4, max_depth=2).fit(X, y)
    assert [leaf.description for leaf in tree.leaves_] == ["tpp = 1", "tpp = 2", "tpp > 2"]
    assert tree.leaves_[1].allowed == {"tpp": [2]}
    assert tree.leaves_[2].allowed == {"tpp": [4, 8, 16]}
    X = pd.DataFrame({"tpp": [1, 2, 4, 8, 16, 32] * 4})
    tree = StarchartTree(min_samples_split=2, max_depth=2).fit(X, [9.0, 5, 5, 2, 2, 2] * 4)
    assert [leaf.description for leaf in tree.leaves_] == ["tpp = 1", "1 < tpp ≤ 4", "tpp > 4"]


def test_best_leaf_by_mean_and_by_worst_case():
    X = pd.DataFrame({"a": [0] * 10 + [1] * 10 + [2] * 10})
    y = np.r_[np.full(10, 5.0), [1.0] * 9 + [20.0], np.full(10, 2.0)]
    tree = StarchartTree(min_samples_split=5, max_depth=2).fit(X, y)
    assert tree.best_leaf().allowed == {"a": [2]}  # mean 2.0 beats mean 2.9
    assert tree.best_leaf(minimize=True, stat="max").max == 2.0
    assert tree.best_leaf(minimize=False).mean == 5.0
    with pytest.raises(InputError, match="stat"):
        tree.best_leaf(stat="median")


def test_importance_within_a_subtree():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"tpp": rng.choice([1, 8], 400), "consec": rng.integers(0, 2, 400)})
    # consec matters only when tpp ≤ 1 (the paper's interaction example).
    y = np.where(X["tpp"] == 1, 10 + 5 * X["consec"], 1.0) + rng.normal(0, 0.01, 400)
    tree = StarchartTree().fit(X, y)
    assert tree.root_.feature == "tpp"
    left, right = tree.root_.left, tree.root_.right
    assert tree.importance(left).idxmax() == "consec"
    assert tree.importance(right)["consec"] < 0.01 * tree.importance(left)["consec"]
    assert tree.importance(normalize=True).sum() == pytest.approx(1.0)


# ------------------------------------------------------------------ serialisation
def test_json_round_trip_keeps_everything(kmeans):
    X, y = kmeans[["ppb", "tpp", "consec"]], kmeans["wattage"]
    tree = StarchartTree(min_samples_split=8).fit(X, y)
    again = StarchartTree.from_json(tree.to_json())
    np.testing.assert_array_equal(again.predict(X), tree.predict(X))
    assert again.export_text() == tree.export_text()
    assert [leaf.description for leaf in again.leaves_] == [leaf.description for leaf in tree.leaves_]
    assert again.get_params() == tree.get_params()
    json.loads(tree.to_json())  # plain JSON
    cat = StarchartTree(min_samples_split=2).fit(pd.DataFrame({"p": ["a", "b", "c", "a"]}), [1, 5, 9, 1])
    assert StarchartTree.from_json(cat.to_json()).predict(pd.DataFrame({"p": ["c"]}))[0] == 9
    with pytest.raises(InputError, match="not a Starchart tree"):
        StarchartTree.from_json('{"x": 1}')


def test_text_and_dot_exports(kmeans):
    tree = StarchartTree().fit(kmeans[["ppb", "tpp", "consec"]].iloc[:100], kmeans["runtime"].iloc[:100])
    text = tree.export_text()
    assert text.splitlines()[0].startswith("[0] all designs  n=100")
    assert "tpp ≤ 1" in text and "tpp > 1" in text
    assert text.count("leaf") == 16
    assert len(tree.export_text(max_depth=1).splitlines()) == 3
    dot = tree.to_dot()
    assert dot.startswith("digraph starchart {") and dot.rstrip().endswith("}")
    assert dot.count("shape=ellipse") == 16 and '"tpp ≤ 1"' in dot


# ---------------------------------------------------------------------- errors
def test_bad_input_is_explained():
    X = pd.DataFrame({"a": [1, 2, 3]})
    with pytest.raises(InputError, match="3 rows but y has 2"):
        StarchartTree().fit(X, [1.0, 2.0])
    with pytest.raises(InputError, match="missing or infinite value at row 1"):
        StarchartTree().fit(X, [1.0, np.nan, 2.0])
    with pytest.raises(InputError, match="missing values"):
        StarchartTree().fit(pd.DataFrame({"a": [1.0, None, 3.0]}), [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="min_samples_split"):
        StarchartTree(min_samples_split=1).fit(X, [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="threshold"):
        StarchartTree(threshold=-1).fit(X, [1.0, 2.0, 3.0])
    with pytest.raises(NotFittedError, match="not fitted"):
        StarchartTree().predict(X)
    tree = StarchartTree(min_samples_split=2).fit(X, [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="missing parameter column"):
        tree.predict(pd.DataFrame({"b": [1]}))


def test_numpy_input_and_sklearn_style_params():
    tree = StarchartTree().set_params(min_samples_split=2)
    tree.fit(np.array([[1, 0], [1, 1], [2, 0], [2, 1]]), [1.0, 1.1, 3.0, 3.1])
    assert tree.feature_names_in_ == ["x0", "x1"]
    assert tree.root_.feature == "x0"
    assert "StarchartTree(threshold=0.0, min_samples_split=2" in repr(tree)


def test_leaves_frame_lists_every_leaf(kmeans):
    tree = StarchartTree().fit(kmeans[["ppb", "tpp", "consec"]].iloc[:100], kmeans["runtime"].iloc[:100])
    frame = tree.leaves_frame()
    assert len(frame) == 16 and frame["n_samples"].sum() == 100
    assert list(frame["description"]) == [leaf.description for leaf in tree.leaves_]


def test_unique_rows_matches_numpy_even_when_two_rows_share_a_hash():
    from starchart.tree._growth import _row_hash_weights, _unique_rows

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, size=(300, 40))
    codes = np.concatenate([codes, codes[:100]])
    expected = np.unique(codes, axis=0, return_index=True, return_inverse=True)
    first, inverse = _unique_rows(codes)
    assert np.array_equal(first, expected[1]) and np.array_equal(inverse, expected[2].reshape(-1))
    # rows a = (m1, 0), b = (0, m0) hash alike (a·m = m1·m0 = b·m): the exact sort must take over
    mix = _row_hash_weights(2)
    clash = np.array([[mix[1], 0], [0, mix[0]], [mix[1], 0]], dtype=np.int64)
    first, inverse = _unique_rows(clash)
    assert len(first) == 2 and inverse.tolist() == [1, 0, 1]
