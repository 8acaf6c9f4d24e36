"""Numba loop of the dual coordinate descent of Hsieh et al. (2008) for linear SVMs."""

from collections import namedtuple

import numpy as np

from ..utils import njit
from ..utils.rows import as_rows, row_add, row_dot, row_squared_norm

__all__ = ["BinaryProblem", "binary_problem", "dual_cd"]

# One binary problem of LinearSVC: samples X, labels y = ±1, per-sample C, the constant feature s, squared hinge.
BinaryProblem = namedtuple("BinaryProblem", ["X", "y", "C", "bias", "squared"])


def binary_problem(X, y, C, bias, squared):
    """A :data:`BinaryProblem` (X dense or CSR), its scalars cast to the types :func:`dual_cd` is compiled for."""
    return BinaryProblem(as_rows(X), y, C, float(bias), bool(squared))


@njit
def dual_cd(problem, tol, max_iter, seed, w, history):
    """Minimise ½αᵀQ̄α − Σαᵢ over 0 ≤ αᵢ ≤ Uᵢ one coordinate at a time; w (shape (1, d + 1)) is updated in place.

    ``problem`` is a :data:`BinaryProblem`: X is a dense array or a CSR matrix as
    ``lucidml.utils.rows.SparseRows`` (a step then costs the row's stored entries), y the labels ±1,
    C the per-sample Cᵢ, bias the constant feature s of x̃ᵢ = (xᵢ, s), squared whether the hinge is squared.

    Q̄ᵢⱼ = yᵢyⱼ x̃ᵢᵀx̃ⱼ + Dᵢᵢ[i=j] with x̃ᵢ = (xᵢ, bias): hinge loss has Uᵢ = Cᵢ, Dᵢᵢ = 0; squared hinge
    has Uᵢ = ∞, Dᵢᵢ = 1/(2Cᵢ). w = Σ yᵢαᵢx̃ᵢ is kept up to date, so the gradient of coordinate i is
    G = yᵢ wᵀx̃ᵢ − 1 + Dᵢᵢαᵢ, and the exact step is αᵢ ← clip(αᵢ − G/Q̄ᵢᵢ, 0, Uᵢ).

    Each pass visits the active coordinates in a random order. Shrinking: a coordinate at a bound
    whose projected gradient points outwards by more than the previous pass's extreme is removed
    from the active set; passes stop when the projected gradients span ≤ tol, after one final check
    of every coordinate. history[k] receives the dual objective Σαᵢ − ½‖w‖² − ½ΣDᵢᵢαᵢ² after pass k
    (it rises to the primal minimum). Returns (α, passes).
    """
    X, y, C, bias, squared = problem.X, problem.y, problem.C, problem.bias, problem.squared
    n, d = X.shape[0], X.shape[1]
    state = seed % 2147483646 + 1  # MINSTD generator: local to this call, identical with and without JIT
    alpha = np.zeros(n)
    diag = np.empty(n)
    upper = np.empty(n)
    qd = np.empty(n)
    for i in range(n):
        if squared:
            diag[i] = 0.5 / C[i]
            upper[i] = np.inf
        else:
            diag[i] = 0.0
            upper[i] = C[i]
        qd[i] = bias * bias + diag[i] + row_squared_norm(X, i)
    index = np.arange(n)
    active = n
    pg_max_old = np.inf
    pg_min_old = -np.inf
    it = 0
    while it < max_iter:
        for s in range(active):  # Fisher–Yates shuffle of the active set
            state = (state * 48271) % 2147483647
            k = s + state % (active - s)
            index[s], index[k] = index[k], index[s]
        pg_max = -np.inf
        pg_min = np.inf
        s = 0
        while s < active:
            i = index[s]
            yi = y[i]
            g = (w[0, d] * bias + row_dot(X, i, w, 0)) * yi - 1.0 + diag[i] * alpha[i]
            pg = 0.0
            if alpha[i] == 0.0:
                if g > pg_max_old:  # stuck at 0 and pushed further out: shrink
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                if g < 0.0:
                    pg = g
            elif alpha[i] == upper[i]:
                if g < pg_min_old:  # stuck at C and pushed further out: shrink
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                if g > 0.0:
                    pg = g
            else:
                pg = g
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
            if abs(pg) > 1e-12 and qd[i] > 0.0:
                old = alpha[i]
                alpha[i] = min(max(old - g / qd[i], 0.0), upper[i])
                step = (alpha[i] - old) * yi
                row_add(X, i, w, 0, step)
                w[0, d] += step * bias
            s += 1
        dual = 0.0
        for i in range(n):
            dual += alpha[i] * (1.0 - 0.5 * diag[i] * alpha[i])
        for j in range(d + 1):
            dual -= 0.5 * w[0, j] * w[0, j]
        history[it] = dual
        it += 1
        if pg_max - pg_min <= tol:
            if active == n:
                break
            active = n  # converged on the shrunk set: verify on all coordinates
            pg_max_old = np.inf
            pg_min_old = -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
    return alpha, it
