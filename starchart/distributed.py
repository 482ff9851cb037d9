"""Evaluations on Ray: one actor per worker, results streamed back to the driver.

The driver (the process calling :func:`starchart.run`) alone writes the store;
actors only measure. Each actor holds its own copy of the evaluator, so
compile caches and GPU contexts live as long as the actor. CUDA evaluators get
one GPU per actor.

Pointing at a cluster: start Ray on the nodes (``ray start --head`` on one,
``ray start --address=HEAD:6379`` on the others, each with starchart installed
and the kernel sources at the same path), then ``starchart run ... --ray auto``
on the head node, or ``--ray ray://HEAD:10001`` from elsewhere.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

from starchart.errors import InputError
from starchart.measure.base import Evaluator, Measurement


class _Worker:
    """The actor body: measures configurations with its own evaluator."""

    def __init__(self, evaluator: Evaluator):
        self.evaluator = evaluator

    def evaluate(self, config: dict[str, Any]) -> dict[str, Any]:
        measurement = self.evaluator.evaluate(config)
        measurement.extra.setdefault("worker", f"ray:{os.uname().nodename}:{os.getpid()}")
        return measurement.to_dict()


def require_ray() -> Any:
    """The ``ray`` module, or an error naming the extra to install (checked before a run writes anything)."""
    try:
        import ray
        from ray.util import ActorPool  # noqa: F401
    except ImportError:
        raise InputError("Ray is not installed", where="--ray",
                         hint='pip install ".[ray]" in the starchart source folder (or run without --ray)') from None
    return ray


def ray_evaluate(evaluator: Evaluator, todo: Sequence[dict[str, Any]], *, workers: int,
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


def _evaluate(evaluator: Evaluator, todo: Sequence[dict[str, Any]], *, workers: int,
              address: str | bool | None) -> Iterator[Measurement]:
    import ray
    from ray.util import ActorPool

    if not todo:
        return
    local = address in (None, True, "local", "")
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True,
                                   "configure_logging": False}
        if local:
            options["num_cpus"] = max(workers, os.cpu_count() or 1)
        else:
            options["address"] = str(address)
        try:
            ray.init(**options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise InputError(f"cannot start or join Ray ({exc})", where=f"--ray {address or 'local'}",
                             hint=_join_hint(exc)) from None
        started = True
    try:
        _check_resources(ray, evaluator, workers)
        resources = {"num_gpus": 1} if evaluator.kind == "cuda" else {"num_cpus": 1}
        actor_class = ray.remote(**resources)(_Worker)
        handle = ray.put(evaluator)
        actors = [actor_class.remote(handle) for _ in range(workers)]
        pool = ActorPool(actors)
        for result in pool.map_unordered(lambda actor, config: actor.evaluate.remote(config), list(todo)):
            yield Measurement.from_dict(result)
    finally:
        if started:
            ray.shutdown()


def _check_resources(ray: Any, evaluator: Evaluator, workers: int) -> None:
    """Refuse more workers than the cluster has CPUs (GPUs for CUDA): their actors would never start,
    and the configurations handed to them would never come back."""
    kind = "GPU" if evaluator.kind == "cuda" else "CPU"
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
