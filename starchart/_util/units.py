"""Units of metrics: what a file said, else what the name says.

starchart keeps times in milliseconds throughout (every reader converts ``time`` to ms), so
``time`` is in ms; other names say their unit by convention (``wattage`` in W) or by a suffix
(``time_s``, ``kernel_time_us``). A file that states units (T4 ``measurements``) records them in
``meta["units"]``, which wins. The report labels values with these units and the T4 writer
labels its measurements with them, so that a metric measured in seconds is not called ms.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["KNOWN_UNITS", "MS_METRICS", "is_never_negative", "unit_of", "with_unit"]

#: Units of metrics whose names say what they are (times are kept in ms throughout).
KNOWN_UNITS: dict[str, str] = {"time": "ms", "time_ms": "ms", "compile_time": "ms", "power": "W",
                               "wattage": "W", "ps_power": "W", "energy": "J", "gflops": "GFLOP/s",
                               "gflop/s": "GFLOP/s", "gbs": "GB/s", "gb/s": "GB/s"}
#: Metrics starchart holds in milliseconds whatever unit a file gave them in (readers convert them).
MS_METRICS = frozenset({"time", "time_ms", "compile_time", "verification_time", "benchmark_time",
                        "framework_time", "strategy_time"})
#: A time-like name ending in its unit: ``time_s``, ``kernel_time_us``, ``latency_ns``.
_TIME_SUFFIX = re.compile(r"(?:time|duration|latency|runtime)_(ms|s|us|ns)$", re.IGNORECASE)


def unit_of(metric: str | None, meta: Mapping[str, Any] | None = None) -> str | None:
    """The unit of ``metric``: as ``meta["units"]`` records it, else as its name says; None if unknown.

    >>> unit_of("time"), unit_of("time_s"), unit_of("wattage"), unit_of("score")
    ('ms', 's', 'W', None)
    >>> unit_of("energy", {"units": {"energy": "mJ"}})
    'mJ'
    """
    if metric is None:
        return None
    given = (meta or {}).get("units")
    if isinstance(given, Mapping) and given.get(metric):
        return str(given[metric])
    name = str(metric)
    if name.lower() in KNOWN_UNITS:
        return KNOWN_UNITS[name.lower()]
    suffix = _TIME_SUFFIX.search(name)
    return suffix.group(1).lower() if suffix else None


#: Units of quantities that cannot be below zero: durations, energies, powers.
_NEVER_NEGATIVE_UNITS = frozenset({"ms", "s", "us", "ns", "w", "mw", "j", "mj", "kj"})


def is_never_negative(metric: str, meta: Mapping[str, Any] | None = None) -> bool:
    """Whether values of ``metric`` are durations, energies or powers, which cannot be negative
    (judged by its unit, :func:`unit_of`): a program that prints ``time_ms: -1`` reports an error, not a
    best time.

    >>> [is_never_negative(m) for m in ("time", "kernel_time_us", "energy", "wattage", "score", "GFLOP/s")]
    [True, True, True, True, False, False]
    """
    unit = unit_of(metric, meta)
    return unit is not None and unit.lower() in _NEVER_NEGATIVE_UNITS


def metric_unit(metric: str | None, unit: str | None = None) -> str | None:
    """The unit of ``metric`` when it is given or known from the name, else None.

    Examples
    --------
    >>> metric_unit("time"), metric_unit("wattage"), metric_unit("runtime"), metric_unit("time_s")
    ('ms', 'W', None, 's')
    """
    if unit is not None:
        return unit or None
    return unit_of(metric)


def metric_label(metric: str | None, unit: str | None = None) -> str:
    """An axis label: the metric's name with its unit where known.

    Examples
    --------
    >>> metric_label("time"), metric_label("runtime"), metric_label(None), metric_label("GFLOP/s")
    ('time (ms)', 'runtime', 'mean response', 'GFLOP/s')
    """
    if metric is None:
        return "mean response"
    found = metric_unit(metric, unit)
    # a name that is its own unit ("GFLOP/s") is not repeated: "GFLOP/s (GFLOP/s)" reads as a mistake
    return f"{metric} ({found})" if found and found.lower() != str(metric).lower() else metric


def with_unit(value: float, unit: str | None, spec: str = ".4g") -> str:
    """``value`` formatted by ``spec`` and followed by its unit, when the unit is known.

    >>> with_unit(18.27281, "ms"), with_unit(203.7, "W", ".4g"), with_unit(0.5, None)
    ('18.27 ms', '203.7 W', '0.5')
    """
    text = format(value, spec)
    return f"{text} {unit}" if unit else text
