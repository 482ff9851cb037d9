"""Running child processes for measurement: launch, time, kill on timeout, parse output.

The command-line and C evaluators share everything here:

- :func:`run_process` starts a program in its own process group (session), so a
  timeout kills the whole tree, grandchildren included (a shell script's
  ``sleep``, a benchmark's worker processes), and returns a :class:`ProcessResult`;
  the group also dies when the program exits (background jobs) or when this Python
  process is killed (:mod:`starchart.measure.watchdog`);
- :func:`render_argv` and :func:`template_fields` handle ``{param}`` templates,
  so unknown parameters are found by ``prepare`` before anything runs;
  :func:`render_shell` fills a ``/bin/sh`` command line, each value quoted as one word;
- :func:`parse_values` reads metric values from a program's output (a regex or
  JSON lines) and raises :class:`OutputParseError` when it cannot; :func:`find_matches` runs a user's
  pattern under a time limit (:data:`PATTERN_SECONDS`);
- :func:`run_repeated` launches a program until it has printed ``warmup + repeats``
  values and turns the outcome into a :class:`~starchart.measure.base.Measurement`.

Examples
--------
>>> result = run_process(["echo", "time=1.5"])
>>> result.returncode, result.stdout
(0, 'time=1.5\\n')
>>> parse_values(result.stdout, pattern=r"time=(\\S+)")
{'time': [1.5]}
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
import shlex
import shutil
import signal
import string
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from starchart._util.text import shorten
from starchart._util.units import is_never_negative, unit_of
from starchart._util.validation import Interval, check
from starchart.errors import InputError, arg
from starchart.measure import watchdog
from starchart.measure.base import Measurement
from starchart.measure.capture import OUTPUT_LIMIT, PipeReader
from starchart.space import Space

__all__ = [
    "REPEATS_ENV",
    "OutputParseError",
    "ProcessResult",
    "check_fields",
    "check_repeats",
    "find_program",
    "kill_running",
    "PATTERN_SECONDS",
    "compile_pattern",
    "find_matches",
    "parse_values",
    "render_argv",
    "render_shell",
    "render_text",
    "run_process",
    "run_repeated",
    "shell_field_contexts",
    "space_names",
    "template_fields",
]

#: Environment variable telling a program how many values to print (``warmup + repeats``).
REPEATS_ENV = "STARCHART_REPEATS"

# Grace period for collecting output after the process group was killed; a process that left
# the group (its own setsid) could hold the pipes open forever, so we do not wait on it.
_DRAIN_S = 2.0
# How long a program's pipes may stay open after it exited (a background job it started holds them)
# before its group is killed; and how often a waiting launch checks whether the program exited.
_HELD_OPEN_S = 1.0
_POLL_S = 0.1

# The programs run_process is waiting for (any thread), so that an interrupted run can stop them.
_RUNNING: set[subprocess.Popen] = set()
_RUNNING_LOCK = threading.Lock()


class OutputParseError(ValueError):
    """A program's output holds no usable value (no match, or a match that is not a number)."""


# --------------------------------------------------------------------------- results
@dataclass
class ProcessResult:
    """What one run of a program did.

    Attributes
    ----------
    argv:
        The command line as run (``["/bin/sh", "-c", script]`` for a shell command).
    returncode:
        Exit status; negative (``-signal``) when killed by a signal, as :mod:`subprocess` reports it.
    stdout, stderr:
        Output, decoded as UTF-8 (undecodable bytes replaced).
    wall_s:
        Seconds from start to exit (``time.perf_counter``).
    timed_out:
        Whether it was killed for running past ``timeout``.
    signal:
        Name of the signal that ended it (``"SIGSEGV"``), or ``None``.
    timeout:
        The limit it ran under, seconds (``None``: none).
    left_running:
        ``None``, or what happened to the processes it left running in its process group
        (background jobs), which are killed when it exits.
    output_dropped:
        ``None``, or how much of an output too long to keep whole was left out of ``stdout`` /
        ``stderr`` (their beginning and end are kept: :mod:`starchart.measure.capture`).

    Examples
    --------
    >>> r = ProcessResult(["./bench"], -11, "", "Segmentation fault\\n", 0.1, signal="SIGSEGV")
    >>> r.ok, r.failure_reason()
    (False, 'killed by SIGSEGV; stderr: Segmentation fault')
    >>> ProcessResult(["./bench"], 3, "", "", 0.1).failure_reason()
    'exit status 3'
    >>> ProcessResult(["./bench"], 3, "N must be even\\n", "", 0.1).failure_reason()  # stderr empty: stdout says why
    'exit status 3; stdout: N must be even'
    """

    argv: list[str]
    returncode: int | None
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool = False
    signal: str | None = None
    timeout: float | None = None
    left_running: str | None = None
    output_dropped: str | None = None

    @property
    def ok(self) -> bool:
        """Whether it exited with status 0 in time."""
        return not self.timed_out and self.returncode == 0

    def stderr_tail(self, n_chars: int = 2000) -> str:
        """The last ``n_chars`` characters of stderr, stripped (where the error usually is)."""
        return _tail(self.stderr, n_chars)

    def stdout_tail(self, n_chars: int = 2000) -> str:
        """The last ``n_chars`` characters of stdout, stripped."""
        return _tail(self.stdout, n_chars)

    def failure_reason(self, n_chars: int = 2000) -> str:
        """Why it failed, readable: ``"killed by SIGSEGV"``, ``"exit status 3"``... plus the stderr tail.

        Returns ``""`` for a successful run.
        """
        if self.timed_out:
            head = f"timed out after {self.timeout:g} s" if self.timeout is not None else "timed out"
        elif self.signal is not None:
            head = f"killed by {self.signal}"
        elif self.returncode not in (0, None):
            head = f"exit status {self.returncode}"
            shell_signal = _signal_name(self.returncode - 128) if self.returncode > 128 else None
            if shell_signal and _is_shell(self.argv):
                # a shell reports a child killed by signal N as exit status 128 + N
                head += f" (128 + {shell_signal}: a command in the shell was killed)"
        else:
            return ""
        tail = self.stderr_tail(n_chars)
        if tail:
            return f"{head}; stderr: {tail}"
        out = "" if self.timed_out else self.stdout_tail(n_chars)  # some programs say what went wrong on stdout
        return f"{head}; stdout: {out}" if out else head


