"""Resource usage per configuration: registers, shared memory, local memory and spills.

From whichever the user has:

- ``ptxas -v`` output (``nvcc -Xptxas -v``, NVRTC with ``-Xptxas -v``): :func:`parse_ptxas`;
- ``cuobjdump -res-usage`` output: :func:`parse_res_usage`;
- KTT's ``CompilationData`` (one result, or the columns of a KTT dataset): :func:`from_ktt`,
  :func:`ktt_resources`;
- CuPy's kernel attributes (``cupy.RawKernel.attributes`` on a GPU): :func:`from_cupy`, a pure
  function of the dict;
- or compile every configuration of a CUDA kernel without a GPU: :class:`ResourceCompiler`
  (NVRTC + ``ptxas`` from the ``carve`` extra, or ``nvcc`` when installed), one
  ``-D`` define per parameter, results cached per configuration.

Shared memory is always the **static** shared memory of one block as the compiler allocates it,
without the 1 KB the system reserves per block on compute capability 8.0 and later (the occupancy
calculator adds that itself). ``cuobjdump -res-usage`` on sm_90 cubins counts that reserved window
in ``SHARED``; :func:`parse_res_usage` subtracts it when it knows the architecture (and says so in
``notes``).

The parsers and the compile step live in :mod:`starchart.carve.toolchain` (its examples show them);
this module compiles every configuration and caches what it found.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from starchart._compat import moved_name
from starchart._util.configs import config_key, frame_configs, plain_config
from starchart.carve.occupancy import device_limits, target_arch
from starchart.carve.progress import ProgressOption, step_progress
from starchart.carve.sass import sass_counts_frame, source_trip_counts
from starchart.carve.toolchain import (
    Compiled,
    ResourceUsage,
    Toolchain,
    _choose_backend,
    _default_cache,
    _each,
    _sm,
    _suffix,
    compile_source,
    find_toolchain,
)
from starchart.errors import InputError
from starchart.measure.launch import check_define_values, compile_options

__all__ = ["ResourceCompiler", "resource_usage"]


def __getattr__(name: str) -> Any:
    # the parsers and the toolchain moved to starchart.carve.toolchain; their old names still work here
    return moved_name(__name__, name)

class ResourceCompiler:
    """Compile every configuration of a CUDA kernel and read its resource usage, without a GPU.

    Each parameter becomes a macro (``-DTILE=16``; or the ``defines`` you give, as in
    :func:`starchart.measure.launch.compile_options`); results, the cubin and the
    compiler log are cached on disk per (source, kernel, compute capability, options,
    tool versions), so a second pass over a space costs nothing.

    Parameters
    ----------
    source:
        CUDA source text, or the path of a ``.cu`` file (its folder is on the include path).
    kernel:
        The ``__global__`` function (``extern "C"`` or not).
    cc:
        Target compute capability (``"9.0"``...), or an arch-specific or family target (``"sm_90a"``,
        ``"sm_100f"``): compiled for exactly that target, occupancy from the base capability.
    options:
        Extra compiler options (``"-O3"``, ``"--use_fast_math"``, ``"-std=c++17"``, ``"-I<dir>"``,
        ``"-maxrregcount=32"``).
    ptxas_options:
        Options for ptxas (``"-O2"``, ``"--allow-expensive-optimizations=false"``).
    defines:
        Kernel Tuner's ``defines``; default: every parameter of the configuration.
    backend:
        ``"auto"``, ``"nvrtc"`` or ``"nvcc"`` (see :func:`compile_source`).
    cache_dir:
        Where to keep results (default ``~/.cache/starchart/carve``); ``False`` for a
        temporary folder.
    jobs:
        Configurations compiled (and disassembled) at once (each compile is one process/thread).
    raw_defines:
        Pass parameter values to the compiler as they are; by default each must be a C
        literal or an identifier (see :func:`starchart.measure.launch.check_define_values`),
        since a value is compiled into the kernel. Only for a space you trust as code.

    Results are kept as each configuration finishes: after Ctrl-C the same call compiles only
    what is left. :meth:`frame` and :meth:`compile_all` take ``progress`` (``True``: a bar on
    stderr; see :mod:`starchart.carve.progress`).

    Examples
    --------
    >>> rc = ResourceCompiler("extern \\"C\\" __global__ void k(float *a) { a[threadIdx.x] *= N; }", "k", "8.0")
    >>> rc.kernel, rc.sm
    ('k', 80)
    >>> ResourceCompiler("extern \\"C\\" __global__ void k() {}", "k", "compute_90a").arch
    'sm_90a'
    """

    def __init__(self, source: str | Path, kernel: str, cc: Any, *, options: Sequence[str] = (),
                 ptxas_options: Sequence[str] = (), defines: Mapping[str, Any] | None = None, backend: str = "auto",
                 cache_dir: str | Path | bool | None = None, jobs: int = 1, line_info: bool = True,
                 toolchain: Toolchain | None = None, timeout: float = 300.0, raw_defines: bool = False):
        self.include_dirs: tuple[Path, ...] = ()
        if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source and
                                        source.endswith((".cu", ".cuh", ".cuda"))):
            path = Path(source)
            if not path.is_file():
                raise InputError(f"no CUDA source file {path}", where=path, hint="give the .cu file or its text")
            self.source = path.read_text()
            self.include_dirs = (path.resolve().parent,)
            self.name = path.name
        else:
            self.source = str(source)
            self.name = f"{kernel}.cu"
        self.kernel = kernel
        self.cc = device_limits(cc).cc
        self.sm = _sm(cc)
        #: The exact target (``"sm_90a"``): what is compiled for; ``cc``/``sm`` are its base capability.
        self.arch = target_arch(cc)
        self.suffix = _suffix(cc)
        self.options = tuple(options)
        self.ptxas_options = tuple(ptxas_options)
        self.defines = defines
        self.raw_defines = bool(raw_defines)
        self.backend = backend
        self.jobs = max(1, int(jobs))
        self.line_info = line_info
        self.timeout = timeout
        self._toolchain = toolchain
        if cache_dir is False:
            self._tmp = tempfile.TemporaryDirectory(prefix="starchart-carve-")
            self.cache_dir = Path(self._tmp.name)
        else:
            self.cache_dir = Path(cache_dir) if cache_dir not in (None, True) else _default_cache()

    @property
    def toolchain(self) -> Toolchain:
        """The tools used (found on first use)."""
        if self._toolchain is None:
            self._toolchain = find_toolchain()
        return self._toolchain

    def _options(self, config: Mapping[str, Any]) -> list[str]:
        config = plain_config(config)
        check_define_values(config, self.defines, where="ResourceCompiler", raw=self.raw_defines)
        return compile_options(config, self.defines, self.options)

    def _key(self, options: Sequence[str]) -> str:
        chosen = _choose_backend(self.toolchain, self.sm, self.backend, self.suffix)
        tools = [f"{t.path}:{t.version}" for t in chosen[1:]]
        # sm_90a's cubin is not sm_90's; a plain sm keeps its old key (and its cached results)
        target: int | str = self.arch if self.suffix else self.sm
        blob = json.dumps([self.source, self.kernel, target, list(options), list(self.ptxas_options), tools,
                           self.line_info])
        return hashlib.sha256(blob.encode()).hexdigest()[:24]

    def compile(self, config: Mapping[str, Any]) -> Compiled:
        """Compile one configuration (or return the cached result)."""
        options = self._options(config)
        folder = self.cache_dir / self._key(options)
        record = folder / "result.json"
        if record.is_file():
            try:
                return _load_record(record, folder)
            except (OSError, ValueError, KeyError, TypeError):
                pass  # a damaged cache entry is simply rebuilt
        result = compile_source(self.source, self.kernel, self.arch, options, out_dir=folder, backend=self.backend,
                                include_dirs=self.include_dirs, line_info=self.line_info,
                                toolchain=self.toolchain, timeout=self.timeout, name=self.name,
                                ptxas_options=self.ptxas_options)
        tmp = record.with_suffix(".tmp")
        tmp.write_text(json.dumps({"status": result.status, "reason": result.reason, "log": result.log,
                                   "tools": result.tools, "options": options,
                                   "usage": asdict(result.usage) if result.usage else None}))
        tmp.replace(record)
        return result

    def compile_all(self, configs: Any, params: Sequence[str] | None = None, *,
                    progress: ProgressOption = False) -> list[Compiled]:
        """:meth:`compile` every configuration (``jobs`` at a time), in order.

        ``configs``: a DataFrame (``params`` columns, default all), a
        :class:`~starchart.dataset.Dataset` (its parameters) or dicts. ``progress``: see
        :mod:`starchart.carve.progress` (step ``"compiling"``, one item per distinct macro set).
        """
        frame = _config_frame(configs, params)
        rows = list(frame_configs(frame))
        # Identical macro sets compile once even when configurations differ in unused parameters.
        unique: dict[str, Mapping[str, Any]] = {}
        keys = []
        for row in rows:
            key = config_key(row)
            unique.setdefault(key, row)
            keys.append(key)
        for config in unique.values():  # a value that is C code is refused before anything compiles
            self._options(config)
        done: dict[str, Compiled] = {}
        with step_progress(progress, f"for {self.arch}") as bar:
            bar.start("compiling", len(unique))

            def finished(key: str, result: Compiled) -> None:
                done[key] = result
                bar.advance("compiling", failed=result.status != "ok")

            _each(self.compile, unique, self.jobs, finished)
        return [done[key] for key in keys]

    def frame(self, configs: Any, *, params: Sequence[str] | None = None, counts: bool = False,
              trip_counts: Mapping[Any, Any] | str | None = None, constants: Mapping[str, Any] | None = None,
              default_trip: float = 1.0, progress: ProgressOption = False) -> pd.DataFrame:
        """Resource usage (and optionally SASS instruction counts) of every configuration.

        ``configs`` is a DataFrame (only its ``params`` columns become macros; default all), a
        :class:`~starchart.dataset.Dataset` (its parameters) or an iterable of dicts.

        Columns: the parameters, ``registers``, ``shared_bytes``, ``local_bytes``,
        ``spill_stores``, ``spill_loads``, ``constant_bytes``, ``barriers``, ``status``
        (``"ok"`` / ``"compile"``), ``reason``, ``cubin`` (path of the cached cubin). A frame
        keeps its index.

        With ``counts=True`` or ``trip_counts`` given, also the columns of
        :func:`starchart.carve.sass.sass_counts_frame` (``instructions``, ``regions``,
        ``barriers_executed``...): ``trip_counts="source"`` reads ``// trips:`` comments from
        the kernel source; ``constants`` gives values of macros that are not parameters.

        ``progress``: ``True`` shows a bar on stderr for the compiling and disassembling steps, a
        function ``progress(step, done, total)`` is called after each configuration (see
        :mod:`starchart.carve.progress`).
        """
        frame = _config_frame(configs, params)
        with step_progress(progress, f"for {self.arch}") as bar:
            return self._frame(frame, counts, trip_counts, constants, default_trip, bar)

    def _frame(self, frame: pd.DataFrame, counts: bool, trip_counts: Mapping[Any, Any] | str | None,
               constants: Mapping[str, Any] | None, default_trip: float, bar: Any) -> pd.DataFrame:
        if isinstance(trip_counts, str) and trip_counts != "source":  # before minutes of compiling, not after
            raise InputError(f"trip_counts must be a mapping or 'source', got {trip_counts!r}",
                             where="trip_counts", hint="e.g. {'line:38': 'N / TILE'} or 'source'")
        results = self.compile_all(frame, progress=bar)
        columns = ("registers", "shared_bytes", "local_bytes", "spill_stores", "spill_loads", "constant_bytes",
                   "barriers")
        rows = []
        for r in results:
            usage = r.usage.as_dict() if r.usage else {}
            rows.append({**{c: usage.get(c) for c in columns}, "status": r.status, "reason": r.reason,
                         "cubin": str(r.cubin) if r.cubin else None})
        out = pd.DataFrame(rows, index=frame.index, columns=[*columns, "status", "reason", "cubin"])  # 0 rows too
        for c in columns:
            out[c] = pd.to_numeric(out[c]).astype("Int64")
        result = pd.concat([frame, out], axis=1)
        if not (counts or trip_counts is not None):
            return result
        if isinstance(trip_counts, str):
            trip_counts = source_trip_counts(self.source)
        sass = sass_counts_frame(result, self.kernel, trip_counts, params=list(frame.columns), constants=constants,
                                 default_trip=default_trip, toolchain=self.toolchain, jobs=self.jobs,
                                 progress=bar)
        # ptxas's "barriers" (named barriers used) and the executed barrier count differ.
        sass = sass.rename(columns={"barriers": "barriers_executed"})
        return pd.concat([result, sass], axis=1)


def _config_frame(configs: Any, params: Sequence[str] | None) -> pd.DataFrame:
    """The parameter columns of a DataFrame, a Dataset or an iterable of dicts."""
    if hasattr(configs, "frame") and hasattr(configs, "params"):  # a Dataset
        frame, params = configs.frame, list(params or configs.params)
    elif isinstance(configs, pd.DataFrame):
        frame = configs
    else:
        frame = pd.DataFrame([dict(c) for c in configs])
    if params is None:
        return frame
    missing = [p for p in params if p not in frame.columns]
    if missing:
        raise InputError(f"no column for parameter(s) {', '.join(map(repr, missing))}", where="params",
                         hint=f"columns are: {', '.join(map(str, frame.columns))}")
    return frame[list(params)]


def _load_record(record: Path, folder: Path) -> Compiled:
    data = json.loads(record.read_text())
    usage = data.get("usage")
    if usage is not None:
        usage = ResourceUsage(**{**usage, "constant_bytes": {int(k): v for k, v in usage["constant_bytes"].items()},
                                 "notes": tuple(usage.get("notes", ()))})
    cubin = folder / "kernel.cubin"
    # a refused configuration may leave a cubin (ptxas made one, the kernel was not in it): not its result
    return Compiled(status=data["status"], reason=data["reason"], usage=usage,
                    cubin=cubin if data["status"] == "ok" and cubin.is_file() else None, log=data.get("log", ""), tools=data.get("tools", ""))


def resource_usage(source: str | Path, kernel: str, configs: pd.DataFrame | Iterable[Mapping[str, Any]], cc: Any,
                   **options: Any) -> pd.DataFrame:
    """Compile every configuration and return its resource usage (see :class:`ResourceCompiler`).

    ``options`` go to :class:`ResourceCompiler` (``options=``, ``defines=``, ``backend=``,
    ``cache_dir=``, ``jobs=``).
    """
    return ResourceCompiler(source, kernel, cc, **options).frame(configs)
