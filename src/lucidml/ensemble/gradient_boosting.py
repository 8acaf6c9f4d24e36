"""Gradient tree boosting on histograms: GradientBoostingRegressor and GradientBoostingClassifier."""

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ..utils import Interval, Options, check_sample_weight, interruptible, validate_params
from ..utils.validation import MAX_MAGNITUDE, check_classification_targets, check_fit_data
from ._boosting import COMMON_DOC, _BaseGradientBoosting
from ._losses import LOSSES

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor"]

_PARAMETERS = "    Parameters\n    ----------\n"


class GradientBoostingRegressor(RegressorMixin, _BaseGradientBoosting):
    __doc__ = """Gradient-boosted regression trees, histogram-based (LightGBM-style).

    Losses: ``"squared_error"`` (mean start, leaf = mean residual), ``"absolute_error"``
    (median start, trees fitted to the sign residuals, leaf = median residual), ``"huber"``
    (δ = the ``alpha`` quantile of |y − f| at each stage, Friedman's one-step leaf) and
    ``"quantile"`` (pinball loss at ``alpha``, leaf = the ``alpha`` quantile of the residuals).
    The leaves' medians and quantiles are the weighted 'inverted_cdf' ones (the lower median for
    an even count), as in scikit-learn's leaves; the start is scikit-learn's too, the interpolated
    quantile of y (with weights: midway between two values where exactly the quantile's share of
    the weight lies below, so that a balanced 0/1 target starts at ½, not where every sign
    gradient is the same).
    """ + COMMON_DOC.replace(_PARAMETERS, _PARAMETERS + """    loss : {"squared_error", "absolute_error", "huber", "quantile"}, default="squared_error"
    alpha : float in (0, 1), default=0.9
        Quantile of the "huber" and "quantile" losses.
""") + """
    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = GradientBoostingRegressor(n_estimators=50, random_state=0).fit(X, y)
    >>> bool(model.score(X, y) > 0.7)
    True
    >>> model.n_estimators_, bool(model.train_score_[-1] < model.train_score_[0])
    (50, True)
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseGradientBoosting._parameter_constraints,
        "loss": [Options({"squared_error", "absolute_error", "huber", "quantile"})],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(self, n_estimators=100, *, loss="squared_error", learning_rate=0.1, subsample=1.0, max_depth=3,
                 max_leaf_nodes=None, min_samples_leaf=1, l2_regularization=0.0, max_bins=255,
                 validation_fraction=0.1, n_iter_no_change=None, tol=1e-4, alpha=0.9, init=None,
                 criterion="friedman_mse", warm_start=False, random_state=None, verbose=0):
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.alpha = alpha
        self.init = init
        self.criterion = criterion
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    @interruptible
    def fit(self, X, y, sample_weight=None):
        """Fit ``n_estimators`` stages (fewer with early stopping); returns self."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, accept_sparse="csr", float32=True, ensure_all_finite="allow-nan",
                             y_numeric=True, reset=not self._continuing())
        y = y.astype(np.float64)
        if np.abs(y).max(initial=0.0) > MAX_MAGNITUDE:
            # Sums of squared gradients in the split gains overflow: no split is found, and the model
            # would stay constant without a word.
            raise ValueError(f"{type(self).__name__}: y has values of magnitude up to {np.abs(y).max():.3g}; beyond "
                             f"{MAX_MAGNITUDE:.0e} the split gains overflow float64. Rescale y.")
        return self._fit(X, y, sample_weight, LOSSES[self.loss](self.alpha, 1), False)

    def predict(self, X):
        """f(x) = f₀ + Σₘ ν·treeₘ(x)."""
        check_is_fitted(self)
        return self._raw_predict(X)[:, 0]

    def staged_predict(self, X):
        """Yield the prediction after each stage."""
        for raw in self._staged_raw_predict(X):
            yield raw[:, 0]


