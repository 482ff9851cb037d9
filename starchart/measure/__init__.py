"""Evaluators: turn one configuration into a :class:`Measurement`.

One protocol (:class:`Evaluator`), five implementations:

- :class:`PythonEvaluator` — a Python callable;
- :class:`CommandEvaluator` — any program (argv template, output regex / JSON lines, or wall time);
- :class:`CEvaluator` — a C source compiled with ``-D`` defines, run with warm-up and repeats;
- :class:`CudaEvaluator` — a CUDA kernel through CuPy (extra ``cuda``), CUDA-event timing, NVML power;
- :class:`ReplayEvaluator` — stored measurements served back, for benchmarking searches.

:func:`evaluator_from_dict` rebuilds an evaluator from its ``describe()`` (how
``starchart resume`` continues a study) or from a user's evaluator file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starchart.errors import InputError
from starchart.measure.base import Evaluator, Measurement
from starchart.measure.c import CEvaluator
from starchart.measure.command import CommandEvaluator
from starchart.measure.cuda import CudaEvaluator
from starchart.measure.python import PythonEvaluator
from starchart.measure.replay import ReplayEvaluator

#: Evaluator classes by their ``kind``.
EVALUATORS: dict[str, type[Evaluator]] = {cls.kind: cls for cls in (
    PythonEvaluator, CommandEvaluator, CEvaluator, CudaEvaluator, ReplayEvaluator)}


def evaluator_from_dict(data: Mapping[str, Any], where: str = "evaluator") -> Evaluator:
    """Build an evaluator from ``{"kind": ..., options...}`` (what ``describe()`` returns).

    ``where`` names where ``data`` came from (a file and section, a command-line option):
    an error about the options names it rather than the evaluator class.

    Examples
    --------
    >>> evaluator_from_dict({"kind": "command", "argv": ["true"]}).kind
    'command'
    >>> evaluator_from_dict({"kind": "fortran"})
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: evaluator: unknown evaluator kind 'fortran' (hint: use one of: python, command, c, cuda, replay)
    >>> evaluator_from_dict({"kind": "command", "argv": ["true"], "timout": 5}, where="ev.yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: ev.yaml: unknown option(s) timout (hint: did you mean timeout? ...
    """
    kind = data.get("kind")
    cls = EVALUATORS.get(str(kind))
    if cls is None:
        raise InputError(f"unknown evaluator kind {kind!r}", where=where,
                         hint=f"use one of: {', '.join(EVALUATORS)}")
    try:
        return cls.from_description(data)  # type: ignore[attr-defined]
    except InputError as exc:
        if exc.where is None or not exc.where.startswith(cls.__name__):  # already names a file or option
            raise
        raise InputError(exc.message, where=where, hint=exc.hint) from None


__all__ = ["CEvaluator", "CommandEvaluator", "CudaEvaluator", "EVALUATORS", "Evaluator", "Measurement",
           "PythonEvaluator", "ReplayEvaluator", "evaluator_from_dict"]
