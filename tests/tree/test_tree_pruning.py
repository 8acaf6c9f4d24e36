"""Post-pruning: cost-complexity against scikit-learn, and the error pruning of 004 §12."""

import numpy as np
import pytest
from sklearn import tree as sk_tree
from sklearn.base import clone
from sklearn.datasets import load_diabetes, make_classification

from lucidml.tree._pruning import node_errors
from lucidml.tree.decision_tree import DecisionTreeClassifier, DecisionTreeRegressor

# 004 §12's loan data: credit (excellent 1, fair 2, poor 3), term (3 yrs 1, 5 yrs 2), income (high 1, low 2).
LOAN_X = np.array([[1, 1, 1], [2, 2, 2], [2, 1, 1], [3, 2, 1], [1, 1, 2], [2, 2, 2], [3, 1, 1], [3, 2, 2],
                   [2, 1, 1]], dtype=float)
LOAN_Y = np.array(["safe", "risky", "safe", "risky", "risky", "safe", "risky", "safe", "safe"])


def cost(clf, lam):
    """C(T) = Error(T) + λ·#leaves, Error the number of training mistakes."""
    return np.sum(clf.predict(LOAN_X) != LOAN_Y) + lam * clf.get_n_leaves()


def _classification_data():
    return make_classification(400, 6, n_informative=4, n_classes=3, random_state=0)


@pytest.mark.parametrize("case", ["classification", "regression"])
def test_ccp_path_equals_sklearn(case):
    # Settings where both libraries grow the very same tree (no tied splits, see test_decision_tree).
    if case == "classification":
        X, y = _classification_data()
        ours = DecisionTreeClassifier(max_depth=5, random_state=0)
        theirs = sk_tree.DecisionTreeClassifier(max_depth=5, random_state=0)
    else:
        X, y = load_diabetes(return_X_y=True)
        ours = DecisionTreeRegressor(min_samples_leaf=20, random_state=0)
        theirs = sk_tree.DecisionTreeRegressor(min_samples_leaf=20, random_state=0)
    a = ours.cost_complexity_pruning_path(X, y)
    b = theirs.cost_complexity_pruning_path(X, y)
    scale = 1.0 if case == "classification" else float(np.var(y))  # regression impurities are in y² units
    assert a.ccp_alphas.size == b.ccp_alphas.size > 5
    np.testing.assert_allclose(a.ccp_alphas / scale, b.ccp_alphas / scale, rtol=0, atol=1e-10)
    np.testing.assert_allclose(a.impurities / scale, b.impurities / scale, rtol=0, atol=1e-10)
    # pruning at an α between two steps of the path gives sklearn's pruned tree
    k = len(a.ccp_alphas) // 2
    alpha = float(a.ccp_alphas[k] + a.ccp_alphas[k + 1]) / 2
    full = clone(ours).fit(X, y)
    pruned = clone(ours).set_params(ccp_alpha=alpha).fit(X, y)
    ref = clone(theirs).set_params(ccp_alpha=alpha).fit(X, y)
    assert pruned.tree_.node_count == ref.tree_.node_count < full.tree_.node_count
    np.testing.assert_array_equal(pruned.tree_.feature, ref.tree_.feature)
    np.testing.assert_allclose(pruned.predict(X), ref.predict(X))


def test_ccp_path_is_monotone_and_ends_at_root():
    X, y = make_classification(300, 5, random_state=0)
    path = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(X, y)
    assert np.all(np.diff(path.ccp_alphas) >= 0) and np.all(np.diff(path.impurities) >= 0)
    root = DecisionTreeClassifier(random_state=0, ccp_alpha=path.ccp_alphas[-1]).fit(X, y)
    assert root.get_n_leaves() == 1


def test_loan_example_multiway_tree():
    clf = DecisionTreeClassifier(criterion="misclassification", categorical_features=[0, 1, 2]).fit(LOAN_X, LOAN_Y)
    t = clf.tree_
    # root: credit (3 mistakes against 4 for term or income), one child per rating
    assert t.feature[0] == 0 and np.isnan(t.threshold[0])
    children = t.children(0)
    np.testing.assert_array_equal(t.category_values[t.category_ptr[0]:t.category_ptr[1]], [1.0, 2.0, 3.0])
    excellent, fair, poor = children
    assert t.feature[excellent] == 2 and t.feature[poor] == 2  # income separates both
    assert t.children_left[fair] == -1  # fair: no split lowers its one mistake (strict improvement)
    assert clf.get_n_leaves() == 5 and clf.get_depth() == 2
    assert np.sum(clf.predict(LOAN_X) != LOAN_Y) == 1
    # a feature used multiway is not reused below it
    assert not np.any(t.feature[children] == 0)
    # an unseen category stops at the node: the majority of that node ("safe", 5 of 9)
    assert clf.predict([[4.0, 1.0, 1.0]])[0] == "safe"
    assert clf.apply([[4.0, 1.0, 1.0]])[0] == 0


