"""Gradient descent with a fixed step, the step 1/L, or a backtracking line search."""

import warnings

import numpy as np

from ..utils.validation import check_positive
from .result import Run

__all__ = ["gradient_descent"]

_MAX_STEP = 1e6


def gradient_descent(fun, x0, grad, hess=None, *, step="backtracking", lr=1e-3, L=None, max_iter=10_000, tol=1e-8,
                     ftol=None, callback=None):
    """Minimize f by x ← x − γ ∇f(x) (seeds: 002 §4.1, 000 §2.1–2.4, 003 §2.1).

    ``step`` chooses γ:

    - ``"fixed"``: γ = ``lr``;
    - ``"lipschitz"``: γ = 1/L with L = sup ‖∇²f‖₂ given as ``L``, or ‖∇²f(x₀)‖₂ from ``hess``
      (a local estimate, with a warning); any γ < 2/L decreases f for an L-smooth f;
    - ``"backtracking"``: each iteration starts from twice the previous γ (capped) and halves it
      until f(x − γg) ≤ f(x) − ½γ‖g‖² (002 (4.18)), at most 50 times — f never increases.

    Stops when ‖∇f‖∞ ≤ tol, when the relative change of f is ≤ ``ftol`` (default: tol), or at
    ``max_iter``.

    Returns
    -------
    OptimizeResult

    Examples
    --------
    >>> import numpy as np
    >>> f, grad = (lambda x: x @ x), (lambda x: 2 * x)       # L = 2: the step 1/L = 0.5 is exact here
    >>> res = gradient_descent(f, np.array([3.0, -4.0]), grad, step="lipschitz", L=2.0)
    >>> res.x, res.n_iter
    (array([0., 0.]), 1)
    """
    run = Run(fun, callback, tol, ftol)
    f_count = run.fun
    x = np.array(x0, dtype=np.float64)
    if step == "fixed":
        gamma = check_positive(lr, "lr")
    elif step == "lipschitz":
        if L is None:
            if hess is None:
                raise ValueError("step='lipschitz' needs L or hess.")
            L = float(np.linalg.norm(np.atleast_2d(hess(x)), 2))
            warnings.warn("L estimated as ‖∇²f(x₀)‖₂: a local value, not a global Lipschitz constant.", stacklevel=2)
        gamma = 1.0 / check_positive(L, "L")
    elif step == "backtracking":
        gamma = check_positive(lr, "lr")
    else:
        raise ValueError(f"step must be 'fixed', 'lipschitz' or 'backtracking'; got {step!r}.")
    f, g = f_count(x), grad(x)
    if (done := run.already_stationary(x, f, g)) is not None:
        return done
    for n_iter in range(1, max_iter + 1):
        f_old, predicted = f, None
        if step == "backtracking":
            gamma = min(2 * gamma, _MAX_STEP)
            squared = float(g @ g)
            predicted = 0.5 * gamma * squared
            for _ in range(50):
                f_new = f_count(x - gamma * g)
                if f_new <= f - 0.5 * gamma * squared:
                    break
                gamma *= 0.5
            else:
                f_new, gamma = f, 0.0  # no decrease found: stay
            x = x - gamma * g
            f = f_new
        else:
            x = x - gamma * g
            f = f_count(x)
        g = grad(x)
        done = run.iteration(n_iter, x, f_old, f, g, gamma, predicted)
        if done is not None:
            return done
    return run.exhausted(x, f, g, max_iter)
