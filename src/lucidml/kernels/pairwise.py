"""Gram matrices by kernel name or callable, and the Mercer (positive semi-definiteness) check."""

import inspect
import warnings
from dataclasses import asdict, dataclass

import numpy as np
from sklearn.utils import check_array

from ..utils.validation import FLOAT_DTYPES, largest_magnitude
from .functions import (
    _check_pair,
    exponential_kernel,
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
    subset_product_kernel,
    sum_of_powers_kernel,
)

__all__ = ["KERNELS", "KernelReport", "check_kernel", "finite_gram", "finite_values", "kernel_times",
           "pairwise_kernels"]

#: Kernel name → function ``f(X, Y=None, **params)``; "poly" is scikit-learn's alias of "polynomial".
KERNELS = {
    "linear": linear_kernel,
    "polynomial": polynomial_kernel,
    "poly": polynomial_kernel,
    "rbf": rbf_kernel,
    "sigmoid": sigmoid_kernel,
    "laplacian": laplacian_kernel,
    "exponential": exponential_kernel,
    "subset_product": subset_product_kernel,
    "sum_of_powers": sum_of_powers_kernel,
}
# The kernels built on inner products, which take sparse rows as they are.
SPARSE_FUNCTIONS = frozenset({linear_kernel, polynomial_kernel, rbf_kernel, sigmoid_kernel})

_CHUNK_ELEMENTS = 2**22  # rows per block chosen so one block of K holds ≈ 4M floats (32 MB)
# kernel_times's blocks hold about this many kernel values (8 MiB of float64).
PREDICT_BLOCK = 2**20


def kernel_times(kernel_rows, X, n_train, W, block=PREDICT_BLOCK):
    """``kernel_rows(X) @ W`` a block of X's rows at a time, each block of kernel values (rows ×
    ``n_train``) about ``block`` entries: what a prediction or a projection by a kernel
    model holds stays bounded however many rows it is asked about (one n_test × n_train matrix of
    100,000 × 100,000 rows would be 75 GiB). ``kernel_rows(rows)``: the rows' kernel values against
    the training rows (for kernel="precomputed", the rows themselves), as the model uses them."""
    step = max(1, block // max(1, n_train))
    with np.errstate(over="ignore", invalid="ignore"):  # (refused by finite_values)
        if X.shape[0] <= step:
            return kernel_rows(X) @ W
        return np.concatenate([kernel_rows(X[start:start + step]) @ W for start in range(0, X.shape[0], step)])


def finite_gram(K, model):
    """The training Gram matrix K of ``model``, or a ValueError if its kernel values overflowed (a
    polynomial kernel of large features): the solve would answer NaN. A finite sum proves K finite."""
    if not np.isfinite(K.sum()) and not np.all(np.isfinite(K)):
        raise ValueError(f"{type(model).__name__}: the kernel matrix of X overflowed (kernel={model.kernel!r}); "
                         "rescale the features (e.g. StandardScaler).")
    return K


def finite_values(values, model, X):
    """``values``, computed by ``model`` from X's kernel values, or a ValueError if they overflowed
    (features far larger than at fit, or a polynomial kernel's power): never NaN answers."""
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{type(model).__name__}: the kernel values of X with the training samples overflowed "
                         f"(kernel={model.kernel!r}, features up to {largest_magnitude(X):.3g}); rescale X as at fit.")
    return values


