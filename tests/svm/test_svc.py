"""SVC against scikit-learn's libsvm-based SVC, and its own behaviour."""

import warnings

import numpy as np
import pytest
from sklearn import svm as sk_svm
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_iris,
    make_blobs,
    make_classification,
    make_moons,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import StandardScaler

from lucidml.svm.svc import SVC
from lucidml.utils import InvalidParameterError

from ..memory import traced_peak


def _scaled(X):
    return StandardScaler().fit_transform(X)


def _data(name):
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
        return _scaled(X), y
    if name == "iris":
        return load_iris(return_X_y=True)
    if name == "digits":
        return load_digits(return_X_y=True)
    if name == "wide":  # more features than samples: one-vs-one shares one Gram matrix (svc.fit)
        X, y = make_classification(n_samples=80, n_features=400, n_informative=30, n_classes=4, random_state=0)
        return _scaled(X), y
    if name == "moons":
        return make_moons(400, noise=0.3, random_state=0)
    X, y = make_classification(n_samples=2000, n_features=20, random_state=0)
    return _scaled(X), y


def _dual_value(model, X):
    """½ cᵀKc − Σ|c| of a binary model (c = αᵢyᵢ of the support vectors): the minimised dual."""
    kernel = "polynomial" if model.kernel == "poly" else model.kernel
    params = {} if kernel == "linear" else {"gamma": model._gamma}
    if kernel == "polynomial":
        params.update(degree=model.degree, coef0=model.coef0)
    gram = pairwise_kernels(X[model.support_], metric=kernel, **params)
    c = model.dual_coef_[0]
    return 0.5 * c @ gram @ c - np.abs(c).sum()


@pytest.mark.parametrize("name, params", [
    ("breast_cancer", {}), ("breast_cancer", {"C": 10.0}), ("breast_cancer", {"kernel": "linear"}),
    ("moons", {}), ("moons", {"kernel": "poly", "C": 3.0}), ("synthetic", {}),
])
def test_binary_matches_scikit_learn(name, params):
    X, y = _data(name)
    ours = SVC(**params).fit(X, y)
    ref = sk_svm.SVC(**params).fit(X, y)
    assert abs(ours.score(X, y) - ref.score(X, y)) <= 0.005
    assert abs(len(ours.support_) - len(ref.support_)) <= 0.02 * len(ref.support_)
    ref._gamma = ours._gamma  # the same γ ("scale"), for evaluating scikit-learn's dual
    assert _dual_value(ours, X) == pytest.approx(_dual_value(ref, X), rel=1e-3)
    scale = np.abs(ref.decision_function(X)).max()
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-2 * scale)
    assert ours.intercept_ == pytest.approx(ref.intercept_, abs=1e-2 * scale)


@pytest.mark.parametrize("name, params", [("iris", {}), ("iris", {"C": 10.0, "kernel": "linear"}),
                                          ("digits", {"C": 10.0}), ("wide", {}), ("wide", {"kernel": "poly"})])
def test_multiclass_one_vs_one_matches_scikit_learn(name, params):
    X, y = _data(name)
    ours = SVC(decision_function_shape="ovo", **params).fit(X, y)
    ref = sk_svm.SVC(decision_function_shape="ovo", **params).fit(X, y)
    assert abs(ours.score(X, y) - ref.score(X, y)) <= 0.005
    assert abs(ours.n_support_.sum() - ref.n_support_.sum()) <= 0.02 * ref.n_support_.sum()
    n_pairs = len(ref.classes_) * (len(ref.classes_) - 1) // 2
    assert ours.decision_function(X).shape == ref.decision_function(X).shape == (len(y), n_pairs)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=5e-3)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=5e-3)
    if np.array_equal(ours.support_, ref.support_):  # same layout of dual_coef_ as scikit-learn
        np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, atol=2e-2)  # α to about tol
    ours.set_params(decision_function_shape="ovr")
    ref.set_params(decision_function_shape="ovr")
    assert np.mean(np.argmax(ours.decision_function(X), 1) == np.argmax(ref.decision_function(X), 1)) > 0.99


def test_iris_layout_is_scikit_learns():
    X, y = load_iris(return_X_y=True)
    ours, ref = SVC(C=10.0).fit(X, y), sk_svm.SVC(C=10.0).fit(X, y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, atol=2e-2)  # α agree to about tol·C
    np.testing.assert_allclose(ours.support_vectors_, ref.support_vectors_)


def test_linear_coef_and_its_absence_for_other_kernels():
    X, y = load_iris(return_X_y=True)
    ours, ref = SVC(kernel="linear").fit(X, y), sk_svm.SVC(kernel="linear").fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=2e-3)
    with pytest.raises(AttributeError, match="linear kernel"):
        _ = SVC().fit(X, y).coef_


