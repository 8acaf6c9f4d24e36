"""Quadratic programming: the four solvers against each other, SciPy, and scikit-learn's SVC."""

import numpy as np
import pytest
from scipy.optimize import LinearConstraint, minimize
from sklearn.datasets import make_blobs
from sklearn.svm import SVC

from lucidml.optim import active_set_qp, barrier_qp, interior_point_qp, solve_eqp

INEQUALITY_SOLVERS = [active_set_qp, interior_point_qp, barrier_qp]


def random_qp(seed, n=8, m_eq=2, m_ineq=12):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(n, n))
    G = M @ M.T + 0.1 * np.eye(n)
    c = rng.normal(size=n)
    A_eq, b_eq = rng.normal(size=(m_eq, n)), rng.normal(size=m_eq)
    A_ineq = rng.normal(size=(m_ineq, n))
    b_ineq = A_ineq @ np.linalg.lstsq(A_eq, b_eq, rcond=None)[0] + rng.uniform(0.1, 1.0, size=m_ineq)
    return G, c, A_eq, b_eq, A_ineq, b_ineq


def _scipy_reference(G, c, A_eq, b_eq, A_ineq, b_ineq):
    constraints = [LinearConstraint(A_eq, b_eq, b_eq), LinearConstraint(A_ineq, -np.inf, b_ineq)]
    result = minimize(lambda x: 0.5 * x @ G @ x + c @ x, np.zeros(len(c)), jac=lambda x: G @ x + c,
                      hess=lambda x: G, method="trust-constr", constraints=constraints,
                      options={"gtol": 1e-12, "xtol": 1e-12, "maxiter": 5000})
    return result.x


@pytest.mark.parametrize("seed", range(4))
def test_inequality_solvers_agree_with_each_other_and_scipy(seed):
    problem = random_qp(seed)
    reference = _scipy_reference(*problem)
    results = [solve(*problem) for solve in INEQUALITY_SOLVERS]
    for result in results:
        assert result.success, result.message
        np.testing.assert_allclose(result.x, reference, atol=1e-6)
        assert max(result.kkt.values()) < 1e-7, result.kkt
        assert result.history and result.fun == pytest.approx(0.5 * reference @ problem[0] @ reference + problem[1] @ reference)
    np.testing.assert_allclose(results[0].z, results[1].z, atol=1e-6)  # same multipliers
    np.testing.assert_allclose(results[0].y, results[2].y, atol=1e-6)


def test_equality_qp_methods_agree_with_the_kkt_system():
    G, c, A, b, _, _ = random_qp(7, m_eq=3)
    kkt = np.block([[G, A.T], [A, np.zeros((3, 3))]])
    x, y = np.split(np.linalg.solve(kkt, np.concatenate([-c, b])), [len(c)])
    for method in ("ldl", "range", "null"):
        result = solve_eqp(G, c, A, b, method=method)
        np.testing.assert_allclose(result.x, x, atol=1e-10)
        np.testing.assert_allclose(result.y, y, atol=1e-10)
        assert result.kkt["stationarity"] < 1e-10 and result.kkt["equality"] < 1e-10


def test_indefinite_G_that_is_convex_on_the_constraints():
    G = np.diag([1.0, -1.0])  # indefinite; A = [0, 1] fixes x₂, and along the free x₁ the curvature is +1
    A, b, c = np.array([[0.0, 1.0]]), np.array([2.0]), np.array([-1.0, 0.0])
    for method in ("ldl", "null"):
        np.testing.assert_allclose(solve_eqp(G, c, A, b, method=method).x, [1.0, 2.0])
    with pytest.raises(ValueError, match="range-space method needs G positive definite"):
        solve_eqp(G, c, A, b, method="range")
    with pytest.raises(ValueError, match="no unique minimizer"):
        solve_eqp(G, c, np.array([[1.0, 0.0]]), np.array([0.0]))  # free direction x₂ has curvature −1


def test_rank_deficient_equality_constraints():
    G, c = np.eye(3), np.array([1.0, -2.0, 0.5])
    A = np.array([[1.0, 1.0, 0.0], [2.0, 2.0, 0.0], [0.0, 1.0, 1.0]])  # row 2 = 2 × row 1
    consistent = solve_eqp(G, c, A, np.array([1.0, 2.0, 0.0]))
    alone = solve_eqp(G, c, A[[0, 2]], np.array([1.0, 0.0]))
    np.testing.assert_allclose(consistent.x, alone.x, atol=1e-12)
    assert consistent.kkt["stationarity"] < 1e-10
    inconsistent = solve_eqp(G, c, A, np.array([1.0, 3.0, 0.0]))
    assert not inconsistent.success and "inconsistent" in inconsistent.message
    for solve in INEQUALITY_SOLVERS:
        result = solve(G, c, A, np.array([1.0, 3.0, 0.0]), -np.eye(3), np.ones(3))
        assert not result.success
        assert "inconsistent" in result.message or "no feasible point" in result.message


def test_infeasible_inequalities_are_reported():
    G, c = np.eye(2), np.zeros(2)
    A_ineq = np.array([[1.0, 0.0], [-1.0, 0.0]])
    b_ineq = np.array([-1.0, -1.0])  # x₁ ≤ −1 and x₁ ≥ 1
    for solve in INEQUALITY_SOLVERS:
        result = solve(G, c, A_ineq=A_ineq, b_ineq=b_ineq)
        assert not result.success and "feasible" in result.message and np.isnan(result.x).all()


def test_non_convex_problems_are_refused():
    G = np.diag([1.0, -2.0])
    for solve in INEQUALITY_SOLVERS:
        with pytest.raises(ValueError, match="needs a convex problem"):
            solve(G, np.zeros(2), A_ineq=np.eye(2), b_ineq=np.ones(2))


