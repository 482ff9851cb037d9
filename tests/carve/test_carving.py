"""Threshold and tradeoff carving: Pareto selection, distance to the front, predicates, measuring survivors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from shared_data import dataset_path
from typer.testing import CliRunner

from starchart.carve import static
from starchart.carve.carving import (
    CarveResult,
    carve,
    carve_counters,
    front_distance,
    measure_survivors,
    pareto_front,
)
from starchart.carve.metrics import resolve
from starchart.carve.resources import ResourceCompiler
from starchart.cli import app
from starchart.errors import InputError, SpaceError
from starchart.space import Space


def brute_front(points: np.ndarray, strict: bool) -> np.ndarray:
    keep = []
    for p in points:
        if strict:
            beaten = any((q >= p).all() and (q > p).any() for q in points)
        else:
            beaten = any((q > p).all() for q in points)
        keep.append(not beaten)
    return np.array(keep)


def brute_distance(points: np.ndarray) -> np.ndarray:
    lo, hi = points.min(axis=0), points.max(axis=0)
    s = (points - lo) / np.where(hi > lo, hi - lo, 1.0)
    return np.array([max(0.0, max(min(q - p) for q in s)) for p in s])


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_pareto_front_matches_brute_force(k, strict, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    # half the cases on a coarse integer grid: many ties and exact duplicates
    points = rng.integers(0, 6, size=(n, k)).astype(float) if seed % 2 else rng.random((n, k))
    assert pareto_front(points, strict=strict).tolist() == brute_front(points, strict).tolist()


def test_ties_and_duplicates():
    pts = np.array([[2, 2], [2, 2], [2, 1], [1, 2], [1, 1], [3, 0]], dtype=float)
    # paper's rule: only rows beaten in every metric go; (2, 1) and (1, 2) are only tied-and-beaten
    assert pareto_front(pts).tolist() == [True, True, True, True, False, True]
    # usual Pareto front: duplicates of a front point both stay, weakly beaten ones go
    assert pareto_front(pts, strict=True).tolist() == [True, True, False, False, False, True]
    assert pareto_front(np.zeros((0, 2))).tolist() == []
    assert pareto_front([[1, 1]]).tolist() == [True]


@pytest.mark.parametrize("seed", range(5))
def test_front_distance_matches_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 150))
    points = rng.integers(0, 8, size=(n, 2)).astype(float) if seed % 2 else rng.random((n, 2)) * [1e-9, 5e3]
    assert front_distance(points) == pytest.approx(brute_distance(points), abs=1e-12)
    pts3 = rng.random((n, 3))
    assert front_distance(pts3) == pytest.approx(brute_distance(pts3), abs=1e-12)


def test_distance_is_zero_exactly_on_the_papers_front():
    rng = np.random.default_rng(7)
    points = rng.integers(0, 5, size=(80, 2)).astype(float)
    assert ((front_distance(points) == 0) == pareto_front(points)).all()


def frame(n=200, seed=3):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"bx": rng.choice([8, 16, 32, 64], n), "tile": rng.integers(1, 5, n),
                       "efficiency": rng.random(n), "utilization": rng.random(n) * 100})
    df["time"] = 1 / (df["efficiency"] + 0.01 * df["utilization"]) + rng.random(n) * 0.1
    return df


def test_within_grows_the_kept_set_monotonically():
    df = frame()
    sizes = []
    previous = None
    for within in [0.0, 0.01, 0.05, 0.2, 1.0]:
        kept = set(carve(df, within=within).kept.index)
        if previous is not None:
            assert previous <= kept
        previous = kept
        sizes.append(len(kept))
    assert sizes[0] < sizes[2] < sizes[-1] == len(df)
    # within d keeps exactly the front plus the rows at distance ≤ d
    result = carve(df, within=0.05)
    assert set(result.kept.index) == set(df.index[result.frame["on_front"] | (result.frame["front_distance"] <= 0.05)])


def test_predicates_then_front():
    df = frame()
    result = carve(df, predicates=["bx >= 16", "tile != 3"], params=["bx", "tile"])
    f = result.frame
    assert (f.loc[df["bx"] < 16, "carved_by"] == "bx >= 16").all()
    assert (f.loc[(df["bx"] >= 16) & (df["tile"] == 3), "carved_by"] == "tile != 3").all()
    alive = df[(df["bx"] >= 16) & (df["tile"] != 3)]
    expected = alive.index[brute_front(alive[["efficiency", "utilization"]].to_numpy(), strict=False)]
    assert sorted(result.kept.index) == sorted(expected)
    assert sum(result.dropped_by.values()) + len(result.kept) == len(df)
    assert result.removed_share == pytest.approx(1 - len(expected) / len(df))
    configs = result.configs()
    assert configs[0].keys() == {"bx", "tile"} and all(c["bx"] >= 16 for c in configs)
    # the JSON description round-trips
    assert json.loads(json.dumps(result.to_dict()))["kept_count"] == len(expected)


def test_metric_expressions_and_minimised_metrics():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "bw": [300.0, 200.0, 100.0]})
    # maximise a, minimise bw: the third row beats the others in both
    assert carve(df, metrics=("a", "-bw")).kept.index.tolist() == [2]
    assert carve(df, metrics=("a", "bw")).kept.index.tolist() == [0, 1, 2]


def test_unsatisfiable_predicate_is_skipped_and_reported():
    df = frame(30)
    result = carve(df, predicates=["bx > 1000", "bx >= 32"])
    assert result.skipped == ("bx > 1000",)
    assert "bx > 1000" not in result.dropped_by
    assert "skipped" in result.summary()
    assert (result.kept["bx"] >= 32).all()


def test_missing_metrics_and_nan_predicates():
    df = pd.DataFrame({"bx": [32, 64, 128, 256], "ok": [1.0, np.nan, 1.0, 1.0],
                       "efficiency": [1.0, 2.0, np.nan, 0.5], "utilization": [1.0, 1.0, 1.0, 0.5]})
    result = carve(df, predicates="ok == 1")
    assert result.frame["carved_by"].tolist() == ["", "ok == 1", "missing metrics", "dominated"]
    assert result.dropped_by == {"ok == 1": 1, "missing metrics": 1, "dominated": 1}
    assert np.isnan(result.frame["front_distance"].iloc[1])


@pytest.mark.parametrize("predicate, message", [
    ("BLOCK_SIZE >= 32", "unknown column 'BLOCK_SIZE'"),
    ("bx + 1", "not true/false"),
    ("1 == 1", "does not depend on any column"),
    ("bx >=", "cannot be evaluated"),
    ("", "non-empty"),
])
def test_bad_predicates_are_clear_input_errors(predicate, message):
    with pytest.raises(InputError, match=message) as err:
        carve(frame(10), predicates=[predicate])
    if "unknown" in message:
        assert "bx" in str(err.value) and "efficiency" in str(err.value)  # names the columns to use


def test_bad_options_are_clear_input_errors():
    df = frame(10)
    with pytest.raises(InputError, match="unknown column 'speed'"):
        carve(df, metrics=("efficiency", "speed"))
    with pytest.raises(InputError, match="two or more metrics"):
        carve(df, metrics=("efficiency",))
    with pytest.raises(InputError, match="within"):
        carve(df, within=-0.1)
    with pytest.raises(InputError, match="no rows"):
        carve(df.iloc[:0])
    with pytest.raises(InputError, match="DataFrame or a Dataset"):
        carve([1, 2, 3])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="parameter columns are unknown"):
        carve(df).configs()


def test_best_kept_against_best_overall():
    df = pd.DataFrame({"efficiency": [1.0, 2.0, 0.5, 3.0], "utilization": [3.0, 2.0, 1.0, 0.1],
                       "time": [4.0, 2.0, 1.0, np.nan]})
    best = carve(df).best("time")
    assert (best["best_overall"], best["best_kept"], best["relative"]) == (1.0, 2.0, 0.5)
    assert carve(df).best("time", minimize=False)["relative"] == 1.0


def test_carving_a_dataset_and_measuring_the_survivors(tmp_path):
    from starchart.dataset import Dataset
    from starchart.measure import PythonEvaluator

    df = frame(60)
    df = df.drop_duplicates(["bx", "tile"]).reset_index(drop=True)
    df["status"] = "ok"
    ds = Dataset.from_frame(df, params=["bx", "tile"], metrics=["efficiency", "utilization", "time"])
    result = carve(ds, within=0.02)
    assert isinstance(result, CarveResult) and result.params == ["bx", "tile"]
    seen = []

    def evaluate(config):
        seen.append((config["bx"], config["tile"]))
        return float(config["bx"] * config["tile"])

    measured = measure_survivors(result, PythonEvaluator(evaluate), store=tmp_path / "carved.db", progress=False)
    kept = set(zip(result.kept["bx"], result.kept["tile"]))
    assert set(seen) == kept and len(seen) == len(kept)  # only the survivors, each once
    assert set(zip(measured.frame["bx"], measured.frame["tile"])) == kept
    # resuming measures nothing again
    again = measure_survivors(result, PythonEvaluator(evaluate), store=tmp_path / "carved.db", progress=False)
    assert len(seen) == len(kept) and len(again) == len(kept)


def test_carving_the_ktt_convolution_space():
    """The paper's recipe on real counters (docs/carving.py reports the details)."""
    from shared_data import dataset_path

    import starchart
    from starchart.carve.carving import carve_counters

    ds = starchart.load(dataset_path("ktt/KTConvolutionOutput_2080Ti.json.gz"))
    result = carve_counters(ds, "7.5", threads_per_block="BLOCK_SIZE_X * BLOCK_SIZE_Y",
                            threads="-(-IMAGE_WIDTH // (BLOCK_SIZE_X * TILE_SIZE_X)) * BLOCK_SIZE_X"
                                    " * -(-IMAGE_HEIGHT // (BLOCK_SIZE_Y * TILE_SIZE_Y)) * BLOCK_SIZE_Y",
                            predicates=["BLOCK_SIZE_X >= 32"])
    failed = ds.frame["status"] != "ok"
    # configurations that never ran have no counters or resource data: carving cannot judge them
    assert (result.frame.loc[failed, "carved_by"].isin(["BLOCK_SIZE_X >= 32", "missing metrics"])).all()
    ran = result.frame[~failed]
    kept_share = (ran["carved_by"] == "").mean()
    best = result.best("time")
    assert kept_share < 0.05 and best["relative"] > 0.9
    out = json.loads(json.dumps(result.to_dict(objective="time")))
    assert out["kept_count"] == len(out["kept"]) == len(result.kept)
    assert set(out["kept"][0]) == set(ds.params)
    assert out["best"]["best_overall_config"]["BLOCK_SIZE_X"] == ds.frame.loc[ds.frame["time"].idxmin(), "BLOCK_SIZE_X"]


