"""A forest's trees in one node table, and one compiled pass that sums their leaf values.

Predicting tree by tree costs a temporary (n_samples × n_classes) array and a Python round trip
per tree. Here the trees' parallel arrays are concatenated once after ``fit`` (child ids stay
local to their tree, feature ids are mapped through the member's feature subset), and one kernel
adds each leaf's value into the output. The member trees then read their own arrays as views
of the table wherever the two agree, so a forest holds its nodes once. The rows are split into one chunk per Numba thread;
within a chunk the loop is tree-major (one tree over all the chunk's rows, then the next), which
keeps the tree being walked in cache: measured on 12,500 × 20 rows and 20 full trees, tree-major
took 30 ms against 47 ms for blocks of 64 rows walking every tree, and packing the nodes into
one 32-byte record each was slower still (the float-to-int conversions).
"""

import numba
import numpy as np
from numba import prange

from ..tree._tree import descend
from ..utils import njit


class FlatForest:
    """The members of a fitted forest as one table; ``sum_values(X)`` = Σ_trees value[leaf(x)].

    ``values_of(member, tree)`` gives each node's value vector (n_nodes × n_outputs): class
    fractions for soft voting, a one-hot majority for hard voting, the mean for regression.
    Only lucidml trees without categorical (multiway) nodes are flattened: see ``supports``.
    """

    def __init__(self, members, features, values_of):
        trees = [member.tree_ for member in members]
        sizes = np.array([tree.node_count for tree in trees])
        self.roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        total = int(sizes.sum())
        self.feature = np.empty(total, np.intp)
        self.left = np.empty(total, np.intp)
        self.right = np.empty(total, np.intp)
        self.threshold = np.empty(total)
        self.missing_left = np.empty(total, np.uint8)
        self.value = None
        # Tree by tree: copy into the table, then let the tree read its rows of it, so that its
        # own arrays are freed at once and the nodes are never held twice.
        for member, tree, member_features, root, size in zip(members, trees, features, self.roots, sizes):
            rows = slice(root, root + size)
            internal = tree.children_left != -1
            self.feature[rows] = np.where(internal, np.asarray(member_features)[np.maximum(tree.feature, 0)], -2)
            self.left[rows] = tree.children_left
            self.right[rows] = tree.children_right
            self.threshold[rows] = tree.threshold
            self.missing_left[rows] = tree.missing_go_to_left
            values = values_of(member, tree)
            if self.value is None:
                self.value = np.empty((total, values.shape[1]))
            self.value[rows] = values
            _share(tree, self, rows, np.array_equal(self.feature[rows], tree.feature),
                   np.array_equal(values, tree.value[:, 0, :]))

    @staticmethod
    def supports(members):
        return all(hasattr(m, "_fit_validated") and not m.tree_.has_categories for m in members)

    def sum_values(self, X):
        """Σ over trees of the value of the leaf each row of X (C-ordered float64) reaches."""
        out = np.zeros((X.shape[0], self.value.shape[1]))
        n_chunks = max(1, min(numba.get_num_threads(), X.shape[0] // 256))
        _sum_leaf_values(X, self.feature, self.threshold, self.left, self.right, self.missing_left, self.value,
                         self.roots, n_chunks, out)
        return out


def _share(tree, table, rows, same_feature, same_value):
    """Point the tree's node arrays at its rows of the forest's table (the same numbers, held once)."""
    tree.children_left, tree.children_right = table.left[rows], table.right[rows]
    tree.threshold, tree.missing_go_to_left = table.threshold[rows], table.missing_left[rows]
    if same_feature:
        tree.feature = table.feature[rows]
    if same_value:
        tree.value = table.value[rows, None, :]


@njit(parallel=True)
def _sum_leaf_values(X, feature, threshold, left, right, missing_left, value, roots, n_chunks, out):
    n = X.shape[0]
    for c in prange(n_chunks):
        start, stop = c * n // n_chunks, (c + 1) * n // n_chunks
        for t in range(roots.shape[0]):
            for i in range(start, stop):
                u = descend(X, i, roots[t], feature, threshold, left, right, missing_left)
                for k in range(value.shape[1]):
                    out[i, k] += value[u, k]
