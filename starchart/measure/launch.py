"""Launch geometry and compiler defines for GPU kernels, following Kernel Tuner's conventions.

Nothing here touches a GPU, so all of it is tested on any machine.

- The **thread block** is read from the parameters named by ``block_size_names``
  (default ``block_size_x``, ``block_size_y``, ``block_size_z``); a dimension whose
  parameter is not in the configuration is 256 for x and 1 for y and z, as in
  Kernel Tuner.
- The **problem size** is up to three integers or expressions over parameters
  (``"n // tile"``); missing dimensions are 1.
- The **grid** divides the problem size by a divisor per dimension and rounds up:
  ``grid_div_x`` etc. are ``None`` (divide by that dimension's block size
  parameter, or by 1 when it is not a parameter), an int, an expression string,
  or a list of those whose values are multiplied (``["block_size_x",
  "tile_size_x"]``). An empty list means "do not divide".

Expressions are parsed once with :mod:`ast` against the same whitelist as
restrictions (:mod:`starchart.constraints`) and never ``eval``-ed; a name that is
not a parameter of the configuration raises :class:`~starchart.errors.InputError`.
Unlike Kernel Tuner, callables are not accepted as problem sizes or divisors, so
that an evaluator can always be described as JSON and rebuilt.

Examples
--------
>>> geometry = LaunchGeometry(problem_size=("n", 1000), grid_div_y=["tile_y", "block_size_y"])
>>> geometry({"n": 4096, "block_size_x": 128, "block_size_y": 4, "tile_y": 2})
((32, 125, 1), (128, 4, 1))
>>> compile_options({"block_size_x": 128, "use_shuffle": True})
['-Dblock_size_x=128', '-Duse_shuffle=1']
"""

from __future__ import annotations

import ast
import math
import numbers
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from starchart._util.text import shorten
from starchart.constraints import ALLOWED_FUNCTIONS, Expression
from starchart.errors import InputError, SpaceError

__all__ = [
    "DEFAULT_BLOCK_SIZE_NAMES",
    "GRID_SIZE_NAMES",
    "RAW_DEFINES_HINT",
    "LaunchGeometry",
    "check_define_values",
    "check_expression",
    "compile_options",
    "evaluate_expression",
    "expression_names",
    "launch_geometry",
    "shared_memory_size",
]

#: Kernel Tuner's names of the thread block dimensions.
DEFAULT_BLOCK_SIZE_NAMES: tuple[str, str, str] = ("block_size_x", "block_size_y", "block_size_z")
#: Names under which the grid dimensions are defined for the kernel (Kernel Tuner's).
GRID_SIZE_NAMES: tuple[str, str, str] = ("grid_size_x", "grid_size_y", "grid_size_z")
# Kernel Tuner's default block size when the x dimension is not a parameter.
_DEFAULT_BLOCK = (256, 1, 1)
_AXES = "xyz"

ProblemSize = int | str | Sequence[int | str]
GridDiv = None | int | str | Sequence[int | str]


