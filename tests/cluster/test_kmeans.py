"""KMeans and BisectingKMeans: oracle tests against scikit-learn, properties, the notes' examples, bad input."""

import warnings

import numpy as np
import pytest
import scipy.sparse
import sklearn.cluster as skc
from sklearn.datasets import load_iris, load_wine, make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from lucidml.cluster.bisecting_kmeans import BisectingKMeans
from lucidml.cluster.kmeans import KMeans

from ..sparse_documents import documents as make_documents
from ..utils.test_interrupt import interrupt_during


@pytest.fixture(scope="module")
def blobs():
    """Well-separated blobs."""
    return make_blobs(2000, 5, centers=6, cluster_std=0.6, random_state=0)


@pytest.fixture(scope="module")
def hard_blobs():
    """Overlapping blobs: Lloyd needs many iterations and restarts end in different minima."""
    return make_blobs(4000, 6, centers=6, cluster_std=5.0, random_state=3)


def _sse(X, labels, centers, weight=None):
    """The notes' distortion J = Σ wᵢ ‖xᵢ − c_{ℓᵢ}‖², written out (002 Ex. 8.1 (c))."""
    weight = np.ones(len(X)) if weight is None else weight
    return float(np.sum(weight * np.sum((X - centers[labels]) ** 2, axis=1)))


# --- KMeans against scikit-learn -------------------------------------------------------------


@pytest.mark.parametrize("dataset", ["iris", "wine", "hard"])
def test_same_initial_centres_give_sklearns_solution(dataset, hard_blobs):
    if dataset == "iris":
        X = load_iris().data
    elif dataset == "wine":
        X = StandardScaler().fit_transform(load_wine().data)
    else:
        X = hard_blobs[0]
    init = X[np.random.RandomState(1).choice(len(X), 4, replace=False)]
    ours = KMeans(4, init=init, n_init=1).fit(X)
    ref = skc.KMeans(4, init=init, n_init=1).fit(X)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-6)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-9, atol=1e-9)
    assert ours.n_iter_ == ref.n_iter_


@pytest.mark.parametrize(("n_features", "n_clusters"), [(20, 40), (150, 4)])
def test_blas_route_and_wide_data_match_sklearn(n_features, n_clusters):
    # Many centres take the BLAS route for x·c; many features read the centre sums along rows.
    X, _ = make_blobs(1500, n_features, centers=n_clusters, cluster_std=4.0, random_state=5)
    X += 100.0  # far from the origin: the expanded form needs the centring
    init = X[np.random.RandomState(2).choice(len(X), n_clusters, replace=False)]
    ours = KMeans(n_clusters, init=init, n_init=1).fit(X)
    ref = skc.KMeans(n_clusters, init=init, n_init=1).fit(X)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)
    np.testing.assert_allclose(ours.transform(X[:50]), ref.transform(X[:50]), rtol=1e-7)


@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_same_random_state_draws_sklearns_seeds(init, hard_blobs):
    X = hard_blobs[0]
    ours = KMeans(6, init=init, n_init=3, random_state=7).fit(X)
    ref = skc.KMeans(6, init=init, n_init=3, random_state=7).fit(X)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)


def test_well_separated_blobs_same_labels_up_to_permutation(blobs):
    X, y = blobs
    ours = KMeans(6, random_state=0).fit(X)
    ref = skc.KMeans(6, n_init=10, random_state=1).fit(X)
    assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0
    assert adjusted_rand_score(ours.labels_, y) == 1.0
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)


def test_weighted_fit_matches_sklearn(hard_blobs):
    X = hard_blobs[0]
    weight = np.random.RandomState(0).uniform(0.1, 3.0, len(X))
    init = X[:6]
    ours = KMeans(6, init=init, n_init=1).fit(X, sample_weight=weight)
    ref = skc.KMeans(6, init=init, n_init=1).fit(X, sample_weight=weight)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)


