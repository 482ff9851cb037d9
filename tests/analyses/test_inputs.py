"""Input sensitivity (paper §VII-C): throughput, interaction tests, per-input trees, measuring per input."""

from __future__ import annotations

import itertools
import shutil

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from shared_data import dataset_path
from typer.testing import CliRunner

import starchart.analyses.inputs as inputs_module
from starchart import Dataset, Space, load
from starchart.analyses.inputs import (
    PerInputEvaluator,
    add_throughput,
    input_sensitivity,
    interaction_test,
)
from starchart.analyses.platforms import compare_platforms, merge_platforms
from starchart.analyses.sample_size import choose_sample_size
from starchart.analyses.tradeoff import tradeoff
from starchart.cli import app
from starchart.errors import InputError
from starchart.measure import PythonEvaluator
from starchart.report.figures import plot_input_sensitivity
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
    with pytest.raises(InputError, match="alpha: must be a number between 0 and 1"):
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


# ---------------------------------------------------------------------- review rounds (test_analyses_user_edges)
# The analyses (platforms, trade-off, inputs, sample size) and `info`/`tree` on the inputs users really give.
#
# Each test pins a defect found by using them as a performance engineer would: files whose parameter
# values are written differently, times of 0, a platform column of GPU numbers, a work function that
# returns text, a metric that is 0 everywhere, a large paired input study.


runner = CliRunner()


SMALL_TREES = {"min_samples_split": 2}


def _grid(time: np.ndarray | None = None, **columns: object) -> pd.DataFrame:
    """12 configurations of two parameters (u, bx), with a time each."""
    frame = pd.MultiIndex.from_product([[1, 2, 4, 8], [16, 32, 64]], names=["u", "bx"]).to_frame(index=False)
    times = np.linspace(1.0, 2.2, len(frame)) if time is None else time
    return frame.assign(time=times, **columns)


# ---------------------------------------------------------------------- platforms
def test_merge_refuses_a_parameter_written_as_numbers_in_one_file_and_text_in_another():
    a = Dataset.from_frame(_grid(), metrics=["time"], meta={"source": "a100.csv"})
    b = Dataset.from_frame(_grid().astype({"u": str}), metrics=["time"], meta={"source": "a4000.csv"})
    # before: merged silently, then "the platforms share 0 measured configurations" without saying why
    with pytest.raises(InputError, match=r"parameter 'u' holds numbers on platform 'A' \(e.g. 1\) but text on 'B' "
                                         r"\(e.g. '1'\)") as caught:
        merge_platforms({"A": a, "B": b})
    assert caught.value.where == "a4000.csv"


def test_merge_keeps_whole_number_settings_integers_when_one_file_has_floats():
    a = Dataset.from_frame(_grid(), metrics=["time"])
    b = Dataset.from_frame(_grid(np.linspace(2.0, 1.0, 12)).astype({"u": float, "bx": float}), metrics=["time"])
    comparison = compare_platforms({"A": a, "B": b}, "time", tree_options=SMALL_TREES)
    # before: {'u': 2.0, 'bx': 16.0} (the float file made every setting a float)
    assert all(type(v) is int for v in comparison.general().values()), comparison.general()
    assert merge_platforms({"A": a, "B": b}).frame["u"].dtype == np.int64


@pytest.mark.parametrize("bad_time", [0.0, -0.5])
def test_compare_platforms_refuses_times_that_are_not_positive(bad_time):
    a = Dataset.from_frame(_grid(), metrics=["time"], meta={"source": "a.json"})
    times = np.linspace(1.0, 2.2, 12)
    times[3] = bad_time
    b = Dataset.from_frame(_grid(times), metrics=["time"], meta={"source": "b.json"})
    # before: best / value made the general setting and the speed-ups meaningless (a negative "own best")
    with pytest.raises(InputError, match=r"'time' is .* for a valid configuration on platform 'B' \(1 such values\): "
                                         "relative performance needs positive values") as caught:
        compare_platforms({"A": a, "B": b}, "time")
    assert caught.value.where == "b.json"


def test_compare_platforms_names_the_platforms_of_a_numeric_platform_column():
    rows = [_grid(np.linspace(1.0, 2.2, 12)).assign(platform=0), _grid(np.linspace(2.2, 1.0, 12)).assign(platform=1)]
    data = Dataset.from_frame(pd.concat(rows, ignore_index=True), metrics=["time"])
    # before: "platform '0' has no valid measurement of 'time' ... (0 of them failed there)"
    comparison = compare_platforms(data, "time", tree_options=SMALL_TREES)
    speed = comparison.speedups().set_index("platform")
    assert speed.loc["0", "own_best"] == 1.0 and speed.loc["1", "own_best"] == 1.0
    assert comparison.best_subspaces()["own_best_mean"].tolist() == [1.0, 1.0]


