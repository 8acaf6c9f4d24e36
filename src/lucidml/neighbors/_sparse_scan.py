"""Compiled brute-force search on sparse data: inner products through an inverted index.

For sparse rows, most query-training pairs share no feature: their inner product is 0. So the
products q·x are summed feature by feature over the training points that have the feature (the
columns of the training matrix in CSC form, an *inverted index*), into one accumulator per
training point; only the points that share a feature with q are touched. The search ranks the
training points by a surrogate of the distance,

    s(q, x) = a(x) − b(q) · c(x) · q·x          (euclidean: a = ‖x‖², b = 2, c = 1;
                                                  cosine: a = 0, b = 1/‖q‖, c = 1/‖x‖),

which orders them as the distance does. A point that was not touched has s = a(x): those are
offered to the query's heap in ascending order of a(x) (``order``, sorted once per search), and
the scan stops at the first one that cannot enter the heap, so a query costs its share of the
product plus about k, not a pass over all training points. Ties are ranked by (surrogate,
training index) whatever order the points are offered in, so the result is the one a full scan
in index order gives. Peak memory: one accumulator of n_fit entries per thread.
"""

from collections import namedtuple

import numpy as np

from ..utils import njit
from ._select import _sift_down

# The queries of a search: a CSR matrix's parts, and each query's scale b(q) in the surrogate.
Queries = namedtuple("Queries", ["indptr", "indices", "data", "scale"])

# The training points as the search reads them: their CSC parts (per feature, the points that have
# it: the inverted index), the surrogate's offset a(x) and scale c(x), and the points in ascending
# (offset, index) order.
InvertedIndex = namedtuple("InvertedIndex", ["indptr", "indices", "data", "offset", "scale", "order"])


@njit
def _offer(values, indices, value, index):
    """Put (value, index) in the max-heap of the k best if it ranks before its worst entry."""
    if value < values[0] or (value == values[0] and index < indices[0]):
        values[0] = value
        indices[0] = index
        _sift_down(values, indices, values.shape[0])


@njit
def sparse_scan(queries, index, values, indices):
    """Offer every training point to the heaps (``values``, ``indices``) of the :class:`Queries`
    (CSR rows qᵢ), by the surrogate offset[t] − q_scale[i] · fit_scale[t] · qᵢ·x_t (q_scale: the
    queries' ``scale``; offset, fit_scale: the index's). The training points are read through their
    :class:`InvertedIndex`, whose ``order`` sorts them by (offset, index)."""
    q_indptr, q_indices, q_data, q_scale = queries.indptr, queries.indices, queries.data, queries.scale
    fit_indptr, fit_indices, fit_data = index.indptr, index.indices, index.data
    offset, fit_scale, order = index.offset, index.scale, index.order
    n_fit = offset.shape[0]
    acc = np.zeros(n_fit, dtype=fit_data.dtype)
    touched = np.empty(n_fit, dtype=np.intp)
    seen = np.zeros(n_fit, dtype=np.bool_)
    for i in range(q_indptr.shape[0] - 1):
        n_touched = 0
        for p in range(q_indptr[i], q_indptr[i + 1]):
            v, j = q_data[p], q_indices[p]
            for r in range(fit_indptr[j], fit_indptr[j + 1]):
                t = fit_indices[r]
                if not seen[t]:
                    seen[t] = True
                    touched[n_touched] = t
                    n_touched += 1
                acc[t] += v * fit_data[r]
        row_values, row_indices = values[i], indices[i]
        for a in range(n_touched):
            t = touched[a]
            _offer(row_values, row_indices, offset[t] - q_scale[i] * fit_scale[t] * acc[t], t)
            acc[t] = 0.0
        for a in range(n_fit):  # the untouched points, best first, while they can still enter
            t = order[a]
            if offset[t] > row_values[0] or (offset[t] == row_values[0] and t > row_indices[0]):
                break
            if not seen[t]:
                _offer(row_values, row_indices, np.float64(offset[t]), t)
        for a in range(n_touched):
            seen[touched[a]] = False


@njit
def sparse_sq_distances(q_indptr, q_indices, q_data, fit_indptr, fit_indices, fit_data, neighbors, out):
    """out[i, m] = ‖qᵢ − x_t‖², t = neighbors[i, m], summed directly over the union of the two rows'
    stored features (a merge of their sorted indices): no cancellation, exact zeros for equal rows."""
    for i in range(neighbors.shape[0]):
        for m in range(neighbors.shape[1]):
            t = neighbors[i, m]
            p, p_end = q_indptr[i], q_indptr[i + 1]
            r, r_end = fit_indptr[t], fit_indptr[t + 1]
            total = 0.0
            while p < p_end or r < r_end:
                if r == r_end or (p < p_end and q_indices[p] < fit_indices[r]):
                    diff = np.float64(q_data[p])
                    p += 1
                elif p == p_end or fit_indices[r] < q_indices[p]:
                    diff = -np.float64(fit_data[r])
                    r += 1
                else:
                    diff = np.float64(q_data[p]) - fit_data[r]
                    p += 1
                    r += 1
                total += diff * diff
            out[i, m] = total
