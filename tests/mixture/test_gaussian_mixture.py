"""GaussianMixture: oracle tests against scikit-learn, EM properties, the notes' example, bad input."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine, make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture as SkGaussianMixture

from lucidml.discriminant.quadratic import QuadraticDiscriminantAnalysis
from lucidml.mixture._gaussian_model import estimate_gaussians
from lucidml.mixture.gaussian_mixture import GaussianMixture
from lucidml.utils import InvalidParameterError

COVARIANCE_TYPES = ["full", "tied", "diag", "spherical"]


def _datasets():
    blobs, _ = make_blobs(300, 3, centers=3, cluster_std=[1.0, 2.0, 0.5], random_state=1)
    return {"iris": load_iris().data, "wine": load_wine().data, "blobs": blobs}


DATASETS = _datasets()


def _common_start(X, covariance_type, init):
    """φ, μ, Σ⁻¹ after one scikit-learn EM step from k-means or random responsibilities: a start both accept."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sk = SkGaussianMixture(3, covariance_type=covariance_type, init_params=init, max_iter=1,
                               random_state=0).fit(X)
    return {"weights_init": sk.weights_, "means_init": sk.means_, "precisions_init": sk.precisions_}


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("data", DATASETS)
def test_same_start_reaches_sklearns_likelihood(data, covariance_type):
    X = DATASETS[data]
    # (k-means solves the blobs outright, so they start from random responsibilities.)
    start = _common_start(X, covariance_type, "random" if data == "blobs" else "kmeans")
    sk = SkGaussianMixture(3, covariance_type=covariance_type, tol=1e-4, max_iter=1000, **start).fit(X)
    ours = GaussianMixture(n_components=3, covariance_type=covariance_type, tol=1e-4, max_iter=1000, **start).fit(X)
    assert ours.n_iter_ == sk.n_iter_
    assert ours.score(X) == pytest.approx(sk.score(X), rel=1e-6)
    np.testing.assert_allclose(ours.lower_bounds_, sk.lower_bounds_, rtol=1e-6)
    scale = np.abs(X).max()
    np.testing.assert_allclose(ours.means_, sk.means_, atol=1e-6 * scale)
    np.testing.assert_allclose(ours.weights_, sk.weights_, atol=1e-6)
    np.testing.assert_allclose(ours.covariances_, sk.covariances_, atol=1e-6 * scale**2)
    assert ours.bic(X) == pytest.approx(sk.bic(X), rel=1e-6)
    assert ours.aic(X) == pytest.approx(sk.aic(X), rel=1e-6)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_same_random_state_gives_sklearns_fit(covariance_type):
    # Random responsibilities are drawn as scikit-learn draws them, and k-means uses the same
    # seeds, so an integer random_state reproduces scikit-learn's fit.
    X = DATASETS["iris"]
    for init in ("random", "kmeans"):
        sk = SkGaussianMixture(3, covariance_type=covariance_type, init_params=init, random_state=0).fit(X)
        ours = GaussianMixture(n_components=3, covariance_type=covariance_type, init_params=init,
                               random_state=0).fit(X)
        assert ours.score(X) == pytest.approx(sk.score(X), rel=1e-6)
        np.testing.assert_array_equal(ours.predict(X), sk.predict(X))


def test_precisions_are_inverse_covariances_and_factors_match():
    X = DATASETS["wine"]
    for covariance_type in COVARIANCE_TYPES:
        gm = GaussianMixture(n_components=2, covariance_type=covariance_type, random_state=0).fit(X)
        if covariance_type == "full":
            for cov, prec, chol in zip(gm.covariances_, gm.precisions_, gm.precisions_cholesky_, strict=True):
                np.testing.assert_allclose(cov @ prec, np.eye(X.shape[1]), atol=1e-8)
                np.testing.assert_allclose(chol @ chol.T, prec, rtol=1e-10)
                assert np.allclose(chol, np.triu(chol))
        elif covariance_type == "tied":
            np.testing.assert_allclose(gm.covariances_ @ gm.precisions_, np.eye(X.shape[1]), atol=1e-8)
        else:
            np.testing.assert_allclose(gm.covariances_ * gm.precisions_, 1.0, rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n_components=st.integers(1, 4), n_features=st.integers(1, 4),
       covariance_type=st.sampled_from(COVARIANCE_TYPES), init=st.sampled_from(["kmeans", "random", "notes"]))
