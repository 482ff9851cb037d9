"""The measuring commands: run, resume, export, demo, with real processes and files."""

from __future__ import annotations

import re
import sqlite3
import sys

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

import starchart
from starchart.cli import app, expand_optional_values
from starchart.io.load import NothingToModelWarning
from starchart.measure import CommandEvaluator, Measurement
from starchart.space import Space
from starchart.study.runner import Progress, RunPlan, run
from starchart.study.store import Store

runner = CliRunner()

SPACE_YAML = """
parameters:
  x: {range: [1, 12]}
  y: [1, 2, 4]
restrictions: ["x * y <= 24"]
evaluator:
  kind: command
  argv: [PYTHON, -c, "import sys; x, y = {x}, {y}; sys.exit(3) if x == 7 else print('time:', x * y)"]
  pattern: 'time: (\\S+)'
"""


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture()
def space_file(tmp_path):
    path = tmp_path / "space.yaml"
    path.write_text(SPACE_YAML.replace("PYTHON", sys.executable))
    return path


def test_run_resume_export(space_file, tmp_path):
    store = tmp_path / "study.db"
    result = invoke("run", space_file, "--samples", "8", "--store", store, "--seed", "3")
    assert result.exit_code == 0, result.output
    assert "8 configurations" in result.output
    with Store.open(store) as db:  # drop two results, as if the run had been killed
        db._db.execute("DELETE FROM results WHERE id > 6")
    result = invoke("resume", store)
    assert result.exit_code == 0, result.output
    ds = Store.open(store).to_dataset()
    assert len(ds) == 8
    ok = ds.frame[ds.frame["status"] == "ok"]
    assert (ok["time"] == ok["x"] * ok["y"]).all()
    assert (ds.frame.loc[ds.frame["x"] == 7, "status"] == "runtime").all()
    for name in ("out.csv", "out.json", "out.t4.json"):
        result = invoke("export", store, "-o", tmp_path / name)
        assert result.exit_code == 0, result.output
    assert len(starchart.load(tmp_path / "out.json")) == 8


def test_run_with_command_option_and_grow(tmp_path, space_file):
    store = tmp_path / "s.db"
    cmd = f"{sys.executable} -c \"print('t=', {{x}} + {{y}})\""
    result = invoke("run", space_file, "--command", cmd, "--pattern", r"t= (\S+)", "--samples", "5",
                    "--store", store, "--repeats", "2")
    assert result.exit_code == 0, result.output
    assert invoke("resume", store, "--samples", "7").exit_code == 0
    ds = Store.open(store).to_dataset()
    assert len(ds) == 7 and (ds.frame["time"] == ds.frame["x"] + ds.frame["y"]).all()
    assert ds.frame["repeats_time"].map(len).eq(2).all()


def test_replay_needs_no_space_file(tmp_path):
    from shared_data import dataset_path

    data = dataset_path("starchart_kmeans/kmeans_hd7970.csv")
    result = invoke("run", "--replay", data, "--metric", "runtime", "--samples", "20", "--store", tmp_path / "r.db")
    assert result.exit_code == 0, result.output
    assert len(Store.open(tmp_path / "r.db").to_dataset()) == 20


@pytest.mark.parametrize("args, message", [
    (["--command", "prog {nope}"], "nope"),
    (["--c-source", "missing.c"], "missing.c"),
    (["--command", "no-such-program-xyz {x}"], "no-such-program-xyz"),
])
def test_bad_evaluators_give_one_clear_error(space_file, tmp_path, args, message):
    result = invoke("run", space_file, *args, "--samples", "2", "--store", tmp_path / "s.db")
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_bad_store_and_space_files(space_file, tmp_path):
    result = invoke("run", space_file, "--samples", "2", "--store", tmp_path / "no" / "s.db")
    assert result.exit_code == 2 and "does not exist" in result.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("parameters:\n  x: [1, 2]\nrestrictions: ['x <']\n")
    result = invoke("run", bad, "--command", "true", "--samples", "1", "--store", tmp_path / "b.db")
    assert result.exit_code == 2 and "bad.yaml" in result.output
    assert invoke("resume", tmp_path / "nothing.db").exit_code == 2
    sqlite3.connect(tmp_path / "empty.db").close()


def test_optional_ray_address():
    assert expand_optional_values(["run", "--ray"]) == ["run", "--ray", "local"]


def test_demo_runs_reports_and_reuses_its_store(tmp_path):
    out = tmp_path / "demo"
    result = invoke("demo", "--out", out, "--samples", "12", "--repeats", "2")
    assert result.exit_code == 0, result.output
    assert "best subspace" in result.output and (out / "report.html").is_file()
    html = (out / "report.html").read_text()
    assert "<svg" in html and "best" in html.lower()
    with Store.open(out / "demo.db") as db:
        first = db.results_frame()
    assert len(first) == 12 and (first["status"] == "ok").all()
    result = invoke("demo", "--out", out, "--samples", "12", "--repeats", "2")
    assert result.exit_code == 0, result.output
    with Store.open(out / "demo.db") as db:
        assert db.results_frame()["id"].tolist() == first["id"].tolist()  # nothing measured again


