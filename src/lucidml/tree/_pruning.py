"""Post-pruning, both forms of the notes.

(a) Cost-complexity (000 §7.6): C_α(T) = Σ_leaves W_k Q_k / W + α |T|. Weakest-link pruning
(Breiman et al. 1984) repeatedly collapses the internal node t with the smallest

    g(t) = (R(t) − R(T_t)) / (|T_t| − 1),    R(t) = W_t I_t / W_root,

where T_t is the branch below t and |T_t| its number of leaves; the successive minima are the
α path (``cost_complexity_pruning_path``) and ``ccp_alpha`` keeps pruning while g(t) ≤ α.
The loop follows scikit-learn's (one node per step, first minimum in node order), so the
paths agree; multiway nodes fit the same formula.

(b) Error pruning (004 §12): C(T) = Error(T) + λ·#leaves, Error the training mistakes. Going
bottom-up over nodes whose children are all leaves, a node is collapsed iff that makes C drop
strictly, i.e. iff Error(t) − Σ_children Error(c) < λ(#children − 1); ties keep the split.
Children carry larger ids than their parent in both growth orders, so one pass over the ids in
decreasing order reaches the stable tree.
"""

import numpy as np

from ..utils import njit
from ._nodes import TREE_LEAF, TREE_UNDEFINED
from ._tree import Tree


@njit
def _weakest_link(ptr, ids, r_node, alpha, record):
    """Leaves of the pruned tree (mask) and, when ``record``, the α path and subtree impurities."""
    n = ptr.size - 1
    parent = np.full(n, -1, dtype=np.intp)
    for u in range(n):
        for e in range(ptr[u], ptr[u + 1]):
            parent[ids[e]] = u
    is_leaf = np.zeros(n, dtype=np.bool_)
    n_leaves = np.zeros(n, dtype=np.intp)
    r_branch = np.zeros(n)
    for u in range(n):
        if ptr[u + 1] == ptr[u]:
            is_leaf[u] = True
            r_branch[u] = r_node[u]
            v = u
            while v != 0:
                v = parent[v]
                r_branch[v] += r_node[u]
                n_leaves[v] += 1
    candidate = ~is_leaf
    in_tree = np.ones(n, dtype=np.bool_)
    alphas = np.empty(n)
    impurities = np.empty(n)
    count = 0
    alphas[0] = 0.0
    impurities[0] = r_branch[0]
    count = 1
    stack = np.empty(n, dtype=np.intp)
    while candidate[0]:
        best = np.finfo(np.float64).max
        t = -1
        for u in range(n):
            if candidate[u]:
                g = (r_node[u] - r_branch[u]) / (n_leaves[u] - 1)
                if g < best:
                    best = g
                    t = u
        if not record and alpha < best:
            break
        top = 1
        stack[0] = t
        while top > 0:  # drop the branch below t
            top -= 1
            u = stack[top]
            if not in_tree[u]:
                continue
            candidate[u] = False
            is_leaf[u] = False
            in_tree[u] = False
            for e in range(ptr[u], ptr[u + 1]):
                stack[top] = ids[e]
                top += 1
        is_leaf[t] = True
        in_tree[t] = True
        removed = n_leaves[t] - 1
        n_leaves[t] = 0
        diff = r_node[t] - r_branch[t]
        r_branch[t] = r_node[t]
        v = parent[t]
        while v != -1:
            n_leaves[v] -= removed
            r_branch[v] += diff
            v = parent[v]
        alphas[count] = best
        impurities[count] = r_branch[0]
        count += 1
    return is_leaf, alphas[:count], impurities[:count]


def _r_node(tree):
    return tree.weighted_n_node_samples * tree.impurity / tree.weighted_n_node_samples[0]


def ccp_path(tree):
    """(ccp_alphas, impurities): effective α of each pruning step and the total leaf impurity."""
    ptr, ids = tree.children_csr()
    _, alphas, impurities = _weakest_link(ptr, ids, _r_node(tree), 0.0, True)
    return alphas, impurities


def prune_ccp(tree, alpha):
    """The subtree kept by weakest-link pruning at complexity ``alpha``."""
    ptr, ids = tree.children_csr()
    is_leaf, _, _ = _weakest_link(ptr, ids, _r_node(tree), alpha, False)
    return rebuild(tree, is_leaf)


def node_errors(tree, is_classifier):
    """Training error of every node if it were a leaf: weighted mistakes (classes) or W·impurity."""
    w = tree.weighted_n_node_samples
    if is_classifier:
        return w * (1.0 - tree.value[:, 0, :].max(axis=1))
    return w * tree.impurity


def prune_error(tree, lam, is_classifier):
    """004 §12's bottom-up pruning of C(T) = Error(T) + λ·#leaves."""
    ptr, ids = tree.children_csr()
    error = node_errors(tree, is_classifier)
    is_leaf = tree.children_left == TREE_LEAF
    branch_error = np.where(is_leaf, error, 0.0)  # Error of the (current) branch below each node
    for u in range(tree.node_count - 1, -1, -1):
        if is_leaf[u]:
            continue
        children = ids[ptr[u]:ptr[u + 1]]
        branch_error[u] = branch_error[children].sum()
        # Errors come back from stored fractions (p_k·W), so a tie may be off by rounding.
        slack = 1e-9 * max(1.0, tree.weighted_n_node_samples[u])
        if is_leaf[children].all() and error[u] - branch_error[u] < lam * (children.size - 1) - slack:
            is_leaf[u] = True
            branch_error[u] = error[u]
    return rebuild(tree, is_leaf)


def rebuild(tree, keep_leaf):
    """A new :class:`Tree` whose leaves are the nodes marked in ``keep_leaf`` (pre-order ids)."""
    order, depth = [], []
    stack = [(0, 0)]
    while stack:
        u, d = stack.pop()
        order.append(u)
        depth.append(d)
        if not keep_leaf[u]:
            stack.extend((child, d + 1) for child in tree.children(u)[::-1].tolist())
    order = np.asarray(order, dtype=np.intp)
    new_id = np.full(tree.node_count, -1, dtype=np.intp)
    new_id[order] = np.arange(order.size)
    leaf = keep_leaf[order] | (tree.children_left[order] == TREE_LEAF)
    nodes = tree.nodes[order]
    nodes["left_child"] = np.where(leaf, TREE_LEAF, new_id[nodes["left_child"]])
    nodes["right_child"] = np.where(leaf, TREE_LEAF, new_id[nodes["right_child"]])
    for name, at_leaf in (("feature", TREE_UNDEFINED), ("threshold", TREE_UNDEFINED), ("missing_go_to_left", 0),
                          ("improvement", 0.0)):
        nodes[name] = np.where(leaf, at_leaf, nodes[name])
    counts = np.zeros(order.size + 1, dtype=np.intp)
    values, children = [], []
    for k, u in enumerate(order):
        lo, hi = tree.category_ptr[u], tree.category_ptr[u + 1]
        if not leaf[k] and hi > lo:
            counts[k + 1] = hi - lo
            values.append(tree.category_values[lo:hi])
            children.append(new_id[tree.category_children[lo:hi]])
    categories = None
    if values:
        categories = (np.cumsum(counts), np.concatenate(values), np.concatenate(children).astype(np.intp))
    return Tree(tree.n_features, tree.n_classes, nodes, tree.value[order], max(depth), categories)
