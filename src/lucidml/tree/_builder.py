"""Growing a tree greedily (000 Alg. 9; 002 (5.67)): depth-first, or best-first with a leaf budget.

A node is *evaluated* when it is created: its value and impurity are stored, and unless a
stopping rule holds, its best split is searched, its samples are partitioned into the children
segments, and the split is kept only on a strict decrease of Σ_c W_c I_c (000) that also
meets ``min_impurity_decrease``. *Expanding* a node creates its children (which are evaluated
in turn). Depth-first expansion (a stack, first child first) gives scikit-learn's node order
once renumbered in pre-order; best-first expansion (a max-heap on the weighted impurity
decrease) stops when the next split would exceed ``max_leaf_nodes``.

Gradient boosting grows its trees here too (criterion NEWTON, histogram mode): a node's sums
come from its histogram, a split is kept on a second-order gain above rounding noise, and the
booster values the leaves from their samples (``ensemble/_boosting``).

The tree grows in a ``_store.Store`` indexed by creation order: the node records (what the
fitted tree keeps), the builder's bookkeeping of each node, the node values, and one list of
child segments shared by binary and multiway splits.
"""

from collections import namedtuple

import numpy as np

from ..utils import njit
from ..utils._borrowed import borrowed
from ._criteria import NEWTON, class_counts, class_impurity, regression_stats
from ._hist_partition import partition_hist
from ._histogram import build_histogram, find_split_hist, node_sums, subtract_histogram
from ._max_heap import heap_pop, heap_push
from ._nodes import TREE_LEAF, TREE_UNDEFINED
from ._random import seed_node
from ._sparse_columns import update_positions
from ._splitter import (
    CATEGORICAL_SPLIT,
    NO_SPLIT,
    NodeSums,
    assign_children,
    feature_values,
    find_split_exact,
    partition_rows,
)
from ._store import (
    enlarged,
    found_room,
    grow,
    grow_for_children,
    keep_found,
    list_room,
    mark_known,
    new_store,
    unsplit_unexpanded,
)

# What the builder grows from: exactly one of the two is given, the other is None. Numba drops
# every branch of the mode left out (``if hist is None``), so a fit compiles only its own mode.
# Exact mode: the values in ``table``, X itself (n, d) or X column by column (d, n) when
# ``by_column``; when ``presorted``, ``sidx`` (n_features, m): sample indices sorted by each
# feature; else (``_node_sort``) ``sidx`` (1, m): the node-ordered samples, each drawn feature
# sorted into ``ids[1]`` (``values``: its sorted values) and the best one's order kept in
# ``ids[2]``; ``known[f]`` is 1 while a node is searched if f was found constant in one of its
# ancestors (it is skipped unread: the lists are kept in the store); ``hints[f]`` (d, 2): the two
# values f last took in a node searched, NaN if none (_splitter: tried before gathering). Either way
# ``sidx[0, start:end]`` are the samples of a node, and ``ids[0]`` is the partition's scratch.
# ``values`` is None when ``presorted`` and ``csc`` None unless ``sparse``: a presorted fit compiles
# no node-sorting code, a dense one no sparse code (_splitter.find_split_exact).
# (Few arrays: every call that is not inlined counts each array of its records up and down.)
# Histogram mode: ``binned`` codes (or, for a sparse X, ``sparse``: _sparse_bins.SparseBins, the
# other None), the node-ordered ``samples`` (``all_samples``:
# they are 0 … n − 1 at the root), the bin ``edges`` (flat, ``edge_ptr`` per feature), each
# feature's histogram cells (``cell_ptr``: _binning.cell_pointers), by cell: ``bin_values`` of
# categorical bins, each bin's smallest and largest training value (``bin_lo``, ``bin_hi``:
# thresholds go midway); the histogram column that is zero for an empty bin (``occupancy``, see
# _histogram.gap_threshold) and the pool of histograms kept for subtraction (``free`` lists its
# unused slots).
# A sparse X (``sparse``, node-sorted): its CSC arrays in ``csc`` (_sparse_columns.SparseColumns;
# None for a dense X: four arrays fewer to count on every call), ``table`` (2, n) two scratch columns.
ExactData = namedtuple("ExactData", ["sidx", "table", "by_column", "presorted", "ids", "values", "known", "hints",
                                     "sparse", "csc"])
