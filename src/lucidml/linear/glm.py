"""Generalized linear models fitted by IRLS, gradient descent or L-BFGS."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
)

from ..utils import VERBOSE, Interval, IterationLog, Options, check_sample_weight, validate_params
from ..utils.linalg import in_precision
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_fit_is_finite, check_predict_data, check_square_fits
from ._families import get_family_and_link
from ._glm_solvers import GLMProblem, first_order, irls

__all__ = ["GLMRegressor", "PoissonRegressor"]


_OBJECTIVE_DOC = """
    The fit minimizes scikit-learn's GLM objective (the negative log-likelihood per unit weight,
    up to a constant, plus a ridge penalty on w only):

        F(w, b) = 1/(2 Σᵢ sᵢ) Σᵢ sᵢ d(yᵢ, μᵢ) + (α/2) ‖w‖²,   μᵢ = inverse_link(w·xᵢ + b)

    with d the family's unit deviance and sᵢ the sample weights (1 by default). Below, sᵢ are
    rescaled to sum to 1, which absorbs the 1/Σs.

    ``solver="irls"`` (iteratively reweighted least squares; McCullagh & Nelder 1989) repeats

        z = η + (y − μ) g′(μ),   W = diag(sᵢ / (V(μᵢ) g′(μᵢ)²)),
        solve (XᵀWX + αI′) β_new = XᵀWz   by Cholesky (I′ = I without the intercept entry),
        β ← β + t (β_new − β),  t halved until F does not increase,

    which is Fisher scoring; for a canonical link it is Newton's method (seeds: 003 §2.4, 004 §6).
    ``"gd"`` (backtracking gradient descent) and ``"lbfgs"`` minimize the same F with the
    gradient ∇_w F = −Xᵀr + αw, ∂F/∂b = −Σ rᵢ, rᵢ = sᵢ (yᵢ − μᵢ) / (V(μᵢ) g′(μᵢ)) (X centred, see
    below), on the weights of the standardized features: u = Dβ with Dⱼ = √(σⱼ² + α), σⱼ feature
    j's spread. Every solver stops when ‖∇F‖∞ ≤ tol (scikit-learn's meaning of ``tol`` for GLMs;
    for "gd" and "lbfgs" ‖D⁻¹∇F‖∞, the gradient for the standardized features, which is ∇F on
    standardized data), when F stops changing (relative change ≤ 64ε, rounding level), or at
    ``max_iter`` with a ConvergenceWarning.
    The notes maximize the summed log-likelihood, e.g. Σ[yθᵀx − e^{θᵀx}] for Poisson (004 §6): the
    same optimum at α = 0.

    X may be a SciPy sparse matrix (CSR or CSC: the products stay sparse, and IRLS forms its
    d × d system from the sparse product; for many features prefer ``"lbfgs"``) and float32
    (products in float32, the solver in float64, ``coef_`` and predictions float32). With an
    intercept every solver works on the features centred at their weighted means (without a copy
    of X), so that a feature far from zero (a mean of 1e7, a spread of 1) is fitted as well as
    any other.
