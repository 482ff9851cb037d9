"""``starchart search``: the tree-guided search for the best configuration, stored and resumable.

    starchart search SPACE_FILE (evaluator options as for run) --budget N [--seed S] [--store db] [--workers W]
                     [--time-limit 2h] [--static carved.csv]
"""


from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from starchart.cli.app import app, err, friendly, out
from starchart.cli.common import (
    DirectionOption,
    option_names,
    parse_duration,
    print_failure_reasons,
    seed_option,
)
from starchart.cli.evaluators import (
    EvaluatorChoice,
    TimeLimitOption,
    _interruptible,
    with_evaluator_options,
)
from starchart.errors import InputError
from starchart.strategies.registry import strategy_names
from starchart.strategies.search import search


@app.command("search")
@friendly
@with_evaluator_options
def search_command(
    space_file: Optional[Path] = typer.Argument(None, help="Space file (YAML/JSON, T1); optional with --replay."),
    budget: int = typer.Option(..., "--budget", "-b", min=1, help="Evaluations to spend (failures included)."),
    seed: Optional[int] = seed_option(None, "Seed of every random choice."),
    store: Optional[Path] = typer.Option(None, "--store", "-s", help="SQLite store (resumable)."),
    measuring: EvaluatorChoice = EvaluatorChoice(),  # the evaluator options (with_evaluator_options)
    prior: Optional[Path] = typer.Option(None, "--prior", help="Earlier measurements of the same space "
                                         "(another GPU's cache file or store): a warm start."),
    maximize: Optional[bool] = DirectionOption,
    workers: int = typer.Option(1, "--workers", "-w", min=1, help="Configurations measured at a time "
                                "(proposed in batches; the search stays deterministic for a seed)."),
    time_limit: Optional[str] = TimeLimitOption,
    strategy: Optional[str] = typer.Option(None, "--strategy", help=f"How to choose what to measure next: "
                                           f"{' | '.join(strategy_names())} (default: tree, static with "
                                           f"--static, or what the store recorded)."),
    static: Optional[Path] = typer.Option(None, "--static", help="Static metrics per configuration (the CSV "
                                          "starchart carve --table writes): the model splits on them from the "
                                          "first round."),
) -> None:
    """Tree-guided search for the best configuration within a budget of evaluations."""
    if prior is not None and not prior.is_file():  # named here: the loader's error names only the path
        raise InputError(f"{str(prior)!r} is not a file", where="--prior",
                         hint="give earlier measurements of the same space (a cache file, data file or store)")
    if static is not None and not static.is_file():
        raise InputError(f"{str(static)!r} is not a file", where="--static",
                         hint="give the table starchart carve SOURCE.cu ... --table FILE.csv writes")
    limit = parse_duration(time_limit)  # a typo is refused before anything is measured
    space, evaluator = measuring.space_and_evaluator(space_file, maximize)
    # the library's errors in the command line's words: "use --budget 81", not "use budget=81"
    with option_names({"budget": "--budget", "seed": "--seed", "prior": "--prior", "strategy": "--strategy",
                       "static": "--static"}):
        _print_search(_interruptible(lambda: search(evaluator, space, budget, seed=seed, store=store,
                                                    progress=True, prior=prior, workers=workers,
                                                    time_limit=limit, strategy=strategy, static=static), store),
                      store)


def _print_search(result: Any, store: Path | None = None) -> None:
    """Why the failed evaluations of a search failed (as ``run`` says it), then its result on the last line."""
    if result.failures:  # a heading: the reasons' lines are indented under it
        out.print(f"{result.failures} of {len(result.history)} evaluations failed:", highlight=False)
    print_failure_reasons(result.to_dataset())
    history = result.history
    # ran, but printed inf (or no value): no failure status, yet no result either; say so, as for failures
    valueless = int(((history["status"] == "ok") & history[result.objective].isna()).sum())
    if valueless:
        out.print(f"  no finite {result.objective}: {valueless} of {len(history)} evaluations ran but gave no finite "
                  f"value (inf, or none)", highlight=False, soft_wrap=True, markup=False)
    out.print(result.summary(reasons=False), highlight=False, soft_wrap=True, markup=False)
    if result.stopped:  # the budget is not spent: say how to spend the rest
        how = (f"starchart resume {store} continues it" if store is not None else
               "it was not stored: run it again with --store FILE to be able to continue it after a stop")
        err.print(f"{how} (nothing measured is measured again)", markup=False, highlight=False, soft_wrap=True)
    if result.best is None:  # every evaluation is stored, but a script or CI job must see that nothing worked
        raise typer.Exit(1)