class GradientBoostingClassifier(ClassifierMixin, _BaseGradientBoosting):
    __doc__ = """Gradient-boosted classification trees on the log-loss, histogram-based (LightGBM-style).

    Two classes: one tree per stage on f = log-odds of ``classes_[1]``, p = σ(f), start
    f₀ = log(p̄/(1 − p̄)), working target r = y − p (fitted by least squares, or with the
    second-order gain when ``criterion="newton"``), Newton leaf Σr/Σp(1−p). K > 2 classes:
    K trees per stage on p = softmax(f), start f₀ₖ = log p̄ₖ, leaf (K − 1)/K · Σr/Σp(1−p)
    (Friedman 2001; the notes leave multiclass as an exercise).
    """ + COMMON_DOC.replace(_PARAMETERS, _PARAMETERS + """    loss : {"log_loss"}, default="log_loss"
""").replace("    n_features_in_ : int\n", """    n_features_in_ : int
    classes_ : ndarray of shape (n_classes,)
""") + """
    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y)
    >>> bool(model.score(X, y) > 0.95), model.tree_roots_.shape
    (True, (20, 3))
    >>> float(model.predict_proba(X[:1]).sum().round(6))
    1.0
    """

    _parameter_constraints: ClassVar[dict] = {
        **_BaseGradientBoosting._parameter_constraints,
        "loss": [Options({"log_loss"})],
    }

    def __init__(self, n_estimators=100, *, loss="log_loss", learning_rate=0.1, subsample=1.0, max_depth=3,
                 max_leaf_nodes=None, min_samples_leaf=1, l2_regularization=0.0, max_bins=255,
                 validation_fraction=0.1, n_iter_no_change=None, tol=1e-4, init=None,
                 criterion="friedman_mse", warm_start=False, random_state=None, verbose=0):
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.init = init
        self.criterion = criterion
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    @interruptible
    def fit(self, X, y, sample_weight=None):
        """Fit ``n_estimators`` stages (fewer with early stopping); returns self."""
        validate_params(self)
        continuing = self._continuing()
        X, y = check_fit_data(self, X, y, accept_sparse="csr", float32=True, ensure_all_finite="allow-nan",
                             reset=not continuing)
        check_classification_targets(y)
        classes, y_encoded = np.unique(y, return_inverse=True)
        w = check_sample_weight(sample_weight, X.shape[0])
        weighted = classes if w is None else classes[np.bincount(y_encoded, weights=w) > 0]
        if weighted.size < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes (with positive "
                             f"weight); got 1 class ({weighted[0]!r}).")
        if continuing and not np.array_equal(classes, self.classes_):
            raise ValueError("warm_start=True needs the same classes as the first fit.")
        self.classes_ = classes
        loss = LOSSES[self.loss](None, classes.size)
        return self._fit(X, y_encoded.astype(np.int64), w, loss, True)

    def decision_function(self, X):
        """Raw scores f(x): the log-odds of classes_[1], shape (n,), or the K logits, (n, K)."""
        check_is_fitted(self)
        raw = self._raw_predict(X)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def staged_decision_function(self, X):
        """Yield decision_function after each stage."""
        for raw in self._staged_raw_predict(X):
            yield raw[:, 0] if raw.shape[1] == 1 else raw

    def predict_proba(self, X):
        """Class probabilities σ(f) (two classes) or softmax(f)."""
        check_is_fitted(self)
        return self._proba(self._raw_predict(X))

    def staged_predict_proba(self, X):
        """Yield predict_proba after each stage."""
        for raw in self._staged_raw_predict(X):
            yield self._proba(raw)

    def predict(self, X):
        """The class of highest probability (largest raw score)."""
        check_is_fitted(self)
        return self.classes_[_best_class(self._raw_predict(X))]

    def staged_predict(self, X):
        """Yield predict after each stage."""
        for raw in self._staged_raw_predict(X):
            yield self.classes_[_best_class(raw)]

    def _proba(self, raw):
        return LOSSES["log_loss"](None, max(2, raw.shape[1])).probabilities(raw)


def _best_class(raw):
    """argmax of the probabilities, read off the raw scores (σ and softmax are monotone)."""
    return (raw[:, 0] > 0).astype(np.intp) if raw.shape[1] == 1 else np.argmax(raw, axis=1)
