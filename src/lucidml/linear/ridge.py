"""Ridge regression: least squares with an L2 penalty, in closed form."""

from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ..utils import Interval, Options, check_sample_weight, validate_params
from ..utils.centered import centered_gram, column_means
from ..utils.linalg import (
    cholesky_or_none,
    factorization_threads,
    in_precision,
    inverse_lower_triangular,
    minimum_norm_if_deficient,
    product_in_precision,
    trusted_factor,
)
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_magnitude, check_predict_data
from ._preprocess import center_and_weight, intercept_from_means
from ._sparse_least_squares import solve_ridge_implicit


class Ridge(RegressorMixin, BaseEstimator):
    """Linear least squares with an L2 penalty on the weights (Tikhonov regularization).

    Minimizes, with scikit-learn's scaling of ``alpha``,

        J(w, b) = Σᵢ sᵢ (yᵢ − w·xᵢ − b)² + α ‖w‖²          (sᵢ = sample weight)

    The intercept is not penalized: X and y are centred, the centred problem is solved and
    b = ȳ − x̄·w. Setting ∇J = 0 gives the closed form (XᵀX + αI) w = Xᵀy, solved by Cholesky
    (seed 000 §1.6).

    **MAP view** (seed 002 §6.4.3): with y = Xw + ε, ε ~ N(0, σ²I), and the prior w ~ N(0, τ²I),
    the posterior mode of w is this estimate with α = σ²/τ². The posterior of w is then
    N(w_ridge, σ²(XᵀX + αI)⁻¹), and the predictive variance of a new target at x is
    σ²(1 + xᵀ(XᵀX + αI)⁻¹x) (Bishop §3.3; x centred), which ``predict(X, return_std=True)``
    returns as a standard deviation.

    Parameters
    ----------
    alpha : float or array-like of shape (n_targets,), default=1.0
        Penalty strength α ≥ 0, one per target if an array. α = 0 is ordinary least squares
        (a singular XᵀX then falls back to the rank-safe SVD, except with ``solver="cholesky"``).
    fit_intercept : bool, default=True
        Whether to fit the unpenalized intercept b.
    solver : {"auto", "cholesky", "svd", "lsqr"}, default="auto"
        ``"cholesky"``: the normal equations (XᵀX + αI)w = Xᵀy when n_samples ≥ n_features, or
        their dual form w = Xᵀ(XXᵀ + αI)⁻¹y otherwise (one n × n system instead of d × d); SVD for
        several different α.
        ``"svd"``: X = USVᵀ and w = V diag(s/(s² + α)) Uᵀy, valid for any α ≥ 0 and rank (dense X only).
        ``"lsqr"``: the iterative least-squares solver LSQR on the implicitly centred X, with
        damping √α; it needs only products with X and Xᵀ (see ``tol`` and ``max_iter``).
        ``"auto"``: the primal Cholesky route when n_samples ≥ n_features and one α serves all
        targets, falling back to SVD when that system is singular; SVD otherwise. For a sparse X:
        the normal equations formed from the sparse product when there are at most 2048
        features, LSQR otherwise (X is never densified or centred in memory).
    copy_X : bool, default=True
        If False, X may be overwritten by the centring.
    tol : float, default=1e-4
        Relative tolerance of ``"lsqr"`` (its ``atol`` and ``btol``), as scikit-learn's.
    max_iter : int or None, default=None
        Iterations of ``"lsqr"`` at most (None: SciPy's 2·n_features).

    X may be a SciPy sparse matrix (CSR or CSC) and float32: a float32 X is fitted in float32
    (``coef_`` and predictions float32), its Gram matrix accumulated in float64; the SVD and the
    dual route solve on a float64 copy of it.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        1-D for one target, also when y has shape (n_samples, 1) (as scikit-learn's).
    intercept_ : float or ndarray of shape (n_targets,)
        A float when y is 1-D.
    sigma2_ : float, ndarray of shape (n_targets,) or None
        Noise variance estimate RSS / (n − 1 − dof), with dof = tr X(XᵀX + αI)⁻¹Xᵀ the effective
        number of parameters (n − dof without an intercept). Used by ``return_std``. None after
        ``"lsqr"``, which forms no factorization to take the trace from.
    n_iter_ : int
        LSQR's iterations (the largest over the targets); 1 for the direct solvers.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear import Ridge
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([1.0, 3.0, 5.0, 7.0])
    >>> reg = Ridge(alpha=1.0).fit(X, y)      # slope 2·5/(5+1): shrunk towards 0
    >>> round(float(reg.coef_[0]), 4), round(float(reg.intercept_), 4)
    (1.6667, 1.5)
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "fit_intercept": ["boolean"],
        "solver": [Options({"auto", "cholesky", "svd", "lsqr"})],
        "copy_X": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, alpha=1.0, *, fit_intercept=True, solver="auto", copy_X=True, tol=1e-4, max_iter=None):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.copy_X = copy_X
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y, sample_weight=None):
        """Fit on X (n_samples, n_features) and y (n_samples,) or (n_samples, n_targets)."""
        validate_params(self)
        # C order whatever the caller's layout, so that the iterative solvers (lsqr) sum in one order:
        # a Fortran, strided or frame X gives the very same fit.
        X, y = check_fit_data(self, X, y, accept_sparse=("csr", "csc"), float32=True, y_numeric=True,
                              multi_output=True, order="C")
        check_magnitude(X, self)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        Y = np.asarray(y, dtype=np.float64).reshape(len(y), -1)
        alpha = _check_alpha(self.alpha, Y.shape[1])
        n = X.shape[0]
        sparse = scipy.sparse.issparse(X)
        if sparse and self.solver == "svd":
            raise ValueError("Ridge(solver='svd') needs a dense X; use solver='auto', 'cholesky' or 'lsqr' for a "
                             "sparse one.")
        self.n_iter_ = 1
        if sparse or self.solver == "lsqr":
            method = {"auto": "auto", "cholesky": "gram", "lsqr": "lsqr"}[self.solver]
            coef, x_mean, y_mean, lower, self.n_iter_ = solve_ridge_implicit(
                X, Y, sample_weight, alpha, self.fit_intercept, method=method, tol=self.tol, max_iter=self.max_iter)
            dof = None if lower is None else _ridge_dof_from_factor(lower, alpha[0])
        else:
            coef, x_mean, y_mean, lower, dof = self._dense_fit(X, Y, sample_weight, alpha)

        # In X's precision: a float32 X is not copied to float64 for this product.
        residual = (Y - y_mean) - (product_in_precision(X, coef) - x_mean @ coef)
        if sample_weight is not None:
            residual *= np.sqrt(sample_weight)[:, None]
        rss = np.einsum("ij,ij->j", residual, residual)
        return self._finish(coef, x_mean, y_mean, lower, dof, rss, n, np.ndim(y) == 1, X.dtype)

    def _finish(self, coef, x_mean, y_mean, lower, dof, rss, n_samples, single, dtype):
        """Set the fitted attributes from the solution ``coef`` (n_features, n_targets), the means,
        the Cholesky factor (or None), the degrees of freedom and the residual sums of squares per
        target. The one finishing step of ``fit`` and of ``lucidml.dask.Ridge``."""
        sigma2 = None
        if dof is not None:
            free = n_samples - dof - int(self.fit_intercept)
            sigma2 = rss / np.maximum(free, 1e-12)
        # One target gives a 1-D coef_ even for y of shape (n, 1), whose intercept_ keeps shape (1,):
        # scikit-learn's Ridge. The data's precision, as scikit-learn's: float32 in, float32 out.
        one_target = coef.shape[1] == 1
        coef = coef.T[0] if one_target else coef.T
        self.coef_ = in_precision(coef, dtype)
        intercept = intercept_from_means(x_mean, y_mean[0] if single else y_mean, coef, self.fit_intercept)
        self.intercept_ = in_precision(intercept, dtype)
        self.sigma2_ = None if sigma2 is None else (float(sigma2[0]) if one_target else sigma2)
        self._x_mean = x_mean
        self._gram_factor = lower  # Cholesky factor of XᵀSX + αI (centred), or None
        return self

    def _dense_fit(self, X, Y, sample_weight, alpha):
        """(coef of shape (d, n_targets), x̄, ȳ, Cholesky factor or None, dof) for a dense X."""
        n, d = X.shape
        if self.fit_intercept:
            x_mean, y_mean = column_means(X, sample_weight), column_means(Y, sample_weight)
        else:
            x_mean, y_mean = np.zeros(d), np.zeros(Y.shape[1])

        coef = lower = None
        if self.solver != "svd" and np.all(alpha == alpha[0]) and n >= d:
            gram, moment = centered_gram(X, Y, sample_weight, x_mean, y_mean)
            with factorization_threads(d):
                coef, lower = _ridge_primal(gram, moment, alpha[0], n)
            if coef is not None and alpha[0] == 0 and self.solver == "auto" and not trusted_factor(lower):
                # Least squares on an ill-conditioned X: the normal equations lose κ²ε (coefficients 0.6
                # off at κ = 1e8) where the SVD of X loses κε. (The factor stays, for return_std.)
                coef = None
            if coef is None and self.solver == "cholesky":
                raise ValueError("XᵀX + αI is singular (α = 0 with collinear features); use solver='svd'.")
        if coef is None:
            # On a float64 copy of a float32 X: float32's SVD counts features in small units as missing
            # (breast cancer's: the predictions moved by 0.5) and its XXᵀ loses them.
            Xc, Yc = X.astype(np.float64, copy=self.copy_X), Y.copy()
            x_mean, y_mean = center_and_weight(Xc, Yc, sample_weight, self.fit_intercept)
            one_alpha = np.all(alpha == alpha[0])
            coef = _ridge_dual(Xc, Yc, alpha[0]) if self.solver == "cholesky" and one_alpha else None
            if coef is None:
                coef, singular_values = _ridge_svd(Xc, Yc, alpha)
                dof = np.array([np.sum(singular_values**2 / (singular_values**2 + a)) for a in alpha])
            else:
                dof = _ridge_dof_from_trace(Xc, alpha[0])
        else:
            with factorization_threads(d):
                dof = _ridge_dof_from_factor(lower, alpha[0])

        return coef, x_mean, y_mean, lower, dof

    def predict(self, X, return_std=False):
        """Return X·w + b, and with ``return_std`` the predictive standard deviation (one target)."""
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse=("csr", "csc"), dtype=FLOAT_DTYPES)
        mean = X @ self.coef_.T + self.intercept_
        if not return_std:
            return mean
        if self._gram_factor is None or np.ndim(self.coef_) != 1:
            raise ValueError(
                "return_std needs one target, one alpha > 0 or a full-rank design, and n_samples >= n_features "
                "(the d × d posterior covariance); this fit has none of that factorization."
            )
        # z = L⁻¹(x − x̄) for every row; L⁻¹ once, so that a sparse X needs only a product.
        inverse = inverse_lower_triangular(self._gram_factor)
        z = np.asarray(X @ inverse.T).T - (inverse @ self._x_mean)[:, None]
        return mean, np.sqrt(self.sigma2_ * (1.0 + np.einsum("ij,ij->j", z, z)))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = True
        return tags


def _check_alpha(alpha, n_targets):
    alpha = np.asarray(alpha, dtype=np.float64).ravel()
    if np.any(~np.isfinite(alpha)) or np.any(alpha < 0):
        raise ValueError(f"alpha must be finite and non-negative; got {alpha}.")
    if alpha.size == 1:
        return np.full(n_targets, alpha[0])
    if alpha.size != n_targets:
        raise ValueError(f"alpha has {alpha.size} entries but y has {n_targets} targets.")
    return alpha


def _ridge_primal(gram, moment, alpha, n):
    """w = (XᵀX + αI)⁻¹XᵀY by Cholesky, X of n rows; return (w, L), or (None, None) when the system is
    singular (with α = 0: X rank-deficient to rounding, whose factor would solve its rounding)."""
    gram.flat[:: gram.shape[0] + 1] += alpha
    lower = cholesky_or_none(gram)
    if lower is None or (alpha == 0 and minimum_norm_if_deficient(gram, moment, n, lower) is not None):
        return None, None
    return scipy.linalg.cho_solve((lower, True), moment, check_finite=False), lower


def _ridge_dual(X, Y, alpha):
    """w = Xᵀ(XXᵀ + αI)⁻¹Y, the same solution through an n × n system (for n < d); None if singular."""
    kernel = X @ X.T
    kernel.flat[:: kernel.shape[0] + 1] += alpha
    lower = cholesky_or_none(kernel)  # (XXᵀ is the Gram matrix of Xᵀ, of d rows)
    if lower is None or (alpha == 0 and minimum_norm_if_deficient(kernel, Y, X.shape[1], lower) is not None):
        return None
    return X.T @ scipy.linalg.cho_solve((lower, True), Y, check_finite=False)


def _ridge_svd(X, Y, alpha):
    """w = V diag(s/(s² + α)) UᵀY per target (per-target α); singular values ≈ 0 give 0 (minimum norm).

    Returns (w, the singular values kept).
    """
    U, s, Vt = scipy.linalg.svd(X, full_matrices=False, check_finite=False)
    keep = s > max(X.shape) * np.finfo(X.dtype).eps * (s[0] if s.size else 0.0)
    U, s, Vt = U[:, keep], s[keep], Vt[keep]
    shrink = s[:, None] / (s[:, None] ** 2 + alpha[None, :])
    return Vt.T @ (shrink * (U.T @ Y)), s


def _ridge_dof_from_factor(lower, alpha):
    """dof = tr X(XᵀX + αI)⁻¹Xᵀ = d − α tr (XᵀX + αI)⁻¹ = d − α ‖L⁻¹‖²_F."""
    inverse_factor = inverse_lower_triangular(lower)
    return np.array([lower.shape[0] - alpha * np.sum(inverse_factor**2)])


def _ridge_dof_from_trace(X, alpha):
    """dof = Σ s²/(s² + α) over the singular values of X."""
    s = scipy.linalg.svdvals(X, check_finite=False)
    return np.array([np.sum(s**2 / (s**2 + alpha))])
