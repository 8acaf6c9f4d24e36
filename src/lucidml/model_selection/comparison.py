"""The notes' model comparison: every model on the same repeated random splits, plus a hard-voting ensemble."""

import time
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_X_y

__all__ = ["ComparisonResult", "compare_models"]

VOTE = "hard vote"


@dataclass(frozen=True)
class ComparisonResult:
    """Per-split scores of :func:`compare_models`.

    Attributes
    ----------
    scores : dict of str -> ndarray of shape (n_splits,)
        Test score of each model (and of the hard vote, under ``"hard vote"``) on each split.
    fit_times : dict of str -> ndarray of shape (n_splits,)
        Seconds to fit and score each model on each split (the vote's: its tally only).
    splits : list of (ndarray, ndarray)
        The (train, test) row indices of each split, the same for every model.
    """

    scores: dict
    fit_times: dict
    splits: list = field(repr=False)

    @property
    def mean(self):
        """Mean score of each model over the splits."""
        return {name: float(np.mean(s)) for name, s in self.scores.items()}

    @property
    def std(self):
        """Standard deviation (population, as the notes' ``np.std``) of each model's scores."""
        return {name: float(np.std(s)) for name, s in self.scores.items()}

    def to_frame(self):
        """A pandas DataFrame, one row per model: mean, std, min and max score, mean fit time."""
        import pandas as pd

        rows = {name: {"mean": np.mean(s), "std": np.std(s), "min": np.min(s), "max": np.max(s),
                       "fit_time": np.mean(self.fit_times[name])} for name, s in self.scores.items()}
        return pd.DataFrame.from_dict(rows, orient="index")


def compare_models(estimators, X, y, *, n_splits=50, test_size=0.3, scoring=None, stratify=True, voting=True,
                   random_state=0):
    """Score several models on the same repeated random train/test splits, and their majority vote.

    The notes' "modelcode" (seeds 002 §1.4, ``multi_run``): for split i = 0, …, n_splits − 1 the
    data is split at random into a training part and a test part (``test_size``), stratified by
    class; every model is cloned, fitted on the training part and scored on the test part; each
    model's mean and standard deviation over the splits are reported. Every model sees the very
    same splits, so their differences are not those of luck in the split. With
    ``random_state=0``, split i is ``train_test_split(..., test_size=0.3, random_state=i,
    stratify=y)``, exactly the notes' loop.

    With ``voting=True`` (classifiers only) the notes' ensemble is scored too: on each split, each
    test point gets the label most of the fitted models predict, ties going to the smallest label —
    the rule of scikit-learn's ``VotingClassifier(voting="hard")``, tallied from the members'
    predictions instead of fitting them all again. Its score is its accuracy.

    Splitting, cloning and scoring are scikit-learn's (``train_test_split``, ``clone``,
    ``check_scoring``).

    Parameters
    ----------
    estimators : dict of str -> estimator, list of (str, estimator) pairs, or list of estimators
        The models (cloned on every split; never fitted themselves). Unnamed ones are named by
        their class, numbered when a class repeats.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_splits : int, default=50
    test_size : float in (0, 1) or int, default=0.3
        The notes train on 70 %.
    scoring : str, callable or None, default=None
        A scikit-learn scorer; None is each model's ``score`` (accuracy, R²). With ``voting``, only
        None or ``"accuracy"``.
    stratify : bool, default=True
        Keep the class proportions in both parts (classification targets only).
    voting : bool, default=True
        Also score the hard-voting ensemble of the models, under the name ``"hard vote"``.
    random_state : int, RandomState instance or None, default=0
        An int s gives split i the seed s + i; otherwise the seeds are drawn from it.

    Returns
    -------
    ComparisonResult

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
    ['mean', 'std', 'min', 'max', 'fit_time']
    """
    named = _named_models(estimators)
    X, y = check_X_y(X, y, accept_sparse="csr", dtype=None)
    _check_options(named, n_splits, scoring, voting)
    splits = _random_splits(y, n_splits, test_size, stratify and _is_labels(y), random_state)
    scores = {name: np.empty(n_splits) for name in named}
    times = {name: np.empty(n_splits) for name in named}
    if voting:
        scores[VOTE], times[VOTE] = np.empty(n_splits), np.empty(n_splits)
    for i, (train, test) in enumerate(splits):
        predictions = []
        for name, estimator in named.items():
            start = time.perf_counter()
            model = clone(estimator).fit(X[train], y[train])
            scores[name][i] = check_scoring(model, scoring=scoring)(model, X[test], y[test])
            times[name][i] = time.perf_counter() - start
            if voting:
                predictions.append(model.predict(X[test]))
        if voting:
            start = time.perf_counter()
            scores[VOTE][i] = np.mean(_hard_vote(predictions, np.unique(y[train])) == y[test])
            times[VOTE][i] = time.perf_counter() - start
    return ComparisonResult(scores=scores, fit_times=times, splits=splits)


def _hard_vote(predictions, classes):
    """Majority label of each column of ``predictions`` (one row per model), ties to the smallest class."""
    codes = np.searchsorted(classes, np.asarray(predictions))
    votes = np.stack([(codes == c).sum(axis=0) for c in range(len(classes))])
    return classes[votes.argmax(axis=0)]


def _named_models(estimators):
    if isinstance(estimators, dict):
        pairs = list(estimators.items())
    else:
        pairs = [item if isinstance(item, tuple) else (None, item) for item in estimators]
    if not pairs:
        raise ValueError("estimators is empty: give at least one model.")
    named, counts = {}, {}
    for name, estimator in pairs:
        if not hasattr(estimator, "fit"):
            raise TypeError(f"Each model must be an estimator with fit; got {estimator!r}.")
        if name is None:
            base = type(estimator).__name__
            counts[base] = counts.get(base, 0) + 1
            name = base if counts[base] == 1 else f"{base}-{counts[base]}"
        if name in named or name == VOTE:
            raise ValueError(f"Model name {name!r} is used twice (or is the name of the vote).")
        named[name] = estimator
    return named


def _check_options(named, n_splits, scoring, voting):
    if isinstance(n_splits, bool) or not isinstance(n_splits, Integral) or n_splits < 1:
        raise ValueError(f"n_splits must be an integer ≥ 1; got {n_splits!r}.")
    if voting:
        others = [name for name, estimator in named.items() if not is_classifier(estimator)]
        if others:
            raise ValueError(f"voting needs classifiers; {', '.join(others)} is not one (pass voting=False).")
        if scoring not in (None, "accuracy"):
            raise ValueError(f"The hard vote is scored by accuracy; scoring={scoring!r} needs voting=False.")


def _is_labels(y):
    from sklearn.utils.multiclass import type_of_target

    return type_of_target(y) in ("binary", "multiclass")


def _random_splits(y, n_splits, test_size, stratify, random_state):
    if isinstance(test_size, Real) and not isinstance(test_size, Integral) and not 0 < test_size < 1:
        raise ValueError(f"test_size must be in (0, 1) as a fraction; got {test_size!r}.")
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        seeds = [int(random_state) + i for i in range(n_splits)]
    else:
        seeds = check_random_state(random_state).randint(np.iinfo(np.int32).max, size=n_splits).tolist()
    rows = np.arange(len(y))
    return [tuple(train_test_split(rows, test_size=test_size, random_state=seed, stratify=y if stratify else None))
            for seed in seeds]
