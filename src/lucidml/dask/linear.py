"""Least squares and ridge regression fitted chunk by chunk on a Dask array.

Each chunk reduces [X Y] to its count, means and centred scatter matrix (float64, about the
chunk's own means); merged in a tree (Chan et al.), they give the centred Gram matrix XcᵀXc and
moment XcᵀYc of all the data, and the d × d system is solved once on the client.
"""

import numpy as np
import scipy.linalg

from ..linear import LinearRegression as _LocalLinearRegression
from ..linear import Ridge as _LocalRidge
from ..linear._preprocess import intercept_from_means
from ..linear.ridge import _check_alpha, _ridge_dof_from_factor, _ridge_primal
from ..utils import Options
from ..utils.linalg import TRUSTED_CONDITION, cholesky_or_none, in_precision, scaled_eigen_split
from ..utils.validation import check_finite_fit
from ._base import DaskEstimator
from ._chunks import as_dask_X, as_dask_y, compute, map_chunks, tree_reduce
from ._moments import class_scatter, finite, merge_moments


def _chunk_moments(X, Y):
    """(n, mean, scatter) of the joined chunk [X Y], as one 'class' (no magnitude limit, as in memory:
    a scatter beyond float64 is refused where the chunks' statistics are merged)."""
    Z = np.hstack([finite(X, limit=None), finite(np.reshape(Y, (len(Y), -1)).astype(np.float64), "y", limit=None)])
    return class_scatter(Z, np.zeros(len(Z), dtype=np.intp), 1)


def _chunk_residuals(X, Y, x_mean, y_mean, coef):
    """(Xcᵀr, rᵀr per target) of one chunk for r = Yc − Xc W (W: n_features × n_targets)."""
    Xc = np.asarray(X, dtype=np.float64) - x_mean
    residual = np.reshape(Y, (len(Y), -1)) - y_mean - Xc @ coef
    return Xc.T @ residual, np.einsum("ij,ij->j", residual, residual)


def _add(a, b):
    return tuple(x + y for x, y in zip(a, b))


class _LeastSquaresStatistics:
    """The merged statistics of a regression on dask data: the Gram matrix and moment of the
    (centred, if ``fit_intercept``) problem, the means, and a second pass for residuals."""

    def __init__(self, X, y, fit_intercept):
        self.X, self.names = as_dask_X(X)
        self.Y = as_dask_y(y, self.X)
        self.single = self.Y.ndim == 1
        if self.Y.dtype.kind not in "biuf":
            raise TypeError(f"y must be numeric for a regression; got dtype {self.Y.dtype}.")
        count, mean, scatter = compute(tree_reduce(map_chunks(_chunk_moments, self.X, self.Y), merge_moments))[0]
        self.n, mean, scatter = float(count[0]), mean[0], scatter[0]
        if not np.all(np.isfinite(scatter)):  # squares of values near 1e154 and beyond (a wrong intercept at 1e200)
            raise ValueError("The sums of squares of X and y overflowed float64 (values beyond about 1e150); "
                             "rescale X and y (e.g. StandardScaler).")
        d = self.X.shape[1]
        if not fit_intercept:  # the raw products XᵀX, XᵀY: add back the mean's part
            scatter = scatter + self.n * np.outer(mean, mean)
            mean = np.zeros_like(mean)
        self.x_mean, self.y_mean = mean[:d], mean[d:]
        self.gram, self.moment = scatter[:d, :d], scatter[:d, d:]

    def residuals(self, coef):
        """(Xcᵀr, rᵀr) summed over the chunks, for coefficients ``coef`` (n_features, n_targets)."""
        parts = map_chunks(_chunk_residuals, self.X, self.Y, self.x_mean, self.y_mean, coef)
        return compute(tree_reduce(parts, _add))[0]


