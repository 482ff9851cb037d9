"""The registry of search strategies: one ask/tell protocol, several ways to choose what to measure next.

A strategy proposes candidates of a :class:`~starchart.strategies.encoding.CandidatePool` by index and
learns their objective values. :func:`~starchart.strategies.search.search` drives any of them the same
way, through the same store, resume, workers and time limit.

Built in:

- ``tree``: the tree-guided search (:class:`~starchart.strategies.engine.TreeGuidedOptimizer`);
- ``static``: the same, told each configuration's static metrics by the compiler (carving's table), its
  initial design drawn among the configurations carving kept
  (:class:`~starchart.strategies.engine.StaticGuidedOptimizer`);
- ``uniform``: configurations drawn uniformly at random, none twice (the baseline every method is
  measured against);
- ``exhaustive``: every configuration, in the order the space enumerates them (a space too large to
  enumerate: a uniform sample, in the order drawn).

A package adds one with :func:`register_strategy`, or by declaring its class in the entry-point
group ``starchart.strategies``. It is then a choice of ``search(strategy=...)``,
``starchart search --strategy`` and ``starchart msp --search``.

Examples
--------
>>> from starchart.space import Space
>>> from starchart.strategies.encoding import CandidatePool, Encoding
>>> space = Space({"x": [1, 2, 3, 4]})
>>> enc = Encoding.from_space(space)
>>> strategy = strategy_class("exhaustive")(CandidatePool(enc, enc.encode(space.to_frame())), seed=0)
>>> first = strategy.ask_batch(2)
>>> for index in first:
...     strategy.tell(index, 1.0)
>>> first, strategy.ask_batch(2)
([0, 1], [2, 3])
"""

from __future__ import annotations

import difflib
from typing import Any, ClassVar

import numpy as np

from starchart._util.plugins import PluginLoader
from starchart.errors import InputError, arg
from starchart.strategies.base import CandidateStrategy, Sampler
from starchart.strategies.encoding import CandidatePool
from starchart.strategies.engine import StaticGuidedOptimizer, TreeGuidedOptimizer

#: The entry-point group through which other packages add strategies: ``name = "module:Class"``.
ENTRY_POINT_GROUP = "starchart.strategies"


class PoolStrategy(CandidateStrategy):
    """A simple strategy: it chooses among the open candidates, and proposes batches without repeats.

    A subclass chooses with :meth:`choose` among the open (not yet evaluated, not yet proposed in this
    batch) candidates. The constructor takes what :class:`TreeGuidedOptimizer` takes; a strategy that
    cannot use a warm start or the tree's options refuses them.
    """

    name: ClassVar[str] = ""

    def __init__(self, pool: CandidatePool, *, seed: int | None = None, minimize: bool = True,
                 budget: int | None = None, options: Any = None, sampler: Sampler | None = None,
                 prior: Any = None) -> None:
        if options is not None or prior is not None:
            raise InputError(f"the {self.name!r} strategy takes no tree options and no warm start", where="strategy",
                             hint=f"leave out {arg('prior', '')} and {arg('options', '')}, or use "
                                  f"{arg('strategy', repr('tree'))}")
        self.pool = pool
        self.minimize = bool(minimize)
        self.budget = budget
        self.sampler = sampler
        self.rng = np.random.default_rng(seed)
        self.indices: list[int] = []
        self.values: list[float] = []

    def ask(self) -> int:
        """The pool index of the candidate to evaluate next."""
        return self.ask_batch(1)[0]

    def ask_batch(self, n: int) -> list[int]:
        """``n`` distinct candidates to evaluate next (fewer where the space has fewer left)."""
        chosen: list[int] = []
        for _ in range(n):
            open_ = np.setdiff1d(self.open_candidates(), chosen, assume_unique=True)
            if not len(open_):
                break
            chosen.append(int(self.choose(open_)))
        if not chosen:
            raise InputError("every configuration of the space has been evaluated", where="search",
                             hint="the budget is larger than the space")
        return chosen

    def choose(self, open_: np.ndarray) -> int:
        """One of the ``open_`` pool indices (sorted ascending)."""
        raise NotImplementedError


class UniformStrategy(PoolStrategy):
    """Each proposal drawn uniformly among the configurations not measured yet."""

    name = "uniform"

    def choose(self, open_: np.ndarray) -> int:
        return int(self.rng.choice(open_))


class ExhaustiveStrategy(PoolStrategy):
    """Every configuration in turn, in the order of the pool: the space's enumeration order (for a space too
    large to enumerate, the pool is a growing uniform sample, taken in the order it was drawn)."""

    name = "exhaustive"

    def choose(self, open_: np.ndarray) -> int:
        return int(open_[0])


#: Strategy classes by name: built-in first, then registered and installed ones (read on first use).
STRATEGIES: dict[str, type] = {"tree": TreeGuidedOptimizer, "static": StaticGuidedOptimizer,
                               "uniform": UniformStrategy, "exhaustive": ExhaustiveStrategy}
_plugins = PluginLoader(ENTRY_POINT_GROUP)


def register_strategy(cls: type, name: str | None = None) -> type:
    """Add a strategy class under ``name`` (default: its ``name`` attribute); usable as a decorator.

    The class is constructed as ``cls(pool, seed=, minimize=, budget=, options=, sampler=, prior=)`` and
    has ``ask()``, ``ask_batch(n)``, ``tell(index, value)`` and a writable ``minimize``
    (:class:`PoolStrategy` gives all but the choice).
    """
    key = name or getattr(cls, "name", None)
    if not isinstance(key, str) or not key:
        raise InputError(f"{cls!r} has no name", where="register_strategy",
                         hint='give it a class attribute name = "my-strategy", or pass name=')
    missing = [method for method in ("ask", "ask_batch", "tell") if not callable(getattr(cls, method, None))]
    if missing:
        raise InputError(f"strategy {key!r} lacks {', '.join(missing)}", where="register_strategy",
                         hint="subclass starchart.strategies.registry.PoolStrategy and define choose()")
    STRATEGIES[key] = cls
    return cls


def strategy_names() -> list[str]:
    """Every strategy's name, installed plug-ins included."""
    for name, cls in _plugins.load().items():
        if isinstance(cls, type):
            STRATEGIES.setdefault(name, cls)
    return list(STRATEGIES)


def strategy_class(name: str, where: str = "strategy") -> type:
    """The strategy class called ``name``; a clear error naming the choices otherwise."""
    names = strategy_names()
    if name not in STRATEGIES:
        close = difflib.get_close_matches(str(name), names, n=1)
        guess = f"did you mean {close[0]!r}? " if close else ""
        raise InputError(f"unknown search strategy {name!r}", where=where, hint=f"{guess}use one of: {', '.join(names)}")
    return STRATEGIES[name]
