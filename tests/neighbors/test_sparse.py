"""k-NN on SciPy sparse input (the inverted-index search) and on float32 data."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse
from sklearn import neighbors as skn

from lucidml.neighbors import KNeighborsClassifier, KNeighborsRegressor

from ..sparse_documents import documents


@pytest.fixture(scope="module")
def split():
    X, y = documents(1200)
    return X, y, documents(300, seed=1, empty=0.03)[0]  # some queries are empty


def _unique_sets(distances):
    """Rows whose k-th and (k+1)-th neighbours are not at (nearly) the same distance."""
    return ~np.isclose(distances[:, -2], distances[:, -1], rtol=1e-9, atol=0.0)


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_sparse_neighbours_equal_sklearn(metric, split):
    X, y, Q = split
    ours = KNeighborsClassifier(n_neighbors=5, metric=metric).fit(X, y)
    ref = skn.KNeighborsClassifier(n_neighbors=5, metric=metric, algorithm="brute").fit(X, y)
    distances, indices = ours.kneighbors(Q, n_neighbors=6)
    ref_distances, ref_indices = ref.kneighbors(Q, n_neighbors=6)
    np.testing.assert_allclose(distances, ref_distances, rtol=1e-9, atol=1e-12)
    # Where the 5th and 6th are equally far (empty queries, cosine's distance 1) the set is not unique.
    unique = _unique_sets(distances)
    assert unique.mean() > 0.9
    np.testing.assert_array_equal(np.sort(indices[unique, :5]), np.sort(ref_indices[unique, :5]))
    np.testing.assert_allclose(ours.predict_proba(Q)[unique], ref.predict_proba(Q)[unique])
    regression = KNeighborsRegressor(metric=metric, weights="distance").fit(X, y * 1.5)
    ref_regression = skn.KNeighborsRegressor(metric=metric, weights="distance", algorithm="brute").fit(X, y * 1.5)
    np.testing.assert_allclose(regression.predict(Q)[unique], ref_regression.predict(Q)[unique], rtol=1e-9)


@pytest.mark.parametrize("metric", ["euclidean", "minkowski", "l2", "cosine"])
def test_sparse_search_equals_dense_search_ties_included(metric, split):
    X, y, Q = split
    # Duplicated training rows and queries on them: exact ties, which both searches break by index.
    X = scipy.sparse.vstack([X, X[:100], X[50:150]], format="csr")
    y = np.concatenate([y, y[:100], y[50:150]])
    Q = scipy.sparse.vstack([Q, X[:40]], format="csr")
    sparse = KNeighborsClassifier(n_neighbors=7, metric=metric).fit(X, y)
    dense = KNeighborsClassifier(n_neighbors=7, metric=metric, algorithm="brute").fit(X.toarray(), y)
    distances, indices = sparse.kneighbors(Q)
    dense_distances, dense_indices = dense.kneighbors(Q.toarray())
    np.testing.assert_array_equal(indices, dense_indices)
    np.testing.assert_allclose(distances, dense_distances, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(sparse.predict(Q), dense.predict(Q.toarray()))
    # Without X each training point is left out of its own list, as on dense data.
    np.testing.assert_array_equal(sparse.kneighbors(return_distance=False), dense.kneighbors(return_distance=False))


def test_dense_and_sparse_queries_mix(split):
    X, y, Q = split
    dense_model = KNeighborsClassifier(n_neighbors=4, algorithm="brute").fit(X.toarray(), y)
    sparse_model = KNeighborsClassifier(n_neighbors=4).fit(X, y)
    expected = dense_model.kneighbors(Q.toarray())[1]
    np.testing.assert_array_equal(dense_model.kneighbors(Q)[1], expected)
    np.testing.assert_array_equal(sparse_model.kneighbors(Q.toarray())[1], expected)
    # A k-d tree over dense points answers sparse queries too (densified a block at a time).
    Xs, ys = X[:, :10].toarray(), y
    tree = KNeighborsRegressor(n_neighbors=3, algorithm="kd_tree").fit(Xs, ys)
    np.testing.assert_allclose(tree.predict(scipy.sparse.csr_matrix(Q[:, :10])), tree.predict(Q[:, :10].toarray()))


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
@pytest.mark.parametrize("container", ["dense", "csr"])
def test_float32_is_searched_in_float32(metric, container, split):
    X, y, Q = split
    X32, Q32 = X.astype(np.float32), Q.astype(np.float32)
    if container == "dense":
        X, Q, X32, Q32 = X.toarray(), Q.toarray(), X32.toarray(), Q32.toarray()
    ours = KNeighborsRegressor(n_neighbors=5, metric=metric, algorithm="brute").fit(X32, y * 1.0)
    assert ours._fit_X.dtype == np.float32 and ours._search.X_fit.dtype == np.float32  # no up-cast copy
    distances, indices = ours.kneighbors(Q32)
    ref_distances, ref_indices = KNeighborsRegressor(n_neighbors=5, metric=metric, algorithm="brute").fit(
        X, y * 1.0).kneighbors(Q)
    assert distances.dtype == np.float64 and ours.predict(Q32).dtype == np.float64
    np.testing.assert_allclose(distances, ref_distances, rtol=1e-5, atol=1e-6)
    assert np.mean(indices == ref_indices) > 0.95  # float32 rounding may reorder near-ties


def test_sparse_search_memory_does_not_grow_with_the_queries():
    X, y = documents(4000)
    Q, _ = documents(20_000, seed=1)
    model = KNeighborsClassifier(n_neighbors=5, n_jobs=1).fit(X, y)
    model.kneighbors(Q[:10])  # build the inverted index and compile outside the measurement
    tracemalloc.start()
    indices = model.kneighbors(Q, return_distance=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert indices.shape == (20_000, 5)
    full_matrix = 8 * Q.shape[0] * X.shape[0]  # 640 MB if all distances were held at once
    assert peak < 2 * indices.nbytes + Q.data.nbytes + 8 * 2**20 < full_matrix / 10


@pytest.mark.parametrize("magnitude", [1e200, 1e-200])
def test_sparse_extreme_magnitudes_find_the_same_neighbours(magnitude, split):
    X, y, Q = split
    plain = KNeighborsClassifier(n_neighbors=4).fit(X, y)
    scaled = KNeighborsClassifier(n_neighbors=4).fit(X * magnitude, y)
    distances, indices = scaled.kneighbors(Q * magnitude)
    expected_distances, expected_indices = plain.kneighbors(Q)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_allclose(distances, expected_distances * magnitude, rtol=1e-12)


def test_parallel_sparse_search_gives_identical_results():
    X, y = documents(3000)
    Q, _ = documents(3000, seed=2)
    model = KNeighborsClassifier(n_neighbors=5).fit(X, y)
    serial = model.set_params(n_jobs=1).kneighbors(Q)
    parallel = model.set_params(n_jobs=2).kneighbors(Q)
    np.testing.assert_array_equal(serial[1], parallel[1])
    np.testing.assert_array_equal(serial[0], parallel[0])


def test_sparse_input_with_unsupported_settings_is_refused(split):
    X, y, _ = split
    for params in ({"metric": "manhattan"}, {"metric": "minkowski", "p": 3}, {"metric": "chebyshev"},
                   {"metric": lambda a, b: 0.0}):
        with pytest.raises(ValueError, match="Sparse input supports metric 'euclidean'.*'cosine'"):
            KNeighborsClassifier(**params).fit(X, y)
        assert not KNeighborsClassifier(**params).__sklearn_tags__().input_tags.sparse
    with pytest.raises(ValueError, match="kd_tree' does not take sparse input"):
        KNeighborsClassifier(algorithm="kd_tree").fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        bad = X.copy()
        bad.data[0] = np.nan
        KNeighborsClassifier().fit(bad, y)
