"""LocallyWeightedRegression against a per-query loop, its limits, and 000 §7.9.1's example."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression

from lucidml.linear import locally_weighted
from lucidml.linear.locally_weighted import LocallyWeightedRegression


def loop_reference(X, y, queries, tau, sample_weight=None):
    """One weighted least-squares fit per query, as the notes describe it (slow, obvious)."""
    s = np.ones(len(y)) if sample_weight is None else sample_weight
    out = []
    for x_hat in queries:
        w = s * np.exp(-((X - x_hat) ** 2).sum(axis=1) / (2 * tau**2))
        A = np.column_stack([np.ones(len(y)), X])
        root = np.sqrt(w)
        theta = np.linalg.lstsq(A * root[:, None], y * root, rcond=None)[0]
        out.append(theta[0] + x_hat @ theta[1:])
    return np.array(out)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 - X[:, 2] + 0.1 * rng.normal(size=300)
    queries = rng.normal(size=(40, 3))
    return X, y, queries


@pytest.mark.parametrize("tau", [0.5, 1.0, 3.0])
def test_matches_per_query_loop(tau, data):
    X, y, queries = data
    ours = LocallyWeightedRegression(tau=tau, reg=0.0).fit(X, y).predict(queries)
    np.testing.assert_allclose(ours, loop_reference(X, y, queries, tau), rtol=1e-8, atol=1e-8)


def test_weighted_matches_per_query_loop(data):
    X, y, queries = data
    s = np.random.default_rng(1).uniform(0.1, 2.0, size=len(y))
    ours = LocallyWeightedRegression(tau=0.8, reg=0.0).fit(X, y, sample_weight=s).predict(queries)
    np.testing.assert_allclose(ours, loop_reference(X, y, queries, 0.8, s), rtol=1e-8, atol=1e-8)


def test_huge_bandwidth_is_ordinary_least_squares(data):
    X, y, queries = data
    ours = LocallyWeightedRegression(tau=1e5).fit(X, y).predict(queries)
    np.testing.assert_allclose(ours, LinearRegression().fit(X, y).predict(queries), rtol=1e-7, atol=1e-7)


def test_small_bandwidth_beats_a_global_line_on_a_sine():
    rng = np.random.default_rng(2)
    X = rng.uniform(-3, 3, size=(300, 1))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=300)
    grid = np.linspace(-2.5, 2.5, 101).reshape(-1, 1)
    truth = np.sin(2 * grid[:, 0])
    local = LocallyWeightedRegression(tau=0.1).fit(X, y).predict(grid)
    line = LinearRegression().fit(X, y).predict(grid)
    rmse_local, rmse_line = np.sqrt(np.mean((local - truth) ** 2)), np.sqrt(np.mean((line - truth) ** 2))
    assert rmse_local < 0.05  # measured 0.030 (τ = 0.2: 0.060, the bias of a wider window)
    assert rmse_local < rmse_line / 10  # the line has rmse 0.71


def test_notes_example_loess_on_a_bump():
    # 000 §7.9.1: y = 1/(1 + x²) + N(0, 0.1²) on x ~ U(−2, 2), τ = 0.2, gradient descent with
    # step 0.1 for 1000 iterations; queries on a grid of step 0.01.
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=200)
    y = 1.0 / (1.0 + X**2) + rng.normal(scale=0.1, size=200)
    grid = np.arange(-2, 2, 0.01).reshape(-1, 1)
    truth = 1.0 / (1.0 + grid[:, 0] ** 2)
    wls = LocallyWeightedRegression(tau=0.2).fit(X[:, None], y).predict(grid)
    gd = LocallyWeightedRegression(tau=0.2, solver="gd", lr=0.1, max_iter=1000, tol=0).fit(X[:, None], y).predict(grid)
    assert np.sqrt(np.mean((wls - truth) ** 2)) < 0.04  # measured 0.026
    assert np.sqrt(np.mean((gd - truth) ** 2)) < 0.04
    assert np.max(np.abs(gd - wls)) < 0.1  # 1000 steps are not quite converged at the edges (0.056)


def test_gd_converges_to_the_wls_solution(data):
    X, y, queries = data
    wls = LocallyWeightedRegression(tau=1.0).fit(X, y).predict(queries)
    gd = LocallyWeightedRegression(tau=1.0, solver="gd", lr=0.5, max_iter=20000, tol=1e-10).fit(X, y).predict(queries)
    np.testing.assert_allclose(gd, wls, atol=1e-6)


def test_gd_warns_when_it_runs_out_of_iterations(data):
    X, y, queries = data
    reg = LocallyWeightedRegression(solver="gd", max_iter=5, tol=1e-8).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        reg.predict(queries)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # tol=0 asks for a fixed number of steps
        LocallyWeightedRegression(solver="gd", max_iter=5, tol=0).fit(X, y).predict(queries)


def test_exactly_linear_data_is_reproduced_even_outside_the_data():
    X = np.linspace(-2, 2, 101).reshape(-1, 1)
    y = 2.0 * X[:, 0] + 1.0
    reg = LocallyWeightedRegression(tau=0.5).fit(X, y)
    np.testing.assert_allclose(reg.predict([[0.3], [3.0], [4.0]]), [1.6, 7.0, 9.0], atol=1e-5)


def test_far_queries_do_not_underflow_to_nan(data):
    X, y, _ = data
    far = np.array([[60.0, 60.0, 60.0], [-1e3, 0.0, 0.0]])
    assert np.all(np.exp(-((X[None] - far[:, None]) ** 2).sum(-1) / (2 * 0.1**2)) == 0)  # naive weights
    pred = LocallyWeightedRegression(tau=0.1).fit(X, y).predict(far)
    assert np.all(np.isfinite(pred))
    assert np.all((pred > y.min() - 10) & (pred < y.max() + 10))


def test_blocks_and_scatter_paths_do_not_change_predictions(data, monkeypatch):
    X, y, queries = data
    for solver in ["wls", "gd"]:
        reg = LocallyWeightedRegression(tau=0.7, solver=solver, tol=0, max_iter=200).fit(X, y)
        whole = reg.predict(queries)
        monkeypatch.setattr(locally_weighted, "_BLOCK_ENTRIES", 7 * len(y))  # blocks of 7 queries
        monkeypatch.setattr(locally_weighted, "_MAX_OUTER_ENTRIES", 0)  # per-query scatter matrices
        np.testing.assert_allclose(reg.predict(queries), whole, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(reg.predict(queries[3:4]), whole[3:4], rtol=1e-10, atol=1e-12)
        monkeypatch.undo()


def test_integer_weights_equal_repeated_samples(data):
    X, y, queries = data
    w = np.random.default_rng(3).integers(0, 3, size=len(y))
    for solver in ["wls", "gd"]:
        est = LocallyWeightedRegression(tau=0.7, solver=solver, max_iter=300, tol=0)
        weighted = est.fit(X, y, sample_weight=w).predict(queries)
        repeated = est.fit(np.repeat(X, w, axis=0), np.repeat(y, w)).predict(queries)
        np.testing.assert_allclose(weighted, repeated, rtol=1e-8, atol=1e-10)


def test_tiny_weights_give_finite_predictions_or_a_clear_error(data):
    """Weights near 1e−300 left "gd" with NaN (the moments underflowed). Now the moments are taken
    in units of the largest weight: "wls" answers, and "gd", whose fixed step cannot follow the
    curvature that the ridge gets against such weights, says so instead of returning NaN."""
    X, y, queries = data
    w = np.full(len(y), 1e-300)
    assert np.isfinite(LocallyWeightedRegression(tau=0.7).fit(X, y, sample_weight=w).predict(queries)).all()
    with pytest.raises(ValueError, match="diverged.*lower lr"):
        LocallyWeightedRegression(tau=0.7, solver="gd").fit(X, y, sample_weight=w).predict(queries)
    # In the weights' own units nothing changed: moderate weights scaled by 1e10 give the same fit.
    w = np.random.default_rng(4).uniform(0.5, 2.0, size=len(y))
    est = LocallyWeightedRegression(tau=0.7, solver="gd", max_iter=300, tol=0)
    expected = est.fit(X, y, sample_weight=w).predict(queries)
    np.testing.assert_allclose(est.fit(X, y, sample_weight=1e10 * w).predict(queries), expected, rtol=1e-6)


def test_unpenalized_singular_local_problem_falls_back_to_minimum_norm():
    X = np.ones((4, 2))  # every sample at the same point: no local slope is identifiable
    y = np.array([1.0, 2.0, 3.0, 6.0])
    pred = LocallyWeightedRegression(reg=0.0).fit(X, y).predict([[1.0, 1.0], [2.0, 0.0]])
    np.testing.assert_allclose(pred, [3.0, 3.0])


def test_fit_is_lazy_and_stores_the_data(data):
    X, y, _ = data
    reg = LocallyWeightedRegression().fit(X, y)
    np.testing.assert_array_equal(reg.X_fit_, X)
    np.testing.assert_array_equal(reg.y_fit_, y)
    np.testing.assert_array_equal(reg.sample_weight_, np.ones(len(y)))


def test_bad_input_is_rejected(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="tau"):
        LocallyWeightedRegression(tau=0.0).fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        LocallyWeightedRegression(solver="newton").fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        LocallyWeightedRegression().fit(np.where(X > 2, np.nan, X), y)
    reg = LocallyWeightedRegression().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        reg.predict(X[:, :2])


def test_prediction_memory_is_bounded_in_the_number_of_features():
    # issue 20: the d × d scatter matrices of all queries of a block were allocated at once (3.7 GB at d = 400)
    import tracemalloc

    rng = np.random.default_rng(0)
    X, queries = rng.normal(size=(300, 200)), rng.normal(size=(400, 200))
    model = LocallyWeightedRegression(tau=5.0, reg=1e-3).fit(X, X[:, 0])
    tracemalloc.start()
    model.predict(queries)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # measured 54 MB (blocks of a fixed number of entries); the unbounded blocks needed 400 · 200² · 8 B = 128 MB
    # per block and more
    assert peak < 100e6


def test_extreme_bandwidths_reach_their_limits(data):
    """τ = 1e200 (the least-squares limit) raised an OverflowError from τ²; τ = 1e-200 gave NaN
    weights and an error that blamed solver='gd' (the solver was 'wls'). Now the limits: the
    global least-squares line, and each training row's own target."""
    X, y, queries = data
    wide = LocallyWeightedRegression(tau=1e200).fit(X, y).predict(queries)
    np.testing.assert_allclose(wide, LinearRegression().fit(X, y).predict(queries), rtol=1e-7, atol=1e-7)
    narrow = LocallyWeightedRegression(tau=1e-200).fit(X, y).predict(X[:10])
    np.testing.assert_allclose(narrow, y[:10], rtol=1e-6)
