"""``starchart samples``: how many samples does a tree of this space need? (the paper's §VI-A)

    starchart samples SPACE_FILE (--command "prog {x}" | --c-source k.c | --evaluator ev.yaml | --replay DATA)
                      [--target 8%] [--validation 200] [--start 20] [--growth 2] [--budget 3200]
                      [--seed 0] [--store samples.db] [--workers W] [--plot curve.svg]

Holds out ``--validation`` uniformly drawn designs, then measures growing uniform
training sets (20, 40, 80, ...), refits a tree after each and stops when the median
relative error on the held-out designs reaches ``--target``; prints the accuracy
curve and the tree of the chosen size. Everything measured is kept in ``--store``:
running the same command again, or ``starchart resume STORE``, measures nothing twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from starchart.analyses.sample_size import choose_sample_size
from starchart.cli.app import app, friendly, out
from starchart.cli.common import option_names, seed_option
from starchart.cli.evaluators import (
    EvaluatorChoice,
    WorkersOption,
    _interruptible,
    with_evaluator_options,
)
from starchart.cli.figures import PlotOption, check_figure_path, save_plot
from starchart.errors import InputError

#: Trees with more leaves are printed to their first PRINTED_LEVELS levels only (a 200-leaf tree fills screens).
MAX_PRINTED_LEAVES = 40
PRINTED_LEVELS = 4

#: The library's argument names in the command line's words (for its error messages).
OPTION_NAMES = {"target": "--target", "validation": "--validation", "start": "--start", "growth": "--growth",
                 "budget": "--budget", "metric": "--metric"}


@app.command("samples")
@friendly
@with_evaluator_options
def samples_command(
    space_file: Optional[Path] = typer.Argument(None, help="Space file (YAML/JSON, T1); optional with --replay."),
    target: str = typer.Option("8%", "--target", "-t",
                               help="Stop at this median relative error on the validation set: 8% or 0.08."),
    validation: int = typer.Option(200, "--validation", min=1, help="Designs held out for validation."),
    start: int = typer.Option(20, "--start", min=2, help="The first training-set size."),
    growth: float = typer.Option(2.0, "--growth", help="Factor by which the training set grows each round."),
    budget: int = typer.Option(3200, "--budget", "-b", min=1,
                               help="Most training designs to measure (failures included; validation on top)."),
    seed: int = seed_option(0, "Seed of the uniform sample (same seed, same designs, same curve)."),
    store: Path = typer.Option(Path("samples.db"), "--store", "-s",
                               help="SQLite store of every measurement (run again to resume)."),
    measuring: EvaluatorChoice = EvaluatorChoice(),  # the evaluator options (with_evaluator_options)
    workers: int = WorkersOption,
    plot: Optional[Path] = PlotOption,
) -> None:
    """Sample-size selection: measure growing samples until a tree predicts held-out designs within --target."""
    if plot is not None:
        check_figure_path(plot, "--plot")
    share = parse_share(target, "--target")
    space, evaluator = measuring.space_and_evaluator(space_file)
    with option_names(OPTION_NAMES):
        result = _interruptible(lambda: choose_sample_size(
            space, evaluator, validation=validation, start=start, growth=growth, target=share, budget=budget,
            seed=seed, store=store, metric=measuring.metric, workers=workers, progress=True), store)
    print_sample_size(result, store)
    save_plot(result.plot, plot)


def print_sample_size(result: Any, store: Path) -> None:
    """The accuracy curve as a table, the verdict, and the tree fitted on the chosen sample."""
    table = Table(title=f"accuracy of a tree of {result.metric} on {len(result.validation.ok())} held-out designs",
                  title_justify="left")
    for column in ("training samples", "fitted", "failed", "median error", "mean error", "90th pct error",
                   "leaves"):
        table.add_column(column, justify="right")
    for row in result.curve.itertuples(index=False):
        chosen = row.samples == result.samples
        cells = [str(row.samples), str(row.fitted), str(row.failures), _percent(row.median_rel_error),
                 _percent(row.mean_rel_error), _percent(row.p90_rel_error), str(row.leaves)]
        table.add_row(*cells, style="bold" if chosen else None)
    out.print(table)
    plain = {"highlight": False, "soft_wrap": True, "markup": False}
    out.print(result.summary(), **plain)
    if result.exhausted:  # a larger --budget cannot help: the space holds no more designs
        out.print("to go further: a looser --target, or fewer --validation designs (more left to train on)", **plain)
    elif not result.reached:
        out.print(f"to go further: the same command with a larger --budget (or a looser --target); "
                  f"{store} keeps what was measured", **plain)
    leaves = result.tree.n_leaves_
    shown = None if leaves <= MAX_PRINTED_LEAVES else PRINTED_LEVELS
    note = "" if shown is None else f" (its first {shown} levels of {leaves} leaves)"
    chosen = result.curve[result.curve["samples"] == result.samples]
    fitted = int(chosen["fitted"].iloc[-1]) if len(chosen) else result.samples
    # the failed ones are not fitted on: "fitted on the 160" where 7 failed overstated what the tree saw
    sample = (f"the {fitted} valid of the {result.samples} training samples" if fitted < result.samples
              else f"the {result.samples} training samples")
    out.print(f"\ntree fitted on {sample}{note}:", **plain)
    out.print(result.tree.export_text(max_depth=shown), **plain)


def parse_share(text: str, option: str) -> float:
    """A share given as ``8%`` or ``0.08``, strictly between 0 and 1.

    >>> parse_share("8%", "--target"), parse_share("0.08", "--target")
    (0.08, 0.08)
    """
    given = text.strip()
    try:
        value = float(given[:-1]) / 100 if given.endswith("%") else float(given)
    except ValueError:
        raise InputError(f"{text!r} is not a share", where=option, hint="write it as 8% or 0.08") from None
    if not given.endswith("%") and 1 <= value < 100:  # "--target 8": a percentage without its sign
        raise InputError(f"{text!r} is read as a fraction ({value:g} = {100 * value:g} %), not a percentage",
                         where=option, hint=f"write {given}% for {given} %, or a fraction such as 0.08")
    if not 0 < value < 1:
        raise InputError(f"{text!r} must lie strictly between 0 and 100 %", where=option,
                         hint="e.g. 8% (or 0.08) for a median relative error of 8 %")
    return value


def _percent(value: float) -> str:
    return "—" if value != value else f"{100 * value:.1f} %"
