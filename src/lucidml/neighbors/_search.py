"""Finding the k nearest training points of every query: brute force in chunks, or a k-d tree."""


import numpy as np
import scipy.sparse
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from ..utils import thread_count
from ..utils._pool import pool_map
from ..utils.numerics import times_power_of_two, unit_rows, units_exponent
from ..utils.sparse import csr_parts, row_sq_norms
from ..utils.validation import largest_magnitude
from ._select import push_tile, push_tile_euclidean, sort_heaps, start_heaps
from ._sparse_scan import InvertedIndex, Queries, sparse_scan, sparse_sq_distances

# Tile of the query × training distance matrix handled at once: 256 × 512 doubles = 1 MiB, which
# stays in a core's L2 cache between the BLAS product that writes it and the selection that reads
# it. (8 MiB tiles went to memory and back: 64 ms against 50 ms for 2,048 queries × 10,240
# points of 20 features on one core, stop 41.)
QUERY_ROWS = 256
TRAIN_COLS = 512
# Below this many query-training pairs, starting threads costs more than it saves.
SERIAL_BELOW = 4_000_000

# metric name -> Minkowski p, for the metrics a k-d tree and the BLAS path understand.
MINKOWSKI_P = {"euclidean": 2.0, "l2": 2.0, "manhattan": 1.0, "cityblock": 1.0, "l1": 1.0, "chebyshev": np.inf}


# Outside these magnitudes squared distances overflow (above 1e154, 1e19 in float32) or lose digits
# to underflow; the Euclidean searches then work in units of a power of two (an exact rescaling).
SAFE_MAGNITUDE = {np.dtype(np.float64): (1e-100, 1e100), np.dtype(np.float32): (1e-12, 1e12)}
# Sparse queries to a search over dense training points are densified this many rows at a time.
DENSIFY_ROWS = 4096


def _fit_largest(search, X_fit):
    """The largest |value| of the training points, computed once per search object (and for
    searches loaded from files saved before it was kept)."""
    largest = search.__dict__.get("fit_largest")
    if largest is None:
        largest = search.fit_largest = largest_magnitude(X_fit)
    return largest


def rescaling_exponent(dtype, *magnitudes, p=2.0):
    """0, or the power of two e with largest · 2⁻ᵉ in [0.5, 1), for magnitudes outside the safe range
    of ``dtype`` for Minkowski distances of order ``p`` (whose sums of |x|ᵖ overflow where the
    squares' do at p = 2; never for p = ∞, a maximum of differences).

    Rescaling by 2⁻ᵉ (``np.ldexp``) is exact, whatever e, even where 2⁻ᵉ itself is not a float
    (subnormal data need e ≈ −1030), and every Minkowski distance scales with it."""
    largest = max(magnitudes)
    if np.isinf(p):
        return 0
    return units_exponent(largest, [bound ** (2.0 / p) for bound in SAFE_MAGNITUDE[np.dtype(dtype)]])


def minkowski_p(metric, p):
    """The Minkowski exponent of ``metric`` (with ``p`` for "minkowski"), or None for others."""
    if metric == "minkowski":
        return float(p)
    return MINKOWSKI_P.get(metric) if isinstance(metric, str) else None


