"""Matplotlib axis helpers shared by every figure (the report's and the analyses')."""

from __future__ import annotations

from typing import Any

from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter


def plain_log_ticks(axis: Any) -> None:
    """Label a log axis 1, 2, 5, 10, 20... instead of powers of ten (every 1…9 on a short axis,
    e.g. 0.6, 0.7, 0.8, 0.9, 1 for 0.55–1.1, where 1-2-5 would label a single tick)."""
    low, high = sorted(abs(float(v)) for v in axis.get_view_interval())
    short = low > 0 and high / low < 5
    axis.set_major_locator(LogLocator(base=10, subs=tuple(range(1, 10)) if short else (1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())
