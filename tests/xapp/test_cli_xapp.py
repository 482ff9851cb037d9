"""``starchart xapp``: features, corpus, train, evaluate and predict from the command line.

The train/evaluate/predict tests give a copy of a few corpus kernels an invented GPU
measurement file: they check that the commands work end to end, not any accuracy (the
corpus's real GPU side is measured on a GPU host; see corpus/README.md).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from clang_available import needs_clang
from corpus_copy import corpus_copy
from typer.testing import CliRunner

from starchart.cli import app
from starchart.errors import InputError, StarchartError
from starchart.xapp import toolchain
from starchart.xapp.corpus import MEASUREMENT_FORMAT, Corpus
from starchart.xapp.dynamic.features import FEATURES as DYNAMIC_FEATURES
from starchart.xapp.dynamic.features import dynamic_features, measure
from starchart.xapp.measure_corpus import measure as measure_corpus
from starchart.xapp.model import SpeedupRangeModel
from starchart.xapp.regression import SpeedupRegressionEnsemble
from starchart.xapp.static import FEATURES, static_analysis, static_features

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


# ---------------------------------------------------------------------- review rounds (test_xapp_user_edges2)
# More of what a performance engineer meets with XAPP on their own C code: inline assembly, absurd trip
# counts, several bands, loops written by macros, a C file given as the corpus, an edited model file, NaN in
# JSON, programs that never end or read stdin or miss a definition, a read-only corpus, the thesis figures
# quoted next to an evaluation, predictions far from the training kernels and a gcc named as clang.
# Each test failed before its fix.




def _one_line(result) -> str:
    return " ".join(result.output.split())


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# ---------------------------------------------------------------- static analysis of real-world C
@needs_clang
def test_inline_asm_in_the_band_is_not_a_function_pointer(tmp_path):
    """`asm volatile("" ::: "memory")` was refused as "a call through a function pointer"."""
    source = _write(tmp_path / "asm.c", """void k(int n, float *a) {
#pragma xapp parallel
  for (int i = 0; i < n; i++) {
    __asm__ volatile("" ::: "memory");
    a[i] = a[i] * 2;
  }
}
""")
    plain = _write(tmp_path / "plain.c", source.read_text().replace('    __asm__ volatile("" ::: "memory");\n', ""))
    with_asm, without = static_features(source), static_features(plain)
    # one more instruction, counted like dynamic XAPP counts it (integer arithmetic)
    assert with_asm["ksize"] == without["ksize"] + 1
    assert with_asm["coalesced"] == without["coalesced"] == 1.0


INNER = """void f(int n, int m, float *x, const float *a) {
#pragma xapp parallel
    for (int i = 0; i < n; i++) {
        float s = 0;
        for (int j = 0; j < m; j++) s += a[i*m+j];
        x[i] = s;
    }
}
"""


@needs_clang
def test_trip_counts_that_overflow_are_refused(tmp_path):
    """--trip 1e308 is finite, but ksize overflowed: the JSON said Infinity (not JSON) and exit 0."""
    source = _write(tmp_path / "inner.c", INNER)
    result = run("xapp", "features", source, "--trip", "1e308", "--json")
    assert result.exit_code == 2, result.output
    text = _one_line(result)
    assert "ksize, arith_intensity overflow" in text and "line 5: 1e+308" in text and "--trip" in text
    assert "Infinity" not in result.output
    with pytest.raises(InputError, match="overflow"):
        static_features(source, trip_counts={5: 1e308})


@needs_clang
def test_several_bands_hint_gives_the_loop_lines(tmp_path):
    """The error listed the pragma lines (2, 6) and said "pass --band-line"; --band-line 2 then failed."""
    source = _write(tmp_path / "two.c", """void k1(int n, float *a) {
#pragma xapp parallel
  for (int i = 0; i < n; i++) a[i] *= 2;
}
void k2(int n, float *a) {
#pragma xapp parallel
  for (int i = 0; i < n; i++) a[i] += 2;
}
int main(void) { float a[8] = {0}; k1(8, a); k2(8, a); return 0; }
""")
    result = run("xapp", "features", source)
    assert result.exit_code == 2
    assert "pass --band-line <line of the band's loop> to choose one: 3 or 7" in _one_line(result)
    dynamic = run("xapp", "features", "--dynamic", source)
    assert dynamic.exit_code == 2 and "to choose one: 3 or 7" in _one_line(dynamic)
    assert run("xapp", "features", source, "--band-line", "7").exit_code == 0


@needs_clang
def test_a_loop_written_by_a_macro_hint_names_band_line(tmp_path):
    """A pragma before `LOOP(i, n)` is refused; the hint only said "put the pragma before the loop"."""
    source = _write(tmp_path / "macro.c", """#define LOOP(i, n) for (int i = 0; i < (n); i++)
