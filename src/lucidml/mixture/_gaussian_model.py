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
# Added to the responsibility sums n_k: an emptied component divides by a tiny number, not by zero.
_EMPTY = 10 * np.finfo(np.float64).eps
# Rows of X per BLAS product in the full-covariance E-step: X_block [U₁ … U_K] stays ~8 MB.
_BLOCK_ELEMENTS = 1 << 20
# Values of X per block of the M-step's scatter: 256 KiB of float64, in the cache for all components.
_SCATTER_BLOCK_ELEMENTS = 1 << 15


class Gaussians(NamedTuple):
    """Parameters of a Gaussian mixture: φ, μ, Σ and the precision factors U."""

    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    precisions_cholesky: np.ndarray


def estimate_gaussians(X, resp, covariance_type, reg_covar):
    """The M-step: φ_k = n_k / n, μ_k = Σᵢ rᵢₖ xᵢ / n_k, Σ_k = Σᵢ rᵢₖ (xᵢ − μ_k)(xᵢ − μ_k)ᵀ / n_k + reg_covar·I.

    n_k = Σᵢ rᵢₖ (+ 10ε, so that an emptied component divides by a tiny number, not by zero).
    Two passes: the means, then each component's scatter about its own mean (Σᵢ rᵢₖ xᵢxᵢᵀ / n_k −
    μ_kμ_kᵀ cancels for a component far from the data's centre, or in float32: variances 2,500
    times too large for clusters 1e7 apart, negative ones on float32 digits). Returns
    (Gaussians, number of covariances that needed more regularization than reg_covar).
    """
    counts, first = first_sums(X, resp)
    centres = first / (counts + _EMPTY)[:, None]
    sums = responsibility_sums(X, resp, covariance_type, centres, firsts=(counts, first))
    return gaussians_from_sums(sums, covariance_type, reg_covar,
                               lambda: np.mean(X**2, axis=0, dtype=np.float64), np.finfo(X.dtype).eps, centres)


def first_sums(X, resp):
    """(Σᵢ rᵢₖ, Σᵢ rᵢₖ xᵢ): what the components' means come from."""
    # sum_of_row_products: a float32 X is multiplied in float32 blocks summed in float64, never
    # copied to float64; the parameters are float64 either way.
    return resp.sum(axis=0), sum_of_row_products(X, resp).T


def responsibility_sums(X, resp, covariance_type, centres, firsts=None):
    """The sufficient statistics of the M-step, sums over the samples (so that the sums of row
    blocks add up to those of all rows): (Σᵢ rᵢₖ, Σᵢ rᵢₖ xᵢ, scatter about ``centres``), the
    scatter Σᵢ rᵢₖ (xᵢ − c_k)(xᵢ − c_k)ᵀ (K, d, d) for "full", its sum over k (d, d) for "tied",
    Σᵢ rᵢₖ (xᵢ − c_k)² (K, d) otherwise. ``centres`` (K, d): the components' means, or the best
    guess of them (the previous iteration's, for sums over chunks): the nearer, the fewer digits
    :func:`gaussians_from_sums` loses taking the means back out. ``firsts``: :func:`first_sums`
    when the caller has them already.
    """
    counts, first = first_sums(X, resp) if firsts is None else firsts
    if covariance_type in ("full", "tied"):
        second = _scatter(X, resp, centres, range(resp.shape[1]), full=True)
        return counts, first, second.sum(axis=0) if covariance_type == "tied" else second
    # Diagonal: Σᵢ rᵢₖ xᵢ² − 2c_k Σᵢ rᵢₖ xᵢ + n_k c_k² from one BLAS product, exact where Σᵢ rᵢₖ xᵢ²
    # is within a few digits of the result (X is centred once, ordinary data lose none); the
    # components where it is not (far from the data's centre, or float32) are summed again about c_k.
    raw = sum_of_row_products(X * X, resp).T
    second = raw - 2.0 * centres * first + centres**2 * counts[:, None]
    lossy = np.flatnonzero(np.any(raw * np.finfo(X.dtype).eps > 1e-7 * second, axis=1))
    if lossy.size:
        second[lossy] = _scatter(X, resp, centres, lossy, full=False)
    return counts, first, second


