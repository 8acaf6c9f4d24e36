"""The linear-algebra helpers of lucidml.utils: the products by either BLAS, centered_gram on every
path (one product, or centred blocks), and the triangular inverse."""

import numpy as np
import pytest
import scipy.sparse

from lucidml.utils import linalg
from lucidml.utils.centered import centered_gram
from lucidml.utils.linalg import blas_gram, blas_product


@pytest.fixture(params=[False, True], ids=["NumPy's pool", "SciPy's pool"])
def blas_pool(request, monkeypatch):
    """Both routes of blas_gram/blas_product: NumPy's product and SciPy's BLAS."""
    monkeypatch.setattr(linalg, "_in_scipys_pool", lambda order: request.param)
    return request.param


def test_only_the_products_of_a_large_threaded_solve_go_to_scipys_pool(monkeypatch):
    """SciPy's pool for products only where they feed a factorization above SMALL_MATRIX on
    threaded BLAS; a factorization up to SMALL_MATRIX runs on one BLAS thread, larger ones as set."""
    for threaded in (False, True):
        monkeypatch.setattr(linalg, "_several_blas_threads", lambda threaded=threaded: threaded)
        assert not linalg._in_scipys_pool(linalg.SMALL_MATRIX)
        assert linalg._in_scipys_pool(linalg.SMALL_MATRIX + 1) == threaded
    libraries = [lib for lib in linalg._controller().lib_controllers if lib.user_api == "blas"]
    before = [lib.get_num_threads() for lib in libraries]
    with linalg.factorization_threads(linalg.SMALL_MATRIX):
        assert all(lib.get_num_threads() == 1 for lib in libraries)
    with linalg.factorization_threads(linalg.SMALL_MATRIX + 1):
        assert [lib.get_num_threads() for lib in libraries] == before
    assert [lib.get_num_threads() for lib in libraries] == before


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_blas_gram_and_product_equal_numpy_products(blas_pool, dtype, layout):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 14)).astype(dtype)
    X = {"C": X[:, :7].copy(), "F": np.asfortranarray(X[:, :7]), "strided": X[:, ::2]}[layout]
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    np.testing.assert_allclose(blas_gram(X), X.T @ X, **tol)
    assert blas_gram(X).dtype == dtype
    for B, transpose in [(rng.standard_normal(40), True), (rng.standard_normal((40, 3)), True),
                         (rng.standard_normal(7), False), (np.asfortranarray(rng.standard_normal((7, 2))), False)]:
        B = B.astype(dtype)
        result = blas_product(X, B, transpose_a=transpose)
        np.testing.assert_allclose(result, (X.T if transpose else X) @ B, **tol)
        assert result.shape == ((X.T if transpose else X) @ B).shape and result.dtype == dtype


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("offset", [0.0, 1e4])  # 1e4: a column whose mean dwarfs its spread (the block path)
def test_centered_gram_equals_the_gram_of_the_centred_data(blas_pool, sparse, weighted, offset):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 6)) * (rng.random((300, 6)) < 0.5)
    X[:, 2] += offset
    Y = rng.standard_normal((300, 2))
    weight = rng.random(300) + 0.5 if weighted else None
    s = np.ones(300) if weight is None else weight
    x_mean, y_mean = s @ X / s.sum(), s @ Y / s.sum()
    Xc, Yc = X - x_mean, Y - y_mean
    expected_gram, expected_moment = Xc.T @ (s[:, None] * Xc), Xc.T @ (s[:, None] * Yc)
    data = scipy.sparse.csr_matrix(X) if sparse else X
    gram, moment = centered_gram(data, Y, weight, x_mean, y_mean)
    scale = np.abs(expected_gram).max()
    np.testing.assert_allclose(gram, expected_gram, atol=1e-9 * scale)
    np.testing.assert_allclose(moment, expected_moment, atol=1e-9 * np.abs(expected_moment).max())
    alone, none = centered_gram(data, None, weight, x_mean, y_mean)
    assert none is None
    np.testing.assert_allclose(alone, expected_gram, atol=1e-9 * scale)


def test_inverse_lower_triangular_inverts_and_refuses_a_zero_pivot():
    from lucidml.utils.linalg import inverse_lower_triangular

    rng = np.random.default_rng(1)
    lower = np.tril(rng.standard_normal((7, 7))) + 5 * np.eye(7)
    np.testing.assert_allclose(inverse_lower_triangular(lower) @ lower, np.eye(7), atol=1e-12)
    lower[3, 3] = 0.0
    with pytest.raises(ValueError, match="pivot 4 is zero"):
        inverse_lower_triangular(lower)


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_the_gram_matrix_of_a_tall_x_by_row_blocks_equals_the_product(n_threads, dtype, layout):
    """A tall X with enough work (n·d² ≥ 2²⁴, n ≥ 32 d) is summed over blocks of rows on lucidml's
    threads; the result is XᵀX, symmetric, in X's precision, whatever the layout and thread count."""
    from lucidml import config_context

    rng = np.random.default_rng(1)
    X = rng.standard_normal((6000, 2 * 60)).astype(dtype)
    X = {"C": X[:, :60].copy(), "F": np.asfortranarray(X[:, :60]), "strided": X[:, ::2]}[layout]
    assert X.shape[0] * X.shape[1] ** 2 >= linalg._SERIAL_GRAM_WORK
    with config_context(n_threads=n_threads):
        gram = blas_gram(X)
    expected = X.astype(np.float64).T @ X.astype(np.float64)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(gram, expected, rtol=tol, atol=tol * np.abs(expected).max())
    assert gram.dtype == dtype
    np.testing.assert_array_equal(gram, gram.T)


