"""MSP studies whose larger input sizes fail (out of memory, a limit of the program): what find_msp,
tune_at_msp, threshold_sweep and `starchart msp` say when the curve cannot show a saturation point."""

from __future__ import annotations

import math

import pytest
from typer.testing import CliRunner

from starchart.cli import app
from starchart.errors import InputError
from starchart.measure import CommandEvaluator, PythonEvaluator
from starchart.msp import find_msp, threshold_sweep, throughput_curve, tune_at_msp
from starchart.space import Space


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path, monkeypatch):
    """`starchart msp` keeps its measurements in ./msp.db by default: not in the checkout."""
    monkeypatch.chdir(tmp_path)


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
