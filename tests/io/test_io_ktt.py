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
