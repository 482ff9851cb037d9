"""Names, values and paths are the user's text: brackets in them ("time[/ms]", "s[red].db") are printed as
written by the analysis and measuring commands, never read as rich markup (which crashed them or ate text)."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from starchart.cli import app
from starchart.measure import PythonEvaluator


@pytest.fixture
def data(tmp_path):
    rows = [{"N": n, "t[/b]": a, "b": b, "time[/ms]": n * b + (a == "plain") * 3.0 + 0.01 * b * b,
             "power[/w]": 50.0 + b + (n == 128)}
            for n in (64, 128) for a in ("[/b]", "[bold]x", "plain") for b in range(1, 9)]
    path = tmp_path / "d.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_platforms_inputs_and_tradeoff_print_bracketed_names_as_written(data, tmp_path):
    metrics = ["--metrics", "time[/ms],power[/w]"]
    result = invoke("platforms", f"A={data}", f"B={data}", *metrics, "--metric", "time[/ms]")
    assert result.exit_code == 0, result.output  # was: MarkupError, closing tag '[/ms]'
    assert "mean time[/ms]" in result.output and "[/b]" in result.output
    result = invoke("inputs", data, *metrics, "--input", "N", "--metric", "time[/ms]")
    assert result.exit_code == 0, result.output
    assert "time[/ms]" in result.output
    renamed = tmp_path / "e.csv"
    pd.read_csv(data).rename(columns={"time[/ms]": "time", "power[/w]": "Watt"}).to_csv(renamed, index=False)
    result = invoke("tradeoff", renamed, "--metrics", "time,Watt")
    assert result.exit_code == 0, result.output  # was: MarkupError from the savings line's configuration
    assert "'t[/b]': '[/b]'" in result.output


def test_run_search_and_export_keep_brackets_in_store_paths_and_metric_names(data, tmp_path):
    frame = pd.read_csv(data).rename(columns={"time[/ms]": "time[ms]"})
    replay = tmp_path / "f.csv"
    frame.to_csv(replay, index=False)
    store = tmp_path / "s[red].db"
    result = invoke("run", "--replay", replay, "--metric", "time[ms]", "--samples", "6", "--store", store)
    assert result.exit_code == 0, result.output
    assert "s[red].db:" in result.output  # was "s.db:": "[red]" read as a colour
    assert "best time[ms]" in result.output
    result = invoke("search", "--replay", replay, "--metric", "time[ms]", "--budget", "6", "--store",
                    tmp_path / "q[red].db")
    assert result.exit_code == 0, result.output
    assert "best time[ms]" in result.output and "t[/b]=" in result.output
    out = tmp_path / "o[red].csv"
    result = invoke("export", store, "-o", out)
    assert result.exit_code == 0 and out.exists()
    assert "o[red].csv" in result.output


def test_the_progress_bar_shows_a_bracketed_objective_as_written(capsys):
    from starchart.space import Space
    from starchart.study.runner import run

    # the bar renders its fields as markup: "t[/ms]" crashed the run at its first result
    ds = run(Space({"x": [1, 2, 3]}), PythonEvaluator(lambda c: {"t[/ms]": float(c["x"])}), samples=3, seed=0)
    assert ds.frame["status"].eq("ok").all()
    assert "best 1 (t[/ms])" in capsys.readouterr().err


def test_an_option_missing_its_value_names_the_command_it_belongs_to(data):
    result = CliRunner().invoke(app, ["tree", str(data), "--metric"], prog_name="starchart")
    assert result.exit_code == 2
    assert "starchart tree: Option '--metric' requires an argument" in result.output  # was "starchart: Option"
    assert "see starchart tree --help" in result.output


def test_every_command_prints_user_text_as_written_by_default(tmp_path):
    """The consoles read no markup unless a line asks for it: `msp` printed its store path and figure
    names through the markup parser, so "run[bold]" vanished from the paths it told the user to keep."""
    study = tmp_path / "study.yaml"
    study.write_text("parameters:\n  B: [1, 4]\nevaluator:\n  kind: command\n"
                     "  argv: [sh, -c, 'echo time_ms=$(( {n} / {B} + 1 ))']\n  pattern: 'time_ms=(\\S+)'\n")
    folder = tmp_path / "run[bold]"
    folder.mkdir()
    result = invoke("msp", study, "--sizes", "16,64", "--baseline", "none", "--store", folder / "m.db",
                    "--plots", folder)
    assert result.exit_code == 0, result.output
    assert f"kept in {folder / 'm.db'}" in " ".join(result.output.split())
    assert f"wrote {folder}" in result.output
    # styled lines still style: the error label is read as markup, the quoted text is not
    result = invoke("info", tmp_path / "missing[red].csv")
    assert result.exit_code != 0 and "[bold red]" not in result.output and "missing[red].csv" in result.output


@pytest.mark.parametrize("name", ["[bold red]x", "[red]bx[/]", "b[/]"], ids=["open-tag", "closed-tag", "stray-close"])
def test_tree_info_and_space_print_a_column_named_like_markup_as_written(tmp_path, name):
    """A CSV column "[red]bx[/]" is a parameter name: the tree's splits, `info`'s table and the space's summary
    show it whole (read as markup it would print "bx", red, or crash on a stray closing tag)."""
    path = tmp_path / "d.csv"
    pd.DataFrame({name: [x for x in (1, 2, 4, 8) for _ in range(6)], "r": list(range(6)) * 4,
                  "time": [float(x) for x in (1, 2, 4, 8) for _ in range(6)]}).to_csv(path, index=False)
    result = invoke("tree", path)
    assert result.exit_code == 0, result.output
    assert f"{name} ≤ " in result.output and f"importance (share of SSE explained): {name} " in result.output
    result = invoke("info", path)
    assert result.exit_code == 0, result.output
    assert name in result.output
    result = invoke("space", path)
    assert result.exit_code == 0, result.output
    assert f"  {name}  numeric" in result.output
