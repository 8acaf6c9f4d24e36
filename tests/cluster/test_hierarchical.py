"""AgglomerativeClustering (AGNES) and DIANA: SciPy's heights, scikit-learn's labels, hand examples."""

import warnings

import numpy as np
import pytest
from scipy.cluster.hierarchy import (
    cophenet,
    dendrogram,
    fcluster,
    is_monotonic,
    is_valid_linkage,
    linkage,
)
from scipy.spatial.distance import pdist, squareform
from sklearn.cluster import AgglomerativeClustering as SkAgglomerative
from sklearn.datasets import load_iris, make_blobs, make_moons
from sklearn.metrics import adjusted_rand_score

from lucidml.cluster.agglomerative import AgglomerativeClustering
from lucidml.cluster.diana import DIANA

LINKAGES = ["single", "complete", "average", "centroid", "ward"]
TOL = 1e-10

# A 5-object dissimilarity matrix (objects a, b, c, d, e) small enough to cluster by hand.
KR = np.array([
    [0, 2, 6, 10, 9],
    [2, 0, 5, 9, 8],
    [6, 5, 0, 4, 5],
    [10, 9, 4, 0, 3],
    [9, 8, 5, 3, 0],
], dtype=float)


def _data(name):
    if name == "random":
        return np.random.default_rng(0).normal(size=(200, 4))
    if name == "blobs":
        return make_blobs(n_samples=300, n_features=5, centers=4, random_state=1)[0]
    return load_iris().data  # has duplicate rows, hence tied heights


