"""The written XAPP evaluation protocol: LOOCV over seeds, each figure beside its baselines.

``docs/xapp.md`` states the protocol before any figure; this module carries it out, so
the page and a user's own corpus are scored the same way:

- **Cuts.** Quantiles of the corpus's own speedups (the median, terciles, quartiles),
  the thesis's cuts as given, and the thesis's cuts scaled to the hardware pair
  (:func:`scaled_cutoffs`).
- **LOOCV, repeated over seeds.** Every variant is scored leave-one-out, refitting
  everything (cut points of levels included) in each fold, once per forest seed; the
  figure is the mean over seeds with its range.
- **Baselines beside every accuracy.** The *majority* share (always answering the
  corpus's commonest range) and a *one-feature* model (a depth-2 tree on parallelism
  alone, leave-one-out): a model is worth only its lead over both.
- **Every variant tried is reported**, kept or not (:func:`evaluate_variants`).

Examples
--------
>>> majority_share([1, 2, 30, 40, 50], (10,))
0.6
>>> [round(c) for c in quantile_cutoffs([1, 10, 100, 1000], 2)]  # the geometric middle
[32]
>>> scaled_cutoffs((3, 20), 60.0)
(180.0, 1200.0)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._util.validation import Interval, Options, check
from .log_speedup import SpeedupRegressor
from .model import SpeedupRangeModel, check_cutoffs

#: The feature the one-feature baseline reads.
BASELINE_FEATURE = "parallelism"

#: Peak single-precision throughput (GFLOP/s) and memory bandwidth (GB/s) of the thesis's
#: platform 1 (Table 5.1): a GTX 750 (512 CUDA cores at 1.02 GHz boost 1.085, 80 GB/s)
#: against one core of a Xeon E3-1241 v3 (3.5 GHz, AVX2 with two FMA units: 32 FLOP/cycle;
#: 25.6 GB/s for the socket). Vendor data sheets.
THESIS_PAIR = {"gpu_gflops": 1111.0, "cpu_gflops": 112.0, "gpu_gbs": 80.0, "cpu_gbs": 25.6}


def quantile_cutoffs(speedups: Any, ranges: int) -> tuple[float, ...]:
    """Cutoffs splitting the speedups into ``ranges`` ranges of equal size (geometric midpoints)."""
    values = np.sort(np.asarray(speedups, dtype=float))
    ranges = check("ranges", ranges, Interval(int, 2, len(values)), hint="e.g. 2 for the median cut")
    cuts = []
    for k in range(1, ranges):
        q = np.quantile(np.log(values), k / ranges)
        cuts.append(float(np.exp(q)))
    return tuple(cuts)


def scaled_cutoffs(cutoffs: Sequence[float], factor: float) -> tuple[float, ...]:
    """The cutoffs multiplied by ``factor``: a reference pair's cuts moved to another pair.

    ``factor`` is the ratio of the two pairs' GPU-over-CPU peak ratios; see :func:`pair_factor`.
    """
    factor = check("factor", factor, Interval(float, 0, None, closed="neither"), hint="e.g. 60")
    return tuple(float(c) * factor for c in check_cutoffs(cutoffs))


def pair_factor(gpu_peak: float, cpu_peak: float, reference: Mapping[str, float] | None = None,
                kind: str = "gflops") -> tuple[float, str]:
    """How much larger the speedups of one pair are expected to be than the thesis's, and why.

    Parameters
    ----------
    gpu_peak, cpu_peak:
        Peak throughput of the GPU and of one CPU core, in the unit of ``kind``
        (``"gflops"``: GFLOP/s single precision, ``"gbs"``: memory GB/s).
    reference:
        The reference pair (default :data:`THESIS_PAIR`).

    Returns
    -------
    (factor, sentence)
        ``(gpu_peak / cpu_peak) / (reference GPU / reference CPU)`` and a sentence saying so.

    >>> factor, why = pair_factor(66900.0, 166.0)
    >>> round(factor)
    41
    """
    ref = dict(THESIS_PAIR if reference is None else reference)
    kind = check("kind", kind, Options("gflops", "gbs"), hint="gflops: arithmetic peak; gbs: memory bandwidth")
    for name, value in (("gpu_peak", gpu_peak), ("cpu_peak", cpu_peak)):
        check(name, value, Interval(float, 0, None, closed="neither"), hint="a peak throughput, e.g. 1000")
    ours, theirs = gpu_peak / cpu_peak, ref[f"gpu_{kind}"] / ref[f"cpu_{kind}"]
    unit = "GFLOP/s" if kind == "gflops" else "GB/s"
    sentence = (f"Cuts scaled by {ours / theirs:.3g}: this pair's GPU/CPU peak ratio is {ours:.3g} "
                f"({gpu_peak:g} / {cpu_peak:g} {unit}), the reference pair's {theirs:.3g}")
    return ours / theirs, sentence


def majority_share(speedups: Any, cutoffs: Sequence[float]) -> float:
    """Share of the commonest range: the accuracy of always answering it."""
    codes = np.searchsorted(np.asarray(check_cutoffs(cutoffs)), np.asarray(speedups, dtype=float), side="left")
    return float(np.bincount(codes).max() / len(codes))


def one_feature_loocv(features: pd.DataFrame, speedups: Any, cutoffs: Sequence[float],
                      feature: str = BASELINE_FEATURE, max_depth: int = 2) -> float:
    """LOOCV accuracy of a depth-``max_depth`` tree on one feature (log-scaled) alone."""
    from sklearn.tree import DecisionTreeClassifier

    x = np.log10(1.0 + features[feature].to_numpy(dtype=float))[:, None]
    codes = np.searchsorted(np.asarray(check_cutoffs(cutoffs)), np.asarray(speedups, dtype=float), side="left")
    hits = 0
    for i in range(len(x)):
        keep = np.arange(len(x)) != i
        tree = DecisionTreeClassifier(max_depth=max_depth, random_state=0).fit(x[keep], codes[keep])
        hits += int(tree.predict(x[[i]])[0] == codes[i])
    return hits / len(x)


@dataclass(frozen=True)
class Variant:
    """One model setting scored by the protocol."""

    name: str
    kind: str                        # "classifier" or "regressor"
    params: Mapping[str, Any]
    note: str = ""


def default_variants(features: Sequence[str]) -> list[Variant]:
    """The variants the page reports: the thesis's model first, then each change on its own."""
    from .discretize import FEATURES
    from .encoding import CONTINUOUS, HOST_FEATURE

    host = tuple(features) if HOST_FEATURE in features else tuple(FEATURES)
    return [
        Variant("thesis: binary levels, 10 features", "classifier", {"levels": 2, "features": FEATURES}),
        Variant("continuous, 10 features", "classifier", {"levels": CONTINUOUS, "features": FEATURES}),
        Variant("continuous + host steps", "classifier", {"levels": CONTINUOUS, "features": host}),
        Variant("binary levels + host steps", "classifier", {"levels": 2, "features": host}),
        Variant("log-speedup forest, cut afterwards", "regressor", {"method": "forest", "features": host}),
        Variant("log-speedup stepwise ensemble, cut afterwards", "regressor",
                {"method": "stepwise", "features": host}),
    ]


