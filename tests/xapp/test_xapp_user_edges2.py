"""More of what a performance engineer meets with XAPP on their own C code: inline assembly, absurd trip
counts, several bands, loops written by macros, a C file given as the corpus, an edited model file, NaN in
JSON, programs that never end or read stdin or miss a definition, a read-only corpus, the thesis figures
quoted next to an evaluation, predictions far from the training kernels and a gcc named as clang.
Each test failed before its fix."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from clang_available import needs_clang
from corpus_copy import corpus_copy
from typer.testing import CliRunner

from starchart.cli import app
from starchart.errors import InputError, StarchartError
from starchart.xapp import toolchain
from starchart.xapp.corpus import MEASUREMENT_FORMAT, Corpus
from starchart.xapp.dynamic.features import dynamic_features
from starchart.xapp.model import SpeedupRangeModel
from starchart.xapp.regression import SpeedupRegressionEnsemble
from starchart.xapp.static import FEATURES, static_features

pytestmark = needs_clang

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).parent / "cases"
runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _one_line(result) -> str:
    return " ".join(result.output.split())


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# ---------------------------------------------------------------- static analysis of real-world C
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


def test_a_dynamic_model_keeps_its_training_ranges(tmp_path):
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.uniform(0, 1, (12, 2)), columns=["mem", "ilp32"], index=[f"k{i}" for i in range(12)])
    X["ninst"] = rng.uniform(1e6, 1e7, 12)
    model = SpeedupRegressionEnsemble(n_learners=5).fit(X, X["ninst"] * 1e-9 * (1 + X["mem"]))
    loaded = SpeedupRegressionEnsemble.from_json(model.to_json())
    assert loaded.n_training_ == 12
    assert loaded.ranges_["mem"] == [X["mem"].min(), X["mem"].max()]


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


def test_a_corpus_whose_features_cannot_be_recorded_still_evaluates(tmp_path):
    """A read-only corpus (here: `features` is a file) failed after every feature was computed."""
    corpus = _labelled_corpus(tmp_path, {"saxpy": 5.0, "gemv": 1.0, "triad": 30.0, "transpose": 1.5})
    (corpus / "features").write_text("not a folder")
    with pytest.warns(UserWarning, match="cannot record the static features"):
        result = run("xapp", "evaluate", corpus, "--trees", "5", "--cutoffs", "3,20")
    assert result.exit_code == 0, result.output
    assert "LOOCV accuracy" in result.output


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
