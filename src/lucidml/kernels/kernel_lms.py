"""Kernel least mean squares: the LMS (gradient) rule run on the dual coefficients."""

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.linalg
import scipy.sparse.linalg
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, validate_params
from ..utils.validation import check_fit_data, check_magnitude, check_predict_data
from ._kernel_lms_kernels import klms_epoch
from .pairwise import KERNELS, _kernel_params, finite_gram, finite_values, kernel_times, pairwise_kernels


class KernelLMS(RegressorMixin, BaseEstimator):
    """Kernel LMS regression: least squares in a kernel's feature space by gradient steps on β.

    With θ = Σᵢ βᵢφ(xᵢ), the LMS update θ ← θ + η Σᵢ (yᵢ − θᵀφ(xᵢ)) φ(xᵢ) touches only β (004 §9;
    001 §13.1–13.2 writes it α ← α − 2s(Kα − y), the same rule up to the factor 2):

        batch:   β ← β + η (y − Kβ − λβ)                  (all samples at once, O(n²) per step)
        online:  βᵢ ← βᵢ + η (yᵢ − Σⱼ Kᵢⱼβⱼ − λβᵢ),  i = 1..n in order  (KLMS, Liu, Pokharel & Principe 2008)

    starting from β = 0, and predicts f(x) = Σᵢ βᵢ k(xᵢ, x). The first online pass is the classic
    one-pass KLMS; further passes sweep the data again. Batch steps converge when 0 < η < 2/λ_max(K + λI)
    (002 §4.1's γ < 2/L); the fixed point solves (K + λI)β = y, the
    :class:`~lucidml.kernels.kernel_ridge.KernelRidge` solution (λ = 0: the interpolant, when K is
    invertible). Notes: 004 §9 writes x⁽ⁱ⁾ where φ(x⁽ⁱ⁾) is meant, and each batch step costs O(n²), not O(n).

    Parameters
    ----------
    kernel : str or callable, default="rbf"
        See :func:`~lucidml.kernels.pairwise.pairwise_kernels`; "precomputed" takes the Gram matrix as X.
    gamma, degree, coef0 : float, int, float
        Kernel parameters for named kernels that accept them (gamma=None: 1/n_features).
    kernel_params : dict or None, default=None
        Further kernel keyword arguments (the only ones a callable receives).
    alpha : float, default=0.0
        Ridge penalty λ ≥ 0 (scikit-learn's ``KernelRidge`` meaning); 0 is the plain LMS of the notes.
    learning_rate : float or None, default=None
        Step η. None: 1/λ_max(K + λI) for "batch" (half the stability limit); 1/maxᵢ(Kᵢᵢ + λ) for "online"
        (each step then at most minimises exactly along its coordinate).
    mode : {"batch", "online"}, default="batch"
    max_iter : int, default=1000
        Batch steps, or online passes over the data, at most.
    tol : float, default=1e-6
        Stop when ‖Δβ‖₂ ≤ tol·max(1, ‖β‖₂) over one step (batch) or one pass (online).
    verbose : int, default=0
        1 or more prints ``Iteration t, loss = …`` after every batch step or online pass (the mean
        squared error, as in ``loss_curve_``) and how the fit stopped, on standard output; 0 prints
        nothing.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,)
        β.
    X_fit_ : ndarray
        Training inputs (the Gram matrix for kernel="precomputed").
    learning_rate_ : float
        The step η used.
    n_iter_ : int
        Steps (batch) or passes (online) run.
    loss_curve_ : ndarray of shape (n_iter_,)
        Mean squared training error: of the β before each batch step, or of the prediction errors eᵢ met
        during each online pass (KLMS's learning curve).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.kernels.kernel_lms import KernelLMS
    >>> X = np.linspace(0, 3, 15).reshape(-1, 1)
    >>> y = np.sin(X[:, 0])
    >>> model = KernelLMS(kernel="rbf", gamma=2.0, alpha=1e-2, mode="online").fit(X, y)
    >>> round(float(model.predict([[1.5]])[0]), 2)
    1.0
    """

    _parameter_constraints: ClassVar[dict] = {
        "kernel": [Options(set(KERNELS) | {"precomputed"}), "callable"],
        "gamma": [Interval(Real, 0, None, closed="left"), None],
        "degree": [Interval(Real, 0, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "kernel_params": [dict, None],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither"), None],
        "mode": [Options({"batch", "online"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "verbose": VERBOSE,
    }

    def __init__(self, *, kernel="rbf", gamma=None, degree=3, coef0=1.0, kernel_params=None, alpha=0.0,
                 learning_rate=None, mode="batch", max_iter=1000, tol=1e-6, verbose=0):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.alpha = alpha
        self.learning_rate = learning_rate
        self.mode = mode
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose

    def _gram(self, X, Y=None):
        params = _kernel_params(self.kernel, self.gamma, self.degree, self.coef0, self.kernel_params)
        return pairwise_kernels(X, Y, kernel=self.kernel, **params)

    def fit(self, X, y):
        """Fit on X (n_samples, n_features) — or the Gram matrix if kernel="precomputed" — and y."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, y_numeric=True)
        if self.kernel != "precomputed":
            check_magnitude(X, self)
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(f"kernel='precomputed' needs a square Gram matrix, got shape {X.shape}.")
        K = np.ascontiguousarray(finite_gram(self._gram(X), self))
        eta = self.learning_rate
        if eta is None:
            eta = 1.0 / _step_scale(K, self.alpha, self.mode)
        beta, losses, converged = _kernel_lms(K, y, eta, self.alpha, self.mode, self.max_iter, self.tol,
                                              IterationLog(self.verbose))
        self.dual_coef_, self.loss_curve_, self.n_iter_ = beta, losses, len(losses)
        self.learning_rate_ = float(eta)
        self.X_fit_ = X
        if not converged:
            warnings.warn(f"KernelLMS(mode={self.mode!r}) stopped at max_iter={self.max_iter} before "
                          f"‖Δβ‖ ≤ tol·max(1, ‖β‖) with tol={self.tol}.", ConvergenceWarning, stacklevel=2)
        return self

    def predict(self, X):
        """f(x) = Σᵢ βᵢ k(xᵢ, x); for kernel="precomputed", X is K(X_test, X_train)."""
        check_is_fitted(self)
        X = check_predict_data(self, X, bounded=self.kernel != "precomputed")
        if self.kernel == "precomputed":
            return X @ self.dual_coef_
        return finite_values(kernel_times(lambda rows: self._gram(rows, self.X_fit_), X, self.X_fit_.shape[0],
                                          self.dual_coef_), self, X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


def _step_scale(K, alpha, mode):
    """λ_max(K + λI) for batch steps, maxᵢ(Kᵢᵢ + λ) for online ones (guarded against a zero K)."""
    if mode == "online":
        scale = float(np.max(np.diag(K))) + alpha
    else:
        scale = _largest_eigenvalue(K) + alpha
    return scale if scale > 0 else 1.0


def _largest_eigenvalue(K):
    """λ_max of (K + Kᵀ)/2 by Lanczos iterations (ARPACK), which need only products with K: no
    n × n copy (the symmetrized matrix and LAPACK's work space were three more), and O(n²) per
    iteration where a dense eigensolver is O(n³). Small K: LAPACK, on a copy."""
    n = K.shape[0]
    if n <= 64:
        return float(scipy.linalg.eigvalsh((K + K.T) / 2, subset_by_index=[n - 1, n - 1])[0])
    symmetric = scipy.sparse.linalg.LinearOperator((n, n), matvec=lambda v: (K @ v + K.T @ v) / 2, dtype=np.float64)
    # a fixed start (ARPACK's default is random): the same step every fit
    return float(scipy.sparse.linalg.eigsh(symmetric, k=1, which="LA", v0=np.ones(n), return_eigenvectors=False)[0])


def _kernel_lms(K, y, eta, alpha, mode, max_iter, tol, log=None):
    """β from 0 by the batch rule β ← β + η(y − Kβ − λβ) or by online passes; returns (β, losses, converged).
    ``log`` (an ``IterationLog``) prints each step's loss."""
    log = IterationLog(0) if log is None else log
    n = K.shape[0]
    beta = np.zeros(n)
    losses = []
    for _ in range(max_iter):
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is reported below, in words
            if mode == "batch":
                fit_error = y - K @ beta
                losses.append(float(np.mean(fit_error**2)))
                step = eta * (fit_error - alpha * beta)
                beta += step
                step_norm = float(np.linalg.norm(step))
            else:
                step_norm, sse = klms_epoch(K, y, beta, eta, alpha)
                losses.append(sse / n)
            beta_norm = float(np.linalg.norm(beta))
        log.iteration(len(losses), loss=losses[-1])
        if not (np.isfinite(beta_norm) and np.isfinite(step_norm)):
            raise ValueError(f"KernelLMS diverged with learning_rate={eta:.3g}: the steps need a positive "
                             "semi-definite kernel matrix (see check_kernel) and learning_rate < 2/λ_max(K + alpha·I).")
        if step_norm <= tol * max(1.0, beta_norm):
            log.converged(len(losses), step_norm / max(1.0, beta_norm), tol, name="relative step")
            return beta, np.array(losses), True
    log.stopped(max_iter, "max_iter reached")
    return beta, np.array(losses), False
