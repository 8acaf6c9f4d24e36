"""A forest's trees in one node table, summed by the one traversal (``lucidml.tree._traversal``).

Predicting tree by tree costs a temporary (n_samples × n_classes) array and a Python round trip
per tree. Here the trees' parallel arrays are concatenated once after ``fit`` (child ids stay
local to their tree, feature ids are mapped through the member's feature subset), and one kernel
adds each leaf's value into the output. The member trees then read their own arrays as views
of the table wherever the two agree, so a forest holds its nodes once.
"""

import numpy as np

from ..tree._traversal import Splits, sum_leaf_values


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
        splits = Splits(self.feature, self.threshold, self.left, self.right, self.missing_left)
        sum_leaf_values(X, splits, self.value, self.roots, np.zeros(self.roots.size, np.intp), out)
        return out


def _share(tree, table, rows, same_feature, same_value):
    """Point the tree's node arrays at its rows of the forest's table (the same numbers, held once)."""
    tree.children_left, tree.children_right = table.left[rows], table.right[rows]
    tree.threshold, tree.missing_go_to_left = table.threshold[rows], table.missing_left[rows]
    if same_feature:
        tree.feature = table.feature[rows]
    if same_value:
        tree.value = table.value[rows, None, :]
