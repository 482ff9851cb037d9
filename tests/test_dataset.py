"""Dataset: construction, validation and the views other modules rely on."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from starchart.dataset import STATUSES, Dataset
from starchart.errors import InputError


def small_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "bx": [16, 32, 64, 128],
        "by": [1, 2, 1, 2],
        "time": [2.0, 1.0, None, 0.5],
        "power": [100.0, 120.0, None, 150.0],
        "status": ["ok", "ok", "compile", "ok"],
    })


def test_from_frame_splits_params_metrics_and_status():
    ds = Dataset.from_frame(small_frame(), metrics=["time", "power"])
    assert ds.params == ["bx", "by"]
    assert ds.metrics == ["time", "power"]
    assert ds.valid.tolist() == [True, True, False, True]
    assert ds.status.tolist() == ["ok", "ok", "compile", "ok"]
    assert ds.reason.tolist() == ["", "", "", ""]
    assert ds.frame["time"].dtype == np.float64
    assert len(ds) == 4


def test_default_metrics_are_found_by_name():
    ds = Dataset.from_frame(small_frame())
    assert ds.metrics == ["time", "power"]
    assert ds.default_metric == "time"


def test_without_status_column_every_row_is_ok():
    ds = Dataset.from_frame(pd.DataFrame({"a": [1, 2], "runtime": [0.1, 0.2]}))
    assert ds.valid.all()
    assert set(ds.status) <= set(STATUSES)


def test_status_given_as_sequence():
    ds = Dataset.from_frame(pd.DataFrame({"a": [1, 2], "time": [0.1, None]}), status=["ok", "timeout"])
    assert ds.status.tolist() == ["ok", "timeout"]


def test_views_ok_sample_X_y():
    ds = Dataset.from_frame(small_frame())
    ok = ds.ok()
    assert len(ok) == 3 and ok.valid.all()
    assert ok.X.columns.tolist() == ["bx", "by"]
    assert ok.y().tolist() == [2.0, 1.0, 0.5]
    assert ok.y("power").tolist() == [100.0, 120.0, 150.0]
    a, b = ds.sample(2, seed=3), ds.sample(2, seed=3)
    assert a.frame.index.tolist() == b.frame.index.tolist() and len(a) == 2
    assert ds.meta is not ok.meta  # subsets do not share mutable provenance


def test_default_metric_prefers_objective():
    ds = Dataset.from_frame(small_frame(), meta={"objective": "power"})
    assert ds.default_metric == "power"


def test_repr_is_short_and_informative():
    ds = Dataset.from_frame(small_frame(), meta={"kernel_name": "k", "device_name": "gpu"})
    text = repr(ds)
    assert "4 configurations, 3 valid" in text and "'k'" in text and "'gpu'" in text


def test_to_frame_and_repeats():
    df = small_frame()
    df["repeats_time"] = [[2.0, 2.0], [1.0], None, [0.5]]
    ds = Dataset.from_frame(df)
    assert ds.repeats["time"].iloc[0] == [2.0, 2.0]
    assert "repeats_time" not in ds.to_frame().columns
    assert "repeats_time" in ds.to_frame(repeats=True).columns
    assert "repeats_time" not in ds.params


def test_duplicate_configuration_is_named():
    df = pd.DataFrame({"a": [1, 2, 1], "b": [5, 5, 5], "time": [1.0, 2.0, 3.0]})
    with pytest.raises(InputError, match=r"configuration \{'a': 1, 'b': 5\} appears more than once \(rows 0 and 2\)"):
        Dataset.from_frame(df, meta={"source": "x.csv"})


def test_non_numeric_metric_names_column_and_file():
    df = pd.DataFrame({"a": [1, 2], "time": ["1.0", "fast"]})
    with pytest.raises(InputError) as err:
        Dataset.from_frame(df, meta={"source": "runs.csv"})
    assert "'time'" in str(err.value) and "runs.csv" in str(err.value) and "'fast'" in str(err.value)


def test_numeric_strings_are_accepted_as_metrics():
    ds = Dataset.from_frame(pd.DataFrame({"a": [1, 2], "time": ["1.5", "2"]}))
    assert ds.y().tolist() == [1.5, 2.0]


def test_unknown_status_is_rejected():
    df = pd.DataFrame({"a": [1, 2], "time": [1.0, 2.0], "status": ["ok", "crashed"]})
    with pytest.raises(InputError, match="unknown status 'crashed' in row 1"):
        Dataset.from_frame(df)


def test_statuses_are_read_in_any_case():
    df = pd.DataFrame({"a": [1, 2, 3], "time": [1.0, 2.0, 3.0], "status": ["OK", " Timeout", "Wrong-Answer"]})
    ds = Dataset.from_frame(df)
    assert ds.status.tolist() == ["ok", "timeout", "wrong-answer"]
    assert ds.valid.tolist() == [True, False, False]


def test_missing_column_and_missing_metrics():
    with pytest.raises(InputError, match="no column named 'speed'"):
        Dataset.from_frame(pd.DataFrame({"a": [1], "time": [1.0]}), metrics=["speed"])
    with pytest.raises(InputError, match=r"metrics=\[\.\.\.\]"):
        Dataset.from_frame(pd.DataFrame({"a": [1], "b": [1.0]}))


def test_missing_parameter_value_is_named():
    df = pd.DataFrame({"a": [1, None], "time": [1.0, 2.0]})
    with pytest.raises(InputError, match="parameter 'a' has no value in row 1"):
        Dataset.from_frame(df)


def test_sample_too_many():
    ds = Dataset.from_frame(small_frame())
    with pytest.raises(InputError, match="cannot sample 9"):
        ds.sample(9)


def test_y_of_unknown_metric():
    with pytest.raises(InputError, match="no metric named 'energy'"):
        Dataset.from_frame(small_frame()).y("energy")