HistData = namedtuple("HistData", ["binned", "sparse", "samples", "tmp_samples", "edges", "edge_ptr", "cell_ptr",
                                   "bin_values", "bin_lo", "bin_hi", "pool", "scratch", "free", "stats", "gathered",
                                   "occupancy", "all_samples"])

# The target of the fit: class codes or values, weights, the criterion's code and its λ (boosting's
# L2 penalty; 0 for CART), the categorical features' mask and the random state. Gradient boosting
# (criterion NEWTON) has neither codes nor values: its gradients and hessians are in HistData.stats.
Target = namedtuple("Target", ["codes", "y", "weight", "criterion", "is_class", "total_weight", "is_categorical",
                               "state", "l2"])
Rules = namedtuple("Rules", ["max_depth", "min_samples_split", "min_samples_leaf", "min_weight_leaf",
                             "min_impurity_decrease", "max_features", "random_splitter"])
# Scratch of the exact sweeps (per-sample buffers only where the criterion needs them) and of the
# histogram search; the groups of a categorical split are left in ``best_groups``;
# ``feature_lists``: the positions that a node's feature draws swapped, and the count and
# list of the features found constant in the node (``_splitter.find_split_exact``).
ExactWork = namedtuple("ExactWork", ["counts", "y_buffer", "w_buffer", "features", "feature_lists", "groups",
                                     "best_groups", "rank_of", "sorted_y", "fenwick", "abs_errors"])
HistWork = namedtuple("HistWork", ["features", "groups", "best_groups", "left", "right", "bin_to_group", "sums"])
# All scratch of a fit: the node value (``value``), the absolute error's median buffers (None
# otherwise), the exact split's child of each sample, and the scratch of the fit's mode (the other mode's is None).
Work = namedtuple("Work", ["value", "median_y", "median_w", "child_of", "exact", "hist"])

_EPSILON = np.finfo(np.float64).eps
_STRICT = 1e-12  # relative: a "decrease" below this is rounding noise, not an improvement


@njit(inline="always")
def _node_stats(row, start, end, target, work):
    """(impurity, weight, pure) of the samples row[start:end]; the node value is left in ``work.value``.

    A classifier's ``y`` and a regressor's class codes are None: Numba compiles only the branch
    of the fit's own task (tested on the arguments themselves).
    """
    return _task_stats(row, start, end, target.codes, target.y, target, work)


@njit
def _task_stats(row, start, end, yk, y, target, work):
    w, criterion, buf = target.weight, target.criterion, work.value
    if yk is not None:
        total = class_counts(row, start, end, yk, w, buf)
        nonzero = 0
        for c in buf:
            nonzero += c > 0.0
        impurity = class_impurity(buf, total, criterion)
        for k in range(buf.size):
            buf[k] /= total
        return impurity, total, nonzero <= 1
    if y is not None:
        value, impurity, total, constant = regression_stats(row, start, end, y, w, criterion, work.median_y,
                                                            work.median_w)
        buf[0] = value
        return impurity, total, constant
    return 0.0, 0.0, True


@njit
def _may_split(n, depth, rules):
    """Whether a node of n samples at this depth may be split, as far as its size and depth tell."""
    return depth < rules.max_depth and n >= rules.min_samples_split and n >= 2 * rules.min_samples_leaf


@njit
def _class_counts_if_any(row, start, end, yk, w, counts):
    """The node's weighted class counts into ``counts`` (a classifier's; nothing for a regressor)."""
    if yk is not None:
        class_counts(row, start, end, yk, w, counts)


