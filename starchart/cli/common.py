"""What several ``starchart`` commands share: options, loading data, figures, durations, error wording.

The app, the consoles and the error printing live in :mod:`starchart.cli.app`."""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import Any, Optional

import typer

from starchart._util.direction import lower_is_better
from starchart._util.text import shorten
from starchart.cli.app import out
from starchart.errors import InputError, StarchartError
from starchart.io.load import load

DirectionOption = typer.Option(
    None, "--maximize/--minimize",
    help="Whether higher values of the metric are better (default: by its name — rates and efficiencies "
         "such as GFLOP/s or TFLOPS/J are maximised, times, energies and powers minimised).")


LimitOption = typer.Option([], "--limit", "-l", metavar="METRIC=VALUE",
                           help="A target of the power/performance trade-off, e.g. time=0.002 or power=150 "
                                "(repeatable; ≤ for a metric to minimise, ≥ for one to maximise).")


def parse_limits(given: list[str], option: str = "--limit") -> dict[str, float]:
    """``--limit METRIC=VALUE`` options (or those of ``option``) as ``{metric: value}``; a malformed one is
    refused naming it.

    >>> parse_limits(["time=0.002", "ps_power = 150"])
    {'time': 0.002, 'ps_power': 150.0}
    """
    limits: dict[str, float] = {}
    for text in given:
        name, sep, value = text.partition("=")
        try:
            number = float(value) if sep and name.strip() else None
        except ValueError:
            number = None
        if number is None or not math.isfinite(number):  # inf or nan would be no target at all
            raise InputError(f"{text!r} is not METRIC=NUMBER (a finite number)", where=option,
                             hint=f"e.g. {option} time=0.002")
        if name.strip() in limits:
            raise InputError(f"two targets for {name.strip()!r}", where=option, hint="give one per metric")
        limits[name.strip()] = number
    return limits


MetricsOption = typer.Option(None, "--metrics",
                             help="Comma-separated metrics: a CSV's measured columns (the rest are parameters), "
                                  "or the fields of a Kernel Tuner cache to keep.")


def metric_columns(metrics: Optional[str]) -> list[str] | None:
    """``--metrics a,b`` (a CSV's measured columns) as a list; ``None`` when not given.

    >>> metric_columns("time, power"), metric_columns(None)
    (['time', 'power'], None)
    >>> metric_columns(",")
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: --metrics: ',' names no column (hint: e.g. --metrics time,power, or leave it out)
    """
    if metrics is None:
        return None
    names = [m.strip() for m in metrics.split(",") if m.strip()]
    if not names:  # "" and "," were taken as "not given": every numeric column became a metric, unsaid
        raise InputError(f"{metrics!r} names no column", where="--metrics",
                         hint="e.g. --metrics time,power, or leave it out")
    return names


def metric_name(metric: Optional[str], option: str = "--metric") -> Optional[str]:
    """``--metric M`` as given: ``None`` when it is left out (the data's objective), an empty name refused.

    >>> metric_name(None), metric_name("time")
    (None, 'time')
    >>> metric_name(" ")
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: --metric: ' ' is an empty metric name (hint: name one of the data's metrics, \
or leave out --metric for its objective)
    """
    if metric is not None and not metric.strip():  # "" was taken as "not given": the objective, unsaid
        raise InputError(f"{metric!r} is an empty metric name", where=option,
                         hint=f"name one of the data's metrics, or leave out {option} for its objective")
    return metric


def load_data(path: Path, metrics: Optional[str]) -> Any:
    """The measurements in ``path`` (:func:`starchart.load`), with ``--metrics`` naming a CSV's measured columns."""
    columns = metric_columns(metrics)
    return load(path, **({"metrics": columns} if columns else {}))


def check_output_folder(path: Path, option: str) -> None:
    """Refuse, before any work, an output file that is a folder or whose folder is missing (else it
    fails after all the work)."""
    if path.is_dir():
        raise InputError(f"{str(path)!r} is a folder, not a file", where=option,
                         hint="name a file, in that folder if it is the place")
    if not path.parent.is_dir():
        raise InputError(f"the folder {str(path.parent)!r} does not exist", where=option,
                         hint="create it first, or name a file in an existing folder")


def seed_option(default: Optional[int], help: str) -> Any:
    """A ``--seed`` option limited to what numpy's generators accept (0 … 2³² − 1)."""
    return typer.Option(default, "--seed", min=0, max=2**32 - 1, help=help)


