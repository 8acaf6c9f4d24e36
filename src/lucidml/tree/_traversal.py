"""The one walk down a tree, for every tree model: apply, decision paths and sums of leaf values.

A node table is an array of ``_nodes.NODE_DTYPE`` records: node u tests ``x[feature] ≤
threshold`` and goes to ``left_child`` (true) or ``right_child``; NaN goes left iff
``missing_go_to_left``; ``left_child = -1`` at a leaf. Several trees may stand one after the
other in one table (a forest, the stages of boosting): child ids are local to their tree, and a
tree is named by ``base``, the row of its root. Multiway categorical nodes (``Categories``, CSR lists of
values and children) exist only in single trees.

X is a C-ordered float array or a CSR matrix as :class:`~lucidml.utils.rows.SparseRows` (see
:func:`tree_rows`): the walk reads one value per level through :func:`~lucidml.utils.rows.row_value`,
a binary search in a sparse row, so sparse rows are never densified.

- :func:`descend` is the hot loop: the leaf a row reaches, one comparison per level.
- :func:`apply_rows` / :func:`apply_parallel`: the node each row ends in, for a single tree.
- :func:`decision_paths`: the nodes each row passes through.
- :func:`sum_leaf_values`: Σ over the trees of a table of their leaves' value rows, each tree
  into its own output columns (a forest's class fractions; boosting's per-class scores).
"""

from collections import namedtuple
from contextlib import nullcontext

import numba
import numpy as np
import scipy.sparse
from numba import prange

from .._config import kernel_threads
from ..utils import njit, unsigned
from ..utils.rows import SparseRows, as_rows, row_value

__all__ = ["Categories", "apply_parallel", "apply_rows", "decision_paths", "descend", "sum_leaf_values", "tree_rows"]

Categories = namedtuple("Categories", ["ptr", "values", "children", "present"])


def tree_rows(X):
    """X as the walks take it: a dense array C-ordered, a sparse matrix as CSR rows."""
    return as_rows(X) if scipy.sparse.issparse(X) else np.ascontiguousarray(X)

# Rows per block of the parallel walks (see sum_leaf_values), and the mean nodes per tree from
# which a table's trees count as large.
BLOCK_ROWS = 256
MAX_BLOCK_ROWS = 8192
LARGE_TREE_NODES = 256


@njit
def descend(X, i, base, nodes):
    """The leaf that row i of X reaches in the tree whose root is row ``base`` of the table.

    Returns base + the leaf's local id (numeric splits only). Ids and features index unsigned
    (see utils.unsigned): 15% of a forest's prediction time.
    """
    u = unsigned(base)
    node = nodes[u]
    while node["left_child"] != -1:
        v = row_value(X, i, unsigned(node["feature"]))
        if v <= node["threshold"] or (v != v and node["missing_go_to_left"]):  # v != v: NaN
            u = unsigned(base + node["left_child"])
        else:
            u = unsigned(base + node["right_child"])
        node = nodes[u]
    return np.int64(u)


@njit
def next_node(X, i, u, nodes, categories):
    """The child of node u that row i goes to, or -1 when its category was never seen there."""
    node = nodes[u]
    v = row_value(X, i, node["feature"])
    if categories.present and categories.ptr[u + 1] > categories.ptr[u]:
        for e in range(categories.ptr[u], categories.ptr[u + 1]):
            c = categories.values[e]
            if v == c or (np.isnan(v) and np.isnan(c)):
                return categories.children[e]
        return -1
    if v <= node["threshold"]:
        return node["left_child"]
    if np.isnan(v):
        return node["left_child"] if node["missing_go_to_left"] else node["right_child"]
    return node["right_child"]


@njit(interpret_small=True)
def apply_rows(X, first, last, nodes, categories, out):
    """out[i] = the node row i ends in (a leaf, or a categorical node for an unseen value), i in [first, last)."""
    for i in range(first, last):
        if not categories.present:
            out[i] = descend(X, i, np.int64(0), nodes)
            continue
        u = np.int64(0)  # (a bare 0 would compile a second, literal-typed next_node: tree/__init__)
        while nodes[u]["left_child"] != -1:
            nxt = next_node(X, i, u, nodes, categories)
            if nxt < 0:
                break
            u = nxt
        out[i] = u


