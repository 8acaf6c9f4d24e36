"""Bootstrap aggregating (bagging) of any estimator."""

from numbers import Integral, Real

from sklearn.base import ClassifierMixin, RegressorMixin

from ..utils import N_JOBS, VERBOSE, HasMethods, Interval, Options
from ._forest_base import _BaseForest, _ForestClassifierMixin, _ForestRegressorMixin

_BAGGING_CONSTRAINTS = {
    "estimator": [HasMethods(["fit", "predict"]), None],
    "n_estimators": [Interval(Integral, 1, None, closed="left")],
    "max_samples": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0, 1, closed="right")],
    "max_features": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0, 1, closed="right")],
    "bootstrap": ["boolean"],
    "bootstrap_features": ["boolean"],
    "oob_score": ["boolean"],
    "warm_start": ["boolean"],
    "n_jobs": N_JOBS,
    "random_state": ["random_state"],
    "verbose": VERBOSE,
}


class _BaseBagging(_BaseForest):
    def _n_member_features(self, n_features):
        if isinstance(self.max_features, Integral):
            if self.max_features > n_features:
                raise ValueError(f"max_features={self.max_features} exceeds n_features={n_features}.")
            return int(self.max_features)
        return max(1, int(self.max_features * n_features))

    def _member_prototype(self):
        if self.estimator is not None:
            return self.estimator
        from ..tree.decision_tree import DecisionTreeClassifier, DecisionTreeRegressor

        return DecisionTreeClassifier() if self._is_classifier else DecisionTreeRegressor()


class BaggingClassifier(_ForestClassifierMixin, ClassifierMixin, _BaseBagging):
    """Bagging classifier: members fitted on bootstrap samples, combined by voting.

    Each of the M members h_m is fitted on a bootstrap sample D_m (n draws with replacement,
    or ``max_samples`` of them) and, optionally, a random subset of the features. The ensemble
    predicts by soft voting, argmax_c (1/M) Σ_m p_m(c | x), or by hard voting, the most common
    member prediction. Averaging lowers the variance term of the bias–variance decomposition
    (seeds: 001 §11; 002 §1.4, §5.4.2). Bootstrap samples are passed as integer sample weights.

    Parameters
    ----------
    estimator : estimator or None, default=None
        The member; None is an unpruned :class:`lucidml.tree.DecisionTreeClassifier`.
    n_estimators : int, default=10
        Number of members M.
    max_samples : int or float, default=1.0
        Draws per member: an int, or a fraction of n_samples.
    max_features : int or float, default=1.0
        Features per member: an int, or a fraction of n_features.
    bootstrap : bool, default=True
        Draw samples with replacement (False: a subsample without replacement).
    bootstrap_features : bool, default=False
        Draw features with replacement.
    oob_score : bool, default=False
        Estimate accuracy on the samples each member did not see.
    voting : {"soft", "hard"}, default="soft"
        Average probabilities (soft) or count predicted labels (hard).
    warm_start : bool, default=False
        Keep the fitted members and add new ones up to ``n_estimators``.
    n_jobs : None, -1 or int ≥ 1, default=None
        Members fitted and evaluated in parallel (joblib threads; lucidml trees release the GIL).
        None follows ``lucidml.set_config(n_threads=...)`` (every core by default), -1 is every core; small
        ensembles on small data run on one thread.
    random_state : int, RandomState instance or None, default=None
        Seeds of the bootstrap draws and of the members.
    verbose : int, default=0
        Progress on standard output: 0 prints nothing; 1 prints one row per member as the members
        are collected (members 1–10, then every 10th, every 100th, …) with the estimated remaining
        time; 2 or more prints every member.

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members (they see labels encoded as 0..n_classes−1).
    estimators_features_ : list of ndarray
        The feature indices each member was fitted on.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        Number of classes.
    oob_score_ : float
        Out-of-bag accuracy (with ``oob_score=True``).
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Out-of-bag class probabilities (votes for hard voting); NaN for samples never out of bag.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lucidml.ensemble.bagging import BaggingClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = BaggingClassifier(n_estimators=20, random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.95)
    True
    """

    _parameter_constraints = {**_BAGGING_CONSTRAINTS, "voting": [Options({"soft", "hard"})]}

    def __init__(self, n_estimators=10, *, estimator=None, max_samples=1.0, max_features=1.0, bootstrap=True,
                 bootstrap_features=False, oob_score=False, voting="soft", warm_start=False, n_jobs=None,
                 random_state=None, verbose=0):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.bootstrap_features = bootstrap_features
        self.oob_score = oob_score
        self.voting = voting
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose


class BaggingRegressor(_ForestRegressorMixin, RegressorMixin, _BaseBagging):
    """Bagging regressor: the mean of members fitted on bootstrap samples.

    ŷ(x) = (1/M) Σ_m h_m(x), each h_m fitted on a bootstrap sample (and optionally a feature
    subset) of the training data (seeds: 001 §11; 002 §5.4.2).

    Parameters
    ----------
    estimator : estimator or None, default=None
        The member; None is an unpruned :class:`lucidml.tree.DecisionTreeRegressor`.
    n_estimators, max_samples, max_features, bootstrap, bootstrap_features, oob_score, warm_start, n_jobs, random_state, verbose
        As in :class:`BaggingClassifier`; ``oob_score_`` is the out-of-bag R².

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members.
    estimators_features_ : list of ndarray
        The feature indices each member was fitted on.
    oob_score_ : float
        Out-of-bag R² (with ``oob_score=True``).
    oob_prediction_ : ndarray of shape (n_samples,)
        Out-of-bag predictions; NaN for samples never out of bag.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from lucidml.ensemble.bagging import BaggingRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = BaggingRegressor(n_estimators=20, random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.8)
    True
    """

    _parameter_constraints = dict(_BAGGING_CONSTRAINTS)

    def __init__(self, n_estimators=10, *, estimator=None, max_samples=1.0, max_features=1.0, bootstrap=True,
                 bootstrap_features=False, oob_score=False, warm_start=False, n_jobs=None, random_state=None,
                 verbose=0):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.bootstrap_features = bootstrap_features
        self.oob_score = oob_score
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
