"""Exact split search on presorted columns (``max_bins=None``).

Every feature f keeps its node samples sorted once for the whole fit: ``sidx[f, start:end]`` are
the sample indices of a node in increasing order of x_f (NaN last); the values themselves are
read from X (``xf = X[:, f]``, so the sorted values are ``xf[sidx[f, p]]``): 4 bytes per entry
instead of a sorted copy of X beside the indices. A split stably partitions every row, so both
children stay sorted and no node ever sorts again: one sweep per feature costs O(n_node)
instead of O(n_node log n_node).

The sweep moves samples one at a time from the right child to the left, updates the proxy of
``_criteria`` in O(1) (gini, entropy, squared error) and scores only the midpoints between
consecutive *distinct* values (004 §12; the left child is x ≤ t). With missing values the sweep
runs twice, once with the NaN samples on each side, and the better side is learned; a node
without NaN at training time sends NaN to the larger child (scikit-learn's rule).
"""

import numpy as np

from ..utils import njit
from ._absolute_error import prepare_ranks, sweep_absolute_error
from ._criteria import (
    ABSOLUTE_ERROR,
    ENTROPY,
    GINI,
    SKIP,
    SQUARED_ERROR,
    STOP,
    admissible,
    class_counts,
    class_proxy,
    regression_stats,
    xlogx,
)
from ._random import rand_int, rand_uniform

NO_SPLIT = 0
THRESHOLD_SPLIT = 1
CATEGORICAL_SPLIT = 2

# A child's weight comes out of Σ_node − Σ_left: when it holds less than this share of its
# node's weight (one sample of weight 1e-17 beside samples of weight 1), that difference is
# rounding noise, possibly 0 or negative, and no split is scored on it.
MIN_CHILD_SHARE = 1e-10


@njit
def count_missing(idx, xf, start, end):
    """Number of NaN at the end of a sorted segment."""
    k = end
    while k > start and np.isnan(xf[idx[k - 1]]):
        k -= 1
    return end - k


@njit
def _sweep_classes(idx, xf, start, end_nn, end, yk, w, node_counts, total, criterion, msl, mwl, missing_left, left):
    """Best proxy and last left position of a threshold split on one presorted feature."""
    n = end - start
    n_left = 0
    if missing_left:
        w_left = class_counts(idx, end_nn, end, yk, w, left)
        n_left = end - end_nn
    else:
        for k in range(left.size):
            left[k] = 0.0
        w_left = 0.0
    agg_left = 0.0
    agg_right = 0.0
    for k in range(node_counts.size):
        if criterion == GINI:
            agg_left += left[k] ** 2
            agg_right += (node_counts[k] - left[k]) ** 2
        elif criterion == ENTROPY:
            agg_left += xlogx(left[k])
            agg_right += xlogx(node_counts[k] - left[k])
    # With NaN on the right, "every value left, NaN alone right" is one more candidate.
    last = end_nn - 1 if (missing_left or end_nn == end) else end_nn
    best = -np.inf
    best_pos = -1
    current = xf[idx[start]]
    for p in range(start, last):
        i = idx[p]
        c = yk[i]
        wi = w[i]
        lc = left[c]
        rc = node_counts[c] - lc
        if criterion == GINI:  # (l+w)² − l² and (r−w)² − r², in O(1)
            agg_left += wi * (2.0 * lc + wi)
            agg_right += wi * (wi - 2.0 * rc)
        elif criterion == ENTROPY:
            agg_left += xlogx(lc + wi) - xlogx(lc)
            agg_right += xlogx(rc - wi) - xlogx(rc)
        left[c] = lc + wi
        w_left += wi
        n_left += 1
        if p + 1 < end_nn:
            following = xf[idx[p + 1]]
            tied = following == current
            current = following
            if tied:
                continue  # only between distinct values
        verdict = admissible(n_left, n, w_left, total, msl, mwl)
        if verdict == STOP:
            break
        if verdict == SKIP:
            continue
        w_right = total - w_left
        if criterion == GINI:
            proxy = agg_left / w_left + agg_right / w_right
        elif criterion == ENTROPY:
            proxy = agg_left - xlogx(w_left) + agg_right - xlogx(w_right)
        else:
            max_left = 0.0
            max_right = 0.0
            for k in range(node_counts.size):
                max_left = max(max_left, left[k])
                max_right = max(max_right, node_counts[k] - left[k])
            proxy = max_left + max_right
        if proxy > best:
            best = proxy
            best_pos = p
    return best, best_pos


