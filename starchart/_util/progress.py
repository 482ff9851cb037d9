"""The one progress bar of starchart's long jobs (measuring, carving, the XAPP corpus), on stderr.

>>> bar = stderr_progress("failed {task.fields[failed]}")
>>> [type(c).__name__ for c in bar.columns][:4]
['SpinnerColumn', 'TextColumn', 'BarColumn', 'MofNCompleteColumn']
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def stderr_progress(*fields: str) -> Any:
    """A rich ``Progress``: spinner, the task's description (bold, read as markup: escape the user's
    words in it), bar, done/total, one text column per ``fields`` format, elapsed time and eta.

    On stderr: stdout keeps the results, for pipes, files and ``--json``.
    """
    return Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    *(TextColumn(text) for text in fields), TimeElapsedColumn(), TextColumn("eta"),
                    TimeRemainingColumn(), transient=False, console=Console(stderr=True))
