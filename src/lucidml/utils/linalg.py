"""Small linear-algebra helpers shared by the estimators."""

import functools
from collections import namedtuple
from contextlib import contextmanager

import numpy as np
import scipy.linalg
import scipy.sparse
from threadpoolctl import ThreadpoolController

from ._param_validation import thread_count
from ._pool import pool_map

__all__ = [
    "EigenSplit", "SMALL_MATRIX", "TRUSTED_CONDITION", "blas_gram", "blas_product", "blas_threads", "cholesky_factor",
    "cholesky_or_none", "factorization_threads", "in_precision", "pivots_above_roundoff", "product_in_precision",
    "minimum_norm_if_deficient", "refine_cholesky_solve", "scaled_eigen_split", "shifted_copy", "sum_of_row_products",
    "trusted_factor",
]

# Below this order, a factorization is faster on one BLAS thread: waking a second thread costs
# more than it saves (a 64 × 64 eigh takes 2.8 ms on two OpenBLAS threads, 0.5 ms on one).
SMALL_MATRIX = 256


@functools.cache
def _controller():
    # Made once: threadpoolctl's threadpool_limits() rescans every loaded library on each call
    # (milliseconds); a controller's limit() does not.
    return ThreadpoolController()


@contextmanager
def blas_threads(limit):
    """Context manager running BLAS/LAPACK calls on at most ``limit`` threads.

    It sets and restores each BLAS library's thread count directly (a few µs): threadpoolctl's
    ``limit()`` takes about 50 µs, as much as a whole small fit. As with threadpoolctl, the count
    is one setting per process, so threads that limit BLAS at the same time share it. ``None``
    leaves every library as it is.
    """
    if limit is None:
        yield
        return
    libraries = [lib for lib in _controller().lib_controllers if lib.user_api == "blas"]
    previous = [lib.get_num_threads() for lib in libraries]
    lowered = [(lib, n) for lib, n in zip(libraries, previous, strict=True) if n is not None and n > limit]
    for lib, _ in lowered:
        lib.set_num_threads(limit)
    try:
        yield
    finally:
        for lib, n in lowered:
            lib.set_num_threads(n)


def factorization_threads(order, rows=None):
    """Context manager for a LAPACK factorization of a ``rows`` × ``order`` matrix (square when
    ``rows`` is None): one BLAS thread up to SMALL_MATRIX columns and about 50 ms of one thread's
    work (faster there, and SciPy's pool is left asleep: see the note below), else as set."""
    rows = order if rows is None else rows
    return blas_threads(1 if order <= SMALL_MATRIX and rows * order * order <= _SERIAL_FACTORIZATION_WORK else None)


# rows · order² of the largest factorization run on one thread (a tall QR of 10⁶ × 100 is not).
_SERIAL_FACTORIZATION_WORK = 2**28


# NumPy and SciPy each bundle their own OpenBLAS, each with its own pool of threads. After a
# parallel call, a pool's threads spin for more work for about a tenth of a second before they
# sleep, and while they spin they take the cores from the other library's next call (on two cores
# a 25,000 × 50 product took 0.25 ms in a pool just used, 3.5-7 ms right after the other pool's
# call). NumPy's pool is the one every predict and the user's own code use, so lucidml keeps SciPy's
# asleep where it can: factorizations up to SMALL_MATRIX run on one thread
# (:func:`factorization_threads`), Gram matrices on lucidml's own threads (:func:`blas_gram`), and
# other products in NumPy's pool. Only the products that feed a larger factorization, which SciPy
# threads, go to SciPy's pool through :func:`blas_product`: there NumPy's spinning threads had
# doubled the solve (a Gram matrix of 2,344 × 310 by NumPy's ``@`` followed by SciPy's
# rank-revealing QR took 62 ms, against 30 ms with the Gram matrix made by SciPy).


def _several_blas_threads():
    """Whether some BLAS library may run on more than one thread now (a few µs to ask)."""
    return any((lib.get_num_threads() or 1) > 1 for lib in _controller().lib_controllers if lib.user_api == "blas")


def _in_scipys_pool(order):
    """Whether the products feeding a factorization of this order run in SciPy's pool (see above)."""
    return order > SMALL_MATRIX and _several_blas_threads()


