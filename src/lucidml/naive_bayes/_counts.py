"""Naive Bayes over discrete features: the statistics shared by the count models."""

import warnings
from numbers import Real

import numpy as np

from ..utils import Interval
from ..utils.validation import check_class_prior, check_fit_is_finite, class_sums
from ._base import _BaseNB

# scikit-learn's floor for the smoothing (used unless force_alpha=True)
ALPHA_MIN = 1e-10


class _CountNB(_BaseNB):
    """Class counts and per-class feature counts, accumulated batch by batch.

    Subclasses turn them into ``feature_log_prob_`` in ``_refresh_feature_log_prob``.
    """

    _accept_sparse = True
    _order = None  # a column-major table (what a ColumnTransformer returns) is not copied
    _squares_features = False  # counts are summed, never squared

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "force_alpha": ["boolean"],
        "fit_prior": ["boolean"],
        "class_prior": ["array-like", None],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Like scikit-learn's: count models are not meant for the checks' Gaussian blobs.
        tags.classifier_tags.poor_score = True
        return tags

    def _check_fit_values(self, X):
        # Counts are summed, never squared: rather than two more passes over X for its magnitude,
        # the sums are checked after the fit (see _accumulate).
        pass

    def _start(self, classes, n_features):
        self.classes_ = classes
        self.class_count_ = np.zeros(len(classes))
        self.feature_count_ = np.zeros((len(classes), n_features))

    def _accumulate(self, X, class_index, weight):
        self.class_count_ += np.bincount(class_index, weights=weight, minlength=len(self.classes_))
        self.feature_count_ += class_sums(X, class_index, len(self.classes_), weight)
        check_fit_is_finite(self, X, self.feature_count_)
        self._refresh_feature_log_prob(self._alpha())
        self.class_log_prior_ = self._class_log_prior()

    def _alpha(self):
        alpha = np.asarray(self.alpha, dtype=np.float64)
        if alpha.ndim > 0 and alpha.shape != (self.n_features_in_,):
            raise ValueError(f"alpha must be a float or have one entry per feature ({self.n_features_in_}).")
        if np.any(alpha < 0):
            raise ValueError("alpha must be non-negative.")
        if not self.force_alpha and np.any(alpha < ALPHA_MIN):
            warnings.warn(f"alpha below {ALPHA_MIN} would give zero probabilities (and NaN scores); it is raised to "
                          f"{ALPHA_MIN}. Set force_alpha=True to use it as given.", UserWarning, stacklevel=4)
            alpha = np.maximum(alpha, ALPHA_MIN)
        return alpha

    def _class_log_prior(self):
        """log p(c): given, learned (n_c / m), or uniform."""
        n_classes = len(self.classes_)
        if self.class_prior is not None:
            prior = check_class_prior(self.class_prior, n_classes, "class_prior")
        elif self.fit_prior:
            prior = self.class_count_ / self.class_count_.sum()
        else:
            prior = np.full(n_classes, 1.0 / n_classes)
        with np.errstate(divide="ignore"):  # a class never seen gets log p = −∞
            return np.log(prior)
