"""Finding the k nearest training points of every query: brute force in chunks, or a k-d tree."""


import numpy as np
from joblib import Parallel, delayed
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from ..utils import thread_count
from ..utils.linalg import blas_threads
from ._select import push_tile, push_tile_euclidean, sort_heaps, start_heaps

# Tile of the query × training distance matrix handled at once (512 × 2048 doubles = 8 MiB).
QUERY_ROWS = 512
TRAIN_COLS = 2048
# Below this many query-training pairs, starting threads costs more than it saves.
SERIAL_BELOW = 4_000_000

# metric name -> Minkowski p, for the metrics a k-d tree and the BLAS path understand.
MINKOWSKI_P = {"euclidean": 2.0, "l2": 2.0, "manhattan": 1.0, "cityblock": 1.0, "l1": 1.0, "chebyshev": np.inf}


# Outside these magnitudes squared distances overflow (above 1e154) or lose digits to underflow;
# the Euclidean searches then work in units of a power of two (an exact rescaling).
SAFE_MAGNITUDE = (1e-100, 1e100)


def _largest(a):
    return float(np.abs(a).max()) if a.size else 0.0


def _fit_largest(search, X_fit):
    """The largest |value| of the training points, computed once per search object (and for
    searches loaded from files saved before it was kept)."""
    largest = search.__dict__.get("fit_largest")
    if largest is None:
        largest = search.fit_largest = _largest(X_fit)
    return largest


def _exponent(*magnitudes):
    """0, or the power of two e with largest · 2⁻ᵉ in [0.5, 1), for magnitudes outside the safe range.

    Rescaling by 2⁻ᵉ (``np.ldexp``) is exact, whatever e, even where 2⁻ᵉ itself is not a float
    (subnormal data need e ≈ −1030)."""
    largest = max(magnitudes)
    if largest == 0.0 or SAFE_MAGNITUDE[0] <= largest <= SAFE_MAGNITUDE[1]:
        return 0
    return int(np.frexp(largest)[1])


def minkowski_p(metric, p):
    """The Minkowski exponent of ``metric`` (with ``p`` for "minkowski"), or None for others."""
    if metric == "minkowski":
        return float(p)
    return MINKOWSKI_P.get(metric) if isinstance(metric, str) else None


class BruteSearch:
    """Distances to every training point, tile by tile, each tile offered to per-query heaps.

    Queries are split into blocks of ``QUERY_ROWS`` rows and training points into tiles of
    ``TRAIN_COLS`` columns, so one distance tile is 8 MiB at most; for the Euclidean metric the
    tile is the BLAS product Q Xᵀ and the surrogate ‖x‖² − 2 q·x is formed inside the compiled
    selection (‖q‖² does not change a row's order). Peak memory: one tile per thread plus the
    (n_queries × k) result, whatever the number of queries.
    """

    def __init__(self, X_fit, metric, p, metric_params):
        self.X_fit, self.metric, self.metric_params = X_fit, metric, metric_params or {}
        self.p = minkowski_p(metric, p)
        self.euclidean = self.p == 2.0 and metric != "precomputed"

    def _fit_sq_norms(self):
        """‖x‖² of the training points, computed at the first query (fitting only stores X)."""
        norms = self.__dict__.get("fit_sq_norms")
        if norms is None:
            norms = self.fit_sq_norms = np.einsum("ij,ij->i", self.X_fit, self.X_fit)
        return norms

    def _tile_distances(self, Q, start, stop):
        if self.metric == "precomputed":
            return np.ascontiguousarray(Q[:, start:stop])
        if self.p is not None:
            return cdist(Q, self.X_fit[start:stop], "minkowski", p=self.p)
        return cdist(Q, self.X_fit[start:stop], self.metric, **self.metric_params)

    def _query_block(self, Q, k):
        n_fit = Q.shape[1] if self.metric == "precomputed" else self.X_fit.shape[0]
        X_fit, fit_sq_norms, exponent = self.X_fit, None, 0
        if self.euclidean:
            fit_sq_norms = self._fit_sq_norms()
            exponent = _exponent(_largest(Q), _fit_largest(self, self.X_fit))
            if exponent:  # extreme magnitudes: the same search on X·2⁻ᵉ and Q·2⁻ᵉ
                X_fit, Q = np.ldexp(X_fit, -exponent), np.ldexp(Q, -exponent)
                fit_sq_norms = np.einsum("ij,ij->i", X_fit, X_fit)
        values, indices = start_heaps(Q.shape[0], k)
        for start in range(0, n_fit, TRAIN_COLS):
            stop = min(start + TRAIN_COLS, n_fit)
            if self.euclidean:
                push_tile_euclidean(Q @ X_fit[start:stop].T, fit_sq_norms, start, values, indices)
            else:
                push_tile(self._tile_distances(Q, start, stop), start, values, indices)
        sort_heaps(values, indices)
        if self.euclidean:
            # The expanded form cancels badly for large feature values; recompute the k
            # winners' distances directly (k·d work per query).
            diff = X_fit[indices] - Q[:, None, :]
            values = np.ldexp(np.sqrt(np.einsum("qkd,qkd->qk", diff, diff)), exponent)
        return values, indices

    def query(self, X, k, n_jobs):
        n_fit = X.shape[1] if self.metric == "precomputed" else self.X_fit.shape[0]
        threads = 1 if X.shape[0] * n_fit < SERIAL_BELOW else thread_count(n_jobs)
        # Blocks of at most QUERY_ROWS rows, their number a multiple of the threads (even shares).
        n_blocks = threads * -(-X.shape[0] // (threads * QUERY_ROWS))
        rows = -(-X.shape[0] // n_blocks)
        blocks = [slice(s, s + rows) for s in range(0, X.shape[0], rows)]
        threads = min(threads, len(blocks))
        if threads == 1:
            parts = [self._query_block(X[b], k) for b in blocks]
        else:
            # Our threads split the queries; BLAS threads on top would only compete for the cores.
            with blas_threads(1):
                parts = Parallel(n_jobs=threads, prefer="threads")(delayed(self._query_block)(X[b], k) for b in blocks)
        return np.vstack([d for d, _ in parts]), np.vstack([i for _, i in parts])


class KDTreeSearch:
    """SciPy's k-d tree (Friedman, Bentley & Finkel 1977), for Minkowski metrics in low dimension."""

    def __init__(self, X_fit, metric, p, leaf_size):
        self.p = minkowski_p(metric, p)
        self.tree = cKDTree(X_fit, leafsize=leaf_size)

    def query(self, X, k, n_jobs):
        if self.p == 2.0 and _exponent(_largest(X), _fit_largest(self, self.tree.data)):
            # Squared distances would overflow or underflow inside the tree: search by brute
            # force, which rescales exactly (such data are rare; the answer stays right).
            return BruteSearch(self.tree.data, "euclidean", 2, None).query(X, k, n_jobs)
        distances, indices = self.tree.query(X, k=k, p=self.p, workers=thread_count(n_jobs))
        return distances.reshape(len(X), k), indices.reshape(len(X), k).astype(np.intp)
