"""Sums of squares of a partition: SSE (within), between and total."""

import numpy as np
import scipy.sparse
from sklearn.utils import check_array, check_X_y

from ..utils import check_sample_weight
from ..utils.validation import check_overflow


def sse(X, labels, centers=None, *, sample_weight=None):
    """Sum of squared errors of a partition: SSE = Σ_k Σ_{x ∈ C_k} w_x ‖x − c_k‖².

    With ``centers=None`` c_k is the (weighted) mean μ_k of cluster k, and SSE is the within
    sum of squares WSS of (8.9)–(8.10); given centres, it is k-means' inertia for those centres
    (seeds: 002 §8.5.2, 000 §12).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    labels : array-like of shape (n_samples,)
        Cluster labels. With ``centers`` given they index its rows: integers 0 … K − 1.
    centers : array-like of shape (K, n_features) or None, default=None
        The centre of each cluster; None uses the cluster means.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Weight w_x of every sample; None weighs all by 1.

    Returns
    -------
    float

    Examples
    --------
    >>> from lucidml.metrics import sse
    >>> sse([[1.0], [2.0], [4.0], [5.0]], [0, 0, 1, 1])
    1.0
    >>> sse([[1.0], [2.0], [4.0], [5.0]], [0, 0, 1, 1], centers=[[1.0], [5.0]])
    2.0
    """
    X, labels = check_X_y(X, labels, dtype=np.float64)
    weight = check_sample_weight(sample_weight, X.shape[0])
    if centers is None:
        _, codes = np.unique(labels, return_inverse=True)
        centers = _cluster_means(X, codes, weight)
    else:
        centers = check_array(centers, dtype=np.float64)
        if centers.shape[1] != X.shape[1]:
            raise ValueError(f"centers has {centers.shape[1]} features but X has {X.shape[1]}.")
        codes = labels
        if not (np.issubdtype(codes.dtype, np.integer) and codes.min() >= 0 and codes.max() < centers.shape[0]):
            raise ValueError(f"With centers given, labels must be integers 0 … {centers.shape[0] - 1}.")
    with np.errstate(over="ignore", invalid="ignore"):
        return check_overflow(_weighted_sq_sum(X - centers[codes], weight), X, "The sum of squares")


def wss_bss_tss(X, labels):
    """Within, between and total sums of squares of a partition.

        WSS = Σ_k Σ_{x ∈ C_k} ‖x − μ_k‖²      (cohesion, = SSE)
        BSS = Σ_k |C_k| ‖μ − μ_k‖²            (separation)
        TSS = Σ_x ‖x − μ‖² = WSS + BSS

    with μ_k the mean of cluster k and μ the mean of all data (seeds: 002 §8.5.2,
    (8.10)–(8.11)). TSS does not depend on the partition, so splitting clusters moves
    sum of squares from WSS to BSS. All three are computed directly, each from its definition.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    labels : array-like of shape (n_samples,)

    Returns
    -------
    (wss, bss, tss) : tuple of float

    Examples
    --------
    The notes' example, the points 1, 2, 4, 5 as one cluster and as {1, 2} ∪ {4, 5}:

    >>> from lucidml.metrics import wss_bss_tss
    >>> X = [[1.0], [2.0], [4.0], [5.0]]
    >>> wss_bss_tss(X, [0, 0, 0, 0])
    (10.0, 0.0, 10.0)
    >>> wss_bss_tss(X, [0, 0, 1, 1])
    (1.0, 9.0, 10.0)
    """
    X, labels = check_X_y(X, labels, dtype=np.float64)
    _, codes = np.unique(labels, return_inverse=True)
    with np.errstate(over="ignore", invalid="ignore"):
        means = _cluster_means(X, codes)
        mean = X.mean(axis=0)
        wss = _weighted_sq_sum(X - means[codes], None)
        bss = _weighted_sq_sum(means - mean, np.bincount(codes).astype(np.float64))
        tss = _weighted_sq_sum(X - mean, None)
    return check_overflow((wss, bss, tss), X, "The sums of squares")


def _cluster_means(X, codes, weight=None):
    """μ_k = Σ_{x ∈ C_k} w_x x / Σ w_x, by one sparse (K × n) indicator product: O(n·d) time."""
    n = X.shape[0]
    weight = np.ones(n) if weight is None else weight
    indicator = scipy.sparse.csr_array((weight, (codes, np.arange(n))), shape=(codes.max() + 1, n))
    totals = np.asarray(indicator.sum(axis=1)).ravel()
    with np.errstate(invalid="ignore", divide="ignore"):
        # A cluster whose weights are all 0 has no mean; its points add 0 to any weighted sum.
        return np.nan_to_num((indicator @ X) / totals[:, None])


def _weighted_sq_sum(residual, weight):
    sq = np.einsum("ij,ij->i", residual, residual)
    return float(sq.sum() if weight is None else weight @ sq)
