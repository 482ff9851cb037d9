"""Input sensitivity (paper §VII-C): throughput, interaction tests, per-input trees, measuring per input."""

from __future__ import annotations

import itertools
import shutil

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from starchart import Dataset, Space
from starchart.analyses.inputs import (
    PerInputEvaluator,
    add_throughput,
    input_sensitivity,
    interaction_test,
    plot_input_sensitivity,
)
from starchart.errors import InputError
from starchart.measure import PythonEvaluator
from starchart.study.runner import run


def stencil_like(seed: int = 0) -> Dataset:
    """Throughput where ``block`` matters only on large inputs, ``vec`` everywhere, ``pad`` nowhere."""
    rng = np.random.default_rng(seed)
    grid = pd.DataFrame(list(itertools.product([256, 512, 1024, 2048], [8, 16, 32, 64], [0, 1], [0, 1])),
                        columns=["n", "block", "vec", "pad"])
    rate = 1e9 * (1 + grid.vec) * np.where(grid.n >= 1024, grid.block / 8, 1.0) * rng.uniform(0.97, 1.03, len(grid))
    time_ms = 1e3 * grid.n ** 2 / rate
    status = np.where((grid.n == 256) & (grid.block == 64) & (grid.vec == 1) & (grid.pad == 1), "runtime", "ok")
    return Dataset.from_frame(grid.assign(time=np.where(status == "ok", time_ms, np.nan), status=status),
                              metrics=["time"])


def test_add_throughput_divides_work_by_seconds_and_leaves_failures_empty():
    ds = add_throughput(stencil_like(), "n^2")
    frame = ds.frame
    ok = frame["status"] == "ok"
    assert ds.metrics == ["time", "throughput"] and ds.meta["objective"] == "throughput"
    assert np.allclose(frame.loc[ok, "throughput"], frame.loc[ok, "n"] ** 2 / (frame.loc[ok, "time"] / 1e3))
    assert frame.loc[~ok, "throughput"].isna().all()
    with pytest.raises(InputError, match="no metric named 'runtime'"):
        add_throughput(ds, "n", time="runtime")


def balanced_anova_interaction(y, a, b):
    """Textbook balanced two-way ANOVA: SS_AB = Σ n_cell (ȳ_ab − ȳ_a − ȳ_b + ȳ)²."""
    frame = pd.DataFrame({"y": y, "a": a, "b": b})
    grand = frame.y.mean()
    cell = frame.groupby(["a", "b"]).y.transform("mean")
    row = frame.groupby("a").y.transform("mean")
    col = frame.groupby("b").y.transform("mean")
    ss_ab = float(((cell - row - col + grand) ** 2).sum())
    ss_total = float(((frame.y - grand) ** 2).sum())
    ss_error = float(((frame.y - cell) ** 2).sum())
    df_ab = (frame.a.nunique() - 1) * (frame.b.nunique() - 1)
    df_error = len(frame) - frame.a.nunique() * frame.b.nunique()
    return ss_ab / ss_total, (ss_ab / df_ab) / (ss_error / df_error)


def test_interaction_test_matches_the_textbook_balanced_anova():
    rng = np.random.default_rng(3)
    a = np.repeat([0, 1, 2], 24)
    b = np.tile(np.repeat([0, 1, 2, 3], 6), 3)
    for y in (a + 0.5 * b + rng.normal(0, 0.3, 72), a * b + rng.normal(0, 0.3, 72)):
        got = interaction_test(y, a, b)
        share, f_stat = balanced_anova_interaction(y, a, b)
        assert got["interaction_share"] == pytest.approx(share)
        assert got["F"] == pytest.approx(f_stat)
        assert got["df_interaction"] == 6 and got["df_residual"] == 60
    assert interaction_test(a * b + rng.normal(0, 0.3, 72), a, b)["p_value"] < 1e-6
    assert interaction_test(a + b + rng.normal(0, 0.3, 72), a, b)["p_value"] > 1e-3