"""


class _BaseGLM(RegressorMixin, BaseEstimator):
    """The fit, predict and score shared by GLMRegressor and PoissonRegressor."""

    def _family_link_solver(self):
        raise NotImplementedError

    def _fit(self, X, y, sample_weight, offset):
        validate_params(self)
        family, link, solver = self._family_link_solver()
        # C order whatever the caller's layout: the products then sum in one order, and the solvers'
        # iterates (L-BFGS on a flat gamma or log-link deviance) do not drift apart with the layout.
        X, y = check_fit_data(self, X, y, accept_sparse=("csr", "csc"), float32=True, y_numeric=True, order="C")
        family.check_y(y)
        if solver == "irls":
            check_square_fits(self, X.shape[1] + 1, copies=2, what="Hessian and its factor")
        n_samples = X.shape[0]
        weights = check_sample_weight(sample_weight, n_samples)
        weights = np.full(n_samples, 1.0 / n_samples) if weights is None else weights / weights.sum()
        offset = _check_offset(offset, n_samples)
        unit, loss_unit = target_units(float(np.average(y, weights=weights)), family, link)
        # y in units c, the same fit: log μ = η + offset becomes log(μ/c) = η + offset − log c, and
        # F = c^k F′ for the penalty α/c^k (see target_units)
        problem = GLMProblem(X, y / unit, weights, offset - np.log(unit), family, link, self.alpha / loss_unit,
                             self.fit_intercept)

        if self.warm_start and getattr(self, "coef_", np.empty(0)).shape == (X.shape[1],):
            beta0 = problem.join(self.coef_, float(self.intercept_))  # in float64, as the solvers work
        else:
            beta0 = problem.initial_beta()
        fit = irls if solver == "irls" else first_order
        log = IterationLog(self.verbose)
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                beta, losses, converged = fit(problem, beta0, solver, self.max_iter, self.tol / max(loss_unit, 1.0),
                                              log)
        except np.linalg.LinAlgError:  # a Hessian XᵀWX of infinities: nothing to factor
            beta = np.full_like(beta0, np.nan)
        check_fit_is_finite(self, X, beta, solver=self.solver, y=y)
        if converged:
            log.converged(len(losses), reason=f"max |∇F| ≤ tol {self.tol:.3g} (standardized for gd and lbfgs), "
                                              "or F no longer changes")
        else:
            log.stopped(len(losses), "max_iter reached")
        coef, intercept = problem.split(beta)
        # The data's precision, as scikit-learn's (the solvers work in float64).
        self.coef_, self.intercept_ = in_precision(coef, X.dtype), in_precision(intercept, X.dtype)
        self.loss_curve_ = [loss * loss_unit for loss in losses]
        self.n_iter_ = len(losses)
        if not converged:
            warnings.warn(
                f"{type(self).__name__} (solver={self.solver!r}) stopped at max_iter={self.max_iter} before ‖∇F‖∞ fell "
                f"below tol={self.tol}; raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=3,
            )
        return self

    def _mean(self, X, offset):
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse=("csr", "csc"), dtype=FLOAT_DTYPES)
        eta = np.asarray(X @ self.coef_ + self.intercept_, dtype=np.float64)
        if offset is not None:
            eta = eta + _check_offset(offset, X.shape[0])
        # The mean in float64 (the links' clipping ranges are float64's), returned in X's precision, within
        # its range (the inverse link's μ ≤ 1e150 is infinite in float32).
        mu = self._family_link_solver()[1].inverse_link(eta)
        largest = np.finfo(X.dtype).max
        return np.clip(mu, -largest, largest).astype(X.dtype, copy=False)

    def score(self, X, y, sample_weight=None):
        """D², the fraction of deviance explained: 1 − Σ sᵢ d(yᵢ, μ̂ᵢ) / Σ sᵢ d(yᵢ, ȳ).

        ȳ is the (weighted) mean of y, the prediction of the intercept-only model; this is
        scikit-learn's GLM ``score``. Predictions are made without offset (unit exposure).
        """
        family, _, _ = self._family_link_solver()
        mu = self._mean(X, None)
        y = np.asarray(y, dtype=np.float64)
        check_consistent_length(mu, y)
        family.check_y(y)
        weights = check_sample_weight(sample_weight, y.shape[0])
        deviance = np.average(family.unit_deviance(y, mu), weights=weights)
        null = np.average(family.unit_deviance(y, np.average(y, weights=weights)), weights=weights)
        if null == 0:  # constant y: r2_score's convention
            return 1.0 if deviance == 0 else 0.0
        return float(1.0 - deviance / null)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            family = self._family_link_solver()[0].name
        except (ValueError, TypeError):  # invalid parameters: reported by fit
            family = None
        tags.target_tags.positive_only = family in ("poisson", "gamma")
        tags.input_tags.sparse = True
        return tags


class GLMRegressor(_BaseGLM):
    __doc__ = (
        """Generalized linear model: y | x from an exponential family, link(E[y | x]) = w·x + b.

    Families and links (``"canonical"`` picks the first): gaussian (identity, log), poisson (log),
    bernoulli (logit), gamma (inverse η = −1/μ, log) — see ``lucidml.linear._families``. The gamma's
    inverse link follows the canonical parameter θ = −1/μ; statsmodels' ``inverse_power`` link is
    η = 1/μ, which negates w and b. The gaussian family with the identity link is ridge regression
    with scikit-learn's ``Ridge(alpha=n·alpha)``; bernoulli is logistic regression with
    ``LogisticRegression(C=1/(n·alpha))``, since its half-deviance is the log-loss
    (seeds: 000 §3.1–3.2, 003 §4, 004 §6).
