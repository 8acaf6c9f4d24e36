"""Choosing the number of clusters: the elbow, the silhouette or the gap statistic, one curve each."""

import numpy as np
from sklearn.utils import Bunch, check_array

from ..metrics.elbow import elbow
from ..metrics.gap import _check_k_values, gap_statistic
from ..metrics.silhouette import silhouette_score

__all__ = ["choose_n_clusters"]

_METHODS = ("gap", "silhouette", "elbow")


def choose_n_clusters(X, k_range, method="gap", random_state=None, *, clusterer=None, **clusterer_params):
    """Score every number of clusters k with one criterion and pick the best k.

    The three ways of seeds 002 §8.5.2 (and the gap statistic that formalizes the elbow):

    - ``"elbow"``: the SSE W_k of each clustering (:func:`lucidml.metrics.elbow`). SSE always
      falls with k, so the elbow is located automatically as the point of the curve farthest
      below the chord from its first to its last point, after scaling both k and SSE to [0, 1]
      (the "knee" of Satopää et al. 2011). Needs at least 3 values of k.
    - ``"silhouette"``: the mean silhouette width of each clustering
      (:func:`lucidml.metrics.silhouette_score`); the largest wins (Figure 8.44). Every k ≥ 2.
    - ``"gap"`` (the default): :func:`lucidml.metrics.gap_statistic` and its 1-standard-error
      rule (Tibshirani et al. 2001), the one criterion of the three that can also answer k = 1;
      the result also carries ``standard_error``. Extra keywords ``n_refs`` / ``reference`` go there.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    k_range : iterable of int
        The candidate numbers of clusters (sorted and deduplicated here).
    method : {"gap", "silhouette", "elbow"}, default="gap"
    random_state : int, RandomState instance or None, default=None
        Seeds the clusterer (and the gap's reference sets).
    clusterer : callable or None, default=None
        A clusterer class (or factory) taking ``n_clusters`` and exposing ``labels_``; None uses
        :class:`lucidml.cluster.KMeans`.
    **clusterer_params
        Further parameters of the clusterer.

    Returns
    -------
    Bunch
        ``k_values`` and ``scores`` (arrays to plot against each other: SSE, mean silhouette or
        gap), ``best_k``, ``method``, and ``standard_error`` (the gap's s_k; None for the others).

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.cluster import choose_n_clusters
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.3, size=(40, 2)) for c in ([0, 0], [4, 0], [2, 4], [6, 4])])
    >>> result = choose_n_clusters(X, range(2, 8), method="silhouette", random_state=0)
    >>> result.best_k, result.k_values.tolist()
    (4, [2, 3, 4, 5, 6, 7])
    >>> choose_n_clusters(X, range(1, 8), random_state=0).best_k  # the gap statistic
    4
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}.")
    X = check_array(X, dtype=np.float64)
    k_values = _check_k_values(k_range, X.shape[0])
    if method == "gap":
        result = gap_statistic(X, k_values, random_state=random_state, clusterer=clusterer, **clusterer_params)
        return Bunch(k_values=k_values, scores=result.gap, best_k=result.best_k, method=method,
                     standard_error=result.standard_error)
    if method == "elbow":
        if len(k_values) < 3:
            raise ValueError(f"The elbow needs at least 3 values of k to find a bend; got {len(k_values)}.")
        scores = elbow(X, k_values, estimator=clusterer, random_state=random_state, **clusterer_params)
        best = _knee(k_values, scores)
    else:
        if k_values[0] < 2 or k_values[-1] >= X.shape[0]:
            raise ValueError(f"The silhouette needs 2 <= k < n_samples = {X.shape[0]}; got k from {k_values[0]} "
                             f"to {k_values[-1]}.")
        scores = _silhouettes(X, k_values, clusterer, random_state, clusterer_params)
        best = int(np.argmax(scores))
    return Bunch(k_values=k_values, scores=scores, best_k=int(k_values[best]), method=method, standard_error=None)


def _knee(k_values, sse):
    """Index of the point farthest below the chord joining the first and last points, both axes in [0, 1]."""
    k = (k_values - k_values[0]) / (k_values[-1] - k_values[0])
    spread = sse[0] - sse[-1]
    if not spread > 0:  # a flat curve has no elbow: one cluster explains as much as many
        return 0
    drop = (sse[0] - sse) / spread
    return int(np.argmax(drop - k))  # height above the chord y = k of the rising, normalized curve


def _silhouettes(X, k_values, clusterer, random_state, params):
    if clusterer is None:
        from .kmeans import KMeans as clusterer
    if random_state is not None:
        params = {**params, "random_state": random_state}
    scores = []
    for k in k_values:
        model = clusterer(n_clusters=int(k), **params).fit(X)
        if not hasattr(model, "labels_"):
            raise TypeError(f"The silhouette needs the clusterer's labels_; {type(model).__name__} has none.")
        labels = model.labels_
        # A clusterer may return fewer distinct clusters than asked (duplicates); silhouette then needs two.
        scores.append(silhouette_score(X, labels) if len(np.unique(labels)) > 1 else -1.0)
    return np.asarray(scores, dtype=np.float64)
