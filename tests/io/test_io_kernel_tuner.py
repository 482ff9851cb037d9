"""Kernel Tuner caches: the real files, failure markers, unfinished files, writing."""

from __future__ import annotations

import gzip
import json
import re
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from shared_data import dataset_path

from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.io.kernel_tuner import UnfinishedCacheWarning, read, write_cache
from starchart.io.load import load


def entry_lines(text: str) -> int:
    """Count complete cache entries the way Kernel Tuner writes them: one per line."""
    return len(re.findall(r'^"[^"\n]*": \{[^\n]*\},?$', text, flags=re.MULTILINE))


@pytest.mark.parametrize("rel, rows, valid", [
    ("convolution/A100.json.gz", 4362, 4201),
    ("convolution/A4000.json.gz", 4362, 4201),
    ("convolution/A6000.json.gz", 4362, 3889),
    ("dedispersion/A100.json.gz", 11130, 11130),
    ("gemm/RTX_3090.json.gz", 17956, 17956),
    ("pnpoly/RTX_3090.json.gz", 4092, 3774),
    ("energy/AD4000_wmma_complex_gemm_opt_16bit_1x4096x4096x4096.json.gz", 5120, 4690),
])
def test_real_caches_counts(rel, rows, valid):
    ds = load(dataset_path(rel))
    assert len(ds) == rows
    assert int(ds.valid.sum()) == valid
    assert ds.meta["format"] == "kernel_tuner" and ds.meta["unfinished"] is False


def test_convolution_columns_and_meta():
    ds = load(dataset_path("convolution/A100.json.gz"))
    assert ds.params == ["block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only",
                         "use_padding", "use_shmem", "use_cmem", "filter_height", "filter_width"]
    for m in ("time", "GFLOP/s", "compile_time", "benchmark_time", "framework_time", "verification_time",
              "strategy_time"):
        assert m in ds.metrics
    assert "timestamp" not in ds.frame.columns and "times" not in ds.metrics
    assert ds.meta["device_name"] == "NVIDIA A100-PCIE-40GB"
    assert ds.meta["kernel_name"] == "convolution_kernel"
    assert ds.meta["problem_size"] == [4096, 4096]
    assert ds.meta["objective"] == "time"
    assert list(ds.meta["tune_params"]) == ds.params
    # failed configurations have no time and say why
    failed = ds.frame[~ds.valid]
    assert failed["time"].isna().all()
    assert set(failed["reason"]) == {"RuntimeFailedConfig", "CompilationFailedConfig"}
    # time is the mean of the per-repeat times
    ok = ds.ok()
    means = ok.repeats["time"].map(np.mean).to_numpy()
    assert np.allclose(means, ok.y("time"), rtol=1e-6)


def test_a6000_failed_entries_with_times_are_invalid():
    ds = load(dataset_path("convolution/A6000.json.gz"))
    failed = ~ds.valid
    has_times = ds.repeats["time"].map(lambda v: isinstance(v, list))
    assert (failed & has_times).sum() > 0  # the 239 failures that still carry times
    assert ds.frame.loc[failed, "time"].isna().all()


def test_energy_metrics():
    ds = load(dataset_path("energy/AD4000_wmma_complex_gemm_opt_16bit_1x4096x4096x4096.json.gz"))
    for m in ("ps_energy", "ps_power", "Watt", "TFLOPS/J", "time"):
        assert m in ds.metrics
    assert ds.default_metric == "TFLOPS/J"
    assert ds.ok().frame["TFLOPS/J"].notna().all()
    assert ds.frame.loc[~ds.valid, "TFLOPS/J"].isna().all()


@pytest.mark.parametrize("name", ["synthetic_fp32_cache_NVIDIA_RTX_A4000.json", "test_cache_file.json",
                                  "test_cache_time_energy.json"])
def test_kernel_tuner_fixtures(name):
    path = dataset_path(f"kernel_tuner_fixtures/{name}")
    ds = load(path)
    assert len(ds) == len(json.loads(path.read_text())["cache"])
    assert ds.valid.all() and "time" in ds.metrics


