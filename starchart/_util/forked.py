"""Independent pieces of one command's work on several cores, in forked child processes.

A report draws its figures and replays its accuracy study while the main process fits the tree: pure Python
work that threads would serialise on the GIL. A forked child starts at once, with everything the parent has
already imported and loaded, so the gain is not eaten by a second start-up as with ``spawn``.

A child hands back a JSON value (text through a pipe: nothing the parent reads can run code), and the
warnings it raised, which the parent raises again under its own filters (a caller recording warnings sees
them as if nothing had forked). Whatever goes wrong in a child (an exception, a kill, a value JSON cannot carry) makes the parent run the job itself,
where its error, if any, is raised as usual. Jobs run in the parent when forking is not safe: off Linux,
with one usable core, or when other threads run (a fork copies their locks, maybe held, but not them).

Examples
--------
>>> jobs = [lambda: sum(range(10)), lambda: "two", lambda: [1, 2.5]]
>>> in_processes(jobs)
[45, 'two', [1, 2.5]]
>>> with Job(lambda: {"answer": 42}) as job:
...     job.result()
{'answer': 42}
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")

#: Whether jobs may run in forked children at all (tests set it to compare both ways).
ENABLED = True


def can_fork() -> bool:
    """Whether a job would run in a child now: Linux, two usable cores or more, and no other thread."""
    return (ENABLED and sys.platform == "linux" and len(os.sched_getaffinity(0)) > 1
            and threading.active_count() == 1)


class Job(Generic[T]):
    """``func()`` started now in a forked child when :func:`can_fork` (else when :meth:`result` is asked).

    ``func`` returns a JSON value (tuples come back as lists). Use it as a context manager, so that a child
    whose result is never asked for (the parent failed on the way) is stopped and reaped.
    """

    def __init__(self, func: Callable[[], T]) -> None:
        self._func = func
        self._pid: int | None = None
        self._pipe = -1
        if not can_fork():
            return
        for stream in (sys.stdout, sys.stderr):  # else what they buffered would be written twice
            stream.flush()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read)
            _serve(func, write)
        os.close(write)
        self._pid, self._pipe = pid, read

    @property
    def forked(self) -> bool:
        """Whether the job runs (or ran) in a child whose result is not collected yet."""
        return self._pid is not None

    def result(self) -> T:
        """The job's value: the child's, or computed here (also when the child failed)."""
        if self._pid is None:
            return self._func()
        with os.fdopen(self._pipe, "rb") as pipe:
            data = pipe.read()
        os.waitpid(self._pid, 0)
        self._pid = None
        try:
            done, value, raised = json.loads(data)
        except ValueError:  # killed, or stopped before writing everything
            return self._func()
        if not done:
            return self._func()
        for module, name, message in raised:
            warnings.warn(message, _category(module, name), stacklevel=2)
        return cast(T, value)

    def cancel(self) -> None:
        """Stop the child, if it still runs, and reap it."""
        if self._pid is None:
            return
        os.close(self._pipe)
        try:
            os.kill(self._pid, signal.SIGKILL)
        except ProcessLookupError:  # it had finished
            pass
        os.waitpid(self._pid, 0)
        self._pid = None

    def __enter__(self) -> Job[T]:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.cancel()


def _serve(func: Callable[[], Any], pipe: int) -> None:
    """In the child: run ``func``, write ``[done, value]`` as JSON to ``pipe`` and exit without cleanup
    (the parent's ``atexit`` handlers and open files are the parent's)."""
    code = 0
    try:
        try:
            with warnings.catch_warnings(record=True) as raised:
                warnings.simplefilter("always")  # the parent's filters decide
                value = func()
            said = [[w.category.__module__, w.category.__qualname__, str(w.message)] for w in raised]
            payload = json.dumps([True, value, said])
        except BaseException:  # noqa: BLE001 - any failure means: the parent runs it
            payload, code = json.dumps([False, None, []]), 1
        with os.fdopen(pipe, "wb") as out:
            out.write(payload.encode())
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    finally:
        os._exit(code)


def _category(module: str, name: str) -> type[Warning]:
    """The warning class named, as the child raised it (``UserWarning`` if it cannot be found here)."""
    found: Any = sys.modules.get(module)
    for part in name.split("."):
        found = getattr(found, part, None)
    return found if isinstance(found, type) and issubclass(found, Warning) else UserWarning


def in_processes(jobs: Sequence[Callable[[], T]]) -> list[T]:
    """Each job's value, in order: the first runs here while the others run in forked children (see the
    module docstring), all in this process when forking is not safe."""
    if not jobs:
        return []
    children = [Job(job) for job in jobs[1:]]
    try:
        first = jobs[0]()
        return [first, *(child.result() for child in children)]
    finally:
        for child in children:
            child.cancel()
