"""CSV tables of measured configurations: one row per configuration, one column per
parameter or metric, with an optional ``status`` (and ``reason``) column.

Which columns are metrics is the user's call: pass ``metrics=[...]``. A file starchart
wrote (:meth:`Dataset.to_csv`, ``starchart export study.db -o study.csv``) says it in its
first line, ``# starchart: {"params": [...], "metrics": [...], "objective": ...,
"objective_higher_is_better": ...}``, so it reads back as it was, objective and direction
too (skip that line elsewhere: ``pandas.read_csv(path, skiprows=1)``). Otherwise, with
``params=[...]`` given, every other column (except ``status``/``reason``) is a metric;
with neither, columns named ``time``, ``runtime``, ``wattage``, ``power`` or ``energy``
(any case) are taken as the metrics, a file with none of them is an error asking for
``metrics=``, and all other columns (except ``status``/``reason``) are parameters.

:func:`read_configs` reads a CSV of configurations to measure (``starchart run --configs``).
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from starchart._util.files import as_path, read_text
from starchart._util.text import shorten
from starchart.dataset import Dataset
from starchart.errors import InputError, arg
from starchart.io.kernel_tuner import HIGHER_IS_BETTER, direction_entry, read_direction

if TYPE_CHECKING:
    from starchart.space import Space

FORMAT = "csv"
OPTIONS: frozenset[str] = frozenset({"metrics", "params", "sep"})
#: The first line of a CSV file starchart wrote: which columns are parameters and which metrics.
HEADER_PREFIX = "# starchart:"


def repeated_names(names: Iterable[Any]) -> list[str]:
    """The names given more than once, sorted: counted once each (a header of 100,000 columns took minutes).

    >>> repeated_names(["a", "b", "a", "c", "b", "a"])
    ['a', 'b']
    """
    return sorted(str(name) for name, count in Counter(names).items() if count > 1)


def sniff(head: str) -> bool:
    """Whether the start of a file looks like a delimited table (not JSON).

    Examples
    --------
    >>> sniff("ppb,tpp,runtime\\n13,13,0.09\\n"), sniff('{"a": 1}')
    (True, False)
    """
    first = head.lstrip().split("\n", 1)[0]
    if first.startswith(HEADER_PREFIX):
        return True
    return not first.startswith(("{", "[")) and ("," in first or "\t" in first or ";" in first)


def read(path: str | Path, text: str | None = None, metrics: list[str] | None = None,
         params: list[str] | None = None, sep: str | None = None) -> Dataset:
    """Read a CSV file (plain or ``.gz``).

    Parameters
    ----------
    path:
        The file; named in errors.
    text:
        Its content when already read (else it is read from ``path``).
    metrics:
        The measured (response) columns; see the module docs for the default.
    params:
        The parameter columns (default: all other columns but ``status``/``reason``).
    sep:
        The field separator; default: the first of ``,``, tab, ``;`` in the header.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "k.csv")
    >>> _ = open(p, "w").write("ppb,tpp,runtime,wattage\\n13,13,0.098,206.5\\n16,11,0.119,201.2\\n")
    >>> ds = read(p, metrics=["runtime", "wattage"])
    >>> ds.params, ds.metrics, len(ds)
    (['ppb', 'tpp'], ['runtime', 'wattage'], 2)
    """
    path = as_path(path)
    text = read_text(path) if text is None else text
    declared, text, skipped = _declared_columns(text, path)
    meta: dict[str, Any] = {"source": str(path), "format": FORMAT}
    if declared:
        metrics = declared["metrics"] if metrics is None else metrics
        params = [p for p in declared["params"] if p not in metrics] if params is None else params
        meta.update(declared["meta"])
    sep = sep or _guess_sep(text)
    try:
        frame = pd.read_csv(_Chunks(text), sep=sep, skipinitialspace=True, engine=_engine(sep))
    except pd.errors.EmptyDataError:  # nothing after the "# starchart:" line, or only blank lines
        raise InputError("CSV file has no header line", where=path,
                         hint="the first line names the columns (parameters and metrics), then one line per "
                              "configuration") from None
    except pd.errors.ParserError as exc:
        raise InputError(f"cannot parse CSV: {str(exc).strip()}", where=path,
                         hint="every line needs the same number of fields as the header") from exc
    except ValueError as exc:  # a separator pandas refuses (a line break): its bare ValueError was a traceback
        raise InputError(f"cannot parse CSV with {arg('sep', repr(sep))}: {str(exc).strip()}", where=path,
                         hint="e.g. sep=';' (or leave it out to detect it)") from None
    if frame.empty:
        raise InputError("CSV file has a header but no rows", where=path, hint="add measured configurations")
    header = pd.read_csv(_Chunks(text), sep=sep, skipinitialspace=True, header=None, nrows=1,
                         engine=_engine(sep)).iloc[0]
    names = [str(c).strip() for c in header]
    repeated = repeated_names(names)
    if repeated:  # pandas would rename the second one ('a.1') and take it for another parameter
        raise InputError(f"column(s) {repeated} appear more than once in the header", where=path,
                         hint="give every column its own name")
    frame.columns = [str(c).strip() for c in frame.columns]
    text_params = [c for c in (declared or {}).get("text", []) if c in frame.columns]
    if text_params:  # read as written: pandas would take "01" for the number 1
        raw = pd.read_csv(_Chunks(text), sep=sep, skipinitialspace=True, dtype=str, keep_default_na=False,
                          usecols=lambda c: str(c).strip() in text_params, engine=_engine(sep))
        raw.columns = [str(c).strip() for c in raw.columns]
        for name in text_params:
            frame[name] = raw[name].to_numpy(dtype=object)
    if sep == ";":
        _read_decimal_commas(frame, skip=text_params)
    lines = [n + skipped for n in _data_lines(text)]
    return Dataset.from_frame(frame, params=params, metrics=metrics, meta=meta, lines=lines)


def write(dataset: Dataset, path: str | Path) -> None:
    """Write ``dataset`` as CSV (gzip if ``path`` ends in ``.gz``), first line naming its
    parameters and metrics so that :func:`read` takes them back as they were.

    Examples
    --------
    >>> import tempfile, os
    >>> ds = Dataset.from_frame(pd.DataFrame({"bx": [8, 16], "GFLOP/s": [1.0, 2.0]}), metrics=["GFLOP/s"])
    >>> p = os.path.join(tempfile.mkdtemp(), "k.csv")
    >>> write(ds, p)
    >>> open(p).readline().strip()
    '# starchart: {"params": ["bx"], "metrics": ["GFLOP/s"], "objective": "GFLOP/s", "objective_higher_is_better": true}'
    >>> read(p).metrics
    ['GFLOP/s']
    """
    path = as_path(path)
    declared: dict[str, Any] = {"params": list(dataset.params), "metrics": list(dataset.metrics)}
    text = [p for p in dataset.params if len(dataset.frame) and _all_text(dataset.frame[p])]
    if text:  # parameters whose values are text, so that "01" and "1.0" do not read back as numbers
        declared["text"] = text
    if dataset.metrics:  # else a GFLOP/s objective beside a "time" column would read back as time, minimised
        objective = dataset.default_metric
        declared.update(objective=objective, **direction_entry(dataset, objective))
    units = dataset.meta.get("units")
    if isinstance(units, dict) and units:  # "runtime" alone says no unit: the axes said "runtime" after a round trip
        declared["units"] = {str(k): str(v) for k, v in units.items() if k in dataset.metrics}
    header = f"{HEADER_PREFIX} {json.dumps(declared)}\n"
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8", newline="") as handle:
        handle.write(header)
        dataset.to_frame().to_csv(handle, index=False)


def _all_text(column: pd.Series) -> bool:
    """Whether every value of ``column`` is a string (a numeric column holds none: not looked at one by one).

    >>> _all_text(pd.Series(["01", "1"])), _all_text(pd.Series(["a", 1])), _all_text(pd.Series([1, 2]))
    (True, False, False)
    """
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return False
    return all(isinstance(value, str) for value in column)


def _declared_columns(text: str, path: Path) -> tuple[dict[str, Any] | None, str, int]:
    """The parameters and metrics a ``# starchart:`` first line declares (and under ``"meta"`` the
    objective, ``minimize`` and units it names, as dataset metadata), the text after it, and how many lines
    were taken off (0 or 1)."""
    start, end = _first_line(text)
    if not text.startswith(HEADER_PREFIX, start):
        return None, text, 0
    skipped = text.count("\n", 0, start) + 1
    first, rest = text[start:end], text[end + 1:]
    try:
        declared = json.loads(first[len(HEADER_PREFIX):])
        columns = {key: [str(c) for c in declared[key]] for key in ("params", "metrics")}
        columns["text"] = [str(c) for c in declared.get("text", [])]
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"line {skipped}: a broken '{HEADER_PREFIX}' line", where=path,
                         hint='it must read # starchart: {"params": [...], "metrics": [...]}, or delete it') from exc
    meta: dict[str, Any] = {}
    units = declared.get("units")
    if isinstance(units, dict) and units:
        meta["units"] = {str(k): str(v) for k, v in units.items()}
    if declared.get("objective") is not None:
        meta["objective"] = str(declared["objective"])
        minimize = read_direction(declared.get(HIGHER_IS_BETTER), f"{path}, line {skipped}")
        if minimize is not None:
            meta["minimize"] = minimize
    return {**columns, "meta": meta}, rest, skipped


#: A number written with a decimal comma (``1,5``, ``-0,25``, ``3,1e-05``), or an integer.
_DECIMAL_COMMA = r"[+-]?(\d+,\d*|\d*,\d+|\d+)([eE][+-]?\d+)?"


def _read_decimal_commas(frame: pd.DataFrame, skip: list[str]) -> None:
    """Turn text columns of decimal-comma numbers into numbers, in place.

    Spreadsheets in locales with a decimal comma (German, French, ...) export CSV separated by
    semicolons and write 1.5 as ``1,5``; pandas keeps those as text, and a metric then reads as
    "not numeric". Only a column whose every value is such a number (one with a comma at least) changes.

    >>> f = pd.DataFrame({"a": ["1,5", "2"], "b": ["x,1", "2,0"]}); _read_decimal_commas(f, []); f["a"].tolist()
    [1.5, 2.0]
    """
    for name in frame.columns:
        column = frame[name]
        if name in skip or pd.api.types.is_numeric_dtype(column):
            continue
        given = column.dropna()
        if not len(given) or not given.map(lambda v: isinstance(v, str)).all():
            continue
        cells = given.str.strip()
        if cells.str.fullmatch(_DECIMAL_COMMA).all() and cells.str.contains(",", regex=False).any():
            frame[name] = pd.to_numeric(column.str.strip().str.replace(",", ".", regex=False))


def _guess_sep(text: str) -> str:
    start, end = _first_line(text)
    header = text[start:end]
    return next((s for s in (",", "\t", ";") if s in header), ",")


_LEADING_SPACE = re.compile(r"\s*")


def _first_line(text: str) -> tuple[int, int]:
    """Where the first line of ``text`` with more than whitespace starts and ends (its line break, or the end).

    Found in place: ``text.lstrip().split("\\n", 1)`` copied the whole text twice to read one line.

    >>> _first_line("\\n  a,b\\n1,2\\n"), _first_line("a,b")
    ((3, 6), (0, 3))
    """
    start = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]  # (\s* always matches)
    end = text.find("\n", start)
    return start, len(text) if end < 0 else end


#: How many characters of text are split into lines at a time (so a file of a billion blank lines is not a list
#: of a billion lines).
_BLOCK = 1 << 20


def _data_lines(text: str) -> list[int]:
    """The file line of each data row: pandas skips blank lines, so count them out.

    >>> _data_lines("a,b\\n\\n1,2\\n  \\n3,4")
    [3, 5]
    """
    numbers: list[int] = []
    done, start = 0, 0
    while start < len(text):
        cut = text.find("\n", start + _BLOCK)  # blocks end in a line break: their lines are the text's lines
        end = len(text) if cut < 0 else cut + 1
        block = text[start:end]
        lines = block.splitlines()
        if not block.isspace():
            numbers.extend(done + n for n, line in enumerate(lines, start=1) if line.strip())
        done, start = done + len(lines), end
    return numbers[1:]  # the first non-blank line is the header


class _Chunks:
    """``text`` read a piece at a time, for pandas: ``io.StringIO(text)`` held a copy of four bytes a character
    (5 GB for the 1.2 GB of a gzip file that unpacks to blank lines)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def read(self, size: int | None = -1) -> str:
        end = len(self.text) if size is None or size < 0 else self.pos + size
        piece = self.text[self.pos:end]
        self.pos += len(piece)
        return piece

    def readline(self, size: int | None = -1) -> str:
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end + 1
        if size is not None and size >= 0:
            end = min(end, self.pos + size)
        piece = self.text[self.pos:end]
        self.pos += len(piece)
        return piece

    def __iter__(self) -> Iterator[str]:
        return iter(self.readline, "")


