"""Space: parameters, counting, enumeration, sampling, checking, readers; against brute force and real caches."""

from __future__ import annotations

import gzip
import itertools
import json
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from starchart.constraints import rowwise
from starchart.errors import InputError, SpaceError
from starchart.space import Parameter, SizeEstimate, Space, powers_of_two, value_range

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT.parent / "shared" / "datasets"
needs_datasets = pytest.mark.skipif(not DATASETS.exists(), reason=f"datasets not found at {DATASETS} "
                                    "(../shared/datasets beside the project root)")

GEMM_RESTRICTIONS = [
    "KWG % KWI == 0", "MWG % (MDIMC*VWM) == 0", "NWG % (NDIMC*VWN) == 0", "MWG % (MDIMA*VWM) == 0",
    "NWG % (NDIMB*VWN) == 0", "KWG % ((MDIMC*NDIMC)//MDIMA) == 0", "KWG % ((MDIMC*NDIMC)//NDIMB) == 0",
]

# A small mixed space: numeric, float, boolean and categorical parameters, restrictions over subsets.
SMALL_PARAMS: dict[str, list[Any]] = {
    "bx": [16, 32, 64, 128], "by": [1, 2, 4, 8], "tile": [1, 2, 3], "ratio": [0.5, 1.0, 1.5],
    "shmem": [True, False], "platform": ["gtx480", "hd7970", "a100"],
}
SMALL_RESTRICTIONS = [
    "bx * by <= 256", "shmem or tile == 1", "platform != 'hd7970' or bx % 64 == 0",
    "ratio * tile < 4", "not (platform == 'a100' and by == 1)",
]


def brute_force(params: dict[str, list[Any]], restrictions: list[str]) -> list[tuple[Any, ...]]:
    """The valid configurations in Cartesian order, by Python's eval (the reference semantics)."""
    names = list(params)
    rows = []
    for values in itertools.product(*params.values()):
        env = dict(zip(names, values))
        try:
            ok = all(eval(r, {"__builtins__": {"min": min, "max": max}}, env) for r in restrictions)
        except ZeroDivisionError:
            ok = False
        if ok:
            rows.append(values)
    return rows


