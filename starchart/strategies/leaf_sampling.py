"""Iterative sampling inside the best leaf: the loop of the paper's follow-up (TACO), as a search strategy.

The Starchart paper's authors followed it with iterative sampling: measure a small uniform sample, fit the
tree, then measure more designs inside the subspace it says is best, fit again, and so on, so that the
measurements gather where the good designs are. :class:`LeafSampling` does exactly that, one design per
proposal: after a uniform start as large as the tree-guided search's, each proposal refits one Starchart tree
to every valid result and draws uniformly among the unmeasured designs of its best leaf (the lowest mean when
minimising; when that leaf has nothing left, the next best). The tree is the search's compiled one on value
codes (:class:`~starchart.strategies.model.CodeTree`), so a proposal costs about a millisecond. Registered as the ``leaf`` strategy, so it is
stored, resumable and measured like the others (``benchmarks/search.py`` compares it with uniform sampling and
the tree-guided search).

Examples
--------
>>> from starchart.space import Space
>>> from starchart.strategies.encoding import CandidatePool, Encoding
>>> space = Space({"x": list(range(30)), "y": list(range(20))})
>>> enc = Encoding.from_space(space)
>>> strategy = LeafSampling(CandidatePool(enc, enc.encode(space.to_frame())), seed=0, budget=60)
>>> for _ in range(60):
...     index = strategy.ask()
...     c = enc.decode(strategy.pool.codes[index])[0]
...     strategy.tell(index, abs(c["x"] - 21) + 0.7 * abs(c["y"] - 7))
>>> # mean distance from the optimum (21, 7) of the first ten draws (uniform) and of the last ten (in the leaf)
>>> [round(sum(strategy.values[k:k + 10]) / 10, 1) for k in (0, 50)], min(strategy.values)
([13.6, 3.9], 0.0)
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from starchart.strategies.base import PoolStrategy, initial_draws
from starchart.strategies.model import CodeTree

__all__ = ["LeafSampling"]


class LeafSampling(PoolStrategy):
    """Uniform draws inside the best leaf of a Starchart tree refitted after every result (TACO's loop).

    Parameters
    ----------
    pool, seed, minimize, budget, sampler:
        As for every strategy (:class:`~starchart.strategies.base.PoolStrategy`).
    """

    name: ClassVar[str] = "leaf"

    #: The tree's smallest node split (the R tool's default): a leaf is a region that ten designs vouch for.
    MIN_SAMPLES_SPLIT = 10

    @property
    def initial(self) -> int:
        """Uniform draws before the first tree: as many as the tree-guided search makes (2√budget, 5 … 20)."""
        return initial_draws(self.budget)

    def choose(self, open_: np.ndarray) -> int:
        values = np.array(self.values, dtype=float)
        ok = np.isfinite(values)
        if len(self.indices) < self.initial or ok.sum() < 2:
            return int(self.rng.choice(open_))
        y = values[ok] if self.minimize else -values[ok]
        enc = self.pool.encoding
        tree = CodeTree.fit(self.pool.codes[np.array(self.indices)[ok]], y, enc.n_levels, enc.categorical,
                            min_samples_split=self.MIN_SAMPLES_SPLIT)
        # each open design's leaf mean: the best leaf that still holds an open design has the smallest
        mean = tree.value[tree.apply(self.pool.codes[open_])]
        return int(self.rng.choice(open_[mean <= mean.min()]))
