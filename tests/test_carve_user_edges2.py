"""Carving a CUDA source the way a GPU performance engineer does: arch-specific targets (sm_90a), a progress
bar over minutes of compiling, Ctrl-C and the same command again, and the mistakes that must be refused in
a second rather than after compiling the whole space (a misspelt kernel, launch expression or predicate)."""

from __future__ import annotations

import importlib
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from starchart.carve import resources, sass, static
from starchart.carve.occupancy import LIMITS, device_limits
from starchart.carve.resources import ResourceCompiler
from starchart.carve.toolchain import Tool, Toolchain, find_toolchain
from starchart.cli import app
from starchart.errors import InputError, StarchartError
from starchart.space import Space

runner = CliRunner()
#: The module (starchart.carve.occupancy, the attribute, is the calculator function): target_arch is looked up
#: at call time, so that the other tests still run against a version without it.
occupancy = importlib.import_module("starchart.carve.occupancy")

#: Needs sm_90a: setmaxnreg and wgmma.fence exist only on the arch-specific target, not on sm_90.
WGMMA = r'''
extern "C" __global__ void scale(float *a) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    __shared__ float tile[BX * ITEMS];
    for (int i = 0; i < ITEMS; i++) tile[threadIdx.x * ITEMS + i] = a[blockIdx.x * BX * ITEMS + threadIdx.x * ITEMS + i];
    __syncthreads();
    for (int i = 0; i < ITEMS; i++)
        a[blockIdx.x * BX * ITEMS + threadIdx.x * ITEMS + i] = 2.0f * tile[(threadIdx.x * ITEMS + i + 1) % (BX * ITEMS)];
}
'''
#: The same without the sm_90a-only instructions: compiles for every target.
PLAIN = WGMMA.replace('    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\\n" ::: "memory");\n', "").replace(
    '    asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");\n', "")
