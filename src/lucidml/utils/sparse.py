"""CSR (and CSC) matrices as the compiled kernels take them."""

import numpy as np

from ._numba import njit

__all__ = ["csr_parts", "first_at_least", "row_sq_norms"]

INT32_MAX = np.iinfo(np.int32).max


def csr_parts(X):
    """(indptr, indices, data) of the CSR or CSC matrix X, both index arrays of one dtype: int32 when
    every index and the number of stored entries fit (SciPy's usual choice, used as is), int64 otherwise.

    Kernels then see two index dtypes at most, whatever mix of dtypes SciPy produced (a matrix may
    carry int32 indices with an int64 ``indptr``). X is expected in canonical format (sorted indices,
    no duplicates), as ``check_fit_data`` and ``check_predict_data`` leave it; ``data`` is not copied.
    """
    index = np.int32 if max(X.nnz, *X.shape) <= INT32_MAX else np.int64
    return X.indptr.astype(index, copy=False), X.indices.astype(index, copy=False), X.data


@njit
def first_at_least(a, lo, hi, key):
    """The first position p in [lo, hi) of the increasing ``a`` with a[p] ≥ key (hi if none), by
    bisection: where ``key`` is, or would go, among a row's sorted column indices (or a column's rows)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(interpret_small=True)
def row_sq_norms(indptr, data):
    """‖xᵢ‖² of every row (of every column for CSC parts), summed in float64 from the stored entries."""
    out = np.zeros(indptr.shape[0] - 1)
    for i in range(out.shape[0]):
        for p in range(indptr[i], indptr[i + 1]):
            out[i] += np.float64(data[p]) * data[p]
    return out
