"""Exact split search on presorted columns (``max_bins=None``).

Every feature f keeps its node samples sorted once for the whole fit: ``sidx[f, start:end]`` are
the sample ids (uint32, see tree._exact_data.SAMPLE_IDS) of a node in increasing order of x_f (NaN
last); the values themselves are read from X (``xf = X[:, f]``, so the sorted values are
``xf[sidx[f, p]]``): 4 bytes per entry instead of a sorted copy of X beside the indices. A split stably partitions every row, so both
children stay sorted and no node ever sorts again: one sweep per feature costs O(n_node)
instead of O(n_node log n_node).

The sweep moves samples one at a time from the right child to the left, updates the proxy of
``_criteria`` in O(1) (gini, entropy, squared error) and scores only the midpoints between
consecutive *distinct* values (004 §12; the left child is x ≤ t). With missing values the sweep
runs twice, once with the NaN samples on each side, and the better side is learned; a node
without NaN at training time sends NaN to the larger child (scikit-learn's rule).
"""

from collections import namedtuple

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
from ._node_sort import sort_feature
from ._random import rand_int, rand_uniform
from ._sparse_columns import clear_range, clear_sparse_feature, keep_sparse_order, sort_sparse_feature

NO_SPLIT = 0
THRESHOLD_SPLIT = 1
CATEGORICAL_SPLIT = 2

# A child's weight comes out of Σ_node − Σ_left: when it holds less than this share of its
# node's weight (one sample of weight 1e-17 beside samples of weight 1), that difference is
# rounding noise, possibly 0 or negative, and no split is scored on it.
MIN_CHILD_SHARE = 1e-10

# One sorted feature of a node: sample ids ``idx[start:end]`` in increasing order of the values
# ``x`` (a column of X), the NaN from ``end_nn`` on. ``run_end``: where the run of the smallest
# value ends when it is known without reading it (a sparse feature's zeros, of which only the
# last is listed: _sparse_columns), else −1.
Column = namedtuple("Column", ["idx", "x", "start", "end_nn", "end", "run_end"])
# A node's samples sidx[:, start:end] and their sums: weighted class counts (a classifier's),
# total weight, Σ w·y (a regressor's).
NodeSums = namedtuple("NodeSums", ["start", "end", "counts", "total", "weighted_sum"])
# How a sweep scores a candidate: the criterion, and the least a child may hold (samples:
# min_samples_leaf, and weight).
Scoring = namedtuple("Scoring", ["criterion", "min_samples", "min_weight"])


@njit(inline="always")
def feature_values(exact, f):
    """The values of feature f for every sample: a column of X, or a row of X copied column by
    column, where a node-sorted search that draws features at random gathers them from; for a
    sparse X, the scratch column where the best feature of the node is scattered (_sparse_columns)."""
    if exact.sparse:
        return exact.table[1]
    if exact.by_column:
        return exact.table[f]
    return exact.table[:, f]


@njit
def count_missing(idx, xf, start, end):
    """Number of NaN at the end of a sorted segment."""
    k = end
    while k > start and np.isnan(xf[idx[k - 1]]):
        k -= 1
    return end - k


