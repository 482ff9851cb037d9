"""Minimum-saturation-point tuning (starchart.msp): the MSP rule, throughput curves, MSP-tuning end to end."""

from __future__ import annotations

import json
import math
import time
import tracemalloc
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from starchart.cli import app
from starchart.cli.msp import parse_config, parse_sizes
from starchart.errors import InputError
from starchart.measure import CommandEvaluator, Measurement, PythonEvaluator
from starchart.msp import (
    MSP,
    aggregate,
    exhaustive_search,
    find_msp,
    space_at,
    threshold_sweep,
    throughput_curve,
    tune_at_msp,
    uniform_search,
)
from starchart.report.msp_figures import plot_threshold_sweep, plot_throughput_curve, plot_transfer
from starchart.space import Space
from starchart.study.store import Store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path, monkeypatch):
    """`starchart msp` keeps its measurements in ./msp.db by default: not in the checkout."""
    monkeypatch.chdir(tmp_path)


def curve_of(points: dict[int, float]) -> pd.DataFrame:
    return pd.DataFrame({"size": list(points), "throughput": list(points.values())})


# ---------------------------------------------------------------------- find_msp
def test_saturating_curve_msp_is_the_first_size_within_the_threshold():
    msp = find_msp(curve_of({1: 10.0, 2: 40.0, 4: 89.0, 8: 91.0, 16: 100.0, 32: 99.0}))
    assert isinstance(msp, MSP)
    assert (msp.size, msp.target, msp.saturated) == (8, 32, True)
    assert (msp.max_throughput, msp.max_size, msp.throughput) == (100.0, 16, 91.0)
    assert msp.message.startswith("MSP = 8: the smallest size whose throughput is within 10% of the maximum")
    assert msp.notes == []


def test_the_threshold_moves_the_msp():
    curve = curve_of({1: 10.0, 2: 40.0, 4: 89.0, 8: 91.0, 16: 100.0, 32: 99.0})
    assert find_msp(curve, 0.0).size == 16            # 0 %: the size of the maximum
    assert find_msp(curve, 0.05).size == 16
    assert find_msp(curve, 0.10).size == 8
    assert find_msp(curve, 0.12).size == 4
    assert find_msp(curve, 0.65).size == 2
    sizes = [find_msp(curve, t).size for t in np.linspace(0, 0.95, 20)]
    assert sizes == sorted(sizes, reverse=True)     # a larger threshold never picks a larger size


def test_non_saturating_curve_gives_the_target_and_says_so():
    msp = find_msp(curve_of({256: 1.0, 1024: 2.0, 4096: 4.0, 16384: 8.0}))
    assert (msp.size, msp.target, msp.saturated) == (16384, 16384, False)
    assert msp.message.startswith("no saturation: throughput still rises at the target size 16384")
    assert "MSP = target" in str(msp)


def test_noisy_plateau_first_versus_stable():
    bumpy = {8: 50.0, 16: 95.0, 32: 70.0, 64: 98.0, 128: 100.0, 256: 97.0}
    assert find_msp(bumpy).size == 16                  # the paper's rule: the first size in the band
    assert find_msp(bumpy, stable=True).size == 64     # every larger size stays in the band
    # a dip at the end: with stable=True nothing before it qualifies except the target itself
    dip = {8: 100.0, 16: 99.0, 32: 50.0}
    assert find_msp(dip, stable=False).size == 8
    stable = find_msp(dip, stable=True)
    assert stable.size == 32 and not stable.saturated


def test_target_below_the_largest_size_ignores_larger_sizes():
    curve = curve_of({1: 10.0, 2: 55.0, 4: 60.0, 8: 100.0})
    msp = find_msp(curve, target=4)
    assert (msp.size, msp.target, msp.max_throughput) == (2, 4, 60.0)
    with pytest.raises(InputError, match="target size 3 is not on the curve"):
        find_msp(curve, target=3)


def test_a_curve_that_falls_after_its_peak_is_noted():
    msp = find_msp(curve_of({1: 50.0, 2: 100.0, 4: 80.0, 8: 60.0}))
    assert msp.size == 2 and msp.saturated
    assert len(msp.notes) == 1 and "falls after its peak at size 2" in msp.notes[0] and "40%" in msp.notes[0]


def test_failed_sizes_are_skipped_with_a_note():
    msp = find_msp(curve_of({1: 10.0, 2: math.nan, 4: 95.0, 8: 100.0}))
    assert msp.size == 4
    assert msp.notes == ["size(s) [2] have no valid measurement and were skipped"]
    with pytest.raises(InputError, match="no size of the curve has a valid throughput"):
        find_msp(curve_of({1: math.nan, 2: 0.0}))
    # a measured curve says why its sizes failed (a wrong --pattern, a program that exits with an error...)
    failed = pd.DataFrame({"size": [8, 64], "throughput": [math.nan, math.nan],
                           "reason": ["exit status 2; stderr: usage: bench N BLOCK", "exit status 2"]})
    with pytest.raises(InputError, match=r"valid throughput; size 8: exit status 2; stderr: usage: bench N BLOCK"):
        find_msp(failed)


def test_find_msp_accepts_series_and_dicts():
    series = pd.Series([1.0, 9.5, 10.0], index=[10, 100, 1000])
    assert find_msp(series).size == 100
    assert find_msp({1000: 10.0, 10: 1.0, 100: 9.5}).size == 100   # order does not matter


@pytest.mark.parametrize(("curve", "threshold", "message"), [
    (curve_of({1: 1.0}), 1.0, "threshold: must be a number in \\[0, 1\\)"),
    (curve_of({1: 1.0}), -0.1, "threshold: must be a number in"),
    (curve_of({1: 1.0}), True, "threshold: must be a number in"),
    (pd.DataFrame({"size": [1, 2]}), 0.1, "lacks column\\(s\\) \\['throughput'\\]"),
    (curve_of({0: 1.0, 2: 3.0}), 0.1, "input sizes must be positive numbers, got 0"),
    (pd.DataFrame({"size": [2, 2], "throughput": [1.0, 2.0]}), 0.1, "appear more than once"),
    (pd.DataFrame({"size": [1, 2], "throughput": ["fast", 2.0]}), 0.1, "throughputs must be numbers"),
    ([1, 2, 3], 0.1, "must be a DataFrame, Series or dict"),
])
def test_find_msp_bad_input(curve, threshold, message):
    with pytest.raises(InputError, match=message):
        find_msp(curve, threshold)


def test_aggregate_statistics():
    assert aggregate([4.0, 1.0, 2.0]) == 2.0
    assert aggregate([4.0, 1.0, 2.0], "mean") == pytest.approx(7 / 3)
    assert aggregate([4.0, 1.0, math.nan], "min") == 1.0
    assert math.isnan(aggregate([], "min"))
    with pytest.raises(InputError, match="unknown statistic 'max'"):
        aggregate([1.0], "max")


