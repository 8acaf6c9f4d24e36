"""Compiled loops of k-means on a CSR matrix: the same steps as ``_kmeans_kernels``, sparse rows.

A sparse row is not centred (that would fill it in), so distances take the expanded form

    ‖x − c‖² = ‖x‖² − 2 x·c + ‖c‖²,

with ‖x‖² computed once per fit and x·c from the stored entries of x only: for each stored
(j, xⱼ), the K values c_kj are read from one row of the transposed centres ``centers_t``
(n_features, K), contiguous, so the K products of a row cost one pass over its entries. The
expansion can come out a rounding below zero for a point on its centre; it is clipped at 0.
Centres stay dense. The rows are given by ``indptr``, ``indices``, ``data`` (one index dtype for
all calls, see ``SparseSamples``); every kernel works on the rows ``start:stop`` and releases the
GIL, as the dense ones. Distances are computed in the data's precision, sums over samples in
float64.
"""

from collections import namedtuple

import numpy as np

from ..utils import njit

# The data of a pass: the CSR arrays ``indptr``, ``indices``, ``data`` of X, every row's ‖xᵢ‖²
# ``sq_norms`` and the sample weights ``weight``.
SparseRows = namedtuple("SparseRows", ["indptr", "indices", "data", "sq_norms", "weight"])


@njit
def _row_sq_distances(indptr, indices, data, sq_norm, i, centers_t, c_sq_norms, out):
    """out[k] = ‖xᵢ − c_k‖² = ‖xᵢ‖² − 2 xᵢ·c_k + ‖c_k‖² (clipped at 0) for every centre k."""
    n_centers = centers_t.shape[1]
    out[:] = 0.0
    for p in range(indptr[i], indptr[i + 1]):
        v, j = data[p], indices[p]
        for k in range(n_centers):
            out[k] += v * centers_t[j, k]
    for k in range(n_centers):
        out[k] = max(sq_norm - 2.0 * out[k] + c_sq_norms[k], 0.0)


@njit(interpret_small=20_000)
def sparse_assign_step(rows, centers_t, start, stop, out, accumulate):
    """E-step on the rows start:stop of ``rows`` (a :class:`SparseRows`), as
    ``_kmeans_kernels.assign_step``: nearest centre (the first of equal ones) and its squared
    distance, written to ``out`` (a ``_kmeans_kernels.Assignment``), the weighted distortion and the
    number of changed labels; with ``accumulate``, the per-cluster weights and the change of the
    per-cluster sums Σ wᵢxᵢ caused by the rows that moved (over their stored entries only)."""
    indptr, indices, data = rows.indptr, rows.indices, rows.data
    sq_norms, weight = rows.sq_norms, rows.weight
    labels, distance, sums, weights = out.labels, out.distance, out.sums, out.weights
    n_centers = centers_t.shape[1]
    c_sq_norms = np.sum(centers_t * centers_t, axis=0)
    d2 = np.empty(n_centers, dtype=data.dtype)
    if accumulate:
        sums[:] = 0.0
        weights[:] = 0.0
    sse, changed = 0.0, 0
    for i in range(start, stop):
        _row_sq_distances(indptr, indices, data, sq_norms[i], i, centers_t, c_sq_norms, d2)
        best = 0
        for k in range(1, n_centers):
            if d2[k] < d2[best]:
                best = k
        old, w = labels[i], weight[i]
        changed += old != best
        labels[i], distance[i] = best, d2[best]
        sse += w * d2[best]
        if not accumulate:
            continue
        weights[best] += w
        if best == old:
            continue
        for p in range(indptr[i], indptr[i + 1]):
            x = w * np.float64(data[p])
            sums[best, indices[p]] += x
            if old >= 0:
                sums[old, indices[p]] -= x
    return sse, changed


@njit(interpret_small=20_000)
def sparse_sq_distances(indptr, indices, data, sq_norms, centers_t, start, stop, out):
    """out[i, k] = ‖xᵢ − c_k‖² for the rows start:stop."""
    c_sq_norms = np.sum(centers_t * centers_t, axis=0)
    for i in range(start, stop):
        _row_sq_distances(indptr, indices, data, sq_norms[i], i, centers_t, c_sq_norms, out[i])


@njit(interpret_small=20_000)
def sparse_seeding_trials(rows, closest, candidates_t, start, stop, trial_d2):
    """One k-means++ step on the rows start:stop of ``rows`` (a :class:`SparseRows`), as
    ``_kmeans_kernels.seeding_trials``: trial_d2[t, i] = min(D²(xᵢ), ‖xᵢ − candidate_t‖²); returns
    pot[t] = Σᵢ wᵢ trial_d2[t, i]."""
    indptr, indices, data = rows.indptr, rows.indices, rows.data
    sq_norms, weight = rows.sq_norms, rows.weight
    n_trials = candidates_t.shape[1]
    c_sq_norms = np.sum(candidates_t * candidates_t, axis=0)
    d2 = np.empty(n_trials, dtype=data.dtype)
    pot = np.zeros(n_trials)
    for i in range(start, stop):
        _row_sq_distances(indptr, indices, data, sq_norms[i], i, candidates_t, c_sq_norms, d2)
        for t in range(n_trials):
            v = min(np.float64(d2[t]), closest[i])
            trial_d2[t, i] = v
            pot[t] += weight[i] * v
    return pot


@njit(interpret_small=True)
def sparse_column_variance_mean(indices, data, n_samples, n_features):
    """The mean over features of the (population) variance of each column, in two passes; the
    column's implicit zeros count (n − stored) times (0 − mean)²."""
    mean = np.zeros(n_features)
    stored = np.zeros(n_features)
    for p in range(data.shape[0]):
        mean[indices[p]] += data[p]
        stored[indices[p]] += 1.0
    mean /= n_samples
    var = (n_samples - stored) * mean * mean
    for p in range(data.shape[0]):
        t = data[p] - mean[indices[p]]
        var[indices[p]] += t * t
    return var.sum() / (n_samples * n_features)
