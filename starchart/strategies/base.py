"""What every search strategy over a candidate pool shares: the results told, and the open candidates.

:class:`~starchart.strategies.engine.TreeGuidedOptimizer` and the simple strategies of
:mod:`~starchart.strategies.registry` keep their state the same way, so the search loop treats them alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from starchart.errors import InputError
from starchart.strategies.encoding import CandidatePool

Sampler = Callable[[np.random.Generator, int], np.ndarray]


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
