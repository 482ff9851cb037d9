"""T4 auto-tuning results files (the common "Open Autotuning Results" JSON schema).

The file holds ``results``: one object per configuration with ``configuration``
(parameter values), ``times`` (``runtimes`` per repeat, ``compilation``, ``framework``,
``search_algorithm``, ``validation``, ``benchmark``), ``invalidity`` (``correct``,
``compile``, ``runtime``, ``timeout``, ``correctness`` or ``constraints``) and
``measurements`` (``{name, value, unit}``). Times are in ``metadata.timeunit``
(milliseconds unless said otherwise), a measurement's own ``unit`` taking precedence; starchart
keeps them in ms. The units the measurements state are kept in ``meta["units"]`` (the report
labels values with them), and ``metadata.objective_higher_is_better``, which starchart writes, in
``meta["minimize"]``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from starchart._util.files import as_path
from starchart._util.units import MS_METRICS, unit_of
from starchart._util.validation import is_number
from starchart.dataset import REPEATS_PREFIX, Dataset, numbers_spelled_as_text
from starchart.errors import InputError
from starchart.io.json_results import results_and_metadata
from starchart.io.kernel_tuner import (
    HIGHER_IS_BETTER,
    check_objective_present,
    direction_entry,
    finite_repeats,
    json_default,
    read_direction,
    write_text_file,
)

FORMAT = "t4"
OPTIONS: frozenset[str] = frozenset()
SCHEMA_VERSION = "1.0.0"

#: T4 invalidity → starchart status, and back.
INVALIDITY_STATUS: dict[str, str] = {"correct": "ok", "compile": "compile", "runtime": "runtime",
                                     "timeout": "timeout", "correctness": "wrong-answer",
                                     "constraints": "invalid"}
STATUS_INVALIDITY: dict[str, str] = {v: k for k, v in INVALIDITY_STATUS.items()}
#: T4 ``times`` fields → the Kernel Tuner names starchart uses for them.
TIMES_FIELDS: dict[str, str] = {"compilation": "compile_time", "compilation_time": "compile_time",
                                "benchmark": "benchmark_time", "framework": "framework_time",
                                "search_algorithm": "strategy_time", "validation": "verification_time"}
_TO_MS: dict[str, float] = {"milliseconds": 1.0, "miliseconds": 1.0, "ms": 1.0, "seconds": 1e3, "s": 1e3,
                            "microseconds": 1e-3, "us": 1e-3, "nanoseconds": 1e-6, "ns": 1e-6}
_ERROR_NAMES = {"compile": "CompilationFailedConfig", "runtime": "RuntimeFailedConfig",
                "invalid": "InvalidConfig"}
#: The columns starchart makes of each result beside its parameters and measurements.
_MADE = frozenset({"status", "reason"})


def sniff(head: str) -> bool:
    """Whether the start of a file looks like T4 results.

    Examples
    --------
    >>> sniff('{"results": [{"configuration": {"x": 1}, "invalidity": "correct"}]}')
    True
    """
    return '"results"' in head and '"configuration"' in head


def read(path: str | Path, text: str | None = None) -> Dataset:
    """Read a T4 results file (``text``: its content when already read; ``path`` then names it in errors).

    Metrics: every numeric measurement, ``time`` (the ``time`` measurement, else the
    mean of ``runtimes``) and the tuning costs under Kernel Tuner's names
    (``compile_time``, ``framework_time``...); ``runtimes`` become ``repeats_time``.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "t4.json")
    >>> _ = open(p, "w").write(json.dumps({"schema_version": "1.0.0", "results": [
    ...     {"configuration": {"x": 1}, "times": {"runtimes": [1.0, 3.0]}, "invalidity": "correct",
    ...      "correctness": 1, "measurements": []}]}))
    >>> read(p).y().tolist()
    [2.0]
    """
    path = as_path(path)
    doc, results, metadata = results_and_metadata(path, text, "results", "metadata", "T4 results")
    unit = str(metadata.get("timeunit", "milliseconds")).lower()
    if unit not in _TO_MS:
        raise InputError(f"unknown metadata.timeunit {unit!r}", where=f"{path}, key 'metadata.timeunit'",
                         hint=f"use one of: {', '.join(_TO_MS)}")
    named = _objective(results[0], path)
    objective = named or "time"
    rows, params, units = _rows(results, _TO_MS[unit], path)
    frame = pd.DataFrame.from_records(rows)
    metrics = [c for c in frame.columns if c not in params and c not in ("status", "reason")
               and not c.startswith(REPEATS_PREFIX)]
    if objective not in metrics and not (frame["status"] == "ok").any():
        # Every configuration failed, so no result holds a value; the objective is still what was
        # measured (without it the dataset would have no metric at all), as for a Kernel Tuner cache.
        frame[objective] = np.nan
        metrics.append(objective)
    meta: dict[str, Any] = {k: metadata[k] for k in ("device_name", "kernel_name", "problem_size", "tune_params")
                            if k in metadata}
    meta.update(source=str(path), format=FORMAT, objective=objective, timeunit=unit,
                schema_version=doc.get("schema_version"))
    minimize = read_direction(metadata.get(HIGHER_IS_BETTER), f"{path}, key 'metadata.{HIGHER_IS_BETTER}'")
    if minimize is not None:
        meta["minimize"] = minimize
    if units:
        meta["units"] = units
    for name in params:  # 16 and "16" are one setting in a results file
        frame[name] = numbers_spelled_as_text(frame[name])
    dataset = Dataset.from_frame(frame, params=params, metrics=metrics, meta=meta)
    if named is not None and named not in metrics:
        check_objective_present(dataset, named, f"{path}, key 'results[0].objectives'", "result")
    return dataset


def _rows(results: list[Any], to_ms: float, path: Path) -> tuple[list[dict[str, Any]], list[str], dict[str, str]]:
    """The rows, the parameters and the units the measurements state (after conversion)."""
    params: dict[str, None] = {}  # an ordered set: every configuration key seen
    units: dict[str, str] = {}
    first_unit: dict[str, int] = {}  # measurement name -> the result whose unit the column keeps
    rows = []
    for i, result in enumerate(results):
        where = f"{path}, key 'results[{i}]'"
        if not isinstance(result, dict) or not isinstance(result.get("configuration"), dict):
            raise InputError("result has no \"configuration\" object", where=where,
                             hint="every T4 result needs a configuration")
        config = result["configuration"]
        for name, value in config.items():
            if not _is_plain(value):  # a list or an object as a parameter value: no setting a kernel takes
                raise InputError(f"parameter {name!r} has the value {value!r}, not a number, text or boolean",
                                 where=f"{where}.configuration", hint="give each parameter one plain value")
        made = sorted(name for name in config if name in _MADE or name.startswith(REPEATS_PREFIX))
        if made:  # its values were overwritten by the status (or the repeats) of the result
            raise InputError(f"the parameter {made[0]!r} has the name of a column starchart makes",
                             where=f"{where}.configuration", hint="rename the parameter: one name, one column")
        params.update(dict.fromkeys(config))
        invalidity = result.get("invalidity", "correct")
        if not isinstance(invalidity, str) or invalidity not in INVALIDITY_STATUS:
            raise InputError(f"unknown invalidity {invalidity!r}", where=where,
                             hint=f"use one of: {', '.join(INVALIDITY_STATUS)}")
        row: dict[str, Any] = dict(config)
        status = INVALIDITY_STATUS[invalidity]
        row["status"], row["reason"] = status, ("" if status == "ok" else invalidity)
        for j, m in enumerate(_measurements(result.get("measurements"), where, row)):
            value = m.get("value")
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                name = m["name"]
                scale, stated = _measurement_scale(name, str(m.get("unit") or ""), to_ms)
                if stated and name not in units:
                    units[name], first_unit[name] = stated, i
                elif stated and units[name] != stated:
                    # One column, one unit: a time in "s" here and "ms" there is converted, anything else refused.
                    scale *= _time_factor(stated, units[name], name, f"{where}.measurements[{j}]",
                                          first_unit[name])
                row[name] = value * scale
            elif isinstance(value, str) and status != "ok":
                row["reason"] = value  # e.g. "RuntimeFailedConfig": more telling than "runtime"
        times = result.get("times") or {}
        if not isinstance(times, dict):
            raise InputError(f"\"times\" is a {type(times).__name__}, not an object", where=f"{where}.times",
                             hint='write times as {"runtimes": [...], "compilation": ...}, or leave it out')
        for name, column in TIMES_FIELDS.items():
            if isinstance(times.get(name), (int, float)):
                row[column] = times[name] * to_ms
        runtimes = times.get("runtimes")
        if isinstance(runtimes, list) and not all(is_number(r) for r in runtimes):
            raise InputError(f"runtimes {runtimes!r} are not all numbers", where=f"{where}.times.runtimes",
                             hint="give one number per run, in the metadata's time unit")
        if isinstance(runtimes, list) and runtimes:
            row[REPEATS_PREFIX + "time"] = [r * to_ms for r in runtimes]
            if "time" not in row and status == "ok":
                row["time"] = float(np.mean(row[REPEATS_PREFIX + "time"]))
        rows.append(row)
    return rows, list(params), units


def _objective(first: Any, path: Path) -> str | None:
    """The objective the first result names (``objectives[0]``), ``None`` when it names none (then: time)."""
    objectives = first.get("objectives") if isinstance(first, dict) else None
    if objectives is None or objectives == []:
        return None
    if not isinstance(objectives, list) or not isinstance(objectives[0], str) or not objectives[0]:
        raise InputError(f"objectives {objectives!r} is not a list of metric names", where=f"{path}, key "
                         "'results[0].objectives'", hint='e.g. "objectives": ["time"]')
    return objectives[0]


def _measurements(measurements: Any, where: str, row: dict[str, Any]) -> list[dict[str, Any]]:
    """A result's measurements, each an object with its own name (checked: the reader indexes them by name, so a
    name given twice, or one of the ``row``'s parameters or its status, kept one value and lost the other)."""
    if measurements is None:
        return []
    if not isinstance(measurements, list):
        raise InputError(f"\"measurements\" is a {type(measurements).__name__}, not a list", where=f"{where}.measurements",
                         hint='write [{"name": "time", "value": 1.5, "unit": "ms"}, ...]')
    seen: dict[str, int] = {}
    for j, m in enumerate(measurements):
        if not isinstance(m, dict) or not isinstance(m.get("name"), str) or not m["name"]:
            raise InputError(f"measurement {m!r} has no name", where=f"{where}.measurements[{j}]",
                             hint='each measurement is {"name": ..., "value": ..., "unit": ...}')
        name = m["name"]
        if name in seen:
            raise InputError(f"the measurement {name!r} appears twice (measurements[{seen[name]}] and [{j}])",
                             where=f"{where}.measurements[{j}]",
                             hint="keep one value per measurement name in a result, or rename one of them")
        if name in row or name.startswith(REPEATS_PREFIX):
            said = "a column starchart makes" if name in _MADE or name.startswith(REPEATS_PREFIX) else \
                "a parameter of the configuration"
            raise InputError(f"the measurement {name!r} has the name of {said}", where=f"{where}.measurements[{j}]",
                             hint="rename the measurement (or the parameter): one name, one column")
        seen[name] = j
    return measurements


