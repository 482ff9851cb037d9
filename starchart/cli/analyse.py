"""The analysing commands of the ``starchart`` CLI: platforms, power/performance, input sensitivity.

    starchart platforms A100=a100.json A4000=a4000.json [--metric M] [--tolerance 0.05] [--plot p.svg]
    starchart tradeoff DATA --limit time=0.002 --limit power=150 [--stat 0.9] [--plot p.svg]
    starchart inputs DATA --input N [--work n^3] [--plot p.svg]

Each prints what :func:`starchart.compare_platforms`, :func:`starchart.tradeoff` or
:func:`starchart.input_sensitivity` finds;
``starchart report`` puts the same (and more) in one HTML file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np
import typer
from rich.table import Table

from starchart.analyses.inputs import input_sensitivity
from starchart.analyses.models import compare_models
from starchart.analyses.platforms import compare_platforms, load_platforms
from starchart.analyses.tradeoff import TIME_NAMES, suggest_limits, traded_metrics, tradeoff
from starchart.cli.app import app, err, friendly, out
from starchart.cli.common import (
    DirectionOption,
    LimitOption,
    MetricsOption,
    load_data,
    metric_columns,
    metric_name,
    minimize_for,
    option_names,
    parse_limits,
)
from starchart.cli.figures import PlotOption, check_figure_path, save_plot
from starchart.errors import InputError


@app.command("platforms")
@friendly
def platforms_command(
    sources: list[str] = typer.Argument(..., metavar="[LABEL=]DATA...",
                                        help="One measurement file (or store) per platform, of the same space; "
                                             "named by LABEL, else by the file name."),
    metric: Optional[str] = typer.Option(None, "--metric", "-m", help="Metric to compare (default: objective)."),
    metrics: Optional[str] = MetricsOption,
    maximize: Optional[bool] = DirectionOption,
    tolerance: float = typer.Option(0.05, "--tolerance", min=0.0,
                                    help="A setting is good everywhere when within this share of every "
                                         "platform's best."),
    baseline: Optional[str] = typer.Option(None, "--baseline", metavar="NAME=VALUE,...",
                                           help="A shipped default configuration, e.g. block_size_x=16,"
                                                "block_size_y=16: each platform's best against it (§VII-B)."),
    plot: Optional[Path] = PlotOption,
    tree_plot: Optional[Path] = typer.Option(None, "--tree-plot", help="Also draw the tree over every platform, "
                                             "each platform's best subspace shaded (.svg/.png; the paper's Fig. 8)."),
    top_splits: int = typer.Option(3, "--top-splits", min=1, metavar="K",
                                   help="--tree-plot: the K splits that explain most, and the way to each best."),
) -> None:
    """Compare platforms: each one's own best against one general setting, and what is good everywhere."""
    default = parse_config(baseline, "--baseline") if baseline is not None else None
    metric = metric_name(metric)
    for path, option in ((plot, "--plot"), (tree_plot, "--tree-plot")):
        if path is not None:
            check_figure_path(path, option)
    with option_names({"sources": "[LABEL=]DATA", "data": "[LABEL=]DATA"}):
        merged = load_platforms(sources, metrics=metric_columns(metrics))
        metric = merged.default_metric if metric is None else metric
        if metric not in merged.metrics:
            raise InputError(f"no metric named {metric!r} in every file", where="--metric",
                             hint=f"the metrics they share: {', '.join(merged.metrics)}")
        with err.status(f"fitting trees of {len(merged)} measurements on {len(merged.meta['platforms'])} platforms"):
            comparison = compare_platforms(merged, metric, minimize=minimize_for(maximize, metric, merged.meta),
                                           tolerance=tolerance)
    out.print(comparison.summary(), highlight=False, soft_wrap=True, markup=False)
    if default is not None:
        with option_names({"baseline": "--baseline"}):
            against = comparison.against(default)
        out.print(f"against the baseline {baseline}:", highlight=False, soft_wrap=True, markup=False)
        for _, row in against.iterrows():
            said = (f"own best {row['own_best']:.4g} is {row['best_vs_baseline']:.3g}× better than the baseline's "
                    f"{row['baseline']:.4g}" if np.isfinite(row["baseline"]) else "the baseline was not measured")
            out.print(f"  {row['platform']}: {said}", highlight=False, soft_wrap=True, markup=False)
    table = Table(title="best subspace of each platform (its own tree)", title_justify="left")
    for column in ("platform", "subspace", "n", f"mean {metric}"):
        table.add_column(column, overflow="fold")
    for _, row in comparison.best_subspaces().iterrows():
        table.add_row(str(row["platform"]), str(row["own_best"]), str(row["own_best_n"]),
                      f"{row['own_best_mean']:.4g}")
    out.print(table)
    portable = comparison.portable(tolerance)
    if len(portable):
        out.print(f"settings within {tolerance:.0%} of the best everywhere (first 5 of {len(portable)}):")
        out.print(portable.head(5).to_string(index=False), highlight=False, soft_wrap=True, markup=False)
    save_plot(comparison.plot, plot)
    save_plot(lambda: comparison.plot_tree(top_splits=top_splits), tree_plot)


