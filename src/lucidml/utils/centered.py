"""Centred data without a centred copy: the one engine behind least squares, ridge and PCA.

Centring a sparse matrix fills it in, and a centred copy of a tall dense one costs more memory
than the products that follow. So the centred, scaled matrix

    A = diag(r) (X − 1μᵀ) diag(1/σ)        (r: row weights √sᵢ or 1; σ: column scales or 1)

is only ever applied (:class:`CenteredMatrix`), and its Gram matrix AᵀA is formed from X's own
products (:func:`centered_gram`). Products run in X's precision: a float32 X is never copied to
float64; what they return, and every sum, is float64.
"""

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

from .linalg import FLOAT32_BLOCK_ROWS, blas_gram, blas_product, product_in_precision, sum_of_row_products

__all__ = ["CenteredMatrix", "CentredFeatures", "centered_gram", "centred", "centred_blocks", "column_means",
           "column_spreads", "uncentred"]

# Rows per block of the passes that must not copy X: a few MiB of float64 at a time, large enough
# for BLAS-3 speed.
_BLOCK_BYTES = 2**25
# Rows per block of an element-wise pass (no BLAS): a block that stays in the cache.
_CACHE_BLOCK_BYTES = 2**20


def centred_blocks(X, centre, rows_per_block):
    """(rows, X[rows] − centre) for consecutive slices of at most ``rows_per_block`` rows: every pass
    that needs X centred without a centred copy of it. The block is dense (a sparse X's rows are
    densified one block at a time) and in the precision of X and ``centre`` (NumPy's promotion)."""
    for start in range(0, X.shape[0], rows_per_block):
        rows = slice(start, start + rows_per_block)
        block = X[rows]
        yield rows, (block.toarray() if scipy.sparse.issparse(block) else block) - centre


def column_means(X, sample_weight=None):
    """The (weighted) mean of each column of a dense or sparse X, in float64, without an n × d
    temporary (NumPy's weighted average broadcasts the weights to one)."""
    if not scipy.sparse.issparse(X):
        if sample_weight is not None:
            return sum_of_row_products(X, sample_weight[:, None])[:, 0] / sample_weight.sum()
        return np.average(X, axis=0).astype(np.float64, copy=False)
    if sample_weight is None:
        return np.asarray(X.sum(axis=0, dtype=np.float64)).ravel() / X.shape[0]
    return np.asarray(X.T @ sample_weight, dtype=np.float64) / sample_weight.sum()


