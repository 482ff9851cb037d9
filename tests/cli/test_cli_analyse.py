"""`starchart platforms` and `starchart tradeoff`: real files in, the analysis or a one-line error out."""

from __future__ import annotations

from pathlib import Path

from shared_data import dataset_path
from typer.testing import CliRunner

from starchart.cli import app

runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _csv(path, times):
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [f"{bx},{by},{t}" for (bx, by), t in zip([(b, c) for b in (1, 2, 4) for c in (1, 2)], times)]
    path.write_text("bx,by,time\n" + "\n".join(rows) + "\n")
    return path


def test_platforms_compares_the_convolution_gpus():
    result = run("platforms", dataset_path("convolution/A100.json.gz"), dataset_path("convolution/A4000.json.gz"))
    assert result.exit_code == 0, result.output
    # named by file; the A100's own best (0.5536 ms) against the general setting that is best in the worst case
    assert "4207 configurations measured on all of A100, A4000 (time, lower is better; valid on every one: 4195" in result.output
    assert "A100: own best 0.5536 is" in result.output
    assert "best subspace of each platform" in result.output


def test_platforms_draws_the_merged_tree_with_each_best_subspace(tmp_path):
    a, b = _csv(tmp_path / "a" / "gpu.csv", [1, 2, 3, 4, 5, 6]), _csv(tmp_path / "b" / "gpu.csv", [6, 5, 4, 3, 2, 1])
    result = run("platforms", f"A={a}", f"B={b}", "--tree-plot", tmp_path / "tree.svg", "--top-splits", "2")
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output
    assert (tmp_path / "tree.svg").read_text().rstrip().endswith("</svg>")  # what it shades: test_report_html.py
    result = run("platforms", f"A={a}", f"B={b}", "--tree-plot", tmp_path / "tree.txt")
    assert result.exit_code == 2 and "--tree-plot" in result.output


def test_platforms_labels_and_their_clashes(tmp_path):
    a = _csv(tmp_path / "one" / "gpu.csv", [3, 2, 1, 2, 3, 4])
    b = _csv(tmp_path / "two" / "gpu.csv", [1, 2, 3, 4, 5, 6])
    result = run("platforms", a, b)  # both would be called "gpu", and a CSV names no device
    assert result.exit_code == 2
    assert "two files would both be called platform 'gpu'" in result.output and "LABEL=" in result.output
    result = run("platforms", f"fast={a}", f"slow={b}")
    assert result.exit_code == 0, result.output
    assert "6 configurations measured on all of fast, slow (time, lower is better)" in result.output
    assert run("platforms", a).exit_code == 2  # one platform has nothing to compare with
    result = run("platforms", f"fast={a}", f"slow={b}", "--plot", tmp_path / "p.txt")
    assert result.exit_code == 2 and "cannot write a figure as 'p.txt'" in result.output


def test_tradeoff_on_the_energy_file(tmp_path):
    path = dataset_path("energy/AD4000_wmma_complex_gemm_opt_16bit_1x4096x4096x4096.json.gz")
    result = run("tradeoff", path, "--limit", "time=10.5", "--limit", "Watt=66.5", "--plot", tmp_path / "t.svg")
    assert result.exit_code == 0, result.output
    assert "targets: time ≤ 10.5, Watt ≤ 66.5" in result.output
    assert "12 subspaces;" in result.output and "… and 4 more" in result.output  # 8 listed, the rest counted
    assert "accepting up to 10% over the fastest design (time 6.835, Watt 95.74)" in result.output
    assert (tmp_path / "t.svg").stat().st_size > 1000
    # no limits: the best quarter's values, said on stderr
    result = run("tradeoff", path, "--stat", "mean")
    assert result.exit_code == 0, result.output
    assert "no --limit given" in result.output
    assert "(per metric, the tree's nodes whose mean meets the target; subspaces: where they intersect)" \
        in result.output


