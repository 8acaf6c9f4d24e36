"""SVR against scikit-learn's libsvm-based SVR, and its own behaviour."""

import numpy as np
import pytest
from sklearn import svm as sk_svm
from sklearn.datasets import load_diabetes, make_regression
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.preprocessing import StandardScaler

from lucidml.svm.svr import SVR
from lucidml.utils import InvalidParameterError


def _diabetes():
    X, y = load_diabetes(return_X_y=True)
    return StandardScaler().fit_transform(X), (y - y.mean()) / y.std()


def _dual_value(model, X, y, epsilon):
    """½ βᵀKβ + ε Σ|β| − yᵀβ over the support vectors, β = α − α* (α·α* = 0 at the optimum)."""
    kernel = "polynomial" if model.kernel == "poly" else model.kernel
    params = {} if kernel == "linear" else {"gamma": model._gamma}
    gram = pairwise_kernels(X[model.support_], metric=kernel, **params)
    beta = model.dual_coef_[0]
    return 0.5 * beta @ gram @ beta + epsilon * np.abs(beta).sum() - y[model.support_] @ beta


@pytest.mark.parametrize("params", [{}, {"C": 10.0, "epsilon": 0.2}, {"kernel": "linear"}, {"epsilon": 0.0}])
def test_matches_scikit_learn_on_diabetes(params):
    X, y = _diabetes()
    ours, ref = SVR(**params).fit(X, y), sk_svm.SVR(**params).fit(X, y)
    ref._gamma = ours._gamma
    assert ours.score(X, y) == pytest.approx(ref.score(X, y), abs=1e-3)
    assert abs(len(ours.support_) - len(ref.support_)) <= 0.02 * len(ref.support_)
    epsilon = params.get("epsilon", 0.1)
    assert _dual_value(ours, X, y, epsilon) == pytest.approx(_dual_value(ref, X, y, epsilon), rel=1e-3)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=5e-3)
    assert ours.intercept_ == pytest.approx(ref.intercept_, abs=5e-3)
    assert ours.loss_curve_[-1] == pytest.approx(_dual_value(ours, X, y, epsilon), rel=1e-6)


def test_linear_coef_and_tube():
    X, y = make_regression(n_samples=300, n_features=5, noise=0.5, random_state=0)
    ours = SVR(kernel="linear", C=10.0, epsilon=0.5).fit(X, y)
    ref = sk_svm.SVR(kernel="linear", C=10.0, epsilon=0.5).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-3, atol=1e-3)
    residual = np.abs(y - ours.predict(X))
    inside = np.setdiff1d(np.arange(len(y)), ours.support_)
    assert np.all(residual[inside] <= 0.5 + 1e-2)  # points strictly inside the tube carry no weight
    assert np.all(np.abs(ours.dual_coef_) <= 10.0 + 1e-12)
    assert abs(ours.dual_coef_.sum()) < 1e-9  # Σ(αᵢ − αᵢ*) = 0


def test_sample_weight_is_repetition_and_precomputed_is_the_same_model():
    X, y = _diabetes()
    X, y = X[:150], y[:150]
    weight = np.random.default_rng(0).integers(0, 3, size=len(y))
    weighted = SVR(gamma=0.1, tol=1e-8).fit(X, y, sample_weight=weight)
    repeated = SVR(gamma=0.1, tol=1e-8).fit(np.repeat(X, weight, axis=0), np.repeat(y, weight))
    np.testing.assert_allclose(weighted.predict(X), repeated.predict(X), atol=1e-6)
    gram = pairwise_kernels(X, metric="rbf", gamma=0.1)
    pre = SVR(kernel="precomputed").fit(gram, y)
    np.testing.assert_allclose(pre.predict(gram), SVR(gamma=0.1).fit(X, y).predict(X), atol=1e-8)


def test_max_iter_warns_and_bad_input():
    X, y = _diabetes()
    with pytest.warns(ConvergenceWarning):
        assert SVR(max_iter=2).fit(X, y).fit_status_ == 1
    with pytest.raises(InvalidParameterError):
        SVR(C=0.0).fit(X, y)
    with pytest.raises(InvalidParameterError):
        SVR(epsilon=-0.1).fit(X, y)
    y_nan = y.copy()
    y_nan[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SVR().fit(X, y_nan)
    flat = SVR().fit(np.ones((10, 2)), np.arange(10.0))  # identical points: a constant model, no crash
    assert np.ptp(flat.predict(np.ones((3, 2)))) == 0.0
