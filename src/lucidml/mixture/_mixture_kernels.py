"""Compiled per-sample loops of the mixture models: log-densities and log-sum-exp normalization.

Each kernel makes one pass over its input and writes into a preallocated (n_samples, K)
array, so no (n_samples, K, n_features) temporary is ever built.
"""

import numpy as np

from ..utils import njit


@njit
def projected_log_prob(Y, offsets, step, const, out):
    """out[i, k] = const[k] − ½ ‖Y[i, k·step : k·step + d] − offsets[k]‖²,  d = offsets.shape[1].

    With Y = X [U₁ … U_K] (one BLAS product, U_k the Cholesky factor of precision k) and
    offsets[k] = μ_k U_k, the norm is the Mahalanobis distance (x − μ_k)ᵀ Σ_k⁻¹ (x − μ_k).
    ``step = d`` reads a block of Y per component (full covariances); ``step = 0`` reads the
    same columns for all (one shared, tied covariance).
    """
    n_samples = Y.shape[0]
    n_components, n_features = offsets.shape
    for i in range(n_samples):
        for k in range(n_components):
            start = k * step
            s = 0.0
            for j in range(n_features):
                t = Y[i, start + j] - offsets[k, j]
                s += t * t
            out[i, k] = const[k] - 0.5 * s


@njit
def diagonal_log_prob(X, means, inv_var, const, out):
    """out[i, k] = const[k] − ½ Σⱼ (x_ij − μ_kj)² / σ²_kj  (diagonal or spherical covariances).

    The direct differences, not ‖x‖² − 2x·μ + ‖μ‖², which cancels when a mean is large
    against its spread.
    """
    n_samples, n_features = X.shape
    n_components = means.shape[0]
    for i in range(n_samples):
        for k in range(n_components):
            s = 0.0
            for j in range(n_features):
                t = X[i, j] - means[k, j]
                s += t * t * inv_var[k, j]
            out[i, k] = const[k] - 0.5 * s


@njit
def normalize_log_prob(log_prob, log_norm):
    """Turn each row of log φ_k + log p(x | k) into responsibilities, in place.

    log_norm[i] = log Σ_k exp(log_prob[i, k]) by log-sum-exp (the largest term factored out,
    so nothing underflows to 0/0), then log_prob[i, k] ← exp(log_prob[i, k] − log_norm[i]).
    """
    n_samples, n_components = log_prob.shape
    for i in range(n_samples):
        top = -np.inf
        for k in range(n_components):
            top = max(top, log_prob[i, k])
        if top == -np.inf:  # every component has zero density here (only with weight-0 components)
            log_norm[i] = -np.inf
            for k in range(n_components):
                log_prob[i, k] = 1.0 / n_components
            continue
        s = 0.0
        for k in range(n_components):
            e = np.exp(log_prob[i, k] - top)
            log_prob[i, k] = e
            s += e
        log_norm[i] = top + np.log(s)
        inv = 1.0 / s
        for k in range(n_components):
            log_prob[i, k] *= inv