void k(int n, float *a) {
#pragma xapp parallel
  LOOP(i, n) a[i] *= 2;
}
""")
    result = run("xapp", "features", source)
    assert result.exit_code == 2
    assert "remove the pragma and pass --band-line <line of the macro call>" in _one_line(result)
    _write(source, source.read_text().replace("#pragma xapp parallel\n", ""))
    assert run("xapp", "features", source, "--band-line", "3").exit_code == 0  # the way the hint gives


# ---------------------------------------------------------------- corpus and model files
@needs_clang
def test_a_c_file_given_as_the_corpus(tmp_path):
    """`starchart xapp corpus kernel.c` said "invalid YAML" at line 4 of the C file."""
    result = run("xapp", "corpus", CASES / "matadd2d.c")
    assert result.exit_code == 2
    text = _one_line(result)
    assert "is neither a corpus folder nor its corpus.yaml" in text and "YAML" not in text


def _tiny_model(path: Path) -> Path:
    """8 invented kernels whose every feature lies in [0, 1]."""
    rng = np.random.default_rng(0)
    rows = pd.DataFrame(rng.random((8, len(FEATURES))), columns=list(FEATURES), index=[f"k{i}" for i in range(8)])
    model = SpeedupRangeModel(cutoffs=(3,), n_trees=5).fit(rows, pd.Series([1.0, 10.0] * 4, index=rows.index))
    model.to_json(path)
    return path


@needs_clang
def test_an_edited_model_file_is_not_blamed_on_the_sklearn_version(tmp_path):
    """The hint said "saved with scikit-learn X, this is X; install that version" when both were equal."""
    model = _tiny_model(tmp_path / "m.json")
    doc = json.loads(model.read_text())
    doc["training_votes"][0][0] += 1
    model.write_text(json.dumps(doc))
    result = run("xapp", "predict", CASES / "matadd2d.c", "--model", model)
    assert result.exit_code == 2
    text = _one_line(result)
    assert "changed after it was saved" in text and "install that version" not in text


@needs_clang
def test_predict_says_when_the_kernel_is_outside_the_training_data(tmp_path):
    """A kernel far from every training kernel got an answer as sure-looking as any other."""
    model = _tiny_model(tmp_path / "m.json")
    result = run("xapp", "predict", CASES / "matadd2d.c", "--model", model, "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output[result.output.index("{"):])
    assert answer["training_kernels"] == 8
    outside = answer["outside_training"]
    assert outside["parallelism"]["value"] == 512 * 256 and outside["parallelism"]["max"] < 1
    assert set(outside) <= set(FEATURES) and outside["coalesced"]["value"] == 1.0  # training max below 1
    text = _one_line(run("xapp", "predict", CASES / "matadd2d.c", "--model", model))
    assert "note: outside the range of the 8 training kernels: " in text and "parallelism 1.31e+05" in text


@needs_clang
def test_a_dynamic_model_keeps_its_training_ranges(tmp_path):
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.uniform(0, 1, (12, 2)), columns=["mem", "ilp32"], index=[f"k{i}" for i in range(12)])
    X["ninst"] = rng.uniform(1e6, 1e7, 12)
    model = SpeedupRegressionEnsemble(n_learners=5).fit(X, X["ninst"] * 1e-9 * (1 + X["mem"]))
    loaded = SpeedupRegressionEnsemble.from_json(model.to_json())
    assert loaded.n_training_ == 12
    assert loaded.ranges_["mem"] == [X["mem"].min(), X["mem"].max()]


@needs_clang
def test_evaluate_json_has_no_nan(tmp_path, monkeypatch):
    """A PPV with no positive prediction is NaN; --json printed `NaN`, which jq and strict parsers refuse."""
    corpus = _labelled_corpus(tmp_path, {"saxpy": 5.0, "gemv": 1.0, "triad": 1.0})
    real = SpeedupRangeModel.loocv

    def no_positive(self, *args, **kwargs):
        result = real(self, *args, **kwargs)
        result.ppv = math.nan
        return result

    monkeypatch.setattr(SpeedupRangeModel, "loocv", no_positive)
    result = run("xapp", "evaluate", corpus, "--trees", "5", "--json")
    assert result.exit_code == 0, result.output
    assert "NaN" not in result.output
    assert json.loads(result.output[result.output.index("{"):], parse_constant=pytest.fail)["ppv"] is None


def _labelled_corpus(tmp_path: Path, speedups: dict[str, float]) -> Path:
    """A copy of a few corpus kernels with invented GPU times (a code test, not an accuracy claim)."""
    target = corpus_copy(tmp_path, list(speedups))
    side = {"status": "ok", "measured": "2026-11-22T00:00:00Z", "checksum": 1.0}
    kernels = {k.name: {"args": list(k.args), "cpu": {**side, "time_s": 1.0},
                        "gpu": {**side, "time_s": 1.0 / speedups[k.name]}} for k in Corpus.load(target).kernels}
    (target / "measurements" / "invented.json").write_text(json.dumps(
        {"format": MEASUREMENT_FORMAT, "machine": {"cpu": "invented", "gpu": {"name": "invented"}},
         "kernels": kernels}))
    return target


@needs_clang
def test_a_corpus_whose_features_cannot_be_recorded_still_evaluates(tmp_path):
    """A read-only corpus (here: `features` is a file) failed after every feature was computed."""
    corpus = _labelled_corpus(tmp_path, {"saxpy": 5.0, "gemv": 1.0, "triad": 30.0, "transpose": 1.5})
    (corpus / "features").write_text("not a folder")
    with pytest.warns(UserWarning, match="cannot record the static features"):
        result = run("xapp", "evaluate", corpus, "--trees", "5", "--cutoffs", "3,20")
    assert result.exit_code == 0, result.output
    assert "LOOCV accuracy" in result.output


@needs_clang
def test_thesis_accuracy_quoted_for_the_right_number_of_ranges(tmp_path):
    """3 ranges were compared with the thesis's 86 %, its figure for 2 (77 % is for 3)."""
    corpus = _labelled_corpus(tmp_path, {"saxpy": 5.0, "gemv": 1.0, "triad": 30.0, "transpose": 1.5})
    three = _one_line(run("xapp", "evaluate", corpus, "--trees", "5", "--cutoffs", "3,20"))
    assert "3 ranges): 77 % (average over cutoffs)" in three and "86 %" not in three
    two = _one_line(run("xapp", "evaluate", corpus, "--trees", "5", "--cutoffs", "4"))
    assert "2 ranges): 86 % (average over cutoffs)" in two
    assert "2 ranges): 94 %" in _one_line(run("xapp", "evaluate", corpus, "--trees", "5", "--cutoffs", "3"))


