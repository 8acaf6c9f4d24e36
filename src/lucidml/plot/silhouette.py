"""The silhouette plot: every point's silhouette width, sorted within its cluster."""

import numpy as np

from ..metrics.silhouette import silhouette_samples
from ._axes import axes_or_new, check_fitted_estimator, finish_plot

__all__ = ["SilhouetteDisplay"]


class SilhouetteDisplay:
    """One horizontal bar per point, its silhouette width s(i), grouped by cluster and sorted.

    s(i) = (b(i) − a(i)) / max(a(i), b(i)) compares the mean distance to the point's own cluster
    (a) with that to the nearest other cluster (b) (seeds: 002 §8.5.2; Rousseeuw 1987). A cluster
    whose bars are short or negative is poorly separated; the dashed line is the mean width.

    Parameters
    ----------
    silhouette_values : array-like of shape (n_samples,)
        s(i) of every point, as :func:`lucidml.metrics.silhouette_samples` returns it.
    labels : array-like of shape (n_samples,)
        Cluster of every point.
    name : str, default=None
        Title of the plot.

    Attributes
    ----------
    clusters_ : ndarray
        The cluster labels, in the order drawn (bottom to top).
    bars_ : list of matplotlib BarContainer
        One per cluster; the widths of ``bars_[k]`` are the sorted s(i) of cluster ``clusters_[k]``.
    average_line_ : matplotlib Line2D
        The mean silhouette width.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> from lucidml.cluster import KMeans
    >>> from lucidml.plot import SilhouetteDisplay
    >>> X = np.array([[0.0], [1.0], [10.0], [11.0], [12.0]])
    >>> model = KMeans(n_clusters=2, n_init=1, random_state=0).fit(X)
    >>> display = SilhouetteDisplay.from_estimator(model, X)
    >>> [len(bars) for bars in display.bars_]
    [3, 2]
    >>> round(float(display.average_line_.get_xdata()[0]), 3)
    0.885
    """

    def __init__(self, silhouette_values, labels, *, name=None):
        self.silhouette_values = silhouette_values
        self.labels = labels
        self.name = name

    def plot(self, ax=None, *, gap=2, **kwargs):
        """Draw the bars.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        gap : int, default=2
            Empty rows between two clusters.
        **kwargs
            Passed to ``Axes.barh`` for every cluster.

        Returns
        -------
        self : SilhouetteDisplay
        """
        values = np.asarray(self.silhouette_values, dtype=np.float64)
        labels = np.asarray(self.labels)
        if values.ndim != 1 or labels.shape != values.shape:
            raise ValueError(f"silhouette_values and labels must be 1-D of the same length; got shapes "
                             f"{values.shape} and {labels.shape}.")
        ax = axes_or_new(ax)
        self.clusters_ = np.unique(labels)
        self.bars_, bottom, ticks = [], 0, []
        for k, cluster in enumerate(self.clusters_):
            widths = np.sort(values[labels == cluster])
            rows = bottom + np.arange(widths.size)
            self.bars_.append(ax.barh(rows, widths, height=1.0, color=f"C{k % 10}", **kwargs))
            ticks.append(bottom + widths.size / 2)
            bottom += widths.size + gap
        self.average_line_ = ax.axvline(values.mean(), color="k", linestyle="--")
        ax.set_yticks(ticks, [str(c) for c in self.clusters_])
        ax.set_xlabel("silhouette width s(i)")
        ax.set_ylabel("cluster")
        return finish_plot(self, ax)

    @classmethod
    def from_estimator(cls, estimator, X, *, metric="euclidean", ax=None, **kwargs):
        """Draw the silhouettes of the clusters a fitted clusterer gives X.

        The labels are ``estimator.predict(X)`` for a clusterer that predicts, else its
        ``labels_`` (then X must be the data it was fitted on).

        Parameters
        ----------
        estimator : fitted clusterer
        X : array-like of shape (n_samples, n_features)
        metric : str or callable, default="euclidean"
            As in :func:`lucidml.metrics.silhouette_samples`.
        ax, **kwargs
            As in :meth:`plot`.

        Returns
        -------
        SilhouetteDisplay
        """
        check_fitted_estimator(estimator, cls.__name__)
        if hasattr(estimator, "predict"):
            labels = estimator.predict(X)
        elif hasattr(estimator, "labels_"):
            labels = estimator.labels_
            if len(labels) != len(X):
                raise ValueError(f"{type(estimator).__name__} cannot predict, so X must be its training data: "
                                 f"labels_ has {len(labels)} entries and X {len(X)} rows.")
        else:
            raise TypeError(f"SilhouetteDisplay needs a clusterer; {type(estimator).__name__} has neither predict "
                            "nor labels_.")
        return cls.from_predictions(X, labels, metric=metric, ax=ax, name=type(estimator).__name__, **kwargs)

    @classmethod
    def from_predictions(cls, X, labels, *, metric="euclidean", ax=None, name=None, **kwargs):
        """Draw the silhouettes of given cluster labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        labels : array-like of shape (n_samples,)
            Between 2 and n_samples − 1 distinct labels.
        metric : str or callable, default="euclidean"
        ax, **kwargs
            As in :meth:`plot`.
        name : str, default=None
            Title of the plot.

        Returns
        -------
        SilhouetteDisplay
        """
        n_clusters, n_samples = len(np.unique(labels)), len(labels)
        if not 2 <= n_clusters <= n_samples - 1:
            raise ValueError(f"SilhouetteDisplay needs between 2 and n_samples - 1 = {n_samples - 1} clusters; the "
                             f"labels hold {n_clusters} (a silhouette compares a point's own cluster with the "
                             "nearest other one).")
        values = silhouette_samples(X, labels, metric=metric)
        return cls(values, labels, name=name).plot(ax=ax, **kwargs)
