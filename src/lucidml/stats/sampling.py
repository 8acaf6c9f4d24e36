"""Gaussian samples from uniform ones: the Box–Muller transform, then a linear map to any mean and covariance."""

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from ._checks import check_mean_cov

__all__ = ["box_muller", "sample_multivariate_normal"]


def box_muller(size, *, random_state=None):
    """Independent standard normal numbers made from uniform ones by the Box–Muller transform.

    For independent U₁, U₂ uniform on (0, 1],

        Z₁ = sqrt(−2 ln U₁) cos(2π U₂),   Z₂ = sqrt(−2 ln U₁) sin(2π U₂)

    are independent N(0, 1): (Z₁, Z₂) is the point at angle 2πU₂ and radius R with
    R² = −2 ln U₁ exponential with mean 2, which is the law of the radius of a standard
    bivariate normal (seeds 002 §7.3.3, where the notes' script keeps only the cosine half).
    Both halves are used here, so ⌈N/2⌉ pairs of uniforms give N numbers. U₁ is drawn on (0, 1]
    (1 − a draw on [0, 1)) so that ln U₁ is finite.

    Parameters
    ----------
    size : int or tuple of int
        Shape of the output.
    random_state : int, RandomState instance or None, default=None
        The source of the uniform numbers.

    Returns
    -------
    ndarray of the given shape

    Examples
    --------
    >>> from lucidml.stats import box_muller
    >>> z = box_muller(100_000, random_state=0)
    >>> round(float(z.mean()), 2), round(float(z.std()), 2)
    (0.0, 1.0)
    """
    shape = (size,) if isinstance(size, Integral) else tuple(size)
    if not all(isinstance(s, Integral) and s >= 0 for s in shape):
        raise ValueError(f"size must be a non-negative integer or a tuple of them; got {size!r}.")
    rng = check_random_state(random_state)
    total = int(np.prod(shape, dtype=np.int64))
    n_pairs = (total + 1) // 2
    radius = np.sqrt(-2.0 * np.log(1.0 - rng.uniform(size=n_pairs)))
    angle = 2.0 * np.pi * rng.uniform(size=n_pairs)
    z = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)])
    return z[:total].reshape(shape)


def sample_multivariate_normal(mean, cov, n_samples, *, method="cholesky", random_state=None):
    """Draws from N(μ, Σ): x = μ + A z with z standard normal (:func:`box_muller`) and AAᵀ = Σ.

    Then E[x] = μ and Cov[x] = A Cov[z] Aᵀ = Σ (the "denormalize" step of seeds 002 §7.3.3).
    A is the Cholesky factor L (``method="cholesky"``, Σ positive definite) or
    V diag(sqrt λ) from the eigendecomposition Σ = V diag(λ) Vᵀ (``method="eigen"``, as the
    notes do; it also accepts a singular Σ, whose draws then lie in the range of Σ). The notes'
    example matrices [5 −1; −3 3] and [4 1; 3 3] are not symmetric, so they are not covariance
    matrices; this function refuses them.

    Parameters
    ----------
    mean : array-like of shape (d,)
    cov : array-like of shape (d, d)
    n_samples : int
    method : {"cholesky", "eigen"}, default="cholesky"
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    ndarray of shape (n_samples, d)

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.stats import sample_multivariate_normal
    >>> X = sample_multivariate_normal([2.0, -1.0], [[4.0, 1.0], [1.0, 3.0]], 200_000, random_state=0)
    >>> np.cov(X.T).round(1).tolist()
    [[4.0, 1.0], [1.0, 3.0]]
    """
    mean, cov = check_mean_cov(mean, cov)
    if not isinstance(n_samples, Integral) or isinstance(n_samples, bool) or n_samples < 0:
        raise ValueError(f"n_samples must be a non-negative integer; got {n_samples!r}.")
    if method == "cholesky":
        try:
            factor = np.linalg.cholesky(cov)
        except np.linalg.LinAlgError:
            raise ValueError("cov is not positive definite; use method='eigen' for a singular covariance.") from None
    elif method == "eigen":
        eigenvalues, vectors = np.linalg.eigh(cov)
        factor = vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))  # round-off can leave tiny negative λ
    else:
        raise ValueError(f"method must be 'cholesky' or 'eigen'; got {method!r}.")
    z = box_muller((int(n_samples), mean.size), random_state=random_state)
    return mean + z @ factor.T
