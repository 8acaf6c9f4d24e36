"""AdaBoostClassifier: Algorithm 10 by hand, and scikit-learn's SAMME with identical stumps."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier as SkTree

from lucidml.ensemble.adaboost import AdaBoostClassifier


@pytest.mark.parametrize("load", [load_iris, load_wine, load_breast_cancer])
def test_weights_and_errors_match_sklearn_with_identical_stumps(load):
    X, y = load(return_X_y=True)
    ours = AdaBoostClassifier(estimator=SkTree(max_depth=1), n_estimators=30, random_state=0).fit(X, y)
    theirs = SkAdaBoost(estimator=SkTree(max_depth=1), n_estimators=30, random_state=0).fit(X, y)
    assert len(ours.estimators_) == len(theirs.estimators_)
    assert np.allclose(ours.estimator_weights_, theirs.estimator_weights_, rtol=1e-10, atol=1e-12)
    assert np.allclose(ours.estimator_errors_, theirs.estimator_errors_, rtol=1e-10, atol=1e-12)
    assert np.allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-10)
    assert np.allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)
    assert np.array_equal(ours.predict(X), theirs.predict(X))


def test_lucidml_stumps_give_sklearns_accuracy():
    X, y = load_breast_cancer(return_X_y=True)
    ours = AdaBoostClassifier(n_estimators=30, random_state=0).fit(X[::2], y[::2]).score(X[1::2], y[1::2])
    theirs = SkAdaBoost(n_estimators=30, random_state=0).fit(X[::2], y[::2]).score(X[1::2], y[1::2])
    assert abs(ours - theirs) <= 0.01


def test_algorithm_10_by_hand():
    """Four points on a line, stumps; the rounds computed on paper.

    x = 1, 2, 3, 4 with labels +, +, −, + cannot be split by one stump. Round 1: the best stump
    (x ≤ 2.5 → +, else −) misses x = 4: r₁ = 1/4, α₁ = ln 3, and x = 4's weight is multiplied
    by 3: w ∝ (1, 1, 1, 3)/6. Round 2: the stump "x ≤ 3.5 → −, else +" errs on 1, 2: r = 2/6
    = 1/3; "all +" errs on 3 alone: r = 1/6, the best: α₂ = ln 5.
    """
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    y = np.array([1, 1, -1, 1])
    clf = AdaBoostClassifier(n_estimators=2).fit(X, y)
    assert clf.estimator_errors_ == pytest.approx([1 / 4, 1 / 6])
    assert clf.estimator_weights_ == pytest.approx([np.log(3), np.log(5)])
    # Vote: sign(ln3·G₁ + ln5·G₂); G₂ ≡ +1, so x = 3 gets ln5 − ln3 > 0: +.
    assert np.array_equal(clf.predict(X), [1, 1, 1, 1])


def test_samme_adds_log_k_minus_1():
    X, y = load_iris(return_X_y=True)
    clf = AdaBoostClassifier(n_estimators=3, learning_rate=0.5).fit(X, y)
    r = clf.estimator_errors_
    assert np.allclose(clf.estimator_weights_, 0.5 * (np.log((1 - r) / r) + np.log(2)))


def test_perfect_learner_caps_weight_and_stops():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    clf = AdaBoostClassifier(n_estimators=10).fit(X, y)
    assert len(clf.estimators_) == 1
    assert clf.estimator_errors_[0] == 0.0
    assert np.isfinite(clf.estimator_weights_[0]) and clf.estimator_weights_[0] > 20


def test_worse_than_chance_learner_is_discarded():
    X = np.random.RandomState(0).normal(size=(20, 2))
    y = (np.arange(20) % 4 != 0).astype(int)  # 15 ones: always guessing 0 has r = 3/4 ≥ 1 − 1/K
    with pytest.raises(ValueError, match="no better than chance"):
        AdaBoostClassifier(estimator=DummyClassifier(strategy="constant", constant=0), n_estimators=5).fit(X, y)


def test_staged_methods_agree_with_final():
    X, y = load_wine(return_X_y=True)
    clf = AdaBoostClassifier(n_estimators=15, random_state=0).fit(X, y)
    staged = list(clf.staged_predict(X))
    assert len(staged) == len(clf.estimators_)
    assert np.array_equal(staged[-1], clf.predict(X))
    assert np.allclose(list(clf.staged_decision_function(X))[-1], clf.decision_function(X))
    scores = list(clf.staged_score(X, y))
    assert scores[-1] == pytest.approx(clf.score(X, y))
    assert clf.feature_importances_.sum() == pytest.approx(1.0)


def test_estimator_without_sample_weight_is_rejected():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="sample_weight"):
        AdaBoostClassifier(estimator=KNeighborsClassifier()).fit(X, y)
    assert AdaBoostClassifier(estimator=GaussianNB(), n_estimators=5).fit(X, y).score(X, y) > 0.8


def test_single_class_is_one_learner_predicting_it():
    ada = AdaBoostClassifier().fit(np.ones((5, 2)), np.zeros(5))
    assert len(ada.estimators_) == 1
    np.testing.assert_array_equal(ada.predict(np.zeros((3, 2))), np.zeros(3))
    np.testing.assert_array_equal(ada.decision_function(np.zeros((3, 2))), np.zeros((3, 1)))


def test_one_pass_decision_equals_the_last_staged_decision():
    from sklearn.datasets import load_wine

    from lucidml.ensemble.adaboost import AdaBoostClassifier as Ours

    X, y = load_wine(return_X_y=True)
    model = Ours(30, random_state=0).fit(X, y)
    assert model._flat is not None  # lucidml stumps: the packed table is used
    *_, last = model.staged_decision_function(X)
    np.testing.assert_allclose(model.decision_function(X), last, rtol=1e-12, atol=1e-12)
