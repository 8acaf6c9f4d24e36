"""Nonlinear least squares: Gauss–Newton and Levenberg–Marquardt (seed 002 §4.5)."""

import numpy as np
import scipy.linalg

from .result import OptimizeResult, record, stopping_test

__all__ = ["gauss_newton", "levenberg_marquardt"]


def _prepare(residual, p0, jac, weights):
    p = np.array(p0, dtype=np.float64)
    r = np.asarray(residual(p), dtype=np.float64)
    if r.size < p.size:
        raise ValueError(f"least squares needs at least as many residuals ({r.size}) as parameters ({p.size}).")
    w = np.ones(r.size) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != r.shape or np.any(w < 0):
        raise ValueError("weights must be non-negative, one per residual.")
    jacobian = jac if jac is not None else (lambda q: _finite_difference_jacobian(residual, q))
    return p, r, w, jacobian


def _finite_difference_jacobian(residual, p):
    """Forward differences, step √ε·max(1, |pⱼ|)."""
    r0 = np.asarray(residual(p), dtype=np.float64)
    J = np.empty((r0.size, p.size))
    for j in range(p.size):
        h = np.sqrt(np.finfo(float).eps) * max(1.0, abs(p[j]))
        shifted = p.copy()
        shifted[j] += h
        J[:, j] = (np.asarray(residual(shifted)) - r0) / h
    return J


def gauss_newton(residual, p0, jac=None, weights=None, *, max_iter=100, tol=1e-10, callback=None):
    """Minimize f(p) = r(p)ᵀ W r(p) by Gauss–Newton: linearize r(p + Δ) ≈ r + JΔ and solve

        (JᵀWJ) Δ = −JᵀW r

    as the least-squares problem min ‖W^½(JΔ + r)‖ (never forming JᵀWJ); p ← p + Δ. ``residual``
    returns r(p) = ŷ(p) − y (or y − ŷ: f is the same); ``jac`` its Jacobian ∂r/∂p (forward
    differences by default); ``weights`` the diagonal of W (e.g. 1/ηᵢ², 002 (4.50)).

    Returns
    -------
    OptimizeResult
        ``grad_norm`` is ‖2JᵀWr‖∞, the gradient of f.
    """
    p, r, w, jacobian = _prepare(residual, p0, jac, weights)
    root_w = np.sqrt(w)
    f, nfev, history = float(r @ (w * r)), 1, []
    for n_iter in range(1, max_iter + 1):
        J = jacobian(p)
        step = scipy.linalg.lstsq(root_w[:, None] * J, -root_w * r)[0]
        p = p + step
        r = np.asarray(residual(p), dtype=np.float64)
        nfev += 1
        f_old, f = f, float(r @ (w * r))
        gradient = 2 * J.T @ (w * r)
        record(history, p, f, gradient, 1.0)
        if callback is not None:
            callback(p)
        reason = stopping_test(gradient, f_old, f, tol)
        if reason is not None:
            return OptimizeResult(p, f, n_iter, True, reason, float(np.max(np.abs(gradient))), nfev, history)
    return OptimizeResult(p, f, max_iter, False, f"max_iter={max_iter} reached",
                          float(np.max(np.abs(2 * jacobian(p).T @ (w * r)))), nfev, history)


def levenberg_marquardt(residual, p0, jac=None, weights=None, *, lambda0=0.01, epsilon0=0.1, damping="levenberg",
                        max_iter=1000, tol=1e-10, callback=None):
    """Minimize f(p) = r(p)ᵀ W r(p) by Levenberg–Marquardt (seed 002 §4.5.3, (4.58)–(4.61)).

    Each iteration solves the damped normal equations (JᵀWJ + λD) Δ = −JᵀW r, with D = I
    (``damping="levenberg"``) or D = diag(JᵀWJ) (``"marquardt"``), and compares the actual
    decrease of f with the decrease predicted by the linearization:

        ρ = [f(p) − f(p + Δ)] / Δᵀ(λDΔ − JᵀW r).

    If ρ > ε₀ the step is taken and λ ← λ·max(1/3, 1 − (2ρ − 1)³), ν ← 2 (Nielsen's rule: the
    notes print 1 − (2ρ)³, corrected in the spec); otherwise λ ← λν, ν ← 2ν. Large λ gives short
    gradient-descent steps, small λ Gauss–Newton steps. Defaults λ₀ = 0.01, ε₀ = 0.1 (notes).
    ``history`` also records λ and ρ.

    Returns
    -------
    OptimizeResult
    """
    if damping not in ("levenberg", "marquardt"):
        raise ValueError(f"damping must be 'levenberg' or 'marquardt'; got {damping!r}.")
    p, r, w, jacobian = _prepare(residual, p0, jac, weights)
    lam, nu = lambda0, 2.0
    f, nfev, history = float(r @ (w * r)), 1, []
    J = jacobian(p)
    for n_iter in range(1, max_iter + 1):
        JtW = J.T * w
        normal, rhs = JtW @ J, -JtW @ r
        D = np.diag(np.diag(normal)) if damping == "marquardt" else np.eye(p.size)
        step = scipy.linalg.solve(normal + lam * D, rhs, assume_a="symmetric")
        r_new = np.asarray(residual(p + step), dtype=np.float64)
        nfev += 1
        f_new = float(r_new @ (w * r_new))
        predicted = float(step @ (lam * D @ step + rhs))
        rho = (f - f_new) / predicted if predicted > 0 else -np.inf
        f_old = f
        if rho > epsilon0:
            p, r, f = p + step, r_new, f_new
            J = jacobian(p)
            lam *= max(1 / 3, 1 - (2 * rho - 1) ** 3)
            nu = 2.0
        else:
            lam *= nu
            nu *= 2
        gradient = 2 * J.T @ (w * r)
        record(history, p, f, gradient, float(np.linalg.norm(step)), lam=lam, rho=rho)
        if callback is not None:
            callback(p)
        accepted = rho > epsilon0
        reason = stopping_test(gradient, f_old if accepted else None, f, tol)
        if reason is not None:
            return OptimizeResult(p, f, n_iter, True, reason, float(np.max(np.abs(gradient))), nfev, history)
    return OptimizeResult(p, f, max_iter, False, f"max_iter={max_iter} reached", float(np.max(np.abs(gradient))),
                          nfev, history)
