"""Warm start: what earlier measurements of the same space (another GPU, another input) say.

Tuning a kernel on a new GPU rarely starts from nothing: the same space was
often measured on another one. :class:`PriorFeature` turns those measurements
into one more feature the search's trees may split on — the configuration's
rank under a tree model of the earlier data, in :data:`PRIOR_BINS` bands (the
fastest eighth, the next eighth, …). Where the two platforms agree the trees
split on it early and the search goes straight to the right region; where they
disagree the trees simply do not use it. The band is deliberately coarse and the
earlier best configurations are *not* measured first: on the convolution data a
prior that pinpoints another GPU's optimum traps the search in that GPU's basin
(``benchmarks/search_prior.py``).

Examples
--------
>>> import numpy as np
>>> from starchart.strategies.encoding import Encoding
>>> enc = Encoding.from_tune_params({"x": list(range(16))})
>>> codes = np.arange(16).reshape(-1, 1)
>>> prior = PriorFeature.fit(enc, codes, np.abs(np.arange(16) - 5.0))
>>> prior.bands(np.array([[5], [15]])).tolist()   # x=5 was fastest before, x=15 slowest
[0, 7]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from starchart._util.configs import plain_value
from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.io.load import load
from starchart.strategies.encoding import Encoding
from starchart.strategies.model import TreeEnsemble

__all__ = ["PRIOR_BINS", "PriorFeature", "prior_dataset", "prior_measurements"]

PRIOR_BINS = 8
"""Bands of the prior rank: coarse on purpose (finer bands trap the search in the other platform's optimum)."""

MIN_PRIOR_ROWS = 10
"""Fewest usable earlier measurements for a prior (fewer say nothing a uniform sample would not)."""


@dataclass
class PriorFeature:
    """A tree model of earlier measurements; :meth:`bands` codes configurations by predicted rank.

    Attributes
    ----------
    model:
        One Starchart tree (an ensemble of one, on every row and parameter) fitted to the
        earlier responses (smaller is better).
    edges:
        The band boundaries: quantiles of the model's predictions for the earlier configurations.
    """

    model: TreeEnsemble
    edges: np.ndarray

    @classmethod
    def fit(cls, encoding: Encoding, codes: np.ndarray, response: np.ndarray) -> PriorFeature:
        """Fit to earlier configurations ``codes`` and their ``response`` (smaller is better)."""
        # one tree on all rows and parameters: with nothing drawn at random, more would be copies
        model = TreeEnsemble(n_trees=1, feature_fraction=1.0, bootstrap=False)
        model.fit(codes, np.asarray(response, dtype=float), encoding.n_levels, encoding.categorical,
                  np.random.default_rng(0))
        predicted = model.predict_all(codes).mean(axis=0)
        edges = np.quantile(predicted, np.arange(1, PRIOR_BINS) / PRIOR_BINS)
        return cls(model, edges)

    def bands(self, codes: np.ndarray) -> np.ndarray:
        """Band ``0 … PRIOR_BINS − 1`` of each row of ``codes``: which eighth of the earlier
        configurations its predicted value ranks in (0: the fastest)."""
        predicted = self.model.predict_all(codes).mean(axis=0)
        return np.searchsorted(self.edges, predicted, side="left").astype(np.int64)


def prior_dataset(prior: Dataset | str | Path) -> Dataset:
    """The prior as a :class:`~starchart.Dataset`, read with :func:`starchart.load` when given a path."""
    if isinstance(prior, Dataset):
        return prior
    if isinstance(prior, (str, Path)):

        return load(prior)
    raise InputError(f"prior must be a Dataset or a file path, got {type(prior).__name__}", where="prior",
                     hint="e.g. prior=starchart.load('A4000.json.gz')")


def prior_measurements(prior: Dataset, encoding: Encoding, objective: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes and ``objective`` values of the valid configurations of ``prior`` whose values the
    space's ``encoding`` lists (its restrictions are not checked: a prior only ranks).

    Raises :class:`~starchart.errors.InputError` when ``prior`` lacks one of the
    space's parameters or the objective, or when fewer than :data:`MIN_PRIOR_ROWS`
    of its configurations are valid and inside the space.
    """
    source = prior.meta.get("source", "the prior dataset")
    missing = [name for name in encoding.names if name not in prior.params]
    if missing:
        raise InputError(f"the prior lacks the parameter(s) {', '.join(missing)}", where=str(source),
                         hint="give measurements of the same tuning space (same parameter names)")
    if objective not in prior.metrics:
        raise InputError(f"the prior has no metric {objective!r} (the search's objective)", where=str(source),
                         hint=f"its metrics are: {', '.join(prior.metrics) or 'none'}")
    ok = prior.ok()
    values = ok.y(objective)
    frame = ok.X[list(encoding.names)]
    inside = np.array([_known(frame[name], encoding.values[j]) for j, name in enumerate(encoding.names)]).all(axis=0) \
        if len(frame) else np.zeros(0, dtype=bool)
    keep = inside & np.isfinite(values)
    if keep.sum() < MIN_PRIOR_ROWS:
        # a parameter none of whose values match (another spelling, other units) explains it, and is what to fix
        unmatched = [j for j, name in enumerate(encoding.names) if len(frame) and not _known(
            frame[name], encoding.values[j]).any()]
        detail, hint = "", "measure more of the space on the other platform, or search without a prior"
        if unmatched:
            j = unmatched[0]
            name = encoding.names[j]
            detail = (f": none of its values of {name} ({_listing(frame[name].tolist())}) is one of the "
                      f"space's values ({_listing(encoding.values[j])})")
            hint = "give measurements of the same space, with the values spelt as the space spells them " \
                   "(same units, numbers not strings)"
        raise InputError(f"only {int(keep.sum())} valid configurations of the prior lie in the space "
                         f"(at least {MIN_PRIOR_ROWS} are needed){detail}", where=str(source), hint=hint)
    return encoding.encode(frame[keep]), values[keep]


def _listing(values: Any, shown: int = 5) -> str:
    """The first few distinct ``values``, for a message."""
    distinct = list(dict.fromkeys(plain_value(v) for v in values))
    return ", ".join(map(repr, distinct[:shown])) + (", …" if len(distinct) > shown else "")


def _known(column: pd.Series, values: Any) -> np.ndarray:
    """Whether each entry of ``column`` is one of the parameter's ``values``."""
    listed = pd.Index(list(values), dtype=object, tupleize_cols=False)
    entries = pd.Index([plain_value(v) for v in column.tolist()], dtype=object, tupleize_cols=False)
    return listed.get_indexer(entries) >= 0
