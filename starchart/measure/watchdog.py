"""Programs started for a measurement die with the process that started them: :func:`watch`.

:func:`~starchart.measure.process.run_process` starts every program (the user's
benchmark, a compiler) in a process group of its own, so that a timeout kills its
whole tree. The flip side: when the Python process running starchart (the
*driver*) is killed outright (``kill -9``, the out-of-memory killer, a batch
system ending the job), nothing kills those groups, and a benchmark keeps running,
and holding the GPU, with nobody waiting for it.

A *watchdog* process fixes that. It is started once per driver process, on the
first program run, in a session of its own (a signal to the driver's process
group, such as a terminal's Ctrl-C, does not reach it), with the read end of a
pipe as its standard input. The driver writes ``+<pgid>`` to the pipe when it
starts a group and ``-<pgid>`` when the group is done (``+p<pid>``/``-p<pid>``
for a single process, such as a local Ray instance's daemons). The write end belongs to
the driver *process*, so it closes when, and only when, the driver dies, however
it dies; the watchdog then reads end-of-file, kills every group still listed and
exits. It works on any POSIX system (Linux, macOS).

The watchdog is not a child of the driver: the program started for it forks it
and exits. A Ray worker kills its direct children as it exits (Ray's
``kill_child_processes_on_worker_exit``), which killed a watchdog that was one
before it could kill the benchmark's own children.

Why not ``prctl(PR_SET_PDEATHSIG)`` alone: it fires when the *thread* that forked
the child exits, not the process, and the watchdog would be started from
whichever thread runs the first program (a worker thread of ``run(workers=N)``
that ends with the run); it reaches only the direct child, not the processes a
shell script starts; and setting it needs a ``preexec_fn``, which makes every
launch use ``fork`` instead of the cheaper ``vfork`` and is unsafe with threads.
It is used only as the fallback when the watchdog cannot be started
(:func:`preexec_fallback`): there the thread caveat does not bite, because the
thread that starts a program waits for it to end (run_process always reaps its
child before returning, timeout, interrupt and error included).

A forked copy of the driver (``multiprocessing`` with the fork start method)
closes its inherited copy of the pipe, so it cannot keep the watchdog waiting,
and starts a watchdog of its own when it runs a program.

>>> watch(0), unwatch(0)   # pgid 0 is never a real group: accepted and ignored
(None, None)
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable

__all__ = ["ensure", "preexec_fallback", "unwatch", "unwatch_process", "watch", "watch_process"]

# The watchdog's program: fork the watchdog (its pid to stdout) and exit; the watchdog reads "+pgid"/"-pgid" and
# "+p<pid>"/"-p<pid>" lines (groups, single processes) until end-of-file, then kills what is listed.
# -I -S keep it small and independent of the user's site-packages and PYTHON* variables.
_WATCHDOG_CODE = r"""
import os, signal
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = os.fork()
if child:
    os.write(1, b"%d\n" % child)
    os._exit(0)
null = os.open(os.devnull, os.O_WRONLY)
os.dup2(null, 1)
groups, processes, pending = set(), set(), b""
while True:
    try:
        chunk = os.read(0, 65536)
    except OSError:
        break
    if not chunk:
        break
    *lines, pending = (pending + chunk).split(b"\n")
    for line in lines:
        kind = processes if line[1:2] == b"p" else groups
        try:
            number = int(line[2:] if kind is processes else line[1:])
        except ValueError:
            continue
        if line[:1] == b"+":
            kind.add(number)
        elif line[:1] == b"-":
            kind.discard(number)
