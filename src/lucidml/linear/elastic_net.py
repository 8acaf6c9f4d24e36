"""Lasso and elastic net by cyclic coordinate descent with soft-thresholding, and their paths."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, check_sample_weight, validate_params
from ..utils.centered import column_means
from ..utils.linalg import blas_threads, in_precision, product_in_precision
from ..utils.validation import FLOAT_DTYPES, check_count, check_fit_data, check_positive, check_predict_data
from . import _cd_kernels
from ._preprocess import center_and_weight, intercept_from_means

__all__ = ["ElasticNet", "Lasso", "enet_path", "lasso_path"]


class ElasticNet(RegressorMixin, BaseEstimator):
    """Linear regression with a combined L1 and L2 penalty, fitted by coordinate descent.

    Minimizes, with scikit-learn's scaling (ρ = ``l1_ratio``),

        J(w, b) = 1/(2n) Σᵢ sᵢ (yᵢ − w·xᵢ − b)² + α ρ ‖w‖₁ + ½ α (1 − ρ) ‖w‖²

    (Zou & Hastie 2005; named in seed 002 §6.4.1). The intercept is not penalized. Each
    coordinate is minimized exactly in turn (cyclic coordinate descent, seed 000 §6.9, 004 §13):

        wⱼ ← S(xⱼᵀ(r + xⱼwⱼ), nαρ) / (‖xⱼ‖² + nα(1 − ρ)),   S(z, t) = sign(z) max(|z| − t, 0),

    keeping the residual r = y − Xw − b up to date, so that exact zeros appear (a subgradient
    method only oscillates around them, seed 002 §6.4.3). After a sweep over all coordinates,
    sweeps run over the non-zero ones only until they settle (the active-set strategy of
    Friedman, Hastie & Tibshirani 2010). A full sweep ends the fit when the duality gap is at
    most ``tol``·‖y‖² (the same test as scikit-learn's).

    Parameters
    ----------
    alpha : float, default=1.0
        Overall penalty strength α ≥ 0 (α = 0 is least squares; use LinearRegression instead).
    l1_ratio : float in [0, 1], default=0.5
        ρ, the L1 share of the penalty: 1 is the lasso, 0 is ridge (with scikit-learn's
        ½α‖w‖² scaling).
    fit_intercept : bool, default=True
    max_iter : int, default=1000
        Maximum number of sweeps over the coordinates (full and active-set sweeps together).
    tol : float, default=1e-4
        Duality-gap tolerance, relative to ‖y − ȳ‖².
    warm_start : bool, default=False
        Start from the previous ``coef_`` (how :func:`enet_path` walks down a path of α).
    positive : bool, default=False
        Constrain the weights to be non-negative.
    selection : {"cyclic", "random"}, default="cyclic"
        Visit coordinates in order, or in a new random order each sweep.
    random_state : int, RandomState instance or None, default=None
        Seeds the random order.
    copy_X : bool, default=True
        If False and X is already a Fortran-ordered array, X is centred in place; otherwise the
        fit works on a centred Fortran-ordered copy.
    verbose : int, default=0
        1 or more prints ``Iteration t, objective = J`` after every coordinate-descent sweep (the
        values of ``loss_curve_``, per target) and ``Converged at iteration t: duality gap …``
        on standard output; 0 prints nothing.

    X may be a SciPy sparse matrix (read by columns, CSC; never densified or centred in memory:
    the centring is carried through the residual, as scikit-learn does) and float32 (centred copy,
    ``coef_`` and predictions float32; the coordinates are solved in float64).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        1-D for one target, also when y has shape (n_samples, 1) (as scikit-learn's).
    intercept_ : float or ndarray of shape (n_targets,)
        A float when y is 1-D.
    n_iter_ : int or list of int
        Sweeps performed (per target for several targets).
    dual_gap_ : float or ndarray
        Duality gap at the end, in the objective's scale above.
    loss_curve_ : ndarray
        J after each sweep (the first target's, for several targets).

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear import ElasticNet
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = 3 * X[:, 0] - 2 * X[:, 1] + 0.1 * rng.normal(size=200)
    >>> enet = ElasticNet(alpha=0.1, l1_ratio=0.9).fit(X, y)
    >>> np.round(enet.coef_, 1)
    array([ 2.9, -1.9,  0. ,  0. ,  0. ])
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both")],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        "positive": ["boolean"],
        "selection": [Options({"cyclic", "random"})],
        "random_state": ["random_state"],
        "copy_X": ["boolean"],
        "verbose": VERBOSE,
    }

    def __init__(self, alpha=1.0, *, l1_ratio=0.5, fit_intercept=True, max_iter=1000, tol=1e-4, warm_start=False,
                 positive=False, selection="cyclic", random_state=None, copy_X=True, verbose=0):
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.positive = positive
        self.selection = selection
        self.random_state = random_state
        self.verbose = verbose
        self.copy_X = copy_X

    def fit(self, X, y, sample_weight=None):
        """Fit on X (n_samples, n_features) and y (n_samples,) or (n_samples, n_targets)."""
        validate_params(self)
        if self.alpha == 0:
            warnings.warn("alpha=0 is ordinary least squares, which coordinate descent solves slowly; "
                          "use lucidml.linear.LinearRegression.", UserWarning, stacklevel=2)
        X, y = check_fit_data(self, X, y, accept_sparse="csc", float32=True, y_numeric=True, multi_output=True)
        n, d = X.shape
        sample_weight = check_sample_weight(sample_weight, n)
        if sample_weight is not None:
            sample_weight = sample_weight * (n / sample_weight.sum())  # as scikit-learn: weights sum to n
        Y = np.array(y, dtype=np.float64).reshape(n, -1)
        if not scipy.sparse.issparse(X) and X.flags.f_contiguous and not self.copy_X:
            x_mean, y_mean = center_and_weight(X, Y, sample_weight, self.fit_intercept)
            design = _DenseDesign(X)
        else:
            x_mean = column_means(X, sample_weight) if self.fit_intercept else np.zeros(d)
            _, y_mean = center_and_weight(None, Y, sample_weight, self.fit_intercept)
            if scipy.sparse.issparse(X):
                design = _SparseDesign(X, x_mean, sample_weight)
            else:  # one pass writes the centred copy in the column order coordinate descent reads
                root_w = np.ones(n) if sample_weight is None else np.sqrt(sample_weight)
                design = _DenseDesign(_cd_kernels.centred_fortran_copy(np.ascontiguousarray(X), x_mean, root_w))

        start = np.zeros((Y.shape[1], d))
        if self.warm_start and hasattr(self, "coef_") and np.size(self.coef_) == start.size:
            start = np.reshape(self.coef_, start.shape).copy()
        rng = check_random_state(self.random_state)
        l1, l2 = n * self.alpha * self.l1_ratio, n * self.alpha * (1.0 - self.l1_ratio)
        coefs, n_iters, gaps = [], [], []
        log = IterationLog(self.verbose)
        for k in range(Y.shape[1]):
            # The sweeps are serial; a second BLAS thread for the few vector products between them
            # saves microseconds, and costs milliseconds per product when another process holds the core.
            with blas_threads(1):
                w, n_iter, gap, losses = _elastic_net_cd(design, Y[:, k].copy(), start[k], l1, l2, self.max_iter,
                                                         self.tol, self.positive, self.selection, rng, log, n)
            coefs.append(w)
            n_iters.append(n_iter)
            gaps.append(gap / n)
            if k == 0:
                self.loss_curve_ = np.asarray(losses) / n
        # One target gives a 1-D coef_ and scalar n_iter_ and dual_gap_ even for y of shape (n, 1),
        # whose intercept_ keeps shape (1,): scikit-learn's.
        one_target = Y.shape[1] == 1
        coef = coefs[0] if one_target else np.array(coefs)
        intercept = intercept_from_means(x_mean, y_mean[0] if np.ndim(y) == 1 else y_mean, coef, self.fit_intercept)
        # The data's precision, as scikit-learn's (the coordinates are solved in float64).
        self.coef_, self.intercept_ = in_precision(coef, X.dtype), in_precision(intercept, X.dtype)
        self.n_iter_ = n_iters[0] if one_target else n_iters
        self.dual_gap_ = gaps[0] if one_target else np.array(gaps)
        return self

    def predict(self, X):
        """Return X·w + b."""
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse=("csr", "csc"), dtype=FLOAT_DTYPES)
        return X @ self.coef_.T + self.intercept_

    @property
    def sparse_coef_(self):
        """``coef_`` as a SciPy sparse matrix."""
        import scipy.sparse

        return scipy.sparse.csr_array(np.atleast_2d(self.coef_))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = True
        return tags


class Lasso(ElasticNet):
    """Linear regression with an L1 penalty (the lasso), fitted by coordinate descent.

    Minimizes, with scikit-learn's scaling,

        J(w, b) = 1/(2n) Σᵢ sᵢ (yᵢ − w·xᵢ − b)² + α ‖w‖₁

    (seeds 000 §1.7.4 and §9.1, 002 §6.4.3): the elastic net with ``l1_ratio=1``, see
    :class:`ElasticNet` for the algorithm. As α grows, weights reach exactly zero one after another;
    from α ≥ max |Xᵀ(y − ȳ)|/n on, all are zero.

    Parameters
    ----------
    alpha : float, default=1.0
    fit_intercept, max_iter, tol, warm_start, positive, selection, random_state, copy_X, verbose
        As in :class:`ElasticNet`.

    Attributes
    ----------
    coef_, intercept_, n_iter_, dual_gap_, loss_curve_
        As in :class:`ElasticNet`.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear import Lasso
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> y = 2.0 * X[:, 0]
    >>> np.round(Lasso(alpha=0.1).fit(X, y).coef_, 3)
    array([1.92, 0.  ])
    """

    _parameter_constraints = {k: v for k, v in ElasticNet._parameter_constraints.items() if k != "l1_ratio"}

    def __init__(self, alpha=1.0, *, fit_intercept=True, max_iter=1000, tol=1e-4, warm_start=False, positive=False,
                 selection="cyclic", random_state=None, copy_X=True, verbose=0):
        super().__init__(alpha=alpha, l1_ratio=1.0, fit_intercept=fit_intercept, max_iter=max_iter, tol=tol,
                         warm_start=warm_start, positive=positive, selection=selection, random_state=random_state,
                         copy_X=copy_X, verbose=verbose)


def _elastic_net_cd(design, y, w0, l1, l2, max_iter, tol, positive, selection, rng, log=None, n=1):
    """Coordinate descent on the centred design; return (w, sweeps, duality gap, objective per sweep).
    ``log`` (an ``IterationLog``) prints the objective / ``n`` after each sweep.

    ``y`` is the centred, √weight-scaled target ỹ. Full sweeps alternate with sweeps over the
    active set {j : wⱼ ≠ 0} while it holds at most half the features; only a full sweep may stop
    the fit, by the duality gap ≤ tol·‖ỹ‖², checked after every full sweep (after every one whose
    steps have settled once all sweeps are full, as scikit-learn's).
    """
    d = design.n_features
    w = np.array(w0, dtype=np.float64)
    design.start(y, w)
    gap_tol = tol * float(y @ y)
    if l1 > 0.0 and not np.any(w):
        # w = 0 is optimal exactly when no |X̃ⱼᵀỹ| exceeds l1 (α ≥ α_max). Decided here, with a
        # round-off margin, so that α_max itself (a path's first α) gives exact zeros.
        correlations = design.correlations(w)
        largest = float(np.max(correlations if positive else np.abs(correlations), initial=0.0))
        if largest <= l1 * (1.0 + 1e-10):
            residual = design.residual(w)
            gap = _cd_kernels.duality_gap(correlations, residual, y, w, l1, l2, positive)
            return w, 1, gap, [_cd_kernels.objective(residual, w, l1, l2)]
    everything = np.arange(d)
    full, dense, losses, gap = True, False, [], np.inf
    for n_iter in range(1, max_iter + 1):
        order = everything if full else np.flatnonzero(w)
        if selection == "random":
            order = rng.permutation(order)
        max_change, max_w = design.sweep(w, l1, l2, order, positive)
        losses.append(_cd_kernels.objective(design.residual(w), w, l1, l2))
        if log:
            log.iteration(n_iter, objective=losses[-1] / n)
        settled = max_change <= tol * max_w or max_w == 0.0
        # The gap, not the size of the last step, decides: a coefficient that round-off moves
        # between 0 and ±1e-17 (at α = α_max) never "settles" relative to itself. It is checked
        # after every full sweep, but when every sweep is full (``dense``) only once the steps
        # have settled, as scikit-learn does.
        if full and (settled or not dense):
            gap = _cd_kernels.duality_gap(design.correlations(w), design.residual(w), y, w, l1, l2, positive)
            if gap <= gap_tol:
                if log:
                    log.converged(n_iter, gap / n, gap_tol / n, name="duality gap")
                return w, n_iter, gap, losses
        # After a full sweep, work on the active set; once that settles, check everything again.
        # An active set of more than half the features saves less than half a sweep, and only a
        # full sweep can admit the features still at 0: then every sweep is full (10,000 × 1,000,
        # 505 nonzeros: 5 full sweeps instead of 3 full and 6 active ones).
        nonzero = np.count_nonzero(w)
        dense = 2 * nonzero > d
        full = settled or nonzero == 0 or dense
    gap = _cd_kernels.duality_gap(design.correlations(w), design.residual(w), y, w, l1, l2, positive)
    warnings.warn(f"Coordinate descent stopped at max_iter={max_iter} sweeps with duality gap {gap:.3g} "
                  f"> tol·‖y‖² = {gap_tol:.3g}; increase max_iter or tol.", ConvergenceWarning, stacklevel=3)
    return w, max_iter, gap, losses


class _DenseDesign:
    """The centred, √weight-scaled X̃ as a Fortran-ordered array, and the residual r̃ = ỹ − X̃w."""

    def __init__(self, X):
        self.X = X
        self.n_features = X.shape[1]
        self.col_sq = np.einsum("ij,ij->j", X, X, dtype=np.float64)

    def start(self, y, w):
        # (w = 0, a cold start: r = y without a pass over X)
        self._residual = y - product_in_precision(self.X, w) if np.any(w) else y.copy()

    def sweep(self, w, l1, l2, order, positive):
        return _cd_kernels.sweep(self.X, self._residual, w, self.col_sq, l1, l2, order, positive)

    def residual(self, w):
        return self._residual

    def correlations(self, w):
        return product_in_precision(self.X.T, self._residual)


class _SparseDesign:
    """A sparse X (CSC), centred and weighted implicitly (:class:`_cd_kernels.SparseColumns`): the
    uncentred residual R = ỹ/√s − Xw is kept, and r̃ = √s ∘ (R + x̄·w) formed only when asked."""

    def __init__(self, X, x_mean, sample_weight):
        n, self.n_features = X.shape
        self.X = X
        weight = np.ones(n) if sample_weight is None else sample_weight
        total = float(weight.sum())
        squares = np.asarray(X.multiply(X).T @ weight, dtype=np.float64).ravel()
        col_sq = np.maximum(squares - total * x_mean**2, 0.0)
        self.columns = _cd_kernels.SparseColumns(X.indptr, X.indices, X.data, x_mean, weight, total, col_sq)
        self._root_w = np.sqrt(weight)

    def start(self, y, w):
        # R = ỹ/√s − Xw; a sample of weight 0 takes no part (its Rᵢ is never read with weight > 0).
        unscaled = np.divide(y, self._root_w, out=np.zeros_like(y), where=self._root_w > 0)
        self._R = unscaled - product_in_precision(self.X, w)
        self._weighted_sum = np.array([float(self.columns.weight @ self._R)])

    def sweep(self, w, l1, l2, order, positive):
        return _cd_kernels.sparse_sweep(self.columns, self._R, self._weighted_sum, w, l1, l2, order, positive)

    def residual(self, w):
        return self._root_w * (self._R + float(self.columns.mean @ w))

    def correlations(self, w):
        # X̃ᵀr̃ = Xᵀ(s ∘ (R + μ)) − x̄ Σᵢ sᵢ(Rᵢ + μ), μ = x̄·w
        scaled = self.columns.weight * (self._R + float(self.columns.mean @ w))
        return product_in_precision(self.X.T, scaled).ravel() - self.columns.mean * scaled.sum()


def enet_path(X, y, *, l1_ratio=0.5, alphas=None, n_alphas=100, eps=1e-3, fit_intercept=True, max_iter=1000,
              tol=1e-4, positive=False):
    """Elastic-net solutions along a decreasing grid of α, each started from the previous one.

    Warm starts make the whole path cost little more than one fit: neighbouring solutions are
    close, and few coordinates are active at large α.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    l1_ratio : float, default=0.5
    alphas : array-like, optional
        The grid; by default ``n_alphas`` values spaced evenly in log between α_max (the smallest
        α whose solution is all zero, max|Xᵀ(y − ȳ)|/(nρ)) and ``eps``·α_max.
    n_alphas : int, default=100
    eps : float, default=1e-3
    fit_intercept, max_iter, tol, positive
        As in :class:`ElasticNet`.

    Returns
    -------
    alphas : ndarray of shape (n_alphas,), decreasing
    coefs : ndarray of shape (n_features, n_alphas)
    dual_gaps : ndarray of shape (n_alphas,)

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear import lasso_path
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3))
    >>> y = X @ np.array([2.0, -1.0, 0.0])
    >>> alphas, coefs, _ = lasso_path(X, y, n_alphas=5)
    >>> (coefs != 0).sum(axis=0)       # the two real features enter as α decreases; the third never does
    array([0, 2, 2, 2, 2])
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"enet_path takes one target: y must be 1-D, not of shape {y.shape}.")
    if l1_ratio <= 0 and alphas is None:
        raise ValueError("The default α grid needs l1_ratio > 0; pass alphas for a ridge-only path.")
    if alphas is None:
        eps, n_alphas = check_positive(eps, "eps"), check_count(n_alphas, "n_alphas")
        centred = y - y.mean() if fit_intercept else y
        scale = X - X.mean(axis=0) if fit_intercept else X
        alpha_max = np.max(np.abs(scale.T @ centred), initial=0.0) / (len(y) * l1_ratio)
        resolution = np.finfo(np.float64).resolution
        # α_max at the resolution of float64 (y constant, X constant after centring, or data in units
        # near 1e-8): every α of the grid is that resolution, as scikit-learn's grid
        if alpha_max <= resolution:
            alphas = np.full(n_alphas, resolution)
        else:
            alphas = np.geomspace(alpha_max, alpha_max * eps, n_alphas)
    alphas = np.sort(np.asarray(alphas, dtype=np.float64))[::-1]
    model = ElasticNet(l1_ratio=l1_ratio, fit_intercept=fit_intercept, max_iter=max_iter, tol=tol,
                       positive=positive, warm_start=True)
    coefs, gaps = [], []
    for alpha in alphas:
        model.set_params(alpha=alpha).fit(X, y)
        coefs.append(model.coef_.copy())
        gaps.append(model.dual_gap_)
    return alphas, np.array(coefs).T, np.array(gaps)


def lasso_path(X, y, **kwargs):
    """The lasso's path of solutions: :func:`enet_path` with ``l1_ratio=1``."""
    return enet_path(X, y, l1_ratio=1.0, **kwargs)
