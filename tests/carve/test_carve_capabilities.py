"""The compute capabilities added after 12.0 shipped: Jetson Orin (8.7), GB300/B300 (10.3), Jetson Thor (11.0,
10.1 before CUDA 13), DGX Spark GB10 (12.1); their targets compile with whichever compiler has them; and
``starchart carve`` compiles on every usable core by default, with the same result as ``-j 1``."""

from __future__ import annotations

import importlib
import json
import os
import re
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from starchart.carve import occupancy, occupancy_frame, resources, sass, shared_carveout, static
from starchart.carve.occupancy import LIMITS, device_limits, target_arch
from starchart.carve.resources import ResourceCompiler
from starchart.carve.toolchain import Tool, Toolchain, find_toolchain, usable_cores
from starchart.cli import app
from starchart.errors import InputError, StarchartError
from starchart.space import Space

ROOT = Path(__file__).resolve().parents[2]
MATMUL = ROOT / "examples" / "carve" / "matmul.cu"
ORACLE = ROOT / "tests" / "data" / "ptxas" / "occupancy_oracle.cpp"
KB = 1024
runner = CliRunner()

# --- the limits, from NVIDIA's tables --------------------------------------------------------------------
# CUDA Programming Guide (13.x), "Compute Capabilities": Table 30 "Device and Streaming Multiprocessor (SM)
# Information per Compute Capability" (resident blocks, warps, threads per SM: 8.6/8.7/8.9 share the cells
# 16|48|1536 but for 8.9's 24 blocks; 9.0/10.0/10.3 share 32|64|2048; 11.0/12.x share 24|48|1536), Table 31
# "Memory Information per Compute Capability" (shared memory per SM / per block: 8.7 164/163 KB, 10.x and 11.0
# 228/227 KB, 12.x 100/99 KB; 64 K registers per SM and per block, 255 per thread) and Table 32 "Shared Memory
# Capacity per Compute Capability" (the carveouts), at
# https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/compute-capabilities.html
GUIDE = {  # blocks, warps, threads per SM; shared KB per SM, per block (opt-in); carveouts KB
    "8.7": (16, 48, 1536, 164, 163, (0, 8, 16, 32, 64, 100, 132, 164)),
    "10.3": (32, 64, 2048, 228, 227, (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)),
    "11.0": (24, 48, 1536, 228, 227, (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)),
    "12.1": (24, 48, 1536, 100, 99, (0, 8, 16, 32, 64, 100)),
}
#: cuda_occupancy.h of CUDA 13.0 (cudaOccMaxBlocksPerSMBlockBarrierLimit): barriers per resident-block slot.
BARRIER_SLOTS = {"8.7": 0, "10.3": 2, "11.0": 1, "12.1": 1}


@pytest.mark.parametrize("cc", sorted(GUIDE))
def test_new_capabilities_have_the_guide_limits(cc):
    blocks, warps, threads, per_sm, per_block, carveouts = GUIDE[cc]
    lim = device_limits(cc)
    assert lim.cc == cc and cc in LIMITS
    assert (lim.max_blocks_per_sm, lim.max_warps_per_sm, lim.max_threads_per_sm) == (blocks, warps, threads)
    assert (lim.shared_per_sm, lim.max_shared_per_block_optin) == (per_sm * KB, per_block * KB)
    assert lim.shared_carveouts == tuple(c * KB for c in carveouts)
    assert (lim.registers_per_sm, lim.max_registers_per_block, lim.max_registers_per_thread) == (65536, 65536, 255)
    assert lim.max_threads_per_block == 1024 and lim.max_shared_per_block == 48 * KB
    # 1 KB reserved per block (the per-block maximum is the per-SM one less 1 KB), 128-byte shared memory
    # allocation, 256-register units granted to 4 warps at a time (cuda_occupancy.h, CUDA 13.0)
    assert lim.reserved_shared_per_block == KB and lim.shared_allocation_unit == 128
    assert (lim.register_allocation_unit, lim.warp_allocation_granularity) == (256, 4)
    assert lim.barriers_per_block_slot == BARRIER_SLOTS[cc]


