"""compare_models: the same splits for every model, the notes' multi_run, the hard vote, the result object."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_iris, load_wine
from sklearn.ensemble import VotingClassifier
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB as SkGaussianNB
from sklearn.neighbors import KNeighborsClassifier as SkKNeighborsClassifier

from lucidml.linear import LinearRegression
from lucidml.model_selection import compare_models
from lucidml.model_selection.comparison import _hard_vote
from lucidml.naive_bayes import GaussianNB
from lucidml.neighbors import KNeighborsClassifier
from lucidml.tree import DecisionTreeClassifier

SEEN = {}


class RowSpy(ClassifierMixin, BaseEstimator):
    """Records the row ids (column 0) of every training set it is fitted on; predicts a fixed label."""

    def __init__(self, tag="spy", label=0):
        self.tag = tag
        self.label = label

    def fit(self, X, y):
        SEEN.setdefault(self.tag, []).append(np.asarray(X[:, 0], dtype=int).copy())
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


class Scripted(ClassifierMixin, BaseEstimator):
    """Predicts, for each test row, the label stored for it (column 0 is the row id)."""

    def __init__(self, answers=None):
        self.answers = answers

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.asarray(self.answers)[np.asarray(X[:, 0], dtype=int)]


def _with_row_ids(X):
    return np.column_stack([np.arange(len(X)), X])


def test_every_model_sees_the_same_splits():
    SEEN.clear()
    X, y = load_iris(return_X_y=True)
    result = compare_models({"a": RowSpy("a"), "b": RowSpy("b", label=1)}, _with_row_ids(X), y, n_splits=7,
                            random_state=3)
    assert len(SEEN["a"]) == len(SEEN["b"]) == 7
    for seen_a, seen_b, (train, test) in zip(SEEN["a"], SEEN["b"], result.splits):
        np.testing.assert_array_equal(seen_a, seen_b)
        np.testing.assert_array_equal(seen_a, train)
        assert len(test) == 45 and set(train).isdisjoint(test)
        assert np.bincount(y[test]).tolist() == [15, 15, 15]  # stratified, as the notes' split
    assert len({tuple(train) for train, _ in result.splits}) == 7  # and the splits differ from each other


def test_the_splits_and_scores_are_those_of_the_notes_multi_run():
    X, y = load_iris(return_X_y=True)
    # two classes called GaussianNB: the second is named "GaussianNB-2"
    result = compare_models([GaussianNB(), SkGaussianNB()], X, y, n_splits=20, voting=False)
    expected = []
    for it in range(20):  # seeds 002 §1.4: train_size=0.7, random_state=it, stratify=y
        X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=0.7, random_state=it, stratify=y)
        expected.append(SkGaussianNB().fit(X_train, y_train).score(X_test, y_test))
    np.testing.assert_allclose(result.scores["GaussianNB-2"], expected)
    np.testing.assert_allclose(result.scores["GaussianNB"], expected)  # lucidml's naive Bayes: the same accuracies
    assert result.std["GaussianNB"] == pytest.approx(np.std(expected))


def test_the_same_random_state_gives_the_same_result():
    X, y = load_wine(return_X_y=True)
    models = {"tree": DecisionTreeClassifier(max_depth=3, random_state=0), "nb": GaussianNB()}
    first = compare_models(models, X, y, n_splits=5, random_state=np.random.RandomState(1))
    again = compare_models(models, X, y, n_splits=5, random_state=np.random.RandomState(1))
    other = compare_models(models, X, y, n_splits=5, random_state=np.random.RandomState(2))
    for name in first.scores:
        np.testing.assert_array_equal(first.scores[name], again.scores[name])
    assert any(not np.array_equal(first.scores[n], other.scores[n]) for n in first.scores)


def test_the_vote_is_the_majority_of_the_members_by_hand():
    n = 40
    X = _with_row_ids(np.zeros((n, 1)))
    y = np.tile([0, 1, 2, 3], n // 4)
    rng = np.random.default_rng(0)
    answers = [rng.integers(0, 4, n) for _ in range(3)]
    result = compare_models([Scripted(a) for a in answers], X, y, n_splits=4, random_state=0)
    for i, (_, test) in enumerate(result.splits):
        votes = np.array([a[test] for a in answers])
        majority = []
        for column in votes.T:  # most frequent label; on a tie, the smallest one
            counts = {label: list(column).count(label) for label in set(column.tolist())}
            top = max(counts.values())
            majority.append(min(label for label, count in counts.items() if count == top))
        assert result.scores["hard vote"][i] == pytest.approx(np.mean(np.array(majority) == y[test]))


def test_hard_vote_ties_go_to_the_smallest_label():
    classes = np.array(["ant", "bee", "cat"])
    predictions = [["cat", "bee", "ant"], ["bee", "bee", "cat"], ["ant", "cat", "cat"]]
    assert _hard_vote(predictions, classes).tolist() == ["ant", "bee", "cat"]


def test_the_vote_agrees_with_scikit_learn_voting_classifier():
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    members = [("lr", SkLogisticRegression(max_iter=1000)), ("knn", SkKNeighborsClassifier(7)), ("nb", SkGaussianNB())]
    result = compare_models(dict(members), X, y, n_splits=6, random_state=5)
    for i, (train, test) in enumerate(result.splits):
        vote = VotingClassifier(members, voting="hard").fit(X[train], y[train])
        assert result.scores["hard vote"][i] == pytest.approx(vote.score(X[test], y[test]))


def test_result_summaries_and_frame():
    X, y = load_iris(return_X_y=True)
    result = compare_models({"nb": GaussianNB(), "knn": KNeighborsClassifier(5)}, X, y, n_splits=4)
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert frame.index.tolist() == ["nb", "knn", "hard vote"]
    assert frame.loc["knn", "mean"] == pytest.approx(result.mean["knn"])
    assert frame.loc["knn", "std"] == pytest.approx(np.std(result.scores["knn"]))
    assert frame.loc["nb", "max"] == result.scores["nb"].max()
    assert (result.to_frame()["fit_time"] >= 0).all()


def test_regressors_compare_without_voting():
    X, y = load_iris(return_X_y=True)
    result = compare_models({"ols": LinearRegression()}, X[:, :3], X[:, 3], n_splits=3, voting=False,
                            scoring="neg_mean_squared_error")
    assert list(result.scores) == ["ols"] and (result.scores["ols"] < 0).all()
    with pytest.raises(ValueError, match="voting needs classifiers"):
        compare_models({"ols": LinearRegression()}, X[:, :3], X[:, 3], n_splits=3)


def test_nothing_passed_is_modified():
    X, y = load_iris(return_X_y=True)
    X_copy, y_copy = X.copy(), y.copy()
    model = GaussianNB()
    compare_models([model], X, y, n_splits=2)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(y, y_copy)
    assert not hasattr(model, "classes_")


@pytest.mark.parametrize(("estimators", "kwargs", "error", "message"), [
    ([], {}, ValueError, "estimators is empty"),
    (["knn"], {}, TypeError, "estimator with fit"),
    ([("a", GaussianNB()), ("a", GaussianNB())], {}, ValueError, "used twice"),
    ({"hard vote": GaussianNB()}, {}, ValueError, "used twice"),
    ([GaussianNB()], {"n_splits": 0}, ValueError, "n_splits"),
    ([GaussianNB()], {"test_size": 1.5}, ValueError, "test_size"),
    ([GaussianNB()], {"scoring": "f1_macro"}, ValueError, "scored by accuracy"),
])
def test_bad_arguments_are_named(estimators, kwargs, error, message):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(error, match=message):
        compare_models(estimators, X, y, **kwargs)


def test_bad_data_is_named():
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        compare_models([GaussianNB()], X, y)


def test_the_notes_iris_table_is_reproduced():
    """seeds 002 §1.4, Output: 50 stratified 70/30 splits of iris, accuracy (mean, std) in percent."""
    from sklearn.linear_model import LogisticRegression

    from lucidml.svm import SVC

    models = {"Logistic-Regr": LogisticRegression(max_iter=1000), "KNeighbors-5": KNeighborsClassifier(5),
              "SVC-Linear": SVC(kernel="linear", C=0.5), "SVC-RBF": SVC(gamma=2, C=1), "Naive-Bayes": GaussianNB()}
    X, y = load_iris(return_X_y=True)
    frame = compare_models(models, X, y, n_splits=50, test_size=0.3, random_state=0, voting=False).to_frame()
    notes = {"Logistic-Regr": (96.13, 2.62), "KNeighbors-5": (96.49, 1.99), "SVC-Linear": (97.60, 2.26),
             "SVC-RBF": (96.62, 2.10), "Naive-Bayes": (95.11, 3.20)}
    for name, (mean, std) in notes.items():
        assert round(100 * frame.loc[name, "mean"], 2) == mean
        assert round(100 * frame.loc[name, "std"], 2) == std


def test_k_fold_and_train_size_splits_are_scikit_learns():
    from sklearn.model_selection import StratifiedKFold

    from lucidml.model_selection import comparison_splits

    X, y = load_iris(return_X_y=True)
    folds = comparison_splits(y, cv=5, random_state=4)
    expected = StratifiedKFold(5, shuffle=True, random_state=4).split(X, y)
    for (train, test), (train_sk, test_sk) in zip(folds, expected, strict=True):
        np.testing.assert_array_equal(train, train_sk)
        np.testing.assert_array_equal(test, test_sk)
    rows = np.arange(100)
    for i, (train, test) in enumerate(comparison_splits(np.linspace(0, 1, 100), n_splits=3, train_size=0.7, random_state=2)):
        train_sk, test_sk = train_test_split(rows, train_size=0.7, random_state=2 + i)  # continuous y: not stratified
        np.testing.assert_array_equal(train, train_sk)
        assert len(test) == 30
    result = compare_models([GaussianNB()], X, y, cv=5, random_state=4)
    assert [len(test) for _, test in result.splits] == [30] * 5
    # a regressor's whole-number target is not stratified as if it were labels
    counts = np.arange(60.0) % 7
    regression = compare_models([LinearRegression()], counts[:, None], counts, n_splits=2, voting=False)
    for i, (train, _) in enumerate(regression.splits):
        np.testing.assert_array_equal(train, train_test_split(np.arange(60), test_size=0.3, random_state=i)[0])


class CountingScaler(BaseEstimator):
    """Centers each column by its training mean; counts its fits and remembers the rows it saw."""

    fits = []

    def fit(self, X, y=None):
        CountingScaler.fits.append(np.asarray(X[:, 0], dtype=int).copy())
        self.mean_ = X.mean(axis=0)
        return self

    def transform(self, X):
        return X - self.mean_


def test_preparation_is_fitted_on_each_training_part_once_and_shared():
    CountingScaler.fits = []
    X, y = load_iris(return_X_y=True)
    X = _with_row_ids(X)
    shared = CountingScaler()
    result = compare_models({"a": RowSpy("a"), "b": RowSpy("b"), "c": GaussianNB()}, X, y, n_splits=3,
                            prepare={"a": shared, "b": shared}, voting=False)
    assert len(CountingScaler.fits) == 3  # one fit per split, shared by "a" and "b"; "c" is not prepared
    for seen, (train, _) in zip(CountingScaler.fits, result.splits):
        np.testing.assert_array_equal(seen, train)
    plain = compare_models({"c": GaussianNB()}, X, y, n_splits=3, voting=False)
    np.testing.assert_array_equal(result.scores["c"], plain.scores["c"])


def test_a_table_with_text_and_gaps_goes_through_its_preparation():
    from sklearn.compose import make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"size": rng.normal(size=90), "colour": rng.choice(["red", "blue"], 90)})
    frame.loc[::7, "size"] = np.nan
    y = np.where(frame["colour"] == "red", "warm", "cold")
    prepare = make_column_transformer((SimpleImputer(), ["size"]), (OneHotEncoder(), ["colour"]))
    result = compare_models({"nb": GaussianNB(), "tree": DecisionTreeClassifier()}, frame, y, n_splits=4,
                            prepare=prepare)
    assert result.mean["tree"] == 1.0 and result.mean["hard vote"] >= result.mean["nb"] - 0.1


class Broken(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        raise RuntimeError("cannot learn this")

    def predict(self, X):
        return np.zeros(len(X))


def test_a_failing_model_is_recorded_and_left_out_of_the_vote():
    from sklearn.exceptions import FitFailedWarning

    X, y = load_iris(return_X_y=True)
    models = {"broken": Broken(), "nb": GaussianNB(), "knn": KNeighborsClassifier(5)}
    with pytest.warns(FitFailedWarning, match="cannot learn this"):
        result = compare_models(models, X, y, n_splits=3, error_score=np.nan)
    assert result.errors == {"broken": "RuntimeError: cannot learn this"}
    assert np.isnan(result.scores["broken"]).all()
    assert result.voters == {"hard vote": ["nb", "knn"]}
    alone = compare_models({"nb": GaussianNB(), "knn": KNeighborsClassifier(5)}, X, y, n_splits=3)
    np.testing.assert_array_equal(result.scores["hard vote"], alone.scores["hard vote"])
    with pytest.raises(RuntimeError, match="cannot learn this"):
        compare_models(models, X, y, n_splits=3)


def test_votes_of_chosen_members_and_their_times():
    X, y = load_wine(return_X_y=True)
    models = {"nb": GaussianNB(), "knn": KNeighborsClassifier(3), "tree": DecisionTreeClassifier(max_depth=2)}
    result = compare_models(models, X, y, n_splits=4, voting={"pair": ["nb", "tree"], "all": list(models)})
    everyone = compare_models(models, X, y, n_splits=4)
    pair = compare_models({"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=2)}, X, y, n_splits=4)
    np.testing.assert_array_equal(result.scores["all"], everyone.scores["hard vote"])
    np.testing.assert_array_equal(result.scores["pair"], pair.scores["hard vote"])
    # the notes time their VotingClassifier run: fitting every member is part of the vote's cost
    np.testing.assert_allclose(result.fit_times["pair"], result.fit_times["nb"] + result.fit_times["tree"])
    assert (result.predict_times["pair"] >= result.predict_times["nb"]).all()


def test_warm_up_and_progress():
    SEEN.clear()
    X, y = load_iris(return_X_y=True)
    calls = []
    compare_models({"a": RowSpy("a"), "b": RowSpy("b")}, _with_row_ids(X), y, n_splits=2, warm_up=True,
                   progress=lambda done, total, name: calls.append((done, total, name)))
    assert len(SEEN["a"]) == len(SEEN["b"]) == 3  # one untimed fit on the first split, then one per split
    np.testing.assert_array_equal(SEEN["a"][0], SEEN["a"][1])
    assert calls == [(0, 2, "a"), (1, 2, "b")]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"voting": ["nb", "svm"]}, "needs models among"),
    ({"voting": {"nb": ["nb"]}}, "has the name of a model"),
    ({"cv": 1}, "at least 2 folds"),
    ({"train_size": 0.0}, "train_size"),
    ({"error_score": "ignore"}, "error_score"),
])
def test_bad_options_are_named(kwargs, message):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        compare_models({"nb": GaussianNB()}, X, y, **kwargs)


def test_a_model_without_predict_is_refused():
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    with pytest.raises(TypeError, match="with fit and predict"):
        compare_models([StandardScaler()], X, y)


def test_scoring_none_is_each_models_own_score():
    """A model whose score is not the mixin's accuracy or R² (a GLM's D²) is scored by its own score."""
    from sklearn.linear_model import PoissonRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = rng.poisson(np.exp(0.5 * X[:, 0]))
    result = compare_models({"glm": PoissonRegressor(), "ols": LinearRegression()}, X, y, n_splits=3,
                            voting=False)
    for i, (train, test) in enumerate(result.splits):
        glm = PoissonRegressor().fit(X[train], y[train])
        assert result.scores["glm"][i] == pytest.approx(glm.score(X[test], y[test]))  # D², not R²
        ols = LinearRegression().fit(X[train], y[train])
        assert result.scores["ols"][i] == pytest.approx(ols.score(X[test], y[test]))
