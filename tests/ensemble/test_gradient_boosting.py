"""Histogram gradient boosting: Alg 11 by hand, scikit-learn oracles, properties, bad input."""

from itertools import pairwise

import numpy as np
import pytest
from scipy.special import expit
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_digits,
    load_iris,
    load_wine,
    make_classification,
)
from sklearn.ensemble import GradientBoostingClassifier as SkGBC
from sklearn.ensemble import GradientBoostingRegressor as SkGBR
from sklearn.ensemble import HistGradientBoostingClassifier as SkHistC
from sklearn.ensemble import HistGradientBoostingRegressor as SkHistR
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold, cross_val_score, train_test_split
from threadpoolctl import threadpool_limits

from lucidml.ensemble._losses import LOSSES, gradient_arrays
from lucidml.ensemble.gradient_boosting import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
)

# HistGradientBoosting at our settings: depth-3 trees, no leaf cap, leaves of one sample, no early stop.
HIST = {"max_iter": 100, "max_depth": 3, "max_leaf_nodes": None, "min_samples_leaf": 1, "early_stopping": False}


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """HistGradientBoosting's OpenMP threads crawl on a busy 2-core machine; CI pins 1 thread too."""
    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def diabetes_rounded():
    """Diabetes with ≤ 16 distinct values per feature: the bins are exact, so trees equal exact trees."""
    X, y = load_diabetes(return_X_y=True)
    return np.round(X * 50) / 50, y


def split(loader, seed=0):
    X, y = loader(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)


# --- the notes' algorithm by hand -------------------------------------------------------------


def test_alg11_squared_error_stumps_by_hand():
    # x = 1..4, y = (1, 3, 2, 6); f₀ = mean = 3, r = (−2, 0, −1, 3).
    # Stage 1: best stump x ≤ 3.5 (SSE 14 → 2), leaves −1 and 3 ⇒ f₁ = (2, 2, 2, 6), r = (−1, 1, 0, 0).
    # Stage 2: best stump x ≤ 1.5 (SSE 2 → 2/3), leaves −1 and 1/3 ⇒ f₂ = (1, 7/3, 7/3, 19/3).
    X = np.arange(1.0, 5.0)[:, None]
    y = np.array([1.0, 3.0, 2.0, 6.0])
    model = GradientBoostingRegressor(learning_rate=1.0, max_depth=1, n_estimators=2).fit(X, y)
    np.testing.assert_allclose(model.baseline_prediction_, [3.0])
    roots = model.nodes_[model.tree_roots_[:, 0]]
    np.testing.assert_allclose(roots["threshold"], [3.5, 1.5])
    # The first tree in the one node layout: root, then its leaves (ids local to the tree).
    first = model.nodes_[:3]
    assert first["left_child"].tolist() == [1, -1, -1] and first["right_child"].tolist() == [2, -1, -1]
    np.testing.assert_allclose(model.node_values_[:3], [0.0, -1.0, 3.0])
    np.testing.assert_allclose(first["weighted_n_node_samples"], [4, 3, 1])  # Σh, h = 1
    np.testing.assert_allclose(first["improvement"][0], (14 - 2) / 2)  # ½ the drop of the SSE
    stages = list(model.staged_predict(X))
    np.testing.assert_allclose(stages[0], [2, 2, 2, 6])
    np.testing.assert_allclose(stages[1], [1, 7 / 3, 7 / 3, 19 / 3])
    np.testing.assert_allclose(model.train_score_, [np.mean((y - 2 - np.array([0, 0, 0, 4])) ** 2), 2 / 3 / 4])


