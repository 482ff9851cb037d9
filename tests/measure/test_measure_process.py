"""Child processes for measurement: running, killing process trees on timeout, templates, output parsing, repeats."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from starchart.errors import InputError
from starchart.measure import CommandEvaluator
from starchart.measure.process import (
    REPEATS_ENV,
    OutputParseError,
    ProcessResult,
    check_fields,
    check_repeats,
    find_program,
    parse_values,
    render_argv,
    run_process,
    run_repeated,
    template_fields,
)
from starchart.space import Space
from tests.driver_processes import (
    _alive,
    _kill_driver,
    _kill_quietly,
    _read_pid,
    _start_driver,
    _wait_until,
)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie awaiting its reaper counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_dead(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


# ------------------------------------------------------------------------- running
def test_run_process_captures_output_status_and_time():
    result = run_process([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr)"])
    assert (result.returncode, result.stdout, result.stderr.strip()) == (0, "out\n", "err")
    assert result.ok and not result.timed_out and result.signal is None
    assert result.wall_s > 0
    assert result.failure_reason() == ""


def test_exit_status_and_stderr_tail():
    result = run_process(["/bin/sh", "-c", "echo first >&2; echo 'it broke' >&2; exit 3"])
    assert not result.ok and result.returncode == 3 and result.signal is None
    assert result.failure_reason() == "exit status 3; stderr: first\nit broke"
    assert result.stderr_tail(8) == "...it broke"


def test_killed_by_signal_is_named():
    result = run_process([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"])
    assert result.signal == "SIGSEGV" and result.returncode == -11
    assert result.failure_reason().startswith("killed by SIGSEGV")


def test_shell_reports_signal_as_exit_status():
    result = run_process("kill -SEGV $$", shell=True)
    # sh itself is the killed process here; a command killed inside the shell gives 139
    assert result.failure_reason().startswith("killed by SIGSEGV")
    inner = ProcessResult(["/bin/sh", "-c", "./crash"], 139, "", "", 0.1)
    assert inner.failure_reason() == "exit status 139 (128 + SIGSEGV: a command in the shell was killed)"


def test_timeout_kills_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    start = time.perf_counter()
    result = run_process(["/bin/sh", "-c", f"sleep 30 & echo $! > {pidfile}; echo started; wait"], timeout=0.5)
    elapsed = time.perf_counter() - start
    assert result.timed_out and not result.ok and elapsed < 30  # an order: killed, not waited for (sleep 30)
    assert result.failure_reason() == "timed out after 0.5 s"
    assert result.stdout == "started\n"  # output before the kill is kept
    grandchild = int(pidfile.read_text())
    assert wait_dead(grandchild), "the grandchild sleep survived the timeout"


def test_env_is_added_to_the_environment_and_cwd_is_used(tmp_path):
    result = run_process(["/bin/sh", "-c", 'echo "$ADDED:$HOME:$(pwd)"'], env={"ADDED": 7}, cwd=tmp_path)
    added, home, cwd = result.stdout.strip().split(":")
    assert added == "7" and home == os.environ.get("HOME", "") and Path(cwd).resolve() == tmp_path.resolve()


def test_missing_program_is_an_input_error():
    with pytest.raises(InputError, match="'no-such-program-xyz' not found") as info:
        run_process(["no-such-program-xyz", "--flag"])
    assert "PATH" in str(info.value)
    with pytest.raises(InputError, match="not found.*check the path"):
        run_process(["./no/such/bench"])


def test_missing_cwd_and_non_executable_program(tmp_path):
    with pytest.raises(InputError, match="working directory"):
        run_process(["true"], cwd=tmp_path / "missing")
    script = tmp_path / "bench.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    with pytest.raises(InputError, match="permission denied.*chmod"):
        run_process([str(script)])


def test_string_command_needs_shell():
    with pytest.raises(InputError, match="list of arguments.*shell=True"):
        run_process("echo hi")
    with pytest.raises(InputError, match="one string"):
        run_process(["echo", "hi"], shell=True)
    assert run_process("echo hi | tr a-z A-Z", shell=True).stdout == "HI\n"


def test_undecodable_output_does_not_raise():
    result = run_process([sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'time=1 \\xff\\n')"])
    assert result.stdout.startswith("time=1 ") and "\ufffd" in result.stdout


def test_find_program(tmp_path):
    assert find_program("sh") == shutil.which("sh") and find_program("no-such-program-xyz") is None
    exe = tmp_path / "bench"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert Path(find_program("./bench", cwd=tmp_path)) == tmp_path / "bench"


# ----------------------------------------------------------------------- templates
def test_template_fields_and_render():
    template = ["./bench", "--tile={tile}x{tile}", "{scale:.2f}", "{{braces}}", "{arr[0]}", "{w:{width}}"]
    assert template_fields(template) == {"tile", "scale", "arr", "w", "width"}
    config = {"tile": 4, "scale": 0.5, "arr": [7, 8], "w": 3, "width": 3}
    assert render_argv(template, config, "argv") == ["./bench", "--tile=4x4", "0.50", "{braces}", "7", "  3"]
    assert render_argv(["a b {x}"], {"x": "c d"}) == ["a b c d"]  # one element stays one argument


@pytest.mark.parametrize("bad", ["{}", "{0}", "{x", "x}"])
def test_template_errors(bad):
    with pytest.raises(InputError, match="template"):
        template_fields(["ok", bad], where="argv")


def test_render_unknown_field_names_it():
    with pytest.raises(InputError, match=r"\{tiles\}.*known parameters: tile") as info:
        render_argv(["--tile={tiles}"], {"tile": 4}, "argv")
    assert info.value.where == "argv"


def test_check_fields_against_a_space():
    space = Space({"tile": [1, 2], "unroll": [True, False]})
    check_fields({"tile"}, space, "argv")
    with pytest.raises(InputError, match=r"unknown parameters \{a\}, \{b\}.*known parameters: tile, unroll"):
        check_fields({"a", "b", "tile"}, space, "argv")


# ------------------------------------------------------------------------- parsing
def test_parse_values_regex():
    text = "warming up\nTIME=1.5\ntime=2e-3\ntime=nan\ntime=-inf\n"
    values = parse_values(text, pattern=r"(?i)time=(\S+)", metric="ms")
    assert values["ms"][:2] == [1.5, 0.002] and values["ms"][2] != values["ms"][2] and values["ms"][3] == float("-inf")
    assert parse_values("gflops 10 gflops 20", pattern=r"\d+", metric="gflops") == {"gflops": [10.0, 20.0]}


def test_parse_values_regex_errors():
    with pytest.raises(OutputParseError, match="matched nothing in the output '.*segfault'"):
        parse_values("starting\nsegfault", pattern=r"time=(\S+)")
    with pytest.raises(OutputParseError, match="matched nothing in the output \\(empty\\)"):
        parse_values("", pattern=r"time=(\S+)")
    with pytest.raises(OutputParseError, match="'1.2.3' is not a number"):
        parse_values("time=1.2.3", pattern=r"time=(\S+)")
    assert issubclass(OutputParseError, ValueError)
    with pytest.raises(ValueError, match="pattern or json_lines"):
        parse_values("time=1")


def test_parse_values_json_lines():
    lines = [
        '{"time": 1.5, "power": [100, 110], "name": "gemm", "ok": true, "nested": {"x": 1}, "mixed": [1, "a"]}',
        "{not json}",
        "[1, 2, 3]",
        "plain text",
        '  {"time": [2, 3]}  ',
    ]
    text = "\n".join(lines)
    assert parse_values(text, json_lines=True) == {"time": [1.5, 2.0, 3.0], "power": [100.0, 110.0]}
    with pytest.raises(OutputParseError, match="no JSON line gives a number for 'time'"):
        parse_values('{"gflops": 10}', json_lines=True)
    # regex and JSON lines together
    both = parse_values('time=4\n{"power": 50}', pattern=r"time=(\d+)", json_lines=True)
    assert both == {"time": [4.0], "power": [50.0]}


# ------------------------------------------------------------------------- repeats
def count_lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_run_repeated_one_value_per_launch(tmp_path):
    counter = tmp_path / "launches"
    script = f'echo . >> {counter}; echo "n=$STARCHART_REPEATS t=$(wc -l < {counter})"'
    parse = lambda out: parse_values(out, pattern=r"t=\s*(\d+)")
    m, launches = run_repeated(script, {"x": 1}, shell=True, parse=parse, repeats=3, warmup=2)
    assert m.ok and m.values == {"time": [3.0, 4.0, 5.0]}  # the first two launches were warm-up
    assert len(launches) == 5 == count_lines(counter) and m.extra["launches"] == 5
    assert all("n=5" in r.stdout for r in launches)
    assert m.run_s == pytest.approx(sum(r.wall_s for r in launches))


def test_run_repeated_program_loops_itself():
    script = f'i=0; while [ $i -lt ${REPEATS_ENV} ]; do echo "t=$i"; i=$((i+1)); done; echo "t=99"'
    m, launches = run_repeated(["/bin/sh", "-c", script], {}, parse=lambda o: parse_values(o, pattern=r"t=(\d+)"),
                               repeats=4, warmup=1)
    assert len(launches) == 1 and m.values == {"time": [1.0, 2.0, 3.0, 4.0]}  # extra values beyond 5 dropped


def test_run_repeated_wall_time_in_ms():
    m, launches = run_repeated(["sleep", "0.05"], {}, parse=None, repeats=2, warmup=1)
    assert m.ok and len(launches) == 3 and len(m.values["time"]) == 2
    assert all(40 < v < 2000 for v in m.values["time"])


def test_run_repeated_metrics_printed_once_are_kept():
    script = 'echo "{\\"time\\": [1, 2, 3], \\"registers\\": 32}"'
    parse = lambda o: parse_values(o, json_lines=True)
    m, launches = run_repeated(script, {}, shell=True, parse=parse, repeats=2, warmup=1)
    assert len(launches) == 1 and m.values == {"time": [2.0, 3.0], "registers": [32.0]}


def test_run_repeated_failures_are_recorded(tmp_path):
    parse = lambda o: parse_values(o, pattern=r"t=(\d+)")
    m, _ = run_repeated("echo boom >&2; exit 4", {"x": 1}, shell=True, parse=parse)
    assert (m.status, m.reason, m.extra["stderr_tail"], m.extra["returncode"]) == \
        ("runtime", "exit status 4; stderr: boom", "boom", 4)
    assert m.values == {} and m.config == {"x": 1}
    m, _ = run_repeated(["sleep", "5"], {}, parse=parse, timeout=0.2)
    assert m.status == "timeout" and m.reason == "timed out after 0.2 s" and m.run_s >= 0.2
    m, _ = run_repeated("echo t=oops", {}, shell=True, parse=parse)
    assert m.status == "runtime" and m.reason.startswith("unparsable output: pattern")
    assert m.extra["stdout_tail"] == "t=oops"
    # the second launch fails: the whole configuration fails
    counter = tmp_path / "n"
    script = f'echo . >> {counter}; [ $(wc -l < {counter}) -lt 2 ] && echo t=1 || exit 9'
    m, launches = run_repeated(script, {}, shell=True, parse=parse, repeats=3)
    assert m.status == "runtime" and m.reason == "exit status 9" and len(launches) == 2


def test_check_repeats():
    assert check_repeats(1, 0, "x") == (1, 0)
    for repeats, warmup in ((0, 0), (1, -1), (1.5, 0), (True, 0)):
        with pytest.raises(InputError, match="repeats|warmup"):
            check_repeats(repeats, warmup, "x")


# ---------------------------------------------------------------------- review rounds (test_measure_user_edges)
# The measuring evaluators used the hard way: a driver killed with ``kill -9`` while its programs run,
# programs that leave background jobs behind (holding their output open or not), odd output and exits.
#
# Every check that waits for a process to go away polls with a generous deadline: no timing is asserted.




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


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
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


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
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


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
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


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
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
@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
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


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
def test_a_background_job_holding_the_output_without_a_timeout_does_not_hang():
    """Before: with no timeout, the launch waited as long as the background job ran (forever for a server)."""
    result = run_process("sleep 12 & echo started", shell=True)
    assert result.ok and result.stdout == "started\n"
    assert "were killed" in result.left_running


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
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


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
def test_a_program_that_cleans_up_gets_no_note():
    ev = CommandEvaluator("sleep 0.2 & wait; echo time=1", shell=True, pattern=r"time=(\S+)")
    m = ev.evaluate({})
    assert m.ok and "left_running" not in m.extra


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
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


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
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
@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
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
@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
def test_odd_programs_are_recorded_not_raised(script, status, said):
    m = CommandEvaluator(["sh", "-c", script], pattern=r"time=(\S+)", timeout=0.5 if "trap" in script else 30
                         ).evaluate({})
    assert m.status == status and said in m.reason


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
def test_a_huge_output_is_read_whole():
    """50 MB of output before the value: nothing blocks on a full pipe, and the value at the end is read."""
    m = CommandEvaluator("head -c 50000000 /dev/zero | tr '\\0' x; echo; echo time=7", shell=True,
                         pattern=r"time=(\d+)", timeout=120).evaluate({})
    assert m.ok and m.values == {"time": [7.0]}
