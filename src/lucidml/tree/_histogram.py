"""Histograms of binned features and the split search on them, for every histogram tree.

Features are binned once per fit (``_binning``: at most k bins, NaN in its own last bin). A
node's histogram holds, per feature and bin, the sample count and the weighted class counts
(classification) or the weight and Σ wᵢyᵢ (squared error; gradient boosting: Σh and −Σg), in
one row per bin (a *cell*): feature f's cells are ``hist[cell_ptr[f]:cell_ptr[f + 1]]``
(:func:`feature_cells`), as many as f has bins, plus its missing bin (``_binning.cell_pointers``),
so a histogram of 50,000 word counts of a few bins each is 3 MB, not 66 MB of 55 bins each. The
split search then scans bins, not samples, and a parent's histogram minus its smaller
children's histograms gives the largest child's histogram without touching its samples
("histogram subtraction"). The same search serves CART's criteria and gradient boosting's
second-order gain (``_criteria``: the squared error's proxy with λ in the denominator).
"""

from collections import namedtuple

import numpy as np
from numba import prange
from numba.extending import overload

from ..utils import njit, unsigned
from ._criteria import beats, beats_ranked, class_proxy
from ._random import LAST_RANK, feature_rank, rand_int
from ._sparse_bins import sparse_histogram
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
# Samples per block where the samples themselves go to the threads (gathering).
PARALLEL_BLOCK = 16_384


@njit(inline="always")
def feature_cells(hist, cell_ptr, f):
    """Feature f's part of a histogram (or of any table by cell): its bins, the missing bin last."""
    return hist[cell_ptr[f]:cell_ptr[f + 1]]


@njit
def build_histogram(binned, sparse, samples, span, stats, gathered, hist, cell_ptr):
    """hist[cell of (f, b)] = (count, Σ weight or Σ weight per class[, Σ target]) of the samples
    samples[start:end] in bin b of f, ``span`` = (start, end, identity).

    From dense codes ``binned`` (n, d), or from a sparse X's codes ``sparse`` (``_sparse_bins``),
    the other None: a fit compiles only its own. ``identity``: samples[start:end] is 0 … n − 1 (a
    root without subsampling), read without the index.
    """
    start, end, identity = span
    # (Two tests, each on the argument that is None in the other mode: Numba prunes a branch only
    # where an argument's None type decides it.)
    if sparse is not None:
        sparse_histogram(sparse, samples, start, end - start, stats, identity, hist, cell_ptr)
    if binned is not None:
        _dense_histogram(binned, samples, span, stats, gathered, hist, cell_ptr)


@njit
def _dense_histogram(binned, samples, span, stats, gathered, hist, cell_ptr):
    """:func:`build_histogram` from dense codes. The node's weights and targets are first gathered
    into node order (``gathered``: two float buffers and an int32 buffer of at least end − start
    entries; not with ``identity``), so that each feature's pass reads them contiguously; features
    go to the threads on large nodes."""
    start, end, identity = span
    m = end - start
    parallel = m * binned.shape[1] >= PARALLEL_MIN_ENTRIES
    if not identity:
        if parallel:
            _gather_in_parallel(samples, start, m, stats, gathered)
        else:
            _gather(samples, start, np.int64(0), m, stats, gathered)
    if parallel:
        _features_in_parallel(binned, samples, span, stats, gathered, hist, cell_ptr)
    else:
        for f in range(binned.shape[1]):
            _feature_histogram(binned[:, f], samples, span, stats, gathered, feature_cells(hist, cell_ptr, f))


@njit
def _gather(samples, start, first, last, stats, gathered):
    """gathered[k] = the weight, target or class code of sample samples[start + k], first ≤ k < last."""
    weight_ord, target_ord, code_ord = gathered
    for k in range(first, last):
        i = unsigned(samples[start + k])
        if not stats.unit_weight:
            weight_ord[k] = stats.weight[i]
        if stats.classes:
            code_ord[k] = stats.code[i]
        else:
            target_ord[k] = stats.target[i]


@njit(parallel=True)
def _gather_in_parallel(samples, start, m, stats, gathered):
    n_blocks = (m + PARALLEL_BLOCK - 1) // PARALLEL_BLOCK
    for block in prange(n_blocks):
        _gather(samples, start, block * PARALLEL_BLOCK, min(m, (block + 1) * PARALLEL_BLOCK), stats, gathered)


