"""Quantile binning of a feature matrix: the shared front end of every histogram tree.

A histogram tree never looks at raw feature values while it grows. Each feature is cut once,
before the first split, into at most ``max_bins`` ordered bins, and every sample is replaced by
its small-integer bin index. Split search then scans ``max_bins`` bins instead of n sorted
values (000 §7.9.5 scans 300 evenly spaced thresholds per node; quantiles adapt to the data).

Contract
--------
``edges = fit_bin_edges(X, max_bins)`` returns, for every feature j, a sorted float64 array
``edges[j]`` of ``len(edges[j]) ≤ max_bins − 1`` strictly increasing thresholds:

- a feature with at most ``max_bins`` distinct (non-NaN) values gets the exact midpoints
  between consecutive distinct values, so a binned split separates exactly what an exact
  split would;
- otherwise the thresholds are the quantiles at the probabilities 1/max_bins, …,
  (max_bins−1)/max_bins, each taken as the midpoint of the two order statistics around it,
  duplicates dropped (so bins hold about equal numbers of samples and a threshold falls
  between observed values unless ties straddle it);
- NaN is ignored when the edges are computed; a feature that is all NaN (or constant) gets
  no threshold.

``B = apply_bins(X, edges, max_bins)`` maps a value x of feature j to

    bin(x) = #{t ∈ edges[j] : t < x}        ∈ {0, …, len(edges[j])},

so ``bin(x) ≤ b  ⇔  x ≤ edges[j][b]``: the split "bin ≤ b" of a histogram tree is the split
"x ≤ edges[j][b]" on raw values (the left child is x ≤ t, as everywhere in lucidml.tree).
NaN maps to the feature's own missing bin ``len(edges[j]) + 1``, the one after its last value
bin. The result is uint8 when ``max_bins ≤ 255`` and uint16 otherwise (``max_bins ≤ 65535``),
in Fortran order by default (a histogram pass reads one feature column at a time).

Histograms are ragged to match (``cell_pointers``): feature j owns the cells
``cell_ptr[j] : cell_ptr[j + 1]``, its value bins then its missing bin, so a feature of two
values costs three cells however many bins another feature has. Per-bin tables (each bin's
smallest and largest value, :func:`bin_value_ranges`) use the same cells.
"""

import numpy as np
import scipy.sparse
from numba import prange
from sklearn.utils import check_random_state

from ..utils import njit, thread_count
from ..utils._pool import pool_map
from ..utils.sparse import csr_parts

__all__ = ["apply_bins", "bin_dtype", "bin_value_ranges", "cell_pointers", "fit_bin_edges"]

MAX_BINS_LIMIT = 65535


def bin_dtype(max_bins):
    """The smallest unsigned dtype that holds the codes 0…max_bins (value bins and missing bins)."""
    return np.uint8 if max_bins <= 255 else np.uint16


def cell_pointers(edge_ptr):
    """``cell_ptr`` (int64, n_features + 1) from the edges' pointers (feature j's edges are
    ``edge_ptr[j] : edge_ptr[j + 1]`` of them all): feature j's histogram cells are
    cell_ptr[j] : cell_ptr[j + 1], its ``len(edges[j]) + 1`` value bins and then its missing bin."""
    return np.asarray(edge_ptr, np.int64) + 2 * np.arange(len(edge_ptr), dtype=np.int64)


def _check_max_bins(max_bins):
    if not 2 <= int(max_bins) <= MAX_BINS_LIMIT:
        raise ValueError(f"max_bins must be in [2, {MAX_BINS_LIMIT}]; got {max_bins}.")
    return int(max_bins)


# Rows the quantiles are computed on by default (a bound on the binning's cost; HistGradientBoosting's too).
BIN_SUBSAMPLE = 200_000


