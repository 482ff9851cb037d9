"""Tests of the Starchart tree: the paper's algorithm exactly, and its readable outputs."""

from __future__ import annotations

import json
import pickle
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from shared_data import dataset_path
from typer.testing import CliRunner

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


def test_top_splits_shows_the_splits_that_explain_most_and_the_way_to_the_best_leaf(kmeans):
    tree = StarchartTree().fit(kmeans[["ppb", "tpp", "consec"]], kmeans["runtime"])
    internal = [n for n in tree.nodes_ if not n.is_leaf]
    top = sorted(internal, key=lambda n: -n.improvement)[:3]
    best = tree.best_leaf().node_id
    text = tree.export_text(top_splits=3)
    shown = {int(line.split("[")[1].split("]")[0]) for line in text.splitlines()}
    on_the_way, node = set(), tree.nodes_[best].parent
    while node is not None:
        on_the_way.add(node)
        node = tree.nodes_[node].parent
    assert {n.id for n in top} | on_the_way | {best} <= shown
    # a split is drawn only when it explains most, leads to the best leaf, or lies above one that does
    drawn_splits = {i for i in shown if not tree.nodes_[i].is_leaf and tree.nodes_[i].left in shown}
    assert drawn_splits == {n.id for n in top} | on_the_way
    # max_depth=3 spends splits on ppb under tpp ≤ 1, whose means differ by under 1 %: top_splits does not
    assert "ppb ≤ 129" in tree.export_text(max_depth=3) and "ppb ≤ 129" not in text
    assert "(+48 nodes below)" in text.splitlines()[1]
    dot = tree.to_dot(top_splits=3)
    assert dot.count("[shape=") == len(shown) and dot.count("nodes below") == text.count("nodes below")
    slow = tree.export_text(top_splits=1, minimize=False)  # the way to the slowest leaf instead
    assert f"[{tree.best_leaf(minimize=False).node_id}] leaf" in slow and f"[{best}] leaf" not in slow
    with pytest.raises(InputError, match="top_splits: must be None or an integer ≥ 1, got 0"):
        tree.export_text(top_splits=0)


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


# ---------------------------------------------------------------------- review rounds (test_tree_user_edges)
# What a demanding user met with the Starchart tree, its exports and its report: categorical levels
# absent from a node, string levels holding ", ", dollar signs in names, the best leaf of a maximised
# metric, report paths that cannot be written, and the edge cases of data (one row, a constant response,
# only categorical parameters, unicode, thousands of levels).


# ----------------------------------------------------------- levels absent from a node
def _absent_level_frame(majority_left: bool) -> tuple[pd.DataFrame, list[float]]:
    """Node 2 (x = 2) splits c, and level "c" has no sample there: it is seen only where x = 1."""
    a, b = (5, 4) if majority_left else (4, 5)
    X = pd.DataFrame({"x": [1] * 6 + [2] * (a + b),
                      "c": ["a", "b", "c", "a", "b", "c"] + ["a"] * a + ["b"] * b})
    y = [1, 1, 1, 1, 1, 1.1] + [10.0] * a + [20.0] * b
    return X, y


def test_a_level_absent_from_a_node_follows_the_majority_of_its_samples():
    X, y = _absent_level_frame(majority_left=True)
    tree = StarchartTree(min_samples_split=2).fit(X, y)
    node = tree.nodes_[2]
    assert node.feature == "c" and tree.nodes_[node.left].n_samples == 5 and tree.nodes_[node.right].n_samples == 4
    # "c" goes with the 5 samples of "a" (it went right, to the 4 of "b", before)
    assert tree.predict(pd.DataFrame({"x": [2], "c": ["c"]})).tolist() == [10.0]
    assert node.left_levels == ["a", "c"] and node.right_levels == ["b"]
    # every reading of the tree says the same
    descriptions = {leaf.node_id: leaf.description for leaf in tree.leaves_}
    assert descriptions[node.left] == "x = 2 ∧ c ∈ {a, c}" and descriptions[node.right] == "x = 2 ∧ c = b"
    assert "c ∈ {a, c}  [5] leaf" in tree.export_text()
    assert 'label="c ∈ {a, c}"' in tree.to_dot()
    grid = pd.DataFrame({"x": [1, 1, 1, 2, 2, 2], "c": ["a", "b", "c"] * 2})
    for leaf in tree.leaves_:
        assert (leaf.contains(grid) == (tree.apply(grid) == leaf.node_id)).all(), leaf.description
    # a saved tree routes it alike
    again = StarchartTree.from_json(tree.to_json())
    assert again.predict(grid).tolist() == tree.predict(grid).tolist()
    assert pickle.loads(pickle.dumps(tree)).predict(grid).tolist() == tree.predict(grid).tolist()


