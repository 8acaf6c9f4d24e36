"""Per-chunk sufficient statistics and their merge: the engine of the chunked generative and
least-squares fits.

Every chunk returns, per class, its count n, mean μ and scatter M2 = Σ (x − μ)(x − μ)ᵀ (or only
its diagonal) about its *own* mean, computed in float64; two chunks' statistics are merged with
the pairwise update of Chan, Golub & LeVeque (``lucidml.naive_bayes.gaussian.merge_moments``),
so no raw sum of squares Σ xxᵀ is ever formed and a large mean costs no digits.
"""

import numpy as np

from ..naive_bayes._gaussian_kernels import class_moments
from ..naive_bayes.gaussian import merge_moments
from ..utils.validation import MAX_MAGNITUDE, largest_magnitude
from ._chunks import check_finite_chunk, compute

__all__ = ["class_index", "class_scatter", "diagonal_moments", "feature_moments", "merge_pair", "merge_moments"]


def class_index(y, classes):
    """The index of every label of ``y`` in the sorted ``classes`` (all labels must be there)."""
    index = np.minimum(np.searchsorted(classes, y), len(classes) - 1)
    unknown = classes[index] != y
    if unknown.any():
        raise ValueError(f"y contains labels {np.unique(y[unknown])!r} that are not in classes {classes!r}.")
    return index


def class_scatter(X, index, n_classes):
    """(n_c, μ_c, Σ_{yᵢ=c} (xᵢ − μ_c)(xᵢ − μ_c)ᵀ) per class in float64, shapes (C,), (C, d), (C, d, d)."""
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    count, mean, scatter = np.zeros(n_classes), np.zeros((n_classes, d)), np.zeros((n_classes, d, d))
    for c in range(n_classes):
        rows = X[index == c]
        if len(rows):
            count[c], mean[c] = len(rows), rows.mean(axis=0)
            centred = rows - mean[c]
            scatter[c] = centred.T @ centred
    return count, mean, scatter


def diagonal_moments(X, index, n_classes):
    """(n_c, μ_c, Σ_{yᵢ=c} (xᵢⱼ − μ_cj)²) per class: GaussianNB's compiled two-pass kernel."""
    return class_moments(X, index, np.ones(X.shape[0]), n_classes)


def merge_pair(a, b):
    """Merge two tuples of (count, mean, M2) statistics element by element."""
    return tuple(merge_moments(x, y) for x, y in zip(a, b))


def finite(X, name="X", limit=MAX_MAGNITUDE):
    """X after the checks (on the worker) that it has no NaN or infinity and no value beyond
    ``limit`` in magnitude: the in-memory estimators' ``check_magnitude``, for the squares and
    products the chunked statistics form (values near 1e200 gave NaN variances, an infinite
    inertia, or a wrong intercept, where the in-memory fits refuse). ``limit=None``: no bound."""
    check_finite_chunk(X, name)
    if limit is None:
        return X
    largest = largest_magnitude(X)
    if largest > limit:
        raise ValueError(f"{name} has values of magnitude up to {largest:.3g}; beyond {limit:.0e} the squares and "
                         f"products this model computes overflow {np.dtype(X.dtype).name}. Rescale {name} (e.g. "
                         "StandardScaler).")
    return X


def feature_moments(X, fit_intercept):
    """(centre, spread) of the smooth fits' features (logistic, softmax, Poisson), as the in-memory
    solvers take them: X's column means and standard deviations, or without an intercept zeros and
    the root mean squares (a dask array X; one pass)."""
    X64 = X.astype(np.float64)
    if not fit_intercept:
        (mean_square,) = compute((X64 * X64).mean(axis=0))
        return np.zeros(X.shape[1]), np.sqrt(np.asarray(mean_square, dtype=np.float64))
    x_mean, x_spread = compute(X64.mean(axis=0), X64.std(axis=0))
    return np.asarray(x_mean, dtype=np.float64), np.asarray(x_spread, dtype=np.float64)
