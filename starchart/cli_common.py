"""What every ``starchart`` command shares: the Typer app, the consoles, friendly errors."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from starchart.errors import InputError, StarchartError
from starchart.text import shorten

#: Click's exceptions (newer Typers bring their own copy of Click, older ones use the click package).
_click_errors = importlib.import_module(typer.BadParameter.__module__)


class OneLineErrorsGroup(TyperGroup):
    """The ``starchart`` command group, whose usage errors (a bad option value, a missing argument,
    an unknown command or option) print as one line plus a hint like every other error, not as a panel."""

    def make_context(self, info_name: Optional[str], args: list[str], parent: Any = None,
                     **extra: Any) -> Any:
        with _one_line_usage_errors():
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        with _one_line_usage_errors(ctx):
            return super().invoke(ctx)


app = typer.Typer(add_completion=False, no_args_is_help=True, cls=OneLineErrorsGroup,
                  help="Starchart: understand and tune GPU/CPU kernel tuning spaces with regression trees.")
# markup=False: what these consoles print is mostly the user's text (paths, parameter names and values,
# a program's own words), where "[/b]" is text, not rich markup; the few styled lines say markup=True and
# escape() what they quote.
out = Console(markup=False)
err = Console(stderr=True, markup=False)

DirectionOption = typer.Option(
    None, "--maximize/--minimize",
    help="Whether higher values of the metric are better (default: by its name — rates and efficiencies "
         "such as GFLOP/s or TFLOPS/J are maximised, times, energies and powers minimised).")


LimitOption = typer.Option([], "--limit", "-l", metavar="METRIC=VALUE",
                           help="A target of the power/performance trade-off, e.g. time=0.002 or power=150 "
                                "(repeatable; ≤ for a metric to minimise, ≥ for one to maximise).")


def parse_limits(given: list[str]) -> dict[str, float]:
    """``--limit METRIC=VALUE`` options as ``{metric: value}``; a malformed one is refused naming it.

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
        if number is None:
            raise InputError(f"{text!r} is not METRIC=NUMBER", where="--limit", hint="e.g. --limit time=0.002")
        if name.strip() in limits:
            raise InputError(f"two targets for {name.strip()!r}", where="--limit", hint="give one per metric")
        limits[name.strip()] = number
    return limits


MetricsOption = typer.Option(None, "--metrics",
                             help="CSV only: comma-separated response columns (the rest are parameters).")


def metric_columns(metrics: Optional[str]) -> list[str] | None:
    """``--metrics a,b`` (a CSV's measured columns) as a list; ``None`` when not given.

    >>> metric_columns("time, power"), metric_columns(None)
    (['time', 'power'], None)
    """
    return [m.strip() for m in metrics.split(",") if m.strip()] if metrics else None


def load_data(path: Path, metrics: Optional[str]) -> Any:
    """The measurements in ``path`` (:func:`starchart.load`), with ``--metrics`` naming a CSV's measured columns."""
    from starchart.io.load import load

    columns = metric_columns(metrics)
    return load(path, **({"metrics": columns} if columns else {}))


def check_figure_path(path: Path, option: str) -> None:
    """Refuse, before any work, a figure file whose suffix matplotlib cannot write or whose folder is missing."""
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    if path.suffix.lstrip(".").lower() not in formats:
        raise InputError(f"cannot write a figure as {path.name!r}", where=option,
                         hint=f"name a file ending in .svg or .png (or {', '.join(sorted(formats))})")
    check_output_folder(path, option)


def check_output_folder(path: Path, option: str) -> None:
    """Refuse, before any work, an output file that is a folder or whose folder is missing (else it
    fails after all the work)."""
    if path.is_dir():
        raise InputError(f"{str(path)!r} is a folder, not a file", where=option,
                         hint="name a file, in that folder if it is the place")
    if not path.parent.is_dir():
        raise InputError(f"the folder {str(path.parent)!r} does not exist", where=option,
                         hint="create it first, or name a file in an existing folder")


PlotOption = typer.Option(None, "--plot", help="Also write the figure (.svg/.png).")


def save_plot(draw: Callable[[], Any], path: Optional[Path]) -> None:
    """Draw the figure only when ``--plot`` asks for it, and write it there."""
    if path is None:
        return
    draw().savefig(path, bbox_inches="tight")
    err.print(f"wrote {path}", markup=False, highlight=False)  # a path: the user's text, not markup


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
    from starchart.direction import lower_is_better

    return lower_is_better(metric, meta) if maximize is None else not maximize