def test_a_level_absent_from_a_node_stays_right_when_most_samples_go_right():
    X, y = _absent_level_frame(majority_left=False)
    tree = StarchartTree(min_samples_split=2).fit(X, y)
    node = tree.nodes_[2]
    assert node.left_levels == ["a"] and node.right_levels == ["b", "c"]
    assert tree.predict(pd.DataFrame({"x": [2], "c": ["c"]})).tolist() == [20.0]


def test_levels_an_earlier_split_sent_elsewhere_are_not_listed_at_a_later_one():
    # the root sends "d" right; below it on the left, "d" cannot arrive, so no side lists it
    X = pd.DataFrame({"c": ["a"] * 6 + ["b"] * 5 + ["d"] * 8})
    y = [1.0] * 6 + [2.0] * 5 + [9.0] * 8
    tree = StarchartTree(min_samples_split=2).fit(X, y)
    inner = [node for node in tree.nodes_[1:] if node.left_levels is not None]
    assert inner
    for node in inner:
        assert "d" not in node.left_levels + node.right_levels


def test_pnpoly_methods_as_categories_route_absent_levels_with_the_majority():
    """Real data: pnpoly's two method switches as named categories, trees grown on small samples,
    every design of the space routed. A level that reaches a split without training samples goes to
    the larger child, and each leaf's description holds exactly the designs predict() sends there."""
    import starchart

    data = starchart.load(dataset_path("pnpoly/RTX_3090.json.gz")).ok()
    X = data.X.assign(between_method="b" + data.X["between_method"].astype(str),
                      use_method="u" + data.X["use_method"].astype(str))
    y = data.y("time")
    checked = 0
    for seed in range(3):
        rows = np.random.default_rng(seed).choice(len(X), 150, replace=False)
        tree = StarchartTree(min_samples_split=4).fit(X.iloc[rows], y[rows])
        leaf_of = tree.apply(X)
        paths = {leaf: {node.id for node in tree.path(int(leaf))} for leaf in np.unique(leaf_of)}
        trained = X.iloc[rows]
        trained_leaf = leaf_of[rows]
        for node in tree.nodes_:
            if node.left_levels is None:
                continue
            here = np.array([node.id in paths[leaf] for leaf in trained_leaf])
            present = set(trained[node.feature][here])
            bigger = node.left if tree.nodes_[node.left].n_samples >= tree.nodes_[node.right].n_samples \
                else node.right
            for level in set(node.left_levels + node.right_levels) - present:
                checked += 1
                assert (level in node.left_levels) == (bigger == node.left), (seed, node.id, level)
                # the designs with that level that reach the node go on to the bigger child
                through = [leaf for leaf in set(leaf_of[(X[node.feature] == level).to_numpy()].tolist())
                           if node.id in paths[leaf]]
                assert through and all(bigger in paths[leaf] for leaf in through), (seed, node.id, level)
        for leaf in tree.leaves_:
            assert (leaf.contains(X) == (leaf_of == leaf.node_id)).all(), leaf.description
    assert checked >= 5  # the sample leaves levels out of some nodes (16 on these seeds)


def test_a_tree_saved_by_the_previous_version_loads_and_routes_as_it_was_grown():
    # starchart 65ebd10's to_json() of the majority-left frame: its node 2 lists only "a" on the left
    saved = ('{"format": "starchart-tree", "version": 1, "params": {"threshold": 0.0, "min_samples_split": 2, '
             '"max_depth": null}, "feature_names": ["x", "c"], "param_kinds": {"x": "ordered", "c": "categorical"}, '
             '"values": {"x": [1, 2], "c": ["a", "b", "c"]}, "arrays": {"parent": [-1, 0, 0, 1, 1, 2, 2], '
             '"depth": [0, 1, 1, 2, 2, 2, 2], "n_samples": [15, 6, 9, 4, 2, 5, 4], "mean": [9.073333333333332, '
             '1.0166666666666666, 14.444444444444445, 1.0, 1.05, 10.0, 20.0], "sse": [871.3293333333334, '
             '0.008333333333333347, 222.22222222222223, 0.0, 0.005000000000000009, 0.0, 0.0], "min": [1.0, 1.0, '
             '10.0, 1.0, 1.0, 10.0, 20.0], "max": [20.0, 1.1, 20.0, 1.0, 1.1, 10.0, 20.0], "feature": [0, 1, 1, '
             '-1, -1, -1, -1], "cut": [0, 1, 0, -1, -1, -1, -1], "left": [1, 3, 5, -1, -1, -1, -1], "right": '
             '[2, 4, 6, -1, -1, -1, -1], "improvement": [649.0987777777777, 0.003333333333333339, '
             '222.22222222222223, 0.0, 0.0, 0.0, 0.0]}, "left_levels": {"1": [0, 1], "2": [0]}}')
    tree = StarchartTree.from_json(saved)
    grid = pd.DataFrame({"x": [1, 1, 1, 2, 2, 2], "c": ["a", "b", "c"] * 2})
    assert tree.predict(grid).tolist() == [1.0, 1.0, 1.05, 10.0, 20.0, 20.0]  # as that version predicted
    for leaf in tree.leaves_:  # and what it says agrees with what it predicts
        assert (leaf.contains(grid) == (tree.apply(grid) == leaf.node_id)).all(), leaf.description
    assert json.loads(tree.to_json())["left_levels"] == {"1": [0, 1], "2": [0]}


