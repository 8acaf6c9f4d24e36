"""The ways PCA finds the leading right singular vectors of the centred (optionally standardized)
data matrix A = (X − 1μᵀ) D⁻¹, D = diag(σ) or I.

Every solver returns (λ, Vt): λ the variances A's singular values give, λⱼ = σⱼ²/(m − 1), in
decreasing order, and Vt the matching unit right singular vectors as rows.
"""


import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg

from ..utils.centered import CenteredMatrix, centered_gram, centred_blocks
from ..utils.linalg import factorization_threads
from ..utils.numerics import times_power_of_two, units_exponent
from ..utils.validation import largest_magnitude
from ._randomized import randomized_svd

__all__ = ["arpack", "arpack_exponent", "arpack_svds", "column_moments", "covariance", "covariance_eigh", "deflation",
           "full_svd", "randomized"]

_CHUNK = 4096  # rows per block when a pass over X must not allocate a copy of X


def column_moments(X, scale=1.0):
    """Column means and population variances of dense or sparse ``scale`` · X, without copying X.

    Both are two-pass, Σᵢ (xᵢⱼ − μⱼ)² / n: E[x²] − μ² cancelled for columns far from 0 (a sparse
    X of 1e8 + noise: PCA's explained variance ratios 6% off and its standardized variances 5
    times too large). A power of two for ``scale`` scales exactly: the variances of X's values near
    1e±300, whose squares leave float64's range, are then those of X · 2⁻ᵉ times 4ᵉ.
    """
    n = X.shape[0]
    if scipy.sparse.issparse(X):
        mean = np.asarray(X.mean(axis=0)).ravel() * scale
        stored, deviations = _sparse_column_deviations(X, scale, mean)
        return mean, (deviations + (n - stored) * mean**2) / n  # + the implicit zeros' (0 − μⱼ)²
    mean = X.mean(axis=0, dtype=np.float64)
    sum_sq = np.zeros(X.shape[1])
    for _, block in centred_blocks(X, mean, _CHUNK):  # two-pass variance, block by block: no cancellation
        if scale != 1.0:
            block *= scale
        sum_sq += np.einsum("ij,ij->j", block, block)
    return mean * scale, sum_sq / n


def _sparse_column_deviations(X, scale, mean):
    """(stored entries per column, Σ (scale · x_ij − mean_j)² over them) of a sparse X, a block of
    entries at a time (X.multiply(X) would copy every entry: 120 MiB at 10 million)."""
    X = X if X.format in ("csr", "csc") else scipy.sparse.csr_matrix(X)
    if not X.has_canonical_format:  # a repeated (i, j) is one cell: sum its entries first
        X = X.copy()
        X.sum_duplicates()
    d = X.shape[1]
    if X.format == "csr":  # the column of each entry is its index
        stored, out = np.bincount(X.indices, minlength=d), np.zeros(d)
        step = _CHUNK * 256  # stored entries per block
        for start in range(0, X.nnz, step):
            columns = X.indices[start:start + step]
            values = X.data[start:start + step].astype(np.float64) * scale - mean[columns]
            out += np.bincount(columns, weights=values * values, minlength=d)
        return stored, out
    stored, out = np.diff(X.indptr), np.zeros(d)
    for first in range(0, d, _CHUNK):  # CSC: columns are runs of entries
        last = min(d, first + _CHUNK)
        columns = np.repeat(np.arange(first, last), stored[first:last])
        values = X.data[X.indptr[first]:X.indptr[last]].astype(np.float64) * scale - mean[columns]
        out[first:last] = np.bincount(columns - first, weights=values * values, minlength=last - first)
    return stored, out


def covariance(X, mean, scale):
    """C = D⁻¹ (X − 1μᵀ)ᵀ(X − 1μᵀ) D⁻¹ / (m − 1), without a centred copy of X (``centered_gram``)."""
    C, _ = centered_gram(X, None, None, mean, None)
    C /= X.shape[0] - 1
    if scale is not None:
        C /= np.outer(scale, scale)
    return C


