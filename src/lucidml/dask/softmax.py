"""Softmax (multinomial logistic) regression on a Dask array: the chunked log loss, by L-BFGS."""

import numpy as np

from ..linear import SoftmaxRegression as _LocalSoftmaxRegression
from ..linear._log_loss import _FTOL, preconditioned, weight_mask
from ..linear.logistic import _warn_if_unconverged
from ..optim.quasi_newton import lbfgs
from ..utils.centered import uncentred
from ._base import DaskEstimator
from ._classify import classification_data
from ._moments import feature_moments
from ._objective import warn_if_separable
from .logistic import log_loss


class SoftmaxRegression(DaskEstimator):
    """Softmax regression on a Dask array, fitted by L-BFGS with the loss summed over the chunks.

    Minimizes :class:`lucidml.linear.SoftmaxRegression`'s objective, the mean cross-entropy
    −(1/n) Σᵢ log P(yᵢ | xᵢ) + ‖W‖²/(2Cn), P(l | x) = exp(θₗ·x) / Σₘ exp(θₘ·x), in the ``"full"``
    (one θ per class) or ``"reference"`` (last class θ = 0) parametrization. It is the engine of
    :class:`lucidml.dask.LogisticRegression`: each evaluation sends θ to the workers, every chunk
    returns its loss and gradient from lucidml's ``LogLoss``, and lucidml's L-BFGS (the in-memory
    ``solver="lbfgs"``, same line search and stopping rule) runs in the client, so the iterates
    are the in-memory ones. X is persisted in the workers' memory.

    Parameters
    ----------
    C : float, default=1.0
        Inverse penalty strength; ``np.inf``: no penalty.
    parametrization : {"full", "reference"}, default="full"
    fit_intercept : bool, default=True
    max_iter : int, default=100
    tol : float, default=1e-4

    Attributes
    ----------
    classes_, coef_, intercept_, n_iter_, loss_curve_, n_features_in_, feature_names_in_
        As :class:`lucidml.linear.SoftmaxRegression`.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import SoftmaxRegression
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> X = np.array([[-2.0], [-1.5], [0.0], [0.2], [1.5], [2.0]])
    >>> clf = SoftmaxRegression(C=100.0).fit(da.from_array(X, chunks=(2, 1)), np.array([0, 0, 1, 1, 2, 2]))
    >>> clf.predict(da.from_array(np.array([[-2.0], [0.1], [2.0]]))).compute()
    array([0, 1, 2])
    >>> client.close()
    """

    _local_class = _LocalSoftmaxRegression
    _parameter_constraints = {k: _LocalSoftmaxRegression._parameter_constraints[k]
                              for k in ("C", "parametrization", "fit_intercept", "max_iter", "tol")}

    def __init__(self, *, C=1.0, parametrization="full", fit_intercept=True, max_iter=100, tol=1e-4):
        self.C = C
        self.parametrization = parametrization
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y):
        """Fit on X (dask array or DataFrame) and its class labels y."""
        local = self._new_local()
        X, y, names, classes = classification_data(X, y)
        if len(classes) < 2:
            raise ValueError(f"SoftmaxRegression needs samples of at least two classes; y has 1 class "
                             f"({classes[0]!r}).")
        X, y = X.persist(), y.persist()  # read once per evaluation: kept in the workers' memory
        l2 = 0.0 if np.isinf(self.C) else 1.0 / (self.C * X.shape[0])
        x_mean, x_spread = feature_moments(X, self.fit_intercept)
        loss = log_loss(X, y, classes, self.parametrization, None, l2, self.fit_intercept, x_mean, x_spread)
        mask = weight_mask(loss.n_vectors, X.shape[1], self.fit_intercept)
        result = preconditioned(loss, np.zeros(loss.size), mask, lambda fun, x0, grad: lbfgs(
            fun, x0, grad, max_iter=self.max_iter, tol=self.tol, ftol=_FTOL))
        W, b = uncentred(*loss.unpack(result.x), x_mean)
        if self.parametrization == "reference":
            W, b = np.vstack([W, np.zeros(X.shape[1])]), np.append(b, 0.0)
        local.classes_ = classes
        local.coef_, local.intercept_ = W.astype(X.dtype), b.astype(X.dtype)
        local.n_iter_ = result.n_iter
        local.loss_curve_ = np.array([h["f"] for h in result.history])
        _warn_if_unconverged([result], self.max_iter, type(self).__name__)
        if np.isinf(self.C):
            warn_if_separable(X, y, local.coef_, local.intercept_, classes, "Use a finite C.")
        return self._publish(local, X.shape[1], names)