def test_the_readme_example_study_runs(tmp_path):
    from child_env import ROOT

    study = ROOT / "examples" / "study" / "study.yaml"
    result = invoke("run", study, "--samples", "6", "--store", tmp_path / "study.db", "--seed", "1")
    assert result.exit_code == 0, result.output
    ds = Store.open(tmp_path / "study.db").to_dataset()
    assert len(ds) == 6 and (ds.frame["status"] == "ok").all(), ds.frame["reason"].tolist()
    assert ds.frame["repeats_time"].map(len).eq(5).all()


def needs_carve_toolchain():
    """Skip the calling test where no CUDA compiler and disassembler for sm_90 are installed."""
    from starchart.carve.toolchain import find_toolchain

    tc = find_toolchain()
    compiles = (any(t.supports(90) for t in tc.nvrtc) and tc.pick("ptxas", 90)) or tc.pick("nvcc", 90)
    if not (compiles and (tc.pick("nvdisasm", 90) or tc.pick("cuobjdump", 90))):
        pytest.skip("no CUDA compiler/disassembler: pip install '.[carve]'")


def test_carve_a_cuda_kernel_then_measure_only_the_survivors(tmp_path):
    from child_env import ROOT

    needs_carve_toolchain()
    kept = tmp_path / "kept.csv"
    result = invoke("carve", ROOT / "examples/carve/matmul.cu", "--kernel", "matmul",
                    "--space", ROOT / "examples/carve/matmul.yaml", "--cc", "9.0",
                    "--threads-per-block", "TILE * TILE // WPT", "--threads", "1024 * 1024 // WPT",
                    "-D", "N=1024", "-o", kept, "--plot", tmp_path / "carve.svg")
    assert result.exit_code == 0, result.output
    assert "carving kept" in result.output and (tmp_path / "carve.svg").is_file()
    n_kept = len(kept.read_text().splitlines()) - 1
    assert 0 < n_kept < 45
    # measure the survivors (a stand-in evaluator: there is no GPU here)
    result = invoke("run", ROOT / "examples/carve/matmul.yaml", "--configs", kept, "--store", tmp_path / "s.db",
                    "--command", f"{sys.executable} -c \"print('time:', {{TILE}} / {{WPT}})\"",
                    "--pattern", r"time: (\S+)")
    assert result.exit_code == 0, result.output
    assert len(Store.open(tmp_path / "s.db").to_dataset()) == n_kept


def test_carve_writes_the_static_metrics_a_search_then_uses(tmp_path):
    from child_env import ROOT

    needs_carve_toolchain()
    table = tmp_path / "static.csv"
    space = ROOT / "examples/carve/matmul.yaml"
    result = invoke("carve", ROOT / "examples/carve/matmul.cu", "--kernel", "matmul", "--space", space, "--cc", "9.0",
                    "--threads-per-block", "TILE * TILE // WPT", "--threads", "1024 * 1024 // WPT", "-D", "N=1024",
                    "--table", table)
    assert result.exit_code == 0, result.output
    assert f"--static {table}" in " ".join(result.output.split())
    written = pd.read_csv(table)
    assert {"registers", "occupancy", "carved_by"} <= set(written.columns) and "cubin" not in written.columns
    kept = {(r.TILE, r.WPT) for r in written[written.carved_by.isna()].itertuples()}
    command = ("--command", f"{sys.executable} -c \"print('time:', {{TILE}} / {{WPT}})\"", "--pattern", r"time: (\S+)")
    result = invoke("search", space, *command, "--budget", "6", "--seed", "1", "--static", table,
                    "--store", tmp_path / "s.db")
    assert result.exit_code == 0, result.output
    with Store.open(tmp_path / "s.db") as db:
        assert db.get("search")["strategy"] == "static" and db.get("search")["static"] == str(table.resolve())
        measured = db.to_dataset().frame
    first = min(len(kept), 5)  # the initial design (5 for a budget of 6) is drawn among what carving kept
    assert all((r.TILE, r.WPT) in kept for r in measured.head(first).itertuples())
    result = invoke("search", space, *command, "--budget", "6", "--static", tmp_path / "absent.csv")
    assert result.exit_code == 2 and "--static" in result.output and "carve" in result.output


