"""Compiled k-smallest selection: the partial sort of brute-force neighbour search.

Each query row keeps a max-heap of the k best (distance, index) pairs seen so far; tiles of the
distance matrix are offered to the heaps one after another (O(n log k) per row, one pass, no
copy), and the heaps are sorted at the end.
"""

import numpy as np

from ..utils import njit


@njit
def _sift_down(values, indices, k):
    """Restore the max-heap order (by value, then index) after the root was replaced."""
    i = 0
    while True:
        left = 2 * i + 1
        if left >= k:
            return
        child = left
        right = left + 1
        if right < k and (
            values[right] > values[left] or (values[right] == values[left] and indices[right] > indices[left])
        ):
            child = right
        if values[child] > values[i] or (values[child] == values[i] and indices[child] > indices[i]):
            values[i], values[child] = values[child], values[i]
            indices[i], indices[child] = indices[child], indices[i]
            i = child
        else:
            return


@njit
def start_heaps(n_rows, k):
    """Empty heaps of the k best (value, index) per row; placeholders lose to any real entry."""
    values = np.full((n_rows, k), np.inf)
    indices = np.full((n_rows, k), np.iinfo(np.intp).max, dtype=np.intp)
    return values, indices


@njit
def push_tile(distances, col_offset, values, indices):
    """Offer a tile of distances (columns col_offset, col_offset + 1, ...) to the row heaps.

    A candidate enters only if strictly smaller than the worst kept entry, so with tiles
    offered in column order, equal distances keep the lower column.
    """
    k = values.shape[1]
    for i in range(distances.shape[0]):
        row_values, row_indices = values[i], indices[i]
        for j in range(distances.shape[1]):
            d = distances[i, j]
            if d < row_values[0]:
                row_values[0] = d
                row_indices[0] = col_offset + j
                _sift_down(row_values, row_indices, k)


@njit
def push_tile_euclidean(inner, norms, col_offset, values, indices):
    """``push_tile`` for the squared-distance surrogate ‖x‖² − 2 q·x, formed on the fly."""
    k = values.shape[1]
    for i in range(inner.shape[0]):
        row_values, row_indices = values[i], indices[i]
        for j in range(inner.shape[1]):
            d = norms[col_offset + j] - 2.0 * inner[i, j]
            if d < row_values[0]:
                row_values[0] = d
                row_indices[0] = col_offset + j
                _sift_down(row_values, row_indices, k)


@njit
def sort_heaps(values, indices):
    """Each row's heap in ascending (value, index) order, in place."""
    k = values.shape[1]
    for i in range(values.shape[0]):
        for a in range(1, k):  # insertion sort: k is small
            b = a
            while b > 0 and (
                values[i, b] < values[i, b - 1] or (values[i, b] == values[i, b - 1] and indices[i, b] < indices[i, b - 1])
            ):
                values[i, b], values[i, b - 1] = values[i, b - 1], values[i, b]
                indices[i, b], indices[i, b - 1] = indices[i, b - 1], indices[i, b]
                b -= 1


def smallest_k(distances, k):
    """The k smallest entries of every row and their columns, sorted; ties go to the lower column."""
    values, indices = start_heaps(distances.shape[0], k)
    push_tile(distances, 0, values, indices)
    sort_heaps(values, indices)
    return values, indices