@njit
def _sweep_squared_error(idx, xf, start, end_nn, end, y, w, node_sum, total, msl, mwl, missing_left):
    """Same sweep for the squared error: proxy S_L²/W_L + S_R²/W_R."""
    n = end - start
    s_left = 0.0
    w_left = 0.0
    n_left = 0
    if missing_left:
        for p in range(end_nn, end):
            s_left += w[idx[p]] * y[idx[p]]
            w_left += w[idx[p]]
        n_left = end - end_nn
    last = end_nn - 1 if (missing_left or end_nn == end) else end_nn
    best = -np.inf
    best_pos = -1
    current = xf[idx[start]]
    for p in range(start, last):
        i = idx[p]
        s_left += w[i] * y[i]
        w_left += w[i]
        n_left += 1
        if p + 1 < end_nn:
            following = xf[idx[p + 1]]
            tied = following == current
            current = following
            if tied:
                continue  # only between distinct values
        verdict = admissible(n_left, n, w_left, total, msl, mwl)
        if verdict == STOP:
            break
        if verdict == SKIP:
            continue
        w_right = total - w_left
        s_right = node_sum - s_left
        proxy = s_left * s_left / w_left + s_right * s_right / w_right
        if proxy > best:
            best = proxy
            best_pos = p
    return best, best_pos


@njit
def set_proxy(idx, start, end, yk, y, w, criterion, counts, work_y, work_w):
    """(proxy term, weight) of one child holding the samples idx[start:end], computed directly."""
    if yk is not None:  # a classifier (its y is None; see _builder._node_stats)
        total = class_counts(idx, start, end, yk, w, counts)
        return class_proxy(counts, total, criterion), total
    if y is not None:
        value, impurity, total, _ = regression_stats(idx, start, end, y, w, criterion, work_y, work_w)
        if criterion == SQUARED_ERROR:
            return value * value * total, total  # S²/W = ȳ² W
        return -impurity * total, total
    return 0.0, 0.0


@njit
def _categorical_groups(idx, xf, start, end_nn, end, bounds):
    """Runs of equal values (and the NaN run) of a sorted segment: group g is bounds[g]:bounds[g+1]."""
    g = 0
    bounds[0] = start
    for p in range(start + 1, end_nn):
        if xf[idx[p]] != xf[idx[p - 1]]:
            g += 1
            bounds[g] = p
    if end_nn > start:
        g += 1
    if end > end_nn:
        bounds[g] = end_nn
        g += 1
    bounds[g] = end
    return g


