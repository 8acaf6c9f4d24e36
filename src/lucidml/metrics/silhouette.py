"""Silhouette widths (Rousseeuw 1987): cohesion and separation of every single point."""

from numbers import Integral

import numpy as np
import scipy.sparse
from sklearn.utils import check_consistent_length, check_random_state

from ._distance_sums import check_distance_input, map_distance_blocks


def silhouette_samples(X, labels, *, metric="euclidean", n_jobs=None, **kwds):
    """Silhouette width of every sample, in bounded memory.

    For point i in cluster A:

        a(i) = mean distance from i to the other points of A            (cohesion)
        b(i) = min over clusters B ≠ A of the mean distance from i to B  (separation)
        s(i) = (b(i) − a(i)) / max(a(i), b(i))  ∈ [−1, 1],   s(i) = 0 when |A| = 1

    (seeds: 002 §8.5.2). The notes' (8.12) writes s = 1 − a/b, which equals the form above
    only when a < b; a point closer to another cluster than to its own has s < 0.

    The per-cluster distance sums Σ_{j∈C_k} d(i, j) are accumulated one block of rows at a time:
    for the Euclidean metric a BLAS product gives the block of dot products and one compiled
    pass turns them into distances and sums them by cluster. Memory is one block (a few MiB)
    plus O(n·(1 + n_clusters)/block), never the n × n matrix; time is O(n²·d).

    Parameters
    ----------
    X : array-like or sparse CSR matrix of shape (n_samples, n_features), or (n_samples, n_samples)
        The data, or a distance matrix with a zero diagonal when ``metric="precomputed"``.
    labels : array-like of shape (n_samples,)
        Cluster label of every sample; between 2 and n_samples − 1 distinct labels.
    metric : str or callable, default="euclidean"
        Any metric of :func:`sklearn.metrics.pairwise_distances`, or ``"precomputed"``.
    n_jobs : int or None, default=None
        Threads that compute blocks of rows in parallel (joblib's convention: None is 1 unless
        inside a ``joblib.parallel_config`` context, −1 is all cores).
    **kwds
        Passed to the distance function for metrics other than Euclidean.

    Returns
    -------
    ndarray of shape (n_samples,)
        s(i) for every sample.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.metrics import silhouette_samples
    >>> X = np.array([[0.0], [1.0], [10.0], [11.0], [12.0]])
    >>> silhouette_samples(X, [0, 0, 1, 1, 1]).round(3)
    array([0.909, 0.9  , 0.842, 0.905, 0.87 ])
    """
    X, codes, sizes = check_distance_input(X, labels, metric)
    a, b = _cohesion_separation(X, codes, sizes, metric, n_jobs, **kwds)
    return _silhouette(a, b, sizes[codes])


def silhouette_score(X, labels, *, metric="euclidean", sample_size=None, random_state=None, n_jobs=None, **kwds):
    """Mean silhouette width over all samples, or over a random subset of ``sample_size``.

    The subset is drawn as :func:`sklearn.metrics.silhouette_score` draws it, so both
    functions score the same points for the same ``random_state``.

    Parameters
    ----------
    X, labels, metric, n_jobs, **kwds
        As in :func:`silhouette_samples`.
    sample_size : int or None, default=None
        Score a random subset of this many samples (cost O(sample_size²)); None uses all.
    random_state : int, RandomState instance or None, default=None
        Draws the subset when ``sample_size`` is given.

    Returns
    -------
    float
        The mean of s(i), in [−1, 1]; higher is a better separated clustering.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.metrics import silhouette_score
    >>> X = np.array([[0.0], [1.0], [10.0], [11.0], [12.0]])
    >>> round(silhouette_score(X, [0, 0, 1, 1, 1]), 3)
    0.885
    """
    if sample_size is not None:
        X = X.tocsr() if scipy.sparse.issparse(X) else np.asarray(X)
        labels = np.asarray(labels)
        check_consistent_length(X, labels)
        if not (isinstance(sample_size, Integral) and 0 < sample_size <= X.shape[0]):
            raise ValueError(f"sample_size must be an integer between 1 and n_samples = {X.shape[0]}; got {sample_size}.")
        indices = check_random_state(random_state).permutation(X.shape[0])[:sample_size]
        X = X[indices][:, indices] if metric == "precomputed" else X[indices]
        labels = labels[indices]
    return float(np.mean(silhouette_samples(X, labels, metric=metric, n_jobs=n_jobs, **kwds)))


def _cohesion_separation(X, codes, sizes, metric, n_jobs, **kwds):
    """a(i) (mean distance to the own cluster; 0/0 for singletons) and b(i) for every point."""

    def reduce(rows, sums, _):
        own = codes[rows]
        block = np.arange(own.size)
        with np.errstate(invalid="ignore"):
            a = sums[block, own] / (sizes[own] - 1)
        sums[block, own] = np.inf
        return a, np.min(sums / sizes, axis=1)

    a, b = zip(*map_distance_blocks(reduce, X, codes, sizes.size, metric, n_jobs, **kwds))
    return np.concatenate(a), np.concatenate(b)


def _silhouette(a, b, own_size):
    """s = (b − a)/max(a, b); 0 for singletons and where a = b = 0 (duplicates only)."""
    widest = np.maximum(a, b)
    defined = (own_size > 1) & (widest > 0)
    s = np.zeros_like(a)
    s[defined] = (b[defined] - a[defined]) / widest[defined]
    return s
