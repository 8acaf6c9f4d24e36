"""The objective of an iterative fit against the iteration: did it converge, and how fast?"""

import numpy as np

from ._axes import axes_or_new, check_fitted_estimator, finish_plot, nonempty_1d

__all__ = ["ConvergenceDisplay"]

# The histories lucidml estimators record, in the order they are looked for, with what they measure.
_HISTORIES = (
    ("loss_curve_", "loss"),
    ("lower_bounds_", "lower bound of the log-likelihood"),
    ("loglike_", "log-likelihood"),
    ("train_score_", "training loss"),
)


class ConvergenceDisplay:
    """Objective per iteration of an iterative estimator or optimizer, one line per recorded run.

    Iterative lucidml estimators keep their history (``loss_curve_``: loss, inertia or objective;
    ``lower_bounds_``: the EM bound; ``loglike_``: factor analysis's log-likelihood); optimizers
    return it in ``result.history``. An estimator that solves several problems (one-vs-one SVMs,
    a one-vs-rest GAM) records one curve each, drawn as one line each.

    Parameters
    ----------
    curves : list of array-like
        One 1-D history per run or sub-problem; iteration i (from 1) of curve c is ``curves[c][i - 1]``.
    ylabel : str, default="loss"
        What the curves measure.
    labels : list of str, default=None
        Legend entries, one per curve; None shows no legend.
    name : str, default=None
        Title of the plot (e.g. the estimator's name).

    Attributes
    ----------
    lines_ : list of matplotlib Line2D
        One line per curve.
    line_ : matplotlib Line2D or None
        The line when there is a single curve.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> from lucidml.cluster import KMeans
    >>> from lucidml.plot import ConvergenceDisplay
    >>> X = np.array([[0.0], [0.5], [4.0], [4.5], [9.0], [9.5]])
    >>> model = KMeans(n_clusters=3, n_init=1, random_state=0).fit(X)
    >>> display = ConvergenceDisplay.from_estimator(model)
    >>> bool(np.array_equal(display.line_.get_ydata(), model.loss_curve_))
    True
    """

    def __init__(self, curves, *, ylabel="loss", labels=None, name=None):
        self.curves = curves
        self.ylabel = ylabel
        self.labels = labels
        self.name = name

    def plot(self, ax=None, *, logy=False, **kwargs):
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        logy : bool, default=False
            Log scale on the objective axis (for curves that fall over orders of magnitude).
        **kwargs
            Passed to ``Axes.plot`` for every line.

        Returns
        -------
        self : ConvergenceDisplay
        """
        curves = _check_curves(self.curves)
        if self.labels is not None and len(self.labels) != len(curves):
            raise ValueError(f"labels has {len(self.labels)} entries for {len(curves)} curves.")
        ax = axes_or_new(ax)
        self.lines_ = []
        for c, curve in enumerate(curves):
            label = None if self.labels is None else self.labels[c]
            (line,) = ax.plot(np.arange(1, curve.size + 1), curve, label=label, **kwargs)
            self.lines_.append(line)
        self.line_ = self.lines_[0] if len(self.lines_) == 1 else None
        ax.set_xlabel("iteration")
        ax.set_ylabel(self.ylabel)
        if logy:
            ax.set_yscale("log")
        if self.labels is not None:
            ax.legend()
        return finish_plot(self, ax)

    @classmethod
    def from_estimator(cls, estimator, *, ax=None, logy=False, **kwargs):
        """Draw the history a fitted iterative estimator recorded.

        Parameters
        ----------
        estimator : fitted estimator
            One with ``loss_curve_``, ``lower_bounds_``, ``loglike_`` or ``train_score_``.
        ax, logy, **kwargs
            As in :meth:`plot`.

        Returns
        -------
        ConvergenceDisplay

        Raises
        ------
        ValueError
            When the estimator is not fitted, or records no history (it is not iterative, e.g. a
            decision tree).
        """
        check_fitted_estimator(estimator, cls.__name__)
        for attribute, ylabel in _HISTORIES:
            history = getattr(estimator, attribute, None)
            if history is not None:
                curves = _as_curves(history)
                labels = [f"problem {c}" for c in range(len(curves))] if len(curves) > 1 else None
                display = cls(curves, ylabel=ylabel, labels=labels, name=type(estimator).__name__)
                return display.plot(ax=ax, logy=logy, **kwargs)
        names = ", ".join(attribute for attribute, _ in _HISTORIES)
        raise ValueError(f"{type(estimator).__name__} records no convergence history (none of {names}); "
                        "ConvergenceDisplay needs an iterative estimator.")

    @classmethod
    def from_result(cls, result, *, ax=None, logy=False, **kwargs):
        """Draw the history of a lucidml optimizer, QP solver, planner or PageRank result.

        ``result.history`` is either a list of dicts (optimizers: f per iteration under ``"f"``;
        QP solvers: the objective under ``"fun"``) or a list of numbers (value iteration:
        ‖ΔV‖∞ per sweep; PageRank: ‖Δr‖₁ per iteration).

        Parameters
        ----------
        result : OptimizeResult, QPResult, PlanningResult or PageRankResult
        ax, logy, **kwargs
            As in :meth:`plot`.

        Returns
        -------
        ConvergenceDisplay

        Examples
        --------
        >>> import matplotlib; matplotlib.use("Agg")
        >>> import numpy as np
        >>> from lucidml.optim import gradient_descent
        >>> f, grad = (lambda x: x @ x), (lambda x: 2 * x)
        >>> result = gradient_descent(f, np.array([3.0, -1.0]), grad, step="fixed", lr=0.1)
        >>> display = ConvergenceDisplay.from_result(result, logy=True)
        >>> display.line_.get_ydata()[:2].round(2)      # f shrinks by (1 − 2·0.1)² a step
        array([6.4, 4.1])
        """
        history = getattr(result, "history", None)
        if history is None:
            raise TypeError(f"ConvergenceDisplay.from_result needs a result with a history; "
                            f"{type(result).__name__} has none.")
        if len(history) == 0:
            raise ValueError("The result's history is empty: no iteration was recorded.")
        if isinstance(history[0], dict):
            key = "f" if "f" in history[0] else "fun"
            if key not in history[0]:
                raise ValueError(f"The history entries hold no objective ('f' or 'fun'); keys: {sorted(history[0])}.")
            curve, ylabel = [entry[key] for entry in history], "objective"
        else:
            curve, ylabel = history, "change per iteration"
        return cls([curve], ylabel=ylabel, name=type(result).__name__).plot(ax=ax, logy=logy, **kwargs)


def _as_curves(history):
    """One curve, or a list of curves (one per sub-problem), as a list of 1-D arrays."""
    if len(history) > 0 and np.ndim(history[0]) == 1:
        return [np.asarray(curve, dtype=np.float64) for curve in history]
    return [np.asarray(history, dtype=np.float64)]


def _check_curves(curves):
    if len(curves) == 0:
        raise ValueError("ConvergenceDisplay needs at least one curve.")
    return [nonempty_1d(curve, "Every curve (one value per iteration)") for curve in curves]
