"""The node-sorted exact search on a sparse X (CSC): a node reads only its nonzeros of a feature.

A dense node-sorted search (``_node_sort``) gathers all m values of a node for every feature it
examines. On a bag of words most of them are zeros: a node of m samples holds, in a column with
``nnz`` entries, only the few that are its own, and the zeros all lie at one value. Here a node
finds its nonzeros of feature f either by walking the column's entries and keeping the rows that
lie in the node (``position[i]`` is sample i's place in the node-ordered list, so that test is
O(1)), O(nnz_f), or, for a small node in a long column, by bisecting the column's sorted row
indices for each of its samples, O(m log nnz_f) — the cheaper of the two, as scikit-learn's
sparse splitter does. It sorts only those, and lays the node's samples out as a sorted column::

    idx[start:end] = [ negative values ↑ | zeros (z) | positive values ↑ | NaN ]

The zeros are one run of equal values. When they are the smallest values and more than half of
the node (the usual case for counts), the sweep of ``_splitter`` moves them to the left child at
once, from the node's sums minus those of the rest, so only one of them needs listing: a feature
costs O(nonzeros in the node) instead of O(m). Otherwise all the zeros are listed (then there are
at most as many as nonzeros, or a random or categorical split reads them all).

The values are scattered into a dense scratch column (``exact.table[0]``, zero everywhere else),
so the sweeps read ``xf[i]`` for any sample as from a dense column; :func:`clear_sparse_feature`
puts the zeros back before the next feature. The best feature found so far is scattered into
``exact.table[1]``, which ``_splitter.assign_children`` reads.
"""

from collections import namedtuple

import numpy as np
from numba import types
from numba.extending import overload

from ..utils import njit
from ..utils.sparse import first_at_least
from ._node_sort import nan_to_back, sort_values

# X's CSC arrays, ``indptr`` (int64), ``indices`` (uint32) and ``data`` (float64), and
# ``position[i]``: sample i's place in the node-ordered samples sidx[0] (−1 when not grown on).
SparseColumns = namedtuple("SparseColumns", ["indptr", "indices", "data", "position"])


def csc_arrays(exact):
    """(indptr, indices, data, position) of a sparse fit's ``exact.csc``.

    A dense fit's ``csc`` is None, and its kernels reach this only in branches they never take
    (``exact.sparse`` is False); compiled for it, this returns empty arrays of the same types, so
    that the sparse code types without a second copy of the kernels for dense data.
    """
    csc = exact.csc
    return csc.indptr, csc.indices, csc.data, csc.position


# Not inlined by Numba (LLVM inlines it): inlined, its tuple of arrays was made and unpacked with a
# reference count for each array, once per node and feature; a sparse tree on 3,959 × 3,195 word
# counts took 325 ms against 235 ms.
@overload(csc_arrays)
def _csc_arrays_compiled(exact):
    if isinstance(exact[exact.fields.index("csc")], types.NoneType):
        def none(exact):  # (fresh arrays: a global one would be typed read-only)
            return np.zeros(1, np.int64), np.zeros(0, np.uint32), np.zeros(0), np.zeros(0, np.int64)
        return none
    return csc_arrays  # a sparse fit: the plain function above, compiled


@njit(inline="always")
def _node_nonzeros(exact, f, start, end, idx, values, xf):
    """Write the node's nonzero (sample, value) pairs of feature f to idx/values[start:], scatter
    them into ``xf``, and return how many there are."""
    indptr, rows, data, position = csc_arrays(exact)
    samples = exact.sidx[0]
    lo = indptr[f]
    hi = indptr[f + 1]
    q = start
    m = end - start
    if (hi - lo) <= m * (1.0 + np.log2(1.0 + hi - lo)):  # walk the column
        for k in range(lo, hi):
            i = rows[k]
            p = position[i]
            if start <= p < end:
                idx[q] = i
                values[q] = data[k]
                xf[i] = data[k]
                q += 1
    else:  # bisect the column for each sample of the (small) node
        for p in range(start, end):
            i = samples[p]
            a = first_at_least(rows, lo, hi, i)
            if a < hi and rows[a] == i:
                idx[q] = i
                values[q] = data[a]
                xf[i] = data[a]
                q += 1
    return q - start