class BruteSearch:
    """Distances to every training point, tile by tile, each tile offered to per-query heaps.

    Queries are split into blocks of ``QUERY_ROWS`` rows and training points into tiles of
    ``TRAIN_COLS`` columns, so one distance tile is 1 MiB at most; for the Euclidean metric the
    tile is the BLAS product (Q − c)(X − c)ᵀ about the training mean c, and the surrogate
    ‖x − c‖² − 2 (q − c)·(x − c) is formed inside the compiled selection (‖q − c‖² does not change
    a row's order). Peak memory: one tile per thread plus the (n_queries × k) result, whatever the
    number of queries.

    Sparse training points (CSR, metric "euclidean" or "cosine") are searched through an inverted
    index instead (``_sparse_scan``): only the stored entries are read, the training matrix is
    indexed by feature once (a CSC copy, built at the first query), and a block of queries holds
    one accumulator of n_fit entries. Distances are computed in the data's precision (float32
    data: float32 products, no float64 copy) and returned as float64.
    """

    def __init__(self, X_fit, metric, p, metric_params):
        self.X_fit, self.metric, self.metric_params = X_fit, metric, metric_params or {}
        self.p = minkowski_p(metric, p)
        self.euclidean = self.p == 2.0 and metric != "precomputed"

    def _fit_centred(self, X_fit=None):
        """(c, ‖x − c‖²): the training points' mean, in their precision, and their squared norms
        about it, computed at the first query (fitting only stores X) and kept; for other ``X_fit``
        (rescaled by a power of two), computed for it alone.

        The tiles rank the points by ‖x − c‖² − 2(q − c)·(x − c), which orders them as ‖q − x‖²
        does (‖q − c‖² is the same for a query's row): about the origin instead, data far from it
        lose the digits that tell neighbours apart (float32 digits + 1,000: 38% of the queries got
        a point that is not among their nearest)."""
        cached = X_fit is None
        centred = self.__dict__.get("fit_centred") if cached else None
        if centred is None:
            X_fit = self.X_fit if cached else X_fit
            centre = X_fit.mean(axis=0, dtype=np.float64).astype(X_fit.dtype)
            norms = np.zeros(X_fit.shape[0], dtype=X_fit.dtype)
            for start in range(0, X_fit.shape[0], TRAIN_COLS):  # (no centred copy of X_fit)
                rows = X_fit[start:start + TRAIN_COLS] - centre
                norms[start:start + TRAIN_COLS] = np.einsum("ij,ij->i", rows, rows)
            centred = (centre, norms)
            if cached:
                self.fit_centred = centred
        return centred

    def _scale_free(self):
        """Whether the metric ignores each row's scale (then rows are searched as :func:`unit_rows`)."""
        return self.metric in ("cosine", "correlation")

    def _fit_rows(self):
        """The training points as the tiles read them: each row brought to a largest |entry| in
        [0.5, 1) for a scale-free metric (computed at the first query, then kept), else X_fit."""
        if not self._scale_free():
            return self.X_fit
        rows = self.__dict__.get("fit_unit_rows")
        if rows is None:
            rows = self.fit_unit_rows = unit_rows(self.X_fit)
        return rows

    def _fit_index(self):
        """The inverted index of sparse training points, built at the first query (see ``_sparse_index``)."""
        index = self.__dict__.get("fit_index")
        if index is None:
            index = self.fit_index = _sparse_index(self.X_fit, self.metric)
        return index

    def _tile_distances(self, Q, start, stop, X_fit=None):
        """Distances of the query block Q (already :func:`unit_rows` for a scale-free metric) to
        the training points start … stop − 1 (of ``X_fit``: the training points rescaled with Q)."""
        if self.metric == "precomputed":
            return np.ascontiguousarray(Q[:, start:stop])
        if self.p is not None:
            return cdist(Q, (self.X_fit if X_fit is None else X_fit)[start:stop], "minkowski", p=self.p)
        distances = cdist(Q, self._fit_rows()[start:stop], self.metric, **self.metric_params)
        if self._scale_free():
            # SciPy's 0/0 for a zero vector (a constant one for correlation): distance 1, as
            # scikit-learn's (and sparse) cosine
            np.nan_to_num(distances, copy=False, nan=1.0)
        if not np.isfinite(distances).all():
            # An infinite or NaN distance would never enter the heaps (they start at infinity).
            raise ValueError(
                f"metric={self.metric!r} gives infinite or NaN distances for these features (largest |value| "
                f"{max(largest_magnitude(Q), _fit_largest(self, self.X_fit)):.3g}): rescale X, or use a metric whose "
                "distances stay finite (e.g. 'euclidean' instead of 'sqeuclidean')."
            )
        return distances

    def _frame(self, X):
        """(training points, exponent e, (centre, squared norms) or None) of one query call: the
        training points as stored, or, for magnitudes outside the safe range, all of them and the
        queries rescaled by 2⁻ᵉ (:func:`rescaling_exponent`), with the centre of the rescaled points
        for the Euclidean tiles; once per call, not per block of queries."""
        X_fit, exponent = self.X_fit, 0
        if self.p is not None and self.metric != "precomputed":
            exponent = rescaling_exponent(X_fit.dtype, largest_magnitude(X), _fit_largest(self, self.X_fit), p=self.p)
            if exponent:
                X_fit = np.ldexp(X_fit, -exponent)
        centred = self._fit_centred(X_fit if exponent else None) if self.euclidean else None
        return X_fit, exponent, centred

    def _query_block(self, Q, k, frame):
        if scipy.sparse.issparse(self.X_fit):
            return self._query_block_sparse(Q if scipy.sparse.issparse(Q) else scipy.sparse.csr_matrix(Q), k)
        Q = Q.toarray() if scipy.sparse.issparse(Q) else Q
        n_fit = Q.shape[1] if self.metric == "precomputed" else self.X_fit.shape[0]
        X_fit, exponent, centred = frame
        if exponent:  # extreme magnitudes: the same search on X·2⁻ᵉ and Q·2⁻ᵉ
            Q = np.ldexp(Q, -exponent)
        if self.euclidean:
            centre, fit_sq_norms = centred
            Q_centred = Q - centre
        if self._scale_free():
            # Both metrics ignore a row's scale, but SciPy's norms underflow to 0/0 for features near
            # 1e-300 (or overflow near 1e300): each row is brought to a largest |entry| in [0.5, 1) first.
            Q = unit_rows(Q)
        values, indices = start_heaps(Q.shape[0], k)
        for start in range(0, n_fit, TRAIN_COLS):
            stop = min(start + TRAIN_COLS, n_fit)
            if self.euclidean:
                push_tile_euclidean(Q_centred @ (X_fit[start:stop] - centre).T, fit_sq_norms, start, values, indices)
            else:
                push_tile(self._tile_distances(Q, start, stop, X_fit), start, values, indices)
        sort_heaps(values, indices)
        if self.euclidean:
            # The expanded form cancels badly for large feature values; recompute the k
            # winners' distances directly (k·d work per query).
            diff = X_fit[indices] - Q[:, None, :]
            values = np.sqrt(np.einsum("qkd,qkd->qk", diff, diff))
        return (np.ldexp(values, exponent) if exponent else values), indices

    def _query_block_sparse(self, Q, k):
        """The k nearest training points of the CSR queries Q, by the inverted index of X_fit."""
        X_fit = self.X_fit
        exponent = rescaling_exponent(X_fit.dtype, largest_magnitude(Q), _fit_largest(self, X_fit))
        if exponent:  # extreme magnitudes: the same search on X·2⁻ᵉ and Q·2⁻ᵉ (the data arrays copied)
            X_fit, Q = times_power_of_two(X_fit, -exponent), times_power_of_two(Q, -exponent)
            index = _sparse_index(X_fit, self.metric)
        else:
            index = self._fit_index()
        q_indptr, q_indices, q_data = csr_parts(Q)
        if self.metric == "cosine":
            q_norms = np.sqrt(row_sq_norms(q_indptr, q_data))
            q_scale = np.divide(1.0, q_norms, out=np.zeros_like(q_norms), where=q_norms > 0)
        else:
            q_scale = np.full(Q.shape[0], 2.0)
        values, indices = start_heaps(Q.shape[0], k)
        sparse_scan(Queries(q_indptr, q_indices, q_data, q_scale), InvertedIndex(*index), values, indices)
        sort_heaps(values, indices)
        if self.metric == "cosine":  # 1 − cos = 1 + surrogate, within [0, 2] as scikit-learn clips it
            return np.clip(1.0 + values, 0.0, 2.0), indices
        # The expanded form cancels badly for large feature values; recompute the k winners'
        # distances directly, over the stored entries of the two rows.
        squared = np.empty(values.shape)
        sparse_sq_distances(q_indptr, q_indices, q_data, *csr_parts(X_fit), indices, squared)
        return np.ldexp(np.sqrt(squared), exponent), indices

    def query(self, X, k, n_jobs):
        n_fit = X.shape[1] if self.metric == "precomputed" else self.X_fit.shape[0]
        threads = 1 if X.shape[0] * n_fit < SERIAL_BELOW else thread_count(n_jobs)
        # Blocks of at most QUERY_ROWS rows, their number a multiple of the threads (even shares).
        n_blocks = threads * -(-X.shape[0] // (threads * QUERY_ROWS))
        rows = -(-X.shape[0] // n_blocks)
        blocks = [slice(s, s + rows) for s in range(0, X.shape[0], rows)]
        threads = min(threads, len(blocks))
        if scipy.sparse.issparse(self.X_fit):
            self._fit_index()  # built once, before the threads that share it start
        # Our threads split the queries (on one BLAS thread: see pool_map). The shared pool answers
        # as soon as the blocks are done; joblib's threads, started anew at each call, were polled
        # for results every 10 ms (a median predict of 2,500 queries on 10,000 × 20: 50 ms through
        # joblib, 37 ms through the pool).
        frame = None if scipy.sparse.issparse(self.X_fit) else self._frame(X)
        parts = pool_map(threads, lambda b: self._query_block(X[b], k, frame), blocks)
        return np.vstack([d for d, _ in parts]).astype(np.float64, copy=False), np.vstack([i for _, i in parts])


class KDTreeSearch:
    """SciPy's k-d tree (Friedman, Bentley & Finkel 1977), for Minkowski metrics in low dimension."""

    def __init__(self, X_fit, metric, p, leaf_size):
        self.p = minkowski_p(metric, p)
        self.tree = cKDTree(X_fit, leafsize=leaf_size)

    def query(self, X, k, n_jobs):
        if scipy.sparse.issparse(X):  # a tree over dense points: the sparse queries densified by blocks
            parts = [self.query(X[s:s + DENSIFY_ROWS].toarray(), k, n_jobs) for s in range(0, X.shape[0], DENSIFY_ROWS)]
            return np.vstack([d for d, _ in parts]), np.vstack([i for _, i in parts])
        if rescaling_exponent(self.tree.data.dtype, largest_magnitude(X), _fit_largest(self, self.tree.data), p=self.p):
            # Powers of the differences would overflow or underflow inside the tree: search by
            # brute force, which rescales exactly (such data are rare; the answer stays right).
            return BruteSearch(self.tree.data, "minkowski", self.p, None).query(X, k, n_jobs)
        distances, indices = self.tree.query(X, k=k, p=self.p, workers=thread_count(n_jobs))
        return distances.reshape(len(X), k), indices.reshape(len(X), k).astype(np.intp)


def _sparse_index(X_fit, metric):
    """What ``sparse_scan`` needs of the CSR training points, the fields of an :class:`InvertedIndex`:
    their CSC parts, the surrogate's offset a(x) and scale c(x), and the points in ascending (offset,
    index) order. A plain tuple, so that a model file can hold the search that keeps it."""
    sq_norms = row_sq_norms(*csr_parts(X_fit)[::2])
    if metric == "cosine":
        norms = np.sqrt(sq_norms)
        offset, scale = np.zeros_like(norms), np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        order = np.arange(X_fit.shape[0])
    else:
        offset, scale, order = sq_norms, np.ones_like(sq_norms), np.argsort(sq_norms, kind="stable")
    return (*csr_parts(X_fit.tocsc()), offset, scale, order)

