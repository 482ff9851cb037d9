"""The command line is a leaf that starts fast: its root loads no numerical library."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from starchart.cli import app
from starchart.cli.app import COMMANDS

HEAVY = ("numpy", "pandas", "matplotlib", "numba")


@pytest.mark.parametrize("code", [
    "import starchart",
    "import starchart.cli",
    "from starchart.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass",
    "from starchart.cli import main\ntry:\n    main(['no-such-command'])\nexcept SystemExit:\n    pass",
])
def test_the_package_and_the_program_root_load_no_numerical_library(code):
    probe = code + f"\nimport sys\nprint('loaded:' + ','.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "loaded:"


def test_help_lists_every_command_with_its_own_first_docstring_line():
    """The table's help line is what the command's docstring says (so the list needs no import)."""
    package = Path(__file__).resolve().parents[2] / "starchart" / "cli"
    documented = {}
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    if (isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", "") == "command"
                            and getattr(decorator.func.value, "id", "") == "app"):
                        name = decorator.args[0].value if decorator.args else node.name
                        first = (ast.get_docstring(node) or "").split("\n\n")[0].replace("\n", " ")
                        documented[name] = (f"starchart.cli.{path.stem}", first)
    for name, entry in COMMANDS.items():
        if name == "xapp":  # a group: its help is the sub-app's
            continue
        assert documented[name] == (entry.module, entry.help), name
    assert set(documented) <= set(COMMANDS), "a command is registered but missing from COMMANDS"


def test_a_command_runs_from_its_lazily_loaded_module():
    result = CliRunner().invoke(app, ["space", "--help"])
    assert result.exit_code == 0
    assert "Describe a tuning space" in result.output


def test_a_misspelt_command_is_one_line_with_a_suggestion():
    result = CliRunner().invoke(app, ["serch"])
    assert result.exit_code == 2
    assert "search" in result.output
