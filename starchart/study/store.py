"""The results store: one SQLite file per study, written as results arrive.

The store is the only thing that writes measurements to disk. It holds

- ``study``: the space, the evaluator's description, the plan (samples, seed),
  the environment of every session that measured into it (JSON values);
- ``results``: one row per evaluated configuration — the configuration, its
  status and reason, every repeat of every metric, compile/run/overhead times,
  who measured it and when;
- ``claims`` and ``claimants``: which run is measuring which configuration, so
  that several runs of one study at once measure each once (:class:`Claims`).

SQLite runs in WAL mode and every result is committed on its own, so a process
killed at any moment loses at most the configuration it was measuring, and
several processes can append to one study at once (each insert waits for the
write lock instead of failing). ``synchronous=NORMAL`` is the WAL setting that
survives process crashes; pass ``durable=True`` to also survive power loss
(one fsync per result).

Examples
--------
>>> import tempfile, os
>>> from starchart.measure import Measurement
>>> path = os.path.join(tempfile.mkdtemp(), "study.db")
>>> with Store.open(path) as store:
...     _ = store.add(Measurement({"bx": 32}, values={"time": [1.0, 1.2]}))
...     _ = store.add(Measurement.failure({"bx": 2048}, "runtime", "too many threads"))
...     ds = store.to_dataset()
>>> ds.frame[["bx", "time", "status"]].to_string(index=False)
'  bx  time  status\\n  32   1.1      ok\\n2048   NaN runtime'
"""

from __future__ import annotations

import inspect
import json
import os
import pickle
import secrets
import socket
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import wraps
from pathlib import Path
from typing import Any, Union

import pandas as pd

from starchart._util.configs import config_key, plain_config
from starchart._util.files import network_filesystem
from starchart._util.text import shorten
from starchart.dataset import REPEATS_PREFIX, Dataset
from starchart.errors import InputError, StoreDamagedError
from starchart.io.formats import format_for_writing
from starchart.measure import Evaluator, evaluator_class
from starchart.measure.base import MEASUREMENT_STATUSES, Measurement, mean_of
from starchart.space import Space