SPACE = "parameters:\n  BX: [128, 256]\n  ITEMS: [1, 2, 4]\n"


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def _needs(sm: int = 90, suffix: str = "", disasm: bool = True) -> Toolchain:
    """Skip where no compiler (and disassembler) for sm_{sm}{suffix} is installed."""
    tc = find_toolchain()
    extra = {"suffix": suffix} if suffix else {}
    compiles = (any(t.supports(sm, *extra.values()) for t in tc.nvrtc) and tc.pick("ptxas", sm, **extra)) or \
        tc.pick("nvcc", sm, **extra)
    if not compiles or (disasm and not (tc.pick("nvdisasm", sm) or tc.pick("cuobjdump", sm))):
        pytest.skip(f"no CUDA compiler for sm_{sm}{suffix}: pip install '.[carve]'")
    return tc


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """carve_source's cache (~/.cache/starchart/carve) in a fresh folder, to count what was compiled."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "starchart" / "carve"


def _compiled(cache: Path) -> int:
    return len(list(cache.glob("*/result.json"))) if cache.is_dir() else 0


def _files(tmp_path: Path, source: str = PLAIN, space: str = SPACE) -> tuple[Path, Path]:
    cu, yaml = tmp_path / "scale.cu", tmp_path / "scale.yaml"
    cu.write_text(source)
    yaml.write_text(space)
    return cu, yaml


# --- arch-specific and family targets -------------------------------------------------------------------

def test_arch_specific_and_family_names_have_their_base_limits():
    """Before: 'sm_90a', 'compute_90a' and 'sm_120f' were "unknown compute capability"."""
    for name in ("sm_90a", "compute_90a", "9.0a", "90a", "SM_90a"):
        assert device_limits(name) is LIMITS["9.0"]
    assert device_limits("sm_100f") is LIMITS["10.0"] and device_limits("compute_120f") is LIMITS["12.0"]
    assert [occupancy.target_arch(x) for x in ("compute_90a", "sm_90A", "9.0", 86, "sm_120f", (10, 0))] == \
        ["sm_90a", "sm_90a", "sm_90", "sm_86", "sm_120f", "sm_100"]
    # nvcc has no sm_86a nor sm_90f: refused here, naming the option and what to give instead
    with pytest.raises(InputError, match=r"'sm_86a'.*from sm_90a on") as info:
        device_limits("sm_86a")
    assert info.value.where == "cc" and "'sm_86'" in info.value.hint
    with pytest.raises(InputError, match="from sm_100f on"):
        occupancy.target_arch("sm_90f")


def test_tools_know_which_release_brought_a_target():
    """sm_90a needs CUDA 12.0, sm_100/sm_120 12.8, the family targets 12.9: an older NVRTC is not picked for
    them (it would fail every configuration with "invalid value for --gpu-architecture")."""
    old, new = Tool(Path("/x/nvcc"), (12, 4)), Tool(Path("/y/nvcc"), (12, 9))
    assert old.supports(90) and old.supports(90, "a") and not old.supports(100) and not old.supports(120, "f")
    assert new.supports(100, "f") and new.supports(103, "f")
    assert Toolchain(nvcc=(new, old)).pick("nvcc", 90, suffix="a") is old
    assert Toolchain(nvcc=(new, old)).pick("nvcc", 120, suffix="f") is new
    with pytest.raises(StarchartError, match=r"no CUDA compiler for sm_100f found \(sm_100f needs CUDA 12.9"):
        ResourceCompiler(PLAIN, "scale", "sm_100f", cache_dir=False, toolchain=Toolchain(nvcc=(old,))).compile(
            {"BX": 128, "ITEMS": 1})


@pytest.mark.parametrize("backend", ["nvrtc", "nvcc"])
def test_an_sm90a_only_kernel_compiles_for_sm90a_and_not_for_sm90(tmp_path, backend):
    tc = _needs(90, "a", disasm=False)
    if backend == "nvrtc" and not any(t.supports(90, "a") for t in tc.nvrtc):
        pytest.skip("no NVRTC")
    if backend == "nvcc" and not tc.pick("nvcc", 90, suffix="a"):
        pytest.skip("no nvcc")
    config = {"BX": 128, "ITEMS": 2}
    plain = ResourceCompiler(WGMMA, "scale", "9.0", cache_dir=tmp_path, backend=backend).compile(config)
    assert plain.status == "compile" and "not supported on .target 'sm_90'" in plain.reason
    for name in ("sm_90a", "compute_90a"):
        rc = ResourceCompiler(WGMMA, "scale", name, cache_dir=tmp_path, backend=backend)
        assert (rc.cc, rc.sm, rc.arch) == ("9.0", 90, "sm_90a")
        done = rc.compile(config)
        assert done.status == "ok", done.reason
        assert done.usage.arch == "sm_90a" and done.usage.shared_bytes == 128 * 2 * 4
    # sm_90 and sm_90a results are cached apart (the same key gave sm_90's failure to sm_90a)
    assert len(list(tmp_path.glob("*/result.json"))) == 2


def test_carve_an_sm90a_kernel_from_python_and_the_command_line(tmp_path, cache):
    _needs(90, "a")
    cu, yaml = _files(tmp_path, WGMMA)
    space = Space.from_file(yaml)
    with pytest.raises(InputError, match="not supported on .target 'sm_90'") as info:
        static.carve_source(cu, "scale", space, "9.0", threads_per_block="BX", threads="BX * 1024")
    assert "cc='sm_90a'" in info.value.hint
    result = static.carve_source(cu, "scale", space, "sm_90a", threads_per_block="BX", threads="BX * 1024")
    frame = result.frame
    assert (frame["status"] == "ok").all() and len(frame) == 6
    # occupancy of a 9.0 SM: 64 warps, whatever the suffix
    assert (frame["occupancy"] == frame["blocks_per_sm"] * frame["warps_per_block"] / 64).all()
    args = ("carve", cu, "--kernel", "scale", "--space", yaml, "--threads-per-block", "BX", "--threads", "BX * 1024")
    said = invoke(*args, "--cc", "sm_90")
    assert said.exit_code == 2 and "--cc sm_90a" in said.output, said.output
    said = invoke(*args, "--cc", "compute_90a")
    assert said.exit_code == 0 and "carving kept" in said.output, said.output
    assert "sm_90a" in invoke("carve", "--help").output


# --- progress, Ctrl-C and the same command again --------------------------------------------------------

def test_carve_source_reports_progress_per_step(tmp_path, cache):
    _needs(80)
    cu, yaml = _files(tmp_path)
    seen: list[tuple[str, int, int]] = []
    static.carve_source(cu, "scale", Space.from_file(yaml), "8.0", threads_per_block="BX", threads="BX * 64",
                        jobs=2, progress=lambda step, done, total: seen.append((step, done, total)))
    compiling = [s for s in seen if s[0] == "compiling"]
    assert compiling[0] == ("compiling", 0, 6) and compiling[-1] == ("compiling", 6, 6) and len(compiling) == 7
    assert seen[-1] == ("disassembling", 6, 6)
    with pytest.raises(InputError, match="progress must be True, False or a function") as info:
        static.carve_source(cu, "scale", Space.from_file(yaml), "8.0", threads_per_block="BX", threads=64,
                            progress="yes")
    assert info.value.where == "progress"


def test_the_command_line_shows_the_compile_on_stderr(tmp_path, cache):
    _needs(80)
    cu, yaml = _files(tmp_path)
    said = invoke("carve", cu, "--kernel", "scale", "--space", yaml, "--cc", "8.0", "--threads-per-block", "BX",
                  "--threads", "BX * 64", "--json")
    assert said.exit_code == 0, said.output
    assert "compiling for sm_80" in said.stderr and "6/6" in said.stderr and "disassembling" in said.stderr
    assert said.stdout.startswith("{") and "compiling" not in said.stdout  # --json stays parseable


def test_ctrl_c_cancels_the_compiles_not_started(tmp_path):
    """With --jobs, Ctrl-C stops at once: only the compiles already running finish."""
    rc = ResourceCompiler(PLAIN, "scale", "8.0", cache_dir=tmp_path, jobs=2)
    started = []
    lock = threading.Lock()

    def compile_one(config):
        with lock:
            started.append(config)
        time.sleep(0.05)
        return resources.Compiled(status="ok")

    rc.compile = compile_one

    def interrupt(step, done, total):
        if done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rc.compile_all([{"BX": b, "ITEMS": 1} for b in range(40)], progress=interrupt)
    time.sleep(0.2)  # anything still queued would start meanwhile
    assert len(started) <= 4


def test_ctrl_c_says_what_is_kept_and_how_to_go_on(tmp_path, monkeypatch):
    cu, yaml = _files(tmp_path)

    def interrupted(*args, progress, **kwargs):
        progress.start("compiling", 10)
        for _ in range(3):
            progress.advance("compiling")
        raise KeyboardInterrupt

    monkeypatch.setattr("starchart.cli.carve.carve_source", interrupted)  # the name the command calls
    said = invoke("carve", cu, "--kernel", "scale", "--space", yaml, "--cc", "8.0", "--threads-per-block", "BX",
                  "--threads", "BX")
    assert said.exit_code == 130, said.output
    assert "stopped: 3 of 10 configurations compiled" in said.stderr and "the same command again" in said.stderr


def test_a_refused_configuration_read_from_the_cache_has_no_cubin(tmp_path):
    """Before: ptxas's cubin of a configuration refused for a wrong kernel name came back from the cache as its
    result, so the second run disassembled it and failed with "not found" where the first said "does not
    compile"."""
    _needs(80)
    rc = ResourceCompiler(PLAIN, "scaled", "8.0", cache_dir=tmp_path)
    first = rc.compile({"BX": 128, "ITEMS": 1})
    assert first.status == "compile" and first.cubin is None
    again = ResourceCompiler(PLAIN, "scaled", "8.0", cache_dir=tmp_path).compile({"BX": 128, "ITEMS": 1})
    assert again.status == "compile" and again.cubin is None
    table = rc.frame([{"BX": 128, "ITEMS": 1}], trip_counts={})
    assert table["status"].tolist() == ["compile"] and table["instructions"].isna().all()


