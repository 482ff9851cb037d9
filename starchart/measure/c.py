"""Measure C kernels: compile one binary per configuration, run it, check its answer: :class:`CEvaluator`.

Each configuration becomes preprocessor definitions: ``{"BLOCK": 64, "UNROLL":
True}`` compiles ``gcc -O3 -DBLOCK=64 -DUNROLL=1 kernel.c -o <binary> -lm``.
Binaries are cached under ``cache_dir`` by a hash of the source, compiler (and
its version), flags and definitions, so measuring a configuration again, or in a
resumed study, does not recompile.

A value is compiled into the program, so each must be one C token: a number, a
character or string literal, or an identifier (``float``). A space-file value
such as ``({system("..."); 8;})`` is refused unless ``raw_defines=True`` says
the space is trusted as code.

The program reports its own timing: by default every line like ``time: 1.25``
or ``time_ms=1.25`` is one value (in whatever unit it prints; milliseconds by
convention). It finds how many values to print in the environment variable
``STARCHART_REPEATS`` (warm-up included); if it prints fewer, it is launched
again. A line like ``checksum: 123.4`` is its answer, compared with
``reference`` (a number, or a configuration whose answer is taken as right).

A typical kernel program::

    #include <stdio.h>
    #include <stdlib.h>
    #include <time.h>
    #ifndef BLOCK
    #define BLOCK 32
    #endif
    int main(void) {
        const char *r = getenv("STARCHART_REPEATS");
        int repeats = r ? atoi(r) : 1;
        double sum = 0;
        for (int k = 0; k < repeats; k++) {
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            sum = 0;
            for (int i = 0; i < 1000000; i += BLOCK) sum += i;   /* the kernel */
            clock_gettime(CLOCK_MONOTONIC, &t1);
            printf("time_ms=%g\\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
        }
        printf("checksum=%.17g\\n", sum);
        return 0;
    }

measured with ``CEvaluator("kernel.c", reference={"BLOCK": 1})`` over a space
with parameter ``BLOCK``.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import math
import numbers
import os
import re
import shlex
import threading
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from starchart._util.validation import Interval, check
from starchart.errors import InputError, arg
from starchart.measure.base import (
    Evaluator,
    FreshLockOnUnpickle,
    Measurement,
    check_metric,
)
from starchart.measure.command import (
    check_bool,
    check_env,
    check_regex,
    check_timeout,
    description_options,
)
from starchart.measure.launch import check_define_values, compile_options
from starchart.measure.process import (
    OutputParseError,
    _excerpt,
    check_fields,
    check_repeats,
    compile_pattern,
    find_matches,
    find_program,
    parse_values,
    render_argv,
    render_text,
    run_process,
    run_repeated,
    space_names,
    template_fields,
)
from starchart.space import Space

__all__ = [
    "CHECKSUM_PATTERN",
    "TIME_PATTERN",
    "CEvaluator",
    "checksums_match",
    "default_cache_dir",
    "define_flags",
    "read_checksum",
]

#: Default timing pattern: ``time: 1.5``, ``time_ms=1.5``, ``Time = 2e-3``, ``time: nan`` (case-insensitive).
TIME_PATTERN = (r"(?i)\btime(?:_ms)?\s*[:=]\s*"
                r"([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|[-+]?(?:nan|inf(?:inity)?)(?![a-z]))")

#: Default answer pattern: ``checksum: 123.4``, ``checksum=0x1f`` (compared as text when not a number).
CHECKSUM_PATTERN = r"(?i)\bchecksum\s*[:=]\s*(\S+)"


def default_cache_dir() -> Path:
    """Where binaries are cached by default: ``$XDG_CACHE_HOME/starchart/c`` (``~/.cache/starchart/c``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "starchart" / "c"


def define_flags(values: Mapping[str, Any]) -> list[str]:
    """Compiler flags defining each value as a macro, sorted by name (so equal configurations hash equally).

    The values are written as for GPU kernels (:func:`~starchart.measure.launch.compile_options`):
    booleans ``1``/``0``, floats at full precision, strings verbatim, ``None`` an
    empty definition.

    Examples
    --------
    >>> define_flags({"N": 4, "FAST": True, "SCALE": 0.5, "TYPE": "float"})
    ['-DFAST=1', '-DN=4', '-DSCALE=0.5', '-DTYPE=float']
    """
    return compile_options({name: values[name] for name in sorted(values)})


def read_checksum(outputs: Sequence[str], pattern: str) -> float | str | None:
    """The last value ``pattern`` matches in ``outputs`` (a float when it reads as one), or ``None``.

    >>> read_checksum(["time=1\\nchecksum: 42.5\\n"], CHECKSUM_PATTERN)
    42.5
    >>> read_checksum(["checksum=0x1f"], CHECKSUM_PATTERN), read_checksum(["no answer"], CHECKSUM_PATTERN)
    ('0x1f', None)
    """
    compiled = compile_pattern(pattern)
    found: str | None = None
    for text in outputs:
        for match in find_matches(compiled, text):
            found = match.group(1) if compiled.groups else match.group(0)
    if found is None:
        return None
    for candidate in (found, found.rstrip(",;")):
        try:
            return float(candidate)
        except ValueError:
            pass
    return found


def checksums_match(value: float | str, reference: float | str, rtol: float) -> bool:
    """Whether a checksum agrees with the reference: within ``rtol`` (absolute when the reference is 0) or equal text.

    >>> checksums_match(100.00001, 100.0, 1e-6), checksums_match(100.001, 100.0, 1e-6)
    (True, False)
    >>> checksums_match(1e-9, 0.0, 1e-6), checksums_match("0x1f", "0x1f", 1e-6)
    (True, True)
    """
    if isinstance(value, float) and isinstance(reference, float):
        return math.isclose(value, reference, rel_tol=rtol, abs_tol=rtol if reference == 0 else 0.0)
    return str(value) == str(reference)


class CEvaluator(FreshLockOnUnpickle, Evaluator):
    """Compile a C source per configuration (parameters as ``-D`` macros), run it, read its timing and answer.

    Parameters
    ----------
    source:
        The C file.
    args:
        Arguments of the program; ``{param}`` is filled in from the configuration.
    compiler, flags:
        The compiler command and its flags (before the ``-D`` definitions);
        ``-lm`` is always linked.
    defines:
        Macros defined for every configuration (a configuration's value wins).
    metric, pattern:
        Name of the measured metric and the regex whose first group, in every
        match, is one value (default :data:`TIME_PATTERN`).
    repeats, warmup:
        Values kept per configuration after dropping the first ``warmup``; the
        program runs with ``STARCHART_REPEATS=<warmup + repeats>`` and is launched
        again while it printed fewer.
    check_pattern:
        Regex of the program's answer (default :data:`CHECKSUM_PATTERN`); the last
        match is kept in ``extra["checksum"]``. ``None``: no answer is read.
    reference:
        The right answer: a number, or a configuration whose answer (measured
        once, on first need) is taken as right. Another answer is a
        ``"wrong-answer"``; ``None`` checks nothing.
    rtol:
        Relative tolerance of the comparison (absolute when the reference is 0).
    timeout, compile_timeout:
        Seconds per launch of the program (status ``"timeout"``) and for the
        compiler (status ``"compile"``).
    cache_dir:
        Where binaries are kept (default :func:`default_cache_dir`). The cache key
        does not cover headers the source includes: clear it after editing them.
    env:
        Environment variables for the program; values may use ``{param}``.
    minimize:
        Whether smaller values of ``metric`` are better; default by the
        metric's name (:func:`starchart._util.direction.lower_is_better`: GFLOP/s maximised, time minimised).
    raw_defines:
        Pass parameter values to the compiler as they are. By default each must be a C
        literal (``16``, ``-1.5e-3f``, ``0x10``, ``'c'``, ``"text"``) or an identifier
        (``float``), since ``-D<P>=<value>`` compiles the value into the program and a
        value such as ``({system("..."); 8;})`` would run when it is measured. Set it
        only for a space you trust as code (``raw_defines: true`` in an evaluator file).
        ``defines`` are never checked: they are the evaluator's own, like ``flags``.
    """

    kind: ClassVar[str] = "c"

    def __init__(self, source: str | os.PathLike[str], *, args: Sequence[str] = (), compiler: str = "gcc",
                 flags: Sequence[str] | str = ("-O3",), defines: Mapping[str, Any] | None = None,
                 metric: str = "time", pattern: str = TIME_PATTERN, repeats: int = 5, warmup: int = 1,
                 check_pattern: str | None = CHECKSUM_PATTERN, reference: float | Mapping[str, Any] | None = None,
                 rtol: float = 1e-6, timeout: float | None = 60.0, compile_timeout: float | None = 120.0,
                 cache_dir: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None,
                 minimize: bool | None = None, raw_defines: bool = False):
        where = type(self).__name__
        self.source = _check_source(source, where)
        self.args = _check_strings(args, "args", where, split=False)
        if not isinstance(compiler, str) or not compiler.strip():
            raise InputError(f"compiler must be a command name, got {compiler!r}", where=where,
                             hint="e.g. compiler='gcc' or compiler='clang'")
        self.compiler = compiler
        self.flags = _check_strings(flags, "flags", where, split=True)
        self.defines = _check_defines(defines, where)
        self.metric = check_metric(metric, where)
        self.metrics = (self.metric,)
        self.minimize = self._direction(minimize)
        self.pattern = check_regex(pattern, "pattern", where)
        if self.pattern is None:
            raise InputError("pattern is required: it reads the timing the program prints", where=where,
                             hint="keep the default, which reads lines like 'time_ms=1.5'")
        self.repeats, self.warmup = check_repeats(repeats, warmup, where)
        self.check_pattern = check_regex(check_pattern, "check_pattern", where)
        self.reference = _check_reference(reference, where)
        self.rtol = check("rtol", rtol, Interval(float, 0, None), where=f"{where}, rtol",
                          hint=f"a relative tolerance: e.g. {arg('rtol', '1e-6')}")
        self.timeout = check_timeout(timeout, "timeout", where)
        self.compile_timeout = check_timeout(compile_timeout, "compile_timeout", where)
        if cache_dir is not None and (not isinstance(cache_dir, (str, os.PathLike)) or not os.fspath(cache_dir)):
            raise InputError(f"cache_dir must be a folder, got {cache_dir!r}", where=where,
                             hint="e.g. cache_dir: build/cache (leave it out for ~/.cache/starchart/c)")
        self.cache_dir = os.fspath(cache_dir) if cache_dir is not None else None
        self.env = check_env(env, where)
        self.raw_defines: bool = check_bool(raw_defines, "raw_defines", where)
        self._fields = template_fields(list(self.args) + list((self.env or {}).values()), where)
        self._compiler_version: str | None = None
        self._reference_answer: tuple[float | str | None, str] | None = None  # (answer, why there is none)
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- set-up
    @property
    def cache_path(self) -> Path:
        """The directory binaries are cached in."""
        return Path(self.cache_dir) if self.cache_dir is not None else default_cache_dir()

    def prepare(self, space: Space) -> None:
        """Check the compiler, the source, the templates and the parameter names against ``space``."""
        where = type(self).__name__
        self.check_space(space)
        if find_program(self.compiler) is None:
            words = self.compiler.split()
            hint = (f"compiler= is the program alone: compiler={words[0]!r} with flags={words[1:]!r} (before -O3 "
                    "and the rest of your flags)" if len(words) > 1 and find_program(words[0]) else
                    "install it (e.g. apt-get install gcc) or set compiler= to one on PATH")
            raise InputError(f"compiler {self.compiler!r} not found", where=where, hint=hint)
        cache = self.cache_path
        try:  # else every configuration would be charged a compile failure for it
            cache.mkdir(parents=True, exist_ok=True)
            if not os.access(cache, os.W_OK | os.X_OK):
                raise PermissionError(f"cannot write in {cache}")
        except OSError as exc:
            raise InputError(f"the binary cache folder {str(cache)!r} cannot be used: {exc}", where=where,
                             hint="set cache_dir= to a folder you may write in (default ~/.cache/starchart/c, "
                                  "or $XDG_CACHE_HOME/starchart/c)") from None
        self._check_collisions(space_names(space))
        if isinstance(self.reference, Mapping):
            # Its answer judges every run: without one, every configuration would fail and be charged.
            if self._reference_answer is None:
                self._reference_answer = self._measure_reference()
            if self._reference_answer[0] is None:
                raise InputError(f"no reference answer: {self._reference_answer[1]}", where=where,
                                 hint="fix the source for that configuration, or choose another reference")

    def check_space(self, space: Space) -> None:
        """Check the source, the templates and the parameter names against ``space`` (nothing is compiled)."""
        where = type(self).__name__
        _check_source(self.source, where)
        check_fields(self._fields, space, f"{where} args/env")
        for name in space_names(space):
            if not _is_macro_name(name):
                raise InputError(f"parameter {name!r} cannot be a C macro name", where=where,
                                 hint="rename it to letters, digits and underscores, not starting with a digit")
            if name in C_KEYWORDS:
                raise InputError(f"parameter {name!r} is a C keyword: -D{name}=<value> would replace the keyword "
                                 "everywhere in the source, so no configuration could compile", where=where,
                                 hint=f"rename the parameter (e.g. {name.upper()}_ or P_{name})")
        # every value is compiled into the program: refuse C code before anything is built
        for name, values in (getattr(space, "tune_params", None) or {}).items():
            for value in values:
                check_define_values({name: value}, where=where, raw=self.raw_defines)
        if isinstance(self.reference, Mapping):
            unknown = sorted(set(self.reference) - set(space_names(space)))
            if unknown:
                raise InputError(f"the reference configuration names unknown parameter(s) {', '.join(unknown)}",
                                 where=where, hint=f"known parameters: {', '.join(space_names(space))}")

    def _check_collisions(self, names: Sequence[str]) -> None:
        """Preprocess the source once with every parameter defined as a marker, and refuse a parameter whose
        definition the source replaces (``#define NAME`` without ``#ifndef``: its values would all measure
        the same) or that names a variable or function (``int i``; no configuration could compile)."""
        if not names:
            return
        markers = {name: f"__starchart_{name}__" for name in names}
        defines = define_flags({**self.defines, **markers})
        command = [self.compiler, *self.flags, *defines, "-E", str(self.source_path)]
        try:
            result = run_process(command, timeout=self.compile_timeout)
        except InputError:
            return  # the compiler cannot be run this way: the compilation will say what is wrong
        if result.timed_out:
            return
        where = type(self).__name__
        for name in names:
            line = _redefinition(result.stderr, name)
            if line is not None:
                raise InputError(f"the source #defines {name} itself{line}, so the value of parameter {name!r} "
                                 f"(-D{name}=...) is ignored and every configuration would measure the same",
                                 where=where, hint=f"guard that definition with #ifndef {name} ... #endif")
        declared = _declarations(result.stdout, markers)
        for name, found in list(declared.items())[:1]:
            other = name.upper() if name != name.upper() else f"P_{name}"
            raise InputError(f"parameter {name!r} is also the name of a variable or function ({found}); "
                             f"-D{name}=<value> would replace it there too, so no configuration could compile",
                             where=where, hint=f"rename the parameter (e.g. {other}) or that name in the source")

    def compiler_version(self) -> str | None:
        """First line of ``compiler --version`` (cached), or ``None`` if it cannot be run."""
        if self._compiler_version is None:
            try:
                result = run_process([self.compiler, "--version"], timeout=30)
            except InputError:
                return None
            lines = (result.stdout or result.stderr).strip().splitlines()
            self._compiler_version = lines[0].strip() if lines else ""
        return self._compiler_version

    # ------------------------------------------------------------- measuring
    def _measure(self, config: dict[str, Any]) -> Measurement:
        where = type(self).__name__
        binary, compile_s, failure, stderr_tail = self.build(config)
        if binary is None:
            return Measurement.failure(config, "compile", failure, compile_s=compile_s,
                                       extra={"stderr_tail": stderr_tail})
        argv = [str(binary), *render_argv(self.args, config, f"{where} args")]
        env = {key: render_text(value, config, f"{where} env {key}") for key, value in (self.env or {}).items()}
        measurement, launches = run_repeated(
            argv, config, parse=self._parse,
            metric=self.metric, repeats=self.repeats, warmup=self.warmup, timeout=self.timeout, env=env)
        measurement.compile_s = compile_s
        measurement.extra["compile_cached"] = compile_s == 0.0
        if stderr_tail:  # warnings of a fresh compilation (a cached binary's were shown when it was built)
            measurement.extra["compile_warnings"] = stderr_tail
        if measurement.ok and self.check_pattern is not None:
            measurement = self._check(measurement, [r.stdout for r in launches])
        return measurement

    def _parse(self, output: str) -> dict[str, list[float]]:
        """The timing values in one launch's output; with the default pattern, a failure says what to print."""
        try:
            return parse_values(output, pattern=self.pattern, metric=self.metric)
        except OutputParseError:
            if self.pattern != TIME_PATTERN:
                raise
            raise OutputParseError(f"the default timing pattern (lines such as 'time_ms: 1.25', a number) matched "
                                   f"nothing in the output {_excerpt(output)}") from None

    def build(self, config: Mapping[str, Any]) -> tuple[Path | None, float, str, str]:
        """Compile ``config``, or find its cached binary.

        Returns ``(binary, compile seconds, "", the compiler's warnings)`` (0 seconds and no
        warnings when cached) or, when it does not compile, ``(None, seconds, reason, stderr tail)``.

        Raises
        ------
        InputError
            A value is not a C literal or identifier and ``raw_defines`` is off.
        """
        check_define_values(config, where=type(self).__name__, raw=self.raw_defines)  # also without prepare()
        try:
            source_bytes = self.source_path.read_bytes()
        except OSError as exc:
            return None, 0.0, f"cannot read the source {self.source}: {exc}", ""
        defines = define_flags({**self.defines, **config})
        key_data = {"source": hashlib.sha256(source_bytes).hexdigest(), "compiler": self.compiler,
                    "version": self.compiler_version(), "flags": self.flags, "defines": defines}
        key = hashlib.sha256(json.dumps(key_data, sort_keys=True).encode()).hexdigest()[:24]
        cache = self.cache_path
        binary = cache / f"{self.source_path.stem}-{key}"
        if binary.is_file() and os.access(binary, os.X_OK):
            return binary, 0.0, "", ""
        try:
            cache.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return None, 0.0, f"cannot create the cache directory {cache}: {exc}", ""
        # Compile to a private name, then rename: parallel workers never run a half-written binary.
        partial = cache / f".{binary.name}.{uuid.uuid4().hex[:8]}.tmp"
        command = [self.compiler, *self.flags, *defines, str(self.source_path), "-o", str(partial), "-lm"]
        try:
            result = run_process(command, timeout=self.compile_timeout)
        except InputError as exc:  # the compiler vanished after prepare(), or prepare() was skipped
            return None, 0.0, str(exc), ""
        except BaseException:  # Ctrl-C or SIGTERM while compiling: leave no partial binary behind
            partial.unlink(missing_ok=True)
            raise
        if not result.ok or not partial.is_file():
            partial.unlink(missing_ok=True)
            return None, result.wall_s, f"{self.compiler}: {result.failure_reason()}", result.stderr_tail()
        ignored = [(name, line) for name in config if (line := _redefinition(result.stderr, str(name))) is not None]
        if ignored:  # the binary would be labelled with a value it does not use
            partial.unlink(missing_ok=True)
            name, line = ignored[0]
            return None, result.wall_s, (f"the source #defines {name} itself{line}, so -D{name}={config[name]} "
                                         f"is ignored (guard that definition with #ifndef {name})"), \
                result.stderr_tail()
        os.replace(partial, binary)
        return binary, result.wall_s, "", result.stderr_tail()  # the compiler's warnings, if any

    @property
    def source_path(self) -> Path:
        """The C source (absolute)."""
        return Path(self.source)

    def _check(self, measurement: Measurement, outputs: list[str]) -> Measurement:
        answer = read_checksum(outputs, self.check_pattern)  # type: ignore[arg-type]
        if answer is not None:
            measurement.extra["checksum"] = answer
        if self.reference is None:
            return measurement
        if answer is None:
            return _fail(measurement, "runtime", f"unparsable output: check_pattern {self.check_pattern!r} matched "
                                                 "nothing, so the answer cannot be checked")
        reference, why = self._reference_for(measurement.config, answer)
        if reference is None:
            return _fail(measurement, "runtime", f"cannot check the answer: {why}")
        measurement.extra["reference"] = reference
        if not checksums_match(answer, reference, self.rtol):
            return _fail(measurement, "wrong-answer",
                         f"checksum {answer!r} differs from the reference {reference!r} (rtol {self.rtol:g})")
        return measurement

    def _reference_for(self, config: Mapping[str, Any], answer: float | str) -> tuple[float | str | None, str]:
        if not isinstance(self.reference, Mapping):
            return float(self.reference), ""  # type: ignore[arg-type]
        with self._lock:
            if self._reference_answer is None:
                if dict(config) == dict(self.reference):
                    self._reference_answer = (answer, "")  # this run is the reference itself
                else:
                    self._reference_answer = self._measure_reference()
            return self._reference_answer

    def _measure_reference(self) -> tuple[float | str | None, str]:
        """Run the reference configuration once for its answer (or say why there is none)."""
        config = dict(self.reference)  # type: ignore[arg-type]
        label = f"the reference configuration {config}"
        binary, _, reason, _ = self.build(config)
        if binary is None:
            return None, f"{label} does not compile ({reason})"
        try:
            argv = [str(binary), *render_argv(self.args, config, "CEvaluator args")]
            env = {k: render_text(v, config, f"CEvaluator env {k}") for k, v in (self.env or {}).items()}
        except InputError as exc:
            return None, f"{label} cannot be run: {exc}"
        measurement, launches = run_repeated(argv, config, parse=None, repeats=1, timeout=self.timeout, env=env)
        if not measurement.ok:
            return None, f"{label} failed ({measurement.status}: {measurement.reason})"
        try:
            answer = read_checksum([r.stdout for r in launches], self.check_pattern)  # type: ignore[arg-type]
        except OutputParseError as exc:  # a check_pattern that backtracks without end
            return None, f"{label}: {exc}"
        if answer is None:
            return None, f"{label} printed no answer matching {self.check_pattern!r}"
        return answer, ""

    # ------------------------------------------------------------ describing
    def describe(self) -> dict[str, Any]:
        """Every option (JSON-able) plus the source's sha256 and the compiler's version."""
        try:
            digest: str | None = hashlib.sha256(self.source_path.read_bytes()).hexdigest()
        except OSError:
            digest = None
        return {**super().describe(), "source": self.source, "source_sha256": digest,
                "compiler": self.compiler, "compiler_version": self.compiler_version(), "args": list(self.args),
                "flags": list(self.flags), "defines": dict(self.defines), "metric": self.metric,
                "pattern": self.pattern, "repeats": self.repeats, "warmup": self.warmup,
                "check_pattern": self.check_pattern,
                "reference": dict(self.reference) if isinstance(self.reference, Mapping) else self.reference,
                "rtol": self.rtol, "timeout": self.timeout, "compile_timeout": self.compile_timeout,
                "cache_dir": self.cache_dir, "env": dict(self.env) if self.env else None,
                # only when set: a store described without it stays the same evaluator
                **({"raw_defines": True} if self.raw_defines else {})}

    @classmethod
    def cache_names(cls, description: Mapping[str, Any], environment: Mapping[str, Any]) -> dict[str, str]:
        """The source file's name as the kernel's, and the CPU as the device.

        >>> CEvaluator.cache_names({"kind": "c", "source": "/k/matmul.c"}, {"cpu": "Xeon"})
        {'kernel_name': 'matmul', 'device_name': 'Xeon'}
        """
        names = super().cache_names(description, environment)
        if "kernel_name" not in names and description.get("source"):
            names["kernel_name"] = Path(str(description["source"])).stem
        if environment.get("cpu"):
            names["device_name"] = str(environment["cpu"])
        return names

    @classmethod
    def from_description(cls, description: Mapping[str, Any]) -> CEvaluator:
        """Rebuild an evaluator from :meth:`describe`'s output (the sha256 and compiler version are informational)."""
        options = description_options(description, cls, informational=("source_sha256", "compiler_version"))
        evaluator = cls(**options)
        recorded = description.get("source_sha256")
        if recorded:  # a study's evaluator: measuring an edited source would mix two programs' results
            try:
                now: str | None = hashlib.sha256(evaluator.source_path.read_bytes()).hexdigest()
            except OSError:
                now = None
            if now != recorded:
                raise InputError(f"the C source {evaluator.source} changed since it was measured (sha256 "
                                 f"{str(recorded)[:12]}..., now {str(now)[:12]}...)", where=type(evaluator).__name__,
                                 hint="restore the source to continue this study, or measure the new one into a "
                                      "new store (--store new.db)")
        return evaluator


# ----------------------------------------------------------------------- helpers
def _fail(measurement: Measurement, status: str, reason: str) -> Measurement:
    """The measurement turned into a failure, keeping timings and extras (values dropped)."""
    return Measurement.failure(measurement.config, status, reason, compile_s=measurement.compile_s,
                               run_s=measurement.run_s, extra=measurement.extra)


def _check_source(source: str | os.PathLike[str], where: str) -> str:
    if not isinstance(source, (str, os.PathLike)) or not os.fspath(source).strip():
        raise InputError(f"source must be the path of a C file, got {source!r}", where=where,
                         hint="e.g. source: kernel.c")
    path = Path(source).expanduser().resolve()
    if not path.is_file():
        raise InputError(f"C source {os.fspath(source)!r} not found" + (" (it is a directory)" if path.is_dir() else ""),
                         where=where, hint=f"check the path; it was looked up as {path}")
    return str(path)


def _check_strings(values: Sequence[str] | str, label: str, where: str, split: bool) -> list[str]:
    if isinstance(values, str):
        if split:
            try:
                return shlex.split(values)
            except ValueError as exc:  # "No closing quotation"
                raise InputError(f"{label} {values!r} cannot be split into words: {exc}", where=where,
                                 hint="balance the quotes, or give a list") from None
        raise InputError(f"{label} must be a list of arguments, got the string {values!r}", where=where,
                         hint=f"split it, e.g. {values.split()!r}")
    if not isinstance(values, (list, tuple)):
        raise InputError(f"{label} must be a list of strings, got {values!r}", where=where,
                         hint=f"e.g. {label}: []" if values is None else f"e.g. {label}: ['{values}']")
    checked = []
    for value in values:
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            raise InputError(f"{label} must hold strings, got {value!r}", where=where, hint=f"quote it: '{value}'")
        checked.append(value)
    return checked


def _is_macro_name(name: str) -> bool:
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) is not None


