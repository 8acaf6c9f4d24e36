"""Partitioning a node's samples into the children of a histogram split (``_histogram`` finds it).

A threshold split moves its left samples forward and its right ones through a buffer, in one
branch-free pass (in blocks on the threads for large nodes); a categorical split counts its groups,
then places each sample. The split feature's bins are read from the dense codes, or, for a sparse
X, from its rows' stored entries (``_sparse_bins.node_column``).
"""

import numpy as np
from numba import prange, types
from numba.extending import overload

from ..utils import njit, unsigned
from ..utils._numba import interpreted
from ._histogram import PARALLEL_BLOCK
from ._sparse_bins import node_column
from ._splitter import CATEGORICAL_SPLIT


@njit
def partition_hist(data, start, end, split, work):
    """Stably partition the node's samples ``data.samples[start:end]`` into the children of
    ``split`` (as :func:`find_split_hist` returns it); returns the child sizes.

    A threshold split moves its left samples forward and its right ones through a buffer (one
    pass); a categorical split counts its groups first, then places each sample.
    """
    kind, feature, last_bin, _, missing_left, n_groups, _ = split
    samples, tmp = data.samples, data.tmp_samples
    col = _split_column(data.binned, data.sparse, feature, samples, start, end)
    missing_bin = data.cell_ptr[feature + 1] - data.cell_ptr[feature] - 1  # the feature's last cell
    if kind != CATEGORICAL_SPLIT:
        if end - start >= 2 * PARALLEL_BLOCK:
            n_left = _partition_in_parallel(col, samples, start, end, (last_bin, missing_left, missing_bin), tmp)
        else:
            n_left = _partition_binary(col, samples, start, end, last_bin, missing_left, missing_bin, tmp)
        sizes = np.empty(2, dtype=np.int64)
        sizes[0], sizes[1] = n_left, end - start - n_left
        return sizes
    group_of = work.bin_to_group
    for g in range(n_groups):
        group_of[work.best_groups[g]] = g
    sizes = np.zeros(n_groups, dtype=np.int64)
    for p in range(start, end):
        sizes[group_of[np.int64(col[samples[p]])]] += 1
    offsets = np.empty(n_groups, dtype=np.int64)
    acc = 0
    for g in range(n_groups):
        offsets[g] = acc
        acc += sizes[g]
    for p in range(start, end):
        i = samples[p]
        g = group_of[np.int64(col[i])]
        tmp[offsets[g]] = i
        offsets[g] += 1
    for k in range(end - start):
        samples[start + k] = tmp[k]
    return sizes


def _split_column(binned, sparse, feature, samples, start, end):
    """The bins of ``feature``, read at the node's rows samples[start:end]: a column of the dense
    codes, or the sparse codes' (the other None)."""
    if sparse is not None:
        return interpreted(node_column)(sparse, feature, samples, start, end)
    return binned[:, feature]


@overload(_split_column)
def _split_column_compiled(binned, sparse, feature, samples, start, end):
    # Chosen by the arguments' types, so that a fit compiles only the reading of its own codes.
    if isinstance(sparse, types.NoneType):
        return lambda binned, sparse, feature, samples, start, end: binned[:, feature]
    return lambda binned, sparse, feature, samples, start, end: node_column(sparse, feature, samples, start, end)


@njit
def _goes_left(b, last_bin, missing_left, missing_bin):
    """Whether bin b goes left under "bin ≤ last_bin, missing values left iff missing_left", without
    a branch (``last_bin`` is below the missing bin, so "b ≤ last_bin" is false for missing values)."""
    return (b <= last_bin) | (missing_left & (b == missing_bin))


@njit
def _partition_binary(col, samples, start, end, last_bin, missing_left, missing_bin, tmp):
    """Stable partition of samples[start:end], left ones first (right ones through ``tmp``); returns the left count.

    Branch-free: each sample is written to both places and only the count of its side
    advances (a left/right branch would be mispredicted about half the time).
    """
    n_left = 0
    n_right = 0
    for p in range(start, end):
        i = samples[p]
        left = _goes_left(np.int64(col[unsigned(i)]), last_bin, missing_left, missing_bin)
        samples[unsigned(start + n_left)] = i  # n_left ≤ p − start: never ahead of the read
        tmp[unsigned(n_right)] = i
        n_left += left
        n_right += 1 - left
    for k in range(n_right):
        samples[start + n_left + k] = tmp[k]
    return n_left


@njit(parallel=True)
def _partition_in_parallel(col, samples, start, end, rule, tmp):
    """:func:`_partition_binary` with blocks of samples on the threads; ``rule`` = (last_bin,
    missing_left, missing_bin).

    Each block is split within its own range of ``tmp``, left samples from its front, right
    samples from its back (both written, as in the serial pass, and only one kept); then every
    block copies its two parts to their places, rights reversed back into order.
    """
    last_bin, missing_left, missing_bin = rule
    m = end - start
    n_blocks = (m + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK
    lefts = np.zeros(n_blocks + 1, np.int64)
    for block in prange(n_blocks):
        a = block * PARALLEL_BLOCK
        b = min(m, a + PARALLEL_BLOCK)
        n_left = 0
        n_right = 0
        for k in range(a, b):
            i = samples[start + k]
            left = _goes_left(np.int64(col[unsigned(i)]), last_bin, missing_left, missing_bin)
            tmp[unsigned(a + n_left)] = i
            tmp[unsigned(b - 1 - n_right)] = i
            n_left += left
            n_right += 1 - left
        lefts[block + 1] = n_left
    for block in range(n_blocks):  # made cumulative: the left samples of the blocks before each block
        lefts[block + 1] += lefts[block]
    before = lefts
    total_left = before[n_blocks]
    for block in prange(n_blocks):
        a = block * PARALLEL_BLOCK
        b = min(m, a + PARALLEL_BLOCK)
        n_left = before[block + 1] - before[block]
        for k in range(n_left):
            samples[start + before[block] + k] = tmp[a + k]
        right_at = start + total_left + a - before[block]  # right samples of the blocks before: a − before
        for k in range(b - a - n_left):
            samples[right_at + k] = tmp[b - 1 - k]
    return total_left
