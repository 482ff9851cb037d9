"""How much do unknown loop trip counts and branch probabilities move a prediction?

Static features depend on two things static analysis cannot know: how often each loop
runs and how often each branch is taken.  Thesis §6.2.4 re-extracts the features for
trip counts 1, 10, 100, 1000 and branch probabilities 0, .25, .5, .75, 1, predicts each
feature vector, and takes the majority vote as the prediction (it found the majority
right for 31/34 kernels over branch probabilities, 21/23 over trip counts).

By default (the default feature function) :func:`sweep` analyses the file once to list
its kernel-body loops (not the band loops) and its ``if`` branches, and each setting gives
*every* one of them the same value, passed as ``{line: value}``: a per-line value
overrides ``#pragma xapp trip/prob`` and constant trip counts, so annotated kernels move
with the sweep too (a plain number would only reach unannotated, non-constant loops and
unannotated branches).  4 trip counts x 5 probabilities = 20 settings.  The thesis gives
*each* loop (branch) its own value, all combinations; pass ``loop_lines`` /
``branch_lines`` (source lines) to enumerate per-site combinations that way
(4^loops x 5^branches settings, capped by ``max_settings``).  A custom ``feature_fn``
gets plain numbers in the uniform mode (it need not know the file's lines).

A majority tie goes to the lower range (the conservative "not worth porting" answer).

Examples
--------
>>> import numpy as np, pandas as pd
>>> from starchart.xapp.model import SpeedupRangeModel, FEATURES
>>> rng = np.random.default_rng(0)
>>> X = pd.DataFrame(rng.random((40, len(FEATURES))), columns=FEATURES)
>>> model = SpeedupRangeModel(n_trees=50).fit(X, np.where(X.coalesced > X.coalesced.median(), 30.0, 1.0))
>>> def fake(path, band_line=None, trip_counts=None, branch_probs=None):
...     return {**dict.fromkeys(FEATURES, 0.5), "coalesced": 0.9 if branch_probs < 0.6 else 0.1}
>>> result = sweep(model, "k.c", feature_fn=fake)
>>> result.majority, result.share
('> 3', 0.6)
>>> len(result.table)
20
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from starchart.xapp.static import static_analysis, static_features

from ..errors import InputError
from .discretize import as_feature_frame
from .model import SpeedupRangeModel

#: Thesis §6.2.4 values.
TRIP_COUNTS: tuple[int, ...] = (1, 10, 100, 1000)
BRANCH_PROBS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)

FeatureFn = Callable[..., Mapping[str, float]]


@dataclass
class SweepResult:
    """Predictions over the trip-count / branch-probability settings.

    Attributes
    ----------
    table:
        One row per setting: ``trip_counts``, ``branch_probs`` (a number, or a dict by
        line), the features, and the ``predicted`` range.
    majority:
        The range predicted most often.
    share:
        Share of settings predicting ``majority``.
    counts:
        Settings per range (every range of the model, zeros included).
    """

    table: pd.DataFrame
    majority: str
    share: float
    counts: pd.Series

    @property
    def unanimous(self) -> bool:
        """True when every setting predicts the same range."""
        return self.share == 1.0


def sweep_sites(path: Any, band_line: int | None = None,
                compile_options: Mapping[str, Any] | None = None) -> tuple[list[int], list[int]]:
    """(kernel-body loop lines, ``if`` branch lines) of a file's parallel band, from one
    :func:`~starchart.xapp.static.static_analysis` run: the sites a sweep setting overrides.

    >>> sweep_sites("tests/xapp/cases/pragma_trip.c")      # doctest: +SKIP
    ([7, 9], [])
    """
    result = static_analysis(path, band_line=band_line, **(compile_options or {}))
    loops = sorted({l.line for l in result.loops if l.role == "body" and l.line is not None})
    # only two-way branches take a probability (loop tests use the trip count, switches split evenly)
    branches = sorted({b.line for b in result.branches if b.kind == "if" and b.line is not None})
    return loops, branches


def _values(name: str, values: Sequence[float], low: float, high: float) -> tuple[float, ...]:
    try:
        # whole numbers stay ints: trip counts are counts
        out = tuple(int(v) if float(v).is_integer() else float(v) for v in values)
    except (TypeError, ValueError):
        raise InputError(f"must be a list of numbers, got {values!r}", where=name) from None
    if not out:
        raise InputError("is empty", where=name, hint=f"give at least one value, e.g. {low:g}")
    if any(not (low <= v <= high) for v in out):
        raise InputError(f"{out} must lie in [{low:g}, {high:g}]", where=name)
    return out


def _settings(values: tuple[float, ...], lines: Sequence[int] | None) -> list[Any]:
    """One value for every site, or every combination of per-line values."""
    if lines is None:
        return list(values)
    lines = [int(x) for x in lines]
    if not lines:
        return [None]
    return [dict(zip(lines, combo)) for combo in itertools.product(values, repeat=len(lines))]


def sweep(model: SpeedupRangeModel, path: str | Path, band_line: int | None = None, *,
          trip_counts: Sequence[float] = TRIP_COUNTS, branch_probs: Sequence[float] = BRANCH_PROBS,
          loop_lines: Sequence[int] | None = None, branch_lines: Sequence[int] | None = None,
          feature_fn: FeatureFn | None = None, max_settings: int = 10_000,
          compile_options: Mapping[str, Any] | None = None) -> SweepResult:
    """Predict ``path`` under every trip-count x branch-probability setting; majority vote.

    Parameters
    ----------
    model:
        A fitted :class:`SpeedupRangeModel`.
    path, band_line:
        Passed to the feature function (the C file and the line of its parallel band).
    trip_counts, branch_probs:
        Values to try (thesis: 1, 10, 100, 1000 and 0, .25, .5, .75, 1).
    loop_lines, branch_lines:
        When given, each listed loop/branch line gets its own value (all combinations,
        passed to the feature function as ``{line: value}``).  When ``None``, every site
        gets the same value: with the default feature function as ``{line: value}`` over
        all kernel-body loops / ``if`` branches (see :func:`sweep_sites`; the table still
        shows the plain value), with a custom one as a plain number.
    feature_fn:
        ``f(path, band_line=..., trip_counts=..., branch_probs=...) -> feature dict``;
        default :func:`starchart.xapp.static.static_features`.
    max_settings:
        Refuse sweeps with more settings than this.
    compile_options:
        ``defines``/``include_dirs`` for clang, with the default feature function (a custom
        one compiles the file itself).
    """
    trips = _settings(_values("trip_counts", trip_counts, 1, float("inf")), loop_lines)
    probs = _settings(_values("branch_probs", branch_probs, 0, 1), branch_lines)
    if len(trips) * len(probs) > max_settings:
        raise InputError(f"{len(trips)} x {len(probs)} settings exceed max_settings={max_settings}",
                         where="loop_lines/branch_lines",
                         hint="list fewer loop/branch lines, fewer values, or raise max_settings")
    if feature_fn is not None and compile_options:  # it would compile the file without them, unsaid
        raise InputError("compile_options only apply to the default feature function", where="compile_options",
                         hint="compile with them inside feature_fn, or leave feature_fn out")
    options = dict(compile_options or {})
    fn = feature_fn or functools.partial(static_features, **options)
    body_loops: list[int] = []
    ifs: list[int] = []
    if feature_fn is None and (loop_lines is None or branch_lines is None):
        body_loops, ifs = sweep_sites(path, band_line, options)

    def every(value: Any, lines: list[int], per_site: bool) -> Any:
        """A uniform value as a per-line dict, so it overrides pragmas (dict > pragma > scalar)."""
        return {line: value for line in lines} if not per_site and lines else value

    rows = []
    for trip, prob in itertools.product(trips, probs):
        features = fn(path, band_line=band_line, trip_counts=every(trip, body_loops, loop_lines is not None),
                      branch_probs=every(prob, ifs, branch_lines is not None))
        rows.append({"trip_counts": trip, "branch_probs": prob, **features})
    table = pd.DataFrame(rows)
    features = as_feature_frame(table, model.features, where=f"features of {path}")
    # many settings give the same vector: predict each distinct one once
    distinct = features.drop_duplicates()
    predicted = model.predict(distinct)
    lookup = dict(zip(map(tuple, distinct.to_numpy()), predicted.astype(str)))
    table["predicted"] = pd.Categorical([lookup[tuple(r)] for r in features.to_numpy()],
                                        categories=model.labels, ordered=True)
    counts = table["predicted"].value_counts().reindex(model.labels, fill_value=0)
    best = int(np.argmax(counts.to_numpy()))  # first maximum: ties go to the lower range
    return SweepResult(table=table, majority=model.labels[best], share=float(counts.iloc[best] / len(table)),
                       counts=counts)
