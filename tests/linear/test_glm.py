"""GLMRegressor and PoissonRegressor: oracles against scikit-learn and SciPy, properties, bad input."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn import linear_model as sk
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import d2_tweedie_score
from sklearn.preprocessing import StandardScaler

from lucidml.linear._families import FAMILIES, LINKS, get_family_and_link
from lucidml.linear.glm import GLMRegressor, PoissonRegressor


def _params(model):
    return np.append(model.coef_, model.intercept_)


def _rel(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module")
def counts():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    y = rng.poisson(np.exp(X @ np.array([0.3, -0.2, 0.1, 0.0, 0.25]) + 0.5)).astype(float)
    return X, y


@pytest.fixture(scope="module")
def diabetes_counts(diabetes):
    X, y = diabetes
    return X, np.round(y / 10)  # disease progression in tens: a count-like target


# ------------------------------------------------------------------------------------ oracles
@pytest.mark.parametrize("data", ["counts", "diabetes_counts"])
@pytest.mark.parametrize("alpha", [1.0, 0.01, 0.0])
def test_poisson_matches_sklearn(request, data, alpha):
    X, y = request.getfixturevalue(data)
    ref = sk.PoissonRegressor(alpha=alpha, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(X, y)
    newton = PoissonRegressor(alpha=alpha, tol=1e-10).fit(X, y)
    lbfgs = PoissonRegressor(alpha=alpha, solver="lbfgs", tol=1e-10, max_iter=1000).fit(X, y)
    assert _rel(_params(newton), _params(ref)) < 1e-8  # measured ≤ 1e-9
    assert _rel(_params(lbfgs), _params(ref)) < 1e-4  # measured ≤ 5e-6
    assert newton.n_iter_ <= 8
    assert newton.score(X, y) == pytest.approx(ref.score(X, y), abs=1e-10)


def test_poisson_defaults_match_sklearn_defaults(counts):
    X, y = counts
    ours, ref = PoissonRegressor().fit(X, y), sk.PoissonRegressor().fit(X, y)
    assert _rel(_params(ours), _params(ref)) < 1e-3  # both stop at tol=1e-4; measured 7e-5


@pytest.mark.parametrize("alpha", [1.0, 0.01, 0.0])
def test_gamma_log_matches_sklearn_gamma_regressor(diabetes, alpha):
    X, y = diabetes
    ref = sk.GammaRegressor(alpha=alpha, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(X, y)
    # Fisher scoring on a non-canonical link converges linearly: a tight tol for a tight match.
    ours = GLMRegressor(family="gamma", link="log", alpha=alpha, tol=1e-14, max_iter=1000).fit(X, y)
    assert _rel(_params(ours), _params(ref)) < 1e-7  # measured ≤ 6e-8
    assert ours.score(X, y) == pytest.approx(ref.score(X, y), abs=1e-8)


@pytest.mark.parametrize("alpha", [0.0, 0.01])
def test_gamma_inverse_link_matches_scipy(diabetes, alpha):
    # No scikit-learn estimator has the inverse link: minimize the written-out objective with SciPy.
    X, y = diabetes
    y = y / 100  # keeps η = −1/μ of order 1, which SciPy's BFGS needs
    ours = GLMRegressor(family="gamma", link="inverse", alpha=alpha, tol=1e-12).fit(X, y)

    def objective(beta):
        eta = X @ beta[:-1] + beta[-1]
        if np.any(eta >= 0):
            return np.inf  # no valid mean
        mu = -1.0 / eta
        return np.mean(np.log(mu / y) + y / mu - 1) + 0.5 * alpha * beta[:-1] @ beta[:-1]

    def gradient(beta):
        mu = -1.0 / (X @ beta[:-1] + beta[-1])
        r = (mu - y) / len(y)  # ∂/∂η of the mean half-deviance, dμ/dη = μ² for η = −1/μ
        return np.append(X.T @ r + alpha * beta[:-1], r.sum())

    start = np.append(np.zeros(X.shape[1]), -1.0 / y.mean())
    ref = minimize(objective, start, jac=gradient, method="BFGS", options={"gtol": 1e-12, "maxiter": 10_000})
    assert np.all(X @ ours.coef_ + ours.intercept_ < 0)  # a valid mean everywhere
    assert _rel(_params(ours), ref.x) < 1e-5
    assert ours.loss_curve_[-1] <= ref.fun + 1e-12


@pytest.mark.parametrize("alpha", [1.0, 0.01, 0.0])
def test_gaussian_matches_tweedie_power_zero_and_ridge(diabetes, alpha):
    X, y = diabetes
    ours = GLMRegressor(family="gaussian", alpha=alpha).fit(X, y)
    tweedie = sk.TweedieRegressor(power=0, link="identity", alpha=alpha, solver="newton-cholesky", tol=1e-12).fit(X, y)
    ridge = sk.Ridge(alpha=alpha * len(y)).fit(X, y)
    assert _rel(_params(ours), _params(tweedie)) < 1e-8
    assert _rel(_params(ours), _params(ridge)) < 1e-8
    assert ours.n_iter_ == 1  # IRLS on the identity link is one weighted least-squares solve


def test_gaussian_log_link_matches_tweedie(diabetes):
    X, y = diabetes
    ours = GLMRegressor(family="gaussian", link="log", alpha=0.01, tol=1e-10).fit(X, y)
    ref = sk.TweedieRegressor(power=0, link="log", alpha=0.01, tol=1e-12, max_iter=10_000).fit(X, y)
    assert _rel(_params(ours), _params(ref)) < 1e-5  # measured 1.5e-7


@pytest.mark.parametrize("C", [1.0, 0.01])
def test_bernoulli_matches_logistic_regression(C):
    # LogisticRegression: C Σ logloss + ½‖w‖²  ⇔  mean logloss + 1/(2Cn)‖w‖², and ½ deviance = logloss.
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    ref = sk.LogisticRegression(C=C, tol=1e-12, max_iter=10_000).fit(X, y)
    ours = GLMRegressor(family="bernoulli", alpha=1.0 / (C * len(y)), tol=1e-10).fit(X, y)
    assert _rel(_params(ours), np.append(ref.coef_, ref.intercept_)) < 1e-5  # measured ≤ 9e-7
    assert np.mean((ours.predict(X) > 0.5) == y) == pytest.approx(ref.score(X, y))


# --------------------------------------------------------------------------------- properties
@pytest.mark.parametrize(
    "family, link, alpha",
    [("poisson", "log", 0.01), ("gamma", "log", 0.01), ("gamma", "inverse", 0.01), ("bernoulli", "logit", 0.01),
     ("gaussian", "identity", 0.1)],
)
def test_all_solvers_agree(diabetes, family, link, alpha):
    X, y = diabetes
    y = {"poisson": np.round(y / 10), "bernoulli": (y > 140).astype(float)}.get(family, y / 100)
    fits = {
        solver: GLMRegressor(family=family, link=link, alpha=alpha, solver=solver, tol=1e-10, max_iter=5000).fit(X, y)
        for solver in ("irls", "lbfgs", "gd")
    }
    irls = _params(fits["irls"])
    assert _rel(_params(fits["lbfgs"]), irls) < 1e-4
    # Gradient descent stops on a small change of F, slowed by the nearly collinear s1, s2 columns.
    assert _rel(_params(fits["gd"]), irls) < 5e-3
    best = fits["irls"].loss_curve_[-1]
    assert best <= min(fits["gd"].loss_curve_[-1], fits["lbfgs"].loss_curve_[-1]) + 1e-12
    assert fits["gd"].loss_curve_[-1] - best < 1e-6 * best  # measured ≤ 1.5e-7


@pytest.mark.parametrize("family, link", [("poisson", "log"), ("bernoulli", "logit"), ("gamma", "inverse"),
                                          ("gamma", "log")])
def test_irls_objective_decreases_monotonically(diabetes, family, link):
    X, y = diabetes
    y = {"poisson": np.round(y / 10), "bernoulli": (y > 140).astype(float)}.get(family, y)
    model = GLMRegressor(family=family, link=link, alpha=0.0, tol=1e-12).fit(X, y)
    curve = np.array(model.loss_curve_)
    assert len(curve) >= 3
    assert np.all(np.diff(curve) <= 1e-15 * np.abs(curve[:-1]))


def test_score_is_d2(counts):
    X, y = counts
    weights = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    model = PoissonRegressor(alpha=0.1).fit(X, y, sample_weight=weights)
    expected = d2_tweedie_score(y, model.predict(X), sample_weight=weights, power=1)
    assert model.score(X, y, sample_weight=weights) == pytest.approx(expected, rel=1e-10)
    ref = sk.PoissonRegressor(alpha=0.1, tol=1e-12, max_iter=1000).fit(X, y, sample_weight=weights)
    assert model.score(X, y) == pytest.approx(ref.score(X, y), abs=1e-6)


def test_integer_sample_weight_equals_repetition(counts):
    X, y = counts
    repeats = np.random.default_rng(2).integers(0, 4, size=len(y))
    weighted = PoissonRegressor(alpha=0.5, tol=1e-10).fit(X, y, sample_weight=repeats)
    repeated = PoissonRegressor(alpha=0.5, tol=1e-10).fit(np.repeat(X, repeats, axis=0), np.repeat(y, repeats))
    np.testing.assert_allclose(_params(weighted), _params(repeated), rtol=1e-9, atol=1e-12)


def test_exposure_is_a_rate_model(counts):
    # Poisson deviance: d(y, tλ) = t·d(y/t, λ). With the objective normalized by the total weight,
    # counts with exposure t and alpha equal rates y/t with weights t and alpha / mean(t).
    X, y = counts
    exposure = np.random.default_rng(3).uniform(0.5, 3.0, size=len(y))
    with_exposure = PoissonRegressor(alpha=0.2, tol=1e-10).fit(X, y, exposure=exposure)
    rates = PoissonRegressor(alpha=0.2 / exposure.mean(), tol=1e-10).fit(X, y / exposure, sample_weight=exposure)
    np.testing.assert_allclose(_params(with_exposure), _params(rates), rtol=1e-8)
    np.testing.assert_allclose(with_exposure.predict(X, exposure=exposure), exposure * rates.predict(X), rtol=1e-8)
    offset = GLMRegressor(family="poisson", alpha=0.2, tol=1e-10).fit(X, y, offset=np.log(exposure))
    np.testing.assert_allclose(_params(offset), _params(with_exposure), rtol=1e-12)


def test_intercept_is_not_penalized(counts):
    X, y = counts
    model = PoissonRegressor(alpha=1e8).fit(X, y)
    assert np.max(np.abs(model.coef_)) < 1e-7
    assert model.intercept_ == pytest.approx(np.log(y.mean()), rel=1e-6)


def test_without_intercept_matches_sklearn(counts):
    X, y = counts
    ours = PoissonRegressor(alpha=0.01, fit_intercept=False, tol=1e-10).fit(X, y)
    ref = sk.PoissonRegressor(alpha=0.01, fit_intercept=False, solver="newton-cholesky", tol=1e-12).fit(X, y)
    assert ours.intercept_ == 0.0
    assert _rel(ours.coef_, ref.coef_) < 1e-8


def test_warm_start_resumes_at_the_solution(counts):
    X, y = counts
    model = PoissonRegressor(alpha=0.1, warm_start=True, tol=1e-8).fit(X, y)
    first = _params(model)
    model.fit(X, y)
    assert model.n_iter_ <= 1
    np.testing.assert_allclose(_params(model), first, rtol=1e-8)


def test_convergence_warning_at_max_iter(counts):
    X, y = counts
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        model = PoissonRegressor(solver="gd", max_iter=2, tol=1e-12).fit(X, y)
    assert model.n_iter_ == 2 and len(model.loss_curve_) == 2


def test_families_unit_deviance_is_zero_at_mu_equal_y_and_matches_its_derivative():
    y = np.array([0.2, 0.5, 0.9])
    for family in FAMILIES.values():
        mu = np.array([0.3, 0.4, 0.7])
        assert np.allclose(family.unit_deviance(y, y), 0.0)
        h = 1e-6  # ∂d/∂μ = −2 (y − μ) / V(μ)
        numeric = (family.unit_deviance(y, mu + h) - family.unit_deviance(y, mu - h)) / (2 * h)
        np.testing.assert_allclose(numeric, -2 * (y - mu) / family.variance(mu), rtol=1e-6)
    for link in LINKS.values():
        mu = np.array([0.3, 0.4, 0.7])
        np.testing.assert_allclose(link.inverse_link(link.link(mu)), mu, rtol=1e-12)
        np.testing.assert_allclose(link.inverse_derivative(link.link(mu)) * link.derivative(mu), 1.0, rtol=1e-12)
    assert LINKS["inverse"].link(2.0) == -0.5  # the canonical parameter θ = −1/μ


def test_extreme_linear_predictor_stays_finite():
    X = np.array([[0.0], [1.0], [2.0], [3.0]]) * 1e3
    y = np.array([0.0, 0.0, 1.0, 50.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = PoissonRegressor(alpha=0.0, max_iter=30).fit(X, y)
    assert np.all(np.isfinite(model.predict(X * 10)))
    assert np.all(np.isfinite(model.loss_curve_))


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "family, link, y, match",
    [
        ("poisson", "canonical", [1.0, -1.0, 2.0], "y ≥ 0"),
        ("gamma", "log", [1.0, 0.0, 2.0], "y > 0"),
        ("gamma", "canonical", [1.0, -2.0, 2.0], "y > 0"),
        ("bernoulli", "canonical", [0.0, 1.0, 1.5], r"\[0, 1\]"),
        ("poisson", "identity", [1.0, 2.0, 3.0], "does not take link='identity'"),
        ("bernoulli", "log", [0.0, 1.0, 1.0], "does not take link='log'"),
        ("gamma", "logit", [1.0, 2.0, 3.0], "does not take link='logit'"),
    ],
)
def test_bad_targets_and_links_raise(family, link, y, match):
    X = np.array([[0.0], [1.0], [2.0]])
    with pytest.raises(ValueError, match=match):
        GLMRegressor(family=family, link=link).fit(X, y)


def test_bad_exposure_offset_and_parameters_raise():
    X, y = np.array([[0.0], [1.0], [2.0]]), np.array([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="positive"):
        PoissonRegressor().fit(X, y, exposure=[1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="one entry per sample"):
        GLMRegressor().fit(X, y, offset=[0.0, 1.0])
    with pytest.raises(ValueError, match="y ≥ 0"):
        PoissonRegressor().fit(X, -y)
    with pytest.raises(ValueError, match="family"):
        GLMRegressor(family="tweedie").fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        PoissonRegressor(solver="irls").fit(X, y)
    with pytest.raises(ValueError, match="does not take"):
        get_family_and_link("gaussian", "logit")


# -- Sparse and float32 input (issue 21) ---------------------------------------------------------


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_sparse_poisson_matches_scikit_learn(solver):
    import scipy.sparse
    from sklearn.linear_model import PoissonRegressor as SkPoisson

    from lucidml.linear import PoissonRegressor

    rng = np.random.default_rng(0)
    X = scipy.sparse.random(500, 40, density=0.1, format="csr", random_state=0)
    y = rng.poisson(np.exp(X @ rng.normal(scale=0.5, size=40) + 0.3))
    weight = rng.uniform(0.5, 2.0, 500)
    ours = PoissonRegressor(alpha=0.01, solver=solver, tol=1e-10, max_iter=1000).fit(X, y, sample_weight=weight)
    ref = SkPoisson(alpha=0.01, tol=1e-10, max_iter=1000).fit(X.toarray(), y, sample_weight=weight)
    # scikit-learn's L-BFGS stops about 1e-7 short of the optimum even at tol=1e-10.
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X.toarray()), rtol=1e-6)
    single = PoissonRegressor(alpha=0.01, solver=solver, tol=1e-6).fit(X.astype(np.float32), y)
    double = PoissonRegressor(alpha=0.01, solver=solver, tol=1e-6).fit(X, y)
    assert single.coef_.dtype == np.float32 and single.predict(X.astype(np.float32)).dtype == np.float32
    # The float32 products put a noise floor of about 1e-5 under the gradient: agreement to ~1e-4.
    np.testing.assert_allclose(single.coef_, double.coef_, atol=5e-4)


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_features_that_overflow_the_fit_are_refused_by_name(diabetes, solver):
    """X near 1e300: XᵀWX (Newton) or the linear predictor (L-BFGS) leaves float64's range. A
    ValueError that says so, not NaN coefficients, a LAPACK LinAlgError or the null model."""
    X, y = diabetes
    with pytest.raises(ValueError, match="overflowed.*rescale the features") as raised:
        PoissonRegressor(solver=solver).fit((X - X.min(axis=0) + 0.1) * 1e300, y)
    assert not isinstance(raised.value, np.linalg.LinAlgError)


@pytest.mark.parametrize("model", [GLMRegressor(tol=1e-8), GLMRegressor(solver="lbfgs", tol=1e-8),
                                   PoissonRegressor(tol=1e-8), PoissonRegressor(solver="lbfgs", tol=1e-8)])
def test_a_feature_far_from_zero_gives_the_same_fit(diabetes, model):
    """The intercept is not penalized, so moving a feature by a constant only moves the intercept. A
    feature of mean 1e4 and spread 1 made IRLS's bordered system singular in float64 (condition
    5e15): the minimum-norm fallback dropped that feature's coefficient, and the Gaussian fit
    stopped 1.2% away from the optimum (the Poisson fit 11% at a mean of 1e7) without a warning.
    The solvers now see the features centred."""
    X, y = diabetes
    reference = clone(model).fit(X, y)
    for shift in (1e4, 1e7):
        X_far = X.copy()
        X_far[:, 0] += shift
        far = clone(model).fit(X_far, y)
        np.testing.assert_allclose(far.coef_, reference.coef_, atol=1e-5 * np.abs(reference.coef_).max())
        np.testing.assert_allclose(far.intercept_ + far.coef_[0] * shift, reference.intercept_, rtol=1e-6)
        np.testing.assert_allclose(far.predict(X_far), reference.predict(X), rtol=1e-6)


@pytest.mark.parametrize("solver", ["lbfgs", "irls"])
def test_warm_start_reads_the_intercept_of_the_uncentred_features(diabetes, solver):
    """The solvers' intercept is that of the centred features; a warm start converts the fitted one,
    so the second fit starts at the first one's F (a raw intercept read as b′ would start 50·Σw away)."""
    X, y = diabetes
    X = X + 50.0
    model = PoissonRegressor(solver=solver if solver == "lbfgs" else "newton", warm_start=True, tol=1e-10)
    first = _params(model.fit(X, y))
    final_loss = model.loss_curve_[-1]
    model.fit(X, y)
    assert model.n_iter_ <= 1 and model.loss_curve_[0] == pytest.approx(final_loss, rel=1e-12)
    # (The one step the solver may take from there moves the weights along the loss's flat directions,
    # where a loss within 1e-12 of the optimum fixes them to about √1e-12: 1.4e-6 with OpenBLAS's
    # Haswell kernels, below 1e-8 with others.)
    np.testing.assert_allclose(_params(model), first, rtol=1e-5)


