"""Which way a metric is better: lower (time, energy, power) or higher (GFLOP/s, TFLOPS/J).

Kernel Tuner caches name their objective (``"time"``, ``"TFLOPS/J"``) but not its
direction, and a CSV names nothing; a tool that minimised ``GFLOP/s`` would call the
slowest kernel best. So a metric named like a rate or an efficiency is maximised
unless told otherwise, everything else minimised; a stored search or study says
its direction itself (``meta["minimize"]``), and that wins.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from starchart.errors import InputError

__all__ = ["direction_word", "is_rate_name", "lower_is_better", "resolve_directions"]

# A rate (…/s, GB/s), work per energy or power (…/J, …/W), flops, throughput, bandwidth, speed-up.
_HIGHER = re.compile(r"flop|/s(?:ec)?$|/[jw]$|_per_(?:s|sec|second|j|joule|w|watt)$|throughput|bandwidth|"
                     r"speed_?up|efficiency|gbps|mbps", re.IGNORECASE)


def is_rate_name(name: str) -> bool:
    """Whether ``name`` reads like a rate or an efficiency (a metric to maximise, never a parameter).

    >>> is_rate_name("GFLOP/s"), is_rate_name("TFLOPS/J"), is_rate_name("block_size_x")
    (True, True, False)
    """
    return bool(_HIGHER.search(str(name)))


def lower_is_better(metric: str, meta: Mapping[str, Any] | None = None) -> bool:
    """Whether smaller values of ``metric`` are better.

    ``meta`` (a dataset's metadata) decides when it records ``minimize`` for this
    metric (its ``objective``); otherwise the name does.

    Examples
    --------
    >>> [lower_is_better(m) for m in ("time", "ps_energy", "GFLOP/s", "TFLOPS/J", "GB/s")]
    [True, True, False, False, False]
    >>> lower_is_better("score", {"objective": "score", "minimize": False})
    False
    """
    if meta and "minimize" in meta and meta.get("objective", metric) == metric:
        return bool(meta["minimize"])
    return _HIGHER.search(str(metric)) is None


def resolve_directions(metrics: Sequence[str], minimize: Mapping[str, bool] | bool | None = None,
                       meta: Mapping[str, Any] | None = None) -> dict[str, bool]:
    """Per metric, whether lower is better: ``minimize`` for all (a bool) or per metric (a
    mapping, which may name only some), the rest decided by :func:`lower_is_better`.

    >>> resolve_directions(["time", "TFLOPS/J"])
    {'time': True, 'TFLOPS/J': False}
    >>> resolve_directions(["time", "score"], {"score": False}), resolve_directions(["time"], False)
    ({'time': True, 'score': False}, {'time': False})
    """
    if isinstance(minimize, bool):
        return {str(m): minimize for m in metrics}
    given = dict(minimize or {})
    stray = [str(m) for m in given if str(m) not in {str(x) for x in metrics}]
    if stray:  # a misspelt metric would otherwise be ignored silently, and its metric judged by its name

        raise InputError(f"minimize names {stray[0]!r}, which is not among the metrics {[str(m) for m in metrics]}",
                         where="minimize", hint="name the metrics as they are spelt, e.g. {'time': True}")
    return {str(m): bool(given[m]) if m in given else lower_is_better(str(m), meta) for m in metrics}


def direction_word(minimize: bool) -> str:
    """``"lower is better"`` or ``"higher is better"``.

    >>> direction_word(lower_is_better("GFLOP/s"))
    'higher is better'
    """
    return "lower is better" if minimize else "higher is better"
