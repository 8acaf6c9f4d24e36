"""FactorAnalysis: oracle tests against scikit-learn, the model's identities, Heywood cases, bad input."""

import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.datasets import load_diabetes, load_iris, load_wine
from sklearn.decomposition import FactorAnalysis as SkFactorAnalysis
from sklearn.exceptions import ConvergenceWarning

from lucidml.decomposition.factor_analysis import FactorAnalysis

DATASETS = {"iris": load_iris().data, "wine": load_wine().data, "diabetes": load_diabetes().data}


def _planted(seed=0, n_samples=2000):
    """x = μ + Λz + ε with 2 factors, 6 features, known Λ and Ψ."""
    rng = np.random.default_rng(seed)
    loadings = rng.normal(size=(6, 2)) * 2.0
    psi = rng.uniform(0.2, 1.0, 6)
    X = 5.0 + rng.normal(size=(n_samples, 2)) @ loadings.T + rng.normal(size=(n_samples, 6)) * np.sqrt(psi)
    return X, loadings, psi


@pytest.mark.parametrize("n_components", [1, 2, 3])
@pytest.mark.parametrize("data", DATASETS)
def test_reaches_sklearns_log_likelihood(data, n_components):
    X = DATASETS[data]
    sk = SkFactorAnalysis(n_components, random_state=0).fit(X)
    ours = FactorAnalysis(n_components=n_components).fit(X)
    assert ours.score(X) == pytest.approx(sk.score(X), rel=1e-3)
    assert ours.score(X) >= sk.score(X) - 1e-4 * abs(sk.score(X))
    np.testing.assert_allclose(ours.mean_, sk.mean_, rtol=1e-12)


def test_planted_model_covariance_matches_sklearn_and_truth():
    X, loadings, psi = _planted(n_samples=1000)
    # (scikit-learn's iteration is the slow one here, so it stops at a looser tol.)
    sk = SkFactorAnalysis(2, tol=1e-4, max_iter=5000, svd_method="lapack").fit(X)
    ours = FactorAnalysis(n_components=2, tol=1e-8, max_iter=5000).fit(X)
    assert ours.score(X) == pytest.approx(sk.score(X), rel=1e-6)
    assert ours.score(X) >= sk.score(X)
    np.testing.assert_allclose(ours.get_covariance(), sk.get_covariance(), rtol=1e-3, atol=2e-3)
    np.testing.assert_allclose(ours.noise_variance_, sk.noise_variance_, atol=0.02)  # Ψ alone: a flat direction
    # Λ is identified up to a rotation: ΛΛᵀ is not, and it is near the truth.
    np.testing.assert_allclose(ours.components_.T @ ours.components_, loadings @ loadings.T, atol=0.5)
    np.testing.assert_allclose(ours.noise_variance_, psi, atol=0.1)


def test_log_likelihood_never_decreases_and_matches_score():
    for X in DATASETS.values():
        fa = FactorAnalysis(n_components=2, tol=0.0, max_iter=60)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fa.fit(X)
        assert len(fa.loglike_) == 60 and fa.n_iter_ == 60
        assert np.all(np.diff(fa.loglike_) >= -1e-9 * np.abs(fa.loglike_[1:]))
        # loglike_ is the total log-likelihood one M-step behind the final model.
        assert fa.score(X) * len(X) >= fa.loglike_[-1] - 1e-9 * abs(fa.loglike_[-1])


def test_woodbury_forms_equal_the_notes_formulas():
    X, *_ = _planted(1, n_samples=300)
    fa = FactorAnalysis(n_components=2).fit(X)
    lam, psi, mu = fa.components_.T, fa.noise_variance_, fa.mean_
    cov = lam @ lam.T + np.diag(psi)
    np.testing.assert_allclose(fa.get_covariance(), cov, rtol=1e-12)
    np.testing.assert_allclose(fa.get_precision(), np.linalg.inv(cov), rtol=1e-9, atol=1e-12)
    # 000 (14.4): E[z | x] = Λᵀ(ΛΛᵀ + Ψ)⁻¹(x − μ).
    np.testing.assert_allclose(fa.transform(X), np.linalg.solve(cov, (X - mu).T).T @ lam, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fa.score_samples(X), multivariate_normal(mu, cov).logpdf(X), rtol=1e-10)
    assert fa.score(X) == pytest.approx(np.mean(fa.score_samples(X)))


def test_the_model_is_translation_equivariant():
    # The Ψ update uses x − μ (000 §14.4 and 004 §15 write raw x): shifting the data shifts μ only.
    X, *_ = _planted(2, n_samples=400)
    a = FactorAnalysis(n_components=2).fit(X)
    b = FactorAnalysis(n_components=2).fit(X + 1000.0)
    np.testing.assert_allclose(b.mean_, a.mean_ + 1000.0)
    np.testing.assert_allclose(b.noise_variance_, a.noise_variance_, rtol=1e-6)
    np.testing.assert_allclose(b.get_covariance(), a.get_covariance(), rtol=1e-6, atol=1e-9)


