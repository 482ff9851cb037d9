"""Compiling CUDA without a GPU: finding the tools (NVRTC and ptxas from PyPI, or a CUDA toolkit),
compiling one configuration, and reading the resource usage that ptxas, cuobjdump, KTT or CuPy report.

The parsers and the compile step that :mod:`starchart.carve.resources` (every configuration) and
:mod:`starchart.carve.sass` (instruction counts) both build on.

Examples
--------
>>> text = '''ptxas info    : Compiling entry function 'matmul' for 'sm_80'
... ptxas info    : Function properties for matmul
...     24 bytes stack frame, 32 bytes spill stores, 20 bytes spill loads
... ptxas info    : Used 24 registers, used 1 barriers, 8192 bytes smem, 376 bytes cmem[0]'''
>>> u = parse_ptxas(text)[0]
>>> u.kernel, u.arch, u.registers, u.shared_bytes, u.spill_stores, u.constant_bytes
('matmul', 'sm_80', 24, 8192, 32, {0: 376})
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from starchart.carve.occupancy import _RENAMED, device_limits, target_arch
from starchart.errors import InputError, StarchartError

#: How to get the compiler tools without a CUDA toolkit.
CARVE_HINT = ("install NVIDIA's compilers from PyPI with pip install '.[carve]' in the starchart source folder "
              "(NVRTC, ptxas, nvdisasm, cuobjdump; no GPU needed), or put a CUDA toolkit's bin/ on PATH or in "
              "CUDA_HOME")
#: Shared memory the system reserves per block from compute capability 8.0 on.
RESERVED_SHARED = 1024


@dataclass(frozen=True)
class ResourceUsage:
    """What one compiled kernel uses.

    Attributes
    ----------
    kernel:
        The (possibly mangled) function name the compiler reports.
    arch:
        ``"sm_90"`` etc., when known.
    registers:
        Registers per thread.
    shared_bytes:
        Static shared memory per block, without the system-reserved 1 KB.
    local_bytes:
        Local memory per thread: the stack frame (spills and local arrays).
    spill_stores, spill_loads:
        Bytes spilled to / reloaded from local memory (``ptxas -v`` only; ``None`` otherwise).
    constant_bytes:
        Constant memory per bank (``{0: 376}``).
    barriers:
        Named barriers used (``ptxas -v`` of CUDA ≥ 11 only).
    source:
        ``"ptxas"``, ``"cuobjdump"``, ``"ktt"`` or ``"cupy"``.
    notes:
        Anything adjusted on the way (e.g. the reserved shared memory taken out).
    """

    kernel: str
    registers: int
    shared_bytes: int
    local_bytes: int = 0
    arch: str | None = None
    spill_stores: int | None = None
    spill_loads: int | None = None
    constant_bytes: dict[int, int] = field(default_factory=dict)
    barriers: int | None = None
    source: str = ""
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """A flat dict (``constant_bytes`` summed over banks), for a DataFrame row.

        >>> ResourceUsage("k", 32, 1024, constant_bytes={0: 352, 2: 8}).as_dict()["constant_bytes"]
        360
        """
        out = asdict(self)
        # sm_90 ptxas prints no cmem: unknown, not 0.
        out["constant_bytes"] = sum(self.constant_bytes.values()) if self.constant_bytes else None
        out["notes"] = "; ".join(self.notes)
        return out


# --- ptxas -v ---------------------------------------------------------------------------------------

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(\w+)'")
_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame(?:, (\d+) bytes spill stores, (\d+) bytes spill loads)?")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+)(?:\+(\d+))? bytes smem")
_LMEM = re.compile(r"(\d+) bytes lmem")
_CMEM = re.compile(r"(\d+) bytes cmem\[(\d+)\]")
_BARRIERS = re.compile(r"used (\d+) barriers")


def parse_ptxas(text: str, *, arch: str | None = None) -> list[ResourceUsage]:
    """Resource usage of every entry function in ``ptxas -v`` output.

    Accepts what ``nvcc -Xptxas -v``, ``ptxas -v`` and an NVRTC log with ``-Xptxas -v``
    print, from CUDA 1.x (``2088+16 bytes smem``, ``lmem``) to 13.x (``used N barriers``,
    no ``cmem`` on sm_90). Several architectures in one output give one entry each.

    Parameters
    ----------
    text:
        The compiler's standard error (other lines are ignored).
    arch:
        The architecture, for output that does not name it.

    Examples
    --------
    The usage of Ryoo et al.'s matrix multiplication (§4.2: 13 registers, 2088 bytes of shared
    memory), as a line of ``ptxas -v``:

    >>> u = parse_ptxas("ptxas info    : Used 13 registers, 2088 bytes smem", arch="sm_10")[0]
    >>> u.registers, u.shared_bytes, u.arch
    (13, 2088, 'sm_10')
    """
    usages: list[ResourceUsage] = []
    entry: str | None = None
    entry_arch = arch
    frames: dict[str, tuple[int, int | None, int | None]] = {}
    last_props: str | None = None
    for line in text.splitlines():
        if m := _ENTRY.search(line):
            entry, entry_arch = m.group(1), m.group(2)
            continue
        if m := _PROPERTIES.search(line):
            last_props = m.group(1).strip("'")
            continue
        if (m := _FRAME.search(line)) and last_props is not None:
            frames[last_props] = (int(m.group(1)), _int(m.group(2)), _int(m.group(3)))
            last_props = None
            continue
        if m := _USED.search(line):
            name = entry if entry is not None else (last_props or "")
            stack, stores, loads = frames.get(name, (0, None, None))
            shared = _SMEM.search(line)  # CUDA 1.x-2.x print "static+parameters bytes smem"
            smem = sum(int(g) for g in shared.groups() if g) if shared else 0
            lmem = _LMEM.search(line)
            usages.append(ResourceUsage(
                kernel=name, arch=entry_arch, registers=int(m.group(1)), shared_bytes=smem,
                local_bytes=int(lmem.group(1)) if lmem else stack, spill_stores=stores, spill_loads=loads,
                constant_bytes={int(bank): int(size) for size, bank in _CMEM.findall(line)},
                barriers=_int(_BARRIERS.search(line).group(1)) if _BARRIERS.search(line) else None,
                source="ptxas"))
            entry = None
    return usages


def _int(text: str | None) -> int | None:
    return int(text) if text is not None else None


# --- cuobjdump -res-usage ---------------------------------------------------------------------------

_ARCH_LINE = re.compile(r"^\s*arch\s*=\s*(sm_\w+)")
_FUNCTION = re.compile(r"^\s*Function\s+(\S+?):?\s*$")
_FIELDS = re.compile(r"([A-Z]+)(?:\[(\d+)\])?:(\d+)")


def parse_res_usage(text: str, *, arch: str | None = None) -> list[ResourceUsage]:
    """Resource usage of every function in ``cuobjdump -res-usage`` output.

    ``cuobjdump`` prints ``arch = sm_XX`` for each ELF of a fat binary, not for a bare
    cubin: give ``arch`` then. On sm_90 and later ``SHARED`` includes the 1 KB the system
    reserves per block (a kernel with no shared memory shows ``SHARED:1024``); it is taken
    out so that the value means the same as ``ptxas -v``'s ``smem``.

    Examples
    --------
    >>> text = '''Resource usage:
    ...  Function matmul:
    ...   REG:29 STACK:0 SHARED:3072 LOCAL:0 CONSTANT[0]:552 TEXTURE:0 SURFACE:0 SAMPLER:0'''
    >>> u = parse_res_usage(text, arch="sm_90")[0]
    >>> u.registers, u.shared_bytes, u.notes
    (29, 2048, ('SHARED:3072 includes the 1024 bytes reserved per block on sm_90',))
    """
    usages: list[ResourceUsage] = []
    current_arch = arch
    function: str | None = None
    for line in text.splitlines():
        if m := _ARCH_LINE.match(line):
            current_arch = m.group(1)
            continue
        if m := _FUNCTION.match(line):
            function = m.group(1)
            continue
        if function is None or "REG:" not in line:
            continue
        fields: dict[str, int] = {}
        constants: dict[int, int] = {}
        for name, bank, value in _FIELDS.findall(line):
            if name == "CONSTANT":
                constants[int(bank or 0)] = int(value)
            else:
                fields[name] = int(value)
        shared = fields.get("SHARED", 0)
        notes: tuple[str, ...] = ()
        major = _arch_major(current_arch)
        if major is not None and major >= 9 and shared >= RESERVED_SHARED:
            notes = (f"SHARED:{shared} includes the {RESERVED_SHARED} bytes reserved per block on {current_arch}",)
            shared -= RESERVED_SHARED
        elif major is None:
            notes = ("architecture unknown: on sm_90 and later SHARED includes 1024 reserved bytes (pass arch=)",)
        usages.append(ResourceUsage(
            kernel=function, arch=current_arch, registers=fields.get("REG", 0), shared_bytes=shared,
            local_bytes=fields.get("STACK", 0) + fields.get("LOCAL", 0), constant_bytes=constants,
            source="cuobjdump", notes=notes))
        function = None
    return usages


def _arch_major(arch: str | None) -> int | None:
    m = re.match(r"sm_(\d+)", arch or "")
    return int(m.group(1)) // 10 if m else None


# --- KTT and CuPy -----------------------------------------------------------------------------------

#: KTT's ``CompilationData`` keys (OpenCL vocabulary) → ours. KTT fills them from
#: ``cuFuncGetAttribute``: ``LocalMemorySize`` is CUDA *shared* memory
#: (``CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES``) and ``PrivateMemorySize`` CUDA *local* memory
#: (``CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES``); see KTT's Source/ComputeEngine/Cuda/CudaKernel.cpp.
KTT_FIELDS: dict[str, str] = {"RegistersCount": "registers", "LocalMemorySize": "shared_bytes",
                              "PrivateMemorySize": "local_bytes", "ConstantMemorySize": "constant_bytes",
                              "MaxWorkGroupSize": "max_threads_per_block"}


def from_ktt(compilation_data: Mapping[str, Any], kernel: str = "") -> ResourceUsage:
    """Resource usage from one KTT ``CompilationData`` object.

    >>> from_ktt({"ConstantMemorySize": 4356, "LocalMemorySize": 2944, "MaxWorkGroupSize": 1024,
    ...           "PrivateMemorySize": 0, "RegistersCount": 28}, "Convolution").shared_bytes
    2944
    """
    try:
        return ResourceUsage(kernel=kernel, registers=int(compilation_data["RegistersCount"]),
                             shared_bytes=int(compilation_data.get("LocalMemorySize", 0)),
                             local_bytes=int(compilation_data.get("PrivateMemorySize", 0)),
                             constant_bytes={0: int(compilation_data.get("ConstantMemorySize", 0))}, source="ktt")
    except (KeyError, TypeError, ValueError):
        raise InputError(f"not a KTT CompilationData object: {dict(compilation_data)!r}", where="CompilationData",
                         hint="it needs RegistersCount (and LocalMemorySize for shared memory)") from None


def ktt_resources(data: Any) -> pd.DataFrame:
    """Registers, shared and local memory columns from a KTT dataset (or its frame).

    :func:`starchart.io.ktt.read` keeps ``CompilationData`` under KTT's names; this renames
    them (``LocalMemorySize`` → ``shared_bytes``, ``PrivateMemorySize`` → ``local_bytes``...).
    Rows keep the dataset's index; a configuration without compilation data gets ``<NA>``.

    >>> f = pd.DataFrame({"RegistersCount": [28.0], "LocalMemorySize": [2944.0], "PrivateMemorySize": [0.0]})
    >>> ktt_resources(f).to_dict("records")
    [{'registers': 28, 'shared_bytes': 2944, 'local_bytes': 0}]
    """
    frame = getattr(data, "frame", data)
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"expected a KTT Dataset or DataFrame, got {type(data).__name__}", where="data",
                         hint="load the KTT file with starchart.load(path)")
    present = {k: v for k, v in KTT_FIELDS.items() if k in frame.columns}
    if "RegistersCount" not in present:
        raise InputError("no RegistersCount column: the KTT results carry no CompilationData", where="data",
                         hint="run KTT with compilation data collection (it is on by default for CUDA)")
    out = pd.DataFrame({ours: frame[theirs] for theirs, ours in present.items()}, index=frame.index)
    known = out.notna().all(axis=1)
    out = out.astype("Int64") if not known.all() else out.astype("int64")
    return out


#: CuPy ``RawKernel.attributes`` keys → ours (``cudaFuncAttributes`` fields).
CUPY_FIELDS: dict[str, str] = {"num_regs": "registers", "shared_size_bytes": "shared_bytes",
                               "local_size_bytes": "local_bytes", "const_size_bytes": "constant_bytes"}


def from_cupy(attributes: Mapping[str, Any], kernel: str = "") -> ResourceUsage:
    """Resource usage from CuPy's kernel attributes (no GPU needed to call this).

    On a GPU, ``cupy.RawKernel(code, name).attributes`` (or ``RawModule.get_function``)
    returns a dict of the CUDA function attributes: ``num_regs``, ``shared_size_bytes``,
    ``local_size_bytes``, ``const_size_bytes``, ``max_threads_per_block``, ``ptx_version``,
    ``binary_version``... Pass that dict here. ``shared_size_bytes`` is the static shared
    memory, as ``cudaFuncGetAttributes`` reports it.

    >>> from_cupy({"num_regs": 30, "shared_size_bytes": 2048, "local_size_bytes": 0,
    ...            "const_size_bytes": 0, "binary_version": 75}, "matmul").arch
    'sm_75'
    """
    if "num_regs" not in attributes:
        raise InputError("CuPy attributes need 'num_regs'", where="attributes",
                         hint="pass kernel.attributes of a cupy.RawKernel that has been compiled")
    version = attributes.get("binary_version")
    return ResourceUsage(kernel=kernel, registers=int(attributes["num_regs"]),
                         shared_bytes=int(attributes.get("shared_size_bytes", 0)),
                         local_bytes=int(attributes.get("local_size_bytes", 0)),
                         constant_bytes={0: int(attributes.get("const_size_bytes", 0))},
                         arch=f"sm_{int(version)}" if version else None, source="cupy")


def find_kernel(usages: Sequence[ResourceUsage], kernel: str, arch: str | None = None) -> ResourceUsage:
    """The usage of ``kernel`` among ``usages``: by exact name, else by its C++-mangled name.

    >>> us = [ResourceUsage("_Z6matmulPfS_S_", 30, 2048), ResourceUsage("_Z4axpyPf", 8, 0)]
    >>> find_kernel(us, "matmul").registers
    30
    """
    candidates = [u for u in usages if arch is None or u.arch in (None, arch)]
    exact = [u for u in candidates if u.kernel == kernel]
    if exact:
        return exact[0]
    # Itanium mangling: _Z [N <scope>...] <length><name> <parameter types>
    mangled = re.compile(rf"^_Z\w*?(?<![0-9]){len(kernel)}{re.escape(kernel)}")
    matches = [u for u in candidates if mangled.match(u.kernel)]
    if len(matches) == 1:
        return matches[0]
    names = ", ".join(u.kernel for u in candidates) or "none"
    raise InputError(f"kernel {kernel!r} {'is ambiguous' if matches else 'not found'} in the compiler output "
                     f"(functions: {names})", where="kernel", hint="give the exact (mangled) name, or declare "
                     "the kernel extern \"C\"")


# --- the tools --------------------------------------------------------------------------------------

def _release(text: str) -> tuple[int, int] | None:
    m = re.search(r"release (\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _min_sm(version: tuple[int, int] | None) -> int:
    """Oldest sm a CUDA release compiles for: 13.0 dropped Maxwell, Pascal and Volta."""
    return 75 if version is not None and version >= (13, 0) else 50


#: The first CUDA release that compiles for an sm (CUDA toolkit release notes); older sms are in every
#: release this module can use.
_FIRST_RELEASE: dict[int, tuple[int, int]] = {80: (11, 0), 86: (11, 1), 87: (11, 4), 89: (11, 8), 90: (11, 8),
                                              100: (12, 8), 101: (12, 8), 120: (12, 8), 103: (12, 9),
                                              121: (12, 9), 110: (13, 0)}
#: The first release with arch-specific (``sm_90a``) and family (``sm_100f``) targets.
_SUFFIX_RELEASE: dict[str, tuple[int, int]] = {"a": (12, 0), "f": (12, 9)}


def _first_release(sm: int, suffix: str = "") -> tuple[int, int]:
    """The first CUDA release that compiles for ``sm_{sm}{suffix}`` (``(0, 0)``: every release this module uses)."""
    return max(_FIRST_RELEASE.get(sm, (0, 0)), _SUFFIX_RELEASE.get(suffix, (0, 0)))


@dataclass(frozen=True)
class Tool:
    """One executable or library and its CUDA release."""

    path: Path
    version: tuple[int, int] | None

    def supports(self, sm: int, suffix: str = "") -> bool:
        """Whether this release compiles for ``sm`` (e.g. 70) with ``suffix`` (``"a"`` for sm_90a, ``"f"``).

        A tool whose release is unknown is given the benefit of the doubt (its compile errors say more).
        """
        if self.version is None:
            return sm >= _min_sm(None)
        return sm >= _min_sm(self.version) and self.version >= _first_release(sm, suffix)


@dataclass(frozen=True)
class Toolchain:
    """The CUDA compiler tools found on this machine (each a list, newest first)."""

    nvcc: tuple[Tool, ...] = ()
    ptxas: tuple[Tool, ...] = ()
    nvrtc: tuple[Tool, ...] = ()
    nvdisasm: tuple[Tool, ...] = ()
    cuobjdump: tuple[Tool, ...] = ()
    #: Tools found but left out because ``TOOL --version`` failed (e.g. a wrapper pointing at a removed
    #: toolkit), each ``(path, why)``: named in the "no compiler" errors so the user knows what to fix.
    broken: tuple[tuple[Path, str], ...] = ()

    def describe(self) -> dict[str, list[str]]:
        """Paths and releases, for logs and reports (``"broken"``: tools left out, and why)."""
        found = {name: [f"{t.path} ({'.'.join(map(str, t.version)) if t.version else '?'})"
                        for t in getattr(self, name)] for name in ("nvcc", "ptxas", "nvrtc", "nvdisasm", "cuobjdump")}
        if self.broken:
            found["broken"] = [f"{path}: {why}" for path, why in self.broken]
        return found

    def broken_note(self) -> str:
        """``"; left out broken tool(s): PATH (why); ..."`` when some tool's ``--version`` failed, else ``""``."""
        if not self.broken:
            return ""
        return "; left out broken tool(s): " + "; ".join(f"{path} ({why})" for path, why in self.broken)

    def pick(self, name: str, sm: int, at_least: tuple[int, int] | None = None, suffix: str = "") -> Tool | None:
        """The oldest tool ``name`` that supports ``sm`` (with ``suffix``: ``"a"``, ``"f"``) and is at least
        release ``at_least``."""
        fits = [t for t in getattr(self, name) if t.supports(sm, suffix) and
                (at_least is None or (t.version is not None and t.version >= at_least))]
        return min(fits, key=lambda t: t.version or (0, 0)) if fits else None


