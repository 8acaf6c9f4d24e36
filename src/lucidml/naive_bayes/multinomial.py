"""Multinomial naive Bayes: the multinomial event model over counts."""

import numpy as np
import scipy.sparse

from ._counts import _CountNB
from .smoothing import laplace_smoothing


class MultinomialNB(_CountNB):
    """Naive Bayes for counts (word counts of documents): the multinomial event model.

    A document of class c is a sequence of tokens drawn independently from a class-specific
    distribution φ_{·|c} over the vocabulary V, so with x_t the count of token t,

        log p(c | x) = log p(c) + Σ_t x_t log φ_{t|c} + const,
        φ_{t|c} = (N_ct + α) / (N_c + α|V|)

    where N_ct is the (weighted) count of token t in the documents of class c and N_c their total
    length: Laplace smoothing of the counts (seeds: 000 §4.7, 003 §5.2). The multinomial
    coefficient of x is the same for every class and is dropped.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing; 1 is Laplace smoothing. Values below 1e-10 are raised to 1e-10 with a
        warning unless ``force_alpha`` (without smoothing an unseen feature has probability 0,
        and its log −∞ turns the joint likelihood into NaN).
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
        (Weighted) number of documents per class.
    feature_count_ : ndarray of shape (n_classes, n_features)
        N_ct.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log φ_{t|c}.
    class_log_prior_ : ndarray of shape (n_classes,)
        log p(c).
    n_features_in_ : int

    Notes
    -----
    Input must be non-negative counts (frequencies such as tf-idf work too); dense or SciPy
    sparse.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.naive_bayes import MultinomialNB
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 2, 3], [0, 3, 1]])
    >>> y = np.array(["sport", "sport", "tech", "tech"])
    >>> MultinomialNB().fit(X, y).predict([[1, 0, 0], [0, 1, 1]])
    array(['sport', 'tech'], dtype='<U5')
    """

    def __init__(self, *, alpha=1.0, force_alpha=False, fit_prior=True, class_prior=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _check_fit_values(self, X):
        # Only the training data must be counts; a slightly negative test value (a scaler fitted on
        # the training fold) is scored as it is, as scikit-learn does.
        smallest = (X.data.min(initial=0.0) if scipy.sparse.issparse(X) else X.min(initial=0.0))
        if smallest < 0:
            raise ValueError(f"Negative values in data passed to MultinomialNB: it needs counts, and X has {smallest}.")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags

    def _refresh_feature_log_prob(self, alpha):
        with np.errstate(divide="ignore"):  # alpha = 0 and an unseen token: log 0 = −∞
            self.feature_log_prob_ = np.log(laplace_smoothing(self.feature_count_, alpha, axis=1))

    def _joint_log_likelihood(self, X):
        return np.asarray(X @ self.feature_log_prob_.T) + self.class_log_prior_