def test_carving_data_without_counters_says_what_is_missing():
    """Measurements with no counters or resource usage (a Kernel Tuner cache) cannot be carved: say why."""
    frame = pd.DataFrame({"bx": [32, 64, 128], "time": [1.0, 0.8, 0.9]})
    with pytest.raises(InputError, match="no profiler counters or compiler resource usage") as err:
        carve_counters(frame, "8.0", threads_per_block="bx", threads=2**16)
    assert "smsp__inst_executed.sum" in err.value.message and "KERNEL.cu" in err.value.hint
    # given blocks per SM, registers and shared memory are not needed; given counter columns are used
    frame = frame.assign(w=[4e6, 3e6, 5e6], ld=[1e5, 1e5, 1e5])
    result = carve_counters(frame, "8.0", threads_per_block="bx", threads=2**16, warp_instructions="w",
                            global_loads="ld", blocks_on_sm=[8, 8, 8], params=["bx"])
    assert result.configs()


def test_failed_configurations_are_reported_apart_not_as_removed():
    """Rows without metrics (failed runs) are not configurations carving removed: 1 of 2 judged kept is 50 %."""
    df = pd.DataFrame({"bx": [16, 32, 64, 128], "efficiency": [np.nan, 1.0, 2.0, np.nan],
                       "utilization": [np.nan, 1.0, 2.0, np.nan]})
    result = carve(df, predicates="bx >= 32", params=["bx"])
    # Before: the failed bx=16 row was charged to the predicate and the share was 1 - 1/4 = 75 %.
    assert result.frame["carved_by"].tolist() == ["missing metrics", "dominated", "", "missing metrics"]
    assert result.failed == 2 and result.removed_share == pytest.approx(0.5)
    assert result.dropped_by == {"missing metrics": 2, "dominated": 1}
    summary = result.summary()
    assert summary.startswith("carving kept 1 of 4 configurations (50.0 % of the 2 with metrics removed; 2 failed)")
    assert "missing metrics (failed, not counted as removed): 2" in summary
    assert result.to_dict()["failed"] == 2 and result.to_dict()["total"] == 4
    # Before: "carving kept 0 of 4 configurations", exit status 0; now an error saying why.
    with pytest.raises(InputError, match=r"no configuration has finite efficiency and utilization: e\.g\. row 0: "
                                         r"more than 1024 threads per block"):
        carve(df.assign(efficiency=np.nan, limiter="more than 1024 threads per block"))


