"""The notes' model comparison: every model on the same repeated random splits, plus a hard-voting ensemble."""

import time
import warnings
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin, clone, is_classifier
from sklearn.exceptions import FitFailedWarning
from sklearn.metrics import accuracy_score, check_scoring, r2_score
from sklearn.utils.validation import check_consistent_length, check_X_y

from ..utils.validation import check_methods
from ._splits import comparison_splits

__all__ = ["ComparisonResult", "compare_models", "comparison_splits"]

VOTE = "hard vote"
# Scorers that need only the predictions, which the comparison has already made (and timed).
_FROM_PREDICTIONS = {"accuracy": accuracy_score, "r2": r2_score}


@dataclass(frozen=True)
class ComparisonResult:
    """Per-split scores and times of :func:`compare_models`.

    Attributes
    ----------
    scores : dict of str -> ndarray of shape (n_splits,)
        Test score of each model (and of each hard vote, by default under ``"hard vote"``) on
        each split.
    fit_times : dict of str -> ndarray of shape (n_splits,)
        Seconds to fit each model on each split; a vote's are the sum of its members'.
    predict_times : dict of str -> ndarray of shape (n_splits,)
        Seconds to predict each test part; a vote's are its members' and its tally.
    splits : list of (ndarray, ndarray)
        The (train, test) row indices of each split, the same for every model.
    voters : dict of str -> list of str
        The members of each vote that ran without error.
    errors : dict of str -> str
        With a numeric ``error_score``: the error that stopped each failing model (or vote).
    """

    scores: dict
    fit_times: dict
    predict_times: dict
    splits: list = field(repr=False)
    voters: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)

    @property
    def mean(self):
        """Mean score of each model over the splits."""
        return {name: float(np.mean(s)) for name, s in self.scores.items()}

    @property
    def std(self):
        """Standard deviation (population, as the notes' ``np.std``) of each model's scores."""
        return {name: float(np.std(s)) for name, s in self.scores.items()}

    def to_frame(self):
        """A pandas DataFrame, one row per model: mean, std, min and max score, mean fit and predict time."""
        import pandas as pd

        rows = {name: {"mean": np.mean(s), "std": np.std(s), "min": np.min(s), "max": np.max(s),
                       "fit_time": np.mean(self.fit_times[name]), "predict_time": np.mean(self.predict_times[name])}
                for name, s in self.scores.items()}
        return pd.DataFrame.from_dict(rows, orient="index")


