"""Small linear-algebra helpers shared by the estimators."""

import numpy as np
import scipy.linalg

__all__ = ["cholesky_or_none"]


def cholesky_or_none(A, lower=True):
    """Cholesky factor of the symmetric matrix A, or None when A is not numerically positive definite.

    Round-off can leave a tiny positive pivot where A is singular in exact arithmetic, so a
    pivot p with p² ≤ d·ε·(largest pivot)² also counts as singular.
    """
    try:
        factor = scipy.linalg.cholesky(A, lower=lower, check_finite=False)
    except scipy.linalg.LinAlgError:
        return None
    pivots = np.abs(np.diag(factor))
    if pivots.min() ** 2 <= A.shape[0] * np.finfo(np.float64).eps * pivots.max() ** 2:
        return None
    return factor
