"""Restrictions on a tuning space, compiled once and evaluated on whole numpy columns.

A restriction says which combinations of parameter values are allowed. Two kinds
are accepted, following Kernel Tuner's conventions:

- a **string**, a Python expression over parameter names such as
  ``"block_size_x * block_size_y <= 1024"``. It is parsed once with :mod:`ast`,
  checked against a whitelist (numbers, strings, arithmetic, comparisons,
  ``and``/``or``/``not``, ``x if c else y``, ``in (...)`` and the functions
  ``min``, ``max``, ``abs``, ``int``, ``float``, ``round``) and turned into numpy
  operations, so it is never ``eval``-ed and never run once per configuration;
- a **callable** receiving a dict ``{name: ndarray}`` of columns and returning a
  boolean array. A Kernel Tuner style function that only works on one
  configuration at a time (a dict of scalars) is detected and run row by row, or
  can be marked so explicitly with :func:`rowwise`.

Python's semantics are kept where numpy's differ: ``and``/``or`` return their
operands like Python does, ``True + True == 2``, ``//`` and ``%`` floor like
Python. A configuration whose evaluation would raise in Python (division or
modulo by zero, ``0 ** -1``, ``int(inf)``) is *invalid*, not an error; as in
Python, the branch that ``and``/``or``/``if`` skip cannot invalidate it.

Examples
--------
>>> import numpy as np
>>> r = compile_restriction("x % y == 0 and x // y <= 4", ["x", "y"])
>>> r.names
('x', 'y')
>>> r({"x": np.array([8, 8, 6, 5]), "y": np.array([2, 0, 3, 1])}).tolist()
[True, False, True, False]
"""

from __future__ import annotations

import ast
import keyword
import math
import operator
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from starchart.errors import SpaceError

__all__ = [
    "ALLOWED_FUNCTIONS",
    "Expression",
    "Restriction",
    "as_restriction",
    "compile_expression",
    "compile_restriction",
    "rowwise",
]

#: Functions a restriction string may call.
ALLOWED_FUNCTIONS = ("min", "max", "abs", "int", "float", "round")

#: The deepest expression tree a restriction may have (operators inside operators): it is compiled and
#: evaluated recursively, and thousands of levels overflowed Python's stack. Written restrictions are a few deep.
MAX_NESTING = 200


def nesting_depth(tree: ast.AST) -> int:
    """The depth of ``tree`` (its root is 1), measured without recursion.

    >>> nesting_depth(ast.parse("a + b * c", mode="eval"))
    5
    """
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _quoted(source: str) -> str:
    """``source`` quoted for an error's ``where``, shortened: a generated restriction can run to pages."""
    return repr(source) if len(source) <= 120 else repr(source[:119]) + "…"


def _too_deep(source: str, label: str) -> SpaceError:
    return SpaceError(f"the expression is nested more than {MAX_NESTING} levels deep", where=f"{label} {_quoted(source)}",
                      hint="write it with fewer operators inside one another, e.g. split it into several restrictions")


_SYNTAX_HINT = ("a restriction may use parameter names, numbers, strings, + - * / // % ** & | ^ << >>, "
                "comparisons (also chained and 'in (...)'), and/or/not, 'a if c else b' and the functions "
                + ", ".join(ALLOWED_FUNCTIONS))

# A compiled node returns (value, bad): ``bad`` marks the elements whose evaluation
# would have raised in Python (None: none did). Keeping it apart from the value lets
# a short-circuiting and/or/if ignore errors in the branch Python would not run.
_Bad = np.ndarray | bool | None
_Node = Callable[[Mapping[str, np.ndarray]], tuple[Any, _Bad]]


# ---------------------------------------------------------------- numpy helpers
def _truth(x: Any) -> Any:
    """Python truthiness, element by element."""
    if isinstance(x, np.ndarray):
        if x.dtype == bool:
            return x
        if x.dtype == object:
            return np.frompyfunc(bool, 1, 1)(x).astype(bool)
        return x != 0
    return bool(x)


def _is_bool(x: Any) -> bool:
    return isinstance(x, (bool, np.bool_)) or (isinstance(x, np.ndarray) and x.dtype == bool)


