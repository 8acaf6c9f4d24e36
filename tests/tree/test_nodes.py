"""The one node layout: every tree model holds NODE_DTYPE records, read through scikit-learn's names."""

import numpy as np
from sklearn.datasets import load_diabetes, load_iris

from lucidml.ensemble import AdaBoostClassifier, GradientBoostingClassifier, RandomForestRegressor
from lucidml.tree import DecisionTreeClassifier
from lucidml.tree._nodes import NODE_DTYPE, TREE_LEAF


def test_a_tree_is_node_records_read_as_scikit_learns_arrays():
    X, y = load_iris(return_X_y=True)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    assert tree.nodes.dtype == NODE_DTYPE and tree.nodes.size == tree.node_count
    for name, field in [("children_left", "left_child"), ("children_right", "right_child"), ("feature", "feature"),
                        ("threshold", "threshold"), ("impurity", "impurity"), ("n_node_samples", "n_node_samples"),
                        ("weighted_n_node_samples", "weighted_n_node_samples")]:
        array = getattr(tree, name)
        assert np.shares_memory(array, tree.nodes) and np.array_equal(array, tree.nodes[field])
    leaf = tree.children_left == TREE_LEAF
    assert np.all(tree.children_right[leaf] == TREE_LEAF) and np.all(tree.feature[leaf] == -2)
    assert np.all(tree.nodes["improvement"][leaf] == 0)


def test_the_improvement_is_the_weighted_impurity_decrease():
    X, y = load_iris(return_X_y=True)
    w = np.random.default_rng(0).uniform(0.5, 2.0, y.size)
    tree = DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y, sample_weight=w).tree_
    weighted = tree.weighted_n_node_samples * tree.impurity
    for u in np.flatnonzero(tree.children_left != TREE_LEAF):
        decrease = weighted[u] - weighted[tree.children_left[u]] - weighted[tree.children_right[u]]
        np.testing.assert_allclose(tree.nodes["improvement"][u], decrease / tree.weighted_n_node_samples[0],
                                   rtol=1e-9, atol=1e-12)


def test_a_forest_holds_its_members_nodes_once():
    X, y = load_diabetes(return_X_y=True)
    forest = RandomForestRegressor(n_estimators=5, max_depth=4, random_state=0).fit(X, y)
    table = forest._flat.nodes
    assert table.dtype == NODE_DTYPE
    assert table.size == sum(member.tree_.node_count for member in forest.estimators_)
    for member in forest.estimators_:
        assert np.shares_memory(member.tree_.nodes, table)
    ada = AdaBoostClassifier(n_estimators=3, random_state=0).fit(*load_iris(return_X_y=True))
    assert ada._flat.nodes.dtype == NODE_DTYPE


def test_boosting_trees_are_the_same_records_tree_after_tree():
    X, y = load_iris(return_X_y=True)
    model = GradientBoostingClassifier(n_estimators=4, max_depth=2, random_state=0).fit(X, y)
    assert model.nodes_.dtype == NODE_DTYPE and model.node_values_.shape == (model.nodes_.size,)
    bounds = np.append(model.tree_roots_.ravel(), model.nodes_.size)
    for start, stop in zip(bounds[:-1], bounds[1:]):
        tree = model.nodes_[start:stop]
        internal = tree["left_child"] != TREE_LEAF
        assert np.all(tree["left_child"][internal] < tree.size) and np.all(tree["right_child"][internal] > 0)
        assert np.all(model.node_values_[start:stop][internal] == 0)  # only leaves carry a score
        # Children partition their parent's samples and Σh.
        for u in np.flatnonzero(internal):
            children = tree[[tree["left_child"][u], tree["right_child"][u]]]
            assert children["n_node_samples"].sum() == tree["n_node_samples"][u]
            np.testing.assert_allclose(children["weighted_n_node_samples"].sum(), tree["weighted_n_node_samples"][u])