for pgid in groups:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
for pid in processes:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
"""

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>

_lock = threading.Lock()
#: this process's pid once it started a watchdog, the pipe's write end, the watchdog's pid
_state: dict[str, object] = {"pid": None, "fd": None, "watchdog": None, "failed": False}


def _start() -> None:
    """Start the watchdog (caller holds ``_lock``); on failure remember it and leave the fallback to work."""
    if not sys.executable or not hasattr(os, "killpg"):
        _state["failed"] = True
        return
    read_fd, write_fd = os.pipe()  # both non-inheritable: no other child holds the write end
    watchdog = 0
    try:
        # the program forks the watchdog, says its pid and exits (reaped here): the watchdog is no child of
        # this process, which a framework may kill with its children as it exits (a Ray worker does)
        proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", _WATCHDOG_CODE], stdin=read_fd,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            said = proc.communicate(timeout=30)[0].strip()
        except subprocess.TimeoutExpired:  # a machine too loaded to start it: no watchdog, the fallback instead
            proc.kill()
            proc.communicate()
            said = b""
        watchdog = int(said) if said.isdigit() else 0
    except OSError:
        pass
    finally:
        os.close(read_fd)
    if not watchdog:
        os.close(write_fd)
        _state["failed"] = True
        return
    _state.update(pid=os.getpid(), fd=write_fd, watchdog=watchdog, failed=False)


def _ensure() -> bool:
    """Start the watchdog if this process has none (caller holds ``_lock``); whether one runs."""
    if _state["pid"] != os.getpid() and not _state["failed"]:
        _start()
    return _state["pid"] == os.getpid()


def ensure() -> bool:
    """Start this process's watchdog unless it runs (or could not be started); whether it runs."""
    with _lock:
        return _ensure()


def _send(line: bytes) -> None:
    """Write one line to the watchdog, starting it first if this process has none."""
    with _lock:
        if not _ensure():
            return
        try:
            os.write(_state["fd"], line)  # type: ignore[arg-type]
        except OSError:  # it was killed: start another on the next program
            _close()


def watch(pgid: int) -> None:
    """Have the watchdog kill process group ``pgid`` if this process dies before :func:`unwatch`."""
    if pgid > 0:
        _send(b"+%d\n" % pgid)


def unwatch(pgid: int) -> None:
    """Group ``pgid`` is done (its processes exited or were killed): forget it."""
    if pgid > 0 and _state["pid"] == os.getpid():
        _send(b"-%d\n" % pgid)


def watch_process(pid: int) -> None:
    """Have the watchdog kill process ``pid`` (alone, not its group) if this process dies before
    :func:`unwatch_process`: for helpers started in this process's own group, such as a local Ray
    instance's daemons."""
    if pid > 0:
        _send(b"+p%d\n" % pid)


def unwatch_process(pid: int) -> None:
    """Process ``pid`` is done or stopped otherwise: forget it."""
    if pid > 0 and _state["pid"] == os.getpid():
        _send(b"-p%d\n" % pid)


def _close() -> None:
    """Close the pipe (the watchdog then exits; init reaps it); caller holds ``_lock`` or is exiting."""
    fd = _state["fd"]
    _state.update(pid=None, fd=None, watchdog=None)
    if isinstance(fd, int):
        try:
            os.close(fd)
        except OSError:
            pass


def _at_exit() -> None:
    if _state["pid"] == os.getpid():
        _close()  # a normal exit: nothing is listed any more, and this reaps the watchdog


def _in_forked_child() -> None:
    """A forked copy of the driver must not hold the driver's pipe open; no lock: it may be held by a
    thread that does not exist in the child."""
    fd = _state["fd"]
    _state.update(pid=None, fd=None, watchdog=None, failed=False)
    if isinstance(fd, int):
        try:
            os.close(fd)
        except OSError:
            pass


atexit.register(_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_in_forked_child)


# ------------------------------------------------------------------------- fallback
def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    prctl.restype = ctypes.c_int
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return prctl


def preexec_fallback() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child die with this process, for when there is no watchdog.

    ``None`` when the watchdog runs (it covers the whole group, not only the child) or
    where ``prctl`` does not exist (not Linux): there nothing is done.
    """
    if ensure():
        return None
    prctl = _load_prctl()  # looked up here, in the parent: the child between fork and exec only calls it
    if prctl is None:
        return None
    parent = os.getpid()

    def die_with_parent() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os.kill(os.getpid(), signal.SIGKILL)

    return die_with_parent
