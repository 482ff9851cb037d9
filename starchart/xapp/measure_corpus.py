"""Measure the corpus: compile and time each kernel's C side and CUDA side, record the results.

Usage::

    python -m starchart.xapp.measure_corpus CORPUS [--side cpu|gpu|both] [--kernels a,b]
        [--small] [--out FILE] [--timeout S] [--repeats N] [--core N] [--host-kind NAME]
        [--note TEXT] [--retry-failed] [--no-progress]

The C side is compiled with the corpus's C command (``gcc -O3 -march=native ... -lm``,
no OpenMP, plus the kernel's ``c_flags``; the loops the compiler vectorised are recorded
with the entry) and run on one core (``taskset -c CORE`` where taskset works); the CUDA side
with nvcc, and only when a GPU answers ``nvidia-smi`` (otherwise it is skipped, and
said so). Each program prints ``XAPP time_s=.. checksum=..``; when both sides ran the
checksums are compared with the kernel's tolerance.

Results go to a JSON measurement file (default
``CORPUS/measurements/<date>-<sides>-<host kind>.json``), rewritten atomically after each
kernel, so a killed run loses at most the kernel in progress; running the same command
again resumes it (kernels already in the file are skipped unless their source changed
since; ``--retry-failed`` re-runs the sides that failed, keeping a side that succeeded). Every entry records the exact compile and run commands, the machine
(CPU model, gcc version; GPU name, driver, nvcc version) and the time.

Examples
--------
>>> parse_xapp_line("warming up\\nXAPP time_s=0.0125 checksum=-42.5\\n")
(0.0125, -42.5)
>>> parse_xapp_line("no result") is None
True
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import json
import math
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Self

from rich.markup import (
    escape,  # the description is read as markup: a kernel name is not
)

from starchart._util.files import write_json_atomic
from starchart._util.progress import stderr_progress
from starchart.errors import InputError, StarchartError
from starchart.measure.environment import cpu_model, gpus
from starchart.measure.process import run_process
from starchart.xapp.corpus import (
    MEASUREMENT_FORMAT,
    SIDES,
    Corpus,
    CorpusKernel,
    checksums_match,
    file_sha256,
    read_measurement_file,
)
from starchart.xapp.emulator import build_command, rewrite_launches

__all__ = ["gpu_available", "machine_info", "main", "measure", "parse_xapp_line", "run_program"]

_XAPP_LINE = re.compile(r"^XAPP time_s=(\S+) checksum=(\S+)\s*$", re.MULTILINE)
_COMPILE_TIMEOUT_S = 600.0
_TAIL = 2000  # characters of a failing program's output kept in the record


def parse_xapp_line(stdout: str) -> tuple[float, float] | None:
    """The (time_s, checksum) of the last ``XAPP time_s=.. checksum=..`` line, or None.

    A time that is not a positive finite number, or a checksum that is not finite,
    counts as no result.
    """
    matches = _XAPP_LINE.findall(stdout)
    if not matches:
        return None
    try:
        time_s, checksum = float(matches[-1][0]), float(matches[-1][1])
    except ValueError:
        return None
    if not (math.isfinite(time_s) and time_s > 0 and math.isfinite(checksum)):
        return None
    return time_s, checksum


def _first_line(command: Sequence[str]) -> str | None:
    """First (or, for nvcc, last) non-empty line of a ``--version`` output, or None."""
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0 or not lines:
        return None
    return lines[-1] if Path(command[0]).name.startswith("nvcc") else lines[0]


def gpu_available() -> tuple[bool, str]:
    """Whether an NVIDIA GPU answers ``nvidia-smi``, and why not when it does not."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return False, "nvidia-smi is not on PATH (no NVIDIA driver here)"
    try:
        done = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"nvidia-smi failed ({exc})"
    if done.returncode != 0 or "GPU" not in done.stdout:
        return False, f"nvidia-smi found no GPU (exit {done.returncode}: {(done.stderr or done.stdout).strip()[:200]})"
    return True, ""