def test_tradeoff_refuses_what_it_cannot_trade():
    kmeans = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = run("tradeoff", kmeans, "--limit", "wattage=abc")
    assert result.exit_code == 2 and "'wattage=abc' is not METRIC=NUMBER" in result.output
    result = run("tradeoff", kmeans, "--limit", "watts=200")
    assert result.exit_code == 2 and "'watts', which is not a metric of the data" in result.output
    result = run("tradeoff", kmeans, "--stat", "2")
    assert result.exit_code == 2 and "--stat must be" in result.output
    result = run("tradeoff", dataset_path("convolution/A100.json.gz"))
    assert result.exit_code == 2 and "no two metrics to trade off" in result.output


# the recorded input study of docs/case-studies.md
MATMUL_INPUTS = Path(__file__).resolve().parents[2] / "docs" / "figures" / "case_matmul_inputs.csv"


def test_inputs_on_the_recorded_matmul_study(tmp_path):
    result = run("inputs", MATMUL_INPUTS, "--input", "N", "--work", "n^3", "--plot", tmp_path / "i.svg",
                 "--tree-plot", tmp_path / "tree.png", "--top-splits", "2")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tree.png").read_bytes().startswith(b"\x89PNG")  # Fig. 9: what it shades, test_report_html
    assert "inputs ['N']: 24% of the merged tree's SSE reduction (throughput)" in result.output
    assert "effect depends on the input (interaction ≥ 2% of the variance, p < 0.01): ORDER" in result.output
    # N=512's best elsewhere; the header names the input once, so the columns are its values
    assert "┃ best of N ┃   64 ┃  128 ┃  256 ┃  512 ┃" in result.output
    assert "│ 512       │ 0.82 │ 0.70 │ 0.56 │ 1.00 │" in result.output
    assert (tmp_path / "i.svg").exists()


def test_inputs_errors_name_what_to_fix():
    result = run("inputs", MATMUL_INPUTS, "--input", "M")
    assert result.exit_code == 2 and "--input: input parameter(s) ['M'] not among the parameters" in result.output
    assert "e.g. --input N" in result.output  # the option, not the Python argument inputs=
    result = run("inputs", MATMUL_INPUTS, "--input", "N", "--work", "reason^2")
    assert result.exit_code == 2 and "names the unknown parameter 'reason'" in result.output
    assert "status" not in result.output  # the hint lists parameters, not the status column


ENERGY = "energy/AD4000_wmma_complex_gemm_opt_16bit_1x4096x4096x4096.json.gz"


def test_platforms_say_what_to_fix_in_the_commands_words(tmp_path):
    a = _csv(tmp_path / "a.csv", [3, 2, 1, 2, 3, 4])
    b = _csv(tmp_path / "b.csv", [1, 2, 3, 4, 5, 6])
    result = run("platforms", a)  # the argument, not the Python name 'sources'
    assert result.exit_code == 2 and "error: [LABEL=]DATA: comparing platforms needs" in result.output
    result = run("platforms", "A100=", b)  # was ".: is a directory, not a file"
    assert result.exit_code == 2 and "no file after A100=" in result.output
    result = run("platforms", f"x={a}", f"x={b}")  # both labelled already: not "name each one: LABEL=..."
    assert result.exit_code == 2 and "give each file its own LABEL" in result.output
    c = tmp_path / "c.csv"
    c.write_text("bx,by,time\n8,8,1\n16,16,2\n")
    result = run("platforms", a, c)  # no configuration in common: say so, and what to do
    assert result.exit_code == 2 and "the platforms share 0 measured configurations" in result.output
    assert "same space, sample size and seed" in result.output and "data:" not in result.output
    result = run("platforms", a, b, "--maximize")
    assert "(time, higher is better)" in result.output and "1 setting is within 5%" in result.output


def test_tradeoff_pairs_one_target_with_the_time():
    path = dataset_path(ENERGY)
    result = run("tradeoff", path, "--limit", "ps_power=60")  # not the first power-like name (Watt)
    assert result.exit_code == 0, result.output
    assert "targets: ps_power ≤ 60" in result.output and "14% less ps_power" in result.output
    result = run("tradeoff", path, "--limit", "TFLOPS/J=0.8")  # a metric to maximise
    assert result.exit_code == 0, result.output
    assert "targets: TFLOPS/J ≥ 0.8" in result.output and "accepting up to" not in result.output


