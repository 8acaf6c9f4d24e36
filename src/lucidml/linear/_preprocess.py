"""Centring and weighting shared by the least-squares family (OLS, ridge, lasso, elastic net)."""

import numpy as np

__all__ = ["center_and_weight", "intercept_from_means"]


def center_and_weight(X, y, sample_weight, fit_intercept):
    """Centre X and y with their (weighted) means and scale rows by √sᵢ, in place; return (x̄, ȳ).

    After this, min_w ‖X w − y‖² is the weighted, intercept-free problem; the intercept is recovered
    by :func:`intercept_from_means`. Without an intercept the means are zero. ``X=None`` treats y only
    (x̄ is then None).
    """
    x_mean = None if X is None else _mean(X, sample_weight, fit_intercept)
    y_mean = _mean(y, sample_weight, fit_intercept)
    root_w = None if sample_weight is None else np.sqrt(sample_weight)
    for array, mean in ((X, x_mean), (y, y_mean)):
        if array is not None:
            array -= mean
            if root_w is not None:
                array *= root_w if array.ndim == 1 else root_w[:, None]
    return x_mean, y_mean


def _mean(array, sample_weight, fit_intercept):
    if fit_intercept:
        return np.average(array, axis=0, weights=sample_weight)
    return np.zeros(array.shape[1:])


def intercept_from_means(x_mean, y_mean, coef, fit_intercept=True):
    """b = ȳ − x̄·w (a float for one target); coef has shape (n_features,) or (n_targets, n_features).
    Without an intercept, the float 0.0 whatever the targets, as scikit-learn's linear models."""
    if not fit_intercept:
        return 0.0
    intercept = y_mean - x_mean @ coef.T
    return float(intercept) if np.ndim(intercept) == 0 else intercept
