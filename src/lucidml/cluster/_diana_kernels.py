"""Compiled loop of DIANA: every split of the divisive hierarchy on a square distance matrix."""

import numpy as np

from ..utils import njit


@njit
def _diameter(D, perm, lo, hi):
    """Largest distance between two members perm[lo:hi] of a cluster."""
    best = 0.0
    for p in range(lo, hi):
        i = perm[p]
        for q in range(p + 1, hi):
            best = max(best, D[i, perm[q]])
    return best


@njit
def _swap(perm, to_rest, to_splinter, p, q):
    perm[p], perm[q] = perm[q], perm[p]
    to_rest[p], to_rest[q] = to_rest[q], to_rest[p]
    to_splinter[p], to_splinter[q] = to_splinter[q], to_splinter[p]


@njit
def diana_splits(D):
    """Split every cluster down to single points by the splinter-group rule.

    A cluster is a segment perm[lo:hi]; a split reorders it into splinter | rest, so no
    membership lists are built. For object i of the rest, ``to_rest[i]`` and
    ``to_splinter[i]`` are its summed dissimilarities to the rest (including itself, d = 0)
    and to the splinter group, updated in O(m) per move.

    Returns the splits in the order made (parents first) as (a point of the splinter group,
    a point of the rest, diameter of the split cluster).
    """
    n = D.shape[0]
    perm = np.arange(n)
    to_rest = np.empty(n)
    to_splinter = np.empty(n)
    a = np.empty(n - 1, dtype=np.int64)
    b = np.empty(n - 1, dtype=np.int64)
    h = np.empty(n - 1)
    stack_lo = np.empty(n, dtype=np.int64)
    stack_hi = np.empty(n, dtype=np.int64)
    stack_lo[0], stack_hi[0] = 0, n
    top = 1
    for k in range(n - 1):
        top -= 1
        lo, hi = stack_lo[top], stack_hi[top]
        diameter = _diameter(D, perm, lo, hi)
        # Seed: the object with the largest mean dissimilarity to the others.
        seed = lo
        for p in range(lo, hi):
            s = 0.0
            for q in range(lo, hi):
                s += D[perm[p], perm[q]]
            to_rest[p] = s
            to_splinter[p] = 0.0
            if s > to_rest[seed]:
                seed = p
        split = lo  # perm[lo:split] is the splinter group
        tol = 1e-12 * diameter  # a difference that is 0 exactly must not move on rounding noise
        while True:
            _swap(perm, to_rest, to_splinter, split, seed)
            moved = perm[split]
            split += 1
            for p in range(split, hi):
                d = D[perm[p], moved]
                to_rest[p] -= d
                to_splinter[p] += d
            n_rest, n_splinter = hi - split, split - lo
            if n_rest < 2:
                break
            # Next candidate: largest (mean to the rest − mean to the splinter group) > 0.
            best = -np.inf
            for p in range(split, hi):
                gain = to_rest[p] / (n_rest - 1) - to_splinter[p] / n_splinter
                if gain > best:
                    best, seed = gain, p
            if best <= tol:
                break
        a[k], b[k], h[k] = perm[lo], perm[split], diameter
        for s_lo, s_hi in ((lo, split), (split, hi)):
            if s_hi - s_lo > 1:
                stack_lo[top], stack_hi[top] = s_lo, s_hi
                top += 1
    return a, b, h