def test_blocking_on_the_configuration_makes_a_small_interaction_visible():
    """Same configurations at every input: each has its own (large, random) effect that hides a small
    parameter × input interaction from the plain test but not from the blocked one."""
    rng = np.random.default_rng(7)
    configs = 40
    p = rng.integers(0, 2, configs)
    own = rng.normal(0, 1.0, configs)
    inputs = np.repeat([0, 1, 2], configs)
    block = np.tile(np.arange(configs), 3)
    y = own[block] + 0.5 * inputs + 0.15 * p[block] * (inputs == 2) + rng.normal(0, 0.05, 3 * configs)
    plain = interaction_test(y, inputs, p[block])
    blocked = interaction_test(y, inputs, p[block], block=block)
    assert blocked["interaction_share"] == pytest.approx(plain["interaction_share"], rel=0.2)
    assert plain["p_value"] > 0.05 and blocked["p_value"] < 1e-4
    assert blocked["df_interaction"] == 2 and blocked["df_residual"] == 3 * configs - (configs + 2 + 2)
    result = input_sensitivity(stencil_like(), inputs=["n"], work="n^2")
    assert result.options["paired"]  # the stencil grid measures every configuration at every n


def test_input_sensitivity_finds_which_parameters_depend_on_the_input():
    result = input_sensitivity(stencil_like(), inputs=["n"], work="n^2")
    assert result.metric == "throughput" and not result.minimize
    assert result.dependent() == ["block"]
    table = result.interactions.set_index("parameter")
    assert table.loc["vec", "main_share"] > 0.1 and table.loc["vec", "interaction_share"] < 0.01
    assert table.loc["pad", "main_share"] < 0.01
    # per-input importance: block matters only at n >= 1024, vec is what matters on small inputs
    imp = result.importance
    assert imp.loc["block", "n=2048"] > 0.5 and imp.loc["block", "n=256"] < 0.1
    assert imp.loc["vec", "n=256"] > 0.8
    # throughput jumps from n = 1024 on: the merged tree splits on n first (n <= 512 | n >= 1024),
    # and n's share is that root split's SSE reduction over the reduction of the whole tree
    assert result.input_depth() == 0
    frame = add_throughput(stencil_like(), "n^2").ok().frame
    y = frame["throughput"].to_numpy()

    def sse(values):
        return float(((values - values.mean()) ** 2).sum())

    small = (frame["n"] <= 512).to_numpy()
    leaves = result.tree.apply(frame[["n", "block", "vec", "pad"]])
    whole_tree = sse(y) - sum(sse(y[leaves == leaf]) for leaf in np.unique(leaves))
    assert result.input_share == pytest.approx((sse(y) - sse(y[small]) - sse(y[~small])) / whole_tree, rel=1e-9)
    assert 0.3 < result.input_share < 0.4
    # the best per input is the measured maximum
    for _, row in result.best.iterrows():
        at_n = frame[frame.n == row["n"]]
        assert row["best_value"] == at_n["throughput"].max()
    assert result.best.set_index("n").loc[2048, "best_config"]["block"] == 64
    # transfer: each input's best is 1.0 at home; small inputs' bests lose on large inputs
    transfer = result.transfer
    assert np.allclose(np.diag(transfer.to_numpy(dtype=float)), 1.0)
    assert transfer.loc["n=256", "n=2048"] < 0.5


def test_throughput_is_maximised_even_when_the_data_records_its_time_as_minimised():
    data = stencil_like()
    data.meta.update(objective="time", minimize=True)  # as a store (or run()) records it
    result = input_sensitivity(data, inputs=["n"], work="n^2")
    assert not result.minimize
    frame = add_throughput(stencil_like(), "n^2").ok().frame
    for _, row in result.best.iterrows():  # the fastest per input, not the slowest
        assert row["best_value"] == frame[frame.n == row["n"]]["throughput"].max()


