"""The SQLite results store: durability, concurrency, datasets and exports."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest
from child_env import child_env

import starchart
from starchart.errors import InputError
from starchart.measure import Measurement
from starchart.study.store import Store


def _fill(store: Store) -> None:
    store.put("space", {"parameters": {"bx": [16, 32, 64], "unroll": [1, 2]}, "restrictions": []})
    store.put("evaluator", {"kind": "python", "metrics": ["time"], "minimize": True})
    store.add(Measurement({"bx": 16, "unroll": 1}, values={"time": [2.0, 4.0]}, run_s=0.1))
    store.add(Measurement({"bx": 32, "unroll": 2}, values={"time": [1.0, 1.5, 2.0]}))
    store.add(Measurement.failure({"bx": 64, "unroll": 1}, "compile", "error: 'x' undeclared"))


def test_round_trip_keeps_every_repeat_and_failure(tmp_path):
    with Store.open(tmp_path / "s.db") as store:
        _fill(store)
    with Store.open(tmp_path / "s.db", create=False) as store:
        ds = store.to_dataset()
        assert len(store) == 3
    assert ds.params == ["bx", "unroll"] and ds.metrics == ["time"]
    assert ds.frame["time"].tolist()[:2] == [3.0, 1.5]
    assert ds.frame["repeats_time"].tolist()[1] == [1.0, 1.5, 2.0]
    failed = ds.frame.iloc[2]
    assert failed["status"] == "compile" and "undeclared" in failed["reason"]
    assert ds.meta["objective"] == "time" and ds.meta["format"] == "starchart-store"


def test_wal_mode_and_each_result_committed_immediately(tmp_path):
    path = tmp_path / "s.db"
    store = Store.open(path)
    store.add(Measurement({"x": 1}, values={"time": [1.0]}))
    # another connection sees the row before the writer closes: it was committed
    other = sqlite3.connect(path)
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert other.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 1
    other.close()
    store.close()


def test_duplicate_configuration_keeps_first_and_counts(tmp_path):
    with Store.open(tmp_path / "s.db") as store:
        store.add(Measurement({"x": 1}, values={"time": [1.0]}))
        store.add(Measurement({"x": 1.0}, values={"time": [9.0]}))
        with pytest.warns(UserWarning, match="1 configuration is stored more than once"):
            ds = store.to_dataset()
        assert len(store) == 2  # nothing measured is dropped from the store
    assert len(ds) == 1 and ds.frame["time"].iloc[0] == 1.0 and ds.meta["duplicates"] == 1


WRITER = textwrap.dedent("""
    import sys
    from starchart.study.store import Store
    from starchart.measure import Measurement
    path, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Store.open(path) as store:
        for i in range(n):
            store.add(Measurement({"who": who, "i": i}, values={"time": [float(i)]}))
