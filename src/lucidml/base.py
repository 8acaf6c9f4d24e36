"""Mixins shared across estimator families."""

import numpy as np
from scipy.special import logsumexp

__all__ = ["GenerativeClassifierMixin"]


class GenerativeClassifierMixin:
    """Prediction for a classifier that scores log p(c) + log p(x | c).

    The class supplies ``predict_joint_log_proba(X)``; the posterior follows by Bayes' rule,
    normalized in log space with log-sum-exp so that no probability underflows to 0/0.
    """

    def predict_log_proba(self, X):
        """log p(c | x), normalized with log-sum-exp."""
        jll = self._scores(X)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X):
        """p(c | x); rows sum to 1."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The class of highest posterior probability."""
        scores = self._scores(X)  # (first: it checks that the model is fitted)
        return self.classes_[np.argmax(scores, axis=1)]

    def _scores(self, X):
        """The joint log-likelihoods, refused when a row has no finite best class (features so far
        beyond the training data's that the scores overflowed, or a row no class can produce):
        its posterior would be 0/0 (NaN) and its class an arbitrary one."""
        jll = self.predict_joint_log_proba(X)
        best = np.max(jll, axis=1) if jll.size else np.zeros(0)
        if np.isnan(jll).any() or not np.all(np.isfinite(best)):
            raise ValueError(f"{type(self).__name__}: the class scores of some rows of X are not finite (features far "
                             "beyond the scale of the training data, or a row that no class can produce).")
        return jll
