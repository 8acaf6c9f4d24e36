"""DBSCAN: scikit-learn's labels on blobs, moons and real data, the notes' point types, bad input."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.cluster import DBSCAN as SkDBSCAN
from sklearn.datasets import load_iris, load_wine, make_blobs, make_moons
from sklearn.preprocessing import StandardScaler

from lucidml.cluster import dbscan as dbscan_module
from lucidml.cluster.dbscan import DBSCAN
from lucidml.utils import InvalidParameterError


def _blobs_moons_noise():
    """Blobs, two moons and uniform noise side by side: clusters, border points and noise."""
    blobs, _ = make_blobs(n_samples=1200, centers=4, cluster_std=0.5, random_state=0)
    moons, _ = make_moons(n_samples=800, noise=0.06, random_state=0)
    noise = np.random.RandomState(0).uniform(-12, 12, size=(150, 2))
    return np.vstack([blobs, moons * 3 + [15.0, 0.0], noise])


X_MIXED = _blobs_moons_noise()


def _assert_same_as_sklearn(ours, theirs):
    # scikit-learn is deterministic and so is this DBSCAN: clusters are numbered by their first
    # core point and a border point takes the lowest-numbered cluster that reaches it, so the
    # labels agree exactly, border points included (a stronger statement than "up to permutation").
    np.testing.assert_array_equal(ours.core_sample_indices_, theirs.core_sample_indices_)
    core = ours.core_sample_indices_
    np.testing.assert_array_equal(ours.labels_[core], theirs.labels_[core])
    np.testing.assert_array_equal(ours.labels_ == -1, theirs.labels_ == -1)
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)
    np.testing.assert_array_equal(ours.components_, theirs.components_)


@pytest.mark.parametrize("algorithm", ["grid", "kd_tree", "brute"])
@pytest.mark.parametrize("metric, p", [("euclidean", None), ("manhattan", None), ("chebyshev", None),
                                       ("minkowski", 3)])
def test_same_labels_as_sklearn_on_blobs_moons_and_noise(algorithm, metric, p):
    ours = DBSCAN(eps=0.35, min_samples=6, algorithm=algorithm, metric=metric, p=p).fit(X_MIXED)
    theirs = SkDBSCAN(eps=0.35, min_samples=6, metric=metric, p=p).fit(X_MIXED)
    _assert_same_as_sklearn(ours, theirs)
    assert ours.labels_.max() + 1 >= 5  # four blobs and two moons, barely touched by noise
    assert 0 < np.sum(ours.point_type_ == "border") and 0 < np.sum(ours.labels_ == -1)


@pytest.mark.parametrize("loader, eps, min_samples", [(load_iris, 0.6, 5), (load_wine, 2.3, 5)])
@pytest.mark.parametrize("algorithm", ["auto", "kd_tree", "brute"])
def test_same_labels_as_sklearn_on_real_data(loader, eps, min_samples, algorithm):
    X = StandardScaler().fit_transform(loader().data)
    ours = DBSCAN(eps=eps, min_samples=min_samples, algorithm=algorithm).fit(X)
    theirs = SkDBSCAN(eps=eps, min_samples=min_samples).fit(X)
    _assert_same_as_sklearn(ours, theirs)
    assert ours.labels_.max() >= 1


def test_three_dimensional_grid_matches_sklearn():
    X, _ = make_blobs(n_samples=2000, n_features=3, centers=5, cluster_std=1.0, random_state=1)
    for n_jobs in (None, 2):
        _assert_same_as_sklearn(DBSCAN(eps=0.6, min_samples=8, n_jobs=n_jobs).fit(X),
                                SkDBSCAN(eps=0.6, min_samples=8).fit(X))


def test_sample_weight_including_negative_matches_sklearn():
    w = np.random.RandomState(1).uniform(-0.5, 2.0, size=len(X_MIXED))
    for algorithm in ("grid", "kd_tree", "brute"):
        ours = DBSCAN(eps=0.35, min_samples=6, algorithm=algorithm).fit(X_MIXED, sample_weight=w)
        _assert_same_as_sklearn(ours, SkDBSCAN(eps=0.35, min_samples=6).fit(X_MIXED, sample_weight=w))


def test_weight_of_min_samples_makes_a_lonely_point_core():
    X = np.array([[0.0], [10.0], [20.0]])
    db = DBSCAN(eps=1.0, min_samples=3).fit(X, sample_weight=[3.0, 1.0, 1.0])
    np.testing.assert_array_equal(db.labels_, [0, -1, -1])
    np.testing.assert_array_equal(db.core_sample_indices_, [0])


def test_precomputed_cosine_and_callable_metrics_match_sklearn():
    X = X_MIXED[::3]
    D = cdist(X, X)
    _assert_same_as_sklearn(DBSCAN(eps=0.35, min_samples=4, metric="precomputed").fit(D),
                            SkDBSCAN(eps=0.35, min_samples=4, metric="precomputed").fit(D))
    _assert_same_as_sklearn(DBSCAN(eps=0.02, min_samples=4, metric="cosine").fit(X),
                            SkDBSCAN(eps=0.02, min_samples=4, metric="cosine").fit(X))
    small = X[:120]

    def l1(a, b):
        return np.abs(a - b).sum()

    _assert_same_as_sklearn(DBSCAN(eps=0.5, min_samples=3, metric=l1).fit(small),
                            SkDBSCAN(eps=0.5, min_samples=3, metric=l1).fit(small))


@pytest.mark.parametrize("metric", ["cosine", "correlation"])
def test_scale_free_metrics_at_extreme_scales_equal_scale_one(metric):
    # SciPy's norms underflowed near 1e-300: every distance NaN, every point noise.
    X = X_MIXED[::3]
    expected = DBSCAN(eps=0.02, min_samples=4, metric=metric).fit(X).labels_
    for scale in (1e-300, 1e-310):
        np.testing.assert_array_equal(DBSCAN(eps=0.02, min_samples=4, metric=metric).fit(X * scale).labels_, expected)


def test_points_at_exactly_eps_are_neighbours():
    # An integer lattice: every distance 1 or √2 is a tie with ε.
    X = np.array([[i, j] for i in range(12) for j in range(9)], dtype=float)
    X = np.vstack([X, X[:30] + [40.0, 0.0]])
    for eps, min_samples in [(1.0, 5), (1.0, 4), (np.sqrt(2.0), 9), (2.0, 13)]:
        for algorithm in ("grid", "kd_tree", "brute"):
            _assert_same_as_sklearn(DBSCAN(eps=eps, min_samples=min_samples, algorithm=algorithm).fit(X),
                                    SkDBSCAN(eps=eps, min_samples=min_samples).fit(X))
    # min_samples counts the point itself: a lattice interior point has 4 neighbours + itself.
    assert np.all(DBSCAN(eps=1.0, min_samples=5).fit(X[:108]).point_type_.reshape(12, 9)[1:-1, 1:-1] == "core")
    assert np.all(DBSCAN(eps=1.0, min_samples=6).fit(X[:108]).labels_ == -1)


def test_notes_point_types_border_noise_and_first_cluster():
    # Two dense groups (cores at 0 and 4), point 9 lies within ε of one core of each group,
    # point 0 is scanned first but is only a border point of the second group, and 10 is alone.
    X = np.array([[5.75], [0.0], [0.3], [0.6], [6.0], [6.3], [6.6], [3.0], [3.3], [2.7], [50.0]])
    db = DBSCAN(eps=0.35, min_samples=3).fit(X)
    ours = db.labels_
    np.testing.assert_array_equal(ours, SkDBSCAN(eps=0.35, min_samples=3).fit(X).labels_)
    # point 0 was noise when first visited (too few neighbours), a later cluster made it border
    assert db.point_type_[0] == "border" and ours[0] == ours[4]
    assert db.point_type_[10] == "noise" and ours[10] == -1
    # clusters are numbered in the order of their first core point
    assert ours[2] == 0 and ours[5] == 1 and ours[7] == 2


def test_border_point_reachable_from_two_clusters_joins_the_first():
    # Cores of cluster 0 around x = 0, of cluster 1 around x = 2; the border point at x = 1
    # is within ε = 0.6 of a core of each (0.5 and 1.5) but has only 3 points within ε itself.
    left = [[-0.5], [-0.25], [0.0], [0.25], [0.5]]
    right = [[1.5], [1.75], [2.0], [2.25], [2.5]]
    for order in ([*left, *right], [*right, *left]):
        X = np.array([[1.0], *order])
        db = DBSCAN(eps=0.6, min_samples=4).fit(X)
        assert db.point_type_[0] == "border"
        first_cluster_member = 1  # the first group listed was scanned first, so it is cluster 0
        assert db.labels_[0] == db.labels_[first_cluster_member] == 0
        np.testing.assert_array_equal(db.labels_, SkDBSCAN(eps=0.6, min_samples=4).fit(X).labels_)


def test_point_types_are_consistent_with_labels_and_neighbourhoods():
    db = DBSCAN(eps=0.35, min_samples=6).fit(X_MIXED)
    D = cdist(X_MIXED, X_MIXED)
    is_core = np.zeros(len(X_MIXED), dtype=bool)
    is_core[db.core_sample_indices_] = True
    np.testing.assert_array_equal(is_core, (D <= 0.35).sum(axis=1) >= 6)
    np.testing.assert_array_equal(db.point_type_ == "core", is_core)
    np.testing.assert_array_equal(db.point_type_ == "noise", db.labels_ == -1)
    near_core = (D[:, is_core] <= 0.35).any(axis=1)
    np.testing.assert_array_equal(db.point_type_ == "border", ~is_core & near_core)
    # every border point shares a label with one of its core neighbours
    for i in np.flatnonzero(db.point_type_ == "border"):
        assert db.labels_[i] in db.labels_[np.flatnonzero(is_core & (D[i] <= 0.35))]


def test_partition_does_not_depend_on_sample_order():
    X, _ = make_blobs(n_samples=600, centers=3, cluster_std=0.4, random_state=3)
    perm = np.random.RandomState(0).permutation(len(X))
    a = DBSCAN(eps=0.5, min_samples=5).fit(X).labels_
    b = DBSCAN(eps=0.5, min_samples=5).fit(X[perm]).labels_
    pairs = set(zip(a[perm], b))  # a bijection between the two labellings
    assert len(pairs) == len({x for x, _ in pairs}) == len({y for _, y in pairs})


def test_only_core_neighbourhoods_are_stored():
    X = X_MIXED
    search = DBSCAN(eps=0.35, min_samples=6)._search(X)
    assert isinstance(search, dbscan_module._GridSearch)
    mass, indptr, indices, order = search.core_neighbourhoods(np.ones(len(X)), 6)
    counts = (cdist(X[order], X[order]) <= 0.35).sum(axis=1)
    np.testing.assert_array_equal(mass, counts)
    np.testing.assert_array_equal(np.diff(indptr), np.where(counts >= 6, counts, 0))
    assert indices.dtype == np.int32


def test_grid_falls_back_to_the_tree_for_a_tiny_eps():
    X = np.vstack([X_MIXED, [[1e8, 1e8]]])
    assert DBSCAN(eps=0.35)._search(X).__class__ is dbscan_module._TreeSearch
    _assert_same_as_sklearn(DBSCAN(eps=0.35, min_samples=6, algorithm="grid").fit(X),
                            SkDBSCAN(eps=0.35, min_samples=6).fit(X))


def test_single_point_duplicates_and_no_core():
    assert DBSCAN(min_samples=5).fit([[1.0, 2.0]]).labels_.tolist() == [-1]
    single = DBSCAN(min_samples=1).fit([[1.0, 2.0]])
    assert single.labels_.tolist() == [0] and single.point_type_.tolist() == ["core"]
    dupes = DBSCAN(eps=1e-9, min_samples=10).fit(np.ones((10, 3)))
    assert dupes.labels_.tolist() == [0] * 10 and len(dupes.core_sample_indices_) == 10
    none = DBSCAN(eps=0.01, min_samples=3).fit(np.arange(10.0)[:, None])
    assert none.components_.shape == (0, 1) and np.all(none.labels_ == -1)
    assert np.all(none.point_type_ == "noise")


def test_fit_predict_returns_labels():
    db = DBSCAN(eps=0.35, min_samples=6)
    np.testing.assert_array_equal(db.fit_predict(X_MIXED), db.fit(X_MIXED).labels_)


def test_bad_input():
    X = X_MIXED[:50]
    with pytest.raises(ValueError, match="NaN"):
        DBSCAN().fit(np.array([[0.0, 1.0], [np.nan, 2.0]]))
    with pytest.raises(InvalidParameterError, match="eps"):
        DBSCAN(eps=0.0).fit(X)
    with pytest.raises(InvalidParameterError, match="min_samples"):
        DBSCAN(min_samples=0).fit(X)
    with pytest.raises(InvalidParameterError, match="algorithm"):
        DBSCAN(algorithm="ball_tree").fit(X)
    with pytest.raises(ValueError, match="Minkowski"):
        DBSCAN(metric="cosine", algorithm="grid").fit(X)
    with pytest.raises(ValueError, match="square"):
        DBSCAN(metric="precomputed").fit(X)
    with pytest.raises(ValueError, match="Negative"):
        DBSCAN(metric="precomputed").fit(-np.ones((3, 3)))
    with pytest.raises(ValueError, match="sample_weight"):
        DBSCAN().fit(X, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="all zero"):
        DBSCAN().fit(X, sample_weight=np.zeros(len(X)))
    with pytest.raises(ValueError):
        DBSCAN().fit(np.empty((0, 2)))


def test_auto_lists_dense_neighbourhoods_by_brute_force():
    """10 features scaled to [0, 1] with ε = 0.5: each point has a third of the others within ε.
    The k-d tree hands them back as Python ints (16,000 points: 9.4 s); "auto" samples the
    neighbourhood sizes and takes the blocked distance matrix instead (1.9 s; scikit-learn 2.6 s),
    with the same clusters. Sparse neighbourhoods keep the tree."""
    X, _ = make_blobs(2_000, 10, random_state=0)
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    auto = DBSCAN()
    assert isinstance(auto._search(X), dbscan_module._BruteSearch)
    np.testing.assert_array_equal(auto.fit(X).labels_, DBSCAN(algorithm="kd_tree").fit(X).labels_)
    np.testing.assert_array_equal(auto.labels_, SkDBSCAN().fit(X).labels_)
    assert isinstance(DBSCAN(eps=0.05)._search(X), dbscan_module._TreeSearch)


def test_an_eps_beyond_every_distance_and_features_that_overflow():
    """eps = 5e154 made Python's eps ** 2 raise OverflowError, and features near 1e155 overflowed
    DBSCAN's squared distances; agglomerative clustering refuses such features by name."""
    from lucidml.cluster import AgglomerativeClustering

    X = np.random.default_rng(0).normal(size=(50, 2))
    for eps in (0.5e155, 1e300):
        assert np.all(DBSCAN(eps=eps).fit(X).labels_ == 0)
    # Searched in units of a power of 2 (exact): the clustering of X itself, for every Minkowski metric.
    for metric in ("euclidean", "manhattan", "chebyshev"):
        for algorithm in ("auto", "brute", "kd_tree"):
            labels = DBSCAN(eps=0.5, metric=metric, algorithm=algorithm).fit(X).labels_
            for scale in (1e155, 1e-200):
                scaled = DBSCAN(eps=0.5 * scale, metric=metric, algorithm=algorithm).fit(X * scale)
                np.testing.assert_array_equal(scaled.labels_, labels)
    with pytest.raises(ValueError, match="magnitude"):
        AgglomerativeClustering(3).fit(X * 1e160)
    # Metrics that square nothing take such features as they are.
    single = AgglomerativeClustering(3, linkage="single", metric="manhattan").fit(X).labels_
    np.testing.assert_array_equal(AgglomerativeClustering(3, linkage="single", metric="manhattan")
                                  .fit(X * 1e160).labels_, single)
