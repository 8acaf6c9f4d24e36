"""LinearSVC (dual coordinate descent) against liblinear, optimality conditions and bad input."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC as SkLinearSVC

from lucidml.svm.linear_svc import LinearSVC


def _scaled(loader):
    X, y = loader(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _compare(X, y, dual=True, **params):
    ours = LinearSVC(dual=dual, random_state=0, **params).fit(X, y)
    theirs = SkLinearSVC(dual=True, random_state=0, **params).fit(X, y)
    W_ours = np.c_[ours.coef_, ours.intercept_]
    W_theirs = np.c_[theirs.coef_, np.broadcast_to(theirs.intercept_, len(theirs.coef_))]
    rel = np.abs(W_ours - W_theirs).max() / np.abs(W_theirs).max()
    return ours, theirs, rel


@pytest.mark.parametrize("loss, dual", [("squared_hinge", True), ("hinge", True), ("squared_hinge", False)])
@pytest.mark.parametrize("loader", [load_breast_cancer, load_iris, load_wine])
def test_matches_liblinear(loader, loss, dual):
    # measured: relative differences ≤ 2e-6 at tol=1e-6 for the dual (both stop on the same dual gradient
    # rule), ≤ 2e-11 for the primal Newton (exact once the violator set settles)
    X, y = _scaled(loader)
    ours, theirs, rel = _compare(X, y, dual=dual, loss=loss, C=1.0, tol=1e-6, max_iter=100_000)
    assert rel < (1e-4 if dual else 1e-6)  # the primal is exact: the rest is liblinear's tol
    assert abs(ours.score(X, y) - theirs.score(X, y)) <= 0.005
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)


@pytest.mark.parametrize("dual", [True, False])
def test_matches_liblinear_on_digits(dual):
    X, y = _scaled(load_digits)
    ours, theirs, rel = _compare(X, y, dual=dual, C=0.1, tol=1e-4)
    assert rel < 1e-2
    assert abs(ours.score(X, y) - theirs.score(X, y)) <= 0.005
    assert ours.coef_.shape == (10, 64) and ours.decision_function(X).shape == (len(y), 10)


@pytest.mark.parametrize("params", [{"class_weight": "balanced"}, {"class_weight": {0: 3.0, 1: 1.0, 2: 0.5}},
                                    {"fit_intercept": False, "loss": "hinge"}, {"intercept_scaling": 10.0},
                                    {"dual": False, "class_weight": "balanced", "intercept_scaling": 3.0},
                                    {"dual": False, "fit_intercept": False}])
def test_options_match_liblinear(params):
    X, y = _scaled(load_wine)  # unbalanced classes: class weights matter
    _, _, rel = _compare(X, y, tol=1e-8, max_iter=100_000, **params)
    assert rel < 1e-6


def test_primal_and_dual_reach_the_same_optimum():
    X, y = _scaled(load_breast_cancer)
    primal = LinearSVC(dual=False, tol=1e-10).fit(X, y)
    dual = LinearSVC(dual=True, tol=1e-10, max_iter=100_000).fit(X, y)
    np.testing.assert_allclose(primal.coef_, dual.coef_, rtol=1e-6, atol=1e-8)
    assert primal.n_iter_ < 20 < dual.n_iter_
    assert np.all(np.diff(primal.loss_curve_) <= 1e-9)  # primal objective falls
    assert primal.loss_curve_[-1] == pytest.approx(dual.loss_curve_[-1], rel=1e-8)  # duality gap closes


def test_sample_weight_matches_liblinear_and_zero_weight_drops_sample():
    X, y = _scaled(load_wine)
    sw = np.random.default_rng(0).uniform(0.0, 2.0, len(y))
    sw[:5] = 0.0
    ours = LinearSVC(dual=True, tol=1e-10, max_iter=100_000).fit(X, y, sample_weight=sw)
    theirs = SkLinearSVC(dual=True, tol=1e-10, max_iter=100_000).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-6, atol=1e-8)
    dropped = LinearSVC(tol=1e-10, max_iter=100_000).fit(X[5:], y[5:], sample_weight=sw[5:])
    np.testing.assert_allclose(ours.coef_, dropped.coef_, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("C, weight", [(1e3, 1.0), (1e5, 1.0), (1.0, 1e5)])
def test_the_primal_reaches_the_optimum_whatever_c_and_the_weights(C, weight):
    """The primal's stopping test bounds w's relative error, not the gradient against its value at
    w = 0 (which grows with C·weight: at C = 1e5 that test stopped on the first step, at an objective
    of 99.5 against 0.56, with no warning). Unweighted: 5 malignant tumours against all the benign."""
    X, y = _scaled(load_breast_cancer)
    keep = np.r_[np.flatnonzero(y == 0)[:5], np.flatnonzero(y == 1)]
    X, y = X[keep], y[keep]
    sw = np.where(y == 0, weight, 1.0)
    model = LinearSVC(C=C, dual=False).fit(X, y, sample_weight=sw)
    s = np.where(y == 1, 1.0, -1.0)
    Xt = np.c_[X, np.ones(len(y))]
    w = np.r_[model.coef_[0], model.intercept_[0]]
    grad = w - 2 * C * (sw * np.maximum(0.0, 1 - s * (Xt @ w)) * s) @ Xt
    assert np.linalg.norm(grad) <= 1e-4 * np.linalg.norm(w)  # hence ‖w − w*‖ ≤ 1e-4 ‖w‖ (1-strongly convex)
    best = LinearSVC(C=C, dual=False, tol=1e-12).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(model.coef_, best.coef_, rtol=0, atol=1e-3 * np.abs(best.coef_).max())


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
def test_primal_optimality(loss):
    """At the optimum the subgradient of P(w) = ½‖w̃‖² + C Σ ξᵢ contains 0 (checked through the dual α)."""
    X, y = _scaled(load_breast_cancer)
    C = 0.5
    model = LinearSVC(loss=loss, C=C, tol=1e-10, max_iter=100_000).fit(X, y)
    s = np.where(y == model.classes_[1], 1.0, -1.0)
    w = np.r_[model.coef_[0], model.intercept_[0]]  # intercept_scaling = 1: b is the last weight
    margin = s * model.decision_function(X)
    if loss == "squared_hinge":  # smooth: ∇P = w̃ − 2C Σ max(0, 1 − m)·s·x̃ = 0
        grad = w - 2 * C * (np.maximum(0.0, 1 - margin) * s) @ np.c_[X, np.ones(len(y))]
        assert np.abs(grad).max() < 1e-6
    else:  # α = C on violators (m < 1), 0 when m > 1: w̃ − Σ αᵢ sᵢ x̃ᵢ with α between on the margin
        Xt = np.c_[X, np.ones(len(y))]
        alpha = np.where(margin < 1 - 1e-6, C, 0.0)
        on = np.abs(margin - 1) <= 1e-6
        rest = w - (alpha * s) @ Xt
        a_on, *_ = np.linalg.lstsq((s[on, None] * Xt[on]).T, rest, rcond=None)
        assert np.abs((a_on * s[on]) @ Xt[on] - rest).max() < 1e-5
        assert np.all(a_on > -1e-6) and np.all(a_on < C + 1e-6)


def test_loss_curve_is_increasing_dual_and_reaches_primal():
    X, y = _scaled(load_breast_cancer)
    C = 1.0
    model = LinearSVC(dual=True, C=C, tol=1e-10, max_iter=100_000).fit(X, y)
    assert len(model.loss_curve_) == model.n_iter_
    assert np.all(np.diff(model.loss_curve_) >= -1e-9)
    s = np.where(y == model.classes_[1], 1.0, -1.0)
    w = np.r_[model.coef_[0], model.intercept_[0]]
    primal = 0.5 * w @ w + C * np.sum(np.maximum(0, 1 - s * model.decision_function(X)) ** 2)
    assert model.loss_curve_[-1] == pytest.approx(primal, rel=1e-7)


def test_reproducible_and_binary_labels():
    X, y = _scaled(load_breast_cancer)
    labels = np.array(["malignant", "benign"])[y]
    a = LinearSVC(dual=True, random_state=3).fit(X, labels)
    b = LinearSVC(dual=True, random_state=3).fit(X, labels)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.coef_.shape == (1, X.shape[1]) and a.decision_function(X).shape == (len(y),)
    assert set(a.predict(X)) <= set(labels)
    assert np.mean(a.predict(X) == labels) > 0.97


def test_convergence_warning():
    X, y = _scaled(load_digits)
    with pytest.warns(ConvergenceWarning):
        model = LinearSVC(dual=True, max_iter=2, tol=1e-8).fit(X, y)
    assert model.n_iter_ == 2


def test_bad_input():
    X, y = _scaled(load_iris)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LinearSVC().fit(bad, y)
    for C in (0.0, -1.0):
        with pytest.raises(ValueError, match="'C' parameter"):
            LinearSVC(C=C).fit(X, y)
    with pytest.raises(ValueError, match="loss"):
        LinearSVC(loss="log").fit(X, y)
    with pytest.raises(ValueError, match="hinge"):
        LinearSVC(loss="hinge", dual=False).fit(X, y)
    with pytest.raises(ValueError, match="2 classes"):
        LinearSVC().fit(X, np.zeros(len(y)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = LinearSVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])


def test_balanced_class_weight_counts_sample_weights_as_scikit_learn_does():
    from sklearn.datasets import load_iris
    from sklearn.svm import LinearSVC as SkLinearSVC

    X, y = load_iris(return_X_y=True)
    X, y = X[:120], y[:120]
    w = np.random.default_rng(0).uniform(0.2, 2.0, len(y))
    ours = LinearSVC(class_weight="balanced", dual=True, tol=1e-10, max_iter=100_000).fit(X, y, sample_weight=w)
    ref = SkLinearSVC(class_weight="balanced", dual=True, tol=1e-10, max_iter=100_000).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-4, atol=1e-5)


# -- Sparse and float32 input (issue 21) ---------------------------------------------------------


def _sparse_classes(seed=0):
    import scipy.sparse

    X = scipy.sparse.random(400, 300, density=0.03, format="csr", random_state=seed) * 2.0
    y = (X @ np.random.default_rng(seed).normal(size=(300, 3))).argmax(axis=1)
    return X, y


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
def test_sparse_dual_matches_scikit_learn(loss):
    X, y = _sparse_classes()
    ours = LinearSVC(loss=loss, tol=1e-10, max_iter=100_000).fit(X, y)
    ref = SkLinearSVC(loss=loss, dual=True, tol=1e-10, max_iter=100_000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-5)


def test_sparse_takes_the_dense_dual_steps():
    X, y = _sparse_classes(seed=1)
    sparse = LinearSVC(dual=True, random_state=0, max_iter=50).fit(X, y)
    dense = LinearSVC(dual=True, random_state=0, max_iter=50).fit(X.toarray(), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-12, atol=1e-14)
    assert sparse.n_iter_ == dense.n_iter_


def test_a_tall_sparse_x_gets_the_primal_and_the_dense_answer():
    """n > d: "auto" takes the primal Newton method for a sparse X too (scikit-learn's rule), and
    reaches the dense fit's optimum. It used to take the dual, which on unscaled data stopped at
    max_iter with an objective 9× the optimum (wine with half of each column zeroed: 1,000 passes
    against the primal's 7 Newton steps)."""
    import scipy.sparse

    X, y = load_wine(return_X_y=True)
    X = np.where(X < np.median(X, axis=0), 0.0, X)
    for params in ({}, {"class_weight": "balanced", "fit_intercept": False}):
        dense = LinearSVC(**params).fit(X, y)
        for sparse_X in (scipy.sparse.csr_matrix(X), scipy.sparse.csc_array(X)):
            sparse = LinearSVC(**params).fit(sparse_X, y)
            assert sparse.n_iter_ == dense.n_iter_ < 20
            np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X), atol=1e-10)
        single = LinearSVC(**params).fit(scipy.sparse.csr_matrix(X.astype(np.float32)), y)
        np.testing.assert_allclose(single.decision_function(X), dense.decision_function(X), atol=1e-5)
    X_tall, y_tall = _sparse_classes()
    X_tall = X_tall[:, :20]
    primal = LinearSVC(dual=False).fit(X_tall, y_tall)
    np.testing.assert_allclose(primal.coef_, LinearSVC(dual=False).fit(X_tall.toarray(), y_tall).coef_, atol=1e-12)


