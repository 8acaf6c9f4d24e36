"""Correlation between the proximity matrix and the cluster incidence matrix."""

import warnings

import numpy as np

from ._distance_sums import check_distance_input, map_distance_blocks


def proximity_incidence_correlation(X, labels, *, metric="euclidean", n_jobs=None, **kwds):
    """Pearson correlation between pairwise distance and same-cluster incidence, over all pairs.

    With P the proximity (distance) matrix and I the incidence matrix, I_ij = 1 when i and j
    share a cluster and 0 otherwise, both symmetric, the score is the correlation of the
    M = N(N−1)/2 pairs (P_ij, I_ij), i < j (seeds: 002 §8.5.1, (8.7)):

        ρ = cov(P, I) / (σ_P σ_I),   cov = Σ P_ij I_ij / M − P̄ Ī,   σ_I² = Ī (1 − Ī)

    With distances a good clustering puts small distances where I = 1, so ρ is close to −1
    (the notes quote −0.924 for crisp k-means clusters and −0.581 for random data). The
    measure suits compact, globular clusters; it is weak for density- or contiguity-based ones.

    Only four numbers are needed: Σd, Σd², Σ_{same cluster} d and the number of same-cluster
    pairs Σ_k |C_k|(|C_k| − 1)/2. The first three are accumulated block by block of rows
    (each pair appears twice in full rows), so memory stays bounded; time is O(N²·d).

    Parameters
    ----------
    X : array-like or sparse CSR matrix of shape (n_samples, n_features), or (n_samples, n_samples)
        The data, or a distance matrix with a zero diagonal when ``metric="precomputed"``.
    labels : array-like of shape (n_samples,)
        Cluster labels; between 2 and n_samples − 1 distinct values (otherwise I is constant).
    metric : str or callable, default="euclidean"
        Any metric of :func:`sklearn.metrics.pairwise_distances`, or ``"precomputed"``.
    n_jobs : int or None, default=None
        Threads computing blocks of rows in parallel (joblib's convention).
    **kwds
        Passed to the distance function for metrics other than Euclidean.

    Returns
    -------
    float
        ρ in [−1, 1]; NaN (with a RuntimeWarning) when all pairwise distances are equal.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.metrics import proximity_incidence_correlation
    >>> X = np.array([[0.0], [1.0], [10.0], [11.0]])
    >>> round(proximity_incidence_correlation(X, [0, 0, 1, 1]), 3)
    -0.991
    """
    X, codes, sizes = check_distance_input(X, labels, metric)

    def reduce(rows, sums, sq_sums):
        own = codes[rows]
        return sums.sum(), sq_sums.sum(), sums[np.arange(own.size), own].sum()

    totals = np.sum(map_distance_blocks(reduce, X, codes, sizes.size, metric, n_jobs, **kwds), axis=0)
    # Full rows count every pair twice.
    sum_d, sum_d2, sum_d_same = totals / 2.0
    n = codes.size
    n_pairs = n * (n - 1) / 2.0
    same = np.sum(sizes * (sizes - 1.0)) / 2.0

    mean_d, mean_i = sum_d / n_pairs, same / n_pairs
    cov = sum_d_same / n_pairs - mean_d * mean_i
    var_d = max(sum_d2 / n_pairs - mean_d**2, 0.0)
    var_i = mean_i * (1.0 - mean_i)
    if var_d <= (4 * np.finfo(np.float64).eps) * (sum_d2 / n_pairs):
        warnings.warn("All pairwise distances are equal; the correlation is undefined.", RuntimeWarning)
        return float("nan")
    return float(np.clip(cov / np.sqrt(var_d * var_i), -1.0, 1.0))