""")


def test_two_processes_appending_lose_nothing(tmp_path):
    path = tmp_path / "shared.db"
    Store.open(path).close()  # create once so both writers open an existing WAL file
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    procs = [subprocess.Popen([sys.executable, str(script), str(path), who, "300"], env=child_env()) for who in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    with Store.open(path) as store:
        ds = store.to_dataset()
    assert len(ds) == 600
    for who in ("a", "b"):
        assert sorted(ds.frame.loc[ds.frame["who"] == who, "i"]) == list(range(300))


def test_exports_read_back(tmp_path):
    with Store.open(tmp_path / "s.db") as store:
        _fill(store)
        csv = store.export(tmp_path / "out.csv")
        cache = store.export(tmp_path / "out.json")
        t4 = store.export(tmp_path / "out.t4.json")
        with pytest.raises(InputError, match="cannot tell the export format"):
            store.export(tmp_path / "out.xlsx")
    assert starchart.load(csv, metrics=["time"]).frame["time"].tolist()[:2] == [3.0, 1.5]
    from_cache = starchart.load(cache)
    assert sorted(from_cache.frame["status"]) == ["compile", "ok", "ok"]
    assert len(starchart.load(t4)) == 3


def test_bad_paths_give_one_clear_error(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        Store.open(tmp_path / "missing-folder" / "s.db")
    with pytest.raises(InputError, match="is a folder"):
        Store.open(tmp_path)
    with pytest.raises(InputError, match="no such store"):
        Store.open(tmp_path / "nope.db", create=False)
    junk = tmp_path / "junk.db"
    junk.write_text("this is not sqlite, it is a text file long enough to have a header" * 20)
    with pytest.raises(InputError, match="not a starchart store"):
        Store.open(junk)
    with pytest.raises(InputError, match="cannot open or create"):
        Store.open("/proc/starchart-test.db")


def test_read_only_open_reads_everything_and_writes_nothing(tmp_path):
    path = tmp_path / "s.db"
    with Store.open(path) as store:
        _fill(store)
    before = (path.stat().st_mtime_ns, path.read_bytes())
    with Store.open(path, read_only=True) as store:
        assert len(store) == 3 and store.to_dataset().frame["time"].tolist()[:2] == [3.0, 1.5]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store.put("note", "x")
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before
    with pytest.raises(InputError, match="no such store"):
        Store.open(tmp_path / "nope.db", read_only=True)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(InputError, match="no study/results tables"):
        Store.open(other, read_only=True)
    junk = tmp_path / "junk.db"
    junk.write_text("not sqlite " * 200)
    with pytest.raises(InputError, match="not a readable starchart store"):
        Store.open(junk, read_only=True)


def test_reading_a_store_leaves_no_shm_or_wal_files(tmp_path):
    path = tmp_path / "s.db"
    writer = Store.open(path)
    _fill(writer)
    with Store.open(path, read_only=True) as store:  # beside a writer: sees what it committed
        assert len(store) == 3
    writer.add(Measurement({"bx": 16, "unroll": 2}, values={"time": [1.0]}))
    writer.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]
    with Store.open(path, read_only=True) as store:
        assert len(store.to_dataset()) == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]


def test_read_only_store_in_a_read_only_folder(tmp_path, monkeypatch):
    # root may write anywhere, so the folder's missing write permission is simulated
    path = tmp_path / "s.db"
    with Store.open(path) as store:
        _fill(store)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if mode == os.W_OK else real_access(p, mode))
    with pytest.raises(InputError, match="not writable"):
        Store.open(path, create=False)
    with Store.open(path, read_only=True) as store:
        assert len(store.to_dataset()) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]  # no -shm or -wal created


def test_a_store_of_another_schema_version_is_refused_clearly(tmp_path):
    path = tmp_path / "s.db"
    with Store.open(path) as store:
        store.put("schema_version", 999)
    for read_only in (False, True):
        with pytest.raises(InputError, match="schema version 999"):
            Store.open(path, read_only=read_only)


def test_in_memory_store():
    with Store.open(None) as store:
        store.add(Measurement({"x": 1}, values={"time": [1.0]}))
        assert len(store.to_dataset()) == 1 and "memory" in repr(store)


def test_another_programs_sqlite_database_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "app.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE users (name TEXT)")
    db.commit()
    db.close()
    for create in (True, False):
        with pytest.raises(InputError, match="not a starchart store"):
            Store.open(path, create=create)
    db = sqlite3.connect(path)
    assert [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")] == ["users"]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # not switched to WAL
    db.close()


def test_export_never_overwrites_the_store_and_t4_gz_is_t4(tmp_path):
    path = tmp_path / "s.db"
    with Store.open(path) as store:
        _fill(store)
        for target in (path, tmp_path / "." / "s.db", tmp_path / "s.db-wal"):
            with pytest.raises(InputError, match="overwrite the store itself"):
                store.export(target, "csv")
        t4 = store.export(tmp_path / "out.t4.json.gz")
    assert len(Store.open(path, read_only=True)) == 3
    assert starchart.load(t4).meta["format"] == "t4"


def test_exports_of_a_nan_measurement_are_strict_json_and_text_values_stay_text(tmp_path):
    import json

    def strict(path):
        return json.loads(path.read_text(), parse_constant=lambda name: pytest.fail(f"{name} in {path.name}"))

    with Store.open(tmp_path / "s.db") as store:
        store.put("space", {"parameters": {"v": ["01", "1", "2.0"]}, "restrictions": []})
        store.add(Measurement({"v": "01"}, values={"time": [1.0]}))
        store.add(Measurement({"v": "1"}, values={"time": [float("nan")]}))  # a program printed "nan"
        store.add(Measurement({"v": "2.0"}, values={"time": [2.0, float("nan")]}))
        paths = [store.export(tmp_path / name) for name in ("out.json", "out.t4.json", "out.csv")]
    for path in paths[:2]:
        strict(path)
    cache = starchart.load(paths[0])
    assert cache.status.tolist() == ["ok", "runtime", "runtime"] and cache.frame["reason"][1] == "no time value"
    assert starchart.load(paths[2]).frame["v"].tolist() == ["01", "1", "2.0"]


def test_exporting_an_empty_store_says_there_is_nothing_to_export(tmp_path):
    with Store.open(tmp_path / "s.db") as store:
        store.put("space", {"parameters": {"x": [1, 2]}, "restrictions": []})
        for name in ("out.csv", "out.json", "out.t4.json"):
            with pytest.raises(InputError, match="no measurements yet"):
                store.export(tmp_path / name)
    assert not (tmp_path / "out.csv").exists()


def test_a_measurement_whose_repeats_sum_past_the_largest_float_is_stored(tmp_path):
    """Two repeats of 1e308 ms: math.fsum raised OverflowError inside Store.add (the run crashed)."""
    huge = Measurement(config={"x": 1}, values={"time": [1e308, 1e308]})
    assert huge.summary() == {"time": 1e308}
    with Store.open(tmp_path / "s.db") as db:
        db.add(huge)
        assert db.to_dataset().frame["time"].tolist() == [1e308]


def test_with_earlier_keeps_each_different_setting_once_compared_as_stored():
    from starchart.study.store import as_stored, with_earlier

    first = with_earlier({"sizes": (16, 64), "seed": 1}, None)
    assert first == {"sizes": (16, 64), "seed": 1}
    # read back from the store (tuples as lists): the same settings, so no "earlier"
    assert with_earlier({"sizes": (16, 64), "seed": 1}, as_stored(first)) == first
    second = with_earlier({"sizes": [16, 64], "seed": 2}, as_stored(first))
    assert second["earlier"] == [{"sizes": [16, 64], "seed": 1}]
    third = with_earlier({"sizes": [16, 64], "seed": 3}, as_stored(with_earlier({"sizes": (16, 64), "seed": 1},
                                                                                 as_stored(second))))
    assert [e["seed"] for e in third["earlier"]] == [1, 2]      # each earlier setting once


def _open_when_released(path: str, barrier, results) -> None:
    barrier.wait()
    try:
        with starchart.Store.open(path) as store:
            store.put("opened", True)
        results.put("ok")
    except Exception as exc:  # noqa: BLE001 - reported to the test
        results.put(repr(exc))


@pytest.mark.skipif(sys.platform == "win32", reason="uses fork")
def test_processes_creating_one_new_store_at_the_same_moment_all_open_it(tmp_path):
    """Before: about one open in twenty failed with "database is locked" (SQLite does not wait for the switch
    to write-ahead logging) or "not a starchart store" (one process saw the other's half-made schema)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    failures = []
    for trial in range(10):
        barrier, results = context.Barrier(6), context.Queue()
        path = str(tmp_path / f"new{trial}.db")
        processes = [context.Process(target=_open_when_released, args=(path, barrier, results)) for _ in range(6)]
        for process in processes:
            process.start()
        outcomes = [results.get(timeout=120) for _ in processes]
        for process in processes:
            process.join()
        failures += [o for o in outcomes if o != "ok"]
    assert not failures, failures[:3]


def test_a_store_on_a_network_filesystem_uses_a_rollback_journal_and_says_hosts_must_not_share_it(
        tmp_path, monkeypatch):
    """SQLite's write-ahead log does not work over a network filesystem; the docs said hosts could share one
    store file. Now a store on NFS (here: said to be) gets a rollback journal and a warning."""
    import starchart.study.store as store_module

    monkeypatch.setattr(store_module, "network_filesystem", lambda path: "nfs4")
    path = tmp_path / "shared.db"
    with pytest.warns(UserWarning, match=r"network filesystem \(nfs4\).*must not share it"):
        with Store.open(path) as db:
            db.add(Measurement({"x": 1}, values={"time": [1.0]}))
            assert db._db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    monkeypatch.setattr(store_module, "network_filesystem", lambda path: None)
    with Store.open(tmp_path / "local.db") as db:
        assert db._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# ---------------------------------------------------------------------- a configuration stored twice
def _twice(path):
    """A uniform study whose configuration x=1 is stored twice (a hand edit, or two runs whose claims lapsed):
    first 16, then 1; the best of the study's own reading is 8 (x=2)."""
    with Store.open(path) as store:
        store.put("space", {"parameters": {"x": [1, 2, 3]}, "restrictions": []})
        store.put("evaluator", {"kind": "python", "metrics": ["time"], "minimize": True})
        store.put("plan", {"samples": 3, "seed": 1})
        store.add(Measurement({"x": 1}, values={"time": [16.0]}))
        store.add(Measurement({"x": 2}, values={"time": [8.0]}))
        store.add(Measurement({"x": 1}, values={"time": [1.0]}))


def test_a_configuration_stored_twice_is_read_as_its_first_result_everywhere_with_a_warning(tmp_path):
    """Before: the resumed run's bar said "best 1" (every stored row) while its summary said 16 ms and
    info/export dropped the second row without a word."""
    from starchart.measure import PythonEvaluator
    from starchart.study.runner import Progress, RunPlan

    path = tmp_path / "s.db"
    _twice(path)
    with Store.open(path, read_only=True) as store:
        with pytest.warns(UserWarning, match=r"s\.db: 1 configuration is stored more than once \(1 result more "
                                             r"than configurations\); each is read as its first result") as caught:
            ds = store.to_dataset()
        assert "starchart doctor" in str(caught[0].message)
        assert ds.frame["time"].tolist() == [16.0, 8.0] and ds.meta["duplicates"] == 1
        assert list(store.outcomes()) == [(True, {"time": 16.0}), (True, {"time": 8.0})]
        bar = Progress(RunPlan([], 2, 3), PythonEvaluator(lambda c: 1.0), store, enabled=True)
        assert bar.best == ds.frame["time"].min() == 8.0
    with pytest.warns(UserWarning, match="stored more than once"):  # load() (starchart info) reads it alike
        assert starchart.load(path).frame["time"].tolist() == [16.0, 8.0]


def test_an_msp_study_s_repeated_evaluations_are_not_called_duplicates(tmp_path, recwarn):
    """An MSP study stores every evaluation, the same configuration again by design: no warning for it."""
    path = tmp_path / "msp.db"
    _twice(path)
    with Store.open(path) as store:
        store.add_session({"msp": True})
    with Store.open(path, read_only=True) as store:
        assert store.to_dataset().meta["duplicates"] == 1
    assert not [w for w in recwarn if "more than once" in str(w.message)]