def _fortran_view(A):
    """(M, transposed): a Fortran-ordered M with A = M or A = Mᵀ, copying only a strided A."""
    if A.flags.f_contiguous:
        return A, False
    if A.flags.c_contiguous:
        return A.T, True
    return np.asfortranarray(A), False


def blas_gram(X):
    """XᵀX (d × d) of a float32 or float64 X (n × d), in X's precision.

    OpenBLAS threads a Gram matrix over its d × d output, which for a tall X gains nothing: on two
    cores XᵀX of 100,000 × 100 took 37 ms by SciPy's ``syrk`` on two threads, 35 on one, 42-70 by
    NumPy's threaded ``@``. So a tall X (n ≥ 32 d) is split in blocks of rows instead, one per
    thread of lucidml's pool (``n_threads``), each block's product by NumPy on one BLAS thread
    (SciPy's BLAS wrappers hold the GIL), and the blocks' Gram matrices summed: 20 ms, and no BLAS
    pool is left spinning (see the note on the two pools above). Otherwise one product: by SciPy's
    ``syrk`` where a large factorization follows (see :func:`blas_product`), else by NumPy.
    """
    n, d = X.shape
    threads = 1 if n * d * d < _SERIAL_GRAM_WORK else thread_count(None)
    if threads > 1 and n >= 32 * d:
        bounds = np.linspace(0, n, threads + 1).astype(np.intp)
        parts = pool_map(threads, lambda start, stop: _gram_of_block(X[start:stop]), bounds[:-1], bounds[1:])
        return functools.reduce(np.add, parts)
    if not _in_scipys_pool(d):
        return _gram_of_block(X)
    M, transposed = _fortran_view(X)
    syrk = scipy.linalg.get_blas_funcs("syrk", (M,))
    upper = syrk(1.0, M, trans=0 if transposed else 1)  # M Mᵀ for M = Xᵀ, else Mᵀ M
    return np.triu(upper) + np.triu(upper, 1).T


# Below this n·d² (about 0.5 ms of products) a Gram matrix is one product in the calling thread.
_SERIAL_GRAM_WORK = 2**24


def _gram_of_block(rows):
    """rowsᵀ rows by NumPy's BLAS, by ``syrk``: one triangle, mirrored, so symmetric to the bit. A
    block whose elements are strided both ways (columns taken with a step) is copied first: NumPy
    2.4 multiplies it as two operands, each copied, by ``gemm`` (6,000 × 60 float32: 2.8 ms against
    1.1), whose kernels may sum the (i, j) and (j, i) entries in different orders (OpenBLAS's
    Haswell kernels did, by up to 1e-4 in float32)."""
    if min(rows.strides) != rows.itemsize:
        rows = np.ascontiguousarray(rows)
    return rows.T @ rows


def blas_product(A, B, transpose_a=False):
    """A @ B, or Aᵀ @ B with ``transpose_a``, by the BLAS of SciPy's LAPACK (``gemv``/``gemm``) when
    A's smaller side exceeds SMALL_MATRIX (the order of the factorization its products feed) and BLAS
    is threaded, else by NumPy (see the note above). A is 2-D, B 1-D or 2-D, both float32 or float64."""
    if not _in_scipys_pool(min(A.shape)):
        return (A.T if transpose_a else A) @ B
    M, transposed = _fortran_view(A)
    trans_a = int(transposed != transpose_a)  # op(M) is the A (or Aᵀ) asked for
    if B.ndim == 1:
        gemv = scipy.linalg.get_blas_funcs("gemv", (M, B))
        return gemv(1.0, M, B, trans=trans_a)
    N, transposed_b = _fortran_view(B)
    gemm = scipy.linalg.get_blas_funcs("gemm", (M, N))
    return gemm(1.0, M, N, trans_a=trans_a, trans_b=int(transposed_b))


def cholesky_or_none(A, lower=True):
    """Cholesky factor of the symmetric matrix A, or None when A is not numerically positive definite
    (see :func:`pivots_above_roundoff`)."""
    try:
        with factorization_threads(A.shape[0]):
            factor = scipy.linalg.cholesky(A, lower=lower, check_finite=False)
    except scipy.linalg.LinAlgError:
        return None
    return factor if pivots_above_roundoff(factor, A) else None


