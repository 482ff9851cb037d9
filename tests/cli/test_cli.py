"""The command line: real files in, readable output or one-line errors out."""

from __future__ import annotations

import json

import pytest
from shared_data import dataset_path
from typer.testing import CliRunner

from starchart import StarchartTree
from starchart.cli import app
from starchart.cli.app import COMMANDS

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def test_tree_text_on_the_authors_data():
    result = run("tree", dataset_path("starchart_kmeans/kmeans_hd7970.csv"), "--metric", "runtime")
    assert result.exit_code == 0, result.output
    assert "500 samples, 93 leaves" in result.output
    assert "tpp ≤ 1  [1] n=122" in result.output


def test_tree_top_splits_draws_what_explains_most(tmp_path):
    path = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = run("tree", path, "--metric", "runtime", "--top-splits", "2")
    assert result.exit_code == 0, result.output
    assert "tpp ≤ 1  [1] n=122  mean=6.235  (+48 nodes below)" in result.output
    assert "nodes lie below splits that explain less" in result.output and "ppb ≤ 129" not in result.output
    result = run("tree", path, "--metric", "runtime", "--top-splits", "2", "--format", "dot")
    assert result.exit_code == 0 and "(+48 nodes below)" in result.output
    result = run("tree", path, "--metric", "runtime", "--top-splits", "0")
    assert result.exit_code == 2 and "--top-splits" in result.output


def test_tree_with_linear_leaves_says_so_and_refuses_pruning():
    path = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = run("tree", path, "--metric", "runtime", "--leaf-model", "linear", "--max-depth", "4")
    assert result.exit_code == 0, result.output
    assert "each leaf predicts by a line in ppb, tpp, consec" in " ".join(result.output.split())
    result = run("tree", path, "--metric", "runtime", "--leaf-model", "linear", "--prune", "1se")
    assert result.exit_code == 2 and "--leaf-model: pruning sizes a tree of mean leaves" in result.output


def test_tree_json_round_trips(tmp_path):
    target = tmp_path / "tree.json"
    result = run("tree", dataset_path("convolution/A100.json.gz"), "--sample", "200", "--seed", "3",
                 "--format", "json", "-o", target)
    assert result.exit_code == 0, result.output
    tree = StarchartTree.from_json(target.read_text())
    assert tree.n_samples_ == 200
    assert json.loads(target.read_text())["params"]["min_samples_split"] == 10


def test_tree_options_reach_the_estimator():
    path = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = run("tree", path, "-m", "wattage", "--max-depth", "2", "--format", "dot")
    assert result.exit_code == 0
    assert result.output.count("shape=ellipse") == 4
    result = run("tree", path, "-m", "wattage", "--min-split", "400")
    assert "2 leaves" in result.output


def test_tree_says_leaf_and_counts_what_it_left_out(tmp_path):
    path = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = run("tree", path, "-m", "wattage", "--max-depth", "0")
    assert result.exit_code == 0 and "500 samples, 1 leaf, depth 0\n" in result.output
    data = tmp_path / "t.csv"  # 8 of 30 valid rows have no finite time: the tree used to drop them silently
    data.write_text("a,b,time\n" + "".join(f"{i % 5},{i // 5},{'inf' if i % 4 == 0 else ''}{i + 1 if i % 4 else ''}\n"
                                         for i in range(30)))
    result = run("tree", data)
    assert result.exit_code == 0, result.output
    assert "22 samples, " in result.output and "(8 more without a finite time left out)" in result.output
    result = run("tree", path, "-m", "wattage", "--sample", "1", "--seed", "0")
    assert result.exit_code == 0 and "1 sample, 1 leaf, depth 0\n" in result.output


def test_tree_refuses_an_infinite_threshold_by_its_option():
    result = run("tree", dataset_path("starchart_kmeans/kmeans_hd7970.csv"), "--threshold", "inf")
    assert result.exit_code == 2 and "--threshold: the threshold must be a finite number, got inf" in result.output


def test_info_summarises_a_cache():
    result = run("info", dataset_path("convolution/A6000.json.gz"))
    assert result.exit_code == 0, result.output
    assert "NVIDIA RTX A6000" in result.output
    assert "configurations: 4362  valid: 3889" in result.output


