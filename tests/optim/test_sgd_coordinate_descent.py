"""Stochastic gradient descent and coordinate descent (seeds 002 §4.4, 000 §2.4.2, §6.9–6.10.1, 004 §11, §13)."""

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize, nnls
from sklearn.datasets import load_diabetes

from lucidml.optim.coordinate_descent import coordinate_descent
from lucidml.optim.sgd import sgd

# --------------------------------------------------------------------------- sgd


def _least_squares(seed=0, m=400, p=5, noise=0.5):
    """f(w) = (1/m) Σ ½(xᵢᵀw − yᵢ)² on well-conditioned Gaussian data (eigenvalues of XᵀX/m ≈ 0.85 … 1.2)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, p))
    y = X @ rng.normal(size=p) + noise * rng.normal(size=m)
    f = lambda w: 0.5 * np.mean((X @ w - y) ** 2)
    grad = lambda w, idx: X[idx].T @ (X[idx] @ w - y[idx]) / len(idx)
    return f, grad, np.linalg.lstsq(X, y, rcond=None)[0], m


@pytest.mark.parametrize("schedule, params, atol", [("inverse", {"lr": 2.0}, 1e-3),
                                                    ("c1_c2", {"c1": 2.0, "c2": 20.0}, 5e-3)])
def test_decreasing_schedules_reach_the_lstsq_solution_with_mini_batches(schedule, params, atol):
    f, grad, w_star, m = _least_squares()
    result = sgd(f, np.zeros(5), grad, n_samples=m, batch_size=20, schedule=schedule, max_iter=50, tol=0,
                 random_state=0, **params)
    # measured: max |w − w*| = 6.6e-5 (inverse) and 6.4e-4 (c1_c2)
    np.testing.assert_allclose(result.x, w_star, atol=atol)
    assert result.n_iter == 50 and not result.success
    assert result.grad_norm < 10 * atol  # the full gradient at the end


def test_diabetes_loss_approaches_the_least_squares_optimum():
    X, y = load_diabetes(return_X_y=True)
    X, y = (X - X.mean(0)) / X.std(0), (y - y.mean()) / y.std()
    f = lambda w: 0.5 * np.mean((X @ w - y) ** 2)
    grad = lambda w, idx: X[idx].T @ (X[idx] @ w - y[idx]) / len(idx)
    w_star = np.linalg.lstsq(X, y, rcond=None)[0]
    result = sgd(f, np.zeros(10), grad, n_samples=len(y), batch_size=16, schedule="c1_c2", c1=1.0, c2=10.0,
                 max_iter=100, tol=0, random_state=0)
    # XᵀX/m has condition number ≈ 470 (s1–s4 are nearly collinear), so w itself converges slowly along
    # that direction; the loss and the fitted values do not need it. Measured: f/f* − 1 = 0.73 %.
    assert f(result.x) <= 1.015 * f(w_star)
    assert np.corrcoef(X @ result.x, X @ w_star)[0, 1] > 0.99


def test_constant_step_bounces_decreasing_step_does_not():
    f, grad, w_star, m = _least_squares()
    optimum = f(w_star)
    common = {"n_samples": m, "max_iter": 40, "tol": 0, "random_state": 0}
    constant = sgd(f, np.zeros(5), grad, schedule="constant", lr=0.05, **common)
    decreasing = sgd(f, np.zeros(5), grad, schedule="inverse", lr=2.0, **common)
    late = np.array([entry["f"] for entry in constant.history[-10:]])
    # 002 §4.4: a constant step reaches a neighbourhood of the minimum, then stays in it, bouncing
    # (measured: 10–20 % above f*); C/k keeps closing in (measured: 1e-6 above f*).
    assert np.all(late > 1.02 * optimum)
    assert late.std() > 0
    assert decreasing.fun < 1.0001 * optimum


def _diabetes_least_squares():
    X, y = load_diabetes(return_X_y=True)
    X, y = (X - X.mean(0)) / X.std(0), (y - y.mean()) / y.std()
    f = lambda w: 0.5 * np.mean((X @ w - y) ** 2)
    grad = lambda w, idx: X[idx].T @ (X[idx] @ w - y[idx]) / len(idx)
    return X, y, f, grad


def test_variance_reduced_epochs_converge_to_the_minimizer_itself():
    """Where the decaying step stalls at 0.73 % above f* (the test above), SVRG epochs after a
    first plain one converge to w* along the ill-conditioned direction too."""
    X, y, f, grad = _diabetes_least_squares()
    w_star = np.linalg.lstsq(X, y, rcond=None)[0]
    result = sgd(f, np.zeros(10), grad, n_samples=len(y), batch_size=16, schedule="c1_c2", c1=1.0, c2=10.0,
                 max_iter=1000, tol=1e-9, ftol=0, random_state=0, variance_reduced_from=2)
    assert result.success and "gradient" in result.message and result.grad_norm <= 1e-9
    np.testing.assert_allclose(result.x, w_star, rtol=1e-5, atol=1e-7)
    assert f(result.x) <= f(w_star) * (1 + 1e-12)
    fs = np.array([entry["f"] for entry in result.history])
    assert np.all(np.diff(fs[1:]) <= 64 * np.finfo(float).eps * fs[1:-1])  # monotone from the first VR epoch


def test_variance_reduced_epochs_undo_a_step_that_raises_f():
    """No line search: an epoch that raises f is undone and the step halved, so a step that makes
    plain SGD diverge still converges (the f history never rises)."""
    f, grad, w_star, m = _least_squares()
    with np.errstate(all="ignore"):
        plain = sgd(f, np.zeros(5), grad, n_samples=m, lr=5.0, max_iter=50, tol=0, random_state=0)
    assert not plain.success and "not finite" in plain.message
    result = sgd(f, np.zeros(5), grad, n_samples=m, lr=5.0, max_iter=200, tol=1e-10, ftol=0, random_state=0,
                 variance_reduced_from=1)
    assert result.success
    np.testing.assert_allclose(result.x, w_star, atol=1e-9)
    steps = [entry["step"] for entry in result.history]
    fs = np.array([entry["f"] for entry in result.history])
    assert steps[1] == steps[0] / 2 and fs[0] == f(np.zeros(5))  # the first epoch was undone
    assert np.all(np.diff(fs) <= 64 * np.finfo(float).eps * fs[1:])


def test_proximal_variance_reduced_epochs_solve_the_lasso_with_exact_zeros():
    """Prox-SVRG on ½ mean (Xw − y)² + λ‖w‖₁: the proximal-gradient (ISTA) solution, its zeros exactly,
    a stop on the gradient mapping; the first epoch uses the ``online_prox`` given for plain steps."""
    from lucidml.optim.proximal_gradient import proximal_gradient, soft_threshold

    X, y, f, grad = _diabetes_least_squares()
    lam = 0.05
    prox = lambda w, gamma: soft_threshold(w, gamma * lam)
    F = lambda w: f(w) + lam * np.abs(w).sum()
    ista = proximal_gradient(f, np.zeros(10), lambda w: X.T @ (X @ w - y) / len(y), prox, max_iter=100_000, tol=1e-12)
    online_calls = []
    online = lambda w, gamma: online_calls.append(gamma) or prox(w, gamma)
    result = sgd(F, np.zeros(10), grad, n_samples=len(y), batch_size=16, schedule="c1_c2", c1=1.0, c2=10.0,
                 max_iter=2000, tol=1e-9, ftol=0, random_state=0, prox=prox, online_prox=online,
                 variance_reduced_from=2)
    assert result.success and result.grad_norm <= 1e-9
    assert len(online_calls) == -(-len(y) // 16)  # one plain epoch
    np.testing.assert_array_equal(result.x == 0, ista.x == 0)
    assert 0 < np.count_nonzero(result.x == 0) < 10
    np.testing.assert_allclose(result.x, ista.x, atol=1e-7)
    assert F(result.x) <= F(ista.x) + 1e-12


@pytest.mark.parametrize("order", ["shuffle", "uniform", "cyclic"])
@pytest.mark.parametrize("batch_size", [1, 20])
def test_every_order_converges(order, batch_size):
    f, grad, w_star, m = _least_squares()
    result = sgd(f, np.zeros(5), grad, n_samples=m, batch_size=batch_size, order=order, schedule="inverse", lr=2.0,
                 max_iter=30, tol=0, random_state=1)
    np.testing.assert_allclose(result.x, w_star, atol=2e-2)  # uniform is the noisiest: measured ≤ 4.4e-3


def test_cyclic_single_sample_reproduces_the_notes_loop():
    """000 §2.4.2: θ ← θ − α (xⱼᵀθ − yⱼ) xⱼ for j = 1 … m in data order, every epoch."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = X @ [4.0, 5.0] + rng.normal(size=60)
    theta = np.array([1.2, 8.0])
    for _ in range(10):
        for j in range(60):
            theta = theta - 0.005 * (X[j] @ theta - y[j]) * X[j]
    result = sgd(lambda w: 0.0, [1.2, 8.0], lambda w, idx: X[idx].T @ (X[idx] @ w - y[idx]) / len(idx),
                 n_samples=60, order="cyclic", lr=0.005, max_iter=10, tol=0, record_every=40)
    np.testing.assert_allclose(result.x, theta, rtol=1e-12)
    assert len(result.history) == 600 // 40  # what the notes' `j % 40` meant to record


