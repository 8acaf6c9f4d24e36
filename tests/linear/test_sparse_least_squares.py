"""Least squares and ridge on sparse and float32 data (issue 21): both routes of the implicit-centring
engine (normal equations from the sparse product, LSQR) against scikit-learn's dense solutions."""

import warnings

import numpy as np
import pytest
import scipy.sparse
from sklearn import linear_model as sk
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning

from lucidml.linear import LeastSquaresClassifier, LinearRegression, Ridge
from lucidml.linear import _sparse_least_squares as engine
from lucidml.utils.centered import centered_gram


def _sparse_problem(n=300, d=40, density=0.2, seed=0, n_targets=1):
    rng = np.random.default_rng(seed)
    X = scipy.sparse.random(n, d, density=density, format="csr", random_state=seed) * 3.0
    w = rng.normal(size=(d, n_targets))
    Y = X @ w + 0.5 + 0.1 * rng.normal(size=(n, n_targets))
    return X, (Y[:, 0] if n_targets == 1 else Y), rng.uniform(0.2, 2.0, n)


@pytest.fixture
def lsqr_only(monkeypatch):
    """Every sparse problem goes to LSQR, as one with many features would."""
    monkeypatch.setattr(engine, "GRAM_MAX_FEATURES", 0)


@pytest.mark.parametrize("route", ["gram", "lsqr"])
def test_sparse_ridge_matches_scikit_learn_dense(route, request):
    if route == "lsqr":
        request.getfixturevalue("lsqr_only")
    X, y, weight = _sparse_problem(n_targets=2)
    ours = Ridge(alpha=2.0, tol=1e-12).fit(X, y, sample_weight=weight)
    reference = sk.Ridge(alpha=2.0, solver="cholesky").fit(X.toarray(), y, sample_weight=weight)
    np.testing.assert_allclose(ours.coef_, reference.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours.intercept_, reference.intercept_, rtol=1e-8)
    assert (ours.sigma2_ is None) == (route == "lsqr")
    assert ours.n_iter_ >= 1


def test_lsqr_solver_on_dense_data_equals_cholesky():
    X, y, _ = _sparse_problem()
    iterative = Ridge(alpha=1.0, solver="lsqr", tol=1e-12).fit(X.toarray(), y)
    direct = Ridge(alpha=1.0, solver="cholesky").fit(X.toarray(), y)
    np.testing.assert_allclose(iterative.coef_, direct.coef_, rtol=1e-8, atol=1e-10)
    assert iterative.n_iter_ > 1 and direct.n_iter_ == 1


@pytest.mark.parametrize("route", ["gram", "lsqr"])
def test_sparse_linear_regression_matches_scikit_learn_dense(route, request):
    if route == "lsqr":
        request.getfixturevalue("lsqr_only")
    X, y, weight = _sparse_problem()
    ours = LinearRegression(tol=1e-12).fit(X, y, sample_weight=weight)
    reference = sk.LinearRegression().fit(X.toarray(), y, sample_weight=weight)
    np.testing.assert_allclose(ours.coef_, reference.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.intercept_, reference.intercept_, rtol=1e-7)
    assert ours.rank_ == (X.shape[1] if route == "gram" else None)


def test_sparse_underdetermined_least_squares_is_the_minimum_norm_solution():
    X, y, _ = _sparse_problem(n=30, d=80, density=0.3)
    ours = LinearRegression(tol=1e-14).fit(X, y)  # XᵀX singular: the Gram route falls back to LSQR
    dense = LinearRegression().fit(X.toarray(), y)  # LAPACK's minimum-norm solution
    np.testing.assert_allclose(ours.coef_, dense.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ours.predict(X), y, atol=1e-6)


def test_large_column_means_do_not_cancel():
    """A column far from zero would lose its digits in XᵀX − n x̄x̄ᵀ; the Gram matrix is then centred
    block by block, and equals the dense one."""
    X, y, _ = _sparse_problem()
    X = X.tolil()
    X[:, 0] = 1e6 + np.arange(X.shape[0])[:, None] * 1e-2
    X = X.tocsr()
    y = y + 3.0 * X[:, [0]].toarray().ravel()
    mean = np.asarray(X.mean(axis=0)).ravel()
    gram, moment = centered_gram(X, y[:, None], None, mean, np.array([y.mean()]))
    centred = X.toarray() - mean
    np.testing.assert_allclose(gram, centred.T @ centred, rtol=1e-10, atol=1e-6)
    np.testing.assert_allclose(moment[:, 0], centred.T @ (y - y.mean()), rtol=1e-10, atol=1e-6)
    ours = Ridge(alpha=1e-3, tol=1e-14).fit(X, y)
    reference = sk.Ridge(alpha=1e-3, solver="cholesky").fit(X.toarray(), y)
    np.testing.assert_allclose(ours.predict(X), reference.predict(X.toarray()), rtol=1e-7)