def fit_bin_edges(X, max_bins=255, subsample=BIN_SUBSAMPLE, random_state=None):
    """Per-feature thresholds cutting each column of ``X`` into at most ``max_bins`` bins.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Real values, float32 kept as is; NaN marks a missing value and is left out of the
        quantiles. A sparse column's unlisted entries count as zeros without being materialized.
    max_bins : int, default=255
        Maximum number of bins for non-missing values (2 … 65535).
    subsample : int or None, default=200_000
        Quantiles are computed on this many rows drawn without replacement when X has more
        (binning cost stays bounded); None uses every row.
    random_state : int, RandomState or None
        Draws the subsample.

    Returns
    -------
    edges : list of n_features float64 arrays, each strictly increasing, length ≤ max_bins − 1.

    Examples
    --------
    >>> import numpy as np
    >>> edges = fit_bin_edges(np.array([[0.0], [1.0], [1.0], [3.0]]))
    >>> edges[0].tolist()
    [0.5, 2.0]
    """
    max_bins = _check_max_bins(max_bins)
    X = _as_float_matrix(X)
    if subsample is not None and X.shape[0] > subsample:
        rows = check_random_state(random_state).choice(X.shape[0], subsample, replace=False)
        X = X[np.sort(rows)]
    probabilities = np.arange(1, max_bins) / max_bins
    n, d = X.shape
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csc_matrix(X)
        if not X.has_canonical_format:  # a value stored twice is their sum, one entry (on a copy)
            X = X.copy()
            X.sum_duplicates()
        if X.nnz <= _SMALL_COLUMNS * d:
            return _small_sparse_column_edges(X, max_bins, probabilities)
        # A sparse column is its stored values plus n − (stored) zeros that are never listed.
        columns = [(X.data[a:b], n - (b - a)) for a, b in zip(X.indptr[:-1], X.indptr[1:])]
    else:
        columns = [(X[:, j], 0) for j in range(d)]
    # Sorting dominates and releases the GIL: big columns are cut on the shared threads.
    threads = min(len(columns), thread_count(None, work=n, serial_below=_THREADED_ROWS))
    return pool_map(threads, lambda column: _column_edges(*column, max_bins, probabilities), columns)


# A sparse X of at most this many stored values per column on average has its edges found a block
# of columns at a time (_small_sparse_column_edges): a column at a time costs about 20 µs of NumPy
# calls (60 µs as a task of the thread pool), more than sorting a small column, where the blocks'
# sort by two keys costs about 0.2 µs a value. Measured, a column at a time against blocks:
# 20,000 × 50,000 word counts (26 a column) 1.96 s (1.0 s on one thread) against 0.13 s;
# 20,000 × 20,000 uniform values (200 a column) 1.13 against 0.76 s; 50,000 × 5,000 (1,000 a
# column) 0.82 against 1.18 s.
_SMALL_COLUMNS = 256
# Stored values per block of columns. Its peak, edges included: 59–61 bytes a stored value (traced,
# blocks of 40 and 200 uniform values a column), 15 MiB a block.
_EDGE_BLOCK = 1 << 18


def _small_sparse_column_edges(X, max_bins, probabilities):
    """:func:`_column_edges` of every column of the CSC matrix X, a block of columns at a time: one
    sort of the block's values by (column, value), a zero put among a column's values where it has
    unlisted entries. The columns of at most ``max_bins`` distinct values take their midpoints all
    at once; the others their quantiles from their part of the sort (as _sorted_column_edges)."""
    d, n = X.shape[1], X.shape[0]
    indptr = X.indptr
    edges = [None] * d
    first = 0
    while first < d:
        last = int(np.searchsorted(indptr, indptr[first] + _EDGE_BLOCK, side="right")) - 1
        last = min(d, max(last, first + 1))  # columns first … last − 1: about a block of stored values
        stored = np.diff(indptr[first:last + 1])
        column = np.repeat(np.arange(last - first), stored)
        values = X.data[indptr[first]:indptr[last]].astype(np.float64)
        with_zero = stored < n  # the column has unlisted entries: a zero among its distinct values
        column = np.concatenate([column, np.flatnonzero(with_zero)])
        values = np.concatenate([values, np.zeros(np.count_nonzero(with_zero))])
        present = ~np.isnan(values)
        column, values = column[present], values[present]
        order = np.lexsort((values, column))
        column, values = column[order], values[order]  # each column's values, in increasing order
        bounds = np.concatenate(([0], np.cumsum(np.bincount(column, minlength=last - first))))
        new = np.ones(values.size, dtype=bool)
        new[1:] = (column[1:] != column[:-1]) | (values[1:] != values[:-1])
        distinct_column, distinct = column[new], values[new]
        n_distinct = np.bincount(distinct_column, minlength=last - first)
        # Halves first, as in _column_edges: (a + b) / 2 would overflow near the float64 maximum.
        inner = distinct_column[1:] == distinct_column[:-1]
        midpoints = (0.5 * distinct[:-1] + 0.5 * distinct[1:])[inner]
        for j, e in enumerate(np.split(midpoints, np.cumsum(np.maximum(n_distinct - 1, 0))[:-1])):
            if n_distinct[j] > max_bins:  # quantiles, from the column's sorted values less the zero put in
                mine = values[bounds[j]:bounds[j + 1]]
                if with_zero[j]:
                    mine = np.delete(mine, np.searchsorted(mine, 0.0))
                e = _sorted_column_edges(mine, n - stored[j], max_bins, probabilities)
            edges[first + j] = e
        first = last
    return edges


