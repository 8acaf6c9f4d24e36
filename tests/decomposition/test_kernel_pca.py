"""KernelPCA against scikit-learn (rbf, poly, linear, precomputed), centring of new points, bad input."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.decomposition import PCA as SkPCA
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import StandardScaler

from lucidml.decomposition.kernel_pca import KernelPCA

from ..memory import traced_peak

X = StandardScaler().fit_transform(load_wine().data)
X_NEW = StandardScaler().fit_transform(load_breast_cancer().data)[:25, :13]  # other points, same dimension


@pytest.mark.parametrize("kernel, params", [("rbf", {"gamma": 0.1}), ("rbf", {}), ("poly", {"degree": 2, "gamma": 0.1}),
                                            ("sigmoid", {"gamma": 0.01})])
@pytest.mark.parametrize("solver", ["dense", "arpack", "randomized"])
def test_matches_sklearn(kernel, params, solver):
    ours = KernelPCA(5, kernel=kernel, eigen_solver=solver, iterated_power=30, random_state=0, **params).fit(X)
    ref = SkKernelPCA(5, kernel=kernel, eigen_solver="dense", **params).fit(X)
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    # same sign rule as scikit-learn: equal, not only up to sign
    np.testing.assert_allclose(ours.eigenvectors_, ref.eigenvectors_, atol=1e-10)
    np.testing.assert_allclose(ours.transform(X_NEW), ref.transform(X_NEW), atol=1e-9)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear", "laplacian"])
def test_fit_transform_equals_transform(kernel):
    kpca = KernelPCA(4, kernel=kernel, gamma=0.05)
    Z = kpca.fit_transform(X)
    np.testing.assert_allclose(Z, kpca.transform(X), atol=1e-9)


def test_linear_kernel_is_pca():
    """With k(x, z) = xᵀz, the centred Gram matrix gives PCA's scores and μⱼ = (m − 1)λⱼ."""
    kpca = KernelPCA(3, kernel="linear").fit(X)
    pca = SkPCA(3).fit(X)
    np.testing.assert_allclose(kpca.eigenvalues_, pca.explained_variance_ * (len(X) - 1), rtol=1e-10)
    np.testing.assert_allclose(np.abs(kpca.transform(X_NEW)), np.abs(pca.transform(X_NEW)), atol=1e-9)


def test_new_points_are_centred():
    """The notes never centre new kernel rows: without it a shifted kernel would shift the scores."""
    shifted = KernelPCA(3, kernel="precomputed").fit(rbf_kernel(X, gamma=0.1) + 5.0)
    plain = KernelPCA(3, kernel="precomputed").fit(rbf_kernel(X, gamma=0.1))
    K_new = rbf_kernel(X_NEW, X, gamma=0.1)
    np.testing.assert_allclose(shifted.transform(K_new + 5.0), plain.transform(K_new), atol=1e-9)


def test_precomputed_matches_kernel():
    ours = KernelPCA(4, kernel="precomputed").fit(rbf_kernel(X, gamma=0.1))
    ref = KernelPCA(4, kernel="rbf", gamma=0.1).fit(X)
    np.testing.assert_allclose(ours.transform(rbf_kernel(X_NEW, X, gamma=0.1)), ref.transform(X_NEW), atol=1e-10)


def test_all_components_drop_zero_eigenvalues():
    ours = KernelPCA(kernel="linear").fit(X)  # rank ≤ 13 after centring
    ref = SkKernelPCA(kernel="linear").fit(X)
    assert ours.eigenvalues_.shape == ref.eigenvalues_.shape == (13,)
    assert np.all(ours.eigenvalues_ > 0)


def test_inverse_transform_matches_sklearn():
    ours = KernelPCA(4, kernel="rbf", gamma=0.1, fit_inverse_transform=True, alpha=0.1).fit(X)
    ref = SkKernelPCA(4, kernel="rbf", gamma=0.1, fit_inverse_transform=True, alpha=0.1).fit(X)
    np.testing.assert_allclose(ours.inverse_transform(ours.transform(X_NEW)),
                               ref.inverse_transform(ref.transform(X_NEW)), atol=1e-8)


@pytest.mark.parametrize("solver", ["dense", "arpack", "randomized"])
def test_extreme_magnitudes(solver):
    X = StandardScaler().fit_transform(load_wine().data)
    # Near 1e300 the RBF kernel came out NaN: the dense solver dropped every component, the others raised.
    with pytest.raises(ValueError, match="magnitude"):
        KernelPCA(3, kernel="rbf", eigen_solver=solver, random_state=0).fit(X * 1e300)
    # Near 1e-300 every RBF value is 1 and the centred kernel exactly 0: no variance (ARPACK raised).
    Z = KernelPCA(3, kernel="rbf", eigen_solver=solver, random_state=0).fit(X * 1e-300).transform(X * 1e-300)
    np.testing.assert_array_equal(Z, 0.0)