# ---------------------------------------------------------------------- throughput_curve
def launch_model(config):
    """10 us per launch plus 1 ns per element, in ms."""
    return 0.01 + config["n"] * 1e-6


def test_throughput_curve_with_a_python_evaluator():
    curve = throughput_curve(PythonEvaluator(launch_model), [10_000_000, 1_000, 100_000])
    assert curve["size"].tolist() == [1_000, 100_000, 10_000_000]
    assert curve["time"].tolist() == pytest.approx([0.011, 0.11, 10.01])
    assert curve["throughput"].tolist() == pytest.approx([1_000 / 0.011e-3, 1e5 / 0.11e-3, 1e7 / 10.01e-3])
    assert curve["status"].tolist() == ["ok"] * 3
    assert (curve["eval_s"] >= 0).all() and curve.attrs["wall_s"] >= curve["eval_s"].sum()
    assert curve.attrs["size_param"] == "n" and curve.attrs["metric"] == "time" and curve.attrs["stat"] == "median"
    assert find_msp(curve).size == 100_000


def test_throughput_curve_pools_repeats_and_applies_the_statistic():
    calls = []

    def noisy(config):
        calls.append(config)
        return [1.0, 2.0, 6.0]        # three repeats per evaluation

    ev = PythonEvaluator(noisy)
    curve = throughput_curve(ev, [1000], repeats=2, stat="median", config={"mode": "x"})
    assert calls == [{"mode": "x", "n": 1000}] * 2
    assert curve.loc[0, "repeats"] == [1.0, 2.0, 6.0] * 2 and curve.loc[0, "evaluations"] == 2
    assert curve.loc[0, "time"] == 2.0
    assert curve.loc[0, "throughput"] == pytest.approx(1000 / 2e-3)
    assert curve.loc[0, "throughput_high"] == pytest.approx(1000 / 1e-3)
    assert curve.loc[0, "throughput_low"] == pytest.approx(1000 / 6e-3)
    assert throughput_curve(ev, [1000], stat="min").loc[0, "time"] == 1.0
    both = throughput_curve(PythonEvaluator(lambda c: {"time": [2.0, 4.0], "power": [80.0, 90.0, 100.0]}), [10])
    assert both.loc[0, "time"] == 3.0 and both.loc[0, "values_power"] == 90.0    # other metrics are kept too
    assert throughput_curve(ev, [1000], stat="mean").loc[0, "time"] == 3.0


def test_throughput_curve_work_functions_and_size_parameter():
    ev = PythonEvaluator(lambda c: 1.0)                               # 1 ms whatever the size
    assert throughput_curve(ev, [10], work="n^2")["throughput"].tolist() == [1e5]
    assert throughput_curve(ev, [10], work="n log n")["throughput"].tolist() == pytest.approx([10 * math.log2(10) * 1e3])
    assert throughput_curve(ev, [4], size_param="N", work="N * k", config={"k": 3})["throughput"].tolist() == [12e3]
    assert throughput_curve(ev, [4], work=lambda c: 7)["throughput"].tolist() == [7e3]


def test_throughput_curve_records_failures_without_raising():
    ev = PythonEvaluator(lambda c: 1.0 if c["n"] < 100 else 1 / 0)
    curve = throughput_curve(ev, [10, 1000])
    assert curve["status"].tolist() == ["ok", "runtime"]
    assert "ZeroDivisionError" in curve.loc[1, "reason"] and math.isnan(curve.loc[1, "throughput"])
    # one size ran and the target failed: there is no curve to read an MSP from, and the error says why
    with pytest.raises(InputError, match=r"no saturation curve to read: only size 10 has a valid throughput, and "
                                         r"the target size 1000 failed.*size 1000: ZeroDivisionError"):
        find_msp(curve)


def test_throughput_curve_keeps_measurements_in_a_store(tmp_path):
    path = tmp_path / "curve.db"
    throughput_curve(PythonEvaluator(launch_model), [10, 20], store=path)
    with Store.open(path) as store:
        assert len(store) == 2
        assert sorted(m.config["n"] for m in store.measurements()) == [10, 20]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"sizes": []}, "no input sizes given"),
    ({"sizes": "1,2"}, "sizes must be a list of input sizes"),
    ({"sizes": [1, -2]}, "input sizes must be positive numbers, got -2"),
    ({"sizes": [1, 1]}, "input size\\(s\\) \\[1\\] appear more than once"),
    ({"config": {"n": 3}}, "config sets the input-size parameter 'n'"),
    ({"config": [1]}, "config must be a dict"),
    ({"repeats": 0}, "repeats: must be an integer ≥ 1"),
    ({"stat": "p90"}, "unknown statistic 'p90'"),
    ({"size_param": ""}, "size_param must be a parameter name"),
    ({"work": "n ** q"}, "q"),
    ({"store": 42}, "store must be a Store or a path"),
])
def test_throughput_curve_bad_input(kwargs, message):
    options = {"sizes": [10, 100], **kwargs}
    with pytest.raises(InputError, match=message):
        throughput_curve(PythonEvaluator(launch_model), options.pop("sizes"), **options)


def test_throughput_curve_needs_a_time_metric():
    gflops = PythonEvaluator(lambda c: 100.0, metrics="gflops", minimize=False)
    with pytest.raises(InputError, match="objective 'gflops' is maximised, so it is not a run time"):
        throughput_curve(gflops, [10])


# ---------------------------------------------------------------------- tune_at_msp
def lanes_model(config):
    """Simulated kernel time (ms): a launch, n / lanes waves, and a per-lane set-up cost.

    Small inputs leave lanes idle, so the best B grows with n until n >= 256 (then B = 256 wins).
    """
    lanes = min(config["B"], config["n"])
    return 0.05 + config["n"] / lanes * 1e-3 + config["B"] * 2e-4


LANES_SPACE = Space({"B": [1, 4, 16, 64, 256]})
LANES_SIZES = [2 ** k for k in range(4, 17, 2)]   # 16 ... 65536


