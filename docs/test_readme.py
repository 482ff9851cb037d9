"""The README's quickstart runs as written, on the data that ships (no ../shared needed), and the README
stays a front door: at most 10,000 characters, every guide it links to present."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}.*?$(.*?)(?=^## )", README, re.S | re.M)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def _commands(block: str) -> list[str]:
    joined = block.replace("\\\n", " ")
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip()]


@pytest.fixture
def clone_like(tmp_path: Path) -> Path:
    """A folder that looks like the clone's root to the commands (starchart/ beside them) but keeps what they
    write (stores, reports) out of the repository."""
    (tmp_path / "starchart").symlink_to(ROOT / "starchart")
    return tmp_path


def test_readme_is_a_front_door() -> None:
    assert len(README) <= 10_000
    for target in re.findall(r"\]\(([^)#\s]+)\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), target


QUICKSTART = _commands(_blocks(_section("Quickstart"), "bash")[0])


@pytest.mark.parametrize("command", QUICKSTART)
def test_quickstart_command_runs_as_written(command: str, clone_like: Path) -> None:
    assert command.startswith("starchart ")
    args = command.split()[1:]
    done = subprocess.run([sys.executable, "-m", "starchart", *args], cwd=clone_like, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "COLUMNS": "160"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "error:" not in done.stderr


def test_quickstart_states_what_the_first_tree_prints(clone_like: Path) -> None:
    """The numbers the README quotes are what the command prints."""
    done = subprocess.run([sys.executable, "-m", "starchart", *QUICKSTART[0].split()[1:]], cwd=clone_like,
                          capture_output=True, text=True, timeout=600)
    assert "within 1.5 % median error" in done.stdout and "tpp 99.5%" in done.stdout
    assert "1.5 %" in README and "99.5 %" in README


def test_quickstart_python_runs(clone_like: Path) -> None:
    code = _blocks(_section("Quickstart"), "python")[0]
    done = subprocess.run([sys.executable, "-c", code], cwd=clone_like, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "∧" in done.stdout  # the best leaf's description
