"""CudaEvaluator: pure helpers, the measuring logic against a numpy stand-in for the GPU, the clear error
without CuPy, and (where CuPy and a GPU exist) real kernels."""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np
import pytest

from starchart.errors import InputError, StarchartError
from starchart.measure import cuda
from starchart.measure.base import Measurement
from starchart.measure.cuda import (
    VECTOR_ADD,
    CudaEvaluator,
    check_answer,
    check_arguments,
    classify_cuda_error,
    compare_outputs,
    describe_arguments,
    explain_launch_error,
    import_cupy,
    power_and_energy,
    read_source,
    sustained_launches,
)
from starchart.measure.power import PowerTrace
from starchart.space import Space

N = 1000


def vector_args(n=N):
    rng = np.random.default_rng(1)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    return [np.zeros(n, np.float32), a, b, np.int32(n)], a + b


# ------------------------------------------------------------------ pure helpers
def test_check_arguments():
    args = check_arguments([np.zeros((4, 4), np.float64)[:, ::2], np.float32(1.5), np.array(3, np.int32)])
    assert args[0].flags.c_contiguous and args[0].shape == (4, 2)
    with pytest.raises(InputError, match="plain Python float"):
        check_arguments([np.zeros(2), 1.5])
    with pytest.raises(InputError, match="cannot pass a list"):
        check_arguments([[1, 2]])
    with pytest.raises(InputError, match="must be a list"):
        check_arguments(np.zeros(3))
    with pytest.raises(InputError, match="arguments\\[0\\]"):
        check_arguments([np.array(["a"])])


def test_describe_arguments_is_json():
    described = describe_arguments(check_arguments([np.zeros((2, 3), np.float32), np.int32(7), np.float64(0.25)]))
    assert json.loads(json.dumps(described)) == [
        {"kind": "array", "dtype": "float32", "shape": [2, 3]},
        {"kind": "scalar", "dtype": "int32", "value": 7},
        {"kind": "scalar", "dtype": "float64", "value": 0.25}]


def test_check_answer():
    args, expected = vector_args()
    assert check_answer(args, None) is None
    checked = check_answer(args, [expected, None, None, None])
    assert checked[1:] == [None, None, None]
    np.testing.assert_array_equal(checked[0], expected)  # the expected output itself, as an array
    assert check_answer(args, [expected.tolist(), None, None, None])[0].tolist() == expected.tolist()
    with pytest.raises(InputError, match="3 entries for 4"):
        check_answer(args, [expected, None, None])
    with pytest.raises(InputError, match="passed by value"):
        check_answer(args, [None, None, None, 5])
    with pytest.raises(InputError, match="values expected"):
        check_answer(args, [expected[:10], None, None, None])
    with pytest.raises(InputError, match="one entry per argument"):
        check_answer(args, expected)


def test_compare_outputs():
    want = np.array([1.0, 2.0, np.nan], np.float32)
    assert compare_outputs([want.copy()], [want]) is None  # NaN matches NaN
    assert compare_outputs([want * (1 + 5e-7)], [want], rtol=1e-6) is None
    reason = compare_outputs([np.array([1.0, 2.5, np.nan])], [want], rtol=1e-6, atol=0)
    assert reason.startswith("argument 0: 1 of 3 values differ (first at index 1: got 2.5, expected 2")
    assert "largest difference 0.5" in reason
    assert "differ" in compare_outputs([np.array([1.0, 2.0, 3.0])], [want])  # NaN expected, number got
    assert compare_outputs([np.array([1, 2, 3])], [np.array([1, 2, 4])]).startswith("argument 0: 1 of 3")
    assert compare_outputs([np.arange(6).reshape(2, 3)], [np.arange(6)]) is None  # flattened, like Kernel Tuner
    assert "no output" in compare_outputs([None], [np.zeros(2)])
    assert "2 values" in compare_outputs([np.zeros(2)], [np.zeros(3)])
    assert compare_outputs([None, np.zeros(2)], [None, np.zeros(2)]) is None