def test_space_counts_and_samples_t1():
    result = run("space", dataset_path("t1/convolution_milo.json"), "--size", "--sample", "5", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "4,362 of 10,240" in result.output
    assert result.output.count(",15,15") == 5  # five CSV rows (filter 15×15)


def test_space_from_cache_with_restrictions():
    result = run("space", dataset_path("gemm/RTX_3090.json.gz"), "--size",
                 "-r", "KWG % KWI == 0", "-r", "MWG % (MDIMC*VWM) == 0", "-r", "NWG % (NDIMC*VWN) == 0",
                 "-r", "MWG % (MDIMA*VWM) == 0", "-r", "NWG % (NDIMB*VWN) == 0",
                 "-r", "KWG % ((MDIMC*NDIMC)//MDIMA) == 0", "-r", "KWG % ((MDIMC*NDIMC)//NDIMB) == 0")
    assert result.exit_code == 0, result.output
    assert "17,956 of 82,944" in result.output


@pytest.mark.parametrize("args, message", [
    (("tree", "no/such/file.json"), "file not found"),
    (("tree", "{kmeans}", "--metric", "speed"), "no metric 'speed'"),
    (("space", "{kmeans_space}"), "import"),
])
def test_errors_are_one_line_with_a_hint(tmp_path, args, message):
    bad_space = tmp_path / "space.yaml"
    bad_space.write_text("parameters:\n  x: [1, 2]\nrestrictions:\n  - __import__('os')\n")
    mapping = {"{kmeans}": str(dataset_path("starchart_kmeans/kmeans_hd7970.csv")),
               "{kmeans_space}": str(bad_space)}
    result = run(*[mapping.get(a, a) for a in args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args, message", [
    (("run", "--samples", "0"), "Invalid value for '--samples' / '-n'"),
    (("resume", "s.db", "--workers", "-1"), "Invalid value for '--workers' / '-w'"),
    (("resume",), "Missing argument 'store'"),
    (("tree", "data.csv", "--no-such-option"), "No such option: --no-such-option"),
    (("no-such-command",), "No such command 'no-such-command'"),
])
def test_usage_errors_are_one_line_with_a_hint(args, message):
    result = run(*args)
    assert result.exit_code == 2
    error, hint = result.output.strip().splitlines()  # no boxed panel
    assert error.startswith("error: ") and message in error
    assert hint.startswith("hint: see ") and hint.endswith(" --help")


def test_svg_needs_graphviz(tmp_path):
    import shutil

    target = tmp_path / "tree.svg"
    result = run("tree", dataset_path("starchart_kmeans/kmeans_hd7970.csv"), "--max-depth", "2",
                 "--format", "svg", "-o", target)
    if shutil.which("dot") is None:
        assert result.exit_code == 2 and "Graphviz 'dot' is not installed" in result.output
    else:
        assert result.exit_code == 0, result.output
        assert "<svg" in target.read_text() and "tpp ≤ 1" in target.read_text()


def test_tree_states_its_cross_validated_error_and_prunes():
    path = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    full = run("tree", path, "--metric", "runtime")
    assert full.exit_code == 0, full.output
    assert "predicts unseen configurations within" in full.output and "(5-fold CV)" in full.output
    pruned = run("tree", path, "--metric", "runtime", "--prune", "1se")
    assert pruned.exit_code == 0, pruned.output
    leaves = [int(line.split(" leaves")[0].split()[-1]) for line in pruned.output.splitlines() if " leaves," in line]
    assert leaves and leaves[0] < 93 and "10-fold CP table" in pruned.output
    assert run("tree", path, "--metric", "runtime", "--prune", "nope").exit_code == 2


def test_seed_without_sample_is_refused(tmp_path):
    kmeans = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    for command in (("tree", kmeans), ("space", dataset_path("t1/convolution_milo.json"))):
        result = run(*command, "--seed", "3")  # was silently ignored
        assert result.exit_code == 2, result.output
        assert "--seed: it seeds --sample, which is not given" in result.output and "add --sample N" in result.output


def test_a_space_file_given_for_measurements_points_at_starchart_space(tmp_path):
    t1 = dataset_path("t1/convolution_milo.json")
    space_file = tmp_path / "space.yaml"
    space_file.write_text("parameters:\n  x: [1, 2]\n  y: [1, 2, 3]\n")
    for command, path in (("tree", t1), ("info", t1), ("tree", space_file)):
        result = run(command, path)
        assert result.exit_code == 2
        assert "not measurements" in result.output and f"starchart space {path}" in result.output
        assert "unknown file format" not in result.output and "cannot parse CSV" not in result.output


def test_info_leaves_infinite_values_out_of_the_metric_summary(tmp_path):
    path = tmp_path / "inf.csv"
    path.write_text("a,b,time\n1,1,1.0\n2,1,inf\n3,1,2.0\n")
    result = run("info", path)
    assert result.exit_code == 0, result.output
    assert "time │   1 │    1.5 │   2" in result.output and "│ inf" not in result.output  # max 2, not inf
    assert "time is infinite in 1 of the 3 valid configurations" in result.output


def test_space_sample_on_stdout_is_plain_csv(tmp_path):
    path = tmp_path / "space.yaml"
    path.write_text("parameters:\n  x: [1, 2, 4]\n  y: [a, b]\nrestrictions:\n  - x > 1\n")
    result = run("space", path, "--size", "--sample", "3", "--seed", "2")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()  # the description used to come first: `> sample.csv` was not a CSV
    assert lines[0] == "x,y" and len(lines) == 4
    assert "valid configurations: 4 of 6" in result.stderr


def test_tree_and_space_take_samples_spelt_as_run_spells_it(tmp_path):
    """`starchart run --samples N` measures N; `tree` and `space` took only `--sample` and refused `--samples`."""
    data = dataset_path("pnpoly/RTX_3090.json.gz")
    as_run = run("tree", data, "--samples", "50", "--seed", "1")
    assert as_run.exit_code == 0, as_run.output
    assert "50 samples" in as_run.output
    assert as_run.output == run("tree", data, "--sample", "50", "--seed", "1").output
    path = tmp_path / "space.yaml"
    path.write_text("parameters:\n  x: [1, 2, 4]\n  y: [a, b]\n")
    listed = run("space", path, "--samples", "2", "--seed", "2")
    assert listed.exit_code == 0, listed.output
    assert len(listed.stdout.splitlines()) == 3


def test_space_sample_errors_name_the_option_to_change(tmp_path):
    path = tmp_path / "space.yaml"
    path.write_text("parameters:\n  x: [1, 2, 4]\nrestrictions:\n  - x > 1\n")
    result = run("space", path, "--sample", "3")
    assert result.exit_code == 2
    assert f"{path}, --sample: asked for 3" in result.output
    assert "(--sample 2)" in result.output and "--samples" not in result.output and "to_frame" not in result.output
    path.write_text("parameters:\n  x: [1, 2, 4]\nrestrictions:\n  - x > 4\n")
    assert "the restrictions exclude every configuration" in run("space", path, "--sample", "1").output


def test_space_size_repeats_the_described_estimate(tmp_path):
    path = tmp_path / "space.yaml"  # 10^12 points, a restriction too wide to tabulate: the size is estimated
    path.write_text("parameters:\n  x: {range: [0, 999999]}\n  y: {range: [0, 999999]}\nrestrictions:\n"
                    "  - x % 7 == y % 7\n")
    result = run("space", path, "--size")
    assert result.exit_code == 0, result.output
    described = result.output.split("valid configurations:")[1].split("(95%")[0].strip()
    counted = result.output.split("valid configurations:")[2].split("(95%")[0].strip()
    assert described.startswith("≈") and counted == described  # was a second, different estimate


@pytest.mark.parametrize("data, count", [("convolution/A100_T4.json.gz", "4,362 of 10,240"),
                                         ("ktt/KTConvolutionOutput_2080Ti.json.gz", "6,768 of 15,360")])
def test_space_of_t4_and_ktt_measurements(data, count):
    result = run("space", dataset_path(data), "--size")  # was "unknown keys ['metadata', 'results', ...]"
    assert result.exit_code == 0, result.output
    assert f"valid configurations: {count} Cartesian points" in result.output


def test_a_failure_reason_with_brackets_is_printed_as_written(tmp_path):
    """A program's own words may hold "[/x]": rich read it as markup and crashed `info`."""
    data = tmp_path / "br.csv"
    data.write_text("x,time,status,reason\n1,2.0,ok,\n2,,runtime,bad [/x] thing\n3,1.0,ok,\n")
    result = run("info", str(data))
    assert result.exit_code == 0, result.output
    assert "runtime: most common reason (1 of 1): bad [/x] thing" in result.output


def test_tree_of_three_samples_states_a_leave_one_out_error(tmp_path):
    # 5-fold CV needs 5 samples; with fewer the line falls back to one fold per sample
    data = tmp_path / "tiny.csv"
    data.write_text("a,time\n1,2\n2,3\n3,5\n")
    result = runner.invoke(app, ["tree", str(data), "--metric", "time"])
    assert result.exit_code == 0, result.output
    assert "(3-fold CV)" in result.output and "not available" not in result.output


def test_tree_forest_states_the_forests_out_of_bag_error_and_importance():
    from starchart.io.load import load
    from starchart.tree import StarchartForest, describe_error

    path = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = runner.invoke(app, ["tree", str(path), "--metrics", "runtime,wattage", "--metric", "runtime",
                                 "--forest", "20"])
    assert result.exit_code == 0, result.output
    ds = load(path, metrics=["runtime", "wattage"]).ok()
    forest = StarchartForest(n_estimators=20, random_state=0).fit(ds.X, ds.y("runtime"))
    expected = f"forest of 20 bagged Starchart trees: {describe_error(forest.oob_error_)} (out-of-bag)"
    assert expected in result.output
    top = forest.importance_.idxmax()
    assert f"forest importance: {top} " in result.output
    # the forest's lines come before the drawing of the single tree
    assert result.output.index("forest of 20") < result.output.index("[0] all designs")


def test_tree_forest_is_text_only():
    path = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = runner.invoke(app, ["tree", str(path), "--metrics", "runtime", "--forest", "20", "-f", "json"])
    assert result.exit_code == 2  # bad input, as every refused option
    assert "--forest" in result.output and "text only" in result.output


@pytest.mark.parametrize("command", [*COMMANDS, "xapp features", "xapp train"])
def test_help_shows_no_python_type_placeholders(command: str) -> None:
    """Values read as Click's words (PATH, INTEGER) or choices, flags as nothing: never <bool> or <list[Path]>."""
    result = runner.invoke(app, [*command.split(), "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "<bool>" not in result.output and "<list[" not in result.output and "<str>" not in result.output


def test_tree_draws_a_summary_to_depth_4_and_says_what_is_hidden(tmp_path) -> None:
    from starchart import datasets
    kmeans = datasets.data_path("kmeans")
    result = run("tree", kmeans, "--metric", "runtime")
    assert result.exit_code == 0
    depths = [line.find("── ") // 4 + 1 for line in result.output.splitlines() if "── " in line]
    assert max(depths) == 4  # each level indents by 4 characters
    assert "nodes lie below depth 4 and are not drawn: --full draws them all" in result.output
    assert "(+" in result.output and "nodes below)" in result.output
    full = run("tree", kmeans, "--metric", "runtime", "--full")
    assert "not drawn" not in full.output and full.output.count("leaf  n=") == 93
    shallow = run("tree", kmeans, "--metric", "runtime", "--depth", "1")
    assert "184 of 185 nodes" not in shallow.output and "182 of 185 nodes lie below depth 1" in shallow.output
    run("tree", kmeans, "--metric", "runtime", "-o", tmp_path / "t.txt")
    assert (tmp_path / "t.txt").read_text().count("leaf  n=") == 93  # a file gets the whole tree


def test_running_out_of_memory_is_one_line_not_a_traceback(capsys):
    """A gzip bomb under the size limit parsed into more than the machine holds: MemoryError's traceback."""
    import typer

    from starchart.cli.app import friendly

    def greedy() -> None:
        raise MemoryError

    with pytest.raises(typer.Exit) as caught:
        friendly(greedy)()
    assert caught.value.exit_code == 2 and "ran out of memory" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["tree"], ["report", "-o", "{out}"]], ids=["tree", "report"])
@pytest.mark.parametrize("metric", ["", "  "], ids=["empty", "blank"])
def test_an_empty_metric_name_is_refused_not_taken_for_the_objective(tmp_path, command, metric):
    """Before: `--metric ''` modelled the default metric, as if the option had been left out."""
    data = tmp_path / "d.csv"
    data.write_text("a,time\n" + "".join(f"{i},{i + 1.0}\n" for i in range(12)))
    args = [a.replace("{out}", str(tmp_path / "r.html")) for a in command]
    result = run(args[0], data, *args[1:], "--metric", metric)
    assert result.exit_code == 2, result.output
    assert f"--metric: {metric!r} is an empty metric name" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "r.html").exists()


def test_info_lists_the_first_parameters_of_a_very_wide_file_and_counts_the_rest(tmp_path):
    from starchart.cli.data import INFO_PARAMETER_ROWS

    wide = INFO_PARAMETER_ROWS + 25
    csv = tmp_path / "wide.csv"
    header = ",".join(f"p{j}" for j in range(wide)) + ",time"
    rows = [",".join(str(i if j == 0 else (i + j) % 3) for j in range(wide)) + f",{1 + i % 5}" for i in range(12)]
    csv.write_text("\n".join([header, *rows]) + "\n")
    result = CliRunner().invoke(app, ["info", str(csv), "--metrics", "time"])
    assert result.exit_code == 0, result.output
    assert f"p{INFO_PARAMETER_ROWS - 1} " in result.output and f"p{INFO_PARAMETER_ROWS} " not in result.output
    assert f"… and 25 more parameters ({wide} in all)" in result.output
