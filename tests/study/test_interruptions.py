"""Interrupted and disturbed studies: killed runs, deleted stores, stopped compilations.

"Nothing measured is ever lost": results are stored as they arrive, a killed run resumes, and a
``kill -9`` loses at most the configurations in flight and never duplicates one.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from starchart import Space, run
from starchart.cli import app
from starchart.errors import InputError
from starchart.measure import Measurement, PythonEvaluator
from starchart.measure.c import CEvaluator
from starchart.study.store import Store

cli = CliRunner()


def _rows(path: Path) -> list[dict]:
    """The configurations stored so far; none while the store is a file whose schema is not committed yet."""
    with sqlite3.connect(path) as db:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'results'").fetchone():
            return []
        return [json.loads(c) for (c,) in db.execute("SELECT config FROM results ORDER BY id")]


# ---------------------------------------------------------------------- the store file disturbed
def test_a_store_deleted_while_measuring_is_written_again_with_every_result(tmp_path):
    path = tmp_path / "study.db"
    store = Store.open(path)
    store.add(Measurement({"x": 1}, values={"time": [1.0]}))
    for suffix in ("", "-wal", "-shm"):  # rm study.db* while the run goes on
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with pytest.warns(UserWarning, match="deleted while measuring"):
        store.add(Measurement({"x": 2}, values={"time": [2.0]}))
    store.add(Measurement({"x": 3}, values={"time": [3.0]}))
    store.close()
    assert [c["x"] for c in _rows(path)] == [1, 2, 3]  # before: no file at all, every result lost


def test_a_store_whose_main_file_alone_was_deleted_is_written_again(tmp_path):
    path = tmp_path / "study.db"
    with Store.open(path) as store:
        store.add(Measurement({"x": 1}, values={"time": [1.0]}))
        path.unlink()  # its -wal stays behind, to be refused as another file's
        with pytest.warns(UserWarning, match="deleted while measuring"):
            store.add(Measurement({"x": 2}, values={"time": [2.0]}))
    with Store.open(path, read_only=True) as again:
        assert len(again.to_dataset()) == 2


def test_a_store_replaced_while_measuring_is_not_overwritten_and_nothing_is_lost(tmp_path):
    path, other = tmp_path / "study.db", tmp_path / "other.db"
    with Store.open(other) as elsewhere:
        elsewhere.add(Measurement({"x": 9}, values={"time": [9.0]}))
    store = Store.open(path)
    store.add(Measurement({"x": 1}, values={"time": [1.0]}))
    os.replace(other, path)  # another study moved onto the path
    with pytest.raises(InputError, match="replaced by another file") as raised:
        store.add(Measurement({"x": 2}, values={"time": [2.0]}))
    store.close()
    kept = tmp_path / f"study.recovered-{os.getpid()}.db"
    assert str(kept) in raised.value.hint
    assert [c["x"] for c in _rows(kept)] == [1, 2]
    assert [c["x"] for c in _rows(path)] == [9]


# ---------------------------------------------------------------------- resuming a store without a plan
def test_resume_of_a_store_killed_before_its_plan_asks_for_the_command_again(tmp_path):
    """A search (or run, or sample-size study) killed after recording its space and evaluator but before its
    settings: resuming with --samples N would turn it into a uniform study; the hint must not suggest only that."""
    path = tmp_path / "s.db"
    space = Space({"x": [1, 2, 3]})
    with Store.open(path) as store:
        store.put("space", space.to_dict())
        store.put("evaluator", {"kind": "command", "argv": ["echo", "time: {x}"], "pattern": r"time: (\S+)"})
    result = cli.invoke(app, ["resume", str(path)])
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "no plan yet" in text and "stopped before measuring anything" in text
    assert "search or samples command again" in text  # before: only "pass samples=N (--samples N)"


# ---------------------------------------------------------------------- a stopped compilation
def test_a_compilation_stopped_by_ctrl_c_leaves_no_partial_binary(tmp_path):
    compiler = tmp_path / "cc"
    compiler.write_text(textwrap.dedent("""\
        #!/bin/sh
        case "$1" in --version) echo "fake cc 1.0"; exit 0;; esac
        out=""; prev=""
        for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
        echo half-written > "$out"
        exec sleep 30
        """))
    compiler.chmod(0o755)
    source = tmp_path / "k.c"
    source.write_text("int main(void) { return 0; }\n")
    cache = tmp_path / "cache"
    evaluator = CEvaluator(source, compiler=str(compiler), cache_dir=cache)

    def interrupt(*_):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        with pytest.raises(KeyboardInterrupt):
            evaluator.build({"N": 1})
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert sorted(p.name for p in cache.iterdir()) == []  # before: a .tmp half-written binary stayed


# ---------------------------------------------------------------------- a run stopped by an error
def test_a_run_stopped_by_an_error_measures_nothing_more_on_its_workers(tmp_path):
    calls: list[int] = []
    lock = threading.Lock()

    def slow(config):
        with lock:
            first = not calls
            calls.append(config["x"])
        # the first call ends well before the other in flight, so only its worker takes a queued configuration
        # before the error; the other worker's end (0.8 s) is when the old code started the last queued one
        time.sleep(0.1 if first else 0.8)
        return float(config["x"])

    class Failing(Store):
        def add(self, measurement, worker=None):
            raise OSError("disk full")

    store = Failing.open(tmp_path / "s.db")
    with pytest.raises(OSError) as raised:  # kept, as a notebook keeps the last error
        run(Space({"x": list(range(20))}), PythonEvaluator(slow), samples=12, seed=1, store=store, workers=2,
            progress=False)
    time.sleep(1.5)  # the exception (and the run's frame) is still alive here
    store.close()
    assert raised.value is not None
    assert len(calls) <= 3  # before: the queued configurations went on being measured (4)


# ---------------------------------------------------------------------- kill -9 and resume, for real
def test_kill_9_then_resume_loses_only_what_was_in_flight_and_duplicates_nothing(tmp_path):
    log = tmp_path / "log"
    bench = tmp_path / "bench.py"
    bench.write_text(textwrap.dedent(f"""\
        import sys, time
        open({str(log)!r}, "a").write(sys.argv[1] + "\\n")
        time.sleep(0.15)
        print("time:", sys.argv[1])
        """))
    space_file = tmp_path / "space.yaml"
    space_file.write_text("parameters:\n  x: [" + ", ".join(str(i) for i in range(40)) + "]\n")
    store = tmp_path / "s.db"
    starchart = [sys.executable, "-c", "from starchart.cli import main; main()"]
    argv = [*starchart, "run", str(space_file), "--command", f"{sys.executable} {bench} {{x}}",
            "--pattern", r"time: (\S+)", "--samples", "16", "--seed", "3", "--workers", "2", "--store", str(store)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while time.time() < deadline:
        time.sleep(0.05)
        if store.exists() and len(_rows(store)) >= 4:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stored_before = len(_rows(store))
    assert 0 < stored_before < 16
    resumed = subprocess.run([*starchart, "resume", str(store), "--workers", "2"],
                             capture_output=True, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    final = [c["x"] for c in _rows(store)]
    assert len(final) == len(set(final)) == 16
    expected = Space({"x": list(range(40))}).sample(16, seed=3)["x"].tolist()
    assert sorted(final) == sorted(expected)
    started = log.read_text().split()
    assert len(started) - 16 <= 4  # re-measured: only what was running or queued when killed
