"""A damaged store: what can still be read of it, and a fresh store holding that.

A store is one SQLite file. A disk error, a copy cut short or an edit by hand can damage a page of it, or
leave a value that is not JSON. :func:`examine` reads the file record by record (each study value, each
result row on its own), so that one bad page costs the records on it and not the study.
:func:`salvage` copies every record that reads whole into a new store, which resumes as the old one would
have, measuring again only what was lost.

>>> import tempfile, os
>>> from starchart.measure import Measurement
>>> from starchart.study.store import Store
>>> folder = tempfile.mkdtemp()
>>> with Store.open(os.path.join(folder, "s.db")) as db:
...     db.put("plan", {"samples": 2, "seed": 1})
...     _ = db.add(Measurement({"x": 1}, values={"time": [1.0]}))
>>> print(examine(os.path.join(folder, "s.db")).summary())
sound: SQLite's integrity check passes; 2 study records and 1 result read whole
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from starchart._util.text import shorten
from starchart.errors import InputError
from starchart.study.store import SCHEMA_VERSION, Store

__all__ = ["Examination", "examine", "salvage"]

#: The columns of a result row, as the store writes them (the id is given again by the new store).
RESULT_COLUMNS = ("config_key", "config", "status", "reason", "summary", "repeats", "compile_s", "run_s",
                  "overhead_s", "extra", "worker", "created")
#: Result columns that hold JSON.
JSON_COLUMNS = ("config", "summary", "repeats", "extra")
#: Study keys tried one by one when the study table cannot be listed.
KNOWN_KEYS = ("schema_version", "space", "evaluator", "plan", "sessions", "search", "sample_size", "msp")


@dataclass
class Examination:
    """What :func:`examine` found in a store file.

    Attributes
    ----------
    path:
        The file.
    integrity:
        SQLite's integrity check: ``["ok"]`` for a sound file, else what it reports (or why it could not run).
    study:
        The study records read whole (key → value).
    study_lost:
        Study keys whose value could not be read, with why.
    results:
        The result rows read whole, in stored order (column → value, and its ``id``).
    results_lost:
        Ids of the result rows that could not be read whole.
    repeated:
        The configurations stored more than once (their key → the ids of their results), which every
        reader takes as their first result: not damage to the file, but seldom meant (an edit by hand,
        or two runs whose claims lapsed). Empty for an MSP study, which stores each evaluation by design.
    """

    path: Path
    integrity: list[str]
    study: dict[str, object] = field(default_factory=dict)
    study_lost: dict[str, str] = field(default_factory=dict)
    results: list[dict[str, object]] = field(default_factory=list)
    results_lost: list[int] = field(default_factory=list)
    repeated: dict[str, list[int]] = field(default_factory=dict)
    #: how each repeated configuration reads (``x=3``), for the summary
    _shown: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def sound(self) -> bool:
        return self.integrity == ["ok"] and not self.study_lost and not self.results_lost

    def summary(self) -> str:
        """A few lines for people."""
        read = f"{len(self.study)} study record{'s' * (len(self.study) != 1)} and {len(self.results)} " \
               f"result{'s' * (len(self.results) != 1)} read whole"
        if self.sound:
            return f"sound: SQLite's integrity check passes; {read}{self._repeated_line()}"
        lines = [f"damaged: {read}"]
        if self.integrity != ["ok"]:
            said = "; ".join(line.strip() for text in self.integrity[:3] for line in text.splitlines() if line.strip())
            lines.append(f"  SQLite's integrity check: {shorten(said, 160)}"
                         + (f" (+{len(self.integrity) - 3} more)" if len(self.integrity) > 3 else ""))
        for key, why in self.study_lost.items():
            lines.append(f"  study record {key!r} lost: {shorten(why, 120)}")
        if self.results_lost:
            lost = self.results_lost
            shown = ", ".join(map(str, lost[:8])) + (f" … (+{len(lost) - 8})" if len(lost) > 8 else "")
            lines.append(f"  {len(lost)} result row{'s' * (len(lost) != 1)} lost (ids {shown})")
        return "\n".join(lines) + self._repeated_line()

    def _repeated_line(self) -> str:
        """A line naming the configurations stored more than once (the first few), or nothing."""
        if not self.repeated:
            return ""
        n = len(self.repeated)
        shown = "; ".join(f"result ids {', '.join(map(str, ids))} for {self._shown.get(key, key)}"
                          for key, ids in list(self.repeated.items())[:3]) + (" …" if n > 3 else "")
        return (f"\n  {n} configuration{'s are' if n > 1 else ' is'} stored more than once ({shown}); every reader "
                "takes the first result of each: delete the others (by id, e.g. with sqlite3) to keep another")


def examine(path: str | Path) -> Examination:
    """Read the store at ``path`` record by record; nothing is written to it."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such store", where=path, hint="check the path")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"cannot open the file ({exc})", where=path, hint="give a store written by starchart") from None
    try:
        found = Examination(path, _integrity(db))
        _read_study(db, found)
        _read_results(db, found)
        _find_repeated(found)
        return found
    finally:
        db.close()


