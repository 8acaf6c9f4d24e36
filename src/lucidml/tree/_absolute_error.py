"""Absolute-error split search: the weighted median of every prefix and suffix in O(n log n).

For a set with weighted median m, Σ wᵢ|yᵢ − m| = (S_≥ − m W_≥) + (m W_< − S_<), where S and W
are the weighted sums of y and of the weights below and above m. Samples enter a Fenwick
(binary indexed) tree at their rank in the node's sorted targets, so each insertion and each
search for the half-weight point costs O(log n). One forward sweep scores every left child,
one backward sweep every right child (the same scheme as scikit-learn ≥ 1.8).
"""

import numpy as np

from ..utils import njit
from ._criteria import SKIP, STOP, admissible


@njit
def prepare_ranks(idx, start, end, y, rank_of, sorted_y):
    """rank_of[i] = rank of y[i] among the node's targets; sorted_y = those targets sorted.

    ``rank_of`` is None unless the criterion is the absolute error (nothing to do, nothing compiled).
    """
    if rank_of is None:
        return
    n = end - start
    ys = np.empty(n)
    for p in range(start, end):
        ys[p - start] = y[idx[p]]
    order = np.argsort(ys)
    for k in range(n):
        sorted_y[k] = ys[order[k]]
        rank_of[idx[start + order[k]]] = k


@njit
def _search(fen, n, target, strict):
    """Smallest rank whose prefix weight is ≥ target (> target when ``strict``), with the
    weight and weighted-y sums of the ranks before it."""
    pos = 0
    cum_w = 0.0
    cum_wy = 0.0
    step = 1
    while step * 2 <= n:
        step *= 2
    while step > 0:
        nxt = pos + step
        if nxt <= n:
            node_w = fen[0, nxt]
            if node_w < target or (strict and node_w == target):
                pos = nxt
                target -= node_w
                cum_w += node_w
                cum_wy += fen[1, nxt]
        step //= 2
    return pos, cum_w, cum_wy  # pos is the 0-based rank


@njit
def _add(fen, n, rank, wi, wyi):
    k = rank + 1
    while k <= n:
        fen[0, k] += wi
        fen[1, k] += wyi
        k += k & (-k)


@njit
def _abs_error_pass(idx, first, stop, step, y, w, work, out):
    """Absolute error about the weighted median of every prefix visited from ``first`` by ``step``
    (towards ``stop``, excluded): out[p − lowest position] for every position p visited."""
    rank_of, sorted_y, fen = work.rank_of, work.sorted_y, work.fenwick
    n = abs(stop - first)
    offset = first if step > 0 else stop + 1
    for k in range(n + 1):
        fen[0, k] = 0.0
        fen[1, k] = 0.0
    weight = np.zeros(n)
    total_w = 0.0
    total_wy = 0.0
    p = first
    while p != stop:
        i = idx[p]
        r = rank_of[i]
        _add(fen, n, r, w[i], w[i] * y[i])
        weight[r] = w[i]
        total_w += w[i]
        total_wy += w[i] * y[i]
        half = 0.5 * total_w
        r_med, w_below, wy_below = _search(fen, n, half, False)
        if w_below + weight[r_med] == half:  # exactly half the weight up to r_med: midpoint
            r_next, _, _ = _search(fen, n, half, True)
            median = 0.5 * (sorted_y[r_med] + sorted_y[r_next])
            w_below += weight[r_med]
            wy_below += weight[r_med] * sorted_y[r_med]
        else:
            median = sorted_y[r_med]
        out[p - offset] = (total_wy - wy_below - median * (total_w - w_below)) + (median * w_below - wy_below)
        p += step


@njit
def sweep_absolute_error(col, y, w, total, scoring, rank_of, work):
    """Best proxy −(AE_left + AE_right) and last left position over one presorted feature
    (``col``: a ``_splitter.Column`` without NaN; ``work``: rank_of, sorted_y, fenwick, abs_errors).

    ``rank_of`` is None unless the criterion is the absolute error (nothing to do, nothing compiled).
    """
    if rank_of is None:
        return -np.inf, -1
    idx, start, end = col.idx, col.start, col.end
    x, values, by_position = col.x, col.values, col.by_position
    ae = work.abs_errors
    n = end - start
    _abs_error_pass(idx, start, end, np.int64(1), y, w, work, ae[0])
    _abs_error_pass(idx, end - 1, start - 1, np.int64(-1), y, w, work, ae[1])
    best = -np.inf
    best_pos = -1
    w_left = 0.0
    for p in range(start, end - 1):
        w_left += w[idx[p]]
        if (values[p + 1] if by_position else x[idx[p + 1]]) == (values[p] if by_position else x[idx[p]]):
            continue
        verdict = admissible(p + 1 - start, n, w_left, total, scoring.min_samples, scoring.min_weight)
        if verdict == STOP:
            break
        if verdict == SKIP:
            continue
        proxy = -(ae[0, p - start] + ae[1, p + 1 - start])
        if proxy > best:
            best = proxy
            best_pos = p
    return best, best_pos