@njit(inline="always")
def _sweep(col, yk, y, w, node, scoring, missing_left, left):
    """Best proxy and last left position of a threshold split on one presorted feature.

    One sweep for both tasks: a classifier's (``yk`` given, ``y`` None) moves its weighted class
    counts into ``left`` and keeps the gini/entropy aggregates in O(1) per sample; a regressor's
    (``yk`` None) moves S_L = Σ w·y, for the proxy S_L²/W_L + S_R²/W_R. ``missing_left``: the
    node's NaN samples start on the left. (Only the arrays it reads are passed: every array argument of a call that is not inlined
    costs a reference count up and down.)
    """
    idx, xf, start, end_nn, end, run_end = col
    criterion, total = scoring.criterion, node.total
    # The left child starts with the node's NaN samples (``missing_left``) or nothing. But when
    # more than half of the node shares its smallest value (the zeros of a count column), all
    # but the last of those samples go left at once, as the node's sums minus those of the rest:
    # O(rest) instead of O(run), and the thresholds inside the run would be ties anyway.
    first = start + 1
    if run_end > 0:
        first = run_end
    else:
        smallest = xf[idx[start]]
        while first < end_nn and xf[idx[first]] == smallest:
            first += 1
    if 2 * (first - start) <= end - start:
        first = start
        lo, hi = (end_nn, end) if missing_left else (end, end)
        w_left, s_left = _range_sums(idx, lo, hi, yk, y, w, left)
        n_left = hi - lo
    else:
        first -= 1
        w_rest, s_rest = _range_sums(idx, first, end_nn if missing_left else end, yk, y, w, left)
        w_left = max(total - w_rest, 0.0)
        if yk is not None:
            w_left = 0.0
            for k in range(left.size):
                left[k] = max(node.counts[k] - left[k], 0.0)  # (never below 0 by rounding)
                w_left += left[k]
        s_left = node.weighted_sum - s_rest
        n_left = first - start + (end - end_nn if missing_left else 0)
    agg_left = 0.0
    agg_right = 0.0
    if yk is not None:
        for k in range(left.size):
            if criterion == GINI:
                agg_left += left[k] ** 2
                agg_right += (node.counts[k] - left[k]) ** 2
            elif criterion == ENTROPY:
                agg_left += xlogx(left[k])
                agg_right += xlogx(node.counts[k] - left[k])
    # With NaN on the right, "every value left, NaN alone right" is one more candidate.
    last = end_nn - 1 if (missing_left or end_nn == end) else end_nn
    best = -np.inf
    best_pos = -1
    current = xf[idx[first]]
    for p in range(first, last):
        i = idx[p]
        wi = w[i]
        if yk is not None:
            c = yk[i]
            lc = left[c]
            rc = node.counts[c] - lc
            if criterion == GINI:  # (l+w)² − l² and (r−w)² − r², in O(1)
                agg_left += wi * (2.0 * lc + wi)
                agg_right += wi * (wi - 2.0 * rc)
            elif criterion == ENTROPY:
                agg_left += xlogx(lc + wi) - xlogx(lc)
                agg_right += xlogx(rc - wi) - xlogx(rc)
            left[c] = lc + wi
        if y is not None:
            s_left += wi * y[i]
        w_left += wi
        n_left += 1
        if p + 1 < end_nn:
            following = xf[idx[p + 1]]
            tied = following == current
            current = following
            if tied:
                continue  # thresholds lie only between distinct values
        verdict = admissible(n_left, end - start, w_left, total, scoring.min_samples, scoring.min_weight)
        if verdict == STOP:
            break
        if verdict == SKIP:
            continue
        w_right = total - w_left
        proxy = -np.inf
        if yk is not None:
            if criterion == GINI:
                proxy = agg_left / w_left + agg_right / w_right
            elif criterion == ENTROPY:
                proxy = agg_left - xlogx(w_left) + agg_right - xlogx(w_right)
            else:
                proxy = _misclassification_proxy(left, node.counts)
        if y is not None:
            s_right = node.weighted_sum - s_left
            proxy = s_left * s_left / w_left + s_right * s_right / w_right
        if proxy > best:
            best = proxy
            best_pos = p
    return best, best_pos


@njit(inline="always")
def _range_sums(idx, lo, hi, yk, y, w, counts):
    """(Σ w, Σ w·y) of the samples idx[lo:hi]; a classifier's class weights into ``counts``."""
    w_sum = 0.0
    s_sum = 0.0
    if yk is not None:
        w_sum = class_counts(idx, lo, hi, yk, w, counts)
    if y is not None:
        for p in range(lo, hi):
            s_sum += w[idx[p]] * y[idx[p]]
            w_sum += w[idx[p]]
    return w_sum, s_sum


@njit
def _misclassification_proxy(left, counts):
    """max_k n_Lk + max_k n_Rk."""
    max_left = 0.0
    max_right = 0.0
    for k in range(counts.size):
        max_left = max(max_left, left[k])
        max_right = max(max_right, counts[k] - left[k])
    return max_left + max_right