@njit
def _acquire(free, counter):
    if counter[2] == 0:
        return -1
    counter[2] -= 1
    return free[counter[2]]


@njit
def _release(free, counter, slot):
    if slot >= 0:
        free[counter[2]] = slot
        counter[2] += 1


@njit
def _create_node(store, counter, node_tuple, exact, hist, target, rules, work):
    """Create and evaluate one node, ``node_tuple`` = (start, end, depth, histogram slot or −1, parent or −1);
    returns its id.

    Boosting's nodes (criterion NEWTON) get no value here: the booster sets its leaves' values
    from their samples (Newton steps or line searches); a node's weight is its Σh.
    """
    start, end, depth, slot, parent = node_tuple
    boosting = target.criterion == NEWTON

    nid = counter[0]
    counter[0] += 1
    node = store.nodes[nid]
    growth = store.growth[nid]
    # Each mode's branch tests its own argument: Numba drops a branch only on a None-typed test.
    if hist is not None:
        row = hist.samples
    if exact is not None:
        row = exact.sidx[0]
    n = end - start
    sums = work.value  # the histogram's sums of the node (boosting's G and H), in histogram mode
    if boosting:
        impurity, total, pure = 0.0, np.nan, False  # NaN: no weight rule before the histogram
        store.value[nid, 0] = np.nan
    else:
        impurity, total, pure = _node_stats(row, start, end, target, work)
        for k in range(store.value.shape[1]):
            store.value[nid, k] = work.value[k]
    node["left_child"] = TREE_LEAF
    node["right_child"] = TREE_LEAF
    node["feature"] = TREE_UNDEFINED
    node["threshold"] = TREE_UNDEFINED
    node["missing_go_to_left"] = 0
    node["impurity"] = impurity
    node["n_node_samples"] = n
    node["weighted_n_node_samples"] = total
    node["improvement"] = 0.0
    growth["start"] = start
    growth["end"] = end
    growth["depth"] = depth
    growth["kind"] = NO_SPLIT
    growth["children"] = 0
    growth["n_children"] = 0
    growth["slot"] = -1
    growth["parent"] = parent
    growth["n_found"] = 0
    growth["expanded"] = 0
    growth["splittable"] = 0
    if not _may_split(n, depth, rules) or total < 2.0 * rules.min_weight_leaf or pure:
        _leave(hist, counter, slot, node, row, start, end)
        return nid
    seed_node(target.state, nid)

    if hist is not None:
        histogram = hist.scratch
        if slot < 0:
            slot = _acquire(hist.free, counter)
            histogram = hist.scratch if slot < 0 else hist.pool[slot]
            build_histogram(hist.binned, hist.sparse, row, (start, end, hist.all_samples and depth == 0), hist.stats,
                            hist.gathered, histogram, hist.cell_ptr)
        else:
            histogram = hist.pool[slot]
        sums = work.hist.sums
        node_sums(histogram, hist.cell_ptr, sums)
        if boosting:
            total = sums[1]
            node["weighted_n_node_samples"] = total
        split = find_split_hist(histogram, sums, hist, target, rules, work.hist)
    if exact is not None:
        mark_known(store, parent, exact, 1)
        split = _exact_split(exact, row, start, end, total, target, rules, work)
        mark_known(store, parent, exact, 0)
    kind, feature, pos, threshold, missing_left, n_groups, proxy = split
    if kind == NO_SPLIT:
        _release_slot(hist, counter, slot)
        return nid

    if hist is not None:
        sizes = partition_hist(hist, start, end, split, work.hist)
    if exact is not None:
        sizes = assign_children(exact, start, end, split, work.exact.best_groups, work.child_of)
        partition_rows(exact.sidx, start, end, work.child_of, sizes, exact.ids[0])
        if exact.sparse:
            update_positions(exact, start, end)

    decrease = total * impurity
    lo = start
    ptr = counter[1]
    for c in range(sizes.size):
        hi = lo + sizes[c]
        if not boosting:
            child_impurity, child_weight, _ = _node_stats(row, lo, hi, target, work)
            decrease -= child_weight * child_impurity
        store.child_bounds[ptr + c] = lo
        if kind == CATEGORICAL_SPLIT:
            store.child_values[ptr + c] = _category_value(exact, hist, feature, lo, work, c)
        else:
            store.child_values[ptr + c] = np.nan
        lo = hi
    store.child_bounds[ptr + sizes.size] = end
    if boosting:
        # The second-order gain ½[Σ_c G_c²/(H_c + λ) − G²/(H + λ)] (_criteria), kept above rounding noise.
        improvement = 0.5 * (proxy - sums[2] * sums[2] / (sums[1] + target.l2))
        keep = improvement > _STRICT * proxy and improvement + _EPSILON >= rules.min_impurity_decrease
    else:
        # A strict decrease of Σ_c W_c I_c that meets min_impurity_decrease.
        improvement = decrease / target.total_weight
        keep = decrease > _STRICT * total * impurity and improvement + _EPSILON >= rules.min_impurity_decrease
    if not keep:
        _release_slot(hist, counter, slot)
        return nid
    counter[1] += sizes.size + 1
    node["feature"] = feature
    node["threshold"] = threshold
    node["missing_go_to_left"] = missing_left
    node["improvement"] = improvement
    growth["kind"] = kind
    growth["children"] = ptr
    growth["n_children"] = sizes.size
    growth["splittable"] = 1
    growth["slot"] = slot
    if exact is not None:
        if not exact.presorted:
            keep_found(store, counter, growth, work.exact.feature_lists[1])
    return nid