# --- oracles ------------------------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["squared_error", "huber"])
def test_equals_sklearn_gradient_boosting_on_exact_bins(diabetes_rounded, loss):
    # Same trees, same leaves: the histogram gain equals friedman_mse's improvement when h = 1, and
    # the Huber leaf is Friedman's. Both start from the interpolated median of y (no weights given).
    X, y = diabetes_rounded
    ours = GradientBoostingRegressor(loss=loss, n_estimators=30, random_state=0).fit(X, y)
    ref = SkGBR(loss=loss, n_estimators=30, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-10, atol=1e-8)
    np.testing.assert_allclose(ours.train_score_, ref.train_score_, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("loss, tol", [("absolute_error", 0.01), ("quantile", 0.03)])
def test_close_to_sklearn_for_sign_gradient_losses(diabetes_rounded, loss, tol):
    # Gradients with two values tie many splits; ties fall to a different feature than scikit-learn's
    # random order picks. Both start from the interpolated quantile of y (no weights given).
    X, y = diabetes_rounded
    ours = GradientBoostingRegressor(loss=loss, n_estimators=30, random_state=0).fit(X, y)
    ref = SkGBR(loss=loss, n_estimators=30, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.baseline_prediction_, ref._raw_predict_init(X[:1])[0], rtol=1e-12)
    np.testing.assert_allclose(ours.train_score_[0], ref.train_score_[0], rtol=1e-10)
    assert abs(ours.train_score_[-1] / ref.train_score_[-1] - 1) < tol


@pytest.mark.parametrize("loss", ["absolute_error", "huber", "quantile"])
@pytest.mark.parametrize("weighted", [False, True])
def test_a_balanced_target_is_learned_by_the_quantile_losses(loss, weighted):
    """A balanced 0/1 target started at the lower median, 0, where every sign gradient is the same:
    no tree could split and the model stayed constant (R² 0). It starts midway, at ½."""
    X = np.arange(10.0)[:, None]
    y = (np.arange(10) >= 5).astype(float)
    params = {"alpha": 0.5} if loss == "quantile" else {}
    model = GradientBoostingRegressor(n_estimators=50, loss=loss, **params)
    model.fit(X, y, sample_weight=np.full(10, 3.0) if weighted else None)
    assert model.score(X, y) > 0.95


def test_early_stopping_stops_where_sklearn_stops(diabetes_rounded):
    X, y = diabetes_rounded
    kw = {"n_estimators": 500, "n_iter_no_change": 3, "validation_fraction": 0.2, "random_state": 0}
    ours = GradientBoostingRegressor(**kw).fit(X, y)
    ref = SkGBR(**kw).fit(X, y)
    assert 10 < ours.n_estimators_ < 500
    assert ours.n_estimators_ == ref.n_estimators_


@pytest.mark.parametrize("loader", [load_iris, load_wine, load_breast_cancer])
def test_cv_accuracy_matches_hist_gradient_boosting(loader):
    # Within about one test sample: our trees break ties between equal splits in a random feature
    # order, HistGradientBoosting in feature order (measured 5-fold means: iris 0.9400 vs 0.9333,
    # wine 0.9551 vs 0.9606).
    X, y = loader(return_X_y=True)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    ours = cross_val_score(GradientBoostingClassifier(criterion="newton", random_state=0), X, y, cv=cv).mean()
    ref = cross_val_score(SkHistC(random_state=0, **HIST), X, y, cv=cv).mean()
    assert abs(ours - ref) <= 0.01


@pytest.mark.parametrize("loader", [load_iris, load_wine, load_breast_cancer, load_digits])
def test_log_loss_equals_sklearn_gradient_boosting_when_the_bins_are_exact(loader):
    # With a bin per distinct value the histogram trees are exact trees, and the default
    # first-order criterion is scikit-learn's algorithm: least-squares trees on r = y − p, Newton
    # leaves, (K − 1)/K for K classes. Same probabilities and train scores to rounding.
    # Continuous weights: without them the first stage's residuals take K values, so splits of
    # different samples often have exactly equal gains, which both libraries break in their own
    # random feature order (a different tree, as good). Splits of the same samples stay tied.
    X, y = loader(return_X_y=True)
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=y.size)
    n = 20 if loader is load_digits else 100
    ours = GradientBoostingClassifier(n, max_bins=1000, random_state=0).fit(X, y, sample_weight=w)
    ref = SkGBC(n_estimators=n, random_state=0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.train_score_, ref.train_score_, rtol=1e-10, atol=1e-14)


def test_criteria_friedman_mse_and_squared_error_agree_and_newton_differs():
    X, y = load_breast_cancer(return_X_y=True)
    fits = {c: GradientBoostingClassifier(30, criterion=c, random_state=0).fit(X, y).predict_proba(X)
            for c in ("friedman_mse", "squared_error", "newton")}
    np.testing.assert_array_equal(fits["friedman_mse"], fits["squared_error"])
    assert np.abs(fits["newton"] - fits["friedman_mse"]).max() > 1e-3
    # The criterion changes nothing where the hessian is the weight (squared error).
    Xr, yr = load_diabetes(return_X_y=True)
    a = GradientBoostingRegressor(20, criterion="newton", random_state=0).fit(Xr, yr).predict(Xr)
    b = GradientBoostingRegressor(20, random_state=0).fit(Xr, yr).predict(Xr)
    np.testing.assert_array_equal(a, b)


