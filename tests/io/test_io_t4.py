"""T4 results files: the convolution twin, statuses, units, writing."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from shared_data import dataset_path

from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.io.load import load
from starchart.io.t4 import read, write_t4


def test_t4_twin_matches_the_cache():
    t4 = load(dataset_path("convolution/A100_T4.json.gz"))
    cache = load(dataset_path("convolution/A100.json.gz"))
    assert t4.meta["format"] == "t4"
    assert len(t4) == 4362 and int(t4.valid.sum()) == 4201
    assert t4.params == cache.params
    merged = t4.to_frame(repeats=True).merge(cache.to_frame(), on=cache.params, suffixes=("_t4", "_kt"))
    assert len(merged) == 4362
    assert (merged["status_t4"] == merged["status_kt"]).all()
    ok = merged[merged["status_t4"] == "ok"]
    assert len(ok) == 4201
    # the mean of the T4 runtimes per configuration is the cache's time
    assert np.allclose(ok["repeats_time"].map(np.mean), ok["time_kt"], rtol=1e-9)
    assert np.allclose(ok["time_t4"], ok["time_kt"], rtol=1e-12)
    assert np.allclose(merged["compile_time_t4"], merged["compile_time_kt"])


def t4_doc(results: list[dict], timeunit: str = "milliseconds") -> dict:
    return {"schema_version": "1.0.0", "metadata": {"timeunit": timeunit}, "results": results}


def result(x: int, runtimes: list[float], invalidity: str = "correct", **measured) -> dict:
    return {"configuration": {"x": x}, "times": {"runtimes": runtimes, "compilation": 10.0},
            "invalidity": invalidity, "correctness": 1,
            "measurements": [{"name": k, "value": v, "unit": ""} for k, v in measured.items()]}


def test_invalidity_statuses_and_time_from_runtimes(tmp_path):
    doc = t4_doc([result(1, [1.0, 2.0]), result(2, [], "compile"), result(3, [], "runtime"),
                  result(4, [], "timeout"), result(5, [5.0], "correctness"), result(6, [], "constraints")])
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    ds = read(path)
    assert ds.status.tolist() == ["ok", "compile", "runtime", "timeout", "wrong-answer", "invalid"]
    assert ds.y()[0] == 1.5 and np.isnan(ds.y()[1:]).all()
    assert ds.frame["compile_time"].tolist() == [10.0] * 6


def test_seconds_are_converted_to_ms(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(t4_doc([result(1, [0.001, 0.003], power=50.0)], timeunit="seconds")))
    ds = read(path)
    assert ds.y("time")[0] == pytest.approx(2.0)
    assert ds.y("power")[0] == 50.0
    assert ds.frame["compile_time"][0] == pytest.approx(10_000.0)


def test_unknown_invalidity_names_result(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(t4_doc([result(1, [1.0]), result(2, [1.0], "exploded")])))
    with pytest.raises(InputError, match=r"r\.json, key 'results\[1\]': unknown invalidity 'exploded'"):
        read(path)


def test_broken_t4_names_line(tmp_path):
    path = tmp_path / "r.json"
    text = json.dumps(t4_doc([result(1, [1.0]), result(2, [2.0])]), indent=1)
    path.write_text(text.replace('"invalidity": "correct",', '"invalidity": "correct"', 1))
    with pytest.raises(InputError, match=r"r\.json, line \d+: invalid JSON"):
        load(path)


def test_round_trip_real(tmp_path):
    ds = load(dataset_path("convolution/A6000.json.gz"))
    write_t4(ds, tmp_path / "a6000_t4.json.gz")
    back = load(tmp_path / "a6000_t4.json.gz")
    assert back.meta["format"] == "t4"
    assert back.params == ds.params and sorted(back.metrics) == sorted(ds.metrics)
    pd.testing.assert_frame_equal(back.to_frame()[ds.to_frame().columns], ds.to_frame())
    for key in ("device_name", "kernel_name", "problem_size", "objective"):
        assert back.meta[key] == ds.meta[key]


def test_round_trip_keeps_every_status_and_reason(tmp_path):
    df = pd.DataFrame({"x": [1, 2, 3, 4], "time": [1.0, None, None, 2.0],
                       "status": ["ok", "timeout", "compile", "wrong-answer"],
                       "reason": ["", "took > 10 s", "", "bad output"]})
    ds = Dataset.from_frame(df)
    ds.to_t4(tmp_path / "r.json")
    back = load(tmp_path / "r.json")
    assert back.status.tolist() == ds.status.tolist()
    # a failed objective carries the reason; with a measured objective only the invalidity is left
    assert back.reason.tolist() == ["", "took > 10 s", "CompilationFailedConfig", "correctness"]


def measured(x: int, *measurements: dict, objectives: list[str] | None = None) -> dict:
    out = {"configuration": {"x": x}, "times": {"runtimes": [1.0]}, "invalidity": "correct",
           "measurements": list(measurements)}
    if objectives is not None:
        out["objectives"] = objectives
    return out


@pytest.mark.parametrize("name, message", [
    ("time", r"the measurement 'time' appears twice \(measurements\[0\] and \[1\]\)"),
    ("x", "the measurement 'x' has the name of a parameter of the configuration"),
    ("status", "the measurement 'status' has the name of a column starchart makes"),
], ids=["twice", "a-parameter", "status"])
def test_a_measurement_name_given_twice_in_a_result_is_refused(tmp_path, name, message):
    """Before: the second value overwrote the first (or the parameter, or the status) without a word."""
    path = tmp_path / "r.json"
    first = {"name": "time", "value": 1.0, "unit": "ms"}
    path.write_text(json.dumps(t4_doc([measured(1, first), measured(2, first, {"name": name, "value": 9.0})])))
    with pytest.raises(InputError, match=rf"r\.json, key 'results\[1\]'\.measurements\[1\]: {message}"):
        read(path)


def test_a_measurement_in_two_time_units_is_converted_to_one(tmp_path):
    """Before: seconds in one result and milliseconds in the next were one column of mixed values."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps(t4_doc([measured(1, {"name": "kernel_time", "value": 0.002, "unit": "s"}),
                                       measured(2, {"name": "kernel_time", "value": 3.0, "unit": "ms"}),
                                       measured(3, {"name": "kernel_time", "value": 4000.0, "unit": "us"})])))
    ds = read(path)
    assert ds.y("kernel_time").tolist() == pytest.approx([0.002, 0.003, 0.004])
    assert ds.meta["units"]["kernel_time"] == "s"


