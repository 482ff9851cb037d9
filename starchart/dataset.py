"""One in-memory table of measured configurations: :class:`Dataset`.

A dataset is a :class:`pandas.DataFrame` with one row per configuration holding

- the parameter columns (``params``, in the order the tuner used),
- the metric columns (``metrics``, always ``float64``; ``NaN`` where not measured),
- ``status``: one of :data:`STATUSES` (``"ok"`` for a valid measurement),
- ``reason``: why a configuration failed (``""`` when it did not),
- optionally ``repeats_<metric>``: the per-repeat values (lists) behind a metric,
  e.g. Kernel Tuner's ``times`` behind ``time``,

plus ``meta``: what is known about where it came from (``source``, ``format``,
``device_name``, ``kernel_name``, ``problem_size``, ``objective``, ``tune_params``...).

Readers for the file formats live in :mod:`starchart.io`; use :func:`starchart.load`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from starchart._util.direction import is_rate_name
from starchart._util.plugins import load_reference
from starchart._util.text import shorten
from starchart.errors import InputError, say

#: The status of a configuration: measured fine, or why it has no valid measurement.
STATUSES: tuple[str, ...] = ("ok", "compile", "runtime", "timeout", "invalid", "wrong-answer")

#: Column names taken as metrics when none are named (case-insensitive).
DEFAULT_METRIC_NAMES: tuple[str, ...] = ("time", "runtime", "wattage", "power", "energy")

#: Prefix of the columns holding per-repeat measurement lists.
REPEATS_PREFIX = "repeats_"
#: What :meth:`Dataset.to_csv`, :meth:`~Dataset.to_kernel_tuner` and :meth:`~Dataset.to_t4` write with: the
#: format registry of ``starchart.io``, a layer above this one, so it is named here and loaded when called.
_WRITE = "starchart.io.formats:write"

#: How to name the metrics columns, for each reader.
_METRICS_EXAMPLE = say("metrics=[...]", "--metrics a,b")

#: Columns every dataset frame holds besides its parameters and metrics (no parameter may take their names).
BOOKKEEPING_COLUMNS: tuple[str, ...] = ("status", "reason")


@dataclass(repr=False, eq=False)
class Dataset:
    """Measured configurations of one kernel on one device.

    Build one with :func:`starchart.load` (from a file) or :meth:`from_frame`
    (from a DataFrame, validated); the fields are public but should be treated as
    read-only.

    Attributes
    ----------
    frame:
        One row per configuration: parameter columns, metric columns, ``status``,
        ``reason`` and optional ``repeats_<metric>`` columns.
    params:
        Parameter column names, in order.
    metrics:
        Metric column names (float64).
    meta:
        Provenance: ``source``, ``format``, ``device_name``, ``kernel_name``,
        ``problem_size``, ``objective``, ``tune_params``, ``unfinished``... where known.

    Examples
    --------
    >>> df = pd.DataFrame({"bx": [16, 32, 64], "time": [2.0, 1.0, None],
    ...                    "status": ["ok", "ok", "compile"]})
    >>> ds = Dataset.from_frame(df, metrics=["time"])
    >>> ds.params, ds.metrics, len(ds)
    (['bx'], ['time'], 3)
    >>> ds.valid.tolist()
    [True, True, False]
    >>> ds.ok().y().tolist()
    [2.0, 1.0]
    """

    frame: pd.DataFrame
    params: list[str]
    metrics: list[str]
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Cheap structural check only; the value checks live in from_frame.
        missing = [c for c in [*self.params, *self.metrics, *BOOKKEEPING_COLUMNS] if c not in self.frame.columns]
        if missing:
            raise InputError(f"dataset frame lacks column(s) {missing}", where=self.meta.get("source"),
                             hint="build datasets with Dataset.from_frame or starchart.load")

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        params: Sequence[str] | None = None,
        metrics: Sequence[str] | None = None,
        status: str | Sequence[str] | pd.Series | None = None,
        meta: dict[str, Any] | None = None,
        *,
        lines: Sequence[int] | None = None,
    ) -> Dataset:
        """Validate ``df`` and wrap it as a :class:`Dataset`.

        Parameters
        ----------
        df:
            One row per configuration.
        params:
            Parameter columns; default: every column that is not a metric, ``status``,
            ``reason`` or ``repeats_*``.
        metrics:
            Metric columns; default: with ``params`` given, every other column but ``status``,
            ``reason`` and ``repeats_*``; else the columns named like :data:`DEFAULT_METRIC_NAMES`
            (any case) or like a rate or an efficiency (``GFLOP/s``, ``TFLOPS/J``).
        status:
            A column name, or one status per row; default: the ``status`` column if
            there is one, else every row ``"ok"``.
        meta:
            Provenance; ``meta["source"]`` (a file) is named in errors.
        lines:
            The file line of each row, so errors can name lines instead of rows.

        Raises
        ------
        InputError
            Unknown columns, a non-numeric metric, missing parameter values, an unknown
            status, or a configuration that appears twice.

        Examples
        --------
        >>> Dataset.from_frame(pd.DataFrame({"a": [1, 1], "time": [1.0, 2.0]}))
        Traceback (most recent call last):
        ...
        starchart.errors.InputError: configuration {'a': 1} appears more than once (rows 0 and 1) (hint: keep one measurement per configuration, e.g. their mean)
        """
        meta = dict(meta or {})
        where = meta.get("source")
        if not isinstance(df, pd.DataFrame):
            raise InputError(f"from_frame takes a pandas DataFrame, got {type(df).__name__}", where=where or "df",
                             hint="wrap it first: Dataset.from_frame(pd.DataFrame(...))")
        # one name given as a string means that column, not its letters
        params = [params] if isinstance(params, str) else params
        metrics = [metrics] if isinstance(metrics, str) else metrics
        row_name = _row_namer(df.index, lines)
        columns = [str(c) for c in df.columns]
        if len(set(columns)) != len(columns):
            dup = pd.Index(columns)[pd.Index(columns).duplicated()][0]
            raise InputError(f"column {dup!r} appears more than once", where=where, hint="rename one of them")
        df = df.set_axis(columns, axis=1)

        inferred = metrics is None and params is not None  # every other column taken as a metric
        metrics = _pick_metrics(columns, params, metrics, where)
        if params is None:
            params = [c for c in columns
                      if c not in metrics and c not in BOOKKEEPING_COLUMNS and not c.startswith(REPEATS_PREFIX)]
        params = [str(p) for p in params]
        present = set(columns)  # a list here made a 100,000-column table quadratic
        for name in [*params, *metrics]:
            if name not in present:
                raise InputError(f"no column named {name!r}", where=where,
                                 hint=f"the columns are: {', '.join(columns)}")
        overlap = set(params) & set(metrics)
        if overlap:
            raise InputError(f"column(s) {sorted(overlap)} named both parameter and metric", where=where,
                             hint="name each column once")
        if not params:
            raise InputError("no parameter columns", where=where,
                             hint="a dataset needs at least one tuning parameter column")

        out = df[params].copy()
        holes = out.isna().to_numpy()  # all columns at once: a column at a time cost 4 s on 100,000 columns
        if holes.any():
            row, column = np.argwhere(holes.T)[0][::-1]  # the first parameter with a hole, its first row
            raise InputError(f"parameter {params[column]!r} has no value in {row_name(int(row))}",
                             where=where, hint="every configuration needs a value for every parameter")
        for m in metrics:
            out[m] = _numeric_metric(df[m], m, where, row_name,
                                     inferred=f"{m!r} was taken as a metric because params= did not name it; "
                                              "pass metrics=[...] as well" if inferred else None)
        out["status"] = _statuses(df, status, where, row_name)
        out["reason"] = (df["reason"].astype(object).fillna("").astype(str) if "reason" in df.columns
                         else pd.Series("", index=df.index, dtype=str))
        for m in metrics:
            if REPEATS_PREFIX + m in df.columns:
                out[REPEATS_PREFIX + m] = df[REPEATS_PREFIX + m]
        _check_unique(out, params, where, row_name)
        return cls(frame=out, params=params, metrics=list(metrics), meta=meta)

    # ------------------------------------------------------------------ views
    @property
    def status(self) -> pd.Series:
        """Per-configuration status: one of :data:`STATUSES`."""
        return self.frame["status"]

    @property
    def reason(self) -> pd.Series:
        """Why a configuration failed (``""`` where it did not)."""
        return self.frame["reason"]

    @property
    def valid(self) -> pd.Series:
        """Boolean Series, True where ``status == "ok"``."""
        return (self.frame["status"] == "ok").rename("valid")

    @property
    def X(self) -> pd.DataFrame:
        """The parameter columns."""
        return self.frame[self.params]

    @property
    def repeats(self) -> dict[str, pd.Series]:
        """Per-repeat value lists by metric, for the metrics that have them."""
        return {m: self.frame[REPEATS_PREFIX + m] for m in self.metrics
                if REPEATS_PREFIX + m in self.frame.columns}

    def repeat_spread(self, metric: str) -> float | None:
        """How far the repeats of one configuration disagree: the median over the valid configurations
        with two or more repeats of (largest − smallest) / median repeat; ``None`` without such repeats.

        A spread near the differences between configurations means the data cannot rank them.

        >>> ds = Dataset.from_frame(pd.DataFrame({"x": [1, 2], "time": [1.0, 2.0],
        ...                                       "repeats_time": [[0.9, 1.0, 1.1], [2.0, 2.0, 2.0]]}))
        >>> round(ds.repeat_spread("time"), 3)   # 0.2 / 1.0 and 0.0 / 2.0
        0.1
        """
        column = self.repeats.get(metric)
        if column is None:
            return None
        spreads = []
        for values in column[(self.frame["status"] == "ok").to_numpy()]:
            finite = np.asarray(values if isinstance(values, (list, tuple, np.ndarray)) else [], dtype=float)
            finite = finite[np.isfinite(finite)]
            if finite.size >= 2 and np.median(finite) > 0:
                spreads.append((finite.max() - finite.min()) / np.median(finite))
        return float(np.median(spreads)) if spreads else None

    @property
    def default_metric(self) -> str:
        """The metric to optimise by default: the file's objective, else ``time``, else the first.

        Examples
        --------
        >>> Dataset.from_frame(pd.DataFrame({"a": [1], "power": [9.0], "time": [1.0]})).default_metric
        'time'
        """
        objective = self.meta.get("objective")
        if objective in self.metrics:
            return objective
        if "time" in self.metrics:
            return "time"
        if not self.metrics:
            raise InputError("dataset has no metrics", where=self.meta.get("source"),
                             hint=f"load it with {_METRICS_EXAMPLE}")
        return self.metrics[0]

    def failure_reasons(self, top: int = 3) -> dict[str, list[tuple[str, int]]]:
        """The most common reasons of each failure status (largest status first), as (reason, count).

        Examples
        --------
        >>> ds = Dataset.from_frame(pd.DataFrame({"a": [1, 2, 3], "time": [1.0, None, None],
        ...                                       "status": ["ok", "runtime", "runtime"],
        ...                                       "reason": ["", "no match", "no match"]}))
        >>> ds.failure_reasons()
        {'runtime': [('no match', 2)]}
        """
        failed = self.status != "ok"
        reasons: dict[str, list[tuple[str, int]]] = {}
        for status in self.status[failed].value_counts().index:
            text = self.reason[self.status == status].astype(str).str.strip()
            common = text[text != ""].value_counts().head(top)
            reasons[str(status)] = [(str(reason), int(n)) for reason, n in common.items()]
        return reasons

    def y(self, metric: str | None = None) -> np.ndarray:
        """The values of ``metric`` (default: :attr:`default_metric`) as a float array."""
        metric = self.default_metric if metric is None else metric
        if metric not in self.metrics:
            raise InputError(f"no metric named {metric!r}", where=self.meta.get("source"),
                             hint=f"the metrics are: {', '.join(self.metrics)}")
        return self.frame[metric].to_numpy(dtype=float)

    def __len__(self) -> int:
        return len(self.frame)

    def __repr__(self) -> str:
        n_valid = int(self.valid.sum())
        parts = [f"{len(self)} configurations, {n_valid} valid",
                 f"params={_short(self.params)}", f"metrics={_short(self.metrics)}"]
        for key in ("kernel_name", "device_name", "source"):
            if self.meta.get(key):
                parts.append(f"{key}={str(self.meta[key])!r}")
        return f"Dataset({', '.join(parts)})"

    # ------------------------------------------------------------------ subsets
    def _take(self, frame: pd.DataFrame) -> Dataset:
        return replace(self, frame=frame, meta=dict(self.meta))

    def ok(self) -> Dataset:
        """The valid configurations only (row labels kept)."""
        return self._take(self.frame[self.valid.to_numpy()])

    def sample(self, n: int, seed: int | None = None) -> Dataset:
        """``n`` configurations drawn at random without replacement.

        Examples
        --------
        >>> ds = Dataset.from_frame(pd.DataFrame({"a": range(10), "time": range(10)}))
        >>> len(ds.sample(3, seed=1))
        3
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise InputError(f"the number of configurations to sample must be an integer, got {n!r}",
                             where=self.meta.get("source") or "n", hint="e.g. sample(200, seed=1)")
        if not 0 <= n <= len(self):
            raise InputError(f"cannot sample {n} configurations from {len(self)}",
                             where=self.meta.get("source"), hint=f"ask for at most {len(self)}")
        return self._take(self.frame.sample(n=n, random_state=seed))

    # ------------------------------------------------------------------ export
    def to_frame(self, repeats: bool = False) -> pd.DataFrame:
        """A copy of the table: params, metrics, status, reason (and ``repeats_*`` if asked)."""
        cols = [*self.params, *self.metrics, *BOOKKEEPING_COLUMNS]
        if repeats:
            cols += [c for c in self.frame.columns if c.startswith(REPEATS_PREFIX)]
        return self.frame[cols].copy()

    def to_csv(self, path: str | Path) -> None:
        """Write params, metrics, status and reason as CSV (gzip if ``path`` ends in ``.gz``).

        Per-repeat lists are not written. The first line names the parameters and
        metrics, so :func:`starchart.load` reads the file back as it was; see
        :func:`starchart.io.csv.write`.
        """
        load_reference(_WRITE)(self, path, "csv")

    def to_kernel_tuner(self, path: str | Path, **options: Any) -> None:
        """Write a Kernel Tuner cache file; see :func:`starchart.io.kernel_tuner.write_cache`."""
        load_reference(_WRITE)(self, path, "kernel_tuner", **options)

    def to_t4(self, path: str | Path, **options: Any) -> None:
        """Write a T4 results file; see :func:`starchart.io.t4.write_t4`."""
        load_reference(_WRITE)(self, path, "t4", **options)


