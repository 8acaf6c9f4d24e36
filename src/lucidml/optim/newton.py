"""Newton's method with a line search, on the full Hessian or its diagonal."""

import numpy as np
import scipy.linalg

from .line_search import backtracking
from .result import Run

__all__ = ["newton"]


def newton(fun, x0, grad, hess, *, line_search=True, hessian="full", max_iter=100, tol=1e-8, ftol=None, callback=None):
    """Minimize f by Newton steps p = −H⁻¹∇f, x ← x + γp (seeds: 002 §4.2, 000 §2.3, 003 §2.4).

    H is ∇²f(x) (``hessian="full"``), or its diagonal (``"diag"``, 002 (4.62)), made positive
    definite where it is not: H + τI with τ raised until Cholesky succeeds (Nocedal & Wright
    §3.4), or max(|Hᵢᵢ|, ε) on the diagonal. γ comes from a backtracking line search to the
    Armijo condition (c = 1e-4) starting at 1, or is 1 with ``line_search=False``.

    Returns
    -------
    OptimizeResult

    Examples
    --------
    >>> from lucidml.optim import rosenbrock, rosenbrock_grad, rosenbrock_hess
    >>> res = newton(rosenbrock, [-1.2, 1.0], rosenbrock_grad, rosenbrock_hess)
    >>> res.x.round(6), res.success
    (array([1., 1.]), True)
    """
    if hessian not in ("full", "diag"):
        raise ValueError(f"hessian must be 'full' or 'diag'; got {hessian!r}.")
    run = Run(fun, callback, tol, ftol)
    f_count = run.fun
    x = np.array(x0, dtype=np.float64)
    f, g = f_count(x), grad(x)
    if (done := run.already_stationary(x, f, g)) is not None:
        return done
    for n_iter in range(1, max_iter + 1):
        H = np.atleast_2d(hess(x))
        if hessian == "diag":
            p = -g / np.maximum(np.abs(np.diag(H)), np.finfo(float).eps)
        else:
            p = -scipy.linalg.cho_solve((_modified_cholesky(H), True), g)
        f_old, predicted = f, -float(g @ p)
        if line_search:
            gamma, f = backtracking(f_count, x, f, g, p)
        else:
            gamma = 1.0
            f = f_count(x + p)
        x = x + gamma * p
        g = grad(x)
        done = run.iteration(n_iter, x, f_old, f, g, gamma, predicted)
        if done is not None:
            return done
    return run.exhausted(x, f, g, max_iter)


def _modified_cholesky(H, beta=1e-3):
    """Lower Cholesky factor of H + τI with the smallest τ in 0, β, 2β, 4β, … that works."""
    tau = 0.0 if np.min(np.diag(H)) > 0 else beta - np.min(np.diag(H))
    while True:
        try:
            return scipy.linalg.cholesky(H + tau * np.eye(len(H)), lower=True)
        except scipy.linalg.LinAlgError:
            tau = max(2 * tau, beta)