def _tail(text: str, n_chars: int) -> str:
    text = text.strip()
    return text if len(text) <= n_chars else "..." + text[-n_chars:]


def _signal_name(number: int) -> str | None:
    try:
        return signal.Signals(number).name
    except ValueError:
        return None


def _is_shell(argv: Sequence[str]) -> bool:
    return bool(argv) and Path(argv[0]).name in ("sh", "bash", "dash", "zsh", "ksh")


# ------------------------------------------------------------------------- running
def run_process(argv: Sequence[str] | str, *, timeout: float | None = None, env: Mapping[str, str] | None = None,
                cwd: str | Path | None = None, shell: bool = False) -> ProcessResult:
    """Run a program to completion (or to ``timeout``) and return what it did.

    When the program exits, whatever it left running in its process group (``server &``) is
    killed, after at most 1 s more if it keeps the program's output open; ``left_running`` says so.
    A process that must outlive the launch starts a session of its own (``setsid``). If the Python
    process itself is killed (even by ``kill -9``), the group is killed too
    (:mod:`starchart.measure.watchdog`).

    Parameters
    ----------
    argv:
        The program and its arguments; with ``shell=True`` one string run by ``/bin/sh -c``.
    timeout:
        Seconds before the program *and every process it started* (its process
        group) are killed with ``SIGKILL``; ``None`` waits forever.
    env:
        Variables added to (overriding) the current environment.
    cwd:
        Working directory.
    shell:
        Run ``argv`` (a string) through ``/bin/sh -c``.

    Raises
    ------
    InputError
        If the program (or ``cwd``) does not exist or cannot be executed: a set-up
        problem, not a failure of one configuration.

    Examples
    --------
    >>> run_process("echo $GREETING; exit 3", shell=True, env={"GREETING": "hi"}).failure_reason()
    'exit status 3; stdout: hi'
    >>> run_process(["sleep", "5"], timeout=0.1).failure_reason()
    'timed out after 0.1 s'
    """
    argv = _command_line(argv, shell)
    full_env = None
    if env:
        full_env = dict(os.environ)
        full_env.update({str(k): str(v) for k, v in env.items()})
    # None where the watchdog runs (or off Linux); else only a prctl call between fork and exec
    preexec = watchdog.preexec_fallback()
    start = time.perf_counter()
    try:
        # A new session makes the child a process-group leader: killpg then reaches grandchildren too.
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=full_env, cwd=cwd, start_new_session=True,
                                preexec_fn=preexec)  # noqa: PLW1509 - only the fallback, see watchdog
    except FileNotFoundError as exc:
        if cwd is not None and not Path(cwd).is_dir():
            raise InputError(f"working directory {str(cwd)!r} does not exist", where=argv[0],
                             hint="create it or fix cwd=") from exc
        raise InputError(f"program {argv[0]!r} not found", where=" ".join(argv)[:200],
                         hint=_missing_program_hint(argv[0], (env or {}).get("PATH"))) from exc
    except PermissionError as exc:
        raise InputError(f"program {argv[0]!r} cannot be executed (permission denied)",
                         where=" ".join(argv)[:200], hint=f"make it executable: chmod +x {argv[0]}") from exc
    watchdog.watch(proc.pid)  # if this process is killed, the watchdog kills the group
    with _RUNNING_LOCK:
        _RUNNING.add(proc)
    try:
        out, err, timed_out, exited_s, held_open, dropped = _wait(proc, start, timeout)
        # Background jobs it left in its group (``server &``) would run on, disturbing the next measurement.
        left_running = bool(held_open) or (not timed_out and _kill_leftovers(proc.pid))
    except BaseException:  # KeyboardInterrupt: leave no orphans behind
        _kill_group(proc)
        proc.wait()
        raise
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(proc)
        watchdog.unwatch(proc.pid)
    wall_s = (exited_s if exited_s is not None else time.perf_counter()) - start
    code = proc.returncode
    sig = _signal_name(-code) if code is not None and code < 0 and not timed_out else None
    note = None
    if held_open == "killed":
        note = (f"processes it left running kept its output open {_HELD_OPEN_S:g} s after it exited; "
                "they were killed")
    elif held_open:
        note = (f"a process it started outside its process group (setsid?) kept its output open "
                f"{_HELD_OPEN_S:g} s after it exited and still runs; its output was read up to then")
    elif left_running:
        note = "processes it left running in its process group were killed when it exited"
    return ProcessResult(list(argv), code, _decode(out), _decode(err), wall_s, timed_out=timed_out, signal=sig,
                         timeout=timeout, left_running=note, output_dropped=dropped)


