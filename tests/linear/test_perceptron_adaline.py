"""Perceptron and Adaline: against scikit-learn's SGD, least squares, Thm 3.8 and XOR (002 §3.2–3.3)."""

import warnings

import numpy as np
import pytest
from sklearn import datasets, linear_model
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from lucidml.linear.adaline import Adaline
from lucidml.linear.perceptron import Perceptron
from lucidml.utils import InvalidParameterError

SKLEARN_DEFAULTS = {"eta0": 1.0, "max_iter": 1000, "tol": 1e-3}


def _standardized(loader):
    X, y = loader(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module", params=["iris", "breast_cancer", "digits"])
def real_data(request):
    return request.param, _standardized(getattr(datasets, f"load_{request.param}"))


def _lstsq_on_pm1(X, y):
    """The least-squares fit of the ±1 one-vs-rest targets, (coef (k, d), intercept (k,))."""
    classes = np.unique(y)
    Y = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
    Y = Y[:, 1:] if len(classes) == 2 else Y
    A = np.column_stack([X, np.ones(len(X))])
    solution = np.linalg.lstsq(A, Y, rcond=None)[0]
    return solution[:-1].T, solution[-1]


# -- Perceptron ----------------------------------------------------------------------------------


def test_perceptron_equals_sklearn_when_configured_identically(real_data):
    # Same rule (update iff y·z ≤ 0), same order, same stopping rule: the same weights, bit for bit.
    _, (X, y) = real_data
    ours = Perceptron(**SKLEARN_DEFAULTS, shuffle=False).fit(X, y)
    ref = linear_model.Perceptron(**SKLEARN_DEFAULTS, shuffle=False).fit(X, y)
    np.testing.assert_array_equal(ours.coef_, ref.coef_)
    np.testing.assert_array_equal(ours.intercept_, ref.intercept_)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert ours.n_iter_ <= ref.n_iter_  # lucidml also stops after a mistake-free epoch


@pytest.mark.parametrize("loader", [datasets.load_breast_cancer, datasets.load_digits])
def test_perceptron_shuffled_accuracy_matches_sklearn(loader):
    # Different random orders, so compare the mean training accuracy over 10 seeds (its spread
    # is < 0.5 pp on these sets; iris, whose accuracy swings by ±6 pp with the order, is left out).
    X, y = _standardized(loader)
    ours = [Perceptron(**SKLEARN_DEFAULTS, shuffle=True, random_state=s).fit(X, y).score(X, y) for s in range(10)]
    ref = [linear_model.Perceptron(**SKLEARN_DEFAULTS, random_state=s).fit(X, y).score(X, y) for s in range(10)]
    assert abs(np.mean(ours) - np.mean(ref)) < 0.015


@pytest.mark.parametrize("average", [True, 100])
def test_averaged_perceptron_equals_sklearn_sgd(average):
    X, y = _standardized(datasets.load_breast_cancer)
    params = {**SKLEARN_DEFAULTS, "shuffle": False, "average": average}
    ours = Perceptron(**params).fit(X, y)
    ref = linear_model.SGDClassifier(loss="perceptron", penalty=None, learning_rate="constant", **params).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-10, atol=1e-12)


def _naive_average(X, y_pm1, eta, n_epochs, start):
    """The mean of (w, b) over steps start, start+1, ..., one step per sample, by brute force."""
    w, b, total_w, total_b, count, step = np.zeros(X.shape[1]), 0.0, np.zeros(X.shape[1]), 0.0, 0, 0
    for _ in range(n_epochs):
        for x, t in zip(X, y_pm1):
            step += 1
            if t * (w @ x + b) <= 0:
                w, b = w + eta * t * x, b + eta * t
            if step >= start:
                total_w, total_b, count = total_w + w, total_b + b, count + 1
    return total_w / count, total_b / count


@pytest.mark.parametrize("average", [True, 7, 50])
def test_lazy_averaging_equals_the_plain_mean(average):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=30) > 0).astype(int)  # noisy: never mistake-free
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = Perceptron(eta0=0.5, max_iter=3, average=average).fit(X, y)
    w, b = _naive_average(X, 2.0 * y - 1.0, 0.5, 3, int(average))
    np.testing.assert_allclose(clf.coef_[0], w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_[0], b, rtol=1e-12, atol=1e-12)