def test_tune_at_msp_end_to_end_with_a_cost_model():
    result = tune_at_msp(PythonEvaluator(lanes_model), LANES_SPACE, LANES_SIZES, config={"B": 16}, transfer=True)
    assert result.default_config == {"B": 16}
    assert (result.msp.size, result.target, result.msp.saturated) == (16384, 65536, True)
    assert result.winner == {"B": 256} and result.target_best == {"B": 256}
    assert result.winner_value_msp == pytest.approx(lanes_model({"B": 256, "n": 16384}))
    assert result.winner_value_target == pytest.approx(lanes_model({"B": 256, "n": 65536}))
    assert result.quality == 1.0
    # the transfer curve (paper Fig. 3): tuning on small inputs picks small B, which is slow at the target
    t = result.transfer
    assert t["size"].tolist() == LANES_SIZES and t["is_msp"].tolist() == [s == 16384 for s in LANES_SIZES]
    assert t["best_B"].tolist() == [16, 16, 64, 64, 256, 256, 256]
    best = lanes_model({"B": 256, "n": 65536})
    expected = [best / lanes_model({"B": b, "n": 65536}) for b in t["best_B"]]
    assert t["quality"].tolist() == pytest.approx(expected)
    assert t["evaluations"].tolist() == [5] * len(LANES_SIZES)
    assert result.costs["curve"].evaluations == len(LANES_SIZES)
    assert result.costs["confirm"].evaluations == 0   # every winner was measured by the target search
    summary = result.summary()
    assert summary["msp"]["size"] == 16384 and summary["quality"] == 1.0 and summary["winner"] == {"B": 256}
    assert "quality 100.0%" in str(result)


def test_speedup_arithmetic():
    result = tune_at_msp(PythonEvaluator(lanes_model), LANES_SPACE, LANES_SIZES, config={"B": 16})
    c = result.costs
    assert result.speedup == pytest.approx(c["target"].wall_s / (c["msp"].wall_s + c["curve"].wall_s))
    # the kernel-time ratio, recomputed from the model: every configuration once at the target / at the MSP,
    # plus the default configuration at every size
    target = sum(lanes_model({"B": b, "n": 65536}) for b in LANES_SPACE.tune_params["B"])
    msp = sum(lanes_model({"B": b, "n": 16384}) for b in LANES_SPACE.tune_params["B"])
    curve = sum(lanes_model({"B": 16, "n": n}) for n in LANES_SIZES)
    assert c["target"].measured_s == pytest.approx(target / 1000)
    assert result.kernel_speedup == pytest.approx(target / (msp + curve))
    assert c["target"].evaluations == c["msp"].evaluations == 5 and c["target"].failures == 0
    assert set(c) == {"curve", "msp", "target", "confirm"}


def test_search_time_is_measured_in_wall_time():
    """A kernel that really takes its simulated time: the wall-time speedup follows the work."""
    def sleeping(config):
        ms = 0.02 * config["n"] / 64 * (1 + config["B"] / 4)   # 0.02-0.04 ms at n = 64, 5-10 ms at n = 16384
        time.sleep(ms / 1000)
        return ms

    space = Space({"B": [1, 2, 3, 4]})
    result = tune_at_msp(PythonEvaluator(sleeping), space, [64, 16384], config={"B": 1}, threshold=0.5)
    assert result.msp.size == 64   # the simulated throughput is flat, so the smallest size saturates
    costs = result.costs
    # wall time, so at least what the kernels slept (the simulated "time" is milliseconds, never seconds)
    slept = sum(0.02 * 16384 / 64 * (1 + b / 4) for b in (1, 2, 3, 4)) / 1000
    assert costs["target"].wall_s >= slept and costs["target"].measured_s == pytest.approx(slept)
    assert result.speedup == pytest.approx(costs["target"].wall_s / (costs["curve"].wall_s + costs["msp"].wall_s))


def test_non_saturating_kernel_tunes_at_the_target():
    result = tune_at_msp(PythonEvaluator(lambda c: 1.0 + c["x"]), Space({"x": [1, 2, 3]}), [10, 100, 1000],
                         work="n^2")
    assert result.msp.size == 1000 and not result.msp.saturated
    assert result.winner == {"x": 1} and result.quality == 1.0
    assert result.speedup < 1      # the curve costs extra; nothing is saved
    assert result.costs["msp"] is result.costs["target"]


def test_uniform_search_and_exhaustive_baseline():
    ev = PythonEvaluator(lanes_model)
    space = Space({"B": [1, 2, 4, 8, 16, 32, 64, 128, 256], "pad": [0, 1]})
    result = tune_at_msp(ev, space, LANES_SIZES, config={"B": 16, "pad": 0}, search="uniform", budget=6, seed=3,
                         baseline="exhaustive")
    assert result.search == "uniform" and result.baseline == "exhaustive"
    assert result.costs["msp"].evaluations == 6 and result.costs["target"].evaluations == space.size()
    assert result.target_best["B"] == 256
    best = lanes_model({"B": 256, "n": 65536})
    assert result.quality == pytest.approx(best / lanes_model({**result.winner, "n": 65536}))
    assert 0 < result.quality <= 1
    same = tune_at_msp(ev, space, LANES_SIZES, config={"B": 16, "pad": 0}, search="uniform", budget=6, seed=3)
    assert same.costs["target"].evaluations == 6
    assert any("same uniform search" in n for n in same.notes)


def test_any_callable_search_plugs_in():
    seen = []

    def first_two(evaluator, space, budget, seed):
        seen.append((space.names, budget, seed))
        configs = [dict(zip(space.names, row)) for row in space.to_frame().itertuples(index=False)][:2]
        measured = [evaluator.evaluate(c) for c in configs]
        best = min(measured, key=lambda m: m.summary()["time"])
        return SimpleNamespace(best=best)                      # a Measurement as .best

    result = tune_at_msp(PythonEvaluator(lanes_model), LANES_SPACE, LANES_SIZES, config={"B": 16},
                         search=first_two, budget=2, seed=9)
    assert result.search.endswith("first_two")
    assert seen[0] == (("B", "n"), 2, 9) and len(seen) == 2    # at the MSP and at the target
    assert result.winner == {"B": 4}

    def series_best(evaluator, space, budget, seed):
        evaluator.evaluate({"B": 64, "n": space.tune_params["n"][0]})
        return SimpleNamespace(best=pd.Series({"B": 64, "n": 1, "time": 3.0}))

    assert tune_at_msp(PythonEvaluator(lanes_model), LANES_SPACE, LANES_SIZES, search=series_best).winner == {"B": 64}


