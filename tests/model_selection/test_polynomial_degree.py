"""select_polynomial_degree: the Occam choice on a noisy cubic, the CV curve against scikit-learn, bad input."""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler

from lucidml.model_selection import select_polynomial_degree


def _cubic(n=100, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, n)
    return x, x ** 3 - 2 * x + rng.normal(scale=0.5, size=n)


@pytest.mark.parametrize("seed", range(6))
def test_occam_picks_three_for_a_noisy_cubic(seed):
    x, y = _cubic(seed=seed)
    result = select_polynomial_degree(x, y, range(0, 9), cv=10, random_state=seed)
    assert result.degree == 3
    assert result.best_degree >= 3
    assert result.cv_errors[3] < 0.2 * result.cv_errors[:3].min()  # the cubic term is needed


def test_the_rules_follow_their_definitions():
    x, y = _cubic(seed=0)
    occam = select_polynomial_degree(x, y, [6, 0, 1, 2, 3, 4, 5], cv=10, random_state=0)
    best = select_polynomial_degree(x, y, [6, 0, 1, 2, 3, 4, 5], cv=10, random_state=0, rule="best")
    np.testing.assert_array_equal(occam.cv_errors, best.cv_errors)
    assert best.degree == best.best_degree == occam.degrees[np.argmin(occam.cv_errors)]
    i = int(np.argmin(occam.cv_errors))
    within = occam.degrees[occam.cv_errors <= occam.cv_errors[i] + occam.cv_std_errors[i]]
    assert occam.degree == within.min()
    np.testing.assert_allclose(occam.cv_std_errors, occam.fold_errors.std(axis=1, ddof=1) / np.sqrt(10))
    assert occam.fold_errors.shape == (7, 10)


def test_the_curve_matches_scikit_learn_cross_validation():
    x, y = _cubic(n=80, seed=3)
    X = np.column_stack([x, np.random.default_rng(0).uniform(-1, 1, 80)])  # two features: monomials of total degree n
    folds = KFold(5, shuffle=True, random_state=1)
    result = select_polynomial_degree(X, y, [1, 2, 3, 4], cv=folds, estimator=SkLinearRegression())
    for degree, error in zip(result.degrees, result.cv_errors):
        model = make_pipeline(StandardScaler(), PolynomialFeatures(degree, include_bias=False), SkLinearRegression())
        expected = -cross_val_score(model, X, y, cv=folds, scoring="neg_mean_squared_error").mean()
        assert error == pytest.approx(expected, rel=1e-8)
    lucid = select_polynomial_degree(X, y, [1, 2, 3, 4], cv=folds)  # lucidml's least squares: the same numbers
    np.testing.assert_allclose(lucid.cv_errors, result.cv_errors, rtol=1e-6)


def test_degree_zero_is_the_mean_of_the_training_folds():
    x, y = _cubic(n=40, seed=1)
    folds = KFold(4, shuffle=True, random_state=0)
    result = select_polynomial_degree(x, y, [0], cv=folds)
    expected = [np.mean((y[test] - y[train].mean()) ** 2) for train, test in folds.split(x)]
    np.testing.assert_allclose(result.fold_errors[0], expected)


def test_the_chosen_model_is_fitted_and_the_run_is_reproducible():
    x, y = _cubic(seed=2)
    first = select_polynomial_degree(x, y, range(1, 6), cv=5, random_state=7, estimator=Ridge(alpha=1e-6))
    again = select_polynomial_degree(x, y, range(1, 6), cv=5, random_state=7, estimator=Ridge(alpha=1e-6))
    np.testing.assert_array_equal(first.cv_errors, again.cv_errors)
    assert first.model.named_steps["polynomialfeatures"].degree == first.degree
    grid = np.linspace(-1.5, 1.5, 7)
    np.testing.assert_allclose(first.model.predict(grid[:, None]), grid ** 3 - 2 * grid, atol=0.3)


def test_inputs_are_not_modified():
    x, y = _cubic(n=50)
    x_copy, y_copy = x.copy(), y.copy()
    estimator = SkLinearRegression()
    select_polynomial_degree(x, y, [1, 3], cv=3, estimator=estimator, random_state=0)
    np.testing.assert_array_equal(x, x_copy)
    np.testing.assert_array_equal(y, y_copy)
    assert not hasattr(estimator, "coef_")


@pytest.mark.parametrize(("degrees", "kwargs", "message"), [
    ([], {}, "degrees is empty"),
    ([1, -1], {}, "integer ≥ 0"),
    ([1, 2.5], {}, "integer ≥ 0"),
    ([1, 2, 1], {}, "repeats"),
    ([1, 2], {"rule": "aic"}, "rule must be"),
    ([1, 2], {"cv": 1}, "n_splits"),
])
def test_bad_arguments_are_named(degrees, kwargs, message):
    x, y = _cubic(n=30)
    with pytest.raises(ValueError, match=message):
        select_polynomial_degree(x, y, degrees, **kwargs)


def test_bad_data_is_named():
    x, y = _cubic(n=30)
    with pytest.raises(ValueError, match="NaN"):
        select_polynomial_degree(x, np.where(np.arange(30) == 4, np.nan, y), [1, 2])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        select_polynomial_degree(x[:20], y, [1, 2])