# Worked by hand from the tables above (warps = ceil(threads / 32); registers per warp = ceil(regs × 32, 256);
# warps the register file holds = floor(65536 / that, 4); shared per block = ceil(shared + 1 KB, 128)).
HAND = [
    # 8.7: 64 threads = 2 warps, 48 / 2 = 24 but 16 blocks at most (8.0 would hold 32)
    ("8.7", 64, 16, 0, {}, 16, ("blocks",)),
    # 8.7: 40 KB + 1 KB = 41984 bytes, 164 KB / 41984 = 4 (8.6's 100 KB: 2); 4 warps: 12 by warps, 16 by registers
    ("8.7", 128, 32, 40 * KB, {}, 4, ("shared",)),
    # 10.3: 1024 threads = 32 warps, 64 / 32 = 2; 32 regs = 1024 per warp, 64 warps / 32 = 2
    ("10.3", 1024, 32, 0, {}, 2, ("warps", "registers")),
    # 10.3: 4 named barriers per block, 32 slots × 2 = 64 barriers: 16 blocks, not 32
    ("10.3", 64, 32, 0, {"barriers": 4}, 16, ("barriers",)),
    # 11.0: 1024 threads = 32 warps, 48 / 32 = 1 (one block where 10.3 holds two)
    ("11.0", 1024, 32, 0, {}, 1, ("warps",)),
    # 11.0: 192 threads = 6 warps: 48 / 6 = 8; 40 regs = 1280 per warp, 65536 / 1280 = 51 → 48 warps / 6 = 8
    ("11.0", 192, 40, 0, {}, 8, ("warps", "registers")),
    # 11.0: 100 KB dynamic (opt-in) + 1 KB = 103424 bytes, 228 KB / 103424 = 2
    ("11.0", 128, 32, 0, {"dynamic_shared_bytes": 100 * KB, "opt_in": True}, 2, ("shared",)),
    # 11.0: 24 slots × 1 barrier = 24 barriers, 4 per block: 6 blocks
    ("11.0", 64, 32, 0, {"barriers": 4}, 6, ("barriers",)),
    # 12.1: 64 threads = 2 warps, 48 / 2 = 24 = the 24-block limit
    ("12.1", 64, 16, 0, {}, 24, ("warps", "blocks")),
    # 12.1: 48 KB static + 1 KB = 50176 bytes, 100 KB / 50176 = 2
    ("12.1", 128, 32, 48 * KB, {}, 2, ("shared",)),
]


@pytest.mark.parametrize(("cc", "threads", "regs", "shared", "kwargs", "blocks", "limiting"), HAND)
def test_blocks_per_sm_worked_by_hand(cc, threads, regs, shared, kwargs, blocks, limiting):
    occ = occupancy(cc, threads, regs, shared, **kwargs)
    assert occ.valid and occ.blocks_per_sm == blocks and occ.limiting == limiting, occ
    assert occ.occupancy == blocks * occ.warps_per_block / GUIDE[cc][1]
    # the same through the frame calculator and through every spelling of the target
    frame = pd.DataFrame({"t": [threads], "r": [regs], "s": [shared]})
    for name in (cc, f"sm_{cc.replace('.', '')}", f"compute_{cc.replace('.', '')}"):
        got = occupancy_frame(frame, name, threads="t", registers="r", shared="s",
                              dynamic_shared=kwargs.get("dynamic_shared_bytes", 0), opt_in=kwargs.get("opt_in", False),
                              barriers=kwargs.get("barriers", 0))
        assert got.blocks_per_sm.tolist() == [blocks]


def test_shared_memory_limits_and_carveouts_of_the_new_capabilities():
    # 12.1 (12.x): 99 KB per block at most, so 100 KB cannot launch even with the opt-in
    occ = occupancy("12.1", 128, 32, dynamic_shared_bytes=100 * KB, opt_in=True)
    assert not occ.valid and occ.blocks_per_sm == 0
    assert "above the 101376 allowed on compute capability 12.1" in occ.reason
    assert occupancy("11.0", 128, 32, dynamic_shared_bytes=227 * KB, opt_in=True).blocks_per_sm == 1
    assert not occupancy("11.0", 128, 32, dynamic_shared_bytes=227 * KB + 1, opt_in=True).valid
    # a preferred carveout rounds up to the next size of Table 32: the guide's own examples (8.0/8.7: 50 % →
    # 100 KB, not 82 KB; 12.x: 50 % → 64 KB, not 50 KB), and 10.3/11.0's 114 KB → 132 KB
    assert shared_carveout("8.7", 50) == 100 * KB and shared_carveout("12.1", 50) == 64 * KB
    assert shared_carveout("10.3", 50) == shared_carveout("11.0", 50) == 132 * KB
    assert shared_carveout("11.0") == 228 * KB and shared_carveout("12.1") == 100 * KB


# --- NVIDIA's own calculator on the new capabilities ---------------------------------------------------

