"""The scree plot: each component's share of the variance, and the running total."""

import numpy as np

from ._axes import axes_or_new, check_fitted_estimator, finish_plot, nonempty_1d

__all__ = ["ExplainedVarianceDisplay"]


class ExplainedVarianceDisplay:
    """Bars of each component's share of the variance and a line of their cumulative sum.

    What "share" means depends on the model (see :meth:`from_estimator`); in every case the
    bars are the numbers the fitted model holds, so the plot helps choose how many components
    to keep.

    Parameters
    ----------
    ratios : array-like of shape (n_components,)
        The share of each component, in the order of the components.
    ylabel : str, default="explained variance ratio"
    name : str, default=None
        Title of the plot.

    Attributes
    ----------
    bars_ : matplotlib BarContainer
        One bar per component (x = 1, 2, …), its height the component's share.
    line_ : matplotlib Line2D
        The cumulative share.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> from lucidml.decomposition import PCA
    >>> from lucidml.plot import ExplainedVarianceDisplay
    >>> X = np.random.default_rng(0).normal(size=(50, 3)) * [3.0, 1.0, 0.1]
    >>> display = ExplainedVarianceDisplay.from_estimator(PCA().fit(X))
    >>> display.line_.get_ydata().round(3)
    array([0.941, 0.999, 1.   ])
    """

    def __init__(self, ratios, *, ylabel="explained variance ratio", name=None):
        self.ratios = ratios
        self.ylabel = ylabel
        self.name = name

    def plot(self, ax=None, **kwargs):
        """Draw the bars and the cumulative line.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs
            Passed to ``Axes.bar``.

        Returns
        -------
        self : ExplainedVarianceDisplay
        """
        ratios = nonempty_1d(self.ratios, "ratios")
        ax = axes_or_new(ax)
        components = np.arange(1, ratios.size + 1)
        self.bars_ = ax.bar(components, ratios, label="per component", **kwargs)
        (self.line_,) = ax.plot(components, np.cumsum(ratios), marker="o", color="k", label="cumulative")
        ax.set_xticks(components)
        ax.set_xlabel("component")
        ax.set_ylabel(self.ylabel)
        ax.legend()
        return finish_plot(self, ax)

    @classmethod
    def from_estimator(cls, estimator, *, ax=None, **kwargs):
        """Draw the shares of a fitted PCA, KernelPCA or FactorAnalysis.

        - PCA (and any model with ``explained_variance_ratio_``): that ratio, the share of the
          total variance of the data.
        - KernelPCA: each eigenvalue of the centred kernel matrix over the sum of those kept
          (the total over all components is not stored), so the bars sum to 1.
        - FactorAnalysis: each factor's sum of squared loadings Σⱼ Wₖⱼ² over the model's total
          variance Σₖⱼ Wₖⱼ² + Σⱼ ψⱼ (the trace of WᵀW + Ψ).

        Parameters
        ----------
        estimator : fitted PCA, KernelPCA or FactorAnalysis
        ax, **kwargs
            As in :meth:`plot`.

        Returns
        -------
        ExplainedVarianceDisplay
        """
        check_fitted_estimator(estimator, cls.__name__)
        ratios, ylabel = _shares(estimator)
        return cls(ratios, ylabel=ylabel, name=type(estimator).__name__).plot(ax=ax, **kwargs)


def _shares(estimator):
    """(share of each component, what the share is of) for the models that have components."""
    if hasattr(estimator, "explained_variance_ratio_"):
        return np.asarray(estimator.explained_variance_ratio_), "explained variance ratio"
    if hasattr(estimator, "eigenvalues_"):
        eigenvalues = np.asarray(estimator.eigenvalues_, dtype=np.float64)
        total = eigenvalues.sum()  # (0 for a constant X: every share 0, not 0/0)
        return eigenvalues / total if total > 0 else np.zeros_like(eigenvalues), "share of the kept eigenvalues"
    if hasattr(estimator, "noise_variance_") and hasattr(estimator, "components_"):
        loadings = np.sum(np.asarray(estimator.components_) ** 2, axis=1)
        total = loadings.sum() + np.sum(estimator.noise_variance_)
        return loadings / total, "share of the model's variance"
    raise TypeError(f"ExplainedVarianceDisplay needs PCA, KernelPCA or FactorAnalysis; {type(estimator).__name__} "
                    "has no explained_variance_ratio_, eigenvalues_ or factor loadings.")