#: Bumped when the table layout changes; older stores are refused with a clear message.
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS study (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    config_key TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    summary TEXT NOT NULL,
    repeats TEXT NOT NULL,
    compile_s REAL NOT NULL,
    run_s REAL NOT NULL,
    overhead_s REAL NOT NULL,
    extra TEXT NOT NULL,
    worker TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS results_by_key ON results (config_key);
CREATE TABLE IF NOT EXISTS claims (config_key TEXT PRIMARY KEY, owner TEXT NOT NULL, claimed REAL NOT NULL);
CREATE TABLE IF NOT EXISTS claimants (owner TEXT PRIMARY KEY, machine TEXT NOT NULL, pid INTEGER NOT NULL,
                                      seen REAL NOT NULL);
"""

#: A run's claims hold while it renews them (every sixth of this, in seconds, while it measures) and, on the
#: claimant's own machine, while its process lives: a run killed on this machine gives its claims up at once,
#: one on another machine (a host sharing the store) after this long.
CLAIM_LEASE_S = 180.0

_COLUMNS = ("config", "status", "reason", "repeats", "compile_s", "run_s", "overhead_s", "extra")
#: Stored results decoded at a time by :meth:`Store.measurements`.
_CHUNK = 10_000


#: Why, when SQLite's error message is itself garbled (it quotes the damaged bytes of the file's schema).
_GARBLED = "malformed database schema (SQLite's message quotes unreadable bytes)"
#: What SQLite and the JSON columns say of a damaged file (not of a busy or locked one, which is waited for).
_DAMAGE_WORDS = ("malformed", "not a database", "could not decode", "corrupt", "no such column", "no such table")


def _reads_damage(method: Callable[..., Any]) -> Callable[..., Any]:
    """A read of the store that turns damage (a bad page, a value that is not JSON) into one clear error naming
    the file and the way out, instead of SQLite's or json's exception from deep inside."""

    @contextmanager
    def said(self: Store) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if not any(word in str(exc).lower() for word in _DAMAGE_WORDS):
                raise
            raise damaged(self.path, str(exc)) from None
        except json.JSONDecodeError as exc:
            raise damaged(self.path, f"a stored value is not JSON: {exc}") from None
        except UnicodeDecodeError:  # SQLite's own message quotes the garbage of a damaged schema
            raise damaged(self.path, _GARBLED) from None

    if inspect.isgeneratorfunction(method):  # the damage shows while the rows are read, not when asked for
        @wraps(method)
        def read_rows(self: Store, *args: Any, **kwargs: Any) -> Any:
            with said(self):
                yield from method(self, *args, **kwargs)
        return read_rows

    @wraps(method)
    def read(self: Store, *args: Any, **kwargs: Any) -> Any:
        with said(self):
            return method(self, *args, **kwargs)
    return read


def damaged(path: Path | None, why: str) -> StoreDamagedError:
    """The error for a damaged store file, saying how to keep what can still be read."""
    name = path or "the store"
    return StoreDamagedError(f"the store is damaged ({shorten(why, 160)})", where=str(name),
                             hint=f"see what can still be read, and copy it into a new store: "
                                  f"starchart doctor {name} --copy-to repaired.db")


class Store:
    """A study's results in one SQLite file. Open with :meth:`open`."""

    def __init__(self, connection: sqlite3.Connection, path: Path | None):
        self._db = connection
        self.path = path
        self.worker = f"{socket.gethostname()}:{os.getpid()}"
        self.machine = _machine()
        self._durable = False
        self._identity: tuple[int, int] | None = None  # the file written to (device, inode); see _check_file
        self._dataset: tuple[tuple[Any, ...], Dataset] | None = None  # the last to_dataset() and the store's state
        self._decoded: dict[str, tuple[str, Any]] = {}  # study key -> (its JSON text, the value decoded)

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | Path | None, *, create: bool = True, durable: bool = False,
             read_only: bool = False) -> Store:
        """Open (or create) the store at ``path``; ``None`` or ``":memory:"`` keeps it in memory.

        ``read_only=True`` opens an existing store for reading only (loading,
        reporting, exporting): nothing is written to it, so a store in a folder or
        file without write permission (an archive, a copied result) can still be read,
        and closing it leaves no -shm/-wal files beside a writable one.

        Raises
        ------
        InputError
            The folder does not exist or is not writable, the file is not a
            starchart store, or ``create=False`` (or ``read_only``) and there is no such file.
        """
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise InputError(f"must be a file path (a str or pathlib.Path) or None, got {path!r}",
                             where="path", hint="e.g. Store.open('study.db')")
        if read_only:
            return cls._open_read_only(Path(path or ""))
        if path is None or str(path) == ":memory:":
            db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            return cls._initialise(db, None, durable)
        path = Path(path)
        if path.is_dir():
            raise InputError("is a folder, not a store file", where=path, hint="give a file name such as study.db")
        if not path.exists():
            if not create:
                raise InputError("no such store", where=path, hint="check the path, or start a study with starchart run")
            folder = path.parent if str(path.parent) else Path(".")
            if not folder.is_dir():
                raise InputError(f"folder {folder} does not exist", where=path,
                                 hint="create it first or choose another store path")
            if not os.access(folder, os.W_OK):
                raise InputError(f"folder {folder} is not writable", where=path,
                                 hint="choose a store path in a folder you can write to")
        elif not os.access(path, os.W_OK):
            raise InputError("store file is not writable", where=path, hint="fix its permissions or copy it")
        elif not create and path.stat().st_size == 0:  # SQLite would quietly make it a new, empty store
            raise InputError("is an empty file, not a starchart store", where=path,
                             hint="check the path, or start a study with starchart run")
        existing = path.exists() and path.stat().st_size > 0
        try:
            db = sqlite3.connect(str(path), timeout=60.0, isolation_level=None, check_same_thread=False)
            if existing:  # before anything is written: another program's database stays as it was
                _check_tables(db, path)
            return cls._initialise(db, path, durable)
        except UnicodeDecodeError:  # SQLite's own message quotes the garbage of a damaged schema
            raise damaged(path, _GARBLED) from None
        except sqlite3.OperationalError as exc:
            raise InputError(f"cannot open or create the store ({exc})", where=path,
                             hint="choose a store path in a folder you can write to") from None
        except sqlite3.DatabaseError as exc:
            if "malformed" in str(exc):  # a store whose pages are damaged, not another kind of file
                raise damaged(path, str(exc)) from None
            raise InputError(f"not a starchart store ({exc})", where=path,
                             hint="give a .db file written by starchart run") from None

    @classmethod
    def _open_read_only(cls, path: Path) -> Store:
        if not path.is_file():
            raise InputError("no such store", where=path, hint="check the path, or start a study with starchart run")
        db: sqlite3.Connection | None = None
        try:
            db = sqlite3.connect(f"{path.resolve().as_uri()}?{_read_only_mode(path)}", uri=True,
                                 timeout=60.0, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA query_only = ON")
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except UnicodeDecodeError:  # SQLite's own message quotes the garbage of a damaged schema
            if db is not None:
                db.close()
            raise damaged(path, _GARBLED) from None
        except sqlite3.DatabaseError as exc:
            if db is not None:
                db.close()  # the file is not left open behind the error
            if "malformed" in str(exc):
                raise damaged(path, str(exc)) from None
            raise InputError(f"not a readable starchart store ({exc})", where=path,
                             hint="give a .db file written by starchart run; a store left with a -wal file "
                                  "in a read-only folder reads once copied to a writable one") from None
        if not {"study", "results"} <= tables:
            db.close()
            raise InputError("not a starchart store (no study/results tables)", where=path,
                             hint="give a .db file written by starchart run")
        store = cls(db, path)
        store._check_schema_version()
        return store

    @classmethod
    def _initialise(cls, db: sqlite3.Connection, path: Path | None, durable: bool) -> Store:
        _configure(db, path, durable=durable)
        # one transaction: another process opening the new file meanwhile sees both tables or neither
        db.executescript(f"BEGIN IMMEDIATE;\n{_SCHEMA}\nCOMMIT;")
        store = cls(db, path)
        store._durable = durable
        if path is not None:
            store._identity = _file_identity(path)
        if store.get("schema_version") is None:
            store._put_if_absent("schema_version", SCHEMA_VERSION)
        store._check_schema_version()
        return store

    def _check_schema_version(self) -> None:
        version = self.get("schema_version")
        if version is not None and version != SCHEMA_VERSION:
            self._db.close()
            raise InputError(f"store schema version {version}, this starchart reads {SCHEMA_VERSION}",
                             where=self.path, hint="export it with the starchart version that wrote it")

    def close(self) -> None:
        """Close the file (everything is already committed)."""
        self._dataset = None
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({str(self.path) if self.path else ':memory:'}, {len(self)} results)"

    # ------------------------------------------------------------------ study metadata
    @_reads_damage
    def get(self, key: str, default: Any = None, *, copy: bool = True) -> Any:
        """A study-level value (``space``, ``evaluator``, ``plan``, ``sessions``...).

        ``copy=False``: the store's own decoded value, not a copy, for a reader that does not change it (a
        dataset's space lists every configuration, and copying it costs more than reading it).

        >>> with Store.open(None) as db:
        ...     db.put("plan", {"samples": 4})
        ...     mine = db.get("plan")
        ...     mine["samples"] = 5  # a copy: the store is unchanged
        ...     db.get("plan"), db.get("plan", copy=False) is db.get("plan", copy=False)
        ({'samples': 4}, True)
        """
        row = self._db.execute("SELECT value FROM study WHERE key = ?", (key,)).fetchone()
        if row is None:
            return default
        # A dataset's space lists every configuration (1 MB of JSON for 18,000): decoded once per text, and
        # each caller gets a copy of its own
        cached = self._decoded.get(key)
        if cached is None or cached[0] != row[0]:
            if not isinstance(row[0], str):  # a damaged page made the cell a number or a blob
                raise json.JSONDecodeError(f"the stored {key} is not text", "", 0)
            cached = self._decoded[key] = (row[0], json.loads(row[0]))
        return _own_copy(cached[1]) if copy else cached[1]

    def put(self, key: str, value: Any) -> None:
        """Set a study-level value (JSON-able)."""
        self._db.execute("INSERT OR REPLACE INTO study (key, value) VALUES (?, ?)", (key, json.dumps(value)))

    def _put_if_absent(self, key: str, value: Any) -> None:
        self._db.execute("INSERT OR IGNORE INTO study (key, value) VALUES (?, ?)", (key, json.dumps(value)))

    def add_session(self, info: Mapping[str, Any]) -> None:
        """Append a session record (environment, start time, command) atomically."""
        with self.transaction():
            sessions = self.get("sessions", [])
            sessions.append(dict(info))
            self.put("sessions", sessions)

    def transaction(self) -> _Transaction:
        """A ``with`` block holding the store's write lock: what it reads and writes is one step for every
        other process using the store (two runs planning one study at once read the same plan).

        >>> with Store.open(":memory:") as store, store.transaction():
        ...     store.put("plan", {"samples": 4, "seed": 1})
        """
        return _Transaction(self._db)

    def claims(self, lease_s: float = CLAIM_LEASE_S) -> Claims:
        """A ``with`` block in which this process claims the configurations it is about to measure
        (:meth:`Claims.take`), so that other runs of the study skip them; its claims end with the block.

        >>> with Store.open(":memory:") as store, store.claims() as mine:
        ...     mine.take(["[1]", "[2]"])
        (['[1]', '[2]'], [])
        """
        return Claims(self, lease_s)

    def being_measured(self, lease_s: float = CLAIM_LEASE_S) -> int:
        """How many configurations other runs of the study that are still going have claimed and not stored.

        >>> with Store.open(":memory:") as store:
        ...     store.being_measured()
        0
        """
        try:
            rows = self._db.execute("SELECT a.machine, a.pid, a.seen FROM claims c JOIN claimants a"
                                    " ON a.owner = c.owner WHERE c.config_key NOT IN"
                                    " (SELECT config_key FROM results)").fetchall()
        except sqlite3.OperationalError:  # a store written before claims existed, opened read-only
            return 0
        now = time.time()
        return sum(_holds(self.machine, lease_s, *row, now) for row in rows)

    # ------------------------------------------------------------------ results
    def add(self, measurement: Measurement, worker: str | None = None) -> int:
        """Store one measurement, committed before returning; returns its row id."""
        config = plain_config(measurement.config)
        cursor = self._db.execute(
            "INSERT INTO results (config_key, config, status, reason, summary, repeats, compile_s, run_s,"
            " overhead_s, extra, worker, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (config_key(config), json.dumps(config), measurement.status, measurement.reason,
             json.dumps(measurement.summary()), json.dumps(measurement.values), float(measurement.compile_s),
             float(measurement.run_s), float(measurement.overhead_s), json.dumps(measurement.extra, default=str),
             worker or self.worker, time.time()))
        row = int(cursor.lastrowid)
        self._check_file()
        return row

    def _check_file(self) -> None:
        """Make sure what was just committed is in the file at :attr:`path`.

        SQLite goes on writing into a store file that was deleted (or replaced by another file)
        while it is open: every later result would be lost with the process, however the run
        ends. A deleted store is written back from the open connection, which still holds every
        result (with a warning), and the run goes on; a replaced one is not overwritten: what this
        process holds is saved beside it and the run stops with an error naming that file.
        """
        if self._identity is None or self.path is None:
            return
        identity = _file_identity(self.path)
        if identity == self._identity:
            return
        path = self.path
        saved = path.with_name(f".{path.name}.{os.getpid()}.restoring")
        saved.unlink(missing_ok=True)
        target = sqlite3.connect(str(saved))
        try:
            self._db.backup(target)  # reads through the open connection: the deleted file and its -wal
        finally:
            target.close()
        self._db.close()
        for suffix in ("-wal", "-shm"):  # the lost file's companions would be read as the next file's
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        if identity is not None:  # another file is there now: leave it alone
            kept = path.with_name(f"{path.stem}.recovered-{os.getpid()}{path.suffix}")
            os.replace(saved, kept)
            self._identity = None
            raise InputError("the store file was replaced by another file while measuring", where=path,
                             hint=f"every result this run measured is in {kept}; move it back to {path.name} "
                                  f"to continue with starchart resume")
        os.replace(saved, path)
        self._db = _configure(sqlite3.connect(str(path), timeout=60.0, isolation_level=None, check_same_thread=False),
                              path, durable=self._durable)
        self._identity = _file_identity(path)

        warnings.warn(f"{path} was deleted while measuring: it is written again with every result stored so far "
                      f"({len(self)}), and the run goes on", stacklevel=3)

    def add_many(self, measurements: Iterable[Measurement]) -> int:
        """Store several measurements; each is committed on its own. Returns how many."""
        return sum(1 for m in measurements if self.add(m) >= 0)

    @_reads_damage
    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    @_reads_damage
    def keys(self) -> set[str]:
        """The :func:`~starchart._util.configs.config_key` of every stored configuration."""
        return {row[0] for row in self._db.execute("SELECT DISTINCT config_key FROM results")}

    @_reads_damage
    def keys_since(self, row_id: int) -> tuple[int, set[str]]:
        """``(last row id, keys)``: the :func:`~starchart._util.configs.config_key` of the results stored after row
        ``row_id`` (by this or another process), and the id to ask from next time — cheap however large the study.

        >>> with Store.open(":memory:") as store:
        ...     first = store.add(Measurement({"x": 1}, values={"time": [1.0]}))
        ...     store.keys_since(0), store.keys_since(first)[1]
        ((1, {'[1]'}), set())
        """
        rows = self._db.execute("SELECT id, config_key FROM results WHERE id > ? ORDER BY id", (row_id,)).fetchall()
        return (rows[-1][0] if rows else row_id), {row[1] for row in rows}

    @_reads_damage
    def measurements(self) -> Iterator[Measurement]:
        """Every stored measurement, in the order stored (duplicates included)."""
        query = f"SELECT {', '.join(_COLUMNS)} FROM results ORDER BY id"
        rows = self._db.execute(query).fetchall()
        for at in range(0, len(rows), _CHUNK):  # the JSON of a chunk decoded at once, not row by row
            chunk = rows[at:at + _CHUNK]
            configs, repeats, extras = (_decoded([row[i] for row in chunk]) for i in (0, 3, 7))
            for row, config, values, extra in zip(chunk, configs, repeats, extras):
                yield Measurement(config, status=row[1], reason=row[2], values=values, compile_s=row[4],
                                  run_s=row[5], overhead_s=row[6], extra=extra)

    @_reads_damage
    def outcomes(self) -> Iterator[tuple[bool, dict[str, float]]]:
        """Whether each stored configuration succeeded, with its mean of each metric, in the order stored: what
        a best-so-far needs, read from the stored summaries without decoding every repeat (200,000 results:
        0.3 s, against 1.3 s for :meth:`measurements`). A configuration stored more than once is its first
        result, as in :meth:`to_dataset`: a resumed run's bar and its summary name the same best.

        >>> with Store.open(":memory:") as store:
        ...     _ = store.add(Measurement({"x": 1}, values={"time": [1.0, 2.0]}))
        ...     _ = store.add(Measurement.failure({"x": 2}, "compile", "no"))
        ...     _ = store.add(Measurement({"x": 1}, values={"time": [0.5]}))  # x=1 again: its first result counts
        ...     list(store.outcomes())
        [(True, {'time': 1.5}), (False, {})]
        """
        rows = self._db.execute("SELECT status, summary, config_key FROM results ORDER BY id").fetchall()
        first: dict[str, tuple[str, str]] = {}  # each configuration's first result (dicts keep the order)
        for row in rows:
            first.setdefault(row[2], row[:2])
        rows = list(first.values())
        for at in range(0, len(rows), _CHUNK):
            chunk = rows[at:at + _CHUNK]
            for row, summary in zip(chunk, _decoded([row[1] for row in chunk])):
                yield row[0] == "ok", summary

    @_reads_damage
    def results_frame(self) -> pd.DataFrame:
        """The raw results table (one row per stored measurement, JSON columns decoded)."""
        frame = pd.read_sql_query("SELECT * FROM results ORDER BY id", self._db)
        for column in ("config", "summary", "repeats", "extra"):
            frame[column] = pd.Series(_decoded(frame[column].tolist()), index=frame.index, dtype=object)
        return frame

    # ------------------------------------------------------------------ as a dataset
    @property
    def space(self) -> Any:
        """The study's :class:`~starchart.Space`, if one was stored, else ``None``."""
        data = self.get("space")
        return None if data is None else Space.from_dict(data, where=f"{self.path}: stored space")

    @_reads_damage
    def to_dataset(self) -> Dataset:
        """The study as a :class:`~starchart.Dataset`: one row per configuration.

        A configuration stored more than once appears with its first measurement, as everywhere the
        store is read (:meth:`outcomes`, so a resumed run's progress bar); ``meta["duplicates"]`` counts
        the others, and a warning says so, except in an MSP study, which stores each evaluation, the same
        configuration again by design. The store has no unique key on the configuration (an MSP study needs
        none): elsewhere, a configuration stored twice comes of an edit by hand, a store copied into another,
        or two runs of the study at once whose claims lapsed (a host suspended past the lease). ``meta["search"]``
        holds the settings a search recorded (budget, seed, ...), else ``None``;
        ``meta["sample_size"]`` those of a sample-size study. Metric
        columns are the mean over repeats; ``repeats_<metric>`` keep every repeat.
        """
        state = self._state()
        if self._dataset is not None and self._dataset[0] == state:  # unchanged since the last call: no re-reading
            return _copy(self._dataset[1])
        rows = self._db.execute("SELECT config_key, config, status, reason, repeats, id FROM results ORDER BY id"
                                ).fetchall()
        configs = _decoded([row[1] for row in rows])
        values = _decoded([row[4] for row in rows])
        for row, config, repeats in zip(rows, configs, values):
            why = _result_damage(row[2], row[3], config, repeats)
            if why:  # a wrong type read on would raise TypeError far from here, or read as something else
                raise damaged(self.path, f"result {row[5]}: {why}")
        # not copied: the dataset made here is cached, and each caller gets a copy of it (_copy)
        evaluator = self._object("evaluator")
        space = self._object("space")
        if not isinstance(space.get("parameters", {}), dict) or not isinstance(evaluator.get("metrics", []), list):
            raise damaged(self.path, "the stored space's parameters are not an object, or the evaluator's metrics "
                                     "not a list")
        params = list(space.get("parameters", {})) or _config_names(configs)
        metrics = [str(m) for m in evaluator.get("metrics", [])]
        measured = list(dict.fromkeys(name for repeats in values for name in repeats))
        if evaluator.get("learn_metrics") and measured:
            metrics = []  # a Python function's metrics are the names its results carry (the first: the objective)
        metrics += [k for k in measured if k not in metrics]
        names = frozenset(params)
        if all(config.keys() == names for config in configs):
            # the key stored with each result identifies its configuration as config_key(config, params) does
            # (the same values of the same parameters), without computing 200,000 keys again
            keys: Iterable[str] = (row[0] for row in rows)
        else:
            lacking = next(((row[5], name) for row, config in zip(rows, configs) for name in params
                            if name not in config), None)
            if lacking:
                raise damaged(self.path, f"result {lacking[0]}: its configuration has no value of the stored space's "
                                         f"parameter {lacking[1]!r}")
            keys = (config_key(config, params) for config in configs)
        table: list[list[Any]] = []
        seen: set[str] = set()
        repeated: set[str] = set()
        nan = float("nan")
        failed = [nan] * len(metrics)  # a failure has no summary: NaN for every metric
        for key, row, config, repeats in zip(keys, rows, configs, values):
            if key in seen:
                repeated.add(key)
                continue
            seen.add(key)
            line = list(map(config.get, params))
            try:
                line += [mean_of(repeats[k]) if k in repeats else nan for k in metrics] if row[2] == "ok" else failed
            except TypeError:  # a repeat that is not a number
                raise damaged(self.path, f"result {row[5]}: a repeat is not a number") from None
            line += row[2:4]  # status, reason
            line += [repeats.get(k, []) for k in metrics]
            table.append(line)
        columns = [*params, *metrics, "status", "reason", *(REPEATS_PREFIX + k for k in metrics)]
        frame = pd.DataFrame(table, columns=columns)
        meta = self._dataset_meta(evaluator, space, metrics, duplicates=len(rows) - len(table))
        dataset = Dataset.from_frame(frame, params=params, metrics=metrics, meta=meta)
        if meta["duplicates"] and not self._evaluates_again():
            twice = len(repeated)
            warnings.warn(f"{self.path or 'the store'}: {twice} configuration{'s are' if twice > 1 else ' is'} stored "
                          f"more than once ({meta['duplicates']} result{'s' * (meta['duplicates'] > 1)} more than "
                          "configurations); each is read as its first result. If the store was not edited by hand, "
                          f"check it with: starchart doctor {self.path or 'STORE'}", UserWarning, stacklevel=3)
        self._dataset = (state, dataset)
        return _copy(dataset)

    def _evaluates_again(self) -> bool:
        """Whether the study stores a configuration once per evaluation, again and again by design: an MSP
        study, whose sessions say so (as :mod:`starchart.study.kinds`, which imports this module, tells it)."""
        sessions = self.get("sessions", [], copy=False)
        return isinstance(sessions, list) and any(isinstance(s, dict) and s.get("msp") for s in sessions)

    def _dataset_meta(self, evaluator: dict[str, Any], space: dict[str, Any], metrics: list[str],
                      duplicates: int) -> dict[str, Any]:
        """The metadata of :meth:`to_dataset`: where it comes from, the study's records, objective and direction."""
        sessions = self.get("sessions", [], copy=False)
        last = sessions[-1] if isinstance(sessions, list) and sessions else None
        meta = {"source": str(self.path) if self.path else None, "format": "starchart-store",
                "evaluator": evaluator, "space": space or None, "plan": self._object("plan") or None,
                "environment": last.get("environment") if isinstance(last, dict) else None, "duplicates": duplicates,
                "search": self.get("search", copy=False), "sample_size": self.get("sample_size", copy=False)}
        meta.update(_names_for_caches(evaluator, meta["environment"]))
        if metrics:
            meta["objective"] = metrics[0]
        if "minimize" in evaluator:
            meta["minimize"] = evaluator["minimize"]
        if space.get("parameters"):
            meta["tune_params"] = space["parameters"]
        return meta

    def _object(self, key: str) -> dict[str, Any]:
        """The study-level value ``key`` (``{}`` when none is stored), or the damage error when it is not an object."""
        value = self.get(key, copy=False)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise damaged(self.path, f"the stored {key} is {type(value).__name__}, not an object")
        return value

    def _state(self) -> tuple[Any, ...]:
        """What changes whenever anything is written to the store, by this connection or another one."""
        return (self._db, self._db.total_changes, self._db.execute("PRAGMA data_version").fetchone()[0])

    def export(self, path: str | Path, format: str | None = None, *,
               names: Mapping[str, Any] | None = None) -> Path:
        """Write the study as ``csv``, ``kernel_tuner`` (cache JSON) or ``t4``.

        The format defaults from the file name: ``.csv``/``.csv.gz`` → CSV, ``*.t4.json`` → T4,
        other ``.json`` → Kernel Tuner cache. A cache or T4 file is headed by the ``kernel_name``,
        ``device_name`` and ``problem_size`` the study knows (a replayed file's own, the C source's name,
        the machine's processor); ``names`` sets them instead (``tune_kernel`` asks for the same ones).
        """
        path = Path(path)
        if self.path is not None and _same_file(path, self.path):  # writing would destroy the study
            raise InputError("the export would overwrite the store itself", where=path,
                             hint="give another file name, e.g. results.csv")
        writer = format_for_writing(path, format)  # an unknown format or name: refused before reading
        dataset = self.to_dataset()
        if not len(dataset):
            raise InputError("the store holds no measurements yet, so there is nothing to export", where=self.path,
                             hint=f"measure first, e.g. starchart resume {self.path}")
        assert writer.write is not None  # format_for_writing chooses among writable formats
        dataset.meta.update({key: value for key, value in (names or {}).items() if value is not None})
        writer.write(dataset, path)
        return path


