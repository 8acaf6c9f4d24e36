"""lucidml.dask.GaussianMixture: EM over the chunks equals the in-memory EM from the same start."""

import warnings

import dask.array as da
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import lucidml.dask as ld
from lucidml.mixture import GaussianMixture

from .test_estimators import _assert_same_fit


def _three_blobs(seed=0, n=1200, d=3):
    """Three overlapping, correlated Gaussian clusters far from the origin."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0, 0.0], [2.5, 1.0, -1.0], [-1.0, 3.0, 1.5]])[:, :d] + 100.0
    labels = rng.integers(0, 3, n)
    mixing = np.array([[1.0, 0.3, 0.0], [0.0, 0.8, 0.2], [0.0, 0.0, 0.5]])[:d, :d]
    return centres[labels] + rng.normal(size=(n, d)) @ mixing


def _start(covariance_type):
    """Deliberately poor starting parameters, so that EM takes many iterations."""
    means = np.array([[99.0, 99.0, 99.0], [101.0, 100.0, 100.0], [100.0, 101.0, 101.0]])
    eye = {"full": np.tile(np.eye(3), (3, 1, 1)), "tied": np.eye(3), "diag": np.ones((3, 3)),
           "spherical": np.ones(3)}[covariance_type]
    return {"weights_init": np.full(3, 1 / 3), "means_init": means, "precisions_init": eye}


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_same_start_gives_the_in_memory_iterations(client, covariance_type):
    X = _three_blobs()
    params = {"n_components": 3, "covariance_type": covariance_type, "tol": 1e-4, "max_iter": 500,
              **_start(covariance_type)}
    fitted = ld.GaussianMixture(**params).fit(da.from_array(X, chunks=(170, -1)))
    expected = GaussianMixture(**params).fit(X)
    assert fitted.n_iter_ == expected.n_iter_ > 5
    assert fitted.converged_
    _assert_same_fit(fitted, expected, rtol=1e-8, atol=1e-10)
    assert len(fitted.lower_bounds_) == fitted.n_iter_ and np.all(np.diff(fitted.lower_bounds_) > -1e-9)
    dX = da.from_array(X, chunks=(300, -1))
    np.testing.assert_allclose(fitted.score_samples(dX).compute(), expected.score_samples(X), rtol=1e-8)
    np.testing.assert_array_equal(fitted.predict(dX).compute(), expected.predict(X))


def test_only_means_given_starts_from_kmeans_labels_and_converges_like_in_memory(client):
    X = _three_blobs(seed=1)
    means = _start("full")["means_init"]
    fitted = ld.GaussianMixture(3, means_init=means, tol=1e-8, max_iter=500, random_state=0).fit(
        da.from_array(X, chunks=(250, -1)))
    expected = GaussianMixture(3, means_init=means, tol=1e-8, max_iter=500, random_state=0).fit(X)
    # Both start from k-means labels (sampled seeding in Dask) and reach the same maximum.
    assert fitted.lower_bound_ == pytest.approx(expected.lower_bound_, rel=1e-7)
    order = np.argsort(fitted.means_[:, 0]), np.argsort(expected.means_[:, 0])
    np.testing.assert_allclose(fitted.means_[order[0]], expected.means_[order[1]], rtol=1e-5)


def test_random_start_leaves_the_saddle(client):
    X = _three_blobs(seed=2)
    # Random responsibilities start near the symmetric saddle; with a small tol EM leaves it.
    fitted = ld.GaussianMixture(3, init_params="random", random_state=0, max_iter=500, tol=1e-6).fit(
        da.from_array(X, chunks=(600, -1)))
    best = GaussianMixture(3, n_init=3, random_state=0, max_iter=300).fit(X)
    assert fitted.lower_bound_ >= best.lower_bound_ - 1e-3


def test_convergence_warning_at_max_iter_with_bounds_recorded(client):
    X = _three_blobs(seed=3)
    params = {"n_components": 3, "max_iter": 3, **_start("full")}
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        fitted = ld.GaussianMixture(**params).fit(da.from_array(X, chunks=(170, -1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        expected = GaussianMixture(**params).fit(X)
    assert fitted.n_iter_ == 3 and not fitted.converged_
    np.testing.assert_allclose(fitted.lower_bounds_, expected.lower_bounds_, rtol=1e-10)
    assert fitted.lower_bound_ == fitted.lower_bounds_[-1]


def test_bad_input_and_parameters(client):
    X = _three_blobs(seed=4)
    X[500, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ld.GaussianMixture(2).fit(da.from_array(X, chunks=(170, -1)))
    with pytest.raises(ValueError, match="means_init must have shape"):
        ld.GaussianMixture(2, means_init=np.zeros((3, 3))).fit(da.ones((100, 3), chunks=(30, 3)))
    with pytest.raises(ValueError, match="n_samples >= n_components"):
        ld.GaussianMixture(5).fit(da.ones((4, 3), chunks=(2, 3)))


def test_a_reg_covar_above_every_variance_warns_as_in_memory(client):
    X = _three_blobs(seed=5) * 1e-5  # variances near 1e-10, reg_covar 1e-6
    with pytest.warns(UserWarning, match="exceeds the variance of every feature") as record:
        ld.GaussianMixture(3, max_iter=5, random_state=0).fit(da.from_array(X, chunks=(400, -1)))
    assert record[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("error", UserWarning)
        ld.GaussianMixture(3, max_iter=5, reg_covar=1e-14, random_state=0).fit(da.from_array(X, chunks=(400, -1)))
