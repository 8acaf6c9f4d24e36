"""Bernoulli naive Bayes: the multivariate Bernoulli event model."""

from numbers import Real

import numpy as np
import scipy.sparse
from sklearn.preprocessing import binarize

from ..utils import Interval
from ._counts import _CountNB
from .smoothing import laplace_smoothing


class BernoulliNB(_CountNB):
    """Naive Bayes for binary features (word presence): the multivariate Bernoulli event model.

    Each feature j is a coin with its own bias φ_{j|c} in each class, and absent features count
    as evidence too:

        log p(c | x) = log p(c) + Σⱼ [xⱼ log φ_{j|c} + (1 − xⱼ) log(1 − φ_{j|c})] + const,
        φ_{j|c} = (#{xⱼ = 1 in class c} + α) / (n_c + 2α)

    (Laplace smoothing over the two outcomes; seeds: 000 §4.5–4.6, 003 §5.2–5.3). Features are
    first binarized: xⱼ ← [xⱼ > ``binarize``].

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing; 1 is Laplace smoothing. Values below 1e-10 are raised to 1e-10 with a
        warning unless ``force_alpha`` (without smoothing an unseen feature has probability 0,
        and its log −∞ turns the joint likelihood into NaN).
    binarize : float or None, default=0.0
        Threshold above which a feature counts as present; None if X is already binary (or holds
        presence probabilities: values in [0, 1], anything else is refused).
    force_alpha : bool, default=False
        Use ``alpha`` as given even below 1e-10 (scikit-learn's parameter; its default became
        True in scikit-learn 1.4, which lets ``alpha=0`` give NaN — lucidml keeps the safe one).
    fit_prior : bool, default=True
        Learn p(c) as the class frequencies; if False use a uniform prior.
    class_prior : array-like of shape (n_classes,), default=None
        Given p(c) (overrides ``fit_prior``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        (Weighted) n_c.
    feature_count_ : ndarray of shape (n_classes, n_features)
        (Weighted) number of samples of class c with feature j present.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log φ_{j|c}.
    class_log_prior_ : ndarray of shape (n_classes,)
        log p(c).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.naive_bayes import BernoulliNB
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]])
    >>> y = np.array([0, 0, 1, 1])
    >>> clf = BernoulliNB().fit(X, y)
    >>> clf.predict([[1, 0, 0], [0, 0, 1]])
    array([0, 1])
    >>> np.exp(clf.feature_log_prob_[0]).round(2)  # (count + 1) / (2 + 2)
    array([0.75, 0.5 , 0.25])
    """

    _parameter_constraints = {
        **_CountNB._parameter_constraints,
        "binarize": [None, Interval(Real, None, None, closed="neither")],
    }

    def __init__(self, *, alpha=1.0, force_alpha=False, binarize=0.0, fit_prior=True, class_prior=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _check_fit_values(self, X):
        if self.binarize is None:
            # Unbinarized features must be presence probabilities: a count above 1 would make the
            # "absent" count n_c − N_cj negative and its log NaN.
            values = X.data if scipy.sparse.issparse(X) else X
            low, high = (values.min(), values.max()) if values.size else (0.0, 0.0)
            if low < 0 or high > 1:
                raise ValueError(f"BernoulliNB(binarize=None) needs features in [0, 1] (presence or its probability); "
                                 f"X has values from {low:g} to {high:g}. Set binarize to a threshold instead.")

    def _prepare(self, X):
        return X if self.binarize is None else binarize(X, threshold=self.binarize)

    def _refresh_feature_log_prob(self, alpha):
        present_absent = np.stack([self.feature_count_, self.class_count_[:, None] - self.feature_count_], axis=2)
        alpha = alpha if np.ndim(alpha) == 0 else alpha[:, None]
        with np.errstate(divide="ignore"):  # alpha = 0 and a feature always/never present
            log_prob = np.log(laplace_smoothing(present_absent, alpha, axis=2))
        self.feature_log_prob_ = log_prob[:, :, 0]
        self._log_prob_absent = log_prob[:, :, 1]

    def _joint_log_likelihood(self, X):
        # Σⱼ xⱼ log φ + (1 − xⱼ) log(1 − φ) = x·(log φ − log(1 − φ)) + Σⱼ log(1 − φ)
        log_odds = self.feature_log_prob_ - self._log_prob_absent
        return np.asarray(X @ log_odds.T) + self._log_prob_absent.sum(axis=1) + self.class_log_prior_