def test_tradeoff_savings_compare_a_time_with_a_power_whatever_the_order_of_the_limits():
    path = dataset_path(ENERGY)
    result = run("tradeoff", path, "--limit", "Watt=66.5", "--limit", "time=10.5")
    assert result.exit_code == 0, result.output
    assert "accepting up to 10% over the fastest design (time 6.835, Watt 95.74)" in result.output
    result = run("tradeoff", path, "--limit", "ps_energy=0.8", "--limit", "Watt=66.5")  # no time: no slowdown
    assert result.exit_code == 0, result.output
    assert "accepting up to" not in result.output


def test_tradeoff_says_why_no_subspace_qualifies():
    kmeans = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = run("tradeoff", kmeans, "--limit", "runtime=0.1", "--limit", "wattage=200")
    assert result.exit_code == 0, result.output
    assert "0 subspaces" in result.output
    assert "19 measured designs meet every target, but no subspace does by --stat 0.9" in result.output
    result = run("tradeoff", kmeans, "--limit", "runtime=0.01", "--limit", "wattage=100")
    assert "— loosen the targets" in result.output and "tighten()" not in result.output


def test_inputs_work_from_a_time_metric_named_otherwise(tmp_path):
    text = MATMUL_INPUTS.read_text().replace(",time,", ",runtime,", 1)
    path = tmp_path / "mm.csv"
    path.write_text(text)
    result = run("inputs", path, "--input", "N", "--work", "n^3")
    assert result.exit_code == 2 and "name the time metric with --metric" in result.output
    result = run("inputs", path, "--input", "N", "--work", "n^3", "--metric", "runtime")  # as the hint says
    assert result.exit_code == 0, result.output
    assert "inputs ['N']: 24% of the merged tree's SSE reduction (throughput)" in result.output


def test_inputs_work_hint_and_transfer_table(tmp_path):
    result = run("inputs", MATMUL_INPUTS, "--input", "N", "--work", "m^3")
    assert result.exit_code == 2 and "TRANSPOSE_B" in result.output
    assert "'m^3' names the unknown parameter 'm'" in result.output  # as typed, not Python's m**3
    assert "time" not in result.output  # the time is no parameter of the work
    lines = MATMUL_INPUTS.read_text().splitlines()
    # N=64's best configuration, not measured at N=512: a dash, not "nan"
    best = "64,64,64,32,1,4,0"
    dropped = [line for line in lines if not line.startswith("512," + best[3:])]
    assert len(dropped) == len(lines) - 1
    path = tmp_path / "mm.csv"
    path.write_text("\n".join(dropped) + "\n")
    result = run("inputs", path, "--input", "N", "--work", "n^3")
    assert result.exit_code == 0, result.output
    assert "│ 64        │ 1.00 │ 0.99 │ 0.83 │    — │" in result.output and "nan" not in result.output


def test_tradeoff_tightens_targets_as_the_papers_fig_10(tmp_path):
    """`tighten` existed only in Python: `--tighten METRIC=VALUE` answers again from the same trees, one level
    deeper where needed, and a target for a metric it does not trade is refused naming the option."""
    from starchart import datasets

    data = tmp_path / "kmeans.csv"
    datasets.load_kmeans().to_csv(data)
    result = run("tradeoff", data, "--limit", "runtime=1.0", "--limit", "wattage=220", "--tighten", "runtime=0.3")
    assert result.exit_code == 0, result.output
    first, _, tightened = result.output.partition("\ntightened: runtime=0.3\n")
    assert "targets: runtime ≤ 1, wattage ≤ 220" in first and "targets: runtime ≤ 0.3, wattage ≤ 220" in tightened
    worst = [float(line.split("runtime mean ")[1].split(" worst ")[1].split(",")[0])
             for line in tightened.splitlines() if "runtime mean" in line]
    assert worst and max(worst) <= 0.3  # every subspace now meets the tighter target at its worst
    refused = run("tradeoff", data, "--limit", "runtime=1.0", "--limit", "wattage=220", "--tighten", "bogus=3")
    assert refused.exit_code == 2 and "--tighten: no tree for metric(s) ['bogus']" in refused.output
    assert run("tradeoff", data, "--tighten", "runtime").exit_code == 2  # not METRIC=NUMBER


