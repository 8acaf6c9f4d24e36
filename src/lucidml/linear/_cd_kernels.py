"""Compiled coordinate descent for the elastic net (Lasso is the case l2 = 0).

The problem, on centred (and √weight-scaled) data, in the scaling the kernels use:

    min_w  ½‖y − Xw‖² + l1 ‖w‖₁ + ½ l2 ‖w‖²        (l1 = n α ρ, l2 = n α (1 − ρ))

Coordinate j is minimized exactly with the others fixed (Friedman et al. 2010):

    wⱼ ← S(xⱼᵀr + ‖xⱼ‖² wⱼ, l1) / (‖xⱼ‖² + l2),     S(z, t) = sign(z) max(|z| − t, 0),

and the residual r = y − Xw is updated with the change, so one update costs two passes over a
column. X is Fortran-ordered so that a column is contiguous.
"""

import numpy as np

from ..utils import njit


def centred_fortran_copy(X, x_mean, root_w):
    """(X − x̄)·√w row-wise, as a new Fortran-ordered array: one pass instead of copy, centre, scale.

    The array is allocated by NumPy, which asks the kernel for huge pages on large arrays (far
    fewer page faults than an allocation inside Numba).
    """
    out = np.empty((X.shape[1], X.shape[0])).T
    _centred_copy_into(X, x_mean, root_w, out)
    return out


@njit(interpret_small=True)
def _centred_copy_into(X, x_mean, root_w, out):
    # Blocks of 256 rows keep both the strided reads and the contiguous column writes in cache.
    n, d = X.shape
    block = 256
    for start in range(0, n, block):
        stop = min(start + block, n)
        for j in range(d):
            m = x_mean[j]
            for i in range(start, stop):
                out[i, j] = (X[i, j] - m) * root_w[i]


@njit(fastmath=True, interpret_small=True)
def sweep(X, residual, w, col_sq, l1, l2, order, positive):
    """One pass over the coordinates in ``order``; return (max |Δwⱼ|, max |wⱼ|)."""
    n = X.shape[0]
    max_change = 0.0
    max_w = 0.0
    for j in order:
        if col_sq[j] == 0.0:
            continue
        old = w[j]
        z = col_sq[j] * old
        for i in range(n):
            z += X[i, j] * residual[i]
        if positive and z < 0.0:
            new = 0.0
        elif z > l1:
            new = (z - l1) / (col_sq[j] + l2)
        elif z < -l1:
            new = (z + l1) / (col_sq[j] + l2)
        else:
            new = 0.0
        change = new - old
        if change != 0.0:
            for i in range(n):
                residual[i] -= change * X[i, j]
            w[j] = new
        max_change = max(max_change, abs(change))
        max_w = max(max_w, abs(new))
    return max_change, max_w


@njit(fastmath=True, interpret_small=True)
def duality_gap(X, y, residual, w, l1, l2, positive):
    """Primal minus dual objective at w, from the residual: ≥ 0, and 0 exactly at the optimum.

    With an L1 term the dual point is the residual scaled into the dual feasible set, ν = c r
    with c = min(1, l1 / max |Xᵀr − l2 w|) (one-sided max when ``positive``). Without one (pure
    ridge) the dual is max −½‖ν‖² + νᵀy − ‖Xᵀν‖²/(2 l2), evaluated at ν = r. With neither
    penalty there is no dual bound; ‖Xᵀr‖², zero exactly at a least-squares solution, stands in.
    """
    n, d = X.shape
    r_sq = 0.0
    r_dot_y = 0.0
    for i in range(n):
        r_sq += residual[i] * residual[i]
        r_dot_y += residual[i] * y[i]
    dual_norm = 0.0
    xr_sq = 0.0
    w_l1 = 0.0
    w_sq = 0.0
    for j in range(d):
        xr = 0.0
        for i in range(n):
            xr += X[i, j] * residual[i]
        xr_sq += xr * xr
        g = xr - l2 * w[j]
        dual_norm = max(dual_norm, g if positive else abs(g))
        w_l1 += abs(w[j])
        w_sq += w[j] * w[j]
    if l1 == 0.0:
        if l2 == 0.0:
            return xr_sq
        return max(r_sq + 0.5 * l2 * w_sq - r_dot_y + xr_sq / (2.0 * l2), 0.0)
    scale = 1.0
    if dual_norm > l1:
        scale = l1 / dual_norm
    gap = 0.5 * r_sq * (1.0 + scale * scale) + l1 * w_l1 - scale * r_dot_y + 0.5 * l2 * (1.0 + scale * scale) * w_sq
    return max(gap, 0.0)


def objective(residual, w, l1, l2):
    """½‖r‖² + l1‖w‖₁ + ½ l2‖w‖² (the kernels' scaling: n times scikit-learn's objective)."""
    return 0.5 * float(residual @ residual) + l1 * float(np.abs(w).sum()) + 0.5 * l2 * float(w @ w)
