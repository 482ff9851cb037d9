"""starchart.tree._walk: the compiled and the numpy walk route every row to the same leaf, as the rules say."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from starchart import StarchartForest, StarchartTree
from starchart.tree import _walk


def mixed_data(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Numeric, categorical and ordered-categorical parameters, with interactions worth many splits."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": rng.integers(0, 16, n),
        "b": rng.choice(["x", "y", "z", "w"], n),
        "c": rng.choice([1, 2, 4, 8, 16], n).astype(float),
        "d": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"], ordered=True),
    })
    y = X["a"] * (X["b"] == "x") + np.log(X["c"]) + 3 * (X["d"] == "hi") + rng.normal(0, 0.1, n) + 5
    return X, y.to_numpy()


def unseen_rows(n: int, seed: int) -> pd.DataFrame:
    """Rows with values outside the training range and levels never seen in training."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "a": rng.integers(-3, 20, n),
        "b": rng.choice(["x", "y", "never"], n),
        "c": rng.choice([0.5, 1, 3, 16, 99], n),
        "d": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"], ordered=True),
    })


def reference_leaf(tree: StarchartTree, row: pd.DataFrame) -> int:
    """The leaf of a one-row frame by the rules as written (one node at a time, from the tree's own fields)."""
    t = tree.tree_
    positions = tree._positions(row)[0]
    thresholds, by_position = tree._thresholds(), tree._ordered_by_position()
    node = 0
    while t.feature[node] >= 0:
        j = int(t.feature[node])
        value = positions[j]
        majority = t.n_samples[t.left[node]] >= t.n_samples[t.right[node]]
        if node in t.left_levels:
            go_left = majority if value < 0 else int(value) in set(np.asarray(t.left_levels[node]).tolist())
        elif value < 0 and by_position[j]:
            go_left = majority
        else:
            go_left = bool(value <= thresholds[node])
        node = int(t.left[node] if go_left else t.right[node])
    return node


@pytest.mark.parametrize("rows", ["training", "unseen"], ids=["training rows", "unseen values and levels"])
def test_both_walks_route_every_row_to_the_leaf_the_rules_give(rows):
    X, y = mixed_data(1500, seed=1)
    tree = StarchartTree(min_samples_split=5).fit(X, y)
    query = X.iloc[:300] if rows == "training" else unseen_rows(300, seed=2)
    positions = np.ascontiguousarray(tree._positions(tree._check_columns(query)))
    compiled, interpreted = (np.empty(len(query), np.int64) for _ in range(2))
    _walk._walk_compiled(*tree._routing(), positions, 0, compiled)
    _walk._walk_numpy(*tree._routing(), positions, 0, interpreted)
    expected = [reference_leaf(tree, query.iloc[[i]]) for i in range(len(query))]
    assert compiled.tolist() == interpreted.tolist() == expected
    assert tree.apply(query).tolist() == expected
    assert len(set(expected)) > 20  # the rows reach many leaves: the check says something


def test_both_packed_walks_agree_for_a_forest_on_unseen_values():
    X, y = mixed_data(1500, seed=3)
    forest = StarchartForest(n_estimators=12, random_state=0).fit(X, y)
    packed = forest._packed
    template = forest.estimators_[0]
    positions = np.ascontiguousarray(template._positions(template._check_columns(unseen_rows(400, seed=4))))
    arrays = (packed.roots, packed.feature, packed.threshold, packed.left, packed.right, packed.cat_row,
              packed.cat_left, positions)
    compiled, interpreted = (np.empty((len(packed.roots), len(positions)), np.int64) for _ in range(2))
    _walk._walk_packed_compiled(*arrays, compiled)
    _walk._walk_packed_numpy(*arrays, interpreted)
    assert (compiled == interpreted).all()
    # each tree's own apply agrees with its slice of the packed walk
    first = template.apply(unseen_rows(400, seed=4)) + packed.roots[0]
    assert (compiled[0] == first).all()
