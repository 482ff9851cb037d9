"""Launch geometry against Kernel Tuner's own functions, expression safety, and compiler defines."""

from __future__ import annotations

import re

import numpy as np
import pytest

from starchart.errors import InputError
from starchart.measure.launch import (
    DEFAULT_BLOCK_SIZE_NAMES,
    LaunchGeometry,
    check_define_values,
    check_expression,
    compile_options,
    evaluate_expression,
    expression_names,
    launch_geometry,
    shared_memory_size,
)

kt_util = pytest.importorskip("kernel_tuner.util")

CONFIGS = [
    {"block_size_x": 128, "tile_x": 1, "tile_y": 1},
    {"block_size_x": 96, "block_size_y": 4, "tile_x": 2, "tile_y": 3},
    {"block_size_x": 32, "block_size_y": 8, "block_size_z": 2, "tile_x": 4, "tile_y": 1},
    {"block_size_x": 1000, "block_size_y": 1, "tile_x": 7, "tile_y": 5},
    {"tile_x": 2, "tile_y": 2},  # no block size parameters: Kernel Tuner's defaults
]

# (problem_size, grid_div_x, grid_div_y, grid_div_z), each as Kernel Tuner takes them
SETTINGS = [
    (4096, None, None, None),
    ((1000, 333), ["block_size_x", "tile_x"], ["block_size_y", "tile_y"], None),
    ((4097, 513, 9), ["block_size_x"], "block_size_y * tile_y", [2]),
    (("tile_x * 1000", 64), "tile_x", [], None),
    (("4096 // tile_y",), ["block_size_x*tile_x"], None, None),
    ((12345, 1, 77), 3, None, "tile_x + 1"),
]


def kernel_tuner_geometry(config, problem_size, grid_div):
    names = list(kt_util.default_block_size_names)
    problem = kt_util.get_problem_size(problem_size, config)
    grid = kt_util.get_grid_dimensions(problem, config, grid_div, names)
    block = kt_util.get_thread_block_dimensions(config, names)
    return tuple(grid), tuple(block)


@pytest.mark.parametrize("setting", SETTINGS, ids=[str(s[0]) for s in SETTINGS])
def test_geometry_matches_kernel_tuner(setting):
    problem_size, gx, gy, gz = setting
    geometry = LaunchGeometry(problem_size, grid_div_x=gx, grid_div_y=gy, grid_div_z=gz)
    for config in CONFIGS:
        try:
            expected = kernel_tuner_geometry(config, problem_size, (gx, gy, gz))
        except NameError:  # a divisor names a parameter this configuration lacks: ours says which
            with pytest.raises(InputError, match="unknown parameter"):
                geometry(config)
            continue
        assert geometry(config) == expected, config
        assert launch_geometry(config, problem_size, grid_div_x=gx, grid_div_y=gy, grid_div_z=gz) == expected
        assert all(isinstance(v, int) for v in geometry(config)[0] + geometry(config)[1])


def test_custom_block_size_names_match_kernel_tuner():
    names = ["bx", "by", "bz"]
    config = {"bx": 64, "by": 2, "bz": 3, "n": 1000}
    geometry = LaunchGeometry(("n", "n", 10), block_size_names=names)
    problem = kt_util.get_problem_size(("n", "n", 10), config)
    expected_grid = kt_util.get_grid_dimensions(problem, config, (None, None, None), names)
    assert geometry.grid(config) == tuple(expected_grid) == (16, 500, 4)
    assert geometry.block(config) == tuple(kt_util.get_thread_block_dimensions(config, names)) == (64, 2, 3)


def test_short_block_size_names_are_padded():
    geometry = LaunchGeometry((100, 100), block_size_names=["bx"])
    assert geometry.block_size_names == ("bx", None, None)
    assert geometry({"bx": 10}) == ((10, 100, 1), (10, 1, 1))
    assert geometry.to_dict()["block_size_names"] == ["bx", None, None]


