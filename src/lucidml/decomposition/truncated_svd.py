"""Truncated SVD of the uncentred data (latent semantic analysis)."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, validate_params
from ..utils.numerics import times_power_of_two
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_predict_data, check_scores
from ._pca_solvers import arpack_exponent, arpack_svds, column_moments
from ._randomized import randomized_svd
from .svd_tools import _flip_signs


class TruncatedSVD(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Rank-k SVD X ≈ U_k Σ_k V_kᵀ of X itself, without centring, so sparse X stays sparse.

    By Eckart–Young, U_k Σ_k V_kᵀ is the best rank-k approximation of X (seeds: 002 §7.2.2,
    (7.40)); ``transform`` returns the scores X V_k = U_k Σ_k. On a term–document matrix this is
    latent semantic analysis (000 §15.2). Unlike PCA the mean is not removed, so the first
    component mostly points at the mean.

    Algorithms:

    - ``"randomized"`` (Halko, Martinsson & Tropp 2011): Y = (XXᵀ)^q XΩ for a Gaussian Ω with
      k + ``n_oversamples`` columns, re-normalized between products; Q = orth(Y); the SVD of
      the small QᵀX gives Σ and V. Cost O(nnz·(k + p)·q).
    - ``"arpack"``: Lanczos bidiagonalization (ARPACK via SciPy ``svds``), k < min(m, n).
    - ``"full"``: LAPACK's SVD of dense X (sparse input is refused: it would be densified).

    Signs are fixed: the largest-magnitude entry of each component is positive (scikit-learn's
    rule).

    Parameters
    ----------
    n_components : int, default=2
        k.
    algorithm : {"randomized", "arpack", "full"}, default="randomized"
    n_iter : int, default=5
        Power iterations q of ``"randomized"``.
    n_oversamples : int, default=10
        Extra random directions p of ``"randomized"``.
    power_iteration_normalizer : {"auto", "QR", "LU", "none"}, default="auto"
        Re-normalization between power iterations; "auto" = LU, or none for q ≤ 2.
    random_state : int, RandomState instance or None, default=None
        Random test matrix of ``"randomized"``, start vector of ``"arpack"``.
    tol : float, default=0.0
        ARPACK's tolerance (0 = machine precision).
    verbose : int, default=0
        1 or more prints, on standard output, ``Iteration t`` after each power iteration of
        ``"randomized"`` (each a pass over X) and one closing line ``Algorithm a, n_components = k,
        explained_variance_ratio = …`` (the sum of ``explained_variance_ratio_``); 0 prints nothing.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        V_kᵀ, the right singular vectors as rows.
    singular_values_ : ndarray of shape (n_components,)
        σ₁ ≥ … ≥ σ_k.
    explained_variance_ : ndarray of shape (n_components,)
        Variance of each score column (of the training scores X V_k).
    explained_variance_ratio_ : ndarray of shape (n_components,)
        explained_variance_ over the total variance of the features.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from lucidml.decomposition.truncated_svd import TruncatedSVD
    >>> X = sp.csr_matrix(np.array([[1.0, 2.0], [-2.0, 1.0], [3.0, 2.0]]))
    >>> svd = TruncatedSVD(n_components=1, algorithm="full").fit(X.toarray())
    >>> (svd.singular_values_ ** 2).round(6)
    array([18.])
    >>> svd.components_.round(4)
    array([[0.8321, 0.5547]])
    >>> TruncatedSVD(n_components=1, random_state=0).fit_transform(X).round(4).ravel()
    array([ 1.9415, -1.1094,  3.6056])
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "algorithm": [Options({"randomized", "arpack", "full"})],
        "n_iter": [Interval(Integral, 0, None, closed="left")],
        "n_oversamples": [Interval(Integral, 1, None, closed="left")],
        "power_iteration_normalizer": [Options({"auto", "QR", "LU", "none"})],
        "random_state": ["random_state"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "verbose": VERBOSE,
    }

    def __init__(self, n_components=2, *, algorithm="randomized", n_iter=5, n_oversamples=10,
                 power_iteration_normalizer="auto", random_state=None, tol=0.0, verbose=0):
        self.n_components = n_components
        self.algorithm = algorithm
        self.n_iter = n_iter
        self.n_oversamples = n_oversamples
        self.power_iteration_normalizer = power_iteration_normalizer
        self.random_state = random_state
        self.tol = tol
        self.verbose = verbose

    def fit(self, X, y=None):
        """Compute the rank-k SVD of X (n_samples, n_features); dense or sparse."""
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the scores U_k Σ_k."""
        validate_params(self)
        X = check_fit_data(self, X, accept_sparse=("csr", "csc"), float32=True, ensure_min_features=2)
        k = self.n_components
        if k > X.shape[1]:
            raise ValueError(f"n_components={k} must be at most n_features={X.shape[1]}.")
        if k > min(X.shape) or (self.algorithm == "arpack" and k >= min(X.shape)):
            bound = "< " if self.algorithm == "arpack" else "≤ "
            raise ValueError(f"n_components={k} must be {bound}min(n_samples, n_features) (n_samples="
                             f"{X.shape[0]}, n_features={X.shape[1]}) with algorithm={self.algorithm!r}.")
        rng = check_random_state(self.random_state)
        log = IterationLog(self.verbose)
        s, Vt = _truncated_svd(X, k, self.algorithm, self.n_iter, self.n_oversamples,
                               self.power_iteration_normalizer, self.tol, rng, log)
        _, Vt = _flip_signs(None, Vt)
        # The data's precision, as scikit-learn's (float32 in, float32 components and scores out).
        self.components_ = Vt.astype(X.dtype, copy=False)
        self.singular_values_ = s.astype(X.dtype, copy=False)
        # X V_k, not U_k Σ_k: equal for an exact SVD, and for an approximate one this keeps
        # fit_transform(X) identical to fit(X).transform(X).
        scores = np.asarray(X @ self.components_.T)
        # Variances of X · 2⁻ᵉ (exact), whose ratios hold where X's own squares leave float64's range.
        e = max(arpack_exponent(X), -1000)  # (2⁻ᵉ for a subnormal X's e would be infinity)
        scale = float(np.ldexp(1.0, -e))
        variance = column_moments(scores, scale)[1]  # by row blocks: no second n × k array
        total = float(column_moments(X, scale)[1].sum())  # block by block: no float64 copy of a float32 X
        self.explained_variance_ratio_ = (variance / total if total > 0 else np.zeros(k)).astype(X.dtype)
        with np.errstate(over="ignore", under="ignore"):
            self.explained_variance_ = (variance / scale / scale).astype(X.dtype)
        if not np.all(np.isfinite(self.explained_variance_)):
            warnings.warn(f"TruncatedSVD: the explained variances exceed {X.dtype}'s range and are stored as "
                          "infinity; explained_variance_ratio_ is exact. Rescale X for finite variances.", UserWarning,
                          stacklevel=2)
        log.summary(f"Algorithm {self.algorithm}", n_components=k,
                    explained_variance_ratio=float(self.explained_variance_ratio_.sum()))
        return scores

    def transform(self, X):
        """Scores X V_k."""
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse=("csr", "csc"), dtype=FLOAT_DTYPES)
        return np.asarray(X @ self.components_.T)

    def inverse_transform(self, X):
        """Back to feature space: Z V_kᵀ (the rank-k approximation of the original rows)."""
        check_is_fitted(self)
        Z = check_scores(X, self.components_.shape[0])
        return Z @ self.components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.algorithm != "full"
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    @property
    def _n_features_out(self):
        return self.components_.shape[0]


def _truncated_svd(X, k, algorithm, n_iter, n_oversamples, normalizer, tol, rng, log=None):
    """(σ, V_kᵀ) of X, largest σ first; ``log`` prints the randomized power iterations."""
    if algorithm == "randomized":
        _, s, Vt = randomized_svd(X, k, n_oversamples=n_oversamples, n_iter=n_iter, normalizer=normalizer,
                                  rng=rng, compute_u=False, log=log)
        return s, Vt
    if algorithm == "arpack":
        e = arpack_exponent(X)  # entries near 1e±300 overflow or underflow inside ARPACK: X·2⁻ᵉ (exact)
        s, Vt = arpack_svds(times_power_of_two(X, -e) if e else X, k, tol, rng)
        return np.ldexp(s, e), Vt
    if scipy.sparse.issparse(X):
        raise TypeError("TruncatedSVD(algorithm='full') needs dense X (it would densify a sparse matrix); "
                        "use algorithm='randomized' or 'arpack' for sparse X.")
    _, s, Vt = scipy.linalg.svd(X, full_matrices=False, check_finite=False)
    return s[:k], Vt[:k]
