"""Measure configurations by running a command line: :class:`CommandEvaluator`.

The command is a list of arguments whose elements (and the values of ``env``) may
name parameters as ``{param}``; each configuration fills them in and runs the
program. What is measured:

- by default, the wall time of the program, in milliseconds;
- with ``pattern``, the numbers the program prints (each match's first group);
- with ``json_lines``, every numeric entry of the JSON objects it prints, one
  line each (``{"time": 1.2, "gflops": 800}``).

Failures of a configuration are recorded, never raised: a non-zero exit or a
crash is ``"runtime"`` (with the tail of stderr), running past ``timeout`` is
``"timeout"`` (the whole process tree is killed), output without a value is
``"runtime"`` with a reason starting ``"unparsable output"``.

Examples
--------
>>> ev = CommandEvaluator(["echo", "time={x}"], pattern=r"time=(.+)")
>>> ev.evaluate({"x": 3}).values
{'time': [3.0]}
>>> ev.evaluate({"x": "fast"}).reason
"unparsable output: pattern r'time=(.+)' matched 'time=fast', but 'fast' is not a number"
"""

from __future__ import annotations

import inspect
import numbers
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import regex

from starchart.errors import InputError, arg
from starchart.measure.base import Evaluator, Measurement, check_metric, unknown_options
from starchart.measure.process import (
    check_fields,
    check_repeats,
    compile_pattern,
    find_program,
    parse_values,
    render_argv,
    render_shell,
    render_text,
    run_repeated,
    shell_field_contexts,
    template_fields,
)
from starchart.space import Space

__all__ = ["CommandEvaluator", "check_bool", "check_env", "check_regex", "check_timeout", "description_options"]


