"""Awkward but legal input to every tree model (issue 16): a correct model or a clear ValueError.

Sample weights that are tiny, huge or zero for a whole class, a constant feature, an all-NaN
feature, a single sample and a single class: never ZeroDivisionError, IndexError, a Numba
error or a silently wrong fit.
"""

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_iris, load_wine

from lucidml.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from lucidml.tree import DecisionTreeClassifier, DecisionTreeRegressor

CLASSIFIERS = {
    "tree": lambda: DecisionTreeClassifier(random_state=0),
    "tree_hist": lambda: DecisionTreeClassifier(max_bins=32, random_state=0),
    "forest": lambda: RandomForestClassifier(10, random_state=0),
    "bagging": lambda: BaggingClassifier(5, random_state=0),
    "adaboost": lambda: AdaBoostClassifier(10, random_state=0),
    "boosting": lambda: GradientBoostingClassifier(n_estimators=10, random_state=0),
}
REGRESSORS = {
    "tree": lambda: DecisionTreeRegressor(random_state=0),
    "tree_mae": lambda: DecisionTreeRegressor(criterion="absolute_error", max_depth=4, random_state=0),
    "tree_hist": lambda: DecisionTreeRegressor(max_bins=32, random_state=0),
    "forest": lambda: RandomForestRegressor(10, random_state=0),
    "bagging": lambda: BaggingRegressor(5, random_state=0),
    "boosting": lambda: GradientBoostingRegressor(n_estimators=10, random_state=0),
    "boosting_huber": lambda: GradientBoostingRegressor(loss="huber", n_estimators=10, random_state=0),
}
ALL = [pytest.param(make, True, id=f"classifier-{name}") for name, make in CLASSIFIERS.items()] + [
    pytest.param(make, False, id=f"regressor-{name}") for name, make in REGRESSORS.items()
]


def _data(classifier):
    X, y = (load_wine if classifier else load_diabetes)(return_X_y=True)
    return X, y


@pytest.mark.parametrize("make, classifier", ALL)
@pytest.mark.parametrize("scale", [2.0**-996, 2.0**-56, 2.0**996, 2.0**1023],
                         ids=["1e-300", "1e-17", "1e300", "1.8e308"])
def test_scaling_every_weight_changes_nothing(make, classifier, scale):
    """Weights near 1e300 used to overflow the weighted sums (a silent 40 % fit on wine).

    Powers of two scale without rounding, so the fits must agree exactly: the trees are the
    same and equal splits tie the same way.
    """
    X, y = _data(classifier)
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=y.size)
    reference = make().fit(X, y, sample_weight=w)
    scaled = make().fit(X, y, sample_weight=w * scale)
    np.testing.assert_allclose(scaled.predict(X), reference.predict(X), rtol=1e-9, atol=1e-9 * np.ptp(y))


@pytest.mark.parametrize("make, classifier", ALL)
def test_a_few_tiny_weights_beside_unit_ones(make, classifier):
    """A weight of 1e-17 among weights of 1 used to raise ZeroDivisionError in the tree kernel."""
    X, y = _data(classifier)
    w = np.ones(y.size)
    w[::3] = 1e-17
    model = make().fit(X, y, sample_weight=w)
    prediction = model.predict(X)
    assert np.all(np.isfinite(prediction))
    heavy = w == 1.0
    if isinstance(model, (DecisionTreeClassifier, DecisionTreeRegressor)) and model.max_bins is None:
        if classifier or model.criterion == "squared_error":  # a fully grown tree fits what it weighs
            np.testing.assert_allclose(prediction[heavy], y[heavy])
    if isinstance(model, AdaBoostClassifier):  # stumps with vanishing boosting weights
        assert np.all(np.isfinite(model.estimator_weights_))


