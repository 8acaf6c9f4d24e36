"""DBSCAN: density-based clustering with noise."""

from itertools import chain
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from joblib import Parallel, delayed
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClusterMixin

from ..neighbors._search import minkowski_p, rescaling_exponent
from ..utils import N_JOBS, Interval, Options, thread_count, validate_params
from ..utils.numerics import times_power_of_two, unit_rows
from ..utils.validation import MAX_MAGNITUDE, check_fit_data, input_float_dtype, largest_magnitude
from ._dbscan_kernels import (
    P_CHEBYSHEV,
    P_EUCLIDEAN,
    P_GENERAL,
    P_MANHATTAN,
    Ball,
    Found,
    Grid,
    expand_clusters,
    grid_candidates,
    grid_core_rows,
    rows_within,
    rows_within_euclidean,
)

METRICS = frozenset(
    {"minkowski", "euclidean", "l2", "manhattan", "cityblock", "l1", "chebyshev", "cosine", "correlation",
     "braycurtis", "canberra", "sqeuclidean", "hamming", "jaccard", "precomputed"}
)
# "auto" uses the grid up to this many features (a query visits 3ᵈ cubes) and the k-d tree up to
# KD_TREE_MAX_FEATURES; beyond, a tree prunes too little to beat brute force.
GRID_MAX_FEATURES = 3
GRID_HARD_MAX_FEATURES = 6  # beyond this, a forced grid would cost 3^(d−1) per cell
KD_TREE_MAX_FEATURES = 15
# The grid needs (data range / ε) cubes per axis; past this many, rounding in the cube index
# could lose a neighbour at distance exactly ε, and the k-d tree is used instead.
GRID_MAX_CELLS_PER_AXIS = 2**26
# Rows of the distance matrix computed at once by brute force: at most ~2²¹ entries (16 MiB).
BRUTE_TILE = 2**21
# Rows per call of the tree and grid searches (and per thread share).
ROW_BLOCK = 8192
# algorithm="auto" takes brute force over the k-d tree when a sample of the points has on average
# more than this share of all points within ε: the tree hands each neighbour back as a Python int
# (about 110 ns a pair), the blocked distance matrix scores every pair for about 7 ns (16,000
# points in 10 dimensions with 5,200 neighbours each: 1.9 s against 9.4 s; scikit-learn 2.6 s).
DENSE_SHARE = 1 / 16
DENSE_SAMPLE = 256
SERIAL_BELOW_ROWS = 20_000  # fewer rows: one thread (starting others costs more than it saves)