def compare_models(estimators, X, y, *, n_splits=50, test_size=None, train_size=None, cv=None, scoring=None,
                   stratify=True, voting=True, prepare=None, warm_up=False, error_score="raise", progress=None,
                   random_state=0):
    """Score several models on the same repeated random train/test splits, and their majority vote.

    The notes' "modelcode" (seeds 002 §1.4, ``multi_run``): for split i = 0, …, n_splits − 1 the
    data is split at random into a training part and a test part (``test_size``), stratified by
    class; every model is cloned, fitted on the training part and scored on the test part; each
    model's mean and standard deviation over the splits are reported. Every model sees the very
    same splits, so their differences are not those of luck in the split. With
    ``random_state=0``, split i is ``train_test_split(..., test_size=0.3, random_state=i,
    stratify=y)``, exactly the notes' loop. ``cv=K`` uses the K folds of a (stratified) K-fold
    cross-validation instead.

    With ``voting`` (classifiers only) the notes' ensemble is scored too: on each split, each
    test point gets the label most of the fitted members predict, ties going to the smallest label
    — the rule of scikit-learn's ``VotingClassifier(voting="hard")``, tallied from the members'
    predictions instead of fitting them all again. Its score is its accuracy; its times are those
    of fitting and running all its members, as the notes' ``VotingClassifier`` run measures.

    This is the engine of ``lucidml compare`` too, which gives it the preparation of its tables
    (``prepare``), an untimed first fit (``warm_up``) and keeps going past a failing model
    (``error_score``). Splitting, cloning and scoring are scikit-learn's (``train_test_split``,
    ``KFold``, ``clone``, ``check_scoring``).

    Parameters
    ----------
    estimators : dict of str -> estimator, list of (str, estimator) pairs, or list of estimators
        The models (cloned on every split; never fitted themselves), each with ``fit`` and
        ``predict``. Unnamed ones are named by their class, numbered when a class repeats.
    X : array-like of shape (n_samples, n_features)
        With ``prepare``, anything the preparation takes (e.g. a pandas DataFrame with text
        columns and missing values), rows selected with ``iloc`` where it has it.
    y : array-like of shape (n_samples,)
    n_splits : int, default=50
        Number of random splits (ignored with ``cv``).
    test_size, train_size : float in (0, 1), int or None, default=None
        As in ``train_test_split``; with neither, ``test_size=0.3``: the notes train on 70 %.
    cv : int, cross-validation splitter, iterable of (train, test) or None, default=None
        Instead of random splits: K-fold with K = ``cv`` (stratified for class labels when
        ``stratify``; shuffled with ``random_state``), a splitter's ``split(X, y)``, or the
        splits themselves.
    scoring : str, callable or None, default=None
        A scikit-learn scorer; None is each model's ``score`` (accuracy, R²). With ``voting``, only
        None or ``"accuracy"``.
    stratify : bool, default=True
        Keep the class proportions in both parts (when every model is a classifier and ``y``
        holds class labels).
    voting : bool, list of str or dict of str -> list of str, default=True
        True: also score the hard-voting ensemble of all the models, under the name ``"hard
        vote"``; a list: the vote of those models only (the notes vote with five of their ten);
        a dict: several votes, each name -> its members.
    prepare : transformer, dict of str -> transformer or None, default=None
        Preparation of the features fitted on each training part (a clone), applied to both parts
        and not timed: one for every model, or one per model name (a model not named, or named
        with None, gets the rows as they are). A transformer shared by several models is fitted
        once per split.
    warm_up : bool, default=False
        Fit each model once on the first split, untimed, before its timed fits (to load compiled
        code and fill caches).
    error_score : "raise" or float, default="raise"
        What happens when a model fails: raise, or give every split this score (e.g. ``np.nan``),
        keep the error message in ``errors``, leave the model out of the votes and warn.
    progress : callable(done, total, name) or None, default=None
        Called as each model starts, ``done`` models being finished.
    random_state : int, RandomState instance or None, default=0
        An int s gives random split i the seed s + i (K-fold: the shuffle's seed); otherwise the
        seeds are drawn from it.

    Returns
    -------
    ComparisonResult

    See Also
    --------
    comparison_splits : the splits alone.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lucidml.model_selection import compare_models
    >>> from lucidml.naive_bayes import GaussianNB
    >>> from lucidml.neighbors import KNeighborsClassifier
    >>> from lucidml.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> models = {"naive Bayes": GaussianNB(), "5-NN": KNeighborsClassifier(5),
    ...           "tree": DecisionTreeClassifier(max_depth=3)}
    >>> result = compare_models(models, X, y, n_splits=10)
    >>> list(result.scores)
    ['naive Bayes', '5-NN', 'tree', 'hard vote']
    >>> result.scores["5-NN"].shape
    (10,)
    >>> list(result.to_frame().columns)
    ['mean', 'std', 'min', 'max', 'fit_time', 'predict_time']
    """
    named = _named_models(estimators)
    votes = _votes(voting, named)
    _check_options(named, votes, scoring, error_score)
    X, y = _check_data(X, y, prepare)
    stratify = stratify and all(is_classifier(estimator) for estimator in named.values())
    splits = comparison_splits(y, n_splits=n_splits, test_size=test_size, train_size=train_size, cv=cv,
                               stratify=stratify, random_state=random_state)
    parts = _Parts(X, y, splits, prepare)
    voters = {name for members in votes.values() for name in members}
    scores, fit_times, predict_times, predictions, errors = {}, {}, {}, {}, {}
    for done, (name, estimator) in enumerate(named.items()):
        if progress is not None:
            progress(done, len(named), name)
        try:
            runs, predicted = _run_model(estimator, parts.of(name), scoring, warm_up, name in voters)
        except Exception as error:
            if error_score == "raise":
                raise
            errors[name] = f"{type(error).__name__}: {error}"
            warnings.warn(f"{name} failed and is scored {error_score}: {errors[name]}", FitFailedWarning,
                          stacklevel=2)
            runs, predicted = np.full((3, len(splits)), np.nan), None
            runs[0] = error_score
        scores[name], fit_times[name], predict_times[name] = runs
        predictions[name] = predicted
    kept = {}
    for vote, members in votes.items():
        kept[vote] = [name for name in members if name not in errors]
        if not kept[vote]:
            errors[vote] = "every member of the vote failed"
            scores[vote] = np.full(len(splits), error_score, dtype=float)
            fit_times[vote] = predict_times[vote] = np.full(len(splits), np.nan)
            continue
        scores[vote], tally = _vote(y, splits, [predictions[name] for name in kept[vote]])
        fit_times[vote] = sum(fit_times[name] for name in kept[vote])
        predict_times[vote] = sum(predict_times[name] for name in kept[vote]) + tally
    return ComparisonResult(scores=scores, fit_times=fit_times, predict_times=predict_times, splits=splits,
                            voters=kept, errors=errors)


def _run_model(estimator, parts, scoring, warm_up, keep_predictions):
    """Scores, fit seconds and predict seconds on every split (rows of a (3, n_splits) array)."""
    runs, predictions = [], []
    for i, (X_train, X_test, y_train, y_test) in enumerate(parts):
        if i == 0 and warm_up:
            clone(estimator).fit(X_train, y_train)
        model = clone(estimator)
        start = time.perf_counter()
        model.fit(X_train, y_train)
        fitted = time.perf_counter()
        predicted = model.predict(X_test)
        done = time.perf_counter()
        runs.append((_score(model, X_test, y_test, predicted, scoring), fitted - start, done - fitted))
        if keep_predictions:
            predictions.append(predicted)
    return np.array(runs, dtype=float).T, predictions


