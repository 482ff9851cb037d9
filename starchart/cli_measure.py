"""The measuring commands of the ``starchart`` CLI.

    starchart run SPACE_FILE (--command "prog {x}" | --c-source k.c | --evaluator ev.yaml | --replay DATA)
                  --samples N --store study.db [--seed S] [--workers W] [--ray [ADDRESS]]
    starchart resume study.db [--samples N] [--workers W] [--ray [ADDRESS]] [--time-limit 2h]
    starchart export study.db -o results.csv|cache.json|results.t4.json [--format ...]
    starchart demo [--out starchart-demo] [--samples 200] [--repeats 5]
    starchart report study.db|DATA [DATA ...] [-o report.html] [--metric M] [--limit METRIC=VALUE ...]
    starchart search SPACE_FILE (evaluator options as for run) --budget N [--seed S] [--store db] [--workers W]
                     [--time-limit 2h]
    starchart carve KERNEL.cu --kernel K --space S.yaml --cc 9.0 ... | starchart carve DATA --cc 7.5 --json

The evaluator can also be a section of the space file::

    parameters: {TILE: [8, 16, 32]}
    evaluator: {kind: c, source: kernel.c, repeats: 5}

Paths in an evaluator file or section (``source``, ``cwd``, ``cache_dir``, a Python function's module)
are taken from that file's folder, and a command runs there unless its ``cwd`` says otherwise, so a study
file works from any folder.
"""

from __future__ import annotations

import math
import re
import shlex
import signal
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape

from starchart.cli_common import (DirectionOption, LimitOption, MetricsOption, app, check_figure_path,
                                  check_output_folder, err, friendly, metric_columns, minimize_for, option_names,
                                  out, parse_duration, parse_limits, print_failure_reasons, seed_option)
from starchart.errors import InputError

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


@app.command("run")
@friendly
def run_command(
    space_file: Optional[Path] = typer.Argument(None, help="Space file (YAML/JSON, T1); optional with --replay."),
    samples: Optional[int] = typer.Option(None, "--samples", "-n", min=1, help="Configurations to measure."),
    store: Path = typer.Option(Path("study.db"), "--store", "-s", help="SQLite store of the study."),
    seed: Optional[int] = seed_option(None, "Seed of the uniform sample (kept in the store)."),
    command: Optional[str] = CommandOption,
    c_source: Optional[Path] = CSourceOption,
    evaluator_file: Optional[Path] = EvaluatorOption,
    replay: Optional[Path] = ReplayOption,
    pattern: Optional[str] = PatternOption,
    metric: Optional[str] = MetricOption,
    repeats: Optional[int] = RepeatsOption,
    warmup: Optional[int] = WarmupOption,
    timeout: Optional[float] = TimeoutOption,
    configs: Optional[Path] = typer.Option(None, "--configs",
                                           help="CSV of configurations to measure instead of a uniform sample "
                                                "(e.g. what starchart carve kept)."),
    workers: int = WorkersOption,
    ray: Optional[str] = RayOption,
    maximize: Optional[bool] = DirectionOption,
) -> None:
    """Measure a uniform sample of a space (or given configurations), storing every result as it arrives."""
    from starchart.io.csv import read_configs
    from starchart.runner import run

    options = evaluator_options(pattern=pattern, metric=metric, repeats=repeats, warmup=warmup, timeout=timeout)
    space, evaluator = _space_and_evaluator(space_file, command, c_source, evaluator_file, replay, options,
                                            maximize)
    chosen = read_configs(configs, space) if configs is not None else None
    if chosen is None and samples is None and not store.exists():
        raise InputError("how many configurations to measure is not known", hint="pass --samples N (or --configs)")
    _measure(lambda: run(space, evaluator, samples=samples, store=store, seed=seed, configs=chosen,
                         workers=workers, ray=ray), store)


