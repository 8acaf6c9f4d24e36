"""ε-support vector regression by SMO."""

import warnings
from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, check_sample_weight, interruptible, validate_params
from ..utils.linalg import blas_threads
from ._base import _BaseSVM, solve_dual


class SVR(RegressorMixin, _BaseSVM):
    """Kernel regression that ignores errors below ε, trained on its dual by SMO.

    The primal (Smola & Schölkopf 2004) is min ½‖w‖² + C Σᵢ sᵢ (ξᵢ + ξᵢ*) with
    |yᵢ − wᵀφ(xᵢ) − b| ≤ ε + ξᵢ(*), ξ ≥ 0 (sᵢ = sample weight): errors inside the ε-tube cost
    nothing, larger ones cost linearly. Its dual, in the LIBSVM form of Chang & Lin (2011), is

        min_{α, α*}  ½ (α − α*)ᵀ K (α − α*) + ε Σᵢ (αᵢ + αᵢ*) − Σᵢ yᵢ (αᵢ − αᵢ*)
        s.t.  Σᵢ (αᵢ − αᵢ*) = 0,   0 ≤ αᵢ, αᵢ* ≤ C sᵢ,

    a 2n-variable instance of the same quadratic program as the SVC dual, solved by the same SMO
    solver (:mod:`lucidml.svm._smo`; the notes only name SVR: seeds 000 §6.7–6.8). The model is
    f(x) = Σᵢ (αᵢ − αᵢ*) k(xᵢ, x) + b; samples strictly inside the tube get αᵢ = αᵢ* = 0.

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly", "sigmoid", "precomputed"}, a name of KERNELS or callable, default="rbf"
        k(x, z), as in :class:`lucidml.svm.svc.SVC`.
    degree : int, default=3
        d of the polynomial kernel (γxᵀz + c₀)^d.
    gamma : {"scale", "auto"} or float, default="scale"
        γ of rbf, poly and sigmoid: "scale" is 1/(n_features · Var(X)), "auto" 1/n_features.
    coef0 : float, default=0.0
        c₀ of the poly and sigmoid kernels.
    tol : float, default=1e-3
        KKT tolerance of the stopping rule.
    C : float, default=1.0
        Cost of a unit of error outside the tube, > 0.
    epsilon : float, default=0.1
        Half-width ε of the tube, ≥ 0.
    shrinking : bool, default=True
        Set aside multipliers stuck at a bound during the solve.
    cache_size : float, default=200
        Memory for kernel columns in MB.
    max_iter : int, default=-1
        SMO iterations at most; −1 for no limit (in practice max(10⁷, 200·n)).
    verbose : int, default=0
        1 or more prints, on standard output, one line once the SMO has returned (its iterations
        run inside one compiled kernel): ``SMO, n_iter = …, objective = …, n_support = …``, the
        values of ``n_iter_``, of the last entry of ``loss_curve_`` and of ``n_support_``.

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors (αᵢ ≠ αᵢ*).
    support_vectors_ : ndarray of shape (n_SV, n_features)
        Empty for kernel="precomputed".
    n_support_ : ndarray of shape (1,)
    dual_coef_ : ndarray of shape (1, n_SV)
        αᵢ − αᵢ* of the support vectors.
    intercept_ : ndarray of shape (1,)
        b.
    coef_ : ndarray of shape (1, n_features)
        w = Σ (αᵢ − αᵢ*) xᵢ; kernel="linear" only.
    fit_status_ : int
        0 if converged, 1 if stopped at ``max_iter``.
    n_iter_ : int
    loss_curve_ : ndarray
        The dual objective above after each iteration.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.svm.svr import SVR
    >>> X = np.linspace(0.0, 4.0, 9).reshape(-1, 1)
    >>> y = 2.0 * X.ravel() + 1.0
    >>> reg = SVR(kernel="linear", C=100.0, epsilon=0.1).fit(X, y)
    >>> reg.coef_.round(2), reg.intercept_.round(2)  # the flattest line within ±ε of every point
    (array([[1.95]]), array([1.1]))
    >>> reg.predict([[5.0]]).round(2)
    array([10.85])
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseSVM._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "verbose": VERBOSE,
    }

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3, C=1.0, epsilon=0.1,
                 shrinking=True, cache_size=200, max_iter=-1, verbose=0):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.max_iter = max_iter
        self.verbose = verbose

    @interruptible
    def fit(self, X, y, sample_weight=None):
        """Solve the ε-SVR dual; returns self."""
        validate_params(self)
        X, y = self._check_X(X, y, y_numeric=True)
        weight = check_sample_weight(sample_weight, X.shape[0])
        bound = self.C * (np.ones(X.shape[0]) if weight is None else weight)
        samples = np.flatnonzero(bound > 0)  # a zero-weight sample can only get α = α* = 0
        source = self._kernel_source(X)
        target = y[samples].astype(np.float64)
        n = len(samples)
        signs = np.concatenate([np.ones(n), -np.ones(n)])
        linear = np.concatenate([self.epsilon - target, self.epsilon + target])
        with blas_threads(1):  # see solve_dual
            sol = solve_dual(source, samples, signs, linear, np.concatenate([bound[samples], bound[samples]]),
                             tol=self.tol, max_iter=self.max_iter, shrinking=self.shrinking)
        beta = sol.alpha[:n] - sol.alpha[n:]
        self._check_solution(beta, sol.intercept, X)
        nonzero = beta != 0
        self.support_ = samples[nonzero]
        self.dual_coef_ = beta[nonzero][None, :]
        self._pair_coef = self.dual_coef_.T
        self.intercept_ = np.array([sol.intercept])
        self.support_vectors_ = np.empty((0, X.shape[1])) if self.kernel == "precomputed" else X[self.support_]
        self.n_support_ = np.array([len(self.support_)], dtype=np.int32)
        self.n_iter_ = sol.n_iter
        self.loss_curve_ = sol.objective
        IterationLog(self.verbose).summary("SMO", n_iter=sol.n_iter, objective=sol.objective[-1] if len(sol.objective)
                                           else np.nan, n_support=len(self.support_))
        self.fit_status_ = sol.status
        if sol.status:
            warnings.warn(f"SMO stopped at max_iter={self.max_iter} before the KKT conditions held to tol={self.tol}; "
                          "consider scaling the data (StandardScaler) or raising max_iter.", ConvergenceWarning,
                          stacklevel=2)
        if sol.non_psd:
            warnings.warn("The kernel matrix is not positive semi-definite: the dual is not convex and SMO returns "
                          "a local solution.", UserWarning, stacklevel=2)
        return self

    def predict(self, X):
        """f(x) = Σᵢ (αᵢ − αᵢ*) k(xᵢ, x) + b."""
        check_is_fitted(self)
        return self._kernel_times(X, self._pair_coef)[:, 0] + self.intercept_[0]
