"""Histogram mode on a sparse X: bin codes for the stored entries only.

The unlisted entries of a sparse X are zeros, and all the zeros of a feature fall in one bin, the
bin of 0 (``zero_bin[f]``). So the codes are kept the way X keeps its values, row by row (CSR):
``codes[p]`` is the bin of the p-th stored value, and nothing is kept for the zeros. Dense codes of
a 20,000 × 5,000 table of word counts (0.5% nonzero) took 100 MB, where these take 0.5 MB.

A node's histogram (:func:`sparse_histogram`) walks the stored entries of the node's rows,
O(stored entries in the node + d · bins) instead of O(m · d); the zero bin of each feature then
gets what the rest of the node adds up to: the node's totals minus the feature's stored entries.
A split reads the chosen feature of each row of the node by bisecting the row's stored columns
(:func:`node_column`).
"""

from collections import namedtuple

import numpy as np
from numba import prange

from ..utils import njit, unsigned
from ..utils.sparse import csr_parts, first_at_least
from ._binning import bin_dtype

# ``indptr``, ``indices``: X's CSR arrays (sorted columns in each row); ``codes``: the bin of each
# stored value (NaN: its feature's missing bin); ``zero_bin[f]``: the bin of 0 in feature f;
# ``totals``: a node's sums, one per histogram column (scratch); ``column``: one entry per row, the
# bins of the feature a node splits on, at the node's rows (scratch of node_column). Which cells of
# a histogram are a feature's is the builder's ``cell_ptr`` (_binning.cell_pointers), passed along.
SparseBins = namedtuple("SparseBins", ["indptr", "indices", "codes", "zero_bin", "totals", "column"])

# Stored entries per cell up to which a sparse X's codes stay sparse: each stored entry costs the
# row walk an index and a scattered update, where a dense pass reads every cell (on two threads).
# Measured on 20,000 × 200 (normal values), 30 stages of boosting: 0.08 s against 0.25 s with
# dense codes at 5% nonzero, 0.18 against 0.28 at 20%, 0.25 against 0.29 at 30%, 0.43 against
# 0.32 at 50%; a deep regression tree (max_bins=64) was faster sparse up to 30% too.
MAX_DENSITY = 0.25


def sparse_bins(X, flat_edges, edge_ptr, n_stats):
    """:class:`SparseBins` of the CSR matrix X (canonical: sorted columns, no duplicates) cut at
    ``flat_edges[edge_ptr[f]:edge_ptr[f + 1]]`` for feature f; NaN goes to f's missing bin."""
    indptr, indices, data = csr_parts(X)
    lengths = np.diff(edge_ptr)
    codes = np.empty(data.size, bin_dtype(int(lengths.max(initial=0)) + 1))
    _bin_stored(indptr, indices, data, flat_edges, edge_ptr, codes)
    zero_bin = np.array([np.searchsorted(flat_edges[edge_ptr[f]:edge_ptr[f + 1]], 0.0)
                         for f in range(X.shape[1])], dtype=np.int64)
    return SparseBins(indptr=indptr, indices=indices, codes=codes, zero_bin=zero_bin, totals=np.zeros(n_stats),
                      column=np.zeros(X.shape[0], codes.dtype))


@njit(parallel=True, interpret_small=True)
def _bin_stored(indptr, indices, data, flat_edges, edge_ptr, codes):
    for i in prange(indptr.size - 1):
        for p in range(indptr[i], indptr[i + 1]):
            f = indices[p]
            x = data[p]
            lo, hi = edge_ptr[f], edge_ptr[f + 1]  # the bin of x: #{t in the edges : t < x} (_binning's rule)
            codes[p] = hi - lo + 1 if np.isnan(x) else first_at_least(flat_edges, lo, hi, x) - lo


