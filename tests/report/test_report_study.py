"""`starchart report`: the sections that apply to a store or a data file."""

from __future__ import annotations

import itertools
import json
import re
from html import unescape

import numpy as np
import pandas as pd
import pytest
from shared_data import dataset_path
from typer.testing import CliRunner

import starchart
from starchart import Space, StarchartTree
from starchart._util.direction import lower_is_better
from starchart.analyses.platforms import merge_platforms
from starchart.cli import app
from starchart.dataset import Dataset
from starchart.io.load import NothingToModelWarning
from starchart.measure import PythonEvaluator
from starchart.report.html import figure_svg
from starchart.report.plots import metric_label, plot_leaf_distributions, plot_measurements, plot_progress, plot_tree
from starchart.report.study import write_study_report
from starchart.study.store import Store


def _headings(path):
    return re.findall(r"<h2[^>]*>([^<]*)</h2>", path.read_text(encoding="utf-8"))


def test_store_report_shows_progress(tmp_path):
    space = starchart.Space({"x": list(range(20)), "y": [1, 2, 3]})
    store = tmp_path / "s.db"
    starchart.run(space, PythonEvaluator(lambda c: (c["x"] - 7) ** 2 + c["y"]), samples=30, store=store, seed=1,
                  progress=False)
    result = CliRunner().invoke(app, ["report", str(store), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    headings = _headings(tmp_path / "r.html")
    assert "Progress: values in the order measured" in headings
    assert not any("Power" in h for h in headings)


def test_data_report_with_power_and_accuracy(tmp_path):
    path = write_study_report(dataset_path("starchart_kmeans/kmeans_hd7970.csv"), tmp_path / "k.html",
                              metric="runtime")
    headings = _headings(path)
    assert "Accuracy vs training samples" in headings and "Power/performance trade-off" in headings


def test_platform_table_for_merged_data(tmp_path):
    merged = merge_platforms({name: starchart.load(dataset_path(f"convolution/{name}.json.gz"))
                              for name in ("A100", "A4000")}, metrics=["time"])
    csv = tmp_path / "both.csv"
    merged.to_csv(csv)
    result = CliRunner().invoke(app, ["report", str(csv), "-o", str(tmp_path / "p.html")])
    assert result.exit_code == 0, result.output
    assert any("latform" in h for h in _headings(tmp_path / "p.html"))


def test_search_store_report_shows_the_search_settings_and_prior(tmp_path):
    space = starchart.Space({"x": list(range(20)), "y": [1, 2, 3]})
    evaluator = PythonEvaluator(lambda c: (c["x"] - 7) ** 2 + c["y"])
    prior = tmp_path / "earlier.db"
    starchart.run(space, evaluator, samples=40, store=prior, seed=2, progress=False)
    store = tmp_path / "s.db"
    starchart.search(evaluator, space, 15, seed=1, store=store, progress=False, prior=prior)
    html = write_study_report(store, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Search settings" in _headings(tmp_path / "r.html")
    assert "earlier.db" in html and "(minimised)" in html
    starchart.search(evaluator, space, 15, seed=1, store=tmp_path / "cold.db", progress=False)
    cold = write_study_report(tmp_path / "cold.db", tmp_path / "c.html").read_text(encoding="utf-8")
    assert "none (cold start)" in cold
    # 15 of 60: the report says how much of the best's one-parameter neighbourhood the search measured
    result = starchart.search(evaluator, space, 15, seed=1, progress=False)
    assert result.neighbourhood.describe() in cold and "around the best" in cold
    assert "spent" not in cold  # the whole budget was spent
    stopped = tmp_path / "stopped.db"
    with starchart.Store.open(stopped) as db:  # as a search stopped after 4 evaluations leaves its store
        starchart.search(evaluator, space, 4, seed=1, store=db, progress=False)
        db.put("search", {**db.get("search"), "budget": 15})
    part = write_study_report(stopped, tmp_path / "p.html").read_text(encoding="utf-8")
    assert "15 (4 spent: the search stopped early, and starchart resume continues it)" in part


def test_report_of_several_files_compares_them_as_platforms(tmp_path, monkeypatch):
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("bx,time\n1,3\n2,2\n4,1\n8,2\n")
    b.write_text("bx,time\n1,1\n2,1.5\n4,4\n8,5\n")
    result = CliRunner().invoke(app, ["report", str(a), f"second={b}", "-o", str(tmp_path / "p.html")])
    assert result.exit_code == 0, result.output
    headings = _headings(tmp_path / "p.html")
    assert "Platforms: speed-up of each platform&#x27;s own best" in headings
    assert "starchart report: a · second" in (tmp_path / "p.html").read_text(encoding="utf-8")
    # the default output goes to the current folder, not beside the data (read-only, or a package's)
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert CliRunner().invoke(app, ["report", str(a), str(b)]).exit_code == 0
    assert (here / "platforms-report" / "report.html").exists() and not (tmp_path / "platforms-report").exists()
    assert CliRunner().invoke(app, ["report", str(a)]).exit_code == 0
    assert (here / "a-report" / "report.html").exists()


def test_report_limits_set_the_tradeoff_targets(tmp_path):
    kmeans = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = CliRunner().invoke(app, ["report", str(kmeans), "-m", "runtime", "-o", str(tmp_path / "k.html"),
                                      "--limit", "runtime=0.5", "--limit", "wattage=210"])
    assert result.exit_code == 0, result.output
    assert "Subspaces meeting the targets" in _headings(tmp_path / "k.html")
    assert "runtime ≤ 0.5" in (tmp_path / "k.html").read_text(encoding="utf-8")
    result = CliRunner().invoke(app, ["report", str(kmeans), "--limit", "runtime=0.5", "--limit", "watts=1"])
    assert result.exit_code == 2 and "'watts', which is not a metric of the data" in result.output


def test_one_labelled_file_is_named_by_its_label(tmp_path):
    kmeans = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = CliRunner().invoke(app, ["report", f"HD7970={kmeans}", "-o", str(tmp_path / "k.html")])
    assert result.exit_code == 0, result.output  # was "file not found"
    assert "starchart report: HD7970" in (tmp_path / "k.html").read_text(encoding="utf-8")


def test_one_limit_pairs_with_the_time_and_unmet_limits_are_explained(tmp_path):
    from starchart.report.study import traded_metrics

    energy = starchart.load(dataset_path("energy/AD4000_wmma_complex_gemm_opt_16bit_1x4096x4096x4096.json.gz"))
    assert traded_metrics(energy) == ["time", "Watt"]
    assert traded_metrics(energy, {"ps_power": 60}) == ["time", "ps_power"]  # was "no metric to trade it against"
    assert traded_metrics(energy, {"TFLOPS/J": 0.8}) == ["time", "TFLOPS/J"]
    assert traded_metrics(energy, {"time": 10}) == ["time", "Watt"]
    kmeans = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = CliRunner().invoke(app, ["report", str(kmeans), "-o", str(tmp_path / "k.html"),
                                      "--limit", "runtime=0.01", "--limit", "wattage=100"])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "k.html").read_text(encoding="utf-8")
    section = html[html.index("<h2>Subspaces meeting the targets</h2>"):]
    section = section[:section.index("</section>")]
    assert "<table" not in section  # not an empty table: why there is none
    assert "No subspace meets the targets." in section and "no measured design meets every target" in section


def test_output_without_html_suffix_or_a_folder_still_gives_a_page(tmp_path):
    source = dataset_path("kernel_tuner_fixtures/test_cache_file.json")
    assert write_study_report(source, tmp_path / "noext") == tmp_path / "noext.html"
    (tmp_path / "folder").mkdir()
    assert write_study_report(source, tmp_path / "folder") == tmp_path / "folder" / "report.html"
    assert (tmp_path / "folder" / "report.html").is_file()


def test_output_below_a_file_names_the_file_in_the_way(tmp_path):
    (tmp_path / "afile").write_text("x")
    result = CliRunner().invoke(app, ["report", str(dataset_path("kernel_tuner_fixtures/test_cache_file.json")),
                                      "-o", str(tmp_path / "afile" / "sub" / "r.html")])
    assert result.exit_code != 0
    assert "afile is a file, not a folder" in " ".join(result.output.split())


def test_report_of_a_sample_size_store_shows_its_curve(tmp_path):
    """`starchart samples --store` keeps a few hundred designs, fewer than the 400 the data-file replay
    needs: the report of such a store had no accuracy section at all, the one thing the study is about."""
    from starchart.analyses.sample_size import choose_sample_size
    from starchart.measure.replay import ReplayEvaluator

    kmeans = starchart.load(dataset_path("starchart_kmeans/kmeans_hd7970.csv"))
    store = tmp_path / "samples.db"
    study = choose_sample_size(starchart.Space.from_dataset(kmeans), ReplayEvaluator(kmeans, metrics=["runtime"]),
                               validation=100, start=20, target=0.01, budget=160, seed=3, store=store)
    path = write_study_report(store, tmp_path / "r.html")
    headings = _headings(path)
    assert "Accuracy vs training samples" in headings and "Accuracy vs training samples (table)" in headings
    table = path.read_text(encoding="utf-8").split("Accuracy vs training samples (table)</h2>")[1]
    # the study's own curve: the sizes it measured, with its errors
    shown = [int(n) for n in re.findall(r'<tr><td class="num">(\d+)</td>', table.split("</table>")[0])]
    assert shown == study.curve["samples"].tolist() == [20, 40, 80, 160]
    median = f"{study.curve['median_rel_error'].iloc[-1] * 100:.2f}".rstrip("0").rstrip(".")
    assert f'<td class="num">{median}</td>' in table


def _section_of(html: str, heading: str) -> str:
    part = html[html.index(f"<h2>{heading}</h2>"):]
    return part[:part.index("</section>")]


def test_search_report_says_its_sample_is_not_uniform_and_how_much_it_measured(tmp_path):
    """A search measures more of what looks good: read as a uniform sample, its tree and importance
    describe the whole space wrongly. The report now says so where they are shown and in the progress."""
    space = starchart.Space({"x": list(range(20)), "y": [1, 2, 3]})
    evaluator = PythonEvaluator(lambda c: (c["x"] - 7) ** 2 + c["y"])
    starchart.search(evaluator, space, 15, seed=1, store=tmp_path / "s.db", progress=False)
    html = write_study_report(tmp_path / "s.db", tmp_path / "r.html").read_text(encoding="utf-8")
    for heading in ("Progress: values in the order measured", "The Starchart tree", "Parameter importance"):
        assert "not a uniform sample of the space" in _section_of(html, heading), heading
    # the stored space gives the summary its size: 15 configurations of 60
    assert "of the space measured" in _section_of(html, "Summary") and "25.00%" in html
    # a uniform sample (starchart run) is no search: no such warning
    starchart.run(space, evaluator, samples=30, store=tmp_path / "run.db", seed=1, progress=False)
    uniform = write_study_report(tmp_path / "run.db", tmp_path / "u.html").read_text(encoding="utf-8")
    assert "not a uniform sample" not in uniform


def test_analyses_come_before_the_text_tree(tmp_path):
    """The progress of a search (and accuracy, platforms) sat below the text tree's long box."""
    space = starchart.Space({"x": list(range(20)), "y": [1, 2, 3]})
    starchart.search(PythonEvaluator(lambda c: (c["x"] - 7) ** 2 + c["y"]), space, 15, seed=1,
                     store=tmp_path / "s.db", progress=False)
    headings = _headings(write_study_report(tmp_path / "s.db", tmp_path / "r.html"))
    assert headings[-1] == "The tree as text"
    assert headings.index("Progress: values in the order measured") < headings.index("The tree as text")


def _fitted_line(path):
    return re.search(r"Tree fitted on [^<]*", path.read_text(encoding="utf-8")).group(0)


def test_report_tree_is_sized_as_starchart_tree_sizes_it(tmp_path):
    """The report always drew the full tree (93 leaves on kmeans, hundreds on larger files); --prune and
    --max-depth size it as `starchart tree` does, and the page says how and how well it predicts."""
    data = str(dataset_path("starchart_kmeans/kmeans_hd7970.csv"))
    full = _fitted_line(write_study_report(data, tmp_path / "full.html", metric="runtime"))
    assert "93 leaves" in full and "(5-fold CV)" in full
    pruned = CliRunner().invoke(app, ["report", data, "-m", "runtime", "--prune", "1se", "-o", f"{tmp_path}/p/"])
    assert pruned.exit_code == 0, pruned.output
    line = _fitted_line(tmp_path / "p" / "report.html")
    leaves = int(re.search(r"(\d+) leaves", line).group(1))
    assert leaves < 93 and "(10-fold CP table, pruned by the 1-SE rule)" in line
    tree = CliRunner().invoke(app, ["tree", data, "-m", "runtime", "--prune", "1se"])
    assert f"{leaves} leaves" in tree.output  # the same tree as the command line shows
    shallow = _fitted_line(write_study_report(data, tmp_path / "d.html", metric="runtime", max_depth=2))
    assert "4 leaves, depth 2" in shallow and "max_depth 2" in shallow


def test_report_refuses_a_bad_pruning_rule_by_its_option(tmp_path):
    result = CliRunner().invoke(app, ["report", str(dataset_path("starchart_kmeans/kmeans_hd7970.csv")),
                                      "--prune", "best", "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert "--prune: unknown pruning rule 'best'" in result.output
    assert not (tmp_path / "r.html").exists()


# ---------------------------------------------------------------------- review rounds (test_report_cli_user_edges)
# What a user met running ``info``, ``tree``, ``samples`` and ``report`` on odd data: an interrupted
# store, brackets in names and paths, infinite values, very long metric names, huge data.


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


# ---------------------------------------------------------------------- review rounds (test_report_export_user_edges)
# `starchart report` and `starchart export` on what a GPU performance engineer hands them: a maximised metric
# with a neutral name, GFLOP/s beside a time column, failed configurations, units other than ms, all-failed data,
# huge spaces. Each test is a defect that was found by using the commands and then fixed.


FORMATS = ("out.csv", "out.json", "out.t4.json")


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def score(config):
    """A maximised metric whose name says nothing about its direction (module level: stores record it)."""
    return float(10 * config["x"] + config["y"])


def gflops_and_time(config):
    t = 1.0 + abs(config["x"] - 3) + 0.1 * config["y"]
    return {"GFLOP/s": 100.0 / t, "time": t}


def _text(path) -> str:
    """The report's text without its figures and tags, entities decoded."""
    page = re.sub(r"<svg.*?</svg>", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    return unescape(re.sub(r"<[^>]+>", " ", page))


# ------------------------------------------------------------------ export: objective and direction
def test_export_keeps_a_maximised_objective_maximised(tmp_path):
    """`starchart export score.db -o out.{csv,json,t4.json}` of a study run with --maximize on "score": every file
    read back minimised it (none recorded the direction), so a tree's "best" region was the worst one."""
    store = tmp_path / "score.db"
    space = starchart.Space({"x": [1, 2, 3, 4, 5], "y": [1, 2, 3]})
    starchart.run(space, PythonEvaluator(score, metrics="score", minimize=False), samples=15, store=store, seed=1, progress=False)
    assert lower_is_better("score", starchart.load(store).meta) is False
    for name in FORMATS:
        assert invoke("export", store, "-o", tmp_path / name).exit_code == 0
        back = starchart.load(tmp_path / name)
        assert back.default_metric == "score", name
        assert lower_is_better("score", back.meta) is False, name


def test_csv_export_keeps_the_objective_beside_a_time_column(tmp_path):
    """A study of GFLOP/s that also records the time: its CSV read back with "time" as the objective
    (the reader's default when a "time" column exists), minimised, where the cache and T4 kept GFLOP/s."""
    store = tmp_path / "g.db"
    space = starchart.Space({"x": [1, 2, 3, 4, 5], "y": [1, 2, 3]})
    starchart.run(space, PythonEvaluator(gflops_and_time), samples=15, store=store, seed=1, progress=False)
    assert starchart.load(store).default_metric == "GFLOP/s"
    assert invoke("export", store, "-o", tmp_path / "g.csv").exit_code == 0
    back = starchart.load(tmp_path / "g.csv")
    assert back.default_metric == "GFLOP/s" and lower_is_better("GFLOP/s", back.meta) is False


def test_a_broken_direction_in_a_cache_header_names_the_key(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"tune_params_keys": ["x"], "tune_params": {"x": [1, 2]}, "objective": "score",
                                "objective_higher_is_better": "yes",
                                "cache": {"1": {"x": 1, "score": 1.0}, "2": {"x": 2, "score": 2.0}}}))
    with pytest.raises(starchart.InputError, match="objective_higher_is_better") as info:
        starchart.load(path)
    assert "c.json" in str(info.value)


# ------------------------------------------------------------------ export: values
def test_kernel_tuner_export_does_not_invent_timings_of_failed_configurations(tmp_path):
    """A search store of the convolution cache (failures have no compile/benchmark time): its cache read back
    with compile_time = 0 ms for every failure — the zeros Kernel Tuner's simulation mode needs, taken
    for measurements."""
    frame = pd.DataFrame({"x": [1, 2, 3], "time": [1.0, np.nan, 2.0], "compile_time": [900.0, np.nan, 800.0],
                          "status": ["ok", "compile", "ok"], "reason": ["", "nvcc error", ""]})
    ds = Dataset.from_frame(frame, metrics=["time", "compile_time"])
    ds.to_kernel_tuner(tmp_path / "c.json")
    back = starchart.load(tmp_path / "c.json")
    assert back.metrics == ["time", "compile_time"]
    pd.testing.assert_frame_equal(back.to_frame(), ds.to_frame())
    entry = json.loads((tmp_path / "c.json").read_text())["cache"]["2"]
    assert entry["compile_time"] == 0  # still there for Kernel Tuner


# ------------------------------------------------------------------ T4 units
def test_t4_export_labels_each_metric_with_its_own_unit(tmp_path):
    """`starchart export ts.db -o out.t4.json` of a command timed in seconds (metric time_s) labelled it "ms",
    as it did every metric whose name starts with "time"; a unitless score must not get a unit either."""
    frame = pd.DataFrame({"x": [1, 2], "time": [1.5, 2.5], "time_s": [0.0015, 0.0025], "timeouts": [0.0, 1.0],
                          "wattage": [200.0, 210.0]})
    ds = Dataset.from_frame(frame, metrics=["time", "time_s", "timeouts", "wattage"])
    ds.to_t4(tmp_path / "o.t4.json")
    doc = json.loads((tmp_path / "o.t4.json").read_text())
    units = {m["name"]: m["unit"] for m in doc["results"][0]["measurements"]}
    assert units == {"time": "ms", "time_s": "s", "timeouts": "", "wattage": "W"}
    back = starchart.load(tmp_path / "o.t4.json")
    pd.testing.assert_frame_equal(back.to_frame()[ds.metrics], ds.to_frame()[ds.metrics])


def _t4(path, measurements, timeunit="milliseconds"):
    results = [{"configuration": {"x": x}, "times": {}, "invalidity": "correct", "correctness": 1,
                "measurements": [{"name": n, "value": v * x, "unit": u} for n, v, u in measurements]}
               for x in (1, 2)]
    path.write_text(json.dumps({"schema_version": "1.0.0", "metadata": {"timeunit": timeunit}, "results": results}))
    return path


def test_t4_reader_takes_a_measurement_in_its_own_unit(tmp_path):
    """A T4 file whose time says "ms" in a file timed in seconds was multiplied by 1000, and one whose time
    says "us" was kept as it was and then shown as ms: a measurement's own unit is the one that holds."""
    ds = starchart.load(_t4(tmp_path / "a.t4.json", [("time", 1.5, "ms")], timeunit="seconds"))
    assert ds.y("time").tolist() == [1.5, 3.0]
    ds = starchart.load(_t4(tmp_path / "b.t4.json", [("time", 1500.0, "us")]))
    assert ds.y("time").tolist() == [1.5, 3.0]
    ds = starchart.load(_t4(tmp_path / "c.t4.json", [("time", 1.5, "")], timeunit="seconds"))
    assert ds.y("time").tolist() == [1500.0, 3000.0]  # unitless: the metadata's unit, as before


def test_report_labels_a_metric_with_the_unit_its_file_states(tmp_path):
    """A T4 file's "energy" in mJ was reported in J (the unit its name suggests), 1000× off."""
    path = _t4(tmp_path / "e.t4.json", [("time", 1.0, "ms"), ("energy", 3.0, "mJ")])
    assert starchart.load(path).meta["units"]["energy"] == "mJ"
    assert invoke("report", path, "--metric", "energy", "-o", tmp_path / "r.html").exit_code == 0
    text = _text(tmp_path / "r.html")
    assert "energy (mJ)" in text and "3 mJ" in text and "energy (J)" not in text
    starchart.load(path).to_t4(tmp_path / "again.t4.json")  # and the unit survives a T4 round trip
    assert starchart.load(tmp_path / "again.t4.json").meta["units"]["energy"] == "mJ"


def test_t4_export_of_an_all_failed_study_reads_back(tmp_path):
    """`starchart export allfail.db -o x.t4.json` (every run failed): loading the file said "dataset has no
    metrics", where the cache and CSV of the same study load with their objective."""
    frame = pd.DataFrame({"x": [1, 2], "time": [np.nan, np.nan], "status": ["runtime", "compile"],
                          "reason": ["exit status 1", "nvcc error"]})
    ds = Dataset.from_frame(frame, metrics=["time"])
    ds.to_t4(tmp_path / "f.t4.json")
    with pytest.warns(NothingToModelWarning, match="all 2 configurations failed"):
        back = starchart.load(tmp_path / "f.t4.json")
    assert back.metrics == ["time"] and back.status.tolist() == ["runtime", "compile"]
    assert back.reason.tolist() == ["exit status 1", "nvcc error"]


# ------------------------------------------------------------------ report content
def test_report_states_how_well_its_tree_predicts(tmp_path):
    """Every tree the CLI prints states its cross-validated error; the report's tree did not, so a reader
    could not tell a 2 % tree from a 40 % one. It now says the same figure `starchart tree` prints."""
    rng = np.random.default_rng(0)
    x = rng.integers(1, 9, 60)
    frame = pd.DataFrame({"x": x, "y": rng.integers(1, 4, 60), "time": 10.0 / x + rng.normal(0, 0.05, 60)})
    frame = frame.drop_duplicates(["x", "y"])
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    tree = invoke("tree", path, "--metric", "time")
    said = re.search(r"predicts unseen configurations within [\d.]+ % median error \(\d-fold CV\)", tree.output)
    assert said, tree.output
    assert invoke("report", path, "-o", tmp_path / "r.html").exit_code == 0
    assert said.group(0) in _text(tmp_path / "r.html")


def test_report_of_all_failed_data_says_they_failed_and_why(tmp_path):
    """`starchart report allfail.db` said "fewer than 2 valid measurements ... measure more configurations
    first": measuring more of a kernel that fails everywhere does not help."""
    store = tmp_path / "f.db"
    space = starchart.Space({"x": [1, 2, 3]})
    starchart.run(space, PythonEvaluator(_always_fails), samples=3, store=store, seed=1, progress=False)
    result = invoke("report", store, "-o", tmp_path / "r.html")
    assert result.exit_code != 0
    message = " ".join(result.output.split())
    assert "all 3 configurations failed" in message and "out of registers" in message
    assert "measure more" not in message and "Traceback" not in result.output


def _always_fails(config):
    raise RuntimeError("out of registers")


def test_report_of_a_huge_space_does_not_say_none_of_it_was_measured(tmp_path):
    """40 configurations of a 29-million-point space showed "0.00% of the space measured", which reads as none."""
    space = starchart.Space({"a": list(range(1, 101)), "b": list(range(1, 101)), "c": list(range(1, 101)),
                             "d": list(range(1, 31))}, ["a % b == 0"])
    store = tmp_path / "h.db"
    starchart.run(space, PythonEvaluator(lambda c: float(c["a"] + c["c"])), samples=40, store=store, seed=1,
                  progress=False)
    assert invoke("report", store, "-o", tmp_path / "r.html").exit_code == 0
    cards = {label: value for value, label in re.findall(
        r'<div class="value">([^<]*)</div><div class="label">([^<]*)</div>', (tmp_path / "r.html").read_text())}
    share = 40 / space.size()
    assert cards["of the space measured"] == f"{100 * share:.2g}%" != "0.00%"


def test_a_metric_named_as_its_unit_is_not_labelled_twice():
    """The report said "GFLOP/s (GFLOP/s), higher is better" and "GFLOP/s (GFLOP/s)" on the plots' axes."""
    assert metric_label("GFLOP/s") == "GFLOP/s" and metric_label("time") == "time (ms)"
    assert metric_label("time_s") == "time_s (s)"


def test_report_of_an_unfinished_cache_says_so(tmp_path):
    """The CLI warns on stderr that a cache was left unfinished by a crashed run; the page, which is what
    gets shared, did not say that it shows part of the run."""
    path = tmp_path / "u.json"
    entries = ",\n".join(f'"{x}": {{"x": {x}, "time": {1.0 + x % 3}}}' for x in range(1, 13))
    path.write_text('{"tune_params_keys": ["x"], "tune_params": {"x": [1, 2]}, "cache": {\n' + entries
                    + ',\n"13": {"x": 13, "ti')
    with pytest.warns(UserWarning, match="unfinished"):
        assert invoke("report", path, "-o", tmp_path / "r.html").exit_code == 0
    assert "the tuning run did not complete" in _text(tmp_path / "r.html")


def test_a_report_made_on_several_cores_is_the_one_made_on_one(tmp_path, monkeypatch):
    """The figures and the sections drawn in forked children (starchart._util.forked) are byte for byte
    those drawn in one process, figure files included."""
    from starchart import datasets
    from starchart._util import forked

    def undated(text: str) -> str:  # the time the page and each figure were made
        return re.sub(r"<footer>.*</footer>|<dc:date>[^<]*</dc:date>", "", text, flags=re.S)

    from starchart.report import study

    pages = {}
    # forked before reading (the child reads too), forked after (large data: read once), and not forked
    for way, enabled, early_bytes in (("early", True, study.EARLY_READ_BYTES), ("late", True, 0),
                                      ("serial", False, study.EARLY_READ_BYTES)):
        monkeypatch.setattr(forked, "ENABLED", enabled)
        monkeypatch.setattr(study, "EARLY_READ_BYTES", early_bytes)
        out = write_study_report(datasets.data_path("kmeans"), tmp_path / way / "k.html", metric="runtime")
        pages[way] = (undated(out.read_text(encoding="utf-8")),
                      {f.name: undated(f.read_text(encoding="utf-8")) for f in sorted(out.parent.glob("*.svg"))})
    assert "Accuracy vs training samples" in pages["early"][0] and len(pages["early"][1]) == 7
    assert pages["early"] == pages["late"] == pages["serial"]


def test_an_empty_metric_name_is_refused_by_the_library_too(tmp_path):
    from starchart import datasets
    from starchart.errors import InputError

    with pytest.raises(InputError, match="empty metric name"):
        write_study_report(datasets.data_path("kmeans"), tmp_path / "k.html", metric=" ")
    assert not (tmp_path / "k.html").exists()


def test_what_reading_the_data_warns_of_is_said_once_though_two_processes_read_it(tmp_path):
    import warnings

    frame = pd.DataFrame({"a": np.repeat(np.arange(10), 3), "b": np.tile([1, 2, 3], 10)})
    frame["time"] = 1 + 0.1 * frame["a"] + frame["b"]
    frame.loc[3, "time"] = -1.0  # an error code read as a time: load() warns
    frame.to_csv(tmp_path / "neg.csv", index=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write_study_report(tmp_path / "neg.csv", tmp_path / "neg.html")
    negative = [w for w in caught if "is negative in 1 of the 30" in str(w.message)]
    assert len(negative) == 1, [str(w.message) for w in caught]
