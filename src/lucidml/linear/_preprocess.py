"""Centring and weighting shared by the least-squares family (OLS, ridge, lasso, elastic net)."""

import numpy as np
import scipy.sparse

__all__ = ["center_and_weight", "centered_gram", "column_means", "intercept_from_means"]


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


def column_means(X, sample_weight=None):
    """The (weighted) mean of each column of a dense or sparse X, in float64."""
    if not scipy.sparse.issparse(X):
        return np.average(X, axis=0, weights=sample_weight).astype(np.float64, copy=False)
    if sample_weight is None:
        return np.asarray(X.sum(axis=0, dtype=np.float64)).ravel() / X.shape[0]
    return np.asarray(X.T @ sample_weight, dtype=np.float64) / sample_weight.sum()


def intercept_from_means(x_mean, y_mean, coef):
    """b = ȳ − x̄·w (a float for one target); coef has shape (n_features,) or (n_targets, n_features)."""
    intercept = y_mean - x_mean @ coef.T
    return float(intercept) if np.ndim(intercept) == 0 else intercept


# Rows per block of the centred Gram: 4096 × d doubles stay in cache-friendly chunks, and the
# blocks are large enough for BLAS-3 speed.
_BLOCK_ROWS = 4096


def centered_gram(X, Y, sample_weight, x_mean, y_mean):
    """Return (XcᵀSXc, XcᵀSYc) with Xc = X − x̄, Yc = Y − ȳ, S = diag(s), without copying X; float64.

    On tall data a full-size centred copy of X costs more than the products themselves. Unweighted
    float64 data with small means (relative to their spread) use XᵀX − n x̄x̄ᵀ directly; otherwise X
    is centred block by block into a small float64 buffer, where nothing cancels (and a float32 X is
    accumulated in float64). Y has shape (n, n_targets).

    A sparse X is never centred: the products are XᵀSX − S x̄x̄ᵀ from the sparse product, and
    None is returned when the means are too large for that subtraction to keep its digits.
    """
    n, d = X.shape
    if scipy.sparse.issparse(X) or (sample_weight is None and X.dtype == np.float64):
        weighted = X if sample_weight is None else (
            scipy.sparse.diags(sample_weight) @ X if scipy.sparse.issparse(X) else X * sample_weight[:, None])
        gram = X.T @ weighted
        gram = gram.toarray() if scipy.sparse.issparse(gram) else gram
        gram = gram.astype(np.float64, copy=False)
        total = n if sample_weight is None else float(sample_weight.sum())
        # XᵀX − n x̄x̄ᵀ loses about log₁₀(1 + x̄ⱼ²/varⱼ) digits; when every mean is at most the
        # feature's spread that is under half a digit, and the one product is fastest.
        if np.all(total * x_mean**2 <= 0.5 * np.diag(gram)):
            gram -= total * np.outer(x_mean, x_mean)
            moment = np.asarray(weighted.T @ Y, dtype=np.float64) - total * np.outer(x_mean, y_mean)
            return gram, moment
        if scipy.sparse.issparse(X):
            return None
    gram = np.zeros((d, d))
    moment = np.zeros((d, Y.shape[1]))
    for start in range(0, n, _BLOCK_ROWS):
        block = X[start : start + _BLOCK_ROWS] - x_mean
        target = Y[start : start + _BLOCK_ROWS] - y_mean
        if sample_weight is not None:
            root_w = np.sqrt(sample_weight[start : start + _BLOCK_ROWS])[:, None]
            block *= root_w
            target = target * root_w
        gram += block.T @ block
        moment += block.T @ target
    return gram, moment
