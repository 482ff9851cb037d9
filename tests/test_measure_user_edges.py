"""The measuring evaluators used the hard way: a driver killed with ``kill -9`` while its programs run,
programs that leave background jobs behind (holding their output open or not), odd output and exits.

Every check that waits for a process to go away polls with a generous deadline: no timing is asserted.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from starchart.measure import CommandEvaluator
from starchart.measure.process import run_process
from tests.driver_processes import (
    _alive,
    _kill_driver,
    _kill_quietly,
    _read_pid,
    _start_driver,
    _wait_until,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")

# A worker thread measures a short program first and ends, so the watchdog was started by a thread that
# no longer exists (what prctl(PR_SET_PDEATHSIG) alone gets wrong); a second thread then measures the
# long one. The script records its pid and its grandchild's, then waits for it.
_LONG_SCRIPT = "sleep 300 & echo $! > grandchild.pid; echo $$ > child.pid; wait"

_COMMAND_DRIVER = f"""
    import threading
    from starchart.measure import CommandEvaluator

    quick = threading.Thread(target=lambda: CommandEvaluator(["true"]).evaluate({{}}))
    quick.start(); quick.join()
    long = CommandEvaluator({_LONG_SCRIPT!r}, shell=True, timeout=600)
    worker = threading.Thread(target=lambda: long.evaluate({{}}))
    worker.start(); worker.join()
"""


def _killing_the_driver_kills(driver: subprocess.Popen, pid_file: Path, what: str) -> None:
    """SIGKILL ``driver`` once the program it started wrote its pid to ``pid_file``; wait for that program to die."""
    pid = 0
    try:
        pid = _read_pid(pid_file)
        _kill_driver(driver)
        _wait_until(lambda: not _alive(pid), what)
    finally:
        driver.kill()
        _kill_quietly(pid)


def test_killing_the_driver_kills_the_program_and_its_children(tmp_path):
    """Before: the shell script and its ``sleep`` ran on for 300 s after the driver was SIGKILLed."""
    driver = _start_driver(tmp_path, _COMMAND_DRIVER)
    child = grandchild = 0
    try:
        child, grandchild = _read_pid(tmp_path / "child.pid"), _read_pid(tmp_path / "grandchild.pid")
        assert _alive(child) and _alive(grandchild)
        _kill_driver(driver)
        _wait_until(lambda: not _alive(child) and not _alive(grandchild), "the program and its sleep to die")
    finally:
        driver.kill()
        _kill_quietly(child, grandchild)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_killing_the_driver_kills_a_c_benchmark(tmp_path):
    """The C evaluator's binaries run through the same launcher: a benchmark stuck in a loop dies too."""
    source = tmp_path / "stuck.c"
    source.write_text(textwrap.dedent("""\
        #include <stdio.h>
        #include <unistd.h>
        int main(void) {
            FILE *f = fopen("bench.pid", "w");
            fprintf(f, "%d", (int)getpid());
            fclose(f);
            for (;;) pause();
        }
    """))
    driver = _start_driver(tmp_path, f"""
        from starchart.measure import CEvaluator
        CEvaluator({str(source)!r}, cache_dir={str(tmp_path / "cache")!r}, timeout=600).evaluate({{}})
    """)
    _killing_the_driver_kills(driver, tmp_path / "bench.pid", "the C benchmark to die")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG) is Linux's")
def test_without_a_watchdog_the_program_still_dies_with_the_driver(tmp_path):
    """Where the watchdog cannot start, the program (the direct child) gets PR_SET_PDEATHSIG instead."""
    driver = _start_driver(tmp_path, """
        import threading
        from starchart.measure import CommandEvaluator, watchdog

        watchdog._state["failed"] = True   # as if no Python interpreter could be started for it
        quick = threading.Thread(target=lambda: CommandEvaluator(["true"]).evaluate({}))
        quick.start(); quick.join()
        long = CommandEvaluator("echo $$ > child.pid; exec sleep 300", shell=True)
        worker = threading.Thread(target=lambda: long.evaluate({}))
        worker.start(); worker.join()
    """)
    _killing_the_driver_kills(driver, tmp_path / "child.pid", "the program to die")


def test_a_driver_that_ends_normally_leaves_no_watchdog_behind(tmp_path):
    """The watchdog is one extra process per driver: it must end with it, and kill nothing on the way."""
    driver = _start_driver(tmp_path, """
        from starchart.measure import CommandEvaluator, watchdog
        m = CommandEvaluator(["echo", "time=2"], pattern=r"time=(\\S+)").evaluate({})
        print("WATCHDOG", watchdog._state["watchdog"], m.values["time"], flush=True)
    """)
    out, _ = driver.communicate(timeout=120)
    text = out.decode(errors="replace")
    assert driver.returncode == 0, text
    words = text.split("WATCHDOG", 1)[1].split()
    pid = int(words[0])
    assert words[1] == "[2.0]"
    _wait_until(lambda: not _alive(pid), "the watchdog to exit with its driver")


# ------------------------------------------------------------------- background jobs
def test_a_background_job_holding_the_output_does_not_turn_into_a_timeout(tmp_path):
    """Before: the program printed its time and exited at once, but its ``sleep &`` kept stdout open, so the
    launch waited for the whole timeout and was recorded as status "timeout"."""
    ev = CommandEvaluator("sleep 60 & echo $! > bg.pid; echo time=3", shell=True, pattern=r"time=(\S+)",
                          timeout=8, cwd=tmp_path)
    m = ev.evaluate({})
    bg = int((tmp_path / "bg.pid").read_text())
    try:
        assert m.ok, m.reason
        assert m.values == {"time": [3.0]}
        assert "kept its output open" in m.extra["left_running"]
        _wait_until(lambda: not _alive(bg), "the background sleep to be killed")
    finally:
        _kill_quietly(bg)


