"""Marginal and conditional distributions of a multivariate Gaussian split into two blocks."""

import numpy as np
import scipy.linalg

from ..utils.linalg import cholesky_or_none
from ._checks import check_indices, check_mean_cov

__all__ = ["gaussian_conditional", "gaussian_marginal"]


def gaussian_marginal(mean, cov, indices):
    """Marginal of a Gaussian on some coordinates: X₁ ~ N(μ₁, Σ₁₁).

    Integrating the other coordinates out of N(μ, Σ) leaves the Gaussian whose mean and
    covariance are just the sub-vector and the sub-block of those coordinates (seeds 000 §14.2).

    Parameters
    ----------
    mean : array-like of shape (d,)
    cov : array-like of shape (d, d)
        Symmetric positive semidefinite.
    indices : sequence of int
        The coordinates to keep, in the order wanted.

    Returns
    -------
    mean : ndarray of shape (r,)
    cov : ndarray of shape (r, r)

    Examples
    --------
    >>> from lucidml.stats import gaussian_marginal
    >>> m, S = gaussian_marginal([1.0, 2.0, 3.0], [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], [2, 0])
    >>> m.tolist(), S.tolist()
    ([3.0, 1.0], [[2.0, 0.5], [0.5, 4.0]])
    """
    mean, cov = check_mean_cov(mean, cov)
    keep = check_indices(indices, mean.size, "indices")
    return mean[keep].copy(), cov[np.ix_(keep, keep)].copy()


def gaussian_conditional(mean, cov, given, values):
    """Distribution of the other coordinates of a Gaussian once the coordinates ``given`` are observed.

    Split X ~ N(μ, Σ) into the free block X₁ and the observed block X₂ = x₂. Then
    X₁ | X₂ = x₂ ~ N(μ₁|₂, Σ₁|₂) with (seeds 000 §14.2, (14.1)–(14.2))

        μ₁|₂ = μ₁ + Σ₁₂ Σ₂₂⁻¹ (x₂ − μ₂)
        Σ₁|₂ = Σ₁₁ − Σ₁₂ Σ₂₂⁻¹ Σ₂₁    (the Schur complement of Σ₂₂; it does not depend on x₂)

    Σ₂₂⁻¹ is never formed: one Cholesky factorization Σ₂₂ = LLᵀ gives A = L⁻¹Σ₂₁ and
    Σ₁|₂ = Σ₁₁ − AᵀA, which stays symmetric and positive semidefinite in floating point.

    Parameters
    ----------
    mean : array-like of shape (d,)
    cov : array-like of shape (d, d)
        Symmetric positive semidefinite, with Σ₂₂ positive definite.
    given : sequence of int
        The observed coordinates (s of them, s < d). The free coordinates are the others, in
        increasing order.
    values : array-like of shape (s,) or (n, s)
        The observed x₂, or n of them (one conditional mean each).

    Returns
    -------
    mean : ndarray of shape (d − s,) or (n, d − s)
        μ₁|₂.
    cov : ndarray of shape (d − s, d − s)
        Σ₁|₂.

    Raises
    ------
    ValueError
        If Σ₂₂ is singular: the observed coordinates are then linearly dependent and the
        condition is either impossible or redundant.

    Examples
    --------
    >>> from lucidml.stats import gaussian_conditional
    >>> m, S = gaussian_conditional([0.0, 0.0], [[1.0, 0.8], [0.8, 1.0]], given=[1], values=[2.0])
    >>> m.round(6).tolist(), S.round(6).tolist()
    ([1.6], [[0.36]])
    """
    mean, cov = check_mean_cov(mean, cov)
    d = mean.size
    observed = check_indices(given, d, "given")
    if observed.size == d:
        raise ValueError("given names every coordinate: nothing is left to condition.")
    free = np.setdiff1d(np.arange(d), observed)
    values = np.asarray(values, dtype=np.float64)
    if values.shape[-1:] != (observed.size,) or values.ndim > 2:
        raise ValueError(f"values must have shape ({observed.size},) or (n, {observed.size}); got {values.shape}.")
    if not np.all(np.isfinite(values)):
        raise ValueError("values must not contain NaN or infinity.")
    factor = cholesky_or_none(cov[np.ix_(observed, observed)], lower=True)
    if factor is None:
        raise ValueError("The covariance of the given coordinates (Σ₂₂) is singular: they are linearly dependent. "
                         "Condition on an independent subset of them.")
    cross = scipy.linalg.solve_triangular(factor, cov[np.ix_(observed, free)], lower=True)  # A = L⁻¹ Σ₂₁
    whitened = scipy.linalg.solve_triangular(factor, (values - mean[observed]).T, lower=True)  # L⁻¹ (x₂ − μ₂)
    conditional_mean = mean[free] + (cross.T @ whitened).T
    conditional_cov = cov[np.ix_(free, free)] - cross.T @ cross
    return conditional_mean, 0.5 * (conditional_cov + conditional_cov.T)