def test_digits_matches_hist_gradient_boosting():
    # 10 classes, 64 features; measured 0.9704 = 0.9704 (at 50 stages 0.9648 vs 0.9667: the
    # (K − 1)/K leaf factor makes the first stages slower).
    Xtr, Xte, ytr, yte = split(load_digits)
    ours = GradientBoostingClassifier(criterion="newton", random_state=0).fit(Xtr, ytr).score(Xte, yte)
    ref = SkHistC(random_state=0, **HIST).fit(Xtr, ytr).score(Xte, yte)
    assert ours > 0.95
    assert abs(ours - ref) <= 0.005


def test_diabetes_r2_matches_both_references():
    # Measured R²: 0.2757 (ours), 0.2806 (GradientBoosting), 0.2763 (HistGradientBoosting).
    X, y = load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
    ours = GradientBoostingRegressor(random_state=0).fit(Xtr, ytr).score(Xte, yte)
    assert abs(ours - SkGBR(random_state=0).fit(Xtr, ytr).score(Xte, yte)) <= 0.01
    assert abs(ours - SkHistR(random_state=0, **HIST).fit(Xtr, ytr).score(Xte, yte)) <= 0.01


def test_synthetic_accuracy_matches_hist():
    # Measured on 6,000 × 20: 0.9456 (ours) vs 0.9478 (Hist) vs 0.9494 (GradientBoosting).
    X, y = make_classification(n_samples=6000, n_features=20, random_state=0)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
    ours = GradientBoostingClassifier(criterion="newton", random_state=0).fit(Xtr, ytr).score(Xte, yte)
    ref = SkHistC(random_state=0, **HIST).fit(Xtr, ytr).score(Xte, yte)
    assert abs(ours - ref) <= 0.005


def test_missing_values_like_hist():
    # 20 % NaN in every feature; measured 3-fold means 0.9526 (ours) vs 0.9508 (Hist). Trees differ
    # more here than without NaN (single splits: ±2 test samples either way), hence 1 pp.
    X, y = load_breast_cancer(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.2] = np.nan
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ours = cross_val_score(GradientBoostingClassifier(criterion="newton", random_state=0), X, y, cv=cv).mean()
    ref = cross_val_score(SkHistC(random_state=0, **HIST), X, y, cv=cv).mean()
    assert ours > 0.94
    assert abs(ours - ref) <= 0.01


# --- properties -----------------------------------------------------------------------------------


def test_missing_values_go_to_the_better_side():
    # The label is "feature 0 is missing": only the missing bin can separate it.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (rng.random(200) < 0.5).astype(int)
    X[y == 1, 0] = np.nan
    model = GradientBoostingClassifier(n_estimators=5, max_depth=1).fit(X, y)
    assert model.score(X, y) == 1.0
    root = model.nodes_[0]
    assert root["feature"] == 0 and root["threshold"] == np.inf and not root["missing_go_to_left"]


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "huber", "quantile"])
def test_regression_train_loss_decreases(loss):
    X, y = load_diabetes(return_X_y=True)
    model = GradientBoostingRegressor(loss=loss, n_estimators=40).fit(X, y)
    assert np.all(np.diff(model.train_score_) <= 1e-9 * model.train_score_[0])
    assert model.train_score_[-1] < 0.8 * model.train_score_[0]


@pytest.mark.parametrize("loader", [load_breast_cancer, load_iris])
def test_classification_train_loss_decreases_and_staged_agree(loader):
    X, y = loader(return_X_y=True)
    model = GradientBoostingClassifier(n_estimators=30).fit(X, y)
    assert np.all(np.diff(model.train_score_) < 0)
    for name in ("predict", "predict_proba", "decision_function"):
        staged = list(getattr(model, "staged_" + name)(X))
        assert len(staged) == 30
        np.testing.assert_array_equal(staged[-1], getattr(model, name)(X))
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_staged_predict_last_equals_predict_regression():
    X, y = load_diabetes(return_X_y=True)
    model = GradientBoostingRegressor(n_estimators=15).fit(X, y)
    staged = list(model.staged_predict(X))
    np.testing.assert_array_equal(staged[-1], model.predict(X))
    assert not np.array_equal(staged[0], staged[-1])


