"""Primal finite Newton method for the squared-hinge linear SVM (used when n_samples > n_features).

One compiled kernel: on small data (iris) a Newton step is a dozen tiny array operations plus a
line search, and NumPy's per-call cost (~1 µs per operation) made the fit 2.5× slower than
liblinear's C. Matrix products use BLAS and the factorization LAPACK, through Numba; the line
search is plain loops with a heap, which compile in a fraction of the time that ``np.argsort``
or ``np.linalg.solve`` take.

X is a dense array (float64 or float32) or a CSR matrix as ``utils.rows.SparseRows``; the three
products with X (Xd, Σᵢ cᵢxᵢ and Σᵢ sᵢ²xᵢxᵢᵀ) have one implementation per representation, picked by
X's type as in ``utils.rows``. A dense X is read in its own precision: the products over the samples
run in row blocks (X's precision within a block, float64 across blocks), so a fit holds no n-row
temporary of X's width and a float32 X no float64 copy. A sparse X costs its stored entries (the
Hessian, Σ over the violators of the squared number of entries of their rows), summed in float64.
"""

import numba
import numpy as np
from numba.core import types
from numba.extending import overload
from numpy.linalg import LinAlgError

from ..utils import njit
from ..utils.rows import SparseRows


@njit(interpret_small=True)
def primal_newton(X, y, C, tol, max_iter, floor):
    """Minimise P(w) = ½‖w‖² + Σᵢ Cᵢ max(0, 1 − yᵢwᵀxᵢ)² by Newton steps with exact line search.

    P is convex, piecewise quadratic and once differentiable. On the violator set I = {i : yᵢwᵀxᵢ < 1}

        ∇P(w) = w − 2 Σ_I Cᵢ (1 − yᵢwᵀxᵢ) yᵢxᵢ,   H = I + 2 Σ_I Cᵢ xᵢxᵢᵀ   (a generalised Hessian),

    and the step d = −H⁻¹∇P is followed by the exact minimiser of P along d (Keerthi & DeCoste 2005, the
    "modified finite Newton" method; Mangasarian 2002). It terminates exactly once I stops changing. X
    already carries the constant bias column (float64 or float32, C-ordered; or ``SparseRows``).

    Stops when ‖∇P(w)‖₂ ≤ tol·‖w‖₂. P is 1-strongly convex (its ½‖w‖²), so ‖w − w*‖₂ ≤ ‖∇P(w)‖₂:
    the test bounds w's relative error by tol, whatever C and the weights are. (A test against
    ‖∇P(0)‖, liblinear's, reads a gradient that grows with C: at C = 1e5 it stopped on the first
    step, at 160 times the minimum.) Or when ‖∇P(w)‖₂ ≤ floor·max(‖w‖₂, ‖Σ_I …‖₂), the rounding
    level, in X's precision (``floor``: a multiple of its machine epsilon), of the two terms that
    cancel in ∇P. (Against ‖∇P(0)‖₂, which grows with C·sample_weight, it stopped early: a norm of
    25.98 for 25.59 at weights of 1e12.) A gradient beyond float64 raises LinAlgError, as an infinite
    Newton matrix does (weights of 1e300 returned w = 0 after no step). Returns (w, objective after
    each iteration, converged).
    """
    n = X.shape[0]
    w = np.zeros(X.shape[1])
    margins = np.zeros(n)  # yᵢ wᵀxᵢ
    root_2c = np.sqrt(2.0 * C)
    curve = np.empty(max_iter)
    breakpoints = np.empty(n)  # work space of the line search
    samples = np.empty(n, dtype=np.int64)
    for it in range(max_iter):
        viol = margins < 1.0
        coef = np.where(viol, 2.0 * C * (1.0 - margins) * y, 0.0)
        pull = weighted_row_sum(X, coef)
        grad = w - pull
        norm = np.sqrt(grad @ grad)
        if not np.isfinite(norm):
            raise LinAlgError("the primal gradient is not finite")
        w_norm = np.sqrt(w @ w)
        if norm <= tol * w_norm or norm <= floor * max(w_norm, np.sqrt(pull @ pull)):
            return w, curve[:it].copy(), True
        # H = I + XsᵀXs, rows xᵢ√(2Cᵢ) for violators and 0 otherwise
        H = scaled_gram(X, np.where(viol, root_2c, 0.0))
        for j in range(H.shape[0]):
            H[j, j] += 1.0
        if not np.all(np.isfinite(H)):  # xᵢxᵢᵀ overflowed (features near 1e155 and beyond): no Newton step
            raise LinAlgError("the primal Newton matrix is not finite")
        d = -_cholesky_solve(np.linalg.cholesky(H), grad)  # H ⪰ I: always positive definite
        delta = y * matrix_vector(X, d)
        t = _exact_line_search(w, d, margins, delta, C, breakpoints, samples)
        w += t * d
        margins += t * delta
        curve[it] = 0.5 * (w @ w) + np.sum(C * np.maximum(0.0, 1.0 - margins) ** 2)
        if np.array_equal(margins < 1.0, viol):
            # I did not change: P is the quadratic of I along the whole step, whose minimum the full
            # Newton step reached, so w minimizes P (the method's finite termination; with large
            # C·sample_weight the gradient's rounding, of order C·ε, can stay above any tolerance).
            return w, curve[: it + 1].copy(), True
    return w, curve.copy(), False


