"""Maximum-likelihood Gaussian fits with full, diagonal or spherical covariance."""

from typing import NamedTuple

import numpy as np
from sklearn.utils import check_array

from ..utils.validation import check_overflow

__all__ = ["GaussianFit", "gaussian_mle"]

_TYPES = ("full", "diag", "spherical")


class GaussianFit(NamedTuple):
    """The fitted parameters: ``mean`` (d,) and ``covariance`` in the shape of its covariance type."""

    mean: np.ndarray
    covariance: np.ndarray | float


def gaussian_mle(X, covariance_type="full"):
    """Maximum-likelihood mean and covariance of a Gaussian fitted to the rows of X.

    The log-likelihood Σᵢ log N(xᵢ | μ, Σ) is maximized by the sample mean μ̂ = (1/n) Σ xᵢ for
    every covariance model; with the centred data D = X − μ̂ (seeds 000 §4.3, §14.2):

    - ``"full"``: Σ̂ = (1/n) DᵀD, an unrestricted d × d matrix;
    - ``"diag"``: Σ = diag(σ₁², …, σ_d²), the features independent; the likelihood splits into d
      one-dimensional ones and σ̂ⱼ² = (1/n) Σᵢ Dᵢⱼ², the diagonal of the full estimate (the
      model of Gaussian naive Bayes);
    - ``"spherical"``: Σ = σ² I; setting the derivative of −(nd/2) log σ² − ‖D‖²/(2σ²) to 0
      gives σ̂² = ‖D‖²_F / (n d), the mean of the diagonal variances.

    The divisor is n (the MLE), not n − 1. These are the covariances ``covariances_`` of
    ``sklearn.mixture.GaussianMixture(1, covariance_type=..., reg_covar=0)`` in the same shapes;
    plug them into :func:`lucidml.stats.mvn_logpdf` (as ``np.diag(v)`` or ``s * np.eye(d)``).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        At least one sample, finite.
    covariance_type : {"full", "diag", "spherical"}, default="full"

    Returns
    -------
    GaussianFit
        ``mean, covariance``; covariance of shape (d, d) for "full", (d,) for "diag" and a float
        for "spherical".

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.stats import gaussian_mle
    >>> X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 4.0], [2.0, 4.0]])
    >>> mean, variances = gaussian_mle(X, "diag")
    >>> mean.tolist(), variances.tolist()
    ([1.0, 2.0], [1.0, 4.0])
    >>> gaussian_mle(X, "spherical").covariance
    2.5
    """
    if covariance_type not in _TYPES:
        raise ValueError(f"covariance_type must be one of {_TYPES}; got {covariance_type!r}.")
    X = check_array(X, dtype=np.float64)
    n_samples = X.shape[0]
    with np.errstate(over="ignore", invalid="ignore"):
        mean = X.mean(axis=0)
        centred = X - mean
        if covariance_type == "full":
            covariance = centred.T @ centred / n_samples
        else:
            covariance = np.einsum("ij,ij->j", centred, centred) / n_samples
            if covariance_type == "spherical":
                covariance = float(covariance.mean())
    check_overflow(mean, X, "The mean")
    return GaussianFit(mean, check_overflow(covariance, X, "The covariance"))
