"""Bisecting k-means: divisive clustering by repeated 2-means splits."""

import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..utils import N_JOBS, VERBOSE, Interval, IterationLog, Options, interruptible, validate_params
from ..utils.sparse import csr_parts, row_sq_norms
from ..utils.validation import check_fit_data, check_magnitude
from ._kmeans_lloyd import (
    kmeans_plusplus,
    lloyd,
    random_points,
    samples,
    tolerance,
)
from .kmeans import _CentroidClusterer, _sample_weight


class BisectingKMeans(_CentroidClusterer):
    """Bisecting k-means: start from one cluster and split one cluster in two until there are K.

    The algorithm of 002 §8.2.2 (Steinbach, Karypis & Kumar 2000):

        clusters ← {all points}
        repeat until |clusters| = K:
            pick the cluster C to split (``bisecting_strategy``)
            run 2-means on C ``n_init`` times; keep the split with the lowest
            SSE = Σ_{i ∈ C} wᵢ ‖xᵢ − c_{ℓᵢ}‖²
            replace C by its two halves

    Each 2-means is Lloyd's algorithm of :class:`~lucidml.cluster.kmeans.KMeans` (the same
    compiled kernel) on the points of C. Compared with k-means from K random seeds it depends
    less on the initialization, and the splits form a binary tree (recorded in ``split_tree_``).
    As KMeans, it takes sparse X (CSR; never densified, the centres stay dense) and computes
    float32 X in float32 (float32 ``cluster_centers_`` and ``transform``).

    Parameters
    ----------
    n_clusters : int, default=8
        The number of clusters K (leaves of the tree).
    init : {"random", "k-means++"}, default="random"
        Seeds of every 2-means: two distinct points drawn ∝ wᵢ, or k-means++ seeding.
    n_init : int, default=10
        2-means runs per split, the one with the lowest SSE kept (SPEC's ``n_trials``; a run
        replaces the kept one only if its SSE is lower by a relative 1e-6, as scikit-learn).
        scikit-learn's default is 1.
    random_state : int, RandomState instance or None, default=None
        Seeds of the 2-means runs. With the same integer the seeds are those scikit-learn's
        BisectingKMeans draws.
    max_iter : int, default=300
        Lloyd iterations at most per 2-means run.
    tol : float, default=1e-4
        A 2-means run stops when Σ ‖Δc‖² ≤ tol × (mean variance of the features of all of X),
        as :class:`~lucidml.cluster.kmeans.KMeans`. (scikit-learn documents the same rule but
        hands ``tol`` to its 2-means unscaled; with ``tol=0`` the two agree exactly.)
    bisecting_strategy : {"biggest_inertia", "largest_cluster"}, default="biggest_inertia"
        The cluster split next: the one with the largest SSE about its centre (SPEC's
        ``"largest_sse"``; Steinbach et al. 2000) or the one with the most points
        (``"largest_cluster"``). Ties go to the leftmost leaf of the tree.
    n_jobs : None, -1 or int ≥ 1, default=None
        Threads sharing each pass over the data. None follows ``lucidml.set_config(n_threads=...)``
        (every core by default), -1 is every core.
    verbose : int, default=0
        Progress on standard output: 1 prints ``Bisection s, n_clusters = k, inertia = J`` after
        every split (J as in ``loss_curve_[k − 1]``); 2 or more also prints the Lloyd passes of
        every 2-means run, as :class:`~lucidml.cluster.kmeans.KMeans` does; 0 prints nothing.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The centres of the leaves, numbered left to right in the tree (depth-first).
    labels_ : ndarray of shape (n_samples,)
        The leaf of every training sample.
    inertia_ : float
        The SSE Σ wᵢ ‖xᵢ − c_{ℓᵢ}‖² of the final clustering.
    split_tree_ : ndarray of shape (n_clusters - 1, 3)
        The bisections in the order they were made: row s = (parent, left, right) node ids. The
        root (all points) is node 0; bisection s creates nodes 2s + 1 (left) and 2s + 2 (right).
    node_centers_ : ndarray of shape (2 * n_clusters - 1, n_features)
        The centre of every node (the root's is the weighted mean of X).
    node_labels_ : ndarray of shape (2 * n_clusters - 1,)
        The cluster label of every leaf node, −1 for the nodes that were split.
    loss_curve_ : ndarray of shape (n_clusters,)
        The SSE with 1, 2, …, K clusters: before any split, then after each bisection.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Notes
    -----
    ``predict`` descends the tree as scikit-learn's does: at every split a point goes to the
    nearer of the two children's centres. For the training points this gives ``labels_``; a new
    point may end in a leaf whose centre is not its nearest one.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.cluster.bisecting_kmeans import BisectingKMeans
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 0.0], [10.0, 1.0], [20.0, 0.0], [20.0, 1.0]])
    >>> bkm = BisectingKMeans(n_clusters=3, random_state=0).fit(X)
    >>> sorted(bkm.cluster_centers_[:, 0].round(6).tolist())
    [0.0, 10.0, 20.0]
    >>> round(bkm.inertia_, 6)
    1.5
    >>> bkm.split_tree_.shape
    (2, 3)
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "init": [Options({"k-means++", "random"})],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "bisecting_strategy": [Options({"biggest_inertia", "largest_cluster"})],
        "n_jobs": N_JOBS,
        "verbose": VERBOSE,
    }

    def __init__(self, n_clusters=8, *, init="random", n_init=10, random_state=None, max_iter=300, tol=1e-4,
                 bisecting_strategy="biggest_inertia", n_jobs=None,
                 verbose=0):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.random_state = random_state
        self.max_iter = max_iter
        self.tol = tol
        self.bisecting_strategy = bisecting_strategy
        self.n_jobs = n_jobs
        self.verbose = verbose

    @interruptible
    def fit(self, X, y=None, sample_weight=None):
        """Split X (n_samples, n_features; dense or sparse) into ``n_clusters`` clusters by repeated bisection."""
        validate_params(self)
        X = check_fit_data(self, X, accept_sparse="csr", float32=True, order="C")
        check_magnitude(X, self, in_precision=True)
        self._check_n_samples(X)
        weight = _sample_weight(sample_weight, X.shape[0])
        tree = _bisect(X, weight, self.n_clusters, self._two_means(X, weight), self.bisecting_strategy,
                       IterationLog(self.verbose))
        self.split_tree_, self.node_centers_, self.node_labels_ = tree.splits, tree.centers, tree.node_labels
        self.cluster_centers_ = tree.centers[tree.leaves]
        self.labels_ = np.empty(X.shape[0], dtype=np.int32)
        for label, members in enumerate(tree.members):
            self.labels_[members] = label
        self.loss_curve_ = tree.curve
        self.inertia_ = float(tree.curve[-1])
        self._n_features_out = self.n_clusters
        self._warn_if_fewer_clusters()
        if not tree.converged:
            warnings.warn(f"A 2-means run of BisectingKMeans stopped at max_iter={self.max_iter}.", ConvergenceWarning,
                          stacklevel=2)
        return self

    def predict(self, X):
        """The leaf reached by descending the tree, nearer child at every split, for every row of X."""
        X = self._validate_test_data(X)
        # x is nearer the right child b than the left a when (x − m)·(b − a) > 0, m = (a + b)/2:
        # one product with all the splits' directions, then a walk down the tree (ties go left).
        splits = np.asarray(self.split_tree_, dtype=np.intp).reshape(-1, 3)
        left, right = self.node_centers_[splits[:, 1]], self.node_centers_[splits[:, 2]]
        direction = right - left
        offset = np.einsum("ij,ij->i", 0.5 * (left + right), direction)
        goes_right = X @ direction.T > offset
        node = np.zeros(X.shape[0], dtype=np.intp)
        for s, (parent, left_child, right_child) in enumerate(splits):
            at = node == parent
            node[at] = np.where(goes_right[at, s], right_child, left_child)
        return self.node_labels_[node].astype(np.int32)

    def _two_means(self, X, weight):
        """The split rule: ``split(members)`` bisects the rows ``members`` of X by the best of
        ``n_init`` 2-means runs and returns (labels, the two centres, SSE of each half, converged)."""
        rng = check_random_state(self.random_state)
        tol = tolerance(X, self.tol)
        passes = IterationLog(self.verbose if self.verbose >= 2 else 0)  # the Lloyd passes from verbose=2

        def split(members):
            best = None
            data = samples(X[members], weight[members], 2, self.n_jobs)
            for init in range(self.n_init):
                passes.start(init)
                seeds = random_points(data, 2, rng) if self.init == "random" else kmeans_plusplus(data, 2, rng)
                run = lloyd(data, seeds, self.max_iter, tol, passes)
                if best is None or run.inertia < best.inertia * (1 - 1e-6):
                    best = run
            sse = np.bincount(best.labels, weights=data.weight * best.distance, minlength=2)
            return best.labels, best.centers, sse, best.converged

        return split


@dataclass
class _Tree:
    splits: np.ndarray  # (parent, left, right) per bisection
    centers: np.ndarray  # centre of every node
    node_labels: np.ndarray  # cluster of every leaf node, −1 elsewhere
    leaves: list  # leaf nodes, left to right
    members: list  # sample indices of every leaf, same order
    curve: np.ndarray  # SSE with 1, 2, …, K clusters
    converged: bool


def _bisect(X, weight, n_clusters, split, strategy, log):
    """Grow the bisection tree: split the chosen leaf until there are ``n_clusters`` leaves.

    ``leaves`` is kept in depth-first (left-to-right) order, so a split replaces a leaf by its
    two children in place. Only a leaf with two points of positive weight can be split.
    ``log`` (an ``IterationLog``) prints the total SSE after every split.
    """
    root_center = (X.T @ weight / weight.sum()).astype(X.dtype)
    centers, members, scores, leaves, splits = [root_center], [np.arange(X.shape[0])], [0.0], [0], []
    leaf_sse = {0: _sse_about(X, weight, root_center)}
    curve = [leaf_sse[0]]
    converged = True
    for s in range(n_clusters - 1):
        splittable = [p for p, node in enumerate(leaves) if np.count_nonzero(weight[members[node]]) >= 2]
        if not splittable:
            raise ValueError(f"Cannot form n_clusters={n_clusters} clusters: too few samples of positive weight.")
        position = max(splittable, key=lambda p: (scores[leaves[p]], -p))  # leftmost of the largest
        parent = leaves[position]
        labels, two_centers, two_sse, ok = split(members[parent])
        converged &= ok
        left, right = 2 * s + 1, 2 * s + 2
        for child, side in ((left, 0), (right, 1)):
            centers.append(two_centers[side])
            members.append(members[parent][labels == side])
            leaf_sse[child] = float(two_sse[side])
            scores.append(leaf_sse[child] if strategy == "biggest_inertia" else float(np.sum(labels == side)))
        del leaf_sse[parent]
        leaves[position:position + 1] = [left, right]
        splits.append((parent, left, right))
        curve.append(sum(leaf_sse.values()))
        log.summary(f"Bisection {s + 1}", n_clusters=len(leaves), inertia=curve[-1])
    node_labels = np.full(2 * n_clusters - 1, -1, dtype=np.intp)
    node_labels[leaves] = np.arange(n_clusters)
    return _Tree(np.array(splits, dtype=np.intp).reshape(-1, 3), np.array(centers), node_labels, leaves,
                 [members[node] for node in leaves], np.array(curve), converged)


def _sse_about(X, weight, center):
    """Σ wᵢ ‖xᵢ − c‖², in float64; for a sparse X as Σ wᵢ (‖xᵢ‖² − 2 xᵢ·c) + ‖c‖² Σ wᵢ (no dense copy)."""
    if scipy.sparse.issparse(X):
        indptr, _, data = csr_parts(X)
        products = X @ center  # in the dtype of X: no up-cast copy of its entries
        return float(weight @ (row_sq_norms(indptr, data) - 2.0 * products) + weight.sum() * (center @ center))
    return float(weight @ np.sum((X - center) ** 2, axis=1, dtype=np.float64))  # squares in X's precision
