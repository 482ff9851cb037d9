"""What the measuring commands share: the evaluator options, building the space and evaluator from
them, and running a measuring job with Ctrl-C handling and a summary.

The evaluator can also be a section of the space file::

    parameters: {TILE: [8, 16, 32]}
    evaluator: {kind: c, source: kernel.c, repeats: 5}

Paths in an evaluator file or section (``source``, ``cwd``, ``cache_dir``, a Python function's module)
are taken from that file's folder, and a command runs there unless its ``cwd`` says otherwise, so a study
file works from any folder.
"""


from __future__ import annotations

import math
import shlex
import signal
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pandas as pd
import typer
from rich.markup import escape

from starchart._util.configs import plain_config
from starchart._util.files import parse_json, read_text
from starchart._util.units import unit_of, with_unit
from starchart.cli.app import err, out
from starchart.cli.common import minimize_for, option_group, options, print_failure_reasons
from starchart.cli.data import _read_space
from starchart.errors import InputError, UnknownOptionsError
from starchart.measure import Evaluator, evaluator_class, evaluator_from_dict
from starchart.measure.process import check_fields
from starchart.space import (
    Space,
    _parse_yaml,  # the same YAML reader the space uses
)
from starchart.study.runner import check_metric_names
from starchart.study.store import Store

RayOption = typer.Option(None, "--ray", metavar="[ADDRESS]",
                         help="Evaluate on Ray: alone (or 'local') for a local instance, 'auto' or "
                              "ray://HOST:10001 for a cluster.")
WorkersOption = typer.Option(1, "--workers", "-w", min=1, help="Evaluations at a time.")
# The evaluator options shared by run and search.
CommandOption = typer.Option(None, "--command", help="Program to run, e.g. \"./bench --bx {bx}\".")
CSourceOption = typer.Option(None, "--c-source", help="C file compiled with -D<PARAM>=<value>.")
EvaluatorOption = typer.Option(None, "--evaluator", help="Evaluator file (YAML/JSON).")
ReplayOption = typer.Option(None, "--replay", help="Serve measurements from this data file.")
PatternOption = typer.Option(None, "--pattern", help="Regex whose first group is the metric.")
MetricOption = typer.Option(None, "--metric", help="Name of the measured metric.")
RepeatsOption = typer.Option(None, "--repeats", min=1, help="Measured repeats per configuration.")
TimeoutOption = typer.Option(None, "--timeout", min=0.0, help="Seconds before a run is killed.")
WarmupOption = typer.Option(None, "--warmup", min=0, help="Discarded warm-up repeats.")
TimeLimitOption = typer.Option(None, "--time-limit", metavar="DURATION",
                               help="Stop a search after this long (3600, 90s, 30m, 2h); resume continues it.")



@dataclass(frozen=True)
class EvaluatorChoice:
    """The evaluator options of ``run``, ``search`` and ``samples``, as the user typed them.

    A command declares one parameter ``measuring: EvaluatorChoice`` and the decorator
    :func:`with_evaluator_options` gives Typer the nine options in its place.
    """

    command: Optional[str] = None
    c_source: Optional[Path] = None
    evaluator_file: Optional[Path] = None
    replay: Optional[Path] = None
    pattern: Optional[str] = None
    metric: Optional[str] = None
    repeats: Optional[int] = None
    warmup: Optional[int] = None
    timeout: Optional[float] = None

    def options(self) -> dict[str, Any]:
        """The measuring options given (``--pattern``, ``--repeats`` ...), those not set left out."""
        return evaluator_options(pattern=self.pattern, metric=self.metric, repeats=self.repeats,
                                 warmup=self.warmup, timeout=self.timeout)

    def space_and_evaluator(self, space_file: Optional[Path], maximize: Optional[bool] = None) -> tuple[Any, Any]:
        """The space and the evaluator these options and ``space_file`` describe."""
        return _space_and_evaluator(space_file, self.command, self.c_source, self.evaluator_file, self.replay,
                                    self.options(), maximize)