def test_a_disassembly_cut_short_is_not_cached(tmp_path, monkeypatch):
    """Before: Ctrl-C while the SASS was being written left half a file, read as the kernel's code next time."""
    _needs(80)
    done = ResourceCompiler(PLAIN, "scale", "8.0", cache_dir=tmp_path).compile({"BX": 128, "ITEMS": 1})
    original = Path.write_text

    def cut_short(self, text, *args, **kwargs):
        if ".sass" in self.name:
            original(self, text[: len(text) // 2], *args, **kwargs)
            raise KeyboardInterrupt
        return original(self, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", cut_short)
    with pytest.raises(KeyboardInterrupt):
        sass.kernel_sass(done.cubin, "scale")
    monkeypatch.undo()
    assert not done.cubin.with_suffix(".g.sass").exists() and not list(done.cubin.parent.glob("*.tmp"))
    assert sass.kernel_sass(done.cubin, "scale").name == "scale"


# --- mistakes refused before compiling the space ---------------------------------------------------------

def test_a_misspelt_kernel_is_refused_after_one_compile(tmp_path, cache):
    """Before: every configuration was compiled, then "no configuration compiles: kernel 'scaled' not found"
    with the hint "fix the source or the space"."""
    _needs(80)
    cu, yaml = _files(tmp_path)
    with pytest.raises(InputError, match=r"no kernel 'scaled' in scale.cu \(it compiles to: scale\)") as info:
        static.carve_source(cu, "scaled", Space.from_file(yaml), "8.0", threads_per_block="BX", threads=64)
    assert info.value.where == "kernel" and _compiled(cache) == 1
    said = invoke("carve", cu, "--kernel", "scaled", "--space", yaml, "--cc", "8.0", "--threads-per-block", "BX",
                  "--threads", "64")
    assert said.exit_code == 2 and "--kernel: no kernel 'scaled'" in said.output, said.output


def test_a_misspelt_predicate_column_is_refused_after_one_compile(tmp_path, cache):
    _needs(80)
    cu, yaml = _files(tmp_path)
    with pytest.raises(InputError, match="unknown column 'BXX'") as info:
        static.carve_source(cu, "scale", Space.from_file(yaml), "8.0", threads_per_block="BX", threads=64,
                            predicates=["BXX >= 256"])
    assert _compiled(cache) == 1
    assert info.value.hint.startswith("did you mean 'BX'?") and "occupancy" in info.value.hint
    # the columns a predicate may use, occupancy among them
    result = static.carve_source(cu, "scale", Space.from_file(yaml), "8.0", threads_per_block="BX",
                                 threads="BX * 64", predicates=["occupancy >= 0.5", "registers <= 64"])
    assert result.dropped_by.get("occupancy >= 0.5", 0) >= 0 and "occupancy" in result.frame.columns


def test_a_launch_no_configuration_can_make_is_refused_before_compiling(tmp_path, cache):
    cu, yaml = _files(tmp_path)
    with pytest.raises(InputError, match="every configuration has more than 1024 threads per block") as info:
        static.carve_source(cu, "scale", Space.from_file(yaml), "8.0", threads_per_block="BX * 16", threads=64)
    assert info.value.where == "threads per block" and _compiled(cache) == 0


def test_an_unwritable_output_is_refused_before_compiling(tmp_path, cache):
    unwritable = Path("/proc/kept.csv")
    if not unwritable.parent.is_dir():
        pytest.skip("needs /proc")
    cu, yaml = _files(tmp_path)
    said = invoke("carve", cu, "--kernel", "scale", "--space", yaml, "--cc", "8.0", "--threads-per-block", "BX",
                  "--threads", "64", "-o", unwritable)
    assert said.exit_code == 2 and "--output: cannot write in '/proc'" in said.output, said.output
    assert _compiled(cache) == 0


def test_the_written_configurations_name_the_space_file_to_measure_them_with(tmp_path, cache):
    _needs(80)
    cu, yaml = _files(tmp_path)
    kept = tmp_path / "kept.csv"
    said = invoke("carve", cu, "--kernel", "scale", "--space", yaml, "--cc", "8.0", "--threads-per-block", "BX",
                  "--threads", "BX * 64", "-o", kept)
    assert said.exit_code == 0, said.output
    assert f"starchart run {yaml} --configs {kept}" in said.stderr
    assert list(pd.read_csv(kept).columns) == ["BX", "ITEMS"]


def test_a_trip_count_naming_a_macro_says_how_to_give_it(tmp_path, cache):
    """Before: "use the tuning parameters: BX" for N, a macro the source defines itself (#define N 1024)."""
    _needs(80)
    source = ("#ifndef N\n#define N 1024\n#endif\n"
              'extern "C" __global__ void scale(float *a, int n) {\n'
              "    float acc = 0.0f;\n"
              "    for (int i = 0; i < n; i++) {  // trips: N / BX\n"
              "        acc += a[i * BX + threadIdx.x];\n"
              "    }\n"
              "    a[threadIdx.x] = acc * ITEMS;\n}\n")
    cu, yaml = _files(tmp_path, source)
    with pytest.raises(InputError, match="unknown parameter 'N'") as info:
        static.carve_source(cu, "scale", Space.from_file(yaml), "8.0", threads_per_block="BX", threads=64)
    assert "-D N=VALUE" in info.value.hint and "constants {'N': VALUE}" in info.value.hint


def test_a_template_instantiated_twice_is_explained(tmp_path, cache):
    _needs(80)
    source = ("template <int T> __global__ void scale(float *a) { a[threadIdx.x] *= T; }\n"
              "template __global__ void scale<BX>(float *);\ntemplate __global__ void scale<2 * BX>(float *);\n")
    cu, yaml = _files(tmp_path, source, "parameters:\n  BX: [64, 128]\n")
    with pytest.raises(InputError, match="is ambiguous") as info:
        static.carve_source(cu, "scale", Space.from_file(yaml), "8.0", threads_per_block="BX", threads=64)
    assert "instantiate it once per configuration" in info.value.hint
    # one instantiation per configuration carves (found by its mangled name)
    cu.write_text(source.rsplit("template __global__", 1)[0])
    result = static.carve_source(cu, "scale", Space.from_file(yaml), "8.0", threads_per_block="BX", threads=64)
    assert (result.frame["status"] == "ok").all()


def test_carve_source_is_part_of_the_carve_package():
    from starchart import carve

    assert carve.carve_source is static.carve_source and carve.target_arch("compute_90a") == "sm_90a"


def test_an_unknown_metric_is_named_once_with_the_closest_column():
    """Before: "metric 'utilisation': metric 'utilisation' 'utilisation': unknown column 'utilisation'"."""
    from starchart.carve.carving import carve

    frame = pd.DataFrame({"b": [1, 2, 3], "efficiency": [1.0, 2.0, 3.0], "utilization": [3.0, 2.0, 1.0]})
    with pytest.raises(InputError) as info:
        carve(frame, metrics=("efficiency", "utilisation"))
    assert str(info.value).startswith("metric: metric 'utilisation': unknown column 'utilisation'")
    assert info.value.hint.startswith("did you mean 'utilization'?")
