"""Poisson regression on a Dask array: the GLM objective summed over the chunks, by L-BFGS."""

import warnings

import dask.array as da
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..linear import PoissonRegressor as _LocalPoissonRegressor
from ..linear._glm_solvers import GLMProblem, first_order
from ..linear.glm import target_units
from ..optim.scaling import linear_model_scales
from ..utils.centered import uncentred
from ..utils.linalg import in_precision
from ._base import DaskEstimator
from ._chunks import as_dask_X, as_dask_y, compute
from ._moments import feature_moments, finite
from ._objective import ChunkedObjective


def _chunk_glm(X, y, family, link, fit_intercept, x_mean, unit, beta):
    """(½ Σ d(yᵢ, μᵢ), its gradient in β) of one chunk, by lucidml's own GLMProblem (unit weights, no
    penalty; β's intercept is that of the features centred on the whole table's means ``x_mean``;
    y in units ``unit``, as the in-memory fit's ``target_units``). No magnitude limit: the in-memory
    fit has none, and an overflow shows in the fitted coefficients."""
    X = finite(np.ascontiguousarray(X), limit=None)
    y = finite(np.asarray(y, dtype=np.float64), "y", limit=None)
    family.check_y(y)
    problem = GLMProblem(X, y / unit, np.ones(len(y)), -np.log(unit), family, link, 0.0, fit_intercept, x_mean)
    mu = problem.eta_mu(beta)[1]
    return problem.objective(beta, mu), problem.gradient(beta)


class PoissonRegressor(DaskEstimator):
    """Poisson regression on a Dask array: counts y with log E[y | x] = w·x + b, fitted by L-BFGS.

    Minimizes :class:`lucidml.linear.PoissonRegressor`'s objective F(β) = (1/2n) Σᵢ d(yᵢ, μᵢ) +
    (α/2)‖w‖², d the Poisson unit deviance, with the engine of
    :class:`lucidml.dask.LogisticRegression`: each evaluation sends β to the workers, every chunk
    returns its half deviance and gradient from lucidml's own ``GLMProblem``, and the in-memory
    L-BFGS driver (``solver="lbfgs"``: same start w = 0, b = log ȳ, same stopping rule ‖∇F‖∞ ≤ tol)
    runs in the client, so the iterates are the in-memory ones. (The in-memory default, Newton's
    method, would need the (d+1)² Hessian per iteration; L-BFGS needs only gradients.) X and y
    are persisted in the workers' memory.

    Parameters
    ----------
    alpha : float, default=1.0
    fit_intercept : bool, default=True
    max_iter : int, default=100
    tol : float, default=1e-4

    Attributes
    ----------
    coef_, intercept_, n_iter_, loss_curve_, n_features_in_, feature_names_in_
        As :class:`lucidml.linear.PoissonRegressor`.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import PoissonRegressor
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> X = np.array([[0.0], [0.5], [1.0], [1.5], [2.0], [2.5]])
    >>> y = np.array([1.0, 2.0, 3.0, 4.0, 8.0, 12.0])
    >>> reg = PoissonRegressor(alpha=0.0).fit(da.from_array(X, chunks=(2, 1)), da.from_array(y, chunks=2))
    >>> reg.coef_.round(3), round(float(reg.intercept_), 3)
    (array([0.96]), 0.095)
    >>> client.close()
    """

    _local_class = _LocalPoissonRegressor
    _parameter_constraints = {k: _LocalPoissonRegressor._parameter_constraints[k]
                              for k in ("alpha", "fit_intercept", "max_iter", "tol")}

    def __init__(self, *, alpha=1.0, fit_intercept=True, max_iter=100, tol=1e-4):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y):
        """Fit the counts y (dask array or Series) on X (dask array or DataFrame)."""
        local = self._new_local().set_params(solver="lbfgs")
        family, link, _ = local._family_link_solver()
        X, names = as_dask_X(X)
        y = as_dask_y(y, X)
        if y.ndim != 1 or y.dtype.kind not in "biuf":
            raise ValueError(f"y must be a 1-D numeric array of counts; got shape {y.shape}, dtype {y.dtype}.")
        X, y = X.persist(), y.astype(np.float64).persist()
        # The solver sees the features centred and scaled, as the in-memory one (lucidml.linear._glm_solvers).
        x_mean, x_spread = feature_moments(X, self.fit_intercept)
        (y_mean,) = compute(da.mean(y))
        unit, loss_unit = target_units(float(y_mean), family, link)  # as the in-memory fit
        alpha = self.alpha / loss_unit
        # The in-memory start, w = 0 and b = log ȳ: GLMProblem.initial_beta on a one-row stand-in with mean ȳ.
        start = GLMProblem(np.zeros((1, X.shape[1]), dtype=X.dtype), np.array([y_mean / unit]), np.ones(1),
                           -np.log(unit), family, link, alpha, self.fit_intercept).initial_beta()
        problem = ChunkedObjective(X, y, _chunk_glm, (family, link, self.fit_intercept, x_mean, unit), alpha,
                                   self.fit_intercept, 1)
        scales = linear_model_scales(x_spread, alpha, self.fit_intercept)
        with np.errstate(over="ignore", invalid="ignore"):
            beta, losses, converged = first_order(problem, start, "lbfgs", self.max_iter,
                                                  self.tol / max(loss_unit, 1.0), scales=scales)
        if not np.all(np.isfinite(beta)):
            raise ValueError(f"{type(self).__name__} overflowed: its fitted values left float64's range. Rescale "
                             "the features (e.g. StandardScaler) or y.")
        coef, intercept = uncentred(beta[:-1], beta[-1], x_mean) if self.fit_intercept else (beta, 0.0)
        local.coef_, local.intercept_ = in_precision(coef, X.dtype), in_precision(intercept, X.dtype)
        local.loss_curve_, local.n_iter_ = [loss * loss_unit for loss in losses], len(losses)
        if not converged:
            warnings.warn(f"{type(self).__name__} stopped at max_iter={self.max_iter} before ‖∇F‖∞ fell below "
                          f"tol={self.tol}; raise max_iter or tol.", ConvergenceWarning, stacklevel=2)
        return self._publish(local, X.shape[1], names)
