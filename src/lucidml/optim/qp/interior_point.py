"""Primal–dual interior-point method with Mehrotra's predictor–corrector (Nocedal & Wright §16.6)."""

import warnings

import numpy as np
import scipy.linalg

from ...utils.validation import check_count, check_positive
from .problem import Problem

__all__ = ["interior_point_qp"]

_TO_BOUNDARY = 0.995  # fraction of the distance to the boundary a step may go


@np.errstate(over="ignore", invalid="ignore", divide="ignore")  # (iterates that leave the floats: a failure result)
def interior_point_qp(G, c, A_eq=None, b_eq=None, A_ineq=None, b_ineq=None, tol=1e-9, max_iter=200):
    """Minimize ½ xᵀGx + cᵀx subject to A_eq x = b_eq, A_ineq x ≤ b_ineq, G ⪰ 0 (convex).

    With slacks s = b_ineq − A_ineq x ≥ 0 and multipliers z ≥ 0, Newton's method is applied to
    the perturbed KKT conditions

        Gx + c + A_eqᵀ y + A_ineqᵀ z = 0,   A_eq x = b_eq,   A_ineq x + s = b_ineq,   s ∘ z = σμ 1,

    keeping s, z > 0 and driving μ = sᵀz/m to 0. Each iteration (Mehrotra) takes an affine
    predictor step (σ = 0), sets σ = (μ_aff/μ)³, and solves again with the corrector term
    Δs_aff ∘ Δz_aff; both solves share one factorization of the reduced KKT matrix
    [G + A_ineqᵀ S⁻¹Z A_ineq, A_eqᵀ; A_eq, 0]. Infeasible problems are detected before starting
    (linear programming) and reported.

    Returns
    -------
    QPResult
        ``history`` holds μ and the residual norms per iteration.
    """
    tol, max_iter = check_positive(tol, "tol"), check_count(max_iter, "max_iter")
    original = Problem(G, c, A_eq, b_eq, A_ineq, b_ineq)
    original.require_convex("interior_point_qp")
    problem, unscale = original.scaled()
    reduced = problem.independent_equalities()
    if reduced is None or problem.feasible_point() is None:
        return original.infeasible()
    A, b = reduced
    C, d = problem.A_ineq, problem.b_ineq
    n, m_eq, m = problem.n, len(b), len(d)
    x = np.linalg.lstsq(A, b, rcond=None)[0] if m_eq else np.zeros(n)
    s = np.maximum(d - C @ x, 1.0)
    z = np.ones(m)
    y = np.zeros(m_eq)
    # (In the scaled problem's units: there an objective of entries near 1e-8 is read as 1.)
    scale = 1.0 + max(np.abs(problem.c).max(initial=0.0), np.abs(d).max(initial=0.0), np.abs(b).max(initial=0.0))
    history = []
    for n_iter in range(1, max_iter + 1):
        if not all(np.all(np.isfinite(v)) for v in (x, s, z, y)):
            return original.result(x, np.full(len(original.b_eq), np.nan), np.full(m, np.nan), n_iter, False,
                                   "the iterates are not finite: the problem looks unbounded below (or G is zero "
                                   "along a direction the constraints leave free)", history)
        r_dual = problem.G @ x + problem.c + A.T @ y + C.T @ z
        r_eq = A @ x - b
        r_ineq = C @ x + s - d
        mu = s @ z / m if m else 0.0
        residual = max(np.abs(r_dual).max(initial=0.0), np.abs(r_eq).max(initial=0.0), np.abs(r_ineq).max(initial=0.0))
        history.append({"mu": mu, "residual": residual, "fun": problem.objective(x)})
        if residual <= tol * scale and mu <= tol * scale:
            return _finish(problem, original, unscale, x, y, z, A, n_iter, history, True,
                           "converged: KKT residuals and μ below tol")

        kkt = np.block([[problem.G + C.T @ (C * (z / s)[:, None]), A.T], [A, np.zeros((m_eq, m_eq))]])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)  # (a singular one: non-finite steps, above)
            lu = scipy.linalg.lu_factor(kkt, check_finite=False)

        residuals = (r_dual, r_eq, r_ineq)
        dx, dy, ds, dz = _direction(lu, C, s, z, residuals, s * z)  # predictor: σ = 0
        step = _max_step(s, ds, z, dz, 1.0)
        mu_affine = (s + step * ds) @ (z + step * dz) / m if m else 0.0
        sigma = (mu_affine / mu) ** 3 if mu > 0 else 0.0
        dx, dy, ds, dz = _direction(lu, C, s, z, residuals, s * z + ds * dz - sigma * mu)  # corrector
        step = _max_step(s, ds, z, dz, _TO_BOUNDARY)
        x, y, s, z = x + step * dx, y + step * dy, s + step * ds, z + step * dz
    return _finish(problem, original, unscale, x, y, z, A, max_iter, history, False,
                   f"not converged in max_iter={max_iter} iterations")


def _direction(lu, C, s, z, residuals, r_sz):
    """Newton direction for the complementarity target s∘z = s∘z − r_sz, from the factored reduced system.

    Δs = −r_ineq − C Δx and s∘Δz + z∘Δs = −r_sz eliminate Δs and Δz.
    """
    r_dual, r_eq, r_ineq = residuals
    n = len(r_dual)
    rhs_x = -r_dual - C.T @ ((-r_sz + z * r_ineq) / s)
    solution = scipy.linalg.lu_solve(lu, np.concatenate([rhs_x, -r_eq]), check_finite=False)  # (checked by the caller)
    dx, dy = solution[:n], solution[n:]
    ds = -r_ineq - C @ dx
    dz = (-r_sz - z * ds) / s
    return dx, dy, ds, dz


def _max_step(s, ds, z, dz, fraction):
    """The largest α ≤ 1 with s + α ds ≥ (1 − fraction) s and the same for z."""
    step = 1.0
    for value, change in ((s, ds), (z, dz)):
        falling = change < 0
        if falling.any():
            step = min(step, fraction * np.min(-value[falling] / change[falling]))
    return step


def _finish(problem, original, unscale, x, y, z, A, n_iter, history, success, message):
    """The result for the user's QP (``original``) from the scaled one's iterate."""
    y_all = np.linalg.lstsq(problem.A_eq.T, A.T @ y, rcond=None)[0] if len(y) else np.zeros(len(problem.b_eq))
    return original.result(x, *unscale(y_all, z), n_iter, success, message, history)
