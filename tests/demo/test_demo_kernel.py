"""The demo kernel (starchart/demo/matmul.c), compiled with gcc directly, and its tuning space."""

from __future__ import annotations

import itertools
import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from starchart.dataset import Dataset
from starchart.demo import (
    DEMO_DEFINES,
    DEMO_REFERENCE,
    DEMO_TUNE_PARAMS,
    KERNEL_SOURCE,
    demo_evaluator,
    demo_space,
)
from starchart.demo.job import DemoResult
from starchart.tree import StarchartTree

GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc is not installed")

#: A small matrix so that every build runs in well under a millisecond.
SMALL_N = 32


def build(tmp_path: Path, name: str = "kernel", **defines: int) -> tuple[subprocess.CompletedProcess, Path]:
    exe = tmp_path / name
    cmd = [GCC, "-O3", "-Wall", "-Wextra", "-Werror", *(f"-D{k}={v}" for k, v in defines.items()),
           "-o", str(exe), str(KERNEL_SOURCE)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                          check=False), exe


def run(exe: Path, repeats: int | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "STARCHART_REPEATS"}
    if repeats is not None:
        env["STARCHART_REPEATS"] = str(repeats)
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=env, check=False)


def parse(stdout: str) -> tuple[list[float], float]:
    times = [float(v) for v in re.findall(r"^time_ms: (\S+)$", stdout, flags=re.MULTILINE)]
    (checksum,) = re.findall(r"^checksum: (\S+)$", stdout, flags=re.MULTILINE)
    return times, float(checksum)


def expected_checksum(n: int) -> float:
    """The kernel's inputs and weighted checksum, recomputed with numpy."""
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    a = ((i * 7 + j * 3 + i * j) % 31 - 15) / 16.0
    b = ((i * 5 + j * 11 + 3 * i * j + 3) % 29 - 14) / 16.0
    weights = (i * 3 + j) % 7 + 1
    return float(np.sum((a @ b) * weights))


# One configuration per loop order and transpose setting; tiles, unrolling and a
# tile larger than the matrix (clamped) vary along with them.
CONFIGS = [
    {"ORDER": order, "TRANSPOSE_B": transpose, "TI": ti, "TJ": tj, "TK": tk, "UNROLL": unroll}
    for order in range(6)
    for transpose, (ti, tj, tk, unroll) in ((0, (4, 16, 8, 1 + order % 4)), (1, (64, 8, 4, 8)))
]


@needs_gcc
def test_every_order_and_transpose_computes_the_same_product(tmp_path):
    expected = expected_checksum(SMALL_N)
    for k, config in enumerate(CONFIGS):
        result, exe = build(tmp_path, f"k{k}", N=SMALL_N, **config)
        assert result.returncode == 0, (config, result.stderr)
        out = run(exe, repeats=2)
        assert out.returncode == 0, (config, out.stderr)
        times, checksum = parse(out.stdout)
        assert len(times) == 2 and all(t >= 0 for t in times)
        assert math.isclose(checksum, expected, rel_tol=1e-9), config


@needs_gcc
def test_reference_build_matches_numpy_and_counts_repeats(tmp_path):
    result, exe = build(tmp_path, **{**DEMO_REFERENCE, "N": SMALL_N})
    assert result.returncode == 0, result.stderr
    times, checksum = parse(run(exe).stdout)  # no STARCHART_REPEATS: one run
    assert len(times) == 1
    assert checksum == expected_checksum(SMALL_N)  # the inputs make the sums exact
    times, _ = parse(run(exe, repeats=6).stdout)
    assert len(times) == 6


@needs_gcc
def test_bad_repeats_and_bad_tiles_fail_clearly(tmp_path):
    result, exe = build(tmp_path, N=SMALL_N)
    assert result.returncode == 0, result.stderr
    out = run(exe, repeats=0)
    assert out.returncode == 2 and "STARCHART_REPEATS" in out.stderr
    result, _ = build(tmp_path, "bad", N=SMALL_N, TI=3)
    assert result.returncode != 0 and "divide N" in result.stderr
    result, _ = build(tmp_path, "bad", N=SMALL_N, ORDER=6)
    assert result.returncode != 0 and "ORDER" in result.stderr


def _has_avx2() -> bool:
    try:
        return " avx2 " in f" {Path('/proc/cpuinfo').read_text()} ".replace("\n", " ")
    except OSError:
        return False


@needs_gcc
def test_code_generation_parameters_keep_the_product(tmp_path):
    """OPT, VECTORIZE and AVX2 (the large space's) change only how the kernel is compiled, never its result;
    a bad OPT is refused by the preprocessor."""
    expected = expected_checksum(SMALL_N)
    avx2 = [0, 1] if _has_avx2() else [0]
    for k, (opt, vectorize, isa) in enumerate(itertools.product((2, 3), (0, 1), avx2)):
        result, exe = build(tmp_path, f"g{k}", N=SMALL_N, **CONFIGS[k % len(CONFIGS)], OPT=opt,
                            VECTORIZE=vectorize, AVX2=isa)
        assert result.returncode == 0, (opt, vectorize, isa, result.stderr)
        out = run(exe, repeats=1)
        assert out.returncode == 0, out.stderr
        assert parse(out.stdout)[1] == expected, (opt, vectorize, isa)
    result, _ = build(tmp_path, "bad", N=SMALL_N, OPT=1)
    assert result.returncode != 0 and "OPT" in result.stderr