def machine_info(corpus: Corpus, with_gpu: bool) -> dict[str, Any]:
    """Where the programs run: host, CPU model, compilers; GPU name, driver and nvcc when used."""
    info: dict[str, Any] = {
        "hostname": socket.gethostname(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "c_compiler": _first_line([corpus.compile_c[0], "--version"]),
        "gpu": None,
    }
    if with_gpu:
        found, _ = gpus()
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        first = found[0] if found else {}
        info["gpu"] = {"name": first.get("name"), "driver_version": first.get("driver_version"),
                       "memory_bytes": first.get("memory_bytes"), "count": len(found),
                       "cuda_visible_devices": visible,
                       "nvcc": _first_line([corpus.compile_cuda[0], "--version"])}
    return info


def _pin_prefix(core: int | None) -> list[str]:
    """``taskset -c CORE`` when taskset exists and may pin here, else nothing."""
    exe = shutil.which("taskset")
    if exe is None or core is None:
        return []
    try:
        done = subprocess.run([exe, "-c", str(core), "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    return [exe, "-c", str(core)] if done.returncode == 0 else []


def _usable_cores() -> set[int] | None:
    """The CPUs this process may run on (None where the platform cannot say)."""
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def _default_core() -> int | None:
    usable = _usable_cores()
    return max(usable) if usable else None


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _tail(text: str | bytes | None) -> str:
    if text is None:
        return ""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return text[-_TAIL:]


def run_program(command: Sequence[str], env: dict[str, str], timeout_s: float, cwd: Path | None = None
                ) -> dict[str, Any]:
    """Run one corpus program; a record with ``status`` and, when ok, ``time_s`` and ``checksum``.

    Statuses: ``ok``, ``run-error`` (non-zero exit or not startable), ``timeout`` and
    ``bad-output`` (no valid ``XAPP`` line). Failing records keep the output's tail.
    """
    record: dict[str, Any] = {"run": shlex.join(command)}
    try:
        # run_process: its own process group, killed whole on a timeout, and by the watchdog if this
        # script is killed (a GPU program must not run on, holding the GPU, after kill -9)
        done = run_process(list(command), timeout=timeout_s, env=env, cwd=cwd)
    except InputError as exc:  # not found, not executable
        record.update(status="run-error", message=f"cannot start: {exc.message}")
        return record
    if done.timed_out:
        record.update(status="timeout", timeout_s=timeout_s,
                      message=f"did not finish within {timeout_s:g} s (killed); raise --timeout or shrink args",
                      output_tail=_tail(done.stdout) + _tail(done.stderr))
        return record
    if done.returncode != 0:
        record.update(status="run-error", exit_code=done.returncode,
                      message=f"exited with status {done.returncode}", output_tail=_tail(done.stdout + done.stderr))
        return record
    parsed = parse_xapp_line(done.stdout)
    if parsed is None:
        record.update(status="bad-output", message="no valid 'XAPP time_s=<s> checksum=<x>' line in its output",
                      output_tail=_tail(done.stdout + done.stderr))
        return record
    record.update(status="ok", time_s=parsed[0], checksum=parsed[1])
    return record


#: Flags asking a C compiler to report the loops it vectorised (gcc, clang), by compiler name.
_VECTOR_REPORT = {"gcc": ["-fopt-info-vec-optimized"], "clang": ["-Rpass=loop-vectorize"]}
_VECTOR_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)?\s*(?:optimized|remark):\s*(?P<text>.*vectori[sz]ed.*?)"
                          r"(?:\s*\[-Rpass=loop-vectorize\])?$", re.MULTILINE)


def vector_report_flags(compiler: str) -> list[str]:
    """The flags that make ``compiler`` report vectorised loops ([] for one it is not known to support).

    >>> vector_report_flags("/usr/bin/gcc-12"), vector_report_flags("icx")
    (['-fopt-info-vec-optimized'], [])
    """
    name = Path(compiler).name
    for family, flags in _VECTOR_REPORT.items():
        if name == family or name.startswith(family + "-") or name in ("cc", "c99") and family == "gcc":
            return list(flags)
    return []


def vectorized_loops(output: str, source: Path) -> list[dict[str, Any]]:
    """The compiler's vectorisation remarks about ``source`` itself: ``[{"line": 12, "note": ...}]``.

    >>> vectorized_loops("k.c:12:23: optimized: loop vectorized using 64 byte vectors\\n"
    ...                  "h.h:3:1: optimized: basic block part vectorized", Path("/x/k.c"))
    [{'line': 12, 'note': 'loop vectorized using 64 byte vectors'}]
    """
    found: list[dict[str, Any]] = []
    for match in _VECTOR_LINE.finditer(output):
        entry = {"line": int(match["line"]), "note": match["text"].strip()}
        if Path(match["file"]).name == source.name and entry not in found:  # inlined copies repeat a loop
            found.append(entry)
    return found


def _compile(corpus: Corpus, kernel: CorpusKernel, side: str, build_dir: Path,
             emulate: bool = False) -> tuple[Path, dict[str, Any]]:
    source = kernel.source(side)
    binary = build_dir / f"{kernel.name}-{side}"
    if emulate:  # the CUDA program on the CPU emulator: a dry run of the GPU side
        rewritten = build_dir / f"{kernel.name}-emulated.cpp"
        rewritten.write_text(rewrite_launches(source))
        command = build_command(rewritten, binary, corpus.harness_dir / "emulator")
    else:
        command = corpus.compile_command(side, source, binary, kernel.c_flags if side == "cpu" else ())
    record: dict[str, Any] = {"compile": shlex.join(command)}
    report = vector_report_flags(command[0]) if side == "cpu" else []
    command = [*command[:1], *report, *command[1:]]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=_COMPILE_TIMEOUT_S,
                              cwd=source.parent, check=False)
    except subprocess.TimeoutExpired:
        record.update(status="compile-error", message=f"compiler did not finish within {_COMPILE_TIMEOUT_S:g} s")
        return binary, record
    except OSError as exc:
        record.update(status="compile-error", message=f"cannot run the compiler: {exc}")
        return binary, record
    if done.returncode != 0 or not binary.exists():
        record.update(status="compile-error", exit_code=done.returncode,
                      message="compilation failed", output_tail=_tail(done.stdout + done.stderr))
    elif report:  # the thesis presumes vectorised CPU code: keep which loops were
        record["vectorized"] = vectorized_loops(done.stdout + done.stderr, source)
    return binary, record