class DBSCAN(ClusterMixin, BaseEstimator):
    """Density-Based Spatial Clustering of Applications with Noise (Ester et al. 1996).

    With N_ε(x) = {y : d(x, y) ≤ ε}, the points themselves included, a point x is

        core    if |N_ε(x)| ≥ min_samples        (Σ_{y∈N_ε(x)} w_y ≥ min_samples with weights),
        border  if it is not core but lies in N_ε of a core point,
        noise   otherwise (label −1).

    A cluster is a maximal set of points density-connected through core points. The points are
    scanned in index order; each core point not yet in a cluster starts one, which grows
    through a first-in-first-out queue: a core point in the queue adds its unlabelled
    ε-neighbours, a border point joins the cluster without extending it. A point first seen as
    noise becomes border when a later cluster reaches it, and a border point within reach of
    two clusters stays in the first (seeds: 002 §8.4). Labels are therefore those of
    scikit-learn's ``DBSCAN``, cluster numbers included.

    Memory: the ε-neighbourhoods of the core points only, as one CSR array of 4-byte indices
    (scikit-learn keeps those of every point, as arrays of 8-byte indices), plus O(n); the
    neighbour search works on blocks of rows, so the peak is about twice that array (the blocks'
    parts, then their concatenation). There is never an n × n matrix (unless given one with
    ``metric="precomputed"``). Time: one ε-neighbourhood search plus O(n + Σ|N_ε|) for the
    expansion.

    Parameters
    ----------
    eps : float, default=0.5
        The radius ε of a neighbourhood (points at distance exactly ε are neighbours).
    min_samples : int, default=5
        The number of points (the point itself included), or the total sample weight, within
        ε that makes a point core.
    metric : str or callable, default="euclidean"
        A Minkowski metric ("euclidean", "manhattan", "chebyshev", "minkowski" with ``p``),
        another SciPy ``cdist`` metric or a callable (brute force), or "precomputed": X is then
        a square matrix of distances.
    metric_params : dict, default=None
        Keyword arguments of the metric (SciPy ``cdist`` metrics and callables).
    algorithm : {"auto", "grid", "kd_tree", "brute"}, default="auto"
        The ε-neighbourhood search. ``"grid"``: a uniform grid of cubes of side ≈ ε, points
        sorted by cube (compiled; Minkowski metrics; at most 6 features, since each cube scans
        3^(d−1) neighbouring ranges); ``"kd_tree"``: SciPy's ``cKDTree``
        (Minkowski metrics); ``"brute"``: the distance matrix in blocks of rows (BLAS for the
        Euclidean metric, with the candidates near ε re-checked exactly). ``"auto"`` picks the
        grid for at most 3 features, the tree for at most 15 unless a sample of points has more
        than 1/16 of all points within ε on average (dense neighbourhoods, which brute force
        lists faster), brute force otherwise.
    leaf_size : int, default=30
        Leaf size of the k-d tree.
    p : float, default=None
        Exponent of the Minkowski metric (``metric="minkowski"``); None means 2.
    n_jobs : None, -1 or int ≥ 1, default=None
        Threads of the grid and tree searches: None follows ``lucidml.set_config`` (every core by
        default; fewer than 20,000 rows run on one thread), −1 every core. Brute force uses the
        BLAS threads.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each point, numbered 0, 1, … in order of their first core point; −1 for noise.
    core_sample_indices_ : ndarray of shape (n_core_samples,)
        Indices of the core points, increasing.
    components_ : ndarray of shape (n_core_samples, n_features)
        Copies of the core points (rows of the distance matrix for ``metric="precomputed"``).
    point_type_ : ndarray of str, shape (n_samples,)
        ``"core"``, ``"border"`` or ``"noise"`` for each point.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.cluster.dbscan import DBSCAN
    >>> X = np.array([[0.0, 0.0], [0.0, 0.5], [0.5, 0.0], [5.0, 5.0], [5.0, 5.5], [5.5, 5.0], [9.0, 0.0]])
    >>> db = DBSCAN(eps=0.6, min_samples=3).fit(X)
    >>> db.labels_
    array([ 0,  0,  0,  1,  1,  1, -1])
    >>> db.point_type_.tolist()
    ['core', 'border', 'border', 'core', 'border', 'border', 'noise']
    """

    _parameter_constraints: ClassVar[dict] = {
        "eps": [Interval(Real, 0, None, closed="neither")],
        "min_samples": [Interval(Integral, 1, None, closed="left")],
        "metric": [Options(METRICS), "callable"],
        "metric_params": [dict, None],
        "algorithm": [Options({"auto", "grid", "kd_tree", "brute"})],
        "leaf_size": [Interval(Integral, 1, None, closed="left")],
        "p": [Interval(Real, 1, None, closed="left"), None],
        "n_jobs": N_JOBS,
    }

    def __init__(self, eps=0.5, *, min_samples=5, metric="euclidean", metric_params=None, algorithm="auto",
                 leaf_size=30, p=None, n_jobs=None):
        self.eps = eps
        self.min_samples = min_samples
        self.metric = metric
        self.metric_params = metric_params
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.p = p
        self.n_jobs = n_jobs

    def fit(self, X, y=None, sample_weight=None):
        """Cluster X (or the distances X with ``metric="precomputed"``).

        ``sample_weight`` (default 1 each) counts towards ``min_samples`` in place of the number
        of points, so a point of weight ≥ ``min_samples`` is core by itself; as in
        scikit-learn, a negative weight may keep a neighbour from being core.
        """
        validate_params(self)
        dtype = input_float_dtype(X)  # components_ in the caller's precision, as scikit-learn's
        X = check_fit_data(self, X, order="C")
        n = X.shape[0]
        if self.metric == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"metric='precomputed' needs a square distance matrix; got shape {X.shape}.")
            if np.any(X < 0):
                raise ValueError("Negative values in data passed to metric='precomputed': distances must be "
                                 "non-negative.")
        weight = _check_weight(sample_weight, n)
        search = self._search(*self._in_safe_units(X))
        labels, is_core = _dbscan(search, self.min_samples, weight)

        self.labels_ = labels
        self.core_sample_indices_ = np.flatnonzero(is_core)
        self.components_ = X[self.core_sample_indices_].astype(dtype)
        self.point_type_ = np.where(is_core, "core", np.where(labels >= 0, "border", "noise"))
        return self

    def fit_predict(self, X, y=None, sample_weight=None):
        """Cluster X and return ``labels_``."""
        return self.fit(X, sample_weight=sample_weight).labels_

    def _in_safe_units(self, X):
        """(X, ε) for the search: for a Minkowski metric both times 2⁻ᵉ (exact, the same neighbours)
        where X's values lie outside the range whose powers stay floats (features near 1e155: their
        squared distances overflowed, and ε² raised OverflowError)."""
        p = minkowski_p(self.metric, 2 if self.p is None else self.p) if self.metric != "precomputed" else None
        exponent = 0 if p is None else rescaling_exponent(X.dtype, largest_magnitude(X), p=p)
        return (times_power_of_two(X, -exponent), float(np.ldexp(self.eps, -exponent))) if exponent else \
            (X, float(self.eps))

    def _search(self, X, eps=None):
        """The ε-neighbourhood search the ``algorithm`` parameter and the data call for (ε: ``eps``,
        or the parameter's)."""
        eps = self.eps if eps is None else eps
        p = minkowski_p(self.metric, 2 if self.p is None else self.p) if self.metric != "precomputed" else None
        threads = thread_count(self.n_jobs, work=X.shape[0], serial_below=SERIAL_BELOW_ROWS)
        if self.algorithm in ("grid", "kd_tree") and p is None:
            raise ValueError(f"algorithm={self.algorithm!r} supports Minkowski metrics only, "
                             f"not metric={self.metric!r}.")
        if self.algorithm == "grid" and X.shape[1] > GRID_HARD_MAX_FEATURES:
            raise ValueError(f"algorithm='grid' scans 3^(d−1) cell ranges per cell; with {X.shape[1]} features use "
                             f"'kd_tree' or 'brute' (the grid is for at most {GRID_HARD_MAX_FEATURES}).")
        if self.algorithm == "grid" or (self.algorithm == "auto" and p is not None and X.shape[1] <= GRID_MAX_FEATURES):
            grid = _GridSearch.build(X, eps, p, threads)
            if grid is not None:
                return grid
        if self.algorithm in ("grid", "kd_tree") or (
                self.algorithm == "auto" and p is not None and X.shape[1] <= KD_TREE_MAX_FEATURES):
            tree = _TreeSearch(X, eps, p, self.leaf_size, threads)
            if self.algorithm != "auto" or tree.neighbour_share() <= DENSE_SHARE:
                return tree
        return _BruteSearch(X, eps, self.metric, p, self.metric_params or {})

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = self.metric == "precomputed"
        return tags


