"""Histograms of binned features, for every histogram tree, and the CART histogram split search.

Features are binned once per fit (``_binning``: at most k bins, NaN in its own last bin). A
node's histogram holds, per feature and bin, the sample count and the weighted class counts
(classification) or the weight and Σ wᵢyᵢ (squared error; gradient boosting: Σh and −Σg). The
split search then scans bins, not samples, and a parent's histogram minus its smaller
children's histograms gives the largest child's histogram without touching its samples
("histogram subtraction").
"""

from collections import namedtuple

import numpy as np
from numba import prange

from ..utils import njit
from ._criteria import class_proxy
from ._random import rand_int
from ._splitter import CATEGORICAL_SPLIT, MIN_CHILD_SHARE, NO_SPLIT, THRESHOLD_SPLIT

# What each sample adds to a histogram bin (see build_histogram); one record for every tree model.
#   classes:       weight[i] into column 1 + code[i]                 (CART classification)
#   otherwise:     weight[i] into column 1, target[i] into column 2  (CART regression: w, w·y;
#                                                                     boosting: h, −g)
# ``unit_weight``: every weight is 1, so column 1 is the count (weight is not read; not with classes).
SampleStats = namedtuple("SampleStats", ["code", "weight", "target", "classes", "unit_weight"])


# Below this many (sample, feature) pairs a node's histogram is built on one thread: waking the
# others costs more than it saves (deep trees have thousands of small nodes).
PARALLEL_MIN_ENTRIES = 200_000


@njit
def build_histogram(binned, samples, start, end, stats, identity, gathered, hist):
    """hist[f, b] = (count, Σ weight or Σ weight per class[, Σ target]) of samples[start:end] in bin b of f.

    The node's weights and targets are first gathered into node order (``gathered``: two float
    buffers and an int32 buffer of at least end − start entries), so that each feature's pass
    reads them contiguously; features go to the threads on large nodes. ``identity``:
    samples[start:end] is 0 … n − 1 (a root without subsampling), read without the index.
    """
    m = end - start
    weight_ord, target_ord, code_ord = gathered
    for k in range(m):
        i = k if identity else samples[start + k]
        if not stats.unit_weight:
            weight_ord[k] = stats.weight[i]
        if stats.classes:
            code_ord[k] = stats.code[i]
        else:
            target_ord[k] = stats.target[i]
    if m * binned.shape[1] < PARALLEL_MIN_ENTRIES:
        for f in range(binned.shape[1]):
            _feature_histogram(binned[:, f], samples, start, m, stats, identity, gathered, hist[f])
    else:
        _features_in_parallel(binned, samples, start, m, stats, identity, gathered, hist)


@njit(parallel=True)
def _features_in_parallel(binned, samples, start, m, stats, identity, gathered, hist):
    for f in prange(binned.shape[1]):
        _feature_histogram(binned[:, f], samples, start, m, stats, identity, gathered, hist[f])


@njit
def _feature_histogram(column, samples, start, m, stats, identity, gathered, h):
    """One feature's histogram h[b] from the gathered weights and targets."""
    h[:] = 0.0
    if identity:
        _accumulate(column, column, True, m, stats, gathered, h)
    else:
        _accumulate(column, samples[start:start + m], False, m, stats, gathered, h)
    if stats.unit_weight and not stats.classes:
        for b in range(h.shape[0]):
            h[b, 1] = h[b, 0]


@njit
def _accumulate(column, rows, identity, m, stats, gathered, h):
    """h[bin of the k-th sample] += its count, weight(s) and target, the sample being rows[k]
    (k itself with ``identity``): one loop per case, so that the hot loop tests only its data."""
    weight_ord, target_ord, code_ord = gathered
    if stats.classes:
        for k in range(m):
            b = column[k if identity else rows[k]]
            h[b, 0] += 1.0
            h[b, 1 + code_ord[k]] += weight_ord[k]
    elif stats.unit_weight:
        for k in range(m):
            b = column[k if identity else rows[k]]
            h[b, 0] += 1.0
            h[b, 2] += target_ord[k]
    else:
        for k in range(m):
            b = column[k if identity else rows[k]]
            h[b, 0] += 1.0
            h[b, 1] += weight_ord[k]
            h[b, 2] += target_ord[k]


