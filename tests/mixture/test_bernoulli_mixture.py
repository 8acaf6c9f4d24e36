"""BernoulliMixture: planted prototypes, EM properties, the naive-Bayes M-step, sparse input, bad input."""

import warnings

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment
from scipy.special import logsumexp
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.naive_bayes import BernoulliNB

from lucidml.mixture.bernoulli_mixture import BernoulliMixture

from ..memory import traced_peak


def _planted(seed, n_samples=1500, n_features=40, weights=(0.5, 0.3, 0.2)):
    """Binary data from K prototypes: each feature on with probability 0.85 or 0.1."""
    rng = np.random.default_rng(seed)
    theta = np.where(rng.random((len(weights), n_features)) < 0.5, 0.85, 0.1)
    labels = rng.choice(len(weights), size=n_samples, p=weights)
    X = (rng.random((n_samples, n_features)) < theta[labels]).astype(np.float64)
    return X, labels, theta, np.array(weights)


def _matched(estimated, true):
    """Order the estimated components like the true ones (Hungarian matching on L1 distance)."""
    cost = np.abs(estimated[:, None, :] - true[None, :, :]).sum(axis=2)
    rows, cols = linear_sum_assignment(cost)
    return rows[np.argsort(cols)]


def test_recovers_planted_prototypes():
    X, labels, theta, weights = _planted(0)
    bm = BernoulliMixture(n_components=3, n_init=2, random_state=0).fit(X)
    order = _matched(bm.means_, theta)
    assert np.max(np.abs(bm.means_[order] - theta)) < 0.08
    np.testing.assert_allclose(bm.weights_[order], weights, atol=0.03)
    # Cluster purity: the labels agree with the planted ones up to renaming.
    predicted = np.argsort(order)[bm.predict(X)]
    assert np.mean(predicted == labels) > 0.99
    assert bm.converged_


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n_components=st.integers(1, 4), alpha=st.sampled_from([0.0, 0.5, 1.0]),
       init=st.sampled_from(["kmeans", "random"]))
def test_bound_never_decreases(seed, n_components, alpha, init):
    X, *_ = _planted(seed, n_samples=120, n_features=12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        bm = BernoulliMixture(n_components=n_components, alpha=alpha, init_params=init, tol=0.0, max_iter=25,
                              random_state=seed).fit(X)
    bounds = bm.lower_bounds_  # the log-likelihood, plus the log prior when alpha > 0
    assert len(bounds) == 25
    assert np.all(np.diff(bounds) >= -1e-9 * (1.0 + np.abs(bounds[1:])))


def test_m_step_with_known_labels_is_bernoulli_naive_bayes():
    X, labels, *_ = _planted(1, n_samples=300)
    for alpha in (1.0, 0.5):
        theta = BernoulliMixture(n_components=3, alpha=alpha)._m_step(X, np.eye(3)[labels])[1]
        nb = BernoulliNB(alpha=alpha).fit(X, labels)
        np.testing.assert_allclose(theta, np.exp(nb.feature_log_prob_), rtol=1e-9)


def test_score_samples_is_the_mixture_likelihood():
    X, *_ = _planted(2, n_samples=200, n_features=10)
    bm = BernoulliMixture(n_components=3, random_state=0).fit(X)
    log_p = X @ np.log(bm.means_).T + (1 - X) @ np.log1p(-bm.means_).T + np.log(bm.weights_)
    np.testing.assert_allclose(bm.score_samples(X), logsumexp(log_p, axis=1), rtol=1e-10)
    np.testing.assert_allclose(bm.predict_proba(X), np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True)),
                               rtol=1e-8, atol=1e-12)
    n_params = bm.means_.size + 2
    assert bm.bic(X) - bm.aic(X) == pytest.approx(n_params * (np.log(len(X)) - 2.0))


def test_responsibilities_end_near_zero_or_one():
    # 000 §13.5: with separated clusters the w's end close to 0 or 1.
    X, *_ = _planted(3, n_samples=600, weights=(0.5, 0.5))
    bm = BernoulliMixture(n_components=2, random_state=0).fit(X)
    assert np.mean(bm.predict_proba(X).max(axis=1) > 0.999) > 0.98


def test_sparse_input_gives_the_dense_fit():
    X = load_digits().data[:400]
    dense = BernoulliMixture(n_components=4, binarize=4.0, random_state=0).fit(X)
    sparse = BernoulliMixture(n_components=4, binarize=4.0, random_state=0).fit(scipy.sparse.csr_matrix(X))
    np.testing.assert_allclose(sparse.means_, dense.means_, rtol=1e-10)
    assert sparse.score(scipy.sparse.csr_array(X)) == pytest.approx(dense.score(X), rel=1e-12)
    np.testing.assert_array_equal(sparse.predict(scipy.sparse.csr_matrix(X)), dense.predict(X))


def test_sparse_fit_never_makes_X_dense():
    """The k-means start reads the sparse X itself (it used to fit k-means on X.toarray(): 1.6 GB
    for a 20,000 × 5,000 bag of words stored in 1.2 MB)."""
    X = scipy.sparse.random(5_000, 4_000, density=0.002, format="csr", random_state=0, data_rvs=np.ones)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        _, peak = traced_peak(lambda: BernoulliMixture(n_components=2, max_iter=3, random_state=0).fit(X))
    assert peak < 0.25 * X.shape[0] * X.shape[1] * 8, f"peak {peak / 2**20:.0f} MiB: X was made dense"


def test_sample_moments():
    X, *_ = _planted(4, n_samples=500, n_features=8)
    bm = BernoulliMixture(n_components=3, random_state=0).fit(X)
    draws, labels = bm.sample(30_000)
    assert draws.shape == (30_000, 8) and set(np.unique(draws)) <= {0.0, 1.0}
    np.testing.assert_allclose(draws.mean(axis=0), bm.weights_ @ bm.means_, atol=0.015)
    np.testing.assert_allclose(np.bincount(labels, minlength=3) / 30_000, bm.weights_, atol=0.015)


def test_warm_start_goes_on():
    X, *_ = _planted(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        bm = BernoulliMixture(n_components=3, init_params="random", max_iter=2, warm_start=True,
                              random_state=0).fit(X)
        first = bm.lower_bounds_.copy()
        bm.fit(X)
    assert bm.lower_bounds_[0] >= first[-1]


def test_bad_input():
    X, *_ = _planted(6, n_samples=50)
    with pytest.raises(ValueError, match="0 and 1"):
        BernoulliMixture(n_components=2, binarize=None).fit(X * 2)
    with pytest.raises(ValueError, match="NaN"):
        BernoulliMixture(n_components=2).fit(np.where(X > 0, np.nan, X))
    with pytest.raises(ValueError, match="n_samples >= n_components"):
        BernoulliMixture(n_components=5).fit(X[:3])
    with pytest.raises(ValueError, match="sparse"):
        BernoulliMixture(n_components=2, binarize=-1.0).fit(scipy.sparse.csr_matrix(X))
    with pytest.raises(ValueError, match="alpha"):
        BernoulliMixture(alpha=-1.0).fit(X)
    with pytest.warns(ConvergenceWarning):
        BernoulliMixture(n_components=2, init_params="random", tol=0.0, max_iter=2, random_state=0).fit(X)
