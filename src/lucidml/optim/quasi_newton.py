"""Quasi-Newton methods: BFGS and limited-memory BFGS."""

from collections import deque

import numpy as np
import scipy.linalg

from .line_search import wolfe
from .result import Run

__all__ = ["bfgs", "lbfgs"]


def _skip(s, y):
    """BFGS keeps an update only with clear positive curvature: yᵀs > ε ‖s‖ ‖y‖."""
    return float(y @ s) <= 1e-10 * np.linalg.norm(s) * np.linalg.norm(y)


def bfgs(fun, x0, grad, hess=None, *, B0="identity", max_iter=1000, tol=1e-8, ftol=None, callback=None):
    """BFGS with a Wolfe line search (seed 002 §4.3, Algorithm 4.23).

    In the notes' notation H approximates ∇²f and B = H⁻¹. Each iteration: p = −B∇f; a step γ
    satisfying the Wolfe conditions; s = γp, y = Δ∇f, ρ = 1/yᵀs and

        B ← (I − ρ s yᵀ) B (I − ρ y sᵀ) + ρ s sᵀ,

    which makes the new H satisfy the secant equation H s = y. The update is skipped unless
    yᵀs > 1e-10 ‖s‖‖y‖. ``B0="identity"`` starts from I, rescaled by yᵀs/yᵀy after the first
    step; ``"exact"`` from ∇²f(x₀)⁻¹ (needs ``hess``; Remark 4.24 prefers it). ``history`` also
    holds ``B`` per iteration.

    Returns
    -------
    OptimizeResult
    """
    run = Run(fun, callback, tol, ftol)
    f_count = run.fun
    x = np.array(x0, dtype=np.float64)
    n = x.size
    if B0 == "exact":
        if hess is None:
            raise ValueError("B0='exact' needs hess.")
        B = scipy.linalg.inv(np.atleast_2d(hess(x)))  # the notes' H₀⁻¹; n × n once
    elif B0 == "identity":
        B = np.eye(n)
    else:
        raise ValueError(f"B0 must be 'identity' or 'exact'; got {B0!r}.")
    f, g = f_count(x), grad(x)
    if (done := run.already_stationary(x, f, g)) is not None:
        return done
    for n_iter in range(1, max_iter + 1):
        p = -B @ g
        if g @ p >= 0:  # B lost positive definiteness to round-off: restart
            B, p = np.eye(n), -g
        gamma, f_new, g_new, unbounded = wolfe(f_count, grad, x, f, g, p)
        predicted = -float(g @ p)
        s, y = gamma * p, g_new - g
        if not _skip(s, y):
            if n_iter == 1 and B0 == "identity":
                B = np.eye(n) * float(y @ s) / float(y @ y)
            rho = 1.0 / float(y @ s)
            left = np.eye(n) - rho * np.outer(s, y)
            B = left @ B @ left.T + rho * np.outer(s, s)
        f_old, x, f, g = f, x + s, f_new, g_new
        done = run.iteration(n_iter, x, f_old, f, g, gamma, predicted, unbounded, B=B.copy())
        if done is not None:
            return done
    return run.exhausted(x, f, g, max_iter)


def lbfgs(fun, x0, grad, *, m=10, max_iter=1000, tol=1e-8, ftol=None, callback=None):
    """Limited-memory BFGS (Liu & Nocedal 1989): B∇f from the last ``m`` pairs (s, y) by the two-loop
    recursion, starting from the scaling sᵀy/yᵀy; Wolfe line search and the BFGS skip rule. Memory
    O(m n) instead of O(n²).

    Returns
    -------
    OptimizeResult
    """
    run = Run(fun, callback, tol, ftol)
    f_count = run.fun
    x = np.array(x0, dtype=np.float64)
    pairs = deque(maxlen=m)
    f, g = f_count(x), grad(x)
    if (done := run.already_stationary(x, f, g)) is not None:
        return done
    for n_iter in range(1, max_iter + 1):
        p = -_two_loop(g, pairs)
        gamma, f_new, g_new, unbounded = wolfe(f_count, grad, x, f, g, p)
        predicted = -float(g @ p)
        s, y = gamma * p, g_new - g
        if not _skip(s, y):
            pairs.append((s, y, 1.0 / float(y @ s)))
        f_old, x, f, g = f, x + s, f_new, g_new
        done = run.iteration(n_iter, x, f_old, f, g, gamma, predicted, unbounded)
        if done is not None:
            return done
    return run.exhausted(x, f, g, max_iter)


def _two_loop(g, pairs, initial=None):
    """B g for the L-BFGS inverse-Hessian approximation of the stored pairs (newest last).

    ``initial(q)`` applies the starting matrix B₀; by default the scaling sᵀy/yᵀy of the newest pair.
    """
    q = g.copy()
    alphas = []
    for s, y, rho in reversed(pairs):
        alpha = rho * (s @ q)
        q -= alpha * y
        alphas.append(alpha)
    if initial is not None:
        q = initial(q)
    elif pairs:
        s, y, _ = pairs[-1]
        q *= (s @ y) / (y @ y)
    for (s, y, rho), alpha in zip(pairs, reversed(alphas)):
        q += (alpha - rho * (y @ q)) * s
    return q
