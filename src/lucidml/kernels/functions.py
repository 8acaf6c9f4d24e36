"""Kernel functions k(x, z) evaluated on every pair of rows of X and Y.

Every function has the signature ``name(X, Y=None, **params)``: X is (n, d), Y is (m, d) or None
(meaning Y = X, which also makes the result exactly symmetric) and the result is the (n, m) Gram
block K[i, j] = k(xᵢ, zⱼ). Inner products go through one BLAS product X Yᵀ; squared distances use
‖x − z‖² = ‖x‖² + ‖z‖² − 2xᵀz, clipped at 0 because rounding can push it below zero for
near-identical rows.

The kernels built on inner products (linear, polynomial, rbf, sigmoid) also take SciPy sparse
rows (CSR): X Yᵀ is then the sparse product, made dense, and ‖x‖² is summed over the stored
entries. The others need dense rows.

Float32 X and Y give a float32 Gram block (half the memory, as scikit-learn's): inner products are
taken in float32; distances, which lose digits to cancellation, and the kernels that go through
``cdist`` or a long product are computed in float64 on blocks of rows and stored in float32. Any
other input is computed in float64.

Parameters shared with scikit-learn (``gamma``, ``coef0``, ``degree``) keep its meaning and default:
``gamma=None`` means γ = 1/n_features. The kernels and their explicit feature maps are derived in the
notes (seeds: 000 §6.4–6.6, 001 §13, 002 §5.3.5, 004 §9).
"""

import numpy as np
import scipy.sparse
from scipy.spatial.distance import cdist
from sklearn.utils import check_array

from ..utils.validation import FLOAT_DTYPES

__all__ = [
    "exponential_kernel",
    "laplacian_kernel",
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "sigmoid_kernel",
    "subset_product_kernel",
    "sum_of_powers_kernel",
]


def _check_pair(X, Y, accept_sparse=False):
    """Return 2-D X and Y (Y is X when None) with the same number of columns: both float32 when both
    are float32, else both float64."""
    X = check_array(X, dtype=FLOAT_DTYPES, ensure_all_finite=True, accept_sparse=accept_sparse)
    if Y is None:
        return X, X
    Y = check_array(Y, dtype=FLOAT_DTYPES, ensure_all_finite=True, accept_sparse=accept_sparse)
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features but Y has {Y.shape[1]}; they must match.")
    if X.dtype != Y.dtype:
        X, Y = X.astype(np.float64, copy=False), Y.astype(np.float64, copy=False)
    return X, Y


_ROWS64 = 512  # rows per float64 block of a float32 kernel: a 512 × 512 block of K is 2 MiB


def _float64_blocks(func, X, Y, **params):
    """``func(A, B, **params)`` on float64 copies of row blocks A of a float32 X and B of Y, stored
    in a float32 K: the float64 temporaries stay a few blocks whatever n and m are.

    When Y is X only the blocks on and above the diagonal are computed (a diagonal block as
    ``func(A, None)``) and mirrored, so K is exactly symmetric as in float64.
    """
    same = Y is X
    n, m = X.shape[0], Y.shape[0]
    K = np.empty((n, m), dtype=np.float32)
    for i in range(0, n, _ROWS64):
        A = X[i:i + _ROWS64].astype(np.float64)
        for j in range(i if same else 0, m, _ROWS64):
            if same and j == i:
                K[i:i + _ROWS64, i:i + _ROWS64] = func(A, None, **params)
                continue
            block = func(A, Y[j:j + _ROWS64].astype(np.float64), **params)
            K[i:i + _ROWS64, j:j + _ROWS64] = block
            if same:
                K[j:j + _ROWS64, i:i + _ROWS64] = block.T
    return K


def _gamma(gamma, sigma, n_features, sigma_power=2):
    """Resolve the width: γ given, or σ given (γ = 1/(2σ²), or 1/σ when sigma_power=1), or 1/n_features."""
    if gamma is not None and sigma is not None:
        raise ValueError("Give gamma or sigma, not both.")
    if sigma is not None:
        if not sigma > 0:
            raise ValueError(f"sigma must be > 0, got {sigma}.")
        return 1.0 / (2.0 * sigma**2) if sigma_power == 2 else 1.0 / sigma
    if gamma is None:
        return 1.0 / n_features
    if not gamma >= 0:
        raise ValueError(f"gamma must be >= 0, got {gamma}.")
    return float(gamma)