def test_confirm_rounds_remeasure_the_finalists_together():
    """A measurement at the target is unlucky once: without confirmation it decides the quality."""
    counts: dict[tuple[int, int], int] = {}

    def unlucky(config):
        key = (config["B"], config["n"])
        counts[key] = counts.get(key, 0) + 1
        base = lanes_model(config)
        # the target's best configuration is measured 4x too slow the first time
        return base * 4 if key == (256, 65536) and counts[key] == 1 else base

    plain = tune_at_msp(PythonEvaluator(unlucky), LANES_SPACE, LANES_SIZES, config={"B": 16})
    assert plain.winner == {"B": 256} and plain.target_best == {"B": 64} and plain.quality == pytest.approx(
        lanes_model({"B": 64, "n": 65536}) / (4 * lanes_model({"B": 256, "n": 65536})))
    counts.clear()
    confirmed = tune_at_msp(PythonEvaluator(unlucky), LANES_SPACE, LANES_SIZES, config={"B": 16}, confirm=2)
    assert confirmed.target_best == {"B": 256} and confirmed.quality == 1.0
    assert confirmed.costs["confirm"].evaluations == 2 * 2    # 2 rounds x 2 distinct finalists


def test_winner_failing_at_the_target_has_quality_zero():
    def model(config):
        if config["B"] == 256 and config["n"] == 65536:
            raise MemoryError("does not fit")
        return lanes_model(config)

    def pick_256(evaluator, space, budget, seed):
        n = space.tune_params["n"][0]
        m = evaluator.evaluate({"B": 256, "n": n})
        if not m.ok:
            m = evaluator.evaluate({"B": 64, "n": n})
        return SimpleNamespace(best=m)

    result = tune_at_msp(PythonEvaluator(model), LANES_SPACE, LANES_SIZES, config={"B": 16}, search=pick_256)
    assert result.winner == {"B": 256} and result.quality == 0.0 and math.isnan(result.winner_value_target)
    assert any("fails at the target size 65536" in n for n in result.notes)
    assert result.costs["confirm"].evaluations == 0   # the failure was measured by the target search


def test_without_baseline_nothing_is_measured_at_the_target_but_the_winner():
    ev = PythonEvaluator(lanes_model)
    result = tune_at_msp(ev, LANES_SPACE, LANES_SIZES, config={"B": 16}, baseline=None)
    assert result.quality is None and result.speedup is None and result.target_best is None
    assert "target" not in result.costs and result.costs["confirm"].evaluations == 1
    assert result.winner_value_target == pytest.approx(lanes_model({"B": 256, "n": 65536}))


def test_default_configuration_is_the_first_value_of_every_parameter():
    space = Space({"B": [4, 16], "n": [1, 2]}, "B <= 4 * n")       # the size parameter may be in the space
    result = tune_at_msp(PythonEvaluator(lanes_model), space, [4, 8, 16], baseline=None)
    assert result.default_config == {"B": 4}
    assert result.curve["size"].tolist() == [4, 8, 16]
    with pytest.raises(InputError, match=r"not valid at size 1: it breaks the restriction\(s\) B <= 4 \* n"):
        tune_at_msp(PythonEvaluator(lanes_model), space, [1, 8], config={"B": 16})
    with pytest.raises(InputError, match=r"not valid at size 4: B=5 is not among its values \[4, 16\]"):
        tune_at_msp(PythonEvaluator(lanes_model), space, [4, 8], config={"B": 5})


def test_reuses_a_measured_curve():
    ev = PythonEvaluator(lanes_model)
    curve = throughput_curve(ev, LANES_SIZES, config={"B": 16})
    measured = []

    def counted(config):
        measured.append(config["n"])
        return lanes_model(config)

    result = tune_at_msp(PythonEvaluator(counted), LANES_SPACE, LANES_SIZES, config={"B": 16}, curve=curve)
    pd.testing.assert_frame_equal(result.curve, curve)
    assert result.costs["curve"].wall_s == curve.attrs["wall_s"]
    assert result.costs["curve"].evaluations == len(LANES_SIZES)
    # throughput n / time of B = 16 reaches 90 % of its maximum (at 65536) first at n = 16384:
    # only the five B at the MSP and the five at the target are measured, no size of the curve again
    assert result.msp.size == 16384
    assert sorted(measured) == [16384] * 5 + [65536] * 5
    with pytest.raises(InputError, match="the given curve lacks size"):
        tune_at_msp(ev, LANES_SPACE, LANES_SIZES, config={"B": 16}, curve=curve.iloc[1:])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"target": 100}, "the target size 100 is not among the sizes"),
    ({"baseline": "best"}, "unknown baseline 'best'"),
    ({"baseline": None, "transfer": True}, "a transfer curve needs a baseline"),
    ({"search": "annealing"}, "unknown search 'annealing'"),
    ({"search": 3}, "search must be a name or a callable"),
    ({"search": "uniform"}, "a uniform search needs a budget"),
    ({"budget": 2}, "an exhaustive search needs 5 evaluations, but the budget is 2"),
    ({"config": {"B": 16, "C": 1}}, "names unknown parameter\\(s\\) \\['C'\\]"),
    ({"config": {}}, "lacks parameter\\(s\\) \\['B'\\]"),
    ({"confirm": -1}, "confirm: must be an integer ≥ 0"),
    ({"space": {"B": [1]}}, "space must be a starchart Space"),
    ({"search": lambda ev, space, budget, seed: 42}, "has no .best"),
    ({"search": lambda ev, space, budget, seed: SimpleNamespace(best={"C": 1})}, "lacks parameter\\(s\\) \\['B', 'n'\\]"),
    ({"search": lambda ev, space, budget, seed: SimpleNamespace(best=[1])}, "not a configuration"),
])
def test_tune_at_msp_bad_input(kwargs, message):
    options = {"space": LANES_SPACE, **kwargs}
    with pytest.raises(InputError, match=message):
        tune_at_msp(PythonEvaluator(lanes_model), options.pop("space"), LANES_SIZES, **options)


def test_a_search_where_nothing_runs_says_why():
    with pytest.raises(InputError, match="no configuration of the search ran successfully.*ZeroDivisionError"):
        exhaustive_search(PythonEvaluator(lambda c: 1 / 0), Space({"x": [1, 2]}))


def test_builtin_searches():
    space = space_at(Space({"x": list(range(10))}), "n", 5)
    ev = PythonEvaluator(lambda c: (c["x"] - 7) ** 2 + 1.0)
    assert exhaustive_search(ev, space).best == {"x": 7, "n": 5}
    found = uniform_search(ev, space, budget=4, seed=2)
    assert len(found.dataset) == 4 and found.best in [dict(zip(["x", "n"], r)) for r in
                                                        found.dataset.frame[["x", "n"]].itertuples(index=False)]
    assert len(uniform_search(ev, space, budget=50, seed=2).dataset) == 10   # capped at the space


def test_space_at_fixes_the_size_and_keeps_restrictions():
    space = Space({"TILE": [4, 8, 16], "n": [8, 16]}, "TILE <= n")
    assert space_at(space, "n", 8).tune_params == {"TILE": [4, 8, 16], "n": [8]}
    assert space_at(space, "n", 8).size() == 2 and space_at(space, "n", 4096).size() == 3
    assert space_at(Space({"TILE": [4]}), "N", 3).names == ("TILE", "N")


