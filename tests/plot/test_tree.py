"""TreeDisplay draws every node of a lucidml tree: leaves, binary and multiway splits, NaN directions."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier as SklearnTree

from lucidml.cluster import KMeans
from lucidml.plot import TreeDisplay
from lucidml.tree import DecisionTreeClassifier, DecisionTreeRegressor

X_iris, y_iris = load_iris(return_X_y=True)


def _drawn_leaves(display):
    """Nodes whose box shows no test (read from the drawn text, not from ``leaves_``)."""
    def is_leaf_box(text):
        first = text.splitlines()[0]
        return text != "(...)" and "<=" not in first and ": category" not in first

    return [u for u, text in display.node_texts_.items() if is_leaf_box(text.get_text())]


def test_every_node_and_leaf_is_drawn(ax):
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_iris, y_iris)
    display = TreeDisplay.from_estimator(clf, ax=ax)
    tree = clf.tree_
    assert display.ax_ is ax and display.figure_ is ax.figure
    assert len(display.node_texts_) == tree.node_count
    assert len(_drawn_leaves(display)) == tree.n_leaves
    assert len(display.edge_lines_) == tree.node_count - 1
    root_text = display.node_texts_[0].get_text()
    assert root_text.startswith(f"feature_{tree.feature[0]} <= {tree.threshold[0]:.2f}")
    assert f"samples = {len(X_iris)}" in root_text
    for leaf in display.leaves_:  # the leaf's class is its majority class
        assert f"class = {np.argmax(tree.value[leaf, 0])}" in display.node_texts_[leaf].get_text()
    # leaves side by side at the bottom of their branch; each split above the middle of its children
    leaf_x = sorted(display.positions_[u][0] for u in display.leaves_)
    assert leaf_x == list(range(tree.n_leaves))
    for u in range(tree.node_count):
        children = tree.children(u)
        if children.size:
            xs = [display.positions_[int(c)][0] for c in children]
            assert display.positions_[u][0] == pytest.approx((xs[0] + xs[-1]) / 2)
            assert display.positions_[int(children[0])][1] == display.positions_[u][1] - 1


def test_multiway_categorical_split_and_missing_values():
    rng = np.random.default_rng(0)
    colour = rng.integers(0, 3, size=90).astype(float)
    noise = rng.normal(size=90)
    noise[::7] = np.nan
    y = (colour == 1).astype(int)
    X = np.column_stack([colour, noise])
    clf = DecisionTreeClassifier(categorical_features=[0], max_depth=2, random_state=0).fit(X, y)
    assert clf.tree_.has_categories
    display = TreeDisplay.from_estimator(clf, feature_names=["colour", "noise"], class_names=["no", "yes"])
    root = display.node_texts_[0].get_text()
    assert root.startswith("colour: category")
    n_root_children = clf.tree_.category_ptr[1] - clf.tree_.category_ptr[0]
    assert n_root_children == 3
    root_labels = [t.get_text() for t in display.edge_texts_[:n_root_children]]
    assert root_labels == ["= 0", "= 1", "= 2"]
    assert len(_drawn_leaves(display)) == clf.tree_.n_leaves

    reg = DecisionTreeRegressor(max_depth=1).fit(X[:, 1:], y.astype(float))
    labels = [t.get_text() for t in TreeDisplay.from_estimator(reg).edge_texts_]
    nan_side = 0 if reg.tree_.missing_go_to_left[0] else 1
    assert labels[nan_side].endswith("+ NaN") and not labels[1 - nan_side].endswith("NaN")
    hidden = TreeDisplay.from_estimator(reg, show_missing=False)
    assert [t.get_text() for t in hidden.edge_texts_] == ["True", "False"]


def test_max_depth_truncates():
    clf = DecisionTreeClassifier(random_state=0).fit(X_iris, y_iris)
    display = TreeDisplay.from_estimator(clf, max_depth=1)
    depth = {u: -int(y) for u, (_, y) in display.positions_.items()}
    assert max(depth.values()) == 2
    assert all(u in display.leaves_ or u in display.truncated_ for u, d in depth.items() if d == 2)
    assert display.truncated_ and all(display.node_texts_[u].get_text() == "(...)" for u in display.truncated_)
    assert clf.tree_.max_depth > 2 and len(display.node_texts_) < clf.tree_.node_count


def test_regressor_values():
    reg = DecisionTreeRegressor(max_depth=2).fit(X_iris[:, :2], X_iris[:, 3])
    display = TreeDisplay.from_estimator(reg, precision=3)
    for leaf in display.leaves_:
        assert f"value = {reg.tree_.value[leaf, 0, 0]:.3f}" in display.node_texts_[leaf].get_text()


def test_clear_errors():
    with pytest.raises(NotFittedError):
        TreeDisplay.from_estimator(DecisionTreeClassifier())
    with pytest.raises(TypeError, match="decision tree"):
        TreeDisplay.from_estimator(KMeans(n_clusters=2, n_init=1).fit(X_iris))
    with pytest.raises(TypeError, match="plot_tree"):
        TreeDisplay.from_estimator(SklearnTree().fit(X_iris, y_iris))
    clf = DecisionTreeClassifier(max_depth=1).fit(X_iris, y_iris)
    with pytest.raises(ValueError, match="feature_names"):
        TreeDisplay.from_estimator(clf, feature_names=["a"])