def test_classify_and_explain_errors():
    assert classify_cuda_error(RuntimeError("CUDA_ERROR_INVALID_VALUE: invalid argument"))[1] is False
    assert classify_cuda_error("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: too many resources requested for launch")[1] \
        is False
    for fatal in ("CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered",
                  "cudaErrorLaunchFailure: unspecified launch failure", "CUDA_ERROR_ASSERT: device-side assert",
                  "CUDA_ERROR_MISALIGNED_ADDRESS: misaligned address"):
        assert classify_cuda_error(fatal)[1], fatal
    text = explain_launch_error("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: too many resources requested for launch",
                                (4, 1, 1), (1024, 1, 1))
    assert "registers or shared memory" in text
    assert "65535" in explain_launch_error("CUDA_ERROR_INVALID_VALUE", (1, 70000, 1), (32, 1, 1))
    assert "positive" in explain_launch_error("CUDA_ERROR_INVALID_VALUE", (0, 1, 1), (32, 1, 1))
    assert explain_launch_error("x", (1, 1, 1), (32, 1, 1)) == "x"


def test_sustained_launches():
    assert sustained_launches(1.0, 0.001) == 1_000_000
    assert sustained_launches(2.0, 0.5) == 4000
    assert sustained_launches(1.0, float("nan")) == 1_000_000
    assert sustained_launches(1.0, 10.0, limit=50) == 50


def test_power_and_energy():
    t = np.linspace(0.0, 2.0, 201)
    trace = PowerTrace(times_s=t, watts=np.where(t < 1.0, 80.0, 400.0))
    result = power_and_energy(trace, launches=2000, gpu_time_s=0.9, window=(1.0, 2.0))
    assert result["power"] == pytest.approx(400.0)
    assert result["energy"] == pytest.approx(400.0 * 0.9 / 2000)
    counted = PowerTrace(times_s=t, watts=np.full_like(t, 1.0), counter_start_mj=0, counter_end_mj=700_000,
                         counter_start_s=0.0, counter_end_s=2.0)
    assert power_and_energy(counted, launches=10, gpu_time_s=1.0, window=(0.5, 1.5)) == {
        "power": 350.0, "energy": 35.0}
    with pytest.raises(ValueError, match="need at least one launch and a positive run time, got 0 and 1.0"):
        power_and_energy(trace, launches=0, gpu_time_s=1.0)


def test_read_source(tmp_path):
    path = tmp_path / "add.cu"
    path.write_text(VECTOR_ADD)
    assert read_source(path) == (VECTOR_ADD, str(path))
    assert read_source(str(path)) == (VECTOR_ADD, str(path))
    with pytest.raises(InputError, match="kernel source file .*missing.cu' not found"):
        read_source(str(tmp_path / "missing.cu"))  # a file name, not code that mentions no kernel
    assert read_source('extern "C" __global__ void k(float *x) { x[0] = 1; } // k.cu')[1] is None  # code
    with pytest.raises(InputError, match="empty"):
        read_source("   ")
    with pytest.raises(InputError, match="cannot read"):
        read_source(tmp_path / "missing.cu")
    with pytest.raises(InputError, match="must be code or a file path, got int"):
        read_source(42)  # type: ignore[arg-type]


def test_constructor_checks():
    args, expected = vector_args()
    base = dict(problem_size=N)
    with pytest.raises(InputError, match="kernel 'vector_sub'"):
        CudaEvaluator(VECTOR_ADD, "vector_sub", args, **base)
    with pytest.raises(InputError, match="not both"):
        CudaEvaluator(VECTOR_ADD, "vector_add", args, answer=[expected, None, None, None],
                      reference=lambda c, a: a, **base)
    with pytest.raises(InputError, match="callable"):
        CudaEvaluator(VECTOR_ADD, "vector_add", args, reference=[1], **base)
    for bad, message in ((dict(repeats=0), r"repeats: must be an integer ≥ 1, got 0"),
                         (dict(warmup=-1), r"warmup: must be an integer ≥ 0, got -1"),
                         (dict(rtol=-1.0), r"rtol: must be a number >= 0, got -1.0"),
                         (dict(device=-1), r"device: must be an integer ≥ 0, got -1"),
                         (dict(power_duration_s=0), r"power_duration_s: must be positive, got 0"),
                         (dict(smem_args={"size": lambda p: 4}), r"smem_args: the size must be an int or an expression"),
                         (dict(smem_args=[4]), r"smem_args: must be a dict with a 'size', got \[4\]"),
                         (dict(defines=["X"]), r"defines: defines must be a dict or None, got list"),
                         (dict(grid_div_x=lambda p: 2), r"grid_div_x: expected None, a parameter name, an expression")):
        with pytest.raises(InputError, match=message):
            CudaEvaluator(VECTOR_ADD, "vector_add", args, **base, **bad)
    evaluator = CudaEvaluator(VECTOR_ADD, "vector_add", args, power=True, **base)
    assert evaluator.metrics == ("time", "power", "energy") and evaluator.objective == "time"
    assert evaluator.device_info == {}