# Below this condition number of X with its columns scaled to unit length (LAPACK's estimate from a
# Cholesky factor of XᵀX), no eigenvalue of the scaled XᵀX can be at the rounding level: X has full rank.
# And a least-squares solve from XᵀX (a Cholesky route, or the eigen split) with one refinement step
# contracts its error by about κ²·ε ≤ 1e8 · 2.2e-16 below it: as accurate as a QR solve.
TRUSTED_CONDITION = 1e4


def trusted_factor(lower):
    """Whether the Cholesky factor L of a Gram matrix XᵀX = LLᵀ shows X well-conditioned: κ₁(D⁻¹L) ≤
    :data:`TRUSTED_CONDITION` (LAPACK's estimate), D the lengths of X's columns, so that a feature in
    small units does not count as a missing direction (D⁻¹L is the factor of D⁻¹XᵀXD⁻¹)."""
    lengths = np.sqrt(np.einsum("ij,ij->i", lower, lower))  # ‖row i of L‖ = √(XᵀX)ᵢᵢ
    if not np.all(lengths > 0):
        return False
    reciprocal, _ = scipy.linalg.lapack.dtrcon(lower / lengths[:, None], norm="1", uplo="L")
    return reciprocal * TRUSTED_CONDITION >= 1.0


class EigenSplit(namedtuple("EigenSplit", ["scale", "nonzero", "values", "vectors", "kept", "dropped"])):
    """The eigenpairs (``values``, ``vectors``) of S = D⁻¹GD⁻¹, G = XᵀX on its nonzero columns and D
    their lengths (``scale`` = D⁻¹, 0 for a zero column), split into X's directions (``kept``) and
    those X misses (``dropped``). Made by :func:`scaled_eigen_split`."""

    @property
    def rank(self):
        return int(self.kept.sum())

    def least_norm(self, rhs):
        """The solution of least norm of XᵀXw = rhs (d × targets) on X's range: w₀ = D⁻¹V₊Λ₊⁻¹V₊ᵀD⁻¹·rhs,
        minus its component in X's null space D⁻¹V₀ (orthonormalized: D⁻¹V₀ is not orthogonal to
        D⁻¹V₊ unless D ∝ I). A zero column's coefficient is 0."""
        scale, nonzero, basis = self.scale, self.nonzero, self.vectors[:, self.kept]
        coef = np.zeros(rhs.shape)
        coef[nonzero] = basis @ ((basis.T @ (scale[nonzero, None] * rhs[nonzero])) / self.values[self.kept, None])
        coef *= scale[:, None]
        if np.any(self.dropped):
            null = np.zeros((len(scale), int(self.dropped.sum())))
            null[nonzero] = self.vectors[:, self.dropped] * scale[nonzero, None]
            null = scipy.linalg.qr(null, mode="economic", check_finite=False)[0]
            coef -= null @ (null.T @ coef)
        return coef


def scaled_eigen_split(gram, n, clean=True):
    """:class:`EigenSplit` of the Gram matrix G = XᵀX of an n-row X; None when G is not finite or
    zero, or (``clean``) when its spectrum does not split cleanly.

    The columns are scaled to unit length first, so that a feature in small units is not mistaken for
    a missing direction: S's eigenvalues resolve only down to its rounding, ε·λ_max. Eigenvalues at
    most max(n, d)·ε·λ_max are X's missing directions (dropped). ``clean``: every other eigenvalue
    must be at least λ_max / :data:`TRUSTED_CONDITION`² (κ ≤ 1e4 on X's range, where the solution is
    as accurate as a QR's), else None; otherwise all of them are kept, whatever the conditioning.
    """
    d = gram.shape[0]
    lengths = np.sqrt(np.maximum(np.diag(gram), 0.0))
    nonzero = lengths > 0
    if not (np.any(nonzero) and np.all(np.isfinite(gram))):
        return None
    scale = np.zeros(d)
    scale[nonzero] = 1.0 / lengths[nonzero]
    try:
        with factorization_threads(d):
            scaled = gram[np.ix_(nonzero, nonzero)] * np.outer(scale[nonzero], scale[nonzero])
            values, vectors = scipy.linalg.eigh(scaled, check_finite=False, driver="evd")
    except scipy.linalg.LinAlgError:
        return None
    dropped = values <= max(n, d) * np.finfo(np.float64).eps * values[-1]
    kept = values >= values[-1] / TRUSTED_CONDITION**2 if clean else ~dropped
    if not np.all(kept | dropped):
        return None
    return EigenSplit(scale, nonzero, values, vectors, kept, dropped)