def test_time_can_be_analysed_directly_and_inputs_must_be_parameters():
    time_result = input_sensitivity(stencil_like(), inputs=["n"])
    assert time_result.metric == "time" and time_result.minimize
    assert time_result.best.set_index("n").loc[2048, "best_config"]["block"] == 64
    with pytest.raises(InputError, match="not among the parameters"):
        input_sensitivity(stencil_like(), inputs=["size"])
    with pytest.raises(InputError, match="alpha must be between 0 and 1"):
        input_sensitivity(stencil_like(), inputs=["n"], alpha=5)
    rate = Dataset.from_frame(stencil_like().frame.assign(gflops=lambda f: 1 / f["time"]),
                              metrics=["time", "gflops"])
    assert not input_sensitivity(rate, inputs=["n"], metric="gflops").minimize  # a rate, by its name
    one = Dataset.from_frame(stencil_like().frame.query("n == 256"), metrics=["time"])
    with pytest.raises(InputError, match="single input"):
        input_sensitivity(one, inputs=["n"])


def test_plot_and_report_sections():
    result = input_sensitivity(stencil_like(), inputs=["n"], work="n^2")
    fig = plot_input_sensitivity(result)
    assert isinstance(fig, Figure)
    heat, bars = fig.axes[0], fig.axes[1]
    assert [t.get_text() for t in heat.get_xticklabels()] == ["n=256", "n=512", "n=1024", "n=2048", "all inputs"]
    assert bars.get_xlabel() == "variance explained by parameter × input (%)"
    assert [h for h, _ in result.report_sections()][0] == "Input sensitivity"


def test_per_input_evaluator_builds_one_evaluator_per_input_and_keeps_configurations_whole():
    built = []

    def make(inputs):
        built.append(inputs)
        return PythonEvaluator(lambda c: c["n"] * 10 + c["b"] + (100 if inputs["n"] != c["n"] else 0))

    space = Space({"n": [1, 2], "b": [1, 2, 3]})
    ds = run(space, PerInputEvaluator(make, ["n"]), configs=list(space.to_frame().to_dict("records")),
             progress=False)
    assert sorted(built, key=lambda i: i["n"]) == [{"n": 1}, {"n": 2}]
    assert sorted(ds.frame["time"]) == [11, 12, 13, 21, 22, 23]
    with pytest.raises(InputError, match="no input parameter"):
        PerInputEvaluator(make, ["size"]).prepare(space)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_demo_kernel_measured_at_two_sizes_checks_each_size_against_its_own_reference(tmp_path):
    from starchart.demo import DEMO_REFERENCE, DEMO_TUNE_PARAMS, KERNEL_SOURCE
    from starchart.measure.c import CEvaluator

    def make(inputs):
        return CEvaluator(KERNEL_SOURCE, defines={"N": inputs["N"]}, repeats=1, warmup=0,
                          reference=dict(DEMO_REFERENCE), cache_dir=tmp_path)

    space = Space({"N": [16, 32], **{k: v for k, v in DEMO_TUNE_PARAMS.items()}})
    configs = [{"N": n, "TI": 8, "TJ": 8, "TK": 8, "ORDER": order, "UNROLL": 1, "TRANSPOSE_B": t}
               for n in (16, 32) for order, t in ((1, 0), (0, 1))]
    ds = run(space, PerInputEvaluator(make, ["N"]), configs=configs, progress=False)
    assert (ds.frame["status"] == "ok").all(), ds.frame["reason"].tolist()


def test_a_best_configuration_that_fails_at_another_input_transfers_as_zero():
    data = stencil_like()
    best = input_sensitivity(data, inputs=["n"], work="n^2").best.set_index("n").loc[2048, "best_config"]
    frame = data.frame.copy()
    at_small = (frame["n"] == 256) & np.logical_and.reduce([frame[k] == v for k, v in best.items()])
    frame.loc[at_small, ["status", "time"]] = ["runtime", np.nan]
    broken = Dataset.from_frame(frame, metrics=["time"])
    transfer = input_sensitivity(broken, inputs=["n"], work="n^2").transfer
    assert transfer.loc["n=2048", "n=256"] == 0.0  # failed there: worth nothing, not "not measured"
    assert transfer.loc["n=2048", "n=2048"] == 1.0
