"""MLPClassifier / MLPRegressor: scikit-learn oracle, the notes' XOR network, API behaviour, bad input."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse
from sklearn.datasets import load_diabetes, load_digits, load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier as SkMLPClassifier
from sklearn.neural_network import MLPRegressor as SkMLPRegressor
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from lucidml.neural.mlp import MLPClassifier, MLPRegressor

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X / 16.0, y, test_size=0.3, random_state=0, stratify=y)


@pytest.mark.parametrize("params", [
    {"solver": "adam"},
    {"solver": "sgd", "learning_rate_init": 0.05},
    {"solver": "sgd", "nesterovs_momentum": False, "learning_rate": "invscaling", "learning_rate_init": 0.1},
    {"solver": "adam", "early_stopping": True},
    {"solver": "lbfgs"},
])
def test_same_weights_as_sklearn(digits, params):
    # Same initialization, shuffling and update rule: the runs agree to round-off.
    Xtr, _, ytr, _ = digits
    kw = {"hidden_layer_sizes": (30,), "max_iter": 8, "random_state": 0, **params}
    with threadpool_limits(1):
        ours, theirs = MLPClassifier(**kw).fit(Xtr, ytr), SkMLPClassifier(**kw).fit(Xtr, ytr)
    for a, b in zip(ours.coefs_ + ours.intercepts_, theirs.coefs_ + theirs.intercepts_, strict=True):
        assert np.max(np.abs(a - b)) < 1e-9
    assert ours.loss_ == pytest.approx(theirs.loss_, rel=1e-9)
    assert ours.n_iter_ == theirs.n_iter_


def test_digits_accuracy_within_one_point_of_sklearn(digits):
    Xtr, Xte, ytr, yte = digits
    kw = {"hidden_layer_sizes": (50,), "batch_size": 100, "max_iter": 15, "alpha": 1e-3, "learning_rate_init": 0.003}
    with threadpool_limits(1):  # scikit-learn's small products are slow on several threads
        ours = np.mean([MLPClassifier(random_state=s, **kw).fit(Xtr, ytr).score(Xte, yte) for s in range(3)])
        theirs = np.mean([SkMLPClassifier(random_state=s, **kw).fit(Xtr, ytr).score(Xte, yte) for s in range(3)])
    assert ours > 0.94
    assert abs(ours - theirs) <= 0.01


def test_diabetes_r2_close_to_sklearn():
    X, y = load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(StandardScaler().fit_transform(X), y / y.std(), random_state=0)
    kw = {"hidden_layer_sizes": (10,), "solver": "lbfgs", "alpha": 30.0, "max_iter": 200, "random_state": 0}
    with threadpool_limits(1):
        ours = MLPRegressor(**kw).fit(Xtr, ytr).score(Xte, yte)
        theirs = SkMLPRegressor(**kw).fit(Xtr, ytr).score(Xte, yte)
    assert ours > 0.35  # measured 0.378, as scikit-learn's
    assert ours == pytest.approx(theirs, abs=1e-6)


def test_xor_with_the_notes_network():
    # 000 §5.3: sigmoid 2-2-1 net, U(−10, 10) weights, batches of 2, α = 0.1 on summed gradients
    # (η = 0.2 on the mean), decoupled decay β = 1e-4, forward pass once per epoch.
    X = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=float)
    y = np.array([1, 0, 0, 1])
    clf = MLPClassifier(hidden_layer_sizes=(2,), activation="logistic", solver="sgd", momentum=0.0,
                        learning_rate_init=0.2, batch_size=2, shuffle=False, init=("uniform", 10), alpha=1e-4,
                        weight_decay="decoupled", forward_per="epoch", max_iter=1000, tol=0.0, random_state=6)
    proba = clf.fit(X, y).predict_proba(X)[:, 1]
    assert np.all(proba[[0, 3]] > 0.9) and np.all(proba[[1, 2]] < 0.1)


@pytest.mark.parametrize("seed", range(2))
def test_xor_is_learned_from_any_start(seed):
    X = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=float)
    y = np.array([1, 0, 0, 1])
    clf = MLPClassifier(hidden_layer_sizes=(4,), activation="tanh", solver="lbfgs", random_state=seed).fit(X, y)
    assert np.array_equal(clf.predict(X), y)


def test_linear_targets_are_fitted_by_a_linear_network():
    # Property: with identity activations the network is linear, so it fits y = Xw exactly.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X @ np.array([1.0, -2.0, 0.5])
    reg = MLPRegressor(hidden_layer_sizes=(4,), activation="identity", solver="lbfgs", alpha=0.0, tol=1e-12,
                       random_state=0).fit(X, y)
    assert np.max(np.abs(reg.predict(X) - y)) < 1e-4


def test_loss_curve_decreases_with_full_batch_gradient_descent():
    X, y = load_iris(return_X_y=True)
    clf = MLPClassifier(hidden_layer_sizes=(10,), solver="gd", learning_rate_init=0.1, momentum=0.0, max_iter=50,
                        tol=0.0, random_state=0).fit(StandardScaler().fit_transform(X), y)
    assert np.all(np.diff(clf.loss_curve_) < 0)
    assert clf.n_iter_ == 50 and clf.t_ == 50 * len(y)


def test_float32_is_kept_and_float64_agrees(digits):
    Xtr, Xte, ytr, _ = digits
    kw = {"hidden_layer_sizes": (20,), "max_iter": 3, "random_state": 0}
    c32 = MLPClassifier(**kw).fit(Xtr.astype(np.float32), ytr)
    c64 = MLPClassifier(**kw).fit(Xtr, ytr)
    assert c32.coefs_[0].dtype == np.float32 and c32.predict_proba(Xte.astype(np.float32)).dtype == np.float32
    assert c32.predict_proba(Xte).dtype == np.float64  # float64 queries answered in float64, as scikit-learn's
    assert np.allclose(c32.coefs_[0], c64.coefs_[0], atol=1e-4)


def test_sparse_input_gives_the_dense_fit(digits):
    Xtr, Xte, ytr, _ = digits
    kw = {"hidden_layer_sizes": (20,), "max_iter": 3, "random_state": 0}
    dense = MLPClassifier(**kw).fit(Xtr, ytr)
    sparse = MLPClassifier(**kw).fit(scipy.sparse.csr_matrix(Xtr), ytr)
    assert np.allclose(dense.predict_proba(Xte), sparse.predict_proba(scipy.sparse.csr_matrix(Xte)), atol=1e-10)


def test_partial_fit_and_pickle_keep_training_the_same_network(digits):
    Xtr, _, ytr, _ = digits
    clf = MLPClassifier(hidden_layer_sizes=(20,), random_state=0)
    clf.partial_fit(Xtr, ytr, classes=np.arange(10))
    clone = pickle.loads(pickle.dumps(clf))
    clf.partial_fit(Xtr, ytr)
    clone.partial_fit(Xtr, ytr)
    assert np.allclose(clf.coefs_[0], clone.coefs_[0])
    assert clf.t_ == 2 * len(ytr)


def test_warm_start_continues_from_the_previous_weights(digits):
    Xtr, _, ytr, _ = digits
    clf = MLPClassifier(hidden_layer_sizes=(20,), max_iter=2, warm_start=True, random_state=0).fit(Xtr, ytr)
    first = clf.loss_
    clf.fit(Xtr, ytr)
    assert clf.loss_curve_[-1] < first and len(clf.loss_curve_) == 4


def test_sigmoid_outputs_and_multilabel():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    clf = MLPClassifier(hidden_layer_sizes=(10,), output="sigmoid", solver="lbfgs", max_iter=100,
                        random_state=0).fit(X, y)
    assert clf.out_activation_ == "logistic" and clf.score(X, y) > 0.95
    assert np.allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    Y = np.column_stack([y == 0, y == 2]).astype(int)
    multi = MLPClassifier(hidden_layer_sizes=(10,), solver="lbfgs", max_iter=100, random_state=0).fit(X, Y)
    assert multi.predict(X).shape == Y.shape and (multi.predict(X) == Y).mean() > 0.95


def test_poisson_regression_on_counts():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = rng.poisson(np.exp(0.5 * X[:, 0]))
    reg = MLPRegressor(loss="poisson", hidden_layer_sizes=(5,), solver="lbfgs", random_state=0).fit(X, y)
    assert reg.out_activation_ == "exp" and np.all(reg.predict(X) > 0)
    assert np.corrcoef(reg.predict(X), np.exp(0.5 * X[:, 0]))[0, 1] > 0.9
    with pytest.raises(ValueError, match="non-negative"):
        MLPRegressor(loss="poisson").fit(X, -np.abs(y) - 1.0)


def test_convergence_warning_at_max_iter(digits):
    Xtr, _, ytr, _ = digits
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        MLPClassifier(hidden_layer_sizes=(5,), max_iter=2, random_state=0).fit(Xtr, ytr)
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)


def test_bad_input():
    X, y = np.random.default_rng(0).normal(size=(20, 3)), np.arange(20) % 2
    with pytest.raises(ValueError, match="NaN"):
        MLPClassifier().fit(np.where(X > 1.5, np.nan, X), y)
    with pytest.raises(ValueError, match="one class"):
        MLPClassifier().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="classes must be passed"):
        MLPClassifier().partial_fit(X, y)
    clf = MLPClassifier(max_iter=2).partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="outside the classes"):
        clf.partial_fit(X, y + 1)
    with pytest.raises(ValueError, match="hidden_layer_sizes"):
        MLPClassifier(hidden_layer_sizes=(3, 0)).fit(X, y)
    with pytest.raises(ValueError, match="init"):
        MLPClassifier(init=("uniform", -1)).fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        MLPClassifier(solver="newton").fit(X, y)
    with pytest.raises(AttributeError, match="partial_fit"):
        MLPRegressor(solver="lbfgs").partial_fit(X, y)


@pytest.mark.parametrize("shape", [(3000, 5), (3000, 40), (10, 5), (2000, 1)])
def test_softmax_by_columns_or_by_rows_is_the_formula(shape):
    """Many rows of few classes are reduced column by column (activations._row_reduce); every shape
    gives exp(z − max z) / Σ exp(z − max z), rows summing to 1."""
    from lucidml.neural.activations import ACTIVATIONS

    Z = np.random.default_rng(0).normal(size=shape) * 30
    expected = np.exp(Z - Z.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    P = ACTIVATIONS["softmax"].apply_(Z.copy())
    np.testing.assert_allclose(P, expected, rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-13)


def test_lbfgs_says_when_its_line_search_fails_and_refuses_a_loss_that_overflowed():
    """scipy's L-BFGS-B ends with status 2 when its line search fails: the network was returned
    untrained (n_iter_ 0, R² 0) with no warning. A loss that overflowed (NaN) is refused."""
    X, _ = load_iris(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    with pytest.warns(ConvergenceWarning, match="stopped before converging"):
        MLPRegressor(hidden_layer_sizes=(5,), solver="lbfgs", random_state=0).fit(X, X[:, 0] * 1e50)
    with pytest.raises(ValueError, match="loss of nan"):
        MLPRegressor(hidden_layer_sizes=(5,), solver="lbfgs", random_state=0).fit(X, X[:, 0] * 1e160)


def test_a_mini_batch_of_zero_weight_is_skipped():
    """Half the samples of weight 0 and batches of 4: some batches weigh nothing, whose mean loss
    was 0/0 (reported as non-finite weights). They are skipped; the fit equals the fit on the rest
    in what it learns."""
    X, y = load_iris(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    weights = (np.random.RandomState(0).rand(150) < 0.5).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = MLPClassifier((10,), batch_size=4, random_state=0, max_iter=50).fit(X, y, sample_weight=weights)
    assert np.all(np.isfinite(model.loss_curve_)) and model.score(X, y) > 0.9


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("solver", ["lbfgs", "adam"])
def test_sample_weights_of_any_scale_in_float32_too(dtype, solver):
    """The weights were cast to X's precision: in float32, weights near 1e37 overflowed their sum (a
    NaN loss, accuracy 0.5, silently) and 1e±300 read as infinite or zero. They now go in units of
    a power of two near their largest, with α divided by the same unit (the same penalty α/Σsᵢ)."""
    from sklearn.datasets import make_classification

    from lucidml.neural import MLPClassifier

    X, y = make_classification(300, 5, random_state=0)
    X = X.astype(dtype)
    make = lambda: MLPClassifier(hidden_layer_sizes=(8,), solver=solver, random_state=0, max_iter=60, alpha=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = make().fit(X, y)
        for scale in (1e37, 1e300):
            heavy = make().fit(X, y, sample_weight=np.full(300, scale))
            assert np.isfinite(heavy.loss_) and heavy.score(X, y) >= plain.score(X, y) - 0.02
    with pytest.raises(ValueError, match="penalty α/Σsᵢ swamps the data"):
        MLPClassifier(solver=solver, alpha=1e-4).fit(X, y, sample_weight=np.full(300, 1e-300))


def test_decoupled_weight_decay_takes_tiny_sample_weights():
    """The penalty limit α/Σsᵢ concerns the coupled penalty only: decoupled decay ignores Σsᵢ."""
    from sklearn.datasets import make_classification

    from lucidml.neural import MLPClassifier

    X, y = make_classification(120, 4, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = MLPClassifier(solver="adam", weight_decay="decoupled", max_iter=20, random_state=0)
        assert np.isfinite(model.fit(X, y, sample_weight=np.full(120, 1e-110)).loss_)
    with pytest.raises(ValueError, match="divided by the number of samples"):
        MLPClassifier(alpha=1e103).fit(X, y)
