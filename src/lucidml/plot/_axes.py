"""What every display shares: the Axes it draws on, and the checks on what it is given.

matplotlib is imported only here, inside :func:`axes_or_new`, so that ``import lucidml.plot``
stays as light as ``import lucidml``.
"""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted


def axes_or_new(ax):
    """``ax``, or the Axes of a new figure when ``ax`` is None."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    return ax


def check_fitted_estimator(estimator, display):
    """A fitted estimator, or a TypeError (not an estimator) / NotFittedError (not fitted)."""
    if not isinstance(estimator, BaseEstimator):
        raise TypeError(f"{display}.from_estimator needs a fitted estimator; got {type(estimator).__name__}.")
    check_is_fitted(estimator)
    return estimator


def check_attribute(estimator, attribute, display, what):
    """``estimator.<attribute>``, or a TypeError saying which kind of estimator the display needs."""
    if not hasattr(estimator, attribute):
        raise TypeError(f"{display} needs {what}; {type(estimator).__name__} has no {attribute} attribute.")
    return getattr(estimator, attribute)


def finish_plot(display, ax):
    """Title the Axes with the display's name, keep ``ax_`` and ``figure_``, and return the display."""
    if getattr(display, "name", None) is not None:
        ax.set_title(display.name)
    display.ax_, display.figure_ = ax, ax.figure
    return display


def nonempty_1d(values, what):
    """``values`` as a non-empty 1-D float array, or a ValueError naming ``what``."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{what} must be a non-empty 1-D array; got shape {values.shape}.")
    return values


def feature_names_or_default(names, n_features, what="features"):
    """``names`` as strings (``feature_0``, … when None), one per feature, or a ValueError."""
    names = [f"feature_{j}" for j in range(n_features)] if names is None else [str(name) for name in names]
    if len(names) != n_features:
        raise ValueError(f"feature_names has {len(names)} entries for {n_features} {what}.")
    return names