# ---------------------------------------------------------------- dynamic runs of real programs
#: "Forever" for the test: 3 s of spinning after the band (a real hang would hold an unfixed run 600 s).
FOREVER = """#include <time.h>
void k(int n, float *a) {
#pragma xapp parallel
  for (int i = 0; i < n; i++) a[i] = a[i] * 2;
}
int main(void) {
  float a[16] = {0};
  k(16, a);
  time_t start = time(0);
  while (time(0) - start < 3) {}
  return 0;
}
"""


@needs_clang
def test_timeout_option_for_a_program_that_never_ends(tmp_path):
    """There was no --timeout: a hanging program held the command 600 s, then the hint said "raise timeout="."""
    source = _write(tmp_path / "forever.c", FOREVER)
    result = run("xapp", "features", "--dynamic", source, "--timeout", "0.5")
    assert result.exit_code == 2, result.output
    text = _one_line(result)
    assert "did not finish within 0.5 s" in text and "raise --timeout" in text and "timeout=" not in text
    for bad in ("nan", "0", "-1"):
        refused = run("xapp", "features", "--dynamic", source, f"--timeout={bad}")
        assert refused.exit_code == 2 and "is not a positive number of seconds" in _one_line(refused)
    static = run("xapp", "features", source, "--timeout", "5")
    assert static.exit_code == 2 and "--timeout only applies to --dynamic" in _one_line(static)
    with pytest.raises(InputError, match="not a positive number"):  # was a ValueError from subprocess
        dynamic_features(source, timeout=float("nan"))


@needs_clang
def test_a_definition_in_another_file_is_the_users_to_fix(tmp_path):
    """An undefined `helper` (a multi-file program) was called "a bug in starchart.xapp.dynamic"."""
    source = _write(tmp_path / "multi.c", """#include <stdlib.h>
float helper(float x);
void k(int n, float *a) {
#pragma xapp parallel
  for (int i = 0; i < n; i++) a[i] = helper(a[i]);
}
int main(void) { float *a = calloc(100, 4); k(100, a); return 0; }
""")
    with pytest.raises(InputError, match="the program uses `helper`, defined neither in this C file") as caught:
        dynamic_features(source)
    assert "bug" not in str(caught.value) and "multi.c" in str(caught.value)


@needs_clang
def test_a_program_reading_stdin_is_told_stdin_is_empty(tmp_path):
    """A program that reads stdin failed with no word that its stdin is /dev/null."""
    source = _write(tmp_path / "stdin.c", """#include <stdio.h>
void k(int n, float *a) {
#pragma xapp parallel
  for (int i = 0; i < n; i++) a[i] = 0;
}
int main(void) {
  int n; float a[64];
  if (scanf("%d", &n) != 1) { fprintf(stderr, "give n on stdin\\n"); return 1; }
  k(n, a);
  return 0;
}
""")
    with pytest.raises(InputError, match="exited with status 1") as caught:
        dynamic_features(source)
    assert "empty stdin" in str(caught.value.hint) and "files named in its arguments" in str(caught.value.hint)


# ---------------------------------------------------------------- the compiler
@needs_clang
@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc to name as clang")
def test_gcc_named_as_clang_is_said(monkeypatch):
    """STARCHART_CLANG=gcc failed on every file with "clang could not compile the file" (blaming the C code)."""
    monkeypatch.setenv("STARCHART_CLANG", "gcc")
    toolchain.clang_command.cache_clear()
    try:
        with pytest.raises(StarchartError, match="STARCHART_CLANG='gcc' is not clang"):
            static_features(CASES / "matadd2d.c")
    finally:
        monkeypatch.delenv("STARCHART_CLANG")
        toolchain.clang_command.cache_clear()


# ---------------------------------------------------------------- what train/evaluate compute, and say
@needs_clang
def test_training_without_labels_stops_before_running_any_kernel(tmp_path, monkeypatch):
    """`train --dynamic` ran every kernel's instrumented program (minutes each at full size) before saying
    that no kernel has a measured speedup."""
    from starchart.xapp import training

    corpus = _labelled_corpus(tmp_path, {"saxpy": 5.0, "gemv": 1.0})
    (corpus / "measurements" / "invented.json").unlink()

    def must_not_run(kernel):
        raise AssertionError(f"ran {kernel.name}")

    monkeypatch.setattr(training, "_dynamic", must_not_run)
    result = run("xapp", "train", "--dynamic", corpus, "-o", tmp_path / "m.json")
    assert result.exit_code == 2, result.output
    assert "no corpus kernel has a measured speedup" in _one_line(result)


