"""The expectation–maximization loop, written once for every latent-variable model of lucidml."""

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..utils import IterationLog, raise_if_cancelled

# A bound may fall by rounding (and, by a hair, where an M-step is regularized: reg_covar, a
# clipped probability, a floored noise variance); a larger fall means the EM step is wrong.
_DROP_TOLERANCE = 1e-6


class _BaseEM(BaseEstimator):
    """Expectation–maximization for a model p(x, z; θ) with latent z (seeds: 000 §13.2–13.3, 004 §14).

    By Jensen's inequality, for any distributions Qᵢ over zᵢ,

        ℓ(θ) = Σᵢ log Σ_z p(xᵢ, z; θ) ≥ Σᵢ Σ_z Qᵢ(z) log [p(xᵢ, z; θ) / Qᵢ(z)]  (the ELBO),

    with equality when Qᵢ(z) = p(z | xᵢ; θ). EM is coordinate ascent on the ELBO:

        E-step:  Qᵢ ← p(z | xᵢ; θ)            (the bound now touches ℓ at θ)
        M-step:  θ ← argmax_θ Σᵢ E_Qᵢ[log p(xᵢ, z; θ)]

    so ℓ never decreases. The bound recorded at iteration t is ℓ at the parameters the E-step
    of iteration t used (as scikit-learn's ``lower_bound_``); the run stops when it changes by
    less than ``tol`` or after ``max_iter`` iterations (a ``ConvergenceWarning``). With
    ``n_init`` > 1 the run ending at the highest bound is kept; with ``warm_start`` a second
    ``fit`` starts from the fitted model instead of a fresh initialization (when its shapes
    fit). A bound falling by more than rounding raises a ``RuntimeWarning``: it means the model
    is degenerate. (Not the first bound of a warm start: the previous fit's last bound may be of
    other data.)

    Subclasses supply the model through these hooks, all on validated arrays:

    ``_initialize(X, rng) -> params``
        A starting point.
    ``_e_step(X, params) -> (posterior, bound)``
        The posterior statistics of z (responsibilities for a mixture) and the bound at params.
    ``_m_step(X, posterior) -> params``
        The maximizer of the expected complete-data log-likelihood.
    ``_fitted_params(X) -> params``
        The fitted model as a starting point (for ``warm_start``).
    ``_warm_fits(X) -> bool``
        Whether the fitted model has the shapes a start on X needs (the same number of
        features and of components or factors): otherwise a warm start starts afresh.
    ``_set_fitted(params)``, ``_store_bounds(bounds)``
        Set the public fitted attributes.

    and read their ``max_iter``, ``tol`` and, where they have them, ``n_init``,
    ``random_state`` and ``warm_start`` parameters.
    """

    _convergence_message = "EM stopped at max_iter before the bound changed by less than tol."

    def _warm_fits(self, X):
        """Whether the fitted model is a start for X (subclasses compare its shapes with X's)."""
        return True
    _bound_name = "lower_bound"  # how ``verbose`` names the bound

    def _fit_em(self, X):
        """Run EM on the validated X ``n_init`` times; keep the best run's parameters."""
        rng = check_random_state(getattr(self, "random_state", None))
        warm = getattr(self, "warm_start", False) and hasattr(self, "converged_") and self._warm_fits(X)
        n_init = 1 if warm else getattr(self, "n_init", 1)
        best, best_final = None, -np.inf
        log = IterationLog(getattr(self, "verbose", 0))
        for init in range(n_init):
            log.start(init)
            start = self._fitted_params(X) if warm else self._initialize(X, rng)
            previous = self._em_last_bound if warm else -np.inf
            run = _em(X, start, self._e_step, self._m_step, self.max_iter, self.tol, previous, log, self._bound_name)
            final = run[1][-1] if run[1] else -np.inf
            if best is None or final > best_final:
                best, best_final = run, final
        params, bounds, converged, drop = best
        self._set_fitted(params)
        self._store_bounds(np.asarray(bounds, dtype=np.float64))
        self._em_last_bound = bounds[-1] if bounds else -np.inf
        self.n_iter_ = len(bounds)
        self.converged_ = converged
        if drop > 0:
            warnings.warn(f"The EM bound decreased by {drop:.3g} during the fit: the model is degenerate for "
                          f"this data (collapsing components or singular covariances).", RuntimeWarning,
                          stacklevel=3)
        if not converged and self.max_iter > 0:
            warnings.warn(self._convergence_message, ConvergenceWarning, stacklevel=3)
        return self


def _em(X, params, e_step, m_step, max_iter, tol, previous=-np.inf, log=None, name="lower_bound"):
    """One EM run from ``params``: (params, bounds, converged, largest drop of the bound beyond rounding).

    bounds[t] is the bound at the parameters of iteration t, before its M-step; the run has
    converged when |bounds[t] − bounds[t−1]| < tol (``previous`` stands for bounds[−1]).
    ``log`` (an ``IterationLog``) prints every iteration at verbose ≥ 2 and the end of the run.
    """
    log = IterationLog(0) if log is None else log
    every = log.verbose >= 2
    bounds, worst_drop = [], 0.0
    for _ in range(max_iter):
        raise_if_cancelled()  # Ctrl-C between iterations (utils._interrupt)
        posterior, bound = e_step(X, params)
        params = m_step(X, posterior)
        bounds.append(bound)
        if every:
            log.iteration(len(bounds), **{name: bound})
        change = bound - previous
        if change < -_DROP_TOLERANCE * (1.0 + abs(bound)) and len(bounds) > 1:
            worst_drop = max(worst_drop, -change)
        if abs(change) < tol:
            log.converged(len(bounds), abs(change), tol)
            return params, bounds, True, worst_drop
        previous = bound
    log.stopped(len(bounds), "max_iter reached")
    return params, bounds, False, worst_drop