@njit
def set_proxy(idx, start, end, yk, y, target, counts, work):
    """(proxy term, weight) of one child holding the samples idx[start:end], computed directly."""
    criterion = target.criterion
    if yk is not None:  # a classifier (its y is None; see _builder._node_stats)
        total = class_counts(idx, start, end, yk, target.weight, counts)
        return class_proxy(counts, total, criterion), total
    if y is not None:
        value, impurity, total, _ = regression_stats(idx, start, end, y, target.weight, criterion, work.y_buffer,
                                                     work.w_buffer)
        if criterion == SQUARED_ERROR:
            return value * value * total, total  # S²/W = ȳ² W
        return -impurity * total, total
    return 0.0, 0.0


@njit
def _categorical_groups(col, bounds):
    """Runs of equal values (and the NaN run) of a sorted segment: group g is bounds[g]:bounds[g+1]."""
    idx, xf, start, end_nn, end, _ = col
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
def find_split_exact(exact, node, yk, y, target, rules, work):
    """Best split of the node exact.sidx[:, node.start:node.end] over the features drawn for it.

    ``yk``/``y``: the target's class codes or values (the other None: each task compiles only its
    own sweeps). Returns (kind, feature, last left position, threshold, missing_left, n_groups,
    proxy); for a categorical split the group bounds are left in ``work.best_groups``.
    """
    sidx, start, end = exact.sidx, node.start, node.end
    # A child lighter than MIN_CHILD_SHARE of the node is rounding noise: never divide by it.
    scoring = Scoring(target.criterion, rules.min_samples_leaf, max(rules.min_weight_leaf, MIN_CHILD_SHARE * node.total))
    features, grp_cur, grp_best = work.features, work.groups, work.best_groups
    n_features = features.size  # (``features`` is 0 … n − 1 here: the draws are undone on return)
    # When every feature is searched, the whole draw order is made first and the features are
    # searched in column order, a tie going to the one drawn first: the split of a search in draw
    # order, but the values of neighbouring columns share the cache lines of X's rows.
    in_column_order = rules.max_features >= n_features and not rules.random_splitter
    # The arrays read per feature, out of their records once: each read of a record's array
    # costs an atomic reference count up and down, and there are nodes × features of them.
    draw_rank, found = work.feature_lists[0], work.feature_lists[1]
    known, ids, values = exact.known, exact.ids, exact.values
    found[0] = 0
    table, state, weight, counts = exact.table, target.state, target.weight, work.counts
    presorted, by_column, is_categorical = exact.presorted, exact.by_column, target.is_categorical
    # A sparse X (_sparse_columns): each feature is scattered into table[0] and cleared after.
    sparse, one_zero_enough = exact.sparse, not rules.random_splitter
    scattered = False
    zero_lo = zero_hi = start
    run_end = -1
    drawn = 0
    if in_column_order:
        for f_i in range(n_features):
            _draw(state, features, f_i, draw_rank)
        for f_i in range(n_features):
            draw_rank[features[f_i]] = f_i
        drawn = n_features
    if y is not None:
        if target.criterion == ABSOLUTE_ERROR:
            prepare_ranks(sidx[0], start, end, y, work.rank_of, work.sorted_y)

    best_kind = NO_SPLIT
    best_feature = -1
    best_pos = -1
    best_threshold = np.nan
    best_missing_left = False
    best_groups = 0
    best = -np.inf
    best_rank = n_features  # the draw rank of the best feature so far
    searched = False  # whether a feature not constant in the node was searched
    for f_i in range(n_features):
        if scattered:
            clear_sparse_feature(table[0], ids[1], start, zero_lo, zero_hi, end)
            scattered = False
        if f_i >= rules.max_features and searched:
            break  # max_features drawn, constant ones included (scikit-learn's rule), and one searched
        if in_column_order:
            f = f_i
            rank = draw_rank[f]
        else:
            f = _draw(state, features, f_i, draw_rank)
            rank = f_i
            drawn += 1
        if sparse:
            xf = table[0]
        else:
            xf = table[f] if by_column else table[:, f]  # (feature_values, from the locals)
        if presorted:
            idx = sidx[f]
            n_miss = count_missing(idx, xf, start, end)
            end_nn = end - n_miss
            if end_nn == start or (n_miss == 0 and xf[idx[start]] == xf[idx[end_nn - 1]]):
                continue  # constant in this node: nothing to search
        else:  # node-sorted (_node_sort): this feature's order is made now
            if known[f]:
                continue  # constant in an ancestor, so here too
            idx = ids[1]
            if sparse:
                end_nn, zero_lo, zero_hi, run_end = sort_sparse_feature(exact, f, start, end, idx, values, xf,
                                                                        one_zero_enough)
                scattered = end_nn >= 0
            else:
                end_nn = sort_feature(sidx[0], xf, start, end, idx, values)
            if end_nn < 0:  # listed for the descendants (_builder._keep_found)
                found[0] += 1
                found[found[0]] = f
                continue
            n_miss = end - end_nn
        searched = True
        col = Column(idx, xf, start, end_nn, end, run_end)

        if is_categorical[f]:
            n_groups = _categorical_groups(col, grp_cur)
            proxy = 0.0
            ok = n_groups >= 2
            for g in range(n_groups):
                if not ok:
                    break
                pg, wg = set_proxy(idx, grp_cur[g], grp_cur[g + 1], yk, y, target, work.counts, work)
                ok = grp_cur[g + 1] - grp_cur[g] >= scoring.min_samples and wg >= scoring.min_weight
                proxy += pg
            if ok and _better(proxy, rank, best, best_rank):
                _keep_order(exact, col, zero_lo, zero_hi)
                best, best_rank = proxy, rank
                best_kind = CATEGORICAL_SPLIT
                best_feature = f
                best_groups = n_groups
                best_threshold = np.nan
                for g in range(n_groups + 1):
                    grp_best[g] = grp_cur[g]
            continue

        if rules.random_splitter:
            proxy, pos, threshold, missing_left = _random_split(col, yk, y, target, node, scoring, work)
            if pos >= 0 and _better(proxy, rank, best, best_rank):
                _keep_order(exact, col, zero_lo, zero_hi)
                best, best_rank, best_kind, best_feature, best_pos = proxy, rank, THRESHOLD_SPLIT, f, pos
                best_threshold, best_missing_left = threshold, missing_left
            continue

        for missing_left in (False, True):
            if missing_left and n_miss == 0:
                break
            proxy, pos = -np.inf, -1
            if target.criterion == ABSOLUTE_ERROR:
                proxy, pos = sweep_absolute_error(col, y, target.weight, node.total, scoring, work.rank_of, work)
            else:  # yk and y are tested on the arguments: each task compiles only its own sweep
                proxy, pos = _sweep(col, yk, y, weight, node, scoring, missing_left, counts)
            if pos >= 0 and _better(proxy, rank, best, best_rank):
                if best_feature != f:  # (the second sweep of the same feature has the same order)
                    _keep_order(exact, col, zero_lo, zero_hi)
                best, best_rank, best_kind, best_feature, best_pos = proxy, rank, THRESHOLD_SPLIT, f, pos
                if pos == end_nn - 1:
                    best_threshold = np.inf  # NaN ≤ inf is false: only the NaN go right
                else:
                    best_threshold = midpoint(xf[idx[pos]], xf[idx[pos + 1]])
                n_left = pos + 1 - start
                best_missing_left = missing_left if n_miss > 0 else n_left > end - start - n_left
    if scattered:
        clear_sparse_feature(table[0], ids[1], start, zero_lo, zero_hi, end)
    _undo_draws(features, draw_rank, drawn, in_column_order)
    return best_kind, best_feature, best_pos, best_threshold, best_missing_left, best_groups, best