def _wait(proc: subprocess.Popen, start: float,
          timeout: float | None) -> tuple[bytes, bytes, bool, float | None, str, str | None]:
    """Collect ``proc``'s output until its pipes close and it exits, its timeout, or shortly after it exits.

    Returns ``(stdout, stderr, timed_out, exit time or None, held_open, dropped)``. A program that
    exits while something it started still holds its stdout/stderr (``sleep 60 &``) is not waited
    for beyond :data:`_HELD_OPEN_S`: its group is killed, and ``held_open`` is ``"killed"``, or
    ``"escaped"`` when the holder is outside the group (``setsid``) and still runs; its own exit counts
    for the timeout, so it is not reported as timed out. ``held_open`` is ``""`` otherwise. Output past
    :data:`~starchart.measure.capture.OUTPUT_LIMIT` per stream keeps its beginning and end
    (:mod:`~starchart.measure.capture`); ``dropped`` then says how much was left out.
    """
    deadline = None if timeout is None else start + timeout
    reader = PipeReader(proc)
    exited = None
    try:
        while True:
            now = time.perf_counter()
            if exited is None and proc.poll() is not None:
                if reader.closed:
                    return (*_captured(reader), False, None, "", _dropped_note(reader))
                exited = now
            if exited is not None:
                if reader.closed:
                    return (*_captured(reader), False, exited, "", _dropped_note(reader))
                wait_s = exited + _HELD_OPEN_S - now
                if wait_s <= 0:  # something it started holds its output: kill the group, keep what it said
                    _kill_group(proc)
                    closed = reader.drain(_DRAIN_S)
                    return (*_captured(reader), False, exited, "killed" if closed else "escaped",
                            _dropped_note(reader))
            elif deadline is not None and now >= deadline:
                _kill_group(proc)
                reader.drain(_DRAIN_S)
                proc.wait()
                return (*_captured(reader), True, None, "", _dropped_note(reader))
            else:
                wait_s = _POLL_S if deadline is None else deadline - now
            reader.read(min(wait_s, _POLL_S))
    finally:
        reader.close()


def _captured(reader: PipeReader) -> tuple[bytes, bytes]:
    return reader.stdout.data(), reader.stderr.data()


def _dropped_note(reader: PipeReader) -> str | None:
    """What was left out of an output too long to keep whole, or ``None``."""
    dropped = {"stdout": reader.stdout.dropped, "stderr": reader.stderr.dropped}
    parts = [f"{name}: {count:,} bytes dropped from the middle" for name, count in dropped.items() if count]
    if not parts:
        return None
    return (f"{'; '.join(parts)} (more than {OUTPUT_LIMIT // 2**20} MiB; its first and last lines are kept)")


def _kill_leftovers(pgid: int) -> bool:
    """Kill what is left of the process group ``pgid`` after its leader exited; whether anything ran.

    The group's id cannot be given to a new process while any member of the group exists, so
    this cannot hit a stranger. Exited members that nobody reaped yet (zombies) do not count.
    """
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False  # the usual case: the group is gone
    alive = _has_live_member(pgid)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return False
    return alive


def _has_live_member(pgid: int) -> bool:
    """Whether group ``pgid`` has a member that is not a zombie (read from /proc; ``True`` without it)."""
    table = process_table()
    if table is None:
        return True
    return any(group == pgid and state not in (b"Z", b"X") for _, state, _, group in table)


