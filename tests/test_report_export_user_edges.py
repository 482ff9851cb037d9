"""`starchart report` and `starchart export` on what a GPU performance engineer hands them: a maximised metric
with a neutral name, GFLOP/s beside a time column, failed configurations, units other than ms, all-failed data,
huge spaces. Each test is a defect that was found by using the commands and then fixed."""

from __future__ import annotations

import json
import re
from html import unescape

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import starchart
from starchart._util.direction import lower_is_better
from starchart.cli import app
from starchart.dataset import Dataset
from starchart.measure import PythonEvaluator
from starchart.report.plots import metric_label

FORMATS = ("out.csv", "out.json", "out.t4.json")


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def score(config):
    """A maximised metric whose name says nothing about its direction (module level: stores record it)."""
    return float(10 * config["x"] + config["y"])


def gflops_and_time(config):
    t = 1.0 + abs(config["x"] - 3) + 0.1 * config["y"]
    return {"GFLOP/s": 100.0 / t, "time": t}


def _text(path) -> str:
    """The report's text without its figures and tags, entities decoded."""
    page = re.sub(r"<svg.*?</svg>", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    return unescape(re.sub(r"<[^>]+>", " ", page))


# ------------------------------------------------------------------ export: objective and direction
def test_export_keeps_a_maximised_objective_maximised(tmp_path):
    """`starchart export score.db -o out.{csv,json,t4.json}` of a study run with --maximize on "score": every file
    read back minimised it (none recorded the direction), so a tree's "best" region was the worst one."""
    store = tmp_path / "score.db"
    space = starchart.Space({"x": [1, 2, 3, 4, 5], "y": [1, 2, 3]})
    starchart.run(space, PythonEvaluator(score, metrics="score", minimize=False), samples=15, store=store, seed=1, progress=False)
    assert lower_is_better("score", starchart.load(store).meta) is False
    for name in FORMATS:
        assert invoke("export", store, "-o", tmp_path / name).exit_code == 0
        back = starchart.load(tmp_path / name)
        assert back.default_metric == "score", name
        assert lower_is_better("score", back.meta) is False, name


def test_csv_export_keeps_the_objective_beside_a_time_column(tmp_path):
    """A study of GFLOP/s that also records the time: its CSV read back with "time" as the objective
    (the reader's default when a "time" column exists), minimised, where the cache and T4 kept GFLOP/s."""
    store = tmp_path / "g.db"
    space = starchart.Space({"x": [1, 2, 3, 4, 5], "y": [1, 2, 3]})
    starchart.run(space, PythonEvaluator(gflops_and_time), samples=15, store=store, seed=1, progress=False)
    assert starchart.load(store).default_metric == "GFLOP/s"
    assert invoke("export", store, "-o", tmp_path / "g.csv").exit_code == 0
    back = starchart.load(tmp_path / "g.csv")
    assert back.default_metric == "GFLOP/s" and lower_is_better("GFLOP/s", back.meta) is False


def test_a_broken_direction_in_a_cache_header_names_the_key(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"tune_params_keys": ["x"], "tune_params": {"x": [1, 2]}, "objective": "score",
                                "objective_higher_is_better": "yes",
                                "cache": {"1": {"x": 1, "score": 1.0}, "2": {"x": 2, "score": 2.0}}}))
    with pytest.raises(starchart.InputError, match="objective_higher_is_better") as info:
        starchart.load(path)
    assert "c.json" in str(info.value)


# ------------------------------------------------------------------ export: values
def test_kernel_tuner_export_does_not_invent_timings_of_failed_configurations(tmp_path):
    """A search store of the convolution cache (failures have no compile/benchmark time): its cache read back
    with compile_time = 0 ms for every failure — the zeros Kernel Tuner's simulation mode needs, taken
    for measurements."""
    frame = pd.DataFrame({"x": [1, 2, 3], "time": [1.0, np.nan, 2.0], "compile_time": [900.0, np.nan, 800.0],
                          "status": ["ok", "compile", "ok"], "reason": ["", "nvcc error", ""]})
    ds = Dataset.from_frame(frame, metrics=["time", "compile_time"])
    ds.to_kernel_tuner(tmp_path / "c.json")
    back = starchart.load(tmp_path / "c.json")
    assert back.metrics == ["time", "compile_time"]
    pd.testing.assert_frame_equal(back.to_frame(), ds.to_frame())
    entry = json.loads((tmp_path / "c.json").read_text())["cache"]["2"]
    assert entry["compile_time"] == 0  # still there for Kernel Tuner


