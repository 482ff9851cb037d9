"""The XAPP corpus: its files load and are valid, both sides of every kernel build, the C side
runs, the CUDA side computes the C side's checksum (in the CPU emulator), the label table's
arithmetic, and the measurement script's records and resume."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
import yaml

from starchart.errors import InputError, StarchartError
from starchart.xapp.corpus import MEASUREMENT_FORMAT, Corpus, checksums_match, read_measurement_file
from starchart.xapp.emulator import build_command, rewrite_launches
from starchart.xapp.measure_corpus import _summary, main, measure, parse_xapp_line

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
KERNEL_NAMES = sorted(p.parent.name for p in (CORPUS / "kernels").glob("*/kernel.yaml"))
#: Emulated by default: tiles with halos, a two-launch shuffle reduction, a shared-memory transpose.
EMULATED = ("jacobi2d", "dot_product", "transpose")
WORKERS = 2  # the machines these run on are small and shared


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus.load(CORPUS)


def _parallel(function, items):
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return dict(zip(items, pool.map(function, items)))


# ---------------------------------------------------------------- loading and files
def test_corpus_loads(corpus: Corpus) -> None:
    assert corpus.name == "xapp-corpus"
    assert sorted(k.name for k in corpus.kernels) == KERNEL_NAMES
    assert {"saxpy", "matmul", "jacobi2d", "dot_product"} <= set(KERNEL_NAMES)
    assert (corpus.harness_dir / "xapp_harness.h").is_file() and (corpus.harness_dir / "xapp_cuda.h").is_file()
    # the thesis presumes optimised CPU code: the C side is built for the machine it runs on
    assert corpus.compile_c[0] == "gcc" and "-march=native" in corpus.compile_c and "-O3" in corpus.compile_c
    assert "-fopenmp" not in corpus.compile_c
    assert corpus.compile_cuda[0] == "nvcc" and "-arch=sm_90" in corpus.compile_cuda
    assert corpus.load(CORPUS / "corpus.yaml").kernels == corpus.kernels


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_kernel_yaml_is_valid(corpus: Corpus, name: str) -> None:
    kernel = corpus.kernel(name)
    raw = yaml.safe_load((CORPUS / "kernels" / name / "kernel.yaml").read_text())
    assert raw["name"] == name == kernel.name, "by convention the folder carries the kernel's name"
    assert kernel.category in corpus.categories
    assert kernel.description
    assert kernel.c_path.suffix == ".c" and kernel.cuda_path.suffix == ".cu"
    assert all(isinstance(a, int) and a > 0 for a in kernel.args + kernel.small_args)
    assert len(kernel.args) == len(kernel.small_args)
    assert 0 <= kernel.tolerance < 1
    cuda = kernel.cuda_path.read_text()
    assert "XAPP_TIME_KERNEL" in cuda and "xapp_report" in cuda
    assert "xapp_report" in kernel.c_path.read_text()


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_c_file_marks_its_band(corpus: Corpus, name: str) -> None:
    kernel = corpus.kernel(name)
    lines = kernel.c_path.read_text().splitlines()
    assert kernel.band_line is not None, f"{kernel.c_path} has no '#pragma xapp parallel'"
    pragma = lines[kernel.band_line - 1].strip()
    assert re.fullmatch(r"#pragma xapp parallel(\(\d\))?( trip\(\d+(\.\d+)?\))?", pragma), pragma
    following = next(line for line in lines[kernel.band_line:] if line.strip())
    assert following.strip().startswith("for"), "the pragma goes right before the band's outer loop"
    assert not re.search(r"#\s*pragma\s+omp|<omp\.h>|pthread", kernel.c_path.read_text()), "single-threaded C"


# ---------------------------------------------------------------- building and running
@pytest.fixture(scope="module")
def c_results(corpus: Corpus, tmp_path_factory) -> dict[str, tuple[bool, str]]:
    """Compile every C side with the corpus command and run it at small_args (2 at a time)."""
    build = tmp_path_factory.mktemp("c-build")

    def one(name: str) -> tuple[bool, str]:
        kernel = corpus.kernel(name)
        binary = build / name
        done = subprocess.run(corpus.compile_command("cpu", kernel.c_path, binary, kernel.c_flags),
                              capture_output=True, text=True,
                              timeout=300, check=False)
        if done.returncode != 0:
            return False, f"compile failed:\n{done.stderr[-3000:]}"
        run = subprocess.run([str(binary), *map(str, kernel.small_args)], capture_output=True, text=True,
                             timeout=60, env=dict(os.environ, XAPP_REPEATS="2"), check=False)
        if run.returncode != 0:
            return False, f"exit {run.returncode}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
        return True, run.stdout

    return _parallel(one, KERNEL_NAMES)


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_c_side_runs_at_small_args(c_results: dict[str, tuple[bool, str]], name: str) -> None:
    ok, output = c_results[name]
    assert ok, output
    parsed = parse_xapp_line(output)
    assert parsed is not None, f"no valid XAPP line in:\n{output}"
    time_s, checksum = parsed
    assert math.isfinite(time_s) and time_s > 0 and math.isfinite(checksum)


@pytest.fixture(scope="module")
def nvcc_results(corpus: Corpus, tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """``nvcc -O3 -arch=sm_90 -c`` on every CUDA side, two compilers at a time (about 1 s each)."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH: the CUDA sides cannot be compiled here")
    build = tmp_path_factory.mktemp("cuda-build")

    def one(name: str) -> subprocess.CompletedProcess:
        command = corpus.compile_command("gpu", corpus.kernel(name).cuda_path, build / f"{name}.o")
        return subprocess.run([command[0], "-c", *command[1:]], capture_output=True, text=True, timeout=600,
                              check=False)

    return _parallel(one, KERNEL_NAMES)


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_cuda_side_compiles(nvcc_results: dict[str, subprocess.CompletedProcess], name: str) -> None:
    done = nvcc_results[name]
    assert done.returncode == 0, f"{shutil.which('nvcc')} failed:\n{done.stderr[-3000:]}"


