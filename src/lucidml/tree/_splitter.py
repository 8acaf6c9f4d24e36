"""Exact split search (``max_bins=None``): the best split of a node over the features it draws.

A node's samples come sorted by each feature it examines in one of three ways (``_exact_data``):
presorted once for the whole fit (``sidx[f, start:end]``: the sample ids, uint32, of a node in
increasing order of x_f, NaN last; the values are read from X, ``xf[sidx[f, p]]``; a split stably
partitions every row, so both children stay sorted and no node ever sorts again), sorted at the
node (``_node_sort``), or, for a sparse X, only the node's nonzeros sorted (``_sparse_columns``).
Each sorted feature is then scored by ``_threshold_sweep`` (or the absolute error's own sweep,
or the categorical groups). With missing values the sweep runs twice, once with the NaN samples
on each side, and the better side is learned; a node without NaN at training time sends NaN to
the larger child (scikit-learn's rule). :func:`assign_children` and :func:`partition_rows` apply
the chosen split.
"""

from collections import namedtuple

import numpy as np
from numba import types
from numba.extending import overload

from ..utils import njit
from ..utils._borrowed import borrowed
from ._absolute_error import prepare_ranks, sweep_absolute_error
from ._criteria import ABSOLUTE_ERROR, beats_ranked
from ._node_sort import gather_feature, partition_two_values, sort_pairs, sort_values, two_valued
from ._random import LAST_RANK, feature_rank, rand_int
from ._sparse_columns import clear_range, clear_sparse_feature, keep_sparse_order, sort_sparse_feature
from ._threshold_sweep import (
    Column,
    Scoring,
    midpoint,
    random_split,
    set_proxy,
    sweep,
    two_value_sweep,
    value_at,
)

NO_SPLIT = 0
THRESHOLD_SPLIT = 1
CATEGORICAL_SPLIT = 2

# A child's weight comes out of Σ_node − Σ_left: when it holds less than this share of its
# node's weight (one sample of weight 1e-17 beside samples of weight 1), that difference is
# rounding noise, possibly 0 or negative, and no split is scored on it.
MIN_CHILD_SHARE = 1e-10

# A node's samples sidx[:, start:end] and their sums: weighted class counts (a classifier's),
# total weight, Σ w·y (a regressor's).
NodeSums = namedtuple("NodeSums", ["start", "end", "counts", "total", "weighted_sum"])


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