def test_carve_counts_bank_conflicts_with_the_block_shape(tmp_path):
    from child_env import ROOT

    needs_carve_toolchain()
    table = tmp_path / "static.csv"
    args = ("carve", ROOT / "examples/carve/transpose.cu", "--kernel", "transpose",
            "--space", ROOT / "examples/carve/transpose.yaml", "--cc", "8.0",
            "--threads-per-block", "TILE * BLOCK_ROWS", "--threads", "4096 * 4096 // (TILE // BLOCK_ROWS)")
    result = invoke(*args, "--block", "TILE, BLOCK_ROWS", "--weighted", "--table", table)
    assert result.exit_code == 0, result.output
    assert "Pareto-optimal in (weighted_efficiency, utilization)" in result.output
    written = pd.read_csv(table).set_index(["TILE", "BLOCK_ROWS", "PAD"])
    assert written.loc[(32, 32, 0), "bank_conflicts"] == 31 and written.loc[(32, 32, 1), "bank_conflicts"] == 0
    result = invoke(*args, "--block", "TILE, BLOCK_ROWS", "-p", "bank_conflicts == 0")
    assert result.exit_code == 0 and "bank_conflicts == 0: removed 10" in result.output, result.output
    result = invoke(*args, "--weighted")
    assert result.exit_code == 2 and "--block" in result.output and "Traceback" not in result.output
    result = invoke(*args, "--block", "TILE, BLOCK_ROWS", "--executed", "-p", "coalescing >= 0.5", "--table", table)
    assert result.exit_code == 0, result.output
    assert (pd.read_csv(table)["coalescing"] == 1.0).all()  # rows in, rows out
    result = invoke(*args, "--executed")
    assert result.exit_code == 2 and "--block" in result.output and "Traceback" not in result.output


def test_carve_defines_the_parameters_and_names_a_missing_define(tmp_path):
    needs_carve_toolchain()
    source = tmp_path / "scale.cu"
    source.write_text("__global__ void scale(float *x) {\n"
                      "    int i = blockIdx.x * BLOCK + threadIdx.x;\n"
                      "    if (i < N) x[i] *= 2.0f;\n}\n")
    space = tmp_path / "space.yaml"
    space.write_text("parameters:\n  BLOCK: [64, 128]\n")
    args = ("carve", source, "--kernel", "scale", "--space", space, "--cc", "9.0",
            "--threads-per-block", "BLOCK", "--threads", "4096")
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert 'no configuration compiles' in result.output and 'identifier "N" is undefined' in result.output
    assert "hint: define it: -D N=VALUE" in result.output and "Traceback" not in result.output
    result = invoke(*args, "-D", "N=4096")  # BLOCK comes from each configuration
    assert result.exit_code == 0, result.output
    assert "carving kept" in result.output


def test_carve_needs_kernel_and_space_for_a_source(tmp_path):
    source = tmp_path / "k.cu"
    source.write_text("__global__ void k() {}\n")
    result = invoke("carve", source, "--cc", "9.0", "--threads-per-block", "32", "--threads", "1024")
    assert result.exit_code == 2 and "needs --kernel, --space" in result.output


def test_carve_data_without_counters_says_so_before_asking_for_launch_sizes():
    from shared_data import dataset_path

    result = invoke("carve", dataset_path("convolution/A100.json.gz"), "--cc", "8.0")
    assert result.exit_code == 2
    assert "no profiler counters or compiler resource usage to carve with" in result.output
    assert "--threads-per-block EXPR" not in result.output  # was the first (and a misleading) complaint


def test_an_interrupted_demo_says_to_run_the_demo_again(tmp_path, capsys):
    from starchart.cli.measure import _measure

    def stopped():
        raise KeyboardInterrupt

    with pytest.raises(typer.Exit) as stop:
        _measure(stopped, tmp_path / "demo.db", summary=False, again="starchart demo --out d --samples 9")
    assert stop.value.exit_code == 130  # 128 + SIGINT, as a shell reports an interrupted command
    assert "continue with: starchart demo --out d --samples 9" in " ".join(capsys.readouterr().err.split())


def test_carve_ktt_data_prints_json_with_the_kept_configurations():
    import json

    from shared_data import dataset_path

    result = invoke("carve", dataset_path("ktt/KTConvolutionOutput_2080Ti.json.gz"), "--cc", "7.5", "--json",
                    "-p", "BLOCK_SIZE_X >= 32")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["removed_share"] >= 0.9 and len(data["kept"]) == data["kept_count"] > 0
    assert {"BLOCK_SIZE_X", "TILE_SIZE_Y"} <= set(data["kept"][0])
    assert all(row["BLOCK_SIZE_X"] >= 32 for row in data["kept"])
    assert 0.9 < data["best"]["relative"] <= 1.0


