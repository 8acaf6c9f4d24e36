"""What SVC and SVR share: the kernel parameters, where kernel values come from, one SMO solve."""

from contextlib import nullcontext
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ..kernels.pairwise import KERNELS, _kernel_params, finite_values, kernel_times, pairwise_kernels
from ..utils import Interval, Options, cancel_flag
from ..utils._interrupt import unfit
from ..utils.linalg import blas_threads
from ..utils.validation import check_fit_data, check_magnitude, check_predict_data, largest_magnitude
from ._cache import kernel_data
from ._kernel import KIND, block_rows, kernel_block
from ._simplified_smo import simplified_smo
from ._smo import Dual, bias_from_gradient, smo_solve

__all__ = ["KernelSource", "_BaseSVM", "solve_dual"]

_MB = 2**20
_PREDICT_BLOCK = 2**19  # kernel values per block in predict (4 MB)
# Up to this many multiply-adds (rows × support vectors × features), prediction keeps BLAS on one thread.
_SMALL_PREDICT_WORK = 2**24


@dataclass
class KernelSource:
    """The kernel of the training samples: rows of X computed on demand (kind 1–4), or a Gram matrix (kind 0)."""

    X: np.ndarray
    gram: np.ndarray
    kind: int
    gamma: float
    coef0: float
    degree: int
    cache_bytes: int

    def subset(self, idx):
        """(X, gram, sample_of) for a sub-problem on the samples ``idx``."""
        if self.kind == 0:  # index the shared Gram matrix; nothing is copied
            return self.X, self.gram, np.asarray(idx, dtype=np.int64)
        X = self.X[idx] if scipy.sparse.issparse(self.X) else np.ascontiguousarray(self.X[idx])
        return X, self.gram, np.arange(len(idx), dtype=np.int64)

    def cross(self, rows, cols):
        """K[a, b] = k(x_rows[a], x_cols[b]) between two sets of training samples."""
        if self.kind == 0:
            return self.gram[np.ix_(rows, cols)]
        return kernel_block(block_rows(self.X, rows), block_rows(self.X, cols), self.kind, self.gamma, self.coef0,
                            self.degree)

    def n_slots(self, n_samples):
        return max(2, self.cache_bytes // (8 * max(1, n_samples)))


@dataclass
class DualSolution:
    alpha: np.ndarray  # (l,) the dual variables
    intercept: float  # b of f(x) = Σ αₜyₜk(xₜ, x) + b
    objective: np.ndarray  # ½αᵀQα + pᵀα after each iteration
    n_iter: int
    status: int  # 0 converged, 1 max_iter reached
    non_psd: bool


def solve_dual(source, samples, y, p, upper, *, tol, max_iter, shrinking, solver="smo", max_passes=5,
               random_state=None, cancel=None):
    """min ½αᵀQα + pᵀα, yᵀα = 0, 0 ≤ α ≤ upper, for a sub-problem on the training samples ``samples``.

    There are len(samples) variables (classification) or twice as many (ε-SVR: variable t and
    t + n both sit on sample t). ``cancel``: the cancel flag to poll (default: this thread's);
    a raised flag ends the solve with ``KeyboardInterrupt``. Callers hold BLAS at one thread
    (``blas_threads(1)``) around their solves: SMO makes one matrix-vector product per kernel
    column, too small to share out.
    """
    X, gram, sample_of = source.subset(samples)
    if len(y) != len(samples):
        sample_of = np.concatenate([sample_of, sample_of])
    if np.all(y > 0) or np.all(y < 0):  # one class only, or none (the others have zero weight): α = 0
        return DualSolution(np.zeros(len(y)), float(y[0]) if len(y) else 0.0, np.zeros(0), 0, 0, False)
    max_iter = _iteration_cap(max_iter, len(y))
    if solver == "simplified":
        alpha, grad, curve, n_iter, status, non_psd = simplified_smo(
            X, gram, source.kind, source.gamma, source.coef0, source.degree, sample_of, y, upper, tol, max_passes,
            max_iter, random_state)
    else:
        kernel = kernel_data(X, gram, source.kind, source.gamma, source.coef0, source.degree)
        alpha, grad, curve, n_iter, status, non_psd = smo_solve(
            kernel, Dual(sample_of, y, p, upper), tol, max_iter, shrinking, source.n_slots(len(samples)),
            cancel_flag() if cancel is None else cancel)
        if status == 2:
            raise KeyboardInterrupt
    return DualSolution(alpha, bias_from_gradient(alpha, grad, y, upper), curve, n_iter, status, non_psd)


def _iteration_cap(max_iter, n_variables):
    # -1 means no limit; like libsvm, keep a far-away cap so that a non-PSD kernel cannot loop for ever
    return max(10_000_000, 100 * n_variables) if max_iter == -1 else int(max_iter)


class _BaseSVM(BaseEstimator):
    """Kernel handling shared by the kernel SVMs (no public estimator)."""

    _parameter_constraints: ClassVar[dict] = {
        "kernel": [Options({"linear", "poly", "rbf", "sigmoid", "precomputed", *KERNELS}), "callable"],
        "degree": [Interval(Integral, 0, None, closed="left")],
        "gamma": [Options({"scale", "auto"}), Interval(Real, 0, None, closed="left")],
        "coef0": [Interval(Real, None, None)],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "C": [Interval(Real, 0, None, closed="neither")],
        "shrinking": ["boolean"],
        "cache_size": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
    }

    def _check_X(self, X, y=None, reset=True, y_numeric=False):
        """Validate X and y (fit, reset=True) or X alone (predict); for kernel='precomputed' X is the
        (n, n_train) kernel block."""
        sparse = "csr" if self._sparse_kernel() else False
        if reset:
            X, y = check_fit_data(self, X, y, accept_sparse=sparse, order="C", y_numeric=y_numeric)
            check_magnitude(X, self)
        else:
            X = check_predict_data(self, X, order="C", accept_sparse=sparse)
        if self.kernel == "precomputed":
            expected = X.shape[0] if reset else self.shape_fit_[0]
            if X.shape[1] != expected:
                raise ValueError(f"kernel='precomputed' needs X of shape (n_samples, {expected}) (the kernel against "
                                 f"the training samples); got {X.shape}.")
        # the compiled solver writes nothing into X but is compiled for writeable arrays only
        if not scipy.sparse.issparse(X):
            X = np.require(X, requirements=["C", "W"])
        return (X, y) if reset else X

    def _kernel_source(self, X, share_gram=False):
        """Resolve gamma and decide how the solver gets kernel values."""
        gamma = self.gamma
        if gamma == "scale":
            variance = _variance_of_all_entries(X)
            with np.errstate(over="ignore"):
                gamma = 1.0 / (X.shape[1] * variance) if variance != 0 else 1.0
            if not np.isfinite(gamma):
                raise ValueError(f"gamma='scale' is 1 / (n_features · Var(X)) and X's variance, {variance:.3g}, is too "
                                 "small for it to be finite; rescale the features (e.g. StandardScaler) or set gamma.")
        elif gamma == "auto":
            gamma = 1.0 / X.shape[1]
        self._gamma = float(gamma)
        self.shape_fit_ = X.shape
        cache_bytes = int(self.cache_size * _MB)
        kind = KIND.get(self.kernel) if isinstance(self.kernel, str) else None
        empty = np.empty((0, 0))
        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"kernel='precomputed' needs a square Gram matrix; got shape {X.shape}.")
            return KernelSource(empty, X, 0, self._gamma, float(self.coef0), int(self.degree), cache_bytes)
        if kind is None:  # other named kernels and callables: the whole Gram matrix, from lucidml.kernels
            gram = np.ascontiguousarray(self._cross_kernel(X, X), dtype=np.float64)
            return KernelSource(empty, gram, 0, self._gamma, float(self.coef0), int(self.degree), cache_bytes)
        if share_gram and 8 * X.shape[0] ** 2 <= cache_bytes:
            # Many fits over the same samples (cross-validation for Platt, one-vs-rest) share one
            # BLAS-computed Gram matrix when it fits in the cache; otherwise columns are computed
            # on demand, which measured faster for single fits (only the columns SMO visits are made).
            gram = kernel_block(X, X, kind, self._gamma, float(self.coef0), int(self.degree))
            return KernelSource(empty, gram, 0, self._gamma, float(self.coef0), int(self.degree), cache_bytes)
        return KernelSource(X, empty, kind, self._gamma, float(self.coef0), int(self.degree), cache_bytes)

    def _cross_kernel(self, X, Y):
        """K[a, b] = k(X[a], Y[b]) with the fitted kernel parameters."""
        kernel = self.kernel
        if isinstance(kernel, str) and kernel in KIND and kernel != "precomputed":
            return kernel_block(block_rows(X), block_rows(Y), KIND[kernel], self._gamma, float(self.coef0),
                                int(self.degree))
        if callable(kernel):
            return pairwise_kernels(X, Y, kernel=kernel)
        return pairwise_kernels(X, Y, kernel=kernel, **_kernel_params(kernel, self._gamma, self.degree, self.coef0))

    def _kernel_times(self, X, W):
        """K(X, support vectors) @ W, computed a block of rows at a time (no n × n_SV matrix in memory)."""
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        n_sv = len(self.support_)

        def kernel_rows(rows):
            if self.kernel == "precomputed":
                return rows[:, self.support_]
            return self._cross_kernel(rows, self.support_vectors_)

        # Small products on one BLAS thread: a second one saves little and stalls on a busy machine.
        small = X.shape[0] * n_sv * X.shape[1] <= _SMALL_PREDICT_WORK
        with blas_threads(1) if small else nullcontext():
            # blocks that stay in cache for their product with W
            return finite_values(kernel_times(kernel_rows, X, n_sv, W, block=_PREDICT_BLOCK), self, X)

    def _check_solution(self, coef, intercept, X):
        """Refuse a fit whose kernel values overflowed (its dual coefficients or intercepts are not
        finite: every prediction would be NaN), and leave the estimator unfitted."""
        if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(intercept))):
            unfit(self)
            raise ValueError(f"{type(self).__name__}: the dual coefficients or intercepts are not finite: the kernel "
                             f"values overflowed (kernel={self.kernel!r}, gamma={self._gamma:.3g}, features up to "
                             f"{largest_magnitude(X):.3g}). Rescale the features (e.g. StandardScaler).")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self._sparse_kernel()
        return tags

    def _sparse_kernel(self):
        """libsvm's four kernels are computed from the stored entries of a sparse X; other kernels
        (``lucidml.kernels``, callables, precomputed) need dense input."""
        return isinstance(self.kernel, str) and self.kernel in KIND and self.kernel != "precomputed"

    @property
    def coef_(self):
        """w = Σ αᵢyᵢxᵢ, one row per sub-problem; only for kernel='linear' (000 (6.2))."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self)
        return self._pair_coef.T @ self.support_vectors_


def _variance_of_all_entries(X):
    """The variance of every entry of X together (gamma="scale"), the implicit zeros of a sparse X included."""
    if not scipy.sparse.issparse(X):
        return X.var()
    size = X.shape[0] * X.shape[1]
    mean = X.sum() / size
    return max(float(X.multiply(X).sum() / size - mean * mean), 0.0)

