"""k-nearest-neighbour regression."""

import numpy as np
from sklearn.base import RegressorMixin

from ._base import _KNeighborsBase


class KNeighborsRegressor(RegressorMixin, _KNeighborsBase):
    """Predict the (weighted) mean target of the k nearest training points.

    ŷ(x) = Σ_{i ∈ N_k(x)} w_i y_i / Σ_{i ∈ N_k(x)} w_i (seeds: 001 §7, 004 §5); multi-output
    targets are averaged column-wise.

    Parameters
    ----------
    n_neighbors, weights, algorithm, leaf_size, p, metric, metric_params, n_jobs
        As for :class:`~lucidml.neighbors.KNeighborsClassifier`: k, the neighbour weights
        ("uniform", "distance", "rank", per-rank array or callable), the search ("auto",
        "brute", "kd_tree"), the metric, and the number of search threads. Sparse X (CSR) is
        searched natively for the Euclidean metric and "cosine", float32 X in float32. The
        predictions are float32 for a float32 y with uniform weights and float64 otherwise, as
        scikit-learn's (averaged in float64 either way).

    Attributes
    ----------
    n_samples_fit_ : int
    n_features_in_ : int

    Examples
    --------
    >>> from lucidml.neighbors import KNeighborsRegressor
    >>> X = [[0.0], [1.0], [2.0], [3.0]]
    >>> KNeighborsRegressor(n_neighbors=2).fit(X, [0.0, 1.0, 4.0, 9.0]).predict([[0.4], [2.6]])
    array([0.5, 6.5])
    """

    def fit(self, X, y):
        """Store the training set (dense or sparse, float32 kept; and build the k-d tree)."""
        y = self._fit(X, y, multi_output=True, y_numeric=True)
        self._y = np.asarray(y, dtype=np.float64)
        self._y_dtype = "float32" if np.asarray(y).dtype == np.float32 else "float64"
        return self

    def predict(self, X):
        """Weighted mean of the neighbours' targets."""
        distances, indices = self.kneighbors(X)
        weights = self._neighbor_weights(distances)
        total = weights.sum(axis=1)  # > 0 (_neighbor_weights)
        neighbours = self._y[indices]  # (n_queries, k) or (n_queries, k, n_targets)
        if neighbours.ndim == 2:
            mean = np.einsum("qk,qk->q", weights, neighbours) / total
        else:
            mean = np.einsum("qk,qkt->qt", weights, neighbours) / total[:, None]
        # scikit-learn's types: a float32 y's plain mean stays float32, a weighted one is float64.
        # (Models saved before the target's type was kept predict float64.)
        uniform = isinstance(self.weights, str) and self.weights == "uniform"
        return mean.astype(getattr(self, "_y_dtype", "float64") if uniform else np.float64, copy=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
