"""Continuous static features: the values themselves, scales that span decades taken as logs.

The thesis keeps only the *level* of each static feature (:mod:`~starchart.xapp.discretize`),
because a static estimate is imprecise. On the starchart corpus that erases the signal: 42
kernels fall into 32 distinct binary vectors, and kernels whose speedups differ 200-fold
share one (see ``docs/xapp.md``). :class:`ContinuousEncoder` keeps the values, so a tree can
cut parallelism at 16 threads where a median-based level cannot.

Features that count things (``ksize``, ``parallelism``, ``arith_intensity``, ``host_steps``)
span up to eight decades; they are encoded as ``log10(1 + x)``, so a split falls between
orders of magnitude rather than inside the largest one. Shares (``coalesced``, ``muldiv``, …)
stay as they are. Trees are invariant to monotone transforms, so the log matters for the
linear models and for where an explanation tree's thresholds read naturally, not for a
forest's answers.

Examples
--------
>>> import pandas as pd
>>> enc = ContinuousEncoder(features=("parallelism", "coalesced")).fit(
...     pd.DataFrame({"parallelism": [9, 999], "coalesced": [0.5, 1.0]}))
>>> enc.transform({"parallelism": 99, "coalesced": 0.25}).round(3).values.tolist()
[[2.0, 0.25]]
>>> enc.raw("parallelism", 2.0)
99.0
>>> enc.level_text("parallelism", 2.0)
'99'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, NotFittedError
from .discretize import FEATURES, Discretizer, as_feature_frame

#: The extra static feature: iterations of the loops around the parallel band (kernel launches).
HOST_FEATURE = "host_steps"
#: The thesis's 10 static features and the host-side count.
EXTENDED_FEATURES: tuple[str, ...] = FEATURES + (HOST_FEATURE,)
#: Counts that span decades: encoded as ``log10(1 + x)``.
LOG_SCALED = frozenset({"ksize", "parallelism", "arith_intensity", HOST_FEATURE})
#: The ``levels`` value that asks a model for continuous features instead of levels.
CONTINUOUS = "continuous"
_KIND = "continuous"


class ContinuousEncoder:
    """Feature values as a model reads them: ``log10(1 + x)`` for counts, shares unchanged.

    Parameters
    ----------
    features:
        The feature columns, in the order models use them.
    """

    kind = _KIND

    def __init__(self, features: Sequence[str] = FEATURES):
        self.features = tuple(features)
        self.fitted_ = False

    def fit(self, features: Any) -> ContinuousEncoder:
        """Check the training features (nothing is learned: the encoding is fixed)."""
        frame = as_feature_frame(features, self.features)
        negative = frame[[c for c in self.features if c in LOG_SCALED]].lt(0).any()
        if negative.any():
            raise InputError(f"feature {negative.idxmax()!r} is negative; it is a count", where="features",
                             hint="re-extract the features of that kernel")
        self.fitted_ = True
        return self

    @property
    def cuts_(self) -> dict[str, tuple[float, ...]]:
        """No cut points: every value is kept (``{}``, for code written for levels)."""
        return {}

    def transform(self, features: Any) -> pd.DataFrame:
        """The encoded values, one row per kernel, columns :attr:`features`."""
        if not self.fitted_:
            raise NotFittedError("this ContinuousEncoder has not been fitted", hint="call fit(features) first")
        frame = as_feature_frame(features, self.features)
        for col in self.features:
            if col in LOG_SCALED:
                frame[col] = np.log10(1.0 + frame[col].clip(lower=0.0))
        return frame

    def fit_transform(self, features: Any) -> pd.DataFrame:
        """:meth:`fit`, then :meth:`transform` of the same rows."""
        return self.fit(features).transform(features)

    def raw(self, name: str, value: float) -> float:
        """The feature's own value for an encoded one (the inverse of :meth:`transform`)."""
        return float(10.0 ** value - 1.0) if name in LOG_SCALED else float(value)

    def level_text(self, name: str, value: float) -> str:
        """The feature's own value of an encoded one, as text."""
        return f"{self.raw(name, value):.4g}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings."""
        return {"kind": _KIND, "features": list(self.features)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "encoder") -> ContinuousEncoder:
        """The encoder saved by :meth:`to_dict` (already fitted: there is nothing to learn)."""
        if not isinstance(data, Mapping) or data.get("kind") != _KIND:
            raise InputError("not a saved ContinuousEncoder", where=where)
        encoder = cls(data.get("features", FEATURES))
        encoder.fitted_ = True
        return encoder

    def __repr__(self) -> str:
        return f"ContinuousEncoder(features={self.features!r})"


#: Vectors sampled (besides the training kernels) to explain a model on continuous features.
EXPLAIN_SAMPLES = 20_000


def explanation_vectors(encoded: np.ndarray, seed: int, n: int = EXPLAIN_SAMPLES) -> np.ndarray:
    """The training rows and ``n`` more, each feature drawn independently from its training values.

    Values have no finite product of levels to enumerate, so a one-tree explanation of a
    continuous model is fitted over this sample of the same "every combination" idea.

    >>> explanation_vectors(np.array([[1.0, 5.0], [2.0, 6.0]]), seed=0, n=3).shape
    (5, 2)
    """
    rng = np.random.default_rng(seed)
    samples = np.column_stack([rng.choice(encoded[:, j], size=n) for j in range(encoded.shape[1])])
    return np.vstack([encoded, samples])


def make_encoder(levels: Any, features: Sequence[str]) -> Discretizer | ContinuousEncoder:
    """The encoder a model's ``levels`` asks for: ``"continuous"``, or a :class:`Discretizer`.

    >>> type(make_encoder("continuous", FEATURES)).__name__, type(make_encoder(2, FEATURES)).__name__
    ('ContinuousEncoder', 'Discretizer')
    """
    if isinstance(levels, str) and levels == CONTINUOUS:
        return ContinuousEncoder(features)
    return Discretizer(levels, features=features)


def encoder_from_dict(data: Mapping[str, Any], where: str) -> Discretizer | ContinuousEncoder:
    """An encoder saved by either class's ``to_dict``."""
    if isinstance(data, Mapping) and data.get("kind") == _KIND:
        return ContinuousEncoder.from_dict(data, where)
    return Discretizer.from_dict(data, where=where)