def test_carve_ktt_data_text_matches_the_documented_recipe_and_says_what_was_kept(tmp_path):
    """The launch read from the file (KTT's grid is in blocks) gives the docs' 48 kept, and the text says how good."""
    from shared_data import dataset_path

    data = dataset_path("ktt/KTConvolutionOutput_2080Ti.json.gz")
    result = invoke("carve", data, "--cc", "7.5", "-p", "BLOCK_SIZE_X >= 32")
    assert result.exit_code == 0, result.output
    assert "carving kept 48 of 6768" in result.output
    assert "measured time: best kept 0.7395 ms, best of all 0.7061 ms (95.5 % of the best)" in result.output
    result = invoke("carve", data, "--cc", "7.5", "--plot", tmp_path / "front.txt")
    assert result.exit_code == 2 and "--plot: cannot write a figure as 'front.txt'" in result.output
    assert "Traceback" not in result.output
    result = invoke("carve", data, "--cc", "7.5", "--threads", "0")
    assert result.exit_code == 2 and "not a thread count" in result.output
    result = invoke("carve", data, "--cc", "7.5", "-o", tmp_path / "missing" / "kept.csv")
    assert result.exit_code == 2 and "--output: the folder" in result.output and "does not exist" in result.output
    assert "carving kept" not in result.output  # refused before carving, not after
    result = invoke("carve", data, "--cc", "7.5", "-o", tmp_path)
    assert result.exit_code == 2 and "is a folder, not a file" in result.output and "carving kept" not in result.output


def test_search_command_on_a_replayed_space(tmp_path):
    from shared_data import dataset_path

    data = dataset_path("convolution/A100.json.gz")
    result = invoke("search", "--replay", data, "--budget", "30", "--seed", "3", "--store", tmp_path / "s.db")
    assert result.exit_code == 0, result.output
    assert "30 evaluations of 30" in result.output
    assert len(Store.open(tmp_path / "s.db").to_dataset()) == 30


def test_search_maximises_a_rate_and_minimise_overrides(tmp_path):
    """GFLOP/s is maximised by its name; --minimize turns that round, on the same seed."""
    from shared_data import dataset_path

    data = dataset_path("convolution/A100.json.gz")
    found = {}
    for flag in ([], ["--minimize"]):
        store = tmp_path / f"s{len(flag)}.db"
        result = invoke("search", "--replay", data, "--metric", "GFLOP/s", "--budget", "15", "--seed", "2",
                        "--store", store, *flag)
        assert result.exit_code == 0, result.output
        values = Store.open(store).to_dataset().ok().y("GFLOP/s")
        found[bool(flag)] = values
        assert ("(maximised)" in result.output) is not bool(flag)
    assert found[False].max() > found[True].max() and found[True].min() < found[False].min()


def test_search_store_keeps_its_seed_and_resume_continues_the_search(tmp_path):
    """Without --seed a stored search goes on with its own seed; `resume` finishes it; --samples is refused."""
    from shared_data import dataset_path

    data = dataset_path("gemm/RTX_3090.json.gz")
    whole = invoke("search", "--replay", data, "--budget", "12", "--seed", "7")
    store = tmp_path / "s.db"
    first = invoke("search", "--replay", data, "--budget", "5", "--seed", "7", "--store", store)
    assert first.exit_code == 0, first.output
    with Store.open(store) as db:  # as if the 12-evaluation search had been stopped after 5
        db.put("search", {**db.get("search"), "budget": 12})
    refused = invoke("resume", store, "--samples", "40")
    assert refused.exit_code == 2 and "holds a search" in refused.output
    refused = invoke("resume", store, "--ray", "local")
    assert refused.exit_code == 2 and "not on Ray" in refused.output
    resumed = invoke("resume", store)
    assert resumed.exit_code == 0, resumed.output
    assert "seed 7" in resumed.output
    assert whole.output.splitlines()[-1] == resumed.output.splitlines()[-1]
    again = invoke("search", "--replay", data, "--budget", "12", "--store", store)  # no --seed: the stored one
    assert "seed 7" in again.output and again.output.splitlines()[-1] == whole.output.splitlines()[-1]


def test_a_starchart_csv_reads_back_with_its_metrics(tmp_path):
    """`export -o x.csv` names its metrics in its first line: a tree on it does not split on benchmark_time."""
    from shared_data import dataset_path

    store, csv = tmp_path / "s.db", tmp_path / "s.csv"
    invoke("search", "--replay", dataset_path("dedispersion/A100.json.gz"), "--budget", "25", "--seed", "1",
           "--store", store)
    assert invoke("export", store, "-o", csv).exit_code == 0
    back = starchart.load(csv)
    original = Store.open(store).to_dataset()
    assert back.params == original.params and back.metrics == original.metrics
    tree = invoke("tree", csv, "--metrics", "time")
    assert tree.exit_code == 0 and "benchmark_time" not in tree.output


def test_replaying_a_space_the_data_does_not_hold_is_refused(tmp_path):
    from shared_data import dataset_path

    space = tmp_path / "k.yaml"
    space.write_text("parameters:\n  ppb: [100, 200]\n  tpp: [100, 200]\n  consec: [5]\n")
    result = invoke("search", space, "--replay", dataset_path("starchart_kmeans/kmeans_hd7970.csv"), "--budget", "2")
    assert result.exit_code == 2 and "none of 4 configurations" in result.output


