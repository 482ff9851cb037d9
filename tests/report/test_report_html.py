"""The HTML report and the matplotlib figures, on the Starchart authors' kmeans measurements."""

from __future__ import annotations

import io
import re
from html import escape

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from shared_data import dataset_path

import starchart
from starchart import Dataset, Space, StarchartTree
from starchart.errors import InputError
from starchart.report.html import FIGURE_NAMES, figure_svg, write_html_report
from starchart.report.plots import (
    PAGE_INCHES,
    failure_counts,
    metric_label,
    plot_importance,
    plot_leaf_distributions,
    plot_measurements,
    plot_progress,
    plot_tree,
)


@pytest.fixture(scope="module")
def kmeans() -> Dataset:
    return starchart.load(dataset_path("starchart_kmeans/kmeans_hd7970.csv"))


@pytest.fixture(scope="module")
def fitted(kmeans) -> tuple[Dataset, StarchartTree]:
    train = kmeans.ok().sample(200, seed=1)
    return train, StarchartTree().fit(train.X, train.y("runtime"))


@pytest.fixture(scope="module")
def with_failures(kmeans) -> Dataset:
    """kmeans with 30 configurations turned into failures, per-repeat values and an environment."""
    frame = kmeans.to_frame()
    rng = np.random.default_rng(0)
    frame["repeats_runtime"] = [list(v * rng.uniform(0.95, 1.05, 3)) for v in frame["runtime"]]
    failed = frame.index[:30]
    frame.loc[failed, ["runtime", "wattage"]] = np.nan
    frame.loc[failed, "repeats_runtime"] = pd.Series([[]] * 30, index=failed)
    frame.loc[failed[:20], "status"] = "compile"
    frame.loc[failed[:20], "reason"] = "error: 'x' <undeclared> & more"
    frame.loc[failed[20:], "status"] = "timeout"
    frame.loc[failed[20:], "reason"] = "killed after 60 s"
    meta = {"source": "kmeans <edited>.csv", "kernel_name": "kmeans",
            "environment": {"cpu": "Xeon <E5>", "compiler": {"name": "gcc", "version": "12.2"}, "gpu_source": None}}
    return Dataset.from_frame(frame, params=kmeans.params, metrics=kmeans.metrics, meta=meta)


def visible_text(html: str) -> str:
    """The page without its inline figures and style sheet."""
    return re.sub(r"<svg.*?</svg>|<style>.*?</style>", "", html, flags=re.DOTALL)


def test_report_sections(fitted, tmp_path):
    train, tree = fitted
    out = write_html_report(tmp_path / "out" / "report.html", dataset=train, tree=tree, metric="runtime",
                            title="kmeans on HD 7970")
    assert out == tmp_path / "out" / "report.html"
    html = out.read_text(encoding="utf-8")
    text = visible_text(html)
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") == 5  # four figures and the validation plot
    # Self-contained: no scripts, no external style sheets or images.
    assert not re.search(r"<script|<link|<img|src=|@import|url\((?!#)", html)
    best = tree.best_leaf()
    assert escape(best.description) in text
    assert f"over n = {best.n_samples} training" in text
    # The leaf table lists every leaf, the best one highlighted.
    for leaf in tree.leaves_:
        assert escape(leaf.description) in text
    assert f'<tr class="highlight"><td class="num">{best.node_id}</td>' in text  # one numbering: node ids
    assert escape(tree.export_text()) in text
    assert "No configuration failed." in text
    for name in FIGURE_NAMES:
        svg = (out.parent / f"report-{name}.svg").read_text(encoding="utf-8")
        assert svg.startswith("<?xml") and "<svg" in svg and svg.rstrip().endswith("</svg>")