def test_configurations_that_do_not_compile_stay_in_the_result():
    """carve_source's non-compiling configurations were dropped silently (a 12-configuration space was
    reported as 8); they are now rows marked "does not compile", with the compiler's message."""
    from starchart.carve.static import _with_failures

    ok = pd.DataFrame({"T": [8, 16], "efficiency": [1.0, 2.0], "utilization": [2.0, 1.0],
                       "status": ["ok", "ok"], "reason": ["", ""]}, index=[0, 2])
    failed = pd.DataFrame({"T": [128], "status": ["compile"], "reason": ["ptxas error: too much shared data"]},
                          index=[1])
    result = _with_failures(carve(ok, params=["T"]), failed)
    assert result.frame.index.tolist() == [0, 1, 2]
    assert result.frame["carved_by"].tolist() == ["", "does not compile", ""]
    assert result.failed == 1 and result.removed_share == 0.0 and len(result.metric_values) == 3
    assert "do not compile (failed, not counted as removed): 1; first error: ptxas error: too much shared data" in \
        result.summary()
    assert result.configs() == [{"T": 8}, {"T": 16}]
    from starchart.report.carve_figures import plot_carving

    assert "1 failed, not shown" in plot_carving(result).axes[0].get_title(loc="left")


# --- predicates are compiled with the restriction whitelist, never eval-ed ----------------------------------

