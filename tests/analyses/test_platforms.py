"""Cross-platform analysis (paper §VII-B): merging, general settings, portable settings, tree differences."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from shared_data import dataset_path

import starchart
from starchart import Dataset
from starchart.analyses.platforms import compare_platforms, merge_platforms, relative_performance
from starchart.errors import InputError


def small_platforms():
    """Two platforms whose best settings differ: A likes large bx, B small bx; by = 2 helps both."""
    grid = pd.DataFrame(list(itertools.product([1, 2, 4, 8], [1, 2], [0, 1])), columns=["bx", "by", "pad"])
    time_a = 10.0 / grid.bx * np.where(grid.by == 2, 0.8, 1.0) + 0.01 * grid.pad
    time_b = 1.0 * grid.bx * np.where(grid.by == 2, 0.8, 1.0) + 0.01 * grid.pad
    status_b = np.where((grid.bx == 1) & (grid.by == 1) & (grid.pad == 1), "runtime", "ok")
    a = Dataset.from_frame(grid.assign(time=time_a), metrics=["time"])
    b = Dataset.from_frame(grid.assign(time=np.where(status_b == "ok", time_b, np.nan), status=status_b),
                           metrics=["time"])
    return {"A": a, "B": b}


def brute_force_general(values: pd.DataFrame, criterion: str) -> tuple:
    rel = relative_performance(values)
    with np.errstate(divide="ignore"):  # a failure (0) makes the geometric mean 0
        score = rel.min(axis=1) if criterion == "worst" else np.exp(np.log(rel).mean(axis=1))
    return score.idxmax()


def test_merge_adds_a_categorical_platform_parameter():
    data = small_platforms()
    merged = merge_platforms(data)
    assert merged.params == ["platform", "bx", "by", "pad"] and merged.metrics == ["time"]
    assert len(merged) == 32 and isinstance(merged.frame["platform"].dtype, pd.CategoricalDtype)
    assert merged.frame.groupby("platform", observed=True).size().to_dict() == {"A": 16, "B": 16}
    assert (merged.frame["status"] != "ok").sum() == 1
    tree = starchart.StarchartTree(min_samples_split=2).fit(merged.ok().X, merged.ok().y())
    assert tree.param_kinds_["platform"] == "categorical"


def test_merge_rejects_different_spaces_and_clashing_names():
    data = small_platforms()
    with pytest.raises(InputError, match="at least two"):
        merge_platforms({"A": data["A"]})
    other = Dataset.from_frame(pd.DataFrame({"bx": [1, 2], "tx": [1, 1], "time": [1.0, 2.0]}))
    with pytest.raises(InputError, match="'C' has other parameters.*extra: \\['tx'\\]"):
        merge_platforms({"A": data["A"], "C": other})
    with pytest.raises(InputError, match="called 'bx'"):
        merge_platforms(data, name="bx")
    with pytest.raises(InputError, match="lacks metric"):
        merge_platforms(data, metrics=["time", "power"])


def test_general_settings_speedups_and_portable_settings_match_brute_force():
    comparison = compare_platforms(small_platforms(), "time", tree_options={"min_samples_split": 2})
    values = comparison.values
    assert values.shape == (16, 2)
    assert np.isnan(values.loc[(1, 1, 1), "B"]) and comparison.relative.loc[(1, 1, 1), "B"] == 0.0
    for criterion in ("worst", "geomean"):
        best = brute_force_general(values, criterion)
        assert comparison.general(criterion) == dict(zip(["bx", "by", "pad"], best))
    speed = comparison.speedups().set_index("platform")
    worst = brute_force_general(values, "worst")
    for p in ("A", "B"):
        assert speed.loc[p, "own_best"] == values[p].min()
        assert speed.loc[p, "speedup_vs_worst"] == pytest.approx(values.loc[worst, p] / values[p].min())
        assert speed.loc[p, "speedup_vs_worst"] >= 1
    # A's best is bx=8, B's is bx=1: no setting is within 5 % on both; by = 2 always helps
    assert comparison.portable(0.05).empty
    needed = comparison.tolerance_needed()
    loose = comparison.portable(needed + 1e-9)
    assert len(loose) >= 1 and (loose["by"] == 2).all()
    assert loose["worst_relative"].iloc[0] == pytest.approx(1 / (1 + needed))
    subspaces = comparison.best_subspaces(min_samples=1).set_index("platform")
    assert "bx > 4" in subspaces.loc["A", "own_best"] or "bx = 8" in subspaces.loc["A", "own_best"]
    assert "bx ≤ 1" in subspaces.loc["B", "own_best"] or "bx = 1" in subspaces.loc["B", "own_best"]


def test_a_setting_failing_on_one_platform_is_never_general():
    data = small_platforms()
    frame = data["B"].frame.copy()
    # make the best worst-case setting fail on B
    best = compare_platforms(data, "time").general("worst")
    hit = np.ones(len(frame), dtype=bool)
    for k, v in best.items():
        hit &= (frame[k] == v).to_numpy()
    frame.loc[hit, "status"], frame.loc[hit, "time"] = "runtime", np.nan
    data["B"] = Dataset.from_frame(frame, metrics=["time"])
    assert compare_platforms(data, "time").general("worst") != best


@pytest.fixture(scope="module")
def convolution():
    return {p: starchart.load(dataset_path(f"convolution/{p}.json.gz")) for p in ("A100", "A4000", "A6000")}


def test_convolution_three_gpus(convolution):
    comparison = compare_platforms(convolution, "time", samples=200, seed=1)
    assert comparison.platforms == ["A100", "A4000", "A6000"]
    assert len(comparison.values) <= 200 and comparison.tree.param_kinds_["platform"] == "categorical"
    speed = comparison.speedups()
    assert (speed["speedup_vs_worst"] >= 1).all() and (speed["speedup_vs_geomean"] >= 1).all()
    # the worst-case general setting maximises the smallest relative performance over all sampled settings
    rel = comparison.relative
    general = tuple(comparison.general("worst").values())
    assert rel.loc[general].min() == pytest.approx(rel.min(axis=1).max())
    # own best is the fastest sampled valid measurement of that platform
    for p, ds in convolution.items():
        assert speed.set_index("platform").loc[p, "own_best"] == comparison.values[p].min()
    diff = comparison.differences()
    corr = diff["correlation"]
    assert corr.shape == (3, 3) and np.allclose(corr.to_numpy(), corr.to_numpy().T)
    assert 0.5 < corr.loc["A100", "A4000"] < 1  # Ampere GPUs rank configurations alike (README: ≈ 0.85)
    assert set(diff["importance"].columns) == {"A100", "A4000", "A6000", "merged tree"}
    assert diff["importance"]["A100"].drop("platform").sum() == pytest.approx(1.0)
    assert len(diff["splits"]) == 3
    fig = comparison.plot()
    assert isinstance(fig, Figure) and len(fig.axes) >= 2
    headings = [h for h, _ in comparison.report_sections()]
    assert headings[0] == "Platforms: own best vs one general setting"


def test_best_subspaces_place_each_design_in_its_leaf_of_the_merged_tree(convolution):
    comparison = compare_platforms(convolution, "time", samples=200, seed=1)
    table = comparison.best_subspaces(min_samples=3).set_index("platform")
    frame = comparison.data.frame
    for p in comparison.platforms:  # the leaf regions, tested row by row, give the same best subspace
        on_p = (frame["platform"] == p).to_numpy()
        stats = [(frame.loc[leaf.contains(frame) & on_p, "time"].mean(), (leaf.contains(frame) & on_p).sum())
                 for leaf in comparison.tree.leaves_]
        best_mean, best_n = min((m, n) for m, n in stats if n >= 3)
        assert table.loc[p, "merged_best_mean"] == pytest.approx(best_mean) and table.loc[p, "merged_best_n"] == best_n


def test_report_tables_are_worded_and_an_empty_portable_table_is_explained(convolution):
    sections = dict(compare_platforms(convolution, "time").report_sections())
    speed = sections["Platforms: speed-up of each platform's own best"]
    assert "own best vs worst-case setting (×)" in speed.columns and "speedup_vs_worst" not in speed.columns
    assert speed["own best configuration"].iloc[0].startswith("block_size_x=32, block_size_y=4")
    assert "designs (merged)" in sections["Platforms: best subspaces"].columns
    # no setting is within 5 % everywhere on these three GPUs: the report says how close the best one comes
    portable = sections["Settings within 5% of the best everywhere"]
    assert isinstance(portable, str) and "needs a tolerance of 38.4%" in portable


def test_compare_errors():
    data = small_platforms()
    with pytest.raises(InputError, match="no 'platform' parameter"):
        compare_platforms(data["A"])
    with pytest.raises(InputError, match="cannot draw 100"):
        compare_platforms(data, samples=100)
    with pytest.raises(InputError, match="no metric named 'power'"):
        compare_platforms(data, "power")
    with pytest.raises(InputError, match=r"\{platform: dataset\}, got list"):
        compare_platforms(list(data.values()), "time")
    with pytest.raises(InputError, match="unknown tree option"):
        compare_platforms(data, "time", tree_options={"max_deph": 3})


def test_a_rate_is_maximised_by_default_and_a_filtered_merge_compares_the_platforms_left(convolution):
    comparison = compare_platforms(convolution, "GFLOP/s", samples=200, seed=1)
    assert not comparison.minimize
    own = comparison.speedups().set_index("platform")["own_best"]
    for p in comparison.platforms:  # the own best is the highest GFLOP/s, not the lowest
        assert own[p] == comparison.values[p].max()
    merged = merge_platforms(convolution)
    two = Dataset(frame=merged.frame[merged.frame["platform"] != "A6000"], params=list(merged.params),
                  metrics=list(merged.metrics), meta=dict(merged.meta))
    assert compare_platforms(two, "time", samples=50).platforms == ["A100", "A4000"]
    one = Dataset(frame=merged.frame[merged.frame["platform"] == "A100"], params=list(merged.params),
                  metrics=list(merged.metrics), meta=dict(merged.meta))
    with pytest.raises(InputError, match="only one platform"):
        compare_platforms(one, "time")
    from starchart.report.study import study_sections
    assert not [h for h, _ in study_sections(one, "time") if h.startswith("Platforms")]  # skipped, no error


def test_split_label():
    from pathlib import Path

    from starchart.analyses.platforms import split_label

    assert split_label("A100=a.json") == ("A100", Path("a.json"))
    assert split_label("a.json") == (None, Path("a.json"))
    with pytest.raises(InputError, match="no file after A100="):
        split_label("A100=")


def test_each_platforms_best_against_a_shipped_default():
    """§VII-B measures each platform's best against the shipped default (6.3× on AMD, 1.3× on NVIDIA)."""
    from starchart import datasets
    from starchart.errors import InputError

    gpus = {gpu: datasets.load_convolution(gpu) for gpu in ("A100", "A4000")}
    comparison = compare_platforms(gpus, "time")
    default = {"block_size_x": 16, "block_size_y": 1, "tile_size_x": 1, "tile_size_y": 1, "read_only": 0,
               "use_padding": 0, "use_shmem": 0, "use_cmem": 1, "filter_height": 15, "filter_width": 15}
    table = comparison.against({name: str(value) for name, value in default.items()}).set_index("platform")
    for gpu, data in gpus.items():
        frame = data.ok().frame
        measured = frame.loc[(frame[list(default)] == pd.Series(default)).all(axis=1), "time"]
        assert table.loc[gpu, "baseline"] == pytest.approx(float(measured.iloc[0]))
        assert table.loc[gpu, "best_vs_baseline"] == pytest.approx(table.loc[gpu, "baseline"] / frame["time"].min())
    with pytest.raises(InputError, match="the baseline lacks") as caught:
        comparison.against({"block_size_x": 16})
    assert caught.value.param == "baseline"


def test_a_baseline_value_matches_the_level_written_alike_before_one_equal_as_a_number():
    """"1" is the level "1", not "01" (both are 1 as numbers): the exact level was passed over."""
    frame = pd.DataFrame({"unroll": ["01", "1", "2"] * 2, "time": [3.0, 1.0, 2.0, 3.5, 1.5, 2.5]})
    platforms = {name: Dataset.from_frame(part.reset_index(drop=True), metrics=["time"])
                 for name, part in (("a", frame.iloc[:3]), ("b", frame.iloc[3:]))}
    table = compare_platforms(platforms, "time", tree_options={"min_samples_split": 2}).against({"unroll": "1"})
    assert table.set_index("platform")["baseline"].to_dict() == {"a": 1.0, "b": 1.5}
