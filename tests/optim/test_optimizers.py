"""The general optimizers on Rosenbrock, ill-conditioned quadratics and the notes' curve fit."""

import numpy as np
import pytest
from scipy.optimize import least_squares, rosen, rosen_der, rosen_hess

from lucidml.optim import (
    backtracking,
    bfgs,
    gauss_newton,
    gradient_descent,
    lbfgs,
    levenberg_marquardt,
    newton,
    proximal_gradient,
    rosenbrock,
    rosenbrock_grad,
    rosenbrock_hess,
    soft_threshold,
)


@pytest.mark.parametrize("n", [2, 5, 10])
def test_rosenbrock_agrees_with_scipy(n):
    x = np.random.default_rng(n).normal(size=n)
    assert rosenbrock(x) == pytest.approx(rosen(x), rel=1e-14)
    np.testing.assert_allclose(rosenbrock_grad(x), rosen_der(x), rtol=1e-12)
    np.testing.assert_allclose(rosenbrock_hess(x), rosen_hess(x), rtol=1e-12)
    np.testing.assert_allclose(rosenbrock_hess(x, sparse=True).toarray(), rosen_hess(x), rtol=1e-12)
    with pytest.raises(ValueError, match="length ≥ 2"):
        rosenbrock([1.0])


@pytest.mark.parametrize("n", [2, 10])
@pytest.mark.parametrize("method", ["newton", "bfgs", "bfgs_exact", "lbfgs"])
def test_second_order_methods_solve_rosenbrock(method, n):
    x0 = np.tile([-1.2, 1.0], n // 2)
    solve = {
        "newton": lambda: newton(rosenbrock, x0, rosenbrock_grad, rosenbrock_hess, tol=1e-12),
        "bfgs": lambda: bfgs(rosenbrock, x0, rosenbrock_grad, tol=1e-12),
        "bfgs_exact": lambda: bfgs(rosenbrock, x0, rosenbrock_grad, rosenbrock_hess, B0="exact", tol=1e-12),
        "lbfgs": lambda: lbfgs(rosenbrock, x0, rosenbrock_grad, tol=1e-12),
    }[method]
    result = solve()
    assert result.success and result.grad_norm < 1e-5
    assert result.n_iter == len(result.history) and result.nfev >= result.n_iter
    if np.allclose(result.x, np.ones(n), atol=1e-5):
        return
    # For N ≥ 4 the function also has a local minimum near (−1, 1, …, 1), where a method started
    # at (−1.2, 1, …) may legitimately stop: it must then be that stationary point.
    assert n >= 4 and result.x[0] < -0.9 and np.allclose(result.x[1:], 1.0, atol=0.02)


def _quadratic(kappa, n=10, seed=0):
    """f = ½ xᵀQx − bᵀx with eigenvalues 1 … κ (condition number κ)."""
    rng = np.random.default_rng(seed)
    V, _ = np.linalg.qr(rng.normal(size=(n, n)))
    Q = V @ np.diag(np.linspace(1, kappa, n)) @ V.T
    b = rng.normal(size=n)
    return (lambda x: 0.5 * x @ Q @ x - b @ x), (lambda x: Q @ x - b), (lambda x: Q), np.linalg.solve(Q, b)


@pytest.mark.parametrize("kappa", [10.0, 1000.0])
def test_methods_on_ill_conditioned_quadratics(kappa):
    f, g, h, solution = _quadratic(kappa)
    x0 = np.zeros(10)
    assert newton(f, x0, g, h).n_iter == 1  # exact on a quadratic
    optimum = f(solution)
    for result in (bfgs(f, x0, g, tol=1e-12), lbfgs(f, x0, g, tol=1e-12),
                   gradient_descent(f, x0, g, h, step="lipschitz", L=kappa, max_iter=200_000, tol=1e-12)):
        assert result.fun - optimum <= 1e-8 * abs(optimum)


def test_gradient_descent_step_rules():
    f, g, h, solution = _quadratic(10.0)
    x0 = np.zeros(10)
    # Any fixed γ < 2/L converges; γ > 2/L diverges (L = 10 here).
    converging = gradient_descent(f, x0, g, step="fixed", lr=0.19, max_iter=5000, tol=1e-12)
    assert converging.success and converging.fun - f(solution) <= 1e-8 * abs(f(solution))
    diverging = gradient_descent(f, x0, g, step="fixed", lr=0.21, max_iter=300, tol=0.0)
    assert diverging.history[-1]["f"] > diverging.history[10]["f"] > f(solution)
    with pytest.warns(UserWarning, match="local value"):
        local = gradient_descent(f, x0, g, h, step="lipschitz", max_iter=5000, tol=1e-12)
    assert local.fun - f(solution) <= 1e-8 * abs(f(solution))
    with pytest.raises(ValueError, match="step must be"):
        gradient_descent(f, x0, g, step="armijo")


def test_backtracking_guarantees_decrease():
    result = gradient_descent(rosenbrock, np.array([-1.2, 1.0]), rosenbrock_grad, max_iter=3000)
    values = [rosenbrock(np.array([-1.2, 1.0]))] + [entry["f"] for entry in result.history]
    assert all(b <= a for a, b in zip(values, values[1:]))
    step, f_new = backtracking(rosenbrock, np.zeros(2), 1.0, rosenbrock_grad(np.zeros(2)), -rosenbrock_grad(np.zeros(2)))
    assert 0 < step <= 1 and f_new < 1.0
    with pytest.raises(ValueError, match="descent direction"):
        backtracking(rosenbrock, np.zeros(2), 1.0, rosenbrock_grad(np.zeros(2)), rosenbrock_grad(np.zeros(2)))


def test_bfgs_updates_satisfy_the_secant_equation():
    result = bfgs(rosenbrock, np.array([-1.2, 1.0]), rosenbrock_grad)
    xs = [np.array([-1.2, 1.0])] + [entry["x"] for entry in result.history]
    for k, entry in enumerate(result.history[1:], start=1):
        s = xs[k + 1] - xs[k]
        y = rosenbrock_grad(xs[k + 1]) - rosenbrock_grad(xs[k])
        if y @ s > 1e-10 * np.linalg.norm(s) * np.linalg.norm(y):  # updates that were not skipped
            B = entry["B"]
            np.testing.assert_allclose(B @ y, s, rtol=1e-6, atol=1e-12)  # H s = y with H = B⁻¹
            assert np.all(np.linalg.eigvalsh((B + B.T) / 2) > 0)


def test_newton_diagonal_hessian_and_indefinite_start():
    diag = newton(rosenbrock, [-1.2, 1.0], rosenbrock_grad, rosenbrock_hess, hessian="diag", max_iter=20_000, tol=1e-14)
    np.testing.assert_allclose(diag.x, [1.0, 1.0], atol=1e-2)  # 002 Ex. 4.3(b): slow, but it gets there
    # f = x⁴ − x² has a negative second derivative at 0.1: the modified Hessian still descends.
    result = newton(lambda x: x[0] ** 4 - x[0] ** 2, [0.1], lambda x: np.array([4 * x[0] ** 3 - 2 * x[0]]),
                    lambda x: np.array([[12 * x[0] ** 2 - 2]]))
    assert abs(abs(result.x[0]) - np.sqrt(0.5)) < 1e-6


# Seed 002 Exercise 4.5: fit ŷ = a e^{bx} to four points from p₀ = (1, 0.8).
XS = np.array([0.0, 1.0, 2.0, 3.0])
YS = np.array([1.1, 2.6, 7.2, 21.1])


def _residual(p):
    return p[0] * np.exp(p[1] * XS) - YS


def _jacobian(p):  # the notes' J, of ŷ with respect to (a, b)
    return np.column_stack([np.exp(p[1] * XS), p[0] * XS * np.exp(p[1] * XS)])


def test_notes_curve_fit_gauss_newton_and_levenberg_marquardt():
    reference = least_squares(_residual, [1.0, 0.8], xtol=1e-15, ftol=1e-15, gtol=1e-15).x
    for result in (gauss_newton(_residual, [1.0, 0.8], _jacobian),
                   gauss_newton(_residual, [1.0, 0.8]),  # finite-difference Jacobian
                   levenberg_marquardt(_residual, [1.0, 0.8], _jacobian),
                   levenberg_marquardt(_residual, [1.0, 0.8], _jacobian, damping="marquardt")):
        assert result.success
        np.testing.assert_allclose(result.x, reference, rtol=1e-6)
    lm = levenberg_marquardt(_residual, [1.0, 0.8], _jacobian)
    assert {"lam", "rho"} <= set(lm.history[0])
    # Gradient descent on the same SSE (002 Ex. 4.5a) with a small step gets close too.
    sse = lambda p: float(_residual(p) @ _residual(p))  # noqa: E731
    sse_grad = lambda p: 2 * _jacobian(p).T @ _residual(p)  # noqa: E731
    gd = gradient_descent(sse, np.array([1.0, 0.8]), sse_grad, max_iter=200_000, tol=1e-14)
    np.testing.assert_allclose(gd.x, reference, rtol=1e-3)


def test_weights_equal_scaled_residuals():
    weights = np.array([1.0, 4.0, 0.25, 2.0])
    weighted = levenberg_marquardt(_residual, [1.0, 0.8], _jacobian, weights=weights)
    scaled = levenberg_marquardt(lambda p: np.sqrt(weights) * _residual(p), [1.0, 0.8],
                                 lambda p: np.sqrt(weights)[:, None] * _jacobian(p))
    np.testing.assert_allclose(weighted.x, scaled.x, rtol=1e-8)
    with pytest.raises(ValueError, match="at least as many residuals"):
        gauss_newton(lambda p: p[:1], [1.0, 2.0])


def test_history_keeps_iterates_only_of_small_problems():
    """A copy of every iterate of a 20,000-unknown problem would outweigh its data: not kept."""
    from lucidml.optim.quasi_newton import lbfgs
    from lucidml.optim.result import HISTORY_MAX_SIZE

    scale = np.linspace(1.0, 3.0, 2 * HISTORY_MAX_SIZE)
    result = lbfgs(lambda x: 0.5 * float(scale @ x**2), np.ones_like(scale), lambda x: scale * x, tol=1e-10)
    assert result.success and result.history and all(entry["x"] is None for entry in result.history)
    assert all(np.isfinite(entry["f"]) for entry in result.history)
    small = lbfgs(lambda x: 0.5 * float(x @ x), np.ones(3), lambda x: x, tol=1e-10)
    assert all(entry["x"].shape == (3,) for entry in small.history)


def test_a_start_at_a_stationary_point_returns_it_without_a_step():
    """A zero gradient at x0 leaves no descent direction: every line-search method returns x0
    (0 iterations) instead of raising "not a descent direction" (logistic regression on XOR)."""
    from lucidml.optim import bfgs, gradient_descent, lbfgs, newton

    fun = lambda x: float(x @ x)  # noqa: E731
    grad = lambda x: 2 * x  # noqa: E731
    hess = lambda x: 2 * np.eye(len(x))  # noqa: E731
    for result in (bfgs(fun, np.zeros(3), grad), lbfgs(fun, np.zeros(3), grad), newton(fun, np.zeros(3), grad, hess),
                   gradient_descent(fun, np.zeros(3), grad)):
        assert result.success and result.n_iter == 0 and np.array_equal(result.x, np.zeros(3))


def test_logistic_regression_on_xor_stops_at_the_symmetric_optimum():
    from lucidml.linear import LogisticRegression

    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([0, 1, 1, 0])
    for solver in ("lbfgs", "newton", "gd"):
        model = LogisticRegression(solver=solver).fit(X, y)
        np.testing.assert_array_equal(model.predict_proba(X)[:, 1], 0.5)
        assert model.n_iter_[0] == 0


# --- honest results: a run that could not minimize says so -------------------------------------


def _wrong_sign(x):
    return -rosenbrock_grad(x)


@pytest.mark.parametrize("method", ["gradient_descent", "lbfgs", "bfgs", "newton"])
def test_a_gradient_that_is_not_fs_is_a_failure_not_a_minimum(method):
    """With −∇f for ∇f every line search finds no decrease: the run used to stop at x₀ with
    success=True ("relative change of f ≤ ftol"); it is a failure that names the gradient."""
    x0 = np.array([-1.2, 1.0])
    run = {"gradient_descent": lambda: gradient_descent(rosenbrock, x0, _wrong_sign),
           "lbfgs": lambda: lbfgs(rosenbrock, x0, _wrong_sign), "bfgs": lambda: bfgs(rosenbrock, x0, _wrong_sign),
           "newton": lambda: newton(rosenbrock, x0, _wrong_sign, rosenbrock_hess)}[method]
    result = run()
    assert not result.success and "gradient" in result.message


def test_divergence_and_unboundedness_are_failures():
    diverged = gradient_descent(lambda x: x @ x, np.ones(2), lambda x: 2 * x, step="fixed", lr=5.0)
    assert not diverged.success and "not finite" in diverged.message
    unbounded = bfgs(lambda x: x[0], np.zeros(1), lambda x: np.ones(1))
    assert not unbounded.success and "unbounded" in unbounded.message


def test_a_start_where_f_is_undefined_or_a_gradient_of_another_shape_is_refused():
    with pytest.raises(ValueError, match="f\\(x0\\) is not finite"):
        lbfgs(lambda x: np.nan, np.array([-1.2, 1.0]), rosenbrock_grad)
    target = np.array([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="shape \\(1,\\).*shape \\(3,\\)"):
        lbfgs(lambda x: np.sum((x - target) ** 2), np.zeros(3), lambda x: np.array([2 * (x[0] - 1)]))
    with pytest.raises(ValueError, match="lr must be"):
        gradient_descent(rosenbrock, np.zeros(2), rosenbrock_grad, step="fixed", lr=-1.0)
    with pytest.raises(ValueError, match="L must be"):
        gradient_descent(rosenbrock, np.zeros(2), rosenbrock_grad, step="lipschitz", L=0.0)


def test_nan_values_away_from_the_start_are_stepped_back_from():
    """f undefined (NaN) beyond x = 2: the line search treats it as +∞ and keeps inside."""
    f = lambda x: float((x[0] - 1.5) ** 2) if x[0] < 2 else np.nan  # noqa: E731
    g = lambda x: np.array([2 * (x[0] - 1.5)])  # noqa: E731
    result = lbfgs(f, np.array([-3.0]), g)
    assert result.success and abs(result.x[0] - 1.5) < 1e-6


def test_proximal_gradient_refuses_a_wrong_gradient_and_a_bad_step():
    f = lambda x: 0.5 * np.sum((x - 3.0) ** 2)  # noqa: E731
    prox = lambda x, t: soft_threshold(x, t)  # noqa: E731
    wrong = proximal_gradient(f, np.zeros(2), lambda x: -(x - 3.0), prox)
    assert not wrong.success and "gradient" in wrong.message
    for lr in (-1.0, 0.0):
        with pytest.raises(ValueError, match="lr must be"):
            proximal_gradient(f, np.zeros(2), lambda x: x - 3.0, prox, lr=lr)
    np.testing.assert_allclose(proximal_gradient(f, np.zeros(2), lambda x: x - 3.0, prox).x, [2.0, 2.0])