def _dbscan(search, min_samples, weight):
    """Core points from the (weighted) sizes of the ε-neighbourhoods, then the FIFO expansion."""
    mass, indptr, indices, order = search.core_neighbourhoods(weight, min_samples)
    is_core = mass >= min_samples
    if order is None:
        return expand_clusters(indptr, indices, is_core, np.arange(len(mass))), is_core
    # The search numbered the points its own way; seeds still go in the original index order,
    # which fixes the cluster numbers.
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    labels = expand_clusters(indptr, indices, is_core, position)
    return labels[position], is_core[position]


def _check_weight(sample_weight, n):
    """Weights as scikit-learn's DBSCAN takes them: finite, any sign; ones when None."""
    if sample_weight is None:
        return np.ones(n)
    weight = np.asarray(sample_weight, dtype=np.float64)
    if weight.ndim == 0:
        return np.full(n, float(weight))
    if weight.shape != (n,):
        raise ValueError(f"sample_weight must have one weight per sample ({n}); got shape {weight.shape}.")
    if not np.all(np.isfinite(weight)):
        raise ValueError("sample_weight contains NaN or infinity.")
    if not np.any(weight):
        raise ValueError("sample_weight is all zero; at least one weight must be non-zero.")
    return weight


def _index_dtype(n):
    return np.int32 if n < 2**31 else np.int64


