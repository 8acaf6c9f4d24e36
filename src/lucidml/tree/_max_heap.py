"""The max-heap of best-first growth (``max_leaf_nodes``): nodes by the improvement of their split.

Two parallel arrays, the priorities ``val`` and the node ids ``ids``; the next node to expand
is always at [0].
"""

from ..utils import njit


@njit
def heap_push(val, ids, size, v, i):
    """Push node i with priority v on the max-heap val/ids[:size]; return the new size."""
    k = size
    val[k] = v
    ids[k] = i
    while k > 0:
        parent = (k - 1) // 2
        if val[parent] >= val[k]:
            break
        val[parent], val[k] = val[k], val[parent]
        ids[parent], ids[k] = ids[k], ids[parent]
        k = parent
    return size + 1


@njit
def heap_pop(val, ids, size):
    """Drop the top of the max-heap val/ids[:size] (read it at [0] first); return the new size."""
    size -= 1
    val[0] = val[size]
    ids[0] = ids[size]
    k = 0
    while True:
        left = 2 * k + 1
        if left >= size:
            break
        c = left
        if left + 1 < size and val[left + 1] > val[left]:
            c = left + 1
        if val[k] >= val[c]:
            break
        val[k], val[c] = val[c], val[k]
        ids[k], ids[c] = ids[c], ids[k]
        k = c
    return size
