"""The ask/tell core of the tree-guided search (no evaluator, no store: codes in, codes out).

:class:`TreeGuidedOptimizer` proposes, one at a time, which candidate of a
:class:`~starchart.strategies.encoding.CandidatePool` to measure next, and
learns from each result. :func:`starchart.strategies.search` and the Kernel Tuner
strategy drive it.

How a proposal is made:

1. **Map first.** The first few proposals (``2√budget``, between 5 and 20) are
   uniform random draws, each the one of 64 draws farthest from those already
   chosen, so that the sample covers every parameter's range (a Starchart sample).
2. **Model.** Then the search fits an ensemble of Starchart trees (bootstrap
   resamples, random parameter subsets) to the log of the objective — ratios are
   what matter in tuning, and the log keeps one very slow configuration from
   dominating the fit — and a second ensemble to which configurations failed.
   It refits them after every result until 100 are told, then once the results
   since the last fit reach 2 % of all (every second result from 100, every
   eighth from 400: ``SearchOptions.refit_share``), so deciding costs about the
   same per evaluation at any budget (``benchmarks/search_cost.py``); between
   fits each configuration's prediction is kept and ranked against the best
   value so far.
   The trees may also split on the product of any two numeric parameters
   (:mod:`~starchart.strategies.features`): threads per block, tile areas.
3. **Expected improvement.** Each unmeasured candidate is scored by the expected
   improvement over the best value so far, from the trees' mean and spread
   (low-mean leaves and leaves few samples vouch for both score high), times the
   modelled chance that it does not fail.
4. **Refine.** Every second proposal only considers the configurations that
   differ from the best so far in one parameter (any of its values; two
   parameters once those are measured): tree splits cannot see the fine
   structure next to the optimum — a block size of 128 can be fast where 112
   and 144 are slow — so it is searched directly, still ranked by the model.
5. **Warm start** (optional). Given earlier measurements of the space (another
   GPU), the trees may also split on how fast a model of those ranks each
   configuration (:mod:`~starchart.strategies.prior`).
6. **Batches** (several workers). :meth:`TreeGuidedOptimizer.ask_batch` proposes
   several at once, telling the model the best value so far for each proposal
   before the next (a constant liar), so a batch spreads over the promising
   leaves and neighbours instead of crowding one predicted optimum.

Ties are broken by the seeded generator, so a search is a deterministic function
of its seed and of the values it is told.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from starchart.errors import InputError, arg
from starchart.strategies.base import CandidateStrategy, initial_draws
from starchart.strategies.encoding import CandidatePool
from starchart.strategies.features import ProductFeatures
from starchart.strategies.model import TreeEnsemble
from starchart.strategies.prior import PriorFeature
from starchart.strategies.static import CARVING_TABLE, StaticFeatures

__all__ = ["SearchOptions", "StaticGuidedOptimizer", "TreeGuidedOptimizer", "expected_improvement"]


@dataclass
class SearchOptions:
    """Settings of the tree-guided search; the defaults are meant for any space.

    Attributes
    ----------
    initial:
        Uniformly drawn configurations before the model decides; default
        ``2√budget`` clipped to 5…20 (10 when the budget is unknown).
    n_trees, feature_fraction, min_samples_split:
        The ensemble: trees, share of the parameters each may split on, smallest node split.
    local_every:
        Every this many model-guided proposals, one is restricted to the
        neighbours of the best configuration (0: never).
    local_top:
        How many of the best configurations' neighbourhoods that proposal considers.
    local_moves:
        What a neighbour may change: ``"any"`` value of one parameter (two once
        those are measured), or only one ``"step"`` up or down (any category).
    max_candidates:
        Candidates scored per proposal (a random subset when more are open).
    pair_products:
        Let the trees also split on the product of every pair of numeric parameters
        (:class:`~starchart.strategies.features.ProductFeatures`); off: the raw
        parameters only.
    refit_share:
        The models are refitted before a proposal once the results told since their last fit reach this
        share of all results told, rounded down, and at least one: with 0.02, after every result until 100
        are told, then every second, every third from 150, … In between, the proposals are ranked by the
        last fit's predictions, made once per configuration, against the best value so far. Fitting then
        costs about the same per proposal at any budget, and the search's decision cost grows linearly with
        the budget. 0: refit after every result.
    """

    initial: int | None = None
    n_trees: int = 16
    feature_fraction: float = 0.8
    min_samples_split: int = 2
    local_every: int = 2
    local_top: int = 1
    local_moves: str = "any"
    max_candidates: int = 20000
    pair_products: bool = True
    refit_share: float = 0.02


class TreeGuidedOptimizer(CandidateStrategy):
    """Propose configurations to measure with Starchart tree ensembles (ask / tell).

    Parameters
    ----------
    pool:
        The candidates (codes) and which are evaluated.
    seed:
        Seed of every random choice: equal seeds and equal results give equal proposals.
    minimize:
        Whether smaller objective values are better.
    budget:
        Evaluations planned in all (sizes the uniform exploration); ``None``: unknown.
    options:
        :class:`SearchOptions`.
    sampler:
        For a pool that does not hold the whole space: ``sampler(rng, n)`` returns
        codes of ``n`` uniformly drawn valid configurations.
    prior:
        Earlier measurements of the same space, ``(codes, objective values)``
        (valid ones only): the trees may split on their model's rank of a candidate.
    static:
        What the compiler says of each configuration (:class:`~starchart.strategies.static.StaticFeatures`):
        the trees may split on those metrics from the first model on, and the failure model too.
    """

    def __init__(self, pool: CandidatePool, *, seed: int | None = None, minimize: bool = True,
                 budget: int | None = None, options: SearchOptions | None = None,
                 sampler: Callable[[np.random.Generator, int], np.ndarray] | None = None,
                 prior: tuple[np.ndarray, np.ndarray] | None = None, static: StaticFeatures | None = None):
        self.pool = pool
        self.minimize = bool(minimize)
        self.budget = budget
        self.options = options or SearchOptions()
        self.sampler = sampler
        self.rng = np.random.default_rng(seed)
        self.indices: list[int] = []
        self.values: list[float] = []  # objective value, NaN for a failure
        enc = pool.encoding
        self._n_levels = enc.n_levels
        self._categorical = enc.categorical
        self._products = ProductFeatures.from_encoding(enc) if self.options.pair_products else ProductFeatures.none()
        self._feature_levels = self._products.n_levels(self._n_levels)
        self._feature_categorical = self._products.categorical(self._categorical)
        self._prior = None
        if prior is not None:
            codes, values = prior
            self._prior = PriorFeature.fit(enc, codes, self._transform(np.asarray(values, dtype=float)))
            self._feature_levels = np.append(self._feature_levels, len(self._prior.edges) + 1)
            self._feature_categorical = np.append(self._feature_categorical, False)
        self._static = static
        if static is not None:
            self._feature_levels = np.concatenate([self._feature_levels, static.levels])
            self._feature_categorical = np.concatenate([self._feature_categorical, np.zeros(len(static.names), bool)])
        self._feature_rows = np.empty((0, 0), dtype=np.int64)
        # the last fit's models and their scores per pool row (NaN: not predicted by them yet)
        self._model: TreeEnsemble | None = None
        self._fail: TreeEnsemble | None = None
        self._fit_at = 0
        self._mu = self._sigma = self._feasible = np.zeros(0)

    # ------------------------------------------------------------------ state
    @property
    def initial(self) -> int:
        """How many uniformly chosen configurations come before the model decides."""
        if self.options.initial is not None:
            return int(self.options.initial)
        return initial_draws(self.budget)

    # ------------------------------------------------------------------ asking
    def ask(self) -> int:
        """The pool index of the candidate to evaluate next."""
        open_ = self.open_candidates()
        if not len(open_):
            raise InputError("every configuration of the space has been evaluated", where="search",
                             hint="the budget is larger than the space")
        values = np.array(self.values)
        ok = np.isfinite(values)
        if not self.pool.complete and ok.any():
            self._grow(values, ok)
            open_ = np.flatnonzero(~self.pool.evaluated)
        if self.n_told < self.initial or ok.sum() < 2:
            return self._explore(open_)
        return self._exploit(open_, ok)

    def ask_batch(self, n: int) -> list[int]:
        """``n`` distinct candidates to evaluate at once (on parallel workers), each chosen as :meth:`ask`
        would with the ones before it in the batch told a stand-in value (a *constant liar*: the best value
        so far), so the batch spreads instead of proposing ``n`` neighbours of one predicted optimum.
        Tell every result afterwards, in the order asked, for a search that does not depend on which
        worker finished first.

        >>> from starchart.strategies.encoding import CandidatePool, Encoding
        >>> from starchart.space import Space
        >>> space = Space({"x": list(range(8)), "y": list(range(8))})
        >>> enc = Encoding.from_space(space)
        >>> optimizer = TreeGuidedOptimizer(CandidatePool(enc, enc.encode(space.to_frame())), seed=1, budget=16)
        >>> batch = optimizer.ask_batch(4)
        >>> len(set(batch)), optimizer.n_told
        (4, 0)
        """
        if n < 1:
            raise InputError(f"a batch holds at least one configuration, got {n}", where="ask_batch")
        told = self.n_told
        batch: list[int] = []
        try:
            for _ in range(n):
                if self.pool.evaluated.all() and (self.pool.complete or self.sampler is None):
                    break  # the space is smaller than the batch: the rest of it
                index = self.ask()
                batch.append(index)
                finite = [v for v in self.values if math.isfinite(v)]
                lie = (min(finite) if self.minimize else max(finite)) if finite else None
                self.tell(index, lie)
        finally:  # forget the stand-ins: only measured values are learnt
            for index in self.indices[told:]:
                self.pool.evaluated[index] = False
            del self.indices[told:], self.values[told:]
            if self._fit_at > told:  # models fitted to stand-ins are not kept
                self._model = None
        if not batch:
            raise InputError("every configuration of the space has been evaluated", where="search",
                             hint="the budget is larger than the space")
        return batch

    def _grow(self, values: np.ndarray, ok: np.ndarray, top: int = 3) -> None:
        """A sampled pool gains the valid neighbours of the best configurations, so refinement can reach them."""
        y = self._transform(values[ok])
        best = np.array(self.indices)[ok][np.argsort(y, kind="stable")[:top]]
        rows = [self.pool.encoding.neighbours(self.pool.codes[i]) for i in best]
        self.pool.extend(np.concatenate(rows))

    def _explore(self, open_: np.ndarray) -> int:
        if self.indices:  # maximin: the farthest of 64 random draws from what is chosen
            draw = self.rng.choice(open_, size=min(len(open_), 64), replace=False)
            done = self.pool.codes[self.indices]
            span = np.maximum(self._n_levels - 1, 1)
            diff = np.abs(self.pool.codes[draw][:, None, :] - done[None, :, :]) / span
            diff = np.where(self._categorical, diff > 0, diff)
            distance = diff.sum(axis=2).min(axis=1)
            return int(draw[int(np.argmax(distance))])
        return int(self.rng.choice(open_))

    def _transform(self, values: np.ndarray) -> np.ndarray:
        """Responses to minimise: log of positive values (ratios matter), sign-flipped to maximise."""
        y = np.log(values) if np.all(values > 0) else values.astype(float)
        return y if self.minimize else -y

    def _candidates(self, open_: np.ndarray) -> np.ndarray:
        limit = self.options.max_candidates
        if len(open_) <= limit:
            return open_
        return np.sort(self.rng.choice(open_, size=limit, replace=False))

    def _exploit(self, open_: np.ndarray, ok: np.ndarray) -> int:
        opts = self.options
        idx = np.array(self.indices)
        codes = self.pool.codes
        y = self._transform(np.array(self.values)[ok])
        # between fits, the last fit's candidates (those it scored) less what was measured since
        cand = None if self._refit_due() else open_[np.isfinite(self._padded_scores()[0][open_])]
        if cand is None or not len(cand):
            self._fit(idx, ok, y)
            cand = self._candidates(open_)
        every = opts.local_every
        if every and (self.n_told - self.initial) % every == every - 1:
            leaders = codes[idx[ok][np.argsort(y, kind="stable")[:opts.local_top]]]
            for radius in (1, 2):
                near = np.zeros(len(open_), dtype=bool)
                for leader in leaders:
                    near |= self._near(codes[open_], leader, radius)
                if near.any():
                    cand = open_[near]
                    break
        mu, sigma, feasible = self._scores(cand)
        score = expected_improvement(float(y.min()), mu, sigma) * feasible
        top = np.flatnonzero(score >= score.max() - 1e-12 * abs(score.max()))
        return int(cand[top[int(self.rng.integers(len(top)))]])

    def _refit_due(self) -> bool:
        """Whether to refit the models before this proposal: every time until the results told since the last
        fit reach ``refit_share`` of all told (so the fitting per proposal stays flat as the budget grows)."""
        if self._model is None:
            return True
        return self.n_told - self._fit_at >= max(1, int(self.options.refit_share * self.n_told))

    def _fit(self, idx: np.ndarray, ok: np.ndarray, y: np.ndarray) -> None:
        """Fit the objective's ensemble (and the failure model, when something failed) to every result told;
        forget the scores of the models before."""
        opts = self.options
        features = self._features()
        self._model = TreeEnsemble(opts.n_trees, opts.feature_fraction, opts.min_samples_split)
        self._model.fit(features[idx[ok]], y, self._feature_levels, self._feature_categorical, self.rng)
        self._fail = None
        if not ok.all():
            rows, levels, categorical = self._failure_rows(idx)
            self._fail = TreeEnsemble(opts.n_trees, opts.feature_fraction, opts.min_samples_split)
            self._fail.fit(rows, (~ok).astype(float), levels, categorical, self.rng)
        self._fit_at = self.n_told
        self._mu = np.full(len(self.pool), np.nan)
        self._sigma = np.full(len(self.pool), np.nan)
        self._feasible = np.full(len(self.pool), np.nan)

    def _failure_rows(self, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the failure model sees of pool rows ``indices``, with its features' levels and kinds: the value
        codes, or, told what the compiler says (no binary, no room for a block), every feature of the model."""
        if self._static is None:
            return self.pool.codes[indices], self._n_levels, self._categorical
        return self._features()[indices], self._feature_levels, self._feature_categorical

    def _padded_scores(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The scores per pool row, NaN for the rows the pool gained since the last fit (a sampled pool grows)."""
        grown = len(self.pool) - len(self._mu)
        if grown > 0:
            self._mu, self._sigma, self._feasible = (np.append(a, np.full(grown, np.nan))
                                                     for a in (self._mu, self._sigma, self._feasible))
        return self._mu, self._sigma, self._feasible

    def _scores(self, cand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The models' mean, spread and chance of running for the candidates ``cand``, each pool row predicted
        once per fit (rows the pool gained since the fit are predicted when first asked about)."""
        self._padded_scores()
        fresh = cand[np.isnan(self._mu[cand])]
        if len(fresh):
            assert self._model is not None
            features = self._features()
            pred = self._model.predict_all(features[fresh])
            self._mu[fresh] = pred.mean(axis=0)
            self._sigma[fresh] = np.maximum(pred.std(axis=0), 1e-9)
            failing = 0.0 if self._fail is None else self._fail.predict_all(self._failure_rows(fresh)[0]).mean(axis=0)
            self._feasible[fresh] = 1.0 - failing
        return self._mu[cand], self._sigma[cand], self._feasible[cand]

    def _features(self) -> np.ndarray:
        """The model's features of every pool row (codes, pair products, prior band, static metrics), extended
        as the pool grows."""
        done = len(self._feature_rows)
        if done < len(self.pool):
            fresh = self._products.features(self.pool.codes[done:])
            if self._prior is not None:
                fresh = np.column_stack([fresh, self._prior.bands(self.pool.codes[done:])])
            if self._static is not None:
                fresh = np.column_stack([fresh, self._static.features(self.pool.codes[done:])])
            self._feature_rows = fresh if not done else np.concatenate([self._feature_rows, fresh])
        return self._feature_rows

    def _near(self, rows: np.ndarray, centre: np.ndarray, radius: int) -> np.ndarray:
        """Rows that differ from ``centre`` in at most ``radius`` parameters (by one step, for ``"step"`` moves)."""
        diff = np.abs(rows - centre)
        if self.options.local_moves == "any":
            return (diff > 0).sum(axis=1) <= radius
        step_ok = np.where(self._categorical, True, diff <= 1)
        return step_ok.all(axis=1) & ((diff > 0).sum(axis=1) <= radius)


class StaticGuidedOptimizer(TreeGuidedOptimizer):
    """The tree-guided search told what the compiler says: the ``static`` strategy.

    Its trees (and its failure model) may split on each configuration's static metrics from the first model
    on, and its initial design is drawn among the configurations carving kept, while any are open (all of the
    space when the table does not say which were kept). Everything else is the ``tree`` strategy's.

    Parameters
    ----------
    static:
        :class:`~starchart.strategies.static.StaticFeatures` of the space (required).
    pool, seed, minimize, budget, options, sampler, prior:
        As for :class:`TreeGuidedOptimizer`.

    Examples
    --------
    >>> import pandas as pd
    >>> from starchart.space import Space
    >>> from starchart.strategies.encoding import CandidatePool, Encoding
    >>> from starchart.strategies.static import CARVING_TABLE, StaticFeatures
    >>> space = Space({"x": list(range(10))})
    >>> enc = Encoding.from_space(space)
    >>> table = pd.DataFrame({"x": range(10), "registers": [40] * 5 + [96] * 5,
    ...                       "carved_by": ["dominated"] * 8 + ["", ""]})
    >>> static = StaticFeatures.from_table(enc, table)
    >>> optimizer = StaticGuidedOptimizer(CandidatePool(enc, enc.encode(space.to_frame())), seed=0, static=static)
    >>> sorted(enc.decode(optimizer.pool.codes[optimizer.ask_batch(2)])[i]["x"] for i in range(2))
    [8, 9]
    """

    name = "static"

    def __init__(self, pool: CandidatePool, *, static: StaticFeatures | None = None, **kwargs: Any) -> None:
        if static is None:
            raise InputError("the 'static' strategy needs the static metrics of the space", where="strategy",
                             hint=f"give {arg('static', '...')}: {CARVING_TABLE}; or use the 'tree' strategy")
        super().__init__(pool, static=static, **kwargs)
        self._survives = np.zeros(0, dtype=bool)

    def _explore(self, open_: np.ndarray) -> int:
        kept = self._survivor_mask()[open_]
        return super()._explore(open_[kept] if kept.any() else open_)

    def _survivor_mask(self) -> np.ndarray:
        """Which pool rows carving kept, extended as the pool grows."""
        done = len(self._survives)
        if done < len(self.pool):
            assert self._static is not None
            self._survives = np.concatenate([self._survives, self._static.survivors(self.pool.codes[done:])])
        return self._survives


@njit(cache=True)
def expected_improvement(best: float, mu: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """E[max(best − Y, 0)] for Y ~ N(mu, sigma²), elementwise (minimisation)."""
    out = np.empty(mu.shape[0])
    for i in range(mu.shape[0]):
        gap = best - mu[i]
        z = gap / sigma[i]
        cdf = 0.5 * math.erfc(-z / math.sqrt(2.0))
        pdf = math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
        out[i] = gap * cdf + sigma[i] * pdf
    return out

