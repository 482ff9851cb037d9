"""The growth kernels give the same tree run as plain Python (a first small fit) and compiled."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields

import numpy as np
import pytest
from child_env import child_env

from starchart import datasets
from starchart.tree import _growth
from starchart.tree._growth import grow_tree


def _grow(codes, n_levels, categorical, y, interpreted: bool, monkeypatch, **params):
    monkeypatch.setattr(_growth, "SMALL_FIT", 10**12 if interpreted else -1)
    if interpreted:  # as in a process where nothing is compiled yet
        monkeypatch.setattr(_growth, "_kernel", lambda name, work: _growth.interpreted_kernels()[name])
    options = {"threshold": 0.0, "min_samples_split": 10, "max_depth": None, **params}
    return grow_tree(codes, n_levels, categorical, y, **options)


def _cases():
    rng = np.random.default_rng(7)
    kmeans = datasets.load_kmeans()
    codes = np.column_stack([np.unique(kmeans.X[c], return_inverse=True)[1] for c in kmeans.params])
    yield "kmeans", codes, codes.max(axis=0) + 1, np.zeros(3, bool), np.asarray(kmeans.y("runtime")), {}
    # many distinct values: the sorted scan; a categorical parameter: Breiman's ordering; repeats: merged units
    n = 600
    wide = np.column_stack([rng.integers(0, 400, n), rng.integers(0, 5, n), rng.integers(0, 3, n)])
    y = wide[:, 0] * 0.01 + np.where(wide[:, 1] % 2 == 0, 3.0, 0.0) + rng.normal(0, 0.1, n)
    yield "sorted+categorical", wide, np.array([400, 5, 3]), np.array([False, True, False]), y, {}
    grid = np.array([(a, b) for a in range(2) for b in range(4)] * 4)  # equal reductions: the tie rules decide
    yield "ties", grid, np.array([2, 4]), np.zeros(2, bool), (grid[:, 0] + (grid[:, 1] >= 2)).astype(float), \
        {"min_samples_split": 2}
    yield "max_depth", wide, np.array([400, 5, 3]), np.zeros(3, bool), y, {"max_depth": 3, "threshold": 1.0}


@pytest.mark.parametrize("case", list(_cases()), ids=lambda case: case[0])
def test_interpreted_and_compiled_kernels_grow_the_same_tree(case, monkeypatch) -> None:
    _, codes, n_levels, categorical, y, params = case
    python = _grow(codes, n_levels, categorical, y, True, monkeypatch, **params)
    monkeypatch.undo()
    compiled = _grow(codes, n_levels, categorical, y, False, monkeypatch, **params)
    assert python.node_count > 3
    for field in fields(python):
        a, b = getattr(python, field.name), getattr(compiled, field.name)
        if isinstance(a, dict):
            assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
        elif a is not None:
            assert np.array_equal(a, b), field.name  # bit for bit: the same code on the same floats


def test_a_first_small_fit_compiles_nothing_and_a_large_one_compiles() -> None:
    code = ("from starchart import StarchartTree, datasets\n"
            "from starchart.tree import _growth\n"
            "ds = datasets.load_kmeans()\n"
            "StarchartTree().fit(ds.X, ds.y('runtime'))\n"
            "print(len(_growth._grow_kernel.signatures))\n"
            "big = datasets.load_convolution('A100').ok()\n"
            "StarchartTree().fit(big.X, big.y('time'))\n"
            "print(len(_growth._grow_kernel.signatures))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(), timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["0", "1"]