def _measure_side(corpus: Corpus, kernel: CorpusKernel, side: str, args: Sequence[int], build_dir: Path,
                  repeats: int, timeout_s: float, pin: list[str], emulate: bool = False) -> dict[str, Any]:
    binary, record = _compile(corpus, kernel, side, build_dir, emulate)
    if emulate:
        record["emulated"] = True
    record["source_sha256"] = file_sha256(kernel.source(side))
    if record.get("status") != "compile-error":
        env = dict(os.environ, XAPP_REPEATS=str(repeats), OMP_NUM_THREADS="1")
        prefix = pin if side == "cpu" else []
        command = [*prefix, str(binary), *map(str, args)]
        record.update(run_program(command, env, timeout_s, cwd=kernel.source(side).parent))
        record["run"] = f"XAPP_REPEATS={repeats} {record['run']}"
    record["measured"] = _now()
    return record


def _emulator_available() -> tuple[bool, str]:
    """Whether the CPU emulator can be built here (it needs a C++20 g++)."""
    if shutil.which("g++") is None:
        return False, "g++ is not on PATH: the CUDA emulator needs a C++20 compiler"
    return True, ""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "host"


def default_out(corpus: Corpus, sides: Sequence[str], small: bool, host_kind: str | None) -> Path:
    """``<measurements>/<date>-<sides>-<host kind>[-small].json``."""
    date = _dt.datetime.now(_dt.UTC).date().isoformat()
    kind = _slug(host_kind or socket.gethostname())
    return corpus.measurements_dir / f"{date}-{'-'.join(sides)}-{kind}{'-small' if small else ''}.json"


def _start_or_resume(out: Path, corpus: Corpus, settings: dict[str, Any], machine: dict[str, Any], command: str,
                     note: str | None) -> dict[str, Any]:
    if not out.exists():
        return {"format": MEASUREMENT_FORMAT, "corpus": corpus.name, "created": _now(), "updated": _now(),
                "command": command, "note": note, "settings": settings, "machine": machine, "kernels": {}}
    read_measurement_file(out)  # validates, naming the file and key at fault
    data = json.loads(out.read_text(encoding="utf-8"))
    if data.get("settings", {}).get("small") != settings["small"]:
        raise InputError("this measurement file was made " + ("with" if data["settings"].get("small") else "without")
                         + " --small; resuming it with other sizes would mix them", where=out,
                         hint="give another --out, or the same --small setting")
    old = data.get("machine", {})
    if (old.get("hostname"), old.get("cpu")) != (machine["hostname"], machine["cpu"]):
        raise InputError(f"this file was measured on {old.get('hostname')} ({old.get('cpu')}), "
                         f"not on this machine ({machine['hostname']}, {machine['cpu']})", where=out,
                         hint="give another --out for this machine")
    if machine.get("gpu") and not old.get("gpu"):
        old["gpu"] = machine["gpu"]
    data.setdefault("resumed", []).append({"at": _now(), "command": command})
    if note and note != data.get("note"):
        data["note"] = f"{data['note']}; {note}" if data.get("note") else note
    return data


