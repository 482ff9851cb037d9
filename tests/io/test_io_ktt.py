"""KTT output files."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from shared_data import dataset_path

from starchart.errors import InputError
from starchart.io.ktt import read
from starchart.io.load import load


def test_ktt_convolution():
    path = dataset_path("ktt/KTConvolutionOutput_2080Ti.json.gz")
    ds = load(path)
    raw = json.loads(gzip.decompress(path.read_bytes()))["Results"]
    assert ds.meta["format"] == "ktt"
    assert len(ds) == len(raw) == 6768
    assert int(ds.valid.sum()) == sum(r["Status"] == "Ok" for r in raw) == 5280
    assert ds.params == ["BLOCK_SIZE_X", "BLOCK_SIZE_Y", "TILE_SIZE_X", "TILE_SIZE_Y", "PADDING",
                         "IMAGE_WIDTH", "IMAGE_HEIGHT", "HFS", "READ_ONLY"]
    # Duration is in µs in the file, in ms here
    ok_raw = [r for r in raw if r["Status"] == "Ok"]
    assert np.allclose(ds.ok().y("time"), [r["TotalDuration"] / 1000 for r in ok_raw])
    assert 0.01 < np.nanmedian(ds.y("time")) < 1000  # plausible ms, not µs
    for m in ("RegistersCount", "LocalMemorySize", "ConstantMemorySize", "PrivateMemorySize",
              "sm__warps_active.avg.pct_of_peak_sustained_active", "dram__throughput.avg.pct_of_peak_sustained_elapsed"):
        assert m in ds.metrics
    assert ds.ok().frame["RegistersCount"].notna().all()
    assert set(ds.reason[~ds.valid]) == {"ComputationFailed"}
    assert ds.meta["device_name"] == "NVIDIA GeForce RTX 2080 Ti"
    # GlobalSizeType "CUDA": GlobalSize is the grid in blocks, so the launch has grid × block threads
    ok = ds.ok().frame
    expected = (-(-ok.IMAGE_WIDTH // (ok.BLOCK_SIZE_X * ok.TILE_SIZE_X)) * ok.BLOCK_SIZE_X
                * -(-ok.IMAGE_HEIGHT // (ok.BLOCK_SIZE_Y * ok.TILE_SIZE_Y)) * ok.BLOCK_SIZE_Y)
    assert (ok["threads"] == expected).all()
    assert (ok["threads_per_block"] == ok.BLOCK_SIZE_X * ok.BLOCK_SIZE_Y).all()


@pytest.mark.parametrize(("size_type", "threads"), [("CUDA", 32.0 * 4 * 100), ("OpenCL", 100.0), (None, 100.0)])
def test_global_size_type_gives_the_launched_threads(tmp_path, size_type, threads):
    result = ktt_result(1)
    result["ComputationResults"][0].update({"LocalSize": {"X": 32, "Y": 4, "Z": 1}, "GlobalSize": {"X": 100}})
    metadata = {"TimeUnit": "Microseconds", "KttVersion": "2.1"}
    if size_type is not None:
        metadata["GlobalSizeType"] = size_type
    path = tmp_path / "ktt.json"
    path.write_text(json.dumps({"Metadata": metadata, "Results": [result]}))
    ds = read(path)
    assert ds.y("threads_per_block")[0] == 128.0 and ds.y("threads")[0] == threads


def ktt_result(b: int, status: str = "Ok", kernels: tuple[str, ...] = ("k",)) -> dict:
    comps = [] if status != "Ok" else [
        {"KernelFunction": k, "Duration": 1000.0 * (i + 1), "Overhead": 5.0,
         "CompilationData": {"RegistersCount": 32}, "ProfilingData": {"Counters": [{"Name": "c", "Value": 7.0}]}}
        for i, k in enumerate(kernels)]
    return {"Configuration": [{"Name": "B", "Value": b}], "Status": status, "KernelName": "k",
            "TotalDuration": 3000.0 if status == "Ok" else 0.0, "ComputationResults": comps}


def test_statuses_and_multi_kernel_prefixes(tmp_path):
    doc = {"Metadata": {"TimeUnit": "Microseconds", "KttVersion": "2.1"},
           "Results": [ktt_result(1, kernels=("a", "b")), ktt_result(2, "CompilationFailed"),
                       ktt_result(3, "ValidationFailed"), ktt_result(4, "DeviceLimitsExceeded")]}
    path = tmp_path / "ktt.json"
    path.write_text(json.dumps(doc))
    ds = read(path)
    assert ds.status.tolist() == ["ok", "compile", "wrong-answer", "invalid"]
    assert ds.y("time")[0] == 3.0 and np.isnan(ds.y("time")[1:]).all()
    assert ds.y("a.Duration")[0] == 1.0 and ds.y("b.Duration")[0] == 2.0
    assert "a.RegistersCount" in ds.metrics and "b.c" in ds.metrics


def test_bad_configuration_is_named(tmp_path):
    doc = {"Metadata": {"KttVersion": "2"}, "Results": [ktt_result(1), {"Status": "Ok"}]}
    path = tmp_path / "ktt.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"ktt\.json, key 'Results\[1\]'"):
        read(path)


def test_a_parameter_given_twice_in_a_configuration_is_refused(tmp_path):
    """Before: the last value won without a word, and the result read as another configuration."""
    result = ktt_result(1)
    result["Configuration"].append({"Name": "B", "Value": 999})
    path = tmp_path / "ktt.json"
    path.write_text(json.dumps({"Metadata": {"KttVersion": "2"}, "Results": [ktt_result(2), result]}))
    with pytest.raises(InputError, match=r"ktt\.json, key 'Results\[1\]': the parameter 'B' appears twice in the "
                                         r"configuration \(values 1 and 999\)"):
        read(path)


@pytest.mark.parametrize("where, name, said", [
    ("counter", "time", "a column starchart makes"), ("counter", "status", "a column starchart makes"),
    ("counter", "threads", "a column starchart makes"), ("counter", "B", "a parameter of the configuration"),
    ("compilation", "B", "a parameter of the configuration"), ("compilation", "TotalOverhead", "a column starchart"),
], ids=["counter-time", "counter-status", "counter-threads", "counter-parameter", "compilation-parameter",
        "compilation-overhead"])
def test_a_counter_named_like_a_parameter_or_our_column_is_refused(tmp_path, where, name, said):
    """Before: a counter "time" (-1) overwrote TotalDuration, and the best time of all was -1 ms."""
    result = ktt_result(1)
    comp = result["ComputationResults"][0]
    comp["LocalSize"] = {"X": 32}
    if where == "counter":
        comp["ProfilingData"]["Counters"].append({"Name": name, "Value": -1})
    else:
        comp["CompilationData"][name] = 7
    path = tmp_path / "ktt.json"
    path.write_text(json.dumps({"Metadata": {"KttVersion": "2"}, "Results": [result]}))
    part = "ProfilingData" if where == "counter" else "CompilationData"
    with pytest.raises(InputError, match=rf"ktt\.json, key 'Results\[0\]'\.ComputationResults\[0\]\.{part}: the "
                                         rf".* '{name}' has the name of {said}"):
        read(path)


@pytest.mark.parametrize("size", [{"X": 10**300, "Y": 10**300}, {"X": 1e300, "Y": 10**300}, {"X": True},
                                  {"X": "a"}, {"X": -4}, {"X": 2**40, "Y": 2**40}],
                         ids=["huge-ints", "huge-float", "bool", "text", "negative", "beyond-2**63"])
def test_a_launch_size_that_is_no_count_is_named(tmp_path, size):
    """Before: 10**300 × 10**300 raised OverflowError (a traceback), and true or "a" were read as 1 or dropped."""
    result = ktt_result(1)
    result["ComputationResults"][0].update({"LocalSize": {"X": 32}, "GlobalSize": size})
    path = tmp_path / "ktt.json"
    path.write_text(json.dumps({"Metadata": {"KttVersion": "2"}, "Results": [result]}))
    with pytest.raises(InputError, match=r"ktt\.json, key 'Results\[0\]'\.ComputationResults\[0\]\.GlobalSize: the "
                                         r"launch size .* is no count"):
        read(path)


def test_a_parameter_named_like_a_launch_column_keeps_its_values(tmp_path):
    """Before: a kernel parameter "threads" was overwritten by the launch's thread count."""
    results = [ktt_result(b) for b in (1, 2)]
    for result in results:
        result["Configuration"].append({"Name": "threads", "Value": 64 * result["Configuration"][0]["Value"]})
        result["ComputationResults"][0].update({"LocalSize": {"X": 32}, "GlobalSize": {"X": 100}})
    path = tmp_path / "ktt.json"
    path.write_text(json.dumps({"Metadata": {"KttVersion": "2"}, "Results": results}))
    ds = read(path)
    assert ds.params == ["B", "threads"] and ds.frame["threads"].tolist() == [64, 128]
    assert ds.y("threads_per_block").tolist() == [32.0, 32.0]
    results[0]["Configuration"][1]["Name"] = "time"
    path.write_text(json.dumps({"Metadata": {"KttVersion": "2"}, "Results": results}))
    with pytest.raises(InputError, match=r"Results\[0\]': the parameter 'time' has the name of a column starchart"):
        read(path)