def test_bad_input():
    with pytest.raises(ValueError, match="square"):
        KernelPCA(kernel="precomputed").fit(X)
    with pytest.raises(ValueError, match="precomputed"):
        KernelPCA(kernel="precomputed", fit_inverse_transform=True).fit(rbf_kernel(X))
    with pytest.raises(ValueError, match="NaN"):
        KernelPCA(2).fit(np.where(X > 2, np.nan, X))
    with pytest.raises(ValueError, match="kernel"):
        KernelPCA(2, kernel="gaussian").fit(X)
    with pytest.raises(ValueError, match="features"):
        KernelPCA(2).fit(X).transform(X[:, :5])
    # Without fit_inverse_transform the method does not exist (so hasattr() tells the truth).
    assert not hasattr(KernelPCA(2).fit(X), "inverse_transform")
    with pytest.raises(AttributeError):
        KernelPCA(2).fit(X).inverse_transform(np.ones((2, 2)))


@pytest.mark.parametrize("solver", ["dense", "arpack", "randomized"])
def test_float32_is_kept(solver):
    """float32 X: K, the fitted arrays, scores and pre-images are float32 (not promoted), and close to
    the float64 fit's."""
    params = {"kernel": "rbf", "gamma": 0.1, "eigen_solver": solver, "iterated_power": 30, "random_state": 0,
              "fit_inverse_transform": True, "alpha": 0.1}
    ref = KernelPCA(4, **params).fit(X)
    ours = KernelPCA(4, **params).fit(X.astype(np.float32))
    for name in ("eigenvalues_", "eigenvectors_", "dual_coef_", "X_transformed_fit_", "X_fit_"):
        assert getattr(ours, name).dtype == np.float32, name
    Z = ours.transform(X_NEW.astype(np.float32))
    back = ours.inverse_transform(Z)
    assert Z.dtype == back.dtype == ours.fit_transform(X.astype(np.float32)).dtype == np.float32
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-5)
    np.testing.assert_allclose(ours.eigenvectors_, ref.eigenvectors_, atol=1e-5)
    np.testing.assert_allclose(Z, ref.transform(X_NEW), atol=1e-5)
    np.testing.assert_allclose(back, ref.inverse_transform(ref.transform(X_NEW)), atol=1e-4)
    K = rbf_kernel(X, gamma=0.1).astype(np.float32)
    pre = KernelPCA(4, kernel="precomputed", eigen_solver=solver, random_state=0).fit(K)
    assert pre.eigenvectors_.dtype == pre.transform(K[:5]).dtype == np.float32


def test_a_gram_matrix_beyond_memory_is_refused_before_it_is_formed():
    with pytest.raises(ValueError, match=r"2000000 × 2000000 .*kernel matrix.*subsample"):
        KernelPCA(n_components=2).fit(np.zeros((2_000_000, 1)))


def test_transform_holds_a_block_of_the_kernel_not_all_of_it():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3))
    model = KernelPCA(n_components=3, kernel="rbf", gamma=0.5).fit(X)
    X_new = rng.normal(size=(20_000, 3))
    blocked, peak = traced_peak(lambda: model.transform(X_new))
    assert peak < 30 * 2**20, f"transform peaked at {peak / 2**20:.0f} MiB"
    reference = SkKernelPCA(n_components=3, kernel="rbf", gamma=0.5).fit(X).transform(X_new)
    np.testing.assert_allclose(np.abs(blocked), np.abs(reference), rtol=1e-7, atol=1e-9)


def test_float32_keeps_the_eigenvalues_it_resolves_and_warns_of_the_others():
    """Raw breast cancer's linear kernel: its 6th and 7th eigenvalues are 7e-6 and 4e-6 of the first.
    A float32 fit zeroed them silently (cut at 1e-5 of the largest); it resolves them to about 1%, and
    zeroes only what lies under 1e-6 of the largest (the 8th to 10th, which scikit-learn's float32
    fit returns 1.0, 2.4 and 2.4 times too large), with a warning."""
    X = load_breast_cancer(return_X_y=True)[0].astype(np.float32)
    double = KernelPCA(n_components=10, kernel="linear").fit(X.astype(np.float64))
    with pytest.warns(UserWarning, match="3 of the 10 eigenvalues"):
        single = KernelPCA(n_components=10, kernel="linear").fit(X)
    np.testing.assert_allclose(single.eigenvalues_[:7], double.eigenvalues_[:7], rtol=0.02)
    assert np.all(single.eigenvalues_[7:] == 0)
    Z = single.transform(X)
    assert np.all(np.abs(Z[:, :7]).max(axis=0) > 0) and np.all(Z[:, 7:] == 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KernelPCA(n_components=7, kernel="linear").fit(X)  # all resolved: no warning
