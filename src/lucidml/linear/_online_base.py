"""What the online linear classifiers (Perceptron, Adaline) share.

- Labels: any labels; k ≥ 3 classes become k one-vs-rest problems with targets ±1 (+1 for the
  class, −1 for the rest), two classes one problem with +1 for ``classes_[1]`` (002 §3.2, OvR).
- Epochs: ``fit`` runs up to ``max_iter`` passes over the data, in a new random order each
  pass when ``shuffle=True``; ``partial_fit`` runs one pass and keeps every state variable
  (weights, step counts, averages), so that streaming continues where it left off.
- Stopping: each one-vs-rest problem stops on its own, when the subclass says it converged
  (the perceptron: an epoch without a mistake) or, when ``tol`` is not None, after
  ``n_iter_no_change`` epochs in a row whose loss did not fall below (best so far − tol),
  scikit-learn's rule. Hitting ``max_iter`` first warns with ``ConvergenceWarning`` (unless
  ``tol`` is None and the subclass has no convergence test of its own: then ``max_iter`` is
  simply the number of epochs asked for).
- Prediction: z = w·x + b; + (``classes_[1]``) iff z ≥ 0 for two classes, arg maxₖ zₖ otherwise.
- Data: X may be a CSR matrix (each step then touches a row's stored entries only) or float32
  (read as it is; the weights are float64).

A subclass supplies ``_start_state(n_problems, n_features)``, ``_epoch_args(rows)`` returning
what its kernel takes besides the rows (its records, built once per training run),
``_run_epoch(rows, order, active, args)`` returning (mean loss per problem, converged flags),
``_coef_intercept()`` returning the public (coef, intercept), and optionally ``_set_scaling(X)`` /
``_prepare(X)``. ``rows`` is the kernels' :class:`~._online_kernels.TrainingRows`.
"""

import math
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils import IterationLog, check_sample_weight, restored_if_refused, validate_params
from ..utils.rows import as_rows
from ..utils.validation import (
    FLOAT_DTYPES,
    check_classification_targets,
    check_fit_data,
    check_magnitude,
    check_predict_data,
)
from ._online_kernels import TrainingRows


def pm1_targets(y, classes):
    """±1 targets of the one-vs-rest problems, shape (n_samples, 1) for two classes else (n, k)."""
    if len(classes) == 2:
        return np.where(y == classes[1], 1.0, -1.0).reshape(-1, 1)
    return np.where(y[:, None] == classes[None, :], 1.0, -1.0)