@njit(inline="always")
def sort_sparse_feature(exact, f, start, end, idx, values, xf, one_zero_enough):
    """The node's samples into ``idx[start:end]`` in increasing order of feature f (NaN last).

    Returns (end_nn, zero_lo, zero_hi, run_end): the first NaN position (−1 when the feature is
    constant in the node, nothing then left scattered), the zeros' slots [zero_lo, zero_hi), and
    ``run_end`` = zero_hi when only the last zero slot is filled (``one_zero_enough`` and the zeros
    are the smallest values and more than half of the node: the sweep starts there), else −1.
    """
    n_nonzero = _node_nonzeros(exact, f, start, end, idx, values, xf)
    m = end - start
    n_zero = m - n_nonzero
    if n_nonzero == 0:
        return -1, start, end, -1
    lo, smallest, largest = nan_to_back(values, idx, start, start + n_nonzero)
    smallest_stored, largest_stored = smallest, largest
    n_finite = lo - start
    n_nan = n_nonzero - n_finite
    if n_zero > 0:
        smallest = min(smallest, 0.0)
        largest = max(largest, 0.0)
    if n_nan == m or (n_nan == 0 and smallest == largest):
        clear_range(xf, idx, start, start + n_nonzero)
        return -1, start, end, -1
    sort_values(values, idx, start, start + n_finite, smallest_stored, largest_stored)
    n_negative = 0
    while n_negative < n_finite and values[start + n_negative] < 0.0:
        n_negative += 1
    # Make room for the zeros: the positives and the NaN move right by n_zero (from the back).
    zero_lo = start + n_negative
    zero_hi = zero_lo + n_zero
    for p in range(start + n_nonzero - 1, zero_lo - 1, -1):
        idx[p + n_zero] = idx[p]
    end_nn = end - n_nan
    if n_zero == 0:
        return end_nn, zero_lo, zero_hi, -1
    samples = exact.sidx[0]
    if one_zero_enough and n_negative == 0 and 2 * n_zero > m:
        for p in range(start, end):  # any zero sample, in the last slot: found after few nonzeros
            i = samples[p]
            if xf[i] == 0.0:
                idx[zero_hi - 1] = i
                break
        return end_nn, zero_lo, zero_hi, zero_hi
    list_zeros(samples, xf, start, end, idx, zero_lo)
    return end_nn, zero_lo, zero_hi, -1


@njit(inline="always")
def list_zeros(samples, xf, start, end, out, at):
    """The node's samples whose scattered value is 0, into ``out[at:]``."""
    q = at
    for p in range(start, end):
        i = samples[p]
        if xf[i] == 0.0:
            out[q] = i
            q += 1


@njit(inline="always")
def clear_range(xf, idx, lo, hi):
    """Zero the scattered values of the samples idx[lo:hi]."""
    for p in range(lo, hi):
        xf[idx[p]] = 0.0


@njit(inline="always")
def clear_sparse_feature(xf, idx, start, zero_lo, zero_hi, end):
    """Put back the zeros of a scattered feature laid out by :func:`sort_sparse_feature`."""
    clear_range(xf, idx, start, zero_lo)
    clear_range(xf, idx, zero_hi, end)


@njit(inline="always")
def keep_sparse_order(exact, idx, xf, start, end, zero_lo, zero_hi, run_end):
    """Keep the node's full order of the best feature so far in ``ids[2]`` (every zero listed) and
    its values scattered in ``table[1]`` for the partition (the previous best's cleared first)."""
    kept, best = exact.ids[2], exact.table[1]
    for p in range(start, end):
        best[kept[p]] = 0.0
    for p in range(start, zero_lo):
        kept[p] = idx[p]
    if run_end < 0:
        for p in range(zero_lo, zero_hi):
            kept[p] = idx[p]
    else:
        list_zeros(exact.sidx[0], xf, start, end, kept, zero_lo)
    for p in range(zero_hi, end):
        kept[p] = idx[p]
    for p in range(start, zero_lo):
        best[idx[p]] = xf[idx[p]]
    for p in range(zero_hi, end):
        best[idx[p]] = xf[idx[p]]


@njit(inline="always")
def update_positions(exact, start, end):
    """``position[i]`` of the node's samples after a partition reordered sidx[0, start:end]."""
    samples, position = exact.sidx[0], csc_arrays(exact)[3]
    for p in range(start, end):
        position[samples[p]] = p