# ---------------------------------------------------------------------- validation helpers
def _row_namer(index: pd.Index, lines: Sequence[int] | None) -> Callable[[int], str]:
    """Return a function naming row ``i`` (a position) as a file line or a row label."""
    if lines is not None:
        return lambda i: f"line {lines[i]}"
    return lambda i: f"row {index[i]}"


def _pick_metrics(columns: list[str], params: Sequence[str] | None, metrics: Sequence[str] | None,
                  where: str | None) -> list[str]:
    if metrics is not None:
        return [str(m) for m in metrics]
    if params is not None:
        return [c for c in columns if c not in params and c not in BOOKKEEPING_COLUMNS
                and not c.startswith(REPEATS_PREFIX)]
    # a rate (GFLOP/s beside a time) is a measurement too: taken for a parameter it would split the tree
    found = [c for c in columns if c.lower() in DEFAULT_METRIC_NAMES or is_rate_name(c)]
    if not found:
        raise InputError("cannot tell which columns are metrics", where=where,
                         hint=f"name the measured columns ({_METRICS_EXAMPLE}) among: {', '.join(columns)}")
    return found


def _numeric_metric(col: pd.Series, name: str, where: str | None, row_name,
                    inferred: str | None = None) -> pd.Series:
    """``col`` as float64; a value that is not a number is an InputError naming it.

    ``inferred``: the hint to give when the column was taken as a metric without being named one.
    """
    if pd.api.types.is_bool_dtype(col):
        raise InputError(f"metric column {name!r} holds true/false values, not numbers", where=where,
                         hint=inferred or "metrics must be numbers")
    if pd.api.types.is_numeric_dtype(col):
        return col.astype("float64")
    as_num = pd.to_numeric(col, errors="coerce")
    bad = (as_num.isna() & col.notna()).to_numpy()
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"metric column {name!r} is not numeric: {col.iloc[i]!r} in {row_name(i)}",
                         where=where, hint=inferred or "metrics must be numbers; leave failed measurements empty")
    return as_num.astype("float64")


