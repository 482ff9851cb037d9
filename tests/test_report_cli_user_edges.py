"""What a user met running ``info``, ``tree``, ``samples`` and ``report`` on odd data: an interrupted
store, brackets in names and paths, infinite values, very long metric names, huge data."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from starchart import Space, StarchartTree
from starchart.cli import app
from starchart.dataset import Dataset
from starchart.report.html import figure_svg
from starchart.report.plots import plot_leaf_distributions, plot_measurements, plot_progress, plot_tree
from starchart.report.study import write_study_report
from starchart.study.store import Store

runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _interrupted_store(path):
    """A store as `starchart run` leaves it when stopped before its first result: a space, no results."""
    with Store.open(path) as store:
        store.put("space", Space({"x": [1, 2, 3], "y": [1, 2]}).to_dict())
        store.put("evaluator", {"kind": "command", "metrics": ["time"]})
    return path


def test_report_and_tree_of_a_store_with_nothing_measured_say_so(tmp_path):
    store = _interrupted_store(tmp_path / "study.db")
    result = run("report", store, "-o", tmp_path / "r.html")
    assert result.exit_code == 2, result.output  # was an IndexError traceback
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "nothing" in result.output and "measured" in result.output and "starchart resume" in result.output
    tree = run("tree", store)
    assert tree.exit_code == 2
    # not "no configuration succeeded; ... shows why they failed": none was measured
    assert "failed" not in tree.output and "starchart resume" in tree.output


def test_tree_and_space_refuse_to_write_over_the_file_they_read(tmp_path):
    data = tmp_path / "k.csv"
    data.write_text("a,time\n" + "".join(f"{a},{1 + a % 3}\n" for a in range(12)))
    space = tmp_path / "s.yaml"
    space.write_text("parameters:\n  x: [1, 2, 4]\n")
    before = data.read_text(), space.read_text()
    for args in (("tree", data, "-o", data), ("space", space, "-n", "2", "-o", space)):
        result = run(*args)
        assert result.exit_code == 2, result.output  # was "wrote k.csv": the measurements replaced by the tree
        assert "-o: it names the input file" in result.output
    assert (data.read_text(), space.read_text()) == before


def _bracket_csv(path):
    rows = list(itertools.product(range(1, 11), range(1, 11)))
    frame = pd.DataFrame(rows, columns=["blk[x]", "tile[/b]"])
    frame["t[ms]"] = frame["blk[x]"] * 0.1 + frame["tile[/b]"] * 3.0 + 0.01 * np.arange(len(frame)) % 0.07
    frame.to_csv(path, index=False)
    return path


def test_samples_prints_names_and_a_store_path_with_brackets_as_written(tmp_path):
    data = _bracket_csv(tmp_path / "k.csv")
    folder = tmp_path / "run[" / "b]"  # a path holding "[/b]", rich's closing tag
    folder.mkdir(parents=True)
    result = run("samples", "--replay", data, "--metric", "t[ms]", "--validation", "20", "--start", "5",
                 "--budget", "10", "--target", "0.1%", "--store", folder / "s.db")
    # was a MarkupError traceback after everything was measured
    assert result.exit_code == 0, result.output
    assert "tree of t[ms]" in result.output and "tile[/b]" in result.output
    assert f"{folder / 's.db'} keeps what was measured" in result.output.replace("\n", "")


def test_best_measured_configuration_is_a_finite_one(tmp_path):
    frame = pd.DataFrame({"x": range(30), "time": np.linspace(1, 5, 30), "GFLOP/s": np.linspace(5, 1, 30)})
    frame.loc[5, "time"] = -np.inf  # a broken measurement: left out of the tree and the summary
    frame.loc[7, "GFLOP/s"] = np.inf  # a time of 0 read as a rate
    frame.to_csv(tmp_path / "k.csv", index=False)
    for metric, best in (("time", "1 ms"), ("GFLOP/s", "5")):
        page = write_study_report(tmp_path / "k.csv", tmp_path / metric.replace("/", "") / "r.html",
                                  metric=metric).read_text(encoding="utf-8")
        section = re.search(r'<section id="best">(.*?)</section>', page, re.S).group(1)
        assert "inf" not in section, section  # was "The best measured configuration (time = -inf ms)"
        assert re.search(rf"{metric} = {best}\b", section), section


def test_info_shows_long_metric_names_whole(tmp_path):
    name = "smsp__sass_thread_inst_executed_op_integer_pred_on.sum.per_cycle_active"
    frame = pd.DataFrame({"a": range(12), "b": [0, 1] * 6, "time": np.linspace(1, 2, 12),
                          name: np.linspace(3, 4, 12)})
    frame.to_csv(tmp_path / "k.csv", index=False)
    result = run("info", tmp_path / "k.csv", "--metrics", f"time,{name}")
    assert result.exit_code == 0, result.output
    # was cut to "smsp__sass_thread_inst_executed_op_integer_pr…": no name to pass to --metric
    table = result.output.split("metrics (valid")[1]
    assert "…" not in table
    first_column = "".join(line.split("│")[0].strip() for line in table.splitlines() if "│" in line)
    assert name in first_column  # whole, if folded over lines on a narrow screen


def _huge(n: int) -> Dataset:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.integers(0, 50, n), "b": np.arange(n)})
    frame["time"] = 1 + frame["a"] + rng.random(n)
    frame["repeats_time"] = [[t * 0.99, t, t * 1.01] for t in frame["time"]]
    return Dataset.from_frame(frame, params=["a", "b"], metrics=["time"])


def test_figures_of_huge_data_stay_small():
    ds = _huge(20_000)
    tree = StarchartTree(max_depth=3).fit(ds.X, ds.y("time"))
    sizes = {"measurements": len(figure_svg(plot_measurements(ds, "time"))),
             "leaves": len(figure_svg(plot_leaf_distributions(tree, ds, "time"))),
             "progress": len(figure_svg(plot_progress(ds.y("time"))))}
    # a vector mark per point made these 2-5 MB each (46 MB of HTML for a 100k-row store)
    assert max(sizes.values()) < 600_000, sizes


def test_a_one_leaf_tree_is_titled_in_the_singular():
    tree = StarchartTree().fit(pd.DataFrame({"x": range(12)}), np.full(12, 5.0))
    assert plot_tree(tree, metric="time").axes[0].get_title(loc="left").endswith(": 1 leaf, depth 0")