@app.command("resume")
@friendly
def resume_command(
    store: Path = typer.Argument(..., help="The study's SQLite store."),
    samples: Optional[int] = typer.Option(None, "--samples", "-n", min=1,
                                          help="Grow the study to N configurations (default: as planned)."),
    workers: int = WorkersOption,
    ray: Optional[str] = RayOption,
    time_limit: Optional[str] = TimeLimitOption,
) -> None:
    """Continue a study or a search: measure what it still lacks, never re-measuring anything stored."""
    from starchart.runner import run
    from starchart.store import Store

    with Store.open(store, create=False) as db:  # a clear error for a mistyped path, before anything else
        searched = db.get("search")
        sample_size_study = db.get("sample_size")
        msp_sessions = [sess for sess in db.get("sessions", []) if sess.get("msp")]
        has_evaluator = db.get("evaluator") is not None
        has_plan = db.get("plan") is not None or len(db) > 0
    if msp_sessions:  # its searches and sizes are the msp command's: that command replays the store
        from starchart.msp.cli import msp_command_line

        last = msp_sessions[-1]
        # in the folder it ran in (its paths may be relative to it), on this store wherever it was said from
        again = msp_command_line(last.get("argv") or [], store.resolve(), last.get("cwd"))
        raise InputError("the store holds a minimum-saturation-point study (starchart msp)", where=str(store),
                         hint=f"continue it by running its command again (what it measured is replayed, not "
                              f"measured twice): {again}")
    if not has_evaluator or (not searched and not sample_size_study and not has_plan and samples is None):
        # the command that made it (run, search or samples) stopped before measuring anything: after recording
        # the space, or the evaluator too (a missing compiler, CuPy or GPU); which kind of study it was is unknown
        raise InputError(f"the store holds no {'evaluator' if not has_evaluator else 'plan'} yet: the command "
                         "that made it stopped before measuring anything", where=str(store),
                         hint=f"run that starchart run, search or samples command again with --store {store}, once "
                              "what stopped it is fixed" + (f" (a uniform study can also go on with: starchart "
                                                            f"resume {store} --samples N)" if has_evaluator else ""))
    if searched:
        if samples is not None:
            raise InputError("the store holds a search, which has a budget, not a sample size", where="--samples",
                             hint=f"continue it with: starchart resume {store}; to spend more, run the search "
                                  f"command again with a larger --budget and --store {store}")
        if ray is not None:
            raise InputError("a search measures on local workers, not on Ray: each batch needs the results "
                             "before it", where="--ray", hint=f"continue it with: starchart resume {store} [--workers N]")
        from starchart.explore.search import resume_search

        given = workers if workers != 1 else None  # the default: the workers the search recorded
        limit = parse_duration(time_limit)
        _print_search(_interruptible(lambda: resume_search(store, progress=True, workers=given, time_limit=limit),
                                     store), store)
        return
    if time_limit is not None:
        raise InputError("only a search stops at a time limit; this store holds a "
                         + ("sample-size study" if sample_size_study else "uniform study"), where="--time-limit",
                         hint=f"continue it with: starchart resume {store} (Ctrl-C stops it, and it resumes)")
    if sample_size_study:
        if samples is not None or ray is not None:
            raise InputError("the store holds a sample-size study, which grows its own training set",
                             where="--samples" if samples is not None else "--ray",
                             hint=f"continue it with: starchart resume {store}; to allow more, run the samples "
                                  f"command again with a larger --budget and --store {store}")
        from starchart.cli_samples import OPTION_NAMES, print_sample_size
        from starchart.explore.sample_size import resume_sample_size

        with option_names(OPTION_NAMES):
            result = _interruptible(lambda: resume_sample_size(store, workers=workers, progress=True), store)
        print_sample_size(result, store)
        return
    _measure(lambda: run(store=store, samples=samples, workers=workers, ray=ray), store)