def test_bad_seeds_and_unwritable_report_paths_are_one_line_errors(tmp_path):
    from shared_data import dataset_path

    data = dataset_path("convolution/A100.json.gz")
    for args in (("search", "--replay", data, "--budget", "3", "--seed", "-1"),
                 ("tree", data, "--sample", "20", "--seed", str(2**32))):
        result = invoke(*args)
        assert result.exit_code == 2 and "--seed" in result.output and "Traceback" not in result.output
    blocked = tmp_path / "file"
    blocked.write_text("")
    result = invoke("report", data, "-o", blocked / "r.html")
    assert result.exit_code == 2 and "cannot create the report's folder" in result.output


def test_replaying_one_metric_of_a_csv_keeps_the_others_out_of_the_parameters(tmp_path):
    from shared_data import dataset_path

    store = tmp_path / "k.db"
    result = invoke("run", "--replay", dataset_path("starchart_kmeans/kmeans_hd7970.csv"), "--samples", "8",
                    "--seed", "1", "--store", store, "--metric", "wattage")
    assert result.exit_code == 0, result.output
    ds = Store.open(store).to_dataset()
    assert ds.params == ["ppb", "tpp", "consec"] and ds.metrics == ["wattage"]


def test_a_run_that_cannot_be_planned_leaves_no_plan_and_bad_configs_are_refused(space_file, tmp_path):
    store = tmp_path / "p.db"
    too_many = invoke("run", space_file, "--samples", "1000", "--store", store)
    assert too_many.exit_code == 2 and "--samples" in too_many.output
    with Store.open(store) as db:
        assert db.get("plan") is None and len(db) == 0
    configs = tmp_path / "c.csv"
    configs.write_text("x,y\n1,1\n12,4\n")  # 12 * 4 > 24 breaks the restriction
    refused = invoke("run", space_file, "--configs", configs, "--store", tmp_path / "c.db")
    assert refused.exit_code == 2 and "line 3" in refused.output and "not in the space" in refused.output


def test_failures_are_explained_and_paths_are_one_line_errors(space_file, tmp_path):
    store = tmp_path / "f.db"
    result = invoke("run", space_file, "--samples", "3", "--seed", "1", "--store", store,
                    "--command", f"{sys.executable} -c print(1)", "--pattern", r"nomatch: (\S+)")
    assert result.exit_code == 1 and "most common reason" in result.output and "matched nothing" in result.output
    assert "starchart info" in invoke("tree", store).output
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    refused = invoke("resume", empty)
    assert refused.exit_code == 2 and "empty file" in refused.output and empty.stat().st_size == 0
    missing = invoke("export", store, "-o", tmp_path / "no" / "such" / "x.csv")
    assert missing.exit_code == 2 and "Traceback" not in missing.output and "error:" in missing.output


def test_space_describes_a_store_and_a_csv(space_file, tmp_path):
    from shared_data import dataset_path

    store = tmp_path / "s.db"
    assert invoke("run", space_file, "--samples", "4", "--seed", "1", "--store", store).exit_code == 0
    described = invoke("space", store, "--size")
    assert described.exit_code == 0 and "x * y <= 24" in described.output
    kmeans = invoke("space", dataset_path("starchart_kmeans/kmeans_hd7970.csv"), "--size")
    assert kmeans.exit_code == 0 and "500" in kmeans.output


def test_a_mistyped_command_is_not_stored_and_a_changed_one_is_refused(tmp_path):
    """The first command's typo leaves a store the right command can use; another program is refused."""
    space = tmp_path / "space.yaml"
    space.write_text("parameters:\n  bs: [1, 2, 4, 8]\n")
    store = tmp_path / "s.db"
    prog = f"{sys.executable} -c \"print('time:', {{bs}})\""
    typo = invoke("search", space, "--command", prog.replace("{bs}", "{unroll}"), "--pattern", r"time: (\S+)",
                  "--budget", "3", "--store", store, "--seed", "1")
    assert typo.exit_code == 2 and "--command: unknown parameter {unroll}" in typo.output
    assert "CommandEvaluator" not in typo.output
    assert not store.exists()  # refused before a store was made
    good = invoke("search", space, "--command", prog, "--pattern", r"time: (\S+)", "--budget", "3",
                  "--store", store, "--seed", "1")
    assert good.exit_code == 0, good.output
    other = invoke("search", space, "--command", prog.replace("{bs}", "2 * {bs}"), "--pattern", r"time: (\S+)",
                   "--budget", "4", "--store", store, "--seed", "1")
    assert other.exit_code == 2 and "holds measurements of another evaluator: argv was" in other.output
    assert invoke("resume", store).exit_code == 0  # the stored study goes on as it was
    unbalanced = invoke("search", space, "--command", "./bench {bs} 'x", "--budget", "2")
    assert unbalanced.exit_code == 2 and "--command cannot be split into words" in unbalanced.output


