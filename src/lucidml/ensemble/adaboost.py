"""AdaBoost for classification: AdaBoost.M1 and its multiclass form SAMME."""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import accuracy_score
from sklearn.utils import check_random_state, get_tags
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from ..tree._exact_data import exact_search_input, shared_tables
from ..utils import (
    VERBOSE,
    HasMethods,
    Interval,
    StageTable,
    check_sample_weight,
    interruptible,
    raise_if_cancelled,
    validate_params,
)
from ..utils.numerics import in_power_of_two_units
from ..utils.validation import FLOAT_DTYPES, check_classification_targets, check_fit_data, check_predict_data
from ._forest_base import fresh_member
from ._forest_predict import FlatForest

_MAX_SEED = np.iinfo(np.int32).max
_MIN_ERROR = 1e-10  # a learner with no weighted error gets the weight of error 1e-10 (α ≈ 23)


class AdaBoostClassifier(ClassifierMixin, BaseEstimator):
    """AdaBoost classifier: a weighted vote of weak learners fitted to reweighted samples.

    Starting from wᵢ = 1/m (times any sample weight), each round k (seeds: 000 §7.8.1–7.8.2,
    Algorithm 10; 001 §6.1; 002 §1.4)

        fit G_k with sample weights w
        r   = Σᵢ wᵢ 1[G_k(xᵢ) ≠ yᵢ] / Σᵢ wᵢ                    (weighted error)
        α_k = ν (ln((1 − r)/r) + ln(K − 1))                    (ν = learning_rate)
        wᵢ ← wᵢ exp(α_k 1[G_k(xᵢ) ≠ yᵢ]), then renormalised,

    and the ensemble predicts argmax_c Σ_k α_k 1[G_k(x) = c]. For K = 2 classes the ln(K − 1)
    term vanishes and this is AdaBoost.M1, sign Σ α_k G_k(x) with G ∈ {−1, +1}; it minimises the
    exponential loss stagewise, with β_k = α_k/2 (000 §7.8.1). For K > 2 it is SAMME (Zhu et al.
    2009), the multiclass form scikit-learn implements. The notes' typos are corrected: the
    error counts misclassified weight (001 §6.1 writes Σ w y h), and α = ln(...) goes with
    exp(α·1[miss]) (001 pairs it with exp(−α y h), doubling the exponent).

    A learner with r = 0 gets the weight of r = 1e-10 and boosting stops (nothing is left to
    reweight); a learner with r ≥ 1 − 1/K (no better than chance) is discarded and boosting
    stops; if it is the first, fitting fails.

    Parameters
    ----------
    estimator : estimator or None, default=None
        The weak learner; None is a stump, :class:`lucidml.tree.DecisionTreeClassifier` of depth 1.
        It must accept ``sample_weight``.
    n_estimators : int, default=50
        Boosting rounds at most.
    learning_rate : float, default=1.0
        Shrinkage ν of every α_k.
    random_state : int, RandomState instance or None, default=None
        Seeds the learners' own ``random_state`` (drawn as scikit-learn draws them).
    verbose : int, default=0
        Progress on standard output: 0 prints nothing; 1 prints one row per round (rounds 1–10,
        then every 10th, every 100th, …) with the weighted error r_k, the learner weight α_k
        (those of ``estimator_errors_`` and ``estimator_weights_``) and the estimated remaining
        time; 2 or more prints every round.

    Attributes
    ----------
    estimators_ : list of estimators
        The learners kept (they see labels encoded as 0..n_classes−1).
    estimator_weights_ : ndarray of shape (n_estimators,)
        α_k (0 for rounds not run).
    estimator_errors_ : ndarray of shape (n_estimators,)
        r_k (1 for rounds not run).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        Number of classes K.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from lucidml.ensemble.adaboost import AdaBoostClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = AdaBoostClassifier(n_estimators=20, random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.95)
    True
    >>> len(clf.estimators_)
    20
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, n_estimators=50, *, estimator=None, learning_rate=1.0, random_state=None, verbose=0):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.random_state = random_state
        self.verbose = verbose

    @interruptible
    def fit(self, X, y, sample_weight=None):
        """Boost up to ``n_estimators`` learners on X (n_samples, n_features) and labels y."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, accept_sparse="csr", float32=True)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        sw = check_sample_weight(sample_weight, X.shape[0])
        # exact; Σw finite for weights near the largest float
        sw = np.ones(X.shape[0]) if sw is None else in_power_of_two_units(sw)
        prototype = self._prototype()
        if not has_fit_parameter(prototype, "sample_weight"):
            raise ValueError(f"{type(prototype).__name__} does not accept sample_weight; AdaBoost needs it.")
        self.estimators_, self.estimator_weights_, self.estimator_errors_ = _samme(
            X, codes, sw / sw.sum(), prototype, self.n_classes_, self.n_estimators, self.learning_rate,
            check_random_state(self.random_state), StageTable(self.verbose, self.n_estimators,
                                                              ["Weighted Error", "Learner Weight"]),
        )
        self._flat = self._flatten(X.shape[1])
        return self

    def _flatten(self, n_features):
        """The learners as one node table whose leaves hold α_k · onehot(G_k(x)), so that one compiled
        pass gives Σ_k α_k 1[G_k(x) = c] (see ``FlatForest``); None unless they are all lucidml trees."""
        if not self.estimators_ or not FlatForest.supports(self.estimators_):
            return None
        alphas = {id(learner): alpha for learner, alpha in zip(self.estimators_, self.estimator_weights_)}

        def votes(learner, tree):
            out = np.zeros((tree.node_count, self.n_classes_))
            label = np.asarray(learner.classes_)[np.argmax(tree.value[:, 0, :], axis=1)].astype(np.intp)
            out[np.arange(tree.node_count), label] = alphas[id(learner)]
            return out

        return FlatForest(self.estimators_, [np.arange(n_features)] * len(self.estimators_), votes)

    def _prototype(self):
        if self.estimator is not None:
            return self.estimator
        from ..tree.decision_tree import DecisionTreeClassifier

        return DecisionTreeClassifier(max_depth=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = get_tags(self._prototype()).input_tags.sparse  # X goes to the learners as it is
        return tags

    # -- prediction ------------------------------------------------------------------------
    def staged_decision_function(self, X):
        """The decision function after each round (see :meth:`decision_function`)."""
        check_is_fitted(self)
        X = check_predict_data(self, X, dtype=FLOAT_DTYPES, accept_sparse="csr")
        votes = np.zeros((X.shape[0], self.n_classes_))
        total = 0.0
        for learner, alpha in zip(self.estimators_, self.estimator_weights_):
            votes[np.arange(X.shape[0]), learner.predict(X).astype(np.intp)] += alpha
            total += alpha
            yield _decision(votes / total, self.n_classes_)

    def decision_function(self, X):
        """Per class c, f_c = (K·V_c − 1)/(K − 1) with V_c = Σ_k α_k 1[G_k(x) = c] / Σ_k α_k, as
        scikit-learn's SAMME; for two classes f₁ − f₀ = 2 Σ α_k G_k(x) / Σ α_k with G ∈ {−1, +1}."""
        if getattr(self, "_flat", None) is None:
            for decision in self.staged_decision_function(X):
                pass
            return decision
        check_is_fitted(self)
        X = check_predict_data(self, X, order="C", dtype=FLOAT_DTYPES, accept_sparse="csr")
        return _decision(self._flat.sum_values(X) / np.sum(self.estimator_weights_), self.n_classes_)

    def staged_predict(self, X):
        """Predicted labels after each round."""
        for decision in self.staged_decision_function(X):
            yield self._labels(decision)

    def predict(self, X):
        """argmax_c Σ_k α_k 1[G_k(x) = c] (two classes: sign of the decision, sign(0) → classes_[0] as scikit-learn)."""
        return self._labels(self.decision_function(X))

    def staged_predict_proba(self, X):
        """Class probabilities after each round (see :meth:`predict_proba`)."""
        for decision in self.staged_decision_function(X):
            yield _proba(decision, self.n_classes_)

    def predict_proba(self, X):
        """softmax of the decision divided by K − 1 (two classes: softmax of [−d/2, d/2]), as scikit-learn's SAMME."""
        return _proba(self.decision_function(X), self.n_classes_)

    def staged_score(self, X, y, sample_weight=None):
        """Accuracy after each round."""
        for labels in self.staged_predict(X):
            yield accuracy_score(y, labels, sample_weight=sample_weight)

    def _labels(self, decision):
        if self.n_classes_ == 2:
            return self.classes_[(decision > 0).astype(np.intp)]
        return self.classes_[np.argmax(decision, axis=1)]

    @property
    def feature_importances_(self):
        """α-weighted mean of the learners' feature importances."""
        check_is_fitted(self)
        weights = self.estimator_weights_[: len(self.estimators_)]
        return sum(w * e.feature_importances_ for w, e in zip(weights, self.estimators_)) / weights.sum()


def _samme(X, y, w, prototype, K, n_rounds, nu, rng, table):
    """Algorithm 10 with the SAMME weight; returns (learners, α, r). y holds codes 0..K−1; ``table``
    (a ``StageTable``) prints each kept round."""
    learners, alphas, errors = [], np.zeros(n_rounds), np.ones(n_rounds)
    X = exact_search_input(prototype, X)  # a sparse X, once for every round
    shared = shared_tables(prototype, X)  # every round's tree searches the same X: prepare it once
    if shared is not None:
        validate_params(prototype)  # once: every round's learner is a copy of it
    for k in range(n_rounds):
        raise_if_cancelled()
        learner = fresh_member(prototype, rng.randint(_MAX_SEED))  # a seed every round, as scikit-learn draws
        if shared is not None:
            learner._fit_validated(X, y, w, shared=shared, params_checked=True)
        else:
            learner.fit(X, y, sample_weight=w)
        if K == 1:  # one class (scikit-learn accepts it): a single learner that predicts it
            return [learner], np.ones(1), np.zeros(1)
        miss = learner.predict(X) != y
        r = float(np.dot(w, miss) / w.sum())
        if r >= 1.0 - 1.0 / K:  # no better than chance: drop it and stop
            if not learners:
                raise ValueError("The first weak learner is no better than chance (weighted error "
                                 f"{r:.3f} ≥ 1 − 1/K); AdaBoost cannot start.")
            break
        learners.append(learner)
        errors[k] = r
        alphas[k] = nu * (np.log((1.0 - max(r, _MIN_ERROR)) / max(r, _MIN_ERROR)) + np.log(K - 1.0))
        table.row(k + 1, errors[k], alphas[k])
        if r <= 0.0:  # perfect fit: nothing left to reweight
            break
        w = w * np.exp(alphas[k] * miss * (w > 0))
        total = w.sum()
        if not np.isfinite(total) or total <= 0:
            warnings.warn(f"AdaBoost stopped at round {k + 1}: the sample weights overflowed.", UserWarning,
                          stacklevel=4)
            break
        w = w / total
    return learners, alphas, errors


def _decision(shares, K):
    """Per-class vote shares V_c → the symmetric SAMME scores f_c = (K·V_c − 1)/(K − 1) (Zhu et al. 2009).

    Each learner adds α to the class it predicts and −α/(K − 1) to the others, so the scores sum
    to zero; for two classes the decision is f₁ − f₀ = 2 Σ α_k G_k / Σ α_k.
    """
    if K == 1:
        return np.zeros_like(shares)
    f = (K * shares - 1.0) / (K - 1.0)
    return f[:, 1] - f[:, 0] if K == 2 else f


def _proba(decision, K):
    if K == 1:
        return np.ones_like(decision)
    if K == 2:
        return softmax(np.column_stack([-decision, decision]) / 2, axis=1)
    return softmax(decision / (K - 1), axis=1)