def test_a_forest_routes_categorical_levels_as_its_trees_do():
    from starchart.tree import StarchartForest

    rng = np.random.default_rng(4)
    X = pd.DataFrame({"algo": rng.choice(list("pqrstu"), 120), "n": rng.choice([1, 2, 4, 8], 120)})
    y = X["algo"].map(dict(zip("pqrstu", [1.0, 2, 3, 5, 8, 13]))).to_numpy() * X["n"] + rng.normal(0, 0.1, 120)
    forest = StarchartForest(n_estimators=8, random_state=0).fit(X, y)
    grid = pd.DataFrame([(a, n) for a in "pqrstu" for n in (1, 2, 4, 8)], columns=["algo", "n"])
    by_tree = np.column_stack([tree.predict(grid) for tree in forest.estimators_])
    if forest.target_ == "log":
        by_tree = np.exp(by_tree)
    np.testing.assert_allclose(forest.predict_distribution(grid), by_tree)


# ---------------------------------------------------------------- how values read
def _levels_with_commas() -> tuple[pd.DataFrame, np.ndarray]:
    X = pd.DataFrame({"layout": ["x", "y, z", "z", "a{b}"] * 6})
    y = np.array([1.0, 2.0, 3.0, 4.0] * 6)
    return X, y


def test_string_levels_that_would_read_ambiguously_are_quoted_everywhere():
    X, y = _levels_with_commas()
    tree = StarchartTree(min_samples_split=2).fit(X, y)
    descriptions = [leaf.description for leaf in tree.leaves_]
    assert 'layout = "y, z"' in descriptions and 'layout = "a{b}"' in descriptions
    assert "layout = x" in descriptions  # one word stays bare
    text = tree.export_text()
    for line in text.splitlines()[1:]:  # every level in a set is a bare word or a quoted string
        inside = line.split("∈ {", 1)[1].split("}  [", 1)[0]
        for item in _split_items(inside):
            assert (json.loads(item) if item.startswith('"') else item) in {"x", "y, z", "z", "a{b}"}, line
    dot = tree.to_dot()
    assert '\\"y, z\\"' in dot  # quoted inside the DOT string


def _split_items(inside: str) -> list[str]:
    """Items of a printed set, honouring double quotes."""
    items, current, quoted = [], "", False
    for ch in inside:
        if ch == '"':
            quoted = not quoted
        if ch == "," and not quoted:
            items.append(current.strip())
            current = ""
        else:
            current += ch
    items.append(current.strip())
    return items


def test_the_html_report_quotes_the_same_levels(tmp_path):
    from starchart.dataset import Dataset
    from starchart.report.html import write_html_report

    X, y = _levels_with_commas()
    X = X.assign(n=np.repeat(np.arange(6), 4))  # unique configurations
    data = Dataset.from_frame(X.assign(time=y))
    tree = StarchartTree(min_samples_split=2).fit(X, y)
    page = write_html_report(tmp_path / "r.html", dataset=data, tree=tree, metric="time").read_text()
    assert "layout = &quot;y, z&quot;" in page


