"""Quasi-Newton on a partial Hessian: exact on separable and block quadratics, Rosenbrock, SciPy's minimizers."""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from lucidml.optim import lbfgs, quasi_newton_partial, rosenbrock, rosenbrock_grad, rosenbrock_hess


def _separable(seed=0, n=6):
    """f = Σ aᵢ (xᵢ − cᵢ)² with curvatures aᵢ from 10⁻² to 10⁴: diagonal Hessian 2a."""
    rng = np.random.default_rng(seed)
    a, c = np.logspace(-2, 4, n), rng.normal(size=n)
    return (lambda x: float(a @ (x - c) ** 2)), (lambda x: 2 * a * (x - c)), (lambda x: 2 * a), c


@pytest.mark.parametrize("memory", [0, 10])
def test_separable_quadratic_with_its_diagonal_converges_in_one_step(memory):
    f, g, diag, c = _separable()
    result = quasi_newton_partial(f, np.zeros(6), g, diag, memory=memory)
    assert result.success and result.n_iter == 1
    np.testing.assert_allclose(result.x, c, rtol=1e-12, atol=1e-12)
    assert result.history[0]["step"] == 1.0  # the Newton step, accepted whole


def test_the_finite_difference_diagonal_is_exact_enough_on_a_quadratic():
    f, g, _, c = _separable(1)
    result = quasi_newton_partial(f, np.zeros(6), g, tol=1e-10)  # no hess_part: diagonal by differences
    assert result.n_iter <= 2
    np.testing.assert_allclose(result.x, c, rtol=1e-6, atol=1e-8)


def test_block_diagonal_quadratic_with_exact_blocks_converges_in_one_step():
    rng = np.random.default_rng(2)
    blocks = [[0, 3], [1, 2, 5], [4]]
    Q = np.zeros((6, 6))
    for block in blocks:
        M = rng.normal(size=(len(block), len(block)))
        Q[np.ix_(block, block)] = M @ M.T + np.eye(len(block))
    b = rng.normal(size=6)
    f, g = (lambda x: 0.5 * x @ Q @ x - b @ x), (lambda x: Q @ x - b)
    parts = lambda x: [Q[np.ix_(block, block)] for block in blocks]  # noqa: E731
    result = quasi_newton_partial(f, np.zeros(6), g, parts, blocks=blocks)
    assert result.n_iter == 1
    np.testing.assert_allclose(result.x, np.linalg.solve(Q, b), rtol=1e-10)


def _rosenbrock_diagonal(x):
    return np.diag(rosenbrock_hess(x))


def _rosenbrock_pairs(x):
    H = rosenbrock_hess(x)
    return [H[i:i + 2, i:i + 2] for i in range(0, len(x), 2)]


@pytest.mark.parametrize(("n", "x0"), [(2, [-1.2, 1.0]), (10, np.zeros(10))])
@pytest.mark.parametrize("part", ["diagonal", "differences", "pairs"])
def test_rosenbrock_reaches_the_minimum(n, x0, part):
    kwargs = {
        "diagonal": {"hess_part": _rosenbrock_diagonal},
        "differences": {},
        "pairs": {"hess_part": _rosenbrock_pairs, "blocks": [[i, i + 1] for i in range(0, n, 2)]},
    }[part]
    result = quasi_newton_partial(rosenbrock, x0, rosenbrock_grad, tol=1e-10, ftol=1e-15, **kwargs)
    assert result.success and result.grad_norm <= 1e-6
    np.testing.assert_allclose(result.x, np.ones(n), atol=1e-7)
    values = [entry["f"] for entry in result.history]
    assert all(b <= a for a, b in zip(values, values[1:]))  # Wolfe steps never increase f


def test_the_diagonal_alone_without_pairs_is_the_notes_exercise():
    # 002 Ex. 4.3(b): Newton on the diagonal of the Hessian gets there slowly; the pairs fix that.
    alone = quasi_newton_partial(rosenbrock, [-1.2, 1.0], rosenbrock_grad, _rosenbrock_diagonal, memory=0,
                                 max_iter=20_000, tol=1e-10)
    completed = quasi_newton_partial(rosenbrock, [-1.2, 1.0], rosenbrock_grad, _rosenbrock_diagonal, tol=1e-10)
    np.testing.assert_allclose(alone.x, [1.0, 1.0], atol=1e-3)
    assert completed.n_iter * 20 < alone.n_iter


def test_the_diagonal_helps_lbfgs_on_a_badly_scaled_problem():
    # Curvatures spread over six decades with weak coupling: P⁻¹ takes out the scaling L-BFGS must learn.
    rng = np.random.default_rng(3)
    n = 30
    scale = np.logspace(0, 6, n)
    C = rng.normal(size=(n, n)) * 0.05
    Q = np.diag(scale) + np.sqrt(np.outer(scale, scale)) * (C @ C.T) / n
    b = rng.normal(size=n)
    f, g = (lambda x: 0.5 * x @ Q @ x - b @ x), (lambda x: Q @ x - b)
    partial = quasi_newton_partial(f, np.zeros(n), g, lambda x: np.diag(Q), tol=1e-9, ftol=1e-16)
    plain = lbfgs(f, np.zeros(n), g, tol=1e-9, ftol=1e-16)
    np.testing.assert_allclose(partial.x, np.linalg.solve(Q, b), rtol=1e-5, atol=1e-9)
    assert partial.n_iter < plain.n_iter / 3, (partial.n_iter, plain.n_iter)


