"""Carving against random sampling (Ryoo et al. 2008, §5.3, Table 5 and Fig. 6), exactly.

From an exhaustively measured space of ``N`` configurations, the best of ``k``
configurations drawn uniformly *without replacement* is an order statistic. Rank
the configurations from best (rank 1) to worst (rank N). The best of the sample has
rank ≥ r exactly when all k draws come from the N − r + 1 configurations of rank
≥ r, so

    P(R ≥ r) = C(N − r + 1, k) / C(N, k),     P(R = r) = P(R ≥ r) − P(R ≥ r + 1),

and the expected best of k samples is ``Σ_r v_(r) P(R = r)``. Ties need no care:
tied configurations have the same value whichever rank they get. The survival
function is computed by the recurrence
``P(R ≥ r + 1) = P(R ≥ r) × (N − r + 1 − k) / (N − r + 1)``, exact up to rounding.

As in the paper, the expectation is taken of the objective as measured (time), and
"performance relative to the best" is ``best / E[best of k]`` for a minimised
objective (``E[best of k] / best`` for a maximised one).

Examples
--------
Four configurations taking 1, 2, 3 and 4 ms; two drawn at random: the faster is
1 ms with probability 3/6, 2 ms with 2/6, 3 ms with 1/6.

>>> float(expected_best([1, 2, 3, 4], 2))  # (3·1 + 2·2 + 1·3) / 6
1.6666666666666667
>>> sample_size_for([1, 2, 3, 4], 0.9)  # smallest k whose expected best is within 90 % of 1 ms
4
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from starchart.errors import InputError

__all__ = ["best_rank_distribution", "expected_best", "expected_best_curve", "probability_within",
           "random_sampling_table", "relative_to_best", "sample_size_for", "simulate_best_of_k"]


def _ranked(values: Any, minimize: bool) -> np.ndarray:
    """Finite values sorted best first; an InputError when there are none."""
    v = np.asarray(values, dtype=float).reshape(-1)
    v = v[np.isfinite(v)]
    if len(v) == 0:
        raise InputError("no finite measured values to compare with", where="values",
                         hint="give the measured objective of every configuration of the space")
    return np.sort(v) if minimize else np.sort(v)[::-1]


def _check_k(k: Any, n: int) -> np.ndarray:
    ks = np.atleast_1d(np.asarray(k))
    if ks.size and (not np.issubdtype(ks.dtype, np.integer) or ks.min() < 1 or ks.max() > n):
        raise InputError(f"sample sizes must be integers from 1 to {n} (the configurations measured), "
                         f"got {ks.tolist()[:5]}", where="k", hint=f"choose k in 1..{n}")
    return ks.astype(int)


def best_rank_distribution(n: int, k: int) -> np.ndarray:
    """``P(R = r)`` for r = 1..n: the rank of the best of ``k`` of ``n`` drawn without replacement.

    Examples
    --------
    >>> (best_rank_distribution(4, 2) * 6).round(12).tolist()  # 3/6, 2/6, 1/6, 0
    [3.0, 2.0, 1.0, 0.0]
    """
    k = int(_check_k(k, n)[0])
    r = np.arange(1, n + 1)
    factors = (n - r + 1 - k) / (n - r + 1)  # P(R ≥ r + 1) / P(R ≥ r)
    survival = np.r_[1.0, np.cumprod(factors)]  # P(R ≥ r) for r = 1..n+1
    survival = np.clip(survival, 0.0, 1.0)
    return survival[:-1] - survival[1:]


def expected_best(values: Any, k: int | Sequence[int] | np.ndarray, *, minimize: bool = True) -> Any:
    """The expected best objective of ``k`` configurations drawn uniformly without replacement.

    Parameters
    ----------
    values:
        The measured objective of every configuration (non-finite values are ignored).
    k:
        A sample size, or several.
    minimize:
        Whether lower is better (times) or higher (throughput).

    Returns
    -------
    float or ndarray
        One expectation per ``k``.

    Examples
    --------
    >>> expected_best([1, 2, 3, 4], [1, 2, 4]).tolist()
    [2.5, 1.6666666666666667, 1.0]
    >>> float(expected_best([1, 2, 3, 4], 2, minimize=False))
    3.3333333333333335
    """
    ranked = _ranked(values, minimize)
    ks = _check_k(k, len(ranked))
    out = np.array([float(best_rank_distribution(len(ranked), int(kk)) @ ranked) for kk in ks])
    return out[0] if np.ndim(k) == 0 else out


def relative_to_best(values: Any, k: int | Sequence[int] | np.ndarray, *, minimize: bool = True) -> Any:
    """The expected best of ``k`` random samples relative to the true best (1.0 = the optimum).

    ``best / E[best of k]`` for a minimised objective, ``E[best of k] / best`` otherwise.

    Examples
    --------
    >>> float(relative_to_best([1, 2, 3, 4], 2))
    0.6
    """
    ranked = _ranked(values, minimize)
    expected = np.asarray(expected_best(ranked, k, minimize=minimize))
    rel = ranked[0] / expected if minimize else expected / ranked[0]
    return rel if np.ndim(k) else float(rel)


def sample_size_for(values: Any, fraction: float, *, minimize: bool = True) -> int:
    """The smallest sample size whose expected best is at least ``fraction`` of the best.

    The expected best improves with every extra sample, so a binary search finds it.

    Examples
    --------
    One configuration twice as fast as the 99 others: E[best of k] = 2 − k/100, which
    reaches 1 / 0.9 at k = 88.9.

    >>> v = np.r_[1.0, np.full(99, 2.0)]
    >>> sample_size_for(v, 0.5), sample_size_for(v, 0.9), sample_size_for(v, 1.0)
    (1, 89, 100)
    """
    if not 0 < fraction <= 1:
        raise InputError(f"fraction must be in (0, 1], got {fraction}", where="fraction",
                         hint="e.g. 0.9 for 90 % of the best performance")
    ranked = _ranked(values, minimize)
    lo, hi = 1, len(ranked)
    while lo < hi:
        mid = (lo + hi) // 2
        # a hair of tolerance so k = N (which is exactly the best) always qualifies
        if relative_to_best(ranked, mid, minimize=minimize) >= fraction - 1e-12:
            hi = mid
        else:
            lo = mid + 1
    return lo


def probability_within(values: Any, k: int, fraction: float, *, minimize: bool = True) -> float:
    """The probability that the best of ``k`` random samples is within ``fraction`` of the best.

    With ``m`` configurations good enough, ``1 − C(N − m, k) / C(N, k)``.

    Examples
    --------
    >>> probability_within([1, 1.05, 2, 3], 2, 0.9)  # 2 of 4 are within 90 %: 1 − C(2,2)/C(4,2)
    0.8333333333333334
    """
    ranked = _ranked(values, minimize)
    n = len(ranked)
    k = int(_check_k(k, n)[0])
    good = ranked[0] / ranked >= fraction if minimize else ranked / ranked[0] >= fraction
    m = int(good.sum())
    miss = 1.0
    for i in range(k):  # C(n − m, k) / C(n, k) as a product
        miss *= max(n - m - i, 0) / (n - i)
    return 1.0 - miss


def simulate_best_of_k(values: Any, k: int, *, trials: int = 10_000, seed: int | None = None,
                       minimize: bool = True) -> float:
    """Monte-Carlo estimate of :func:`expected_best` (draws without replacement), for checking it.

    Examples
    --------
    >>> abs(simulate_best_of_k([1, 2, 3, 4], 2, trials=20000, seed=0) - 5 / 3) < 0.02
    True
    """
    v = np.asarray(values, dtype=float).reshape(-1)
    v = v[np.isfinite(v)]
    k = int(_check_k(k, len(v))[0])
    rng = np.random.default_rng(seed)
    # k smallest of n uniform keys per trial = a uniform k-subset without replacement
    keys = rng.random((trials, len(v)))
    picks = np.argpartition(keys, k - 1, axis=1)[:, :k] if k < len(v) else np.tile(np.arange(len(v)), (trials, 1))
    chosen = v[picks]
    return float((chosen.min(axis=1) if minimize else chosen.max(axis=1)).mean())


def _p_holds_best(ranked: np.ndarray, k: int) -> float:
    """The probability that ``k`` configurations drawn without replacement include one of those tied for
    the best (``ranked`` best first): ``1 − C(N − m, k) / C(N, k)`` with ``m`` tied at the top.

    >>> _p_holds_best(np.array([1.0, 1.0, 2.0, 3.0]), 1), _p_holds_best(np.array([1.0, 2.0, 3.0, 4.0]), 2)
    (0.5, 0.5)
    """
    n, m = len(ranked), int(np.count_nonzero(ranked == ranked[0]))
    miss = 1.0
    for i in range(k):  # C(n − m, k) / C(n, k) as a product; 0 once the draws exceed the others
        miss *= max(n - m - i, 0) / (n - i)
        if miss == 0.0:
            break
    return 1.0 - miss


def expected_best_curve(values: Any, ks: Iterable[int] | None = None, *, minimize: bool = True) -> pd.DataFrame:
    """The expected best of k random samples for many k (the paper's Fig. 6).

    Returns
    -------
    DataFrame
        ``k``, ``expected_best`` and ``relative`` (to the best); default k = 1..N
        (thinned to about 400 sizes for large spaces).

    Examples
    --------
    >>> expected_best_curve([1, 2, 3, 4]).round(3).to_dict("list")
    {'k': [1, 2, 3, 4], 'expected_best': [2.5, 1.667, 1.25, 1.0], 'relative': [0.4, 0.6, 0.8, 1.0]}
    """
    ranked = _ranked(values, minimize)
    n = len(ranked)
    if ks is None:
        ks = np.unique(np.r_[np.arange(1, min(n, 200) + 1), np.geomspace(1, n, 200).round().astype(int), n])
    ks = _check_k(list(ks), n)
    expected = np.asarray(expected_best(ranked, ks, minimize=minimize))
    rel = ranked[0] / expected if minimize else expected / ranked[0]
    return pd.DataFrame({"k": ks, "expected_best": expected, "relative": rel})


def random_sampling_table(values: Any, carved_size: int, carved_best: float | None = None, *,
                          minimize: bool = True, fractions: Sequence[float] = (0.9, 0.95),
                          name: str | None = None) -> dict[str, Any]:
    """One row of the paper's Table 5: carving's kept set against random samples of the same size.

    Parameters
    ----------
    values:
        The measured objective of every configuration of the space.
    carved_size:
        How many configurations carving kept (and would measure).
    carved_best:
        The best objective among them, when measured.
    fractions:
        Targets for the sample sizes (default 90 % and 95 % of the best).

    Returns
    -------
    dict
        ``kernel``, ``configurations``, ``best``, ``carving_configs``,
        ``carving_best`` and ``carving_relative`` (when ``carved_best`` is given),
        ``random_expected_best`` and ``random_relative`` for a random sample of
        ``carved_size``, ``random_p_best`` (probability that sample holds an
        optimum: ``carved_size / N`` when one configuration is the best), and ``random_size_for_90``,
        ``random_size_for_95``... one per fraction.

    Examples
    --------
    >>> row = random_sampling_table([1, 2, 3, 4], 2, carved_best=1.0, name="toy")
    >>> {k: row[k] for k in ("carving_relative", "random_expected_best", "random_size_for_90")}
    {'carving_relative': 1.0, 'random_expected_best': 1.6666666666666667, 'random_size_for_90': 4}
    """
    ranked = _ranked(values, minimize)
    n = len(ranked)
    size = int(_check_k(carved_size, n)[0])
    expected = float(expected_best(ranked, size, minimize=minimize))
    best = float(ranked[0])
    row: dict[str, Any] = {"kernel": name, "configurations": n, "best": best, "carving_configs": size,
                           "carving_best": carved_best, "carving_relative": None,
                           "random_expected_best": expected,
                           "random_relative": best / expected if minimize else expected / best,
                           "random_p_best": _p_holds_best(ranked, size)}
    if carved_best is not None:
        row["carving_relative"] = best / carved_best if minimize else carved_best / best
    for fraction in fractions:
        row[f"random_size_for_{round(100 * fraction):d}"] = sample_size_for(ranked, fraction, minimize=minimize)
    return row
