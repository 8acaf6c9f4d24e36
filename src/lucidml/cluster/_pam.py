"""Compiled kernels of the k-medoids family: BUILD, SWAP, the alternating update, and swap costs.

Layout: ``Dc[c, o]`` is d(x_o, x_c), the distance of point o to the candidate medoid c, so one
candidate's distances to all points are one contiguous row. For a symmetric metric ``Dc`` is
just the distance matrix. ``Dk`` is the K × n block of the current medoids' rows.

Swap costs use each point's nearest medoid (slot ``nearest[o]``, distance ``dn[o]``) and the
distance to its second nearest (``ds[o]``). Replacing the medoid of slot j by candidate c moves
point o to

    min(d(o, c), ds[o])   if nearest[o] = j     (it lost its medoid)
    min(d(o, c), dn[o])   otherwise             (it keeps its medoid unless c is closer)

so the change of the cost splits into a part shared by every j and a part owned by one slot:

    Δ(j, c) = Σ_o min(d(o,c) − dn[o], 0) + Σ_{o: nearest[o]=j, d(o,c) ≥ dn[o]} (min(d(o,c), ds[o]) − dn[o]).

One pass over the row of c therefore prices the swaps of c with all K medoids at once (the idea of
FastPAM1, Schubert & Rousseeuw 2019): O(n) per candidate instead of O(K·n), and no cost is ever
recomputed from scratch.
"""

import numpy as np

from ..utils import njit

# Let LLVM reorder (vectorize) sums; infinities and NaNs keep their IEEE meaning (ds is +∞ for K = 1).
_SUM_IN_ANY_ORDER = {"reassoc", "nsz"}


@njit
def nearest_two(Dk):
    """Slot of each point's nearest medoid, its distance, and the distance to the second nearest.

    ``ds`` is +∞ when there is a single medoid.
    """
    n_medoids, n = Dk.shape
    nearest = np.zeros(n, dtype=np.int64)
    dn = Dk[0].copy()
    ds = np.full(n, np.inf)
    for j in range(1, n_medoids):
        row = Dk[j]
        for o in range(n):
            d = row[o]
            if d < dn[o]:
                ds[o] = dn[o]
                dn[o] = d
                nearest[o] = j
            elif d < ds[o]:
                ds[o] = d
    return nearest, dn, ds


@njit
def swap_deltas(row, nearest, dn, ds, delta):
    """Write Δ(j, c) for every slot j into ``delta``, given the row of distances to candidate c."""
    delta[:] = 0.0
    shared = 0.0
    for o in range(row.shape[0]):
        d = row[o]
        if d < dn[o]:
            shared += d - dn[o]  # o moves to c whichever medoid leaves
        else:
            delta[nearest[o]] += min(d, ds[o]) - dn[o]  # o pays only if its own medoid leaves
    delta += shared


@njit(fastmath=_SUM_IN_ANY_ORDER)
def swap_delta(row, slot, nearest, dn, ds):
    """Δ(slot, c) alone: the change of the cost when candidate c replaces the medoid of ``slot``."""
    total = 0.0
    for o in range(row.shape[0]):
        d = row[o]
        lost = min(d, ds[o]) - dn[o]  # o's medoid leaves
        kept = min(d - dn[o], 0.0)  # o keeps its medoid unless c is closer
        total += lost if nearest[o] == slot else kept  # branch-free, so the loop vectorizes
    return total


# interpret_small: Dc is n × n, so 40,000 elements is n ≤ 200; a pass costs k·n² (wine: 0.2 s interpreted).
@njit(fastmath=_SUM_IN_ANY_ORDER, interpret_small=40_000)
def build(Dc, n_clusters):
    """BUILD (Kaufman & Rousseeuw 1990): greedy medoids, each lowering the cost the most.

    The first medoid minimizes Σ_o d(o, c); each next one maximizes the gain
    Σ_o max(dn[o] − d(o, c), 0). Ties go to the lowest index.
    """
    n = Dc.shape[0]
    medoids = np.empty(n_clusters, dtype=np.int64)
    is_medoid = np.zeros(n, dtype=np.bool_)
    best, first = np.inf, 0
    for c in range(n):
        total = Dc[c].sum()
        if total < best:
            best, first = total, c
    medoids[0] = first
    is_medoid[first] = True
    dn = Dc[first].copy()
    for k in range(1, n_clusters):
        best_gain, chosen = -1.0, -1
        for c in range(n):
            if is_medoid[c]:
                continue
            row = Dc[c]
            gain = 0.0
            for o in range(n):
                gain += max(dn[o] - row[o], 0.0)
            if gain > best_gain:
                best_gain, chosen = gain, c
        medoids[k] = chosen
        is_medoid[chosen] = True
        dn = np.minimum(dn, Dc[chosen])
    return medoids


