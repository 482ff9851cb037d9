"""``starchart run``, ``resume`` and ``export``: measuring studies into a store, and writing them out.

    starchart run SPACE_FILE (--command "prog {x}" | --c-source k.c | --evaluator ev.yaml | --replay DATA)
                  --samples N --store study.db [--seed S] [--workers W] [--ray [ADDRESS]]
    starchart resume study.db [--samples N] [--workers W] [--ray [ADDRESS]] [--time-limit 2h]
    starchart export study.db -o results.csv|cache.json|results.t4.json [--format ...]
"""


from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Optional

import typer

from starchart.analyses.sample_size import resume_sample_size
from starchart.cli.app import app, err, friendly, out
from starchart.cli.common import (
    DirectionOption,
    check_output_folder,
    option_names,
    parse_duration,
    seed_option,
)
from starchart.cli.evaluators import (
    EvaluatorChoice,
    RayOption,
    TimeLimitOption,
    WorkersOption,
    _interruptible,
    _measure,
    with_evaluator_options,
)
from starchart.cli.msp import msp_command_line
from starchart.cli.samples import OPTION_NAMES, print_sample_size
from starchart.cli.search import _print_search
from starchart.errors import InputError
from starchart.io.csv import read_configs
from starchart.io.formats import writable
from starchart.strategies.search import resume_search
from starchart.study.doctor import examine, salvage
from starchart.study.kinds import kind_named, study_kind
from starchart.study.runner import run
from starchart.study.store import Store


@app.command("run")
@friendly
@with_evaluator_options
def run_command(
    space_file: Optional[Path] = typer.Argument(None, help="Space file (YAML/JSON, T1); optional with --replay."),
    samples: Optional[int] = typer.Option(None, "--samples", "-n", min=1, help="Configurations to measure."),
    store: Path = typer.Option(Path("study.db"), "--store", "-s", help="SQLite store of the study."),
    seed: Optional[int] = seed_option(None, "Seed of the uniform sample (kept in the store)."),
    measuring: EvaluatorChoice = EvaluatorChoice(),  # the evaluator options (with_evaluator_options)
    configs: Optional[Path] = typer.Option(None, "--configs",
                                           help="CSV of configurations to measure instead of a uniform sample "
                                                "(e.g. what starchart carve kept)."),
    workers: int = WorkersOption,
    ray: Optional[str] = RayOption,
    maximize: Optional[bool] = DirectionOption,
) -> None:
    """Measure a uniform sample of a space (or given configurations), storing every result as it arrives."""
    space, evaluator = measuring.space_and_evaluator(space_file, maximize)
    chosen = read_configs(configs, space) if configs is not None else None
    if chosen is None and samples is None and not store.exists():
        raise InputError("how many configurations to measure is not known", hint="pass --samples N (or --configs)")
    with option_names(_RUN_OPTIONS):  # run()'s refusals (--samples with --configs) in the command line's words
        _measure(lambda: run(space, evaluator, samples=samples, store=store, seed=seed, configs=chosen,
                             workers=workers, ray=ray), store)


#: The options of ``starchart run`` by the argument of :func:`starchart.study.runner.run` each sets.
_RUN_OPTIONS = {"samples": "--samples", "configs": "--configs", "seed": "--seed", "workers": "--workers",
                "ray": "--ray", "store": "--store"}


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
    with Store.open(store, create=False) as db:  # a clear error for a mistyped path, before anything else
        kind = study_kind(db)
        msp_sessions = [sess for sess in db.get("sessions", []) if sess.get("msp")]
        has_evaluator = db.get("evaluator") is not None
    if kind is not None and kind.name == "msp":  # its searches and sizes are the msp command's: it replays the store
        last = msp_sessions[-1]
        # in the folder it ran in (its paths may be relative to it), on this store wherever it was said from
        again = msp_command_line(last.get("argv") or [], store.resolve(), last.get("cwd"))
        raise InputError("the store holds a minimum-saturation-point study (starchart msp)", where=str(store),
                         hint=f"continue it by running its command again (what it measured is replayed, not "
                              f"measured twice): {again}")
    if not has_evaluator or (kind is None and samples is None):
        # the command that made it (run, search or samples) stopped before measuring anything: after recording
        # the space, or the evaluator too (a missing compiler, CuPy or GPU); which kind of study it was is unknown
        raise InputError(f"the store holds no {'evaluator' if not has_evaluator else 'plan'} yet: the command "
                         "that made it stopped before measuring anything", where=str(store),
                         hint=f"run that starchart run, search or samples command again with --store {store}, once "
                              "what stopped it is fixed" + (f" (a uniform study can also go on with: starchart "
                                                            f"resume {store} --samples N)" if has_evaluator else ""))
    resume = _RESUME.get(kind.name if kind is not None else "uniform")
    if resume is None:  # a kind a plug-in registered: its own command continues it
        raise InputError(f"the store holds {kind.title if kind else 'a study'}, which starchart resume does not "
                         "continue", where=str(store), hint=f"continue it the way it was started: {kind.started_by}"
                         if kind else None)
    resume(store, samples, workers, ray, time_limit)


