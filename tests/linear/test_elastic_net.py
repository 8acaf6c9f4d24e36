"""Lasso and elastic net: scikit-learn's solutions, optimality conditions, sparsity along the path."""

import numpy as np
import pytest
from sklearn import linear_model

from lucidml.datasets import load
from lucidml.linear import ElasticNet, Lasso, enet_path, lasso_path


@pytest.fixture(scope="module")
def diabetes():
    return load("diabetes")


@pytest.mark.parametrize("alpha", [0.001, 0.01, 0.1, 1.0])
@pytest.mark.parametrize("l1_ratio", [1.0, 0.5, 0.1])
def test_matches_sklearn_on_diabetes(diabetes, alpha, l1_ratio):
    X, y = diabetes
    ours = ElasticNet(alpha=alpha, l1_ratio=l1_ratio, tol=1e-10, max_iter=100_000).fit(X, y)
    ref = linear_model.ElasticNet(alpha=alpha, l1_ratio=l1_ratio, tol=1e-10, max_iter=100_000).fit(X, y)
    scale = np.abs(ref.coef_).max()
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-4, atol=1e-6 * scale)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-6)
    np.testing.assert_array_equal(ours.coef_ == 0, ref.coef_ == 0)


def test_default_tolerance_matches_sklearn_on_synthetic_data():
    X, y = load("regression", n_samples=2000, n_features=100, random_state=0)
    ours, ref = Lasso(alpha=0.5).fit(X, y), linear_model.Lasso(alpha=0.5).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-4, atol=1e-4 * np.abs(ref.coef_).max())


def test_kkt_conditions_hold(diabetes):
    """At the optimum, xⱼᵀr/n = α sign(wⱼ) on the support and |xⱼᵀr/n| ≤ α off it."""
    X, y = diabetes
    alpha = 0.05
    model = Lasso(alpha=alpha, tol=1e-12, max_iter=100_000).fit(X, y)
    correlation = X.T @ (y - model.predict(X)) / len(y)
    support = model.coef_ != 0
    np.testing.assert_allclose(correlation[support], alpha * np.sign(model.coef_[support]), rtol=1e-5)
    assert np.all(np.abs(correlation[~support]) <= alpha * (1 + 1e-6))
    assert 0 < support.sum() < X.shape[1]
    assert model.dual_gap_ >= 0


def test_sparsity_pattern_as_alpha_grows(diabetes):
    """The notes' lasso picture: exact zeros appear one by one; above α_max every weight is zero."""
    X, y = diabetes
    alphas, coefs, gaps = lasso_path(X, y, n_alphas=30, tol=1e-8)
    nonzero = (coefs != 0).sum(axis=0)
    assert nonzero[0] == 0 and nonzero[-1] == X.shape[1]
    assert np.all(np.diff(nonzero) >= -1)  # mostly entering, a feature may leave once
    alpha_max = np.max(np.abs((X - X.mean(0)).T @ (y - y.mean()))) / len(y)
    np.testing.assert_allclose(alphas[0], alpha_max)
    assert not np.any(Lasso(alpha=alpha_max * 1.001).fit(X, y).coef_)
    assert np.any(Lasso(alpha=alpha_max * 0.99).fit(X, y).coef_)
    ref_alphas, ref_coefs, _ = linear_model.lasso_path(X - X.mean(0), y - y.mean(), alphas=alphas, tol=1e-8)
    np.testing.assert_allclose(coefs, ref_coefs, atol=1e-3 * np.abs(ref_coefs).max())


def test_warm_start_path_costs_fewer_sweeps(diabetes):
    X, y = diabetes
    alphas = np.geomspace(1.0, 1e-3, 20)
    cold = sum(Lasso(alpha=a, tol=1e-8, max_iter=100_000).fit(X, y).n_iter_ for a in alphas)
    model, warm = Lasso(tol=1e-8, max_iter=100_000, warm_start=True), 0
    for a in alphas:
        warm += model.set_params(alpha=a).fit(X, y).n_iter_
    assert warm < cold
    _, coefs, _ = enet_path(X, y, l1_ratio=1.0, alphas=alphas, tol=1e-8, max_iter=100_000)
    np.testing.assert_allclose(coefs[:, -1], model.coef_, atol=1e-6 * np.abs(model.coef_).max())


