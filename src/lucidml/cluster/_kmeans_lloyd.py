"""The k-means algorithms on validated arrays: Lloyd iterations, k-means++ seeding, mini-batch update.

Shared by :class:`~lucidml.cluster.kmeans.KMeans` and
:class:`~lucidml.cluster.bisecting_kmeans.BisectingKMeans`. Every pass over the data goes
through :class:`Samples`, which holds the data centred and packed for the kernels of
``_kmeans_kernels``, splits the rows into shares and runs a GIL-free kernel on every share in a
thread pool; for a CSR matrix, :class:`SparseSamples` does the same with the kernels of
``_kmeans_sparse`` on the stored entries (``samples`` picks one). Centres enter and leave these
functions in the coordinates of X; inside, they live in the centred frame of the packed data.
"""

from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import scipy.sparse

from ..utils import IterationLog, raise_if_cancelled, thread_count
from ..utils._pool import pool_map
from ..utils.sparse import csr_parts, row_sq_norms
from ._kmeans_kernels import (
    BLOCK,
    Assignment,
    Packed,
    assign_step,
    column_variance_mean,
    pack,
    seeding_trials,
    sq_distances,
)
from ._kmeans_sparse import (
    SparseRows,
    sparse_assign_step,
    sparse_column_variance_mean,
    sparse_seeding_trials,
    sparse_sq_distances,
)

# A thread is worth starting for about this many floating-point operations of one pass (~1 ms):
# below it, handing the shares to the pool costs more than it saves.
WORK_PER_THREAD = 4_000_000
# Several shares per thread, so a thread that the OS keeps waiting does not hold up the pass.
SHARES_PER_THREAD = 4
# The products x·c by BLAS beat the direct loops from about 32 centres and 512 centres × features
# on (measured per pass: d=20, K=64 and d=100, K=50: BLAS 1.2–2× faster; d=20, K=8 and d=100,
# K=8: direct 1.1–1.6× faster; d=784, K=10: about even).
GEMM_CENTERS = 32
GEMM_FROM = 512