@pytest.mark.parametrize("predicate", [
    "bx.to_csv({path!r}) == 0",                                 # pandas method on a column: wrote a file
    "__import__('pathlib').Path({path!r}).write_text('x') == 0",
    "(lambda: open({path!r}, 'w'))() == 0",
    "[open({path!r}, 'w') for _ in [1]] == 0",
    "bx == @bx",
])
def test_a_predicate_outside_the_whitelist_is_refused_not_run(tmp_path, predicate):
    """Before: predicates went to DataFrame.eval(engine="python"), which wrote the file."""
    path = tmp_path / "pwned"
    predicate = predicate.format(path=str(path))
    with pytest.raises(InputError, match="predicate") as err:
        carve(frame(10), predicates=[predicate])
    assert not path.exists()
    assert err.value.where == "predicate" and predicate in str(err.value)


def test_a_predicate_outside_the_whitelist_says_what_is_allowed():
    with pytest.raises(InputError, match=r"is not allowed: calling attribute access is not allowed") as err:
        carve(frame(10), predicates=["bx.sum() > 0"])
    assert "min, max, abs, int, float, round" in err.value.hint
    with pytest.raises(InputError, match=r"the function 'eval' is not allowed"):
        carve(frame(10), predicates=["eval('1') == 1"])
    # launch expressions and metric expressions go through the same compiler
    with pytest.raises(InputError, match=r"threads per block 'bx.to_csv\(\)' is not allowed"):
        resolve(frame(10), "bx.to_csv()", "threads per block")
    assert resolve(frame(3), "bx * 2 + `tile`", "threads per block").tolist() == \
        (frame(3)["bx"] * 2 + frame(3)["tile"]).astype(float).tolist()


