"""Agglomerative hierarchical clustering (AGNES)."""

import heapq
import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.spatial.distance import pdist, squareform
from sklearn.base import BaseEstimator, ClusterMixin

from ..utils import Interval, Options, validate_params
from ..utils.validation import check_fit_data, check_magnitude
from ._linkage_kernels import (
    centroid_generic,
    label_merges,
    nn_chain_condensed,
    single_linkage_condensed,
    single_linkage_euclidean,
    spread_labels,
    sq_euclidean_condensed,
    ward_nn_chain,
)
from ._medoids import scale_free_rows

# scikit-learn's metric names, mapped to SciPy's.
_METRICS = {"euclidean": "euclidean", "l2": "euclidean", "l1": "cityblock", "manhattan": "cityblock",
            "cityblock": "cityblock", "cosine": "cosine", "chebyshev": "chebyshev"}


class AgglomerativeClustering(ClusterMixin, BaseEstimator):
    """Agglomerative (bottom-up) hierarchical clustering: AGNES.

    Every point starts as its own cluster; the two closest clusters are merged until one is
    left, and the tree is cut into ``n_clusters`` clusters or at ``distance_threshold``
    (seeds: 002 §8.3, (8.4)–(8.6)). The distance between clusters G and H is

        single     min_{i∈G, j∈H} d(i, j)
        complete   max_{i∈G, j∈H} d(i, j)
        average    1/(|G||H|) Σ_{i∈G} Σ_{j∈H} d(i, j)
        centroid   ‖c_G − c_H‖                     (c = cluster mean)
        ward       √(2|G||H| / (|G|+|H|)) ‖c_G − c_H‖,

    ward being the increase in the within-cluster sum of squares caused by the merge, on
    SciPy's scale (for two points it is their distance). After each merge the distances to
    the new cluster follow the Lance–Williams recursion (Müllner 2011), on squared Euclidean
    distances for centroid and ward. Heights are reported exactly as
    ``scipy.cluster.hierarchy.linkage(X, method)`` reports them.

    Algorithms (Müllner 2011), none of which forms the naive O(n³) loop:

    - single: Prim's minimum spanning tree, O(n²·d) time. Euclidean distances are computed on
      the fly, O(n) memory; other metrics use the condensed matrix.
    - complete, average: the nearest-neighbour chain on the condensed distance matrix,
      O(n²) time and **O(n²) memory** (n(n−1)/2 doubles: 1.6 GB at n = 20,000).
    - ward: the nearest-neighbour chain on cluster centroids (Ward's Lance–Williams update in
      closed form), O(n²·d) time and O(n·d) memory.
    - centroid: Müllner's generic algorithm on the condensed matrix of squared distances,
      O(n²) memory and usually O(n²) time (O(n³) at worst). Centroid linkage is not
      monotone: a merge can be lower than the one before it (an *inversion*), which is
      warned about; ``linkage_`` then keeps the merge order, as SciPy does.

    Parameters
    ----------
    n_clusters : int or None, default=2
        Number of clusters to cut the tree into; None when ``distance_threshold`` is set.
    metric : str or callable, default="euclidean"
        "euclidean" (or "l2"), "l1" (or "manhattan", "cityblock"), "cosine", "chebyshev",
        "precomputed" (X is a square distance matrix), or a callable that maps X to an
        (n_samples, n_samples) distance matrix. Ward and centroid need "euclidean".
    linkage : {"ward", "complete", "average", "single", "centroid"}, default="ward"
        Distance between clusters, see above.
    distance_threshold : float or None, default=None
        Merges at this height or above are not made; the number of clusters follows. Needs
        ``n_clusters=None``.
    compute_full_tree : "auto" or bool, default="auto"
        Kept for scikit-learn compatibility: these algorithms always build the whole tree,
        which costs no more than a partial one. Must not be False with ``distance_threshold``.
    compute_distances : bool, default=False
        Store the merge heights in ``distances_`` even without ``distance_threshold``.

    Attributes
    ----------
    n_clusters_ : int
        Number of clusters found.
    labels_ : ndarray of shape (n_samples,)
        Cluster of each point, numbered by scikit-learn's rule (the same numbers as
        scikit-learn's whenever the two ``children_`` agree).
    n_leaves_ : int
        Number of leaves (points).
    n_connected_components_ : int
        Always 1 (no connectivity constraint).
    children_ : ndarray of shape (n_samples − 1, 2)
        Merge i joins nodes ``children_[i]`` into node n_samples + i; nodes below n_samples
        are points.
    distances_ : ndarray of shape (n_samples − 1,)
        Merge heights; set when ``compute_distances`` or ``distance_threshold`` is used.
    linkage_ : ndarray of shape (n_samples − 1, 4)
        SciPy's linkage matrix: the two merged ids, the height and the size of the new
        cluster, sorted by height (merge order for centroid). Works with
        ``scipy.cluster.hierarchy.dendrogram``, ``fcluster``, ``cophenet``.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.cluster.agglomerative import AgglomerativeClustering
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0], [0.2, 0.5]])
    >>> model = AgglomerativeClustering(n_clusters=2, linkage="single").fit(X)
    >>> model.labels_
    array([1, 1, 0, 0, 1])
    >>> model.linkage_.round(3)
    array([[0.   , 4.   , 0.539, 2.   ],
           [1.   , 5.   , 0.539, 3.   ],
           [2.   , 3.   , 1.   , 2.   ],
           [6.   , 7.   , 6.403, 5.   ]])
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left"), None],
        "metric": [Options(frozenset(_METRICS) | {"precomputed"}), "callable"],
        "linkage": [Options(frozenset({"ward", "complete", "average", "single", "centroid"}))],
        "distance_threshold": [Interval(Real, 0, None, closed="left"), None],
        "compute_full_tree": [Options(frozenset({"auto"})), "boolean"],
        "compute_distances": ["boolean"],
    }

    def __init__(self, n_clusters=2, *, metric="euclidean", linkage="ward", distance_threshold=None,
                 compute_full_tree="auto", compute_distances=False):
        self.n_clusters = n_clusters
        self.metric = metric
        self.linkage = linkage
        self.distance_threshold = distance_threshold
        self.compute_full_tree = compute_full_tree
        self.compute_distances = compute_distances

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = self.metric == "precomputed"  # distances are ≥ 0
        return tags

    def fit(self, X, y=None):
        """Build the tree of X and cut it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples) distances
            when ``metric="precomputed"``.
        y : ignored

        Returns
        -------
        self : AgglomerativeClustering
        """
        validate_params(self)
        X = check_fit_data(self, X, ensure_min_samples=2)
        if self.linkage in ("ward", "centroid") or self.metric in ("euclidean", "l2", "sqeuclidean"):
            check_magnitude(X, self)  # squared (or Euclidean) distances overflow; manhattan, cosine… do not
        check_cut_settings(self)
        if self.linkage in ("ward", "centroid") and self.metric not in ("euclidean", "l2"):
            raise ValueError(f"{self.metric!r} was provided as metric; {self.linkage} linkage works only "
                             "with euclidean distances ('euclidean' or 'l2').")
        Z = _agnes(X, self.linkage, self.metric)
        # An inversion is a merge lower than the one before; the margin ignores rounding on ties.
        if self.linkage == "centroid" and np.any(np.diff(Z[:, 2]) < -1e-12 * Z[:, 2].max()):
            warnings.warn("Centroid linkage produced inversions: some merges are lower than an earlier "
                          "one, so the dendrogram is not monotone.", UserWarning, stacklevel=2)
        store_tree(self, Z)
        return self


def check_cut_settings(est):
    """Exactly one of n_clusters and distance_threshold, as scikit-learn requires."""
    if (est.n_clusters is None) == (est.distance_threshold is None):
        raise ValueError("Exactly one of n_clusters and distance_threshold has to be set, and the other "
                         "needs to be None.")
    if est.distance_threshold is not None and getattr(est, "compute_full_tree", True) is False:
        raise ValueError("compute_full_tree must be True if distance_threshold is set.")


def store_tree(est, Z):
    """Set the tree attributes and the labels of a fitted hierarchical clusterer."""
    n = Z.shape[0] + 1
    est.linkage_ = Z
    est.children_ = Z[:, :2].astype(np.intp)
    est.n_leaves_ = n
    est.n_connected_components_ = 1
    if est.distance_threshold is not None or getattr(est, "compute_distances", True):
        est.distances_ = Z[:, 2].copy()
    if est.distance_threshold is not None and np.any(np.diff(Z[:, 2]) < 0):
        # Heights with inversions (centroid linkage): a merge is made when its height is below
        # the threshold and both of its parts were made (SciPy's rule); undoing the last merges
        # in merge order would not be a cut at that height.
        est.labels_ = _threshold_cut(Z, est.distance_threshold)
        est.n_clusters_ = int(est.labels_.max()) + 1
        return
    if est.distance_threshold is not None:
        est.n_clusters_ = int(np.count_nonzero(Z[:, 2] >= est.distance_threshold)) + 1
    else:
        est.n_clusters_ = est.n_clusters
    est.labels_ = cut_tree(est.children_, n, est.n_clusters_)


def _threshold_cut(Z, threshold):
    """Labels when the merges made are those below ``threshold`` whose parts were all made."""
    n = Z.shape[0] + 1
    made = np.ones(2 * n - 1, dtype=bool)
    parent = np.arange(2 * n - 1)
    for k, (a, b, height, _) in enumerate(Z):
        a, b = int(a), int(b)
        made[n + k] = made[a] and made[b] and height < threshold
        if made[n + k]:
            parent[a] = parent[b] = n + k
    root = np.arange(n)
    for i in range(n):  # follow the made merges up to the top of each cluster
        while parent[root[i]] != root[i]:
            root[i] = parent[root[i]]
    return np.unique(root, return_inverse=True)[1].astype(np.intp)


def cut_tree(children, n_leaves, n_clusters):
    """Labels of the clusters left after undoing the last n_clusters − 1 merges.

    The split nodes are kept in a heap exactly as scikit-learn's ``_hc_cut`` keeps them, so
    the clusters are numbered as scikit-learn numbers them.
    """
    if n_clusters > n_leaves:
        raise ValueError(f"Cannot extract more clusters than samples: {n_clusters} clusters were given "
                         f"for a tree with {n_leaves} leaves.")
    nodes = [-(2 * n_leaves - 2)]  # the root, negated: heapq pops the smallest
    for _ in range(n_clusters - 1):
        left, right = children[-nodes[0] - n_leaves]
        heapq.heappush(nodes, -int(left))
        heapq.heappushpop(nodes, -int(right))
    node_label = np.full(2 * n_leaves - 1, -1, dtype=np.intp)
    node_label[-np.array(nodes)] = np.arange(len(nodes))
    return spread_labels(children, n_leaves, node_label).copy()


def condensed_distances(X, metric):
    """Condensed distance matrix of X under ``metric`` (or of a precomputed square matrix)."""
    if metric == "precomputed" or callable(metric):
        M = check_square_distances(metric(X) if callable(metric) else X)
        return squareform(M, checks=False)  # no n²/2 index arrays
    D = pdist(scale_free_rows(X, _METRICS[metric]), _METRICS[metric])  # cosine: rows near 1e-300 scaled up first
    if not np.all(np.isfinite(D)):
        raise ValueError(f"The {metric} distances of X are not all finite (a zero vector for 'cosine'?).")
    return D


def check_square_distances(M):
    """A finite, square, symmetric, non-negative distance matrix, or a ValueError."""
    M = np.asarray(M, dtype=np.float64)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"A precomputed distance matrix must be square, got shape {M.shape}.")
    if not np.all(np.isfinite(M)):
        raise ValueError("The distance matrix contains NaN or infinite values.")
    if np.any(M < 0):
        raise ValueError("Negative values in data: a distance matrix must be non-negative.")
    if not np.allclose(M, M.T, rtol=1e-12, atol=0.0):
        raise ValueError("A distance matrix must be symmetric.")
    if np.any(np.abs(np.diag(M)) > 100 * np.finfo(np.float64).eps * max(1.0, float(M.max()))):
        raise ValueError("A distance matrix must have a zero diagonal (every point is at distance 0 from itself).")
    return M


def _agnes(X, linkage, metric):
    """The linkage matrix of X, SciPy's format and scale."""
    n = X.shape[0]
    if linkage == "centroid":
        return centroid_generic(sq_euclidean_condensed(np.ascontiguousarray(X)), n)
    if linkage == "ward":
        a, b, h = ward_nn_chain(np.ascontiguousarray(_near_origin(X)))
    elif linkage == "single" and metric in ("euclidean", "l2"):
        a, b, h = single_linkage_euclidean(np.ascontiguousarray(X))
    elif linkage == "single":
        a, b, h = single_linkage_condensed(condensed_distances(X, metric), n)
    else:
        a, b, h = nn_chain_condensed(condensed_distances(X, metric), n, linkage == "complete")
    return sorted_linkage(a, b, h, n)


def _near_origin(X):
    """X, centred if it lies far from the origin (mean > 1000 × spread).

    The ward chain keeps centroids, and their differences cancel when the data sit far from the
    origin (heights off by 1e-7 relative at an offset of 1e8); distances do not change under the
    shift. Data near the origin are left alone, so exact values (integers, duplicates) stay exact.
    """
    mean = X.mean(axis=0)
    if np.max(np.abs(mean)) > 1e3 * max(float(np.max(X.std(axis=0))), np.finfo(np.float64).tiny):
        return X - mean
    return X


def sorted_linkage(a, b, h, n):
    """Merges (point a[k], point b[k], height h[k]) in any valid order → SciPy's linkage matrix.

    A stable sort by height keeps a child before its parent when both have the same height.
    """
    order = np.argsort(h, kind="stable")
    return label_merges(a[order], b[order], h[order], n)