def test_a_typo_in_an_evaluator_section_or_file_names_the_file_and_the_key(tmp_path):
    space = tmp_path / "space.yaml"
    space.write_text("parameters:\n  x: [1, 2]\nevaluator:\n  kind: command\n  argv: [echo, '{x}']\n  repats: 3\n")
    in_section = invoke("run", space, "--samples", "1", "--store", tmp_path / "a.db")
    evaluator = tmp_path / "ev.yaml"
    evaluator.write_text("kind: c\nsource: k.c\ntimout: 3\n")
    in_file = invoke("run", space, "--evaluator", evaluator, "--samples", "1", "--store", tmp_path / "b.db")
    for result, where, typo, meant in ((in_section, f"{space}, evaluator", "repats", "repeats"),
                                       (in_file, str(evaluator), "timout", "timeout")):
        assert result.exit_code == 2
        assert f"{where}: unknown option(s) {typo}" in result.output and f"did you mean {meant}?" in result.output
        assert "Evaluator" not in result.output and "Traceback" not in result.output


def test_a_search_explains_its_failures_and_info_shows_its_budget_and_seed(tmp_path):
    space = tmp_path / "space.yaml"
    space.write_text("parameters:\n  bs: [1, 2, 3, 4, 5]\n")
    store = tmp_path / "s.db"
    prog = f"{sys.executable} -c \"import sys; sys.exit('no room') if {{bs}} > 3 else print('time:', {{bs}})\""
    result = invoke("search", space, "--command", prog, "--pattern", r"time: (\S+)", "--budget", "5",
                    "--seed", "4", "--store", store)
    assert result.exit_code == 0, result.output
    assert "runtime: most common reason (2 of 2): exit status 1; stderr: no room" in result.output
    assert result.output.splitlines()[-3] == "5 evaluations of 5 (seed 4, 2 failed)"
    assert result.output.splitlines()[-2].startswith("best time ")
    # every configuration was measured, so the best one's four neighbours were too
    assert result.output.splitlines()[-1] == ("all 4 configurations that differ from it in one parameter were "
                                              "measured: a local optimum, no single change improves it")
    info = invoke("info", store)
    assert info.exit_code == 0 and "search: budget 5, seed 4" in info.output


def test_the_python_api_maximises_a_rate_by_its_name():
    space = starchart.Space({"x": list(range(10))})
    evaluator = starchart.measure.PythonEvaluator(lambda c: 100.0 * c["x"], metrics="GFLOP/s")
    assert not evaluator.minimize
    assert starchart.search(evaluator, space, 10, seed=1).best.value == 900.0


def test_configs_csv_gives_the_spaces_own_values_and_names_the_bad_line(tmp_path):
    space = tmp_path / "s.yaml"
    space.write_text("parameters:\n  v: ['01', '1']\n  n: [1, 2]\n")
    # (the program must work: a study where every configuration failed exits 1)
    args = ("--command", f"{sys.executable} -c \"print('time:', 1, repr('{{v}}'), repr('{{n}}'))\"",
            "--pattern", r"time: (\S+)", "--store")
    # an exported CSV (its "# starchart:" line), 01 as text, 1.0 as the integer 1, a space after a comma
    good = tmp_path / "c.csv"
    good.write_text('# starchart: {"params": ["v", "n"], "metrics": ["time"]}\nv,n,time\n01, 1.0,3\n1,2,4\n')
    result = invoke("run", space, "--configs", good, *args, tmp_path / "a.db")
    assert result.exit_code == 0, result.output
    with Store.open(tmp_path / "a.db", read_only=True) as db:
        assert [m.config for m in db.measurements()] == [{"v": "01", "n": 1}, {"v": "1", "n": 2}]
    for text, message in (("v,n\n", "header but no rows"), ("v,n\n01,1\n\n1,3\n", "line 4: n = '3' is not one"),
                          ("v,n\n01,\n", "line 2: no value for n"), ("v,n\n01,1,2\n", "Expected 2 fields")):
        bad = tmp_path / "bad.csv"
        bad.write_text(text)
        result = invoke("run", space, "--configs", bad, *args, tmp_path / "b.db")
        assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output, text


def test_an_interrupted_configs_run_resumes_and_export_refuses_the_store_itself(space_file, tmp_path):
    configs = tmp_path / "c.csv"
    configs.write_text("x,y\n1,1\n2,1\n3,1\n4,1\n")
    store = tmp_path / "c.db"
    assert invoke("run", space_file, "--configs", configs, "--store", store).exit_code == 0
    with Store.open(store) as db:  # as if the run had been killed after two results
        db._db.execute("DELETE FROM results WHERE id > 2")
    result = invoke("resume", store)
    assert result.exit_code == 0, result.output
    assert sorted(Store.open(store, read_only=True).to_dataset().frame["x"]) == [1, 2, 3, 4]
    result = invoke("export", store, "-o", store, "--format", "csv")
    assert result.exit_code == 2 and "overwrite the store itself" in result.output
    assert len(Store.open(store, read_only=True)) == 4