def test_predicates_keep_their_pandas_meaning():
    df = pd.DataFrame({"bx": [16, 32, 64, 128], "ty": [1, 2, 0, 4], "kind": ["a", "b", "a", "c"],
                       "a.b": [1.0, 2.0, 3.0, np.nan], "efficiency": [1.0, 2.0, 3.0, 4.0],
                       "utilization": [4.0, 3.0, 2.0, 1.0]})
    kept = {
        "bx >= 32 & ty > 1": [32, 128],                    # & and | bind like and/or, as in pandas
        "bx < 32 | ty == 4": [16, 128],
        "~(bx > 32)": [16, 32],
        "not bx > 32 and kind == 'a'": [16],
        "kind in ['a', 'c']": [16, 64, 128],
        "`a.b` >= 2": [32, 64],                             # NaN compares false
        "bx / ty > 10": [16, 32, 128],                      # 64 / 0 has no value: not kept
        "max(bx, 40) // ty >= 32 and abs(-bx) == bx": [16, 128],
    }
    for predicate, expected in kept.items():
        result = carve(df, predicates=[predicate], within=10.0)
        assert sorted(result.kept["bx"]) == expected, predicate


# ---------------------------------------------------------------------- review rounds (test_carve_space_user_edges)
# Optimization carving and tuning spaces used the way a GPU performance engineer uses them: odd but
# legitimate inputs, and the errors a wrong one must get (naming the file, option or parameter).


runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


class _FakeCompiler:
    """Stands in for :class:`ResourceCompiler` (no CUDA toolchain needed): every configuration compiles,
    with the options it would be compiled with recorded."""

    seen_options: tuple[str, ...] = ()

    def __init__(self, source, kernel, cc, *, jobs=1, options=()):
        _FakeCompiler.seen_options = tuple(options)
        self.name = str(source)

    def frame(self, configs, *, params, trip_counts, constants, progress=False):
        return configs.assign(registers=32, shared_bytes=0, instructions=100.0 * configs[params[0]],
                              regions=10.0, status="ok", reason="")


@pytest.fixture
def fake_compiler(monkeypatch):
    monkeypatch.setattr(static, "ResourceCompiler", _FakeCompiler)
    return _FakeCompiler


def test_a_constant_that_is_also_a_parameter_is_refused(fake_compiler):
    """Before: -D TILE=8 with TILE in the space compiled every configuration with TILE=8 (the later -D wins)
    while the metrics used each configuration's TILE: silently wrong resources, no error."""
    space = Space({"TILE": [8, 16, 32]})
    with pytest.raises(InputError, match="'TILE' are also parameters of the space") as info:
        static.carve_source("k.cu", "k", space, "8.0", threads_per_block="TILE", threads=1024,
                            constants={"TILE": 8, "N": 1024})
    assert info.value.where == "constants"


