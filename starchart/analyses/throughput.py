"""Work functions and throughput: make runtimes at different input sizes comparable.

A kernel's time grows with its input; the *throughput* (units of work per
second) does not, once the device is saturated. The user declares how work
grows with the input size — ``"n"``, ``"n log n"``, ``"n^2"``, ``"n^3"`` or a
Python expression over the size parameters — and :func:`throughput` divides.

Examples
--------
>>> work = work_function("n^2")
>>> work({"n": 1024})
1048576.0
>>> throughput(2.0, {"n": 1000}, "n")   # 1000 units in 2 ms
500000.0
>>> work_function("n * m * k")({"n": 2, "m": 3, "k": 4})
24.0
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from starchart.errors import InputError, arg
from starchart.measure.launch import (
    evaluate_expression,  # the safe (ast-whitelisted) evaluator
)

#: Named work functions of one size parameter (called ``n`` here; see :func:`work_function`).
NAMED_WORK: dict[str, Callable[[float], float]] = {
    "1": lambda n: 1.0,
    "n": lambda n: float(n),
    "n log n": lambda n: float(n) * math.log2(max(float(n), 2.0)),
    "n^2": lambda n: float(n) ** 2,
    "n^3": lambda n: float(n) ** 3,
}

WorkSpec = str | Callable[[Mapping[str, Any]], float]


class _Parameters(dict):
    """A configuration handed to a user's work function: a name it lacks is an error naming the
    parameters (the usual slip, a name spelt differently), while KeyErrors of the function's own
    lookups stay its own."""

    def __missing__(self, key: Any) -> Any:
        raise InputError(f"the work function asked for {key!r}, which is not a parameter", where="work",
                         hint=f"the parameters are: {', '.join(map(str, self))}")


def work_function(spec: WorkSpec, size: str = "n") -> Callable[[Mapping[str, Any]], float]:
    """A function ``config -> units of work``.

    ``spec`` is a name of :data:`NAMED_WORK` (applied to the parameter ``size``), an
    expression over parameter names (``"n * m * k"``, ``"2 * n**3"``, safely
    evaluated), or a callable taking the configuration.

    >>> work_function("n log n", size="points")({"points": 8})
    24.0
    """
    if callable(spec):
        def by_callable(config: Mapping[str, Any]) -> float:
            return float(spec(_Parameters(config)))
        return by_callable
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"a work function must be a name or an expression, got {spec!r}", where="work",
                         hint=f"use one of {sorted(NAMED_WORK)} or an expression such as 'n * m'")
    text = " ".join(spec.split()).replace("**", "^")
    named = NAMED_WORK.get(text)
    if named is not None:
        def by_name(config: Mapping[str, Any]) -> float:
            if size not in config:
                raise InputError(f"the work function {spec!r} needs the size parameter {size!r}",
                                 where="work", hint=f"name the size parameter ({arg('size', '...')}); got {sorted(config)}")
            try:
                return named(config[size])
            except (TypeError, ValueError):  # e.g. a size parameter of strings ("small", "large")
                raise InputError(f"the work function {spec!r} needs a numeric size, but {size!r} is "
                                 f"{config[size]!r}", where="work",
                                 hint=f"name a numeric size parameter ({arg('size', '...')}), or give an expression "
                                      "or a function of the configuration") from None
        return by_name

    expression = spec.replace("^", "**")

    def by_expression(config: Mapping[str, Any]) -> float:
        try:
            return float(evaluate_expression(expression, config, label="work"))
        except InputError as exc:  # quote the expression as the user wrote it (n^3, not n**3)
            exc.message = exc.message.replace(repr(expression), repr(spec))
            if "unknown parameter" in exc.message:  # "nlogn", "n*log(n)": say the named ones exist
                exc.hint = f"{exc.hint}; or a named work function: {', '.join(repr(k) for k in NAMED_WORK)}"
            raise
    return by_expression


def throughput(time_ms: float, config: Mapping[str, Any], work: WorkSpec, size: str = "n") -> float:
    """Units of work per second for a run of ``time_ms`` milliseconds on ``config``."""
    if not time_ms > 0:
        return math.nan
    return work_function(work, size)(config) / (time_ms / 1000.0)


def throughput_column(frame: pd.DataFrame, time: str, work: WorkSpec, size: str = "n") -> pd.Series:
    """Throughput (work per second) of every row of ``frame`` whose ``time`` column is in ms.

    >>> frame = pd.DataFrame({"n": [10, 20], "time": [1.0, 1.0]})
    >>> throughput_column(frame, "time", "n").tolist()
    [10000.0, 20000.0]
    """
    fn = work_function(work, size)
    records = frame.drop(columns=[time]).to_dict("records")  # work depends on the parameters, not the time
    work_units = np.array([fn(r) for r in records], dtype=float)
    bad = ~(work_units > 0)
    if bad.any():  # 0 or negative work makes every throughput 0 or negative: a wrong work function
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"the work function gives {work_units[i]:g} units of work for {records[i]}", where="work",
                         hint="work must be positive: e.g. 'n^2' or 'n * m' over the input parameters")
    times = frame[time].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return pd.Series(np.where(times > 0, work_units / (times / 1000.0), np.nan), index=frame.index,
                         name=f"{time}_throughput")
