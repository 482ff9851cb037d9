"""Sample-size selection (paper §VI-A): held-out validation, growing training sets, live and replayed."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from matplotlib.figure import Figure
from shared_data import dataset_path

import starchart
from starchart import Space, StarchartTree
from starchart._util.configs import config_key, frame_configs
from starchart.analyses.sample_size import choose_sample_size, relative_errors, resume_sample_size, training_sizes
from starchart.errors import InputError
from starchart.measure import CommandEvaluator, PythonEvaluator, ReplayEvaluator
from starchart.study.store import Store

SPACE = Space({"a": list(range(12)), "b": [1, 2, 4, 8], "c": [0, 1]}, ["a * b <= 60"])


def objective(config):
    if config["a"] == 11:
        raise RuntimeError("a = 11 crashes")
    return 1.0 + 3.0 * (config["a"] > 5) + 0.5 * config["b"] + 0.1 * config["c"]


def keys(dataset):
    return {config_key(c, dataset.params) for c in frame_configs(dataset.frame, dataset.params)}


def test_training_sizes_double_or_follow_a_list_and_end_at_the_budget():
    assert training_sizes(20, 2, 3200) == [20, 40, 80, 160, 320, 640, 1280, 2560, 3200]
    assert training_sizes(20, range(20, 101, 20), 90) == [20, 40, 60, 80, 90]
    assert training_sizes(20, 2.0, 20) == [20]
    with pytest.raises(InputError, match="growth"):
        training_sizes(20, 1.0, 100)
    with pytest.raises(InputError, match="increasing"):
        training_sizes(20, [50, 20], 100)
    with pytest.raises(InputError, match="growth: must be a number > 1, got inf"):  # was an OverflowError
        training_sizes(20, float("inf"), 100)


def test_relative_error_is_relative_to_the_true_value():
    assert relative_errors(np.array([2.0, 9.0]), np.array([4.0, 10.0])).tolist() == [0.5, 0.1]


def test_replay_convolution_curve_matches_a_refit_and_failures_count_towards_the_budget():
    ds = starchart.load(dataset_path("convolution/A100.json.gz"))
    space = Space.from_dataset(ds)
    result = choose_sample_size(space, ReplayEvaluator(ds), target=0.08, seed=3)
    curve = result.curve
    # doubling from 20, stopped at the first size that reached the target
    assert curve["samples"].tolist() == [20 * 2 ** i for i in range(len(curve))]
    assert result.reached and curve["median_rel_error"].iloc[-1] <= 0.08
    assert (curve["median_rel_error"].iloc[:-1] > 0.08).all()
    assert result.samples == curve["samples"].iloc[-1] == len(result.training)
    assert (curve["fitted"] + curve["failures"] == curve["samples"]).all()
    assert curve["failures"].iloc[-1] == int((result.training.status != "ok").sum()) > 0  # A100 has failures
    # validation: 200 held-out designs, disjoint from training
    assert len(result.validation) == 200 and not keys(result.validation) & keys(result.training)
    # the reported error is exactly that of a tree refitted on the valid training designs
    train, valid = result.training.ok(), result.validation.ok()
    tree = StarchartTree().fit(train.X, train.y("time"))
    errors = np.abs(tree.predict(valid.X) - valid.y("time")) / valid.y("time")
    assert curve["median_rel_error"].iloc[-1] == pytest.approx(np.median(errors))
    assert result.tree.n_leaves_ == tree.n_leaves_ == curve["leaves"].iloc[-1]
    # the same seed gives the same curve
    again = choose_sample_size(space, ReplayEvaluator(ds), target=0.08, seed=3)
    assert again.curve.equals(curve)


def test_a_replay_kept_nowhere_reads_every_design_once_and_gives_the_stored_studys_result(tmp_path, monkeypatch):
    """Without a store, a replay is run once over every design the study may use and each round takes
    its rows; in a store, a run per round. Both are the same study: same curve, same rows."""
    import starchart.analyses.sample_size as module

    ds = starchart.load(dataset_path("convolution/A100.json.gz"))  # with failed configurations
    space = Space.from_dataset(ds)
    runs = []
    real_run = module.run
    monkeypatch.setattr(module, "run", lambda *a, **k: runs.append(len(k["configs"])) or real_run(*a, **k))
    kept_nowhere = choose_sample_size(space, ReplayEvaluator(ds), target=0.05, budget=300, seed=5)
    assert runs == [200 + 300]
    runs.clear()
    stored = choose_sample_size(space, ReplayEvaluator(ds), target=0.05, budget=300, seed=5,
                                store=tmp_path / "study.db")
    assert len(runs) == len(stored.curve) + 1  # the validation designs, then a run per round
    assert kept_nowhere.curve.equals(stored.curve)
    for part in ("training", "validation"):
        assert getattr(kept_nowhere, part).frame.equals(getattr(stored, part).frame)


def test_kmeans_budget_is_capped_by_the_space_and_an_unreachable_target_is_reported():
    ds = starchart.load(dataset_path("starchart_kmeans/kmeans_hd7970.csv"))
    result = choose_sample_size(Space.from_dataset(ds), ReplayEvaluator(ds, metrics=["wattage", "runtime"]),
                                target=0.001, growth=[20, 50, 100, 200, 400])
    assert result.metric == "wattage"
    assert result.curve["samples"].tolist() == [20, 50, 100, 200, 300]  # 500 designs − 200 held out
    assert not result.reached and result.samples == 300
    # every design is measured: a larger budget cannot help, and the summary says so
    assert result.exhausted and "not reached: every design of the space is measured" in result.summary()
    # power is easy to predict (paper: ~4 %) and the error falls as the training set grows
    errors = result.curve["median_rel_error"]
    assert errors.iloc[-1] < errors.iloc[0] and errors.max() < 0.05


def test_live_evaluator_with_a_store_resumes_without_measuring_again(tmp_path):
    calls = []

    def counted(config):
        calls.append(config)
        return objective(config)

    store = tmp_path / "study.db"
    first = choose_sample_size(SPACE, PythonEvaluator(counted), validation=30, target=0.02, budget=60,
                               store=store, seed=1)
    measured = len(calls)
    assert measured == 30 + first.samples
    assert first.curve["failures"].iloc[-1] == int((first.training.frame["a"] == 11).sum())
    again = choose_sample_size(SPACE, PythonEvaluator(counted), validation=30, target=0.02, budget=60,
                               store=store, seed=1)
    assert len(calls) == measured and again.curve.equals(first.curve)


def test_a_larger_budget_extends_the_sample_instead_of_redrawing_it(tmp_path):
    calls = []

    def counted(config):
        calls.append(config)
        return objective(config)

    store = tmp_path / "study.db"
    small = choose_sample_size(SPACE, PythonEvaluator(counted), validation=30, target=0.001, budget=20,
                               store=store)
    large = choose_sample_size(SPACE, PythonEvaluator(counted), validation=30, target=0.001, budget=50,
                               store=store)
    # the same held-out designs, and the first training designs again: only 30 new measurements
    assert keys(small.validation) == keys(large.validation)
    assert keys(small.training) <= keys(large.training)
    assert len(calls) == 30 + 50
    with Store.open(store, read_only=True) as db:
        assert len(db) == 30 + 50


def test_a_refused_evaluator_leaves_the_stored_study_resumable(tmp_path):
    store = tmp_path / "study.db"
    argv = [sys.executable, "-c", "print('time:', 1 + ({a} > 5) * 4 + {b})"]
    space = Space({"a": list(range(12)), "b": [1, 2, 4, 8]})
    first = choose_sample_size(space, CommandEvaluator(argv, pattern=r"time: (\S+)"), validation=20, target=0.02,
                               budget=20, store=store)
    with pytest.raises(InputError, match="another evaluator"):  # another metric: refused
        choose_sample_size(space, CommandEvaluator(argv, pattern=r"time: (\S+)", metric="power"), validation=10,
                           target=0.5, budget=10, seed=9, store=store)
    with Store.open(store, read_only=True) as db:
        assert db.get("sample_size") == first.options  # not the refused command's settings
    assert resume_sample_size(store).curve.equals(first.curve)


def test_a_study_whose_validation_designs_all_fail_says_why():
    def broken(config):
        raise RuntimeError("no GPU")

    with pytest.raises(InputError, match=r"all 10 validation designs failed \(most often .*no GPU\)") as info:
        choose_sample_size(SPACE, PythonEvaluator(broken), validation=10, budget=20)
    assert info.value.where == "evaluator"


def test_bad_requests_are_clear_errors():
    ev = PythonEvaluator(objective)
    with pytest.raises(InputError, match="target"):
        choose_sample_size(SPACE, ev, target=0)
    with pytest.raises(InputError, match="target=0.08 for 8 %"):
        choose_sample_size(SPACE, ev, target=8)  # meant 8 %
    with pytest.raises(InputError, match="unknown tree option 'max_deph'"):
        choose_sample_size(SPACE, ev, validation=10, budget=20, tree_options={"max_deph": 3})
    with pytest.raises(InputError, match="too few"):
        choose_sample_size(SPACE, ev, validation=SPACE.size())
    with pytest.raises(InputError, match="does not measure 'power'"):
        choose_sample_size(SPACE, ev, validation=10, budget=20, metric="power")


def test_plot_shows_the_curve_target_and_choice():
    result = choose_sample_size(SPACE, PythonEvaluator(objective), validation=30, target=0.02, budget=80)
    fig = result.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert "median" in labels and "target 2 %" in labels and any(lbl.startswith("chosen") for lbl in labels)
    median = next(line for line in ax.get_lines() if line.get_label() == "median")
    assert median.get_xdata().tolist() == result.curve["samples"].tolist()
    # each size's leaf count under its tick, not written across the lines
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == [f"{n}\n{leaves}" for n, leaves in zip(result.curve["samples"], result.curve["leaves"])]
    assert not [t for t in ax.texts if "leaves" in t.get_text()]
    headings = [h for h, _ in result.report_sections()]
    assert headings == ["Accuracy vs training samples", "Accuracy vs training samples (table)"]
