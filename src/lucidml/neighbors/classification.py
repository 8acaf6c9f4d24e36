"""k-nearest-neighbour classification."""

import numpy as np
from sklearn.base import ClassifierMixin

from ..utils.validation import check_classification_targets
from ._base import _KNeighborsBase


class KNeighborsClassifier(ClassifierMixin, _KNeighborsBase):
    """Classify by a (weighted) vote of the k nearest training points.

    For a query x with neighbours N_k(x) and weights w_i, the score of class c is
    Σ_{i ∈ N_k(x)} w_i [y_i = c], normalized to probabilities; the prediction is the class of
    highest score, a tie going to the smallest class label (seeds: 001 §7, 002 §5.5, 004 §5).

    Sparse X (SciPy CSR; other formats are converted) is searched by brute force without
    densifying it, for the Euclidean metric ("minkowski" with p=2, "euclidean", "l2") and
    "cosine": the inner products come from the stored entries through an inverted index of the
    training points, so a query costs about the products it really has, and memory stays one
    accumulator of n_train entries per thread. Other metrics refuse sparse input. float32 X is
    stored and searched in float32 (no float64 copy); distances and probabilities are returned as
    float64, as scikit-learn's.

    Parameters
    ----------
    n_neighbors : int, default=5
        k.
    weights : {"uniform", "distance", "rank"}, callable or array-like, default="uniform"
        "uniform": every neighbour 1. "distance": 1/d, and if a query coincides with training
        points, only those vote. "rank": k for the nearest neighbour down to 1 for the k-th
        (004 §5 leaves the scheme open; this is its linear choice). An array of length k:
        per-rank weights, nearest first. A callable: ``weights(distances) -> weights`` of the
        same shape (n_queries, k).
    algorithm : {"auto", "brute", "kd_tree"}, default="auto"
        "brute": all distances, a chunk of queries at a time (BLAS for the Euclidean case),
        then a compiled k-smallest selection; memory stays bounded at any number of queries.
        "kd_tree": SciPy's ``cKDTree`` (Minkowski metrics). "auto": the tree for Minkowski
        metrics in at most 15 dimensions with k < n/2, brute force otherwise (always for sparse
        X; "kd_tree" refuses it). Among training
        points at exactly the same distance, brute force keeps the lower training index; the
        tree's order among such ties is SciPy's (unspecified). With the Euclidean BLAS path,
        distances that differ only by round-off (~1e-15 relative) count as different.
    leaf_size : int, default=30
        Leaf size of the k-d tree.
    p : float ≥ 1, default=2
        Exponent of the Minkowski metric (1 Manhattan, 2 Euclidean, ``inf`` Chebyshev).
    metric : str or callable, default="minkowski"
        "minkowski" (with ``p``), "euclidean", "manhattan", "chebyshev", "cosine", other SciPy
        ``cdist`` names, a callable of two vectors, or "precomputed" (X is a distance matrix:
        square in ``fit``, n_queries × n_train afterwards). "cosine" is 1 − q·x/(‖q‖‖x‖), with
        distance 1 to and from a zero vector (scikit-learn's convention). Sparse X: the Euclidean
        metric or "cosine" only.
    metric_params : dict, default=None
        Extra arguments of the metric.
    n_jobs : None, -1 or int ≥ 1, default=None
        Threads for the search. None follows ``lucidml.set_config(n_threads=...)`` (every core
        by default, as scikit-learn's brute-force search whatever its ``n_jobs``), -1 is every core.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_samples_fit_ : int
    n_features_in_ : int

    Examples
    --------
    >>> from lucidml.neighbors import KNeighborsClassifier
    >>> X = [[0.0], [1.0], [2.0], [3.0]]
    >>> y = [0, 0, 1, 1]
    >>> clf = KNeighborsClassifier(n_neighbors=3).fit(X, y)
    >>> clf.predict([[1.1]])
    array([0])
    >>> clf.predict_proba([[0.9]]).round(3)
    array([[0.667, 0.333]])
    """

    def fit(self, X, y):
        """Store the training set (dense or sparse, float32 kept; and build the k-d tree)."""
        y = self._fit(X, y, multi_output=False)
        check_classification_targets(y)
        self.classes_, self._y = np.unique(y, return_inverse=True)
        return self

    def predict_proba(self, X):
        """Weighted share of each class among the k neighbours."""
        distances, indices = self.kneighbors(X)
        weights = self._neighbor_weights(distances)
        labels = self._y[indices]
        votes = np.zeros((len(indices), len(self.classes_)))
        rows = np.arange(len(indices))
        for j in range(indices.shape[1]):
            votes[rows, labels[:, j]] += weights[:, j]
        return votes / votes.sum(axis=1, keepdims=True)  # every row's weights sum to > 0 (_neighbor_weights)

    def predict(self, X):
        """The class with the largest vote; ties go to the smallest label."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