def test_objective_decreases_every_sweep(diabetes):
    X, y = diabetes
    curve = ElasticNet(alpha=0.01, l1_ratio=0.7, tol=1e-10, max_iter=10_000).fit(X, y).loss_curve_
    assert np.all(np.diff(curve) <= 1e-12 * curve[0])


def test_weights_positive_random_selection_and_multi_target(diabetes):
    X, y = diabetes
    w = np.random.default_rng(0).uniform(0.5, 2, len(y))
    kw = dict(alpha=0.1, tol=1e-10, max_iter=100_000)
    ours = Lasso(**kw).fit(X, y, sample_weight=w)
    ref = linear_model.Lasso(**kw).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-4, atol=1e-6 * np.abs(ref.coef_).max())
    pos = Lasso(positive=True, **kw).fit(X, y)
    assert np.all(pos.coef_ >= 0)
    np.testing.assert_allclose(pos.coef_, linear_model.Lasso(positive=True, **kw).fit(X, y).coef_, atol=1e-4)
    rand = Lasso(selection="random", random_state=0, **kw).fit(X, y)
    np.testing.assert_allclose(rand.coef_, Lasso(**kw).fit(X, y).coef_, atol=1e-4)
    multi = Lasso(**kw).fit(X, np.column_stack([y, -y]))
    np.testing.assert_allclose(multi.coef_[1], -multi.coef_[0], atol=1e-8)


def test_bad_input(diabetes):
    X, y = diabetes
    with pytest.raises(ValueError, match="alpha"):
        Lasso(alpha=-0.1).fit(X, y)
    with pytest.raises(ValueError, match="l1_ratio"):
        ElasticNet(l1_ratio=1.5).fit(X, y)
    with pytest.warns(UserWarning, match="alpha=0"):
        Lasso(alpha=0.0, max_iter=5).fit(X, y)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Lasso().fit(bad, y)


def test_constant_target_and_collinear_features(diabetes):
    X, _ = diabetes
    model = Lasso(alpha=0.1).fit(X, np.full(len(X), 3.0))
    assert not np.any(model.coef_) and model.intercept_ == pytest.approx(3.0)
    doubled = np.column_stack([X, X[:, 2]])
    pred = Lasso(alpha=0.01, tol=1e-10, max_iter=100_000).fit(doubled, X[:, 2] * 5)
    assert np.all(np.isfinite(pred.coef_))
    assert pred.coef_[2] + pred.coef_[-1] == pytest.approx(5 - 0.01 * len(X) / np.sum((X[:, 2] - X[:, 2].mean()) ** 2),
                                                           rel=1e-4)


def test_a_dense_active_set_takes_scikit_learns_sweeps():
    """More than half the features active: every sweep is full and the gap is checked once the
    steps settle, so the fit runs scikit-learn's sweeps and stops at the same point."""
    from sklearn.datasets import make_regression

    X, y = make_regression(n_samples=2000, n_features=200, n_informative=150, noise=5.0, random_state=0)
    ours = ElasticNet(alpha=1.0).fit(X, y)
    reference = linear_model.ElasticNet(alpha=1.0).fit(X, y)
    assert 2 * np.count_nonzero(reference.coef_) > X.shape[1]
    assert ours.n_iter_ == reference.n_iter_
    np.testing.assert_allclose(ours.dual_gap_, reference.dual_gap_, rtol=1e-6)
    np.testing.assert_allclose(ours.coef_, reference.coef_, rtol=1e-7, atol=1e-9)


def test_pure_l2_elastic_net_converges_to_ridge(diabetes):
    """l1_ratio=0 has no L1 term: the ridge dual gives the stopping test (scikit-learn's α/2 scaling)."""
    from sklearn.exceptions import ConvergenceWarning

    X, y = diabetes
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = ElasticNet(alpha=0.3, l1_ratio=0.0, tol=1e-8, max_iter=10_000).fit(X, y)
    ridge = linear_model.Ridge(alpha=0.3 * len(y)).fit(X, y)
    np.testing.assert_allclose(model.coef_, ridge.coef_, rtol=1e-5)
    assert model.n_iter_ < 10_000 and 0 <= model.dual_gap_ < 1e-6 * np.var(y)