# The small helpers of the node kernel are inlined (inline="always"): every array argument of a
# call that Numba does not inline costs an atomic reference count up and down, and per node these
# added up to a tenth of a tree's fit. (Binding an inlined argument counts too: package docstring.)
@njit(inline="always")
def _exact_split(exact, row, start, end, total, target, rules, work):
    """The best split of an exact-mode node (``_splitter.find_split_exact``)."""
    counts = np.empty(work.value.size)  # the node's class counts; work.exact.counts is the sweep's scratch
    _class_counts_if_any(row, start, end, target.codes, target.weight, counts)
    node = NodeSums(start=start, end=end, counts=counts, total=total, weighted_sum=work.value[0] * total)
    return find_split_exact(exact, exact.values, exact.csc, node, target.codes, target.y, target, rules, work.exact)


@njit(inline="always")
def _leave(hist, counter, slot, node, row, start, end):
    """A node that will not be split: its histogram slot goes back to the pool, and a boosting
    leaf learns its weight (Σh) from its samples, as no histogram gave it."""
    if hist is not None:
        _release(hist.free, counter, slot)
        if node["weighted_n_node_samples"] != node["weighted_n_node_samples"]:  # NaN: boosting, not yet known
            node["weighted_n_node_samples"] = _hessian_sum(hist.stats, row, start, end)


@njit
def _hessian_sum(stats, row, start, end):
    """Σ of the histogram's weight column (Σh for boosting) over the samples row[start:end]."""
    if stats.unit_weight:
        return float(end - start)
    total = 0.0
    for p in range(start, end):
        total += stats.weight[row[p]]
    return total