def test_metrics_option_selects(tmp_path):
    ds = load(dataset_path("kernel_tuner_fixtures/test_cache_file.json"), metrics=["time"])
    assert ds.metrics == ["time"]
    with pytest.raises(InputError, match="'watts'"):
        load(dataset_path("kernel_tuner_fixtures/test_cache_file.json"), metrics=["watts"])


# ---------------------------------------------------------------------- failure markers
def write_json(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc))
    return path


def cache_doc(entries: list[dict], objective: str = "time") -> dict:
    return {"device_name": "gpu", "kernel_name": "k", "problem_size": [8], "tune_params_keys": ["x"],
            "tune_params": {"x": [e["x"] for e in entries]}, "objective": objective,
            "cache": {str(e["x"]): e for e in entries}}


def test_every_failure_marker(tmp_path):
    entries = [
        {"x": 1, "time": 1.0, "times": [1.0, 1.0]},
        {"x": 2, "time": "CompilationFailedConfig"},
        {"x": 3, "time": "RuntimeFailedConfig"},
        {"x": 4, "time": "InvalidConfig"},
        {"x": 5, "time": "out of memory"},
        {"x": 6, "time": 1e20},
        {"x": 7, "time": 2.0, "__error__": "CompilationFailedConfig"},
        {"x": 8, "time": 3.0, "compile_time": "RuntimeFailedConfig"},
    ]
    ds = read(write_json(tmp_path / "c.json", cache_doc(entries)))
    assert ds.status.tolist() == ["ok", "compile", "runtime", "invalid", "runtime", "runtime", "compile", "runtime"]
    assert ds.reason[4] == "out of memory"
    assert np.isnan(ds.y()[1:6]).all()
    assert ds.y()[0] == 1.0


def test_error_in_objective_other_than_time(tmp_path):
    entries = [{"x": 1, "time": 1.0, "f": 5.0}, {"x": 2, "f": "RuntimeFailedConfig", "compile_time": 3.0}]
    ds = read(write_json(tmp_path / "c.json", cache_doc(entries, objective="f")))
    assert ds.status.tolist() == ["ok", "runtime"]
    assert ds.default_metric == "f"
    assert ds.frame["compile_time"].tolist() == [pytest.approx(np.nan, nan_ok=True), 3.0]


def test_non_numeric_fields_are_not_metrics(tmp_path):
    entries = [{"x": 1, "time": 1.0, "note": "fast", "flag": True, "power_trace": [1.0, 2.0]},
               {"x": 2, "time": 2.0, "note": "slow", "flag": False, "power_trace": [3.0]}]
    ds = read(write_json(tmp_path / "c.json", cache_doc(entries)))
    assert ds.metrics == ["time"]
    assert ds.meta["ignored_fields"] == ["note", "flag", "power_trace"]


def test_entry_missing_a_parameter_is_named(tmp_path):
    doc = cache_doc([{"x": 1, "time": 1.0}])
    doc["cache"]["2"] = {"time": 1.0}
    with pytest.raises(InputError, match=r"c\.json, key '2'.*lacks parameter 'x'"):
        read(write_json(tmp_path / "c.json", doc))


# ---------------------------------------------------------------------- unfinished files
def conv_text() -> str:
    return gzip.decompress(dataset_path("convolution/A100.json.gz").read_bytes()).decode()


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_unfinished_cut_mid_entry(tmp_path, suffix):
    text = conv_text()
    cut = int(len(text) * 0.6)
    assert text[cut - 1] not in "\n,"  # really mid-entry
    head = text[:cut]
    expected = entry_lines(head.rsplit("\n", 1)[0])
    path = tmp_path / f"crashed{suffix}"
    path.write_bytes(gzip.compress(head.encode()) if suffix.endswith(".gz") else head.encode())
    with pytest.warns(UnfinishedCacheWarning, match=rf"crashed{re.escape(suffix)}.*recovered {expected} "):
        ds = load(path)
    assert len(ds) == expected > 2000
    assert ds.meta["unfinished"] is True
    # the recovered entries are exactly the first `expected` ones of the whole file
    full = load(dataset_path("convolution/A100.json.gz"))
    pd.testing.assert_frame_equal(ds.to_frame(), full.to_frame().iloc[:expected])


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_unfinished_cut_after_comma(tmp_path, suffix):
    text = conv_text()
    cut = text.index("},\n", int(len(text) * 0.6)) + 2
    head = text[:cut]
    assert head.endswith("},")
    expected = entry_lines(head)
    path = tmp_path / f"crashed{suffix}"
    path.write_bytes(gzip.compress(head.encode()) if suffix.endswith(".gz") else head.encode())
    with pytest.warns(UnfinishedCacheWarning, match=f"recovered {expected} "):
        ds = load(path)
    assert len(ds) == expected


