"""Gaussian marginals, conditionals, log-density and samplers against SciPy, known identities and sampling."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from lucidml.stats import (
    box_muller,
    gaussian_conditional,
    gaussian_marginal,
    gaussian_mle,
    mvn_logpdf,
    sample_multivariate_normal,
)


def _spd(d, seed, condition=None):
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
    if condition is None:
        eigenvalues = rng.uniform(0.5, 3.0, size=d)
    else:
        eigenvalues = np.geomspace(1.0, 1.0 / condition, d)
    return (Q * eigenvalues) @ Q.T, rng.normal(size=d)


# ---------------------------------------------------------------- conditional and marginal

@settings(max_examples=40, deadline=None)
@given(d=st.integers(2, 6), seed=st.integers(0, 10_000), data=st.data())
def test_conditional_matches_the_precision_matrix_form(d, seed, data):
    # An independent route: with Λ = Σ⁻¹, Σ₁|₂ = Λ₁₁⁻¹ and μ₁|₂ = μ₁ − Λ₁₁⁻¹ Λ₁₂ (x₂ − μ₂).
    cov, mean = _spd(d, seed)
    given_ = data.draw(st.lists(st.integers(0, d - 1), min_size=1, max_size=d - 1, unique=True))
    free = np.setdiff1d(np.arange(d), given_)
    x2 = np.random.default_rng(seed).normal(size=len(given_))
    m, S = gaussian_conditional(mean, cov, given_, x2)
    precision = np.linalg.inv(cov)
    L11 = precision[np.ix_(free, free)]
    L12 = precision[np.ix_(free, given_)]
    np.testing.assert_allclose(S, np.linalg.inv(L11), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m, mean[free] - np.linalg.solve(L11, L12 @ (x2 - mean[given_])), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_joint_density_factorizes_into_marginal_times_conditional_with_scipy(seed):
    cov, mean = _spd(5, seed)
    x = np.random.default_rng(seed + 100).normal(size=5)
    given_, free = [3, 0], [1, 2, 4]
    m2, S2 = gaussian_marginal(mean, cov, given_)
    m1, S1 = gaussian_conditional(mean, cov, given_, x[given_])
    factorized = stats.multivariate_normal.logpdf(x[given_], m2, S2) + stats.multivariate_normal.logpdf(x[free], m1, S1)
    assert factorized == pytest.approx(stats.multivariate_normal.logpdf(x, mean, cov), rel=1e-10)


def test_conditional_agrees_with_sampling():
    # The regression of X₁ on X₂ in a large sample has slope Σ₁₂Σ₂₂⁻¹ and residual covariance Σ₁|₂.
    cov, mean = _spd(4, 7)
    X = np.random.default_rng(0).multivariate_normal(mean, cov, size=400_000)
    given_, free = [1, 3], [0, 2]
    design = np.column_stack([np.ones(len(X)), X[:, given_]])
    coef, *_ = np.linalg.lstsq(design, X[:, free], rcond=None)
    residual_cov = np.cov((X[:, free] - design @ coef).T)
    x2 = np.array([0.3, -1.2])
    m, S = gaussian_conditional(mean, cov, given_, x2)
    np.testing.assert_allclose(coef[0] + x2 @ coef[1:], m, atol=0.02)
    np.testing.assert_allclose(residual_cov, S, atol=0.02)


def test_conditional_on_many_values_and_marginal_blocks():
    cov, mean = _spd(4, 1)
    values = np.random.default_rng(1).normal(size=(7, 2))
    means, S = gaussian_conditional(mean, cov, [0, 2], values)
    assert means.shape == (7, 2) and S.shape == (2, 2)
    for row, v in zip(means, values, strict=True):
        np.testing.assert_allclose(row, gaussian_conditional(mean, cov, [0, 2], v)[0])
    m, S = gaussian_marginal(mean, cov, [3, 1])
    np.testing.assert_array_equal(m, mean[[3, 1]])
    np.testing.assert_allclose(S, cov[np.ix_([3, 1], [3, 1])], rtol=1e-14)  # symmetrized


def test_independent_blocks_are_unchanged_by_conditioning():
    cov = np.diag([1.0, 2.0, 3.0])
    m, S = gaussian_conditional([1.0, 2.0, 3.0], cov, [1], [10.0])
    np.testing.assert_allclose(m, [1.0, 3.0])
    np.testing.assert_allclose(S, np.diag([1.0, 3.0]))


def test_partition_errors_and_no_mutation():
    cov, mean = _spd(3, 0)
    cov_copy, mean_copy = cov.copy(), mean.copy()
    gaussian_conditional(mean, cov, [0], [1.0])
    np.testing.assert_array_equal(cov, cov_copy)
    np.testing.assert_array_equal(mean, mean_copy)
    singular = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match="singular"):
        gaussian_conditional(np.zeros(3), singular, [0, 1], [0.0, 0.0])
    with pytest.raises(ValueError, match="every coordinate"):
        gaussian_conditional(mean, cov, [0, 1, 2], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="values"):
        gaussian_conditional(mean, cov, [0], [1.0, 2.0])
    with pytest.raises(ValueError, match="repeated"):
        gaussian_marginal(mean, cov, [0, 0])
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        gaussian_marginal(mean, cov, [3])
    with pytest.raises(TypeError, match="integers"):
        gaussian_marginal(mean, cov, [0.5])
    with pytest.raises(ValueError, match="symmetric"):
        gaussian_marginal([0.0, 0.0], [[5.0, -1.0], [-3.0, 3.0]], [0])  # the notes' Cov1 (002 §7.3.3)
    with pytest.raises(ValueError, match="semidefinite"):
        gaussian_marginal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], [0])
    with pytest.raises(ValueError, match="NaN"):
        gaussian_marginal([0.0, np.nan], np.eye(2), [0])


# ---------------------------------------------------------------- log-density

@pytest.mark.parametrize("d", [1, 3, 10])
@pytest.mark.parametrize("seed", range(3))
def test_logpdf_matches_scipy(d, seed):
    cov, mean = _spd(d, seed)
    X = np.random.default_rng(seed).normal(size=(50, d)) * 2
    np.testing.assert_allclose(mvn_logpdf(X, mean, cov), stats.multivariate_normal.logpdf(X, mean, cov), rtol=1e-10)
    assert mvn_logpdf(X[0], mean, cov) == pytest.approx(stats.multivariate_normal.logpdf(X[0], mean, cov))


@pytest.mark.parametrize("condition", [1e4, 1e8])
def test_logpdf_near_singular_matches_scipy(condition):
    cov, mean = _spd(6, 3, condition=condition)
    X = mean + np.random.default_rng(0).multivariate_normal(np.zeros(6), cov, size=30)
    np.testing.assert_allclose(mvn_logpdf(X, mean, cov), stats.multivariate_normal.logpdf(X, mean, cov), rtol=1e-6)


@pytest.mark.parametrize("distance", [1e3, 1e8, 1e12, 1e150])
def test_logpdf_extreme_mahalanobis_distances_do_not_overflow(distance):
    cov, mean = _spd(4, 5)
    direction = np.linalg.eigh(cov)[1][:, 0]
    x = mean + distance * direction
    ours = mvn_logpdf(x, mean, cov)
    expected = stats.multivariate_normal.logpdf(x, mean, cov)
    assert np.isfinite(ours) and ours < 0
    assert ours == pytest.approx(expected, rel=1e-8)


def test_logpdf_in_many_dimensions_where_the_determinant_underflows():
    d = 400
    cov = np.diag(np.full(d, 1e-3))  # |Σ| = 1e-1200 is 0 in floating point; its log is not
    x = np.full(d, 0.01)
    assert mvn_logpdf(x, np.zeros(d), cov) == pytest.approx(stats.multivariate_normal.logpdf(x, np.zeros(d), cov))


def test_logpdf_singular_covariance():
    cov = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0]])
    mean = np.array([1.0, 0.0, -1.0])
    X = np.array([[1.0, 0.0, -1.0], [2.0, 1.0, 0.5], [3.0, 2.0, 1.0], [2.0, -1.0, 0.0]])  # the last is off support
    with pytest.raises(ValueError, match="singular"):
        mvn_logpdf(X, mean, cov)
    ours = mvn_logpdf(X, mean, cov, allow_singular=True)
    expected = stats.multivariate_normal.logpdf(X, mean, cov, allow_singular=True)
    np.testing.assert_allclose(ours[:3], expected[:3], rtol=1e-10)
    assert ours[3] == -np.inf == expected[3]


def test_logpdf_agrees_with_gaussian_mixture_engine_of_one_component():
    from sklearn.mixture import GaussianMixture

    X = np.random.default_rng(0).normal(size=(200, 3)) @ [[1.0, 0.3, 0.0], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]]
    gm = GaussianMixture(1, covariance_type="full").fit(X)
    np.testing.assert_allclose(mvn_logpdf(X, gm.means_[0], gm.covariances_[0]), gm.score_samples(X), rtol=1e-9)


def test_logpdf_errors():
    with pytest.raises(ValueError, match="shape"):
        mvn_logpdf(np.zeros((3, 2)), np.zeros(3), np.eye(3))
    with pytest.raises(ValueError, match="NaN"):
        mvn_logpdf([np.nan, 0.0], np.zeros(2), np.eye(2))
    with pytest.raises(ValueError, match="cov must have shape"):
        mvn_logpdf([0.0, 0.0], np.zeros(2), np.eye(3))


# ---------------------------------------------------------------- samplers

def test_box_muller_is_standard_normal():
    z = box_muller(100_000, random_state=0)
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    assert abs(stats.skew(z)) < 0.03 and abs(stats.kurtosis(z)) < 0.06
    assert stats.kstest(z, stats.norm.cdf).pvalue > 0.01
    # the sine and cosine halves are each normal and uncorrelated
    half = 50_000
    assert abs(np.corrcoef(z[:half], z[half:])[0, 1]) < 0.02


def test_box_muller_shapes_and_reproducibility():
    assert box_muller((3, 5), random_state=1).shape == (3, 5)
    assert box_muller(7, random_state=1).shape == (7,)
    assert box_muller(0).shape == (0,)
    np.testing.assert_array_equal(box_muller(11, random_state=4), box_muller(11, random_state=4))
    rng = np.random.RandomState(3)
    assert not np.array_equal(box_muller(5, random_state=rng), box_muller(5, random_state=rng))
    with pytest.raises(ValueError, match="size"):
        box_muller(-1)


@pytest.mark.parametrize("method", ["cholesky", "eigen"])
def test_multivariate_sampler_moments_and_marginal_ks(method):
    cov, mean = _spd(3, 2)
    X = sample_multivariate_normal(mean, cov, 200_000, method=method, random_state=0)
    np.testing.assert_allclose(X.mean(axis=0), mean, atol=0.02)
    np.testing.assert_allclose(np.cov(X.T), cov, atol=0.03)
    for j in range(3):
        assert stats.kstest(X[:, j], stats.norm(mean[j], np.sqrt(cov[j, j])).cdf).pvalue > 0.01


def test_multivariate_sampler_singular_covariance_stays_on_its_subspace():
    cov = np.array([[1.0, 1.0], [1.0, 1.0]])
    X = sample_multivariate_normal([0.0, 0.0], cov, 1000, method="eigen", random_state=0)
    np.testing.assert_allclose(X[:, 0], X[:, 1], atol=1e-12)
    with pytest.raises(ValueError, match="positive definite"):
        sample_multivariate_normal([0.0, 0.0], cov, 10)


def test_multivariate_sampler_errors():
    with pytest.raises(ValueError, match="symmetric"):
        sample_multivariate_normal([0.0, 0.0], [[4.0, 1.0], [3.0, 3.0]], 10)  # the notes' Cov3
    with pytest.raises(ValueError, match="method"):
        sample_multivariate_normal([0.0], [[1.0]], 10, method="svd")
    with pytest.raises(ValueError, match="n_samples"):
        sample_multivariate_normal([0.0], [[1.0]], -1)


# ---------------------------------------------------------------- maximum-likelihood fits

@pytest.mark.parametrize("covariance_type", ["full", "diag", "spherical"])
def test_gaussian_mle_matches_a_one_component_sklearn_mixture(covariance_type):
    from sklearn.datasets import load_wine
    from sklearn.mixture import GaussianMixture

    from lucidml.stats import gaussian_mle

    X = load_wine().data[:, :6]
    mean, covariance = gaussian_mle(X, covariance_type)
    mixture = GaussianMixture(1, covariance_type=covariance_type, reg_covar=0.0).fit(X)
    np.testing.assert_allclose(mean, mixture.means_[0], rtol=1e-12)
    np.testing.assert_allclose(covariance, mixture.covariances_[0], rtol=1e-10)
    assert np.shape(covariance) == {"full": (6, 6), "diag": (6,), "spherical": ()}[covariance_type]


def test_gaussian_mle_closed_forms_and_likelihood_maximum():
    from lucidml.stats import gaussian_mle

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3)) * [1.0, 2.0, 0.5] + [1.0, -1.0, 3.0]
    full = gaussian_mle(X).covariance
    np.testing.assert_allclose(full, np.cov(X, rowvar=False, bias=True), rtol=1e-12)
    mean, variances = gaussian_mle(X, "diag")
    np.testing.assert_allclose(variances, X.var(axis=0), rtol=1e-12)
    spherical = gaussian_mle(X, "spherical").covariance
    assert spherical == pytest.approx(np.trace(full) / 3, rel=1e-12)

    def loglik(cov):
        return mvn_logpdf(X, mean, cov).sum()

    # the MLE beats nearby values of its own family
    for factor in (0.9, 1.1):
        assert loglik(np.diag(variances)) > loglik(np.diag(variances * [factor, 1, 1]))
        assert loglik(spherical * np.eye(3)) > loglik(factor * spherical * np.eye(3))
    with pytest.raises(ValueError, match="covariance_type"):
        gaussian_mle(X, "tied")
    with pytest.raises(ValueError, match="NaN|infinity"):
        gaussian_mle([[np.nan, 1.0]])


@pytest.mark.parametrize("covariance_type", ["full", "diag", "spherical"])
def test_gaussian_mle_refuses_a_covariance_beyond_float64(covariance_type):
    """Values near 1e160 have variances near 1e320: returned as inf without a word."""
    X = np.random.default_rng(0).standard_normal((30, 3))
    scaled = gaussian_mle(X * 1e120, covariance_type).covariance
    np.testing.assert_allclose(scaled, np.asarray(gaussian_mle(X, covariance_type).covariance) * 1e240, rtol=1e-12)
    with pytest.raises(ValueError, match="covariance overflowed float64"):
        gaussian_mle(X * 1e160, covariance_type)
    with pytest.raises(ValueError, match="mean overflowed float64"):
        gaussian_mle(np.full((4, 2), 1.7e308), covariance_type)


def test_a_covariance_with_entries_near_the_float64_limit_is_symmetrized_without_overflow():
    """cov + covᵀ overflowed for diag(1e308, 1): "cov is singular", and −inf samples."""
    cov = np.diag([1e308, 1.0])
    expected = stats.norm(0, 1e154).logpdf(1.0) + stats.norm(0, 1).logpdf(1.0)
    np.testing.assert_allclose(mvn_logpdf([1.0, 1.0], np.zeros(2), cov), expected, rtol=1e-12)
    assert np.all(np.isfinite(sample_multivariate_normal(np.zeros(2), cov, 5, random_state=0)))
