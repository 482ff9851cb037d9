"""starchart._util.forked: jobs in forked children, and the parent taking over whatever goes wrong there."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from starchart._util import forked
from starchart._util.forked import Job, can_fork, in_processes

needs_fork = pytest.mark.skipif(not can_fork(), reason="forking is off here (not Linux, one core, or threads)")


def pid() -> int:
    return os.getpid()


@needs_fork
def test_the_first_job_runs_here_and_the_others_in_children_in_order():
    here = os.getpid()
    values = in_processes([pid, pid, pid, lambda: "last"])
    assert values[0] == here
    assert len(set(values[1:3])) == 2 and here not in values[1:3]
    assert values[3] == "last"


@needs_fork
def test_a_job_failing_in_its_child_runs_again_here_and_its_error_is_raised_here():
    def fail() -> None:
        raise ValueError(f"failed in {os.getpid()}")

    with pytest.raises(ValueError, match=f"failed in {os.getpid()}"):
        in_processes([lambda: 1, fail])


@needs_fork
@pytest.mark.parametrize("trouble", ["exception", "killed", "not JSON", "exit"])
def test_whatever_goes_wrong_in_the_child_the_parent_computes_the_value(trouble):
    parent = os.getpid()

    def job() -> object:
        if os.getpid() != parent:  # only the child has trouble
            if trouble == "exception":
                raise RuntimeError("child only")
            if trouble == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
            if trouble == "exit":
                raise SystemExit(3)
            return {"a set": {1, 2}}  # JSON cannot carry a set
        return ("computed here", os.getpid())

    with Job(job) as started:
        assert started.forked
        assert started.result() == ("computed here", parent)
        assert not started.forked


@needs_fork
def test_cancel_stops_a_child_that_never_ends_and_reaps_it():
    job = Job(signal.pause)  # waits for a signal for ever in the child
    child = job._pid
    job.cancel()
    assert not job.forked
    with pytest.raises(ChildProcessError):  # reaped: no zombie left
        os.waitpid(child, os.WNOHANG)


@needs_fork
def test_leaving_the_block_without_asking_stops_the_child():
    with pytest.raises(KeyError):
        with Job(signal.pause) as job:
            child = job._pid
            raise KeyError("the parent failed on the way")
    with pytest.raises(ChildProcessError):
        os.waitpid(child, os.WNOHANG)


def test_with_another_thread_running_every_job_runs_here():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not can_fork()
        assert in_processes([pid, pid]) == [os.getpid()] * 2
    finally:
        stop.set()
        other.join()


def test_switched_off_every_job_runs_here_when_asked(monkeypatch):
    monkeypatch.setattr(forked, "ENABLED", False)
    calls = []
    job = Job(lambda: calls.append(os.getpid()) or "value")
    assert not job.forked and calls == []  # nothing ran yet
    assert job.result() == "value" and calls == [os.getpid()]
    assert in_processes([]) == []


@needs_fork
def test_warnings_of_a_child_are_raised_again_here_under_the_parents_filters():
    import warnings

    from starchart.io.load import NothingToModelWarning

    def warn() -> int:
        warnings.warn("from the child", NothingToModelWarning, stacklevel=1)
        warnings.warn("ignored here", DeprecationWarning, stacklevel=1)
        return os.getpid()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        here, there = in_processes([pid, warn])
    assert there != here
    assert [(w.category, str(w.message)) for w in caught] == [(NothingToModelWarning, "from the child")]