def column_spreads(X, x_mean, sample_weight=None):
    """The (weighted) root mean square of each column of a dense or sparse X about ``x_mean``, in
    float64, without an n × d copy. A dense X is centred block by block in a small buffer, so
    nothing cancels (Σx² − n x̄² loses every digit of a feature of mean 1e7 and spread 1). A sparse
    X stays sparse: Σsx² − 2x̄Σsx + (Σs)x̄², whose cancellation, for columns with large means beside
    their spread, only blurs a scale (the callers': a preconditioner's)."""
    n, d = X.shape
    total_weight = float(n if sample_weight is None else sample_weight.sum())
    if scipy.sparse.issparse(X):
        squares = X.multiply(X)
        if sample_weight is None:
            sums, square_sums = np.asarray(X.sum(axis=0)).ravel(), np.asarray(squares.sum(axis=0)).ravel()
        else:
            sums, square_sums = X.T @ sample_weight, squares.T @ sample_weight
        moment = square_sums - 2.0 * x_mean * sums + total_weight * x_mean**2
        return np.sqrt(np.maximum(np.asarray(moment, dtype=np.float64), 0.0) / total_weight)
    total = np.zeros(d)
    for rows, block in centred_blocks(X, x_mean, max(1, _CACHE_BLOCK_BYTES // (8 * max(d, 1)))):
        if sample_weight is None:
            total += np.einsum("ij,ij->j", block, block)
        else:
            total += np.einsum("i,ij,ij->j", sample_weight[rows], block, block)
    return np.sqrt(total / total_weight)


class CentredFeatures:
    """Mixin of the smooth linear models' objectives (``linear._log_loss``, ``linear._glm_solvers``):
    their solvers see the features centred, x − x̄, and θ's intercepts b′ are those of the centred
    features (:func:`uncentred` converts). ``x_spread``, the features' weighted spreads about x̄ (the
    scales of ``optim.scaling``), is computed when a first-order solver first asks: one pass over
    X that Newton and IRLS do not need."""

    def _set_centre(self, X, sample_weight, fit_intercept, x_mean=None):
        """x̄: X's (weighted) means, or ``x_mean`` (a chunk of a larger X passes the whole table's,
        so that every chunk reads θ alike); 0 without an intercept (no centring)."""
        if not fit_intercept:
            x_mean = np.zeros(X.shape[1])
        self.x_mean = column_means(X, sample_weight) if x_mean is None else np.asarray(x_mean, dtype=np.float64)
        self._spread_weight = sample_weight
        self._x_spread = None

    @property
    def x_spread(self):
        if self._x_spread is None:
            self._x_spread = column_spreads(self.X, self.x_mean, self._spread_weight)
        return self._x_spread


def uncentred(W, b, x_mean):
    """(W, b) of z = Wx + b from the (W, b′) of z = W(x − x̄) + b′."""
    return W, b - W @ x_mean


def centred(W, b, x_mean):
    """(W, b′) of z = W(x − x̄) + b′ from the (W, b) of z = Wx + b: :func:`uncentred`'s inverse."""
    return W, b + W @ x_mean


class CenteredMatrix:
    """A = diag(r)(X − 1μᵀ)diag(1/σ) without forming it (``row_weight`` r, ``scale`` σ: None for 1;
    ``mean`` μ: None for no centring, X's products in its precision only).

        A M = r ∘ (X (M/σ) − 1 μᵀ(M/σ)),     Aᵀ M = (Xᵀ(r ∘ M) − μ 1ᵀ(r ∘ M)) / σ.

    Supports ``A @ M`` and ``A.T @ M`` for vectors and matrices (the randomized SVD), and
    :meth:`operator` gives SciPy's ``LinearOperator`` (LSQR, ARPACK). Products are returned in
    float64 (what the iterative solvers need), or with ``keep_dtype`` in X's precision (the
    randomized SVD's tall blocks, which scikit-learn also keeps in float32 for float32 data).
    """

    def __init__(self, X, mean, scale=None, row_weight=None, keep_dtype=False):
        self.X, self.mean, self.scale, self.row_weight = X, mean, scale, row_weight
        self.shape = X.shape
        self.dtype = X.dtype if keep_dtype else np.dtype(np.float64)

    def __matmul__(self, M):
        if self.scale is not None:
            M = M / (self.scale[:, None] if M.ndim == 2 else self.scale)
        out = product_in_precision(self.X, M, self.dtype)
        if self.mean is not None:
            shift = self.mean @ M
            out -= shift if M.ndim == 1 else shift[None, :]
        if self.row_weight is not None:
            out *= self.row_weight[:, None] if out.ndim == 2 else self.row_weight
        return out

    def rmatmul_t(self, M):
        """Aᵀ M."""
        if self.row_weight is not None:
            M = M * (self.row_weight[:, None] if M.ndim == 2 else self.row_weight)
        out = product_in_precision(self.X.T, M, self.dtype)
        if self.mean is not None:  # μ (1ᵀM), a rank-one term: added column by column, not as an outer product
            if M.ndim == 2:
                for column, total in enumerate(M.sum(axis=0)):
                    out[:, column] -= total * self.mean
            else:
                out -= M.sum() * self.mean
        if self.scale is not None:
            out /= self.scale[:, None] if out.ndim == 2 else self.scale
        return out

    @property
    def T(self):
        return _Transposed(self)

    def operator(self):
        """A as a SciPy ``LinearOperator``."""
        return scipy.sparse.linalg.LinearOperator(
            self.shape, matvec=lambda v: self @ np.ravel(v), rmatvec=lambda v: self.rmatmul_t(np.ravel(v)),
            matmat=lambda M: self @ M, rmatmat=lambda M: self.rmatmul_t(M), dtype=np.float64)


class _Transposed:
    def __init__(self, centered):
        self.centered = centered
        self.shape = centered.shape[::-1]
        self.dtype = centered.dtype

    def __matmul__(self, M):
        return self.centered.rmatmul_t(M)

    @property
    def T(self):
        return self.centered


def centered_gram(X, Y, sample_weight, x_mean, y_mean, at_means=True):
    """(XcᵀSXc, XcᵀSYc) with Xc = X − 1x̄ᵀ, Yc = Y − 1ȳᵀ, S = diag(s), in float64, without copying X.

    ``Y`` (n, n_targets) may be None: then only the Gram matrix is returned (moment None).
    ``at_means``: x̄ and ȳ are the means weighted by s (least squares); False: any centres (IRLS,
    whose s changes while the centre stays). XᵀSX − (Σs)x̄x̄ᵀ (at the means; else XᵀSX − cx̄ᵀ − x̄cᵀ
    + (Σs)x̄x̄ᵀ with c = XᵀS1) from one product of X with itself is fastest, and exact enough when
    every centre is at most its feature's spread: it loses about log₁₀(1 + x̄ⱼ²/varⱼ) digits, under
    half a digit then. It is used for unweighted float64 and for sparse X when that holds, and for
    every sparse X about other centres (a Newton or IRLS system). Otherwise X is centred block by
    block into a small buffer (densified, for a sparse X), where nothing cancels.
    A dense float32 X is centred and multiplied in float32 (single-precision BLAS, twice as fast),
    in blocks of a few thousand rows whose products are summed in float64: each block's sums are
    short, so they lose no more than a float32 product of that length does.
    """
    n, d = X.shape
    sparse = scipy.sparse.issparse(X)
    if sparse or (sample_weight is None and X.dtype == np.float64):
        weighted = X if sample_weight is None else (
            scipy.sparse.diags(sample_weight) @ X if sparse else X * sample_weight[:, None])
        total = n if sample_weight is None else float(sample_weight.sum())
        # The Gram matrix's diagonal, Σᵢ sᵢxᵢⱼ², decides the path before the d² product is paid for.
        squares = (np.asarray(weighted.multiply(X).sum(axis=0)).ravel() if sparse
                   else np.einsum("ij,ij->j", X, X))
        # About any centre (a Newton or IRLS system, which only sets a step's direction) a sparse X is
        # never densified: one dense-ish column would turn the whole product into dense blocks.
        if (sparse and not at_means) or np.all(total * x_mean**2 <= 0.5 * squares):
            # Dense products by blas_gram/blas_product, which choose their BLAS pool (see utils.linalg).
            gram = np.asarray((X.T @ weighted).toarray() if sparse else blas_gram(X), dtype=np.float64)
            if not at_means:
                column_sums = np.asarray(weighted.sum(axis=0), dtype=np.float64).ravel()  # c
                gram -= np.outer(column_sums, x_mean) + np.outer(x_mean, column_sums)
                gram += total * np.outer(x_mean, x_mean)
            else:
                gram -= total * np.outer(x_mean, x_mean)
            if Y is None:
                return gram, None
            Y = np.asarray(Y, dtype=np.float64)
            moment = np.asarray(weighted.T @ Y if sparse else blas_product(weighted, Y, transpose_a=True),
                                dtype=np.float64)
            if not at_means:
                target_sums = Y.sum(axis=0) if sample_weight is None else sample_weight @ Y  # 1ᵀSY
                moment -= np.outer(column_sums, y_mean) + np.outer(x_mean, target_sums)
                moment += total * np.outer(x_mean, y_mean)
            else:
                moment -= total * np.outer(x_mean, y_mean)
            return gram, moment
    gram = np.zeros((d, d))
    moment = None if Y is None else np.zeros((d, Y.shape[1]))
    single = not sparse and X.dtype == np.float32
    dtype = np.float32 if single else np.float64
    block = FLOAT32_BLOCK_ROWS if single else max(1, _BLOCK_BYTES // (8 * max(d, 1)))
    for rows, centred in centred_blocks(X, x_mean.astype(dtype), block):
        weights = None if sample_weight is None else np.sqrt(sample_weight[rows])[:, None]
        if weights is not None:
            centred *= weights.astype(dtype)
        gram += blas_gram(centred)
        if Y is not None:
            target = Y[rows] - y_mean
            moment += blas_product(centred, (target if weights is None else target * weights).astype(dtype),
                                    transpose_a=True)
    return gram, moment
