"""The fitted tree: its node records (``_nodes.NODE_DTYPE``) and values, read through scikit-learn's ``tree_`` names.

Node ``u`` tests ``x[feature[u]] <= threshold[u]`` and goes to ``children_left[u]`` (true) or
``children_right[u]``; NaN goes left iff ``missing_go_to_left[u]``. A leaf has both children
``TREE_LEAF = -1`` and ``feature = threshold = TREE_UNDEFINED = -2``. ``value[u, 0]`` holds the
weighted class fractions (classification) or the mean/median (regression). ``children_left``
and the other node arrays are views of the fields of ``nodes``, as in scikit-learn.

Multiway categorical nodes (004 §12) extend the layout: their children are listed in CSR form,
``category_children[category_ptr[u]:category_ptr[u + 1]]`` beside the matching
``category_values``; ``threshold[u]`` is NaN and ``children_left[u]``/``children_right[u]`` are
the first and last child. A value never seen at that node stops the descent there, so the
sample gets the node's own value (its majority class, smallest label on ties).
"""

import numpy as np
import scipy.sparse

from ..utils import njit
from ._nodes import NODE_DTYPE, TREE_LEAF, TREE_UNDEFINED
from ._splitter import CATEGORICAL_SPLIT
from ._traversal import Categories, apply_parallel, apply_rows, decision_paths, tree_rows

__all__ = ["TREE_LEAF", "TREE_UNDEFINED", "Tree", "tree_from_store"]

# The fewest rows worth a parallel walk (1,250 rows through a 1,083-node tree: 41 µs serial,
# 61 µs with the threads woken).
_PARALLEL_MIN_ROWS = 4096


def _field(name, doc):
    return property(lambda self: self.nodes[name], doc=doc)


class Tree:
    """A fitted tree (see the module docstring for the layout).

    ``nodes``: the node records in pre-order (depth-first growth) or growth order (best-first);
    ``value``: (node_count, 1, max_n_classes); ``categories``: the multiway nodes' CSR lists
    (ptr, values, children), or None when there are none.
    """

    children_left = _field("left_child", "Left (x ≤ threshold) child of each node, −1 at a leaf.")
    children_right = _field("right_child", "Right child of each node, −1 at a leaf.")
    feature = _field("feature", "Feature tested at each node, −2 at a leaf.")
    threshold = _field("threshold", "Threshold of each node's test (NaN: multiway), −2 at a leaf.")
    impurity = _field("impurity", "Impurity of each node.")
    n_node_samples = _field("n_node_samples", "Training samples reaching each node.")
    weighted_n_node_samples = _field("weighted_n_node_samples", "Their total weight.")
    missing_go_to_left = _field("missing_go_to_left", "1 where NaN goes to the left child.")

    def __init__(self, n_features, n_classes, nodes, value, max_depth, categories=None):
        self.n_features = n_features
        self.n_classes = np.atleast_1d(np.asarray(n_classes, dtype=np.intp))
        self.n_outputs = 1
        self.max_n_classes = int(self.n_classes.max())
        self.nodes = nodes
        self.value = value
        self.max_depth = int(max_depth)
        if categories is None:
            categories = (np.zeros(nodes.size + 1, np.intp), np.empty(0), np.empty(0, np.intp))
        self.category_ptr, self.category_values, self.category_children = categories

    @property
    def node_count(self):
        return self.nodes.size

    @property
    def capacity(self):
        return self.nodes.size

    @property
    def n_leaves(self):
        return int(np.count_nonzero(self.children_left == TREE_LEAF))

    @property
    def has_categories(self):
        return self.category_values.size > 0

    def children(self, node):
        """Child node ids of ``node`` (empty for a leaf)."""
        lo, hi = self.category_ptr[node], self.category_ptr[node + 1]
        if hi > lo:
            return self.category_children[lo:hi]
        if self.children_left[node] == TREE_LEAF:
            return np.empty(0, dtype=np.intp)
        return np.array([self.children_left[node], self.children_right[node]], dtype=np.intp)

    def children_csr(self):
        """All child lists at once: children of u are ``ids[ptr[u]:ptr[u + 1]]``."""
        return _children_csr(self.nodes, self.category_ptr, self.category_children)

    def categories(self):
        """The multiway nodes' value and child lists (see ``_traversal``)."""
        return Categories(self.category_ptr, self.category_values, self.category_children, self.has_categories)

    def apply(self, X):
        """Index of the node each row of X ends in (a leaf, or a categorical node for an unseen value).

        X: float array or sparse matrix (its rows are walked as CSR, never densified)."""
        X = tree_rows(X)
        out = np.empty(X.shape[0], dtype=np.intp)
        if X.shape[0] >= _PARALLEL_MIN_ROWS:
            apply_parallel(X, self.nodes, self.categories(), out)
        else:  # waking the threads costs more than it saves below a few blocks of rows
            apply_rows(X, 0, X.shape[0], self.nodes, self.categories(), out)
        return out

    def node_argmax(self):
        """Index of the largest value of every node (its majority class; first one on ties)."""
        if getattr(self, "_node_argmax", None) is None or self._node_argmax.size != self.node_count:
            self._node_argmax = np.argmax(self.value[:, 0, :], axis=1)
        return self._node_argmax

    def predict(self, X):
        """``value`` of the node each row ends in, shape (n_samples, n_outputs, max_n_classes)."""
        return self.value[self.apply(X)]

    def decision_path(self, X):
        """CSR indicator (n_samples, node_count) of the nodes each row passes through."""
        X = tree_rows(X)
        indptr, indices = decision_paths(X, self.nodes, self.categories(), self.max_depth + 1)
        data = np.ones(indices.size, dtype=np.intp)
        return scipy.sparse.csr_matrix((data, indices, indptr), shape=(X.shape[0], self.node_count))

    def compute_feature_importances(self, normalize=True):
        """Σ over the splits on a feature of their improvement, (W_u I_u − Σ_children W_c I_c) / W_root
        (then summing to 1)."""
        split = self.children_left != TREE_LEAF
        importances = np.bincount(self.feature[split], weights=self.nodes["improvement"][split],
                                  minlength=self.n_features).astype(np.float64)
        if normalize and importances.sum() > 0:
            importances /= importances.sum()
        return importances


