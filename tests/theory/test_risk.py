"""Empirical risk and finite-class ERM."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_absolute_error, mean_squared_error, zero_one_loss
from sklearn.tree import DecisionTreeClassifier

from lucidml.theory import empirical_risk, erm


def test_zero_one_matches_sklearn_on_iris():
    X, y = load_iris(return_X_y=True)
    tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    assert empirical_risk(tree, X, y) == pytest.approx(zero_one_loss(y, tree.predict(X)))


def test_regression_losses_match_sklearn():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = X @ [1.0, -2.0, 0.5] + rng.normal(size=50)
    model = LinearRegression().fit(X, y)
    assert empirical_risk(model, X, y, loss="squared") == pytest.approx(mean_squared_error(y, model.predict(X)))
    assert empirical_risk(model, X, y, loss="absolute") == pytest.approx(mean_absolute_error(y, model.predict(X)))


def test_callable_loss():
    X = np.zeros((4, 1))
    hinge = lambda y, f: np.maximum(0.0, 1.0 - y * f)  # noqa: E731
    assert empirical_risk(lambda X: np.full(len(X), 0.5), X, [1, 1, -1, -1], loss=hinge) == pytest.approx(1.0)


def test_erm_picks_the_best_threshold_and_reports_all_risks():
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, size=200)
    y = (x > 0.37).astype(int)
    y[rng.choice(200, 10, replace=False)] ^= 1  # 5% label noise
    X = x[:, None]
    thresholds = np.linspace(0, 1, 21)
    H = [lambda X, t=t: (X[:, 0] > t).astype(int) for t in thresholds]
    result = erm(H, X, y)
    expected = [np.mean((x > t).astype(int) != y) for t in thresholds]
    np.testing.assert_allclose(result.risks, expected)
    assert result.best_index == int(np.argmin(expected))
    assert result.best is H[result.best_index]
    assert thresholds[result.best_index] == pytest.approx(0.35)


def test_erm_breaks_ties_by_order():
    X = np.zeros((3, 1))
    H = [lambda X: np.ones(3), lambda X: np.zeros(3), lambda X: np.zeros(3)]
    assert erm(H, X, [0, 0, 0]).best_index == 1


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=2, max_size=40), st.randoms(use_true_random=False))
def test_zero_one_risk_is_invariant_to_sample_order(labels, random):
    y = np.array(labels)
    X = np.arange(len(y), dtype=float)[:, None]
    predict = lambda X: (X[:, 0] % 3 == 0).astype(int)  # noqa: E731
    order = list(range(len(y)))
    random.shuffle(order)
    assert empirical_risk(predict, X[order], y[order]) == pytest.approx(empirical_risk(predict, X, y))


def test_errors():
    X = np.zeros((3, 1))
    with pytest.raises(ValueError, match="empty"):
        erm([], X, [0, 1, 0])
    with pytest.raises(ValueError, match="loss"):
        empirical_risk(lambda X: np.zeros(3), X, [0, 1, 0], loss="hinge")
    for wrong in (TypeError, ValueError):
        with pytest.raises(wrong, match="predict"):
            empirical_risk(42, X, [0, 1, 0])
    with pytest.raises(ValueError, match="shape"):
        empirical_risk(lambda X: np.zeros(2), X, [0, 1, 0])
    with pytest.raises(ValueError, match="NaN|infinite"):
        empirical_risk(lambda X: np.array([0.0, np.inf, 0.0]), X, [0, 1, 0], loss="squared")
    with pytest.raises(ValueError, match="inconsistent|samples"):
        empirical_risk(lambda X: np.zeros(3), X, [0, 1])