def parse_duration(text: str | None, option: str = "--time-limit") -> float | None:
    """Seconds in a duration as people write it: ``3600``, ``90s``, ``30m``, ``2h``, ``1h30m``, ``1.5h``.

    >>> [parse_duration(t) for t in ("3600", "90s", "30m", "1h30m", "1h30", "1.5h", None)]
    [3600.0, 90.0, 1800.0, 5400.0, 5400.0, 5400.0, None]
    >>> parse_duration("soon")
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: --time-limit: 'soon' is not a duration (hint: write seconds (3600) or \
with units: 90s, 30m, 2h, 1h30m)
    """
    if text is None:
        return None
    parts = re.fullmatch(r"\s*(?:(\d+(?:\.\d*)?)\s*h)?\s*(?:(\d+(?:\.\d*)?)\s*m)?\s*(?:(\d+(?:\.\d*)?)\s*(s?))?\s*",
                         text.lower())
    seconds = None
    if parts is not None and any(parts.groups()[:3]):
        hours, minutes, rest, unit = parts.groups()
        if hours and not minutes and rest and not unit:  # "1h30" as people say it: an hour and a half
            minutes, rest = rest, None
        seconds = sum(float(value) * scale for value, scale in zip((hours, minutes, rest), (3600, 60, 1)) if value)
    if seconds is None or seconds <= 0:
        raise InputError(f"{text!r} is not a duration" if seconds is None else f"{text!r} is no time at all",
                         where=option, hint="write seconds (3600) or with units: 90s, 30m, 2h, 1h30m")
    return seconds


def minimize_for(maximize: Optional[bool], metric: str, meta: Mapping[str, Any] | None = None) -> bool:
    """The direction of ``metric``: ``--maximize``/``--minimize`` if given, else as the data or name says."""
    return lower_is_better(metric, meta) if maximize is None else not maximize


@contextmanager
def option_names(options: Mapping[str, str]) -> Iterator[None]:
    """Show a library error in the command line's words: the arguments it mentions (``where="budget"``,
    ``arg("budget", "N")``) as the options that set them (``--budget``, ``--budget N``).

    The error renders its own mentions (:func:`starchart.errors.arg`, :func:`starchart.errors.say`); this
    only tells it which option stands for which argument. Nothing in its text is rewritten.

    >>> from starchart.errors import InputError, arg
    >>> try:
    ...     with option_names({"budget": "--budget", "trip_counts": "--trip"}):
    ...         raise InputError(f"{arg('trip_counts', '-1')} is negative", where="k.c, trip_counts",
    ...                          hint=f"pass {arg('budget', 'N')}")
    ... except InputError as exc:
    ...     print(exc)
    k.c, --trip: --trip -1 is negative (hint: pass --budget N)
    """
    try:
        yield
    except StarchartError as exc:
        exc.in_words_of(options)
        raise


def print_failure_reasons(dataset: Any, width: int = 160) -> None:
    """The most common reason of each failure status, one line each (what to fix first)."""
    counts = dataset.status.value_counts()
    for status, reasons in dataset.failure_reasons(top=1).items():
        for reason, n in reasons:
            text = shorten(reason, width, collapse=True)
            # a program's own words: "[/x]" in them is text, not markup (it crashed rich)
            out.print(f"  {status}: most common reason ({n} of {counts[status]}): {text}", highlight=False,
                      soft_wrap=True, markup=False)


def option_group(placeholder: str, group: Callable[..., Any],
                 parameters: Sequence[inspect.Parameter]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator that gives a command several options in place of one parameter.

    The command declares ``placeholder: SomeGroup``; Typer sees ``parameters`` (with their ``typer.Option``
    defaults) in that place, in that order, and the command receives them as one ``group(**values)``. So a
    set of options that several commands share is declared once (``run``, ``search`` and ``samples`` share
    the evaluator options; the XAPP commands their build options).
    """
    names = [parameter.name for parameter in parameters]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(command)
        given: list[inspect.Parameter] = []
        for parameter in signature.parameters.values():
            given.extend(parameters if parameter.name == placeholder else [parameter])

        @wraps(command)
        def run(**values: Any) -> Any:
            return command(**{placeholder: group(**{name: values.pop(name) for name in names})}, **values)

        run.__signature__ = signature.replace(parameters=given)  # type: ignore[attr-defined]  # what Typer reads
        return run

    return decorate


def options(*triples: tuple[str, Any, Any]) -> list[inspect.Parameter]:
    """``(name, typer.Option(...), annotation)`` triples as the parameters of :func:`option_group`."""
    return [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=option, annotation=annotation)
            for name, option, annotation in triples]
