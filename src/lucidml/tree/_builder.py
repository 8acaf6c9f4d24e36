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

All node data live in three growable arrays indexed by creation order (integer columns,
float columns, values) plus a list of child segments shared by binary and multiway splits.
"""

from collections import namedtuple

import numpy as np

from ..utils import njit
from ._criteria import NEWTON, class_counts, class_impurity, regression_stats
from ._histogram import build_histogram, find_split_hist, node_sums, partition_hist
from ._random import seed_node
from ._splitter import (
    CATEGORICAL_SPLIT,
    NO_SPLIT,
    assign_children,
    find_split_exact,
    partition_rows,
)

# integer columns of a node
FEATURE, KIND, N_SAMPLES, DEPTH, START, END, MISSING_LEFT, CH_PTR, N_GROUPS, EXPANDED, SLOT, SPLITTABLE = range(12)
N_INT = 12
# float columns of a node
THRESHOLD, IMPURITY, WEIGHT, IMPROVEMENT = range(4)
N_FLOAT = 4

# What the builder grows from: exactly one of the two is given, the other is None. Numba drops
# every branch of the mode left out (``if hist is None``), so a fit compiles only its own mode.
# Exact mode: ``sidx`` (n_features, m) sample indices sorted by each feature, the values read
# from ``X``. Histogram mode: ``binned`` codes, the node-ordered ``samples`` (``all_samples``:
# they are 0 … n − 1 at the root), the bin ``edges`` (flat, ``edge_ptr`` per feature),
# ``bin_values`` of categorical bins, each bin's smallest and largest training value (``bin_lo``,
# ``bin_hi``: thresholds go midway), the histogram column that is zero for an empty bin
# (``occupancy``, see _histogram.gap_threshold) and the pool of histograms kept for subtraction
# (``free`` lists its unused slots).
ExactData = namedtuple("ExactData", ["sidx", "X", "tmp_idx"])
HistData = namedtuple("HistData", ["binned", "samples", "tmp_samples", "edges", "edge_ptr", "n_value_bins",
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
# histogram search; the groups of a categorical split are left in ``best_groups``.
ExactWork = namedtuple("ExactWork", ["counts", "y_buffer", "w_buffer", "features", "groups", "best_groups",
                                     "rank_of", "sorted_y", "fenwick", "abs_errors"])
HistWork = namedtuple("HistWork", ["features", "groups", "best_groups", "left", "right", "bin_to_group", "sums"])
# All scratch of a fit: the node value (``value``), the absolute error's median buffers (None
# otherwise), the exact split's child of each sample, and the two modes' scratch.
Work = namedtuple("Work", ["value", "median_y", "median_w", "child_of", "exact", "hist"])

_EPSILON = np.finfo(np.float64).eps
_STRICT = 1e-12  # relative: a "decrease" below this is rounding noise, not an improvement


@njit
def _node_stats(row, start, end, target, work):
    """(impurity, weight, pure) of the samples row[start:end]; the node value is left in ``work.value``.

    A classifier's ``y`` and a regressor's class codes are None: Numba compiles only the branch
    of the fit's own task (tested on the arguments themselves).
    """
    return _task_stats(row, start, end, target.codes, target.y, target.weight, target.criterion, work)


@njit
def _task_stats(row, start, end, yk, y, w, criterion, work):
    buf = work.value
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
def _grow(store, counter, need_nodes, need_list):
    """Double the node arrays and/or the child list when they cannot hold what comes next."""
    inode, fnode, value, ch_bounds, ch_values, ch_ids = store
    if counter[0] + need_nodes > inode.shape[0]:
        cap = max(2 * inode.shape[0], counter[0] + need_nodes)
        new_i = np.empty((cap, N_INT), dtype=np.int64)
        new_f = np.empty((cap, N_FLOAT))
        new_v = np.empty((cap, value.shape[1]))
        for u in range(counter[0]):
            for k in range(N_INT):
                new_i[u, k] = inode[u, k]
            for k in range(N_FLOAT):
                new_f[u, k] = fnode[u, k]
            for k in range(value.shape[1]):
                new_v[u, k] = value[u, k]
        inode, fnode, value = new_i, new_f, new_v
    if counter[1] + need_list > ch_bounds.size:
        cap = max(2 * ch_bounds.size, counter[1] + need_list)
        new_b = np.empty(cap, dtype=np.int64)
        new_c = np.empty(cap)
        new_d = np.empty(cap, dtype=np.int64)
        for e in range(counter[1]):
            new_b[e] = ch_bounds[e]
            new_c[e] = ch_values[e]
            new_d[e] = ch_ids[e]
        ch_bounds, ch_values, ch_ids = new_b, new_c, new_d
    return inode, fnode, value, ch_bounds, ch_values, ch_ids


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
def _create_node(store, counter, node, exact, hist, target, rules, work):
    """Create and evaluate one node, ``node`` = (start, end, depth, histogram slot or −1); returns its id.

    Boosting's nodes (criterion NEWTON) get no value here: the booster sets its leaves' values
    from their samples (Newton steps or line searches), and a node's weight is its Σh once its
    histogram is known.
    """
    start, end, depth, slot = node
    inode, fnode, value, ch_bounds, ch_values = store[0], store[1], store[2], store[3], store[4]
    boosting = target.criterion == NEWTON

    nid = counter[0]
    counter[0] += 1
    # Each mode's branch tests its own argument: Numba drops a branch only on a None-typed test.
    if hist is not None:
        row = hist.samples
    if exact is not None:
        row = exact.sidx[0]
    n = end - start
    if boosting:
        impurity, total, pure = 0.0, np.nan, False  # NaN: no weight rule before the histogram
        value[nid, 0] = np.nan
    else:
        impurity, total, pure = _node_stats(row, start, end, target, work)
        for k in range(value.shape[1]):
            value[nid, k] = work.value[k]
    inode[nid, FEATURE] = -2
    inode[nid, KIND] = NO_SPLIT
    inode[nid, N_SAMPLES] = n
    inode[nid, DEPTH] = depth
    inode[nid, START] = start
    inode[nid, END] = end
    inode[nid, MISSING_LEFT] = 0
    inode[nid, N_GROUPS] = 0
    inode[nid, EXPANDED] = 0
    inode[nid, SPLITTABLE] = 0
    inode[nid, SLOT] = -1
    fnode[nid, THRESHOLD] = -2.0
    fnode[nid, IMPURITY] = impurity
    fnode[nid, WEIGHT] = total
    fnode[nid, IMPROVEMENT] = 0.0
    if not _may_split(n, depth, rules) or total < 2.0 * rules.min_weight_leaf or pure:
        _release_slot(hist, counter, slot)
        return nid
    seed_node(target.state, nid)

    if hist is not None:
        histogram = hist.scratch
        if slot < 0:
            slot = _acquire(hist.free, counter)
            histogram = hist.scratch if slot < 0 else hist.pool[slot]
            build_histogram(hist.binned, row, start, end, hist.stats, hist.all_samples and depth == 0, hist.gathered,
                            histogram)
        else:
            histogram = hist.pool[slot]
        sums = work.hist.sums
        node_sums(histogram, sums)
        if boosting:
            total = sums[1]
            fnode[nid, WEIGHT] = total
        split = find_split_hist(histogram, sums, hist, target, rules, work.hist)
    if exact is not None:
        node_sum = work.value[0] * total
        counts = np.empty(work.value.size)  # the node's class counts; work.exact.counts is the sweep's scratch
        _class_counts_if_any(row, start, end, target.codes, target.weight, counts)
        split = find_split_exact(exact.sidx, exact.X, start, end, target.codes, target.y, target.weight, counts,
                                 node_sum, total, target.criterion, rules, target.is_categorical, target.state,
                                 work.exact)
    kind, feature, pos, threshold, missing_left, n_groups, proxy = split
    if kind == NO_SPLIT:
        _release_slot(hist, counter, slot)
        return nid

    if hist is not None:
        sizes = partition_hist(hist, start, end, split, work.hist)
    if exact is not None:
        sizes = assign_children(exact.sidx, exact.X, start, end, kind, feature, pos, missing_left, n_groups,
                                work.exact.best_groups, work.child_of)
        partition_rows(exact.sidx, start, end, work.child_of, sizes, exact.tmp_idx)

    decrease = total * impurity
    lo = start
    ptr = counter[1]
    for c in range(sizes.size):
        hi = lo + sizes[c]
        if not boosting:
            child_impurity, child_weight, _ = _node_stats(row, lo, hi, target, work)
            decrease -= child_weight * child_impurity
        ch_bounds[ptr + c] = lo
        if kind == CATEGORICAL_SPLIT:
            ch_values[ptr + c] = _category_value(exact, hist, feature, lo, work.hist.best_groups[c])
        else:
            ch_values[ptr + c] = np.nan
        lo = hi
    ch_bounds[ptr + sizes.size] = end
    if boosting:
        # The second-order gain ½[Σ_c G_c²/(H_c + λ) − G²/(H + λ)] (_criteria), kept above rounding noise.
        sums = work.hist.sums
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
    inode[nid, FEATURE] = feature
    inode[nid, KIND] = kind
    inode[nid, MISSING_LEFT] = missing_left
    inode[nid, CH_PTR] = ptr
    inode[nid, N_GROUPS] = sizes.size
    inode[nid, SPLITTABLE] = 1
    inode[nid, SLOT] = slot
    fnode[nid, THRESHOLD] = threshold
    fnode[nid, IMPROVEMENT] = improvement
    return nid


@njit
def _expand(store, counter, u, exact, hist, target, rules, work):
    """Create the children of node u (histograms by subtraction where a pool slot allows)."""
    inode = store[0]
    ch_bounds, ch_ids = store[3], store[5]
    ptr = inode[u, CH_PTR]
    r = inode[u, N_GROUPS]
    depth = inode[u, DEPTH] + 1
    slots = np.empty(r, dtype=np.int64)
    for c in range(r):
        slots[c] = -1
    if hist is not None:
        _subtract_into_children(store, counter, u, hist, rules, slots)
    for c in range(r):
        ch_ids[ptr + c] = _create_node(store, counter, (ch_bounds[ptr + c], ch_bounds[ptr + c + 1], depth, slots[c]),
                                       exact, hist, target, rules, work)
    inode[u, EXPANDED] = 1


@njit
def _subtract_into_children(store, counter, u, hist, rules, slots):
    """The children's histograms: built for all but the largest, which is the parent's minus theirs.

    None at all when no child may be split (the last level of a depth-limited tree).
    """
    inode, ch_bounds = store[0], store[3]
    pool, free = hist.pool, hist.free
    ptr = inode[u, CH_PTR]
    r = inode[u, N_GROUPS]
    parent_slot = inode[u, SLOT]
    inode[u, SLOT] = -1
    needed = False
    for c in range(r):
        needed = needed or _may_split(ch_bounds[ptr + c + 1] - ch_bounds[ptr + c], inode[u, DEPTH] + 1, rules)
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
                    build_histogram(hist.binned, hist.samples, ch_bounds[ptr + c], ch_bounds[ptr + c + 1], hist.stats,
                                    r < 0, hist.gathered, pool[slots[c]])
                    _subtract(pool[parent_slot], pool[slots[c]])
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
def _category_value(exact, hist, feature, first, group_bin):
    """The category of a multiway child: its bin's value, or the value of its first sample."""
    if hist is not None:
        return hist.bin_values[feature, group_bin]
    if exact is not None:
        return exact.X[exact.sidx[feature, first], feature]
    return np.nan


