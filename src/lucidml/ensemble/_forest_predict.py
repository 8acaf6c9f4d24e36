"""A forest's trees in one node table, summed by the one traversal (``lucidml.tree._traversal``).

Predicting tree by tree costs a temporary (n_samples × n_classes) array and a Python round trip
per tree. Here the trees' node records are concatenated once after ``fit`` (child ids stay
local to their tree, feature ids are mapped through the member's feature subset), and one kernel
adds each leaf's value into the output. The member trees then read their own records and values
as views of the table wherever the two agree, so a forest holds its nodes once.
"""

import numpy as np

from ..tree._nodes import NODE_DTYPE, TREE_LEAF, TREE_UNDEFINED
from ..tree._traversal import sum_leaf_values, tree_rows


class FlatForest:
    """The members of a fitted forest as one table; ``sum_values(X)`` = Σ_trees value[leaf(x)].

    ``nodes``: the members' node records one tree after another (``roots``: where each tree
    starts), features numbered as in the forest's X; ``value``: each node's value vector
    (n_nodes × n_outputs) as ``values_of(member, tree)`` gives it: class fractions for soft
    voting, a one-hot majority for hard voting, the mean for regression. Only lucidml trees
    without categorical (multiway) nodes are flattened: see ``supports``.
    """

    def __init__(self, members, features, values_of):
        trees = [member.tree_ for member in members]
        sizes = np.array([tree.node_count for tree in trees])
        self.roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        total = int(sizes.sum())
        self.nodes = np.empty(total, dtype=NODE_DTYPE)
        self.value = None
        # Tree by tree: copy into the table, then let the tree read its rows of it, so that its
        # own arrays are freed at once and the nodes are never held twice.
        for member, tree, member_features, root, size in zip(members, trees, features, self.roots, sizes):
            rows = slice(root, root + size)
            table = self.nodes[rows]
            table[:] = tree.nodes
            member_features = np.asarray(member_features)
            same_feature = np.array_equal(member_features, np.arange(member_features.size))
            if not same_feature:  # the member saw a subset of the features
                internal = tree.children_left != TREE_LEAF
                table["feature"] = np.where(internal, member_features[np.maximum(tree.feature, 0)], TREE_UNDEFINED)
            values = values_of(member, tree)
            if self.value is None:
                self.value = np.empty((total, values.shape[1]))
            self.value[rows] = values
            if same_feature:
                tree.nodes = table
            if np.array_equal(values, tree.value[:, 0, :]):
                tree.value = self.value[rows, None, :]

    @staticmethod
    def supports(members):
        return all(hasattr(m, "_fit_validated") and not m.tree_.has_categories for m in members)

    def sum_values(self, X):
        """Σ over trees of the value of the leaf each row of X (a float array or CSR matrix) reaches."""
        X = tree_rows(X)
        out = np.zeros((X.shape[0], self.value.shape[1]))
        sum_leaf_values(X, self.nodes, self.value, self.roots, np.zeros(self.roots.size, np.intp), out)
        return out
