"""MSP-tuning with the tree-guided search (``--search tree``): stored, and resumed without measuring again."""

from __future__ import annotations

from typer.testing import CliRunner

from starchart.cli import app
from starchart.measure import PythonEvaluator
from starchart.msp import tune_at_msp
from starchart.space import Space
from starchart.study.store import Store

SPACE = Space({"B": [1, 2, 4, 8, 16, 32, 64, 128], "U": [1, 2, 4]})
SIZES = [64, 256, 1024, 4096]


def lanes(config):
    lanes = min(config["B"], config["n"])
    return 0.05 + config["n"] / lanes * 1e-3 + config["B"] * 2e-4 + config["U"] * 1e-4


def test_tune_at_msp_with_the_tree_search_is_resumed_from_its_store(tmp_path):
    calls = []

    def counted(config):
        calls.append(config)
        return lanes(config)

    path = tmp_path / "msp.db"
    result = tune_at_msp(PythonEvaluator(counted), SPACE, SIZES, config={"B": 4, "U": 1}, search="tree",
                         budget=10, seed=3, store=path)
    assert result.winner is not None and set(result.winner) == {"B", "U"}
    made = len(calls)
    with Store.open(path, read_only=True) as db:
        assert len(db) == made
    again = tune_at_msp(PythonEvaluator(counted), SPACE, SIZES, config={"B": 4, "U": 1}, search="tree",
                        budget=10, seed=3, store=path)
    assert len(calls) == made                      # every proposal was served from the store
    assert again.winner == result.winner


def test_cli_msp_search_tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    study = tmp_path / "study.yaml"
    study.write_text("parameters:\n  B: [1, 4, 16, 64]\nevaluator:\n  kind: command\n"
                     "  argv: [sh, -c, 'echo time_ms=$(( {n} / {B} + {B} ))']\n  pattern: 'time_ms=(\\S+)'\n")
    runner = CliRunner()
    result = runner.invoke(app, ["msp", str(study), "--sizes", "16,256", "--search", "tree", "--budget", "3"])
    assert result.exit_code == 0, result.output
    assert "throughput curve" in result.output
    with Store.open(tmp_path / "msp.db", read_only=True) as db:
        stored = len(db)
    again = runner.invoke(app, ["msp", str(study), "--sizes", "16,256", "--search", "tree", "--budget", "3"])
    assert again.exit_code == 0, again.output
    with Store.open(tmp_path / "msp.db", read_only=True) as db:
        assert len(db) == stored                   # the rerun measured nothing new
