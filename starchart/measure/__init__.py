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

import difflib
import re
from collections.abc import Mapping
from typing import Any

from starchart._util.plugins import PluginLoader
from starchart.errors import InputError
from starchart.measure.base import Evaluator, Measurement
from starchart.measure.c import CEvaluator
from starchart.measure.command import CommandEvaluator
from starchart.measure.cuda import CudaEvaluator
from starchart.measure.python import PythonEvaluator
from starchart.measure.replay import ReplayEvaluator

#: The entry-point group through which other packages add evaluator kinds: ``kind = "module:Class"``.
ENTRY_POINT_GROUP = "starchart.evaluators"

#: Evaluator classes by their ``kind``: the built-in ones, then those :func:`register_evaluator` adds
#: and those installed packages declare in the entry-point group ``starchart.evaluators`` (read on first use).
EVALUATORS: dict[str, type[Evaluator]] = {cls.kind: cls for cls in (
    PythonEvaluator, CommandEvaluator, CEvaluator, CudaEvaluator, ReplayEvaluator)}
_plugins = PluginLoader(ENTRY_POINT_GROUP)


def register_evaluator(cls: type[Evaluator]) -> type[Evaluator]:
    """Add an evaluator class under its ``kind`` (usable as a class decorator).

    Its kind then works everywhere a built-in one does: ``evaluator: {kind: ...}`` in a space or
    evaluator file, ``starchart run --evaluator``, ``starchart resume``, Ray scheduling
    (:attr:`~Evaluator.needs_gpu`).

    >>> class Echo(PythonEvaluator):
    ...     kind = "echo-example"
    >>> register_evaluator(Echo) is Echo and evaluator_class("echo-example") is Echo
    True
    >>> del EVALUATORS["echo-example"]
    """
    if not (isinstance(cls, type) and issubclass(cls, Evaluator)):
        raise InputError(f"{cls!r} is not an Evaluator subclass", where="register_evaluator",
                         hint="subclass starchart.measure.Evaluator and give it a kind")
    kind = getattr(cls, "kind", None)
    if not isinstance(kind, str) or not kind or kind == Evaluator.kind:
        raise InputError(f"{cls.__name__} has no kind of its own", where="register_evaluator",
                         hint='set a class attribute, e.g. kind = "my-simulator"')
    EVALUATORS[kind] = cls
    return cls


def evaluator_class(kind: str) -> type[Evaluator] | None:
    """The class registered for ``kind`` (installed plug-ins included), or ``None``."""
    if kind not in EVALUATORS:
        for name, cls in _plugins.load().items():
            if isinstance(cls, type) and issubclass(cls, Evaluator):
                EVALUATORS.setdefault(name, cls)
    return EVALUATORS.get(kind)


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
    >>> evaluator_from_dict({"source": "k.c"}, where="ev.yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: ev.yaml: the evaluator has no 'kind' (hint: add kind: one of python, command, ...
    >>> evaluator_from_dict({"kind": "command", "argv": ["true"], "timout": 5}, where="ev.yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    starchart.errors.UnknownOptionsError: ev.yaml: unknown option(s) timout (hint: did you mean timeout? ...
    """
    if not isinstance(data, Mapping):
        raise InputError(f"an evaluator description must be a mapping with a 'kind', got {type(data).__name__}",
                         where=where, hint="e.g. {kind: c, source: kernel.c}")
    if "kind" not in data or data.get("kind") in (None, ""):
        raise InputError("the evaluator has no 'kind'", where=where,
                         hint=f"add kind: one of {', '.join(EVALUATORS)} (e.g. kind: c)")
    kind = data.get("kind")
    cls = evaluator_class(str(kind))
    if cls is None:
        close = difflib.get_close_matches(str(kind).strip().lower(), list(EVALUATORS), n=1, cutoff=0.6)
        guess = f"did you mean {close[0]!r}? " if close else ""
        raise InputError(f"unknown evaluator kind {kind!r}", where=where,
                         hint=f"{guess}use one of: {', '.join(EVALUATORS)}")
    try:
        return cls.from_description(data)
    except (TypeError, ValueError) as exc:  # an option of a type no check foresaw: still one clear line
        raise InputError(f"cannot build a {kind!r} evaluator from these options: {exc}", where=where,
                         hint="check the types of the options (lists in [ ], numbers unquoted)") from None
    except InputError as exc:
        # the same error (its kind and data kept), placed in the file or option it came from
        said = exc.raw_where
        if said is None or said.startswith(cls.__name__) or said == "evaluator description":
            # the file in place of the class, keeping the option the error concerns ("ev.yaml, repeats")
            _, comma, option = (said or "").partition(", ")  # "PythonEvaluator description, repeats"
            exc.where = f"{where}{comma}{option}"
        elif _names_an_option(said) and not said.startswith(where):
            exc.where = f"{where}, {said}"  # a bare option ("kernel_name", "problem_size[0]")
        raise exc from None


def _names_an_option(where: str) -> bool:
    """Whether an error's ``where`` is an option label (``kernel_name``, ``arguments[1]``, ``smem_args['size']``)
    rather than a file or an option already named with its source."""
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])*(\(\.\.\.\))?", where) is not None


__all__ = ["CEvaluator", "CommandEvaluator", "CudaEvaluator", "ENTRY_POINT_GROUP", "EVALUATORS", "Evaluator",
           "Measurement", "PythonEvaluator", "ReplayEvaluator", "evaluator_class", "evaluator_from_dict",
           "register_evaluator"]
