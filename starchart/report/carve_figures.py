"""Figures of optimization carving (matplotlib, no display needed, no pyplot state).

- :func:`plot_carving` — the paper's Fig. 4: every configuration in (efficiency,
  utilization), each axis normalised to its maximum; threshold-carved ones as
  squares, dominated ones as ``+``, the kept ones filled, the Pareto front as a
  staircase and the best measured configuration circled;
- :func:`plot_expected_best` — the paper's Fig. 6: the expected best of a random
  sample against its size, with the best, 90 % and 95 % lines and carving's kept-set
  size (dotted) and best.

Examples
--------
>>> import pandas as pd
>>> from starchart.carve.carving import carve
>>> df = pd.DataFrame({"efficiency": [1, 2, 3, 1.5], "utilization": [3, 2, 1, 1], "time": [3.0, 1.0, 2.0, 4.0],
...                    "ok": [1, 1, 1, 0]})
>>> fig = plot_carving(carve(df, predicates="ok == 1"), objective="time")
>>> fig.axes[0].get_xlabel()
'efficiency (normalised to the maximum)'
>>> plot_expected_best([1.0, 2.0, 3.0, 4.0], carved_size=2, carved_best=1.0).axes[0].get_xlabel()
'random sample size'
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from starchart.carve.carving import DOMINATED, CarveResult
from starchart.carve.sampling import expected_best_curve, sample_size_for

__all__ = ["plot_carving", "plot_expected_best"]

_FONT = 8
_KEPT = "#1f3fbf"
_FRONT = "#d62728"
_GREY = "#9a9a9a"


def _normalised(values: np.ndarray) -> tuple[np.ndarray, str]:
    """Divide by the maximum like the paper; fall back to min–max when values are not positive."""
    finite = values[np.isfinite(values)]
    if len(finite) and finite.min() >= 0 and finite.max() > 0:
        return values / finite.max(), "normalised to the maximum"
    lo, hi = (finite.min(), finite.max()) if len(finite) else (0.0, 1.0)
    return (values - lo) / (hi - lo if hi > lo else 1.0), "scaled to [0, 1]"


def plot_carving(result: CarveResult, *, objective: str | None = None, minimize: bool = True,
                 title: str | None = None) -> Figure:
    """The configurations in the first two carving metrics, as in the paper's Fig. 4.

    Parameters
    ----------
    result:
        What :func:`starchart.carve.carve` returned.
    objective:
        A measured column (e.g. ``"time"``); when given, the best configuration is
        circled and, if carving dropped it, the best kept one is starred.
    minimize:
        Whether lower ``objective`` is better.
    """
    frame = result.frame
    names = result.metrics[:2]
    raw = result.metric_values[list(names)].to_numpy(dtype=float)
    x, x_note = _normalised(raw[:, 0])
    y, y_note = _normalised(raw[:, 1])
    reason = frame["carved_by"].to_numpy()
    threshold = np.isin(reason, result.predicates)
    dominated = reason == DOMINATED
    kept = reason == ""
    on_front = frame["on_front"].to_numpy()

    fig = Figure(figsize=(6.4, 5.0))
    ax = fig.add_subplot()
    many = len(frame) > 1000  # thousands of markers: raster them so an SVG stays small
    ax.scatter(x[threshold], y[threshold], s=14, marker="s", facecolors="none", edgecolors=_GREY, lw=0.6,
               label=f"threshold-carved ({int(threshold.sum())})", zorder=1, rasterized=many)
    ax.scatter(x[dominated], y[dominated], s=14, marker="+", color="#6b8fc7", lw=0.7,
               label=f"dominated ({int(dominated.sum())})", zorder=2, rasterized=many)
    off_front = kept & ~on_front
    if off_front.any():
        ax.scatter(x[off_front], y[off_front], s=16, color="#7fb3ff", edgecolors=_KEPT, lw=0.4,
                   label=f"kept, within {result.within:g} of the front ({int(off_front.sum())})", zorder=3)
    order = np.flatnonzero(on_front)
    order = order[np.lexsort((-y[order], x[order]))]
    if len(order):
        # staircase of the front: from the most utilised to the most efficient configuration
        ax.step(x[order], y[order], where="pre", color=_FRONT, lw=1.0, alpha=0.8, zorder=3)
        ax.scatter(x[order], y[order], s=22, color=_KEPT, label=f"Pareto front ({len(order)})", zorder=4)
    if objective is not None:
        _mark_best(ax, result, objective, minimize, x, y)
    missing = result.failed  # no metrics, or no compile: not plotted, not counted as removed
    ax.set_xlabel(f"{names[0]} ({x_note})")
    ax.set_ylabel(f"{names[1]} ({y_note})")
    ax.grid(color="#e5e5e5", lw=0.6)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=_FONT, loc="best", framealpha=0.9)
    note = f" of the {len(frame) - missing} with metrics removed; {missing} failed, not shown" if missing \
        else " removed"
    ax.set_title(title or f"carving kept {len(result.kept)} of {len(frame)} configurations "
                 f"({100 * result.removed_share:.1f} %{note})", fontsize=_FONT + 2, loc="left")
    fig.tight_layout()
    return fig


def _mark_best(ax: Any, result: CarveResult, objective: str, minimize: bool, x: np.ndarray, y: np.ndarray) -> None:
    best = result.best(objective, minimize=minimize)
    position = {label: i for i, label in enumerate(result.frame.index)}
    if best["best_overall_index"] is not None:
        i = position[best["best_overall_index"]]
        ax.scatter([x[i]], [y[i]], s=180, facecolors="none", edgecolors="#111111", lw=1.4, zorder=5,
                   label=f"best measured: {objective} {best['best_overall']:.4g}")
    if best["best_kept_index"] is not None and best["best_kept_index"] != best["best_overall_index"]:
        i = position[best["best_kept_index"]]
        ax.scatter([x[i]], [y[i]], s=120, marker="*", color="#ff9f1c", edgecolors="#111111", lw=0.5, zorder=6,
                   label=f"best kept: {objective} {best['best_kept']:.4g} ({100 * best['relative']:.1f} %)")


def plot_expected_best(values: Any, carved_size: int | None = None, carved_best: float | None = None, *,
                       minimize: bool = True, metric: str = "time", unit: str | None = "ms",
                       fractions: tuple[float, ...] = (0.9, 0.95), title: str | None = None) -> Figure:
    """The expected best of a uniform random sample against its size (the paper's Fig. 6).

    Parameters
    ----------
    values:
        The measured objective of every configuration of the space.
    carved_size, carved_best:
        Carving's kept-set size (a dotted vertical line) and its best value (a star).
    fractions:
        Levels drawn as dashed lines (default 90 % and 95 % of the best).
    """
    curve = expected_best_curve(values, minimize=minimize)
    best = float(curve["expected_best"].iloc[-1])
    fig = Figure(figsize=(6.4, 4.2))
    ax = fig.add_subplot()
    ax.plot(curve["k"], curve["expected_best"], color="#4c72b0", lw=1.4, label="random sample: expected best")
    ax.axhline(best, color="#111111", lw=0.9, ls="--", label=f"best: {best:.4g}")
    for fraction, style in zip(fractions, [":", "-.", (0, (1, 3)), (0, (5, 3))] * 3):
        level = best / fraction if minimize else best * fraction
        k = sample_size_for(values, fraction, minimize=minimize)  # exact, not read off the thinned curve
        ax.axhline(level, color="#777777", lw=0.8, ls=style, label=f"{100 * fraction:g} % of the best: k = {k}")
    if carved_size is not None:
        ax.axvline(carved_size, color=_FRONT, lw=1.0, ls=":", label=f"carving keeps {carved_size}")
    if carved_best is not None and carved_size is not None:
        ax.scatter([carved_size], [carved_best], s=90, marker="*", color="#ff9f1c", edgecolors="#111111", lw=0.5,
                   zorder=5, label=f"carving's best: {carved_best:.4g}")
    ax.set_xscale("log")
    ax.set_xlabel("random sample size")
    ax.set_ylabel(f"{metric} ({unit})" if unit else metric)
    ax.grid(color="#e5e5e5", lw=0.6)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=_FONT, loc="upper right" if minimize else "lower right")
    ax.set_title(title or f"expected best of k uniform samples of {int(curve['k'].iloc[-1])} "
                 "configurations (exact)", fontsize=_FONT + 2, loc="left")
    fig.tight_layout()
    return fig