# ----------------------------------------------------- the logic, with a numpy GPU
class FakeCompileError(Exception):
    pass


class FakeKernel:
    """vector_add in numpy; the macros choose misbehaviours."""

    def __init__(self, macros):
        self.macros = macros
        self.num_regs = 16
        self.max_dynamic_shared_size_bytes = 48 * 1024

    def __call__(self, session, grid, block, shared_mem):
        threads = grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2]
        if block[0] * block[1] * block[2] > 1024:
            raise RuntimeError("CUDA_ERROR_INVALID_VALUE: invalid argument")
        if self.macros.get("crash") == "1":
            raise RuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered")
        c, a, b, n = session.buffers
        covered = min(int(n), threads)
        if self.macros.get("accumulate") == "1":
            c[:covered] += a[:covered] + b[:covered]  # wrong unless c starts at zero: needs a reset
        elif self.macros.get("wrong") == "1":
            c[:covered] = a[:covered] - b[:covered]
        else:
            c[:covered] = a[:covered] + b[:covered]
        session.launches += 1


class FakeSession:
    """Stands in for _CudaSession: numpy buffers, a 'compiler' reading -D options."""

    instances: list[FakeSession] = []

    def __init__(self, device, arguments):
        self.pristine = [a.copy() if isinstance(a, np.ndarray) else None for a in arguments]
        self.buffers = [a.copy() if isinstance(a, np.ndarray) else a for a in arguments]
        self.info = {"index": device, "name": "Fake GPU", "pci_bus_id": "0000:01:00.0"}
        self.compiles = []
        self.launches = 0
        self.resets = 0
        self.closed = False
        FakeSession.instances.append(self)

    def compile(self, code, kernel_name, options):
        self.compiles.append(list(options))
        macros = dict(option[2:].split("=", 1) for option in options if option.startswith("-D"))
        if macros.get("broken") == "1":
            raise FakeCompileError('kern.cu(4): error: identifier "oops" is undefined\n1 error detected')
        return FakeKernel(macros)

    registers = staticmethod(lambda kernel: kernel.num_regs)

    @staticmethod
    def allow_shared_memory(kernel, shared_mem):
        kernel.max_dynamic_shared_size_bytes = max(kernel.max_dynamic_shared_size_bytes, shared_mem)

    def reset(self):
        self.resets += 1
        for buffer, pristine in zip(self.buffers, self.pristine):
            if pristine is not None:
                buffer[...] = pristine

    def launch(self, kernel, grid, block, shared_mem):
        kernel(self, grid, block, shared_mem)

    def synchronize(self):
        pass

    def fetch(self, indices):
        return {i: self.buffers[i].copy() for i in indices}

    def time_launches(self, kernel, grid, block, shared_mem, repeats):
        out = []
        for _ in range(repeats):
            kernel(self, grid, block, shared_mem)
            out.append(0.001 * block[0])  # "milliseconds": larger blocks slower, so results differ
        return out

    def sustained(self, kernel, grid, block, shared_mem, launches, sampler):
        for _ in range(3):
            kernel(self, grid, block, shared_mem)
        trace = PowerTrace(times_s=np.array([0.0, 0.5, 1.0]), watts=np.array([300.0, 300.0, 300.0]))
        return launches * 0.001 * block[0] / 1000, trace, (0.0, 1.0)

    def close(self):
        self.closed = True


class FakeSampler:
    def __init__(self, device, pci_bus_id=None):
        self.device, self.pci_bus_id = device, pci_bus_id
        self.closed = False

    def open(self):
        return self

    def read_power(self):
        return 100.0

    def close(self):
        self.closed = True


@pytest.fixture
def fake_gpu(monkeypatch):
    FakeSession.instances = []
    monkeypatch.setattr(cuda, "_CudaSession", FakeSession)
    monkeypatch.setattr(cuda, "NvmlPowerSampler", FakeSampler)
    return FakeSession.instances


def make(**kwargs):
    args, expected = vector_args()
    kwargs.setdefault("answer", [expected, None, None, None])
    return CudaEvaluator(VECTOR_ADD, "vector_add", args, problem_size=N, repeats=3, **kwargs)