@njit(inline="always")
def _draw(state, features, f_i, swapped):
    """The next feature of a Fisher–Yates draw without replacement (``features[f_i]``), the
    position it came from in ``swapped[f_i]``."""
    j = rand_int(state, f_i, features.size)
    f = features[j]
    features[j] = features[f_i]
    features[f_i] = f
    swapped[f_i] = j
    return f


@njit(inline="always")
def _undo_draws(features, swapped, drawn, everything):
    """``features`` back to 0 … n − 1 after ``drawn`` draws: O(drawn), not O(n), when a node drew
    a few features of many (every node starts from the same order: see _random)."""
    if everything:
        for f in range(features.size):
            features[f] = f
    else:
        for k in range(drawn):
            features[swapped[k]] = swapped[k]
            features[k] = k


@njit(inline="always")
def _better(proxy, rank, best, best_rank):
    """Whether a candidate beats the best so far: a higher proxy, or the same from a feature drawn earlier."""
    return proxy > best or (proxy == best and rank < best_rank)


@njit(inline="always")
def _keep_order(exact, col, zero_lo, zero_hi):
    """A node-sorted search keeps the sorted order of its best feature so far (the next feature
    drawn is sorted into the same buffer); a presorted one has it already. A sparse feature's
    zeros [zero_lo, zero_hi) are listed in full as it is kept (_sparse_columns)."""
    idx, start, end = col.idx, col.start, col.end
    if exact.sparse:
        keep_sparse_order(exact, idx, col.x, start, end, zero_lo, zero_hi, col.run_end)
    elif not exact.presorted:
        kept = exact.ids[2]
        for p in range(start, end):
            kept[p] = idx[p]