@njit(parallel=True)
def _features_in_parallel(binned, samples, span, stats, gathered, hist, cell_ptr):
    for f in prange(binned.shape[1]):
        _feature_histogram(binned[:, f], samples, span, stats, gathered, feature_cells(hist, cell_ptr, f))


@njit
def _feature_histogram(column, samples, span, stats, gathered, h):
    """One feature's histogram h[b] from the gathered weights and targets (the samples' own with ``identity``)."""
    start, end, identity = span
    m = end - start
    for b in range(h.shape[0]):  # loops, not slice assignments: those cost seconds of compile time
        for s in range(h.shape[1]):
            h[b, s] = 0.0
    if identity:
        _accumulate(column, column, True, m, stats, (stats.weight, stats.target, stats.code), h)
    else:
        _accumulate(column, samples[start:start + m], False, m, stats, gathered, h)
    if stats.unit_weight and not stats.classes:
        for b in range(h.shape[0]):
            h[b, 1] = h[b, 0]


@njit
def _accumulate(column, rows, identity, m, stats, ordered, h):
    """h[bin of the k-th sample] += its count, weight(s) and target, the sample being rows[k]
    (k itself with ``identity``), its values ordered[·][k]: one loop per case, so that the hot
    loop tests only its data."""
    weight_ord, target_ord, code_ord = ordered
    if stats.classes:
        for k in range(m):
            b = column[unsigned(k if identity else rows[k])]
            h[b, 0] += 1.0
            h[b, 1 + code_ord[k]] += weight_ord[k]
    elif stats.unit_weight:
        for k in range(m):
            b = column[unsigned(k if identity else rows[k])]
            h[b, 0] += 1.0
            h[b, 2] += target_ord[k]
    else:
        for k in range(m):
            b = column[unsigned(k if identity else rows[k])]
            h[b, 0] += 1.0
            h[b, 1] += weight_ord[k]
            h[b, 2] += target_ord[k]


@njit
def gap_threshold(hist_j, no_weight, b, edges_j, lo_j, hi_j):
    """The raw-value threshold of the split "bin ≤ b", centred in the node's gap.

    Every threshold between the node's largest value on the left (in bin ``left``) and its
    smallest on the right (bin ``right``) splits the node's samples alike, and the bins between
    them are empty in this node. The midpoint of those two values is what an exact tree (and
    scikit-learn) uses; the global edge after bin b would sit against the left value and send
    unseen values between them right. ``lo_j``/``hi_j`` are each bin's smallest and largest
    training value. No present value on the right: +∞ (only missing values go right).
    A bin is empty without samples, or, where zero-weight samples are to count as absent, with a
    weight (column 1) of at most ``no_weight`` (−∞ otherwise): the rounding of the node's weight,
    which a histogram made by subtraction may leave in a bin of no weight.
    """
    n_bins_j = hist_j.shape[0] - 1  # its value bins (the missing bin last)
    right = b + 1
    while right < n_bins_j and _empty(hist_j, right, no_weight):
        right += 1
    if right >= n_bins_j:
        return np.inf
    left = b
    while left >= 0 and _empty(hist_j, left, no_weight):
        left -= 1
    if left < 0:  # only missing values go left: keep the bin edge
        return edges_j[b]
    t = 0.5 * hi_j[left] + 0.5 * lo_j[right]
    return t if t < lo_j[right] else hi_j[left]  # adjacent floats: the midpoint rounds up


@njit
def _empty(hist_j, b, no_weight):
    return hist_j[b, 0] == 0.0 or hist_j[b, 1] <= no_weight


@njit
def _proxy(stats, target):
    """Proxy term of one child from its accumulated histogram row (count, stats...), and its weight."""
    if target.is_class:
        total = 0.0
        for k in range(1, stats.size):
            total += stats[k]
        return class_proxy(stats[1:], total, target.criterion), total
    return _sum_proxy(stats[2], stats[1], target.l2), stats[1]


@njit
def _sum_proxy(s, w, l2):
    """Squared error's S²/W, or boosting's G²/(H + λ) (_criteria: the same columns, λ = 0 for CART)."""
    return s * s / (w + l2) if w + l2 > 0.0 else 0.0


