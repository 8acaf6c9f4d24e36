"""KernelRidge against scikit-learn, its centring option, weights and bad input."""

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from threadpoolctl import threadpool_limits

from lucidml.kernels.kernel_ridge import KernelRidge, _solve_spd
from lucidml.kernels.pairwise import pairwise_kernels


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense solves run faster on one BLAS thread on a shared 2-core machine (as in CI)."""
    with threadpool_limits(1):
        yield

X, y = load_diabetes(return_X_y=True)
weights = np.random.default_rng(0).uniform(0.5, 2.0, len(y))


@pytest.mark.parametrize("params", [{}, {"kernel": "rbf", "gamma": 0.5, "alpha": 0.1},
                                    {"kernel": "poly", "degree": 2, "alpha": 0.01},
                                    {"kernel": "laplacian", "alpha": 0.3}, {"kernel": "sigmoid", "alpha": 2.0}])
@pytest.mark.parametrize("sample_weight", [None, weights])
def test_matches_sklearn(params, sample_weight):
    ours = KernelRidge(**params).fit(X, y, sample_weight=sample_weight)
    theirs = SkKernelRidge(**params).fit(X, y, sample_weight=sample_weight)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, rtol=1e-8, atol=1e-8 * np.abs(theirs.dual_coef_).max())
    np.testing.assert_allclose(ours.predict(X[:40]), theirs.predict(X[:40]), rtol=1e-8)


def test_multi_target_with_one_alpha_per_target():
    Y = np.c_[y, np.sqrt(y)]
    ours = KernelRidge(kernel="rbf", alpha=[0.1, 1.0]).fit(X, Y)
    theirs = SkKernelRidge(kernel="rbf", alpha=[0.1, 1.0]).fit(X, Y)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-8)


def test_precomputed_equals_named():
    K = pairwise_kernels(X, kernel="rbf", gamma=0.5)
    named = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y)
    pre = KernelRidge(kernel="precomputed", alpha=0.1).fit(K, y)
    np.testing.assert_allclose(pre.predict(K[:10]), named.predict(X[:10]), rtol=1e-10)


def test_center_y_is_the_intercept_form():
    model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1, center_y=True).fit(X, y)
    assert model.y_mean_ == pytest.approx(y.mean())
    direct = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y - y.mean())
    np.testing.assert_allclose(model.predict(X), direct.predict(X) + y.mean(), rtol=1e-12)
    far = np.full((1, X.shape[1]), 50.0)  # rbf weights vanish far away: the centred model falls back to ȳ
    assert model.predict(far)[0] == pytest.approx(y.mean())


def test_integer_weights_equal_repeated_samples():
    rep = np.array([1, 2, 3] * (len(y) // 3) + [1] * (len(y) % 3))
    weighted = KernelRidge(kernel="rbf", alpha=0.5).fit(X, y, sample_weight=rep.astype(float))
    repeated = KernelRidge(kernel="rbf", alpha=0.5).fit(np.repeat(X, rep, axis=0), np.repeat(y, rep))
    np.testing.assert_allclose(weighted.predict(X[:20]), repeated.predict(X[:20]), rtol=1e-8)


def test_alpha_zero_interpolates():
    Xs, ys = X[:30], y[:30]
    model = KernelRidge(kernel="rbf", gamma=10.0, alpha=0.0).fit(Xs, ys)
    np.testing.assert_allclose(model.predict(Xs), ys, rtol=1e-8)


def test_bad_input():
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        KernelRidge().fit(bad, y)
    with pytest.raises(ValueError, match="kernel"):
        KernelRidge(kernel="gauss").fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        KernelRidge(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        KernelRidge(alpha=[1.0, 2.0, 3.0]).fit(X, np.c_[y, y])
    model = KernelRidge().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :5])
    with pytest.raises(ValueError, match="square"):
        KernelRidge(kernel="precomputed").fit(X, y)


@pytest.mark.parametrize("kernel", ["linear", "rbf", "polynomial", "sigmoid"])
def test_sparse_kernel_ridge_matches_scikit_learn(kernel):
    import scipy.sparse

    X = scipy.sparse.random(200, 80, density=0.1, format="csr", random_state=0)
    y = np.asarray(X @ np.random.default_rng(0).normal(size=80)).ravel()
    params = {"alpha": 0.5, "kernel": kernel, "gamma": 0.5, "coef0": 0.3}
    ours = KernelRidge(**params).fit(X, y)
    ref = SkKernelRidge(**params).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours.predict(X), KernelRidge(**params).fit(X.toarray(), y).predict(X.toarray()),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("params", [{}, {"kernel": "rbf", "gamma": 0.5, "alpha": 0.1},
                                    {"kernel": "laplacian", "alpha": 0.3}])
@pytest.mark.parametrize("sample_weight", [None, weights])
def test_float32_is_kept(params, sample_weight):
    """float32 X: dual_coef_ and predictions are float32 (not promoted), and close to the float64 fit's."""
    ref = KernelRidge(**params).fit(X, y, sample_weight)
    ours = KernelRidge(**params).fit(X.astype(np.float32), y, sample_weight)
    assert ours.dual_coef_.dtype == ours.X_fit_.dtype == np.float32
    predicted = ours.predict(X[:50].astype(np.float32))
    assert predicted.dtype == np.float32
    np.testing.assert_allclose(predicted, ref.predict(X[:50]), rtol=1e-4)
    multi = KernelRidge(**params, center_y=True).fit(X.astype(np.float32), np.c_[y, -y], sample_weight)
    assert multi.dual_coef_.dtype == multi.y_mean_.dtype == multi.predict(X[:5].astype(np.float32)).dtype == np.float32


