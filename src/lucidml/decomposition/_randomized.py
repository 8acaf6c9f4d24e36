"""Randomized range finder and randomized SVD (Halko, Martinsson & Tropp 2011), shared by PCA,
TruncatedSVD and KernelPCA.

The idea: a few products of A with a Gaussian test matrix Ω already span, with high probability,
almost all of A's dominant column space. With l = k + p columns (p = oversampling),

    Y = (A Aᵀ)^q A Ω,   Q = orth(Y),   B = Qᵀ A  (l × n, small),   B = Û Σ Vᵀ,   U = Q Û,

gives A ≈ U Σ Vᵀ. Each power iteration q multiplies the weight of the k-th singular direction
against the (l+1)-th by (σₖ/σₗ₊₁)², so a handful of iterations make the result accurate even when
the spectrum decays slowly. Between products the block is re-normalized (LU or QR) so that
round-off does not wash out the smaller directions (Halko et al. §4.5; LU as in Li, Linderman,
Szlam et al. 2017, which is cheaper than QR and spans the same subspace).

A is any matrix-like supporting ``A @ M`` and ``A.T @ M`` (dense, sparse, or the implicitly
centred :class:`~lucidml.utils.centered.CenteredMatrix`).
"""

import numpy as np
import scipy.linalg
import scipy.sparse

from ..utils.centered import CenteredMatrix
from ..utils.linalg import factorization_threads

__all__ = ["CenteredMatrix", "randomized_range_finder", "randomized_svd", "resolve_power_iterations"]


def _dense(M):
    return M.toarray() if scipy.sparse.issparse(M) else np.asarray(M)


def resolve_power_iterations(n_iter, n_components, shape):
    """'auto' → 7 iterations for k < 0.1·min(m, n) (slow spectral decay matters most), else 4."""
    if n_iter == "auto":
        return 7 if n_components < 0.1 * min(shape) else 4
    return n_iter


def _normalize(Y, how):
    """A well-conditioned basis of range(Y): P·L of Y = P L U (LU) or Q of Y = QR.

    A tall Y of at most SMALL_MATRIX columns, and not too tall, is factored on one BLAS thread
    (``factorization_threads``): the products between the factorizations run in NumPy's pool, and
    SciPy's threads, left spinning by a threaded factorization, took the cores from them (a
    randomized SVD of 3,000 × 60: 70-80 ms against 4).
    """
    with factorization_threads(Y.shape[1], rows=Y.shape[0]):
        if how == "LU":
            return scipy.linalg.lu(Y, permute_l=True, check_finite=False, overwrite_a=True)[0]
        if how == "QR":
            return scipy.linalg.qr(Y, mode="economic", check_finite=False, overwrite_a=True)[0]
    return Y


def randomized_range_finder(A, size, n_iter, normalizer, rng, log=None):
    """An m × size matrix Q with orthonormal columns whose span approximates range(A).

    Y ← A Ω, then n_iter times: Y ← A · norm(Aᵀ · norm(Y)); finally Q = orth(Y). ``log`` (an
    ``IterationLog``) prints ``Iteration t`` after each power iteration: on a large sparse A each
    is a full pass over the data.
    """
    omega = rng.standard_normal(size=(A.shape[1], size)).astype(A.dtype, copy=False)
    Y = _dense(A @ omega)
    del omega  # as large as the short side's blocks: not kept through the iterations
    for t in range(n_iter):
        Z = _dense(A.T @ _normalize(Y, normalizer))
        Y = _dense(A @ _normalize(Z, normalizer))
        if log:
            log.iteration(t + 1)
    return _normalize(Y, "QR")


def randomized_svd(A, n_components, *, n_oversamples=10, n_iter="auto", normalizer="auto", rng, compute_u=True,
                   log=None):
    """Rank-k approximation A ≈ U diag(s) Vt by the randomized range finder; (U, s, Vt).

    ``log`` (an ``IterationLog``) prints the power iterations (see ``randomized_range_finder``).

    With ``compute_u=False`` U is returned as None (for a tall A this skips an m × l × k product).

    A wide matrix is handled through its transpose, so the orthonormal basis Q is always
    built on the longer side's partner: the test matrix has min(m, n) rows.
    """
    if isinstance(A, np.ndarray) or scipy.sparse.issparse(A):
        # Its products and the tall blocks Y, Q then stay in A's precision (a float32 A is neither
        # copied to float64 nor met with float64 blocks of its height).
        A = CenteredMatrix(A, None, keep_dtype=True)
    m, n = A.shape
    n_iter = resolve_power_iterations(n_iter, n_components, A.shape)
    if normalizer == "auto":
        normalizer = "none" if n_iter <= 2 else "LU"
    size = min(n_components + n_oversamples, m, n)
    if m < n:
        Vt, s, U = randomized_svd(A.T, n_components, n_oversamples=n_oversamples, n_iter=n_iter,
                                  normalizer=normalizer, rng=rng, log=log)
        return (U.T if compute_u else None), s, Vt.T
    Q = randomized_range_finder(A, size, n_iter, normalizer, rng, log)
    B = _dense(A.T @ Q).T  # Qᵀ A, computed as (AᵀQ)ᵀ so that sparse A stays on the left
    # The small l × n SVD in float64 whatever the data's precision.
    with factorization_threads(min(B.shape)):
        U_hat, s, Vt = scipy.linalg.svd(B.astype(np.float64, copy=False), full_matrices=False, check_finite=False,
                                        lapack_driver="gesdd")
    U = Q @ U_hat[:, :n_components].astype(Q.dtype, copy=False) if compute_u else None
    return U, s[:n_components], Vt[:n_components]
