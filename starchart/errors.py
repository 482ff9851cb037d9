"""Errors a user can act on.

Every error the toolkit raises for bad input is a :class:`StarchartError`: its
message says what was wrong, where (file, line, key or parameter) and what to do.
The CLI prints it as one line plus the hint, never as a traceback.
"""

from __future__ import annotations

from pathlib import Path


class StarchartError(Exception):
    """Base class of all errors caused by the user's input or environment.

    Parameters
    ----------
    message:
        What was wrong.
    where:
        The file, and optionally line/key/parameter, e.g. ``"cache.json, line 12"``.
    hint:
        What to do about it.

    Examples
    --------
    >>> err = StarchartError("not a number", where="a.csv, line 3", hint="fix the value")
    >>> str(err)
    'a.csv, line 3: not a number (hint: fix the value)'
    """

    def __init__(self, message: str, *, where: str | Path | None = None, hint: str | None = None):
        self.message = message
        self.where = str(where) if where is not None else None
        self.hint = hint
        super().__init__(self.__str__())

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        if self.hint:
            text += f" (hint: {self.hint})"
        return text


class InputError(StarchartError):
    """A file or value given by the user cannot be used as it is."""


class SpaceError(StarchartError):
    """A design space, parameter or constraint is ill-formed or cannot be sampled."""


class NotFittedError(StarchartError, AttributeError):
    """An estimator was used before ``fit``."""
