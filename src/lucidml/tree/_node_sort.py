"""The exact search's other way to order a node's samples: sort, at each node, only the features it draws.

Keeping every column presorted (``_splitter``) makes a node's sweep O(m) per feature, but every
split must then partition the sorted order of *every* column, examined or not: O(m · d) per
node. On a wide table (a bag of words, thousands of columns) a tree searches far fewer columns
than that — a forest's ``max_features="sqrt"`` draws √d, and most columns are constant in a small
node — so there the builder keeps one node-ordered list of samples instead, and sorts the node's
samples by a feature only when the node draws it: O(m log m) per *examined* feature, nothing for
the others, no presorting of the table and no per-column copy for each tree
(``_exact_data.node_sorted`` chooses between the two ways).

:func:`gather_feature` then :func:`sort_values` leave the same thing as a presorted column holds —
sample ids in increasing order of the feature, NaN last — so the sweeps of ``_splitter`` read both
alike.
"""

import numpy as np

from ..utils import njit

_INSERTION_BELOW = 16  # segments shorter than this are finished by insertion sort
# Segments this long are radix sorted: 8–19 ns a sample (2,344 down to 120 samples) on the Ames
# table's continuous columns in random sample order, where the quicksort's data-dependent
# branches cost 37–45.
_RADIX_FROM = 64
_SIGN = np.uint64(1) << np.uint64(63)


@njit(inline="always")
def gather_feature(samples, xf, start, end, idx, values):
    """The node's samples into ``idx[start:end]`` and their values of ``xf`` into ``values``, the NaN
    moved to the back: returns (position of the first NaN, smallest value, largest value), the
    position −1 when the feature is constant in the node (nothing left to sort)."""
    # The loads (cache misses, mostly) do not wait on one another, nor on the comparisons, which
    # wait only on the loads.
    smallest = np.inf
    largest = -np.inf
    n_nan = 0
    for p in range(start, end):
        i = samples[p]
        idx[p] = i
        v = xf[i]
        values[p] = v
        smallest = v if v < smallest else smallest  # (NaN compares false: left out of the range)
        largest = v if v > largest else largest
        n_nan += v != v
    lo = end
    if n_nan > 0:  # then, over contiguous memory, the NaN to the back
        lo, smallest, largest = nan_to_back(values, idx, start, end)
    if lo == start or (lo == end and smallest == largest):
        return -1, smallest, largest
    return lo, smallest, largest


@njit(inline="always")
def sort_values(values, idx, start, end, smallest, largest):
    """Sort ``values[start:end]`` in increasing order, moving ``idx`` along (no NaN); ``smallest``
    and ``largest`` are the segment's extreme values.

    Two distinct values (a one-hot or binary column: most columns of an encoded table) take one
    counting pass and one branch-free partition (:func:`partition_two_values`), here, with no
    call; anything else the introsort of :func:`sort_pairs`.
    """
    if two_valued(values, start, end, smallest, largest):
        partition_two_values(values, idx, start, end, smallest, largest)
    else:
        sort_pairs(values, idx, start, end)


@njit(inline="always")
def nan_to_back(values, idx, start, end):
    """Move the NaN of ``values[start:end]`` to the back, ``idx`` along; return the position of the
    first NaN and the smallest and largest of the other values."""
    lo = start
    hi = end
    smallest = np.inf
    largest = -np.inf
    while lo < hi:
        v = values[lo]
        if v != v:
            hi -= 1
            values[lo], values[hi] = values[hi], v
            idx[lo], idx[hi] = idx[hi], idx[lo]
        else:
            smallest = min(smallest, v)
            largest = max(largest, v)
            lo += 1
    return lo, smallest, largest


@njit
def sort_pairs(values, idx, start, end):
    """Sort ``values[start:end]`` in increasing order, moving ``idx`` along (no NaN).

    Segments of 64 values or more: a radix sort (:func:`_radix_sort_pairs`). Shorter ones:
    introsort, quicksort on a median-of-three pivot with a three-way partition, so that runs of
    equal values are set aside in one pass; heapsort when the recursion gets too deep; insertion
    sort for short segments. The sweeps read only the order of distinct values, so equal values
    may end in any order.
    """
    n = end - start
    if n < 2:
        return
    if n >= _RADIX_FROM:
        _radix_sort_pairs(values, idx, start, end)
        return
    if n < _INSERTION_BELOW:  # (most nodes of a deep tree: no stack to allocate)
        _insertion_sort(values, idx, start, end)
        return
    max_depth = 2 * int(np.log2(n))
    # Pending segments (start, end, depth left): the larger side is pushed and the smaller one
    # sorted first, so the stack never holds more than log₂(n) entries.
    stack = np.empty((64, 3), dtype=np.int64)
    top = 0
    lo, hi, depth = start, end, max_depth
    while True:
        if hi - lo < _INSERTION_BELOW:
            _insertion_sort(values, idx, lo, hi)
        elif depth == 0:
            _heapsort(values, idx, lo, hi)
        else:
            lt, gt = _partition3(values, idx, lo, hi)
            depth -= 1
            if lt - lo < hi - gt:
                stack[top, 0], stack[top, 1], stack[top, 2] = gt, hi, depth
                hi = lt
            else:
                stack[top, 0], stack[top, 1], stack[top, 2] = lo, lt, depth
                lo = gt
            top += 1
            continue
        if top == 0:
            return
        top -= 1
        lo, hi, depth = stack[top, 0], stack[top, 1], stack[top, 2]