def test_threshold_sweep_reads_the_transfer_table():
    result = tune_at_msp(PythonEvaluator(lanes_model), LANES_SPACE, LANES_SIZES, config={"B": 16}, transfer=True)
    sweep = threshold_sweep(result, [0.0, 0.05, 0.1, 0.5, 0.9])
    assert list(sweep.columns) == ["threshold", "msp", "saturated", "quality", "speedup", "kernel_speedup"]
    assert sweep["msp"].tolist() == [65536, 16384, 16384, 1024, 256]
    assert sweep["quality"].tolist() == pytest.approx(result.transfer.set_index("size").loc[
        sweep["msp"], "quality"].tolist())
    assert len(threshold_sweep(result)) == 16          # 0 % ... 15 %, as in the paper's Fig. 7
    plain = tune_at_msp(PythonEvaluator(lanes_model), LANES_SPACE, LANES_SIZES, config={"B": 16})
    with pytest.raises(InputError, match="needs the transfer table"):
        threshold_sweep(plain)
    with pytest.raises(InputError, match="no transfer curve was measured"):
        plain.plot_transfer()


def test_plots():
    result = tune_at_msp(PythonEvaluator(lanes_model), LANES_SPACE, LANES_SIZES, config={"B": 16}, transfer=True)
    curve = result.plot_curve()
    ax = curve.axes[0]
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "input size"
    assert any("MSP = 16384" in t.get_text() for t in ax.get_legend().get_texts())
    transfer = result.plot_transfer()
    assert transfer.axes[0].get_ylabel() == "% of the target's best" and transfer.axes[1].get_yscale() == "log"
    assert len(transfer.axes[0].lines[0].get_xdata()) == len(LANES_SIZES)
    sweep = plot_threshold_sweep(threshold_sweep(result))
    assert sweep.axes[0].get_xlabel() == "noise threshold (%)"
    flat = plot_throughput_curve(curve_of({3: 1.0, 5: 1.0}), find_msp(curve_of({3: 1.0, 5: 1.0})), log_y=True)
    assert flat.axes[0].get_yscale() == "log"
    assert plot_transfer(result.transfer).axes[0].get_title(loc="left").startswith("Transfer")


def test_measurement_best_is_accepted():
    m = Measurement({"B": 4, "n": 16}, values={"time": [1.0]})
    result = tune_at_msp(PythonEvaluator(lanes_model), LANES_SPACE, LANES_SIZES,
                         search=lambda ev, space, budget, seed: SimpleNamespace(best=m), baseline=None)
    assert result.winner == {"B": 4} and math.isnan(result.winner_value_msp)   # reported but not measured


# ---------------------------------------------------------------------- the command line
def test_cli_msp_command(tmp_path):
    from typer.testing import CliRunner

    import starchart.cli.msp  # noqa: F401  (registers the command)
    from starchart.cli import app

    study = tmp_path / "study.yaml"
    # a shell "kernel": a launch of B time units plus n / B waves, printed as time_ms
    study.write_text("parameters:\n  B: [1, 4, 16, 64]\nevaluator:\n  kind: command\n"
                     "  argv: [sh, -c, 'echo time_ms=$(( {n} / {B} + {B} ))']\n  pattern: 'time_ms=(\\S+)'\n")
    runner = CliRunner()
    result = runner.invoke(app, ["msp", str(study), "--sizes", "16..4096*4", "--default", "B=4", "--transfer",
                                 "--json", "--plots", str(tmp_path / "plots")])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [r["size"] for r in data["curve"]] == [16, 64, 256, 1024, 4096]
    # the default's throughput n / (n / 4 + 4) is 3.76 at 256, within 10 % of 3.98 at 4096
    assert data["msp"]["size"] == 256 and data["winner"] == {"B": 16}      # 256/16 + 16 = 32 is the best there
    assert data["target_best"] == {"B": 64} and data["quality"] == pytest.approx((64 + 64) / (256 + 16))
    assert [r["best_B"] for r in data["transfer"]] == [4, 4, 16, 16, 64]   # ties go to the first measured
    assert sorted(Path(p).name for p in data["plots"]) == ["msp_curve.png", "msp_transfer.png"]
    text = runner.invoke(app, ["msp", str(study), "--sizes", "16,256", "--search", "uniform", "--budget", "2"])
    assert text.exit_code == 0, text.output
    assert "throughput curve" in text.output and "search speedup" in text.output
    bad = runner.invoke(app, ["msp", str(study), "--sizes", "16,x"])
    assert bad.exit_code == 2 and "'x' is not a number" in bad.output
    bad = runner.invoke(app, ["msp", str(study), "--sizes", "16,256", "--default", "B"])
    assert bad.exit_code == 2 and "'B' is not NAME=VALUE" in bad.output


@pytest.mark.parametrize("args, said, unsaid", [
    (["--sizes", "16,256", "--target", "32"], ["error: --target:", "add it to --sizes"], ["error: target"]),
    (["--sizes", "16,256", "--search", "uniform"], ["error: --budget:", "pass --budget N"], ["budget="]),
    (["--sizes", "16,256", "--budget", "1"], ["use --search uniform"], ["search="]),
    (["--sizes", "16,256", "--search", "foo"], ["error: --search:"], ["callable", "error: search"]),
    (["--sizes", "16,256", "--baseline", "foo"], ["error: --baseline:", "exhaustive or none"], ["None"]),
    (["--sizes", "16,256", "--baseline", "none", "--transfer"], ["error: --transfer:", "pass --baseline search"],
     ["baseline="]),
    (["--sizes", "16,256", "--default", "B=3"], ["error: --default:", "pass --default with"], ["config=", "error: config"]),
    (["--sizes", "16,256", "--threshold", "2"], ["error: --threshold:", "e.g. --threshold 0.10"], ["threshold="]),
    (["--sizes", "-16,256"], ["error: --sizes:", "e.g. --sizes 1024,4096,16384"], ["sizes="]),
    (["--sizes", "16,256", "--stat", "max"], ["error: --stat:"], ["error: stat"]),
    (["--sizes", "16,256", "--work", "m * 2"], ["error: --work:"], ["error: work"]),
])
def test_cli_msp_errors_name_the_options_typed(tmp_path, args, said, unsaid):
    """tune_at_msp's errors name its Python arguments (target, budget=N, config=, sizes=[...]); on the
    command line they must name the options (--target, --budget N, --default, --sizes 1024,4096,16384)."""
    from typer.testing import CliRunner

    from starchart.cli import app

    study = tmp_path / "study.yaml"
    study.write_text("parameters:\n  B: [1, 4, 16, 64]\nrestrictions: ['B != 3']\nevaluator:\n  kind: command\n"
                     "  argv: [sh, -c, 'echo time_ms=$(( {n} / {B} + {B} ))']\n  pattern: 'time_ms=(\\S+)'\n")
    result = CliRunner().invoke(app, ["msp", str(study), *args])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert all(s in text for s in said), text
    assert not any(s in text for s in unsaid), text


