"""Minimization in diagonally rescaled variables: u = Dx.

A first-order method's steps, and its stopping test ‖∇f‖∞ ≤ tol, depend on the units of x: a
coefficient of a feature in units 1e8 times smaller than another's sees a curvature 1e16 times
smaller, and gradient descent or L-BFGS crawls along it (or stops short, the gradient being tiny
in those units). With D the square roots of the curvatures the variables are on one scale.
"""

import numpy as np

__all__ = ["diagonally_scaled", "linear_model_scales"]


def diagonally_scaled(run, fun, grad, x0, d):
    """``run(fun_u, u0, grad_u)`` on u = d ∘ x; its OptimizeResult, read back in x.

    ``d`` holds positive scales (1 leaves a variable as it is). f(u) = fun(u / d) and
    ∇ᵤf = ∇ₓf / d, so the method's stopping test reads the gradient in the scaled variables.
    """
    d = np.asarray(d, dtype=np.float64)
    if np.all(d == 1.0):
        return run(fun, x0, grad)
    result = run(lambda u: fun(u / d), x0 * d, lambda u: grad(u / d) / d)
    result.x = result.x / d
    for entry in result.history:
        if entry.get("x") is not None:
            entry["x"] = entry["x"] / d
    return result


def linear_model_scales(x_spread, l2, fit_intercept, n_vectors=1):
    """D for the flat parameters of a linear model, n_vectors blocks of (weights [, intercept]):
    √(σⱼ² + λ₂) on the weight of feature j, σⱼ its spread (the square root of the weight's curvature
    up to the loss's own factor; 1 where that is 0) and 1 on the intercepts."""
    curvature = np.asarray(x_spread, dtype=np.float64) ** 2 + l2
    weights = np.sqrt(np.where(curvature > 0, curvature, 1.0))
    return np.tile(np.r_[weights, np.ones(int(fit_intercept))], n_vectors)
