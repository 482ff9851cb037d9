"""CSV tables of measured configurations: one row per configuration, one column per
parameter or metric, with an optional ``status`` (and ``reason``) column.

Which columns are metrics is the user's call: pass ``metrics=[...]``. Without it, columns
named ``time``, ``runtime``, ``wattage``, ``power`` or ``energy`` (any case) are taken as
the metrics, and a file with none of them is an error asking for ``metrics=``. All other
columns (except ``status``/``reason``) are parameters unless ``params=[...]`` says otherwise.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.io.files import read_text

FORMAT = "csv"
OPTIONS: frozenset[str] = frozenset({"metrics", "params", "sep"})


def sniff(head: str) -> bool:
    """Whether the start of a file looks like a delimited table (not JSON).

    Examples
    --------
    >>> sniff("ppb,tpp,runtime\\n13,13,0.09\\n"), sniff('{"a": 1}')
    (True, False)
    """
    first = head.lstrip().split("\n", 1)[0]
    return not first.startswith(("{", "[")) and ("," in first or "\t" in first or ";" in first)


def read(path: str | Path, text: str | None = None, metrics: list[str] | None = None,
         params: list[str] | None = None, sep: str | None = None) -> Dataset:
    """Read a CSV file (plain or ``.gz``).

    Parameters
    ----------
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
    path = Path(path)
    text = read_text(path) if text is None else text
    sep = sep or _guess_sep(text)
    try:
        frame = pd.read_csv(io.StringIO(text), sep=sep, skipinitialspace=True)
    except pd.errors.ParserError as exc:
        raise InputError(f"cannot parse CSV: {exc}", where=path,
                         hint="every line needs the same number of fields as the header") from exc
    if frame.empty:
        raise InputError("CSV file has a header but no rows", where=path, hint="add measured configurations")
    frame.columns = [str(c).strip() for c in frame.columns]
    meta = {"source": str(path), "format": FORMAT}
    return Dataset.from_frame(frame, params=params, metrics=metrics, meta=meta, lines=_data_lines(text))


def _guess_sep(text: str) -> str:
    header = text.lstrip().split("\n", 1)[0]
    return next((s for s in (",", "\t", ";") if s in header), ",")


def _data_lines(text: str) -> list[int]:
    """The file line of each data row: pandas skips blank lines, so count them out."""
    numbers = [n for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    return numbers[1:]  # the first non-blank line is the header