def test_warm_start_goes_on():
    X = DATASETS["diabetes"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fa = FactorAnalysis(n_components=2, max_iter=5, warm_start=True).fit(X)
        first = fa.loglike_.copy()
        fa.fit(X)
    assert fa.loglike_[0] >= first[-1]


def test_noise_variance_init_is_used():
    X = DATASETS["wine"]
    fa = FactorAnalysis(n_components=2, noise_variance_init=np.ones(13), max_iter=1)
    with pytest.warns(ConvergenceWarning):
        fa.fit(X)
    default = FactorAnalysis(n_components=2, max_iter=1)
    with pytest.warns(ConvergenceWarning):
        default.fit(X)
    assert fa.loglike_[0] != pytest.approx(default.loglike_[0])


def test_constant_feature_is_a_heywood_case():
    X = np.column_stack([DATASETS["iris"], np.full(150, 3.0)])
    with pytest.warns(RuntimeWarning, match="Heywood"):
        fa = FactorAnalysis(n_components=2).fit(X)
    assert fa.noise_variance_[-1] > 0 and np.all(np.isfinite(fa.score_samples(X)))
    assert np.all(np.isfinite(fa.transform(X)))


def test_noise_floor_is_each_features_own():
    """Ψⱼ's floor is a fraction of feature j's own variance. From the mean variance of all features, a
    feature of raw breast cancer in units 1e8 times larger lifted every other feature's floor above
    its noise variance: some 20 of them were floored and reported as Heywood cases."""
    from sklearn.datasets import load_breast_cancer

    X = load_breast_cancer(return_X_y=True)[0]
    X[:, 19] *= 1e8
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fa = FactorAnalysis(n_components=2).fit(X)
    assert np.all(fa.noise_variance_ > fa._psi_floor)
    np.testing.assert_allclose(fa._psi_floor, 1e-12 * X.var(axis=0), rtol=1e-9)
    with pytest.warns(RuntimeWarning, match="Heywood"):  # a constant feature: the mean variance's floor
        floor = FactorAnalysis(n_components=2).fit(np.column_stack([X[:, :3], np.full(len(X), 7.0)]))._psi_floor
    np.testing.assert_allclose(floor, 1e-12 * np.r_[X[:, :3].var(axis=0), X[:, :3].var(axis=0).mean() * 3 / 4],
                               rtol=1e-9)


def test_more_components_than_samples():
    X = np.random.default_rng(0).normal(size=(5, 10))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fa = FactorAnalysis(n_components=8).fit(X)
    assert any("Heywood" in str(w.message) for w in caught)  # 5 points fit exactly: a degenerate model
    assert fa.components_.shape == (8, 10)
    # Beyond the rank (n − 1 = 4) of the centred data the loadings are zero (to rounding).
    assert np.abs(fa.components_[4:]).max() < 1e-12 * np.abs(fa.components_).max()
    assert np.all(np.isfinite(fa.transform(X)))


def test_bad_input():
    X = DATASETS["iris"]
    with pytest.raises(ValueError, match="NaN"):
        FactorAnalysis(n_components=2).fit(np.where(X > 7, np.nan, X))
    with pytest.raises(ValueError, match="n_features"):
        FactorAnalysis(n_components=5).fit(X)
    with pytest.raises(ValueError):
        FactorAnalysis(n_components=1).fit(X[:1])
    with pytest.raises(ValueError, match="noise_variance_init"):
        FactorAnalysis(n_components=1, noise_variance_init=np.ones(3)).fit(X)
    fa = FactorAnalysis(n_components=2).fit(X)
    with pytest.raises(ValueError, match="features"):
        fa.transform(X[:, :3])


def test_warm_start_on_other_shapes_or_data_starts_afresh_without_false_warnings():
    """warm_start kept the fitted Λ when n_components changed (components_ (2, 6) for 3 asked), failed
    on fewer features with NumPy's matmul error, and compared the first bound on new data with the
    old data's last one: "the EM bound decreased by 1.44e+04 … degenerate"."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 3)) @ rng.standard_normal((6, 3)).T + 0.3 * rng.standard_normal((200, 6))
    fa = FactorAnalysis(2, warm_start=True).fit(X)
    fa.set_params(n_components=3).fit(X)
    assert fa.components_.shape == (3, 6) and fa.transform(X).shape == (200, 3)
    np.testing.assert_allclose(fa.components_, FactorAnalysis(3).fit(X).components_, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fa.fit(5 * X[::-1] + 3)
        fa.fit(X[:, :5])
    assert fa.components_.shape == (3, 5)