def full_svd(X, mean, scale):
    """Exact SVD of A. For tall A (m ≥ 2d) first A = QR, then R = Û Σ Vᵀ: the same Σ and V for a
    third of LAPACK's cost of U (Chan's R-SVD); otherwise the SVD of A itself."""
    n, d = X.shape
    A = np.array(X, dtype=np.float64, order="F", copy=True)
    A -= mean
    if scale is not None:
        A /= scale
    if n >= 2 * d:
        geqrf = scipy.linalg.get_lapack_funcs("geqrf", (A,))
        qr, _, _, info = geqrf(A, overwrite_a=True)
        if info != 0:
            raise np.linalg.LinAlgError(f"LAPACK geqrf failed (info={info}).")
        A = np.triu(qr[:d])
    with factorization_threads(min(A.shape)):
        s, Vt = _svd(A)
    return s**2 / (n - 1), Vt


def _svd(A):
    try:
        _, s, Vt = scipy.linalg.svd(A, full_matrices=False, check_finite=False, overwrite_a=True)
    except np.linalg.LinAlgError:  # gesdd's rare failure to converge: the slower, sturdier gesvd
        _, s, Vt = scipy.linalg.svd(A, full_matrices=False, check_finite=False, lapack_driver="gesvd")
    return s, Vt


def covariance_eigh(C, n_components=None):
    """Eigenpairs of the d × d covariance C, largest first (only the top n_components if given).

    Round-off can make a zero eigenvalue slightly negative; it is clipped to 0.
    """
    d = C.shape[0]
    if n_components == 0:  # (LAPACK's index range would be empty: SciPy refuses it)
        return np.zeros(0), np.zeros((0, d))
    subset = None if n_components is None else [d - n_components, d - 1]
    with factorization_threads(d):
        values, vectors = scipy.linalg.eigh(C, subset_by_index=subset, check_finite=False, overwrite_a=True)
    return np.maximum(values[::-1], 0.0), vectors[:, ::-1].T


def randomized(X, mean, scale, n_components, n_oversamples, n_iter, normalizer, rng, log=None):
    """Randomized SVD (Halko et al. 2011) of A, centred implicitly: X is neither copied nor densified."""
    A = CenteredMatrix(X, mean, scale)
    _, s, Vt = randomized_svd(A, n_components, n_oversamples=n_oversamples, n_iter=n_iter,
                              normalizer=normalizer, rng=rng, compute_u=False, log=log)
    return s**2 / (X.shape[0] - 1), Vt


# ARPACK normalizes its Lanczos vectors by plain sums of squares: they overflow for entries beyond
# about 1e150 and underflow ("starting vector is zero") below about 1e-150.
_ARPACK_SAFE = (1e-100, 1e100)


def arpack_exponent(*arrays):
    """0, or the power of two e that brings the largest |entry| of ``arrays`` (dense or sparse, or
    None) into [0.5, 1) when it lies outside ARPACK's safe range; X·2⁻ᵉ is exact."""
    largest = max((largest_magnitude(a if scipy.sparse.issparse(a) else np.asarray(a)) for a in arrays
                   if a is not None), default=0.0)
    return units_exponent(largest, _ARPACK_SAFE)


def arpack(X, mean, scale, n_components, tol, rng):
    """Lanczos bidiagonalization (ARPACK through SciPy's ``svds``) of the implicitly centred A.

    Features of extreme magnitude (without standardizing) are run as X·2⁻ᵉ, μ·2⁻ᵉ and σ scaled back."""
    e = arpack_exponent(X, mean) if scale is None else 0
    if e:
        X, mean = times_power_of_two(X, -e), np.ldexp(mean, -e)
    A = CenteredMatrix(X, mean, scale)
    s, Vt = arpack_svds(A.operator(), n_components, tol, rng)
    return np.ldexp(s, e) ** 2 / (X.shape[0] - 1), Vt