@pytest.mark.parametrize("n_classes", [2, 4])
def test_log_loss_gradient_and_hessian_match_finite_differences(n_classes):
    rng = np.random.default_rng(1)
    n = 6
    y = rng.integers(0, n_classes, n)
    loss = LOSSES["log_loss"](None, n_classes)
    raw = rng.normal(size=(n, loss.n_trees))
    # The reported loss is the mean NLL (binary: the deviance 2·NLL); ∂(n · NLL)/∂f = g.
    scale = n / (2.0 if n_classes == 2 else 1.0)
    eps = 1e-6
    g, h = loss.gradients(y, raw, None)
    for k in range(loss.n_trees):
        for i in range(n):
            up, down = raw.copy(), raw.copy()
            up[i, k] += eps
            down[i, k] -= eps
            assert abs(scale * (loss(y, up, None) - loss(y, down, None)) / (2 * eps) - g[k, i]) < 1e-6
            g_up, g_down = loss.gradients(y, up, None)[0], loss.gradients(y, down, None)[0]
            assert abs((g_up[k, i] - g_down[k, i]) / (2 * eps) - h[k, i]) < 1e-6


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("weighted", [False, True])
def test_log_loss_writes_into_the_arrays_it_is_given(n_classes, weighted):
    """``out`` (the boosting loop's arrays, reused at every stage) receives the same g and h, and
    the same loss, as new arrays; the binary loss against SciPy's expit and scikit-learn's log-loss,
    weighted or not."""
    rng = np.random.default_rng(2)
    n = 20_000  # more than one chunk of the compiled pass
    y = rng.integers(0, n_classes, n)
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    loss = LOSSES["log_loss"](None, n_classes)
    raw = rng.normal(scale=5.0, size=(n, loss.n_trees))
    g, h, value = loss.gradients_and_loss(y, raw, w)
    out = gradient_arrays(loss, n)
    g_out, h_out, value_out = loss.gradients_and_loss(y, raw, w, out=out)
    assert g_out is out.g and h_out is out.h
    np.testing.assert_array_equal(g_out, g)
    np.testing.assert_array_equal(h_out, h)
    assert value_out == value
    p = expit(raw[:, 0]) if n_classes == 2 else None
    if p is not None:
        np.testing.assert_allclose(g[0], (p - y) * (1.0 if w is None else w), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(h[0], p * (1 - p) * (1.0 if w is None else w), rtol=1e-12, atol=1e-15)
        assert value == pytest.approx(2 * log_loss(y, p, sample_weight=w), rel=1e-12)


def test_integer_weights_equal_repeated_samples_and_zero_weights_removal():
    X, y = load_iris(return_X_y=True)
    w = np.random.default_rng(0).integers(0, 3, size=len(y))
    weighted = GradientBoostingClassifier(n_estimators=10, random_state=0).fit(X, y, sample_weight=w)
    repeated = GradientBoostingClassifier(n_estimators=10, random_state=0).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-10)


def test_tree_shape_limits():
    X, y = make_classification(n_samples=600, n_features=8, random_state=0)
    model = GradientBoostingClassifier(n_estimators=5, max_depth=None, max_leaf_nodes=6, min_samples_leaf=15).fit(X, y)
    leaves = model.nodes_["left_child"] == -1
    assert np.all(model.nodes_["n_node_samples"][leaves] >= 15)
    bounds = np.append(model.tree_roots_.ravel(), model.nodes_.size)
    assert [leaves[a:b].sum() for a, b in pairwise(bounds)] == [6] * 5
    shallow = GradientBoostingRegressor(n_estimators=3, max_depth=2).fit(X, y.astype(float))
    assert shallow.nodes_.size == 3 * 7


def test_feature_importances_pick_the_informative_features():
    X, y = make_classification(n_samples=1000, n_features=10, n_informative=3, n_redundant=0,
                               shuffle=False, random_state=0)
    importances = GradientBoostingClassifier(n_estimators=30).fit(X, y).feature_importances_
    assert importances.sum() == pytest.approx(1.0)
    assert importances[:3].sum() > 0.8


