"""Parameter constraints: the one place that checks the arguments of estimators and public functions.

As scikit-learn's ``_parameter_constraints``: each parameter declares what it accepts (an
:class:`Interval`, :class:`Options`, :class:`Instances`, ``None``), and :func:`check` refuses anything
else with one :class:`~starchart.errors.InputError` that names the parameter (as the reader calls it:
``budget`` to Python, ``--budget`` on the command line), what it accepts, what it got and what to do.
:class:`Validated` gives an estimator ``get_params``/``set_params`` and ``_validate_params`` from its
declaration, so ``fit`` checks every hyperparameter the same way.

Examples
--------
>>> check("budget", 100, Interval(int, 1, None))
100
>>> check("budget", 0, Interval(int, 1, None), hint="e.g. budget=100")
Traceback (most recent call last):
...
starchart.errors.InputError: budget: must be an integer ≥ 1, got 0 (hint: e.g. budget=100)
>>> check("target", "exp", Options("auto", "log", "identity"))
Traceback (most recent call last):
...
starchart.errors.InputError: target: must be 'auto', 'log' or 'identity', got 'exp'
>>> check_seed(None), check_seed(7)
(None, 7)
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np

from starchart.errors import InputError, StarchartError

__all__ = ["Constraint", "Instances", "Interval", "Options", "SEED", "Validated", "check", "check_seed",
           "describe", "is_number", "is_whole"]


def is_number(value: Any) -> bool:
    """A real number that is not a bool (``True`` is 1 to Python, not a measurement)."""
    return isinstance(value, Real) and not isinstance(value, bool)


def is_whole(value: Any) -> bool:
    """An integer, a numpy integer or a whole float (``3.0``), and not a bool."""
    if isinstance(value, bool):
        return False
    if isinstance(value, Integral):
        return True
    return isinstance(value, Real) and math.isfinite(value) and float(value).is_integer()


@dataclass(frozen=True)
class Interval:
    """Numbers from ``left`` to ``right`` (``None``: unbounded), of ``kind`` ``int`` or ``float``.

    ``closed`` says which ends belong: ``"both"``, ``"left"``, ``"right"`` or ``"neither"``. A float interval
    holds finite numbers only; an int interval also takes whole floats (``3.0``) and returns them as ints.

    >>> Interval(int, 2, None).describe(), Interval(float, 0, 1, closed="neither").describe()
    ('an integer ≥ 2', 'a number between 0 and 1 (exclusive)')
    """

    kind: type
    left: float | None
    right: float | None
    closed: str = "both"

    def accepts(self, value: Any) -> bool:
        if self.kind is int:
            if not is_whole(value):
                return False
        elif isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
            return False
        low = self.left is None or (value >= self.left if self.closed in ("both", "left") else value > self.left)
        high = self.right is None or (value <= self.right if self.closed in ("both", "right")
                                      else value < self.right)
        return bool(low and high)

    def convert(self, value: Any) -> Any:
        return int(value) if self.kind is int else float(value)

    def describe(self) -> str:
        what = "an integer" if self.kind is int else "a number" if self.left is not None or self.right is not None \
            else "a finite number"
        left_in, right_in = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.left is not None and self.right is not None:
            if left_in and right_in:
                return f"{what} from {_number(self.left)} to {_number(self.right)}"
            if not left_in and not right_in:
                return f"{what} between {_number(self.left)} and {_number(self.right)} (exclusive)"
            return f"{what} in {'[' if left_in else '('}{_number(self.left)}, {_number(self.right)}{']' if right_in else ')'}"
        if self.left is not None:
            return f"{what} {'≥' if left_in else '>'} {_number(self.left)}"
        if self.right is not None:
            return f"{what} {'≤' if right_in else '<'} {_number(self.right)}"
        return what


@dataclass(frozen=True)
class Options:
    """One of a few values, e.g. ``Options("auto", "log", "identity")``."""

    values: tuple[Any, ...]

    def __init__(self, *values: Any):
        object.__setattr__(self, "values", values)

    def accepts(self, value: Any) -> bool:
        # 1 == True in Python: a bool is one of the options only when a bool is one
        return any(value == option and isinstance(value, bool) == isinstance(option, bool)
                   for option in self.values)

    def convert(self, value: Any) -> Any:
        return value

    def describe(self) -> str:
        return _either([repr(value) for value in self.values])


@dataclass(frozen=True)
class Instances:
    """Objects of ``types`` (checked with ``isinstance``), described as ``label``."""

    types: type | tuple[type, ...]
    label: str

    def accepts(self, value: Any) -> bool:
        return isinstance(value, self.types) and not (isinstance(value, bool) and bool not in _tuple(self.types))

    def convert(self, value: Any) -> Any:
        return value

    def describe(self) -> str:
        return self.label


#: What a parameter may declare: a constraint object, or None for "None is accepted".
Constraint = Interval | Options | Instances | None

#: numpy's generators take seeds from 0 to 2³² − 1 (the command line's ``--seed`` has the same range).
SEED = Interval(int, 0, 2**32 - 1)


def describe(constraints: tuple[Constraint, ...]) -> str:
    """What ``constraints`` accept, in words: ``None or an integer ≥ 0``."""
    return _either([("None" if c is None else c.describe()) for c in constraints])


def check(name: str, value: Any, *constraints: Constraint, hint: str | None = None,
          where: str | None = None, error: type[StarchartError] = InputError) -> Any:
    """``value`` if one of ``constraints`` accepts it (numbers converted to ``int``/``float``), else an
    :class:`~starchart.errors.InputError` (or ``error``, e.g. a space's ``SpaceError``) naming parameter
    ``name``.

    ``where`` (default: ``name``) is where the error points; ``hint`` says what to do.
    """
    for constraint in constraints:
        if constraint is None:
            if value is None:
                return None
        elif constraint.accepts(value):
            return constraint.convert(value)
    # the error's place names the parameter (budget: / --budget:), so the message need not repeat it
    raise error(f"must be {describe(constraints)}, got {value!r}", where=name if where is None else where, hint=hint)


def check_seed(seed: Any, name: str = "seed", hint: str | None = None, where: str | None = None) -> int | None:
    """A seed for numpy's generators: ``None`` (fresh entropy) or a whole number from 0 to 2³² − 1.

    The one seed check of the package: estimators, searches, samplers and analyses all call it.

    >>> check_seed(2**32)
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: seed: must be None or an integer from 0 to 4294967295, got 4294967296 \
(hint: use a whole number such as 0 to get the same result every time)
    """
    return check(name, seed, None, SEED, where=where,
                 hint=hint or "use a whole number such as 0 to get the same result every time")


def random_generator(seed: Any, name: str = "seed") -> np.random.Generator:
    """numpy's generator for ``seed``: a generator as given, else one seeded as :func:`check_seed` allows.

    >>> bool(random_generator(0).integers(10) == random_generator(0).integers(10))
    True
    >>> random_generator(-1)
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: seed: must be None or an integer from 0 to 4294967295, got -1 \
(hint: use a whole number such as 0 to get the same result every time)
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(check_seed(seed, name))


class Validated:
    """An estimator whose hyperparameters are declared once and checked in ``fit``.

    A subclass sets ``_parameter_constraints`` (name → tuple of constraints) and optionally
    ``_parameter_hints`` (name → what to do); its ``__init__`` stores each argument unchanged under its
    own name, as scikit-learn's estimators do. ``get_params``/``set_params`` follow the ``__init__``
    signature, so :func:`sklearn.base.clone` and grid searches work on it.
    """

    _parameter_constraints: ClassVar[Mapping[str, tuple[Constraint, ...]]] = {}
    _parameter_hints: ClassVar[Mapping[str, str]] = {}

    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [name for name, p in signature.parameters.items()
                if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's arguments as given (scikit-learn's protocol)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Validated:
        """Change constructor arguments; checked at the next ``fit``."""
        known = self._param_names()
        for name, value in params.items():
            if name not in known:
                raise InputError(f"unknown hyper-parameter {name!r}", where=name, hint=f"use one of {sorted(known)}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def _validate_params(self) -> dict[str, Any]:
        """Every declared hyperparameter, checked and converted (the stored values stay as given)."""
        return {name: check(name, getattr(self, name), *constraints, hint=self._parameter_hints.get(name))
                for name, constraints in self._parameter_constraints.items()}


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)
