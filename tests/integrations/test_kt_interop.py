"""Kernel Tuner interoperability as a Kernel Tuner user meets it: caches Kernel Tuner 1.5 writes, caches we
write replayed by Kernel Tuner, and the starchart strategy inside ``tune_kernel`` (simulation and live C)."""

from __future__ import annotations

import json
import shutil
import warnings

import numpy as np
import pandas as pd
import pytest

from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.io.kernel_tuner import read, write_cache
from starchart.io.load import load


def kt():
    """Kernel Tuner (a test extra); the tests that need it skip without it, the readers' tests do not."""
    return pytest.importorskip("kernel_tuner")


pytestmark = [pytest.mark.filterwarnings("ignore:None of the tunable parameters specify thread block"),
              pytest.mark.filterwarnings("ignore:Kernel .* and host argument")]


def kt15_cache(path, entries, objective=("time",), tune_params=None):
    """A cache laid out as Kernel Tuner 1.5 writes it: indented header, objective as a list, one line per
    entry, failures as ``"__error__"`` (see kernel_tuner.util.process_cache / store_cache)."""
    first = entries[0]
    names = [k for k in first if k not in ("time", "times", "__error__", "compile_time", "verification_time",
                                           "benchmark_time", "timestamp", "GFLOP/s", "energy")]
    tune_params = tune_params or {n: sorted({e[n] for e in entries}) for n in names}
    header = {"device_name": "NVIDIA A100", "kernel_name": "k", "problem_size": [64], "tune_params_keys": names,
              "tune_params": tune_params, "objective": list(objective), "cache": {}}
    text = json.dumps(header, indent="")[:-3]
    for e in entries:
        key = ",".join(str(e[n]) for n in names)
        text += "\n" + json.dumps({key: e})[1:-1] + ","
    path.write_text(text[:-1] + "}\n}")
    return path


def grid_entries():
    out = []
    for x in (1, 2, 4):
        for y in (1, 2):
            e = {"x": x, "y": y, "time": float(x * y), "times": [float(x * y)] * 3, "compile_time": 10.0,
                 "verification_time": 0, "benchmark_time": 3.0, "timestamp": "2025-01-01 00:00:00+00:00"}
            out.append(e)
    return out


# ---------------------------------------------------------------------- reading what Kernel Tuner 1.5 writes
def test_kernel_tuner_15_cache_with_objective_list_and_error_markers(tmp_path):
    """Kernel Tuner 1.5 writes "objective": ["time"]; reading such a cache crashed with
    TypeError: unhashable type: 'list' (starchart info/tree/report, load, prior=...)."""
    entries = grid_entries()
    for e, err in zip(entries[1:4], ("CompilationFailedConfig", "RuntimeFailedConfig", "InvalidConfig")):
        for k in ("time", "times"):
            e.pop(k)
        e["__error__"] = err
    ds = load(kt15_cache(tmp_path / "c.json", entries))
    assert ds.meta["objective"] == "time" and "objectives" not in ds.meta
    assert ds.default_metric == "time"
    assert ds.status.tolist() == ["ok", "compile", "runtime", "invalid", "ok", "ok"]
    assert ds.y("time")[0] == 1.0 and np.isnan(ds.y("time")[1:4]).all()


def test_unfinished_kernel_tuner_15_cache(tmp_path):
    """A run killed mid-way leaves the header (objective as a list) and the entries so far, the last one cut."""
    from starchart.io.kernel_tuner import UnfinishedCacheWarning

    path = kt15_cache(tmp_path / "c.json", grid_entries())
    text = path.read_text()
    path.write_text(text[: text.index('"4,1"') + 12])
    with pytest.warns(UnfinishedCacheWarning, match="recovered 4 complete entries"):
        ds = load(path)
    assert len(ds) == 4 and ds.meta["objective"] == "time" and ds.meta["unfinished"] is True


def test_multi_objective_cache_keeps_every_objective(tmp_path):
    entries = grid_entries()
    for e in entries:
        e["energy"] = e["time"] * 3
    entries[2]["energy"] = "RuntimeFailedConfig"  # an error string in the second objective is a failure too
    ds = read(kt15_cache(tmp_path / "c.json", entries, objective=("energy", "time")))
    assert ds.meta["objective"] == "energy" and ds.meta["objectives"] == ["energy", "time"]
    assert ds.default_metric == "energy"
    assert ds.status.tolist()[2] == "runtime" and ds.valid.sum() == 5


