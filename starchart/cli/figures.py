"""What the commands that draw share: the ``--plot`` option, checking its file before any work, and saving.

Only the commands that draw import this module, so the others never load matplotlib.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import typer
from matplotlib.backend_bases import FigureCanvasBase

from starchart.cli.app import err
from starchart.cli.common import check_output_folder
from starchart.errors import InputError

PlotOption = typer.Option(None, "--plot", help="Also write the figure (.svg/.png).")


def check_figure_path(path: Path, option: str) -> None:
    """Refuse, before any work, a figure file whose suffix matplotlib cannot write or whose folder is missing."""
    formats = FigureCanvasBase.get_supported_filetypes()
    if path.suffix.lstrip(".").lower() not in formats:
        raise InputError(f"cannot write a figure as {path.name!r}", where=option,
                         hint=f"name a file ending in .svg or .png (or {', '.join(sorted(formats))})")
    check_output_folder(path, option)


def save_plot(draw: Callable[[], Any], path: Optional[Path]) -> None:
    """Draw the figure only when ``--plot`` asks for it, and write it there."""
    if path is None:
        return
    draw().savefig(path, bbox_inches="tight")
    err.print(f"wrote {path}", markup=False, highlight=False)  # a path: the user's text, not markup
