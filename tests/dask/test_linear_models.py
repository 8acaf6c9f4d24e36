"""lucidml.dask.SoftmaxRegression and PoissonRegressor: L-BFGS over the chunks takes the in-memory iterates."""

import warnings

import dask.array as da
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import lucidml.dask as ld
from lucidml.linear import LogisticRegression, PoissonRegressor, SoftmaxRegression

from .test_estimators import _assert_same_fit

CHUNKS = (170, -1)


def _four_classes(seed=0, n=1000):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * np.array([1.0, 2.0, 0.5, 1.0]) + 0.5
    scores = X @ rng.normal(size=(4, 4)) + rng.gumbel(size=(n, 4))
    return X, scores.argmax(axis=1)


@pytest.mark.parametrize("params", [{}, {"parametrization": "reference"}, {"C": 0.1, "fit_intercept": False}])
def test_softmax_matches_in_memory_lbfgs(client, params):
    X, y = _four_classes()
    fitted = ld.SoftmaxRegression(**params).fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170))
    expected = SoftmaxRegression(solver="lbfgs", **params).fit(X, y)
    assert fitted.n_iter_ == expected.n_iter_ > 3  # the same iterates
    _assert_same_fit(fitted, expected, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fitted.predict_proba(da.from_array(X, chunks=CHUNKS)).compute(),
                               expected.predict_proba(X), rtol=1e-8, atol=1e-12)


def test_softmax_warnings(client):
    X = np.r_[np.linspace(-3, -1, 40), np.linspace(1, 3, 40), np.linspace(5, 7, 40)][:, None]
    y = np.repeat([0, 1, 2], 40)
    with pytest.warns(UserWarning, match="linearly separable"):
        ld.SoftmaxRegression(C=np.inf, max_iter=300).fit(da.from_array(X, chunks=(25, 1)), y)
    with pytest.warns(ConvergenceWarning):
        ld.SoftmaxRegression(max_iter=2).fit(da.from_array(X, chunks=(25, 1)), y)


def _counts(seed=0, n=1000):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)) * np.array([1.0, 0.5, 2.0, 0.1, 1.0])
    y = rng.poisson(np.exp(0.3 + X @ np.array([0.4, -0.6, 0.2, 1.0, 0.0])))
    return X, y


@pytest.mark.parametrize("params", [{}, {"alpha": 0.0}, {"alpha": 0.1, "fit_intercept": False}])
def test_poisson_matches_in_memory_lbfgs(client, params):
    X, y = _counts()
    fitted = ld.PoissonRegressor(**params).fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170))
    expected = PoissonRegressor(solver="lbfgs", **params).fit(X, y)
    assert fitted.n_iter_ == expected.n_iter_ > 3
    _assert_same_fit(fitted, expected, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fitted.loss_curve_, expected.loss_curve_, rtol=1e-10)
    np.testing.assert_allclose(fitted.predict(da.from_array(X, chunks=CHUNKS)).compute(), expected.predict(X),
                               rtol=1e-8)
    # ... and the solution is the in-memory Newton one, to the solvers' tolerance.
    newton = PoissonRegressor(tol=1e-10, **params).fit(X, y)
    np.testing.assert_allclose(fitted.coef_, newton.coef_, rtol=1e-3, atol=1e-4)


def test_poisson_with_a_feature_far_from_zero_centres_on_the_whole_tables_means(client):
    """Each chunk's GLMProblem reads β's intercept as that of the features centred on the means of
    the whole table (not of the chunk): the iterates stay the in-memory ones, and a feature moved by
    1e4 only moves the intercept."""
    X, y = _counts()
    X_far = X.copy()
    X_far[:, 2] += 1e4
    fitted = ld.PoissonRegressor(tol=1e-8).fit(da.from_array(X_far, chunks=CHUNKS), da.from_array(y, chunks=170))
    expected = PoissonRegressor(solver="lbfgs", tol=1e-8).fit(X_far, y)
    # The same iterates up to the rounding of the means (summed over the chunks in another order).
    assert abs(fitted.n_iter_ - expected.n_iter_) <= 1
    _assert_same_fit(fitted, expected, rtol=1e-5, atol=1e-7)
    near = PoissonRegressor(solver="lbfgs", tol=1e-8).fit(X, y)
    np.testing.assert_allclose(fitted.coef_, near.coef_, atol=1e-5)
    np.testing.assert_allclose(fitted.predict(da.from_array(X_far, chunks=CHUNKS)).compute(), near.predict(X),
                               rtol=1e-5)


def test_poisson_rejects_negative_counts_and_warns_at_max_iter(client):
    X, y = _counts(seed=1)
    y = y.astype(float)
    y[600] = -1.0
    with pytest.raises(ValueError):
        ld.PoissonRegressor().fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170))
    y[600] = 1.0
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        ld.PoissonRegressor(max_iter=2).fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ld.PoissonRegressor().fit(da.from_array(X, chunks=CHUNKS), da.from_array(y, chunks=170))


@pytest.mark.parametrize("name", ["LogisticRegression", "SoftmaxRegression"])
def test_log_loss_with_a_feature_far_from_zero_centres_on_the_whole_tables_means(client, name):
    """As for Poisson: the chunks' LogLoss centre on the whole table's means, so the fit keeps the
    in-memory iterates and a feature moved by 1e7 only moves the intercepts."""
    X, y = _four_classes()
    X_far = X.copy()
    X_far[:, 0] += 1e7
    fitted = getattr(ld, name)().fit(da.from_array(X_far, chunks=CHUNKS), y)
    expected = {"LogisticRegression": LogisticRegression, "SoftmaxRegression": SoftmaxRegression}[name]
    near = expected().fit(X, y)
    assert np.max(np.abs(np.asarray(fitted.n_iter_) - near.n_iter_)) <= 1
    np.testing.assert_allclose(fitted.coef_, near.coef_, atol=1e-5 * np.abs(near.coef_).max())
    np.testing.assert_allclose(fitted.predict_proba(da.from_array(X_far, chunks=CHUNKS)).compute(),
                               near.predict_proba(X), atol=1e-6)
