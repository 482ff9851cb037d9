"""``starchart.load``: read any supported file into a :class:`~starchart.dataset.Dataset`.

The format is detected from the file's content (and a ``.csv`` name), or forced with
``format=``. Supported: Kernel Tuner cache JSON (finished or left unfinished by a
crashed run), T4 results JSON, KTT output JSON and CSV; each may be gzip-compressed.
A starchart store (the SQLite file of ``starchart run``/``search``) loads too,
recognised by its SQLite header whatever its name.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from starchart._util.files import read_text
from starchart._util.plugins import load_reference
from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.io import csv, kernel_tuner, ktt, t4

#: The class that reads a starchart store (an SQLite file of the study layer, above this one).
STORE = "starchart.study.store:Store"

#: Reader modules by format name; each has ``sniff(head)``, ``read(path, text, **options)`` and ``OPTIONS``.
READERS: dict[str, ModuleType] = {"kernel_tuner": kernel_tuner, "t4": t4, "ktt": ktt, "csv": csv}
_ALIASES = {"kerneltuner": "kernel_tuner", "kt": "kernel_tuner", "cache": "kernel_tuner"}
#: How much of the file sniffing looks at: the headers and first entry fit easily.
_HEAD = 65536
#: The first bytes of every SQLite database file (a starchart store).
SQLITE_HEADER = b"SQLite format 3\x00"


def load(path: str | Path, format: str | None = None, **options: Any) -> Dataset:
    """Load measured configurations from ``path``.

    Parameters
    ----------
    path:
        A Kernel Tuner cache (``.json``/``.json.gz``), T4 results, KTT output or CSV file,
        or a starchart store (``study.db``: what was measured so far).
    format:
        Force a reader: ``"kernel_tuner"``, ``"t4"``, ``"ktt"`` or ``"csv"``.
    options:
        Reader options: ``metrics=[...]`` (CSV: the measured columns; Kernel Tuner: keep
        only these), ``params=[...]`` and ``sep=`` (CSV).

    Raises
    ------
    InputError
        The file is missing, empty, broken or of an unknown format (naming the file and,
        where it applies, the line or key), or an option does not apply to the format.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "k.csv")
    >>> _ = open(p, "w").write("bx,time\\n16,1.5\\n32,0.9\\n")
    >>> load(p).y().tolist()
    [1.5, 0.9]
    """
    path = Path(path)
    if is_store(path):
        if format is not None or options:
            raise InputError("a starchart store takes no format or reader options", where=path,
                             hint="load(store) returns every parameter and metric; select columns afterwards")
        store_class = load_reference(STORE)  # the study layer's: named, not imported
        with store_class.open(path, read_only=True) as store:
            return store.to_dataset()
    text = read_text(path)
    name = _resolve_format(format, path) if format is not None else detect_format(path, text)
    reader = READERS[name]
    unknown = sorted(set(options) - reader.OPTIONS)
    if unknown:
        accepted = ", ".join(sorted(reader.OPTIONS)) or "none"
        raise InputError(f"option(s) {unknown} do not apply to the {name} format", where=path,
                         hint=f"options for {name}: {accepted}")
    return reader.read(path, text, **options)


def is_store(path: str | Path) -> bool:
    """Whether ``path`` is a SQLite file (a starchart store), judged by its first bytes.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "k.csv")
    >>> _ = open(p, "w").write("bx,time\\n16,1.5\\n")
    >>> is_store(p)
    False
    """
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False  # missing or unreadable: read_text says which


def detect_format(path: str | Path, text: str) -> str:
    """The name of the reader for a file with this ``text``.

    Examples
    --------
    >>> detect_format("x.json", '{"tune_params_keys": ["a"], "cache": {')
    'kernel_tuner'
    """
    head = text[:_HEAD]
    if head.lstrip().startswith("{"):
        for name in ("kernel_tuner", "t4", "ktt"):
            if READERS[name].sniff(head):
                return name
        if '"ConfigurationSpace"' in head:
            raise InputError("a T1 input file describes a tuning space, not measurements", where=path,
                             hint=f"describe the space with `starchart space {path}`, measure it with "
                                  f"`starchart run {path} ...`")
    elif _stem_suffix(Path(path)) in (".yaml", ".yml"):
        raise InputError("a YAML file is a space file (a tuning space), not measurements", where=path,
                         hint=f"describe the space with `starchart space {path}`, measure it with "
                              f"`starchart run {path} ...`")
    elif _stem_suffix(Path(path)) in (".csv", ".tsv") or csv.sniff(head):
        return "csv"
    raise InputError("unknown file format", where=path,
                     hint="supported formats: Kernel Tuner cache JSON, T4 results JSON, KTT output JSON, "
                          "CSV (each optionally .gz), a starchart store; from Python, force a reader with "
                          f"load(path, format=...), one of {', '.join(READERS)}")


def _resolve_format(format: str, path: Path) -> str:
    name = format.strip().lower().replace("-", "_")
    name = _ALIASES.get(name, name)
    if name not in READERS:
        raise InputError(f"unknown format {format!r}", where=path,
                         hint=f"use one of: {', '.join(READERS)}")
    return name


def _stem_suffix(path: Path) -> str:
    """The suffix that says the format: ``x.csv.gz`` → ``.csv``."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""
