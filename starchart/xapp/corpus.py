"""The XAPP training corpus: kernels in plain C and CUDA, and their measured speedups.

A corpus folder holds ``corpus.yaml`` (name, where the harness, kernels and measurements
live, the compile commands), one folder per kernel under ``kernels/`` with a
``kernel.yaml``, and measurement files (JSON, written by
:mod:`starchart.xapp.measure_corpus`) under ``measurements/``.

:meth:`Corpus.load` reads and checks all of it; every problem is an
:class:`~starchart.errors.InputError` naming the file and key. :meth:`Corpus.table` gives
one row per kernel with the CPU and GPU times and the speedup (the label XAPP learns),
:meth:`Corpus.labelled` only the kernels that have one.

Which measurement counts
    For each kernel and side (cpu, gpu) the entry with the newest ``measured`` time wins,
    over all measurement files, among entries taken at the kernel's current ``args``
    (``--small`` runs and runs at an older problem size are ignored). A newer failed
    entry (timeout, compile error) hides an older success: something changed, so
    measure again. The two sides may come from different files and machines (a CPU host
    and a GPU host); their checksums are compared with the kernel's ``tolerance``, and a
    mismatch leaves the kernel without a speedup.

Examples
--------
>>> corpus = Corpus.load("corpus")                       # doctest: +SKIP
>>> [k.name for k in corpus.kernels][:2]                 # doctest: +SKIP
['batched_matmul4', 'bfs_step']
>>> corpus.labelled()[["cpu_seconds", "gpu_seconds", "speedup"]]   # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from starchart._util.files import parse_json, read_text
from starchart._util.validation import Interval, check
from starchart.errors import InputError

__all__ = [
    "MEASUREMENT_FORMAT",
    "SIDES",
    "Corpus",
    "CorpusKernel",
    "MeasurementFile",
    "checksums_match",
    "find_band_line",
]

#: The ``format`` value of a measurement file this module reads and measure_corpus writes.
MEASUREMENT_FORMAT = "xapp-corpus-measurements/1"
SIDES = ("cpu", "gpu")
#: Statuses of a measured side; only ``ok`` carries a time and a checksum.
STATUSES = ("ok", "compile-error", "run-error", "timeout", "bad-output")

_KERNEL_KEYS = {"name", "category", "description", "c", "cuda", "args", "small_args", "tolerance"}
_KERNEL_OPTIONAL = {"band_line", "c_flags", "resembles", "variant_of"}
_BAND_PRAGMA = re.compile(r"^\s*#\s*pragma\s+xapp\s+parallel\b")


@dataclass(frozen=True)
class CorpusKernel:
    """One corpus kernel, from its ``kernel.yaml``.

    Attributes
    ----------
    name, category, description:
        As in the file; ``category`` is one of the corpus's categories.
    c_path, cuda_path:
        The single-threaded C program and its CUDA port (absolute paths).
    args, small_args:
        The programs' command-line arguments for a measurement and for a quick test.
    tolerance:
        Largest relative difference allowed between the two sides' checksums (0: exact).
    band_line:
        1-based line of ``#pragma xapp parallel`` in the C file (``band_line`` in the
        kernel.yaml, else the first such pragma found), None when there is none.
    c_flags:
        Extra flags for this kernel's C compile (``c_flags`` in kernel.yaml, e.g.
        ``[-ffast-math]`` where the checksum tolerance allows it), placed before the source.
    yaml_path:
        The kernel.yaml it came from.
    """

    name: str
    category: str
    description: str
    c_path: Path
    cuda_path: Path
    args: tuple[int, ...]
    small_args: tuple[int, ...]
    tolerance: float
    band_line: int | None = None
    yaml_path: Path | None = None
    c_flags: tuple[str, ...] = ()

    def source(self, side: str) -> Path:
        """The program measured on ``side`` (``"cpu"``: the C file, ``"gpu"``: the CUDA file)."""
        if side not in SIDES:
            raise InputError(f"unknown side {side!r}", hint="use 'cpu' or 'gpu'")
        return self.c_path if side == "cpu" else self.cuda_path


@dataclass(frozen=True)
class MeasurementFile:
    """One measurement file: its path, machine and per-kernel entries (as stored)."""

    path: Path
    machine: Mapping[str, Any]
    kernels: Mapping[str, Mapping[str, Any]]
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Corpus:
    """A loaded corpus: settings from ``corpus.yaml``, its kernels and measurement files."""

    root: Path
    name: str
    harness_dir: Path
    kernels_dir: Path
    measurements_dir: Path
    categories: tuple[str, ...]
    compile_c: tuple[str, ...]
    compile_cuda: tuple[str, ...]
    repeats: int
    timeout_s: float
    kernels: list[CorpusKernel]
    measurements: list[MeasurementFile]

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, path: str | Path) -> Corpus:
        """Read a corpus folder (or its ``corpus.yaml``), its kernels and measurements.

        Raises
        ------
        InputError
            Naming the file and key: a missing or malformed corpus.yaml or kernel.yaml,
            a kernel folder without kernel.yaml, a missing C/CUDA file, an unknown
            category, arguments that are not positive integers, a duplicate kernel name,
            or a malformed measurement file.
        """
        path = Path(path)
        yaml_path = path / "corpus.yaml" if path.is_dir() else path
        if not yaml_path.exists():
            raise InputError("corpus.yaml not found", where=yaml_path,
                             hint="give the corpus folder (the one holding corpus.yaml) or the file itself")
        if yaml_path.suffix.lower() not in (".yaml", ".yml"):  # a C file was read as YAML: "invalid YAML, line 4"
            raise InputError("is neither a corpus folder nor its corpus.yaml", where=yaml_path,
                             hint="give the folder holding corpus.yaml; for one C file use `starchart xapp "
                                  "features FILE.c` or `starchart xapp predict FILE.c --model ...`")
        root = yaml_path.parent.resolve()
        meta = _mapping(_read_yaml(yaml_path), yaml_path, "the file")
        name = _string(meta, "name", yaml_path)
        harness_dir = _folder(root, meta, "harness", yaml_path, must_exist=True)
        kernels_dir = _folder(root, meta, "kernels", yaml_path, must_exist=True)
        measurements_dir = _folder(root, meta, "measurements", yaml_path, must_exist=False)
        categories = tuple(_string_list(meta, "categories", yaml_path))
        compile_spec = _mapping(meta.get("compile"), yaml_path, "compile")
        compile_c = tuple(_command(compile_spec, "c", yaml_path))
        compile_cuda = tuple(_command(compile_spec, "cuda", yaml_path))
        run = _mapping(meta.get("run", {}), yaml_path, "run")
        repeats = _positive_int(run.get("repeats", 5), f"{yaml_path}, key run.repeats")
        timeout_s = _positive_number(run.get("timeout_s", 120), f"{yaml_path}, key run.timeout_s")

        kernels = [_load_kernel(folder, categories) for folder in sorted(kernels_dir.iterdir())
                   if folder.is_dir() and not folder.name.startswith((".", "_"))]
        seen: dict[str, Path] = {}
        for kernel in kernels:
            if kernel.name in seen:
                raise InputError(f"duplicate kernel name {kernel.name!r} (also in {seen[kernel.name]})",
                                 where=f"{kernel.yaml_path}, key name", hint="give every kernel its own name")
            seen[kernel.name] = kernel.yaml_path  # type: ignore[assignment]
        measurements = ([read_measurement_file(p) for p in sorted(measurements_dir.glob("*.json"))]
                        if measurements_dir.is_dir() else [])
        return cls(root=root, name=name, harness_dir=harness_dir, kernels_dir=kernels_dir,
                   measurements_dir=measurements_dir, categories=categories, compile_c=compile_c,
                   compile_cuda=compile_cuda, repeats=repeats, timeout_s=timeout_s, kernels=kernels,
                   measurements=measurements)

    # ------------------------------------------------------------------ access
    def kernel(self, name: str) -> CorpusKernel:
        """The kernel called ``name``."""
        for kernel in self.kernels:
            if kernel.name == name:
                return kernel
        raise InputError(f"no kernel {name!r} in the corpus", where=self.root,
                         hint=f"known kernels: {', '.join(k.name for k in self.kernels)}")

    def compile_command(self, side: str, source: str | Path, binary: str | Path,
                        flags: Sequence[str] = ()) -> list[str]:
        """The compile command of ``side`` with ``{source}`` and ``{binary}`` filled in.

        ``flags`` (a kernel's ``c_flags``) go right before the source.

        >>> c = Corpus(Path("."), "x", Path("."), Path("."), Path("."), (), ("gcc", "{source}", "-o", "{binary}"),
        ...            ("nvcc",), 5, 120.0, [], [])
        >>> c.compile_command("cpu", "a.c", "a", flags=["-ffast-math"])
        ['gcc', '-ffast-math', 'a.c', '-o', 'a']
        """
        template = self.compile_c if side == "cpu" else self.compile_cuda
        command: list[str] = []
        for part in template:
            if "{source}" in part:
                command.extend(flags)
            command.append(part.replace("{source}", str(source)).replace("{binary}", str(binary)))
        return command

    # ------------------------------------------------------------------ labels
    def table(self) -> pd.DataFrame:
        """One row per kernel (index ``kernel``): times, speedup, where and when measured.

        Columns: ``category``, ``cpu_seconds``, ``gpu_seconds``, ``speedup``
        (cpu/gpu; NaN where a side is unmeasured or failed, or the checksums differ),
        ``checksum_match`` (True/False, NA unless both sides ran), ``cpu_machine`` (CPU
        model), ``gpu_machine`` (GPU name), ``measured`` (newest of the two entries, UTC),
        ``cpu_status``/``gpu_status`` (missing when never measured), ``stale`` (a source
        file changed since it was measured), ``cpu_file``/``gpu_file``.
        See the module docstring for which entry wins.
        """
        rows = []
        for kernel in self.kernels:
            picked = {side: self._newest(kernel, side) for side in SIDES}
            row: dict[str, Any] = {"kernel": kernel.name, "category": kernel.category}
            for side in SIDES:
                entry = picked[side]
                ok = entry is not None and entry["side"].get("status") == "ok"
                row[f"{side}_seconds"] = float(entry["side"]["time_s"]) if ok else math.nan
                row[f"{side}_status"] = entry["side"].get("status") if entry else None
                row[f"{side}_file"] = entry["file"].path.name if entry else None
            cpu, gpu = picked["cpu"], picked["gpu"]
            match: bool | None = None
            if cpu and gpu and cpu["side"].get("status") == "ok" and gpu["side"].get("status") == "ok":
                match = checksums_match(cpu["side"]["checksum"], gpu["side"]["checksum"], kernel.tolerance)
            row["checksum_match"] = match
            row["speedup"] = row["cpu_seconds"] / row["gpu_seconds"] if match else math.nan
            row["cpu_machine"] = cpu["file"].machine.get("cpu") if cpu else None
            gpu_info = gpu["file"].machine.get("gpu") if gpu else None
            row["gpu_machine"] = gpu_info.get("name") if isinstance(gpu_info, Mapping) else None
            times = [e["measured"] for e in (cpu, gpu) if e is not None]
            row["measured"] = max(times) if times else pd.NaT
            row["stale"] = any(_is_stale(kernel, side, picked[side]) for side in SIDES)
            rows.append(row)
        columns = ["kernel", "category", "cpu_seconds", "gpu_seconds", "speedup", "checksum_match", "cpu_machine",
                   "gpu_machine", "measured", "cpu_status", "gpu_status", "stale", "cpu_file", "gpu_file"]
        frame = pd.DataFrame(rows, columns=columns).set_index("kernel")
        frame["checksum_match"] = frame["checksum_match"].astype("boolean")
        frame["measured"] = pd.to_datetime(frame["measured"], utc=True)
        return frame

    def labelled(self) -> pd.DataFrame:
        """The rows of :meth:`table` with a measured speedup (both sides ok, checksums agree)."""
        frame = self.table()
        return frame[frame["speedup"].notna()]

    def _newest(self, kernel: CorpusKernel, side: str) -> dict[str, Any] | None:
        best: dict[str, Any] | None = None
        for mfile in self.measurements:
            entry = mfile.kernels.get(kernel.name)
            if not entry or side not in entry or tuple(entry["args"]) != kernel.args:
                continue
            measured = _when(entry[side]["measured"], f"{mfile.path}, key kernels.{kernel.name}.{side}.measured")
            key = (measured, mfile.path.name)
            if best is None or key > best["key"]:
                best = {"key": key, "measured": measured, "file": mfile, "side": entry[side]}
        return best


# ---------------------------------------------------------------- helpers
def checksums_match(a: float, b: float, tolerance: float) -> bool:
    """Whether two checksums agree within a relative ``tolerance`` (0 asks for equality).

    >>> checksums_match(100.0, 100.00001, 1e-6), checksums_match(100.0, 100.001, 1e-6)
    (True, False)
    >>> checksums_match(3.0, 3.0, 0.0)
    True
    """
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return abs(a - b) <= tolerance * max(abs(a), abs(b))


def find_band_line(c_text: str) -> int | None:
    """1-based line of the first ``#pragma xapp parallel`` in C source text, or None.

    >>> find_band_line("int x;\\n#pragma xapp parallel(2)\\nfor (;;) {}\\n")
    2
    """
    for number, line in enumerate(c_text.splitlines(), start=1):
        if _BAND_PRAGMA.match(line):
            return number
    return None


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes (recorded with each measurement to spot stale ones)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _is_stale(kernel: CorpusKernel, side: str, entry: Mapping[str, Any] | None) -> bool:
    if entry is None:
        return False
    recorded = entry["side"].get("source_sha256")
    source = kernel.source(side)
    return bool(recorded) and source.exists() and recorded != file_sha256(source)


def _when(value: Any, where: str) -> pd.Timestamp:
    """An ISO 8601 time as a UTC timestamp (naive times are taken as UTC)."""
    try:
        stamp = pd.Timestamp(value) if isinstance(value, str) else pd.NaT
    except ValueError:
        stamp = pd.NaT
    if stamp is pd.NaT:
        raise InputError(f"measured must be an ISO 8601 time such as '2026-11-22T09:30:00+00:00', got {value!r}",
                         where=where)
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def _read_yaml(path: Path) -> Any:

    text = read_text(path)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f", line {mark.line + 1}" if mark is not None else ""
        raise InputError(f"invalid YAML: {getattr(exc, 'problem', None) or exc}", where=f"{path}{line}",
                         hint="repair the file; quote values that contain ': ' or start with special characters"
                         ) from exc


def _mapping(value: Any, path: Path | str, key: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InputError(f"{key} must be a mapping of keys to values, got {type(value).__name__}",
                         where=f"{path}, key {key}" if key != "the file" else path, hint="see corpus/README.md")
    return value


def _string(meta: Mapping[str, Any], key: str, path: Path) -> str:
    value = meta.get(key)
    if not isinstance(value, str) or not value.strip():
        problem = "is missing" if key not in meta else f"must be a non-empty string, got {value!r}"
        raise InputError(f"'{key}' {problem}", where=f"{path}, key {key}", hint="see corpus/README.md")
    return value


def _string_list(meta: Mapping[str, Any], key: str, path: Path) -> list[str]:
    value = meta.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise InputError(f"'{key}' must be a non-empty list of strings, got {value!r}", where=f"{path}, key {key}",
                         hint="see corpus/README.md")
    return value


def _folder(root: Path, meta: Mapping[str, Any], key: str, path: Path, must_exist: bool) -> Path:
    folder = root / _string(meta, key, path)
    if must_exist and not folder.is_dir():
        raise InputError(f"folder {folder} does not exist", where=f"{path}, key {key}",
                         hint="give a folder relative to the corpus.yaml")
    return folder


def _command(spec: Mapping[str, Any], side: str, path: Path) -> list[str]:
    command = _string_list(spec, side, path)
    joined = " ".join(command)
    if "{source}" not in joined or "{binary}" not in joined:
        raise InputError(f"the {side} compile command must contain {{source}} and {{binary}}, got {command!r}",
                         where=f"{path}, key compile.{side}", hint='e.g. [gcc, -O3, "{source}", -o, "{binary}"]')
    return command


def _positive_int(value: Any, where: str) -> int:
    return check(where.rpartition("key ")[2], value, Interval(int, 1, None), where=where,
                 hint="write a whole number such as 4096 (no quotes, no decimal point)")


def _positive_number(value: Any, where: str) -> float:
    return check(where.rpartition("key ")[2], value, Interval(float, 0, None, closed="neither"), where=where)


def _int_args(meta: Mapping[str, Any], key: str, path: Path) -> tuple[int, ...]:
    value = meta.get(key)
    if not isinstance(value, list) or not value:
        raise InputError(f"'{key}' must be a non-empty list of positive integers, got {value!r}",
                         where=f"{path}, key {key}", hint="e.g. [4096, 4096]")
    return tuple(_positive_int(v, f"{path}, key {key}[{i}]") for i, v in enumerate(value))


def _load_kernel(folder: Path, categories: Sequence[str]) -> CorpusKernel:
    path = folder / "kernel.yaml"
    if not path.exists():
        raise InputError("kernel folder has no kernel.yaml", where=path,
                         hint="add one (see corpus/kernels/saxpy/kernel.yaml) or remove the folder")
    meta = _mapping(_read_yaml(path), path, "the file")
    missing = sorted(_KERNEL_KEYS - set(meta))
    if missing:
        raise InputError(f"missing key(s) {', '.join(missing)}", where=f"{path}, key {missing[0]}",
                         hint="see corpus/kernels/saxpy/kernel.yaml")
    unknown = sorted(set(meta) - _KERNEL_KEYS - _KERNEL_OPTIONAL)
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(map(str, unknown))}", where=f"{path}, key {unknown[0]}",
                         hint=f"known keys: {', '.join(sorted(_KERNEL_KEYS | _KERNEL_OPTIONAL))}")
    name = _string(meta, "name", path)
    category = _string(meta, "category", path)
    if category not in categories:
        raise InputError(f"unknown category {category!r}", where=f"{path}, key category",
                         hint=f"use one of {', '.join(categories)} (corpus.yaml lists them)")
    sources = {}
    for key, suffix in (("c", ".c"), ("cuda", ".cu")):
        source = folder / _string(meta, key, path)
        if source.suffix != suffix:
            raise InputError(f"'{key}' must name a {suffix} file, got {meta[key]!r}", where=f"{path}, key {key}")
        if not source.is_file():
            raise InputError(f"file {source.name} not found next to kernel.yaml", where=f"{path}, key {key}",
                             hint="fix the file name or add the file")
        sources[key] = source.resolve()
    args = _int_args(meta, "args", path)
    small_args = _int_args(meta, "small_args", path)
    if len(small_args) != len(args):
        raise InputError(f"small_args has {len(small_args)} values but args has {len(args)}",
                         where=f"{path}, key small_args", hint="give both the same number of arguments")
    tolerance = meta["tolerance"]
    tolerance = check("tolerance", tolerance, Interval(float, 0, 1, closed="left"), where=f"{path}, key tolerance",
                      hint="a relative difference: e.g. 1.0e-6; 0 asks for identical checksums")
    description = meta["description"]
    if not isinstance(description, str):
        raise InputError("description must be a string", where=f"{path}, key description",
                         hint="quote it if it contains ': '")
    c_text = sources["c"].read_text(encoding="utf-8", errors="replace")
    band_line = meta.get("band_line")
    if band_line is not None:
        band_line = _positive_int(band_line, f"{path}, key band_line")
        lines = c_text.splitlines()
        if band_line > len(lines) or not _BAND_PRAGMA.match(lines[band_line - 1]):
            raise InputError(f"line {band_line} of {sources['c'].name} is not a '#pragma xapp parallel'",
                             where=f"{path}, key band_line", hint="point it at the pragma, or drop the key")
    else:
        band_line = find_band_line(c_text)
    c_flags = meta.get("c_flags", [])
    if not isinstance(c_flags, list) or not all(isinstance(f, str) and f.startswith("-") for f in c_flags):
        raise InputError(f"c_flags must be a list of compiler flags, got {c_flags!r}", where=f"{path}, key c_flags",
                         hint="e.g. c_flags: [-ffast-math]")
    return CorpusKernel(name=name, category=category, description=description.strip(), c_path=sources["c"],
                        cuda_path=sources["cuda"], args=args, small_args=small_args, tolerance=float(tolerance),
                        band_line=band_line, yaml_path=path, c_flags=tuple(c_flags))


def read_measurement_file(path: str | Path) -> MeasurementFile:
    """Read and check one measurement file (the format is in corpus/README.md).

    Raises :class:`InputError` naming the file and the key at fault.
    """
    path = Path(path)
    data = parse_json(read_text(path), path)
    data = _mapping(data, path, "the file")
    if data.get("format") != MEASUREMENT_FORMAT:
        raise InputError(f"format must be {MEASUREMENT_FORMAT!r}, got {data.get('format')!r}",
                         where=f"{path}, key format", hint="this is not a corpus measurement file; move it elsewhere")
    machine = _mapping(data.get("machine", {}), path, "machine")
    kernels = _mapping(data.get("kernels"), path, "kernels")
    for name, entry in kernels.items():
        where = f"{path}, key kernels.{name}"
        entry = _mapping(entry, path, f"kernels.{name}")
        args = entry.get("args")
        if not isinstance(args, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            raise InputError(f"args must be a list of integers, got {args!r}", where=f"{where}.args")
        for side in SIDES:
            if side not in entry:
                continue
            record = _mapping(entry[side], path, f"kernels.{name}.{side}")
            status = record.get("status")
            if status not in STATUSES:
                raise InputError(f"status must be one of {', '.join(STATUSES)}, got {status!r}",
                                 where=f"{where}.{side}.status")
            _when(record.get("measured"), f"{where}.{side}.measured")
            if status == "ok":
                for key in ("time_s", "checksum"):
                    value = record.get(key)
                    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                        raise InputError(f"{key} must be a finite number when status is ok, got {value!r}",
                                         where=f"{where}.{side}.{key}")
                if record["time_s"] <= 0:
                    raise InputError(f"time_s must be positive, got {record['time_s']!r}",
                                     where=f"{where}.{side}.time_s")
    meta = {k: v for k, v in data.items() if k not in ("machine", "kernels")}
    return MeasurementFile(path=path, machine=machine, kernels=kernels, meta=meta)