# ------------------------------------------------------------------ expressions
def expression_names(expression: str, *, label: str = "expression") -> tuple[str, ...]:
    """The parameter names ``expression`` reads (function names excluded), in order of appearance.

    Raises :class:`InputError` if it is not a Python expression.

    Examples
    --------
    >>> expression_names("max(n // tile, 1) * block_size_x")
    ('n', 'tile', 'block_size_x')
    """
    tree = _parse(expression, label)
    seen: dict[str, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in ALLOWED_FUNCTIONS:
            seen.setdefault(node.id, None)
    # ast.walk is breadth first; order by position in the text for readable messages
    return tuple(sorted(seen, key=lambda name: _first_position(tree, name)))


def _first_position(tree: ast.AST, name: str) -> tuple[int, int]:
    return min((n.lineno, n.col_offset) for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name)


def _parse(expression: str, label: str) -> ast.Expression:
    if not isinstance(expression, str) or not expression.strip():
        raise InputError(f"expected a non-empty expression string, got {expression!r}", where=label)
    try:
        return ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise InputError(f"{expression!r} is not a valid Python expression ({exc.msg})", where=label,
                         hint="write e.g. 'n // block_size_x' or a plain parameter name") from exc
    except (RecursionError, MemoryError):  # thousands of nested operators: Python's parser gives up
        raise InputError(f"{shorten(expression, 80)!r} is nested too deeply to read", where=label,
                         hint="write e.g. 'n // block_size_x' or a plain parameter name") from None


@lru_cache(maxsize=1024)
def _compiled(expression: str, names: tuple[str, ...], label: str) -> Expression:
    unknown = [name for name in expression_names(expression, label=label) if name not in names]
    if unknown:
        listed = ", ".join(names) if names else "(none)"
        which = "parameter" if len(unknown) == 1 else "parameters"
        raise InputError(f"{expression!r} names the unknown {which} {', '.join(map(repr, unknown))}",
                         where=label, hint=f"use the tuning parameters: {listed}")
    try:
        return Expression(expression, names)
    except SpaceError as exc:  # the whitelist refused something; say where it came from
        raise InputError(exc.message.replace("in a restriction", "in an expression"), where=label,
                         hint=exc.hint) from exc


def check_expression(expression: str, parameters: Iterable[str], *, label: str = "expression") -> None:
    """Raise :class:`InputError` unless ``expression`` is allowed and reads only ``parameters``.

    >>> check_expression("bx * 4", ["bx", "by"])
    >>> check_expression("bx * tx", ["bx"], label="smem_args['size']")
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: smem_args['size']: 'bx * tx' names the unknown parameter 'tx' (hint: use the tuning parameters: bx)
    """
    _compiled(expression, tuple(parameters), label)


def evaluate_expression(expression: str, config: Mapping[str, Any], *, label: str = "expression") -> Any:
    """The value of a whitelisted expression over the parameters in ``config``.

    Raises :class:`InputError` naming ``label`` for an unknown parameter, a
    disallowed construct, or an evaluation Python would refuse (division by zero).

    Examples
    --------
    >>> evaluate_expression("n // (bx * 2)", {"n": 1000, "bx": 32})
    15
    >>> evaluate_expression("n // tile", {"n": 1000}, label="problem_size[0]")
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: problem_size[0]: 'n // tile' names the unknown parameter 'tile' (hint: use the tuning parameters: n)
    """
    compiled = _compiled(expression, tuple(config), label)
    try:
        value, bad = compiled.evaluate({name: config[name] for name in compiled.names})
    except Exception as exc:  # e.g. arithmetic on a string parameter
        raise InputError(f"{expression!r} cannot be evaluated: {type(exc).__name__}: {exc}", where=label) from exc
    if bad is not None and bool(np.any(bad)):
        shown = ", ".join(f"{name}={config[name]!r}" for name in compiled.names)
        raise InputError(f"{expression!r} cannot be evaluated for {shown} (division by zero or similar)",
                         where=label)
    if isinstance(value, np.ndarray):
        value = value.item() if value.ndim == 0 else value
    return value.item() if isinstance(value, np.generic) else value


def _as_int(value: Any, what: str, label: str) -> int:
    """Kernel Tuner's ``int(...)`` of a dimension: truncates floats, refuses the rest."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, numbers.Real) and math.isfinite(value):
        return int(value)
    raise InputError(f"{what} must be a number, got {value!r}", where=label)


# --------------------------------------------------------------------- geometry
def _check_problem_size(problem_size: ProblemSize) -> tuple[int | str, ...]:
    items: tuple[Any, ...]
    if isinstance(problem_size, (str, numbers.Integral)) and not isinstance(problem_size, bool):
        items = (problem_size,)
    elif isinstance(problem_size, Sequence) and not isinstance(problem_size, (str, bytes)):
        items = tuple(problem_size)
    else:
        raise InputError(f"problem_size must be an int, an expression string or a list of up to 3 of them, "
                         f"got {problem_size!r}", where="problem_size",
                         hint="e.g. problem_size=4096 or problem_size=('n', 'm')")
    if not 1 <= len(items) <= 3:
        raise InputError(f"problem_size has {len(items)} dimensions; give 1 to 3", where="problem_size")
    for i, item in enumerate(items):
        if isinstance(item, str):
            expression_names(item, label=f"problem_size[{i}]")  # syntax is checked now, names at use
        elif isinstance(item, bool) or not isinstance(item, numbers.Integral):
            raise InputError(f"each dimension must be an int or an expression string, got {item!r}",
                             where=f"problem_size[{i}]", hint="write it as a string, e.g. 'n * 2'")
    return tuple(int(i) if isinstance(i, numbers.Integral) else i for i in items)


def _check_grid_div(div: GridDiv, axis: str) -> None | int | str | tuple[int | str, ...]:
    label = f"grid_div_{axis}"
    if div is None:
        return None
    if isinstance(div, bool):
        raise InputError(f"expected parameter names, expressions or ints, got {div!r}", where=label)
    if isinstance(div, numbers.Integral):
        return int(div)
    if isinstance(div, str):
        expression_names(div, label=label)
        return div
    if isinstance(div, Iterable) and not isinstance(div, (bytes, Mapping)):
        parts = tuple(div)
        for part in parts:
            if isinstance(part, bool) or not isinstance(part, (str, numbers.Integral)):
                raise InputError(f"each divisor must be a parameter name, an expression or an int, got {part!r}",
                                 where=label, hint="write a callable divisor as an expression string")
            if isinstance(part, str):
                expression_names(part, label=label)
        return tuple(int(p) if isinstance(p, numbers.Integral) else p for p in parts)
    raise InputError(f"expected None, a parameter name, an expression, an int or a list of them, got {div!r}",
                     where=label, hint="write a callable divisor as an expression string, e.g. 'bx * tile'")


def _check_block_names(names: Sequence[str | None]) -> tuple[str | None, str | None, str | None]:
    if isinstance(names, str) or not isinstance(names, Sequence) or not 1 <= len(names) <= 3:
        raise InputError(f"block_size_names must be a list of 1 to 3 parameter names, got {names!r}",
                         where="block_size_names", hint="e.g. ('bx', 'by')")
    for name in names:
        if name is not None and (not isinstance(name, str) or not name.isidentifier()):
            raise InputError(f"{name!r} is not a valid parameter name", where="block_size_names")
    padded = tuple(names) + (None,) * (3 - len(names))
    return padded  # type: ignore[return-value]


class LaunchGeometry:
    """Grid and thread block dimensions of a kernel launch as functions of the configuration.

    Parameters
    ----------
    problem_size:
        An int, an expression string, or a list of 1 to 3 of those.
    block_size_names:
        Parameter names of the block dimensions x, y, z (1 to 3 names; missing are ``None``).
    grid_div_x, grid_div_y, grid_div_z:
        The divisor of each problem dimension (see the module documentation).

    The arguments are checked when the object is built (types, expression syntax);
    parameter names when it is used, or earlier with :meth:`check`.

    Examples
    --------
    >>> g = LaunchGeometry(problem_size=(1000, 64), grid_div_x=["block_size_x", "tile"])
    >>> g.grid({"block_size_x": 64, "block_size_y": 8, "tile": 4})
    (4, 8, 1)
    >>> g.block({"block_size_x": 64, "block_size_y": 8, "tile": 4})
    (64, 8, 1)
    >>> g.block({})  # Kernel Tuner's defaults
    (256, 1, 1)
    >>> g.names
    ('block_size_x', 'tile', 'block_size_y', 'block_size_z')
    """

    def __init__(self, problem_size: ProblemSize, block_size_names: Sequence[str | None] = DEFAULT_BLOCK_SIZE_NAMES,
                 grid_div_x: GridDiv = None, grid_div_y: GridDiv = None, grid_div_z: GridDiv = None):
        self.problem_size = _check_problem_size(problem_size)
        self.block_size_names = _check_block_names(block_size_names)
        self.grid_div = tuple(_check_grid_div(d, axis) for d, axis in zip((grid_div_x, grid_div_y, grid_div_z), _AXES))

    @property
    def names(self) -> tuple[str, ...]:
        """Every name an expression or the default divisors may read (block size names included)."""
        seen: dict[str, None] = {}
        for i, item in enumerate(self.problem_size):
            if isinstance(item, str):
                seen.update(dict.fromkeys(expression_names(item, label=f"problem_size[{i}]")))
        for axis, div in zip(_AXES, self.grid_div):
            parts = (div,) if not isinstance(div, tuple) else div
            for part in parts:
                if isinstance(part, str):
                    seen.update(dict.fromkeys(expression_names(part, label=f"grid_div_{axis}")))
        seen.update(dict.fromkeys(n for n in self.block_size_names if n is not None))
        return tuple(seen)

    def check(self, parameters: Iterable[str]) -> None:
        """Raise :class:`InputError` if an expression names something that is not in ``parameters``.

        Block size names need not be parameters (their dimension then takes the default).

        >>> LaunchGeometry("n", grid_div_x="bx * tile").check(["n", "bx"])
        Traceback (most recent call last):
        ...
        starchart.errors.InputError: grid_div_x: 'bx * tile' names the unknown parameter 'tile' (hint: use the tuning parameters: n, bx)
        """
        known = tuple(parameters)
        for i, item in enumerate(self.problem_size):
            if isinstance(item, str):
                _compiled(item, known, f"problem_size[{i}]")
        for axis, div in zip(_AXES, self.grid_div):
            for part in (div,) if not isinstance(div, tuple) else div:
                if isinstance(part, str):
                    _compiled(part, known, f"grid_div_{axis}")

    def problem(self, config: Mapping[str, Any]) -> tuple[int, int, int]:
        """The problem size of ``config``, padded with 1s to three dimensions."""
        dims = [1, 1, 1]
        for i, item in enumerate(self.problem_size):
            label = f"problem_size[{i}]"
            value = evaluate_expression(item, config, label=label) if isinstance(item, str) else item
            dims[i] = _as_int(value, "a problem size", label)
        return dims[0], dims[1], dims[2]

    def block(self, config: Mapping[str, Any]) -> tuple[int, int, int]:
        """The thread block dimensions of ``config`` (256, 1, 1 where not a parameter)."""
        dims = []
        for axis, name, default in zip(_AXES, self.block_size_names, _DEFAULT_BLOCK):
            value = config[name] if name is not None and name in config else default
            dims.append(_as_int(value, f"the block size {name!r}", f"block_size_{axis}"))
        return dims[0], dims[1], dims[2]

    def divisors(self, config: Mapping[str, Any]) -> tuple[int | float, int | float, int | float]:
        """The grid divisor of each dimension for ``config``."""
        out: list[int | float] = []
        for axis, div, name in zip(_AXES, self.grid_div, self.block_size_names):
            label = f"grid_div_{axis}"
            if div is None:  # Kernel Tuner: the block size parameter, or 1 if there is none
                value: Any = config.get(name, 1) if name is not None else 1
                out.append(_divisor(value, label))
                continue
            product: int | float = 1
            for part in (div,) if not isinstance(div, tuple) else div:
                if isinstance(part, str):
                    # Kernel Tuner truncates an expression's value with int()
                    part = _as_int(evaluate_expression(part, config, label=label), "a grid divisor", label)
                product *= _divisor(part, label)
            out.append(product)
        return out[0], out[1], out[2]

    def grid(self, config: Mapping[str, Any]) -> tuple[int, int, int]:
        """The grid dimensions: each problem dimension divided by its divisor, rounded up."""
        dims = []
        for size, div in zip(self.problem(config), self.divisors(config)):
            if isinstance(div, numbers.Integral):
                dims.append(-(-size // int(div)))  # exact ceiling for any integer size
            else:
                dims.append(math.ceil(size / div))
        return dims[0], dims[1], dims[2]

    def __call__(self, config: Mapping[str, Any]) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """``(grid, block)`` for ``config``."""
        return self.grid(config), self.block(config)

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON-able values; ``LaunchGeometry(**d)`` rebuilds it."""
        def plain(div: Any) -> Any:
            return list(div) if isinstance(div, tuple) else div
        return {"problem_size": list(self.problem_size), "block_size_names": list(self.block_size_names),
                "grid_div_x": plain(self.grid_div[0]), "grid_div_y": plain(self.grid_div[1]),
                "grid_div_z": plain(self.grid_div[2])}

    def __repr__(self) -> str:
        return f"LaunchGeometry({self.to_dict()})"


def _divisor(value: Any, label: str) -> int | float:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
        raise InputError(f"a grid divisor must be a positive number, got {value!r}", where=label)
    return int(value) if isinstance(value, numbers.Integral) or float(value).is_integer() else float(value)


def launch_geometry(config: Mapping[str, Any], problem_size: ProblemSize, *,
                    block_size_names: Sequence[str | None] = DEFAULT_BLOCK_SIZE_NAMES,
                    grid_div_x: GridDiv = None, grid_div_y: GridDiv = None,
                    grid_div_z: GridDiv = None) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """``(grid, block)`` of one configuration; a one-off :class:`LaunchGeometry`.

    Examples
    --------
    >>> launch_geometry({"block_size_x": 96}, 1000)
    ((11, 1, 1), (96, 1, 1))
    >>> launch_geometry({"bx": 16, "by": 16}, (512, 512), block_size_names=("bx", "by"))
    ((32, 32, 1), (16, 16, 1))
    """
    return LaunchGeometry(problem_size, block_size_names, grid_div_x, grid_div_y, grid_div_z)(config)


def shared_memory_size(smem_args: Mapping[str, Any] | None, config: Mapping[str, Any]) -> int:
    """Bytes of dynamic shared memory: Kernel Tuner's ``smem_args={"size": int | expression}``.

    Examples
    --------
    >>> shared_memory_size({"size": "block_size_x * 4"}, {"block_size_x": 128})
    512
    >>> shared_memory_size(None, {})
    0
    """
    if not smem_args:
        return 0
    if not isinstance(smem_args, Mapping) or "size" not in smem_args:
        raise InputError(f"smem_args must be a dict with a 'size', got {smem_args!r}", where="smem_args",
                         hint="e.g. smem_args={'size': 'block_size_x * 4'}")
    size = smem_args["size"]
    if isinstance(size, str):
        size = evaluate_expression(size, config, label="smem_args['size']")
    value = _as_int(size, "the shared memory size", "smem_args['size']")
    if value < 0:
        raise InputError(f"the shared memory size must not be negative, got {value}", where="smem_args['size']")
    return value


# ------------------------------------------------------------------------ defines
_TOKEN = re.compile(r"([a-zA-Z0-9_]+)")


def _substitute(text: str, config: Mapping[str, Any]) -> str:
    """Kernel Tuner's textual replacement of parameter names by their values (whole tokens only)."""
    return "".join(_format_value(config[part]) if part in config else part for part in _TOKEN.split(text))


def _format_value(value: Any) -> str:
    """A value as macro text: bools are 1/0 (``#if flag`` must work), floats keep full precision."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    if value is None:
        return ""
    return str(value).replace("\r\n", " ").replace("\n", " ")  # one option, one line


# A parameter value reaches the compiler as -D<NAME>=<value>, i.e. as source code: a value from a space file or a
# dataset could otherwise run code inside the kernel binary, ``({extern int system(const char*); system(...); 8;})``.
# One token is allowed: a number, a character or string literal, or an identifier (``float``, ``true``).
_C_SUFFIX_INT = r"(?:[uU](?:ll|LL|[lLzZ])?|(?:ll|LL|[lLzZ])[uU]?|[wW][bB]|[uU][wW][bB])?"
_C_SUFFIX_FLOAT = r"(?:[fFlL]|[fF](?:16|32|64|128)[xX]?|bf16|BF16|d[fdl]|D[FDL])?"
_C_LITERAL = re.compile(
    r"[+-]?(?:"
    rf"(?:0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+){_C_SUFFIX_INT}"                              # 42, 0x2a, 7u, 8ull
    rf"|(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?{_C_SUFFIX_FLOAT}"           # 1.5, .5f, 1e-3, 2.0L
    rf"|0[xX](?:[0-9a-fA-F]*\.[0-9a-fA-F]+|[0-9a-fA-F]+\.?)[pP][+-]?[0-9]+{_C_SUFFIX_FLOAT}"  # 0x1.8p3
    r")"
    r"|(?:u8|[uUL])?'(?:[^'\\\n]|\\[^\n])+'"                                              # 'a', '\n'
    r'|(?:u8|[uUL])?"(?:[^"\\\n]|\\[^\n])*"'                                              # "fast"
    r"|[A-Za-z_][A-Za-z0-9_]*")                                                          # float, true

#: What to do about a value refused by :func:`check_define_values`.
RAW_DEFINES_HINT = ("give a number, a 'c'/\"string\" literal or an identifier; if the value is C code on purpose "
                    "and you trust where the space came from, set raw_defines: true in the evaluator "
                    "(raw_defines=True in Python)")


def _define_text_is_safe(value: Any) -> bool:
    """Whether ``value`` is written as one C token (numbers and booleans always are)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, numbers.Integral, float)):
        return True  # formatted by _format_value: digits, '.', 'e', '-', 'inf', 'nan'
    return _C_LITERAL.fullmatch(_format_value(value)) is not None


