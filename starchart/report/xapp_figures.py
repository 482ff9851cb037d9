"""Figures of XAPP's models (matplotlib, built without pyplot, so no display is needed).

:meth:`~starchart.xapp.regression.SpeedupRegressionEnsemble.plot_explanation` draws through this module,
named by reference, so importing XAPP loads no matplotlib.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

__all__ = ["plot_explanation", "plot_predicted_speedups"]


def plot_explanation(model: Any, path: str | Path | None = None, top: int = 10) -> Figure:
    """Bar chart of the ``top`` terms the fitted ensemble's learners use most; saved to ``path`` when given.

    ``model`` is a fitted :class:`~starchart.xapp.regression.SpeedupRegressionEnsemble`.
    """
    table = model.explanation().head(top).iloc[::-1]
    fig = Figure(figsize=(6.0, 0.35 * max(len(table), 3) + 1.2))
    ax = fig.add_subplot()
    ax.barh(table["term"], 100 * table["share"], color="#4c72b0")
    ax.set_xlabel("learners using the term (%)")
    ax.set_xlim(0, 100)
    ax.set_title(f"Most frequent terms across {len(model.learners_)} learners", loc="left")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path)
    return fig


def plot_predicted_speedups(table: Any, path: str | Path | None = None, title: str | None = None) -> Figure:
    """Predicted against measured speedup, log-log, each kernel with its interval; the 2x band shaded.

    ``table`` is :attr:`RegressionLoocv.table <starchart.xapp.log_speedup.RegressionLoocv>`
    (columns ``speedup``, ``predicted``, ``low``, ``high``, ``error_factor``, one row per kernel).
    Kernels whose measured speedup lies outside their interval are named. Saved to ``path`` when given.
    """
    import numpy as np

    fig = Figure(figsize=(6.4, 5.6))
    ax = fig.add_subplot()
    lo = float(min(table["speedup"].min(), table["low"].min())) / 2
    hi = float(max(table["speedup"].max(), table["high"].max())) * 2
    line = np.geomspace(lo, hi, 50)
    ax.fill_between(line, line / 2, line * 2, color="#dddddd", label="within 2x")
    ax.plot(line, line, color="#888888", linewidth=0.8)
    inside = (table["speedup"] >= table["low"]) & (table["speedup"] <= table["high"])
    for flag, colour, label in ((True, "#4c72b0", "measured inside the interval"),
                                (False, "#c44e52", "measured outside the interval")):
        part = table[inside == flag]
        ax.errorbar(part["speedup"], part["predicted"],
                    yerr=[part["predicted"] - part["low"], part["high"] - part["predicted"]],
                    fmt="o", markersize=4, color=colour, ecolor=colour, elinewidth=0.7, alpha=0.85, label=label)
    for name, row in table[~inside].iterrows():
        ax.annotate(str(name), (row["speedup"], row["predicted"]), fontsize=7, xytext=(3, 3),
                    textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured speedup (CPU s / GPU s)")
    ax.set_ylabel("predicted speedup, leave-one-out")
    ax.set_title(title or "Predicted against measured speedup", loc="left")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