def _score(model, X_test, y_test, predicted, scoring):
    """The test score: from the predictions when the scorer needs nothing else, else scikit-learn's scorer."""
    if scoring is None:  # the model's own score, which the mixins' defaults compute from the predictions
        own = type(model).score
        if own is not ClassifierMixin.score and own is not RegressorMixin.score:
            return model.score(X_test, y_test)
        scoring = "accuracy" if own is ClassifierMixin.score else "r2"
    if isinstance(scoring, str) and scoring in _FROM_PREDICTIONS:
        return _FROM_PREDICTIONS[scoring](y_test, predicted)
    return check_scoring(model, scoring=scoring)(model, X_test, y_test)


def _vote(y, splits, predictions):
    """Accuracy of the hard vote on each split, and the seconds of each tally."""
    scores, seconds = np.empty(len(splits)), np.empty(len(splits))
    for i, (train, test) in enumerate(splits):
        start = time.perf_counter()
        scores[i] = np.mean(_hard_vote([member[i] for member in predictions], np.unique(y[train])) == y[test])
        seconds[i] = time.perf_counter() - start
    return scores, seconds


def _hard_vote(predictions, classes):
    """Majority label of each column of ``predictions`` (one row per model), ties to the smallest class."""
    codes = np.searchsorted(classes, np.asarray(predictions))
    votes = np.stack([(codes == c).sum(axis=0) for c in range(len(classes))])
    return classes[votes.argmax(axis=0)]


class _Parts:
    """The (X_train, X_test, y_train, y_test) of every split, as each model's preparation makes them."""

    def __init__(self, X, y, splits, prepare):
        self.X, self.y, self.splits, self.prepare = X, y, splits, prepare
        self._prepared = {}  # id(transformer) -> its parts (fitted once per split, shared)

    def of(self, name):
        step = self.prepare.get(name) if isinstance(self.prepare, dict) else self.prepare
        if step is None:
            return (self._split(train, test) for train, test in self.splits)
        if id(step) not in self._prepared:
            self._prepared[id(step)] = [self._prepare(step, train, test) for train, test in self.splits]
        return self._prepared[id(step)]

    def _split(self, train, test):
        return _rows(self.X, train), _rows(self.X, test), self.y[train], self.y[test]

    def _prepare(self, step, train, test):
        X_train, X_test, y_train, y_test = self._split(train, test)
        fitted = clone(step).fit(X_train, y_train)
        return fitted.transform(X_train), fitted.transform(X_test), y_train, y_test


def _rows(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def _check_data(X, y, prepare):
    if prepare is None:
        return check_X_y(X, y, accept_sparse="csr", dtype=None)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional; got shape {y.shape}.")
    check_consistent_length(X, y)
    return X, y


def _named_models(estimators):
    if isinstance(estimators, dict):
        pairs = list(estimators.items())
    else:
        pairs = [item if isinstance(item, tuple) else (None, item) for item in estimators]
    if not pairs:
        raise ValueError("estimators is empty: give at least one model.")
    named, counts = {}, {}
    for name, estimator in pairs:
        check_methods(estimator, ["fit", "predict"], "compare_models", "each model to be an estimator")
        if name is None:
            base = type(estimator).__name__
            counts[base] = counts.get(base, 0) + 1
            name = base if counts[base] == 1 else f"{base}-{counts[base]}"
        if name in named or name == VOTE:
            raise ValueError(f"Model name {name!r} is used twice (or is the name of the vote).")
        named[name] = estimator
    return named


def _votes(voting, named):
    """Each vote's name -> its members' names."""
    if voting is True:
        return {VOTE: list(named)}
    if voting is False or voting is None:
        return {}
    votes = dict(voting) if isinstance(voting, dict) else {VOTE: list(voting)}
    for vote, members in votes.items():
        if vote in named:
            raise ValueError(f"The vote {vote!r} has the name of a model.")
        unknown = [name for name in members if name not in named]
        if unknown or not members:
            raise ValueError(f"The vote {vote!r} needs models among {list(named)}; got {list(members)}.")
    return votes


def _check_options(named, votes, scoring, error_score):
    if votes:
        members = {name for names in votes.values() for name in names}
        others = [name for name in named if name in members and not is_classifier(named[name])]
        if others:
            raise ValueError(f"voting needs classifiers; {', '.join(others)} is not one (pass voting=False).")
        if scoring not in (None, "accuracy"):
            raise ValueError(f"The hard vote is scored by accuracy; scoring={scoring!r} needs voting=False.")
    if not (isinstance(error_score, str) and error_score == "raise") and not isinstance(error_score, Real):
        raise ValueError(f"error_score must be 'raise' or a number; got {error_score!r}.")
