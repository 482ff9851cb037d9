"""The evaluator protocol: one configuration in, one :class:`Measurement` out.

Every evaluator (command line, Python callable, C, CUDA, replay) follows the same
small contract, so the runner, the store and the searches never care which one
they drive:

- :meth:`Evaluator.prepare` is called once with the space before anything is
  measured; set-up problems (a missing compiler, a template naming an unknown
  parameter) raise a :class:`~starchart.errors.StarchartError` there;
- :meth:`Evaluator.evaluate` measures one configuration and never raises for a
  failure of that configuration: compile errors, crashes, timeouts and wrong
  answers come back as a :class:`Measurement` with a status and a reason;
- :meth:`Evaluator.describe` is a JSON-able description (stored with the study;
  :func:`starchart.measure.evaluator_from_dict` rebuilds it for ``starchart resume``).

Subclasses implement :meth:`Evaluator._measure`; :meth:`Evaluator.evaluate` wraps
it to time the framework overhead and to turn an unexpected exception into a
recorded failure.
"""

from __future__ import annotations

import difflib
import math
import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from starchart._util.direction import lower_is_better
from starchart.dataset import BOOKKEEPING_COLUMNS, REPEATS_PREFIX, STATUSES
from starchart.errors import InputError, UnknownOptionsError
from starchart.space import Space

#: Statuses a measurement can have: the dataset's (``"invalid"`` comes from replayed data).
MEASUREMENT_STATUSES: tuple[str, ...] = STATUSES


def mean_of(values: Sequence[float]) -> float:
    """The exact mean of ``values`` (NaN when empty), also when their sum overflows a float.

    The one place that knows :func:`math.fsum` raises past 1.8e308: huge times (a 1e308 ms
    sentinel for a failed run) must average, and add up, to finite numbers.

    >>> mean_of([1e308, 1e308]), mean_of([1.0, 2.0]), mean_of([])
    (1e+308, 1.5, nan)
    """
    if not values:
        return math.nan
    try:
        return math.fsum(values) / len(values)
    except OverflowError:  # fsum raises where the sum passes 1.8e308: average the scaled-down values
        return math.fsum(v / len(values) for v in values)


