"""KMedoids (PAM), CLARA and CLARANS.

There is no scikit-learn k-medoids (scikit-learn-extra is not a dependency), so the oracles are
exhaustive search over all medoid sets on small data, a brute-force PAM that recomputes every
cost from scratch, and scikit-learn's KMeans labels on well-separated blobs.
"""

import itertools
import warnings

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

from lucidml.cluster import _medoids
from lucidml.cluster.clara import CLARA
from lucidml.cluster.clarans import CLARANS
from lucidml.cluster.kmedoids import KMedoids

SEPARATED = [[0.0, 0.0], [10.0, 0.0], [0.0, 10.0], [10.0, 10.0]]  # blob centres, cluster_std=1
_SCIPY_NAME = {"euclidean": "euclidean", "manhattan": "cityblock", "chebyshev": "chebyshev"}


def cost(D, medoids):
    """Σ_o min_m D[o, m], from scratch."""
    return D[:, list(medoids)].min(axis=1).sum()


def exhaustive_optimum(D, k):
    """(every optimal medoid set, the optimal cost); Chebyshev distances can tie exactly."""
    costs = {m: cost(D, m) for m in itertools.combinations(range(D.shape[0]), k)}
    best = min(costs.values())
    return [set(m) for m, c in costs.items() if c <= best * (1 + 1e-12)], best


def improving_swap(D, medoids):
    """A single (medoid, non-medoid) swap that lowers the cost, or None."""
    current = cost(D, medoids)
    for j, c in itertools.product(range(len(medoids)), range(D.shape[0])):
        if c not in medoids:
            trial = list(medoids)
            trial[j] = c
            if cost(D, trial) < current * (1 - 1e-10):
                return j, c
    return None


def reference_pam(D, k, swap):
    """BUILD and SWAP the slow way: every candidate set's cost recomputed in full."""
    n = D.shape[0]
    medoids = [int(np.argmin(D.sum(axis=0)))]
    while len(medoids) < k:
        totals = [np.inf if c in medoids else cost(D, medoids + [c]) for c in range(n)]
        medoids.append(int(np.argmin(totals)))
    curve = [cost(D, medoids)]
    while True:
        current, moved = curve[-1], False
        if swap == "best":
            best, best_set = current * (1 - 1e-10), None
            for c, j in itertools.product(range(n), range(k)):
                if c not in medoids:
                    trial = list(medoids)
                    trial[j] = c
                    if cost(D, trial) < best:
                        best, best_set = cost(D, trial), trial
            if best_set is not None:
                medoids, moved = best_set, True
        else:  # the notes' loop: every improving swap at once, medoid by medoid
            for j, c in itertools.product(range(k), range(n)):
                if c not in medoids:
                    trial = list(medoids)
                    trial[j] = c
                    if cost(D, trial) < cost(D, medoids) * (1 - 1e-10):
                        medoids, moved = trial, True
        curve.append(cost(D, medoids))
        if not moved:
            return np.array(medoids), np.array(curve)


def small_data(seed, n=12, k=3, spread=6.0):
    rng = np.random.RandomState(seed)
    corners = spread * np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])[:k]
    return corners[rng.randint(k, size=n)] + rng.normal(size=(n, 2))


def fit_input(X, metric):
    """(input for fit, the matrix D[o, m] the cost is measured with)."""
    if metric == "precomputed":
        D = cdist(X, X, "chebyshev")
        return D, D
    return X, cdist(X, X, _SCIPY_NAME[metric])


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "precomputed"])
@pytest.mark.parametrize("k", [2, 3])
def test_pam_reaches_the_exhaustive_optimum_on_clustered_sets(metric, k):
    for seed in range(8):
        data, D = fit_input(small_data(seed, k=k), metric)
        best_sets, best_cost = exhaustive_optimum(D, k)
        for swap in ("best", "first"):
            km = KMedoids(k, metric=metric, swap=swap).fit(data)
            assert set(km.medoid_indices_) in best_sets
            assert km.inertia_ == pytest.approx(best_cost, rel=1e-12)


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "precomputed"])
def test_pam_on_noise_ends_in_a_local_optimum_no_better_than_exhaustive(metric):
    # PAM is a local search: on structureless data it can stop short of the global optimum
    # (here 2 of 20 sets), but never below it and never where one swap still helps.
    reached = 0
    for seed in range(10):
        X = np.random.RandomState(100 + seed).normal(size=(12, 2))
        data, D = fit_input(X, metric)
        for k in (2, 3):
            best_sets, best_cost = exhaustive_optimum(D, k)
            for swap in ("best", "first"):
                km = KMedoids(k, metric=metric, swap=swap).fit(data)
                assert km.inertia_ >= best_cost * (1 - 1e-12)
                assert improving_swap(D, km.medoid_indices_) is None
            reached += set(km.medoid_indices_) in best_sets
    assert reached >= 15


