"""The fitted tree as parallel node arrays, in scikit-learn's ``tree_`` layout (walked by ``_traversal``).

Node ``u`` tests ``x[feature[u]] <= threshold[u]`` and goes to ``children_left[u]`` (true) or
``children_right[u]``; NaN goes left iff ``missing_go_to_left[u]``. A leaf has both children
``TREE_LEAF = -1`` and ``feature = threshold = TREE_UNDEFINED = -2``. ``value[u, 0]`` holds the
weighted class fractions (classification) or the mean/median (regression).

Multiway categorical nodes (004 §12) extend the layout: their children are listed in CSR form,
``category_children[category_ptr[u]:category_ptr[u + 1]]`` beside the matching
``category_values``; ``threshold[u]`` is NaN and ``children_left[u]``/``children_right[u]`` are
the first and last child. A value never seen at that node stops the descent there, so the
sample gets the node's own value (its majority class, smallest label on ties).
"""

import numpy as np
import scipy.sparse

from ..utils import njit
from ._builder import (
    CH_PTR,
    DEPTH,
    END,
    EXPANDED,
    FEATURE,
    IMPROVEMENT,
    IMPURITY,
    KIND,
    MISSING_LEFT,
    N_GROUPS,
    N_SAMPLES,
    START,
    THRESHOLD,
    WEIGHT,
)
from ._splitter import CATEGORICAL_SPLIT
from ._traversal import Categories, Splits, apply_parallel, apply_rows, decision_paths

TREE_LEAF = -1
TREE_UNDEFINED = -2

# The fewest rows worth a parallel walk (1,250 rows through a 1,083-node tree: 41 µs serial,
# 61 µs with the threads woken).
_PARALLEL_MIN_ROWS = 4096


class Tree:
    """Node arrays of a fitted tree (see the module docstring for the layout)."""

    def __init__(self, n_features, n_classes, arrays):
        self.n_features = n_features
        self.n_classes = np.atleast_1d(np.asarray(n_classes, dtype=np.intp))
        self.n_outputs = 1
        self.max_n_classes = int(self.n_classes.max())
        (self.children_left, self.children_right, self.feature, self.threshold, self.impurity,
         self.n_node_samples, self.weighted_n_node_samples, self.value, self.missing_go_to_left,
         self.category_ptr, self.category_values, self.category_children, depth) = arrays
        self.node_count = self.children_left.size
        self.capacity = self.node_count
        self.max_depth = int(depth.max()) if self.node_count else 0  # the per-node depths are not kept

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
        return np.array([self.children_left[node], self.children_right[node]])

    def children_csr(self):
        """All child lists at once: children of u are ``ids[ptr[u]:ptr[u + 1]]``."""
        return _children_csr(self.children_left, self.children_right, self.category_ptr, self.category_children)

    def splits(self):
        """The node arrays a walk down the tree reads (see ``_traversal``)."""
        return Splits(self.feature, self.threshold, self.children_left, self.children_right, self.missing_go_to_left)

    def categories(self):
        """The multiway nodes' value and child lists (see ``_traversal``)."""
        return Categories(self.category_ptr, self.category_values, self.category_children, self.has_categories)

    def apply(self, X):
        """Index of the node each row of X ends in (a leaf, or a categorical node for an unseen value)."""
        out = np.empty(X.shape[0], dtype=np.intp)
        if X.shape[0] >= _PARALLEL_MIN_ROWS:
            apply_parallel(X, self.splits(), self.categories(), out)
        else:  # waking the threads costs more than it saves below a few blocks of rows
            apply_rows(X, 0, X.shape[0], self.splits(), self.categories(), out)
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
        indptr, indices = decision_paths(X, self.splits(), self.categories(), self.max_depth + 1)
        data = np.ones(indices.size, dtype=np.intp)
        return scipy.sparse.csr_matrix((data, indices, indptr), shape=(X.shape[0], self.node_count))

    def compute_feature_importances(self, normalize=True):
        """Σ over the splits on a feature of W_u I_u − Σ_children W_c I_c, over W_root (then summing to 1)."""
        ptr, ids = self.children_csr()
        weighted = self.weighted_n_node_samples * self.impurity
        importances = np.zeros(self.n_features)
        for u in np.flatnonzero(self.children_left != TREE_LEAF):
            importances[self.feature[u]] += weighted[u] - weighted[ids[ptr[u]:ptr[u + 1]]].sum()
        importances /= self.weighted_n_node_samples[0]
        if normalize and importances.sum() > 0:
            importances /= importances.sum()
        return importances