@njit
def _categorical_groups(col, bounds):
    """Runs of equal values (and the NaN run) of a sorted segment: group g is bounds[g]:bounds[g+1]."""
    idx, x, values, by_position = col.idx, col.x, col.values, col.by_position
    start, end_nn, end = col.start, col.end_nn, col.end
    g = 0
    bounds[0] = start
    for p in range(start + 1, end_nn):
        if (values[p] if by_position else x[idx[p]]) != (values[p - 1] if by_position else x[idx[p - 1]]):
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
def find_split_exact(exact, values, csc, node, yk, y, target, rules, work):
    """Best split of the node exact.sidx[:, node.start:node.end] over the features drawn for it.

    ``yk``/``y``: the target's class codes or values (the other None: each task compiles only its
    own sweeps). ``values`` and ``csc`` are ``exact.values`` and ``exact.csc``, passed apart for the
    same reason: ``values`` is None for a presorted search and ``csc`` for a dense X, so a presorted
    fit compiles neither node-sorted nor sparse code (that code was almost half of a regression
    tree's compile), and a dense node-sorted fit no sparse code. (Numba prunes on None only: a
    sparse fit, both arguments arrays, compiles all three ways.)
    Returns (kind, feature, last left position, threshold, missing_left, n_groups, proxy); for a
    categorical split the group bounds are left in ``work.best_groups``.
    """
    # Borrowed (utils._borrowed: the caller holds them, only numbers are returned), so that no
    # view or binding of an array in the loop over features counts references (it was 45% of a
    # tree's fit). ``yk`` and ``y`` stay as given: Numba drops a branch only on a None-typed argument,
    # and so do ``presorted`` and ``sparse`` (``if presorted:``), told from the arguments before
    # ``values`` is borrowed: the branches of the other ways of sorting are not compiled.
    presorted = values is None
    sparse = csc is not None
    exact, node, target, work, values = borrowed((exact, node, target, work, values))
    sidx, start, end = exact.sidx, node.start, node.end
    # A child lighter than MIN_CHILD_SHARE of the node is rounding noise: never divide by it.
    scoring = Scoring(target.criterion, rules.min_samples_leaf,
                      max(rules.min_weight_leaf, MIN_CHILD_SHARE * node.total))
    features, grp_cur, grp_best = work.features, work.groups, work.best_groups
    n_features = features.size  # (``features`` is 0 … n − 1 here: the draws are undone on return)
    # When every feature is searched, they are searched in column order (the values of neighbouring
    # columns share the cache lines of X's rows), a tie going to the feature of the lower random
    # rank (_random.feature_rank): as if drawn in random order, but without a draw per feature.
    in_column_order = rules.max_features >= n_features and not rules.random_splitter
    # The arrays read per feature, out of their records once.
    swapped, found = work.feature_lists[0], work.feature_lists[1]
    known, hints = exact.known, exact.hints
    found[0] = 0
    table, state, weight, counts = exact.table, target.state, target.weight, work.counts
    by_column, is_categorical = exact.by_column, target.is_categorical
    # Views made once, not per feature: the node's samples and, node-sorted, the row each drawn
    # feature's order is sorted into (a presorted search has one row of ids and no use for it).
    node_order, sorted_ids = sidx[0], exact.ids[0 if presorted else 1]
    # A sparse X (_sparse_columns): each feature is scattered into table[0] and cleared after.
    one_zero_enough = not rules.random_splitter
    scattered = False
    zero_lo = zero_hi = start
    run_end = -1
    drawn = 0
    node_seed = state[0]  # (_builder seeds each node's draws: _random.seed_node)
    # Features with two values in a node are scored unsorted (_threshold_sweep.two_value_sweep) by the
    # best splitter, for the criteria that sweep.
    two_value_search = not rules.random_splitter and target.criterion != ABSOLUTE_ERROR
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
    best_rank = LAST_RANK  # the rank of the best feature so far
    searched = False  # whether a feature not constant in the node was searched
    for f_i in range(n_features):
        if sparse and scattered:
            clear_sparse_feature(table[0], sorted_ids, start, zero_lo, zero_hi, end)
            scattered = False
        if f_i >= rules.max_features and searched:
            break  # max_features drawn, constant ones included (scikit-learn's rule), and one searched
        if in_column_order:
            f = f_i
            rank = feature_rank(node_seed, f)
        else:
            f = _draw(state, features, f_i, swapped)
            rank = np.uint64(f_i)
            drawn += 1
        if not presorted and known[f]:
            continue  # constant in an ancestor, so here too (tested before any view is made)
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
            idx = sorted_ids
            if sparse:
                end_nn, zero_lo, zero_hi, run_end = sort_sparse_feature(exact, f, start, end, idx, values, xf,
                                                                        one_zero_enough)
                scattered = end_nn >= 0
            else:
                # A feature with two values in the node and no NaN (a one-hot column) has one
                # candidate, scored unsorted in one pass over X. ``hints[f]``: the two values f took
                # in a node searched before, tried first (the pass checks them) before gathering.
                samples = node_order[start:end]
                may_have_two = two_value_search and not is_categorical[f]
                scored = gathered = False
                smallest, largest = hints[f, 0], hints[f, 1]
                if may_have_two and smallest < largest:
                    proxy, n_left, scored = two_value_sweep(samples, xf, (smallest, largest), yk, y, weight, node,
                                                            scoring, counts)
                if not scored:
                    end_nn, smallest, largest = gather_feature(node_order, xf, start, end, idx, values)
                    gathered = True
                    two_values = may_have_two and end_nn == end and two_valued(values, start, end, smallest, largest)
                    hints[f, 0], hints[f, 1] = (smallest, largest) if two_values else (np.nan, np.nan)
                    if two_values:
                        proxy, n_left, scored = two_value_sweep(samples, xf, (smallest, largest), yk, y, weight,
                                                                node, scoring, counts)
                if scored and 0 < n_left < end - start:
                    searched = True
                    if proxy > -np.inf and beats_ranked(proxy, rank, best, best_rank):
                        if not gathered:
                            gather_feature(node_order, xf, start, end, idx, values)
                        partition_two_values(values, idx, start, end, smallest, largest)
                        _keep_order(exact, sparse, Column(idx, xf, values, True, start, end, end, -1), start, start)
                        best, best_rank, best_kind, best_feature = proxy, rank, THRESHOLD_SPLIT, f
                        best_pos, best_threshold = start + n_left - 1, midpoint(smallest, largest)
                        best_missing_left = n_left > end - start - n_left
                    continue
                if scored:
                    end_nn = -1  # one of its two values only: constant in this node
                elif end_nn >= 0 and may_have_two and end_nn == end:
                    sort_pairs(values, idx, start, end)  # more than two values: two_valued said so above
                elif end_nn >= 0:
                    sort_values(values, idx, start, end_nn, smallest, largest)
            if end_nn < 0:  # listed for the descendants (_store.keep_found)
                found[0] += 1
                found[found[0]] = f
                continue
            n_miss = end - end_nn
        searched = True
        col = Column(idx, xf, _sorted_values(values, xf), not (presorted or sparse), start, end_nn, end, run_end)

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
            if ok and beats_ranked(proxy, rank, best, best_rank):
                _keep_order(exact, sparse, col, zero_lo, zero_hi)
                best, best_rank = proxy, rank
                best_kind = CATEGORICAL_SPLIT
                best_feature = f
                best_groups = n_groups
                best_threshold = np.nan
                for g in range(n_groups + 1):
                    grp_best[g] = grp_cur[g]
            continue

        if rules.random_splitter:
            proxy, pos, threshold, missing_left = random_split(col, yk, y, target, node, scoring, work)
            if pos >= 0 and beats_ranked(proxy, rank, best, best_rank):
                _keep_order(exact, sparse, col, zero_lo, zero_hi)
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
                proxy, pos = sweep(col, yk, y, weight, node, scoring, missing_left, counts)
            if pos >= 0 and beats_ranked(proxy, rank, best, best_rank):
                if best_feature != f:  # (the second sweep of the same feature has the same order)
                    _keep_order(exact, sparse, col, zero_lo, zero_hi)
                best, best_rank, best_kind, best_feature, best_pos = proxy, rank, THRESHOLD_SPLIT, f, pos
                if pos == end_nn - 1:
                    best_threshold = np.inf  # NaN ≤ inf is false: only the NaN go right
                else:
                    best_threshold = midpoint(value_at(col, pos), value_at(col, pos + 1))
                n_left = pos + 1 - start
                best_missing_left = missing_left if n_miss > 0 else n_left > end - start - n_left
    if sparse and scattered:
        clear_sparse_feature(table[0], sorted_ids, start, zero_lo, zero_hi, end)
    _undo_draws(features, swapped, drawn)
    return best_kind, best_feature, best_pos, best_threshold, best_missing_left, best_groups, best


