"""Carve a CUDA kernel's space before measuring anything: compile, count, compute the metrics, carve.

:func:`carve_source` is the paper's whole static pipeline for one kernel and one
compute capability: every valid configuration of the space is compiled with its
parameters as ``-D`` macros (no GPU needed: NVIDIA's NVRTC/ptxas from PyPI, the
``carve`` extra), its registers and shared memory give the blocks per SM,
its SASS gives the instructions and blocking regions per thread, and the
efficiency/utilization trade-off keeps the Pareto-optimal configurations.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from starchart.carve.carving import NOT_COMPILED, CarveResult, carve
from starchart.carve.metrics import Spec, static_metrics
from starchart.carve.resources import ResourceCompiler
from starchart.errors import InputError, SpaceError
from starchart.measure.launch import compile_options
from starchart.space import Space
from starchart.text import shorten

#: A compiler's word for an identifier the source uses but nothing defines (NVRTC/nvcc, then GCC style).
_UNDEFINED = re.compile(r"""identifier "(\w+)" is undefined|'(\w+)' (?:was not declared|undeclared)""")


def carve_source(source: str | Path, kernel: str, space: Space, cc: str | float, *, threads_per_block: Spec,
                 threads: Spec, predicates: str | Iterable[str] = (), within: float = 0.0, strict: bool = False,
                 constants: Mapping[str, Any] | None = None, trip_counts: Any = "source", jobs: int = 1,
                 compiler_options: Iterable[str] = ()) -> CarveResult:
    """Compile every valid configuration of ``space`` and carve it (see the module docstring).

    Parameters
    ----------
    source, kernel:
        The CUDA file and the kernel's name.
    space:
        The tuning space (enumerated in full: carving is for spaces one can compile).
    cc:
        Target compute capability, e.g. ``"9.0"``.
    threads_per_block, threads:
        Threads per block and total threads of a launch: column names or expressions over the
        parameters (e.g. ``"TILE * TILE // WPT"``, ``"N * N // WPT"``).
    predicates, within, strict:
        As for :func:`~starchart.carve.carving.carve`.
    constants:
        Values of macros that are not parameters (e.g. ``{"N": 1024}``).
    trip_counts:
        Loop trip counts for the instruction counts (``"source"``: the ``// trips:`` comments).
    jobs:
        Configurations compiled at once.
    compiler_options:
        Extra compiler options (``"-O3"``, ``"-std=c++17"``, ``"-I<dir>"``...).

    Configurations that do not compile are dropped with ``carved_by == "does not compile"`` and the
    compiler's message in ``reason``; like failed ones they do not count as removed by carving.

    Raises
    ------
    InputError
        No configuration compiles (e.g. the source needs a macro that is neither a
        parameter nor among ``constants``).
    """
    constants = dict(constants or {})
    clash = [name for name in constants if name in space.names]
    if clash:  # the later -D wins in the compiler while the metrics use the parameter: silently wrong
        raise InputError(f"the constant(s) {', '.join(map(repr, clash))} are also parameters of the space",
                         where="constants", hint="give each name once: drop the constant, or fix the parameter "
                                                 "to one value in the space file")
    try:
        configs = space.to_frame()
    except SpaceError as exc:  # too many to hold: far too many to compile one by one, too
        raise InputError(f"the space has {space.size_estimate(seed=0)} valid configurations, too many to "
                         "compile one by one (carving compiles each)", where="space", hint="narrow the space: fewer values per parameter, more restrictions, "
                                             "or fix a parameter with -D NAME=VALUE (dropping it from the space)"
                         ) from exc
    if configs.empty:
        raise InputError("the space has no valid configuration: its restrictions exclude every one",
                         where="space", hint="loosen the restrictions (starchart space FILE --size counts them)")
    # every parameter is a macro (-DTILE=16), and so is every constant (-DN=1024)
    fixed = compile_options(constants, extra=compiler_options)
    compiler = ResourceCompiler(source, kernel, cc, jobs=jobs, options=tuple(fixed))
    table = compiler.frame(configs, params=list(space.names), trip_counts=trip_counts, constants=constants)
    compiled = table[table["status"] == "ok"]
    if len(table) and compiled.empty:
        raise _nothing_compiled(table, space, compiler.name)
    _warn_unannotated(compiled, trip_counts)
    # the launch expressions may use the constants too ("N * N // WPT" with N=1024), not only parameters
    scalars = {name: value for name, value in constants.items()
               if name not in compiled.columns and isinstance(value, (int, float, bool, str))}
    metrics = static_metrics(compiled.assign(**scalars), cc, threads_per_block=threads_per_block,
                             threads=threads).drop(columns=list(scalars))
    result = carve(metrics, predicates=predicates, within=within, strict=strict, params=list(space.names))
    return _with_failures(result, table[table["status"] != "ok"])


def _warn_unannotated(compiled: pd.DataFrame, trip_counts: Any) -> None:
    """Warn when loops got no trip count (counted as running once): Instr and Regions are then too low, and
    the metrics compare configurations on a guess nobody sees."""
    if "unannotated_loops" not in compiled.columns:
        return
    loops = compiled["unannotated_loops"].fillna("").astype(str)
    loops = loops[loops != ""]
    if len(loops):
        how = ("add a '// trips: EXPR' comment on the loop's line" if trip_counts == "source"
               else "give their trip counts (trip_counts={'line:N': EXPR})")
        warnings.warn(f"{len(loops)} of {len(compiled)} configurations have loops whose trip count is neither "
                      f"annotated nor readable from the code ({loops.iloc[0]} in the first): each is counted as "
                      f"running once, which undercounts Instr and Regions; {how}", stacklevel=3)


def _with_failures(result: CarveResult, failed: pd.DataFrame) -> CarveResult:
    """``result`` with the configurations that did not compile put back, marked ``"does not compile"``.

    Without them a space whose configurations partly fail to compile would be reported as a smaller
    space, silently; their compiler message stays in the ``reason`` column.
    """
    if failed.empty:
        return result
    failed = failed.assign(carved_by=NOT_COMPILED, on_front=False, front_distance=float("nan"))
    frame = pd.concat([result.frame, failed]).sort_index()
    frame["on_front"] = frame["on_front"].astype(bool)
    result.frame = frame
    result._metric_values = result.metric_values.reindex(frame.index)
    return result


def _nothing_compiled(table: pd.DataFrame, space: Space, source: str) -> InputError:
    """The error when no configuration compiles: the first reason, and how to define a macro it lacks."""
    reason = str(table["reason"].iloc[0])
    found = _UNDEFINED.search(reason)
    name = next(g for g in found.groups() if g) if found else None
    if name is not None and name not in space.names:
        hint = (f"define it: -D {name}=VALUE (constants={{{name!r}: VALUE}} in Python), or make {name} a parameter "
                "of the space file")
    else:
        hint = "fix the source or the space: each configuration is compiled with its parameters as -D macros"
    return InputError(f"no configuration compiles: {shorten(reason, 200, collapse=True)}", where=source, hint=hint)