@njit
def gap_threshold(hist_j, occupancy, b, n_bins_j, edges_j, lo_j, hi_j):
    """The raw-value threshold of the split "bin ≤ b", centred in the node's gap.

    Every threshold between the node's largest value on the left (in bin ``left``) and its
    smallest on the right (bin ``right``) splits the node's samples alike, and the bins between
    them are empty in this node. The midpoint of those two values is what an exact tree (and
    scikit-learn) uses; the global edge after bin b would sit against the left value and send
    unseen values between them right. ``lo_j``/``hi_j`` are each bin's smallest and largest
    training value. No present value on the right: +∞ (only missing values go right).
    ``occupancy`` is the histogram column that is zero exactly for a bin without samples: the
    count (0), or Σw (1) when zero-weight samples are to count as absent.
    """
    right = b + 1
    while right < n_bins_j and hist_j[right, occupancy] == 0.0:
        right += 1
    if right >= n_bins_j:
        return np.inf
    left = b
    while left >= 0 and hist_j[left, occupancy] == 0.0:
        left -= 1
    if left < 0:  # only missing values go left: keep the bin edge
        return edges_j[b]
    t = 0.5 * hi_j[left] + 0.5 * lo_j[right]
    return t if t < lo_j[right] else hi_j[left]  # adjacent floats: the midpoint rounds up


@njit
def _proxy(stats, is_class, criterion):
    """Proxy term of one child from its accumulated histogram row (count, stats...)."""
    if is_class:
        total = 0.0
        for k in range(1, stats.size):
            total += stats[k]
        return class_proxy(stats[1:], total, criterion), total
    if stats[1] <= 0.0:
        return 0.0, 0.0
    return stats[2] * stats[2] / stats[1], stats[1]