def tree_from_store(store, node_count, n_features, n_classes, preorder):
    """The final :class:`Tree` from the builder's creation-order store (pre-order ids if asked)."""
    nodes, value, cat_ptr, cat_values, cat_children, max_depth = _assemble(store, node_count, preorder)
    categories = (cat_ptr, cat_values, cat_children) if cat_values.size else None
    return Tree(n_features, n_classes, nodes, value.reshape(node_count, 1, -1), max_depth, categories)


@njit(interpret_small=True)
def _assemble(store, n, preorder):
    """(nodes, value, category ptr/values/children, max depth) of the first n nodes of the store,
    renumbered in pre-order when ``preorder``."""
    growth = store.growth
    new_id = np.arange(n)
    if preorder:
        stack = np.empty(n, dtype=np.int64)
        stack[0] = 0
        top = 1
        k = 0
        while top > 0:
            top -= 1
            u = stack[top]
            new_id[u] = k
            k += 1
            if growth[u]["expanded"]:
                for c in range(growth[u]["n_children"] - 1, -1, -1):
                    stack[top] = store.child_ids[growth[u]["children"] + c]
                    top += 1
    nodes = np.empty(n, dtype=NODE_DTYPE)
    value = np.empty((n, store.value.shape[1]))
    cat_count = np.zeros(n + 1, dtype=np.intp)
    max_depth = 0
    for u in range(n):
        max_depth = max(max_depth, growth[u]["depth"])
        if growth[u]["expanded"] and growth[u]["kind"] == CATEGORICAL_SPLIT:
            cat_count[new_id[u] + 1] = growth[u]["n_children"]
    cat_ptr = np.zeros(n + 1, dtype=np.intp)
    for v in range(n):
        cat_ptr[v + 1] = cat_ptr[v] + cat_count[v + 1]
    cat_values = np.empty(cat_ptr[n])
    cat_children = np.empty(cat_ptr[n], dtype=np.intp)
    for u in range(n):
        v = new_id[u]
        nodes[v] = store.nodes[u]
        for k in range(value.shape[1]):
            value[v, k] = store.value[u, k]
        if not growth[u]["expanded"]:
            continue
        nodes[v]["left_child"] = new_id[store.nodes[u]["left_child"]]
        nodes[v]["right_child"] = new_id[store.nodes[u]["right_child"]]
        if growth[u]["kind"] == CATEGORICAL_SPLIT:
            ptr = growth[u]["children"]
            for c in range(growth[u]["n_children"]):
                cat_values[cat_ptr[v] + c] = store.child_values[ptr + c]
                cat_children[cat_ptr[v] + c] = new_id[store.child_ids[ptr + c]]
    return nodes, value, cat_ptr, cat_values, cat_children, max_depth


@njit(interpret_small=True)
def _children_csr(nodes, cat_ptr, cat_children):
    n = nodes.size
    ptr = np.zeros(n + 1, dtype=np.intp)
    for u in range(n):
        r = cat_ptr[u + 1] - cat_ptr[u]
        ptr[u + 1] = ptr[u] + (r if r > 0 else (0 if nodes[u]["left_child"] == -1 else 2))
    ids = np.empty(ptr[n], dtype=np.intp)
    for u in range(n):
        r = cat_ptr[u + 1] - cat_ptr[u]
        if r > 0:
            for c in range(r):
                ids[ptr[u] + c] = cat_children[cat_ptr[u] + c]
        elif nodes[u]["left_child"] != -1:
            ids[ptr[u]] = nodes[u]["left_child"]
            ids[ptr[u] + 1] = nodes[u]["right_child"]
    return ptr, ids