def test_record_every_sets_the_history_length():
    f, grad, _, m = _least_squares()  # 400 samples, batches of 20: 20 updates per epoch
    per_epoch = sgd(f, np.zeros(5), grad, n_samples=m, batch_size=20, max_iter=5, tol=0, random_state=0)
    assert [entry["epoch"] for entry in per_epoch.history] == [1, 2, 3, 4, 5]
    assert per_epoch.nfev == 1 + 5
    every7 = sgd(f, np.zeros(5), grad, n_samples=m, batch_size=20, max_iter=5, tol=0, random_state=0,
                 record_every=7)
    assert [entry["update"] for entry in every7.history] == list(range(7, 101, 7))
    assert every7.nfev == 1 + 5 + 14
    assert set(every7.history[0]) == {"x", "f", "grad_norm", "step", "epoch", "update"}
    np.testing.assert_allclose(every7.x, per_epoch.x)  # recording does not change the path


def test_step_schedules_are_as_documented():
    f, grad, _, m = _least_squares(m=10)
    inverse = sgd(f, np.zeros(5), grad, n_samples=m, schedule="inverse", lr=0.3, max_iter=2, tol=0, record_every=1)
    np.testing.assert_allclose([e["step"] for e in inverse.history], 0.3 / np.arange(1, 21))
    c1c2 = sgd(f, np.zeros(5), grad, n_samples=m, schedule="c1_c2", c1=0.5, c2=4.0, max_iter=1, tol=0,
               record_every=1)
    np.testing.assert_allclose([e["step"] for e in c1c2.history], 0.5 / (np.arange(1, 11) + 4.0))