@app.command("export")
@friendly
def export_command(
    store: Path = typer.Argument(..., help="The study's SQLite store."),
    output: Path = typer.Option(..., "--output", "-o", help="File to write (.csv, .json, .t4.json)."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", help="csv | kernel_tuner | t4 (default: from -o)."),
) -> None:
    """Write a study as CSV, a Kernel Tuner cache or a T4 results file."""
    from starchart.store import Store

    with Store.open(store, read_only=True) as db:
        path = db.export(output, fmt)
        n = len(db.to_dataset())
    err.print(f"wrote {n} configurations to {path}", markup=False, highlight=False)


@app.command("demo")
@friendly
def demo_command(
    out_dir: Path = typer.Option(Path("starchart-demo"), "--out", "-o", help="Folder for the store and report."),
    samples: int = typer.Option(200, "--samples", "-n", min=10, help="Configurations to measure."),
    repeats: int = typer.Option(5, "--repeats", min=1, help="Timed repeats per configuration."),
    workers: int = typer.Option(1, "--workers", "-w", min=1,
                                help="Configurations measured at a time (more is faster but noisier)."),
    seed: int = seed_option(0, "Seed of the uniform sample."),
) -> None:
    """Tune the bundled C matrix-multiply kernel on this CPU, then explain it with a Starchart tree."""
    from starchart.demo.job import run_demo

    result = _measure(lambda: run_demo(out_dir, samples=samples, repeats=repeats, workers=workers, seed=seed),
                      out_dir / "demo.db", summary=False,
                      again=f"starchart demo --out {shlex.quote(str(out_dir))} --samples {samples} "
                            f"--repeats {repeats} (it also writes the report)")
    out.print(result.summary(), highlight=False, soft_wrap=True, markup=False)


# ---------------------------------------------------------------------- helpers
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
    from starchart.measure import evaluator_from_dict

    space, section = _read_study_file(space_file) if space_file else (None, None)
    description = _evaluator_description(command, c_source, evaluator_file, replay, section, options)
    source = _evaluator_source(command, c_source, evaluator_file, replay, space_file)
    try:
        evaluator = evaluator_from_dict(description, where=source)
    except InputError as exc:
        raise _as_option_error(exc, options) from None
    if space is not None:
        _check_placeholders(evaluator, space, source)
    # (a Python function's objective may be learnt from its first result: its direction follows it)
    if maximize is not None or ("minimize" not in description and description.get("kind") != "python"):
        data = getattr(evaluator, "dataset", None)
        evaluator.minimize = minimize_for(maximize, evaluator.objective, data.meta if data is not None else None)
    if space is None:
        if replay is None:
            raise InputError("no space file given", hint="pass SPACE_FILE (only --replay can do without)")
        from starchart.space import Space

        space = Space.from_dataset(evaluator.dataset)
    return space, evaluator


def _as_option_error(exc: InputError, options: dict[str, Any]) -> InputError:
    """An error about an option given on the command line (``--timeout 0``) names that option, in its words
    (``--timeout``, ``e.g. --timeout 60``), rather than the evaluator it went into."""
    unknown = re.match(r"unknown option\(s\) (.+)$", exc.message)
    if unknown:
        given = [name for name in unknown.group(1).split(", ") if name in options]
        if given:
            names = " and ".join("--" + name.replace("_", "-") for name in given)
            return InputError(f"{names} {'does' if len(given) == 1 else 'do'} not apply to this evaluator",
                              where=names, hint=f"leave {names} out ({exc.hint})" if exc.hint else None)
    first = exc.message.split(" ", 1)[0]
    if first not in options:
        return exc
    option = "--" + first.replace("_", "-")
    hint = exc.hint
    if hint is not None:
        hint = re.sub(rf"\b{re.escape(first)}=", f"{option} ", hint)
    return InputError(exc.message.replace(first, option, 1), where=option, hint=hint)


def _check_placeholders(evaluator: Any, space: Any, source: str) -> None:
    """Refuse a ``{name}`` in the command that is no parameter of the space, naming where the command came
    from (``--command``, or the evaluator file or section) before anything is measured or stored; likewise
    what an evaluator can check against the space without measuring (C macro names, CUDA launch expressions)."""
    from starchart.measure.process import check_fields

    fields = getattr(evaluator, "parameters", None)  # what a command evaluator's argv and env use
    if fields:
        check_fields(set(fields), space, source)
    check_space = getattr(evaluator, "check_space", None)
    if check_space is not None:
        try:
            check_space(space)
        except InputError as exc:
            where = exc.where or ""
            if where.startswith(type(evaluator).__name__) or not where:
                where = source
            elif "/" not in where and not where.startswith(source):
                where = f"{source}, {where}"
            raise InputError(exc.message, where=where, hint=exc.hint) from None


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
    from starchart.store import Store

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
    import pandas as pd

    ok = dataset.ok()
    metric = dataset.default_metric if dataset.metrics else None
    # ran but printed inf or nothing: ok, yet not a result (the best of them would read "inf")
    values = ok.frame[metric].astype(float) if metric is not None and len(ok) else pd.Series(dtype=float)
    values = values[values.map(math.isfinite)]
    if not len(values):  # everything is stored, but a script or CI job must see that nothing worked
        err.print(f"no configuration gave a finite {metric or 'result'}: exit status 1", highlight=False)
        raise typer.Exit(1)
    best = values.idxmin() if minimize_for(None, metric, dataset.meta) else values.idxmax()
    from starchart.configs import plain_config

    config = plain_config({p: ok.frame.loc[best, p] for p in dataset.params})
    out.print(f"best {metric}: {values[best]:.6g}  at {config}", highlight=False, soft_wrap=True, markup=False)


def _read_study_file(path: Path) -> tuple[Any, dict[str, Any] | None]:
    """The space of a space file, and its ``evaluator`` section (paths resolved against the file)."""
    from starchart.cli import _read_space
    from starchart.space import _parse_yaml  # the same YAML reader the space uses
    from starchart.io.files import parse_json, read_text

    space = _read_space(path, [])
    if path.suffix.lower() not in (".yaml", ".yml", ".json"):
        return space, None
    text = read_text(path)
    data = parse_json(text, path) if path.suffix.lower() == ".json" else _parse_yaml(text, path)
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
    ``argv: [./bench]`` beside the file runs from anywhere) and the folder of a Python function's module."""
    section = dict(section)
    keys = ["source", "cwd", "cache_dir"] if section.get("kind") != "cuda" else ["source"]
    if section.get("kind") == "python":
        keys.append("path")
        section.setdefault("path", ".")
    if section.get("kind") == "command":
        section.setdefault("cwd", ".")
    for key in keys:
        value = section.get(key)
        if isinstance(value, str) and value.strip() and not Path(value).expanduser().is_absolute():
            if key == "source" and section.get("kind") == "cuda" and not value.strip().endswith(_CUDA_SUFFIXES):
                continue  # the kernel's code itself, not a file name
            section[key] = str((folder / value).resolve())
    return section