def test_bound_never_decreases(seed, n_components, n_features, covariance_type, init):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(3, n_features))
    X = centres[rng.integers(0, 3, 80)] + rng.normal(size=(80, n_features)) * rng.uniform(0.3, 2.0, n_features)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gm = GaussianMixture(n_components=n_components, covariance_type=covariance_type, init_params=init,
                             tol=0.0, max_iter=30, random_state=seed).fit(X)
    bounds = gm.lower_bounds_
    assert len(bounds) == 30
    assert np.all(np.diff(bounds) >= -1e-9 * (1.0 + np.abs(bounds[1:])))
    # The final model scores at least the last bound (that bound is one M-step behind).
    assert gm.score(X) >= bounds[-1] - 1e-9 * (1.0 + abs(bounds[-1]))


def test_one_m_step_with_known_labels_is_the_gda_mle():
    X, y = load_iris(return_X_y=True)
    one_hot = np.eye(3)[y]
    qda = QuadraticDiscriminantAnalysis().fit(X, y)
    reg = 1e-6
    full, _ = estimate_gaussians(X, one_hot, "full", reg)
    np.testing.assert_allclose(full.weights, np.bincount(y) / len(y), rtol=1e-12)
    np.testing.assert_allclose(full.means, qda.means_, rtol=1e-12)
    np.testing.assert_allclose(full.covariances, qda.covariance_ + reg * np.eye(4), rtol=1e-9, atol=1e-12)
    # Tied: the pooled within-class scatter / n (LDA's MLE); diag: per-class variances.
    pooled = sum((X[y == c] - qda.means_[c]).T @ (X[y == c] - qda.means_[c]) for c in range(3)) / len(y)
    tied, _ = estimate_gaussians(X, one_hot, "tied", reg)
    np.testing.assert_allclose(tied.covariances, pooled + reg * np.eye(4), rtol=1e-9, atol=1e-12)
    diag, _ = estimate_gaussians(X, one_hot, "diag", reg)
    variances = np.array([X[y == c].var(axis=0) for c in range(3)])
    np.testing.assert_allclose(diag.covariances, variances + reg, rtol=1e-9)
    spherical, _ = estimate_gaussians(X, one_hot, "spherical", reg)
    np.testing.assert_allclose(spherical.covariances, variances.mean(axis=1) + reg, rtol=1e-9)


def test_notes_example_two_gaussians():
    # 000 §13.6: X1 = 2·N(0, I) + (5, 3), X2 = N(0, I) C; φ = ½, Σ = I, μ from half-samples; 10 iterations.
    rng = np.random.default_rng(0)
    C = np.array([[0.0, -0.5], [3.5, 0.7]])
    X = np.vstack([2.0 * rng.standard_normal((1000, 2)) + [5.0, 3.0], rng.standard_normal((1000, 2)) @ C])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gm = GaussianMixture(n_components=2, init_params="notes", tol=0.0, max_iter=10, random_state=234).fit(X)
    assert gm.n_iter_ == 10
    order = np.argsort(gm.means_[:, 0])  # the component of X2 (mean 0) first
    np.testing.assert_allclose(gm.means_[order], [[0.0, 0.0], [5.0, 3.0]], atol=0.35)
    np.testing.assert_allclose(gm.covariances_[order[0]], C.T @ C, atol=0.5)
    np.testing.assert_allclose(gm.covariances_[order[1]], 4.0 * np.eye(2), atol=0.6)
    np.testing.assert_allclose(gm.weights_, [0.5, 0.5], atol=0.05)


def test_predictions_are_consistent():
    X = DATASETS["blobs"]
    gm = GaussianMixture(n_components=3, random_state=0).fit(X)
    proba = gm.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(gm.predict(X), proba.argmax(axis=1))
    np.testing.assert_array_equal(GaussianMixture(n_components=3, random_state=0).fit_predict(X), gm.predict(X))
    # score_samples = log Σ_k φ_k N(x | μ_k, Σ_k), computed here from scratch.
    from scipy.stats import multivariate_normal

    dens = np.column_stack([np.log(w) + multivariate_normal(m, c).logpdf(X)
                            for w, m, c in zip(gm.weights_, gm.means_, gm.covariances_, strict=True)])
    np.testing.assert_allclose(gm.score_samples(X), logsumexp(dens, axis=1), rtol=1e-9)
    assert gm.score(X) == pytest.approx(gm.score_samples(X).mean())


