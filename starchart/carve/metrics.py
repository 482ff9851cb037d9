"""The two metrics of tradeoff carving, Efficiency and Utilization (Ryoo et al. 2008, §4.1.2).

For a configuration with ``Instr`` dynamic instructions per thread, ``Threads``
threads in the whole launch, ``Regions`` dynamic instruction intervals per thread
delimited by blocking instructions (consumers of global/texture loads, barriers)
or the start/end of the kernel, ``W_TB`` warps per thread block and ``B_SM``
resident blocks per SM::

    Efficiency  = 1 / (Instr × Threads)                                   (eq. 1)
    Utilization = Instr / Regions × [(W_TB − 1) / 2 + (B_SM − 1) × W_TB]   (eq. 2)

Efficiency is the inverse of the total work; Utilization the average run of
non-blocking instructions times the number of other warps the SM can switch to
while one waits. Only their *order* across configurations matters (the paper caps
neither).

Two ways to get the inputs:

- :func:`carving_metrics` — the paper's way: give (or compute) ``Instr`` and
  ``Regions`` per configuration (e.g. static SASS counts scaled by annotated trip
  counts), threads, threads per block and blocks per SM; :func:`static_metrics`
  does it from the columns that :mod:`starchart.carve.resources` (``registers``,
  ``shared_bytes``) and :func:`starchart.carve.sass.sass_counts_frame`
  (``instructions``, ``regions``) produce, computing ``B_SM`` on the way;
- :func:`counter_metrics` — from *measured* profiler counters (Nsight Compute, as
  KTT records them): total warp instructions and global-load requests stand in for
  ``Instr × Threads`` and for the load consumers. This is an approximation of the
  paper's static metric, documented at the function.

Every argument naming an input accepts a column name, an expression over the
columns (``"BLOCK_SIZE_X * BLOCK_SIZE_Y"``, with backticks around names that
contain dots) or a number. Expressions, like carving predicates, are compiled with
the restriction whitelist (:mod:`starchart.constraints`) and evaluated on whole
columns, never ``eval``-ed: ``bx.to_csv('f')`` is an error, not a written file.

Examples
--------
The paper's worked example (§4.2, matrix multiplication on a GeForce 8800):
15,150 instructions and 769 regions per thread, 2^24 threads, 256 threads per block,
2 blocks per SM.

>>> print(f"{float(efficiency(15150, 2**24)):.3g}")  # paper: 3.93e-12
3.93e-12
>>> round(float(utilization(15150, 769, warps_per_block(256), 2)), 1)  # paper: 227
226.6
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import tokenize
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from starchart.carve.occupancy import device_limits, occupancy_frame
from starchart.carve.sass import INSTRUCTION_CLASSES
from starchart.constraints import ALLOWED_FUNCTIONS, Expression, compile_expression
from starchart.errors import InputError, SpaceError, arg

__all__ = ["KTT_COUNTERS", "blocks_per_sm", "carving_metrics", "counter_metrics", "efficiency", "resolve",
           "static_metrics", "utilization", "warps_per_block"]

#: Column names of the Nsight Compute counters and compilation data as KTT writes them
#: (and :mod:`starchart.io.ktt` reads them).
KTT_COUNTERS: dict[str, str] = {
    "warp_instructions": "smsp__inst_executed.sum",
    "global_loads": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "registers": "RegistersCount",
    "shared": "LocalMemorySize",  # KTT uses OpenCL's name: "local" memory is CUDA's shared memory
}

Spec = str | float | int | np.ndarray | pd.Series


def efficiency(instructions: Any, threads: Any) -> np.ndarray:
    """Eq. 1: ``1 / (Instr × Threads)``, elementwise.

    Parameters
    ----------
    instructions:
        Dynamic instructions per thread.
    threads:
        Threads in the launch (for the problem size being tuned).

    Examples
    --------
    >>> efficiency([100, 200], [10, 10]).tolist()
    [0.001, 0.0005]
    """
    total = np.asarray(instructions, dtype=float) * np.asarray(threads, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(total > 0, 1.0 / total, np.nan)


def utilization(instructions: Any, regions: Any, warps_in_block: Any, blocks_on_sm: Any) -> np.ndarray:
    """Eq. 2: ``Instr / Regions × [(W_TB − 1) / 2 + (B_SM − 1) × W_TB]``, elementwise.

    A configuration that does not fit on an SM (``B_SM = 0``) gets NaN: it cannot run.

    Examples
    --------
    One warp per block and one block per SM: no other warp to switch to.

    >>> utilization([100, 100], [10, 10], [1, 4], [1, 2]).tolist()
    [0.0, 55.0]
    """
    instr = np.asarray(instructions, dtype=float)
    regions = np.asarray(regions, dtype=float)
    w_tb = np.asarray(warps_in_block, dtype=float)
    b_sm = np.asarray(blocks_on_sm, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = instr / regions * ((w_tb - 1) / 2 + (b_sm - 1) * w_tb)
    return np.where((b_sm >= 1) & (regions > 0), value, np.nan)


def warps_per_block(threads_per_block: Any, warp_size: int = 32) -> np.ndarray:
    """``W_TB``: warps in a block, ``ceil(threads / warp_size)``.

    >>> warps_per_block([256, 33, 1]).tolist()
    [8.0, 2.0, 1.0]
    """
    return np.ceil(np.asarray(threads_per_block, dtype=float) / warp_size)


def resolve(frame: pd.DataFrame, spec: Spec, what: str) -> np.ndarray:
    """The values of ``spec`` for every row of ``frame``, as floats.

    ``spec`` is a column name, an expression over the columns (see :func:`_evaluate`), a number or an
    array of one value per row. A bad name or expression raises :class:`InputError`
    naming ``what`` and the available columns.

    Examples
    --------
    >>> df = pd.DataFrame({"bx": [32, 64], "by": [2, 4], "a.b": [1, 2]})
    >>> resolve(df, "bx * by", "threads per block").tolist()
    [64.0, 256.0]
    >>> resolve(df, "`a.b` + 1", "x").tolist(), resolve(df, 3, "x").tolist()
    ([2.0, 3.0], [3.0, 3.0])
    >>> resolve(df, "bz * 2", "threads per block")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    starchart.errors.InputError: threads per block: threads per block 'bz * 2': unknown column 'bz' (hint: ...
    """
    n = len(frame)
    if isinstance(spec, str):
        if spec in frame.columns:
            values = frame[spec]
        else:
            values = _evaluate(frame, spec, what)
    elif np.isscalar(spec):
        return np.full(n, float(spec))  # type: ignore[arg-type]
    else:
        values = spec
    try:
        array = np.asarray(values, dtype=float).reshape(-1) if np.ndim(values) else np.full(n, float(values))
    except (TypeError, ValueError):
        raise InputError(f"{what} {_show(spec)} is not numeric", where=what,
                         hint="give a numeric column, an arithmetic expression or a number") from None
    if len(array) != n:
        raise InputError(f"{what} has {len(array)} values for {n} configurations", where=what,
                         hint="give one value per row, a column name or an expression")
    return array


def _launch(frame: pd.DataFrame, threads_per_block: Spec, threads: Spec) -> tuple[np.ndarray, np.ndarray]:
    """Threads per block and threads in the launch for every row; a value ≤ 0 raises :class:`InputError`.

    >>> _launch(pd.DataFrame({"b": [32, 0]}), "b", 1024)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    starchart.errors.InputError: threads per block: threads per block 'b' is 0 for row 1, not a thread count ...
    """
    values = []
    for spec, what in ((threads_per_block, "threads per block"), (threads, "threads")):
        array = resolve(frame, spec, what)
        bad = np.flatnonzero(array <= 0)
        if len(bad):
            raise InputError(f"{what} {_show(spec)} is {array[bad[0]]:g} for row {frame.index[bad[0]]}, not a thread "
                             "count", where=what, hint="give a positive count: a column, an expression over the "
                                                       "parameters or a number")
        values.append(array)
    return values[0], values[1]


#: What an expression over the table may use, said when it uses something else.
_WHITELIST_HINT = ("use column names (in backticks when not identifiers), numbers, strings, + - * / // % **, "
                   "comparisons (also 'in (...)'), and/or/not (or & | ~), 'a if c else b' and the functions "
                   + ", ".join(ALLOWED_FUNCTIONS))
#: pandas' eval reads & | ~ as and/or/not (with their precedence): predicates written for it keep their meaning.
_BOOLEAN_OPERATORS = {"&": "and", "|": "or", "~": "not"}


def _evaluate(frame: pd.DataFrame, expression: str, what: str) -> Any:
    """``expression`` over the columns of ``frame``: a Series (one value per row) or a scalar.

    The expression is compiled with the restriction whitelist (:func:`starchart.constraints.compile_expression`)
    and evaluated on whole columns, never ``eval``-ed: attribute access, calls other than
    min/max/abs/int/float/round, and anything else outside the whitelist raise :class:`InputError`
    naming ``what`` and the expression. As in pandas' ``DataFrame.eval``, names that are not
    identifiers go in backticks and ``&``, ``|``, ``~`` mean ``and``, ``or``, ``not``. A row
    where Python would raise (a division by zero) has no value: NaN, or false for a comparison.

    >>> df = pd.DataFrame({"bx": [16, 32, 64], "a b": [1, 0, 1]})
    >>> _evaluate(df, "bx >= 32 & `a b` == 1", "predicate").tolist()
    [False, False, True]
    >>> _evaluate(df, "bx.to_csv('x') == 0", "predicate")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    starchart.errors.InputError: predicate: predicate "bx.to_csv('x') == 0" is not allowed: ...
    """
    columns = ", ".join(f"`{c}`" if not str(c).isidentifier() else str(c) for c in frame.columns)
    hint = (f"use columns of the table ({_clip(columns)}); put names with dots or spaces in backticks")
    compiled, aliases = _compile(frame, expression, what, hint)
    values = {name: _column(frame[aliases.get(name, name)]) for name in compiled.names}
    value, bad = compiled.evaluate(values)
    if np.ndim(value) == 0:  # no column: one value for the whole table
        return value.item() if isinstance(value, (np.ndarray, np.generic)) else value
    value = np.asarray(value)
    if bad is not None and np.any(bad):  # Python would have raised on these rows: no value there
        value = np.where(bad, False, value) if value.dtype == bool else \
            np.where(bad, np.nan, value.astype(float if value.dtype.kind in "biuf" else object))
    return pd.Series(np.broadcast_to(value, (len(frame),)).copy(), index=frame.index)


def _compile(frame: pd.DataFrame, expression: str, what: str, hint: str) -> tuple[Expression, dict[str, str]]:
    """The whitelisted expression over ``frame``'s columns, and the names standing for backticked columns."""
    aliases: dict[str, str] = {}  # stand-in identifier -> column name

    def alias(match: re.Match[str]) -> str:
        name = f"_starchart_column_{len(aliases)}"
        aliases[name] = match.group(1)
        return name

    source = re.sub(r"`([^`]+)`", alias, expression.strip())
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
        if any(t.type == tokenize.OP and t.string in _BOOLEAN_OPERATORS for t in tokens):
            source = tokenize.untokenize(
                (tokenize.NAME, _BOOLEAN_OPERATORS[t.string]) if t.type == tokenize.OP and t.string in
                _BOOLEAN_OPERATORS else (t.type, t.string) for t in tokens).strip()
        tree = ast.parse(source, mode="eval")
    except (RecursionError, MemoryError):  # thousands of nested operators: Python's parser gives up
        raise InputError(f"{what} {_clip(_show(expression), 120)} is nested too deeply to read", where=what,
                         hint=hint) from None
    except (SyntaxError, tokenize.TokenError) as err:
        if _is_assignment(source):  # "x = 1" assigns a column in pandas: the table, not one value per row
            raise InputError(f"{what} {_show(expression)} is an assignment, not a value per configuration",
                             where=what, hint="= assigns: write == to compare (e.g. \"BLOCK_SIZE_X == 32\")") from None
        reason = err.msg if isinstance(err, SyntaxError) else err.args[0]
        raise InputError(f"{what} {_show(expression)} cannot be evaluated: {reason}", where=what, hint=hint) from None
    known = [str(c) for c in frame.columns if str(c).isidentifier()] + list(aliases)
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in called and node.id not in known:
            name = aliases.get(node.id, node.id)
            close = difflib.get_close_matches(name, [str(c) for c in frame.columns], n=1)
            raise InputError(f"{what} {_show(expression)}: unknown column {name!r}", where=what,
                             hint=(f"did you mean {close[0]!r}? " if close else "") + hint)
    try:
        return compile_expression(source, known, label=what), aliases
    except SpaceError as err:
        message = err.message
        for name, column in aliases.items():  # the user's names, not the stand-ins
            message = message.replace(name, f"`{column}`")
        raise InputError(f"{what} {_show(expression)} is not allowed: {message}", where=what,
                         hint=_WHITELIST_HINT) from None


def _is_assignment(source: str) -> bool:
    try:
        statements = ast.parse(source, mode="exec").body
    except (SyntaxError, RecursionError, MemoryError):
        return False
    return len(statements) == 1 and isinstance(statements[0], (ast.Assign, ast.AugAssign, ast.AnnAssign))


def _column(series: pd.Series) -> np.ndarray:
    """A column as numpy: numbers stay numbers (missing ones NaN), anything else Python objects."""
    if isinstance(series.dtype, np.dtype):
        return series.to_numpy()
    if pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
        if not series.isna().any():  # nullable Int64 and boolean without gaps keep their kind
            return series.to_numpy(dtype=series.dtype.numpy_dtype)
        return series.to_numpy(dtype=float, na_value=np.nan)
    return series.to_numpy(dtype=object)


def _show(spec: Any) -> str:
    return repr(spec) if isinstance(spec, str) else type(spec).__name__


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def blocks_per_sm(frame: pd.DataFrame, cc: str | float, *, threads_per_block: Spec, registers: Spec,
                  shared: Spec, occupancy: Callable[..., Any] | None = None,
                  barriers: Spec | None = None) -> pd.DataFrame:
    """``B_SM`` and its limiting resource for every row, from the occupancy calculator.

    Parameters
    ----------
    frame:
        One row per configuration.
    cc:
        Compute capability of the target, e.g. ``"7.5"`` or ``7.5``.
    threads_per_block, registers, shared:
        Threads per block, registers per thread and static shared memory per block in
        bytes (column names, expressions or numbers).
    occupancy:
        A calculator ``occupancy(cc, threads_per_block, registers_per_thread,
        shared_bytes)`` returning an object with ``blocks_per_sm`` (and optionally
        ``limiting``), called once per distinct (threads, registers, shared) triple;
        default: :func:`starchart.carve.occupancy.occupancy_frame`, vectorised.
    barriers:
        Named barriers per block (``ptxas -v``), which limit blocks per SM from compute
        capability 9.0 on; default: the frame's ``barriers`` column if it has one (as
        :mod:`starchart.carve.resources` gives), else not counted. Missing values count
        as none. Only the default calculator uses them.

    Returns
    -------
    DataFrame
        ``blocks_per_sm`` (float; NaN where an input is missing, 0 where a block
        cannot run) and ``limiter`` (the limiting resource(s), the reason a block
        cannot run, or ``"unknown"``), indexed like ``frame``.

    Examples
    --------
    >>> df = pd.DataFrame({"t": [256, 1024, 64], "r": [64, 65, None], "s": [8192, 0, 0]})
    >>> blocks_per_sm(df, "8.6", threads_per_block="t", registers="r", shared="s").to_dict("list")  # doctest: +ELLIPSIS
    {'blocks_per_sm': [4.0, 0.0, nan], 'limiter': ['registers', '1024 threads × 65 registers need ...', 'unknown']}
    """
    tpb = resolve(frame, threads_per_block, "threads per block")
    regs = resolve(frame, registers, "registers per thread")
    smem = resolve(frame, shared, "shared memory per block")
    known = np.isfinite(tpb) & np.isfinite(regs) & np.isfinite(smem)
    blocks = np.full(len(frame), np.nan)
    limiters = np.full(len(frame), "unknown", dtype=object)
    if occupancy is None:
        if barriers is None:
            barriers = "barriers" if "barriers" in frame.columns else 0
        bars = np.nan_to_num(resolve(frame, barriers, "named barriers per block"), nan=0.0)
        rows = pd.DataFrame({"t": tpb[known], "r": regs[known], "s": smem[known],
                             "b": np.broadcast_to(bars, tpb.shape)[known]}).astype(np.int64)
        occ = occupancy_frame(rows, cc, threads="t", registers="r", shared="s", barriers="b")
        blocks[known] = occ["blocks_per_sm"].to_numpy(dtype=float)
        limiters[known] = np.where(occ["valid"], occ["limiting"], occ["reason"])
        return pd.DataFrame({"blocks_per_sm": blocks, "limiter": limiters}, index=frame.index)
    cache: dict[tuple[int, int, int], tuple[float, str]] = {}
    for i in np.flatnonzero(known):
        key = (int(tpb[i]), int(regs[i]), int(smem[i]))
        if key not in cache:
            result = occupancy(cc, *key)
            limiting = getattr(result, "limiting", "")
            limiting = "+".join(limiting) if isinstance(limiting, (tuple, list)) else str(limiting)
            if getattr(result, "valid", True) is False:
                limiting = str(getattr(result, "reason", "cannot run"))
            cache[key] = (float(result.blocks_per_sm), limiting)
        blocks[i], limiters[i] = cache[key]
    return pd.DataFrame({"blocks_per_sm": blocks, "limiter": limiters}, index=frame.index)


def carving_metrics(frame: pd.DataFrame, *, instructions: Spec, regions: Spec, threads: Spec,
                    threads_per_block: Spec, blocks_on_sm: Spec, warp_size: int = 32) -> pd.DataFrame:
    """``frame`` with the paper's metrics added, from per-thread instruction and region counts.

    Parameters
    ----------
    instructions:
        ``Instr``: dynamic instructions per thread (e.g. static SASS/PTX counts with
        annotated loop trip counts; weight slow instructions as the paper does).
    regions:
        ``Regions``: blocking instructions per thread + 1.
    threads:
        Threads in the launch.
    threads_per_block:
        Threads per block (gives ``W_TB``).
    blocks_on_sm:
        ``B_SM``, e.g. the ``blocks_per_sm`` column of :func:`blocks_per_sm`.

    Returns
    -------
    DataFrame
        A copy of ``frame`` with ``instr``, ``regions``, ``threads``,
        ``warps_per_block``, ``blocks_per_sm``, ``efficiency`` and ``utilization``.

    Examples
    --------
    >>> df = pd.DataFrame({"tile": [16, 32], "instr": [15150, 9000], "regions": [769, 300]})
    >>> out = carving_metrics(df, instructions="instr", regions="regions", threads=2**24,
    ...                       threads_per_block="tile * tile", blocks_on_sm=[2, 1])
    >>> out[["warps_per_block", "utilization"]].round(1).to_dict("list")
    {'warps_per_block': [8.0, 32.0], 'utilization': [226.6, 465.0]}
    """
    out = frame.copy()
    out["instr"] = resolve(frame, instructions, "instructions per thread")
    out["regions"] = resolve(frame, regions, "regions per thread")
    tpb, out["threads"] = _launch(frame, threads_per_block, threads)
    out["warps_per_block"] = warps_per_block(tpb, warp_size)
    out["blocks_per_sm"] = resolve(frame, blocks_on_sm, "blocks per SM")
    out["efficiency"] = efficiency(out["instr"], out["threads"])
    out["utilization"] = utilization(out["instr"], out["regions"], out["warps_per_block"], out["blocks_per_sm"])
    return out


def static_metrics(frame: pd.DataFrame, cc: str | float, *, threads_per_block: Spec, threads: Spec,
                   instructions: Spec = "instructions", regions: Spec = "regions", registers: Spec = "registers",
                   shared: Spec = "shared_bytes", warp_size: int = 32,
                   occupancy: Callable[..., Any] | None = None,
                   instruction_weights: Mapping[str, float] | None = None) -> pd.DataFrame:
    """The paper's metrics from static counts and compiler resource usage, with ``B_SM`` computed for ``cc``.

    The defaults are the column names of :func:`starchart.carve.sass.sass_counts_frame`
    (per-thread ``instructions`` and ``regions``) and of
    :mod:`starchart.carve.resources` (``registers``, ``shared_bytes``), joined on the
    configurations.

    Returns
    -------
    DataFrame
        The columns of :func:`carving_metrics` plus ``limiter`` and ``occupancy`` (theoretical: resident
        warps over the SM's maximum). When ``frame`` has the ``shared_wavefronts`` column of
        :func:`starchart.carve.shared_memory.shared_wavefronts_frame` (per warp), also
        ``weighted_instructions`` (instructions plus shared wavefronts) and ``weighted_efficiency`` (Efficiency
        with each wavefront counted as an instruction; Utilization is left as it is, since a replay hides no
        latency).

    ``instruction_weights`` (e.g. ``{"global_load": 4}``) weighs the instruction classes of
    :data:`starchart.carve.sass.INSTRUCTION_CLASSES` (the ``n_<class>`` columns of the SASS counts) into
    ``weighted_instructions`` and ``weighted_efficiency`` as well: each instruction of the class counts as that many,
    the paper's "some instructions count as multiple instructions" (§4.1.2). With the wavefronts, shared-memory
    classes are already counted by what they cost and cannot be weighted again.

    Examples
    --------
    The paper's matrix multiplication (§4.2) with a Volta's limits instead of the 8800's:
    13 registers and 2088 bytes of shared memory per 256-thread block fit 8 blocks (64 warps),
    so Utilization = 15150 / 769 × (7/2 + 7 × 8) = 1172.2.

    >>> df = pd.DataFrame({"instructions": [15150], "regions": [769], "registers": [13],
    ...                    "shared_bytes": [2088]})
    >>> out = static_metrics(df, "7.0", threads_per_block=256, threads=2**24)
    >>> out[["blocks_per_sm", "limiter"]].to_dict("records"), round(float(out["utilization"].iloc[0]), 1)
    ([{'blocks_per_sm': 8.0, 'limiter': 'warps'}], 1172.2)
    """
    occ = blocks_per_sm(frame, cc, threads_per_block=threads_per_block, registers=registers, shared=shared,
                        occupancy=occupancy)
    out = carving_metrics(frame, instructions=instructions, regions=regions, threads=threads,
                          threads_per_block=threads_per_block, blocks_on_sm=occ["blocks_per_sm"].to_numpy(),
                          warp_size=warp_size)
    out["limiter"] = occ["limiter"]
    out["occupancy"] = theoretical_occupancy(out, cc)
    weights = _instruction_weights(instruction_weights, "shared_wavefronts" in frame.columns)
    if "shared_wavefronts" in frame.columns or weights:
        # Slow instructions weighted (the paper's §4.1.2): each shared-memory wavefront costs an issue slot,
        # so an 8-way conflicting load counts 9 times. Only in Efficiency: a replay is not independent work
        # between blocking points, so Utilization (latency hidden) must not grow with conflicts.
        extra = resolve(frame, "shared_wavefronts", "shared wavefronts") if "shared_wavefronts" in frame.columns \
            else np.zeros(len(frame))
        for klass, weight in weights.items():
            column = f"n_{klass}"  # absent where no configuration has the class: none to weigh
            if column in frame.columns:
                extra = extra + (weight - 1) * pd.to_numeric(frame[column]).fillna(0).to_numpy(dtype=float)
        out["weighted_instructions"] = out["instr"] + extra
        out["weighted_efficiency"] = efficiency(out["weighted_instructions"], out["threads"])
    return out


def _instruction_weights(weights: Mapping[str, float] | None, wavefronts: bool) -> dict[str, float]:
    """``instruction_weights`` checked: known classes, positive weights, shared classes not counted twice."""
    checked = {}
    for klass, weight in (weights or {}).items():
        if klass not in INSTRUCTION_CLASSES:
            close = difflib.get_close_matches(str(klass), list(INSTRUCTION_CLASSES), n=1)
            raise InputError(f"no instruction class {klass!r}", where="instruction_weights",
                             hint=(f"did you mean {close[0]!r}? " if close else "") +
                                  f"classes: {', '.join(INSTRUCTION_CLASSES)}")
        if not (isinstance(weight, (int, float)) and np.isfinite(weight) and weight > 0):
            raise InputError(f"weight {weight!r} of {klass!r} is not a positive number", where="instruction_weights",
                             hint="e.g. 4 (each instruction of the class counts as four)")
        if wavefronts and klass.startswith("shared"):
            raise InputError(f"{klass!r} is counted by its wavefronts already (the block's shape was given)",
                             where="instruction_weights", hint=f"leave {klass!r} out of the weights")
        checked[klass] = float(weight)
    return checked


def theoretical_occupancy(metrics: pd.DataFrame, cc: str | float) -> np.ndarray:
    """Resident warps over the SM's maximum, ``blocks_per_sm × warps_per_block / max warps per SM``.

    For thresholds such as ``"occupancy >= 0.5"``; NaN where ``blocks_per_sm`` is unknown.

    >>> theoretical_occupancy(pd.DataFrame({"blocks_per_sm": [4.0], "warps_per_block": [8.0]}), "8.6").tolist()
    [0.6666666666666666]
    """
    warps = pd.to_numeric(metrics["blocks_per_sm"]).to_numpy(dtype=float) * metrics["warps_per_block"].to_numpy(float)
    return warps / device_limits(cc).max_warps_per_sm


def counter_metrics(frame: pd.DataFrame, cc: str | float | None = None, *, threads_per_block: Spec,
                    threads: Spec, blocks_on_sm: Spec | None = None, barriers_per_thread: Spec = 1,
                    loads_per_region: float = 1.0, extra_instructions: Spec = 0, warp_instructions: Spec = KTT_COUNTERS["warp_instructions"],
                    global_loads: Spec = KTT_COUNTERS["global_loads"], registers: Spec = KTT_COUNTERS["registers"],
                    shared: Spec = KTT_COUNTERS["shared"], warp_size: int = 32,
                    occupancy: Callable[..., Any] | None = None) -> pd.DataFrame:
    """The metrics approximated from measured profiler counters (Nsight Compute names by default).

    How each input of eqs. 1–2 is obtained, and where this differs from the paper:

    - ``Instr × Threads`` = warp instructions executed × ``warp_size``
      (``smsp__inst_executed.sum``). The paper counts instructions per thread
      statically from the PTX with annotated trip counts; the counter is the
      dynamic count of the real SASS, issue slots of partly-filled or divergent
      warps counted as full — that is what they cost.
    - ``Instr`` (per thread) = warp instructions / warps in the launch, warps =
      ``Threads / threads_per_block × W_TB``.
    - ``Regions`` (per thread) = global-load requests per warp
      (``l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`` / warps) /
      ``loads_per_region`` + ``barriers_per_thread`` + 1. The paper finds the
      consumers of long-latency loads in the code; counters only say how many
      global loads a warp issued, not how many are consumed together. With the
      default ``loads_per_region=1`` every load ends a region (the worst case, like
      the paper's own worst-case assumption for barriers); raise it when the code
      batches independent loads before their first use. Barriers are not counted
      by these counters: give them per thread (a number, column or expression).
      Texture loads and SFU latencies, which the paper also counts, are not seen.
    - ``B_SM`` from the occupancy calculator for ``cc`` with the measured registers
      per thread and static shared memory per block, unless ``blocks_on_sm`` is given.
    - ``extra_instructions`` (warp-level, default 0) are added to the warp
      instructions before both metrics, like the paper's weighting of slow
      instructions ("some instructions count as multiple instructions", §4.1.2):
      e.g. shared-memory wavefronts (``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum``
      + ``..._op_st.sum``), so that bank-conflict replays cost issue slots.

    Parameters
    ----------
    frame:
        One row per configuration, with the counters and resource columns; rows
        lacking them (failed runs) get NaN metrics.
    cc:
        Compute capability for the occupancy calculator (needed unless
        ``blocks_on_sm`` is given).
    threads_per_block, threads:
        Threads per block and threads in the launch (names, expressions or numbers),
        e.g. ``"BLOCK_SIZE_X * BLOCK_SIZE_Y"`` and
        ``"IMAGE_WIDTH * IMAGE_HEIGHT / (TILE_SIZE_X * TILE_SIZE_Y)"``.

    Returns
    -------
    DataFrame
        A copy of ``frame`` with the columns of :func:`carving_metrics` plus
        ``limiter`` and ``occupancy`` (when the calculator ran; a measured ``occupancy`` column of
        ``frame`` is kept as is), ``warps``, ``global_loads_per_warp`` and ``total_instructions``.

    Examples
    --------
    >>> df = pd.DataFrame({"bx": [32, 64], "warp_inst": [1e6, 8e5], "ld": [2e4, 2e4]})
    >>> out = counter_metrics(df, threads_per_block="bx", threads=32 * 1000, blocks_on_sm=[8, 4],
    ...                       warp_instructions="warp_inst", global_loads="ld", barriers_per_thread=1)
    >>> out[["instr", "regions", "utilization"]].round(1).to_dict("list")
    {'instr': [1000.0, 800.0], 'regions': [22.0, 22.0], 'utilization': [318.2, 236.4]}
    >>> out["efficiency"].tolist() == [1 / (1e6 * 32), 1 / (8e5 * 32)]
    True
    """
    if loads_per_region <= 0:
        raise InputError(f"loads_per_region must be positive, got {loads_per_region}", where="loads_per_region",
                         hint="give the number of global loads issued before their first consumer (≥ 1)")
    tpb, n_threads = _launch(frame, threads_per_block, threads)
    w_tb = warps_per_block(tpb, warp_size)
    warps = np.ceil(n_threads / tpb) * w_tb
    warp_inst = resolve(frame, warp_instructions, "warp instructions") + resolve(frame, extra_instructions,
                                                                                "extra instructions")
    loads_per_warp = resolve(frame, global_loads, "global load requests") / warps
    barriers = resolve(frame, barriers_per_thread, "barriers per thread")
    occ = None
    if blocks_on_sm is None:
        if cc is None:
            raise InputError("counter_metrics needs the compute capability to compute blocks per SM",
                             where="cc", hint=f"pass {arg('cc', repr('7.5'))} (for example) or {arg('blocks_on_sm')}")
        occ = blocks_per_sm(frame, cc, threads_per_block=tpb, registers=registers, shared=shared,
                            occupancy=occupancy)
        blocks_on_sm = occ["blocks_per_sm"].to_numpy()
    out = carving_metrics(frame, instructions=warp_inst / warps, regions=loads_per_warp / loads_per_region + barriers + 1,
                          threads=n_threads, threads_per_block=tpb, blocks_on_sm=blocks_on_sm, warp_size=warp_size)
    # Instr × Threads is the measured total, not the per-warp average times a rounded thread count.
    out["total_instructions"] = warp_inst * warp_size
    out["efficiency"] = efficiency(out["total_instructions"], 1.0)
    out["warps"] = warps
    out["global_loads_per_warp"] = loads_per_warp
    if occ is not None:
        out["limiter"] = occ["limiter"]
        if "occupancy" not in out.columns:  # a measured occupancy column of the data stays as it is
            out["occupancy"] = theoretical_occupancy(out, cc)
    return out
