"""Minimization in diagonally rescaled variables, and the feature spreads that set the scales."""

import numpy as np
import pytest
import scipy.sparse

from lucidml.optim import lbfgs
from lucidml.optim.scaling import diagonally_scaled, linear_model_scales
from lucidml.utils.centered import column_spreads


def test_a_badly_scaled_quadratic_is_solved_in_scaled_variables():
    """f(x) = Σ cᵢ(xᵢ − 1)² with curvatures from 1e-8 to 1e8: L-BFGS on x stops short of the minimum
    (its gradient test reads the raw gradient), on u = √c ∘ x it lands on it; the result, its history
    and its x are in the original variables."""
    c = np.array([1e-8, 1.0, 1e8])
    fun = lambda x: float(np.sum(c * (x - 1.0) ** 2))  # noqa: E731
    grad = lambda x: 2.0 * c * (x - 1.0)  # noqa: E731
    run = lambda f, x0, g: lbfgs(f, x0, g, tol=1e-10)  # noqa: E731
    raw = run(fun, np.zeros(3), grad)
    assert abs(raw.x[0] - 1.0) > 1e-3  # stopped short along the flat coordinate
    scaled = diagonally_scaled(run, fun, grad, np.zeros(3), np.sqrt(c))
    np.testing.assert_allclose(scaled.x, 1.0, rtol=1e-8)
    assert all(np.allclose(entry["x"], scaled.x) for entry in scaled.history[-1:] if entry.get("x") is not None)
    identity = diagonally_scaled(run, fun, grad, np.zeros(3), np.ones(3))
    np.testing.assert_array_equal(identity.x, raw.x)


def test_linear_model_scales():
    d = linear_model_scales(np.array([2.0, 0.0, 3.0]), 0.0, True, n_vectors=2)
    np.testing.assert_array_equal(d, [2.0, 1.0, 3.0, 1.0] * 2)  # a constant feature without a penalty: 1
    np.testing.assert_allclose(linear_model_scales(np.array([0.0, 1.0]), 0.25, False), [0.5, np.sqrt(1.25)])


@pytest.mark.parametrize("layout", ["dense", "csr", "float32"])
def test_column_spreads_lose_no_digits_to_a_large_mean(layout):
    """Dense X is centred block by block: a mean of 1e7 beside a spread of 1 costs no digit. A sparse X
    stays sparse (its columns, half zeros here, have spreads of the order of their means)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 3)) * [1.0, 2.0, 0.5] + [1e7, 0.0, -3.0]
    if layout == "csr":
        X[rng.uniform(size=X.shape) < 0.5] = 0.0
    weights = rng.uniform(0.5, 2.0, 5000)
    data = {"dense": X, "csr": scipy.sparse.csr_matrix(X), "float32": X.astype(np.float32)}[layout]
    values = np.asarray(data.toarray() if layout == "csr" else data, dtype=np.float64)
    mean = np.average(values, axis=0, weights=weights)
    expected = np.sqrt(np.average((values - mean) ** 2, axis=0, weights=weights))
    np.testing.assert_allclose(column_spreads(data, mean, weights), expected, rtol=1e-10)
    np.testing.assert_allclose(column_spreads(data, np.zeros(3)), np.sqrt(np.mean(values**2, axis=0)), rtol=1e-10)


def test_column_spreads_keep_a_sparse_x_sparse(monkeypatch):
    """A sparse X's spreads come from its stored entries alone: no block of it is ever densified
    (200,000 × 5,000 at 0.01% would be 8 GB dense)."""
    from lucidml.utils import centered

    densified = []
    monkeypatch.setattr(centered, "centred_blocks", lambda *args: densified.append(args) or iter(()))
    rng = np.random.default_rng(0)
    rows, columns = rng.integers(0, 200_000, 100_000), rng.integers(0, 5_000, 100_000)
    X = scipy.sparse.csr_matrix((rng.normal(size=100_000), (rows, columns)), shape=(200_000, 5_000))
    weights = rng.uniform(0.5, 2.0, X.shape[0])
    mean = np.asarray(X.T @ weights).ravel() / weights.sum()
    spreads = column_spreads(X, mean, weights)
    assert densified == []
    squares = np.asarray(X.multiply(X).T @ weights).ravel() / weights.sum()
    np.testing.assert_allclose(spreads, np.sqrt(np.maximum(squares - mean**2, 0.0)), rtol=1e-7, atol=1e-12)
