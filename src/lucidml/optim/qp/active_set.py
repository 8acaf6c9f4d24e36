"""The primal active-set method for convex QP (Nocedal & Wright Algorithm 16.3)."""

import warnings

import numpy as np
import scipy.linalg

from .equality import null_space_step
from .problem import Problem

__all__ = ["active_set_qp"]


def active_set_qp(G, c, A_eq=None, b_eq=None, A_ineq=None, b_ineq=None, x0=None, max_iter=1000, tol=1e-10):
    """Minimize ½ xᵀGx + cᵀx subject to A_eq x = b_eq, A_ineq x ≤ b_ineq, for G ≻ 0 on each working set.

    A merely convex problem whose G is singular on a working set (an SVM dual, say) is refused
    with a clear error: use :func:`interior_point_qp` or :func:`barrier_qp` for those.

    From a feasible x (``x0``, or one found by linear programming), keep a working set W of
    constraints treated as equalities, and repeat: solve the equality QP for a step p with
    A_W p = 0. If p = 0, x minimizes over W: stop if every inequality multiplier is ≥ 0,
    otherwise drop the most negative one from W. If p ≠ 0, move x ← x + αp with the largest
    α ≤ 1 that keeps every constraint satisfied, adding the blocking constraint to W.

    Returns
    -------
    QPResult
        ``history`` lists per iteration the objective, the working-set size and the action.
    """
    problem = Problem(G, c, A_eq, b_eq, A_ineq, b_ineq)
    problem.require_convex("active_set_qp")
    reduced = problem.independent_equalities()
    if reduced is None:
        return problem.infeasible("the equality constraints are inconsistent")
    A_E, _ = reduced
    C, d = problem.A_ineq, problem.b_ineq
    if x0 is None:
        x = problem.feasible_point()
        if x is None:
            return problem.infeasible()
    else:
        x = np.asarray(x0, dtype=np.float64).copy()
        if problem.kkt_residuals(x, np.zeros(len(problem.b_eq)), np.zeros(len(d)))["inequality"] > 1e-8 or \
                np.max(np.abs(problem.A_eq @ x - problem.b_eq), initial=0.0) > 1e-8:
            raise ValueError("x0 must be feasible for the active-set method.")
    scale = max(1.0, np.abs(C).max(initial=0.0), np.abs(d).max(initial=0.0))
    working = _independent_subset(A_E, C, np.flatnonzero(np.abs(C @ x - d) <= 1e-9 * scale))
    history = []
    for n_iter in range(1, max_iter + 1):
        p, multipliers = _working_set_step(problem, x, np.vstack([A_E, C[working]]))
        if np.max(np.abs(p), initial=0.0) <= tol * max(1.0, np.max(np.abs(x), initial=0.0)):
            z_working = multipliers[len(A_E):]
            if not working or z_working.min() >= -tol:
                history.append({"fun": problem.objective(x), "working_set": len(working), "action": "optimal"})
                message = "optimal: every working-set multiplier is non-negative"
                return _finish(problem, x, A_E, working, multipliers, n_iter, history, True, message)
            drop = int(np.argmin(z_working))
            history.append({"fun": problem.objective(x), "working_set": len(working), "action": f"drop {working[drop]}"})
            del working[drop]
            continue
        step, blocking = 1.0, None
        Cp = C @ p
        for i in np.flatnonzero(Cp > tol):
            if i not in working:
                ratio = (d[i] - C[i] @ x) / Cp[i]
                if ratio < step:
                    step, blocking = max(ratio, 0.0), i
        x = x + step * p
        action = "full step" if blocking is None else f"add {blocking}"
        if blocking is not None:
            working.append(int(blocking))
        history.append({"fun": problem.objective(x), "working_set": len(working), "action": action})
    _, multipliers = _working_set_step(problem, x, np.vstack([A_E, C[working]]))
    message = f"no solution within max_iter={max_iter} iterations"
    return _finish(problem, x, A_E, working, multipliers, max_iter, history, False, message)


def _working_set_step(problem, x, A_W):
    """The equality-QP step on the working set; it needs G positive definite on null(A_W)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", scipy.linalg.LinAlgWarning)  # numerically singular counts too
            return null_space_step(problem.G, problem.G @ x + problem.c, A_W)
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgWarning):
        raise ValueError(
            "active_set_qp needs a strictly convex problem (G positive definite on every working set); "
            "for a merely convex one, such as an SVM dual, use interior_point_qp or barrier_qp."
        ) from None


def _finish(problem, x, A_E, working, multipliers, n_iter, history, success, message):
    """Multipliers of the working set, mapped back to all constraints (0 for inactive ones)."""
    z = np.zeros(len(problem.b_ineq))
    z[working] = multipliers[len(A_E):]
    y = np.linalg.lstsq(problem.A_eq.T, A_E.T @ multipliers[: len(A_E)], rcond=None)[0] if len(A_E) else \
        np.zeros(len(problem.b_eq))
    return problem.result(x, y, z, n_iter, success, message, history)


def _independent(A_E, C, working, i):
    rows = np.vstack([A_E, C[working], C[[i]]])
    return np.linalg.matrix_rank(rows) == rows.shape[0]


def _independent_subset(A_E, C, candidates):
    """Constraints active at the start, kept only while their normals stay linearly independent."""
    chosen = []
    for i in candidates:
        if _independent(A_E, C, chosen, i):
            chosen.append(int(i))
    return chosen