@needs_clang
def test_unlabelled_kernels_are_named_and_not_analysed(tmp_path, monkeypatch):
    """Kernels without a speedup (a GPU timeout, checksums that differ) were dropped from training unsaid,
    after their features were computed for nothing."""
    from starchart.xapp import training

    corpus = _labelled_corpus(tmp_path, {"saxpy": 5.0, "gemv": 1.0, "triad": 30.0, "transpose": 1.5,
                                         "histogram": 2.0})
    path = corpus / "measurements" / "invented.json"
    doc = json.loads(path.read_text())
    doc["kernels"]["gemv"]["gpu"]["checksum"] = 2.0
    doc["kernels"]["histogram"]["gpu"] = {"status": "timeout", "measured": "2026-11-22T00:00:00Z"}
    path.write_text(json.dumps(doc))
    analysed = []
    real = training._static
    monkeypatch.setattr(training, "_static", lambda kernel: analysed.append(kernel.name) or real(kernel))
    result = run("xapp", "train", corpus, "-o", tmp_path / "m.json", "--trees", "5")
    assert result.exit_code == 0, result.output
    text = _one_line(result)
    assert "left out gemv: no measured speedup (the CPU and GPU checksums differ)" in text
    assert "left out histogram: no measured speedup (gpu side timeout)" in text
    assert sorted(analysed) == ["saxpy", "transpose", "triad"] and "from 3 kernels" in text


# ---------------------------------------------------------------------- review rounds (test_xapp_user_edges3)
# XAPP on programs as they are built for real: headers in another folder, sizes given with -D, a library
# to link; a band written by a macro measured dynamically; a corpus re-measured after one side failed; C99
# complex arithmetic in the band. Each test failed before its fix.


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{"):])


# ---------------------------------------------------------------- -I, -D, -L, -l
#: A program built as `cc -Iinclude -DINNER=<n> -DSCALE=<x> k.c -Llib -lscale -lm`: its header lies in
#: include/, INNER and SCALE come from the command line, scale_of() from a shared library in lib/.
PROGRAM = """#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "params.h"
void k(int n, double *a) {
#pragma xapp parallel
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < INNER; j++) s += sqrt(a[i] + j);
    a[i] = s;
  }
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  double *a = malloc(n * sizeof *a);
  for (int i = 0; i < n; i++) a[i] = i;
  k(n, a);
  printf("%g\\n", scale_of(a[n - 1]));
  return 0;
}
"""


HEADER = """#ifndef INNER
#error "build with -DINNER=<count>"
#endif
double scale_of(double x);
"""


def _project(tmp_path: Path) -> Path:
    """The program, its header in include/ and libscale.so built with clang in lib/."""
    root = tmp_path / "proj"
    _write(root / "include" / "params.h", HEADER)
    library = _write(root / "lib" / "scale.c", "double scale_of(double x) { return x * SCALE; }\n")
    subprocess.run([*toolchain.clang_command(), "-shared", "-fPIC", "-DSCALE=3", str(library), "-o",
                    str(root / "lib" / "libscale.so")], check=True, capture_output=True)
    _write(root / "k.c", PROGRAM)
    return root


@needs_clang
def test_static_features_take_include_dirs_and_defines(tmp_path):
    """There was no -I or -D: a program with its headers elsewhere or a size given at build time could only
    be analysed from Python, and the hint said "Python API: include_dirs=, defines=" to a command-line user."""
    root = _project(tmp_path)
    source = root / "k.c"
    bare = run("xapp", "features", source)
    assert bare.exit_code == 2
    text = _one_line(bare)
    assert "'params.h' file not found" in text and "-I DIR" in text and "-D NAME=VALUE" in text
    assert "Python API" not in text and "include_dirs" not in text
    no_define = run("xapp", "features", source, "-I", root / "include")
    assert no_define.exit_code == 2 and "build with -DINNER=<count>" in _one_line(no_define)
    # repeatable, attached or not, long or short; the macro sets the inner loop's constant trip count
    details = _json(run("xapp", "features", source, "-I", root / "include", "--include-dir", root / "lib",
                        "-DINNER=7", "--define", "UNUSED", "--details", "--json"))
    inner = next(loop for loop in details["loops"] if loop["role"] == "body")
    assert inner["line"] == 9 and inner["trip"] == 7 and inner["trip_source"] == "constant"
    # the same as the Python API gives
    api = static_features(source, include_dirs=(root / "include",), defines={"INNER": 7})
    assert details["features"] == api
    larger = _json(run("xapp", "features", source, "-I", root / "include", "-D", "INNER=70", "--json"))
    assert larger["features"]["ksize"] > details["features"]["ksize"]


@needs_clang
def test_dynamic_features_link_a_library(tmp_path):
    """--dynamic had no -l/-L: a program calling a library could not be measured from the command line."""
    root = _project(tmp_path)
    source = root / "k.c"
    args = ["-I", root / "include", "-D", "INNER=4"]
    unlinked = run("xapp", "features", "--dynamic", source, *args, "--", 50)
    assert unlinked.exit_code == 2
    text = _one_line(unlinked)
    assert "the program uses `scale_of`" in text and "-l NAME" in text and "-L DIR -l NAME" in text
    assert "Python API" not in text and "libs=" not in text
    unfound = run("xapp", "features", "--dynamic", source, *args, "-l", "scale", "--", 50)
    assert unfound.exit_code == 2, unfound.output
    assert "the linker found no library -lscale" in _one_line(unfound) and "bug" not in unfound.output
    # a shared library outside the system folders links and is found again when the program runs
    linked = _json(run("xapp", "features", "--dynamic", source, *args, "-L", root / "lib", "-lscale", "--json",
                       "--", 50))
    # 50 iterations of the band, each with 4 sqrt
    assert linked["features"]["sqrtd"] > 0 and linked["features"]["ninst"] > 50 * 4
    api = dynamic_features(source, [50], include_dirs=(root / "include",), defines={"INNER": 4},
                           libs=[f"-L{root / 'lib'}", f"-Wl,-rpath,{root / 'lib'}", "-lscale", "-lm"])
    assert api["ninst"] == linked["features"]["ninst"]


@needs_clang
def test_library_options_are_refused_where_they_do_nothing(tmp_path):
    root = _project(tmp_path)
    static = run("xapp", "features", root / "k.c", "-I", root / "include", "-DINNER=2", "-lscale")
    assert static.exit_code == 2 and "-l only apply to --dynamic" in _one_line(static)
    missing = run("xapp", "features", root / "k.c", "-I", root / "nowhere")
    assert missing.exit_code == 2 and "nowhere: no such folder" in _one_line(missing)
    bad = run("xapp", "features", root / "k.c", "-D", "2N=3")
    assert bad.exit_code == 2 and "'2N' is not a macro name" in _one_line(bad)
    no_file = run("xapp", "features", "--dynamic", root / "k.c", "-l", root / "lib" / "libnone.so")
    assert no_file.exit_code == 2 and "no such library file" in _one_line(no_file)


def _tiny_static_model(path: Path) -> Path:
    rng = np.random.default_rng(0)
    rows = pd.DataFrame(rng.random((8, len(FEATURES))), columns=list(FEATURES), index=[f"k{i}" for i in range(8)])
    SpeedupRangeModel(cutoffs=(3,), n_trees=5).fit(rows, pd.Series([1.0, 10.0] * 4, index=rows.index)).to_json(path)
    return path


@needs_clang
def test_predict_takes_the_build_options_static_sweep_and_dynamic(tmp_path):
    """predict, its --sweep and predict --dynamic compile the file too: they need the same options."""
    root = _project(tmp_path)
    build = ["-I", root / "include", "-D", "INNER=3"]
    model = _tiny_static_model(tmp_path / "static.json")
    answer = _json(run("xapp", "predict", root / "k.c", "--model", model, *build, "--sweep", "--json"))
    assert answer["features"] == {**static_features(root / "k.c", include_dirs=(root / "include",),
                                                    defines={"INNER": 3}), "host_steps": 1.0}
    assert sum(answer["sweep"]["counts"].values()) == 20
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.uniform(0, 1, (12, len(DYNAMIC_FEATURES))), columns=list(DYNAMIC_FEATURES),
                     index=[f"k{i}" for i in range(12)])
    X["ninst"] = rng.uniform(1e3, 1e5, 12)
    SpeedupRegressionEnsemble(n_learners=5).fit(X, X["ninst"] * 1e-9 * (1 + X["mem"])).to_json(tmp_path / "dyn.json")
    dynamic = _json(run("xapp", "predict", "--dynamic", root / "k.c", "--model", tmp_path / "dyn.json", *build,
                        "-L", root / "lib", "-l", "scale", "--json", "--", 20))
    assert dynamic["gpu_seconds"] > 0 and dynamic["features"]["ninst"] > 20 * 3