def _check_defines(defines: Mapping[str, Any] | None, where: str) -> dict[str, Any]:
    if defines is None:
        return {}
    if not isinstance(defines, Mapping):
        raise InputError(f"defines must be a mapping of macro names to values, got {defines!r}", where=where,
                         hint="e.g. defines={'N': 1024}")
    for name in defines:
        if not isinstance(name, str) or not _is_macro_name(name):
            raise InputError(f"{name!r} is not a C macro name", where=where,
                             hint="use letters, digits and underscores, not starting with a digit")
    return dict(defines)


def _check_reference(reference: Any, where: str) -> float | dict[str, Any] | None:
    if reference is None:
        return None
    if isinstance(reference, Mapping):
        return dict(reference)
    if isinstance(reference, numbers.Real) and not isinstance(reference, bool):
        return float(reference)
    raise InputError(f"reference must be a number or a configuration, got {reference!r}", where=where,
                     hint="e.g. reference=499500.0 or reference={'BLOCK': 1}")


#: C keywords (C11 and C23): a parameter named like one cannot be a -D macro.
C_KEYWORDS = frozenset((
    "auto break case char const continue default do double else enum extern float for goto if inline int long "
    "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while "
    "_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local "
    "alignas alignof bool constexpr false nullptr static_assert thread_local true typeof typeof_unqual").split())

