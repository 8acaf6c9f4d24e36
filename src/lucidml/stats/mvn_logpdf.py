"""Log-density of a multivariate Gaussian, through a triangular factor (never an inverse or a determinant)."""

import numpy as np
from scipy.linalg import lapack

from ._checks import check_mean_cov

__all__ = ["mvn_logpdf"]

_LOG_2PI = np.log(2.0 * np.pi)


def mvn_logpdf(X, mean, cov, *, allow_singular=False):
    """log N(x | μ, Σ) = −½ ( d log 2π + log |Σ| + (x − μ)ᵀ Σ⁻¹ (x − μ) ) for every row of X.

    Positive definite Σ (seeds 000 §4.3, §14.2): with the Cholesky factor Σ = LLᵀ and
    U = L⁻ᵀ, the Mahalanobis term is ‖(x − μ) U‖² and log |Σ| = 2 Σ log Lⱼⱼ, so neither Σ⁻¹ nor
    |Σ| (which under- or overflows in many dimensions) is formed. This is the engine of
    :class:`lucidml.mixture.GaussianMixture` (``lucidml.mixture._gaussian_model``), called with
    one component; Σ counts as singular when a Cholesky pivot Lⱼⱼ has Lⱼⱼ² ≤ d·ε·Σⱼⱼ
    (``lucidml.utils.linalg.pivots_above_roundoff``).

    Singular Σ, ``allow_singular=True``: the density lives on the subspace x − μ ∈ range(Σ).
    With the eigendecomposition Σ = V diag(λ) Vᵀ, eigenvalues λ ≤ 10⁶·ε·max λ count as 0 (the
    cutoff of ``scipy.linalg.pinvh``); with the r others, log |Σ| becomes the pseudo-determinant
    Σ log λⱼ, the Mahalanobis term uses the pseudo-inverse, d becomes r, and a point whose
    distance from that subspace exceeds the smallest standard deviation kept, sqrt(cutoff),
    gets −∞. This matches ``scipy.stats.multivariate_normal.logpdf(..., allow_singular=True)``.

    Far from μ the result is a large negative number, not an overflow: only the squared
    distance itself can exceed the float range (beyond about 10¹⁵⁴ standard deviations), and
    then the answer is −∞.

    Parameters
    ----------
    X : array-like of shape (n_samples, d) or (d,)
    mean : array-like of shape (d,)
    cov : array-like of shape (d, d)
        Symmetric positive (semi)definite.
    allow_singular : bool, default=False
        False: a singular Σ is an error. True: use the pseudo-inverse route above.

    Returns
    -------
    ndarray of shape (n_samples,), or float for a single point

    Raises
    ------
    ValueError
        If Σ is singular and ``allow_singular`` is False, or the inputs are malformed.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.stats import mvn_logpdf
    >>> float(np.round(mvn_logpdf([0.0, 0.0], [0.0, 0.0], np.eye(2)), 6))  # −log 2π
    -1.837877
    >>> float(np.round(mvn_logpdf([1.0, 1.0], [0.0, 0.0], [[1.0, 1.0], [1.0, 1.0]], allow_singular=True), 6))
    -1.765512
    """
    mean, cov = check_mean_cov(mean, cov)
    X = np.asarray(X, dtype=np.float64)
    single = X.ndim == 1
    X = np.atleast_2d(X)
    if X.ndim != 2 or X.shape[1] != mean.size:
        raise ValueError(f"X must have shape (n_samples, {mean.size}) or ({mean.size},); got {np.shape(X)}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must not contain NaN or infinity.")
    out = _positive_definite(X, mean, cov)
    if out is None:
        if not allow_singular:
            raise ValueError("cov is singular (not positive definite). Pass allow_singular=True for the degenerate "
                             "Gaussian on the range of cov, or regularize cov (add a small multiple of the identity).")
        out = _singular(X, mean, cov)
    return float(out[0]) if single else out


def _positive_definite(X, mean, cov):
    """The mixture's full-covariance log-density with one component; None if cov is not positive definite."""
    # Imported here, not at the top: lucidml.stats should not load the mixture package until it is used.
    from ..mixture._gaussian_model import Gaussians, lower_cholesky, weighted_log_prob

    lower = lower_cholesky(cov)
    if lower is None:
        return None
    upper = lapack.dtrtri(lower, lower=1)[0].T  # U = L⁻ᵀ, so Σ⁻¹ = UUᵀ
    params = Gaussians(np.ones(1), mean[None, :], cov, upper)
    return weighted_log_prob(X, params, "tied")[:, 0]


def _singular(X, mean, cov):
    eigenvalues, vectors = np.linalg.eigh(cov)
    cutoff = 1e6 * np.finfo(np.float64).eps * max(np.abs(eigenvalues).max(), np.finfo(np.float64).tiny)
    kept = eigenvalues > cutoff
    centred = X - mean
    scaled = centred @ (vectors[:, kept] / np.sqrt(eigenvalues[kept]))
    mahalanobis = np.einsum("ij,ij->i", scaled, scaled)
    log_pdet = np.log(eigenvalues[kept]).sum()
    out = -0.5 * (kept.sum() * _LOG_2PI + log_pdet + mahalanobis)
    off_subspace = np.linalg.norm(centred @ vectors[:, ~kept], axis=1)
    out[off_subspace > np.sqrt(cutoff)] = -np.inf
    return out