def minimum_norm_if_deficient(gram, rhs, n, lower=None):
    """(w, rank): the least-squares solution of least norm, from the Gram matrix G = XᵀX of an
    n-row X and rhs = XᵀY, when X is rank-deficient to rounding; None when it is not, or when that
    cannot be told (the caller's solution stands).

    A singular Gram matrix can factorize "successfully" on its rounding (a centred 30 × 30 X of rank
    29: a coefficient norm 1582 for the minimum-norm 19.4). The rank is read from a clean split of
    the scaled spectrum (:func:`scaled_eigen_split`). ``lower``: G's Cholesky factor, when the caller
    has one: a scaled κ ≤ :data:`TRUSTED_CONDITION` settles "full rank" without an eigensolve.
    """
    if lower is not None and trusted_factor(lower):
        return None
    split = scaled_eigen_split(gram, n)
    if split is None or (np.all(split.nonzero) and not np.any(split.dropped)):
        return None
    return split.least_norm(rhs.reshape(gram.shape[0], -1)).reshape(rhs.shape), split.rank


def pivots_above_roundoff(factor, A):
    """Whether every pivot of A's Cholesky factor stands above round-off: Lᵢᵢ² > d·ε·Aᵢᵢ.

    Round-off can leave a tiny positive pivot where A is singular in exact arithmetic. Lᵢᵢ²/Aᵢᵢ is
    the share of variable i that the variables before it leave unexplained (1 − R² for a Gram or
    covariance matrix), whatever the variables' units; against the largest pivot instead (the rule
    until stop 55), a feature in units 1e8 times larger than another's made XᵀX "singular"."""
    pivots = np.diag(factor)
    return bool(np.all(pivots * pivots > A.shape[0] * np.finfo(np.float64).eps * np.diag(A)))


def cholesky_factor(A, overwrite_a=False):
    """``scipy.linalg.cho_factor(A)`` of a symmetric A: (U, False) with A = UᵀU, U Fortran-ordered,
    for ``cho_solve``. Raises ``LinAlgError`` when A is not positive definite.

    For a kernel matrix the factorization is the one threaded step of a fit. Made by NumPy it
    leaves NumPy's threads spinning for the predict that follows (NumPy's products), where SciPy's
    spinning threads slowed the first predicts after a fit three to seven times (see the note on
    the two pools above). But NumPy needs two n × n buffers beside A, so above
    ``NUMPY_CHOLESKY_BYTES`` SciPy factors A in place instead (with ``overwrite_a``: A's transpose,
    the same symmetric matrix in Fortran order, so that no copy is made either).
    """
    if A.nbytes <= NUMPY_CHOLESKY_BYTES:
        with factorization_threads(A.shape[0]):
            return np.linalg.cholesky(A).T, False
    return scipy.linalg.cho_factor(A.T, lower=False, overwrite_a=overwrite_a, check_finite=False)


def shifted_copy(A, shift):
    """A + shift·I as a new array (A square; its precision kept)."""
    shifted = A.copy()
    shifted.flat[:: A.shape[0] + 1] += shift
    return shifted


# Largest matrix factored by NumPy in cholesky_factor (4096 × 4096 float64): its two extra copies.
NUMPY_CHOLESKY_BYTES = 2**27


