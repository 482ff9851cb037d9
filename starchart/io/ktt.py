"""KTT (Kernel Tuning Toolkit) JSON output files.

The file holds ``Metadata`` (``Device``, ``TimeUnit``...) and ``Results``: per configuration
a ``Configuration`` list of ``{Name, Value}`` pairs, a ``Status``, durations and overheads
in ``TimeUnit`` (usually microseconds), and ``ComputationResults`` per kernel launch with
``CompilationData`` (registers, local/shared/constant memory) and ``ProfilingData``
counters. starchart reports ``time`` (``TotalDuration``) and overheads in **ms**; the
compilation data and counters become metric columns under their KTT names. The launch becomes
``threads_per_block`` (``LocalSize``) and ``threads`` (``GlobalSize``, multiplied by
``LocalSize`` when ``Metadata.GlobalSizeType`` is ``"CUDA"``: then it counts blocks).
"""

from __future__ import annotations

import json  # noqa: F401  (used by the doctest examples)
import math
from pathlib import Path
from typing import Any

import pandas as pd

from starchart._util.files import as_path
from starchart._util.text import shorten
from starchart._util.validation import is_number
from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.io.json_results import results_and_metadata

FORMAT = "ktt"
OPTIONS: frozenset[str] = frozenset()

#: KTT result status → starchart status.
KTT_STATUS: dict[str, str] = {"Ok": "ok", "CompilationFailed": "compile", "ComputationFailed": "runtime",
                              "ValidationFailed": "wrong-answer", "DeviceLimitsExceeded": "invalid"}
_TO_MS: dict[str, float] = {"Nanoseconds": 1e-6, "Microseconds": 1e-3, "Milliseconds": 1.0, "Seconds": 1e3}
#: Per-configuration times (in TimeUnit) kept as metrics, converted to ms.
_OVERHEADS = ("DataMovementOverhead", "SearcherOverhead", "ValidationOverhead", "TotalOverhead")


def sniff(head: str) -> bool:
    """Whether the start of a file looks like KTT output.

    Examples
    --------
    >>> sniff('{"Metadata": {"KttVersion": "2.1.0"}, "Results": []}')
    True
    """
    return '"KttVersion"' in head or ('"Results"' in head and '"ComputationResults"' in head)


def read(path: str | Path, text: str | None = None) -> Dataset:
    """Read a KTT output file (``text``: its content when already read; ``path`` then names it in errors).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "ktt.json")
    >>> _ = open(p, "w").write(json.dumps({"Metadata": {"TimeUnit": "Microseconds", "KttVersion": "2"},
    ...     "Results": [{"Configuration": [{"Name": "B", "Value": 8}], "Status": "Ok",
    ...                  "TotalDuration": 1500.0, "KernelName": "k",
    ...                  "ComputationResults": [{"KernelFunction": "k", "Duration": 1500.0,
    ...                      "CompilationData": {"RegistersCount": 30}}]}]}))
    >>> ds = read(p)
    >>> ds.y("time").tolist(), ds.y("RegistersCount").tolist()
    ([1.5], [30.0])
    """
    path = as_path(path)
    _, results, metadata = results_and_metadata(path, text, "Results", "Metadata", "KTT output")
    unit = metadata.get("TimeUnit", "Microseconds")
    if not isinstance(unit, str) or unit not in _TO_MS:
        raise InputError(f"unknown Metadata.TimeUnit {unit!r}", where=f"{path}, key 'Metadata.TimeUnit'",
                         hint=f"use one of: {', '.join(_TO_MS)}")
    to_ms = _TO_MS[unit]
    # Several kernels per configuration: prefix their columns so they do not collide.
    functions = {c.get("KernelFunction") for i, r in enumerate(results) if isinstance(r, dict)
                 for c in _computations(r, f"{path}, key 'Results[{i}]'")}
    multi = len(functions) > 1
    grid_in_blocks = metadata.get("GlobalSizeType") == "CUDA"
    rows = [_row(r, i, to_ms, multi, path, grid_in_blocks) for i, r in enumerate(results)]
    # Every parameter name seen, in order; a result lacking one is caught by from_frame.
    params = list(dict.fromkeys(pair["Name"] for r in results for pair in r["Configuration"]))
    frame = pd.DataFrame.from_records(rows)
    metrics = [c for c in frame.columns if c not in params and c not in ("status", "reason")]
    meta = {"source": str(path), "format": FORMAT, "device_name": metadata.get("Device"),
            "kernel_name": results[0].get("KernelName"), "objective": "time", "timeunit": unit,
            "ktt_version": metadata.get("KttVersion")}
    return Dataset.from_frame(frame, params=params, metrics=metrics,
                              meta={k: v for k, v in meta.items() if v is not None})