def _statuses(df: pd.DataFrame, status: Any, where: str | None, row_name) -> pd.Series:
    if status is None:
        status = "status" if "status" in df.columns else None
    if status is None:
        return pd.Series("ok", index=df.index, dtype=str)
    if isinstance(status, str):
        if status not in df.columns:
            every = (f"to give every row the status {status!r}, pass status=[{status!r}] * len(df); "
                     if status in STATUSES else "")
            raise InputError(f"no status column named {status!r}", where=where,
                             hint=f"{every}the columns are: {', '.join(map(str, df.columns))}")
        values = df[status]
    else:
        status = list(status)
        if len(status) != len(df):
            raise InputError(f"{len(status)} statuses given for {len(df)} rows", where=where or "status",
                             hint="give one status per row, or the name of the status column")
        values = pd.Series(status, index=df.index)
    # "OK" and "Timeout" from a spreadsheet mean what "ok" and "timeout" do
    values = values.astype(str).str.strip().str.lower()
    bad = (~values.isin(STATUSES)).to_numpy()
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"unknown status {values.iloc[i]!r} in {row_name(i)}", where=where,
                         hint=f"use one of: {', '.join(STATUSES)}")
    return values.astype(str)


#: A number as a JSON writer or a person spells it in text: ASCII digits, an optional sign, point and exponent.
_NUMBER_TEXT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def numbers_spelled_as_text(column: pd.Series) -> pd.Series:
    """``column`` with numbers written as text (``"16"``) made numbers, when it mixes them with numbers: in a
    file of measurements (a Kernel Tuner cache, T4 results) one setting written two ways was two values and two
    configurations (two entries of one setting are then a repeated configuration, as they are). A column with
    other text is left as it is. Only the readers of such files call this: a space may list 1 and "1" as two
    settings, and its measurements keep them apart.

    >>> numbers_spelled_as_text(pd.Series([16, "32", "4.5"], dtype=object)).tolist()
    [16.0, 32.0, 4.5]
    >>> numbers_spelled_as_text(pd.Series([16, "16", "big"], dtype=object)).tolist()
    [16, '16', 'big']
    >>> numbers_spelled_as_text(pd.Series(["01", "1"], dtype=object)).tolist()  # all text: settings named so
    ['01', '1']
    """
    values = column.tolist()
    kinds = set(map(type, values))
    if str not in kinds or not kinds & {int, float} or not kinds <= {int, float, str}:
        return column  # only text, or other things too: text values ("01") stay text
    converted: list[Any] = []
    for value in values:
        if isinstance(value, str):
            if not _NUMBER_TEXT.fullmatch(value):
                return column
            number: float = int(value) if value.lstrip("+-").isdigit() else float(value)
            if not np.isfinite(number):
                return column
            value = number
        converted.append(value)
    return pd.Series(converted, index=column.index, name=column.name)