class LinearRegression(DaskEstimator):
    """Ordinary least squares on a Dask array or DataFrame, fitted data-parallel.

    The normal equations XcᵀXc w = XcᵀYc are formed from per-chunk centred statistics merged in a
    tree, and solved once. ``"lstsq"``: as the in-memory ``"lstsq"`` for tall, well-conditioned
    X — Cholesky of XcᵀXc, then one step of iterative refinement w ← w + (XcᵀXc)⁻¹Xcᵀ(Yc − Xc w),
    whose products are a second pass over the chunks (as accurate as a QR solve when κ(X) ≤ 1e4);
    when XcᵀXc is singular or worse conditioned, the minimum-norm solution from its
    eigendecomposition (eigenvalues below max(n, d)·ε·λ_max count as zero; error about κ²ε, not
    the κε of the in-memory rank-revealing QR, which needs the rows themselves).
    ``"normal"``: Cholesky only, and a singular system raises.

    Parameters
    ----------
    fit_intercept : bool, default=True
    solver : {"lstsq", "normal"}, default="lstsq"

    Attributes
    ----------
    coef_, intercept_, rank_, n_iter_, n_features_in_, feature_names_in_
        As :class:`lucidml.linear.LinearRegression`.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import LinearRegression
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> y = 1.0 + X @ np.array([2.0, -1.0])
    >>> reg = LinearRegression().fit(da.from_array(X, chunks=(6, 2)), da.from_array(y, chunks=6))
    >>> print(reg.coef_.round(6), round(reg.intercept_, 6), reg.rank_)
    [ 2. -1.] 1.0 2
    >>> reg.predict(da.from_array(np.array([[1.0, 1.0]]))).compute().round(6)
    array([2.])
    >>> client.close()
    """

    _local_class = _LocalLinearRegression
    _parameter_constraints = {"fit_intercept": ["boolean"], "solver": [Options({"lstsq", "normal"})]}

    def __init__(self, *, fit_intercept=True, solver="lstsq"):
        self.fit_intercept = fit_intercept
        self.solver = solver

    def fit(self, X, y):
        """Fit on X (n_samples, n_features) and y (n_samples,) or (n_samples, n_targets), dask collections."""
        local = self._new_local()
        data = _LeastSquaresStatistics(X, y, self.fit_intercept)
        gram, moment, d = data.gram, data.moment, data.gram.shape[0]
        coef, rank = None, d
        if self.solver == "normal":
            lower = cholesky_or_none(gram)
            if lower is None:
                raise ValueError("XᵀX is singular (collinear or constant features, or fewer samples than features), "
                                 "so the normal equations have no unique solution; use solver='lstsq'.")
            coef = scipy.linalg.cho_solve((lower, True), moment, check_finite=False)
        elif data.n >= 2 * d:
            try:
                upper = scipy.linalg.cholesky(gram, lower=False, check_finite=False)
                reciprocal_condition, _ = scipy.linalg.lapack.dtrcon(upper, norm="1", uplo="U")
            except scipy.linalg.LinAlgError:
                reciprocal_condition = 0.0
            if reciprocal_condition * TRUSTED_CONDITION >= 1.0:  # κ(R) estimates κ(X)
                coef = scipy.linalg.cho_solve((upper, False), moment, check_finite=False)
                correction, _ = data.residuals(coef)  # one refinement step: a second pass over the chunks
                coef += scipy.linalg.cho_solve((upper, False), correction, check_finite=False)
        if coef is None:
            coef, rank = _minimum_norm(gram, moment, data.n)
        coef = coef.T[0] if data.single else coef.T
        intercept = intercept_from_means(data.x_mean, data.y_mean[0] if data.single else data.y_mean, coef,
                                         self.fit_intercept)
        check_finite_fit(local, coefficients=coef, intercept=intercept)
        dtype = data.X.dtype
        local.coef_, local.intercept_, local.rank_, local.n_iter_ = (in_precision(coef, dtype),
                                                                     in_precision(intercept, dtype), rank, 1)
        return self._publish(local, d, data.names)


class Ridge(DaskEstimator):
    """Ridge regression on a Dask array or DataFrame, fitted data-parallel.

    (XcᵀXc + αI) w = XcᵀYc with XcᵀXc and XcᵀYc merged from per-chunk centred statistics,
    solved once by Cholesky (one α per target allowed); the residual sums of squares for
    ``sigma2_`` come from a second pass over the chunks. The fitted attributes are set by
    :class:`lucidml.linear.Ridge`'s own finishing code, so ``predict(X, return_std=True)`` works
    on the model from :meth:`to_local`.

    Parameters
    ----------
    alpha : float or array-like of shape (n_targets,), default=1.0
    fit_intercept : bool, default=True

    Attributes
    ----------
    coef_, intercept_, sigma2_, n_iter_, n_features_in_, feature_names_in_
        As :class:`lucidml.linear.Ridge`.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import Ridge
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([1.0, 3.0, 5.0, 7.0])
    >>> reg = Ridge(alpha=1.0).fit(da.from_array(X, chunks=(2, 1)), da.from_array(y, chunks=2))
    >>> round(float(reg.coef_[0]), 4), round(float(reg.intercept_), 4)
    (1.6667, 1.5)
    >>> client.close()
    """

    _local_class = _LocalRidge
    _parameter_constraints = {k: _LocalRidge._parameter_constraints[k] for k in ("alpha", "fit_intercept")}

    def __init__(self, alpha=1.0, *, fit_intercept=True):
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        """Fit on X (n_samples, n_features) and y (n_samples,) or (n_samples, n_targets), dask collections."""
        local = self._new_local()
        data = _LeastSquaresStatistics(X, y, self.fit_intercept)
        alpha = _check_alpha(self.alpha, data.moment.shape[1])
        d = data.gram.shape[0]
        coef, dof, lower = np.empty_like(data.moment), np.empty(len(alpha)), None
        for a in np.unique(alpha):
            targets = alpha == a
            coef_a, factor = _ridge_primal(data.gram.copy(), data.moment[:, targets], a, data.n)
            if coef_a is None and a == 0:  # X rank-deficient: the minimum-norm solution, as in memory
                coef[:, targets], dof[targets] = _minimum_norm(data.gram, data.moment[:, targets], data.n)
                lower = None
                continue
            if coef_a is None:
                raise ValueError("XᵀX + αI is singular (α too small beside the features' scale); use a larger α.")
            coef[:, targets], dof[targets] = coef_a, _ridge_dof_from_factor(factor, a)[0]
            lower = factor if len(np.unique(alpha)) == 1 else None  # as the in-memory SVD route: no factor
        _, rss = data.residuals(coef)
        local.n_iter_ = 1
        local._finish(coef, data.x_mean, data.y_mean, lower, dof, rss, data.n, data.single, data.X.dtype)
        return self._publish(local, d, data.names)


def _minimum_norm(gram, moment, n):
    """(w, rank): the least-squares solution of least norm from XcᵀXc and XcᵀYc, the eigenvalues of
    the scaled XcᵀXc at its rounding level taken as zero (``utils.linalg.scaled_eigen_split``; where
    the spectrum does not split cleanly, every other direction kept: no QR of X to hand this to, as
    the in-memory fit does)."""
    split = scaled_eigen_split(gram, n, clean=False)
    if split is None:  # X all zero (an overflowed Gram matrix is refused before)
        return np.zeros(moment.shape), 0
    return split.least_norm(moment), split.rank
