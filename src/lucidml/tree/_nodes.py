"""The one node layout of every lucidml tree: a NumPy structured dtype, read by Numba as a record.

A fitted tree (``Tree.nodes``), a forest's node table and gradient boosting's ``nodes_`` are
all arrays of :data:`NODE_DTYPE`, one record per node, with scikit-learn's field names:

================================  ==================================================================
``left_child``, ``right_child``   child ids (−1 = ``TREE_LEAF`` at a leaf), local to the node's tree;
                                  a multiway categorical node lists its children elsewhere (``Tree``)
                                  and keeps its first and last child here
``feature``, ``threshold``        the test x[feature] ≤ threshold (−2 = ``TREE_UNDEFINED`` at a leaf;
                                  the threshold is NaN at a multiway node)
``missing_go_to_left``            where NaN goes (1: left)
``impurity``                      the node's impurity (0 in a boosting tree, which has none)
``n_node_samples``                training samples in the node
``weighted_n_node_samples``       their total weight (Σ hessians in a boosting tree)
``improvement``                   of the split: the weighted impurity decrease over the root's
                                  weight (CART), or the second-order gain (boosting); 0 at a leaf.
                                  Feature importances are its sums per feature.
================================  ==================================================================

The walk down a tree reads the first five fields, which lie in the record's first 21 bytes.
Node values live beside the records in a (n_nodes, n_values) array: a node's class fractions,
its mean or median, or a boosting leaf's score.
"""

import numpy as np

__all__ = ["NODE_DTYPE", "TREE_LEAF", "TREE_UNDEFINED", "empty_nodes"]

TREE_LEAF = -1
TREE_UNDEFINED = -2

# Aligned (56 bytes): scikit-learn's fields, 32-bit ids (a tree never holds 2³¹ nodes; the
# samples are indexed in int32 too), and the split's improvement.
NODE_DTYPE = np.dtype({
    "names": ["threshold", "left_child", "right_child", "feature", "missing_go_to_left", "impurity",
              "weighted_n_node_samples", "improvement", "n_node_samples"],
    "formats": [np.float64, np.int32, np.int32, np.int32, np.uint8, np.float64, np.float64, np.float64, np.int32],
}, align=True)


def empty_nodes(n):
    """``n`` leaf records: no children, no test, nothing measured yet."""
    nodes = np.zeros(n, dtype=NODE_DTYPE)
    nodes["left_child"] = nodes["right_child"] = TREE_LEAF
    nodes["feature"] = TREE_UNDEFINED
    nodes["threshold"] = TREE_UNDEFINED
    return nodes