# NVIDIA's own calculator (cuda_occupancy.h through tests/data/ptxas/occupancy_oracle.cpp, which has the new
# capabilities' device properties) on random launches of every capability: tests/carve/test_occupancy.py's live test.


# --- the names a user types --------------------------------------------------------------------------------

def test_new_targets_are_accepted_with_their_suffixes():
    """Before: 'sm_103a', 'sm_110', 'sm_121' were "unknown compute capability"."""
    for name, cc, arch in [("sm_87", "8.7", "sm_87"), ("87", "8.7", "sm_87"), ((8, 7), "8.7", "sm_87"),
                           ("sm_103a", "10.3", "sm_103a"), ("compute_103f", "10.3", "sm_103f"), (103, "10.3", "sm_103"),
                           ("sm_110", "11.0", "sm_110"), ("sm_110a", "11.0", "sm_110a"), ("11.0f", "11.0", "sm_110f"),
                           ("sm_121", "12.1", "sm_121"), ("compute_121a", "12.1", "sm_121a"),
                           ("12.1", "12.1", "sm_121")]:
        assert device_limits(name) is LIMITS[cc] and target_arch(name) == arch, name
    # Orin has no arch-specific or family target (nvcc 13: "Unsupported gpu architecture 'sm_87a'")
    with pytest.raises(InputError, match="from sm_90a on"):
        device_limits("sm_87a")


def test_thor_under_its_cuda_12_name_says_to_use_11_0():
    """CUDA 13 renamed Jetson Thor's 10.1 to 11.0 (ptxas 13 refuses sm_101): say so instead of "unknown"."""
    for name in ("10.1", "sm_101", "compute_101a"):
        with pytest.raises(InputError, match=r"Jetson Thor's name before CUDA 13, which renamed it 11.0") as info:
            device_limits(name)
        assert info.value.where == "cc" and "'11.0'" in info.value.hint and "CUDA 13.0 or later" in info.value.hint
    said = runner.invoke(app, ["carve", str(MATMUL), "--kernel", "matmul", "--space",
                               str(ROOT / "examples" / "carve" / "matmul.yaml"), "--cc", "sm_101",
                               "--threads-per-block", "TILE * TILE // WPT", "--threads", "1024 * 1024 // WPT"])
    assert said.exit_code == 2 and "--cc" in said.output and "renamed it 11.0" in said.output, said.output


def test_a_target_only_cuda_13_compiles_names_the_compilers_found():
    """sm_110 with only CUDA 12.9's NVRTC and ptxas (the carve extra's): the error says which compilers were
    found, that sm_110 needs CUDA 13.0, CUDA 12's name for the GPU, and how to get CUDA 13's compilers."""
    cu12 = Toolchain(nvrtc=(Tool(Path("/w/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"), (12, 9)),),
                     ptxas=(Tool(Path("/w/nvidia/cuda_nvcc/bin/ptxas"), (12, 9)),))
    with pytest.raises(StarchartError) as info:
        ResourceCompiler("extern \"C\" __global__ void k() {}", "k", "sm_110", cache_dir=False,
                         toolchain=cu12).compile({})
    assert ("no CUDA compiler for sm_110 found (sm_110 needs CUDA 13.0 or later; CUDA 12.x calls this GPU sm_101); "
            "found NVRTC 12.9, ptxas 12.9, none of which targets sm_110") in str(info.value)
    assert "nvidia-cuda-nvrtc>=13" in info.value.hint and "CUDA 13 toolkit" in info.value.hint
    with pytest.raises(StarchartError, match=r"no NVRTC with a matching ptxas for sm_110f \(sm_110f needs CUDA 13.0"):
        ResourceCompiler("extern \"C\" __global__ void k() {}", "k", "sm_110f", cache_dir=False, toolchain=cu12,
                         backend="nvrtc").compile({})
    # 10.3 and 12.1 came with CUDA 12.9: an NVRTC 12.8 is not picked for them, the carve extra's 12.9 is
    cu128 = Tool(Path("/x/nvcc"), (12, 8))
    assert not cu128.supports(103) and not cu128.supports(121) and cu128.supports(87)
    assert Tool(Path("/y/nvcc"), (12, 9)).supports(121, "f") and not Tool(Path("/y/nvcc"), (12, 9)).supports(110)
    with pytest.raises(StarchartError, match=r"sm_121 needs CUDA 12.9 or later\); found nvcc 12.8") as info:
        ResourceCompiler("extern \"C\" __global__ void k() {}", "k", "12.1", cache_dir=False,
                         toolchain=Toolchain(nvcc=(cu128,))).compile({})
    assert "pip install '.[carve]'" in info.value.hint