def test_partial_fit_is_sklearns_minibatch_update(hard_blobs):
    X = hard_blobs[0]
    init = X[:6]
    ours = KMeans(6, init=init, n_init=1)
    ref = skc.MiniBatchKMeans(6, init=init, n_init=1, reassignment_ratio=0.0)
    for batch in np.array_split(np.arange(len(X)), 8):
        ours.partial_fit(X[batch])
        ref.partial_fit(X[batch])
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.n_steps_ == 8


# --- KMeans properties and the notes ------------------------------------------------------------


def test_one_cluster_partial_fit_is_the_running_weighted_mean(hard_blobs):
    X = hard_blobs[0]
    weight = np.random.RandomState(2).uniform(0.5, 2.0, len(X))
    km = KMeans(1)
    for batch in np.array_split(np.arange(len(X)), 5):
        km.partial_fit(X[batch], sample_weight=weight[batch])
    np.testing.assert_allclose(km.cluster_centers_[0], weight @ X / weight.sum(), rtol=1e-10, atol=1e-10)


def test_partial_fit_after_fit_continues_from_the_counts(blobs):
    X = blobs[0]
    km = KMeans(1).fit(X[:1200])
    km.partial_fit(X[1200:])
    np.testing.assert_allclose(km.cluster_centers_[0], X.mean(axis=0), rtol=1e-10, atol=1e-10)


def test_fitted_attributes_agree_with_each_other(hard_blobs):
    X = hard_blobs[0]
    km = KMeans(6, n_init=2, random_state=0).fit(X)
    np.testing.assert_array_equal(km.predict(X), km.labels_)
    assert km.inertia_ == pytest.approx(_sse(X, km.labels_, km.cluster_centers_), rel=1e-10)
    assert km.score(X) == pytest.approx(-km.inertia_, rel=1e-10)
    D = km.transform(X)
    assert D.shape == (len(X), 6)
    np.testing.assert_array_equal(D.argmin(axis=1), km.labels_)
    np.testing.assert_allclose(np.sum(D.min(axis=1) ** 2), km.inertia_, rtol=1e-10)
    # Lloyd's steps never raise the SSE (coordinate descent on J).
    assert len(km.loss_curve_) == km.n_iter_ > 3
    assert np.all(np.diff(km.loss_curve_) <= 1e-9 * km.loss_curve_[0])
    assert km.inertia_ <= km.loss_curve_[-1] * (1 + 1e-12)  # the last update lowered it once more


def test_restarts_keep_the_lowest_sse(hard_blobs):
    X = hard_blobs[0]
    best = KMeans(6, init="random", n_init=8, random_state=0).fit(X)
    # The restarts draw their seeds one after the other from the same generator.
    rng = np.random.RandomState(0)
    runs = [KMeans(6, init="random", n_init=1, random_state=rng).fit(X).inertia_ for _ in range(8)]
    assert len(np.unique(np.round(runs, 6))) > 1  # the restarts do end in different minima
    assert best.inertia_ == pytest.approx(min(runs), rel=1e-12)


def test_threads_do_not_change_the_result():
    X, _ = make_blobs(60000, 10, centers=8, cluster_std=5.0, random_state=0)  # large enough for threads
    one = KMeans(8, n_init=2, random_state=0, n_jobs=1).fit(X)
    two = KMeans(8, n_init=2, random_state=0, n_jobs=2).fit(X)
    np.testing.assert_array_equal(one.labels_, two.labels_)
    assert one.inertia_ == pytest.approx(two.inertia_, rel=1e-12)


def test_integer_weights_equal_repeated_points(hard_blobs):
    X = hard_blobs[0][:600]
    counts = np.random.RandomState(0).randint(0, 4, len(X))
    init = X[counts > 0][:5]
    weighted = KMeans(5, init=init, n_init=1).fit(X, sample_weight=counts)
    repeated = KMeans(5, init=init, n_init=1).fit(np.repeat(X, counts, axis=0))
    np.testing.assert_allclose(weighted.cluster_centers_, repeated.cluster_centers_, rtol=1e-10, atol=1e-10)
    assert weighted.inertia_ == pytest.approx(repeated.inertia_, rel=1e-10)


