"""The client side of data-parallel boosting: trees grown from histograms summed over the chunks.

The client never sees a sample. It keeps, for every node of the trees being grown, its sums
(count, Σh, −Σg) and, while it may still be split, its summed histogram; the split of a node is
chosen by the tree engine's own search (``_histogram.find_split_hist``, the in-memory booster's)
on that histogram. A round asks the workers for the histograms of the children of every node
that will be (or, best-first, may be) expanded — only the smaller child's: the larger one's is the
parent's minus it — so a depth-limited tree costs one round per level, however many nodes.

Histograms hold (count, Σh, −Σg) (Σh = the count for constant hessians). The first-order
criterion scores splits on (count, count, −Σg) — a least-squares fit to −g, Σw = the count
without sample weights — read off the same histogram, so Newton leaf values −Σg/(Σh + λ) come
from the sums of every leaf without another pass.

Depth-first trees (no leaf budget) expand every node with a split; their nodes are numbered at
the end in the in-memory builder's order (pre-order creation, left child first). Best-first
trees (``max_leaf_nodes``) replay the in-memory heap exactly: the nodes are expanded in the
order of their gains, each round speculatively evaluating the children of the best few open
nodes (as many as leaves may still be added), so that the heap can be replayed as far as
those children reach.
"""

import heapq

import numpy as np

from ..tree._histogram import feature_cells, find_split_hist
from ..tree._nodes import TREE_LEAF, TREE_UNDEFINED, empty_nodes
from ..tree._random import seed_node
from ..tree._splitter import NO_SPLIT
from ..utils._numba import interpreted

__all__ = ["Search", "TreeGrowth"]

_STRICT = 1e-12  # the builder's: a gain below this (relative) is rounding noise
_EPSILON = np.finfo(np.float64).eps
_feature_cells = interpreted(feature_cells)  # a slice: not worth a compiled call from Python


class Search:
    """What the split search needs, shared by all trees of a fit: the engine's HistData of the bins
    (edges, bin value ranges), Rules, Target (λ, random state), HistWork; whether splits are
    scored first-order; the leaf scale ν·(leaf factor)."""

    def __init__(self, data, rules, target, work, first_order, leaf_scale):
        self.data, self.rules, self.target, self.work = data, rules, target, work
        self.first_order, self.leaf_scale = first_order, leaf_scale

    def may_split(self, count, depth):
        rules = self.rules
        return depth < rules.max_depth and count >= rules.min_samples_split and count >= 2 * rules.min_samples_leaf

    def scored(self, hist):
        """The histogram the split is scored on: column 1 = the count for the first-order criterion."""
        if not self.first_order:
            return hist
        scored = hist.copy()
        scored[..., 1] = hist[..., 0]
        return scored


class _Node:
    __slots__ = ("key", "depth", "sums", "hist", "split", "improvement", "children", "ready", "requested")

    def __init__(self, key, depth, sums):
        self.key, self.depth, self.sums = key, depth, sums
        self.hist = self.split = self.children = None
        self.improvement = 0.0
        self.ready = self.requested = False