# ------------------------------------------------------------------ T4 units
def test_t4_export_labels_each_metric_with_its_own_unit(tmp_path):
    """`starchart export ts.db -o out.t4.json` of a command timed in seconds (metric time_s) labelled it "ms",
    as it did every metric whose name starts with "time"; a unitless score must not get a unit either."""
    frame = pd.DataFrame({"x": [1, 2], "time": [1.5, 2.5], "time_s": [0.0015, 0.0025], "timeouts": [0.0, 1.0],
                          "wattage": [200.0, 210.0]})
    ds = Dataset.from_frame(frame, metrics=["time", "time_s", "timeouts", "wattage"])
    ds.to_t4(tmp_path / "o.t4.json")
    doc = json.loads((tmp_path / "o.t4.json").read_text())
    units = {m["name"]: m["unit"] for m in doc["results"][0]["measurements"]}
    assert units == {"time": "ms", "time_s": "s", "timeouts": "", "wattage": "W"}
    back = starchart.load(tmp_path / "o.t4.json")
    pd.testing.assert_frame_equal(back.to_frame()[ds.metrics], ds.to_frame()[ds.metrics])


def _t4(path, measurements, timeunit="milliseconds"):
    results = [{"configuration": {"x": x}, "times": {}, "invalidity": "correct", "correctness": 1,
                "measurements": [{"name": n, "value": v * x, "unit": u} for n, v, u in measurements]}
               for x in (1, 2)]
    path.write_text(json.dumps({"schema_version": "1.0.0", "metadata": {"timeunit": timeunit}, "results": results}))
    return path


def test_t4_reader_takes_a_measurement_in_its_own_unit(tmp_path):
    """A T4 file whose time says "ms" in a file timed in seconds was multiplied by 1000, and one whose time
    says "us" was kept as it was and then shown as ms: a measurement's own unit is the one that holds."""
    ds = starchart.load(_t4(tmp_path / "a.t4.json", [("time", 1.5, "ms")], timeunit="seconds"))
    assert ds.y("time").tolist() == [1.5, 3.0]
    ds = starchart.load(_t4(tmp_path / "b.t4.json", [("time", 1500.0, "us")]))
    assert ds.y("time").tolist() == [1.5, 3.0]
    ds = starchart.load(_t4(tmp_path / "c.t4.json", [("time", 1.5, "")], timeunit="seconds"))
    assert ds.y("time").tolist() == [1500.0, 3000.0]  # unitless: the metadata's unit, as before


def test_report_labels_a_metric_with_the_unit_its_file_states(tmp_path):
    """A T4 file's "energy" in mJ was reported in J (the unit its name suggests), 1000× off."""
    path = _t4(tmp_path / "e.t4.json", [("time", 1.0, "ms"), ("energy", 3.0, "mJ")])
    assert starchart.load(path).meta["units"]["energy"] == "mJ"
    assert invoke("report", path, "--metric", "energy", "-o", tmp_path / "r.html").exit_code == 0
    text = _text(tmp_path / "r.html")
    assert "energy (mJ)" in text and "3 mJ" in text and "energy (J)" not in text
    starchart.load(path).to_t4(tmp_path / "again.t4.json")  # and the unit survives a T4 round trip
    assert starchart.load(tmp_path / "again.t4.json").meta["units"]["energy"] == "mJ"


def test_t4_export_of_an_all_failed_study_reads_back(tmp_path):
    """`starchart export allfail.db -o x.t4.json` (every run failed): loading the file said "dataset has no
    metrics", where the cache and CSV of the same study load with their objective."""
    frame = pd.DataFrame({"x": [1, 2], "time": [np.nan, np.nan], "status": ["runtime", "compile"],
                          "reason": ["exit status 1", "nvcc error"]})
    ds = Dataset.from_frame(frame, metrics=["time"])
    ds.to_t4(tmp_path / "f.t4.json")
    back = starchart.load(tmp_path / "f.t4.json")
    assert back.metrics == ["time"] and back.status.tolist() == ["runtime", "compile"]
    assert back.reason.tolist() == ["exit status 1", "nvcc error"]


