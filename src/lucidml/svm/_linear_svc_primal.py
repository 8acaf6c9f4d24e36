"""Primal finite Newton method for the squared-hinge linear SVM (used when n_samples > n_features)."""

import numpy as np


def primal_newton(X, y, C, tol, max_iter):
    """Minimise P(w) = ½‖w‖² + Σᵢ Cᵢ max(0, 1 − yᵢwᵀxᵢ)² by Newton steps with exact line search.

    P is convex, piecewise quadratic and once differentiable. On the violator set I = {i : yᵢwᵀxᵢ < 1}

        ∇P(w) = w − 2 Σ_I Cᵢ (1 − yᵢwᵀxᵢ) yᵢxᵢ,   H = I + 2 Σ_I Cᵢ xᵢxᵢᵀ   (a generalised Hessian),

    and the step d = −H⁻¹∇P is followed by the exact minimiser of P along d (Keerthi & DeCoste 2005, the
    "modified finite Newton" method; Mangasarian 2002). It terminates exactly once I stops changing. X
    already carries the constant bias column. Stops when ‖∇P‖∞ ≤ tol·max(1, ‖∇P(0)‖∞).
    Returns (w, objective after each iteration, converged).
    """
    w = np.zeros(X.shape[1])
    margins = np.zeros(X.shape[0])  # yᵢ wᵀxᵢ
    grad0 = None
    curve = []
    for _ in range(max_iter):
        viol = margins < 1.0
        coef = np.where(viol, 2.0 * C * (1.0 - margins) * y, 0.0)
        grad = w - coef @ X
        gnorm = np.abs(grad).max()
        grad0 = gnorm if grad0 is None else grad0
        if gnorm <= tol * max(1.0, grad0):
            return w, np.array(curve), True
        # H = I + XsᵀXs, rows xᵢ√(2Cᵢ) for violators and 0 otherwise (a streaming pass is cheaper than a
        # gather); NumPy computes XsᵀXs by one SYRK (it sees the same array on both sides)
        Xs = X * np.where(viol, np.sqrt(2.0 * C), 0.0)[:, None]
        H = Xs.T @ Xs
        del Xs
        H.flat[:: H.shape[0] + 1] += 1.0
        # H ⪰ I: an LU solve is as accurate as Cholesky here, with less overhead per (small) call
        d = -np.linalg.solve(H, grad)
        delta = y * (X @ d)
        t = _exact_line_search(w, d, margins, delta, C)
        w += t * d
        margins += t * delta
        curve.append(0.5 * w @ w + np.sum(C * np.maximum(0.0, 1.0 - margins) ** 2))
    return w, np.array(curve), False


def _exact_line_search(w, d, m, delta, C):
    """argmin_t φ(t) = ½‖w + td‖² + Σ Cᵢ max(0, 1 − mᵢ − tδᵢ)² over t > 0.

    φ′(t) = A + B t is piecewise linear and increasing; A and B change only at the breakpoints
    tᵢ = (1 − mᵢ)/δᵢ, where sample i leaves (δᵢ > 0) or joins (δᵢ < 0) the violators. Walk the sorted
    positive breakpoints until φ′ turns non-negative.
    """
    active = (m < 1.0) | ((m == 1.0) & (delta < 0.0))
    a_terms = 2.0 * C * delta * (m - 1.0)
    b_terms = 2.0 * C * delta**2
    A = w @ d + a_terms[active].sum()
    B = d @ d + b_terms[active].sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        t_break = (1.0 - m) / delta
    # a breakpoint matters if it lies ahead and flips the sample's state
    flips = (t_break > 0.0) & np.isfinite(t_break) & ((active & (delta > 0.0)) | (~active & (delta < 0.0)))
    order = np.argsort(t_break[flips])
    tk = t_break[flips][order]
    sign = np.where(delta[flips][order] > 0.0, -1.0, 1.0)  # leaving subtracts, joining adds
    A_after = A + np.cumsum(sign * a_terms[flips][order])
    B_after = B + np.cumsum(sign * b_terms[flips][order])
    A_before = np.concatenate(([A], A_after[:-1]))
    B_before = np.concatenate(([B], B_after[:-1]))
    slope_at_break = A_before + B_before * tk
    k = np.flatnonzero(slope_at_break >= 0.0)
    if k.size:
        return -A_before[k[0]] / B_before[k[0]]
    A_end = A_after[-1] if tk.size else A
    B_end = B_after[-1] if tk.size else B
    return -A_end / B_end