def test_unfinished_gzip_stream_cut(tmp_path):
    """A crash while writing a .gz leaves a truncated compressed stream."""
    raw = dataset_path("convolution/A100.json.gz").read_bytes()
    cut = raw[: int(len(raw) * 0.6)]
    text = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(cut).decode("utf-8", errors="ignore")
    expected = entry_lines(text.rsplit("\n", 1)[0])
    path = tmp_path / "crashed.json.gz"
    path.write_bytes(cut)
    with pytest.warns(UnfinishedCacheWarning):
        ds = load(path)
    assert len(ds) == expected > 1000


def test_unfinished_header_only(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cache_doc([{"x": 1, "time": 1.0}]), indent="").split('"cache"')[0] + '"cache": {')
    with pytest.raises(InputError, match="c.json: cache has no configurations"):
        load(path)


def test_broken_mid_file_names_line(tmp_path):
    text = conv_text()
    lines = text.split("\n")
    bad = len(lines) // 2
    lines[bad] = lines[bad].replace('"time": ', '"time" ', 1)  # a missing colon, mid-file
    path = tmp_path / "broken.json"
    path.write_text("\n".join(lines))
    with pytest.raises(InputError) as err:
        load(path)
    assert f"broken.json, line {bad + 1}" in str(err.value)


def test_broken_header_names_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n"device_name": "gpu",\n"tune_params_keys": ["x"]\n"cache": {"1": {"x": 1, "time": 1.0}}}')
    with pytest.raises(InputError, match=r"broken\.json, line 4"):
        load(path)


# ---------------------------------------------------------------------- writing
def test_round_trip_real_cache(tmp_path):
    ds = load(dataset_path("convolution/A6000.json.gz"))
    out = tmp_path / "copy.json"
    ds.to_kernel_tuner(out)
    back = load(out)
    assert back.params == ds.params and back.metrics == ds.metrics
    pd.testing.assert_frame_equal(back.to_frame(), ds.to_frame())
    ok = ds.valid.to_numpy()
    assert back.repeats["time"][ok].tolist() == ds.repeats["time"][ok].tolist()
    for key in ("device_name", "kernel_name", "problem_size", "objective", "tune_params"):
        assert back.meta[key] == ds.meta[key]


def test_round_trip_gz_and_synthetic(tmp_path):
    df = pd.DataFrame({"a": [1, 2, 3, 4], "b": [0.5, 0.5, 1.5, 1.5], "time": [1.0, None, 3.0, None],
                       "status": ["ok", "compile", "ok", "invalid"]})
    ds = Dataset.from_frame(df)
    write_cache(ds, tmp_path / "c.json.gz", kernel_name="k")
    back = load(tmp_path / "c.json.gz")
    assert back.meta["kernel_name"] == "k"
    pd.testing.assert_frame_equal(back.to_frame()[["a", "b", "time", "status"]], ds.to_frame()[["a", "b", "time", "status"]])
    assert back.reason.tolist() == ["", "CompilationFailedConfig", "", "InvalidConfig"]