SPACE = Space({"block_size_x": [32, 64, 2048], "wrong": [0, 1], "broken": [0, 1], "crash": [0, 1],
               "accumulate": [0, 1]})


def config(**overrides):
    base = {"block_size_x": 64, "wrong": 0, "broken": 0, "crash": 0, "accumulate": 0}
    base.update(overrides)
    return base


def test_ok_measurement_and_compile_cache(fake_gpu):
    evaluator = make()
    evaluator.prepare(SPACE)
    first = evaluator.evaluate(config())
    assert first.ok, first.reason
    assert first.values["time"] == pytest.approx([0.064] * 3)
    assert first.extra["grid"] == [16, 1, 1] and first.extra["block"] == [64, 1, 1]
    assert first.extra["registers"] == 16 and first.extra["shared_mem"] == 0
    assert first.compile_s >= 0.0 and first.run_s >= 0.0
    session = fake_gpu[0]
    assert len(session.compiles) == 1
    options = session.compiles[0]
    assert "-Dblock_size_x=64" in options and "-Dgrid_size_x=16" in options and "-Dkernel_tuner=1" in options
    again = evaluator.evaluate(config())
    assert again.ok and again.compile_s == 0.0 and len(session.compiles) == 1  # cached
    other = evaluator.evaluate(config(block_size_x=32))
    assert other.ok and len(session.compiles) == 2 and other.extra["grid"] == [32, 1, 1]
    assert evaluator.device_info["name"] == "Fake GPU"
    evaluator.close()
    assert session.closed and evaluator.device_info == {}


def test_inputs_are_restored_for_every_configuration(fake_gpu):
    """An accumulating kernel is only right on fresh inputs: the check must see reset buffers every time."""
    args, expected = vector_args()
    evaluator = make()
    for _ in range(3):
        result = evaluator.evaluate(config(accumulate=1))
        assert result.ok, result.reason
    session = fake_gpu[0]
    assert session.resets == 6  # before the check and before the timing, per configuration
    np.testing.assert_array_equal(args[0], np.zeros(N, np.float32))  # the user's arrays are untouched


def test_warmup_launches(fake_gpu):
    evaluator = make(warmup=4, answer=None)
    evaluator.evaluate(config())
    assert fake_gpu[0].launches == 4 + 3


def test_wrong_answer(fake_gpu):
    result = make().evaluate(config(wrong=1))
    assert result.status == "wrong-answer"
    assert result.reason.startswith("argument 0:") and "values differ" in result.reason
    assert result.values == {}


def test_answer_checks_only_covered_elements(fake_gpu):
    """Too small a grid leaves outputs unwritten: a wrong answer, found by the check."""
    evaluator = make(grid_div_x=["block_size_x", 2])
    assert evaluator.evaluate(config()).status == "wrong-answer"


def test_compile_error_is_recorded_with_the_log(fake_gpu):
    evaluator = make()
    result = evaluator.evaluate(config(broken=1))
    assert result.status == "compile"
    assert 'identifier "oops" is undefined' in result.reason
    assert "FakeCompileError" in result.extra["compiler_log"]
    again = evaluator.evaluate(config(broken=1))
    assert again.status == "compile" and len(fake_gpu[0].compiles) == 1


def test_launch_error_is_a_runtime_failure(fake_gpu):
    evaluator = make()
    result = evaluator.evaluate(config(block_size_x=2048))
    assert result.status == "runtime"
    assert "CUDA_ERROR_INVALID_VALUE" in result.reason and "at most 1024" in result.reason
    assert evaluator.evaluate(config()).ok  # not fatal: the next configuration runs


def test_fatal_error_stops_later_configurations(fake_gpu):
    evaluator = make()
    result = evaluator.evaluate(config(crash=1))
    assert result.status == "runtime" and "illegal memory access" in result.reason and result.extra["fatal"]
    with pytest.raises(StarchartError, match="restart the process"):  # not stored: a resumed run measures it
        evaluator.evaluate(config())


def test_reference_callable(fake_gpu):
    seen = []

    def reference(cfg, arguments):
        seen.append(cfg["block_size_x"])
        assert not arguments[1].flags.writeable  # read-only views of the inputs
        return [arguments[1] + arguments[2], None, None, None]

    evaluator = make(answer=None, reference=reference)
    assert evaluator.evaluate(config()).ok
    assert evaluator.evaluate(config(wrong=1)).status == "wrong-answer"
    assert seen == [64, 64]
    broken = make(answer=None, reference=lambda cfg, arguments: [None])
    failed = broken.evaluate(config())
    assert failed.status == "runtime" and "reference" in failed.reason