@njit
def find_split_exact(sidx, X, start, end, yk, y, w, node_counts, node_sum, total, criterion, rules, is_cat,
                     state, work):
    """Best split of the node sidx[:, start:end] over the features drawn for it.

    ``rules``: the fit's ``Rules`` (min_samples_leaf, min_weight_leaf, max_features, random_splitter). Returns
    (kind, feature, last left position, threshold, missing_left, n_groups, proxy); for a
    categorical split the group bounds are left in ``work.best_groups``.
    """
    msl, max_features, random_splitter = rules.min_samples_leaf, rules.max_features, rules.random_splitter
    mwl = max(rules.min_weight_leaf, MIN_CHILD_SHARE * total)  # a lighter child is rounding noise: never divide by it
    counts, features, grp_cur, grp_best = work.counts, work.features, work.groups, work.best_groups
    n_features = sidx.shape[0]
    for f in range(n_features):
        features[f] = f
    if y is not None:
        if criterion == ABSOLUTE_ERROR:
            prepare_ranks(sidx[0], start, end, y, work.rank_of, work.sorted_y)

    best_kind = NO_SPLIT
    best_feature = -1
    best_pos = -1
    best_threshold = np.nan
    best_missing_left = False
    best_groups = 0
    best = -np.inf
    visited = 0
    for f_i in range(n_features):
        if visited >= max_features:
            break
        j = rand_int(state, f_i, n_features)  # Fisher–Yates: features drawn without replacement
        f = features[j]
        features[j] = features[f_i]
        features[f_i] = f
        idx = sidx[f]
        xf = X[:, f]
        n_miss = count_missing(idx, xf, start, end)
        end_nn = end - n_miss
        if end_nn == start or (n_miss == 0 and xf[idx[start]] == xf[idx[end_nn - 1]]):
            continue  # constant in this node: costs nothing, does not count
        visited += 1

        if is_cat[f]:
            n_groups = _categorical_groups(idx, xf, start, end_nn, end, grp_cur)
            proxy = 0.0
            ok = n_groups >= 2
            for g in range(n_groups):
                if not ok:
                    break
                pg, wg = set_proxy(idx, grp_cur[g], grp_cur[g + 1], yk, y, w, criterion, counts, work.y_buffer,
                                   work.w_buffer)
                ok = grp_cur[g + 1] - grp_cur[g] >= msl and wg >= mwl
                proxy += pg
            if ok and proxy > best:
                best = proxy
                best_kind = CATEGORICAL_SPLIT
                best_feature = f
                best_groups = n_groups
                best_threshold = np.nan
                for g in range(n_groups + 1):
                    grp_best[g] = grp_cur[g]
            continue

        if random_splitter:
            proxy, pos, threshold, missing_left = _random_split(idx, xf, start, end_nn, end, yk, y, w, criterion,
                                                               node_counts, node_sum, total, msl, mwl, state, work)
            if pos >= 0 and proxy > best:
                best, best_kind, best_feature, best_pos = proxy, THRESHOLD_SPLIT, f, pos
                best_threshold, best_missing_left = threshold, missing_left
            continue

        for missing_left in (False, True):
            if missing_left and n_miss == 0:
                break
            proxy, pos = -np.inf, -1
            if yk is not None:  # tested on the arguments: each task compiles only its sweeps
                proxy, pos = _sweep_classes(idx, xf, start, end_nn, end, yk, w, node_counts, total, criterion,
                                            msl, mwl, missing_left, counts)
            if y is not None:
                if criterion == SQUARED_ERROR:
                    proxy, pos = _sweep_squared_error(idx, xf, start, end_nn, end, y, w, node_sum, total, msl, mwl,
                                                      missing_left)
                else:
                    proxy, pos = sweep_absolute_error(idx, xf, start, end, y, w, total, msl, mwl, work.rank_of,
                                                      work.sorted_y, work.fenwick, work.abs_errors)
            if pos >= 0 and proxy > best:
                best, best_kind, best_feature, best_pos = proxy, THRESHOLD_SPLIT, f, pos
                if pos == end_nn - 1:
                    best_threshold = np.inf  # NaN ≤ inf is false: only the NaN go right
                else:
                    best_threshold = midpoint(xf[idx[pos]], xf[idx[pos + 1]])
                n_left = pos + 1 - start
                best_missing_left = missing_left if n_miss > 0 else n_left > end - start - n_left
    return best_kind, best_feature, best_pos, best_threshold, best_missing_left, best_groups, best


@njit
def midpoint(a, b):
    """(a + b) / 2 by halves (no overflow), nudged down to a when rounding would reach b."""
    t = a / 2.0 + b / 2.0
    if t >= b or t < a:
        t = a
    return t