def check_define_values(config: Mapping[str, Any], defines: Mapping[str, Any] | None = None, *,
                        where: str = "defines", raw: bool = False) -> None:
    """Refuse a parameter value that would reach the compiler as C code rather than as one literal or name.

    Parameters
    ----------
    config:
        The configuration (or, to check a whole space before measuring, one value at a time).
    defines:
        As for :func:`compile_options`: ``None`` checks every parameter; a dict checks the
        parameters its string values name (the values substituted into them). Constant and
        callable defines are the evaluator author's own code and are not checked.
    where:
        What the error names (the evaluator, the parameter's file).
    raw:
        The ``raw_defines`` opt-in: check nothing.

    Raises
    ------
    InputError
        Naming the parameter and its value, for anything but a C integer, floating, character or
        string literal (a leading sign allowed on numbers) or an identifier.

    Examples
    --------
    >>> check_define_values({"TILE": 16, "T": "float", "F": True, "S": "-1.5e-3f", "C": "'x'", "N": None})
    >>> check_define_values({"TILE": "8; abort()"}, where="CEvaluator")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: CEvaluator: parameter 'TILE' has the value '8; abort()', which is not a C literal ...
    """
    if raw:
        return
    if defines is None:
        names: Iterable[str] = config
    else:
        used = {token for value in defines.values() if isinstance(value, str) for token in _TOKEN.findall(value)}
        names = [name for name in config if name in used]
    for name in names:
        value = config[name]
        if not _define_text_is_safe(value):
            shown = shorten(repr(value if not isinstance(value, np.generic) else value.item()), 80, collapse=True)
            raise InputError(f"parameter {name!r} has the value {shown}, which is not a C literal or identifier, "
                             f"so it is not passed to the compiler as -D{name}=...", where=where,
                             hint=RAW_DEFINES_HINT)