def _sides_to_measure(entry: dict[str, Any] | None, kernel: CorpusKernel, args: Sequence[int],
                      sides: Sequence[str], retry_failed: bool) -> list[str]:
    """The sides of ``kernel`` a run must (re-)measure; the others' records are kept.

    Per side, not per kernel: ``--retry-failed`` re-measured the CPU side as well when only the
    GPU side had failed (minutes of pinned CPU time for nothing, and a new CPU time that no
    longer matched the GPU side measured against it).
    """
    if not entry or entry.get("args") != list(args):  # sizes changed since: measure again
        return list(sides)
    return [side for side in sides
            if side not in entry or (retry_failed and entry[side].get("status") != "ok")
            # a source edited since it was measured is measured again
            or entry[side].get("source_sha256") not in (None, file_sha256(kernel.source(side)))]


class _Bar:
    """A rich progress bar over (kernel, side) jobs; silent when disabled."""

    def __init__(self, total: int, enabled: bool):
        self.enabled = enabled and total > 0
        self.total = total

    def __enter__(self) -> Self:
        if self.enabled:

            self._progress = stderr_progress("failed {task.fields[failed]}")
            self._progress.__enter__()
            self._task = self._progress.add_task("measuring", total=self.total, failed=0)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._progress.__exit__(*exc)

    def describe(self, text: str) -> None:
        if self.enabled:

            self._progress.update(self._task, description=escape(text))

    def advance(self, failed: int) -> None:
        if self.enabled:
            self._progress.update(self._task, advance=1, failed=failed)

    def say(self, text: str) -> None:
        if self.enabled:
            self._progress.console.print(text, highlight=False)
        else:
            print(text, file=sys.stderr)


