"""DecisionTreeClassifier / DecisionTreeRegressor against scikit-learn, plus properties and bad input."""

import numpy as np
import pytest
from sklearn import tree as sk_tree
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_digits,
    load_iris,
    load_wine,
    make_classification,
    make_regression,
)
from sklearn.model_selection import train_test_split

from lucidml.tree._exact_data import node_sorted
from lucidml.tree.decision_tree import DecisionTreeClassifier, DecisionTreeRegressor


def assert_same_tree(ours, theirs):
    """Same nodes, tests, values and impurities as scikit-learn's ``tree_``.

    Both trees are walked from the root in step. Where the two pick different splits, those
    must be exact ties (equal Σ W_c I_c: the tie goes to whichever feature is drawn first, and
    the two libraries draw from different generators); the subtrees below a tie are not
    compared. Thresholds agree to 1e-6 relative because scikit-learn stores X as float32.
    """
    a, b = ours.tree_, theirs.tree_
    assert a.value.shape[1:] == b.value.shape[1:]
    ties = 0
    stack = [(0, 0)]
    while stack:
        u, v = stack.pop()
        assert a.n_node_samples[u] == b.n_node_samples[v]
        np.testing.assert_allclose(a.weighted_n_node_samples[u], b.weighted_n_node_samples[v], rtol=1e-12)
        np.testing.assert_allclose(a.value[u], b.value[v], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(a.impurity[u], b.impurity[v], rtol=1e-7, atol=1e-10)
        leaf_a, leaf_b = a.children_left[u] == -1, b.children_left[v] == -1
        assert leaf_a == leaf_b
        if leaf_a:
            continue
        kids_a = (a.children_left[u], a.children_right[u])
        kids_b = (b.children_left[v], b.children_right[v])
        if a.feature[u] == b.feature[v] and np.isclose(a.threshold[u], b.threshold[v], rtol=1e-6, atol=1e-6):
            assert a.missing_go_to_left[u] == b.missing_go_to_left[v]
            stack.extend(zip(kids_a, kids_b, strict=True))
            continue
        children_a = sum(a.weighted_n_node_samples[k] * a.impurity[k] for k in kids_a)
        children_b = sum(b.weighted_n_node_samples[k] * b.impurity[k] for k in kids_b)
        np.testing.assert_allclose(children_a, children_b, rtol=1e-9)
        ties += 1
    assert ties <= max(2, (a.children_left != -1).sum() // 4)  # ties are the exception, not the rule
    if ties == 0:
        assert a.node_count == b.node_count and a.max_depth == b.max_depth
        np.testing.assert_array_equal(a.children_left, b.children_left)
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_allclose(a.threshold, b.threshold, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(a.value, b.value, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_same_classification_tree_as_sklearn(seed, criterion):
    X, y = make_classification(400, 6, n_informative=4, n_classes=3, random_state=seed)
    ours = DecisionTreeClassifier(criterion=criterion, max_depth=4, random_state=0).fit(X, y)
    theirs = sk_tree.DecisionTreeClassifier(criterion=criterion, max_depth=4, random_state=0).fit(X, y)
    assert_same_tree(ours, theirs)
    assert np.mean(ours.predict(X) == theirs.predict(X)) > 0.97


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error"])
def test_same_regression_tree_as_sklearn(seed, criterion):
    X, y = make_regression(300, 5, noise=10.0, random_state=seed)
    ours = DecisionTreeRegressor(criterion=criterion, max_depth=4, random_state=0).fit(X, y)
    theirs = sk_tree.DecisionTreeRegressor(criterion=criterion, max_depth=4, random_state=0).fit(X, y)
    assert_same_tree(ours, theirs)


def test_weighted_absolute_error_tree_equals_repeated_rows_and_sklearn():
    """Whole-number weights are divided by a power of 2 (exact), so a weighted median whose lower
    half holds exactly half the weight is the midpoint, as on the rows repeated and in
    scikit-learn (dividing by the largest weight, 3, rounded the half-weight sum: leaf values
    1.5 apart on diabetes, and a one-leaf tree's value depended on the order of X)."""
    X, y = load_diabetes(return_X_y=True)
    w = np.random.RandomState(0).randint(1, 4, len(y))
    kw = dict(criterion="absolute_error", max_depth=3)
    weighted = DecisionTreeRegressor(**kw).fit(X, y, sample_weight=w.astype(float))
    repeated = DecisionTreeRegressor(**kw).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    theirs = sk_tree.DecisionTreeRegressor(**kw).fit(X, y, sample_weight=w.astype(float))
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
    np.testing.assert_array_equal(weighted.predict(X), theirs.predict(X))
    y, w = np.array([2.0, 4, 1, 2, 3, 4]), np.array([1.0, 2, 1, 3, 1, 2])
    for x in (np.array([0.742, 0.373, 0.035, 0.153, 0.322, 0.118]), np.zeros(6)):
        leaf = DecisionTreeRegressor(criterion="absolute_error", min_samples_split=100)
        assert leaf.fit(x[:, None], y, sample_weight=w).tree_.value.ravel()[0] == 2.5


@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
def test_same_tree_as_sklearn_on_one_hot_columns(criterion):
    # An encoded table (mostly one-hot columns) takes the node-sorted search, which scores a
    # feature with two values in the node without sorting it (_threshold_sweep.two_value_sweep).
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 6, size=(600, 5))
    X = np.column_stack([codes[:, j] == level for j in range(5) for level in range(1, 6)] + [rng.normal(size=600)])
    assert node_sorted(X, X.shape[1])
    signal = codes[:, 0] - 0.7 * codes[:, 1] + 0.4 * (codes[:, 2] == 3) + X[:, -1]
    if criterion == "gini":
        y = np.digitize(signal + rng.normal(scale=0.8, size=600), [-1.0, 1.5])
        ours = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
        theirs = sk_tree.DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    else:
        y = signal + rng.normal(size=600)
        ours = DecisionTreeRegressor(min_samples_leaf=5, random_state=0).fit(X, y)
        theirs = sk_tree.DecisionTreeRegressor(min_samples_leaf=5, random_state=0).fit(X, y)
    assert_same_tree(ours, theirs)


def test_same_tree_with_sample_weight_and_leaf_rules():
    X, y = make_classification(400, 5, n_informative=3, random_state=3)
    w = np.random.default_rng(0).integers(0, 4, size=y.size).astype(float)
    params = {"max_depth": 5, "min_samples_leaf": 4, "min_samples_split": 10, "min_weight_fraction_leaf": 0.01}
    ours = DecisionTreeClassifier(**params, random_state=0).fit(X, y, sample_weight=w)
    theirs = sk_tree.DecisionTreeClassifier(**params, random_state=0).fit(X, y, sample_weight=w)
    assert_same_tree(ours, theirs)


def test_same_best_first_tree_as_sklearn():
    X, y = make_classification(500, 6, n_informative=4, random_state=2)  # no tied splits near the top
    ours = DecisionTreeClassifier(max_leaf_nodes=12, random_state=0).fit(X, y)
    theirs = sk_tree.DecisionTreeClassifier(max_leaf_nodes=12, random_state=0).fit(X, y)
    assert_same_tree(ours, theirs)
    assert ours.get_n_leaves() == 12


def test_min_impurity_decrease_matches_sklearn():
    X, y = make_classification(400, 5, n_informative=3, random_state=5)
    ours = DecisionTreeClassifier(min_impurity_decrease=0.01, random_state=0).fit(X, y)
    theirs = sk_tree.DecisionTreeClassifier(min_impurity_decrease=0.01, random_state=0).fit(X, y)
    assert_same_tree(ours, theirs)


@pytest.mark.parametrize("loader", [load_iris, load_wine, load_breast_cancer, load_digits])
def test_accuracy_close_to_sklearn(loader):
    X, y = loader(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)
    ours = np.mean([DecisionTreeClassifier(random_state=s).fit(X_train, y_train).score(X_test, y_test)
                    for s in range(3)])
    theirs = np.mean([sk_tree.DecisionTreeClassifier(random_state=s).fit(X_train, y_train).score(X_test, y_test)
                      for s in range(3)])
    assert abs(ours - theirs) < 0.05
    full = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert full.score(X, y) == 1.0  # no duplicated points with different labels: pure leaves


def test_diabetes_r2_close_to_sklearn():
    X, y = load_diabetes(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    # (deep trees on diabetes have tied splits in small nodes, which move the test R² a lot)
    ours = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X_train, y_train).score(X_test, y_test)
    theirs = sk_tree.DecisionTreeRegressor(max_depth=3, random_state=0).fit(X_train, y_train).score(X_test, y_test)
    assert abs(ours - theirs) < 0.02


def test_misclassification_criterion_and_strict_improvement():
    # XOR: no single split lowers the misclassification count, so the root stays a leaf
    # ("split only on strict improvement"), while gini finds 0-gain-free splits deeper.
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 5)
    y = np.array([0, 1, 1, 0] * 5)
    tree = DecisionTreeClassifier(criterion="misclassification").fit(X, y)
    assert tree.get_n_leaves() == 1
    # On separable data misclassification grows a tree that fits the training set.
    X2, y2 = load_iris(return_X_y=True)
    clf = DecisionTreeClassifier(criterion="misclassification", random_state=0).fit(X2, y2)
    assert clf.score(X2, y2) > 0.95
    leaves = clf.tree_.children_left == -1
    assert np.all(clf.tree_.impurity[~leaves] > 0)


def test_properties_of_fitted_tree():
    X, y = load_breast_cancer(return_X_y=True)
    clf = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    t = clf.tree_
    leaves = t.children_left == -1
    assert clf.get_n_leaves() == leaves.sum() and clf.get_depth() == t.max_depth <= 5
    # children partition their parent: sample counts add up
    inner = np.flatnonzero(~leaves)
    np.testing.assert_array_equal(t.n_node_samples[inner], t.n_node_samples[t.children_left[inner]]
                                  + t.n_node_samples[t.children_right[inner]])
    np.testing.assert_allclose(clf.feature_importances_.sum(), 1.0)
    path = clf.decision_path(X)
    np.testing.assert_array_equal(path[np.arange(len(X)), clf.apply(X)].A1, 1)
    depth = np.zeros(t.node_count, dtype=int)
    for u in range(t.node_count):  # pre-order ids: a parent comes before its children
        for child in (t.children_left[u], t.children_right[u]):
            if child != -1:
                depth[child] = depth[u] + 1
    np.testing.assert_array_equal(path.sum(axis=1).A1 - 1, depth[clf.apply(X)])
    assert depth.max() == t.max_depth
    # duplicating every sample with half weight gives the same tree
    X2, y2, w2 = np.vstack([X, X]), np.concatenate([y, y]), np.full(2 * len(y), 0.5)
    twin = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X2, y2, sample_weight=w2)
    np.testing.assert_allclose(twin.tree_.threshold, t.threshold)
    # float32 input predicts like float64
    np.testing.assert_array_equal(clf.predict(X.astype(np.float32)), clf.predict(X.astype(np.float32).astype(float)))


def test_max_features_and_random_splitter_are_reproducible():
    X, y = make_classification(300, 10, random_state=0)
    for params in [{"max_features": "sqrt"}, {"splitter": "random"}, {"max_features": 0.5, "splitter": "random"}]:
        a = DecisionTreeClassifier(random_state=7, **params).fit(X, y)
        b = DecisionTreeClassifier(random_state=7, **params).fit(X, y)
        np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
        assert a.score(X, y) == 1.0
    c = DecisionTreeClassifier(random_state=8, splitter="random").fit(X, y)
    assert c.tree_.node_count != a.tree_.node_count or not np.array_equal(c.tree_.threshold, a.tree_.threshold)


def test_zero_weight_samples_are_ignored():
    X, y = make_classification(200, 4, random_state=2)
    w = np.ones(200)
    w[::3] = 0.0
    a = DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=w)
    b = DecisionTreeClassifier(random_state=0).fit(X[w > 0], y[w > 0])
    np.testing.assert_allclose(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(a.tree_.n_node_samples, b.tree_.n_node_samples)


def test_bad_input():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="max_depth"):
        DecisionTreeClassifier(max_depth=0).fit(X, y)
    # One sample, or one class: a single leaf that predicts it (scikit-learn does the same).
    for X_few, y_few in ((X[:1], y[:1]), (X[:10], np.zeros(10))):
        lone = DecisionTreeClassifier().fit(X_few, y_few)
        assert lone.get_n_leaves() == 1 and lone.tree_.node_count == 1
        np.testing.assert_array_equal(lone.predict(X), np.full(len(X), y_few[0]))
        np.testing.assert_array_equal(lone.predict_proba(X), np.ones((len(X), 1)))
    with pytest.raises(ValueError, match="infinity|inf"):
        DecisionTreeClassifier().fit(np.where(X > 7, np.inf, X), y)
    with pytest.raises(ValueError, match="max_features"):
        DecisionTreeClassifier(max_features=10).fit(X, y)
    with pytest.raises(ValueError, match="criterion"):
        DecisionTreeRegressor(criterion="gini").fit(X, y)
    with pytest.raises(ValueError, match="features"):
        DecisionTreeClassifier().fit(X, y).predict(X[:, :3])
    with pytest.raises(ValueError, match="non-negative"):
        DecisionTreeClassifier().fit(X, y, sample_weight=-np.ones(len(y)))
    # one sample is a one-leaf regression tree; constant features give a single leaf
    reg = DecisionTreeRegressor().fit(X[:1], [3.0])
    assert reg.get_n_leaves() == 1 and reg.predict(X[:2]).tolist() == [3.0, 3.0]
    const = DecisionTreeClassifier().fit(np.ones((10, 3)), [0, 1] * 5)
    assert const.get_n_leaves() == 1 and const.predict_proba([[1.0, 1.0, 1.0]]).tolist() == [[0.5, 0.5]]


@pytest.mark.parametrize("scale", [1e200, 8.5e307, 1e-200, 1e-310])
@pytest.mark.parametrize("criterion, max_bins", [("squared_error", None), ("absolute_error", None),
                                                 ("squared_error", 16)])  # (histograms: squared error only)
def test_regression_targets_near_the_float_limits_grow_the_same_tree(scale, criterion, max_bins):
    """The split proxies S²/W overflowed for |y| near 1e154 and beyond (no split was ever found: a
    one-leaf tree, R² 0, no warning) and underflowed near 1e-200: y is taken in units of a power
    of 2, exactly, and the tree is the one of y itself, its values and impurities in y's units."""
    X = np.arange(10.0)[:, None]
    y = np.r_[np.zeros(5), np.ones(5)]
    plain = DecisionTreeRegressor(criterion=criterion, max_bins=max_bins).fit(X, y)
    scaled = DecisionTreeRegressor(criterion=criterion, max_bins=max_bins).fit(X, y * scale)
    assert scaled.get_n_leaves() == plain.get_n_leaves() == 2
    np.testing.assert_array_equal(scaled.predict(X), y * scale)
    assert np.all(np.isfinite(scaled.predict(X)))
