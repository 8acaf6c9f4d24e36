"""The logarithmic barrier method (Boyd & Vandenberghe §11.3)."""

import numpy as np
import scipy.linalg

from ...utils.validation import check_count, check_positive
from .problem import Problem

__all__ = ["barrier_qp"]


def barrier_qp(G, c, A_eq=None, b_eq=None, A_ineq=None, b_ineq=None, t0=1.0, mu=10.0, tol=1e-8, max_iter=100):
    """Minimize ½ xᵀGx + cᵀx subject to A_eq x = b_eq, A_ineq x ≤ b_ineq, G ⪰ 0 (convex).

    For t = t0, μ t0, μ² t0, …: minimize φ_t(x) = ½ xᵀGx + cᵀx − (1/t) Σᵢ log(bᵢ − aᵢᵀx) subject
    to A_eq x = b_eq by Newton's method (equality-constrained Newton steps with a backtracking
    line search that stays strictly feasible), starting from the previous minimizer. (This is
    Boyd & Vandenberghe's t·q − Σ log divided by t, which keeps the Newton matrix
    G + (1/t) AᵀS⁻²A on the scale of G.) The minimizer of φ_t is within m/t of the optimum
    (m = number of inequalities), so the outer loop stops once m/t < ``tol``. Multipliers:
    zᵢ = 1/(t sᵢ) estimates them, but for large t that estimate is only as good as the centring,
    so at the end y and z are recovered by least squares on Gx + c + A_eqᵀy + A_ineqᵀz = 0 over
    the equalities and the constraints active at x (z clipped at 0). Needs a strictly feasible
    point, found by linear programming; if there is none the problem is reported infeasible.

    Returns
    -------
    QPResult
        ``history`` holds t, the duality-gap bound m/t and the Newton steps per outer iteration.
    """
    t0, mu, tol = check_positive(t0, "t0"), check_positive(mu, "mu", above=1.0), check_positive(tol, "tol")
    max_iter = check_count(max_iter, "max_iter")
    problem = Problem(G, c, A_eq, b_eq, A_ineq, b_ineq)
    problem.require_convex("barrier_qp")
    reduced = problem.independent_equalities()
    if reduced is None:
        return problem.infeasible("the equality constraints are inconsistent")
    x = problem.feasible_point(strict=True)
    if x is None:
        return problem.infeasible("no strictly feasible point: the barrier method needs A_ineq x < b_ineq somewhere")
    A, _ = reduced
    C, d = problem.A_ineq, problem.b_ineq
    m = len(d)
    # The gap bound m/t is in the objective's units: for an objective of small entries (G = 1e-8·I)
    # tol is taken relative to them, or the first centring already passed it, far from the minimum.
    tol = tol * min(1.0, max(np.abs(problem.G).max(initial=0.0), np.abs(problem.c).max(initial=0.0)) or 1.0)
    t, history = t0, []
    for n_iter in range(1, max_iter + 1):
        try:
            x, newton_steps = _centre(problem, A, C, d, x, t)
        except np.linalg.LinAlgError:
            return problem.result(x, np.full(len(problem.b_eq), np.nan), np.full(m, np.nan), n_iter, False,
                                   "the Newton system is singular: the problem looks unbounded below along a "
                                   "direction G and the constraints leave free", history)
        gap = m / t
        history.append({"t": t, "gap_bound": gap, "newton_steps": newton_steps, "fun": problem.objective(x)})
        if gap < tol:
            break
        t *= mu
    y, z = _multipliers(problem, x, d - C @ x, t)
    success = m / t < tol
    message = "converged: duality gap below tol" if success else f"gap bound {m / t:.2e} after max_iter={max_iter}"
    return problem.result(x, y, z, n_iter, success, message, history)


def _multipliers(problem, x, slack, t):
    """y and z from stationarity, on the constraints active at x (slack no larger than the barrier's m/t)."""
    m = len(slack)
    active = np.flatnonzero(slack <= max(m / t, 1e-12) * 10) if m else np.zeros(0, dtype=int)
    normals = np.vstack([problem.A_eq, problem.A_ineq[active]]).T
    z = np.zeros(m)
    if normals.shape[1] == 0:
        return np.zeros(0), z
    coefficients = np.linalg.lstsq(normals, -(problem.G @ x + problem.c), rcond=None)[0]
    n_eq = len(problem.b_eq)
    z[active] = np.maximum(coefficients[n_eq:], 0.0)
    return coefficients[:n_eq], z


def _centre(problem, A, C, d, x, t, max_newton=100):
    """Minimize q(x) − (1/t) Σ log(d − Cx) subject to A x = const by feasible-start Newton; (x, steps)."""
    n, m_eq = problem.n, len(A)
    tol = 1e-14 * max(1.0, abs(problem.objective(x)))

    def phi(point):
        slack = d - C @ point
        return np.inf if np.any(slack <= 0) else problem.objective(point) - np.sum(np.log(slack)) / t

    for step_count in range(1, max_newton + 1):
        inverse_slack = 1.0 / (d - C @ x)
        gradient = problem.G @ x + problem.c + C.T @ inverse_slack / t
        hessian = problem.G + C.T @ (C * (inverse_slack**2 / t)[:, None])
        kkt = np.block([[hessian, A.T], [A, np.zeros((m_eq, m_eq))]])
        solution = scipy.linalg.solve(kkt, np.concatenate([-gradient, np.zeros(m_eq)]), assume_a="symmetric")
        dx = solution[:n]
        decrement = float(-gradient @ dx)  # Newton decrement λ²
        if decrement / 2 <= tol:
            return x, step_count
        step, current = 1.0, phi(x)
        while phi(x + step * dx) > current - 0.25 * step * decrement:  # Armijo with α = 0.25
            step *= 0.5
            if step < 1e-12:
                return x, step_count
        x = x + step * dx
    return x, max_newton
