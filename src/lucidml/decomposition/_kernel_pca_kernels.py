"""Numba kernel of KernelPCA: centring the Gram matrix in feature space, in two passes over K."""

import numpy as np

from ..utils import njit


@njit
def center_gram(K):
    """K ← K − 1_N K − K 1_N + 1_N K 1_N in place (K symmetric); return (column means, grand mean).

    One pass accumulates the column means (row by row, so memory is read in order), a second
    applies K̃ᵢⱼ = Kᵢⱼ − mᵢ − mⱼ + m̄: half the memory traffic of three broadcast subtractions.
    """
    n = K.shape[0]
    means = np.zeros(n)
    for i in range(n):
        for j in range(n):
            means[j] += K[i, j]
    means /= n
    grand = means.mean()
    for i in range(n):
        shift = grand - means[i]
        for j in range(n):
            K[i, j] += shift - means[j]
    return means, grand
