"""The solvers of the GLM objective: IRLS (Fisher scoring / Newton), gradient descent and L-BFGS.

They share one :class:`GLMProblem`, which evaluates F(β) = ½ Σ sᵢ d(yᵢ, μᵢ) + (α/2)‖w‖² (weights
summing to 1), its gradient and the IRLS system; the estimators live in ``glm.py``.

With an intercept the solvers see the features centred (η = b′ + w·(x − x̄), b′ = b + w·x̄, x̄ the
weighted means; the same F, as the intercept is not penalized), without a centred copy of X.
Uncentred, a feature of mean 1e4 and spread 1 gave the IRLS system a condition number of 5e15:
its Cholesky factorization failed, the minimum-norm fallback dropped that feature's coefficient,
and the fit stopped 1.2% away from the optimum with no warning.
"""

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg

from ..optim.gradient_descent import gradient_descent
from ..optim.quasi_newton import lbfgs
from ..optim.result import NonFiniteStart, stopping_test
from ..optim.scaling import diagonally_scaled, linear_model_scales
from ..utils.centered import CentredFeatures, centered_gram, centred, uncentred
from ..utils.linalg import cholesky_or_none, product_in_precision

__all__ = ["GLMProblem", "first_order", "irls"]

# The change-of-F test only catches stagnation at rounding level (scikit-learn's lbfgs uses the same
# ftol), so ``tol`` on the gradient decides, as in scikit-learn.
_FTOL = 64 * np.finfo(np.float64).eps