def _keep_core_rows(blocks, n, weight, min_samples):
    """Assemble the CSR neighbourhoods of the core points from (start, lengths, indices) blocks."""
    mass = np.empty(n)
    kept_lengths = np.zeros(n, dtype=np.intp)
    kept = []
    for start, lengths, indices in blocks:
        stop = start + len(lengths)
        row = np.repeat(np.arange(len(lengths)), lengths)
        mass[start:stop] = np.bincount(row, weights=weight[indices], minlength=len(lengths))
        core = mass[start:stop] >= min_samples
        kept_lengths[start:stop] = np.where(core, lengths, 0)
        kept.append(indices[core[row]])
    indptr = np.zeros(n + 1, dtype=np.intp)
    np.cumsum(kept_lengths, out=indptr[1:])
    indices = np.concatenate(kept) if kept else np.empty(0, dtype=_index_dtype(n))
    return mass, indptr, indices, None


class _GridSearch:
    """ε-neighbourhoods on a grid of cubes of side ε(1 + 10⁻⁶), in compiled code (see the kernels).

    It works on the points sorted by cube, so its neighbourhoods come back in that order,
    with ``order`` mapping sorted positions to the original indices.
    """

    @classmethod
    def build(cls, X, eps, p, threads):
        """The grid over X, or None when it would need too many cubes per axis."""
        low = X.min(axis=0)
        if np.any((X.max(axis=0) - low) / eps > GRID_MAX_CELLS_PER_AXIS):
            return None
        # A side a hair over ε keeps a neighbour at exactly ε within the next cube despite rounding.
        cells = np.floor((X - low) / (eps * (1 + 1e-6))).astype(np.int64)
        n_cells = cells.max(axis=0) + 1
        if np.prod(n_cells.astype(float)) > 2.0**62:
            return None
        self = cls()
        strides = np.ones(X.shape[1], dtype=np.int64)
        strides[:-1] = np.cumprod(n_cells[::-1])[::-1][1:]
        keys = cells @ strides
        self.order = np.argsort(keys, kind="stable")
        keys = keys[self.order]
        cell_keys, first = np.unique(keys, return_index=True)
        self.grid = Grid(cells[self.order], keys, strides, n_cells, cell_keys,
                         np.append(first, len(X)).astype(np.intp))
        self.X = np.ascontiguousarray(X[self.order])
        self.threads = threads
        if p == 2.0:
            p_code, bound = P_EUCLIDEAN, _squared(eps)
        elif p == 1.0:
            p_code, bound = P_MANHATTAN, eps
        elif np.isinf(p):
            p_code, bound = P_CHEBYSHEV, eps
        else:
            p_code, bound = P_GENERAL, eps**p
        self.ball = Ball(float(bound), p_code, float(p))
        return self

    def core_neighbourhoods(self, weight, min_samples):
        n = len(self.X)
        # Blocks of rows, each searched into a buffer as large as its candidates (points in the
        # cubes around its points) and copied out at its exact size.
        candidates = np.cumsum(grid_candidates(self.grid))
        bounds = [(s, min(s + ROW_BLOCK, n)) for s in range(0, n, ROW_BLOCK)]
        mass = np.empty(n)
        lengths = np.zeros(n, dtype=np.intp)
        w = weight[self.order]
        min_samples = float(min_samples)
        dtype = _index_dtype(n)

        def block(start, stop):
            buffer = np.empty(candidates[stop - 1] - (candidates[start - 1] if start else 0), dtype=dtype)
            used = grid_core_rows(self.X, self.grid, self.ball, w, min_samples, start, stop,
                                  Found(mass, lengths[start:stop], buffer))
            return buffer[:used].copy()

        if self.threads == 1:
            parts = [block(s, e) for s, e in bounds]
        else:  # the kernel releases the GIL; each block writes its own rows
            parts = Parallel(n_jobs=self.threads, prefer="threads")(delayed(block)(s, e) for s, e in bounds)
        indptr = np.zeros(n + 1, dtype=np.intp)
        np.cumsum(lengths, out=indptr[1:])
        return mass, indptr, np.concatenate(parts), self.order


