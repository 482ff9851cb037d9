"""Damaged stores: one clear error from every reader, and `starchart doctor` keeps what still reads."""

from __future__ import annotations

import shutil
import sqlite3

import pytest
from typer.testing import CliRunner

from starchart.cli import app
from starchart.errors import StoreDamagedError
from starchart.measure import Measurement
from starchart.study.doctor import examine, salvage
from starchart.study.store import Store


@pytest.fixture
def store(tmp_path):
    """A store of 60 results and a space, then checkpointed into the main file (no -wal)."""
    path = tmp_path / "s.db"
    with Store.open(path) as db:
        db.put("space", {"parameters": {"x": list(range(60))}})
        db.put("plan", {"samples": 60, "seed": 1})
        for x in range(60):
            db.add(Measurement({"x": x}, values={"time": [1.0 + x]}))
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.execute("PRAGMA journal_mode=DELETE")
    connection.close()
    return path


def _root_page(path, table):
    connection = sqlite3.connect(path)
    page = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    size = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    return page, size


def _damage(path, table, tmp_path, name):
    damaged = tmp_path / name
    shutil.copy(path, damaged)
    page, size = _root_page(damaged, table)
    with open(damaged, "r+b") as file:
        file.seek((page - 1) * size)
        file.write(bytes((i * 37 + 11) % 256 for i in range(100)))
    return damaged


def _garble_value(path, tmp_path, key):
    garbled = tmp_path / f"garbled_{key}.db"
    shutil.copy(path, garbled)
    connection = sqlite3.connect(garbled)
    connection.execute("UPDATE study SET value = ? WHERE key = ?", ('{"parameters": [1, 2', key))
    connection.commit()
    connection.close()
    return garbled


def test_a_sound_store_is_said_sound(store):
    found = examine(store)
    assert found.sound and len(found.results) == 60 and found.study["plan"] == {"samples": 60, "seed": 1}
    result = CliRunner().invoke(app, ["doctor", str(store)])
    assert result.exit_code == 0 and "sound" in result.output


@pytest.mark.parametrize("table", ["results", "study"])
def test_every_reader_names_a_damaged_file_and_the_way_out(store, tmp_path, table):
    """Before: info, tree, resume and export printed SQLite's DatabaseError traceback."""
    damaged = _damage(store, table, tmp_path, f"bad_{table}.db")
    with pytest.raises(StoreDamagedError, match="the store is damaged") as caught:
        with Store.open(damaged, read_only=True) as db:
            db.to_dataset()
    assert caught.value.where == str(damaged) and "starchart doctor" in caught.value.hint
    runner = CliRunner()
    for args in (["info", str(damaged)], ["tree", str(damaged)], ["export", str(damaged), "-o",
                                                                  str(tmp_path / "out.csv")]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "the store is damaged" in result.output and "Traceback" not in result.output


def test_a_value_that_is_not_json_is_damage_too(store, tmp_path):
    garbled = _garble_value(store, tmp_path, "space")
    with pytest.raises(StoreDamagedError, match="not JSON"), Store.open(garbled, read_only=True) as db:
        db.get("space")
    found = examine(garbled)
    assert not found.sound and "space" in found.study_lost and len(found.results) == 60


def test_doctor_copies_what_reads_whole_and_the_copy_resumes(store, tmp_path):
    damaged = _damage(store, "study", tmp_path, "bad_study.db")
    found = examine(damaged)
    assert not found.sound and len(found.results) == 60  # the results live on other pages
    copy = tmp_path / "repaired.db"
    result = CliRunner().invoke(app, ["doctor", str(damaged), "--copy-to", str(copy)])
    assert result.exit_code == 0, result.output
    with Store.open(copy, read_only=True) as db:
        data = db.to_dataset()
    assert len(data) == 60 and data.frame["time"].tolist() == [1.0 + x for x in range(60)]
    assert CliRunner().invoke(app, ["doctor", str(damaged)]).exit_code == 1


def test_results_on_a_damaged_page_are_counted_lost(store, tmp_path):
    damaged = _damage(store, "results", tmp_path, "bad_results.db")
    found = examine(damaged)
    assert not found.sound and len(found.results) + len(found.results_lost) == 60 and found.results_lost
    copy = salvage(damaged, tmp_path / "copy.db")
    with Store.open(tmp_path / "copy.db", read_only=True) as db:
        assert len(db) == len(copy.results) and db.get("plan") == {"samples": 60, "seed": 1}
    with pytest.raises(Exception, match="the copy would replace a file that exists"):
        salvage(damaged, tmp_path / "copy.db")



def test_doctor_says_which_configurations_are_stored_more_than_once(store):
    """The readers warn of a configuration stored twice and point here; doctor called such a store merely sound."""
    with Store.open(store) as db:
        db.add(Measurement({"x": 3}, values={"time": [0.5]}))
        db.add(Measurement({"x": 3}, values={"time": [0.25]}))
    found = examine(store)
    assert found.sound and found.repeated == {'[3]': [4, 61, 62]}
    assert "1 configuration is stored more than once (result ids 4, 61, 62 for x=3); every reader takes the " \
           "first" in found.summary()
