"""CUDA kernels measured on an NVIDIA GPU through CuPy, with Kernel Tuner's conventions.

:class:`CudaEvaluator` compiles the kernel source once per configuration with
NVRTC (``cupy.RawModule``), every parameter defined as a macro (``-Dname=value``),
launches it on a grid and thread block computed from the configuration
(:mod:`starchart.measure.launch`), checks the outputs, and times repeated
launches with CUDA events. With ``power=True`` it also runs the kernel for about
a second while sampling NVML (:mod:`starchart.measure.power`) and reports the
mean power and the energy of one launch.

It needs the optional extra ``cuda`` (CuPy and nvidia-ml-py) and a
GPU. CuPy is imported only when the evaluator is prepared, so an evaluator can be
built, described and rebuilt anywhere; :meth:`CudaEvaluator.prepare` raises a
:class:`~starchart.errors.StarchartError` with an installation hint when CuPy or
a GPU is missing.

A configuration's failure is recorded, never raised:

- ``"compile"``: NVRTC refused the source (the compiler log is in ``reason`` and
  ``extra["compiler_log"]``);
- ``"runtime"``: the launch failed (too many threads or resources per block, an
  illegal memory access...): the CUDA error text is the reason. Errors that
  leave the CUDA context unusable (illegal address, device-side assert) are
  recorded for the configuration that caused them; every later :meth:`evaluate`
  raises a :class:`~starchart.errors.StarchartError` (nothing is stored for those
  configurations), so a run stops and a resumed run in a new process measures them;
- ``"wrong-answer"``: the outputs differ from ``answer`` or from what
  ``reference`` computed.

The GPU-touching part (:class:`_CudaSession`) is kept thin; launch geometry,
defines, output comparison and power arithmetic are pure functions tested
without a GPU.

Examples
--------
>>> import numpy as np
>>> n = 1000
>>> a, b = np.ones(n, np.float32), np.full(n, 2, np.float32)
>>> evaluator = CudaEvaluator(VECTOR_ADD, "vector_add", [np.zeros(n, np.float32), a, b, np.int32(n)],
...                           problem_size=n, answer=[a + b, None, None, None])
>>> evaluator.metrics, evaluator.describe()["arguments"][3]
(('time',), {'kind': 'scalar', 'dtype': 'int32', 'value': 1000})
"""

from __future__ import annotations

import inspect
import math
import numbers
import os
import re
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from starchart._util.plugins import load_module_file
from starchart._util.validation import Interval, check
from starchart.errors import InputError, StarchartError
from starchart.measure.base import Evaluator, Measurement, unknown_options
from starchart.measure.command import check_bool
from starchart.measure.launch import (
    DEFAULT_BLOCK_SIZE_NAMES,
    GridDiv,
    LaunchGeometry,
    ProblemSize,
    check_define_values,
    check_expression,
    compile_options,
    expression_names,
    shared_memory_size,
)
from starchart.measure.power import NvmlPowerSampler, PowerTrace
from starchart.space import Space

__all__ = [
    "CUDA_HINT",
    "VECTOR_ADD",
    "CudaEvaluator",
    "check_answer",
    "check_arguments",
    "classify_cuda_error",
    "compare_outputs",
    "describe_arguments",
    "explain_launch_error",
    "import_cupy",
    "power_and_energy",
    "read_source",
    "sustained_launches",
]

#: What to do when CuPy or a GPU is missing.
CUDA_HINT = ('pip install ".[cuda]" in the starchart source folder (installs CuPy and nvidia-ml-py); '
             "it also needs an NVIDIA GPU and its driver (nvidia-smi must list the GPU)")

#: A small example kernel (Kernel Tuner's vector add), handy for tests and demos.
VECTOR_ADD = r"""
extern "C" __global__ void vector_add(float *c, const float *a, const float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
"""

# Threads per block any current NVIDIA GPU allows, and its grid limits (for error hints only).
_MAX_THREADS_PER_BLOCK = 1024
_MAX_GRID = (2**31 - 1, 65535, 65535)
# Dynamic shared memory above this must be opted into per kernel (Volta and newer).
_DEFAULT_SMEM_LIMIT = 48 * 1024
# A sustained power run never queues more launches than this.
_MAX_SUSTAINED_LAUNCHES = 1_000_000
_SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp")
# Errors after which the CUDA context is unusable (CUDA calls them "sticky").
_FATAL_MARKERS = (
    "illegal_address", "illegaladdress", "illegal memory access", "illegal address",
    "misaligned", "illegal_instruction", "illegalinstruction", "illegal instruction",
    "hardware_stack_error", "hardwarestackerror", "hardware stack error", "invalid_pc", "invalidpc",
    "invalid program counter", "launch_failed", "launchfailure", "unspecified launch failure",
    "assert", "launch_timeout", "launchtimeout", "ecc_uncorrectable", "uncorrectable ecc",
    "context is destroyed", "gpu has fallen off", "contextisdestroyed",
)