def _row(result: Any, i: int, to_ms: float, multi: bool, path: Path, grid_in_blocks: bool = False) -> dict[str, Any]:
    """One result as a row; ``grid_in_blocks``: ``GlobalSize`` counts blocks (KTT's CUDA convention), not threads."""
    where = f"{path}, key 'Results[{i}]'"
    if not isinstance(result, dict) or not isinstance(result.get("Configuration"), list):
        raise InputError("result has no \"Configuration\" list", where=where,
                         hint="every KTT result needs its configuration")
    pairs = result["Configuration"]
    if not all(isinstance(p, dict) and isinstance(p.get("Name"), str) and "Value" in p for p in pairs):
        raise InputError("configuration entries need \"Name\" and \"Value\"", where=where,
                         hint="re-export the file with KTT")
    row: dict[str, Any] = {}
    for pair in pairs:  # a name given twice: the last value won, and the result read as another configuration
        if pair["Name"] in row:
            raise InputError(f"the parameter {pair['Name']!r} appears twice in the configuration (values "
                             f"{row[pair['Name']]!r} and {pair['Value']!r})", where=where,
                             hint="give each parameter once per configuration; re-export the file with KTT")
        row[pair["Name"]] = pair["Value"]
    plain = (str, int, float, bool)
    for name, value in row.items():
        if not isinstance(value, plain):  # a list or an object: no value a kernel parameter takes
            raise InputError(f"parameter {name!r} has the value {value!r}, not a number or text", where=where,
                             hint="re-export the file with KTT")
    params = set(row)
    core = sorted(params & {"status", "reason", "time"})
    if core:  # the columns every dataset has: the parameter's values were overwritten
        raise InputError(f"the parameter {core[0]!r} has the name of a column starchart makes of the result",
                         where=where, hint="rename the parameter in the file: one name, one column")

    def put(name: str, value: Any) -> None:
        """Set a column starchart derives (an overhead, the launch), unless a parameter bears its name (``threads``
        is a name a kernel's parameter may have: its value is the configuration's, not to be overwritten)."""
        if name not in params:
            row[name] = value

    ktt_status = result.get("Status", "Ok")
    status = KTT_STATUS.get(ktt_status, "runtime") if isinstance(ktt_status, str) else "runtime"
    row["status"], row["reason"] = status, ("" if status == "ok" else str(ktt_status))
    # Failed runs report a duration of 0: that is no measurement.
    total = result.get("TotalDuration")
    if total is not None and not is_number(total):
        raise InputError(f"TotalDuration {total!r} is not a number", where=where, hint="re-export the file with KTT")
    row["time"] = total * to_ms if status == "ok" and total is not None else None
    for name in _OVERHEADS:
        if isinstance(result.get(name), (int, float)):
            put(name, result[name] * to_ms)
    for j, comp in enumerate(_computations(result, where)):
        prefix = f"{comp.get('KernelFunction')}." if multi else ""
        at = f"{where}.ComputationResults[{j}]"
        if multi and status == "ok" and is_number(comp.get("Duration")):
            put(prefix + "Duration", comp["Duration"] * to_ms)
        if isinstance(comp.get("Overhead"), (int, float)):
            put(prefix + "Overhead", comp["Overhead"] * to_ms)
        # The launch: threads per block (LocalSize) and in all (GlobalSize, in blocks under GlobalSizeType CUDA).
        block, grid = _volume(comp.get("LocalSize"), f"{at}.LocalSize"), _volume(comp.get("GlobalSize"), f"{at}.GlobalSize")
        if block is not None:
            put(prefix + "threads_per_block", block)
        if grid is not None and (block is not None or not grid_in_blocks):
            put(prefix + "threads", grid * block if grid_in_blocks else grid)
        made = _MADE | {prefix + name for name in _LAUNCH_COLUMNS}
        for name, value in (comp.get("CompilationData") or {}).items():
            row[_own_name(prefix + name, params, made, "CompilationData entry", f"{at}.CompilationData")] = value
        for counter in (comp.get("ProfilingData") or {}).get("Counters") or []:
            row[_own_name(prefix + counter["Name"], params, made, "profiling counter",
                          f"{at}.ProfilingData")] = counter["Value"]
    return row