def test_empty_cluster_is_reseeded_with_the_farthest_point():
    X = np.array([[0.0], [0.1], [0.2], [10.0], [10.1], [30.0]])
    # The centre at 1000 attracts no point; it restarts at 30, the point farthest from its centre.
    km = KMeans(3, init=np.array([[0.0], [10.0], [1000.0]]), n_init=1).fit(X)
    np.testing.assert_allclose(np.sort(km.cluster_centers_[:, 0]), [0.1, 10.05, 30.0])
    assert len(np.unique(km.labels_)) == 3


def test_notes_two_blob_example_labels_by_argmin():
    # 000 §12.2: two blobs around (1, 1) and (−1, −1), Lloyd started from (2, −1) and (−2, 1).
    X, y = make_blobs(3000, centers=[[1, 1], [-1, -1]], cluster_std=0.5, random_state=0)
    mu = np.array([[2.0, -1.0], [-2.0, 1.0]])
    first = KMeans(2, init=mu, n_init=1, max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        first.fit(X)
    d2 = ((X[:, None, :] - mu[None]) ** 2).sum(axis=2)
    # The first update moves each centre to the mean of its argmin cell (argmax would swap them).
    np.testing.assert_allclose(first.loss_curve_[0], d2.min(axis=1).sum(), rtol=1e-12)
    np.testing.assert_allclose(first.cluster_centers_[0], X[d2.argmin(axis=1) == 0].mean(axis=0), rtol=1e-12)
    km = KMeans(2, init=mu, n_init=1).fit(X)
    np.testing.assert_allclose(km.cluster_centers_[np.argsort(km.cluster_centers_[:, 0])], [[-1, -1], [1, 1]],
                               atol=0.05)
    assert adjusted_rand_score(y, km.labels_) > 0.99


def test_notes_elbow_exercise_finds_four_clusters():
    # 002 Ex. 8.1: four blobs, K = 1..10 with k-means++, a hand-written distortion, the elbow.
    X, _ = make_blobs(400, centers=4, cluster_std=0.6, random_state=0)
    sse = []
    for k in range(1, 11):
        km = KMeans(k, random_state=0).fit(X)
        assert km.inertia_ == pytest.approx(_sse(X, km.labels_, km.cluster_centers_), rel=1e-10)
        sse.append(km.inertia_)
    drops = -np.diff(sse)
    assert np.all(drops > -1e-9)
    assert drops[2] > 5 * drops[3]  # the 3 → 4 drop dwarfs 4 → 5: the elbow is at K = 4


def test_n_init_auto_follows_sklearn():
    X, _ = make_blobs(200, centers=3, random_state=0)
    assert KMeans(3, n_init="auto")._effective_n_init() == 1
    assert KMeans(3, n_init="auto", init="random")._effective_n_init() == 10
    with pytest.warns(RuntimeWarning, match="only one run"):
        KMeans(3, init=X[:3], n_init=5).fit(X)
    # A callable init is called with the random state.
    km = KMeans(3, init=lambda X, k, random_state: X[:k], n_init=1).fit(X)
    assert km.cluster_centers_.shape == (3, 2)


# --- Bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("Est", [KMeans, BisectingKMeans])
def test_bad_input(Est):
    X = np.random.RandomState(0).rand(5, 2)
    with pytest.raises(ValueError, match="n_samples=5 should be >= n_clusters=6"):
        Est(6).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        Est(2).fit(np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="n_clusters"):
        Est(0).fit(X)
    fitted = Est(2).fit(X)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(np.ones((2, 3)))


@pytest.mark.parametrize("Est", [KMeans, BisectingKMeans])
def test_single_point_and_duplicates(Est):
    one = Est(1).fit([[3.0, 4.0]])
    np.testing.assert_array_equal(one.cluster_centers_, [[3.0, 4.0]])
    assert one.inertia_ == 0.0
    X = np.repeat([[0.0, 0.0], [5.0, 5.0], [9.0, 0.0]], 4, axis=0)
    with pytest.warns(ConvergenceWarning, match="distinct clusters"):
        dup = Est(5, random_state=0).fit(X)
    assert dup.inertia_ == pytest.approx(0.0, abs=1e-12)
    assert len(np.unique(dup.labels_)) == 3


def test_kmeans_bad_init_and_partial_fit():
    X = np.random.RandomState(0).rand(20, 3)
    with pytest.raises(ValueError, match="initial centres"):
        KMeans(2, init=np.zeros((3, 3)), n_init=1).fit(X)
    with pytest.raises(ValueError, match="n_clusters=4"):
        KMeans(4).partial_fit(X[:3])
    km = KMeans(2).partial_fit(X)
    with pytest.raises(ValueError, match="features"):
        km.partial_fit(X[:, :2])


# --- BisectingKMeans ----------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["biggest_inertia", "largest_cluster"])
@pytest.mark.parametrize("init", ["random", "k-means++"])
def test_bisecting_matches_sklearn_on_blobs(strategy, init, blobs):
    X, y = blobs
    # scikit-learn hands tol to its 2-means unscaled, so its tol=1e-4 is our 1e-4 / (mean variance).
    tol = 1e-4 / np.mean(np.var(X, axis=0))
    ours = BisectingKMeans(6, init=init, n_init=2, bisecting_strategy=strategy, tol=tol, random_state=0).fit(X)
    ref = skc.BisectingKMeans(6, init=init, n_init=2, bisecting_strategy=strategy, random_state=0).fit(X)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)
    np.testing.assert_array_equal(ours.predict(X[:300] + 0.3), ref.predict(X[:300] + 0.3))
    assert adjusted_rand_score(ours.labels_, y) == 1.0


