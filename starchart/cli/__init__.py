"""The ``starchart`` command line: a leaf over the library, one module per group of commands.

:mod:`starchart.cli.app` holds the app and the table of commands; each command's module is imported
only when that command runs, so ``starchart --help`` loads neither numpy nor pandas nor matplotlib.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from rich.markup import escape

from starchart.cli.app import app, err

__all__ = ["app", "expand_optional_values", "main"]


def main(argv: list[str] | None = None) -> None:
    """The ``starchart`` program: :data:`app` with optional-value options expanded."""
    args = sys.argv[1:] if argv is None else list(argv)
    warnings.showwarning = _show_warning
    app(args=expand_optional_values(args), prog_name="starchart")


def _show_warning(message: Warning | str, category: type[Warning], *_: Any, **__: Any) -> None:
    """A warning as one line on stderr, like the errors (no file and line of the library)."""
    err.print(f"[yellow]warning:[/] {escape(str(message))}", markup=True, highlight=False, soft_wrap=True)


def expand_optional_values(args: list[str]) -> list[str]:
    """Give a bare ``--ray`` its default value (Click options cannot have an optional value).

    >>> expand_optional_values(["run", "s.yaml", "--ray", "--samples", "5"])
    ['run', 's.yaml', '--ray', 'local', '--samples', '5']
    >>> expand_optional_values(["resume", "s.db", "--ray", "auto"])
    ['resume', 's.db', '--ray', 'auto']
    """
    out_args: list[str] = []
    for i, arg in enumerate(args):
        out_args.append(arg)
        following = args[i + 1] if i + 1 < len(args) else None
        if arg == "--ray" and (following is None or following.startswith("-")):
            out_args.append("local")
    return out_args