class CommandEvaluator(Evaluator):
    """Run a program per configuration and measure its wall time or what it prints.

    Parameters
    ----------
    argv:
        The command line as a list, e.g. ``["./bench", "--block={block_size}"]``;
        ``{param}`` is replaced by the configuration's value in every element
        (``{{``/``}}`` are literal braces). With ``shell=True``, one string run by
        ``/bin/sh -c``, each value quoted for where its field stands, so it stays one
        literal word (see ``raw_shell_values``). A list that runs a shell on a script
        (``["bash", "-c", "make N={n} && ./bench"]``, :func:`shell_script_index`) has that
        script's values quoted the same way.
    timeout:
        Seconds per launch before the program and its children are killed
        (status ``"timeout"``); ``None``: no limit.
    pattern:
        A regular expression whose first group, in every match, is one value of
        ``metric``. Without ``pattern`` and ``json_lines``, ``metric`` is the wall
        time of the launch in milliseconds.
    json_lines:
        Read metrics from the lines that are JSON objects (see
        :func:`~starchart.measure.process.parse_values`); ``metric`` must be a key.
    metric:
        Name of the objective metric.
    repeats, warmup:
        Values kept per configuration, after dropping the first ``warmup``. The
        program runs with ``STARCHART_REPEATS=<warmup + repeats>`` in its
        environment and is launched again while it has printed fewer values.
    env:
        Environment variables added for the program; values may use ``{param}``.
    cwd:
        Working directory of the program; default the current one when the evaluator is made
        (recorded, so that a study resumed from another folder runs the program where it ran).
    shell:
        Run ``argv`` (one string) through ``/bin/sh``. A ``{param}`` standing as a word
        becomes one argument whatever its value (:func:`shlex.quote`), and one inside
        ``'...'`` or ``"..."`` is escaped for those quotes; in arithmetic (``$((...))``,
        ``((...))``, ``[[ ]]``, ``let``), which bash evaluates even when quoted, only
        numbers and plain names are let in. A field the shell would not read literally
        (inside backquotes, ``${...}`` or ``$'...'``, after a backslash, in a comment or a
        here-document) is refused when the evaluator is made.
    minimize:
        Whether smaller values of ``metric`` are better; default by the
        metric's name (:func:`starchart._util.direction.lower_is_better`: GFLOP/s maximised, time minimised).
    raw_shell_values:
        With ``shell=True`` (or a ``sh -c`` script), substitute values unquoted, as shell code: a value
        ``1; rm -rf ~`` then runs. Only for a space you trust as much as the command
        (``raw_shell_values: true`` in an evaluator file).

    Examples
    --------
    >>> ev = CommandEvaluator("echo '{{\\"time\\": [{t}, 2], \\"gflops\\": 9}}'", shell=True, json_lines=True,
    ...                       repeats=2)
    >>> ev.evaluate({"t": 1}).values
    {'time': [1.0, 2.0], 'gflops': [9.0]}
    >>> ev.evaluate({"t": 1}).summary()["time"]
    1.5
    """

    kind: ClassVar[str] = "command"
    #: a command runs in its evaluator file's folder unless ``cwd`` says otherwise
    path_defaults: ClassVar[Mapping[str, str]] = {"cwd": "."}

    def __init__(self, argv: Sequence[str] | str, timeout: float | None = None, pattern: str | None = None, *,
                 json_lines: bool = False, metric: str = "time", repeats: int = 1, warmup: int = 0,
                 env: Mapping[str, str] | None = None, cwd: str | os.PathLike[str] | None = None,
                 shell: bool = False, minimize: bool | None = None, raw_shell_values: bool = False):
        where = type(self).__name__
        self.shell = check_bool(shell, "shell", where)
        self.raw_shell_values = check_bool(raw_shell_values, "raw_shell_values", where)
        if self.raw_shell_values and not self.shell and shell_script_index(argv) is None:  # it would do nothing
            raise InputError("raw_shell_values applies to a shell command only; without shell=True each value is "
                             "already one argument", where=where,
                             hint="drop raw_shell_values, or set shell=True for a command line run by /bin/sh")
        self.argv: list[str] | str = _check_argv(argv, self.shell, where)
        self.timeout = check_timeout(timeout, "timeout", where)
        self.pattern = check_regex(pattern, "pattern", where)
        self.json_lines = check_bool(json_lines, "json_lines", where)
        self.metric = check_metric(metric, where)
        self.metrics = (self.metric,)
        self.minimize = self._direction(minimize)
        self.repeats, self.warmup = check_repeats(repeats, warmup, where)
        self.env = check_env(env, where)
        # The folder it was made in: a stored study resumed from elsewhere runs the program where it ran before.
        if cwd is not None and (not isinstance(cwd, (str, os.PathLike)) or not os.fspath(cwd)):
            raise InputError(f"cwd must be a folder, got {cwd!r}", where=where, hint="e.g. cwd: build")
        self.cwd = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
        # Fields are checked now so a malformed template fails at construction, not per configuration.
        self._fields = template_fields(self._templates(), where)
        if self.shell and not self.raw_shell_values:  # and so is a field whose value could not be quoted
            shell_field_contexts(self.argv, f"{where} argv")  # type: ignore[arg-type]
        script = None if self.shell else shell_script_index(self.argv)  # type: ignore[arg-type]
        if script is not None and not self.raw_shell_values:  # the same for ["sh", "-c", SCRIPT]
            shell_field_contexts(self.argv[script], f"{where} argv[{script}]")

    def _templates(self) -> list[str]:
        argv = [self.argv] if isinstance(self.argv, str) else list(self.argv)
        return argv + list((self.env or {}).values())

    @property
    def parameters(self) -> set[str]:
        """The parameter names the command line and environment use."""
        return set(self._fields)

    def prepare(self, space: Space) -> None:
        """Check that every ``{param}`` is a parameter of ``space`` and that the program exists."""
        self.check_space(space)

    def check_space(self, space: Space) -> None:
        """What :meth:`prepare` checks (nothing is run): the templates' parameters, the folder, the program."""
        check_fields(self._fields, space, f"{type(self).__name__} argv/env")
        if self.cwd is not None and not Path(self.cwd).is_dir():
            raise InputError(f"working directory {self.cwd!r} does not exist", where=type(self).__name__,
                             hint="create it or fix cwd=")
        # a PATH set by env= is where the program is looked up (unless it depends on the configuration)
        env_path = (self.env or {}).get("PATH")
        if env_path is not None and template_fields([env_path]):
            env_path = None
        if not self.shell and not template_fields([self.argv[0]]):
            program = self.argv[0]
            if find_program(program, self.cwd, env_path) is None:
                if os.sep in program:
                    path = Path(self.cwd or ".", program).expanduser().resolve()
                    state = "is not executable (chmod +x it)" if path.is_file() else "does not exist"
                    hint = (f"it was looked up as {path}, which {state}; a relative path is taken from the "
                            f"working folder cwd={self.cwd}")
                elif env_path is not None:
                    hint = (f"it is looked up in the PATH set by env= ({env_path!r}): add its folder there, "
                            "or give its full path")
                else:
                    hint = "build or install it, check PATH, or give its full path"
                raise InputError(f"program {program!r} not found", where=type(self).__name__, hint=hint)

    def _measure(self, config: dict[str, Any]) -> Measurement:
        where = type(self).__name__
        if isinstance(self.argv, str):
            # a value must not become shell code: quoted unless the user opted out
            render = render_text if self.raw_shell_values else render_shell
            argv: list[str] | str = render(self.argv, config, where)
        else:
            argv = render_argv(self.argv, config, where)
            script = shell_script_index(self.argv)
            if script is not None and not self.raw_shell_values:  # ["sh", "-c", "echo {x}"]: a shell reads it
                argv[script] = render_shell(self.argv[script], config, f"{where} argv[{script}]")
        env = {key: render_text(value, config, f"{where} env {key}") for key, value in (self.env or {}).items()}
        parse = None
        if self.pattern is not None or self.json_lines:
            def parse(out: str) -> dict[str, list[float]]:
                return parse_values(out, pattern=self.pattern, json_lines=self.json_lines, metric=self.metric)
        measurement, _ = run_repeated(argv, config, parse=parse, metric=self.metric, repeats=self.repeats,
                                      warmup=self.warmup, timeout=self.timeout, env=env, cwd=self.cwd,
                                      shell=self.shell)
        return measurement

    def describe(self) -> dict[str, Any]:
        """Every constructor option, JSON-able, with ``"kind": "command"``."""
        return {**super().describe(),
                "argv": self.argv if isinstance(self.argv, str) else list(self.argv), "timeout": self.timeout,
                "pattern": self.pattern, "json_lines": self.json_lines, "metric": self.metric,
                "repeats": self.repeats, "warmup": self.warmup, "env": dict(self.env) if self.env else None,
                "cwd": self.cwd, "shell": self.shell,
                # only when set: a store described without it stays the same evaluator
                **({"raw_shell_values": True} if self.raw_shell_values else {})}

    @classmethod
    def from_description(cls, description: Mapping[str, Any]) -> CommandEvaluator:
        """Rebuild an evaluator from :meth:`describe`'s output.

        >>> ev = CommandEvaluator(["./bench", "{n}"], timeout=5, repeats=3)
        >>> CommandEvaluator.from_description(ev.describe()).describe() == ev.describe()
        True
        """
        return cls(**description_options(description, cls))