def test_dollar_signs_in_names_and_levels_are_drawn_as_written():
    from starchart.report.plots import plot_importance, plot_tree

    X = pd.DataFrame({"price$": ["$a$", "b", "$c_1$", "d"] * 5})
    tree = StarchartTree(min_samples_split=2).fit(X, np.arange(20.0) % 4)
    fig = plot_tree(tree, metric="t$im$e")
    texts = [t for ax in fig.axes for t in (*ax.texts, ax.title, ax.xaxis.label) if "$" in t.get_text()]
    assert any("$a$" in t.get_text() for t in texts) and any("t$im$e" in t.get_text() for t in texts)
    assert all(not t.get_parse_math() for t in texts)  # mathtext would draw "$a$" as an italic a
    importance = plot_importance(tree)
    labels = [t for t in importance.axes[0].get_yticklabels() if "$" in t.get_text()]
    assert labels and all(not t.get_parse_math() for t in labels)


# ----------------------------------------------------------------- the best leaf line
def test_the_best_leaf_line_names_the_worst_case_of_the_direction():
    from starchart.tree import best_leaf_line

    X = pd.DataFrame({"tpp": [1, 1, 8, 8]})
    tree = StarchartTree(min_samples_split=2).fit(X, [3.0, 3.4, 1.0, 1.2])
    assert best_leaf_line(tree, "time").endswith("(n=2, mean=1.1, max=1.2)")
    maximised = best_leaf_line(tree, "GFLOP/s", minimize=False)
    assert maximised.startswith("highest-mean leaf (GFLOP/s: higher is better): tpp = 1")
    assert maximised.endswith("(n=2, mean=3.2, min=3)") and "max=" not in maximised


# ------------------------------------------------------------------- report paths
def _kmeans() -> Path:
    return dataset_path("starchart_kmeans/kmeans_hd7970.csv")


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux's /proc, where no file can be made")
def test_a_report_that_cannot_be_written_names_the_html_file_given(tmp_path):
    from starchart.report.study import write_study_report

    target = Path("/proc/starchart-report.html")
    with pytest.raises(InputError) as caught:
        write_study_report(_kmeans(), target, metric="runtime")
    assert caught.value.where == str(target) and "-tree.svg" not in str(caught.value)
    from starchart.cli import app

    result = CliRunner().invoke(app, ["report", str(_kmeans()), "--metric", "runtime", "-o", str(target)])
    assert result.exit_code == 2 and str(target) in result.output and "svg" not in result.output
    assert "Traceback" not in result.output


def test_figures_that_cannot_be_written_name_the_report(tmp_path, monkeypatch):
    from starchart.dataset import Dataset
    from starchart.report.html import write_html_report

    X = pd.DataFrame({"x": np.arange(12)})
    data = Dataset.from_frame(X.assign(time=np.arange(12.0)))
    tree = StarchartTree().fit(X, np.arange(12.0))
    (tmp_path / "r-tree.svg").mkdir()  # a folder where the first figure goes
    with pytest.raises(InputError) as caught:
        write_html_report(tmp_path / "r.html", dataset=data, tree=tree, metric="time")
    assert caught.value.where == str(tmp_path / "r.html") and "r-tree.svg" in caught.value.message


def test_an_output_ending_in_a_slash_is_a_folder_for_the_report(tmp_path):
    from starchart.report.study import write_study_report

    path = write_study_report(_kmeans(), f"{tmp_path}/new/", metric="runtime")
    assert path == tmp_path / "new" / "report.html" and path.exists()
    assert not (tmp_path / "new.html").exists()


# ----------------------------------------------------------------------- odd data
def test_one_row_and_a_constant_response_give_one_leaf_everywhere():
    from starchart.tree import fit_pruned

    one = StarchartTree().fit(pd.DataFrame({"a": [1], "c": ["x"]}), [2.0])
    assert one.predict(pd.DataFrame({"a": [5, 1], "c": ["y", "x"]})).tolist() == [2.0, 2.0]
    assert one.leaves_[0].description == "all designs" and one.export_text() == "[0] all designs  n=1  mean=2"
    X = pd.DataFrame({"a": range(20), "c": list("ab") * 10})
    flat, table = fit_pruned(X, np.full(20, 3.0))
    assert flat.n_leaves_ == 1 and table["nsplit"].tolist() == [0]
    assert flat.importance(normalize=True).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_missing_or_infinite_response_is_refused_naming_its_row(bad):
    X = pd.DataFrame({"a": range(12)})
    y = np.arange(12.0)
    y[7] = bad
    with pytest.raises(InputError, match="row 7"):
        StarchartTree().fit(X, y)