@app.command("compare")
@friendly
def compare_command(
    source: Path = typer.Argument(..., help="A measurement file or store with at least train + validation valid "
                                            "designs."),
    metric: Optional[str] = typer.Option(None, "--metric", "-m", help="Response to model (default: objective)."),
    metrics: Optional[str] = MetricsOption,
    train: int = typer.Option(200, "--train", min=2, help="Designs to train on (the paper: 200)."),
    validation: int = typer.Option(200, "--validation", min=1, help="Designs to judge on (the paper: 200)."),
    seeds: int = typer.Option(10, "--seeds", min=1, help="Independent draws; the summary gives their medians."),
    log: bool = typer.Option(False, "--log", help="Fit the linear model to the logarithm of the metric."),
    maximize: Optional[bool] = DirectionOption,
    plot: Optional[Path] = PlotOption,
) -> None:
    """The tree against stepwise linear regression and a forest on unseen designs (the paper's Fig. 5)."""
    metric = metric_name(metric)
    data = _data_to_plot(source, metrics, plot)
    metric = data.default_metric if metric is None else metric
    with option_names({"metric": "--metric", "train": "--train", "validation": "--validation", "seeds": "--seeds",
                       "log_response": "--log"}):
        with err.status(f"fitting three models {seeds} times"):
            result = compare_models(data, metric, train=train, validation=validation, seeds=seeds, log_response=log,
                                    minimize=minimize_for(maximize, metric, data.meta))
    out.print(result.summary(), highlight=False, soft_wrap=True, markup=False)
    save_plot(result.plot, plot)