def test_no_check_without_answer(fake_gpu):
    assert make(answer=None).evaluate(config(wrong=1)).ok


def test_geometry_errors_are_recorded_and_checked_in_prepare(fake_gpu):
    evaluator = make(grid_div_x="block_size_x * tile")
    with pytest.raises(InputError, match="'tile'"):
        evaluator.prepare(SPACE)
    result = evaluator.evaluate(config())
    assert result.status == "runtime" and "tile" in result.reason
    with pytest.raises(InputError, match="smem_args"):
        make(smem_args={"size": "tile * 4"}).prepare(SPACE)


def test_prepare_refuses_parameters_that_cannot_be_macros(fake_gpu):
    with pytest.raises(InputError, match="macros"):
        make().prepare(Space({"block_size_x": [32], "bad-name": [1]}))
    make(defines={"N": 1}).prepare(Space({"block_size_x": [32], "bad-name": [1]}))


def test_shared_memory_and_defines(fake_gpu):
    evaluator = make(smem_args={"size": "block_size_x * 1024"}, defines={"BLOCK": "block_size_x"},
                     compiler_options=["--use_fast_math"])
    result = evaluator.evaluate(config())
    assert result.ok and result.extra["shared_mem"] == 65536
    assert fake_gpu[0].compiles[0] == ["--use_fast_math", "-DBLOCK=64"]


def test_source_file_adds_include_folder(fake_gpu, tmp_path):
    path = tmp_path / "add.cu"
    path.write_text(VECTOR_ADD)
    args, expected = vector_args()
    evaluator = CudaEvaluator(path, "vector_add", args, problem_size=N)
    assert evaluator.evaluate(config()).ok
    assert f"-I{tmp_path.resolve()}" in fake_gpu[0].compiles[0]


def test_power_metrics(fake_gpu):
    evaluator = make(power=True, power_duration_s=0.5)
    evaluator.prepare(SPACE)
    result = evaluator.evaluate(config())
    assert result.ok, result.reason
    assert set(result.values) == {"time", "power", "energy"}
    assert result.values["power"] == [300.0]
    assert result.values["energy"] == [pytest.approx(300.0 * 0.064e-3)]  # W x mean kernel seconds
    assert result.extra["power_launches"] == sustained_launches(0.5, 0.064)
    assert result.extra["power_method"] == "samples" and result.extra["power_duty"] > 0
    sampler = evaluator._sampler
    assert sampler.pci_bus_id == "0000:01:00.0"
    evaluator.close()
    assert sampler.closed


def test_describe_and_rebuild(fake_gpu):
    args, expected = vector_args()
    evaluator = make(grid_div_x=["block_size_x"], defines={"BLOCK": "block_size_x", "F": lambda c: 1},
                     smem_args={"size": 128}, compiler_options=["-O3"])
    description = evaluator.describe()
    assert json.loads(json.dumps(description)) == description
    assert description["kind"] == "cuda" and description["answer"] is True
    assert description["defines"]["F"] == {"callable": "test_describe_and_rebuild.<locals>.<lambda>"}
    with pytest.raises(InputError, match="arguments"):
        CudaEvaluator.from_description(description)
    with pytest.raises(InputError, match="were functions"):
        CudaEvaluator.from_description(description, arguments=args)
    with pytest.warns(UserWarning, match="answer"):
        rebuilt = CudaEvaluator.from_description(description, arguments=args, defines={"BLOCK": "block_size_x"})
    assert rebuilt.geometry.to_dict() == evaluator.geometry.to_dict()
    assert rebuilt.compiler_options == ("-O3",) and rebuilt.smem_args == {"size": 128} and rebuilt.repeats == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checked = CudaEvaluator.from_description(description, arguments=args, answer=[expected, None, None, None],
                                                 defines=None)
    assert checked.evaluate(config()).ok
    wrong = [np.zeros(N + 1, np.float32), *args[1:]]
    with pytest.raises(InputError, match="arguments\\[0\\]"):
        CudaEvaluator.from_description(description, arguments=wrong, defines=None)
    with pytest.raises(InputError, match="4 arguments"):
        CudaEvaluator.from_description({**description, "arguments": description["arguments"][:3]},
                                       arguments=args, defines=None)
    with pytest.raises(InputError, match="not a CUDA"):
        CudaEvaluator.from_description({"kind": "c"})


