"""The Hopkins statistic: is there any cluster structure to find?"""

from numbers import Integral, Real

import numpy as np
from scipy.spatial import cKDTree
from sklearn.utils import check_array, check_random_state

from ..utils.numerics import units_exponent
from ..utils.validation import largest_magnitude

__all__ = ["hopkins_statistic"]


def hopkins_statistic(X, sample_size=None, random_state=None, *, power="dimension"):
    """Hopkins statistic H of clustering tendency: near 1 clustered, about 0.5 random, near 0 regular.

    Before clustering, ask whether the data have non-random structure at all (the clustering
    tendency of seeds 002 §8.5; the notes name the question but give no test, so this follows
    Hopkins & Skellam 1954 in the form of Lawson & Jurs 1990). Draw m probes:

        uᵢ = distance from a point drawn uniformly in the bounding box of X to its nearest sample
        wᵢ = distance from a sample drawn from X (without replacement) to its nearest other sample

        H = Σ uᵢᵖ / (Σ uᵢᵖ + Σ wᵢᵖ)

    If X is uniform over its box the two kinds of distance have the same law and H ≈ 0.5; in
    clustered data samples sit close to each other while uniform probes fall in the empty space
    between clusters, so Σu ≫ Σw and H → 1; data spread more evenly than random (a lattice)
    give H < 0.5. With the exponent p = d (the number of features, the default), the volumes
    of the d-balls are compared and, for uniform data, H follows approximately a Beta(m, m)
    law: mean 0.5, standard deviation 1/(2 sqrt(2m + 1)). ``power=1`` compares plain
    distances (as several packages do); in many dimensions its null value drifts from 0.5.

    Nearest neighbours come from a k-d tree (``scipy.spatial.cKDTree``): O((n + m) log n).
    H does not change when X is translated or scaled by a positive factor; it is not invariant
    under rotation (the bounding box is aligned with the axes).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        At least 3 samples.
    sample_size : int or None, default=None
        m, the number of points of each kind, 1 ≤ m < n_samples. None uses max(1, n/10)
        (the customary 10%, so that removing the sampled points leaves the data's density
        nearly unchanged).
    random_state : int, RandomState instance or None, default=None
        Draws the uniform probes and the sampled data points.
    power : "dimension" or float, default="dimension"
        The exponent p > 0.

    Returns
    -------
    float
        H in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.metrics import hopkins_statistic
    >>> rng = np.random.default_rng(0)
    >>> blobs = np.vstack([rng.normal(c, 0.05, size=(100, 2)) for c in ([0, 0], [3, 3], [0, 3])])
    >>> hopkins_statistic(blobs, random_state=0) > 0.95
    True
    >>> uniform = rng.uniform(size=(300, 2))
    >>> 0.3 < hopkins_statistic(uniform, random_state=0) < 0.7
    True
    """
    X = check_array(X, dtype=np.float64)
    n_samples, n_features = X.shape
    if n_samples < 3:
        raise ValueError(f"The Hopkins statistic needs at least 3 samples; got {n_samples}.")
    m = _check_sample_size(sample_size, n_samples)
    p = _check_power(power, n_features)
    rng = check_random_state(random_state)
    # H is scale-free: X in units of a power of two near its largest |value| (exact), whose squared
    # distances in the tree neither overflow (from 1e154: H was NaN) nor underflow (below 1e-162:
    # "all samples identical").
    X = np.ldexp(X, -units_exponent(largest_magnitude(X)))

    low, high = X.min(axis=0), X.max(axis=0)
    probes = low + rng.uniform(size=(m, n_features)) * (high - low)
    sampled = rng.choice(n_samples, size=m, replace=False)

    tree = cKDTree(X)
    u = tree.query(probes, k=1)[0]
    w = tree.query(X[sampled], k=2)[0][:, 1]  # the first neighbour of a sample is itself
    scale = max(u.max(), w.max())
    if scale == 0.0:
        raise ValueError("All samples are identical: the Hopkins statistic is undefined.")
    # Divide by the largest distance before raising to the power d, so u^d cannot underflow or overflow.
    u_sum = np.sum((u / scale) ** p)
    w_sum = np.sum((w / scale) ** p)
    return float(u_sum / (u_sum + w_sum))


def _check_sample_size(sample_size, n_samples):
    if sample_size is None:
        return max(1, n_samples // 10)
    if not isinstance(sample_size, Integral) or isinstance(sample_size, bool) or not 1 <= sample_size < n_samples:
        raise ValueError(f"sample_size must be an integer in [1, n_samples) = [1, {n_samples}); got {sample_size!r}.")
    return int(sample_size)


def _check_power(power, n_features):
    if isinstance(power, str):
        if power != "dimension":
            raise ValueError(f"power must be 'dimension' or a positive number; got {power!r}.")
        return float(n_features)
    if not isinstance(power, Real) or isinstance(power, bool) or not (0 < power < np.inf):
        raise ValueError(f"power must be 'dimension' or a finite number > 0; got {power!r}.")
    return float(power)
