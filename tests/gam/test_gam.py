"""GAMRegressor (backfitting) and GAMClassifier (local scoring)."""

import warnings
from functools import partial

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from lucidml.gam import _smoothers
from lucidml.gam._smoothers import fit_component, group_by_value
from lucidml.gam.gam_classifier import GAMClassifier
from lucidml.gam.gam_regressor import GAMRegressor


@pytest.fixture(scope="module")
def additive_data():
    rng = np.random.RandomState(0)
    X = rng.uniform(-2, 2, size=(500, 3))
    y = 1.5 + np.sin(X[:, 0]) + X[:, 1] ** 2 + rng.normal(0, 0.3, 500)  # x₃ has no effect
    return X, y


def _centred(v):
    return v - v.mean()


@pytest.mark.parametrize("smoother, tol", [("spline", 0.06), ("loess", 0.06)])
def test_recovers_additive_truth_up_to_centring(additive_data, smoother, tol):
    X, y = additive_data
    gam = GAMRegressor(smoother=smoother).fit(X, y)
    P = gam.partial_dependence(X)
    rmse = lambda a, b: np.sqrt(np.mean((a - b) ** 2))
    assert rmse(P[:, 0], _centred(np.sin(X[:, 0]))) < tol * 1.5
    assert rmse(P[:, 1], _centred(X[:, 1] ** 2)) < tol
    assert rmse(P[:, 2], 0.0) < tol
    assert abs(gam.intercept_ - y.mean()) < 1e-12
    assert np.allclose(P.mean(axis=0), 0.0, atol=1e-10)  # centred components
    assert gam.n_iter_ < gam.max_iter


def test_spline_backfitting_converges_monotonically_after_knot_search(additive_data):
    X, y = additive_data
    gam = GAMRegressor().fit(X, y)
    tail = gam.loss_curve_[5:]
    assert np.all(np.diff(tail) <= 1e-9 * tail[0])


def test_linear_smoother_is_ordinary_least_squares():
    X, y = load_diabetes(return_X_y=True)
    X = X[:, [0, 1, 2, 3, 8]]  # the weakly correlated columns: backfitting converges in few sweeps
    gam = GAMRegressor(smoother="linear", tol=1e-10, max_iter=2000).fit(X, y)
    ols = LinearRegression().fit(X, y)
    slopes = np.array([f.slope for f in gam.components_])
    assert np.max(np.abs(slopes - ols.coef_) / np.abs(ols.coef_).max()) < 1e-6
    assert np.allclose(gam.predict(X), ols.predict(X), atol=1e-6 * np.std(y))


def test_prediction_clamps_to_training_range(additive_data):
    X, y = additive_data
    gam = GAMRegressor().fit(X, y)
    inside = np.array([[X[:, 0].max(), 0.0, 0.0]])
    outside = np.array([[X[:, 0].max() + 10.0, 0.0, 0.0]])
    assert gam.predict(outside)[0] == pytest.approx(gam.predict(inside)[0])


def test_sample_weight_equals_repetition(additive_data):
    X, y = additive_data[0][:120], additive_data[1][:120]
    w = np.arange(120) % 3
    rows = np.repeat(np.arange(120), w)
    a = GAMRegressor().fit(X, y, sample_weight=w)
    b = GAMRegressor().fit(X[rows], y[rows])
    assert np.allclose(a.predict(X), b.predict(X), atol=1e-8)


def test_loess_smoother_fits_a_line_exactly():
    x = np.linspace(0, 1, 50)
    values, inverse = group_by_value(x)
    f = fit_component("loess", values, inverse, 3 * x + 1, np.ones(50), smoothing=1.0, span=0.3, dispersion=None)
    assert np.allclose(f(x), 3 * x - 1.5, atol=1e-10)  # the line, centred


def test_convergence_warning():
    X, y = load_diabetes(return_X_y=True)
    with pytest.warns(ConvergenceWarning):
        GAMRegressor(smoother="linear", max_iter=2).fit(X, y)


def test_classifier_moons_and_local_scoring():
    X, y = make_moons(200, noise=0.2, random_state=0)
    clf = GAMClassifier().fit(X, y)
    assert clf.score(X, y) > 0.9
    proba = clf.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(clf.predict(X), clf.classes_[(proba[:, 1] >= 0.5).astype(int)])
    assert clf.loss_curve_[-1] < clf.loss_curve_[0]  # the deviance fell


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("params", [{"smoother": "linear"}, {}, {"smoothing": 3.0, "max_iter": 30},
                                    {"alpha_update": "mean", "smoothing": 3.0, "max_iter": 30}])
