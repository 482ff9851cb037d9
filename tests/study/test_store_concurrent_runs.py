"""Several runs of one study at once, from several shells, on one store: each configuration is measured once.

Each run claims a configuration in the store before measuring it; the others skip it while its run lives,
and a run killed with ``kill -9`` leaves its claims to the next run or resume.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from contextlib import closing
from pathlib import Path

from child_env import child_env

from starchart.measure import Measurement
from starchart.space import Space
from starchart.study.store import Store

STARCHART = [sys.executable, "-m", "starchart"]


def _stored(path: Path) -> list[int]:
    """The ``x`` of every stored result, read with sqlite3 alone (duplicates included)."""
    with closing(sqlite3.connect(path)) as db:
        return [json.loads(c)["x"] for (c,) in db.execute("SELECT config FROM results ORDER BY id")]


def _seen(path: Path, owner: str) -> float:
    """When the run ``owner`` last renewed its lease."""
    with closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT seen FROM claimants WHERE owner = ?", (owner,)).fetchone()[0]


def _logged(log: Path) -> list[int]:
    return [int(x) for x in log.read_text().split()] if log.exists() else []


def _study(tmp_path: Path, size: int, hold: bool = False) -> tuple[Path, Path, str]:
    """A space file, a log and a ``--command`` whose program logs its ``x`` and sleeps 50 ms; with ``hold``,
    the first program to take the file ``hold`` sleeps a minute instead (the configuration stays in flight)."""
    space, log = tmp_path / "space.yaml", tmp_path / "log"
    space.write_text("parameters:\n  x: [" + ", ".join(str(i) for i in range(size)) + "]\n")
    wait = f"if mv {tmp_path / 'hold'} {tmp_path / 'held'} 2>/dev/null; then sleep 60; fi; " if hold else ""
    command = f"sh -c 'echo {{x}} >> {log}; {wait}sleep 0.05; echo time: {{x}}'"
    return space, log, command


def _start(argv: list[str]) -> subprocess.Popen:
    return subprocess.Popen([*STARCHART, *argv], env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _finish(proc: subprocess.Popen, timeout: float = 60) -> str:
    """Wait for a run to end well; its standard output."""
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-2000:]
    return out


def test_four_runs_of_one_study_at_once_measure_each_configuration_once(tmp_path):
    """Before: a run skipped only what another had stored, not what it was measuring (12 of 48 measured twice):
    from three runs on, one that met another head on skipped what that one had stored, caught up from behind
    with a third walking the same way, and measured what it was measuring, in step with it."""
    space, log, command = _study(tmp_path, 400)
    store = tmp_path / "s.db"
    argv = ["run", str(space), "--command", command, "--pattern", r"time: (\S+)", "--samples", "48",
            "--seed", "11", "--store", str(store)]
    runs = [_start(argv) for _ in range(4)]
    try:
        for proc in runs:
            _finish(proc)
    finally:
        for proc in runs:
            proc.kill()
    expected = sorted(Space({"x": list(range(400))}).sample(48, seed=11)["x"].tolist())
    measured, stored = _logged(log), _stored(store)
    twice = sorted(x for x, n in Counter(measured).items() if n > 1)
    assert not twice, f"{len(measured) - len(set(measured))} measurements repeated, of {twice}"
    assert sorted(measured) == sorted(stored) == expected  # the log and the store agree: the whole study, once
    with Store.open(store, read_only=True) as db:
        assert len(db.to_dataset()) == 48 and db.to_dataset().meta["duplicates"] == 0


def test_a_live_runs_claim_is_left_to_it_and_a_killed_runs_is_measured_by_the_next_resume(tmp_path):
    """A resume started while a run measures leaves that configuration to it (before: measured it too); once
    that run is killed with SIGKILL, its claim no longer holds the configuration: the next resume measures it."""
    space, log, command = _study(tmp_path, 100, hold=True)
    store = tmp_path / "s.db"
    (tmp_path / "hold").touch()
    first = _start(["run", str(space), "--command", command, "--pattern", r"time: (\S+)", "--samples", "8",
                    "--seed", "5", "--store", str(store)])
    try:
        deadline = time.time() + 30
        while not (tmp_path / "held").exists() and time.time() < deadline and first.poll() is None:
            time.sleep(0.05)
        assert (tmp_path / "held").exists(), "the first run never started its first configuration"
        in_flight = _logged(log)
        assert len(in_flight) == 1
        summary = _finish(_start(["resume", str(store)]))  # measures the 7 others, not the first run's one
        assert "7 configurations" in summary and "1 more is being measured by another run" in summary
        assert sorted(_logged(log)) == sorted(_stored(store) + in_flight)
        assert len(_stored(store)) == 7 and in_flight[0] not in _stored(store)
        assert first.poll() is None
        first.send_signal(signal.SIGKILL)  # no clean exit: its claim stays in the store
        first.wait(timeout=30)
        assert "being measured" not in _finish(_start(["resume", str(store)]))
    finally:
        first.kill()
    expected = sorted(Space({"x": list(range(100))}).sample(8, seed=5)["x"].tolist())
    assert sorted(_stored(store)) == expected
    assert Counter(_logged(log)) == Counter(expected + in_flight)  # the killed one measured again, once


def test_a_claim_holds_while_its_run_lives_on_this_host_or_renews_its_lease(tmp_path):
    """Claims of a process that is gone (on this host), or of another host's run that stopped renewing its
    lease, are taken over; live ones are skipped; stored configurations are never claimed."""
    path = tmp_path / "s.db"
    with Store.open(path) as store, Store.open(path) as other:
        store.add(Measurement({"x": 0}, values={"time": [1.0]}))
        with other.claims() as theirs, store.claims() as mine:
            assert theirs.take(["[1]", "[2]"]) == (["[1]", "[2]"], [])
            assert mine.take(["[0]", "[1]", "[3]"]) == (["[3]"], ["[1]"])  # [0] stored, [1] theirs
        with store.claims() as mine:  # `other` exited cleanly: its claims went with it
            assert mine.take(["[1]", "[2]"]) == (["[1]", "[2]"], [])
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        dead.wait()
        now = time.time()
        # left by a killed run here, by a live run elsewhere, by one elsewhere that stopped renewing its lease
        with closing(sqlite3.connect(path)) as db, db:
            db.executemany("INSERT INTO claims (config_key, owner, claimed) VALUES (?, ?, ?)",
                           [("[4]", "killed", now), ("[5]", "remote", now), ("[6]", "silent", now)])
            db.executemany("INSERT INTO claimants (owner, machine, pid, seen) VALUES (?, ?, ?, ?)",
                           [("killed", store.machine, dead.pid, now), ("remote", "elsewhere", os.getpid(), now),
                            ("silent", "elsewhere", os.getpid(), now - 3600)])
        assert store.being_measured() == 1  # [5]: the others' runs are gone
        with store.claims() as mine:
            # the gone runs' claims are swept when a run starts (they lingered until met); the live one's stay,
            # and the silent remote run keeps its registration: it may wake and renew (below)
            with closing(sqlite3.connect(path)) as db:
                assert {row[0] for row in db.execute("SELECT owner FROM claims")} == {"remote"}
                assert {row[0] for row in db.execute("SELECT owner FROM claimants")} == {"remote", "silent",
                                                                                           mine.owner}
            assert mine.take(["[4]", "[5]", "[6]"]) == (["[4]", "[6]"], ["[5]"])
        assert store.being_measured() == 1
        with store.claims(lease_s=0.6) as mine:  # renewed every 0.1 s while the run measures
            registered = _seen(path, mine.owner)
            time.sleep(0.5)
            assert _seen(path, mine.owner) > registered


def test_a_run_silent_past_its_lease_that_renews_holds_its_new_claims_again(tmp_path):
    """A run suspended past its lease lost its claims to whoever met them; once it renews, the claims it takes
    hold again (the sweep had dropped its registration, and renewing did not restore it)."""
    path = tmp_path / "s.db"
    with Store.open(path) as store, Store.open(path) as other:
        with other.claims(lease_s=0.6) as stalled:
            with closing(sqlite3.connect(path)) as db, db:  # as if its host had been suspended for a minute
                db.execute("UPDATE claimants SET seen = ?, machine = 'elsewhere' WHERE owner = ?",
                           (time.time() - 60, stalled.owner))
            with store.claims() as mine:  # sweeps: the stalled run's claims go, its registration stays
                time.sleep(0.3)  # the stalled run's renewer wakes
                assert stalled.take(["[1]"]) == (["[1]"], [])
                assert mine.take(["[1]"]) == ([], ["[1]"])  # held again by the run that renewed