class Samples:
    """The data of one fit or prediction: X, its weights, its packed centred copy, the thread shares.

    ``P`` holds X − x̄ (x̄ = ``shift``, the column means) in the packed layout of
    ``_kmeans_kernels``: a copy of X, the same memory. Distances do not change under the shift;
    it keeps the products x·c of the BLAS route small. A prediction passes its own ``shift``
    (the mean of the centres) and reads X once: then nothing is copied, ``P`` is empty and the
    kernels pack each block as they reach it. The rows are split into contiguous shares
    starting at multiples of ``BLOCK``; ``map(f)`` calls ``f(share, start, stop)`` on every share
    and returns the results in share order, so sums reduced over shares are deterministic for a
    given number of threads. The threads come from the shared pool (``utils._pool``), BLAS on
    one thread while they run.
    """

    def __init__(self, X, weight, n_clusters, n_jobs, shift=None):
        n, n_features = X.shape
        self.X, self.weight, self.n_samples, self.dtype = X, weight, n, X.dtype
        self.gemm = n_clusters >= GEMM_CENTERS and n_clusters * n_features >= GEMM_FROM
        # One pass of a prediction is too short for the balancing that several shares buy.
        self._split(n_jobs, 3 * n * n_clusters * n_features, 1 if shift is not None else SHARES_PER_THREAD)
        if shift is not None:
            self.shift, self.P = shift.astype(X.dtype), np.empty((0, n_features, BLOCK), dtype=X.dtype)
        else:
            self.shift = X.mean(axis=0, dtype=np.float64).astype(X.dtype)
            self.P = np.empty((-(-n // BLOCK), n_features, BLOCK), dtype=X.dtype)
            self.P[-1] = 0.0  # padding of the last block
            self.map(lambda t, s, e: pack(X, self.shift, s, e, self.P))
        self.packed = Packed(self.P, X, self.shift, weight)

    def _split(self, n_jobs, work, per_thread):
        """The thread shares of a pass costing ``work`` operations: contiguous row ranges starting at
        multiples of ``BLOCK``, ``per_thread`` of them per thread."""
        n = self.n_samples
        n_blocks = -(-n // BLOCK)
        threads = max(1, min(thread_count(n_jobs), work // WORK_PER_THREAD, n_blocks))
        shares = 1 if threads == 1 else min(per_thread * threads, n_blocks)
        edges = [BLOCK * (n_blocks * t // shares) for t in range(shares)] + [n]
        self.bounds = list(pairwise(edges))
        self.n_shares = shares
        self._threads = threads

    def points(self, index):
        """Rows of X as a dense array, in the coordinates of X."""
        return self.X[index]

    def rows(self, index):
        """Rows of X in the centred frame."""
        return self.points(index) - self.shift

    def assign_step(self, centers, start, stop, labels, distance, sums, weights, accumulate):
        """``_kmeans_kernels.assign_step`` on the rows start:stop (centres in the centred frame)."""
        return assign_step(self.packed, self._centers(centers), start, stop,
                           Assignment(labels, distance, sums, weights), accumulate, self.gemm)

    def sq_distances(self, centers, start, stop, out):
        sq_distances(self.P, self.X, self.shift, self._centers(centers), start, stop, out)

    def seeding_trials(self, closest, candidates, start, stop, trial_d2):
        return seeding_trials(self.P, self.weight, closest, self._centers(candidates), start, stop, trial_d2)

    def _centers(self, centers):
        return np.ascontiguousarray(centers, dtype=self.dtype)

    def map(self, func):
        return pool_map(self._threads, func, range(self.n_shares), *zip(*self.bounds))


class SparseSamples(Samples):
    """The data of one fit or prediction when X is a CSR matrix: no packed copy, no centring.

    The kernels of ``_kmeans_sparse`` read the stored entries of X in place (``shift`` is zero, the
    centres stay dense and are handed over transposed) and ‖xᵢ‖² is computed once here. The index
    arrays are taken as int32 when they fit (SciPy's usual choice; int64 ones are converted), int64
    otherwise, so the kernels are compiled for few signatures. A pass costs about 2·nnz·K
    operations, which sets the number of threads.
    """

    def __init__(self, X, weight, n_clusters, n_jobs, shift=None):
        n, n_features = X.shape
        self.X, self.weight, self.n_samples, self.dtype = X, weight, n, X.dtype
        self.gemm = False
        self.indptr, self.indices, self.data = csr_parts(X)
        # One share per thread (each holds K × d centre sums, and d can be large), cut at equal
        # numbers of stored entries rather than rows.
        self._split(n_jobs, 3 * max(X.nnz, n) * n_clusters, 1)
        cuts = np.searchsorted(self.indptr, np.arange(1, self.n_shares) * (X.nnz / self.n_shares))
        self.bounds = list(pairwise([0, *np.minimum(cuts, n).tolist(), n]))
        self.shift = np.zeros(n_features, dtype=X.dtype)
        self.sq_norms = row_sq_norms(self.indptr, self.data)
        self.csr = SparseRows(self.indptr, self.indices, self.data, self.sq_norms, weight)

    def points(self, index):
        return self.X[index].toarray()

    def assign_step(self, centers, start, stop, labels, distance, sums, weights, accumulate):
        return sparse_assign_step(self.csr, self._centers(centers), start, stop,
                                  Assignment(labels, distance, sums, weights), accumulate)

    def sq_distances(self, centers, start, stop, out):
        sparse_sq_distances(self.indptr, self.indices, self.data, self.sq_norms, self._centers(centers), start, stop,
                            out)

    def seeding_trials(self, closest, candidates, start, stop, trial_d2):
        return sparse_seeding_trials(self.csr, closest, self._centers(candidates), start, stop, trial_d2)

    def _centers(self, centers):
        return np.ascontiguousarray(np.asarray(centers).T, dtype=self.dtype)


def samples(X, weight, n_clusters, n_jobs, shift=None):
    """:class:`SparseSamples` for a sparse X, :class:`Samples` otherwise."""
    kind = SparseSamples if scipy.sparse.issparse(X) else Samples
    return kind(X, weight, n_clusters, n_jobs, shift=shift)


def tolerance(X, tol):
    """scikit-learn's absolute tolerance: ``tol`` × the mean variance of the features."""
    if tol == 0:
        return 0.0
    if scipy.sparse.issparse(X):
        _, indices, data = csr_parts(X)
        return float(sparse_column_variance_mean(indices, data, X.shape[0], X.shape[1])) * tol
    return float(column_variance_mean(X)) * tol


def assign(data, centers, labels=None):
    """Nearest centre of every row: (labels, squared distances, weighted SSE)."""
    return _assign_local(data, centers - data.shift, labels)


def _assign_local(data, local_centers, labels=None):
    n = data.n_samples
    labels = np.full(n, -1, dtype=np.int32) if labels is None else labels
    distance = np.empty(n)
    unused_sums, unused_weights = np.empty((1, 1)), np.empty(1)
    parts = data.map(lambda t, s, e: data.assign_step(local_centers, s, e, labels, distance, unused_sums,
                                                      unused_weights, False))
    return labels, distance, sum(p[0] for p in parts)


def assign_and_sum(data, local_centers, labels, distance):
    """One assignment pass that also returns what the M-step needs.

    Returns (Δsums, weights, SSE, number of changed labels): the change of the per-cluster sums
    Σ wᵢ(xᵢ − x̄) due to the points that changed cluster (all points when ``labels`` starts at
    −1), and the per-cluster weights Σ wᵢ of the new labels.
    """
    n_clusters, n_features = local_centers.shape
    sums = np.empty((data.n_shares, n_clusters, n_features))
    weights = np.empty((data.n_shares, n_clusters))
    parts = data.map(lambda t, s, e: data.assign_step(local_centers, s, e, labels, distance, sums[t], weights[t],
                                                      True))
    return sums.sum(axis=0), weights.sum(axis=0), sum(p[0] for p in parts), sum(p[1] for p in parts)


def squared_distances(data, centers):
    """The n × K matrix of squared distances ‖xᵢ − c_k‖²."""
    out = np.empty((data.n_samples, centers.shape[0]), dtype=data.dtype)
    local_centers = centers - data.shift
    data.map(lambda t, s, e: data.sq_distances(local_centers, s, e, out))
    return out


@dataclass
class LloydResult:
    centers: np.ndarray
    labels: np.ndarray
    inertia: float
    n_iter: int
    distortion: list
    converged: bool
    distance: np.ndarray  # ‖xᵢ − c_{ℓᵢ}‖² for the final labels and centres


def lloyd(data, centers, max_iter, tol, log=None):
    """Lloyd's algorithm from ``centers``: alternate the two steps of coordinate descent on

        J(ℓ, c) = Σᵢ wᵢ ‖xᵢ − c_{ℓᵢ}‖²,

    assignment ℓᵢ ← argmin_k ‖xᵢ − c_k‖² and update c_k ← Σ_{ℓᵢ=k} wᵢxᵢ / Σ_{ℓᵢ=k} wᵢ, until no
    label changes ("strict" convergence), or the centres moved by Σ_k ‖Δc_k‖² ≤ ``tol``
    (absolute), or ``max_iter`` passes. A cluster left empty is re-seeded with the point
    farthest from its centre. ``distortion`` holds J after every assignment step. After a stop
    on ``tol`` or ``max_iter`` one more assignment makes the labels match the final centres.

    The cluster sums Σ wᵢxᵢ are kept from pass to pass and corrected only by the points that
    changed cluster, so a pass costs the distances plus d operations per moving point.
    ``log`` (a ``utils.IterationLog``) prints J after every pass and how the run stopped.
    """
    log = IterationLog(0) if log is None else log
    centers = (centers - data.shift).astype(data.dtype, copy=False)
    labels = np.full(data.n_samples, -1, dtype=np.int32)
    distance = np.empty(data.n_samples)
    sums = np.zeros(centers.shape)  # Σ wᵢ(xᵢ − x̄) per cluster (float64), updated by the points that move
    distortion = []
    strict = converged = False
    for n_iter in range(1, max_iter + 1):
        raise_if_cancelled()  # Ctrl-C between passes (utils._interrupt)
        moved, weights, sse, changed = assign_and_sum(data, centers, labels, distance)
        sums += moved
        sums[weights <= 0] = 0.0  # an emptied cluster: drop the rounding left by the updates
        distortion.append(sse)
        log.iteration(n_iter, inertia=sse)
        new_centers, relocated = _update_centers(data, centers, sums, weights, labels, distance)
        shift = float(np.sum((new_centers - centers) ** 2))
        centers = new_centers
        if changed == 0:
            # Same labels as the last pass, hence the same centres (unless an empty cluster was
            # re-seeded): J is already final.
            converged, strict = True, not relocated
            log.converged(n_iter, reason="no label changed")
            break
        if shift <= tol:
            converged = True
            log.converged(n_iter, shift, tol)
            break
    if not converged:
        log.stopped(n_iter, "max_iter reached")
    if not strict:
        labels, distance, sse = _assign_local(data, centers, labels)
    return LloydResult(centers + data.shift, labels, sse, n_iter, distortion, converged, distance)


def _update_centers(data, centers, sums, weights, labels, distance):
    """M-step: cluster means; an empty cluster takes the point farthest from its own centre.

    The farthest points (largest ‖xᵢ − c_{ℓᵢ}‖²) leave their clusters and become the centres of
    the empty ones; ``sums`` and ``labels`` are updated to match, so the next pass's changes
    apply to the right clusters.
    """
    empty = np.flatnonzero(weights <= 0)
    if empty.size:
        farthest = np.argsort(distance, kind="stable")[::-1][: empty.size]
        points = data.rows(farthest)
        for point, x, cluster in zip(farthest, points, empty):
            w = data.weight[point]
            sums[labels[point]] -= w * x
            weights[labels[point]] -= w
            sums[cluster], weights[cluster], labels[point] = w * x, w, cluster
    new_centers = centers.copy()
    full = weights > 0
    new_centers[full] = sums[full] / weights[full, None]
    if empty.size:
        new_centers[empty] = points
    return new_centers, bool(empty.size)


def kmeans_plusplus(data, n_clusters, rng, n_local_trials=None):
    """k-means++ seeding (Arthur & Vassilvitskii 2007; 002 Ex. 8.1), greedy variant.

    The first centre is drawn with probability ∝ wᵢ; each next one with probability
    ∝ wᵢ D²(xᵢ), D² the squared distance to the nearest centre so far. Greedy: 2 + ⌊ln K⌋
    candidates are drawn per step and the one giving the lowest potential Σ wᵢ D²(xᵢ) is kept
    (the variant the paper's conclusion mentions, and scikit-learn's default).
    """
    n, weight = data.n_samples, data.weight
    n_trials = 2 + int(np.log(n_clusters)) if n_local_trials is None else n_local_trials
    chosen = np.empty(n_clusters, dtype=np.intp)
    chosen[0] = rng.choice(n, p=weight / weight.sum())
    trial_d2 = np.empty((n_trials, n))
    closest = _seeding_pass(data, np.full(n, np.inf), chosen[:1], trial_d2).copy()
    potential = float(weight @ closest)
    for c in range(1, n_clusters):
        draws = rng.uniform(size=n_trials) * potential
        candidates = np.minimum(np.searchsorted(np.cumsum(weight * closest), draws), n - 1)
        potentials = _seeding_pass(data, closest, candidates, trial_d2)
        best = int(np.argmin(potentials))
        potential = float(potentials[best])
        closest = trial_d2[best].copy()
        chosen[c] = candidates[best]
    return data.points(chosen)


def _seeding_pass(data, closest, candidates, trial_d2):
    """Potentials of the candidate rows (and their D² in ``trial_d2``); for one candidate, its D²."""
    points = data.rows(candidates)
    parts = data.map(lambda t, s, e: data.seeding_trials(closest, points, s, e, trial_d2))
    return trial_d2[0] if len(candidates) == 1 else np.sum(parts, axis=0)


def random_points(data, n_clusters, rng):
    """K distinct rows drawn without replacement, with probability ∝ wᵢ."""
    weight = data.weight
    if np.count_nonzero(weight) < n_clusters:
        raise ValueError(f"init='random' needs at least n_clusters={n_clusters} samples of positive weight.")
    return data.points(rng.choice(data.n_samples, size=n_clusters, replace=False, p=weight / weight.sum()))


def minibatch_step(data, centers, counts):
    """Assign a batch and move every centre to the running mean of all the points it was given:

        N_k ← N_k + Σ_{batch, ℓᵢ=k} wᵢ,     c_k ← c_k + (Σ_{batch, ℓᵢ=k} wᵢxᵢ − (Σ wᵢ) c_k) / N_k,

    i.e. a per-centre learning rate 1/N_k (Sculley 2010, scikit-learn's MiniBatchKMeans).
    Centres that received no point stay where they are. Updates ``counts`` in place; returns
    the new centres.
    """
    local = (centers - data.shift).astype(data.dtype, copy=False)
    labels, distance = np.full(data.n_samples, -1, dtype=np.int32), np.empty(data.n_samples)
    sums, weights, _, _ = assign_and_sum(data, local, labels, distance)
    counts += weights
    moved = weights > 0
    local[moved] += (sums[moved] - weights[moved, None] * local[moved]) / counts[moved, None]
    return local + data.shift


def same_partition(a, b, n_clusters):
    """Whether two label vectors (values < n_clusters) give the same partition up to renaming."""
    renaming = np.full(n_clusters, -1)
    renaming[a] = b  # the name in b of each cluster of a (any one of its points)
    used = renaming[renaming >= 0]
    return np.array_equal(renaming[a], b) and len(np.unique(used)) == len(used)