def test_perceptron_never_converges_on_xor():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([0, 1, 1, 0])
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        clf = Perceptron(eta0=1.0, max_iter=50).fit(X, y)
    assert clf.n_iter_ == 50
    assert np.all(clf.mistake_curve_ > 0)
    assert clf.score(X, y) < 1.0


def test_mistake_bound_on_separable_data_with_margin():
    # Thm 3.8: at most R²/γ² mistakes when a unit ŵ separates with margin γ (no intercept).
    rng = np.random.default_rng(1)
    w_hat = np.array([3.0, -4.0, 0.0, 12.0]) / 13.0
    X = rng.uniform(-1, 1, size=(2000, 4))
    margin = X @ w_hat
    X, margin = X[np.abs(margin) >= 0.1], margin[np.abs(margin) >= 0.1]
    y = np.where(margin > 0, "pos", "neg")
    gamma, radius = np.abs(margin).min(), np.linalg.norm(X, axis=1).max()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = Perceptron(eta0=0.01, max_iter=1000, fit_intercept=False).fit(X, y)
    assert clf.mistake_curve_[-1] == 0 and clf.n_iter_ < 1000
    assert clf.mistake_curve_.sum() <= radius**2 / gamma**2
    assert clf.score(X, y) == 1.0 and clf.loss_curve_[-1] == 0.0


def test_learning_rate_only_scales_the_weights():
    X, y = _standardized(datasets.load_iris)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        small = Perceptron(eta0=0.01, max_iter=20).fit(X, y)
        large = Perceptron(eta0=1.0, max_iter=20).fit(X, y)
    np.testing.assert_allclose(large.coef_, 100 * small.coef_, rtol=1e-9)
    np.testing.assert_array_equal(large.predict(X), small.predict(X))


def test_perceptron_partial_fit_is_one_epoch_of_fit():
    X, y = _standardized(datasets.load_breast_cancer)
    with pytest.warns(ConvergenceWarning):
        full = Perceptron(max_iter=4).fit(X, y)
    stream = Perceptron()
    for _ in range(4):
        stream.partial_fit(X, y, classes=[0, 1])
    np.testing.assert_array_equal(stream.coef_, full.coef_)
    np.testing.assert_array_equal(stream.intercept_, full.intercept_)
    np.testing.assert_allclose(stream.loss_curve_, full.loss_curve_)


def test_shuffling_is_seeded_by_random_state():
    X, y = _standardized(datasets.load_breast_cancer)
    a, b, c = (Perceptron(shuffle=True, max_iter=3, random_state=s) for s in (0, 0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a.fit(X, y), b.fit(X, y), c.fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)


def test_shapes_labels_and_the_tie_rule():
    X, y = _standardized(datasets.load_wine)
    labels = np.array(["a", "b", "c"])[y]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        multi = Perceptron().fit(X, labels)
        binary = Perceptron().fit(X, labels == "a")
    assert multi.coef_.shape == (3, 13) and multi.intercept_.shape == (3,)
    assert multi.decision_function(X).shape == (len(X), 3)
    assert set(multi.predict(X)) <= {"a", "b", "c"}
    assert binary.coef_.shape == (1, 13) and binary.decision_function(X).shape == (len(X),)
    # One-vs-rest: each row of a multiclass fit is the binary fit of that class against the rest.
    np.testing.assert_array_equal(multi.coef_[0], binary.coef_[0])
    binary.coef_[:], binary.intercept_[:] = 0.0, 0.0  # z = 0 everywhere: + (classes_[1]) wins the tie
    assert np.all(binary.predict(X[:3]) == binary.classes_[1])


def test_perceptron_bad_input():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="1 class"):
        Perceptron().fit(X, [1, 1, 1])
    with pytest.raises(ValueError, match="NaN"):
        Perceptron().fit([[np.nan, 1.0], [1.0, 0.0]], [0, 1])
    with pytest.raises(ValueError, match="Unknown label type"):
        Perceptron().fit(X, [0.5, 1.5, 2.7])
    with pytest.raises(InvalidParameterError, match="eta0"):
        Perceptron(eta0=0.0).fit(X, [0, 1, 1])
    with pytest.raises(InvalidParameterError, match="average"):
        Perceptron(average=-1).fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="classes must be passed"):
        Perceptron().partial_fit(X, [0, 1, 1])
    clf = Perceptron().partial_fit(X, [0, 1, 1], classes=[0, 1])
    with pytest.raises(ValueError, match="not in classes"):
        clf.partial_fit(X, [0, 1, 2])
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.ones((2, 3)))


