"""Compiled loops of k-means: the assignment step fused with the centre sums, k-means++ seeding.

The data are first copied into *packed* form: blocks of ``BLOCK`` rows, each block transposed,
``P[b, j, r] = X[b·BLOCK + r, j]`` (the last block padded with zeros). The innermost loops then
run over the ``BLOCK`` samples of a block for one (centre, feature) pair — contiguous memory that
the CPU's vector units take 4 or 8 samples at a time, however few the centres and features.

Distances are the direct Σⱼ (xⱼ − cⱼ)², not the expansion ‖x‖² − 2x·c + ‖c‖², which loses digits
when the points lie far from the origin compared with their spread. Only with many centres
(``gemm``) do the products x·c of a block come from one BLAS call; they serve to pick the nearest
centre, whose distance is then recomputed directly, and the packed data are centred (X − x̄),
which keeps the expansion accurate.

The kernels compute in the data's precision (float32 data: float32 distances, twice as many lanes
per vector instruction); sums over samples (the centre sums, the distortion) are kept in float64.

Every kernel works on the rows ``start:stop`` (``start`` a multiple of ``BLOCK``), so that
threads can share a pass over the data, each with its own rows and output buffers; every kernel
releases the GIL.
"""

from collections import namedtuple

import numpy as np

from ..utils import njit

# Samples per block: a block of 20 features is 10 KiB, well inside the L1 cache.
BLOCK = 64
# Above this many features the centre sums read the rows of X rather than the packed block.
ROWS_ABOVE = 128

# The data of a pass: the packed copy ``P`` of X − shift (empty when each block is packed on the
# spot), X itself, the ``shift`` (in X's dtype) and the sample weights ``weight``.
Packed = namedtuple("Packed", ["P", "X", "shift", "weight"])

# Where an assignment step writes (also ``_kmeans_sparse``'s): the label of every row ``labels`` (the
# previous ones read first, −1 for none) and its squared distance ``distance``; this share's M-step
# buffers ``sums`` (n_clusters, n_features) and ``weights`` (n_clusters), filled only with accumulate.
Assignment = namedtuple("Assignment", ["labels", "distance", "sums", "weights"])


@njit(interpret_small=True)
def pack(X, shift, start, stop, P):
    """Copy the rows start:stop of X − shift into the packed array P (n_blocks, n_features, BLOCK):

        P[i // BLOCK, j, i % BLOCK] = X[i, j] − shift[j].
    """
    for i in range(start, stop):
        block, r = i // BLOCK, i % BLOCK
        for j in range(X.shape[1]):
            P[block, j, r] = X[i, j] - shift[j]


