"""Kernel Tuner cache files (``.json`` / ``.json.gz``): reading and writing.

A cache is a JSON object with ``device_name``, ``kernel_name``, ``problem_size``,
``tune_params_keys``, ``tune_params``, optional ``objective`` (a name; a list of names since
Kernel Tuner 1.5, whose first one :func:`read` takes as the dataset's objective) and ``cache``: one entry per
configuration, keyed by the parameter values joined by commas. Kernel Tuner writes the
file incrementally (header, then one ``"key": {...},`` line per configuration, closing
the braces only at the end), so a crashed run leaves an *unfinished* file; :func:`read`
recovers every complete entry from it and warns.

A failed configuration carries an error string (``"CompilationFailedConfig"``,
``"RuntimeFailedConfig"``, ``"InvalidConfig"``) in its objective/``time``, an
``__error__`` key, or (old versions) a time of at least ``1e20``. Kernel Tuner has no
marker for a timeout or a wrong answer (both are written as ``"RuntimeFailedConfig"``), so
the caches we write keep each failure's reason in a ``failure_reason`` key (e.g. ``"timed
out after 5 s"``), which Kernel Tuner passes through and :func:`read` takes as the reason.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from starchart._util.direction import lower_is_better
from starchart._util.files import as_path, nested_too_deep, read_text_cut
from starchart._util.text import shorten
from starchart.dataset import REPEATS_PREFIX, Dataset, numbers_spelled_as_text
from starchart.errors import InputError

FORMAT = "kernel_tuner"
OPTIONS: frozenset[str] = frozenset({"metrics"})

#: Kernel Tuner's error strings and the status each one means.
ERROR_STATUS: dict[str, str] = {
    "CompilationFailedConfig": "compile",
    "RuntimeFailedConfig": "runtime",
    "InvalidConfig": "invalid",
    "ErrorConfig": "runtime",
}
#: Our statuses as Kernel Tuner error strings (it has no timeout/wrong-answer; both become runtime).
STATUS_ERROR: dict[str, str] = {"compile": "CompilationFailedConfig", "runtime": "RuntimeFailedConfig",
                                "invalid": "InvalidConfig", "timeout": "RuntimeFailedConfig",
                                "wrong-answer": "RuntimeFailedConfig"}
#: Old Kernel Tuner versions stored failures as a huge time.
SENTINEL = 1e20
#: The entry key holding a failure's reason in the caches we write (Kernel Tuner has only its error names).
FAILURE_REASON = "failure_reason"
#: Header key of the caches we write: the timing fields filled in with 0 because the dataset had no such
#: metric (Kernel Tuner ignores it; :func:`read` drops those fields again instead of taking them as metrics).
#: In an entry, the same key lists the timing fields filled in with 0 for that configuration alone (a
#: failed one has no compile time, but Kernel Tuner's simulation mode reads the field from every entry).
PLACEHOLDERS = "starchart_placeholders"
#: Header key saying which way the objective is better, as Kernel Tuner's ``objective_higher_is_better``
#: option names it (its caches do not record it: without it a maximised "score" would read back minimised).
HIGHER_IS_BETTER = "objective_higher_is_better"
#: Per-entry fields that are neither parameters nor metrics.
NOT_METRICS = frozenset({"timestamp", "times", "__error__", FAILURE_REASON, PLACEHOLDERS})
#: Bookkeeping timings Kernel Tuner's simulation mode reads from every entry (ms) when it has a time limit.
TIMING_FIELDS = ("compile_time", "verification_time", "benchmark_time")
_CACHE_KEY = re.compile(r'"cache"\s*:\s*\{')


class UnfinishedCacheWarning(UserWarning):
    """A cache file was left unfinished (e.g. by a crashed run); its complete entries were loaded."""


def sniff(head: str) -> bool:
    """Whether the start of a file looks like a Kernel Tuner cache.

    Examples
    --------
    >>> sniff('{"device_name": "A100", "tune_params_keys": ["x"]')
    True
    """
    return '"tune_params_keys"' in head or ('"cache"' in head and '"tune_params"' in head)


# ---------------------------------------------------------------------- reading
def read(path: str | Path, text: str | None = None, metrics: list[str] | None = None) -> Dataset:
    """Read a Kernel Tuner cache file, finished or not.

    Parameters
    ----------
    path:
        The cache file (``.json`` or ``.json.gz``).
    text:
        Its text, if already read.
    metrics:
        Keep only these metrics (default: every numeric field of the entries other
        than parameters, ``times`` and ``timestamp``).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "c.json")
    >>> _ = open(p, "w").write('{"tune_params_keys": ["x"], "tune_params": {"x": [1, 2]},'
    ...     '"cache": {"1": {"x": 1, "time": 0.5, "times": [0.4, 0.6]},'
    ...     '"2": {"x": 2, "time": "CompilationFailedConfig"}}}')
    >>> ds = read(p)
    >>> ds.status.tolist(), ds.y().tolist()[:1], ds.repeats["time"][0]
    (['ok', 'compile'], [0.5], [0.4, 0.6])
    """
    path = as_path(path)
    text = read_text_cut(path)[0] if text is None else text  # a cache cut off mid-run: its complete entries
    doc, unfinished = _parse(text, path)
    if not isinstance(doc, dict) or not isinstance(doc.get("cache"), dict):
        raise InputError("not a Kernel Tuner cache: no \"cache\" object", where=path,
                         hint="give a cache file written by kernel_tuner.tune_kernel(cache=...)")
    keys = doc.get("tune_params_keys")
    if keys is None and isinstance(doc.get("tune_params"), dict):
        keys = list(doc["tune_params"])
    if not keys:
        raise InputError("cache has no \"tune_params_keys\"", where=path,
                         hint="the header of the cache file is incomplete; re-export it")
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise InputError(f"\"tune_params_keys\" is {keys!r}: expected a list of parameter names",
                         where=f"{path}, \"tune_params_keys\"",
                         hint='write the names in tune_params order, e.g. "tune_params_keys": ["block_size_x", "tile"]')
    entries = doc["cache"]
    if not entries:
        raise InputError("cache has no configurations" + (" (unfinished file)" if unfinished else ""),
                         where=path, hint="the tuning run stopped before measuring anything")
    if unfinished:
        warn_unfinished(path, len(entries))
    objectives = _objectives(doc.get("objective"), path)
    placeholders = doc.get(PLACEHOLDERS) if isinstance(doc.get(PLACEHOLDERS), list) else []
    frame, metric_names, ignored = _entries_to_frame(entries, list(keys), objectives, path, placeholders)
    primary = objectives[0] if objectives else "time"
    if primary not in metric_names and not (frame["status"] == "ok").any():
        # Every configuration failed: no entry holds a value, but the objective is still what was measured
        # (without it the dataset would have no metric at all, and every command would say so instead).
        frame[primary] = np.nan
        metric_names.append(primary)
    in_entries = list(metric_names)
    if metrics is not None:
        unknown = [m for m in metrics if m not in metric_names]
        if unknown:
            raise InputError(f"no numeric field(s) {unknown} in the cache entries", where=path,
                             hint=f"the metrics are: {', '.join(metric_names)}")
        metric_names = list(metrics)
    meta = {k: doc[k] for k in ("device_name", "kernel_name", "problem_size", "tune_params") if k in doc}
    if objectives:  # Kernel Tuner 1.5 writes a list (several with objectives={...}); older versions a string
        meta["objective"] = objectives[0]
        if len(objectives) > 1:
            meta["objectives"] = objectives
        minimize = read_direction(doc.get(HIGHER_IS_BETTER), f"{path}, \"{HIGHER_IS_BETTER}\"")
        if minimize is not None:
            meta["minimize"] = minimize
    meta.update(source=str(path), format=FORMAT, unfinished=unfinished)
    if ignored:
        meta["ignored_fields"] = ignored
    dataset = Dataset.from_frame(frame, params=list(keys), metrics=metric_names, meta=meta)
    if objectives and primary not in in_entries:
        check_objective_present(dataset, primary, f"{path}, \"objective\"", "cache entry")
    return dataset


def check_objective_present(dataset: Dataset, objective: str, where: str, holder: str) -> None:
    """Warn that the ``objective`` a file names is in none of its ``holder`` s, naming the metric modelled instead
    (:attr:`Dataset.default_metric`'s fallback), or refuse the file when it holds no metric at all.

    Modelling another metric without a word gave a tree of, say, time for a file tuned for energy.
    """
    from starchart.io.load import NothingToModelWarning  # here: load imports this module

    if not dataset.metrics:
        raise InputError(f"the objective {objective!r} is in no {holder}, and no other field holds a number to "
                         "model", where=where, hint="re-export the file with its measurements")
    instead, held = dataset.default_metric, shorten(", ".join(map(repr, dataset.metrics)), 120)
    warnings.warn(f"{where}: the objective {objective!r} is in no {holder}; modelling {instead!r} by default instead "
                  f"(the file's metrics: {held}); name one of them as the objective",
                  NothingToModelWarning, stacklevel=4)


def warn_unfinished(path: str | Path, recovered: int) -> None:
    """Warn that ``path`` is an unfinished cache of which ``recovered`` complete entries were read."""
    entries = "entry" if recovered == 1 else "entries"
    warnings.warn(f"{path}: unfinished Kernel Tuner cache (its run did not complete, or the file was cut off); "
                  f"recovered {recovered} complete {entries}", UnfinishedCacheWarning, stacklevel=4)


def parse_cache(text: str, path: str | Path) -> tuple[Any, bool]:
    """Parse a cache's ``text``, finished or not; returns ``(document, unfinished)``.

    An unfinished file (cut off by a crash or a truncated download) gives its header and its
    complete entries under ``"cache"``; other JSON damage is an :class:`InputError` naming the line.
    Readers that want the header only (``starchart space``) use this so that they accept exactly
    the files :func:`read` accepts.

    >>> parse_cache('{"tune_params": {"x": [1, 2]}, "cache": {"1": {"x": 1, "time": 0.5},', "c.json")
    ({'tune_params': {'x': [1, 2]}, 'cache': {'1': {'x': 1, 'time': 0.5}}}, True)
    """
    return _parse(text, Path(path))


def _parse(text: str, path: Path) -> tuple[Any, bool]:
    """Parse the cache; returns ``(document, unfinished)``."""
    try:
        return json.loads(text), False
    except json.JSONDecodeError as exc:
        first_error = exc
    except RecursionError:
        raise nested_too_deep(path) from None
    match = _CACHE_KEY.search(text)
    if match is None:
        raise _json_error(first_error, path)
    try:
        header = json.loads(text[:match.start()].rstrip().rstrip(",") + "}")
    except json.JSONDecodeError:
        raise _json_error(first_error, path) from None
    entries, complete = _scan_entries(text, match.end(), path)
    if complete:  # the entries were fine, so the break is after the cache object
        raise _json_error(first_error, path)
    header["cache"] = entries
    return header, True


def _scan_entries(text: str, pos: int, path: Path) -> tuple[dict[str, Any], bool]:
    """Decode ``"key": {...}`` entries from ``pos``; returns (entries, whether "}" closed them).

    A decoding error on the last non-blank line is a cut-off write (unfinished file);
    anywhere else the file is broken and the error names the line.
    """
    decoder = json.JSONDecoder()
    entries: dict[str, Any] = {}
    ws = re.compile(r"\s*")
    n = len(text)
    while True:
        pos = ws.match(text, pos).end()
        if pos >= n:
            return entries, False
        if text[pos] == "}":
            return entries, True
        try:
            key, pos = decoder.raw_decode(text, pos)
            pos = ws.match(text, pos).end()
            if pos >= n:
                return entries, False
            if text[pos] != ":":
                raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
            pos = ws.match(text, pos + 1).end()
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            if "\n" in text[exc.pos:].strip():
                raise _json_error(exc, path) from None
            return entries, False
        # Last one wins, like json.loads and Kernel Tuner itself.
        entries[key] = value
        pos = ws.match(text, pos).end()
        if pos < n and text[pos] == ",":
            pos += 1
        elif pos < n and text[pos] != "}":
            exc = json.JSONDecodeError("Expecting ',' delimiter", text, pos)
            if "\n" in text[pos:].strip():
                raise _json_error(exc, path)
            return entries, False


def _json_error(exc: json.JSONDecodeError, path: Path) -> InputError:
    return InputError(f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                      where=f"{path}, line {exc.lineno}",
                      hint="repair the file or re-export it; an unfinished cache is only recoverable "
                           "when the damage is at its end")


def read_direction(higher_is_better: Any, where: str) -> bool | None:
    """``minimize`` from a file's ``objective_higher_is_better`` (``None`` when it is absent).

    >>> read_direction(True, "c.json"), read_direction(None, "c.json")
    (False, None)
    """
    if higher_is_better is None:
        return None
    if not isinstance(higher_is_better, bool):
        raise InputError(f"{HIGHER_IS_BETTER} is {higher_is_better!r}: expected true or false", where=where,
                         hint=f'write "{HIGHER_IS_BETTER}": true for a metric to maximise (GFLOP/s), false for '
                              "one to minimise (time), or delete it")
    return not higher_is_better


def direction_entry(ds: Dataset, objective: str) -> dict[str, bool]:
    """``{"objective_higher_is_better": ...}`` for ``objective`` as ``ds`` records or names it, for the files
    we write: their readers would otherwise judge the direction by the name alone."""
    return {HIGHER_IS_BETTER: not lower_is_better(objective, ds.meta)}


def _objectives(objective: Any, path: Path) -> list[str]:
    """The header's ``objective`` as a list of names: a string (Kernel Tuner before 1.5), a list (1.5), or none."""
    if objective is None:
        return []
    if isinstance(objective, str):
        return [objective]
    if isinstance(objective, list) and all(isinstance(o, str) for o in objective):
        return list(dict.fromkeys(objective))
    raise InputError(f"the cache header's \"objective\" is {objective!r}: expected a metric name or a list of them",
                     where=f"{path}, \"objective\"",
                     hint='write e.g. "objective": "time" (or ["time"], as Kernel Tuner 1.5 does), or delete the line')


def _entries_to_frame(entries: dict[str, Any], keys: list[str], objectives: list[str], path: Path,
                      placeholders: list[str] = ()) -> tuple[pd.DataFrame, list[str], list[str]]:
    """Entries as a frame with status/reason/repeats; returns (frame, metrics, ignored fields)."""
    for key, entry in entries.items():
        if not isinstance(entry, dict):
            raise InputError(f"cache entry {key!r} is not an object", where=f"{path}, key {key!r}",
                             hint="each cache entry must be a JSON object of parameter and metric values")
    raw = pd.DataFrame.from_records(list(entries.values()), columns=None)
    raw.index = pd.RangeIndex(len(raw))
    entry_keys = list(entries.keys())
    # Whole-frame steps, and a column at a time only where the values are not all numbers: a cache of 100,000
    # parameters took minutes, a pandas lookup per parameter (and lists searched per column) adding up.
    dtypes = dict(zip(raw.columns, raw.dtypes))
    absent = [p for p in keys if p not in dtypes]
    if absent:
        raise InputError(f"cache entry lacks parameter {absent[0]!r}", where=f"{path}, key {entry_keys[0]!r}",
                         hint="the entry does not match tune_params_keys; remove it or re-export")
    holes = raw[keys].isna().to_numpy()
    if holes.any():
        column = int(np.argmax(holes.any(axis=0)))
        bad = entry_keys[int(np.argmax(holes[:, column]))]
        raise InputError(f"cache entry lacks parameter {keys[column]!r}", where=f"{path}, key {bad!r}",
                         hint="the entry does not match tune_params_keys; remove it or re-export")
    for p in [p for p in keys if not pd.api.types.is_numeric_dtype(dtypes[p])]:  # (bool is numeric too)
        listed = _containers(raw[p])
        if listed.any():
            bad = entry_keys[int(np.argmax(listed))]
            raise InputError(f"parameter {p!r} has the value {raw[p].iloc[int(np.argmax(listed))]!r}: starchart "
                             "needs one number, string or boolean per parameter", where=f"{path}, key {bad!r}",
                             hint=f"give {p!r} scalar values in tune_params (e.g. split a tuple-valued parameter "
                                  "into one parameter per element) and tune again")
    for p in [p for p in keys if not pd.api.types.is_numeric_dtype(dtypes[p])]:
        column = raw[p]
        spelled = numbers_spelled_as_text(column)  # 16 and "16" are one setting (hand-edited, or merged caches)
        if spelled is not column:
            raw[p] = spelled
    _check_unique_keys(raw, keys, entry_keys, path)

    status = pd.Series("ok", index=raw.index, dtype=object)
    reason = pd.Series("", index=raw.index, dtype=object)
    parameters = set(keys)
    candidates = [c for c in raw.columns if c not in parameters and c not in NOT_METRICS]
    is_error_string: dict[str, np.ndarray] = {}

    # Precedence (lowest first, later overrides): sentinel time, error strings, __error__.
    failure_fields = list(dict.fromkeys(["time", *objectives]))
    for name in failure_fields:
        if name in raw.columns and not pd.api.types.is_bool_dtype(raw[name]):
            huge = (pd.to_numeric(raw[name], errors="coerce") >= SENTINEL).to_numpy()
            status[huge], reason[huge] = "runtime", f"{name} >= {SENTINEL:g} (failure sentinel)"
            is_error_string[name] = huge
    _flag_non_numbers(raw, failure_fields, entry_keys, status, reason, is_error_string, path)
    for col in candidates:
        if pd.api.types.is_numeric_dtype(raw[col]):  # (pandas 3 may give all-string columns "str" dtype)
            continue
        strings = raw[col].map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
        if not strings.any():
            continue
        values = raw[col].where(strings, "")
        known = values.isin(list(ERROR_STATUS)).to_numpy()
        # Any string in the objective or time means failure; elsewhere only the known names do.
        flagged = strings if col in failure_fields else known
        if flagged.any():
            status[flagged] = values[flagged].map(lambda s: ERROR_STATUS.get(s, "runtime"))
            reason[flagged] = values[flagged]
            is_error_string[col] = is_error_string.get(col, np.zeros(len(raw), bool)) | flagged
    if "__error__" in raw.columns:
        has = raw["__error__"].notna().to_numpy()
        errs = raw["__error__"][has].astype(str)
        status[has] = errs.map(lambda s: ERROR_STATUS.get(s, "runtime"))
        reason[has] = errs
    if FAILURE_REASON in raw.columns:  # the reason we wrote beside Kernel Tuner's error name
        given = (raw[FAILURE_REASON].map(lambda v: isinstance(v, str) and v != "") & (status != "ok")).to_numpy()
        reason[given] = raw[FAILURE_REASON][given]

    valid = (status == "ok").to_numpy()
    filled = raw[PLACEHOLDERS] if PLACEHOLDERS in raw.columns else None
    frame = raw[keys].copy()
    metric_names: list[str] = []
    ignored: list[str] = []
    for col in candidates:
        values = raw[col]
        if col in is_error_string:
            values = values.mask(is_error_string[col])
        if pd.api.types.is_bool_dtype(values):
            ignored.append(col)
            continue
        mixed = not pd.api.types.is_numeric_dtype(values)
        numeric = pd.to_numeric(values.astype(object), errors="coerce") if mixed else values
        not_number = (numeric.isna() & values.notna()).to_numpy()
        if mixed:  # True/False among numbers is not a measurement
            not_number = not_number | values.map(lambda v: isinstance(v, bool)).to_numpy(dtype=bool)
        if (not_number & valid).any():
            ignored.append(col)  # e.g. strings or lists from an observer: not a metric
            continue
        numeric = numeric.mask(not_number).astype("float64")
        if col in placeholders and (numeric.fillna(0) == 0).all():
            continue  # a zero we wrote where the dataset had no such timing, not a measurement
        if filled is not None:  # zeros we wrote where one configuration had no such timing
            numeric = numeric.mask(_listing(filled, col))
        frame[col] = numeric
        metric_names.append(col)
    frame["status"] = status.astype(str)
    frame["reason"] = reason.astype(str)
    if "times" in raw.columns and "time" in metric_names:
        frame[REPEATS_PREFIX + "time"] = raw["times"].where(raw["times"].map(lambda v: isinstance(v, list)),
                                                            None)
    return frame, metric_names, ignored


def _is_measurement(value: Any) -> bool:
    """Whether ``value`` can stand in an objective: a number, a string (an error name) or nothing (JSON null).

    >>> [_is_measurement(v) for v in (1.5, "InvalidConfig", None, True, [1, 2], {"a": 1})]
    [True, True, True, False, False, False]
    """
    return value is None or isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _flag_non_numbers(raw: pd.DataFrame, fields: list[str], entry_keys: list[str], status: pd.Series,
                      reason: pd.Series, flagged: dict[str, np.ndarray], path: Path) -> None:
    """Mark the entries whose objective or ``time`` is no number (``true``, a list, an object) as failed, in place.

    Such a value is no measurement, and leaving it in the column made the whole column "not a metric": the
    objective was dropped and another metric modelled without a word. A warning names how many and the first.
    """
    first: tuple[int, str] | None = None
    count = np.zeros(len(raw), dtype=bool)
    for name in fields:
        if name not in raw.columns:
            continue
        column = raw[name]
        if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
            continue  # numbers (and NaN for a missing value) only: nothing to look at one by one
        odd = np.fromiter((not _is_measurement(v) for v in column), dtype=bool, count=len(column))
        if not odd.any():
            continue
        reasons = column[odd].map(lambda v, name=name: f"{name} is {shorten(repr(v), 40)}: not a number")
        status[odd], reason[odd] = "runtime", reasons
        flagged[name] = flagged.get(name, np.zeros(len(raw), bool)) | odd
        count |= odd
        at = int(np.argmax(odd))
        if first is None or at < first[0]:
            first = (at, reasons.iloc[0])
    if first is not None:
        from starchart.io.load import NothingToModelWarning  # here: load imports this module

        n = int(count.sum())
        entries = "entry holds" if n == 1 else "entries hold"
        warnings.warn(f"{path}: {n} cache {entries} no number in the objective or time, read as failed "
                      f"(first: key {entry_keys[first[0]]!r}, {first[1]}); re-measure them or fix the file",
                      NothingToModelWarning, stacklevel=5)


def _containers(column: pd.Series) -> np.ndarray:
    """Where ``column`` holds a list or a dict (a numeric column holds none: not looked at value by value).

    >>> _containers(pd.Series([1, [2, 3]], dtype=object)).tolist(), _containers(pd.Series([1.5, 2.0])).tolist()
    ([False, True], [False, False])
    """
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return np.zeros(len(column), dtype=bool)
    return np.fromiter((isinstance(v, (list, dict)) for v in column), dtype=bool, count=len(column))


def _listing(lists: pd.Series, name: str) -> pd.Series:
    """Where the lists in ``lists`` (an entry's ``starchart_placeholders``; other values: none) name ``name``.

    >>> _listing(pd.Series([["compile_time"], None, []]), "compile_time").tolist()
    [True, False, False]
    """
    return pd.Series([isinstance(names, list) and name in names for names in lists], index=lists.index, dtype=bool)


def _check_unique_keys(raw: pd.DataFrame, keys: list[str], entry_keys: list[str], path: Path) -> None:
    """Refuse two entries holding one configuration, naming their cache keys.

    Dataset.from_frame would refuse them too, but as "rows 0 and 1", which a user cannot find in
    the file (e.g. a hand-merged cache with keys ``"16,1"`` and ``"16,1.0"``).
    """
    if len(raw) < 2:
        return
    try:  # the parameters' own frame, not subset=keys: pandas looks each column up in that list (quadratic)
        dup = raw[keys].duplicated(keep=False).to_numpy()
    except TypeError:  # unhashable parameter values: refused by the caller before this
        return
    if not dup.any():
        return
    first = int(np.argmax(dup))
    same = (raw[keys] == raw[keys].iloc[first]).all(axis=1).to_numpy() & dup
    named = [repr(entry_keys[i]) for i in np.flatnonzero(same)[:5]]
    config = {p: raw[p].iloc[first] for p in keys}
    config = {p: v.item() if isinstance(v, np.generic) else v for p, v in config.items()}
    raise InputError(f"cache entries {', '.join(named[:-1])} and {named[-1]} hold the same configuration {config}",
                     where=f"{path}, key {named[0]}",
                     hint="keep one entry per configuration (delete the others), e.g. the one measured last")


# ---------------------------------------------------------------------- writing
def write_cache(ds: Dataset, path: str | Path, *, objective: str | None = None,
                device_name: str | None = None, kernel_name: str | None = None,
                problem_size: Any = None) -> None:
    """Write ``ds`` as a Kernel Tuner 1.5 cache file, usable with ``simulation_mode=True``.

    Each entry holds the parameters, every metric, ``times`` (the per-repeat times, or
    ``[time]``), and the timing fields Kernel Tuner's simulation mode reads (``compile_time``,
    ``verification_time``, ``benchmark_time``; 0 where unknown, and a timing the dataset lacks
    is listed in the header's ``starchart_placeholders``, one a configuration lacks (a failed
    one's compile time) in that entry's, so that :func:`read` does not take it for a
    measurement). The header's ``objective_higher_is_better`` records the objective's direction,
    so that a maximised metric reads back maximised whatever its name. Failed configurations carry the Kernel Tuner error string in the objective
    and ``time`` (``timeout`` and ``wrong-answer`` become ``RuntimeFailedConfig``) and
    their reason, if any, in ``failure_reason``; so does a valid configuration without an
    objective value (a program that printed ``nan``), as ``"no <objective> value"``.
    Header fields default to ``ds.meta`` (``problem_size`` to 1, names to ``"unknown"``);
    pass the same ``kernel_name``/``problem_size`` to ``tune_kernel``.

    Examples
    --------
    >>> import tempfile, os
    >>> ds = Dataset.from_frame(pd.DataFrame({"x": [1, 2], "time": [0.5, 0.7]}))
    >>> p = os.path.join(tempfile.mkdtemp(), "c.json")
    >>> write_cache(ds, p)
    >>> read(p).y().tolist()
    [0.5, 0.7]
    """
    path = as_path(path)
    meta = ds.meta
    objective = objective or ds.default_metric
    if objective not in ds.metrics:  # else every configuration would be written as failed ("no ... value")
        raise InputError(f"objective {objective!r} is not a metric of the dataset", where=f"{path}, objective",
                         hint="choose one of: " + (", ".join(map(str, ds.metrics)) or "none (the dataset has no metrics)"))
    tune_params = _tune_params(ds)
    header = {
        "device_name": device_name or meta.get("device_name", "unknown"),
        "kernel_name": kernel_name or meta.get("kernel_name", "unknown"),
        "problem_size": problem_size if problem_size is not None else meta.get("problem_size", 1),
        "tune_params_keys": list(ds.params),
        "tune_params": tune_params,
        "objective": objective,
        **direction_entry(ds, objective),
    }
    placeholders = [name for name in TIMING_FIELDS if name not in ds.metrics]
    if placeholders:
        header[PLACEHOLDERS] = placeholders
    header["cache"] = {}
    lines = [json.dumps(header, indent="", default=json_default)[:-3]]  # open "cache": {
    frame = ds.frame
    params = {p: frame[p].tolist() for p in ds.params}  # tolist(): Python scalars, so str() matches KT
    metrics = {m: frame[m].tolist() for m in ds.metrics}
    missing = {m: frame[m].isna().tolist() for m in ds.metrics}  # JSON has no NaN, Kernel Tuner no missing values
    repeats = frame[REPEATS_PREFIX + "time"].tolist() if REPEATS_PREFIX + "time" in frame.columns else None
    statuses = frame["status"].tolist()
    reasons = frame["reason"].tolist()
    for i in range(len(frame)):
        values = [params[p][i] for p in ds.params]
        entry: dict[str, Any] = dict(zip(ds.params, values))
        for m in ds.metrics:
            if not missing[m][i]:
                entry[m] = metrics[m][i]
        error, reason = STATUS_ERROR.get(statuses[i]), reasons[i]
        if error is None and objective not in entry:  # e.g. a program printed "nan": KT has no valid entry without it
            error, reason = STATUS_ERROR["runtime"], f"no {objective} value"
        if error is not None:
            entry[objective] = error
            entry["time"] = error
            if reason and reason not in ERROR_STATUS:  # e.g. "timed out after 5 s", which KT cannot say
                entry[FAILURE_REASON] = reason
        else:
            rep = repeats[i] if repeats is not None else None
            entry["times"] = finite_repeats(rep) if isinstance(rep, (list, tuple, np.ndarray)) else \
                ([entry["time"]] if "time" in entry else [])
        filled = [name for name in TIMING_FIELDS if name not in entry and name not in placeholders]
        for name in TIMING_FIELDS:
            entry.setdefault(name, 0)
        if filled:  # Kernel Tuner needs a number; read() turns these back into "not measured"
            entry[PLACEHOLDERS] = filled
        key = ",".join(str(v) for v in values)
        lines.append("\n" + json.dumps({key: entry}, default=json_default)[1:-1] + ",")
    text = "".join(lines)
    text = text.removesuffix(",") + "}\n}"
    write_text_file(path, text)


def _tune_params(ds: Dataset) -> dict[str, list[Any]]:
    """The file's ``tune_params`` if it covers every row, else the values seen per parameter."""
    given = ds.meta.get("tune_params")
    seen = {p: pd.unique(ds.frame[p]).tolist() for p in ds.params}
    if isinstance(given, dict) and list(given) == list(ds.params) and all(
            set(seen[p]) <= set(given[p]) for p in ds.params):
        return {p: list(given[p]) for p in ds.params}
    return {p: sorted(seen[p], key=lambda v: (str(type(v)), v)) for p in ds.params}


def finite_repeats(repeats: Any) -> list[Any]:
    """The repeats of one configuration as a list, without NaN (which JSON cannot hold).

    >>> finite_repeats([1.0, float("nan")]), finite_repeats(None)
    ([1.0], [])
    """
    if not isinstance(repeats, (list, tuple, np.ndarray)):
        return []
    return [r for r in repeats if not (isinstance(r, float) and math.isnan(r))]  # math: 20 times np.isnan's speed


def json_default(value: Any) -> Any:
    """``json.dumps`` fallback: numpy scalars and arrays as Python values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


def write_text_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, gzip-compressed when the name ends in ``.gz``."""
    if path.suffix == ".gz":

        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