def _sparse_regression(seed=0):
    import scipy.sparse

    rng = np.random.default_rng(seed)
    X = scipy.sparse.random(400, 60, density=0.1, format="csr", random_state=seed) * 4.0
    w = np.where(rng.uniform(size=60) < 0.3, rng.normal(size=60), 0.0)
    return X, X @ w + 1.0 + 0.05 * rng.normal(size=400), rng.uniform(0.0, 2.0, 400)


@pytest.mark.parametrize(("l1_ratio", "positive"), [(1.0, False), (0.5, False), (0.7, True)])
def test_sparse_input_matches_sklearn_with_weights(l1_ratio, positive):
    """Implicit centring of a sparse X (the residual carries the means) gives the dense solution."""
    X, y, weight = _sparse_regression()
    weight[:10] = 0.0  # samples of weight 0 take no part
    ours = ElasticNet(alpha=0.01, l1_ratio=l1_ratio, positive=positive, tol=1e-12, max_iter=100_000)
    ours.fit(X, y, sample_weight=weight)
    ref = linear_model.ElasticNet(alpha=0.01, l1_ratio=l1_ratio, positive=positive, tol=1e-12, max_iter=100_000)
    ref.fit(X.toarray(), y, sample_weight=weight)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-7)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X.toarray()), rtol=1e-7)
    assert ours.dual_gap_ >= 0


def test_sparse_and_dense_fits_take_the_same_steps():
    X, y, _ = _sparse_regression(seed=1)
    sparse, dense = Lasso(alpha=0.02).fit(X, y), Lasso(alpha=0.02).fit(X.toarray(), y)
    assert sparse.n_iter_ == dense.n_iter_
    np.testing.assert_allclose(sparse.loss_curve_, dense.loss_curve_, rtol=1e-9)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-9, atol=1e-12)


def test_float32_fit_keeps_float32():
    X, y = load("regression", n_samples=500, n_features=20, random_state=0)
    single = ElasticNet(alpha=0.1).fit(X.astype(np.float32), y)
    double = ElasticNet(alpha=0.1).fit(X, y)
    assert single.coef_.dtype == np.float32 and single.predict(X.astype(np.float32)).dtype == np.float32
    np.testing.assert_allclose(single.coef_, double.coef_, rtol=1e-4, atol=1e-4 * np.abs(double.coef_).max())


def test_alpha_max_gives_exact_zeros_without_a_convergence_warning():
    """At α = α_max round-off used to move one coefficient between 0 and ±1e-17 forever: the fit ran to
    max_iter and warned with a duality gap of 0. Zero is decided exactly there, and the gap is checked
    after every full sweep."""
    import warnings

    from lucidml.linear import enet_path, lasso_path

    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 4))
    y = X @ np.array([3.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=80)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        alphas, coefs, _ = lasso_path(X, y, n_alphas=12)
        _, enet_coefs, _ = enet_path(X, y, n_alphas=12, l1_ratio=0.5)
        at_max = Lasso(alpha=alphas[0]).fit(X, y)
    assert np.all(coefs[:, 0] == 0.0) and np.all(enet_coefs[:, 0] == 0.0)
    assert np.all(at_max.coef_ == 0.0) and at_max.n_iter_ == 1
    below = Lasso(alpha=alphas[0] * (1 - 1e-6)).fit(X, y)  # just below α_max one coefficient enters
    assert np.count_nonzero(below.coef_) == 1


def test_path_of_a_constant_problem_and_bad_grid_settings():
    """A constant y (or X after centring, or one sample) gave α_max = 0 and NumPy's "Geometric
    sequence cannot include zero"; a bad eps or n_alphas reached ElasticNet's checks or NumPy."""
    X = np.random.RandomState(0).randn(20, 3)
    for Xi, yi in ((X, np.full(20, 5.0)), (np.ones((20, 3)), X[:, 0]), (X[:1], np.array([1.0]))):
        alphas, coefs, _ = lasso_path(Xi, yi, n_alphas=3)
        np.testing.assert_array_equal(alphas, np.full(3, np.finfo(np.float64).resolution))
        np.testing.assert_array_equal(coefs, 0.0)
    for bad in ({"eps": 0.0}, {"eps": np.nan}, {"n_alphas": 0}, {"n_alphas": 2.5}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            lasso_path(X, X[:, 0], **bad)