# -- Adaline -------------------------------------------------------------------------------------


@pytest.mark.parametrize("loader", [datasets.load_iris, datasets.load_wine, datasets.load_digits])
def test_batch_adaline_converges_to_least_squares(loader):
    X, y = _standardized(loader)
    A = np.column_stack([X, np.ones(len(X))])
    lipschitz = np.linalg.eigvalsh(A.T @ A / len(X))[-1]
    clf = Adaline(solver="batch", eta0=1.9 / lipschitz, tol=1e-12, max_iter=5000).fit(X, y)
    coef, intercept = _lstsq_on_pm1(X, y)  # digits: rank deficient; GD from 0 gives the min-norm one
    np.testing.assert_allclose(clf.coef_, coef, atol=1e-4)
    np.testing.assert_allclose(clf.intercept_, intercept, atol=1e-4)
    assert np.all(np.diff(clf.loss_curve_) <= 1e-12)  # gradient descent on a quadratic descends


@pytest.mark.parametrize("solver", ["sgd", "minibatch"])
def test_stochastic_adaline_with_decaying_rate_approaches_least_squares(solver):
    X, y = _standardized(datasets.load_wine)
    n, batch = len(X), 1 if solver == "sgd" else 8
    clf = Adaline(
        solver=solver, batch_size=batch, eta0=0.01 * batch, learning_rate="invscaling", power_t=0.75,
        t0=5 * n / batch, tol=None, max_iter=300, random_state=0,
    ).fit(X, y)  # fmt: skip
    coef, intercept = _lstsq_on_pm1(X, y)
    assert np.linalg.norm(clf.coef_ - coef) < 0.03 * np.linalg.norm(coef)
    np.testing.assert_allclose(clf.intercept_, intercept, atol=0.02)


@pytest.mark.parametrize("learning_rate", ["constant", "invscaling"])
def test_sgd_adaline_equals_sklearn_squared_error_sgd(learning_rate):
    X, y = _standardized(datasets.load_iris)
    params = {"eta0": 0.001, "learning_rate": learning_rate, "max_iter": 1000, "tol": 1e-4, "shuffle": False}
    ours = Adaline(solver="sgd", **params).fit(X, y)
    ref = linear_model.SGDClassifier(loss="squared_error", penalty=None, **params).fit(X, y)
    np.testing.assert_array_equal(ours.coef_, ref.coef_)
    np.testing.assert_array_equal(ours.intercept_, ref.intercept_)
    assert ours.n_iter_ == ref.n_iter_


