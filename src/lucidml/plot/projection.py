"""Data mapped to two dimensions by a fitted transformer, coloured by label."""

from numbers import Integral

import numpy as np

from ._axes import axes_or_new, check_fitted_estimator, finish_plot

__all__ = ["ProjectionDisplay"]


class ProjectionDisplay:
    """Scatter of two columns of a transform (PCA scores, kernel PCA, factors, ICA sources, …).

    Parameters
    ----------
    embedding : array-like of shape (n_samples, 2)
        The two coordinates of every sample.
    labels : array-like of shape (n_samples,), default=None
        Class or cluster of every sample; points are coloured by it and a legend names it.
    axis_labels : tuple of str, default=("component 1", "component 2")
    name : str, default=None
        Title of the plot.

    Attributes
    ----------
    scatter_ : matplotlib PathCollection
        The points; ``scatter_.get_offsets()`` is the embedding.
    classes_ : ndarray or None
        The distinct labels, in the order of the colour codes.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from lucidml.decomposition import PCA
    >>> from lucidml.plot import ProjectionDisplay
    >>> X, y = load_iris(return_X_y=True)
    >>> display = ProjectionDisplay.from_estimator(PCA(n_components=2).fit(X), X, y)
    >>> display.scatter_.get_offsets().shape, display.classes_
    ((150, 2), array([0, 1, 2]))
    """

    def __init__(self, embedding, labels=None, *, axis_labels=("component 1", "component 2"), name=None):
        self.embedding = embedding
        self.labels = labels
        self.axis_labels = axis_labels
        self.name = name

    def plot(self, ax=None, **kwargs):
        """Draw the scatter.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs
            Passed to ``Axes.scatter`` (default ``s=15``).

        Returns
        -------
        self : ProjectionDisplay
        """
        Z = np.asarray(self.embedding, dtype=np.float64)
        if Z.ndim != 2 or Z.shape[1] != 2:
            raise ValueError(f"embedding must have shape (n_samples, 2); got {Z.shape}.")
        ax = axes_or_new(ax)
        kwargs = {"s": 15, **kwargs}
        if self.labels is None:
            self.classes_ = None
            self.scatter_ = ax.scatter(Z[:, 0], Z[:, 1], **kwargs)
        else:
            labels = np.asarray(self.labels)
            if labels.shape != (Z.shape[0],):
                raise ValueError(f"labels must have one entry per sample ({Z.shape[0]}); got shape {labels.shape}.")
            self.classes_, codes = np.unique(labels, return_inverse=True)
            cmap = "tab10" if self.classes_.size <= 10 else "viridis"
            self.scatter_ = ax.scatter(Z[:, 0], Z[:, 1], c=codes, cmap=cmap, vmin=0,
                                       vmax=max(self.classes_.size - 1, 1), **kwargs)
            handles, _ = self.scatter_.legend_elements(num=list(range(self.classes_.size)))
            ax.legend(handles, [str(c) for c in self.classes_], title="label")
        ax.set_xlabel(self.axis_labels[0])
        ax.set_ylabel(self.axis_labels[1])
        return finish_plot(self, ax)

    @classmethod
    def from_estimator(cls, estimator, X, labels=None, *, components=(0, 1), ax=None, **kwargs):
        """Transform X with a fitted transformer and draw two of its columns.

        Parameters
        ----------
        estimator : fitted transformer
            PCA, KernelPCA, FactorAnalysis, ICA, TruncatedSVD … (anything with ``transform``).
        X : array-like of shape (n_samples, n_features)
        labels : array-like of shape (n_samples,), default=None
        components : pair of int, default=(0, 1)
            The columns of the transform to draw.
        ax, **kwargs
            As in :meth:`plot`.

        Returns
        -------
        ProjectionDisplay
        """
        check_fitted_estimator(estimator, cls.__name__)
        if not hasattr(estimator, "transform"):
            raise TypeError(f"ProjectionDisplay needs a transformer; {type(estimator).__name__} has no transform.")
        Z = np.asarray(estimator.transform(X))
        first, second = components
        whole = all(isinstance(c, Integral) and not isinstance(c, bool) for c in (first, second))
        if Z.ndim != 2 or not whole or not (0 <= first < Z.shape[1] and 0 <= second < Z.shape[1]):
            raise ValueError(f"components {components} are not columns of the transform, which has "
                             f"{Z.shape[1] if Z.ndim == 2 else 1} column(s).")
        axis_labels = (f"component {first + 1}", f"component {second + 1}")
        display = cls(Z[:, [first, second]], labels, axis_labels=axis_labels, name=type(estimator).__name__)
        return display.plot(ax=ax, **kwargs)