def emulator_source(cu_path: Path) -> str:
    """A CUDA program rewritten for harness/emulator/cuda_runtime.h (see starchart.xapp.emulator)."""
    return rewrite_launches(cu_path)


def test_emulator_rewrites_launches(tmp_path: Path) -> None:
    source = tmp_path / "k.cu"
    source.write_text('#include "x.h"\nk<<<blocks, threads>>>(n, a);\nf<<<dim3(2, 3), 64>>>(x);\n')
    (tmp_path / "x.h").write_text("")
    text = emulator_source(source)
    assert "xemu_launch(blocks, threads, k, n, a);" in text
    assert "xemu_launch(dim3(2, 3), 64, f, x);" in text
    assert f'#include "{tmp_path / "x.h"}"' in text


EMULATE = KERNEL_NAMES if os.environ.get("XAPP_EMULATE_ALL") else [n for n in EMULATED if n in KERNEL_NAMES]


@pytest.fixture(scope="module")
def emulated(corpus: Corpus, tmp_path_factory) -> dict[str, tuple[bool, str]]:
    """Build the chosen CUDA sides against the CPU emulator (g++) and run them at small_args."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not on PATH: the CUDA emulator needs a C++20 compiler")
    build = tmp_path_factory.mktemp("emulated")
    include = corpus.harness_dir / "emulator"

    def one(name: str) -> tuple[bool, str]:
        kernel = corpus.kernel(name)
        source = build / f"{name}.cpp"
        source.write_text(emulator_source(kernel.cuda_path))
        done = subprocess.run(build_command(source, build / name, include), capture_output=True, text=True,
                              timeout=300, check=False)
        if done.returncode != 0:
            return False, f"emulator build failed:\n{done.stderr[-3000:]}"
        run = subprocess.run([str(build / name), *map(str, kernel.small_args)], capture_output=True, text=True,
                             timeout=300, env=dict(os.environ, XAPP_REPEATS="1"), check=False)
        if run.returncode != 0:
            return False, f"exit {run.returncode}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
        return True, run.stdout

    return _parallel(one, EMULATE)


@pytest.mark.parametrize("name", EMULATE)
def test_emulated_cuda_side_matches_c_side(corpus: Corpus, c_results, emulated, name: str) -> None:
    ok, output = emulated[name]
    assert ok, output
    c_ok, c_output = c_results[name]
    assert c_ok, c_output
    gpu, cpu = parse_xapp_line(output), parse_xapp_line(c_output)
    assert gpu is not None and cpu is not None
    tolerance = corpus.kernel(name).tolerance
    assert checksums_match(cpu[1], gpu[1], tolerance), f"C {cpu[1]!r}, emulated CUDA {gpu[1]!r}, tolerance {tolerance}"


# ---------------------------------------------------------------- load errors
def _small_corpus(tmp_path: Path, names=("saxpy",)) -> Path:
    """A corpus in tmp_path with the real corpus.yaml and harness and copies of saxpy."""
    root = tmp_path / "corpus"
    root.mkdir(parents=True)
    shutil.copy(CORPUS / "corpus.yaml", root / "corpus.yaml")
    shutil.copytree(CORPUS / "harness", root / "harness")
    for name in names:
        folder = root / "kernels" / name
        shutil.copytree(CORPUS / "kernels" / "saxpy", folder)
        meta = (folder / "kernel.yaml").read_text().replace("name: saxpy", f"name: {name}")
        (folder / "kernel.yaml").write_text(meta)
    return root


def _edit_yaml(path: Path, **changes) -> None:
    meta = yaml.safe_load(path.read_text())
    meta.update(changes)
    path.write_text(yaml.safe_dump(meta))


@pytest.mark.parametrize("mutation, key", [
    ("missing_cuda", "key cuda"),
    ("bad_category", "key category"),
    ("string_arg", "key args[0]"),
    ("float_arg", "key small_args[0]"),
    ("args_not_list", "key args"),
    ("typo_key", "key tolerence"),
    ("missing_key", "key tolerance"),
    ("bad_yaml", "line"),
    ("no_kernel_yaml", "kernel.yaml"),
    ("c_flags_not_flags", "key c_flags"),
])
def test_load_errors_name_the_file_and_key(tmp_path: Path, mutation: str, key: str) -> None:
    root = _small_corpus(tmp_path)
    folder = root / "kernels" / "saxpy"
    yaml_path = folder / "kernel.yaml"
    if mutation == "missing_cuda":
        (folder / "saxpy.cu").unlink()
    elif mutation == "bad_category":
        _edit_yaml(yaml_path, category="vector-stuff")
    elif mutation == "string_arg":
        _edit_yaml(yaml_path, args=["16777216"])
    elif mutation == "float_arg":
        _edit_yaml(yaml_path, small_args=[1.5])
    elif mutation == "args_not_list":
        _edit_yaml(yaml_path, args=4096)
    elif mutation == "typo_key":
        _edit_yaml(yaml_path, tolerence=1e-6)
    elif mutation == "missing_key":
        meta = yaml.safe_load(yaml_path.read_text())
        del meta["tolerance"]
        yaml_path.write_text(yaml.safe_dump(meta))
    elif mutation == "c_flags_not_flags":
        _edit_yaml(yaml_path, c_flags="-ffast-math; rm -rf /")
    elif mutation == "bad_yaml":
        yaml_path.write_text("name: saxpy\ndescription: a: b: c\n")
    elif mutation == "no_kernel_yaml":
        (root / "kernels" / "half_written").mkdir()
        (root / "kernels" / "half_written" / "half_written.c").write_text("int main(void) { return 0; }\n")
        yaml_path = root / "kernels" / "half_written" / "kernel.yaml"
    with pytest.raises(InputError) as info:
        Corpus.load(root)
    message = str(info.value)
    assert str(yaml_path) in message and key in message, message


def test_duplicate_kernel_names_are_refused(tmp_path: Path) -> None:
    root = _small_corpus(tmp_path, names=("saxpy", "saxpy_copy"))
    _edit_yaml(root / "kernels" / "saxpy_copy" / "kernel.yaml", name="saxpy")
    with pytest.raises(InputError, match="duplicate kernel name 'saxpy'") as info:
        Corpus.load(root)
    assert "saxpy_copy/kernel.yaml, key name" in str(info.value)


def test_corpus_yaml_errors_name_the_key(tmp_path: Path) -> None:
    root = _small_corpus(tmp_path)
    meta = yaml.safe_load((root / "corpus.yaml").read_text())
    meta["compile"]["c"] = ["gcc", "-O3", "kernel.c"]
    (root / "corpus.yaml").write_text(yaml.safe_dump(meta))
    with pytest.raises(InputError, match=r"corpus\.yaml, key compile\.c"):
        Corpus.load(root)
    with pytest.raises(InputError, match="corpus.yaml not found"):
        Corpus.load(tmp_path)


def test_bad_measurement_file_is_named(tmp_path: Path) -> None:
    root = _small_corpus(tmp_path)
    bad = root / "measurements" / "2026-01-01-cpu-x.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps(_measurement_file({"saxpy": {"args": [16777216], "cpu": {
        "status": "fine", "measured": "2026-01-01T00:00:00+00:00"}}})))
    with pytest.raises(InputError, match=r"2026-01-01-cpu-x\.json, key kernels\.saxpy\.cpu\.status"):
        Corpus.load(root)
    bad.write_text('{"format": "xapp-corpus-measurements/1", "kernels": {')
    with pytest.raises(InputError, match=r"2026-01-01-cpu-x\.json, line 1"):
        Corpus.load(root)


# ---------------------------------------------------------------- the label table
def _measurement_file(kernels: dict, cpu: str | None = "CPU-X", gpu: str | None = None) -> dict:
    return {"format": "xapp-corpus-measurements/1", "corpus": "xapp-corpus", "kernels": kernels,
            "machine": {"hostname": "h", "cpu": cpu, "gpu": {"name": gpu, "driver_version": "1"} if gpu else None}}


def _side(time_s: float | None, checksum: float | None, day: int, status: str = "ok", sha: str | None = None) -> dict:
    record = {"status": status, "measured": f"2026-01-{day:02d}T12:00:00+00:00"}
    if status == "ok":
        record.update(time_s=time_s, checksum=checksum)
    if sha:
        record["source_sha256"] = sha
    return record


def test_table_speedups_newest_entry_wins(tmp_path: Path) -> None:
    root = _small_corpus(tmp_path, names=("saxpy", "k_mismatch", "k_cpu_only", "k_gpu_failed"))
    default, small = [16777216], [4096]
    files = {
        "a-cpu.json": _measurement_file({
            "saxpy": {"args": default, "cpu": _side(2.0, 100.0, 1)},
            "k_mismatch": {"args": default, "cpu": _side(1.0, 5.0, 1)},
            "k_cpu_only": {"args": default, "cpu": _side(3.0, 7.0, 1)},
            "k_gpu_failed": {"args": default, "cpu": _side(4.0, 1.0, 1)},
            "not_in_corpus": {"args": [1], "cpu": _side(1.0, 1.0, 1)}}, cpu="CPU-X"),
        "b-gpu.json": _measurement_file({
            "saxpy": {"args": default, "gpu": _side(0.5, 100.00001, 2)},
            "k_mismatch": {"args": default, "gpu": _side(0.1, 6.0, 2)},
            "k_gpu_failed": {"args": default, "gpu": _side(None, None, 2, status="timeout")}},
            cpu="EPYC", gpu="GPU-Y"),
        "c-cpu.json": _measurement_file({
            "saxpy": {"args": default, "cpu": _side(3.0, 100.0, 4, sha="0" * 64)},
            "k_cpu_only": {"args": small, "cpu": _side(0.001, 7.0, 5)}}, cpu="CPU-Z"),
    }
    (root / "measurements").mkdir()
    for name, data in files.items():
        (root / "measurements" / name).write_text(json.dumps(data))
    table = Corpus.load(root).table()
    assert list(table.index) == ["k_cpu_only", "k_gpu_failed", "k_mismatch", "saxpy"]

    saxpy = table.loc["saxpy"]
    assert saxpy.cpu_seconds == 3.0 and saxpy.gpu_seconds == 0.5  # day 4 beat day 1
    assert saxpy.speedup == pytest.approx(6.0)
    assert bool(saxpy.checksum_match) and saxpy.cpu_machine == "CPU-Z" and saxpy.gpu_machine == "GPU-Y"
    assert saxpy.measured == pd.Timestamp("2026-01-04T12:00:00+00:00")
    assert saxpy.cpu_file == "c-cpu.json" and saxpy.gpu_file == "b-gpu.json"
    assert bool(saxpy.stale)  # the recorded source hash is not saxpy.c's

    mismatch = table.loc["k_mismatch"]
    assert not bool(mismatch.checksum_match) and math.isnan(mismatch.speedup)
    assert mismatch.cpu_seconds == 1.0 and mismatch.gpu_seconds == 0.1

    cpu_only = table.loc["k_cpu_only"]  # its small-args entry is ignored
    assert cpu_only.cpu_seconds == 3.0 and math.isnan(cpu_only.gpu_seconds) and math.isnan(cpu_only.speedup)
    assert pd.isna(cpu_only.gpu_status) and pd.isna(cpu_only.checksum_match) and pd.isna(cpu_only.gpu_machine)

    failed = table.loc["k_gpu_failed"]
    assert failed.gpu_status == "timeout" and math.isnan(failed.gpu_seconds) and math.isnan(failed.speedup)

    assert list(Corpus.load(root).labelled().index) == ["saxpy"]


def test_table_without_measurements(tmp_path: Path) -> None:
    table = Corpus.load(_small_corpus(tmp_path)).table()
    assert pd.isna(table.loc["saxpy"].cpu_status) and math.isnan(table.loc["saxpy"].speedup)
    assert Corpus.load(_small_corpus(tmp_path / "x")).labelled().empty


# ---------------------------------------------------------------- measure_corpus
def test_measure_resumes_and_skips_completed_kernels(tmp_path: Path) -> None:
    root = _small_corpus(tmp_path, names=("saxpy", "saxpy_b"))
    _edit_yaml(root / "kernels" / "saxpy" / "kernel.yaml", c_flags=["-ffast-math"])
    out = tmp_path / "m.json"
    measure(root, sides=["cpu"], kernels=["saxpy"], small=True, out=out, progress=False, repeats=2)
    first = json.loads(out.read_text())["kernels"]["saxpy"]
    assert first["args"] == [4096] and first["cpu"]["status"] == "ok"
    assert first["cpu"]["compile"].startswith("gcc -O3 -march=native -ffast-math ")
    assert "XAPP_REPEATS=2" in first["cpu"]["run"]
    # the compiler's vectorisation report is kept: saxpy's one loop is vectorised at -O3
    band = Corpus.load(root).kernel("saxpy").band_line
    assert band + 1 in [loop["line"] for loop in first["cpu"]["vectorized"]]
    assert "vectorized" in first["cpu"]["vectorized"][0]["note"]
    # a resumed run must not touch saxpy again (a re-run would record another time and timestamp)
    out_path = measure(root, sides=["cpu"], small=True, out=out, progress=False, repeats=2)
    data = json.loads(out_path.read_text())
    assert data["kernels"]["saxpy"] == first
    assert data["kernels"]["saxpy_b"]["cpu"]["status"] == "ok" and len(data["resumed"]) == 1
    assert data["machine"]["cpu"] and data["machine"]["c_compiler"].startswith("gcc")
    read_measurement_file(out)  # what it writes, the loader reads
    # --retry-failed re-measures only failures; saxpy still is not one
    measure(root, sides=["cpu"], small=True, out=out, progress=False, repeats=2, retry_failed=True)
    assert json.loads(out.read_text())["kernels"]["saxpy"] == first
    # a source edited since it was measured is measured again: broken, it is now a compile error
    (root / "kernels" / "saxpy" / "saxpy.c").write_text("this is not C\n")
    measure(root, sides=["cpu"], small=True, out=out, progress=False, repeats=2)
    assert json.loads(out.read_text())["kernels"]["saxpy"]["cpu"]["status"] == "compile-error"
    with pytest.raises(InputError, match="--small"):
        measure(root, sides=["cpu"], small=False, out=out, progress=False)


def _fake_kernel(root: Path, name: str, c_body: str, cu_body: str | None = None) -> None:
    folder = root / "kernels" / name
    folder.mkdir(parents=True)
    (folder / f"{name}.c").write_text(c_body)
    (folder / f"{name}.cu").write_text(cu_body if cu_body is not None else c_body)
    (folder / "kernel.yaml").write_text(f"name: {name}\ncategory: streaming\ndescription: test\nc: {name}.c\n"
                                        f"cuda: {name}.cu\nargs: [1000]\nsmall_args: [10]\ntolerance: 1.0e-9\n")


def test_measure_records_failures_and_checksum_mismatches(tmp_path: Path) -> None:
    """Both sides through the script: the 'CUDA' side is C compiled by gcc, a GPU is pretended."""
    root = _small_corpus(tmp_path, names=())
    meta = yaml.safe_load((root / "corpus.yaml").read_text())
    # the C side's flags: FMA contraction at -O3 -march=native changes the last bits of a checksum
    meta["compile"]["cuda"] = ["gcc", "-O3", "-march=native", "-x", "c", "{source}", "-o", "{binary}", "-lm"]
    (root / "corpus.yaml").write_text(yaml.safe_dump(meta))
    saxpy = (CORPUS / "kernels" / "saxpy" / "saxpy.c").read_text()
    _fake_kernel(root, "agree", saxpy)
    _fake_kernel(root, "disagree", saxpy, saxpy.replace("xapp_seed(1)", "xapp_seed(2)"))
    _fake_kernel(root, "spin", "int main(void) { volatile int go = 1; while (go) {} return 0; }\n")
    _fake_kernel(root, "crash", "#include <stdlib.h>\nint main(void) { exit(3); }\n")
    _fake_kernel(root, "silent", "int main(void) { return 0; }\n")
    _fake_kernel(root, "broken", "not C at all\n")
    out = root / "measurements" / "both.json"
    measure(root, sides=["cpu", "gpu"], out=out, timeout_s=1, repeats=1, progress=False,
            gpu_check=lambda: (True, ""))
    kernels = json.loads(out.read_text())["kernels"]
    assert kernels["agree"]["checksum_match"] is True and kernels["agree"]["relative_difference"] == 0.0
    assert kernels["disagree"]["checksum_match"] is False
    assert kernels["spin"]["cpu"]["status"] == "timeout" and "1 s" in kernels["spin"]["cpu"]["message"]
    assert kernels["crash"]["gpu"]["status"] == "run-error" and kernels["crash"]["gpu"]["exit_code"] == 3
    assert kernels["silent"]["cpu"]["status"] == "bad-output"
    assert kernels["broken"]["cpu"]["status"] == "compile-error" and "output_tail" in kernels["broken"]["cpu"]
    table = Corpus.load(root).table()
    assert list(Corpus.load(root).labelled().index) == ["agree"]
    assert not bool(table.loc["disagree"].checksum_match) and math.isnan(table.loc["disagree"].speedup)


def test_main_skips_the_gpu_side_without_a_gpu(tmp_path: Path, capsys, monkeypatch) -> None:
    root = _small_corpus(tmp_path)
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                               if not (Path(p) / "nvidia-smi").exists()))
    out = tmp_path / "m.json"
    assert main([str(root), "--small", "--out", str(out), "--no-progress", "--note", "shared machine"]) == 0
    data = json.loads(out.read_text())
    assert "GPU side skipped" in capsys.readouterr().err
    assert data["gpu_skipped"] and data["note"] == "shared machine" and data["settings"]["sides"] == ["cpu"]
    assert set(data["kernels"]["saxpy"]) == {"args", "cpu", "checksum_match", "relative_difference"}
    assert main([str(root), "--side", "gpu", "--small", "--out", str(tmp_path / "g.json"), "--no-progress"]) == 2


def test_the_gpu_dry_run_emulates_only_the_unmeasured_kernels(tmp_path: Path) -> None:
    """--emulate --unmeasured gpu: the GPU script's dry run, without a GPU, on kernels with no GPU time."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not on PATH: the CUDA emulator needs a C++20 compiler")
    root = _small_corpus(tmp_path, names=("saxpy", "measured"))
    gpu = {"status": "ok", "measured": "2026-11-23T00:00:00Z", "time_s": 1e-4, "checksum": 1.0}
    (root / "measurements").mkdir(exist_ok=True)
    (root / "measurements" / "gpu.json").write_text(json.dumps(
        {"format": MEASUREMENT_FORMAT, "machine": {}, "kernels": {"measured": {"args": [16777216], "gpu": gpu}}}))
    out = measure(root, sides=["cpu", "gpu"], emulate=True, unmeasured="gpu", progress=False, repeats=1,
                  out=tmp_path / "dry.json", gpu_check=lambda: (False, "must not be asked"))
    data = json.loads(out.read_text())
    assert set(data["kernels"]) == {"saxpy"} and data["settings"]["emulated"] and data["settings"]["small"]
    entry = data["kernels"]["saxpy"]
    assert entry["gpu"]["emulated"] and entry["gpu"]["compile"].startswith("g++ -std=c++20")
    assert entry["checksum_match"] is True  # the CUDA program computes what the C side does
    assert "speedup" not in _summary("saxpy", entry, ["cpu", "gpu"])  # emulated times are no speedup
    with pytest.raises(InputError, match="--emulate"):
        measure(root, sides=["cpu"], emulate=True, out=tmp_path / "x.json", progress=False)
    with pytest.raises(StarchartError, match="successful gpu measurement"):
        measure(root, sides=["gpu"], kernels=["measured"], unmeasured="gpu", out=tmp_path / "y.json", progress=False)
