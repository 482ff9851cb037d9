"""Equal-frequency discretisation of static XAPP features into 2 or 3 levels.

Static features are estimated without running the program, so their exact values are
imprecise; the thesis (§4.3.2) keeps only their *level* — low/high, or low/medium/high —
with cut points learned from the training kernels by equal-frequency binning: ``k``
levels get ``k - 1`` cut points chosen so that each level holds about the same number
of training kernels.

Rules (all learned by :meth:`Discretizer.fit` from the training data):

- A value ``x`` gets level ``j`` = the number of cut points strictly below it, so a
  value equal to a cut point falls in the lower level (``x <= cut`` is "low").
- Cut points are training values: each cut is the largest training value of its lower
  level.  A feature that is 0 for most kernels therefore gets the cut 0, i.e. "high"
  means "present at all" (the thesis reads its sin/cos level that way, §6.2.5).
- Ties: a cut can only fall *between* distinct values, never inside a run of equal
  values (``pandas.qcut(..., duplicates="drop")`` would either fail or leave a level
  empty there).  For level boundary ``i`` the cut whose cumulative count is nearest to
  ``i * n / k`` is taken (the lower one on a tie), keeping cuts increasing.
- A feature with fewer distinct training values than requested levels gets one level
  per distinct value; a constant feature gets a single level (it cannot split anything).
- ``levels`` per feature: an int (2 or 3) for all, a dict ``{feature: 2 or 3}``, or
  ``"auto"``: 3 levels where each of the 3 would hold at least ``min_per_level``
  training kernels, otherwise 2.  The thesis's models use 2 levels for every feature
  (its "program space" is 2^10 = 1024 feature vectors, §4.3.1, §6.2.5), hence the
  default 2; it leaves the 2-vs-3 choice unstated, so ``"auto"`` is this toolkit's rule.

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"sincos": [0, 0, 0, 0.1, 0.3], "coalesced": [0.1, 0.2, 0.5, 0.9, 1.0]})
>>> d = Discretizer(levels=2, features=("sincos", "coalesced")).fit(df)
>>> d.cuts_
{'sincos': (0.0,), 'coalesced': (0.2,)}
>>> d.transform(df)["sincos"].tolist()
[0, 0, 0, 1, 1]
>>> Discretizer.from_json(d.to_json()).cuts_ == d.cuts_
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, NotFittedError, arg

#: The 10 static XAPP features (thesis Table 4.1 / §4.2), in the order models use them.
FEATURES: tuple[str, ...] = (
    "coalesced", "divergent", "ksize", "parallelism", "arith_intensity",
    "ctrl_intensity", "muldiv", "sincos", "logexp", "sqrt",
)

#: Names of the levels of a feature with 1, 2 or 3 levels.
LEVEL_NAMES: dict[int, tuple[str, ...]] = {1: ("any",), 2: ("L", "H"), 3: ("L", "M", "H")}

_FORMAT = "starchart.xapp.Discretizer"


def as_feature_frame(features: Any, columns: Sequence[str] = FEATURES,
                     where: str = "features") -> pd.DataFrame:
    """Check feature vectors and return them as a float DataFrame with ``columns``.

    Accepts a DataFrame (one row per kernel; other columns are ignored), one feature
    dict (one kernel) or a list of dicts.

    Raises
    ------
    InputError
        Naming the missing column, or the kernel and column of a value that is not a
        finite number.

    Examples
    --------
    >>> as_feature_frame({"a": 1, "b": 2.5}, columns=("a", "b")).values.tolist()
    [[1.0, 2.5]]
    >>> as_feature_frame({"a": 1}, columns=("a", "b"))
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: features: missing feature column(s) 'b' (hint: give every one of: a, b)
    """
    if isinstance(features, pd.Series):
        features = features.to_dict()
    if isinstance(features, Mapping):
        frame = pd.DataFrame([dict(features)])
    elif isinstance(features, pd.DataFrame):
        frame = features
    elif isinstance(features, Sequence) and not isinstance(features, str | bytes):
        if not all(isinstance(row, Mapping) for row in features):
            raise InputError("a list of feature vectors must hold dicts", where=where,
                             hint="pass a DataFrame, one dict, or a list of dicts")
        frame = pd.DataFrame([dict(row) for row in features])
    else:
        raise InputError(f"cannot read feature vectors from a {type(features).__name__}", where=where,
                         hint="pass a DataFrame, one dict, or a list of dicts")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"missing feature column(s) {', '.join(map(repr, missing))}", where=where,
                         hint=f"give every one of: {', '.join(columns)}")
    if len(frame) == 0:
        raise InputError("no feature vectors (0 rows)", where=where, hint="give at least one kernel")
    out = pd.DataFrame(index=frame.index)
    for col in columns:
        values = pd.to_numeric(frame[col], errors="coerce").astype(float)
        bad = ~np.isfinite(values.to_numpy())
        if bad.any():
            row = frame.index[np.argmax(bad)]
            raise InputError(f"feature {col!r} of kernel {row!r} is {frame[col].loc[row]!r}, not a finite number",
                             where=where, hint="re-extract the features of that kernel or drop it")
        out[col] = values
    return out


def _equal_frequency_cuts(values: np.ndarray, k: int) -> tuple[float, ...]:
    """Up to ``k - 1`` cut points between distinct values, levels as equal in size as ties allow."""
    distinct, counts = np.unique(values, return_counts=True)
    k = min(k, len(distinct))
    if k <= 1:
        return ()
    below = np.cumsum(counts)[:-1]  # kernels at or below distinct[j], for each possible cut j
    n, chosen = len(values), []
    for i in range(1, k):
        # leave room for the cuts still to come; never reuse or go below the previous cut
        lo = chosen[-1] + 1 if chosen else 0
        hi = len(below) - (k - 1 - i)
        j = lo + int(np.argmin(np.abs(below[lo:hi] - i * n / k)))
        chosen.append(j)
    return tuple(float(distinct[j]) for j in chosen)


class Discretizer:
    """Learns equal-frequency cut points per feature and maps values to levels 0..k-1.

    Parameters
    ----------
    levels:
        2 or 3 for every feature, a dict ``{feature: 2 or 3}`` (features not named get
        2), or ``"auto"`` (3 levels where each would hold ``min_per_level`` training
        kernels, else 2).
    features:
        The feature columns, by default the 10 static XAPP features.
    min_per_level:
        Used by ``levels="auto"`` only.

    Attributes
    ----------
    cuts_:
        ``{feature: (cut, ...)}`` after :meth:`fit`; ``len(cuts) + 1`` levels.
    """

    def __init__(self, levels: int | str | Mapping[str, int] = 2, *,
                 features: Sequence[str] = FEATURES, min_per_level: int = 5):
        self.features = tuple(features)
        if not self.features or len(set(self.features)) != len(self.features):
            raise InputError(f"features must be distinct names, got {self.features!r}", where="features")
        self.levels = levels
        self.min_per_level = int(min_per_level)
        self._requested = self._check_levels(levels)
        self.cuts_: dict[str, tuple[float, ...]] | None = None

    def _check_levels(self, levels: Any) -> dict[str, int | str]:
        if isinstance(levels, str):
            if levels != "auto":
                raise InputError(f"{arg('levels', repr(levels))} is not understood", where="levels",
                                 hint='use 2, 3, a dict {feature: 2 or 3}, or "auto"')
            return {f: "auto" for f in self.features}
        if isinstance(levels, Mapping):
            unknown = sorted(set(levels) - set(self.features))
            if unknown:
                raise InputError(f"levels names unknown feature(s) {unknown}", where="levels",
                                 hint=f"features are: {', '.join(self.features)}")
            requested: dict[str, int | str] = {f: levels.get(f, 2) for f in self.features}
        else:
            requested = {f: levels for f in self.features}
        for name, k in requested.items():
            if isinstance(k, bool) or not isinstance(k, int | np.integer) or k not in (2, 3):
                raise InputError(f"levels for {name!r} is {k!r}; static XAPP uses 2 or 3 levels",
                                 where="levels", hint="use 2 or 3")
        return {f: int(k) for f, k in requested.items()}

    def fit(self, features: Any) -> Discretizer:
        """Learn the cut points from training feature vectors (DataFrame or dicts)."""
        frame = as_feature_frame(features, self.features)
        cuts = {}
        for name in self.features:
            values = frame[name].to_numpy()
            k = self._requested[name]
            if k == "auto":
                three = _equal_frequency_cuts(values, 3)
                sizes = np.bincount(np.searchsorted(three, values, side="left"), minlength=len(three) + 1)
                k = 3 if len(three) == 2 and sizes.min() >= self.min_per_level else 2
            cuts[name] = _equal_frequency_cuts(values, int(k))
        self.cuts_ = cuts
        return self

    def _fitted(self) -> dict[str, tuple[float, ...]]:
        if self.cuts_ is None:
            raise NotFittedError("this Discretizer has not been fitted", hint="call fit(features) first")
        return self.cuts_

    def transform(self, features: Any) -> pd.DataFrame:
        """Levels (ints 0..k-1) of each feature, same index as the input."""
        cuts = self._fitted()
        frame = as_feature_frame(features, self.features)
        return pd.DataFrame({name: np.searchsorted(np.asarray(cuts[name], dtype=float), frame[name].to_numpy(),
                                                   side="left").astype(np.int64)
                             for name in self.features}, index=frame.index)

    def fit_transform(self, features: Any) -> pd.DataFrame:
        """:meth:`fit` then :meth:`transform` on the same data."""
        return self.fit(features).transform(features)

    def n_levels(self, name: str) -> int:
        """Number of levels of feature ``name`` (1 for a constant training feature)."""
        return len(self._fitted()[name]) + 1

    def level_names(self, name: str) -> tuple[str, ...]:
        """``("L", "H")``, ``("L", "M", "H")`` or ``("any",)`` for feature ``name``."""
        return LEVEL_NAMES[self.n_levels(name)]

    def level_text(self, name: str, level: int) -> str:
        """A level as words and raw values, e.g. ``"H (> 0.5)"``.

        Examples
        --------
        >>> d = Discretizer(features=("x",)).fit(pd.DataFrame({"x": [0.0, 0.5, 1.0, 2.0]}))
        >>> d.level_text("x", 0), d.level_text("x", 1)
        ('L (<= 0.5)', 'H (> 0.5)')
        """
        cuts = self._fitted()[name]
        label = LEVEL_NAMES[len(cuts) + 1][level]
        if not cuts:
            return label
        if level == 0:
            return f"{label} (<= {cuts[0]:.4g})"
        if level == len(cuts):
            return f"{label} (> {cuts[-1]:.4g})"
        return f"{label} ({cuts[level - 1]:.4g} .. {cuts[level]:.4g}]"

    def describe(self, features: Any | None = None) -> pd.DataFrame:
        """One row per feature: number of levels, cut points, and (given data) kernels per level."""
        cuts = self._fitted()
        rows = []
        for name in self.features:
            row: dict[str, Any] = {"feature": name, "levels": len(cuts[name]) + 1, "cuts": cuts[name]}
            rows.append(row)
        table = pd.DataFrame(rows).set_index("feature")
        if features is not None:
            levels = self.transform(features)
            table["per_level"] = [tuple(np.bincount(levels[n], minlength=self.n_levels(n)).tolist())
                                  for n in self.features]
        return table

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the settings and the learned cut points."""
        levels = self.levels if isinstance(self.levels, int | str) else dict(self.levels)
        return {"format": _FORMAT, "version": 1, "features": list(self.features), "levels": levels,
                "min_per_level": self.min_per_level,
                "cuts": None if self.cuts_ is None else {k: list(v) for k, v in self.cuts_.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "discretizer") -> Discretizer:
        """Inverse of :meth:`to_dict`."""
        if not isinstance(data, Mapping) or data.get("format") != _FORMAT:
            raise InputError("not a saved Discretizer (missing format tag)", where=where,
                             hint="pass the output of Discretizer.to_json()")
        try:
            out = cls(data["levels"], features=data["features"], min_per_level=data["min_per_level"])
            cuts = data["cuts"]
            if cuts is not None:
                out.cuts_ = {name: tuple(float(c) for c in cuts[name]) for name in out.features}
                if any(list(c) != sorted(set(c)) for c in out.cuts_.values()):
                    raise InputError("cut points must be strictly increasing", where=f"{where}, cuts")
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed saved Discretizer ({exc!r})", where=where,
                             hint="pass the output of Discretizer.to_json()") from None
        return out

    def to_json(self) -> str:
        """The discretiser as JSON text (cut points are stored exactly)."""
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Discretizer:
        """Rebuild a discretiser from :meth:`to_json` text."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON: {exc}", where="discretizer JSON") from None
        return cls.from_dict(data)

    def __repr__(self) -> str:
        state = "unfitted" if self.cuts_ is None else f"{sum(map(len, self.cuts_.values()))} cuts"
        return f"Discretizer(levels={self.levels!r}, {len(self.features)} features, {state})"
