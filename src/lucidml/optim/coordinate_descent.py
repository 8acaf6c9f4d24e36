"""Coordinate descent: minimize f along one coordinate at a time."""

from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize_scalar
from sklearn.utils import check_random_state

from ..utils import Interval, Options
from .result import OptimizeResult, Run

__all__ = ["coordinate_descent"]

_CONSTRAINTS = {
    "order": Options({"cyclic", "random"}),
    "max_iter": Interval(Integral, 1, None, closed="left"),
    "tol": Interval(Real, 0, None, closed="left"),
}


def coordinate_descent(fun, x0, *, coord_min=None, quadratic=None, order="cyclic", bounds=None, max_iter=1000,
                       tol=1e-8, random_state=None, callback=None):
    """Minimize f by exact minimization along one coordinate at a time (seeds: 000 §6.9 Algorithm 4
    and §6.10.1, where the same loop maximizes and is called coordinate ascent; 004 §13).

    One iteration is a sweep over all n coordinates, each updated in turn by

        xⱼ ← argmin_t f(x₁, …, xⱼ₋₁, t, xⱼ₊₁, …, xₙ),

    in data order (``order="cyclic"``) or in a new random permutation every sweep (``"random"``).
    The one-dimensional minimiser is, in order of preference:

    1. ``coord_min(x, j)``, supplied by the user (it must not modify x);
    2. for ``quadratic=(Q, c)``, meaning f(x) = ½ xᵀQx + cᵀx with Q symmetric and Qⱼⱼ > 0, the
       closed form xⱼ = −(cⱼ + Σ_{k≠j} Qⱼₖ xₖ) / Qⱼⱼ;
    3. otherwise Brent's method (``scipy.optimize.minimize_scalar``): ``method="brent"`` from the
       bracket (xⱼ, xⱼ + 1), or ``method="bounded"`` when both bounds of xⱼ are finite.

    ``bounds`` (n pairs (lo, hi), None for no bound) clips every update to lo ≤ xⱼ ≤ hi, which is
    the exact constrained minimiser whenever f is unimodal along the coordinate (e.g. convex).

    Stops after a sweep when ‖∇f‖∞ ≤ tol, when |f_prev − f| ≤ tol·max(1, |f|), when
    max_j |Δxⱼ| ≤ tol over the sweep, or after ``max_iter`` sweeps (``tol=0`` runs exactly ``max_iter``
    sweeps, like the notes' loop). As |Δf| shrinks like ‖x − x*‖², the test on f stops near
    ‖x − x*‖ ~ √tol; use a tiny tol or ``tol=0`` for high accuracy. ∇f is exact, Qx + c, when
    ``quadratic`` is given (even with ``coord_min``); otherwise a central finite difference (2n more
    evaluations of f per sweep, counted in ``nfev``). ``fun`` may be None when ``quadratic`` is given.
    ``history`` holds one entry per sweep; its ``step`` is max_j |Δxⱼ|.

    Returns
    -------
    OptimizeResult

    Examples
    --------
    The function of the notes' demo code (000 §6.10.1), f(a, b) = a² + b² + 2b + ab: Q = [[2, 1], [1, 2]],
    c = (0, 2), minimum at (2/3, −4/3).

    >>> import numpy as np
    >>> Q, c = np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([0.0, 2.0])
    >>> res = coordinate_descent(None, [-1.8, 1.6], quadratic=(Q, c))
    >>> res.x.round(4), res.n_iter, res.success
    (array([ 0.6666, -1.3333]), 9, True)
    """
    x = _check_arguments(x0, coord_min, order=order, max_iter=max_iter, tol=tol)
    Q, c = _check_quadratic(quadratic, x.size)
    if fun is None:
        if Q is None:
            raise ValueError("fun may be None only when quadratic=(Q, c) is given.")
        fun = lambda z: 0.5 * z @ Q @ z + c @ z
    lower, upper = _check_bounds(bounds, x.size)
    rng = check_random_state(random_state)
    run = Run(fun, callback, tol if tol > 0 else -np.inf)  # tol=0: exactly max_iter sweeps
    minimize_along = _coordinate_rule(run.fun, coord_min, Q, c, lower, upper)
    x = np.clip(x, lower, upper)
    f = run.fun(x)
    for n_iter in range(1, max_iter + 1):
        x_old, f_old = x.copy(), f
        for j in rng.permutation(x.size) if order == "random" else range(x.size):
            x[j] = np.clip(minimize_along(x, j), lower[j], upper[j])
        f = run.fun(x)
        g = Q @ x + c if Q is not None else _central_gradient(run.fun, x)
        step = float(np.max(np.abs(x - x_old)))
        done = run.iteration(n_iter, x, f_old, f, g, step)
        if done is not None:
            return done
        if step <= tol and tol > 0:
            return OptimizeResult(x, f, n_iter, True, f"max |Δx| ≤ tol={tol}", float(np.max(np.abs(g))),
                                  run.fun.calls, run.history)
    return run.exhausted(x, f, g, max_iter)