def test_a_measurement_in_two_units_that_do_not_convert_is_refused(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(t4_doc([measured(1, {"name": "time", "value": 1.0, "unit": "furlongs"}),
                                       measured(2, {"name": "time", "value": 1.5, "unit": "ms"})])))
    with pytest.raises(InputError, match=r"r\.json, key 'results\[1\]'\.measurements\[0\]: the measurement 'time' "
                                         r"is in 'ms' here but in 'furlongs' in results\[0\]"):
        read(path)


def test_a_parameter_named_like_the_status_is_refused(tmp_path):
    """Before: a configuration key "status" was overwritten by the result's status."""
    path = tmp_path / "r.json"
    result = measured(1, {"name": "time", "value": 1.0})
    result["configuration"]["status"] = 3
    path.write_text(json.dumps(t4_doc([result])))
    with pytest.raises(InputError, match=r"r\.json, key 'results\[0\]'\.configuration: the parameter 'status' has "
                                         "the name of a column starchart makes"):
        read(path)


def test_an_objective_in_no_result_is_named_with_the_metric_modelled_instead(tmp_path):
    from starchart.io.load import NothingToModelWarning

    path = tmp_path / "r.json"
    path.write_text(json.dumps(t4_doc([measured(1, {"name": "power", "value": 5.0}, objectives=["energy"]),
                                       measured(2, {"name": "power", "value": 6.0})])))
    with pytest.warns(NothingToModelWarning, match=r"r\.json, key 'results\[0\]\.objectives': the objective 'energy' "
                                                   r"is in no result; modelling 'time' by default instead"):
        ds = load(path)
    assert ds.default_metric == "time"