def evaluate_variants(features: pd.DataFrame, speedups: pd.Series, cut_sets: Mapping[str, Sequence[float]],
                      variants: Sequence[Variant], seeds: Sequence[int] = (0, 1, 2, 3, 4), *,
                      n_trees: int = 1000, progress: Callable[[str], None] | None = None) -> tuple[pd.DataFrame,
                                                                                                     pd.DataFrame]:
    """Score every variant at every cut over seeds, beside the baselines.

    Returns
    -------
    (accuracy, regression)
        ``accuracy``: one row per (variant, cut set) with ``mean``, ``low``, ``high`` over
        seeds, ``majority`` and ``one_feature``. ``regression``: one row per regressor
        variant with the median error factor, share within 2x and interval coverage
        (means over seeds) and their ranges.
    """
    speedups = speedups.loc[features.index]
    rows, reg_rows = [], []
    baselines = {name: (majority_share(speedups, cuts), one_feature_loocv(features, speedups, cuts))
                 for name, cuts in cut_sets.items()}
    for variant in variants:
        if progress is not None:
            progress(variant.name)
        per_cut: dict[str, list[float]] = {name: [] for name in cut_sets}
        errors, within, covered = [], [], []
        for seed in seeds:
            if variant.kind == "regressor":
                result = SpeedupRegressor(**{"n_trees": 500, **variant.params, "seed": seed}).loocv(features, speedups)
                errors.append(result.median_error_factor)
                within.append(result.within_2x)
                covered.append(result.coverage)
                for name, cuts in cut_sets.items():
                    per_cut[name].append(result.accuracy(cuts))
                continue
            for name, cuts in cut_sets.items():
                model = SpeedupRangeModel(cutoffs=tuple(cuts), n_trees=n_trees, seed=seed, **variant.params)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    per_cut[name].append(model.loocv(features, speedups).accuracy)
        for name, values in per_cut.items():
            majority, one = baselines[name]
            rows.append({"variant": variant.name, "cuts": name, "mean": float(np.mean(values)),
                         "low": float(np.min(values)), "high": float(np.max(values)), "majority": majority,
                         "one_feature": one, "note": variant.note})
        if errors:
            reg_rows.append({"variant": variant.name, "median_error_factor": float(np.mean(errors)),
                             "error_low": float(np.min(errors)), "error_high": float(np.max(errors)),
                             "within_2x": float(np.mean(within)), "coverage": float(np.mean(covered))})
    return pd.DataFrame(rows), pd.DataFrame(reg_rows)