def test_subsample_is_reproducible_and_tracks_oob():
    X, y = load_breast_cancer(return_X_y=True)
    a = GradientBoostingClassifier(n_estimators=20, subsample=0.5, random_state=3).fit(X, y)
    b = GradientBoostingClassifier(n_estimators=20, subsample=0.5, random_state=3).fit(X, y)
    full = GradientBoostingClassifier(n_estimators=20).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.allclose(a.predict_proba(X), full.predict_proba(X))
    assert a.oob_improvement_.shape == (20,) and a.oob_improvement_[:5].min() > 0
    assert a.oob_score_ == a.oob_scores_[-1]
    assert not hasattr(full, "oob_improvement_")


def test_warm_start_equals_one_long_fit():
    X, y = load_wine(return_X_y=True)
    model = GradientBoostingClassifier(n_estimators=10, warm_start=True, random_state=0).fit(X, y)
    model.set_params(n_estimators=25).fit(X, y)
    direct = GradientBoostingClassifier(n_estimators=25, random_state=0).fit(X, y)
    assert model.n_estimators_ == 25
    np.testing.assert_allclose(model.predict_proba(X), direct.predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(model.train_score_, direct.train_score_, rtol=1e-12)
    with pytest.raises(ValueError, match="n_estimators"):
        model.set_params(n_estimators=5).fit(X, y)


def test_init_zero_starts_from_zero():
    X, y = load_diabetes(return_X_y=True)
    model = GradientBoostingRegressor(init="zero", n_estimators=5).fit(X, y)
    np.testing.assert_array_equal(model.baseline_prediction_, [0.0])
    assert model.train_score_[0] > np.var(y)


# --- bad input ------------------------------------------------------------------------------------


def test_loss_must_match_the_task():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="loss"):
        GradientBoostingClassifier(loss="squared_error").fit(X, y)
    with pytest.raises(ValueError, match="loss"):
        GradientBoostingRegressor(loss="log_loss").fit(X, y)


def test_bad_input_is_rejected():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="2 classes"):
        GradientBoostingClassifier().fit(X[:50], y[:50])
    with pytest.raises(ValueError, match="2 classes"):
        GradientBoostingClassifier().fit(X, y, sample_weight=(y == 0).astype(float))
    with pytest.raises(ValueError, match="Unknown label type|continuous"):
        GradientBoostingClassifier().fit(X, X[:, 0])
    X_inf = X.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="[Ii]nf"):
        GradientBoostingRegressor().fit(X_inf, y)
    with pytest.raises(ValueError, match="learning_rate"):
        GradientBoostingRegressor(learning_rate=0).fit(X, y)
    model = GradientBoostingRegressor(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])


def test_classifier_early_stopping_reports_every_score():
    X, y = load_breast_cancer(return_X_y=True)
    model = GradientBoostingClassifier(n_estimators=1000, n_iter_no_change=5, random_state=0).fit(X, y)
    assert 10 < model.n_estimators_ < 1000
    assert model.train_score_.dtype == np.float64 and np.all(np.isfinite(model.train_score_))
    assert model.train_score_.shape == (model.n_estimators_,) == (model.tree_roots_.shape[0],)


def test_targets_or_steps_that_overflow_are_refused_and_leave_the_model_unfitted():
    """y near 1e200 overflowed the split gains (a constant model, no warning), y near 1.7e308 or a
    learning rate of 1e300 the predictions (NaN): each is a ValueError that says so."""
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="magnitude up to"):
        GradientBoostingRegressor(n_estimators=5).fit(X, y * 1e200)
    model = GradientBoostingRegressor(n_estimators=5, learning_rate=1e300)
    with pytest.raises(ValueError, match="predictions overflowed"):
        model.fit(X, y)
    assert not hasattr(model, "nodes_") and not hasattr(model, "baseline_prediction_")
    kept = GradientBoostingRegressor(n_estimators=5, warm_start=True).fit(X, y)  # a refused warm start
    before = kept.predict(X[:5])
    with pytest.raises(ValueError, match="predictions overflowed"):
        kept.set_params(n_estimators=8, learning_rate=1e300).fit(X, y)
    assert kept.n_estimators_ == 5 and np.array_equal(kept.predict(X[:5]), before)
