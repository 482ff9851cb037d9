"""A demanding user's large studies: reading a store costs a few bulk steps, not work per result.

``benchmarks/scale.py`` measures the seconds and memory at 200,000 results; these tests guard the shape
of the work without timing it: how many JSON decoding calls and reads of the results table a step makes
(constant, where it was one per result and column, and two reads for ``starchart export``), and that
the faster paths give exactly what the per-result ones gave.
"""

from __future__ import annotations

import json
import math
import sqlite3

import numpy as np
import pandas as pd
import pytest

from starchart._util.configs import config_key
from starchart.dataset import REPEATS_PREFIX, Dataset
from starchart.errors import InputError
from starchart.io import csv as csv_io
from starchart.io import kernel_tuner
from starchart.measure import Measurement
from starchart.measure.base import mean_of
from starchart.study.store import Store


def _measurements(n: int, seed: int = 1) -> list[Measurement]:
    """``n`` distinct configurations of 6 parameters, 5 repeats of two metrics, about 5 % failed."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        config = {"bx": int(2 ** (4 + i % 6)), "by": int(i // 6 % 8), "tile": int(i // 48), "unroll": i % 3,
                  "shared": bool(i % 2), "precision": ["f32", "f16"][i % 2]}
        if rng.random() < 0.05:
            out.append(Measurement.failure(config, "runtime", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"))
        else:
            out.append(Measurement(config, values={"time": rng.random(5).tolist(), "power": rng.random(5).tolist()}))
    return out


def _store(path, measurements) -> None:
    with Store.open(path) as store:
        store.put("evaluator", {"kind": "python", "metrics": ["time", "power"]})
        store.put("space", {"parameters": {"bx": [16, 32, 64, 128, 256, 512], "by": list(range(8)),
                                           "tile": list(range(100)), "unroll": [0, 1, 2],
                                           "shared": [False, True], "precision": ["f32", "f16"]}})
        with store.transaction():
            for m in measurements:
                store.add(m)


def _reference_dataset(store: Store) -> Dataset:
    """What ``Store.to_dataset`` computed before it read in bulk: one Measurement and one key per result."""
    measurements = list(store.measurements())
    evaluator = store.get("evaluator") or {}
    space = store.get("space") or {}
    params = list(space.get("parameters", {}))
    if not params:
        for m in measurements:
            params += [k for k in m.config if k not in params]
    metrics = list(evaluator.get("metrics", []))
    measured: list[str] = []
    for m in measurements:
        measured += [k for k in m.values if k not in measured]
    if evaluator.get("learn_metrics") and measured:
        metrics = []
    metrics += [k for k in measured if k not in metrics]
    rows, seen = [], set()
    for m in measurements:
        key = config_key(m.config, params)
        if key in seen:
            continue
        seen.add(key)
        summary = m.summary()
        row = {p: m.config.get(p) for p in params}
        row.update({k: summary.get(k, float("nan")) for k in metrics})
        row.update({REPEATS_PREFIX + k: m.values.get(k, []) for k in metrics})
        row.update(status=m.status, reason=m.reason)
        rows.append(row)
    columns = [*params, *metrics, "status", "reason", *(REPEATS_PREFIX + k for k in metrics)]
    frame = pd.DataFrame(rows, columns=columns)
    meta = store._dataset_meta(evaluator, space, metrics, duplicates=len(measurements) - len(rows))  # unchanged
    return Dataset.from_frame(frame, params=params, metrics=metrics, meta=meta)


def _same(a: Dataset, b: Dataset) -> None:
    assert (a.params, a.metrics) == (b.params, b.metrics)
    pd.testing.assert_frame_equal(a.frame, b.frame, check_dtype=True, check_exact=True)
    assert json.dumps(a.meta, sort_keys=True, default=str) == json.dumps(b.meta, sort_keys=True, default=str)


def _same_refusal(store: Store) -> str:
    """The error reading ``store`` gives, which the per-result code gave too."""
    with pytest.raises(InputError) as new:
        store.to_dataset()
    with pytest.raises(InputError) as old:
        _reference_dataset(store)
    assert str(new.value) == str(old.value)
    return str(new.value)


class _Counting:
    """Counts the calls of ``json.loads`` while it is installed."""

    def __init__(self, monkeypatch):
        self.calls = 0
        original = json.loads

        def loads(*args, **kwargs):
            self.calls += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(json, "loads", loads)


# ---------------------------------------------------------------------- reading a store: same result, in bulk
def test_to_dataset_decodes_in_a_few_calls_not_three_per_result(tmp_path, monkeypatch):
    path = tmp_path / "study.db"
    _store(path, _measurements(3000))
    with Store.open(path, read_only=True) as store:
        counting = _Counting(monkeypatch)
        dataset = store.to_dataset()
    assert len(dataset) == 3000
    # the study's metadata (evaluator, space, plan, sessions...) is a handful of values; the old code decoded
    # the configuration, the repeats and the extras of every result on top: 9,000 calls here
    assert counting.calls < 30, f"{counting.calls} json.loads calls for 3,000 results"


def test_measurements_decode_by_chunks(tmp_path, monkeypatch):
    path = tmp_path / "study.db"
    expected = _measurements(2500)
    _store(path, expected)
    with Store.open(path, read_only=True) as store:
        counting = _Counting(monkeypatch)
        got = list(store.measurements())
    assert counting.calls < 10, f"{counting.calls} json.loads calls for 2,500 results (the old code: 7,500)"
    assert [m.to_dict() for m in got] == [json.loads(json.dumps(m.to_dict())) for m in expected]


def test_export_reads_the_results_once(tmp_path):
    """``starchart export`` writes the file and then counts what it wrote: one read of the table, not two."""
    from typer.testing import CliRunner

    from starchart.cli import app

    path = tmp_path / "study.db"
    _store(path, _measurements(300))
    reads: list[str] = []
    original = Store._open_read_only.__func__

    def traced(cls, where):
        store = original(cls, where)
        store._db.set_trace_callback(lambda sql: reads.append(sql) if "FROM results" in sql else None)
        return store

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Store, "_open_read_only", classmethod(traced))
        result = CliRunner().invoke(app, ["export", str(path), "-o", str(tmp_path / "x.csv")])
    assert result.exit_code == 0, result.output
    assert "wrote 300 configurations" in result.output
    assert len(reads) == 1, reads


def test_to_dataset_is_the_per_result_dataset(tmp_path):
    """Duplicates, 32 and 32.0, booleans, text, NaN and missing repeats, failures, a metric only some
    results carry, a configuration with a parameter the space does not name: as the per-result code read it."""
    path = tmp_path / "study.db"
    nan = float("nan")
    measurements = [
        Measurement({"bx": 32, "on": True, "name": "a"}, values={"time": [1.0, 2.0]}),
        Measurement({"bx": 32.0, "on": True, "name": "a"}, values={"time": [9.0]}),  # the same configuration
        Measurement({"bx": 64, "on": False, "name": "z"}, values={"time": [nan, 1.0], "energy": [3.0]}),
        Measurement.failure({"bx": 128, "on": True, "name": "b"}, "timeout", "timed out after 5 s"),
        Measurement({"bx": 256, "on": False, "name": "c"}, values={"time": []}),
        Measurement({"bx": 512.5, "on": False, "name": "c"}, values={"time": [1e308, 1e308]}),
        Measurement.failure({"bx": 64, "on": False, "name": "z"}, "compile", "again"),  # a duplicate failure
    ]
    with Store.open(path) as store:
        store.put("evaluator", {"kind": "python", "metrics": ["time"], "minimize": True})
        store.put("space", {"parameters": {"bx": [32, 64, 128, 256, 512.5], "on": [True, False],
                                           "name": ["a", "b", "c", "z"]}})
        for m in measurements:
            store.add(m)
    with Store.open(path, read_only=True) as store:
        _same(store.to_dataset(), _reference_dataset(store))
        assert store.to_dataset().meta["duplicates"] == 2
    with Store.open(path) as store:  # a result whose configuration has a parameter more: keyed as before
        store.add(Measurement({"bx": 32, "on": True, "name": "a", "extra": 1}, values={"time": [5.0]}))
        _same(store.to_dataset(), _reference_dataset(store))
    with Store.open(tmp_path / "bare.db") as store:  # no space stored: parameters as the results name them
        for m in measurements:
            store.add(m)
        _same(store.to_dataset(), _reference_dataset(store))
    with Store.open(tmp_path / "learnt.db") as store:  # metrics learnt from a Python function's results
        store.put("evaluator", {"kind": "python", "metrics": ["time"], "learn_metrics": True})
        for m in measurements[2:]:
            store.add(m)
        _same(store.to_dataset(), _reference_dataset(store))
    with Store.open(tmp_path / "empty.db") as store:  # refused as before, in the same words
        assert "no parameter columns" in _same_refusal(store)
        store.put("space", {"parameters": {"bx": [1], "name": ["a"]}})
        _same(store.to_dataset(), _reference_dataset(store))
        store.add(Measurement({"bx": 1, "name": None}, values={"time": [1.0]}))
        assert "parameter 'name' has no value in row 0" in _same_refusal(store)


def test_a_larger_study_reads_as_the_per_result_code_read_it(tmp_path):
    path = tmp_path / "study.db"
    measurements = _measurements(2000, seed=3)
    _store(path, measurements + measurements[:50])  # stored twice by two processes, say
    with Store.open(path, read_only=True) as store:
        dataset = store.to_dataset()
        _same(dataset, _reference_dataset(store))
    assert dataset.meta["duplicates"] == 50


# ---------------------------------------------------------------------- the dataset kept between calls
def test_to_dataset_sees_what_this_and_other_processes_store(tmp_path):
    path = tmp_path / "study.db"
    _store(path, _measurements(100))
    with Store.open(path) as store, Store.open(path, read_only=True) as reader:
        assert len(reader.to_dataset()) == 100
        store.add(Measurement({"bx": 1, "by": 1, "tile": 1, "unroll": 1, "shared": True, "precision": "f32"},
                              values={"time": [1.0]}))  # another connection (another process)
        assert len(reader.to_dataset()) == 101
        assert len(store.to_dataset()) == 101
        store.add(Measurement({"bx": 2, "by": 1, "tile": 1, "unroll": 1, "shared": True, "precision": "f32"},
                              values={"time": [1.0]}))  # this connection
        assert len(store.to_dataset()) == 102
        store.put("evaluator", {"kind": "python", "metrics": ["power", "time"]})  # the study's description
        assert store.to_dataset().metrics[:2] == ["power", "time"]


def test_each_caller_gets_a_dataset_of_its_own(tmp_path):
    path = tmp_path / "study.db"
    _store(path, _measurements(50))
    with Store.open(path, read_only=True) as store:
        first = store.to_dataset()
        first.frame.loc[first.frame.index[0], "time"] = -1.0
        first.frame["bx"] = 0
        first.meta["space"]["parameters"]["bx"].append(4096)
        first.meta["objective"] = "power"
        second = store.to_dataset()
    assert second.frame["time"].iloc[0] != -1.0 and (second.frame["bx"] > 0).all()
    assert 4096 not in second.meta["space"]["parameters"]["bx"] and second.meta["objective"] == "time"
    assert second.meta["tune_params"] is second.meta["space"]["parameters"]  # one value, as before


def test_results_frame_decodes_as_before(tmp_path):
    path = tmp_path / "study.db"
    _store(path, _measurements(40))
    with Store.open(path, read_only=True) as store:
        frame = store.results_frame()
        raw = pd.read_sql_query("SELECT * FROM results ORDER BY id", sqlite3.connect(path))
    for column in ("config", "summary", "repeats", "extra"):
        assert frame[column].dtype == object
        assert frame[column].tolist() == raw[column].map(json.loads).tolist()


# ---------------------------------------------------------------------- the writers' and readers' bulk checks
def test_finite_repeats_drops_exactly_the_nans():
    values = [1.0, float("nan"), np.float64("nan"), np.float64(2.5), 3, "x", None, float("inf"), -0.0]
    assert kernel_tuner.finite_repeats(values) == [r for r in values if not (isinstance(r, float) and np.isnan(r))]


def test_text_and_container_columns_found_as_before():
    columns = [pd.Series([1, 2]), pd.Series([1.5, np.nan]), pd.Series([True, False]), pd.Series(["01", "1"]),
               pd.Series(["a", None]), pd.Series(["a", 1], dtype=object), pd.Series(["a", "b"], dtype="category"),
               pd.Series([[1], {"a": 1}, 2, "x"], dtype=object), pd.Series([1, None], dtype="Int64")]
    for column in columns:
        assert csv_io._all_text(column) == bool(column.map(lambda v: isinstance(v, str)).all())
        assert kernel_tuner._containers(column).tolist() == \
            column.map(lambda v: isinstance(v, (list, dict))).astype(bool).tolist()


def test_exports_leave_out_what_was_not_measured(tmp_path):
    """A metric missing in a valid configuration and NaN repeats: left out of the cache and the T4 file."""
    frame = pd.DataFrame({"x": [1, 2, 3], "time": [1.0, np.nan, np.nan], "power": [np.nan, 5.0, np.nan],
                          "status": ["ok", "ok", "compile"], "reason": ["", "", "ptxas"],
                          "repeats_time": [[1.0, float("nan")], [], [2.0]]})
    ds = Dataset.from_frame(frame, params=["x"], metrics=["time", "power"])
    ds.to_kernel_tuner(tmp_path / "c.json")
    cache = json.loads((tmp_path / "c.json").read_text())["cache"]
    assert "power" not in cache["1"] and cache["1"]["times"] == [1.0]
    assert cache["2"]["time"] == "RuntimeFailedConfig" and cache["2"]["power"] == 5.0
    ds.to_t4(tmp_path / "r.t4.json")
    results = json.loads((tmp_path / "r.t4.json").read_text())["results"]
    assert [m["name"] for m in results[0]["measurements"]] == ["time"] and results[0]["times"]["runtimes"] == [1.0]
    assert [(m["name"], m["value"]) for m in results[2]["measurements"]] == [("time", "ptxas")]


def test_mean_of_is_what_the_dataset_holds(tmp_path):
    """The metric columns are the exact means of the stored repeats (fsum), huge values included."""
    path = tmp_path / "study.db"
    repeats = [0.1] * 10
    with Store.open(path) as store:
        store.add(Measurement({"x": 1}, values={"time": repeats}))
        store.add(Measurement({"x": 2}, values={"time": [1e308, 1e308]}))
        frame = store.to_dataset().frame
    assert frame["time"].tolist() == [mean_of(repeats), 1e308] and not math.isclose(mean_of(repeats), sum(repeats) / 10,
                                                                                     rel_tol=0, abs_tol=0)


# ---------------------------------------------------------------------- resuming a large study
def test_frame_keys_are_the_config_keys():
    """Keys built a column at a time are the per-row keys: 32 and 32.0, -0.0, NaN, booleans, text with quotes
    and non-ASCII, categoricals, a column of mixed Python objects (1, 1.0 and True differ), a subset of names."""
    from starchart._util.configs import frame_keys

    rng = np.random.default_rng(3)
    n = 500
    frame = pd.DataFrame({
        "bx": rng.choice([16, 32, 64], n),
        "f": rng.choice([0.5, 1.0, -0.0, np.nan, 1e300], n),
        "on": rng.choice([True, False], n),
        "s": rng.choice(['a"b', "ü", "x y"], n),
        "c": pd.Categorical(rng.choice(["u", "v"], n)),
        "mixed": pd.Series([[1, 1.0, True, "1", None][i % 5] for i in range(n)], dtype=object),
    })
    rows = frame.to_dict("records")
    assert frame_keys(frame) == [config_key(r) for r in rows]
    assert frame_keys(frame, ["s", "bx"]) == [config_key(r, ["s", "bx"]) for r in rows]
    assert frame_keys(frame.iloc[:0]) == [] and frame_keys(frame[[]]) == ["[]"] * n
    assert len(set(frame_keys(frame[["mixed"]]))) == 4  # 1 and 1.0 are one setting, True and "1" others


def _resumable(tmp_path, n: int, learn: bool):
    from starchart.measure import PythonEvaluator
    from starchart.space import Space
    from starchart.study.runner import run

    space = Space({"x": list(range(60)), "y": list(range(60)), "z": ["a", "b"]})

    def measure(c):
        if (c["x"] + c["y"]) % 17 == 0:
            raise RuntimeError("fails")
        value = (c["x"] - 20) ** 2 + c["y"] + (c["z"] == "b")
        return {"cost": value, "other": -value} if learn else value

    evaluator = PythonEvaluator(measure, minimize=None if learn else True) if learn else PythonEvaluator(measure)
    path = tmp_path / f"study-{learn}.db"
    run(space, evaluator, samples=n, store=path, seed=5, progress=False)
    return path, space, evaluator


@pytest.mark.parametrize("learn", [False, True])
def test_resume_reads_the_best_from_the_stored_summaries(tmp_path, monkeypatch, learn):
    """The progress bar of a resumed run starts from the study's failures and best, as when it decoded every
    stored measurement; it no longer does (200,000 results: 1.3 s before the first new measurement)."""
    from starchart.study.runner import Progress, RunPlan

    path, _, evaluator = _resumable(tmp_path, 400, learn)
    with Store.open(path) as store:
        expected = Progress(RunPlan([], 0, 1), evaluator, store, enabled=True, from_store=False)
        for m in store.measurements():  # the old way
            expected.advance(m)
        monkeypatch.setattr(Store, "measurements", lambda self: pytest.fail("decoded every stored measurement"))
        got = Progress(RunPlan([], 400, 401), evaluator, store, enabled=True)
    assert (got.failures, got.best, got.objective, got.minimize) == \
        (expected.failures, expected.best, expected.objective, expected.minimize)
    frame = Store.open(path, read_only=True).to_dataset().frame
    assert got.failures == int((frame["status"] != "ok").sum()) > 0
    assert not learn or got.objective == "cost"
    assert got.best == frame[got.objective].min() and got.minimize


def test_resume_keys_the_sample_a_column_at_a_time(tmp_path, monkeypatch):
    """A resume draws the study's sample again and finds what is left by the stored keys: the sample is keyed
    in bulk (no config_key call per drawn configuration), and what is left is what the per-row keys leave."""
    from starchart import runner

    path, space, evaluator = _resumable(tmp_path, 300, learn=False)
    calls = []
    original = runner.config_key
    monkeypatch.setattr(runner, "config_key", lambda *a, **k: calls.append(1) or original(*a, **k))
    with Store.open(path) as store:
        plan = runner.plan_run(store, space, samples=320)
        stored = store.keys()
    drawn = space.sample(320, seed=5).to_dict("records")
    assert plan.todo == [c for c in drawn if config_key(c) not in stored][:20] and len(plan.todo) == 20
    assert len(calls) == 0
    dataset = runner.run(space, evaluator, samples=320, store=path, progress=False)
    assert len(dataset) == 320