def _num(x: Any) -> Any:
    """Booleans as integers, as Python's arithmetic treats them (numpy's bool + bool is 'or')."""
    if isinstance(x, np.ndarray) and x.dtype == bool:
        return x.astype(np.int64)
    if isinstance(x, (bool, np.bool_)):
        return int(x)
    return x


def _either(a: _Bad, b: _Bad) -> _Bad:
    if a is None:
        return b
    if b is None:
        return a
    return np.logical_or(a, b)


def _only_where(cond: Any, bad: _Bad) -> _Bad:
    """``bad`` restricted to where ``cond`` holds (the branch Python actually evaluates)."""
    return None if bad is None else np.logical_and(cond, bad)


def _is_zero(x: Any) -> Any:
    return np.logical_not(_truth(x))


def _division(ufunc: np.ufunc) -> Callable[[Any, Any], tuple[Any, _Bad]]:
    def apply(a: Any, b: Any) -> tuple[Any, _Bad]:
        zero = _is_zero(b)
        if object in (np.asarray(a).dtype, np.asarray(b).dtype) and np.any(zero):
            b = np.where(zero, 1, b)  # Python ints (see _exact) raise on a zero divisor; it is marked bad anyway
        return ufunc(a, b), zero
    return apply


_true_div, _floor_div, _mod = _division(np.true_divide), _division(np.floor_divide), _division(np.remainder)


#: Below this bound on its magnitude an int64 result cannot have wrapped around.
_INT64_SAFE = 2.0**62


def _largest(x: Any) -> float:
    """The largest magnitude in ``x``, as a float (0 when empty)."""
    a = np.asarray(x)
    return float(np.max(np.abs(a.astype(np.float64)))) if a.size else 0.0


def _is_int(x: Any) -> bool:
    """An integer array or number, a Python int beyond int64 included (numpy holds that one as an object)."""
    return (isinstance(x, int) and not isinstance(x, bool)) or np.asarray(x).dtype.kind in "iu"


def _is_big_int(x: Any) -> bool:
    """A Python int that numpy cannot take as int64 (``2**70`` folded from a constant): ``np.add(2**70, 2)``
    raises OverflowError."""
    return isinstance(x, int) and not isinstance(x, bool) and not -(2**63) <= x < 2**63


def _as_float(x: Any) -> Any:
    """``x`` as float64, an integer beyond the float range as ±inf (as the float it would round to)."""
    if isinstance(x, int) and not isinstance(x, bool):
        try:
            return np.float64(float(x))
        except OverflowError:
            return np.float64(math.copysign(math.inf, x))
    return np.asarray(x, dtype=np.float64)