def test_scalars_only_rebuild_without_arguments():
    code = 'extern "C" __global__ void noop(int n, float x) {}'
    evaluator = CudaEvaluator(code, "noop", [np.int32(3), np.float32(0.5)], problem_size=1, block_size_names=["bx"])
    rebuilt = CudaEvaluator.from_description(evaluator.describe())
    assert rebuilt.describe() == evaluator.describe()
    assert rebuilt.arguments[1].dtype == np.float32


def test_evaluator_from_dict_says_to_pass_arguments():
    from starchart.measure import evaluator_from_dict
    args, _ = vector_args()
    description = CudaEvaluator(VECTOR_ADD, "vector_add", args, problem_size=N).describe()
    with pytest.raises(InputError, match="arguments"):
        evaluator_from_dict(description)


# ------------------------------------------------------------------ no CuPy here
def test_missing_cupy_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(StarchartError) as err:
        import_cupy()
    text = str(err.value)
    assert "CuPy" in text and 'pip install ".[cuda]"' in text and "NVIDIA GPU" in text
    evaluator = make()  # building and describing need no GPU
    assert evaluator.describe()["kind"] == "cuda"
    with pytest.raises(StarchartError, match="CuPy"):
        evaluator.prepare(SPACE)
    with pytest.raises(StarchartError, match="CuPy"):
        evaluator.evaluate(config())  # not a recorded failure: nothing could be measured


# ------------------------------------------------------- a real GPU, where there is one
gpu = pytest.mark.gpu  # tests/conftest.py skips it without CuPy and a GPU