def sparse_bin_value_ranges(X, bins, cell_ptr):
    """(lo, hi) of ``_binning.bin_value_ranges`` from X's stored values and their ``bins``: the zero
    bin of a feature holds 0 when some row does not store the feature."""
    lo = np.full(cell_ptr[-1], np.inf)
    hi = np.full(cell_ptr[-1], -np.inf)
    _stored_value_ranges(bins.indptr, bins.indices, X.data, bins.codes, cell_ptr, lo, hi)
    has_zero = np.bincount(bins.indices, minlength=X.shape[1]) < X.shape[0]
    for f in np.flatnonzero(has_zero):
        b = cell_ptr[f] + bins.zero_bin[f]
        lo[b], hi[b] = min(lo[b], 0.0), max(hi[b], 0.0)
    return lo, hi


@njit(interpret_small=True)
def _stored_value_ranges(indptr, indices, data, codes, cell_ptr, lo, hi):
    for p in range(indptr[indptr.size - 1]):
        f = indices[p]
        b = codes[p]
        if b < cell_ptr[f + 1] - cell_ptr[f] - 1:  # not the missing bin
            lo[cell_ptr[f] + b] = min(lo[cell_ptr[f] + b], data[p])
            hi[cell_ptr[f] + b] = max(hi[cell_ptr[f] + b], data[p])


@njit
def sparse_histogram(bins, samples, start, m, stats, identity, hist, cell_ptr):
    """hist[cell of (f, b)] = (count, Σ weight or Σ weight per class[, Σ target]) of the node's rows
    samples[start:start + m] (0 … m − 1 with ``identity``) in bin b of f (f's cells: cell_ptr[f] …
    cell_ptr[f + 1] − 1), as
    ``_histogram.build_histogram`` makes it from dense codes, to the rounding of the sums (a zero
    bin of rows of no weight may keep some: ``_histogram.gap_threshold`` allows for it)."""
    indptr, indices, codes, totals = bins.indptr, bins.indices, bins.codes, bins.totals
    n_cells, n_stats = hist.shape
    for c in range(n_cells):
        for s in range(n_stats):
            hist[c, s] = 0.0
    for s in range(n_stats):
        totals[s] = 0.0
    for k in range(m):
        i = unsigned(k if identity else samples[start + k])
        w = 1.0 if stats.unit_weight else stats.weight[i]
        totals[0] += 1.0
        if stats.classes:
            c = 1 + stats.code[i]
            totals[c] += w
            for p in range(indptr[i], indptr[i + 1]):
                cell = cell_ptr[indices[p]] + codes[p]
                hist[cell, 0] += 1.0
                hist[cell, c] += w
        else:
            t = stats.target[i]
            totals[1] += w
            totals[2] += t
            for p in range(indptr[i], indptr[i + 1]):
                cell = cell_ptr[indices[p]] + codes[p]
                hist[cell, 0] += 1.0
                hist[cell, 1] += w
                hist[cell, 2] += t
    for f in range(cell_ptr.size - 1):  # the zeros: the node's totals less the stored entries
        first, last = cell_ptr[f], cell_ptr[f + 1]
        if _column_sum(hist, first, last, 0) == totals[0]:
            continue  # every row of the node stores f (counts are exact): no rounding left in its zero bin
        zero = first + bins.zero_bin[f]
        for s in range(n_stats):
            hist[zero, s] += totals[s] - _column_sum(hist, first, last, s)


@njit
def _column_sum(hist, first, last, s):
    """Σ of the histogram's column s over the cells first … last − 1 (one feature's)."""
    total = 0.0
    for c in range(first, last):
        total += hist[c, s]
    return total


@njit
def node_column(bins, feature, samples, start, end):
    """``bins.column``, its entries at the rows samples[start:end] set to their bins of ``feature``."""
    indptr, indices, column = bins.indptr, bins.indices, bins.column
    for p in range(start, end):
        i = unsigned(samples[p])
        q = first_at_least(indices, indptr[i], indptr[i + 1], feature)
        column[i] = bins.codes[q] if q < indptr[i + 1] and indices[q] == feature else bins.zero_bin[feature]
    return column
