"""Helpers of the tests that kill a measuring Python process (the *driver*) and check what it started dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.child_env import child_env

DEADLINE_S = 30.0


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie left to an init that does not reap counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return not Path("/proc/self/stat").exists()  # no /proc: trust kill(0)
    return stat[stat.rfind(b")") + 2:].split()[0] not in (b"Z", b"X")


def _wait_until(predicate, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {DEADLINE_S:g} s for: {what}")
        time.sleep(0.05)


def _read_pid(path: Path) -> int:
    _wait_until(lambda: path.is_file() and path.read_text().strip().isdigit(), f"{path.name} to be written")
    return int(path.read_text())


def _kill_quietly(*pids: int) -> None:
    """Clean up after a failing check: never leave a ``sleep 300`` behind on a shared machine."""
    for pid in pids:
        if pid <= 0:  # not read: kill(0) would hit this test's own process group
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _start_driver(tmp_path: Path, body: str) -> subprocess.Popen:
    """A Python process that measures with a starchart evaluator (``body``), to be killed by the test."""
    script = tmp_path / "driver.py"
    script.write_text(textwrap.dedent(body))
    return subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _kill_driver(driver: subprocess.Popen) -> None:
    assert driver.poll() is None, f"the driver ended early: {driver.communicate()[0].decode(errors='replace')}"
    driver.send_signal(signal.SIGKILL)
    driver.communicate()
