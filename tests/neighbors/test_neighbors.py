"""k-NN against scikit-learn and SciPy, the weighting schemes, ties, memory and bad input."""

import tracemalloc

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn import neighbors as skn

from lucidml.datasets import load
from lucidml.neighbors import KNeighborsClassifier, KNeighborsRegressor

DATASETS = ["iris", "wine", "breast_cancer", "digits"]


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("algorithm", ["brute", "auto"])
@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_classifier_predictions_equal_sklearn(name, algorithm, weights):
    X, y = load(name)
    ours = KNeighborsClassifier(algorithm=algorithm, weights=weights).fit(X, y)
    ref = skn.KNeighborsClassifier(algorithm=algorithm, weights=weights).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    # Where the 5th and 6th nearest points are at the same distance (to rounding: iris's values have
    # one decimal, and √0.21 comes out in two last digits) the neighbour set is not unique (lucidml
    # keeps the lower index, scikit-learn's choice depends on its chunking and its rounding):
    # compare probabilities everywhere else.
    distances, _ = ours.kneighbors(X, n_neighbors=6)
    unique_set = ~np.isclose(distances[:, 4], distances[:, 5], rtol=1e-12, atol=0.0)
    assert unique_set.mean() > 0.75  # most rows are compared (iris, with its rounded values, has 19 % ties)
    np.testing.assert_allclose(ours.predict_proba(X)[unique_set], ref.predict_proba(X)[unique_set], atol=1e-4)


@pytest.mark.parametrize("metric, p", [("minkowski", 1), ("minkowski", 3), ("chebyshev", 2), ("cosine", 2)])
def test_other_metrics_equal_sklearn(metric, p):
    X, y = load("wine")
    ours = KNeighborsClassifier(metric=metric, p=p, algorithm="brute").fit(X, y)
    ref = skn.KNeighborsClassifier(metric=metric, p=p, algorithm="brute").fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_regressor_equals_sklearn_and_handles_multi_output():
    X, y = load("diabetes")
    for weights in ("uniform", "distance"):
        ours = KNeighborsRegressor(n_neighbors=7, weights=weights).fit(X[:300], y[:300])
        ref = skn.KNeighborsRegressor(n_neighbors=7, weights=weights).fit(X[:300], y[:300])
        np.testing.assert_allclose(ours.predict(X[300:]), ref.predict(X[300:]), rtol=1e-10)
    Y = np.column_stack([y, -2 * y])
    both = KNeighborsRegressor().fit(X, Y).predict(X[:10])
    np.testing.assert_allclose(both[:, 1], -2 * both[:, 0])


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("x_dtype", [np.float32, np.float64])
@pytest.mark.parametrize("y_dtype", [np.float32, np.float64, np.int64])
def test_regressor_predicts_in_scikit_learns_precision(weights, x_dtype, y_dtype):
    """A float32 y gives float32 predictions with uniform weights, as scikit-learn's, whatever X's
    type; otherwise float64. lucidml gave float64 for a float32 y."""
    X, y = load("diabetes")
    X, y = X.astype(x_dtype), y.astype(y_dtype)
    ours = KNeighborsRegressor(weights=weights).fit(X[:300], y[:300]).predict(X[300:])
    ref = skn.KNeighborsRegressor(weights=weights).fit(X[:300], y[:300]).predict(X[300:])
    assert ours.dtype == ref.dtype
    np.testing.assert_allclose(ours, ref, rtol=1e-5)
    Y = np.column_stack([y, y])
    assert KNeighborsRegressor(weights=weights).fit(X, Y).predict(X[:3]).dtype == ref.dtype


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
def test_kneighbors_are_the_true_nearest_points(algorithm):
    rng = np.random.default_rng(0)
    X, Q = rng.normal(size=(3000, 6)), rng.normal(size=(200, 6))
    distances, indices = KNeighborsRegressor(n_neighbors=8, algorithm=algorithm).fit(X, np.zeros(3000)).kneighbors(Q)
    exact = cdist(Q, X)
    np.testing.assert_array_equal(indices, np.argsort(exact, axis=1, kind="stable")[:, :8])
    np.testing.assert_allclose(distances, np.sort(exact, axis=1)[:, :8], rtol=1e-12)


