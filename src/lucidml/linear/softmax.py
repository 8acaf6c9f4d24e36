"""Softmax (multinomial logistic) regression, in the full or the reference-class parametrization."""

from numbers import Integral, Real

import numpy as np
import scipy.special
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, restored_if_refused, validate_params
from ..utils.numerics import in_power_of_two_units
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_magnitude, check_predict_data
from ._log_loss import LogLoss, minimize_log_loss
from .logistic import _sample_weight, _warn_if_separable, _warn_if_unconverged, encode_classes

__all__ = ["SoftmaxRegression"]


class SoftmaxRegression(ClassifierMixin, BaseEstimator):
    """Multinomial logistic regression: P(y = l | x) = exp(θₗ·x + bₗ) / Σₘ exp(θₘ·x + bₘ).

    The generalized linear model of the categorical distribution (seeds 000 §3.2–3.3, 003 §4.3,
    004 §6). The fit maximizes Σᵢ sᵢ log φ_{yᵢ}(xᵢ), whose gradient for θₗ is
    Σᵢ sᵢ (1{yᵢ = l} − φₗ(xᵢ)) xᵢ and whose Hessian blocks are −Σᵢ sᵢ φₗ(δₗₘ − φₘ) xᵢxᵢᵀ. Probabilities
    are computed with the row maximum subtracted before exponentiating (seed 000's code omits it
    and overflows).

    ``parametrization``:

    - ``"full"``: one θₗ per class. Adding the same vector to every θₗ leaves φ unchanged, so the
      maximum is unique only with a penalty; with ``C`` finite the objective is, as scikit-learn's
      multinomial LogisticRegression, C Σᵢ sᵢ(−log φ_{yᵢ}) + ½ Σₗ ‖θₗ‖².
    - ``"reference"``: θ_k = 0 for the last class, the k − 1 form derived in the notes, identified
      without a penalty (use ``C=np.inf``); a finite ``C`` penalizes the k − 1 free vectors.

    Parameters
    ----------
    C : float, default=1.0
        Inverse L2 strength; ``np.inf`` for no penalty.
    parametrization : {"full", "reference"}, default="full"
    fit_intercept : bool, default=True
    solver : {"lbfgs", "newton", "gd", "sgd"}, default="lbfgs"
        As in :class:`LogisticRegression`; Newton solves a k(d + 1)-square system per step.
    max_iter : int, default=100
    tol : float, default=1e-4
        Stop when ‖∇f‖∞ ≤ tol, f the mean-scaled objective (for "lbfgs" and "gd" in the
        preconditioned coordinates of :class:`LogisticRegression`).
    eta0 : float, default=0.5
        Initial step of ``"sgd"`` (a first epoch of decaying steps, then variance-reduced ones: see
        :class:`LogisticRegression`).
    batch_size : int, default=32
    shuffle : bool, default=True
        Whether ``"sgd"`` reshuffles the samples every epoch; False visits them in the data's
        order, as the notes' online learner does.
    random_state : int, RandomState instance or None, default=None
    verbose : int, default=0
        1 or more prints, on standard output, one line per fit once its solver has returned:
        ``Problem multinomial, n_iter = …, loss = …`` (the iterations taken and the final penalized loss, the
        last entry of ``loss_curve_``); 0 prints nothing.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
        θₗ per class (the last row is zero for ``"reference"``).
    intercept_ : ndarray of shape (n_classes,)
    n_iter_ : int
    loss_curve_ : ndarray
        Mean-scaled objective after each iteration.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lucidml.linear import SoftmaxRegression
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = SoftmaxRegression(solver="newton").fit(X, y)
    >>> round(clf.score(X, y), 2), clf.predict_proba(X[:1]).round(2)
    (0.97, array([[0.98, 0.02, 0.  ]]))
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="right")],
        "parametrization": [Options({"full", "reference"})],
        "fit_intercept": ["boolean"],
        "solver": [Options({"lbfgs", "newton", "gd", "sgd"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "eta0": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, *, C=1.0, parametrization="full", fit_intercept=True, solver="lbfgs", max_iter=100, tol=1e-4,
                 eta0=0.5, batch_size=32, shuffle=True, random_state=None,
                 verbose=0):
        self.C = C
        self.parametrization = parametrization
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.eta0 = eta0
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose

    @restored_if_refused
    def fit(self, X, y, sample_weight=None):
        """Fit on X (n_samples, n_features) and class labels y."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, accept_sparse="csr", float32=True)
        check_magnitude(X, self)
        self.classes_, y_index = encode_classes(self, y)
        weight = _sample_weight(sample_weight, None, self.classes_, y_index)
        total = X.shape[0] if weight is None else weight.sum()
        weight = in_power_of_two_units(weight)  # (as in logistic regression)
        l2 = 0.0 if np.isinf(self.C) else 1.0 / (self.C * total)
        loss = LogLoss(X, y_index, len(self.classes_), weight, l2, self.fit_intercept, self.parametrization)
        result = minimize_log_loss(loss, np.zeros(loss.size), solver=self.solver, max_iter=self.max_iter,
                                   tol=self.tol, eta0=self.eta0, batch_size=self.batch_size,
                                   shuffle=self.shuffle, random_state=self.random_state)
        W, b = loss.coefficients(result.x)
        if self.parametrization == "reference":
            W, b = np.vstack([W, np.zeros(X.shape[1])]), np.append(b, 0.0)
        self.coef_, self.intercept_ = W.astype(X.dtype), b.astype(X.dtype)  # the data's precision
        self.n_iter_ = result.n_iter
        self.loss_curve_ = np.array([h["f"] for h in result.history])
        IterationLog(self.verbose).summary("Problem multinomial", n_iter=self.n_iter_,
                                           loss=self.loss_curve_[-1] if self.loss_curve_.size else np.nan)
        _warn_if_unconverged([result], self.max_iter, type(self).__name__)
        if np.isinf(self.C):
            _warn_if_separable(self, X, y)
        return self

    def _scores(self, X):
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse="csr", dtype=FLOAT_DTYPES)
        return X @ self.coef_.T + self.intercept_

    def decision_function(self, X):
        """Scores θₗ·x + bₗ, one column per class; for two classes the difference (positive → classes_[1])."""
        scores = self._scores(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def predict_proba(self, X):
        """softmax of the scores (max-shifted)."""
        return scipy.special.softmax(self._scores(X), axis=1)

    def predict_log_proba(self, X):
        """log softmax of the scores."""
        return scipy.special.log_softmax(self._scores(X), axis=1)

    def predict(self, X):
        """The class of the largest score."""
        index = self._scores(X).argmax(axis=1)
        return self.classes_[index]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
