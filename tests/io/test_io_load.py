"""starchart.load: format detection, forcing a reader, and errors that name the file."""

from __future__ import annotations

import gzip
import json

import pytest
from shared_data import dataset_path

from starchart.errors import InputError
from starchart.io.load import detect_format, load


@pytest.mark.parametrize("rel, fmt", [
    ("convolution/A100.json.gz", "kernel_tuner"),
    ("convolution/A100_T4.json.gz", "t4"),
    ("ktt/KTConvolutionOutput_2080Ti.json.gz", "ktt"),
    ("starchart_kmeans/kmeans_hd7970.csv", "csv"),
    ("kernel_tuner_fixtures/test_cache_file.json", "kernel_tuner"),
])
def test_detects_real_formats(rel, fmt):
    path = dataset_path(rel)
    text = gzip.decompress(path.read_bytes()).decode() if rel.endswith(".gz") else path.read_text()
    assert detect_format(path, text) == fmt


def test_csv_detected_by_content_without_suffix(tmp_path):
    path = tmp_path / "measurements.dat"
    path.write_text("a,time\n1,2.0\n")
    assert load(path).metrics == ["time"]


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match=r"nope\.json: file not found"):
        load(tmp_path / "nope.json")


def test_empty_file(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text("")
    with pytest.raises(InputError, match=r"empty\.json: file is empty"):
        load(path)


def test_unknown_format_lists_supported(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"foo": 1}))
    with pytest.raises(InputError) as err:
        load(path)
    message = str(err.value)
    assert "other.json" in message and "unknown file format" in message
    for name in ("Kernel Tuner", "T4", "KTT", "CSV"):
        assert name in message
    path = tmp_path / "notes.txt"
    path.write_text("just some words\n")
    with pytest.raises(InputError, match=r"notes\.txt: unknown file format"):
        load(path)


def test_forced_format(tmp_path):
    path = tmp_path / "data.txt"
    path.write_text("a;time\n1;2.0\n")
    assert load(path, format="csv").y().tolist() == [2.0]
    with pytest.raises(InputError, match=r"data\.txt: unknown format 'xml'.*kernel_tuner, t4, ktt, csv"):
        load(path, format="xml")
    with pytest.raises(InputError, match=r"not a Kernel Tuner cache"):
        load(dataset_path("convolution/A100_T4.json.gz"), format="kernel-tuner")


def test_option_for_wrong_format(tmp_path):
    with pytest.raises(InputError, match=r"option\(s\) \['sep'\] do not apply to the kernel_tuner format"):
        load(dataset_path("kernel_tuner_fixtures/test_cache_file.json"), sep=";")


def test_broken_json_names_file_and_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n"results": [\n{"configuration": {"x": 1},}\n]\n}')
    with pytest.raises(InputError, match=r"bad\.json, line 3"):
        load(path)


def test_gemm_loads_whole():
    # how fast is benchmarks/scale.py's to say (a test asserts no wall time)
    ds = load(dataset_path("gemm/RTX_3090.json.gz"))
    assert len(ds) == 17956 and int(ds.valid.sum()) == 17956


def test_a_store_loads_by_its_header_whatever_its_name(tmp_path):
    import starchart
    from starchart.measure import PythonEvaluator

    space = starchart.Space({"x": [1, 2, 3, 4], "y": ["a", "b"]})
    store = tmp_path / "study.results"  # not a .db name: the SQLite header decides
    starchart.run(space, PythonEvaluator(lambda c: c["x"] * (2 if c["y"] == "b" else 1)), samples=8, store=store,
                  seed=0, progress=False)
    ds = load(store)
    assert len(ds) == 8 and ds.params == ["x", "y"] and ds.meta["format"] == "starchart-store"
    assert sorted(ds.y().tolist()) == [1, 2, 2, 3, 4, 4, 6, 8]
    with pytest.raises(InputError, match="takes no format"):
        load(store, format="csv")


@pytest.mark.parametrize("options, message", [
    ({"metrics": 5}, "metrics=5 must be a list of column names"),
    ({"metrics": []}, "metrics=[] names no column"),
    ({"params": ["a", 2]}, "must be a list of column names"),
    ({"sep": 5}, "sep=5 must be a non-empty string"),
    ({"sep": ""}, "sep='' must be a non-empty string"),
    ({"sep": "\n"}, "holds a line break, which ends the rows of a CSV file"),
    ({"sep": ";\r"}, "holds a line break, which ends the rows of a CSV file"),
], ids=["metrics-int", "metrics-empty", "params-not-names", "sep-int", "sep-empty", "sep-newline", "sep-return"])
def test_reader_options_of_the_wrong_type_are_named(tmp_path, options, message):
    """They raised a bare TypeError inside the reader (pandas' ValueError for a line break), or were accepted and
    read the file as something else."""
    path = tmp_path / "d.csv"
    path.write_text("a,time\n1,0.5\n2,0.7\n")
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")) as info:
        load(path, **options)
    assert str(path) in str(info.value)


def test_one_metric_may_be_named_as_a_string(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,time\n1,3,0.5\n2,4,0.7\n")
    assert load(path, metrics="time").metrics == ["time"]