def inverse_lower_triangular(lower):
    """L⁻¹ of a nonsingular lower-triangular L (LAPACK ``trtri``: d³/3 flops, a third of solving L X = I).

    Callers pass factors from :func:`cholesky_or_none`, whose pivots are checked; a zero pivot
    is still refused with a ValueError (never a LinAlgError reaching the user).
    """
    trtri = scipy.linalg.get_lapack_funcs("trtri", (lower,))
    inverse, info = trtri(lower, lower=1)
    if info != 0:
        raise ValueError(f"The triangular factor is singular (its pivot {info} is zero); it has no inverse.")
    return np.tril(inverse)


def in_precision(value, dtype):
    """A fitted scalar or array in the data's precision (float32 data, float32 coefficients: what
    scikit-learn returns), whatever precision the solver worked in. A float64 scalar stays a
    Python float."""
    if np.ndim(value) == 0:
        return float(value) if dtype == np.float64 else dtype.type(value)
    return np.asarray(value, dtype=dtype)


def product_in_precision(X, v, dtype=np.float64):
    """X @ v in X's precision, returned as ``dtype`` (None: X's own): a float32 X (dense or sparse)
    is multiplied as float32 instead of being copied to float64 by NumPy's type promotion, and by
    default what follows (sums, exponentials, the optimizer's state) stays in float64."""
    v = v.astype(X.dtype, copy=False)
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype in (np.float32, np.float64) and X.size:
        result = blas_product(X, v)  # in the pool of the factorization it feeds (see above)
    else:
        result = X @ v
    if scipy.sparse.issparse(result):
        result = result.toarray()
    return np.asarray(result, dtype=dtype)


# Rows per block of a float32 sum over the samples: each block is summed in float32, the blocks in float64.
FLOAT32_BLOCK_ROWS = 4096


def sum_of_row_products(X, W):
    """Xᵀ W = Σᵢ xᵢ wᵢᵀ (X: n × d, W: n × k) as a float64 d × k array.

    A float64 X is one product. A float32 X is never promoted to a float64 copy: the product runs
    in float32 on blocks of a few thousand rows (single-precision BLAS, W's block cast to float32)
    and the blocks are summed in float64, so the long sum over n loses no more than a float32 sum
    of one block's length.
    """
    if X.dtype != np.float32:
        return np.asarray(X.T @ W, dtype=np.float64)
    out = np.zeros((X.shape[1], W.shape[1]))
    for start in range(0, X.shape[0], FLOAT32_BLOCK_ROWS):
        block = slice(start, start + FLOAT32_BLOCK_ROWS)
        out += X[block].T @ W[block].astype(np.float32, copy=False)
    return out


_REFINE_STEPS = 3
_BLOCK64 = 2**20  # elements of a float32 matrix taken to float64 at a time by _product64 (8 MiB)


def refine_cholesky_solve(A, factor, B, X, shift=0.0):
    """Mixed-precision iterative refinement of X ≈ (A + shift·I)⁻¹B, solved with ``factor`` =
    ``cho_factor`` of the float32 A + shift·I: X ← X + (A + shift·I)⁻¹r with the residual
    r = B − AX − shift·X in float64.

    The n × n A and the factor stay float32 (half the memory); each step gains about
    log10(1/(ε₃₂·cond)) digits, so a few give X to float64 accuracy for cond ≪ 1/ε₃₂ ≈ 1.7e7. The
    shift is applied exactly (a float32 diagonal would round it). A step that does not shrink r
    ends it (there float32 cannot refine). Returns X in float64.
    """
    X = np.asarray(X, dtype=np.float64).reshape(B.shape)
    residual = B - _product64(A, X) - shift * X
    size = np.linalg.norm(residual)
    for _ in range(_REFINE_STEPS):
        trial = X + scipy.linalg.cho_solve(factor, residual.astype(np.float32), check_finite=False)
        trial_residual = B - _product64(A, trial) - shift * trial
        trial_size = np.linalg.norm(trial_residual)
        if not trial_size < size:
            break
        X, residual, size = trial, trial_residual, trial_size
    return X


def _product64(A, X):
    """A @ X in float64 for a float32 A, by row blocks (no float64 copy of A)."""
    out = np.empty((A.shape[0], *X.shape[1:]))
    step = max(1, _BLOCK64 // max(1, A.shape[1]))
    for start in range(0, A.shape[0], step):
        out[start:start + step] = A[start:start + step].astype(np.float64) @ X
    return out