@njit(inline="always")
def _expand(store, counter, u, exact, hist, target, rules, work):
    """Create the children of node u (histograms by subtraction where a pool slot allows); inlined:
    as a call, its records' arrays were counted up and down once more per node (5% of a build)."""
    ptr = store.growth[u]["children"]
    r = store.growth[u]["n_children"]
    depth = store.growth[u]["depth"] + 1
    slots = np.empty(r, dtype=np.int64)
    for c in range(r):
        slots[c] = -1
    if hist is not None:
        _subtract_into_children(store, counter, u, hist, rules, slots)
    for c in range(r):
        bounds = (store.child_bounds[ptr + c], store.child_bounds[ptr + c + 1], depth, slots[c], u)
        store.child_ids[ptr + c] = _create_node(store, counter, bounds, exact, hist, target, rules, work)
    store.growth[u]["expanded"] = 1
    store.nodes[u]["left_child"] = store.child_ids[ptr]  # a multiway node: its first and last child
    store.nodes[u]["right_child"] = store.child_ids[ptr + r - 1]


@njit
def _subtract_into_children(store, counter, u, hist, rules, slots):
    """The children's histograms: built for all but the largest, which is the parent's minus theirs.

    None at all when no child may be split (the last level of a depth-limited tree).
    """
    growth, ch_bounds = store.growth[u], store.child_bounds
    pool, free = hist.pool, hist.free
    ptr = growth["children"]
    r = growth["n_children"]
    parent_slot = growth["slot"]
    growth["slot"] = -1
    needed = False
    for c in range(r):
        needed = needed or _may_split(ch_bounds[ptr + c + 1] - ch_bounds[ptr + c], growth["depth"] + 1, rules)
    if not needed:
        _release(free, counter, parent_slot)
    elif parent_slot >= 0:
        largest = 0
        for c in range(r):
            if ch_bounds[ptr + c + 1] - ch_bounds[ptr + c] > ch_bounds[ptr + largest + 1] - ch_bounds[ptr + largest]:
                largest = c
        ok = True
        for c in range(r):
            if c != largest:
                slots[c] = _acquire(free, counter)
                ok = ok and slots[c] >= 0
        if ok:
            for c in range(r):
                if c != largest:
                    # identity is False here, but a bare False would compile a second, literal-typed
                    # build_histogram (and everything it calls): pass a computed one.
                    build_histogram(hist.binned, hist.sparse, hist.samples,
                                    (ch_bounds[ptr + c], ch_bounds[ptr + c + 1], r < 0), hist.stats, hist.gathered,
                                    pool[slots[c]], hist.cell_ptr)
                    subtract_histogram(pool[parent_slot], pool[slots[c]])
            slots[largest] = parent_slot
        else:
            for c in range(r):
                _release(free, counter, slots[c])
                slots[c] = -1
            _release(free, counter, parent_slot)


@njit
def _release_slot(hist, counter, slot):
    """Give a node's histogram slot back to the pool (histogram mode only)."""
    if hist is not None:
        _release(hist.free, counter, slot)


@njit
def _category_value(exact, hist, feature, first, work, c):
    """The category of multiway child c: its bin's value, or the value of its first sample."""
    if hist is not None:
        return hist.bin_values[hist.cell_ptr[feature] + work.hist.best_groups[c]]
    if exact is not None:
        return feature_values(exact, feature)[exact.sidx[0, first]]  # any sample of the child has its category
    return np.nan


@njit(interpret_small=True)
def grow_tree(exact, hist, target, rules, work, max_leaf_nodes, n_samples, cancel):
    """Grow the whole tree; returns the fields of its ``_store.Store`` and the node count.

    ``exact`` or ``hist`` is None (see ExactData). Stops early, with a partial tree, when
    ``cancel[0]`` is raised (Ctrl-C; see utils._interrupt).
    """
    # The fit's arrays, borrowed (utils._borrowed): the caller holds them until the tree is grown,
    # and the tree is returned in the store's own arrays, so nothing below counts their references
    # (5% of a regression tree's fit on the Ames table, beside the split search's own borrowing).
    # Passed as arguments, so that Numba still sees which of exact and hist is None.
    return _grow_tree(borrowed(exact), borrowed(hist), borrowed(target), rules, borrowed(work), max_leaf_nodes,
                      n_samples, cancel)