def test_far_points_do_not_underflow():
    X = DATASETS["blobs"]
    gm = GaussianMixture(n_components=3, covariance_type="diag", random_state=0).fit(X)
    far = np.full((2, 3), 1e4)
    assert np.all(np.isfinite(gm.score_samples(far)))
    proba = gm.predict_proba(far)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_sample_shapes_and_moments(covariance_type):
    X = DATASETS["blobs"]
    gm = GaussianMixture(n_components=3, covariance_type=covariance_type, random_state=0).fit(X)
    draws, labels = gm.sample(40_000)
    assert draws.shape == (40_000, 3) and labels.shape == (40_000,)
    np.testing.assert_allclose(np.bincount(labels, minlength=3) / 40_000, gm.weights_, atol=0.01)
    cov = gm.covariances_
    full = {"full": cov, "tied": np.broadcast_to(cov, (3, 3, 3)),
            "diag": np.array([np.diag(c) for c in np.atleast_2d(cov)]) if covariance_type == "diag" else None,
            "spherical": np.array([c * np.eye(3) for c in np.atleast_1d(cov)])}[covariance_type]
    mean = gm.weights_ @ gm.means_
    second = sum(w * (c + np.outer(m, m)) for w, m, c in zip(gm.weights_, gm.means_, full, strict=True))
    np.testing.assert_allclose(draws.mean(axis=0), mean, atol=0.1)
    np.testing.assert_allclose(np.cov(draws.T, bias=True), second - np.outer(mean, mean), atol=0.4)


def test_n_init_keeps_the_best_run_and_warm_start_continues():
    X = DATASETS["wine"]
    one = GaussianMixture(n_components=3, covariance_type="diag", init_params="random", random_state=0).fit(X)
    five = GaussianMixture(n_components=3, covariance_type="diag", init_params="random", n_init=5,
                           random_state=0).fit(X)
    assert five.lower_bound_ >= one.lower_bound_  # its first run is `one`
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warm = GaussianMixture(n_components=3, covariance_type="diag", init_params="random", max_iter=3,
                               warm_start=True, random_state=0).fit(X)
        first = warm.lower_bounds_.copy()
        warm.fit(X)
    assert warm.lower_bounds_[0] >= first[-1]  # the second fit goes on where the first stopped


def test_max_iter_warns_and_counts():
    X = DATASETS["iris"]
    with pytest.warns(ConvergenceWarning):
        gm = GaussianMixture(n_components=3, tol=0.0, max_iter=4, random_state=0).fit(X)
    assert gm.n_iter_ == 4 and not gm.converged_ and len(gm.lower_bounds_) == 4
    assert gm.lower_bound_ == gm.lower_bounds_[-1]


def test_singular_covariances_are_regularized_with_a_warning():
    # Duplicate points: a component collapses on one point; a constant feature: zero variance.
    X = np.repeat(np.array([[0.0, 0.0], [1.0, 1.0], [5.0, 2.0]]), 10, axis=0)
    with pytest.warns(RuntimeWarning, match="regularized") as record:
        gm = GaussianMixture(n_components=3, reg_covar=0.0, random_state=0).fit(X)
    assert record[0].filename == __file__
    assert np.all(np.isfinite(gm.precisions_cholesky_))
    X = np.column_stack([DATASETS["iris"][:, :2], np.ones(150)])
    for covariance_type in ["full", "tied", "diag"]:  # a spherical variance averages the features: not singular
        with pytest.warns(RuntimeWarning, match="regularized"):
            gm = GaussianMixture(n_components=2, covariance_type=covariance_type, reg_covar=0.0,
                                 random_state=0).fit(X)
        assert np.all(np.isfinite(gm.score_samples(X)))


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_a_reg_covar_above_every_variance_warns(covariance_type):
    # Iris scaled by 1e-140: reg_covar = 1e-6 swamps every covariance, every component spreads over
    # all the data (one cluster, adjusted Rand index 0, where it had said nothing). With reg_covar
    # scaled alike the fit is the unscaled one, scaled.
    X = load_iris().data
    with pytest.warns(UserWarning, match="reg_covar=1e-06 exceeds the variance of every feature") as record:
        GaussianMixture(3, covariance_type=covariance_type, random_state=0).fit(X * 1e-140)
    assert record[0].filename == __file__  # it points at the caller's fit
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at the data's own scale
        expected = GaussianMixture(3, covariance_type=covariance_type, random_state=0).fit(X)
        tiny = GaussianMixture(3, covariance_type=covariance_type, reg_covar=1e-286, random_state=0).fit(X * 1e-140)
    np.testing.assert_array_equal(tiny.predict(X * 1e-140), expected.predict(X))
    np.testing.assert_allclose(tiny.means_ * 1e140, expected.means_, rtol=1e-6)


