"""ConvergenceDisplay draws exactly the history an estimator or optimizer recorded."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from lucidml.cluster import KMeans
from lucidml.decomposition import FactorAnalysis
from lucidml.mixture import GaussianMixture
from lucidml.optim import gradient_descent
from lucidml.plot import ConvergenceDisplay
from lucidml.rl import MDP, value_iteration
from lucidml.svm import SVC
from lucidml.tree import DecisionTreeClassifier

X = np.random.default_rng(0).normal(size=(60, 3))
X[:20] += 4.0
y3 = np.repeat([0, 1, 2], 20)


def test_kmeans_loss_curve_on_given_axes(ax):
    model = KMeans(n_clusters=3, n_init=1, random_state=0).fit(X)
    display = ConvergenceDisplay.from_estimator(model, ax=ax)
    assert display.ax_ is ax and display.figure_ is ax.figure
    np.testing.assert_array_equal(display.line_.get_ydata(), model.loss_curve_)
    np.testing.assert_array_equal(display.line_.get_xdata(), np.arange(1, len(model.loss_curve_) + 1))
    assert ax.get_xlabel() == "iteration" and ax.get_ylabel() == "loss"


def test_em_lower_bounds_and_factor_analysis_loglike_on_a_new_figure():
    gmm = GaussianMixture(n_components=2, random_state=0).fit(X)
    display = ConvergenceDisplay.from_estimator(gmm)
    np.testing.assert_array_equal(display.line_.get_ydata(), gmm.lower_bounds_)
    assert "log-likelihood" in display.ax_.get_ylabel()
    fa = FactorAnalysis(n_components=1).fit(X)
    np.testing.assert_array_equal(ConvergenceDisplay.from_estimator(fa).line_.get_ydata(), fa.loglike_)


def test_one_line_per_subproblem():
    svc = SVC().fit(X, y3)  # one-vs-one: three problems, one objective curve each
    display = ConvergenceDisplay.from_estimator(svc, logy=False)
    assert display.line_ is None and len(display.lines_) == 3
    for line, curve in zip(display.lines_, svc.loss_curve_, strict=True):
        np.testing.assert_array_equal(line.get_ydata(), curve)
    assert len(display.ax_.get_legend().get_texts()) == 3


def test_optimizer_and_planner_results():
    result = gradient_descent(lambda x: x @ x, np.array([3.0, -1.0]), lambda x: 2 * x, step="fixed", lr=0.1)
    display = ConvergenceDisplay.from_result(result, logy=True)
    np.testing.assert_array_equal(display.line_.get_ydata(), [h["f"] for h in result.history])
    assert display.ax_.get_yscale() == "log"
    plan = value_iteration(MDP.grid_world(), tol=1e-4)
    display = ConvergenceDisplay.from_result(plan)
    np.testing.assert_array_equal(display.line_.get_ydata(), plan.history)


def test_clear_errors():
    with pytest.raises(NotFittedError):
        ConvergenceDisplay.from_estimator(KMeans())
    tree = DecisionTreeClassifier().fit(X, y3)
    with pytest.raises(ValueError, match="records no convergence history"):
        ConvergenceDisplay.from_estimator(tree)
    with pytest.raises(TypeError, match="fitted estimator"):
        ConvergenceDisplay.from_estimator([1.0, 0.5])
    with pytest.raises(TypeError, match="history"):
        ConvergenceDisplay.from_result(object())
    with pytest.raises(ValueError, match="non-empty 1-D"):
        ConvergenceDisplay([np.ones((2, 2))]).plot()
