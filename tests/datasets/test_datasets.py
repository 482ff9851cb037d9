"""starchart.datasets: the bundled sets load as published, and fetching downloads, checks and caches."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest
from shared_data import FETCHED_COPIES

from starchart import datasets
from starchart.errors import InputError


@pytest.mark.parametrize("name", [n for n, r in datasets.DATASETS.items() if r.bundled])
def test_bundled_files_are_the_published_bytes(name: str) -> None:
    record = datasets.DATASETS[name]
    data = datasets.data_path(name).read_bytes()
    assert len(data) == record.size
    assert hashlib.sha256(data).hexdigest() == record.sha256


def test_each_bundled_set_carries_its_licence_text() -> None:
    licences = {p.name for p in (datasets.BUNDLED / "licenses").iterdir()}
    assert "jiawenhao+Starchart.LICENSE" in licences  # BSD-3: the notice must travel with the file
    assert "AutoTuningAssociation+benchmark_hub.LICENSE" in licences  # MIT: likewise


def test_loaders_give_the_published_numbers() -> None:
    kmeans = datasets.load_kmeans()
    assert (len(kmeans), kmeans.params) == (500, ["ppb", "tpp", "consec"])
    for gpu, valid in (("A100", 4201), ("A4000", 4201), ("A6000", 3889)):
        conv = datasets.load_convolution(gpu)
        assert (len(conv), len(conv.ok())) == (4362, valid)


def test_an_unknown_name_or_gpu_says_what_exists() -> None:
    with pytest.raises(InputError, match="choose one of kmeans"):
        datasets.data_path("kmean")
    with pytest.raises(InputError, match="gpu='H100'.*A100, A4000, A6000"):
        datasets.load_convolution("H100")


def test_describe_names_licence_and_citation() -> None:
    text = datasets.describe("gemm")
    assert "licence: MIT" in text and "doi:10.5281/zenodo.15364124" in text and "fetched on first use" in text


@pytest.fixture
def mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A local ``file://`` mirror holding one fetched set (made of the kmeans bytes), and an empty cache."""
    payload = datasets.data_path("kmeans").read_bytes()
    record = replace(datasets.DATASETS["kmeans"], name="tiny", file="tiny.csv", source="sub dir/tiny.csv",
                     bundled=False)
    monkeypatch.setitem(datasets.DATASETS, "tiny", record)
    root = tmp_path / "mirror"
    (root / "sub dir").mkdir(parents=True)
    (root / "sub dir" / "tiny.csv").write_bytes(payload)
    monkeypatch.setenv("STARCHART_DATA_MIRROR", root.as_uri() + "/")
    cache = tmp_path / "cache"
    monkeypatch.setenv("STARCHART_DATA", str(cache))
    return root, cache


def test_fetch_downloads_once_into_the_cache(mirror: tuple[Path, Path]) -> None:
    root, cache = mirror
    assert len(datasets.load_named("tiny")) == 500
    assert (cache / "tiny.csv").read_bytes() == (root / "sub dir" / "tiny.csv").read_bytes()
    (root / "sub dir" / "tiny.csv").unlink()  # the mirror is gone: the cached copy serves
    assert len(datasets.load_named("tiny")) == 500


def test_a_corrupt_download_is_refused_and_not_kept(mirror: tuple[Path, Path]) -> None:
    root, cache = mirror
    (root / "sub dir" / "tiny.csv").write_bytes(b"ppb,runtime\n1,2\n")
    with pytest.raises(InputError, match="is not the published file .*SHA-256"):
        datasets.data_path("tiny")
    assert list(cache.iterdir()) == []  # neither the final name nor a partial file


def test_offline_says_where_to_put_the_file(mirror: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    _, cache = mirror
    monkeypatch.setenv("STARCHART_DATA_MIRROR", "http://127.0.0.1:9/")  # the discard port: refused at once
    with pytest.raises(InputError, match="could not download dataset 'tiny'") as info:
        datasets.data_path("tiny")
    assert str(cache / "tiny.csv") in (info.value.hint or "")
    with pytest.raises(InputError, match="not downloaded yet"):
        datasets.data_path("tiny", download=False)


@pytest.mark.parametrize("name", [n for n, r in datasets.DATASETS.items() if not r.bundled])
def test_fetched_records_match_the_shared_copies(name: str, shared_dataset) -> None:
    """The checksums the fetchers check are those of the files the project's tests and benchmarks use."""
    data = shared_dataset(FETCHED_COPIES[name]).read_bytes()
    record = datasets.DATASETS[name]
    assert (hashlib.sha256(data).hexdigest(), len(data)) == (record.sha256, record.size)


@pytest.mark.parametrize("call, name", [
    (lambda: datasets.load_named("gemm", data_home=5), "data_home"),
    (lambda: datasets.fetch_gemm(data_home=b"cache"), "data_home"),
    (lambda: datasets.data_path("kmeans", data_home=5), "data_home"),
    (lambda: datasets.get_data_home(""), "data_home"),
    (lambda: datasets.data_path("gemm", download="no"), "download"),
    (lambda: datasets.load_named(["gemm"]), "name"),
    (lambda: datasets.describe({"gemm": 1}), "name"),
], ids=["load_named-int", "fetch-bytes", "bundled-int", "empty", "download-text", "name-list", "describe-dict"])
def test_arguments_of_the_wrong_kind_are_refused_naming_them(call, name) -> None:
    """Before: Path(5) raised TypeError, a list as name "unhashable type", and download='no' downloaded."""
    with pytest.raises(InputError) as caught:
        call()
    assert caught.value.param == name