def test_loan_example_pruning_arithmetic():
    grown = DecisionTreeClassifier(criterion="misclassification", categorical_features=[0, 1, 2]).fit(LOAN_X, LOAN_Y)
    assert cost(grown, 2.0) == 1 + 2 * 5
    # λ = 1: collapsing "excellent" trades 1 mistake for 1 leaf, a tie, so the split stays
    same = DecisionTreeClassifier(criterion="misclassification", categorical_features=[0, 1, 2],
                                  error_prune_lambda=1.0).fit(LOAN_X, LOAN_Y)
    assert same.get_n_leaves() == 5
    # λ = 2: both income splits go (C: 11 → 9), then the root (C: 9 → 4 + 2·1 = 6)
    pruned = DecisionTreeClassifier(criterion="misclassification", categorical_features=[0, 1, 2],
                                    error_prune_lambda=2.0).fit(LOAN_X, LOAN_Y)
    assert pruned.get_n_leaves() == 1 and cost(pruned, 2.0) == 6
    # just above the tie the bottom splits go, and then the root (4 − 3 < 1.01·2)
    above = DecisionTreeClassifier(criterion="misclassification", categorical_features=[0, 1, 2],
                                   error_prune_lambda=1.01).fit(LOAN_X, LOAN_Y)
    assert above.get_n_leaves() == 1


def test_error_pruning_follows_the_notes_example():
    # A depth-2 gini tree whose two bottom splits purify without changing any prediction:
    # Error 4 with 4 leaves, so with λ = 2, C(T) = 4 + 2·4 = 12; collapsing one bottom node
    # keeps Error 4 with 3 leaves, C = 10 (the notes' numbers), and then the other, C = 8.
    y = np.array([0] * 8 + [1] * 2 + [0] * 2 + [1] + [0] * 3 + [1] * 8 + [0, 1, 1, 1])
    x = np.arange(y.size, dtype=float).reshape(-1, 1)
    grown = DecisionTreeClassifier(max_depth=2).fit(x, y)
    errors = np.sum(grown.predict(x) != y)
    assert (errors, grown.get_n_leaves()) == (4, 4) and errors + 2 * grown.get_n_leaves() == 12
    t = grown.tree_
    err = node_errors(t, True)
    bottom = [u for u in range(t.node_count) if t.children_left[u] != -1 and t.children_left[t.children_left[u]] == -1]
    assert len(bottom) == 2
    for u in bottom:  # each collapse: Error unchanged, one leaf less, C drops by λ = 2
        assert err[u] == pytest.approx(err[t.children(u)].sum())
        assert errors + 2 * (grown.get_n_leaves() - 1) == 10
    pruned = DecisionTreeClassifier(max_depth=2, error_prune_lambda=2.0).fit(x, y)
    assert np.sum(pruned.predict(x) != y) == 4 and pruned.get_n_leaves() == 2
    assert np.sum(pruned.predict(x) != y) + 2 * pruned.get_n_leaves() == 8


def test_error_pruning_never_raises_cost_and_is_stable():
    X, y = make_classification(400, 6, flip_y=0.2, random_state=0)
    for lam in [0.5, 2.0, 5.0]:
        full = DecisionTreeClassifier(random_state=0).fit(X, y)
        pruned = DecisionTreeClassifier(random_state=0, error_prune_lambda=lam).fit(X, y)
        c_full = np.sum(full.predict(X) != y) + lam * full.get_n_leaves()
        c_pruned = np.sum(pruned.predict(X) != y) + lam * pruned.get_n_leaves()
        assert c_pruned <= c_full and pruned.get_n_leaves() <= full.get_n_leaves()
        if lam >= 2.0:
            assert pruned.get_n_leaves() < full.get_n_leaves()
        # stable: no remaining bottom node would lower C when collapsed
        t = pruned.tree_
        err = node_errors(t, True)
        for u in np.flatnonzero(t.children_left != -1):
            kids = t.children(u)
            if np.all(t.children_left[kids] == -1):
                assert err[u] - err[kids].sum() >= lam * (kids.size - 1) - 1e-9