class _OnlineLinearClassifier(ClassifierMixin, BaseEstimator):
    _has_own_stopping_rule = False  # a convergence test besides tol's (then warn even if tol is None)
    _advice = "increase max_iter."

    @restored_if_refused
    def fit(self, X, y, sample_weight=None):
        """Fit from zero weights with up to ``max_iter`` epochs over X (n_samples, n_features), y.

        ``sample_weight`` multiplies each sample's step and its term of the loss (as in
        scikit-learn's SGD); for an online learner a weight of 2 is not the same as visiting
        the sample twice.
        """
        validate_params(self)
        X, y = self._validate_Xy(X, y, reset=True)
        self._start(np.unique(y), X)
        return self._train(X, y, sample_weight, self.max_iter, stopping=True)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch over a batch; ``classes`` (all labels) is required on the first call."""
        validate_params(self)
        if hasattr(self, "classes_"):
            return self._partial_fit(X, y, classes, sample_weight)
        # A refused first batch (a label outside classes, one class, an overflow) leaves the model unfitted.
        return restored_if_refused(type(self)._partial_fit)(self, X, y, classes, sample_weight)

    def _partial_fit(self, X, y, classes, sample_weight):
        first_call = not hasattr(self, "classes_")
        if first_call and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        X, y = self._validate_Xy(X, y, reset=first_call)
        known = np.unique(classes) if first_call else self.classes_
        if not first_call and classes is not None and not np.array_equal(np.unique(classes), known):
            raise ValueError(f"classes={classes!r} differs from the classes of the first call {known!r}.")
        unknown = ~np.isin(y, known)
        if unknown.any():
            raise ValueError(f"y contains labels {np.unique(y[unknown])!r} that are not in classes {known!r}.")
        if first_call:
            self._start(known, X)
        return self._train(X, y, sample_weight, 1, stopping=False)

    def decision_function(self, X):
        """z = w·x + b per sample (two classes) or per sample and class, shape (n,) or (n, k)."""
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse="csr", dtype=FLOAT_DTYPES)
        scores = X @ self.coef_.T + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """``classes_[1]`` where z ≥ 0 (two classes), else the class of largest z."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores >= 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    # -- plumbing -------------------------------------------------------------------------------

    def _validate_Xy(self, X, y, reset):
        # float32 is read as it is (the weights are summed in float64): no float64 copy of X.
        X, y = check_fit_data(self, X, y, accept_sparse="csr", float32=True, order="C", reset=reset)
        check_magnitude(X, self)
        check_classification_targets(y)
        return X, y

    def _start(self, classes, X):
        if len(classes) < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes; got 1 class ({classes[0]!r})."
            )
        self.classes_ = classes
        n_problems = 1 if len(classes) == 2 else len(classes)
        self._rng = check_random_state(self.random_state)
        self._last_loss = np.zeros(n_problems)
        self._loss_history = []
        self._set_scaling(X)
        self._start_state(n_problems, X.shape[1])

    def _loss_rose(self):
        """Whether the epochs' losses show a diverging step (only a learner whose loss must fall says so)."""
        return False

    def _train(self, X, y, sample_weight, max_iter, stopping):
        """Run epochs until every one-vs-rest problem has stopped or ``max_iter`` is reached."""
        weight = check_sample_weight(sample_weight, X.shape[0])
        weight = np.ones(X.shape[0]) if weight is None else weight
        Y = pm1_targets(y, self.classes_)
        rows = TrainingRows(as_rows(self._prepare(X)), Y, weight)
        args = self._epoch_args(rows)
        n_samples, n_problems = Y.shape
        active = np.ones(n_problems, dtype=np.bool_)
        best = np.full(n_problems, np.inf)
        epochs_without_gain = np.zeros(n_problems, dtype=np.intp)
        in_order = np.arange(n_samples)
        log = IterationLog(self.verbose)
        # Epochs on small data take microseconds: the loop keeps to a few cheap NumPy calls each.
        for epoch in range(max_iter):
            order = self._rng.permutation(n_samples) if self.shuffle else in_order
            loss, converged = self._run_epoch(rows, order, active, args)
            self._check_finite(epoch, loss)
            np.copyto(self._last_loss, loss, where=active)
            self._loss_history.append(float(self._last_loss.sum()) / n_problems)
            if log:
                log.iteration(len(self._loss_history), loss=self._loss_history[-1])
            if not stopping:
                continue
            if self.tol is not None:  # scikit-learn's rule: no gain of tol for n_iter_no_change epochs
                epochs_without_gain = np.where(loss > best - self.tol, epochs_without_gain + 1, 0)
                best = np.minimum(best, loss)
                converged = converged | (epochs_without_gain >= self.n_iter_no_change)
            active &= ~converged
            if not active.any():
                log.converged(len(self._loss_history), reason="every problem met its stopping rule")
                break
        else:
            if stopping:
                log.stopped(len(self._loss_history), "max_iter reached")
        self.n_iter_ = epoch + 1
        self.loss_curve_ = np.array(self._loss_history)
        if stopping and active.any() and (self.tol is not None or self._has_own_stopping_rule):
            warnings.warn(
                f"{type(self).__name__} stopped at max_iter={max_iter} epochs before converging; {self._advice}",
                ConvergenceWarning,
                stacklevel=3,
            )
        if stopping and self._loss_rose():
            warnings.warn(
                f"{type(self).__name__}: the loss rose from {self._loss_history[0]:.4g} to "
                f"{self._loss_history[-1]:.4g} over {len(self._loss_history)} epochs: the steps diverge "
                f"(eta0={self.eta0} is beyond 2/L, see the docstring); lower eta0 or set standardize=True.",
                ConvergenceWarning,
                stacklevel=3,
            )
        # The weights are summed in float64; the public ones are in the data's precision (float32
        # in, float32 out, as scikit-learn's SGD models).
        coef, intercept = self._coef_intercept()
        self.coef_ = np.ascontiguousarray(coef, dtype=X.dtype)
        self.intercept_ = np.ascontiguousarray(intercept, dtype=X.dtype)
        return self

    # Whether an epoch's loss must stay finite for the model to mean anything (Adaline's squared
    # error; a Perceptron's Σsᵢ(−yᵢzᵢ) can overflow with huge weights while its direction is fine).
    _finite_loss = False

    def _check_finite(self, epoch, loss):
        """Refuse weights, or (``_finite_loss``) an epoch's loss, that overflowed (Adaline's weights near
        1e261 were still finite)."""
        loss = loss if self._finite_loss else np.zeros(0)
        with np.errstate(over="ignore", invalid="ignore"):  # a finite sum proves every term finite
            total = float(self._coef.sum()) + float(self._intercept.sum()) + float(np.sum(loss))
        if not math.isfinite(total) and not (np.isfinite(self._coef).all() and np.isfinite(self._intercept).all()
                                             and np.isfinite(loss).all()):
            raise ValueError(
                f"{type(self).__name__}: the weights overflowed in epoch {epoch + 1}; use a smaller eta0 "
                "or standardize the features."
            )

    def _set_scaling(self, X):
        """Remember input statistics at the start of training (Adaline's ``standardize``)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _prepare(self, X):
        return X