class _TreeSearch:
    """SciPy's k-d tree; its ball queries in blocks of rows."""

    def __init__(self, X, eps, p, leaf_size, threads):
        self.X, self.eps, self.p, self.threads = X, eps, p, threads
        self.tree = cKDTree(X, leafsize=leaf_size)

    def neighbour_share(self):
        """The mean share of the points within ε of :data:`DENSE_SAMPLE` evenly spread points
        (counted in the tree, no lists made)."""
        sample = self.X[np.linspace(0, len(self.X) - 1, min(DENSE_SAMPLE, len(self.X))).astype(np.intp)]
        counts = self.tree.query_ball_point(sample, self.eps, p=self.p, return_length=True)
        return float(np.mean(counts)) / len(self.X)

    def _block(self, start, stop):
        found = self.tree.query_ball_point(self.X[start:stop], self.eps, p=self.p, workers=self.threads,
                                           return_sorted=False)
        lengths = np.fromiter(map(len, found), dtype=np.intp, count=stop - start)
        indices = np.fromiter(chain.from_iterable(found), dtype=_index_dtype(len(self.X)), count=lengths.sum())
        return start, lengths, indices

    def core_neighbourhoods(self, weight, min_samples):
        n = len(self.X)
        blocks = (self._block(s, min(s + ROW_BLOCK, n)) for s in range(0, n, ROW_BLOCK))
        return _keep_core_rows(blocks, n, weight, min_samples)


class _BruteSearch:
    """Blocks of rows of the distance matrix, each of at most ``BRUTE_TILE`` entries."""

    def __init__(self, X, eps, metric, p, metric_params):
        self.X, self.eps, self.metric, self.p, self.metric_params = X, eps, metric, p, metric_params
        if p == 2.0:
            self.sq_norms = np.einsum("ij,ij->i", X, X)
        # Cosine and correlation ignore a row's scale, but SciPy's norms underflow near 1e-300 (every
        # distance NaN: all noise); rows brought to a largest |entry| in [0.5, 1) first (exact).
        self.X_metric = unit_rows(X) if metric in ("cosine", "correlation") else X

    def _block(self, start, stop):
        X, eps = self.X, self.eps
        lengths = np.empty(stop - start, dtype=np.intp)
        buffer = np.empty((stop - start) * self.n_columns, dtype=_index_dtype(len(X)))
        if self.metric == "precomputed":
            used = rows_within(X[start:stop], eps, lengths, buffer)
        elif self.p == 2.0:  # BLAS for the products, a compiled pass for the rest
            tol = 4.0 * (X.shape[1] + 2) * np.finfo(np.float64).eps
            used = rows_within_euclidean(X, self.sq_norms, X[start:stop] @ X.T, start, _squared(eps), tol, lengths,
                                         buffer)
        elif self.p is not None:
            used = rows_within(cdist(X[start:stop], X, "minkowski", p=self.p), eps, lengths, buffer)
        else:
            Y = self.X_metric
            used = rows_within(cdist(Y[start:stop], Y, self.metric, **self.metric_params), eps, lengths, buffer)
        return start, lengths, buffer[:used].copy()

    def core_neighbourhoods(self, weight, min_samples):
        n = len(self.X)
        self.n_columns = n
        rows = max(1, BRUTE_TILE // max(n, 1))
        blocks = (self._block(s, min(s + rows, n)) for s in range(0, n, rows))
        return _keep_core_rows(blocks, n, weight, min_samples)


def _squared(eps):
    """eps², for an eps that may exceed every distance of the data (≤ MAX_MAGNITUDE): capped there,
    so that its square stays a float (Python's ** raised OverflowError from 1.4e154)."""
    return min(float(eps), 1e50 * MAX_MAGNITUDE) ** 2