# ---------------------------------------------------------------- a band written by a macro
MACRO = """#include <stdio.h>
#include <stdlib.h>
#define FOR_EACH(i, n) for (int i = 0; i < (n); i++)
void k(int n, float *a) {
  FOR_EACH(i, n) a[i] = a[i] * 2 + 1;
}
int main(void) { int n = 4000; float *a = calloc(n, sizeof *a); k(n, a); printf("%g\\n", a[7]); return 0; }
"""


@needs_clang
def test_dynamic_band_line_on_a_macro_loop(tmp_path):
    """--band-line 5 on `FOR_EACH(i, n) ...` worked statically; --dynamic said "line 5 does not start a
    loop". clang places the macro's loop on the line of the macro call, where the run now finds it."""
    source = _write(tmp_path / "macro.c", MACRO)
    plain = _write(tmp_path / "plain.c", MACRO.replace("  FOR_EACH(i, n)", "  for (int i = 0; i < (n); i++)"))
    assert run("xapp", "features", source, "--band-line", 5).exit_code == 0
    result = _json(run("xapp", "features", "--dynamic", source, "--band-line", 5, "--json"))
    assert result["band_line"] == 5
    # the same region as the loop written out: the same instructions and accesses
    assert result["features"] == dynamic_features(plain, band_line=5)
    assert result["features"]["ninst"] > 4000
    # a line with no loop in the compiled program is still refused, and the hint says macros are fine
    wrong = run("xapp", "features", "--dynamic", source, "--band-line", 4)
    assert wrong.exit_code == 2
    assert "line 4 does not start a loop" in _one_line(wrong) and "macro call" in _one_line(wrong)
    with pytest.raises(InputError, match="line 3 does not start a loop"):
        measure(source, band_line=3)


# ---------------------------------------------------------------- measure_corpus --retry-failed
#: A 'kernel' both of whose sides are C (the GPU side compiled by gcc, a GPU pretended, as in
#: test_corpus.py): each run appends to runs-<side>.txt in its folder; the GPU side fails while
#: gpu-broken exists there.
SIDE = """#include <stdio.h>
#include <stdlib.h>
int main(void) {
  FILE *log = fopen("runs-%s.txt", "a");
  fputs("run\\n", log);
  fclose(log);
  if (%s) { fputs("device lost\\n", stderr); return 3; }
  printf("XAPP time_s=0.5 checksum=42\\n");
  return 0;
}
"""