def _coordinate_rule(f_count, coord_min, Q, c, lower, upper):
    """The function (x, j) ↦ argmin along coordinate j, by the rule of preference."""
    if coord_min is not None:
        return lambda x, j: float(coord_min(x, j))
    if Q is not None:
        # ∂f/∂xⱼ = (Qx)ⱼ + cⱼ = 0 solved for xⱼ, the other coordinates fixed.
        return lambda x, j: x[j] - (Q[j] @ x + c[j]) / Q[j, j]

    def brent(x, j):
        trial = x.copy()

        def along(t):
            trial[j] = t
            return f_count(trial)

        with np.errstate(over="ignore", invalid="ignore"):  # a failed bracket search overflows
            if np.isfinite(lower[j]) and np.isfinite(upper[j]):
                result = minimize_scalar(along, bounds=(lower[j], upper[j]), method="bounded")
            else:
                result = minimize_scalar(along, bracket=(x[j], x[j] + 1.0), method="brent")
        if not (result.success and np.isfinite(result.fun)):
            raise ValueError(f"Brent found no minimum along coordinate {j}: is f bounded below along it?")
        return result.x

    return brent


def _central_gradient(f_count, x):
    """(f(x + hₖeₖ) − f(x − hₖeₖ)) / 2hₖ with hₖ = ε^⅓ max(1, |xₖ|), the usual balance of errors."""
    g = np.empty_like(x)
    for k in range(x.size):
        h = np.finfo(float).eps ** (1 / 3) * max(1.0, abs(x[k]))
        step = np.zeros_like(x)
        step[k] = h
        g[k] = (f_count(x + step) - f_count(x - step)) / (2 * h)
    return g


def _check_arguments(x0, coord_min, **values):
    """Validate the scalar options and return x0 as a float vector."""
    for name, value in values.items():
        if not _CONSTRAINTS[name].is_satisfied_by(value):
            raise ValueError(f"{name} must be {_CONSTRAINTS[name]}; got {value!r}.")
    if coord_min is not None and not callable(coord_min):
        raise ValueError(f"coord_min must be callable or None; got {coord_min!r}.")
    x = np.array(x0, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"x0 must be a non-empty 1-D array; got shape {x.shape}.")
    return x


def _check_quadratic(quadratic, n):
    if quadratic is None:
        return None, None
    if not isinstance(quadratic, (tuple, list)) or len(quadratic) != 2:
        raise ValueError("quadratic must be a pair (Q, c).")
    Q, c = np.asarray(quadratic[0], dtype=np.float64), np.asarray(quadratic[1], dtype=np.float64)
    if Q.shape != (n, n) or c.shape != (n,):
        raise ValueError(f"quadratic needs Q of shape ({n}, {n}) and c of shape ({n},); got {Q.shape} and {c.shape}.")
    if not np.allclose(Q, Q.T):
        raise ValueError("Q must be symmetric.")
    if np.any(np.diag(Q) <= 0):
        raise ValueError("Q must have a positive diagonal: f is not strictly convex along every coordinate.")
    return Q, c


def _check_bounds(bounds, n):
    if bounds is None:
        return np.full(n, -np.inf), np.full(n, np.inf)
    if len(bounds) != n or any(len(pair) != 2 for pair in bounds):
        raise ValueError(f"bounds must hold {n} pairs (lo, hi).")
    lower = np.array([-np.inf if lo is None else lo for lo, _ in bounds], dtype=np.float64)
    upper = np.array([np.inf if hi is None else hi for _, hi in bounds], dtype=np.float64)
    if np.any(lower > upper):
        raise ValueError("bounds need lo ≤ hi for every coordinate.")
    return lower, upper