def _sorted_values(values, xf):
    """A Column's ``values``: the node-sorted buffer, or, for a presorted search (``values`` None;
    never read, the column is not ``by_position``), X's column."""
    return xf if values is None else values


# Chosen by type (a node-sorted fit's branch on ``values is None`` would be compiled, and its two
# arrays of different precisions would not unify).
@overload(_sorted_values)
def _sorted_values_compiled(values, xf):
    if isinstance(values, types.NoneType):
        return lambda values, xf: xf
    return lambda values, xf: values


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
def _undo_draws(features, swapped, drawn):
    """``features`` back to 0 … n − 1 after ``drawn`` draws: O(drawn), not O(n), when a node drew
    a few features of many (every node starts from the same order: see _random)."""
    for k in range(drawn):
        features[swapped[k]] = swapped[k]
        features[k] = k


@njit(inline="always")
def _keep_order(exact, sparse, col, zero_lo, zero_hi):
    """A node-sorted search keeps the sorted order of its best feature so far (the next feature
    drawn is sorted into the same buffer); a presorted one has it already. A sparse feature's
    zeros [zero_lo, zero_hi) are listed in full as it is kept (_sparse_columns). ``sparse``:
    find_split_exact's, tested as it is, so that a dense fit compiles no sparse code here."""
    idx, start, end = col.idx, col.start, col.end
    if sparse:
        keep_sparse_order(exact, idx, col.x, start, end, zero_lo, zero_hi, col.run_end)
    elif not exact.presorted:
        kept = exact.ids[2]
        for p in range(start, end):
            kept[p] = idx[p]


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
