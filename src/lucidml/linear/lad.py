"""Least absolute deviations (L1) regression."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.optimize
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, check_sample_weight, validate_params
from ..utils.numerics import power_of_two_unit
from ..utils.validation import check_fit_data, check_fit_is_finite, check_magnitude, check_predict_data
from .linear_regression import _least_squares

# The subgradient solver stops when its best objective has not improved by more than
# tol·J_best over this many consecutive iterations (its iterates oscillate, so one step says little).
_SUBGRADIENT_PATIENCE = 20


class LADRegression(RegressorMixin, BaseEstimator):
    """Least absolute deviations regression: the maximum-likelihood fit under Laplace noise.

    With yᵢ = w·xᵢ + b + εᵢ and εᵢ ~ Laplace(0, β), maximizing the likelihood minimizes

        J(w, b) = ½ Σᵢ sᵢ |yᵢ − w·xᵢ − b|        (sᵢ = sample weight, 1 by default)

    (seeds: 004 §2). The fit is the conditional median, so a few wild values of y move it far
    less than they move least squares. J is convex but not differentiable and has no closed
    form; three solvers are offered:

    - ``"irls"`` (iteratively reweighted least squares): at the residuals r of the current fit,
      |r| ≤ r²/(2|r⁽ᵏ⁾|) + |r⁽ᵏ⁾|/2, so each step solves the weighted least-squares problem
      min ½ Σ sᵢ rᵢ² / max(|rᵢ⁽ᵏ⁾|, δ), a majorize–minimize step that does not increase J while
      no residual is below δ = ``eps`` × mean|y − median(y)| (the floor that keeps the weights
      finite where a residual is 0; below it the bound is not tight, so the best iterate is kept).
      Starts from least squares; stops when the relative change of J is ≤ ``tol``.
    - ``"lp"``: the exact solution of the linear program (Barrodale & Roberts 1973)
      min ½ Σ sᵢ (uᵢ⁺ + uᵢ⁻) s.t. Xw + b + u⁺ − u⁻ = y, u⁺, u⁻ ≥ 0, solved through its much
      smaller dual max yᵀa s.t. Σ aᵢ (xᵢ, 1) = 0, |aᵢ| ≤ sᵢ/2 by SciPy's HiGHS; (w, b) are the
      multipliers of the dual's equality rows.
    - ``"subgradient"`` (the notes' gradient descent): in the mean form
      g = −½ Σ sᵢ sign(rᵢ) (xᵢ, 1) / Σ sᵢ, step θ ← θ − ηₖ g with ηₖ = c1 / (k + c2), keeping the
      best iterate (J is not monotone along subgradient steps). It runs on standardized data —
      columns of X centred and scaled to unit variance, y centred at its median and divided by
      its mean absolute deviation — which leaves the minimizer unchanged (mapped back at the
      end) and makes c1, c2 dimensionless. The notes' summed gradient with step α corresponds
      to c1/(k + c2) = α·Σsᵢ on that scale. sign(0) = 0 (a valid subgradient).

    The minimizer need not be unique (the median of an even number of points is an interval);
    every solver returns some minimizer, and they agree in J.

    Parameters
    ----------
    solver : {"irls", "lp", "subgradient"}, default="irls"
        The algorithm, see above.
    fit_intercept : bool, default=True
        Whether to fit the (unpenalized) intercept b.
    max_iter : int, default=1000
        Largest number of iterations of ``"irls"`` and ``"subgradient"``.
    tol : float, default=1e-6
        ``"irls"``: stop when |Jₖ₋₁ − Jₖ| ≤ tol·Jₖ. ``"subgradient"``: stop when the best J has
        not improved by more than tol·J_best for 20 iterations; tol=0 runs ``max_iter``
        iterations. Unused by ``"lp"``.
    eps : float, default=1e-6
        ``"irls"`` only: residuals smaller than eps × mean|y − median(y)| get the weight of
        that floor instead of 1/|r|.
    c1, c2 : float, default=10.0, 10.0
        ``"subgradient"`` only: the step ηₖ = c1 / (k + c2), k = 0, 1, ...; Σηₖ = ∞ and
        ηₖ → 0, as the subgradient method needs.
    verbose : int, default=0
        1 or more prints ``Iteration t, loss = …`` after every IRLS or subgradient iteration (J, as
        in ``loss_curve_``) and how the fit stopped, or one summary line for ``"lp"``, on standard
        output; 0 prints nothing.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights w.
    intercept_ : float
        The intercept b (0.0 when ``fit_intercept=False``).
    n_iter_ : int
        Iterations performed (``"lp"``: simplex/IPM iterations reported by HiGHS).
    loss_curve_ : ndarray
        J at each iterate (``"lp"``: one entry, the optimal J).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear.lad import LADRegression
    >>> X = np.arange(6.0).reshape(-1, 1)
    >>> y = 1.0 + 2.0 * X[:, 0]
    >>> y[5] = 100.0                       # one wild value
    >>> reg = LADRegression(solver="lp").fit(X, y)
    >>> print(np.round(reg.coef_, 6), round(reg.intercept_, 6))
    [2.] 1.0
    """

    _parameter_constraints = {
        "solver": [Options({"irls", "lp", "subgradient"})],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "eps": [Interval(Real, 0, None, closed="neither")],
        "c1": [Interval(Real, 0, None, closed="neither")],
        "c2": [Interval(Real, 0, None, closed="neither")],
        "verbose": VERBOSE,
    }

    def __init__(self, *, solver="irls", fit_intercept=True, max_iter=1000, tol=1e-6, eps=1e-6, c1=10.0, c2=10.0,
                 verbose=0):
        self.solver = solver
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.eps = eps
        self.c1 = c1
        self.c2 = c2
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Fit the model to X (n_samples, n_features) and y (n_samples,)."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, y_numeric=True)
        check_magnitude(X, self)
        y = np.asarray(y, dtype=np.float64)
        s = check_sample_weight(sample_weight, X.shape[0])
        s = np.ones(X.shape[0]) if s is None else s
        log = IterationLog(self.verbose)
        if self.solver == "lp":
            coef, intercept, n_iter = _lad_lp(X, y, s, self.fit_intercept)
            losses = [_lad_objective(X, y, s, coef, intercept)]
            converged = True
            log.summary("Linear program", n_iter=int(n_iter), loss=losses[0])
        else:
            if self.solver == "irls":
                coef, intercept, losses, converged = _lad_irls(
                    X, y, s, self.fit_intercept, self.max_iter, self.tol, self.eps, log
                )
                n_iter = len(losses) - 1  # losses[0] is the least-squares start
            else:
                coef, intercept, losses, converged = _lad_subgradient(
                    X, y, s, self.fit_intercept, self.max_iter, self.tol, self.c1, self.c2, log
                )
                n_iter = len(losses)
            if self.solver == "irls" and converged:
                log.converged(n_iter, reason=f"relative change of J ≤ tol {self.tol:.3g}")
            elif converged and self.tol > 0:
                log.converged(n_iter, reason=f"no relative gain of tol {self.tol:.3g} in {_SUBGRADIENT_PATIENCE} "
                                             "iterations")
            else:
                log.stopped(n_iter, "max_iter reached")
        check_fit_is_finite(self, X, coef, intercept, solver=self.solver)
        self.coef_, self.intercept_ = coef, float(intercept)
        self.n_iter_, self.loss_curve_ = int(n_iter), np.asarray(losses)
        if not converged:
            warnings.warn(
                f"LADRegression(solver={self.solver!r}) stopped at max_iter={self.max_iter} before the "
                f"tol={self.tol} test was met; increase max_iter.",
                ConvergenceWarning,
            )
        return self

    def predict(self, X):
        """Return X·w + b (the conditional median)."""
        check_is_fitted(self)
        X = check_predict_data(self, X)
        return X @ self.coef_ + self.intercept_


def _lad_objective(X, y, s, coef, intercept):
    """J = ½ Σ sᵢ |yᵢ − w·xᵢ − b|."""
    return 0.5 * float(s @ np.abs(y - X @ coef - intercept))


def _lad_lp(X, y, s, fit_intercept):
    """Exact LAD by linear programming; return (w, b, iterations).

    The primal LP  min ½ Σ sᵢ (uᵢ⁺ + uᵢ⁻)  s.t.  Aθ + u⁺ − u⁻ = y, u± ≥ 0  (A = [X, 1], θ = (w, b))
    has 2n + d + 1 variables. Its dual  max yᵀa  s.t.  Aᵀa = 0, |aᵢ| ≤ sᵢ/2  has n bounded
    variables and only d + 1 equality rows, and HiGHS solves it 20–50× faster; θ is the vector
    of multipliers of those rows (the sensitivity of min −yᵀa to their right-hand side is −θ).
    """
    A = np.column_stack([X, np.ones(X.shape[0])]) if fit_intercept else X
    # Its rows Aⱼᵀa = 0 are read with the columns of A scaled to a largest entry of 1 (θ = D⁻¹θ_D for
    # A = (AD⁻¹)D): unscaled, a feature in units 1e-8 fell under HiGHS's feasibility tolerance and
    # got the coefficient 0 (raw breast cancer: Σ|r| 6582.79 against the optimum 6570.90).
    column_scale = np.abs(A).max(axis=0)
    column_scale[column_scale == 0] = 1.0
    A = A / column_scale
    # θ does not change when all weights are scaled alike; HiGHS reads bounds beyond 1e20 as
    # infinite, so the largest weight is made 1.
    half = 0.5 * (s / s.max())
    # θ scales with y, and HiGHS fails on costs near 1e10 (diabetes' y times 1e8): the LP reads y
    # in units of a power of 2 that brings its largest entry into [1, 2) (exact), θ is scaled back.
    unit = power_of_two_unit(np.abs(y)) if np.any(y != 0) else 1.0
    res = scipy.optimize.linprog(
        -(y / unit), A_eq=A.T, b_eq=np.zeros(A.shape[1]), bounds=np.column_stack([-half, half]), method="highs"
    )
    if res.status != 0:  # the LAD dual is always feasible (a = 0) and bounded, so this is numerical
        raise ValueError(f"LADRegression(solver='lp'): HiGHS could not solve the LAD linear program "
                         f"({res.message}); the data are too badly scaled for it. Rescale X and y, or use "
                         "solver='irls'.")
    theta = -res.eqlin.marginals * unit / column_scale
    intercept = theta[-1] if fit_intercept else 0.0
    return theta[: X.shape[1]].copy(), intercept, res.nit


def _lad_irls(X, y, s, fit_intercept, max_iter, tol, eps, log=None):
    """Iteratively reweighted least squares, weights sᵢ / max(|rᵢ|, δ); return (w, b, J history, converged).
    ``log`` (an ``IterationLog``) prints J after each iteration."""
    log = IterationLog(0) if log is None else log
    floor = eps * _spread(y, s)
    # The weights in units of a power of two near their largest (the same minimizer): sᵢ / |rᵢ| of
    # weights near 1e300 overflowed, and every step was NaN.
    unit = power_of_two_unit(s)
    s = s / unit
    coef, intercept, _ = _least_squares(X.copy(), y.copy(), s, fit_intercept, "lstsq")
    losses = [_lad_objective(X, y, s, coef, intercept)]
    best = (losses[0], coef, intercept)
    for _ in range(max_iter):
        weights = s / np.maximum(np.abs(y - X @ coef - intercept), floor)
        coef, intercept, _ = _least_squares(X.copy(), y.copy(), weights, fit_intercept, "lstsq")
        losses.append(_lad_objective(X, y, s, coef, intercept))
        log.iteration(len(losses) - 1, loss=losses[-1] * unit)  # (J in the caller's weights)
        if losses[-1] < best[0]:
            best = (losses[-1], coef, intercept)
        if abs(losses[-2] - losses[-1]) <= tol * losses[-1]:
            return best[1], best[2], [loss * unit for loss in losses], True
    return best[1], best[2], [loss * unit for loss in losses], False


def _lad_subgradient(X, y, s, fit_intercept, max_iter, tol, c1, c2, log=None):
    """Subgradient descent with steps c1/(k + c2) on standardized data; return (w, b, J history, converged).
    ``log`` (an ``IterationLog``) prints J at each iteration."""
    log = IterationLog(0) if log is None else log
    # Standardize so that one step size suits every data set; the LAD minimizer maps back exactly.
    x_shift = np.average(X, axis=0, weights=s) if fit_intercept else np.zeros(X.shape[1])
    x_scale = np.sqrt(np.average((X - x_shift) ** 2, axis=0, weights=s))
    x_scale[x_scale == 0] = 1.0
    y_shift = _weighted_median(y, s) if fit_intercept else 0.0
    y_scale = _spread(y, s)
    Z = (X - x_shift) / x_scale
    t = (y - y_shift) / y_scale
    p = s / s.sum()  # mean form of the subgradient

    theta, b = np.zeros(X.shape[1]), 0.0  # b = 0 starts at the median of y
    losses, best, reference, since_improved = [], (np.inf, theta, b), np.inf, 0
    for k in range(max_iter):
        r = t - Z @ theta - b
        loss = 0.5 * float(s @ np.abs(r)) * y_scale  # J on the original scale
        losses.append(loss)
        log.iteration(k + 1, loss=loss)
        if loss < best[0]:
            best = (loss, theta.copy(), b)
        since_improved = 0 if loss < reference * (1.0 - tol) else since_improved + 1
        reference = min(reference, loss)
        if tol > 0 and since_improved >= _SUBGRADIENT_PATIENCE:
            break
        sign_r = p * np.sign(r)
        step = c1 / (k + c2)
        theta = theta + step * 0.5 * (Z.T @ sign_r)  # θ ← θ − η g, g = −½ Σ pᵢ sign(rᵢ) zᵢ
        if fit_intercept:
            b = b + step * 0.5 * sign_r.sum()
    converged = len(losses) < max_iter or tol == 0
    coef = best[1] * y_scale / x_scale
    intercept = y_shift + best[2] * y_scale - x_shift @ coef
    return coef, intercept, losses, converged


def _weighted_median(y, s):
    """The lower weighted median of y."""
    order = np.argsort(y, kind="stable")
    cumulative = np.cumsum(s[order])
    return float(y[order][np.searchsorted(cumulative, 0.5 * cumulative[-1])])


def _spread(y, s):
    """Mean absolute deviation of y from its weighted median: the natural scale of LAD residuals (1 if 0)."""
    spread = float(np.average(np.abs(y - _weighted_median(y, s)), weights=s))
    return spread if spread > 0 else 1.0