def _exact(ufunc: np.ufunc, bound: Callable[[float, float], float],
           approximate: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``ufunc`` on integers as Python computes it: where int64 could wrap around (``n * n`` for n = 2**32
    is 0), use Python ints (object arrays), or floats when even a bound on the result overflows a float."""
    def apply(a: Any, b: Any) -> Any:
        if not (_is_int(a) and _is_int(b)):
            if _is_big_int(a) or _is_big_int(b):  # with a float: Python computes it in floats too
                return ufunc(_as_float(a), _as_float(b))
            return ufunc(a, b)
        try:
            limit = bound(_largest(a), _largest(b))
        except OverflowError:
            limit = math.inf
        if limit < _INT64_SAFE:
            return ufunc(a, b)
        if math.isinf(limit):  # beyond any float: exact integers could be too large to compute
            return approximate(_as_float(a), _as_float(b))
        return ufunc(np.asarray(a).astype(object), np.asarray(b).astype(object))
    return apply


_add = _exact(np.add, lambda x, y: x + y, np.add)
_subtract = _exact(np.subtract, lambda x, y: x + y, np.subtract)
_multiply = _exact(np.multiply, lambda x, y: x * y, np.multiply)
_power = _exact(np.power, lambda x, y: x**y, np.power)
_left_shift = _exact(np.left_shift, lambda x, y: x * 2.0**y, lambda x, y: x * np.exp2(y))


def _pow(a: Any, b: Any) -> tuple[Any, _Bad]:
    exponent = np.asarray(b)
    negative = exponent < 0 if exponent.dtype.kind in "iufb" else None
    if exponent.dtype.kind in "iu" and np.any(negative):
        a = np.asarray(a, dtype=np.float64)  # Python: 2 ** -1 == 0.5; numpy refuses int ** -int
    bad = None if negative is None else np.logical_and(_is_zero(a), negative)
    return _power(a, b), bad


def _shift(ufunc: Callable[[Any, Any], Any]) -> Callable[[Any, Any], tuple[Any, _Bad]]:
    def shift(a: Any, b: Any) -> tuple[Any, _Bad]:
        negative = np.less(b, 0)  # Python raises on a negative shift count: the configuration is invalid
        return ufunc(a, np.where(negative, 0, b) if _is_int(b) else b), negative
    return shift


def _plain(ufunc: Callable[[Any, Any], Any]) -> Callable[[Any, Any], tuple[Any, _Bad]]:
    def apply(a: Any, b: Any) -> tuple[Any, _Bad]:
        return ufunc(a, b), None
    return apply


_BINOPS: dict[type, Callable[[Any, Any], tuple[Any, _Bad]]] = {
    ast.Add: _plain(_add), ast.Sub: _plain(_subtract), ast.Mult: _plain(_multiply),
    ast.Div: _true_div, ast.FloorDiv: _floor_div, ast.Mod: _mod, ast.Pow: _pow,
    ast.BitAnd: _plain(np.bitwise_and), ast.BitOr: _plain(np.bitwise_or),
    ast.BitXor: _plain(np.bitwise_xor), ast.LShift: _shift(_left_shift),
    ast.RShift: _shift(np.right_shift),
}

_COMPARISONS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
    ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
}


def _to_int(x: Any) -> tuple[Any, _Bad]:
    a = np.asarray(_num(x))
    if a.dtype.kind in "iu":
        return a, None
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a)  # int(inf) and int(nan) raise in Python
        return np.trunc(np.where(bad, 0.0, a)).astype(np.int64), bad
    return np.frompyfunc(int, 1, 1)(a), None


def _round(x: Any, ndigits: Any = None) -> tuple[Any, _Bad]:
    a = np.asarray(_num(x))
    if ndigits is not None:
        return np.round(a, int(ndigits)), None
    if a.dtype.kind == "f":  # round(x) is an int in Python; numpy also rounds half to even
        bad = ~np.isfinite(a)
        return np.round(np.where(bad, 0.0, a)).astype(np.int64), bad
    return a, None


def _reduce(ufunc: np.ufunc) -> Callable[..., tuple[Any, _Bad]]:
    def apply(*args: Any) -> tuple[Any, _Bad]:
        result = _num(args[0])
        for arg in args[1:]:
            result = ufunc(result, _num(arg))
        return result, None
    return apply


_FUNCTIONS: dict[str, tuple[Callable[..., tuple[Any, _Bad]], int, int]] = {
    # name: (implementation, min args, max args)
    "min": (_reduce(np.minimum), 2, 64),
    "max": (_reduce(np.maximum), 2, 64),
    "abs": (lambda x: (np.abs(_num(x)), None), 1, 1),
    "int": (_to_int, 1, 1),
    "float": (lambda x: (np.asarray(_num(x), dtype=np.float64), None), 1, 1),
    "round": (_round, 1, 2),
}


# ------------------------------------------------------------------ the compiler
class _Compiler:
    """Turns a whitelisted expression AST into a tree of closures over numpy columns."""

    def __init__(self, source: str, known: Sequence[str], label: str = "restriction"):
        self.source = source
        self.known = tuple(known)
        self.label = label  # what the errors call the expression
        self.used: set[str] = set()

    def error(self, node: ast.AST, what: str) -> SpaceError:
        segment = ast.get_source_segment(self.source, node) or ""
        col = getattr(node, "col_offset", None)
        at = f" (`{segment}` at column {col + 1})" if segment and col is not None else ""
        return SpaceError(f"{what}{at}", where=f"{self.label} {_quoted(self.source)}", hint=_SYNTAX_HINT)

    def compile(self, node: ast.AST) -> _Node:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise self.error(node, f"{_describe_node(node)} is not allowed in a {self.label}")
        return method(node)

    def _Expression(self, node: ast.Expression) -> _Node:
        return self.compile(node.body)

    def _Constant(self, node: ast.Constant) -> _Node:
        value = node.value
        if not isinstance(value, (int, float, str, bool)) and value is not None:
            raise self.error(node, f"the constant {value!r} is not allowed")
        return lambda cols: (value, None)

    def _Name(self, node: ast.Name) -> _Node:
        name = node.id
        if name not in self.known:
            if name in ALLOWED_FUNCTIONS:
                raise self.error(node, f"the function {name!r} must be called, not used as a value")
            listed = ", ".join(self.known) if self.known else "(none)"
            raise SpaceError(f"unknown name {name!r}", where=f"{self.label} {_quoted(self.source)}",
                             hint=f"use one of the parameters: {listed}")
        self.used.add(name)
        return lambda cols: (cols[name], None)

    def _BinOp(self, node: ast.BinOp) -> _Node:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.error(node, f"the operator {type(node.op).__name__} is not allowed")
        left, right = self.compile(node.left), self.compile(node.right)

        def binop(cols: Mapping[str, np.ndarray]) -> tuple[Any, _Bad]:
            (a, bad_a), (b, bad_b) = left(cols), right(cols)
            value, bad = op(_num(a), _num(b))
            return value, _either(_either(bad_a, bad_b), bad)
        return binop

    def _UnaryOp(self, node: ast.UnaryOp) -> _Node:
        operand = self.compile(node.operand)
        ops = {ast.Not: lambda x: np.logical_not(_truth(x)), ast.USub: lambda x: np.negative(_num(x)),
               ast.UAdd: lambda x: np.positive(_num(x)), ast.Invert: lambda x: np.invert(_num(x))}
        op = ops[type(node.op)]

        def unary(cols: Mapping[str, np.ndarray]) -> tuple[Any, _Bad]:
            value, bad = operand(cols)
            return op(value), bad
        return unary

    def _BoolOp(self, node: ast.BoolOp) -> _Node:
        parts = [self.compile(value) for value in node.values]
        is_and = isinstance(node.op, ast.And)

        def boolop(cols: Mapping[str, np.ndarray]) -> tuple[Any, _Bad]:
            value, bad = parts[0](cols)
            for part in parts[1:]:
                other, other_bad = part(cols)
                truth = _truth(value)
                # Python evaluates the next operand only where 'and' saw True / 'or' saw False.
                runs = truth if is_and else np.logical_not(truth)
                bad = _either(bad, _only_where(runs, other_bad))
                if _is_bool(value) and _is_bool(other):
                    value = np.logical_and(value, other) if is_and else np.logical_or(value, other)
                else:  # Python returns an operand, not a bool: `x or 4` is x or 4
                    value = np.where(truth, other, value) if is_and else np.where(truth, value, other)
            return value, bad
        return boolop

    def _Compare(self, node: ast.Compare) -> _Node:
        operands = [self.compile(node.left)]
        tests = []
        for i, (op, comparator) in enumerate(zip(node.ops, node.comparators)):
            if isinstance(op, (ast.In, ast.NotIn)):
                if i != len(node.ops) - 1:
                    raise self.error(node, "'in (...)' must be the last comparison of a chain")
                tests.append(self._membership(op, comparator))
                operands.append(lambda cols: (None, None))  # the container is evaluated by the test
            elif type(op) in _COMPARISONS:
                tests.append(_COMPARISONS[type(op)])
                operands.append(self.compile(comparator))
            else:
                raise self.error(node, f"the comparison {type(op).__name__!r} is not allowed")

        def compare(cols: Mapping[str, np.ndarray]) -> tuple[Any, _Bad]:
            left, bad = operands[0](cols)
            result: Any = True
            for test, operand in zip(tests, operands[1:]):
                right, right_bad = operand(cols)
                if isinstance(test, _Membership):
                    verdict, right_bad = test(left, cols)
                else:
                    verdict = _truth(test(left, right))
                bad = _either(bad, _only_where(result, right_bad))  # chains short-circuit too
                result = np.logical_and(result, verdict)
                left = right
            return result, bad
        return compare

    def _membership(self, op: ast.cmpop, container: ast.AST) -> _Membership:
        if not isinstance(container, (ast.Tuple, ast.List, ast.Set)):
            raise self.error(container, "'in' needs a literal tuple or list on its right, like x in (1, 2, 4)")
        return _Membership([self.compile(elt) for elt in container.elts], negate=isinstance(op, ast.NotIn))

    def _IfExp(self, node: ast.IfExp) -> _Node:
        test, body, orelse = self.compile(node.test), self.compile(node.body), self.compile(node.orelse)

        def ifexp(cols: Mapping[str, np.ndarray]) -> tuple[Any, _Bad]:
            (cond, bad), (yes, bad_yes), (no, bad_no) = test(cols), body(cols), orelse(cols)
            truth = _truth(cond)
            bad = _either(bad, _either(_only_where(truth, bad_yes), _only_where(np.logical_not(truth), bad_no)))
            return np.where(truth, yes, no), bad
        return ifexp

    def _Call(self, node: ast.Call) -> _Node:
        if not isinstance(node.func, ast.Name):
            raise self.error(node, f"calling {_describe_node(node.func)} is not allowed")
        name = node.func.id
        if name not in _FUNCTIONS:
            raise self.error(node, f"the function {name!r} is not allowed (allowed: {', '.join(ALLOWED_FUNCTIONS)})")
        if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
            raise self.error(node, f"{name}() takes plain positional arguments only")
        func, lo, hi = _FUNCTIONS[name]
        if not lo <= len(node.args) <= hi:
            count = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise self.error(node, f"{name}() takes {count} arguments here, got {len(node.args)}")
        args = [self.compile(arg) for arg in node.args]

        def call(cols: Mapping[str, np.ndarray]) -> tuple[Any, _Bad]:
            bad: _Bad = None
            values = []
            for arg in args:
                value, arg_bad = arg(cols)
                values.append(value)
                bad = _either(bad, arg_bad)
            value, call_bad = func(*values)
            return value, _either(bad, call_bad)
        return call


class _Membership:
    """``left in (e1, e2, ...)``: equality with any element (Python's semantics)."""

    def __init__(self, elements: list[_Node], negate: bool):
        self.elements = elements
        self.negate = negate

    def __call__(self, left: Any, cols: Mapping[str, np.ndarray]) -> tuple[Any, _Bad]:
        found: Any = False
        bad: _Bad = None
        for element in self.elements:
            value, element_bad = element(cols)
            found = np.logical_or(found, _truth(left == value))
            bad = _either(bad, element_bad)
        return (np.logical_not(found) if self.negate else found), bad


def _describe_node(node: ast.AST) -> str:
    names = {
        ast.Attribute: "attribute access", ast.Subscript: "indexing", ast.Lambda: "a lambda",
        ast.ListComp: "a list comprehension", ast.SetComp: "a set comprehension",
        ast.DictComp: "a dict comprehension", ast.GeneratorExp: "a generator expression",
        ast.NamedExpr: "an assignment expression (:=)", ast.JoinedStr: "an f-string",
        ast.Starred: "unpacking (*)", ast.Dict: "a dict", ast.Set: "a set", ast.List: "a list",
        ast.Tuple: "a tuple", ast.Slice: "a slice", ast.Await: "await",
        ast.Yield: "yield", ast.YieldFrom: "yield",
    }
    return names.get(type(node), f"the syntax {type(node).__name__!r}")


# ----------------------------------------------------------------- public types
class Expression:
    """A whitelisted Python expression over named columns, compiled once.

    ``evaluate(columns)`` returns ``(value, bad)``: the value as numpy would
    broadcast it, and a boolean mask of the elements whose evaluation would have
    raised in Python (or ``None``).
    ``label`` is what errors call the expression (``"restriction"``, ``"predicate"``...).

    Examples
    --------
    >>> import numpy as np
    >>> e = compile_expression("16 * i", ["i"])
    >>> e.evaluate({"i": np.arange(1, 4)})[0].tolist()
    [16, 32, 48]
    """

    def __init__(self, source: str, known: Sequence[str], *, label: str = "restriction"):
        try:
            tree = ast.parse(source.strip(), mode="eval")
        except SyntaxError as exc:
            raise SpaceError(f"not a valid Python expression ({exc.msg})", where=f"{label} {_quoted(source)}",
                             hint=_SYNTAX_HINT) from exc
        except (RecursionError, MemoryError):  # Python's parser gives up on thousands of nested operators
            raise _too_deep(source, label) from None
        if nesting_depth(tree) > MAX_NESTING:  # compiled and evaluated recursively: refused before either
            raise _too_deep(source, label)
        # a parameter named like a Python constant or keyword ("True") reads as that constant, not the parameter
        hidden = [name for name in known if keyword.iskeyword(name) and re.search(rf"(?<![\w.]){name}(?!\w)", source)]
        if hidden:
            raise SpaceError(f"the parameter {hidden[0]!r} reads as Python's {hidden[0]} in a restriction, not as "
                             "the parameter", where=f"{label} {_quoted(source)}",
                             hint=f"rename the parameter (e.g. {hidden[0].lower()}_), or write the restriction as "
                                  "a function of p: p[" + repr(hidden[0]) + "]")
        compiler = _Compiler(source.strip(), known, label)
        self.source = source
        self._root = compiler.compile(tree)
        self.names: tuple[str, ...] = tuple(name for name in known if name in compiler.used)

    def evaluate(self, columns: Mapping[str, np.ndarray]) -> tuple[Any, _Bad]:
        """Evaluate on ``columns`` (any shapes numpy can broadcast together)."""
        with np.errstate(all="ignore"):  # 1/0 and friends are reported through `bad`
            return self._root(columns)

    def __repr__(self) -> str:
        return f"Expression({self.source!r})"


class Restriction:
    """A constraint on configurations: ``restriction(columns) -> bool ndarray``.

    ``names`` are the parameters it reads; a tuning space evaluates it once on the
    product of only those parameters' values and broadcasts the verdict.
    ``broadcastable`` says it may be called with columns of different,
    broadcast-compatible shapes (true for compiled strings) rather than equal-length
    1-D columns. Build one with :func:`compile_restriction`, :func:`as_restriction`
    or :func:`rowwise`.

    Examples
    --------
    >>> import numpy as np
    >>> r = Restriction.from_callable(lambda p: p["x"] > 1, names=["x"])
    >>> r({"x": np.array([1, 2, 3])}).tolist()
    [False, True, True]
    """

    def __init__(self, source: str | Callable[..., Any], names: Iterable[str], *,
                 evaluate: Callable[[Mapping[str, np.ndarray]], Any], broadcastable: bool = False):
        self.source = source
        self.names = tuple(names)
        self.broadcastable = broadcastable
        self._evaluate = evaluate
        self._convention: dict[str, Any] = {}  # a function's: {"vectorized": given, or found on the first call}

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its source, compiled again where it is loaded (Optuna and Ray send spaces to other
        processes; the compiled closure cannot travel). A function travels as pickle can send it: one
        defined at a module's top level does, a lambda does not."""
        if isinstance(self.source, str):
            return (Restriction.from_expression, (self.source, self.names))
        # with the convention it was given or found (a row-wise function stays row-wise)
        return (_callable_restriction, (self.source, self.names, self._convention.get("vectorized")))

    # -- constructors
    @classmethod
    def from_expression(cls, expression: str, names: Sequence[str]) -> Restriction:
        """Compile a restriction string over the parameters ``names``."""
        compiled = Expression(expression, names)

        def evaluate(columns: Mapping[str, np.ndarray]) -> Any:
            value, bad = compiled.evaluate(columns)
            truth = _truth(value)
            return truth if bad is None else np.logical_and(truth, np.logical_not(bad))
        return cls(expression, compiled.names, evaluate=evaluate, broadcastable=True)

    @classmethod
    def from_callable(cls, func: Callable[[dict[str, Any]], Any], names: Iterable[str], *,
                      vectorized: bool | None = None) -> Restriction:
        """Wrap ``func``, called with a dict of the columns ``names``.

        ``vectorized=True``: ``func`` takes ``{name: ndarray}`` and returns a boolean
        array (or a scalar, broadcast). ``False``: ``func`` takes one configuration
        ``{name: value}`` at a time and returns a truth value (Kernel Tuner's
        convention; slow). ``None`` (default): try the vectorised call and fall back
        to row-wise calls, with a warning, when it raises or returns the wrong shape.
        """
        names = tuple(names)
        label = getattr(func, "__name__", repr(func))
        state = {"vectorized": vectorized}

        def evaluate(columns: Mapping[str, np.ndarray]) -> Any:
            size = _column_length(columns)
            if state["vectorized"] is not False:
                try:
                    result = np.asarray(func(dict(columns)))
                    if result.ndim == 0 or result.shape == (size,):
                        if size >= 2:  # a 1-row probe cannot tell the two conventions apart
                            state["vectorized"] = True
                        return _truth(np.broadcast_to(result, (size,)))
                    problem = f"returned shape {result.shape} for {size} configurations"
                except Exception as exc:  # any failure means "not vectorised"
                    if state["vectorized"]:
                        raise _callable_error(label, exc) from exc
                    problem = f"raised {type(exc).__name__}: {exc}"
                if state["vectorized"]:
                    raise SpaceError(f"restriction {label} {problem}", where=f"restriction {label}",
                                     hint="return one boolean per configuration")
                state["vectorized"] = False
                warnings.warn(f"restriction {label} does not work on numpy columns ({problem}); "
                              "calling it once per configuration, which is slow. Pass a restriction "
                              "string, or a function of numpy columns, to make it fast.", stacklevel=4)
            return _rowwise_apply(func, label, columns, size)
        restriction = cls(func, names, evaluate=evaluate, broadcastable=False)
        restriction._convention = state  # what __reduce__ hands on: given, or found on the first call
        return restriction

    # -- use
    def __call__(self, columns: Mapping[str, np.ndarray], size: int | None = None) -> np.ndarray:
        """The verdict for each configuration given as columns, as a 1-D (or broadcast) bool array."""
        try:
            result = np.asarray(self._evaluate(columns), dtype=bool)
        except SpaceError:
            raise
        except Exception as exc:  # report which restriction failed, and why
            if isinstance(self.source, str):  # e.g. "s + 1 > 0" over a string parameter
                raise SpaceError(f"evaluating the restriction failed: {type(exc).__name__}: {exc}",
                                 where=f"restriction {self.label}",
                                 hint="it combines values Python cannot combine (a string parameter in "
                                      "arithmetic?): compare strings with == or in (...)") from exc
            raise _callable_error(self.label, exc) from exc
        if size is None:
            shapes = [np.shape(col) for col in columns.values()]
            shape = np.broadcast_shapes(*shapes) if shapes else ()
        else:
            shape = (size,)
        return np.broadcast_to(result, shape) if result.shape != shape else result

    @property
    def label(self) -> str:
        """The restriction as a user wrote it (source text, or the function's name)."""
        if isinstance(self.source, str):
            return repr(self.source)
        return getattr(self.source, "__name__", repr(self.source))

    def __repr__(self) -> str:
        return f"Restriction({self.label}, names={self.names})"


def _column_length(columns: Mapping[str, np.ndarray]) -> int:
    lengths = {len(col) for col in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths {sorted(lengths)}")
    return lengths.pop() if lengths else 1


def _rowwise_apply(func: Callable[[dict[str, Any]], Any], label: str,
                   columns: Mapping[str, np.ndarray], size: int) -> np.ndarray:
    """Call ``func`` once per configuration with plain Python values (Kernel Tuner style)."""
    lists = {name: np.asarray(col).tolist() for name, col in columns.items()}
    out = np.empty(size, dtype=bool)
    for i in range(size):
        try:
            out[i] = bool(func({name: values[i] for name, values in lists.items()}))
        except ZeroDivisionError:
            out[i] = False  # as for strings: a configuration that divides by zero is invalid
        except Exception as exc:  # a user function failed: say which
            raise _callable_error(label, exc) from exc
    return out


def _callable_error(label: str, exc: Exception) -> SpaceError:
    return SpaceError(f"evaluating the restriction failed: {type(exc).__name__}: {exc}",
                      where=f"restriction {label}",
                      hint="check the parameter types it combines; a function must accept a dict of numpy "
                           "columns, or be wrapped with starchart.constraints.rowwise(...)")


def compile_restriction(expression: str, names: Sequence[str]) -> Restriction:
    """Parse ``expression`` once into a vectorised :class:`Restriction` over the parameters ``names``.

    Raises :class:`SpaceError` quoting the expression if it is not valid Python,
    uses anything outside the whitelist, or names an unknown parameter.

    Examples
    --------
    >>> import numpy as np
    >>> r = compile_restriction("32 <= bx * by <= 1024 and bx in (1, 2, 4)", ["bx", "by", "unused"])
    >>> r.names
    ('bx', 'by')
    >>> r({"bx": np.array([1, 2, 8]), "by": np.array([64, 8, 32])}).tolist()
    [True, False, False]
    >>> compile_restriction("__import__('os')", ["bx"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    starchart.errors.SpaceError: restriction "__import__('os')": the function '__import__' is not allowed ...
    """
    return Restriction.from_expression(expression, names)


def compile_expression(expression: str, names: Sequence[str], *, label: str = "restriction") -> Expression:
    """Parse a whitelisted value expression (as in restrictions) over ``names``; errors call it ``label``.

    >>> import numpy as np
    >>> value, bad = compile_expression("n // d", ["n", "d"]).evaluate({"n": np.array([8, 8]), "d": np.array([2, 0])})
    >>> value[0].item(), bad.tolist()   # 8 // 0 would raise in Python: flagged, not an error
    (4, [False, True])
    """
    return Expression(expression, names, label=label)


def _callable_restriction(func: Callable[[dict[str, Any]], Any], names: Sequence[str],
                          vectorized: bool | None) -> Restriction:
    """A pickled function restriction loaded again (see :meth:`Restriction.__reduce__`)."""
    return Restriction.from_callable(func, names, vectorized=vectorized)


def rowwise(func: Callable[[dict[str, Any]], Any], names: Iterable[str] | None = None) -> _RowwiseMarker:
    """Mark ``func`` as taking one configuration ``{name: value}`` at a time (Kernel Tuner's convention).

    ``names`` (optional) are the parameters it reads; giving them lets a space call
    it on far fewer combinations.

    Examples
    --------
    >>> import numpy as np
    >>> marked = rowwise(lambda p: p["x"] in (1, 3), names=["x"])
    >>> as_restriction(marked, ["x", "y"])({"x": np.array([1, 2, 3])}).tolist()
    [True, False, True]
    """
    return _RowwiseMarker(func, None if names is None else tuple(names))


class _RowwiseMarker:
    def __init__(self, func: Callable[[dict[str, Any]], Any], names: tuple[str, ...] | None):
        self.func = func
        self.names = names


def as_restriction(obj: str | Restriction | Callable[..., Any] | _RowwiseMarker,
                   names: Sequence[str]) -> Restriction:
    """Turn whatever a user gave as a restriction into a :class:`Restriction` over ``names``.

    Strings are compiled; callables read all parameters (auto-detecting whether
    they are vectorised); :func:`rowwise` marks row-wise callables.

    >>> import numpy as np
    >>> r = as_restriction(lambda p: p["x"] < p["y"], ["x", "y"])
    >>> r.names, r({"x": np.array([1, 3]), "y": np.array([2, 2])}).tolist()
    (('x', 'y'), [True, False])
    """
    if isinstance(obj, Restriction):
        unknown = [name for name in obj.names if name not in names]
        if unknown:
            raise SpaceError(f"restriction {obj.label} reads unknown parameters {unknown}",
                             hint=f"the parameters are: {', '.join(names)}")
        return obj
    if isinstance(obj, str):
        return compile_restriction(obj, names)
    if isinstance(obj, _RowwiseMarker):
        marked = Restriction.from_callable(obj.func, obj.names or names, vectorized=False)
        return as_restriction(marked, names)
    if callable(obj):
        return Restriction.from_callable(obj, names)
    raise SpaceError(f"a restriction must be a string or a callable, got {type(obj).__name__} {obj!r}",
                     hint="write it as a Python expression string, e.g. 'x * y <= 1024'")
