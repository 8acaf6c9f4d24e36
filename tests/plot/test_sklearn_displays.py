"""scikit-learn's own displays work on fitted lucidml estimators, so lucidml.plot does not redo them;
and importing lucidml.plot does not import matplotlib."""

import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.inspection import DecisionBoundaryDisplay
from sklearn.metrics import (
    ConfusionMatrixDisplay,
    RocCurveDisplay,
    auc,
    confusion_matrix,
    roc_curve,
)
from sklearn.model_selection import LearningCurveDisplay
from sklearn.preprocessing import StandardScaler

from lucidml.linear import LogisticRegression
from lucidml.naive_bayes import GaussianNB
from lucidml.neighbors import KNeighborsClassifier
from lucidml.tree import DecisionTreeClassifier

X_iris, y_iris = load_iris(return_X_y=True)


def test_decision_boundary_of_a_lucidml_classifier(ax):
    X = X_iris[:, :2]
    knn = KNeighborsClassifier(n_neighbors=5).fit(X, y_iris)
    display = DecisionBoundaryDisplay.from_estimator(knn, X, response_method="predict", grid_resolution=30, ax=ax)
    grid = np.column_stack([display.xx0.ravel(), display.xx1.ravel()])
    np.testing.assert_array_equal(display.response.ravel(), knn.predict(grid))
    assert display.ax_ is ax


def test_decision_boundary_needs_two_features_or_a_chosen_pair(ax):
    """More than two features and no pair chosen: scikit-learn's display stops with a ValueError that
    says so, before drawing; fitting on a chosen pair of columns is the way to draw it."""
    knn = KNeighborsClassifier(n_neighbors=5).fit(X_iris, y_iris)
    with pytest.raises(ValueError, match="n_features must be equal to 2"):
        DecisionBoundaryDisplay.from_estimator(knn, X_iris, response_method="predict", ax=ax)
    assert not ax.collections  # nothing was drawn
    pair = X_iris[:, [2, 3]]
    display = DecisionBoundaryDisplay.from_estimator(KNeighborsClassifier().fit(pair, y_iris), pair,
                                                     response_method="predict", grid_resolution=20, ax=ax)
    assert display.response.shape == (20, 20)


def test_learning_curve_of_a_lucidml_classifier():
    display = LearningCurveDisplay.from_estimator(GaussianNB(), X_iris, y_iris, train_sizes=[0.3, 0.6, 1.0], cv=3)
    assert display.train_scores.shape == (3, 3) and display.test_scores.shape == (3, 3)
    assert np.all(display.test_scores.mean(axis=1)[-1] > 0.85)  # naive Bayes on iris: about 0.95


def test_confusion_matrix_of_a_lucidml_classifier():
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X_iris, y_iris)
    display = ConfusionMatrixDisplay.from_estimator(tree, X_iris, y_iris)
    np.testing.assert_array_equal(display.confusion_matrix, confusion_matrix(y_iris, tree.predict(X_iris)))


def test_roc_curve_of_a_lucidml_classifier():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    model = LogisticRegression().fit(X, y)
    display = RocCurveDisplay.from_estimator(model, X, y)
    fpr, tpr, _ = roc_curve(y, model.predict_proba(X)[:, 1])
    assert display.roc_auc == auc(fpr, tpr) and display.roc_auc > 0.98
    np.testing.assert_allclose(display.line_.get_xdata(), fpr)


def test_importing_lucidml_plot_does_not_import_matplotlib():
    code = "import sys, lucidml.plot; print('matplotlib' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