def compile_options(config: Mapping[str, Any], defines: Mapping[str, Any] | None = None,
                    extra: Iterable[str] = (), *, grid: Sequence[int] | None = None,
                    block: Sequence[int] | None = None,
                    block_size_names: Sequence[str | None] = DEFAULT_BLOCK_SIZE_NAMES) -> list[str]:
    """Compiler options ``-D<NAME>=<value>`` for one configuration, then ``extra``.

    Parameters
    ----------
    config:
        The configuration; with ``defines=None`` each parameter is defined.
    defines:
        Kernel Tuner's ``defines``: when given, exactly these macros are defined
        instead. A value is a constant, a callable of the configuration, or a
        string in which parameter names are replaced by their values (as text, like
        Kernel Tuner: ``"bx * 2"`` becomes ``128 * 2``).
    extra:
        Options appended as they are (``"-O3"``, ``"--use_fast_math"``).
    grid, block:
        With ``defines=None``, also define ``grid_size_x/y/z``, the block size names
        (with the block's actual dimensions, so defaults are visible to the code)
        and ``kernel_tuner=1``, as Kernel Tuner does.

    Booleans become 1/0, ``None`` an empty definition; names must be C identifiers.

    Examples
    --------
    >>> compile_options({"bx": 64, "fast": False, "T": "float"}, extra=["-O3"])
    ['-Dbx=64', '-Dfast=0', '-DT=float', '-O3']
    >>> compile_options({"bx": 64}, defines={"WIDTH": "bx * 2", "N": 10})
    ['-DWIDTH=64 * 2', '-DN=10']
    >>> compile_options({"block_size_x": 64}, grid=(16, 1, 1), block=(64, 1, 1))  # doctest: +NORMALIZE_WHITESPACE
    ['-Dblock_size_x=64', '-Dgrid_size_x=16', '-Dgrid_size_y=1', '-Dgrid_size_z=1',
     '-Dblock_size_y=1', '-Dblock_size_z=1', '-Dkernel_tuner=1']
    """
    macros: dict[str, Any] = {}
    if defines is None:
        macros.update(config)
        if grid is not None:
            macros.update(zip(GRID_SIZE_NAMES, grid))
        if block is not None:
            macros.update((name, size) for name, size in zip(block_size_names, block) if name is not None)
        if grid is not None or block is not None:
            macros["kernel_tuner"] = 1
    else:
        if not isinstance(defines, Mapping):
            raise InputError(f"defines must be a dict of name: value, got {defines!r}", where="defines")
        for name, value in defines.items():
            if callable(value):
                value = value(dict(config))
            elif isinstance(value, str):
                value = _substitute(value, config)
            macros[name] = value
    options = []
    for name, value in macros.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise InputError(f"{name!r} cannot be a preprocessor macro name", where="defines",
                             hint="parameter and define names must be C identifiers")
        options.append(f"-D{name}={_format_value(value)}")
    if isinstance(extra, str):
        extra = [extra]
    options.extend(str(option) for option in extra)
    return options