def test_report_with_failures_space_and_extras(fitted, with_failures, tmp_path):
    _, tree = fitted
    space = Space({"ppb": list(range(1, 257)), "tpp": list(range(1, 33)), "consec": [0, 1]}, ["ppb * tpp <= 4096"])
    extra = Figure()
    extra.add_subplot().plot([1, 2], [3, 4])
    out = write_html_report(tmp_path / "report.html", dataset=with_failures, tree=tree, metric="runtime",
                            title="<script>alert(1)</script>", space=space,
                            extra_sections={"Notes <1>": "<p>kept as <b>HTML</b></p>",
                                            "A table": pd.DataFrame({"x": ["<y>"]}), "A plot": extra},
                            save_figures=False)
    html = out.read_text(encoding="utf-8")
    text = visible_text(html)
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    # Failures by status, with their reasons escaped.
    assert failure_counts(with_failures) == {"compile": 20, "timeout": 10}
    assert '<td>compile</td><td class="num">20</td>' in text
    assert "20× error: &#x27;x&#x27; &lt;undeclared&gt; &amp; more" in text
    assert "10× killed after 60 s" in text
    assert "30 failed" in html or ">30<" in text
    # The space, the environment and the source, escaped.
    assert f"{space.size():,}" in text
    assert "Xeon &lt;E5&gt;" in text and "kmeans &lt;edited&gt;.csv" in text
    assert "<th>gpu_source</th><td>–</td>" in text and "None" not in text  # nothing known: a dash
    assert "Notes &lt;1&gt;" in text and "<p>kept as <b>HTML</b></p>" in text and "&lt;y&gt;" in text
    assert '<a href="#extra-0">Notes &lt;1&gt;</a>' in html and '<a href="#extra-2">A plot</a>' in html  # linked
    assert html.count("<svg") == 6  # four figures, the validation plot, one extra
    assert not list(tmp_path.glob("*.svg"))
    # Saved, every figure has its file, an extra one named after its heading.
    write_html_report(tmp_path / "saved" / "report.html", dataset=with_failures, tree=tree, metric="runtime",
                      extra_sections={"Power/performance trade-off": extra, "A table": pd.DataFrame({"x": [1]})})
    assert sorted(p.name for p in (tmp_path / "saved").glob("*.svg")) == sorted(
        [f"report-{name}.svg" for name in (*FIGURE_NAMES, "validation")] + ["report-power-performance-trade-off.svg"])


def test_report_rejects_unknown_metric(fitted, tmp_path):
    train, tree = fitted
    with pytest.raises(InputError, match="no metric named 'speed'"):
        write_html_report(tmp_path / "r.html", dataset=train, tree=tree, metric="speed")


def test_report_refuses_a_tree_of_another_metric(fitted, tmp_path):
    train, _ = fitted
    of_power = StarchartTree(max_depth=2).fit(train.X, train.y("wattage"))
    with pytest.raises(InputError) as refused:
        write_html_report(tmp_path / "r.html", dataset=train, tree=of_power, metric="runtime", save_figures=False)
    assert "the tree was not fitted on 'runtime'" in str(refused.value) and "it fits 'wattage'" in str(refused.value)
    assert not (tmp_path / "r.html").exists()


def test_two_reports_in_one_folder_keep_their_own_figures(fitted, tmp_path):
    train, tree = fitted
    small = StarchartTree(max_depth=1).fit(train.X, train.y("runtime"))
    for name, fitted_tree in (("a", tree), ("b", small)):
        write_html_report(tmp_path / f"{name}.html", dataset=train, tree=fitted_tree, metric="runtime")
    figures = {name: (tmp_path / f"{name}-tree.svg").read_text(encoding="utf-8") for name in "ab"}
    assert figures["a"] != figures["b"]
    assert sorted(p.name for p in tmp_path.glob("*.svg")) == sorted(
        f"{name}-{figure}.svg" for name in "ab" for figure in (*FIGURE_NAMES, "validation"))


def test_figures_render(fitted, with_failures):
    train, tree = fitted
    figs = [plot_tree(tree, metric="runtime"), plot_tree(tree, max_depth=2, minimize=False),
            plot_importance(tree), plot_importance(tree, node_id=tree.root_.right),
            plot_leaf_distributions(tree, with_failures, "runtime"),
            plot_measurements(with_failures, "runtime"), plot_measurements(train, "wattage", minimize=False)]
    for fig in figs:
        assert isinstance(fig, Figure)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=40)
        assert buffer.getvalue()[:4] == b"\x89PNG"
    assert "3 failed" not in figs[5].axes[0].get_title(loc="left")
    assert figs[5].axes[0].get_title(loc="left") == ("runtime: 470 valid of 500 configurations, 30 failed "
                                           "(20 compile, 10 timeout)")
    # The leaf plot has one labelled row per leaf (the 20 best of a larger tree), the best (lowest mean) on top,
    # each named by its node id as in the tree figure and the leaf table.
    labels = [t.get_text() for t in figs[4].axes[0].get_yticklabels()]
    assert len(labels) == min(tree.n_leaves_, 20) and tree.best_leaf().description in labels[0]
    assert labels[0].startswith(f"[{tree.best_leaf().node_id}]")
    # The cut tree draws nodes down to depth 2 only.
    assert "…" in "".join(t.get_text() for t in figs[1].axes[0].texts)