def test_failure_reasons_survive_a_written_cache(tmp_path):
    """Kernel Tuner has no marker for a timeout or a wrong answer: the reason is kept beside its error name."""
    df = pd.DataFrame({"x": [1, 2, 3, 4], "time": [1.0, None, None, None],
                       "status": ["ok", "timeout", "wrong-answer", "compile"],
                       "reason": ["", "timed out after 5 s", "checksum 3 differs from 4", ""]})
    write_cache(Dataset.from_frame(df), tmp_path / "c.json")
    entries = json.loads((tmp_path / "c.json").read_text())["cache"]
    assert entries["2"]["time"] == "RuntimeFailedConfig" and entries["2"]["failure_reason"] == "timed out after 5 s"
    assert "failure_reason" not in entries["1"] and "failure_reason" not in entries["4"]
    back = read(tmp_path / "c.json")
    assert back.status.tolist() == ["ok", "runtime", "runtime", "compile"]
    assert back.reason.tolist() == ["", "timed out after 5 s", "checksum 3 differs from 4", "CompilationFailedConfig"]
    assert "failure_reason" not in back.metrics + back.params


@pytest.mark.filterwarnings("ignore:Kernel .* and host argument")  # the toy kernel has no arguments
def test_written_cache_runs_in_kernel_tuner_simulation(tmp_path):
    kernel_tuner = pytest.importorskip("kernel_tuner")
    df = pd.DataFrame({"block_size_x": [32, 32, 64, 64, 128, 128], "tile": [1, 2, 1, 2, 1, 2],
                       "time": [3.0, 2.5, 1.0, None, 2.0, 4.0],
                       "status": ["ok", "ok", "ok", "timeout", "ok", "ok"],
                       "reason": ["", "", "", "timed out after 5 s", "", ""]})
    ds = Dataset.from_frame(df, meta={"kernel_name": "toy", "problem_size": [1024], "device_name": "sim"})
    path = tmp_path / "toy_cache.json"
    ds.to_kernel_tuner(path)
    tune_params = {"block_size_x": [32, 64, 128], "tile": [1, 2]}
    results, _env = kernel_tuner.tune_kernel("toy", "__global__ void toy() {}", 1024, [], tune_params,
                                             cache=str(path), simulation_mode=True, strategy="brute_force",
                                             quiet=True)
    assert len(results) == 6
    failed = [r for r in results if "__error__" in r]
    assert [(r["block_size_x"], r["tile"]) for r in failed] == [(64, 2)]
    assert failed[0]["failure_reason"] == "timed out after 5 s"  # passed through, harmless
    best = min((r for r in results if "__error__" not in r), key=lambda r: r["time"])
    assert (best["block_size_x"], best["tile"], best["time"]) == (64, 1, 1.0)
    # Kernel Tuner's own reader agrees on every entry
    cache = kernel_tuner.util.read_cache(str(path), open_cache=False)
    assert list(cache["cache"]) == ["32,1", "32,2", "64,1", "64,2", "128,1", "128,2"]


def test_written_real_subset_runs_in_tune_cache(tmp_path):
    kernel_tuner = pytest.importorskip("kernel_tuner")
    ds = load(dataset_path("convolution/A100.json.gz"))
    small = Dataset.from_frame(ds.to_frame(repeats=True)[ds.frame["block_size_x"] <= 32],
                               params=ds.params, metrics=ds.metrics, meta=ds.meta)
    path = tmp_path / "conv.json"
    small.to_kernel_tuner(path)
    results, _env = kernel_tuner.tune_cache(str(path), strategy="random_sample",
                                            strategy_options={"fraction": 0.5}, quiet=True)
    assert 0 < len(results) <= len(small)
    by_config = small.frame.set_index(small.params)["time"]
    for r in results:
        if "__error__" not in r:
            assert r["time"] == pytest.approx(by_config[tuple(r[p] for p in small.params)])


def test_a_number_written_as_text_in_a_cache_is_that_number(tmp_path):
    """A cache mixing 16 and "16" for one parameter showed two distinct values, and two configurations."""
    path = tmp_path / "c.json"
    doc = cache_doc([{"x": 16, "time": 1.0}, {"x": "32", "time": 2.0}])
    path.write_text(json.dumps(doc))
    ds = load(path)
    assert ds.frame["x"].tolist() == [16, 32] and ds.frame["x"].dtype.kind in "if"
    doc["cache"] = {"16": {"x": 16, "time": 1.0}, "16x": {"x": "16", "time": 2.0}}  # one setting, twice
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="'16'.*'16x'|'16x'.*'16'") as caught:
        load(path)
    assert "16" in caught.value.message


