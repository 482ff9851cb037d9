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
  enumerate: a uniform sample, in the order drawn);
- ``leaf``: uniform draws inside the best leaf of a Starchart tree refitted after every result, the iterative
  sampling of the paper's follow-up, TACO (:class:`~starchart.strategies.leaf_sampling.LeafSampling`).

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

import numpy as np

from starchart._util.plugins import PluginLoader
from starchart.errors import InputError
from starchart.strategies.base import PoolStrategy
from starchart.strategies.engine import StaticGuidedOptimizer, TreeGuidedOptimizer
from starchart.strategies.leaf_sampling import LeafSampling

#: The entry-point group through which other packages add strategies: ``name = "module:Class"``.
ENTRY_POINT_GROUP = "starchart.strategies"


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
                               "uniform": UniformStrategy, "exhaustive": ExhaustiveStrategy, "leaf": LeafSampling}
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
