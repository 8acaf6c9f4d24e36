"""KernelLMS: convergence to the KernelRidge / interpolating solution, both modes, warnings, bad input."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from lucidml.kernels.kernel_lms import KernelLMS
from lucidml.kernels.kernel_ridge import KernelRidge

from ..memory import traced_peak


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense solves run faster on one BLAS thread on a shared 2-core machine (as in CI)."""
    with threadpool_limits(1):
        yield

rng = np.random.default_rng(0)
X = rng.uniform(-2, 2, size=(40, 2))
y = np.sin(X[:, 0]) + X[:, 1] ** 2


@pytest.mark.parametrize("mode", ["batch", "online"])
def test_converges_to_interpolant(mode):
    # γ = 10 makes K well conditioned, so plain LMS (λ = 0) reaches the interpolant β = K⁻¹y
    model = KernelLMS(kernel="rbf", gamma=10.0, mode=mode, max_iter=5000, tol=1e-12).fit(X, y)
    exact = KernelRidge(kernel="rbf", gamma=10.0, alpha=0.0).fit(X, y)
    np.testing.assert_allclose(model.dual_coef_, exact.dual_coef_, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(model.predict(X), y, atol=1e-8)


@pytest.mark.parametrize("mode", ["batch", "online"])
def test_fixed_point_is_kernel_ridge(mode):
    model = KernelLMS(kernel="rbf", gamma=0.5, alpha=0.1, mode=mode, max_iter=20000, tol=1e-12).fit(X, y)
    ridge = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y)
    np.testing.assert_allclose(model.dual_coef_, ridge.dual_coef_, rtol=1e-6, atol=1e-8)
    Xt = rng.uniform(-2, 2, size=(10, 2))
    np.testing.assert_allclose(model.predict(Xt), ridge.predict(Xt), rtol=1e-6, atol=1e-7)


def test_batch_loss_decreases_and_default_step():
    model = KernelLMS(kernel="poly", degree=2, gamma=1.0, max_iter=200, tol=0.0)
    with pytest.warns(ConvergenceWarning):
        model.fit(X, y)
    K = (X @ X.T + 1.0) ** 2
    assert model.learning_rate_ == pytest.approx(1.0 / np.linalg.eigvalsh(K)[-1], rel=1e-10)
    assert model.n_iter_ == 200 == len(model.loss_curve_)
    assert model.loss_curve_[0] == pytest.approx(np.mean(y**2))  # β = 0 at the start
    assert np.all(np.diff(model.loss_curve_) <= 1e-12)  # η ≤ 1/λ_max: the residual never grows


def test_online_first_pass_is_growing_klms():
    eta = 0.5
    model = KernelLMS(kernel="rbf", gamma=1.0, mode="online", learning_rate=eta, max_iter=1, tol=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    beta = []  # Liu–Pokharel–Principe: the i-th unit gets η·(error of the network built from units < i)
    for i in range(len(y)):
        f = sum(b * np.exp(-np.sum((X[i] - X[j]) ** 2)) for j, b in enumerate(beta))
        beta.append(eta * (y[i] - f))
    np.testing.assert_allclose(model.dual_coef_, beta, rtol=1e-12)


def test_too_large_step_diverges_with_clear_error():
    with pytest.raises(ValueError, match="diverged"):
        KernelLMS(kernel="linear", learning_rate=10.0, max_iter=5000).fit(X, y)


def test_bad_input():
    bad = X.copy()
    bad[1, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        KernelLMS().fit(bad, y)
    with pytest.raises(ValueError, match="mode"):
        KernelLMS(mode="stochastic").fit(X, y)
    with pytest.raises(ValueError, match="learning_rate"):
        KernelLMS(learning_rate=0.0).fit(X, y)
    with pytest.raises(ValueError, match="features"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        KernelLMS(max_iter=5).fit(X, y).predict(X[:, :1])


def test_predict_holds_a_block_of_the_kernel_not_all_of_it():
    """20,000 rows against 500 training rows: the whole test × train kernel would be 76 MiB; predict
    works a block of rows at a time (kernels.pairwise.kernel_times) and gives the same numbers."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(500, 3)), rng.normal(size=500)
    model = KernelLMS(kernel="rbf", gamma=0.5, max_iter=20).fit(X, y)
    X_new = rng.normal(size=(20_000, 3))
    blocked, peak = traced_peak(lambda: model.predict(X_new))
    assert peak < 30 * 2**20, f"predict peaked at {peak / 2**20:.0f} MiB"
    np.testing.assert_allclose(blocked, model._gram(X_new, X) @ model.dual_coef_, rtol=1e-12, atol=1e-12)


def test_batch_fit_holds_one_kernel_matrix():
    """The batch step 1/λ_max(K + λI) comes from Lanczos iterations on K itself: the fit holds K
    and a block of it, where the dense eigensolver on (K + Kᵀ)/2 held three n × n matrices."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(2_000, 3)), rng.normal(size=2_000)
    KernelLMS(max_iter=2).fit(X[:100], y[:100])  # compile first
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model, peak = traced_peak(lambda: KernelLMS(max_iter=2).fit(X, y))
    gram_bytes = 8 * 2_000**2
    assert peak < 2 * gram_bytes, f"fit peaked at {peak / gram_bytes:.1f} Gram matrices"
    assert model.learning_rate_ == pytest.approx(1.0 / np.linalg.eigvalsh(model._gram(X))[-1], rel=1e-10)