@njit(interpret_small=40_000)  # see build
def pam_swap(Dc, medoids, max_iter, first_improvement, rel_tol):
    """SWAP until no (medoid, non-medoid) exchange lowers the cost by more than rel_tol·cost.

    ``first_improvement=False``: each iteration prices all K(n−K) swaps and makes the best one.
    ``first_improvement=True`` (the notes' loop): for each medoid slot in turn, scan the
    non-medoids in index order and make every swap that lowers the cost at once; one
    iteration is one such sweep. Returns (medoids, cost after each iteration, iterations,
    converged).
    """
    n = Dc.shape[1]
    n_medoids = medoids.shape[0]
    medoids = medoids.copy()
    is_medoid = np.zeros(n, dtype=np.bool_)
    Dk = np.empty((n_medoids, n))
    for j in range(n_medoids):
        is_medoid[medoids[j]] = True
        Dk[j] = Dc[medoids[j]]
    nearest, dn, ds = nearest_two(Dk)
    costs = np.empty(max_iter + 1)
    costs[0] = dn.sum()
    delta = np.empty(n_medoids)
    n_iter, converged = 0, False
    while n_iter < max_iter:
        n_iter += 1
        n_swaps = 0
        if first_improvement:
            threshold = -rel_tol * dn.sum()
            for j in range(n_medoids):
                for c in range(n):
                    if is_medoid[c]:
                        continue
                    if swap_delta(Dc[c], j, nearest, dn, ds) < threshold:
                        is_medoid[medoids[j]] = False
                        medoids[j] = c
                        is_medoid[c] = True
                        Dk[j] = Dc[c]
                        nearest, dn, ds = nearest_two(Dk)
                        threshold = -rel_tol * dn.sum()
                        n_swaps += 1
        else:
            best, best_j, best_c = -rel_tol * dn.sum(), -1, -1
            for c in range(n):
                if is_medoid[c]:
                    continue
                swap_deltas(Dc[c], nearest, dn, ds, delta)
                for j in range(n_medoids):
                    if delta[j] < best:  # strict: ties keep the lowest (c, j)
                        best, best_j, best_c = delta[j], j, c
            if best_c >= 0:
                is_medoid[medoids[best_j]] = False
                medoids[best_j] = best_c
                is_medoid[best_c] = True
                Dk[best_j] = Dc[best_c]
                nearest, dn, ds = nearest_two(Dk)
                n_swaps = 1
        costs[n_iter] = dn.sum()
        if n_swaps == 0:
            converged = True
            break
    return medoids, costs[: n_iter + 1], n_iter, converged


@njit
def alternate(Dc, medoids, max_iter, rel_tol):
    """k-means-style iteration: assign to the nearest medoid, then move each medoid to the member
    with the smallest total distance to its cluster; stop when no medoid moves."""
    n = Dc.shape[1]
    n_medoids = medoids.shape[0]
    medoids = medoids.copy()
    Dk = np.empty((n_medoids, n))
    for j in range(n_medoids):
        Dk[j] = Dc[medoids[j]]
    nearest, dn, _ = nearest_two(Dk)
    costs = np.empty(max_iter + 1)
    costs[0] = dn.sum()
    n_iter, converged = 0, False
    while n_iter < max_iter:
        n_iter += 1
        order = np.argsort(nearest, kind="mergesort")
        counts = np.bincount(nearest, minlength=n_medoids)
        start, moved = 0, 0
        for j in range(n_medoids):
            members = order[start : start + counts[j]]
            start += counts[j]
            row = Dc[medoids[j]]
            best = 0.0
            for o in members:
                best += row[o]
            best_m = medoids[j]
            threshold = best * (1.0 - rel_tol)  # move only for a strict improvement
            for m in members:
                row = Dc[m]
                total = 0.0
                for o in members:
                    total += row[o]
                if total < threshold and total < best:
                    best, best_m = total, m
            if best_m != medoids[j]:
                medoids[j] = best_m
                Dk[j] = Dc[best_m]
                moved += 1
        nearest, dn, _ = nearest_two(Dk)
        costs[n_iter] = dn.sum()
        if moved == 0:
            converged = True
            break
    return medoids, costs[: n_iter + 1], n_iter, converged


@njit
def first_improving(rows, slots, nearest, dn, ds, threshold):
    """Index of the first trial swap (candidate row p into slot p) with Δ < threshold; −1 if none."""
    for p in range(rows.shape[0]):
        if swap_delta(rows[p], slots[p], nearest, dn, ds) < threshold:
            return p
    return -1


@njit
def point_row(XT, c, code, out):
    """out[o] = d(x_o, x_c) from the feature-major data XT (d × n): 0 Euclidean, 1 squared
    Euclidean, 2 Manhattan, 3 Chebyshev. Feature by feature, so the loop over points vectorizes."""
    out[:] = 0.0
    for f in range(XT.shape[0]):
        row, at_c = XT[f], XT[f, c]
        if code == 2:
            for o in range(row.shape[0]):
                out[o] += abs(row[o] - at_c)
        elif code == 3:
            for o in range(row.shape[0]):
                out[o] = max(out[o], abs(row[o] - at_c))
        else:
            for o in range(row.shape[0]):
                diff = row[o] - at_c
                out[o] += diff * diff
    if code == 0:
        for o in range(out.shape[0]):
            out[o] = np.sqrt(out[o])


@njit
def first_improving_points(XT, candidates, slots, nearest, dn, ds, threshold, code):
    """:func:`first_improving` computing each candidate's distances from XT as it goes.

    Returns (p, the row of candidate p); p = −1 if no trial improves.
    """
    row = np.empty(XT.shape[1])
    for p in range(candidates.shape[0]):
        point_row(XT, candidates[p], code, row)
        if swap_delta(row, slots[p], nearest, dn, ds) < threshold:
            return p, row
    return -1, row


@njit
def is_symmetric(D):
    """Whether D equals its transpose exactly (early exit, no temporary matrix)."""
    n = D.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            if D[i, j] != D[j, i]:
                return False
    return True