def pairwise_kernels(X, Y=None, kernel="linear", **params):
    """Gram matrix K[i, j] = k(xᵢ, zⱼ) for the rows of X (n, d) and Y (m, d).

    Parameters
    ----------
    X : array-like of shape (n, d)
    Y : array-like of shape (m, d) or None
        None means Y = X; the result is then exactly symmetric.
    kernel : str or callable, default="linear"
        A name in :data:`KERNELS` ("linear", "polynomial"/"poly", "rbf", "sigmoid", "laplacian",
        "exponential", "subset_product", "sum_of_powers"), "precomputed" (X is returned, checked, as
        the Gram matrix), or a callable.

        A callable is classified once on a small probe (up to 2 rows of X against 3 of Y):

        - if ``kernel(A, B)`` on row blocks returns an (a, b) array equal to the pairwise values, it is a
          *matrix* callable and is called once, on the full X and Y;
        - otherwise it is a *pairwise* callable ``kernel(x, z) → float`` of two 1-D vectors, looped in
          Python over all pairs (over i ≤ j when Y is None), with a warning that this is slow.
    **params
        Keyword arguments of the kernel (gamma, sigma, degree, coef0, ...).

    Returns
    -------
    K : ndarray of shape (n, m)
        float32 when X and Y (or the precomputed X) are float32, float64 otherwise.

    Notes
    -----
    Named kernels are computed a block of rows of X at a time, so temporaries stay bounded (≈ 32 MB)
    whatever n is; only K itself is n × m. A float32 K halves that; its distances are still formed
    in float64 (see :mod:`lucidml.kernels.functions`).

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.kernels.pairwise import pairwise_kernels
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> pairwise_kernels(X, kernel="polynomial", degree=2, gamma=1.0, coef0=0.0)
    array([[1., 0.],
           [0., 1.]])
    """
    if isinstance(kernel, str):
        if kernel == "precomputed":
            K = check_array(X, dtype=FLOAT_DTYPES)
            if Y is not None:
                raise ValueError("kernel='precomputed' takes the Gram matrix as X and no Y.")
            return K
        if kernel not in KERNELS:
            raise ValueError(f"Unknown kernel {kernel!r}; use one of {sorted(KERNELS)}, 'precomputed' or a callable.")
        return _blocked(KERNELS[kernel], X, Y, params)
    if not callable(kernel):
        raise TypeError(f"kernel must be a string or a callable, got {type(kernel).__name__}.")
    X, Y_ = _check_pair(X, Y)
    if _is_matrix_callable(kernel, X, Y_, params):
        K = np.asarray(kernel(X, Y_, **params), dtype=X.dtype)
        if K.shape != (X.shape[0], Y_.shape[0]):
            raise ValueError(f"The kernel callable returned shape {K.shape}, expected {(X.shape[0], Y_.shape[0])}.")
        return K
    warnings.warn("The kernel callable takes two vectors; it is looped over all pairs in Python, which is slow. "
                  "A callable on matrices (A, B) → K is called once.", UserWarning, stacklevel=2)
    return _looped(kernel, X, Y_, Y is None, params)


def takes_sparse(kernel):
    """Whether the named kernel is computed from the stored entries of sparse rows."""
    return isinstance(kernel, str) and KERNELS.get(kernel) in SPARSE_FUNCTIONS


def _kernel_params(kernel, gamma=None, degree=3, coef0=1.0, kernel_params=None):
    """The keyword arguments an estimator's (gamma, degree, coef0, kernel_params) give ``kernel``.

    A named kernel receives those of gamma/degree/coef0 that its function accepts, updated by
    ``kernel_params``; a callable receives ``kernel_params`` only (scikit-learn's rule).
    """
    params = dict(kernel_params or {})
    if isinstance(kernel, str) and kernel in KERNELS:
        accepted = inspect.signature(KERNELS[kernel]).parameters
        given = {"gamma": gamma, "degree": degree, "coef0": coef0}
        params = {**{k: v for k, v in given.items() if k in accepted}, **params}
    return params