@gpu
def test_real_vector_add():
    pytest.importorskip("cupy")
    args, expected = vector_args(100_000)
    space = Space({"block_size_x": [32, 128, 256, 1024, 2048]})
    with CudaEvaluator(VECTOR_ADD, "vector_add", args, problem_size=100_000, repeats=5,
                       answer=[expected, None, None, None]) as evaluator:
        evaluator.prepare(space)
        results = {bx: evaluator.evaluate({"block_size_x": bx}) for bx in space.tune_params["block_size_x"]}
        assert evaluator.device_info.get("name")
    for bx in (32, 128, 256, 1024):
        result = results[bx]
        assert result.ok, result.reason
        assert len(result.values["time"]) == 5 and all(t > 0 for t in result.values["time"])
        assert result.extra["grid"] == [-(-100_000 // bx), 1, 1]
    assert results[2048].status == "runtime" and "1024" in results[2048].reason


@gpu
def test_real_wrong_answer_and_compile_error():
    pytest.importorskip("cupy")
    args, expected = vector_args(4096)
    source = VECTOR_ADD.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + (bug ? 2.0f : 1.0f) * b[i];\n    BROKEN")
    source = "#ifndef broken\n#define BROKEN\n#else\n#define BROKEN oops;\n#endif\n" + source
    with CudaEvaluator(source, "vector_add", args, problem_size=4096, defines=None,
                       answer=[expected, None, None, None]) as evaluator:
        ok = evaluator.evaluate({"block_size_x": 128, "bug": 0})
        assert ok.ok, ok.reason
        assert evaluator.evaluate({"block_size_x": 128, "bug": 1}).status == "wrong-answer"
        failed = evaluator.evaluate({"block_size_x": 128, "bug": 0, "broken": 1})
        assert failed.status == "compile" and "oops" in failed.reason


@gpu
def test_real_power_measurement():
    pytest.importorskip("cupy")
    pytest.importorskip("pynvml")
    args, expected = vector_args(1 << 22)
    with CudaEvaluator(VECTOR_ADD, "vector_add", args, problem_size=1 << 22, repeats=3, power=True,
                       power_duration_s=0.3) as evaluator:
        result = evaluator.evaluate({"block_size_x": 256})
    assert result.ok, result.reason
    assert result.values["power"][0] > 10 and result.values["energy"][0] > 0
    assert isinstance(result, Measurement)


# ------------------------------------- _CudaSession against a CuPy stand-in (API shape only)
def fake_cupy_module(device_count=1, probe_fails=False):
    """Just enough of CuPy's API, on numpy, to run _CudaSession's code paths without a GPU."""
    import time as _time
    import types as _types

    calls = {"modules": [], "launches": 0}

    class Device:
        def __init__(self, index=0):
            self.index = index
            self.compute_capability = "90"

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    class Stream(Device):
        def __init__(self, non_blocking=False):
            super().__init__()

        def synchronize(self):
            pass

    class Event:
        def record(self, stream=None):
            self.t = _time.perf_counter()

        def synchronize(self):
            pass

    class RawKernel:
        def __init__(self, options):
            self.options = options
            self.num_regs = 12

        def __call__(self, grid, block, args, stream=None, shared_mem=0):
            assert isinstance(stream, Stream)
            if block[0] * block[1] * block[2] > 1024:
                raise RuntimeError("CUDA_ERROR_INVALID_VALUE: invalid argument")
            c, a, b, n = args
            threads = min(int(n), grid[0] * block[0])
            c[:threads] = a[:threads] + b[:threads]
            calls["launches"] += 1

    class RawModule:
        def __init__(self, *, code, options=(), name_expressions=None):
            assert isinstance(options, tuple)  # CuPy's Cython signature insists on a tuple
            self.code, self.options, self.name_expressions = code, options, name_expressions
            calls["modules"].append(self)

        def get_function(self, name):
            if probe_fails and name == "starchart_probe":
                raise RuntimeError("libnvrtc.so.12: cannot open shared object file")
            if "-Dbroken=1" in self.options:
                raise RuntimeError('kern.cu(3): error: identifier "oops" is undefined')
            return RawKernel(self.options)

    def get_device_count():
        if device_count is None:
            raise RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")
        return device_count

    runtime = _types.SimpleNamespace(getDeviceCount=get_device_count,
                                     getDeviceProperties=lambda i: {"name": b"Fake H200"},
                                     deviceGetPCIBusId=lambda i: "0000:19:00.0")
    cuda_ns = _types.SimpleNamespace(runtime=runtime, Device=Device, Stream=Stream, Event=Event,
                                     get_elapsed_time=lambda s, e: (e.t - s.t) * 1000.0)
    module = _types.ModuleType("cupy")
    module.cuda = cuda_ns
    module.RawModule = RawModule
    module.asarray = lambda a: np.array(a, copy=True)
    module.empty_like = np.empty_like
    module.copyto = np.copyto
    module.asnumpy = lambda a, stream=None: np.array(a, copy=True)
    module.calls = calls
    return module


class RecordingSampler(FakeSampler):
    """NVML's side faked; the session's own sustained loop runs for real."""

    def start(self):
        self.started = True

    def stop(self):
        return PowerTrace(times_s=np.array([0.0, 1.0]), watts=np.array([200.0, 200.0]))


def test_session_with_a_cupy_stand_in(monkeypatch):
    fake = fake_cupy_module()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(cuda, "NvmlPowerSampler", RecordingSampler)
    evaluator = make(power=True, power_duration_s=0.001)
    evaluator.prepare(SPACE)
    assert evaluator.device_info == {"index": 0, "name": "Fake H200", "compute_capability": "90",
                                     "pci_bus_id": "0000:19:00.0"}
    assert evaluator._sampler.pci_bus_id == "0000:19:00.0"
    result = evaluator.evaluate(config())
    assert result.ok, result.reason
    assert len(result.values["time"]) == 3 and result.values["power"] == [200.0]
    assert result.extra["registers"] == 12 and result.extra["power_launches"] >= 1
    assert evaluator._sampler.started
    module = fake.calls["modules"][-1]
    assert module.name_expressions is None  # extern "C": plain lookup
    assert "-Dblock_size_x=64" in module.options
    assert evaluator.evaluate(config(block_size_x=2048)).status == "runtime"
    assert evaluator.evaluate(config(broken=1)).status == "compile"
    evaluator.close()

    cpp = VECTOR_ADD.replace('extern "C" ', "")
    args, expected = vector_args()
    evaluator = CudaEvaluator(cpp, "vector_add", args, problem_size=N, answer=[expected, None, None, None])
    assert evaluator.evaluate(config()).ok
    assert fake.calls["modules"][-1].name_expressions == ("vector_add",)  # C++: mangled name looked up


@pytest.mark.parametrize("kwargs, match", [
    (dict(device_count=None), "cannot reach an NVIDIA GPU"),
    (dict(device_count=0), "found no NVIDIA GPU"),
    (dict(probe_fails=True), "cannot compile CUDA code"),
])
def test_session_set_up_errors(monkeypatch, kwargs, match):
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy_module(**kwargs))
    with pytest.raises(StarchartError, match=match) as err:
        make().prepare(SPACE)
    assert err.value.hint


def test_session_rejects_a_missing_device(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy_module(device_count=1))
    with pytest.raises(InputError, match="no GPU 2"):
        make(device=2).prepare(SPACE)


def test_a_value_that_is_c_code_is_refused_before_compiling(fake_gpu):
    payload = '({extern int system(const char*); system("touch /tmp/x"); 8;})'
    space = Space({"block_size_x": [32, 64], "T": ["float", payload]})
    evaluator = make()
    with pytest.raises(InputError, match=r"parameter 'T' has the value '\(\{extern int system") as info:
        evaluator.prepare(space)
    assert "raw_defines" in info.value.hint
    result = evaluator.evaluate({"block_size_x": 64, "T": payload})
    assert result.status == "runtime" and "not a C literal or identifier" in result.reason
    assert fake_gpu[0].compiles == []  # never handed to NVRTC
    # legitimate values pass, and a parameter no string define names is not a macro at all
    assert make().evaluate({"block_size_x": 64, "T": "float", "S": -1.5}).ok
    assert make(defines={"BLOCK": "block_size_x"}).evaluate({"block_size_x": 64, "T": payload}).ok


def test_raw_defines_passes_values_through(fake_gpu):
    evaluator = make(raw_defines=True)
    assert evaluator.evaluate({"block_size_x": 64, "T": "unsigned int"}).ok
    assert "-DT=unsigned int" in fake_gpu[0].compiles[0]
    description = json.loads(json.dumps(evaluator.describe()))
    assert description["raw_defines"] is True and "raw_defines" not in make().describe()
    args, _ = vector_args()
    assert CudaEvaluator.from_description(description, arguments=args, answer=None).raw_defines


# --------------------------------------------------------------- inputs: FILE.py:FUNCTION (evaluator files)

def _inputs_section(tmp_path, body: str, reference: str = "inputs.py:make") -> dict:
    from starchart.measure.cuda import VECTOR_ADD, CudaEvaluator
    (tmp_path / "inputs.py").write_text("import numpy as np\n\n" + body)
    section = {"kind": "cuda", "source": VECTOR_ADD, "kernel_name": "vector_add", "problem_size": 64,
               "inputs": reference}
    return CudaEvaluator.resolve_paths(section, tmp_path)


def test_inputs_make_the_arguments_and_the_answer(tmp_path) -> None:
    from starchart.measure import evaluator_from_dict
    section = _inputs_section(tmp_path, "def make():\n    a = np.ones(64, np.float32)\n"
                                        "    return {'arguments': [np.zeros(64, np.float32), a, a, np.int32(64)],\n"
                                        "            'answer': [2 * a, None, None, None]}\n")
    assert section["inputs"] == f"{tmp_path / 'inputs.py'}:make"  # taken from the file's folder
    evaluator = evaluator_from_dict(section, where="ev.yaml")
    assert evaluator.answer is not None and evaluator.describe()["inputs"] == section["inputs"]


def test_inputs_may_return_the_argument_list_alone(tmp_path) -> None:
    from starchart.measure import evaluator_from_dict
    section = _inputs_section(tmp_path, "def make():\n    return [np.zeros(64, np.float32)] * 3 + [np.int32(64)]\n")
    assert evaluator_from_dict(section, where="ev.yaml").answer is None


@pytest.mark.parametrize("body, reference, message", [
    ("def make():\n    return []\n", "missing.py:make", "no such file"),
    ("def make():\n    return []\n", "inputs.py:build", "has no function 'build'"),
    ("def make():\n    return 3\n", "inputs.py:make", "returned a int, not the kernel's arguments"),
    ("def make():\n    return {'args': []}\n", "inputs.py:make", "returned a dict with keys"),
    ("raise RuntimeError('no data file')\n", "inputs.py:make", "failed: RuntimeError: no data file"),
    ("def make():\n    return np.zeros(-1)\n", "inputs.py:make", r"make\(\) of .*inputs.py failed: ValueError"),
    ("def make():\n    return []\n", "inputs.py", "must name a Python file and a function"),
])
def test_bad_inputs_are_one_line_naming_the_option(tmp_path, body, reference, message) -> None:
    from starchart.measure import evaluator_from_dict
    section = _inputs_section(tmp_path, body, reference)
    with pytest.raises(InputError, match=message) as info:
        evaluator_from_dict(section, where="ev.yaml")
    assert info.value.where == "ev.yaml, inputs"