def tree_from_store(store, node_count, n_features, n_classes, preorder):
    """The final :class:`Tree` from the builder's creation-order store (pre-order ids if asked)."""
    inode, fnode, value, ch_values, ch_ids = store[0], store[1], store[2], store[4], store[5]
    arrays = _assemble(inode[:node_count], fnode[:node_count], value[:node_count], ch_values, ch_ids, preorder)
    arrays = arrays[:7] + (arrays[7].reshape(node_count, 1, -1),) + arrays[8:13]
    return Tree(n_features, n_classes, arrays)


def node_arrays(store, node_count):
    """The builder's binary tree in creation order as named arrays (boosting's trees): ``left``,
    ``right``, ``feature``, ``threshold``, ``missing_go_left``, ``gain`` (the split's improvement),
    ``n_samples``, and each node's sample range ``start``:``stop`` in the builder's sample order."""
    inode, fnode, value, ch_values, ch_ids = store[0], store[1], store[2], store[4], store[5]
    arrays = _assemble(inode[:node_count], fnode[:node_count], value[:node_count], ch_values, ch_ids, False)
    names = ("left", "right", "feature", "threshold", "impurity", "n_samples", "weight", "value", "missing_go_left")
    out = dict(zip(names, arrays))
    out["gain"] = arrays[13]
    out["start"], out["stop"] = inode[:node_count, START], inode[:node_count, END]
    return out


@njit(interpret_small=True)
def _assemble(inode, fnode, value, ch_values, ch_ids, preorder):
    n = inode.shape[0]
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
            if inode[u, EXPANDED]:
                ptr = inode[u, CH_PTR]
                for c in range(inode[u, N_GROUPS] - 1, -1, -1):
                    stack[top] = ch_ids[ptr + c]
                    top += 1
    left = np.full(n, -1, dtype=np.intp)
    right = np.full(n, -1, dtype=np.intp)
    feature = np.full(n, -2, dtype=np.intp)
    threshold = np.full(n, -2.0)
    impurity = np.empty(n)
    n_samples = np.empty(n, dtype=np.intp)
    weight = np.empty(n)
    values = np.empty_like(value)
    missing_left = np.zeros(n, dtype=np.uint8)
    depth = np.empty(n, dtype=np.intp)
    gain = np.zeros(n)
    cat_count = np.zeros(n + 1, dtype=np.intp)
    for u in range(n):
        if inode[u, EXPANDED] and inode[u, KIND] == CATEGORICAL_SPLIT:
            cat_count[new_id[u] + 1] = inode[u, N_GROUPS]
    cat_ptr = np.cumsum(cat_count)
    cat_values = np.empty(cat_ptr[n])
    cat_children = np.empty(cat_ptr[n], dtype=np.intp)
    for u in range(n):
        v = new_id[u]
        impurity[v] = fnode[u, IMPURITY]
        n_samples[v] = inode[u, N_SAMPLES]
        weight[v] = fnode[u, WEIGHT]
        for k in range(value.shape[1]):
            values[v, k] = value[u, k]
        depth[v] = inode[u, DEPTH]
        if not inode[u, EXPANDED]:
            continue
        gain[v] = fnode[u, IMPROVEMENT]
        ptr = inode[u, CH_PTR]
        r = inode[u, N_GROUPS]
        feature[v] = inode[u, FEATURE]
        threshold[v] = fnode[u, THRESHOLD]
        missing_left[v] = inode[u, MISSING_LEFT]
        left[v] = new_id[ch_ids[ptr]]
        right[v] = new_id[ch_ids[ptr + r - 1]]
        if inode[u, KIND] == CATEGORICAL_SPLIT:
            for c in range(r):
                cat_values[cat_ptr[v] + c] = ch_values[ptr + c]
                cat_children[cat_ptr[v] + c] = new_id[ch_ids[ptr + c]]
    return (left, right, feature, threshold, impurity, n_samples, weight, values, missing_left, cat_ptr, cat_values,
            cat_children, depth, gain)


@njit(interpret_small=True)
def _children_csr(left, right, cat_ptr, cat_children):
    n = left.size
    ptr = np.zeros(n + 1, dtype=np.intp)
    for u in range(n):
        r = cat_ptr[u + 1] - cat_ptr[u]
        ptr[u + 1] = ptr[u] + (r if r > 0 else (0 if left[u] == -1 else 2))
    ids = np.empty(ptr[n], dtype=np.intp)
    for u in range(n):
        r = cat_ptr[u + 1] - cat_ptr[u]
        if r > 0:
            for c in range(r):
                ids[ptr[u] + c] = cat_children[cat_ptr[u] + c]
        elif left[u] != -1:
            ids[ptr[u]] = left[u]
            ids[ptr[u] + 1] = right[u]
    return ptr, ids