# ------------------------------------------------------------------ imports
def import_cupy() -> ModuleType:
    """Import CuPy or raise a :class:`StarchartError` saying how to install it."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a CuPy built for another CUDA failing on import
        raise StarchartError(f"the CUDA evaluator needs CuPy, which could not be imported ({_one_line(exc)})",
                             hint=CUDA_HINT) from exc
    return cupy


def _one_line(exc: BaseException | str, limit: int = 500) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ------------------------------------------------------------ pure helpers
def read_source(source: str | os.PathLike[str]) -> tuple[str, str | None]:
    """The kernel code and the file it came from (None for code given as a string).

    A string is a file name when it is one line ending in a source suffix
    (``.cu``, ``.cuh``...); such a name of a missing file is an error (not code
    that mentions no kernel). Anything else is the code itself.

    >>> read_source('extern "C" __global__ void k() {}')
    ('extern "C" __global__ void k() {}', None)
    >>> read_source("no/such/kernel.cu")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: source: kernel source file 'no/such/kernel.cu' not found (hint: check the path; ...)
    """
    path: Path | None = None
    if isinstance(source, os.PathLike):
        path = Path(source)
    elif isinstance(source, str):
        candidate = source.strip()
        if "\n" not in candidate and candidate.endswith(_SOURCE_SUFFIXES):
            if Path(candidate).is_file():
                path = Path(candidate)
            elif not any(c in candidate for c in "{};()"):  # a file name, not one line of code
                where = Path(candidate).expanduser().resolve()
                raise InputError(f"kernel source file {candidate!r} not found"
                                 + (" (it is a directory)" if where.is_dir() else ""), where="source",
                                 hint=f"check the path; it was looked up as {where}")
    else:
        raise InputError(f"the kernel source must be code or a file path, got {type(source).__name__}",
                         where="source")
    if path is not None:
        try:
            code = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read the kernel source: {exc}", where=str(path)) from exc
    else:
        code = str(source)
    if not code.strip():
        raise InputError("the kernel source is empty", where=str(path) if path else "source")
    return code, (str(path) if path is not None else None)


def check_arguments(arguments: Sequence[Any]) -> list[np.ndarray | np.generic]:
    """Validate kernel arguments: numpy arrays (copied to the GPU) and numpy scalars (passed by value).

    Plain Python numbers are refused: the kernel's C type must be explicit.

    >>> [type(a).__name__ for a in check_arguments([np.zeros(4, np.float32), np.int32(4)])]
    ['ndarray', 'int32']
    >>> check_arguments([np.zeros(4), 4])
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: arguments[1]: 4 is a plain Python int (hint: wrap scalars in the kernel's C type, e.g. numpy.int32(n) or numpy.float32(x))
    """
    if isinstance(arguments, (str, bytes, np.ndarray)) or not isinstance(arguments, Sequence):
        raise InputError(f"arguments must be a list, got {type(arguments).__name__}", where="arguments",
                         hint="pass one entry per kernel parameter, in order")
    checked: list[np.ndarray | np.generic] = []
    for i, arg in enumerate(arguments):
        where = f"arguments[{i}]"
        if isinstance(arg, np.ndarray):
            if arg.dtype.hasobject or arg.dtype.kind in "USV":
                raise InputError(f"arrays of {arg.dtype} cannot be passed to a kernel", where=where)
            checked.append(arg if arg.flags.c_contiguous else np.ascontiguousarray(arg))
        elif isinstance(arg, np.generic):
            if arg.dtype.kind in "OUSV":
                raise InputError(f"{arg!r} cannot be passed to a kernel", where=where)
            checked.append(arg)
        elif isinstance(arg, (bool, numbers.Number)):
            raise InputError(f"{arg!r} is a plain Python {type(arg).__name__}", where=where,
                             hint="wrap scalars in the kernel's C type, e.g. numpy.int32(n) or numpy.float32(x)")
        else:
            raise InputError(f"cannot pass a {type(arg).__name__} to a kernel", where=where,
                             hint="use numpy arrays and numpy scalars (numpy.int32(n))")
    return checked


def describe_arguments(arguments: Sequence[np.ndarray | np.generic]) -> list[dict[str, Any]]:
    """JSON-able shapes and dtypes of arrays, and values of scalars.

    >>> describe_arguments([np.zeros((2, 3), np.float32), np.float64(0.5)])
    [{'kind': 'array', 'dtype': 'float32', 'shape': [2, 3]}, {'kind': 'scalar', 'dtype': 'float64', 'value': 0.5}]
    """
    out = []
    for arg in arguments:
        if isinstance(arg, np.ndarray):
            out.append({"kind": "array", "dtype": str(arg.dtype), "shape": list(arg.shape)})
        else:
            out.append({"kind": "scalar", "dtype": str(arg.dtype), "value": arg.item()})
    return out


def check_answer(arguments: Sequence[np.ndarray | np.generic], answer: Sequence[Any] | None,
                 where: str = "answer") -> list[np.ndarray | None] | None:
    """Validate an expected-output list: one entry per argument, None where not checked.

    Only array arguments can be outputs; an expected array must have as many
    values as its argument (it is compared flattened, like Kernel Tuner does).

    >>> args = [np.zeros(3, np.float32), np.int32(3)]
    >>> check_answer(args, [np.ones(3), None])[0].tolist()
    [1.0, 1.0, 1.0]
    >>> check_answer(args, [np.ones(4), None])
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: answer[0]: 4 values expected for an argument of 3
    """
    if answer is None:
        return None
    if isinstance(answer, (str, bytes, np.ndarray)) or not isinstance(answer, Sequence):
        raise InputError(f"must be a list with one entry per argument, got {type(answer).__name__}", where=where,
                         hint="e.g. answer=[expected_c, None, None, None]")
    if len(answer) != len(arguments):
        raise InputError(f"{len(answer)} entries for {len(arguments)} kernel arguments", where=where,
                         hint="give one entry per argument, None for those not checked")
    checked: list[np.ndarray | None] = []
    for i, (expected, arg) in enumerate(zip(answer, arguments)):
        if expected is None:
            checked.append(None)
            continue
        if not isinstance(arg, np.ndarray):
            raise InputError("a scalar argument is passed by value and cannot be an output",
                             where=f"{where}[{i}]", hint="put None for it")
        try:
            expected_array = np.asarray(expected)
        except Exception as exc:
            raise InputError(f"not an array: {exc}", where=f"{where}[{i}]") from exc
        if expected_array.dtype.hasobject:
            raise InputError("must be a numeric array", where=f"{where}[{i}]")
        if expected_array.size != arg.size:
            raise InputError(f"{expected_array.size} values expected for an argument of {arg.size}",
                             where=f"{where}[{i}]")
        checked.append(expected_array)
    return checked


def compare_outputs(outputs: Sequence[np.ndarray | None], expected: Sequence[np.ndarray | None], *,
                    rtol: float = 1e-6, atol: float = 1e-6) -> str | None:
    """Why the outputs are wrong, or None when every checked output matches.

    Floating-point values match when ``|out - expected| <= atol + rtol * |expected|``
    (NaN matches NaN); integers and booleans must be equal. Arrays are compared
    flattened.

    Examples
    --------
    >>> compare_outputs([np.array([1.0, 2.0])], [np.array([1.0, 2.0 + 1e-9])]) is None
    True
    >>> compare_outputs([np.array([1.0, 2.0, 5.0]), None], [np.array([1.0, 2.0, 3.0]), None])
    'argument 0: 1 of 3 values differ (first at index 2: got 5, expected 3; largest difference 2; rtol=1e-06, atol=1e-06)'
    """
    for i, (out, exp) in enumerate(zip(outputs, expected)):
        if exp is None:
            continue
        if out is None:
            return f"argument {i}: no output was read back"
        got, want = np.asarray(out).ravel(), np.asarray(exp).ravel()
        if got.size != want.size:
            return f"argument {i}: {got.size} values, the answer has {want.size}"
        exact = got.dtype.kind in "biu" and want.dtype.kind in "biu"
        with np.errstate(all="ignore"):
            if exact:
                bad = got != want
            else:
                bad = ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        count = int(np.count_nonzero(bad))
        if count:
            first = int(np.flatnonzero(bad)[0])
            with np.errstate(all="ignore"):
                diff = np.abs(got.astype(np.complex128 if np.iscomplexobj(got) or np.iscomplexobj(want)
                                         else np.float64) - want)
            largest = float(np.nanmax(np.where(bad, diff, 0).real)) if diff.size else math.nan
            if np.any(np.isnan(diff[bad])):
                largest = math.nan
            return (f"argument {i}: {count} of {got.size} values differ (first at index {first}: "
                    f"got {_short(got[first])}, expected {_short(want[first])}; largest difference "
                    f"{_short(largest)}; rtol={rtol:g}, atol={atol:g})")
    return None


def _short(value: Any) -> str:
    value = value.item() if isinstance(value, np.generic) else value
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def classify_cuda_error(error: BaseException | str) -> tuple[str, bool]:
    """The readable text of a CUDA error and whether it is fatal for the CUDA context.

    >>> classify_cuda_error("CUDA_ERROR_INVALID_VALUE: invalid argument")
    ('CUDA_ERROR_INVALID_VALUE: invalid argument', False)
    >>> classify_cuda_error("cudaErrorIllegalAddress: an illegal memory access was encountered")[1]
    True
    """
    text = _one_line(error, limit=2000)
    lowered = text.lower()
    return text, any(marker in lowered for marker in _FATAL_MARKERS)


def explain_launch_error(text: str, grid: Sequence[int], block: Sequence[int], shared_mem: int = 0) -> str:
    """The CUDA error text, plus what in the launch most likely caused it.

    >>> explain_launch_error("CUDA_ERROR_INVALID_VALUE: invalid argument", (1, 1, 1), (2048, 1, 1))
    'CUDA_ERROR_INVALID_VALUE: invalid argument (block (2048, 1, 1) has 2048 threads; CUDA allows at most 1024 per block)'
    """
    notes = []
    threads = math.prod(block)
    if threads > _MAX_THREADS_PER_BLOCK:
        notes.append(f"block {tuple(block)} has {threads} threads; CUDA allows at most "
                     f"{_MAX_THREADS_PER_BLOCK} per block")
    if any(d < 1 for d in (*grid, *block)):
        notes.append(f"grid {tuple(grid)} and block {tuple(block)} must be positive in every dimension")
    if any(g > m for g, m in zip(grid, _MAX_GRID)):
        notes.append(f"grid {tuple(grid)} exceeds CUDA's limits {_MAX_GRID}")
    lowered = text.lower()
    if "out_of_resources" in lowered or "too many resources" in lowered:
        notes.append(f"the kernel needs more registers or shared memory than {threads} threads per block allow")
    if shared_mem > _DEFAULT_SMEM_LIMIT and ("invalid" in lowered or "shared" in lowered):
        notes.append(f"{shared_mem} bytes of dynamic shared memory requested")
    return f"{text} ({'; '.join(notes)})" if notes else text


def sustained_launches(duration_s: float, kernel_time_ms: float, *, limit: int = _MAX_SUSTAINED_LAUNCHES) -> int:
    """How many back-to-back launches keep the GPU busy for ``duration_s`` (1 to ``limit``).

    >>> sustained_launches(1.0, 0.25), sustained_launches(1.0, 5000.0), sustained_launches(1.0, 0.0)
    (4000, 1, 1000000)
    """
    if not kernel_time_ms > 0 or not math.isfinite(kernel_time_ms):
        return limit
    return max(1, min(limit, math.ceil(duration_s * 1000.0 / kernel_time_ms)))


def power_and_energy(trace: PowerTrace, *, launches: int, gpu_time_s: float,
                     window: tuple[float, float] | None = None) -> dict[str, float]:
    """Mean power (W) during a sustained run and the energy (J) of one launch.

    The power is the energy counter's difference over its window when the GPU has
    one, else the time-weighted mean of the samples inside ``window`` (the run's
    ``perf_counter`` start and end), else of all samples. The energy of one launch
    is that power times the mean kernel time, ``gpu_time_s / launches``.

    Examples
    --------
    >>> trace = PowerTrace(times_s=np.array([0.0, 1.0, 2.0]), watts=np.array([100.0, 300.0, 300.0]))
    >>> power_and_energy(trace, launches=1000, gpu_time_s=1.0, window=(1.0, 2.0))
    {'power': 300.0, 'energy': 0.3}
    """
    if launches < 1 or not gpu_time_s > 0:
        raise ValueError(f"need at least one launch and a positive run time, got {launches} and {gpu_time_s}")
    if trace.method == "energy-counter" or window is None:
        watts = trace.mean_power_w
    else:
        watts = trace.window_power_w(*window)
    return {"power": float(watts), "energy": float(watts) * gpu_time_s / launches}


def _uses_extern_c(code: str) -> bool:
    return re.search(r'extern\s+"C"', code) is not None


def _check_kernel_name(name: str, code: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"the kernel name must be a non-empty string, got {name!r}", where="kernel_name")
    base = name.split("<", 1)[0].strip()
    if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(base)}(?![A-Za-z0-9_])", code):
        raise InputError(f"the source does not mention a kernel {base!r}", where="kernel_name",
                         hint="give the name of the __global__ function to launch")
    return name.strip()


def _check_smem_args(smem_args: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if smem_args is None:
        return None
    if not isinstance(smem_args, Mapping) or "size" not in smem_args:
        raise InputError(f"must be a dict with a 'size', got {smem_args!r}", where="smem_args",
                         hint="e.g. smem_args={'size': 'block_size_x * 4'}")
    size = smem_args["size"]
    if isinstance(size, str):
        expression_names(size, label="smem_args['size']")
    elif isinstance(size, bool) or not isinstance(size, numbers.Integral):
        raise InputError(f"the size must be an int or an expression string, got {size!r}", where="smem_args",
                         hint="write a callable size as an expression string, e.g. 'block_size_x * 4'")
    return dict(smem_args)


def _describe_defines(defines: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if defines is None:
        return None
    out: dict[str, Any] = {}
    for name, value in defines.items():
        if callable(value):
            out[name] = {"callable": getattr(value, "__qualname__", repr(value))}
        elif isinstance(value, np.generic):
            out[name] = value.item()
        else:
            out[name] = value
    return out


# ------------------------------------------------------------------ the GPU part
class _CudaSession:
    """Everything that touches the GPU: device, stream, buffers, compilation, launches, events.

    Kept thin on purpose; the evaluator's logic does not depend on CuPy and is
    tested with a stand-in for this class.
    """

    def __init__(self, device: int, arguments: Sequence[np.ndarray | np.generic]):
        cp = import_cupy()
        try:
            count = int(cp.cuda.runtime.getDeviceCount())
        except Exception as exc:  # no driver, no device, incompatible driver
            raise StarchartError(f"CuPy cannot reach an NVIDIA GPU: {_one_line(exc)}", hint=CUDA_HINT) from exc
        if count < 1:
            raise StarchartError("CuPy found no NVIDIA GPU", hint=CUDA_HINT)
        if not 0 <= device < count:
            raise InputError(f"there is no GPU {device}: CUDA sees {count}", where="device",
                             hint=f"use a device index from 0 to {count - 1}")
        self.cp = cp
        self.index = device
        self.device = cp.cuda.Device(device)
        self.info = self._device_info(cp, device)
        with self.device:
            self.stream = cp.cuda.Stream(non_blocking=False)
            self._check_compiler()
            # A pristine device copy of every array: each configuration starts from the
            # same inputs (a device-to-device copy, much faster than re-uploading).
            self.pristine = [cp.asarray(a) if isinstance(a, np.ndarray) else None for a in arguments]
            self.buffers = [cp.empty_like(p) if p is not None else a for p, a in zip(self.pristine, arguments)]
        self._events: list[tuple[Any, Any]] = []

    @staticmethod
    def _device_info(cp: ModuleType, device: int) -> dict[str, Any]:
        info: dict[str, Any] = {"index": device}
        try:
            props = cp.cuda.runtime.getDeviceProperties(device)
            name = props.get("name", b"")
            info["name"] = name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)
        except Exception:  # noqa: BLE001 - informative only
            pass
        try:
            info["compute_capability"] = str(cp.cuda.Device(device).compute_capability)
        except Exception:  # noqa: BLE001
            pass
        try:
            info["pci_bus_id"] = str(cp.cuda.runtime.deviceGetPCIBusId(device))
        except Exception:  # noqa: BLE001
            pass
        return info

    def _check_compiler(self) -> None:
        """Compile an empty kernel once, so a broken NVRTC is reported now and not as a compile error per configuration."""
        try:
            module = self.cp.RawModule(code='extern "C" __global__ void starchart_probe() {}')
            module.get_function("starchart_probe")
        except Exception as exc:
            raise StarchartError(f"CuPy cannot compile CUDA code with NVRTC: {_one_line(exc)}",
                                 hint="install the CuPy package built for this machine's CUDA version "
                                      "(e.g. cupy-cuda12x) and check that nvidia-smi works") from exc

    def compile(self, code: str, kernel_name: str, options: Sequence[str]) -> Any:
        """Compile and load ``kernel_name``; raises on any failure (a CompileException carries the NVRTC log)."""
        with self.device:
            if "<" in kernel_name or not _uses_extern_c(code):
                # C++ names are mangled: NVRTC looks the lowered name up (templates too)
                module = self.cp.RawModule(code=code, options=tuple(options), name_expressions=(kernel_name,))
            else:
                module = self.cp.RawModule(code=code, options=tuple(options))
            return module.get_function(kernel_name)  # compiles and loads here

    @staticmethod
    def registers(kernel: Any) -> int | None:
        try:
            return int(kernel.num_regs)
        except Exception:  # noqa: BLE001 - informative only
            return None

    @staticmethod
    def allow_shared_memory(kernel: Any, shared_mem: int) -> None:
        """Opt in to more than 48 KiB of dynamic shared memory (needed on Volta and newer)."""
        if shared_mem > _DEFAULT_SMEM_LIMIT:
            kernel.max_dynamic_shared_size_bytes = int(shared_mem)

    def reset(self) -> None:
        """Restore every array argument to its original contents."""
        with self.device, self.stream:
            for buffer, pristine in zip(self.buffers, self.pristine):
                if pristine is not None:
                    self.cp.copyto(buffer, pristine)

    def launch(self, kernel: Any, grid: tuple[int, int, int], block: tuple[int, int, int], shared_mem: int) -> None:
        with self.device:
            kernel(grid, block, tuple(self.buffers), stream=self.stream, shared_mem=shared_mem)

    def synchronize(self) -> None:
        self.stream.synchronize()

    def fetch(self, indices: Sequence[int]) -> dict[int, np.ndarray]:
        """Copy the array arguments ``indices`` back to the host."""
        with self.device, self.stream:
            out = {i: self.cp.asnumpy(self.buffers[i], stream=self.stream) for i in indices}
        self.stream.synchronize()
        return out

    def _event_pairs(self, count: int) -> list[tuple[Any, Any]]:
        with self.device:
            while len(self._events) < count:
                self._events.append((self.cp.cuda.Event(), self.cp.cuda.Event()))
        return self._events[:count]

    def time_launches(self, kernel: Any, grid: tuple[int, int, int], block: tuple[int, int, int],
                      shared_mem: int, repeats: int) -> list[float]:
        """Milliseconds of each of ``repeats`` launches, by CUDA events recorded around each."""
        pairs = self._event_pairs(repeats)
        args = tuple(self.buffers)
        with self.device:
            for start, end in pairs:
                start.record(self.stream)
                kernel(grid, block, args, stream=self.stream, shared_mem=shared_mem)
                end.record(self.stream)
            pairs[-1][1].synchronize()
            return [float(self.cp.cuda.get_elapsed_time(start, end)) for start, end in pairs]

    def sustained(self, kernel: Any, grid: tuple[int, int, int], block: tuple[int, int, int], shared_mem: int,
                  launches: int, sampler: NvmlPowerSampler) -> tuple[float, PowerTrace, tuple[float, float]]:
        """Launch back to back while ``sampler`` records; GPU seconds, the trace and the host window."""
        start, end = self._event_pairs(1)[0]
        args = tuple(self.buffers)
        sampler.start()
        try:
            with self.device:
                begin = time.perf_counter()
                start.record(self.stream)
                for _ in range(launches):
                    kernel(grid, block, args, stream=self.stream, shared_mem=shared_mem)
                end.record(self.stream)
                end.synchronize()
                finish = time.perf_counter()
        finally:
            trace = sampler.stop()
        gpu_s = float(self.cp.cuda.get_elapsed_time(start, end)) / 1000.0
        return gpu_s, trace, (begin, finish)

    def close(self) -> None:
        self.buffers = []
        self.pristine = []
        self._events = []


# ------------------------------------------------------------------ the evaluator
class CudaEvaluator(Evaluator):
    """Measure a CUDA kernel per configuration on an NVIDIA GPU (CuPy + NVRTC).

    Parameters
    ----------
    source:
        The CUDA code, or a path to it (a ``Path``, or a one-line string ending in
        ``.cu``/``.cuh``/... naming an existing file; its folder is added to the
        include path).
    kernel_name:
        The ``__global__`` function to launch (``extern "C"`` or C++, templates
        written with their arguments, ``"kernel<float>"``).
    arguments:
        One entry per kernel parameter: numpy arrays (copied to the GPU once;
        every configuration starts from these contents) and numpy scalars
        (``numpy.int32(n)``, passed by value).
    problem_size, block_size_names, grid_div_x, grid_div_y, grid_div_z:
        The launch geometry, as in Kernel Tuner (see :mod:`starchart.measure.launch`).
    defines:
        ``None``: every parameter, the block and grid dimensions and
        ``kernel_tuner=1`` are defined for the compiler. A dict: exactly these
        macros (values: constants, strings with parameter names substituted,
        or callables of the configuration).
    compiler_options:
        Extra NVRTC options (``"--use_fast_math"``, ``"-std=c++17"``).
    repeats:
        Timed launches per configuration (metric ``"time"``, milliseconds each).
    warmup:
        Untimed launches before timing.
    reference, answer:
        Correctness check (at most one). ``answer``: Kernel Tuner's list, one
        entry per argument, the expected array or None. ``reference``: a callable
        ``reference(config, arguments) -> list`` computing that list for a
        configuration from read-only views of the inputs (called once per
        configuration; use ``answer`` when it does not depend on it).
    rtol, atol:
        Tolerances of the check for floating-point outputs (integers must match exactly).
    smem_args:
        ``{"size": int | expression}``: bytes of dynamic shared memory per block.
    power:
        Also run the kernel back to back for ``power_duration_s`` while sampling
        NVML, adding metrics ``"power"`` (W) and ``"energy"`` (J per launch).
    device:
        CUDA device index.
    raw_defines:
        Pass parameter values to NVRTC as they are. By default each value that becomes
        a macro (every parameter, or those named in string ``defines``) must be a C
        literal (``16``, ``0.5f``, ``'c'``, ``"text"``) or an identifier (``float``):
        the value is compiled into the kernel, so C code in a space file would run in
        it. Set it only for a space you trust as code. The ``defines`` themselves are
        never checked: they are the evaluator's own, like ``compiler_options``.

    Notes
    -----
    Per configuration: compile (cached by compiler options), restore the inputs,
    launch once and compare outputs (when checking), restore the inputs again,
    ``warmup`` launches, ``repeats`` launches timed with CUDA events, and
    optionally the power run. Very short kernels (a few microseconds) cannot keep
    the GPU busy from Python during the power run; ``extra["power_duty"]`` (GPU
    time / wall time) shows how busy it was.

    :meth:`describe` records array arguments by shape and dtype only;
    :meth:`from_description` needs them passed again (``arguments=[...]``), and
    likewise ``answer``/``reference`` and callable ``defines``.
    """

    kind: ClassVar[str] = "cuda"
    needs_gpu: ClassVar[bool] = True
    path_options: ClassVar[tuple[str, ...]] = ("source", "inputs")
    packages: ClassVar[tuple[str, ...]] = ("cupy", "nvidia-ml-py")
    #: ``FILE.py:FUNCTION`` that made the arguments (and the answer or reference), when an evaluator file
    #: named one: recorded in :meth:`describe`, so that a resume makes them again.
    inputs: str | None = None
    #: What ``source`` ends with when it names a file; otherwise it is the kernel's code itself.
    SOURCE_SUFFIXES: ClassVar[tuple[str, ...]] = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp")

    @classmethod
    def cache_names(cls, description: Mapping[str, Any], environment: Mapping[str, Any]) -> dict[str, str]:
        """The kernel's name, and the name of the GPU it ran on (``device``, else the first)."""
        names = super().cache_names(description, environment)
        gpus, index = environment.get("gpus") or [], description.get("device")
        index = index if isinstance(index, int) and not isinstance(index, bool) else 0
        if index < len(gpus) and gpus[index].get("name"):
            names["device_name"] = str(gpus[index]["name"])
        return names

    @classmethod
    def _names_a_file(cls, option: str, value: str) -> bool:
        return option != "source" or value.strip().endswith(cls.SOURCE_SUFFIXES)

    def __init__(self, source: str | os.PathLike[str], kernel_name: str, arguments: Sequence[Any], *,
                 problem_size: ProblemSize,
                 block_size_names: Sequence[str | None] = DEFAULT_BLOCK_SIZE_NAMES,
                 grid_div_x: GridDiv = None, grid_div_y: GridDiv = None, grid_div_z: GridDiv = None,
                 defines: Mapping[str, Any] | None = None, compiler_options: Sequence[str] = (),
                 repeats: int = 10, warmup: int = 1,
                 reference: Callable[[dict[str, Any], list[Any]], Sequence[Any]] | None = None,
                 answer: Sequence[Any] | None = None, rtol: float = 1e-6, atol: float = 1e-6,
                 smem_args: Mapping[str, Any] | None = None, power: bool = False,
                 power_duration_s: float = 1.0, device: int = 0, raw_defines: bool = False):
        self.source, self.source_path = read_source(source)
        self.kernel_name = _check_kernel_name(kernel_name, self.source)
        self.arguments = check_arguments(arguments)
        self.geometry = LaunchGeometry(problem_size, block_size_names, grid_div_x, grid_div_y, grid_div_z)
        if defines is not None and not isinstance(defines, Mapping):
            raise InputError(f"defines must be a dict or None, got {type(defines).__name__}", where="defines")
        self.defines = dict(defines) if defines is not None else None
        if isinstance(compiler_options, str):
            compiler_options = [compiler_options]
        self.compiler_options = tuple(str(o) for o in compiler_options)
        self.repeats = _positive_int(repeats, "repeats", minimum=1)
        self.warmup = _positive_int(warmup, "warmup", minimum=0)
        if answer is not None and reference is not None:
            raise InputError("give either answer or reference, not both", where="CudaEvaluator")
        if reference is not None and not callable(reference):
            raise InputError(f"reference must be callable, got {type(reference).__name__}", where="reference",
                             hint="reference(config, arguments) returns the expected list, like answer")
        self.answer = check_answer(self.arguments, answer)
        self.reference = reference
        self.rtol = _non_negative(rtol, "rtol")
        self.atol = _non_negative(atol, "atol")
        self.smem_args = _check_smem_args(smem_args)
        self.power = check_bool(power, "power", "CudaEvaluator")
        self.power_duration_s = float(power_duration_s)
        if not self.power_duration_s > 0:
            raise InputError(f"must be positive, got {power_duration_s!r}", where="power_duration_s")
        self.device = _positive_int(device, "device", minimum=0)
        self.raw_defines = check_bool(raw_defines, "raw_defines", "CudaEvaluator")
        self.metrics = ("time", "power", "energy") if self.power else ("time",)
        self._session: Any = None
        self._sampler: NvmlPowerSampler | None = None
        self._kernels: dict[tuple[str, ...], tuple[Any, str]] = {}
        self._fatal: str | None = None

    # -- set-up
    def prepare(self, space: Space) -> None:
        """Check the launch expressions against the space's parameters, then open the GPU (and NVML)."""
        self.check_space(space)
        self._ensure_ready()

    def check_space(self, space: Space) -> None:
        """Check the macro names and the launch expressions against the space's parameters (no GPU needed)."""
        names = getattr(space, "names", None)
        if names is not None:
            if self.defines is None:  # every parameter becomes a macro: its name must be one
                bad = [name for name in names if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(name))]
                if bad:
                    raise InputError(f"the parameters {bad} cannot be preprocessor macros", where="space",
                                     hint="rename them to C identifiers, or pass defines={...}")
            self.geometry.check(names)
            if self.smem_args and isinstance(self.smem_args["size"], str):
                check_expression(self.smem_args["size"], names, label="smem_args['size']")
        # the values are compiled into the kernel: refuse C code before the GPU is opened
        for name, values in (getattr(space, "tune_params", None) or {}).items():
            for value in values:
                check_define_values({name: value}, self.defines, where="CudaEvaluator", raw=self.raw_defines)

    def _ensure_ready(self) -> None:
        if self._session is not None:
            return
        session = _CudaSession(self.device, self.arguments)
        if self.power:
            sampler = NvmlPowerSampler(self.device, pci_bus_id=session.info.get("pci_bus_id"))
            try:
                sampler.open()
                sampler.read_power()
            except BaseException:
                session.close()
                raise
            self._sampler = sampler
        self._session = session

    @property
    def device_info(self) -> dict[str, Any]:
        """Name, compute capability and PCI bus id of the GPU (empty before :meth:`prepare`)."""
        return dict(self._session.info) if self._session is not None else {}

    def evaluate(self, config: Mapping[str, Any]) -> Measurement:
        """Measure one configuration (opening the GPU first if :meth:`prepare` was not called)."""
        self._ensure_ready()  # a missing CuPy or GPU is the user's problem to fix, not a failed configuration
        if self._fatal is not None:
            # Raised, not recorded: a stored failure would be a configuration's result, and a
            # resumed run would skip it; nothing is stored, so the next process measures it.
            raise StarchartError(f"the CUDA context failed on an earlier configuration ({self._fatal})",
                                 hint="restart the process: a resumed run measures the configurations left")
        return super().evaluate(config)

    # -- one configuration
    def options(self, config: Mapping[str, Any], grid: tuple[int, int, int],
                block: tuple[int, int, int]) -> list[str]:
        """The compiler options of ``config``: user options, include folder, then the defines.

        Raises :class:`InputError` for a value that is not a C literal or identifier (unless ``raw_defines``).
        """
        check_define_values(config, self.defines, where="CudaEvaluator", raw=self.raw_defines)
        extra = list(self.compiler_options)
        if self.source_path is not None:
            extra.append(f"-I{Path(self.source_path).resolve().parent}")
        defines = compile_options(config, self.defines, grid=grid, block=block,
                                  block_size_names=self.geometry.block_size_names)
        return extra + defines

    def _kernel(self, options: list[str]) -> tuple[Any, str, float]:
        """The compiled kernel (or None and the compiler's message) and the seconds spent compiling now."""
        key = tuple(options)
        if key in self._kernels:
            kernel, error = self._kernels[key]
            return kernel, error, 0.0
        start = time.perf_counter()
        try:
            kernel, error = self._session.compile(self.source, self.kernel_name, options), ""
        except Exception as exc:  # noqa: BLE001 - any failure to build or load is the configuration's
            log = str(exc).strip() or type(exc).__name__
            kernel, error = None, f"{type(exc).__name__}: {log}"
        self._kernels[key] = (kernel, error)
        return kernel, error, time.perf_counter() - start

    def expected_outputs(self, config: Mapping[str, Any]) -> list[np.ndarray | None] | None:
        """What ``config`` must leave in each argument (None where unchecked): ``answer``, or what
        ``reference`` computes on read-only views of the inputs; None when nothing is checked."""
        if self.reference is None:
            return self.answer
        inputs: list[Any] = []
        for arg in self.arguments:
            if isinstance(arg, np.ndarray):
                view = arg.view()
                view.flags.writeable = False  # the reference must not change the evaluator's inputs
                inputs.append(view)
            else:
                inputs.append(arg)
        result = self.reference(dict(config), inputs)
        return check_answer(self.arguments, result, where="reference(...)")

    def _measure(self, config: dict[str, Any]) -> Measurement:
        session = self._session
        grid, block = self.geometry(config)
        shared_mem = shared_memory_size(self.smem_args, config)
        extra: dict[str, Any] = {"grid": list(grid), "block": list(block), "shared_mem": shared_mem}
        kernel, error, compile_s = self._kernel(self.options(config, grid, block))
        if kernel is None:
            extra["compiler_log"] = error[-8000:]
            return Measurement.failure(config, "compile", f"compilation failed: {_tail(error)}",
                                       compile_s=compile_s, extra=extra)
        extra["registers"] = session.registers(kernel)
        expected = self.expected_outputs(config)  # a failing reference is recorded by evaluate(), not as a CUDA error
        start = time.perf_counter()
        phase = "launch"
        try:
            session.allow_shared_memory(kernel, shared_mem)
            if expected is not None:
                session.reset()
                session.launch(kernel, grid, block, shared_mem)
                session.synchronize()
                checked = [i for i, e in enumerate(expected) if e is not None]
                fetched = session.fetch(checked)
                outputs = [fetched.get(i) for i in range(len(expected))]
                wrong = compare_outputs(outputs, expected, rtol=self.rtol, atol=self.atol)
                if wrong is not None:
                    return Measurement.failure(config, "wrong-answer", wrong, compile_s=compile_s,
                                               run_s=time.perf_counter() - start, extra=extra)
            session.reset()  # the check (or nothing) ran on fresh inputs; so does the timing
            for _ in range(self.warmup):
                session.launch(kernel, grid, block, shared_mem)
            phase = "timing"
            times = session.time_launches(kernel, grid, block, shared_mem, self.repeats)
            values: dict[str, list[float]] = {"time": times}
            if self.power:
                phase = "power run"
                values.update(self._power_run(session, kernel, grid, block, shared_mem, times, extra))
        except StarchartError:
            raise  # NVML and set-up problems are not the configuration's
        except Exception as exc:  # noqa: BLE001 - a failed launch is this configuration's result
            text, fatal = classify_cuda_error(exc)
            if fatal:
                self._fatal = text
                extra["fatal"] = True
            reason = explain_launch_error(text, grid, block, shared_mem)
            if phase != "launch":
                reason = f"{reason} (during the {phase})"
            return Measurement.failure(config, "runtime", reason, compile_s=compile_s,
                                       run_s=time.perf_counter() - start, extra=extra)
        return Measurement(config, values=values, compile_s=compile_s, run_s=time.perf_counter() - start,
                           extra=extra)

    def _power_run(self, session: Any, kernel: Any, grid: tuple[int, int, int], block: tuple[int, int, int],
                   shared_mem: int, times_ms: list[float], extra: dict[str, Any]) -> dict[str, list[float]]:
        assert self._sampler is not None
        launches = sustained_launches(self.power_duration_s, float(np.mean(times_ms)))
        gpu_s, trace, window = session.sustained(kernel, grid, block, shared_mem, launches, self._sampler)
        result = power_and_energy(trace, launches=launches, gpu_time_s=gpu_s, window=window)
        wall = window[1] - window[0]
        extra.update(trace.summary())
        extra.update({"power_launches": launches, "power_gpu_s": gpu_s,
                      "power_duty": gpu_s / wall if wall > 0 else None})
        return {"power": [result["power"]], "energy": [result["energy"]]}

    # -- description
    def describe(self) -> dict[str, Any]:
        """A JSON-able description; array arguments, ``answer`` and ``reference`` are only summarised."""
        description = super().describe()
        description.update(self.geometry.to_dict())
        description.update({
            "source": self.source, "source_path": self.source_path, "kernel_name": self.kernel_name,
            "arguments": describe_arguments(self.arguments), "defines": _describe_defines(self.defines),
            "compiler_options": list(self.compiler_options), "repeats": self.repeats, "warmup": self.warmup,
            "answer": self.answer is not None,
            "reference": (getattr(self.reference, "__qualname__", repr(self.reference))
                          if self.reference is not None else None),
            "rtol": self.rtol, "atol": self.atol, "smem_args": self.smem_args, "power": self.power,
            "power_duration_s": self.power_duration_s, "device": self.device,
        })
        if self.raw_defines:  # only when set: a store described without it stays the same evaluator
            description["raw_defines"] = True
        if self.inputs is not None:  # likewise
            description["inputs"] = self.inputs
        return description

    @classmethod
    def from_description(cls, description: Mapping[str, Any], arguments: Sequence[Any] | None = None,
                         **overrides: Any) -> CudaEvaluator:
        """Rebuild an evaluator from :meth:`describe`.

        Arrays cannot be stored in a description: pass ``arguments`` again (they
        are checked against the recorded shapes and dtypes). An evaluator made of
        scalars only is rebuilt without them. ``answer``, ``reference`` and
        callable ``defines`` must be passed again as keywords too; any other
        constructor keyword in ``overrides`` replaces the recorded value.

        Examples
        --------
        >>> n = 16
        >>> original = CudaEvaluator(VECTOR_ADD, "vector_add",
        ...                          [np.zeros(n, np.float32), np.ones(n, np.float32), np.ones(n, np.float32),
        ...                           np.int32(n)], problem_size=n)
        >>> arrays = [np.zeros(n, np.float32), np.ones(n, np.float32), np.ones(n, np.float32), np.int32(n)]
        >>> CudaEvaluator.from_description(original.describe(), arguments=arrays).describe() == original.describe()
        True
        """
        if description.get("kind") != cls.kind:
            raise InputError(f"not a CUDA evaluator description (kind {description.get('kind')!r})",
                             where="evaluator description")
        _check_description_keys(description)
        inputs = description.get("inputs")
        if inputs is not None and arguments is None:
            arguments, made = _made_inputs(inputs)
            overrides = {**made, **overrides}
        recorded = description.get("arguments")
        if recorded is None:
            recorded = []
        if not isinstance(recorded, (list, tuple)):
            raise InputError(f"must be a list of the kernel's arguments, got {recorded!r}", where="arguments",
                             hint="e.g. arguments: [{kind: scalar, dtype: int32, value: 1024}]")
        recorded = list(recorded)
        for i, entry in enumerate(recorded):
            if not isinstance(entry, Mapping) or entry.get("kind") not in ("scalar", "array"):
                raise InputError(f"each argument must be {{kind: scalar, dtype: ..., value: ...}} or an array's "
                                 f"{{kind: array, dtype: ..., shape: [...]}}, got {entry!r}", where=f"arguments[{i}]",
                                 hint="e.g. {kind: scalar, dtype: int32, value: 1024}")
        if arguments is None:
            arrays = [i for i, entry in enumerate(recorded) if entry.get("kind") == "array"]
            if arrays:
                raise InputError(f"argument {arrays[0]} is an array, and an evaluator description (a file or a "
                                 "study's store) records arrays by shape and dtype only, not their contents",
                                 where=f"arguments[{arrays[0]}]",
                                 hint="measure from Python, passing the arrays: starchart.run(space, "
                                      "CudaEvaluator(source, kernel_name, [arrays...], problem_size=...), ...) or "
                                      "CudaEvaluator.from_description(d, arguments=[...])")
            arguments = []
            for i, entry in enumerate(recorded):
                if "dtype" not in entry or "value" not in entry:
                    raise InputError(f"a scalar argument needs a dtype and a value, got {entry!r}",
                                     where=f"arguments[{i}]", hint="e.g. {kind: scalar, dtype: int32, value: 1024}")
                try:
                    arguments.append(np.dtype(entry["dtype"]).type(entry["value"]))
                except (TypeError, ValueError, OverflowError) as exc:
                    raise InputError(f"cannot make a {entry['dtype']!r} scalar of {entry['value']!r}: {exc}",
                                     where=f"arguments[{i}]",
                                     hint="use a numpy dtype name (int32, float32, uint64...) and a number") from None
        elif "arguments" in description:  # a recorded evaluator: the arguments made again must match it
            _match_arguments(recorded, check_arguments(arguments))
        defines = description.get("defines")
        if "defines" not in overrides and isinstance(defines, Mapping):
            lost = [name for name, value in defines.items() if isinstance(value, Mapping) and "callable" in value]
            if lost:
                raise InputError(f"the defines {lost} were functions, which a description cannot hold",
                                 where="evaluator description", hint="pass defines={...} again")
        if description.get("answer") and "answer" not in overrides and "reference" not in overrides:
            warnings.warn("the described evaluator checked outputs against an answer, which is not stored; "
                          "pass answer=[...] to check them again", stacklevel=2)
        if description.get("reference") and "reference" not in overrides and "answer" not in overrides:
            warnings.warn(f"the described evaluator checked outputs with reference "
                          f"{description['reference']}, which is not stored; pass reference=... again",
                          stacklevel=2)
        keys = ("problem_size", "block_size_names", "grid_div_x", "grid_div_y", "grid_div_z", "defines",
                "compiler_options", "repeats", "warmup", "rtol", "atol", "smem_args", "power",
                "power_duration_s", "device", "raw_defines")
        kwargs: dict[str, Any] = {key: description[key] for key in keys if key in description}
        if kwargs.get("block_size_names") is not None:
            names = list(kwargs["block_size_names"])
            while names and names[-1] is None:  # padding added by LaunchGeometry
                names.pop()
            kwargs["block_size_names"] = names
        kwargs.update(overrides)
        source = description.get("source")
        if source is None:
            raise InputError("the description has no source", where="evaluator description",
                             hint="add source: the kernel's .cu file (or its code)")
        if description.get("kernel_name") is None:
            raise InputError("the description has no kernel_name", where="evaluator description",
                             hint="add kernel_name: the __global__ function to launch")
        if kwargs.get("problem_size") is None:
            raise InputError("the description has no problem_size", where="evaluator description",
                             hint="add problem_size: e.g. 4096, [1024, 1024] or an expression such as 'n * 2'")
        evaluator = cls(source, description["kernel_name"], arguments, **kwargs)
        if description.get("source_path") is not None or evaluator.source_path is None:
            evaluator.source_path = description.get("source_path")
        if description.get("minimize") is not None:  # as described (else the metric's usual direction)
            evaluator.minimize = check_bool(description["minimize"], "minimize", "CudaEvaluator")
        evaluator.inputs = inputs
        return evaluator

    def close(self) -> None:
        """Release the GPU buffers, the compiled kernels and NVML."""
        sampler, session = self._sampler, self._session
        self._sampler = self._session = None
        self._kernels.clear()
        for resource in (sampler, session):
            if resource is not None:
                try:
                    resource.close()
                except Exception:  # noqa: BLE001 - a broken CUDA context may refuse to free; nothing to do
                    pass