@pytest.mark.filterwarnings("ignore:The `probability` parameter was deprecated:FutureWarning")
def test_probabilities_are_close_to_scikit_learns():
    X, y = load_iris(return_X_y=True)
    ours = SVC(probability=True, random_state=0).fit(X, y)
    ref = sk_svm.SVC(probability=True, random_state=0).fit(X, y)
    proba = ours.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.abs(proba - ref.predict_proba(X)).mean() < 0.03  # the CV folds differ, the sigmoids barely
    assert np.mean(proba.argmax(1) == ours.predict(X)) > 0.95
    np.testing.assert_allclose(ours.predict_log_proba(X), np.log(proba))
    Xb, yb = _data("breast_cancer")
    binary = SVC(probability=True, random_state=0).fit(Xb, yb)
    ref_b = sk_svm.SVC(probability=True, random_state=0).fit(Xb, yb)
    assert np.abs(binary.predict_proba(Xb) - ref_b.predict_proba(Xb)).mean() < 0.02
    assert not hasattr(SVC(), "predict_proba")


def test_true_one_vs_rest():
    X, y = _data("digits")
    X = X[:600]
    y = y[:600]
    ours = SVC(multiclass="ovr").fit(X, y)
    ref = OneVsRestClassifier(sk_svm.SVC()).fit(X, y)
    assert ours.decision_function(X).shape == (600, 10)
    assert ours.dual_coef_.shape == (10, len(ours.support_))
    assert abs(ours.score(X, y) - ref.score(X, y)) <= 0.005
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-2)


def test_parallel_sub_problems_give_the_same_model():
    X, y = load_iris(return_X_y=True)
    a, b = SVC().fit(X, y), SVC(n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_allclose(a.dual_coef_, b.dual_coef_)


def test_sample_weight_is_repetition_and_class_weight_matches():
    X, y = _data("moons")
    weight = np.random.default_rng(0).integers(0, 3, size=len(y))
    weighted = SVC(gamma=0.5, tol=1e-8).fit(X, y, sample_weight=weight)
    repeated = SVC(gamma=0.5, tol=1e-8).fit(np.repeat(X, weight, axis=0), np.repeat(y, weight))
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), atol=1e-6)
    ours = SVC(class_weight="balanced").fit(X[:300], y[:300], sample_weight=weight[:300])
    ref = sk_svm.SVC(class_weight="balanced").fit(X[:300], y[:300], sample_weight=weight[:300])
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-2)


def test_weights_that_leave_classes_out():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2)) + np.repeat(np.array([[0, 0], [4, 0], [0, 4], [4, 4]]), 20, axis=0)
    y = np.repeat(np.arange(4), 20)
    # Two classes without weight: the sub-problem between them is empty (an IndexError before);
    # the weighted classes are told apart as if alone, and no row is given an unweighted class.
    weight = (y < 2).astype(float)
    ours = SVC(kernel="linear").fit(X, y, sample_weight=weight)
    alone = SVC(kernel="linear").fit(X[y < 2], y[y < 2])
    np.testing.assert_array_equal(ours.predict(X[y < 2]), alone.predict(X[y < 2]))
    with pytest.raises(ValueError, match="belong to one class"):
        SVC().fit(X, y, sample_weight=(y == 0).astype(float))  # scikit-learn's rule
    with pytest.raises(ValueError, match="No sample has a positive weight"):
        SVC(class_weight={0: 0, 1: 0, 2: 0, 3: 0}).fit(X, y)


def test_precomputed_and_other_kernels():
    X, y = _data("moons")
    gram = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    pre = SVC(kernel="precomputed").fit(gram, y)
    rbf = SVC(gamma=0.5).fit(X, y)
    np.testing.assert_allclose(pre.decision_function(gram[:50]), rbf.decision_function(X[:50]), atol=2e-3)
    assert len(pre.support_vectors_) == 0

    def laplace(A, B):
        return np.exp(-0.5 * np.abs(A[:, None, :] - B[None, :, :]).sum(-1))

    ours = SVC(kernel=laplace).fit(X, y)
    named = SVC(kernel="laplacian", gamma=0.5).fit(X, y)
    ref = sk_svm.SVC(kernel=laplace).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-2)
    np.testing.assert_allclose(named.decision_function(X), ours.decision_function(X), atol=1e-8)


def test_simplified_solver_is_close_to_smo():
    X, y = _data("moons")
    fast = SVC(gamma=1.0).fit(X, y)
    slow = SVC(gamma=1.0, solver="simplified", random_state=0).fit(X, y)
    assert _dual_value(slow, X) == pytest.approx(_dual_value(fast, X), rel=1e-2)
    assert abs(slow.score(X, y) - fast.score(X, y)) <= 0.01
    assert slow.n_iter_[0] >= 5  # sweeps: at least max_passes (5) of them end the run


