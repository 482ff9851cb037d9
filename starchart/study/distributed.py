"""Evaluations on Ray: one actor per worker, results streamed back to the driver.

The driver (the process calling :func:`starchart.run`) alone writes the store;
actors only measure. Each actor holds its own copy of the evaluator, so
compile caches and GPU contexts live as long as the actor. CUDA evaluators get
one GPU per actor. A worker that dies is replaced and its configuration measured
once more (then recorded as a failure); a stopped run kills the programs its
workers were waiting for.

Pointing at a cluster: start Ray on the nodes (``ray start --head`` on one,
``ray start --address=HEAD:6379`` on the others, each with starchart installed
and the kernel sources at the same path), then ``starchart run ... --ray auto``
on the head node, or ``--ray ray://HEAD:10001`` from elsewhere.
"""

from __future__ import annotations

import itertools
import os
import re
import signal
import threading
import warnings
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from starchart.errors import InputError
from starchart.measure import watchdog
from starchart.measure.base import Evaluator, Measurement
from starchart.measure.process import descendants, kill_running

#: Seconds a new worker may wait for a CPU (a GPU for CUDA) before the cluster is taken to lack one: its jobs
#: hold them, or a node was lost. Long enough for an autoscaler to add a node.
START_TIMEOUT_S = 300.0


class _Worker:
    """The actor body: measures configurations with its own evaluator."""

    def __init__(self, evaluator: Evaluator):
        self.evaluator = evaluator

    def evaluate(self, config: dict[str, Any]) -> dict[str, Any]:
        measurement = self.evaluator.evaluate(config)
        measurement.extra.setdefault("worker", f"ray:{os.uname().nodename}:{os.getpid()}")
        return measurement.to_dict()

    def ready(self) -> bool:
        """Answer once the actor is built (its evaluator unpickled: a function's module imported)."""
        return True

    def stop(self) -> int:
        """Kill the programs this worker's evaluation waits for (called in the ``control`` group, beside it):
        killing the actor alone would leave them running, in their own sessions."""
        return kill_running()


def require_ray() -> Any:
    """The ``ray`` module, or an error naming the extra to install (checked before a run writes anything)."""
    try:
        import ray
    except ImportError:
        raise InputError("Ray is not installed", where="--ray",
                         hint='pip install ".[ray]" in the starchart source folder (or run without --ray)') from None
    return ray


def ray_evaluate(evaluator: Evaluator, todo: Iterable[dict[str, Any]], *, workers: int,
                 address: str | bool | None = None) -> Iterator[Measurement]:
    """Evaluate ``todo`` on ``workers`` Ray actors, yielding measurements as they finish.

    ``address``: ``True``, ``"local"`` or ``None`` start a private local Ray
    instance (shut down afterwards); anything else (``"auto"``, ``"ray://host:10001"``)
    is passed to :func:`ray.init` to join a running cluster. Each worker holds one
    CPU (one GPU for CUDA evaluators): more workers than the cluster has is an error,
    as the extra actors would wait for ever.
    """
    require_ray()  # now, not when the first result is awaited
    return _evaluate(evaluator, todo, workers=workers, address=address)


#: How many times a configuration is measured again after the worker measuring it died (a crash of
#: that worker, a lost node). When its worker dies again it is recorded as a failure: a configuration
#: that kills its worker must neither stop the study nor every resume of it.
RETRIES_AFTER_DEATH = 1

#: A worker is sent several configurations at a time only while its measurements take less than this
#: (seconds): then the round trip to the driver, not the measurement, bounds the rate. A slow
#: measurement's queued follower would wait a whole measurement while another worker may sit idle.
_PIPELINE_BELOW_S = 0.05
_PIPELINE_DEPTH = 4


@dataclass
class _Task:
    """A configuration sent to a worker, how many workers died while it was on them, and whether it must
    be measured alone (it was on a worker that died: alone, a death is its own)."""

    config: dict[str, Any]
    deaths: int = 0
    alone: bool = False


@dataclass
class _Slot:
    """One actor and the references of what was sent to it, oldest (the one it measures) first."""

    actor: Any
    sent: list[Any] = field(default_factory=list)
    depth: int = 1