@pytest.mark.parametrize("command", ["search", "samples"])
def test_search_and_samples_take_warmup_as_run_does(tmp_path, command):
    # each launch appends a line: 2 warm-ups + 1 repeat per configuration = 3 lines each
    space = tmp_path / "space.yaml"
    space.write_text("parameters:\n  bs: [1, 2, 3]\n")
    log = tmp_path / "launches.txt"
    prog = f"{sys.executable} -c \"open(r'{log}', 'a').write('x\\n'); print('time:', {{bs}})\""
    extra = ["--budget", "3"] if command == "search" else ["--validation", "1", "--start", "2", "--budget", "2"]
    result = invoke(command, space, "--command", prog, "--pattern", r"time: (\S+)", "--warmup", "2",
                    "--seed", "1", "--store", tmp_path / "s.db", *extra)
    assert result.exit_code == 0, result.output
    with Store.open(tmp_path / "s.db", read_only=True) as db:
        measured = len(db.to_dataset())
        assert db.get("evaluator")["warmup"] == 2
    assert measured and len(log.read_text().splitlines()) == 3 * measured


def test_run_and_search_exit_1_when_nothing_gave_a_result(tmp_path):
    """Before: a study or search whose every configuration failed (or printed inf) exited 0, so a script or CI
    job went on as if it had tuned something; "best time: inf" was printed as a result."""
    from typer.testing import CliRunner

    from starchart.cli import app

    space = tmp_path / "s.yaml"
    space.write_text("parameters:\n  x: [1, 2, 3, 4]\n")
    runner = CliRunner()
    failing = ["--command", "sh -c 'exit 3'"]
    infinite = ["--command", "sh -c 'echo time_ms: inf'", "--pattern", r"time_ms: (\S+)"]
    for n, evaluator in enumerate((failing, infinite)):
        result = runner.invoke(app, ["run", str(space), "--samples", "3", "--store", str(tmp_path / f"r{n}.db"),
                                     *evaluator])
        assert result.exit_code == 1, result.output
        assert "no configuration gave a finite time: exit status 1" in result.output
        assert "best time: inf" not in result.output
        result = runner.invoke(app, ["search", str(space), "--budget", "3", *evaluator])
        assert result.exit_code == 1, result.output
    result = runner.invoke(app, ["resume", str(tmp_path / "r0.db")])  # what is stored is read the same way
    assert result.exit_code == 1, result.output
    working = ["--command", "sh -c 'echo time_ms: {x}'", "--pattern", r"time_ms: (\S+)"]
    result = runner.invoke(app, ["run", str(space), "--samples", "3", "--store", str(tmp_path / "ok.db"), *working])
    assert result.exit_code == 0 and "best time: " in result.output, result.output