def test_numpy_values_and_float_divisors():
    geometry = LaunchGeometry(np.int64(1000), grid_div_x="bx / 2")
    assert geometry({"bx": np.int64(64)}) == ((32, 1, 1), (256, 1, 1))  # int(64 / 2) = 32 -> ceil(1000 / 32)
    assert LaunchGeometry(10, grid_div_x=None).grid({"block_size_x": 2.5}) == (4, 1, 1)


def test_unknown_parameter_is_a_clear_input_error():
    geometry = LaunchGeometry(("n", 100), grid_div_x=["block_size_x", "tile"])
    with pytest.raises(InputError) as err:
        geometry({"n": 10, "block_size_x": 2})
    text = str(err.value)
    assert "grid_div_x" in text and "'tile'" in text and "unknown parameter" in text
    assert "n, block_size_x" in text  # the hint lists what exists
    with pytest.raises(InputError, match=r"problem_size\[0\].*'n'"):
        geometry({"block_size_x": 2, "tile": 1})
    with pytest.raises(InputError, match="'tile'"):
        geometry.check(["n", "block_size_x"])
    geometry.check(["n", "block_size_x", "tile"])


def test_expressions_are_never_evaluated_as_python():
    # each is refused by reading the expression, before anything runs
    for evil, message in (("__import__('os').system('true')", "names the unknown parameter '__import__'"),
                          ("n.__class__", "attribute access is not allowed"),
                          ("(lambda: 1)()", "calling a lambda is not allowed"),
                          ("[x for x in n]", "names the unknown parameter 'x'")):
        with pytest.raises(InputError, match=re.escape(message)):
            evaluate_expression(evil, {"n": 1})
    with pytest.raises(InputError, match="not a valid Python expression"):
        LaunchGeometry("n //")
    with pytest.raises(InputError, match="division by zero"):
        evaluate_expression("n // t", {"n": 4, "t": 0})
    with pytest.raises(InputError, match="cannot be evaluated"):
        evaluate_expression("n * 2 - 1", {"n": "abc"})


def test_expression_helpers():
    assert expression_names("min(a, b) * int(c)") == ("a", "b", "c")
    assert evaluate_expression("max(n // 3, 1)", {"n": 10}) == 3
    assert evaluate_expression("n if fast else 2", {"n": 10, "fast": False}) == 2
    check_expression("a * b", ["a", "b", "c"])
    with pytest.raises(InputError, match="'z'"):
        check_expression("a * z", ["a"])


@pytest.mark.parametrize("bad, match", [
    (dict(problem_size=[1, 2, 3, 4]), "4 dimensions"),
    (dict(problem_size=1.5), "problem_size"),
    (dict(problem_size=[1.5]), "int or an expression"),
    (dict(problem_size=10, grid_div_x=lambda p: 2), "callable"),
    (dict(problem_size=10, grid_div_y=[1.5]), "grid_div_y"),
    (dict(problem_size=10, grid_div_x=True), "grid_div_x"),
    (dict(problem_size=10, block_size_names="bx"), "block_size_names"),
    (dict(problem_size=10, block_size_names=["b-x"]), "valid parameter name"),
])
def test_bad_settings(bad, match):
    with pytest.raises(InputError, match=match):
        LaunchGeometry(**bad)


def test_non_positive_divisor_and_bad_dimensions():
    with pytest.raises(InputError, match="positive"):
        LaunchGeometry(10).grid({"block_size_x": 0})
    with pytest.raises(InputError, match="must be a number"):
        LaunchGeometry(10).block({"block_size_x": "wide"})


def test_geometry_round_trips_through_its_dict():
    geometry = LaunchGeometry(("n", 8), grid_div_x=["bx", 2], grid_div_y=[], grid_div_z=3)
    rebuilt = LaunchGeometry(**geometry.to_dict())
    config = {"n": 1000, "bx": 16}
    assert rebuilt(config) == geometry(config) == ((32, 8, 1), (256, 1, 1))
    assert geometry.names == ("n", "bx", "block_size_x", "block_size_y", "block_size_z")
    assert "LaunchGeometry" in repr(geometry)


