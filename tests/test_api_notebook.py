"""What a notebook user runs into: odd inputs to the Python API give clear errors, results short reprs.

Each test failed before the fix it names (user-testing of the Python API).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import starchart
from starchart import Dataset, StarchartTree, cross_validated_error, fit_pruned
from starchart.analyses.throughput import throughput_column, work_function
from starchart.analyses.tradeoff import power_savings
from starchart.errors import InputError


def tradeoff_data() -> Dataset:
    X = pd.MultiIndex.from_product([[1, 2, 3], [1, 2, 4, 8], [1, 2, 4, 8]],
                                   names=["clock", "tile", "unroll"]).to_frame(index=False)
    frame = X.assign(time=12 / X.clock + 2 * (X.tile == 1) + 0.01 * X.unroll,
                     power=20 * X.clock + 5 * (X.tile == 8))
    return Dataset.from_frame(frame, metrics=["time", "power"])


def input_data() -> Dataset:
    X = pd.MultiIndex.from_product([[100, 200, 400], [1, 2, 4, 8], [0, 1]],
                                   names=["n", "tile", "vec"]).to_frame(index=False)
    rate = 1e6 * (1 + X.vec) * np.where(X.n >= 400, X.tile, 1) * np.linspace(0.97, 1.03, len(X))
    return Dataset.from_frame(X.assign(time=1e3 * X.n ** 2 / rate), metrics=["time"])


# ---------------------------------------------------------------------- tree
def test_boolean_parameter_reads_true_false_in_leaves():
    X = pd.DataFrame({"flag": [True, False] * 10, "b": [1] * 10 + [2] * 10})
    y = np.where(X["flag"], 5.0, 1.0) + X["b"]
    tree = StarchartTree(min_samples_split=2).fit(X, y)
    assert [leaf.description for leaf in tree.leaves_] == [
        "flag = False ∧ b = 1", "flag = False ∧ b = 2", "flag = True ∧ b = 1", "flag = True ∧ b = 2"]
    assert tree.values_["flag"] == [False, True]
    assert tree.predict(pd.DataFrame({"flag": [True, False], "b": [2, 1]})).tolist() == [7.0, 2.0]
    again = StarchartTree.from_json(tree.to_json())
    assert again.leaves_[0].description == "flag = False ∧ b = 1"
    assert [leaf.contains(X).sum() for leaf in tree.leaves_] == [5, 5, 5, 5]
    assert "├── flag = False  [1]" in tree.export_text() and "flag ≤" not in tree.export_text()
    assert 'label="flag = True"' in tree.to_dot()


def test_integer_column_names_predict_as_they_were_fitted():
    X = pd.DataFrame({0: [1, 2, 3, 4], 1: [1, 1, 2, 2]})
    tree = StarchartTree(min_samples_split=2).fit(X, [1.0, 2.0, 3.0, 4.0])
    assert tree.predict(X).tolist() == [1.0, 2.0, 3.0, 4.0]
    forest = starchart.StarchartForest(n_estimators=3, random_state=0).fit(X, [1.0, 2.0, 3.0, 4.0])
    assert forest.predict(X).shape == (4,)


@pytest.mark.parametrize("call", [lambda t: t.importance(99), lambda t: t.importance(-1), lambda t: t.path(99)])
def test_unknown_node_id_is_a_clear_error(call):
    tree = StarchartTree(min_samples_split=2).fit(pd.DataFrame({"a": [1, 2, 3, 4]}), [1.0, 2.0, 3.0, 4.0])
    with pytest.raises(InputError, match="no node"):
        call(tree)


def test_importance_and_path_take_a_node_or_a_leaf_as_well_as_an_id():
    X = pd.DataFrame({"a": [1, 2, 3, 4] * 5, "b": [1] * 10 + [2] * 10})
    tree = StarchartTree(min_samples_split=2).fit(X, X["a"] * 2.0 + X["b"])
    node = tree.nodes_[1]
    assert tree.importance(node).equals(tree.importance(1)) and tree.importance(tree.root_).equals(tree.importance())
    leaf = tree.leaves_[0]
    assert [n.id for n in tree.path(leaf)] == [n.id for n in tree.path(leaf.node_id)]


def test_hyperparameter_of_wrong_type_names_itself():
    with pytest.raises(InputError, match="threshold"):
        StarchartTree(threshold="0").fit(pd.DataFrame({"a": [1, 2]}), [1.0, 2.0])


def test_importance_of_a_tree_without_splits_is_float():
    tree = StarchartTree().fit(pd.DataFrame({"a": [1, 2, 3]}), [1.0, 1.0, 1.0])
    assert tree.importance_.dtype == float


# ---------------------------------------------------------------------- pruning
def test_misspelt_tree_option_in_fit_pruned_and_cross_validated_error():
    X = pd.DataFrame({"a": np.tile([1, 2, 3, 4], 5)})
    y = X["a"] * 1.0
    with pytest.raises(InputError, match="max_deph"):
        fit_pruned(X, y, max_deph=3)
    with pytest.raises(InputError, match="min_sample_split"):
        cross_validated_error(X, y, min_sample_split=3)
    with pytest.raises(InputError, match="^cv:"):
        fit_pruned(X.head(5), y.head(5))  # 10 folds, 5 samples: the error names fit_pruned's cv


# ---------------------------------------------------------------------- dataset
def test_from_frame_takes_one_name_as_a_string():
    df = pd.DataFrame({"bx": [1, 2], "by": [3, 4], "time": [1.0, 2.0]})
    ds = Dataset.from_frame(df, params="bx", metrics="time")
    assert ds.params == ["bx"] and ds.metrics == ["time"]


def test_from_frame_errors_say_what_to_do():
    df = pd.DataFrame({"bx": [1, 2, 4], "flag": [True, False, True], "time": [1.0, 2.0, 3.0]})
    with pytest.raises(InputError, match="statuses given for 3 rows"):
        Dataset.from_frame(df, metrics=["time"], status=["ok"])
    with pytest.raises(InputError, match="DataFrame"):
        Dataset.from_frame({"bx": [1], "time": [1.0]})
    with pytest.raises(InputError, match="pass metrics="):
        Dataset.from_frame(df, params=["bx"])  # flag was taken as a metric
    with pytest.raises(InputError, match=r"status=\['ok'\] \* len\(df\)"):
        Dataset.from_frame(df, metrics=["time"], status="ok")
    with pytest.raises(InputError, match="integer"):
        Dataset.from_frame(df, metrics=["time"]).sample(1.5)


# ---------------------------------------------------------------------- tradeoff
@pytest.mark.parametrize("limit", [float("nan"), True])
def test_tradeoff_refuses_a_nan_or_boolean_target(limit):
    with pytest.raises(InputError, match="'time'"):
        starchart.tradeoff(tradeoff_data(), ("time", "power"), {"time": limit})


def test_tighten_refuses_nan():
    result = starchart.tradeoff(tradeoff_data(), ("time", "power"), {"time": 8.5})
    with pytest.raises(InputError, match="NaN"):
        result.tighten(time=float("nan"))


def test_tradeoff_log_takes_one_metric_name():
    result = starchart.tradeoff(tradeoff_data(), ("time", "power"), {"time": 8.5}, log="time")
    assert result.limits == {"time": 8.5}


def test_tradeoff_refuses_a_misspelt_minimize_and_bad_min_samples():
    with pytest.raises(InputError, match="'tme'"):
        starchart.tradeoff(tradeoff_data(), ("time", "power"), {"time": 8.5}, minimize={"tme": True})
    with pytest.raises(InputError, match="min_samples"):
        starchart.tradeoff(tradeoff_data(), ("time", "power"), {"time": 8.5}, min_samples=0)


def test_power_savings_refuses_nan_slowdown():
    frame = pd.DataFrame({"time": [1.0, 1.05], "power": [100.0, 80.0]})
    with pytest.raises(InputError, match="max_slowdown"):
        power_savings(frame, max_slowdown=float("nan"))


def test_results_have_short_reprs():
    result = starchart.tradeoff(tradeoff_data(), ("time", "power"), {"time": 8.5, "power": 50}, stat="worst")
    text = repr(result)
    assert text.startswith("<TradeoffResult time vs power") and "1 subspace" in text and len(text) < 300
    a = Dataset.from_frame(pd.DataFrame({"bx": [1, 2, 4], "time": [3.0, 2.0, 1.0]}))
    b = Dataset.from_frame(pd.DataFrame({"bx": [1, 2, 4], "time": [1.0, 1.5, 4.0]}))
    comparison = starchart.compare_platforms({"A": a, "B": b}, "time", tree_options={"min_samples_split": 2})
    assert repr(comparison).startswith("<PlatformComparison time") and len(repr(comparison)) < 300
    sensitivity = starchart.input_sensitivity(input_data(), inputs=["n"], work="n^2")
    assert repr(sensitivity).startswith("<InputSensitivity throughput over 3 inputs") and len(repr(sensitivity)) < 300


# ---------------------------------------------------------------------- platforms
def test_compare_platforms_checks_samples_and_tolerance_up_front():
    a = Dataset.from_frame(pd.DataFrame({"bx": [1, 2, 4], "time": [3.0, 2.0, 1.0]}))
    b = Dataset.from_frame(pd.DataFrame({"bx": [1, 2, 4], "time": [1.0, 1.5, 4.0]}))
    for samples in (-1, 0, 1.5):
        with pytest.raises(InputError, match="samples: must be an integer"):
            starchart.compare_platforms({"A": a, "B": b}, "time", samples=samples)
    with pytest.raises(InputError, match="tolerance"):
        starchart.compare_platforms({"A": a, "B": b}, "time", tolerance=-0.5)


def test_platform_with_only_failures_says_what_to_do():
    a = Dataset.from_frame(pd.DataFrame({"bx": [1, 2, 4], "time": [3.0, 2.0, 1.0]}))
    b = Dataset.from_frame(pd.DataFrame({"bx": [1, 2, 4], "time": [1.0, 1.5, 4.0]}))
    failed = Dataset.from_frame(pd.DataFrame({"bx": [1, 2, 4], "time": [np.nan] * 3, "status": ["compile"] * 3}))
    with pytest.raises(InputError, match="leave 'F' out") as info:
        starchart.compare_platforms({"A": a, "B": b, "F": failed}, "time", tree_options={"min_samples_split": 2})
    assert "3 of them failed" in str(info.value)


# ---------------------------------------------------------------------- inputs and work functions
def test_input_sensitivity_takes_one_input_as_a_string():
    X = pd.MultiIndex.from_product([[10, 20], [1, 2, 4]], names=["rows", "tile"]).to_frame(index=False)
    ds = Dataset.from_frame(X.assign(time=X.rows / X.tile), metrics=["time"])
    assert starchart.input_sensitivity(ds, inputs="rows").inputs == ["rows"]


def test_input_without_valid_measurement_is_named_in_the_summary():
    frame = input_data().frame.copy()
    frame.loc[frame["n"] == 400, ["status", "time"]] = ["runtime", np.nan]
    ds = Dataset.from_frame(frame, metrics=["time"])
    summary = starchart.input_sensitivity(ds, inputs=["n"], work="n^2").summary()
    assert "no valid measurement of throughput at n=400" in summary


@pytest.mark.parametrize("work, match", [(lambda c: c["N"], "asked for 'N'"), ("0", "positive"),
                                         ("-n", "positive"), ("nlogn", "named work function")])
def test_work_function_mistakes_are_input_errors(work, match):
    with pytest.raises(InputError, match=match):
        starchart.input_sensitivity(input_data(), inputs=["n"], work=work)


def test_a_key_error_of_the_work_functions_own_code_stays_its_own():
    table = {4: 16.0}
    with pytest.raises(KeyError, match="5"):  # its own lookup failed, not a misspelt parameter
        work_function(lambda c: table[c["n"]])({"n": 5})
    assert work_function(lambda c: table[c["n"]])({"n": 4}) == 16.0


def test_named_work_on_a_string_size_is_an_input_error():
    frame = pd.DataFrame({"shape": ["small", "big"], "time": [1.0, 2.0]})
    with pytest.raises(InputError, match="numeric size"):
        throughput_column(frame, "time", "n", size="shape")
    assert work_function("n^2")({"n": 3}) == 9.0
