"""The Gaussian-mixture model for each covariance type: M-step estimates, precision factors, log-densities.

Shapes per ``covariance_type`` (as scikit-learn's): covariances and precision Cholesky factors
are (K, d, d) for "full", (d, d) for "tied", (K, d) for "diag" and (K,) for "spherical". A
precision factor U satisfies Σ⁻¹ = U Uᵀ, so (x − μ)ᵀ Σ⁻¹ (x − μ) = ‖(x − μ) U‖² and
−½ log|Σ| = Σ log diag(U).
"""

import warnings
from typing import NamedTuple

import numpy as np
from scipy.linalg import lapack

from ..utils.linalg import pivots_above_roundoff, sum_of_row_products
from ._mixture_kernels import diagonal_log_prob, projected_log_prob

_LOG_2PI = np.log(2.0 * np.pi)
# Rows of X per BLAS product in the full-covariance E-step: X_block [U₁ … U_K] stays ~8 MB.
_BLOCK_ELEMENTS = 1 << 20


class Gaussians(NamedTuple):
    """Parameters of a Gaussian mixture: φ, μ, Σ and the precision factors U."""

    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    precisions_cholesky: np.ndarray


def estimate_gaussians(X, resp, covariance_type, reg_covar):
    """The M-step: φ_k = n_k / n, μ_k = Σᵢ rᵢₖ xᵢ / n_k, Σ_k = Σᵢ rᵢₖ xᵢxᵢᵀ / n_k − μ_kμ_kᵀ + reg_covar·I.

    n_k = Σᵢ rᵢₖ (+ 10ε, so that an emptied component divides by a tiny number, not by zero).
    The scatter comes from one weighted product XᵀRX per component (one BLAS call) instead
    of a centred copy of X per component; the caller centres X once so the subtraction of
    μ_kμ_kᵀ loses no digits. Returns (Gaussians, number of covariances that needed more
    regularization than reg_covar).
    """
    return gaussians_from_sums(responsibility_sums(X, resp, covariance_type), covariance_type, reg_covar,
                               lambda: np.mean(X**2, axis=0, dtype=np.float64))


def responsibility_sums(X, resp, covariance_type):
    """The sufficient statistics of the M-step, sums over the samples (so that the sums of row
    blocks add up to those of all rows): (Σᵢ rᵢₖ, Σᵢ rᵢₖ xᵢ, second moments), the second moments
    Σᵢ rᵢₖ xᵢxᵢᵀ (K, d, d) for "full", Σᵢ xᵢxᵢᵀ (d, d) for "tied", Σᵢ rᵢₖ xᵢ² (K, d) otherwise.
    """
    # Sums over the samples through sum_of_row_products: a float32 X is multiplied in float32
    # blocks summed in float64, never copied to float64; the parameters are float64 either way.
    counts = resp.sum(axis=0)
    first = sum_of_row_products(X, resp).T
    if covariance_type == "full":
        second = np.stack([sum_of_row_products(X * resp[:, k : k + 1].astype(X.dtype), X)
                           for k in range(resp.shape[1])])
    elif covariance_type == "tied":
        second = sum_of_row_products(X, X)
    else:
        second = sum_of_row_products(X * X, resp).T
    return counts, first, second


def gaussians_from_sums(sums, covariance_type, reg_covar, data_variance):
    """The M-step's parameters from :func:`responsibility_sums` (of all the samples); ``data_variance``
    is a callable giving the mean of the squared (centred) data, for the jitter of a singular Σ."""
    counts, first, second = sums
    nk = counts + 10 * np.finfo(np.float64).eps
    means = first / nk[:, None]
    n_features = means.shape[1]
    if covariance_type == "full":
        cov = np.empty((len(nk), n_features, n_features))
        for k in range(len(nk)):
            cov[k] = second[k] / nk[k] - np.outer(means[k], means[k])
            cov[k] = 0.5 * (cov[k] + cov[k].T)  # the two triangles of XᵀRX round differently
            cov[k].flat[:: n_features + 1] += reg_covar
    elif covariance_type == "tied":
        cov = (second - (means.T * nk) @ means) / nk.sum()
        cov = 0.5 * (cov + cov.T)
        cov.flat[:: n_features + 1] += reg_covar
    else:
        cov = second / nk[:, None] - means**2 + reg_covar
        if covariance_type == "spherical":
            cov = cov.mean(axis=1)
    cov, prec_chol, n_fixed = precision_cholesky(cov, covariance_type, data_variance)
    return Gaussians(nk / nk.sum(), means, cov, prec_chol), n_fixed


