"""What k-NN classification and regression share: the stored training set, the search, the weights."""

from numbers import Integral, Real

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ..utils import N_JOBS, Interval, Options, validate_params
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_predict_data
from ._search import BruteSearch, KDTreeSearch, minkowski_p

METRICS = frozenset(
    {"minkowski", "euclidean", "l2", "manhattan", "cityblock", "l1", "chebyshev", "cosine", "correlation",
     "braycurtis", "canberra", "sqeuclidean", "hamming", "jaccard", "precomputed"}
)

# Above this many features a k-d tree prunes too little to beat brute force ("auto" switches).
KD_TREE_MAX_FEATURES = 15
SPARSE_METRICS = "'euclidean' (also spelled 'l2', or 'minkowski' with p=2) and 'cosine'"


class _KNeighborsBase(BaseEstimator):
    _parameter_constraints = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "weights": [Options({"uniform", "distance", "rank"}), "callable", "array-like"],
        "algorithm": [Options({"auto", "brute", "kd_tree"})],
        "leaf_size": [Interval(Integral, 1, None, closed="left")],
        "p": [Interval(Real, 1, None, closed="left")],
        "metric": [Options(METRICS), "callable"],
        "metric_params": [dict, None],
        "n_jobs": N_JOBS,
    }

    def __init__(
        self, n_neighbors=5, *, weights="uniform", algorithm="auto", leaf_size=30, p=2, metric="minkowski",
        metric_params=None, n_jobs=None,
    ):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.p = p
        self.metric = metric
        self.metric_params = metric_params
        self.n_jobs = n_jobs

    def _fit(self, X, y, multi_output, y_numeric=False):
        validate_params(self)
        X, y = check_fit_data(self, X, y, accept_sparse="csr", float32=True, order="C", multi_output=multi_output,
                              y_numeric=y_numeric)
        if scipy.sparse.issparse(X):
            self._check_sparse_settings()
        if self.metric == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(f"metric='precomputed' needs a square distance matrix; got shape {X.shape}.")
        self._check_distances(X)
        if not (isinstance(self.weights, str) or callable(self.weights)) and len(self.weights) != self.n_neighbors:
            raise ValueError(f"weights has {len(self.weights)} per-rank entries but n_neighbors={self.n_neighbors}.")
        self.n_samples_fit_ = X.shape[0]
        self._fit_method = self._choose_algorithm(X)
        if self._fit_method == "kd_tree":
            self._search = KDTreeSearch(X, self.metric, self.p, self.leaf_size)
        else:
            self._search = BruteSearch(X, self.metric, self.p, self.metric_params)
        self._fit_X = X
        return y

    def _sparse_metric(self):
        """Whether the metric is one the sparse search computes (Euclidean under any name, or cosine)."""
        return self.metric == "cosine" or minkowski_p(self.metric, self.p) == 2.0

    def _check_sparse_settings(self):
        if not self._sparse_metric():
            metric = self.metric if self.metric != "minkowski" else f"minkowski with p={self.p}"
            raise ValueError(f"Sparse input supports metric {SPARSE_METRICS}; got metric={metric!r}. "
                             "Pass X.toarray() for other metrics.")
        if self.algorithm == "kd_tree":
            raise ValueError("algorithm='kd_tree' does not take sparse input; use 'brute' or 'auto'.")

    def _choose_algorithm(self, X):
        if scipy.sparse.issparse(X):
            return "brute"
        tree_capable = self.metric != "precomputed" and minkowski_p(self.metric, self.p) is not None
        if self.algorithm == "kd_tree":
            if not tree_capable:
                raise ValueError(f"algorithm='kd_tree' supports Minkowski metrics only, not metric={self.metric!r}.")
            return "kd_tree"
        if self.algorithm == "auto" and tree_capable and X.shape[1] <= KD_TREE_MAX_FEATURES \
                and self.n_neighbors < X.shape[0] / 2:
            return "kd_tree"
        return "brute"

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """Distances to and indices of the k nearest training points of each query, nearest first.

        With ``X=None`` the queries are the training points, each excluding itself. Ties in
        distance go to the lower training index (brute force).
        """
        check_is_fitted(self)
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if not isinstance(k, Integral) or k < 1:
            raise ValueError(f"n_neighbors must be a positive integer; got {k!r}.")
        query_is_train = X is None
        if query_is_train:
            X = self._fit_X
            k += 1
        else:
            X = check_predict_data(self, X, order="C", dtype=FLOAT_DTYPES, accept_sparse="csr")
            X = X.astype(self._fit_X.dtype, copy=False)  # queries in the training points' precision
            self._check_distances(X)
        if k > self.n_samples_fit_:
            raise ValueError(
                f"Expected n_neighbors <= n_samples_fit, but n_neighbors = {k}, n_samples_fit = {self.n_samples_fit_}."
            )
        distances, indices = self._search.query(X, k, self.n_jobs)
        if query_is_train:
            distances, indices = _drop_self(distances, indices)
        return (distances, indices) if return_distance else indices

    def _check_distances(self, X):
        """With metric='precomputed', X holds distances: none may be negative."""
        if self.metric == "precomputed" and (X.data if scipy.sparse.issparse(X) else X).min(initial=0.0) < 0:
            raise ValueError("metric='precomputed' needs distances; X has negative values.")

    def _neighbor_weights(self, distances):
        """Weight of each neighbour: uniform, 1/d, per rank, or a user function of the distances."""
        if isinstance(self.weights, str):
            if self.weights == "uniform":
                return np.ones_like(distances)
            if self.weights == "distance":
                # 1/d, except that exact matches (d = 0) outvote everything else.
                with np.errstate(divide="ignore"):
                    weights = 1.0 / distances
                exact = np.isinf(weights)
                rows = exact.any(axis=1)
                weights[rows] = exact[rows]
                return weights
            k = distances.shape[1]  # "rank": k for the nearest down to 1 for the k-th (004 §5)
            return np.broadcast_to(np.arange(k, 0, -1, dtype=np.float64), distances.shape)
        if callable(self.weights):
            weights = np.asarray(self.weights(distances), dtype=np.float64)
            if weights.shape != distances.shape:
                raise ValueError(f"weights(distances) returned shape {weights.shape}; expected {distances.shape}.")
        else:
            weights = np.broadcast_to(np.asarray(self.weights, dtype=np.float64), distances.shape)
        if not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise ValueError("the neighbours' weights must be finite and ≥ 0.")
        if np.any(weights.sum(axis=1) <= 0):
            raise ValueError("the weights of the neighbours of some rows are all 0: they have no weighted vote or "
                             "mean.")
        return weights

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.sparse = self._sparse_metric()
        return tags


def _drop_self(distances, indices):
    """Remove each training point from its own neighbour list (or, for duplicates, the first entry)."""
    n, k = indices.shape
    keep = indices != np.arange(n)[:, None]
    no_self = keep.all(axis=1)  # the point had k − 1 exact duplicates ahead of itself
    keep[no_self, k - 1] = False
    return distances[keep].reshape(n, k - 1), indices[keep].reshape(n, k - 1)
