"""What every ``starchart`` command shares: the Typer app, the consoles, friendly errors."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

import typer
from rich.console import Console

from starchart.errors import StarchartError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Starchart: understand and tune GPU/CPU kernel tuning spaces with regression trees.")
out = Console()
err = Console(stderr=True)


def friendly(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a StarchartError into one line on stderr and exit status 2 (no traceback)."""
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
    return run
