"""Per-cluster sums of pairwise distances, one block of rows at a time.

Silhouette widths and the proximity–incidence correlation need, for every point i and cluster k,
Σ_{j ∈ C_k} d(xᵢ, xⱼ). Those sums are accumulated block by block of rows, so memory stays at
one block of distances per thread (about ``_WORKING_MEMORY`` bytes) plus O(n_clusters) per row,
never the n × n distance matrix.
"""

import numpy as np
import scipy.sparse
from joblib import Parallel, delayed
from sklearn.metrics import pairwise_distances
from sklearn.utils import check_X_y

from ..utils import njit
from ..utils.linalg import blas_threads
from ..utils.numerics import times_power_of_two, units_exponent
from ..utils.validation import largest_magnitude

# Bytes of distances per block. A block this size stays in cache between the BLAS product
# that writes it and the compiled pass that reads it.
_WORKING_MEMORY = 4 * 2**20

_EUCLIDEAN = ("euclidean", "l2")
# Metrics that scale with X (d(cx, cy) = cᵖ d(x, y)) or ignore its scale: the silhouette and the
# proximity–incidence correlation, ratios and correlations of their distances, are the same on X
# in units of a power of two (exact), where squared distances neither overflow nor underflow.
_SCALE_FREE_RATIOS = _EUCLIDEAN + ("sqeuclidean", "manhattan", "cityblock", "l1", "minkowski", "chebyshev",
                                    "cosine", "correlation", "braycurtis", "canberra")
_SAFE_MAGNITUDES = (1e-100, 1e100)


def _in_safe_units(X):
    """X, or X · 2⁻ᵉ with its largest |value| in [0.5, 1) when that value is outside _SAFE_MAGNITUDES
    (squares of values from 1e154 overflowed: every silhouette 0, a NaN correlation)."""
    exponent = units_exponent(largest_magnitude(X), _SAFE_MAGNITUDES)
    return times_power_of_two(X, -exponent) if exponent else X


@njit(fastmath=True)
def _segment_sums(gram_row, row_sqnorm, col_sqnorms, lo, hi):
    """Σ ‖xᵢ − xⱼ‖ and Σ ‖xᵢ − xⱼ‖² over columns lo ≤ j < hi of one row of dot products.

    ‖xᵢ − xⱼ‖² = ‖xᵢ‖² + ‖xⱼ‖² − 2 xᵢ·xⱼ, clipped at 0 against round-off. fastmath lets the
    two sums vectorize (inputs are finite: NaN and infinity were rejected before).
    """
    s = 0.0
    s2 = 0.0
    for j in range(lo, hi):
        d2 = max(-2.0 * gram_row[j] + row_sqnorm + col_sqnorms[j], 0.0)
        s += np.sqrt(d2)
        s2 += d2
    return s, s2


@njit
def _euclidean_block_sums(gram, row_sqnorms, col_sqnorms, bounds, self_col, sums, sq_sums):
    """sums[i, k] = Σ_{j ∈ C_k} ‖xᵢ − xⱼ‖ and sq_sums[i] = Σⱼ ‖xᵢ − xⱼ‖² for a block of rows.

    gram[i, j] = xᵢ·xⱼ with the columns grouped by cluster: cluster k is the columns
    bounds[k]:bounds[k + 1]. Column self_col[i] (the point itself) is skipped, so its
    distance counts as exactly 0 rather than round-off.
    """
    for i in range(gram.shape[0]):
        me = self_col[i]
        total_sq = 0.0
        for k in range(bounds.size - 1):
            lo, hi = bounds[k], bounds[k + 1]
            if lo <= me < hi:
                s, s2 = _segment_sums(gram[i], row_sqnorms[i], col_sqnorms, lo, me)
                t, t2 = _segment_sums(gram[i], row_sqnorms[i], col_sqnorms, me + 1, hi)
                s, s2 = s + t, s2 + t2
            else:
                s, s2 = _segment_sums(gram[i], row_sqnorms[i], col_sqnorms, lo, hi)
            sums[i, k] = s
            total_sq += s2
        sq_sums[i] = total_sq