class GLMProblem(CentredFeatures):
    """F, ∇F and the IRLS system of one fit, on validated arrays; β = (w, b′) with b′ last, the
    intercept of the centred features (see the module's docstring)."""

    def __init__(self, X, y, weights, offset, family, link, alpha, fit_intercept, x_mean=None):
        """``x_mean``: the centre x̄ (default: X's means, weighted; a chunk of a larger X passes the
        whole table's, so that every chunk reads β alike). Without an intercept, no centring."""
        self.X, self.y, self.s, self.offset = X, y, weights, offset
        self.family, self.link, self.alpha, self.fit_intercept = family, link, alpha, fit_intercept
        self._set_centre(X, weights, fit_intercept, x_mean)
        self._last = (None, None, None)  # (β, η, μ) of the latest evaluation: L-BFGS asks for F and ∇F at one β

    def scales(self):
        """The scales D of ``first_order``'s variables u = Dβ (``linear_model_scales``), from the
        features' weighted spreads about the centre."""
        return linear_model_scales(self.x_spread, self.alpha, self.fit_intercept)

    def split(self, beta):
        """(w, b) of η = b + w·x, the model's own coefficients, from the solver's β = (w, b′)."""
        if not self.fit_intercept:
            return beta, 0.0
        coef, intercept = uncentred(beta[:-1], beta[-1], self.x_mean)
        return coef, float(intercept)

    def join(self, coef, intercept):
        """β = (w, b′) of the coefficients w and intercept b (a warm start); ``split``'s inverse."""
        coef = np.asarray(coef, dtype=np.float64)
        return np.append(*centred(coef, intercept, self.x_mean)) if self.fit_intercept else coef.copy()

    def initial_beta(self):
        """w = 0 and b = link(ȳ) − mean offset, scikit-learn's start moved by the offsets (with a
        constant offset and the log link, the intercept-only fit; scikit-learn's link(ȳ) was the
        offset away: L-BFGS from there, with an offset of 13.8, ended at an intercept of −8000);
        without intercept, the w fitting η ≈ link(ȳ)."""
        lo, hi = self.link.mu_range
        # (the mean kept inside the link's range by a relative margin: a clip at 1e-10 started rates
        # of mean 1e-15 at log 1e-10, and the tiny gradients there stopped the solver at once)
        tiny = np.finfo(np.float64).tiny
        mean = np.average(self.y, weights=self.s)
        mean = max(mean, lo + tiny) if np.isinf(hi) else float(np.clip(mean, lo + 1e-10, hi - 1e-10))
        eta0 = float(self.link.link(mean))
        if self.fit_intercept:  # b′ = b where w = 0
            offset = np.average(np.broadcast_to(self.offset, self.s.shape), weights=self.s)
            return np.append(np.zeros(self.X.shape[1]), eta0 - offset)
        if self.link.name != "inverse":
            return np.zeros(self.X.shape[1])
        target = np.full(self.X.shape[0], eta0) - self.offset  # η = 0 is not a mean
        if scipy.sparse.issparse(self.X):
            return scipy.sparse.linalg.lsqr(self.X, target, atol=1e-10, btol=1e-10)[0]
        return scipy.linalg.lstsq(self.X.astype(np.float64, copy=False), target)[0]

    def eta_mu(self, beta):
        if self._last[0] is not None and np.array_equal(beta, self._last[0]):
            return self._last[1], self._last[2]
        w, b = self.split(beta)  # η = Xw + b: the centring's constant x̄·w folded into b
        eta = product_in_precision(self.X, w) + b + self.offset
        mu = self.link.inverse_link(eta)
        self._last = (beta.copy(), eta, mu)
        return eta, mu

    def objective(self, beta, mu=None):
        """F = ½ Σ sᵢ d(yᵢ, μᵢ) + (α/2)‖w‖² (weights summing to 1)."""
        mu = self.eta_mu(beta)[1] if mu is None else mu
        w, _ = self.split(beta)
        return 0.5 * float(self.s @ self.family.unit_deviance(self.y, mu)) + 0.5 * self.alpha * float(w @ w)

    def working_residual(self, beta):
        """r = s (y − μ) (dμ/dη) / V(μ) = −∂F/∂η, and dμ/dη."""
        eta, mu = self.eta_mu(beta)
        dmu = self.link.inverse_derivative(eta)
        return self.s * (self.y - mu) * dmu / self.family.variance(mu), dmu

    def gradient(self, beta, r=None):
        r = self.working_residual(beta)[0] if r is None else r
        w = beta[:-1] if self.fit_intercept else beta
        total = r.sum()
        grad_w = self.alpha * w - (product_in_precision(self.X.T, r) - self.x_mean * total)  # −(X − 1x̄ᵀ)ᵀr + αw
        return np.append(grad_w, -total) if self.fit_intercept else grad_w

    def irls_direction(self, beta, grad):
        """δ = β_new − β, where (XᵀWX + αI′) β_new = XᵀWz (X: the centred features and the 1s column);
        ``grad`` is ∇F at β.

        With z = η + (y − μ)/(dμ/dη) and W = s (dμ/dη)²/V(μ), XᵀWz = XᵀWXβ + Xᵀr, so δ solves
        (XᵀWX + αI′) δ = −∇F: the same system without forming z (which overflows where dμ/dη
        underflows).
        """
        eta, mu = self.eta_mu(beta)
        dmu = self.link.inverse_derivative(eta)
        W = self.s * (dmu / np.sqrt(self.family.variance(mu))) ** 2  # (dμ/dη)²/V: μ⁴/μ² overflowed from μ ≈ 1e77
        # XcᵀWXc and XcᵀW1 (Xc = X − 1x̄ᵀ; x̄ = 0 without an intercept), in float64 without a copy of X.
        H, col = centered_gram(self.X, np.ones((len(W), 1)), W, self.x_mean, np.zeros(1), at_means=False)
        H[np.diag_indices_from(H)] += self.alpha
        if self.fit_intercept:  # border it with the intercept's row and column (no 1s column in X)
            H = np.block([[H, col], [col.T, np.array([[W.sum()]])]])
        if not np.all(np.isfinite(H)):  # overflowed (features near 1e300): no step (the fit then refuses)
            return np.full_like(grad, np.nan)
        lower = cholesky_or_none(H)
        if lower is not None:
            return scipy.linalg.cho_solve((lower, True), -grad, check_finite=False)
        # XᵀWX + αI′ singular (α = 0 with collinear columns): the minimum-norm step.
        return scipy.linalg.lstsq(H, -grad, check_finite=False)[0]