def test_a_sparse_x_of_many_features_is_solved_in_the_dual():
    import scipy.sparse

    from lucidml.svm.linear_svc import SPARSE_PRIMAL_MAX_FEATURES

    d = SPARSE_PRIMAL_MAX_FEATURES + 1
    X = scipy.sparse.random(d + 50, d, density=0.002, format="csr", random_state=0)
    y = np.arange(d + 50) % 2
    auto = LinearSVC(random_state=0).fit(X, y)
    np.testing.assert_array_equal(auto.coef_, LinearSVC(dual=True, random_state=0).fit(X, y).coef_)


def test_float32_input_gives_the_float64_model():
    X, y = _scaled(load_breast_cancer)
    single = LinearSVC(dual=True, random_state=0).fit(X.astype(np.float32), y)
    double = LinearSVC(dual=True, random_state=0).fit(X.astype(np.float32).astype(np.float64), y)
    np.testing.assert_array_equal(single.coef_, double.coef_)


def test_primal_newton_refuses_features_whose_squares_overflow():
    """Features near 1e150 make the primal's Newton matrix infinite: a ValueError that says so
    (not LinAlgError from the Cholesky factorization); the dual still fits them."""
    X, y = load_wine(return_X_y=True)
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0)) * 1e150
    with pytest.raises(ValueError, match="overflowed float64.*dual=True") as raised:
        LinearSVC(dual=False).fit(X, y)
    assert not isinstance(raised.value, np.linalg.LinAlgError)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert np.isfinite(LinearSVC(dual=True).fit(X, y).decision_function(X)).all()


