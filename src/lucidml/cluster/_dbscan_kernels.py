"""Compiled loops of DBSCAN: the cluster expansion, and ε-neighbourhoods on a uniform grid.

The grid is the neighbour search for low dimensions. Space is cut into cubes of side a
little over ε, so every point within ε of x lies in x's cube or in one of the 3ᵈ − 1 cubes
around it. The points are sorted by cube (row-major cube number), so the three cubes of one
row of that 3ᵈ block are consecutive in the sort order: the points of a cube's neighbourhood
are 3ᵈ⁻¹ contiguous ranges, found by binary search once per cube, and the points of one cube,
queried one after the other, scan the same ranges while they are in cache.
"""

from collections import namedtuple

import numpy as np

from ..utils import njit

# Codes of the Minkowski exponent, so the distance test needs no pow() in the usual cases.
P_EUCLIDEAN, P_MANHATTAN, P_CHEBYSHEV, P_GENERAL = 0, 1, 2, 3

# The grid over the points sorted by cube: each point's cube coordinates ``cells`` and cube number
# ``keys``; the row-major ``strides`` and the cubes per axis ``n_cells``; the occupied cubes'
# numbers ``cell_keys`` (increasing) and where each one's points start in the sort, ``cell_start``.
Grid = namedtuple("Grid", ["cells", "keys", "strides", "n_cells", "cell_keys", "cell_start"])

# The ε test of a Minkowski distance (see _within): ``bound`` = εᵖ (ε for p = ∞), the exponent's
# code ``p_code`` (P_EUCLIDEAN, …) and the exponent ``p`` itself (floats, an int code).
Ball = namedtuple("Ball", ["bound", "p_code", "p"])

# Where grid_core_rows writes: the (weighted) size of every neighbourhood ``mass`` (all points), the
# kept lengths ``lengths`` of the block's rows, and their neighbours, one row after the other, ``buffer``.
Found = namedtuple("Found", ["mass", "lengths", "buffer"])


@njit
def expand_clusters(indptr, indices, is_core, seeds):
    """Labels of DBSCAN (002 §8.4): grow a cluster from every core point not yet labelled.

    ``indices[indptr[i]:indptr[i + 1]]`` is N_ε(i) for a core point i (empty for the others,
    whose neighbourhoods are never needed); the points are tried as seeds in the order
    ``seeds``. The first-in-first-out ``queue`` is the notes' growing list NP: a core point
    reached puts its unlabelled neighbours at the end of it; a border point reached joins the
    cluster and extends nothing. A point left at −1 when it was first seen (noise) is
    relabelled when a later cluster reaches it, and a border point keeps the first cluster
    that reached it.
    """
    n = is_core.shape[0]
    labels = np.full(n, -1, dtype=np.intp)
    queue = np.empty(n, dtype=np.intp)
    cluster = 0
    for seed in seeds:
        if labels[seed] != -1 or not is_core[seed]:
            continue
        labels[seed] = cluster
        queue[0] = seed
        head, tail = 0, 1
        while head < tail:
            q = queue[head]
            head += 1
            if not is_core[q]:
                continue
            for k in range(indptr[q], indptr[q + 1]):
                j = indices[k]
                if labels[j] == -1:
                    labels[j] = cluster
                    queue[tail] = j
                    tail += 1
        cluster += 1
    return labels


@njit
def _cell_ranges(cell, strides, n_cells, cell_keys, cell_start, ranges):
    """Sorted-order position ranges holding the points of the 3ᵈ cubes around ``cell``."""
    d = cell.shape[0]
    last = d - 1
    n_ranges = 0
    for m in range(3**last):
        key = 0
        inside = True
        code = m
        for j in range(last):
            c = cell[j] + code % 3 - 1
            code //= 3
            if c < 0 or c >= n_cells[j]:
                inside = False
                break
            key += c * strides[j]
        if not inside:
            continue
        first = key + max(cell[last] - 1, 0)
        final = key + min(cell[last] + 1, n_cells[last] - 1)
        a = np.searchsorted(cell_keys, first)
        b = np.searchsorted(cell_keys, final, side="right")
        if a < b:
            ranges[n_ranges, 0] = cell_start[a]
            ranges[n_ranges, 1] = cell_start[b]
            n_ranges += 1
    return n_ranges


