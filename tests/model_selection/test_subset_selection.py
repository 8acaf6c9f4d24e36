"""SequentialBackwardSelection and StepwiseSelection: the notes' searches, scikit-learn's agreement, the API."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_iris, load_wine, make_classification, make_regression
from sklearn.feature_selection import SequentialFeatureSelector
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier as SkKNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from lucidml.linear import LinearRegression
from lucidml.model_selection import SequentialBackwardSelection, StepwiseSelection

SELECTORS = [SequentialBackwardSelection, StepwiseSelection]


def _criterion(table):
    """A subset score read from ``table`` (frozenset of columns -> score), recording each call."""
    calls = []

    def score(columns):
        calls.append(tuple(columns))
        return table.get(frozenset(columns), 0.0)

    return score, calls


def test_sbs_follows_algorithm_6_6_on_a_given_criterion():
    table = {frozenset({0, 1, 2, 3}): 0.50,
             frozenset({1, 2, 3}): 0.60, frozenset({0, 2, 3}): 0.70, frozenset({0, 1, 3}): 0.70,
             frozenset({0, 1, 2}): 0.40,
             frozenset({2, 3}): 0.65, frozenset({0, 3}): 0.75, frozenset({0, 2}): 0.30}
    score, calls = _criterion(table)
    sbs = SequentialBackwardSelection(k_features=2)
    kept = sbs._search(score, 4)
    # step 1 removes feature 1 (0.70, tie with feature 2 goes to the smaller index), step 2 removes feature 2
    assert kept == [0, 3]
    assert sbs.subsets_ == [(0, 1, 2, 3), (0, 2, 3), (0, 3)]
    np.testing.assert_array_equal(sbs.scores_, [0.50, 0.70, 0.75])
    assert len(calls) == 1 + 4 + 3  # the full set, then k candidates at size k


def test_stepwise_adds_then_removes_a_feature_made_redundant():
    table = {frozenset({2}): 0.60, frozenset({0}): 0.50, frozenset({1}): 0.40,
             frozenset({0, 2}): 0.70, frozenset({1, 2}): 0.65,
             frozenset({0, 1, 2}): 0.90,
             frozenset({0, 1}): 0.95}  # once 0 and 1 are in, 2 only adds noise
    score, _ = _criterion(table)
    stepwise = StepwiseSelection(tol=0.01)
    kept = stepwise._search(score, 3)
    assert kept == [0, 1]
    assert stepwise.moves_ == [("add", 2), ("add", 0), ("add", 1), ("remove", 2)]
    assert stepwise.subsets_ == [(2,), (0, 2), (0, 1, 2), (0, 1)]
    np.testing.assert_array_equal(stepwise.scores_, [0.60, 0.70, 0.90, 0.95])


def test_stepwise_stops_when_no_move_beats_tol():
    table = {frozenset({0}): 0.50, frozenset({1}): 0.20, frozenset({0, 1}): 0.505}
    score, _ = _criterion(table)
    assert StepwiseSelection(tol=0.01)._search(score, 2) == [0]
    assert StepwiseSelection(tol=0.0)._search(score, 2) == [0, 1]


@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_informative_regression_features_are_kept(selector, seed):
    X, y = make_regression(n_samples=120, n_features=8, n_informative=3, noise=5.0, shuffle=False,
                           random_state=seed)
    params = {"k_features": 3} if selector is SequentialBackwardSelection else {"tol": 1e-3}
    model = selector(LinearRegression(), cv=5, **params).fit(X, y)
    assert model.get_support(indices=True).tolist() == [0, 1, 2]


@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize("seed", [0, 1])
def test_the_informative_classification_features_are_kept_by_the_default_knn(selector, seed):
    X, y = make_classification(n_samples=300, n_features=8, n_informative=3, n_redundant=0, n_clusters_per_class=1,
                               shuffle=False, random_state=seed)
    params = {"k_features": 3} if selector is SequentialBackwardSelection else {"tol": 0.01}
    model = selector(cv=5, **params).fit(X, y)
    assert model.get_support(indices=True).tolist() == [0, 1, 2]


@pytest.mark.parametrize(("data", "estimator", "scoring", "cv", "k"), [
    ("diabetes", SkLinearRegression(), "r2", KFold(5), 4),
    ("diabetes", LinearRegression(), "neg_mean_squared_error", KFold(4, shuffle=True, random_state=0), 6),
    ("wine", make_pipeline(StandardScaler(), SkKNeighborsClassifier(5)), "accuracy", StratifiedKFold(5), 5),
    ("iris", SkLogisticRegression(max_iter=500), "neg_log_loss", 3, 2),
])
def test_sbs_selects_what_scikit_learn_backward_selection_selects(data, estimator, scoring, cv, k):
    X, y = {"diabetes": load_diabetes, "wine": load_wine, "iris": load_iris}[data](return_X_y=True)
    ours = SequentialBackwardSelection(estimator, k, scoring=scoring, cv=cv).fit(X, y)
    theirs = SequentialFeatureSelector(estimator, n_features_to_select=k, direction="backward", scoring=scoring,
                                       cv=cv).fit(X, y)
    np.testing.assert_array_equal(ours.get_support(), theirs.get_support())
    assert len(ours.subsets_) == X.shape[1] - k + 1
    assert ours.subsets_[-1] == tuple(ours.get_support(indices=True))


def test_sbs_sizes_default_to_half_and_accept_a_fraction():
    X, y = make_regression(n_samples=60, n_features=7, n_informative=3, shuffle=False, random_state=0)
    assert SequentialBackwardSelection(cv=3).fit(X, y).k_features_ == 3
    assert SequentialBackwardSelection(k_features=0.5, cv=3).fit(X, y).k_features_ == 3
    everything = SequentialBackwardSelection(k_features=7, cv=3).fit(X, y)
    assert everything.get_support().all() and len(everything.scores_) == 1


@pytest.mark.parametrize("selector", SELECTORS)
def test_support_transform_and_feature_names(selector):
    X, y = make_regression(n_samples=80, n_features=5, n_informative=2, noise=1.0, shuffle=False, random_state=0)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    params = {"k_features": 2} if selector is SequentialBackwardSelection else {"tol": 1e-3}
    model = selector(LinearRegression(), cv=3, **params).fit(frame, y)
    assert model.get_support().tolist() == [True, True, False, False, False]
    assert model.get_feature_names_out().tolist() == ["a", "b"]
    np.testing.assert_array_equal(model.transform(frame), X[:, :2])
    np.testing.assert_array_equal(model.inverse_transform(X[:, :2])[:, 2:], 0.0)


@pytest.mark.parametrize("selector", SELECTORS)
def test_inside_a_pipeline_tuned_by_grid_search(selector):
    X, y = make_regression(n_samples=90, n_features=6, n_informative=2, noise=1.0, shuffle=False, random_state=1)
    grid = ({"select__k_features": [1, 2, 4]} if selector is SequentialBackwardSelection
            else {"select__tol": [1e-3, 1.0]})
    from sklearn.pipeline import Pipeline

    pipe = Pipeline([("select", selector(LinearRegression(), cv=3)), ("model", Ridge(alpha=1e-3))])
    search = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    kept = search.best_estimator_.named_steps["select"].get_support(indices=True).tolist()
    assert kept == [0, 1]
    assert search.best_score_ > 0.99


@pytest.mark.parametrize("selector", SELECTORS)
def test_nothing_passed_is_modified(selector):
    X, y = make_regression(n_samples=50, n_features=4, random_state=0)
    X_copy, y_copy = X.copy(), y.copy()
    estimator = LinearRegression()
    selector(estimator, cv=3).fit(X, y)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(y, y_copy)
    assert not hasattr(estimator, "coef_")


@pytest.mark.parametrize(("selector", "params", "message"), [
    (SequentialBackwardSelection, {"k_features": 9}, "exceeds the number of features"),
    (SequentialBackwardSelection, {"k_features": 0}, "k_features"),
    (SequentialBackwardSelection, {"k_features": 1.5}, "k_features"),
    (StepwiseSelection, {"tol": -0.1}, "'tol'"),
    (StepwiseSelection, {"cv": 1}, "'cv'"),
    (StepwiseSelection, {"estimator": "ridge"}, "'estimator'"),
    (SequentialBackwardSelection, {"scoring": "no_such_score"}, "no_such_score"),
])
def test_bad_parameters_are_named(selector, params, message):
    X, y = make_regression(n_samples=40, n_features=4, random_state=0)
    with pytest.raises(ValueError, match=message):
        selector(**params).fit(X, y)


@pytest.mark.parametrize("selector", SELECTORS)
def test_bad_data_is_named(selector):
    X, y = make_regression(n_samples=40, n_features=4, random_state=0)
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        selector(cv=3).fit(X, y)
    with pytest.raises(ValueError, match="requires y"):
        selector(cv=3).fit(X[1:], None)
    words = np.array([f"c{i % 3}" for i in range(40)], dtype=object)  # labels for a regressor
    with pytest.raises(ValueError, match="^could not convert string to float"):  # the fit's error, not "All … failed"
        selector(LinearRegression(), cv=3).fit(X[1:], words[1:])


@parametrize_with_checks([SequentialBackwardSelection(cv=3), StepwiseSelection(cv=3),
                          SequentialBackwardSelection(SkLinearRegression(), cv=2)])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_the_paths_are_nested_and_the_stepwise_scores_rise():
    X, y = load_diabetes(return_X_y=True)
    sbs = SequentialBackwardSelection(LinearRegression(), 2, cv=4).fit(X, y)
    for larger, smaller in zip(sbs.subsets_, sbs.subsets_[1:]):
        assert set(smaller) < set(larger) and len(larger) - len(smaller) == 1
    stepwise = StepwiseSelection(LinearRegression(), cv=4).fit(X, y)
    assert np.all(np.diff(stepwise.scores_) > 0)
    assert stepwise.subsets_[-1] == tuple(stepwise.get_support(indices=True))
    assert len(stepwise.moves_) == len(stepwise.subsets_) == len(stepwise.scores_)


@pytest.mark.parametrize("selector", SELECTORS)
def test_parallel_folds_and_explicit_splits_give_the_same_search(selector):
    from joblib import parallel_config

    X, y = load_diabetes(return_X_y=True)
    X = X[:, :6]
    folds = list(KFold(4, shuffle=True, random_state=0).split(X))
    serial = selector(LinearRegression(), cv=KFold(4, shuffle=True, random_state=0)).fit(X, y)
    with parallel_config(backend="threading"):
        parallel = selector(LinearRegression(), cv=folds, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(serial.get_support(), parallel.get_support())
    np.testing.assert_allclose(serial.scores_, parallel.scores_, rtol=1e-12)


@pytest.mark.parametrize("selector", SELECTORS)
def test_an_estimator_without_score_is_named(selector):
    """With scoring=None the criterion is the estimator's own score: a model without one is refused
    by name (with a scorer, fit is enough)."""
    from sklearn.base import BaseEstimator

    class NoScore(BaseEstimator):
        def fit(self, X, y):
            return self

        def predict(self, X):
            return np.zeros(len(X))

    X, y = make_regression(n_samples=40, n_features=4, random_state=0)
    with pytest.raises(ValueError, match=f"{selector.__name__} needs an estimator with fit and score; "
                                         "NoScore has no score"):
        selector(NoScore(), cv=3).fit(X, y)
    assert selector(NoScore(), scoring="neg_mean_squared_error", cv=3).fit(X, y).support_.any()
