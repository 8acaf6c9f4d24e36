"""RegularizationPathDisplay draws enet_path (or refits); SOMDisplay draws the U-matrix and the weights."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from lucidml.cluster import KMeans, SelfOrganizingMap
from lucidml.linear import ElasticNet, Lasso, Ridge, enet_path, lasso_path
from lucidml.plot import RegularizationPathDisplay, SOMDisplay, u_matrix

rng = np.random.default_rng(3)
X = rng.normal(size=(80, 4))
y = X @ np.array([3.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=80)


@pytest.mark.filterwarnings("error::sklearn.exceptions.ConvergenceWarning")
def test_lasso_lines_are_lasso_path(ax):
    display = RegularizationPathDisplay.from_estimator(Lasso(), X, y, n_alphas=12, ax=ax)
    alphas, coefs, _ = lasso_path(X, y, n_alphas=12)
    assert display.ax_ is ax and ax.get_xscale() == "log"
    assert len(display.lines_) == 4
    for line, coef in zip(display.lines_, coefs, strict=True):
        np.testing.assert_allclose(line.get_xdata(), alphas)
        np.testing.assert_allclose(line.get_ydata(), coef)
    assert np.all(coefs[:, 0] == 0)  # the default grid starts where every coefficient is zero


def test_elastic_net_uses_its_l1_ratio_and_ridge_is_refitted():
    display = RegularizationPathDisplay.from_estimator(ElasticNet(l1_ratio=0.3), X, y, n_alphas=6)
    _, coefs, _ = enet_path(X, y, l1_ratio=0.3, n_alphas=6)
    np.testing.assert_allclose([line.get_ydata() for line in display.lines_], coefs)
    alphas = [0.1, 10.0, 1000.0]
    ridge = Ridge()
    display = RegularizationPathDisplay.from_estimator(ridge, X, y, alphas=alphas, feature_names=list("abcd"))
    expected = np.array([Ridge(alpha=a).fit(X, y).coef_ for a in alphas]).T
    np.testing.assert_allclose([line.get_ydata() for line in display.lines_], expected)
    assert [t.get_text() for t in display.ax_.get_legend().get_texts()] == list("abcd")
    assert not hasattr(ridge, "coef_"), "the given estimator is left unfitted"


def test_path_errors():
    with pytest.raises(TypeError, match="alpha parameter"):
        RegularizationPathDisplay.from_estimator(KMeans(), X, y)
    with pytest.raises(ValueError, match="shape"):
        RegularizationPathDisplay([1.0, 0.1], np.zeros((3, 3))).plot()
    with pytest.raises(ValueError, match="positive"):
        RegularizationPathDisplay([1.0, 0.0], np.zeros((3, 2))).plot()


def _brute_u_matrix(weights, rows, cols):
    grid = weights.reshape(rows, cols, -1)
    out = np.zeros((rows, cols))
    for r in range(rows):
        for c in range(cols):
            near = [(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                    if 0 <= r + dr < rows and 0 <= c + dc < cols]
            out[r, c] = np.mean([np.linalg.norm(grid[r, c] - grid[p]) for p in near])
    return out


def test_som_images_are_the_u_matrix_and_the_weights():
    som = SelfOrganizingMap(shape=(3, 4), n_iter=300, random_state=0).fit(X[:, :3])
    display = SOMDisplay.from_estimator(som, feature_names=["a", "b", "c"])
    np.testing.assert_allclose(display.u_matrix_, _brute_u_matrix(som.weights_, 3, 4))
    np.testing.assert_allclose(display.images_[0].get_array(), display.u_matrix_)
    for j, image in enumerate(display.images_[1:]):
        np.testing.assert_allclose(image.get_array(), som.weights_[:, j].reshape(3, 4))
    assert [a.get_title() for a in display.axes_] == ["U-matrix", "a", "b", "c"]
    assert display.figure_ is display.ax_.figure


def test_som_on_given_axes():
    import matplotlib.pyplot as plt

    som = SelfOrganizingMap(shape=(5,), n_iter=200, random_state=0).fit(X[:, :2])
    _, ax = plt.subplots()
    display = SOMDisplay.from_estimator(som, ax=ax)  # one Axes: the U-matrix only
    assert display.ax_ is ax and len(display.images_) == 1 and display.features_ == []
    np.testing.assert_allclose(display.images_[0].get_array(), _brute_u_matrix(som.weights_, 1, 5))
    _, axes = plt.subplots(1, 2)
    display = SOMDisplay.from_estimator(som, ax=axes, features=[1])
    np.testing.assert_allclose(display.images_[1].get_array(), som.weights_[:, 1][None, :])


def test_som_errors():
    with pytest.raises(NotFittedError):
        SOMDisplay.from_estimator(SelfOrganizingMap())
    with pytest.raises(TypeError, match="self-organizing map"):
        SOMDisplay.from_estimator(KMeans(n_clusters=2, n_init=1).fit(X))
    som = SelfOrganizingMap(shape=(2, 2), n_iter=50, random_state=0).fit(X[:, :2])
    with pytest.raises(ValueError, match="features must be indices"):
        SOMDisplay.from_estimator(som, features=[2])
    with pytest.raises(ValueError, match="disagree"):
        u_matrix(np.zeros((3, 2)), np.zeros((4, 2)))