def test_cli_msp_without_an_evaluator_does_not_offer_replay(tmp_path):
    from typer.testing import CliRunner

    from starchart.cli import app

    study = tmp_path / "study.yaml"
    study.write_text("parameters:\n  B: [1, 4]\n")
    result = CliRunner().invoke(app, ["msp", str(study), "--sizes", "16,256"])
    assert result.exit_code == 2 and "no evaluator given" in result.output
    assert "--replay" not in result.output and "--evaluator" in result.output


# ---------------------------------------------------------------------- review rounds (test_msp_user_edges)
# MSP used the way a performance engineer would: restrictions that name the input size, a maximised
# objective, typo'd size ranges, string-valued parameters on the command line, a curve passed in by hand,
# curves with one size or a fall past the peak, a space with nothing left to tune.


def _model(calls: list[dict]):
    """Saturates at n = 1024 for B = 256; at n = 1024 the best B is 64, which `B * 64 >= n` forbids at 16384."""
    def time_ms(c: dict) -> float:
        calls.append(dict(c))
        return c["n"] * 1e-4 * (1 + 1 / c["B"]) + c["B"] * 1e-5
    return time_ms


SIZED = Space({"B": [1, 4, 16, 64, 256], "n": [1]}, "B * 64 >= n")


@pytest.mark.parametrize("baseline", ["search", None])
def test_an_msp_winner_the_space_forbids_at_the_target_is_not_run_there(baseline):
    """Before: the MSP winner B=64 was run at n=16384 although `B * 64 >= n` forbids it there, and reported
    as 99 % of the target's best."""
    calls: list[dict] = []
    result = tune_at_msp(PythonEvaluator(_model(calls)), SIZED, [64, 1024, 16384], config={"B": 256},
                         baseline=baseline)
    assert result.msp.size == 1024 and result.winner == {"B": 64}
    assert not [c for c in calls if c["n"] == 16384 and c["B"] * 64 < 16384]
    assert result.winner_value_target != result.winner_value_target  # NaN: not run
    assert result.quality == (0.0 if baseline else None)
    assert any("not valid at the target size 16384" in n and "B * 64 >= n" in n for n in result.notes)


@pytest.mark.parametrize("confirm", [0, 2])
def test_transfer_winners_forbidden_at_the_target_get_quality_zero_not_more_than_one(confirm):
    """Before: the winner at n=4096 (B=64, forbidden at 16384) was measured there, beat the target's best
    (whose search never tried it) and got quality 112 %."""
    calls: list[dict] = []

    def time_ms(c: dict) -> float:
        calls.append(dict(c))
        return 0.05 + c["n"] * 1e-3 / min(c["B"], 64) + c["B"] * 2e-4

    result = tune_at_msp(PythonEvaluator(time_ms), SIZED, [4096, 8192, 16384], config={"B": 256}, transfer=True,
                         confirm=confirm)
    assert result.transfer["quality"].tolist() == [0.0, 1.0, 1.0]
    assert not [c for c in calls if c["n"] == 16384 and c["B"] * 64 < 16384]
    assert any("size(s) [4096] are not valid at the target" in n for n in result.notes)


def test_values_are_named_after_the_objective_not_the_time_metric():
    """Before: with GFLOP/s optimised and metric='time', the summary said "time 183.5" for 183.5 GFLOP/s."""
    def rate(c: dict) -> dict:
        t = 0.05 + c["n"] / min(c["B"], c["n"]) * 1e-3 + c["B"] * 2e-4
        return {"GFLOP/s": c["n"] / t * 1e-3, "time": t}

    ev = PythonEvaluator(rate, metrics=["GFLOP/s", "time"])
    result = tune_at_msp(ev, Space({"B": [1, 16, 256]}), [16, 4096], config={"B": 16}, metric="time")
    text = str(result)
    assert f"GFLOP/s {result.winner_value_msp:.4g} there" in text and "time " not in text.split("\n")[1]
    assert result.summary()["objective"] == "GFLOP/s"