def test_all_categorical_unicode_parameters_fit_prune_and_save():
    from starchart.tree import fit_pruned, prune

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"算法": rng.choice(["naïve", "tiled", "blocked, v2", "é"], 200),
                      "layout": rng.choice(["row", "col"], 200)})
    effect = {"naïve": 5.0, "tiled": 2.0, "blocked, v2": 1.0, "é": 3.0}
    y = X["算法"].map(effect).to_numpy() + (X["layout"] == "row") + rng.normal(0, 0.1, 200)
    tree, table = fit_pruned(X, y)
    assert table.attrs["selected"] >= 2 and set(tree.importance_[tree.importance_ > 0].index) == {"算法", "layout"}
    again = StarchartTree.from_json(tree.to_json())
    assert again.export_text() == tree.export_text() and '"blocked, v2"' in again.export_text()
    full = StarchartTree().fit(X, y)
    assert prune(full, cp=0).predict(X).tolist() == full.predict(X).tolist()
    unseen = pd.DataFrame({"算法": ["new"], "layout": ["diagonal"]})
    assert np.isfinite(tree.predict(unseen)).all()


def test_thousands_of_levels_route_and_read_consistently():
    rng = np.random.default_rng(1)
    n = 6000
    X = pd.DataFrame({"id": [f"k{i}" for i in rng.integers(0, 2000, n)], "x": rng.integers(0, 4, n)})
    y = rng.normal(size=n) + X["x"].to_numpy()
    tree = StarchartTree().fit(X, y)
    assert len(tree.tree_.left_levels) > 100
    leaf_of = tree.apply(X)
    assert np.array_equal(tree.predict(X), tree.tree_.mean[leaf_of])
    for node in tree.nodes_:
        if node.left_levels is not None:
            assert not set(node.left_levels) & set(node.right_levels)
    some = tree.leaves_[:: max(1, len(tree.leaves_) // 40)]
    for leaf in some:
        assert (leaf.contains(X) == (leaf_of == leaf.node_id)).all(), leaf.description


def test_a_leaf_contains_the_mixed_type_levels_predict_sends_to_it():
    # an object column of numbers and words is one categorical parameter, its levels read as text
    X = pd.DataFrame({"m": ["a", 1, 2.5, "b"] * 5})
    tree = StarchartTree(min_samples_split=2).fit(X, np.arange(20.0) % 4)
    asked = pd.DataFrame({"m": [1, 2.5, "a", "b"]})
    leaf_of = tree.apply(asked)
    assert len(set(leaf_of.tolist())) == 4
    for leaf in tree.leaves_:
        assert (leaf.contains(asked) == (leaf_of == leaf.node_id)).all(), leaf.description


def test_a_binary_parameter_splits_as_equal_to_each_of_its_values():
    """``consec ≤ 0`` read as a range of a switch: a parameter of two values prints as ``= 0`` / ``= 1``."""
    from starchart.tree import split_labels, tree_to_text

    X = pd.DataFrame({"consec": [0, 1] * 20, "tpb": [16, 32, 64, 128] * 10})
    y = X["consec"] * 5 + X["tpb"] / 16 + np.linspace(0, 0.1, 40)
    tree = StarchartTree(min_samples_split=2).fit(X, y)
    labels = [split_labels(tree, node) for node in tree.nodes_ if not node.is_leaf]
    assert ("consec = 0", "consec = 1") in labels and any(left.startswith("tpb ≤") for left, _ in labels)
    assert "consec ≤" not in tree_to_text(tree)
    # an ordered categorical of two levels: the left branch holds the first level in the category order
    levels = pd.Categorical(["low"] * 3 + ["high"] * 3, categories=["low", "high"], ordered=True)
    ordered = StarchartTree(min_samples_split=2).fit(pd.DataFrame({"level": levels}), [3.0, 3.1, 2.9, 1.0, 1.1, 0.9])
    left, right = split_labels(ordered, ordered.nodes_[0])
    assert (left, right) == ("level = low", "level = high")
    assert ordered.predict(pd.DataFrame({"level": pd.Categorical(["low"], categories=["low", "high"],
                                                                   ordered=True)}))[0] == pytest.approx(3.0)


@pytest.mark.parametrize("cell", [[1], {"a": 1}, (1, 2)], ids=["list", "dict", "tuple"])
def test_a_parameter_cell_holding_a_container_is_refused_naming_the_column_and_row(cell):
    X = pd.DataFrame({"a": [1, 2, 3, 4] * 5, "b": [1, 2] * 10}).astype(object)
    X.at[3, "a"] = cell
    with pytest.raises(InputError, match=r"parameter column 'a' holds a \w+ at row 3"):
        StarchartTree().fit(X, np.arange(20.0))
