"""Internal cluster validity: SSE, WSS/BSS/TSS, silhouette, proximity–incidence correlation, elbow."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import pdist
from sklearn import metrics as skm
from sklearn.cluster import AgglomerativeClustering, KMeans
from sklearn.datasets import load_digits, load_iris, load_wine, make_blobs

import lucidml.metrics._distance_sums as distance_sums
from lucidml.metrics import (
    elbow,
    proximity_incidence_correlation,
    silhouette_samples,
    silhouette_score,
    sse,
    wss_bss_tss,
)

ORACLE = 1e-10


def _data(name):
    X, y = {"iris": load_iris, "wine": load_wine, "digits": load_digits}[name](return_X_y=True)
    return X, y


def _kmeans_labels(X, k=4):
    return KMeans(n_clusters=k, n_init=2, random_state=0).fit_predict(X)


# --- sums of squares ------------------------------------------------------------------------


def test_tss_example_of_the_notes():
    # 002 §8.5.2: the points 1, 2, 4, 5; one cluster 10 + 0 = 10, two clusters 1 + 9 = 10.
    X = np.array([[1.0], [2.0], [4.0], [5.0]])
    assert wss_bss_tss(X, [0, 0, 0, 0]) == (10.0, 0.0, 10.0)
    assert wss_bss_tss(X, [0, 0, 1, 1]) == (1.0, 9.0, 10.0)
    assert sse(X, [0, 0, 1, 1]) == 1.0


@pytest.mark.parametrize("name", ["iris", "wine"])
def test_sse_is_kmeans_inertia_for_its_centres(name):
    X, _ = _data(name)
    model = KMeans(n_clusters=5, n_init=2, random_state=0).fit(X)
    assert sse(X, model.labels_, model.cluster_centers_) == pytest.approx(model.inertia_, rel=ORACLE)
    w = np.random.default_rng(0).uniform(0.5, 2.0, X.shape[0])
    weighted = KMeans(n_clusters=5, n_init=2, random_state=0).fit(X, sample_weight=w)
    got = sse(X, weighted.labels_, weighted.cluster_centers_, sample_weight=w)
    assert got == pytest.approx(weighted.inertia_, rel=ORACLE)


def test_sse_without_centres_is_the_within_sum_of_squares():
    X, y = _data("wine")
    wss, bss, _ = wss_bss_tss(X, y)
    assert sse(X, y) == pytest.approx(wss, rel=1e-12)
    # The cluster means minimize the SSE: any other centres give more.
    means = np.array([X[y == k].mean(axis=0) for k in range(3)])
    assert sse(X, y, means + 0.1) > sse(X, y, means)
    # Between sum of squares by its definition Σ|C_k|‖μ − μ_k‖².
    assert bss == pytest.approx(sum((y == k).sum() * np.sum((X.mean(0) - means[k]) ** 2) for k in range(3)), rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=0, max_value=10_000),
    st.integers(min_value=1, max_value=60),
    st.integers(min_value=1, max_value=8),
    st.floats(min_value=-1e3, max_value=1e3),
)
def test_total_is_within_plus_between(seed, n, n_labels, offset):
    rng = np.random.default_rng(seed)
    X = offset + rng.normal(size=(n, 3)) * rng.uniform(0.1, 10)
    labels = rng.integers(0, n_labels, n)
    wss, bss, tss = wss_bss_tss(X, labels)
    assert min(wss, bss) >= 0
    assert wss + bss == pytest.approx(tss, rel=1e-9, abs=1e-9)


def test_sse_bad_input():
    X = np.array([[0.0], [1.0], [2.0]])
    with pytest.raises(ValueError, match="inconsistent"):
        sse(X, [0, 1])
    with pytest.raises(ValueError, match="NaN"):
        sse(np.array([[0.0], [np.nan], [2.0]]), [0, 0, 1])
    with pytest.raises(ValueError, match="integers 0"):
        sse(X, [0, 1, 2], centers=[[0.0], [1.0]])
    with pytest.raises(ValueError, match="features"):
        sse(X, [0, 1, 1], centers=[[0.0, 1.0], [1.0, 0.0]])


# --- silhouette --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "metric"),
    [("iris", "euclidean"), ("wine", "euclidean"), ("digits", "euclidean"), ("iris", "manhattan"),
     ("wine", "cosine")],
)
def test_silhouette_matches_scikit_learn(name, metric):
    X, y = _data(name)
    for labels in (y, _kmeans_labels(X)):
        expected = skm.silhouette_samples(X, labels, metric=metric)
        np.testing.assert_allclose(silhouette_samples(X, labels, metric=metric), expected, rtol=0, atol=ORACLE)
        assert silhouette_score(X, labels, metric=metric) == pytest.approx(expected.mean(), abs=ORACLE)


def test_silhouette_precomputed_sparse_and_subsample_match_scikit_learn():
    X, y = _data("iris")
    D = skm.pairwise_distances(X)
    expected = skm.silhouette_samples(X, y)
    np.testing.assert_allclose(silhouette_samples(D, y, metric="precomputed"), expected, atol=ORACLE)
    np.testing.assert_allclose(silhouette_samples(scipy.sparse.csr_matrix(X), y), expected, atol=ORACLE)
    for metric, data in (("euclidean", X), ("precomputed", D)):
        got = silhouette_score(data, y, metric=metric, sample_size=60, random_state=3)
        assert got == pytest.approx(skm.silhouette_score(data, y, metric=metric, sample_size=60, random_state=3), abs=ORACLE)


def test_silhouette_blocks_and_threads_do_not_change_the_result(monkeypatch):
    X, _ = _data("wine")
    labels = _kmeans_labels(X, 6)
    expected = skm.silhouette_samples(X, labels)
    # A block of a few rows: many blocks, uneven last block, each split across clusters.
    monkeypatch.setattr(distance_sums, "_WORKING_MEMORY", 7 * 8 * X.shape[0])
    np.testing.assert_allclose(silhouette_samples(X, labels, n_jobs=2), expected, atol=ORACLE)
    np.testing.assert_allclose(silhouette_samples(X, labels, metric="manhattan"), skm.silhouette_samples(
        X, labels, metric="manhattan"), atol=ORACLE)


def test_silhouette_general_form_is_negative_for_a_misplaced_point():
    # The last point sits beside cluster 0 but is labelled 1: a < b fails, so s < 0, which the
    # notes' 1 − a/b on [0, 1] cannot express; the general form gives (b − a)/a.
    X = np.array([[0.0], [1.0], [10.0], [11.0], [2.0]])
    s = silhouette_samples(X, [0, 0, 1, 1, 1])
    a, b = np.mean([8.0, 9.0]), np.mean([2.0, 1.0])
    assert s[4] == pytest.approx((b - a) / a)
    assert s[4] < 0


def test_silhouette_singleton_is_zero_and_values_in_range():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    labels = np.r_[np.zeros(14), np.ones(15), 2].astype(int)
    s = silhouette_samples(X, labels)
    assert s[-1] == 0.0
    assert np.all((s >= -1) & (s <= 1))
    np.testing.assert_allclose(s, skm.silhouette_samples(X, labels), atol=ORACLE)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=3, max_value=40))
def test_silhouette_invariant_to_sample_order_and_label_names(seed, n):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    labels = rng.integers(0, 3, n)
    if not 1 < np.unique(labels).size < n:
        return
    s = silhouette_samples(X, labels)
    perm = rng.permutation(n)
    np.testing.assert_allclose(silhouette_samples(X[perm], 10 - labels[perm]), s[perm], atol=1e-12)


def test_silhouette_bad_input():
    X = np.arange(10.0).reshape(5, 2)
    with pytest.raises(ValueError, match="Number of labels is 1"):
        silhouette_samples(X, [0] * 5)
    with pytest.raises(ValueError, match="Number of labels is 5"):
        silhouette_score(X, [0, 1, 2, 3, 4])
    with pytest.raises(ValueError, match="inconsistent"):
        silhouette_samples(X, [0, 1, 0])
    with pytest.raises(ValueError, match="NaN"):
        silhouette_samples(np.where(X == 3.0, np.nan, X), [0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="square"):
        silhouette_samples(X, [0, 0, 1, 1, 1], metric="precomputed")
    with pytest.raises(ValueError, match="diagonal"):
        silhouette_samples(np.ones((5, 5)), [0, 0, 1, 1, 1], metric="precomputed")
    with pytest.raises(ValueError, match="sample_size"):
        silhouette_score(X, [0, 0, 1, 1, 1], sample_size=10)


def test_silhouette_memory_stays_far_below_the_distance_matrix():
    n = 20_000
    X, labels = make_blobs(n_samples=n, centers=[[0, 0], [0, 10], [10, 0], [10, 10]], random_state=0)
    silhouette_samples(X[:50], labels[:50])  # compile outside the measurement
    tracemalloc.start()
    s = silhouette_samples(X, labels)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < n * n * 8 / 100  # 32 MB against 3.2 GB for the matrix
    assert s.mean() > 0.5  # well-separated blobs


# --- proximity–incidence correlation -------------------------------------------------------------


def _pairwise_correlation(X, labels, metric):
    codes = np.unique(labels, return_inverse=True)[1].astype(float)
    incidence = (pdist(codes[:, None], "cityblock") == 0).astype(float)
    return np.corrcoef(pdist(X, metric), incidence)[0, 1]


@pytest.mark.parametrize("name", ["iris", "wine"])
def test_correlation_matches_the_pairwise_definition(name):
    X, y = _data(name)
    for labels in (y, _kmeans_labels(X)):
        got = proximity_incidence_correlation(X, labels)
        assert got == pytest.approx(_pairwise_correlation(X, labels, "euclidean"), abs=ORACLE)
        got = proximity_incidence_correlation(X, labels, metric="cityblock")
        assert got == pytest.approx(_pairwise_correlation(X, labels, "cityblock"), abs=ORACLE)
    D = skm.pairwise_distances(X)
    assert proximity_incidence_correlation(D, y, metric="precomputed") == pytest.approx(
        _pairwise_correlation(X, y, "euclidean"), abs=ORACLE)


def test_correlation_is_negative_for_crisp_clusters_and_near_zero_for_random_labels(monkeypatch):
    X, y = make_blobs(n_samples=600, centers=3, cluster_std=0.5, random_state=1)
    monkeypatch.setattr(distance_sums, "_WORKING_MEMORY", 50 * 8 * 600)
    crisp = proximity_incidence_correlation(X, y, n_jobs=2)
    assert crisp < -0.8
    assert crisp == pytest.approx(_pairwise_correlation(X, y, "euclidean"), abs=ORACLE)
    random_labels = np.random.default_rng(0).integers(0, 3, 600)
    assert abs(proximity_incidence_correlation(X, random_labels)) < 0.05


def test_correlation_bad_input():
    X = np.arange(8.0).reshape(4, 2)
    with pytest.raises(ValueError, match="Number of labels"):
        proximity_incidence_correlation(X, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="inconsistent"):
        proximity_incidence_correlation(X, [0, 1])
    with pytest.warns(RuntimeWarning, match="equal"):
        assert np.isnan(proximity_incidence_correlation(np.ones((4, 1)), [0, 0, 1, 1]))


# --- elbow -------------------------------------------------------------------------------------------


def test_elbow_is_the_inertia_of_each_fit_and_bends_at_the_true_k():
    X, _ = make_blobs(n_samples=300, centers=3, cluster_std=0.6, random_state=2)
    ks = [1, 2, 3, 4, 5]
    curve = elbow(X, ks, estimator=KMeans, random_state=0, n_init=2)
    for k, value in zip(ks, curve):
        assert value == KMeans(n_clusters=k, random_state=0, n_init=2).fit(X).inertia_
    assert np.all(np.diff(curve) < 0)
    # The elbow: SSE falls steeply up to k = 3, then flattens.
    drops = curve[:-1] / curve[1:]  # SSE(k) / SSE(k + 1)
    assert drops[1] == drops[1:].max() and drops[1] > 3 * drops[2]


def test_elbow_scores_a_clusterer_without_inertia_by_its_sse():
    X, _ = make_blobs(n_samples=80, centers=3, random_state=0)
    curve = elbow(X, [2, 3], estimator=AgglomerativeClustering, linkage="ward")
    for k, value in zip([2, 3], curve):
        assert value == pytest.approx(sse(X, AgglomerativeClustering(n_clusters=k, linkage="ward").fit(X).labels_))


def test_elbow_default_estimator_is_lucidml_kmeans():
    kmeans = pytest.importorskip("lucidml.cluster.kmeans")
    X, _ = make_blobs(n_samples=120, centers=3, random_state=0)
    curve = elbow(X, [1, 3], random_state=0)
    assert curve[0] == pytest.approx(wss_bss_tss(X, np.zeros(120))[2])
    assert curve[1] == pytest.approx(kmeans.KMeans(n_clusters=3, random_state=0).fit(X).inertia_)


def test_elbow_bad_input():
    X = np.arange(10.0).reshape(5, 2)
    with pytest.raises(ValueError, match="empty"):
        elbow(X, [], estimator=KMeans)
    with pytest.raises(ValueError, match="between 1 and n_samples"):
        elbow(X, [2, 6], estimator=KMeans)
    with pytest.raises(ValueError, match="NaN"):
        elbow(np.full((5, 2), np.nan), [2], estimator=KMeans)


def test_silhouette_stays_exact_for_data_far_from_the_origin():
    """The Gram-matrix distance route cancels at large offsets; centring keeps it exact."""
    from scipy.spatial.distance import cdist

    from lucidml.metrics import silhouette_samples as ours

    rng = np.random.default_rng(0)
    X = rng.normal(scale=0.5, size=(300, 3)) + 1e7
    labels = rng.integers(0, 3, size=300)
    D = cdist(X - 1e7, X - 1e7)  # the exact distances
    np.testing.assert_allclose(ours(X, labels), ours(D, labels, metric="precomputed"), atol=1e-9)


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "cosine"])
@pytest.mark.parametrize("sparse", [False, True])
def test_scale_free_measures_hold_at_extreme_magnitudes(metric, sparse):
    """Silhouettes and the proximity–incidence correlation are ratios and correlations of
    distances: squared distances of values from 1e154 overflowed (silhouette 0.0, as scikit-learn's;
    correlation NaN). X is now measured in units of a power of two."""
    X, y = load_iris(return_X_y=True)
    make = scipy.sparse.csr_matrix if sparse else np.asarray
    for scale in (1e160, 1e300, 1e-200):
        np.testing.assert_allclose(silhouette_score(make(X * scale), y, metric=metric),
                                   silhouette_score(X, y, metric=metric), rtol=1e-10)
        np.testing.assert_allclose(proximity_incidence_correlation(make(X * scale), y, metric=metric),
                                   proximity_incidence_correlation(X, y, metric=metric), rtol=1e-10)


def test_sums_of_squares_beyond_float64_are_refused_by_name():
    """WSS of values near 1e160 is beyond float64: it came back as inf without a word."""
    X = np.random.default_rng(0).standard_normal((30, 3))
    y = np.repeat([0, 1, 2], 10)
    np.testing.assert_allclose(sse(X * 1e120, y), sse(X, y) * 1e240, rtol=1e-12)
    for call in (lambda: sse(X * 1e160, y), lambda: wss_bss_tss(X * 1e160, y)):
        with pytest.raises(ValueError, match="overflowed float64.*2.33e\\+160"):
            call()