def _fit_quiet(X, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # centroid inversions
        return AgglomerativeClustering(**params).fit(X)


@pytest.mark.parametrize("data", ["random", "blobs", "iris"])
@pytest.mark.parametrize("method", LINKAGES)
def test_heights_and_tree_match_scipy(method, data):
    X = _data(data)
    Z = _fit_quiet(X, n_clusters=3, linkage=method).linkage_
    Zs = linkage(X, method)
    assert is_valid_linkage(Z)
    np.testing.assert_allclose(np.sort(Z[:, 2]), np.sort(Zs[:, 2]), rtol=0, atol=TOL)
    np.testing.assert_allclose(cophenet(Z), cophenet(Zs), rtol=0, atol=TOL)
    for k in (2, 3, 7):
        assert adjusted_rand_score(fcluster(Z, k, "maxclust"), fcluster(Zs, k, "maxclust")) == 1.0
    if data != "iris":  # no tied heights: the very same matrix, ids and sizes included
        np.testing.assert_array_equal(Z[:, [0, 1, 3]], Zs[:, [0, 1, 3]])


@pytest.mark.parametrize("metric, scipy_metric", [("manhattan", "cityblock"), ("cosine", "cosine"),
                                                  ("chebyshev", "chebyshev")])
@pytest.mark.parametrize("method", ["single", "complete", "average"])
def test_other_metrics_match_scipy(method, metric, scipy_metric):
    X = _data("random")[:120]
    Z = AgglomerativeClustering(linkage=method, metric=metric).fit(X).linkage_
    Zs = linkage(X, method, metric=scipy_metric)
    np.testing.assert_allclose(Z[:, 2], Zs[:, 2], rtol=0, atol=TOL)
    np.testing.assert_array_equal(Z[:, [0, 1, 3]], Zs[:, [0, 1, 3]])


@pytest.mark.parametrize("method", ["single", "complete", "average"])
def test_precomputed_and_callable_equal_euclidean(method):
    X = _data("random")[:80]
    Z = AgglomerativeClustering(linkage=method).fit(X).linkage_
    D = squareform(pdist(X))
    Zp = AgglomerativeClustering(linkage=method, metric="precomputed").fit(D).linkage_
    Zc = AgglomerativeClustering(linkage=method, metric=lambda A: squareform(pdist(A))).fit(X).linkage_
    np.testing.assert_allclose(Zp, Z, rtol=0, atol=TOL)
    np.testing.assert_allclose(Zc, Z, rtol=0, atol=TOL)


@pytest.mark.parametrize("method", ["ward", "complete", "average", "single"])
@pytest.mark.parametrize("data", ["blobs", "moons"])
def test_labels_match_sklearn(method, data):
    if data == "blobs":
        X, k = make_blobs(n_samples=400, n_features=3, centers=4, random_state=0)[0], 4
    else:
        X, k = make_moons(n_samples=300, noise=0.05, random_state=0)[0], 2
    ours = AgglomerativeClustering(n_clusters=k, linkage=method, compute_distances=True).fit(X)
    theirs = SkAgglomerative(n_clusters=k, linkage=method, compute_distances=True).fit(X)
    assert adjusted_rand_score(ours.labels_, theirs.labels_) == 1.0
    np.testing.assert_allclose(ours.distances_, theirs.distances_, rtol=0, atol=TOL)
    assert ours.n_clusters_ == k and ours.n_leaves_ == len(X) and ours.n_connected_components_ == 1
    assert ours.children_.shape == (len(X) - 1, 2)
    np.testing.assert_array_equal(ours.fit_predict(X), ours.labels_)
    if method != "single":  # same children_ ⇒ scikit-learn's very numbering
        np.testing.assert_array_equal(ours.children_, theirs.children_)
        np.testing.assert_array_equal(ours.labels_, theirs.labels_)


def test_single_linkage_recovers_the_moons():
    X, y = make_moons(n_samples=300, noise=0.05, random_state=0)
    labels = AgglomerativeClustering(n_clusters=2, linkage="single").fit(X).labels_
    assert adjusted_rand_score(y, labels) == 1.0


@pytest.mark.parametrize("method", ["ward", "average", "single"])
def test_distance_threshold(method):
    X = make_blobs(n_samples=200, n_features=2, centers=3, random_state=2)[0]
    t = 2.5
    model = AgglomerativeClustering(n_clusters=None, distance_threshold=t, linkage=method).fit(X)
    assert model.n_clusters_ == np.count_nonzero(model.distances_ >= t) + 1
    assert len(np.unique(model.labels_)) == model.n_clusters_
    # Same partition as SciPy's cut at height t and as scikit-learn's threshold.
    assert adjusted_rand_score(model.labels_, fcluster(model.linkage_, t, "distance")) == 1.0
    theirs = SkAgglomerative(n_clusters=None, distance_threshold=t, linkage=method).fit(X)
    assert theirs.n_clusters_ == model.n_clusters_
    assert adjusted_rand_score(model.labels_, theirs.labels_) == 1.0
    # A threshold above the root height leaves one cluster, zero leaves every point alone.
    top = model.distances_.max()
    assert AgglomerativeClustering(None, distance_threshold=top + 1, linkage=method).fit(X).n_clusters_ == 1
    assert AgglomerativeClustering(None, distance_threshold=0.0, linkage=method).fit(X).n_clusters_ == len(X)


def test_dendrogram_draws_the_linkage():
    X = _data("blobs")[:60]
    for model in (AgglomerativeClustering(linkage="ward").fit(X), DIANA().fit(X)):
        tree = dendrogram(model.linkage_, no_plot=True)
        assert sorted(tree["leaves"]) == list(range(len(X)))
        assert len(tree["icoord"]) == len(X) - 1
        assert is_monotonic(model.linkage_)


def test_hand_example_agglomerative():
    # single: {a,b} 2, {d,e} 3, {c,d,e} 4, all 5;  average: c–{d,e} = (4+5)/2, {a,b}–{c,d,e} = 47/6.
    single = AgglomerativeClustering(linkage="single", metric="precomputed").fit(KR)
    np.testing.assert_allclose(single.linkage_, [[0, 1, 2, 2], [3, 4, 3, 2], [2, 6, 4, 3], [5, 7, 5, 5]])
    average = AgglomerativeClustering(linkage="average", metric="precomputed").fit(KR)
    np.testing.assert_allclose(average.linkage_[:, 2], [2, 3, 4.5, 47 / 6])
    complete = AgglomerativeClustering(linkage="complete", metric="precomputed").fit(KR)
    np.testing.assert_allclose(complete.linkage_[:, 2], [2, 3, 5, 10])
    assert adjusted_rand_score(single.labels_, [0, 0, 1, 1, 1]) == 1.0


def test_centroid_inversion_warns():
    # Equilateral triangle: two corners merge at 1, their midpoint is √3/2 < 1 from the third.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3) / 2]])
    with pytest.warns(UserWarning, match="inversion"):
        model = AgglomerativeClustering(n_clusters=1, linkage="centroid").fit(X)
    np.testing.assert_allclose(model.linkage_[:, 2], [1.0, np.sqrt(3) / 2], atol=TOL)
    np.testing.assert_allclose(model.linkage_, linkage(X, "centroid"), atol=TOL)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AgglomerativeClustering(n_clusters=1, linkage="ward").fit(X)  # ward is monotone


def test_heights_do_not_depend_on_sample_order():
    X = _data("random")
    perm = np.random.default_rng(1).permutation(len(X))
    for method in ("ward", "average", "single"):
        h = AgglomerativeClustering(linkage=method).fit(X).linkage_[:, 2]
        hp = AgglomerativeClustering(linkage=method).fit(X[perm]).linkage_[:, 2]
        np.testing.assert_allclose(h, hp, rtol=0, atol=TOL)


@pytest.mark.parametrize("method", LINKAGES)
def test_duplicate_points(method):
    X = np.repeat(np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]]), 4, axis=0)
    model = _fit_quiet(X, n_clusters=3, linkage=method)
    heights = np.sort(model.linkage_[:, 2])
    assert np.all(heights[:9] == 0.0) and np.all(heights[9:] > 0)
    assert adjusted_rand_score(model.labels_, np.repeat([0, 1, 2], 4)) == 1.0
    all_alone = _fit_quiet(X, n_clusters=len(X), linkage=method).labels_
    assert len(np.unique(all_alone)) == len(X)


