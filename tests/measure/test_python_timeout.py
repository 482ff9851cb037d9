"""A Python function that hangs is interrupted after ``timeout`` seconds and recorded as a timeout;
the run goes on (serially, on local worker threads, and from the command line)."""

from __future__ import annotations

import signal
import sys
import time

import pytest
from typer.testing import CliRunner

from starchart.cli import app
from starchart.errors import InputError
from starchart.measure import PythonEvaluator, evaluator_from_dict
from starchart.measure.deadline import CallTimedOut, call_with_timeout
from starchart.space import Space
from starchart.study.runner import run
from starchart.study.store import Store


def sleeps_at_two(config: dict) -> float:
    """Hangs (in a sleep) for x == 2, else returns at once."""
    if config["x"] == 2:
        time.sleep(60)
    return float(config["x"] + 1)


def spins_at_two(config: dict) -> float:
    """Hangs in pure Python for x == 2 (what a watchdog thread can interrupt), else returns at once."""
    while config["x"] == 2:
        pass
    return float(config["x"] + 1)


def swallows_everything(config: dict) -> float:
    """Catches the interruption itself and returns late: still a timeout."""
    try:
        time.sleep(60)
    except BaseException:  # noqa: BLE001 - what a careless function does
        pass
    return 1.0


def _statuses(ds) -> dict[int, str]:
    return dict(zip(ds.frame["x"], ds.frame["status"]))


@pytest.mark.parametrize("fn", [sleeps_at_two, spins_at_two])
def test_a_hanging_configuration_is_a_timeout_and_the_serial_run_goes_on(fn):
    space = Space({"x": [0, 1, 2, 3]})
    before = signal.getsignal(signal.SIGALRM)
    started = time.perf_counter()
    ds = run(space, PythonEvaluator(fn, timeout=0.3), configs=space.to_frame().to_dict("records"), progress=False)
    assert time.perf_counter() - started < 30  # not the 60 s sleep
    assert _statuses(ds) == {0: "ok", 1: "ok", 2: "timeout", 3: "ok"}
    reason = ds.frame.loc[ds.frame["x"] == 2, "reason"].item()
    assert reason == "the function ran past 0.3 s (call 1 of 1)"
    assert signal.getsignal(signal.SIGALRM) is before  # the run's own alarm handler is gone again


def test_local_worker_threads_interrupt_a_function_spinning_in_python():
    space = Space({"x": [0, 1, 2, 3, 4, 5]})
    ds = run(space, PythonEvaluator(spins_at_two, timeout=0.3), configs=space.to_frame().to_dict("records"),
             workers=2, progress=False)
    assert _statuses(ds) == {0: "ok", 1: "ok", 2: "timeout", 3: "ok", 4: "ok", 5: "ok"}


@pytest.mark.parametrize("in_thread", [False, True])
def test_a_function_that_catches_the_interruption_is_still_timed_out(in_thread):
    import threading

    got: list = []

    def call() -> None:
        try:
            got.append(call_with_timeout(swallows_everything, {}, 0.2))
        except CallTimedOut as exc:
            got.append(str(exc))

    if in_thread:  # the watchdog raises once the sleep returns: keep the sleep short there
        short = PythonEvaluator(lambda c: (time.sleep(0.5), 1.0)[1], timeout=0.1)
        thread = threading.Thread(target=lambda: got.append(short.evaluate({}).status))
        thread.start()
        thread.join()
        assert got == ["timeout"]
    else:
        call()
        assert got == ["the function ran past 0.2 s"]


def test_a_fast_function_is_untouched_and_no_timer_is_left_behind():
    ev = PythonEvaluator(lambda c: c["x"] * 2.0, timeout=5, repeats=3)
    assert ev.evaluate({"x": 4}).values == {"time": [8.0, 8.0, 8.0]}
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_timeout_is_described_only_when_set_and_read_back_from_an_evaluator_file():
    assert "timeout" not in PythonEvaluator(sleeps_at_two).describe()  # old stores keep comparing equal
    ev = evaluator_from_dict({"kind": "python", "function": f"{__name__}:sleeps_at_two", "timeout": 0.25})
    assert ev.timeout == 0.25 and ev.describe()["timeout"] == 0.25
    with pytest.raises(InputError, match="timeout: must be a positive number of seconds"):
        PythonEvaluator(sleeps_at_two, timeout=0)
    with pytest.raises(InputError, match="timeout: must be a positive number"):
        evaluator_from_dict({"kind": "python", "function": f"{__name__}:sleeps_at_two", "timeout": "soon"})


def test_the_command_line_timeout_applies_to_a_python_evaluator(tmp_path, monkeypatch):
    module = tmp_path / "hangs.py"
    module.write_text("import time\n\ndef measure(c):\n    if c['x'] == 1:\n        time.sleep(60)\n"
                      "    return c['x'] + 1.0\n")
    space = tmp_path / "space.yaml"
    space.write_text("parameters:\n  x: [0, 1, 2]\n")
    evaluator = tmp_path / "ev.yaml"
    evaluator.write_text("kind: python\nfunction: hangs:measure\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "s.db"
    result = CliRunner().invoke(app, ["run", str(space), "--evaluator", str(evaluator), "--timeout", "0.3",
                                      "--samples", "3", "--store", str(store)])
    assert result.exit_code == 0, result.output
    with Store.open(store) as opened:
        frame = opened.to_dataset().frame
    assert dict(zip(frame["x"], frame["status"])) == {0: "ok", 1: "timeout", 2: "ok"}
    sys.modules.pop("hangs", None)