def test_distance_ties_go_to_the_lower_index_across_tiles(monkeypatch):
    import lucidml.neighbors._search as search

    monkeypatch.setattr(search, "TRAIN_COLS", 7)  # many training tiles
    monkeypatch.setattr(search, "QUERY_ROWS", 3)
    X = np.repeat(np.arange(10.0), 5)[:, None]  # every point has 4 exact copies
    clf = KNeighborsClassifier(n_neighbors=3, algorithm="brute").fit(X, np.arange(50) % 2)
    _, indices = clf.kneighbors([[4.0], [9.0], [0.2]])
    np.testing.assert_array_equal(indices, [[20, 21, 22], [45, 46, 47], [0, 1, 2]])


def test_large_features_keep_accurate_distances():
    # ‖q‖² − 2q·x + ‖x‖² alone would cancel to ~1e-5 here; the winners are recomputed exactly.
    X, y = load("breast_cancer")
    distances, indices = KNeighborsClassifier(algorithm="brute").fit(X, y).kneighbors(X[:50])
    np.testing.assert_allclose(distances, np.take_along_axis(cdist(X[:50], X), indices, axis=1), atol=1e-10)


@pytest.mark.parametrize("metric", ["cosine", "correlation"])
def test_scale_free_metrics_find_the_same_neighbours_at_any_scale(metric):
    # SciPy's norms underflow to 0/0 near 1e-300; each row is rescaled by a power of 2 first (exact).
    X, y = load("wine")
    expected = KNeighborsClassifier(metric=metric).fit(X, y).kneighbors(X[:20])
    for scale in (1e-300, 1e-310, 1e300):
        got = KNeighborsClassifier(metric=metric).fit(X * scale, y).kneighbors(X[:20] * scale)
        np.testing.assert_array_equal(got[1], expected[1])
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-12, atol=1e-15)


def test_overflowing_distances_are_a_clear_error():
    X, y = load("wine")
    with pytest.raises(ValueError, match="infinite or NaN distances"):
        KNeighborsClassifier(metric="sqeuclidean").fit(X * 1e300, y).predict(X * 1e300)


def test_kneighbors_without_X_excludes_each_point_itself():
    X, y = load("iris")
    ours = KNeighborsClassifier(algorithm="brute").fit(X, y)
    ref = skn.KNeighborsClassifier(algorithm="brute").fit(X, y)
    d_ours, i_ours = ours.kneighbors()
    d_ref, _ = ref.kneighbors()
    assert not np.any(i_ours == np.arange(150)[:, None])
    np.testing.assert_allclose(d_ours, d_ref, atol=1e-6)


def test_weighting_schemes():
    X = np.array([[0.0], [1.0], [3.0], [10.0]])
    y = np.array([0, 1, 1, 0])
    query = [[0.9]]
    # uniform: 2 of 3 neighbours are class 1.
    assert KNeighborsClassifier(3).fit(X, y).predict_proba(query).tolist() == [[1 / 3, 2 / 3]]
    # distance: 1/0.9 for class 0 against 1/0.1 + 1/2.1 for class 1.
    w = np.array([1 / 0.1, 1 / 0.9, 1 / 2.1])
    expected = np.array([w[1], w[0] + w[2]]) / w.sum()
    np.testing.assert_allclose(KNeighborsClassifier(3, weights="distance").fit(X, y).predict_proba(query)[0], expected)
    # rank (004 §5): 3, 2, 1 for nearest to farthest; nearest is class 1, then 0, then 1.
    np.testing.assert_allclose(KNeighborsClassifier(3, weights="rank").fit(X, y).predict_proba(query)[0],
                               [2 / 6, 4 / 6])
    # per-rank array and a callable.
    np.testing.assert_allclose(KNeighborsClassifier(3, weights=[0, 1, 0]).fit(X, y).predict_proba(query)[0], [1, 0])
    gaussian = KNeighborsClassifier(3, weights=lambda d: np.exp(-(d**2))).fit(X, y)
    g = np.exp(-np.array([0.1, 0.9, 2.1]) ** 2)
    np.testing.assert_allclose(gaussian.predict_proba(query)[0], [g[1] / g.sum(), (g[0] + g[2]) / g.sum()])
    # an exact match takes the whole vote under distance weights.
    assert KNeighborsClassifier(3, weights="distance").fit(X, y).predict_proba([[3.0]]).tolist() == [[0.0, 1.0]]