def _as_float_matrix(X):
    """X as a 2-D float32/float64 array or sparse matrix (float32 stays float32: no copy)."""
    if not scipy.sparse.issparse(X):
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
    elif X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D; got shape {X.shape}.")
    return X


# From this many rows, fit_bin_edges sorts its columns on several threads.
_THREADED_ROWS = 20_000


def _column_edges(values, n_zeros, max_bins, probabilities):
    """The thresholds of one column, given as ``values`` plus ``n_zeros`` unlisted zeros (a sparse
    column; 0 for a dense one): midpoints between its distinct values when they fit in max_bins
    bins, else the midpoints of neighbouring order statistics at the quantiles. Computed in float64
    whatever the column's precision."""
    values = np.sort(values).astype(np.float64, copy=False)  # NaN sorts last
    values = values[: values.size - np.count_nonzero(np.isnan(values))]
    return _sorted_column_edges(values, n_zeros, max_bins, probabilities)


def _sorted_column_edges(values, n_zeros, max_bins, probabilities):
    """:func:`_column_edges` of the sorted float64 ``values`` (no NaN) and ``n_zeros`` unlisted zeros."""
    new_value = np.concatenate(([True], values[1:] != values[:-1])) if values.size else values.astype(bool)
    distinct = values[new_value]
    if n_zeros:
        distinct = np.union1d(distinct, [0.0])
    if distinct.size <= max_bins:
        # Halves first: (a + b) / 2 would overflow for values near the float64 maximum.
        return 0.5 * distinct[:-1] + 0.5 * distinct[1:]
    # NumPy's "midpoint" quantile read off the sorted column (the unlisted zeros stand between the
    # negative and the positive values); heavy ties can make neighbouring quantiles equal, np.unique
    # drops the repeats.
    position = probabilities * (values.size + n_zeros - 1)
    below = _order_statistic(values, n_zeros, np.floor(position).astype(np.intp))
    above = _order_statistic(values, n_zeros, np.ceil(position).astype(np.intp))
    return np.unique(0.5 * below + 0.5 * above)


def _order_statistic(values, n_zeros, k):
    """The k-th smallest of the sorted ``values`` with ``n_zeros`` zeros put in among them."""
    if not n_zeros:
        return values[k]
    first_zero = np.searchsorted(values, 0.0)
    listed = np.where(k < first_zero, k, k - n_zeros)
    zero = (k >= first_zero) & (k < first_zero + n_zeros)
    return np.where(zero, 0.0, values[np.where(zero, 0, listed)] if values.size else 0.0)


def apply_bins(X, edges, max_bins=255, order="F"):
    """Bin indices of ``X`` under ``edges``; NaN goes to its feature's missing bin ``len(edges[j]) + 1``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        A sparse X is binned column by column (CSC); the result is dense either way.
    edges : list of n_features increasing float arrays, as returned by :func:`fit_bin_edges`.
    max_bins : int, default=255
        The value given to :func:`fit_bin_edges` (it bounds the codes, hence their dtype).
    order : {"F", "C"}, default="F"
        Memory layout of the result.

    Returns
    -------
    binned : ndarray of shape (n_samples, n_features), uint8 (max_bins ≤ 255) or uint16.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [np.nan], [3.0]])
    >>> apply_bins(X, [np.array([0.5, 2.0])]).ravel().tolist()
    [0, 1, 3, 2]
    """
    max_bins = _check_max_bins(max_bins)
    X = _as_float_matrix(X)
    if X.shape[1] != len(edges):
        raise ValueError(f"X has shape {X.shape} but edges describe {len(edges)} features.")
    if order not in ("F", "C"):
        raise ValueError(f"order must be 'F' or 'C'; got {order!r}.")
    lengths = np.array([len(e) for e in edges], dtype=np.int64)
    if np.any(lengths > max_bins - 1):
        raise ValueError("edges hold more thresholds than max_bins allows.")
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    flat = np.concatenate([np.asarray(e, dtype=np.float64) for e in edges]) if edges else np.empty(0)
    out = np.empty(X.shape, dtype=bin_dtype(max_bins), order=order)
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csc_matrix(X)
        indptr, indices, data = csr_parts(X)
        _bin_sparse_columns(indptr, indices, data, flat, offsets, out)
    else:
        _bin_columns(X, flat, offsets, out)
    return out


# Rows per block of the parallel binning pass.
_BLOCK_ROWS = 1024


