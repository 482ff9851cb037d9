"""XAPP on programs as they are built for real: headers in another folder, sizes given with -D, a library
to link; a band written by a macro measured dynamically; a corpus re-measured after one side failed; C99
complex arithmetic in the band. Each test failed before its fix."""

from __future__ import annotations

import json
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
from starchart.errors import InputError
from starchart.xapp import toolchain
from starchart.xapp.dynamic.features import FEATURES as DYNAMIC_FEATURES
from starchart.xapp.dynamic.features import dynamic_features, measure
from starchart.xapp.measure_corpus import measure as measure_corpus
from starchart.xapp.model import SpeedupRangeModel
from starchart.xapp.regression import SpeedupRegressionEnsemble
from starchart.xapp.static import FEATURES, static_analysis, static_features

pytestmark = needs_clang

runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _one_line(result) -> str:
    return " ".join(result.output.split())


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{"):])


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


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


def test_predict_takes_the_build_options_static_sweep_and_dynamic(tmp_path):
    """predict, its --sweep and predict --dynamic compile the file too: they need the same options."""
    root = _project(tmp_path)
    build = ["-I", root / "include", "-D", "INNER=3"]
    model = _tiny_static_model(tmp_path / "static.json")
    answer = _json(run("xapp", "predict", root / "k.c", "--model", model, *build, "--sweep", "--json"))
    assert answer["features"] == static_features(root / "k.c", include_dirs=(root / "include",),
                                                 defines={"INNER": 3})
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
    assert time.monotonic() - started < 20  # not the 30 s of the process it started
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
