"""Mixture of multivariate Bernoulli (naive Bayes) components, fitted by EM: clustering binary data."""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse
from sklearn.preprocessing import binarize
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, Options, validate_params
from ..utils.validation import check_fit_data, check_predict_data
from ._base_mixture import _BaseMixture

# θ is kept in [ε, 1 − ε]: with alpha = 0 a feature never (or always) present in a component
# would otherwise give log 0 = −∞ to every sample that disagrees.
_CLIP = 1e-10


class BernoulliMixture(_BaseMixture):
    """Mixture of K naive-Bayes models for binary vectors (documents as word-presence vectors), fitted by EM.

    Latent z ~ Multinomial(φ); given z = k the features are independent coins,
    p(x | k) = Πⱼ θ_kj^xⱼ (1 − θ_kj)^(1−xⱼ). EM alternates (seeds: 000 §13.5, for K
    components instead of two)

        E-step:  w_ik ∝ φ_k Πⱼ θ_kj^x_ij (1 − θ_kj)^(1−x_ij),   in log space:
                 log φ_k + x·(log θ_k − log(1 − θ_k)) + Σⱼ log(1 − θ_kj)  (one product with X)
        M-step:  θ_kj = (Σᵢ w_ik x_ij + α) / (Σᵢ w_ik + 2α),   φ_k = (1/n) Σᵢ w_ik

    normalizing w with log-sum-exp. α = 0 is maximum likelihood (θ then clipped to
    [1e-10, 1 − 1e-10]); α > 0 is the MAP estimate under a Beta(α+1, α+1) prior, α = 1 being
    Laplace smoothing. EM then increases the log posterior, so the bound it records (and
    stops on) adds the log prior per sample, (α/n) Σ_kj log θ_kj(1 − θ_kj), to the mean
    log-likelihood. Features are first binarized, xⱼ ← [xⱼ > ``binarize``], as in
    ``BernoulliNB``. Sparse X (CSR) stays sparse: the E- and M-steps are products with X.

    Parameters
    ----------
    n_components : int, default=1
        The number of components K.
    alpha : float, default=0.0
        Additive smoothing of θ (0: maximum likelihood).
    binarize : float or None, default=0.0
        Threshold above which a feature counts as present; None if X is already 0/1 (then
        other values are an error). Sparse X needs a threshold ≥ 0.
    tol : float, default=1e-3
        Stop when the bound (mean log-likelihood per sample) changes by less than tol.
    max_iter : int, default=100
        EM iterations at most per initialization (0: only initialize).
    n_init : int, default=1
        Initializations; the run ending with the highest bound is kept.
    init_params : {"kmeans", "random"}, default="kmeans"
        Starting responsibilities: one-hot on lucidml ``KMeans`` labels of the binarized data
        (which needs it dense), or uniform random rows normalized to sum 1. One M-step follows.
    random_state : int, RandomState instance or None, default=None
        Seeds the initializations and ``sample``.
    warm_start : bool, default=False
        If True, each ``fit`` after the first starts from the fitted model.
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
        θ_kj = p(xⱼ = 1 | k), the mean of component k.
    converged_ : bool
    n_iter_ : int
    lower_bound_ : float
        The final bound of the kept run (mean log-likelihood, plus the log prior if α > 0).
    lower_bounds_ : ndarray of shape (n_iter_,)
        The bound at every iteration of the kept run; non-decreasing.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.mixture.bernoulli_mixture import BernoulliMixture
    >>> X = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 0, 0, 0],
    ...               [0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 1, 1]])
    >>> bm = BernoulliMixture(n_components=2, random_state=0).fit(X)
    >>> labels = bm.predict(X)
    >>> bool(labels[0] == labels[2] and labels[0] != labels[3])
    True
    >>> bm.means_[labels[0]].round(2)
    array([1.  , 0.67, 0.  , 0.  ])
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "binarize": [None, Interval(Real, None, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "init_params": [Options({"kmeans", "random"})],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "verbose": VERBOSE,
    }

    def __init__(self, n_components=1, *, alpha=0.0, binarize=0.0, tol=1e-3, max_iter=100, n_init=1,
                 init_params="kmeans", random_state=None, warm_start=False, verbose=0):
        self.n_components = n_components
        self.alpha = alpha
        self.binarize = binarize
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose

    def _fit(self, X):
        validate_params(self)
        X = self._binary(check_fit_data(self, X, accept_sparse="csr", ensure_min_samples=2))
        self._check_n_samples(X)
        return self._fit_em(X)

    def _binary(self, X):
        if self.binarize is not None:
            if scipy.sparse.issparse(X) and self.binarize < 0:
                raise ValueError("A sparse X cannot be binarized with a threshold < 0 (zeros would become ones).")
            return binarize(X, threshold=self.binarize)
        values = X.data if scipy.sparse.issparse(X) else X
        if np.any((values != 0) & (values != 1)):
            raise ValueError("X must hold only 0 and 1 when binarize=None.")
        return X

    # --- EM hooks ---

    def _e_step(self, X, params):
        resp, bound = super()._e_step(X, params)
        if self.alpha > 0:  # the MAP objective: the one a smoothed M-step increases
            theta = params[1]
            bound += self.alpha * float(np.sum(np.log(theta) + np.log1p(-theta))) / X.shape[0]
        return resp, bound

    def _initialize(self, X, rng):
        return self._m_step(X, self._initial_resp(X, rng))

    def _m_step(self, X, resp):
        nk = resp.sum(axis=0) + 10 * np.finfo(np.float64).eps
        counts = np.asarray(X.T @ resp).T  # Σᵢ w_ik x_ij, sparse-friendly
        theta = np.clip((counts + self.alpha) / (nk[:, None] + 2 * self.alpha), _CLIP, 1 - _CLIP)
        return nk / nk.sum(), theta

    def _weighted_log_prob(self, X, params):
        weights, theta = params
        log_absent = np.log1p(-theta)
        with np.errstate(divide="ignore"):  # a weight of exactly 0 gives log φ = −∞
            log_weights = np.log(weights)
        log_prob = np.asarray(X @ (np.log(theta) - log_absent).T)
        log_prob += log_absent.sum(axis=1) + log_weights
        return log_prob

    def _fitted_params(self, X):
        return self.weights_, self.means_

    def _warm_fits(self, X):
        return self.means_.shape == (self.n_components, X.shape[1])

    def _set_fitted(self, params):
        self.weights_, self.means_ = params

    # --- prediction ---

    def _prediction_data(self, X):
        X = self._binary(check_predict_data(self, X, accept_sparse="csr"))
        return X, (self.weights_, self.means_)

    def _n_parameters(self):
        return self.means_.size + self.n_components - 1

    def sample(self, n_samples=1):
        """Draw n_samples binary vectors: counts per component ~ Multinomial(n, φ), then xⱼ ~ Bernoulli(θ_kj).

        Returns (X, y), y the component of each row (rows grouped by component).
        """
        check_is_fitted(self)
        if not isinstance(n_samples, Integral) or n_samples < 1:
            raise ValueError(f"n_samples must be a positive integer; got {n_samples!r}.")
        rng = check_random_state(self.random_state)
        counts = rng.multinomial(n_samples, self.weights_)
        X = np.vstack([(rng.uniform(size=(c, self.means_.shape[1])) < self.means_[k]).astype(np.float64)
                       for k, c in enumerate(counts)])
        return X, np.repeat(np.arange(self.n_components), counts)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