# Rows per block of the products over the samples.
_BLOCK_ROWS = 4096


def _dense_row_sum(X, c):
    """Σᵢ cᵢ xᵢ, block by block."""
    out = np.zeros(X.shape[1])
    for start in range(0, X.shape[0], _BLOCK_ROWS):
        stop = min(X.shape[0], start + _BLOCK_ROWS)
        out += (c[start:stop].astype(X.dtype) @ X[start:stop]).astype(np.float64)
    return out


def _sparse_row_sum(X, c):
    out = np.zeros(X.shape[1])
    for i in range(X.shape[0]):
        if c[i] != 0.0:
            for p in range(X.indptr[i], X.indptr[i + 1]):
                out[X.indices[p]] += c[i] * np.float64(X.data[p])
    return out


def _dense_gram(X, s):
    """Σᵢ sᵢ² xᵢxᵢᵀ, block by block: each block's rows scaled into a small buffer, whose product with
    its own transpose is one SYRK (a streaming pass is cheaper than gathering the nonzero sᵢ)."""
    H = np.zeros((X.shape[1], X.shape[1]))
    for start in range(0, X.shape[0], _BLOCK_ROWS):
        stop = min(X.shape[0], start + _BLOCK_ROWS)
        Xs = X[start:stop] * s[start:stop].astype(X.dtype).reshape(-1, 1)
        H += (Xs.T @ Xs).astype(np.float64)
    return H


def _sparse_gram(X, s):
    # A row's outer product a row of H at a time: one array step per stored entry, not per pair,
    # so that interpreted it costs Σ nnz(xᵢ) NumPy calls (the pairs: seconds of Python loops).
    # The column indices of a row must be distinct (LinearSVC sums duplicates first).
    H = np.zeros((X.shape[1], X.shape[1]))
    for i in range(X.shape[0]):
        if s[i] != 0.0:
            lo, hi = X.indptr[i], X.indptr[i + 1]
            columns = X.indices[lo:hi]
            row = s[i] * X.data[lo:hi].astype(np.float64)
            for p in range(hi - lo):
                H[columns[p], columns] += row[p] * row
    return H


def _dense_product(X, d):
    return (X @ d.astype(X.dtype)).astype(np.float64)


def _sparse_product(X, d):
    out = np.zeros(X.shape[0])
    for i in range(X.shape[0]):
        for p in range(X.indptr[i], X.indptr[i + 1]):
            out[i] += np.float64(X.data[p]) * d[X.indices[p]]
    return out