def test_ctrl_c_while_the_program_loads_stops_without_a_traceback():
    """Before: Ctrl-C in the first second (while the commands' modules load) printed a KeyboardInterrupt
    traceback. The entry point guards the import."""
    import subprocess
    import sys
    from importlib.metadata import entry_points

    from child_env import child_env

    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "starchart"]
    assert script.value == "starchart.__main__:main"
    code = ("import sys, signal, os; sys.modules.pop('starchart.cli', None); "
            # a SIGINT as the import starts: what Ctrl-C during the first second does, without a race
            "import builtins; real = builtins.__import__\n"
            "def hook(name, *a, **k):\n"
            "    if name == 'starchart.cli': builtins.__import__ = real; os.kill(os.getpid(), signal.SIGINT)\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = hook\n"
            "from starchart.__main__ import main; main(['--help'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(), timeout=600)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and "stopped" in done.stderr


# ---------------------------------------------------------------------- malformed input, one clear error each
SMALL_SPACE = "parameters: {bx: [16, 32], by: {range: [1, 8]}}\nrestrictions: [bx * by <= 128]\n"


@pytest.fixture()
def small_space(tmp_path):
    path = tmp_path / "space.yaml"
    path.write_text(SMALL_SPACE)
    return path


def test_an_evaluator_file_with_a_list_as_its_metric_is_refused_naming_the_file_and_key(small_space, tmp_path):
    """Before: ``metric: [a, b]`` ran and printed "best a: 16", b dropped without a word."""
    evaluator = tmp_path / "ev.json"
    evaluator.write_text('{"kind": "command", "argv": ["echo", "time: {bx}"], "pattern": "time: (\\\\S+)", '
                         '"metric": ["a", "b"]}')
    result = invoke("run", small_space, "--evaluator", evaluator, "--store", tmp_path / "s.db", "-n", "2")
    assert result.exit_code == 2, result.output
    assert f"{evaluator}, metric: takes one metric name, got the list ['a', 'b']" in result.output
    assert "under metrics" in result.output and not (tmp_path / "s.db").exists()


def test_a_python_module_that_exits_on_import_is_a_clear_error(small_space, tmp_path):
    """Before: ``raise SystemExit(7)`` at the module's top ended ``starchart run`` with status 7 and no message."""
    (tmp_path / "exits_on_import_cli.py").write_text("raise SystemExit(7)\n")
    evaluator = tmp_path / "ev.json"
    evaluator.write_text('{"kind": "python", "function": "exits_on_import_cli:f"}')
    result = invoke("run", small_space, "--evaluator", evaluator, "--store", tmp_path / "s.db", "-n", "2")
    assert result.exit_code == 2, result.output
    assert "importing 'exits_on_import_cli'" in result.output and "raised SystemExit(7)" in result.output


@pytest.mark.parametrize("metric, said", [("status", "metric 'status' has the name of a column every dataset holds"),
                                          ("bx", "metric 'bx' is also a parameter of the space")],
                         ids=["reserved", "parameter"])
def test_a_metric_the_study_could_not_be_read_back_with_is_refused_naming_the_option(small_space, tmp_path, metric,
                                                                                     said):
    """Before: ``--metric status`` measured into a store that ``info`` and ``resume`` could not read."""
    store = tmp_path / "s.db"
    result = invoke("run", small_space, "--command", "echo time: {bx}", "--pattern", r"time: (\S+)",
                    "--metric", metric, "--store", store, "-n", "2")
    assert result.exit_code == 2, result.output
    assert f"--metric: {said}" in result.output and not store.exists()


def test_run_refuses_samples_beside_configs_naming_both_options(small_space, tmp_path):
    """Before: ``run --configs FILE -n 2`` measured the file's configurations and ignored -n."""
    configs = tmp_path / "configs.csv"
    configs.write_text("bx,by\n16,1\n32,2\n16,3\n")
    result = invoke("run", small_space, "--command", "echo time: {bx}", "--pattern", r"time: (\S+)",
                    "--configs", configs, "-n", "2", "--store", tmp_path / "s.db")
    assert result.exit_code == 2, result.output
    assert "--samples 2 and --configs cannot be given together" in result.output
    assert "leave out --samples" in result.output and not (tmp_path / "s.db").exists()


def test_resume_export_and_info_read_a_configuration_stored_twice_alike(small_space, tmp_path):
    """Before: resume's bar said "best 1" (the later row) while its summary said "best time: 16 ms", and
    info and export dropped the later row without a word."""
    path = tmp_path / "s.db"
    evaluator = CommandEvaluator(["echo", "time: {bx}"], pattern=r"time: (\S+)")
    run(Space.from_file(small_space), evaluator, configs=[{"bx": 16, "by": 8}, {"bx": 32, "by": 2}], store=path,
        progress=False)
    with Store.open(path) as db:  # bx=16, by=8 again, with another value: a hand edit, say
        db.add(Measurement({"bx": 16, "by": 8}, values={"time": [1.0]}))
    with pytest.warns(UserWarning, match="1 configuration is stored more than once"):
        result = invoke("resume", path)
    assert result.exit_code == 0, result.output
    assert "best time: 16 ms" in result.output
    with Store.open(path, read_only=True) as db:  # the bar of that resume started from this best
        bar = Progress(RunPlan([], 2, 3), evaluator, db, enabled=True)
    assert bar.best == 16.0
    with pytest.warns(UserWarning, match="stored more than once"):
        result = invoke("export", path, "-o", tmp_path / "x.csv")
    assert result.exit_code == 0 and re.search(r"^16,8,16\.0,ok", (tmp_path / "x.csv").read_text(), re.M)
    with pytest.warns(UserWarning, match="stored more than once"):
        assert invoke("info", path).exit_code == 0


def test_run_and_resume_warn_of_negative_times_in_load_s_words(small_space, tmp_path):
    """Before: "best time: -5 ms" was printed without a word; ``starchart info`` of such a CSV warns."""
    (tmp_path / "negative_times_cli.py").write_text("def f(config):\n    return -5.0\n")
    evaluator = tmp_path / "ev.json"
    evaluator.write_text('{"kind": "python", "function": "negative_times_cli:f"}')
    store = tmp_path / "s.db"
    with pytest.warns(NothingToModelWarning, match=r"'time' is negative in 2 of the 2 valid configurations"):
        result = invoke("run", small_space, "--evaluator", evaluator, "--store", store, "-n", "2", "--seed", "1")
    assert result.exit_code == 0 and "best time: -5 ms" in result.output
    with pytest.warns(NothingToModelWarning, match=r"'time' is negative in 3 of the 3"):
        assert invoke("resume", store, "-n", "3").exit_code == 0
