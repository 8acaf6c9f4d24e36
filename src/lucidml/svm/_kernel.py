"""Kernel values for the SVMs: compiled columns for the SMO cache, BLAS blocks for Gram matrices.

The four kernels of libsvm are computed here without going through the general
:func:`lucidml.kernels.pairwise.pairwise_kernels`, because SMO asks for one column
k(xᵢ, ·) at a time, thousands of times, and each must cost as little as possible:

    linear    k(x, z) = xᵀz
    poly      k(x, z) = (γ xᵀz + c₀)^d
    rbf       k(x, z) = exp(−γ ‖x − z‖²),  ‖x − z‖² = ‖x‖² + ‖z‖² − 2xᵀz clipped at 0
    sigmoid   k(x, z) = tanh(γ xᵀz + c₀)

Everything reduces to inner products (seeds: 000 §6.4–6.6, 002 §5.3.5), so a column is one pass
over the rows of X (vectorised dot products) followed by an element-wise map, and a block of many
columns is one BLAS matrix product followed by the same map. The exponential of the rbf kernel
is evaluated by :func:`exp_inplace`, a branch-free exp that the compiler vectorises.
"""

import math

import numba
import numpy as np
import scipy.sparse
from numba.core import types
from numba.extending import overload

from ..utils import njit
from ..utils.rows import SparseRows, as_rows, row_add, row_dot, row_squared_norm

__all__ = ["KIND", "block_rows", "exp_inplace", "kernel_block", "kernel_column", "kernel_column_all", "kernel_map",
           "row_norms"]

#: kernel name → code used inside the compiled solver (0 = values read from a Gram matrix)
KIND = {"precomputed": 0, "linear": 1, "poly": 2, "polynomial": 2, "rbf": 3, "sigmoid": 4}

_LOG2E = 1.4426950408889634
_LN2_HI = 0.6931471803691238  # ln 2 split in two so that k·ln2 is exact in the high part
_LN2_LO = 1.9082149292705877e-10
_ROUND = 6755399441055744.0  # 1.5·2⁵²: adding it rounds a double to an integer in the low bits
_ROUND_BITS = 0x4338000000000000  # the bit pattern of _ROUND


@njit(error_model="numpy")
def exp_inplace(a, work):
    """a ← exp(a) for a 1-D float64 array, vectorisable (no calls, no branches in the loop).

    exp(x) = 2ᵏ · exp(r) with k = round(x / ln 2) and |r| ≤ ln2 / 2; exp(r) is its Taylor series
    to degree 13 (error below 1e-16 relative on that interval) and 2ᵏ is built directly from the
    exponent bits. Inputs below −708 give exp(−708) ≈ 3e−308 instead of a subnormal, which
    no kernel value cares about. ``work`` is scratch of the same length.
    """
    n = a.shape[0]
    for t in range(n):
        x = min(max(a[t], -708.0), 709.0)
        shifted = x * _LOG2E + _ROUND
        k = shifted - _ROUND
        r = (x - k * _LN2_HI) - k * _LN2_LO
        p = 1.0 / 6227020800.0
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        a[t] = p * r + 1.0
        work[t] = shifted
    bits = work.view(np.int64)
    for t in range(n):  # the low bits of `shifted` hold k; move k + 1023 into the exponent field
        bits[t] = (bits[t] - _ROUND_BITS + 1023) << 52
    scale = bits.view(np.float64)
    for t in range(n):
        a[t] *= scale[t]


@njit(fastmath=True)
def _dot(x, z):
    acc = 0.0
    for f in range(x.shape[0]):
        acc += x[f] * z[f]
    return acc


@njit(interpret_small=True)
def row_norms(X):
    """‖xᵢ‖² of every row, summed exactly as :func:`kernel_column` sums xᵢᵀxⱼ (so k(x, x) is exact).

    X is a dense array or a CSR matrix as ``SparseRows`` (as for every kernel here)."""
    out = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        out[i] = _self_dot(X, i)
    return out


# Inner products of one sample with others. A dense row is read as it is; a sparse row x_i is first
# scattered into ``scratch`` (a (1, n_features) zero row), so that each x_i·x_r costs x_r's stored
# entries, and then cleared again (x − x is exactly 0).
def _dense_self_dot(X, i):
    return _dot(X[i], X[i])


def _sparse_self_dot(X, i):
    return row_squared_norm(X, i)


def _dense_dots(X, i, rows, n_rows, buf, scratch):
    xi = X[i]
    for t in range(n_rows):
        buf[t] = _dot(xi, X[rows[t]])


def _sparse_dots(X, i, rows, n_rows, buf, scratch):
    row_add(X, i, scratch, 0, 1.0)
    for t in range(n_rows):
        buf[t] = row_dot(X, rows[t], scratch, 0)
    row_add(X, i, scratch, 0, -1.0)


def _dense_all_dots(X, i, out, scratch):
    np.dot(X, X[i], out)


def _sparse_all_dots(X, i, out, scratch):
    row_add(X, i, scratch, 0, 1.0)
    for r in range(out.shape[0]):
        out[r] = row_dot(X, r, scratch, 0)
    row_add(X, i, scratch, 0, -1.0)


def _self_dot(X, i):
    return (_sparse_self_dot if isinstance(X, SparseRows) else _dense_self_dot)(X, i)


def _dots(X, i, rows, n_rows, buf, scratch):
    """buf[t] ← x_i·x_{rows[t]} for t < n_rows."""
    (_sparse_dots if isinstance(X, SparseRows) else _dense_dots)(X, i, rows, n_rows, buf, scratch)


