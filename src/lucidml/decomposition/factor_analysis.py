"""Factor analysis: a linear-Gaussian latent variable model fitted by EM."""

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.linalg import lapack
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_array, check_is_fitted

from ..mixture._base_em import _BaseEM
from ..utils import VERBOSE, Interval, validate_params
from ..utils.validation import check_fit_data, check_magnitude, check_predict_data

_LOG_2PI = np.log(2.0 * np.pi)
# Heywood floor: a noise variance may not fall below this fraction of its feature's variance (of the
# mean feature variance for a constant feature; plus the smallest normal float, for all-constant
# data); Ψ⁻¹ stays finite.
_PSI_FLOOR = 1e-12


class FactorAnalysis(ClassNamePrefixFeaturesOutMixin, TransformerMixin, _BaseEM):
    """Factor analysis, x = μ + Λz + ε with z ~ N(0, I_k) and ε ~ N(0, Ψ), Ψ diagonal, fitted by EM.

    Marginally x ~ N(μ, ΛΛᵀ + Ψ) (seeds: 000 §14.3; 004 §15): a Gaussian whose covariance is a
    rank-k part shared by the features plus independent noise per feature, so it stays
    non-singular when there are fewer samples than features. μ is the sample mean; Λ (the
    loadings, d × k) and Ψ come from EM (000 §14.4; *Std:* Rubin & Thayer 1982), on x − μ:

        E-step:  G = (I + ΛᵀΨ⁻¹Λ)⁻¹,   E[z | x] = G ΛᵀΨ⁻¹ (x − μ),   Cov[z | x] = G
                 (the Woodbury form of Λᵀ(ΛΛᵀ + Ψ)⁻¹: a k × k system instead of d × d)
        M-step:  Λ = [Σᵢ (xᵢ − μ) E[zᵢ]ᵀ] [Σᵢ E[zᵢ]E[zᵢ]ᵀ + nG]⁻¹
                 Ψ = diag((1/n) Σᵢ [(xᵢ − μ)(xᵢ − μ)ᵀ − Λ E[zᵢ](xᵢ − μ)ᵀ])

    (the notes' four-term Ψ update, whose last two terms cancel against each other with the new
    Λ; 000 §14.4 and 004 §15 write raw x where x − μ belongs). Each Ψⱼ is floored (a Heywood
    case: feature j fully explained by the factors, or constant), with a warning. Λ starts at
    the probabilistic-PCA solution from an SVD of the centred data, Λ = V_k (Λ_k − σ²I)^½ with
    σ² the mean discarded eigenvalue, and Ψ at diag(S − ΛΛᵀ). The log-likelihood

        ℓ = −n/2 [d log 2π + log|ΛΛᵀ + Ψ|] − ½ Σᵢ (xᵢ − μ)ᵀ(ΛΛᵀ + Ψ)⁻¹(xᵢ − μ)

    is evaluated with the determinant lemma, log|ΛΛᵀ + Ψ| = log|Ψ| + log|I + ΛᵀΨ⁻¹Λ|, and the
    Woodbury identity; it never decreases, and EM stops when it rises by less than ``tol``.
    scikit-learn's FactorAnalysis maximizes the same likelihood by an SVD-based iteration
    (Barber 2012, §21.2), so the two agree on the likelihood and on ΛΛᵀ + Ψ, and on Λ only up
    to a rotation of the factors.

    Parameters
    ----------
    n_components : int, default=None
        The number of factors k; None means n_features. Factors beyond the rank of the
        centred data (k ≥ n_samples) start, and stay, at zero loadings.
    tol : float, default=1e-2
        Stop when the (total) log-likelihood rises by less than tol.
    max_iter : int, default=1000
        EM iterations at most.
    noise_variance_init : array-like of shape (n_features,), default=None
        Starting Ψ; by default diag(S − ΛΛᵀ) of the PCA start.
    warm_start : bool, default=False
        If True, each ``fit`` after the first starts from the fitted Λ and Ψ.
    verbose : int, default=0
        Progress on standard output: 0 prints nothing; 1 prints ``Initialization r`` at each
        start and ``Converged at iteration t: change c < tol τ`` (or ``Stopped at iteration t``) at
        its end; 2 or more also prints ``Iteration t, loglike = …`` after every EM iteration (the
        values of ``loglike_`` for the run kept).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Λᵀ, the loadings.
    noise_variance_ : ndarray of shape (n_features,)
        The diagonal of Ψ.
    mean_ : ndarray of shape (n_features,)
        μ.
    loglike_ : ndarray of shape (n_iter_,)
        The log-likelihood ℓ (summed over samples) at every iteration, before its M-step.
    n_iter_ : int
        EM iterations run.
    converged_ : bool
        Whether EM stopped on ``tol``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.decomposition.factor_analysis import FactorAnalysis
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(500, 1))
    >>> X = z @ np.array([[2.0, 1.0, -1.0]]) + rng.normal(scale=[0.3, 0.5, 0.2], size=(500, 3))
    >>> fa = FactorAnalysis(n_components=1).fit(X)
    >>> np.abs(fa.components_).round(1)
    array([[2., 1., 1.]])
    >>> np.sqrt(fa.noise_variance_).round(1)
    array([0.3, 0.5, 0.2])
    >>> fa.transform(X[:2]).shape
    (2, 1)
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "noise_variance_init": ["array-like", None],
        "warm_start": ["boolean"],
        "verbose": VERBOSE,
    }

    _convergence_message = "FactorAnalysis did not converge. You might want to increase the number of iterations."

    def __init__(self, n_components=None, *, tol=1e-2, max_iter=1000, noise_variance_init=None, warm_start=False,
                 verbose=0):
        self.n_components = n_components
        self.tol = tol
        self.max_iter = max_iter
        self.noise_variance_init = noise_variance_init
        self.warm_start = warm_start
        self.verbose = verbose

    def fit(self, X, y=None):
        """Estimate μ, Λ and Ψ by EM; return self."""
        validate_params(self)
        X = check_fit_data(self, X, ensure_min_samples=2)
        check_magnitude(X, self)
        n_features = X.shape[1]
        self._k = n_features if self.n_components is None else self.n_components
        if self._k > n_features:
            raise ValueError(f"n_components={self._k} must be <= n_features={n_features}.")
        self.mean_ = X.mean(axis=0)
        self._psi_floor = _noise_floor(X - self.mean_)
        self._fit_em(X - self.mean_)
        self._n_features_out = self._k
        floored = np.flatnonzero(self.noise_variance_ <= self._psi_floor * (1 + 1e-9))
        if floored.size:
            warnings.warn(f"Heywood case: the noise variance of feature(s) {floored.tolist()} reached its floor "
                          f"(a constant feature, or one the factors explain fully); the covariance is "
                          f"regularized there.", RuntimeWarning, stacklevel=2)
        return self

    # --- EM hooks (X is centred) ---

    def _initialize(self, X, rng):
        n_samples, n_features = X.shape
        variance = np.mean(X**2, axis=0)
        _, s, vt = np.linalg.svd(X, full_matrices=False)
        eig = s**2 / n_samples  # eigenvalues of S = XᵀX / n, descending
        r = min(self._k, len(eig))
        # σ²: the variance the k leading directions leave, per remaining dimension.
        sigma2 = max(variance.sum() - eig[:r].sum(), 0.0) / (n_features - self._k) if n_features > self._k else 0.0
        loadings = np.zeros((n_features, self._k))
        loadings[:, :r] = vt[:r].T * np.sqrt(np.maximum(eig[:r] - sigma2, 0.0))
        if self.noise_variance_init is None:
            psi = variance - np.sum(loadings**2, axis=1)
        else:
            psi = check_array(self.noise_variance_init, dtype=np.float64, ensure_2d=False,
                              input_name="noise_variance_init")
            if psi.shape != (n_features,):
                raise ValueError(f"noise_variance_init must have shape ({n_features},); got {psi.shape}.")
        return loadings, np.maximum(psi, self._psi_floor)

    def _e_step(self, X, params):
        loadings, psi = params
        n_samples, n_features = X.shape
        weights, chol, G = _posterior(loadings, psi)
        scaled = X @ weights
        ez = scaled @ G
        # ℓ with log|ΛΛᵀ + Ψ| = log|Ψ| + log|I + ΛᵀΨ⁻¹Λ| and Σᵢ quadᵢ = Σᵢ xᵢᵀΨ⁻¹xᵢ − Σᵢ aᵢᵀ G aᵢ
        log_det = np.sum(np.log(psi)) + 2.0 * np.sum(np.log(np.diag(chol)))
        quad = np.sum(X**2 / psi) - np.sum(scaled * ez)
        loglike = -0.5 * n_samples * (n_features * _LOG_2PI + log_det) - 0.5 * quad
        return (ez, G), float(loglike)

    def _m_step(self, X, posterior):
        ez, G = posterior
        n_samples = X.shape[0]
        s_xz = X.T @ ez  # Σᵢ (xᵢ − μ) E[zᵢ]ᵀ
        s_zz = ez.T @ ez + n_samples * G  # Σᵢ E[zᵢzᵢᵀ]
        loadings = lapack.dposv(s_zz, s_xz.T, lower=1)[1].T  # Λ S_zz = S_xz, S_zz positive definite
        # diag of S − 2ΛS_xzᵀ/n + ΛS_zzΛᵀ/n, where ΛS_zz = S_xz
        psi = np.mean(X**2, axis=0) - np.sum(loadings * s_xz, axis=1) / n_samples
        return loadings, np.maximum(psi, self._psi_floor)

    def _fitted_params(self, X):
        return self.components_.T, self.noise_variance_

    def _warm_fits(self, X):
        return self.components_.shape == (self._k, X.shape[1])

    def _set_fitted(self, params):
        loadings, self.noise_variance_ = params
        self.components_ = np.ascontiguousarray(loadings.T)

    _bound_name = "loglike"

    def _store_bounds(self, bounds):
        self.loglike_ = bounds

    # --- the fitted model ---

    def _centred(self, X):
        check_is_fitted(self)
        return check_predict_data(self, X, bounded=True) - self.mean_

    def transform(self, X):
        """E[z | x] = G ΛᵀΨ⁻¹ (x − μ), the posterior mean of the factors, shape (n_samples, n_components)."""
        Xc = self._centred(X)
        weights, _, G = _posterior(self.components_.T, self.noise_variance_)
        return Xc @ (weights @ G)  # Ψ⁻¹Λ G first (d × k): one product with the n × d data, not two

    def score_samples(self, X):
        """log N(x | μ, ΛΛᵀ + Ψ) of every sample."""
        Xc = self._centred(X)
        weights, chol, _ = _posterior(self.components_.T, self.noise_variance_)
        scaled = Xc @ weights
        log_det = np.sum(np.log(self.noise_variance_)) + 2.0 * np.sum(np.log(np.diag(chol)))
        whitened = lapack.dtrtrs(chol, scaled.T, lower=1)[0]  # ‖L⁻¹aᵢ‖² = aᵢᵀGaᵢ
        quad = np.sum(Xc**2 / self.noise_variance_, axis=1) - np.sum(whitened**2, axis=0)
        return -0.5 * (Xc.shape[1] * _LOG_2PI + log_det + quad)

    def score(self, X, y=None):
        """Mean log-likelihood per sample."""
        return float(np.mean(self.score_samples(X)))

    def get_covariance(self):
        """The model covariance ΛΛᵀ + Ψ."""
        check_is_fitted(self)
        return self.components_.T @ self.components_ + np.diag(self.noise_variance_)

    def get_precision(self):
        """(ΛΛᵀ + Ψ)⁻¹ by Woodbury: Ψ⁻¹ − Ψ⁻¹Λ G ΛᵀΨ⁻¹ (a k × k inverse only)."""
        check_is_fitted(self)
        loadings, psi = self.components_.T, self.noise_variance_
        weights, _, G = _posterior(loadings, psi)
        return np.diag(1.0 / psi) - weights @ G @ weights.T


def _posterior(loadings, psi):
    """(W, L, G): W = Ψ⁻¹Λ (d × k), so that a row's aᵢ = (xᵢ − μ)W; L the Cholesky factor of
    I + ΛᵀΨ⁻¹Λ; G its inverse, the posterior covariance of z (E[z | x] = G aᵢ)."""
    weights = loadings / psi[:, None]
    M = np.eye(loadings.shape[1]) + loadings.T @ weights  # I + PSD: always positive definite
    # LAPACK directly: SciPy's wrappers cost more than the k × k work, and EM calls this often.
    chol = lapack.dpotrf(M, lower=1, clean=1)[0]
    inverse = lapack.dpotri(chol, lower=1)[0]  # lower triangle of M⁻¹
    G = np.tril(inverse) + np.tril(inverse, -1).T
    return weights, chol, G


def _noise_floor(Xc):
    """Each feature's floor on Ψⱼ, in its own units: a floor from the mean variance of all features
    (the rule until stop 55) put a feature in units 1e8 times larger than the others' far above
    it, and flagged some 20 others of raw breast cancer as Heywood cases."""
    variance = np.mean(Xc**2, axis=0)
    reference = np.where(variance > 0, variance, variance.mean())
    return _PSI_FLOOR * reference + np.finfo(np.float64).tiny
