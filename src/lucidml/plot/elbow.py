"""The elbow plot: the clustering's SSE against the number of clusters k."""

import numpy as np
from sklearn.base import clone

from ..metrics.elbow import elbow
from ._axes import axes_or_new, finish_plot

__all__ = ["ElbowDisplay"]


class ElbowDisplay:
    """SSE (inertia) against k; the k after which the curve stops falling steeply is the usual pick.

    The numbers come from :func:`lucidml.metrics.elbow`, which fits one clusterer per k
    (seeds: 002 §8.5.2, Figure 8.38).

    Parameters
    ----------
    k_values : array-like of int
        The numbers of clusters tried.
    sse : array-like of float
        SSE of the clustering found for each k.
    name : str, default=None
        Title of the plot.

    Attributes
    ----------
    line_ : matplotlib Line2D
        SSE against k.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> from lucidml.cluster import KMeans
    >>> from lucidml.plot import ElbowDisplay
    >>> X = np.array([[0.0], [1.0], [10.0], [11.0], [20.0], [21.0]])
    >>> display = ElbowDisplay.from_estimator(KMeans(n_init=5, random_state=0), X, [1, 2, 3, 4])
    >>> display.line_.get_ydata().round(1)
    array([401.5, 101.5,   1.5,   1. ])
    """

    def __init__(self, k_values, sse, *, name=None):
        self.k_values = k_values
        self.sse = sse
        self.name = name

    def plot(self, ax=None, **kwargs):
        """Draw SSE against k.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs
            Passed to ``Axes.plot`` (default marker "o").

        Returns
        -------
        self : ElbowDisplay
        """
        k_values, sse = np.asarray(self.k_values), np.asarray(self.sse, dtype=np.float64)
        if k_values.ndim != 1 or k_values.shape != sse.shape:
            raise ValueError(f"k_values and sse must be 1-D of the same length; got shapes {k_values.shape} "
                             f"and {sse.shape}.")
        ax = axes_or_new(ax)
        (self.line_,) = ax.plot(k_values, sse, **{"marker": "o", **kwargs})
        ax.set_xlabel("number of clusters k")
        ax.set_ylabel("SSE (within-cluster sum of squares)")
        return finish_plot(self, ax)

    @classmethod
    def from_estimator(cls, estimator, X, k_values, *, ax=None, **kwargs):
        """Fit a copy of ``estimator`` for each k and draw the SSE of each.

        Parameters
        ----------
        estimator : clusterer with an ``n_clusters`` parameter
            Fitted or not: only its parameters are used (copies are fitted, it is left as is).
        X : array-like of shape (n_samples, n_features)
        k_values : iterable of int
            Numbers of clusters to try, each between 1 and n_samples.
        ax, **kwargs
            As in :meth:`plot`.

        Returns
        -------
        ElbowDisplay
        """
        if "n_clusters" not in estimator.get_params():
            raise TypeError(f"ElbowDisplay needs a clusterer with an n_clusters parameter; "
                            f"{type(estimator).__name__} has none.")
        k_values = list(k_values)

        def with_k(n_clusters):
            return clone(estimator).set_params(n_clusters=n_clusters)

        sse = elbow(X, k_values, estimator=with_k)
        return cls(k_values, sse, name=type(estimator).__name__).plot(ax=ax, **kwargs)

    @classmethod
    def from_data(cls, X, k_values, *, random_state=None, ax=None, **kmeans_params):
        """Run lucidml's k-means for each k and draw the SSE of each.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        k_values : iterable of int
        random_state : int, RandomState instance or None, default=None
        ax : matplotlib Axes, default=None
        **kmeans_params
            Further parameters of :class:`lucidml.cluster.KMeans` (``n_init``, ``init`` ...).

        Returns
        -------
        ElbowDisplay
        """
        k_values = list(k_values)
        sse = elbow(X, k_values, random_state=random_state, **kmeans_params)
        return cls(k_values, sse, name="KMeans").plot(ax=ax)