def test_bisecting_matches_sklearn_on_overlapping_blobs_with_tol_zero(hard_blobs):
    # scikit-learn passes tol to its 2-means unscaled; with tol=0 both stop on unchanged labels.
    X = hard_blobs[0][:800]
    ours = BisectingKMeans(5, n_init=2, tol=0.0, random_state=1).fit(X)
    ref = skc.BisectingKMeans(5, n_init=2, tol=0.0, random_state=1).fit(X)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)


def test_bisecting_tree_is_consistent(hard_blobs):
    X = hard_blobs[0]
    weight = np.random.RandomState(0).uniform(0.5, 2.0, len(X))
    bkm = BisectingKMeans(6, random_state=0).fit(X, sample_weight=weight)
    tree = bkm.split_tree_
    assert tree.shape == (5, 3)
    np.testing.assert_array_equal(tree[:, 1:], np.arange(1, 11).reshape(5, 2))
    assert tree[0, 0] == 0 and all(p in tree[:s, 1:] for s, p in enumerate(tree[1:, 0], 1))
    leaves = np.flatnonzero(bkm.node_labels_ >= 0)
    assert set(leaves).isdisjoint(tree[:, 0]) and len(leaves) == 6
    np.testing.assert_array_equal(np.sort(bkm.node_labels_[leaves]), np.arange(6))
    np.testing.assert_array_equal(bkm.cluster_centers_[bkm.node_labels_[leaves]], bkm.node_centers_[leaves])
    np.testing.assert_array_equal(bkm.predict(X), bkm.labels_)
    assert bkm.inertia_ == pytest.approx(_sse(X, bkm.labels_, bkm.cluster_centers_, weight), rel=1e-10)
    np.testing.assert_allclose(bkm.node_centers_[0], weight @ X / weight.sum())
    assert len(bkm.loss_curve_) == 6 and np.all(np.diff(bkm.loss_curve_) < 0)
    assert bkm.loss_curve_[-1] == pytest.approx(bkm.inertia_)


def test_largest_cluster_strategy_splits_the_most_populous_leaf():
    rng = np.random.RandomState(0)
    # A big tight cluster and a small spread-out one: SSE and size disagree on the second split.
    big = rng.normal(0, 0.5, (300, 2))
    small = rng.normal(0, 3.0, (40, 2)) + [40, 0]
    X = np.vstack([big, small])
    by_size = BisectingKMeans(3, bisecting_strategy="largest_cluster", random_state=0).fit(X)
    by_sse = BisectingKMeans(3, bisecting_strategy="biggest_inertia", random_state=0).fit(X)
    sizes = np.bincount(by_size.labels_)
    assert max(sizes) < 300  # the big cluster was split
    assert np.sum(np.bincount(by_sse.labels_) == 300) == 1  # the spread-out one was split instead