@pytest.mark.parametrize("swap", ["best", "first"])
@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "chebyshev", "asymmetric"])
def test_build_and_swap_match_the_brute_force_reference(metric, swap):
    rng = np.random.RandomState(7)
    X = rng.normal(size=(30, 3))
    if metric == "asymmetric":  # D[o, m] ≠ D[m, o]: the point-to-medoid direction matters
        D = cdist(X, X) * rng.uniform(0.5, 1.5, size=(30, 30))
        km = KMedoids(4, metric="precomputed", swap=swap).fit(D)
    else:
        D = cdist(X, X, _SCIPY_NAME[metric])
        km = KMedoids(4, metric=metric, swap=swap).fit(X)
    medoids, curve = reference_pam(D, 4, swap)
    np.testing.assert_array_equal(km.medoid_indices_, medoids)
    np.testing.assert_allclose(km.loss_curve_, curve, rtol=1e-12)
    assert km.n_iter_ == len(curve) - 1
    assert km.inertia_ == pytest.approx(curve[-1], rel=1e-12)
    np.testing.assert_array_equal(km.labels_, np.argmin(D[:, medoids], axis=1))


@pytest.mark.parametrize("init", ["random", "k-medoids++"])
def test_other_inits_reach_a_local_optimum(init):
    X = np.random.RandomState(3).normal(size=(40, 2))
    D = cdist(X, X)
    km = KMedoids(4, init=init, random_state=0).fit(X)
    assert improving_swap(D, km.medoid_indices_) is None
    assert np.all(np.diff(km.loss_curve_[:-1]) < 0)  # every accepted swap strictly lowers the cost
    again = KMedoids(4, init=init, random_state=0).fit(X)
    np.testing.assert_array_equal(again.medoid_indices_, km.medoid_indices_)


def test_alternate_is_a_fixed_point_and_never_beats_pam():
    X = np.random.RandomState(4).normal(size=(60, 2))
    D = cdist(X, X)
    alt = KMedoids(3, method="alternate").fit(X)
    assert alt.inertia_ >= KMedoids(3).fit(X).inertia_ * (1 - 1e-12)
    for j, m in enumerate(alt.medoid_indices_):
        members = np.flatnonzero(alt.labels_ == j)
        assert D[np.ix_(members, members)].sum(axis=0).min() == pytest.approx(D[members, m].sum(), rel=1e-12)
    assert np.all(np.diff(alt.loss_curve_) <= 1e-12)


def test_clara_with_the_whole_data_as_sample_is_pam():
    X, _ = make_blobs(n_samples=80, centers=3, random_state=1)
    pam = KMedoids(3).fit(X)
    clara = CLARA(3, sample_size=200, random_state=0).fit(X)
    np.testing.assert_array_equal(clara.medoid_indices_, pam.medoid_indices_)
    np.testing.assert_array_equal(clara.labels_, pam.labels_)
    assert clara.inertia_ == pam.inertia_


def test_clara_keeps_the_best_sample_and_scores_on_all_data():
    X, _ = make_blobs(n_samples=2000, centers=4, cluster_std=2.0, random_state=2)
    clara = CLARA(4, n_samples=6, random_state=0).fit(X)
    assert len(clara.sample_costs_) == 6
    assert clara.inertia_ == pytest.approx(clara.sample_costs_.min(), rel=1e-12)
    assert clara.inertia_ == pytest.approx(cdist(X, clara.cluster_centers_).min(axis=1).sum(), rel=1e-12)
    assert clara.inertia_ >= KMedoids(4).fit(X).inertia_ * (1 - 1e-12)
    precomputed = CLARA(4, n_samples=6, metric="precomputed", random_state=0).fit(cdist(X, X))
    np.testing.assert_array_equal(precomputed.medoid_indices_, clara.medoid_indices_)
    assert precomputed.cluster_centers_ is None