@pytest.mark.parametrize("model", [GLMRegressor(alpha=0.0, solver="lbfgs"), GLMRegressor(alpha=0.0, solver="gd"),
                                   PoissonRegressor(alpha=0.0, solver="lbfgs")])
def test_first_order_solvers_do_not_depend_on_a_features_units(model):
    """L-BFGS and gradient descent run on the weights of the standardized features. In raw units, with
    one feature ×1e8, the Poisson fit stopped after 2 iterations predicting 1e130 and the Gaussian one
    84 (y's spread 77) from the optimum, both reported as converged; ×1e-8 left the feature's
    coefficient at 0. (Unpenalized: a penalty reads raw coefficients, so only then is the fit
    unit-free.)"""
    X, y = load_diabetes(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # gd's 100 steps
        reference = clone(model).fit(X, y)
        for factor in (1e-8, 1e8):
            scaled = X.copy()
            scaled[:, 0] *= factor
            fitted = clone(model).fit(scaled, y)
            assert fitted.n_iter_ == reference.n_iter_
            np.testing.assert_allclose(fitted.predict(scaled), reference.predict(X), rtol=1e-8)
            np.testing.assert_allclose(fitted.coef_[0] * factor, reference.coef_[0], rtol=1e-6)


@pytest.mark.parametrize("scale", [1e9, 1e12])
def test_gamma_inverse_link_is_not_capped_at_1e10(scale):
    """The inverse link clipped η at −1e−10, every mean at 1e10: amounts of 1e12 were fitted 100
    times too small, without a word. The fit scales with y (the gamma deviance does not change)."""
    rng = np.random.RandomState(0)
    X = rng.uniform(0, 1, (200, 1))
    y = rng.gamma(5.0, 1.0 / (0.5 + X[:, 0]) / 5.0)
    plain = GLMRegressor(family="gamma", link="inverse", alpha=0.0).fit(X, y)
    scaled = GLMRegressor(family="gamma", link="inverse", alpha=0.0).fit(X, y * scale)
    np.testing.assert_allclose(scaled.predict(X) / scale, plain.predict(X), rtol=1e-5)
    # IRLS's weights (dμ/dη)²/V = μ⁴/μ² overflowed from μ ≈ 1e77: now ((dμ/dη)/√V)² = μ²
    huge = GLMRegressor(family="gamma", link="inverse", alpha=0.0).fit(X, y * 1e100)
    np.testing.assert_allclose(huge.predict(X) / 1e100, plain.predict(X), rtol=1e-5)
    with pytest.raises(ValueError, match="y's reach .*e\\+200; rescale .* or y"):  # μ² beyond float64
        GLMRegressor(family="gamma", link="inverse", alpha=0.0).fit(X, y * 1e200)


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
@pytest.mark.parametrize("scale", [1e-6, 1e-15, 1e12])
def test_poisson_rates_of_any_scale_give_the_scale_one_fit(solver, scale):
    """Rates near 1e-15 started at log 1e-10 (a clipped mean) and the tiny deviance stopped every
    solver after a step: mean predictions 37 to 37,000 times too high, then 15% off. y far from 1 is
    now fitted in units of a power of two near its mean, which only moves the intercept; above 1 the
    tolerance is divided by the deviance's factor, so that it keeps scikit-learn's meaning."""
    rng = np.random.RandomState(0)
    X = rng.randn(200, 2)
    y = rng.poisson(np.exp(0.5 * X[:, 0])).astype(float)
    # Below 1, the same relative tolerance as the plain fit; above, scikit-learn's absolute one (tighter).
    plain = PoissonRegressor(alpha=0.1, solver=solver, tol=1e-4 if scale < 1 else 1e-12, max_iter=1000).fit(X, y)
    scaled = PoissonRegressor(alpha=0.1 * scale, solver=solver).fit(X, y * scale)  # the same objective, in units
    np.testing.assert_allclose(scaled.coef_, plain.coef_, atol=1e-6 if scale > 1 else 1e-4)
    np.testing.assert_allclose(scaled.intercept_ - np.log(scale), plain.intercept_, atol=1e-6 if scale > 1 else 1e-4)
    np.testing.assert_allclose(scaled.loss_curve_[-1], plain.loss_curve_[-1] * scale, rtol=1e-4)


def test_lbfgs_with_a_large_constant_offset_starts_at_the_intercept_only_fit():
    """The start b = log ȳ ignored the offsets: with an offset of 13.8 L-BFGS ended at an intercept
    of −8000 and reported success."""
    rng = np.random.RandomState(0)
    X = rng.randn(200, 2)
    y = rng.poisson(np.exp(0.5 * X[:, 0])).astype(float)
    reference = GLMRegressor(family="poisson", alpha=0.0, solver="irls").fit(X, y)
    for solver in ("lbfgs", "gd", "irls"):
        shifted = GLMRegressor(family="poisson", alpha=0.0, solver=solver, max_iter=1000)
        shifted.fit(X, y, offset=np.full(200, 13.8))
        np.testing.assert_allclose(shifted.coef_, reference.coef_, atol=5e-4)
        np.testing.assert_allclose(shifted.intercept_ + 13.8, reference.intercept_, atol=5e-4)
