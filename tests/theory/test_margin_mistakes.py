"""Hard margin against scikit-learn's SVC, and the perceptron's mistakes against Novikoff's bound."""

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_blobs
from sklearn.svm import SVC

from lucidml.linear.perceptron import Perceptron
from lucidml.theory import max_margin, perceptron_mistake_bound


def _separable(seed, n=60, d=3, gap=0.6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    score = X @ w / np.linalg.norm(w) + 0.3
    keep = np.abs(score) > gap
    return X[keep], (score[keep] > 0).astype(int)


def _svc_margin(X, y):
    svc = SVC(kernel="linear", C=1e10, tol=1e-8).fit(X, y)
    return 1.0 / np.linalg.norm(svc.coef_)


@pytest.mark.parametrize("seed", range(4))
def test_free_intercept_margin_equals_svc(seed):
    X, y = _separable(seed)
    assert max_margin(X, y, intercept="free").margin == pytest.approx(_svc_margin(X, y), rel=1e-5)


def test_iris_setosa_margin_equals_svc():
    X, y = load_iris(return_X_y=True)
    y = (y == 0).astype(int)
    assert max_margin(X, y, intercept="free").margin == pytest.approx(_svc_margin(X, y), rel=1e-5)


@pytest.mark.parametrize("intercept", ["none", "augmented"])
@pytest.mark.parametrize("seed", range(3))
def test_origin_margins_equal_svc_on_mirrored_data(seed, intercept):
    # A hyperplane through the origin separates (x, y) iff it separates (−x, −y); on the mirrored
    # set the SVM's optimal intercept is 0 by symmetry, so SVC solves the origin problem.
    X, y = _separable(seed)
    features = np.hstack([X, np.ones((len(X), 1))]) if intercept == "augmented" else X
    mirrored = np.vstack([features, -features])
    labels = np.concatenate([y, 1 - y])
    expected = _svc_margin(mirrored, labels)
    if intercept == "none" and not _origin_separable(X, y):
        pytest.skip("this draw is not separable through the origin")
    assert max_margin(X, y, intercept=intercept).margin == pytest.approx(expected, rel=1e-5)


def _origin_separable(X, y):
    try:
        max_margin(X, y, intercept="none")
    except ValueError:
        return False
    return True


def test_margin_is_attained_by_the_returned_hyperplane():
    X, y = _separable(7)
    result = max_margin(X, y, intercept="free")
    signs = np.where(y == 1, 1.0, -1.0)
    distances = signs * (X @ result.coef + result.intercept) / np.linalg.norm(result.coef)
    assert distances.min() == pytest.approx(result.margin)
    assert (distances > 0).all()


def test_not_separable_is_a_clear_error():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])  # XOR
    with pytest.raises(ValueError, match="not linearly separable"):
        max_margin(X, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="not linearly separable"):
        perceptron_mistake_bound(X, [0, 0, 1, 1])


def test_input_checks():
    X = np.array([[0.0], [1.0], [2.0]])
    with pytest.raises(ValueError, match="exactly two classes"):
        max_margin(X, [0, 1, 2])
    with pytest.raises(ValueError, match="intercept"):
        max_margin(X, [0, 1, 1], intercept="bias")
    with pytest.raises(ValueError, match="NaN|infinity"):
        max_margin(np.array([[0.0], [np.nan]]), [0, 1])
    with pytest.raises(ValueError, match="label|target"):
        max_margin(X, [0.1, 0.7, 0.3])


def test_input_is_not_mutated():
    X, y = _separable(1)
    X_copy, y_copy = X.copy(), y.copy()
    perceptron_mistake_bound(X, y)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(y, y_copy)


def test_bound_is_radius_over_margin_squared():
    X, y = _separable(2)
    result = perceptron_mistake_bound(X, y)
    assert result.radius == pytest.approx(np.sqrt((np.sum(X**2, axis=1) + 1).max()))
    assert result.bound == pytest.approx((result.radius / result.margin) ** 2)
    # measured on (x, 1): the augmented margin, not the affine one
    assert result.margin == pytest.approx(max_margin(X, y, intercept="augmented").margin)
    assert result.margin <= max_margin(X, y, intercept="free").margin + 1e-9


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_perceptron_makes_at_most_bound_mistakes(seed, fit_intercept):
    if fit_intercept:
        X, y = make_blobs(n_samples=80, centers=[[-2.0, 1.0], [2.0, 3.0]], cluster_std=0.7, random_state=seed)
    else:
        X, y = _separable(seed, n=120, gap=0.3)
        if not _origin_separable(X, y):
            X = X - X.mean(axis=0)
            y = (X @ np.ones(X.shape[1]) > 0).astype(int)
    bound = perceptron_mistake_bound(X, y, fit_intercept=fit_intercept).bound
    for eta, shuffle in [(1.0, False), (0.01, True), (5.0, True)]:
        clf = Perceptron(eta0=eta, max_iter=10_000, shuffle=shuffle, fit_intercept=fit_intercept, random_state=seed)
        clf.fit(X, y)
        assert clf.mistake_curve_[-1] == 0  # converged
        assert clf.mistake_curve_.sum() <= bound


def test_bound_is_nearly_tight_on_a_hard_example():
    # Two points at angle close to π: many updates are needed, and the bound grows as 1/γ².
    X = np.array([[1.0, 0.05], [-1.0, 0.05]])
    y = np.array([1, 0])
    result = perceptron_mistake_bound(X, y, fit_intercept=False)
    assert result.margin == pytest.approx(1.0, rel=1e-6)  # w = (1, 0)
    clf = Perceptron(eta0=1.0, max_iter=1000, fit_intercept=False).fit(X, y)
    assert clf.mistake_curve_.sum() <= result.bound