def test_classifier_breast_cancer_comparable_to_logistic(params):
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, [0, 1, 4, 20, 21, 27]]  # a few informative features keep this fast
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    gam = cross_val_score(GAMClassifier(**params), X, y, cv=cv).mean()
    lr = cross_val_score(make_pipeline(StandardScaler(), LogisticRegression()), X, y, cv=cv).mean()
    assert gam > lr - 0.02


def test_linear_gam_classifier_matches_logistic_regression():
    X, y = make_moons(300, noise=0.3, random_state=1)
    gam = GAMClassifier(smoother="linear", alpha_update="weighted", tol=1e-12, max_iter=500).fit(X, y)
    lr = LogisticRegression(C=1e10, tol=1e-10, max_iter=1000).fit(X, y)
    assert np.allclose(gam.decision_function(X), lr.decision_function(X), atol=1e-4)


def test_multiclass_is_one_vs_rest_of_binary_local_scoring():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    X = X[:, [2, 3]]
    multi = GAMClassifier(smoother="linear", max_iter=30).fit(X, y)
    assert multi.intercept_.shape == (3,) and multi.decision_function(X).shape == (150, 3)
    for k in range(3):  # column k is the binary model of class k against the rest
        binary = GAMClassifier(smoother="linear", max_iter=30).fit(X, (y == k).astype(int))
        np.testing.assert_allclose(multi.decision_function(X)[:, k], binary.decision_function(X), atol=1e-10)
    proba = multi.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.mean(multi.predict(X) == y) > 0.9


def test_classifier_bad_input():
    X = np.random.RandomState(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="1 class"):
        GAMClassifier().fit(X, np.zeros(30))
    with pytest.raises(ValueError):
        GAMRegressor(smoother="cubic").fit(X, X[:, 0])


@pytest.mark.parametrize("model", [GAMRegressor(), GAMClassifier()])
def test_a_feature_spanning_less_than_the_spline_can_bear_is_refused_by_name(model):
    # Cubic-spline derivative jumps grow like 1/h³: at a spread of 1e-150 they overflow float64
    # (the classifier's least squares failed with "SVD did not converge").
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=30) * 1e-150, rng.normal(size=30)])
    y = np.arange(30) % 2
    with pytest.raises(ValueError, match="feature 0 spans only"):
        model.fit(X, y)
    model.set_params(smoother="linear").fit(X, y)  # the linear smoother has no derivatives to overflow
    assert np.all(np.isfinite(model.predict(X)))


def _penalty_problem(rank_deficient):
    rng = np.random.default_rng(0)
    R = np.triu(rng.normal(size=(12, 12))) + 3 * np.eye(12)
    if rank_deficient:
        R[5, 5:] = 0.0
    return R, rng.normal(size=12), rng.normal(size=(8, 12))  # R, Qᵀ√W z̄, P (the penalty is λ‖Pc‖²)


def _hat_trace(R, jumps, lam):
    """trace R (RᵀR + λJᵀJ)⁺ Rᵀ, the degrees of freedom of the penalized fit, written out."""
    return np.trace(R @ np.linalg.pinv(R.T @ R + lam * jumps.T @ jumps) @ R.T)


@pytest.mark.parametrize("rank_deficient", [False, True])
def test_the_penalty_path_scores_every_lambda_as_least_squares_does(rank_deficient):
    """The residual ‖R c(λ) − q‖² and the degrees of freedom of the penalized spline fit, from one
    SVD of J R⁻¹ for every λ (a least-squares solve per λ made GAMClassifier on 500 rows take a
    minute), equal the least-squares ones and the trace of the hat matrix; a singular R (knots
    without data) is solved by least squares."""
    from lucidml.gam._smoothers import _penalized_coef, _penalty_path

    R, qz, jumps = _penalty_problem(rank_deficient)
    path = _penalty_path(R, qz, jumps)
    for lam in (1e-8, 1e-2, 1.0, 1e3, 1e8):
        residual, df = path(lam)
        assert residual == pytest.approx(np.sum((R @ _penalized_coef(R, qz, jumps, lam) - qz) ** 2), rel=1e-8,
                                         abs=1e-12)
        assert df == pytest.approx(_hat_trace(R, jumps, lam), rel=1e-6, abs=1e-8)
    # df runs from the number of coefficients (unpenalized) down to the penalty's null space
    assert path(1e-12)[1] == pytest.approx(np.linalg.matrix_rank(R), abs=1e-3)
    assert path(1e12)[1] == pytest.approx(12 - 8, abs=1e-3)


