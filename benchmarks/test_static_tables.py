"""The committed carving tables of ``benchmarks/search_static.py`` and how a run of some spaces keeps the record's
others (so a space can be added without compiling the rest again)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shared_data import dataset_path

import starchart
from starchart import Space
from starchart.strategies.encoding import Encoding
from starchart.strategies.static import StaticFeatures

search_static = pytest.importorskip("search_static")
carving_spaces = pytest.importorskip("carving_spaces")

ROOT = Path(__file__).resolve().parents[1]
RECORD = json.loads((search_static.RESULTS / "search_static.json").read_text())
COMMITTED = [name for name in RECORD["carving"] if search_static.table_path(name).exists()]


def _space(name: str) -> Space:
    if name.startswith("convolution "):
        return Space.from_file(ROOT / "examples" / "spaces" / "convolution.yaml")
    from search import _FILES, SPACES  # the replayed space of a measured file (KTT's: its output)

    return Space.from_dataset(starchart.load(dataset_path(_FILES[name][0] if name in _FILES else SPACES[name])))


@pytest.mark.parametrize("name", COMMITTED)
def test_a_committed_table_covers_its_space_and_gives_the_recorded_survivors(name):
    table = search_static.carving_table(name, Path("unused.cu"), jobs=1)  # committed: nothing is compiled
    space = _space(name)
    params = list(space.names)
    assert len(table) == len(table[params].drop_duplicates()) == RECORD["carving"][name]["configurations"]
    static = StaticFeatures.from_table(Encoding.from_space(space), table)
    assert len(static.rows) == len(table)  # every row is a configuration of the space, spelt as the space spells it
    assert len(static.kept) == RECORD["carving"][name]["kept_by_carving"] > 0
    assert set(RECORD["carving"][name]["metrics"]) <= set(table.columns)


def test_the_record_keeps_the_spaces_not_run_again(monkeypatch, tmp_path):
    record = {"carving": {"a": {"configurations": 3}, "b": {"configurations": 4}},
              "starchart_rerun": {"a": {"0": 1}, "b": {"0": 2}},
              "runs": {"static": {"a": {"0": {"20": 0.9}}, "b": {"0": {"20": 0.8}}},
                       "uniform": {"a": {"0": {"20": 0.5}}}}}
    (tmp_path / "search_static.json").write_text(json.dumps(record))
    monkeypatch.setattr(search_static, "RESULTS", tmp_path)
    kept = search_static._kept_from_record({"b"})
    assert kept == {"carving": {"a": {"configurations": 3}}, "starchart_rerun": {"a": {"0": 1}},
                    "runs": {"static": {"a": {"0": {"20": 0.9}}}}}  # the others' runs come from search.json


def test_a_method_without_runs_on_a_space_says_how_many_spaces_it_pools():
    runs = {"static": {"a": {"0": {"20": 1.0}}, "b": {"0": {"20": 0.5}}}, "optuna_tpe": {"a": {"0": {"20": 0.9}}}}
    rows = {row["method"]: row for row in search_static.summary_rows(runs, ["a", "b"], [20])}
    assert rows["static"]["spaces"] == 2 and rows["static"]["median all"] == 0.75
    assert rows["optuna_tpe"]["spaces"] == 1 and rows["optuna_tpe"]["b"] is None


def test_carving_spaces_keeps_the_rows_of_spaces_not_scored(monkeypatch, tmp_path):
    rows = [{"kernel": "pnpoly", "gpu": "RTX 3090", "rule": "paper"},
            {"kernel": "convolution", "gpu": "A100", "rule": "paper"}]
    (tmp_path / "carving_spaces.json").write_text(json.dumps({"command": "old", "rows": rows,
                                                              "commands": {"pnpoly RTX 3090": "first"}}))
    monkeypatch.setattr(carving_spaces, "RESULTS", tmp_path)
    kept, commands = carving_spaces._kept_rows({"convolution A100"})
    assert kept == rows[:1] and commands == {"pnpoly RTX 3090": "first"}
    assert carving_spaces._kept_rows({"nothing"})[1] == {"pnpoly RTX 3090": "first", "convolution A100": "old"}


def test_without_a_record_nothing_is_kept(monkeypatch, tmp_path):
    monkeypatch.setattr(carving_spaces, "RESULTS", tmp_path)
    monkeypatch.setattr(search_static, "RESULTS", tmp_path)
    assert carving_spaces._kept_rows(set()) == ([], {})
    assert search_static._kept_from_record(set()) == {"carving": {}, "starchart_rerun": {}, "runs": {}}


def test_the_docs_table_shows_each_space_and_says_when_a_method_misses_one():
    record = {"carving": {"a": {}, "b (time)": {}},
              "runs": {"static": {"a": {"0": {"20": 1.0}, "1": {"20": 0.9}}, "b (time)": {"0": {"20": 0.5}}},
                       "optuna_tpe": {"a": {"0": {"20": 0.8}}}}}
    lines = search_static.markdown(record, 20).splitlines()
    assert lines[0] == "| method | a | b | all spaces |"
    assert lines[2] == "| **static** | 0.950 (50%) | 0.500 (0%) | 0.900 (33%) |"
    assert lines[3] == "| optuna_tpe | 0.800 (0%) | — | 0.800 (0%), 1 space |"