@app.command("tradeoff")
@friendly
def tradeoff_command(
    source: Path = typer.Argument(..., help="A study store (.db) or a measurement file with two metrics to trade, "
                                            "e.g. time and power."),
    limit: list[str] = LimitOption,
    metrics: Optional[str] = MetricsOption,
    stat: str = typer.Option("0.9", "--stat",
                             help="Judge a subspace by its 'mean', its 'worst' design, or the value a share of its "
                                  "designs meet (0.9: 90 % of them)."),
    max_slowdown: float = typer.Option(0.10, "--max-slowdown", min=0.0,
                                       help="For the savings line: the slowdown over the fastest design accepted."),
    tighten: list[str] = typer.Option([], "--tighten", metavar="METRIC=VALUE",
                                      help="Then tighten targets (repeatable): the same trees answer, one level "
                                           "deeper where needed, as in the paper's Fig. 10 (§VII-D)."),
    plot: Optional[Path] = PlotOption,
) -> None:
    """Power/performance: the subspaces likely to meet every target (one tree per metric), the Pareto front."""
    data = _data_to_plot(source, metrics, plot)
    limits = parse_limits(limit)
    tighter = parse_limits(tighten, "--tighten")  # before the trees: a typo is refused at once
    traded = traded_metrics(data, limits)
    if traded is None:
        raise InputError("no two metrics to trade off (none is named like a time and a power)", where=source,
                         hint="give a target for each of two metrics, e.g. --limit time=VALUE --limit "
                              f"energy=VALUE (the metrics are: {', '.join(data.metrics)})")
    if not limits:
        limits = suggest_limits(data, traded)
        err.print("no --limit given: targets are what the best quarter of the designs reach "
                  + ", ".join(f"{m}={v:.4g}" for m, v in limits.items()), highlight=False, soft_wrap=True,
                  markup=False)
    result = tradeoff(data, traded, limits=limits, stat=_stat(stat))
    out.print(result.summary(), highlight=False, soft_wrap=True, markup=False)
    if result.subspaces.empty and result.coverage["meeting"]:
        meeting = result.coverage["meeting"]
        err.print(f"hint: {meeting} measured {'design meets' if meeting == 1 else 'designs meet'} every target, "
                  f"but no subspace does by --stat {stat}; --stat mean or a smaller share (e.g. --stat 0.5) "
                  "may find some", highlight=False, soft_wrap=True)
    pair = _time_and_power(traded)
    if pair is not None and all(result.minimize[m] for m in pair):  # what a slowdown buys
        _print_savings(result.savings(*pair, max_slowdown=max_slowdown), pair, max_slowdown)
    if tighter:
        with option_names({"limits": "--tighten"}):
            result = result.tighten(**tighter)
        out.print("\ntightened: " + ", ".join(f"{m}={v:.4g}" for m, v in tighter.items()), highlight=False,
                  soft_wrap=True, markup=False)
        out.print(result.summary(), highlight=False, soft_wrap=True, markup=False)
    save_plot(result.plot, plot)


def _data_to_plot(source: Path, metrics: Optional[str], plot: Optional[Path]) -> Any:
    """The measurements a command analyses, once its ``--plot`` path is known to be writable (before the work)."""
    if plot is not None:
        check_figure_path(plot, "--plot")
    return load_data(source, metrics)


def parse_config(text: str, option: str) -> dict[str, str]:
    """``NAME=VALUE,...`` as a configuration (values as written: the analysis matches them to the data's).

    >>> parse_config("block_size_x=16, block_size_y=16", "--baseline")
    {'block_size_x': '16', 'block_size_y': '16'}
    """
    config: dict[str, str] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise InputError(f"{part.strip()!r} is not NAME=VALUE", where=option,
                             hint=f"e.g. {option} block_size_x=16,block_size_y=16")
        config[name.strip()] = value.strip()
    return config


def _time_and_power(traded: list[str]) -> tuple[str, str] | None:
    """The time and the power (or energy) of the traded metrics, by name, for the savings line:
    the time-like one (else the first that is not power-like) and a power-like other one.

    >>> _time_and_power(["Watt", "time"]), _time_and_power(["kernel_ms", "gpu_power"])
    (('time', 'Watt'), ('kernel_ms', 'gpu_power'))
    >>> _time_and_power(["ps_energy", "Watt"]), _time_and_power(["time", "TFLOPS/J"])
    (None, None)
    """

    def power_like(name: str) -> bool:
        return any(word in name.lower() for word in ("power", "watt", "energy", "joule"))

    time = next((m for m in traded if m.lower() in TIME_NAMES), next((m for m in traded if not power_like(m)), None))
    power = next((m for m in traded if m != time and power_like(m)), None)
    return None if time is None or power is None else (time, power)


def _stat(text: str) -> Any:
    """``--stat``: ``mean``, ``worst`` or a share in (0, 1]."""
    if text in ("mean", "worst"):
        return text
    try:
        share = float(text)
    except ValueError:
        share = -1.0
    if not 0 < share <= 1:
        raise InputError(f"--stat must be 'mean', 'worst' or a share in (0, 1], got {text!r}",  # names the option once
                         hint="e.g. --stat 0.9")
    return share