def _logistic_problem():
    X, y = load_breast_cancer(return_X_y=True)
    X = np.c_[StandardScaler().fit_transform(X), np.ones(len(X))]
    t = 2.0 * y - 1

    def f(w):
        return float(np.mean(np.logaddexp(0, -t * (X @ w))) + 0.05 * w[:-1] @ w[:-1])

    def g(w):
        weights = -t / (1 + np.exp(t * (X @ w)))
        return X.T @ weights / len(X) + 0.1 * np.r_[w[:-1], 0.0]

    def diag(w):
        p = 1 / (1 + np.exp(-(X @ w)))
        return (X**2).T @ (p * (1 - p)) / len(X) + 0.1 * np.r_[np.ones(len(w) - 1), 0.0]

    return f, g, diag, np.zeros(X.shape[1])


def _quartic_problem():
    A = np.random.default_rng(4).normal(size=(8, 5))
    b = np.arange(8.0)

    def f(x):
        return float(np.sum((x - np.arange(5)) ** 4) + np.sum((A @ x - b) ** 2))

    def g(x):
        return 4 * (x - np.arange(5)) ** 3 + 2 * A.T @ (A @ x - b)

    def diag(x):
        return 12 * (x - np.arange(5)) ** 2 + 2 * np.sum(A**2, axis=0)

    return f, g, diag, np.zeros(5)


@pytest.mark.parametrize("problem", ["logistic", "quartic", "rosenbrock"])
def test_agrees_with_scipy_minimize(problem):
    f, g, diag, x0 = {
        "logistic": _logistic_problem,
        "quartic": _quartic_problem,
        "rosenbrock": lambda: (rosenbrock, rosenbrock_grad, _rosenbrock_diagonal, np.full(6, -0.5)),
    }[problem]()
    ours = quasi_newton_partial(f, x0, g, diag, tol=1e-9, ftol=1e-15)
    reference = minimize(f, x0, jac=g, method="BFGS", options={"gtol": 1e-9, "maxiter": 10_000})
    assert ours.success
    assert ours.fun == pytest.approx(reference.fun, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(ours.x, reference.x, rtol=1e-5, atol=1e-6)


def test_max_iter_warns_and_reports_failure():
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        result = quasi_newton_partial(rosenbrock, [-1.2, 1.0], rosenbrock_grad, _rosenbrock_diagonal, max_iter=3)
    assert not result.success and result.n_iter == 3 and "max_iter" in result.message


def test_an_indefinite_block_is_made_positive_definite():
    # f = x⁴ − x² + y²: at x = 0.1 the curvature in x is negative; the step must still descend.
    f = lambda v: float(v[0] ** 4 - v[0] ** 2 + v[1] ** 2)  # noqa: E731
    g = lambda v: np.array([4 * v[0] ** 3 - 2 * v[0], 2 * v[1]])  # noqa: E731
    h = lambda v: [np.array([[12 * v[0] ** 2 - 2, 0.0], [0.0, 2.0]])]  # noqa: E731
    result = quasi_newton_partial(f, [0.1, 1.0], g, h, blocks=[[0, 1]])
    np.testing.assert_allclose(np.abs(result.x), [np.sqrt(0.5), 0.0], atol=1e-6)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"blocks": [[0, 1], [1, 2]]}, "exactly one group"),
    ({"blocks": [[0], [1]]}, "exactly one group"),
    ({"blocks": [[0, 1, 2], []]}, "non-empty"),
    ({"memory": -1}, "memory"),
    ({"hess_part": lambda x: np.ones(2)}, r"shape \(3,\)"),
    ({"hess_part": lambda x: np.full(3, np.nan)}, "NaN"),
    ({"hess_part": lambda x: [np.eye(2)], "blocks": [[0, 1], [2]]}, "one matrix per block"),
    ({"hess_part": lambda x: [np.eye(2), np.eye(2)], "blocks": [[0, 1], [2]]}, "1×1"),
])
def test_bad_arguments_are_named(kwargs, match):
    f, g = (lambda x: float(x @ x)), (lambda x: 2 * x)
    with pytest.raises(ValueError, match=match):
        quasi_newton_partial(f, np.ones(3), g, **kwargs)
    with pytest.raises(ValueError, match="x0"):
        quasi_newton_partial(f, [np.nan, 1.0], g)
    with pytest.raises(ValueError, match="need hess_part"):
        quasi_newton_partial(f, np.ones(2), g, blocks=[[0], [1]])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), memory=st.integers(1, 5))
def test_convex_problems_decrease_monotonically_to_the_minimizer(seed, memory):
    """Property: on f = ½xᵀQx − bᵀx + ¼Σxᵢ⁴ (strictly convex) f decreases every iteration and the
    stationary point is reached, whatever the memory and with only the diagonal known (memory=0, the
    diagonal alone, also descends but may need thousands of iterations on these coupled problems)."""
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(4, 4))
    Q, b = M @ M.T + 0.1 * np.eye(4), rng.normal(size=4)
    f = lambda x: float(0.5 * x @ Q @ x - b @ x + 0.25 * np.sum(x**4))  # noqa: E731
    g = lambda x: Q @ x - b + x**3  # noqa: E731
    result = quasi_newton_partial(f, np.zeros(4), g, lambda x: np.diag(Q) + 3 * x**2, memory=memory,
                                  max_iter=2000, tol=1e-6, ftol=0)  # ‖∇f‖ ≈ 1e-8 is round-off level for f ≈ 1
    values = [f(np.zeros(4))] + [entry["f"] for entry in result.history]
    assert all(b <= a for a, b in zip(values, values[1:]))
    assert result.success and result.grad_norm <= 1e-6
    np.testing.assert_allclose(scipy.linalg.norm(g(result.x), np.inf), result.grad_norm)