def map_distance_blocks(reduce, X, codes, n_clusters, metric="euclidean", n_jobs=None, **kwds):
    """``[reduce(rows, sums, sq_sums) for every block of rows]``, blocks spread over ``n_jobs`` threads.

    ``sums[r, k] = Σ_{j: codes[j] = k} d(x_rows[r], xⱼ)`` and ``sq_sums[r] = Σⱼ d(x_rows[r], xⱼ)²``;
    ``rows`` is a slice of the original order. ``X`` is validated float64 data (dense or CSR),
    or the square distance matrix when ``metric == "precomputed"``. Each thread runs BLAS on
    one thread: several small products in parallel beat one product split across threads.
    """
    n = X.shape[0]
    # Columns grouped by cluster, so that a cluster is a run of columns; the stable sort keeps
    # each cluster's members in their original order.
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=n_clusters)))).astype(np.intp)
    position = np.empty(n, dtype=np.intp)
    position[order] = np.arange(n)

    if metric == "precomputed":
        def distance_block(rows):
            D = X[rows][:, order]
            D = D.toarray() if scipy.sparse.issparse(D) else D
            return np.add.reduceat(D, bounds[:-1], axis=1), np.einsum("ij,ij->i", D, D)
    elif metric in _EUCLIDEAN:
        if not scipy.sparse.issparse(X):
            # ‖a‖² + ‖b‖² − 2a·b cancels badly when the data lie far from the origin; distances
            # do not change when the data are centred, the round-off does.
            X = X - X.mean(axis=0)
        sqnorms = _row_sqnorms(X)
        col_sqnorms = sqnorms[order]
        X_cols_t = X[order].T.tocsr() if scipy.sparse.issparse(X) else np.ascontiguousarray(X[order].T)

        def distance_block(rows):
            gram = X[rows] @ X_cols_t
            gram = gram.toarray() if scipy.sparse.issparse(gram) else gram
            sums, sq_sums = np.empty((gram.shape[0], n_clusters)), np.empty(gram.shape[0])
            _euclidean_block_sums(gram, sqnorms[rows], col_sqnorms, bounds, position[rows], sums, sq_sums)
            return sums, sq_sums
    else:
        X_cols = X[order]

        def distance_block(rows):
            D = pairwise_distances(X[rows], X_cols, metric=metric, **kwds)
            return np.add.reduceat(D, bounds[:-1], axis=1), np.einsum("ij,ij->i", D, D)

    def task(rows):
        return reduce(rows, *distance_block(rows))

    block = max(1, _WORKING_MEMORY // (8 * (n + n_clusters)))
    blocks = [slice(start, min(start + block, n)) for start in range(0, n, block)]
    with blas_threads(1):
        return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(task)(rows) for rows in blocks)


def _row_sqnorms(X):
    if scipy.sparse.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def check_distance_input(X, labels, metric):
    """Validated ``(X, codes, sizes)``: float64 data (or square distance matrix), labels coded 0..K−1.

    Raises ValueError for NaN or infinity, lengths that differ, a precomputed matrix that is
    not square with a zero diagonal, and fewer than 2 or more than n − 1 clusters (the
    measures compare a point's own cluster with another one, so both must exist).
    """
    X, labels = check_X_y(X, labels, accept_sparse=["csr"], dtype=np.float64)
    n = X.shape[0]
    if metric == "precomputed":
        if X.shape[1] != n:
            raise ValueError(f"A precomputed distance matrix must be square; got shape {X.shape}.")
        if np.any(np.abs(X.diagonal()) > 100 * np.finfo(np.float64).eps):
            raise ValueError("The precomputed distance matrix has nonzero entries on its diagonal.")
    elif metric in _SCALE_FREE_RATIOS:
        X = _in_safe_units(X)
    _, codes = np.unique(labels, return_inverse=True)
    sizes = np.bincount(codes)
    if not 1 < sizes.size < n:
        raise ValueError(f"Number of labels is {sizes.size}; valid values are 2 to n_samples - 1 = {n - 1}.")
    return X, codes, sizes
