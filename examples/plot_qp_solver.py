"""
Three quadratic-programming solvers on one small QP
===================================================

Seed 002 Ch. 11 (its section titles: equality-constrained QP and the KKT system, primal active
set strategies, interior-point methods; the text itself is not in the notes) and the SVM duals
of 002 §5.3 and 000 §6 lead to the same problem: minimize ½ xᵀGx + cᵀx subject to linear
equalities and inequalities. A point x* with multipliers (y, z ≥ 0) solves a convex QP exactly
when the KKT conditions of 002 §5.3.3 hold: stationarity Gx + c + A_eqᵀy + A_ineqᵀz = 0, feasibility, and
complementarity zᵢ (aᵢᵀx − bᵢ) = 0.

The problem below is the textbook example of the primal active-set method (Nocedal & Wright,
*Numerical Optimization*, Example 16.4): minimize (x₁ − 1)² + (x₂ − 2.5)² over a pentagon. Its
solution is x* = (1.4, 1.7), where only the first constraint is active, with multiplier 0.8.
The active-set method, the primal-dual interior-point method and the log-barrier method must all
land there, with KKT residuals near zero, and agree with SciPy's SLSQP.
"""

# %%
# The problem and three solvers
# -----------------------------
# In the form ½ xᵀGx + cᵀx (dropping the constant 7.25): G = 2I, c = (−2, −5), and the five
# constraints written as A x ≤ b.
import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import LinearConstraint, minimize

from lucidml.optim.qp import active_set_qp, barrier_qp, interior_point_qp, solve_eqp
from lucidml.utils import kkt_residual

G = 2.0 * np.eye(2)
c = np.array([-2.0, -5.0])
A = np.array([[-1.0, 2.0],   # x₁ − 2x₂ + 2 ≥ 0
              [1.0, 2.0],    # −x₁ − 2x₂ + 6 ≥ 0
              [1.0, -2.0],   # −x₁ + 2x₂ + 2 ≥ 0
              [-1.0, 0.0],   # x₁ ≥ 0
              [0.0, -1.0]])  # x₂ ≥ 0
b = np.array([2.0, 6.0, 2.0, 0.0, 0.0])

results = {
    "active set": active_set_qp(G, c, A_ineq=A, b_ineq=b, x0=[2.0, 0.0]),
    "interior point": interior_point_qp(G, c, A_ineq=A, b_ineq=b),
    "log barrier": barrier_qp(G, c, A_ineq=A, b_ineq=b),
}
slsqp = minimize(lambda x: 0.5 * x @ G @ x + c @ x, x0=[2.0, 0.0], jac=lambda x: G @ x + c, method="SLSQP",
                 constraints=[LinearConstraint(A, -np.inf, b)], tol=1e-12)
print(f"{'SciPy SLSQP':15s} x = {np.round(slsqp.x, 8)}")
for name, result in results.items():
    residual = kkt_residual(lambda x: G @ x + c, result.x, z=result.z, A_ineq=A, b_ineq=b)
    print(f"{name:15s} x = {np.round(result.x, 8)}, z = {np.round(result.z, 6)}, {result.n_iter:2d} iterations, "
          f"largest KKT residual {max(residual.values()):.1e}")
    assert result.success
    assert np.allclose(result.x, [1.4, 1.7], atol=1e-6)  # the textbook's solution
    assert np.allclose(result.x, slsqp.x, atol=1e-6)
    assert np.allclose(result.z, [0.8, 0, 0, 0, 0], atol=1e-6)  # only the first constraint is active
    assert max(residual.values()) < 1e-6

# %%
# The active-set path
# -------------------
# Started at the vertex (2, 0), where constraints 3 and 5 are active, the method walks the
# textbook's path: drop a constraint with a negative multiplier, step to (1, 0), drop the
# other, move up the line x₁ = 1 until the first constraint blocks at (1, 1.5), take that
# constraint on, and slide along it to (1.4, 1.7). The objective values it records are those
# of this path.
path = np.array([[2.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 1.5], [1.4, 1.7], [1.4, 1.7]])
recorded = [step["fun"] for step in results["active set"].history]
print("actions:", [step["action"] for step in results["active set"].history])
assert np.allclose(recorded, [0.5 * p @ G @ p + c @ p for p in path])

xx, yy = np.meshgrid(np.linspace(-0.5, 4.5, 200), np.linspace(-0.5, 3.0, 200))
points = np.stack([xx, yy], axis=-1)
objective = (xx - 1) ** 2 + (yy - 2.5) ** 2
feasible = np.all(points @ A.T <= b, axis=-1)
fig, ax = plt.subplots(figsize=(7, 5))
ax.contour(xx, yy, objective, levels=15, cmap="viridis", linewidths=0.8)
ax.contourf(xx, yy, feasible, levels=[0.5, 1.5], colors=["tab:green"], alpha=0.2)
ax.plot(*path.T, "o-", color="tab:red", label="active-set iterates")
ax.plot(1, 2.5, "k+", ms=12, label="unconstrained minimum (1, 2.5)")
ax.plot(*results["interior point"].x, "k*", ms=14, label="x* = (1.4, 1.7)")
ax.set_xlabel("x₁")
ax.set_ylabel("x₂")
ax.set_title("min (x₁ − 1)² + (x₂ − 2.5)² over the pentagon")
ax.legend(loc="upper right")
fig.tight_layout()
plt.show()

# %%
# An equality-constrained QP
# --------------------------
# With equalities only, the minimizer and its multipliers solve one linear system, the KKT
# system [[G, Aᵀ], [A, 0]] [x; y] = [−c; b] (seed 002 §11.1–11.2). On Nocedal & Wright's
# Example 16.2 the answer is x* = (2, −1, 1) with y = (−3, 2) in this sign convention.
G3 = np.array([[6.0, 2.0, 1.0], [2.0, 5.0, 2.0], [1.0, 2.0, 4.0]])
c3 = np.array([-8.0, -3.0, -3.0])
A3 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
b3 = np.array([3.0, 0.0])
eqp = solve_eqp(G3, c3, A3, b3)
print("x* =", np.round(eqp.x, 10), " y =", np.round(eqp.y, 10))
assert np.allclose(eqp.x, [2.0, -1.0, 1.0]) and np.allclose(eqp.y, [-3.0, 2.0])
assert max(kkt_residual(G3 @ eqp.x + c3, eqp.x, y=eqp.y, A_eq=A3, b_eq=b3).values()) < 1e-10