@pytest.mark.parametrize("Est", [AgglomerativeClustering, DIANA])
def test_bad_input(Est):
    X = _data("random")[:10]
    with pytest.raises(ValueError, match="more clusters than samples"):
        Est(n_clusters=11).fit(X)
    with pytest.raises(ValueError, match="1 sample"):
        Est(n_clusters=1).fit(X[:1])
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Est().fit(X_nan)
    with pytest.raises(ValueError, match="Exactly one of n_clusters"):
        Est(n_clusters=None).fit(X)
    with pytest.raises(ValueError, match="Exactly one of n_clusters"):
        Est(n_clusters=2, distance_threshold=1.0).fit(X)
    precomputed = {"metric": "precomputed"} | ({"linkage": "average"} if Est is AgglomerativeClustering else {})
    with pytest.raises(ValueError, match="square"):
        Est(**precomputed).fit(X)
    asym = squareform(pdist(X))
    asym[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        Est(**precomputed).fit(asym)
    with pytest.raises(ValueError, match="n_clusters"):
        Est(n_clusters=0).fit(X)


def test_bad_settings_agglomerative():
    X = _data("random")[:10]
    for method in ("ward", "centroid"):
        with pytest.raises(ValueError, match="euclidean"):
            AgglomerativeClustering(linkage=method, metric="manhattan").fit(X)
    with pytest.raises(ValueError, match="compute_full_tree"):
        AgglomerativeClustering(None, distance_threshold=1.0, compute_full_tree=False).fit(X)
    with pytest.raises(ValueError, match="linkage"):
        AgglomerativeClustering(linkage="median").fit(X)


def test_diana_hand_example():
    # Whole set, diameter 10 (a–d). Mean dissimilarities a 27/4, b 6, c 5, d 26/4, e 25/4: seed a.
    # Rest {b,c,d,e}: b has 22/3 − 2 > 0 (largest), c 14/3 − 6 < 0, d, e < 0: move b; then
    # c (9/2 − 11/2), d, e all negative: stop. {a,b} | {c,d,e}.
    # {c,d,e} (diameter 5): seed c (mean 9/2); d: 3 − 4 < 0, e: 3 − 5 < 0: {c} | {d,e}.
    # Then {d,e} at 3 and {a,b} at 2.
    model = DIANA(n_clusters=2, metric="precomputed").fit(KR)
    np.testing.assert_allclose(model.linkage_, [[0, 1, 2, 2], [3, 4, 3, 2], [2, 6, 5, 3], [5, 7, 10, 5]])
    np.testing.assert_array_equal(model.labels_, [1, 1, 0, 0, 0])
    # Last cluster before standing alone: a, b → 2; d, e → 3; c → 5.
    assert model.divisive_coefficient_ == pytest.approx(1 - (2 + 2 + 3 + 3 + 5) / 50)
    three = DIANA(n_clusters=3, metric="precomputed").fit(KR).labels_
    assert adjusted_rand_score(three, [0, 0, 1, 2, 2]) == 1.0
    by_threshold = DIANA(n_clusters=None, distance_threshold=4.0, metric="precomputed").fit(KR)
    assert by_threshold.n_clusters_ == 3 and adjusted_rand_score(by_threshold.labels_, three) == 1.0


def test_diana_splinter_moves_several_objects():
    # 1-D points 0, 1, 2, 10, 11: the seed is 11 (largest mean distance); 10 follows it, the
    # points near 0 stay; the first split is {0,1,2} | {10,11} at the diameter 11.
    X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0]])
    model = DIANA(n_clusters=2).fit(X)
    assert adjusted_rand_score(model.labels_, [0, 0, 0, 1, 1]) == 1.0
    np.testing.assert_allclose(model.distances_, [1, 1, 2, 11])