@njit(parallel=True)
def apply_parallel(X, nodes, categories, out):
    """:func:`apply_rows` over all rows, blocks of rows to the threads."""
    n_blocks = (X.shape[0] + BLOCK_ROWS - 1) // BLOCK_ROWS
    for block in prange(n_blocks):
        apply_rows(X, block * BLOCK_ROWS, min(X.shape[0], (block + 1) * BLOCK_ROWS), nodes, categories, out)


@njit(interpret_small=True)
def decision_paths(X, nodes, categories, max_len):
    """CSR (indptr, indices) of the nodes each row of X passes through, root first."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.intp)
    indices = np.empty(n * max_len, dtype=np.intp)
    k = 0
    for i in range(n):
        u = np.int64(0)
        indices[k] = 0
        k += 1
        while nodes[u]["left_child"] != -1:
            u = next_node(X, i, u, nodes, categories)
            if u < 0:
                break
            indices[k] = u
            k += 1
        indptr[i + 1] = k
    return indptr, indices[:k]


def sum_leaf_values(X, nodes, value, roots, columns, out):
    """out[i, columns[t] + k] += value[leaf of row i in tree t, k] for every tree t of the table.

    Blocks of rows go to the threads; within a block, tree after tree (the tree stays in cache
    while it walks the block, the block while the trees walk it). Small trees (boosting's) walk
    blocks of 256 rows, which stay in cache across hundreds of trees; large trees (a forest's)
    walk up to 8,192 rows each, to spread their cache misses over more rows (20 full trees on
    12,500 rows: 21 ms against 25 ms; 250 trees of 15 nodes on 20,000 rows: 71 ms against 108).
    """
    rows = BLOCK_ROWS
    per_thread = -(-X.shape[0] // numba.get_num_threads())
    large = nodes.shape[0] >= LARGE_TREE_NODES * roots.shape[0]
    if large:
        rows = min(MAX_BLOCK_ROWS, max(BLOCK_ROWS, per_thread))
    elif isinstance(X, SparseRows):
        rows = max(BLOCK_ROWS, per_thread)  # one block (and one dense row) per thread
    # One block: nothing for other threads, so wake none (a busy machine's 8 ms).
    with kernel_threads(1) if X.shape[0] <= rows else nullcontext():
        if isinstance(X, SparseRows) and not large:
            _sum_leaf_values_scattered(X, nodes, value, roots, columns, rows, out)
        else:
            _sum_leaf_values(X, nodes, value, roots, columns, rows, out)


@njit(parallel=True, interpret_small=True)
def _sum_leaf_values(X, nodes, value, roots, columns, rows, out):
    # numba.get_num_threads() in here would keep the kernel out of the on-disk cache.
    n = X.shape[0]
    n_blocks = (n + rows - 1) // rows
    for block in prange(n_blocks):
        first = block * rows
        last = min(n, first + rows)
        for t in range(roots.shape[0]):
            base = roots[t]
            column = columns[t]
            for i in range(first, last):
                u = descend(X, i, base, nodes)
                for k in range(value.shape[1]):
                    out[i, column + k] += value[u, k]


@njit(parallel=True, interpret_small=True)
def _sum_leaf_values_scattered(X, nodes, value, roots, columns, rows, out):
    """:func:`_sum_leaf_values` of small trees on sparse rows: each row's stored entries scattered
    once into a dense row, which every tree then reads in O(1) a level, where a sparse row costs a
    bisection a level and tree (100 trees of depth 3 on 5,000 rows of 65 stored words: 2.5 ms
    against 14.6 ms bisecting; scikit-learn scatters likewise). The same sums, row after row."""
    n = X.shape[0]
    n_blocks = (n + rows - 1) // rows
    for block in prange(n_blocks):
        dense = np.zeros((1, X.shape[1]), X.data.dtype)
        for i in range(block * rows, min(n, (block + 1) * rows)):
            for p in range(X.indptr[i], X.indptr[i + 1]):
                dense[0, X.indices[p]] = X.data[p]
            for t in range(roots.shape[0]):
                u = descend(dense, np.int64(0), roots[t], nodes)
                for k in range(value.shape[1]):
                    out[i, columns[t] + k] += value[u, k]
            for p in range(X.indptr[i], X.indptr[i + 1]):
                dense[0, X.indices[p]] = 0.0
