"""Cross-check the runtime's block and branch counts against clang's source-based profile.

The same program, built with ``-fprofile-instr-generate -fcoverage-mapping`` and run with
the same arguments, gives per source line an execution count and per condition its
true/false counts (``llvm-profdata`` + ``llvm-cov export -format=lcov``). Inside the band's
source range the instrumented run must agree:

* ``loop``: iterations of a loop starting on a line = executions of its (rotated) header
  block = the true count of its condition;
* ``line``: a line's count = the most-executed IR block holding an instruction of that line,
  summed over the copies of the band the optimiser made (inlining); loop lines are compared
  as ``loop`` instead (their condition runs once more per entry);
* ``branch``: a line with one IR conditional branch and one source condition: the two
  successor counts, compared as an unordered pair (the optimiser may invert a condition).

The optimiser can legitimately break a ``line`` row (an ``if`` turned into a select runs its
line every iteration; code hoisted out of a loop runs less often), so mismatches are
reported, not raised.

Examples
--------
>>> run = measure("k.c", ["1000"])                             # doctest: +SKIP
>>> rows = crosscheck(run, clang_profile("k.c", ["1000"]))     # doctest: +SKIP
>>> all(r.agrees for r in rows)                                # doctest: +SKIP
True
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...errors import InputError, StarchartError
from ..toolchain import clang_command
from .build import run_program
from .features import DynamicRun


@dataclass(frozen=True)
class ClangProfile:
    """Per source line: execution count (``DA``) and condition (true, false) counts (``BRDA``)."""

    lines: dict[int, int]
    branches: dict[int, list[tuple[int, int]]]


@dataclass(frozen=True)
class Row:
    kind: str          # "loop", "line" or "branch"
    line: int
    xapp: object
    clang: object

    @property
    def agrees(self) -> bool:
        return self.xapp == self.clang


def profile_tools() -> tuple[Path, Path] | None:
    """``llvm-profdata`` and ``llvm-cov`` of the same LLVM as the clang in use, or None.

    Only the resolved clang's own folder is searched: the profile format changes between LLVM
    releases, so tools of another release on PATH (or a clang run through the ziglang wheel,
    which ships none) must not be paired with it.
    """
    clang = shutil.which(clang_command()[0])
    dirs = [Path(clang).resolve().parent] if clang else []
    for d in dirs:
        prof, cov = d / "llvm-profdata", d / "llvm-cov"
        if prof.is_file() and cov.is_file():
            return prof, cov
    return None


def missing_profile_runtime() -> str | None:
    """Why clang cannot link a profiling program here, or None when its profile runtime is installed.

    clang finds ``libclang_rt.profile`` under its resource folder; Debian ships it apart from
    clang (``libclang-rt-NN-dev``), so a clang that compiles may still fail to link with
    ``-fprofile-instr-generate``.

    >>> why = missing_profile_runtime()
    >>> why is None or "libclang_rt.profile" in why
    True
    """
    proc = subprocess.run([*clang_command(), "-print-resource-dir"], capture_output=True, text=True, check=False)
    resource = Path(proc.stdout.strip()) if proc.returncode == 0 and proc.stdout.strip() else None
    if resource is not None and any((resource / "lib").glob("**/libclang_rt.profile*")):
        return None
    major = resource.name.split(".")[0] if resource is not None else "NN"
    return (f"clang's profile runtime libclang_rt.profile is not under {resource or 'its resource folder'} "
            f"(Debian: apt-get install libclang-rt-{major}-dev)")


def clang_profile(path: str | Path, args: Sequence[object] = (), *, defines: dict[str, object] | None = None,
                  include_dirs: tuple[str | Path, ...] = (), libs: Sequence[str] = ("-lm",),
                  timeout: float | None = 600.0, cwd: str | Path | None = None) -> ClangProfile:
    """Build ``path`` with clang's source-based coverage, run it, and read the counts.

    Raises
    ------
    StarchartError
        ``llvm-profdata``/``llvm-cov`` or the profile runtime are missing
        (:func:`missing_profile_runtime` says which).
    InputError
        The program fails (as for :func:`~starchart.xapp.dynamic.measure`).
    """
    tools = profile_tools()
    if tools is None:
        raise StarchartError("llvm-profdata and llvm-cov were not found next to clang or on PATH",
                             hint="install LLVM's tools (Debian: the llvm package of clang's version)")
    profdata, cov = tools
    runtime = missing_profile_runtime()
    if runtime is not None:
        raise StarchartError(runtime, hint="install clang's compiler-rt profile library, or skip the cross-check")
    source = Path(path).resolve()
    with tempfile.TemporaryDirectory(prefix="starchart-xapp-prof-") as tmp:
        work = Path(tmp)
        exe = work / "prog.prof"
        argv = [*clang_command(), "-O1", "-g", "-fprofile-instr-generate", "-fcoverage-mapping",
                "-Wno-unknown-pragmas", f"-I{source.parent}", *(f"-I{d}" for d in include_dirs),
                *(f"-D{k}={v}" for k, v in (defines or {}).items()), str(source), *libs, "-o", str(exe)]
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise StarchartError("clang could not build the profiling program: "
                                 + " | ".join(proc.stderr.strip().splitlines()[-3:]),
                                 hint="clang's profile runtime (libclang_rt.profile) may be missing")
        raw, data = work / "prog.profraw", work / "prog.profdata"
        run_program(exe, args, source=source, env={"LLVM_PROFILE_FILE": str(raw)}, timeout=timeout, cwd=cwd)
        for cmd in ([str(profdata), "merge", "-sparse", str(raw), "-o", str(data)],
                    [str(cov), "export", "-format=lcov", str(exe), f"-instr-profile={data}"]):
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise StarchartError(f"{Path(cmd[0]).name} failed: {proc.stderr.strip()[:300]}")
        return parse_lcov(proc.stdout, source)


def parse_lcov(text: str, source: str | Path) -> ClangProfile:
    """The ``DA``/``BRDA`` records of ``source`` in an lcov export.

    >>> p = parse_lcov("SF:/a.c\\nDA:3,10\\nBRDA:3,0,0,9\\nBRDA:3,0,1,1\\nend_of_record\\n", "/a.c")
    >>> p.lines, p.branches
    ({3: 10}, {3: [(9, 1)]})
    """
    lines: dict[int, int] = {}
    pending: dict[tuple[int, str], list[int]] = {}
    target, current = Path(source).resolve(), None
    for rec in text.splitlines():
        if rec.startswith("SF:"):
            current = Path(rec[3:]).resolve() == target
        elif not current:
            continue
        elif rec.startswith("DA:"):
            ln, count = rec[3:].split(",")[:2]
            lines[int(ln)] = int(count)
        elif rec.startswith("BRDA:"):
            ln, block, _, count = rec[5:].split(",")
            pending.setdefault((int(ln), block), []).append(0 if count == "-" else int(count))
    branches: dict[int, list[tuple[int, int]]] = {}
    for (ln, _), counts in pending.items():
        for i in range(0, len(counts) - 1, 2):
            branches.setdefault(ln, []).append((counts[i], counts[i + 1]))
    return ClangProfile(lines, branches)


def crosscheck(run: DynamicRun, profile: ClangProfile) -> list[Row]:
    """Rows comparing the run's counts with the profile inside the band's source lines."""
    if run.band_end_line is None:
        raise InputError("the band loop has no end line in the debug information", where=run.source,
                         hint="compile with -g (the default of starchart.xapp)")
    lo, hi = run.band_line, run.band_end_line
    count = {i: c for i, (_, c) in enumerate(run.blocks)}
    rows: list[Row] = []
    loop_lines = {ln for ln in run.loop_headers if lo <= ln <= hi}
    for ln in sorted(loop_lines):
        if profile.branches.get(ln):
            iterations = sum(count[h] for h in run.loop_headers[ln])
            rows.append(Row("loop", ln, iterations, profile.branches[ln][0][0]))
    per_copy: dict[tuple[int, int], int] = {}          # (line, band copy) -> its busiest block
    for info, c in run.blocks:
        for ln in info.lines if info.in_band else ():
            per_copy[ln, info.band_copy] = max(per_copy.get((ln, info.band_copy), 0), c)
    per_line: dict[int, int] = {}
    for (ln, _), c in per_copy.items():
        per_line[ln] = per_line.get(ln, 0) + c
    for ln in sorted(per_line):
        if lo <= ln <= hi and ln not in loop_lines and ln in profile.lines:
            rows.append(Row("line", ln, per_line[ln], profile.lines[ln]))
    by_line: dict[int, list[list[int]]] = {}
    for br, succ in run.branches:
        if br.in_band and br.line is not None and len(succ) == 2:
            by_line.setdefault(br.line, []).append(succ)
    for ln in sorted(by_line):
        if lo <= ln <= hi and ln not in loop_lines and len(by_line[ln]) == 1 and len(profile.branches.get(ln, [])) == 1:
            rows.append(Row("branch", ln, tuple(sorted(by_line[ln][0])), tuple(sorted(profile.branches[ln][0]))))
    return rows