#: What a ``store=`` argument may be: an open store, a path, or ``None`` (a store in memory).
StoreLike = Union["Store", str, Path, None]


@contextmanager
def opened_store(store: StoreLike, *, example: str = "study.db") -> Iterator[Store]:
    """The store a ``store=`` argument names: an open :class:`Store` as it is (left open), a path opened here
    and closed on exit, ``None`` a store in memory. Anything else is a clear error naming the argument.

    >>> with opened_store(None) as db:
    ...     len(db)
    0
    >>> with opened_store(3) as db:
    ...     pass
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: store: store must be a Store or a path, got int (hint: e.g. store='study.db')
    """
    if isinstance(store, Store):
        yield store
        return
    if store is not None and not isinstance(store, (str, Path)):
        raise InputError(f"store must be a Store or a path, got {type(store).__name__}", where="store",
                         hint=f"e.g. store={example!r}")
    db = Store.open(store)
    try:
        yield db
    finally:
        db.close()


def as_stored(value: Any) -> Any:
    """``value`` as it reads back from a store's JSON: tuples as lists, other objects (numpy numbers, paths)
    as text. Compare with this what a store holds and what is about to be recorded.

    >>> as_stored({"sizes": (16, 64), "where": Path("a")})
    {'sizes': [16, 64], 'where': 'a'}
    """
    return json.loads(json.dumps(value, default=str))


