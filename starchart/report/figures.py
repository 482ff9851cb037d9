"""Figures of the paper's analyses: sample size (§VI-A), trade-off (§VII-D), platforms (§VII-B), inputs (§VII-C).

Each takes an analysis result (or its curve) and returns a matplotlib ``Figure`` (no pyplot state). The
results' ``.plot()`` methods draw with these; the analyses themselves import no matplotlib.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from starchart._util.axes import plain_log_ticks
from starchart._util.text import shorten
from starchart._util.units import metric_label, unit_of
from starchart.analyses.inputs import InputSensitivity
from starchart.analyses.models import ModelComparison
from starchart.analyses.platforms import PlatformComparison
from starchart.analyses.tradeoff import _COLORS, _MARKERS, TradeoffResult, _cell_masks, pareto_mask
from starchart.errors import InputError
from starchart.report.plots import plot_tree
from starchart.tree import StarchartTree, best_leaf_per_group, expanded_nodes


def plot_sample_size(curve: pd.DataFrame, *, target: float | None = None, chosen: int | None = None,
                     metric: str | None = None, title: str | None = None) -> Figure:
    """Median (and mean, 90th percentile) relative validation error against training samples.

    The x axis is logarithmic when the sizes span more than a factor 4; the target is
    a dashed line and the chosen size a marked point.

    >>> curve = pd.DataFrame({"samples": [20, 40], "median_rel_error": [0.3, 0.1],
    ...                       "mean_rel_error": [0.4, 0.2], "p90_rel_error": [0.8, 0.5], "leaves": [2, 4]})
    >>> plot_sample_size(curve, target=0.1, chosen=40).axes[0].get_ylabel()
    'relative error on the validation set (%)'
    """
    fig = Figure(figsize=(6.4, 3.8))
    ax = fig.add_subplot()
    x = curve["samples"].to_numpy(dtype=float)
    ax.plot(x, 100 * curve["median_rel_error"], marker="o", color="#1f3fbf", lw=1.8, label="median")
    if "mean_rel_error" in curve:
        ax.plot(x, 100 * curve["mean_rel_error"], marker=".", color="#999999", lw=1, label="mean")
    if "p90_rel_error" in curve:
        ax.plot(x, 100 * curve["p90_rel_error"], ls=":", color="#999999", lw=1, label="90th percentile")
    if target is not None:
        ax.axhline(100 * target, ls="--", color="#c0392b", lw=1, label=f"target {100 * target:g} %")
    if chosen is not None and chosen in set(curve["samples"]):
        row = curve[curve["samples"] == chosen].iloc[-1]
        ax.plot([chosen], [100 * row["median_rel_error"]], marker="*", ms=14, color="#c0392b", zorder=5,
                label=f"chosen: {chosen} samples")
    if len(x) and x.max() / max(x.min(), 1) > 4:
        ax.set_xscale("log")
        ax.minorticks_off()
    # each size's tree size under its tick: written next to the points, the counts crossed the other lines
    leaves = [f"\n{int(n)}" for n in curve["leaves"]] if "leaves" in curve else [""] * len(x)
    ax.set_xticks(x, [f"{int(v)}{n}" for v, n in zip(x, leaves)], fontsize=8)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("training samples" + (" (below: leaves of the tree fitted on them)" if "leaves" in curve else ""))
    ax.set_ylabel("relative error on the validation set (%)")
    what = f" of {metric}" if metric else ""
    ax.set_title(title or f"Prediction accuracy{what} vs training samples", loc="left", fontsize=11)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def plot_tradeoff(result: TradeoffResult, *, x: str | None = None, y: str | None = None, max_subspaces: int = 6,
                  log_x: bool | None = None, title: str | None = None) -> Figure:
    """Measured designs as points (``x``: first metric, ``y``: second), the chosen subspaces'
    designs highlighted (one colour and symbol each), the targets as dashed lines and
    the measured Pareto front as a step line — paper Fig. 10c.
    """
    x = result.metrics[0] if x is None else x
    y = (result.metrics[1] if len(result.metrics) > 1 else result.metrics[0]) if y is None else y
    for axis, metric in (("x", x), ("y", y)):
        if metric not in result.data.metrics:
            raise InputError(f"{axis}={metric!r} is not a metric of this trade-off's data", where=axis,
                             hint=f"name one of: {', '.join(result.data.metrics)}")

    frame = result.data.frame
    xs, ys = frame[x].to_numpy(float), frame[y].to_numpy(float)
    fig = Figure(figsize=(10.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    ax.scatter(xs, ys, s=9, c="#c8c8c8", edgecolors="none", label=f"all measured ({len(frame)})", zorder=1)
    shown = np.zeros(len(frame), dtype=bool)
    cells = _cell_masks(frame, result.trees, result.metrics, list(result.subspaces["nodes"][:max_subspaces]))
    for i, (_, row) in enumerate(result.subspaces.iloc[:max_subspaces].iterrows()):
        mask = cells[i] & ~shown
        shown |= mask
        ax.scatter(xs[mask], ys[mask], s=22, marker=_MARKERS[i % len(_MARKERS)], facecolors="none",
                   edgecolors=_COLORS[i % len(_COLORS)], linewidths=1.0, zorder=3,
                   label=textwrap.fill(shorten(f"{row['description']} (n={row['n']}, "
                                               f"{row['share_meeting']:.0%} meet)", 150), 60))
    rest = len(result.regions) - max_subspaces
    if rest > 0:
        mask = result.inside() & ~shown
        ax.scatter(xs[mask], ys[mask], s=14, c="#555555", marker=".", zorder=2, label=f"{rest} more subspaces")
    front = pareto_mask(np.column_stack([xs, ys]), [result.minimize.get(x, True), result.minimize.get(y, True)])
    order = np.argsort(xs[front])
    ax.step(xs[front][order], ys[front][order], where="post", color="#c0392b", lw=1.2, zorder=4,
            label=f"Pareto front ({int(front.sum())} designs)")
    for metric, line in ((x, ax.axvline), (y, ax.axhline)):
        if metric in result.limits:
            line(result.limits[metric], ls="--", color="#333333", lw=1, zorder=2)
    if log_x is None:
        finite = xs[np.isfinite(xs) & (xs > 0)]
        log_x = bool(finite.size and finite.max() / finite.min() > 20)
    if log_x:
        ax.set_xscale("log")
        plain_log_ticks(ax.xaxis)
    meta = result.data.meta  # units a file or a bundled dataset states ("runtime" alone says none)
    ax.set_xlabel(metric_label(x, unit_of(x, meta) or ""))
    ax.set_ylabel(metric_label(y, unit_of(y, meta) or ""))
    lims = ", ".join(f"{m} {'≤' if result.minimize[m] else '≥'} {v:.4g}" for m, v in result.limits.items())
    ax.set_title(title or f"{y} vs {x}: subspaces likely to meet {lims}", loc="left", fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    # beside the axes: subspace conditions are long, and inside they would hide the designs
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


# ---------------------------------------------------------------------- the figure
def plot_platforms(comparison: PlatformComparison, *, title: str | None = None) -> Figure:
    """Left: per platform, how many times better its own best is than the worst-case and the
    geometric-mean general settings. Right: parameter importance per platform (heat map)."""
    speed = comparison.speedups()
    importance = comparison.importance().drop(index=comparison.name)[comparison.platforms]
    fig = Figure(figsize=(10.5, max(3.4, 1.2 + 0.32 * len(importance))))
    ax, hm = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1]})
    x = np.arange(len(speed))
    width = 0.38
    for offset, column, label, color in ((-width / 2, "speedup_vs_worst", "vs best worst-case setting", "#1f3fbf"),
                                         (width / 2, "speedup_vs_geomean", "vs best geometric-mean setting",
                                          "#7f9fdf")):
        bars = ax.bar(x + offset, speed[column], width, label=label, color=color)
        for bar, value in zip(bars, speed[column]):
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), f"{value:.2f}×", ha="center",
                    va="bottom", fontsize=8)
    ax.axhline(1.0, color="#333333", lw=0.8)
    ax.set_xticks(x, speed["platform"])
    ax.set_ylabel("own best is this many times better")
    ax.set_ylim(0.9 if speed[["speedup_vs_worst", "speedup_vs_geomean"]].to_numpy().min() >= 1 else 0,
                max(1.2, 1.12 * float(np.nanmax(speed[["speedup_vs_worst", "speedup_vs_geomean"]].to_numpy()))))
    ax.legend(fontsize=8, frameon=False, loc="upper left")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or f"Platform-specific best vs one general setting ({comparison.metric})", loc="left",
                 fontsize=10)
    data = 100 * importance.to_numpy(dtype=float)
    image = hm.imshow(data, cmap="Blues", aspect="auto", vmin=0, vmax=max(1.0, np.nanmax(data)))
    hm.set_xticks(range(len(importance.columns)), importance.columns)
    hm.set_yticks(range(len(importance.index)), importance.index, fontsize=8)
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            hm.text(j, i, f"{data[i, j]:.0f}", ha="center", va="center", fontsize=7,
                    color="white" if data[i, j] > 0.6 * np.nanmax(data) else "black")
    hm.set_title("parameter importance per platform (% of SSE reduction)", loc="left", fontsize=10)
    fig.colorbar(image, ax=hm, fraction=0.05)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------- the figure
def plot_input_sensitivity(result: InputSensitivity, *, title: str | None = None) -> Figure:
    """Left: parameter importance in each input's tree and in the merged tree (heat map).
    Right: the share of variance each parameter's interaction with the input explains
    (dark: its effect depends on the input)."""
    imp = result.importance
    fig = Figure(figsize=(11, max(3.2, 1.3 + 0.34 * len(imp))))
    hm, bars = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1]})
    data = 100 * imp.to_numpy(dtype=float)
    shown = np.where(np.isfinite(data), data, 0.0)
    image = hm.imshow(shown, cmap="Blues", aspect="auto", vmin=0, vmax=max(1.0, shown.max()))
    hm.set_xticks(range(len(imp.columns)), imp.columns, fontsize=8, rotation=20, ha="right")
    hm.set_yticks(range(len(imp.index)), imp.index, fontsize=8)
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            text = "–" if not np.isfinite(data[i, j]) else f"{data[i, j]:.0f}"
            hm.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if shown[i, j] > 0.6 * shown.max() else "black")
    hm.set_title(title or f"importance of each parameter per input ({result.metric}, %)", loc="left", fontsize=10)
    fig.colorbar(image, ax=hm, fraction=0.04)
    table = result.interactions.iloc[::-1]
    colors = ["#1f3fbf" if dep else "#b8c4e8" for dep in table["depends_on_input"]]
    bars.barh(table["parameter"], 100 * table["interaction_share"], color=colors)
    bars.axvline(100 * result.options.get("min_share", 0.02), color="#c0392b", ls="--", lw=1,
                 label="threshold")
    bars.set_xlabel("variance explained by parameter × input (%)")
    bars.set_title("does the parameter's effect depend on the input?", loc="left", fontsize=10)
    bars.spines[["top", "right"]].set_visible(False)
    bars.tick_params(labelsize=8)
    bars.legend(fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def plot_model_comparison(result: ModelComparison, *, title: str | None = None) -> Figure:
    """The paper's Fig. 5: each model's median relative error on unseen designs (the bar: median over seeds;
    the line: their range), with the design each picks as best written on its bar."""
    table = result.table
    models = list(result.medians().index)
    per_model = [100 * table.loc[table["model"] == m, "median_rel_error"].to_numpy() for m in models]
    medians = [float(np.median(v)) for v in per_model]
    fig = Figure(figsize=(6.5, 3.6), layout="constrained")
    ax = fig.add_subplot()
    colours = {"tree": "#1f3fbf", "linear": "#c0392b", "forest": "#7f8c8d"}
    ax.bar(models, medians, color=[colours.get(m, "#999999") for m in models], width=0.6)
    for k, values in enumerate(per_model):
        ax.vlines(k, values.min(), values.max(), color="#333333", lw=1.2)
    unit = unit_of(result.metric, result.meta) or ""
    picks = result.medians()
    for k, model in enumerate(models):
        row = picks.loc[model]
        said = f"pick: {row['pick_predicted']:.3g} {unit} predicted\n{row['pick_actual']:.3g} {unit} measured"
        ax.annotate(said.replace("  ", " "), (k, float(per_model[k].max())), xytext=(0, 4), textcoords="offset points",
                    ha="center", va="bottom", fontsize=8)
    ax.set_ylabel(f"median relative error on {result.validation} unseen designs (%)", fontsize=9)
    ax.set_ylim(0, max(max(v.max() for v in per_model), 1e-9) * 1.35)
    seeds = table["seed"].nunique()
    ax.set_title(title or f"{result.metric}: trained on {result.train} designs, {seeds} seeds", loc="left", fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def plot_merged_tree(tree: StarchartTree, best: Mapping[Any, int], *, metric: str, minimize: bool = True,
                     top_splits: int | None = 3, title: str | None = None) -> Figure:
    """A tree over several platforms or inputs with each one's best subspace shaded, as the paper's Fig. 8:
    ``best`` maps each platform or input (its label) to its best leaf. Drawn are the ``top_splits`` splits
    that reduce the error most and the splits on the way to every shaded leaf (``None``: the whole tree)."""
    marks: dict[int, list[str]] = {}
    for label, node in best.items():
        marks.setdefault(int(node), []).append(str(label))
    # every shaded leaf is drawn: the splits above it too
    expand = (None if top_splits is None else
              expanded_nodes(tree, top_splits=top_splits, minimize=minimize, reach=marks))
    labels = {node: "best on " + ", ".join(names) for node, names in marks.items()}
    return plot_tree(tree, metric=metric, minimize=minimize, expand=expand, marks=labels, title=title)


def plot_platform_tree(comparison: PlatformComparison, *, top_splits: int | None = 3,
                       title: str | None = None) -> Figure:
    """The tree over every platform (``platform`` is one of its parameters), each platform's best subspace
    shaded and labelled: the leaf of the merged tree where that platform's own designs are fastest on
    average (:meth:`~starchart.analyses.platforms.PlatformComparison.best_subspaces`), as the paper's Fig. 8
    shades them (:func:`plot_merged_tree`)."""
    frame = comparison.data.frame
    best = best_leaf_per_group(comparison.tree, frame, frame[comparison.name], frame[comparison.metric],
                               minimize=comparison.minimize)
    return plot_merged_tree(comparison.tree, {p: node for p, (node, _, _) in best.items()}, metric=comparison.metric, minimize=comparison.minimize,
                            top_splits=top_splits, title=title or f"One tree over {', '.join(comparison.platforms)}: "
                                                                  "each platform's best subspace")


def plot_input_tree(result: InputSensitivity, *, top_splits: int | None = 3, title: str | None = None) -> Figure:
    """The tree over the tuning parameters and the input (the paper's Fig. 9), each input's best subspace
    shaded: the leaf where that input's own designs do best on average (:func:`plot_merged_tree`)."""
    frame = result.data.frame
    labels = frame[result.inputs].astype(str).apply(
        lambda row: ", ".join(f"{name}={value}" for name, value in zip(result.inputs, row)), axis=1)
    best = best_leaf_per_group(result.tree, frame, labels, frame[result.metric], minimize=result.minimize)
    return plot_merged_tree(result.tree, {label: node for label, (node, _, _) in best.items()}, metric=result.metric,
                            minimize=result.minimize, top_splits=top_splits,
                            title=title or f"One tree over {', '.join(result.inputs)} and the tuning parameters: "
                                           "each input's best subspace")
