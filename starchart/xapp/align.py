"""Per-kernel values lined up with the feature rows they belong to.

Both XAPP models take features as a DataFrame (one row per kernel) and a target per
kernel (speedups, CPU or GPU seconds). :func:`aligned_positive` matches them by kernel
name when the target is a Series or mapping, and refuses to guess when the names differ.

Examples
--------
>>> import pandas as pd
>>> index = pd.Index(["a", "b"])
>>> aligned_positive(pd.Series({"b": 2.0, "a": 1.0}), index).tolist()
[1.0, 2.0]
>>> aligned_positive([3, 4], index).tolist()
[3.0, 4.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from starchart.errors import InputError

__all__ = ["aligned_positive", "feature_ranges", "outside_ranges"]


def aligned_positive(values: Any, index: pd.Index, where: str = "speedups", what: str = "speedup",
                     hint: str = "drop kernels that were not measured") -> np.ndarray:
    """Positive finite values, one per row of ``index``.

    A Series or mapping is aligned by name (a Series indexed 0..n-1 against named rows, sharing
    no label, goes by position); a list or array goes by position.

    Raises
    ------
    InputError
        A kernel without a value, a count mismatch, or a value that is not a positive number,
        naming the kernel.
    """
    if isinstance(values, Mapping) and not isinstance(values, pd.Series):
        values = pd.Series(values)
    if isinstance(values, pd.Series) and not values.index.equals(index):
        missing = [k for k in index if k not in values.index]
        if missing and len(values) == len(index) and not set(values.index) & set(index):
            values = values.to_numpy()  # unrelated indexes (e.g. 0..n-1 vs names): go by position
        elif missing:
            raise InputError(f"no {what} for kernel(s) {missing[:5]}", where=where,
                             hint=f"give one {what} per feature row, with the same index")
        else:
            values = values.loc[index]
    array = pd.to_numeric(pd.Series(np.asarray(values, dtype=object).ravel()), errors="coerce").to_numpy(float)
    if len(array) != len(index):
        raise InputError(f"{len(array)} {what}s for {len(index)} kernels (feature rows)", where=where,
                         hint=f"give one {what} per kernel")
    bad = ~(np.isfinite(array) & (array > 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"kernel {index[i]!r} has {what} {float(array[i]):g}, not a positive finite number",
                         where=where, hint=hint)
    return array


def feature_ranges(frame: pd.DataFrame) -> dict[str, list[float]]:
    """``{feature: [min, max]}`` over the rows of a feature frame (what a model was trained on).

    >>> feature_ranges(pd.DataFrame({"a": [1.0, 3.0], "b": [0.0, 0.0]}))
    {'a': [1.0, 3.0], 'b': [0.0, 0.0]}
    """
    return {str(c): [float(frame[c].min()), float(frame[c].max())] for c in frame.columns}


def outside_ranges(features: Mapping[str, float], ranges: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """The features of one kernel that lie outside the training range: ``{feature: {value, min, max}}``.

    A model answers for such a kernel by extrapolating (a forest: as for the nearest training
    level), which its vote share or its learners' spread does not show.

    >>> outside_ranges({"a": 5.0, "b": 0.0}, {"a": [1.0, 3.0], "b": [0.0, 0.0]})
    {'a': {'value': 5.0, 'min': 1.0, 'max': 3.0}}
    """
    out = {}
    for name, bounds in ranges.items():
        if name not in features:
            continue
        value, (low, high) = float(features[name]), (float(bounds[0]), float(bounds[1]))
        slack = 1e-9 * max(abs(low), abs(high), 1e-300)  # float noise is not extrapolation
        if value < low - slack or value > high + slack:
            out[name] = {"value": value, "min": low, "max": high}
    return out