#: What :meth:`CudaEvaluator.describe` writes besides the constructor's keywords.
_DESCRIPTION_ONLY_KEYS = ("kind", "metrics", "minimize", "source_path", "arguments", "answer", "reference", "inputs")
_INPUTS_HINT = ("inputs: FILE.py:FUNCTION, the file beside the evaluator file and the function returning the "
                "kernel's arguments, or a dict {arguments: [...], answer: [...] or reference: f}")


def _made_inputs(inputs: Any) -> tuple[list[Any], dict[str, Any]]:
    """Call the ``inputs: FILE.py:FUNCTION`` of an evaluator file: the kernel's arguments, and the ``answer``
    or ``reference`` keyword when the function returns them too.

    It imports the file as a module of its own name (its folder is searched for the modules it imports).
    """
    if not isinstance(inputs, str) or ":" not in inputs:
        raise InputError(f"must name a Python file and a function, got {inputs!r}", where="inputs",
                         hint=_INPUTS_HINT)
    file, _, name = inputs.rpartition(":")
    path = Path(file).expanduser()
    if not path.is_file():
        raise InputError(f"no such file {file!r}", where="inputs", hint=_INPUTS_HINT)
    module = load_module_file(path, where="inputs")
    function = getattr(module, name, None)
    if not callable(function):
        raise InputError(f"{file} has no function {name!r}", where="inputs", hint=_INPUTS_HINT)
    try:
        made = function()
    except Exception as exc:  # noqa: BLE001 - the user's function may fail in any way: one line, naming it
        raise InputError(f"{name}() of {file} failed: {type(exc).__name__}: {exc}", where="inputs",
                         hint=f"run it in Python, in its folder, to see the whole error: "
                              f"from {path.stem} import {name}; {name}()") from None
    if isinstance(made, Mapping):
        unknown = sorted(set(made) - {"arguments", "answer", "reference"})
        if unknown or "arguments" not in made:
            raise InputError(f"{name}() returned a dict with keys {sorted(made)}", where="inputs",
                             hint="return the argument list, or {arguments: [...], answer: [...] or reference: f}")
        return list(made["arguments"]), {key: made[key] for key in ("answer", "reference") if key in made}
    if isinstance(made, (list, tuple)):
        return list(made), {}
    raise InputError(f"{name}() returned a {type(made).__name__}, not the kernel's arguments", where="inputs",
                     hint=_INPUTS_HINT)