def _all_dots(X, i, out, scratch):
    """out[r] ← x_i·x_r for every sample r."""
    (_sparse_all_dots if isinstance(X, SparseRows) else _dense_all_dots)(X, i, out, scratch)


if not numba.config.DISABLE_JIT:

    @overload(_self_dot, inline="always")
    def _self_dot_overload(X, i):
        return _dense_self_dot if isinstance(X, types.Array) else _sparse_self_dot

    @overload(_dots, inline="always")
    def _dots_overload(X, i, rows, n_rows, buf, scratch):
        return _dense_dots if isinstance(X, types.Array) else _sparse_dots

    @overload(_all_dots, inline="always")
    def _all_dots_overload(X, i, out, scratch):
        return _dense_all_dots if isinstance(X, types.Array) else _sparse_all_dots


@njit
def kernel_map(v, n, kind, gamma, coef0, degree, work):
    """Turn inner products v[:n] into kernel values in place (rbf: v holds ‖x − z‖² already)."""
    if kind == 2:
        for t in range(n):
            v[t] = (gamma * v[t] + coef0) ** degree
    elif kind == 3:
        for t in range(n):
            v[t] = -gamma * max(v[t], 0.0)
        exp_inplace(v[:n], work[:n])
    elif kind == 4:
        for t in range(n):
            v[t] = math.tanh(gamma * v[t] + coef0)


@njit
def kernel_column(cc, i, rows, n_rows, out):
    """out[r] ← k(x_i, x_r) for the n_rows sample indices r in ``rows`` (other entries untouched).

    ``cc`` is the column cache (:class:`lucidml.svm._cache.ColumnCache`); its samples X, their
    norms sq, the kernel (kind, gamma, coef0, degree) and its scratch buf, work and scratch are used.
    """
    X, sq, kind, gamma, coef0, degree = cc.X, cc.sq, cc.kind, cc.gamma, cc.coef0, cc.degree
    buf, work, scratch = cc.buf, cc.work, cc.scratch
    _dots(X, i, rows, n_rows, buf, scratch)
    if kind == 3:
        for t in range(n_rows):
            buf[t] = sq[i] + sq[rows[t]] - 2.0 * buf[t]
    kernel_map(buf, n_rows, kind, gamma, coef0, degree, work)
    for t in range(n_rows):
        out[rows[t]] = buf[t]


@njit
def kernel_column_all(cc, i, out):
    """out ← k(x_i, x_r) for every sample r: one BLAS matrix-vector product (dense X), then the map.

    ``cc`` is the column cache, as for :func:`kernel_column` (its scratch work and scratch are used).
    """
    X, sq, kind, gamma, coef0, degree = cc.X, cc.sq, cc.kind, cc.gamma, cc.coef0, cc.degree
    work, scratch = cc.work, cc.scratch
    _all_dots(X, i, out, scratch)
    n = out.shape[0]
    if kind == 3:
        for t in range(n):
            out[t] = sq[i] + sq[t] - 2.0 * out[t]
        out[i] = 0.0  # ‖x_i − x_i‖² exactly, whatever BLAS summed
    kernel_map(out, n, kind, gamma, coef0, degree, work)


# interpret_small: element-wise, but about 2 µs an element interpreted (the exp polynomial):
# 300,000 kernel values (a prediction of 500 rows on 600 support vectors) take under a second.
@njit(interpret_small=300_000)
def _map_block(K, sq_a, sq_b, kind, gamma, coef0, degree):
    """Kernel values from the inner-product block K = A Bᵀ, row by row, in place."""
    work = np.empty(K.shape[1])
    for r in range(K.shape[0]):
        row = K[r]
        if kind == 3:
            for t in range(row.shape[0]):
                row[t] = sq_a[r] + sq_b[t] - 2.0 * row[t]
        kernel_map(row, row.shape[0], kind, gamma, coef0, degree, work)


def block_rows(X, rows=None):
    """X (or its ``rows``) as :func:`kernel_block` takes it: a C-ordered array, or a CSR matrix as it is."""
    X = X if rows is None else X[rows]
    return X if scipy.sparse.issparse(X) else np.ascontiguousarray(X)


_BLOCK_ELEMENTS = 2**22  # rows of A per BLAS block: ≈ 4M kernel values (32 MB) at a time


def kernel_block(A, B, kind, gamma, coef0, degree, out=None):
    """K[a, b] = k(A[a], B[b]) for a named kernel, by BLAS products over blocks of rows of A.

    A and B may be sparse (CSR): each block is then their sparse product, made dense. When A is B
    the diagonal of the rbf kernel is set to exactly 1 (the expansion ‖x‖² + ‖x‖² − 2xᵀx can
    leave round-off there).
    """
    n, m = A.shape[0], B.shape[0]
    K = np.empty((n, m)) if out is None else out
    sq_b = row_norms(as_rows(B)) if kind == 3 else np.empty(0)
    sq_a = (sq_b if A is B else row_norms(as_rows(A))) if kind == 3 else np.empty(0)
    sparse = scipy.sparse.issparse(A) or scipy.sparse.issparse(B)
    step = max(1, _BLOCK_ELEMENTS // max(1, m))
    for start in range(0, n, step):
        stop = min(n, start + step)
        block = K[start:stop]
        if sparse:
            product = A[start:stop] @ B.T
            block[:] = product.toarray() if scipy.sparse.issparse(product) else product
        else:
            np.matmul(A[start:stop], B.T, out=block)
        _map_block(block, sq_a[start:stop] if kind == 3 else sq_a, sq_b, kind, gamma, coef0, degree)
    if A is B and kind == 3:
        np.fill_diagonal(K, 1.0)
    return K
