"""Numba loop of online kernel LMS: one pass over the samples, one dual coefficient updated per sample."""

import numpy as np

from ..utils import njit


@njit
def klms_epoch(K, y, beta, eta, alpha):
    """One pass of f ← f + η eᵢ k(xᵢ, ·) in sample order; returns ‖Δβ‖₂ and Σ eᵢ² (errors before each step).

    eᵢ = yᵢ − f(xᵢ) − λβᵢ with f(xᵢ) = Σⱼ βⱼKᵢⱼ, and βᵢ ← βᵢ + η eᵢ. In the first pass from β = 0 only the
    samples already seen have βⱼ ≠ 0: that is the growing network of Liu, Pokharel & Principe (2008).
    """
    n = K.shape[0]
    step2 = 0.0
    sse = 0.0
    for i in range(n):
        f = 0.0
        for j in range(n):
            f += K[i, j] * beta[j]
        e = y[i] - f
        sse += e * e
        delta = eta * (e - alpha * beta[i])
        beta[i] += delta
        step2 += delta * delta
    return np.sqrt(step2), sse