def _check_unique(frame: pd.DataFrame, params: list[str], where: str | None, row_name) -> None:
    # the parameters' own frame, not subset=params: pandas looks each column up in that list (quadratic)
    dup = frame[params].duplicated(keep=False).to_numpy()
    if not dup.any():
        return
    first = int(np.argmax(dup))
    config = {p: _plain(frame[p].iloc[first]) for p in params}
    same = (frame[params] == frame[params].iloc[first]).all(axis=1).to_numpy()
    # row_name gives e.g. "line 7"; list the places as "lines 3 and 7".
    places = [row_name(int(i)).split(" ", 1) for i in np.flatnonzero(same)[:5]]
    listed = f"{places[0][0]}s {', '.join(p[1] for p in places[:-1])} and {places[-1][1]}"
    # a wide table's configuration would fill the screen: its first parameters name it
    raise InputError(f"configuration {shorten(str(config), 300)} appears more than once ({listed})", where=where,
                     hint="keep one measurement per configuration, e.g. their mean")


def _short(names: list[str], limit: int = 8) -> str:
    """A list for display, shortened: profilers can add dozens of metric columns."""
    if len(names) <= limit:
        return str(names)
    return str(names[:limit])[:-1] + f", ... (+{len(names) - limit})]"


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value (for readable messages and JSON)."""
    return value.item() if isinstance(value, np.generic) else value
