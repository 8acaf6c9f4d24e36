"""ElbowDisplay draws lucidml.metrics.elbow's SSE; SilhouetteDisplay draws silhouette_samples by cluster."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from lucidml.cluster import DBSCAN, KMeans, KMedoids
from lucidml.decomposition import PCA
from lucidml.metrics import elbow, silhouette_samples
from lucidml.plot import ElbowDisplay, SilhouetteDisplay

rng = np.random.default_rng(2)
X = np.vstack([rng.normal(c, 0.3, size=(15, 2)) for c in ([0, 0], [4, 0], [0, 4])])


def test_elbow_from_estimator_matches_metric(ax):
    kmeans = KMeans(n_init=3, random_state=0)
    display = ElbowDisplay.from_estimator(kmeans, X, range(1, 6), ax=ax)
    assert display.ax_ is ax
    np.testing.assert_array_equal(display.line_.get_xdata(), [1, 2, 3, 4, 5])
    np.testing.assert_allclose(display.line_.get_ydata(), elbow(X, range(1, 6), random_state=0, n_init=3))
    assert not hasattr(kmeans, "cluster_centers_"), "the given estimator is left unfitted"


def test_elbow_from_data_and_other_clusterers():
    display = ElbowDisplay.from_data(X, [1, 2, 3], random_state=0, n_init=2)
    np.testing.assert_allclose(display.line_.get_ydata(), elbow(X, [1, 2, 3], random_state=0, n_init=2))
    medoids = ElbowDisplay.from_estimator(KMedoids(random_state=0), X, [2, 3])
    assert np.all(np.diff(medoids.line_.get_ydata()) < 0)  # three blobs: SSE falls from 2 to 3


def test_elbow_errors():
    with pytest.raises(TypeError, match="n_clusters"):
        ElbowDisplay.from_estimator(PCA(), X, [1, 2])
    with pytest.raises(ValueError, match="between 1 and n_samples"):
        ElbowDisplay.from_data(X, [0, 2])
    with pytest.raises(ValueError, match="same length"):
        ElbowDisplay([1, 2], [3.0]).plot()


def test_silhouette_bars_are_the_sorted_widths(ax):
    model = KMeans(n_clusters=3, n_init=2, random_state=0).fit(X)
    display = SilhouetteDisplay.from_estimator(model, X, ax=ax)
    assert display.ax_ is ax
    values = silhouette_samples(X, model.labels_)
    for cluster, bars in zip(display.clusters_, display.bars_, strict=True):
        widths = [bar.get_width() for bar in bars]
        np.testing.assert_allclose(widths, np.sort(values[model.labels_ == cluster]))
    assert display.average_line_.get_xdata()[0] == pytest.approx(values.mean())


def test_silhouette_of_a_clusterer_without_predict():
    dbscan = DBSCAN(eps=1.0, min_samples=3).fit(X)
    display = SilhouetteDisplay.from_estimator(dbscan, X)
    assert sum(len(bars) for bars in display.bars_) == len(X)
    with pytest.raises(ValueError, match="training data"):
        SilhouetteDisplay.from_estimator(dbscan, X[:10])


def test_silhouette_errors():
    with pytest.raises(NotFittedError):
        SilhouetteDisplay.from_estimator(KMeans(), X)
    with pytest.raises(TypeError, match="clusterer"):
        SilhouetteDisplay.from_estimator(PCA().fit(X), X)
    with pytest.raises(ValueError, match="same length"):
        SilhouetteDisplay([0.5, 0.2], [0]).plot()
    # a 1-cluster result (and its mirror image, every point its own cluster) has no silhouettes
    with pytest.raises(ValueError, match="needs between 2 and n_samples - 1 .* labels hold 1 "):
        SilhouetteDisplay.from_estimator(KMeans(n_clusters=1, random_state=0).fit(X), X)
    with pytest.raises(ValueError, match="labels hold 1 "):
        SilhouetteDisplay.from_predictions(X, np.zeros(len(X), dtype=int))
    with pytest.raises(ValueError, match=f"labels hold {len(X[:5])} "):
        SilhouetteDisplay.from_predictions(X[:5], np.arange(5))