def rows_of(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    return list(frame.itertuples(index=False, name=None))


def cache_configurations(path: Path) -> set[tuple[Any, ...]]:
    with gzip.open(path, "rt") as handle:
        cache = json.load(handle)
    keys = cache["tune_params_keys"]
    return {tuple(entry[k] for k in keys) for entry in cache["cache"].values()}


@pytest.fixture
def small() -> Space:
    return Space(SMALL_PARAMS, SMALL_RESTRICTIONS)


# ------------------------------------------------------------------ parameters
def test_parameter_kinds_and_dtypes() -> None:
    assert Parameter.from_values("a", [1, 2]).array.dtype == np.int64
    assert Parameter.from_values("a", [1, 2.5]).array.dtype == np.float64
    assert Parameter.from_values("a", np.array([1, 2])).values == (1, 2)
    assert Parameter.from_values("a", [True, False]).kind == "boolean"
    assert Parameter.from_values("a", ["x", 1]).kind == "categorical"
    assert Parameter.from_values("a", range(3)).values == (0, 1, 2)


@pytest.mark.parametrize("values, fragment", [
    ([], "empty"), ([1, 2, 1], "listed twice"), ([1, 1.0], "listed twice"), (3, "must be a list"),
    ("abc", "must be a list"), ([[1], [2]], "unsupported value"), ([1.0, float("nan")], "NaN"),
])
def test_bad_values_name_the_parameter(values: Any, fragment: str) -> None:
    with pytest.raises(SpaceError, match=fragment) as info:
        Space({"tile": values})
    assert "'tile'" in str(info.value)


def test_helpers() -> None:
    assert value_range(1, 8) == list(range(1, 9))
    assert value_range(16, 256, 16)[-1] == 256
    assert value_range(0.1, 0.5, 0.1) == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert powers_of_two(1, 1024) == [2**k for k in range(11)]
    assert Space.powers_of_two(5, 40) == [8, 16, 32]
    with pytest.raises(SpaceError, match="range stop 1 is below start 5"):
        value_range(5, 1)
    with pytest.raises(SpaceError, match="powers_of_two needs 0 < lo <= hi, got 0, 8"):
        powers_of_two(0, 8)


def test_names_order_and_properties(small: Space) -> None:
    assert small.names == tuple(SMALL_PARAMS)
    assert [p.kind for p in small.parameters] == ["numeric"] * 4 + ["boolean", "categorical"]
    assert small.cartesian_size == math.prod(len(v) for v in SMALL_PARAMS.values())
    assert small.tune_params == SMALL_PARAMS
    assert "6 parameters" in repr(small) and "5 restrictions" in repr(small)


# ------------------------------------------------------------ counting / listing
def test_size_and_enumeration_match_brute_force(small: Space) -> None:
    expected = brute_force(SMALL_PARAMS, SMALL_RESTRICTIONS)
    assert 0 < small.size() == len(expected) < small.cartesian_size
    frame = small.to_frame()
    assert rows_of(frame) == expected  # Cartesian order, last parameter fastest
    assert list(frame.columns) == list(SMALL_PARAMS)
    assert [str(t) for t in frame.dtypes[:5]] == ["int64", "int64", "int64", "float64", "bool"]
    assert frame.index.equals(pd.RangeIndex(len(expected)))


@pytest.mark.parametrize("overrides", [
    {"block_size": 7},                      # many blocks, the split inside the parameters
    {"block_size": 1},                      # one configuration per block
    {"table_limit": 0},                     # nothing tabulated: restrictions evaluated on columns
    {"table_limit": 0, "block_size": 50},
])
def test_internal_paths_agree(overrides: dict[str, int]) -> None:
    space = Space(SMALL_PARAMS, SMALL_RESTRICTIONS)
    for key, value in overrides.items():
        setattr(space, key, value)
    expected = brute_force(SMALL_PARAMS, SMALL_RESTRICTIONS)
    chunks = list(space.enumerate(chunk_size=100))
    assert [len(c) for c in chunks[:-1]] == [100] * (len(chunks) - 1)
    assert rows_of(pd.concat(chunks)) == expected
    assert pd.concat(chunks).index.equals(pd.RangeIndex(len(expected)))
    assert space.size() == len(expected)


def test_exact_size_by_elimination_beyond_the_enumeration_limit() -> None:
    space = Space(SMALL_PARAMS, SMALL_RESTRICTIONS)
    space.enumerate_limit = space.exact_limit = 10  # only elimination may count it
    assert space.size() == len(brute_force(SMALL_PARAMS, SMALL_RESTRICTIONS))


def test_size_of_a_huge_space_is_exact_by_elimination() -> None:
    space = Space({f"p{i}": list(range(10)) for i in range(12)}, ["p0 < p1", "p1 + p2 == 9", "p5 % 3 == 0"])
    # p0 < p1 with p2 = 9 - p1: 45 (p0, p1) pairs; p5 in {0, 3, 6, 9}; 9 free parameters
    assert space.size() == 45 * 4 * 10**8


def test_size_beyond_the_limit_points_to_size_estimate() -> None:
    space = Space({"x": range(1000), "y": range(1000)}, lambda p: p["x"] < p["y"])
    space.exact_limit = space.enumerate_limit = 1000
    space.table_limit = 0  # else the callable is tabulated and the size counted exactly
    with pytest.raises(SpaceError, match="size_estimate"):
        space.size()


def test_size_estimate_interval_contains_the_truth() -> None:
    params = {"a": range(60), "b": range(60), "c": range(60)}  # 216,000 points
    restrictions = ["a * b % 7 == 0 or c < 10", "a + c > 20"]
    truth = Space(params, restrictions).size()
    space = Space(params, restrictions)
    space.enumerate_limit = space.exact_limit = 200_000  # just below the Cartesian size
    space.table_limit = 0                                  # and no elimination: it must estimate
    estimate = space.size_estimate(n=50_000, seed=3)
    assert isinstance(estimate, SizeEstimate) and not estimate.exact
    assert estimate.low <= truth <= estimate.high
    assert estimate.high - estimate.low < 0.05 * truth
    assert Space(params, restrictions).size_estimate().exact


def test_division_by_zero_makes_a_configuration_invalid() -> None:
    space = Space({"x": [0, 1, 2, 4], "y": [0, 1, 2]}, ["x % y == 0", "x / y >= 1"])
    assert rows_of(space.to_frame()) == [(1, 1), (2, 1), (2, 2), (4, 1), (4, 2)]


def test_to_frame_guard() -> None:
    with pytest.raises(SpaceError, match="limit"):
        Space({"x": range(100)}).to_frame(limit=50)
    empty = Space({"x": [1, 2], "s": ["a", "b"]}, "x > 5").to_frame()
    assert len(empty) == 0 and list(empty.columns) == ["x", "s"]


# ---------------------------------------------------------------------- sampling
def test_sample_valid_distinct_deterministic(small: Space) -> None:
    frame = small.sample(50, seed=11)
    assert len(frame) == 50 and frame.index.equals(pd.RangeIndex(50))
    assert not frame.duplicated().any() and small.contains(frame).all()
    assert frame.equals(small.sample(50, seed=11))
    assert not frame.equals(small.sample(50, seed=12))
    everything = small.sample(small.size(), seed=0)
    assert sorted(rows_of(everything)) == sorted(brute_force(SMALL_PARAMS, SMALL_RESTRICTIONS))


def test_sample_most_of_a_large_space_enumerates() -> None:
    space = Space({"x": range(300), "y": range(300)}, "x % 7 == y % 5")
    space.enumerate_limit = 100  # too large to enumerate by default, but most configurations are wanted
    frame = space.sample(space.size(), seed=2)
    assert len(frame) == space.size() and not frame.duplicated().any() and space.contains(frame).all()


def test_sample_more_than_valid_is_an_error(small: Space) -> None:
    with pytest.raises(SpaceError, match=f"only {small.size()} valid"):
        small.sample(small.size() + 1)


@pytest.mark.parametrize("rejection", [False, True])
def test_sample_is_uniform(rejection: bool) -> None:
    space = Space({"x": range(6), "y": range(6)}, "x <= y")  # 21 valid configurations
    if rejection:
        space.enumerate_limit = 0  # force drawing random Cartesian indices
    counts: dict[tuple[int, int], int] = {}
    for seed in range(400):
        for row in rows_of(space.sample(3, seed=seed)):
            counts[row] = counts.get(row, 0) + 1
    assert len(counts) == 21
    expected = 400 * 3 / 21
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 45  # 20 degrees of freedom: p < 0.002 above 45


def test_sample_from_a_trillion_points_quickly() -> None:
    space = Space({f"p{i}": list(range(1, 11)) for i in range(12)},
                  ["p0 * p1 <= 40", "p2 % p3 == 0 or p4 > 3", "max(p8, p9) - min(p10, p11) < 7"])
    assert space.cartesian_size == 10**12
    frame = space.sample(2000, seed=5)
    assert len(frame) == 2000 and not frame.duplicated().any() and space.contains(frame).all()
    assert frame.equals(space.sample(2000, seed=5))


def test_too_sparse_to_sample() -> None:
    params = {f"p{i}": list(range(10)) for i in range(12)}
    one_point = [f"p{i} == {i % 10}" for i in range(12)]
    assert Space(params, one_point).size() == 1
    with pytest.raises(SpaceError, match="only 1 valid"):
        Space(params, one_point).sample(5)
    space = Space(params, one_point)
    space.table_limit = 0        # not countable: only sampling can tell
    space.max_draws = 2_000_000
    with pytest.raises(SpaceError, match=r"acceptance .* max_draws") as info:
        space.sample(10, seed=0)
    assert "value lists" in str(info.value)


def test_sample_when_indices_overflow_int64() -> None:
    space = Space({f"p{i}": list(range(10)) for i in range(20)}, ["p0 < p1", "p2 != p3"])
    assert space.cartesian_size == 10**20
    frame = space.sample(500, seed=1)
    assert not frame.duplicated().any() and space.contains(frame).all()
    assert space.size() == 45 * 90 * 10**16


# ---------------------------------------------------------------------- checking
def test_contains(small: Space) -> None:
    frame = pd.DataFrame({"bx": [16, 16, 16, 17], "by": [1, 1, 1, 1], "tile": [1, 1, 2, 1],
                          "ratio": [0.5, 0.5, 0.5, 0.5], "shmem": [True, False, False, True],
                          "platform": ["gtx480", "gtx480", "gtx480", "gtx480"], "time": [1.0, 2.0, 3.0, 4.0]})
    assert small.contains(frame).tolist() == [True, True, False, False]
    assert small.is_valid({"bx": 64, "by": 2, "tile": 1, "ratio": 1.0, "shmem": False, "platform": "hd7970"})
    assert {"bx": 32, "by": 2, "tile": 1, "ratio": 1.0, "shmem": False, "platform": "hd7970"} not in small
    with pytest.raises(SpaceError, match="lack the parameters"):
        small.contains(frame.drop(columns=["tile"]))


# ---------------------------------------------------------------- callables
def test_callable_restrictions() -> None:
    vectorised = Space({"x": range(8), "y": range(8)}, lambda p: p["x"] * p["y"] == 6)
    assert rows_of(vectorised.to_frame()) == [(1, 6), (2, 3), (3, 2), (6, 1)]
    marked = Space({"x": range(8), "y": range(8)}, rowwise(lambda p: p["x"] * p["y"] == 6))
    assert marked.size() == 4
    with pytest.raises(SpaceError, match="cannot be saved"):
        marked.to_dict()


# ------------------------------------------------------------- serialisation
def test_to_dict_round_trip(tmp_path: Path, small: Space) -> None:
    path = tmp_path / "space.json"
    path.write_text(json.dumps(small.to_dict()))
    again = Space.from_file(path)
    assert again.tune_params == small.tune_params and rows_of(again.to_frame()) == rows_of(small.to_frame())


def test_describe(small: Space) -> None:
    text = small.describe()
    assert f"valid configurations:     {small.size():,}" in text
    assert "platform" in text and "categorical" in text and "bx * by <= 256" in text


# ------------------------------------------------------------------ space files
def test_example_space_file() -> None:
    space = Space.from_file(ROOT / "examples" / "spaces" / "convolution.yaml")
    assert space.cartesian_size == 10240 and space.size() == 4362
    assert space.parameters[0].values == tuple(range(16, 257, 16))


def test_space_file_schema(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("parameters:\n  bx: [16, 32]\n  tile: {range: [1, 8, 2]}\n  threads: {powers_of_two: [1, 8]}\n"
                    "  'on': [true, false]\n  platform: {values: [hd7970, gtx480]}\n"
                    "restrictions:\n  - bx * threads <= 64\n  - on or platform == 'gtx480'\n")
    space = Space.from_file(path)
    assert space.tune_params == {"bx": [16, 32], "tile": [1, 3, 5, 7], "threads": [1, 2, 4, 8],
                                 "on": [True, False], "platform": ["hd7970", "gtx480"]}
    assert space.size() == len(brute_force(space.tune_params, ["bx * threads <= 64", "on or platform == 'gtx480'"]))


@pytest.mark.parametrize("text, fragment, where", [
    ("parameters:\n  tile: {rnage: [1, 8]}\n", "cannot read", "parameters.tile"),
    ("parameters:\n  tile: 3\n", "cannot read", "parameters.tile"),
    ("parameters:\n  tile: [1, 2]\nrestriction: ['tile > 1']\n", "unknown keys ['restriction']", ""),
    ("parameters:\n  tile: [1, 2]\nrestrictions: ['tiles > 1']\n", "unknown name 'tiles'", "tiles > 1"),
    ("parameters:\n  tile: [1, 1]\n", "listed twice", "'tile'"),
    ("parameters:\n  tile: {range: [8, 1]}\n", "below start", "parameters.tile"),
    ("parameters: [\n", "invalid YAML", "line"),
    ("parameters:\n  bx: [16, 32]\n  tile: [1, 2]\n  bx: [64]\n", "key 'bx' is given twice (first on line 2)",
     "line 4"),
    ("restrictions: []\n", "'parameters'", ""),
    ("parameters:\n  on: [1, 2]\n", "not a string", "quote"),
])
def test_space_file_errors_name_the_file_and_key(tmp_path: Path, text: str, fragment: str, where: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises((InputError, SpaceError)) as info:
        Space.from_file(path)
    message = str(info.value)
    assert str(path) in message and fragment in message and where in message


# -------------------------------------------------------------------- datasets
def test_from_dataset() -> None:
    frame = pd.DataFrame({"x": [4, 1, 4, 2], "mode": ["b", "a", "b", "a"], "time": [1.0, 2.0, 3.0, 4.0]})
    space = Space.from_dataset(frame[["x", "mode"]])
    assert space.tune_params == {"x": [1, 2, 4], "mode": ["a", "b"]}
    assert space.size() == 3 and rows_of(space.to_frame()) == [(1, "a"), (2, "a"), (4, "b")]
    assert space.contains(frame).tolist() == [True, True, True, True]
    assert not space.is_valid({"x": 4, "mode": "a"})
    dataset = SimpleNamespace(params=["x", "mode"], frame=frame)
    assert rows_of(Space.from_dataset(dataset).sample(3, seed=0).sort_values("x")) == rows_of(space.to_frame())
    again = Space.from_dict(json.loads(json.dumps(space.to_dict())))
    assert rows_of(again.to_frame()) == rows_of(space.to_frame())


def test_from_dataset_wider_than_int64() -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.integers(0, 10, size=(300, 21)), columns=[f"p{i}" for i in range(21)])
    space = Space.from_dataset(frame)
    assert space.cartesian_size >= 2**63
    assert space.size() == len(frame.drop_duplicates())
    assert space.contains(frame).all() and len(space.sample(100, seed=0)) == 100
    assert sorted(rows_of(space.to_frame())) == sorted(set(rows_of(frame)))


# ------------------------------------------------------------ real spaces (data)
@needs_datasets
@pytest.mark.parametrize("t1, cache, size", [
    ("convolution_milo.json", "convolution/A100.json.gz", 4362),
    ("dedispersion_milo.json", "dedispersion/A100.json.gz", 11130),
])
def test_t1_spaces_equal_the_kernel_tuner_caches(t1: str, cache: str, size: int) -> None:
    space = Space.from_t1(DATASETS / "t1" / t1)
    assert space.size() == size
    assert set(rows_of(space.to_frame())) == cache_configurations(DATASETS / cache)


@needs_datasets
def test_t1_comprehension_values() -> None:
    space = Space.from_t1(DATASETS / "t1" / "test_T1_input.json")
    assert space.tune_params["filter_width"] == list(range(3, 35, 2))
    assert space.tune_params["block_size_x"] == [16 * i for i in range(1, 9)]
    assert space.tune_params["block_size_y"] == [2**i for i in range(6)]


def test_t1_errors_name_the_condition(tmp_path: Path) -> None:
    spec = {"ConfigurationSpace": {
        "TuningParameters": [{"Name": "x", "Type": "int", "Values": "[1, 2]"}],
        "Conditions": [{"Expression": "x > 0", "Parameters": ["x"]},
                       {"Expression": "x.bit_length() > 0", "Parameters": ["x"]}]}}
    path = tmp_path / "t1.json"
    path.write_text(json.dumps(spec))
    with pytest.raises(SpaceError, match=r"Conditions\[1\].*attribute access"):
        Space.from_t1(path)
    spec["ConfigurationSpace"]["TuningParameters"][0]["Values"] = "[__import__('os')]"
    path.write_text(json.dumps(spec))
    with pytest.raises(InputError, match=r"TuningParameters\[0\] \(x\)"):
        Space.from_t1(path)


@pytest.mark.parametrize("type_name, values, expected", [
    ("bool", "['true', 'False']", [True, False]),  # bool('false') is True: was "the value True is listed twice"
    ("bool", "[0, 1]", [False, True]),
    ("float", "[1, '2.5']", [1.0, 2.5]),
])
def test_t1_values_are_cast_by_their_meaning(tmp_path: Path, type_name: str, values: str, expected: list) -> None:
    path = tmp_path / "t1.json"
    path.write_text(json.dumps({"ConfigurationSpace": {
        "TuningParameters": [{"Name": "x", "Type": type_name, "Values": values}]}}))
    assert Space.from_t1(path).tune_params["x"] == expected


@pytest.mark.parametrize("type_name, values, message", [
    ("float", "['a', 'b']", "Type is float but the value 'a' is not a float"),  # was a ValueError traceback
    ("bool", "['yes']", "Type is bool but the value 'yes' is not a bool"),
    ("uint", "[-1, 2]", "Type is uint but the values [-1, 2] include negative numbers"),
])
def test_t1_values_of_the_wrong_type_are_refused(tmp_path: Path, type_name: str, values: str, message: str) -> None:
    path = tmp_path / "t1.json"
    path.write_text(json.dumps({"ConfigurationSpace": {
        "TuningParameters": [{"Name": "x", "Type": type_name, "Values": values}]}}))
    with pytest.raises(InputError, match=r"TuningParameters\[0\] \(x\)") as caught:
        Space.from_t1(path)
    assert message in caught.value.message


@pytest.mark.parametrize("values", ["[2**62 * 4]", "[2**62 * i for i in range(1, 3)]"])
def test_t1_values_beyond_int64_are_refused_not_wrapped(tmp_path: Path, values: str) -> None:
    path = tmp_path / "t1.json"  # numpy's int64 arithmetic made these 0 and -2**63, silently
    path.write_text(json.dumps({"ConfigurationSpace": {
        "TuningParameters": [{"Name": "x", "Type": "int", "Values": values}]}}))
    with pytest.raises(SpaceError, match="does not fit in 64 bits"):
        Space.from_t1(path)


def test_sample_does_not_depend_on_what_was_called_before() -> None:
    def space() -> Space:  # a restriction too wide to tabulate, over more points than are enumerated up front
        fresh = Space({"x": range(60), "y": range(60)}, "x + y < 20")
        fresh.table_limit, fresh.enumerate_limit = 10, 100
        return fresh

    expected = space().sample(150, seed=4)  # 150 of the 210 valid ones: drawn at random
    counted = space()
    assert counted.size() == 210  # `starchart space --size` counts first: the sample used to change
    pd.testing.assert_frame_equal(counted.sample(150, seed=4), expected)
    pd.testing.assert_frame_equal(counted.sample(5, seed=4), space().sample(5, seed=4))


@needs_datasets
def test_gemm_space_equals_the_cache() -> None:
    path = DATASETS / "gemm" / "RTX_3090.json.gz"
    space = Space.from_kernel_tuner(path, GEMM_RESTRICTIONS)
    assert space.cartesian_size == 82944 and space.size() == 17956
    assert set(rows_of(space.to_frame())) == cache_configurations(path)
    assert list(space.names) == ["MWG", "NWG", "KWG", "MDIMC", "NDIMC", "MDIMA", "NDIMB", "KWI", "VWM", "VWN",
                                 "STRM", "STRN", "SA", "SB", "PRECISION"]


@needs_datasets
def test_from_kernel_tuner_max_threads() -> None:
    path = DATASETS / "convolution" / "A100.json.gz"
    limited = Space.from_kernel_tuner(path, max_threads=256)
    assert limited.restrictions[-1].source == "block_size_x * block_size_y <= 256"
    assert limited.contains(limited.to_frame()).all()
    assert (limited.to_frame().eval("block_size_x * block_size_y") <= 256).all()


def test_from_kernel_tuner_without_tune_params() -> None:
    with pytest.raises(InputError, match="tune_params"):
        Space.from_kernel_tuner({"cache": {}})


def test_a_one_valued_parameter_reads_1_value():
    assert "a  numeric      1 value: 1" in Space({"a": [1], "b": [1, 2]}).describe()


@pytest.mark.parametrize("text, said", [
    ("parameters:\n  x: {range: [1, 1.0e+18, 1]}\n", "has 1,000,000,000,000,000,001 values, more than the 1,000,000"),
    ("parameters:\n  x: {range: [0, 1, 1.0e-12]}\n", "more than the 1,000,000 a parameter may have"),
    ("parameters:\n  x: {range: [.nan, 8, 1]}\n", "range start must be a finite number, got nan"),
    ("parameters:\n  x: {range: [1, .inf, 1]}\n", "range stop must be a finite number, got inf"),
    ("parameters:\n  x: {powers_of_two: [1, .inf]}\n", "powers_of_two needs two finite numbers"),
])
def test_ranges_that_are_not_finite_or_would_enumerate_for_hours_are_refused(tmp_path, text, said):
    """Before: NaN or infinite bounds gave a raw ValueError/OverflowError, and a tiny step or 1e18-wide bounds
    enumerated billions of values (a hang, then MemoryError)."""
    path = tmp_path / "space.yaml"
    path.write_text(text)
    with pytest.raises(SpaceError, match=said):
        Space.from_file(path)


def test_a_t1_value_list_of_a_billion_values_is_refused(tmp_path):
    """Before: T1 ranges of 10**9 values were enumerated (minutes), then MemoryError."""
    import json

    doc = {"ConfigurationSpace": {"Conditions": [], "TuningParameters": [
        {"Name": "x", "Type": "int", "Values": "[i for i in range(1, 10**9)]"}]}}
    path = tmp_path / "t1.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="range\\(\\) gives 999,999,999 values, more than the 1,000,000"):
        Space.from_t1(path)


# ------------------------------------------------------- long value lists (issue 42): fast, and refused past the limit
@pytest.mark.parametrize("values", [
    [64, 16, 32], [0.5, -1.0, float("inf")], [True, False], ["b", "a"], np.array([3, 1, 2]), np.array([0.5, 2.0]),
    np.array(["x", "y"]), range(5), [2**63 - 1, -(2**63)], (np.int64(1), np.int64(2)), [1, 2.5], [None, "a"],
    [True, 1], [np.float64(0.5), 1],
], ids=repr)
def test_a_value_list_of_one_type_is_read_as_the_per_value_checks_read_it(values: Any) -> None:
    """Lists of one plain type are checked at C speed (before: 17 s for ten million values, 1.5 s for a
    million); every other list goes through the per-value checks. Both must give the same parameter."""
    from starchart.space import _as_array, _check_distinct, _kind_of

    fast = Parameter.from_values("p", values)
    plain = tuple(v.item() if isinstance(v, np.generic) else v for v in values)
    kind = _kind_of("p", plain)
    _check_distinct("p", plain)
    slow = Parameter("p", plain, kind, _as_array("p", plain, kind))
    assert fast == slow and [type(v) for v in fast.values] == [type(v) for v in slow.values]
    assert fast.array.dtype == slow.array.dtype and fast.array.tolist() == slow.array.tolist()


@pytest.mark.parametrize("values, fragment", [
    ([1, 2, 1], "listed twice"), (["a", "a"], "listed twice"), ([0.0, -0.0], "listed twice"),
    ([1.0, float("nan")], "NaN"), (np.array([1.0, np.nan]), "NaN"), ([2**63, 1], "does not fit in 64 bits"),
    ([True, True], "listed twice"),
])
def test_a_value_list_of_one_type_is_refused_for_the_same_reasons(values: Any, fragment: str) -> None:
    with pytest.raises(SpaceError, match=fragment):
        Parameter.from_values("p", values)


@pytest.mark.parametrize("values", [range(10**7), list(range(1_000_001)), np.arange(1_000_001),
                                    (i for i in range(10**7))], ids=["range", "list", "array", "generator"])
def test_more_values_than_a_parameter_may_have_are_refused_before_they_are_read(values: Any) -> None:
    """Before: a list of ten million values was checked one by one for 17 s (and an Optuna study over it took
    minutes); MAX_VALUES held for ranges only."""
    with pytest.raises(SpaceError, match="more than the 1,000,000 a parameter may have") as info:
        Space({"x": values, "y": [1, 2]})
    assert info.value.where == "parameter 'x'"


def test_a_million_values_make_a_space_whose_checks_look_values_up_once() -> None:
    space = Space({"x": list(range(1_000_000)), "mode": ["a", "b"]}, "x % 2 == 0 or mode == 'a'")
    parameter = space.parameters[0]
    assert parameter.kind == "numeric" and len(parameter) == 1_000_000 and parameter.array.dtype == np.int64
    assert parameter.index is parameter.index  # made once, not per contains() call
    assert space.contains([{"x": 3, "mode": "a"}, {"x": 3, "mode": "b"}, {"x": 10**6, "mode": "a"}]).tolist() == \
        [True, False, False]
    import pickle

    copy = pickle.loads(pickle.dumps(parameter))
    assert "index" not in copy.__dict__ and copy == parameter and copy.index.equals(parameter.index)


def test_a_leaf_of_a_tree_narrows_a_space_to_sample_more_inside_it():
    """Iterative sampling (TACO's loop, paper §VIII): a leaf as restrictions, and the space inside it."""
    from starchart import StarchartTree, datasets

    kmeans = datasets.load_kmeans()
    tree = StarchartTree().fit(kmeans.X, kmeans.y("runtime"))
    best = tree.best_leaf()
    measured = Space.from_dataset(kmeans).within(best)  # the measured designs inside the leaf
    assert measured.size() == int(best.contains(kmeans.X).sum()) == best.n_samples
    full = Space({p: sorted(kmeans.frame[p].unique().tolist()) for p in kmeans.params})
    inside = full.within(best)
    drawn = inside.sample(50, seed=0)
    assert best.contains(drawn).all() and 50 <= inside.size() < full.size()
    assert inside.size() == int(best.contains(full.to_frame()).sum())  # exactly the leaf's part of the space
    assert full.restricted("tpp > 27").size() == int((full.to_frame()["tpp"] > 27).sum())


def test_narrowing_keeps_what_the_space_was_and_refuses_what_is_no_region():
    import warnings

    from starchart import StarchartTree
    from starchart.constraints import rowwise

    # a column mixing numbers and text is fitted as text: the leaf's values are matched to the space's own
    space = Space({"mode": [1, "a", "b"], "t": [1, 2, 4, 8]})
    X = space.to_frame()
    tree = StarchartTree(min_samples_split=2).fit(X, [1.0 if (m == 1 and t == 1) else 5.0 + t
                                                      for m, t in zip(X["mode"], X["t"])])
    best = tree.best_leaf()
    assert space.within(best).size() == int(best.contains(X).sum()) == 1
    # a row-wise restriction stays row-wise (rebuilt from its function, it was probed on columns and warned)
    rows = Space({"x": [1, 2, 3], "y": [1, 2]}, rowwise(lambda c: c["x"] != 3 and c["y"] != 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rows.restricted("x > 1").size() == 1
    with pytest.raises(SpaceError, match="a restriction must be a string or a callable"):
        rows.restricted(5)
    with pytest.raises(InputError, match="a region is a leaf of a tree") as caught:
        rows.within("x > 1")
    assert caught.value.param == "region"


# ------------------------------------------------- malformed input (issue 42): every one a clear error
def _t1_file(tmp_path: Path, *parameters: dict[str, Any]) -> Path:
    path = tmp_path / "t1.json"
    path.write_text(json.dumps({"ConfigurationSpace": {"TuningParameters": list(parameters)}}))
    return path


def test_a_t1_parameter_given_twice_is_refused_naming_both(tmp_path: Path) -> None:
    """Before: the second "bx" silently replaced the first (a dict keeps the last)."""
    path = _t1_file(tmp_path, {"Name": "bx", "Type": "int", "Values": "[1, 2]"},
                    {"Name": "tile", "Type": "int", "Values": "[1]"},
                    {"Name": "bx", "Type": "int", "Values": "[4, 8]"})
    with pytest.raises(InputError, match=r"given twice \(first in TuningParameters\[0\]\)") as caught:
        Space.from_t1(path)
    assert str(path) in str(caught.value) and "TuningParameters[2] (bx)" in str(caught.value)


@pytest.mark.parametrize("type_name", [["int"], 5, {"int": 1}, None], ids=["list", "number", "mapping", "null"])
def test_a_t1_type_that_is_no_type_name_is_refused(tmp_path: Path, type_name: Any) -> None:
    """Before: a list or mapping as Type was looked up among the type names: TypeError (unhashable)."""
    path = _t1_file(tmp_path, {"Name": "bx", "Type": type_name, "Values": "[1, 2]"})
    with pytest.raises(InputError, match="'Type' must be a type name") as caught:
        Space.from_t1(path)
    assert str(path) in str(caught.value) and "(bx)" in str(caught.value)


@pytest.mark.parametrize("type_name, values, first", [
    ("int", "[2**i for i in range(2000)]", "position 1024"),
    ("float", "[2.0**i for i in range(1020, 1030)]", "position 4"),
    ("float", "[1e999, 2]", "position 0"),
    ("float", "['inf']", "position 0"),
], ids=["int-overflows-float", "float-comprehension", "float-literal", "inf-string"])
def test_t1_values_beyond_the_float_range_are_one_short_error(tmp_path: Path, type_name: str, values: str,
                                                              first: str) -> None:
    """Before: "Type is int but the values [1.0, 2.0, …, inf, inf, …]" listed 2,000 values (it read as a crash),
    and a float parameter took inf as a value."""
    path = _t1_file(tmp_path, {"Name": "bx", "Type": type_name, "Values": values})
    with pytest.raises(InputError, match="not finite numbers") as caught:
        Space.from_t1(path)
    text = str(caught.value)
    assert "(bx)" in text and first in text and "float range" in text and len(text) < 400


def test_t1_errors_quote_long_value_lists_shortened(tmp_path: Path) -> None:
    path = _t1_file(tmp_path, {"Name": "bx", "Type": "int", "Values": str([i + 0.5 for i in range(1000)])})
    with pytest.raises(InputError, match=r"are not all integers \(0\.5 is not\)") as caught:
        Space.from_t1(path)
    assert len(str(caught.value)) < 400


@pytest.mark.parametrize("values", ["list(range(2**70, 2**70 + 2))", [10**400]], ids=["range-of-big-ints", "raw-big-int"])
def test_t1_integers_beyond_64_bits_are_refused_not_crashed_on(tmp_path: Path, values: Any) -> None:
    """Before: numpy took 2**70 as a C long (OverflowError), and float() of a 400-digit JSON integer overflowed."""
    path = _t1_file(tmp_path, {"Name": "x", "Type": "int", "Values": values})
    with pytest.raises(SpaceError, match="does not fit in 64 bits"):
        Space.from_t1(path)


@pytest.mark.parametrize("allowed, shown", [
    ("[[[1], 1]]", "bx=[1] is a list"), ("[[{a: 1}, 2]]", "bx={'a': 1} is a dict"), ("[[1, [2]]]", "by=[2] is a list"),
], ids=["nested-list", "mapping", "second-column"])
def test_allowed_rows_holding_lists_are_refused_naming_the_row_and_parameter(tmp_path: Path, allowed: str,
                                                                             shown: str) -> None:
    """Before: the row's list was looked up among the values: TypeError: unhashable type: 'list'."""
    path = tmp_path / "space.yaml"
    path.write_text(f"parameters: {{bx: [1, 2], by: [1, 2]}}\nallowed: {allowed}\n")
    with pytest.raises(SpaceError, match="not a value") as caught:
        Space.from_file(path)
    assert f"{path}, allowed, row 0" in str(caught.value) and shown in str(caught.value)


def test_unhashable_values_are_in_no_space_and_no_dataset() -> None:
    space = Space({"x": [1, 2]})
    assert space.contains([{"x": [1]}, {"x": {1: 2}}, {"x": 2}]).tolist() == [False, False, True]
    assert not space.is_valid({"x": [1]})
    with pytest.raises(SpaceError, match="holds lists or mappings"):  # a tuple holding a list cannot be hashed
        Space.from_dataset(pd.DataFrame({"x": [(1, [2]), 3]}))


@pytest.mark.parametrize("kwargs, name", [
    ({"n": 0}, "n"), ({"n": -1}, "n"), ({"seed": "x"}, "seed"), ({"seed": -1}, "seed"), ({"confidence": 1.5}, "confidence"),
], ids=["n-zero", "n-negative", "seed-text", "seed-negative", "confidence"])
def test_size_estimate_checks_its_arguments_also_when_the_count_is_exact(kwargs: dict[str, Any], name: str) -> None:
    """Before: a space small enough to count exactly ignored n, seed and confidence, whatever they were."""
    with pytest.raises((InputError, SpaceError)) as caught:
        Space({"x": range(10)}).size_estimate(**kwargs)
    assert caught.value.param == name


def test_enumerate_and_to_frame_check_their_arguments_when_called() -> None:
    space = Space({"x": range(10)})
    with pytest.raises(SpaceError, match="chunk_size"):  # not only at the first next() of a generator
        space.enumerate(chunk_size=0)
    with pytest.raises(SpaceError, match="limit"):  # was TypeError: '>' between int and str
        space.to_frame(limit="x")
    assert space.size_estimate(seed=np.random.default_rng(0)).exact
