"""Errors as data: what an error mentions is rendered for its reader (Python caller or command line)."""

import pickle

import pytest
from typer.testing import CliRunner

import starchart
from starchart.cli import app
from starchart.cli.common import option_names
from starchart.errors import InputError, StarchartError, arg, render, say
from starchart.measure import PythonEvaluator, evaluator_from_dict


def test_python_words_by_default_and_options_on_request():
    err = InputError(f"{arg('band_line', '9999')} is not a line", where="k.c, band_line",
                     hint=f"pass {arg('band_line', '<line of the for>')} or {say('(3, 20)', '3,20')}")
    assert str(err) == "k.c, band_line: band_line=9999 is not a line (hint: pass band_line=<line of the for> or (3, 20))"
    assert err.param == "band_line"
    assert err.render({"band_line": "--band-line"}) == (
        "--band-line 9999 is not a line", "k.c, --band-line", "pass --band-line <line of the for> or 3,20")


def test_a_python_string_value_is_typed_bare_and_an_empty_value_names_the_option():
    text = f"use {arg('search', repr('uniform'))}, or raise {arg('timeout', '')}"
    assert render(text) == "use search='uniform', or raise timeout="
    assert render(text, {"search": "--search", "timeout": "--timeout"}) == "use --search uniform, or raise --timeout"


def test_an_argument_the_command_line_does_not_map_keeps_its_python_name():
    assert render(f"pass {arg('prior', '...')}", {"budget": "--budget"}) == "pass prior=..."


def test_a_message_without_mentions_is_left_as_it_is():
    # braces, equals signs and underscores in a message are the user's text, not mentions
    text = "argv 'echo {x}' with time_limit=5 in {'a': 1}"
    assert render(text, {"time_limit": "--time-limit", "x": "--x"}) == text


def test_option_names_only_tells_the_error_its_readers_options():
    with pytest.raises(InputError) as caught, option_names({"budget": "--budget"}):
        raise InputError("too small", where="budget", hint=f"use {arg('budget', '100')}")
    assert str(caught.value) == "--budget: too small (hint: use --budget 100)"
    assert caught.value.raw_hint.startswith("use ") and caught.value.raw_where == "budget"


def test_the_innermost_option_table_wins():
    with pytest.raises(InputError) as caught, option_names({"config": "--config"}), \
            option_names({"config": "--default"}):
        raise InputError(f"{arg('config')} is wrong")
    assert caught.value.message == "--default is wrong"


def test_setting_the_message_keeps_what_it_mentions():
    err = StarchartError("x")
    err.message = f"{arg('seed')} twice"
    assert str(err) == "seed twice" and err.render({"seed": "--seed"})[0] == "--seed twice"


def test_errors_still_pickle_and_compare_by_text():
    err = InputError(f"{arg('budget', '0')} is too small", where="budget")
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err) == "budget: budget=0 is too small"


def test_cli_shows_a_library_error_in_its_options(tmp_path):
    """The library says ``growth=2``; `starchart samples` says ``--growth 2`` (and no regex rewrote it)."""
    space = tmp_path / "space.yaml"
    space.write_text("parameters:\n  x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]\n")
    result = CliRunner().invoke(app, ["samples", str(space), "--command", "echo 1", "--validation", "4",
                                      "--growth", "1"])
    text = " ".join(result.output.split())
    assert result.exit_code == 2, text
    assert "--growth: must be a number > 1, got 1.0" in text and "--growth 2 doubles" in text
    assert "growth=" not in text


@pytest.mark.parametrize("call, param", [
    (lambda: starchart.load(5), "path"),
    (lambda: starchart.load(None), "path"),
    (lambda: starchart.Space.from_file(5), "path"),
    (lambda: starchart.run(starchart.Space({"a": [1, 2]}), "x", samples=1, progress=False), "evaluator"),
    (lambda: starchart.run("x", PythonEvaluator(lambda c: 1.0), samples=1, progress=False), "space"),
    (lambda: starchart.search("x", starchart.Space({"a": [1, 2]}), budget=2), "evaluator"),
    (lambda: starchart.search(PythonEvaluator(lambda c: 1.0), "x", budget=2), "space"),
    (lambda: starchart.Space({"a": [1, 2]}).sample(1, seed=-1), "seed"),
    (lambda: starchart.Space({"a": [1, 2]}).sample(1, seed="x"), "seed"),
    (lambda: starchart.run(starchart.Space({"a": [1, 2]}), PythonEvaluator(lambda c: 1.0), samples=1, seed=-1,
                           progress=False), "seed"),
    (lambda: starchart.run(starchart.Space({"a": [1, 2]}), PythonEvaluator(lambda c: 1.0), configs=[1, 2],
                           progress=False), "configs"),
    (lambda: starchart.Space.from_kernel_tuner({"tune_params": {"a": [1]}, "tune_params_keys": 5}), None),
    (lambda: starchart.Space.from_kernel_tuner({"tune_params": {"block_size_x": [1]}}, max_threads="x"),
     "max_threads"),
    (lambda: starchart.Space.from_dict({"parameters": {"a": {"range": [0, 10**400]}}}), None),
    (lambda: starchart.Space.from_dict({"parameters": {"a": {"range": [0, 1, 1e-320]}}}), None),
    (lambda: starchart.tradeoff(None, ["time", "power"]), "dataset"),
    (lambda: starchart.compare_platforms({"a": 5, "b": 6}), "datasets"),
    (lambda: starchart.search(PythonEvaluator(lambda c: 1.0), starchart.Space({"a": [1, 2]}), budget=2,
                              options="junk"), "options"),
    (lambda: starchart.Store.open(5), "path"),
    (lambda: evaluator_from_dict({"kind": "command", "argv": ["echo"], "repeats": 10**30}), "repeats"),
    (lambda: evaluator_from_dict({"kind": "command", "argv": ["echo"], "warmup": 10**30}), "warmup"),
    (lambda: starchart.load(starchart.datasets.data_path("kmeans"), format=5), "format"),
], ids=["load int", "load None", "space file int", "run evaluator", "run space", "search evaluator", "search space",
        "sample seed -1", "sample seed str", "run seed -1", "run configs", "cache keys", "max_threads", "huge range",
        "tiny step", "tradeoff None", "platforms values", "search options", "store int", "repeats 1e30",
        "warmup 1e30", "load format int"])
def test_an_argument_of_the_wrong_type_is_a_starchart_error_naming_it(call, param):
    """``load(5)`` raised TypeError from pathlib and ``run(space, "x")`` AttributeError from deep inside; an
    independent corpus found the rest (seeds, configs, huge ranges, wrong containers)."""
    with pytest.raises(StarchartError) as caught:
        call()
    if param is not None:  # else the error names the file or the parameter of the space
        assert caught.value.param == param