def test_clarans_reaches_the_pam_cost_on_separated_blobs():
    X, _ = make_blobs(n_samples=120, centers=SEPARATED[:3], random_state=5)
    pam = KMedoids(3).fit(X)
    # Enough draws that no improving neighbour (one in 351) is missed by chance.
    long_search = CLARANS(3, maxneighbor=5000, random_state=0).fit(X)
    assert long_search.inertia_ == pytest.approx(pam.inertia_, rel=1e-12)
    assert set(long_search.medoid_indices_) == set(pam.medoid_indices_)
    default = CLARANS(3, random_state=0).fit(X)
    assert adjusted_rand_score(default.labels_, pam.labels_) == 1.0
    assert default.inertia_ <= pam.inertia_ * 1.02
    assert default.inertia_ == pytest.approx(default.local_costs_.min(), rel=1e-12)
    assert np.all(np.diff(default.loss_curve_) < 0)
    assert default.loss_curve_[-1] == pytest.approx(cdist(X, default.cluster_centers_).min(axis=1).sum(), rel=1e-12)


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "chebyshev", "cosine"])
def test_clarans_precomputed_equals_features(metric):
    # The compiled on-the-fly distances (Minkowski family) and the materialized rows (cosine,
    # precomputed) price the same swaps.
    X, _ = make_blobs(n_samples=150, centers=3, random_state=6)
    a = CLARANS(3, metric=metric, random_state=1).fit(X)
    D = cdist(X, X, _SCIPY_NAME.get(metric, metric))
    b = CLARANS(3, metric="precomputed", random_state=1).fit(D)
    np.testing.assert_array_equal(a.medoid_indices_, b.medoid_indices_)
    assert a.inertia_ == pytest.approx(b.inertia_, rel=1e-12)
    np.testing.assert_allclose(a.loss_curve_, b.loss_curve_, rtol=1e-12)
    assert a.inertia_ == pytest.approx(cost(D, a.medoid_indices_), rel=1e-12)


@pytest.fixture(scope="module")
def separated_blobs():
    X, _ = make_blobs(n_samples=400, centers=SEPARATED, random_state=0)
    return X, KMeans(4, n_init=10, random_state=0).fit(X).labels_


@pytest.mark.parametrize("make", [
    lambda: KMedoids(4), lambda: KMedoids(4, swap="first"), lambda: KMedoids(4, method="alternate"),
    lambda: CLARA(4, random_state=0), lambda: CLARANS(4, random_state=0),
], ids=["pam", "pam-first", "alternate", "clara", "clarans"])
def test_labels_match_kmeans_on_separated_blobs(make, separated_blobs):
    X, kmeans_labels = separated_blobs
    model = make().fit(X)
    assert adjusted_rand_score(model.labels_, kmeans_labels) == 1.0
    np.testing.assert_array_equal(model.predict(X), model.labels_)


def test_predict_transform_and_precomputed_conventions():
    X, _ = make_blobs(n_samples=60, centers=3, random_state=3)
    km = KMedoids(3, metric="manhattan").fit(X)
    np.testing.assert_array_equal(km.cluster_centers_, X[km.medoid_indices_])
    Q = np.random.RandomState(0).normal(size=(7, 2)) * 5
    np.testing.assert_allclose(km.transform(Q), cdist(Q, km.cluster_centers_, "cityblock"))
    np.testing.assert_array_equal(km.predict(Q), np.argmin(cdist(Q, km.cluster_centers_, "cityblock"), axis=1))

    pre = KMedoids(3, metric="precomputed").fit(cdist(X, X, "cityblock"))
    assert pre.cluster_centers_ is None
    np.testing.assert_array_equal(pre.medoid_indices_, km.medoid_indices_)
    to_train = cdist(Q, X, "cityblock")  # queries × training points
    np.testing.assert_array_equal(pre.predict(to_train), km.predict(Q))
    np.testing.assert_allclose(pre.transform(to_train), km.transform(Q))
    with pytest.raises(ValueError, match="features"):
        pre.predict(cdist(Q, X[:10]))