def test_prediction_streams_over_new_data_without_copying_it():
    # predict/transform/score read X block by block (no packed copy) and split it over threads
    import tracemalloc

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60_000, 12)) + 50.0  # far from the origin: the shift must keep digits
    km = KMeans(5, n_init=1, random_state=0, n_jobs=2).fit(X[:2000])
    direct = ((X[:, None, :] - km.cluster_centers_[None]) ** 2).sum(axis=2)
    tracemalloc.start()
    labels = km.predict(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    np.testing.assert_array_equal(labels, direct.argmin(axis=1))
    assert peak < X.nbytes / 3  # the labels, distances and weights only (a packed copy is X.nbytes)
    np.testing.assert_allclose(km.transform(X) ** 2, direct, rtol=1e-10)
    assert km.score(X) == pytest.approx(-direct.min(axis=1).sum(), rel=1e-10)


# --- Sparse input and float32 -------------------------------------------------------------------


@pytest.fixture(scope="module")
def documents():
    return make_documents(1500, n_features=3000, per_row=30, n_topics=5)[0]


def test_sparse_same_initial_centres_give_sklearns_solution(documents):
    X = documents
    init = X[np.random.RandomState(1).choice(X.shape[0], 6, replace=False)].toarray()
    ours = KMeans(6, init=init, n_init=1).fit(X)
    ref = skc.KMeans(6, init=init, n_init=1).fit(X)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-9, atol=1e-12)
    assert ours.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(ours.transform(X[:50]), ref.transform(X[:50]), rtol=1e-9)
    assert ours.score(X) == pytest.approx(ref.score(X), rel=1e-9)


@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_sparse_same_random_state_draws_sklearns_seeds(init, documents):
    ours = KMeans(5, init=init, n_init=3, random_state=7).fit(documents)
    ref = skc.KMeans(5, init=init, n_init=3, random_state=7).fit(documents)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)


@pytest.mark.parametrize("n_clusters", [5, 40])  # 40 centres take the BLAS route on dense data
def test_sparse_fit_equals_dense_fit(n_clusters, documents):
    X = documents[:600]
    weight = np.random.RandomState(4).uniform(0.5, 2.0, X.shape[0])
    dense = KMeans(n_clusters, n_init=2, random_state=3).fit(X.toarray(), sample_weight=weight)
    sparse = KMeans(n_clusters, n_init=2, random_state=3).fit(X, sample_weight=weight)
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)
    np.testing.assert_allclose(sparse.cluster_centers_, dense.cluster_centers_, rtol=1e-9, atol=1e-12)
    assert sparse.inertia_ == pytest.approx(dense.inertia_, rel=1e-9)
    Q = documents[600:700]
    np.testing.assert_array_equal(sparse.predict(Q), dense.predict(Q.toarray()))
    np.testing.assert_allclose(sparse.transform(Q), dense.transform(Q.toarray()), rtol=1e-9)


def test_sparse_partial_fit_equals_dense_partial_fit(documents):
    X = documents
    init = X[:5].toarray()
    dense, sparse = KMeans(5, init=init, n_init=1), KMeans(5, init=init, n_init=1)
    for batch in np.array_split(np.arange(X.shape[0]), 4):
        dense.partial_fit(X[batch].toarray())
        sparse.partial_fit(X[batch])
    np.testing.assert_allclose(sparse.cluster_centers_, dense.cluster_centers_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)


def test_sparse_bisecting_matches_sklearn(documents):
    ours = BisectingKMeans(4, n_init=1, tol=0.0, random_state=0).fit(documents)
    ref = skc.BisectingKMeans(4, n_init=1, tol=0.0, random_state=0).fit(documents)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)
    assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0
    np.testing.assert_array_equal(ours.predict(documents), ours.labels_)
    dense = BisectingKMeans(4, n_init=1, tol=0.0, random_state=0).fit(documents.toarray())
    np.testing.assert_array_equal(ours.labels_, dense.labels_)