@njit(inline="always")
def _within(X, i, Y, k, bound, p_code, p):
    """‖X[i] − Y[k]‖_p ≤ ε, tested as Σ|xⱼ − yⱼ|ᵖ ≤ εᵖ (``bound`` = εᵖ; ε itself for p = ∞)."""
    s = 0.0
    if p_code == P_EUCLIDEAN:
        for j in range(X.shape[1]):
            diff = X[i, j] - Y[k, j]
            s += diff * diff
    elif p_code == P_MANHATTAN:
        for j in range(X.shape[1]):
            s += abs(X[i, j] - Y[k, j])
    elif p_code == P_CHEBYSHEV:
        for j in range(X.shape[1]):
            s = max(s, abs(X[i, j] - Y[k, j]))
    else:
        for j in range(X.shape[1]):
            s += abs(X[i, j] - Y[k, j]) ** p
    return s <= bound


@njit
def grid_candidates(grid):
    """Points in the 3ᵈ cubes around each (sorted) point of a :class:`Grid`: a bound on its
    neighbourhood size."""
    cells, keys, strides, n_cells = grid.cells, grid.keys, grid.strides, grid.n_cells
    cell_keys, cell_start = grid.cell_keys, grid.cell_start
    n = cells.shape[0]
    out = np.empty(n, dtype=np.intp)
    ranges = np.empty((3 ** (cells.shape[1] - 1), 2), dtype=np.intp)
    total = 0
    for i in range(n):
        if i == 0 or keys[i] != keys[i - 1]:  # sorted by cube: one search per cube
            n_ranges = _cell_ranges(cells[i], strides, n_cells, cell_keys, cell_start, ranges)
            total = 0
            for r in range(n_ranges):
                total += ranges[r, 1] - ranges[r, 0]
        out[i] = total
    return out


@njit
def grid_core_rows(X, grid, ball, weight, min_samples, start, stop, found):
    """N_ε of the sorted points [start, stop), kept in ``found.buffer`` for the core points only.

    ``X``: the points sorted by cube, ``grid`` their :class:`Grid`, ``ball`` the ε test
    (:class:`Ball`); a point is core when the ``weight`` of its neighbours sums to ``min_samples``
    or more. Writes (a :class:`Found`) the (weighted) size of every neighbourhood to ``mass[i]``
    and the kept lengths to ``lengths[i − start]`` (0 for a point that is not core); returns how
    much of ``buffer`` was used.
    """
    cells, keys, strides, n_cells = grid.cells, grid.keys, grid.strides, grid.n_cells
    cell_keys, cell_start = grid.cell_keys, grid.cell_start
    bound, p_code, p = ball.bound, ball.p_code, ball.p
    mass, lengths, buffer = found.mass, found.lengths, found.buffer
    ranges = np.empty((3 ** (X.shape[1] - 1), 2), dtype=np.intp)
    n_ranges = 0
    used = 0
    for i in range(start, stop):
        if i == start or keys[i] != keys[i - 1]:
            n_ranges = _cell_ranges(cells[i], strides, n_cells, cell_keys, cell_start, ranges)
        begin = used
        m = 0.0
        for r in range(n_ranges):
            for pos in range(ranges[r, 0], ranges[r, 1]):
                if _within(X, i, X, pos, bound, p_code, p):
                    buffer[used] = pos
                    used += 1
                    m += weight[pos]
        mass[i] = m
        if m >= min_samples:
            lengths[i - start] = used - begin
        else:
            used = begin
            lengths[i - start] = 0
    return used


@njit
def rows_within(D, bound, lengths, buffer):
    """Columns c with D[r, c] ≤ ε of each row r of a distance block, row after row in ``buffer``."""
    used = 0
    for r in range(D.shape[0]):
        begin = used
        for c in range(D.shape[1]):
            if D[r, c] <= bound:
                buffer[used] = c
                used += 1
        lengths[r] = used - begin
    return used


@njit
def rows_within_euclidean(X, sq_norms, G, start, bound, tol, lengths, buffer):
    """As ``rows_within`` for the Euclidean distances of rows start, start + 1, … given G = X_rows Xᵀ.

    ‖a − b‖² = ‖a‖² + ‖b‖² − 2a·b is only a filter: its rounding error is below
    tol·(‖a‖² + ‖b‖²), so the pairs it passes are re-checked from the differences, which do not
    cancel.
    """
    used = 0
    for r in range(G.shape[0]):
        a = start + r
        begin = used
        for c in range(G.shape[1]):
            if sq_norms[a] + sq_norms[c] - 2.0 * G[r, c] <= bound + tol * (sq_norms[a] + sq_norms[c]):
                s = 0.0
                for j in range(X.shape[1]):
                    diff = X[a, j] - X[c, j]
                    s += diff * diff
                if s <= bound:
                    buffer[used] = c
                    used += 1
        lengths[r] = used - begin
    return used
