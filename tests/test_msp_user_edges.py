"""MSP used the way a performance engineer would: restrictions that name the input size, a maximised
objective, typo'd size ranges, string-valued parameters on the command line, a curve passed in by hand,
curves with one size or a fall past the peak, a space with nothing left to tune."""

from __future__ import annotations

import time

import pandas as pd
import pytest
from typer.testing import CliRunner

from starchart.cli import app
from starchart.cli.msp import parse_config, parse_sizes
from starchart.errors import InputError
from starchart.measure import PythonEvaluator
from starchart.msp import find_msp, throughput_curve, tune_at_msp
from starchart.space import Space


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path, monkeypatch):
    """`starchart msp` keeps its measurements in ./msp.db by default: not in the checkout."""
    monkeypatch.chdir(tmp_path)


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
    start = time.perf_counter()
    with pytest.raises(InputError, match=f"gives {count} sizes"):
        parse_sizes(text)
    assert time.perf_counter() - start < 1
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