@njit(parallel=True, interpret_small=True)
def _bin_columns(X, flat_edges, offsets, out):
    """out[i, j] = #{t in edges_j : t < X[i, j]} by binary search, or the missing bin len(edges_j) + 1 for NaN.

    Blocks of rows are binned in parallel; within a block feature by feature, so the writes
    into a Fortran-ordered ``out`` stay contiguous. The block's searches advance in lockstep,
    one halving step for all its rows at a time, without branches: the rows' searches are
    independent, so the processor overlaps their memory reads (six times faster than one
    search after the other, each waiting on its own chain of reads).
    """
    n_samples, n_features = X.shape
    n_blocks = (n_samples + _BLOCK_ROWS - 1) // _BLOCK_ROWS
    for block in prange(n_blocks):
        first = block * _BLOCK_ROWS
        m = min(n_samples, first + _BLOCK_ROWS) - first
        base = np.empty(m, np.int64)
        values = np.empty(m)
        for j in range(n_features):
            start = offsets[j]
            length = offsets[j + 1] - start
            for k in range(m):
                values[k] = X[first + k, j]
                base[k] = start
            # Invariant: the edges before base are < x; the answer lies in base … base + n.
            n = length
            while n > 1:
                half = n >> 1
                for k in range(m):
                    base[k] += half * (flat_edges[base[k] + half] < values[k])
                n -= half
            for k in range(m):
                x = values[k]
                if np.isnan(x):
                    out[first + k, j] = length + 1
                elif length == 0:
                    out[first + k, j] = 0
                else:
                    out[first + k, j] = base[k] - start + (flat_edges[base[k]] < x)


@njit(parallel=True, interpret_small=True)
def _bin_sparse_columns(indptr, indices, data, flat_edges, offsets, out):
    """:func:`_bin_columns` of a CSC matrix, column by column: the column's unlisted zeros all get
    the bin of 0, then each stored value its own. The result is dense (n_samples × n_features
    small integers); the float values are never densified."""
    for j in prange(out.shape[1]):
        start = offsets[j]
        edges = flat_edges[start:offsets[j + 1]]
        zero_bin = np.searchsorted(edges, 0.0)  # side="left": #{t < 0}
        for i in range(out.shape[0]):
            out[i, j] = zero_bin
        for p in range(indptr[j], indptr[j + 1]):
            x = data[p]
            out[indices[p], j] = edges.size + 1 if np.isnan(x) else np.searchsorted(edges, x)


def bin_value_ranges(X, binned, cell_ptr):
    """(lo, hi), each of shape (cell_ptr[-1],): the smallest and largest value of X in each bin, at
    the bin's histogram cell (:func:`cell_pointers`).

    A bin no value of X falls in gets lo = +∞, hi = −∞, and so does every missing bin. A
    histogram tree uses these to put a threshold midway between the values it separates.
    """
    X = _as_float_matrix(X)
    lo = np.full(cell_ptr[-1], np.inf)
    hi = np.full(cell_ptr[-1], -np.inf)
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csc_matrix(X)
        indptr, indices, data = csr_parts(X)
        _sparse_bin_value_ranges(indptr, indices, data, binned, cell_ptr, lo, hi)
    else:
        _bin_value_ranges(X, binned, cell_ptr, lo, hi)
    return lo, hi


@njit(parallel=True, interpret_small=True)
def _bin_value_ranges(X, binned, cell_ptr, lo, hi):
    for j in prange(X.shape[1]):
        first, missing = cell_ptr[j], cell_ptr[j + 1] - cell_ptr[j] - 1
        for i in range(X.shape[0]):
            b = binned[i, j]
            if b < missing:
                v = X[i, j]
                lo[first + b] = min(lo[first + b], v)
                hi[first + b] = max(hi[first + b], v)


@njit(parallel=True, interpret_small=True)
def _sparse_bin_value_ranges(indptr, indices, data, binned, cell_ptr, lo, hi):
    """:func:`_bin_value_ranges` of a CSC matrix: the stored values, and 0 for a column with
    unlisted entries (read in the bin of its first row without a stored value)."""
    n_samples = binned.shape[0]
    for j in prange(binned.shape[1]):
        first, missing = cell_ptr[j], cell_ptr[j + 1] - cell_ptr[j] - 1
        first_unlisted = -1
        expected = 0  # rows come in increasing order: the first gap is the first unlisted row
        for p in range(indptr[j], indptr[j + 1]):
            i = indices[p]
            if first_unlisted < 0 and i != expected:
                first_unlisted = expected
            expected = i + 1
            b = binned[i, j]
            if b < missing:
                lo[first + b] = min(lo[first + b], data[p])
                hi[first + b] = max(hi[first + b], data[p])
        if first_unlisted < 0 and expected < n_samples:
            first_unlisted = expected
        if first_unlisted >= 0:
            b = first + binned[first_unlisted, j]
            lo[b] = min(lo[b], 0.0)
            hi[b] = max(hi[b], 0.0)
