"""Compiled coordinate descent for the elastic net (Lasso is the case l2 = 0).

The problem, on centred (and √weight-scaled) data, in the scaling the kernels use:

    min_w  ½‖y − Xw‖² + l1 ‖w‖₁ + ½ l2 ‖w‖²        (l1 = n α ρ, l2 = n α (1 − ρ))

Coordinate j is minimized exactly with the others fixed (Friedman et al. 2010):

    wⱼ ← S(xⱼᵀr + ‖xⱼ‖² wⱼ, l1) / (‖xⱼ‖² + l2),     S(z, t) = sign(z) max(|z| − t, 0),

and the residual r = y − Xw is updated with the change, so one update costs two passes over a
column. A dense X is Fortran-ordered so that a column is contiguous; a sparse one is read by
columns (CSC) and centred implicitly (:class:`SparseColumns`).
"""

from typing import NamedTuple

import numpy as np

from ..utils import njit


def centred_fortran_copy(X, x_mean, root_w):
    """(X − x̄)·√w row-wise, as a new Fortran-ordered array: one pass instead of copy, centre, scale.

    The array is allocated by NumPy, which asks the kernel for huge pages on large arrays (far
    fewer page faults than an allocation inside Numba).
    """
    out = np.empty((X.shape[1], X.shape[0]), dtype=X.dtype).T
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
        new = _shrink(z, l1, l2, col_sq[j], positive)
        change = new - old
        if change != 0.0:
            for i in range(n):
                residual[i] -= change * X[i, j]
            w[j] = new
        max_change = max(max_change, abs(change))
        max_w = max(max_w, abs(new))
    return max_change, max_w


class SparseColumns(NamedTuple):
    """A sparse X by columns (CSC arrays) with what implicit centring needs.

    The centred, √s-scaled column j is √s ∘ (xⱼ − x̄ⱼ); it is never formed. With the uncentred
    residual R = y − ȳ − Xw kept up to date on the stored entries only, and t = Σᵢ sᵢRᵢ:

        x̃ⱼᵀ r̃ = Σ_{i stored} sᵢ xᵢⱼ Rᵢ − x̄ⱼ t,      ‖x̃ⱼ‖² = Σᵢ sᵢ xᵢⱼ² − S x̄ⱼ²,

    and a change Δ of wⱼ moves Rᵢ by −Δxᵢⱼ on the stored rows and t by −Δ S x̄ⱼ (S = Σ sᵢ).
    """

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    mean: np.ndarray       # x̄ⱼ, weighted
    weight: np.ndarray     # sᵢ (ones when unweighted)
    total_weight: float    # S
    col_sq: np.ndarray     # ‖x̃ⱼ‖²


@njit(fastmath=True, interpret_small=True)
def sparse_sweep(columns, residual, weighted_sum, w, l1, l2, order, positive):
    """:func:`sweep` on a sparse X (``SparseColumns``), with R and t = ``weighted_sum[0]`` kept up to date."""
    indptr, indices, data, mean, weight = columns.indptr, columns.indices, columns.data, columns.mean, columns.weight
    col_sq = columns.col_sq
    max_change = 0.0
    max_w = 0.0
    for j in order:
        if col_sq[j] <= 0.0:
            continue
        old = w[j]
        z = col_sq[j] * old - mean[j] * weighted_sum[0]
        for p in range(indptr[j], indptr[j + 1]):
            i = indices[p]
            z += weight[i] * data[p] * residual[i]
        new = _shrink(z, l1, l2, col_sq[j], positive)
        change = new - old
        if change != 0.0:
            for p in range(indptr[j], indptr[j + 1]):
                residual[indices[p]] -= change * data[p]
            weighted_sum[0] -= change * columns.total_weight * mean[j]
            w[j] = new
        max_change = max(max_change, abs(change))
        max_w = max(max_w, abs(new))
    return max_change, max_w


@njit(inline="always")
def _shrink(z, l1, l2, col_sq, positive):
    """argmin over wⱼ: S(z, l1)/(‖xⱼ‖² + l2), or 0 where ``positive`` forbids a negative weight."""
    if positive and z < 0.0:
        return 0.0
    if z > l1:
        return (z - l1) / (col_sq + l2)
    if z < -l1:
        return (z + l1) / (col_sq + l2)
    return 0.0


def duality_gap(correlations, residual, target, w, l1, l2, positive):
    """Primal minus dual objective at w: ≥ 0, and 0 exactly at the optimum.

    ``correlations`` is X̃ᵀr̃ for the centred design X̃, ``residual`` r̃ = ỹ − X̃w, ``target`` ỹ. With
    an L1 term the dual point is the residual scaled into the dual feasible set, ν = c r with
    c = min(1, l1 / max |X̃ᵀr − l2 w|) (one-sided max when ``positive``). Without one (pure ridge)
    the dual is max −½‖ν‖² + νᵀy − ‖X̃ᵀν‖²/(2 l2), evaluated at ν = r. With neither penalty there
    is no dual bound; ‖X̃ᵀr‖², zero exactly at a least-squares solution, stands in.
    """
    r_sq = float(residual @ residual)
    r_dot_y = float(residual @ target)
    xr_sq = float(correlations @ correlations)
    w_l1, w_sq = float(np.abs(w).sum()), float(w @ w)
    if l1 == 0.0:
        if l2 == 0.0:
            return xr_sq
        return max(r_sq + 0.5 * l2 * w_sq - r_dot_y + xr_sq / (2.0 * l2), 0.0)
    g = correlations - l2 * w
    dual_norm = max(float(np.max(g if positive else np.abs(g), initial=0.0)), 0.0)
    scale = min(1.0, l1 / dual_norm) if dual_norm > 0.0 else 1.0
    gap = 0.5 * r_sq * (1.0 + scale * scale) + l1 * w_l1 - scale * r_dot_y + 0.5 * l2 * (1.0 + scale * scale) * w_sq
    return max(gap, 0.0)


def objective(residual, w, l1, l2):
    """½‖r‖² + l1‖w‖₁ + ½ l2‖w‖² (the kernels' scaling: n times scikit-learn's objective)."""
    return 0.5 * float(residual @ residual) + l1 * float(np.abs(w).sum()) + 0.5 * l2 * float(w @ w)
