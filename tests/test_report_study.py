"""`starchart report`: the sections that apply to a store or a data file."""

from __future__ import annotations

import re

from shared_data import dataset_path
from typer.testing import CliRunner

import starchart
from starchart.analyses.platforms import merge_platforms
from starchart.cli import app
from starchart.measure import PythonEvaluator
from starchart.report.study import write_study_report


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


def test_report_of_several_files_compares_them_as_platforms(tmp_path):
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("bx,time\n1,3\n2,2\n4,1\n8,2\n")
    b.write_text("bx,time\n1,1\n2,1.5\n4,4\n8,5\n")
    result = CliRunner().invoke(app, ["report", str(a), f"second={b}", "-o", str(tmp_path / "p.html")])
    assert result.exit_code == 0, result.output
    headings = _headings(tmp_path / "p.html")
    assert "Platforms: speed-up of each platform&#x27;s own best" in headings
    assert "starchart report: a · second" in (tmp_path / "p.html").read_text(encoding="utf-8")
    # the default output sits beside the first file
    assert CliRunner().invoke(app, ["report", str(a), str(b)]).exit_code == 0
    assert (tmp_path / "platforms-report" / "report.html").exists()


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