def _resume_search(store: Path, samples: Optional[int], workers: int, ray: Optional[str],
                   time_limit: Optional[str]) -> None:
    if samples is not None:
        raise InputError("the store holds a search, which has a budget, not a sample size", where="--samples",
                         hint=f"continue it with: starchart resume {store}; to spend more, run the search "
                              f"command again with a larger --budget and --store {store}")
    if ray is not None:
        raise InputError("a search measures on local workers, not on Ray: each batch needs the results "
                         "before it", where="--ray", hint=f"continue it with: starchart resume {store} [--workers N]")
    given = workers if workers != 1 else None  # the default: the workers the search recorded
    limit = parse_duration(time_limit)
    _print_search(_interruptible(lambda: resume_search(store, progress=True, workers=given, time_limit=limit),
                                 store), store)


def _no_time_limit(store: Path, time_limit: Optional[str], kind: str) -> None:
    if time_limit is not None:
        raise InputError(f"only a search stops at a time limit; this store holds {kind_named(kind).title}",
                         where="--time-limit",
                         hint=f"continue it with: starchart resume {store} (Ctrl-C stops it, and it resumes)")


def _resume_sample_size(store: Path, samples: Optional[int], workers: int, ray: Optional[str],
                        time_limit: Optional[str]) -> None:
    _no_time_limit(store, time_limit, "sample_size")
    if samples is not None or ray is not None:
        raise InputError("the store holds a sample-size study, which grows its own training set",
                         where="--samples" if samples is not None else "--ray",
                         hint=f"continue it with: starchart resume {store}; to allow more, run the samples "
                              f"command again with a larger --budget and --store {store}")
    with option_names(OPTION_NAMES):
        result = _interruptible(lambda: resume_sample_size(store, workers=workers, progress=True), store)
    print_sample_size(result, store)


def _resume_uniform(store: Path, samples: Optional[int], workers: int, ray: Optional[str],
                    time_limit: Optional[str]) -> None:
    _no_time_limit(store, time_limit, "uniform")
    _measure(lambda: run(store=store, samples=samples, workers=workers, ray=ray), store)


#: What ``starchart resume`` does for each kind of study (starchart.study.kinds): one function per kind.
_RESUME: dict[str, Callable[[Path, Optional[int], int, Optional[str], Optional[str]], None]] = {
    "search": _resume_search, "sample_size": _resume_sample_size, "uniform": _resume_uniform}


# the choices of the format registry (installed plug-in formats included)
_FORMATS = " | ".join(sorted(writable()))
_SUFFIXES = ", ".join(fmt.write_suffixes[0] for _, fmt in sorted(writable().items()) if fmt.write_suffixes)


@app.command("export")
@friendly
def export_command(
    store: Path = typer.Argument(..., help="The study's SQLite store."),
    output: Path = typer.Option(..., "--output", "-o", help=f"File to write ({_SUFFIXES})."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", help=f"{_FORMATS} (default: from -o)."),
    kernel_name: Optional[str] = typer.Option(None, "--kernel-name",
                                              help="The kernel's name in a cache or T4 file (as tune_kernel is "
                                                   "given it; default: what the study knows)."),
    device_name: Optional[str] = typer.Option(None, "--device-name", help="The device's name in a cache or T4 file."),
    problem_size: Optional[str] = typer.Option(None, "--problem-size", metavar="N[,N...]",
                                               help="The problem size in a cache or T4 file, e.g. 4096 or 4096,4096."),
) -> None:
    """Write a study as CSV, a Kernel Tuner cache or a T4 results file."""
    names = {"kernel_name": kernel_name, "device_name": device_name,
             "problem_size": None if problem_size is None else _problem_size(problem_size)}
    with Store.open(store, read_only=True) as db:
        path = db.export(output, fmt, names=names)
        n = len(db.to_dataset())
    err.print(f"wrote {n} configurations to {path}", markup=False, highlight=False)


@app.command("doctor")
@friendly
def doctor_command(
    store: Path = typer.Argument(..., help="The study's SQLite store."),
    copy_to: Optional[Path] = typer.Option(None, "--copy-to", help="Write what reads whole into this new store "
                                                                    "(resume it to measure what was lost)."),
) -> None:
    """Check a store file for damage, and copy what can still be read into a new store.

    Exit status 0 when the store is sound (or its copy was written), 1 when damage was found.
    """
    if copy_to is not None:
        check_output_folder(copy_to, "--copy-to")
        found = salvage(store, copy_to)
    else:
        found = examine(store)
    out.print(found.summary(), markup=False, highlight=False, soft_wrap=True)
    if copy_to is not None:
        err.print(f"wrote {len(found.study)} study records and {len(found.results)} results to {copy_to}"
                  + ("" if found.sound else f"; continue with: starchart resume {copy_to}"),
                  markup=False, highlight=False)
    elif not found.sound:
        err.print(f"copy what reads whole into a new store with: starchart doctor {store} --copy-to repaired.db",
                  markup=False, highlight=False)
        raise typer.Exit(1)


def _problem_size(text: str) -> int | list[int]:
    """``--problem-size`` as Kernel Tuner writes it: one whole number, or a list of them.

    >>> _problem_size("4096"), _problem_size("4096, 4096")
    (4096, [4096, 4096])
    """
    parts = [part.strip() for part in text.split(",")]
    if not all(part.isdigit() for part in parts):
        raise InputError(f"{text!r} is not a problem size", where="--problem-size",
                         hint="whole numbers separated by commas, e.g. 4096 or 4096,4096")
    sizes = [int(part) for part in parts]
    return sizes[0] if len(sizes) == 1 else sizes