@njit
def _random_split(idx, xf, start, end_nn, end, yk, y, w, criterion, node_counts, node_sum, total, msl, mwl, state,
                  work):
    """scikit-learn's "random" splitter: one threshold drawn uniformly in [min, max) of the node."""
    lo = xf[idx[start]]
    hi = xf[idx[end_nn - 1]]
    n_miss = end - end_nn
    threshold = rand_uniform(state, lo, hi)
    if threshold >= hi:
        threshold = lo
    missing_left = n_miss > 0 and rand_int(state, 0, 2) == 1
    a = start  # last position with value ≤ threshold, by bisection
    b = end_nn
    while a < b:
        m = (a + b) >> 1
        if xf[idx[m]] <= threshold:
            a = m + 1
        else:
            b = m
    pos = a - 1
    n_left = pos + 1 - start + (n_miss if missing_left else 0)
    if pos < start or pos >= end_nn - 1 or n_left < msl or end - start - n_left < msl:
        return -np.inf, -1, threshold, missing_left
    proxy, w_left, w_right = -np.inf, 0.0, 0.0
    if y is not None:  # a regressor (tested on the argument: see find_split_exact)
        if criterion == ABSOLUTE_ERROR:  # never with NaN: both children are contiguous
            pl, w_left = set_proxy(idx, start, pos + 1, yk, y, w, criterion, work.counts, work.y_buffer,
                                   work.w_buffer)
            pr, w_right = set_proxy(idx, pos + 1, end, yk, y, w, criterion, work.counts, work.y_buffer,
                                    work.w_buffer)
            proxy = pl + pr
        else:
            s_left = 0.0
            for p in range(start, end):
                if p <= pos or (p >= end_nn and missing_left):
                    s_left += w[idx[p]] * y[idx[p]]
                    w_left += w[idx[p]]
            w_right = total - w_left
            s_right = node_sum - s_left
            if w_left > 0 and w_right > 0:
                proxy = s_left * s_left / w_left + s_right * s_right / w_right
    if yk is not None:
        left = work.counts
        for k in range(left.size):
            left[k] = 0.0
        w_left = 0.0
        for p in range(start, end):
            if p <= pos or (p >= end_nn and missing_left):
                left[yk[idx[p]]] += w[idx[p]]
                w_left += w[idx[p]]
        w_right = total - w_left
        proxy = class_proxy(left, w_left, criterion)
        for k in range(left.size):
            left[k] = node_counts[k] - left[k]
        proxy += class_proxy(left, w_right, criterion)
    if w_left < mwl or w_right < mwl:
        return -np.inf, -1, threshold, missing_left
    if n_miss == 0:
        missing_left = n_left > end - start - n_left
    return proxy, pos, threshold, missing_left


@njit
def assign_children(sidx, X, start, end, kind, feature, pos, missing_left, n_groups, bounds, child_of):
    """child_of[i] for the samples of the node, from the chosen split; returns the child sizes."""
    idx = sidx[feature]
    if kind == CATEGORICAL_SPLIT:
        sizes = np.empty(n_groups, dtype=np.int64)
        for g in range(n_groups):
            sizes[g] = bounds[g + 1] - bounds[g]
            for p in range(bounds[g], bounds[g + 1]):
                child_of[idx[p]] = g
        return sizes
    end_nn = end - count_missing(idx, X[:, feature], start, end)
    sizes = np.zeros(2, dtype=np.int64)
    for p in range(start, end):
        if p < end_nn:
            c = 0 if p <= pos else 1
        else:
            c = 0 if missing_left else 1
        child_of[idx[p]] = c
        sizes[c] += 1
    return sizes


@njit
def partition_rows(sidx, start, end, child_of, sizes, tmp_idx):
    """Stable partition of every presorted row by child: each child segment stays sorted."""
    n_children = sizes.size
    offsets = np.empty(n_children, dtype=np.int64)
    for f in range(sidx.shape[0]):
        acc = start
        for c in range(n_children):
            offsets[c] = acc
            acc += sizes[c]
        idx = sidx[f]
        for p in range(start, end):
            i = idx[p]
            q = offsets[child_of[i]]
            offsets[child_of[i]] = q + 1
            tmp_idx[q] = i
        for p in range(start, end):  # explicit loops: no array-to-array assignment in kernels
            idx[p] = tmp_idx[p]
