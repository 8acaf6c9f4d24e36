"""LADRegression against scikit-learn's median regression, and the properties of the L1 fit."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression, QuantileRegressor

from lucidml.datasets import load
from lucidml.linear.lad import LADRegression


def objective(model, X, y, sample_weight=None):
    """J = ½ Σ sᵢ |yᵢ − w·xᵢ − b|."""
    s = np.ones(len(y)) if sample_weight is None else sample_weight
    return 0.5 * float(s @ np.abs(y - model.predict(X)))


@pytest.fixture(scope="module")
def diabetes():
    return load("diabetes")


@pytest.fixture(scope="module")
def laplace_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 3.0]) + 2.0 + rng.laplace(size=400)
    return X, y


@pytest.fixture(scope="module")
def oracles(diabetes, laplace_data):
    """QuantileRegressor(quantile=0.5, alpha=0) minimizes (1/n) Σ ½|r|: the same LAD problem."""
    fits = {}
    for name, (X, y) in {"diabetes": diabetes, "laplace": laplace_data}.items():
        fits[name] = QuantileRegressor(quantile=0.5, alpha=0.0, solver="highs").fit(X, y)
    return fits


# Relative excess of J over scikit-learn's optimum allowed per solver and data set. Measured:
# lp ~1e-15; irls 3.6e-5 (diabetes), 1.4e-5 (laplace); subgradient 3.5e-3 (diabetes, badly
# conditioned: correlated serum features), 7e-6 (laplace).
TOLERANCE = {
    ("lp", "diabetes"): 1e-9,
    ("lp", "laplace"): 1e-9,
    ("irls", "diabetes"): 2e-4,
    ("irls", "laplace"): 2e-4,
    ("subgradient", "diabetes"): 1e-2,
    ("subgradient", "laplace"): 1e-4,
}


@pytest.mark.parametrize("solver", ["lp", "irls", "subgradient"])
@pytest.mark.parametrize("data", ["diabetes", "laplace"])
def test_objective_matches_quantile_regressor(solver, data, diabetes, laplace_data, oracles):
    X, y = {"diabetes": diabetes, "laplace": laplace_data}[data]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the subgradient method is slow by nature
        ours = LADRegression(solver=solver).fit(X, y)
    ref = objective(oracles[data], X, y)
    excess = (objective(ours, X, y) - ref) / ref
    assert excess >= -1e-9  # nothing beats the exact LP optimum
    assert excess <= TOLERANCE[(solver, data)]


def test_lp_coefficients_match_quantile_regressor(laplace_data, oracles):
    # With continuous noise the LAD minimizer is unique, so the coefficients must agree too.
    X, y = laplace_data
    ours = LADRegression(solver="lp").fit(X, y)
    np.testing.assert_allclose(ours.coef_, oracles["laplace"].coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.intercept_, oracles["laplace"].intercept_, rtol=1e-7)


def test_irls_coefficients_near_the_exact_solution(laplace_data, oracles):
    X, y = laplace_data
    ours = LADRegression(solver="irls", tol=1e-10).fit(X, y)
    np.testing.assert_allclose(ours.coef_, oracles["laplace"].coef_, rtol=0, atol=1e-3)


def test_without_intercept_matches_quantile_regressor(diabetes):
    X, y = diabetes
    ours = LADRegression(solver="lp", fit_intercept=False).fit(X, y)
    ref = QuantileRegressor(quantile=0.5, alpha=0.0, fit_intercept=False).fit(X, y)
    assert ours.intercept_ == 0.0
    np.testing.assert_allclose(objective(ours, X, y), objective(ref, X, y), rtol=1e-9)


def test_weighted_objective_matches_quantile_regressor(laplace_data):
    X, y = laplace_data
    w = np.random.default_rng(1).uniform(0.2, 3.0, size=len(y))
    ours = LADRegression(solver="lp").fit(X, y, sample_weight=w)
    ref = QuantileRegressor(quantile=0.5, alpha=0.0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(objective(ours, X, y, w), objective(ref, X, y, w), rtol=1e-9)


@pytest.mark.parametrize("solver", ["lp", "irls"])
def test_integer_weights_equal_repeated_samples(solver, laplace_data):
    X, y = laplace_data
    w = np.random.default_rng(2).integers(0, 4, size=len(y))
    weighted = LADRegression(solver=solver, tol=1e-10).fit(X, y, sample_weight=w)
    repeated = LADRegression(solver=solver, tol=1e-10).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, atol=1e-4)
    np.testing.assert_allclose(
        objective(weighted, X, y, w), objective(repeated, X, y, w), rtol=1e-6
    )


def test_outliers_in_y_barely_move_lad_but_move_least_squares():
    rng = np.random.default_rng(3)
    X = rng.uniform(-2, 2, size=(200, 2))
    truth = np.array([1.5, -1.0])
    y = X @ truth + 0.5 + 0.1 * rng.laplace(size=200)
    y[:20] += rng.uniform(50, 100, size=20)  # 10 % gross errors, all upwards
    lad = LADRegression(solver="lp").fit(X, y)
    ols = LinearRegression().fit(X, y)
    assert np.max(np.abs(lad.coef_ - truth)) < 0.1
    assert abs(lad.intercept_ - 0.5) < 0.2
    assert abs(ols.intercept_ - 0.5) > 5  # least squares is dragged by the outliers


def test_exact_line_with_one_wild_value_is_recovered():
    X = np.arange(7.0).reshape(-1, 1)
    y = 1.0 + 2.0 * X[:, 0]
    y[3] = -50.0
    for solver in ["lp", "irls"]:
        reg = LADRegression(solver=solver, tol=1e-12).fit(X, y)
        np.testing.assert_allclose([reg.coef_[0], reg.intercept_], [2.0, 1.0], atol=1e-5)


def test_intercept_only_is_the_median():
    y = np.array([3.0, -1.0, 10.0, 2.0, 100.0])
    X = np.zeros((5, 1))  # a feature with no information: the fit is the constant median
    for solver in ["lp", "irls", "subgradient"]:
        reg = LADRegression(solver=solver, tol=0, max_iter=2000).fit(X, y)
        assert reg.predict([[0.0]])[0] == pytest.approx(3.0, abs=1e-3)


def test_irls_never_increases_the_objective(diabetes):
    X, y = diabetes
    reg = LADRegression(solver="irls").fit(X, y)
    assert reg.n_iter_ == len(reg.loss_curve_) - 1 > 1
    assert np.all(np.diff(reg.loss_curve_) <= 1e-9 * reg.loss_curve_[0])
    assert objective(reg, X, y) == pytest.approx(reg.loss_curve_.min(), rel=1e-12)


def test_subgradient_keeps_the_best_iterate(laplace_data):
    X, y = laplace_data
    reg = LADRegression(solver="subgradient", max_iter=300, tol=0).fit(X, y)
    assert reg.n_iter_ == len(reg.loss_curve_) == 300
    assert np.any(np.diff(reg.loss_curve_) > 0)  # subgradient steps are not descent steps ...
    assert objective(reg, X, y) == pytest.approx(reg.loss_curve_.min(), rel=1e-12)  # ... so the best is kept


def test_lp_reports_its_optimum(laplace_data):
    X, y = laplace_data
    reg = LADRegression(solver="lp").fit(X, y)
    assert reg.n_iter_ >= 1
    assert reg.loss_curve_.shape == (1,)
    assert reg.loss_curve_[0] == pytest.approx(objective(reg, X, y), rel=1e-12)


@pytest.mark.parametrize("solver", ["irls", "subgradient"])
def test_max_iter_reached_warns(solver, diabetes):
    X, y = diabetes
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        reg = LADRegression(solver=solver, max_iter=3, tol=1e-12).fit(X, y)
    assert reg.n_iter_ == 3


def test_fit_is_translation_equivariant_in_y(laplace_data):
    X, y = laplace_data
    a = LADRegression(solver="lp").fit(X, y)
    b = LADRegression(solver="lp").fit(X, y + 1000.0)
    np.testing.assert_allclose(b.coef_, a.coef_, atol=1e-8)
    assert b.intercept_ == pytest.approx(a.intercept_ + 1000.0, rel=1e-10)


@pytest.mark.parametrize("scale", [1e-12, 1e8, 1e100])
def test_lp_fit_is_scale_equivariant_in_y(scale):
    """LAD's coefficients scale with y. HiGHS failed ("could not solve") on diabetes' y times 1e8 (costs
    near 1e10); the LP reads y in power-of-2 units and scales θ back."""
    X, y = load("diabetes")
    a = LADRegression(solver="lp").fit(X, y)
    b = LADRegression(solver="lp").fit(X, y * scale)
    np.testing.assert_allclose(b.coef_ / scale, a.coef_, rtol=1e-9, atol=1e-9 * np.abs(a.coef_).max())
    assert b.intercept_ / scale == pytest.approx(a.intercept_, rel=1e-9)


@pytest.mark.parametrize("solver", ["lp", "irls"])
def test_a_feature_in_other_units_gets_the_same_fit(solver):
    """Raw breast cancer's 'mean area' on its other features, one column ×1e-8 or ×1e8: the LP gave
    that feature the coefficient 0 (HiGHS's feasibility tolerance, unscaled rows; Σ|r| 6582.79 against
    6570.90) and IRLS's least-squares steps truncated it (coefficient 33.8 against 377)."""
    X, _ = load("breast_cancer")
    y, X = X[:, 3], np.delete(X, 3, axis=1)
    reference = LADRegression(solver=solver).fit(X, y)
    for column, factor in ((8, 1e-8), (22, 1e8)):
        scaled = X.copy()
        scaled[:, column] *= factor
        model = LADRegression(solver=solver).fit(scaled, y)
        np.testing.assert_allclose(model.coef_[column] * factor, reference.coef_[column], rtol=1e-5)
        np.testing.assert_allclose(model.predict(scaled), reference.predict(X), rtol=1e-7, atol=1e-5)


