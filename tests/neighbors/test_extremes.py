"""Neighbour searches on extreme magnitudes: squared distances would overflow or underflow."""

import numpy as np
import pytest

from lucidml.neighbors import KNeighborsClassifier, KNeighborsRegressor


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
@pytest.mark.parametrize("magnitude", [1e160, 1e300, 1e-160, 1e-300])
def test_extreme_magnitudes_find_the_same_neighbours(algorithm, magnitude):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = rng.normal(size=60)
    queries = rng.normal(size=(10, 3))
    plain = KNeighborsRegressor(n_neighbors=4, algorithm=algorithm).fit(X, y)
    scaled = KNeighborsRegressor(n_neighbors=4, algorithm=algorithm, weights="distance").fit(X * magnitude, y)
    distances, indices = scaled.kneighbors(queries * magnitude)
    expected_distances, expected_indices = plain.kneighbors(queries)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_allclose(distances, expected_distances * magnitude, rtol=1e-12)
    assert np.all(np.isfinite(scaled.predict(queries * magnitude)))


def test_huge_queries_against_ordinary_training_points():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 2)), np.arange(30) % 3
    model = KNeighborsClassifier(n_neighbors=3, algorithm="brute").fit(X, y)
    far = np.array([[1e200, 0.0], [-1e200, 1e200]])
    distances, indices = model.kneighbors(far)
    assert indices.min() >= 0 and indices.max() < 30
    np.testing.assert_allclose(distances[:, 0], np.hypot(*far.T), rtol=1e-12)
    assert set(model.predict(far)) <= {0, 1, 2}


@pytest.mark.parametrize("offset, dtype", [(1e3, np.float32), (1e4, np.float32), (1e8, np.float64)])
def test_data_far_from_the_origin_get_their_true_neighbours(offset, dtype):
    """The brute search ranks points about the training mean: about the origin, float32 digits
    + 1,000 gave 38% of the queries a point that is not among their 5 nearest (100% at + 10,000,
    and float64 at + 1e8)."""
    from scipy.spatial.distance import cdist
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    shifted = (X + offset).astype(dtype)
    _, indices = KNeighborsClassifier(5, algorithm="brute").fit(shifted[::2], y[::2]).kneighbors(shifted[1::2])
    exact = cdist(X[1::2], X[::2])
    fifth = np.sort(exact, axis=1)[:, 4]
    assert np.all(np.take_along_axis(exact, indices, axis=1) <= fifth[:, None] + 1e-9)


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
@pytest.mark.parametrize("p", [1, 2.5, 3])
@pytest.mark.parametrize("magnitude", [1e200, 1e-200])
def test_minkowski_distances_of_any_order_are_rescaled(algorithm, p, magnitude):
    """|x|ᵖ overflowed (p = 3 at 1e200: every distance inf, and the heaps' placeholder indices came
    back, or an IndexError) or underflowed to 0: every Minkowski order is rescaled by a power of
    two, as the Euclidean search was."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    plain = KNeighborsClassifier(3, p=p, algorithm=algorithm).fit(X, y)
    scaled = KNeighborsClassifier(3, p=p, algorithm=algorithm).fit(X * magnitude, y)
    distances, _ = scaled.kneighbors(X[:20] * magnitude)
    np.testing.assert_allclose(distances / magnitude, plain.kneighbors(X[:20])[0], rtol=1e-10)
    np.testing.assert_array_equal(scaled.predict(X * magnitude), plain.predict(X))


def test_negative_precomputed_distances_and_weights_that_sum_to_zero_are_refused():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    negative = -np.abs(X[:, :1] - X[:, 0])
    with pytest.raises(ValueError, match="negative values"):
        KNeighborsClassifier(3, metric="precomputed").fit(negative, y)
    distances = np.abs(X[:, :1] - X[:, 0])
    model = KNeighborsClassifier(3, metric="precomputed").fit(distances, y)
    with pytest.raises(ValueError, match="negative values"):
        model.predict(-distances[:5])
    for weights in (lambda d: np.zeros_like(d), [1.0, -1.0]):
        with pytest.raises(ValueError, match="all 0|finite and ≥ 0"):
            KNeighborsRegressor(2, weights=weights).fit(X, y.astype(float)).predict(X[:3])
        with pytest.raises(ValueError, match="all 0|finite and ≥ 0"):
            KNeighborsClassifier(2, weights=weights).fit(X, y).predict_proba(X[:3])


def test_extreme_queries_over_many_blocks_and_threads_are_rescaled_once():
    """One exponent for the whole call (the training points rescaled once, not per block of 256
    queries): blocks of ordinary queries next to one of extreme ones find the same neighbours as
    each block alone, on one thread and on two."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(2000, 3)) * 1e200
    queries = rng.normal(size=(2100, 3)) * 1e200  # 4.2 million pairs: threads from 4 million
    queries[-5:] *= 1e100  # the last block alone is the most extreme
    model = KNeighborsRegressor(n_neighbors=3, algorithm="brute").fit(X, np.arange(2000.0))
    expected = [model.kneighbors(queries[s:s + 300]) for s in range(0, 2100, 300)]
    for n_jobs in (1, 2):
        model.set_params(n_jobs=n_jobs)
        distances, indices = model.kneighbors(queries)
        np.testing.assert_array_equal(indices, np.vstack([i for _, i in expected]))
        np.testing.assert_allclose(distances, np.vstack([d for d, _ in expected]), rtol=1e-12)