def test_the_primal_converges_on_float32_data():
    """‖∇P‖ ≤ tol·‖w‖ is out of float32's reach on a float32 X: 1,000 Newton steps ran to max_iter
    with a ConvergenceWarning. The rounding floor of X's precision ends the run, at float64's model."""
    from sklearn.datasets import make_classification

    X, y = make_classification(20000, 50, random_state=0)
    X = X.astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        single = LinearSVC(dual=False).fit(X, y)
    exact = LinearSVC(dual=False, tol=1e-10).fit(X.astype(np.float64), y)  # the same values, in float64
    assert single.n_iter_ <= 10
    w, w_exact = np.r_[single.coef_[0], single.intercept_], np.r_[exact.coef_[0], exact.intercept_]
    # tol's bound, 1e-4, is out of reach in float32: ∇P = w − Σᵢ cᵢxᵢ cancels sums far larger than w
    # (here 3.5e-4 apart, relative)
    assert np.linalg.norm(w - w_exact) <= 1e-3 * np.linalg.norm(w_exact)


def _primal_objective(model, X, y, C):
    margins = (2 * y - 1) * model.decision_function(X)
    return 0.5 * model.coef_.ravel() @ model.coef_.ravel() + np.sum(C * np.maximum(0.0, 1.0 - margins) ** 2)