@dataclass
class Measurement:
    """Everything measured for one configuration.

    Attributes
    ----------
    config:
        The configuration, ``{parameter: value}``.
    status:
        ``"ok"`` or why there is no valid measurement: ``"compile"``, ``"runtime"``
        (crash, non-zero exit, unparsable output, exception), ``"timeout"``,
        ``"wrong-answer"``.
    reason:
        Readable detail of a failure (e.g. the tail of stderr); ``""`` when ok.
    values:
        Every repeat of every metric, ``{metric: [v1, v2, ...]}``.
    compile_s, run_s:
        Seconds spent compiling and running the kernel/program (all repeats).
    overhead_s:
        Seconds the evaluator spent on anything else (set by :meth:`Evaluator.evaluate`).
    extra:
        Anything else worth keeping (JSON-able): checksums, stderr tail, worker id...

    Examples
    --------
    >>> m = Measurement({"x": 1}, values={"time": [2.0, 4.0]})
    >>> m.ok, m.summary()
    (True, {'time': 3.0})
    >>> Measurement.failure({"x": 2}, "timeout", "killed after 1 s").summary()
    {}
    """

    config: dict[str, Any]
    status: str = "ok"
    reason: str = ""
    values: dict[str, list[float]] = field(default_factory=dict)
    compile_s: float = 0.0
    run_s: float = 0.0
    overhead_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in MEASUREMENT_STATUSES:
            raise ValueError(f"unknown status {self.status!r}; expected one of {MEASUREMENT_STATUSES}")

    @classmethod
    def failure(cls, config: Mapping[str, Any], status: str, reason: str, **fields: Any) -> Measurement:
        """A failed measurement (no values)."""
        return cls(dict(config), status=status, reason=reason, **fields)

    @property
    def ok(self) -> bool:
        """Whether the configuration ran and measured fine."""
        return self.status == "ok"

    def summary(self) -> dict[str, float]:
        """The mean over repeats of each metric (the paper's reported value); empty on failure."""
        if not self.ok:
            return {}
        return {m: mean_of(v) for m, v in self.values.items()}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict; :meth:`from_dict` reads it back."""
        return {"config": self.config, "status": self.status, "reason": self.reason,
                "values": self.values, "compile_s": self.compile_s, "run_s": self.run_s,
                "overhead_s": self.overhead_s, "extra": self.extra}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Measurement:
        return cls(**{k: data[k] for k in ("config", "status", "reason", "values", "compile_s", "run_s",
                                           "overhead_s", "extra") if k in data})


class Evaluator(ABC):
    """Base class of evaluators.

    Class attributes
    ----------------
    kind:
        The name used in :meth:`describe` and by :func:`~starchart.measure.evaluator_from_dict`;
        the key of the evaluator registry (:data:`starchart.measure.EVALUATORS`).
    needs_gpu:
        Whether each evaluation needs a GPU of its own: on Ray, each worker then holds one GPU.
    path_options:
        The options of an evaluator file that name files or folders: :meth:`resolve_paths` takes
        them from that file's folder, so a study file works from any folder.
    path_defaults:
        Values a file's path options take when it leaves them out (a command runs in its file's
        folder: ``{"cwd": "."}``).
    packages:
        Distributions whose versions a study records with its environment (CuPy for CUDA).

    A new kind subclasses this with ``kind``, :meth:`_measure`, :meth:`describe` and
    :meth:`from_description`, and registers itself with
    :func:`starchart.measure.register_evaluator` or an entry point in the group
    ``starchart.evaluators``.

    Instance attributes
    -------------------
    metrics:
        Names of the metrics it produces; the first is the objective.
    minimize:
        Whether smaller objective values are better (time: yes; throughput: no).
    """

    kind: ClassVar[str] = "evaluator"
    needs_gpu: ClassVar[bool] = False
    path_options: ClassVar[tuple[str, ...]] = ("source", "cwd", "cache_dir")
    path_defaults: ClassVar[Mapping[str, str]] = {}
    packages: ClassVar[tuple[str, ...]] = ()
    metrics: tuple[str, ...] = ("time",)
    minimize: bool = True

    @property
    def objective(self) -> str:
        """The metric a search optimises: the first of :attr:`metrics`."""
        return self.metrics[0]

    def _direction(self, minimize: bool | None, meta: Mapping[str, Any] | None = None) -> bool:
        """``minimize`` as given, else by the objective's name (GFLOP/s: maximised; time: minimised)."""
        if minimize is not None and not isinstance(minimize, (bool, np.bool_)):  # "false" is truthy: minimised
            raise InputError(f"must be true or false, got {minimize!r}", where=f"{type(self).__name__}, minimize",
                             hint="write minimize: true (lower is better) or false (higher is better)")
        return lower_is_better(self.objective, meta) if minimize is None else bool(minimize)

    def prepare(self, space: Space) -> None:
        """Check the evaluator against ``space`` before measuring (templates, tools); raise on problems."""

    def evaluate(self, config: Mapping[str, Any]) -> Measurement:
        """Measure one configuration; failures are returned, never raised.

        Times the call and sets ``overhead_s`` to what was neither compile nor run.
        """
        start = time.perf_counter()
        config = dict(config)
        try:
            result = self._measure(config)
        except KeyboardInterrupt:
            raise
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - one broken configuration must not stop a run
            # (sys.exit() in a measured function, say: the run goes on)
            result = Measurement.failure(config, "runtime", f"{type(exc).__name__}: {exc}",
                                         extra={"traceback": traceback.format_exc(limit=4)[-2000:]})
        elapsed = time.perf_counter() - start
        result.overhead_s = max(0.0, elapsed - result.compile_s - result.run_s)
        return result

    @abstractmethod
    def _measure(self, config: dict[str, Any]) -> Measurement:
        """Measure ``config``; may raise (recorded as a ``runtime`` failure)."""

    def describe(self) -> dict[str, Any]:
        """A JSON-able description: ``{"kind": ..., options...}``."""
        return {"kind": self.kind, "metrics": list(self.metrics), "minimize": self.minimize}

    @classmethod
    def from_description(cls, description: Mapping[str, Any]) -> Evaluator:
        """The evaluator a :meth:`describe` output (or an evaluator file's section) describes.

        Every kind that ``starchart resume`` or an evaluator file should rebuild overrides this.
        """
        raise InputError(f"a {cls.kind!r} evaluator cannot be rebuilt from a description", where=cls.__name__,
                         hint="define the classmethod from_description(description) on the evaluator class")

    @classmethod
    def resolve_paths(cls, description: Mapping[str, Any], folder: Path) -> dict[str, Any]:
        """``description`` with its relative :attr:`path_options` taken from ``folder`` (an evaluator
        file's), after filling in :attr:`path_defaults`.

        >>> from pathlib import Path
        >>> Evaluator.resolve_paths({"kind": "c", "source": "k.c", "repeats": 3}, Path("/studies"))
        {'kind': 'c', 'source': '/studies/k.c', 'repeats': 3}
        """
        resolved = dict(description)
        for key, default in cls.path_defaults.items():
            resolved.setdefault(key, default)
        for key in cls.path_options:
            value = resolved.get(key)
            if (isinstance(value, str) and value.strip() and not Path(value).expanduser().is_absolute()
                    and cls._names_a_file(key, value)):
                resolved[key] = str((folder / value).resolve())
        return resolved

    @classmethod
    def cache_names(cls, description: Mapping[str, Any], environment: Mapping[str, Any]) -> dict[str, Any]:
        """``kernel_name`` and ``device_name`` (and ``problem_size``) for a Kernel Tuner cache header, where a
        study of this kind knows them from its evaluator's ``description`` and the machine's ``environment``.

        >>> Evaluator.cache_names({"kind": "command", "kernel_name": "conv"}, {})
        {'kernel_name': 'conv'}
        """
        return {"kernel_name": str(description["kernel_name"])} if description.get("kernel_name") else {}

    @classmethod
    def _names_a_file(cls, option: str, value: str) -> bool:
        """Whether ``value`` of path option ``option`` is a file name (rather than, say, inline code)."""
        return True

    def close(self) -> None:
        """Release resources (processes, GPU contexts, temporary files)."""

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.describe()})"