@njit
def _grow_tree(exact, hist, target, rules, work, max_leaf_nodes, n_samples, cancel):
    store = new_store(work.value.size)
    counter = np.zeros(4, dtype=np.int64)  # nodes, child-list entries, free histogram slots, found constants
    if hist is not None:
        counter[2] = hist.free.size  # all histogram slots free
        for s in range(hist.free.size):
            hist.free[s] = s
    multiway = np.bool_(False)  # whether a split may have more than two children (a categorical feature)
    for f in range(target.is_categorical.size):
        multiway = multiway or target.is_categorical[f]
    store = grow(store, counter, np.int64(1), list_room(n_samples, np.int64(1), multiway), found_room(exact, 1))
    # np.int64(...): a bare constant argument would compile a second, literal-typed copy of the
    # node kernel and of everything it calls (a cold start twice as long).
    root = (np.int64(0), np.int64(n_samples), np.int64(0), np.int64(-1), np.int64(-1))
    _create_node(store, counter, root, exact, hist, target, rules, work)
    if max_leaf_nodes < 0:  # depth-first
        # Beside each node on the stack, the length of the constant-feature lists when its parent's
        # children were made: when it is popped, every subtree searched since is finished, and the
        # lists of their nodes are released (kept to the end, a sparse 3,000 × 100,000 X's lists
        # grew with nodes × features: 1.2 GB for a 3.6 MB matrix).
        stack = np.empty(64, dtype=np.int64)
        marks = np.empty(64, dtype=np.int64)
        top = 0
        if store.growth[0]["splittable"]:
            stack[0] = 0
            marks[0] = counter[3]
            top = 1
        while top > 0 and not cancel[0]:
            top -= 1
            u = stack[top]
            counter[3] = marks[top]
            store = grow_for_children(store, counter, u, multiway, exact)
            _expand(store, counter, u, exact, hist, target, rules, work)
            r = store.growth[u]["n_children"]
            if top + r > stack.size:
                stack = enlarged(stack, stack.size + r)
                marks = enlarged(marks, marks.size + r)
            for c in range(r - 1, -1, -1):
                child = store.child_ids[store.growth[u]["children"] + c]
                if store.growth[child]["splittable"]:
                    stack[top] = child
                    marks[top] = counter[3]
                    top += 1
    else:  # best-first: a binary max-heap on the improvement
        heap_val = np.empty(64)
        heap_id = np.empty(64, dtype=np.int64)
        size = np.int64(0)
        if store.growth[0]["splittable"]:
            size = heap_push(heap_val, heap_id, size, store.nodes[0]["improvement"], np.int64(0))
        leaves = 1
        while size > 0 and not cancel[0]:
            u = heap_id[0]
            size = heap_pop(heap_val, heap_id, size)
            r = store.growth[u]["n_children"]
            if leaves + r - 1 > max_leaf_nodes:  # no room for its children: u stays a leaf
                _release_slot(hist, counter, store.growth[u]["slot"])
                store.growth[u]["slot"] = -1
                continue
            leaves += r - 1
            store = grow_for_children(store, counter, u, multiway, exact)
            _expand(store, counter, u, exact, hist, target, rules, work)
            if size + r > heap_val.size:
                heap_val = enlarged(heap_val, 2 * heap_val.size + r)
                heap_id = enlarged(heap_id, 2 * heap_id.size + r)
            for c in range(r):
                child = store.child_ids[store.growth[u]["children"] + c]
                if store.growth[child]["splittable"]:
                    size = heap_push(heap_val, heap_id, size, store.nodes[child]["improvement"], child)
    unsplit_unexpanded(store, counter[0])
    # A plain tuple, not the Store: boxing a namedtuple runs Python code, where a pending Ctrl-C
    # would be raised inside Numba's boxing and crash the process.
    return (store.nodes, store.growth, store.value, store.child_bounds, store.child_values, store.child_ids,
            store.found), counter[0]
