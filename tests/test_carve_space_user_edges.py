"""Optimization carving and tuning spaces used the way a GPU performance engineer uses them: odd but
legitimate inputs, and the errors a wrong one must get (naming the file, option or parameter)."""

from __future__ import annotations

import pandas as pd
import pytest
from shared_data import dataset_path
from typer.testing import CliRunner

from starchart.carve import static
from starchart.carve.carving import carve
from starchart.carve.resources import ResourceCompiler
from starchart.cli import app
from starchart.errors import InputError, SpaceError
from starchart.space import Space

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


class _FakeCompiler:
    """Stands in for :class:`ResourceCompiler` (no CUDA toolchain needed): every configuration compiles,
    with the options it would be compiled with recorded."""

    seen_options: tuple[str, ...] = ()

    def __init__(self, source, kernel, cc, *, jobs=1, options=()):
        _FakeCompiler.seen_options = tuple(options)
        self.name = str(source)

    def frame(self, configs, *, params, trip_counts, constants, progress=False):
        return configs.assign(registers=32, shared_bytes=0, instructions=100.0 * configs[params[0]],
                              regions=10.0, status="ok", reason="")


@pytest.fixture
def fake_compiler(monkeypatch):
    monkeypatch.setattr(static, "ResourceCompiler", _FakeCompiler)
    return _FakeCompiler


# --- carve: -D constants -------------------------------------------------------------------------------

def test_a_constant_that_is_also_a_parameter_is_refused(fake_compiler):
    """Before: -D TILE=8 with TILE in the space compiled every configuration with TILE=8 (the later -D wins)
    while the metrics used each configuration's TILE: silently wrong resources, no error."""
    space = Space({"TILE": [8, 16, 32]})
    with pytest.raises(InputError, match="'TILE' are also parameters of the space") as info:
        static.carve_source("k.cu", "k", space, "8.0", threads_per_block="TILE", threads=1024,
                            constants={"TILE": 8, "N": 1024})
    assert info.value.where == "constants"