def _is_plain(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _measurement_scale(name: str, unit: str, to_ms: float) -> tuple[float, str]:
    """The factor a measurement's value is read with, and the unit it then has ("" when none is said).

    A time without a unit is in ``metadata.timeunit`` (Kernel Tuner leaves the unit of ``time``
    empty); a stated unit is the value's own, whatever the metadata says. The times starchart
    keeps in ms (``time``...) are converted to ms; any other metric keeps its value and its unit
    (``time_s`` in "s" stays in seconds).

    >>> _measurement_scale("time", "", 1e3), _measurement_scale("time", "us", 1e3), _measurement_scale("time_s", "s", 1)
    ((1000.0, ''), (0.001, 'ms'), (1.0, 's'))
    """
    if not unit:
        return (to_ms, "") if name.startswith("time") else (1.0, "")
    if name in MS_METRICS and unit.lower() in _TO_MS:
        return _TO_MS[unit.lower()], "ms"
    return 1.0, unit


def _time_factor(unit: str, column_unit: str, name: str, where: str, first: int) -> float:
    """The factor from a measurement's ``unit`` to ``column_unit``, the unit its column took from result ``first``:
    both must be time units (``s``, ``ms``, ``us``...), else the values of one column would mix two units.

    >>> _time_factor("s", "ms", "t", "r.json", 0), _time_factor("ms", "milliseconds", "t", "r.json", 0)
    (1000.0, 1.0)
    """
    if unit.lower() in _TO_MS and column_unit.lower() in _TO_MS:
        return _TO_MS[unit.lower()] / _TO_MS[column_unit.lower()]
    raise InputError(f"the measurement {name!r} is in {unit!r} here but in {column_unit!r} in results[{first}]",
                     where=where, hint=f"give {name!r} one unit in every result (time units are converted: "
                                       f"{', '.join(_TO_MS)})")


def write_t4(ds: Dataset, path: str | Path) -> None:
    """Write ``ds`` as a T4 results file (schema 1.0.0, times in milliseconds).

    ``metadata`` also records ``device_name``, ``kernel_name``, ``problem_size`` and
    ``tune_params`` from ``ds.meta`` where known, and ``objective_higher_is_better``, so
    :func:`read` restores them. Each measurement's ``unit`` is the one ``ds.meta["units"]``
    records, else the one its name says (``time`` in ms, ``time_s`` in s, ``wattage`` in W),
    else empty.

    Examples
    --------
    >>> import tempfile, os
    >>> ds = Dataset.from_frame(pd.DataFrame({"x": [1, 2], "time": [0.5, None],
    ...                                       "status": ["ok", "timeout"]}))
    >>> p = os.path.join(tempfile.mkdtemp(), "t4.json")
    >>> write_t4(ds, p)
    >>> read(p).status.tolist()
    ['ok', 'timeout']
    """
    frame = ds.frame
    objective = ds.default_metric
    timing = {column: name for name, column in TIMES_FIELDS.items() if name != "compilation_time"}
    columns = {c: frame[c].tolist() for c in [*ds.params, *ds.metrics]}
    missing = {m: frame[m].isna().tolist() for m in ds.metrics}
    repeats = ds.repeats.get("time")
    repeat_lists = repeats.tolist() if repeats is not None else None
    statuses = frame["status"].tolist()
    reasons = frame["reason"].tolist()
    # Each metric's unit as recorded or as its name says; unknown ones are left empty (a "time_s" or a
    # "score" labelled "ms" would mislead every tool that reads the file).
    units = {m: unit_of(m, ds.meta) or "" for m in ds.metrics}
    results = []
    for i in range(len(frame)):
        status = statuses[i]
        times: dict[str, Any] = {}
        measurements = []
        for m in ds.metrics:
            value = columns[m][i]
            if m in timing:
                if not missing[m][i]:
                    times[timing[m]] = value
            elif not missing[m][i]:  # JSON has no NaN: leave unmeasured values out
                measurements.append({"name": m, "value": value, "unit": units[m]})
            elif m == objective and status != "ok":
                # Like Kernel Tuner: a failed objective holds the error, so the reason survives.
                reason = reasons[i] or _ERROR_NAMES.get(status, status)
                measurements.append({"name": m, "value": reason, "unit": ""})
        rep = repeat_lists[i] if repeat_lists is not None else None
        times["runtimes"] = finite_repeats(rep)
        results.append({
            "configuration": {p: columns[p][i] for p in ds.params},
            "times": times,
            "invalidity": STATUS_INVALIDITY[status],
            "correctness": 0 if status == "wrong-answer" else 1,
            "measurements": measurements,
            "objectives": [objective],
        })
    metadata: dict[str, Any] = {"timeunit": "milliseconds", **direction_entry(ds, objective)}
    metadata.update({k: ds.meta[k] for k in ("device_name", "kernel_name", "problem_size", "tune_params")
                     if k in ds.meta})
    text = json.dumps({"results": results, "schema_version": SCHEMA_VERSION, "metadata": metadata},
                      default=json_default)
    write_text_file(Path(path), text)