@pytest.mark.parametrize("numpy_bytes", [2**27, 0], ids=["NumPy's Cholesky", "SciPy's, in place"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cholesky_factor_solves_like_scipy_by_either_library(monkeypatch, numpy_bytes, dtype):
    """Below NUMPY_CHOLESKY_BYTES NumPy factors (its pool), above it SciPy factors A in place: the
    same solves, the precision kept, LinAlgError for a matrix that is not positive definite."""
    import scipy.linalg

    monkeypatch.setattr(linalg, "NUMPY_CHOLESKY_BYTES", numpy_bytes)
    rng = np.random.default_rng(3)
    M = rng.standard_normal((50, 30))
    A = (M @ M.T + 0.5 * np.eye(50)).astype(dtype)
    b = rng.standard_normal(50).astype(dtype)
    factor = linalg.cholesky_factor(linalg.shifted_copy(A, 0.0), overwrite_a=True)
    assert factor[0].dtype == dtype
    tol = 1e-3 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(scipy.linalg.cho_solve(factor, b), np.linalg.solve(A, b), rtol=tol, atol=tol)
    with pytest.raises(np.linalg.LinAlgError):
        linalg.cholesky_factor(linalg.shifted_copy(A, -100.0), overwrite_a=True)


def test_a_tall_factorization_keeps_its_threads():
    libraries = [lib for lib in linalg._controller().lib_controllers if lib.user_api == "blas"]
    before = [lib.get_num_threads() for lib in libraries]
    with linalg.factorization_threads(100, rows=10**6):  # 10¹⁰ of work: worth the threads
        assert [lib.get_num_threads() for lib in libraries] == before
    with linalg.factorization_threads(100, rows=3000):
        assert all(lib.get_num_threads() == 1 for lib in libraries)


def test_cholesky_singularity_test_does_not_depend_on_units():
    """Each pivot is read against its own diagonal entry (the share of the variable the ones before it
    leave unexplained): a well-conditioned Gram matrix in any units of its variables is factored, and
    an exactly collinear one is refused in any units. Against the largest pivot, a feature 1e8 times
    larger than another made XᵀX "singular" (LinearRegression(solver='normal'), QDA, GLM's IRLS)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    for units in ([1.0, 1.0, 1.0, 1.0], [1e8, 1.0, 1e-8, 3.0], [1e-12, 1e12, 1.0, 1.0]):
        scaled = X * units
        factor = linalg.cholesky_or_none(scaled.T @ scaled)
        assert factor is not None
        np.testing.assert_allclose(factor @ factor.T, scaled.T @ scaled, rtol=1e-12)
        singular = np.c_[scaled, scaled[:, 0] + 2 * scaled[:, 1]]
        assert linalg.cholesky_or_none(singular.T @ singular) is None
    assert linalg.cholesky_or_none(np.diag([1.0, 0.0, 2.0])) is None  # a constant feature's zero variance


@pytest.mark.parametrize("estimator", ["LinearRegression(solver='normal')", "Ridge(alpha=0.0, solver='cholesky')",
                                       "GLMRegressor(alpha=0.0)", "PoissonRegressor(alpha=0.0)",
                                       "QuadraticDiscriminantAnalysis()"])
def test_a_feature_in_other_units_gives_the_same_predictions(estimator):
    """Multiplying one feature by 1e±8 only divides its coefficient: these raised "singular" (the
    normal equations, QDA) or dropped the feature silently (IRLS's minimum-norm fallback; predictions
    moved by 1.6 times y's spread)."""
    from sklearn.datasets import load_diabetes, load_wine

    import lucidml.discriminant
    import lucidml.linear

    namespace = {**vars(lucidml.linear), **vars(lucidml.discriminant)}
    classifier = estimator.startswith("Quadratic")
    X, y = (load_wine if classifier else load_diabetes)(return_X_y=True)
    method = "predict_proba" if classifier else "predict"
    reference = getattr(eval(estimator, namespace).fit(X, y), method)(X)
    for factor in (1e-8, 1e8):
        scaled = X.copy()
        scaled[:, -1] *= factor
        got = getattr(eval(estimator, namespace).fit(scaled, y), method)(scaled)
        np.testing.assert_allclose(got, reference, rtol=1e-6, atol=1e-9 * np.abs(reference).max())
