"""Random forests: bagged trees that draw candidate features at every split."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from ..tree._criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA
from ..utils import N_JOBS, VERBOSE, Interval, Options
from ._forest_base import _BaseForest, _ForestClassifierMixin, _ForestRegressorMixin

_TREE_PARAMS = ("criterion", "max_depth", "min_samples_split", "min_samples_leaf", "min_weight_fraction_leaf",
                "max_features", "max_leaf_nodes", "min_impurity_decrease", "ccp_alpha", "max_bins")

_FOREST_CONSTRAINTS = {
    "n_estimators": [Interval(Integral, 1, None, closed="left")],
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_split": [Interval(Integral, 2, None, closed="left"), Interval(Real, 0.0, 1.0, closed="right")],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0.0, 1.0, closed="neither")],
    "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
    "max_features": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0.0, 1.0, closed="right"),
                     Options({"sqrt", "log2"}), None],
    "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
    "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
    "ccp_alpha": [Interval(Real, 0.0, None, closed="left")],
    "max_bins": [Interval(Integral, 2, 65535, closed="both"), None],
    "bootstrap": ["boolean"],
    "oob_score": ["boolean"],
    "n_jobs": N_JOBS,
    "random_state": ["random_state"],
    "verbose": VERBOSE,
    "warm_start": ["boolean"],
    "max_samples": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0.0, 1.0, closed="right"), None],
}


class _BaseRandomForest(_BaseForest):
    def _n_member_features(self, n_features):
        return n_features  # the trees draw their candidate features at each split themselves

    def _member_prototype(self):
        from ..tree.decision_tree import DecisionTreeClassifier, DecisionTreeRegressor

        tree = DecisionTreeClassifier() if self._is_classifier else DecisionTreeRegressor()
        return tree.set_params(**{name: getattr(self, name) for name in _TREE_PARAMS})

    @property
    def feature_importances_(self):
        """Mean over the trees of their normalised impurity decrease per feature; sums to 1."""
        check_is_fitted(self)
        total = np.mean([tree.feature_importances_ for tree in self.estimators_], axis=0)
        return total / total.sum() if total.sum() > 0 else total


class RandomForestClassifier(_ForestClassifierMixin, ClassifierMixin, _BaseRandomForest):
    """Random forest classifier (Breiman 2001).

    M trees, each grown to full depth (by default) on a bootstrap sample of the n training
    samples, and at every split choosing the best threshold among k = ``max_features``
    features drawn without replacement (k ≤ d; 001 §12 writes k ≥ d, a typo). The forest
    predicts argmax_c (1/M) Σ_m p_m(c | x) (soft voting; ``voting="hard"`` takes the majority
    of the trees' labels, the mode of 002 Algorithm 5.35). Seeds: 001 §12; 002 §5.4.2, §6.5.

    ``max_features`` keeps scikit-learn's meaning and default ("sqrt", √d per split, as the
    notes); the bootstrap is passed to the trees as integer sample weights, like scikit-learn,
    whose seeds it also draws, so both libraries grow their trees on identical bootstrap samples.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees M.
    criterion : {"gini", "entropy", "log_loss", "misclassification"}, default="gini"
        Split impurity of the trees.
    max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf, max_leaf_nodes, min_impurity_decrease, ccp_alpha
        Tree growth and pruning, as in :class:`lucidml.tree.DecisionTreeClassifier`.
    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        Candidate features per split (None: all d, i.e. bagged trees).
    max_bins : int or None, default=None
        Histogram split search over at most this many quantile bins (None: exact search).
    bootstrap : bool, default=True
        Draw a bootstrap sample per tree (False: every tree sees all samples).
    oob_score : bool, default=False
        Estimate accuracy on the out-of-bag samples.
    voting : {"soft", "hard"}, default="soft"
        Average probabilities or count labels.
    n_jobs : None, -1 or int ≥ 1, default=None
        Trees grown and evaluated in parallel (joblib threads; the tree kernels release the GIL).
        None follows ``lucidml.set_config(n_threads=...)`` (every core by default), -1 is every core; small
        forests on small data run on one thread.
    random_state : int, RandomState instance or None, default=None
        Bootstrap samples and feature draws.
    verbose : int, default=0
        Progress on standard output: 0 prints nothing; 1 prints one row per tree as the trees
        are collected (trees 1–10, then every 10th, every 100th, …) with the estimated remaining
        time; 2 or more prints every tree.
    warm_start : bool, default=False
        Keep the fitted trees and add new ones up to ``n_estimators``.
    class_weight : dict, "balanced", "balanced_subsample" or None, default=None
        Class weights multiplying the sample weights; "balanced_subsample" balances each
        bootstrap sample by its own class counts.
    max_samples : int, float or None, default=None
        Bootstrap sample size: n (None), an int, or a fraction of n.

    Attributes
    ----------
    estimators_ : list of DecisionTreeClassifier
        The fitted trees (they see labels encoded as 0..n_classes−1).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        Number of classes.
    feature_importances_ : ndarray of shape (n_features,)
        Mean impurity decrease per feature.
    oob_score_ : float
        Out-of-bag accuracy (with ``oob_score=True``).
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Out-of-bag class probabilities.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lucidml.ensemble.random_forest import RandomForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> rf = RandomForestClassifier(n_estimators=50, oob_score=True, random_state=0).fit(X, y)
    >>> bool(rf.oob_score_ > 0.9)
    True
    >>> rf.predict(X[:3])
    array([0, 0, 0])
    """

    _parameter_constraints = {
        **_FOREST_CONSTRAINTS,
        "criterion": [Options(set(CLASSIFICATION_CRITERIA))],
        "voting": [Options({"soft", "hard"})],
        "class_weight": [dict, Options({"balanced", "balanced_subsample"}), None],
    }

    def __init__(self, n_estimators=100, *, criterion="gini", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_features="sqrt", max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, max_bins=None, bootstrap=True, oob_score=False,
                 voting="soft", n_jobs=None, random_state=None, warm_start=False, class_weight=None,
                 max_samples=None, verbose=0):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.max_bins = max_bins
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.voting = voting
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.max_samples = max_samples

    def _class_weights(self, y):
        if self.class_weight is None or self.class_weight == "balanced_subsample":
            return np.ones(len(y))
        return compute_sample_weight(self.class_weight, self.classes_[y])

    def _fit_member(self, X, y, sw, seed, source):
        if self.class_weight != "balanced_subsample":
            return super()._fit_member(X, y, sw, seed, source)
        # Balance by the class counts of this tree's own bootstrap sample.
        counts = self._draw(seed, X.shape[0], X.shape[1])[0]
        drawn = np.bincount(y, weights=counts, minlength=self.n_classes_)
        present = drawn > 0
        class_w = np.zeros(self.n_classes_)
        class_w[present] = counts.sum() / (present.sum() * drawn[present])
        return super()._fit_member(X, y, sw * class_w[y], seed, source)


class RandomForestRegressor(_ForestRegressorMixin, RegressorMixin, _BaseRandomForest):
    """Random forest regressor: the mean of trees grown on bootstrap samples with random split candidates.

    ŷ(x) = (1/M) Σ_m T_m(x) (seeds: 001 §12; 002 §5.4.2). ``max_features`` keeps
    scikit-learn's meaning and default 1.0 (all d features: bagged trees); the SPEC's d/3
    (Breiman 2001) is ``max_features=1/3``.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees M.
    criterion : {"squared_error", "absolute_error"}, default="squared_error"
        Split criterion of the trees.
    max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf, max_leaf_nodes, min_impurity_decrease, ccp_alpha, max_bins
        As in :class:`RandomForestClassifier`.
    max_features : {"sqrt", "log2"}, int, float or None, default=1.0
        Candidate features per split.
    bootstrap, oob_score, n_jobs, random_state, warm_start, max_samples, verbose
        As in :class:`RandomForestClassifier`; ``oob_score_`` is the out-of-bag R².

    Attributes
    ----------
    estimators_ : list of DecisionTreeRegressor
        The fitted trees.
    feature_importances_ : ndarray of shape (n_features,)
        Mean impurity decrease per feature.
    oob_score_ : float
        Out-of-bag R² (with ``oob_score=True``).
    oob_prediction_ : ndarray of shape (n_samples,)
        Out-of-bag predictions.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from lucidml.ensemble.random_forest import RandomForestRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> rf = RandomForestRegressor(n_estimators=50, random_state=0).fit(X, y)
    >>> bool(rf.score(X, y) > 0.8)
    True
    """

    _parameter_constraints = {
        **_FOREST_CONSTRAINTS,
        "criterion": [Options(set(REGRESSION_CRITERIA))],
    }

    def __init__(self, n_estimators=100, *, criterion="squared_error", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_features=1.0, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, max_bins=None, bootstrap=True, oob_score=False,
                 n_jobs=None, random_state=None, warm_start=False, max_samples=None, verbose=0):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.max_bins = max_bins
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.max_samples = max_samples
