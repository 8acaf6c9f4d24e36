"""Gaussian mixture model fitted by expectation–maximization."""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.linalg import lapack
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted

from ..utils import VERBOSE, Interval, Options, validate_params
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_magnitude, check_predict_data, check_square_fits
from ._base_mixture import _BaseMixture
from ._gaussian_model import (
    Gaussians,
    covariance_shape,
    estimate_gaussians,
    lower_cholesky,
    n_covariance_parameters,
    precisions_from_cholesky,
    warn_if_reg_covar_dominates,
    warn_regularized,
    weighted_log_prob,
)


class GaussianMixture(_BaseMixture):
    """Mixture of K Gaussians, p(x) = Σ_k φ_k N(x | μ_k, Σ_k), fitted by EM.

    With latent z ~ Multinomial(φ) and x | z = k ~ N(μ_k, Σ_k), EM alternates
    (seeds: 000 §13.1, §13.4; 001 §14.2; 004 §14)

        E-step:  rᵢₖ = φ_k N(xᵢ | μ_k, Σ_k) / Σ_l φ_l N(xᵢ | μ_l, Σ_l)
        M-step:  φ_k = n_k / n,   μ_k = Σᵢ rᵢₖ xᵢ / n_k,
                 Σ_k = Σᵢ rᵢₖ (xᵢ − μ_k)(xᵢ − μ_k)ᵀ / n_k + reg_covar·I,   n_k = Σᵢ rᵢₖ

    and the log-likelihood ℓ = Σᵢ log Σ_k φ_k N(xᵢ | μ_k, Σ_k) never decreases. The E-step is
    computed in log space with log-sum-exp (000 §13.6's raw ratio underflows to 0/0 far from
    every mean), and N via the Cholesky factor U_k of the precision (Σ_k⁻¹ = U_k U_kᵀ): log N =
    −d/2 log 2π + Σ log diag(U_k) − ½ ‖(x − μ_k) U_k‖², the products X U_k of all components in
    one BLAS call. (001 §14.2 leaves φ_l out of the denominator; it belongs there.) With one-hot
    responsibilities (known labels) the M-step is the Gaussian discriminant analysis MLE.

    The covariances may be "full" (one Σ_k each, the notes' model), "tied" (one Σ shared: the
    scatter pooled over components), "diag" (diagonal Σ_k, 000 §14.1) or "spherical"
    (σ_k² I, σ_k² the mean of the diagonal). EM is translation-equivariant, so it runs on X
    centred at its mean (the weighted scatter XᵀRX then loses no digits) and shifts the means
    back. A covariance that is singular despite ``reg_covar`` is regularized further, with a
    warning.

    Parameters
    ----------
    n_components : int, default=1
        The number of components K.
    covariance_type : {"full", "tied", "diag", "spherical"}, default="full"
        The form of the covariances, see above.
    tol : float, default=1e-3
        Stop when the bound (the mean log-likelihood per sample) changes by less than tol.
        0 runs the notes' fixed number of iterations, ``max_iter``.
    reg_covar : float, default=1e-6
        Added to the diagonal of every covariance, keeping it positive definite. It is an
        absolute amount, in X's squared units (as scikit-learn's): a reg_covar above the variance
        of every feature would swamp the covariances, and warns (rescale X, or lower reg_covar).
    max_iter : int, default=100
        EM iterations at most per initialization (0: only initialize).
    n_init : int, default=1
        Initializations; the run ending with the highest bound is kept.
    init_params : {"kmeans", "random", "notes"}, default="kmeans"
        ``"kmeans"``: responsibilities one-hot on the labels of lucidml's ``KMeans`` (004),
        then one M-step. ``"random"``: responsibilities drawn uniformly and normalized per
        sample, then one M-step. ``"notes"`` (000 §13.6): φ_k = 1/K, Σ_k = I, μ_k the mean of
        ⌊n/2⌋ samples drawn with replacement.
    weights_init, means_init, precisions_init : array-like, default=None
        Starting φ (K,), μ (K, d) and precisions Σ⁻¹ (shaped as ``covariances_``); each
        replaces the one ``init_params`` would give.
    random_state : int, RandomState instance or None, default=None
        Seeds the initializations and ``sample``.
    warm_start : bool, default=False
        If True, each ``fit`` after the first starts from the fitted model (one run, n_init
        ignored).
    verbose : int, default=0
        Progress on standard output: 0 prints nothing; 1 prints ``Initialization r`` at each
        start and ``Converged at iteration t: change c < tol τ`` (or ``Stopped at iteration t``) at
        its end; 2 or more also prints ``Iteration t, lower_bound = …`` after every EM iteration (the
        values of ``lower_bounds_`` for the run kept).

    Attributes
    ----------
    weights_ : ndarray of shape (n_components,)
        φ_k.
    means_ : ndarray of shape (n_components, n_features)
        μ_k.
    covariances_ : ndarray
        Σ_k, shaped (K, d, d) "full", (d, d) "tied", (K, d) "diag", (K,) "spherical".
    precisions_ : ndarray
        Σ_k⁻¹, shaped as ``covariances_``.
    precisions_cholesky_ : ndarray
        U_k with Σ_k⁻¹ = U_k U_kᵀ (upper triangular; the square roots for "diag"/"spherical").
    converged_ : bool
        Whether the kept run stopped on ``tol``.
    n_iter_ : int
        EM iterations of the kept run.
    lower_bound_ : float
        The final bound of the kept run (the mean log-likelihood before its last M-step).
    lower_bounds_ : ndarray of shape (n_iter_,)
        The bound at every iteration of the kept run; non-decreasing.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.mixture.gaussian_mixture import GaussianMixture
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (100, 2)), rng.normal(6, 1, (100, 2))])
    >>> gm = GaussianMixture(n_components=2, random_state=0).fit(X)
    >>> [round(float(m)) for m in np.sort(gm.means_[:, 0])]
    [0, 6]
    >>> np.round(gm.weights_, 1)
    array([0.5, 0.5])
    >>> bool(gm.predict([[0.0, 0.0]])[0] != gm.predict([[6.0, 6.0]])[0])
    True
    >>> bool(np.all(np.diff(gm.lower_bounds_) >= 0))
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "covariance_type": [Options({"full", "tied", "diag", "spherical"})],
        "tol": [Interval(Real, 0, None, closed="left")],
        "reg_covar": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "init_params": [Options({"kmeans", "random", "notes"})],
        "weights_init": ["array-like", None],
        "means_init": ["array-like", None],
        "precisions_init": ["array-like", None],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "verbose": VERBOSE,
    }

    def __init__(self, n_components=1, *, covariance_type="full", tol=1e-3, reg_covar=1e-6, max_iter=100,
                 n_init=1, init_params="kmeans", weights_init=None, means_init=None, precisions_init=None,
                 random_state=None, warm_start=False, verbose=0):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.tol = tol
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.weights_init = weights_init
        self.means_init = means_init
        self.precisions_init = precisions_init
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose

    def _fit(self, X):
        validate_params(self)
        X = check_fit_data(self, X, float32=True, ensure_min_samples=2)
        check_magnitude(X, self)
        n_squares = {"full": 3 * self.n_components, "tied": 3}.get(self.covariance_type, 0)  # Σ, precision, factor
        check_square_fits(self, X.shape[1], copies=n_squares)
        self._check_n_samples(X)
        self._user_init = self._check_user_init(X.shape[1])
        # EM runs on X centred in its own precision (a float32 X gets a float32 centred copy); the
        # parameters are float64 throughout and stored in X's precision at the end.
        self._dtype = X.dtype
        self._shift = X.mean(axis=0, dtype=np.float64).astype(X.dtype)
        self._n_regularized = 0
        try:
            centred = X - self._shift
            warn_if_reg_covar_dominates(np.einsum("ij,ij->j", centred, centred, dtype=np.float64) / len(X),
                                        self.reg_covar)  # (inside: an error-filtered warning leaves no state)
            self._fit_em(centred)
        finally:
            del self._shift, self._user_init
        warn_regularized(self._n_regularized)
        return self

    # --- EM hooks (on X centred by self._shift during fit) ---

    def _initialize(self, X, rng):
        n_samples, n_features = X.shape
        if self.init_params == "notes":
            eye = {"full": np.tile(np.eye(n_features), (self.n_components, 1, 1)), "tied": np.eye(n_features),
                   "diag": np.ones((self.n_components, n_features)), "spherical": np.ones(self.n_components)}
            means = np.array([X[rng.choice(n_samples, max(1, n_samples // 2))].mean(axis=0)
                              for _ in range(self.n_components)])
            cov = eye[self.covariance_type]
            params = Gaussians(np.full(self.n_components, 1.0 / self.n_components), means, cov, cov.copy())
        else:
            params = self._m_step(X, self._initial_resp(X, rng))
        weights, means, precisions = self._user_init
        if weights is not None:
            params = params._replace(weights=weights)
        if means is not None:
            params = params._replace(means=means - self._shift)
        if precisions is not None:
            params = params._replace(covariances=precisions[0], precisions_cholesky=precisions[1])
        return params

    def _m_step(self, X, resp):
        params, n_fixed = estimate_gaussians(X, resp, self.covariance_type, self.reg_covar)
        self._n_regularized += n_fixed
        return params

    def _weighted_log_prob(self, X, params):
        return weighted_log_prob(X, params, self.covariance_type)

    def _float64_params(self, shift):
        """The fitted parameters in float64 (they are stored in the training data's precision), means
        moved by −shift."""
        weights, means, covariances, factors = (np.asarray(p, dtype=np.float64) for p in (
            self.weights_, self.means_, self.covariances_, self.precisions_cholesky_))
        return Gaussians(weights, means - shift, covariances, factors)

    def _fitted_params(self, X):
        return self._float64_params(self._shift)

    def _warm_fits(self, X):
        # (the type itself too: "tied" and "diag" share the shape (K, d) when K = d)
        K, d = self.n_components, X.shape[1]
        return (self.means_.shape == (K, d) and getattr(self, "_fitted_covariance_type", None) == self.covariance_type
                and self.covariances_.shape == covariance_shape(self.covariance_type, K, d))

    def _set_fitted(self, params):
        dtype = self._dtype
        self.weights_, self.covariances_, self.precisions_cholesky_ = (
            params.weights.astype(dtype), params.covariances.astype(dtype), params.precisions_cholesky.astype(dtype))
        self.means_ = (params.means + self._shift).astype(dtype)
        self.precisions_ = precisions_from_cholesky(params.precisions_cholesky, self.covariance_type).astype(dtype)
        self._fitted_covariance_type = self.covariance_type

    # --- prediction ---

    def _prediction_data(self, X):
        X = check_predict_data(self, X, dtype=FLOAT_DTYPES, bounded=True)
        # Centre at the mixture mean Σφ_kμ_k, so that x U_k and μ_k U_k are not large numbers
        # whose difference cancels (in X's precision: no float64 copy of a float32 X).
        shift = (self.weights_.astype(np.float64) @ self.means_).astype(X.dtype)
        return X - shift, self._float64_params(shift)

    def _n_parameters(self):
        n_features = self.means_.shape[1]
        return (n_covariance_parameters(self.covariance_type, self.n_components, n_features)
                + self.n_components * n_features + self.n_components - 1)

    def sample(self, n_samples=1):
        """Draw n_samples points: counts per component ~ Multinomial(n, φ), then x = μ_k + L_k ε, ε ~ N(0, I).

        L_k is the Cholesky factor of Σ_k (Σ_k = L_k L_kᵀ). Returns (X, y), y the component of
        each row (rows grouped by component).
        """
        check_is_fitted(self)
        if not isinstance(n_samples, Integral) or n_samples < 1:
            raise ValueError(f"n_samples must be a positive integer; got {n_samples!r}.")
        rng = check_random_state(self.random_state)
        weights = self.weights_.astype(np.float64)  # float32 weights may sum to 1 + ε, which NumPy refuses
        counts = rng.multinomial(n_samples, weights / weights.sum())
        n_features = self.means_.shape[1]
        draws = []
        for k, count in enumerate(counts):
            noise = rng.standard_normal((count, n_features))
            if self.covariance_type == "full":
                noise = noise @ np.linalg.cholesky(self.covariances_[k]).T
            elif self.covariance_type == "tied":
                noise = noise @ np.linalg.cholesky(self.covariances_).T
            else:
                noise = noise * np.sqrt(self.covariances_[k])
            draws.append(self.means_[k] + noise)
        return np.vstack(draws), np.repeat(np.arange(self.n_components), counts)

    def _check_user_init(self, n_features):
        """Validated (weights, means, (covariances, precision factors)) from the *_init parameters."""
        K = self.n_components
        weights = means = precisions = None
        if self.weights_init is not None:
            weights = check_array(self.weights_init, dtype=np.float64, ensure_2d=False, input_name="weights_init")
            if weights.shape != (K,):
                raise ValueError(f"weights_init must have shape ({K},); got {weights.shape}.")
            if np.any(weights < 0) or not np.isclose(weights.sum(), 1.0):
                raise ValueError("weights_init must be non-negative and sum to 1.")
        if self.means_init is not None:
            means = check_array(self.means_init, dtype=np.float64, input_name="means_init")
            if means.shape != (K, n_features):
                raise ValueError(f"means_init must have shape ({K}, {n_features}); got {means.shape}.")
        if self.precisions_init is not None:
            shape = covariance_shape(self.covariance_type, K, n_features)
            prec = check_array(self.precisions_init, dtype=np.float64, ensure_2d=False, allow_nd=True,
                               input_name="precisions_init")
            if prec.shape != shape:
                raise ValueError(f"precisions_init must have shape {shape}; got {prec.shape}.")
            precisions = _covariances_from_precisions(prec, self.covariance_type)
        return weights, means, precisions


def _covariances_from_precisions(prec, covariance_type):
    """(Σ, U) from user precisions P = Σ⁻¹: U = chol(P) (lower, P = UUᵀ), Σ = P⁻¹ from it."""
    if covariance_type in ("diag", "spherical"):
        if np.any(prec <= 0):
            raise ValueError("precisions_init must be positive.")
        return 1.0 / prec, np.sqrt(prec)
    stacked = prec[None] if covariance_type == "tied" else prec
    factors, covs = np.empty_like(stacked), np.empty_like(stacked)
    for k, p in enumerate(stacked):
        lower = lower_cholesky(p) if np.allclose(p, p.T) else None
        if lower is None:
            raise ValueError("precisions_init must be symmetric and positive definite.")
        factors[k] = lower
        inverse = lapack.dpotri(lower, lower=1)[0]  # P⁻¹ from its factor, lower triangle
        covs[k] = np.tril(inverse) + np.tril(inverse, -1).T
    return (covs[0], factors[0]) if covariance_type == "tied" else (covs, factors)
