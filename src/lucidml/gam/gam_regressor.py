"""Additive regression by backfitting."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, check_sample_weight, validate_params
from ..utils.numerics import in_power_of_two_units
from ..utils.validation import check_fit_data, check_magnitude, check_predict_data
from ._smoothers import check_spline_spreads, fit_component, group_by_value


class GAMRegressor(RegressorMixin, BaseEstimator):
    """Generalized additive model for regression, fitted by backfitting.

    The model is y = α + Σⱼ fⱼ(xⱼ) + ε with every component centred, Σᵢ sᵢ fⱼ(xᵢⱼ) = 0
    (sᵢ = sample weight), so that α = ȳ is the maximum-likelihood intercept. Backfitting
    (seeds: 000 §7.2–7.3, Algorithm 7) starts from fⱼ = 0 and sweeps over the features:

        zᵢ = yᵢ − α − Σ_{k≠j} f_k(xᵢₖ)          (partial residual)
        fⱼ ← Sⱼ(xⱼ, z), then re-centred,

    until the fitted components change by at most ``tol`` relatively,
    ‖F_new − F_old‖ ≤ tol·‖F_old‖ (F = the n×d matrix of fⱼ(xᵢⱼ)), or ``max_iter`` sweeps.
    The notes' code (§7.9.2) also subtracts fⱼ itself from z and skips the last feature after
    the first sweep; this is Algorithm 7 as written.

    The smoother Sⱼ works on the unique values of xⱼ, with z averaged over tied samples and the
    group weights Wᵤ = Σ sᵢ as weights (the notes' rounding to one decimal is not used):

    - ``"spline"``: scipy's ``UnivariateSpline`` of degree k = min(#unique − 1, 3) with residual
      budget Σᵤ Wᵤ (z̄ᵤ − g(u))² ≤ s, s = ``smoothing`` · #unique · σ̂², where σ̂² is the noise
      variance of z estimated from differences of neighbouring group means (Rice 1984). So
      ``smoothing=1`` asks the spline to leave about the noise, smaller values follow the data
      more closely (0 interpolates), larger ones smooth more. FITPACK re-chooses its knots for
      every target, which can make backfitting cycle; so knots are searched during the first 5
      sweeps only, after which each spline keeps its knots and the penalty weight that met s
      then (a fixed linear smoother, for which backfitting converges).
    - ``"linear"``: a weighted least-squares line; the GAM is then ordinary least squares.
    - ``"loess"``: local linear regression with tricube weights over the ``span`` fraction of
      nearest unique values.

    Prediction clamps each xⱼ to its training range [min, max] before evaluating fⱼ.

    Parameters
    ----------
    smoother : {"spline", "linear", "loess"}, default="spline"
        The one-dimensional smoother Sⱼ used for every feature.
    smoothing : float, default=1.0
        Spline residual budget in units of the estimated noise (see above). Only ``"spline"``.
    span : float, default=0.3
        Fraction of the unique values in each LOESS neighbourhood. Only ``"loess"``.
    max_iter : int, default=100
        Backfitting sweeps at most (the notes use 100).
    tol : float, default=1e-4
        Relative change of the fitted components at which backfitting stops.
    verbose : int, default=0
        1 or more prints ``Iteration t, loss = …`` after every backfitting sweep (the weighted
        mean squared residual, as in ``loss_curve_``) and how the fit stopped, on standard output;
        0 prints nothing.

    Attributes
    ----------
    intercept_ : float
        α, the (weighted) mean of y.
    components_ : list of callables
        fⱼ for each feature: ``components_[j](x)`` evaluates the centred component on values of xⱼ.
    n_iter_ : int
        Backfitting sweeps run.
    loss_curve_ : ndarray of shape (n_iter_,)
        Weighted mean squared residual after each sweep.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.gam.gam_regressor import GAMRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-2, 2, size=(300, 2))
    >>> y = np.sin(X[:, 0]) + X[:, 1] ** 2
    >>> gam = GAMRegressor().fit(X, y)
    >>> bool(gam.score(X, y) > 0.99)
    True
    >>> float(np.round(gam.partial_dependence([[0.0, 0.0]], feature=1)[0] - gam.partial_dependence([[0.0, 1.0]], feature=1)[0], 1))
    -1.0
    """

    _parameter_constraints = {
        "smoother": [Options({"spline", "linear", "loess"})],
        "smoothing": [Interval(Real, 0, None, closed="left")],
        "span": [Interval(Real, 0, 1, closed="right")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "verbose": VERBOSE,
    }

    def __init__(self, *, smoother="spline", smoothing=1.0, span=0.3, max_iter=100, tol=1e-4, verbose=0):
        self.smoother = smoother
        self.smoothing = smoothing
        self.span = span
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Fit α and the components fⱼ to X (n_samples, n_features) and y (n_samples,)."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, y_numeric=True)
        check_magnitude(X, self)  # the spline bases' cubes and normal equations overflow beyond it
        check_spline_spreads(X, self)  # and their derivatives below it
        sw = check_sample_weight(sample_weight, X.shape[0])
        # In units of a power of two near the largest weight (exact; the fit depends only on the ratios):
        # the smoothers' weighted sums overflowed for weights near 1e300 ("returned NaN or infinity").
        sw = np.ones(X.shape[0]) if sw is None else in_power_of_two_units(sw)
        self.intercept_ = float(np.dot(sw, y) / sw.sum())
        groups = [group_by_value(X[:, j]) for j in range(X.shape[1])]
        self.components_, losses, converged = _backfit(
            groups, y - self.intercept_, sw, self._smoother_params(), self.max_iter, self.tol,
            IterationLog(self.verbose),
        )
        self.loss_curve_ = np.array(losses)
        self.n_iter_ = len(losses)
        if not converged:
            warnings.warn(f"GAMRegressor: backfitting stopped at max_iter={self.max_iter} before the components "
                          f"changed by less than tol={self.tol}.", ConvergenceWarning, stacklevel=2)
        return self

    def _smoother_params(self):
        return {"kind": self.smoother, "smoothing": self.smoothing, "span": self.span, "dispersion": None}

    def partial_dependence(self, X, feature=None):
        """The centred components at X: fⱼ(xⱼ) for ``feature=j``, or the (n_samples, n_features) matrix of all."""
        check_is_fitted(self)
        X = check_predict_data(self, X)
        if feature is not None:
            return self.components_[feature](X[:, feature])
        return np.column_stack([f(X[:, j]) for j, f in enumerate(self.components_)])

    def predict(self, X):
        """α + Σⱼ fⱼ(xⱼ), with each xⱼ clamped to its training range."""
        components = self.partial_dependence(X)  # first: it checks that the model is fitted
        return self.intercept_ + components.sum(axis=1)


# FITPACK places a spline's knots and its smoothing weight anew for every target, and the knot
# count can flip back and forth between sweeps, so backfitting with adaptive splines may cycle
# instead of converging. They are therefore searched during the first sweeps only; afterwards each
# spline keeps its knots and penalty, a fixed linear smoother for which backfitting converges (a
# plain polynomial too: refitted by FITPACK, it could gain knots at any later sweep).
KNOT_SEARCH_SWEEPS = 5


def backfit_sweep(groups, target, w, F, components, params, center_weight=None, freeze_knots=False):
    """One Gauss–Seidel sweep of Algorithm 7 over the features, updating F and ``components`` in place.

    F[:, j] holds fⱼ at the training samples. Each fⱼ is refitted to its partial residual
    target − Σ_{k≠j} f_k with weights w, then centred with ``center_weight`` (default w).
    ``freeze_knots`` refits splines on their previous knots (see :data:`KNOT_SEARCH_SWEEPS`).
    """
    residual = target - F.sum(axis=1)
    for j, (values, inverse) in enumerate(groups):
        z = residual + F[:, j]
        components[j] = fit_component(params["kind"], values, inverse, z, w, smoothing=params["smoothing"],
                                      span=params["span"], dispersion=params["dispersion"],
                                      center_weight=center_weight, previous=components[j] if freeze_knots else None)
        F[:, j] = components[j](values)[inverse]
        if not np.all(np.isfinite(F[:, j])):
            raise ValueError(f"The smoother of feature {j} returned NaN or infinity: the feature values or sample "
                             "weights are too extreme in scale for it (e.g. subnormal values, weights near "
                             "1e300 or spanning many orders of magnitude). Rescale them.")
        residual = z - F[:, j]
    return residual


def _backfit(groups, target, w, params, max_iter, tol, log=None):
    """Backfit centred components to ``target`` (= y − α) until they stop changing; returns (components, losses, converged).
    ``log`` (an ``IterationLog``) prints each sweep's loss."""
    log = IterationLog(0) if log is None else log
    F = np.zeros((len(target), len(groups)))
    components = [None] * len(groups)
    losses = []
    for sweep in range(max_iter):
        F_old = F.copy()
        residual = backfit_sweep(groups, target, w, F, components, params, freeze_knots=sweep >= KNOT_SEARCH_SWEEPS)
        losses.append(float(np.dot(w, residual**2) / w.sum()))
        log.iteration(sweep + 1, loss=losses[-1])
        change = np.linalg.norm(F - F_old)
        scale = max(np.linalg.norm(F_old), np.finfo(np.float64).tiny)
        if change <= tol * scale:
            log.converged(sweep + 1, change / scale, tol, name="relative change")
            return components, losses, True
    log.stopped(max_iter, "max_iter reached")
    return components, losses, False