# --- compiling for the new targets ---------------------------------------------------------------------------

def _skip_without_compiler(cc: str, disasm: bool = False) -> Toolchain:
    tc = find_toolchain()
    sm, suffix = re.fullmatch(r"sm_(\d+)([af]?)", target_arch(cc)).groups()
    sm = int(sm)
    nvrtc = any(t.supports(sm, suffix) for t in tc.nvrtc) and tc.pick("ptxas", sm, suffix=suffix)
    if not (nvrtc or tc.pick("nvcc", sm, suffix=suffix)):
        pytest.skip(f"no CUDA compiler for {target_arch(cc)} (sm_110 needs CUDA 13; 10.3 and 12.1 CUDA 12.9)")
    if disasm and not (tc.pick("nvdisasm", sm) or tc.pick("cuobjdump", sm)):
        pytest.skip(f"no disassembler for sm_{sm}")
    return tc


@pytest.mark.parametrize("cc", ["sm_87", "sm_103a", "sm_110", "sm_110f", "sm_121", "sm_121f"])
def test_the_matmul_example_compiles_for_each_new_target(tmp_path, cc):
    """Whichever installed compiler has the target compiles it (here: NVRTC 12.9 + ptxas for 8.7, 10.3, 12.1;
    nvcc 13 for 11.0, which NVRTC 12.9 refuses with "invalid value for --gpu-architecture")."""
    _skip_without_compiler(cc)
    rc = ResourceCompiler(MATMUL, "matmul", cc, cache_dir=tmp_path)
    done = rc.compile({"TILE": 16, "WPT": 2, "UNROLL": 4})
    assert done.status == "ok", done.reason
    assert done.usage.arch == target_arch(cc) and done.usage.registers > 0
    assert done.usage.shared_bytes == 2 * 16 * 16 * 4  # As and Bs, TILE × TILE floats each
    first = {"sm_110": (13, 0), "sm_110f": (13, 0), "sm_87": (11, 4)}.get(cc, (12, 9))
    release = tuple(int(x) for x in re.search(r"(\d+)\.(\d+)", done.tools).groups())
    assert release >= first, done.tools


def test_carve_the_matmul_example_for_jetson_thor_from_the_command_line(tmp_path, monkeypatch):
    """`starchart carve ... --cc sm_110` compiles with nvcc 13 (or NVRTC 13), disassembles, and occupies an
    11.0 SM (48 warps): the 256-thread configurations hold 6 blocks at most where a 10.3 SM holds 8."""
    _skip_without_compiler("sm_110", disasm=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    space = tmp_path / "matmul.yaml"
    space.write_text("parameters:\n  TILE: [8, 16]\n  WPT: [1, 2]\n  UNROLL: [1, 4]\n")
    kept = tmp_path / "kept.csv"
    said = runner.invoke(app, ["carve", str(MATMUL), "--kernel", "matmul", "--space", str(space), "--cc", "sm_110",
                               "--threads-per-block", "TILE * TILE // WPT", "--threads", "1024 * 1024 // WPT",
                               "-D", "N=1024", "--json", "-o", str(kept)])
    assert said.exit_code == 0, said.output
    assert "compiling for sm_110" in said.stderr and "8/8" in said.stderr
    payload = json.loads(said.stdout)
    assert payload["total"] == 8 and payload["kept_count"] >= 1 and len(pd.read_csv(kept)) == payload["kept_count"]
    result = static.carve_source(MATMUL, "matmul", Space.from_file(space), "sm_110",
                                 threads_per_block="TILE * TILE // WPT", threads="1024 * 1024 // WPT",
                                 constants={"N": 1024})
    frame = result.frame
    assert (frame["status"] == "ok").all() and len(frame) == 8
    assert (frame["occupancy"] == frame["blocks_per_sm"] * frame["warps_per_block"] / 48).all()
    assert frame.loc[frame["TILE"] * frame["TILE"] // frame["WPT"] == 256, "blocks_per_sm"].max() <= 6


# --- -j: every usable core by default, the same result whatever -j ---------------------------------------

def test_usable_cores_follows_the_affinity(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 2, 5}, raising=False)
    assert usable_cores() == 3
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)  # macOS, Windows
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert usable_cores() == 6
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert usable_cores() == 1