@pytest.mark.parametrize("Est", [KMeans, BisectingKMeans])
@pytest.mark.parametrize("container", ["dense", "csr"])
def test_float32_is_computed_and_kept_in_float32(Est, container, documents):
    X64 = documents[:800]
    X32 = X64.astype(np.float32)
    if container == "dense":
        X64, X32 = X64.toarray(), X32.toarray()
    ref = Est(5, random_state=0).fit(X64)
    km = Est(5, random_state=0).fit(X32)
    assert km.cluster_centers_.dtype == np.float32
    assert km.transform(X32).dtype == np.float32
    np.testing.assert_array_equal(km.labels_, ref.labels_)
    np.testing.assert_allclose(km.cluster_centers_, ref.cluster_centers_, rtol=1e-5, atol=1e-6)
    assert km.inertia_ == pytest.approx(ref.inertia_, rel=1e-5)
    np.testing.assert_allclose(km.transform(X32), ref.transform(X64), rtol=1e-4, atol=1e-4)
    assert km.score(X32) == pytest.approx(ref.score(X64), rel=1e-5)


def test_sparse_input_is_neither_densified_nor_modified(documents):
    import tracemalloc

    X = scipy.sparse.vstack([documents] * 4, format="csr")
    before = X.copy()
    KMeans(5, n_init=1, max_iter=3, random_state=0).fit(X[:200])  # compile outside the measurement
    tracemalloc.start()
    km = KMeans(5, n_init=1, random_state=0).fit(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    dense_bytes = 8 * X.shape[0] * X.shape[1]
    assert peak < (X.data.nbytes + X.indices.nbytes) / 2 < dense_bytes / 20  # no copy of X, let alone a dense one
    assert (X != before).nnz == 0
    assert km.predict(X[:10]).shape == (10,)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # the 2-iteration warm-up fit
def test_ctrl_c_stops_a_sparse_fit(documents):
    X = scipy.sparse.vstack([documents] * 20, format="csr")
    KMeans(3, n_init=1, max_iter=2).fit(documents)  # compile outside the timed part
    km = KMeans(50, n_init=100, max_iter=1000, tol=0.0, random_state=0)
    elapsed = interrupt_during(lambda: km.fit(X), after=0.3)
    assert elapsed < 3.0
    assert not hasattr(km, "cluster_centers_")


def test_sparse_kernels_answer_the_same_interpreted(documents):
    from lucidml.utils import kernel_tier

    X = documents[:200]
    answers = []
    for tier in ("compiled", "interpreted"):
        with kernel_tier(tier):
            km = KMeans(4, n_init=2, random_state=0).fit(X)
            answers.append((km.labels_, km.transform(X), BisectingKMeans(3, n_init=1, random_state=0).fit(X).labels_))
    np.testing.assert_array_equal(answers[1][0], answers[0][0])
    np.testing.assert_allclose(answers[1][1], answers[0][1], rtol=1e-12)
    np.testing.assert_array_equal(answers[1][2], answers[0][2])


def test_float32_values_whose_squares_overflow_float32_are_refused():
    """k-means squares a float32 X in float32: digits × 1e19 gave an infinite inertia and score
    (a −inf score, an inf transform) without a word."""
    from sklearn.datasets import load_digits

    X = (load_digits().data[:200] * 1e19).astype(np.float32)
    for model in (KMeans(3, random_state=0), BisectingKMeans(3, random_state=0)):
        with pytest.raises(ValueError, match="overflow float32"):
            model.fit(X)
    assert np.isfinite(KMeans(3, random_state=0).fit(X.astype(np.float64)).inertia_)
    fitted = KMeans(3, random_state=0).fit(load_digits().data[:200].astype(np.float32))  # and at predict
    for method in (fitted.predict, fitted.transform, fitted.score):
        with pytest.raises(ValueError, match="overflow float32"):
            method(X)
