"""Kernel ridge regression: ridge regression in the feature space of a kernel, solved in the dual."""

import warnings
from numbers import Real
from typing import ClassVar

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ..utils import Interval, Options, check_sample_weight, validate_params
from ..utils.linalg import cholesky_factor, in_precision, refine_cholesky_solve, shifted_copy
from ..utils.validation import (
    FLOAT_DTYPES,
    N_BY_N_ADVICE,
    check_fit_data,
    check_magnitude,
    check_predict_data,
    check_square_fits,
)
from .pairwise import KERNELS, _kernel_params, finite_gram, finite_values, kernel_times, pairwise_kernels, takes_sparse


class KernelRidge(RegressorMixin, BaseEstimator):
    """Kernel ridge regression (Saunders, Gammerman & Vovk 1998).

    Ridge regression min_w Σᵢ sᵢ(yᵢ − wᵀφ(xᵢ))² + λ‖w‖² (000 §1.6) with w = Σᵢ βᵢφ(xᵢ) (the kernel trick,
    004 §9) becomes, with S = diag(s) the sample weights, the linear system

        (S^½ K S^½ + λI) β̃ = S^½ y,    β = S^½ β̃,

    solved by a Cholesky factorisation (least squares if the matrix is not positive definite, e.g. λ = 0
    with a singular K or a non-Mercer kernel). Predictions are f(x) = Σᵢ βᵢ k(xᵢ, x) (+ ȳ, see
    ``center_y``). It is the fixed point of :class:`~lucidml.kernels.kernel_lms.KernelLMS` with the same λ.

    Float32 X is fitted in float32, as in scikit-learn: K and its Cholesky factor take half the memory,
    and ``dual_coef_`` and the predictions are float32. The float32 solve is refined in float64
    (residuals y − (K + λI)β summed in float64, a few steps), so β is the float64 solution of the
    float32 system up to its final rounding whenever cond(K + λI) ≪ 1/ε₃₂ ≈ 1.7e7.

    Parameters
    ----------
    alpha : float or array-like of shape (n_targets,), default=1.0
        Ridge penalty λ ≥ 0 (one per target if an array), as in scikit-learn.
    kernel : str or callable, default="linear"
        A name of :data:`lucidml.kernels.pairwise.KERNELS`, "precomputed" (X is then the Gram matrix),
        or a callable (see :func:`~lucidml.kernels.pairwise.pairwise_kernels`).
    gamma, degree, coef0 : float, int, float
        Kernel parameters, passed to named kernels that accept them (gamma=None: 1/n_features).
    kernel_params : dict or None, default=None
        Further keyword arguments of the kernel (the only ones a callable receives).
    center_y : bool, default=False
        There is no intercept (the constant can live in the kernel, e.g. coef0 of "polynomial"). With
        True, y is centred by its (weighted) mean ȳ before the solve and ȳ is added back in ``predict``
        (the specification's form); this helps kernels that decay to 0 far from the data (rbf). The
        default False departs from that to fit exactly scikit-learn's ``KernelRidge``.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The dual weights β.
    X_fit_ : ndarray of shape (n_samples, n_features)
        Training inputs (the Gram matrix for kernel="precomputed"), needed to predict.
    y_mean_ : float or ndarray of shape (n_targets,)
        The ȳ added to predictions (0 unless ``center_y``).
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.kernels.kernel_ridge import KernelRidge
    >>> X = np.linspace(0, 3, 20).reshape(-1, 1)
    >>> y = np.sin(X[:, 0])
    >>> model = KernelRidge(alpha=1e-3, kernel="rbf", gamma=1.0).fit(X, y)
    >>> round(float(model.predict([[1.5]])[0]), 2)
    1.0
    """

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "kernel": [Options(set(KERNELS) | {"precomputed"}), "callable"],
        "gamma": [Interval(Real, 0, None, closed="left"), None],
        "degree": [Interval(Real, 0, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "kernel_params": [dict, None],
        "center_y": ["boolean"],
    }

    def __init__(self, alpha=1.0, *, kernel="linear", gamma=None, degree=3, coef0=1.0, kernel_params=None,
                 center_y=False):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.center_y = center_y

    def _gram(self, X, Y=None):
        params = _kernel_params(self.kernel, self.gamma, self.degree, self.coef0, self.kernel_params)
        return pairwise_kernels(X, Y, kernel=self.kernel, **params)

    def fit(self, X, y, sample_weight=None):
        """Fit on X (n_samples, n_features) — or the Gram matrix if kernel="precomputed" — and y."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, accept_sparse="csr" if takes_sparse(self.kernel) else False,
                              y_numeric=True, multi_output=True, float32=True)
        check_magnitude(X, self)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(f"kernel='precomputed' needs a square Gram matrix, got shape {X.shape}.")
        # The Gram matrix K (unless given) and the factor of K + λI: a float64 K of our own is factored
        # in its place (see _solve_spd).
        owned = isinstance(self.kernel, str) and self.kernel != "precomputed"  # (a callable's array may be kept)
        own_factor = owned and X.dtype == np.float64 and np.size(self.alpha) == 1
        check_square_fits(self, X.shape[0], copies=1 if own_factor or self.kernel == "precomputed" else 2,
                          what="the kernel matrix and its factor", itemsize=X.dtype.itemsize, advice=N_BY_N_ADVICE)
        alpha = np.atleast_1d(np.asarray(self.alpha, dtype=np.float64))
        n_targets = 1 if y.ndim == 1 else y.shape[1]
        if alpha.ndim != 1 or alpha.size not in (1, n_targets) or np.any(alpha < 0) or not np.all(np.isfinite(alpha)):
            raise ValueError(f"alpha must be a non-negative float or one per target ({n_targets}), got {self.alpha!r}.")
        y = np.array(y, dtype=np.float64)
        y_mean = np.average(y, axis=0, weights=sample_weight) if self.center_y else np.zeros(y.shape[1:])
        if self.center_y:
            y -= y_mean
        # A K of our own may be weighted and factored in its place, and made again if it must.
        remake = (lambda: self._gram(X)) if owned else None
        K = finite_gram(self._gram(X), self)
        self.dual_coef_ = in_precision(_kernel_ridge_solve(K, y, alpha, sample_weight, remake), X.dtype)
        self.y_mean_ = in_precision(float(y_mean) if y.ndim == 1 else y_mean, X.dtype)  # predict keeps X's precision
        self.X_fit_ = X
        return self

    def predict(self, X):
        """f(x) = Σᵢ βᵢ k(xᵢ, x) + ȳ; for kernel="precomputed", X is K(X_test, X_train)."""
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse="csr" if takes_sparse(self.kernel) else False,
                               dtype=FLOAT_DTYPES)
        if self.kernel == "linear" and not self.kernel_params:
            # Σᵢ βᵢ xᵢᵀx = (Xᵀβ)ᵀx: the primal weights, d numbers, instead of an n_test × n_train Gram matrix.
            with np.errstate(over="ignore", invalid="ignore"):
                return finite_values(X @ (self.X_fit_.T @ self.dual_coef_) + self.y_mean_, self, X)
        if self.kernel == "precomputed":
            return X @ self.dual_coef_ + self.y_mean_
        return finite_values(kernel_times(lambda rows: self._gram(rows, self.X_fit_), X, self.X_fit_.shape[0],
                                          self.dual_coef_), self, X) + self.y_mean_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = takes_sparse(self.kernel)
        tags.target_tags.multi_output = True
        return tags


def _kernel_ridge_solve(K, y, alpha, sample_weight, remake=None):
    """β = S^½ (S^½ K S^½ + λI)⁻¹ S^½ y, by Cholesky (one λ for all targets) or per target.

    ``remake``: K is the caller's to overwrite, and ``remake()`` makes it again. The weighting and,
    for one float64 λ, the shift and the factorization then happen in K's memory: one n × n
    array at the peak instead of two or three."""
    Y = y.reshape(len(y), -1)
    weighted = sample_weight is not None
    if weighted:
        # Weights c·s with λ are weights s with λ/c (the same β): scaled to at most 1, so that √s of
        # weights near 1e300 stays finite in a float32 K.
        top = float(sample_weight.max())
        sample_weight, alpha = sample_weight / top, alpha / top
        if not np.all(np.isfinite(alpha)):
            raise ValueError(f"alpha / the largest sample weight ({top:.3g}) is beyond any float: with weights this "
                             "small the penalty is all there is. Rescale the weights (only their ratios matter).")
        root = np.sqrt(sample_weight)
        root_k = root.astype(K.dtype, copy=False)  # no float64 n × n temporary for a float32 K
        if remake is None:
            K = K * root_k[:, None]
        else:
            K *= root_k[:, None]
            made = remake
            remake = lambda: made() * root_k[:, None] * root_k  # noqa: E731
        K *= root_k  # (by rows, then columns: no n × n outer product)
        Y = Y * root[:, None]
    if alpha.size == 1:
        beta = _solve_spd(K, alpha[0], Y, remake)
    else:
        beta = np.column_stack([_solve_spd(K, a, Y[:, [k]])[:, 0] for k, a in enumerate(alpha)])
    if weighted:
        beta *= root[:, None]
    return beta[:, 0] if y.ndim == 1 else beta


def _solve_spd(K, lam, Y, remake=None):
    """(K + λI)⁻¹ Y in K's precision (Y is float64): a float32 factor is not promoted by a float64 Y.

    Given ``remake`` (K is ours, see :func:`_kernel_ridge_solve`), a float64 K is shifted and
    factored in place; a float32 K is kept, for the float64 refinement of the solve."""
    Y_k = Y.astype(K.dtype, copy=False)
    in_place = remake is not None and K.dtype == np.float64
    if in_place:
        K.flat[:: K.shape[0] + 1] += lam
        shifted = K
    else:
        shifted = shifted_copy(K, lam)
    try:
        factor = cholesky_factor(shifted, overwrite_a=True)
    except np.linalg.LinAlgError:  # (a failed factorization may have overwritten K + λI)
        warnings.warn("K + alpha·I is not positive definite (alpha = 0 with a singular K, or a non-Mercer kernel); "
                      "using the least-squares solution instead.", scipy.linalg.LinAlgWarning, stacklevel=3)
        if in_place:  # K was K + λI, and may hold part of the factor now: made again
            del shifted
            K = remake()
        return scipy.linalg.lstsq(shifted_copy(K, lam), Y_k, check_finite=False, overwrite_a=True)[0]
    beta = scipy.linalg.cho_solve(factor, Y_k, check_finite=False)
    # A float32 solve is refined with float64 residuals: β to float64 accuracy for cond ≪ 1/ε₃₂.
    return beta if K.dtype == np.float64 else refine_cholesky_solve(K, factor, Y, beta, shift=lam)
