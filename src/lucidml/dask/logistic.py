"""Logistic regression on a Dask array: L-BFGS whose loss and gradient are summed over the chunks."""


import numpy as np

from ..linear import LogisticRegression as _LocalLogisticRegression
from ..linear._log_loss import (
    _FTOL,
    ALL,
    LogLoss,
    preconditioned,
    weight_mask,
)
from ..linear.logistic import _warn_if_unconverged
from ..optim.quasi_newton import lbfgs
from ..utils import Options
from ..utils.centered import uncentred
from ._base import DaskEstimator
from ._classify import classification_data
from ._moments import class_index, feature_moments, finite
from ._objective import ChunkedObjective, warn_if_separable


def _targets(y, classes, model, positive):
    """The chunk's labels as LogLoss reads them: 0/1 (``positive`` class, or ``classes[1]``), or indices."""
    index = class_index(y, classes)
    if model != "binary":
        return index
    return (index == (1 if positive is None else positive)).astype(np.float64)


def _chunk_loss(X, y, classes, model, positive, fit_intercept, x_mean, theta):
    """(Σ ℓᵢ, Σ ∂ℓᵢ/∂θ) of one chunk, by lucidml's own LogLoss on the chunk (no penalty: added once;
    θ's intercepts are those of the features centred on the whole table's means ``x_mean``)."""
    X = finite(np.ascontiguousarray(X))
    loss = LogLoss(X, _targets(y, classes, model, positive), 2 if model == "binary" else len(classes), None, 0.0,
                   fit_intercept, model, x_mean)
    total, weighted_dZ, _ = loss._evaluate(theta)
    return total, loss._data_gradient(weighted_dZ, ALL)


def log_loss(X, y, classes, model, positive, l2, fit_intercept, x_mean, x_spread):
    """The chunked penalized mean log loss of LogLoss's ``model`` ("binary", "full" or "reference"),
    about the centre ``x_mean``; ``x_spread`` scales ``preconditioned`` (``_moments.feature_moments``)."""
    n_vectors = {"binary": 1, "full": len(classes), "reference": len(classes) - 1}[model]
    return ChunkedObjective(X, y, _chunk_loss, (classes, model, positive, fit_intercept, x_mean), l2, fit_intercept,
                            n_vectors, x_spread)


class LogisticRegression(DaskEstimator):
    """Logistic regression (binary, multinomial or one-vs-rest) on a Dask array, fitted by L-BFGS.

    The objective is :class:`lucidml.linear.LogisticRegression`'s, C Σᵢ ℓᵢ + ½‖w‖² (scaled by the
    mean): each evaluation sends the parameter vector θ to the workers, every chunk computes its
    loss Σ ℓᵢ and gradient Σ ∂ℓᵢ/∂θ with lucidml's own log-loss code, and the sums come back
    through a tree reduction; lucidml's L-BFGS (the in-memory solver, same Wolfe line search and
    stopping rule ‖∇f‖∞ ≤ tol) runs in the client. X is persisted in the workers' memory for the
    iterations. The coefficients match the in-memory fit to the solver's tolerance (in practice
    to the order of float sums, since the iterates are the same).

    Parameters
    ----------
    penalty : {"l2", "none"} or None, default="l2"
    C : float, default=1.0
    fit_intercept : bool, default=True
    multi_class : {"auto", "multinomial", "ovr"}, default="auto"
    max_iter : int, default=100
    tol : float, default=1e-4

    Attributes
    ----------
    classes_, coef_, intercept_, n_iter_, loss_curve_, n_features_in_, feature_names_in_
        As :class:`lucidml.linear.LogisticRegression`.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import LogisticRegression
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> X = da.from_array(np.array([[-2.0], [-1.0], [1.0], [2.0]]), chunks=(2, 1))
    >>> clf = LogisticRegression(C=10.0).fit(X, da.from_array(np.array([0, 0, 1, 1]), chunks=2))
    >>> clf.predict(da.from_array(np.array([[-0.5], [0.5]]))).compute()
    array([0, 1])
    >>> client.close()
    """

    _local_class = _LocalLogisticRegression
    _parameter_constraints = {
        **{k: _LocalLogisticRegression._parameter_constraints[k]
           for k in ("C", "fit_intercept", "multi_class", "max_iter", "tol")},
        "penalty": [Options({"l2", "none"}), None],
    }

    def __init__(self, penalty="l2", *, C=1.0, fit_intercept=True, multi_class="auto", max_iter=100, tol=1e-4):
        self.penalty = penalty
        self.C = C
        self.fit_intercept = fit_intercept
        self.multi_class = multi_class
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y):
        """Fit on X (dask array or DataFrame) and its class labels y."""
        local = self._new_local()
        X, y, names, classes = classification_data(X, y)
        if len(classes) < 2:
            raise ValueError(f"LogisticRegression needs samples of at least two classes; y has 1 class "
                             f"({classes[0]!r}).")
        X, y = X.persist(), y.persist()  # read once per iteration: kept in the workers' memory
        penalty = "none" if self.penalty is None else self.penalty
        l2 = 1.0 / (self.C * X.shape[0]) if penalty == "l2" else 0.0
        multinomial = len(classes) > 2 and self.multi_class != "ovr"
        if len(classes) == 2 or multinomial:
            problems = [("binary" if len(classes) == 2 else "full", None)]
        else:
            problems = [("binary", c) for c in range(len(classes))]
        results, thetas = [], []
        x_mean, x_spread = feature_moments(X, self.fit_intercept)
        for model, positive in problems:
            loss = log_loss(X, y, classes, model, positive, l2, self.fit_intercept, x_mean, x_spread)
            mask = weight_mask(loss.n_vectors, X.shape[1], self.fit_intercept)
            results.append(preconditioned(loss, np.zeros(loss.size), mask, lambda fun, x0, grad: lbfgs(
                fun, x0, grad, max_iter=self.max_iter, tol=self.tol, ftol=_FTOL)))
            thetas.append(uncentred(*loss.unpack(results[-1].x), x_mean))
        local.classes_ = classes
        local.coef_ = np.vstack([W for W, _ in thetas]).astype(X.dtype)
        local.intercept_ = np.concatenate([b for _, b in thetas]).astype(X.dtype)
        local.n_iter_ = np.array([r.n_iter for r in results])
        local.loss_curve_ = np.array([h["f"] for h in results[0].history])
        local._multinomial = multinomial
        _warn_if_unconverged(results, self.max_iter, type(self).__name__)
        if penalty == "none":
            warn_if_separable(X, y, local.coef_, local.intercept_, classes, "Use penalty='l2'.")
        return self._publish(local, X.shape[1], names)
