"""FeatureImportanceDisplay, ExplainedVarianceDisplay and ProjectionDisplay draw the fitted numbers."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError

from lucidml.cluster import KMeans
from lucidml.decomposition import PCA, FactorAnalysis, KernelPCA
from lucidml.ensemble import RandomForestClassifier
from lucidml.linear import LinearRegression
from lucidml.plot import ExplainedVarianceDisplay, FeatureImportanceDisplay, ProjectionDisplay
from lucidml.tree import DecisionTreeClassifier

X, y = load_iris(return_X_y=True)
NAMES = ["sepal length", "sepal width", "petal length", "petal width"]


def test_bar_widths_are_the_importances_sorted(ax):
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    display = FeatureImportanceDisplay.from_estimator(tree, feature_names=NAMES, ax=ax)
    assert display.ax_ is ax and display.figure_ is ax.figure
    order = np.argsort(tree.feature_importances_, kind="stable")
    np.testing.assert_array_equal([bar.get_width() for bar in display.bars_], tree.feature_importances_[order])
    assert [t.get_text() for t in ax.get_yticklabels()] == [NAMES[j] for j in order]
    assert display.bars_.errorbar is None  # a single tree has no spread


def test_forest_error_bars_are_the_spread_over_trees():
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    display = FeatureImportanceDisplay.from_estimator(forest, max_features=2)
    top_two = np.argsort(forest.feature_importances_, kind="stable")[-2:]
    np.testing.assert_array_equal(display.order_, top_two)
    np.testing.assert_allclose([bar.get_width() for bar in display.bars_], forest.feature_importances_[top_two])
    spread = np.std([tree.feature_importances_ for tree in forest.estimators_], axis=0)[top_two]
    segments = display.bars_.errorbar.lines[2][0].get_segments()
    np.testing.assert_allclose([s[1, 0] - s[0, 0] for s in segments], 2 * spread)


def test_feature_importance_errors():
    with pytest.raises(NotFittedError):
        FeatureImportanceDisplay.from_estimator(DecisionTreeClassifier())
    with pytest.raises(TypeError, match="feature importances"):
        FeatureImportanceDisplay.from_estimator(LinearRegression().fit(X, y))
    with pytest.raises(ValueError, match="feature_names"):
        FeatureImportanceDisplay([0.5, 0.5], feature_names=["a"]).plot()


def test_pca_bars_are_the_explained_variance_ratio(ax):
    pca = PCA().fit(X)
    display = ExplainedVarianceDisplay.from_estimator(pca, ax=ax)
    assert display.ax_ is ax
    np.testing.assert_allclose([bar.get_height() for bar in display.bars_], pca.explained_variance_ratio_)
    np.testing.assert_allclose(display.line_.get_ydata(), np.cumsum(pca.explained_variance_ratio_))
    assert display.line_.get_ydata()[-1] == pytest.approx(1.0)


def test_kernel_pca_and_factor_analysis_shares():
    kpca = KernelPCA(n_components=3, kernel="rbf", gamma=0.5).fit(X)
    heights = [bar.get_height() for bar in ExplainedVarianceDisplay.from_estimator(kpca).bars_]
    np.testing.assert_allclose(heights, kpca.eigenvalues_ / kpca.eigenvalues_.sum())
    fa = FactorAnalysis(n_components=2).fit(X)
    display = ExplainedVarianceDisplay.from_estimator(fa)
    loadings = (fa.components_ ** 2).sum(axis=1)
    expected = loadings / (loadings.sum() + fa.noise_variance_.sum())
    np.testing.assert_allclose([bar.get_height() for bar in display.bars_], expected)
    # the model's total variance is the trace of its covariance WᵀW + Ψ
    total = np.trace(fa.components_.T @ fa.components_ + np.diag(fa.noise_variance_))
    assert loadings.sum() / total == pytest.approx(display.line_.get_ydata()[-1])


def test_explained_variance_errors():
    with pytest.raises(NotFittedError):
        ExplainedVarianceDisplay.from_estimator(PCA())
    with pytest.raises(TypeError, match="PCA, KernelPCA or FactorAnalysis"):
        ExplainedVarianceDisplay.from_estimator(KMeans(n_clusters=2, n_init=1).fit(X))


def test_projection_points_are_the_transform(ax):
    pca = PCA(n_components=3).fit(X)
    display = ProjectionDisplay.from_estimator(pca, X, y, components=(0, 2), ax=ax)
    assert display.ax_ is ax
    np.testing.assert_allclose(display.scatter_.get_offsets(), pca.transform(X)[:, [0, 2]])
    np.testing.assert_array_equal(display.scatter_.get_array(), y)  # colour code = class index
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["0", "1", "2"]
    assert ax.get_ylabel() == "component 3"


def test_projection_without_labels_on_a_new_figure():
    kpca = KernelPCA(n_components=2, kernel="rbf", gamma=0.5).fit(X)
    display = ProjectionDisplay.from_estimator(kpca, X)
    np.testing.assert_allclose(display.scatter_.get_offsets(), kpca.transform(X))
    assert display.classes_ is None and display.ax_.get_legend() is None


def test_projection_errors():
    with pytest.raises(NotFittedError):
        ProjectionDisplay.from_estimator(PCA(), X)
    with pytest.raises(TypeError, match="transformer"):
        ProjectionDisplay.from_estimator(DecisionTreeClassifier().fit(X, y), X)
    with pytest.raises(ValueError, match="not columns"):
        ProjectionDisplay.from_estimator(PCA(n_components=2).fit(X), X, components=(0, 2))
    with pytest.raises(ValueError, match="one entry per sample"):
        ProjectionDisplay(np.zeros((3, 2)), labels=[0, 1]).plot()


def test_shares_of_a_constant_kernel_pca_and_fractional_components():
    """KernelPCA of a constant X (eigenvalues all 0) drew NaN bars; components=(0.5, 1) raised an IndexError."""
    display = ExplainedVarianceDisplay.from_estimator(KernelPCA(2).fit(np.zeros((10, 3))))
    np.testing.assert_array_equal(display.ratios, [0.0, 0.0])
    X = load_iris().data
    with pytest.raises(ValueError, match="not columns of the transform"):
        ProjectionDisplay.from_estimator(PCA(2).fit(X), X, components=(0.5, 1))
