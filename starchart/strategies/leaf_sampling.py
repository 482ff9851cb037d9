"""Iterative sampling inside the best leaf: the loop of the paper's follow-up (TACO), as a search strategy.

The Starchart paper's authors followed it with iterative sampling: measure a small uniform sample, fit the
tree, then measure more designs inside the subspace it says is best, fit again, and so on, so that the
measurements gather where the good designs are. :class:`LeafSampling` does exactly that, one design per
proposal: after a uniform start as large as the tree-guided search's, each proposal refits one Starchart tree
to every valid result and draws uniformly among the unmeasured designs of its best leaf (the lowest mean when
minimising; when that leaf has nothing left, the next best). Registered as the ``leaf`` strategy, so it is
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
([13.6, 4.1], 0.0)
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from starchart.strategies.base import PoolStrategy
from starchart.tree import StarchartTree

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
        return 10 if self.budget is None else int(min(max(round(2 * math.sqrt(self.budget)), 5), 20))

    def choose(self, open_: np.ndarray) -> int:
        values = np.array(self.values, dtype=float)
        ok = np.isfinite(values)
        if len(self.indices) < self.initial or ok.sum() < 2:
            return int(self.rng.choice(open_))
        y = values[ok] if self.minimize else -values[ok]
        tree = StarchartTree(min_samples_split=self.MIN_SAMPLES_SPLIT).fit(
            self._frame(np.array(self.indices)[ok]), y)
        leaf_of = tree.apply(self._frame(open_))
        for leaf in sorted(tree.leaves_, key=lambda region: region.mean):  # the best leaf first
            inside = open_[leaf_of == leaf.node_id]
            if len(inside):
                return int(self.rng.choice(inside))
        return int(self.rng.choice(open_))  # unreachable: every open design lies in some leaf

    def _frame(self, indices: np.ndarray) -> pd.DataFrame:
        """The candidates as the tree sees them: value codes, in order, and categories by name."""
        enc = self.pool.encoding
        codes = self.pool.codes[indices]
        columns: dict[str, Any] = {}
        for j, name in enumerate(enc.names):
            columns[name] = ([f"v{c}" for c in codes[:, j]] if enc.categorical[j] else codes[:, j])
        return pd.DataFrame(columns)