def _wheel_dirs() -> list[Path]:
    """The ``nvidia/`` namespace folders of the NVIDIA wheels installed in this Python."""
    try:
        import nvidia  # type: ignore[import-not-found]
    except ImportError:
        return []
    return [Path(p) for p in getattr(nvidia, "__path__", [])]


def _candidates(name: str) -> list[Path]:
    dirs: list[Path] = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            dirs.append(Path(os.environ[var]) / "bin")
    found = shutil.which(name)
    if found:
        dirs.append(Path(found).resolve().parent)
    dirs.append(Path("/usr/local/cuda/bin"))
    for base in _wheel_dirs():
        dirs += [base / "cuda_nvcc" / "bin", base / "cu13" / "bin", base / "cu12" / "bin",
                 base / f"cuda_{name}" / "bin"]
    seen: dict[Path, None] = {}
    for d in dirs:
        path = (d / name)
        if path.is_file() and os.access(path, os.X_OK):
            seen.setdefault(path.resolve(), None)
    return list(seen)


def _version_of(path: Path) -> tuple[int, int] | None:
    return _probe(path)[0]


def _probe(path: Path) -> tuple[tuple[int, int] | None, str | None]:
    """``(release, None)`` for a tool that answers ``--version``, ``(None, why)`` for one that cannot run.

    Every NVIDIA tool exits 0 on ``--version``; one that fails (a wrapper script left pointing at a removed
    toolkit, a binary for another platform) would fail every compile too, so it is not a usable tool.
    """
    try:
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"--version failed: {exc}"
    if out.returncode != 0:
        said = (out.stderr or out.stdout).strip().splitlines()
        return None, f"--version exited with {out.returncode}" + (f": {said[-1][:200]}" if said else "")
    return _release(out.stdout + out.stderr), None