def _check_description_keys(description: Mapping[str, Any]) -> None:
    """Refuse a key that is neither described nor an option (a typo such as ``repeat`` would be ignored)."""
    accepted = (set(inspect.signature(CudaEvaluator.__init__).parameters) - {"self"}) | set(_DESCRIPTION_ONLY_KEYS)
    unknown = sorted(str(k) for k in description if k not in accepted)
    if unknown:
        raise unknown_options(unknown, sorted(accepted), "cuda", "evaluator description")


def _match_arguments(recorded: list[dict[str, Any]], arguments: list[np.ndarray | np.generic]) -> None:
    if len(recorded) != len(arguments):
        raise InputError(f"{len(arguments)} arguments given, the description has {len(recorded)}",
                         where="arguments")
    for i, (entry, arg) in enumerate(zip(recorded, arguments)):
        now = describe_arguments([arg])[0]
        if entry.get("kind") != now["kind"] or entry.get("dtype") != now["dtype"] or (
                now["kind"] == "array" and list(entry.get("shape", [])) != now["shape"]):
            shown = {k: v for k, v in entry.items() if k != "value"}
            got = {k: v for k, v in now.items() if k != "value"}
            raise InputError(f"expected {shown}, got {got}", where=f"arguments[{i}]",
                             hint="pass the same kinds, dtypes and shapes as when the evaluator was described")


def _tail(text: str, lines: int = 12, limit: int = 2000) -> str:
    kept = "\n".join(text.strip().splitlines()[-lines:])
    return kept if len(kept) <= limit else "..." + kept[-limit:]


def _positive_int(value: Any, name: str, *, minimum: int) -> int:
    return check(name, value, Interval(int, minimum, None))


def _non_negative(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0:
        raise InputError(f"must be a number >= 0, got {value!r}", where=name)
    return float(value)
