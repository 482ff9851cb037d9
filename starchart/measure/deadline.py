"""A time limit for a Python call made in this process: :func:`call_with_timeout`.

Programs run by an evaluator are killed when they run too long
(:mod:`starchart.measure.process`); a Python function measured in-process cannot
be killed, so it is interrupted instead, by raising an exception in the thread
that runs it:

- in the main thread (a serial run, a Ray worker) a ``SIGALRM`` timer raises it,
  which also interrupts ``time.sleep`` and blocking system calls;
- in any other thread (``run(workers=N)``'s local workers), or while someone
  else's ``SIGALRM`` timer is pending, a watchdog thread raises it through
  ``PyThreadState_SetAsyncExc``, which takes effect at the function's next
  Python instruction (not inside one long call into C).

Either way the exception derives from ``BaseException``, so a function's own
``except Exception`` does not swallow it; a function that catches it anyway and
returns late is still reported as timed out.

>>> import time
>>> call_with_timeout(lambda x: x + 1, 1, seconds=1.0)
2
>>> call_with_timeout(time.sleep, 5, seconds=0.05)
Traceback (most recent call last):
...
starchart.measure.deadline.CallTimedOut: the function ran past 0.05 s
"""

from __future__ import annotations

import ctypes
import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["CallTimedOut", "call_with_timeout"]

T = TypeVar("T")


class CallTimedOut(Exception):
    """A call ran past its time limit (raised to the caller of :func:`call_with_timeout`)."""

    def __init__(self, seconds: float):
        super().__init__(f"the function ran past {seconds:g} s")
        self.seconds = seconds


class _Expired(BaseException):
    """Raised inside the timed call; BaseException so that ``except Exception`` in it lets it through."""


def call_with_timeout(fn: Callable[[Any], T], arg: Any, seconds: float | None) -> T:
    """``fn(arg)``, or :class:`CallTimedOut` once it has run ``seconds`` (``None``: no limit)."""
    if seconds is None:
        return fn(arg)
    if _alarm_free():
        return _with_alarm(fn, arg, seconds)
    return _with_watchdog(fn, arg, seconds)


def _alarm_free() -> bool:
    """Whether this thread may use SIGALRM: the main thread, and no other timer pending."""
    return (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL)[0] == 0)


def _with_alarm(fn: Callable[[Any], T], arg: Any, seconds: float) -> T:
    fired = []

    def expire(signum: int, frame: Any) -> None:
        fired.append(True)
        raise _Expired

    previous = signal.signal(signal.SIGALRM, expire)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            result = fn(arg)
        finally:  # the timer may fire here too: the outer except still catches it
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Expired:
        raise CallTimedOut(seconds) from None
    finally:
        signal.signal(signal.SIGALRM, previous)
    if fired:  # it caught the exception itself and returned late
        raise CallTimedOut(seconds)
    return result


def _with_watchdog(fn: Callable[[Any], T], arg: Any, seconds: float) -> T:
    thread_id = threading.get_ident()
    lock = threading.Lock()
    state = {"running": True, "fired": False}

    def expire() -> None:
        with lock:  # never raise into the thread once the call has returned
            if state["running"]:
                state["fired"] = True
                _raise_in(thread_id, _Expired)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    try:
        timer.start()
        try:
            result = fn(arg)
        finally:
            with lock:
                state["running"] = False
                if state["fired"]:
                    _raise_in(thread_id, None)  # withdraw it if it has not been raised yet
            timer.cancel()
    except _Expired:
        raise CallTimedOut(seconds) from None
    if state["fired"]:  # it caught the exception itself and returned late
        raise CallTimedOut(seconds)
    return result


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    """Raise ``exception`` in thread ``thread_id`` at its next Python instruction (``None``: withdraw it)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id),
                                               ctypes.py_object(exception) if exception else None)
