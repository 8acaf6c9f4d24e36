"""PCA: oracle tests against scikit-learn on real data, every solver; properties; bad input."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.decomposition import PCA as SkPCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from lucidml.decomposition import ICA, KernelPCA, TruncatedSVD
from lucidml.decomposition.pca import PCA

# n_components where the kept eigenvalues are well separated (digits has zero-variance pixels)
DATA = {"iris": (load_iris().data, 3), "wine": (load_wine().data, 10), "digits": (load_digits().data, 20)}
EXACT = ["full", "covariance_eigh", "randomized", "arpack"]


@pytest.mark.parametrize("name", DATA)
@pytest.mark.parametrize("solver", EXACT + ["deflation"])
def test_components_match_sklearn(name, solver):
    X, k = DATA[name]
    ref = SkPCA(k, svd_solver="full").fit(X)
    # enough power iterations that the randomized and deflation solvers converge
    pca = PCA(k, svd_solver=solver, random_state=0, iterated_power=40, max_iter=5000).fit(X)
    tol = 1e-6 if solver == "deflation" else 1e-8  # deflation stops at ‖Δw‖ ≤ 1e-10, error ≈ Δw/(1 − λ₂/λ₁)
    # same sign rule as scikit-learn: equal, not only up to sign
    np.testing.assert_allclose(pca.components_, ref.components_, atol=tol)
    np.testing.assert_allclose(pca.explained_variance_, ref.explained_variance_, rtol=1e-9)
    np.testing.assert_allclose(pca.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-9)
    np.testing.assert_allclose(pca.singular_values_, ref.singular_values_, rtol=1e-9)
    np.testing.assert_allclose(pca.noise_variance_, ref.noise_variance_, rtol=1e-6)
    np.testing.assert_allclose(pca.mean_, ref.mean_, rtol=1e-12)
    np.testing.assert_allclose(pca.transform(X), ref.transform(X), atol=1e-6 * np.abs(ref.transform(X)).max())


def test_default_auto_solver_choices():
    rng = np.random.RandomState(0)
    assert PCA(2).fit(rng.rand(200, 5))._fit_svd_solver == "covariance_eigh"  # tall
    assert PCA(2).fit(rng.rand(50, 40))._fit_svd_solver == "full"  # small
    assert PCA(5).fit(rng.rand(600, 200))._fit_svd_solver == "randomized"
    assert PCA(0.9).fit(rng.rand(600, 200))._fit_svd_solver == "full"


@pytest.mark.parametrize("solver", ["full", "covariance_eigh", "deflation"])
def test_float_n_components_matches_sklearn(solver):
    X = load_digits().data
    for ratio in (0.5, 0.8) if solver == "deflation" else (0.5, 0.8, 0.95):
        ref = SkPCA(ratio, svd_solver="full").fit(X)
        pca = PCA(ratio, svd_solver=solver, random_state=0, max_iter=5000, tol=1e-8).fit(X)
        assert pca.n_components_ == ref.n_components_
        assert pca.explained_variance_ratio_.sum() >= ratio
        assert pca.explained_variance_ratio_[:-1].sum() < ratio


def test_whiten_matches_sklearn_and_has_unit_variance():
    X = load_wine().data
    pca, ref = PCA(5, whiten=True).fit(X), SkPCA(5, whiten=True).fit(X)
    Z = pca.transform(X)
    np.testing.assert_allclose(Z, ref.transform(X), atol=1e-9)
    np.testing.assert_allclose(Z.var(axis=0, ddof=1), 1.0, rtol=1e-10)
    np.testing.assert_allclose(pca.inverse_transform(Z), ref.inverse_transform(ref.transform(X)), atol=1e-8)


@pytest.mark.parametrize("whiten", [False, True])
@pytest.mark.parametrize("standardize", [False, True])
def test_inverse_transform_round_trip_with_all_components(whiten, standardize):
    X = load_wine().data
    pca = PCA(whiten=whiten, standardize=standardize).fit(X)
    np.testing.assert_allclose(pca.inverse_transform(pca.transform(X)), X, rtol=1e-9, atol=1e-9)


def test_reconstruction_error_is_the_discarded_variance():
    X = load_iris().data
    pca = PCA(2).fit(X)
    residual = X - pca.inverse_transform(pca.transform(X))
    discarded = PCA().fit(X).explained_variance_[2:].sum()
    assert np.isclose((residual**2).sum() / (len(X) - 1), discarded, rtol=1e-10)


@pytest.mark.parametrize("solver", EXACT + ["deflation"])
def test_standardize_equals_pca_of_standardized_data(solver):
    X = load_wine().data
    ref = SkPCA(4).fit(StandardScaler().fit_transform(X))  # StandardScaler divides by the population σ
    pca = PCA(4, standardize=True, svd_solver=solver, random_state=0, iterated_power=30).fit(X)
    np.testing.assert_allclose(pca.components_, ref.components_, atol=1e-7)
    np.testing.assert_allclose(pca.transform(X), ref.transform(StandardScaler().fit_transform(X)), atol=1e-6)


def test_standardize_leaves_constant_features_alone():
    X = np.c_[load_iris().data, np.full(150, 7.0)]
    pca = PCA(standardize=True).fit(X)
    assert pca.scale_[-1] == 1.0
    assert np.all(np.isfinite(pca.components_))


def test_arpack_on_tiny_features_gives_the_scale_one_components():
    # ARPACK's start vector underflowed to "zero" near 1e-300; it now runs on X·2⁻ᵉ (exact).
    X = load_wine().data
    expected = PCA(3, svd_solver="arpack", random_state=0).fit(X)
    pca = PCA(3, svd_solver="arpack", random_state=0).fit(X * 2.0**-1000)
    np.testing.assert_allclose(pca.components_, expected.components_, atol=1e-10)
    np.testing.assert_allclose(pca.transform(X * 2.0**-1000), expected.transform(X) * 2.0**-1000, rtol=1e-8)


@pytest.mark.parametrize("solver", ["covariance_eigh", "randomized", "arpack", "deflation", "auto"])
def test_sparse_input_is_centred_implicitly(solver):
    S = sp.random(300, 40, density=0.1, random_state=0, format="csr")
    ref = SkPCA(5, svd_solver="full").fit(S.toarray())
    pca = PCA(5, svd_solver=solver, random_state=0, iterated_power=60).fit(S)
    np.testing.assert_allclose(np.abs(pca.components_ @ ref.components_.T), np.eye(5), atol=1e-6)
    np.testing.assert_allclose(pca.transform(S), pca.transform(S.toarray()), atol=1e-12)


def test_score_samples_is_the_probabilistic_pca_likelihood():
    X = load_digits().data
    pca, ref = PCA(10).fit(X), SkPCA(10).fit(X)
    np.testing.assert_allclose(pca.score_samples(X), ref.score_samples(X), rtol=1e-10)
    assert np.isclose(pca.score(X), ref.score(X), rtol=1e-12)
    X32 = X.astype(np.float32)  # float32 in, float32 scores out, as scikit-learn's; integers in, float64
    ours, theirs = PCA(10).fit(X32).score_samples(X32), SkPCA(10).fit(X32).score_samples(X32)
    assert ours.dtype == theirs.dtype == np.float32
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)
    assert PCA(10).fit(X.astype(int)).score_samples(X.astype(int)).dtype == np.float64


def test_fit_transform_equals_transform_and_signs_are_deterministic():
    X = load_wine().data
    a = PCA(3, svd_solver="randomized", random_state=1).fit(X)
    b = PCA(3, svd_solver="randomized", random_state=2).fit(X)
    np.testing.assert_allclose(a.components_, b.components_, atol=1e-8)
    np.testing.assert_allclose(a.fit_transform(X), a.transform(X), atol=1e-10)
    peak = np.abs(a.components_).argmax(axis=1)
    assert np.all(a.components_[np.arange(3), peak] > 0)


def test_principal_directions_are_orthonormal_and_variances_decrease():
    X = load_digits().data
    pca = PCA(15, svd_solver="deflation", random_state=0, max_iter=5000).fit(X)
    np.testing.assert_allclose(pca.components_ @ pca.components_.T, np.eye(15), atol=1e-10)
    assert np.all(np.diff(pca.explained_variance_) <= 0)


def test_deflation_warns_when_max_iter_is_too_small():
    X = load_digits().data
    with pytest.warns(ConvergenceWarning, match="deflation"):
        pca = PCA(20, svd_solver="deflation", max_iter=5, random_state=0).fit(X)
    assert pca.n_iter_ == 5


def test_deflation_converges_without_warning_on_iris():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        pca = PCA(4, svd_solver="deflation", random_state=0).fit(load_iris().data)
    assert 1 < pca.n_iter_ < 1000


def test_bad_input():
    X = load_iris().data
    with pytest.raises(ValueError, match="n_features=4"):
        PCA(5).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        PCA(2).fit(np.where(X > 7, np.nan, X))
    with pytest.raises(TypeError, match="dense"):
        PCA(2, svd_solver="full").fit(sp.csr_matrix(X))
    with pytest.raises(ValueError, match="whole spectrum"):
        PCA(0.9, svd_solver="randomized").fit(X)
    with pytest.raises(ValueError, match="arpack"):
        PCA(4, svd_solver="arpack").fit(X)
    with pytest.raises(ValueError, match="svd_solver"):
        PCA(2, svd_solver="eig").fit(X)
    with pytest.raises(ValueError, match="n_components"):
        PCA(1.5).fit(X)
    with pytest.raises(ValueError, match="shape"):
        PCA(2).fit(X).inverse_transform(np.ones((3, 3)))


def test_score_samples_of_rank_deficient_data_is_finite():
    # Redundant features: the noise variance is rounding noise beside the kept variances, where a
    # Cholesky factorization of the d × d covariance failed (LinAlgError).
    from sklearn.datasets import make_classification

    X, _ = make_classification(300, 12, n_informative=6, random_state=0)
    scores = PCA(n_components=10).fit(X).score_samples(X)
    assert scores.shape == (300,) and np.isfinite(scores).all()


@pytest.mark.parametrize("solver", ["covariance_eigh", "deflation"])
def test_covariance_solver_reads_overflow_off_the_covariance(solver):
    """The covariance solvers check magnitude only when the covariance overflows: features of 1e120
    or 1e-80 (finite covariance) give the unscaled fit's ratios; features of 1e300 are refused by
    name. (Deflation's ‖Cv‖ overflowed from X near 1e77, every ratio 0, and underflowed near 1e-80:
    ratios of random directions, without a warning.)"""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5)) * [5.0, 3.0, 2.0, 1.0, 0.5]
    plain = PCA(3, svd_solver=solver, random_state=0).fit(X)
    for scale in (1e120, 1e78, 1e-82):
        scaled = PCA(3, svd_solver=solver, random_state=0).fit(X * scale)
        np.testing.assert_allclose(scaled.explained_variance_ratio_, plain.explained_variance_ratio_, rtol=1e-8)
        np.testing.assert_allclose(scaled.explained_variance_, plain.explained_variance_ * scale**2, rtol=1e-8)
        np.testing.assert_allclose(np.abs(scaled.components_), np.abs(plain.components_), atol=1e-6)
    with pytest.raises(ValueError, match="magnitude"):
        PCA(3, svd_solver=solver).fit(X * 1e300)


@pytest.mark.parametrize("svd_solver", ["full", "covariance_eigh", "randomized", "arpack"])
def test_float32_fit_scores_samples_as_the_float64_fit(svd_solver):
    """Raw breast cancer, 10 components: σ² (0.0024) is 1e-8 of the largest variance. A float32
    solver gives the small eigenvalues only to about ε₃₂·λ₁, so σ² = total − Σλ came out up to 4.4
    times too large, and ‖z‖² − ‖t‖² with float32 components put the scores up to 58 nats off. σ² now
    comes from the residual of X itself and the scores from the residual of each row."""
    from sklearn.datasets import load_breast_cancer

    X = load_breast_cancer(return_X_y=True)[0].astype(np.float32)
    double = PCA(n_components=10, svd_solver=svd_solver, random_state=0).fit(X.astype(np.float64))
    single = PCA(n_components=10, svd_solver=svd_solver, random_state=0).fit(X)
    assert single.noise_variance_.dtype == np.float32
    np.testing.assert_allclose(single.noise_variance_, double.noise_variance_, rtol=1e-3)
    np.testing.assert_allclose(single.score_samples(X.astype(np.float64)), double.score_samples(X.astype(np.float64)),
                               atol=0.1)


@pytest.mark.parametrize("solver", ["randomized", "arpack"])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_columns_far_from_zero_have_two_pass_variances(solver, fmt):
    """E[x²] − μ² cancelled on a sparse X of 1e8 + noise: ratios 0.108 for 0.1145, a noise variance
    3.85 for 3.55, standardized variances 7.4 for 1.5. Now the dense fit's, as scikit-learn's."""
    rng = np.random.default_rng(0)
    D = rng.standard_normal((300, 20)) * np.linspace(1, 3, 20) + 1e8
    truth = SkPCA(3, svd_solver="full").fit(D)
    pca = PCA(3, svd_solver=solver, random_state=0, iterated_power=30).fit(sp.csr_matrix(D).asformat(fmt))
    np.testing.assert_allclose(pca.explained_variance_ratio_, truth.explained_variance_ratio_, rtol=1e-5)
    np.testing.assert_allclose(pca.noise_variance_, truth.noise_variance_, rtol=1e-5)
    standardized = PCA(3, svd_solver=solver, random_state=0, iterated_power=30, standardize=True)
    np.testing.assert_allclose(standardized.fit(sp.csr_matrix(D).asformat(fmt)).explained_variance_,
                               standardized.fit(D).explained_variance_, rtol=1e-5)


@pytest.mark.parametrize("model", [
    lambda: PCA(2, svd_solver="arpack", random_state=0),
    lambda: TruncatedSVD(2, algorithm="arpack", random_state=0),
])
def test_arpack_on_a_constant_x_gives_zero_variances(model):
    """ARPACK stopped with "starting vector is zero" (an ArpackError) where the other solvers give 0."""
    X = np.full((20, 5), 3.0) if isinstance(model(), PCA) else np.zeros((20, 5))
    fitted = model().fit(X)
    np.testing.assert_array_equal(fitted.explained_variance_, [0.0, 0.0])
    np.testing.assert_allclose(fitted.components_ @ fitted.components_.T, np.eye(2))
    if isinstance(fitted, PCA):  # a mean that does not round exactly: rounding residue, read by ARPACK as zero
        assert np.all(model().fit(np.full((7, 5), 7.3)).explained_variance_ < 1e-25)


@pytest.mark.parametrize("solver", ["auto", "covariance_eigh", "full"])
def test_zero_components_give_empty_scores(solver):
    """n_components=0: covariance_eigh (the default for n ≥ 10·d) raised SciPy's index message."""
    X = np.random.default_rng(0).random((60, 5))
    assert PCA(0, svd_solver=solver).fit_transform(X).shape == (60, 0)


@pytest.mark.parametrize("model", [
    lambda: PCA(2), lambda: TruncatedSVD(2, random_state=0), lambda: ICA(2, random_state=0),
    lambda: KernelPCA(2, fit_inverse_transform=True),
])
def test_inverse_transform_names_the_width_it_expects(model):
    X = load_iris().data
    fitted = model().fit(X)
    with pytest.raises(ValueError, match=r"shape \(n, 2\); got shape \(5, 3\)"):
        fitted.inverse_transform(np.ones((5, 3)))
    assert fitted.inverse_transform(fitted.transform(X[:5])).shape == (5, 4)
