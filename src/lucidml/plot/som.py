"""A self-organizing map's U-matrix and component planes."""

import numpy as np

from ._axes import check_attribute, check_fitted_estimator, feature_names_or_default, finish_plot

__all__ = ["SOMDisplay", "u_matrix"]


def u_matrix(weights, lattice):
    """Mean distance from each unit's weight vector to those of its lattice neighbours.

    Neighbours are the units one step away (up, down, left, right). High values mark borders
    between groups of similar units, low values the inside of a group (Ultsch's U-matrix).

    Parameters
    ----------
    weights : array-like of shape (n_units, n_features)
    lattice : array-like of shape (n_units, 2)
        (row, column) of every unit, as ``SelfOrganizingMap.lattice_``.

    Returns
    -------
    ndarray of shape (n_rows, n_cols)

    Examples
    --------
    >>> import numpy as np
    >>> weights = np.array([[0.0], [1.0], [3.0]])
    >>> u_matrix(weights, [[0, 0], [0, 1], [0, 2]])
    array([[1. , 1.5, 2. ]])
    """
    weights = np.asarray(weights, dtype=np.float64)
    cells = np.asarray(lattice).astype(np.intp)
    if weights.ndim != 2 or cells.shape != (weights.shape[0], 2):
        raise ValueError(f"weights (n_units, n_features) and lattice (n_units, 2) disagree: shapes {weights.shape} "
                         f"and {cells.shape}.")
    shape = tuple(cells.max(axis=0) + 1)
    grid = np.full((*shape, weights.shape[1]), np.nan)
    grid[cells[:, 0], cells[:, 1]] = weights
    total, count = np.zeros(shape), np.zeros(shape)
    for axis in (0, 1):  # each pair of lattice neighbours once, along rows then along columns
        if shape[axis] < 2:
            continue
        lower = [slice(None), slice(None)]
        upper = [slice(None), slice(None)]
        lower[axis], upper[axis] = slice(None, -1), slice(1, None)
        gap = np.linalg.norm(grid[tuple(upper)] - grid[tuple(lower)], axis=-1)
        for side in (lower, upper):
            total[tuple(side)] += gap
            count[tuple(side)] += 1
    return np.divide(total, count, out=np.zeros(shape), where=count > 0)


class SOMDisplay:
    """The U-matrix of a self-organizing map, then one component plane per feature.

    A component plane shows one coordinate of every unit's weight vector on the lattice;
    comparing planes shows which features vary together across the map.

    Parameters
    ----------
    weights : array-like of shape (n_units, n_features)
        ``weights_`` of a fitted :class:`~lucidml.cluster.SelfOrganizingMap`.
    lattice : array-like of shape (n_units, 2)
        ``lattice_``: (row, column) of every unit.
    feature_names : list of str, default=None
        Titles of the component planes; default ``feature_0``, ….

    Attributes
    ----------
    u_matrix_ : ndarray of shape (n_rows, n_cols)
        See :func:`u_matrix`.
    images_ : list of matplotlib AxesImage
        The U-matrix, then the planes drawn, in the order of ``features_``.
    features_ : list of int
        The features whose planes are drawn.
    axes_ : ndarray of matplotlib Axes
        The Axes drawn on; ``ax_`` is the U-matrix's.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> from lucidml.cluster import SelfOrganizingMap
    >>> from lucidml.plot import SOMDisplay
    >>> X = np.random.default_rng(0).uniform(size=(100, 2))
    >>> som = SelfOrganizingMap(shape=(4, 5), n_iter=500, random_state=0).fit(X)
    >>> display = SOMDisplay.from_estimator(som)
    >>> [image.get_array().shape for image in display.images_]
    [(4, 5), (4, 5), (4, 5)]
    """

    def __init__(self, weights, lattice, *, feature_names=None):
        self.weights = weights
        self.lattice = lattice
        self.feature_names = feature_names

    def plot(self, ax=None, *, features=None, cmap="viridis"):
        """Draw the U-matrix and the component planes.

        Parameters
        ----------
        ax : matplotlib Axes, or array-like of Axes, default=None
            None makes a new figure with a panel for the U-matrix and one per plane; one Axes
            draws the U-matrix only; several Axes receive the U-matrix, then the planes (as
            many planes as there are Axes after the first).
        features : list of int, default=None
            Features whose planes are drawn; None draws all (or as many as ``ax`` has room for).
        cmap : str, default="viridis"

        Returns
        -------
        self : SOMDisplay
        """
        weights = np.asarray(self.weights, dtype=np.float64)
        self.u_matrix_ = u_matrix(weights, self.lattice)
        names = feature_names_or_default(self.feature_names, weights.shape[1])
        features = list(range(weights.shape[1])) if features is None else [int(j) for j in features]
        if any(not 0 <= j < weights.shape[1] for j in features):
            raise ValueError(f"features must be indices below n_features = {weights.shape[1]}; got {features}.")
        axes = self._axes(ax, len(features))
        self.features_ = features[:len(axes) - 1]
        cells = np.asarray(self.lattice).astype(np.intp)
        panels = [(self.u_matrix_, "U-matrix")]
        for j in self.features_:
            plane = np.full(self.u_matrix_.shape, np.nan)
            plane[cells[:, 0], cells[:, 1]] = weights[:, j]
            panels.append((plane, names[j]))
        self.images_ = []
        for panel_ax, (values, title) in zip(axes, panels, strict=True):
            image = panel_ax.imshow(values, cmap=cmap)
            panel_ax.figure.colorbar(image, ax=panel_ax, shrink=0.8)
            panel_ax.set_title(title)
            panel_ax.set_xticks([])
            panel_ax.set_yticks([])
            self.images_.append(image)
        self.axes_ = np.asarray(axes, dtype=object)
        return finish_plot(self, axes[0])

    @staticmethod
    def _axes(ax, n_planes):
        """The Axes to draw on: the given ones, or a new figure with 1 + n_planes panels."""
        if ax is None:
            import matplotlib.pyplot as plt

            n_panels = 1 + n_planes
            n_cols = min(n_panels, 4)
            n_rows = -(-n_panels // n_cols)
            figure, grid = plt.subplots(n_rows, n_cols, figsize=(3.2 * n_cols, 2.8 * n_rows), squeeze=False)
            for spare in grid.ravel()[n_panels:]:
                spare.set_visible(False)
            return list(grid.ravel()[:n_panels])
        if hasattr(ax, "imshow"):
            return [ax]
        axes = list(np.ravel(ax))
        if not axes or not all(hasattr(a, "imshow") for a in axes):
            raise TypeError("ax must be None, a matplotlib Axes or an array of Axes.")
        return axes[:1 + n_planes]

    @classmethod
    def from_estimator(cls, estimator, *, feature_names=None, features=None, ax=None, cmap="viridis"):
        """Draw a fitted SelfOrganizingMap.

        Parameters
        ----------
        estimator : fitted SelfOrganizingMap
        feature_names : list of str, default=None
            Default: ``feature_names_in_``, or ``feature_0``, ….
        features, ax, cmap
            As in :meth:`plot`.

        Returns
        -------
        SOMDisplay
        """
        check_fitted_estimator(estimator, cls.__name__)
        lattice = check_attribute(estimator, "lattice_", cls.__name__, "a self-organizing map")
        if feature_names is None:
            feature_names = getattr(estimator, "feature_names_in_", None)
        display = cls(estimator.weights_, lattice, feature_names=feature_names)
        return display.plot(ax=ax, features=features, cmap=cmap)
