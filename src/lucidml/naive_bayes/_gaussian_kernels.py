"""Compiled loops of GaussianNB: one pass per statistic, no per-class copies of X."""

import numpy as np

from ..utils import njit


@njit(interpret_small=True)
def class_moments(X, class_index, weight, n_classes):
    """Weighted count, mean and sum of squared deviations (M2) of every feature in every class.

    Two passes over X (means first, then squared deviations from them) rather than the
    one-pass Σx² − n·x̄², which loses every digit when the mean is large against the spread.
    """
    n_samples, n_features = X.shape
    count = np.zeros(n_classes)
    mean = np.zeros((n_classes, n_features))
    m2 = np.zeros((n_classes, n_features))
    for i in range(n_samples):
        c = class_index[i]
        count[c] += weight[i]
        for j in range(n_features):
            mean[c, j] += weight[i] * X[i, j]
    for c in range(n_classes):
        if count[c] > 0:
            for j in range(n_features):
                mean[c, j] /= count[c]
    for i in range(n_samples):
        c = class_index[i]
        for j in range(n_features):
            d = X[i, j] - mean[c, j]
            m2[c, j] += weight[i] * d * d
    return count, mean, m2


@njit(interpret_small=True)
def joint_log_likelihood(X, mean, var, log_prior):
    """log p(c) + Σⱼ log N(xⱼ; μ_cj, σ²_cj) for every sample and class."""
    n_samples, n_features = X.shape
    n_classes = mean.shape[0]
    inv_var = 1.0 / var
    const = log_prior - 0.5 * np.sum(np.log(2.0 * np.pi * var), axis=1)
    out = np.empty((n_samples, n_classes))
    for i in range(n_samples):
        for c in range(n_classes):
            s = 0.0
            for j in range(n_features):
                d = X[i, j] - mean[c, j]
                s += d * d * inv_var[c, j]
            out[i, c] = const[c] - 0.5 * s
    return out
