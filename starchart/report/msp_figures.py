"""Figures of MSP-tuning (matplotlib, built without pyplot).

- :func:`plot_throughput_curve` — throughput against input size, the saturation band and the MSP (paper Fig. 1c/2);
- :func:`plot_transfer` — how good the winner found at each size is at the target, with the
  search speedup tuning there would give (paper Fig. 3);
- :func:`plot_threshold_sweep` — quality and speedup against the noise threshold (paper Fig. 7).

Examples
--------
>>> import pandas as pd
>>> from starchart.msp.curve import find_msp
>>> curve = pd.DataFrame({"size": [1, 2, 4, 8], "throughput": [1.0, 3.0, 9.5, 10.0]})
>>> fig = plot_throughput_curve(curve, find_msp(curve))
>>> fig.axes[0].get_xlabel()
'input size'
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from starchart.msp.curve import MSP

__all__ = ["plot_threshold_sweep", "plot_throughput_curve", "plot_transfer"]

_MSP_COLOR = "#c0392b"
_LINE_COLOR = "#1f3fbf"
_FONT = 8


def _size_label(frame: pd.DataFrame) -> str:
    name = frame.attrs.get("size_param")
    return f"input size ({name})" if name and name != "n" else "input size"


def plot_throughput_curve(curve: pd.DataFrame, msp: MSP | None = None, *, title: str | None = None,
                          unit: str = "units/s", log_y: bool = False) -> Figure:
    """Throughput against input size (log x), the repeat spread, the saturation band and the MSP."""
    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.add_subplot()
    x = curve["size"].to_numpy(dtype=float)
    y = curve["throughput"].to_numpy(dtype=float)
    ax.plot(x, y, marker="o", ms=3.5, color=_LINE_COLOR, label="throughput (default configuration)")
    if {"throughput_low", "throughput_high"} <= set(curve.columns):
        ax.fill_between(x, curve["throughput_low"].to_numpy(float), curve["throughput_high"].to_numpy(float),
                        color=_LINE_COLOR, alpha=0.15, lw=0, label="slowest–fastest repeat")
    if msp is not None:
        band = (1 - msp.threshold) * msp.max_throughput
        ax.axhspan(band, msp.max_throughput, color="#888888", alpha=0.15, lw=0,
                   label=f"within {msp.threshold:.0%} of the maximum")
        ax.axvline(float(msp.size), color=_MSP_COLOR, ls="--", lw=1.2,
                   label=f"MSP = {msp.size}" if msp.saturated else f"no saturation: MSP = target {msp.size}")
        if msp.saturated:
            ax.axvline(float(msp.target), color="#444444", ls=":", lw=1.0, label=f"target = {msp.target}")
    ax.set_xscale("log", base=2 if _powers_of_two(x) else 10)
    if log_y:
        ax.set_yscale("log")
    ax.set_xlabel(_size_label(curve))
    work = curve.attrs.get("work")
    ax.set_ylabel(f"throughput ({unit}{', work = ' + work if isinstance(work, str) else ''})", fontsize=_FONT)
    ax.set_title(title or "Throughput curve", loc="left", fontsize=_FONT + 1)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=_FONT - 1, loc="lower right")
    ax.tick_params(labelsize=_FONT)
    return fig


def plot_transfer(transfer: pd.DataFrame, msp: MSP | None = None, *, title: str | None = None) -> Figure:
    """For every size x: the quality at the target of the best configuration found at x (left axis), and
    the search speedup ``T_target / (T_x + T_curve)`` (right axis, log)."""
    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.add_subplot()
    x = transfer["size"].to_numpy(dtype=float)
    ax.plot(x, 100 * transfer["quality"].to_numpy(float), marker="o", ms=3.5, color=_LINE_COLOR,
            label="quality at the target of the winner at x")
    ax.axhline(90, color="#888888", lw=0.8, ls=":")
    ax.set_ylim(0, 105)
    ax.set_ylabel("% of the target's best", fontsize=_FONT)
    ax.set_xscale("log", base=2 if _powers_of_two(x) else 10)
    ax.set_xlabel(_size_label(transfer) + " the search ran at")
    right = ax.twinx()
    speedup = transfer["speedup"].to_numpy(float)
    right.plot(x, speedup, marker="s", ms=3, color="#2e8b57", lw=1, alpha=0.8,
               label="search speedup T_target / (T_x + T_curve)")
    right.set_yscale("log")
    right.set_ylabel("search speedup", fontsize=_FONT, color="#2e8b57")
    right.axhline(1, color="#2e8b57", lw=0.6, ls=":")
    if msp is not None:
        ax.axvline(float(msp.size), color=_MSP_COLOR, ls="--", lw=1.2, label=f"MSP = {msp.size}")
    handles = ax.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    ax.legend(handles[0] + more[0], handles[1] + more[1], fontsize=_FONT - 1, loc="lower left")
    ax.set_title(title or "Transfer: tuning at size x, running at the target", loc="left", fontsize=_FONT + 1)
    ax.grid(True, which="major", alpha=0.3)
    for axis in (ax, right):
        axis.tick_params(labelsize=_FONT)
    return fig


def plot_threshold_sweep(sweep: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Quality (left) and search speedup (right, log) of MSP-tuning against the noise threshold."""
    fig = Figure(figsize=(6.4, 3.4), layout="constrained")
    ax = fig.add_subplot()
    t = 100 * sweep["threshold"].to_numpy(float)
    ax.plot(t, 100 * sweep["quality"].to_numpy(float), marker="o", ms=3.5, color=_LINE_COLOR, label="quality")
    ax.set_ylim(0, 105)
    ax.set_xlabel("noise threshold (%)")
    ax.set_ylabel("% of the target's best", fontsize=_FONT)
    right = ax.twinx()
    right.plot(t, sweep["speedup"].to_numpy(float), marker="s", ms=3, color="#2e8b57", label="search speedup")
    right.set_yscale("log")
    right.set_ylabel("search speedup", fontsize=_FONT, color="#2e8b57")
    handles = ax.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    ax.legend(handles[0] + more[0], handles[1] + more[1], fontsize=_FONT - 1, loc="lower left")
    ax.set_title(title or "Noise threshold: quality against search speedup", loc="left", fontsize=_FONT + 1)
    ax.grid(True, alpha=0.3)
    return fig


def _powers_of_two(x: np.ndarray) -> bool:
    return bool(len(x)) and all(v > 0 and math.log2(v).is_integer() for v in x)
