"""The quadratic program, checked once for every solver: shapes, convexity, feasibility, KKT residuals.

    minimize ½ xᵀGx + cᵀx   subject to   A_eq x = b_eq,   A_ineq x ≤ b_ineq

Multipliers follow one sign convention: at a solution Gx + c + A_eqᵀ y + A_ineqᵀ z = 0 with
z ≥ 0 and zᵢ (A_ineq x − b_ineq)ᵢ = 0.
"""

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
from scipy.optimize import linprog

from ...utils.numerics import kkt_residual

__all__ = ["QPResult"]


@dataclass
class QPResult:
    """Solution of a quadratic program.

    Attributes
    ----------
    x : ndarray            the minimizer
    fun : float            ½ xᵀGx + cᵀx
    y : ndarray            multipliers of the equality constraints
    z : ndarray            multipliers of the inequality constraints (≥ 0)
    kkt : dict             residuals: stationarity, equality, inequality (violation), complementarity
    n_iter : int
    success : bool
    message : str
    history : list         per iteration: a dict of what the method tracks (objective, residuals, ...)
    """

    x: np.ndarray
    fun: float
    y: np.ndarray
    z: np.ndarray
    kkt: dict
    n_iter: int
    success: bool
    message: str
    history: list = field(default_factory=list)


class Problem:
    """Validated data of a QP, with the helpers the solvers share."""

    def __init__(self, G, c, A_eq=None, b_eq=None, A_ineq=None, b_ineq=None):
        self.G = np.atleast_2d(np.asarray(G, dtype=np.float64))
        self.c = np.asarray(c, dtype=np.float64).ravel()
        n = self.c.size
        if n == 0:
            raise ValueError("the problem has no variables (c is empty).")
        if self.G.shape != (n, n):
            raise ValueError(f"G must be {n} × {n} to match c; got shape {self.G.shape}.")
        if not np.allclose(self.G, self.G.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(self.G).max())):
            raise ValueError("G must be symmetric.")
        self.A_eq, self.b_eq = _constraints(A_eq, b_eq, n, "equality")
        self.A_ineq, self.b_ineq = _constraints(A_ineq, b_ineq, n, "inequality")
        for name, value in (("G", self.G), ("c", self.c), ("A_eq", self.A_eq), ("b_eq", self.b_eq),
                            ("A_ineq", self.A_ineq), ("b_ineq", self.b_ineq)):
            if not np.all(np.isfinite(value)):
                raise ValueError(f"{name} contains NaN or infinity.")
        self.n = n

    def scaled(self):
        """(the same QP with G and c divided by their largest |entry| where that is below 1, a
        function mapping that QP's multipliers (y, z) back to this one's). The minimizer does not
        change; the interior-point tests, which read the dual residual and the duality gap against
        tolerances of at least ``tol``, then mean something for an objective of small entries
        (G = 1e-8·I stopped at a wrong x reported as a success). Larger objectives are left as
        they are: their tests already scale with c."""
        objective = min(1.0, max(np.abs(self.G).max(initial=0.0), np.abs(self.c).max(initial=0.0))) or 1.0
        scaled = Problem(self.G / objective, self.c / objective, self.A_eq, self.b_eq, self.A_ineq, self.b_ineq)
        return scaled, lambda y, z: (y * objective, z * objective)

    def objective(self, x):
        return float(0.5 * x @ self.G @ x + self.c @ x)

    def require_convex(self, method):
        """G must be positive semidefinite for a convex QP (a clear error, not a wrong answer)."""
        smallest = scipy.linalg.eigvalsh(self.G)[0] if self.n else 0.0
        if smallest < -1e-10 * max(1.0, np.abs(self.G).max()):
            raise ValueError(f"{method} needs a convex problem: G has the negative eigenvalue {smallest:.3g}.")

    def independent_equalities(self):
        """Drop redundant equality rows; None if the equalities contradict each other (infeasible)."""
        if self.A_eq.shape[0] == 0:
            return self.A_eq, self.b_eq
        _, R, pivots = scipy.linalg.qr(self.A_eq.T, mode="economic", pivoting=True)
        diagonal = np.abs(np.diag(R))
        rank = int(np.sum(diagonal > max(self.A_eq.shape) * np.finfo(float).eps * diagonal.max())) if diagonal.size else 0
        keep = np.sort(pivots[:rank])
        A, b = self.A_eq[keep], self.b_eq[keep]
        # The dropped rows must follow from the kept ones.
        coefficients = np.linalg.lstsq(A.T, self.A_eq.T, rcond=None)[0]
        if not np.allclose(coefficients.T @ b, self.b_eq, atol=1e-8 * max(1.0, np.abs(self.b_eq).max())):
            return None
        return A, b

    def feasible_point(self, strict=False):
        """A point with A_eq x = b_eq and A_ineq x ≤ b_ineq (strictly, if asked), by linear programming;
        None if there is none. Phase 1: maximize the smallest slack t, capped at 1."""
        m = self.A_ineq.shape[0]
        cost = np.zeros(self.n + 1)
        cost[-1] = -1.0
        A_ub = np.hstack([self.A_ineq, np.ones((m, 1))]) if m else None
        A_eq = np.hstack([self.A_eq, np.zeros((self.A_eq.shape[0], 1))]) if self.A_eq.shape[0] else None
        bounds = [(None, None)] * self.n + [(None, 1.0)]
        result = linprog(cost, A_ub=A_ub, b_ub=self.b_ineq if m else None, A_eq=A_eq,
                         b_eq=self.b_eq if A_eq is not None else None, bounds=bounds, method="highs")
        if result.status != 0:
            return None
        slack = result.x[-1] if m else 1.0
        if slack < (1e-9 if strict else -1e-9):
            return None
        return result.x[: self.n]

    def kkt_residuals(self, x, y, z):
        """∞-norms of the KKT conditions at (x, y, z) (:func:`lucidml.utils.kkt_residual` with ∇f = Gx + c)."""
        return kkt_residual(self.G @ x + self.c, x, y=y, z=z, A_eq=self.A_eq, b_eq=self.b_eq, A_ineq=self.A_ineq,
                            b_ineq=self.b_ineq)

    def result(self, x, y, z, n_iter, success, message, history):
        return QPResult(x, self.objective(x), y, z, self.kkt_residuals(x, y, z), n_iter, success, message, history)

    def infeasible(self, message="the constraints have no feasible point"):
        nan = np.full(self.n, np.nan)
        return QPResult(nan, np.nan, np.full(self.A_eq.shape[0], np.nan), np.full(self.A_ineq.shape[0], np.nan),
                        {}, 0, False, message, [])


def _constraints(A, b, n, kind):
    if A is None and b is None:
        return np.zeros((0, n)), np.zeros(0)
    if A is None or b is None:
        raise ValueError(f"give both the matrix and the right-hand side of the {kind} constraints.")
    A = np.atleast_2d(np.asarray(A, dtype=np.float64))
    b = np.asarray(b, dtype=np.float64).ravel()
    if A.shape != (b.size, n):
        raise ValueError(f"{kind} constraints: A must be {b.size} × {n}; got shape {A.shape}.")
    return A, b