@pytest.mark.parametrize("objective", [3, {"time": False}, ["time", 2]])
def test_malformed_objective_is_named(tmp_path, objective):
    doc = {"tune_params_keys": ["x"], "tune_params": {"x": [1]}, "objective": objective,
           "cache": {"1": {"x": 1, "time": 1.0}}}
    (tmp_path / "c.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r'"objective" is .*expected a metric name') as err:
        load(tmp_path / "c.json")
    assert err.value.where == f'{tmp_path / "c.json"}, "objective"'


@pytest.mark.filterwarnings("ignore::starchart.io.load.NothingToModelWarning")  # all failed: said, tested apart
def test_every_configuration_failed_still_has_its_objective(tmp_path):
    """The objective used to vanish: `starchart tree` fitted compile_time by default (the failed entries still carry
    Kernel Tuner's timings), or, without those, said "dataset has no metrics (hint: load it with metrics=[...])"
    instead of that nothing succeeded."""
    entries = grid_entries()[:2]
    for e in entries:
        e.pop("time"), e.pop("times")
        e["__error__"] = "CompilationFailedConfig"
    ds = load(kt15_cache(tmp_path / "c.json", entries))
    assert "time" in ds.metrics and ds.default_metric == "time"
    assert not ds.valid.any() and ds.frame["time"].isna().all()
    for e in entries:
        for timing in ("compile_time", "verification_time", "benchmark_time"):
            e.pop(timing)
    assert load(kt15_cache(tmp_path / "bare.json", entries)).metrics == ["time"]


def test_list_valued_parameter_is_refused_with_its_key(tmp_path):
    """Used to load, then crash with a pandas TypeError (unhashable type: 'list') in `starchart info`."""
    doc = {"tune_params_keys": ["tile", "b"], "tune_params": {"tile": [[1, 2], [2, 1]], "b": [1]},
           "cache": {"[1, 2],1": {"tile": [1, 2], "b": 1, "time": 1.0},
                     "[2, 1],1": {"tile": [2, 1], "b": 1, "time": 2.0}}}
    (tmp_path / "c.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"parameter 'tile' has the value \[1, 2\]") as err:
        load(tmp_path / "c.json")
    assert err.value.where.endswith("key '[1, 2],1'")


def test_tune_params_keys_must_be_a_list(tmp_path):
    """A string was split into letters ("xy" → parameters x and y)."""
    doc = {"tune_params_keys": "xy", "tune_params": {"xy": [1]}, "cache": {"1": {"xy": 1, "time": 1.0}}}
    (tmp_path / "c.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match='"tune_params_keys" is \'xy\': expected a list'):
        load(tmp_path / "c.json")


# ---------------------------------------------------------------------- writing for Kernel Tuner
def test_write_cache_refuses_an_objective_that_is_not_a_metric(tmp_path):
    """A misspelt objective wrote every configuration as RuntimeFailedConfig ("no GFLOPs value"), silently."""
    ds = Dataset.from_frame(pd.DataFrame({"x": [1, 2], "time": [1.0, 2.0], "GFLOP/s": [5.0, 2.5]}),
                            metrics=["time", "GFLOP/s"])
    with pytest.raises(InputError, match="objective 'GFLOPs' is not a metric.*") as err:
        write_cache(ds, tmp_path / "c.json", objective="GFLOPs")
    assert "time, GFLOP/s" in err.value.hint and not (tmp_path / "c.json").exists()
    write_cache(ds, tmp_path / "c.json", objective="GFLOP/s")
    assert read(tmp_path / "c.json").status.tolist() == ["ok", "ok"]


def test_round_trip_adds_no_timing_metrics(tmp_path):
    """The zeros written for Kernel Tuner's timing fields came back as five metrics the data never had
    (compile_time … framework_time, all 0), in `starchart info`, trees' metric choices and reports."""
    df = pd.DataFrame({"x": [1, 2, 3, 4], "time": [3.0, 1.0, None, 2.0], "status": ["ok", "ok", "runtime", "ok"],
                       "reason": ["", "", "out of registers", ""]})
    ds = Dataset.from_frame(df, meta={"kernel_name": "k", "problem_size": 1})
    path = tmp_path / "c.json"
    write_cache(ds, path)
    back = read(path)
    assert back.metrics == ["time"]
    pd.testing.assert_frame_equal(back.to_frame(), ds.to_frame())
    # Kernel Tuner's simulation mode with a time limit still finds every timing it needs in every entry
    results, env = kt().tune_kernel("k", "", 1, [], {"x": [1, 2, 3, 4]}, cache=str(path), simulation_mode=True,
                                    strategy="random_sample", strategy_options={"time_limit": 30,
                                                                                "fraction": 1.0}, quiet=True)
    assert env["best_config"]["x"] == 2 and len(results) == 4


def objective_fn(config):
    """A module-level objective (stores record the evaluator): a failing corner and one optimum."""
    if config["a"] == 8 and config["b"] == "y":
        raise RuntimeError("out of registers")
    return float(abs(config["a"] - 4) + {"x": 0.5, "y": 0.0}[config["b"]] + 1)


def test_store_to_cache_to_kernel_tuner_simulation_and_back(tmp_path):
    """starchart store → `starchart export` cache → Kernel Tuner's simulation mode agrees on the best and on the
    failure → starchart reads the cache back as the store held it."""
    from starchart import run
    from starchart.measure import PythonEvaluator
    from starchart.space import Space
    from starchart.study.store import Store

    space = Space({"a": [1, 2, 4, 8], "b": ["x", "y"]})
    run(space, PythonEvaluator(objective_fn), samples=8, store=tmp_path / "study.db", seed=1, progress=False)
    store = Store.open(tmp_path / "study.db", read_only=True)
    ds = store.to_dataset()
    cache = store.export(tmp_path / "cache.json")
    header = json.loads(cache.read_text())
    results, env = kt().tune_kernel(header["kernel_name"], "", header["problem_size"], [], header["tune_params"],
                                    cache=str(cache), simulation_mode=True, strategy="brute_force", quiet=True)
    failed = [(r["a"], r["b"]) for r in results if "__error__" in r]
    assert failed == [(8, "y")]
    best = ds.ok().frame.sort_values("time").iloc[0]
    found = env["best_config"]
    assert (found["a"], found["b"], found["time"]) == (best["a"], best["b"], best["time"])
    back = load(cache)
    assert back.metrics == ds.metrics == ["time"]
    pd.testing.assert_frame_equal(back.to_frame(), ds.to_frame())


# ---------------------------------------------------------------------- the strategy in tune_kernel
@pytest.fixture
def typed_cache(tmp_path):
    """A complete cache over numeric, string, float and boolean parameters (48 configurations)."""
    rows = [{"bs": bs, "mode": mode, "frac": frac, "flag": flag,
             "time": float(abs(np.log2(bs / 64)) + 2 * (mode == "slow") + abs(frac - 1) + 0.3 * flag + 1)}
            for bs in (32, 64, 128, 256) for mode in ("fast", "slow") for frac in (0.5, 1.0, 2.0)
            for flag in (True, False)]
    path = tmp_path / "typed.json"
    meta = {"kernel_name": "k", "problem_size": 1}
    Dataset.from_frame(pd.DataFrame(rows), metrics=["time"], meta=meta).to_kernel_tuner(path)
    return path


TYPED = {"bs": [256, 32, 64, 128], "mode": ["fast", "slow"], "frac": [0.5, 1.0, 2.0], "flag": [True, False]}


def simulate(cache, strategy, options=None, tune_params=None, **kwargs):
    return kt().tune_kernel("k", "", 1, [], tune_params or TYPED, cache=str(cache), simulation_mode=True,
                            strategy=strategy, strategy_options=options, quiet=True, **kwargs)


def configs(results):
    return [tuple(r[n] for n in TYPED) for r in results]


def test_strategy_with_numpy_tune_params(typed_cache):
    """tune_params given as numpy arrays crashed inside Kernel Tuner's CostFunc (AttributeError: 'numpy.ndarray'
    object has no attribute 'index'), although the strategy only proposes configurations of the space."""
    from starchart.integrations.kernel_tuner_strategy import StarchartStrategy

    as_arrays = {k: (np.array(v) if k != "flag" else v) for k, v in TYPED.items()}
    results, _ = simulate(typed_cache, StarchartStrategy(seed=1), {"max_fevals": 12}, tune_params=as_arrays)
    plain, _ = simulate(typed_cache, StarchartStrategy(seed=1), {"max_fevals": 12})
    assert len(results) == 12 and configs(results) == configs(plain)


def test_strategy_class_itself_is_a_strategy(typed_cache):
    """strategy=StarchartStrategy (the class) failed: TypeError: tune() missing 1 required positional argument."""
    from starchart.integrations.kernel_tuner_strategy import StarchartStrategy

    by_class, _ = simulate(typed_cache, StarchartStrategy, {"max_fevals": 6, "seed": 2})
    by_instance, _ = simulate(typed_cache, StarchartStrategy(seed=2), {"max_fevals": 6})
    assert configs(by_class) == configs(by_instance) and len(by_class) == 6
    assert repr(StarchartStrategy(seed=2)) == "StarchartStrategy(seed=2)"


@pytest.mark.parametrize("typo, guess", [("maxfevals", "max_fevals"), ("Seed", "seed"), ("intial", "initial")])
def test_misspelt_strategy_option_suggests_the_right_one(typed_cache, typo, guess):
    from starchart.integrations.kernel_tuner_strategy import StarchartStrategy

    with pytest.raises(ValueError, match="Unrecognized option") as err:
        simulate(typed_cache, StarchartStrategy(seed=1), {typo: 5})
    assert isinstance(err.value, InputError)
    assert f"did you mean {typo!r} → {guess!r}?" in err.value.hint


@pytest.mark.parametrize("fevals", [2.5, True])
def test_max_fevals_must_be_whole(typed_cache, fevals):
    """max_fevals=2.5 evaluated 3 configurations without a word."""
    from starchart.integrations.kernel_tuner_strategy import StarchartStrategy

    with pytest.raises(InputError, match="max_fevals of the starchart strategy: must be None or an integer ≥ 1") as err:
        simulate(typed_cache, StarchartStrategy(seed=1), {"max_fevals": fevals})
    assert err.value.where == "max_fevals of the starchart strategy"
    results, _ = simulate(typed_cache, StarchartStrategy(seed=1), {"max_fevals": 3.0})
    assert len(results) == 3


def test_several_objectives_warn_that_only_the_first_is_searched(typed_cache):
    from starchart.integrations.kernel_tuner_strategy import StarchartStrategy

    with pytest.warns(UserWarning, match="optimises one objective: it searches for the best 'time'"):
        simulate(typed_cache, StarchartStrategy(seed=1), {"max_fevals": 4},
                 objectives={"time": False, "compile_time": False})
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.filterwarnings("ignore", "None of the tunable parameters specify thread block")
        simulate(typed_cache, StarchartStrategy(seed=1), {"max_fevals": 4})


def test_budget_larger_than_restricted_space_evaluates_it_all_once(typed_cache):
    from starchart.integrations.kernel_tuner_strategy import StarchartStrategy

    results, env = simulate(typed_cache, StarchartStrategy(seed=1), {"max_fevals": 1000},
                            restrictions=["mode == 'fast'", "bs >= 64"])
    assert len(results) == len(set(configs(results))) == 3 * 3 * 2
    assert all(r["mode"] == "fast" and r["bs"] >= 64 for r in results)
    assert (env["best_config"]["bs"], env["best_config"]["frac"], env["best_config"]["flag"]) == (64, 1.0, False)


C_KERNEL = r"""
#if UNROLL == 3
#error "uses too much shared data"
#endif
float scale(float *out, const float *a, int n) {
    for (int i = 0; i < n; i += UNROLL)
        for (int u = 0; u < UNROLL && i + u < n; u++) out[i + u] = 2.0f * a[i + u];
    return 0.001f * (float)(BLOCK + UNROLL);
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="Kernel Tuner's C backend needs g++")
def test_live_c_tuning_with_the_strategy_then_starchart_reads_the_cache(tmp_path, monkeypatch):
    """A real Kernel Tuner 1.5 run (lang="C" on the CPU) with the starchart strategy writes its own cache
    (objective list, "__error__" for the configuration whose compiler says "uses too much shared data");
    starchart reads it, and a replay of our rewrite agrees on the best."""
    from starchart.integrations.kernel_tuner_strategy import StarchartStrategy

    monkeypatch.chdir(tmp_path)  # Kernel Tuner's C backend writes its temporary sources to the working directory
    n = np.int32(64)
    args = [np.zeros(n, np.float32), np.ones(n, np.float32), n]
    tune_params = {"BLOCK": [1, 2], "UNROLL": [1, 3]}
    cache = tmp_path / "live.json"
    results, env = kt().tune_kernel("scale", C_KERNEL, n, args, tune_params, lang="C",
                                    strategy=StarchartStrategy(seed=0), strategy_options={"max_fevals": 10},
                                    cache=str(cache), iterations=1, quiet=True)
    assert len(results) == 4 and sum("__error__" in r for r in results) == 2
    assert json.loads(cache.read_text())["objective"] == ["time"]  # Kernel Tuner 1.5's own header
    ds = load(cache)
    assert sorted(ds.status.tolist()) == ["compile", "compile", "ok", "ok"]
    assert ds.default_metric == "time"
    best = ds.ok().frame.sort_values("time").iloc[0]
    assert (best["BLOCK"], best["UNROLL"]) == (env["best_config"]["BLOCK"], env["best_config"]["UNROLL"]) == (1, 1)
    ds.to_kernel_tuner(tmp_path / "again.json")
    _, env2 = kt().tune_kernel("scale", "", n, [], tune_params, cache=str(tmp_path / "again.json"),
                               simulation_mode=True, strategy="brute_force", quiet=True)
    assert env2["best_config"]["time"] == pytest.approx(env["best_config"]["time"])
    pd.testing.assert_frame_equal(load(tmp_path / "again.json").to_frame(), ds.to_frame())


def test_the_strategy_is_importable_from_the_package_as_the_readme_says():
    from starchart import StarchartStrategy
    from starchart.integrations.kernel_tuner_strategy import StarchartStrategy as defined

    assert StarchartStrategy is defined


def test_a_cache_exported_from_a_replayed_study_replays_in_kernel_tuner_under_the_kernels_name(typed_cache, tmp_path):
    """Before: the export wrote kernel_name 'unknown' and problem_size 1 whatever the replayed cache said, so
    tune_kernel("conv", ..., cache=...) refused it. Now the replayed file's names go through the store."""
    from typer.testing import CliRunner

    from starchart.cli import app

    named = tmp_path / "named.json"
    data = load(typed_cache)
    data.meta.update(kernel_name="conv", device_name="Test GPU", problem_size=[64, 32])
    data.to_kernel_tuner(named)
    store, exported = tmp_path / "s.db", tmp_path / "exported.json"
    runner = CliRunner()
    assert runner.invoke(app, ["run", "--replay", str(named), "--samples", "48", "--store", str(store)]).exit_code == 0
    result = runner.invoke(app, ["export", str(store), "-o", str(exported)])
    assert result.exit_code == 0, result.output
    header = json.loads(exported.read_text())
    assert (header["kernel_name"], header["device_name"], header["problem_size"]) == ("conv", "Test GPU", [64, 32])
    results, _ = kt().tune_kernel("conv", "", [64, 32], [], TYPED, cache=str(exported), simulation_mode=True,
                                  strategy="brute_force", quiet=True)
    assert len(results) == 48

    # the names can also be given (a study of a C program knows no kernel name of Kernel Tuner's)
    again = tmp_path / "again.json"
    result = runner.invoke(app, ["export", str(store), "-o", str(again), "--kernel-name", "k", "--problem-size", "1"])
    assert result.exit_code == 0, result.output
    assert json.loads(again.read_text())["kernel_name"] == "k"
    assert len(simulate(again, "brute_force")[0]) == 48
    bad = runner.invoke(app, ["export", str(store), "-o", str(again), "--problem-size", "64x32"])
    assert bad.exit_code == 2 and "--problem-size: '64x32' is not a problem size" in bad.output
