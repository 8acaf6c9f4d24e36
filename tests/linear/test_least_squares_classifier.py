"""LeastSquaresClassifier against scikit-learn's RidgeClassifier and a direct least-squares solve."""

import numpy as np
import pytest
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_iris,
    load_wine,
    make_circles,
)
from sklearn.linear_model import RidgeClassifier
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler

from lucidml.linear.least_squares_classifier import (
    LeastSquaresClassifier,
    _poly_features,
)
from lucidml.utils import linalg

LOADERS = {"iris": load_iris, "wine": load_wine, "breast_cancer": load_breast_cancer, "digits": load_digits}


def split(name):
    X, y = LOADERS[name](return_X_y=True)
    return train_test_split(X, y, random_state=0, stratify=y)


def ridge_scores_as_ours(ours):
    """RidgeClassifier codes classes ±1, so its scores are 2f − 1 for our 0/1 scores f (binary: f₁ − f₀)."""
    return ours if ours.ndim == 1 else 2 * ours - 1


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "digits"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_matches_ridge_classifier(name, fit_intercept):
    Xtr, Xte, ytr, _ = split(name)
    ours = LeastSquaresClassifier(alpha=1.0, fit_intercept=fit_intercept).fit(Xtr, ytr)
    ref = RidgeClassifier(alpha=1.0, fit_intercept=fit_intercept, solver="cholesky").fit(Xtr, ytr)
    np.testing.assert_array_equal(ours.predict(Xte), ref.predict(Xte))
    if fit_intercept:  # without a bias the ±1 and 0/1 fits differ by the fit of the constant
        np.testing.assert_allclose(
            ridge_scores_as_ours(ours.decision_function(Xte)), ref.decision_function(Xte), atol=1e-8
        )


@pytest.mark.parametrize("name", ["iris", "wine", "digits"])
def test_accuracy_within_one_point_of_ridge_classifier(name):
    # Measured: iris 0.816 / 0.816, wine 1.000 / 1.000, digits 0.940 / 0.940 (alpha=1).
    Xtr, Xte, ytr, yte = split(name)
    ours = LeastSquaresClassifier(alpha=1.0).fit(Xtr, ytr).score(Xte, yte)
    ref = RidgeClassifier(alpha=1.0).fit(Xtr, ytr).score(Xte, yte)
    assert abs(ours - ref) <= 0.01


def test_unpenalized_fit_is_the_least_squares_fit_of_the_one_hot_targets():
    X, y = load_iris(return_X_y=True)
    Y = np.eye(3)[y]
    Phi = np.column_stack([np.ones(len(y)), X])
    W = np.linalg.lstsq(Phi, Y, rcond=None)[0]
    clf = LeastSquaresClassifier().fit(X, y)
    np.testing.assert_allclose(clf.intercept_, W[0], atol=1e-10)
    np.testing.assert_allclose(clf.coef_, W[1:].T, atol=1e-10)
    np.testing.assert_allclose(clf.decision_function(X), Phi @ W, atol=1e-10)
    np.testing.assert_array_equal(clf.predict(X), (Phi @ W).argmax(axis=1))


def test_binary_score_is_the_half_threshold_of_the_indicator_fit():
    X, y = load_breast_cancer(return_X_y=True)
    Phi = np.column_stack([np.ones(len(y)), X])
    f1 = Phi @ np.linalg.lstsq(Phi, (y == 1).astype(float), rcond=None)[0]
    scores = LeastSquaresClassifier().fit(X, y).decision_function(X)
    assert scores.shape == (len(y),)
    np.testing.assert_allclose(scores, 2 * f1 - 1, atol=1e-7)  # f₀ + f₁ = 1, so f₁ − f₀ = 2f₁ − 1


def test_polynomial_and_standardized_features_match_a_sklearn_pipeline():
    Xtr, Xte, ytr, _ = split("wine")
    ours = LeastSquaresClassifier(alpha=3.0, degree=2, standardize=True).fit(Xtr, ytr)
    ref = make_pipeline(
        PolynomialFeatures(degree=2, include_bias=False), StandardScaler(), RidgeClassifier(alpha=3.0)
    ).fit(Xtr, ytr)
    np.testing.assert_array_equal(ours.predict(Xte), ref.predict(Xte))
    np.testing.assert_allclose(2 * ours.decision_function(Xte) - 1, ref.decision_function(Xte), atol=1e-8)


def test_standardizing_does_not_change_an_unpenalized_fit():
    Xtr, Xte, ytr, _ = split("iris")
    plain = LeastSquaresClassifier().fit(Xtr, ytr).decision_function(Xte)
    scaled = LeastSquaresClassifier(standardize=True).fit(Xtr, ytr).decision_function(Xte)
    np.testing.assert_allclose(scaled, plain, atol=1e-9)


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_poly_features_are_the_unique_monomials(degree):
    X = np.random.default_rng(0).normal(size=(6, 3))
    expected = PolynomialFeatures(degree=degree, include_bias=False).fit_transform(X)
    np.testing.assert_allclose(_poly_features(X, degree), expected)


def xor_data():
    rng = np.random.default_rng(0)
    corners = rng.choice([-1.0, 1.0], size=(400, 2))
    X = corners + 0.25 * rng.normal(size=(400, 2))
    y = (corners[:, 0] * corners[:, 1] > 0).astype(int)
    return X, y