"""
        + _OBJECTIVE_DOC
        + """
    Parameters
    ----------
    family : {"gaussian", "poisson", "bernoulli", "gamma"}, default="gaussian"
        The distribution of y given x.
    link : {"canonical", "identity", "log", "logit", "inverse"}, default="canonical"
        link(μ) = η. A link the family does not allow raises a ValueError in ``fit``.
    alpha : float, default=1.0
        Strength α of the penalty (α/2)‖w‖², on scikit-learn's scale (mean half-deviance).
    fit_intercept : bool, default=True
        Whether to fit the unpenalized intercept b.
    solver : {"irls", "gd", "lbfgs"}, default="irls"
        IRLS (Newton for canonical links), gradient descent with backtracking, or L-BFGS.
    max_iter : int, default=100
        Maximum number of iterations.
    tol : float, default=1e-4
        Stop when ‖∇F‖∞ ≤ tol, for "gd" and "lbfgs" the gradient for the standardized features
        (see above), or when F no longer changes beyond rounding.
    warm_start : bool, default=False
        Start from the previous ``coef_`` and ``intercept_`` instead of w = 0, b = link(ȳ).
    verbose : int, default=0
        1 or more prints ``Iteration t, loss = …`` after every iteration (F, as in ``loss_curve_``)
        and how the fit stopped, on standard output; 0 prints nothing.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights w.
    intercept_ : float
        The intercept b (0.0 when ``fit_intercept=False``).
    n_iter_ : int
        Iterations performed.
    loss_curve_ : list of float
        F after each iteration.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear.glm import GLMRegressor
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([1.0, 2.0, 4.0, 9.0])
    >>> glm = GLMRegressor(family="gamma", link="log", alpha=0.0).fit(X, y)
    >>> glm.coef_.round(3), round(glm.intercept_, 3)
    (array([0.729]), -0.023)
    >>> glm.predict([[4.0]]).round(2)
    array([18.02])
    """
    )

    _parameter_constraints = {
        "family": [Options({"gaussian", "poisson", "bernoulli", "gamma"})],
        "link": [Options({"canonical", "identity", "log", "logit", "inverse"})],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "solver": [Options({"irls", "gd", "lbfgs"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        "verbose": VERBOSE,
    }

    def __init__(self, *, family="gaussian", link="canonical", alpha=1.0, fit_intercept=True, solver="irls",
                 max_iter=100, tol=1e-4, warm_start=False, verbose=0):
        self.family = family
        self.link = link
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.verbose = verbose

    def _family_link_solver(self):
        return (*get_family_and_link(self.family, self.link), self.solver)

    def fit(self, X, y, sample_weight=None, offset=None):
        """Fit the GLM; ``offset`` (n_samples,) is added to η (for a log link: log of the exposure)."""
        return self._fit(X, y, sample_weight, offset)

    def predict(self, X, offset=None):
        """The mean μ = inverse_link(X·w + b + offset)."""
        return self._mean(X, offset)


class PoissonRegressor(_BaseGLM):
    __doc__ = (
        """Poisson regression: counts y with log E[y | x] = w·x + b, optionally per unit of exposure.

    The GLMRegressor with ``family="poisson"`` and its canonical log link (seeds: 004 §6, 003 §4.1).
    The log-likelihood Σ[y θᵀx − e^{θᵀx}] has gradient Σ(y − μ)x and Hessian −XᵀSX with S = diag μ,
    so IRLS (W = diag(sμ), no step halving needed in practice) is Newton's method: ``"newton"``.

    With an exposure tᵢ > 0 (time at risk, population, area) the model is a rate model,
    μᵢ = tᵢ · exp(w·xᵢ + b): log tᵢ enters η as a fixed offset. Fitting counts with exposure t
    gives the same w, b as fitting the rates y/t with sample weights t (and alpha divided by the
    mean exposure, as the objective is normalized by the total weight).
