"""Figures of XAPP's models (matplotlib, built without pyplot, so no display is needed).

:meth:`~starchart.xapp.regression.SpeedupRegressionEnsemble.plot_explanation` draws through this module,
named by reference, so importing XAPP loads no matplotlib.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

__all__ = ["plot_explanation"]


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