def test_the_launch_expressions_may_use_the_constants(fake_compiler):
    """Before: --threads 'N * N // WPT' with -D N=1024 (carve_source's own docstring example) failed with
    "unknown column 'N'"; the constants are now visible to the launch expressions (and not left as columns)."""
    space = Space({"TILE": [8, 16], "WPT": [1, 2]})
    result = static.carve_source("k.cu", "k", space, "8.0", threads_per_block="TILE * TILE // WPT",
                                 threads="N * N // WPT", constants={"N": 64})
    frame = result.frame.sort_values(["TILE", "WPT"])
    assert frame["threads"].tolist() == [64 * 64, 64 * 64 // 2, 64 * 64, 64 * 64 // 2]
    assert "N" not in result.frame.columns
    assert "-DN=64" in fake_compiler.seen_options


def test_a_space_whose_restrictions_exclude_everything_is_named(fake_compiler):
    """Before: a traceback (KeyError: 'registers') from deep in the resource table."""
    space = Space({"BX": [32, 64]}, ["BX > 100"])
    with pytest.raises(InputError, match="no valid configuration") as info:
        static.carve_source("k.cu", "k", space, "8.0", threads_per_block="BX", threads="BX")
    assert info.value.where == "space"


def test_cli_carve_names_the_space_file_and_the_options(tmp_path, fake_compiler):
    source = tmp_path / "k.cu"
    source.write_text('extern "C" __global__ void k(float *a) { a[threadIdx.x] = BX; }\n')
    empty = tmp_path / "empty.yaml"
    empty.write_text("parameters:\n  BX: [32, 64]\nrestrictions:\n  - BX > 100\n")
    base = ("carve", source, "--kernel", "k", "--cc", "8.0", "--threads-per-block", "BX", "--threads", "BX")
    result = invoke(*base, "--space", empty)
    assert result.exit_code == 2, result.output
    assert f"error: {empty}: the space has no valid configuration" in result.output
    space = tmp_path / "space.yaml"
    space.write_text("parameters:\n  BX: [32, 64]\n")
    result = invoke(*base, "--space", space, "-D", "BX=64")
    assert result.exit_code == 2 and "error: -D: the constant(s) 'BX'" in result.output, result.output
    result = invoke(*base[:4], "--cc", "12.5", *base[6:], "--space", space)
    assert result.exit_code == 2 and "error: --cc: unknown compute capability '12.5'" in result.output


# --- carve: predicates and launch expressions -------------------------------------------------------------

def test_an_assignment_as_a_predicate_is_an_error_not_a_traceback():
    """Before: -p 'BX = 64' (= for ==) crashed with "Cannot construct a Series from a DataFrame"."""
    df = pd.DataFrame({"BX": [32, 64], "efficiency": [1.0, 2.0], "utilization": [2.0, 1.0]})
    with pytest.raises(InputError, match="is an assignment") as info:
        carve(df, predicates=["BX = 64"])
    assert "write == to compare" in info.value.hint and info.value.where == "predicate"


def test_cli_carve_assignment_predicate_and_infinite_within_on_ktt_data():
    data = dataset_path("ktt/KTConvolutionOutput_2080Ti.json.gz")
    result = invoke("carve", data, "--cc", "7.5", "-p", "BLOCK_SIZE_X = 32")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "error: --predicate: predicate 'BLOCK_SIZE_X = 32' is an assignment" in result.output
    result = invoke("carve", data, "--cc", "7.5", "--within", "inf")
    assert result.exit_code == 2, result.output
    assert "error: --within: within must be a finite distance" in result.output


def test_cli_carve_predicate_that_calls_pandas_is_refused_not_run(tmp_path):
    """Before: --predicate went to DataFrame.eval(engine="python"): this one wrote the file."""
    path = tmp_path / "x.csv"
    data = dataset_path("ktt/KTConvolutionOutput_2080Ti.json.gz")
    result = invoke("carve", data, "--cc", "7.5", "-p", f"BLOCK_SIZE_X.to_csv('{path}') == 0")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "error: --predicate: predicate" in result.output and "is not allowed" in result.output
    assert not path.exists()


def test_an_empty_configuration_table_gives_an_empty_resource_table():
    """Before: ResourceCompiler.frame of no configurations raised KeyError: 'registers'."""
    compiler = ResourceCompiler('extern "C" __global__ void k(float *a) { a[0] = N; }', "k", "8.0",
                                cache_dir=False)
    out = compiler.frame(pd.DataFrame({"N": []}))
    assert out.empty and {"registers", "shared_bytes", "status", "reason"} <= set(out.columns)


# --- spaces ----------------------------------------------------------------------------------------------

def test_a_restriction_failing_on_the_values_names_the_file(tmp_path):
    """Before: the error came later (from whatever first counted the space), without the file, and with a hint
    about Python callables for a restriction string."""
    path = tmp_path / "space.yaml"
    path.write_text("parameters:\n  x: [1, 2]\n  s: [a, b]\nrestrictions:\n  - s + 1 > 0\n")
    with pytest.raises(SpaceError) as info:
        Space.from_file(path)
    assert str(path) in info.value.where and "s + 1 > 0" in info.value.where
    assert "string parameter in arithmetic" in info.value.hint and "callable" not in info.value.hint
    result = invoke("space", path)
    assert result.exit_code == 2 and f"error: {path}, restriction 's + 1 > 0'" in result.output, result.output


def test_a_bad_restriction_on_a_kernel_tuner_cache_names_the_file():
    """Before: "error: Kernel Tuner cache, restriction ..." without the file's name."""
    cache = dataset_path("gemm/RTX_3090.json.gz")
    result = invoke("space", cache, "-r", "KWG % nonexistent == 0")
    assert result.exit_code == 2, result.output
    assert f"error: {cache}, restriction 'KWG % nonexistent == 0': unknown name 'nonexistent'" in result.output


def test_a_tiny_valid_share_of_a_huge_space_is_not_shown_as_zero(tmp_path):
    """Before: 532,005,871 valid of 11e12 Cartesian configurations showed "(0.0%)"."""
    path = tmp_path / "huge.yaml"
    path.write_text("parameters:\n  a: {range: [1, 1000]}\n  b: {range: [1, 1000]}\n  c: {range: [1, 1000]}\n"
                    "  d: {range: [1, 1000]}\n  e: {powers_of_two: [1, 1024]}\n"
                    "restrictions:\n  - a * b <= 1000\n  - c % d == 0\n  - a + e > 3\n")
    space = Space.from_file(path)
    powers = [2**k for k in range(11)]
    brute = (sum(1000 // d for d in range(1, 1001))
             * sum((1000 // a) * sum(1 for e in powers if a + e > 3) for a in range(1, 1001)))
    assert space.size() == brute == 532_005_871
    assert "valid configurations:     532,005,871 (0.0048%)" in space.describe()
    assert "(>99.9%)" in Space({"x": range(10_000)}, "x != 5").describe()


def test_a_space_too_big_to_compile_says_so_in_the_command_line_s_words(fake_compiler):
    """Before: "over the limit of 10,000,000 for to_frame() (hint: iterate with enumerate(chunk_size=...)": the
    Python API's advice, to someone who typed `starchart carve`."""
    space = Space({"a": range(5000), "b": range(5000)})
    with pytest.raises(InputError, match=r"25,000,000 \(exact\) valid configurations, too many to compile") as info:
        static.carve_source("k.cu", "k", space, "8.0", threads_per_block="a + 1", threads=1024)
    assert info.value.where == "space" and "to_frame" not in str(info.value)


def test_loops_without_a_trip_count_are_not_counted_once_silently(monkeypatch):
    """Before: a loop over a runtime bound (no `// trips:` comment) counted as one trip, with no word to the
    user; the metrics then compare configurations on that guess."""
    class Unannotated(_FakeCompiler):
        def frame(self, configs, **kwargs):
            return super().frame(configs, **kwargs).assign(unannotated_loops="loop0")

    monkeypatch.setattr(static, "ResourceCompiler", Unannotated)
    with pytest.warns(UserWarning, match=r"2 of 2 configurations have loops whose trip count .* \(loop0 in the "
                                         r"first\).*'// trips: EXPR'"):
        static.carve_source("k.cu", "k", Space({"BX": [32, 64]}), "8.0", threads_per_block="BX", threads=4096)


def test_the_chance_a_random_sample_holds_the_optimum_counts_ties():
    """Before: always carved_size / N, which ignores optima tied in value (integer cycle counts tie often):
    with 2 of 6 configurations at the best, 2 random draws hold one with probability 9/15, not 2/6."""
    from itertools import combinations

    from starchart.carve.sampling import random_sampling_table

    cycles = [100, 100, 120, 130, 130, 150]
    subsets = list(combinations(cycles, 2))
    brute = sum(min(s) == 100 for s in subsets) / len(subsets)
    assert random_sampling_table(cycles, 2)["random_p_best"] == pytest.approx(brute) == pytest.approx(9 / 15)
    assert random_sampling_table([1.0, 2.0, 3.0, 4.0], 2)["random_p_best"] == pytest.approx(0.5)


# --- Blackwell: occupancy and SASS ----------------------------------------------------------------------

# The shape of sm_120 SASS (nvdisasm -g of examples/carve/matmul.cu, ptxas 12.9): the inner loop branches on
# a uniform predicate given as an operand, and its branch carries the body's line while the `for` line (50)
# is on the instruction that sets the predicate.
BLACKWELL_SASS = """
.text.k:
        /*0000*/                   S2R R0, SR_TID.X ;
.L_x_1:
\t//## File "k.cu", line 43
        /*0010*/                   LDG.E R2, [R4.64] ;
        /*0020*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
.L_x_0:
\t//## File "k.cu", line 50
        /*0030*/                   UIADD3 UR4, UPT, UPT, UR4, 0x4, URZ ;
        /*0040*/                   UISETP.NE.AND UP0, UPT, UR4, 0x10, UPT ;
\t//## File "k.cu", line 52
        /*0050*/                   LDS R26, [R30+-0x80] ;
        /*0060*/                   FFMA R4, R26, R4, R17 ;
        /*0070*/                   BRA.U UP0, `(.L_x_0) ;
\t//## File "k.cu", line 54
        /*0080*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
\t//## File "k.cu", line 41
        /*0090*/               @P0 BRA `(.L_x_1) ;
\t//## File "k.cu", line 57
        /*00a0*/                   EXIT ;
.L_x_2:
        /*00b0*/                   BRA `(.L_x_2);"""


def test_a_branch_on_a_uniform_predicate_operand_is_conditional():
    """Before: `BRA.U UP0, target` (sm_100/sm_120) was read as an unconditional jump: what follows the inner
    loop was unreachable, the outer loop was lost and both `// trips:` annotations went unused, so every
    loop counted once (matmul at sm_120: 70 instructions per thread instead of about 6800)."""
    from starchart.carve.sass import count_instructions, parse_sass

    kernel = parse_sass(BLACKWELL_SASS)["k"]
    assert all(kernel.reachable[:-1])  # all but the trailing self-loop
    assert [(lp.start, lp.end) for lp in kernel.loops] == [(0x10, 0x90), (0x30, 0x70)]
    counts = count_instructions(kernel, {"line:41": 8, "line:50": 4})
    assert counts.unannotated == () and counts.unused == ()
    # outer body: 2 + inner (5 per trip × 4) + 2 = 24 per trip, × 8 trips, + S2R and EXIT
    assert counts.instructions == 1 + 8 * (2 + 4 * 5 + 2) + 1


def test_blackwell_compute_capabilities_are_known():
    """Before: --cc 10.0 (B200) and 12.0 (RTX 50xx) were unknown, though CUDA 13 compiles only for 7.5 and up."""
    from starchart.carve.occupancy import device_limits, occupancy

    b200, rtx = device_limits("sm_100"), device_limits(120)
    assert (b200.max_blocks_per_sm, b200.max_warps_per_sm, b200.shared_per_sm) == (32, 64, 228 * 1024)
    assert (rtx.max_blocks_per_sm, rtx.max_warps_per_sm, rtx.shared_per_sm) == (24, 48, 100 * 1024)
    assert occupancy("12.0", 32, 32, 0).blocks_per_sm == 24  # the block limit, not 8.6's 16
    assert occupancy("12.0", 256, 32, 0, dynamic_shared_bytes=99 * 1024, opt_in=True).blocks_per_sm == 1
    assert not occupancy("12.0", 256, 32, 0, dynamic_shared_bytes=99 * 1024 + 1, opt_in=True).valid
