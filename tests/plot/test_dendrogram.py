"""DendrogramDisplay draws the linkage matrix the hierarchical clusterers keep, in SciPy's format."""

import numpy as np
import pytest
from scipy.cluster.hierarchy import cophenet, is_valid_linkage, linkage
from sklearn.exceptions import NotFittedError

from lucidml.cluster import DIANA, AgglomerativeClustering, KMeans
from lucidml.plot import DendrogramDisplay

X = np.random.default_rng(1).normal(size=(25, 2))


@pytest.mark.filterwarnings("ignore:Centroid linkage produced inversions")  # expected on random data
@pytest.mark.parametrize("method", ["single", "complete", "average", "ward", "centroid"])
def test_agglomerative_linkage_is_scipys(method):
    Z = AgglomerativeClustering(linkage=method).fit(X).linkage_
    assert is_valid_linkage(Z)
    reference = linkage(X, method)
    # Tie order may differ; the heights and the tree's cophenetic distances may not.
    np.testing.assert_allclose(Z[:, 2], reference[:, 2], rtol=1e-10)
    np.testing.assert_allclose(cophenet(Z), cophenet(reference), rtol=1e-10)


def test_agglomerative_draws_every_merge(ax):
    model = AgglomerativeClustering(linkage="average").fit(X)
    display = DendrogramDisplay.from_estimator(model, ax=ax)
    assert display.ax_ is ax and display.figure_ is ax.figure
    assert sorted(display.dendrogram_["leaves"]) == list(range(len(X)))
    tops = np.sort([max(d) for d in display.dendrogram_["dcoord"]])  # each ⊓ is drawn at its merge height
    np.testing.assert_allclose(tops, np.sort(model.linkage_[:, 2]))


def test_diana_on_a_new_figure_with_labels():
    model = DIANA().fit(X)
    assert is_valid_linkage(model.linkage_)
    labels = [f"p{i}" for i in range(len(X))]
    display = DendrogramDisplay.from_estimator(model, labels=labels)
    assert sorted(display.dendrogram_["ivl"]) == sorted(labels)
    tops = np.sort([max(d) for d in display.dendrogram_["dcoord"]])
    np.testing.assert_allclose(tops, np.sort(model.distances_))


def test_clear_errors():
    with pytest.raises(NotFittedError):
        DendrogramDisplay.from_estimator(DIANA())
    with pytest.raises(TypeError, match="hierarchical clustering"):
        DendrogramDisplay.from_estimator(KMeans(n_clusters=2, n_init=1).fit(X))
    with pytest.raises(ValueError, match="not a valid SciPy linkage"):
        DendrogramDisplay(np.ones((3, 4))).plot()
    with pytest.raises(ValueError, match="one entry per point"):
        DendrogramDisplay(linkage(X, "single"), labels=["a", "b"]).plot()
