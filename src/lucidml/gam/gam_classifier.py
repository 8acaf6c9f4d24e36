"""Additive logistic regression by local scoring."""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.interpolate import BSpline
from scipy.special import expit, xlogy
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, check_sample_weight, validate_params
from ..utils.numerics import power_of_two_unit
from ..utils.validation import check_classification_targets, check_fit_data, check_magnitude, check_predict_data
from ._smoothers import _Linear, _Spline, check_spline_spreads, group_by_value
from .gam_regressor import KNOT_SEARCH_SWEEPS, backfit_sweep

_MAX_HALVINGS = 10

# μ is clipped to [ε, 1 − ε] so that the working weights μ(1 − μ) never vanish.
_EPS = 1e-8


class GAMClassifier(ClassifierMixin, BaseEstimator):
    """Generalized additive model, logit link, fitted by local scoring (one-vs-rest for K > 2 classes).

    The model is logit p(y=1 | x) = η = α + Σⱼ fⱼ(xⱼ) with centred components. Local scoring
    (seeds: 000 §7.4, Algorithm 8) starts from α = logit ȳ and fⱼ = 0 and repeats

        η = α + Σⱼ fⱼ(xⱼ),  μ = σ(η)                       (clipped to [ε, 1 − ε])
        z = η + (y − μ)/(μ(1 − μ)),  w = μ(1 − μ)          (one Newton step per sample)
        α = Σ w z / Σ w, the fⱼ centred with weights w     (``alpha_update="weighted"``)
        one sweep of weighted backfitting of z − α:  fⱼ ← Sⱼ(xⱼ, z − α − Σ_{k≠j} f_k; w)

    until the deviance D = −2 Σ [y log μ + (1 − y) log(1 − μ)] changes by at most
    ``tol``·(|D| + 0.1), or ``max_iter`` iterations. With the components re-centred under each
    iteration's weights (their means moved into α), every step of the sweep minimizes the Newton
    step's quadratic Σ w (z − η)² (plus the penalties) exactly (Hastie, Tibshirani & Friedman,
    Algorithm 9.2), so an iteration is a descent step of penalized IRLS; a step that raises the
    penalized deviance D + Σⱼ λⱼ∫fⱼ''² is halved. ``alpha_update="mean"`` is the notes' rule
    instead: α = the mean of z, the components centred with the sample weights. That mean is not
    the Newton step's intercept: a sample fitted near μ = 0 or 1 on the wrong side moves it by
    about 1/(nμ), so local scoring can settle above the smallest deviance or take many iterations
    (rises of D below a quarter are then let through, not halved). The notes' code (§7.9.3) also
    restarts η from logit ȳ every pass and drops the last feature; this uses the current
    predictor over all features.

    The smoothers are those of :class:`~lucidml.gam.gam_regressor.GAMRegressor`, except how the
    spline chooses its smoothness. The working response has the known variance 1/w (binomial
    dispersion 1), so each spline is a cubic smoothing spline, penalty λ∫f''², on up to 20 knots
    at quantiles of its feature (one per four unique values), whose λ minimizes Mallows' C_p =
    Σ w (z − f)² + 2·``smoothing``·df(f) (the UBRE of penalized IRLS). λ is chosen again at each
    of the first sweeps, then frozen, so that local scoring converges. (The regressor's residual
    budget, FITPACK's rule, is no rule here: the working residual of a sample fitted near μ = 0 or
    1 on the wrong side is near 1/μ, which the budget chased with a knot at every value: at 1,000
    rows the fit interpolated, never converged and took a minute.)

    Data that the additive model separates have no finite maximum-likelihood fit along the
    straight lines the penalty leaves free: D then falls towards 0 and stops the fit, or the fit
    ends at ``max_iter`` with a ConvergenceWarning, as an unpenalized logistic regression would.

    Parameters
    ----------
    smoother : {"spline", "linear", "loess"}, default="spline"
        The one-dimensional smoother used for every feature.
    smoothing : float, default=1.0
        The weight γ of the degrees of freedom in the splines' C_p (see above): larger is
        smoother, 0 leaves the splines unpenalized. Only ``"spline"``.
    span : float, default=0.3
        Fraction of the unique values in each LOESS neighbourhood. Only ``"loess"``.
    alpha_update : {"weighted", "mean"}, default="weighted"
        The intercept update: the Newton step's weighted intercept, or the notes' mean of z (see
        above; with the linear smoother, ``"mean"`` settles a little above logistic regression's
        deviance, ``"weighted"`` reaches it).
    max_iter : int, default=100
        Local-scoring iterations at most (the notes use 100).
    tol : float, default=1e-5
        Relative deviance change at which local scoring stops.
    verbose : int, default=0
        1 or more prints ``Iteration t, deviance = …`` after every local-scoring iteration (as in
        ``loss_curve_``) and how the fit stopped, on standard output, after a ``Problem class k vs
        rest`` line per class when there are more than two; 0 prints nothing.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels; with two, ``classes_[1]`` is the positive class.
    intercept_ : float, or ndarray of shape (n_classes,) for K > 2 classes
        α (one per one-vs-rest model).
    components_ : list of callables, or one such list per class for K > 2 classes
        fⱼ for each feature, on the logit scale.
    n_iter_ : int
        Local-scoring iterations run (the most over the one-vs-rest models).
    loss_curve_ : ndarray of shape (n_iter_,), or a list of them for K > 2 classes
        The deviance after each iteration.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from lucidml.gam.gam_classifier import GAMClassifier
    >>> X, y = make_moons(200, noise=0.2, random_state=0)
    >>> clf = GAMClassifier().fit(X, y)
    >>> bool(clf.score(X, y) > 0.9)
    True
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    """

    _parameter_constraints = {
        "smoother": [Options({"spline", "linear", "loess"})],
        "smoothing": [Interval(Real, 0, None, closed="left")],
        "span": [Interval(Real, 0, 1, closed="right")],
        "alpha_update": [Options({"mean", "weighted"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "verbose": VERBOSE,
    }

    def __init__(self, *, smoother="spline", smoothing=1.0, span=0.3, alpha_update="weighted", max_iter=100, tol=1e-5,
                 verbose=0):
        self.smoother = smoother
        self.smoothing = smoothing
        self.span = span
        self.alpha_update = alpha_update
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Fit α and the components fⱼ to X (n_samples, n_features) and class labels y.

        Two classes give one model of the log-odds of ``classes_[1]``; K > 2 classes give K
        one-vs-rest models, one per class (local scoring itself is binary). Sample weights count
        as repeated rows: weights of 2 everywhere fit the data twice over, and the splines' C_p,
        given twice the evidence, smooths less.
        """
        validate_params(self)
        X, y = check_fit_data(self, X, y)
        check_magnitude(X, self)  # the spline bases' cubes and normal equations overflow beyond it
        check_spline_spreads(X, self)  # and their derivatives below it
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError("GAMClassifier needs at least 2 classes in y; got 1 class.")
        sw = check_sample_weight(sample_weight, X.shape[0])
        sw = np.ones(X.shape[0]) if sw is None else sw
        groups = [group_by_value(X[:, j]) for j in range(X.shape[1])]
        params = {"kind": self.smoother, "smoothing": self.smoothing, "span": self.span, "dispersion": 1.0}
        positives = [1] if len(self.classes_) == 2 else range(len(self.classes_))
        log = IterationLog(self.verbose)
        fits = []
        for k in positives:
            if len(positives) > 1:
                log.summary(f"Problem class {self.classes_[k]} vs rest")
            fits.append(_local_scoring(groups, (y_index == k).astype(np.float64), sw, params,
                                       self.alpha_update == "weighted", self.max_iter, self.tol, log))
        if len(fits) == 1:
            self.intercept_, self.components_, deviances, converged = fits[0]
            self.loss_curve_ = np.array(deviances)
            self.n_iter_ = len(deviances)
        else:  # one row per class, as in scikit-learn's one-vs-rest linear models
            self.intercept_ = np.array([fit[0] for fit in fits])
            self.components_ = [fit[1] for fit in fits]
            self.loss_curve_ = [np.array(fit[2]) for fit in fits]
            self.n_iter_ = max(len(fit[2]) for fit in fits)
            converged = all(fit[3] for fit in fits)
        if not converged:
            warnings.warn(_convergence_message(fits, self.max_iter, self.tol), ConvergenceWarning, stacklevel=2)
        return self

    def decision_function(self, X):
        """η = α + Σⱼ fⱼ(xⱼ): the log-odds of ``classes_[1]``, or one column per class (one-vs-rest)."""
        check_is_fitted(self)
        X = check_predict_data(self, X)
        if len(self.classes_) == 2:
            return _additive(self.intercept_, self.components_, X)
        return np.column_stack([_additive(a, fs, X) for a, fs in zip(self.intercept_, self.components_)])

    def predict_proba(self, X):
        """[1 − σ(η), σ(η)] per sample; for K > 2 classes the one-vs-rest σ(ηₖ), normalised to sum 1."""
        eta = self.decision_function(X)
        if eta.ndim == 1:
            p = expit(eta)
            return np.column_stack([1.0 - p, p])
        # σ(ηₖ) / Σₗ σ(ηₗ) in log space: every σ may underflow to 0 where the classes all disagree
        log_p = -np.logaddexp(0.0, -eta)
        p = np.exp(log_p - log_p.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X):
        """``classes_[1]`` where η ≥ 0 (sign(0) = +1), else ``classes_[0]``; for K > 2 the largest ηₖ."""
        eta = self.decision_function(X)  # first: it checks that the model is fitted
        if eta.ndim == 1:
            return self.classes_[(eta >= 0).astype(np.intp)]
        return self.classes_[np.argmax(eta, axis=1)]


def _additive(intercept, components, X):
    return intercept + sum(f(X[:, j]) for j, f in enumerate(components))


def _convergence_message(fits, max_iter, tol):
    """The ConvergenceWarning's text; it names separation where every unconverged problem's deviance
    was still falling at each of its last five iterations (breast cancer: 247 → 20 in 300, the
    training classes being linearly separable)."""
    curves = [np.asarray(fit[2]) for fit in fits if not fit[3]]
    falling = all(curve.size > 5 and np.all(np.diff(curve[-6:]) < 0) for curve in curves)
    hint = (" The deviance was still falling: where the training classes are (nearly) separable, no finite "
            "fit exists and more iterations only sharpen the components." if falling else "")
    return (f"GAMClassifier: local scoring stopped at max_iter={max_iter} before the deviance changed by less "
            f"than tol={tol}; increase max_iter.{hint}")


def _local_scoring(groups, y, sw, params, weighted_alpha, max_iter, tol, log=None):
    """Algorithm 8 on validated arrays; returns (α, components, deviances, converged).
    ``log`` (an ``IterationLog``) prints each iteration's deviance."""
    log = IterationLog(0) if log is None else log
    # The weights in units of a power of 2 (exact): sample weights near 1e300 would overflow the
    # splines' least squares. The working response's variance per unit weight, 1/unit, keeps the
    # splines' C_p and so the fit what it was; the deviances are reported in the user's units.
    unit = power_of_two_unit(sw)
    sw = sw / unit
    params = {**params, "dispersion": params["dispersion"] / unit}
    p = np.clip(np.dot(sw, y) / sw.sum(), _EPS, 1 - _EPS)
    alpha = float(np.log(p / (1 - p)))
    # The stopping rule's safeguard, R's 0.1 in |ΔD| / (|D| + 0.1), as a share of the intercept-only
    # deviance (about 0.1 for a few hundred samples of weight 1): the same for weights times a
    # constant (0.1 in the user's units stopped weights of 1e-6 after 7 iterations, 1e-300 after
    # one) and for integer weights and the rows they repeat.
    safeguard = 1e-4 * _deviance(y, np.full(len(y), alpha), sw)
    F = np.zeros((len(y), len(groups)))
    components = [None] * len(groups)
    eta = np.full(len(y), alpha)
    deviances = []
    deviance_old = objective_old = _deviance(y, eta, sw)
    for it in range(max_iter):
        mu = np.clip(expit(eta), _EPS, 1 - _EPS)
        v = mu * (1 - mu)
        z = eta + (y - mu) / v
        w = sw * v
        F_old, components_old, alpha_old = F.copy(), list(components), alpha  # where a halving goes back to
        if weighted_alpha:
            # The components were centred under the previous weights: centred under these, with
            # their means moved into α, each step of the sweep below is an exact minimization of
            # the Newton step's quadratic Σ w (z − η)² (+ penalties), and the sweep descends it.
            # (Left uncentred, each refit dropped a constant that α did not take back.)
            F = F - (w @ F) / w.sum()
            alpha = float(np.dot(w, z) / w.sum())
        else:
            alpha = float(np.dot(sw, z) / sw.sum())
        backfit_sweep(groups, z - alpha, w, F, components, params, center_weight=None if weighted_alpha else sw,
                      freeze_knots=it >= KNOT_SEARCH_SWEEPS)
        eta_new = alpha + F.sum(axis=1)
        deviance = _deviance(y, eta_new, sw)
        # Step halving, as in IRLS for GLMs: a step that raises the penalized deviance D + Σⱼ λⱼ∫fⱼ''²
        # is shortened. Until the iteration after the splines are frozen, their λ (and at the
        # freeze the penalty itself) change from one iteration to the next: there D alone is
        # watched, and rises below 1% go through. The notes' intercept makes no descent step and
        # its fixed point lies above the smallest D: only a rise of D by a quarter is shortened.
        fixed = params["kind"] != "spline" or it > KNOT_SEARCH_SWEEPS
        if weighted_alpha:
            slack, reference = (1e-9, objective_old) if fixed else (0.01, deviance_old)
        else:
            slack, reference = 0.25, deviance_old
        forced = False
        for halving in range(_MAX_HALVINGS + 1):
            if it == 0 or (deviance + _roughness(components) if fixed else deviance) <= (1 + slack) * reference:
                break
            if halving == _MAX_HALVINGS:
                forced = True  # (a step 1/1024 long: its small change says nothing of convergence)
                break
            F = (F + F_old) / 2
            alpha = (alpha + alpha_old) / 2
            eta_new = (eta_new + eta) / 2
            deviance = _deviance(y, eta_new, sw)
            components = [_halfway(a, b) for a, b in zip(components, components_old)]
        eta, objective_old = eta_new, deviance + _roughness(components)
        deviances.append(deviance * unit)
        log.iteration(it + 1, deviance=deviances[-1])
        knots_settled = params["kind"] != "spline" or it >= KNOT_SEARCH_SWEEPS
        change = abs(deviance_old - deviance) / (abs(deviance) + safeguard)
        if knots_settled and change <= tol and not forced:
            log.converged(it + 1, change, tol, name="relative deviance change")
            return alpha, components, deviances, True
        deviance_old = deviance
    log.stopped(max_iter, "max_iter reached")
    return alpha, components, deviances, False


def _halfway(new, old):
    """(f_new + f_old)/2 as one component where both are of a kind that averages in its own terms
    (splines on the same knots: their coefficients; lines: slope and intercept), else a
    :class:`_Blend`. Averaging keeps a halved spline a spline, with its penalty."""
    if old is None:
        return new
    if type(new) is not type(old) or (new.lo, new.hi) != (old.lo, old.hi):
        return _Blend.halfway(new, old)
    if isinstance(new, _Spline) and isinstance(new.spline, BSpline) and isinstance(old.spline, BSpline) \
            and np.array_equal(new.t, old.t) and new.k == old.k:
        spline = BSpline(new.t, (new.spline.c + old.spline.c) / 2, new.k)
        mean = _Spline(spline, new.lo, new.hi, new.t, new.k, new.lam, new.penalty_root)
    elif isinstance(new, _Linear):
        mean = _Linear((new.slope + old.slope) / 2, (new.intercept + old.intercept) / 2, new.lo, new.hi)
    else:
        return _Blend.halfway(new, old)
    mean.shift = (new.shift + old.shift) / 2
    return mean


class _Blend:
    """A weighted sum Σ cₜ gₜ of fitted components: what step halving leaves, (f_new + f_old)/2.

    Kept as a flat list of distinct terms so that repeated halvings do not nest.
    """

    def __init__(self, terms):
        self.terms = terms  # list of (coefficient, component); the newest fit first

    @classmethod
    def halfway(cls, new, old):
        if old is None:
            return new
        merged = {}
        for c, g in cls._flat(new) + cls._flat(old):
            coef, _ = merged.get(id(g), (0.0, g))
            merged[id(g)] = (coef + c / 2, g)
        return cls([(c, g) for c, g in merged.values()])

    @staticmethod
    def _flat(f):
        return f.terms if isinstance(f, _Blend) else [(1.0, f)]

    def __call__(self, x):
        return sum(c * g(x) for c, g in self.terms)

    def __getattr__(self, name):  # a spline's knots and penalty carry over from the newest fit
        terms = self.__dict__.get("terms")
        # Unpickling probes an instance whose __dict__ is still empty (for __setstate__ and the like).
        if not terms or name.startswith("__"):
            raise AttributeError(name)
        return getattr(terms[0][1], name)


def _roughness(components):
    """Σⱼ λⱼ‖Dⱼ‖²: the smoothing penalty of the frozen spline components (0 for the others)."""
    return sum(f.roughness() for f in components if isinstance(f, _Spline))


def _deviance(y, eta, sw):
    """−2 Σ sᵢ [yᵢ log μᵢ + (1 − yᵢ) log(1 − μᵢ)] with μ clipped."""
    mu = np.clip(expit(eta), _EPS, 1 - _EPS)
    return float(-2 * np.dot(sw, xlogy(y, mu) + xlogy(1 - y, 1 - mu)))