def _evaluate(evaluator: Evaluator, todo: Iterable[dict[str, Any]], *, workers: int,
              address: str | bool | None) -> Iterator[Measurement]:
    import ray

    queue = iter(todo)
    first = next(queue, None)  # the configurations may be skipped lazily: none left, no Ray to start
    if first is None:
        return
    local = address in (None, True, "local", "")
    started = False
    daemons: set[int] = set()
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True,
                                   "configure_logging": False}
        if local:
            options["num_cpus"] = max(workers, os.cpu_count() or 1)
        else:
            options["address"] = str(address)
        # ray.init makes SIGTERM exit at once: a caller's handler (the CLI's, the runner's) that first stops
        # the workers' programs and says what was kept stays
        main = threading.current_thread() is threading.main_thread()
        on_sigterm = signal.getsignal(signal.SIGTERM) if main else None
        before = descendants(os.getpid()) if local else set()
        try:
            ray.init(**options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise InputError(f"cannot start or join Ray ({exc})", where=f"--ray {address or 'local'}",
                             hint=_join_hint(exc)) from None
        finally:
            if callable(on_sigterm):
                signal.signal(signal.SIGTERM, on_sigterm)
        started = True
        # a local instance's daemons (GCS, raylet, its agents) are this process's children, in its group: killed
        # with -9, it left the agents running for good; the watchdog now kills them with it
        daemons = descendants(os.getpid()) - before if local else set()
        for pid in daemons:
            watchdog.watch_process(pid)
    pool: _ActorPool | None = None
    finished = False
    try:
        _check_resources(ray, evaluator, workers)
        pool = _ActorPool(ray, evaluator, workers, itertools.chain([first], queue))
        yield from pool.results()
        finished = True
    finally:
        if pool is not None:
            pool.close(stop=not finished)
        if started:
            ray.shutdown()
            for pid in daemons:
                watchdog.unwatch_process(pid)


class _ActorPool:
    """``workers`` actors measuring configurations as they are asked for, results as they finish.

    Unlike :class:`ray.util.ActorPool` it replaces a worker that died (sending its configurations
    again), keeps a few configurations queued on each worker while measurements are fast, and can
    stop the programs its workers run.
    """

    def __init__(self, ray: Any, evaluator: Evaluator, workers: int, todo: Iterator[dict[str, Any]]):
        self.ray = ray
        self.resources = {"num_gpus": 1} if evaluator.needs_gpu else {"num_cpus": 1}
        # a second concurrency group, so that stop() runs while the default one (one call at a time) measures
        self.actor_class = ray.remote(concurrency_groups={"control": 1}, **self.resources)(_Worker)
        self.evaluator = _put_evaluator(ray, evaluator)
        self.todo = todo
        self.again: deque[_Task] = deque()  # sent before the next of todo: those of a worker that died
        self.owner: dict[Any, tuple[_Slot, _Task]] = {}
        self.slots = [_Slot(actor) for actor in self._started(workers)]
        if len(self.slots) < workers:  # the cluster has them, but not free: say so rather than wait for ever
            for slot in self.slots:
                self.ray.kill(slot.actor)
            raise InputError(f"{workers - len(self.slots)} of {workers} Ray workers did not start within "
                             f"{START_TIMEOUT_S:g} s: {self._no_room()}", where="--workers",
                             hint=f"use --workers {len(self.slots)}, or run when the cluster has room"
                             if self.slots else "run when the cluster has room")

    def _started(self, count: int) -> list[Any]:
        """``count`` new actors, once each is built. One that cannot be built (the evaluator does not unpickle
        there) is an error of the whole run, not a failure of the configurations it would be sent. Actors
        not placed within :data:`START_TIMEOUT_S` are killed and left out: the caller decides whether the
        run can go on without them."""
        actors = [self.actor_class.remote(self.evaluator) for _ in range(count)]
        ready_refs = {actor.ready.remote(): actor for actor in actors}
        try:
            ready, waiting = self.ray.wait(list(ready_refs), num_returns=len(ready_refs), timeout=START_TIMEOUT_S)
            self.ray.get(ready)
        except self.ray.exceptions.RayActorError as exc:
            raise InputError(f"the Ray workers cannot start: {_cause(exc)}", where="--ray",
                             hint="a Python function's module must import on every Ray node: installed there, "
                                  "or beside the script that runs (or define the function in that script), "
                                  "or run without --ray") from None
        except BaseException:  # Ctrl-C while they start
            for actor in actors:
                self.ray.kill(actor)
            raise
        for ref in waiting:  # never placed: without a free CPU/GPU they would hold their configurations for ever
            self.ray.kill(ready_refs[ref])
        return [ready_refs[ref] for ref in ready]

    def _no_room(self) -> str:
        kind = "GPU" if self.resources.get("num_gpus") else "CPU"
        return f"no free {kind} in the cluster (other jobs hold them, or a node was lost)"

    def _send(self, slot: _Slot) -> bool:
        if slot.sent and (any(self.owner[ref][1].alone for ref in slot.sent) or (self.again and self.again[0].alone)):
            return False  # a configuration suspected of killing its worker is measured alone
        if self.again:
            task = self.again.popleft()
        else:
            config = next(self.todo, None)
            if config is None:
                return False
            task = _Task(config)
        ref = slot.actor.evaluate.remote(task.config)
        slot.sent.append(ref)
        self.owner[ref] = (slot, task)
        return True

    def results(self) -> Iterator[Measurement]:
        """Measurements as they finish, until every configuration is measured."""
        exceptions = self.ray.exceptions
        while True:
            for slot in self.slots:
                while len(slot.sent) < slot.depth and self._send(slot):
                    pass
            if not self.owner:
                return
            ready, _ = self.ray.wait(list(self.owner), num_returns=1)
            ref = ready[0]
            slot, task = self.owner.pop(ref)
            try:
                result = self.ray.get(ref)
            except exceptions.RayActorError as exc:
                yield from self._died(slot, ref, task, exc)
                continue
            except exceptions.RayTaskError as exc:  # raised past Evaluator.evaluate (SystemExit, a bad result)
                slot.sent.remove(ref)
                yield Measurement.failure(task.config, "runtime", _first_line(exc))
                continue
            slot.sent.remove(ref)
            measurement = Measurement.from_dict(result)
            took = measurement.compile_s + measurement.run_s + measurement.overhead_s
            slot.depth = _PIPELINE_DEPTH if took < _PIPELINE_BELOW_S else 1
            yield measurement

    def _died(self, slot: _Slot, ref: Any, task: _Task, exc: Exception) -> Iterator[Measurement]:
        """Replace a worker that died (``ref``, of ``task``, told so) and send its configurations again.

        Which one killed it is known only when it held one: several may have been queued on it, and a
        result it finished just before dying can be lost with it. So every configuration it held is sent
        again, alone; one that dies alone more than :data:`RETRIES_AFTER_DEATH` times is returned as a
        failure. Results that did arrive are returned as they are.
        """
        finished: list[Measurement] = []
        lost: list[_Task] = []
        for sent in slot.sent:
            pending = task if sent is ref else self.owner.pop(sent)[1]
            if sent is not ref and self.ray.wait([sent], timeout=0)[0]:
                try:
                    finished.append(Measurement.from_dict(self.ray.get(sent)))
                    continue
                except self.ray.exceptions.RayTaskError as error:  # finished, raising past Evaluator.evaluate
                    finished.append(Measurement.failure(pending.config, "runtime", _first_line(error)))
                    continue
                except self.ray.exceptions.RayActorError:
                    pass  # it died with the worker
            lost.append(pending)
        self.slots.remove(slot)
        self.ray.kill(slot.actor)
        replacement = [_Slot(actor) for actor in self._started(1)]
        self.slots += replacement
        yield from finished
        if not replacement:  # the cluster lost the capacity: go on with the other workers, or stop and say so
            if not self.slots:
                raise InputError(f"the last Ray worker died and its replacement did not start within "
                                 f"{START_TIMEOUT_S:g} s: {self._no_room()}", where="--ray",
                                 hint="what was measured is stored: resume the run when the cluster has room")
            warnings.warn(f"a Ray worker died and its replacement did not start within {START_TIMEOUT_S:g} s "
                          f"({self._no_room()}): going on with {len(self.slots)} workers", RuntimeWarning,
                          stacklevel=2)
        for pending in lost:
            pending.deaths += 1
            pending.alone = True
        if len(lost) == 1 and lost[0].deaths > RETRIES_AFTER_DEATH:
            culprit = lost.pop()
            yield Measurement.failure(culprit.config, "runtime", f"the Ray worker measuring it died "
                                      f"({culprit.deaths} times): {_first_line(exc)}")
        self.again.extendleft(reversed(lost))

    def close(self, stop: bool) -> None:
        """Let go of the actors (Ray ends them once unreferenced). ``stop`` (Ctrl-C, an error, or the
        driver stopped reading): end them now, once the programs they run are killed, which ending the
        actor alone would leave running (in their own sessions), also on a cluster that stays up."""
        actors = [slot.actor for slot in self.slots]
        self.slots, self.owner = [], {}
        if not stop:
            return
        stopping = [actor.stop.options(concurrency_group="control").remote() for actor in actors]
        self.ray.wait(stopping, num_returns=len(stopping), timeout=10.0)
        for actor in actors:
            self.ray.kill(actor)


def _put_evaluator(ray: Any, evaluator: Evaluator) -> Any:
    """The evaluator in Ray's object store, for every worker; one that cannot be pickled is a clear error."""
    try:
        return ray.put(evaluator)
    except Exception as exc:  # noqa: BLE001 - Ray reports pickling errors of every kind as TypeError or its own
        function = evaluator.describe().get("function")
        what = f"the evaluator ({function})" if function else f"the {evaluator.kind} evaluator"
        cause = exc.__cause__ or exc  # Ray's own text is a long report around pickle's one line
        raise InputError(f"{what} cannot be sent to the Ray workers: {_first_line(cause)}", where="--ray",
                         hint="what a Python function refers to (locks, open files, connections) must be picklable: "
                              "create those inside the function, or run without --ray") from None


def _cause(exc: BaseException) -> str:
    """The last ``SomeError: message`` line of a Ray error's report (the original error), else its first line.

    >>> _cause(RuntimeError("The actor died ...\\n  File x\\nModuleNotFoundError: No module named 'k'\\n"))
    "ModuleNotFoundError: No module named 'k'"
    """
    found = re.findall(r"^\s*(\w+(?:Error|Exception): .+)$", str(exc), flags=re.MULTILINE)
    return found[-1].strip() if found else _first_line(exc)


def _first_line(exc: BaseException) -> str:
    """The first non-empty line of an exception's text (Ray's carry a long report after it).

    >>> _first_line(ValueError("\\nboom\\nmore"))
    'ValueError: boom'
    """
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")


def _check_resources(ray: Any, evaluator: Evaluator, workers: int) -> None:
    """Refuse more workers than the cluster has CPUs (GPUs for CUDA): their actors would never start,
    and the configurations handed to them would never come back."""
    kind = "GPU" if evaluator.needs_gpu else "CPU"
    have = int(ray.cluster_resources().get(kind, 0))
    if workers > have:
        raise InputError(f"each worker holds one {kind}: {workers} need {workers}, but the Ray cluster has {have}",
                         where="--workers",
                         hint=f"use --workers {have}" if have else f"join a Ray cluster with {kind}s (--ray ADDRESS)")


def _join_hint(exc: Exception) -> str:
    """What to do when ``ray.init`` fails. A ``ray://`` address needs Ray Client (``ray[client]``),
    which a plain ``pip install ray`` lacks: then the address is fine and checking it misleads.

    >>> _join_hint(RuntimeError("Ray Client requires pip package `ray[client]`. ..."))[:27]
    'pip install "ray[client]" o'
    """
    if "ray[client]" in str(exc):
        return ('pip install "ray[client]" on this machine (ray:// addresses need Ray Client), '
                "or run on the head node with --ray auto")
    return "check the address, or that `ray start --head` runs there"
