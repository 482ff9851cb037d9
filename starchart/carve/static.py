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
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from starchart._util.text import shorten
from starchart.carve.carving import NOT_COMPILED, CarveResult, _predicate_mask, carve, check_within
from starchart.carve.metrics import Spec, _launch, resolve, static_metrics
from starchart.carve.occupancy import device_limits
from starchart.carve.progress import ProgressOption, step_progress
from starchart.carve.resources import ResourceCompiler
from starchart.carve.sass import source_trip_counts
from starchart.carve.shared_memory import block_shape, shared_wavefronts_frame
from starchart.errors import InputError, SpaceError, arg, say
from starchart.measure.launch import compile_options
from starchart.space import Space

#: find_kernel's word for a kernel the compiled code does not have, with the functions it has.
_NOT_FOUND = re.compile(r"kernel '[^']*' not found in the compiler output \(functions: ([^)]*)\)")
#: ptxas's word for an instruction the target lacks ("Instruction 'wgmma.fence' not supported on .target 'sm_90'").
_NOT_ON_TARGET = re.compile(r"not supported on \.target '(sm_\d+[af]?)'")
#: A compiler's word for an identifier the source uses but nothing defines (NVRTC/nvcc, then GCC style).
_UNDEFINED = re.compile(r"""identifier "(\w+)" is undefined|'(\w+)' (?:was not declared|undeclared)""")