@njit
def node_sums(hist, cell_ptr, out):
    """out = the node's (count, Σ weights…, Σ target): any one feature's bins add up to the node
    (feature 0's)."""
    for s in range(out.size):
        out[s] = 0.0
    for c in range(cell_ptr[0], cell_ptr[1]):
        for s in range(out.size):
            out[s] += hist[c, s]


@njit
def _threshold_scan(h, node_stats, span, ml, target, msl, mwl, work):
    """Best (proxy, last left bin, left count) of the thresholds "bin ≤ b" of one feature's histogram h.

    ``span`` = (lo, first_b, last_b, hi): the feature's lowest and highest occupied bins; bins
    lo … last_b move left one at a time and thresholds are scored from first_b on (the random
    splitter scores just one). Missing values go left iff ``ml``. A bin without samples here
    splits as the bin before it and is not scored again; of tied thresholds the lowest wins. Sums
    and weights are scalars for regression and boosting (count, Σw or Σh, Σwy or −Σg), arrays of
    class counts otherwise.
    """
    lo, first_b, last_b, hi = span
    missing_bin = h.shape[0] - 1
    n_node = node_stats[0]
    best, best_b, best_n_left = -np.inf, -1, 0.0
    if not target.is_class:
        l2 = target.l2
        n_left = h[missing_bin, 0] if ml else 0.0
        w_left = h[missing_bin, 1] if ml else 0.0
        s_left = h[missing_bin, 2] if ml else 0.0
        w_node, s_node = node_stats[1], node_stats[2]
        for b in range(lo, last_b + 1):
            if h[b, 0] > 0:
                n_left += h[b, 0]
                w_left += h[b, 1]
                s_left += h[b, 2]
            elif b != first_b:
                continue
            if b < first_b:
                continue
            if ml and b == hi:
                break  # everything left
            if n_left < msl:
                continue
            if n_node - n_left < msl:
                break
            w_right = w_node - w_left
            if w_left < mwl or w_right < mwl:
                continue
            s_right = s_node - s_left
            proxy = _sum_proxy(s_left, w_left, l2) + _sum_proxy(s_right, w_right, l2)
            if beats(proxy, best):
                best, best_b, best_n_left = proxy, b, n_left
        return best, best_b, best_n_left
    left, right = work.left, work.right
    for s in range(left.size):
        left[s] = h[missing_bin, s] if ml else 0.0
    for b in range(lo, last_b + 1):
        if h[b, 0] > 0:
            for s in range(left.size):
                left[s] += h[b, s]
        elif b != first_b:
            continue
        if b < first_b:
            continue
        if ml and b == hi:
            break
        n_left = left[0]
        if n_left < msl:
            continue
        if n_node - n_left < msl:
            break
        for s in range(right.size):
            right[s] = node_stats[s] - left[s]
        pl, wl = _proxy(left, target)
        pr, wr = _proxy(right, target)
        if wl < mwl or wr < mwl:
            continue
        if beats(pl + pr, best):
            best, best_b, best_n_left = pl + pr, b, n_left
    return best, best_b, best_n_left