def test_small_trees_and_empty_data():
    ds = Dataset.from_frame(pd.DataFrame({"mode": ["a", "b", "c", "d"], "time": [1.0, 5.0, 2.0, np.nan],
                                          "status": ["ok", "ok", "ok", "runtime"]}))
    stump = StarchartTree().fit(ds.ok().X, ds.ok().y())  # too few samples to split: one leaf
    assert stump.n_leaves_ == 1
    for fig in (plot_tree(stump), plot_importance(stump), plot_leaf_distributions(stump, ds)):
        fig.savefig(io.BytesIO(), format="svg")
    categorical = StarchartTree(min_samples_split=2).fit(ds.ok().X, ds.ok().y())
    edges = "".join(t.get_text() for t in plot_tree(categorical, metric="time").axes[0].texts)
    assert "∈ {" in edges
    nothing = Dataset.from_frame(pd.DataFrame({"x": [1, 2], "time": [np.nan, np.nan],
                                               "status": ["compile", "timeout"]}))
    fig = plot_measurements(nothing)
    assert fig.axes[0].texts[0].get_text() == "no valid measurements"
    assert figure_svg(fig).startswith("<svg")
    assert metric_label("time") == "time (ms)" and metric_label("speed", "GB/s") == "speed (GB/s)"


def test_tree_title_does_not_overlap_the_colour_bar():
    """A small tree's title and the colour bar in the top-right corner sit side by side, not on each other."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    X = pd.DataFrame({"block_size_x": [128, 256, 384, 448, 512, 640, 768, 896, 1024] * 2})
    y = [0.0415, 0.0416, 0.0414, 0.0325, 0.0405, 0.0404, 0.0318, 0.0406, 0.0407] * 2
    tree = StarchartTree(min_samples_split=2).fit(X, y)
    for metric, unit in (("time", None), ("energy_per_configuration", "mJ")):
        fig = plot_tree(tree, metric=metric, unit=unit)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
        heading = fig.axes[0].get_title(loc="left")
        title = next(t for t in fig.axes[0].get_children() if getattr(t, "get_text", None) and t.get_text() == heading)
        title = title.get_window_extent(renderer)
        bar = fig.axes[1]
        texts = [bar.xaxis.label, *bar.get_xticklabels()]
        for text in texts:
            box = text.get_window_extent(renderer)
            assert not title.overlaps(box), (metric, text.get_text())


def test_tree_edge_conditions_do_not_overlap():
    """Long thresholds on the edges of neighbouring leaves (≤ 1590 | > 1590) stay apart."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    clocks = list(range(1005, 3500, 105))  # 24 clocks: more leaves than the figure's minimum width spreads
    X = pd.DataFrame({"nvml_gr_clock": clocks * 2})
    tree = StarchartTree(min_samples_split=2).fit(X, [1e4 / c for c in clocks] * 2)
    assert tree.n_leaves_ == 24
    fig = plot_tree(tree, metric="time")
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    edges = [t for t in fig.axes[0].texts if t.get_text()[:1] in "≤>"]
    assert len(edges) == 2 * (tree.n_leaves_ - 1)
    boxes = [t.get_window_extent(renderer) for t in edges]
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            assert not a.overlaps(boxes[j]), (edges[i].get_text(), edges[j].get_text())


def test_large_tree_is_drawn_as_its_splits_that_matter_with_the_best_leaf(kmeans, tmp_path):
    """Before: a 775-leaf tree showed as a small corner, the best leaf off-screen to the right."""
    from starchart.report.plots import splits_that_matter
    tree = StarchartTree(min_samples_split=2).fit(kmeans.X, kmeans.y("runtime"))
    assert tree.n_leaves_ > 120
    shown = splits_that_matter(tree)
    best = tree.best_leaf().node_id
    assert best in {child for node in tree.nodes_ if node.id in shown for child in (node.left, node.right)}
    biggest = max((node for node in tree.nodes_ if not node.is_leaf), key=lambda node: node.improvement)
    assert biggest.id in shown  # the split that reduces the error most
    fig = plot_tree(tree, metric="runtime", expand=shown)
    assert fig.get_figwidth() <= PAGE_INCHES  # one page wide: nothing to scroll to
    out = write_html_report(tmp_path / "r.html", dataset=kmeans, tree=tree, metric="runtime",
                            save_figures=False)
    assert f"Of its {tree.n_leaves_ - 1} splits, the {len(shown)} drawn are the path to the best leaf" in \
        out.read_text(encoding="utf-8")


