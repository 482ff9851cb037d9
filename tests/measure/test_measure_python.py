"""PythonEvaluator: importing the function (a module that fails on import), the metrics it returns."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from starchart.errors import InputError
from starchart.measure import PythonEvaluator

_names = (f"starchart_test_module_{i}" for i in itertools.count())


def _module(folder: Path, code: str) -> str:
    """A module of ``code`` in ``folder``, under a name no other test imported (``sys.modules`` keeps them)."""
    name = next(_names)
    (folder / f"{name}.py").write_text(code)
    return name


@pytest.mark.parametrize("code, said", [("raise SystemExit(7)", "SystemExit(7)"),
                                        ("import sys\nsys.exit('no GPU here')", "SystemExit('no GPU here')"),
                                        ("raise ValueError('bad')", "ValueError: bad")],
                         ids=["SystemExit-code", "sys.exit-text", "ValueError"])
def test_a_module_that_exits_or_raises_on_import_is_a_clear_error(tmp_path, code, said):
    """Before: ``raise SystemExit(7)`` in the module ended the whole command with status 7 and no word."""
    name = _module(tmp_path, code)
    with pytest.raises(InputError) as caught:
        PythonEvaluator.from_description({"function": f"{name}:f", "path": str(tmp_path)})
    assert f"importing {name!r}" in caught.value.message and said in caught.value.message
    assert str(tmp_path / f"{name}.py") in caught.value.message


@pytest.mark.parametrize("name", ["status", "reason"], ids=["status", "reason"])
def test_a_returned_metric_named_like_a_dataset_column_fails_the_configuration(name):
    """A dict with a ``status`` key stored a result the study could not read back; now it is a failure that says why."""
    m = PythonEvaluator(lambda c: {"time": 1.0, name: 2.0}).evaluate({})
    assert m.status == "runtime" and f"{name!r}" in m.reason and "column every dataset holds" in m.reason


def test_the_docstring_says_a_function_runs_in_this_process():
    """``os._exit`` in the function ends the whole run: documented, as the function is not run in a child."""
    assert "os._exit" in PythonEvaluator.__doc__
