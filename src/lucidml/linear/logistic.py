"""Logistic regression: binary, one-vs-rest or multinomial, with L2 or L1 penalties."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.special
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, check_sample_weight, restored_if_refused, validate_params
from ..utils.numerics import in_power_of_two_units
from ..utils.validation import (
    FLOAT_DTYPES,
    check_classification_targets,
    check_fit_data,
    check_magnitude,
    check_predict_data,
    class_weights,
)
from ._log_loss import LogLoss, minimize_log_loss

__all__ = ["LogisticRegression"]


class LogisticRegression(ClassifierMixin, BaseEstimator):
    """Logistic regression, the maximum-likelihood linear classifier for P(y | x).

    Binary: P(y = 1 | x) = σ(w·x + b) with σ(z) = 1/(1 + e⁻ᶻ) (seeds 000 §1.4, 001 §4, 002 §5.2,
    003 §2.4, 004 §4). The fit minimizes the penalized negative log-likelihood, in scikit-learn's
    scaling of ``C``:

        l2:   C Σᵢ sᵢ [log(1 + e^{zᵢ}) − yᵢzᵢ] + ½‖w‖²
        l1:   C Σᵢ sᵢ [log(1 + e^{zᵢ}) − yᵢzᵢ] + ‖w‖₁
        none: Σᵢ sᵢ [log(1 + e^{zᵢ}) − yᵢzᵢ]

    (the notes' (λ/2)‖w‖² on the mean loss is λ = 1/(C n)); the intercept is never penalized. The
    gradient is Σ sᵢ(σ(zᵢ) − yᵢ)xᵢ (+ w/C) and the Hessian Xᵀ diag(sᵢσᵢ(1 − σᵢ)) X (+ I/C), so Newton's
    method is iteratively reweighted least squares. With more than two classes,
    ``multi_class="multinomial"`` fits the softmax model (see :class:`SoftmaxRegression`) and
    ``"ovr"`` one binary model per class, whose probabilities are normalized to sum to one.

    Parameters
    ----------
    penalty : {"l2", "l1", "none"} or None, default="l2"
        ``"l1"`` needs ``solver="gd"`` or ``"sgd"``, which apply it by soft-thresholding.
    C : float, default=1.0
        Inverse penalty strength (> 0).
    fit_intercept : bool, default=True
    solver : {"lbfgs", "newton", "gd", "sgd"}, default="lbfgs"
        ``"lbfgs"``: limited-memory BFGS. ``"newton"``: Newton/IRLS, best for few features.
        ``"gd"``: gradient descent with backtracking (the notes' batch rule, whose summed gradient
        with rate α is the mean gradient with rate α·n). ``"sgd"``: mini-batch stochastic gradient,
        reshuffled every epoch; a first epoch with step η₀/(1 + k/u) after k updates with u updates
        per epoch (one such epoch from zero with ``batch_size=1`` is the online learner of seed
        000 §10), then variance-reduced epochs (SVRG, Prox-SVRG for L1), which converge to the
        minimizer itself (within 1e-4 of the optimal objective when ``tol`` is small enough).
    multi_class : {"auto", "multinomial", "ovr"}, default="auto"
        ``"auto"`` is multinomial for more than two classes.
    max_iter : int, default=100
        Iterations (epochs for ``"sgd"``).
    tol : float, default=1e-4
        Stop when ‖∇f‖∞ ≤ tol for f the mean-scaled objective (scikit-learn's L-BFGS test), for
        ``"sgd"`` at the end of an epoch; with ``penalty="l1"`` the gradient mapping of the proximal
        step takes ∇f's place (it is zero exactly at the minimizer). ``"lbfgs"`` and ``"gd"`` run on
        the weights multiplied by √(σⱼ² + λ₂), σⱼ feature j's spread and λ₂ = 1/(C Σsᵢ), so that
        neither features in different units nor a strong penalty (tiny C or tiny sample weights)
        stall them; they read ∇f in those coordinates, the gradient for the standardized features
        (the same as ∇f on standardized features with the usual λ₂ ≪ 1). A ``ConvergenceWarning``
        says when ``max_iter`` came first.
    class_weight : dict, "balanced" or None, default=None
        Multiplies each sample's weight by its class's weight.
    eta0 : float, default=0.5
        Initial step of ``"sgd"``.
    batch_size : int, default=32
        Mini-batch size of ``"sgd"``.
    shuffle : bool, default=True
        Whether ``"sgd"`` reshuffles the samples every epoch; False visits them in the data's
        order, as the notes' online learner does.
    random_state : int, RandomState instance or None, default=None
        Shuffling of ``"sgd"``.
    verbose : int, default=0
        1 or more prints, on standard output, one line per problem (one, or one per class for
        "ovr") once its solver has returned: ``Problem "multinomial" / "binary" / "class c vs
        rest", n_iter = …, loss = …`` (the iterations taken and the final penalized loss, the last
        entry of ``loss_curve_``); 0 prints nothing.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) for two classes, else (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_iter_ : ndarray of shape (1,) or (n_classes,) for "ovr"
        Iterations of each fit.
    loss_curve_ : ndarray
        The objective (mean-scaled) after each iteration; for "ovr", the first class's.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear import LogisticRegression
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> clf = LogisticRegression(C=10.0).fit(X, [0, 0, 1, 1])
    >>> clf.predict([[-0.5], [0.5]])
    array([0, 1])
    >>> clf.predict_proba([[0.0]]).round(3)
    array([[0.5, 0.5]])
    """

    _parameter_constraints = {
        "penalty": [Options({"l2", "l1", "none"}), None],
        "C": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "solver": [Options({"lbfgs", "newton", "gd", "sgd"})],
        "multi_class": [Options({"auto", "multinomial", "ovr"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "class_weight": [dict, Options({"balanced"}), None],
        "eta0": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, penalty="l2", *, C=1.0, fit_intercept=True, solver="lbfgs", multi_class="auto", max_iter=100,
                 tol=1e-4, class_weight=None, eta0=0.5, batch_size=32, shuffle=True, random_state=None,
                 verbose=0):
        self.penalty = penalty
        self.C = C
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.multi_class = multi_class
        self.max_iter = max_iter
        self.tol = tol
        self.class_weight = class_weight
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
        n_classes = len(self.classes_)
        weight = _sample_weight(sample_weight, self.class_weight, self.classes_, y_index)
        total = X.shape[0] if weight is None else weight.sum()
        # The loss is the weights' mean, which does not change; its products sᵢ·∂ℓᵢ run in X's precision,
        # where float32 weights near 1e37 overflowed ("f(x0) is not finite").
        weight = in_power_of_two_units(weight)
        penalty = "none" if self.penalty is None else self.penalty
        l2 = 1.0 / (self.C * total) if penalty == "l2" else 0.0
        l1 = 1.0 / (self.C * total) if penalty == "l1" else 0.0
        fit = dict(solver=self.solver, l1=l1, max_iter=self.max_iter, tol=self.tol, eta0=self.eta0,
                   batch_size=self.batch_size, shuffle=self.shuffle, random_state=self.random_state)

        multinomial = n_classes > 2 and self.multi_class != "ovr"
        log = IterationLog(self.verbose)
        if n_classes == 2 or multinomial:
            model = "binary" if n_classes == 2 else "full"
            loss = LogLoss(X, y_index, n_classes, weight, l2, self.fit_intercept, model)
            results = [minimize_log_loss(loss, np.zeros(loss.size), **fit)]
            thetas = [loss.coefficients(results[0].x)]
            log.summary(f"Problem {'binary' if n_classes == 2 else 'multinomial'}", n_iter=results[0].n_iter,
                        loss=_final_loss(results[0]))
        else:
            results, thetas = [], []
            for c in range(n_classes):
                loss = LogLoss(X, (y_index == c).astype(np.float64), 2, weight, l2, self.fit_intercept, "binary")
                results.append(minimize_log_loss(loss, np.zeros(loss.size), **fit))
                thetas.append(loss.coefficients(results[-1].x))
                log.summary(f"Problem class {self.classes_[c]} vs rest", n_iter=results[-1].n_iter,
                            loss=_final_loss(results[-1]))
        # The fitted model keeps the data's precision (float32 in, float32 out), as scikit-learn's.
        self.coef_ = np.vstack([W for W, _ in thetas]).astype(X.dtype)
        self.intercept_ = np.concatenate([b for _, b in thetas]).astype(X.dtype)
        self.n_iter_ = np.array([r.n_iter for r in results])
        self.loss_curve_ = np.array([h["f"] for h in results[0].history])
        self._multinomial = multinomial
        _warn_if_unconverged(results, self.max_iter, type(self).__name__)
        if penalty == "none":
            _warn_if_separable(self, X, y)
        return self

    def decision_function(self, X):
        """Scores w·x + b: shape (n_samples,) for two classes (positive → classes_[1]), else one per class."""
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse="csr", dtype=FLOAT_DTYPES)
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p = scipy.special.expit(scores)
            return np.column_stack([1.0 - p, p])
        if self._multinomial:
            return scipy.special.softmax(scores, axis=1)
        p = scipy.special.expit(scores)
        return p / p.sum(axis=1, keepdims=True)

    def predict_log_proba(self, X):
        """Logarithm of ``predict_proba``."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([-np.logaddexp(0, scores), -np.logaddexp(0, -scores)])
        if self._multinomial:
            return scipy.special.log_softmax(scores, axis=1)
        return np.log(self.predict_proba(X))

    def predict(self, X):
        """The most probable class."""
        scores = self.decision_function(X)
        index = (scores >= 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
        return self.classes_[index]  # after decision_function, which checks that the model is fitted

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def encode_classes(estimator, y):
    """(classes_, y as indices into classes_); at least two classes are required."""
    check_classification_targets(y)
    classes, y_index = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(f"{type(estimator).__name__} needs samples of at least two classes; y has 1 class "
                         f"({classes[0]!r}).")
    return classes, y_index


def _sample_weight(sample_weight, class_weight, classes, y_index):
    """Per-sample weights sᵢ: the given weights (or 1) times the class weights; None when every sᵢ is 1.

    "balanced" counts each class by its total sample weight (scikit-learn's rule), so integer
    weights fit as the rows repeated would.
    """
    weight = check_sample_weight(sample_weight, y_index.shape[0])
    if class_weight is None:
        return None if weight is None else weight.copy()
    with np.errstate(divide="ignore"):  # "balanced", a class of zero total weight: weight ∞ ...
        per_class = class_weights(class_weight, classes, classes[y_index], weight)
    if weight is None:
        return per_class[y_index]
    # ... for samples of weight 0 only, which stay 0 (not 0·∞ = NaN): the class has no say in the fit
    out = np.zeros_like(weight)
    positive = weight > 0
    out[positive] = weight[positive] * per_class[y_index[positive]]
    return out


def _warn_if_unconverged(results, max_iter, name):
    if not all(r.success for r in results):
        warnings.warn(f"{name} did not converge in max_iter={max_iter} iterations; increase max_iter, scale the "
                      "features, or loosen tol.", ConvergenceWarning, stacklevel=3)


def _warn_if_separable(estimator, X, y):
    """Without a penalty, a perfect fit of the training data means the likelihood has no maximum."""
    scores = X @ estimator.coef_.T + estimator.intercept_
    if scores.shape[1] == 1:
        predicted = estimator.classes_[(scores[:, 0] >= 0).astype(int)]
    else:
        predicted = estimator.classes_[scores.argmax(axis=1)]
    if np.all(predicted == y):
        warnings.warn("The training data are linearly separable: without a penalty the maximum-likelihood weights "
                      "are infinite, and the returned ones only reflect where the solver stopped. Use penalty='l2'.",
                      UserWarning, stacklevel=3)


def _final_loss(result):
    """The last recorded penalized loss of a ``minimize_log_loss`` result (NaN if none was recorded)."""
    return result.history[-1]["f"] if result.history else float("nan")
