"""``starchart report``: one self-contained HTML report of a store or of measurement files.

    starchart report study.db|DATA [DATA ...] [-o report.html] [--metric M] [--limit METRIC=VALUE ...]
"""


from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from starchart.cli.app import app, err, friendly
from starchart.cli.common import (
    DirectionOption,
    LimitOption,
    MetricsOption,
    metric_columns,
    metric_name,
    option_names,
    parse_limits,
)
from starchart.report.study import write_study_report


@app.command("report")
@friendly
def report_command(
    sources: list[Path] = typer.Argument(..., help="A study store (.db) or a measurement file (cache, T4, KTT, CSV); "
                                                   "several (PATH or LABEL=PATH): one space on several platforms, "
                                                   "compared."),
    # a str: Path() drops the trailing "/" of "-o out/", which names a folder (report.html in it)
    output: Optional[str] = typer.Option(None, "--output", "-o",
                                         help="HTML file to write (a folder: report.html in it)."),
    metric: Optional[str] = typer.Option(None, "--metric", "-m", help="Metric to explain (default: objective)."),
    metrics: Optional[str] = MetricsOption,
    maximize: Optional[bool] = DirectionOption,
    limit: list[str] = LimitOption,
    prune: Optional[str] = typer.Option(None, "--prune", help="Prune the tree, sized by 10-fold CV: '1se' (rpart's "
                                                              "1-SE rule) or 'relative' (lowest CV median relative "
                                                              "error); as starchart tree --prune."),
    max_depth: Optional[int] = typer.Option(None, "--max-depth", min=0, help="Limit the tree's depth."),
    min_split: int = typer.Option(10, "--min-split", min=2, help="Do not split nodes with fewer samples."),
) -> None:
    """Write one self-contained HTML report: tree, importance, best region, and whatever else applies.

    The tree is the full Starchart tree unless --prune or --max-depth sizes it: on thousands of
    configurations the full tree has hundreds of leaves, --prune 1se keeps the splits that predict.
    """
    source = sources[0] if len(sources) == 1 else [str(s) for s in sources]
    with option_names({"prune": "--prune", "max_depth": "--max-depth", "min_samples_split": "--min-split"}):
        path = write_study_report(source, output, metric=metric_name(metric),
                                  minimize=None if maximize is None else not maximize,
                                  metrics=metric_columns(metrics), limits=parse_limits(limit), prune=prune,
                                  max_depth=max_depth, min_samples_split=min_split)
    err.print(f"wrote {path}", markup=False, highlight=False)  # a path: the user's text, not markup