#: Gives a command the evaluator options (``--command``, ``--c-source`` ... ``--timeout``, in the order --help
#: lists them) in place of its parameter ``measuring``, which receives them as one :class:`EvaluatorChoice`.
with_evaluator_options = option_group("measuring", EvaluatorChoice, options(
    ("command", CommandOption, Optional[str]), ("c_source", CSourceOption, Optional[Path]),
    ("evaluator_file", EvaluatorOption, Optional[Path]), ("replay", ReplayOption, Optional[Path]),
    ("pattern", PatternOption, Optional[str]), ("metric", MetricOption, Optional[str]),
    ("repeats", RepeatsOption, Optional[int]), ("warmup", WarmupOption, Optional[int]),
    ("timeout", TimeoutOption, Optional[float])))


def evaluator_options(**given: Any) -> dict[str, Any]:
    """The evaluator options a command was given (``--pattern``, ``--repeats`` ...), leaving out those not set.

    >>> evaluator_options(pattern=None, repeats=3)
    {'repeats': 3}
    """
    return {name: value for name, value in given.items() if value is not None}


def _space_and_evaluator(space_file: Optional[Path], command: Optional[str], c_source: Optional[Path],
                         evaluator_file: Optional[Path], replay: Optional[Path],
                         options: dict[str, Any], maximize: Optional[bool] = None) -> tuple[Any, Any]:
    """The space (from the file, or a replayed dataset's configurations) and the evaluator of a command.

    The objective's direction: ``maximize`` if given, else the evaluator's own
    ``minimize`` setting if its description has one, else what the data or the
    metric's name says (GFLOP/s and TFLOPS/J are maximised).
    """
    space, section = _read_study_file(space_file) if space_file else (None, None)
    description = _evaluator_description(command, c_source, evaluator_file, replay, section, options)
    source = _evaluator_source(command, c_source, evaluator_file, replay, space_file)
    try:
        evaluator = evaluator_from_dict(description, where=source)
    except InputError as exc:
        raise _as_option_error(exc, options) from None
    if space is not None:
        _check_placeholders(evaluator, space, source)
        try:  # a metric named like a parameter: measured, the study could not be read back
            check_metric_names(space, evaluator, where=source)
        except InputError as exc:
            raise _as_option_error(exc, options) from None
    # (a Python function's objective may be learnt from its first result: its direction follows it)
    if maximize is not None or ("minimize" not in description and description.get("kind") != "python"):
        data = getattr(evaluator, "dataset", None)
        evaluator.minimize = minimize_for(maximize, evaluator.objective, data.meta if data is not None else None)
    if space is None:
        if replay is None:
            raise InputError("no space file given", hint="pass SPACE_FILE (only --replay can do without)")

        space = Space.from_dataset(evaluator.dataset)
    return space, evaluator


def _as_option_error(exc: InputError, options: dict[str, Any]) -> InputError:
    """An error about an option given on the command line (``--timeout 0``) names that option, in its words
    (``--timeout``, ``e.g. --timeout 60``), rather than the evaluator it went into. The error says which
    option it concerns (its ``param``, or the ``names`` of an :class:`UnknownOptionsError`); nothing in its
    text is read."""
    flags = {name: "--" + name.replace("_", "-") for name in options}
    if isinstance(exc, UnknownOptionsError):
        given = [name for name in exc.names if name in options]
        if given:
            names = " and ".join(flags[name] for name in given)
            return InputError(f"{names} {'does' if len(given) == 1 else 'do'} not apply to this evaluator",
                              where=names, hint=f"leave {names} out ({exc.hint})" if exc.hint else None)
    if exc.param not in options:
        return exc
    exc.where = exc.param  # the option alone: it was typed, not read from a file
    exc.in_words_of(flags)
    return exc


def _check_placeholders(evaluator: Any, space: Any, source: str) -> None:
    """Refuse a ``{name}`` in the command that is no parameter of the space, naming where the command came
    from (``--command``, or the evaluator file or section) before anything is measured or stored; likewise
    what an evaluator can check against the space without measuring (C macro names, CUDA launch expressions)."""
    fields = getattr(evaluator, "parameters", None)  # what a command evaluator's argv and env use
    if fields:
        check_fields(set(fields), space, source)
    check_space = getattr(evaluator, "check_space", None)
    if check_space is not None:
        try:
            check_space(space)
        except InputError as exc:
            where = exc.raw_where or ""
            if where.startswith(type(evaluator).__name__) or not where:
                exc.where = source
            elif "/" not in where and not where.startswith(source):
                exc.where = f"{source}, {where}"
            raise exc from None