def test_random_state_reproducibility_and_stopping():
    f, grad, _, m = _least_squares()
    runs = [sgd(f, np.zeros(5), grad, n_samples=m, batch_size=8, order="uniform", schedule="inverse", lr=1.0,
                max_iter=5, tol=0, random_state=seed) for seed in (7, 7, 8)]
    np.testing.assert_array_equal(runs[0].x, runs[1].x)
    assert [e["f"] for e in runs[0].history] == [e["f"] for e in runs[1].history]
    assert not np.array_equal(runs[0].x, runs[2].x)
    calls = []
    stopped = sgd(f, np.zeros(5), grad, n_samples=m, batch_size=20, schedule="inverse", lr=2.0, max_iter=500,
                  tol=1e-6, random_state=0, callback=calls.append)
    assert stopped.success and stopped.n_iter < 500 and len(calls) == stopped.n_iter
    with np.errstate(all="ignore"):
        diverged = sgd(f, np.zeros(5), grad, n_samples=m, lr=5.0, max_iter=50, tol=0, random_state=0)
    assert not diverged.success and "not finite" in diverged.message


@pytest.mark.parametrize("bad, match", [
    ({"n_samples": 0}, "n_samples"), ({"batch_size": 0}, "batch_size"), ({"batch_size": 500}, "exceeds"),
    ({"order": "random"}, "order"), ({"schedule": "adam"}, "schedule"), ({"lr": 0.0}, "lr"), ({"c1": -1.0}, "c1"),
    ({"c2": -1.0}, "c2"), ({"max_iter": 0}, "max_iter"), ({"tol": -1e-3}, "tol"), ({"record_every": 0}, "record_every"),
    ({"n_samples": 2.5}, "n_samples"), ({"variance_reduced_from": 0}, "variance_reduced_from"),
])
def test_sgd_rejects_bad_arguments(bad, match):
    f, grad, _, m = _least_squares()
    with pytest.raises(ValueError, match=match):
        sgd(f, np.zeros(5), grad, **{"n_samples": m, **bad})