# ------------------------------------------------------------------ shared checks
#: Programs that read the argument after ``-c`` as shell code (``["sh", "-c", "make N={n}"]``).
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"})


def shell_script_index(argv: Sequence[str] | str) -> int | None:
    """The position of the script in an argv that runs a shell on it (``sh -c SCRIPT``), else None: its
    ``{param}`` fields are filled quoted, as with ``shell=True``, for a value there is read as shell code.

    >>> shell_script_index(["sh", "-c", "echo {x}"]), shell_script_index(["/bin/bash", "-euc", "make {n}"])
    (2, 2)
    >>> shell_script_index(["bash", "-o", "pipefail", "-c", "make {n} | tee log"])
    4
    >>> shell_script_index(["./bench", "-c", "{x}"]), shell_script_index(["sh", "run.sh", "-c"])
    (None, None)
    """
    if isinstance(argv, str) or len(argv) < 3 or not isinstance(argv[0], str):
        return None
    program = os.path.basename(argv[0])
    words = list(argv[1:])
    if program == "busybox" and words[:1] in (["sh"], ["ash"]):
        words = words[1:]
    elif program not in SHELLS or program == "busybox":
        return None
    skip = False
    for i, word in enumerate(words):
        if skip:  # the argument of -o/-O (bash -o pipefail -c ...)
            skip = False
            continue
        if word in ("-o", "+o", "-O", "+O"):
            skip = True
            continue
        if not word.startswith(("-", "+")) or word in ("-", "--"):
            return None  # a script file, not -c: its arguments are plain arguments
        if "c" in word[1:] and not word.startswith("--"):
            at = len(argv) - len(words) + i + 1
            return at if at < len(argv) else None
    return None


def _check_argv(argv: Sequence[str] | str, shell: bool, where: str) -> list[str] | str:
    if shell:
        if isinstance(argv, Sequence) and not isinstance(argv, str) and len(argv) == 1:
            argv = argv[0]
        if not isinstance(argv, str) or not argv.strip():
            raise InputError(f"with shell=True the command must be one string, got {argv!r}", where=where,
                             hint="e.g. CommandEvaluator('make N={n} && ./bench', shell=True)")
        return argv
    if isinstance(argv, str):
        raise InputError(f"argv must be a list of arguments, got the string {argv!r}", where=where,
                         hint=f"split it, e.g. {argv.split()!r} (shlex.split handles quotes), "
                              "or pass shell=True to run it through /bin/sh")
    if not isinstance(argv, Sequence) or not argv:
        raise InputError(f"argv must be a non-empty list of arguments, got {argv!r}", where=where,
                         hint="e.g. ['./bench', '--block={block_size}']")
    checked = []
    for item in argv:
        if isinstance(item, os.PathLike):
            item = os.fspath(item)
        elif isinstance(item, numbers.Real) and not isinstance(item, bool):
            item = str(item)
        if not isinstance(item, str):
            raise InputError(f"argv elements must be strings, got {item!r}", where=where,
                             hint="quote it, e.g. '64' or '{block_size}'")
        checked.append(item)
    if not checked[0]:
        raise InputError("argv[0], the program, is empty", where=where, hint="e.g. ['./bench']")
    return checked