def test_xor_needs_the_product_feature():
    X, y = xor_data()
    assert LeastSquaresClassifier().fit(X, y).score(X, y) < 0.7  # no line separates XOR
    assert LeastSquaresClassifier(degree=2).fit(X, y).score(X, y) > 0.99
    product_map = LeastSquaresClassifier(feature_map=lambda Z: np.column_stack([Z, Z[:, 0] * Z[:, 1]]))
    assert product_map.fit(X, y).score(X, y) > 0.99


def test_circles_are_separated_by_the_squared_radius_feature():
    # 002 §5.3.5: φ(x₁, x₂) = (x₁, x₂, x₁² + x₂²) makes two concentric rings linearly separable.
    X, y = make_circles(n_samples=400, factor=0.4, noise=0.05, random_state=0)
    assert LeastSquaresClassifier().fit(X, y).score(X, y) < 0.65
    radius_map = LeastSquaresClassifier(feature_map=lambda Z: np.column_stack([Z, (Z**2).sum(axis=1)]))
    assert radius_map.fit(X, y).score(X, y) == 1.0


def test_masking_of_a_middle_class_and_its_cure():
    # Three classes in a row on a line: the middle class's linear score is flat (1/3) while the
    # outer two are 1/3 ± βx, so the middle class never wins: it is masked (ESL §4.2).
    # Quadratic features restore it.
    offsets = np.concatenate([-np.linspace(0.1, 1.0, 10), np.linspace(0.1, 1.0, 10)])
    X = np.concatenate([c + offsets for c in (-4.0, 0.0, 4.0)]).reshape(-1, 1)
    y = np.repeat([0, 1, 2], 20)
    assert not np.any(LeastSquaresClassifier().fit(X, y).predict(X) == 1)
    assert LeastSquaresClassifier(degree=2).fit(X, y).score(X, y) == 1.0


@pytest.mark.parametrize("alpha", [0.0, 2.0])
def test_integer_weights_equal_repeated_samples(alpha):
    X, y = load_iris(return_X_y=True)
    w = np.random.default_rng(1).integers(0, 3, size=len(y))
    weighted = LeastSquaresClassifier(alpha=alpha).fit(X, y, sample_weight=w)
    repeated = LeastSquaresClassifier(alpha=alpha).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), atol=1e-9)


def test_any_labels_work():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = LeastSquaresClassifier().fit(X, names)
    np.testing.assert_array_equal(clf.classes_, names[[0, 50, 100]])
    by_index = LeastSquaresClassifier().fit(X, y).predict(X)
    np.testing.assert_array_equal(clf.predict(X), np.array(["setosa", "versicolor", "virginica"])[by_index])


def test_bad_input_is_rejected():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="one class"):
        LeastSquaresClassifier().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="Unknown label type"):
        LeastSquaresClassifier().fit(X, X[:, 0])
    with pytest.raises(ValueError, match="degree"):
        LeastSquaresClassifier(degree=0).fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        LeastSquaresClassifier(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="feature_map must return one row per sample"):
        LeastSquaresClassifier(feature_map=lambda Z: Z[:10]).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        LeastSquaresClassifier().fit(np.where(X > 7, np.nan, X), y)
    clf = LeastSquaresClassifier().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :2])


@pytest.mark.parametrize("scipys_pool", [False, True])
@pytest.mark.parametrize("loader", [load_iris, load_breast_cancer])
def test_decision_function_is_the_linear_score_in_every_layout(loader, scipys_pool, monkeypatch):
    """The scores are Φ(X) W'ᵀ + b whichever BLAS pool computes them (NumPy's, or SciPy's for a
    large solve on threaded BLAS: utils.linalg.blas_product), for C, Fortran and float32 X."""
    monkeypatch.setattr(linalg, "_in_scipys_pool", lambda order: scipys_pool)
    X, y = loader(return_X_y=True)
    model = LeastSquaresClassifier(standardize=True).fit(X, y)
    coef, intercept = model._score_coefficients()
    expected = X @ coef.T + intercept
    for X_layout, rtol in ((X, 1e-12), (np.asfortranarray(X), 1e-12), (X.astype(np.float32), 1e-5)):
        scores = model.decision_function(X_layout)
        assert scores.dtype == np.float64 and scores.shape == expected.shape
        np.testing.assert_allclose(scores, expected, rtol=rtol, atol=rtol * np.abs(expected).max())


@pytest.mark.parametrize("params", [{}, {"degree": 2, "standardize": True, "alpha": 1.0}])
def test_float32_fit_is_solved_in_float64_and_answers_in_float32(params):
    """Breast cancer's raw features (areas near 4,000 beside ratios near 0.01) make normal equations
    that float32 cannot solve: a float32 solve changed 17 of the 569 predictions. The fit solves in
    float64 and hands back float32 coefficients and scores, as close to the float64 fit's as their
    rounding allows."""
    X, y = load_breast_cancer(return_X_y=True)
    double = LeastSquaresClassifier(**params).fit(X, y)
    single = LeastSquaresClassifier(**params).fit(X.astype(np.float32), y)
    for name in ("coef_", "intercept_") + (("feature_mean_", "feature_scale_") if params else ()):
        assert getattr(single, name).dtype == np.float32, name
        np.testing.assert_allclose(getattr(single, name), getattr(double, name), rtol=1e-4, atol=1e-6, err_msg=name)
    scores = single.decision_function(X.astype(np.float32))
    assert scores.dtype == np.float32
    np.testing.assert_allclose(scores, double.decision_function(X), atol=1e-4 * np.abs(scores).max())
    np.testing.assert_array_equal(single.predict(X.astype(np.float32)), double.predict(X))