def friendly(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a StarchartError or an OSError (a path) into one line on stderr and exit status 2 (no traceback)."""
    @wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except StarchartError as exc:
            print_error(exc.message, exc.where, exc.hint)
            raise typer.Exit(2) from None
        except OSError as exc:  # a file we were told to read or write: one line, not a traceback
            print_error(str(exc.strerror or exc), exc.filename,
                        "check the path, that its folder exists and that you may write there")
            raise typer.Exit(2) from None
    return run


@contextmanager
def option_names(options: Mapping[str, str], phrases: Sequence[tuple[str, str]] = ()) -> Iterator[None]:
    """Show a library error in the command line's words: the Python argument names it quotes
    (``where="budget"``, ``pass budget=N``, ``band_line=9999``) become the options the user typed
    (``--budget``, ``pass --budget N``, ``--band-line 9999``); ``phrases`` first replace whole
    Python-only phrases (``(3,) or (3, 20)``) by what to type instead.

    >>> from starchart.errors import InputError
    >>> try:
    ...     with option_names({"budget": "--budget", "trip_counts": "--trip"}):
    ...         raise InputError("trip_counts=-1 is negative", where="k.c, trip_counts", hint="pass budget=N")
    ... except InputError as exc:
    ...     print(exc)
    k.c, --trip: --trip -1 is negative (hint: pass --budget N)
    """
    try:
        yield
    except StarchartError as exc:
        exc.message = _in_options(exc.message, options, phrases)
        exc.hint = None if exc.hint is None else _in_options(exc.hint, options, phrases)
        if exc.where is not None:
            head, sep, last = exc.where.rpartition(", ")
            if last in options:
                exc.where = head + sep + options[last]
        exc.args = (str(exc),)
        raise


def _in_options(text: str, options: Mapping[str, str], phrases: Sequence[tuple[str, str]]) -> str:
    for old, new in phrases:
        text = text.replace(old, new)
    for name, option in options.items():
        start = rf"(?<![\w./\\-]){re.escape(name)}"  # not inside a word or a path
        text = re.sub(start + r"='([^'\s]*)'", lambda m: f"{option} {m.group(1)}", text)  # search='uniform'
        text = re.sub(start + r"=(?=[^\s)])", lambda m: f"{option} ", text)                # budget=N
        text = re.sub(start + "=", lambda m: option, text)                                  # (band_line=)
        if "_" in name:  # a bare identifier (band_line, leave_out) is an argument name in any sentence
            text = re.sub(start + r"(?![\w/-]|\.\w)", lambda m: option, text)
    return text


def print_error(message: str, where: Any = None, hint: Optional[str] = None) -> None:
    """An error as one line on stderr (``error: WHERE: MESSAGE``), then its hint on a second."""
    err.print(f"[bold red]error:[/] {escape(f'{where}: ' if where else '')}{escape(message)}", markup=True, highlight=False,
              soft_wrap=True)
    if hint:
        err.print(f"[yellow]hint:[/] {escape(hint)}", markup=True, highlight=False, soft_wrap=True)


@contextmanager
def _one_line_usage_errors(group: Any = None) -> Iterator[None]:
    """Print a Click usage error raised inside as one line plus a hint, and exit with its status (2).

    ``group``: the group's context, whose sub-command is named when the error carries no context of its
    own (an option missing its value: "starchart tree", not "starchart")."""
    try:
        yield
    except _click_errors.UsageError as exc:
        if isinstance(exc, getattr(_click_errors, "NoArgsIsHelpError", ())):
            raise  # not an error: the help, already shown
        if exc.ctx is not None:
            command = exc.ctx.command_path
        elif group is not None and group.invoked_subcommand:
            command = f"{group.command_path} {group.invoked_subcommand}"
        else:
            command = "starchart"
        print_error(exc.format_message(), command, f"see {command} --help")
        raise typer.Exit(exc.exit_code) from None


def print_failure_reasons(dataset: Any, width: int = 160) -> None:
    """The most common reason of each failure status, one line each (what to fix first)."""
    counts = dataset.status.value_counts()
    for status, reasons in dataset.failure_reasons(top=1).items():
        for reason, n in reasons:
            text = shorten(reason, width, collapse=True)
            # a program's own words: "[/x]" in them is text, not markup (it crashed rich)
            out.print(f"  {status}: most common reason ({n} of {counts[status]}): {text}", highlight=False,
                      soft_wrap=True, markup=False)