def test_a_space_listing_1_and_text_1_keeps_them_apart_in_its_store(tmp_path):
    """Normalising "1" to 1 belongs to the file readers: a space may list both as two settings."""
    from starchart import Space, run
    from starchart.measure import PythonEvaluator

    space = Space({"v": [1, "1", 2]})
    ds = run(space, PythonEvaluator(lambda c: 1.0 if c["v"] == 1 else 2.0), store=tmp_path / "s.db", samples=3,
             seed=0, progress=False)
    assert sorted(map(repr, ds.frame["v"])) == ["'1'", "1", "2"] and len(load(tmp_path / "s.db")) == 3


# ---------------------------------------------------------------------- objectives that hold no number
@pytest.mark.parametrize("value, said", [(True, "True"), ([1, 2], "[1, 2]"), ({"a": 1}, "{'a': 1}")],
                         ids=["bool", "list", "dict"])
@pytest.mark.parametrize("objective", ["time", "GFLOP/s"], ids=["objective-time", "objective-other"])
def test_a_non_number_in_the_objective_makes_that_entry_failed(tmp_path, value, said, objective):
    """Before: one ``"time": true`` made the whole column "not a metric", and the tree modelled GFLOP/s."""
    from starchart.io.load import NothingToModelWarning

    entries = [{"x": x, "time": 1.0 + x, "GFLOP/s": 10.0 * x} for x in (1, 2, 3)]
    entries[1][objective] = value
    path = write_json(tmp_path / "c.json", cache_doc(entries, objective=objective))
    with pytest.warns(NothingToModelWarning, match=r"c\.json: 1 cache entry holds no number in the objective or "
                                                   r"time, read as failed \(first: key '2', ") as caught:
        ds = load(path)
    assert len(caught) == 1
    assert ds.status.tolist() == ["ok", "runtime", "ok"]
    assert ds.reason[1] == f"{objective} is {said}: not a number"
    assert {"time", "GFLOP/s"} <= set(ds.metrics) and ds.default_metric == objective
    assert np.isnan(ds.y(objective)[1]) and ds.ok().y(objective).tolist() == [entries[0][objective], entries[2][objective]]


def test_an_objective_in_no_entry_is_named_with_the_metric_modelled_instead(tmp_path):
    """Before: a cache tuned for "energy" with no energy in its entries was modelled as time without a word."""
    from starchart.io.load import NothingToModelWarning

    path = write_json(tmp_path / "c.json", cache_doc([{"x": 1, "time": 1.0}, {"x": 2, "time": 2.0}], "energy"))
    with pytest.warns(NothingToModelWarning, match=r"c\.json, \"objective\": the objective 'energy' is in no cache "
                                                   r"entry; modelling 'time' by default instead"):
        ds = load(path)
    assert ds.default_metric == "time"
    path = write_json(tmp_path / "c.json", cache_doc([{"x": 1}, {"x": 2}], "energy"))
    with pytest.raises(InputError, match=r"c\.json, \"objective\": the objective 'energy' is in no cache entry, and "
                                         "no other field holds a number"):
        load(path)


def test_reading_a_cache_looks_up_no_column_per_parameter(tmp_path, monkeypatch):
    """Before: a cache of 100,000 parameters took minutes to read (each parameter looked up in pandas several
    times, and every field looked for in the list of parameters); the lookups now do not grow with them."""
    lookups = {"n": 0}
    getitem = pd.DataFrame.__getitem__

    def counting(self, key):
        lookups["n"] += 1
        return getitem(self, key)

    monkeypatch.setattr(pd.DataFrame, "__getitem__", counting)
    counts = []
    for width in (20, 2000):
        keys = [f"p{i}" for i in range(width)]
        entries = {str(r): {**{k: r for k in keys}, "time": 1.0 + r} for r in range(3)}
        path = write_json(tmp_path / f"w{width}.json", {"tune_params_keys": keys,
                                                        "tune_params": {k: [0, 1, 2] for k in keys},
                                                        "cache": entries})
        lookups["n"] = 0
        ds = read(path)
        assert ds.params == keys and ds.y().tolist() == [1.0, 2.0, 3.0]
        counts.append(lookups["n"])
    assert counts[0] == counts[1]