class TreeGrowth:
    """Tree ``k`` of a stage, grown from summed histograms; ``max_leaf_nodes`` < 0: depth-first."""

    def __init__(self, k, search, max_leaf_nodes):
        self.k, self.search, self.max_leaf_nodes = k, search, max_leaf_nodes
        self.nodes = []
        self.splits = []  # (node, feature, last bin, missing left, left key, right key), sent to the workers
        self.open = []  # best-first: the heap of nodes with a split, (−gain, key)
        self.committed = []  # nodes expanded, in the builder's order of expansion (best-first)
        self.n_leaves = 1
        self.root_key = self._new(0, None).key

    def _new(self, depth, sums):
        node = _Node(len(self.nodes), depth, sums)
        self.nodes.append(node)
        return node

    def set_root(self, hist):
        root = self.nodes[self.root_key]
        root.sums = self._cells(hist, 0).sum(axis=0)
        self._evaluate(root, hist)
        if root.split is not None and self.max_leaf_nodes > 0:
            heapq.heappush(self.open, (-root.improvement, root.key))

    def _cells(self, hist, feature):
        """The feature's part of a histogram: its bins, its missing bin last."""
        return _feature_cells(hist, self.search.data.cell_ptr, feature)

    def _evaluate(self, node, hist):
        """Search the node's best split on its histogram and keep it if it gains (the builder's rule)."""
        search = self.search
        if not search.may_split(node.sums[0], node.depth):
            return
        scored = search.scored(hist)
        sums = self._cells(scored, 0).sum(axis=0)
        seed_node(search.target.state, node.key)
        split = find_split_hist(scored, sums, search.data, search.target, search.rules, search.work)
        kind, feature, last_bin, threshold, missing_left, _, proxy = split
        if kind == NO_SPLIT:
            return
        improvement = 0.5 * (proxy - sums[2] * sums[2] / (sums[1] + search.target.l2))
        if improvement > _STRICT * proxy and improvement + _EPSILON >= search.rules.min_impurity_decrease:
            node.hist, node.improvement = hist, improvement
            node.split = (int(feature), int(last_bin), float(threshold), bool(missing_left))

    def requests(self):
        """The nodes whose children are evaluated this round; returns the keys of the histograms to build."""
        if self.max_leaf_nodes < 0:
            wanted = [u for u in self.nodes if u.split is not None and not u.requested]
        else:
            budget = self.max_leaf_nodes - self.n_leaves
            wanted = [self.nodes[key] for _, key in heapq.nsmallest(budget, self.open)] if budget > 0 else []
            wanted = [u for u in wanted if not u.requested]
        keys, self._plan = [], []
        for u in wanted:
            u.requested = True
            feature, last_bin, _, missing_left = u.split
            h = self._cells(u.hist, feature)
            left_sums = h[:last_bin + 1].sum(axis=0) + (h[-1] if missing_left else 0.0)
            left = self._new(u.depth + 1, left_sums)
            right = self._new(u.depth + 1, u.sums - left_sums)
            u.children = (left.key, right.key)
            self.splits.append((u.key, feature, last_bin, missing_left, left.key, right.key))
            if not any(self.search.may_split(c.sums[0], c.depth) for c in (left, right)):
                u.hist, u.ready = None, True
                continue
            # The builder's choice: the larger child (the left one on a tie) comes by subtraction.
            small = right if left.sums[0] >= right.sums[0] else left
            keys.append(small.key)
            self._plan.append((u, small, left if small is right else right))
        return keys

    def receive(self, hists):
        """The summed histograms of the keys :meth:`requests` gave, in that order."""
        for (u, small, large), hist in zip(self._plan, hists):
            large_hist = u.hist - hist
            u.hist, u.ready = None, True
            self._evaluate(small, hist)
            self._evaluate(large, large_hist)
        self._plan = []

    def replay(self):
        """Best-first: expand open nodes in the order of their gains as long as their children are known
        and leaves may be added; returns whether the tree is finished."""
        if self.max_leaf_nodes < 0:
            return all(u.split is None or u.ready for u in self.nodes)
        while self.open and self.n_leaves < self.max_leaf_nodes:
            u = self.nodes[self.open[0][1]]
            if not u.ready:
                return False
            heapq.heappop(self.open)
            self.committed.append(u.key)
            self.n_leaves += 1
            for c in u.children:
                child = self.nodes[c]
                if child.split is not None:
                    heapq.heappush(self.open, (-child.improvement, c))
        return True

    def finish(self, l2):
        """The tree as the in-memory booster stores it: node records, node values (leaves: the Newton
        step −ν·Σg/(Σh + λ)), the splits made, and each leaf's value by key (for the raw scores)."""
        if self.max_leaf_nodes < 0:
            order = self._preorder()
        else:
            order = [self.root_key]
            for key in self.committed:
                order.extend(self.nodes[key].children)
        expanded = set(self.committed) if self.max_leaf_nodes > 0 else {u.key for u in self.nodes if u.ready}
        new_id = {key: i for i, key in enumerate(order)}
        records = empty_nodes(len(order))
        values = np.zeros(len(order))
        leaf_values = {}
        for key, i in new_id.items():
            node, record = self.nodes[key], records[i]
            count, hessian, neg_gradient = node.sums
            record["n_node_samples"] = int(round(count))
            record["weighted_n_node_samples"] = count if self.search.first_order else hessian
            if key in expanded:
                feature, _, threshold, missing_left = node.split
                record["feature"], record["threshold"] = feature, threshold
                record["missing_go_to_left"], record["improvement"] = missing_left, node.improvement
                record["left_child"], record["right_child"] = (new_id[c] for c in node.children)
            else:
                record["left_child"] = record["right_child"] = TREE_LEAF
                record["feature"], record["threshold"] = TREE_UNDEFINED, TREE_UNDEFINED
                values[i] = 0.0 if hessian + l2 < 1e-150 else self.search.leaf_scale * neg_gradient / (hessian + l2)
                leaf_values[key] = values[i]
        splits = [s for s in self.splits if s[0] in expanded]
        return records, values, splits, leaf_values

    def _preorder(self):
        """Keys in the depth-first builder's creation order: a node's children numbered when it is
        expanded, the left subtree expanded first."""
        order, stack = [self.root_key], [self.root_key]
        while stack:
            u = self.nodes[stack.pop()]
            if u.ready:
                order.extend(u.children)
                stack.extend(c for c in reversed(u.children) if self.nodes[c].ready)
        return order
