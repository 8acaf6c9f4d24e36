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
        jll = self.predict_joint_log_proba(X)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X):
        """p(c | x); rows sum to 1."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The class of highest posterior probability."""
        jll = self.predict_joint_log_proba(X)
        return self.classes_[np.argmax(jll, axis=1)]