@njit(interpret_small=True)
def grow_tree(exact, hist, target, rules, work, max_leaf_nodes, n_samples, cancel):
    """Grow the whole tree; returns the store (trimmed to the nodes made) and the node count.

    ``exact`` or ``hist`` is None (see ExactData). Stops early, with a partial tree, when
    ``cancel[0]`` is raised (Ctrl-C; see utils._interrupt).
    """
    n_values = work.value.size
    cap = 64
    store = (np.empty((cap, N_INT), dtype=np.int64), np.empty((cap, N_FLOAT)), np.empty((cap, n_values)),
             np.empty(4 * cap, dtype=np.int64), np.empty(4 * cap), np.empty(4 * cap, dtype=np.int64))
    counter = np.zeros(3, dtype=np.int64)
    if hist is not None:
        counter[2] = hist.free.size  # all histogram slots free
        for s in range(hist.free.size):
            hist.free[s] = s
    store = _grow(store, counter, np.int64(1), n_samples + 2)
    # np.int64(...): a bare constant argument would compile a second, literal-typed copy of the
    # node kernel and of everything it calls (a cold start twice as long).
    root = (np.int64(0), np.int64(n_samples), np.int64(0), np.int64(-1))
    _create_node(store, counter, root, exact, hist, target, rules, work)
    if max_leaf_nodes < 0:  # depth-first
        stack = np.empty(64, dtype=np.int64)
        top = 0
        if store[0][0, SPLITTABLE]:
            stack[0] = 0
            top = 1
        while top > 0 and not cancel[0]:
            top -= 1
            u = stack[top]
            r = store[0][u, N_GROUPS]
            store = _grow(store, counter, r, store[0][u, END] - store[0][u, START] + 2 * r + 2)
            _expand(store, counter, u, exact, hist, target, rules, work)
            if top + r > stack.size:
                stack = _enlarged(stack, stack.size + r)
            ptr = store[0][u, CH_PTR]
            for c in range(r - 1, -1, -1):
                child = store[5][ptr + c]
                if store[0][child, SPLITTABLE]:
                    stack[top] = child
                    top += 1
    else:  # best-first: a binary max-heap on the improvement
        heap_val = np.empty(64)
        heap_id = np.empty(64, dtype=np.int64)
        size = 0
        if store[0][0, SPLITTABLE]:
            size = _heap_push(heap_val, heap_id, size, store[1][0, IMPROVEMENT], np.int64(0))
        leaves = 1
        while size > 0 and not cancel[0]:
            u = heap_id[0]
            size = _heap_pop(heap_val, heap_id, size)
            r = store[0][u, N_GROUPS]
            if leaves + r - 1 > max_leaf_nodes:
                _release_slot(hist, counter, store[0][u, SLOT])
                store[0][u, SLOT] = -1
                continue
            leaves += r - 1
            store = _grow(store, counter, r, store[0][u, END] - store[0][u, START] + 2 * r + 2)
            _expand(store, counter, u, exact, hist, target, rules, work)
            if size + r > heap_val.size:
                heap_val = _enlarged(heap_val, 2 * heap_val.size + r)
                heap_id = _enlarged(heap_id, 2 * heap_id.size + r)
            ptr = store[0][u, CH_PTR]
            for c in range(r):
                child = store[5][ptr + c]
                if store[0][child, SPLITTABLE]:
                    size = _heap_push(heap_val, heap_id, size, store[1][child, IMPROVEMENT], child)
    return store, counter[0]