def carve_source(source: str | Path, kernel: str, space: Space, cc: str | float, *, threads_per_block: Spec,
                 threads: Spec, predicates: str | Iterable[str] = (), within: float = 0.0, strict: bool = False,
                 constants: Mapping[str, Any] | None = None, trip_counts: Any = "source", jobs: int = 1,
                 compiler_options: Iterable[str] = (), progress: ProgressOption = False,
                 block: str | Sequence[Spec] | None = None,
                 metrics: Sequence[str] = ("efficiency", "utilization"),
                 instruction_weights: Mapping[str, float] | None = None, counts: str = "static") -> CarveResult:
    """Compile every valid configuration of ``space`` and carve it (see the module docstring).

    Parameters
    ----------
    source, kernel:
        The CUDA file and the kernel's name.
    space:
        The tuning space (enumerated in full: carving is for spaces one can compile).
    cc:
        Target compute capability, e.g. ``"9.0"``; an arch-specific or family target (``"sm_90a"``,
        ``"sm_100f"``) is compiled for exactly (``wgmma``, ``setmaxnreg``...) and occupied like its base
        capability.
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
    progress:
        ``True``: a progress bar on stderr while compiling and disassembling; a function
        ``progress(step, done, total)`` is called instead (see :mod:`starchart.carve.progress`).
        Each configuration's result is cached as it finishes: after Ctrl-C the same call resumes.
    block:
        The block's shape, ``"BLOCK_SIZE_X, BLOCK_SIZE_Y"`` (x, y, z: expressions over the parameters and
        constants). Given, one block of each configuration runs through its SASS
        (:mod:`starchart.carve.shared_memory`): it gets its shared-memory wavefronts and bank conflicts,
        ``weighted_efficiency`` (each wavefront counted as an instruction), the warp instructions and regions the
        run issued (``executed_instructions``, ``executed_regions``) and how well its global accesses coalesce
        (``coalescing``: ideal over touched 32-byte sectors, 1 when fully coalesced; usable in predicates).
    metrics:
        The columns whose Pareto front is kept (see :func:`~starchart.carve.carving.carve`), e.g.
        ``("weighted_efficiency", "utilization")`` with ``block``.
    instruction_weights:
        Instruction classes that count as several instructions in ``weighted_efficiency``, e.g.
        ``{"global_load": 4}`` (see :func:`~starchart.carve.metrics.static_metrics`).
    counts:
        Where the metrics' Instr and Regions come from: ``"static"`` (the code's count with its loops' trip
        counts, the paper's estimate) or ``"executed"`` (the block run's, which follows each thread's own loop
        trips; needs ``block``; where the run fell back to the fixed point, the static count).

    Configurations that do not compile are dropped with ``carved_by == "does not compile"`` and the
    compiler's message in ``reason``; like failed ones they do not count as removed by carving.

    Raises
    ------
    InputError
        No configuration compiles (e.g. the source needs a macro that is neither a
        parameter nor among ``constants``).
    """
    bar = step_progress(progress)  # a wrong progress= is refused before any work
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
    predicates = (predicates,) if isinstance(predicates, str) else tuple(predicates)
    within = check_within(within)  # carve() says so too, but only after every compile

    shape = block_shape(block) if block is not None else None  # a malformed shape is refused before compiling
    if counts not in ("static", "executed"):
        raise InputError(f"counts must be 'static' or 'executed', got {counts!r}", where="counts",
                         hint="'executed' takes the instructions from the block's run (with the block's shape)")
    if counts == "executed" and shape is None:
        raise InputError("executed counts come from running one block through the code, which needs the block's "
                         "shape", where="counts", hint=f"give {arg('block', repr('BLOCK_SIZE_X, BLOCK_SIZE_Y'))}")
    metrics = (metrics,) if isinstance(metrics, str) else tuple(metrics)  # one name: carve() says it needs two
    needs_block = [m for m in metrics if m.lstrip("-").startswith("weighted_")]
    if needs_block and shape is None and not instruction_weights:
        raise InputError(f"the metric(s) {', '.join(map(repr, needs_block))} count shared-memory wavefronts, which "
                         "need the block's shape, or weighted instructions", where="metrics",
                         hint=f"give {arg('block', repr('BLOCK_SIZE_X, BLOCK_SIZE_Y'))} (x, y, z of a block), or "
                              + say("instruction_weights={'global_load': 4}", "--weight global_load=4"))
    # the wavefronts' runs need the same loop trip counts as the instruction counts
    trips = source_trip_counts(compiler.source) if shape is not None and trip_counts == "source" else trip_counts

    def metrics_of(table: pd.DataFrame, shown: ProgressOption = False) -> pd.DataFrame:
        if shape is not None:
            table = pd.concat([table, shared_wavefronts_frame(table, compiler.kernel, shape, trip_counts=trips,
                                                              params=list(space.names), constants=constants,
                                                              toolchain=compiler.toolchain, jobs=compiler.jobs,
                                                              progress=shown)], axis=1)
        # the launch expressions may use the constants too ("N * N // WPT" with N=1024), not only parameters
        scalars = {name: value for name, value in constants.items()
                   if name not in table.columns and isinstance(value, (int, float, bool, str))}
        if counts == "executed":  # the run's counts, the static ones where the code was too long to run
            table = table.assign(executed_instructions=table["executed_instructions"].fillna(table["instructions"]),
                                 executed_regions=table["executed_regions"].fillna(table["regions"]))
        instr, regions = (("executed_instructions", "executed_regions") if counts == "executed"
                          else ("instructions", "regions"))
        out = static_metrics(table.assign(**scalars), cc, threads_per_block=threads_per_block, threads=threads,
                             instructions=instr, regions=regions,
                             instruction_weights=instruction_weights).drop(columns=list(scalars))
        for metric in metrics:  # a misspelt metric, or a weighted one without a block, named in seconds
            resolve(out, metric.lstrip("-"), "carving metric")
        return out

    _check_launch(configs, constants, threads_per_block, threads, cc)
    # One configuration first, silently: a misspelt kernel, launch expression or predicate column is
    # refused in a second, not after minutes of compiling the space (its compile is cached for the run).
    _probe(compiler, configs.iloc[:1], space, trip_counts, constants, predicates, metrics_of)
    table = compiler.frame(configs, params=list(space.names), trip_counts=trip_counts, constants=constants,
                           progress=bar)
    compiled = table[table["status"] == "ok"]
    if len(table) and compiled.empty:
        raise _nothing_compiled(table, space, compiler.name)
    _warn_unannotated(compiled, trip_counts)
    result = carve(metrics_of(compiled, bar), metrics=tuple(metrics), predicates=predicates, within=within,
                   strict=strict, params=list(space.names))
    return _with_failures(result, table[table["status"] != "ok"])