def measure(corpus_path: str | Path, sides: Sequence[str] = SIDES, kernels: Sequence[str] | None = None,
            small: bool = False, out: str | Path | None = None, timeout_s: float | None = None,
            repeats: int | None = None, core: int | None = None, host_kind: str | None = None,
            note: str | None = None, retry_failed: bool = False, progress: bool = True,
            command: str | None = None, gpu_check: Callable[[], tuple[bool, str]] = gpu_available,
            emulate: bool = False, unmeasured: str | None = None) -> Path:
    """Measure kernels of the corpus at ``corpus_path``; returns the measurement file written.

    Parameters
    ----------
    sides:
        ``("cpu",)``, ``("gpu",)`` or both. The GPU side is skipped (and said so) when
        ``gpu_check`` finds no GPU.
    kernels:
        Names to measure (default: all).
    small:
        Use each kernel's ``small_args`` (a smoke test; the table ignores such entries).
    out:
        The measurement file; resumed when it exists.
    timeout_s, repeats:
        Per program run (seconds > 0; runs >= 1); default from corpus.yaml.
    core:
        CPU core the C side is pinned to (default: the last one this process may use); one
        this process may not use is refused, as are the values above, before anything is measured.
    emulate:
        A dry run of the GPU side without a GPU: each CUDA program is built with g++ against
        the CPU emulator (:mod:`starchart.xapp.emulator`) and run at its ``small_args`` (with
        the C side too when ``sides`` has both, so the checksums are compared). Its times mean
        nothing: the file goes to the temporary folder unless ``out`` is given, and its GPU
        entries say ``"emulated"``.
    unmeasured:
        ``"cpu"`` or ``"gpu"``: only the kernels with no successful measurement of that side
        in the corpus (e.g. the GPU side of kernels added since the last GPU run).

    Example
    -------
    >>> measure("corpus", sides=["cpu"], kernels=["saxpy"], small=True, out="/tmp/m.json")  # doctest: +SKIP
    PosixPath('/tmp/m.json')
    """
    corpus = Corpus.load(corpus_path)
    sides = [s for s in SIDES if s in sides]
    if not sides:
        raise InputError("no side to measure", where="--side", hint="use cpu, gpu or both")
    if emulate and "gpu" not in sides:
        raise InputError("the emulator runs the CUDA side", where="--emulate", hint="use it with --side gpu or both")
    chosen = [corpus.kernel(name) for name in kernels] if kernels else list(corpus.kernels)
    if unmeasured is not None:
        if unmeasured not in SIDES:
            raise InputError(f"--unmeasured {unmeasured!r} is not a side", where="--unmeasured", hint="use cpu or gpu")
        table = corpus.table()
        chosen = [k for k in chosen if table.loc[k.name].get(f"{unmeasured}_status") != "ok"]
        if not chosen:
            raise StarchartError(f"every chosen kernel has a successful {unmeasured} measurement",
                                 hint="drop --unmeasured to measure them again")
    if emulate:
        small = True
        gpu_check = _emulator_available
        if out is None:
            out = Path(tempfile.gettempdir()) / f"xapp-emulated-{_dt.datetime.now(_dt.UTC):%Y%m%dT%H%M%S}.json"
    # checked, not `or`-defaulted: 0 silently meant the default, a negative timeout recorded every kernel
    # as timed out, nan crashed, and a repeat count the harness ignores was written into the file
    if timeout_s is not None and not 0 < timeout_s < math.inf:
        raise InputError(f"--timeout {timeout_s:g} is not a positive number of seconds", where="--timeout",
                         hint=f"e.g. --timeout {corpus.timeout_s:g}, or leave it out for corpus.yaml's")
    if repeats is not None and repeats < 1:
        raise InputError(f"--repeats {repeats} is not a count of runs", where="--repeats",
                         hint=f"give 1 or more, or leave it out for corpus.yaml's {corpus.repeats}")
    usable = _usable_cores()
    if core is not None and usable is not None and core not in usable:  # taskset failed: ran unpinned, unsaid
        raise InputError(f"--core {core} is not a CPU this process may use", where="--core",
                         hint=f"use one of {', '.join(map(str, sorted(usable)))}, or leave it out")
    timeout_s = float(corpus.timeout_s if timeout_s is None else timeout_s)
    repeats = int(corpus.repeats if repeats is None else repeats)
    core = _default_core() if core is None else core
    pin = _pin_prefix(core)
    skipped_gpu = None
    if "gpu" in sides:
        ok, reason = gpu_check()
        if not ok:
            skipped_gpu = reason
            sides = [s for s in sides if s != "gpu"]
            print(f"GPU side skipped: {reason}", file=sys.stderr)
            if not sides:
                raise StarchartError("nothing to measure: the GPU side was asked for and there is no GPU here",
                                     hint="run it on a machine with an NVIDIA GPU, or use --side cpu")
        elif not emulate and shutil.which(corpus.compile_cuda[0]) is None:
            raise StarchartError(f"a GPU is here but {corpus.compile_cuda[0]!r} is not on PATH",
                                 hint="install the CUDA toolkit or put nvcc on PATH")
    out = Path(out) if out else default_out(corpus, sides, small, host_kind)
    settings = {"sides": sides, "small": small, "repeats": repeats, "timeout_s": timeout_s, "emulated": emulate,
                "cpu_pinning": shlex.join(pin) if pin else None,
                "compile": {"c": list(corpus.compile_c), "cuda": list(corpus.compile_cuda)}}
    machine = machine_info(corpus, with_gpu="gpu" in sides)
    data = _start_or_resume(out, corpus, settings, machine, command or shlex.join(sys.argv), note)
    if skipped_gpu:
        data["gpu_skipped"] = skipped_gpu
    todo = [(k, todo_sides) for k in chosen
            if (todo_sides := _sides_to_measure(data["kernels"].get(k.name), k, k.small_args if small else k.args,
                                                sides, retry_failed))]
    skipped = len(chosen) - len(todo)
    if skipped:
        print(f"resuming {out}: {skipped} kernel(s) already measured, {len(todo)} to go", file=sys.stderr)
    write_json_atomic(out, data)
    failed = 0
    with (_resume_hint_on_interrupt(out, data), tempfile.TemporaryDirectory(prefix="xapp-corpus-") as build,
          _Bar(sum(len(todo_sides) for _, todo_sides in todo), progress) as bar):
        for kernel, todo_sides in todo:
            args = list(kernel.small_args if small else kernel.args)
            entry = dict(data["kernels"].get(kernel.name) or {})
            if entry.get("args") != args:
                entry = {}
            entry["args"] = args
            for side in todo_sides:
                bar.describe(f"{kernel.name} ({side})")
                record = _measure_side(corpus, kernel, side, args, Path(build), repeats, timeout_s, pin,
                                       emulate=emulate and side == "gpu")
                entry[side] = record
                failed += record["status"] != "ok"
                bar.advance(failed)
            entry["checksum_match"] = entry["relative_difference"] = None
            cpu, gpu = entry.get("cpu", {}), entry.get("gpu", {})
            if cpu.get("status") == "ok" and gpu.get("status") == "ok":
                entry["checksum_match"] = checksums_match(cpu["checksum"], gpu["checksum"], kernel.tolerance)
                scale = max(abs(cpu["checksum"]), abs(gpu["checksum"]))
                entry["relative_difference"] = abs(cpu["checksum"] - gpu["checksum"]) / scale if scale else 0.0
            data["kernels"][kernel.name] = entry
            data["updated"] = _now()
            write_json_atomic(out, data)
            bar.say(_summary(kernel.name, entry, sides))
    return out


