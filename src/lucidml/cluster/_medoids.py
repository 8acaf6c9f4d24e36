"""What KMedoids, CLARA and CLARANS share: metrics, distance blocks, fitted attributes, predict/transform."""

import warnings

import numpy as np
from scipy.spatial.distance import cdist, pdist, squareform
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import pairwise_distances
from sklearn.utils.validation import check_is_fitted

from ..utils.numerics import unit_rows
from ..utils.validation import check_fit_data, check_magnitude, check_predict_data
from ._pam import first_improving, first_improving_points, is_symmetric, point_row

# Metrics computed by SciPy's cdist/pdist (direct differences: no cancellation of the expanded
# square), after the scikit-learn aliases are mapped to SciPy's names.
_SCIPY_METRICS = frozenset({
    "euclidean", "sqeuclidean", "cityblock", "chebyshev", "minkowski", "cosine", "correlation", "canberra",
    "braycurtis", "hamming", "jaccard", "jensenshannon",
})
_ALIASES = {"manhattan": "cityblock", "l1": "cityblock", "l2": "euclidean"}
# Metrics that do not change when a row is multiplied by a positive number. SciPy squares the
# rows' entries (norms) or sums them (Jensen–Shannon's probabilities), which underflows to 0/0 =
# NaN for features near 1e-300; each row is brought to a largest |entry| in [0.5, 1) first.
_SCALE_FREE = frozenset({"cosine", "correlation", "jensenshannon"})
METRICS = _SCIPY_METRICS | set(_ALIASES) | {"haversine", "precomputed"}

# An improvement smaller than this fraction of the current cost is rounding noise, not a
# decrease: treating it as a tie keeps equal-cost swaps from cycling.
REL_TOL = 1e-10

# PAM's n × n float64 matrix may use at most this much memory (n ≈ 16,000).
MAX_MATRIX_BYTES = 2 * 1024**3

# Distance blocks are computed this many entries at a time (8 MiB of doubles).
_BLOCK = 2**20


def scale_free_rows(X, name):
    """X through :func:`lucidml.utils.numerics.unit_rows` for the scale-free metrics, else X itself."""
    return unit_rows(X) if name in _SCALE_FREE else X


def pairwise(A, B, metric):
    """d(aᵢ, bⱼ) for all rows of A and B: SciPy for its metrics, scikit-learn for the rest and callables."""
    name = _ALIASES.get(metric, metric) if isinstance(metric, str) else metric
    if isinstance(name, str) and name in _SCIPY_METRICS:
        return cdist(scale_free_rows(A, name), scale_free_rows(B, name), name)
    return pairwise_distances(A, B, metric=metric)


def candidate_matrix(X, metric, advice="Use CLARA or CLARANS, which need O(n·n_clusters) memory."):
    """The n × n matrix Dc[c, o] = d(x_o, x_c) that PAM works on.

    Metrics are taken as symmetric (a callable too, as scikit-learn does), so Dc is the distance
    matrix; a precomputed matrix D[o, c] is transposed (copied) unless it is symmetric.
    """
    if metric == "precomputed":
        D = np.ascontiguousarray(X)
        return D if is_symmetric(D) else np.ascontiguousarray(D.T)
    n = X.shape[0]
    if 8.0 * n * n > MAX_MATRIX_BYTES:
        raise ValueError(
            f"PAM needs the n×n distance matrix: {n} points would take {8.0 * n * n / 2**30:.1f} GiB "
            f"(limit {MAX_MATRIX_BYTES / 2**30:.0f} GiB). {advice}"
        )
    name = _ALIASES.get(metric, metric) if isinstance(metric, str) else metric
    if isinstance(name, str) and name in _SCIPY_METRICS:
        return squareform(pdist(scale_free_rows(X, name), name))
    return np.ascontiguousarray(pairwise_distances(X, metric=metric), dtype=np.float64)


# Metrics the compiled CLARANS search computes itself (the codes of _pam.point_row).
_COMPILED_METRICS = {"euclidean": 0, "l2": 0, "sqeuclidean": 1, "manhattan": 2, "cityblock": 2, "l1": 2,
                     "chebyshev": 3}


class CandidateRows:
    """Distances to candidate medoids, for CLARANS: whole rows Dc[indices] (len(indices) × n)
    for the medoids, and the first improving trial swap of a batch.

    For the Minkowski-type metrics a compiled loop computes one candidate's distances at a time
    from the feature-major data, so a trial costs n·d vectorized operations and O(n) memory;
    other metrics (and precomputed matrices) materialize the batch's rows first.
    """

    def __init__(self, X, metric):
        self.X, self.metric = X, metric
        self.code = _COMPILED_METRICS.get(metric, -1) if isinstance(metric, str) else -1
        if self.code >= 0:
            self.XT = np.ascontiguousarray(X.T)

    def __call__(self, indices):
        if self.metric == "precomputed":
            return np.ascontiguousarray(self.X[:, indices].T)
        if self.code >= 0:
            rows = np.empty((len(indices), self.X.shape[0]))
            for i, c in enumerate(indices):
                point_row(self.XT, c, self.code, rows[i])
            return rows
        return np.ascontiguousarray(pairwise(self.X[indices], self.X, self.metric))

    def first_improving(self, candidates, slots, nearest, dn, ds, threshold):
        """(p, row of candidate p) for the first trial p with Δ < threshold; (−1, None) if none."""
        if self.code >= 0:
            p, row = first_improving_points(self.XT, candidates, slots, nearest, dn, ds, threshold, self.code)
            return p, (row if p >= 0 else None)
        rows = self(candidates)
        p = first_improving(rows, slots, nearest, dn, ds, threshold)
        return p, (rows[p] if p >= 0 else None)