@njit
def _enlarged(a, size):
    """A copy of ``a`` with room for ``size`` entries (a loop: np.concatenate compiles slowly)."""
    bigger = np.empty(size, dtype=a.dtype)
    for k in range(a.size):
        bigger[k] = a[k]
    return bigger


@njit
def _subtract(a, b):
    """a −= b for two histograms (parent minus a child)."""
    for f in range(a.shape[0]):
        for k in range(a.shape[1]):
            for s in range(a.shape[2]):
                a[f, k, s] -= b[f, k, s]


@njit
def _heap_push(val, ids, size, v, i):
    k = size
    val[k] = v
    ids[k] = i
    while k > 0:
        parent = (k - 1) // 2
        if val[parent] >= val[k]:
            break
        val[parent], val[k] = val[k], val[parent]
        ids[parent], ids[k] = ids[k], ids[parent]
        k = parent
    return size + 1


@njit
def _heap_pop(val, ids, size):
    size -= 1
    val[0] = val[size]
    ids[0] = ids[size]
    k = 0
    while True:
        left = 2 * k + 1
        if left >= size:
            break
        c = left
        if left + 1 < size and val[left + 1] > val[left]:
            c = left + 1
        if val[k] >= val[c]:
            break
        val[k], val[c] = val[c], val[k]
        ids[k], ids[c] = ids[c], ids[k]
        k = c
    return size