def _nvrtc_libraries() -> list[Path]:
    found: list[Path] = []
    for base in _wheel_dirs():
        for sub in ("cuda_nvrtc/lib", "cu13/lib", "cu12/lib"):
            found += sorted((base / sub).glob("libnvrtc.so.*")) if (base / sub).is_dir() else []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            found += sorted((Path(os.environ[var]) / "lib64").glob("libnvrtc.so*"))
    found += sorted(Path("/usr/local/cuda/lib64").glob("libnvrtc.so*"))
    out: dict[Path, None] = {}
    for p in found:
        if "builtins" not in p.name and "alt" not in p.name:
            out.setdefault(p.resolve(), None)
    return list(out)


_NVRTC_LOCK = threading.Lock()
_NVRTC_LIBS: dict[Path, Any] = {}


def _load_nvrtc(path: Path) -> Any:
    with _NVRTC_LOCK:
        if path not in _NVRTC_LIBS:
            lib = ctypes.CDLL(str(path))
            lib.nvrtcGetErrorString.restype = ctypes.c_char_p
            _NVRTC_LIBS[path] = lib
        return _NVRTC_LIBS[path]


def _nvrtc_version(path: Path) -> tuple[int, int] | None:
    try:
        lib = _load_nvrtc(path)
    except OSError:
        return None
    major, minor = ctypes.c_int(), ctypes.c_int()
    if lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) != 0:
        return None
    return (major.value, minor.value)