def test_active_set_refuses_a_merely_convex_problem_clearly():
    # G = 0 is convex but singular: the working-set subproblem has no unique step.
    with pytest.raises(ValueError, match="strictly convex.*interior_point_qp"):
        active_set_qp(np.zeros((2, 2)), [-1.0, -1.0], A_ineq=np.eye(2), b_ineq=np.ones(2))
    assert interior_point_qp(np.zeros((2, 2)), [-1.0, -1.0], A_ineq=np.eye(2), b_ineq=np.ones(2)).success


def test_active_set_from_a_given_start_and_bad_start():
    G, c, A_eq, b_eq, A_ineq, b_ineq = random_qp(2)
    start = np.linalg.lstsq(A_eq, b_eq, rcond=None)[0]  # feasible by construction of b_ineq
    result = active_set_qp(G, c, A_eq, b_eq, A_ineq, b_ineq, x0=start)
    np.testing.assert_allclose(result.x, interior_point_qp(G, c, A_eq, b_eq, A_ineq, b_ineq).x, atol=1e-7)
    assert {entry["action"] for entry in result.history} >= {"optimal"}
    with pytest.raises(ValueError, match="x0 must be feasible"):
        active_set_qp(G, c, A_eq, b_eq, A_ineq, b_ineq, x0=start + 100)


@pytest.mark.parametrize("solve", [interior_point_qp, barrier_qp])
def test_svm_dual_matches_sklearn_svc(solve):
    # min ½ αᵀQα − 1ᵀα  s.t.  yᵀα = 0, 0 ≤ α ≤ C, with Q = (y yᵀ) ∘ X Xᵀ (seed 002 Alg 5.27).
    X, labels = make_blobs(n_samples=40, centers=2, cluster_std=2.5, random_state=0)
    y = np.where(labels == 1, 1.0, -1.0)
    C, n = 1.0, len(y)
    Q = np.outer(y, y) * (X @ X.T)
    result = solve(Q, -np.ones(n), y[None, :], [0.0], np.vstack([np.eye(n), -np.eye(n)]),
                   np.concatenate([np.full(n, C), np.zeros(n)]))
    assert result.success, result.message
    alpha = result.x
    w = (alpha * y) @ X
    free = (alpha > 1e-6 * C) & (alpha < C * (1 - 1e-6))
    b = np.mean(y[free] - X[free] @ w)
    svc = SVC(kernel="linear", C=C, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(w, svc.coef_[0], atol=1e-4)
    assert b == pytest.approx(svc.intercept_[0], abs=1e-3)


def test_an_objective_of_small_entries_is_solved_not_stopped_early():
    """G = 1e-8·I: the interior-point tests read residuals in the objective's units and passed at
    x = (0.43, 0.43) (success=True; the minimum is (0.5, 0.5)); the barrier's gap bound alike."""
    G, c = 1e-8 * np.eye(2), np.array([-1e-8, -1e-8])
    for solve in INEQUALITY_SOLVERS:
        result = solve(G, c, A_ineq=[[1.0, 1.0]], b_ineq=[1.0])
        assert result.success
        np.testing.assert_allclose(result.x, [0.5, 0.5], atol=1e-6)
    scaled = interior_point_qp(1e8 * G, 1e8 * c, A_ineq=[[1.0, 1.0]], b_ineq=[1.0])
    np.testing.assert_allclose(interior_point_qp(G, c, A_ineq=[[1.0, 1.0]], b_ineq=[1.0]).z * 1e8, scaled.z, rtol=1e-6)


@pytest.mark.parametrize("scale", [1e-8, 1e3, 1e6, 1e10])
def test_the_interior_point_minimizer_does_not_depend_on_the_objectives_units(scale):
    """The same QP with G and c times a constant: the same minimizer, to the solver's accuracy
    (an objective of small entries is solved in units of its largest; larger ones as given)."""
    G, c, A_eq, b_eq, A_ineq, b_ineq = random_qp(3, n=15, m_eq=2, m_ineq=30)
    exact = active_set_qp(G, c, A_eq, b_eq, A_ineq, b_ineq).x
    result = interior_point_qp(G * scale, c * scale, A_eq, b_eq, A_ineq, b_ineq)
    assert result.success, result.message
    np.testing.assert_allclose(result.x, exact, atol=1e-4)


def test_unbounded_problems_are_failures_not_crashes_and_bad_settings_are_refused():
    unbounded = interior_point_qp(np.zeros((2, 2)), [-1.0, 0.0], A_ineq=[[-1.0, 0.0], [0.0, 1.0]], b_ineq=[0.0, 0.0])
    assert not unbounded.success and "unbounded" in unbounded.message
    free = barrier_qp(np.diag([1.0, 0.0]), [0.0, -1.0], A_ineq=[[1.0, 0.0]], b_ineq=[1.0])
    assert not free.success and "unbounded" in free.message
    G, c = np.eye(2), np.array([-1.0, -1.0])
    for settings in ({"t0": -1.0}, {"mu": 0.5}, {"max_iter": 0}):
        with pytest.raises(ValueError, match="must be"):
            barrier_qp(G, c, A_ineq=[[1.0, 1.0]], b_ineq=[1.0], **settings)
    with pytest.raises(ValueError, match="max_iter"):
        interior_point_qp(G, c, A_ineq=[[1.0, 1.0]], b_ineq=[1.0], max_iter=0)
    for solve in INEQUALITY_SOLVERS:
        with pytest.raises(ValueError, match="no variables"):
            solve(np.zeros((0, 0)), np.zeros(0))