def test_platform_summary_says_how_many_configurations_were_not_shared():
    a = Dataset.from_frame(_grid(), metrics=["time"])
    b = Dataset.from_frame(_grid().iloc[:1], metrics=["time"])
    summary = compare_platforms({"A": a, "B": b}, "time").summary()
    # before: "1 configurations measured on all of A, B", and nothing about the 11 only A measured
    assert summary.startswith("1 configuration measured on all of A, B")
    assert "left out, not measured on every platform: A 11" in summary


def test_platform_rank_correlation_is_spearman_over_the_shared_valid_configurations():
    a = Dataset.from_frame(_grid(np.array([1.0, 5, 2, 8, 3, 9, 4, 6, 7, 10, 12, 11])), metrics=["time"])
    failed = np.array([False, True, False, False, True, False, True, False, False, True, False, False])
    b = Dataset.from_frame(_grid(np.array([2.0, 1, 1.5, 9, 2, 3, 4, 7, 5, 6, 8, 10]),
                                 status=np.where(failed, "runtime", "ok")), metrics=["time"])
    comparison = compare_platforms({"A": a, "B": b}, "time", tree_options=SMALL_TREES)
    pair = comparison.values[["A", "B"]].dropna()
    expected = pair.rank().corr().loc["A", "B"]  # Spearman: Pearson of the ranks among the shared rows
    got = comparison.differences()["correlation"].loc["A", "B"]
    # before: each column ranked over all its own values first (0.787 here instead of 0.714)
    assert got == pytest.approx(expected)


def test_platforms_cli_refuses_a_csv_writing_a_parameter_as_text(tmp_path):
    base = tmp_path / "a.csv"
    other = tmp_path / "b.csv"
    _grid().to_csv(base, index=False)
    _grid().assign(u=lambda f: "u" + f["u"].astype(str)).to_csv(other, index=False)
    result = runner.invoke(app, ["platforms", str(base), str(other)])
    assert result.exit_code == 2
    assert "parameter 'u' holds numbers on platform 'a'" in result.output and "text on 'b'" in result.output


# ---------------------------------------------------------------------- input sensitivity
@pytest.mark.parametrize("returned, message", [("n", r"returned 'n' for \{'n': 10, 'bx': 1\}, not a number"),
                                               (None, r"returned None for \{'n': 10, 'bx': 1\}, not a number"),
                                               (float("inf"), r"gives infinite units of work for \{'n': 10, 'bx': 1\}")])
def test_a_work_function_returning_no_finite_number_is_a_clear_error(returned, message):
    ds = Dataset.from_frame(pd.DataFrame({"n": [10, 20], "bx": [1, 1], "time": [1.0, 4.0]}), metrics=["time"])
    # before: a bare ValueError / TypeError, or (infinite work) "only 0 valid measurements of 'throughput'"
    with pytest.raises(InputError, match=message):
        add_throughput(ds, lambda config: returned)


def _dense_interaction_test(y, group, factor, block):
    """The blocked test as a textbook fit with one dummy column per configuration (the reference)."""
    def dummies(values):
        codes = pd.factorize(np.asarray(values, dtype=object))[0]
        return np.eye(codes.max() + 1)[codes]

    def rss(design):
        coef, _, rank, _ = np.linalg.lstsq(design, y, rcond=None)
        return float(((y - design @ coef) ** 2).sum()), int(rank)

    cells = [f"{g}|{f}" for g, f in zip(group, factor)]
    additive = np.hstack([np.ones((len(y), 1)), dummies(group), dummies(factor), dummies(block)])
    rss_add, rank_add = rss(additive)
    rss_full, rank_full = rss(np.hstack([additive, dummies(cells)]))
    return rss_add - rss_full, rank_full - rank_add, len(y) - rank_full


def test_the_blocked_interaction_test_fits_no_column_per_configuration(monkeypatch):
    rng = np.random.default_rng(3)
    configs = 400
    block = np.tile(np.arange(configs), 2)
    group = np.repeat([0, 1], configs)
    factor = block % 5
    y = rng.normal(size=2 * configs) + 0.3 * group * (factor == 2) + 0.01 * block
    widest = []
    real_rss = inputs_module._rss

    def recording_rss(design, values):
        widest.append(design.shape[1])
        return real_rss(design, values)

    monkeypatch.setattr(inputs_module, "_rss", recording_rss)
    got = interaction_test(y, group, factor, block=block)
    # before: designs of 1 + 1 + 4 + 399 (+ 10) columns, a dense fit that took minutes on the
    # dedispersion file (11,130 rows); now the configurations are projected out first
    assert max(widest) < 20, widest
    ss_int, df_int, df_resid = _dense_interaction_test(y, group, factor, block)
    total = float(((y - y.mean()) ** 2).sum())
    assert got["interaction_share"] == pytest.approx(ss_int / total, rel=1e-9)
    assert (got["df_interaction"], got["df_residual"]) == (df_int, df_resid) == (4, 395)


