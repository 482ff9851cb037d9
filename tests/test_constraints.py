"""Restriction strings compiled to numpy: every operator against Python's own evaluation, and the whitelist."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from starchart.constraints import (
    Restriction,
    as_restriction,
    compile_expression,
    compile_restriction,
    rowwise,
)
from starchart.errors import SpaceError

NAMES = ["x", "y", "flag"]
GRID = list(itertools.product(range(-2, 6), range(5), [False, True]))  # y == 0 exercises division by zero
COLUMNS = {
    "x": np.array([g[0] for g in GRID], dtype=np.int64),
    "y": np.array([g[1] for g in GRID], dtype=np.int64),
    "flag": np.array([g[2] for g in GRID], dtype=bool),
}
SAFE_BUILTINS = {"min": min, "max": max, "abs": abs, "int": int, "float": float, "round": round}


def python_verdicts(expression: str) -> list[bool]:
    """Kernel Tuner's semantics: eval per configuration; one that raises is invalid."""
    verdicts = []
    for x, y, flag in GRID:
        try:
            verdicts.append(bool(eval(expression, {"__builtins__": SAFE_BUILTINS}, {"x": x, "y": y, "flag": flag})))
        except (ZeroDivisionError, ValueError, OverflowError):
            verdicts.append(False)
    return verdicts


EXPRESSIONS = [
    "x + y > 5", "x - y < 0", "x * y <= 6", "x / y > 1.5", "x // y == 1", "x % y == 1", "x % y",
    "x ** 2 > y", "2 ** -y < 0.3", "y ** x > 1", "-x < -2", "+x == x", "not x > 2",
    "x > 1 and y < 3", "x > 3 or y == 0", "1 < x <= 3", "0 <= x < y <= 3", "x == y", "x != y",
    "x >= y", "x in (1, 3)", "x not in [2, 4]", "x in (y, 5)", "min(x, y) == 1", "max(x, y, 2) > 3",
    "abs(x - y) <= 1", "int(x / 2) == 1", "int(x / y) == 1", "float(x) / 4 > 0.5", "round(x / 3) == 1",
    "round(x / 3, 1) > 0.6", "(x & 1) == 0", "(x | y) > 3", "x ^ y", "x << 1 > 4", "x >> 1 == 1",
    "x << y > 8", "x if y else 0", "(x or 4) > 3", "(x and y) > 1", "y == 0 or x % y == 0",
    "y != 0 and x // y >= 1", "x // y >= 1 if y else True", "y and x / y > 1", "flag", "not flag",
    "flag + flag == 2", "flag * 3 - x > 0", "flag == 1", "flag or x > 2", "-flag < 0", "x % -3 == 1",
    "x // -3 == -1", "(x - 2.5) // 2 == -1", "(x + 0.5) % 2 > 1", "True", "1 == 2",
    "32 <= x * y * 8 <= 64", "x*y<=4 and (x % 2 == 0 or y % 2 == 1) and not flag",
]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_matches_python_row_by_row(expression: str) -> None:
    restriction = compile_restriction(expression, NAMES)
    assert restriction(COLUMNS, size=len(GRID)).tolist() == python_verdicts(expression)


BIG = [2**k for k in range(10, 34)] + [-(2**40), 0, 3]


@pytest.mark.parametrize("expression", [
    "n * n * 8 <= 16 * 2**30", "n * n > 0", "n + 2**62 + 2**62 > 0", "-n - 2**62 - 2**62 < 0",
    "n ** 3 % 7 == 1", "(n * n * n) % (n - 3) == 0", "1 << (n % 100) > 2**62", "n ** 2 // 3 > 2**40",
])
def test_large_integers_do_not_wrap_around(expression: str) -> None:
    # int64 wrapped n * n to 0 for n = 2**32, so a memory-footprint restriction let huge problem sizes through
    expected = []
    for n in BIG:
        try:
            expected.append(bool(eval(expression, {"__builtins__": {}}, {"n": n})))
        except ZeroDivisionError:
            expected.append(False)
    assert compile_restriction(expression, ["n"])({"n": np.array(BIG)}).tolist() == expected


def test_names_are_those_used_in_parameter_order() -> None:
    assert compile_restriction("y > x", ["x", "y", "z"]).names == ("x", "y")
    assert compile_restriction("1 < 2", ["x"]).names == ()


def test_broadcast_columns_give_the_table() -> None:
    restriction = compile_restriction("x % y == 0", ["x", "y"])
    table = restriction({"x": np.arange(1, 5).reshape(-1, 1), "y": np.arange(1, 4).reshape(1, -1)})
    assert table.shape == (4, 3)
    assert table.tolist() == [[x % y == 0 for y in range(1, 4)] for x in range(1, 5)]


def test_constant_restriction_broadcasts_to_size() -> None:
    assert compile_restriction("2 > 1", ["x"])({}, size=3).tolist() == [True, True, True]


def test_strings_and_floats() -> None:
    restriction = compile_restriction("platform in ('gtx480', 'a100') and ratio >= 0.5", ["platform", "ratio"])
    columns = {"platform": np.array(["gtx480", "hd7970", "a100"], dtype=object), "ratio": np.array([0.5, 1.0, 0.25])}
    assert restriction(columns).tolist() == [True, False, False]
    assert compile_restriction("platform != 'hd7970'", ["platform"])(columns).tolist() == [True, False, True]


def test_int_of_infinity_is_invalid_not_an_error() -> None:
    restriction = compile_restriction("int(x / y) >= 0", ["x", "y"])
    assert restriction({"x": np.array([1.0, 1.0]), "y": np.array([0.0, 2.0])}).tolist() == [False, True]


