"""Resource usage (ptxas, cuobjdump, KTT, CuPy, compiling every configuration) and SASS instruction counts.

Parsers are tested on real compiler output stored in tests/data/ptxas (see its README for the commands);
the compile tests run NVIDIA's compilers when they are installed (the ``carve`` extra) and skip otherwise.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest
from cuda_toolchain import toolchain_or_skip

from starchart.carve.resources import ResourceCompiler
from starchart.carve.sass import (
    blocking_instructions,
    classify,
    count_instructions,
    infer_trip_count,
    parse_sass,
    source_trip_counts,
)
from starchart.carve.toolchain import (
    ResourceUsage,
    find_kernel,
    from_cupy,
    from_ktt,
    ktt_resources,
    parse_ptxas,
    parse_res_usage,
)
from starchart.errors import InputError, StarchartError

DATA = Path(__file__).parent / "data" / "ptxas"
ROOT = Path(__file__).resolve().parents[2]
MATMUL = ROOT / "examples" / "carve" / "matmul.cu"


def fixture(name: str) -> str:
    return (DATA / name).read_text()


# --- ptxas -v ----------------------------------------------------------------------------------------

def test_ptxas_nvcc13_sm75_every_kernel():
    usages = {u.kernel: u for u in parse_ptxas(fixture("nvcc13.0_kernels_sm75.txt"))}
    # The non-inlined device function _Z6helperf has "Function properties" but no "Used" line: not an entry.
    assert set(usages) == {"prefetch_sum", "_Z7mangledPfi", "statshared", "dynshared", "noshared"}
    assert {u.arch for u in usages.values()} == {"sm_75"}
    stat = usages["statshared"]
    assert (stat.registers, stat.shared_bytes, stat.barriers, stat.constant_bytes) == (11, 400, 1, {0: 364})
    assert usages["dynshared"].shared_bytes == 0  # dynamic shared memory is not in the binary
    assert usages["_Z7mangledPfi"].local_bytes == 256  # the 64-float stack array
    assert find_kernel(list(usages.values()), "mangled").kernel == "_Z7mangledPfi"


def test_ptxas_sm90_prints_no_constant_banks():
    usages = {u.kernel: u for u in parse_ptxas(fixture("nvcc13.0_kernels_sm90.txt"))}
    assert usages["statshared"].shared_bytes == 400 and usages["statshared"].constant_bytes == {}
    assert usages["statshared"].as_dict()["constant_bytes"] is None  # unknown, not 0


def test_ptxas_spills_and_register_cap():
    (u,) = parse_ptxas(fixture("nvcc13.0_matmul_sm80_spills.txt"))
    # -maxrregcount=16 is raised to 24 by ptxas ("adjusting ... to lower bound of 24") and spills.
    assert (u.kernel, u.arch, u.registers, u.shared_bytes) == ("matmul", "sm_80", 24, 8192)  # 2 × 32² floats
    assert (u.local_bytes, u.spill_stores, u.spill_loads) == (24, 32, 20)


def test_ptxas_one_kernel_for_every_compute_capability():
    usages = parse_ptxas(fixture("ptxas12.9_matmul_all_cc.txt"))
    assert [u.arch for u in usages] == ["sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90"]
    assert {u.shared_bytes for u in usages} == {2 * 16 * 16 * 4}
    assert all(20 <= u.registers <= 40 for u in usages)
    assert find_kernel(usages, "matmul", arch="sm_89").arch == "sm_89"


def test_ptxas_old_formats():
    # CUDA 1.x-2.x printed "static+parameter bytes smem" and "lmem"; the line format is ptxas's.
    (u,) = parse_ptxas("ptxas info    : Used 13 registers, 2072+16 bytes smem, 8 bytes lmem, 4 bytes cmem[1]")
    assert (u.registers, u.shared_bytes, u.local_bytes, u.constant_bytes) == (13, 2088, 8, {1: 4})
    assert parse_ptxas("nothing to see") == []


def test_find_kernel_errors_name_the_functions():
    usages = parse_ptxas(fixture("nvcc13.0_kernels_sm75.txt"))
    with pytest.raises(InputError, match=r"'nope' not found.*statshared"):
        find_kernel(usages, "nope")


# --- cuobjdump -res-usage ----------------------------------------------------------------------------

def test_res_usage_fatbin_names_archs_and_drops_the_reserved_kilobyte_on_sm90():
    usages = parse_res_usage(fixture("cuobjdump13.5_res_usage_fatbin.txt"))
    by = {(u.arch, u.kernel): u for u in usages}
    assert by[("sm_75", "statshared")].shared_bytes == 400 and not by[("sm_75", "statshared")].notes
    # sm_90 cubins count the 1 KB system-reserved window in SHARED (noshared shows SHARED:1024).
    assert by[("sm_90", "statshared")].shared_bytes == 400
    assert by[("sm_90", "noshared")].shared_bytes == 0 and "1024 bytes reserved" in by[("sm_90", "noshared")].notes[0]
    # cuobjdump and ptxas -v agree once that is done.
    ptxas = {u.kernel: u for u in parse_ptxas(fixture("nvcc13.0_kernels_sm90.txt"))}
    for (arch, kernel), u in by.items():
        if arch == "sm_90":
            assert (u.registers, u.shared_bytes, u.local_bytes) == \
                   (ptxas[kernel].registers, ptxas[kernel].shared_bytes, ptxas[kernel].local_bytes)


def test_res_usage_bare_cubin_needs_the_arch():
    text = fixture("cuobjdump13.5_res_usage_sm90_cubin.txt")
    unknown = {u.kernel: u for u in parse_res_usage(text)}
    assert unknown["statshared"].shared_bytes == 1424 and "pass arch=" in unknown["statshared"].notes[0]
    known = {u.kernel: u for u in parse_res_usage(text, arch="sm_90")}
    assert known["statshared"].shared_bytes == 400


# --- KTT and CuPy ------------------------------------------------------------------------------------

def test_ktt_compilation_data_on_the_real_2080ti_file():
    from shared_data import dataset_path

    path = dataset_path("ktt/KTConvolutionOutput_2080Ti.json.gz")
    with gzip.open(path) as f:
        raw = json.loads(f.read())
    first = raw["Results"][0]["ComputationResults"][0]["CompilationData"]
    u = from_ktt(first, "Convolution")
    assert (u.registers, u.shared_bytes, u.local_bytes, u.source) == \
           (first["RegistersCount"], first["LocalMemorySize"], first["PrivateMemorySize"], "ktt")

    from starchart.io.ktt import read
    ds = read(path)
    res = ktt_resources(ds)
    assert list(res.columns) == ["registers", "shared_bytes", "local_bytes", "constant_bytes", "max_threads_per_block"]
    assert len(res) == len(ds.frame) == 6768 and res.index.equals(ds.frame.index)
    assert res.registers.iloc[0] == first["RegistersCount"] and res.shared_bytes.iloc[0] == first["LocalMemorySize"]
    assert res.registers.between(1, 255).all() and (res.shared_bytes <= 48 * 1024).all()
    with pytest.raises(InputError, match="RegistersCount"):
        ktt_resources(pd.DataFrame({"x": [1]}))


def test_cupy_attributes_dict():
    # The keys of cupy.RawKernel.attributes (CUDA's cudaFuncAttributes fields).
    attrs = {"max_threads_per_block": 1024, "shared_size_bytes": 2048, "const_size_bytes": 0,
             "local_size_bytes": 16, "num_regs": 30, "ptx_version": 75, "binary_version": 90,
             "cache_mode_ca": 0, "max_dynamic_shared_size_bytes": 48128, "preferred_shared_memory_carveout": -1}
    u = from_cupy(attrs, "matmul")
    assert (u.registers, u.shared_bytes, u.local_bytes, u.arch, u.source) == (30, 2048, 16, "sm_90", "cupy")
    with pytest.raises(InputError, match="num_regs"):
        from_cupy({"shared_size_bytes": 0})


# --- SASS parsing and counting on stored disassembly -------------------------------------------------

def test_sass_matmul_loops_trip_counts_and_regions():
    k = parse_sass(fixture("nvdisasm13.5_matmul_sm80_t16_w2_u4.sass"))["matmul"]
    loops = k.describe_loops()
    assert list(loops.depth) == [0, 1] and loops.line.tolist() == [41, 50]  # the two `for` lines of matmul.cu
    # Both trip counts are read from the SASS counters: N / TILE = 64 and TILE / UNROLL = 4.
    assert [infer_trip_count(k, lp) for lp in k.loops] == [64, 4]
    c = count_instructions(k)
    assert c.trips == {"loop0@line:41": 64.0, "loop1@line:50": 4.0} and not c.unannotated
    # Analytical truths of this kernel (N = 1024, TILE = 16, WPT = 2): one FFMA per output per k,
    # two barriers and one load-consuming instruction per tile step, as in Ryoo et al. Fig. 3.
    assert c.by_class["fp32"] == 1024 * 2
    assert c.barriers == 2 * 64 and c.load_consumers == 64 and c.regions == 3 * 64 + 1
    assert c.by_class["global_load"] == 4 * 64 and c.by_class["global_store"] == 2
    assert c.instructions == sum(c.by_class.values())


def test_sass_compiler_unrolled_loop_overrides_the_annotation():
    # TILE = 8, UNROLL = 8: the k loop is gone and the compiler unrolled the tile loop 2× on its own.
    k = parse_sass(fixture("nvdisasm13.5_matmul_sm86_t8_w1_u8.sass"))["matmul"]
    trips = source_trip_counts(MATMUL.read_text())
    assert trips == {"line:41": "N / TILE", "line:50": "TILE / UNROLL"}
    c = count_instructions(k, trips, config={"N": 1024, "TILE": 8, "UNROLL": 8})
    assert c.unused == ("line:50",)
    assert "annotated 128, the SASS counter gives 64" in c.notes[0]
    assert c.by_class["fp32"] == 1024 and c.barriers == 2 * 128
    # Without inference the annotation is trusted and everything in the loop doubles.
    naive = count_instructions(k, trips, config={"N": 1024, "TILE": 8, "UNROLL": 8}, infer=False)
    assert naive.by_class["fp32"] == 2048 and not naive.notes


def test_sass_cuobjdump_format_and_annotations_by_index():
    k = parse_sass(fixture("cuobjdump13.5_sass_matmul_sm75_t32_w1_u1.sass"))["matmul"]
    assert [lp.line for lp in k.loops] == [None, None]  # cuobjdump prints no source lines
    c = count_instructions(k, {0: 999, 1: 999}, infer=True)  # the counters win
    assert list(c.trips.values()) == [32.0, 32.0]
    assert c.by_class["fp32"] == 1024 and c.barriers == 64 and c.load_consumers == 32
    manual = count_instructions(k, {0: 32, "loop1": lambda cfg: cfg["TILE"]}, config={"TILE": 32}, infer=False)
    assert manual.instructions == c.instructions


def test_sass_prefetch_consumer_in_the_next_iteration():
    k = parse_sass(fixture("nvdisasm13.5_prefetch_sm80.sass"))["prefetch_sum"]
    (loop,) = k.loops
    assert infer_trip_count(k, loop) == 63
    _, consumer = blocking_instructions(k)
    waits = [(x.opcode, x.operands) for x, c in zip(k.instructions, consumer) if c]
    # The FFMA at the top of the loop reads R0, loaded at the end of the previous iteration (or before the loop);
    # the FADD after the loop reads the last prefetch.
    assert waits == [("FFMA", "R5, R0, R0, R5"), ("FADD", "R5, R0, R5")]
    c = count_instructions(k)
    assert c.load_consumers == 63 + 1 and c.barriers == 0 and c.by_class["global_load"] == 1 + 63


def test_sass_unreachable_padding_is_not_counted():
    k = parse_sass(fixture("nvdisasm13.5_prefetch_sm80.sass"))["prefetch_sum"]
    counted = [x.opcode for x, ok in zip(k.instructions, k.reachable) if ok]
    assert counted[-1] == "EXIT" and "NOP" not in counted
    assert "NOP" in [x.opcode for x in k.instructions]  # present, but after EXIT


def test_classes_and_bad_trip_counts():
    assert [classify(op) for op in ("LDS.128", "STG.E.64", "MUFU.RCP", "HMMA.16816.F32", "BAR.SYNC", "IMAD.WIDE",
                                    "LDL", "F2I.TRUNC")] == \
           ["shared_load", "global_store", "sfu", "tensor", "barrier", "integer", "local_load", "conversion"]
    k = parse_sass(fixture("nvdisasm13.5_prefetch_sm80.sass"))["prefetch_sum"]
    with pytest.raises(InputError, match="no configuration"):
        count_instructions(k, {0: lambda cfg: 3}, infer=False)
    with pytest.raises(InputError, match="not a number"):
        count_instructions(k, {0: "abc"}, infer=False, config={"abc": "x"})


# --- compiling every configuration (needs NVIDIA's compilers) ---------------------------------------

CONFIGS = pd.DataFrame([{"TILE": 16, "WPT": 1, "UNROLL": 1}, {"TILE": 16, "WPT": 4, "UNROLL": 4},
                        {"TILE": 32, "WPT": 2, "UNROLL": 32}, {"TILE": 8, "WPT": 1, "UNROLL": 8}],
                       index=[10, 11, 12, 13])


def test_compile_every_configuration_and_cache(tmp_path):
    toolchain_or_skip(80, disasm=True)
    rc = ResourceCompiler(MATMUL, "matmul", "8.0", cache_dir=tmp_path)
    out = rc.frame(CONFIGS, trip_counts="source", constants={"N": 1024})
    assert list(out.index) == [10, 11, 12, 13] and (out.status == "ok").all()
    # Shared memory is exactly the two TILE × TILE float tiles; registers are the compiler's.
    assert (out.shared_bytes == 2 * out.TILE ** 2 * 4).all()
    assert out.registers.between(16, 64).all() and (out.spill_stores == 0).all()
    # Instruction counts: N × WPT FFMAs per thread, 2 barriers and 1 load consumer per tile step,
    # whatever the compiler unrolled (row 13: a 2× unrolled tile loop; rows 12-13: no k loop left).
    assert (out.n_fp32 == 1024 * out.WPT).all()
    assert (out.barriers_executed == 2 * 1024 / out.TILE).all() and (out.load_consumers == 1024 / out.TILE).all()
    assert out.loc[13, "trip_notes"].startswith("loop0 (line:41): annotated 128")
    assert out.loc[12, "unused_trip_counts"] == "line:50"
    # A second pass reads the cache: no compiler or disassembler runs (each would fail here).
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("starchart.carve.resources.compile_source", _no_tools)
        patch.setattr("subprocess.run", _no_tools)
        patch.setattr("subprocess.Popen", _no_tools)
        again = rc.frame(CONFIGS)
    assert again.registers.tolist() == out.registers.tolist()


def _no_tools(*args, **kwargs):
    raise AssertionError(f"a cached configuration ran a tool: {str(args[0])[:80]}")


def test_only_parameter_columns_become_macros(tmp_path):
    toolchain_or_skip(80)
    from starchart.dataset import Dataset

    frame = pd.DataFrame({"TILE": [16, 32], "WPT": [1, 1], "UNROLL": [1, 1], "time": [1.0, 2.0]})
    rc = ResourceCompiler(MATMUL, "matmul", "8.0", cache_dir=tmp_path)
    out = rc.frame(frame, params=["TILE", "WPT", "UNROLL"])
    assert list(out.columns[:3]) == ["TILE", "WPT", "UNROLL"] and "time" not in out.columns
    assert out.shared_bytes.tolist() == [2048, 8192]
    ds = Dataset.from_frame(frame, params=["TILE", "WPT", "UNROLL"], metrics=["time"])
    assert rc.frame(ds).shared_bytes.tolist() == [2048, 8192]
    with pytest.raises(InputError, match="no column for parameter"):
        rc.frame(frame, params=["BLOCK"])


def test_compile_errors_are_results(tmp_path):
    toolchain_or_skip(80)
    rc = ResourceCompiler(MATMUL, "matmul", "8.0", cache_dir=tmp_path)
    bad = rc.compile({"TILE": 16, "WPT": 1, "UNROLL": "nonsense"})
    assert bad.status == "compile" and "nonsense" in bad.reason and bad.usage is None
    # Too much static shared memory for one block (2 × 128² floats = 128 KB > 48 KB): ptxas refuses.
    big = rc.compile({"TILE": 128, "WPT": 1, "UNROLL": 1})
    assert big.status == "compile" and "shared" in big.reason.lower()
    frame = rc.frame([{"TILE": 16, "WPT": 1, "UNROLL": "nonsense"}])
    assert frame.status.tolist() == ["compile"] and frame.registers.isna().all()


def test_every_compute_capability_compiles_without_a_gpu(tmp_path):
    tc = toolchain_or_skip(80)
    for cc, sm in (("7.0", 70), ("7.5", 75), ("9.0", 90)):
        if not (any(t.supports(sm) for t in tc.nvrtc) or tc.pick("nvcc", sm)):
            continue  # e.g. only CUDA 13 installed: no sm_70
        r = ResourceCompiler(MATMUL, "matmul", cc, cache_dir=tmp_path).compile({"TILE": 16, "WPT": 2, "UNROLL": 4})
        assert r.status == "ok" and r.usage.arch == f"sm_{sm}" and r.usage.shared_bytes == 2048


def test_nvcc_and_nvrtc_agree(tmp_path):
    tc = toolchain_or_skip(80)
    if not tc.pick("nvcc", 80) or not tc.nvrtc:
        pytest.skip("needs both nvcc and NVRTC")
    config = {"TILE": 32, "WPT": 2, "UNROLL": 4}
    a = ResourceCompiler(MATMUL, "matmul", "8.0", cache_dir=tmp_path, backend="nvcc").compile(config)
    b = ResourceCompiler(MATMUL, "matmul", "8.0", cache_dir=tmp_path, backend="nvrtc").compile(config)
    assert a.status == b.status == "ok" and a.tools != b.tools
    assert a.usage.shared_bytes == b.usage.shared_bytes == 8192
    assert abs(a.usage.registers - b.usage.registers) <= 8  # different compiler releases may allocate differently


def test_missing_tools_say_how_to_install(tmp_path):
    from starchart.carve.toolchain import Toolchain
    rc = ResourceCompiler(MATMUL, "matmul", "8.0", cache_dir=tmp_path, toolchain=Toolchain())
    with pytest.raises(StarchartError, match=r"\.\[carve\]"):
        rc.compile({"TILE": 16, "WPT": 1, "UNROLL": 1})
    with pytest.raises(InputError, match="no CUDA source file"):
        ResourceCompiler(tmp_path / "missing.cu", "k", "8.0")


def test_resource_usage_record_round_trip():
    u = ResourceUsage("k", 32, 1024, constant_bytes={0: 352, 2: 8}, notes=("x",))
    d = u.as_dict()
    assert (d["constant_bytes"], d["notes"], d["registers"]) == (360, "x", 32)


NAMED_BARRIERS = r"""
extern "C" __global__ void staged(float *a) {
    __shared__ float s[64];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
#if BARS > 1
    asm volatile("bar.sync %0, 64;" :: "n"(BARS - 1));
#endif
    a[threadIdx.x] = s[63 - threadIdx.x];
}
"""


def test_named_barriers_from_ptxas_limit_blocks_per_sm_from_hopper_on(tmp_path):
    # cuda_occupancy.h: from 9.0 on an SM has 2 barriers per resident-block slot (64 on 9.0), so 64-thread
    # blocks that use 4 named barriers fit 16 per SM, not 32; before 9.0 barriers do not limit occupancy.
    toolchain_or_skip(90)
    from starchart.carve import static_metrics

    source = tmp_path / "staged.cu"
    source.write_text(NAMED_BARRIERS)
    configs = pd.DataFrame({"BARS": [1, 4]})
    rows = {}
    for cc in ("8.6", "9.0"):
        out = ResourceCompiler(source, "staged", cc, cache_dir=tmp_path / "cache").frame(configs)
        assert (out.status == "ok").all(), out.reason.tolist()
        assert out.barriers.tolist() == [1, 4]  # ptxas: "used N barriers"
        out["instructions"], out["regions"] = 10, 2
        rows[cc] = static_metrics(out, cc, threads_per_block=64, threads=64 * 1024)
    assert rows["9.0"].blocks_per_sm.tolist() == [32, 16] and rows["9.0"].limiter.tolist()[1] == "barriers"
    assert rows["8.6"].blocks_per_sm.tolist() == [16, 16]  # the 16-block limit, barriers or not


def test_a_value_that_is_c_code_is_refused_before_compiling(tmp_path):
    """Each value is compiled into the kernel: C code from a space or dataset must not reach the compiler."""
    payload = '({extern int system(const char*); system("touch /tmp/x"); 8;})'
    rc = ResourceCompiler(MATMUL, "matmul", "8.0", cache_dir=tmp_path / "cache")
    configs = [{"TILE": 16, "WPT": 1, "UNROLL": 1}, {"TILE": 16, "WPT": 1, "UNROLL": payload}]
    with pytest.raises(InputError, match="parameter 'UNROLL' has the value .* not a C literal") as info:
        rc.compile_all(configs)
    assert "raw_defines" in info.value.hint and not (tmp_path / "cache").exists()  # nothing compiled, not even row 0
    with pytest.raises(InputError, match="'UNROLL'"):
        rc.compile(configs[1])
    raw = ResourceCompiler(MATMUL, "matmul", "8.0", cache_dir=tmp_path / "cache", raw_defines=True)
    assert raw._options(configs[1])[-1] == f"-DUNROLL={payload}"  # the opt-in hands it over as it is
