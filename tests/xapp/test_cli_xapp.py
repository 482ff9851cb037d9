"""``starchart xapp``: features, corpus, train, evaluate and predict from the command line.

The train/evaluate/predict tests give a copy of a few corpus kernels an invented GPU
measurement file: they check that the commands work end to end, not any accuracy (the
corpus's real GPU side is measured on a GPU host; see corpus/README.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from corpus_copy import corpus_copy
from typer.testing import CliRunner

from starchart.cli import app
from starchart.xapp.corpus import MEASUREMENT_FORMAT, Corpus
from starchart.xapp.static import FEATURES, static_features

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).parent / "cases"
DYN_CASES = Path(__file__).parent / "dyn_cases"
runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def test_static_features_json_has_the_ten_thesis_features():
    result = run("xapp", "features", CASES / "strided.c", "--json")
    assert result.exit_code == 0, result.output
    features = json.loads(result.output)["features"]
    assert list(features) == list(FEATURES)
    assert features["coalesced"] < 1.0  # stride 2 between consecutive threads


def test_static_features_table_and_details():
    result = run("xapp", "features", CASES / "streaming.c")
    assert result.exit_code == 0, result.output
    assert "coalesced" in result.output and "arith_intensity" in result.output
    detailed = run("xapp", "features", CASES / "fig42.c", "--details", "--json")
    assert detailed.exit_code == 0, detailed.output
    accesses = {(a["line"], a["coalesced"]) for a in json.loads(detailed.output)["accesses"]}
    assert accesses == {(7, True), (13, False), (14, False)}  # thesis Fig. 4.2: tree[0] yes, tree[j] no


def test_dynamic_features_take_program_arguments_after_dashes():
    result = run("xapp", "features", "--dynamic", DYN_CASES / "stream.c", "--json", "--", "256")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["features"]["coalesced"] == pytest.approx(1.0)
    # instrumented over plain run time: on a run this short, timer noise can put it either side of 1
    assert 0 < data["slowdown"] < float("inf")


def test_bad_input_is_one_line_not_a_traceback(tmp_path):
    result = run("xapp", "features", tmp_path / "missing.c")
    assert result.exit_code == 2
    assert "no such C file" in result.output and "Traceback" not in result.output
    stray = run("xapp", "features", CASES / "streaming.c", "--", "1")
    assert stray.exit_code == 2 and "only for --dynamic" in stray.output
    cutoffs = run("xapp", "evaluate", ROOT / "corpus", "--cutoffs", "20,3")
    assert cutoffs.exit_code == 2


def test_training_without_gpu_measurements_says_what_to_do(tmp_path):
    corpus = corpus_copy(tmp_path, ["saxpy", "gemv"])
    result = run("xapp", "train", corpus, "-o", tmp_path / "m.json")
    assert result.exit_code == 2
    assert "measure_corpus" in result.output and "--side gpu" in result.output


def test_corpus_table_lists_every_kernel():
    result = run("xapp", "corpus", ROOT / "corpus", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert {row["kernel"] for row in rows} == {k.name for k in Corpus.load(ROOT / "corpus").kernels}


KERNELS = ["saxpy", "triad", "gemv", "gemv_t", "transpose", "row_sums", "col_sums", "matmul",
           "histogram", "spmv_csr", "mandelbrot", "recurrence_few"]


def test_train_evaluate_predict_end_to_end(tmp_path):
    corpus = corpus_copy(tmp_path, KERNELS)
    # invented labels: the coalesced, regular kernels "fast", the rest "slow" (a code test only)
    fast = {"saxpy", "triad", "gemv_t", "col_sums", "matmul", "mandelbrot"}
    _invented_measurements(corpus, {k: (12.0 if k in fast else 1.5) for k in KERNELS})

    model = tmp_path / "model.json"
    trained = run("xapp", "train", corpus, "-o", model, "--trees", "50")
    assert trained.exit_code == 0, trained.output
    assert json.loads(model.read_text())["format"] == "starchart.xapp.SpeedupRangeModel"

    evaluated = run("xapp", "evaluate", corpus, "--trees", "50", "--json")
    assert evaluated.exit_code == 0, evaluated.output
    report = json.loads(evaluated.output)
    assert report["kernels"] == len(KERNELS)
    assert sum(sum(row.values()) for row in report["confusion"].values()) == len(KERNELS)
    # the command reports what the library computes on the same data
    from starchart.xapp.model import SpeedupRangeModel
    from starchart.xapp.training import corpus_features, training_frame

    loaded = Corpus.load(corpus)
    features, labelled = training_frame(loaded, corpus_features(loaded, progress=False, cache=False))
    expected = SpeedupRangeModel(n_trees=50).loocv(features, labelled["speedup"])
    assert report["accuracy"] == pytest.approx(expected.accuracy)

    predicted = run("xapp", "predict", corpus / "kernels" / "saxpy" / "saxpy.c", "--model", model, "--json")
    assert predicted.exit_code == 0, predicted.output
    answer = json.loads(predicted.output)
    fitted = SpeedupRangeModel.from_json(model)
    saxpy = pd.DataFrame([static_features(corpus / "kernels" / "saxpy" / "saxpy.c")], index=["saxpy"])
    assert answer["range"] == fitted.predict(saxpy).iloc[0]
    assert answer["vote_share"] == pytest.approx(float(fitted.vote_share(saxpy).loc["saxpy", answer["range"]]))
    assert answer["explanation"] == fitted.explain_path(saxpy)["path"]

    mismatch = run("xapp", "predict", "--dynamic", corpus / "kernels" / "saxpy" / "saxpy.c", "--model", model)
    assert mismatch.exit_code == 2 and "--dynamic" in mismatch.output


def _invented_measurements(corpus: Path, speedups: dict[str, float]) -> None:
    loaded = Corpus.load(corpus)
    kernels = {}
    for kernel in loaded.kernels:
        cpu = 1.0
        side = {"status": "ok", "measured": "2026-11-22T00:00:00Z", "checksum": 1.0}
        kernels[kernel.name] = {"args": list(kernel.args), "cpu": {**side, "time_s": cpu},
                                "gpu": {**side, "time_s": cpu / speedups[kernel.name]}}
    doc = {"format": MEASUREMENT_FORMAT, "machine": {"cpu": "invented", "gpu": {"name": "invented"}},
           "kernels": kernels}
    (corpus / "measurements" / "invented.json").write_text(json.dumps(doc))


def test_dynamic_train_evaluate_predict_end_to_end(tmp_path):
    kernels = ["saxpy", "triad", "gemv", "gemv_t", "transpose", "histogram", "dot_product", "heat1d"]
    corpus = corpus_copy(tmp_path, kernels)
    for name in kernels:  # measure at the tiny test size so the instrumented runs take milliseconds
        meta = corpus / "kernels" / name / "kernel.yaml"
        doc = yaml.safe_load(meta.read_text())
        doc["args"] = doc["small_args"]
        meta.write_text(yaml.safe_dump(doc))
    _invented_measurements(corpus, {k: 2.0 + i for i, k in enumerate(kernels)})

    model = tmp_path / "dyn.json"
    trained = run("xapp", "train", corpus, "-o", model, "--dynamic", "--learners", "10")
    assert trained.exit_code == 0, trained.output
    assert json.loads(model.read_text())["format"] == "starchart.xapp.SpeedupRegressionEnsemble"
    recorded = json.loads((corpus / "features" / "dynamic.json").read_text())["kernels"]
    assert set(recorded) == set(kernels)  # the corpus records what it measured

    evaluated = run("xapp", "evaluate", corpus, "--dynamic", "--learners", "10", "--leave-out", "2", "--json")
    assert evaluated.exit_code == 0, evaluated.output
    report = json.loads(evaluated.output)
    assert report["kernels"] == len(kernels) and len(report["table"]) == len(kernels)
    assert report["mean_relative_error"] > 0  # invented times no model fits exactly

    saxpy = Corpus.load(corpus).kernel("saxpy")
    predicted = run("xapp", "predict", "--dynamic", saxpy.c_path, "--model", model, "--cpu-seconds", "0.5",
                    "--json", "--", *saxpy.small_args)
    assert predicted.exit_code == 0, predicted.output
    answer = json.loads(predicted.output)
    assert answer["gpu_seconds"] > 0 and answer["speedup"] == pytest.approx(0.5 / answer["gpu_seconds"])


@pytest.mark.parametrize("args, said", [
    (["features", CASES / "err_no_band.c"], ["no --band-line given", "pass --band-line <line of the for>"]),
    (["features", CASES / "matadd2d.c", "--band-line", "1"], ["(--band-line)"]),
    (["features", CASES / "matadd2d.c", "--trip", "-1"], ["--trip -1.0 is negative"]),
    (["features", CASES / "matadd2d.c", "--prob", "2"], ["--prob 2.0 is not a probability"]),
    (["features", CASES / "matadd2d.c", "--coalescing", "x"], ["--coalescing x is not known"]),
    (["features", "--dynamic", DYN_CASES / "matmul.c", "--band-line", "9999"], ["--band-line 9999 is not a line"]),
    (["evaluate", ROOT / "corpus", "--cutoffs", ","], ["error: --cutoffs:", "such as 3 or 3,20"]),
    (["evaluate", ROOT / "corpus", "--cutoffs", "20,3"], ["e.g. 3,20"]),
])
def test_errors_name_the_options_typed_not_python_arguments(args, said):
    """The analyses' errors name their Python arguments (band_line=, trip_counts=, (3, 20)); the command
    line must show the options (--band-line, --trip, 3,20)."""
    result = run("xapp", *args)
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert all(s in text for s in said), text
    assert not any(s in text for s in ("band_line", "trip_counts", "branch_probs", "coalescing=", "(3,")), text


def test_a_file_that_is_not_c_is_compiled_as_c():
    """clang took a .yaml for a linker input and the error quoted only its 'unused argument' warnings."""
    result = run("xapp", "features", CASES / "matadd2d.yaml")
    assert result.exit_code == 2
    assert "error:" in result.output.split("could not compile the file:")[1] and "unused" not in result.output


def test_leave_out_and_cpu_seconds_errors(tmp_path):
    kernels = ["saxpy", "triad", "gemv", "gemv_t", "transpose", "histogram"]
    corpus = corpus_copy(tmp_path, kernels)
    for name in kernels:
        meta = corpus / "kernels" / name / "kernel.yaml"
        doc = yaml.safe_load(meta.read_text())
        doc["args"] = doc["small_args"]
        meta.write_text(yaml.safe_dump(doc))
    _invented_measurements(corpus, {k: 2.0 + i for i, k in enumerate(kernels)})
    result = run("xapp", "evaluate", corpus, "--dynamic", "--learners", "3", "--leave-out", "5")
    assert result.exit_code == 2
    assert "error: --leave-out:" in result.output and "use a smaller --leave-out" in result.output
    model = tmp_path / "dyn.json"
    assert run("xapp", "train", corpus, "-o", model, "--dynamic", "--learners", "3").exit_code == 0
    saxpy = Corpus.load(corpus).kernel("saxpy")
    # a zero CPU time was accepted and then answered "give ... --cpu-seconds for the speedup"
    zero = run("xapp", "predict", "--dynamic", saxpy.c_path, "--model", model, "--cpu-seconds", "0",
               "--", *saxpy.small_args)
    assert zero.exit_code == 2 and "error: --cpu-seconds:" in zero.output