@needs_clang
def test_retry_failed_measures_only_the_failed_side(tmp_path):
    """--retry-failed re-measured both sides of a kernel whose GPU side alone had failed: the CPU side ran
    again (minutes pinned to a core at full size) and its record was replaced."""
    root = corpus_copy(tmp_path, [])
    meta = yaml.safe_load((root / "corpus.yaml").read_text())
    meta["compile"]["cuda"] = ["gcc", "-x", "c", "{source}", "-o", "{binary}"]
    (root / "corpus.yaml").write_text(yaml.safe_dump(meta))
    folder = root / "kernels" / "flaky"
    _write(folder / "flaky.c", SIDE % ("cpu", "0"))
    _write(folder / "flaky.cu", SIDE % ("gpu", 'fopen("gpu-broken", "r") != NULL'))
    (folder / "kernel.yaml").write_text("name: flaky\ncategory: streaming\ndescription: test\nc: flaky.c\n"
                                        "cuda: flaky.cu\nargs: [1]\nsmall_args: [1]\ntolerance: 1.0e-9\n")
    (folder / "gpu-broken").write_text("")
    out = tmp_path / "m.json"

    def again(**options) -> dict:
        measure_corpus(root, sides=["cpu", "gpu"], out=out, repeats=1, progress=False,
                       gpu_check=lambda: (True, ""), **options)
        return json.loads(out.read_text())["kernels"]["flaky"]

    first = again()
    assert first["cpu"]["status"] == "ok" and first["gpu"]["status"] == "run-error"
    (folder / "gpu-broken").unlink()
    retried = again(retry_failed=True)
    assert retried["gpu"]["status"] == "ok" and retried["checksum_match"] is True
    assert retried["cpu"] == first["cpu"]
    assert (folder / "runs-cpu.txt").read_text().count("run") == 1
    assert (folder / "runs-gpu.txt").read_text().count("run") == 2
    # nothing failed any more: a third run measures nothing
    assert again(retry_failed=True) == retried and (folder / "runs-gpu.txt").read_text().count("run") == 2


# ---------------------------------------------------------------- C99 complex arithmetic
COMPLEX = """#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
void k(int n, double complex *a, const double complex *b) {
#pragma xapp parallel
  for (int i = 0; i < n; i++)
    a[i] = a[i] * b[i];
}
int main(void) {
  int n = 1000;
  double complex *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  for (int i = 0; i < n; i++) { a[i] = i + I; b[i] = 1.0 - i * I; }
  k(n, a, b);
  printf("%g\\n", creal(a[7]));
  return 0;
}
"""


#: The same multiplication written out on the real and imaginary parts.
WRITTEN_OUT = """typedef struct { double re, im; } cplx;
void k(int n, cplx *a, const cplx *b) {
#pragma xapp parallel
  for (int i = 0; i < n; i++) {
    double ar = a[i].re, ai = a[i].im, br = b[i].re, bi = b[i].im;
    a[i].re = ar * br - ai * bi;
    a[i].im = ar * bi + ai * br;
  }
}
"""


@needs_clang
def test_complex_multiplication_counts_as_its_arithmetic(tmp_path):
    """`a[i] * b[i]` on double complex was refused: "call to `__muldc3` ... define the function in this
    file", a function no user writes. It counts as the 4 multiplications and 2 additions clang writes;
    clang's NaN recovery (two tests and the __muldc3 call only run when the product is NaN) is no
    control statement of the kernel."""
    complex_ = static_analysis(_write(tmp_path / "cmul.c", COMPLEX))
    written = static_analysis(_write(tmp_path / "written.c", WRITTEN_OUT))
    for count in ("mem", "arith", "muldiv", "ctrl", "sincos", "logexp", "sqrt"):
        assert complex_.counts[count] == written.counts[count], count
    assert complex_.counts["muldiv"] == 4 and complex_.counts["arith"] == 6 and complex_.branches == []
    # as the same kernel in float and long double precision
    for kind in ("float complex", "long double complex"):
        other = static_analysis(_write(tmp_path / f"{kind.split()[0]}.c", COMPLEX.replace("double complex", kind)))
        assert other.counts["muldiv"] == 4 and other.branches == []
    # the NaN test is not a branch the user can give a probability to
    with pytest.raises(InputError, match="branch_probs names line 7, which has no branch"):
        static_features(tmp_path / "cmul.c", branch_probs={7: 0.1})


@needs_clang
def test_complex_division_and_functions_count_as_math(tmp_path):
    """__divdc3 (complex division) was an unknown call statically and a control transfer dynamically
    (divd stayed 0); cexp, csqrt, cabs, carg were "unknown calls" too."""
    source = _write(tmp_path / "cdiv.c", COMPLEX.replace("a[i] * b[i]", "a[i] / b[i]"))
    analysis = static_analysis(source)
    assert analysis.counts["muldiv"] == 1 and analysis.counts["ctrl"] == 0
    dynamic = dynamic_features(source)
    addition = dynamic_features(_write(tmp_path / "cadd.c", COMPLEX.replace("a[i] * b[i]", "a[i] + b[i]")))
    # one double division per iteration, and no more control transfers than the complex addition's
    assert dynamic["divd"] == 1 and round(dynamic["dp"] * dynamic["ninst"]) == 1000
    assert round(dynamic["ctrl"] * dynamic["ninst"]) == round(addition["ctrl"] * addition["ninst"])
    functions = _write(tmp_path / "cfun.c", COMPLEX.replace(
        "    a[i] = a[i] * b[i];", "    a[i] = cexp(a[i]) + csqrt(b[i]) + cabs(a[i]) + carg(b[i]) + conj(a[i]);"))
    counts = static_analysis(functions).counts
    assert (counts["logexp"], counts["sqrt"], counts["sincos"]) == (1, 2, 1)
    measured = dynamic_features(functions)
    assert measured["expd"] > 0 and measured["sqrtd"] > 0 and measured["sincosd"] > 0