def test_bad_input_is_rejected(laplace_data):
    X, y = laplace_data
    with pytest.raises(ValueError, match="solver"):
        LADRegression(solver="simplex").fit(X, y)
    with pytest.raises(ValueError, match="c1"):
        LADRegression(c1=0.0).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        LADRegression().fit(np.where(X > 2, np.nan, X), y)
    with pytest.raises(ValueError, match="non-negative"):
        LADRegression().fit(X, y, sample_weight=-np.ones(len(y)))
    reg = LADRegression(solver="lp").fit(X, y)
    with pytest.raises(ValueError, match="features"):
        reg.predict(X[:, :2])


def test_coefficients_beyond_float64_are_refused_by_name():
    """Subnormal features (1e−310) with targets near 100 need coefficients near 1e312: not a
    float64. A ValueError naming the features' magnitudes, not infinite coefficients that predict NaN."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0.1, 1.0, size=(60, 3))
    y = X @ [50.0, 80.0, 20.0] + rng.normal(size=60)
    with pytest.raises(ValueError, match="overflowed.*e-311"):
        LADRegression(solver="irls").fit(X * 1e-310, y)


@pytest.mark.parametrize("solver", ["irls", "lp"])
def test_weights_near_the_float64_limit_give_the_unweighted_fit(solver):
    """IRLS's weights sᵢ / |rᵢ| overflowed for sᵢ = 1e300: every step NaN, RuntimeWarnings, and the
    least-squares start returned with a ConvergenceWarning."""
    rng = np.random.RandomState(0)
    X = rng.randn(50, 2)
    y = (X @ [1, 2] + rng.laplace(size=50)) * 1e-3
    plain = LADRegression(solver=solver).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        heavy = LADRegression(solver=solver).fit(X, y, sample_weight=np.full(50, 1e300))
    np.testing.assert_allclose(heavy.coef_, plain.coef_, rtol=1e-6)