@pytest.mark.parametrize("text, count", [("1..1e12*1.00001", "2,763,116"), ("8..1e9*1.001", "18,654")])
def test_a_size_range_giving_absurdly_many_sizes_is_refused_at_once(text, count):
    """Before: every size was listed, then measured (18,654 for a typo of *1.001 for *2), and a range such as
    8..1e300*1.0000001 exhausted the memory (a traceback, or the machine) before anything was said."""
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=f"gives {count} sizes"):
            parse_sizes(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # counted, not listed: 18,654 sizes as a list alone would take over 0.5 MB
    assert parse_sizes("8..1048576*2")[-1] == 1048576  # the README's range still works


def test_default_can_name_string_values_that_look_like_numbers(tmp_path):
    """Before: `--default VARIANT=2` became the number 2, not the space's "2": no --default could ever match."""
    study = tmp_path / "study.yaml"
    study.write_text("parameters:\n  B: [1, 4]\n  VARIANT: ['1', '2']\nevaluator:\n  kind: command\n"
                     "  argv: [sh, -c, 'echo time_ms=$(( {n} / {B} + 1 ))']\n  pattern: 'time_ms=(\\S+)'\n")
    result = CliRunner().invoke(app, ["msp", str(study), "--sizes", "16,64", "--default", "B=4,VARIANT=2",
                                      "--baseline", "none", "--json"])
    assert result.exit_code == 0, result.output
    assert '"VARIANT": "2"' in result.output
    assert parse_config("VARIANT=2,FLAG=true,B=4", {"VARIANT": ["1", "2"], "FLAG": [True, False], "B": [4]}) == {
        "VARIANT": "2", "FLAG": True, "B": 4}


def test_a_given_curve_that_is_not_this_studys_is_refused_by_name():
    """Before: a curve with sizes as text or without a size column gave TypeError / KeyError tracebacks, and one
    measured with another default configuration or work was used silently (the result named the wrong one)."""
    ev = PythonEvaluator(lambda c: 0.05 + c["n"] / min(c["B"], c["n"]) * 1e-3)
    space = Space({"B": [1, 4]})

    def refused(curve, said):
        with pytest.raises(InputError, match=said):
            tune_at_msp(ev, space, [16, 256], config={"B": 1}, curve=curve)

    refused(pd.DataFrame({"size": ["16", "256"], "throughput": [1.0, 2.0]}), "positive numbers, got '16'")
    refused(pd.DataFrame({"n": [16, 256], "throughput": [1.0, 2.0]}), "columns \\['n', 'throughput'\\]")
    refused(pd.Series([1.0, 2.0], index=[16, 256]), "got Series")
    refused(throughput_curve(ev, [16, 256], config={"B": 4}), "measured with config \\{'B': 4\\}")
    refused(throughput_curve(ev, [16, 256], config={"B": 1}, work="n^2"), "measured with work 'n\\^2'")
    same = throughput_curve(ev, [16, 256], config={"B": 1})
    assert tune_at_msp(ev, space, [16, 256], config={"B": 1}, curve=same).msp.target == 256


def test_msp_messages_do_not_claim_a_rise_they_did_not_see():
    """Before: one size, or a stable search past a fall, both said "throughput still rises at the target"."""
    one = find_msp({8: 50.0})
    assert not one.saturated and "only the target size 8 has a valid throughput" in one.message
    fell = find_msp({8: 50.0, 16: 100.0, 32: 70.0}, stable=True)
    assert fell.size == 32 and "still rises" not in fell.message
    assert "more than 10% below the maximum (100 at size 16)" in fell.message
    assert "still rises" in find_msp({8: 50.0, 16: 100.0}).message  # a real rise still says so


def test_a_space_with_nothing_to_tune_is_refused_before_measuring(tmp_path):
    """Before: --size-param naming the only tuning parameter tuned an empty space, and the transfer table
    showed "none: nothing ran" at 100 % quality."""
    study = tmp_path / "study.yaml"
    study.write_text("parameters:\n  B: [1, 4]\nevaluator:\n  kind: command\n"
                     "  argv: [sh, -c, 'echo time_ms=$(( {B} + 1 ))']\n  pattern: 'time_ms=(\\S+)'\n")
    result = CliRunner().invoke(app, ["msp", str(study), "--sizes", "16,64", "--size-param", "B", "--transfer"])
    assert result.exit_code == 2
    assert "no parameter to tune besides the input size 'B'" in result.output and "--size-param" in result.output
    assert not (tmp_path / "msp.db").exists()


def test_a_refused_store_says_which_option_to_use_once(tmp_path):
    """Before: the hint read "(--store new.db, or --store)"."""
    study = tmp_path / "study.yaml"
    study.write_text("parameters:\n  B: [1, 4]\nevaluator:\n  kind: command\n"
                     "  argv: [sh, -c, 'echo time_ms=$(( {n} / {B} + 1 ))']\n  pattern: 'time_ms=(\\S+)'\n")
    runner = CliRunner()
    assert runner.invoke(app, ["msp", str(study), "--sizes", "16,64", "--baseline", "none"]).exit_code == 0
    study.write_text(study.read_text().replace("[1, 4]", "[1, 8]"))
    result = runner.invoke(app, ["msp", str(study), "--sizes", "16,64", "--baseline", "none"])
    assert result.exit_code != 0 and "(--store new.db)" in result.output and "or --store)" not in result.output


def test_the_threshold_sweep_follows_a_stable_run():
    """Before: after tune_at_msp(stable=True) (or `starchart msp --stable --transfer --json`) the sweep found
    its MSPs without `stable`, so its row at the run's own threshold named another MSP (16, not 64)."""
    from starchart.msp import threshold_sweep

    throughput = {8: 50.0, 16: 95.0, 32: 70.0, 64: 98.0, 128: 100.0}  # per ms; a dip after 16
    ev = PythonEvaluator(lambda c: c["n"] / throughput[c["n"]] * (1 + 0.01 * c["B"]))
    result = tune_at_msp(ev, Space({"B": [1, 4]}), list(throughput), config={"B": 1}, stable=True, transfer=True)
    assert result.msp.size == 64
    sweep = threshold_sweep(result, [0.1])
    assert sweep["msp"].tolist() == [64]
    assert threshold_sweep(result, [0.1], stable=False)["msp"].tolist() == [16]


def test_a_numpy_target_budget_and_seed_are_kept_in_the_store(tmp_path):
    """Before: target=sizes[-2] of a numpy array (or a numpy budget/seed) with store= crashed with "Object of
    type int64 is not JSON serializable", and summary() could not be dumped as JSON."""
    import json

    import numpy as np

    ev = PythonEvaluator(lambda c: 0.05 + c["n"] / min(c["B"], c["n"]) * 1e-3 + c["B"] * 2e-4)
    sizes = np.array([16, 256, 4096])
    result = tune_at_msp(ev, Space({"B": [1, 4, 16]}), sizes, target=sizes[-2], search="uniform",
                         budget=np.int64(2), seed=np.int64(3), store=tmp_path / "msp.db")
    assert type(result.target) is int and json.loads(json.dumps(result.summary()))["target"] == 256
    assert "target size 256 " in find_msp({16: 1.0, 256: 2.0}, target=256.0).message


# ---------------------------------------------------------------------- review rounds (test_msp_user_edges2)
# MSP studies whose larger input sizes fail (out of memory, a limit of the program): what find_msp,
# tune_at_msp, threshold_sweep and `starchart msp` say when the curve cannot show a saturation point.


def _fails_above(limit: int) -> CommandEvaluator:
    """A real program that runs out of memory above size ``limit`` (exit status 3, saying so on stderr)."""
    script = (f'if [ {{n}} -gt {limit} ]; then echo "n={{n}}: out of device memory" >&2; exit 3; fi; '
              'echo time_ms=$(( {n} / {B} + {B} ))')
    return CommandEvaluator(["sh", "-c", script], pattern=r"time_ms=(\S+)")


def test_only_the_smallest_size_runs_and_the_target_failed_is_no_msp():
    """Before: "MSP = 16: the smallest size whose throughput is within 10% of the maximum", saturated, with the
    failures in notes; tuning then searched at 16 and stopped later with an error about the target."""
    curve = throughput_curve(_fails_above(16), [16, 64, 256], config={"B": 1})
    with pytest.raises(InputError) as info:
        find_msp(curve)
    text = str(info.value)
    assert "no saturation curve to read: only size 16 has a valid throughput, and the target size 256 failed" in text
    assert "size 64: exit status 3; stderr: n=64: out of device memory" in text   # which sizes, and why
    assert "size 256: exit status 3" in text
    assert "target=16" in info.value.hint and "config=" in info.value.hint        # what to do


def test_a_curve_still_rising_where_it_stops_is_no_msp():
    """Before: MSP = 16 (the largest size that ran, where the throughput peaked), reported as saturated."""
    with pytest.raises(InputError, match="the throughput still rises at size 16, the largest size that ran, and "
                                         "the target size 32 failed; failed size.s. .32."):
        find_msp({8: 50.0, 16: 100.0, 32: math.nan})
    with pytest.raises(InputError, match="no size before 16, the largest size that ran, starts a plateau"):
        find_msp({8: 100.0, 16: 50.0, 32: math.nan}, stable=True)


def test_a_plateau_seen_before_a_failed_target_is_an_msp_that_says_so():
    msp = find_msp({8: 95.0, 16: 100.0, 32: math.nan})
    assert (msp.size, msp.saturated) == (8, True)
    assert "the target size 32 has no valid measurement: the plateau is read from the sizes up to 16" in msp.notes


def test_only_the_target_runs_says_the_smaller_sizes_failed_and_why():
    """Before: "(measure smaller sizes to find one)" although they were measured, and the notes gave no reason."""
    ev = PythonEvaluator(lambda c: 1.0 if c["n"] >= 64 else 1 / 0)
    msp = find_msp(throughput_curve(ev, [16, 32, 64]))
    assert (msp.size, msp.saturated) == (64, False)
    assert "the smaller size(s) [16, 32] failed: make them run to find one" in msp.message
    assert "size 16: ZeroDivisionError" in msp.notes[0]


def test_tune_at_msp_stops_before_searching_when_there_is_no_curve():
    """Before: the search ran at size 16 (every configuration measured), then the run failed at the target."""
    calls = []

    def model(config):
        calls.append(config)
        if config["n"] > 16:
            raise MemoryError(f"out of memory at n={config['n']}")
        return 1.0 + config["B"]

    with pytest.raises(InputError, match="no saturation curve to read.*size 64: MemoryError: out of memory at n=64"):
        tune_at_msp(PythonEvaluator(model), Space({"B": [1, 2, 4]}), [16, 64, 256])
    assert len(calls) == 3   # the curve only


def test_a_rerun_on_the_store_says_the_failures_are_replayed(tmp_path):
    ev = PythonEvaluator(lambda c: 1.0 if c["n"] <= 16 else 1 / 0)
    space = Space({"B": [1, 2]})
    with pytest.raises(InputError) as first:
        tune_at_msp(ev, space, [16, 64, 256], store=tmp_path / "msp.db")
    assert "store" not in first.value.hint           # measured just now: nothing was replayed
    with pytest.raises(InputError, match="no saturation curve to read") as again:
        tune_at_msp(ev, space, [16, 64, 256], store=tmp_path / "msp.db")
    assert "read back from the store, which gives the same failures on every rerun" in again.value.hint


def test_threshold_sweep_goes_on_where_a_threshold_finds_no_saturation():
    """Before: at 3 % the sweep took the largest size that ran (16) for a saturation point."""
    # t = a + n / B ms with a = 8/9: for B=1, the default, the throughput at 8 is 95 % of that at 16; B=1 fails
    # at the target 32, B=2 (the best everywhere) runs there
    def model(config):
        if config["n"] == 32 and config["B"] == 1:
            raise MemoryError("out of memory")
        return 8 / 9 + config["n"] / config["B"]

    result = tune_at_msp(PythonEvaluator(model), Space({"B": [1, 2]}), [8, 16, 32], transfer=True)
    assert result.msp.size == 8
    sweep = threshold_sweep(result, [0.03, 0.10])
    assert sweep["msp"].tolist() == [None, 8]
    assert math.isnan(sweep["quality"].iloc[0]) and sweep["quality"].iloc[1] == 1.0
    assert "threshold 0.03: no saturation curve to read" in sweep.attrs["notes"][0]


def test_cli_says_there_is_no_curve_and_names_the_options(tmp_path):
    study = tmp_path / "study.yaml"
    study.write_text("parameters:\n  B: [1, 4]\nevaluator:\n  kind: command\n"
                     "  argv: [sh, -c, 'if [ {n} -gt 16 ]; then echo \"n={n}: out of device memory\" >&2; exit 3; "
                     "fi; echo time_ms=$(( {n} / {B} + {B} ))']\n  pattern: 'time_ms=(\\S+)'\n")
    result = CliRunner().invoke(app, ["msp", str(study), "--sizes", "16,64,256"])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "no saturation curve to read: only size 16 has a valid throughput" in text
    assert "stderr: n=64: out of device memory" in text
    assert "--target 16" in text and "--default" in text and "config=" not in text


# ---------------------------------------------------------------------- review rounds (test_msp_edges)
# `starchart msp` / throughput curves on unusual input: unbounded size ranges, a --plots path that cannot be a
# folder, and runs that "succeed" with a time or work that gives no throughput.


@pytest.mark.parametrize("text", ["8..inf", "8..64*inf", "8..1e400"])
def test_an_unbounded_size_range_is_refused(text):
    # Before: "8..inf" looped until the process was killed for memory.
    with pytest.raises(InputError, match="bad size range"):
        parse_sizes(text)


def _study(tmp_path, echo: str = "time_ms=$(( {n} / {B} + {B} ))"):
    study = tmp_path / "study.yaml"
    study.write_text("parameters:\n  B: [1, 4]\nevaluator:\n  kind: command\n"
                     f"  argv: [sh, -c, 'echo {echo}']\n  pattern: 'time_ms=(\\S+)'\n")
    return study


def test_a_plots_path_that_is_a_file_is_refused_before_measuring(tmp_path):
    """Before: the whole tuning ran, then mkdir failed ("File exists") and every result was lost."""
    taken = tmp_path / "figures"
    taken.write_text("not a folder")
    marker = tmp_path / "measured"
    study = _study(tmp_path, "time_ms=1; touch " + str(marker))
    result = CliRunner().invoke(app, ["msp", str(study), "--sizes", "16,256", "--plots", str(taken)])
    assert result.exit_code == 2 and "--plots" in result.output and "is a file, not a folder" in result.output
    assert not marker.exists()  # nothing was measured


@pytest.mark.parametrize("time_ms, work, said", [
    (0.0, "n", "'time' is 0 ms, not a positive run time"),
    (-1.0, "n", "'time' is -1 ms, not a positive run time"),
    (1.0, "0", "the work is 0 units, not a positive amount"),
])
def test_a_curve_without_a_usable_throughput_says_why(time_ms, work, said):
    """Before: "no size of the curve has a valid throughput", hint "every measurement failed" — none had."""
    curve = throughput_curve(PythonEvaluator(lambda c: time_ms), [8, 64], work=work)
    assert curve["status"].tolist() == ["ok", "ok"] and said in curve["reason"].iloc[0]
    with pytest.raises(InputError, match="valid throughput; size 8: " + said) as info:
        find_msp(curve)
    assert "every measurement failed" not in str(info.value)