def _check_launch(configs: pd.DataFrame, constants: Mapping[str, Any], threads_per_block: Spec, threads: Spec,
                  cc: Any) -> None:
    """Refuse before compiling a launch no configuration can make (every block above the device's maximum, a
    count ≤ 0); launch expressions over compiled columns are left to the probe."""
    scalars = {k: v for k, v in constants.items() if k not in configs.columns and isinstance(v, (int, float, bool))}
    try:
        per_block, _ = _launch(configs.assign(**scalars), threads_per_block, threads)
    except InputError as exc:
        if "unknown column" in exc.message:
            return
        raise
    limit = device_limits(cc).max_threads_per_block
    if len(per_block) and (per_block > limit).all():
        raise InputError(f"every configuration has more than {limit} threads per block (threads per block "
                         f"{threads_per_block!r} is {per_block.min():g} to {per_block.max():g}): none can run",
                         where="threads per block", hint="check the expression, or the space's values")


def _probe(compiler: ResourceCompiler, first: pd.DataFrame, space: Space, trip_counts: Any,
           constants: Mapping[str, Any], predicates: tuple[str, ...],
           metrics_of: Callable[[pd.DataFrame], pd.DataFrame]) -> None:
    """Compile ``first`` (one configuration) and check on it what would otherwise fail only at the end.

    Refuses a kernel name that is neither in the source text nor in what the compiler made of it, and
    launch expressions or predicates naming a column no configuration will have. Anything that may
    depend on the configuration (a compile error, a launch that does not fit) is left to the full run.
    """
    table = compiler.frame(first, params=list(space.names), trip_counts=trip_counts, constants=constants)
    row = table.iloc[0]
    if row["status"] != "ok":
        functions = _NOT_FOUND.search(str(row["reason"]))
        if functions and not re.search(rf"\b{re.escape(compiler.kernel)}\b", compiler.source):
            names = functions.group(1)
            raise InputError(f"no kernel {compiler.kernel!r} in {compiler.name} (it compiles to: {names})",
                             where="kernel", hint=f"give the __global__ function's name: one of {names}")
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # said once, by the full run
            metrics = metrics_of(table)
        for predicate in predicates:
            _predicate_mask(metrics, predicate)
    except InputError as exc:
        if "unknown column" in exc.message:  # the table's 40 columns, clipped, hid the useful ones
            exc.hint = _columns_hint(exc.hint or "", table, space, constants)
        raise


#: The columns of the carved table worth a predicate, in the order a user thinks of them: the compiler's
#: (present when the probe compiled) and those static_metrics derives (always there).
_DERIVED = ("threads", "warps_per_block", "blocks_per_sm", "occupancy", "efficiency", "utilization")
_USEFUL = ("registers", "shared_bytes", "local_bytes", "spill_stores", "spill_loads", "barriers", "instructions",
           "regions", *_DERIVED)


def _columns_hint(hint: str, table: pd.DataFrame, space: Space, constants: Mapping[str, Any]) -> str:
    """What a launch expression or predicate may name: the parameters, the constants, the computed columns."""
    guess = hint.split("? ")[0] + "? " if hint.startswith("did you mean") else ""
    computed = [c for c in _USEFUL if c in table.columns or c in _DERIVED]
    given = f" (and the constants {', '.join(constants)} in the launch expressions)" if constants else ""
    return (f"{guess}the parameters are {', '.join(space.names)}{given}; predicates may also use each "
            f"configuration's {', '.join(computed)}; put names with dots or spaces in backticks")


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
    target = _NOT_ON_TARGET.search(reason)
    if name is not None and name not in space.names:
        hint = (f"define it: -D {name}=VALUE (constants {{{name!r}: VALUE}} in Python), or make {name} a parameter "
                "of the space file")
    elif "is ambiguous in the compiler output" in reason:
        hint = ("several compiled functions have the kernel's name (a template instantiated more than once, or "
                "overloads): instantiate it once per configuration, with the parameters as template arguments "
                "(template __global__ void k<TILE>(float *);), or give one mangled name (kernel=...)")
    elif _NOT_FOUND.search(reason):
        hint = f"give the __global__ function's name ({arg('kernel', '...')}), or declare the kernel extern \"C\""
    elif target is not None and not target.group(1).endswith(("a", "f")):
        # wgmma, setmaxnreg, tcgen05...: only the arch-specific target has them
        hint = ("the kernel uses instructions only the arch-specific target has: compile for it, "
                + arg("cc", f"'{target.group(1)}a'"))
    else:
        hint = "fix the source or the space: each configuration is compiled with its parameters as -D macros"
    return InputError(f"no configuration compiles: {shorten(reason, 200, collapse=True)}", where=source, hint=hint)