def precision_cholesky(covariances, covariance_type, data_variance=None):
    """(covariances, U, n_fixed): U with Σ⁻¹ = UUᵀ, U = L⁻ᵀ for Σ = LLᵀ (one triangular solve, no inverse).

    A covariance that is not numerically positive definite (a component collapsed on
    duplicate points, a constant feature with reg_covar = 0) gets a jitter diag(τ) added, τⱼ
    from 1e-10 × feature j's variance in the data (the mean variance for a constant feature) up
    by factors of 10; n_fixed counts them so the caller can warn. ``data_variance`` is a callable
    giving the features' variances (only called when needed). One τ for all features (the rule
    until stop 55) swamped the features in small units: raw breast cancer in float32, whose
    covariances round to singular, scored up to 213 nats off.
    """
    def jitter():
        variance = np.asarray(data_variance() if data_variance is not None else 1.0, dtype=np.float64)
        fallback = variance.mean() if np.any(variance > 0) else 1.0
        return 1e-10 * np.where(variance > 0, variance, fallback)

    if covariance_type in ("diag", "spherical"):
        covariances = np.array(covariances, dtype=np.float64)
        tau = jitter().mean() if covariance_type == "spherical" else np.broadcast_to(jitter(), covariances.shape)
        # A variance at rounding level of the data's is a collapse, not a measurement.
        bad = ~(covariances > 1e-3 * tau)
        if bad.any():
            covariances[bad] = np.broadcast_to(tau, covariances.shape)[bad]
        return covariances, 1.0 / np.sqrt(covariances), int(bad.sum())
    stacked = covariances[None] if covariance_type == "tied" else covariances
    factors, fixed = np.empty_like(stacked), 0
    for k, cov in enumerate(stacked):
        lower = lower_cholesky(cov)
        if lower is None:
            cov, lower = _jitter_until_definite(cov, jitter())
            stacked[k], fixed = cov, fixed + 1
        factors[k] = lapack.dtrtri(lower, lower=1)[0].T  # L⁻ᵀ (LAPACK directly: SciPy's wrappers cost ms here)
    if covariance_type == "tied":
        return stacked[0], factors[0], fixed
    return stacked, factors, fixed


def lower_cholesky(cov):
    """Lower Cholesky factor, or None when cov is not numerically positive definite.

    The rule of ``lucidml.utils.linalg.cholesky_or_none`` (:func:`~lucidml.utils.linalg.pivots_above_roundoff`),
    on LAPACK's potrf directly: this runs K times per EM iteration.
    """
    lower, info = lapack.dpotrf(cov, lower=1, clean=1)
    if info != 0:
        return None
    return lower if pivots_above_roundoff(lower, cov) else None


def _jitter_until_definite(cov, tau):
    if np.all(np.isfinite(cov)):
        for power in range(12):
            candidate = cov + np.diag(np.broadcast_to(tau, len(cov)) * 10.0**power)
            lower = lower_cholesky(candidate)
            if lower is not None:
                return candidate, lower
    raise ValueError("A covariance matrix of the mixture is not finite or stays singular after regularization. "
                     "Scale the input data, increase reg_covar or decrease n_components.")


def weighted_log_prob(X, params, covariance_type, out=None):
    """log φ_k + log N(xᵢ | μ_k, Σ_k) for every sample and component, shape (n_samples, K).

    log N = −d/2 log 2π + Σ log diag(U_k) − ½ ‖(x − μ_k) U_k‖². For full covariances the
    products X U_k of all components come from one BLAS call per block of rows
    (X_block [U₁ … U_K]); a compiled loop then forms the squared norms without a temporary.
    """
    n_samples, n_features = X.shape
    weights, means, _, prec_chol = params
    n_components = len(weights)
    out = np.empty((n_samples, n_components)) if out is None else out
    with np.errstate(divide="ignore"):  # a weight of exactly 0 gives log φ = −∞
        const = np.log(weights) - 0.5 * n_features * _LOG_2PI
    if covariance_type in ("full", "tied"):
        if covariance_type == "full":
            factors, step = prec_chol.transpose(1, 0, 2).reshape(n_features, -1), n_features
            offsets = np.einsum("kd,kde->ke", means, prec_chol)
            const = const + np.log(np.diagonal(prec_chol, axis1=1, axis2=2)).sum(axis=1)
        else:
            factors, step, offsets = prec_chol, 0, means @ prec_chol
            const = const + np.log(np.diag(prec_chol)).sum()
        rows = max(1, _BLOCK_ELEMENTS // factors.shape[1])
        for start in range(0, n_samples, rows):
            block = slice(start, start + rows)
            projected_log_prob(X[block] @ factors, offsets, step, const, out[block])
        return out
    if covariance_type == "diag":
        inv_var = prec_chol**2
        const = const + np.log(prec_chol).sum(axis=1)
    else:
        inv_var = np.repeat((prec_chol**2)[:, None], n_features, axis=1)
        const = const + n_features * np.log(prec_chol)
    diagonal_log_prob(X, means, inv_var, const, out)
    return out


def precisions_from_cholesky(prec_chol, covariance_type):
    """Σ⁻¹ = UUᵀ (full, tied) or U² (diag, spherical)."""
    if covariance_type == "full":
        return prec_chol @ prec_chol.transpose(0, 2, 1)
    if covariance_type == "tied":
        return prec_chol @ prec_chol.T
    return prec_chol**2


def n_covariance_parameters(covariance_type, n_components, n_features):
    """Free parameters of the covariances: K·d(d+1)/2, d(d+1)/2, K·d or K."""
    return {
        "full": n_components * n_features * (n_features + 1) // 2,
        "tied": n_features * (n_features + 1) // 2,
        "diag": n_components * n_features,
        "spherical": n_components,
    }[covariance_type]


def covariance_shape(covariance_type, n_components, n_features):
    return {
        "full": (n_components, n_features, n_features),
        "tied": (n_features, n_features),
        "diag": (n_components, n_features),
        "spherical": (n_components,),
    }[covariance_type]


def warn_regularized(n_fixed):
    if n_fixed:
        warnings.warn(f"{n_fixed} covariance estimate(s) of the EM iterations were singular (a component collapsed "
                      f"on duplicate points, or a constant feature) and were regularized with a multiple of the "
                      f"identity. Increase reg_covar or decrease n_components.", RuntimeWarning, stacklevel=4)
