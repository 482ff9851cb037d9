"""Progress of carving's slow steps: compiling every configuration, then disassembling every cubin.

Compiling a space of a few hundred configurations and disassembling their cubins takes minutes, so
:class:`~starchart.carve.resources.ResourceCompiler` and
:func:`~starchart.carve.static.carve_source` take ``progress``:

- ``False`` (the default): silent;
- ``True``: a rich progress bar on standard error (standard output keeps the results, for pipes and
  ``--json``), one line per step, as :func:`starchart.run` shows its measurements;
- a function ``progress(step, done, total)``, called from the calling thread after each configuration
  of each step (``step`` is ``"compiling"`` or ``"disassembling"``), e.g. for a GUI or a log.

Examples
--------
>>> seen = []
>>> with StepProgress(lambda step, done, total: seen.append((step, done, total))) as bar:
...     bar.start("compiling", 2)
...     bar.advance("compiling")
...     bar.advance("compiling", failed=True)
>>> seen
[('compiling', 0, 2), ('compiling', 1, 2), ('compiling', 2, 2)]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

from rich.markup import escape

from starchart._util.progress import stderr_progress
from starchart.errors import InputError

__all__ = ["ProgressOption", "StepProgress", "step_progress"]

#: What ``progress=`` accepts: ``False``/``None``, ``True`` (a bar on stderr) or ``progress(step, done, total)``.
ProgressOption = Union[bool, None, Callable[[str, int, int], None], "StepProgress"]


class StepProgress:
    """Reports the progress of named steps to a callback, or as a rich bar on stderr (see the module docstring).

    A context manager: the bar is shown between ``__enter__`` and ``__exit__``; entering an already
    entered one is a no-op, so one bar can be handed down to the functions that do each step.
    """

    def __init__(self, progress: bool | None | Callable[[str, int, int], None] = False,
                 label: str = "") -> None:
        if progress is not None and not isinstance(progress, bool) and not callable(progress):
            raise InputError(f"progress must be True, False or a function progress(step, done, total), got "
                             f"{type(progress).__name__}", where="progress",
                             hint="progress=True shows a bar on stderr")
        self._callback = progress if callable(progress) else None
        self._show = progress is True
        self.label = label
        self._bar: Any = None
        self._depth = 0
        self._tasks: dict[str, Any] = {}
        self._counts: dict[str, list[int]] = {}  # step -> [done, total, failed]

    @property
    def enabled(self) -> bool:
        """Whether anything is reported at all."""
        return self._show or self._callback is not None

    def __enter__(self) -> StepProgress:
        self._depth += 1
        if self._depth == 1 and self._show:

            # the description is escaped in start(): the user's words never reach a column unescaped
            self._bar = stderr_progress("{task.fields[failed]}")
            self._bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth = max(0, self._depth - 1)
        if self._depth == 0 and self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None
            self._tasks.clear()

    def start(self, step: str, total: int) -> None:
        """Begin ``step`` with ``total`` items (reported at once, as done 0 of ``total``)."""
        self._counts[step] = [0, int(total), 0]
        if self._bar is not None:

            description = escape(f"{step} {self.label}".strip())
            self._tasks[step] = self._bar.add_task(description, total=int(total), failed=self._failed_text(0))
        if self._callback is not None:
            self._callback(step, 0, int(total))

    def advance(self, step: str, *, failed: bool = False) -> None:
        """One more item of ``step`` done (``failed``: the compiler refused it)."""
        counts = self._counts.setdefault(step, [0, 0, 0])
        counts[0] += 1
        counts[2] += bool(failed)
        if self._bar is not None and step in self._tasks:
            self._bar.update(self._tasks[step], advance=1, failed=self._failed_text(counts[2]))
        if self._callback is not None:
            self._callback(step, counts[0], counts[1])

    @staticmethod
    def _failed_text(failed: int) -> str:
        return f"failed {failed}" if failed else ""  # only a step where something failed says so

    def done(self, step: str) -> tuple[int, int]:
        """``(done, total)`` of ``step`` so far (``(0, 0)`` before it started)."""
        done, total, _ = self._counts.get(step, [0, 0, 0])
        return done, total


def step_progress(progress: ProgressOption, label: str = "") -> StepProgress:
    """``progress`` as a :class:`StepProgress` (one already made is returned as is, to share its bar)."""
    if isinstance(progress, StepProgress):
        progress.label = progress.label or label
        return progress
    return StepProgress(progress, label)