@pytest.mark.parametrize("solver, eta0", [("batch", 0.1), ("sgd", 0.0005), ("minibatch", 0.005)])
def test_adaline_accuracy_matches_least_squares_classifier(real_data, solver, eta0):
    _, (X, y) = real_data
    clf = Adaline(solver=solver, eta0=eta0, tol=1e-6, max_iter=3000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        accuracy = clf.fit(X, y).score(X, y)
    reference = linear_model.RidgeClassifier(alpha=1e-8).fit(X, y).score(X, y)
    assert abs(accuracy - reference) <= 0.01 + 1.0 / len(y)


def test_standardize_fits_the_scaled_problem_in_original_units():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    raw = Adaline(solver="batch", eta0=0.1, standardize=True, tol=None, max_iter=200).fit(X, y)
    scaler = StandardScaler().fit(X)
    scaled = Adaline(solver="batch", eta0=0.1, tol=None, max_iter=200).fit(scaler.transform(X), y)
    np.testing.assert_allclose(raw.decision_function(X), scaled.decision_function(scaler.transform(X)), atol=1e-9)
    np.testing.assert_allclose(raw.coef_, scaled.coef_ / scaler.scale_, rtol=1e-9)


def test_adaline_partial_fit_is_one_epoch_of_fit():
    X, y = _standardized(datasets.load_iris)
    full = Adaline(shuffle=False, learning_rate="invscaling", tol=None, max_iter=3).fit(X, y)
    stream = Adaline(shuffle=False, learning_rate="invscaling")
    for _ in range(3):
        stream.partial_fit(X, y, classes=np.unique(y))
    np.testing.assert_array_equal(stream.coef_, full.coef_)  # the rate schedule continues across calls
    assert stream.loss_curve_.shape == (3,)


def test_adaline_divergence_and_max_iter_are_reported():
    X, y = datasets.load_breast_cancer(return_X_y=True)  # unscaled features up to ~4000
    with pytest.raises(ValueError, match="overflowed.*eta0"):
        Adaline(eta0=0.01).fit(X, y)
    with pytest.warns(ConvergenceWarning):
        Adaline(solver="batch", max_iter=3, standardize=True).fit(X, y)


def test_adaline_bad_parameters():
    X, y = np.eye(3), [0, 1, 1]
    for params in ({"solver": "newton"}, {"learning_rate": "optimal"}, {"batch_size": 0}, {"t0": 0.0}):
        with pytest.raises(InvalidParameterError):
            Adaline(**params).fit(X, y)
    with pytest.raises(ValueError, match="1 class"):
        Adaline().fit(X, [2, 2, 2])


# -- Sparse and float32 input (issue 21) ---------------------------------------------------------


def _sparse_text_like(seed=0):
    """A non-negative sparse matrix with 5% stored entries and three classes that depend on it."""
    import scipy.sparse

    X = scipy.sparse.random(300, 200, density=0.05, format="csr", random_state=seed)
    scores = X @ np.random.default_rng(seed).normal(size=(200, 3))
    return X, scores.argmax(axis=1)


def test_sparse_perceptron_takes_scikit_learns_dense_steps():
    """The same rule on the stored entries only: scikit-learn's weights on the dense matrix. (Its own
    sparse SGD damps every intercept step by 0.01, a different model; lucidml keeps the rule.)"""
    X, y = _sparse_text_like()
    params = {**SKLEARN_DEFAULTS, "shuffle": False}
    ours = Perceptron(**params).fit(X, y)
    ref = linear_model.Perceptron(**params).fit(X.toarray(), y)
    np.testing.assert_array_equal(ours.coef_, ref.coef_)
    np.testing.assert_array_equal(ours.intercept_, ref.intercept_)
    # Averaging (lazy, through the same row updates) on sparse rows gives the dense result.
    params = {**SKLEARN_DEFAULTS, "shuffle": True, "random_state": 0, "average": 50}
    sparse, dense = Perceptron(**params).fit(X, y), Perceptron(**params).fit(X.toarray(), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("solver", ["sgd", "minibatch", "batch"])
def test_sparse_adaline_takes_the_dense_steps(solver):
    X, y = _sparse_text_like(seed=1)
    params = {"solver": solver, "eta0": 0.01, "max_iter": 20, "tol": None, "shuffle": True, "random_state": 3}
    sparse, dense = Adaline(**params).fit(X, y), Adaline(**params).fit(X.toarray(), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(sparse.loss_curve_, dense.loss_curve_, rtol=1e-12)


def test_sparse_adaline_refuses_to_standardize():
    X, y = _sparse_text_like()
    with pytest.raises(TypeError, match="densify"):
        Adaline(standardize=True).fit(X, y)


@pytest.mark.parametrize("model", [Perceptron(**SKLEARN_DEFAULTS, shuffle=False), Adaline(eta0=0.01, random_state=0)])
def test_float32_input_is_read_without_a_float64_copy_and_answered_in_float32(model):
    """The steps sum in float64 the products of the float32 values themselves (no rounding of a
    float64 copy), and the public weights and scores are float32, as scikit-learn's SGD models."""
    X, y = _standardized(datasets.load_breast_cancer)
    single = clone(model).fit(X.astype(np.float32), y)
    double = clone(model).fit(X.astype(np.float32).astype(np.float64), y)
    assert single.coef_.dtype == single.intercept_.dtype == np.float32
    np.testing.assert_array_equal(single.coef_, double.coef_.astype(np.float32))  # the same products, rounded once
    np.testing.assert_array_equal(single.intercept_, double.intercept_.astype(np.float32))
    assert single.decision_function(X.astype(np.float32)).dtype == np.float32
    assert double.coef_.dtype == np.float64 and single.decision_function(X).dtype == np.float64


def test_adaline_default_rate_does_not_diverge_on_unscaled_features():
    """eta0='auto' is 1 / maxᵢ ‖(xᵢ, 1)‖²: the fixed 0.01 overflows on these features (see above), the default fits."""
    X, y = datasets.load_breast_cancer(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = Adaline(random_state=0).fit(X, y)
    assert clf.eta0_ == pytest.approx(1.0 / (np.max(np.sum(X**2, axis=1)) + 1.0))
    assert np.all(np.isfinite(clf.coef_)) and clf.score(X, y) > 0.6
    X, y = _standardized(datasets.load_iris)
    assert Adaline(eta0=0.3, max_iter=2, tol=None).fit(X, y).eta0_ == 0.3  # a number is used as given


@pytest.mark.parametrize("model", ["LogisticRegression", "SoftmaxRegression", "LeastSquaresClassifier", "Perceptron",
                                   "Adaline"])
def test_a_refused_refit_leaves_the_previous_model(model):
    """A refit refused after its labels were read (a NaN weight) kept the new classes_ beside the
    old coef_: predict answered 'x'/'y' with the weights of the a/b fit. The previous model now
    stands, whole, as after a refit refused by scikit-learn's checks before any work."""
    import lucidml.linear

    rng = np.random.RandomState(0)
    X = rng.randn(30, 2)
    fitted = getattr(lucidml.linear, model)().fit(X, np.array(["a", "b"] * 15))
    before = fitted.predict(X)
    with pytest.raises(ValueError):
        fitted.fit(X, np.array(["x", "y", "z"] * 10), sample_weight=np.r_[np.nan, np.ones(29)])
    np.testing.assert_array_equal(fitted.predict(X), before)
    assert list(fitted.classes_) == ["a", "b"]


@pytest.mark.parametrize("model", [Perceptron, Adaline])
def test_a_refused_first_partial_fit_leaves_the_model_unfitted(model):
    from sklearn.exceptions import NotFittedError

    X, y = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0]]), np.array([0, 1, 2])
    learner = model()
    with pytest.raises(ValueError, match="not in classes"):
        learner.partial_fit(X, y, classes=[0, 1])
    with pytest.raises(NotFittedError):
        learner.predict(X)
    learner.partial_fit(X, np.array([0, 1, 1]), classes=[0, 1])  # and a good first batch starts it
    assert learner.predict(X).shape == (3,)


def test_batch_adaline_with_a_step_beyond_2_over_l_warns_that_it_diverges():
    """eta0=2.5 took J from 0.5 to 317 in 5 epochs; the no-gain rule called that converged (accuracy 32%)."""
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    y = (X @ [1, 2, 3] > 0).astype(int)
    with pytest.warns(ConvergenceWarning, match="loss rose from 0.5 to .* diverge"):
        Adaline(solver="batch", eta0=2.5).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Adaline(solver="batch").fit(X, y).score(X, y) > 0.9


def test_linear_regression_gradient_descent_that_diverges_is_refused():
    """A step beyond 2/L sent the loss to inf; the fit returned coefficients near 1e160 with a
    warning that it stopped at max_iter (it stopped at 593 of 1000)."""
    from lucidml.linear import LinearRegression

    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    y = X @ [1, 2, 3] + 0.1 * rng.randn(60)
    for eta0 in (2.5, 1e10):
        with pytest.raises(ValueError, match="diverged.*lower eta0"):
            LinearRegression(solver="gd", eta0=eta0).fit(X, y)


@pytest.mark.parametrize("solver", ["sgd", "batch"])
def test_auto_rate_allows_for_the_sample_weights(solver):
    """A weighted step is η·sᵢ: with weights of 30 the 'auto' rate overshot every step (sgd: |w| near
    1e261, an infinite loss, no warning; batch at weights of 1e6: accuracy 0.07). Constant weights
    now give the unweighted model."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:, :5]
    plain = Adaline(solver=solver, random_state=0).fit(X, y)
    for scale in (30.0, 1e6):
        with warnings.catch_warnings():  # (the no-gain rule reads the loss in weighted units: it may run on)
            warnings.simplefilter("ignore", ConvergenceWarning)
            heavy = Adaline(solver=solver, random_state=0).fit(X, y, sample_weight=np.full(len(y), scale))
        assert heavy.score(X, y) >= plain.score(X, y) - 0.02
        assert np.abs(heavy.coef_).max() < 10 * np.abs(plain.coef_).max()


def test_perceptron_with_huge_sample_weights_still_fits():
    """The loss check meant for Adaline refused a Perceptron whose Σsᵢ(−yᵢzᵢ) overflowed at weights of
    1e160, though its weights stayed finite and its predictions meaningful."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    plain = Perceptron(random_state=0).fit(X, y)
    heavy = Perceptron(random_state=0).fit(X, y, sample_weight=np.full(len(y), 1e160))
    np.testing.assert_array_equal(heavy.predict(X), plain.predict(X))
