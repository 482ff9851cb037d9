"""Power/performance trade-offs (paper §VII-D): chosen subspaces, tightening, Pareto fronts, savings."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from shared_data import dataset_path

import starchart
from starchart import Dataset, StarchartTree
from starchart.analyses.tradeoff import (
    node_regions,
    node_stats,
    pareto_mask,
    power_savings,
    select_nodes,
    suggest_limits,
    tradeoff,
)
from starchart.errors import InputError

ENERGY = "energy/AD4000_wmma_complex_gemm_opt_16bit_1x4096x4096x4096.json.gz"


@pytest.fixture(scope="module")
def kmeans():
    return starchart.load(dataset_path("starchart_kmeans/kmeans_hd7970.csv"))


def brute_force_front(values, minimize):
    signs = np.where(minimize, 1.0, -1.0)
    v = values * signs
    return np.array([not any(np.all(v[j] <= v[i]) and np.any(v[j] < v[i]) for j in range(len(v)))
                     for i in range(len(v))])


def region_mask(frame, region):
    mask = np.ones(len(frame), dtype=bool)
    for name, values in region.items():
        mask &= frame[name].isin(values).to_numpy()
    return mask


def descendants_or_self(tree, node):
    out, stack = set(), [node]
    while stack:
        n = stack.pop()
        out.add(n)
        if tree.tree_.feature[n] >= 0:
            stack += [int(tree.tree_.left[n]), int(tree.tree_.right[n])]
    return out


def test_pareto_mask_agrees_with_brute_force_including_ties_and_maximised_columns():
    rng = np.random.default_rng(5)
    values = rng.integers(0, 6, size=(80, 3)).astype(float)  # many ties and duplicates
    for minimize in ([True, True, True], [True, False, True]):
        assert (pareto_mask(values, minimize) == brute_force_front(values, np.array(minimize))).all()
    with_nan = np.array([[1.0, np.nan], [2.0, 2.0]])
    assert pareto_mask(with_nan).tolist() == [False, True]


def test_node_regions_of_leaves_are_the_leaf_subspaces(kmeans):
    tree = StarchartTree().fit(kmeans.X, kmeans.y("wattage"))
    regions = node_regions(tree)
    for leaf in tree.leaves_:
        assert regions[leaf.node_id] == leaf.allowed
    # every node's region holds exactly the training designs that pass through it
    leaf_of = tree.apply(kmeans.X)
    for node in range(tree.tree_.node_count):
        under = [n for n in descendants_or_self(tree, node) if tree.tree_.feature[n] < 0]
        assert (region_mask(kmeans.frame, regions[node]) == np.isin(leaf_of, under)).all()


def test_node_stats_are_the_statistics_of_the_designs_in_each_node(kmeans):
    y = kmeans.y("runtime")
    tree = StarchartTree().fit(kmeans.X, y)
    regions = node_regions(tree)
    for stat, reduce in (("mean", np.mean), ("worst", np.max), (0.9, lambda v: np.quantile(v, 0.9))):
        got = node_stats(tree, stat, X=kmeans.X, y=y)
        want = [reduce(y[region_mask(kmeans.frame, r)]) for r in regions]
        assert got == pytest.approx(want)
    assert node_stats(tree, "worst", minimize=False, X=kmeans.X, y=y)[0] == y.min()


def test_topmost_selection_is_maximal_and_tightening_only_descends(kmeans):
    y = kmeans.y("runtime")
    tree = StarchartTree().fit(kmeans.X, y)
    t = tree.tree_
    previous = None
    for limit in (2.0, 0.5, 0.2, 0.1, 0.07):
        chosen = select_nodes(tree, limit, stat="worst")
        assert all(t.max[n] <= limit for n in chosen)
        for n in chosen:  # no ancestor meets the limit: the subspaces are as large as possible
            at = int(t.parent[n])
            while at >= 0:
                assert t.max[at] > limit
                at = int(t.parent[at])
        # every leaf meeting the limit is covered
        covered = set().union(*(descendants_or_self(tree, n) for n in chosen)) if chosen else set()
        assert {n for n in tree._leaf_order() if t.max[n] <= limit} <= covered
        if previous is not None:  # tighter target: at or below the nodes chosen before
            before = set().union(*(descendants_or_self(tree, n) for n in previous))
            assert set(chosen) <= before
        previous = chosen
    at_depth = select_nodes(tree, 0.5, stat="mean", level=2)
    assert all(t.depth[n] == 2 or (t.feature[n] < 0 and t.depth[n] < 2) for n in at_depth)
    assert all(t.feature[n] < 0 for n in select_nodes(tree, 0.5, level="leaves"))


def test_kmeans_subspaces_report_true_counts_means_and_worst_cases(kmeans):
    result = tradeoff(kmeans, metrics=("runtime", "wattage"), limits={"runtime": 0.2, "wattage": 210})
    frame = kmeans.frame
    assert len(result.subspaces) > 0
    meets = (frame["runtime"] <= 0.2).to_numpy() & (frame["wattage"] <= 210).to_numpy()
    for region, (_, row) in zip(result.regions, result.subspaces.iterrows()):
        mask = region_mask(frame, region)
        assert row["n"] == mask.sum()
        assert row["share_meeting"] == pytest.approx(meets[mask].mean())
        assert row["mean_runtime"] == pytest.approx(frame.loc[mask, "runtime"].mean())
        assert row["worst_wattage"] == pytest.approx(frame.loc[mask, "wattage"].max())
        assert row["best_runtime"] == pytest.approx(frame.loc[mask, "runtime"].min())
    inside = result.inside()
    assert result.coverage["precision"] == pytest.approx(meets[inside].mean())
    assert result.coverage["recall"] == pytest.approx(inside[meets].mean())
    # 90 % of a chosen node's designs meet each target: most designs inside meet both
    assert result.coverage["precision"] > 0.9 and result.coverage["recall"] > 0.8
    worst = tradeoff(kmeans, metrics=("runtime", "wattage"), limits={"runtime": 0.2, "wattage": 210},
                     stat="worst")
    assert worst.subspaces["meets_worst"].all() and worst.coverage["precision"] == 1.0


def test_tighten_keeps_the_trees_and_narrows_the_subspaces(kmeans):
    loose = tradeoff(kmeans, metrics=("runtime", "wattage"), limits={"runtime": 0.2, "wattage": 210})
    tight = loose.tighten(runtime=0.1)
    assert tight.trees["runtime"] is loose.trees["runtime"] and tight.limits["runtime"] == 0.1
    assert not (tight.inside() & ~loose.inside()).any()
    tree = loose.trees["runtime"]
    before = set().union(*(descendants_or_self(tree, n) for n in loose.chosen_nodes["runtime"]))
    assert set(tight.chosen_nodes["runtime"]) <= before
    with pytest.raises(InputError, match="no tree"):
        loose.tighten(power=1)


def test_pareto_subspaces_and_designs(kmeans):
    result = tradeoff(kmeans, metrics=("runtime", "wattage"), limits={"runtime": 0.2})
    designs = result.pareto_designs()
    values = kmeans.frame[["runtime", "wattage"]].to_numpy()
    assert set(designs.index) == set(kmeans.frame.index[brute_force_front(values, np.array([True, True]))])
    cells = result.pareto_subspaces()
    assert len(cells) >= 1 and cells["mean_runtime"].is_monotonic_increasing
    assert cells["mean_wattage"].is_monotonic_decreasing  # along a 2-D front one metric falls as the other rises


def test_power_savings_against_brute_force(kmeans):
    frame = kmeans.frame
    got = power_savings(frame, time="runtime", power="wattage", max_slowdown=0.10)
    fastest = frame["runtime"].idxmin()
    near = frame[frame["runtime"] <= 1.10 * frame.loc[fastest, "runtime"]]
    assert got["candidates"] == len(near)
    assert got["saved_w"] == pytest.approx(frame.loc[fastest, "wattage"] - near["wattage"].min())
    assert got["saved_up_to_w"] == pytest.approx(near["wattage"].max() - near["wattage"].min())
    assert 0 <= got["slowdown"] <= 0.10


def test_energy_file_clock_drives_power_and_code_drives_time():
    ds = starchart.load(dataset_path(ENERGY))
    sample = ds.ok().sample(600, seed=2)
    result = tradeoff(sample, metrics=("time", "ps_power"), limits={"time": 14, "ps_power": 75})
    power_importance = result.trees["ps_power"].importance(normalize=True)
    time_importance = result.trees["time"].importance(normalize=True)
    assert power_importance.idxmax() == "nvml_gr_clock"
    assert time_importance["nvml_gr_clock"] < 0.1
    whole = result.coverage_on(ds.ok().frame)
    assert whole["designs"] == int(ds.valid.sum()) and whole["precision"] > whole["meeting"] / whole["designs"]
    fig = result.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "time (ms)" and ax.get_ylabel() == "ps_power (W)"
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 2  # the two targets
    assert [h for h, _ in result.report_sections()][0] == "Power/performance trade-off"


def test_bad_requests_are_clear_errors(kmeans):
    with pytest.raises(InputError, match="no metric named 'power'"):
        tradeoff(kmeans, metrics=("runtime", "power"))
    with pytest.raises(InputError, match="not among the metrics"):
        tradeoff(kmeans, metrics=("runtime", "wattage"), limits={"energy": 200})
    with pytest.raises(InputError, match="stat"):
        tradeoff(kmeans, metrics=("runtime", "wattage"), limits={"runtime": 1}, stat="median")
    frame = pd.DataFrame({"a": [1, 2, 3], "time": [1.0, -1.0, 2.0], "power": [1.0, 2.0, 3.0]})
    with pytest.raises(InputError, match="log"):
        tradeoff(Dataset.from_frame(frame), log=True)
    with pytest.raises(InputError, match="level"):
        tradeoff(kmeans, metrics=("runtime", "wattage"), limits={"runtime": 1}, level="middle")


def test_log_trees_are_judged_in_the_metrics_own_units(kmeans):
    result = tradeoff(kmeans, metrics=("runtime", "wattage"), limits={"runtime": 0.2, "wattage": 210},
                      log=["runtime"], stat="worst")
    assert result.trees["runtime"].tree_.mean[0] == pytest.approx(np.log(kmeans.y("runtime")).mean())
    assert (result.subspaces["worst_runtime"] <= 0.2).all() and (result.subspaces["worst_wattage"] <= 210).all()


def test_three_metrics_intersect_too():
    grid = pd.DataFrame(list(itertools.product([1, 2, 3], [1, 2], [0, 1], range(3))), columns=["a", "b", "c", "r"])
    frame = grid.assign(time=grid.a * 1.0, power=4.0 - grid.a + grid.b, energy=1.0 + grid.c)
    ds = Dataset.from_frame(frame, metrics=["time", "power", "energy"])
    result = tradeoff(ds, metrics=("time", "power", "energy"), limits={"time": 2, "power": 3, "energy": 1},
                      stat="worst", tree_options={"min_samples_split": 2})
    assert result.subspaces["description"].tolist() == ["a = 2 ∧ b = 1 ∧ c = 0"]
    assert result.coverage["recall"] == 1.0


def test_sections_go_into_the_html_report(kmeans, tmp_path):
    from starchart.report.html import write_html_report

    result = tradeoff(kmeans, metrics=("runtime", "wattage"), limits={"runtime": 0.2, "wattage": 210})
    small = StarchartTree(max_depth=2).fit(kmeans.X, kmeans.y("runtime"))  # a small main tree: a quick page
    page = write_html_report(tmp_path / "report.html", dataset=kmeans, tree=small,
                             metric="runtime", extra_sections=result.report_sections(), save_figures=False)
    html = page.read_text(encoding="utf-8")
    for heading, _ in result.report_sections():
        assert heading in html
    assert "tpp &gt; 10" in html or "tpp > 10" in html


def test_coverage_on_the_whole_space_routes_unsampled_values_as_the_trees_do(kmeans):
    """Fitted on a sample, judged on every design: a design belongs where every tree sends it."""
    sample = kmeans.sample(100, seed=3)
    result = tradeoff(sample, ("runtime", "wattage"), {"runtime": 0.2, "wattage": 210})
    frame = kmeans.frame
    leaf = {m: result.trees[m].apply(frame[result.trees[m].feature_names_in_]) for m in result.metrics}
    routed = np.zeros(len(frame), dtype=bool)
    for nodes in result.subspaces["nodes"]:
        routed |= np.logical_and.reduce([np.isin(leaf[m], result.trees[m]._leaf_order(n))
                                         for m, n in zip(result.metrics, nodes)])
    assert (~frame["tpp"].isin(sample.frame["tpp"]) & routed).any()  # unsampled values are inside too
    np.testing.assert_array_equal(result.inside(frame), routed)
    whole = result.coverage_on(frame)
    assert whole["inside"] == routed.sum() and whole["recall"] > 0.85


def test_rates_and_efficiencies_are_maximised_unless_told_and_savings_refuses_them():
    ds = starchart.load(dataset_path(ENERGY)).ok().sample(400, seed=4)
    result = tradeoff(ds, ("time", "TFLOPS/J"), {"time": 14, "TFLOPS/J": 0.05})
    assert result.minimize == {"time": True, "TFLOPS/J": False} and len(result.subspaces) > 0
    assert (result.data.frame.loc[result.inside(), "TFLOPS/J"].mean()
            > result.data.frame["TFLOPS/J"].mean())  # the chosen subspaces hold the efficient designs
    assert tradeoff(ds, ("time", "TFLOPS/J"), minimize={"time": True}).minimize["TFLOPS/J"] is False
    limits = suggest_limits(ds, ["time", "TFLOPS/J"], quantile=0.25)
    assert limits["TFLOPS/J"] == pytest.approx(np.quantile(ds.y("TFLOPS/J"), 0.75))
    with pytest.raises(InputError, match="'TFLOPS/J' is maximised"):
        result.savings()
    assert tradeoff(ds, ("time", "ps_power")).savings()["candidates"] >= 1


def test_tradeoff_bad_requests_are_clear_errors(kmeans):
    with pytest.raises(InputError, match=r"needs two metrics or more, got \['runtime'\]"):  # not its letters
        tradeoff(kmeans, "runtime", {"runtime": 0.2})  # one metric given as a string
    with pytest.raises(InputError, match="target for 'runtime' must be a number"):
        tradeoff(kmeans, ("runtime", "wattage"), {"runtime": "fast"})
    full = tradeoff(kmeans, ("runtime", "wattage"), {"runtime": 0.2})
    with pytest.raises(InputError, match="target for 'wattage' must be a number"):
        full.tighten(wattage="x")
    with pytest.raises(InputError, match="power='power' is not a metric"):
        full.savings(power="power")
    with pytest.raises(InputError, match="x='time' is not a metric"):
        full.plot(x="time")
    with pytest.raises(InputError, match="no column 'time'"):
        power_savings(kmeans.frame)
    with pytest.raises(InputError, match="max_slowdown must be"):
        power_savings(kmeans.frame, time="runtime", power="wattage", max_slowdown=-1)
    with pytest.raises(InputError, match="unknown tree option"):
        tradeoff(kmeans, ("runtime", "wattage"), tree_options={"max_deph": 3})


def _small() -> Dataset:
    X = pd.MultiIndex.from_product([[1, 2, 3], [1, 2, 4, 8]], names=["clock", "tile"]).to_frame(index=False)
    return Dataset.from_frame(X.assign(time=12 / X.clock + 2 * (X.tile == 1), power=20 * X.clock + 5 * (X.tile == 8)),
                              metrics=["time", "power"])


@pytest.mark.parametrize("kwargs, name", [
    ({"stat": "banana"}, "stat"), ({"stat": 2}, "stat"), ({"stat": True}, "stat"), ({"stat": float("nan")}, "stat"),
    ({"level": "junk"}, "level"), ({"level": -1}, "level"), ({"level": True}, "level"),
    ({"metrics": ("time",)}, "metrics"), ({"metrics": "time"}, "metrics"), ({"metrics": 5}, "metrics"),
    ({"minimize": "yes"}, "minimize"), ({"minimize": {"time": "yes"}}, "minimize"), ({"log": 5}, "log"),
    ({"limits": 5}, "limits"), ({"trees": 5}, "trees"), ({"trees": {"time": 1, "power": 2}}, "trees"),
], ids=["stat-word", "stat-above-1", "stat-bool", "stat-nan", "level-word", "level-negative", "level-bool",
        "one-metric", "one-metric-string", "metrics-number", "minimize-word", "minimize-value", "log-number",
        "limits-number", "trees-number", "trees-not-trees"])
def test_every_argument_is_checked_even_where_no_node_is_judged(kwargs, name):
    """Before: without targets no node is judged, so stat='banana' and level='junk' went unchecked; one metric
    gave a "trade-off" of one tree; minimize='yes' and metrics=5 raised ValueError/TypeError."""
    with pytest.raises(InputError) as caught:
        tradeoff(_small(), **{"metrics": ("time", "power"), **kwargs})
    assert caught.value.param == name


def test_stat_and_level_accept_what_they_document():
    result = tradeoff(_small(), ("time", "power"), {"time": 8.5, "power": 50}, stat=np.float64(1.0),
                      level=np.int64(1), minimize=np.bool_(True))
    assert result.stat == 1.0 and result.level == 1 and result.minimize == {"time": True, "power": True}
    assert tradeoff(_small(), ("time", "power"), {"time": 8.5}, stat="mean", level="leaves").stat == "mean"