def weighted_row_sum(X, c):
    """Σᵢ cᵢ xᵢ (float64)."""
    return (_sparse_row_sum if isinstance(X, SparseRows) else _dense_row_sum)(X, c)


def scaled_gram(X, s):
    """Σᵢ sᵢ² xᵢxᵢᵀ (float64, d × d)."""
    return (_sparse_gram if isinstance(X, SparseRows) else _dense_gram)(X, s)


def matrix_vector(X, d):
    """X d (float64)."""
    return (_sparse_product if isinstance(X, SparseRows) else _dense_product)(X, d)


if not numba.config.DISABLE_JIT:  # compiled, each call gets the implementation of X's representation

    @overload(weighted_row_sum)
    def _weighted_row_sum(X, c):
        return _dense_row_sum if isinstance(X, types.Array) else _sparse_row_sum

    @overload(scaled_gram)
    def _scaled_gram(X, s):
        return _dense_gram if isinstance(X, types.Array) else _sparse_gram

    @overload(matrix_vector)
    def _matrix_vector(X, d):
        return _dense_product if isinstance(X, types.Array) else _sparse_product


@njit
def _cholesky_solve(L, b):
    """x with L Lᵀ x = b, by forward and back substitution."""
    p = b.shape[0]
    z = np.empty(p)
    for i in range(p):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * z[k]
        z[i] = s / L[i, i]
    x = np.empty(p)
    for i in range(p - 1, -1, -1):
        s = z[i]
        for k in range(i + 1, p):
            s -= L[k, i] * x[k]
        x[i] = s / L[i, i]
    return x


@njit
def _exact_line_search(w, d, m, delta, C, breakpoints, samples):
    """argmin_t φ(t) = ½‖w + td‖² + Σ Cᵢ max(0, 1 − mᵢ − tδᵢ)² over t > 0.

    φ′(t) = A + B t is piecewise linear and increasing; A and B change only at the breakpoints
    tᵢ = (1 − mᵢ)/δᵢ, where sample i leaves (δᵢ > 0) or joins (δᵢ < 0) the violators. Walk the
    positive breakpoints in increasing order (popped from a min-heap: usually only a few are
    passed) until φ′ turns non-negative. ``breakpoints`` and ``samples`` are work space of length n.
    """
    A = w @ d
    B = d @ d
    k = 0
    for i in range(m.shape[0]):
        active = m[i] < 1.0 or (m[i] == 1.0 and delta[i] < 0.0)
        if active:
            A += 2.0 * C[i] * delta[i] * (m[i] - 1.0)
            B += 2.0 * C[i] * delta[i] * delta[i]
        # a breakpoint matters if it lies ahead and flips the sample's state (δᵢ = 0 never flips)
        if (delta[i] > 0.0) if active else (delta[i] < 0.0):
            t = (1.0 - m[i]) / delta[i]
            if 0.0 < t < np.inf:
                breakpoints[k] = t
                samples[k] = i
                k += 1
    for root in range(k // 2 - 1, -1, -1):
        _sift_down(breakpoints, samples, root, k)
    while k > 0 and A + B * breakpoints[0] < 0.0:
        i = samples[0]
        sign = -1.0 if delta[i] > 0.0 else 1.0  # leaving subtracts, joining adds
        A += sign * 2.0 * C[i] * delta[i] * (m[i] - 1.0)
        B += sign * 2.0 * C[i] * delta[i] * delta[i]
        k -= 1
        breakpoints[0], samples[0] = breakpoints[k], samples[k]
        _sift_down(breakpoints, samples, 0, k)
    return -A / B


@njit
def _sift_down(keys, values, root, size):
    """Restore the min-heap order of keys[:size] below ``root``, moving ``values`` alongside."""
    while True:
        child = 2 * root + 1
        if child >= size:
            return
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[root] <= keys[child]:
            return
        keys[root], keys[child] = keys[child], keys[root]
        values[root], values[child] = values[child], values[root]
        root = child