@njit
def _radix_sort_pairs(values, idx, start, end):
    """LSD radix sort of ``values[start:end]`` (no NaN) by bytes, ``idx`` along; stable.

    Each float64 becomes a uint64 key that orders as the float does (negatives: every bit
    flipped; others: the sign bit set), so −0.0 comes before +0.0, which the sweeps read as one
    value. A byte that is the same in every key (the exponent of values of one magnitude, the
    low mantissa of float32 or integer values) takes no pass: those are found from the OR and
    AND of the keys, and the others are counted in one pass and scattered one pass each.
    """
    n = end - start
    keys = np.empty(n, np.uint64)
    keys_out = np.empty(n, np.uint64)
    ids_out = np.empty(n, idx.dtype)
    bits = values[start:end].view(np.uint64)
    ids = idx[start:end]
    any_set = np.uint64(0)
    all_set = ~np.uint64(0)
    for p in range(n):
        b = bits[p]
        k = ~b if b & _SIGN else b | _SIGN
        keys[p] = k
        any_set |= k
        all_set &= k
    varying = any_set ^ all_set
    shifts = np.empty(8, np.uint64)  # the bit offsets of the bytes that vary, lowest first
    n_passes = 0
    for d in range(8):
        if (varying >> np.uint64(8 * d)) & np.uint64(255):
            shifts[n_passes] = 8 * d
            n_passes += 1
    counts = np.zeros((n_passes, 256), np.int64)
    for p in range(n):
        k = keys[p]
        for d in range(n_passes):
            counts[d, (k >> shifts[d]) & np.uint64(255)] += 1
    source_keys, source_ids, target_keys, target_ids = keys, ids, keys_out, ids_out
    for d in range(n_passes):
        shift = shifts[d]
        offsets = counts[d]
        total = 0
        for b in range(256):
            count = offsets[b]
            offsets[b] = total
            total += count
        for p in range(n):
            k = source_keys[p]
            b = (k >> shift) & np.uint64(255)
            q = offsets[b]
            offsets[b] = q + 1
            target_keys[q] = k
            target_ids[q] = source_ids[p]
        source_keys, target_keys = target_keys, source_keys
        source_ids, target_ids = target_ids, source_ids
    for p in range(n):
        k = source_keys[p]
        bits[p] = k ^ _SIGN if k & _SIGN else ~k
        ids[p] = source_ids[p]


@njit(inline="always")
def two_valued(values, start, end, smallest, largest):
    """Whether every value of ``values[start:end]`` is ``smallest`` or ``largest``."""
    n_extreme = 0
    for p in range(start, end):
        v = values[p]
        n_extreme += (v == smallest) | (v == largest)
    return n_extreme == end - start


@njit(inline="always")
def partition_two_values(values, idx, start, end, smallest, largest):
    """Sort ``values[start:end]`` (and ``idx``), which holds only ``smallest`` and ``largest``.

    The quicksort's partition branches on every value, and on a column of 0/1 codes in random
    sample order that branch is mispredicted at about the rate of the rarer value (the Ames
    table's root node, gather included: 5.6 ns a sample, against 2.3 this way). This partition
    moves an id whatever its value and only advances the boundary by the comparison's 0 or 1:
    the ids of ``smallest`` [start, j), those of ``largest`` [j, p) as p advances (Lomuto's
    invariant).
    """
    j = start
    for p in range(start, end):
        i = idx[p]
        small = values[p] == smallest
        idx[p] = idx[j]
        idx[j] = i
        j += small
    for p in range(start, j):
        values[p] = smallest
    for p in range(j, end):
        values[p] = largest


@njit(inline="always")
def _swap(values, idx, a, b):
    values[a], values[b] = values[b], values[a]
    idx[a], idx[b] = idx[b], idx[a]


@njit
def _partition3(values, idx, lo, hi):
    """Three-way partition of [lo, hi) around the median of its first, middle and last values.

    Returns (lt, gt): [lo, lt) < pivot, [lt, gt) == pivot, [gt, hi) > pivot.
    """
    a, b, c = values[lo], values[(lo + hi) // 2], values[hi - 1]
    pivot = max(min(a, b), min(max(a, b), c))
    lt = lo
    i = lo
    gt = hi
    while i < gt:
        v = values[i]
        if v < pivot:
            _swap(values, idx, lt, i)
            lt += 1
            i += 1
        elif v > pivot:
            gt -= 1
            _swap(values, idx, i, gt)
        else:
            i += 1
    return lt, gt


@njit
def _insertion_sort(values, idx, lo, hi):
    for p in range(lo + 1, hi):
        v = values[p]
        i = idx[p]
        q = p
        while q > lo and values[q - 1] > v:
            values[q] = values[q - 1]
            idx[q] = idx[q - 1]
            q -= 1
        values[q] = v
        idx[q] = i


@njit
def _heapsort(values, idx, lo, hi):
    n = hi - lo
    for root in range(n // 2 - 1, -1, -1):
        _sift_down(values, idx, lo, root, n)
    for last in range(n - 1, 0, -1):
        _swap(values, idx, lo, lo + last)
        _sift_down(values, idx, lo, np.int64(0), last)


@njit
def _sift_down(values, idx, lo, root, n):
    """Restore the max-heap below ``root`` in the heap values[lo:lo + n]."""
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and values[lo + child + 1] > values[lo + child]:
            child += 1
        if values[lo + root] >= values[lo + child]:
            return
        _swap(values, idx, lo + root, lo + child)
        root = child