@needs_gcc
def test_code_generation_defaults_are_the_demo_build():
    """Without the defines, no pragma is emitted: the demo's binaries are those of the plain command line."""
    plain = subprocess.run([GCC, "-E", "-P", "-DN=32", str(KERNEL_SOURCE)], capture_output=True, text=True,
                           timeout=60, check=True).stdout
    assert "pragma GCC optimize" not in plain and "target(" not in plain
    tuned = subprocess.run([GCC, "-E", "-P", "-DN=32", "-DOPT=2", "-DVECTORIZE=0", "-DAVX2=1", str(KERNEL_SOURCE)],
                           capture_output=True, text=True, timeout=60, check=True).stdout
    assert '#pragma GCC optimize("O2", "no-tree-vectorize")' in tuned and 'target("avx2,fma")' in tuned


@needs_gcc
def test_default_size_builds_and_runs(tmp_path):
    result, exe = build(tmp_path, **{**DEMO_DEFINES, "TI": 32, "TJ": 64, "TK": 16, "ORDER": 4, "UNROLL": 4,
                                     "TRANSPOSE_B": 0})
    assert result.returncode == 0, result.stderr
    times, checksum = parse(run(exe, repeats=1).stdout)
    assert len(times) == 1 and 0 < times[0] < 5000
    assert checksum == expected_checksum(DEMO_DEFINES["N"])


def test_demo_space():
    space = demo_space()
    # the README's 15,468 valid designs, counted here by brute force over the product: unroll at
    # most the innermost loop's trip count (k innermost for ORDER 0, 2; j for 1, 4; i for 3, 5)
    # and a tile of at least 512 multiply-adds
    sizes = DEMO_TUNE_PARAMS["TI"]
    valid = sum(unroll <= (tk if order in (0, 2) else tj if order in (1, 4) else ti) and ti * tj * tk >= 512
                for ti, tj, tk, order, unroll, _ in itertools.product(sizes, sizes, sizes, range(6), (1, 2, 4, 8),
                                                                      (0, 1)))
    assert space.size() == valid == 15468
    assert space.is_valid(DEMO_REFERENCE)
    assert list(space.names) == list(DEMO_TUNE_PARAMS)
    # Unrolling beyond the innermost trip count is excluded: k innermost with TK = 4.
    assert not space.is_valid({**DEMO_REFERENCE, "TK": 4, "UNROLL": 8})
    assert space.is_valid({**DEMO_REFERENCE, "ORDER": 1, "TK": 4, "UNROLL": 8})
    source = KERNEL_SOURCE.read_text()
    for name in [*space.names, *DEMO_DEFINES]:
        assert f"#ifndef {name}\n" in source, name


def test_demo_evaluator():
    pytest.importorskip("starchart.measure.c")
    evaluator = demo_evaluator(repeats=3, warmup=2)
    assert evaluator.objective == "time"
    d = evaluator.describe()  # gcc -O3 on the shipped kernel, N = 256, checked against the naive build
    assert (d["kind"], d["source"], d["compiler"], d["flags"], d["defines"]) == \
        ("c", str(KERNEL_SOURCE), "gcc", ["-O3"], {"N": 256})
    assert (d["metric"], d["repeats"], d["warmup"], d["reference"]) == ("time", 3, 2, DEMO_REFERENCE)
    assert DEMO_REFERENCE == {"TI": 256, "TJ": 256, "TK": 256, "ORDER": 0, "UNROLL": 1, "TRANSPOSE_B": 0}
    assert (demo_evaluator().repeats, demo_evaluator().warmup) == (5, 1)  # the README's 5 timed runs, 1 warm-up


def test_demo_into_a_file_says_it_is_a_file(tmp_path):
    from starchart.demo.job import run_demo
    from starchart.errors import InputError

    (tmp_path / "afile").write_text("x")
    for out in (tmp_path / "afile", tmp_path / "afile" / "sub"):
        with pytest.raises(InputError, match="afile is a file, not a folder"):
            run_demo(out, samples=10, progress=False)


def test_demo_summary_names_the_orders_and_why_the_best_can_lie_outside(tmp_path):
    """Before: "ORDER > 3" meant nothing without the ijk…kji mapping, and the best measured configuration lay
    outside the printed best subspace with no word why."""
    frame = demo_space().sample(120, seed=3).reset_index(drop=True)
    # kij and kji (ORDER 4, 5) fast on average, but the single fastest configuration has ORDER 0
    frame["time"] = np.where(frame["ORDER"] > 3, 2.0, 8.0) + frame.index % 7 * 0.01
    frame.loc[frame.index[frame["ORDER"] == 0][0], "time"] = 1.0
    frame["status"] = "ok"
    ds = Dataset.from_frame(frame, metrics=["time"])
    tree = StarchartTree().fit(ds.X, ds.y("time"))
    text = DemoResult(dataset=ds, tree=tree, store=tmp_path / "demo.db", report=tmp_path / "report.html").summary()
    assert "ORDER > 3 (ORDER: kij, kji)" in text
    assert "it lies outside the best subspace" in text
    assert "ORDER (loop order in a tile): 0 ijk, 1 ikj, 2 jik, 3 jki, 4 kij, 5 kji" in text