def test_shared_memory_size():
    assert shared_memory_size({"size": 1024}, {}) == 1024
    assert shared_memory_size({"size": "bx * by * 4"}, {"bx": 16, "by": 8}) == 512
    assert shared_memory_size(None, {}) == 0
    with pytest.raises(InputError, match="'size'"):
        shared_memory_size({"bytes": 4}, {})
    with pytest.raises(InputError, match="negative"):
        shared_memory_size({"size": "0 - bx"}, {"bx": 4})


def test_compile_options_every_parameter():
    config = {"block_size_x": 128, "unroll": True, "ratio": 0.1, "T": "float", "big": np.int64(2**40), "none": None}
    assert compile_options(config) == ["-Dblock_size_x=128", "-Dunroll=1", "-Dratio=0.1", "-DT=float",
                                       "-Dbig=1099511627776", "-Dnone="]
    assert compile_options({"f": False, "g": np.bool_(True)}) == ["-Df=0", "-Dg=1"]
    assert compile_options({"x": 1}, extra="-O3") == ["-Dx=1", "-O3"]


def test_compile_options_kernel_tuner_defaults():
    """With grid and block, the same macros Kernel Tuner prepends to the source."""
    config = {"block_size_x": 64, "tile": 2}
    grid, block = (8, 4, 1), (64, 1, 1)
    options = compile_options(config, grid=grid, block=block)
    _, kernel = kt_util.prepare_kernel_string("k", "", config, grid, block, DEFAULT_BLOCK_SIZE_NAMES, "CUDA", None)
    kt_macros = {}
    for line in kernel.splitlines():
        if line.startswith("#define "):
            _, name, value = line.split(" ", 2)
            kt_macros[name] = value
    ours = dict(option[2:].split("=", 1) for option in options)
    assert ours == kt_macros


def test_compile_options_with_defines():
    config = {"bx": 64, "tile": 2}
    options = compile_options(config, defines={"WIDTH": "bx*tile", "BXX": "bxx", "N": 7, "F": lambda c: c["bx"] // 2,
                                               "ON": True},
                              extra=["--use_fast_math"])
    assert options == ["-DWIDTH=64*2", "-DBXX=bxx", "-DN=7", "-DF=32", "-DON=1", "--use_fast_math"]
    assert compile_options(config, defines={}) == []
    with pytest.raises(InputError, match="macro name"):
        compile_options({"a-b": 1})
    with pytest.raises(InputError, match="dict"):
        compile_options({}, defines=["X"])  # type: ignore[arg-type]
    assert compile_options({"s": "a\nb"}) == ["-Ds=a b"]


@pytest.mark.parametrize("value", [16, -3, 0.1, True, None, np.int64(7), np.float32(0.5), "float", "_T2", "-1",
                                   "+2.5", "1e-3", ".5f", "2.0L", "0x1F", "0b101", "8ull", "0x1.8p3", "'a'",
                                   "'\\n'", '"text"', 'u8"x\\"y"', "nan"])
def test_define_values_that_are_one_c_token_pass(value):
    check_define_values({"P": value})
    assert compile_options({"P": value})  # and are written as before


@pytest.mark.parametrize("value", ['({extern int system(const char*); system("touch /tmp/x"); 8;})',
                                   "8; abort()", "1 + 1", "a b", "f(1)", "8 /* */", '"a" "b"', "'", '"open',
                                   "unsigned int", "1\nabort()", "#x", "[1, 2]", ""])
def test_define_values_that_are_c_code_are_refused(value):
    with pytest.raises(InputError, match="parameter 'P' has the value .* not a C literal or identifier") as info:
        check_define_values({"P": value}, where="CEvaluator")
    assert info.value.where == "CEvaluator" and "raw_defines" in info.value.hint
    check_define_values({"P": value}, raw=True)  # the opt-in


def test_define_values_checked_are_those_that_become_macros():
    """With defines, only parameters a string define names reach the compiler."""
    config = {"bx": 64, "label": "not C code"}
    check_define_values(config, {"WIDTH": "bx * 2", "N": 10, "F": lambda c: 1})
    with pytest.raises(InputError, match="'label'"):
        check_define_values(config, {"NAME": "label"})
    with pytest.raises(InputError, match="'label'"):
        check_define_values(config)
