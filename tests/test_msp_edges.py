"""`starchart msp` / throughput curves on unusual input: unbounded size ranges, a --plots path that cannot be a
folder, and runs that "succeed" with a time or work that gives no throughput."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from starchart.cli import app
from starchart.cli.msp import parse_sizes
from starchart.errors import InputError
from starchart.measure import PythonEvaluator
from starchart.msp import find_msp, throughput_curve


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path, monkeypatch):
    """`starchart msp` keeps its measurements in ./msp.db by default: not in the checkout."""
    monkeypatch.chdir(tmp_path)


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
