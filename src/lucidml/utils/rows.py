"""Rows of a dense or sparse X for the compiled row-by-row kernels (perceptron, Adaline, the
linear SVM's dual coordinate descent, the kernel SVMs, the walk down a tree).

A kernel written with :func:`row_dot`, :func:`row_add`, :func:`row_squared_norm` and :func:`row_value`
reads a row the same way whether X is
a 2-D NumPy array or a CSR matrix passed as :class:`SparseRows`; Numba compiles one version per
representation, and a sparse row costs its stored entries only. Both walk the row left to
right, the order scikit-learn's SGD sums in.
"""

from typing import NamedTuple

import numba
import numpy as np
import scipy.sparse
from numba.core import types
from numba.extending import overload

from .sparse import csr_parts

__all__ = ["SparseRows", "as_rows", "row_add", "row_dot", "row_squared_norm", "row_value"]


class SparseRows(NamedTuple):
    """A CSR matrix's arrays, with ``shape`` so that kernels read ``X.shape`` as for an array.

    ``shape`` is a two-entry int64 array rather than a tuple: Numba's parallel loops cannot take a
    record holding a tuple.
    """

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: np.ndarray


def as_rows(X):
    """X for the row kernels: a dense array as it is, a CSR matrix as :class:`SparseRows` (32-bit
    indices when they fit, so that one compiled version serves both of SciPy's index types)."""
    if not scipy.sparse.issparse(X):
        return X
    X = scipy.sparse.csr_matrix(X)
    indptr, indices, data = csr_parts(X)
    return SparseRows(data, indices, indptr, np.array(X.shape, dtype=np.int64))


def _dense_dot(X, i, W, c):
    total = 0.0
    for j in range(X.shape[1]):
        total += W[c, j] * X[i, j]
    return total


def _sparse_dot(X, i, W, c):
    total = 0.0
    for p in range(X.indptr[i], X.indptr[i + 1]):
        total += W[c, X.indices[p]] * X.data[p]
    return total


def _dense_add(X, i, W, c, scale):
    for j in range(X.shape[1]):
        W[c, j] += X[i, j] * scale


def _sparse_add(X, i, W, c, scale):
    for p in range(X.indptr[i], X.indptr[i + 1]):
        W[c, X.indices[p]] += X.data[p] * scale


def _dense_squared_norm(X, i):
    total = 0.0
    for j in range(X.shape[1]):
        value = np.float64(X[i, j])  # a float32 X is squared in float64
        total += value * value
    return total


def _sparse_squared_norm(X, i):
    total = 0.0
    for p in range(X.indptr[i], X.indptr[i + 1]):
        value = np.float64(X.data[p])
        total += value * value
    return total


def _dense_value(X, i, j):
    return X[i, j]


def _sparse_value(X, i, j):
    # Binary search of column j among row i's sorted column indices; an absent entry is 0.
    j = np.int64(j)
    lo, hi = X.indptr[i], X.indptr[i + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if X.indices[mid] < j:
            lo = mid + 1
        else:
            hi = mid
    if lo < X.indptr[i + 1] and X.indices[lo] == j:
        return X.data[lo]
    return 0.0


def row_value(X, i, j):
    """X[i, j] (O(log of the row's stored entries) for a sparse row)."""
    return (_sparse_value if isinstance(X, SparseRows) else _dense_value)(X, i, j)


def row_squared_norm(X, i):
    """‖X[i]‖²."""
    return (_sparse_squared_norm if isinstance(X, SparseRows) else _dense_squared_norm)(X, i)


def row_dot(X, i, W, c):
    """Σⱼ W[c, j]·X[i, j]."""
    return (_sparse_dot if isinstance(X, SparseRows) else _dense_dot)(X, i, W, c)


def row_add(X, i, W, c, scale):
    """W[c] += scale·X[i]."""
    (_sparse_add if isinstance(X, SparseRows) else _dense_add)(X, i, W, c, scale)


if not numba.config.DISABLE_JIT:  # compiled kernels get the implementation of X's representation

    @overload(row_squared_norm, inline="always")
    def _row_squared_norm(X, i):
        return _dense_squared_norm if isinstance(X, types.Array) else _sparse_squared_norm

    @overload(row_dot, inline="always")
    def _row_dot(X, i, W, c):
        return _dense_dot if isinstance(X, types.Array) else _sparse_dot

    @overload(row_value, inline="always")
    def _row_value(X, i, j):
        return _dense_value if isinstance(X, types.Array) else _sparse_value

    @overload(row_add, inline="always")
    def _row_add(X, i, W, c, scale):
        return _dense_add if isinstance(X, types.Array) else _sparse_add