def test_bad_input():
    X = DATASETS["iris"]
    with pytest.raises(ValueError, match="NaN"):
        GaussianMixture(n_components=2).fit(np.where(X > 7, np.nan, X))
    with pytest.raises(ValueError, match="n_samples >= n_components"):
        GaussianMixture(n_components=5).fit(X[:4])
    with pytest.raises(ValueError):
        GaussianMixture().fit(X[:1])
    with pytest.raises(InvalidParameterError, match="covariance_type"):
        GaussianMixture(covariance_type="banded").fit(X)
    with pytest.raises(ValueError, match="weights_init"):
        GaussianMixture(n_components=2, weights_init=[0.7, 0.7]).fit(X)
    with pytest.raises(ValueError, match="means_init"):
        GaussianMixture(n_components=2, means_init=np.zeros((3, 4))).fit(X)
    with pytest.raises(ValueError, match="positive definite"):
        GaussianMixture(n_components=1, precisions_init=-np.eye(4)[None]).fit(X)
    gm = GaussianMixture(n_components=2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        gm.predict(X[:, :3])
    with pytest.raises(ValueError, match="n_samples"):
        gm.sample(0)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_float32_fit_is_float32_and_agrees_with_float64(covariance_type):
    """As scikit-learn's: float32 X gives float32 parameters and outputs. EM itself runs on the
    float32 data with float64 parameters and sums (blocks of float32 products added in float64),
    so the fit agrees with the float64 fit on the same values (to the EM tolerance: the two runs may
    stop an iteration apart)."""
    X, _ = make_blobs(3_000, 4, centers=3, random_state=0)
    X32 = X.astype(np.float32)
    single = GaussianMixture(3, covariance_type=covariance_type, random_state=0).fit(X32)
    double = GaussianMixture(3, covariance_type=covariance_type, random_state=0).fit(X32.astype(np.float64))
    for name in ("weights_", "means_", "covariances_", "precisions_", "precisions_cholesky_"):
        assert getattr(single, name).dtype == np.float32, name
        np.testing.assert_allclose(getattr(single, name), getattr(double, name), rtol=1e-3, atol=1e-4, err_msg=name)
    assert single.predict_proba(X32).dtype == np.float32 and single.score_samples(X32).dtype == np.float32
    np.testing.assert_array_equal(single.predict(X32), double.predict(X32))
    np.testing.assert_allclose(single.score_samples(X32), double.score_samples(X32), rtol=1e-4, atol=1e-4)
    # The float32 parameters still give a usable sampler and a warm start.
    assert single.sample(10)[0].shape == (10, 4)
    single.set_params(warm_start=True, max_iter=5).fit(X32)
    assert single.means_.dtype == np.float32


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_clusters_far_apart_get_their_own_covariances(covariance_type):
    """Each component's scatter is taken about its own mean, and a variance is a collapse only at
    the rounding level of the data's values: two clusters of variance 1, 1e7 apart, got variances
    of 2,500 (the jitter of a "collapse" measured against the data's whole variance) and a score
    of −10.4 where scikit-learn's is −3.5."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0.0, 1.0, (200, 2)), rng.normal(1e7, 1.0, (200, 2))])
    model = GaussianMixture(2, covariance_type=covariance_type, random_state=0).fit(X)
    variances = {"full": lambda c: np.diagonal(c, axis1=1, axis2=2), "tied": np.diag}.get(covariance_type, np.ravel)
    np.testing.assert_allclose(variances(model.covariances_), 1.0, atol=0.1)
    # The score against SciPy's densities of the fitted parameters (x − μ formed first: exact here,
    # where scikit-learn's own score is 0.005 off).
    covariances = {"full": lambda c: c, "tied": lambda c: [c, c], "diag": lambda c: [np.diag(v) for v in c],
                   "spherical": lambda c: [v * np.eye(2) for v in c]}[covariance_type](model.covariances_)
    densities = [np.log(w) + multivariate_normal(m, c).logpdf(X)
                 for w, m, c in zip(model.weights_, model.means_, covariances)]
    assert model.score(X) == pytest.approx(np.mean(logsumexp(densities, axis=0)), abs=1e-9)


@pytest.mark.parametrize("covariance_type", ["full", "diag"])
@pytest.mark.parametrize("loader", [load_digits, load_breast_cancer])
def test_float32_raw_tables_fit_the_float64_model(loader, covariance_type):
    """Second moments about the global mean cancelled in float32 on raw tables: digits' variances
    went negative and were replaced by less than reg_covar (score 1.9 nats off), breast cancer's
    full covariances scored 42 nats off (9.7 with diag). About each component's mean, nothing
    cancels."""
    X = loader().data
    double = GaussianMixture(2, covariance_type=covariance_type, random_state=0).fit(X)
    single = GaussianMixture(2, covariance_type=covariance_type, random_state=0).fit(X.astype(np.float32))
    # Digits' full covariances have eigenvalues from about 1e2 down to reg_covar = 1e-6: float32
    # products (relative error ~1e-7) move the smallest ones, and the score with them, by ~4e-3.
    tolerance = 1e-2 if loader is load_digits and covariance_type == "full" else 1e-3
    assert single.score(X) == pytest.approx(double.score(X), abs=tolerance)
    diagonal = single.covariances_ if covariance_type == "diag" else np.diagonal(single.covariances_, axis1=1, axis2=2)
    assert diagonal.min() >= 1e-6 * (1 - 1e-6)  # reg_covar


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag"])
def test_the_jitter_of_a_singular_covariance_follows_each_features_units(covariance_type):
    """A covariance that is not positive definite gets diag(τ) with τⱼ from feature j's own variance:
    in other units the same fix, in those units (D Σ D). One τ for all features, from their mean
    variance, swamped the features in small units (float32 breast cancer: scores 213 nats off)."""
    from lucidml.mixture._gaussian_model import precision_cholesky

    rng = np.random.default_rng(0)
    Z = rng.normal(size=(200, 3))
    X = np.c_[Z, Z[:, 0]]  # a duplicated feature: every covariance of it is singular
    units = np.array([1.0, 1e-4, 1e4, 1.0])
    variance = X.var(axis=0)
    for scale in (np.ones(4), units):
        cov = np.cov((X * scale).T, bias=True)
        stacked = {"full": cov[None], "tied": cov, "diag": np.diag(cov)[None] * np.r_[1.0, 1.0, 1.0, 0.0]}
        fixed, _, n_fixed = precision_cholesky(stacked[covariance_type].copy(), covariance_type,
                                               lambda scale=scale: variance * scale**2)
        assert n_fixed >= 1
        if np.all(scale == 1.0):
            reference = fixed
        else:
            expected = reference * (np.outer(scale, scale) if covariance_type != "diag" else scale**2)
            np.testing.assert_allclose(fixed, expected, rtol=1e-6)


def test_warm_start_with_other_shapes_starts_afresh():
    """A warm start whose fitted parameters do not fit the new problem (another n_components,
    covariance_type or number of features) starts afresh, as a cold fit would, instead of failing
    in the E-step."""
    X = DATASETS["wine"]
    gm = GaussianMixture(2, covariance_type="diag", warm_start=True, random_state=0).fit(X)
    for params, data in (({"n_components": 3}, X), ({"covariance_type": "full"}, X), ({}, X[:, :5]),
                         ({"covariance_type": "tied"}, X[:, :3]), ({"covariance_type": "diag"}, X[:, :3])):
        # (the last two: K = d = 3, where "tied" and "diag" covariances share the shape (3, 3))
        gm.set_params(**params).fit(data)
        cold = GaussianMixture(**{**gm.get_params(), "warm_start": False}).fit(data)
        np.testing.assert_allclose(gm.means_, cold.means_, rtol=1e-10)