# --------------------------------------------------------------------------- coordinate descent

# 000 §6.10.1: the prose names z = x² + y² + 2x + xy, but the demo code minimises
# fun(a, b) = a² + b² + 2b + ab (the linear term moved to the second variable), with the coordinate
# minimisers dfun: a = −b/2 and b = −1 − a/2. These tests use the code's function:
# Q = [[2, 1], [1, 2]], c = (0, 2), minimum at (2/3, −4/3).
Q_DEMO, C_DEMO = np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([0.0, 2.0])


def _demo_fun(theta):
    a, b = theta
    return a**2 + b**2 + 2 * b + a * b


def _demo_dfun(theta, j):
    return -theta[1] / 2.0 if j == 0 else -1.0 - 0.5 * theta[0]


def _notes_path(theta0, iters):
    """The notes' loop, kept per sweep (they also store the point after each coordinate)."""
    theta, sweeps = list(theta0), []
    for _ in range(iters):
        for j in range(2):
            theta[j] = _demo_dfun(theta, j)
        sweeps.append(list(theta))
    return np.array(sweeps)


def test_notes_demo_with_every_coordinate_rule():
    expected = _notes_path([-1.8, 1.6], 7)
    for kwargs, rtol in (({"coord_min": _demo_dfun}, 1e-15), ({"quadratic": (Q_DEMO, C_DEMO)}, 1e-15), ({}, 1e-6)):
        result = coordinate_descent(_demo_fun, [-1.8, 1.6], max_iter=7, tol=0.0, **kwargs)
        np.testing.assert_allclose([e["x"] for e in result.history], expected, rtol=rtol, atol=1e-7)
    # the error shrinks by 1/4 per sweep: 3.6e-4 after the notes' 7 sweeps
    assert np.allclose(expected[-1], [2 / 3, -4 / 3], atol=1e-3) and not np.allclose(expected[-1], expected[-2])
    # The prose's function, c = (2, 0), has its minimum elsewhere: (−4/3, 2/3).
    prose = coordinate_descent(None, [-1.8, 1.6], quadratic=(Q_DEMO, C_DEMO[::-1]), tol=1e-14)
    np.testing.assert_allclose(prose.x, [-4 / 3, 2 / 3], atol=1e-10)


@pytest.mark.parametrize("order", ["cyclic", "random"])
def test_spd_quadratic_equals_the_linear_solve(order):
    rng = np.random.default_rng(0)
    A = rng.normal(size=(12, 8))
    Q, c = A.T @ A + 0.5 * np.eye(8), rng.normal(size=8)
    # tol=0: a fixed number of sweeps (a relative |Δf| ≤ tol would stop at ‖x − x*‖ ~ √tol)
    result = coordinate_descent(None, np.zeros(8), quadratic=(Q, c), order=order, tol=0.0, max_iter=1000,
                                random_state=0)
    np.testing.assert_allclose(result.x, np.linalg.solve(Q, -c), rtol=1e-10, atol=1e-12)
    assert result.n_iter == 1000 and not result.success
    assert result.grad_norm == pytest.approx(np.max(np.abs(Q @ result.x + c)))
    assert result.n_iter == len(result.history)
    values = [e["f"] for e in result.history]
    assert all(b <= a + 1e-12 for a, b in itertools.pairwise(values))  # exact minimisation never increases f