@njit
def _block(P, X, shift, s, buffer):
    """The packed block of the rows s:s + BLOCK: read from P, or, when P is empty (a prediction
    streams over X without a packed copy of it), packed into ``buffer`` on the spot."""
    if P.shape[0] > 0:
        return P[s // BLOCK]
    m = min(BLOCK, X.shape[0] - s)
    for r in range(m):
        for j in range(X.shape[1]):
            buffer[j, r] = X[s + r, j] - shift[j]
    if m < BLOCK:
        buffer[:, m:] = 0.0
    return buffer


@njit
def _block_sq_distances(xt, centers, out):
    """out[c, r] = ‖x_r − centers[c]‖² for the samples r of the packed block xt (n_features, BLOCK)."""
    n_centers, n_features = centers.shape
    for c in range(n_centers):
        for r in range(BLOCK):
            out[c, r] = 0.0
        for j in range(n_features):
            cj = centers[c, j]
            for r in range(BLOCK):
                t = xt[j, r] - cj
                out[c, r] += t * t


@njit
def _block_nearest(xt, centers, acc, best_d2, best):
    """Nearest centre (argmin over all K) of every sample of a packed block: ``best``, ``best_d2``."""
    n_centers, n_features = centers.shape
    for c in range(n_centers):
        for r in range(BLOCK):
            acc[r] = 0.0
        for j in range(n_features):
            cj = centers[c, j]
            for r in range(BLOCK):
                t = xt[j, r] - cj
                acc[r] += t * t
        for r in range(BLOCK):  # branch-free selects, vectorised over the block
            closer = c == 0 or acc[r] < best_d2[r]
            best_d2[r] = acc[r] if closer else best_d2[r]
            best[r] = c if closer else best[r]


@njit
def _block_nearest_gemm(xt, centers, half_sq_norms, acc, best_d2, best):
    """As :func:`_block_nearest`, with the products x·c of the whole block from one BLAS call.

    The nearest centre minimizes ‖c‖²/2 − x·c (= (‖x − c‖² − ‖x‖²)/2); its distance is then
    recomputed directly, so only the choice between nearly equidistant centres can suffer from
    the cancellation of the expanded form (the data are centred to keep it small).
    """
    n_centers, n_features = centers.shape
    products = np.dot(centers, xt)  # (K, BLOCK)
    for c in range(n_centers):
        for r in range(BLOCK):
            v = half_sq_norms[c] - products[c, r]
            closer = c == 0 or v < acc[r]
            acc[r] = v if closer else acc[r]
            best[r] = c if closer else best[r]
    for r in range(BLOCK):
        best_d2[r] = 0.0
    for j in range(n_features):
        for r in range(BLOCK):
            t = xt[j, r] - centers[best[r], j]
            best_d2[r] += t * t


@njit(interpret_small=20_000)
def assign_step(data, centers, start, stop, out, accumulate, gemm):
    """E-step on rows start:stop of ``data`` (a :class:`Packed`): nearest centre and its squared
    distance for every row.

    Writes ``out.labels`` and ``out.distance`` (an :class:`Assignment`) for these rows and returns
    the weighted distortion Σ wᵢ ‖xᵢ − c_{ℓᵢ}‖² of these rows and how many labels changed. When
    ``accumulate`` is true it also fills this thread's buffers for the M-step: ``out.weights`` = Σ wᵢ
    per new cluster, and ``out.sums`` = the change of the cluster sums Σ wᵢ (xᵢ − shift) caused by
    the rows whose label changed (added to the new cluster, taken from the old one; a label −1
    means none). Only the rows that move cost d operations, and after the first passes few do.
    ``gemm`` selects the BLAS route for the distances (faster for many centres).
    """
    P, X, shift, weight = data.P, data.X, data.shift, data.weight
    labels, distance, sums, weights = out.labels, out.distance, out.sums, out.weights
    n_features = X.shape[1]
    buffer = np.empty((n_features, BLOCK), dtype=P.dtype)
    acc = np.empty(BLOCK, dtype=P.dtype)
    best_d2 = np.empty(BLOCK, dtype=P.dtype)
    best = np.empty(BLOCK, dtype=labels.dtype)
    old = np.empty(BLOCK, dtype=labels.dtype)
    sse = np.zeros(BLOCK)  # one partial sum per lane: no serial chain of additions
    half_sq_norms = 0.5 * np.sum(centers * centers, axis=1)
    if accumulate:
        sums[:] = 0.0
        weights[:] = 0.0
    changed = 0
    for s in range(start, stop, BLOCK):
        xt = _block(P, X, shift, s, buffer)
        if gemm:
            _block_nearest_gemm(xt, centers, half_sq_norms, acc, best_d2, best)
        else:
            _block_nearest(xt, centers, acc, best_d2, best)
        m = min(BLOCK, stop - s)
        for r in range(m):
            old[r] = labels[s + r]
            changed += old[r] != best[r]
            labels[s + r] = best[r]
            distance[s + r] = best_d2[r]
            sse[r] += weight[s + r] * best_d2[r]
        if not accumulate:
            continue
        for r in range(m):
            i, k, o, w = s + r, best[r], old[r], weight[s + r]
            weights[k] += w
            if k == o:
                continue
            # The same values as the packed block holds; read along X's contiguous row when the
            # block's column (one cache line per feature) would cost more.
            for j in range(n_features):
                x = X[i, j] - shift[j] if n_features > ROWS_ABOVE else xt[j, r]
                sums[k, j] += w * x
                if o >= 0:
                    sums[o, j] -= w * x
    return sse.sum(), changed


@njit(interpret_small=20_000)
def sq_distances(P, X, shift, centers, start, stop, out):
    """out[i, c] = ‖xᵢ − centers[c]‖² for the rows start:stop."""
    d2 = np.empty((centers.shape[0], BLOCK), dtype=P.dtype)
    buffer = np.empty((X.shape[1], BLOCK), dtype=P.dtype)
    for s in range(start, stop, BLOCK):
        _block_sq_distances(_block(P, X, shift, s, buffer), centers, d2)
        for r in range(min(BLOCK, stop - s)):
            for c in range(centers.shape[0]):
                out[s + r, c] = d2[c, r]


@njit(interpret_small=20_000)
def seeding_trials(P, weight, closest, candidates, start, stop, trial_d2):
    """One k-means++ step on rows start:stop, for every candidate centre t at once:

        trial_d2[t, i] = min(D²(xᵢ), ‖xᵢ − candidate_t‖²),   returns  pot[t] = Σᵢ wᵢ trial_d2[t, i],

    where D²(xᵢ) = ``closest[i]`` is the squared distance to the nearest centre chosen so far.
    """
    n_trials = candidates.shape[0]
    d2 = np.empty((n_trials, BLOCK), dtype=P.dtype)
    pot = np.zeros((n_trials, BLOCK))  # one partial sum per lane: no serial chain of additions
    for s in range(start, stop, BLOCK):
        _block_sq_distances(P[s // BLOCK], candidates, d2)
        for t in range(n_trials):
            for r in range(min(BLOCK, stop - s)):
                v = min(d2[t, r], closest[s + r])
                trial_d2[t, s + r] = v
                pot[t, r] += weight[s + r] * v
    return pot.sum(axis=1)


@njit(interpret_small=True)
def column_variance_mean(X):
    """The mean over features of the (population) variance of each column, in two passes."""
    n_samples, n_features = X.shape
    mean = np.zeros(n_features)
    for i in range(n_samples):
        for j in range(n_features):
            mean[j] += X[i, j]
    mean /= n_samples
    var = np.zeros(n_features)
    for i in range(n_samples):
        for j in range(n_features):
            t = X[i, j] - mean[j]
            var[j] += t * t
    return var.sum() / (n_samples * n_features)