@njit
def midpoint(a, b):
    """(a + b) / 2 by halves (no overflow), nudged down to a when rounding would reach b."""
    t = a / 2.0 + b / 2.0
    if t >= b or t < a:
        t = a
    return t


@njit
def _random_split(col, yk, y, target, node, scoring, work):
    """scikit-learn's "random" splitter: one threshold drawn uniformly in [min, max) of the node."""
    idx, xf, start, end_nn, end, _ = col
    w, criterion, total = target.weight, target.criterion, node.total
    lo = xf[idx[start]]
    hi = xf[idx[end_nn - 1]]
    n_miss = end - end_nn
    threshold = rand_uniform(target.state, lo, hi)
    if threshold >= hi:
        threshold = lo
    missing_left = n_miss > 0 and rand_int(target.state, 0, 2) == 1
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
    msl = scoring.min_samples
    if pos < start or pos >= end_nn - 1 or n_left < msl or end - start - n_left < msl:
        return -np.inf, -1, threshold, missing_left
    proxy, w_left, w_right = -np.inf, 0.0, 0.0
    if y is not None:  # a regressor (tested on the argument: see find_split_exact)
        if criterion == ABSOLUTE_ERROR:  # never with NaN: both children are contiguous
            pl, w_left = set_proxy(idx, start, pos + 1, yk, y, target, work.counts, work)
            pr, w_right = set_proxy(idx, pos + 1, end, yk, y, target, work.counts, work)
            proxy = pl + pr
        else:
            s_left = 0.0
            for p in range(start, end):
                if p <= pos or (p >= end_nn and missing_left):
                    s_left += w[idx[p]] * y[idx[p]]
                    w_left += w[idx[p]]
            w_right = total - w_left
            s_right = node.weighted_sum - s_left
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
            left[k] = node.counts[k] - left[k]
        proxy += class_proxy(left, w_right, criterion)
    if w_left < scoring.min_weight or w_right < scoring.min_weight:
        return -np.inf, -1, threshold, missing_left
    if n_miss == 0:
        missing_left = n_left > end - start - n_left
    return proxy, pos, threshold, missing_left


@njit
def assign_children(exact, start, end, split, bounds, child_of):
    """child_of[i] for the samples of the node, from the chosen split; returns the child sizes.

    ``split``: find_split_exact's result; ``bounds``: a categorical split's group bounds.
    """
    kind, feature, pos, _, missing_left, n_groups, _ = split
    idx = exact.sidx[feature] if exact.presorted else exact.ids[2]
    if kind == CATEGORICAL_SPLIT:
        sizes = np.empty(n_groups, dtype=np.int64)
        for g in range(n_groups):
            sizes[g] = bounds[g + 1] - bounds[g]
            for p in range(bounds[g], bounds[g + 1]):
                child_of[idx[p]] = g
        return sizes
    end_nn = end - count_missing(idx, feature_values(exact, feature), start, end)
    sizes = np.zeros(2, dtype=np.int64)
    for p in range(start, end):
        if p < end_nn:
            c = 0 if p <= pos else 1
        else:
            c = 0 if missing_left else 1
        child_of[idx[p]] = c
        sizes[c] += 1
    if exact.sparse:  # the best feature's scattered values back to zero
        clear_range(exact.table[1], idx, start, end)
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
            c = child_of[i]
            q = offsets[c]
            offsets[c] = q + 1
            tmp_idx[q] = i
        for p in range(start, end):  # explicit loops: no array-to-array assignment in kernels
            idx[p] = tmp_idx[p]