def check_timeout(timeout: float | None, label: str, where: str) -> float | None:
    """``None`` or a positive number of seconds (as float).

    >>> check_timeout(2, "timeout", "CEvaluator")
    2.0
    """
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) or not timeout > 0:
        # no upper bound: inf is "no limit", as None is
        raise InputError(f"must be a positive number of seconds or None, got {timeout!r}", where=f"{where}, {label}",
                         hint=f"e.g. {arg(label, '60')}")
    return float(timeout)


def check_regex(pattern: str | None, label: str, where: str) -> str | None:
    """``None`` or a regular expression that compiles (returned as given)."""
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        raise InputError(f"must be a regular expression string, got {pattern!r}", where=f"{where}, {label}",
                         hint=r"e.g. r'time=([0-9.eE+-]+)'")
    try:
        compile_pattern(pattern)  # by the engine that matches it
    except regex.error as exc:
        raise InputError(f"{pattern!r} is not a valid regular expression: {exc}", where=f"{where}, {label}",
                         hint=r"e.g. r'time=([0-9.eE+-]+)'") from exc
    return pattern


def check_env(env: Mapping[str, Any] | None, where: str) -> dict[str, str] | None:
    """``None`` or a ``{name: value}`` mapping with string names (values made strings)."""
    if env is None:
        return None
    if not isinstance(env, Mapping):
        raise InputError(f"env must be a mapping of variable names to values, got {env!r}", where=where,
                         hint="e.g. env={'OMP_NUM_THREADS': '{threads}'}")
    checked = {}
    for key, value in env.items():
        if not isinstance(key, str) or not key or "=" in key:
            raise InputError(f"bad environment variable name {key!r}", where=where,
                             hint="use names like OMP_NUM_THREADS")
        if value is None or isinstance(value, (Mapping, list, tuple, set)):
            raise InputError(f"environment variable {key} needs a text or number value, got {value!r}",
                             where=where, hint=f"e.g. {key}: '1' (an empty value is written '')")
        checked[key] = str(value)
    return checked


def check_bool(value: Any, label: str, where: str) -> bool:
    """``value`` as a bool, refusing what ``bool()`` would misread (the string ``"false"`` is true).

    >>> check_bool(True, "shell", "CommandEvaluator"), check_bool(0, "shell", "CommandEvaluator")
    (True, False)
    """
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral) and value in (0, 1)):
        return bool(value)
    raise InputError(f"must be true or false, got {value!r}", where=f"{where}, {label}",
                     hint=f"write {label}: true or {label}: false (unquoted)")


def description_options(description: Mapping[str, Any], cls: type[Evaluator],
                        informational: Sequence[str] = ()) -> dict[str, Any]:
    """The constructor options in a :meth:`~Evaluator.describe` output, checked against ``cls``.

    Drops ``kind``, the ``informational`` keys and ``metrics``/``minimize`` unless
    the constructor takes them; raises :class:`InputError` for another kind or an unknown key.
    """
    where = f"{cls.__name__} description"
    if not isinstance(description, Mapping):
        raise InputError(f"expected a mapping, got {type(description).__name__}", where=where)
    kind = description.get("kind", cls.kind)
    if kind != cls.kind:
        raise InputError(f"description is of kind {kind!r}, not {cls.kind!r}", where=where,
                         hint="use starchart.measure.evaluator_from_dict to pick the evaluator by kind")
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self"}
    if "metrics" not in accepted and "metric" in accepted and "metrics" in description:
        _check_one_metric(description, cls, where)
    # "metrics" and "minimize" come from Evaluator.describe(); they are options only where accepted
    dropped = {"kind", *informational, *({"metrics", "minimize"} - accepted)}
    options = {k: v for k, v in description.items() if k not in dropped}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise unknown_options(unknown, sorted(accepted), cls.kind, where)
    return options


def _check_one_metric(description: Mapping[str, Any], cls: type[Evaluator], where: str) -> None:
    """Refuse ``metrics`` given to a kind that measures one ``metric``, unless it is what :meth:`describe`
    writes (``[metric]``): dropped, ``metrics: [a, b]`` measured the wall time as ``time`` without a word."""
    default = inspect.signature(cls.__init__).parameters["metric"].default
    metrics, metric = description["metrics"], description.get("metric", default)
    if isinstance(metrics, (list, tuple)) and list(metrics) == [metric]:
        return
    first = metrics[0] if isinstance(metrics, (list, tuple)) and metrics and isinstance(metrics[0], str) else metric
    raise InputError(f"a {cls.kind!r} evaluator measures one metric, named by metric, not metrics "
                     f"(got metrics={metrics!r})", where=f"{where}, metrics",
                     hint=f"write metric: {first} (a command with json_lines keeps every number it prints as JSON, "
                          "whichever metric is the objective)")
