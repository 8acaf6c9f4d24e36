"""Coefficients of a regularized linear model against the penalty α."""

import numpy as np
from sklearn.base import clone

from ..linear.elastic_net import ElasticNet, enet_path
from ._axes import axes_or_new, feature_names_or_default, finish_plot

__all__ = ["RegularizationPathDisplay"]

# The α grid of a refitted model (ridge, GLMs) when none is given: 10⁻³ to 10³.
_DEFAULT_ALPHA_RANGE = (1e3, 1e-3)


class RegularizationPathDisplay:
    """One line per coefficient, its value against α on a log axis.

    As α grows the lasso sets coefficients exactly to zero one after another, while ridge only
    shrinks them; the path shows in which order features leave the model.

    Parameters
    ----------
    alphas : array-like of shape (n_alphas,)
    coefs : array-like of shape (n_features, n_alphas)
        ``coefs[j, i]`` is coefficient j at ``alphas[i]``, as :func:`lucidml.linear.enet_path`
        returns it.
    feature_names : list of str, default=None
        Legend entries (shown for at most 10 features); default ``feature_0``, ….
    name : str, default=None
        Title of the plot.

    Attributes
    ----------
    lines_ : list of matplotlib Line2D
        ``lines_[j]`` is coefficient j along the path.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> from lucidml.linear import Lasso
    >>> from lucidml.plot import RegularizationPathDisplay
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = X @ np.array([2.0, -1.0, 0.0])
    >>> display = RegularizationPathDisplay.from_estimator(Lasso(), X, y, alphas=[1.0, 0.1, 0.01])
    >>> [bool(np.any(line.get_ydata() != 0)) for line in display.lines_]   # the third never enters
    [True, True, False]
    """

    def __init__(self, alphas, coefs, *, feature_names=None, name=None):
        self.alphas = alphas
        self.coefs = coefs
        self.feature_names = feature_names
        self.name = name

    def plot(self, ax=None, **kwargs):
        """Draw the path.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs
            Passed to ``Axes.plot`` for every line.

        Returns
        -------
        self : RegularizationPathDisplay
        """
        alphas = np.asarray(self.alphas, dtype=np.float64)
        coefs = np.asarray(self.coefs, dtype=np.float64)
        if alphas.ndim != 1 or coefs.ndim != 2 or coefs.shape[1] != alphas.size:
            raise ValueError(f"coefs must have shape (n_features, n_alphas) = (·, {alphas.size}); got {coefs.shape}.")
        if np.any(alphas <= 0):
            raise ValueError("Every alpha must be positive (they are drawn on a log axis).")
        names = feature_names_or_default(self.feature_names, coefs.shape[0], "coefficients")
        ax = axes_or_new(ax)
        self.lines_ = [ax.plot(alphas, coef, label=name, **kwargs)[0] for coef, name in zip(coefs, names, strict=True)]
        ax.set_xscale("log")
        ax.axhline(0.0, color="0.6", linewidth=0.8)
        ax.set_xlabel("alpha")
        ax.set_ylabel("coefficient")
        if len(names) <= 10:
            ax.legend()
        return finish_plot(self, ax)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, alphas=None, n_alphas=30, feature_names=None, ax=None, **kwargs):
        """Compute the path of a model's settings on (X, y) and draw it.

        A lucidml Lasso or ElasticNet walks :func:`lucidml.linear.enet_path` with its own
        ``l1_ratio``, ``fit_intercept``, ``max_iter``, ``tol`` and ``positive`` (the default grid
        starts at α_max, where every coefficient is zero). Any other model with an ``alpha``
        parameter and a ``coef_`` (Ridge, the GLMs) is refitted once per α (default grid: 10⁻³
        to 10³). The given estimator itself is not fitted or changed.

        Parameters
        ----------
        estimator : estimator with an ``alpha`` parameter
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        alphas : array-like, default=None
            The grid; None chooses one as described above.
        n_alphas : int, default=30
            Size of the default grid.
        feature_names : list of str, default=None
            Default: the columns of a data frame X, or ``feature_0``, ….
        ax, **kwargs
            As in :meth:`plot`.

        Returns
        -------
        RegularizationPathDisplay
        """
        if "alpha" not in getattr(estimator, "get_params", dict)():
            raise TypeError(f"RegularizationPathDisplay needs a regularized model with an alpha parameter; "
                            f"got {type(estimator).__name__}.")
        if feature_names is None and hasattr(X, "columns"):
            feature_names = list(X.columns)
        if isinstance(estimator, ElasticNet):
            params = estimator.get_params()
            alphas, coefs, _ = enet_path(X, y, l1_ratio=params.get("l1_ratio", 1.0), alphas=alphas, n_alphas=n_alphas,
                                         fit_intercept=params["fit_intercept"], max_iter=params["max_iter"],
                                         tol=params["tol"], positive=params["positive"])
        else:
            alphas = np.geomspace(*_DEFAULT_ALPHA_RANGE, n_alphas) if alphas is None else np.asarray(alphas, float)
            coefs = _refitted_path(estimator, X, y, alphas)
        display = cls(alphas, coefs, feature_names=feature_names, name=type(estimator).__name__)
        return display.plot(ax=ax, **kwargs)


def _refitted_path(estimator, X, y, alphas):
    """coef_ of a copy of ``estimator`` fitted at each α, as (n_features, n_alphas)."""
    coefs = []
    for alpha in alphas:
        coef = np.asarray(clone(estimator).set_params(alpha=float(alpha)).fit(X, y).coef_)
        if coef.ndim != 1:
            raise ValueError(f"The path is drawn for one target; {type(estimator).__name__} has coef_ of shape "
                             f"{coef.shape}.")
        coefs.append(coef)
    return np.array(coefs).T