def test_expression_values() -> None:
    value, bad = compile_expression("2 ** i if i < 3 else -i", ["i"]).evaluate({"i": np.arange(5)})
    assert value.tolist() == [1, 2, 4, -3, -4] and not np.any(bad)


@pytest.mark.parametrize("expression, fragment", [
    ("__import__('os')", "'__import__' is not allowed"),
    ("x.real > 1", "attribute access"),
    ("(lambda: 1)() > 0", "a lambda"),
    ("[i for i in (1, 2)]", "list comprehension"),
    ("x[0] > 1", "indexing"),
    ("open('f')", "'open' is not allowed"),
    ("(y := 3) > 1", "assignment expression"),
    ("f'{x}' == '1'", "f-string"),
    ("x is None", "'Is' is not allowed"),
    ("x @ y", "MatMult"),
    ("x in y", "literal tuple or list"),
    ("x in (1, 2) == y", "must be the last"),
    ("min(x)", "2 to 64 arguments"),
    ("round(x, ndigits=1)", "positional arguments"),
    ("min > 1", "must be called"),
    ("x > ", "not a valid Python expression"),
    ("x = 1", "not a valid Python expression"),
    ("b'x' == x", "constant b'x'"),
])
def test_rejected_with_the_expression_quoted(expression: str, fragment: str) -> None:
    with pytest.raises(SpaceError) as info:
        compile_restriction(expression, ["x", "y"])
    message = str(info.value)
    assert fragment in message
    assert repr(expression) in message or expression in message


def test_unknown_name_lists_the_parameters() -> None:
    with pytest.raises(SpaceError) as info:
        compile_restriction("block_size_z > 1", ["block_size_x", "block_size_y"])
    message = str(info.value)
    assert "'block_size_z'" in message and "block_size_x, block_size_y" in message
    assert "'block_size_z > 1'" in message


def test_vectorised_callable() -> None:
    restriction = Restriction.from_callable(lambda p: p["x"] * p["y"] <= 4, names=["x", "y"])
    assert restriction({"x": np.array([1, 2, 3]), "y": np.array([4, 2, 2])}).tolist() == [True, True, False]


def test_row_wise_callable_is_detected_with_a_warning() -> None:
    restriction = as_restriction(lambda p: p["x"] == 1 or p["y"] == 2, ["x", "y"])
    with pytest.warns(UserWarning, match="once per configuration"):
        verdict = restriction({"x": np.array([1, 2, 3]), "y": np.array([5, 2, 2])})
    assert verdict.tolist() == [True, True, True]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # decided once: no second warning
        assert restriction({"x": np.array([3, 3]), "y": np.array([5, 5])}).tolist() == [False, False]


def test_rowwise_marker_and_zero_division() -> None:
    restriction = as_restriction(rowwise(lambda p: p["x"] // p["y"] > 0, names=["x", "y"]), ["x", "y", "z"])
    assert restriction.names == ("x", "y")
    assert restriction({"x": np.array([2, 2]), "y": np.array([0, 1])}).tolist() == [False, True]


def test_vectorised_callable_with_wrong_shape_is_an_error() -> None:
    restriction = Restriction.from_callable(lambda p: np.array([True]), names=["x"], vectorized=True)
    with pytest.raises(SpaceError, match="one boolean per configuration"):
        restriction({"x": np.array([1, 2, 3])})


def test_failing_string_restriction_says_which() -> None:
    restriction = compile_restriction("platform < 3", ["platform"])
    with pytest.raises(SpaceError, match="platform < 3"):
        restriction({"platform": np.array(["a", "b"], dtype=object)})


def test_as_restriction_rejects_other_types() -> None:
    with pytest.raises(SpaceError, match="string or a callable"):
        as_restriction(42, ["x"])


def _short_name(p):
    return len(str(p["name"])) < 4


def test_restrictions_pickle_with_their_convention():
    """Optuna and Ray send spaces to other processes. A restriction string is compiled again there; a row-wise
    function stays row-wise (before, it was tried on whole columns and said no to everything)."""
    import pickle

    from starchart import Space
    from starchart.constraints import as_restriction, rowwise

    columns = {"name": np.array(["abc", "abcdef", "xy"], dtype=object)}
    by_row = as_restriction(rowwise(_short_name, names=["name"]), ["name"])
    assert pickle.loads(pickle.dumps(by_row))(columns).tolist() == by_row(columns).tolist() == [True, False, True]
    space = Space({"x": [1, 2, 3], "y": [1, 2]}, ["x > y", "x != 3"])
    again = pickle.loads(pickle.dumps(space))
    assert again.size() == space.size() == 1 and [r.source for r in again.restrictions] == ["x > y", "x != 3"]


@pytest.mark.parametrize("expression", [
    "x + 2**70 > 2**70 + 1", "x - 2**70 < 0", "x * 2**70 > 2**71", "2**70 + x > 0", "x < 2**70 + 1",
    "y * 1.5 + 2**70 > 0", "x + 10**400 > 0", "(2**70 + y) % 3 == 0",
], ids=["add", "subtract", "multiply", "constant-left", "compare", "float", "beyond-float", "modulo"])
def test_integer_constants_beyond_64_bits_are_computed_as_python_does(expression: str) -> None:
    """Before: numpy took a Python int such as 2**70 as a C long: OverflowError, reported as "a string parameter
    in arithmetic?" (and a T1 value list ``list(range(2**70, 2**70 + 2))`` crashed with a traceback)."""
    restriction = compile_restriction(expression, NAMES)
    assert restriction(COLUMNS, size=len(GRID)).tolist() == python_verdicts(expression)


def test_an_expression_of_integers_beyond_64_bits_is_exact() -> None:
    value, bad = compile_expression("2**70 + 2", []).evaluate({})
    assert value == 2**70 + 2 and not np.any(bad)