def test_float32_solve_is_refined_in_float64():
    """The float32 Cholesky solve of an ill-conditioned K + λI, refined with float64 residuals, is the
    float64 solution of that float32 system, not a float32-accurate one."""
    K = pairwise_kernels(X[:300], kernel="rbf", gamma=0.5).astype(np.float32)
    Y = y[:300, None]
    exact = np.linalg.solve(K.astype(np.float64) + 1e-3 * np.eye(300), Y)
    assert np.linalg.cond(K.astype(np.float64) + 1e-3 * np.eye(300)) > 1e5
    # cond ≈ 3e5: a plain float32 solve is off by ≈ 3e-3·max|β|, the refined one by ≈ 3e-10.
    np.testing.assert_allclose(_solve_spd(K, 1e-3, Y), exact, atol=1e-8 * np.abs(exact).max())



@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_targets", [1, 2])
def test_predict_in_blocks_is_predict_at_once(monkeypatch, sparse, n_targets):
    """predict computes the kernel a block of rows at a time (bounded memory): the blocks change
    nothing but the BLAS products' rounding, and the prediction is scikit-learn's."""
    import scipy.sparse

    import lucidml.kernels.pairwise as module

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    X = scipy.sparse.csr_matrix(np.where(np.abs(X) > 1, X, 0.0)) if sparse else X
    y = rng.normal(size=(60, n_targets)) if n_targets > 1 else rng.normal(size=60)
    model = KernelRidge(alpha=0.5, kernel="rbf", gamma=0.3).fit(X, y)
    whole = model.predict(X)
    assert whole.shape == y.shape
    monkeypatch.setattr(module, "PREDICT_BLOCK", 7 * 60)  # 7 rows a block: 9 blocks, the last one short
    np.testing.assert_allclose(model.predict(X), whole, rtol=1e-12, atol=1e-14)
    reference = SkKernelRidge(alpha=0.5, kernel="rbf", gamma=0.3).fit(X, y).predict(X)
    np.testing.assert_allclose(whole, reference, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("numpy_bytes", [2**27, 0], ids=["NumPy's Cholesky", "SciPy's, in place"])
def test_a_singular_kernel_falls_back_to_least_squares_on_an_intact_matrix(monkeypatch, numpy_bytes):
    """alpha = 0 with a linear kernel of rank 3 on 40 samples: the Cholesky fails and the fit warns
    and solves K β = y by least squares, on K itself (SciPy's in-place factorization, above
    NUMPY_CHOLESKY_BYTES, overwrites its copy before it fails)."""
    import scipy.linalg

    from lucidml.utils import linalg

    monkeypatch.setattr(linalg, "NUMPY_CHOLESKY_BYTES", numpy_bytes)
    rng = np.random.default_rng(4)
    X, y = rng.standard_normal((40, 3)), rng.standard_normal(40)
    with pytest.warns(scipy.linalg.LinAlgWarning, match="not positive definite"):
        model = KernelRidge(alpha=0.0, center_y=False).fit(X, y)
    expected = scipy.linalg.lstsq(X @ X.T, y)[0]
    np.testing.assert_allclose(model.dual_coef_, expected, rtol=1e-6, atol=1e-8)
    # weighted: the kernel matrix, weighted in its place, is made and weighted again
    s = rng.uniform(0.5, 2.0, 40)
    with pytest.warns(scipy.linalg.LinAlgWarning, match="not positive definite"):
        weighted = KernelRidge(alpha=0.0, center_y=False).fit(X, y, sample_weight=s)
    root = np.sqrt(s)
    expected = root * scipy.linalg.lstsq(root[:, None] * (X @ X.T) * root, root * y)[0]
    np.testing.assert_allclose(weighted.dual_coef_, expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("weighted", [False, True])
def test_the_fit_factors_its_own_kernel_matrix_in_place(monkeypatch, weighted):
    """Above NUMPY_CHOLESKY_BYTES the kernel matrix the fit computed is weighted, shifted by λ and
    factored in its own memory: the fit's peak is about one n × n matrix (it was two: K and the
    shifted copy, three with the weights' outer product), and β is unchanged."""
    from lucidml.utils import linalg

    from ..memory import traced_peak

    X, y = load_diabetes(return_X_y=True)
    X, y = np.vstack([X, X + 0.01, X - 0.01]), np.tile(y, 3)  # 1,326 rows: K is 14 MB
    s = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else None
    reference = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y, sample_weight=s)  # (NumPy's factor)
    monkeypatch.setattr(linalg, "NUMPY_CHOLESKY_BYTES", 0)
    model, peak = traced_peak(lambda: KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y, sample_weight=s))
    assert peak < 1.3 * len(y) ** 2 * 8
    np.testing.assert_allclose(model.dual_coef_, reference.dual_coef_, rtol=1e-8, atol=1e-10)