# ------------------------------------------------------------------ report content
def test_report_states_how_well_its_tree_predicts(tmp_path):
    """Every tree the CLI prints states its cross-validated error; the report's tree did not, so a reader
    could not tell a 2 % tree from a 40 % one. It now says the same figure `starchart tree` prints."""
    rng = np.random.default_rng(0)
    x = rng.integers(1, 9, 60)
    frame = pd.DataFrame({"x": x, "y": rng.integers(1, 4, 60), "time": 10.0 / x + rng.normal(0, 0.05, 60)})
    frame = frame.drop_duplicates(["x", "y"])
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    tree = invoke("tree", path, "--metric", "time")
    said = re.search(r"predicts unseen configurations within [\d.]+ % median error \(\d-fold CV\)", tree.output)
    assert said, tree.output
    assert invoke("report", path, "-o", tmp_path / "r.html").exit_code == 0
    assert said.group(0) in _text(tmp_path / "r.html")


def test_report_of_all_failed_data_says_they_failed_and_why(tmp_path):
    """`starchart report allfail.db` said "fewer than 2 valid measurements ... measure more configurations
    first": measuring more of a kernel that fails everywhere does not help."""
    store = tmp_path / "f.db"
    space = starchart.Space({"x": [1, 2, 3]})
    starchart.run(space, PythonEvaluator(_always_fails), samples=3, store=store, seed=1, progress=False)
    result = invoke("report", store, "-o", tmp_path / "r.html")
    assert result.exit_code != 0
    message = " ".join(result.output.split())
    assert "all 3 configurations failed" in message and "out of registers" in message
    assert "measure more" not in message and "Traceback" not in result.output


def _always_fails(config):
    raise RuntimeError("out of registers")


def test_report_of_a_huge_space_does_not_say_none_of_it_was_measured(tmp_path):
    """40 configurations of a 29-million-point space showed "0.00% of the space measured", which reads as none."""
    space = starchart.Space({"a": list(range(1, 101)), "b": list(range(1, 101)), "c": list(range(1, 101)),
                             "d": list(range(1, 31))}, ["a % b == 0"])
    store = tmp_path / "h.db"
    starchart.run(space, PythonEvaluator(lambda c: float(c["a"] + c["c"])), samples=40, store=store, seed=1,
                  progress=False)
    assert invoke("report", store, "-o", tmp_path / "r.html").exit_code == 0
    cards = {label: value for value, label in re.findall(
        r'<div class="value">([^<]*)</div><div class="label">([^<]*)</div>', (tmp_path / "r.html").read_text())}
    share = 40 / space.size()
    assert cards["of the space measured"] == f"{100 * share:.2g}%" != "0.00%"


def test_a_metric_named_as_its_unit_is_not_labelled_twice():
    """The report said "GFLOP/s (GFLOP/s), higher is better" and "GFLOP/s (GFLOP/s)" on the plots' axes."""
    assert metric_label("GFLOP/s") == "GFLOP/s" and metric_label("time") == "time (ms)"
    assert metric_label("time_s") == "time_s (s)"


def test_report_of_an_unfinished_cache_says_so(tmp_path):
    """The CLI warns on stderr that a cache was left unfinished by a crashed run; the page, which is what
    gets shared, did not say that it shows part of the run."""
    path = tmp_path / "u.json"
    entries = ",\n".join(f'"{x}": {{"x": {x}, "time": {1.0 + x % 3}}}' for x in range(1, 13))
    path.write_text('{"tune_params_keys": ["x"], "tune_params": {"x": [1, 2]}, "cache": {\n' + entries
                    + ',\n"13": {"x": 13, "ti')
    with pytest.warns(UserWarning, match="unfinished"):
        assert invoke("report", path, "-o", tmp_path / "r.html").exit_code == 0
    assert "the tuning run did not complete" in _text(tmp_path / "r.html")
