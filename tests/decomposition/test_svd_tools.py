"""SVD helpers: the worked examples of 002 §7.2 and the properties the notes state."""

import numpy as np
import pytest

from lucidml.decomposition.svd_tools import (
    cond2,
    low_rank_approximation,
    numerical_rank,
    pinv,
)

# 002 Example 7.19: A = [[1, 2], [-2, 1], [3, 2]], AᵀA = [[14, 6], [6, 9]], λ = 18, 5
A = np.array([[1.0, 2.0], [-2.0, 1.0], [3.0, 2.0]])
# 002 (7.46): third column = first + second, numerically rank 2
A_746 = np.array([[1 / 3, 1 / 3, 2 / 3], [2 / 3, 2 / 3, 4 / 3], [1 / 3, 2 / 3, 3 / 3], [2 / 5, 2 / 5, 4 / 5],
                  [3 / 5, 1 / 5, 4 / 5]])


def test_example_7_19_singular_values_and_vectors():
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    np.testing.assert_allclose(s, [np.sqrt(18), np.sqrt(5)], rtol=1e-14)
    v1, v2 = np.array([3.0, 2.0]) / np.sqrt(13), np.array([-2.0, 3.0]) / np.sqrt(13)
    u1, u2 = np.array([7.0, -4.0, 13.0]) / np.sqrt(234), np.array([4.0, 7.0, 0.0]) / np.sqrt(65)
    np.testing.assert_allclose(np.abs(Vt @ np.c_[v1, v2]), np.eye(2), atol=1e-14)
    np.testing.assert_allclose(np.abs(U.T @ np.c_[u1, u2]), np.eye(2), atol=1e-14)
    # the rank-2 "approximation" of a rank-2 matrix is the matrix itself, (7.32)
    np.testing.assert_allclose(low_rank_approximation(A, 2), A, atol=1e-14)


def test_example_7_20_pseudoinverse():
    expected = np.array([[-1 / 30, -4 / 15, 1 / 6], [11 / 45, 13 / 45, 1 / 9]])
    np.testing.assert_allclose(pinv(A), expected, atol=1e-15)
    np.testing.assert_allclose(pinv(A), np.linalg.solve(A.T @ A, A.T), atol=1e-14)  # (AᵀA)⁻¹Aᵀ, (7.39)


def test_numerical_rank_of_7_46_and_its_threshold():
    assert numerical_rank(A_746) == 2
    s = np.linalg.svd(A_746, compute_uv=False)
    np.testing.assert_allclose(s[:2], [2.5987, 0.3682], atol=1e-4)  # the notes' printed values
    T = 2 * 5 * np.finfo(float).eps * s[0]
    assert np.isclose(T, 5.7702e-15, rtol=1e-4)  # (7.48) for this matrix
    assert numerical_rank(A_746, tol=s[1] * 1.01) == 1
    assert numerical_rank(A_746, tol=0.0) == 3  # σ₃ ≈ 1e-16 > 0 counts without a threshold


def test_eckart_young_errors():
    rng = np.random.RandomState(0)
    M = rng.standard_normal((30, 12))
    s = np.linalg.svd(M, compute_uv=False)
    for k in (1, 4, 11):
        E = M - low_rank_approximation(M, k)
        assert np.isclose(np.linalg.norm(E, 2), s[k], rtol=1e-12)  # (7.40), 2-norm
        assert np.isclose(np.linalg.norm(E, "fro") ** 2, (s[k:] ** 2).sum(), rtol=1e-12)
        assert numerical_rank(low_rank_approximation(M, k)) == k


def test_pinv_matches_numpy_and_the_penrose_conditions():
    rng = np.random.RandomState(1)
    M = rng.standard_normal((8, 5)) @ rng.standard_normal((5, 9))  # 8 × 9, rank 5
    P = pinv(M)
    np.testing.assert_allclose(P, np.linalg.pinv(M), atol=1e-12)
    np.testing.assert_allclose(M @ P @ M, M, atol=1e-12)
    np.testing.assert_allclose(P @ M @ P, P, atol=1e-12)
    # A_k⁺ of the rank-k approximation, (7.42)
    np.testing.assert_allclose(pinv(M, k=2), np.linalg.pinv(low_rank_approximation(M, 2)), atol=1e-10)


def test_cond2():
    assert np.isclose(cond2(A), np.sqrt(18 / 5), rtol=1e-14)
    assert np.isclose(cond2(np.diag([1.0, 1e-8])), 1e8)
    assert cond2(np.array([[1.0, 2.0], [2.0, 4.0]])) > 1e15  # singular: σ₂ is 0 or round-off
    assert cond2(np.zeros((2, 2)) + np.diag([1.0, 0.0])) == np.inf


def test_bad_input():
    with pytest.raises(ValueError, match="k must be"):
        low_rank_approximation(A, 3)
    with pytest.raises(ValueError, match="NaN"):
        numerical_rank(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="rcond"):
        pinv(A, rcond=-1.0)
    with pytest.raises(ValueError, match="tol"):
        numerical_rank(A, tol=-1.0)


def test_pinv_beyond_float64_and_a_nan_tolerance_are_refused():
    """pinv(1e-310·I) returned inf and NaN; numerical_rank(tol=nan) returned 0."""
    with pytest.raises(ValueError, match="overflows float64"):
        pinv(np.eye(2) * 1e-310)
    np.testing.assert_allclose(pinv(np.eye(2) * 1e-300), np.eye(2) * 1e300)
    with pytest.raises(ValueError, match="tol"):
        numerical_rank(np.eye(3), tol=np.nan)