def test_a_gram_matrix_beyond_memory_is_refused_before_it_is_formed():
    """2,000,000 rows would need a 29 TiB n × n kernel matrix: a ValueError that says so and what to
    do, not numpy's MemoryError from inside the kernel (nor the machine swapping)."""
    X, y = np.zeros((2_000_000, 1)), np.zeros(2_000_000)
    with pytest.raises(ValueError, match=r"2000000 × 2000000 .*kernel matrix.*Nystroem"):
        KernelRidge(kernel="rbf").fit(X, y)


def test_a_kernel_matrix_the_caller_holds_is_never_written():
    """Only a kernel matrix the fit made itself is weighted and factored in its place: a precomputed
    one (with weights, and a singular one that falls back to least squares) and the array a callable
    kernel returns (which may keep it, or hand out a read-only one) are left as they were."""
    import scipy.linalg

    rng = np.random.default_rng(0)
    X, y, w = rng.normal(size=(30, 2)), rng.normal(size=30), rng.uniform(0.5, 2.0, 30)
    K = X @ X.T
    before = K.copy()
    with pytest.warns(scipy.linalg.LinAlgWarning, match="not positive definite"):
        KernelRidge(kernel="precomputed", alpha=0.0).fit(K, y, sample_weight=w)
    np.testing.assert_array_equal(K, before)

    kept = {}

    def cached_rbf(A, B):
        return kept.setdefault((A.tobytes(), B.tobytes()), np.exp(-((A[:, None] - B[None]) ** 2).sum(-1)))

    def read_only_rbf(A, B):
        gram = np.exp(-((A[:, None] - B[None]) ** 2).sum(-1))
        gram.setflags(write=False)
        return gram

    first = KernelRidge(kernel=cached_rbf, alpha=0.1).fit(X, y, sample_weight=w).dual_coef_
    again = KernelRidge(kernel=cached_rbf, alpha=0.1).fit(X, y, sample_weight=w).dual_coef_
    named = KernelRidge(kernel="rbf", gamma=1.0, alpha=0.1).fit(X, y, sample_weight=w).dual_coef_
    read_only = KernelRidge(kernel=read_only_rbf, alpha=0.1).fit(X, y, sample_weight=w).dual_coef_
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first, named, rtol=1e-10)
    np.testing.assert_allclose(read_only, named, rtol=1e-10)