def with_earlier(settings: Mapping[str, Any], recorded: Mapping[str, Any] | None) -> dict[str, Any]:
    """``settings`` to record in place of ``recorded`` (what the store held), keeping under ``earlier``
    every different settings a store was used with before, each once.

    Values are compared as the store reads them back (:func:`as_stored`), so settings that only
    differ in being a tuple or a list are the same.

    >>> first = with_earlier({"seed": 1}, None)
    >>> second = with_earlier({"seed": 2}, first)
    >>> second, with_earlier({"seed": 1}, second)
    ({'seed': 2, 'earlier': [{'seed': 1}]}, {'seed': 1, 'earlier': [{'seed': 1}, {'seed': 2}]})
    >>> with_earlier({"sizes": (1, 2)}, {"sizes": [1, 2]})
    {'sizes': (1, 2)}
    """
    earlier = list(recorded.get("earlier", [])) if recorded else []
    if recorded:
        before = {k: v for k, v in recorded.items() if k != "earlier"}
        if as_stored(before) != as_stored(dict(settings)) and as_stored(before) not in as_stored(earlier):
            earlier.append(before)
    return {**settings, "earlier": earlier} if earlier else dict(settings)


def _configure(db: sqlite3.Connection, path: Path | None, *, durable: bool) -> sqlite3.Connection:
    """A writing connection's settings: wait for other writers, WAL on a local disk, one sync per commit if
    durable. On a network filesystem, a rollback journal instead (SQLite's write-ahead log needs the memory of
    one host), and a warning that hosts must not share the file."""
    db.execute("PRAGMA busy_timeout = 60000")
    network = None if path is None else network_filesystem(path)
    if network is not None:
        _say_network_store(path, network)
        db.execute("PRAGMA journal_mode = DELETE")
        durable = True  # a rollback journal syncs every commit, or a crash may corrupt the file
    elif path is not None:
        _wal(db)
    db.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
    return db