@njit
def find_split_hist(hist, node_stats, data, target, rules, work):
    """Best split of a node from its histogram ``hist`` (cells, n_stats), feature f's cells
    ``data.cell_ptr[f]:data.cell_ptr[f + 1]`` (its bins, then its missing bin).

    ``node_stats`` are the node's sums (:func:`node_sums`). Returns (kind, feature, last left
    bin, threshold, missing_left, n_groups, proxy); the bins of the groups of a categorical
    split are left in ``work.best_groups``. Features are visited in a random order (ties go to
    the first one visited, as in scikit-learn; when all are searched, in column order, ties going
    to the lower random rank: ``_random.feature_rank``), then thresholds from the lowest bin up.
    """
    msl, max_features, random_splitter = rules.min_samples_leaf, rules.max_features, rules.random_splitter
    is_cat, state = target.is_categorical, target.state
    features, grp_cur, grp_best = work.features, work.groups, work.best_groups
    cell_ptr = data.cell_ptr
    n_features = cell_ptr.size - 1
    n_node = node_stats[0]
    node_weight = 0.0
    if target.is_class:
        for s in range(1, node_stats.size):
            node_weight += node_stats[s]
    else:
        node_weight = node_stats[1]
    mwl = max(rules.min_weight_leaf, MIN_CHILD_SHARE * node_weight)  # never score a child of rounding-noise weight
    for f in range(n_features):
        features[f] = f
    # Every feature searched: in column order, ties to the lower random rank (as the exact search).
    in_column_order = max_features >= n_features and not random_splitter
    node_seed = state[0]  # (_builder seeds each node's draws: _random.seed_node)
    best = -np.inf
    best_rank = LAST_RANK
    best_kind, best_feature, best_threshold, best_ml, best_groups = NO_SPLIT, -1, np.nan, False, 0
    best_bin = np.int64(-1)  # (a bare −1 would compile a second, literal-typed gap_threshold)
    searched = False  # whether a feature not constant in the node was searched
    for f_i in range(n_features):
        if f_i >= max_features and searched:
            break  # max_features drawn, constant ones included (scikit-learn's rule), and one searched
        if in_column_order:
            f = f_i
            rank = feature_rank(node_seed, f)
        else:
            j = rand_int(state, f_i, n_features)
            f = features[j]
            features[j] = features[f_i]
            features[f_i] = f
            rank = np.uint64(f_i)
        h = feature_cells(hist, cell_ptr, f)
        missing_bin = h.shape[0] - 1  # the feature's last cell
        lo = np.int64(-1)
        hi = np.int64(-1)
        for b in range(missing_bin):
            if h[b, 0] > 0:
                hi = b
                if lo < 0:
                    lo = b
        n_miss = h[missing_bin, 0]
        if lo < 0 or (lo == hi and n_miss == 0):
            continue  # constant in this node
        searched = True

        if is_cat[f]:
            n_groups = 0
            proxy = 0.0
            ok = True
            for b in range(missing_bin + 1):
                if h[b, 0] > 0:
                    pg, wg = _proxy(h[b], target)
                    ok = ok and h[b, 0] >= msl and wg >= mwl
                    proxy += pg
                    grp_cur[n_groups] = b
                    n_groups += 1
            if ok and n_groups >= 2 and beats_ranked(proxy, rank, best, best_rank):
                best, best_rank, best_kind, best_feature, best_groups = proxy, rank, CATEGORICAL_SPLIT, f, n_groups
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
                ml = rand_int(state, np.int64(0), np.int64(2)) == 1
            proxy, b, n_left = _threshold_scan(h, node_stats, (lo, first_b, last_b, hi), ml, target, msl, mwl, work)
            if b >= 0 and beats_ranked(proxy, rank, best, best_rank):
                best, best_rank, best_kind, best_feature, best_bin = proxy, rank, THRESHOLD_SPLIT, f, b
                best_threshold = np.inf if b == hi else np.nan  # placed below, once
                best_ml = ml if n_miss > 0 else n_left > n_node - n_left
    if best_kind == THRESHOLD_SPLIT and np.isnan(best_threshold):
        f = best_feature
        edges_f = data.edges[data.edge_ptr[f]:data.edge_ptr[f + 1]]
        no_weight = -np.inf if data.occupancy == 0 else 4.0 * n_node * np.finfo(np.float64).eps * node_weight
        best_threshold = gap_threshold(feature_cells(hist, cell_ptr, f), no_weight, best_bin, edges_f,
                                       feature_cells(data.bin_lo, cell_ptr, f), feature_cells(data.bin_hi, cell_ptr, f))
    return best_kind, best_feature, best_bin, best_threshold, best_ml, best_groups, best


def subtract_histogram(a, b):
    """a −= b for two histograms (parent minus a child), (cells, n_stats) each.

    Interpreted (``utils._numba``'s tier for small first fits) one NumPy operation; compiled, the
    loop below (an array expression compiles to a loop twice as slow). Features × bins × columns
    Python steps took 2.8 ms a call, a fifth of a first GradientBoostingRegressor fit on diabetes.
    """
    a -= b


@overload(subtract_histogram)
def _subtract_histogram_compiled(a, b):
    def subtract(a, b):
        for c in range(a.shape[0]):
            for s in range(a.shape[1]):
                a[c, s] -= b[c, s]
    return subtract