_TOOLCHAIN: Toolchain | None = None


def find_toolchain(refresh: bool = False) -> Toolchain:
    """Find ``nvcc``, ``ptxas``, ``nvdisasm``, ``cuobjdump`` and NVRTC.

    Looks in ``CUDA_HOME``/``CUDA_PATH``, ``PATH``, ``/usr/local/cuda`` and NVIDIA's PyPI
    wheels installed in this Python (``nvidia-cuda-nvcc-cu12`` ships ``ptxas``,
    ``nvidia-cuda-nvrtc-cu12`` NVRTC, ``nvidia-cuda-nvdisasm`` and ``nvidia-cuda-cuobjdump``
    the disassemblers). The result is cached; ``refresh=True`` looks again.
    """
    global _TOOLCHAIN
    if _TOOLCHAIN is not None and not refresh:
        return _TOOLCHAIN

    broken: list[tuple[Path, str]] = []

    def tools(name: str) -> tuple[Tool, ...]:
        found = []
        for path in _candidates(name):
            version, why = _probe(path)
            if why is not None:  # a tool that cannot say its version cannot compile either: leave it out
                broken.append((path, why))
            else:
                found.append(Tool(path, version))
        return tuple(sorted(found, key=lambda t: t.version or (0, 0), reverse=True))

    nvrtc = [Tool(p, _nvrtc_version(p)) for p in _nvrtc_libraries()]
    _TOOLCHAIN = Toolchain(nvcc=tools("nvcc"), ptxas=tools("ptxas"), nvdisasm=tools("nvdisasm"),
                           cuobjdump=tools("cuobjdump"),
                           nvrtc=tuple(sorted((t for t in nvrtc if t.version), key=lambda t: t.version or (0, 0),
                                              reverse=True)),
                           broken=tuple(broken))
    return _TOOLCHAIN


