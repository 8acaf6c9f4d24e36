"""Kernel functions: scikit-learn oracles, explicit feature maps, numerical safety, bad input."""

import itertools

import numpy as np
import pytest
from sklearn.metrics import pairwise as skp

from lucidml.kernels.functions import (
    exponential_kernel,
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
    subset_product_kernel,
    sum_of_powers_kernel,
)

rng = np.random.default_rng(0)
X = rng.normal(size=(30, 4))
Y = rng.normal(size=(20, 4))


@pytest.mark.parametrize("ours, theirs, params", [
    (linear_kernel, skp.linear_kernel, {}),
    (polynomial_kernel, skp.polynomial_kernel, {}),
    (polynomial_kernel, skp.polynomial_kernel, {"degree": 2, "gamma": 0.3, "coef0": 2.0}),
    (rbf_kernel, skp.rbf_kernel, {}),
    (rbf_kernel, skp.rbf_kernel, {"gamma": 0.7}),
    (sigmoid_kernel, skp.sigmoid_kernel, {"gamma": 0.1, "coef0": -0.5}),
    (laplacian_kernel, skp.laplacian_kernel, {}),
    (laplacian_kernel, skp.laplacian_kernel, {"gamma": 0.3}),
])
@pytest.mark.parametrize("other", [None, Y])
def test_matches_sklearn(ours, theirs, params, other):
    np.testing.assert_allclose(ours(X, other, **params), theirs(X, other, **params), rtol=1e-12, atol=1e-12)


def test_sigma_parametrisations():
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(rbf_kernel(X, Y, sigma=1.5), np.exp(-d2 / (2 * 1.5**2)), rtol=1e-12)
    l1 = np.abs(X[:, None, :] - Y[None, :, :]).sum(-1)
    np.testing.assert_allclose(laplacian_kernel(X, Y, sigma=2.0), np.exp(-l1 / 2.0), rtol=1e-12)
    np.testing.assert_allclose(exponential_kernel(X, Y, sigma=0.8), np.exp(-np.sqrt(d2) / (2 * 0.8**2)), rtol=1e-12)


def test_default_gamma_is_one_over_n_features():
    np.testing.assert_allclose(exponential_kernel(X, Y), exponential_kernel(X, Y, gamma=0.25), rtol=1e-15)


def _quadratic_map(x, c=0.0):
    """Explicit φ with φ(x)ᵀφ(z) = (xᵀz + c)²: all xᵢxⱼ, then √(2c)xᵢ, then c (000 §6.5, 002 (5.62))."""
    feats = [x[i] * x[j] for i in range(len(x)) for j in range(len(x))]
    feats += [np.sqrt(2 * c) * xi for xi in x]
    return np.array([*feats, c])


@pytest.mark.parametrize("c", [0.0, 1.0, 2.5])
def test_quadratic_kernel_equals_explicit_map(c):
    Phi_x = np.array([_quadratic_map(x, c) for x in X[:6]])
    Phi_y = np.array([_quadratic_map(z, c) for z in Y[:5]])
    K = polynomial_kernel(X[:6], Y[:5], degree=2, gamma=1.0, coef0=c)
    np.testing.assert_allclose(K, Phi_x @ Phi_y.T, rtol=1e-10)


def _subset_map(x):
    d = len(x)
    return np.array([np.prod(x[list(A)]) for r in range(d + 1) for A in itertools.combinations(range(d), r)])


def test_subset_product_equals_explicit_monomial_map():
    A, B = rng.normal(size=(7, 5)), rng.normal(size=(6, 5))
    Phi_a = np.array([_subset_map(a) for a in A])
    assert Phi_a.shape[1] == 2**5
    Phi_b = np.array([_subset_map(b) for b in B])
    np.testing.assert_allclose(subset_product_kernel(A, B), Phi_a @ Phi_b.T, rtol=1e-10, atol=1e-12)


def test_subset_product_sign_zero_and_no_overflow():
    a = np.array([[-2.0, 1.0, 3.0]])
    b = np.array([[1.0, 1.0, 1.0], [0.5, -1.0, 0.0]])
    np.testing.assert_allclose(subset_product_kernel(a, b), [[-1.0 * 2.0 * 4.0, 0.0]], atol=1e-14)
    small = np.full((1, 400), 0.1)
    np.testing.assert_allclose(subset_product_kernel(small, -small), (1 - 0.01) ** 400, rtol=1e-12)


def test_sum_of_powers():
    T = X @ Y.T
    np.testing.assert_allclose(sum_of_powers_kernel(X, Y, degree=3), 1 + T + T**2 + T**3, rtol=1e-12)
    np.testing.assert_allclose(sum_of_powers_kernel(X, Y, degree=0), np.ones_like(T))


def test_rbf_clips_and_is_exactly_one_on_diagonal():
    Z = np.full((5, 3), 1e8) + rng.normal(size=(5, 3)) * 1e-4  # catastrophic cancellation in ‖x‖²+‖z‖²−2xᵀz
    K = rbf_kernel(Z, gamma=1.0)
    assert np.all(K <= 1.0)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)


@pytest.mark.parametrize("func", [linear_kernel, rbf_kernel, laplacian_kernel, subset_product_kernel])
def test_bad_input(func):
    with pytest.raises(ValueError, match="features"):
        func(X, Y[:, :3])
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        func(bad)


def test_bad_parameters():
    with pytest.raises(ValueError, match="gamma or sigma"):
        rbf_kernel(X, gamma=1.0, sigma=1.0)
    with pytest.raises(ValueError, match="sigma"):
        rbf_kernel(X, sigma=0.0)
    with pytest.raises(ValueError, match="degree"):
        sum_of_powers_kernel(X, degree=1.5)


@pytest.mark.parametrize("func", [linear_kernel, polynomial_kernel, rbf_kernel, sigmoid_kernel, laplacian_kernel,
                                  exponential_kernel, subset_product_kernel, sum_of_powers_kernel])
def test_float32_in_float32_out(func):
    """float32 X and Y give a float32 K close to the float64 one; the distance kernels stay accurate
    far from the origin (computed in float64 by blocks: 600 rows cross the 512-row blocks), and
    K(X) stays exactly symmetric. Mixed precisions give float64."""
    rows = np.random.default_rng(1).normal(size=(600, 4)) / 4 + 20.0
    X32, Y32 = rows.astype(np.float32), rows[:70].astype(np.float32)
    for other32 in (None, Y32):
        other64 = None if other32 is None else other32.astype(np.float64)
        K = func(X32, other32)
        assert K.dtype == np.float32
        np.testing.assert_allclose(K, func(X32.astype(np.float64), other64), rtol=5e-6, atol=1e-7)
    K = func(X32)
    assert np.array_equal(K, K.T)
    assert func(X32, Y32.astype(np.float64)).dtype == np.float64