def test_adaboost_with_boosting_weights_that_vanish():
    """Three well separated classes drive most boosting weights towards 0 (issue 16's crash)."""
    rng = np.random.default_rng(0)
    X = np.repeat(np.arange(3.0), 50)[:, None] + rng.normal(scale=0.01, size=(150, 1))
    y = np.repeat(np.arange(3), 50)
    model = AdaBoostClassifier(200, estimator=DecisionTreeClassifier(max_depth=2), random_state=0).fit(X, y)
    assert model.score(X, y) == 1.0


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_a_class_whose_weights_are_all_zero_is_never_predicted(name):
    X, y = _data(True)
    w = np.where(y == 0, 0.0, 1.0)
    model = CLASSIFIERS[name]().fit(X, y, sample_weight=w)
    assert list(model.classes_) == [0, 1, 2]
    assert not np.any(model.predict(X) == 0)
    if name != "adaboost":  # AdaBoost's SAMME probabilities give every class a share
        np.testing.assert_allclose(model.predict_proba(X)[:, 0], 0.0, atol=1e-12)


@pytest.mark.parametrize("make, classifier", ALL)
def test_constant_and_all_nan_features_are_never_split_on(make, classifier):
    X, y = _data(classifier)
    X = X.copy()
    X[:, 0] = 7.0
    model = make()
    if model.__sklearn_tags__().input_tags.allow_nan:
        X[:, 1] = np.nan
    model.fit(X, y)
    # Bagging has no feature_importances_ (as in scikit-learn): its trees', all on every feature.
    importances = (model.feature_importances_ if not isinstance(model, (BaggingClassifier, BaggingRegressor))
                   else np.mean([tree.feature_importances_ for tree in model.estimators_], axis=0))
    assert importances[0] == 0.0
    if model.__sklearn_tags__().input_tags.allow_nan:
        assert importances[1] == 0.0
    assert np.all(np.isfinite(model.predict(X)))


@pytest.mark.parametrize("make, classifier", ALL)
def test_a_single_sample(make, classifier):
    X, y = _data(classifier)
    model = make()
    if isinstance(model, GradientBoostingClassifier):
        with pytest.raises(ValueError, match="at least 2 classes"):
            model.fit(X[:1], y[:1])
        return
    model.fit(X[:1], y[:1])
    np.testing.assert_allclose(model.predict(X[:5]), np.full(5, y[0]))


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_a_single_class(name):
    X, _ = _data(True)
    y = np.full(X.shape[0], 4)
    model = CLASSIFIERS[name]()
    if name == "boosting":  # as scikit-learn's GradientBoostingClassifier
        with pytest.raises(ValueError, match="at least 2 classes"):
            model.fit(X, y)
        return
    model.fit(X, y)
    assert np.all(model.predict(X) == 4)
    np.testing.assert_allclose(model.predict_proba(X), 1.0)


@pytest.mark.parametrize("weight", [3.0, 1e308])
def test_forest_trees_count_weight_in_the_users_units(weight):
    """The forest scales the weights by a power of 2 before its trees see them (exact; weights near
    the largest float times a class weight or a bootstrap count overflowed to inf, then NaN node
    values); the trees' weighted_n_node_samples are given back in the user's units, as
    scikit-learn's (root 450 for 150 samples of weight 3)."""
    from sklearn.ensemble import RandomForestClassifier as SkForest

    X, y = load_iris(return_X_y=True)
    X, y = X[np.r_[0:50, 50:70, 100:150]], y[np.r_[0:50, 50:70, 100:150]]  # classes of 50, 20 and 50
    w = np.full(len(y), weight)
    for class_weight in (None, "balanced", "balanced_subsample"):
        kw = dict(n_estimators=3, bootstrap=class_weight == "balanced_subsample", class_weight=class_weight,
                  random_state=0)
        ours = RandomForestClassifier(**kw).fit(X, y, sample_weight=w)
        assert ours.score(X, y) > 0.95
        if weight == 3.0 and class_weight != "balanced_subsample":
            theirs = SkForest(**kw).fit(X, y, sample_weight=w)
            assert ours.estimators_[0].tree_.weighted_n_node_samples[0] == pytest.approx(
                theirs.estimators_[0].tree_.weighted_n_node_samples[0], rel=1e-12)