def test_the_launch_expressions_may_use_the_constants(fake_compiler):
    """Before: --threads 'N * N // WPT' with -D N=1024 (carve_source's own docstring example) failed with
    "unknown column 'N'"; the constants are now visible to the launch expressions (and not left as columns)."""
    space = Space({"TILE": [8, 16], "WPT": [1, 2]})
    result = static.carve_source("k.cu", "k", space, "8.0", threads_per_block="TILE * TILE // WPT",
                                 threads="N * N // WPT", constants={"N": 64})
    frame = result.frame.sort_values(["TILE", "WPT"])
    assert frame["threads"].tolist() == [64 * 64, 64 * 64 // 2, 64 * 64, 64 * 64 // 2]
    assert "N" not in result.frame.columns
    assert "-DN=64" in fake_compiler.seen_options


def test_a_space_whose_restrictions_exclude_everything_is_named(fake_compiler):
    """Before: a traceback (KeyError: 'registers') from deep in the resource table."""
    space = Space({"BX": [32, 64]}, ["BX > 100"])
    with pytest.raises(InputError, match="no valid configuration") as info:
        static.carve_source("k.cu", "k", space, "8.0", threads_per_block="BX", threads="BX")
    assert info.value.where == "space"


def test_cli_carve_names_the_space_file_and_the_options(tmp_path, fake_compiler):
    source = tmp_path / "k.cu"
    source.write_text('extern "C" __global__ void k(float *a) { a[threadIdx.x] = BX; }\n')
    empty = tmp_path / "empty.yaml"
    empty.write_text("parameters:\n  BX: [32, 64]\nrestrictions:\n  - BX > 100\n")
    base = ("carve", source, "--kernel", "k", "--cc", "8.0", "--threads-per-block", "BX", "--threads", "BX")
    result = invoke(*base, "--space", empty)
    assert result.exit_code == 2, result.output
    assert f"error: {empty}: the space has no valid configuration" in result.output
    space = tmp_path / "space.yaml"
    space.write_text("parameters:\n  BX: [32, 64]\n")
    result = invoke(*base, "--space", space, "-D", "BX=64")
    assert result.exit_code == 2 and "error: -D: the constant(s) 'BX'" in result.output, result.output
    result = invoke(*base[:4], "--cc", "12.5", *base[6:], "--space", space)
    assert result.exit_code == 2 and "error: --cc: unknown compute capability '12.5'" in result.output


def test_an_assignment_as_a_predicate_is_an_error_not_a_traceback():
    """Before: -p 'BX = 64' (= for ==) crashed with "Cannot construct a Series from a DataFrame"."""
    df = pd.DataFrame({"BX": [32, 64], "efficiency": [1.0, 2.0], "utilization": [2.0, 1.0]})
    with pytest.raises(InputError, match="is an assignment") as info:
        carve(df, predicates=["BX = 64"])
    assert "write == to compare" in info.value.hint and info.value.where == "predicate"


def test_cli_carve_assignment_predicate_and_infinite_within_on_ktt_data():
    data = dataset_path("ktt/KTConvolutionOutput_2080Ti.json.gz")
    result = invoke("carve", data, "--cc", "7.5", "-p", "BLOCK_SIZE_X = 32")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "error: --predicate: predicate 'BLOCK_SIZE_X = 32' is an assignment" in result.output
    result = invoke("carve", data, "--cc", "7.5", "--within", "inf")
    assert result.exit_code == 2, result.output
    assert "error: --within: must be a number ≥ 0, got inf" in result.output


def test_cli_carve_predicate_that_calls_pandas_is_refused_not_run(tmp_path):
    """Before: --predicate went to DataFrame.eval(engine="python"): this one wrote the file."""
    path = tmp_path / "x.csv"
    data = dataset_path("ktt/KTConvolutionOutput_2080Ti.json.gz")
    result = invoke("carve", data, "--cc", "7.5", "-p", f"BLOCK_SIZE_X.to_csv('{path}') == 0")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "error: --predicate: predicate" in result.output and "is not allowed" in result.output
    assert not path.exists()


def test_an_empty_configuration_table_gives_an_empty_resource_table():
    """Before: ResourceCompiler.frame of no configurations raised KeyError: 'registers'."""
    compiler = ResourceCompiler('extern "C" __global__ void k(float *a) { a[0] = N; }', "k", "8.0",
                                cache_dir=False)
    out = compiler.frame(pd.DataFrame({"N": []}))
    assert out.empty and {"registers", "shared_bytes", "status", "reason"} <= set(out.columns)


def test_a_restriction_failing_on_the_values_names_the_file(tmp_path):
    """Before: the error came later (from whatever first counted the space), without the file, and with a hint
    about Python callables for a restriction string."""
    path = tmp_path / "space.yaml"
    path.write_text("parameters:\n  x: [1, 2]\n  s: [a, b]\nrestrictions:\n  - s + 1 > 0\n")
    with pytest.raises(SpaceError) as info:
        Space.from_file(path)
    assert str(path) in info.value.where and "s + 1 > 0" in info.value.where
    assert "string parameter in arithmetic" in info.value.hint and "callable" not in info.value.hint
    result = invoke("space", path)
    assert result.exit_code == 2 and f"error: {path}, restriction 's + 1 > 0'" in result.output, result.output


def test_a_bad_restriction_on_a_kernel_tuner_cache_names_the_file():
    """Before: "error: Kernel Tuner cache, restriction ..." without the file's name."""
    cache = dataset_path("gemm/RTX_3090.json.gz")
    result = invoke("space", cache, "-r", "KWG % nonexistent == 0")
    assert result.exit_code == 2, result.output
    assert f"error: {cache}, restriction 'KWG % nonexistent == 0': unknown name 'nonexistent'" in result.output


def test_a_tiny_valid_share_of_a_huge_space_is_not_shown_as_zero(tmp_path):
    """Before: 532,005,871 valid of 11e12 Cartesian configurations showed "(0.0%)"."""
    path = tmp_path / "huge.yaml"
    path.write_text("parameters:\n  a: {range: [1, 1000]}\n  b: {range: [1, 1000]}\n  c: {range: [1, 1000]}\n"
                    "  d: {range: [1, 1000]}\n  e: {powers_of_two: [1, 1024]}\n"
                    "restrictions:\n  - a * b <= 1000\n  - c % d == 0\n  - a + e > 3\n")
    space = Space.from_file(path)
    powers = [2**k for k in range(11)]
    brute = (sum(1000 // d for d in range(1, 1001))
             * sum((1000 // a) * sum(1 for e in powers if a + e > 3) for a in range(1, 1001)))
    assert space.size() == brute == 532_005_871
    assert "valid configurations:     532,005,871 (0.0048%)" in space.describe()
    assert "(>99.9%)" in Space({"x": range(10_000)}, "x != 5").describe()


def test_a_space_too_big_to_compile_says_so_in_the_command_line_s_words(fake_compiler):
    """Before: "over the limit of 10,000,000 for to_frame() (hint: iterate with enumerate(chunk_size=...)": the
    Python API's advice, to someone who typed `starchart carve`."""
    space = Space({"a": range(5000), "b": range(5000)})
    with pytest.raises(InputError, match=r"25,000,000 \(exact\) valid configurations, too many to compile") as info:
        static.carve_source("k.cu", "k", space, "8.0", threads_per_block="a + 1", threads=1024)
    assert info.value.where == "space" and "to_frame" not in str(info.value)


def test_loops_without_a_trip_count_are_not_counted_once_silently(monkeypatch):
    """Before: a loop over a runtime bound (no `// trips:` comment) counted as one trip, with no word to the
    user; the metrics then compare configurations on that guess."""
    class Unannotated(_FakeCompiler):
        def frame(self, configs, **kwargs):
            return super().frame(configs, **kwargs).assign(unannotated_loops="loop0")

    monkeypatch.setattr(static, "ResourceCompiler", Unannotated)
    with pytest.warns(UserWarning, match=r"2 of 2 configurations have loops whose trip count .* \(loop0 in the "
                                         r"first\).*'// trips: EXPR'"):
        static.carve_source("k.cu", "k", Space({"BX": [32, 64]}), "8.0", threads_per_block="BX", threads=4096)


def test_the_chance_a_random_sample_holds_the_optimum_counts_ties():
    """Before: always carved_size / N, which ignores optima tied in value (integer cycle counts tie often):
    with 2 of 6 configurations at the best, 2 random draws hold one with probability 9/15, not 2/6."""
    from itertools import combinations

    from starchart.carve.sampling import random_sampling_table

    cycles = [100, 100, 120, 130, 130, 150]
    subsets = list(combinations(cycles, 2))
    brute = sum(min(s) == 100 for s in subsets) / len(subsets)
    assert random_sampling_table(cycles, 2)["random_p_best"] == pytest.approx(brute) == pytest.approx(9 / 15)
    assert random_sampling_table([1.0, 2.0, 3.0, 4.0], 2)["random_p_best"] == pytest.approx(0.5)


# The shape of sm_120 SASS (nvdisasm -g of examples/carve/matmul.cu, ptxas 12.9): the inner loop branches on
# a uniform predicate given as an operand, and its branch carries the body's line while the `for` line (50)
# is on the instruction that sets the predicate.
BLACKWELL_SASS = """
.text.k:
        /*0000*/                   S2R R0, SR_TID.X ;
.L_x_1:
\t//## File "k.cu", line 43
        /*0010*/                   LDG.E R2, [R4.64] ;
        /*0020*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
.L_x_0:
\t//## File "k.cu", line 50
        /*0030*/                   UIADD3 UR4, UPT, UPT, UR4, 0x4, URZ ;
        /*0040*/                   UISETP.NE.AND UP0, UPT, UR4, 0x10, UPT ;
\t//## File "k.cu", line 52
        /*0050*/                   LDS R26, [R30+-0x80] ;
        /*0060*/                   FFMA R4, R26, R4, R17 ;
        /*0070*/                   BRA.U UP0, `(.L_x_0) ;
\t//## File "k.cu", line 54
        /*0080*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
\t//## File "k.cu", line 41
        /*0090*/               @P0 BRA `(.L_x_1) ;
\t//## File "k.cu", line 57
        /*00a0*/                   EXIT ;
.L_x_2:
        /*00b0*/                   BRA `(.L_x_2);"""


def test_a_branch_on_a_uniform_predicate_operand_is_conditional():
    """Before: `BRA.U UP0, target` (sm_100/sm_120) was read as an unconditional jump: what follows the inner
    loop was unreachable, the outer loop was lost and both `// trips:` annotations went unused, so every
    loop counted once (matmul at sm_120: 70 instructions per thread instead of about 6800)."""
    from starchart.carve.sass import count_instructions, parse_sass

    kernel = parse_sass(BLACKWELL_SASS)["k"]
    assert all(kernel.reachable[:-1])  # all but the trailing self-loop
    assert [(lp.start, lp.end) for lp in kernel.loops] == [(0x10, 0x90), (0x30, 0x70)]
    counts = count_instructions(kernel, {"line:41": 8, "line:50": 4})
    assert counts.unannotated == () and counts.unused == ()
    # outer body: 2 + inner (5 per trip × 4) + 2 = 24 per trip, × 8 trips, + S2R and EXIT
    assert counts.instructions == 1 + 8 * (2 + 4 * 5 + 2) + 1


def test_blackwell_compute_capabilities_are_known():
    """Before: --cc 10.0 (B200) and 12.0 (RTX 50xx) were unknown, though CUDA 13 compiles only for 7.5 and up."""
    from starchart.carve.occupancy import device_limits, occupancy

    b200, rtx = device_limits("sm_100"), device_limits(120)
    assert (b200.max_blocks_per_sm, b200.max_warps_per_sm, b200.shared_per_sm) == (32, 64, 228 * 1024)
    assert (rtx.max_blocks_per_sm, rtx.max_warps_per_sm, rtx.shared_per_sm) == (24, 48, 100 * 1024)
    assert occupancy("12.0", 32, 32, 0).blocks_per_sm == 24  # the block limit, not 8.6's 16
    assert occupancy("12.0", 256, 32, 0, dynamic_shared_bytes=99 * 1024, opt_in=True).blocks_per_sm == 1
    assert not occupancy("12.0", 256, 32, 0, dynamic_shared_bytes=99 * 1024 + 1, opt_in=True).valid