def test_a_tree_drawn_by_its_top_splits_shows_those_and_the_way_to_the_best_leaf(kmeans):
    from starchart.tree import expanded_nodes

    tree = StarchartTree().fit(kmeans.X, kmeans.y("runtime"))
    fig = plot_tree(tree, metric="runtime", top_splits=2)
    splits = [t.get_text() for t in fig.axes[0].texts if "≤" in t.get_text() or t.get_text().startswith("tpp >")]
    assert 0 < len(splits) <= 2 * len(expanded_nodes(tree, top_splits=2))
    assert fig.get_figwidth() < plot_tree(tree, metric="runtime").get_figwidth()
    with pytest.raises(InputError, match="top_splits"):
        plot_tree(tree, top_splits=0)


def test_the_merged_platform_tree_shades_each_platforms_best_subspace():
    from starchart import datasets
    from starchart.analyses.platforms import compare_platforms

    data = {gpu: datasets.load_convolution(gpu) for gpu in ("A100", "A4000", "A6000")}
    comparison = compare_platforms(data, "time", samples=200, seed=0)
    best = comparison.best_subspaces()
    nodes = dict(zip(best.platform, best.merged_best_node))
    assert all(comparison.tree.nodes_[n].is_leaf for n in nodes.values())
    fig = comparison.plot_tree(top_splits=3)
    texts = [t.get_text() for t in fig.axes[0].texts]
    for gpu, node in nodes.items():
        label = next(t for t in texts if t.startswith("best on") and gpu in t)
        assert f"[{node}]" in " ".join(texts) and label  # the leaf is drawn, and labelled with its GPU
    shades = [p for p in fig.axes[0].patches if p.get_alpha() == 0.35]
    assert len(shades) == len(set(nodes.values()))


def test_the_merged_input_tree_shades_each_sizes_best_subspace():
    from child_env import ROOT

    from starchart.analyses.inputs import input_sensitivity
    from starchart.tree import best_leaf_per_group

    data = starchart.load(ROOT / "data" / "h200" / "bfs-inputs.csv")
    result = input_sensitivity(data, inputs=["n"], work="n", size="n")
    frame = result.data.frame
    best = best_leaf_per_group(result.tree, frame, frame["n"], frame[result.metric], minimize=result.minimize)
    assert sorted(best) == sorted(frame["n"].unique())
    for size, (leaf, mean, rows) in best.items():  # no leaf with three or more of its rows does better
        on = (frame["n"] == size).to_numpy()
        leaves = result.tree.apply(frame.loc[on, result.tree.feature_names_in_])
        means = frame.loc[on, result.metric].groupby(leaves).agg(["mean", "size"])
        assert rows >= 3 and mean == means.loc[means["size"] >= 3, "mean"].max()
    texts = [t.get_text() for t in result.plot_tree(top_splits=3).axes[0].texts]
    assert {f"best on n={size}" for size in best} <= set(texts)


