"""Errors a user can act on.

Every error the toolkit raises for bad input is a :class:`StarchartError`: its
message says what was wrong, where (file, line, key or parameter) and what to do.
The CLI prints it as one line plus the hint, never as a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

#: The marks around a mention in an error's text (ASCII separators: never in a message's own words).
_OPEN, _FIELD, _CLOSE = "\x1d", "\x1f", "\x1e"


def arg(name: str, value: str | None = None) -> str:
    """Mention the caller's argument ``name`` (with ``value`` as typed) in an error's message or hint.

    ``arg("time", "")`` mentions the argument as it is passed (``time=`` to Python, ``--metric`` where the
    command line calls it so).

    The error keeps the mention as data and renders it for whoever reads it: ``budget=N`` to a Python
    caller, ``--budget N`` on the command line (see :attr:`StarchartError.options`). A value in single
    quotes (``"'uniform'"``) is a Python string: the command line drops the quotes.

    Examples
    --------
    >>> err = InputError(f"{arg('budget')} must be at least 1", hint=f"e.g. {arg('budget', '100')}")
    >>> str(err)
    'budget must be at least 1 (hint: e.g. budget=100)'
    >>> err.options = {"budget": "--budget"}
    >>> str(err)
    '--budget must be at least 1 (hint: e.g. --budget 100)'
    """
    fields = name if value is None else f"{name}{_FIELD}{value}"
    return f"{_OPEN}a{_FIELD}{fields}{_CLOSE}"


def say(python: str, cli: str) -> str:
    """Words that differ between the Python API and the command line, e.g. how to write a list.

    >>> err = InputError(f"give at least one cut, {say('e.g. (3, 20)', 'e.g. 3,20')}")
    >>> str(err), err.render({})
    ('give at least one cut, e.g. (3, 20)', ('give at least one cut, e.g. 3,20', None, None))
    """
    return f"{_OPEN}s{_FIELD}{python}{_FIELD}{cli}{_CLOSE}"


def render(text: str, options: Mapping[str, str] | None = None) -> str:
    """``text`` with its mentions (:func:`arg`, :func:`say`) in Python's words, or with ``options``
    (argument name → command-line option) in the command line's.

    A marker character that starts no well-formed mention (a file's own bytes quoted in a message) is text:

    >>> render("column a\\x1db"), render(f"{arg('seed', '1')} and a\\x1d\\x1fz", {"seed": "--seed"})
    ('column a\\x1db', '--seed 1 and a\\x1d\\x1fz')
    """
    if _OPEN not in text:
        return text
    parts = []
    for i, piece in enumerate(text.split(_OPEN)):
        if i == 0:
            parts.append(piece)
            continue
        mention, closed, rest = piece.partition(_CLOSE)
        kind, *fields = mention.split(_FIELD)
        well_formed = closed and ((kind == "a" and len(fields) in (1, 2)) or (kind == "s" and len(fields) == 2))
        parts.append(_mention(kind, fields, options) + rest if well_formed else _OPEN + piece)
    return "".join(parts)


def _mention(kind: str, fields: list[str], options: Mapping[str, str] | None) -> str:
    if kind == "s":
        return fields[0] if options is None else fields[1]
    name, value = fields[0], (fields[1] if len(fields) > 1 else None)
    option = None if options is None else options.get(name)
    if option is None:  # Python's words, or an argument the command line does not take as an option
        return name if value is None else f"{name}={value}"
    if not value:  # arg(name) names the option; arg(name, "") its use ("time=" to Python)
        return option
    if len(value) > 1 and value[0] == value[-1] == "'":  # a Python string: typed bare on a command line
        value = value[1:-1]
    return f"{option} {value}"


class StarchartError(Exception):
    """Base class of all errors caused by the user's input or environment.

    Parameters
    ----------
    message:
        What was wrong.
    where:
        The file, and optionally line/key/parameter, e.g. ``"cache.json, line 12"``. When the last part
        names an argument (``"budget"``), it is the parameter the error concerns (:attr:`param`).
    hint:
        What to do about it.

    Message and hint may mention the caller's arguments with :func:`arg` (and audience-specific words
    with :func:`say`): the error keeps them as data, and renders them in Python's words unless
    :attr:`options` maps argument names to the command line's options.

    Examples
    --------
    >>> err = StarchartError("not a number", where="a.csv, line 3", hint="fix the value")
    >>> str(err)
    'a.csv, line 3: not a number (hint: fix the value)'
    >>> err = InputError("must be at least 1, got 0", where="budget", hint=f"pass {arg('budget', 'N')}")
    >>> err.param, str(err)
    ('budget', 'budget: must be at least 1, got 0 (hint: pass budget=N)')
    >>> err.render({"budget": "--budget"})
    ('must be at least 1, got 0', '--budget', 'pass --budget N')
    """

    #: argument name → what the reader types instead (a command-line option); None: Python's words
    options: dict[str, str] | None = None

    def __init__(self, message: str, *, where: str | Path | None = None, hint: str | None = None):
        self.raw_message = message
        self.raw_where = str(where) if where is not None else None
        self.raw_hint = hint
        super().__init__(self.__str__())

    @property
    def param(self) -> str | None:
        """The argument this error concerns: the last part of ``where`` when that names one."""
        if self.raw_where is None:
            return None
        last = self.raw_where.rpartition(", ")[2]
        return last if last.isidentifier() else None

    def render(self, options: Mapping[str, str] | None = None) -> tuple[str, str | None, str | None]:
        """Message, where and hint in Python's words, or, given ``options``, in the command line's."""
        where = self.raw_where
        if where is not None and options is not None:
            head, sep, last = where.rpartition(", ")
            if last in options:  # the parameter: the option that sets it
                where = head + sep + options[last]
        return (render(self.raw_message, options), None if where is None else render(where, options),
                None if self.raw_hint is None else render(self.raw_hint, options))

    def in_words_of(self, options: Mapping[str, str]) -> None:
        """Render this error with ``options`` (argument → option) from now on; options already given win."""
        self.options = {**options, **(self.options or {})}
        self.args = (str(self),)

    @property
    def message(self) -> str:
        return self.render(self.options)[0]

    @message.setter
    def message(self, value: str) -> None:
        self.raw_message = value
        self.args = (str(self),)  # what a traceback and pickling show follows the change

    @property
    def where(self) -> str | None:
        return self.render(self.options)[1]

    @where.setter
    def where(self, value: str | Path | None) -> None:
        self.raw_where = None if value is None else str(value)
        self.args = (str(self),)

    @property
    def hint(self) -> str | None:
        return self.render(self.options)[2]

    @hint.setter
    def hint(self, value: str | None) -> None:
        self.raw_hint = value
        self.args = (str(self),)

    def __str__(self) -> str:
        message, where, hint = self.render(self.options)
        text = f"{where}: {message}" if where else message
        if hint:
            text += f" (hint: {hint})"
        return text


class InputError(StarchartError):
    """A file or value given by the user cannot be used as it is."""


class UnknownOptionsError(InputError):
    """Options that nothing takes (a typo, or another kind's option); ``names`` lists them, so a caller
    that gave them under other names (a command line's flags) can say so without reading the message."""

    def __init__(self, message: str, *, where: str | Path | None = None, hint: str | None = None,
                 names: tuple[str, ...] = ()):
        super().__init__(message, where=where, hint=hint)
        self.names = tuple(names)


class StoreDamagedError(InputError):
    """A store file whose pages or values are damaged (a disk error, a copy cut short, an edit by hand)."""


class SpaceError(StarchartError):
    """A design space, parameter or constraint is ill-formed or cannot be sampled."""


class NotFittedError(StarchartError, AttributeError):
    """An estimator was used before ``fit``."""