def _ftol(tol, f_start=1.0):
    """The change-of-F tolerance: none with tol = 0 (the notes' fixed-count loops run to max_iter);
    else _FTOL, in units of F at the start where that is below 1 (the test reads |ΔF| ≤
    ftol·max(1, |F|): a deviance of rates near 1e-15 changed by less than _FTOL from the first step
    on, and every solver stopped there whatever ``tol``)."""
    if tol <= 0:
        return 0.0
    return _FTOL * min(1.0, max(abs(f_start), np.finfo(np.float64).tiny))


def irls(problem, beta, solver, max_iter, tol, log=None):
    """IRLS with step halving; returns (β, F per iteration, converged). ``log`` (an
    ``IterationLog``) prints F after each iteration."""
    f, grad = problem.objective(beta), problem.gradient(beta)
    ftol = _ftol(tol, f)
    losses = []
    for _ in range(max_iter):
        delta = problem.irls_direction(beta, grad)
        if not np.all(np.isfinite(delta)):  # XᵀWX overflowed: no Newton step exists in float64
            return np.full_like(beta, np.nan), losses, False
        step, f_new = 1.0, None
        for _ in range(40):  # halve until F does not increase (needed for non-canonical links)
            f_try = problem.objective(beta + step * delta)
            if f_try <= f:
                f_new = f_try
                break
            step *= 0.5
        if f_new is None:  # no decrease even for tiny steps: F is at its minimum to rounding
            return beta, losses or [f], True
        f_old, f, beta = f, f_new, beta + step * delta
        losses.append(f)
        if log:
            log.iteration(len(losses), loss=f)
        grad = problem.gradient(beta)
        if stopping_test(grad, f_old, f, tol, ftol) is not None:
            return beta, losses, True
    return beta, losses, False


def first_order(problem, beta, solver, max_iter, tol, log=None, scales=None):
    """Gradient descent (backtracking) or L-BFGS from ``lucidml.optim`` on F; returns (β, losses, converged).
    ``log`` (an ``IterationLog``) prints F after each iteration (computed again, only when it prints).

    Both run on u = Dβ, D = ``scales`` (default ``problem.scales()``): the weights of the standardized
    features, so that a feature in other units neither stalls them nor ends them early. Unscaled, a
    Poisson fit with one feature ×1e8 stopped after 2 iterations with predictions of 1e130 and a
    Gaussian one 84 (y's spread: 77) from the optimum, both reported as converged. The stopping test
    reads the gradient in u."""
    d = problem.scales() if scales is None else scales
    iterates = [beta]
    with np.errstate(over="ignore", invalid="ignore"):
        ftol = _ftol(tol, problem.objective(beta))

    def step_taken(u):
        iterates.append(u / d)
        if log:
            log.iteration(len(iterates) - 1, loss=problem.objective(iterates[-1]))

    def run(fun, u0, grad):
        if solver == "lbfgs":
            return lbfgs(fun, u0, grad, max_iter=max_iter, tol=tol, ftol=ftol, callback=step_taken)
        return gradient_descent(fun, u0, grad, step="backtracking", lr=1.0, max_iter=max_iter, tol=tol,
                                ftol=ftol, callback=step_taken)

    try:
        result = diagonally_scaled(run, problem.objective, problem.gradient, beta, d)
    except NonFiniteStart:  # F overflows at the start (features near 1e300): the fit refuses, by name
        return np.full_like(beta, np.nan), [problem.objective(beta)], False
    except ValueError as error:
        if "descent direction" not in str(error):
            raise
        # The line search found no descent direction: ∇F vanished to rounding (tol below what
        # float64 resolves), and the last iterate is the minimum to machine precision — unless
        # the gradient is still clearly non-zero, which is a failure to report.
        beta = iterates[-1]
        losses = [problem.objective(b) for b in iterates[1:]] or [problem.objective(beta)]
        gradient = np.max(np.abs(problem.gradient(beta) / d))
        return beta, losses, bool(gradient <= max(tol, 1e-8 * max(1.0, abs(losses[-1]))))
    return result.x, [h["f"] for h in result.history], result.success