def test_brent_on_a_smooth_convex_non_quadratic():
    """f(x) = Σₖ log(1 + exp(aₖᵀx)) − bᵀx + ½‖x‖²: strictly convex, coordinates coupled through A."""
    rng = np.random.default_rng(1)
    A, b = rng.normal(size=(6, 3)), rng.normal(size=3)
    f = lambda x: np.sum(np.logaddexp(0.0, A @ x)) - b @ x + 0.5 * x @ x
    grad = lambda x: A.T @ (1 / (1 + np.exp(-(A @ x)))) - b + x
    reference = minimize(f, np.zeros(3), jac=grad, method="BFGS", options={"gtol": 1e-12}).x
    result = coordinate_descent(f, np.zeros(3), tol=1e-12)
    assert result.success
    np.testing.assert_allclose(result.x, reference, atol=1e-6)  # measured 2.1e-8
    assert result.grad_norm == pytest.approx(np.max(np.abs(grad(result.x))), abs=1e-6)  # finite differences


def test_coord_min_is_preferred_and_called_per_coordinate():
    calls = []

    def coord_min(x, j):
        calls.append(j)
        return _demo_dfun(x, j)

    result = coordinate_descent(_demo_fun, [-1.8, 1.6], coord_min=coord_min, quadratic=(Q_DEMO, C_DEMO),
                                max_iter=3, tol=0.0)
    assert calls == [0, 1] * 3
    assert result.nfev == 1 + 3  # one f per sweep; the gradient comes from (Q, c)


def test_random_order_is_reproducible_and_differs_from_cyclic():
    Q = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.5, 1.0, 2.0]])
    c = np.array([1.0, -2.0, 0.5])
    runs = [coordinate_descent(None, np.zeros(3), quadratic=(Q, c), order=order, max_iter=3, tol=0.0,
                               random_state=seed) for order, seed in (("random", 5), ("random", 5), ("cyclic", 5))]
    np.testing.assert_array_equal(runs[0].x, runs[1].x)
    assert any(not np.allclose(a["x"], b["x"]) for a, b in zip(runs[0].history, runs[2].history))


def test_bounds_give_nonnegative_least_squares():
    rng = np.random.default_rng(2)
    A, y = rng.normal(size=(20, 6)), rng.normal(size=20)
    bounds = [(0.0, None)] * 6
    result = coordinate_descent(None, np.ones(6), quadratic=(A.T @ A, -A.T @ y), bounds=bounds, tol=1e-14,
                                max_iter=10_000)
    expected = nnls(A, y)[0]
    assert np.any(expected == 0)  # the bounds are active
    np.testing.assert_allclose(result.x, expected, atol=1e-8)
    # Brent on a finite interval ("bounded"): minimise (x − 3)² + (y + 1)² over [0, 1]².
    boxed = coordinate_descent(lambda z: (z[0] - 3) ** 2 + (z[1] + 1) ** 2, [0.5, 0.5], bounds=[(0, 1), (0, 1)])
    np.testing.assert_allclose(boxed.x, [1.0, 0.0], atol=1e-4)


@pytest.mark.parametrize("kwargs, match", [
    ({"order": "shuffle"}, "order"), ({"max_iter": 0}, "max_iter"), ({"tol": -1.0}, "tol"),
    ({"coord_min": 3}, "coord_min"), ({"quadratic": (np.eye(3), np.zeros(2))}, "shape"),
    ({"quadratic": (np.array([[1.0, 2.0], [0.0, 1.0]]), np.zeros(2))}, "symmetric"),
    ({"quadratic": (np.array([[0.0, 1.0], [1.0, 1.0]]), np.zeros(2))}, "positive diagonal"),
    ({"bounds": [(0, 1)]}, "pairs"), ({"bounds": [(1, 0), (0, 1)]}, "lo ≤ hi"),
])
def test_coordinate_descent_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        coordinate_descent(_demo_fun, [0.0, 0.0], **kwargs)


def test_coordinate_descent_needs_a_function_and_a_minimum():
    with pytest.raises(ValueError, match="fun may be None"):
        coordinate_descent(None, [0.0, 0.0])
    with pytest.raises(ValueError, match="1-D"):
        coordinate_descent(_demo_fun, [[0.0, 0.0]])
    with pytest.raises(ValueError, match="bounded below"):
        coordinate_descent(lambda z: -z[0] + z[1] ** 2, [0.0, 0.0])
