"""The merge tree of a hierarchical clustering, drawn by SciPy from its linkage matrix."""

import numpy as np
from scipy.cluster.hierarchy import is_valid_linkage

from ._axes import axes_or_new, check_attribute, check_fitted_estimator, finish_plot

__all__ = ["DendrogramDisplay"]


class DendrogramDisplay:
    """Dendrogram of a hierarchical clustering (AGNES, DIANA): each merge is a ⊓ at its height.

    The fitted :class:`~lucidml.cluster.AgglomerativeClustering` and :class:`~lucidml.cluster.DIANA`
    keep SciPy's linkage matrix in ``linkage_`` (rows: the two merged ids, the height, the size of
    the new cluster), so :func:`scipy.cluster.hierarchy.dendrogram` draws the tree; this display
    wraps it in scikit-learn's display convention.

    Parameters
    ----------
    linkage_matrix : ndarray of shape (n_samples − 1, 4)
        A valid SciPy linkage matrix.
    labels : array-like of shape (n_samples,), default=None
        Leaf labels; None numbers the points.
    name : str, default=None
        Title of the plot.

    Attributes
    ----------
    dendrogram_ : dict
        What :func:`scipy.cluster.hierarchy.dendrogram` returns: ``leaves`` (point ids left to
        right), ``icoord``/``dcoord`` (the ⊓ of each merge), ``ivl`` (leaf labels), ...
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> from lucidml.cluster import AgglomerativeClustering
    >>> from lucidml.plot import DendrogramDisplay
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0], [0.2, 0.5]])
    >>> model = AgglomerativeClustering(linkage="average").fit(X)
    >>> display = DendrogramDisplay.from_estimator(model)
    >>> display.dendrogram_["leaves"]
    [1, 0, 4, 2, 3]
    """

    def __init__(self, linkage_matrix, *, labels=None, name=None):
        self.linkage_matrix = linkage_matrix
        self.labels = labels
        self.name = name

    def plot(self, ax=None, **kwargs):
        """Draw the dendrogram.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs
            Passed to :func:`scipy.cluster.hierarchy.dendrogram` (``truncate_mode``, ``p``,
            ``color_threshold``, ``orientation`` ...).

        Returns
        -------
        self : DendrogramDisplay
        """
        from scipy.cluster.hierarchy import dendrogram

        Z = np.asarray(self.linkage_matrix, dtype=np.float64)
        if not is_valid_linkage(Z):
            raise ValueError("linkage_matrix is not a valid SciPy linkage matrix (n − 1 rows of: two merged "
                             "ids, a non-negative height, the size of the new cluster).")
        labels = None if self.labels is None else np.asarray(self.labels)
        if labels is not None and labels.shape != (Z.shape[0] + 1,):
            raise ValueError(f"labels must have one entry per point ({Z.shape[0] + 1}); got shape {labels.shape}.")
        ax = axes_or_new(ax)
        self.dendrogram_ = dendrogram(Z, ax=ax, labels=labels, **kwargs)
        if kwargs.get("orientation", "top") in ("top", "bottom"):
            ax.set_ylabel("merge height")
        else:
            ax.set_xlabel("merge height")
        return finish_plot(self, ax)

    @classmethod
    def from_estimator(cls, estimator, *, labels=None, ax=None, **kwargs):
        """Draw the tree of a fitted hierarchical clusterer.

        Parameters
        ----------
        estimator : fitted AgglomerativeClustering or DIANA
            Any fitted estimator with a SciPy linkage matrix in ``linkage_``.
        labels : array-like of shape (n_samples,), default=None
            Leaf labels.
        ax, **kwargs
            As in :meth:`plot`.

        Returns
        -------
        DendrogramDisplay
        """
        check_fitted_estimator(estimator, cls.__name__)
        Z = check_attribute(estimator, "linkage_", cls.__name__, "a hierarchical clustering")
        return cls(Z, labels=labels, name=type(estimator).__name__).plot(ax=ax, **kwargs)
