"""The elbow method: SSE against the number of clusters."""

from numbers import Integral

import numpy as np
from sklearn.utils import check_array

from .sum_of_squares import sse


def elbow(X, k_values, *, estimator=None, random_state=None, **kmeans_params):
    """SSE of the clustering found for each number of clusters k, to look for the "elbow".

    SSE always falls as k grows (to 0 at k = N); the k after which it stops falling steeply is
    the usual pick (seeds: 002 §8.5.2, Figure 8.38). For every k the estimator is built as
    ``estimator(n_clusters=k, random_state=random_state, **kmeans_params)``, fitted on X, and
    scored by its ``inertia_`` — or, for a clusterer without one, by :func:`sse` of its ``labels_``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    k_values : iterable of int
        Numbers of clusters to try, each ≥ 1.
    estimator : callable or None, default=None
        A clusterer class (or factory) taking ``n_clusters``; None uses
        :class:`lucidml.cluster.KMeans`. Pass e.g. ``sklearn.cluster.KMeans`` to compare.
    random_state : int, RandomState instance or None, default=None
        Passed to the estimator when not None.
    **kmeans_params
        Further parameters of the estimator (``n_init``, ``init``, ``max_iter`` …).

    Returns
    -------
    ndarray of shape (len(k_values),)
        SSE for each k, in the order given.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.cluster import KMeans
    >>> from lucidml.metrics import elbow
    >>> X = np.array([[0.0], [1.0], [10.0], [11.0], [20.0], [21.0]])
    >>> elbow(X, [1, 2, 3], estimator=KMeans, random_state=0, n_init=10).tolist()
    [401.5, 101.5, 1.5]
    """
    X = check_array(X, dtype=np.float64)
    k_values = list(k_values)
    if not k_values:
        raise ValueError("k_values is empty.")
    for k in k_values:
        if not isinstance(k, Integral) or not 1 <= k <= X.shape[0]:
            raise ValueError(f"Every k must be an integer between 1 and n_samples = {X.shape[0]}; got {k!r}.")
    if estimator is None:
        # Imported here, not at the top: the other measures do not need lucidml.cluster.
        from ..cluster.kmeans import KMeans as estimator

    if random_state is not None:
        kmeans_params = {**kmeans_params, "random_state": random_state}
    scores = []
    for k in k_values:
        model = estimator(n_clusters=int(k), **kmeans_params).fit(X)
        scores.append(model.inertia_ if hasattr(model, "inertia_") else sse(X, model.labels_))
    return np.asarray(scores, dtype=np.float64)
