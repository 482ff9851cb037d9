"""``starchart carve``: prune a CUDA kernel's space before measuring (optimization carving).

    starchart carve KERNEL.cu --kernel K --space S.yaml --cc 9.0 ... | starchart carve DATA --cc 7.5 --json
"""


from __future__ import annotations

import ast
import json
import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

import pandas as pd
import typer

from starchart.carve import carve_counters
from starchart.carve.carving import require_counters
from starchart.carve.progress import StepProgress
from starchart.carve.static import carve_source
from starchart.carve.toolchain import _default_cache, usable_cores
from starchart.cli.app import app, err, friendly, out
from starchart.cli.common import check_output_folder, minimize_for, option_names
from starchart.cli.evaluators import _read_study_file
from starchart.cli.figures import check_figure_path
from starchart.errors import InputError
from starchart.io.load import load
from starchart.report.carve_figures import plot_carving
from starchart.report.plots import metric_unit


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
    table: Optional[Path] = typer.Option(None, "--table", help="Write every configuration's static metrics and "
                                         "verdict as CSV (for starchart search --static)."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write the efficiency/utilization plot (.svg/.png)."),
    block: Optional[str] = typer.Option(
        None, "--block", help="The block's shape 'X, Y[, Z]' (expressions over the parameters, for a .cu source): "
                              "also run one block through the SASS (columns shared_wavefronts, bank_conflicts, "
                              "weighted_efficiency, executed_instructions, coalescing; usable in -p)."),
    weighted: bool = typer.Option(False, "--weighted", help="Keep the Pareto front of weighted_efficiency (each "
                                                            "shared-memory wavefront counted as an instruction) "
                                                            "and utilization; needs --block or --weight."),
    executed: bool = typer.Option(False, "--executed", help="Take the metrics' instructions and regions from "
                                                            "running one block through the code (each thread its "
                                                            "own loop trips) instead of the static count; needs "
                                                            "--block."),
    weight: list[str] = typer.Option([], "--weight", help="CLASS=W: count each instruction of the class as W in "
                                                          "weighted_efficiency, e.g. global_load=4 (repeatable; "
                                                          "classes: global_load, local_load, fp64, sfu...)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1,
                                       help="Parallel compilations and disassemblies (default: every usable core; "
                                            "-j 1: one at a time). The result is the same whatever -j."),
) -> None:
    """Optimization carving: keep the configurations worth measuring (efficiency/utilization Pareto front).

    A .cu source is compiled once per configuration, with a progress bar on stderr; every result is cached
    (~/.cache/starchart/carve), so after Ctrl-C the same command goes on where it stopped.
    """
    if plot is not None:
        check_figure_path(plot, "--plot")
        _check_writable(plot, "--plot")
    for path, option in ((output, "--output"), (table, "--table")):
        if path is not None:
            check_output_folder(path, option)
            _check_writable(path, option)
    objective, minimize = None, True  # a measured objective to compare the kept ones on (not for a .cu)
    # the library's errors in the command line's words ("--cc", "-D N=...", the space file)
    options = {"cc": "--cc", "within": "--within", "predicates": "--predicate", "predicate": "--predicate",
               "threads": "--threads", "threads per block": "--threads-per-block", "constants": "-D",
               "kernel": "--kernel", "block": "--block", "metrics": "--weighted", "instruction_weights": "--weight",
               "counts": "--executed",
               **({"space": str(space_file)} if space_file is not None else {})}
    if source.suffix.lower() != ".cu" and (block is not None or weighted or weight or executed):
        used = ("--block" if block is not None else "--weighted" if weighted else "--executed" if executed
                else "--weight")
        raise InputError(f"{used} works on the compiled code, so it needs a CUDA source",
                         where=source,
                         hint="give the kernel's .cu file (with --kernel and --space), or leave the option out")
    weights = _weights(weight)
    if source.suffix.lower() == ".cu":

        if kernel is None or space_file is None or threads_per_block is None or threads is None:
            raise InputError("a CUDA source needs --kernel, --space, --threads-per-block and --threads",
                             where=source, hint="e.g. --kernel matmul --space examples/carve/matmul.yaml "
                                                "--threads-per-block 'TILE * TILE' --threads '1024 * 1024'")

        space, _ = _read_study_file(space_file)
        bar = StepProgress(True)  # on stderr: compiling and disassembling a space takes minutes
        try:
            with option_names(options), bar:
                result = carve_source(source, kernel, space, cc, threads_per_block=threads_per_block,
                                      threads=threads, predicates=predicate, within=within,
                                      constants=_defines(define), jobs=jobs if jobs is not None else usable_cores(),
                                      progress=bar, block=block,
                                      metrics=("weighted_efficiency", "utilization") if weighted else
                                      ("efficiency", "utilization"), instruction_weights=weights,
                                      counts="executed" if executed else "static")
        except KeyboardInterrupt:
            raise _carve_interrupted(bar) from None
    else:

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

        payload = result.to_dict(objective=objective, minimize=minimize) if objective else result.to_dict()
        sys.stdout.write(json.dumps(payload, default=str) + "\n")
    else:
        out.print(result.summary(), highlight=False, soft_wrap=True, markup=False)
        if objective:
            out.print(_best_kept_line(result.best(objective, minimize=minimize), objective), highlight=False,
                      soft_wrap=True, markup=False)
    if output is not None:

        pd.DataFrame(result.configs()).to_csv(output, index=False)
        err.print(f"wrote {len(result.configs())} configurations to {output}; measure them with: starchart run "
                  f"{shlex.quote(str(space_file)) if space_file else 'SPACE_FILE'} --configs "
                  f"{shlex.quote(str(output))} ...", markup=False, highlight=False, soft_wrap=True)
    if table is not None:
        result.frame.drop(columns=["cubin"], errors="ignore").to_csv(table, index=False)
        err.print(f"wrote the static metrics of {len(result.frame)} configurations to {table}; search with them: "
                  f"starchart search {shlex.quote(str(space_file)) if space_file else 'SPACE_FILE'} --static "
                  f"{shlex.quote(str(table))} ...", markup=False, highlight=False, soft_wrap=True)
    if plot is not None:

        plot_carving(result).savefig(plot)
        err.print(f"wrote {plot}", markup=False, highlight=False)


def _check_writable(path: Path, option: str) -> None:
    """Refuse, before minutes of compiling, an output ``carve`` could not write (a read-only folder, /proc)."""
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

    unit = f" {metric_unit(objective)}" if metric_unit(objective) else ""
    return (f"  measured {objective}: best kept {best['best_kept']:.4g}{unit}, best of all "
            f"{best['best_overall']:.4g}{unit} ({100 * best['relative']:.1f} % of the best)")


def _weights(items: list[str]) -> dict[str, float]:
    """``["global_load=4"]`` → ``{"global_load": 4.0}`` (the classes are checked by the library)."""
    weights: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            weights[name.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise InputError(f"bad weight {item!r}", where="--weight",
                             hint="write CLASS=NUMBER, e.g. --weight global_load=4")
    return weights


def _defines(items: list[str]) -> dict[str, Any]:
    """``["N=1024", "USE_X"]`` → ``{"N": 1024, "USE_X": 1}``."""
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
