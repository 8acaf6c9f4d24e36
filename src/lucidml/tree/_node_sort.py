"""The exact search's other way to order a node's samples: sort, at each node, only the features it draws.

Keeping every column presorted (``_splitter``) makes a node's sweep O(m) per feature, but every
split must then partition the sorted order of *every* column, examined or not: O(m · d) per
node. On a wide table (a bag of words, thousands of columns) a tree searches far fewer columns
than that — a forest's ``max_features="sqrt"`` draws √d, and most columns are constant in a small
node — so there the builder keeps one node-ordered list of samples instead, and sorts the node's
samples by a feature only when the node draws it: O(m log m) per *examined* feature, nothing for
the others, no presorting of the table and no per-column copy for each tree
(``_exact_data.node_sorted`` chooses between the two ways).

:func:`sort_feature` leaves the same thing as a presorted column holds — sample ids in increasing
order of the feature, NaN last — so the sweeps of ``_splitter`` read both alike.
"""

import numpy as np

from ..utils import njit

_INSERTION_BELOW = 16  # segments shorter than this are finished by insertion sort


@njit(inline="always")  # (called per node and feature: no reference counting of its arrays)
def sort_feature(samples, xf, start, end, idx, values):
    """The samples ``samples[start:end]`` into ``idx[start:end]`` in increasing order of ``xf`` (NaN last).

    ``values[start:end]`` receives the sorted values (float64) as scratch. Returns the position
    of the first NaN, or −1 when the feature is constant in the node (every value NaN, or one
    value and no NaN), in which case nothing is sorted.
    """
    # The gather first, alone: its loads (cache misses, mostly) do not wait on one another.
    for p in range(start, end):
        i = samples[p]
        idx[p] = i
        values[p] = xf[i]
    # Then, over contiguous memory, the NaN to the back and the range of the rest.
    lo, smallest, largest = nan_to_back(values, idx, start, end)
    if lo == start or (lo == end and smallest == largest):
        return -1
    sort_pairs(values, idx, start, lo)
    return lo


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

    Introsort: quicksort on a median-of-three pivot with a three-way partition, so that runs of
    equal values (the zeros of a count column) are set aside in one pass; heapsort when the
    recursion gets too deep; insertion sort for short segments. Not stable: the sweeps read
    only the order of distinct values.
    """
    n = end - start
    if n < 2:
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
        _sift_down(values, idx, lo, 0, last)


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