def _measure(job: Any, store: Path, summary: bool = True, again: Optional[str] = None) -> Any:
    """Run ``job``; on Ctrl-C say what was kept and how to continue (exit 130)."""
    result = _interruptible(job, store, again)
    if summary:
        _print_summary(result, store)
    return result


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _is_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised while handling, a KeyboardInterrupt (compiled code that is
    interrupted mid-call surfaces it as a SystemError with the interrupt as its context)."""
    seen: set[int] = set()
    at: BaseException | None = exc
    while at is not None and id(at) not in seen:
        if isinstance(at, KeyboardInterrupt):
            return True
        seen.add(id(at))
        at = at.__cause__ or at.__context__
    return False


def _interruptible(job: Any, store: Optional[Path], again: Optional[str] = None) -> Any:
    """Run ``job``; on Ctrl-C or SIGTERM stop its processes, say what was kept and how to continue (exit 130):
    with ``again``, else with ``starchart resume STORE``."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _raise_interrupt) if main else None
    try:
        result = job()
    except (KeyboardInterrupt, SystemError) as exc:
        if not _is_interrupt(exc):
            raise
        if store is None:
            err.print("\n[yellow]stopped.[/] Nothing was stored; pass --store FILE to make a search resumable.",
                      markup=True, highlight=False)
        else:
            err.print(f"\n[yellow]stopped.[/] Every finished measurement is in {escape(str(store))}; "
                      f"continue with: {escape(again or f'starchart resume {store}')}", markup=True, highlight=False,
                      soft_wrap=True)  # one line: the command is copied from logs too
        raise typer.Exit(130) from None
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
    return result


def _print_others_measuring(store: Path) -> None:
    """Say so when other runs of the study are still measuring: this run's summary is not the study's."""
    try:
        with Store.open(store, read_only=True) as db:
            busy = db.being_measured()
    except (InputError, sqlite3.Error):  # gone or unreadable now: the summary above stands
        return
    if busy:
        out.print(f"{busy} more {'is' if busy == 1 else 'are'} being measured by another run of this study "
                  f"(see them with: starchart info {store} once it ends)", highlight=False, soft_wrap=True)


def _print_summary(dataset: Any, store: Path) -> None:
    """What the store holds, why configurations failed, the best; exit 1 when none gave a value (for scripts)."""
    frame = dataset.frame
    counts = frame["status"].value_counts()
    failures = "  ".join(f"{status}: {n}" for status, n in counts.items() if status != "ok")
    out.print(f"[bold]{escape(str(store))}[/]: {len(frame)} configurations, {int(counts.get('ok', 0))} ok"
              + escape(f"  ({failures})" if failures else ""), markup=True, highlight=False, soft_wrap=True)
    _print_others_measuring(store)
    print_failure_reasons(dataset)

    ok = dataset.ok()
    metric = dataset.default_metric if dataset.metrics else None
    # ran but printed inf or nothing: ok, yet not a result (the best of them would read "inf")
    values = ok.frame[metric].astype(float) if metric is not None and len(ok) else pd.Series(dtype=float)
    values = values[values.map(math.isfinite)]
    if not len(values):  # everything is stored, but a script or CI job must see that nothing worked
        err.print(f"no configuration gave a finite {metric or 'result'}: exit status 1", highlight=False)
        raise typer.Exit(1)
    best = values.idxmin() if minimize_for(None, metric, dataset.meta) else values.idxmax()

    config = plain_config({p: ok.frame.loc[best, p] for p in dataset.params})
    shown = with_unit(values[best], unit_of(metric, dataset.meta), ".6g")
    out.print(f"best {metric}: {shown}  at {config}", highlight=False, soft_wrap=True, markup=False)


def _read_study_file(path: Path) -> tuple[Any, dict[str, Any] | None]:
    """The space of a space file, and its ``evaluator`` section (paths resolved against the file)."""
    space = _read_space(path, [])
    if path.suffix.lower() not in (".yaml", ".yml", ".json"):
        return space, None
    text = read_text(path)
    data = parse_json(text, path, unique_keys=True) if path.suffix.lower() == ".json" else _parse_yaml(text, path)
    section = data.get("evaluator") if isinstance(data, dict) else None
    if section is None:
        if isinstance(data, dict) and "evaluator" in data:  # "evaluator:" with nothing under it
            raise InputError("the 'evaluator' section is empty", where=f"{path}, evaluator",
                             hint="give its options, e.g. evaluator: {kind: c, source: kernel.c}, or remove it")
        return space, None
    if not isinstance(section, dict):
        raise InputError("'evaluator' must be a mapping with a 'kind'", where=f"{path}, evaluator",
                         hint="e.g. evaluator: {kind: c, source: kernel.c}")
    return space, _resolve_paths(section, path.parent)


