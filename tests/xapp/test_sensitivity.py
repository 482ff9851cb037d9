"""Code tests of the trip-count / branch-probability sweep with fake feature functions."""

from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from starchart.errors import InputError
from starchart.xapp.discretize import FEATURES
from starchart.xapp.model import SpeedupRangeModel
from starchart.xapp.sensitivity import BRANCH_PROBS, TRIP_COUNTS, sweep

FAST = {**dict.fromkeys(FEATURES, 0.5), "coalesced": 0.95}
SLOW = {**FAST, "coalesced": 0.05}


@pytest.fixture(scope="module")
def model() -> SpeedupRangeModel:
    """Speedup > 3 exactly when coalesced is above its median."""
    X = pd.DataFrame(np.random.default_rng(0).random((40, len(FEATURES))), columns=FEATURES)
    model = SpeedupRangeModel(n_trees=50).fit(X, np.where(X.coalesced > X.coalesced.median(), 30.0, 1.0))
    assert model.predict([FAST, SLOW]).tolist() == ["> 3", "<= 3"]
    return model


class Recorder:
    """A fake feature function: fast when ``rule(trip_counts, branch_probs)``; records its calls."""

    def __init__(self, rule):
        self.rule, self.calls = rule, []

    def __call__(self, path, band_line=None, trip_counts=None, branch_probs=None):
        self.calls.append((path, band_line, trip_counts, branch_probs))
        return dict(FAST if self.rule(trip_counts, branch_probs) else SLOW)


def test_thesis_grid_and_majority(model):
    fn = Recorder(lambda t, p: p >= 0.5)  # 3 of 5 probabilities fast
    result = sweep(model, "k.c", 12, feature_fn=fn)
    assert [(t, p) for _, _, t, p in fn.calls] == [(t, p) for t in TRIP_COUNTS for p in BRANCH_PROBS]
    assert {(path, line) for path, line, _, _ in fn.calls} == {("k.c", 12)}
    assert len(result.table) == 20
    assert result.majority == "> 3" and result.share == pytest.approx(12 / 20)
    assert result.counts.to_dict() == {"<= 3": 8, "> 3": 12}
    assert not result.unanimous
    row = result.table.query("trip_counts == 10 and branch_probs == 0.25").iloc[0]
    assert row["predicted"] == "<= 3" and row["coalesced"] == 0.05


def test_tie_goes_to_the_lower_range(model):
    result = sweep(model, "k.c", feature_fn=Recorder(lambda t, p: t <= 10))
    assert result.share == 0.5 and result.majority == "<= 3"


def test_unanimous(model):
    result = sweep(model, "k.c", feature_fn=Recorder(lambda t, p: True), trip_counts=(1, 1000),
                   branch_probs=(0.5,))
    assert result.unanimous and result.majority == "> 3" and len(result.table) == 2


def test_per_site_combinations(model):
    fn = Recorder(lambda t, p: t[5] == t[9])  # dicts by line
    result = sweep(model, "k.c", feature_fn=fn, loop_lines=[5, 9], branch_lines=[])
    assert len(fn.calls) == 16 and all(p is None for *_, p in fn.calls)
    assert {tuple(sorted(t.items())) for *_, t, _ in fn.calls} == {((5, a), (9, b)) for a in TRIP_COUNTS
                                                                  for b in TRIP_COUNTS}
    assert result.counts["> 3"] == 4 and result.majority == "<= 3" and result.share == 0.75


def test_bad_settings(model):
    fn = Recorder(lambda t, p: True)
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        sweep(model, "k.c", feature_fn=fn, branch_probs=(0.5, 1.5))
    with pytest.raises(InputError, match="empty"):
        sweep(model, "k.c", feature_fn=fn, trip_counts=())
    with pytest.raises(InputError, match="max_settings"):
        sweep(model, "k.c", feature_fn=fn, loop_lines=range(1, 8), max_settings=1000)
    with pytest.raises(InputError, match="'sqrt'"):
        sweep(model, "k.c", feature_fn=lambda *a, **k: {f: 0.1 for f in FEATURES if f != "sqrt"})


def test_default_feature_function_is_static_features(model, monkeypatch):
    """The default lists the sites once (static_analysis), then passes per-line dicts."""
    calls = []

    def static_features(path, band_line=None, trip_counts=None, branch_probs=None):
        calls.append((path, band_line, trip_counts, branch_probs))
        return dict(FAST)

    def static_analysis(path, band_line=None):
        loops = [types.SimpleNamespace(line=2, role="band"), types.SimpleNamespace(line=7, role="body")]
        branches = [types.SimpleNamespace(line=7, kind="loop-exit"), types.SimpleNamespace(line=9, kind="if")]
        return types.SimpleNamespace(loops=loops, branches=branches)

    monkeypatch.setattr("starchart.xapp.sensitivity.static_features", static_features)
    monkeypatch.setattr("starchart.xapp.sensitivity.static_analysis", static_analysis)
    result = sweep(model, "kernel.c", 3, trip_counts=(10,), branch_probs=(0.25,))
    assert calls == [("kernel.c", 3, {7: 10}, {9: 0.25})] and result.majority == "> 3"
    assert result.table[["trip_counts", "branch_probs"]].values.tolist() == [[10, 0.25]]


CASES = Path(__file__).parent / "cases"


def test_real_sweep_overrides_trip_pragmas(model):
    """pragma_trip.c: two body loops of 6 instructions per iteration (line 7 has trip(4)) plus
    gep,store: ksize = 2 + 12 t at every trip count t, the annotated loop included."""
    result = sweep(model, CASES / "pragma_trip.c", branch_probs=(0.5,))
    assert result.table["trip_counts"].tolist() == list(TRIP_COUNTS)
    assert result.table["ksize"].tolist() == pytest.approx([2 + 12 * t for t in TRIP_COUNTS])


def test_real_sweep_overrides_prob_pragmas(model):
    """pragma_prob.c: prob(0.25) on the `if v > t` (line 8) is overridden: the sqrtf call
    runs q of the time, so ksize = 6 + q and sqrt = q / (6 + q) at every probability q."""
    result = sweep(model, CASES / "pragma_prob.c", trip_counts=(10,))
    q = np.array(BRANCH_PROBS)
    assert result.table["ksize"].tolist() == pytest.approx((6 + q).tolist())
    assert result.table["sqrt"].tolist() == pytest.approx((q / (6 + q)).tolist())
