"""Scoring the thresholds of one sorted feature of a node, for the exact search (``_splitter``).

:func:`sweep` moves samples one at a time from the right child to the left, updates the proxy of
``_criteria`` in O(1) per sample (gini, entropy, squared error) and scores only the midpoints
between consecutive *distinct* values (004 §12; the left child is x ≤ t). :func:`random_split`
is scikit-learn's "random" splitter: one threshold drawn uniformly between the node's smallest
and largest value. :func:`two_value_sweep` scores a feature with two values in the node (a
one-hot column) without sorting it. :func:`set_proxy` scores one child directly (categorical
groups).
"""

from collections import namedtuple

import numpy as np

from ..utils import njit
from ._criteria import (
    ABSOLUTE_ERROR,
    ENTROPY,
    GINI,
    SKIP,
    SQUARED_ERROR,
    STOP,
    admissible,
    beats,
    class_counts,
    class_proxy,
    regression_stats,
    xlogx,
)
from ._random import rand_int, rand_uniform

# One sorted feature of a node: sample ids ``idx[start:end]`` in increasing order of the values
# ``x`` (a column of X, read at the samples), the NaN from ``end_nn`` on. A node-sorted search
# (``by_position``) has the sorted values themselves in ``values[start:end]``: read there, in
# order, and not again from X's rows scattered in memory (read at :func:`value_at`). ``run_end``:
# where the run of the smallest value ends when it is known without reading it (a sparse
# feature's zeros, of which only the last is listed: _sparse_columns), else −1.
Column = namedtuple("Column", ["idx", "x", "values", "by_position", "start", "end_nn", "end", "run_end"])

# How a sweep scores a candidate: the criterion, and the least a child may hold (samples:
# min_samples_leaf, and weight).
Scoring = namedtuple("Scoring", ["criterion", "min_samples", "min_weight"])


@njit(inline="always")
def value_at(col, p):
    """The value at sorted position p of a :class:`Column`. (Not in loops: every call with arrays,
    inlined or not, counts their references up and down. A loop takes the arrays out of the
    column once and reads ``values[p] if by_position else x[idx[p]]`` itself.)"""
    if col.by_position:
        return col.values[p]
    return col.x[col.idx[p]]


@njit(inline="always")
def sweep(col, yk, y, w, node, scoring, missing_left, left):
    """Best proxy and last left position of a threshold split on one presorted feature.

    One sweep for both tasks: a classifier's (``yk`` given, ``y`` None) moves its weighted class
    counts into ``left`` and keeps the gini/entropy aggregates in O(1) per sample; a regressor's
    (``yk`` None) moves S_L = Σ w·y, for the proxy S_L²/W_L + S_R²/W_R. ``missing_left``: the
    node's NaN samples start on the left. (Only the arrays it reads are passed: every array
    argument of a call that is not inlined costs a reference count up and down.)
    """
    idx, start, end_nn, end, run_end = col.idx, col.start, col.end_nn, col.end, col.run_end
    x, values, by_position = col.x, col.values, col.by_position
    criterion, total = scoring.criterion, node.total
    # The left child starts with the node's NaN samples (``missing_left``) or nothing. But when
    # more than half of the node shares its smallest value (the zeros of a count column), all
    # but the last of those samples go left at once, as the node's sums minus those of the rest:
    # O(rest) instead of O(run), and the thresholds inside the run would be ties anyway.
    first = start + 1
    if run_end > 0:
        first = run_end
    else:
        smallest = (values[start] if by_position else x[idx[start]])
        while first < end_nn and (values[first] if by_position else x[idx[first]]) == smallest:
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
    current = (values[first] if by_position else x[idx[first]])
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
            following = (values[p + 1] if by_position else x[idx[p + 1]])
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
        if beats(proxy, best):
            best = proxy
            best_pos = p
    return best, best_pos


@njit(inline="always")
def two_value_sweep(samples, x, pair, yk, y, w, node, scoring, right):
    """(proxy, samples left, whether x takes no other values) of the one threshold of a feature
    that takes only the values ``pair`` = (smallest, largest) at the node's ``samples``.

    A one-hot or binary column (most columns of an encoded table) has a single candidate, between
    its two values: one pass over the samples in node order sums those of the larger value (the
    right child) and those of the smaller, where :func:`sweep` needs them sorted first; the sums
    are those of :func:`sweep`'s candidate, added in another order. The pass also counts the
    values that are neither (or NaN): with any, the third result is False and the first two mean
    nothing. The proxy is −inf when a child would be too small (or empty). ``right``: scratch for
    a classifier's right-child class weights.
    """
    smallest, largest = pair
    n_right = 0
    n_either = 0
    w_left = 0.0
    w_right = 0.0
    s_left = 0.0
    s_right = 0.0
    if yk is not None:
        for k in range(right.size):
            right[k] = 0.0
    for i in samples:  # branch-free: each sample adds its weight to one side, 0 to the other
        v = x[i]
        goes_right = v == largest
        n_either += goes_right | (v == smallest)
        wr = w[i] if goes_right else 0.0
        wl = w[i] - wr
        n_right += goes_right
        w_left += wl
        w_right += wr
        if y is not None:
            s_left += wl * y[i]
            s_right += wr * y[i]
        if yk is not None:
            right[yk[i]] += wr
    n_left = samples.size - n_right
    if n_either != samples.size:
        return -np.inf, n_left, False
    if (n_left < scoring.min_samples or n_right < scoring.min_samples or w_left < scoring.min_weight
            or w_right < scoring.min_weight):
        return -np.inf, n_left, True
    if y is not None:
        return s_left * s_left / w_left + s_right * s_right / w_right, n_left, True
    if yk is not None:
        proxy = class_proxy(right, w_right, scoring.criterion)
        for k in range(right.size):
            right[k] = max(node.counts[k] - right[k], 0.0)  # now the left child's (never below 0 by rounding)
        return proxy + class_proxy(right, w_left, scoring.criterion), n_left, True
    return -np.inf, n_left, True


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
def midpoint(a, b):
    """(a + b) / 2 by halves (no overflow), nudged down to a when rounding would reach b."""
    t = a / 2.0 + b / 2.0
    if t >= b or t < a:
        t = a
    return t


@njit
def random_split(col, yk, y, target, node, scoring, work):
    """scikit-learn's "random" splitter: one threshold drawn uniformly in [min, max) of the node."""
    idx, start, end_nn, end = col.idx, col.start, col.end_nn, col.end
    w, criterion, total = target.weight, target.criterion, node.total
    lo = np.float64(value_at(col, start))  # (float64 whatever X's precision: one draw for all)
    hi = np.float64(value_at(col, end_nn - 1))
    n_miss = end - end_nn
    threshold = rand_uniform(target.state, lo, hi)
    if threshold >= hi:
        threshold = lo
    missing_left = n_miss > 0 and rand_int(target.state, np.int64(0), np.int64(2)) == 1
    a = start  # last position with value ≤ threshold, by bisection
    b = end_nn
    x, values, by_position = col.x, col.values, col.by_position
    while a < b:
        m = (a + b) >> 1
        if (values[m] if by_position else x[idx[m]]) <= threshold:
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