# What a CUDA evaluator's ``source`` ends with when it names a file (else it is the code).
_CUDA_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp")


def _evaluator_description(command: Optional[str], c_source: Optional[Path], evaluator_file: Optional[Path],
                           replay: Optional[Path], section: Optional[dict[str, Any]],
                           options: dict[str, Any]) -> dict[str, Any]:
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
        from starchart.io.files import parse_json, read_text
        from starchart.space import _parse_yaml

        text = read_text(evaluator_file)
        if evaluator_file.suffix.lower() == ".json":
            data = parse_json(text, evaluator_file)
        else:
            try:
                data = _parse_yaml(text, evaluator_file)
            except InputError as exc:
                if exc.message.startswith("invalid YAML"):  # the space reader's hint speaks of restrictions
                    exc.hint = ("repair the file (quote values that start with { [ * & ! % @ or ` or hold ': ', "
                                "and indent with spaces, not tabs)")
                    exc.args = (str(exc),)
                raise
        if not isinstance(data, dict):
            raise InputError("an evaluator file must be a mapping with a 'kind'", where=str(evaluator_file),
                             hint="e.g. {kind: command, argv: [./bench, '{bx}']}")
        description = _resolve_paths(data, evaluator_file.parent)
    elif section:
        description = section
    else:
        raise InputError("no evaluator given",
                         hint="pass --command, --c-source, --evaluator or --replay, "
                              "or add an 'evaluator' section to the space file")
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


