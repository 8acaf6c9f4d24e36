"""export_text and export_graphviz: content checks."""

import io
import re

import numpy as np
from sklearn.datasets import load_iris

from lucidml.tree.decision_tree import DecisionTreeClassifier, DecisionTreeRegressor
from lucidml.tree.export import export_graphviz, export_text

IRIS = load_iris()


def test_export_text_iris():
    clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(IRIS.data, IRIS.target)
    text = export_text(clf, feature_names=IRIS.feature_names, class_names=IRIS.target_names)
    lines = text.splitlines()
    assert lines[0] == "|--- petal length (cm) <= 2.45"
    assert lines[1] == "|   |--- class: setosa (50, 0, 0)"
    assert lines[2] == "|--- petal length (cm) >  2.45"
    # one line per edge and per leaf: 2 per internal node's children + 1 per leaf
    assert len(lines) == 2 * (clf.tree_.node_count - clf.get_n_leaves()) + clf.get_n_leaves()
    assert sum("class:" in line for line in lines) == clf.get_n_leaves()
    # decimals and default names
    assert "feature_2 <= 2.4500" in export_text(clf, decimals=4)


def test_export_text_truncates_and_shows_regression_values():
    reg = DecisionTreeRegressor(max_depth=3).fit(IRIS.data[:, :2], IRIS.data[:, 3])
    text = export_text(reg, max_depth=1)
    assert "truncated branch of depth" in text
    leaf_values = re.findall(r"value: (-?\d+\.\d+)", export_text(reg))
    assert len(leaf_values) == reg.get_n_leaves()
    np.testing.assert_allclose(sorted(map(float, leaf_values)),
                               sorted(np.round(reg.tree_.value[reg.tree_.children_left == -1, 0, 0], 2)))


def test_export_text_categorical():
    X = np.array([[0.0], [1.0], [2.0], [0.0], [1.0], [2.0]])
    clf = DecisionTreeClassifier(categorical_features=[0]).fit(X, ["a", "b", "c", "a", "b", "c"])
    text = export_text(clf, feature_names=["colour"])
    assert text.splitlines() == ["|--- colour = 0", "|   |--- class: a (2, 0, 0)", "|--- colour = 1",
                                 "|   |--- class: b (0, 2, 0)", "|--- colour = 2", "|   |--- class: c (0, 0, 2)"]


def test_export_graphviz_content():
    clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(IRIS.data, IRIS.target)
    buffer = io.StringIO()
    dot = export_graphviz(clf, buffer, feature_names=IRIS.feature_names, class_names=IRIS.target_names,
                          filled=True, node_ids=True)
    assert buffer.getvalue() == dot
    assert dot.startswith("digraph Tree {") and dot.rstrip().endswith("}")
    nodes = re.findall(r'^(\d+) \[label="', dot, flags=re.MULTILINE)
    edges = re.findall(r"^(\d+) -> (\d+)", dot, flags=re.MULTILINE)
    assert len(nodes) == clf.tree_.node_count and len(edges) == clf.tree_.node_count - 1
    assert 'petal length (cm) <= 2.45\\ngini = 0.667\\nsamples = 150\\nvalue = [50, 50, 50]\\nclass = setosa' in dot
    assert 'headlabel="True"' in dot and 'headlabel="False"' in dot
    assert dot.count("fillcolor=") == clf.tree_.node_count
    shallow = export_graphviz(clf, max_depth=0, impurity=False)
    assert "(...)" in shallow and "gini" not in shallow


def test_scikit_learn_export_graphviz_draws_lucidml_trees():
    """scikit-learn's own export_graphviz reads a lucidml tree_: the same drawing as of its own tree."""
    from sklearn import tree as sk_tree
    from sklearn.datasets import make_classification, make_regression

    X, y = make_classification(400, 6, n_informative=4, n_classes=3, random_state=0)  # no tied splits
    ours = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    theirs = sk_tree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    options = {"filled": True, "node_ids": True, "proportion": True, "class_names": ["a", "b", "c"]}
    assert sk_tree.export_graphviz(ours, **options) == sk_tree.export_graphviz(theirs, **options)
    X, y = make_regression(300, 4, noise=5.0, random_state=1)
    ours = DecisionTreeRegressor(max_depth=3).fit(X, y)
    theirs = sk_tree.DecisionTreeRegressor(max_depth=3).fit(X, y)
    assert sk_tree.export_graphviz(ours, filled=True) == sk_tree.export_graphviz(theirs, filled=True)