_TYPE_BEFORE = (r"\b(?:void|char|short|int|long|float|double|signed|unsigned|_Bool|bool|[A-Za-z_]\w*_t|"
                r"struct\s+\w+|union\s+\w+|enum\s+\w+)\s*(?:\b(?:const|volatile|restrict|__restrict)\b\s*|\*\s*)*")


def _redefinition(stderr: str, name: str) -> str | None:
    """``" (k.c, line 3)"`` where the compiler warned that the source redefines macro ``name``, else ``None``."""
    quoted = rf"[\"'\u2018]{re.escape(name)}[\"'\u2019]"
    match = re.search(rf"^(.*?):(\d+)(?::\d+)?: (?:warning|error): {quoted} (?:macro )?redefined", stderr,
                      re.MULTILINE)
    if match is None:
        return None
    return f" ({match.group(1)}, line {match.group(2)})"


def _declarations(preprocessed: str, markers: Mapping[str, str]) -> dict[str, str]:
    """For each parameter whose marker follows a type in the preprocessed source (``int __starchart_i__ = 0``):
    where that declaration is, ``"k.c, line 4: for (int i = 0; ...)"``."""
    text_lines: list[str] = []
    origin: list[tuple[str, int]] = []
    file, number = "", 0
    for raw in preprocessed.splitlines():
        marker = re.match(r'#\s*(\d+)\s+"([^"]*)"', raw)
        if marker:
            number, file = int(marker.group(1)), marker.group(2)
            continue
        if raw.startswith("#"):  # #pragma and the like
            number += 1
            continue
        text_lines.append(raw)
        origin.append((file, number))
        number += 1
    text = "\n".join(text_lines)
    starts = [0]
    for line in text_lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    declared = re.compile(_TYPE_BEFORE + r"$")
    found: dict[str, str] = {}
    for name, marker in markers.items():
        for use in re.finditer(rf"(?<!\w){re.escape(marker)}(?!\w)(?=\s*[=;,\[\)\(])", text):
            if declared.search(text[max(0, use.start() - 200):use.start()]) is None:
                continue
            path, line = origin[bisect.bisect_right(starts, use.start()) - 1]
            shown = _source_line(path, line)
            found[name] = f"{path}, line {line}" + (f": `{shown}`" if shown else "")
            break
    return found


def _source_line(path: str, line: int) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for i, text in enumerate(handle, start=1):
                if i == line:
                    text = " ".join(text.split())
                    return text if len(text) <= 80 else text[:77] + "..."
    except OSError:
        pass
    return ""