@contextlib.contextmanager
def _resume_hint_on_interrupt(out: Path, data: dict[str, Any]) -> Iterator[None]:
    """On Ctrl-C, say what the file keeps and how to go on (a bare traceback left the user unsure
    whether the hour of measurements so far was lost); :func:`main` then exits without the traceback."""
    try:
        yield
    except KeyboardInterrupt:
        print(f"\ninterrupted: {len(data['kernels'])} kernel(s) are kept in {out}; run the same command "
              "again to resume", file=sys.stderr)
        raise


def _summary(name: str, entry: dict[str, Any], sides: Sequence[str]) -> str:
    parts = []
    for side in sides:
        record = entry[side]
        parts.append(f"{side} {record['time_s']:.4g} s" if record["status"] == "ok"
                     else f"{side} {record['status']}: {record.get('message', '')}")
    if entry.get("checksum_match") is False:
        parts.append(f"CHECKSUM MISMATCH (relative difference {entry['relative_difference']:.3g})")
    elif entry.get("checksum_match") and entry.get("gpu", {}).get("emulated"):
        parts.append("checksums agree (emulated: the times mean nothing)")
    elif entry.get("checksum_match"):
        parts.append(f"speedup {entry['cpu']['time_s'] / entry['gpu']['time_s']:.3g}x")
    return f"{name}: " + ", ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (1 when a program failed)."""
    parser = argparse.ArgumentParser(prog="python -m starchart.xapp.measure_corpus",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="the corpus folder (holding corpus.yaml) or its corpus.yaml")
    parser.add_argument("--side", choices=["cpu", "gpu", "both"], default="both")
    parser.add_argument("--kernels", help="comma-separated kernel names (default: all)")
    parser.add_argument("--small", action="store_true", help="use each kernel's small_args (a quick check)")
    parser.add_argument("--out", help="measurement file to write or resume (default: in the corpus's measurements/)")
    parser.add_argument("--timeout", type=float, help="seconds per program run (default: corpus.yaml run.timeout_s)")
    parser.add_argument("--repeats", type=int, help="timed runs per program (default: corpus.yaml run.repeats)")
    parser.add_argument("--core", type=int, help="CPU core for the C side (default: the last usable one)")
    parser.add_argument("--host-kind", help="names the machine in the default file name (default: host name)")
    parser.add_argument("--note", help="free text stored in the file, e.g. that the machine was shared")
    parser.add_argument("--retry-failed", action="store_true", help="on resume, measure failed kernels again")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--unmeasured", choices=list(SIDES),
                        help="only kernels with no successful measurement of this side yet")
    parser.add_argument("--emulate", action="store_true",
                        help="dry run of --side gpu without a GPU: CUDA programs on the CPU emulator at "
                             "small_args (times mean nothing; written to the temporary folder)")
    args = parser.parse_args(argv)
    sides = list(SIDES) if args.side == "both" else [args.side]
    names = [n.strip() for n in args.kernels.split(",") if n.strip()] if args.kernels else None
    command = shlex.join([sys.executable, "-m", "starchart.xapp.measure_corpus", *(argv if argv is not None
                                                                                     else sys.argv[1:])])
    try:
        out = measure(args.corpus, sides=sides, kernels=names, small=args.small, out=args.out,
                      timeout_s=args.timeout, repeats=args.repeats, core=args.core, host_kind=args.host_kind,
                      note=args.note, retry_failed=args.retry_failed, progress=not args.no_progress, command=command,
                      emulate=args.emulate, unmeasured=args.unmeasured)
    except StarchartError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # what was measured is kept, and measure() said how to resume
        return 130
    data = json.loads(out.read_text(encoding="utf-8"))
    bad = [name for name, entry in data["kernels"].items()
           if any(entry.get(s, {}).get("status") not in (None, "ok") for s in SIDES)
           or entry.get("checksum_match") is False]
    print(f"wrote {out}" + (f"; failed or mismatched: {', '.join(bad)}" if bad else ""), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