def test_a_background_job_holding_the_output_without_a_timeout_does_not_hang():
    """Before: with no timeout, the launch waited as long as the background job ran (forever for a server)."""
    result = run_process("sleep 12 & echo started", shell=True)
    assert result.ok and result.stdout == "started\n"
    assert "were killed" in result.left_running


def test_a_background_job_that_outlives_the_program_is_killed(tmp_path):
    """Before: a job with its output redirected (``server > log &``) ran on after the measurement, one more
    per configuration, disturbing every later measurement."""
    ev = CommandEvaluator("sleep 300 > /dev/null 2>&1 & echo $! > bg.pid; echo time=1", shell=True,
                          pattern=r"time=(\S+)", cwd=tmp_path)
    m = ev.evaluate({})
    bg = int((tmp_path / "bg.pid").read_text())
    try:
        assert m.ok and m.values == {"time": [1.0]}
        assert m.extra["left_running"] == "processes it left running in its process group were killed when it exited"
        _wait_until(lambda: not _alive(bg), "the background sleep to be killed")
    finally:
        _kill_quietly(bg)


def test_a_program_that_cleans_up_gets_no_note():
    ev = CommandEvaluator("sleep 0.2 & wait; echo time=1", shell=True, pattern=r"time=(\S+)")
    m = ev.evaluate({})
    assert m.ok and "left_running" not in m.extra


def test_a_holder_outside_the_group_keeps_the_output_read_so_far(tmp_path):
    """A ``setsid`` job is out of the group's reach: the launch stops waiting for it and keeps what was printed.
    Before: the launch waited for the whole timeout, then dropped all output and reported "timeout"."""
    ev = CommandEvaluator("setsid sleep 60 & echo $! > bg.pid; echo time=2", shell=True, pattern=r"time=(\S+)",
                          timeout=4, cwd=tmp_path)
    m = ev.evaluate({})
    bg = int((tmp_path / "bg.pid").read_text())
    try:
        assert m.ok and m.values == {"time": [2.0]}, m.reason
        assert "outside its process group" in m.extra["left_running"] and "still runs" in m.extra["left_running"]
    finally:
        _kill_quietly(bg)


def test_a_timeout_keeps_what_was_printed_before_it(tmp_path):
    """Before: when a process outside the group held the pipes, a timed-out launch lost its stderr, the error."""
    result = run_process(f"echo 'CUDA error: out of memory' >&2; setsid sleep 60 & echo $! > {tmp_path}/bg.pid; wait",
                         shell=True, timeout=1)
    bg = int((tmp_path / "bg.pid").read_text())
    try:
        assert result.timed_out
        assert result.failure_reason() == "timed out after 1 s; stderr: CUDA error: out of memory"
    finally:
        _kill_quietly(bg)


# ------------------------------------------------------------------------- environment
def test_a_path_set_in_env_is_where_the_program_is_looked_up():
    """The program gets env='s PATH and is looked up there. Before: prepare() looked in starchart's own PATH and
    passed, then every configuration failed with "install sh or add its directory to PATH"."""
    from starchart.errors import InputError

    ev = CommandEvaluator(["sh", "-c", "echo time=1"], pattern=r"time=(\S+)", env={"PATH": "/nonexistent"})
    with pytest.raises(InputError, match=r"program 'sh' not found.*looked up in the PATH set by env= "
                                         r"\('/nonexistent'\)"):
        ev.prepare([])
    assert "PATH set by env=" in ev.evaluate({}).reason
    fine = CommandEvaluator(["sh", "-c", "echo time=$X"], pattern=r"time=(\S+)", env={"PATH": "/usr/bin:/bin",
                                                                                          "X": "{x}"})
    fine.prepare(["x"])
    assert fine.evaluate({"x": 4}).values == {"time": [4.0]}


# ---------------------------------------------------------------------- odd programs
@pytest.mark.parametrize("script, status, said", [
    ("head -c 4000 /dev/urandom", "runtime", "unparsable output: pattern r'time=(\\S+)' matched nothing"),
    (r"printf 'time=1.5\377\n'", "runtime", "is not a number"),                  # not UTF-8
    (r"printf 'bad \377\376\n' >&2; exit 4", "runtime", "exit status 4; stderr: bad"),
    ("echo time=1; exit 1", "runtime", "exit status 1; stdout: time=1"),        # a value, but it failed
    ("kill -SEGV $$", "runtime", "killed by SIGSEGV"),
    ("trap '' TERM INT HUP; sleep 30", "timeout", "timed out after 0.5 s"),     # deaf to SIGTERM: SIGKILL
])
def test_odd_programs_are_recorded_not_raised(script, status, said):
    m = CommandEvaluator(["sh", "-c", script], pattern=r"time=(\S+)", timeout=0.5 if "trap" in script else 30
                         ).evaluate({})
    assert m.status == status and said in m.reason


def test_a_huge_output_is_read_whole():
    """50 MB of output before the value: nothing blocks on a full pipe, and the value at the end is read."""
    m = CommandEvaluator("head -c 50000000 /dev/zero | tr '\\0' x; echo; echo time=7", shell=True,
                         pattern=r"time=(\d+)", timeout=120).evaluate({})
    assert m.ok and m.values == {"time": [7.0]}