def test_sparse_return_std_equals_dense():
    X, y, _ = _sparse_problem()
    sparse_mean, sparse_std = Ridge(alpha=0.5).fit(X, y).predict(X[:20], return_std=True)
    dense_mean, dense_std = Ridge(alpha=0.5).fit(X.toarray(), y).predict(X[:20].toarray(), return_std=True)
    np.testing.assert_allclose(sparse_mean, dense_mean, rtol=1e-9)
    np.testing.assert_allclose(sparse_std, dense_std, rtol=1e-9)


def test_lsqr_fit_has_no_posterior_and_says_so(lsqr_only):
    X, y, _ = _sparse_problem()
    model = Ridge(alpha=0.5).fit(X, y)
    with pytest.raises(ValueError, match="return_std"):
        model.predict(X, return_std=True)


def test_lsqr_iteration_limit_warns(lsqr_only):
    X, y, _ = _sparse_problem()
    with pytest.warns(ConvergenceWarning, match="LSQR stopped at max_iter=2"):
        model = Ridge(alpha=1e-6, max_iter=2, tol=1e-14).fit(X, y)
    assert model.n_iter_ == 2


@pytest.mark.parametrize(("estimator", "match"), [
    (Ridge(solver="svd"), "dense X"),
    (LinearRegression(solver="gd"), "dense X"),
    (LinearRegression(solver="sgd"), "dense X"),
    (LeastSquaresClassifier(degree=2), "degree=1"),
    (LeastSquaresClassifier(standardize=True), "standardize=False"),
])
def test_solvers_that_need_dense_data_say_so(estimator, match):
    X, y, _ = _sparse_problem()
    with pytest.raises(ValueError, match=match):
        estimator.fit(X, y > np.median(y) if isinstance(estimator, LeastSquaresClassifier) else y)


def test_normal_solver_refuses_a_singular_sparse_system():
    X, y, _ = _sparse_problem(n=30, d=80, density=0.3)
    with pytest.raises(ValueError, match="singular"):
        LinearRegression(solver="normal").fit(X, y)


@pytest.mark.parametrize("alpha", [0.0, 3.0])
def test_sparse_least_squares_classifier_matches_dense(alpha, lsqr_only):
    X, y, weight = _sparse_problem()
    labels = np.digitize(y, np.quantile(y, [0.3, 0.7]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sparse = LeastSquaresClassifier(alpha=alpha).fit(X, labels, sample_weight=weight)
    dense = LeastSquaresClassifier(alpha=alpha).fit(X.toarray(), labels, sample_weight=weight)
    # LSQR stops at a relative residual of 1e-6: the scores agree to about that.
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X.toarray()), atol=2e-5)


def test_float32_gram_is_accumulated_in_float64():
    """A float32 Gram matrix is centred and multiplied in float32 blocks of a few thousand rows whose
    sums are added in float64: over 200,000 rows it is 10× closer to the exact one than a single
    float32 product (scikit-learn's) is, and within 1e-7 of its largest entry."""
    rng = np.random.default_rng(0)
    X = rng.normal(1.0, 1.0, (200_000, 5)).astype(np.float32)
    y = rng.normal(size=(200_000, 1))
    x_mean = X.mean(axis=0, dtype=np.float64)
    exact_gram, exact_moment = centered_gram(X.astype(np.float64), y, None, x_mean, y.mean(axis=0))
    gram, moment = centered_gram(X, y, None, x_mean, y.mean(axis=0))
    assert gram.dtype == np.float64 and moment.dtype == np.float64
    centred = X - x_mean.astype(np.float32)
    one_product = centred.T @ centred
    error, one_product_error = np.abs(gram - exact_gram).max(), np.abs(one_product - exact_gram).max()
    assert error <= 1e-7 * np.abs(exact_gram).max() and 10 * error <= one_product_error
    # The moment Xcᵀyc is near 0 here (y independent of X): its error is measured against the
    # Cauchy–Schwarz bound ‖xⱼ‖‖y‖ of its entries.
    bound = np.sqrt(np.diag(exact_gram) * np.sum((y - y.mean()) ** 2))
    assert np.all(np.abs(moment - exact_moment)[:, 0] <= 1e-7 * bound)