@app.command("report")
@friendly
def report_command(
    sources: list[Path] = typer.Argument(..., help="A study store (.db) or a measurement file (cache, T4, KTT, CSV); "
                                                   "several (PATH or LABEL=PATH): one space on several platforms, "
                                                   "compared."),
    # a str: Path() drops the trailing "/" of "-o out/", which names a folder (report.html in it)
    output: Optional[str] = typer.Option(None, "--output", "-o",
                                         help="HTML file to write (a folder: report.html in it)."),
    metric: Optional[str] = typer.Option(None, "--metric", "-m", help="Metric to explain (default: objective)."),
    metrics: Optional[str] = MetricsOption,
    maximize: Optional[bool] = DirectionOption,
    limit: list[str] = LimitOption,
    prune: Optional[str] = typer.Option(None, "--prune", help="Prune the tree, sized by 10-fold CV: '1se' (rpart's "
                                                              "1-SE rule) or 'relative' (lowest CV median relative "
                                                              "error); as starchart tree --prune."),
    max_depth: Optional[int] = typer.Option(None, "--max-depth", min=0, help="Limit the tree's depth."),
    min_split: int = typer.Option(10, "--min-split", min=2, help="Do not split nodes with fewer samples."),
) -> None:
    """Write one self-contained HTML report: tree, importance, best region, and whatever else applies.

    The tree is the full Starchart tree unless --prune or --max-depth sizes it: on thousands of
    configurations the full tree has hundreds of leaves, --prune 1se keeps the splits that predict.
    """
    from starchart.report.study import write_study_report

    source = sources[0] if len(sources) == 1 else [str(s) for s in sources]
    with option_names({"prune": "--prune", "max_depth": "--max-depth", "min_samples_split": "--min-split"}):
        path = write_study_report(source, output, metric=metric,
                                  minimize=None if maximize is None else not maximize,
                                  metrics=metric_columns(metrics), limits=parse_limits(limit), prune=prune,
                                  max_depth=max_depth, min_samples_split=min_split)
    err.print(f"wrote {path}", markup=False, highlight=False)  # a path: the user's text, not markup


@app.command("carve")
@friendly
def carve_command(
    source: Path = typer.Argument(..., help="A CUDA source (.cu: compiled per configuration, no GPU needed) or a "
                                            "measured file with counters and resource usage (e.g. KTT output)."),
    cc: str = typer.Option(..., "--cc", help="Target compute capability, e.g. 9.0, or an arch-specific or family "
                                             "target (sm_90a, sm_100f): compiled for exactly that target, occupancy "
                                             "of its base capability."),
    threads_per_block: Optional[str] = typer.Option(
        None, "--threads-per-block", help="Expression, e.g. 'TILE * TILE // WPT' (default: the data's "
                                          "threads_per_block column, e.g. KTT's LocalSize)."),
    threads: Optional[str] = typer.Option(
        None, "--threads", help="Total threads of a launch, e.g. '1024 * 1024 // WPT' (default: the data's "
                                "threads column, e.g. KTT's GlobalSize, × LocalSize when it counts blocks)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object (kept, figures)."),
    kernel: Optional[str] = typer.Option(None, "--kernel", "-k", help="Kernel name (for a .cu source)."),
    space_file: Optional[Path] = typer.Option(None, "--space", help="Space file (for a .cu source)."),
    define: list[str] = typer.Option([], "--define", "-D", help="Fixed macro NAME=VALUE (repeatable)."),
    predicate: list[str] = typer.Option([], "--predicate", "-p",
                                        help="Threshold carving: keep rows satisfying EXPR (repeatable), over the "
                                             "parameters and, for a .cu source, registers, shared_bytes, "
                                             "spill_stores, blocks_per_sm, occupancy, instructions, efficiency..."),
    within: float = typer.Option(0.0, "--within", min=0.0, help="Also keep configurations this close to the "
                                                                 "front (metrics scaled to [0, 1])."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the kept configurations as CSV."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write the efficiency/utilization plot (.svg/.png)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1,
                                       help="Parallel compilations and disassemblies (default: every usable core; "
                                            "-j 1: one at a time). The result is the same whatever -j."),
) -> None:
    """Optimization carving: keep the configurations worth measuring (efficiency/utilization Pareto front).

    A .cu source is compiled once per configuration, with a progress bar on stderr; every result is cached
    (~/.cache/starchart/carve), so after Ctrl-C the same command goes on where it stopped.
    """
    from starchart.carve import carve_counters
    from starchart.carve.carving import require_counters

    if plot is not None:
        check_figure_path(plot, "--plot")
        _check_writable(plot, "--plot")
    if output is not None:
        check_output_folder(output, "--output")
        _check_writable(output, "--output")
    objective, minimize = None, True  # a measured objective to compare the kept ones on (not for a .cu)
    # the library's errors in the command line's words ("--cc", "-D N=...", the space file)
    options = {"cc": "--cc", "within": "--within", "predicates": "--predicate", "predicate": "--predicate",
               "threads": "--threads", "threads per block": "--threads-per-block", "constants": "-D",
               "kernel": "--kernel", **({"space": str(space_file)} if space_file is not None else {})}
    if source.suffix.lower() == ".cu":
        from starchart.carve.static import carve_source

        if kernel is None or space_file is None or threads_per_block is None or threads is None:
            raise InputError("a CUDA source needs --kernel, --space, --threads-per-block and --threads",
                             where=source, hint="e.g. --kernel matmul --space examples/carve/matmul.yaml "
                                                "--threads-per-block 'TILE * TILE' --threads '1024 * 1024'")
        from starchart.carve.progress import StepProgress
        from starchart.carve.resources import usable_cores

        space, _ = _read_study_file(space_file)
        bar = StepProgress(True)  # on stderr: compiling and disassembling a space takes minutes
        try:
            with option_names(options), bar:
                result = carve_source(source, kernel, space, cc, threads_per_block=threads_per_block,
                                      threads=threads, predicates=predicate, within=within,
                                      constants=_defines(define), jobs=jobs if jobs is not None else usable_cores(),
                                      progress=bar)
        except KeyboardInterrupt:
            raise _carve_interrupted(bar) from None
    else:
        from starchart.io.load import load

        data = load(source)
        require_counters(data)  # the first thing a file without counters lacks, before any launch column
        launch = {}
        for name, given in (("threads_per_block", threads_per_block), ("threads", threads)):
            if given is None and name not in data.metrics:
                raise InputError(f"the data has no {name!r} column", where=source,
                                 hint=f"pass --{name.replace('_', '-')} EXPR over the parameters")
            launch[name] = given if given is not None else name
        with option_names(options):
            result = carve_counters(data, cc, predicates=predicate, within=within, **launch)
        objective = data.default_metric
        minimize = minimize_for(None, objective, data.meta)
    if as_json:
        import json

        payload = result.to_dict(objective=objective, minimize=minimize) if objective else result.to_dict()
        sys.stdout.write(json.dumps(payload, default=str) + "\n")
    else:
        out.print(result.summary(), highlight=False, soft_wrap=True, markup=False)
        if objective:
            out.print(_best_kept_line(result.best(objective, minimize=minimize), objective), highlight=False,
                      soft_wrap=True, markup=False)
    if output is not None:
        import pandas as pd

        pd.DataFrame(result.configs()).to_csv(output, index=False)
        err.print(f"wrote {len(result.configs())} configurations to {output}; measure them with: starchart run "
                  f"{shlex.quote(str(space_file)) if space_file else 'SPACE_FILE'} --configs "
                  f"{shlex.quote(str(output))} ...", markup=False, highlight=False, soft_wrap=True)
    if plot is not None:
        from starchart.carve.plots import plot_carving

        plot_carving(result).savefig(plot)
        err.print(f"wrote {plot}", markup=False, highlight=False)


