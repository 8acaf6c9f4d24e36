"""Gaussian naive Bayes."""

from numbers import Real

import numpy as np

from ..utils import Interval
from ..utils.validation import check_class_prior
from ._base import _BaseNB
from ._gaussian_kernels import class_moments, joint_log_likelihood


class GaussianNB(_BaseNB):
    """Naive Bayes with one Gaussian per class and feature.

    Features are assumed independent given the class, each normal with its own mean and
    variance, so the class posterior is, in log space,

        log p(c | x) = log p(c) + Σⱼ log N(xⱼ; μ_cj, σ²_cj) − log Σ_c' (same for c')

    with maximum-likelihood (weighted) means μ_cj and variances σ²_cj, and log-sum-exp for the
    normalizer so that no probability underflows to 0/0 (seeds: 000 §4.8.3; 002 §1.4). Every
    variance is enlarged by ε = ``var_smoothing`` × (largest variance of any feature over all
    data), which keeps a constant feature from dividing by zero.

    ``partial_fit`` streams: per-class counts, means and sums of squared deviations are merged
    batch by batch with the pairwise update of Chan, Golub & LeVeque, so fitting in batches
    gives the same model as one ``fit`` on all the data.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Prior class probabilities. If None, the (weighted) class frequencies.
    var_smoothing : float, default=1e-9
        The fraction of the largest feature variance added to every variance.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        The (weighted) number of training samples of each class.
    class_prior_ : ndarray of shape (n_classes,)
        p(c).
    theta_ : ndarray of shape (n_classes, n_features)
        The means μ_cj.
    var_ : ndarray of shape (n_classes, n_features)
        The smoothed variances σ²_cj + ε.
    epsilon_ : float
        ε, the amount added to every variance.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Notes
    -----
    ε is computed from the unweighted variance of all the data seen so far, which matches
    scikit-learn's ``GaussianNB`` after one ``fit`` and stays consistent across ``partial_fit``
    calls.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.naive_bayes import GaussianNB
    >>> X = np.array([[-2.0, -1.0], [-1.0, -1.5], [-1.5, -2.0], [1.0, 1.0], [2.0, 1.5], [1.5, 2.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = GaussianNB().fit(X, y)
    >>> clf.predict([[-0.8, -1.0], [1.2, 0.9]])
    array([0, 1])
    >>> clf.predict_proba([[0.0, 0.0]]).round(3)
    array([[0.5, 0.5]])
    """

    _parameter_constraints = {
        "priors": ["array-like", None],
        "var_smoothing": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, *, priors=None, var_smoothing=1e-9):
        self.priors = priors
        self.var_smoothing = var_smoothing

    def _start(self, classes, n_features):
        """Empty statistics for ``classes``: nothing seen yet."""
        self.classes_ = classes
        self.class_count_ = np.zeros(len(classes))
        self.theta_ = np.zeros((len(classes), n_features))
        self.var_ = np.zeros((len(classes), n_features))
        self.epsilon_ = 0.0
        # Unweighted moments of all data seen, for ε.
        self._total_moments = (np.zeros(1), np.zeros((1, n_features)), np.zeros((1, n_features)))

    def _accumulate(self, X, class_index, weight):
        self._absorb(class_moments(X, class_index, weight, len(self.classes_)),
                     class_moments(X, np.zeros(X.shape[0], dtype=np.intp), np.ones(X.shape[0]), 1), X.dtype)

    def _absorb(self, moments, total_moments, dtype):
        """Merge one batch's (count, mean, M2) per class, and its unweighted (count, mean, M2) over all
        rows (for ε), into the model and refresh the parameters (kept in ``dtype``).

        The one finishing step of every fit: ``fit``, ``partial_fit`` and ``lucidml.dask.GaussianNB``
        (whose moments come merged from the chunks of a Dask array) all end here.
        """
        old_m2 = np.maximum(self.var_ - self.epsilon_, 0.0) * self.class_count_[:, None]
        counts, theta, m2 = merge_moments((self.class_count_, self.theta_, old_m2), moments)
        total_moments = merge_moments(self._total_moments, total_moments)
        total_count, _, total_m2 = total_moments
        epsilon = self.var_smoothing * float(np.max(total_m2 / total_count))
        with np.errstate(invalid="ignore", divide="ignore"):
            var = np.where(counts[:, None] > 0, m2 / counts[:, None], 0.0) + epsilon
        # Accumulated in float64; kept in the data's precision, as scikit-learn does (checked before
        # anything is stored, so that a refused partial_fit leaves the model as it was).
        if np.any(var > np.finfo(dtype).max):
            raise ValueError(f"GaussianNB: the class variances of X reach {float(np.max(var)):.3g}, beyond {dtype} "
                             "(whose precision the model keeps); fit on X as float64, or rescale the features.")
        self.class_count_, self._total_moments, self.epsilon_ = counts, total_moments, epsilon
        self.theta_ = theta.astype(dtype, copy=False)
        self.var_ = np.maximum(var, np.finfo(dtype).tiny).astype(dtype)
        self.class_prior_ = self._class_prior()

    def _class_prior(self):
        if self.priors is None:
            return self.class_count_ / self.class_count_.sum()
        return check_class_prior(self.priors, len(self.classes_), "priors")

    def _joint_log_likelihood(self, X):
        with np.errstate(divide="ignore"):  # a class with prior 0 gets log p = −∞
            log_prior = np.log(self.class_prior_)
        # In float64, returned in X's precision (float32 probabilities for float32 data, as scikit-learn).
        return joint_log_likelihood(X, self.theta_, self.var_, log_prior).astype(X.dtype, copy=False)


def merge_moments(a, b):
    """Combine (count, mean, M2) of two disjoint batches (Chan, Golub & LeVeque 1979).

    n = n_a + n_b,  μ = μ_a + δ n_b / n,  M2 = M2_a + M2_b + δ² n_a n_b / n,  with δ = μ_b − μ_a,
    per class (the first axis). M2 holds either the sums of squared deviations of every feature,
    shape (n_classes, n_features), or the full scatter matrices Σ (x − μ)(x − μ)ᵀ, shape
    (n_classes, n_features, n_features); then δ² is the outer product δδᵀ.
    """
    count_a, mean_a, m2_a = a
    count_b, mean_b, m2_b = b
    count = count_a + count_b
    n = np.where(count > 0, count, 1.0)[:, None]  # empty classes stay at zero
    delta = mean_b - mean_a
    mean = mean_a + delta * (count_b[:, None] / n)
    share = count_a[:, None] * count_b[:, None] / n
    if np.ndim(m2_a) == 3:
        m2 = m2_a + m2_b + delta[:, :, None] * delta[:, None, :] * share[:, :, None]
    else:
        m2 = m2_a + m2_b + delta**2 * share
    return count, mean, m2