# --- compiling one configuration --------------------------------------------------------------------

@dataclass(frozen=True)
class Compiled:
    """The outcome of compiling one configuration.

    ``status`` is ``"ok"`` or ``"compile"`` (the compiler refused; ``reason`` holds its
    message). ``cubin`` is the path of the cached cubin (for :mod:`starchart.carve.sass`).
    """

    status: str
    reason: str = ""
    usage: ResourceUsage | None = None
    cubin: Path | None = None
    log: str = ""
    tools: str = ""


def _sm(cc: Any) -> int:
    lim = device_limits(cc)
    return int(lim.cc.replace(".", ""))


def _suffix(cc: Any) -> str:
    """``"a"`` for sm_90a, ``"f"`` for sm_100f, else ``""``."""
    return target_arch(cc)[len(f"sm_{_sm(cc)}"):]


class _CompileError(Exception):
    pass


def _nvrtc_ptx(lib_path: Path, source: str, name: str, options: Sequence[str]) -> tuple[str, str]:
    """Source → PTX with NVRTC through ctypes; returns (ptx, log)."""
    lib = _load_nvrtc(lib_path)
    prog = ctypes.c_void_p()
    check = _nvrtc_check(lib)
    check(lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None),
          "nvrtcCreateProgram")
    try:
        encoded = [o.encode() for o in options]
        array = (ctypes.c_char_p * len(encoded))(*encoded)
        status = lib.nvrtcCompileProgram(prog, len(encoded), array)
        size = ctypes.c_size_t()
        check(lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size)), "nvrtcGetProgramLogSize")
        log = ctypes.create_string_buffer(size.value)
        check(lib.nvrtcGetProgramLog(prog, log), "nvrtcGetProgramLog")
        text = log.value.decode(errors="replace")
        if status != 0:
            raise _CompileError(text.strip() or lib.nvrtcGetErrorString(status).decode())
        check(lib.nvrtcGetPTXSize(prog, ctypes.byref(size)), "nvrtcGetPTXSize")
        ptx = ctypes.create_string_buffer(size.value)
        check(lib.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
        return ptx.value.decode(), text
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def _nvrtc_check(lib: Any):
    def check(status: int, what: str) -> None:
        if status != 0:
            raise StarchartError(f"{what} failed: {lib.nvrtcGetErrorString(status).decode()}",
                                 hint="check the NVRTC installation (" + CARVE_HINT + ")")
    return check


def _run(cmd: list[str], timeout: float) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise _CompileError(f"{Path(cmd[0]).name} timed out after {timeout:g} s") from None
    log = (out.stdout + out.stderr).strip()
    if out.returncode != 0:
        raise _CompileError(log or f"{Path(cmd[0]).name} exited with {out.returncode}")
    return log


def compile_source(source: str, kernel: str, cc: Any, options: Sequence[str] = (), *, out_dir: Path,
                   backend: str = "auto", include_dirs: Sequence[Path] = (), line_info: bool = True,
                   toolchain: Toolchain | None = None, timeout: float = 300.0, name: str | None = None,
                   ptxas_options: Sequence[str] = ()) -> Compiled:
    """Compile CUDA ``source`` for compute capability ``cc`` to ``out_dir/kernel.cubin`` and read its usage.

    ``backend`` is ``"nvrtc"`` (NVRTC to PTX, then ``ptxas -v``: no host compiler needed),
    ``"nvcc"`` (``nvcc -cubin -Xptxas -v``) or ``"auto"`` (NVRTC when a matching
    ``ptxas`` exists, else ``nvcc``). ``options`` go to NVRTC or nvcc (a ``-maxrregcount``
    among them also to ptxas), ``ptxas_options`` to ptxas. A compiler error is returned as
    ``status="compile"``; missing tools raise :class:`~starchart.errors.StarchartError` with
    an install hint.
    """
    tc = toolchain or find_toolchain()
    sm, suffix = _sm(cc), _suffix(cc)
    arch = f"sm_{sm}{suffix}"  # the exact target: sm_90a's wgmma/setmaxnreg do not compile for sm_90
    out_dir.mkdir(parents=True, exist_ok=True)
    cubin = out_dir / "kernel.cubin"
    includes = [f"-I{d}" for d in include_dirs]
    chosen = _choose_backend(tc, sm, backend, suffix)
    try:
        if chosen[0] == "nvrtc":
            _, lib, ptxas = chosen
            opts = [f"--gpu-architecture=compute_{sm}{suffix}", *includes, *(["-lineinfo"] if line_info else []), *options]
            ptx, nvrtc_log = _nvrtc_ptx(lib.path, source, name or f"{kernel}.cu", opts)
            ptx_file = out_dir / "kernel.ptx"
            ptx_file.write_text(ptx)
            # Register caps act in ptxas, which runs separately here: pass them on.
            caps = ["-maxrregcount=" + m.group(1) for o in options
                    if (m := re.match(r"^--?maxrregcount[= ]?(\d+)$", o))]
            log = _run([str(ptxas.path), "-v", f"-arch={arch}", *(["-lineinfo"] if line_info else []),
                        *caps, *ptxas_options,
                        str(ptx_file), "-o", str(cubin)], timeout)
            log = "\n".join(x for x in (nvrtc_log.strip(), log) if x)
            tools = f"NVRTC {_v(lib)} + ptxas {_v(ptxas)}"
        else:
            _, nvcc = chosen
            src = out_dir / "kernel.cu"
            src.write_text(source)
            log = _run([str(nvcc.path), "-cubin", f"-arch={arch}", "-Xptxas", "-v",
                        *(x for o in ptxas_options for x in ("-Xptxas", o)),
                        *(["-lineinfo"] if line_info else []), *includes, *options, str(src), "-o", str(cubin)],
                       timeout)
            tools = f"nvcc {_v(nvcc)}"
    except _CompileError as err:
        return Compiled(status="compile", reason=_first_error(str(err)), log=str(err))
    try:
        usage = find_kernel(parse_ptxas(log, arch=arch), kernel, arch)
    except InputError as err:
        return Compiled(status="compile", reason=err.message, log=log, tools=tools)
    return Compiled(status="ok", usage=usage, cubin=cubin, log=log, tools=tools)


def _v(tool: Tool) -> str:
    return ".".join(map(str, tool.version)) if tool.version else "?"


#: "ptxas /tmp/…/kernel.ptx, line 31; error   : Instruction …": the path is a temporary or cache file of ours.
_PTXAS_AT = re.compile(r"^ptxas \S+, line (\d+); (error|warning)\s*:\s*")


def _first_error(log: str) -> str:
    """The compiler's first error line, without the path of the intermediate PTX file it names (a long
    temporary or cache path that would crowd the message out of a shortened error)."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower() or "fatal" in line.lower()]
    first = (errors or lines or ["compilation failed"])[0]
    first = _PTXAS_AT.sub(lambda m: f"ptxas {m.group(2)} (PTX line {m.group(1)}): ", first)
    return first[:500]


def _choose_backend(tc: Toolchain, sm: int, backend: str, suffix: str = "") -> tuple:
    if backend not in ("auto", "nvrtc", "nvcc"):
        raise InputError(f"unknown backend {backend!r}", where="backend", hint="use 'auto', 'nvrtc' or 'nvcc'")
    arch = f"sm_{sm}{suffix}"
    if backend in ("auto", "nvrtc"):
        for lib in tc.nvrtc:  # newest NVRTC that targets this sm, with a ptxas at least as new
            if lib.supports(sm, suffix):
                ptxas = tc.pick("ptxas", sm, at_least=lib.version, suffix=suffix)
                if ptxas is not None:
                    return ("nvrtc", lib, ptxas)
        if backend == "nvrtc":
            raise StarchartError(f"no NVRTC with a matching ptxas for {arch}{_needs(sm, suffix)} (found: "
                                 f"{tc.describe()})", hint=_install_hint(sm, suffix))
    nvcc = tc.pick("nvcc", sm, suffix=suffix)
    if nvcc is None:
        hint = ("fix or remove the broken tool(s) above (PATH, CUDA_HOME), or " if tc.broken else "") + \
            _install_hint(sm, suffix)
        raise StarchartError(f"no CUDA compiler for {arch} found{_needs(sm, suffix)}{_found(tc, arch)}"
                             f"{tc.broken_note()}", hint=hint)
    return ("nvcc", nvcc)


def _needs(sm: int, suffix: str) -> str:
    """``" (sm_110 needs CUDA 13.0 or later; ...)"``: the release a target needs, for the "no compiler" errors."""
    arch = f"sm_{sm}{suffix}"
    if sm < 75:
        return " (CUDA 13 dropped sm_70: use the cu12 wheels or a CUDA 12 toolkit)"
    first = _first_release(sm, suffix)
    if first == (0, 0):
        return ""
    old = next((k for k, v in _RENAMED.items() if v == f"{sm // 10}.{sm % 10}"), None)
    renamed = f"; CUDA 12.x calls this GPU sm_{old.replace('.', '')}{suffix}" if old else ""
    return f" ({arch} needs CUDA {first[0]}.{first[1]} or later{renamed})"


def _install_hint(sm: int, suffix: str) -> str:
    """How to get a compiler for ``sm_{sm}{suffix}``: the ``carve`` extra's (CUDA 12.9), or CUDA 13's for the
    targets only CUDA 13 has (sm_110)."""
    if _first_release(sm, suffix) < (13, 0):
        return CARVE_HINT
    return ("the carve extra's compilers are CUDA 12.9's: install CUDA 13's from PyPI with pip install "
            "'nvidia-cuda-nvrtc>=13' 'nvidia-cuda-nvcc>=13' (NVRTC and ptxas; no GPU needed), or put a CUDA 13 "
            "toolkit's bin/ on PATH or in CUDA_HOME")


def _found(tc: Toolchain, arch: str) -> str:
    """``"; found NVRTC 12.9, ptxas 12.9, none of which targets sm_110"``: the compilers there are (none: "")."""
    found = dict.fromkeys(f"{label} {_v(t)}" for label, name in (("nvcc", "nvcc"), ("NVRTC", "nvrtc"),
                                                                 ("ptxas", "ptxas")) for t in getattr(tc, name))
    return f"; found {', '.join(found)}, none of which targets {arch}" if found else ""


# --- every configuration, cached --------------------------------------------------------------------

def _default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "starchart" / "carve"



def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, e.g. under ``taskset`` or a container's cpuset; the
    machine's count where there is no affinity): the command line's default ``--jobs``.

    >>> usable_cores() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS and Windows have no sched_getaffinity
        return max(1, os.cpu_count() or 1)


def _each(work: Callable[[Any], Any], items: Mapping[str, Any], jobs: int,
          finished: Callable[[str, Any], None]) -> None:
    """``finished(key, work(item))`` for every item, ``jobs`` at a time, in the calling thread as each ends.

    On Ctrl-C (or any error) the items not started are cancelled at once instead of run to the end, as
    leaving a ``ThreadPoolExecutor`` block would: only the compiles already running finish (and are kept).
    """
    if jobs <= 1 or len(items) <= 1:
        for key, item in items.items():
            finished(key, work(item))
        return
    pool = ThreadPoolExecutor(jobs)
    try:
        pending = {pool.submit(work, item): key for key, item in items.items()}
        while pending:
            ended, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in ended:
                finished(pending.pop(future), future.result())
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
