"""When the tree grower runs as plain Python and when compiled (``starchart.tree._growth._kernel``)."""

from __future__ import annotations

from starchart.tree import _growth


def test_small_fits_run_as_python_until_the_process_has_grown_enough_of_them(monkeypatch):
    """A first small fit must not wait seconds for numba; a process fitting hundreds of small trees (a search,
    an Optuna sampler) must not run them as Python for good."""
    python = _growth.interpreted_kernels()["_grow_kernel"]
    not_yet = type("NotCompiled", (), {"signatures": []})()  # the dispatcher before its first compile
    monkeypatch.setattr(_growth, "_grow_kernel", not_yet)
    monkeypatch.setattr(_growth, "_interpreted_work", 0)
    monkeypatch.setattr(_growth, "INTERPRETED_WORK", 3000)
    assert _growth._kernel("_grow_kernel", _growth.SMALL_FIT + 1) is not_yet  # a large fit compiles at once
    assert [_growth._kernel("_grow_kernel", 1000) is python for _ in range(4)] == [True, True, True, False]
    assert _growth._kernel("_grow_kernel", 1000) is not_yet  # 3,000 grown as Python: compiled from now on
    done = type("Compiled", (), {"signatures": ["(int64[:, :], ...)"]})()  # compiled in this process already
    monkeypatch.setattr(_growth, "_interpreted_work", 0)
    monkeypatch.setattr(_growth, "_grow_kernel", done)
    assert _growth._kernel("_grow_kernel", 10) is done  # however small the fit
