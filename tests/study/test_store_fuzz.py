"""Fuzzing stores: a damaged or doctored store file gives its dataset or one clear error, never a traceback.

Each case starts from a small valid store (a space, a plan, an evaluator description and results that
succeeded and failed) and breaks it: bytes flipped anywhere in the file, the file cut short, a study value
(space, plan, evaluator) or a result's column (configuration, status, reason, repeats) replaced by a value of
the wrong type or by text that is not JSON. The cases are drawn from a fixed seed. A case passes when
reading it (``load``, ``starchart info``, ``starchart tree``) returns or raises a
:class:`~starchart.errors.StarchartError`.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from starchart import load
from starchart.cli import app
from starchart.errors import StarchartError
from starchart.measure import CommandEvaluator, Measurement
from starchart.study.store import Store

CASES = 300
CLI_CASES = 15
WRONG = ["null", "true", "0", "-1", "1e999", '"x"', '"16"', "[]", "[1, 2]", "{}", '{"a": 1}', "[[1]]",
         "not json", '{"parameters": [1, 2', "", "NaN"]
JSON_WRONG = [w for w in WRONG if w not in ("not json", "", '{"parameters": [1, 2')]
#: Cells that are not text at all, as a damaged page can leave them: a blob, an integer, a real.
NOT_TEXT = [b"\x80{garbage", 7, 2.5]


@pytest.fixture(scope="module")
def valid(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("store") / "valid.db"
    with Store.open(path) as db:
        db.put("space", {"parameters": {"x": list(range(40)), "y": [1, 2, 4]}})
        db.put("plan", {"samples": 40, "seed": 3})
        db.put("evaluator", CommandEvaluator(["echo", "time: {x}"], pattern=r"time: (\S+)").describe())
        for x in range(40):
            if x % 7 == 3:
                db.add(Measurement.failure({"x": x, "y": 1 + x % 3}, "runtime", f"crashed at {x}"))
            else:
                db.add(Measurement({"x": x, "y": 1 + x % 3}, values={"time": [1.0 + x, 1.1 + x]}))
    with closing(sqlite3.connect(path)) as connection:  # everything in the main file: no -wal beside it
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.execute("PRAGMA journal_mode=DELETE")
    return path


def broken_store(valid: Path, folder: Path, rng: random.Random) -> Path:
    path = folder / "s.db"
    shutil.copy(valid, path)
    action = rng.random()
    if action < 0.25:  # bytes flipped anywhere (past the header, which only says "not a database")
        raw = bytearray(path.read_bytes())
        for _ in range(rng.randint(1, 20)):
            raw[rng.randrange(100, len(raw))] = rng.randrange(256)
        path.write_bytes(bytes(raw))
    elif action < 0.35:
        raw = path.read_bytes()
        path.write_bytes(raw[: rng.randrange(1, len(raw))])
    elif action < 0.6:
        key = rng.choice(["space", "plan", "evaluator"])
        value = rng.choice([*WRONG, *NOT_TEXT]) if rng.random() < 0.5 else _doctored(valid, key, rng)
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE study SET value = ? WHERE key = ?", (value, key))
    else:
        column = rng.choice(["config", "status", "reason", "repeats"])
        value = rng.choice([*WRONG, *NOT_TEXT, "bogus", "ok", "compile"] if column == "status" else [*WRONG, *NOT_TEXT])
        row = rng.randint(1, 40)
        with closing(sqlite3.connect(path)) as db, db:
            db.execute(f"UPDATE results SET {column} = ? WHERE id = ?", (value, row))
    return path


def _doctored(valid: Path, key: str, rng: random.Random) -> str:
    """The stored value of ``key`` with one of its entries replaced by a wrong value."""
    with closing(sqlite3.connect(valid)) as db:
        document = json.loads(db.execute("SELECT value FROM study WHERE key = ?", (key,)).fetchone()[0])
    entry = rng.choice(sorted(document))
    document[entry] = json.loads(rng.choice(JSON_WRONG))
    return json.dumps(document)


class _Hang(Exception):
    pass


def _within(call, seconds: int = 120):
    def hang(*_: object) -> None:
        raise _Hang(f"still reading after {seconds} s")

    if sys.platform == "win32":
        return call()
    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        return call()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_broken_store_gives_its_dataset_or_one_clear_error(valid, tmp_path):
    rng = random.Random("starchart fuzz store")
    runner = CliRunner()
    escaped = []
    for number in range(CASES):
        folder = tmp_path / f"case_{number:03d}"
        folder.mkdir()
        path = broken_store(valid, folder, rng)
        try:
            _within(lambda: load(path))
        except StarchartError:
            pass
        except Exception as exc:  # noqa: BLE001 - a traceback a user would see
            escaped.append(f"case {number}: load: {type(exc).__name__}: {exc}")
        if number % (CASES // CLI_CASES) == 0:
            for command in (["info", str(path)], ["tree", str(path)]):
                result = _within(lambda: runner.invoke(app, command))
                if result.exit_code not in (0, 1, 2) or "Traceback" in result.output or (
                        result.exception is not None and not isinstance(result.exception, SystemExit)):
                    escaped.append(f"case {number}: {command[0]}: {result.output[-300:]} {result.exception!r}")
    assert not escaped, "\n".join(escaped)