def process_table() -> list[tuple[int, bytes, int, int]] | None:
    """``(pid, state, parent pid, process group)`` of every process, from /proc; ``None`` without it.

    >>> table = process_table()
    >>> table is None or any(pid == os.getpid() and parent == os.getppid() for pid, _, parent, _ in table)
    True
    """
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        return None
    table = []
    for pid in entries:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # it exited meanwhile
        fields = stat[stat.rfind(b")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, ...
        if len(fields) > 2:
            table.append((int(pid), fields[0], int(fields[1]), int(fields[2])))
    return table


def descendants(pid: int) -> set[int]:
    """The live processes descended from ``pid`` (children, theirs...); empty without /proc.

    >>> child = subprocess.Popen(["sleep", "10"])
    >>> process_table() is None or child.pid in descendants(os.getpid())
    True
    >>> child.kill(); child.wait()
    -9
    """
    children: dict[int, list[int]] = {}
    for child, state, parent, _ in process_table() or []:
        if state not in (b"Z", b"X"):
            children.setdefault(parent, []).append(child)
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _command_line(argv: Sequence[str] | str, shell: bool) -> list[str]:
    if shell:
        if not isinstance(argv, str):
            raise InputError(f"with shell=True the command must be one string, got {argv!r}",
                             hint="join it into one shell command line, e.g. 'make && ./bench'")
        return ["/bin/sh", "-c", argv]
    if isinstance(argv, str):
        raise InputError(f"the command must be a list of arguments, got the string {argv!r}",
                         hint="split it, e.g. ['./bench', '--n', '64'], or pass shell=True to run it through /bin/sh")
    argv = [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in argv]
    if not argv or not argv[0]:
        raise InputError("the command is empty", hint="give the program to run, e.g. ['./bench']")
    return argv


def _missing_program_hint(program: str, env_path: str | None = None) -> str:
    if os.sep in program:
        return "check the path (relative paths are taken from the working directory) or build the program first"
    if env_path is not None:  # the program is looked up in the PATH the program gets, not in ours
        return (f"it is looked up in the PATH set by env= ({env_path!r}): add its folder there, "
                "or give its full path")
    return f"install {program} or add its directory to PATH, or give its full path"


def kill_running() -> int:
    """Kill (with their process groups) every program :func:`run_process` is waiting for, in any thread.

    A Ctrl-C reaches only the main thread; worker threads would otherwise wait for their
    programs to finish (forever, without a timeout). Returns how many were killed.

    >>> import threading
    >>> done = []
    >>> worker = threading.Thread(target=lambda: done.append(run_process(["sleep", "30"]).failure_reason()))
    >>> worker.start(); time.sleep(0.5)
    >>> kill_running(), worker.join(5), done
    (1, None, ['killed by SIGKILL'])
    """
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for proc in running:
        _kill_group(proc)
    return len(running)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()  # the group is gone already; make sure the child itself is


def _decode(data: bytes | None) -> str:
    return data.decode("utf-8", errors="replace") if data else ""


# ----------------------------------------------------------------------- templates
def template_fields(template: Sequence[str] | str, where: str = "template") -> set[str]:
    """The parameter names a ``{param}`` template uses (``{{`` and ``}}`` are literal braces).

    Format specs and attribute/index access are allowed (``{x:04d}``, ``{x[0]}``);
    only the base name counts.

    Raises
    ------
    InputError
        For malformed braces or positional fields (``{}``, ``{0}``).

    Examples
    --------
    >>> sorted(template_fields(["./bench", "--block={block_x}x{block_y}", "--n={n:05d}", "{{literal}}"]))
    ['block_x', 'block_y', 'n']
    """
    elements = [template] if isinstance(template, str) else list(template)
    names: set[str] = set()
    for element in elements:
        _collect_fields(str(element), names, where)
    return names


def _collect_fields(text: str, names: set[str], where: str) -> None:
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise InputError(f"bad template {text!r}: {exc}", where=where,
                         hint="write {param} for a parameter and {{ or }} for a literal brace") from exc
    for _literal, field_name, spec, _conversion in parsed:
        if field_name is None:
            continue
        base = re.split(r"[.\[]", field_name, maxsplit=1)[0]
        if not base or base.isdigit():
            raise InputError(f"template {text!r} has a positional field {{{field_name}}}", where=where,
                             hint="name a parameter, e.g. {block_size}; write {{ or }} for a literal brace")
        names.add(base)
        if spec:
            _collect_fields(spec, names, where)  # nested fields, e.g. {x:{width}}


def _template_error(exc: Exception, text: str, config: Mapping[str, Any], where: str) -> InputError:
    """Why ``text`` could not be filled from ``config``: a field that names no parameter, or a malformed field."""
    if isinstance(exc, KeyError):
        name = exc.args[0] if exc.args else "?"
        return InputError(f"template {text!r} names {{{name}}}, which is not a parameter", where=where,
                          hint=f"known parameters: {', '.join(map(str, config)) or '(none)'}; "
                               "write {{ or }} for a literal brace")
    return InputError(f"cannot fill template {text!r}: {exc}", where=where,
                      hint="write {param} for a parameter and {{ or }} for a literal brace")


def render_text(text: str, config: Mapping[str, Any], where: str = "template") -> str:
    """Fill the ``{param}`` fields of one string from ``config`` (``str.format_map`` semantics).

    Examples
    --------
    >>> render_text("-DN={n}", {"n": 64})
    '-DN=64'
    """
    try:
        return str(text).format_map(config)
    except (KeyError, IndexError, ValueError, AttributeError, TypeError) as exc:
        raise _template_error(exc, text, config, where) from exc


# Where a {field} stands in a /bin/sh command line, which decides how its value is quoted:
# "word" (unquoted, also inside $(...)), "single" ('...{x}...') or "double" ("...{x}...").
_SHELL_QUOTING = {
    "word": shlex.quote,
    # inside '...' only a quote ends the string: close it, add an escaped quote, reopen
    "single": lambda text: text.replace("'", "'\\''"),
    # inside "..." these four keep their meaning unless escaped
    "double": lambda text: re.sub(r'([\\"$`])', r"\\\1", text),
    # bash evaluates arithmetic operands as expressions whatever their quotes ('a[$(cmd)]' runs cmd):
    # only a plain token is let in, and it needs no quoting
    "arithmetic": lambda text: text,
}
_PLAIN_TOKEN = re.compile(r"[A-Za-z0-9_.+-]*")
_SHELL_RAW_HINT = ("write it as a plain word (./bench {x}), or inside '...' or \"...\"; if you trust the space as "
                   "shell code, set raw_shell_values: true (values are then not quoted)")


def shell_field_contexts(text: str, where: str = "template") -> list[str]:
    r"""How each ``{param}`` field of a ``/bin/sh`` command line is quoted: ``"word"``, ``"single"``,
    ``"double"`` or ``"arithmetic"``.

    The command line is scanned as the shell reads it (quotes, backslashes, ``$(...)``). A
    field in arithmetic (``$((...))``, ``((...))``, ``[[ ... ]]``, ``let``) is ``"arithmetic"``:
    bash evaluates its value as an expression, quoted or not, so only a plain token (letters,
    digits, ``_ . + -``) is let in there. A field where no quoting keeps its value one literal
    word is refused: inside backquotes, ``${...}`` or ``$'...'``, after a backslash, in a
    comment or a here-document.

    Raises
    ------
    InputError
        Naming the field and where it stands.

    Examples
    --------
    >>> shell_field_contexts('./bench --n={n} \'x={x}\' "$(echo {y})" "{z}" $(( {w} * 2 ))')
    ['word', 'single', 'word', 'double', 'arithmetic']
    >>> shell_field_contexts("echo `echo {x}`")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: template: {x} stands inside `...`, where its value cannot be quoted safely ...
    """
    try:
        chunks = list(string.Formatter().parse(str(text)))
    except ValueError as exc:
        raise InputError(f"bad template {text!r}: {exc}", where=where,
                         hint="write {param} for a parameter and {{ or }} for a literal brace") from exc
    # One frame per nesting level: [kind, open parentheses]; "sub" is $(...), read like the top level.
    stack: list[list[Any]] = [["top", 0]]
    escaped = comment = heredoc = case = test = let = False
    previous = " "
    contexts = []
    for literal, field, _spec, _conversion in chunks:
        i = 0
        while i < len(literal):
            char, kind = literal[i], stack[-1][0]
            ahead = literal[i:]
            word_start = previous.isspace() or previous in ";&|()<>"
            skip = 0  # further characters an opening takes
            if escaped:
                escaped = False
            elif comment:
                comment = char != "\n"
            elif kind == "single":
                if char == "'":
                    stack.pop()
            elif char == "\\":
                escaped = True
            elif kind in ("backquote", "brace", "ansi"):
                if char == {"backquote": "`", "brace": "}", "ansi": "'"}[kind]:
                    stack.pop()
            elif kind == "arithmetic":
                if char == "(":
                    stack[-1][1] += 1
                elif char == ")" and stack[-1][1]:
                    stack[-1][1] -= 1
                elif char == ")":
                    stack.pop()
                    skip = 1 if ahead.startswith("))") else 0
            elif kind == "double":
                if char == '"':
                    stack.pop()
                elif ahead.startswith("$(("):
                    stack.append(["arithmetic", 0])
                    skip = 2
                elif ahead.startswith(("$(", "${")) or char == "`":
                    stack.append([{"$(": "sub", "${": "brace"}.get(ahead[:2], "backquote"), 0])
                    skip = 1 if char == "$" else 0
            else:  # the top level or inside $(...)
                if ahead.startswith(("$((", "((")):
                    stack.append(["arithmetic", 0])
                    skip = 2 if char == "$" else 1
                elif ahead.startswith(("$(", "${", "$'")) or char in "`'\"":
                    opened = {"$(": "sub", "${": "brace", "$'": "ansi"}.get(ahead[:2])
                    stack.append([opened or {"`": "backquote", "'": "single", '"': "double"}[char], 0])
                    skip = 1 if opened else 0
                elif char == "(":
                    stack[-1][1] += 1
                elif char == ")" and kind == "sub":
                    if stack[-1][1]:
                        stack[-1][1] -= 1
                    else:
                        stack.pop()
                        let = False
                elif char == "#" and word_start:
                    comment = True
                elif ahead.startswith("<<"):
                    heredoc = True
                elif word_start and re.match(r"(?:\[\[|let|case)(?!\S)", ahead):
                    test, let = test or ahead.startswith("[["), let or ahead.startswith("let")
                    case = case or (ahead.startswith("case") and kind == "sub")  # its ')' would end $(...)
                elif ahead.startswith("]]"):
                    test = False
                elif char in ";&|\n":
                    let = False
            previous = literal[i + skip]
            i += 1 + skip
        if field is None:
            continue
        kinds = [frame[0] for frame in stack]
        trouble = ("inside `...`" if "backquote" in kinds else "inside ${...}" if "brace" in kinds else
                   "inside $'...'" if "ansi" in kinds else "right after a backslash" if escaped else
                   "in a comment" if comment else "after a here-document (<<)" if heredoc else
                   "after a case inside $(...)" if case else None)
        if trouble:
            raise InputError(f"{{{field}}} stands {trouble}, where its value cannot be quoted safely",
                             where=where, hint=_SHELL_RAW_HINT)
        if "arithmetic" in kinds or test or let:
            contexts.append("arithmetic")
        else:
            contexts.append({"single": "single", "double": "double"}.get(kinds[-1], "word"))
        previous = "x"  # the value: a '#' right after it does not start a comment
    return contexts


def render_shell(text: str, config: Mapping[str, Any], where: str = "template") -> str:
    r"""Fill the ``{param}`` fields of a ``/bin/sh`` command line, each value quoted so it stays literal text.

    A field standing as a word becomes one argument whatever its value (:func:`shlex.quote`);
    inside ``'...'`` or ``"..."`` the value is escaped for those quotes, so a template written
    for unquoted substitution (``echo '{x}'``) keeps working. Format specs apply before
    quoting (``{x:04d}``).

    Raises
    ------
    InputError
        For an unknown parameter, a malformed template, or a field that cannot be quoted
        (see :func:`shell_field_contexts`).

    Examples
    --------
    >>> print(render_shell('echo {x} \'{x}\' "{x}"', {"x": "1; touch /tmp/x"}))
    echo '1; touch /tmp/x' '1; touch /tmp/x' "1; touch /tmp/x"
    >>> value = 'it\'s $HOME; `id` "x" \\'
    >>> line = render_shell('printf "%s|" {x} \'{x}\' "{x}"', {"x": value})
    >>> run_process(line, shell=True).stdout == f"{value}|" * 3   # each arrives as it was
    True
    """
    contexts = iter(shell_field_contexts(text, where))
    formatter = string.Formatter()
    out = []
    try:
        for literal, field, spec, conversion in formatter.parse(str(text)):
            out.append(literal)
            if field is None:
                continue
            value, _ = formatter.get_field(field, (), config)
            value = formatter.convert_field(value, conversion)
            spec = str(spec).format_map(config) if spec else ""  # nested fields shape the value, never the command
            context, formatted = next(contexts), formatter.format_field(value, spec)
            if context == "arithmetic" and not _PLAIN_TOKEN.fullmatch(formatted):
                raise InputError(f"{{{field}}} stands in shell arithmetic, where bash evaluates its value "
                                 f"{shorten(formatted, 80)!r} as an expression even when quoted", where=where,
                                 hint="give it numbers or plain names there (letters, digits, _ . + -), "
                                      "or move it out of $((...)), ((...)), [[ ]] and let")
            out.append(_SHELL_QUOTING[context](formatted))
    except (KeyError, IndexError, ValueError, AttributeError, TypeError) as exc:
        raise _template_error(exc, text, config, where) from exc
    return "".join(out)


def render_argv(template: Sequence[str], config: Mapping[str, Any], where: str = "argv") -> list[str]:
    """Fill the ``{param}`` fields of every element of ``template`` from ``config``.

    Each element is formatted on its own (``str.format_map`` semantics: ``{x:.2f}``
    works, ``{{``/``}}`` are literal braces); an element never splits into several.

    Raises
    ------
    InputError
        If a field names a key missing from ``config`` or the template is malformed.

    Examples
    --------
    >>> render_argv(["./bench", "--block={bx}x{by}", "{scale:.1f}"], {"bx": 32, "by": 4, "scale": 2})
    ['./bench', '--block=32x4', '2.0']
    """
    return [render_text(element, config, where) for element in template]


def space_names(space: Space) -> tuple[str, ...]:
    """Parameter names of a :class:`~starchart.space.Space` (or of a mapping/sequence of names)."""
    names = getattr(space, "names", None)
    if names is None:
        names = list(space) if isinstance(space, (Mapping, Sequence)) and not isinstance(space, str) else ()
    return tuple(str(n) for n in names)


def check_fields(fields: set[str], space: Space, where: str) -> None:
    """Raise :class:`InputError` if a template names a parameter ``space`` lacks.

    Examples
    --------
    >>> check_fields({"bx"}, ["bx", "by"], "argv")
    >>> check_fields({"bz", "bx"}, ["bx", "by"], "argv")
    Traceback (most recent call last):
        ...
    starchart.errors.InputError: argv: unknown parameter {bz} in the template (hint: known parameters: bx, by (write {{ and }} for literal braces))
    """
    known = space_names(space)
    unknown = sorted(fields - set(known))
    if unknown:
        listed = ", ".join("{" + name + "}" for name in unknown)
        plural = "s" if len(unknown) > 1 else ""
        raise InputError(f"unknown parameter{plural} {listed} in the template", where=where,
                         hint=f"known parameters: {', '.join(known) or '(none)'} (write {{{{ and }}}} for literal braces)")


def find_program(program: str, cwd: str | Path | None = None, path: str | None = None) -> str | None:
    """The path of ``program`` as it would be run (a search of ``path``, default ``$PATH``, or a path
    taken from ``cwd``), or ``None``.

    >>> find_program("sh") is not None, find_program("no-such-program-xyz"), find_program("sh", path="/nowhere")
    (True, None, None)
    """
    if os.sep in program and cwd is not None and not os.path.isabs(program):
        program = os.path.join(cwd, program)
    return shutil.which(program, path=path)


# ------------------------------------------------------------------------- parsing
#: Seconds a user's pattern may spend on one output. ``re`` cannot be stopped: a pattern that backtracks without
#: end (a repeat inside a repeat, ``^(a|aa)+$``) hung a run inside starchart, beyond the program's time limit.
#: The ``regex`` engine stops it.
PATTERN_SECONDS = 10.0


#: ``re``'s flags and the ``regex`` flags that mean the same (their numbers differ: ``re.ASCII`` is ``regex.V1``).
_FLAGS = ((re.IGNORECASE, regex.IGNORECASE), (re.MULTILINE, regex.MULTILINE), (re.DOTALL, regex.DOTALL),
          (re.VERBOSE, regex.VERBOSE), (re.ASCII, regex.ASCII))


def compile_pattern(pattern: str | re.Pattern[str] | regex.Pattern[str]) -> regex.Pattern[str]:
    """``pattern`` compiled by the ``regex`` engine in ``re``'s syntax (``VERSION0``), its flags kept.

    >>> compile_pattern(re.compile(r"t=(\\d+)", re.I)).findall("T=3")
    ['3']
    >>> compile_pattern(re.compile(r"t=(\\d+)", re.ASCII)).findall("t=\u0661 t=3")  # ASCII digits only
    ['3']
    """
    if isinstance(pattern, regex.Pattern):
        return pattern
    if isinstance(pattern, re.Pattern):
        flags = sum(new for old, new in _FLAGS if pattern.flags & old)
        return regex.compile(pattern.pattern, flags | regex.VERSION0)
    return regex.compile(pattern, regex.VERSION0)


def find_matches(pattern: str | re.Pattern[str] | regex.Pattern[str], text: str) -> list[Any]:
    """Every match of ``pattern`` in ``text``, or :class:`OutputParseError` if matching takes longer than
    :data:`PATTERN_SECONDS` (a pattern that backtracks without end), naming the pattern and what to change.

    >>> [m.group(1) for m in find_matches(r"t=(\\d+)", "t=1 t=22")]
    ['1', '22']
    """
    compiled = compile_pattern(pattern)
    try:
        return list(compiled.finditer(text, timeout=PATTERN_SECONDS))
    except TimeoutError:
        raise OutputParseError(
            f"pattern {_show(compiled.pattern)} was still matching after {PATTERN_SECONDS:g} s on {len(text):,} "
            "characters of output: it backtracks without end. Write it without a repeat inside a repeat "
            "(not (a+)+ or (a|aa)+), or anchor it to the number, e.g. r'time=([0-9.eE+-]+)'") from None


def parse_values(text: str, *, pattern: str | re.Pattern[str] | regex.Pattern[str] | None = None,
                 json_lines: bool = False,
                 metric: str = "time") -> dict[str, list[float]]:
    """Read metric values from a program's output.

    Parameters
    ----------
    text:
        The output (stdout).
    pattern:
        A regular expression; each match's first group (the whole match if it has
        no group) is one value of ``metric``. ``nan`` and ``inf`` are numbers.
    json_lines:
        Read every line that is a JSON object: each numeric entry is one value of
        the metric named by its key, a list of numbers is several (repeats); other
        entries are ignored. ``metric`` must be among the keys.
    metric:
        Name of the metric the pattern's values belong to (the objective).

    Raises
    ------
    OutputParseError
        If nothing matches, a match is not a number or, with ``json_lines``, no
        line gives a value of ``metric``.

    Examples
    --------
    >>> parse_values("run 1: time=2.5 ms\\nrun 2: time=2.0 ms\\n", pattern=r"time=([0-9.]+)")
    {'time': [2.5, 2.0]}
    >>> parse_values('{"time": [1, 2], "gflops": 90.5, "name": "gemm"}\\nwarming up\\n{"time": 3}', json_lines=True)
    {'time': [1.0, 2.0, 3.0], 'gflops': [90.5]}
    >>> try:
    ...     parse_values("oops", pattern=r"time=(\\S+)")
    ... except OutputParseError as exc:
    ...     print(exc)
    pattern r'time=(\\S+)' matched nothing in the output 'oops'
    """
    if pattern is None and not json_lines:
        raise ValueError("parse_values needs a pattern or json_lines=True")
    values: dict[str, list[float]] = {}
    if pattern is not None:
        compiled = compile_pattern(pattern)
        found = []
        for match in find_matches(compiled, text):
            raw = match.group(1) if compiled.groups else match.group(0)
            found.append(_to_float(raw, f"pattern {_show(compiled.pattern)} matched {match.group(0)!r}, but"))
        if not found:
            raise OutputParseError(f"pattern {_show(compiled.pattern)} matched nothing in the output {_excerpt(text)}")
        values[metric] = found
    if json_lines:
        for key, numbers_ in _json_values(text).items():
            values.setdefault(key, []).extend(numbers_)
        if metric not in values:
            raise OutputParseError(f"no JSON line gives a number for {metric!r} in the output {_excerpt(text)}")
    return values


def _show(pattern: str) -> str:
    """A pattern as written in Python source (a raw string), so backslashes are not doubled."""
    return f"r'{pattern}'"


def _to_float(raw: str | None, context: str) -> float:
    try:
        return float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise OutputParseError(f"{context} {raw!r} is not a number") from None


def _json_values(text: str) -> dict[str, list[float]]:
    values: dict[str, list[float]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue  # not every line starting with a brace is JSON; only objects count
        if not isinstance(obj, dict):
            continue
        for key, value in obj.items():
            if _is_number(value):
                values.setdefault(str(key), []).append(float(value))
            elif isinstance(value, list) and value and all(_is_number(v) for v in value):
                values.setdefault(str(key), []).extend(float(v) for v in value)
    return values


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _excerpt(text: str, n_chars: int = 200) -> str:
    text = text.strip()
    if not text:
        return "(empty)"
    return repr(text if len(text) <= n_chars else "..." + text[-n_chars:])


# ------------------------------------------------------------------------ repeats
#: The most repeats (and warm-up runs) of one configuration: a benchmark repeats tens of times; 10**9 relaunched
#: the program until the run was killed.
MAX_REPEATS = 100_000


def check_repeats(repeats: int, warmup: int, where: str) -> tuple[int, int]:
    """Validate ``1 <= repeats <= MAX_REPEATS`` and ``0 <= warmup <= MAX_REPEATS`` (integers).

    >>> check_repeats(5, 1, "CEvaluator")
    (5, 1)
    """
    hint = f"e.g. {arg('repeats', '5')}, {arg('warmup', '1')}"
    return (check("repeats", repeats, Interval(int, 1, MAX_REPEATS), where=f"{where}, repeats", hint=hint),
            check("warmup", warmup, Interval(int, 0, MAX_REPEATS), where=f"{where}, warmup", hint=hint))


def run_repeated(argv: Sequence[str] | str, config: Mapping[str, Any], *,
                 parse: Callable[[str], dict[str, list[float]]] | None, metric: str = "time", repeats: int = 1,
                 warmup: int = 0, timeout: float | None = None, env: Mapping[str, str] | None = None,
                 cwd: str | Path | None = None, shell: bool = False) -> tuple[Measurement, list[ProcessResult]]:
    """Launch a program until ``warmup + repeats`` values of ``metric`` are had; measure ``config``.

    The program gets ``STARCHART_REPEATS=<warmup + repeats>`` in its environment,
    so it may loop and print every value in one launch; while it has printed fewer,
    it is launched again (at most ``warmup + repeats`` launches). The first
    ``warmup`` values of each metric are dropped and at most ``repeats`` kept (a
    metric printed fewer than ``warmup + 1`` times, e.g. once per launch, is kept whole).

    Parameters
    ----------
    parse:
        Turns one launch's stdout into values (e.g. :func:`parse_values`); ``None``
        measures the wall time of each launch, in milliseconds, as ``metric``.
    timeout:
        Seconds per launch.

    Returns
    -------
    (Measurement, list of ProcessResult)
        The measurement (``run_s`` is the summed wall time of the launches; a
        failure has a status and reason, the stderr tail in ``extra["stderr_tail"]``)
        and every launch's result.

    Examples
    --------
    >>> script = 'i=0; while [ $i -lt $STARCHART_REPEATS ]; do echo "t=$i"; i=$((i+1)); done'
    >>> m, launches = run_repeated(script, {}, shell=True, repeats=3, warmup=1,
    ...                            parse=lambda out: parse_values(out, pattern=r"t=(\\d+)"))
    >>> m.values, len(launches)
    ({'time': [1.0, 2.0, 3.0]}, 1)
    >>> m, _ = run_repeated(["sh", "-c", "exit 2"], {"x": 1}, parse=None)
    >>> m.status, m.reason
    ('runtime', 'exit status 2')
    """
    repeats, warmup = check_repeats(repeats, warmup, "run_repeated")
    needed = warmup + repeats
    child_env = {**(env or {}), REPEATS_ENV: str(needed)}
    values: dict[str, list[float]] = {}
    results: list[ProcessResult] = []
    run_s = 0.0
    while len(results) < needed and len(values.get(metric, ())) < needed:
        result = run_process(argv, timeout=timeout, env=child_env, cwd=cwd, shell=shell)
        results.append(result)
        run_s += result.wall_s
        if not result.ok:
            status = "timeout" if result.timed_out else "runtime"
            return Measurement.failure(config, status, result.failure_reason(), run_s=run_s,
                                       extra=_failure_extra(result, len(results))), results
        if parse is None:
            launch_values = {metric: [result.wall_s * 1e3]}
        else:
            try:
                launch_values = parse(result.stdout)
            except OutputParseError as exc:
                extra = _failure_extra(result, len(results))
                extra["stdout_tail"] = result.stdout_tail()
                reason = f"unparsable output: {exc}"
                if result.stderr.strip():
                    try:
                        parse(result.stderr)
                        reason += " (the value is on stderr, which is not read: print it on stdout)"
                    except OutputParseError:
                        pass
                return Measurement.failure(config, "runtime", reason, run_s=run_s, extra=extra), results
        for key, new in launch_values.items():
            values.setdefault(key, []).extend(new)
        if not launch_values.get(metric):
            break  # a parser that gives no objective value would loop for nothing
    # the measurement stands, but the user should know that their program leaves processes behind, or printed
    # more than was kept
    extra_note = _notes(results)
    kept = {key: (v[warmup:needed] if len(v) > warmup else v) for key, v in values.items()}
    if not kept.get(metric):
        return Measurement.failure(config, "runtime", f"unparsable output: no value of {metric!r}", run_s=run_s,
                                   extra={"launches": len(results), **extra_note}), results
    if any(math.isnan(v) for v in kept[metric]):  # "ok" without a value would pass for a measurement
        return Measurement.failure(config, "runtime", f"the program printed NaN for {metric!r}: "
                                   f"{', '.join(map(repr, kept[metric]))}", run_s=run_s,
                                   extra={"launches": len(results), **extra_note}), results
    impossible = negative_quantity(kept)
    if impossible:  # `time_ms: -1` is a program's way of saying it failed: it was reported as the best time
        return Measurement.failure(config, "runtime", impossible, run_s=run_s,
                                   extra={"launches": len(results), **extra_note}), results
    return Measurement(dict(config), values=kept, run_s=run_s,
                       extra={"launches": len(results), **extra_note}), results


def negative_quantity(values: Mapping[str, Sequence[float]]) -> str | None:
    """Why ``values`` cannot be a measurement, if a duration, energy or power among them is negative
    (:func:`~starchart._util.units.is_never_negative`); else ``None``.

    >>> negative_quantity({"time": [2.0, -1.0]})
    'the program printed time = -1 ms: a duration cannot be negative (does it report an error this way?)'
    >>> negative_quantity({"score": [-3.0], "time": [1.0]}) is None
    True
    """
    for metric, numbers_ in values.items():
        negative = [v for v in numbers_ if v < 0]
        if negative and is_never_negative(metric):
            unit = unit_of(metric) or ""
            kind = "a power" if unit.lower().endswith("w") else "an energy" if unit.lower().endswith("j") else "a duration"
            return (f"the program printed {metric} = {negative[0]:g} {unit}: {kind} cannot be negative "
                    "(does it report an error this way?)")
    return None


def _notes(results: Sequence[ProcessResult]) -> dict[str, str]:
    """The first note of each kind among the launches (left-running processes, output too long to keep)."""
    notes: dict[str, str] = {}
    for result in results:
        for key in ("left_running", "output_dropped"):
            if getattr(result, key) and key not in notes:
                notes[key] = getattr(result, key)
    return notes


def _failure_extra(result: ProcessResult, launches: int) -> dict[str, Any]:
    extra: dict[str, Any] = {"launches": launches, "stderr_tail": result.stderr_tail(), **_notes([result])}
    if result.returncode is not None and not result.timed_out:
        extra["returncode"] = result.returncode
    if result.signal:
        extra["signal"] = result.signal
    return extra

