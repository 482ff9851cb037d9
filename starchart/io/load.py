"""``starchart.load``: read any supported file into a :class:`~starchart.dataset.Dataset`.

The format is detected from the file's content (and a ``.csv`` name), or forced with
``format=``. Supported: Kernel Tuner cache JSON (finished or left unfinished by a
crashed run), T4 results JSON, KTT output JSON and CSV; each may be gzip-compressed.
A starchart store (the SQLite file of ``starchart run``/``search``) loads too,
recognised by its SQLite header whatever its name.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from starchart._util.files import as_path, cut_off, read_text_cut
from starchart._util.plugins import load_reference
from starchart._util.units import is_never_negative, unit_of
from starchart._util.validation import Instances, check
from starchart.dataset import Dataset
from starchart.errors import InputError, arg
from starchart.io.formats import Format, get_format, readable

#: The class that reads a starchart store (an SQLite file of the study layer, above this one).
STORE = "starchart.study.store:Store"

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
    path = as_path(path)
    check("format", format, None, Instances(str, "a format name"), hint="e.g. format='csv'")
    if is_store(path):
        if format is not None or options:
            raise InputError("a starchart store takes no format or reader options", where=path,
                             hint="load(store) returns every parameter and metric; select columns afterwards")
        store_class = load_reference(STORE)  # the study layer's: named, not imported
        with store_class.open(path, read_only=True) as store:
            return store.to_dataset()
    text, cut = read_text_cut(path)
    reader: Format = get_format(format, path) if format is not None else readable()[detect_format(path, text)]
    name = reader.name
    if cut and name != "kernel_tuner":  # only a cache cut off mid-run is read in part (its reader says so)
        raise cut_off(path)
    unknown = sorted(set(options) - reader.options)
    if unknown:
        accepted = ", ".join(sorted(reader.options)) or "none"
        raise InputError(f"option(s) {unknown} do not apply to the {name} format", where=path,
                         hint=f"options for {name}: {accepted}")
    assert reader.read is not None  # readable() holds only formats with a reader
    dataset = reader.read(path, text, **_checked_options(options, path))
    _warn_if_nothing_to_model(dataset, path)
    warn_if_negative(dataset, path)
    return dataset


def _checked_options(options: dict[str, Any], path: Path) -> dict[str, Any]:
    """The reader options checked for type: ``metrics=5`` raised a bare TypeError inside the reader, and
    ``sep=""`` or ``metrics=[]`` were accepted and read the file as something else."""
    out = dict(options)
    for name in ("metrics", "params"):
        value = out.get(name)
        if isinstance(value, str):  # one column named as a string, not a list of its letters
            value = out[name] = [value]
        if value is None:
            continue
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise InputError(f"{arg(name, repr(value))} must be a list of column names", where=path,
                             hint=f"e.g. {name}=['time']" if name == 'metrics' else "e.g. params=['block_size_x']")
        if not value:
            raise InputError(f"{arg(name, '[]')} names no column", where=path,
                             hint=f"name at least one column, or leave {name} out")
    sep = out.get("sep")
    if "sep" in out and sep is not None and (not isinstance(sep, str) or not sep):
        raise InputError(f"{arg('sep', repr(sep))} must be a non-empty string", where=path,
                         hint="e.g. sep=';' (or leave it out to detect it)")
    if isinstance(sep, str) and ("\n" in sep or "\r" in sep):  # pandas refused it with a bare ValueError
        raise InputError(f"{arg('sep', repr(sep))} holds a line break, which ends the rows of a CSV file and so "
                         "cannot separate its fields", where=path, hint="e.g. sep=';' (or leave it out to detect it)")
    return out


class NothingToModelWarning(UserWarning):
    """A file read fine but holds no value to model: every configuration failed, or a metric is empty."""


def warn_if_negative(dataset: Dataset, path: Path) -> None:
    """Warn when a duration, energy or power of a valid configuration is negative: a tool's error code (-1)
    read as a measurement is the best time of all."""
    ok = dataset.ok()
    for metric in dataset.metrics:
        if is_never_negative(metric, dataset.meta):
            negative = int((ok.y(metric) < 0).sum())
            if negative:
                warnings.warn(f"{path}: {metric!r} is negative in {negative} of the {len(ok)} valid configurations, "
                              f"which no {unit_of(metric, dataset.meta)} measurement can be: an error code read as a "
                              "value? Drop those rows before modelling", NothingToModelWarning, stacklevel=3)


def _warn_if_nothing_to_model(dataset: Dataset, path: Path) -> None:
    """Warn when every configuration of ``dataset`` failed, or a metric has no value in any valid one: read
    silently, such a file gave a tree of nothing or an error far from its cause."""
    if not len(dataset):
        return
    ok = dataset.ok()
    if not len(ok):
        reasons = dataset.status.value_counts()
        said = ", ".join(f"{n} {status}" for status, n in reasons.items())
        warnings.warn(f"{path}: all {len(dataset)} configurations failed ({said}): no valid measurement",
                      NothingToModelWarning, stacklevel=3)
        return
    empty = [m for m in dataset.metrics if not np.isfinite(ok.y(m)).any()]
    if empty:
        warnings.warn(f"{path}: metric(s) {', '.join(map(repr, empty))} have no value in any of the {len(ok)} "
                      "valid configurations", NothingToModelWarning, stacklevel=3)


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
    if not Path(path).is_file():
        return False  # missing, a folder, or a pipe that opening would wait on: read_text says which
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False  # unreadable: read_text says why


def detect_format(path: str | Path, text: str) -> str:
    """The name of the format of a file with this ``text``: the first JSON format whose sniffer takes a
    JSON document, else the first other format whose name suffix or sniffer fits (CSV last).

    Examples
    --------
    >>> detect_format("x.json", '{"tune_params_keys": ["a"], "cache": {')
    'kernel_tuner'
    """
    head = text[:_HEAD]
    table = readable()
    if head.lstrip().startswith("{"):
        for fmt in table.values():
            if fmt.json and fmt.sniff is not None and fmt.sniff(head):
                return fmt.name
        if '"ConfigurationSpace"' in head:
            raise InputError("a T1 input file describes a tuning space, not measurements", where=path,
                             hint=f"describe the space with `starchart space {path}`, measure it with "
                                  f"`starchart run {path} ...`")
    elif _stem_suffix(Path(path)) in (".yaml", ".yml"):
        raise InputError("a YAML file is a space file (a tuning space), not measurements", where=path,
                         hint=f"describe the space with `starchart space {path}`, measure it with "
                              f"`starchart run {path} ...`")
    else:
        for fmt in table.values():
            if not fmt.json and (_stem_suffix(Path(path)) in fmt.read_suffixes
                                 or (fmt.sniff is not None and fmt.sniff(head))):
                return fmt.name
    titles = ", ".join(fmt.title for fmt in table.values())
    raise InputError("unknown file format", where=path,
                     hint=f"supported formats: {titles} (each optionally .gz), a starchart store; from Python, "
                          f"force a reader with load(path, format=...), one of {', '.join(table)}")


def _stem_suffix(path: Path) -> str:
    """The suffix that says the format: ``x.csv.gz`` → ``.csv``."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""
