"""Line searches: backtracking to the Armijo condition, and a step satisfying the strong Wolfe conditions."""

import numpy as np

__all__ = ["backtracking", "wolfe"]


def backtracking(fun, x, f, g, p, step=1.0, c=1e-4, shrink=0.5, max_halvings=50):
    """Largest step·shrinkᵏ with f(x + αp) ≤ f(x) + c α gᵀp (sufficient decrease); (α, f_new) or (0, f).

    ``p`` must be a descent direction (gᵀp < 0); then such an α exists, so the accepted step
    always decreases f.
    """
    slope = float(g @ p)
    if slope >= 0:
        raise ValueError("the search direction is not a descent direction (gᵀp ≥ 0).")
    for _ in range(max_halvings + 1):
        f_new = fun(x + step * p)
        if f_new <= f + c * step * slope:
            return step, f_new
        step *= shrink
    return 0.0, f


def wolfe(fun, grad, x, f, g, p, c1=1e-4, c2=0.9, max_iter=50):
    """A step α with f(x + αp) ≤ f + c₁αgᵀp and |∇f(x + αp)ᵀp| ≤ c₂|gᵀp| (Nocedal & Wright Alg. 3.5,
    with bisection in the zoom phase); (α, f_new, g_new, unbounded). Under it yᵀs > 0, which BFGS needs.

    After ``max_iter`` trials without both conditions, the longest step found with sufficient
    decrease, or (0, f, g) when there is none: never a step that was not checked. The fourth
    value says whether f kept falling however far the steps went (``max_iter`` doublings without
    a bracket): f looks unbounded below along p."""
    slope0 = float(g @ p)
    if slope0 >= 0:
        raise ValueError("the search direction is not a descent direction (gᵀp ≥ 0).")
    low, high, f_low = 0.0, np.inf, f
    step = 1.0
    for _ in range(max_iter):
        f_new = fun(x + step * p)
        if f_new > f + c1 * step * slope0 or f_new >= f_low and low > 0:
            high = step
        else:
            g_new = grad(x + step * p)
            slope = float(g_new @ p)
            if abs(slope) <= -c2 * slope0:
                return step, f_new, g_new, False
            if slope >= 0:
                high = step
            else:
                low, f_low = step, f_new
        step = 2 * step if np.isinf(high) else 0.5 * (low + high)
    if low == 0.0:
        return 0.0, f, g, False
    return low, f_low, grad(x + low * p), bool(np.isinf(high))
