"""Missing values, multiway categorical splits and histogram (max_bins) search."""

import numpy as np
import pytest
from sklearn import tree as sk_tree
from sklearn.datasets import load_breast_cancer, load_diabetes, make_classification, make_friedman1
from sklearn.model_selection import train_test_split

from lucidml.tree.decision_tree import DecisionTreeClassifier, DecisionTreeRegressor


def with_nan(X, rate, seed):
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < rate] = np.nan
    return X


def test_nan_tree_equals_sklearn():
    # scikit-learn also learns a direction for NaN at each split (and sends NaN to the larger
    # child where the node saw none): the same depth-3 tree.
    X, y = make_classification(400, 6, n_informative=4, random_state=0)
    X = with_nan(X, 0.1, 1)
    ours = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    theirs = sk_tree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
    np.testing.assert_allclose(ours.tree_.threshold, theirs.tree_.threshold, rtol=1e-6)
    np.testing.assert_array_equal(ours.tree_.missing_go_to_left, theirs.tree_.missing_go_to_left)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_nan_accuracy_close_to_sklearn():
    X, y = load_breast_cancer(return_X_y=True)
    X = with_nan(X, 0.2, 0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)
    ours = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X_train, y_train).score(X_test, y_test)
    theirs = sk_tree.DecisionTreeClassifier(max_depth=6, random_state=0).fit(X_train, y_train).score(X_test, y_test)
    assert ours > 0.85 and abs(ours - theirs) < 0.06


def test_nan_direction_is_learned():
    # x ≤ 0 → class 0, x > 0 → class 1, and a missing x means class 1: NaN must go right.
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    y = (x > 0).astype(int)
    x[:40] = np.nan
    y[:40] = 1
    clf = DecisionTreeClassifier(max_depth=1).fit(x.reshape(-1, 1), y)
    assert clf.tree_.missing_go_to_left[0] == 0
    assert clf.predict([[np.nan]])[0] == 1 and clf.score(x.reshape(-1, 1), y) == 1.0
    y_left = y.copy()
    y_left[:40] = 0  # now a missing x means the class of the left side
    clf_left = DecisionTreeClassifier(max_depth=1).fit(x.reshape(-1, 1), y_left)
    assert clf_left.tree_.missing_go_to_left[0] == 1 and clf_left.predict([[np.nan]])[0] == 0
    # only NaN separates: the threshold is +inf (NaN ≤ inf is false)
    only = DecisionTreeClassifier().fit([[1.0], [1.0], [np.nan], [np.nan]], [0, 0, 1, 1])
    assert np.isinf(only.tree_.threshold[0]) and only.predict([[np.nan], [5.0]]).tolist() == [1, 0]


def test_nan_unseen_in_training_goes_to_larger_child():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    clf = DecisionTreeClassifier(max_depth=1).fit(X, [0, 0, 0, 1, 1])
    assert clf.predict([[np.nan]])[0] == 0  # the left child holds 3 of 5