def _resolve_paths(section: dict[str, Any], folder: Path) -> dict[str, Any]:
    """Paths in an evaluator file or section are taken from that file's folder, whichever folder the command
    runs in: the sources, the cache, a command's working folder (by default the file's own, so that
    ``argv: [./bench]`` beside the file runs from anywhere) and the folder of a Python function's module.
    Which options are paths is the evaluator class's to say (:meth:`Evaluator.resolve_paths`)."""
    cls = evaluator_class(str(section.get("kind"))) or Evaluator
    return cls.resolve_paths(section, folder)


#: The options that name an evaluator, in a command with or without --replay.
_EVALUATOR_SOURCES = {True: "--command, --c-source, --evaluator or --replay",
                      False: "--command, --c-source or --evaluator"}


def _evaluator_description(command: Optional[str], c_source: Optional[Path], evaluator_file: Optional[Path],
                           replay: Optional[Path], section: Optional[dict[str, Any]],
                           options: dict[str, Any], *, replayable: bool = True) -> dict[str, Any]:
    """The evaluator's description from the one source given; ``replayable``: the command takes --replay."""
    given = [name for name, value in (("--command", command), ("--c-source", c_source),
                                      ("--evaluator", evaluator_file), ("--replay", replay)) if value]
    if len(given) > 1:
        raise InputError(f"choose one evaluator, got {' and '.join(given)}", hint="pass exactly one of them")
    if command:
        try:
            argv = shlex.split(command)
        except ValueError as exc:  # e.g. "No closing quotation"
            raise InputError(f"--command cannot be split into words: {exc}", where="--command",
                             hint="balance the quotes, e.g. --command \"./bench {n} 'a b'\"") from None
        description: dict[str, Any] = {"kind": "command", "argv": argv}
    elif c_source:
        description = {"kind": "c", "source": str(c_source.resolve())}
    elif replay:
        description = {"kind": "replay", "source": str(replay)}
        ignored = [f"--{k}" for k in options if k != "metric"]
        if ignored:  # measurements served back are not run again: these would be silently ignored
            raise InputError(f"{' and '.join(ignored)} cannot apply to --replay, which serves stored "
                             "measurements back", where=ignored[0], hint=f"leave {' and '.join(ignored)} out")
        options = {k: v for k, v in options.items() if k == "metric"}
        if "metric" in options:
            description["metrics"] = [options.pop("metric")]
    elif evaluator_file:

        text = read_text(evaluator_file)
        if evaluator_file.suffix.lower() == ".json":
            data = parse_json(text, evaluator_file, unique_keys=True)
        else:
            try:
                data = _parse_yaml(text, evaluator_file)
            except InputError as exc:
                if exc.message.startswith("invalid YAML"):  # the space reader's hint speaks of restrictions
                    exc.hint = ("repair the file (quote values that start with { [ * & ! % @ or ` or hold ': ', "
                                "and indent with spaces, not tabs)")
                raise
        if not isinstance(data, dict):
            raise InputError("an evaluator file must be a mapping with a 'kind'", where=str(evaluator_file),
                             hint="e.g. {kind: command, argv: [./bench, '{bx}']}")
        description = _resolve_paths(data, evaluator_file.parent)
    elif section:
        description = section
    else:
        raise InputError("no evaluator given",
                         hint=f"pass {_EVALUATOR_SOURCES[replayable]}, or add an 'evaluator' section to the "
                              "space file")
    return {**description, **options}


def _evaluator_source(command: Any, c_source: Any, evaluator_file: Any, replay: Any, space_file: Any) -> str:
    if command:
        return "--command"
    if c_source:
        return str(c_source)
    if evaluator_file:
        return str(evaluator_file)
    if replay:
        return str(replay)
    return f"{space_file}, evaluator"
