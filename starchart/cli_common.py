"""What every ``starchart`` command shares: the Typer app, the consoles, friendly errors."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any, Optional

import typer
from rich.console import Console

from starchart.errors import StarchartError
from starchart.text import shorten

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Starchart: understand and tune GPU/CPU kernel tuning spaces with regression trees.")
out = Console()
err = Console(stderr=True)

DirectionOption = typer.Option(
    None, "--maximize/--minimize",
    help="Whether higher values of the metric are better (default: by its name — rates and efficiencies "
         "such as GFLOP/s or TFLOPS/J are maximised, times, energies and powers minimised).")


def seed_option(default: Optional[int], help: str) -> Any:
    """A ``--seed`` option limited to what numpy's generators accept (0 … 2³² − 1)."""
    return typer.Option(default, "--seed", min=0, max=2**32 - 1, help=help)


def minimize_for(maximize: Optional[bool], metric: str, meta: Mapping[str, Any] | None = None) -> bool:
    """The direction of ``metric``: ``--maximize``/``--minimize`` if given, else as the data or name says."""
    from starchart.direction import lower_is_better

    return lower_is_better(metric, meta) if maximize is None else not maximize


def friendly(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a StarchartError or an OSError (a path) into one line on stderr and exit status 2 (no traceback)."""
    @wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except StarchartError as exc:
            err.print(f"[bold red]error:[/] {exc.where + ': ' if exc.where else ''}{exc.message}",
                      highlight=False, soft_wrap=True)
            if exc.hint:
                err.print(f"[yellow]hint:[/] {exc.hint}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except OSError as exc:  # a file we were told to read or write: one line, not a traceback
            where = f"{exc.filename}: " if exc.filename else ""
            err.print(f"[bold red]error:[/] {where}{exc.strerror or exc}", highlight=False, soft_wrap=True)
            err.print("[yellow]hint:[/] check the path, that its folder exists and that you may write there",
                      highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
    return run


def print_failure_reasons(dataset: Any, width: int = 160) -> None:
    """The most common reason of each failure status, one line each (what to fix first)."""
    counts = dataset.status.value_counts()
    for status, reasons in dataset.failure_reasons(top=1).items():
        for reason, n in reasons:
            text = shorten(reason, width, collapse=True)
            out.print(f"  {status}: most common reason ({n} of {counts[status]}): {text}", highlight=False,
                      soft_wrap=True)
