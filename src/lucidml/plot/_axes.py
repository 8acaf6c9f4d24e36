"""What every display shares: the Axes it draws on, and the checks on what it is given.

matplotlib is imported only here, inside :func:`axes_or_new`, so that ``import lucidml.plot``
stays as light as ``import lucidml``.
"""

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
