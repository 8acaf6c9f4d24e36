"""Principal component analysis."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, validate_params
from ..utils.centered import centred_blocks
from ..utils.validation import (
    FLOAT_DTYPES,
    check_fit_data,
    check_magnitude,
    check_predict_data,
    check_scores,
    input_float_dtype,
)
from . import _pca_solvers as solvers
from ._randomized import resolve_power_iterations
from .svd_tools import _flip_signs


class PCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Principal component analysis: project on the directions of largest variance.

    With the centred data matrix A = X − 1μᵀ (m samples × d features; columns also divided by
    their population standard deviation when ``standardize=True``), the j-th principal direction
    solves

        wⱼ = argmax_{‖w‖=1, w ⟂ w₁…wⱼ₋₁} ‖A w‖²,

    i.e. wⱼ is the j-th eigenvector of AᵀA, equivalently the j-th right singular vector of
    A = U Σ Vᵀ. The scores are Z = A V_k = U_k Σ_k and the variance along wⱼ is
    λⱼ = σⱼ²/(m − 1) (seeds: 000 §15.1 Alg. 15; 001 §9; 002 §7.1–7.2; 004 §15). The notes divide
    by m; like scikit-learn we divide by m − 1, so ``explained_variance_`` is the unbiased variance.

    Solvers (``svd_solver``):

    - ``"full"``: the exact SVD of A (LAPACK), through A = QR and the SVD of R when A is tall;
    - ``"covariance_eigh"``: eigendecomposition of C = AᵀA/(m − 1), formed as XᵀX − mμμᵀ without
      centring a copy of X; fastest for m ≫ d, but it squares A's condition number, so variances
      below ≈ ε·λ₁ are lost;
    - ``"randomized"``: randomized SVD (Halko, Martinsson & Tropp 2011) with ``iterated_power``
      power iterations, centring implicitly (X is not copied; sparse X stays sparse);
    - ``"arpack"``: Lanczos (ARPACK) on the implicitly centred A, for k < min(m, d);
    - ``"deflation"``: the notes' power iteration with deflation (004 §15): wⱼ ← Cwⱼ/‖Cwⱼ‖ until
      ‖Δwⱼ‖ ≤ ``tol`` (1e-10 when ``tol=0``), then C ← C − λⱼwⱼwⱼᵀ;
    - ``"auto"``: ``"covariance_eigh"`` when d ≤ 1000 and m ≥ 10d, else ``"full"`` for small
      problems (max(m, d) ≤ 500) or k ≥ 0.8·min(m, d), else ``"randomized"`` (scikit-learn's rule).

    Signs are fixed deterministically: each component's largest-magnitude entry is positive
    (scikit-learn's rule), so components agree with scikit-learn's, not only up to sign.

    Parameters
    ----------
    n_components : int, float or None, default=None
        An int k keeps k components. A float ε in (0, 1) keeps the smallest k whose cumulative
        explained variance ratio exceeds ε (002 (7.21); solvers ``"full"``, ``"covariance_eigh"``
        and ``"deflation"``). None keeps min(m, d).
    copy : bool, default=True
        Kept for scikit-learn compatibility: no solver here writes into X.
    whiten : bool, default=False
        Divide the scores by √λⱼ so that every component has unit variance.
    svd_solver : {"auto", "full", "covariance_eigh", "randomized", "arpack", "deflation"}, default="auto"
        See above.
    tol : float, default=0.0
        ``"arpack"``: ARPACK's tolerance (0 = machine precision). ``"deflation"``: the power
        iteration stops when ‖w_new − w‖ ≤ tol (0 means 1e-10).
    iterated_power : int or "auto", default="auto"
        Power iterations of ``"randomized"``; "auto" is 7 when k < 0.1·min(m, d), else 4.
    n_oversamples : int, default=10
        Extra random directions of ``"randomized"`` (l = k + n_oversamples).
    power_iteration_normalizer : {"auto", "QR", "LU", "none"}, default="auto"
        Re-normalization between the power iterations of ``"randomized"``; "auto" = LU, or none
        for at most 2 iterations.
    max_iter : int, default=1000
        Power iterations per component of ``"deflation"`` at most.
    standardize : bool, default=False
        Also divide each centred feature by its population standard deviation (the notes'
        preprocessing step; constant features are left unscaled).
    random_state : int, RandomState instance or None, default=None
        Random test matrix (``"randomized"``), start vector (``"arpack"``, ``"deflation"``).
    verbose : int, default=0
        1 or more prints, on standard output, ``Iteration t`` after each power iteration of
        ``"randomized"`` (each a pass over X) and, for every solver, one closing line
        ``Solver s, n_components = k, n_iter = …, explained_variance_ratio = …`` (``n_iter_`` and
        the sum of ``explained_variance_ratio_``); 0 prints nothing.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        The principal directions wⱼ as rows, unit length, decreasing variance.
    explained_variance_ : ndarray of shape (n_components_,)
        λⱼ = σⱼ²/(m − 1).
    explained_variance_ratio_ : ndarray of shape (n_components_,)
        λⱼ / Σ(all variances).
    singular_values_ : ndarray of shape (n_components_,)
        σⱼ of the centred (standardized) data.
    mean_ : ndarray of shape (n_features,)
        μ.
    scale_ : ndarray of shape (n_features,) or None
        The standard deviations divided out when ``standardize=True``.
    noise_variance_ : float
        Mean variance of the discarded directions: the noise σ² of probabilistic PCA
        (Tipping & Bishop 1999), used by ``score_samples``.
    n_components_ : int
        The number of components kept.
    n_samples_ : int
        m.
    n_iter_ : int
        Power iterations: of ``"randomized"``, or of the slowest component of ``"deflation"``;
        1 for the direct solvers.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.decomposition.pca import PCA
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [-3.0, -2.0], [1.0, 1.0], [2.0, 1.0], [3.0, 2.0]])
    >>> pca = PCA(n_components=2).fit(X)
    >>> pca.explained_variance_ratio_.round(4)
    array([0.9924, 0.0076])
    >>> pca.components_.round(4)
    array([[ 0.8385,  0.5449],
           [-0.5449,  0.8385]])
    >>> np.allclose(pca.inverse_transform(pca.transform(X)), X)
    True
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 0, None, closed="left"), Interval(Real, 0, 1, closed="neither"), None],
        "copy": ["boolean"],
        "whiten": ["boolean"],
        "svd_solver": [Options({"auto", "full", "covariance_eigh", "randomized", "arpack", "deflation"})],
        "tol": [Interval(Real, 0, None, closed="left")],
        "iterated_power": [Interval(Integral, 0, None, closed="left"), Options({"auto"})],
        "n_oversamples": [Interval(Integral, 1, None, closed="left")],
        "power_iteration_normalizer": [Options({"auto", "QR", "LU", "none"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "standardize": ["boolean"],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, n_components=None, *, copy=True, whiten=False, svd_solver="auto", tol=0.0,
                 iterated_power="auto", n_oversamples=10, power_iteration_normalizer="auto", max_iter=1000,
                 standardize=False, random_state=None, verbose=0):
        self.n_components = n_components
        self.copy = copy
        self.whiten = whiten
        self.svd_solver = svd_solver
        self.tol = tol
        self.iterated_power = iterated_power
        self.n_oversamples = n_oversamples
        self.power_iteration_normalizer = power_iteration_normalizer
        self.max_iter = max_iter
        self.standardize = standardize
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None):
        """Find the principal directions of X (n_samples, n_features); dense or sparse CSR/CSC."""
        validate_params(self)
        X = check_fit_data(self, X, accept_sparse=("csr", "csc"), float32=True, ensure_min_samples=2)
        n, d = X.shape
        k, ratio = self._requested_components(n, d)
        solver = self._choose_solver(X, k, ratio)
        if solver not in ("covariance_eigh", "deflation"):
            check_magnitude(X, self)
        self._fit_svd_solver = solver
        rng = check_random_state(self.random_state)
        log = IterationLog(self.verbose)

        self.n_iter_ = 1
        if solver in ("covariance_eigh", "deflation"):
            # The covariance holds the variances on its diagonal: no extra pass over X for them.
            # The covariance shows an overflow itself: no pass over X for its magnitude unless it did.
            with np.errstate(over="ignore", invalid="ignore"):
                mean = np.asarray(X.mean(axis=0, dtype=np.float64)).ravel()
                C = solvers.covariance(X, mean, None)
            if not np.isfinite(C).all():
                check_magnitude(X, self)
                raise ValueError("PCA: the covariance of X overflowed float64; rescale the features (e.g. "
                                 "StandardScaler) before fitting.")
            scale = None
            if self.standardize:
                scale = _nonzero(np.sqrt(np.diag(C) * (n - 1) / n))
                C /= np.outer(scale, scale)
            total_var = float(np.trace(C))
            if solver == "covariance_eigh":
                values, Vt = solvers.covariance_eigh(C, None if ratio is not None else k)
            else:
                values, Vt = self._deflation(C, k, ratio, rng)
        elif solver == "full":
            mean = X.mean(axis=0, dtype=np.float64)
            scale = _nonzero(X.std(axis=0, dtype=np.float64)) if self.standardize else None
            values, Vt = solvers.full_svd(X, mean, scale)
            total_var = float(values.sum())
        else:
            mean, variance = solvers.column_moments(X)
            scale = _nonzero(np.sqrt(variance)) if self.standardize else None
            total_var = float((variance / scale**2 if self.standardize else variance).sum()) * n / (n - 1)
            if solver == "randomized":
                self.n_iter_ = resolve_power_iterations(self.iterated_power, k, X.shape)
                values, Vt = solvers.randomized(X, mean, scale, k, self.n_oversamples, self.iterated_power,
                                                self.power_iteration_normalizer, rng, log)
            else:
                values, Vt = solvers.arpack(X, mean, scale, k, self.tol, rng)
        self._finish(values, Vt, total_var, mean, scale, n, d, k, ratio, X.dtype)
        if X.dtype == np.float32 and self.n_components_ < min(n, d):
            # A float32 solver gives the small eigenvalues only to about ε₃₂·λ₁, so σ² = (total − Σλ)
            # / (min(n, d) − k) can be noise (raw breast cancer, 10 components: 4.4 times too large);
            # the residual of X itself cancels nothing.
            residual = _residual_sum_of_squares(X, mean, scale, self.components_)
            self.noise_variance_ = np.float32(residual / (n - 1) / (min(n, d) - self.n_components_))
        log.summary(f"Solver {solver}", n_components=self.n_components_, n_iter=self.n_iter_,
                    explained_variance_ratio=float(self.explained_variance_ratio_.sum()))
        return self

    def _finish(self, values, Vt, total_var, mean, scale, n, d, k, ratio, dtype):
        """The fitted attributes from the eigenvalues λ (variances along the rows of Vt, largest first),
        the total variance and the (standardized) moments; shared with ``lucidml.dask.PCA``."""
        _, Vt = _flip_signs(None, Vt)

        ratios = values / total_var if total_var > 0 else np.zeros_like(values)
        if ratio is not None:  # smallest k whose cumulative ratio exceeds ε (002 (7.21))
            k = min(int(np.searchsorted(np.cumsum(ratios), ratio, side="right")) + 1, len(values))
        rank_bound = min(n, d)
        self.noise_variance_ = (max(total_var - float(values[:k].sum()), 0.0) / (rank_bound - k)
                                if k < rank_bound else 0.0)
        self.mean_, self.scale_ = mean, scale
        self.n_samples_, self.n_components_ = n, k
        self.components_ = np.ascontiguousarray(Vt[:k])
        self.explained_variance_ = values[:k].copy()
        self.explained_variance_ratio_ = ratios[:k].copy()
        self.singular_values_ = np.sqrt(self.explained_variance_ * (n - 1))
        # Computed in float64; kept in the data's precision, as scikit-learn's (float32 in, float32 out).
        for name in ("mean_", "scale_", "components_", "explained_variance_", "explained_variance_ratio_",
                     "singular_values_"):
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, value.astype(dtype, copy=False))
        self.noise_variance_ = dtype.type(self.noise_variance_)
        return self

    def _deflation(self, C, k, ratio, rng):
        tol = self.tol if self.tol > 0 else 1e-10
        values, Vt, iterations = solvers.deflation(C, k, ratio, tol, self.max_iter, rng)
        self.n_iter_ = int(min(iterations.max(initial=0), self.max_iter))
        if np.any(iterations > self.max_iter):
            warnings.warn(f"PCA(svd_solver='deflation'): the power iteration of component(s) "
                          f"{np.flatnonzero(iterations > self.max_iter).tolist()} stopped at max_iter="
                          f"{self.max_iter} before ‖Δw‖ ≤ tol={tol}; increase max_iter or tol.",
                          ConvergenceWarning, stacklevel=3)
        return values, Vt

    def _requested_components(self, n, d):
        """(k, ε): the int count asked for (None for a ratio), and the ratio ε or None."""
        if self.n_components is None:
            return min(n, d), None
        if isinstance(self.n_components, Real) and not isinstance(self.n_components, Integral):
            return None, float(self.n_components)
        if self.n_components > d:
            raise ValueError(f"n_components={self.n_components} must be at most n_features={d}.")
        if self.n_components > min(n, d):
            raise ValueError(f"n_components={self.n_components} must be between 0 and "
                             f"min(n_samples, n_features)={min(n, d)}.")
        return int(self.n_components), None

    def _choose_solver(self, X, k, ratio):
        n, d = X.shape
        solver = self.svd_solver
        if solver == "auto":
            if d <= 1000 and n >= 10 * d:
                solver = "covariance_eigh"
            elif max(n, d) <= 500 or ratio is not None or k is None or k >= 0.8 * min(n, d):
                solver = "full"
            else:
                solver = "randomized"
            if solver == "full" and scipy.sparse.issparse(X):
                solver = "covariance_eigh" if d <= 2000 else "arpack"
        if scipy.sparse.issparse(X) and solver == "full":
            raise TypeError("PCA(svd_solver='full') needs dense X; for sparse X use 'covariance_eigh', "
                            "'randomized', 'arpack' or 'deflation' (they centre implicitly), or TruncatedSVD.")
        if ratio is not None and solver in ("randomized", "arpack"):
            raise ValueError(f"n_components={ratio} (a variance fraction) needs the whole spectrum; "
                             f"use svd_solver='full', 'covariance_eigh' or 'deflation', not {solver!r}.")
        if solver in ("randomized", "arpack") and k == 0:
            raise ValueError(f"svd_solver={solver!r} needs n_components ≥ 1.")
        if solver == "arpack" and k >= min(n, d):
            raise ValueError(f"svd_solver='arpack' needs n_components < min(n_samples, n_features) "
                             f"(n_samples={n}, n_features={d}); got {k}.")
        return solver

    def transform(self, X):
        """Scores Z = (X − μ)D⁻¹ Vₖᵀ, divided by √λ when ``whiten``; X dense or sparse."""
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse=("csr", "csc"), dtype=FLOAT_DTYPES)
        W = self._projection()
        Z = X @ W
        Z = np.asarray(Z.toarray() if scipy.sparse.issparse(Z) else Z)
        Z -= self.mean_ @ W  # centring after the product keeps sparse X sparse
        return Z

    def _projection(self):
        """The d × k matrix W with transform(X) = (X − 1μᵀ) W."""
        W = self.components_.T
        if self.scale_ is not None:
            W = W / self.scale_[:, None]
        if self.whiten:
            W = W / self._whitening_scale()
        return W

    def _whitening_scale(self):
        return np.maximum(np.sqrt(self.explained_variance_), np.finfo(self.explained_variance_.dtype).eps)

    def fit_transform(self, X, y=None):
        """Fit and return the scores of X."""
        return self.fit(X).transform(X)

    def inverse_transform(self, X):
        """Back to feature space: x̂ = z Vₖ D + μ (z multiplied back by √λ when ``whiten``)."""
        check_is_fitted(self)
        Z = check_scores(X, self.n_components_)
        if self.whiten:
            Z = Z * self._whitening_scale()
        X_hat = Z @ self.components_
        if self.scale_ is not None:
            X_hat *= self.scale_
        return X_hat + self.mean_

    def get_covariance(self):
        """Covariance of probabilistic PCA, in feature space: Vₖᵀ(Λ − σ²I)Vₖ + σ²I, scaled by D."""
        check_is_fitted(self)
        V, sigma2 = self.components_, self.noise_variance_
        cov = (V.T * np.maximum(self.explained_variance_ - sigma2, 0.0)) @ V
        cov.flat[:: cov.shape[0] + 1] += sigma2
        if self.scale_ is not None:
            cov *= np.outer(self.scale_, self.scale_)
        return cov

    def score_samples(self, X):
        """Log-likelihood of each sample under probabilistic PCA, N(μ, get_covariance())."""
        check_is_fitted(self)
        single = input_float_dtype(X) == np.float32  # scored in float64, returned in float32 (a frame's too)
        X = check_predict_data(self, X)
        # In the components' basis the covariance is diagonal: λⱼ along component j (never below
        # σ²) and σ² in the d − k directions left, so the Mahalanobis distance and log-determinant
        # need no d × d factorization (which rounding breaks when σ² is tiny beside the λⱼ).
        V, sigma2 = self.components_, float(self.noise_variance_)
        k, d = V.shape
        Z = X - self.mean_
        if self.scale_ is not None:
            Z = Z / self.scale_
        T = Z @ V.T
        variances = np.maximum(self.explained_variance_, sigma2)
        if np.any(variances <= 0) or (k < d and sigma2 <= 0):
            raise ValueError("The PCA covariance is singular (noise_variance_ = 0): keep fewer components "
                             "than min(n_samples, n_features) to score samples.")
        distance = (T**2 / variances).sum(axis=1)
        logdet = np.log(variances).sum()
        if k < d:
            squares = np.einsum("ij,ij->i", Z, Z)
            # The residual itself, not ‖z‖² − ‖t‖², which cancels to noise where σ² is small beside the
            # λⱼ (float32 components: scores off by 58 nats). A row so far out that its squares
            # overflow is infinitely unlikely (−∞), not ∞ − ∞ = NaN.
            with np.errstate(invalid="ignore", over="ignore"):
                R = Z - T @ V
                residual = np.where(np.isinf(squares), np.inf, np.einsum("ij,ij->i", R, R))
            distance += residual / sigma2
            logdet += (d - k) * np.log(sigma2)
        if self.scale_ is not None:
            logdet += 2.0 * np.log(self.scale_).sum()
        log_likelihood = -0.5 * (distance + d * np.log(2 * np.pi) + logdet)
        # a float32 X gets float32 scores, as from transform (and scikit-learn's score_samples)
        return log_likelihood.astype(np.float32) if single else log_likelihood

    def score(self, X, y=None):
        """Mean log-likelihood of the samples of X."""
        return float(np.mean(self.score_samples(X)))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.svd_solver != "full"
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    @property
    def _n_features_out(self):
        return self.components_.shape[0]


def _residual_sum_of_squares(X, mean, scale, components):
    """Σᵢ ‖zᵢ − zᵢVᵀV‖² for the centred (standardized) rows zᵢ of X and the components V, by blocks of
    rows in float64 (a sparse X densified one block at a time)."""
    V = components.astype(np.float64)
    total = 0.0
    for _, Z in centred_blocks(X, np.asarray(mean, dtype=np.float64), max(1, 2**22 // (8 * X.shape[1]))):
        if scale is not None:
            Z = Z / scale
        R = Z - (Z @ V.T) @ V
        total += float(np.einsum("ij,ij->", R, R))
    return total


def _nonzero(scale):
    """Standard deviations with 0 replaced by 1: a constant feature stays 0 after centring."""
    scale = np.array(scale, dtype=np.float64)
    scale[scale == 0.0] = 1.0
    return scale