def test_nan_not_supported_with_absolute_error():
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="NaN|missing"):
        DecisionTreeRegressor(criterion="absolute_error").fit(with_nan(X, 0.05, 0), y)
    reg = DecisionTreeRegressor(criterion="absolute_error", max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        reg.predict(with_nan(X, 0.05, 0))


def test_categorical_multiway_one_child_per_value():
    rng = np.random.default_rng(0)
    colour = rng.integers(0, 4, size=300).astype(float)
    noise = rng.normal(size=300)
    y = np.isin(colour, [1, 3]).astype(int)
    X = np.column_stack([colour, noise])
    clf = DecisionTreeClassifier(categorical_features=[0], random_state=0).fit(X, y)
    t = clf.tree_
    assert t.feature[0] == 0 and np.isnan(t.threshold[0])
    np.testing.assert_array_equal(t.category_values[t.category_ptr[0]:t.category_ptr[1]], [0, 1, 2, 3])
    assert clf.get_n_leaves() == 4 and clf.score(X, y) == 1.0
    # boolean mask form and the histogram search give the same multiway root
    mask = DecisionTreeClassifier(categorical_features=[True, False], max_bins=8).fit(X, y)
    np.testing.assert_array_equal(mask.tree_.category_values, t.category_values)
    assert mask.score(X, y) == 1.0
    # unseen category 7: the root's majority (smallest label on a tie)
    proba = clf.predict_proba([[7.0, 0.0]])
    np.testing.assert_allclose(proba, t.value[0, 0][None])
    assert clf.apply([[7.0, 0.0]])[0] == 0
    with pytest.raises(ValueError, match="categorical_features"):
        DecisionTreeClassifier(categorical_features=[5]).fit(X, y)


def test_categorical_regression_and_nan_category():
    rng = np.random.default_rng(1)
    level = rng.integers(0, 3, size=200).astype(float)
    y = np.array([10.0, 20.0, 30.0])[level.astype(int)] + rng.normal(scale=0.1, size=200)
    level[:20] = np.nan
    y[:20] = 50.0
    reg = DecisionTreeRegressor(categorical_features=[0], max_depth=1).fit(level.reshape(-1, 1), y)
    assert reg.get_n_leaves() == 4  # three levels and the NaN category
    np.testing.assert_allclose(reg.predict([[np.nan], [1.0]]), [50.0, 20.0], atol=0.05)


@pytest.mark.parametrize("max_bins", [16, 255])
def test_histogram_search(max_bins):
    X, y = make_classification(2000, 8, n_informative=5, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    hist = DecisionTreeClassifier(max_bins=max_bins, max_depth=6, random_state=0).fit(X_train, y_train)
    exact = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X_train, y_train)
    assert abs(hist.score(X_test, y_test) - exact.score(X_test, y_test)) < 0.05
    # thresholds are bin edges: at most max_bins − 1 distinct thresholds per feature
    t = hist.tree_
    for j in range(X.shape[1]):
        assert np.unique(t.threshold[t.feature == j]).size <= max_bins - 1
    # with few distinct values every value has its own bin: the same partitions as the exact
    # search (a threshold may sit at another edge of the same empty gap)
    Xd = np.round(X_train * 2)
    a = DecisionTreeClassifier(max_bins=255, max_depth=4, random_state=0).fit(Xd, y_train)
    b = DecisionTreeClassifier(max_depth=4, random_state=0).fit(Xd, y_train)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_array_equal(a.apply(Xd), b.apply(Xd))
    np.testing.assert_allclose(a.tree_.value, b.tree_.value)


def test_histogram_regression_and_nan():
    # Friedman #1 rather than diabetes: a depth-6 tree explains ~60% of it, so the comparison
    # measures the binning, not the tie-breaking between near-useless splits.
    X, y = make_friedman1(2000, noise=1.0, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    X_train, X_test = with_nan(X_train, 0.1, 0), with_nan(X_test, 0.1, 1)
    hist = DecisionTreeRegressor(max_bins=64, max_depth=6, random_state=0).fit(X_train, y_train)
    exact = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X_train, y_train)
    theirs = sk_tree.DecisionTreeRegressor(max_depth=6, random_state=0).fit(X_train, y_train)
    assert hist.score(X_test, y_test) > 0.55
    assert abs(hist.score(X_test, y_test) - exact.score(X_test, y_test)) < 0.02
    assert abs(exact.score(X_test, y_test) - theirs.score(X_test, y_test)) < 0.02
    X, y = load_diabetes(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    with pytest.raises(ValueError, match="max_bins"):
        DecisionTreeRegressor(criterion="absolute_error", max_bins=32).fit(X, y)
    # histogram search with a leaf budget (best-first) and sample weights
    w = np.random.default_rng(0).integers(0, 3, size=y_train.size).astype(float)
    budget = DecisionTreeRegressor(max_bins=32, max_leaf_nodes=10).fit(X_train, y_train, sample_weight=w)
    assert budget.get_n_leaves() == 10


@pytest.mark.parametrize("categorical", [False, True])
def test_parallel_traversal_equals_the_serial_one(categorical):
    # Above a few thousand rows apply() walks blocks of rows in parallel; below, one serial loop.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12_000, 5))
    X[:, 0] = rng.integers(0, 6, size=X.shape[0])
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 1]) + (X[:, 0] == 2) > 0.5).astype(int)
    tree = DecisionTreeClassifier(max_depth=8, categorical_features=[0] if categorical else None,
                                  random_state=0).fit(X[:3000], y[:3000])
    X_new = X.copy()
    X_new[::50, 0] = 9  # a category never seen in training stops at its node
    whole = tree.apply(X_new)
    pieces = np.concatenate([tree.apply(X_new[i:i + 1000]) for i in range(0, X_new.shape[0], 1000)])
    np.testing.assert_array_equal(whole, pieces)
    np.testing.assert_array_equal(tree.predict(X_new), np.concatenate(
        [tree.predict(X_new[i:i + 1000]) for i in range(0, X_new.shape[0], 1000)]))


@pytest.mark.parametrize("seed", range(3))
def test_histogram_thresholds_sit_midway_in_the_node_gap(seed):
    """A histogram split separates the node's samples between two bins occupied in the node; its
    threshold is the midpoint of the left bin's largest and the right bin's smallest training
    value (as gradient boosting's, and an exact tree's when the bins are exact), not the global
    edge after the left bin, which lies anywhere in the gap between them."""
    from lucidml.tree._binning import apply_bins, fit_bin_edges

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(400, 3)) * [1.0, 10.0, 100.0]
    y = (X[:, 0] + X[:, 1] / 10 + rng.normal(scale=0.5, size=400) > 0).astype(int)
    tree = DecisionTreeClassifier(max_bins=8, max_depth=6, random_state=0).fit(X, y).tree_
    binned = apply_bins(X, fit_bin_edges(X, 8), 8)  # the tree's bins (no subsample below 200,000 rows)
    paths = tree.decision_path(X).tocsc()
    checked = 0
    for node in np.flatnonzero(tree.children_left != -1):
        rows = paths[:, node].nonzero()[0]
        f = tree.feature[node]
        left = X[rows, f] <= tree.threshold[node]
        left_bin = binned[rows[left], f].max()
        right_bin = binned[rows[~left], f].min()
        expected = 0.5 * X[binned[:, f] == left_bin, f].max() + 0.5 * X[binned[:, f] == right_bin, f].min()
        assert tree.threshold[node] == expected
        checked += 1
    assert checked >= 5