def arpack_svds(A, k, tol, rng):
    """(σ, Vᵀ) of the k largest singular triplets of A (an array, sparse matrix or operator),
    largest first, by SciPy's ``svds`` (ARPACK) from a uniform random start v₀.

    ARPACK iterates on AᵀA (or AAᵀ, the smaller) and stops with "starting vector is zero" when that
    product of v₀ vanishes: A = 0 (a constant X, centred). Then σ = 0 and any orthonormal rows are
    the answer, as the other solvers give."""
    n_rows, n_cols = A.shape
    v0 = rng.uniform(-1.0, 1.0, size=min(n_rows, n_cols))
    image = A @ v0 if n_cols <= n_rows else A.T @ v0
    if not np.any(image):
        return np.zeros(k), np.eye(k, n_cols)
    try:
        _, s, Vt = scipy.sparse.linalg.svds(A, k=k, tol=tol, v0=v0, solver="arpack")
    except scipy.sparse.linalg.ArpackError as error:
        # A constant X whose mean does not round exactly: A·v₀ is rounding residue, which ARPACK's own
        # test reads as zero. (The message is the only trace of ARPACK's code, −9, that SciPy keeps.)
        if "Starting vector is zero" not in str(error):
            raise
        return np.zeros(k), np.eye(k, n_cols)
    order = np.argsort(s)[::-1]
    return s[order], Vt[order]


def deflation(C, n_components, target_ratio, tol, max_iter, rng):
    """Power iteration with deflation on the covariance C (004 §15, 002 (7.4)).

    For j = 1, 2, …: iterate v ← Cv/‖Cv‖ from a random unit v until ‖v_new − v‖ ≤ tol, take
    λⱼ = vᵀCv, then deflate C ← C − λⱼ vvᵀ. Deflating the covariance is the notes' deflation of
    the data, X ← X − Xvvᵀ, seen through C = XᵀX/(m − 1): (X − Xvvᵀ)ᵀ(X − Xvvᵀ) = XᵀX − λ(m − 1)vvᵀ
    for an eigenvector v, at d² instead of m·d per step. Each v is also kept orthogonal to the
    earlier ones, so that round-off left by the deflation cannot pull it back.

    Stops after n_components vectors, or as soon as the cumulative explained ratio reaches
    target_ratio (when given). Returns (λ, Vt, iterations per component).

    C is iterated in units of a power of two near its largest entry (an exact rescaling): ‖Cv‖
    squares C's entries, which overflowed from about 1e154 (X near 1e77: every λ 0) and underflowed
    below about 1e-160.
    """
    C = np.array(C, dtype=np.float64, copy=True)
    exponent = units_exponent(largest_magnitude(C))
    C = np.ldexp(C, -exponent)
    d = C.shape[0]
    total = float(np.trace(C))
    zero = d * np.finfo(np.float64).eps * max(total, np.finfo(np.float64).tiny)
    values, vectors, iterations = [], [], []
    limit = d if n_components is None else n_components
    while len(values) < limit:
        found = np.array(vectors).reshape(len(vectors), d)
        v = _orthogonal_unit(rng.standard_normal(d), found)
        n_iter = 0
        for n_iter in range(1, max_iter + 1):
            y = C @ v
            if np.linalg.norm(y) <= zero:  # only variance-0 directions are left: v is one
                break
            w = _orthogonal_unit(y, found, fallback=v)
            step = np.linalg.norm(w - v)
            v = w
            if step <= tol:
                break
        else:
            n_iter = max_iter + 1  # marks "did not converge" for the caller
        lam = max(float(v @ C @ v), 0.0)
        C -= lam * np.outer(v, v)
        values.append(lam)
        vectors.append(v)
        iterations.append(n_iter)
        if target_ratio is not None and total > 0 and sum(values) / total >= target_ratio:
            break
    return np.ldexp(np.array(values), exponent), np.array(vectors), np.array(iterations)


def _orthogonal_unit(v, basis, fallback=None):
    """v with its components along the rows of ``basis`` removed, normalized (twice, for accuracy)."""
    for _ in range(2):
        if len(basis):
            v = v - basis.T @ (basis @ v)
    norm = np.linalg.norm(v)
    if norm <= np.finfo(np.float64).tiny:  # C v = 0: every direction left has variance 0
        return fallback if fallback is not None else v
    return v / norm