class FreshLockOnUnpickle:
    """Mixin for evaluators holding a ``self._lock``: picklable (Ray actors, process pools).

    A lock cannot travel between processes; the copy gets a fresh one.
    """

    _lock: threading.Lock

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


def unknown_options(names: Sequence[str], accepted: Sequence[str], kind: str, where: str) -> UnknownOptionsError:
    """The error for evaluator options nothing takes: which ones, the nearest names, and what ``kind`` accepts.

    >>> print(unknown_options(["repeat"], ["repeats", "timeout"], "python", "ev.yaml"))
    ev.yaml: unknown option(s) repeat (hint: did you mean repeats? a 'python' evaluator accepts: repeats, timeout)
    """
    accepted = sorted(accepted)
    close = [match for name in names for match in difflib.get_close_matches(name, accepted, n=1)]
    guess = f"did you mean {', '.join(close)}? " if close else ""
    return UnknownOptionsError(f"unknown option(s) {', '.join(names)}", where=where, names=tuple(names),
                               hint=f"{guess}a {kind!r} evaluator accepts: {', '.join(accepted)}")


def check_metrics(metrics: str | Sequence[str], where: str, label: str = "metrics") -> tuple[str, ...]:
    """Normalise a metric name or list of names, rejecting empty ones and the names of a dataset's own
    columns (:func:`check_metric_name`); ``label`` names the option in the error (``where, label``).

    >>> check_metrics("time", "CommandEvaluator")
    ('time',)
    """
    if isinstance(metrics, str):
        names: tuple[Any, ...] = (metrics,)
    elif isinstance(metrics, Sequence) and not isinstance(metrics, (bytes, bytearray)):
        names = tuple(metrics)
    else:
        names = ()
    if not names or any(not isinstance(n, str) or not n.strip() for n in names):
        raise InputError(f"metric names must be non-empty strings, got {metrics!r}", where=f"{where}, {label}",
                         hint="e.g. metric='time'")
    for name in names:
        check_metric_name(name, f"{where}, {label}")
    return names


def check_metric(metric: Any, where: str, label: str = "metric") -> str:
    """The one metric an evaluator that measures one objective is given (a command's, a C program's).

    A list is refused, not cut to its first name: the others would be dropped without a word.

    >>> check_metric("gflops", "CommandEvaluator")
    'gflops'
    >>> check_metric(["a", "b"], "CommandEvaluator")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: CommandEvaluator, metric: takes one metric name, got the list ['a', 'b'] (hint: ...
    """
    if isinstance(metric, (list, tuple)):
        first = metric[0] if metric and isinstance(metric[0], str) else "time"
        raise InputError(f"takes one metric name, got the list {list(metric)!r}", where=f"{where}, {label}",
                         hint=f"name the objective alone, e.g. {label}: {first} (a command with json_lines keeps "
                              "every number it prints as JSON, whichever metric is the objective; the python and "
                              "replay kinds take several names as a list under metrics)")
    return check_metrics(metric, where, label)[0]


def check_metric_name(name: str, where: str) -> str:
    """Refuse a metric named like a column every dataset holds (``status``, ``reason``, ``repeats_…``): it
    could be measured, but not read back (two ``status`` columns), so it is said before measuring.

    >>> check_metric_name("status", "ev.yaml, metric")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: ev.yaml, metric: metric 'status' has the name of a column every dataset holds ...
    """
    if name in BOOKKEEPING_COLUMNS or name.startswith(REPEATS_PREFIX):
        raise InputError(f"metric {name!r} has the name of a column every dataset holds "
                         f"({', '.join(BOOKKEEPING_COLUMNS)}, {REPEATS_PREFIX}…)", where=where,
                         hint=f"name the metric otherwise, e.g. {name}_")
    return name