def submatrix(X, sample, metric):
    """Dc restricted to the points ``sample`` (for PAM on a CLARA sample)."""
    if metric == "precomputed":
        return np.ascontiguousarray(X[np.ix_(sample, sample)].T)
    return candidate_matrix(X[sample], metric, "Use a smaller sample_size.")


def nearest_medoid(X, medoids, metric):
    """(label, distance) of every point's nearest medoid, in row blocks so memory stays O(block)."""
    n, n_medoids = X.shape[0], len(medoids)
    labels = np.empty(n, dtype=np.int64)
    dist = np.empty(n)
    step = max(1, _BLOCK // max(n_medoids, 1))
    centers = None if metric == "precomputed" else X[medoids]
    for start in range(0, n, step):
        stop = min(start + step, n)
        block = X[start:stop, medoids] if metric == "precomputed" else pairwise(X[start:stop], centers, metric)
        labels[start:stop] = np.argmin(block, axis=1)
        dist[start:stop] = block[np.arange(stop - start), labels[start:stop]]
    return labels, dist


class _BaseMedoids(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, BaseEstimator):
    """Input checks, fitted attributes, ``predict`` and ``transform`` of the k-medoids estimators."""

    def _validate_training_data(self, X):
        X = check_fit_data(self, X)
        check_magnitude(X, self)
        n = X.shape[0]
        if self.metric == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"metric='precomputed' needs a square distance matrix; got shape {X.shape}.")
            if np.any(X < 0):
                raise ValueError("Negative values in data: metric='precomputed' needs non-negative distances.")
            if np.any(np.diag(X) > 100 * np.finfo(np.float64).eps * max(1.0, float(X.max()))):
                raise ValueError("metric='precomputed' needs a zero diagonal: a medoid's distance to itself is 0.")
        if n < self.n_clusters:
            raise ValueError(f"n_samples={n} should be >= n_clusters={self.n_clusters}.")
        return X

    def _set_result(self, X, medoids):
        """medoid_indices_, cluster_centers_, labels_ and inertia_ for the medoids found."""
        medoids = np.asarray(medoids, dtype=np.int64)
        labels, dist = nearest_medoid(X, medoids, self.metric)
        if self.metric == "precomputed":
            between = X[np.ix_(medoids, medoids)]
        else:
            between = pairwise(X[medoids], X[medoids], self.metric)
        # A medoid tied with a duplicate medoid still labels itself, so no cluster is empty;
        # the cost is unchanged (the two distances are equal).
        slots = np.arange(len(medoids))
        own = np.diag(between) <= dist[medoids]
        labels[medoids[own]] = slots[own]
        self.medoid_indices_ = medoids
        self.cluster_centers_ = None if self.metric == "precomputed" else X[medoids].copy()
        self.labels_ = labels
        self.inertia_ = float(dist.sum())
        duplicate = np.tril(between == 0.0, k=-1).any(axis=1)
        if duplicate.any():
            warnings.warn(
                f"Only {int((~duplicate).sum())} distinct medoids found for n_clusters={len(medoids)}: some medoids "
                "are duplicate points (the data may have fewer distinct points than clusters).",
                ConvergenceWarning,
                stacklevel=3,
            )
        return self

    def _medoid_distances(self, X):
        check_is_fitted(self)
        X = check_predict_data(self, X, bounded=self.metric != "precomputed")
        if self.metric == "precomputed":
            return np.array(X[:, self.medoid_indices_])
        return pairwise(X, self.cluster_centers_, self.metric)

    def predict(self, X):
        """Index of the nearest medoid of each sample.

        With ``metric="precomputed"``, X holds distances to the training points
        (n_queries × n_train) and its medoid columns are used.
        """
        return np.argmin(self._medoid_distances(X), axis=1)

    def transform(self, X):
        """Distances of each sample to every medoid, shape (n_samples, n_clusters).

        With ``metric="precomputed"``, X holds distances to the training points
        (n_queries × n_train) and its medoid columns are returned.
        """
        return self._medoid_distances(X)

    @property
    def _n_features_out(self):
        return self.medoid_indices_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = self.metric == "precomputed"  # distances are ≥ 0
        return tags
