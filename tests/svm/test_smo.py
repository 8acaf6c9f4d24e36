"""The SMO solver on its own: the notes' worked example, KKT conditions, the QP module, the cache."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lucidml.optim.qp import interior_point_qp
from lucidml.svm._cache import kernel_data
from lucidml.svm._kernel import KIND, exp_inplace, kernel_block
from lucidml.svm._simplified_smo import simplified_smo
from lucidml.svm._smo import Dual, bias_from_gradient, smo_solve

EMPTY = np.empty((0, 0))
NOT_CANCELLED = np.zeros(1, np.uint8)

# 000 §6.3: four points, two per class
X4 = np.array([[-1.0, -2.0], [1.0, -1.0], [0.0, 2.0], [1.0, 3.0]])
Y4 = np.array([1.0, 1.0, -1.0, -1.0])


def _solve(X, y, C, kernel="rbf", gamma=0.5, tol=1e-3, shrinking=True, n_slots=1000, gram=False, max_iter=10**6):
    n = len(y)
    kind = KIND[kernel]
    upper = np.full(n, float(C))
    dual = Dual(np.arange(n), y, -np.ones(n), upper)
    if gram:
        K = kernel_block(X, X, kind, gamma, 1.0, 3)
        return smo_solve(kernel_data(EMPTY, K, 0, gamma, 1.0, 3), dual, tol, max_iter, shrinking, 0, NOT_CANCELLED)
    return smo_solve(kernel_data(X, EMPTY, kind, gamma, 1.0, 3), dual, tol, max_iter, shrinking, n_slots,
                     NOT_CANCELLED)


def _kkt_gap(alpha, grad, y, upper):
    """max_{I_up} −y∇f − min_{I_low} −y∇f (≤ tol at an SMO solution)."""
    F = -y * grad
    up = ((y > 0) & (alpha < upper)) | ((y < 0) & (alpha > 0))
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < upper))
    return F[up].max(initial=-np.inf) - F[low].min(initial=np.inf)


def test_four_point_example_of_the_notes():
    Q = (Y4[:, None] * Y4[None, :]) * (X4 @ X4.T)
    # The notes print −3 α₂α₄ in W(α); yᵢyⱼxᵢᵀxⱼ gives Q₂₄ = 2, i.e. −2 α₂α₄ (SPEC ⚠).
    assert Q[1, 3] == 2.0
    assert Q[0, 0] == 5.0 and Q[0, 3] == 7.0 and Q[2, 3] == 6.0
    alpha, grad, curve, _, status, _ = smo_solve(kernel_data(EMPTY, X4 @ X4.T, 0, 1.0, 0.0, 1),
                                                 Dual(np.arange(4), Y4, -np.ones(4), np.full(4, 1e6)), 1e-10, 1000,
                                                 True, 0, NOT_CANCELLED)
    # By hand: x₂ and x₃ are the support vectors, α₂ = α₃ = a maximises 2a − 5a², a = 1/5.
    np.testing.assert_allclose(alpha, [0.0, 0.2, 0.2, 0.0], atol=1e-12)
    w = (alpha * Y4) @ X4
    np.testing.assert_allclose(w, [0.2, -0.6], atol=1e-12)
    assert bias_from_gradient(alpha, grad, Y4, np.full(4, 1e6)) == pytest.approx(0.2)
    assert curve[-1] == pytest.approx(-0.2)  # −W(α*) = −(2a − 5a²)
    assert status == 0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(5, 60), C=st.floats(0.05, 50.0),
       kernel=st.sampled_from(["rbf", "linear", "poly"]), shrinking=st.booleans())
def test_kkt_conditions_hold_at_the_solution(seed, n, C, kernel, shrinking):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    alpha, grad, curve, _, status, _ = _solve(X, y, C, kernel, gamma=0.3, tol=1e-3, shrinking=shrinking, n_slots=7)
    upper = np.full(n, C)
    assert status == 0
    assert abs(alpha @ y) <= 1e-9 * max(1.0, C * n)  # yᵀα = 0 is kept exactly by every pair step
    assert np.all(alpha >= 0) and np.all(alpha <= upper)
    assert _kkt_gap(alpha, grad, y, upper) < 1e-3
    # the returned gradient is the true one, Qα − 1, even after shrinking
    K = kernel_block(X, X, KIND[kernel], 0.3, 1.0, 3)
    np.testing.assert_allclose(grad, y * (K @ (alpha * y)) - 1.0, atol=1e-8 * max(1.0, C * n))
    assert np.all(np.diff(curve) <= 1e-12 * max(1.0, abs(curve[-1])))  # each pair step lowers the objective


def test_agrees_with_the_interior_point_qp_solver():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=40) > 0, 1.0, -1.0)
    C = 2.0
    K = kernel_block(X, X, KIND["rbf"], 0.7, 0.0, 3)
    Q = (y[:, None] * y[None, :]) * K
    qp = interior_point_qp(Q, -np.ones(40), A_eq=y[None, :], b_eq=np.zeros(1),
                           A_ineq=np.vstack([-np.eye(40), np.eye(40)]), b_ineq=np.concatenate([np.zeros(40),
                                                                                              np.full(40, C)]))
    assert qp.success
    alpha, _, curve, _, _, _ = _solve(X, y, C, "rbf", gamma=0.7, tol=1e-8)
    smo_value = 0.5 * alpha @ Q @ alpha - alpha.sum()
    assert smo_value == pytest.approx(qp.fun, rel=1e-7)
    assert curve[-1] == pytest.approx(smo_value, rel=1e-9)  # the tracked objective is the true one
    # α itself is only weakly determined where the Gram matrix is nearly singular; Qα (the margins) is
    np.testing.assert_allclose(alpha, qp.x, atol=1e-3)
    np.testing.assert_allclose(Q @ alpha, Q @ qp.x, atol=1e-4)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear", "sigmoid"])
def test_columns_cache_and_shrinking_do_not_change_the_solution(kernel):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=150) > 0, 1.0, -1.0)
    gamma = 0.05 if kernel == "sigmoid" else 0.4
    runs = [_solve(X, y, 1.0, kernel, gamma, 1e-6, shrinking, n_slots, gram)
            for shrinking in (True, False) for n_slots, gram in ((2, False), (1000, False), (0, True))]
    values = [r[2][-1] for r in runs]
    np.testing.assert_allclose(values, values[0], rtol=1e-6)
    for r in runs[1:]:
        np.testing.assert_allclose(r[0], runs[0][0], atol=1e-3)


def test_max_iter_stops_with_status_one():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 2))
    y = np.where(rng.random(80) < 0.5, 1.0, -1.0)
    alpha, grad, curve, n_iter, status, _ = _solve(X, y, 10.0, max_iter=5)
    assert (n_iter, status, len(curve)) == (5, 1, 5)
    K = kernel_block(X, X, KIND["rbf"], 0.5, 1.0, 3)
    np.testing.assert_allclose(grad, y * (K @ (alpha * y)) - 1.0, atol=1e-10)


def test_a_non_psd_kernel_is_reported_and_does_not_crash():
    K = np.ones((6, 6)) - np.eye(6)  # k(x, x) = 0 < k(x, z): eigenvalue −1, and η = −2 for every pair
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    alpha, _, _, _, status, non_psd = smo_solve(kernel_data(EMPTY, K, 0, 1.0, 0.0, 1),
                                                Dual(np.arange(6), y, -np.ones(6), np.ones(6)), 1e-3, 10**5, True, 0,
                                                NOT_CANCELLED)
    assert non_psd and status == 0
    assert np.all(np.isfinite(alpha)) and np.all((alpha >= 0) & (alpha <= 1))


def test_identical_points_are_solved():
    X = np.ones((10, 3))
    y = np.array([1.0, -1.0] * 5)
    alpha, _, _, _, status, non_psd = _solve(X, y, 1.0, "rbf")
    assert status == 0 and not non_psd
    np.testing.assert_allclose(alpha, 1.0)  # f = ½(Σαy)² − Σα: every multiplier at C


def test_simplified_smo_reaches_nearly_the_same_objective():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 2))
    y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 + 0.3 * rng.normal(size=120) > 1.4, 1.0, -1.0)
    K = kernel_block(X, X, KIND["rbf"], 0.5, 0.0, 3)
    upper = np.ones(120)
    alpha_s, grad_s, curve_s, _, status, _ = simplified_smo(
        EMPTY, K, 0, 0.5, 0.0, 3, np.arange(120), y, upper, 1e-3, 5, 1000, np.random.RandomState(0))
    _, _, curve, _, _, _ = _solve(X, y, 1.0, "rbf", gamma=0.5, tol=1e-3)
    Q = (y[:, None] * y[None, :]) * K
    value_s = 0.5 * alpha_s @ Q @ alpha_s - alpha_s.sum()
    assert status == 0 and abs(alpha_s @ y) < 1e-9
    assert value_s == pytest.approx(curve[-1], rel=1e-2)
    assert value_s == pytest.approx(curve_s[-1], rel=1e-9)
    np.testing.assert_allclose(grad_s, y * (K @ (alpha_s * y)) - 1.0, atol=1e-8)


def test_vectorised_exp_is_accurate():
    x = np.concatenate([np.linspace(-745.0, 709.0, 20001), -np.random.default_rng(0).random(5000) * 50])
    expected = np.exp(np.maximum(x, -708.0))
    out = x.copy()
    exp_inplace(out, np.empty_like(out))
    np.testing.assert_allclose(out, expected, rtol=2e-15)