def test_tied_vote_goes_to_the_smallest_label():
    X = np.array([[-1.0], [1.0]])
    clf = KNeighborsClassifier(n_neighbors=2).fit(X, ["b", "a"])
    assert clf.predict([[0.0]]).tolist() == ["a"]


def test_precomputed_distances_equal_raw_features():
    X, y = load("wine")
    D = cdist(X, X)
    raw = KNeighborsClassifier().fit(X, y).predict(X[:40])
    pre = KNeighborsClassifier(metric="precomputed").fit(D, y).predict(D[:40])
    np.testing.assert_array_equal(raw, pre)
    with pytest.raises(ValueError, match="square"):
        KNeighborsClassifier(metric="precomputed").fit(D[:, :10], y)


def test_parallel_search_gives_identical_results():
    rng = np.random.default_rng(1)
    X, Q = rng.normal(size=(4000, 10)), rng.normal(size=(3000, 10))
    model = KNeighborsRegressor(algorithm="brute").fit(X, rng.normal(size=4000))
    serial = model.set_params(n_jobs=1).kneighbors(Q)
    parallel = model.set_params(n_jobs=2).kneighbors(Q)
    np.testing.assert_array_equal(serial[1], parallel[1])


def test_brute_force_memory_does_not_grow_with_the_queries():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(5000, 20))
    model = KNeighborsRegressor(algorithm="brute", n_jobs=1).fit(X, rng.normal(size=5000))
    Q = rng.normal(size=(20_000, 20))
    tracemalloc.start()
    model.kneighbors(Q)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    full_matrix = 8 * len(Q) * len(X)  # 800 MB if all distances were held at once
    assert peak < 40 * 2**20 < full_matrix


def test_bad_input():
    X, y = load("iris")
    with pytest.raises(ValueError, match="n_neighbors = 200, n_samples_fit = 150"):
        KNeighborsClassifier(n_neighbors=200).fit(X, y).predict(X)
    with pytest.raises(ValueError, match="kd_tree' supports Minkowski metrics only"):
        KNeighborsClassifier(algorithm="kd_tree", metric="cosine").fit(X, y)
    with pytest.raises(ValueError, match="3 per-rank entries but n_neighbors=5"):
        KNeighborsClassifier(weights=[1, 2, 3]).fit(X, y)
    with pytest.raises(ValueError, match="weights\\(distances\\) returned shape"):
        KNeighborsClassifier(weights=lambda d: d[:, :1]).fit(X, y).predict(X)
    with pytest.raises(ValueError, match="features"):
        KNeighborsClassifier().fit(X, y).predict(X[:, :2])


def test_a_query_from_a_task_of_the_shared_pool_does_not_wait_on_it():
    """Brute-force queries split their blocks over the shared thread pool (utils._pool); made from
    tasks of that pool that keep every worker busy, they must run serially (waiting on the pool
    would wait forever), with the same answers."""
    from lucidml.utils._pool import thread_pool

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(2_500, 10)), rng.integers(0, 3, 2_500)  # 2,500² pairs: above SERIAL_BELOW
    model = KNeighborsClassifier(algorithm="brute", n_jobs=2).fit(X, y)
    expected = model.predict_proba(X)
    futures = [thread_pool(2).submit(model.predict_proba, X) for _ in range(2)]
    for future in futures:
        np.testing.assert_array_equal(future.result(timeout=120), expected)
