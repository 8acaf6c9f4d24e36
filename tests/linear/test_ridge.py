"""Ridge against scikit-learn, its closed form, and the Bayesian predictive variance."""

import numpy as np
import pytest
from sklearn import linear_model

from lucidml.datasets import load
from lucidml.linear import LinearRegression, Ridge


@pytest.fixture(scope="module")
def diabetes():
    return load("diabetes")


@pytest.mark.parametrize("alpha", [1e-3, 0.1, 1.0, 10.0])
@pytest.mark.parametrize("solver", ["auto", "cholesky", "svd"])
def test_matches_sklearn_on_diabetes(diabetes, alpha, solver):
    X, y = diabetes
    ours = Ridge(alpha=alpha, solver=solver).fit(X, y)
    ref = linear_model.Ridge(alpha=alpha).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-8, atol=1e-8 * np.abs(ref.coef_).max())
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-10)


def test_weighted_and_multi_target_with_alpha_per_target(diabetes):
    X, y = diabetes
    w = np.random.default_rng(0).uniform(0.2, 2.0, len(y))
    Y = np.column_stack([y, np.log(y)])
    ours = Ridge(alpha=[0.5, 3.0]).fit(X, Y, sample_weight=w)
    ref = linear_model.Ridge(alpha=[0.5, 3.0]).fit(X, Y, sample_weight=w)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-10)


def test_wide_data_uses_the_dual_system():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 200)), rng.normal(size=30)
    ref = linear_model.Ridge(alpha=2.0).fit(X, y)
    for solver in ("cholesky", "svd"):
        ours = Ridge(alpha=2.0, solver=solver).fit(X, y)
        np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-8, atol=1e-12)


def test_closed_form_and_alpha_zero_is_least_squares(diabetes):
    X, y = diabetes
    Xc, yc = X - X.mean(0), y - y.mean()
    w = np.linalg.solve(Xc.T @ Xc + 5.0 * np.eye(X.shape[1]), Xc.T @ yc)
    np.testing.assert_allclose(Ridge(alpha=5.0).fit(X, y).coef_, w, rtol=1e-10)
    np.testing.assert_allclose(Ridge(alpha=0.0).fit(X, y).coef_, LinearRegression().fit(X, y).coef_, rtol=1e-8)


def test_shrinkage_grows_with_alpha(diabetes):
    X, y = diabetes
    norms = [np.linalg.norm(Ridge(alpha=a).fit(X, y).coef_) for a in (0.01, 0.1, 1.0, 10.0, 100.0)]
    assert all(a > b for a, b in zip(norms, norms[1:]))


def test_large_feature_means_keep_full_accuracy(diabetes):
    X, y = diabetes
    shifted = X + 1e6  # the uncentred Gram would lose twelve digits: the block-centred path must be taken
    np.testing.assert_allclose(Ridge(alpha=1.0).fit(shifted, y).coef_, Ridge(alpha=1.0).fit(X, y).coef_, rtol=1e-7)


def test_predictive_std_matches_the_posterior_formula():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    y = X @ [1.0, -2.0, 0.5] + 0.3 * rng.normal(size=200)
    model = Ridge(alpha=2.0).fit(X, y)
    queries = rng.normal(size=(5, 3)) * 3
    mean, std = model.predict(queries, return_std=True)
    Xc = X - X.mean(0)
    A = Xc.T @ Xc + 2.0 * np.eye(3)
    residual = y - model.predict(X)
    dof = np.trace(Xc @ np.linalg.solve(A, Xc.T))
    sigma2 = residual @ residual / (200 - dof - 1)
    qc = queries - X.mean(0)
    expected = np.sqrt(sigma2 * (1 + np.einsum("ij,ij->i", qc @ np.linalg.inv(A), qc)))
    np.testing.assert_allclose(std, expected, rtol=1e-10)
    np.testing.assert_allclose(mean, model.predict(queries))
    assert abs(model.sigma2_ - 0.09) < 0.03  # the noise variance is recovered
    assert std[np.argmax(np.linalg.norm(qc, axis=1))] == std.max()  # far from the data = less certain


def test_bad_alpha_is_rejected(diabetes):
    X, y = diabetes
    with pytest.raises(ValueError, match="alpha"):
        Ridge(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="2 targets"):
        Ridge(alpha=[1.0, 2.0, 3.0]).fit(X, np.column_stack([y, y]))
    with pytest.raises(ValueError, match="singular"):
        Ridge(alpha=0.0, solver="cholesky").fit(np.column_stack([X, X[:, 0]]), y)


def test_one_alpha_per_target_with_the_cholesky_solver_on_wide_data():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(20, 50)), rng.normal(size=(20, 2))
    ours = Ridge(alpha=[0.5, 5.0], solver="cholesky").fit(X, Y)
    ref = linear_model.Ridge(alpha=[0.5, 5.0]).fit(X, Y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-8)


@pytest.mark.parametrize("alpha", [[-1.0], [np.nan], np.inf])
def test_array_alpha_is_validated_too(diabetes, alpha):
    X, y = diabetes
    with pytest.raises(ValueError, match="alpha"):
        Ridge(alpha=alpha).fit(X, y)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("name, solver", [("Ridge", "auto"), ("Ridge", "svd"), ("Ridge", "lsqr"), ("Lasso", None),
                                          ("ElasticNet", None), ("LinearRegression", None)])
@pytest.mark.parametrize("columns", [1, 2])
def test_a_one_column_y_gives_scikit_learns_shapes(diabetes, name, solver, fit_intercept, columns):
    """y of shape (n, 1): scikit-learn's Ridge, Lasso and ElasticNet give a 1-D coef_ (and scalar
    n_iter_, dual_gap_) with intercept_ of shape (1,), and predictions of shape (n,); its
    LinearRegression keeps (1, d) and (n, 1). lucidml gave (1, d) and (n, 1) for all four.
    Without an intercept all four give intercept_ = 0.0, whatever y's shape (lucidml: zeros)."""
    import lucidml.linear

    X, y = diabetes
    Y = np.column_stack([y, -y][:columns])
    params = {"fit_intercept": fit_intercept} if solver is None else {"solver": solver, "fit_intercept": fit_intercept}
    if name in ("Lasso", "ElasticNet"):
        params["alpha"] = 0.01
    ours = getattr(lucidml.linear, name)(**params).fit(X, Y)
    ref = getattr(linear_model, name)(**params).fit(X, Y)
    # (Ridge's n_iter_ is lucidml's largest over the targets, scikit-learn's one per target or None.)
    for attribute in ("coef_", "intercept_") + (("n_iter_", "dual_gap_") if name != "Ridge" else ()):
        if hasattr(ref, attribute):
            assert np.shape(getattr(ours, attribute)) == np.shape(getattr(ref, attribute)), attribute
    assert ours.predict(X).shape == ref.predict(X).shape
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-6)
    if columns == 1:
        one_d = getattr(lucidml.linear, name)(**params).fit(X, y)
        np.testing.assert_allclose(ours.predict(X).ravel(), one_d.predict(X))
    if not fit_intercept:
        assert ours.intercept_ == 0.0 and isinstance(ours.intercept_, float)
