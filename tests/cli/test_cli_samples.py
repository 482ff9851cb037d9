"""`starchart samples` (sample-size selection, §VI-A) and `starchart resume` of such a study."""

from __future__ import annotations

import sys

import pytest
from shared_data import dataset_path
from typer.testing import CliRunner

from starchart.cli import app
from starchart.study.store import Store

runner = CliRunner()
CONVOLUTION = "convolution/A100.json.gz"  # under ../shared/datasets; resolved per test (skips where absent)


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def test_samples_on_replayed_convolution_stops_at_the_target_and_resumes(tmp_path):
    store = tmp_path / "conv.db"
    result = run("samples", "--replay", dataset_path(CONVOLUTION), "--target", "15%", "--store", store, "--plot",
                 tmp_path / "curve.png")
    assert result.exit_code == 0, result.output
    # 200 held out (8 of them failed), training 20, 40, 80, 160: the paper's doubling, stopped at the target
    assert "accuracy of a tree of time on 192 held-out designs" in result.output
    assert "160 training samples: median relative error 11.8% on 192 validation designs (target 15.0% reached)" \
        in result.output
    # the 7 failed training samples are not fitted on (before: "fitted on the 160 training samples")
    assert "tree fitted on the 153 valid of the 160 training samples:" in result.output and "use_shmem" in result.output
    assert (tmp_path / "curve.png").stat().st_size > 10_000
    with Store.open(store, read_only=True) as db:
        assert len(db) == 360
        assert db.get("sample_size")["target"] == 0.15
    # running it again, or resuming it, measures nothing and gives the same answer
    for again in (run("samples", "--replay", dataset_path(CONVOLUTION), "--target", "0.15", "--store", store),
                  run("resume", store)):
        assert again.exit_code == 0, again.output
        assert "160 training samples: median relative error 11.8%" in again.output
    with Store.open(store, read_only=True) as db:
        assert len(db) == 360
    info = run("info", store)
    assert "sample-size study: target 15.0% median error, 200 held out" in " ".join(info.output.split())
    refused = run("resume", store, "--samples", "500")
    assert refused.exit_code == 2 and "holds a sample-size study" in refused.output


def test_samples_says_when_the_budget_ends_first(tmp_path):
    result = run("samples", "--replay", dataset_path(CONVOLUTION), "--target", "2%", "--budget", "50", "--validation", "50",
                 "--store", tmp_path / "s.db")
    assert result.exit_code == 0, result.output
    assert "50 training samples" in result.output and "not reached within the budget" in result.output
    assert "a larger --budget" in result.output


@pytest.mark.parametrize("target, message", [("abc", "'abc' is not a share"),
                                             ("150%", "'150%' must lie strictly between 0 and 100 %"),
                                             ("0", "'0' must lie strictly between 0 and 100 %")])
def test_samples_refuses_a_bad_target(tmp_path, target, message):
    result = run("samples", "--replay", dataset_path(CONVOLUTION), "--target", target, "--store", tmp_path / "s.db")
    assert result.exit_code == 2
    assert "--target" in result.output and message in result.output
    assert not (tmp_path / "s.db").exists()


def test_samples_errors_name_the_options(tmp_path):
    result = run("samples", "--replay", dataset_path(CONVOLUTION), "--validation", "5000", "--store", tmp_path / "s.db")
    assert result.exit_code == 2
    assert "--validation" in result.output and "too few to hold out 5000" in result.output
    result = run("samples", "--replay", dataset_path(CONVOLUTION), "--growth", "1", "--store", tmp_path / "t.db")
    assert result.exit_code == 2 and "--growth" in result.output and "must be a number > 1" in result.output
    result = run("samples", "--replay", dataset_path(CONVOLUTION), "--plot", tmp_path / "c.txt")
    assert result.exit_code == 2 and "cannot write a figure as 'c.txt'" in result.output


def test_samples_with_a_live_command(tmp_path):
    space = tmp_path / "space.yaml"
    space.write_text("parameters:\n  a: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n  b: [0, 1, 2, 3, 4, 5, 6, 7]\n")
    command = f"{sys.executable} -c \"print('time:', 1 + ({{a}} > 5) * 4 + ({{b}} > 2))\""
    result = run("samples", space, "--command", command, "--pattern", r"time: (\S+)", "--validation", "30",
                 "--target", "1%", "--budget", "60", "--store", tmp_path / "live.db")
    assert result.exit_code == 0, result.output
    assert "target 1.0% reached" in result.output


def test_samples_reads_a_bare_percentage_as_a_mistake(tmp_path):
    result = run("samples", "--replay", dataset_path(CONVOLUTION), "--target", "8", "--store", tmp_path / "s.db")
    assert result.exit_code == 2
    assert "'8' is read as a fraction (8 = 800 %)" in result.output and "write 8% for 8 %" in result.output
    assert not (tmp_path / "s.db").exists()


def test_samples_refuses_an_infinite_growth_and_a_missing_plot_folder_before_measuring(tmp_path):
    result = run("samples", "--replay", dataset_path(CONVOLUTION), "--growth", "inf", "--store", tmp_path / "g.db")
    assert result.exit_code == 2 and "--growth" in result.output and "Traceback" not in result.output
    result = run("samples", "--replay", dataset_path(CONVOLUTION), "--plot", tmp_path / "missing" / "c.png", "--store",
                 tmp_path / "p.db")
    assert result.exit_code == 2 and "error: --plot: the folder" in result.output and "does not exist" in result.output
    assert not (tmp_path / "p.db").exists()  # refused before anything was measured


def test_samples_on_an_exhausted_space_does_not_ask_for_more_budget(tmp_path):
    kmeans = dataset_path("starchart_kmeans/kmeans_hd7970.csv")  # 500 designs: 200 held out, 300 to train on
    result = run("samples", "--replay", kmeans, "--target", "1%", "--store", tmp_path / "k.db")
    assert result.exit_code == 0, result.output
    assert "300 training samples" in result.output
    assert "not reached: every design of the space is measured" in result.output
    assert "larger --budget" not in result.output and "fewer --validation" in result.output


def test_samples_with_a_larger_budget_measures_only_the_new_designs(tmp_path):
    store = tmp_path / "s.db"
    first = run("samples", "--replay", dataset_path(CONVOLUTION), "--target", "1%", "--budget", "100", "--store", store)
    assert first.exit_code == 0, first.output
    more = run("samples", "--replay", dataset_path(CONVOLUTION), "--target", "1%", "--budget", "200", "--store", store)
    assert more.exit_code == 0, more.output
    with Store.open(store, read_only=True) as db:
        assert len(db) == 200 + 200  # the same 200 held out, the first 100 training designs kept


def test_samples_prints_only_the_first_levels_of_a_large_tree(tmp_path):
    gemm = dataset_path("gemm/RTX_3090.json.gz")
    result = run("samples", "--replay", gemm, "--target", "5%", "--budget", "400", "--store", tmp_path / "g.db")
    assert result.exit_code == 0, result.output
    assert "tree fitted on the 400 training samples (its first 4 levels of 65 leaves):" in result.output
    tree_lines = result.output.split("levels of 65 leaves):", 1)[1].strip().splitlines()
    assert 10 < len(tree_lines) < 2 ** 5  # at most 2⁵ − 1 nodes down to depth 4, not 129