@pytest.mark.parametrize("weight", [0.0, 0.3, 1.0, 5.0])
def test_cp_penalty_minimizes_mallows_cp(weight):
    """The classifier's λ minimizes residual + 2·γφ·df, checked against a brute-force scan with
    the hat matrix written out; a larger weight gives a smoother fit (fewer df)."""
    from lucidml.gam._smoothers import _cp_penalty, _penalized_coef, _penalty_path, _penalty_scale

    R, qz, jumps = _penalty_problem(False)
    qz = qz * 3  # signal enough that the optimum is inside the range for small weights

    def cp(lam):
        residual = np.sum((R @ _penalized_coef(R, qz, jumps, lam) - qz) ** 2)
        return residual + 2 * weight * _hat_trace(R, jumps, lam)

    chosen = _cp_penalty(R, qz, jumps, weight)
    residual, df = _penalty_path(R, qz, jumps)(chosen)  # (the written-out hat loses digits beyond e²⁰)
    scan = _penalty_scale(R, jumps) * np.exp(np.linspace(-20, 20, 401))
    assert residual + 2 * weight * df <= min(cp(lam) for lam in scan) * (1 + 1e-7)
    if weight == 0.0:
        assert chosen <= _penalty_scale(R, jumps) * 1e-12  # nothing to trade: the least-squares fit


def test_a_halved_spline_step_is_one_spline_with_averaged_coefficients():
    """Step halving averages two fits of a feature on the same knots into one spline (not a
    growing sum of terms): its values are the mean of theirs and its penalty is λ‖J (c₁ + c₂)/2‖²."""
    from lucidml.gam._smoothers import fit_component
    from lucidml.gam.gam_classifier import _halfway

    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, 300)
    values, inverse = group_by_value(x)
    fits = [fit_component("spline", values, inverse, np.sin(6 * x) + rng.normal(0, s, 300), np.ones(300), smoothing=1,
                          span=0.3, dispersion=1.0) for s in (0.2, 0.5)]
    new, old = [fit_component("spline", values, inverse, np.cos(3 * x), np.ones(300), smoothing=1, span=0.3,
                              dispersion=1.0, previous=f) for f in fits]
    assert new.lam is not None and np.array_equal(new.t, old.t)
    mean = _halfway(new, old)
    assert type(mean) is type(new)
    grid = np.linspace(-0.1, 1.1, 50)
    np.testing.assert_allclose(mean(grid), (new(grid) + old(grid)) / 2, atol=1e-12)
    jumps = new.penalty_root @ (new.spline.c + old.spline.c) / 2
    assert mean.roughness() == pytest.approx(new.lam * jumps @ jumps)


def test_classifier_smoothness_does_not_chase_badly_fitted_samples():
    """Three overlapping classes, 1,000 rows: the one-vs-rest splines used to follow FITPACK's
    residual budget, which the working residuals ~1/μ of badly fitted samples blew up: a knot at
    every value, training deviance 13 of the null 950, no convergence in 100 iterations (66 s)
    and 57% held-out accuracy. With C_p smoothing each problem converges and generalizes like a
    spline logistic regression."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import SplineTransformer

    X, y = make_classification(1500, 10, n_informative=6, n_redundant=0, n_classes=3, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=1000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        gam = GAMClassifier().fit(X_train, y_train)
    assert gam.n_iter_ <= 30
    assert min(curve[-1] for curve in gam.loss_curve_) > 500  # no class is (falsely) separated
    reference = make_pipeline(SplineTransformer(n_knots=6), LogisticRegression(max_iter=5000)).fit(X_train, y_train)
    assert gam.score(X_test, y_test) >= reference.score(X_test, y_test) - 0.02


def test_local_scoring_does_not_stop_at_the_freeze():
    """When the splines' λ are frozen the penalty enters the halving test; compared with a
    penalty-free objective it used to force ten halvings, whose 1/1024 step then passed the
    convergence test: the fit stopped 0.21 away (decision function) from the penalized optimum."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + np.sin(2 * X[:, 1]) + rng.normal(size=300) > 0).astype(int)
    fit = GAMClassifier().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        optimum = GAMClassifier(tol=0.0, max_iter=60).fit(X, y)
    assert np.abs(fit.decision_function(X) - optimum.decision_function(X)).max() < 0.005