def _squared_distances(X, Y, same, scale=1.0):
    """scale·‖xᵢ − zⱼ‖² by the BLAS expansion ‖x‖² − 2xᵀz + ‖z‖², clipped at 0 (rounding can make it
    negative); the diagonal is exactly 0 when Y is X. The scale rides on the row terms: one
    pass over the n × m matrix fewer than scaling the result."""
    xx = _row_squared_norms(X) * scale
    yy = xx if same else _row_squared_norms(Y) * scale
    D = _inner(X, Y)
    D *= -2.0 * scale
    D += xx[:, None]
    D += yy[None, :]
    if scale >= 0:
        np.maximum(D, 0.0, out=D)
    else:
        np.minimum(D, 0.0, out=D)
    if same:
        np.fill_diagonal(D, 0.0)
    return D


def _inner(X, Y):
    """X Yᵀ as a dense array in X's precision (a sparse product is made dense)."""
    K = X @ Y.T
    return K.toarray() if scipy.sparse.issparse(K) else np.asarray(K)


def _row_squared_norms(X):
    if scipy.sparse.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def linear_kernel(X, Y=None):
    """k(x, z) = xᵀz.

    Examples
    --------
    >>> from lucidml.kernels.functions import linear_kernel
    >>> linear_kernel([[1.0, 2.0]], [[3.0, 4.0]])
    array([[11.]])
    """
    X, Y = _check_pair(X, Y, accept_sparse="csr")
    return _inner(X, Y)


def polynomial_kernel(X, Y=None, degree=3, gamma=None, coef0=1.0):
    """k(x, z) = (γ xᵀz + c₀)^d, scikit-learn's parametrisation (γ = 1/n_features when None).

    γ = 1, c₀ = 0, d = k gives the homogeneous (xᵀz)^k; γ = 1, c₀ = c gives (xᵀz + c)^k, whose
    feature map holds all monomials of degree ≤ k (000 §6.5, 002 (5.62)).

    Examples
    --------
    >>> from lucidml.kernels.functions import polynomial_kernel
    >>> polynomial_kernel([[1.0, 2.0]], [[3.0, 4.0]], degree=2, gamma=1.0, coef0=1.0)
    array([[144.]])
    """
    X, Y = _check_pair(X, Y, accept_sparse="csr")
    K = _inner(X, Y)
    K *= _gamma(gamma, None, X.shape[1])
    K += coef0
    return (K**degree).astype(X.dtype, copy=False)  # a NumPy float64 degree would promote float32


def rbf_kernel(X, Y=None, gamma=None, sigma=None):
    """Gaussian kernel k(x, z) = exp(−γ‖x − z‖²).

    Give either ``gamma`` (scikit-learn's parameter; 1/n_features when both are None) or the
    bandwidth ``sigma`` of the notes, γ = 1/(2σ²) (000, 002). 001 writes exp(−‖x − z‖²/σ²), which is
    ``gamma=1/σ²``.

    Examples
    --------
    >>> from lucidml.kernels.functions import rbf_kernel
    >>> rbf_kernel([[0.0, 0.0]], [[1.0, 1.0]], sigma=1.0).round(6)
    array([[0.367879]])
    """
    X, Y = _check_pair(X, Y, accept_sparse="csr")
    g = _gamma(gamma, sigma, X.shape[1])
    if X.dtype == np.float32:  # ‖x‖² + ‖z‖² − 2xᵀz cancels: float32 would leave ≈ 1e-7·‖x‖² of noise
        return _float64_blocks(rbf_kernel, X, Y, gamma=g)
    D = _squared_distances(X, Y, Y is X, scale=-g)
    return np.exp(D, out=D)


def sigmoid_kernel(X, Y=None, gamma=None, coef0=1.0):
    """k(x, z) = tanh(γ xᵀz + c₀) (γ = 1/n_features when None).

    Not positive semi-definite in general, so not a Mercer kernel (:func:`check_kernel` shows it);
    001 §13.3 writes tanh(a·x + c) without z, which is a slip.

    Examples
    --------
    >>> from lucidml.kernels.functions import sigmoid_kernel
    >>> sigmoid_kernel([[1.0]], [[1.0]], gamma=1.0, coef0=0.0).round(6)
    array([[0.761594]])
    """
    X, Y = _check_pair(X, Y, accept_sparse="csr")
    K = _inner(X, Y)
    K *= _gamma(gamma, None, X.shape[1])
    K += coef0
    return np.tanh(K, out=K)