# ---------------------------------------------------------------- an OpenMP program
OPENMP = """#include <stdio.h>
#include <stdlib.h>
void k(int n, int m, float *a) {
  #pragma omp parallel for collapse(2) schedule(static)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i * m + j] *= 2;
}
int main(void) { float *a = calloc(64, sizeof *a); k(8, 8, a); printf("%g\\n", a[3]); return 0; }
"""


@needs_clang
def test_an_openmp_band_is_pointed_at(tmp_path):
    """A program already marked for OpenMP was told only "no #pragma xapp parallel": its band is the loop
    after `#pragma omp parallel for`, with collapse(2) a two-loop band."""
    source = _write(tmp_path / "omp.c", OPENMP)
    for command in (["xapp", "features", source], ["xapp", "features", "--dynamic", source]):
        result = run(*command)
        assert result.exit_code == 2
        text = _one_line(result)
        assert "`#pragma omp parallel for collapse(2) schedule(static)` before line 5" in text, text
        assert "put `#pragma xapp parallel(2)` on the line before that loop, or pass --band-line 5" in text
    _write(source, OPENMP.replace("  #pragma omp", "  #pragma xapp parallel(2)\n  #pragma omp"))
    assert static_analysis(source).band_lines == [6, 7]


@needs_clang
def test_a_compile_error_names_the_file_as_given(tmp_path, monkeypatch):
    """Static errors named the resolved path (/tmp/.../k.c) where dynamic ones, and the user, said k.c."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "k.c", '#include "absent.h"\n' + OPENMP)
    for dynamic in ([], ["--dynamic"]):
        result = run("xapp", "features", *dynamic, "k.c", "--band-line", 6)
        assert result.exit_code == 2 and result.output.startswith("error: k.c: clang could not compile"), result.output


# ---------------------------------------------------------------- a CPU-tuned band
TUNED = """#include <stdio.h>
#include <stdlib.h>
#ifndef UNROLL
#define UNROLL 1
#endif
#define PRAGMA(x) _Pragma(#x)
void k(int n, const double *in, double *out) {
  PRAGMA(GCC unroll UNROLL)
#pragma xapp parallel
  for (int i = 1; i < n - 1; i++)
    out[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
}
int main(void) {
  int n = 4096;
  double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
  for (int i = 0; i < n; i++) a[i] = i % 64;
  k(n, a, b);
  printf("%g\\n", b[7]);
  return 0;
}
"""


@needs_clang
def test_unroll_pragmas_do_not_change_the_dynamic_features(tmp_path):
    """A band tuned for the CPU (as examples/study/kernel.c, built with -DUNROLL=4) was unrolled despite
    -fno-unroll-loops: the instruction count halved and the mix and ILP moved with a CPU tuning knob (in
    examples/study/kernel.c at -DTILE=64 -DUNROLL=4 coalesced fell from 1 to 0)."""
    source = _write(tmp_path / "tuned.c", TUNED)
    plain = _json(run("xapp", "features", "--dynamic", source, "--json"))["features"]
    unrolled = _json(run("xapp", "features", "--dynamic", source, "-D", "UNROLL=4", "--json"))["features"]
    assert plain["coalesced"] > 0.9
    assert unrolled == plain
    vectorised = _write(tmp_path / "vec.c", TUNED.replace("PRAGMA(GCC unroll UNROLL)",
                                                          "#pragma clang loop vectorize(enable) interleave(enable)"))
    assert dynamic_features(vectorised) == plain
    # a _Pragma operator between the band's pragma and its loop is a pragma, not the loop's line
    operator = _write(tmp_path / "operator.c", TUNED.replace(
        "  PRAGMA(GCC unroll UNROLL)\n#pragma xapp parallel\n", '#pragma xapp parallel\n  _Pragma("GCC unroll 8")\n'))
    assert dynamic_features(operator) == plain
    assert static_features(operator) == static_features(source)


@needs_clang
def test_a_corpus_program_that_times_out_is_killed_with_what_it_started(tmp_path):
    """Before: subprocess.run killed only the program on a timeout; a process it started (a helper, a GPU
    server) held its output open, so the timeout waited for that process too, and it ran on afterwards."""
    import os
    import time

    from starchart.xapp.measure_corpus import run_program

    pid_file = tmp_path / "pid"
    script = f"sleep 30 & echo $! > {pid_file}; wait"
    started = time.monotonic()
    record = run_program(["sh", "-c", script], dict(os.environ), timeout_s=1.0)
    assert record["status"] == "timeout"
    assert time.monotonic() - started < 30  # an order: it returned before the 30 s of the process it started
    pid = int(pid_file.read_text())
    for _ in range(50):  # the group was killed: the sleep is gone (a zombie at most, until init reaps it)
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split(") ")[1][0] in "ZX":
                    break
        except FileNotFoundError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"process {pid} still runs")


@needs_clang
def test_every_linkers_missing_library_message_is_recognised():
    """The ziglang wheel's linker words it differently from ld and lld: it was called a bug in starchart."""
    from starchart.xapp.dynamic.build import _NO_LIBRARY

    messages = {"/usr/bin/ld: cannot find -lscale: No such file or directory": "-lscale",
                "ld.lld: error: unable to find library -lscale": "-lscale",
                "error: unable to find dynamic system library 'scale' using strategy 'paths_first'. searched paths:":
                    "-lscale"}
    for message, library in messages.items():
        (found,) = _NO_LIBRARY.findall(message)
        assert (found[0] or found[1] or f"-l{found[2]}") == library, message


@pytest.mark.llvm
def test_features_say_which_trip_counts_they_assumed(tmp_path) -> None:
    """Before: an unknown trip count silently became 10 (a body loop) or 2^20 (the band)."""
    from typer.testing import CliRunner

    from starchart.cli import app
    source = tmp_path / "k.c"
    source.write_text("void k(int n, const int *len, float *x) {\n#pragma xapp parallel\n"
                      "    for (int i = 0; i < n; i++) {\n        for (int j = 0; j < len[i]; j++) {\n"
                      "            x[i] += j;\n        }\n    }\n}\n")
    said = " ".join(CliRunner().invoke(app, ["xapp", "features", str(source)]).output.split())
    assert "assumed: the band loop at line 3 runs 1,048,576 times" in said
    assert "assumed: the body loop at line 4 runs 10 times" in said and "or --trip N" in said
    said = " ".join(CliRunner().invoke(app, ["xapp", "features", str(source), "--trip", "5"]).output.split())
    assert "the body loop" not in said  # given, not assumed


# ---------------------------------------------------------------- continuous features, host steps, regression
def test_continuous_levels_and_host_steps_train_a_model_that_reads_values(tmp_path):
    corpus = corpus_copy(tmp_path, KERNELS)
    fast = {"saxpy", "triad", "gemv_t", "col_sums", "matmul", "mandelbrot"}
    _invented_measurements(corpus, {k: (12.0 if k in fast else 1.5) for k in KERNELS})
    model = tmp_path / "model.json"
    trained = run("xapp", "train", corpus, "-o", model, "--trees", "30", "--levels", "continuous", "--host-steps")
    assert trained.exit_code == 0, trained.output
    saved = json.loads(model.read_text())
    assert saved["params"]["levels"] == "continuous" and saved["params"]["features"][-1] == "host_steps"
    answer = _json(run("xapp", "predict", corpus / "kernels" / "saxpy" / "saxpy.c", "--model", model, "--json"))
    assert answer["features"]["host_steps"] == 1.0
    # a value, not a level name: the continuous model's path reads in the feature's own unit
    assert float(answer["levels"]["parallelism"]) == pytest.approx(answer["features"]["parallelism"], rel=1e-3)
    bad = run("xapp", "evaluate", corpus, "--levels", "4")
    assert bad.exit_code == 2 and "continuous" in bad.output


def test_regress_trains_evaluates_and_predicts_a_speedup_with_an_interval(tmp_path):
    corpus = corpus_copy(tmp_path, KERNELS)
    speedups = {k: 2.0 ** i for i, k in enumerate(KERNELS)}
    _invented_measurements(corpus, speedups)
    report = _json(run("xapp", "evaluate", corpus, "--regress", "--trees", "20", "--cutoffs", "8", "--json"))
    assert report["kernels"] == len(KERNELS) and report["median_error_factor"] >= 1
    assert report["majority"] == pytest.approx(max(sum(s <= 8 for s in speedups.values()),
                                                   sum(s > 8 for s in speedups.values())) / len(KERNELS))
    assert {row["kernel"] for row in report["table"]} == set(KERNELS)
    model = tmp_path / "regress.json"
    trained = run("xapp", "train", corpus, "-o", model, "--regress", "--trees", "20")
    assert trained.exit_code == 0, trained.output
    assert "one tree for the forest regression" in trained.output
    said = run("xapp", "predict", corpus / "kernels" / "saxpy" / "saxpy.c", "--model", model)
    assert said.exit_code == 0, said.output
    assert "predicted speedup" in said.output and "80% interval" in said.output
    answer = _json(run("xapp", "predict", corpus / "kernels" / "saxpy" / "saxpy.c", "--model", model, "--json"))
    assert answer["low"] <= answer["speedup"] <= answer["high"]
    swept = run("xapp", "predict", corpus / "kernels" / "saxpy" / "saxpy.c", "--model", model, "--sweep")
    assert swept.exit_code == 2 and "--sweep" in swept.output
    dynamic = run("xapp", "evaluate", corpus, "--dynamic", "--regress")
    assert dynamic.exit_code == 2 and "--regress" in dynamic.output


def test_cutoffs_moves_the_thesis_cuts_by_the_peak_ratio():
    answer = _json(run("xapp", "cutoffs", "--gpu-peak", "1111", "--cpu-peak", "11.2", "--json"))
    assert answer["factor"] == pytest.approx(10.0) and answer["cutoffs"] == pytest.approx([30.0, 200.0])
    said = run("xapp", "cutoffs", "--gpu-peak", "4800", "--cpu-peak", "20", "--kind", "gbs", "--cutoffs", "3")
    assert said.exit_code == 0 and said.output.startswith("--cutoffs 230") and "GB/s" in said.output
    refused = run("xapp", "cutoffs", "--gpu-peak", "4800", "--cpu-peak", "0")
    assert refused.exit_code == 2 and "--cpu-peak" in refused.output