def test_tree_prints_a_leaf_as_restrictions_that_space_samples_inside(tmp_path):
    """Iterative sampling from the command line: `tree --leaf best` prints the leaf as restrictions, and
    `space SPACE -r ... --sample N` draws designs inside it (-r was refused for a space file)."""
    import io

    import pandas as pd
    import yaml

    from starchart import StarchartTree, datasets

    kmeans = datasets.load_kmeans()
    data, space = tmp_path / "kmeans.csv", tmp_path / "space.yaml"
    kmeans.to_csv(data)
    space.write_text(yaml.safe_dump({"parameters": {p: sorted(int(v) for v in kmeans.frame[p].unique())
                                                    for p in kmeans.params}}))
    result = run("tree", data, "--leaf", "best")
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    restrictions = [line for line in lines if not line.startswith("#")]
    assert lines[0].startswith("# leaf [") and restrictions and "starchart space SPACE -r" in lines[-1]
    sampled = run("space", space, *[part for r in restrictions for part in ("-r", r)], "--sample", "20", "--seed", "1")
    assert sampled.exit_code == 0, sampled.output
    frame = pd.read_csv(io.StringIO(sampled.output[sampled.output.index("consec,"):]))
    best = StarchartTree().fit(kmeans.X, kmeans.y("runtime")).best_leaf()
    assert len(frame) == 20 and best.contains(frame).all()
    refused = run("tree", data, "--leaf", "99999")
    assert refused.exit_code == 2 and "--leaf: '99999' is not a leaf of the tree" in refused.output


def test_platforms_reports_each_best_against_the_baseline(tmp_path):
    from starchart import datasets

    files = [f"{gpu}={datasets.data_path(f'convolution_{gpu}')}" for gpu in ("A100", "A4000")]
    default = ("block_size_x=16,block_size_y=1,tile_size_x=1,tile_size_y=1,read_only=0,use_padding=0,use_shmem=0,"
               "use_cmem=1,filter_height=15,filter_width=15")
    result = run("platforms", *files, "--baseline", default)
    assert result.exit_code == 0, result.output
    assert "A100: own best 0.5536 is 7× better than the baseline's 3.875" in result.output
    refused = run("platforms", *files, "--baseline", "block_size_x=16")
    assert refused.exit_code == 2 and "--baseline: the baseline lacks" in refused.output
    assert run("platforms", *files, "--baseline", "block_size_x").exit_code == 2  # not NAME=VALUE


def test_the_leaf_command_line_quotes_restrictions_with_text_values(tmp_path):
    """`-r 'mode in ('a',)'` reached the program as "mode in (a,)": each restriction is now quoted for the shell."""
    import shlex

    data = tmp_path / "modes.csv"
    data.write_text("mode,t,time\n" + "".join(f"{m},{t},{(1.0 if m == 'a' and t == 1 else 5.0 + t)}\n"
                                              for m in ("a", "b", "c") for t in (1, 2, 4, 8)))
    result = run("tree", data, "--leaf", "best", "--min-split", "2")
    assert result.exit_code == 0, result.output
    command = result.output.strip().splitlines()[-1].split("starchart ", 1)[1]
    words = shlex.split(command)
    restrictions = [words[i + 1] for i, word in enumerate(words) if word == "-r"]
    assert "mode in ('a',)" in restrictions


def test_a_target_that_is_no_finite_number_is_refused():
    """`--limit time=inf` was accepted as a target every design meets."""
    from starchart import datasets

    result = run("tradeoff", datasets.data_path("kmeans"), "--limit", "runtime=inf", "--limit", "wattage=220")
    assert result.exit_code == 2 and "'runtime=inf' is not METRIC=NUMBER (a finite number)" in result.output



def test_an_empty_metric_name_is_refused_by_every_analysing_command(tmp_path):
    """Before: `--metric ''` fell back to the objective (platforms, compare) or to "time" (inputs)."""
    data = _csv(tmp_path / "gpu.csv", [3, 2, 1, 2, 3, 4])
    for args in (["platforms", f"a={data}", f"b={data}"], ["compare", data], ["inputs", data, "--input", "bx"]):
        result = run(*args, "--metric", "")
        assert result.exit_code == 2, result.output
        assert "--metric: '' is an empty metric name" in result.output, args
