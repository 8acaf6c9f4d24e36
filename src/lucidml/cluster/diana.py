"""Divisive hierarchical clustering (DIANA)."""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.spatial.distance import squareform
from sklearn.base import BaseEstimator, ClusterMixin

from ..utils import Interval, Options, validate_params
from ..utils.validation import check_fit_data
from ._diana_kernels import diana_splits
from .agglomerative import (
    _METRICS,
    check_cut_settings,
    check_square_distances,
    condensed_distances,
    sorted_linkage,
    store_tree,
)


class DIANA(ClusterMixin, BaseEstimator):
    """Divisive (top-down) hierarchical clustering: DIANA (DIvisive ANAlysis).

    All points start in one cluster; the cluster with the largest diameter
    diam(C) = max_{i,j∈C} d(i, j) is split in two, until every point stands alone
    (seeds: 002 §8.3.1; Kaufman & Rousseeuw 1990, ch. 6). A split of C grows a splinter
    group S from the object with the largest mean dissimilarity to the rest of C, then moves,
    one at a time, the object i of R = C ∖ S with the largest

        D(i) = mean_{j∈R, j≠i} d(i, j) − mean_{j∈S} d(i, j),

    as long as D(i) > 0. The tree does not depend on the order of the splits, so all of it is
    built and then cut like an agglomerative one: ``n_clusters`` undoes the last
    n_clusters − 1 merges, i.e. keeps the first splits of largest diameter.

    The split of C costs O(|C|²), which sums to O(n²) for balanced trees and O(n³) at worst;
    the algorithm needs the whole **n×n distance matrix (O(n²) memory)**, so it suits a few
    thousand points.

    Parameters
    ----------
    n_clusters : int or None, default=2
        Number of clusters to cut the tree into; None when ``distance_threshold`` is set.
    metric : str or callable, default="euclidean"
        "euclidean" (or "l2"), "l1" (or "manhattan", "cityblock"), "cosine", "chebyshev",
        "precomputed" (X is a square distance matrix), or a callable that maps X to an
        (n_samples, n_samples) distance matrix.
    distance_threshold : float or None, default=None
        Clusters whose diameter is below it are not split; needs ``n_clusters=None``.

    Attributes
    ----------
    n_clusters_ : int
        Number of clusters found.
    labels_ : ndarray of shape (n_samples,)
        Cluster of each point.
    n_leaves_ : int
        Number of leaves (points).
    n_connected_components_ : int
        Always 1.
    children_ : ndarray of shape (n_samples − 1, 2)
        The splits read bottom-up as merges, in scikit-learn's ``children_`` format.
    distances_ : ndarray of shape (n_samples − 1,)
        Heights: the diameter of the cluster each split divided (non-decreasing).
    linkage_ : ndarray of shape (n_samples − 1, 4)
        SciPy's linkage matrix of the same tree (for ``scipy.cluster.hierarchy.dendrogram``).
    divisive_coefficient_ : float
        Kaufman & Rousseeuw's DC = mean over points of 1 − (diameter of the last cluster the
        point belonged to before it stood alone) / (diameter of all data); near 1 means a
        strong clustering structure.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.cluster.diana import DIANA
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0], [0.2, 0.5]])
    >>> model = DIANA(n_clusters=2).fit(X)
    >>> model.labels_
    array([0, 0, 1, 1, 0])
    >>> model.distances_.round(3)
    array([0.539, 1.   , 1.   , 7.81 ])
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left"), None],
        "metric": [Options(frozenset(_METRICS) | {"precomputed"}), "callable"],
        "distance_threshold": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(self, n_clusters=2, *, metric="euclidean", distance_threshold=None):
        self.n_clusters = n_clusters
        self.metric = metric
        self.distance_threshold = distance_threshold

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = self.metric == "precomputed"  # distances are ≥ 0
        return tags

    def fit(self, X, y=None):
        """Build the divisive tree of X and cut it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples) distances
            when ``metric="precomputed"``.
        y : ignored

        Returns
        -------
        self : DIANA
        """
        validate_params(self)
        X = check_fit_data(self, X, ensure_min_samples=2)
        check_cut_settings(self)
        if self.metric == "precomputed":
            D = np.ascontiguousarray(check_square_distances(X))
        else:
            D = squareform(condensed_distances(X, self.metric))
        Z = _diana(D)
        store_tree(self, Z)
        n = Z.shape[0] + 1
        leaf_height = np.empty(n)
        for col in (0, 1):  # each point's last merge is the one with it as a child
            is_leaf = Z[:, col] < n
            leaf_height[Z[is_leaf, col].astype(np.intp)] = Z[is_leaf, 2]
        top = Z[-1, 2]
        self.divisive_coefficient_ = float(np.mean(1.0 - leaf_height / top)) if top > 0 else 0.0
        return self


def _diana(D):
    """The DIANA tree of the square distance matrix D as SciPy's linkage matrix.

    The kernel lists splits depth-first, parents before children; reversed, every child merge
    comes before its parent, and the stable sort by height keeps that order among ties.
    """
    a, b, h = diana_splits(D)
    return sorted_linkage(a[::-1].copy(), b[::-1].copy(), h[::-1].copy(), D.shape[0])
