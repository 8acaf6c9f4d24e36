"""Equality-constrained QP: the KKT system by LDLᵀ, range space or null space (Nocedal & Wright §16.1–16.2)."""

import numpy as np
import scipy.linalg

from .problem import Problem

__all__ = ["solve_eqp"]


def solve_eqp(G, c, A, b, method="ldl"):
    """Minimize ½ xᵀGx + cᵀx subject to A x = b.

    The minimizer and its multipliers y solve the KKT system

        [G  Aᵀ] [x]   [−c]
        [A  0 ] [y] = [ b ]

    - ``"ldl"``: the whole (indefinite) KKT matrix by a symmetric Bunch–Kaufman factorization;
    - ``"range"``: (A G⁻¹ Aᵀ) y = −(A G⁻¹ c + b), then x = −G⁻¹(c + Aᵀy); needs G ≻ 0;
    - ``"null"``: A QR factorization of Aᵀ gives a basis Y of range(Aᵀ) and Z of null(A);
      x = Y x_Y + Z x_Z with (AY) x_Y = b and (ZᵀGZ) x_Z = −Zᵀ(c + G Y x_Y).

    The problem has a unique minimizer when the reduced Hessian ZᵀGZ is positive definite; this
    is checked for every method. Redundant (but consistent) constraint rows are dropped, their
    multipliers set to 0; inconsistent constraints are reported as infeasible.

    Returns
    -------
    QPResult

    Examples
    --------
    >>> res = solve_eqp([[2.0, 0.0], [0.0, 2.0]], [0.0, 0.0], [[1.0, 1.0]], [1.0])  # closest point to 0 on x₁ + x₂ = 1
    >>> res.x, res.y
    (array([0.5, 0.5]), array([-1.]))
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {sorted(_METHODS)}; got {method!r}.")
    problem = Problem(G, c, A, b)
    reduced = problem.independent_equalities()
    if reduced is None:
        return problem.infeasible("the equality constraints are inconsistent: A x = b has no solution")
    A_kept, b_kept = reduced
    _check_reduced_hessian(problem.G, A_kept)
    x, y_kept = _METHODS[method](problem.G, problem.c, A_kept, b_kept)
    y = np.linalg.lstsq(problem.A_eq.T, A_kept.T @ y_kept, rcond=None)[0] if len(y_kept) else np.zeros(len(problem.b_eq))
    return problem.result(x, y, np.zeros(0), 1, True, "solved the KKT system", [])


def null_space_step(G, g, A):
    """min ½ pᵀGp + gᵀp subject to A p = 0 (the subproblem of the active-set method): (p, multipliers)."""
    return _null_space(G, g, A, np.zeros(A.shape[0]))


def _check_reduced_hessian(G, A):
    Z = scipy.linalg.null_space(A) if A.shape[0] else np.eye(G.shape[0])
    if Z.shape[1] and scipy.linalg.eigvalsh(Z.T @ G @ Z)[0] <= 1e-12 * max(1.0, np.abs(G).max()):
        raise ValueError(
            "the problem has no unique minimizer: G is not positive definite on the null space of A "
            "(the reduced Hessian ZᵀGZ is not positive definite)."
        )


def _ldl(G, c, A, b):
    n, m = len(c), len(b)
    kkt = np.block([[G, A.T], [A, np.zeros((m, m))]])
    solution = scipy.linalg.solve(kkt, np.concatenate([-c, b]), assume_a="symmetric")
    return solution[:n], solution[n:]


def _range(G, c, A, b):
    try:
        factor = scipy.linalg.cho_factor(G)
    except scipy.linalg.LinAlgError:
        raise ValueError("the range-space method needs G positive definite; use method='null' or 'ldl'.") from None
    G_inv_c = scipy.linalg.cho_solve(factor, c)
    G_inv_At = scipy.linalg.cho_solve(factor, A.T)
    y = scipy.linalg.solve(A @ G_inv_At, -(A @ G_inv_c + b), assume_a="positive definite") if len(b) else np.zeros(0)
    return -(G_inv_c + G_inv_At @ y), y


def _null_space(G, c, A, b):
    n, m = len(c), len(b)
    Q, R = scipy.linalg.qr(A.T)  # Aᵀ = Q [R₁; 0]
    Y, Z, R1 = Q[:, :m], Q[:, m:], R[:m]
    x_range = Y @ scipy.linalg.solve_triangular(R1.T, b, lower=True) if m else np.zeros(n)
    reduced = Z.T @ G @ Z
    x = x_range + (Z @ scipy.linalg.solve(reduced, -Z.T @ (c + G @ x_range), assume_a="symmetric") if n > m else 0.0)
    y = scipy.linalg.solve_triangular(R1, -Y.T @ (G @ x + c)) if m else np.zeros(0)
    return x, y


_METHODS = {"ldl": _ldl, "range": _range, "null": _null_space}
