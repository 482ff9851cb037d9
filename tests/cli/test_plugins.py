"""A package outside starchart adds an evaluator kind and a file format through entry points, and the
command line uses them (run --evaluator, export, info, tree) with no edit to starchart.

The package is written to a temporary folder as an installed distribution would be (a module and a
``.dist-info`` with ``entry_points.txt``), and the CLI runs in a child process with that folder on
``PYTHONPATH``: exactly what ``pip install`` of a plug-in gives."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from child_env import child_env

PLUGIN = '''
"""A plug-in for starchart: a simulated kernel (kind: parabola) and a key=value file format (.kv)."""

import pandas as pd

from starchart.dataset import Dataset
from starchart.io.formats import Format
from starchart.measure import Evaluator, Measurement


class ParabolaEvaluator(Evaluator):
    """A kernel whose time is a parabola in its parameters, lowest at ``best``."""

    kind = "parabola"
    metrics = ("time",)

    def __init__(self, best=4):
        self.best = best

    def _measure(self, config):
        return Measurement(config, values={"time": [1.0 + sum((v - self.best) ** 2 for v in config.values())]})

    def describe(self):
        return {**super().describe(), "best": self.best}

    @classmethod
    def from_description(cls, description):
        return cls(best=description.get("best", 4))


def read_kv(path, text=None, **options):
    rows = [dict(item.split("=") for item in line.split()) for line in (text or open(path).read()).splitlines()[1:]
            if line.strip()]
    frame = pd.DataFrame(rows).apply(pd.to_numeric)
    return Dataset.from_frame(frame, metrics=["time"], meta={"source": str(path)})


def write_kv(dataset, path, **options):
    frame = dataset.frame[[*dataset.params, *dataset.metrics]]
    lines = ["#kv"] + [" ".join(f"{k}={v}" for k, v in row.items()) for row in frame.to_dict("records")]
    with open(path, "w") as handle:
        handle.write("\\n".join(lines) + "\\n")


KV = Format("kv", "key=value lines", read=read_kv, sniff=lambda head: head.startswith("#kv"), write=write_kv,
            write_suffixes=(".kv",), read_suffixes=(".kv",))
'''

ENTRY_POINTS = """
[starchart.evaluators]
parabola = starchart_example_plugin:ParabolaEvaluator

[starchart.formats]
kv = starchart_example_plugin:KV
"""


@pytest.fixture
def installed_plugin(tmp_path):
    """A folder holding the plug-in as an installed distribution; the environment that puts it on the path."""
    site = tmp_path / "site"
    (site / "starchart_example_plugin-1.0.dist-info").mkdir(parents=True)
    (site / "starchart_example_plugin.py").write_text(PLUGIN)
    info = site / "starchart_example_plugin-1.0.dist-info"
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: starchart-example-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    env = child_env()
    env["PYTHONPATH"] = os.pathsep.join([str(site), *filter(None, [env.get("PYTHONPATH")])])
    return env


def starchart(env, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "starchart", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_a_plugin_evaluator_and_format_work_from_the_command_line(tmp_path, installed_plugin):
    (tmp_path / "space.yaml").write_text("parameters:\n  x: [1, 2, 3, 4, 5, 6, 7, 8]\n  y: [2, 4, 6]\n")
    (tmp_path / "ev.yaml").write_text(textwrap.dedent("""\
        kind: parabola
        best: 4
        """))
    run = starchart(installed_plugin, tmp_path, "run", "space.yaml", "--evaluator", "ev.yaml", "--samples", "24",
                    "--store", "s.db")
    assert run.returncode == 0, run.stderr
    export = starchart(installed_plugin, tmp_path, "export", "s.db", "-o", "all.kv")
    assert export.returncode == 0, export.stderr
    assert (tmp_path / "all.kv").read_text().startswith("#kv\n")
    info = starchart(installed_plugin, tmp_path, "info", "all.kv")
    assert info.returncode == 0, info.stderr
    assert "24" in info.stdout
    tree = starchart(installed_plugin, tmp_path, "tree", "all.kv", "--metric", "time", "--min-split", "2")
    assert tree.returncode == 0, tree.stderr
    assert "x ≤" in tree.stdout or "x >" in tree.stdout
    best = min((tmp_path / "all.kv").read_text().splitlines()[1:], key=lambda line: float(line.split("time=")[1]))
    assert best.startswith("x=4 y=4 ")                      # the parabola's minimum: the plug-in really measured
    resumed = starchart(installed_plugin, tmp_path, "resume", "s.db")       # rebuilt from its description
    assert resumed.returncode == 0, resumed.stderr


def test_without_the_plugin_its_kind_and_format_are_clear_errors(tmp_path):
    (tmp_path / "space.yaml").write_text("parameters:\n  x: [1, 2]\n")
    (tmp_path / "ev.yaml").write_text("kind: parabola\n")
    (tmp_path / "all.kv").write_text("#kv\nx=1 time=2\n")
    run = starchart(child_env(), tmp_path, "run", "space.yaml", "--evaluator", "ev.yaml", "--samples", "2",
                    "--store", "s.db")
    assert run.returncode == 2 and "unknown evaluator kind 'parabola'" in run.stderr
    info = starchart(child_env(), tmp_path, "info", "all.kv")
    assert info.returncode == 2 and "unknown file format" in info.stderr
