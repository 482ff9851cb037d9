"""Linear leaf models: each leaf of a grown tree predicts with a least-squares line in its numeric parameters.

The paper and its slides name linear leaf models as an option that needs fewer levels, and the authors' R
tool has a hook for them (``starchartFitModelToLeaf``). The splits stay the paper's (mean leaves, SSE); only
what a leaf predicts changes. A leaf fits ``y ≈ b0 + Σ b_j x_j`` over the numeric parameters that vary among
its training designs, when it holds at least two more designs than that; otherwise it keeps its mean. A
prediction is clipped to the range of the leaf's training responses, so that a line does not run away
outside the designs that support it.

Examples
--------
>>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
>>> coef = fit_linear_leaves(X, np.array([2.0, 4.0, 6.0, 8.0]), np.zeros(4, dtype=np.int64), 1)
>>> coef.round(6).tolist()
[[0.0, 2.0]]
>>> predict_linear_leaves(coef, np.zeros(2, dtype=np.int64), np.array([[2.5], [9.0]]), np.array([2.0]),
...                       np.array([8.0])).tolist()   # 9 lies beyond the leaf: clipped to its largest response
[5.0, 8.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["fit_linear_leaves", "predict_linear_leaves"]

#: A leaf fits a line only with at least this many designs more than coefficients (else it keeps its mean).
SPARE_ROWS = 2


def fit_linear_leaves(X: np.ndarray, y: np.ndarray, leaf: np.ndarray, node_count: int) -> np.ndarray:
    """Per node, ``[b0, b_1 … b_p]`` of a least-squares line in the columns of ``X`` (numeric parameters)
    over the training rows whose leaf is that node; NaN rows for nodes that are no leaf or keep their mean.

    ``X`` is rows × numeric parameters (floats), ``leaf`` each row's leaf id."""
    X = np.asarray(X, dtype=float)
    coef = np.full((node_count, 1 + X.shape[1]), np.nan)
    order = np.argsort(leaf, kind="stable")
    bounds = np.flatnonzero(np.diff(leaf[order])) + 1
    for rows in np.split(order, bounds):
        node = int(leaf[rows[0]])
        x, target = X[rows], y[rows]
        varying = np.flatnonzero(np.ptp(x, axis=0) > 0) if len(rows) else np.zeros(0, dtype=np.int64)
        if not len(varying) or len(rows) < len(varying) + 1 + SPARE_ROWS:
            continue
        # centred and scaled for a well-conditioned solve, then back to the parameters' own units
        centre, scale = x[:, varying].mean(axis=0), x[:, varying].std(axis=0)
        design = np.column_stack([np.ones(len(rows)), (x[:, varying] - centre) / scale])
        solution, *_ = np.linalg.lstsq(design, target, rcond=None)
        slopes = solution[1:] / scale
        coef[node] = 0.0
        coef[node, 0] = solution[0] - float(slopes @ centre)
        coef[node, 1 + varying] = slopes
    return coef


def predict_linear_leaves(coef: np.ndarray, leaf: np.ndarray, X: np.ndarray, low: np.ndarray,
                          high: np.ndarray) -> np.ndarray:
    """Each row's prediction by the line of its leaf, clipped to ``[low, high]`` of that leaf (the range of its
    training responses); rows whose leaf has no line get NaN (the caller uses the leaf's mean)."""
    rows = coef[leaf]
    value = rows[:, 0] + np.einsum("ij,ij->i", rows[:, 1:], np.asarray(X, dtype=float))
    return np.clip(value, low[leaf], high[leaf])