def laplacian_kernel(X, Y=None, gamma=None, sigma=None):
    """Laplacian kernel k(x, z) = exp(−γ‖x − z‖₁) = exp(−‖x − z‖₁/σ).

    ``gamma`` as in scikit-learn (1/n_features when both are None), or ``sigma`` with γ = 1/σ.

    Examples
    --------
    >>> from lucidml.kernels.functions import laplacian_kernel
    >>> laplacian_kernel([[0.0, 0.0]], [[1.0, -1.0]], sigma=2.0).round(6)
    array([[0.367879]])
    """
    X, Y = _check_pair(X, Y)
    g = _gamma(gamma, sigma, X.shape[1], sigma_power=1)
    if X.dtype == np.float32:  # cdist computes in float64: by blocks, not on float64 copies of X and Y
        return _float64_blocks(laplacian_kernel, X, Y, gamma=g)
    K = cdist(X, Y, "cityblock")
    K *= -g
    return np.exp(K, out=K)


def exponential_kernel(X, Y=None, gamma=None, sigma=None):
    """Exponential kernel k(x, z) = exp(−γ‖x − z‖₂) with γ = 1/(2σ²) (unsquared Euclidean norm).

    ``gamma`` defaults to 1/n_features when both are None. The distance comes from ``cdist``
    rather than the BLAS expansion: the square root would magnify its cancellation error near 0.

    Examples
    --------
    >>> from lucidml.kernels.functions import exponential_kernel
    >>> exponential_kernel([[0.0, 0.0]], [[3.0, 4.0]], sigma=1.0).round(6)
    array([[0.082085]])
    """
    X, Y = _check_pair(X, Y)
    g = _gamma(gamma, sigma, X.shape[1])
    if X.dtype == np.float32:  # cdist computes in float64: by blocks, not on float64 copies of X and Y
        return _float64_blocks(exponential_kernel, X, Y, gamma=g)
    K = cdist(X, Y, "euclidean")
    K *= -g
    return np.exp(K, out=K)


def subset_product_kernel(X, Y=None):
    """All-subsets kernel k(x, z) = Πₖ (1 + xₖzₖ) (001 §13.2).

    Equals ⟨φ(x), φ(z)⟩ for the 2^d features φ_A(x) = Π_{k∈A} xₖ over all subsets A of the features,
    at cost O(d) per pair instead of O(2^d). The product is formed as exp(Σ log|1 + xₖzₖ|) times the
    parity of its negative factors, so it neither overflows nor underflows early for large d; the
    (n, m, d) factors are built a block of rows at a time to bound memory.

    Examples
    --------
    >>> from lucidml.kernels.functions import subset_product_kernel
    >>> subset_product_kernel([[1.0, 2.0]], [[3.0, 4.0]])
    array([[36.]])
    """
    X, Y = _check_pair(X, Y)
    if X.dtype == np.float32:  # a sum of d logarithms: accumulated in float64
        return _float64_blocks(subset_product_kernel, X, Y)
    n, m, d = X.shape[0], Y.shape[0], X.shape[1]
    K = np.empty((n, m))
    step = max(1, 2**22 // max(1, m * d))  # ≈ 32 MB of float64 factors per block
    with np.errstate(divide="ignore"):
        for start in range(0, n, step):
            F = 1.0 + X[start:start + step, None, :] * Y[None, :, :]
            log_abs = np.log(np.abs(F)).sum(axis=2)
            negative = np.count_nonzero(F < 0, axis=2) % 2 == 1
            block = np.exp(log_abs)
            block[negative] *= -1.0
            K[start:start + step] = block
    return K


def sum_of_powers_kernel(X, Y=None, degree=2):
    """k(x, z) = Σ_{k=0..p} ⟨x, z⟩^k with p = ``degree`` (004 §9).

    Its feature map lists the ordered monomials of every degree up to p. 004 §9 writes each term
    with exponent p; the k-th term is ⟨x, z⟩^k. Evaluated by Horner's rule, s ← s·t + 1.

    Examples
    --------
    >>> from lucidml.kernels.functions import sum_of_powers_kernel
    >>> sum_of_powers_kernel([[1.0, 1.0]], [[1.0, 0.0]], degree=3)
    array([[4.]])
    """
    if int(degree) != degree or degree < 0:
        raise ValueError(f"degree must be a non-negative integer, got {degree}.")
    X, Y = _check_pair(X, Y)
    T = X @ Y.T
    K = np.ones_like(T)
    for _ in range(int(degree)):
        K *= T
        K += 1.0
    return K