"""
        + _OBJECTIVE_DOC
        + """
    Parameters
    ----------
    alpha : float, default=1.0
        Strength α of the penalty (α/2)‖w‖², on scikit-learn's scale (mean half-deviance).
    fit_intercept : bool, default=True
        Whether to fit the unpenalized intercept b.
    solver : {"newton", "gd", "lbfgs"}, default="newton"
        Newton's method (= IRLS), gradient descent with backtracking, or L-BFGS.
    max_iter : int, default=100
        Maximum number of iterations.
    tol : float, default=1e-4
        Stop when ‖∇F‖∞ ≤ tol, for "gd" and "lbfgs" the gradient for the standardized features
        (see above), or when F no longer changes beyond rounding.
    warm_start : bool, default=False
        Start from the previous ``coef_`` and ``intercept_`` instead of w = 0, b = log ȳ.
    verbose : int, default=0
        1 or more prints ``Iteration t, loss = …`` after every iteration (F, as in ``loss_curve_``)
        and how the fit stopped, on standard output; 0 prints nothing.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights w.
    intercept_ : float
        The intercept b (0.0 when ``fit_intercept=False``).
    n_iter_ : int
        Iterations performed.
    loss_curve_ : list of float
        F after each iteration.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear.glm import PoissonRegressor
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([1, 2, 4, 7])
    >>> reg = PoissonRegressor(alpha=0.0).fit(X, y)
    >>> reg.coef_.round(3), round(reg.intercept_, 3)
    (array([0.634]), 0.063)
    >>> reg.predict([[1.0]], exposure=[2.0]).round(2)
    array([4.02])
    """
    )

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "solver": [Options({"newton", "gd", "lbfgs"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        "verbose": VERBOSE,
    }

    def __init__(self, *, alpha=1.0, fit_intercept=True, solver="newton", max_iter=100, tol=1e-4, warm_start=False,
                 verbose=0):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.verbose = verbose

    def _family_link_solver(self):
        return (*get_family_and_link("poisson", "log"), "irls" if self.solver == "newton" else self.solver)

    def fit(self, X, y, sample_weight=None, exposure=None):
        """Fit the counts y; ``exposure`` (n_samples,) > 0 makes it a model of the rate y/exposure."""
        return self._fit(X, y, sample_weight, _log_exposure(exposure))

    def predict(self, X, exposure=None):
        """The expected count exposure · exp(X·w + b) (exposure 1 when None: the rate)."""
        return self._mean(X, _log_exposure(exposure))


# Targets whose weighted mean lies outside [1/_TARGET_RANGE, _TARGET_RANGE] are fitted in units of a
# power of two near that mean (log link only: there the units go into the offset, and β is the same).
_TARGET_RANGE = 2.0**10


def target_units(mean, family, link):
    """(c, cᵏ): c = 1, or the power of two nearest y's (weighted) ``mean`` when that mean is far
    from 1 and the link is the log, and the factor cᵏ by which the deviance scales with it.

    The change-of-F test is absolute below F = 1 and η is clipped at ±300: a Poisson fit of rates
    near 1e-15 stopped after its first step (the mean prediction 15% off), and means near 1e200
    were out of reach. In units c the solvers see F′ = F/cᵏ; the caller divides ``tol`` by cᵏ
    when that is above 1, so that ‖∇F‖∞ ≤ tol keeps scikit-learn's meaning in y's own units."""
    if link.name != "log" or family.deviance_degree is None or not mean > 0 or \
            1.0 / _TARGET_RANGE <= mean <= _TARGET_RANGE:
        return 1.0, 1.0
    unit = float(np.ldexp(1.0, int(np.round(np.log2(mean)))))
    return unit, unit**family.deviance_degree


def _check_offset(offset, n_samples):
    if offset is None:
        return np.zeros(n_samples)
    offset = np.asarray(offset, dtype=np.float64)
    if offset.shape != (n_samples,):
        raise ValueError(f"offset/exposure must have one entry per sample ({n_samples}); got shape {offset.shape}.")
    if not np.all(np.isfinite(offset)):
        raise ValueError("offset contains NaN or infinity.")
    return offset


def _log_exposure(exposure):
    if exposure is None:
        return None
    exposure = np.asarray(exposure, dtype=np.float64)
    if not np.all(exposure > 0) or not np.all(np.isfinite(exposure)):
        raise ValueError("exposure must be positive and finite.")
    return np.log(exposure)

