"""Feature importances of a fitted model as sorted horizontal bars."""

import numpy as np

from ._axes import (
    axes_or_new,
    check_attribute,
    check_fitted_estimator,
    feature_names_or_default,
    finish_plot,
    nonempty_1d,
)

__all__ = ["FeatureImportanceDisplay"]


class FeatureImportanceDisplay:
    """Horizontal bars of feature importances, the most important at the top.

    For a tree the importance of a feature is its total weighted impurity decrease; for a forest
    or boosting model, that of its trees (``feature_importances_``). For an ensemble whose
    members each report importances over all features, the error bars show their standard
    deviation across members.

    Parameters
    ----------
    importances : array-like of shape (n_features,)
    feature_names : list of str, default=None
        Default ``feature_0``, ….
    std : array-like of shape (n_features,), default=None
        Spread of each importance, drawn as error bars.
    max_features : int, default=None
        Draw only the this many most important features.
    name : str, default=None
        Title of the plot.

    Attributes
    ----------
    order_ : ndarray of int
        Feature indices drawn, bottom to top (increasing importance).
    bars_ : matplotlib BarContainer
        The bars; their widths are ``importances[order_]``.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> from lucidml.tree import DecisionTreeRegressor
    >>> from lucidml.plot import FeatureImportanceDisplay
    >>> X = np.column_stack([np.arange(8.0), np.zeros(8)])
    >>> reg = DecisionTreeRegressor(max_depth=2).fit(X, [0, 0, 0, 0, 1, 1, 2, 2])
    >>> display = FeatureImportanceDisplay.from_estimator(reg, feature_names=["x", "zero"])
    >>> [float(bar.get_width()) for bar in display.bars_], [t.get_text() for t in display.ax_.get_yticklabels()]
    ([0.0, 1.0], ['zero', 'x'])
    """

    def __init__(self, importances, *, feature_names=None, std=None, max_features=None, name=None):
        self.importances = importances
        self.feature_names = feature_names
        self.std = std
        self.max_features = max_features
        self.name = name

    def plot(self, ax=None, **kwargs):
        """Draw the bars.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs
            Passed to ``Axes.barh``.

        Returns
        -------
        self : FeatureImportanceDisplay
        """
        importances = nonempty_1d(self.importances, "importances")
        names = feature_names_or_default(self.feature_names, importances.size, "importances")
        if self.max_features is not None and self.max_features < 1:
            raise ValueError(f"max_features must be None or ≥ 1; got {self.max_features}.")
        self.order_ = np.argsort(importances, kind="stable")[-(self.max_features or importances.size):]
        std = None if self.std is None else np.asarray(self.std, dtype=np.float64)[self.order_]
        ax = axes_or_new(ax)
        rows = np.arange(self.order_.size)
        self.bars_ = ax.barh(rows, importances[self.order_], xerr=std, **kwargs)
        ax.set_yticks(rows, [names[j] for j in self.order_])
        ax.set_xlabel("importance")
        return finish_plot(self, ax)

    @classmethod
    def from_estimator(cls, estimator, *, feature_names=None, max_features=None, ax=None, **kwargs):
        """Draw the ``feature_importances_`` of a fitted model.

        Parameters
        ----------
        estimator : fitted estimator with ``feature_importances_``
            A lucidml tree, forest, bagging, AdaBoost or gradient boosting model.
        feature_names : list of str, default=None
            Default: ``feature_names_in_``, or ``feature_0``, ….
        max_features : int, default=None
        ax, **kwargs
            As in :meth:`plot`.

        Returns
        -------
        FeatureImportanceDisplay
        """
        check_fitted_estimator(estimator, cls.__name__)
        importances = np.asarray(check_attribute(estimator, "feature_importances_", cls.__name__,
                                                 "a model with feature importances"))
        if feature_names is None:
            feature_names = getattr(estimator, "feature_names_in_", None)
        display = cls(importances, feature_names=feature_names, std=_member_spread(estimator, importances.size),
                      max_features=max_features, name=type(estimator).__name__)
        return display.plot(ax=ax, **kwargs)


def _member_spread(estimator, n_features):
    """Standard deviation of the members' importances, when every member has one per feature; else None."""
    members = np.ravel(getattr(estimator, "estimators_", np.empty(0)))
    per_member = [getattr(member, "feature_importances_", None) for member in members]
    if len(per_member) < 2 or any(p is None or np.size(p) != n_features for p in per_member):
        return None
    return np.std(per_member, axis=0)