#: The columns starchart makes of each computation result (prefixed by its kernel function when there are several).
_LAUNCH_COLUMNS = ("Duration", "Overhead", "threads_per_block", "threads")
#: The columns starchart makes of a result beside its parameters.
_MADE = frozenset({"status", "reason", "time", *_OVERHEADS, *_LAUNCH_COLUMNS})


def _own_name(name: str, params: set[str], made: set[str] | frozenset[str], what: str, where: str) -> str:
    """``name``, a column the file names (a compilation datum, a counter), refused when it is a parameter or a
    column starchart makes: one overwrote the other (a counter ``time`` replaced TotalDuration).

    Refused rather than renamed: KTT names these after the profiler's metrics (``dram_read_transactions``), so
    only an edited file meets this, and a renamed column would bear a name nobody gave it.
    """
    if name in params or name in made:
        said = "a parameter of the configuration" if name in params else "a column starchart makes of the result"
        raise InputError(f"the {what} {name!r} has the name of {said}", where=where,
                         hint=f"rename the {what} in the file: one name, one column")
    return name


def _computations(result: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """A result's ``ComputationResults``, checked where the reader relies on their shape (KTT writes objects
    whose compilation data, profiling data and counters are objects with names)."""
    computations = result.get("ComputationResults") or []
    if not isinstance(computations, list):
        raise InputError("ComputationResults is not a list", where=where, hint="re-export the file with KTT")
    for j, comp in enumerate(computations):
        problem = _computation_problem(comp)
        if problem is not None:
            raise InputError(f"ComputationResults[{j}] {problem}", where=where, hint="re-export the file with KTT")
    return computations


def _computation_problem(comp: Any) -> str | None:
    """What is wrong with one computation result, or ``None``."""
    if not isinstance(comp, dict):
        return "is not an object"
    if not isinstance(comp.get("KernelFunction"), (str, type(None))):
        return "has a KernelFunction that is not a name"
    compilation = comp.get("CompilationData") or {}
    if not isinstance(compilation, dict) or not all(is_number(v) or isinstance(v, str) for v in compilation.values()):
        return "has CompilationData that is not an object of numbers"
    profiling = comp.get("ProfilingData") or {}
    counters = profiling.get("Counters") or [] if isinstance(profiling, dict) else None
    if not isinstance(counters, list) or not all(
            isinstance(c, dict) and isinstance(c.get("Name"), str) and "Value" in c for c in counters):
        return "has ProfilingData whose Counters are not objects with a Name and a Value"
    return None



#: A launch size beyond this (2^63 threads) is no launch: a damaged file (and past 1e308 no float holds it).
MAX_LAUNCH = 2**63


def _volume(size: Any, where: str = "size") -> float | None:
    """``X × Y × Z`` of a KTT size object (missing axes count 1), or None when there is none (or it is not an
    object); an axis that is not a count (a boolean, text, a negative or absurd number) is an error.

    >>> _volume({"X": 32, "Y": 4}), _volume(None)
    (128.0, None)
    >>> _volume({"X": 2**40, "Y": 2**40}, "r.json, GlobalSize")
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: r.json, GlobalSize: the launch size {'X': 1099511627776, 'Y': 1099511627776} is no \
count: its X, Y and Z must be numbers of 0 or more, their product at most 2**63 (hint: give each axis the number of \
threads (or blocks) along it; re-export the file with KTT)
    """
    if not isinstance(size, dict):
        return None
    axes = [size.get(a, 1) for a in "XYZ"]
    if all(is_number(a) and 0 <= a <= MAX_LAUNCH for a in axes):  # 10**300 overflowed float()
        volume = math.prod(axes)
        if volume <= MAX_LAUNCH:
            return float(volume)
    raise InputError(f"the launch size {shorten(repr(size), 60)} is no count: its X, Y and Z must be numbers of 0 "
                     "or more, their product at most 2**63", where=where,
                     hint="give each axis the number of threads (or blocks) along it; re-export the file with KTT")
