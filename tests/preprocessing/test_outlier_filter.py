"""ClusterOutlierFilter: planted outliers are dropped with their labels, k-NN gets better, the meta-estimator API."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

from lucidml.cluster import DBSCAN, KMeans
from lucidml.neighbors import KNeighborsClassifier
from lucidml.preprocessing import ClusterOutlierFilter, cluster_outlier_mask
from lucidml.utils import InvalidParameterError

CENTRES = np.array([[0.0, 0.0], [6.0, 0.0], [3.0, 5.0]])
BOX = ([-4.0, -4.0], [10.0, 9.0])


def _planted(seed=0, n_inliers=600, n_outliers=60):
    """Three unit-variance blobs, plus outliers scattered at least 3 units from every centre and
    labelled with the class of the farthest centre (wrong on purpose). Returns X, y, is_outlier."""
    X, y = make_blobs(n_samples=n_inliers, centers=CENTRES, cluster_std=1.0, random_state=seed)
    rng = np.random.default_rng(seed)
    points = rng.uniform(*BOX, size=(20 * n_outliers, 2))
    points = points[np.min(np.linalg.norm(points[:, None] - CENTRES, axis=2), axis=1) > 3.0][:n_outliers]
    labels = np.argmax(np.linalg.norm(points[:, None] - CENTRES, axis=2), axis=1)
    # Shuffle the outliers in among the blobs so that nothing depends on their position.
    order = rng.permutation(n_inliers + n_outliers)
    is_outlier = np.r_[np.zeros(n_inliers, bool), np.ones(n_outliers, bool)][order]
    return np.vstack([X, points])[order], np.r_[y, labels][order], is_outlier


def _clean_test_data(n=3000):
    """Points over the whole box labelled by the nearest centre: the Bayes rule of equal-variance blobs."""
    U = np.random.default_rng(123).uniform(*BOX, size=(n, 2))
    return U, np.argmin(np.linalg.norm(U[:, None] - CENTRES, axis=2), axis=1)


def test_dbscan_noise_removes_the_planted_outliers_and_knn_improves():
    X, y, is_outlier = _planted()
    X_test, y_test = _clean_test_data()
    model = ClusterOutlierFilter(KNeighborsClassifier(n_neighbors=1), DBSCAN(eps=0.7, min_samples=10)).fit(X, y)
    dropped = ~model.inlier_mask_
    assert np.count_nonzero(dropped & is_outlier) == is_outlier.sum()  # every planted outlier found
    assert np.count_nonzero(dropped & ~is_outlier) <= 0.1 * np.count_nonzero(~is_outlier)  # few blob points lost
    assert model.n_outliers_ == dropped.sum()
    plain = KNeighborsClassifier(n_neighbors=1).fit(X, y).score(X_test, y_test)
    filtered = model.score(X_test, y_test)
    assert plain < 0.6 and filtered > 0.95  # measured: 0.54 and 0.96 (60 outliers found, 36 of 600 blob points lost)


def test_kmeans_distance_quantile_removes_far_points():
    X, y, is_outlier = _planted(seed=1)
    model = ClusterOutlierFilter(KNeighborsClassifier(n_neighbors=1), KMeans(n_clusters=3, random_state=0),
                                 method="distance", quantile=0.9).fit(X, y)
    dropped = ~model.inlier_mask_
    assert np.count_nonzero(dropped & is_outlier) >= 0.8 * is_outlier.sum()
    X_test, y_test = _clean_test_data()
    assert model.score(X_test, y_test) > KNeighborsClassifier(n_neighbors=1).fit(X, y).score(X_test, y_test) + 0.2


def test_fit_resample_filters_y_with_x_and_matches_fit():
    X, y, _ = _planted()
    model = ClusterOutlierFilter(clusterer=DBSCAN(eps=0.7, min_samples=10))
    X_kept, y_kept = model.fit_resample(X, y)
    np.testing.assert_array_equal(X_kept, X[model.inlier_mask_])
    np.testing.assert_array_equal(y_kept, y[model.inlier_mask_])
    assert len(X_kept) == len(X) - model.n_outliers_
    assert not hasattr(model, "estimator_")  # fit_resample only filters
    # fit trains the classifier on exactly those rows
    fitted = clone(model).fit(X, y)
    reference = KNeighborsClassifier().fit(X_kept, y_kept)
    X_test, _ = _clean_test_data(500)
    np.testing.assert_array_equal(fitted.predict(X_test), reference.predict(X_test))
    np.testing.assert_array_equal(fitted.predict_proba(X_test), reference.predict_proba(X_test))


def test_predict_passes_every_row_through():
    X, y, is_outlier = _planted()
    model = ClusterOutlierFilter(clusterer=DBSCAN(eps=0.7, min_samples=10)).fit(X, y)
    assert model.predict(X).shape == (len(X),)  # outliers still get a prediction
    assert model.predict_proba(X[is_outlier]).shape == (is_outlier.sum(), 3)
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    assert not hasattr(model, "decision_function")  # k-NN has none, so neither has the filter
    assert hasattr(ClusterOutlierFilter(LogisticRegression()), "decision_function")


def test_labels_of_any_type_and_input_not_mutated():
    X, y, _ = _planted()
    names = np.array(["a", "b", "c"])[y]
    X_before, names_before = X.copy(), names.copy()
    model = ClusterOutlierFilter(clusterer=DBSCAN(eps=0.7, min_samples=10)).fit(X, names)
    assert set(model.predict(X)) <= {"a", "b", "c"}
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(names, names_before)


def test_last_step_of_a_pipeline_and_in_model_selection():
    X, y, _ = _planted()
    model = ClusterOutlierFilter(KNeighborsClassifier(), DBSCAN(eps=0.25, min_samples=10))
    pipe = make_pipeline(StandardScaler(), model)
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.mean() > 0.85
    search = GridSearchCV(pipe, {"clusteroutlierfilter__clusterer__eps": [0.2, 0.3],
                                 "clusteroutlierfilter__estimator__n_neighbors": [1, 5]}, cv=3).fit(X, y)
    best = search.best_estimator_[-1]
    assert best.clusterer.eps in (0.2, 0.3) and best.estimator.n_neighbors in (1, 5)
    assert best.clusterer_.eps == best.clusterer.eps
    assert search.best_score_ > 0.85


def test_get_params_and_clone_are_deep_and_leave_the_originals_unfitted():
    inner, clusterer = KNeighborsClassifier(n_neighbors=3), DBSCAN(eps=0.7)
    model = ClusterOutlierFilter(inner, clusterer, method="small_clusters", min_cluster_size=4)
    params = model.get_params()
    assert params["estimator"] is inner and params["clusterer__eps"] == 0.7 and params["estimator__n_neighbors"] == 3
    copy = clone(model)
    assert copy.estimator is not inner and copy.get_params()["estimator__n_neighbors"] == 3
    X, y, _ = _planted()
    model.fit(X, y)
    assert not hasattr(inner, "classes_") and not hasattr(clusterer, "labels_")  # clones were fitted
    assert model.estimator_ is not inner and model.clusterer_ is not clusterer


def test_sklearn_check_estimator_with_a_dbscan_clusterer():
    # The registry runs the checks with k-means; here the default k-NN behind a DBSCAN wide enough for
    # the checks' small standardized tables.
    check_estimator(ClusterOutlierFilter(clusterer=DBSCAN(eps=5.0, min_samples=1)))


@pytest.mark.parametrize(("params", "match"), [
    ({"method": "median"}, "'method' parameter"),
    ({"min_cluster_size": 0}, "'min_cluster_size' parameter"),
    ({"quantile": 0.0}, "'quantile' parameter"),
    ({"quantile": 1.5}, "'quantile' parameter"),
    ({"estimator": "knn"}, "'estimator' parameter"),
    ({"clusterer": KNeighborsClassifier()}, "'clusterer' parameter"),
])
def test_bad_parameters_are_named(params, match):
    X, y, _ = _planted()
    with pytest.raises(InvalidParameterError, match=match):
        ClusterOutlierFilter(**params).fit(X, y)


def test_bad_data_and_an_all_outlier_result_are_clear_errors():
    X, y, _ = _planted()
    with pytest.raises(ValueError, match="every one of the .* training samples"):
        ClusterOutlierFilter(clusterer=DBSCAN(eps=1e-3)).fit(X, y)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ClusterOutlierFilter().fit(bad, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        ClusterOutlierFilter().fit(X, y[:-1])
    with pytest.raises(ValueError, match="Unknown label type"):
        ClusterOutlierFilter().fit(X, y + 0.5)
    model = ClusterOutlierFilter(clusterer=DBSCAN(eps=0.7, min_samples=10)).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :1])


@settings(max_examples=30, deadline=None)
@given(labels=st.lists(st.integers(-1, 3), min_size=1, max_size=40), size=st.integers(1, 10),
       quantile=st.floats(0.05, 1.0))
def test_mask_rules_are_nested(labels, size, quantile):
    """Property: each method drops at least what the simpler one drops (noise ⊆ small ⊆ distance)."""
    labels = np.array(labels)
    X = np.random.default_rng(len(labels)).normal(size=(len(labels), 2))
    noise = cluster_outlier_mask(X, labels, method="noise")
    small = cluster_outlier_mask(X, labels, method="small_clusters", min_cluster_size=size)
    far = cluster_outlier_mask(X, labels, method="distance", min_cluster_size=size, quantile=quantile)
    np.testing.assert_array_equal(noise, labels >= 0)
    assert np.all(far <= small) and np.all(small <= noise)
    if quantile == 1.0:
        np.testing.assert_array_equal(far, small)
    counts = {c: np.sum(labels == c) for c in set(labels.tolist()) if c >= 0}
    np.testing.assert_array_equal(small, [c >= 0 and counts[c] >= size for c in labels])


def test_default_dbscan_follows_the_scale_of_the_data():
    """The default ε is the 95th percentile of the 5-distances: at most 5% of rows are noise, at any scale
    (a fixed eps=0.5 called every row of a table in thousands an outlier), and the planted outliers go."""
    X, y, is_outlier = _planted()
    model = ClusterOutlierFilter().fit(X, y)
    assert model.n_outliers_ <= 0.05 * len(X)
    assert np.mean(is_outlier[~model.inlier_mask_]) > 0.8  # the rows it drops are planted outliers
    scaled = ClusterOutlierFilter().fit(1000.0 * X, y)
    np.testing.assert_array_equal(scaled.inlier_mask_, model.inlier_mask_)
    assert scaled.clusterer_.eps == pytest.approx(1000.0 * model.clusterer_.eps)
    with pytest.raises(ValueError, match="1 sample"):
        ClusterOutlierFilter().fit(X[:1], y[:1])


def test_cluster_outlier_mask_checks_its_inputs():
    """The public function checked nothing: labels shorter than X gave a mask of the wrong length,
    labels with a gap beside fewer centres an IndexError, NaN rows were all kept, string labels a
    NumPy type error."""
    X = np.random.default_rng(0).standard_normal((10, 4))
    labels = np.repeat([0, 1], 5)
    for bad, message in (
        (lambda: cluster_outlier_mask(X, labels[:5], method="distance"), "5 entries for the 10 rows"),
        (lambda: cluster_outlier_mask(X, np.repeat([0, 3], 5), method="distance", centres=np.zeros((2, 4))),
         "every label 0 … 3"),
        (lambda: cluster_outlier_mask(X, labels, method="distance", centres=np.zeros((2, 3))), "4 features"),
        (lambda: cluster_outlier_mask(np.full((10, 2), np.nan), labels, method="distance"), "NaN"),
        (lambda: cluster_outlier_mask(X, np.repeat(["a", "b"], 5), method="small_clusters"), "integer cluster labels"),
        (lambda: cluster_outlier_mask(X, labels - 2, method="noise"), "integer cluster labels"),
        (lambda: cluster_outlier_mask(X, labels, method="distance", quantile=1.5), "quantile"),
        (lambda: cluster_outlier_mask(X, labels, method="small_clusters", min_cluster_size=0), "min_cluster_size"),
    ):
        with pytest.raises(ValueError, match=message):
            bad()
    expected = cluster_outlier_mask(X, labels, method="distance", quantile=0.8)
    np.testing.assert_array_equal(cluster_outlier_mask(X.tolist(), labels.tolist(), method="distance", quantile=0.8),
                                  expected)
    assert expected.sum() == 8  # the farthest fifth of each cluster of 5
