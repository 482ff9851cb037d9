"""Forward stepwise OLS with pairwise interactions: dynamic XAPP's base learner, and the linear model the
Starchart paper compares its tree with (Stargazer's form, §VI-B; :mod:`starchart.analyses.models`).

The thesis's level-1 learner (ch. 3 §3.3.2, line 655 of the seed text): start from the
intercept alone; at each step try every feature not yet in the model and every
pairwise interaction of a feature with a feature already in the model ("as we add new
features, we also consider the interaction terms with existing features"), and add the
candidate with the highest adjusted R², provided its gain in adjusted R² exceeds the
entry threshold: θ₂ = 0 for a single feature, θ₁ = 0.0095 for an interaction. Stop when
no candidate passes, or at ``max_terms`` terms.

Scoring a candidate does not refit the model once per candidate: one multi-output
scikit-learn ``LinearRegression`` of all candidate columns and of the response on the
current design gives their residuals, and the R² of the model extended by candidate
*c* is exactly ``R² + (1 − R²)·r_c²`` where ``r_c`` is the correlation of the two
residuals (the partial correlation). The chosen model is then refitted for its
coefficients. A step therefore costs one fit, whatever the number of candidates. The fits
are least squares on centred columns, as scikit-learn's ``LinearRegression`` computes them
(numpy alone: the tree's comparison with linear regression needs no extra).

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(0, 1, (60, 4))
>>> y = 1.0 + 2.0 * X[:, 0] + 3.0 * X[:, 0] * X[:, 1] + rng.normal(0, 0.01, 60)
>>> model = fit_stepwise(X, y, ["a", "b", "c", "d"], max_terms=3)
>>> model.names()[:2]
['a', 'a:b']
>>> bool(abs(model.predict(X[:5]) - y[:5]).max() < 0.05)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

#: θ₂, the least gain in adjusted R² for a single feature to enter (thesis line 655).
MAIN_ENTRY_THRESHOLD = 0.0
#: θ₁, the least gain in adjusted R² for an interaction term to enter (thesis line 655).
INTERACTION_ENTRY_THRESHOLD = 0.0095

# A candidate whose residual sum of squares on the current design is below this share
# of its own centred sum of squares is (numerically) a linear combination of the
# model's terms: adding it would not change the fit, only the conditioning.
_COLLINEAR = 1e-10

Term = tuple[int, ...]  # (j,) a feature, (i, j) with i < j the product of two features


def term_name(term: Term, columns: Sequence[str]) -> str:
    """R-style name of a term: ``"mem"`` or ``"gMemBW:Lbdiv32"`` (factors in column order).

    >>> term_name((0, 2), ["a", "b", "c"])
    'a:c'
    """
    return ":".join(columns[j] for j in term)


def term_matrix(X: np.ndarray, terms: Sequence[Term]) -> np.ndarray:
    """Columns of ``terms`` evaluated on the feature matrix ``X`` (rows × features).

    >>> term_matrix(np.array([[2.0, 3.0]]), [(0,), (0, 1)]).tolist()
    [[2.0, 6.0]]
    """
    out = np.empty((X.shape[0], len(terms)))
    for k, term in enumerate(terms):
        out[:, k] = X[:, term[0]] if len(term) == 1 else X[:, term[0]] * X[:, term[1]]
    return out


@dataclass
class StepwiseModel:
    """A fitted stepwise regression: ``intercept + Σ coefficients[k] · terms[k]``.

    ``terms`` are in the order they entered; ``adjusted_r2`` is the adjusted R² after
    each entry (the thesis's Table 3.2 shows the same trace).
    """

    columns: list[str]
    terms: list[Term] = field(default_factory=list)
    intercept: float = 0.0
    coefficients: np.ndarray = field(default_factory=lambda: np.zeros(0))
    adjusted_r2: list[float] = field(default_factory=list)

    def names(self) -> list[str]:
        """The terms' names, in order of entry."""
        return [term_name(t, self.columns) for t in self.terms]

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted response for the rows of ``X`` (columns as in ``self.columns``)."""
        if not self.terms:
            return np.full(X.shape[0], self.intercept)
        return self.intercept + term_matrix(X, self.terms) @ self.coefficients


def least_squares(design: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Intercept(s) and coefficients of ``targets`` (one or several columns) regressed on ``design``: least
    squares on centred columns, as ``sklearn.linear_model.LinearRegression`` fits them.

    >>> intercept, coef = least_squares(np.array([[0.0], [1.0], [2.0]]), np.array([1.0, 3.0, 5.0]))
    >>> round(float(intercept), 12), coef.round(12).tolist()
    (1.0, [2.0])
    """
    x_mean, y_mean = design.mean(axis=0), targets.mean(axis=0)
    coef = np.linalg.lstsq(design - x_mean, targets - y_mean, rcond=None)[0]
    return y_mean - x_mean @ coef, coef


def _residuals(design: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Residuals of every target column regressed (with intercept) on ``design``."""
    if design.shape[1] == 0:
        return targets - targets.mean(axis=0)
    intercept, coef = least_squares(design, targets)
    return targets - (design @ coef + intercept)


def _candidates(n_features: int, terms: list[Term]) -> list[Term]:
    """Features not in the model, and products with at least one factor in the model."""
    chosen = set(terms)
    in_model = sorted({t[0] for t in terms if len(t) == 1})
    mains = [(j,) for j in range(n_features) if (j,) not in chosen]
    pairs = {(min(i, j), max(i, j)) for i in in_model for j in range(n_features) if j != i}
    return mains + sorted(p for p in pairs if p not in chosen)


def fit_stepwise(X: np.ndarray, y: np.ndarray, columns: Sequence[str], *,
                 entry_threshold: float = MAIN_ENTRY_THRESHOLD,
                 interaction_threshold: float = INTERACTION_ENTRY_THRESHOLD,
                 max_terms: int | None = None) -> StepwiseModel:
    """Forward stepwise selection by adjusted R² over features and pairwise interactions.

    Parameters
    ----------
    X, y:
        Feature matrix (rows × features, finite) and response.
    columns:
        Feature names (for :meth:`StepwiseModel.names`).
    entry_threshold, interaction_threshold:
        Least gain in adjusted R² for a feature / an interaction to enter (θ₂, θ₁).
    max_terms:
        At most this many terms; ``None`` for as many as the residual degrees of freedom
        allow (adjusted R² needs ``n − terms − 1 > 0``).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n, k = X.shape
    model = StepwiseModel(columns=list(columns), intercept=float(y.mean()) if n else 0.0)
    sst = float(((y - y.mean()) ** 2).sum()) if n else 0.0
    limit = n - 2 if max_terms is None else min(max_terms, n - 2)
    if sst <= 0.0 or limit <= 0:
        return model
    adj_now = 0.0  # adjusted R² of the intercept-only model
    while len(model.terms) < limit:
        cands = _candidates(k, model.terms)
        if not cands:
            break
        cols = term_matrix(X, cands)
        resid = _residuals(term_matrix(X, model.terms), np.column_stack([cols, y]))
        r_cols, r_y = resid[:, :-1], resid[:, -1]
        sse = float(r_y @ r_y)
        ss_cols = (r_cols**2).sum(axis=0)
        scale = ((cols - cols.mean(axis=0)) ** 2).sum(axis=0)
        usable = (ss_cols > _COLLINEAR * scale) & (scale > 0)
        if sse <= 0.0 or not usable.any():
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            partial = np.where(usable, (r_cols.T @ r_y) ** 2 / (ss_cols * sse), 0.0)
        dof = n - len(model.terms) - 2  # residual df with the candidate added
        adj = 1.0 - (sse * (1.0 - np.clip(partial, 0.0, 1.0)) / dof) / (sst / (n - 1))
        need = np.array([interaction_threshold if len(c) == 2 else entry_threshold for c in cands])
        passing = usable & (adj - adj_now > need)
        if not passing.any():
            break
        best = int(np.argmax(np.where(passing, adj, -np.inf)))  # first of ties: deterministic
        model.terms.append(cands[best])
        model.adjusted_r2.append(float(adj[best]))
        adj_now = float(adj[best])
    if model.terms:
        intercept, coef = least_squares(term_matrix(X, model.terms), y)
        model.intercept = float(intercept)
        model.coefficients = np.asarray(coef, dtype=np.float64)
    return model
