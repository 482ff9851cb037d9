"""What every search strategy over a candidate pool shares: the results told, and the open candidates.

:class:`~starchart.strategies.engine.TreeGuidedOptimizer` and the simple strategies of
:mod:`~starchart.strategies.registry` keep their state the same way, so the search loop treats them alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from starchart.errors import InputError, arg
from starchart.strategies.encoding import CandidatePool

Sampler = Callable[[np.random.Generator, int], np.ndarray]


def initial_draws(budget: int | None) -> int:
    """Uniform draws before a model decides: 2√budget, clipped to 5 … 20 (10 when the budget is unknown).

    >>> initial_draws(20), initial_draws(100), initial_draws(400), initial_draws(None)
    (9, 20, 20, 10)
    """
    return 10 if budget is None else int(min(max(round(2 * math.sqrt(budget)), 5), 20))


class CandidateStrategy:
    """The bookkeeping of an ask/tell strategy: ``pool``, ``rng``, and what was told, in order.

    Subclasses set ``pool``, ``sampler`` and ``rng`` and start ``indices`` and ``values`` empty.
    """

    pool: CandidatePool
    sampler: Sampler | None
    rng: np.random.Generator
    indices: list[int]
    values: list[float]  # objective value, NaN for a failure

    @property
    def n_told(self) -> int:
        return len(self.indices)

    def tell(self, index: int, value: float | None) -> None:
        """Record the result of candidate ``index``: its objective value, or ``None``/NaN if it failed."""
        index = int(index)
        if self.pool.evaluated[index]:
            raise InputError(f"candidate {index} was already evaluated", where="tell",
                             hint="each configuration is evaluated once")
        self.pool.evaluated[index] = True
        self.indices.append(index)
        number = math.nan if value is None else float(value)
        self.values.append(number if math.isfinite(number) else math.nan)

    def open_candidates(self) -> np.ndarray:
        """The pool indices not evaluated yet; a pool that does not hold the whole space grows first when
        none is left (``sampler`` draws more valid configurations)."""
        open_ = np.flatnonzero(~self.pool.evaluated)
        if not len(open_) and not self.pool.complete and self.sampler is not None:
            self.pool.extend(self.sampler(self.rng, 1000))
            open_ = np.flatnonzero(~self.pool.evaluated)
        return open_


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