def salvage(path: str | Path, copy_to: str | Path) -> Examination:
    """Copy what :func:`examine` reads whole of the store at ``path`` into a new store ``copy_to``."""
    target = Path(copy_to)
    if target.exists():
        raise InputError("the copy would replace a file that exists", where=target,
                         hint="name a new file, e.g. repaired.db")
    found = examine(path)
    if "schema_version" in found.study and found.study["schema_version"] != SCHEMA_VERSION:
        raise InputError(f"the store's layout is version {found.study['schema_version']}, this starchart "
                         f"writes version {SCHEMA_VERSION}", where=path, hint="use the starchart that made it")
    with Store.open(target) as fresh, fresh.transaction():
        for key, value in found.study.items():
            if key != "schema_version":  # the new store writes its own
                fresh.put(key, value)
        columns = ", ".join(RESULT_COLUMNS)
        marks = ", ".join("?" for _ in RESULT_COLUMNS)
        fresh._db.executemany(f"INSERT INTO results ({columns}) VALUES ({marks})",
                              [tuple(row[c] for c in RESULT_COLUMNS) for row in found.results])
    return found


def _integrity(db: sqlite3.Connection) -> list[str]:
    try:
        return [row[0] for row in db.execute("PRAGMA integrity_check(20)")]
    except sqlite3.DatabaseError as exc:
        return [f"the check could not run: {exc}"]


def _read_study(db: sqlite3.Connection, found: Examination) -> None:
    try:
        keys = [row[0] for row in db.execute("SELECT key FROM study")]
    except sqlite3.DatabaseError:
        keys = list(KNOWN_KEYS)  # the table cannot be listed: ask for each record a store holds by name
    for key in keys:
        try:
            row = db.execute("SELECT value FROM study WHERE key = ?", (key,)).fetchone()
            if row is not None:
                found.study[key] = json.loads(row[0])
        except (sqlite3.DatabaseError, ValueError) as exc:
            found.study_lost[key] = str(exc)


def _read_results(db: sqlite3.Connection, found: Examination) -> None:
    last = _last_id(db)
    query = f"SELECT {', '.join(RESULT_COLUMNS)} FROM results WHERE id = ?"
    for row_id in range(1, last + 1):
        try:
            row = db.execute(query, (row_id,)).fetchone()
            if row is None:
                continue  # never written (an id given up by a rolled-back insert)
            record = dict(zip(RESULT_COLUMNS, row))
            for column in JSON_COLUMNS:
                json.loads(record[column])
            if not isinstance(record["config_key"], str) or not isinstance(record["status"], str):
                raise ValueError("a key or status that is not text")
        except (sqlite3.DatabaseError, ValueError, TypeError):
            found.results_lost.append(row_id)
            continue
        record["id"] = row_id
        found.results.append(record)


def _find_repeated(found: Examination) -> None:
    """Note the configurations that more than one result read whole holds (not in an MSP study's store)."""
    sessions = found.study.get("sessions")
    if isinstance(sessions, list) and any(isinstance(s, dict) and s.get("msp") for s in sessions):
        return  # it stores every evaluation, the same configuration again by design
    ids: dict[str, list[int]] = {}
    for record in found.results:
        ids.setdefault(str(record["config_key"]), []).append(int(str(record["id"])))
    for record in found.results:
        key = str(record["config_key"])
        if len(ids[key]) > 1 and key not in found.repeated:
            found.repeated[key] = ids[key]
            config = json.loads(str(record["config"]))
            found._shown[key] = (", ".join(f"{k}={v}" for k, v in config.items()) if isinstance(config, dict)
                                 else key)


def _last_id(db: sqlite3.Connection) -> int:
    """The largest result id the file knows of (from the table, else from its counter)."""
    for query in ("SELECT max(id) FROM results", "SELECT seq FROM sqlite_sequence WHERE name = 'results'"):
        try:
            row = db.execute(query).fetchone()
            if row is not None and row[0] is not None:
                return int(row[0])
        except sqlite3.DatabaseError:
            continue
    return 0