def test_carve_defaults_to_every_usable_core_and_keeps_j1(tmp_path, monkeypatch):
    """Before: --jobs defaulted to 1, one compile at a time on a many-core machine."""
    seen = []

    def record(*args, jobs, **kwargs):
        seen.append(jobs)
        raise KeyboardInterrupt  # enough: the jobs it was called with

    monkeypatch.setattr("starchart.cli.carve.carve_source", record)  # the name the command calls
    monkeypatch.setattr("starchart.cli.carve.usable_cores", lambda: 7)
    cu, yaml = tmp_path / "k.cu", tmp_path / "k.yaml"
    cu.write_text('extern "C" __global__ void k(float *a) { a[threadIdx.x] *= BX; }\n')
    yaml.write_text("parameters:\n  BX: [64, 128]\n")
    args = ["carve", str(cu), "--kernel", "k", "--space", str(yaml), "--cc", "12.1", "--threads-per-block", "BX",
            "--threads", "BX"]
    for extra in ([], ["-j", "1"], ["--jobs", "3"]):
        runner.invoke(app, args + extra)
    assert seen == [7, 1, 3]
    assert runner.invoke(app, args + ["-j", "0"]).exit_code == 2  # still at least 1
    help_text = re.sub(r"[\s│]+", " ", runner.invoke(app, ["carve", "--help"]).output)  # unwrapped, no box
    assert "(default: every usable core; -j 1: one at a time)" in help_text, help_text


def test_the_result_is_the_same_whatever_the_jobs(tmp_path, monkeypatch):
    """The compiles and disassemblies finish in any order with several jobs; the kept set, the JSON summary and
    the written configurations are the same as one at a time (each run compiles afresh: its own cache)."""
    _skip_without_compiler("12.1", disasm=True)
    space = tmp_path / "matmul.yaml"
    space.write_text("parameters:\n  TILE: [8, 16]\n  WPT: [1, 2, 4]\n  UNROLL: [1, 2, 8]\n"
                     "restrictions:\n  - UNROLL <= TILE\n  - TILE % WPT == 0\n")
    configs = len(Space.from_file(space).to_frame())
    outputs = {}
    for jobs in ([], ["-j", "1"], ["-j", "4"]):
        name = "-".join(jobs) or "default"
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / name))
        kept = tmp_path / f"{name}.csv"
        said = runner.invoke(app, ["carve", str(MATMUL), "--kernel", "matmul", "--space", str(space), "--cc", "12.1",
                                   "--threads-per-block", "TILE * TILE // WPT", "--threads", "1024 * 1024 // WPT",
                                   "-D", "N=1024", "--json", "-o", str(kept), *jobs])
        assert said.exit_code == 0, said.output
        assert len(list((tmp_path / name).glob("starchart/carve/*/result.json"))) == configs  # not from a cache
        outputs[name] = (said.stdout, kept.read_text())
    assert outputs["default"] == outputs["-j-1"] == outputs["-j-4"]


# ---------------------------------------------------------------------- review rounds (test_carve_user_edges2)
# Carving a CUDA source the way a GPU performance engineer does: arch-specific targets (sm_90a), a progress
# bar over minutes of compiling, Ctrl-C and the same command again, and the mistakes that must be refused in
# a second rather than after compiling the whole space (a misspelt kernel, launch expression or predicate).


#: The module (starchart.carve.occupancy, the attribute, is the calculator function): target_arch is looked up
#: at call time, so that the other tests still run against a version without it.
occupancy_module = importlib.import_module("starchart.carve.occupancy")


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


def test_arch_specific_and_family_names_have_their_base_limits():
    """Before: 'sm_90a', 'compute_90a' and 'sm_120f' were "unknown compute capability"."""
    for name in ("sm_90a", "compute_90a", "9.0a", "90a", "SM_90a"):
        assert device_limits(name) is LIMITS["9.0"]
    assert device_limits("sm_100f") is LIMITS["10.0"] and device_limits("compute_120f") is LIMITS["12.0"]
    assert [occupancy_module.target_arch(x) for x in ("compute_90a", "sm_90A", "9.0", 86, "sm_120f", (10, 0))] == \
        ["sm_90a", "sm_90a", "sm_90", "sm_86", "sm_120f", "sm_100"]
    # nvcc has no sm_86a nor sm_90f: refused here, naming the option and what to give instead
    with pytest.raises(InputError, match=r"'sm_86a'.*from sm_90a on") as info:
        device_limits("sm_86a")
    assert info.value.where == "cc" and "'sm_86'" in info.value.hint
    with pytest.raises(InputError, match="from sm_100f on"):
        occupancy_module.target_arch("sm_90f")


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