_NETWORK_WARNED: set[str] = set()


def _say_network_store(path: Path | None, kind: str) -> None:
    """Warn once per store that it lies on a network filesystem (and what that rules out)."""
    if str(path) in _NETWORK_WARNED:
        return
    _NETWORK_WARNED.add(str(path))
    warnings.warn(f"{path} is on a network filesystem ({kind}): the store uses a rollback journal there, not a "
                  "write-ahead log, and runs on several hosts must not share it (SQLite's locks do not hold "
                  "across hosts over the network). Spread a study over hosts with --ray, whose one driver "
                  "writes the store, or keep the store on a local disk.", UserWarning, stacklevel=4)


def _wal(db: sqlite3.Connection, wait_s: float = 60.0) -> None:
    """Switch to write-ahead logging. SQLite does not apply the busy timeout to this switch: two processes
    creating one store at the same moment would see "database is locked", so wait as for any write."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _file_identity(path: Path) -> tuple[int, int] | None:
    """The (device, inode) of the file at ``path``, or ``None`` if there is none."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _check_tables(db: sqlite3.Connection, path: Path) -> None:
    """Refuse (closing ``db``) a SQLite database that has tables but not a store's."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables and not {"study", "results"} <= tables:
        db.close()
        raise InputError(f"not a starchart store (a SQLite database with tables {sorted(tables)[:5]})", where=path,
                         hint="give a .db file written by starchart run, or a new file name to start a study")


def _read_only_mode(path: Path) -> str:
    """How to open ``path`` for reading only (a SQLite URI query).

    SQLite reads a WAL-mode file through its -shm/-wal companions, which it creates in a
    writable folder. A read-only connection cannot remove them when it closes, so where the
    file and folder are writable the store is opened read-write and made read-only by
    ``PRAGMA query_only`` (nothing can be written through it): the last connection to close
    then removes them, as a writer's does (folding into the file what a killed writer left in
    its -wal, as the writer's own close would have). In a read-only folder without a -wal file (nothing
    uncheckpointed) the main file alone is the whole study, so it is opened as immutable.
    """
    folder_writable = os.access(path.parent, os.W_OK)
    if folder_writable and os.access(path, os.W_OK):
        return "mode=rw"
    return "mode=ro" if folder_writable or path.with_name(path.name + "-wal").exists() else "immutable=1"


class Claims:
    """One run's claims on the configurations it measures, in a store other runs of the study share
    (:meth:`Store.claims`): each configuration is measured by one of them.

    A claim is a row of ``claims`` (configuration, owner, when), taken in one write transaction with the
    check that the configuration is neither stored nor claimed by a live run; the owner's row of
    ``claimants`` says where it runs (machine, pid) and when it last renewed its lease (a thread renews it
    every ``lease_s / 6`` seconds). A claim no longer holds once its owner is gone: it ended (its claims go
    with it, also on Ctrl-C or an error), its process is not running on this machine (``kill -9``), or it
    has not renewed its lease for ``lease_s`` seconds (another machine's, or a stopped process; machines'
    clocks are taken to agree to well within that). Whoever meets such a claim takes the configuration over.
    """

    def __init__(self, store: Store, lease_s: float = CLAIM_LEASE_S):
        self.store = store
        self.owner = f"{store.worker}:{secrets.token_hex(4)}"  # two runs in one process are two owners
        self.lease_s = float(lease_s)
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def __enter__(self) -> Claims:
        self._sweep()
        self.store._db.execute("INSERT OR REPLACE INTO claimants (owner, machine, pid, seen) VALUES (?, ?, ?, ?)",
                               (self.owner, self.store.machine, os.getpid(), time.time()))
        if self.store.path is not None:
            self._renewer = threading.Thread(target=self._renew, args=(self.store.path,), daemon=True,
                                             name="starchart-claims")
            self._renewer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        try:
            with self.store.transaction():
                self.store._db.execute("DELETE FROM claims WHERE owner = ?", (self.owner,))
                self.store._db.execute("DELETE FROM claimants WHERE owner = ?", (self.owner,))
        except sqlite3.Error:  # a full disk, a closed store: the claims lapse with this process
            pass
        if self._renewer is not None:
            self._renewer.join(timeout=1.0)

    def _sweep(self) -> None:
        """Delete the claims of runs that no longer hold them (killed, or silent past their lease): they held
        nothing, but lingered in the store until another run met each of them. Only a run whose process is gone
        from this machine loses its row of ``claimants`` too: one merely silent (a suspended host) may renew."""
        db, now, here = self.store._db, time.time(), self.store.machine
        try:
            with self.store.transaction():
                lapsed = [(owner, machine == here and (pid is None or not _running(int(pid))))
                          for owner, machine, pid, seen in db.execute("SELECT owner, machine, pid, seen FROM claimants")
                          if not _holds(here, self.lease_s, machine, pid, seen, now)]
                db.executemany("DELETE FROM claims WHERE owner = ?", [(owner,) for owner, _ in lapsed])
                db.executemany("DELETE FROM claimants WHERE owner = ?", [(owner,) for owner, dead in lapsed if dead])
                db.execute("DELETE FROM claims WHERE owner NOT IN (SELECT owner FROM claimants)")
        except sqlite3.Error:  # a full disk: they still hold nothing, and are taken over when met
            pass

    def take(self, keys: Sequence[str]) -> tuple[list[str], list[str]]:
        """Claim those of ``keys`` (:func:`~starchart._util.configs.config_key`) that no run has stored or holds.

        Returns ``(claimed, held)``: the keys this run now holds, and those another live run holds; a
        stored key is in neither. One write transaction for all of them.
        """
        if not keys:
            return [], []
        db, marks, now = self.store._db, ", ".join("?" * len(keys)), time.time()
        with self.store.transaction():
            stored = {row[0] for row in db.execute(
                f"SELECT config_key FROM results WHERE config_key IN ({marks})", list(keys))}
            holders = {row[0]: row[1:] for row in db.execute(
                "SELECT c.config_key, c.owner, a.machine, a.pid, a.seen FROM claims c LEFT JOIN claimants a"
                f" ON a.owner = c.owner WHERE c.config_key IN ({marks})", list(keys))}
            claimed, held = [], []
            for key in dict.fromkeys(keys):
                if key in stored:
                    continue
                holder = holders.get(key)
                if holder and holder[0] != self.owner and _holds(self.store.machine, self.lease_s, *holder[1:], now):
                    held.append(key)
                else:
                    claimed.append(key)
            db.executemany("INSERT OR REPLACE INTO claims (config_key, owner, claimed) VALUES (?, ?, ?)",
                           [(key, self.owner, now) for key in claimed])
        return claimed, held

    def _renew(self, path: Path) -> None:
        """Renew this run's lease until it ends, on a connection of its own (the run's may be in a transaction)."""
        while not self._stop.wait(self.lease_s / 6):
            try:
                db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True, timeout=60.0)
                try:
                    with db:  # an upsert: a run silent past its lease (a suspended host) registers again
                        db.execute("INSERT INTO claimants (owner, machine, pid, seen) VALUES (?, ?, ?, ?) "
                                   "ON CONFLICT(owner) DO UPDATE SET seen = excluded.seen",
                                   (self.owner, self.store.machine, os.getpid(), time.time()))
                finally:
                    db.close()
            except sqlite3.Error:  # the file is being restored or replaced (see Store._check_file): next time
                pass


def _holds(here: str, lease_s: float, machine: str | None, pid: int | None, seen: float | None, now: float) -> bool:
    """Whether a claimant (``None``: it ended) still holds its claims, seen from machine ``here``."""
    if machine is None or pid is None or seen is None or now - seen > lease_s:
        return False
    return machine != here or _running(int(pid))


def _machine() -> str:
    """This machine as its processes see each other: the host name, and the PID namespace where one is
    named (containers that share a host name do not see each other's processes).

    >>> import socket; _machine().startswith(socket.gethostname())
    True
    """
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        return socket.gethostname()
    return f"{socket.gethostname()}/{namespace}"


def _running(pid: int) -> bool:
    """Whether process ``pid`` of this machine is running (one killed but not yet reaped is not).

    >>> _running(os.getpid())
    True
    """
    if os.name == "nt":  # os.kill(pid, 0) would send Ctrl-C there: leave it to the lease
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        pass
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return True


class _Transaction:
    """``with`` block holding SQLite's write lock (BEGIN IMMEDIATE), committed on exit."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self._db.execute("ROLLBACK" if exc_type else "COMMIT")


def _result_damage(status: Any, reason: Any, config: Any, repeats: Any) -> str | None:
    """What is wrong with a stored result's columns (decoded), or ``None``: the shapes every reader relies on.

    >>> _result_damage("ok", "", {"x": 1}, {"time": [1.0]}) is None
    True
    >>> _result_damage("bogus", "", {"x": 1}, {}), _result_damage("ok", "", [1, 2], {})
    ("unknown status 'bogus'", 'its configuration is a list, not an object')
    """
    if status not in MEASUREMENT_STATUSES:
        return f"unknown status {status!r}"
    if not isinstance(config, dict):
        return f"its configuration is a {type(config).__name__}, not an object"
    if any(isinstance(value, (list, dict)) for value in config.values()):
        return "a parameter value is a list or an object"
    if not isinstance(reason, str):
        return f"its reason is a {type(reason).__name__}, not text"
    if not isinstance(repeats, dict) or not all(isinstance(v, list) for v in repeats.values()):
        return "its repeats are not lists of numbers by metric"
    return None


def _config_names(configs: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(name for config in configs for name in config))


def _decoded(texts: list[str]) -> list[Any]:
    """The values of JSON ``texts``, decoded in one call: a call per text costs more than its decoding.

    >>> _decoded(['{"x": 1}', '[1.5, NaN]'])
    [{'x': 1}, [1.5, nan]]
    """
    try:
        return json.loads(f"[{','.join(texts)}]")
    except TypeError:  # a damaged page can turn a text cell into bytes or a number: not JSON text either
        raise json.JSONDecodeError("a stored value is not text", "", 0) from None


def _copy(dataset: Dataset) -> Dataset:
    """A dataset of its own for each caller of :meth:`Store.to_dataset` (they may change it)."""
    return replace(dataset, frame=dataset.frame.copy(), meta=_own_copy(dataset.meta))


def _own_copy(value: Any) -> Any:
    """A deep copy of ``value``, JSON read from the store, for a caller that may change it.

    Through pickle, which copies such values 6× faster than ``copy.deepcopy`` (a stored space lists every
    allowed configuration).

    >>> original = {"space": {"allowed": [[1, 2]]}}
    >>> copied = _own_copy(original)
    >>> copied == original and copied["space"]["allowed"] is not original["space"]["allowed"]
    True
    """
    return pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def _same_file(path: Path, store: Path) -> bool:
    """Whether ``path`` is the store's file or one of its -wal/-shm companions."""
    target = path.resolve()
    return any(target == store.resolve().with_name(store.resolve().name + suffix) for suffix in ("", "-wal", "-shm"))


def _names_for_caches(evaluator: Mapping[str, Any], environment: Mapping[str, Any] | None) -> dict[str, str]:
    """``kernel_name`` and ``device_name`` (Kernel Tuner's cache header) where the study knows them: what
    the evaluator's class says of its description (:meth:`Evaluator.cache_names`).

    >>> _names_for_caches({"kind": "c", "source": "/k/matmul.c"}, {"cpu": "Xeon"})
    {'kernel_name': 'matmul', 'device_name': 'Xeon'}
    """
    cls = evaluator_class(str(evaluator.get("kind"))) or Evaluator
    return cls.cache_names(evaluator, environment or {})
