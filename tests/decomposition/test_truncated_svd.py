"""TruncatedSVD against SciPy's svds, LAPACK and scikit-learn; sparse input; bad input."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spl
from sklearn.datasets import load_digits
from sklearn.decomposition import TruncatedSVD as SkTruncatedSVD

from lucidml.decomposition.truncated_svd import TruncatedSVD

X_SPARSE = sp.random(600, 200, density=0.05, random_state=0, format="csr")
# a matrix with a decaying spectrum, so that the randomized solver is accurate to 1e-8
RNG = np.random.RandomState(0)
U0, _ = np.linalg.qr(RNG.standard_normal((400, 60)))
V0, _ = np.linalg.qr(RNG.standard_normal((120, 60)))
X_DECAY = (U0 * 0.7 ** np.arange(60)) @ V0.T


@pytest.mark.parametrize("algorithm", ["randomized", "arpack", "full"])
def test_matches_lapack_on_a_decaying_spectrum(algorithm):
    _, s, Vt = np.linalg.svd(X_DECAY, full_matrices=False)
    svd = TruncatedSVD(8, algorithm=algorithm, random_state=0).fit(X_DECAY)
    np.testing.assert_allclose(svd.singular_values_, s[:8], rtol=1e-10)
    np.testing.assert_allclose(np.abs(svd.components_ @ Vt[:8].T), np.eye(8), atol=1e-8)


@pytest.mark.parametrize("sparse", [False, True])
def test_arpack_on_extreme_magnitudes_scales_exactly(sparse):
    # ARPACK's norms overflow near 1e300 and underflow ("starting vector is zero") near 1e-300: X·2⁻ᵉ.
    make = sp.csr_matrix if sparse else np.asarray
    expected = TruncatedSVD(4, algorithm="arpack", random_state=0).fit(make(X_DECAY))
    for scale in (2.0**1000, 2.0**-1000):
        svd = TruncatedSVD(4, algorithm="arpack", random_state=0).fit(make(X_DECAY * scale))
        np.testing.assert_allclose(svd.singular_values_, expected.singular_values_ * scale, rtol=1e-12)
        np.testing.assert_allclose(svd.components_, expected.components_, atol=1e-10)


@pytest.mark.parametrize("sparse", [False, True])
def test_explained_variance_ratios_hold_at_any_scale(sparse):
    # Computed on X · 2⁻ᵉ: at 1e-300 they were 0 (the variances underflowed), at 1e300 NaN, and for
    # a subnormal X the scale itself was infinite.
    make = sp.csr_matrix if sparse else np.asarray
    expected = TruncatedSVD(3, random_state=0).fit(make(X_DECAY)).explained_variance_ratio_
    for scale in (1e-300, 1e-310, 1e300):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # (at 1e300 the variances themselves overflow)
            svd = TruncatedSVD(3, random_state=0).fit(make(X_DECAY * scale))
        np.testing.assert_allclose(svd.explained_variance_ratio_, expected, rtol=1e-5)  # (the randomized solver)
        assert np.all(np.isfinite(svd.explained_variance_)) == (scale < 1)
    with pytest.warns(UserWarning, match="explained variances exceed float64's range"):
        TruncatedSVD(3, random_state=0).fit(make(X_DECAY * 1e300))


@pytest.mark.parametrize("algorithm", ["randomized", "arpack"])
def test_sparse_matches_scipy_svds(algorithm):
    _, s, Vt = spl.svds(X_SPARSE, k=6, solver="arpack", random_state=0)
    order = np.argsort(s)[::-1]
    svd = TruncatedSVD(6, algorithm=algorithm, n_iter=50, random_state=0).fit(X_SPARSE)
    np.testing.assert_allclose(svd.singular_values_, s[order], rtol=1e-6)
    np.testing.assert_allclose(np.abs(svd.components_ @ Vt[order].T), np.eye(6), atol=1e-3)


@pytest.mark.parametrize("algorithm", ["randomized", "arpack"])
def test_attributes_equal_sklearn(algorithm):
    X = load_digits().data
    ours = TruncatedSVD(5, algorithm=algorithm, random_state=0).fit(X)
    ref = SkTruncatedSVD(5, algorithm=algorithm, random_state=0).fit(X)
    np.testing.assert_allclose(ours.components_, ref.components_, atol=1e-8)  # same sign rule
    np.testing.assert_allclose(ours.singular_values_, ref.singular_values_, rtol=1e-10)
    np.testing.assert_allclose(ours.explained_variance_, ref.explained_variance_, rtol=1e-8)
    np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-8)


def test_no_centring_and_scores():
    svd = TruncatedSVD(3, algorithm="full").fit(X_DECAY)
    Z = svd.transform(X_DECAY)
    U, s, _ = np.linalg.svd(X_DECAY, full_matrices=False)
    np.testing.assert_allclose(np.abs(Z), np.abs(U[:, :3] * s[:3]), atol=1e-12)  # U_k Σ_k
    np.testing.assert_allclose(svd.fit_transform(X_DECAY), Z, atol=1e-12)
    # inverse_transform gives the Eckart–Young best rank-3 approximation
    assert np.isclose(np.linalg.norm(X_DECAY - svd.inverse_transform(Z), 2), s[3], rtol=1e-10)


def test_sparse_and_dense_give_the_same_model():
    a = TruncatedSVD(4, random_state=0).fit(X_SPARSE)
    b = TruncatedSVD(4, random_state=0).fit(X_SPARSE.toarray())
    np.testing.assert_allclose(a.components_, b.components_, atol=1e-10)
    np.testing.assert_allclose(a.transform(X_SPARSE), b.transform(X_SPARSE.toarray()), atol=1e-10)


def test_bad_input():
    with pytest.raises(ValueError, match="n_features=200"):
        TruncatedSVD(201).fit(X_SPARSE)
    with pytest.raises(ValueError, match="arpack"):
        TruncatedSVD(200, algorithm="arpack").fit(X_SPARSE)
    with pytest.raises(TypeError, match="dense"):
        TruncatedSVD(2, algorithm="full").fit(X_SPARSE)
    with pytest.raises(ValueError, match="NaN"):
        TruncatedSVD(2).fit(np.array([[1.0, np.nan, 2.0], [1.0, 2.0, 3.0], [0.0, 1.0, 1.0]]))


def test_sparse_columns_far_from_zero_give_the_dense_variance_ratios():
    """The total variance of a sparse X of 1e8 + noise came from E[x²] − μ², which cancelled: ratios
    0.0502 for 0.0532. Now those of the dense X and of scikit-learn."""
    rng = np.random.default_rng(0)
    D = rng.standard_normal((300, 20)) * np.linspace(1, 3, 20) + 1e8
    ours = TruncatedSVD(3, algorithm="arpack", random_state=0).fit(sp.csr_matrix(D))
    theirs = SkTruncatedSVD(3, algorithm="arpack", random_state=0).fit(sp.csr_matrix(D))
    np.testing.assert_allclose(ours.explained_variance_ratio_, theirs.explained_variance_ratio_, rtol=1e-7)
    np.testing.assert_allclose(ours.explained_variance_ratio_,
                               TruncatedSVD(3, algorithm="arpack", random_state=0).fit(D).explained_variance_ratio_,
                               rtol=1e-7)