@pytest.mark.parametrize("metric", ["cosine", "correlation", "jensenshannon"])
def test_scale_free_metrics_at_extreme_scales_equal_scale_one(metric):
    # SciPy squares (or sums) the entries, which underflows near 1e-300; rows are rescaled by a power of 2 first.
    X = np.abs(np.random.RandomState(3).normal(size=(40, 4)))
    expected = KMedoids(3, metric=metric).fit(X)
    for scale in (1e-300, 1e-310):
        got = KMedoids(3, metric=metric).fit(X * scale)
        np.testing.assert_array_equal(got.medoid_indices_, expected.medoid_indices_)
        np.testing.assert_allclose(got.transform(X * scale), expected.transform(X), rtol=1e-12, atol=1e-15)


def test_callable_metric_matches_the_named_one():
    X = np.random.RandomState(5).normal(size=(25, 3))
    named = KMedoids(3, metric="manhattan").fit(X)
    custom = KMedoids(3, metric=lambda a, b: float(np.abs(a - b).sum())).fit(X)
    np.testing.assert_array_equal(custom.medoid_indices_, named.medoid_indices_)
    assert custom.inertia_ == pytest.approx(named.inertia_, rel=1e-12)


@pytest.mark.parametrize("Est", [KMedoids, CLARA, CLARANS])
def test_bad_input(Est):
    X = np.random.RandomState(0).normal(size=(5, 2))
    with pytest.raises(ValueError, match="n_samples=5 should be >= n_clusters=6"):
        Est(6).fit(X)
    with pytest.raises(ValueError, match="n_samples=1 should be >= n_clusters=2"):
        Est(2).fit(X[:1])
    with pytest.raises(ValueError, match="NaN"):
        Est(2).fit(np.where(np.eye(5, 2) > 0, np.nan, X))
    with pytest.raises(ValueError, match="square"):
        Est(2, metric="precomputed").fit(cdist(X, X)[:, :4])
    with pytest.raises(ValueError, match="non-negative"):
        Est(2, metric="precomputed").fit(-cdist(X, X))
    with pytest.raises(ValueError, match="metric"):
        Est(2, metric="no-such-metric").fit(X)
    single = Est(1).fit(X[:1])  # one point, one cluster: itself
    assert single.medoid_indices_.tolist() == [0] and single.inertia_ == 0.0


@pytest.mark.parametrize("Est", [KMedoids, CLARA, CLARANS])
def test_duplicate_points(Est):
    X = np.repeat([[0.0, 0.0], [5.0, 5.0], [9.0, 0.0]], 4, axis=0)
    with pytest.warns(ConvergenceWarning, match="Only 3 distinct medoids"):
        model = Est(5, random_state=0).fit(X)
    assert model.inertia_ == 0.0
    assert np.bincount(model.labels_).tolist().count(0) == 0  # every cluster keeps its medoid
    assert len(np.unique(X[model.medoid_indices_], axis=0)) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Est(3).fit(X).inertia_ == 0.0


def test_memory_limit_points_to_clara(monkeypatch):
    monkeypatch.setattr(_medoids, "MAX_MATRIX_BYTES", 8 * 50 * 50)
    X = np.random.RandomState(0).normal(size=(60, 2))
    with pytest.raises(ValueError, match="CLARA"):
        KMedoids(2).fit(X)
    assert CLARANS(2, random_state=0).fit(X).inertia_ > 0  # O(n·K) memory, no limit


def test_max_iter_warns():
    X = np.random.RandomState(1).normal(size=(50, 2))
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        km = KMedoids(4, init="random", random_state=0, max_iter=1).fit(X)
    assert km.n_iter_ == 1 and km.loss_curve_[1] < km.loss_curve_[0]


def test_precomputed_matrix_needs_a_zero_diagonal():
    X = np.random.default_rng(0).normal(size=(10, 2))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)) + 1.0
    with pytest.raises(ValueError, match="diagonal"):
        KMedoids(2, metric="precomputed").fit(D)


def test_clara_records_the_cost_curve_of_its_kept_pam_run():
    X, _ = make_blobs(n_samples=300, centers=4, random_state=0)
    model = CLARA(n_clusters=4, random_state=0).fit(X)
    assert model.loss_curve_.shape == (model.n_iter_ + 1,)  # after BUILD, then after each SWAP iteration
    assert np.all(np.diff(model.loss_curve_) <= 0)  # a swap is made only when it lowers the cost