def test_classifier_warning_names_separation_where_the_deviance_keeps_falling():
    """Breast cancer's classes are linearly separable (an unpenalized logistic regression reaches 100%
    training accuracy with coefficients past 1e4): local scoring has no finite fit to converge to and
    its deviance falls at every iteration. The warning says so; a stop while the deviance is not
    steadily falling (three iterations) gives only the plain advice."""
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match="separable") as record:
        model = GAMClassifier(max_iter=20).fit(X, y)
    assert len(record) == 1 and np.all(np.diff(model.loss_curve_[-6:]) < 0)
    with pytest.warns(ConvergenceWarning, match="increase max_iter") as record:
        GAMClassifier(max_iter=3).fit(X, y)
    assert "separable" not in str(record[0].message)


def test_classifier_knots_one_per_four_unique_values_up_to_twenty():
    """The C_p spline's interior knots: evenly spaced in rank, one per four unique values, at most
    MAX_INTERIOR_KNOTS (20), none for fewer than four values; always strictly inside the range."""
    for n_unique, expected in ((3, 0), (8, 2), (40, 10), (83, 20), (1000, 20)):
        u = np.sort(np.random.RandomState(n_unique).uniform(-2.0, 5.0, n_unique))
        t = _smoothers._quantile_knots(u, 3)
        interior = t[4:-4]
        assert len(interior) == expected == min(_smoothers.MAX_INTERIOR_KNOTS, n_unique // 4)
        assert np.all(t[:4] == u[0]) and np.all(t[-4:] == u[-1])
        assert np.all((interior > u[0]) & (interior < u[-1])) and np.all(np.diff(interior) > 0)


def test_regressor_spline_frozen_as_a_plain_polynomial_gains_no_knots():
    """After the knot search every spline keeps its knots, also one that FITPACK left a plain cubic:
    refitted to a wiggly target it stays a cubic (FITPACK itself would add knots there)."""
    u = np.linspace(0.0, 1.0, 60)
    inverse, w = np.arange(60), np.ones(60)
    noise = np.random.RandomState(0).normal(scale=0.05, size=60)
    fit = partial(fit_component, "spline", u, inverse, w=w, smoothing=1.0, span=0.3, dispersion=None)
    cubic = fit(z=u**2 + noise)
    assert len(cubic.t) == 8  # no interior knot: a plain cubic
    wiggly = np.sin(12 * u) + noise
    assert len(fit(z=wiggly).t) > 8  # unfrozen, FITPACK adds knots for this target
    frozen = fit(z=wiggly, previous=cubic)
    np.testing.assert_array_equal(frozen.t, cubic.t)
    assert frozen.lam == 0.0  # a polynomial has no jumps to penalize: least squares on its basis
    cubic_fit = np.polyval(np.polyfit(u, wiggly, 3), u)
    np.testing.assert_allclose(frozen(u), cubic_fit - cubic_fit.mean(), atol=1e-8)  # components are centred


@pytest.mark.parametrize("scale", [1e-6, 1e-300, 1e300])
def test_gam_classifier_weights_times_a_constant_fit_the_same_model(scale):
    """The stopping rule's safeguard, R's 0.1 in |ΔD| / (|D| + 0.1), is taken per unit of mean
    weight: in the user's units, weights of 1e-6 stopped after 7 iterations (a different model,
    with no warning), 1e-300 after one."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = GAMClassifier(smoother="linear", max_iter=30).fit(X, y)
        scaled = GAMClassifier(smoother="linear", max_iter=30).fit(X, y, sample_weight=np.full(len(y), scale))
    assert scaled.n_iter_ == plain.n_iter_
    np.testing.assert_allclose(scaled.predict_proba(X), plain.predict_proba(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_spline_regressor_takes_sample_weights_of_any_scale(scale):
    """The spline smoother's weighted sums overflowed for weights near 1e±300 ("the smoother of
    feature 2 returned NaN or infinity"); the fit depends only on the weights' ratios."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(200, 3))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=200)
    weight = rng.uniform(0.5, 2.0, 200)
    plain = GAMRegressor(smoother="spline").fit(X, y, sample_weight=weight)
    scaled = GAMRegressor(smoother="spline").fit(X, y, sample_weight=weight * scale)
    np.testing.assert_allclose(scaled.predict(X), plain.predict(X), rtol=1e-9, atol=1e-9)