@pytest.mark.parametrize("sparse", [False, True])
def test_a_float32_newton_matrix_lost_to_rounding_is_solved_in_float64(sparse):
    """Two near-collinear features and an offset of 100 at C = 1e3: summed in float32, the dense
    Newton matrix I + 2ΣCᵢxᵢxᵢᵀ lost its positive definiteness (a ValueError); the problem is solved
    again on X in float64, as for the same float32 values passed as float64 (sparse: it held)."""
    import scipy.sparse

    rng = np.random.default_rng(0)
    base = rng.normal(size=(3000, 5))
    X = (np.column_stack([base, 2 * base[:, :2] + 1e-3 * rng.normal(size=(3000, 2))]) + 100).astype(np.float32)
    y = np.digitize(base[:, 0], [-0.5, 0.5])
    make = scipy.sparse.csr_matrix if sparse else np.asarray
    fitted = LinearSVC(C=1e3, dual=False, max_iter=2000).fit(make(X), y)
    expected = LinearSVC(C=1e3, dual=False, max_iter=2000).fit(make(X.astype(np.float64)), y)
    np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fitted.intercept_, expected.intercept_, rtol=1e-12, atol=1e-12)


def test_primal_newton_under_huge_sample_weights():
    """The floor test against ‖∇P(0)‖, which grows with C·sample_weight, stopped the primal early
    (objective 337.6 for 327.5 at weights near 1e12); a gradient beyond float64 (1e300) returned
    w = 0 after no step. The primal now ends when its violator set stops changing (the exact
    minimum), and an overflow is refused by name."""
    X, y = load_breast_cancer(return_X_y=True)
    X, y = StandardScaler().fit_transform(X)[:300], y[:300]
    weight = np.random.RandomState(42).randint(1, 4, len(X)).astype(float) * 1e12
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        primal = LinearSVC(dual=False, tol=1e-10, max_iter=100_000).fit(X, y, sample_weight=weight)
    dual = LinearSVC(dual=True, tol=1e-10, max_iter=100_000).fit(X, y, sample_weight=weight)
    # (Within rounding: at C·weight near 1e12 the Newton matrix's condition is near 1e14, and its steps
    # are that inexact where no violator pulls; 1.7e-5 above the dual's with OpenBLAS's Haswell
    # kernels, below 1e-6 with others. The early stop this guards against was 3% above.)
    assert _primal_objective(primal, X, y, weight) <= _primal_objective(dual, X, y, weight) * (1 + 1e-4)
    with pytest.raises(ValueError, match="overflowed float64"):
        LinearSVC(dual=False).fit(X, y, sample_weight=weight * 1e288)