def _print_savings(saved: dict[str, Any], pair: tuple[str, str], max_slowdown: float) -> None:
    time, power = pair
    if not saved.get("candidates") or "saved_w" not in saved:
        return
    out.print(f"accepting up to {max_slowdown:.0%} over the fastest design ({time} {saved['fastest_time']:.4g}, "
              f"{power} {saved['fastest_power']:.4g}): {power} {saved['pick_power']:.4g} at {time} "
              f"{saved['pick_time']:.4g} ({saved['slowdown']:.1%} slower), {saved['saved_pct']:.0%} less "
              f"{power}; {saved.get('pick_config', '')}", highlight=False, soft_wrap=True, markup=False)


@app.command("inputs")
@friendly
def inputs_command(
    source: Path = typer.Argument(..., help="A study store (.db) or a measurement file where the input's size or "
                                            "shape are parameters."),
    input_: list[str] = typer.Option(..., "--input", "-i", help="A parameter describing the input, e.g. N "
                                                               "(repeatable: rows, cols)."),
    work: Optional[str] = typer.Option(None, "--work",
                                       help="Work per run as a function of the size, e.g. n^3 or 'n * m': times "
                                            "become throughput (work per second), comparable across inputs."),
    size: Optional[str] = typer.Option(None, "--size", help="The size parameter of --work (default: the first "
                                                            "--input)."),
    metric: Optional[str] = typer.Option(None, "--metric", "-m",
                                         help="Metric (default: the objective); with --work, the time (ms) that "
                                              "becomes throughput (default: time)."),
    metrics: Optional[str] = MetricsOption,
    maximize: Optional[bool] = DirectionOption,
    plot: Optional[Path] = PlotOption,
    tree_plot: Optional[Path] = typer.Option(None, "--tree-plot", help="Also draw the tree over the inputs and the "
                                             "parameters, each input's best subspace shaded (.svg/.png; Fig. 9)."),
    top_splits: int = typer.Option(3, "--top-splits", min=1, metavar="K",
                                   help="--tree-plot: the K splits that explain most, and the way to each best."),
) -> None:
    """Input sensitivity: how much the input matters, which parameters' effect depends on it, how bests transfer."""
    metric = metric_name(metric)
    if tree_plot is not None:
        check_figure_path(tree_plot, "--tree-plot")
    data = _data_to_plot(source, metrics, plot)
    direction = None if maximize is None else not maximize
    with option_names({"inputs": "--input", "work": "--work", "size": "--size", "time": "--metric"}):
        if work is None:
            result = input_sensitivity(data, inputs=input_, metric=metric, size=size, minimize=direction)
        else:  # --metric names the time the throughput comes from
            result = input_sensitivity(data, inputs=input_, work=work, size=size, time="time" if metric is None else metric,
                                       minimize=direction)
    out.print(result.summary(), highlight=False, soft_wrap=True, markup=False)
    named = ", ".join(result.inputs)
    out.print(f"the best configuration of each {named} (rows) at each {named} (columns), relative to the best "
              "there (0: failed there, —: not measured there):", highlight=False, soft_wrap=True, markup=False)
    table = Table()
    table.add_column(f"best of {named}")
    for column in result.transfer.columns:
        table.add_column(_input_values(column), justify="right")
    for label, row in result.transfer.iterrows():
        table.add_row(_input_values(label), *(f"{value:.2f}" if value == value else "—" for value in row))
    out.print(table)
    save_plot(result.plot, plot)
    save_plot(lambda: result.plot_tree(top_splits=top_splits), tree_plot)


def _input_values(label: str) -> str:
    """An input's table label without the parameter names the header already gives, so columns stay narrow.

    >>> _input_values("n=256"), _input_values("rows=64, cols=32")
    ('256', '64, 32')
    """
    return ", ".join(part.split("=", 1)[-1] for part in label.split(", "))