def _blocked(func, X, Y, params):
    """Evaluate a named kernel a block of rows at a time."""
    X, Y_ = _check_pair(X, Y, accept_sparse="csr" if func in SPARSE_FUNCTIONS else False)
    n, m = X.shape[0], Y_.shape[0]
    step = max(1, _CHUNK_ELEMENTS // max(1, m))
    if n <= step:
        return func(X, None if Y is None else Y_, **params)
    K = np.empty((n, m), dtype=X.dtype)
    for start in range(0, n, step):
        K[start:start + step] = func(X[start:start + step], Y_, **params)
    if Y is None:  # blocks of X·Xᵀ may round differently above and below the diagonal: mirror the upper half
        for start in range(0, n, step):  # a block at a time (the n²/2 indices of the triangle at once
            stop = min(start + step, n)  # would take 8n² bytes, more than a float64 K)
            K[start:stop, :start] = K[:start, start:stop].T
            lower = np.tril_indices(stop - start, -1)
            diagonal = K[start:stop, start:stop]
            diagonal[lower] = diagonal.T[lower]
    return K


def _looped(kernel, X, Y, symmetric, params):
    n, m = X.shape[0], Y.shape[0]
    K = np.empty((n, m), dtype=X.dtype)
    for i in range(n):
        for j in range(i if symmetric else 0, m):
            K[i, j] = kernel(X[i], Y[j], **params)
            if symmetric:
                K[j, i] = K[i, j]
    return K


def _is_matrix_callable(kernel, X, Y, params):
    """Decide on a small probe whether ``kernel`` maps row blocks (A, B) to their Gram block."""
    A, B = X[:2], Y[:3]
    try:
        block = np.asarray(kernel(A, B, **params), dtype=np.float64)
    except Exception:  # noqa: BLE001 - any failure on row blocks means a pairwise callable
        return False
    if block.shape != (A.shape[0], B.shape[0]):
        return False
    try:
        pairs = _looped(kernel, A, B, False, params)
    except Exception:  # noqa: BLE001 - fails on single vectors, works on blocks
        return True
    return bool(np.allclose(block, pairs, rtol=1e-10, atol=1e-12))


@dataclass(frozen=True)
class KernelReport:
    """Outcome of :func:`check_kernel`; also readable as a dict (``report["is_psd"]``).

    Attributes
    ----------
    symmetric : bool
        max|K − Kᵀ| ≤ tol·max(1, max|K|).
    min_eigenvalue, max_eigenvalue : float
        Extreme eigenvalues of the symmetrised (K + Kᵀ)/2.
    is_psd : bool
        min_eigenvalue ≥ −tol·max(1, |max_eigenvalue|).
    is_valid : bool
        symmetric and is_psd: the sample gives no evidence against Mercer's condition.
    message : str
        What failed, in words, or that the sample passed.
    """

    symmetric: bool
    min_eigenvalue: float
    max_eigenvalue: float
    is_psd: bool
    is_valid: bool
    message: str

    def __getitem__(self, key):
        return getattr(self, key)

    def as_dict(self):
        return asdict(self)


def check_kernel(kernel, X=None, tol=1e-8, **params):
    """Test Mercer's condition on a sample: is the Gram matrix symmetric and positive semi-definite?

    A valid kernel gives a symmetric PSD Gram matrix on *every* sample (000 §6.6, 001 §13.4, 004 §9).
    One passing sample is therefore necessary, not sufficient evidence; one failing sample proves the
    kernel invalid (e.g. the constant k(x, z) = −1 of 000 §6.6, whose Gram matrix −11ᵀ has eigenvalue −n).

    Parameters
    ----------
    kernel : str, callable or array-like of shape (n, n)
        A kernel as accepted by :func:`pairwise_kernels`, or a precomputed Gram matrix (then X=None).
    X : array-like of shape (n, d) or None
        The sample; required unless ``kernel`` is a Gram matrix.
    tol : float, default=1e-8
        Relative tolerance for symmetry and for negative eigenvalues (times max(1, |λ_max|)).
    **params
        Kernel parameters, passed to :func:`pairwise_kernels`.

    Returns
    -------
    report : KernelReport
        Fields symmetric, min_eigenvalue, max_eigenvalue, is_psd, is_valid, message.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.kernels.pairwise import check_kernel
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> check_kernel("rbf", X, gamma=0.5).is_psd
    True
    >>> check_kernel(-np.ones((3, 3)))["is_psd"]
    False
    """
    if not tol >= 0:
        raise ValueError(f"tol must be >= 0, got {tol}.")
    if isinstance(kernel, str) or callable(kernel):
        if X is None:
            raise ValueError("check_kernel needs a sample X to build the Gram matrix of a kernel function.")
        # In float64 whatever X's precision: float32 rounding alone makes eigenvalues of about −1e-7·n.
        X = check_array(X, dtype=np.float64, accept_sparse=True)
        K = pairwise_kernels(X, kernel=kernel, **params)
    else:
        if X is not None:
            raise ValueError("Pass either a precomputed Gram matrix with X=None, or a kernel and X.")
        K = check_array(kernel, dtype=np.float64)
        if K.shape[0] != K.shape[1]:
            raise ValueError(f"A Gram matrix must be square, got shape {K.shape}.")
    scale = max(1.0, float(np.abs(K).max(initial=0.0)))
    asym = float(np.abs(K - K.T).max(initial=0.0))
    symmetric = asym <= tol * scale
    eig = np.linalg.eigvalsh((K + K.T) / 2.0)
    lo, hi = float(eig[0]), float(eig[-1])
    is_psd = lo >= -tol * max(1.0, abs(hi))
    problems = []
    if not symmetric:
        problems.append(f"K is not symmetric (max|K − Kᵀ| = {asym:.3g})")
    if not is_psd:
        problems.append(f"K is not positive semi-definite (smallest eigenvalue {lo:.3g}, largest {hi:.3g})")
    message = "; ".join(problems) if problems else (
        f"K is symmetric and PSD on this sample of {K.shape[0]} points (smallest eigenvalue {lo:.3g})")
    return KernelReport(symmetric, lo, hi, is_psd, symmetric and is_psd, message)
