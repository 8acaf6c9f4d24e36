"""Least squares and ridge without centring X in memory (so a sparse X stays sparse).

Centring a sparse matrix would fill it in, so the centred, weighted design √S(X − 1x̄ᵀ) is only
ever applied to vectors (``lucidml.utils.centered``; seed 000 §1.6 for the ridge normal
equations, 003 §2.3 for the weights):

- **few features** (d ≤ ``GRAM_MAX_FEATURES``): the centred Gram matrix XcᵀSXc is formed from X's
  own product (d × d, dense) and factorized by Cholesky, then refined once with the residual.
  Exact to rounding, like the dense solvers.
- **many features** (a text or recommendation matrix): LSQR (Paige & Saunders 1982), which needs
  only products with the operator and its transpose and solves min ‖√S(Xc w − yc)‖² + α‖w‖²
  with ``damp = √α``; from w = 0 it converges to the minimum-norm solution when α = 0.
"""

import warnings

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg
from sklearn.exceptions import ConvergenceWarning

from ..utils.centered import CenteredMatrix, centered_gram, column_means
from ..utils.linalg import cholesky_or_none, minimum_norm_if_deficient

__all__ = ["GRAM_MAX_FEATURES", "solve_ridge_implicit"]

# Up to this many features the dense d × d Gram matrix (32 MiB at 2048) is the fast, exact route.
GRAM_MAX_FEATURES = 2048


def solve_ridge_implicit(X, Y, sample_weight, alpha, fit_intercept, *, method="auto", tol=1e-6, max_iter=None,
                         name="Ridge"):
    """min_W Σᵢ sᵢ ‖yᵢ − Wᵀxᵢ − b‖² + αₖ‖wₖ‖² per target k, X (n, d) sparse or dense, never centred in memory.

    ``Y`` has shape (n, n_targets), ``alpha`` one entry per target (0 is least squares).
    ``method``: ``"gram"`` (raises when XcᵀSXc + αI is singular), ``"lsqr"``, or ``"auto"`` (the Gram
    route for few features and one α, LSQR otherwise or when the Gram route fails). Returns
    ``(W of shape (d, n_targets), x̄, ȳ, L, n_iter)``: L is the Cholesky factor of XcᵀSXc + αI when
    the Gram route solved the problem (None after LSQR), n_iter LSQR's largest iteration count
    (1 for the direct route). ``tol`` is LSQR's relative tolerance (its ``atol`` and ``btol``).
    """
    n, d = X.shape
    x_mean = column_means(X, sample_weight) if fit_intercept else np.zeros(d)
    y_mean = column_means(Y, sample_weight) if fit_intercept else np.zeros(Y.shape[1])
    one_alpha = bool(np.all(alpha == alpha[0]))
    if method == "gram" or (method == "auto" and d <= GRAM_MAX_FEATURES and one_alpha):
        solved = _by_gram(X, Y, sample_weight, x_mean, y_mean, alpha[0], method != "gram") if one_alpha else None
        if solved is not None:
            return solved[0], x_mean, y_mean, solved[1], 1
        if method == "gram":
            other = "lstsq" if name == "LinearRegression" else "lsqr"
            raise ValueError(f"{name}: XᵀSX + αI is singular or too ill-conditioned for the normal equations "
                             f"(α = 0 with collinear features, or one α per target); use solver='{other}'.")
    root_w = None if sample_weight is None else np.sqrt(sample_weight)
    operator = CenteredMatrix(X, x_mean, row_weight=root_w).operator()
    coef = np.empty((d, Y.shape[1]))
    n_iter = 0
    for k in range(Y.shape[1]):
        target = Y[:, k] - y_mean[k]
        if root_w is not None:
            target = target * root_w
        result = scipy.sparse.linalg.lsqr(operator, target, damp=np.sqrt(alpha[k]), atol=tol, btol=tol,
                                          iter_lim=max_iter)
        coef[:, k], stop, iterations = result[0], result[1], result[2]
        n_iter = max(n_iter, iterations)
        if stop == 7:
            warnings.warn(f"{name}: LSQR stopped at max_iter={max_iter} iterations before reaching tol={tol}; "
                          "increase max_iter or tol.", ConvergenceWarning, stacklevel=3)
    return coef, x_mean, y_mean, None, n_iter


def _by_gram(X, Y, sample_weight, x_mean, y_mean, alpha, minimum_norm=True):
    """(W, L) from the centred Gram matrix, refined once; None when it is singular or overflowed.
    Least squares (α = 0) of an X rank-deficient to rounding: (its minimum-norm W, None), or None
    without ``minimum_norm`` (the normal equations asked for by name have no unique solution)."""
    gram, moment = centered_gram(X, Y, sample_weight, x_mean, y_mean)
    if not (np.all(np.isfinite(gram)) and np.all(np.isfinite(moment))):
        return None  # overflowed: the squares of the features exceed float64
    gram[np.diag_indices_from(gram)] += alpha
    lower = cholesky_or_none(gram)
    if alpha == 0:  # least squares: a rank-deficient X's minimum-norm solution, not a factor of its rounding
        deficient = minimum_norm_if_deficient(gram, moment, X.shape[0], lower)
        if deficient is not None:
            return (deficient[0], None) if minimum_norm else None
    if lower is None:
        return None
    factor = (lower, True)
    coef = scipy.linalg.cho_solve(factor, moment, check_finite=False)
    # One step of iterative refinement: the residual of the normal equations, from the sparse X.
    root_w = None if sample_weight is None else np.sqrt(sample_weight)
    operator = CenteredMatrix(X, x_mean, row_weight=root_w).operator()
    for k in range(Y.shape[1]):
        target = Y[:, k] - y_mean[k]
        if root_w is not None:
            target = target * root_w
        residual = operator.rmatvec(target - operator.matvec(coef[:, k])) - alpha * coef[:, k]
        coef[:, k] += scipy.linalg.cho_solve(factor, residual, check_finite=False)
    return coef, lower