def test_measurements_legend_hides_no_repeat_bar():
    """The legend sat in the upper-left corner of the axes, over the first configurations' repeat bars
    when their values jump (Kernel Tuner's 15-configuration vector_add cache: rank 5 onwards)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ds = starchart.load(dataset_path("kernel_tuner_fixtures/test_cache_time_energy.json"))
    fig = plot_measurements(ds, "time")
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent(canvas.get_renderer())
    bars = [ax.transData.transform(segment) for segment in ax.collections[0].get_segments()]
    assert len(bars) == 15
    hidden = [k for k, ((x, y0), (_, y1)) in enumerate(bars)
              if legend.x0 <= x <= legend.x1 and min(y0, y1) <= legend.y1 and max(y0, y1) >= legend.y0]
    assert not hidden


def test_progress_draws_failures_apart_from_the_values():
    """Failures were drawn × at the lowest value, on the best-so-far line, where they read as good results:
    they now sit in a strip of their own above the plot, labelled "failed"."""
    values = [5.0, 3.0, float("nan"), 4.0, 2.5, float("nan"), 2.0]
    fig = plot_progress(values, metric="time")
    ax, strip = fig.axes
    # the value axes hold only the 5 measured values (and the best-so-far line)
    assert sum(len(c.get_offsets()) for c in ax.collections) == 5
    assert strip.get_ylabel() == "failed"
    (failed,) = strip.collections
    assert failed.get_offsets()[:, 0].tolist() == [3, 6]  # evaluations 3 and 6
    assert strip.get_shared_x_axes().joined(ax, strip)  # same evaluation scale
    assert "2 failed" in strip.get_title(loc="left")
    # without failures: one axes, as before
    assert len(plot_progress([3.0, 2.0, 1.0]).axes) == 1


def _root_box_inches(fig: Figure, tree: StarchartTree) -> tuple[float, float]:
    """Left and right edge, in inches from the figure's left, of the root's box."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    root = tree.root_
    box = next(t for t in fig.axes[0].texts
               if t.get_text().startswith(f"{root.feature}\nn={root.n_samples}\n")).get_window_extent(
        canvas.get_renderer())
    return box.x0 / fig.dpi, box.x1 / fig.dpi


def test_a_tree_wider_than_the_page_starts_at_the_top_left(kmeans):
    """A browser shows the left part of a wide figure first; centred over a wide tree, the root lay far
    to the right, and a reader saw an empty corner (and no colour bar) where the tree should begin."""
    tree = StarchartTree(min_samples_split=2).fit(kmeans.X, kmeans.y("runtime"))
    fig = plot_tree(tree, metric="runtime", max_depth=6)
    width = fig.get_figwidth()
    assert width > 2 * PAGE_INCHES  # the case this is about
    left, right = _root_box_inches(fig, tree)
    assert right < 1.5, (left, right)
    bar = fig.axes[1].get_position()  # the colour bar, in figure fractions
    assert bar.x1 * width < PAGE_INCHES
    # centred on request, as a small tree still is: the root half-way across
    centred = plot_tree(tree, metric="runtime", max_depth=6, root_left=False)
    assert _root_box_inches(centred, tree)[0] > PAGE_INCHES


def test_a_tree_that_fits_the_page_stays_centred():
    X = pd.DataFrame({"x": list(range(8)) * 2})
    tree = StarchartTree(min_samples_split=2).fit(X, [1.0, 2, 4, 8, 16, 32, 64, 128] * 2)
    fig = plot_tree(tree, metric="time")
    assert fig.get_figwidth() <= PAGE_INCHES
    left, _ = _root_box_inches(fig, tree)
    assert left > 1.5  # centred over its children, not moved to the edge


def test_captioned_extra_keeps_its_figure_and_escapes_its_note(fitted, tmp_path):
    from starchart.report.html import Captioned

    train, tree = fitted
    extra = Figure()
    extra.add_subplot().plot([1, 2], [3, 4])
    out = write_html_report(tmp_path / "r.html", dataset=train, tree=tree, metric="runtime",
                            extra_sections={"A plot": Captioned(extra, "read <this> first")})
    html = out.read_text(encoding="utf-8")
    assert '<p class="caution">read &lt;this&gt; first</p>' in html
    assert (tmp_path / "r-a-plot.svg").is_file()


def test_the_validation_plot_shows_the_top_split_parameter_by_the_next(tmp_path):
    from starchart import datasets
    from starchart.report.plots import validation_pair

    ds = datasets.load_kmeans()
    tree = StarchartTree().fit(ds.ok().X, ds.ok().y("runtime"))
    x, hue = validation_pair(tree, ds)
    top = max((n for n in tree.nodes_ if not n.is_leaf), key=lambda n: n.improvement)
    assert x == top.feature == "tpp" and hue not in (None, x)
    out = write_html_report(tmp_path / "k.html", dataset=ds, tree=tree, metric="runtime")
    saved = (tmp_path / "k-validation.svg").read_text(encoding="utf-8")
    assert "Validation (the paper" in out.read_text(encoding="utf-8") and "<svg" in saved
    one_leaf = StarchartTree().fit(ds.ok().X.iloc[:5], ds.ok().y("runtime")[:5])
    assert validation_pair(one_leaf, ds) is None
    write_html_report(tmp_path / "one.html", dataset=ds, tree=one_leaf, metric="runtime")
    assert not (tmp_path / "one-validation.svg").exists()