def test_input_sensitivity_on_a_large_paired_study_is_quick():
    ds = load(dataset_path("dedispersion/A100.json.gz"))
    result = input_sensitivity(ds, ["tile_stride_x"], tree_options={"max_depth": 4})
    assert result.options["paired"]


# ---------------------------------------------------------------------- sample size
def test_sample_size_refuses_a_metric_that_is_zero_in_every_validation_design():
    space = Space({"a": list(range(10)), "b": list(range(10))})
    # before: the whole budget was measured and the curve read "median relative error nan%"
    with pytest.raises(InputError, match="'time' is 0 or not a finite number in all 30 valid validation designs"):
        choose_sample_size(space, PythonEvaluator(lambda c: 0.0), validation=30, budget=60)


def test_sample_size_summary_says_how_many_zero_valued_validation_designs_it_left_out():
    space = Space({"a": list(range(10)), "b": list(range(10))})
    result = choose_sample_size(space, PythonEvaluator(lambda c: float(c["a"])), validation=30, budget=60,
                                seed=0)
    zeros = int((result.validation.ok().y("time") == 0).sum())
    assert zeros > 0
    # before: "on 30 validation designs" while the median was taken over the non-zero ones only
    assert f"on {30 - zeros} validation designs ({zeros} more left out" in result.summary()


# ---------------------------------------------------------------------- trade-off
def test_tradeoff_coverage_on_takes_a_dataset_and_names_missing_columns():
    frame = _grid().assign(power=lambda f: 10.0 * f["u"])
    ds = Dataset.from_frame(frame, metrics=["time", "power"])
    result = tradeoff(ds.sample(8, seed=1), ("time", "power"), {"time": 1.8, "power": 50},
                      tree_options=SMALL_TREES)
    # before: TypeError ('Dataset' object is not subscriptable) and KeyError for a missing column
    assert result.coverage_on(ds) == result.coverage_on(ds.frame)
    with pytest.raises(InputError, match=r"the designs lack column\(s\) \['power'\]"):
        result.coverage_on(ds.frame.drop(columns=["power"]))
    with pytest.raises(InputError, match=r"lack column\(s\) \['u'\]"):
        result.inside(ds.frame.drop(columns=["u"]))


def test_tradeoff_cli_names_a_bad_stat_once(tmp_path):
    path = tmp_path / "k.csv"
    _grid().assign(power=lambda f: 10.0 * f["u"]).to_csv(path, index=False)
    result = runner.invoke(app, ["tradeoff", str(path), "--limit", "time=2", "--limit", "power=50", "--stat", "0"])
    assert result.exit_code == 2
    assert "error: --stat must be 'mean', 'worst' or a share in (0, 1], got '0'" in result.output  # was "--stat: --stat"


# ---------------------------------------------------------------------- tree
def test_tree_sample_beyond_the_valid_configurations_names_the_option(tmp_path):
    path = tmp_path / "k.csv"
    _grid().assign(status=["ok"] * 10 + ["compile"] * 2).to_csv(path, index=False)
    result = runner.invoke(app, ["tree", str(path), "--sample", "11"])
    assert result.exit_code == 2
    # before: "cannot sample 11 configurations from 10" (neither the option nor that failures do not count)
    assert "--sample 11 asks for more than the 10 valid configurations" in result.output


def test_tree_prune_relative_on_a_metric_that_is_zero_everywhere(tmp_path):
    path = tmp_path / "z.csv"
    pd.DataFrame({"a": range(12), "time": 0.0}).to_csv(path, index=False)
    refused = runner.invoke(app, ["tree", str(path), "--prune", "relative"])
    # before: "rule: every response is 0 ... rule '1se' or 'min'": neither the option nor a rule the CLI takes
    assert refused.exit_code == 2
    assert "error: --prune: every time is 0, so a relative error is undefined" in refused.output
    assert "use --prune 1se" in refused.output
    squared = runner.invoke(app, ["tree", str(path), "--prune", "1se"])
    assert squared.exit_code == 0, squared.output
    # before: "... a relative error is undefined (10-fold CP table)"
    assert "relative error is undefined\n" in squared.output


def test_tradeoff_counts_one_design_in_the_singular():
    ds = Dataset.from_frame(pd.DataFrame({"a": [1, 2], "time": [0.5, 2.0], "power": [100.0, 300.0]}),
                            metrics=["time", "power"])
    summary = tradeoff(ds, ("time", "power"), {"time": 1.0, "power": 200.0}).summary()
    assert "of the 1 design that does" in summary  # was "of the 1 designs that do"
    with pytest.raises(InputError, match=r"only 1 design has every metric"):  # was "only 1 designs have"
        tradeoff(ds.sample(1, seed=0), ("time", "power"))
