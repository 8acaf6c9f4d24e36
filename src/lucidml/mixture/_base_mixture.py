"""What every finite mixture shares: responsibilities, predictions, likelihood scores, BIC/AIC."""

import numpy as np
from sklearn.base import DensityMixin
from sklearn.utils.validation import check_is_fitted

from ..cluster.kmeans import KMeans
from ..utils import interruptible
from ._base_em import _BaseEM
from ._mixture_kernels import normalize_log_prob


class _BaseMixture(DensityMixin, _BaseEM):
    """A mixture p(x) = Σ_k φ_k p(x | k; θ_k) fitted by EM.

    Subclasses supply ``_weighted_log_prob(X, params)`` (log φ_k + log p(xᵢ | k), an
    (n_samples, K) array), ``_prediction_data(X)`` (validated X and the fitted params, in the
    same coordinates), ``_n_parameters()`` and the M-step; the E-step is shared:

        rᵢₖ = φ_k p(xᵢ | k) / Σ_l φ_l p(xᵢ | l)        (log-sum-exp, never the raw ratio)
        bound = (1/n) Σᵢ log Σ_k φ_k p(xᵢ | k)        (mean log-likelihood, ``lower_bound_``)
    """

    _convergence_message = ("Best performing initialization did not converge. Try different init parameters, "
                            "or increase max_iter, tol, or check for degenerate data.")

    def _e_step(self, X, params):
        resp = self._weighted_log_prob(X, params)
        log_norm = np.empty(X.shape[0])
        normalize_log_prob(resp, log_norm)
        return resp, float(log_norm.mean())

    def _store_bounds(self, bounds):
        self.lower_bounds_ = bounds
        self.lower_bound_ = float(bounds[-1]) if len(bounds) else -np.inf

    def _check_n_samples(self, X):
        if X.shape[0] < self.n_components:
            raise ValueError(f"Expected n_samples >= n_components but got n_components = {self.n_components}, "
                             f"n_samples = {X.shape[0]}.")

    def _initial_resp(self, X, rng):
        """Starting responsibilities: one-hot k-means labels, or random rows normalized to sum to 1."""
        n_samples = X.shape[0]
        if self.init_params == "kmeans":
            # (k-means reads a sparse X as it is: a dense copy of a bag of words can be 1,000× larger)
            labels = KMeans(self.n_components, n_init=1, random_state=rng).fit(X).labels_
            resp = np.zeros((n_samples, self.n_components))
            resp[np.arange(n_samples), labels] = 1.0
            return resp
        resp = rng.uniform(size=(n_samples, self.n_components))
        return resp / resp.sum(axis=1, keepdims=True)

    def _responsibilities(self, X):
        """(responsibilities, log p(x)) of the rows of X under the fitted model."""
        check_is_fitted(self)
        X, params = self._prediction_data(X)
        resp = self._weighted_log_prob(X, params)
        log_norm = np.empty(X.shape[0])
        normalize_log_prob(resp, log_norm)
        # In the data's precision, as scikit-learn's (computed in float64 either way).
        return resp.astype(X.dtype, copy=False), log_norm.astype(X.dtype, copy=False)

    @interruptible
    def fit(self, X, y=None):
        """Fit the mixture by EM (``n_init`` starts, the highest final bound kept); return self."""
        return self._fit(X)

    def fit_predict(self, X, y=None):
        """Fit, then label every training sample with its most probable component."""
        return self.fit(X).predict(X)

    def predict_proba(self, X):
        """Posterior p(k | x) = rₖ(x) of every component, shape (n_samples, n_components)."""
        return self._responsibilities(X)[0]

    def predict(self, X):
        """The component of highest posterior probability, argmax_k p(k | x)."""
        return np.argmax(self._responsibilities(X)[0], axis=1)

    def score_samples(self, X):
        """log p(x) = log Σ_k φ_k p(x | k) of every sample."""
        return self._responsibilities(X)[1]

    def score(self, X, y=None):
        """Mean log-likelihood per sample, (1/n) Σᵢ log p(xᵢ)."""
        return float(self.score_samples(X).mean())

    def bic(self, X):
        """Bayesian information criterion, −2 ℓ(X) + p log n (lower is better)."""
        log_like = self.score_samples(X)
        return -2.0 * log_like.sum() + self._n_parameters() * np.log(len(log_like))

    def aic(self, X):
        """Akaike information criterion, −2 ℓ(X) + 2p (lower is better)."""
        return -2.0 * self.score_samples(X).sum() + 2.0 * self._n_parameters()