def _scatter(X, resp, centres, components, full):
    """Σᵢ rᵢₖ (xᵢ − c_k)(xᵢ − c_k)ᵀ (``full``) or Σᵢ rᵢₖ (xᵢ − c_k)² for the ``components`` k, summed
    over blocks of rows that stay in the cache while each component takes its deviations from them
    (whole-X temporaries per component doubled the M-step's time): products in X's precision,
    summed in float64."""
    n_features = X.shape[1]
    second = np.zeros((len(components), n_features, n_features) if full else (len(components), n_features))
    centres = centres.astype(X.dtype)
    rows = max(1, _SCATTER_BLOCK_ELEMENTS // n_features)
    for start in range(0, X.shape[0], rows):
        block = X[start : start + rows]
        weights = resp[start : start + rows].astype(X.dtype)
        for slot, k in enumerate(components):
            deviations = block - centres[k]
            if full:
                second[slot] += (deviations * weights[:, k : k + 1]).T @ deviations
            else:
                second[slot] += weights[:, k] @ (deviations * deviations)
    return second


def gaussians_from_sums(sums, covariance_type, reg_covar, data_variance, resolution, centres):
    """The M-step's parameters from :func:`responsibility_sums` (of all the samples, about
    ``centres``). ``data_variance``: a callable giving the features' variances in the data, and
    ``resolution`` the relative precision of its values (X's machine epsilon), for the test and the
    jitter of a singular Σ (:func:`precision_cholesky`)."""
    counts, first, second = sums
    nk = counts + _EMPTY
    means = first / nk[:, None]
    offsets = means - centres  # the scatter about c_k minus n_k (μ_k − c_k)(μ_k − c_k)ᵀ: about μ_k
    n_features = means.shape[1]
    if covariance_type == "full":
        cov = second / nk[:, None, None] - np.einsum("ki,kj->kij", offsets, offsets)
        cov = 0.5 * (cov + cov.transpose(0, 2, 1))  # the two triangles of XᵀRX round differently
        cov[:, np.arange(n_features), np.arange(n_features)] += reg_covar
    elif covariance_type == "tied":
        cov = (second - (offsets.T * nk) @ offsets) / nk.sum()
        cov = 0.5 * (cov + cov.T)
        cov.flat[:: n_features + 1] += reg_covar
    else:
        cov = second / nk[:, None] - offsets**2 + reg_covar
        if covariance_type == "spherical":
            cov = cov.mean(axis=1)
    cov, prec_chol, n_fixed = precision_cholesky(cov, covariance_type, data_variance, resolution)
    return Gaussians(nk / nk.sum(), means, cov, prec_chol), n_fixed


def precision_cholesky(covariances, covariance_type, data_variance=None, resolution=np.finfo(np.float64).eps):
    """(covariances, U, n_fixed): U with Σ⁻¹ = UUᵀ, U = L⁻ᵀ for Σ = LLᵀ (one triangular solve, no inverse).

    A covariance that is not numerically positive definite (a component collapsed on duplicate
    points, a constant feature with reg_covar = 0) gets a jitter diag(τ) added, τⱼ from 1e-10 ×
    feature j's variance in the data (the mean variance for a constant feature) up by factors of
    10; n_fixed counts them so the caller can warn. ``data_variance`` is a callable giving the
    features' variances (only called when needed). One τ for all features (the rule until stop 55)
    swamped the features in small units: raw breast cancer in float32 scored up to 213 nats off.

    A diagonal variance is a collapse when it is at the rounding level of the values it comes
    from, (1000 · ``resolution`` · σⱼ)², σⱼ² the feature's variance in the data; a component's own
    scale does not enter (a fixed fraction of σⱼ² took clusters 1e7 apart, of variance 1, for
    collapsed ones).
    """
    def variances():
        variance = np.asarray(data_variance() if data_variance is not None else 1.0, dtype=np.float64)
        return np.where(variance > 0, variance, variance.mean() if np.any(variance > 0) else 1.0)

    if covariance_type in ("diag", "spherical"):
        covariances = np.array(covariances, dtype=np.float64)
        variance = variances()
        floor = (1e3 * resolution) ** 2 * variance
        tau = np.maximum(1e-10 * variance, 10.0 * floor)  # (never below what counts as a collapse)
        if covariance_type == "spherical":
            tau, floor = tau.mean(), floor.mean()
        bad = ~(covariances > floor)
        if bad.any():
            covariances[bad] = np.broadcast_to(tau, covariances.shape)[bad]
        return covariances, 1.0 / np.sqrt(covariances), int(bad.sum())
    stacked = covariances[None] if covariance_type == "tied" else covariances
    factors, fixed = np.empty_like(stacked), 0
    for k, cov in enumerate(stacked):
        lower = lower_cholesky(cov)
        if lower is None:
            cov, lower = _jitter_until_definite(cov, 1e-10 * variances())
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


def warn_if_reg_covar_dominates(variances, reg_covar, stacklevel=5):
    """Warn where ``reg_covar`` exceeds the variance of every feature (``variances``, of the data).

    Each covariance estimate is then mostly reg_covar·I whatever the data, so every component
    spreads over all of it and the mixture cannot separate clusters (features scaled by 1e-140
    gave one cluster, an adjusted Rand index of 0, with no word). scikit-learn adds the same
    absolute reg_covar, silently. ``stacklevel``: as :func:`warn_regularized`'s.
    """
    largest = float(np.max(variances))
    if reg_covar > largest:
        warnings.warn(f"reg_covar={reg_covar:g} exceeds the variance of every feature of X (the largest is "
                      f"{largest:.3g}): each component's covariance is then mostly reg_covar·I and the components "
                      f"cannot separate the data. Rescale the features (e.g. StandardScaler) or lower reg_covar.",
                      UserWarning, stacklevel=stacklevel)


def warn_regularized(n_fixed, stacklevel=5):
    """Warn where covariances of the EM iterations needed more regularization than reg_covar.

    ``stacklevel`` 5 points at the caller of an in-memory mixture's ``fit`` (through ``_fit`` and
    the ``interruptible`` wrapper); the Dask estimator's ``fit`` passes its own."""
    if n_fixed:
        warnings.warn(f"{n_fixed} covariance estimate(s) of the EM iterations were singular (a component collapsed "
                      f"on duplicate points, or a constant feature) and were regularized with a multiple of the "
                      f"identity. Increase reg_covar or decrease n_components.", RuntimeWarning, stacklevel=stacklevel)
