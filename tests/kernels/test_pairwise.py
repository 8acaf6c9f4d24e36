"""pairwise_kernels dispatch and chunking, and the Mercer check."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.metrics.pairwise import pairwise_kernels as sk_pairwise_kernels
from threadpoolctl import threadpool_limits

import lucidml.kernels.pairwise as pw
from lucidml.kernels.functions import rbf_kernel
from lucidml.kernels.pairwise import KERNELS, check_kernel, pairwise_kernels


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense solves run faster on one BLAS thread on a shared 2-core machine (as in CI)."""
    with threadpool_limits(1):
        yield

X = load_iris().data
rng = np.random.default_rng(1)
A, B = rng.normal(size=(12, 3)), rng.normal(size=(9, 3))


@pytest.mark.parametrize("name, params", [("linear", {}), ("poly", {"degree": 2}), ("rbf", {"gamma": 0.5}),
                                          ("sigmoid", {"gamma": 0.01}), ("laplacian", {})])
def test_named_kernels_match_sklearn(name, params):
    np.testing.assert_allclose(pairwise_kernels(X, kernel=name, **params),
                               sk_pairwise_kernels(X, metric=name, **params), rtol=1e-12, atol=1e-12)


def test_every_name_dispatches():
    for name, func in KERNELS.items():
        np.testing.assert_array_equal(pairwise_kernels(A, B, kernel=name), func(A, B))


def test_chunked_equals_whole_and_is_symmetric(monkeypatch):
    whole = pairwise_kernels(X, kernel="rbf", gamma=0.3)
    monkeypatch.setattr(pw, "_CHUNK_ELEMENTS", 200)  # forces blocks of 1 row
    blocked = pairwise_kernels(X, kernel="rbf", gamma=0.3)
    np.testing.assert_allclose(blocked, whole, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(blocked, blocked.T)
    np.testing.assert_allclose(pairwise_kernels(X, X[:7], kernel="laplacian"),
                               sk_pairwise_kernels(X, X[:7], metric="laplacian"), rtol=1e-13)
    for kernel in ("rbf", "linear"):  # float32 stays float32 through the blocks
        single = pairwise_kernels(X.astype(np.float32), kernel=kernel)
        assert single.dtype == np.float32
        np.testing.assert_array_equal(single, single.T)
        np.testing.assert_allclose(single, pairwise_kernels(X.astype(np.float32).astype(np.float64), kernel=kernel),
                                   rtol=1e-5, atol=1e-6)


def test_matrix_callable_is_called_once():
    calls = []

    def gram(P, Q, scale=1.0):
        calls.append(P.shape)
        return scale * P @ Q.T

    K = pairwise_kernels(A, B, kernel=gram, scale=2.0)
    np.testing.assert_allclose(K, 2.0 * A @ B.T)
    assert calls[-1] == (12, 3)  # after the small probe, one call on the full X


def test_vector_callable_is_looped_with_warning():
    with pytest.warns(UserWarning, match="looped"):
        K = pairwise_kernels(A, kernel=lambda x, z: np.exp(-np.sum((x - z) ** 2)))
    np.testing.assert_allclose(K, rbf_kernel(A, gamma=1.0), rtol=1e-12)
    # np.dot on matrices of the probe's shape gives a (2, 3) block of wrong values: it must still loop
    with pytest.warns(UserWarning):
        K = pairwise_kernels(A, B, kernel=np.dot)
    np.testing.assert_allclose(K, A @ B.T, rtol=1e-12)


def test_precomputed_and_errors():
    K = A @ A.T
    np.testing.assert_array_equal(pairwise_kernels(K, kernel="precomputed"), K)
    with pytest.raises(ValueError, match="Unknown kernel"):
        pairwise_kernels(A, kernel="gaussian")
    with pytest.raises(ValueError, match="features"):
        pairwise_kernels(A, B[:, :2])
    with pytest.raises(TypeError, match="string or a callable"):
        pairwise_kernels(A, kernel=3)


def test_check_kernel_accepts_rbf_and_psd_kernels():
    for name in ("rbf", "linear", "poly", "laplacian", "subset_product"):
        report = check_kernel(name, X[::5])
        assert report.is_psd and report.symmetric and report["is_valid"], (name, report.message)


def test_check_kernel_rejects_constant_minus_one():
    with pytest.warns(UserWarning):
        report = check_kernel(lambda x, z: -1.0, X[:10])
    assert not report.is_psd
    assert report.min_eigenvalue == pytest.approx(-10.0)  # −11ᵀ has eigenvalue −n (000 §6.6)
    assert "positive semi-definite" in report.message


def test_check_kernel_rejects_sigmoid_on_iris():
    Xs = (X - X.mean(0)) / X.std(0)  # unscaled iris saturates tanh to a PSD all-ones matrix
    report = check_kernel("sigmoid", Xs, gamma=1.0, coef0=1.0)
    assert report.symmetric and not report.is_psd and report.min_eigenvalue < -1.0


def test_check_kernel_precomputed_matrix():
    assert check_kernel(np.eye(3)).as_dict()["is_valid"]
    report = check_kernel(np.array([[1.0, 2.0], [0.0, 1.0]]))
    assert not report.symmetric and "symmetric" in report.message
    with pytest.raises(ValueError, match="square"):
        check_kernel(np.ones((2, 3)))
    with pytest.raises(ValueError, match="sample X"):
        check_kernel("rbf")
