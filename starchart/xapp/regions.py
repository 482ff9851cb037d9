"""Whole-program speedup from per-region predictions, by Amdahl's law.

A program spends a share ``p_i`` of its CPU time in region ``i``; the rest,
``1 - sum(p_i)``, stays on the CPU.  If region ``i`` runs ``s_i`` times faster on the
GPU, the whole program runs

    S = 1 / ((1 - sum p_i) + sum p_i / s_i)

times faster (thesis §6.3.2).  Static XAPP predicts speedup *ranges*, so each region
may give an interval ``(lo_i, hi_i]``; since ``S`` grows with every ``s_i``, the
whole-program speedup then lies in ``[S(lo), S(hi)]``.  The open ends of the outer
ranges are honest: a region in "<= 3" may be as slow as 0 (giving a whole-program
lower bound of 0), and one in "> 20" has no upper bound.  Give tighter bounds
yourself when you know them (the thesis uses each range's midpoint).

Examples
--------
The thesis's case study: two regions, 70% and 14% of the time, both predicted at 3.5:

>>> round(project({"lu": 0.70, "cc": 0.14}, {"lu": 3.5, "cc": 3.5}).point, 3)
2.5
>>> p = project({"lu": 0.70, "cc": 0.14}, {"lu": "3 – 20", "cc": "<= 3"}, cutoffs=(3, 20))
>>> (p.lower, round(p.upper, 3))
(0.0, 4.138)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..errors import InputError
from .model import check_cutoffs, range_labels

Speedup = float | tuple[float, float] | str


@dataclass
class Projection:
    """Whole-program speedup bounds and the per-region inputs.

    Attributes
    ----------
    lower, upper:
        Whole-program speedup interval (equal when every region has a point speedup).
    cpu_share:
        Share of the original time outside every region (stays on the CPU).
    table:
        Per region: ``share``, ``lower``/``upper`` region speedup, and the region's
        share of the *original* time it still takes on the GPU at each bound
        (``time_at_lower``, ``time_at_upper``).
    """

    lower: float
    upper: float
    cpu_share: float
    table: pd.DataFrame

    @property
    def point(self) -> float | None:
        """The whole-program speedup when it is one number, else ``None``."""
        return self.lower if self.lower == self.upper else None

    def __str__(self) -> str:
        if self.point is not None:
            return f"whole-program speedup {self.point:.3g}x"
        return f"whole-program speedup {self.lower:.3g}x .. {self.upper:.3g}x"


def range_bounds(label: str, cutoffs: Sequence[float]) -> tuple[float, float]:
    """``(lower, upper)`` speedups of a range label made by a model with ``cutoffs``.

    Examples
    --------
    >>> range_bounds("3 – 20", (3, 20)), range_bounds("> 20", (3, 20))
    ((3.0, 20.0), (20.0, inf))
    """
    cuts = check_cutoffs(cutoffs)
    labels = range_labels(cuts)
    if label not in labels:
        raise InputError(f"{label!r} is not a speedup range of cutoffs {cuts}", where="speedups",
                         hint=f"use one of: {', '.join(map(repr, labels))}")
    bounds = (0.0,) + cuts + (math.inf,)
    i = labels.index(label)
    return bounds[i], bounds[i + 1]


def _bounds(name: Any, value: Any, cutoffs: Any) -> tuple[float, float]:
    where = f"speedups[{name!r}]"
    if isinstance(value, str):
        if cutoffs is None:
            raise InputError(f"range label {value!r} needs the model's cutoffs", where=where,
                             hint="pass cutoffs=model.cutoffs")
        return range_bounds(value, getattr(cutoffs, "cutoffs", cutoffs))
    if isinstance(value, Sequence):
        if len(value) != 2:
            raise InputError(f"a speedup interval needs 2 bounds, got {value!r}", where=where)
        lo, hi = (float(v) for v in value)
        if not (math.isfinite(lo) and lo >= 0) or math.isnan(hi) or hi <= 0 or lo > hi:
            raise InputError(f"interval {value!r} must have 0 <= lower <= upper, lower finite, upper > 0",
                             where=where)
        return lo, hi
    try:
        s = float(value)
    except (TypeError, ValueError):
        raise InputError(f"speedup {value!r} is not a number, an interval or a range label", where=where) from None
    if not (math.isfinite(s) and s > 0):
        raise InputError(f"speedup {s!r} must be a positive finite number", where=where)
    return s, s


def _time(share: float, speedup: float) -> float:
    """Share of the original time a region still takes at ``speedup`` (0 shares cost nothing)."""
    if share == 0:
        return 0.0
    return math.inf if speedup == 0 else share / speedup


def project(shares: Mapping[str, float] | pd.Series, speedups: Mapping[str, Speedup] | pd.Series,
            *, cutoffs: Sequence[float] | Any = None) -> Projection:
    """Whole-program speedup (interval) from region time shares and region speedups.

    Parameters
    ----------
    shares:
        ``{region: share of CPU time}``, each in [0, 1], summing to at most 1.
    speedups:
        ``{region: speedup}`` with the same regions; a speedup is a number, a
        ``(lower, upper)`` interval (``upper`` may be ``inf``), or a range label such as
        ``"3 – 20"`` (then give ``cutoffs``).
    cutoffs:
        The cutoffs (or the :class:`SpeedupRangeModel`) that made the range labels.
    """
    shares = dict(shares.items()) if isinstance(shares, Mapping | pd.Series) else None
    if shares is None:
        raise InputError("shares must map region names to time shares", where="shares")
    speedups = dict(speedups.items()) if isinstance(speedups, Mapping | pd.Series) else None
    if speedups is None:
        raise InputError("speedups must map region names to speedups", where="speedups")
    if set(shares) != set(speedups):
        only_s = sorted(map(str, set(shares) - set(speedups)))
        only_p = sorted(map(str, set(speedups) - set(shares)))
        raise InputError(f"regions differ: shares only {only_s}, speedups only {only_p}", where="speedups",
                         hint="give a speedup for every region with a share, and no others")
    rows = []
    for name, share in shares.items():
        try:
            p = float(share)
        except (TypeError, ValueError):
            raise InputError(f"share {share!r} is not a number", where=f"shares[{name!r}]") from None
        if not (0 <= p <= 1):
            raise InputError(f"share {p!r} must lie in [0, 1] (a fraction of CPU time)", where=f"shares[{name!r}]",
                             hint="give 0.7 for 70%")
        lo, hi = _bounds(name, speedups[name], cutoffs)
        rows.append({"region": name, "share": p, "lower": lo, "upper": hi,
                     "time_at_lower": _time(p, lo), "time_at_upper": _time(p, hi)})
    total = sum(r["share"] for r in rows)
    if total > 1 + 1e-9:
        raise InputError(f"region shares sum to {total:.6g} > 1", where="shares",
                         hint="shares are fractions of the whole program's time; regions must not overlap")
    rest = max(0.0, 1.0 - total)
    table = pd.DataFrame(rows, columns=["region", "share", "lower", "upper", "time_at_lower", "time_at_upper"])
    table = table.set_index("region")
    slow = rest + sum(r["time_at_lower"] for r in rows)
    fast = rest + sum(r["time_at_upper"] for r in rows)
    return Projection(lower=0.0 if math.isinf(slow) else 1.0 / slow,
                      upper=math.inf if fast == 0 else 1.0 / fast, cpu_share=rest, table=table)