def test_simplified_solver_with_a_huge_box_ends_like_smo():
    # The round-off snap near 0 was 1e-12 · C: with C near 1e300 it put every α back to 0, so the
    # sweeps changed nothing and never ended (max_iter here only keeps the old failure short).
    X, y = make_blobs(100, centers=[[-2, -2], [2, 2]], random_state=0)  # separable: a hard margin
    fast = SVC(gamma=0.5, C=1e300).fit(X, y)
    slow = SVC(gamma=0.5, C=1e300, solver="simplified", max_iter=2000, random_state=0).fit(X, y)
    assert slow.n_iter_[0] < 2000
    np.testing.assert_array_equal(slow.predict(X), fast.predict(X))


def test_max_iter_warns():
    X, y = _data("moons")
    with pytest.warns(ConvergenceWarning):
        model = SVC(max_iter=3).fit(X, y)
    assert model.fit_status_ == 1 and model.n_iter_[0] == 3


def test_loss_curve_decreases():
    X, y = _data("breast_cancer")
    curve = SVC().fit(X, y).loss_curve_[0]
    assert len(curve) > 10 and np.all(np.diff(curve) <= 1e-12)


def test_bad_input():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="1 class"):
        SVC().fit(X, np.zeros(len(y)))
    with pytest.raises(InvalidParameterError):
        SVC(C=0.0).fit(X, y)
    with pytest.raises(InvalidParameterError):
        SVC(C=-1.0).fit(X, y)
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SVC().fit(X_nan, y)
    with pytest.raises(ValueError, match="break_ties"):
        SVC(break_ties=True, decision_function_shape="ovo").fit(X, y)
    with pytest.raises(ValueError, match="precomputed"):
        SVC(kernel="precomputed").fit(X, y)
    with pytest.raises(ValueError, match="features"):
        SVC().fit(X, y).predict(X[:, :2])


def test_identical_points_and_a_non_psd_kernel_do_not_crash():
    X = np.ones((20, 3))
    y = np.array([0, 1] * 10)
    model = SVC().fit(X, y)
    assert np.all(np.isfinite(model.decision_function(X)))
    X, y = _data("moons")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        with pytest.warns(UserWarning, match="positive semi-definite"):
            SVC(kernel="precomputed").fit(np.ones((len(y), len(y))) - np.eye(len(y)), y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_simplified_solver_gives_smo_intercept_and_support(seed):
    # Round-off must not leave αᵢ at 1e-17 or C − 1e-16: those read as free support vectors and skew b.
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    y = (y == 2).astype(int)
    fast = SVC().fit(X, y)
    slow = SVC(solver="simplified", random_state=seed).fit(X, y)
    assert _dual_value(slow, X) == pytest.approx(_dual_value(fast, X), rel=1e-3)
    assert abs(slow.intercept_[0] - fast.intercept_[0]) < 0.02
    np.testing.assert_allclose(slow.decision_function(X), fast.decision_function(X), atol=0.05)


# -- Sparse input (issue 21) ---------------------------------------------------------------------


def _sparse_problem(seed=0, n=400, d=200):
    import scipy.sparse

    X = scipy.sparse.random(n, d, density=0.05, format="csr", random_state=seed) * 3.0
    y = (X @ np.random.default_rng(seed).normal(size=(d, 3))).argmax(axis=1)
    return X, y


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "sigmoid"])
def test_sparse_svc_matches_scikit_learns_sparse_svc(kernel):
    """Kernel columns from the stored entries (SMO's cache) and sparse prediction blocks."""
    X, y = _sparse_problem()
    params = {"kernel": kernel, "C": 2.0, "tol": 1e-8, "gamma": "scale"}
    ours, ref = SVC(**params).fit(X, y), sk_svm.SVC(**params).fit(X, y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-5)
    assert type(ours.support_vectors_) is type(X)  # the support vectors stay sparse, as scikit-learn's


def test_sparse_svc_probability_and_simplified_solver_equal_dense():
    X, y = _sparse_problem(seed=1, n=150)
    for params in ({"probability": True, "random_state": 0}, {"solver": "simplified", "random_state": 0}):
        sparse, dense = SVC(**params).fit(X, y), SVC(**params).fit(X.toarray(), y)
        np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X.toarray()), atol=1e-9)
        if params.get("probability"):
            np.testing.assert_allclose(sparse.predict_proba(X), dense.predict_proba(X.toarray()), atol=1e-9)


def test_sparse_input_needs_one_of_libsvms_kernels():
    X, y = _sparse_problem()
    with pytest.raises(TypeError, match="dense data is required"):
        SVC(kernel="laplacian").fit(X, y)


def test_sub_problems_solved_at_once_share_cache_size():
    """Three one-vs-one problems on two threads: their kernel-column caches together stay within
    cache_size (each thread held a cache of its own: 2 × cache_size)."""
    X, y = make_classification(3_000, 10, n_informative=6, n_redundant=0, n_classes=3, random_state=0)
    SVC(n_jobs=2, cache_size=1).fit(X[:300], y[:300])  # compile first: its memory is not the cache
    _, peak = traced_peak(lambda: SVC(n_jobs=2, cache_size=20).fit(X, y))
    assert peak < 32 * 2**20, f"fit peaked at {peak / 2**20:.0f} MiB with cache_size=20"
