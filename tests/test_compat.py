"""Every old import path keeps working after the floor-plan move, as the same module object."""

from __future__ import annotations

import importlib

import pytest

import starchart
from starchart._compat import MOVED, MOVED_NAMES


@pytest.mark.parametrize("old, new", sorted(MOVED.items()))
def test_an_old_module_path_is_the_new_module(old, new):
    assert importlib.import_module(old) is importlib.import_module(new)


def test_from_imports_of_old_paths_work():
    from starchart.ensemble import StarchartForest
    from starchart.explore import StarchartStrategy, search
    from starchart.runner import run
    from starchart.store import Store

    assert (StarchartForest, StarchartStrategy, run, Store) == (
        starchart.StarchartForest, starchart.StarchartStrategy, starchart.run, starchart.Store)
    assert search is starchart.search


def test_the_public_api_is_declared_and_loads():
    for name in ("resume_search", "NotFittedError", "Evaluator", "Measurement", "search", "load", "Space"):
        assert name in starchart.__all__
    for name in starchart.__all__:
        assert getattr(starchart, name) is not None
    assert not {"Any", "importlib", "annotations"} & set(dir(starchart))
    assert starchart.__version__ and starchart.__version__ != "0+unknown"


@pytest.mark.parametrize("module, name", sorted((m, n) for m, names in MOVED_NAMES.items() for n in names))
def test_a_name_that_moved_out_of_a_module_is_still_found_there(module, name):
    assert getattr(importlib.import_module(module), name) is getattr(importlib.import_module(MOVED_NAMES[module][name]),
                                                                     name)