@njit
def find_split_hist(hist, node_stats, data, is_cat, is_class, criterion, rules, state, work):
    """Best split of a node from its histogram ``hist`` (n_features, n_bins + 1, n_stats).

    Returns (kind, feature, last left bin, threshold, missing_left, n_groups, proxy); the bins
    of the groups of a categorical split are left in ``work.best_groups``.
    """
    msl, max_features, random_splitter = rules.min_samples_leaf, rules.max_features, rules.random_splitter
    features, grp_cur, grp_best, left, right = work.features, work.groups, work.best_groups, work.left, work.right
    n_features = hist.shape[0]
    missing_bin = hist.shape[1] - 1
    n_node = node_stats[0]
    node_weight = 0.0
    if is_class:
        for s in range(1, node_stats.size):
            node_weight += node_stats[s]
    else:
        node_weight = node_stats[1]
    mwl = max(rules.min_weight_leaf, MIN_CHILD_SHARE * node_weight)  # never score a child of rounding-noise weight
    for f in range(n_features):
        features[f] = f
    best = -np.inf
    best_kind, best_feature, best_bin, best_threshold, best_ml, best_groups = NO_SPLIT, -1, -1, np.nan, False, 0
    visited = 0
    for f_i in range(n_features):
        if visited >= max_features:
            break
        j = rand_int(state, f_i, n_features)
        f = features[j]
        features[j] = features[f_i]
        features[f_i] = f
        h = hist[f]
        nb = data.n_value_bins[f]
        lo = -1
        hi = -1
        for b in range(nb):
            if h[b, 0] > 0:
                hi = b
                if lo < 0:
                    lo = b
        n_miss = h[missing_bin, 0]
        if lo < 0 or (lo == hi and n_miss == 0):
            continue  # constant in this node
        visited += 1

        if is_cat[f]:
            n_groups = 0
            proxy = 0.0
            ok = True
            for b in range(missing_bin + 1):
                if h[b, 0] > 0:
                    pg, wg = _proxy(h[b], is_class, criterion)
                    ok = ok and h[b, 0] >= msl and wg >= mwl
                    proxy += pg
                    grp_cur[n_groups] = b
                    n_groups += 1
            if ok and n_groups >= 2 and proxy > best:
                best, best_kind, best_feature, best_groups = proxy, CATEGORICAL_SPLIT, f, n_groups
                best_threshold = np.nan
                for g in range(n_groups):
                    grp_best[g] = grp_cur[g]
            continue

        first_b = lo
        last_b = hi - 1 if n_miss == 0 else hi  # with NaN, "all values left" is a candidate
        if random_splitter:
            first_b = rand_int(state, lo, hi) if hi > lo else hi
            last_b = first_b
        for missing_left in (False, True):
            if missing_left and (n_miss == 0 or random_splitter):
                break
            ml = missing_left
            if random_splitter and n_miss > 0:
                ml = rand_int(state, 0, 2) == 1
            for s in range(left.size):
                left[s] = h[missing_bin, s] if ml else 0.0
            for b in range(lo, last_b + 1):
                if h[b, 0] > 0:
                    for s in range(left.size):
                        left[s] += h[b, s]
                elif not random_splitter:
                    continue
                if b < first_b:
                    continue
                if ml and b == hi:
                    break  # everything left
                n_left = left[0]
                if n_left < msl:
                    continue
                if n_node - n_left < msl:
                    break
                for s in range(right.size):
                    right[s] = node_stats[s] - left[s]
                pl, wl = _proxy(left, is_class, criterion)
                pr, wr = _proxy(right, is_class, criterion)
                if wl < mwl or wr < mwl:
                    continue
                if pl + pr > best:
                    best, best_kind, best_feature, best_bin = pl + pr, THRESHOLD_SPLIT, f, b
                    best_threshold = np.inf if b == hi else np.nan  # placed below, once
                    best_ml = ml if n_miss > 0 else n_left > n_node - n_left
    if best_kind == THRESHOLD_SPLIT and np.isnan(best_threshold):
        f = best_feature
        edges_f = data.edges[data.edge_ptr[f]:data.edge_ptr[f + 1]]
        best_threshold = gap_threshold(hist[f], 0, best_bin, data.n_value_bins[f], edges_f, data.bin_lo[f],
                                       data.bin_hi[f])
    return best_kind, best_feature, best_bin, best_threshold, best_ml, best_groups, best


@njit
def assign_children_hist(binned, samples, start, end, kind, feature, last_bin, missing_left, n_groups, group_bins,
                         child_of, bin_to_group):
    """child_of[i] for the node's samples from a histogram split; returns the child sizes."""
    col = binned[:, feature]
    missing_bin = bin_to_group.size - 1
    if kind == CATEGORICAL_SPLIT:
        for g in range(n_groups):
            bin_to_group[group_bins[g]] = g
        sizes = np.zeros(n_groups, dtype=np.int64)
    else:
        sizes = np.zeros(2, dtype=np.int64)
    for p in range(start, end):
        i = samples[p]
        b = np.int64(col[i])
        if kind == CATEGORICAL_SPLIT:
            c = bin_to_group[b]
        elif b == missing_bin:
            c = 0 if missing_left else 1
        else:
            c = 0 if b <= last_bin else 1
        child_of[i] = c
        sizes[c] += 1
    return sizes


@njit
def partition_samples(samples, start, end, child_of, sizes, tmp):
    """Stable partition of samples[start:end] by child."""
    offsets = np.empty(sizes.size, dtype=np.int64)
    acc = start
    for c in range(sizes.size):
        offsets[c] = acc
        acc += sizes[c]
    for p in range(start, end):
        i = samples[p]
        c = child_of[i]
        tmp[offsets[c]] = i
        offsets[c] += 1
    for p in range(start, end):
        samples[p] = tmp[p]