@pytest.mark.parametrize("solver, n_samples", [("svd", 569), ("cholesky", 20)])  # 20 < 30 features: the dual route
def test_float32_ridge_by_svd_or_dual_solves_in_float64(solver, n_samples):
    """Breast cancer's raw features span 1e-3 to 1e3: float32's SVD counted the small ones as
    missing and moved the predictions by 0.5 (of 0/1 targets). Both routes run on a float64 copy of
    the float32 values and match the float64 fit on them."""
    X, y = load_breast_cancer(return_X_y=True)
    single_X, y = X[:n_samples].astype(np.float32), y[:n_samples]
    for alpha in (1e-6, 1.0):
        single = Ridge(alpha=alpha, solver=solver).fit(single_X, y)
        double = Ridge(alpha=alpha, solver=solver).fit(single_X.astype(np.float64), y)
        assert single.coef_.dtype == np.float32
        np.testing.assert_allclose(single.predict(single_X), double.predict(single_X.astype(np.float64)), atol=2e-5)


def test_float32_ridge_is_float32_and_close_to_float64():
    X, y, _ = _sparse_problem()
    for data in (X.toarray(), X):
        single = Ridge(alpha=1.0).fit(data.astype(np.float32), y)
        double = Ridge(alpha=1.0).fit(data, y)
        assert single.coef_.dtype == np.float32 and single.predict(data.astype(np.float32)).dtype == np.float32
        np.testing.assert_allclose(single.coef_, double.coef_, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("layout", ["dense", "csr", "float32", "unweighted"])
def test_centered_gram_about_any_centre(layout):
    """With ``at_means=False`` the centres need not be the weighted means (IRLS keeps its centre while
    its weights change): the Gram matrix and moment are those of the explicitly centred X and Y."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 6)) * (rng.uniform(size=(300, 6)) < 0.3)
    Y = rng.normal(size=(300, 2))
    weights = np.ones(300) if layout == "unweighted" else rng.uniform(0.1, 2.0, 300)
    x_centre, y_centre = rng.normal(scale=0.2, size=6), rng.normal(size=2)
    Xc, Yc = X - x_centre, Y - y_centre
    expected_gram, expected_moment = Xc.T @ (weights[:, None] * Xc), Xc.T @ (weights[:, None] * Yc)
    data = {"dense": X, "csr": scipy.sparse.csr_matrix(X), "float32": X.astype(np.float32), "unweighted": X}[layout]
    # Unweighted float64 takes the one-product path (XᵀX − cx̄ᵀ − x̄cᵀ + n x̄x̄ᵀ), as a sparse X does.
    gram, moment = centered_gram(data, Y, None if layout == "unweighted" else weights, x_centre, y_centre,
                                 at_means=False)
    rtol = 1e-5 if layout == "float32" else 1e-12
    np.testing.assert_allclose(gram, expected_gram, rtol=rtol, atol=rtol * np.abs(expected_gram).max())
    np.testing.assert_allclose(moment, expected_moment, rtol=rtol, atol=rtol * np.abs(expected_moment).max())


def test_centered_gram_about_any_centre_keeps_a_sparse_x_sparse(monkeypatch):
    """About other centres (Newton's and IRLS's systems) a sparse X is never densified: one column
    filled at 90% made LogisticRegression(solver='newton') on 20,000 × 1,501 take 3.0 s, not 0.2."""
    from lucidml.utils import centered

    rng = np.random.default_rng(0)
    X = scipy.sparse.random(2000, 50, density=0.02, format="csr", random_state=0)
    X = scipy.sparse.hstack([X, scipy.sparse.csr_matrix(rng.uniform(1.0, 2.0, (2000, 1)))]).tocsr()
    weights = rng.uniform(0.1, 2.0, 2000)
    centre = np.asarray(X.mean(axis=0)).ravel()
    dense_blocks = []
    monkeypatch.setattr(centered, "blas_gram", lambda block: dense_blocks.append(block.shape) or block.T @ block)
    gram, _ = centered_gram(X, np.ones((2000, 1)), weights, centre, np.zeros(1), at_means=False)
    assert dense_blocks == []
    Xc = X.toarray() - centre
    np.testing.assert_allclose(gram, Xc.T @ (weights[:, None] * Xc), rtol=1e-9, atol=1e-9)