def _engine(sep: str) -> str:
    """pandas' parser for ``sep``: its C parser takes one character (else it warned, then fell back to Python's)."""
    return "c" if len(sep) == 1 else "python"


# ---------------------------------------------------------------------- configurations to measure
def read_configs(path: str | Path, space: Space) -> list[dict[str, Any]]:
    """The configurations of a CSV file (one column per parameter of ``space``; other columns are ignored).

    Each cell becomes the space's own value that it spells (``01`` stays the text "01", ``1.0``
    is the integer 1), so a program is given the value as a sampled run would give it. A CSV
    that ``starchart export`` wrote (its first line ``# starchart: ...``) reads as it is.
    """
    text = read_text(path)
    skipped = 0
    start, end = _first_line(text)
    if text.startswith(HEADER_PREFIX, start):
        skipped = text.count("\n", 0, start) + 1
        text = text[end + 1:]
    try:  # as text: pandas would make 01 the number 1 and 1 of a float column 1.0; header=None: a row with
        # more fields than the header is an error, not an index column
        frame = pd.read_csv(_Chunks(text), sep=_guess_sep(text), header=None, dtype=str, keep_default_na=False,
                            skipinitialspace=True)
    except ValueError as exc:
        raise InputError(f"cannot read configurations ({str(exc).strip()})", where=path,
                         hint="give a CSV with one column per parameter, each line as many fields as the header") \
            from None
    frame.columns = [str(c).strip() for c in frame.iloc[0]]
    frame = frame.iloc[1:]
    repeated = repeated_names(frame.columns)
    if repeated:
        raise InputError(f"column(s) {repeated} appear more than once in the header", where=path,
                         hint="give every column its own name")
    present = set(frame.columns)
    missing = [name for name in space.names if name not in present]
    if missing:
        raise InputError(f"no column for parameter(s) {missing}", where=path,
                         hint=f"the space's parameters are {list(space.names)}")
    if frame.empty:
        raise InputError("no configurations: the file has a header but no rows", where=path,
                         hint="add one line per configuration")
    lines = [n + skipped for n in _data_lines(text)]
    configs = []
    for row, cells in enumerate(frame[list(space.names)].itertuples(index=False)):
        config = {}
        for parameter, cell in zip(space.parameters, cells):
            value = _space_value(parameter.values, cell)
            if value is _NOT_A_VALUE:
                said = f"no value for {parameter.name}" if not cell.strip() else \
                    f"{parameter.name} = {cell.strip()!r} is not one of its values"
                raise InputError(f"line {lines[row]}: {said}", where=path,
                                 hint=f"{parameter.name} takes {shorten(', '.join(map(str, parameter.values)), 120)};"
                                      " fix or delete that line")
            config[parameter.name] = value
        configs.append(config)
    inside = space.contains(configs)
    if not inside.all():
        row = int(inside.argmin())
        raise InputError(f"line {lines[row]}: configuration {configs[row]} is not in the space "
                         "(it breaks a restriction)", where=path,
                         hint="fix or delete that line; `starchart space SPACE_FILE` lists the values and restrictions")
    return configs


_NOT_A_VALUE = object()


def _space_value(values: tuple[Any, ...], cell: str) -> Any:
    """The value among ``values`` that a CSV ``cell`` spells, else ``_NOT_A_VALUE``.

    >>> _space_value((1, 2.5, "01"), " 1.0"), _space_value((1, "01"), "01"), _space_value((None, True), "true")
    (1, '01', True)
    """
    text = cell.strip()
    for spelt in (cell, text):
        for value in values:
            if spelt == str(value):
                return value
    lowered = text.lower()
    for value in values:  # true for True; none or an empty cell for None
        if (isinstance(value, bool) and lowered == str(value).lower()) or (value is None and lowered in ("", "none")):
            return value
    try:
        number = float(text)
    except ValueError:
        return _NOT_A_VALUE
    numbers = (v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and v == number)
    return next(numbers, _NOT_A_VALUE)