def _check_writable(path: Path, option: str) -> None:
    """Refuse, before minutes of compiling, an output ``carve`` could not write (a read-only folder, /proc)."""
    import os
    import tempfile

    try:
        fd, probe = tempfile.mkstemp(prefix=".starchart-", dir=path.parent)
    except OSError as exc:
        raise InputError(f"cannot write in {str(path.parent)!r}: {exc.strerror or exc}", where=option,
                         hint="name a file in a folder you may write to") from None
    os.close(fd)
    os.unlink(probe)


def _carve_interrupted(bar: Any) -> typer.Exit:
    """Ctrl-C while compiling: say what is kept (every finished compile is cached) and how to go on; the exit
    (status 130) to raise."""
    from starchart.carve.resources import _default_cache

    done, total = bar.done("compiling")
    said = f"{done} of {total} configurations compiled" if total else "nothing compiled yet"
    read, cubins = bar.done("disassembling")
    said += f", {read} of {cubins} disassembled" if cubins else ""
    err.print(f"\nstopped: {said}; every finished compile and disassembly is cached in {_default_cache()}: "
              f"the same command again goes on from there", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(130)


def _best_kept_line(best: dict[str, Any], objective: str) -> str:
    """How the best kept configuration's measured ``objective`` compares with the best of all."""
    if best["relative"] is None:
        return f"  {objective}: no measured value among the kept configurations"
    from starchart.report.plots import metric_unit

    unit = f" {metric_unit(objective)}" if metric_unit(objective) else ""
    return (f"  measured {objective}: best kept {best['best_kept']:.4g}{unit}, best of all "
            f"{best['best_overall']:.4g}{unit} ({100 * best['relative']:.1f} % of the best)")


def _defines(items: list[str]) -> dict[str, Any]:
    """``["N=1024", "USE_X"]`` → ``{"N": 1024, "USE_X": 1}``."""
    import ast

    defines: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not name.strip().isidentifier():
            raise InputError(f"bad define {item!r}", where="-D", hint="write NAME=VALUE, e.g. -D N=1024")
        try:
            defines[name.strip()] = ast.literal_eval(value) if sep else 1
        except (ValueError, SyntaxError):
            defines[name.strip()] = value
    return defines


@app.command("search")
@friendly
def search_command(
    space_file: Optional[Path] = typer.Argument(None, help="Space file (YAML/JSON, T1); optional with --replay."),
    budget: int = typer.Option(..., "--budget", "-b", min=1, help="Evaluations to spend (failures included)."),
    seed: Optional[int] = seed_option(None, "Seed of every random choice."),
    store: Optional[Path] = typer.Option(None, "--store", "-s", help="SQLite store (resumable)."),
    command: Optional[str] = CommandOption,
    c_source: Optional[Path] = CSourceOption,
    evaluator_file: Optional[Path] = EvaluatorOption,
    replay: Optional[Path] = ReplayOption,
    pattern: Optional[str] = PatternOption,
    metric: Optional[str] = MetricOption,
    repeats: Optional[int] = RepeatsOption,
    warmup: Optional[int] = WarmupOption,
    timeout: Optional[float] = TimeoutOption,
    prior: Optional[Path] = typer.Option(None, "--prior", help="Earlier measurements of the same space "
                                         "(another GPU's cache file or store): a warm start."),
    maximize: Optional[bool] = DirectionOption,
    workers: int = typer.Option(1, "--workers", "-w", min=1, help="Configurations measured at a time "
                                "(proposed in batches; the search stays deterministic for a seed)."),
    time_limit: Optional[str] = TimeLimitOption,
) -> None:
    """Tree-guided search for the best configuration within a budget of evaluations."""
    from starchart.explore.search import search

    if prior is not None and not prior.is_file():  # named here: the loader's error names only the path
        raise InputError(f"{str(prior)!r} is not a file", where="--prior",
                         hint="give earlier measurements of the same space (a cache file, data file or store)")
    limit = parse_duration(time_limit)  # a typo is refused before anything is measured
    options = evaluator_options(pattern=pattern, metric=metric, repeats=repeats, warmup=warmup, timeout=timeout)
    space, evaluator = _space_and_evaluator(space_file, command, c_source, evaluator_file, replay, options,
                                            maximize)
    # the library's errors in the command line's words: "use --budget 81", not "use budget=81"
    with option_names({"budget": "--budget", "seed": "--seed", "prior": "--prior"}):
        _print_search(_interruptible(lambda: search(evaluator, space, budget, seed=seed, store=store,
                                                    progress=True, prior=prior, workers=workers,
                                                    time_limit=limit), store), store)


def _print_search(result: Any, store: Path | None = None) -> None:
    """Why the failed evaluations of a search failed (as ``run`` says it), then its result on the last line."""
    print_failure_reasons(result.to_dataset())
    history = result.history
    # ran, but printed inf (or no value): no failure status, yet no result either; say so, as for failures
    valueless = int(((history["status"] == "ok") & history[result.objective].isna()).sum())
    if valueless:
        out.print(f"  no finite {result.objective}: {valueless} of {len(history)} evaluations ran but gave no finite "
                  f"value (inf, or none)", highlight=False, soft_wrap=True, markup=False)
    out.print(result.summary(reasons=False), highlight=False, soft_wrap=True, markup=False)
    if result.stopped:  # the budget is not spent: say how to spend the rest
        how = (f"starchart resume {store} continues it" if store is not None else
               "it was not stored: run it again with --store FILE to be able to continue it after a stop")
        err.print(f"{how} (nothing measured is measured again)", markup=False, highlight=False, soft_wrap=True)
    if result.best is None:  # every evaluation is stored, but a script or CI job must see that nothing worked
        raise typer.Exit(1)
