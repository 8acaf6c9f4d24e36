"""The gap statistic (Tibshirani, Walther & Hastie 2001): how many clusters, compared with no structure."""

from numbers import Integral
from typing import NamedTuple

import numpy as np
from sklearn.utils import check_array, check_random_state

from ..utils._results import ExtendedTuple
from .elbow import elbow

__all__ = ["GapResult", "gap_statistic"]

_REFERENCES = ("uniform", "pca")


class _GapCurves(NamedTuple):
    gap: np.ndarray
    standard_error: np.ndarray


class GapResult(ExtendedTuple, _GapCurves):
    """What :func:`gap_statistic` returns: it unpacks as ``gap, standard_error``.

    Attributes
    ----------
    gap : ndarray of shape (n_k,)
        Gap(k) for each k of ``k_values``.
    standard_error : ndarray of shape (n_k,)
        s_k = sd_k sqrt(1 + 1/B).
    k_values : ndarray of shape (n_k,)
        The numbers of clusters tried, sorted.
    log_w, expected_log_w : ndarray of shape (n_k,)
        log W_k of X and its mean E*[log W_k] over the reference sets.
    best_k : int
        The k of the 1-standard-error rule.
    """


def gap_statistic(X, k_range, n_refs=10, random_state=None, *, reference="uniform", clusterer=None,
                  **clusterer_params):
    """Gap(k) = E*[log W_k] − log W_k with its standard error, and the k of the 1-standard-error rule.

    W_k is the within-cluster dispersion of the clustering into k clusters, the pooled sum of
    squared distances of the points to their cluster's centroid (the SSE of seeds 002 §8.5.2;
    Tibshirani's Σ_r D_r / (2 n_r)). log W_k falls as k grows, on any data; the gap compares
    that fall with the fall on reference data that have no clusters:

    1. Draw B reference sets of n points uniformly over the bounding box of X
       (``reference="uniform"``), or over the box aligned with X's principal axes
       (``reference="pca"``: centre X, rotate it by the right singular vectors V, draw uniformly
       over the ranges of the rotated columns, rotate back by Vᵀ and add the mean back), which
       follows the shape of elongated data.
    2. Cluster each one for every k; E*[log W_k] is the mean of the B values log W*_kb,
       sd_k their standard deviation (divisor B) and s_k = sd_k sqrt(1 + 1/B) the error of the mean.
    3. Choose the smallest k with Gap(k) ≥ Gap(k + 1) − s_{k+1}, k + 1 being the next value in
       ``k_range``; if no k passes, the k with the largest gap.

    W_k comes from :func:`lucidml.metrics.elbow` (the clusterer's ``inertia_``, or the SSE of its
    labels), so the same clusterer scores X and the references. Costs (B + 1) · len(k_range) fits.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    k_range : iterable of int
        Numbers of clusters to try, each in [1, n_samples]; sorted and deduplicated here. Include
        k = 1 to be able to conclude that there are no clusters.
    n_refs : int, default=10
        B ≥ 2, the number of reference sets.
    random_state : int, RandomState instance or None, default=None
        Draws the reference sets and seeds the clusterer.
    reference : {"uniform", "pca"}, default="uniform"
    clusterer : callable or None, default=None
        A clusterer class (or factory) taking ``n_clusters``; None uses
        :class:`lucidml.cluster.KMeans`.
    **clusterer_params
        Further parameters of the clusterer (``n_init``, ...).

    Returns
    -------
    GapResult
        Unpacks as ``(gap, standard_error)``, arrays in the order of the sorted k; also carries
        ``k_values``, ``log_w`` (log W_k of X), ``expected_log_w`` (E*[log W_k]) and ``best_k``.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.metrics import gap_statistic
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.3, size=(40, 2)) for c in ([0, 0], [4, 0], [2, 4])])
    >>> gap, standard_error = gap_statistic(X, range(1, 6), random_state=0)
    >>> int(np.argmax(gap)) + 1, gap_statistic(X, range(1, 6), random_state=0).best_k
    (3, 3)
    """
    X = check_array(X, dtype=np.float64)
    k_values = _check_k_values(k_range, X.shape[0])
    if not isinstance(n_refs, Integral) or isinstance(n_refs, bool) or n_refs < 2:
        raise ValueError(f"n_refs must be an integer >= 2; got {n_refs!r}.")
    if reference not in _REFERENCES:
        raise ValueError(f"reference must be one of {_REFERENCES}; got {reference!r}.")
    rng = check_random_state(random_state)

    def log_dispersion(data):
        dispersion = elbow(data, k_values, estimator=clusterer, random_state=rng, **clusterer_params)
        if np.any(dispersion <= 0):
            k = k_values[int(np.argmax(dispersion <= 0))]
            raise ValueError(f"The within-cluster dispersion is 0 at k={k} (as many clusters as distinct points); "
                             "use smaller values of k.")
        return np.log(dispersion)

    log_w = log_dispersion(X)
    draw = _reference_sampler(X, reference)
    reference_log_w = np.array([log_dispersion(draw(rng)) for _ in range(n_refs)])
    expected = reference_log_w.mean(axis=0)
    error = reference_log_w.std(axis=0) * np.sqrt(1.0 + 1.0 / n_refs)
    gap = expected - log_w
    return GapResult(gap, error, k_values=k_values, log_w=log_w, expected_log_w=expected,
                     best_k=int(k_values[_one_standard_error_choice(gap, error)]))


def _one_standard_error_choice(gap, error):
    """Index of the smallest k with Gap(k) ≥ Gap(next k) − s(next k); the largest gap if none."""
    passes = gap[:-1] >= gap[1:] - error[1:]
    return int(np.argmax(passes)) if passes.any() else int(np.argmax(gap))


def _reference_sampler(X, reference):
    """A function rng ↦ n points drawn uniformly over X's bounding box (rotated to the principal axes for "pca")."""
    n_samples, n_features = X.shape
    if reference == "uniform":
        low, high = X.min(axis=0), X.max(axis=0)
        return lambda rng: low + rng.uniform(size=(n_samples, n_features)) * (high - low)
    mean = X.mean(axis=0)
    axes = np.linalg.svd(X - mean, full_matrices=False)[2].T  # columns: principal directions V
    rotated = (X - mean) @ axes
    low, high = rotated.min(axis=0), rotated.max(axis=0)
    return lambda rng: (low + rng.uniform(size=(n_samples, len(low))) * (high - low)) @ axes.T + mean


def _check_k_values(k_values, n_samples):
    k_values = list(k_values)
    if not k_values:
        raise ValueError("k_range is empty.")
    for k in k_values:
        if not isinstance(k, Integral) or isinstance(k, bool) or not 1 <= k <= n_samples:
            raise ValueError(f"Every k must be an integer between 1 and n_samples = {n_samples}; got {k!r}.")
    return np.unique(np.asarray(k_values, dtype=np.int64))