def test_diana_recovers_blobs_and_heights_are_diameters():
    X, y = make_blobs(n_samples=240, n_features=3, centers=4, cluster_std=0.5, random_state=3)
    model = DIANA(n_clusters=4).fit(X)
    assert adjusted_rand_score(y, model.labels_) == 1.0
    Z, n = model.linkage_, len(X)
    assert is_valid_linkage(Z) and np.all(np.diff(Z[:, 2]) >= 0)
    D = squareform(pdist(X))
    members = [[i] for i in range(n)]
    for a, b, height, size in Z:
        members.append(members[int(a)] + members[int(b)])
        assert size == len(members[-1])
        assert height == pytest.approx(D[np.ix_(members[-1], members[-1])].max(), abs=TOL)


def test_diana_random_data_monotone_and_manhattan():
    X = _data("random")
    for metric in ("euclidean", "manhattan"):
        Z = DIANA(metric=metric).fit(X).linkage_
        assert is_monotonic(Z)
        assert Z[-1, 2] == pytest.approx(pdist(X, "cityblock" if metric == "manhattan" else "euclidean").max())


def test_diana_duplicates_and_tiny_input():
    X = np.array([[1.0, 1.0]] * 3 + [[5.0, 5.0]] * 2)
    model = DIANA(n_clusters=2).fit(X)
    np.testing.assert_array_equal(np.sort(model.distances_), [0, 0, 0, np.sqrt(32)])
    assert adjusted_rand_score(model.labels_, [0, 0, 0, 1, 1]) == 1.0
    two = DIANA(n_clusters=2).fit(np.array([[0.0], [3.0]]))
    np.testing.assert_allclose(two.linkage_, [[0, 1, 3, 2]])


def test_ward_heights_exact_far_from_the_origin():
    from scipy.cluster.hierarchy import linkage as scipy_linkage

    X = np.random.default_rng(0).normal(size=(150, 3)) + 1e6
    ours = AgglomerativeClustering(n_clusters=3, linkage="ward").fit(X).linkage_[:, 2]
    np.testing.assert_allclose(ours, scipy_linkage(X, "ward")[:, 2], rtol=1e-10)


@pytest.mark.parametrize("Est", [AgglomerativeClustering, DIANA])
def test_cosine_at_extreme_scales_equals_scale_one(Est):
    # SciPy's cosine underflows to 0/0 near 1e-300; rows are rescaled by a power of 2 first (exact).
    X = np.abs(np.random.default_rng(1).normal(size=(60, 4)))
    params = {"n_clusters": 3, "metric": "cosine"} | ({"linkage": "average"} if Est is AgglomerativeClustering else {})
    expected = Est(**params).fit(X).labels_
    for scale in (1e-300, 1e-310):
        np.testing.assert_array_equal(Est(**params).fit(X * scale).labels_, expected)


def test_centroid_threshold_cut_follows_scipy_despite_inversions():
    from scipy.cluster.hierarchy import fcluster
    from sklearn.metrics import adjusted_rand_score

    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(40):
        X = rng.normal(size=(25, 2))
        Z = AgglomerativeClustering(n_clusters=2, linkage="centroid").fit(X).linkage_
        if not np.any(np.diff(Z[:, 2]) < 0):
            continue
        for t in Z[:, 2] + 1e-9:
            model = AgglomerativeClustering(n_clusters=None, distance_threshold=t, linkage="centroid")
            with pytest.warns(UserWarning):
                labels = model.fit(X).labels_
            expected = fcluster(Z, t, "distance")  # no height lies in (h, h + 1e-9]: ≤ t and < t agree
            assert adjusted_rand_score(expected, labels) == 1.0
            checked += 1
    assert checked > 20


def test_precomputed_matrix_needs_a_zero_diagonal():
    X = np.random.default_rng(0).normal(size=(10, 2))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)) + 1.0
    with pytest.raises(ValueError, match="diagonal"):
        AgglomerativeClustering(metric="precomputed", linkage="average").fit(D)
