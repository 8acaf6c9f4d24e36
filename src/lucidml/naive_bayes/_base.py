"""What every naive Bayes model shares: streaming fit, labels, and log-space prediction.

A subclass supplies the model itself:

- ``_start(classes, n_features)``: empty sufficient statistics;
- ``_accumulate(X, class_index, weight)``: add one batch to them and refresh the parameters;
- ``_joint_log_likelihood(X)``: log p(c) + log p(x | c), shape (n_samples, n_classes);
- optionally ``_prepare(X)``: check or transform validated input (e.g. binarize).

``fit`` is ``_start`` + one ``_accumulate``; ``partial_fit`` calls ``_accumulate`` per batch,
so streaming gives the same model as one fit whenever the statistics add up exactly.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..base import GenerativeClassifierMixin
from ..utils import check_sample_weight, validate_params
from ..utils._interrupt import unfit
from ..utils.validation import (
    FLOAT_DTYPES,
    check_classification_targets,
    check_fit_data,
    check_magnitude,
    check_predict_data,
)


class _BaseNB(GenerativeClassifierMixin, ClassifierMixin, BaseEstimator):
    _accept_sparse = False
    # The memory layout the model's computations need ("C" for the compiled Gaussian kernels; None:
    # any, as the count models' BLAS products read either without a copy).
    _order = "C"
    _squares_features = True  # the Gaussian model's variances: new data beyond 1e100 is refused too
    # float32 X is read without a float64 copy (the statistics are accumulated in float64);
    # GaussianNB also keeps its fitted parameters in float32, as scikit-learn's does.

    def fit(self, X, y, sample_weight=None):
        """Fit the model to X (n_samples, n_features) with labels y."""
        validate_params(self)
        X, y = self._validate_Xy(X, y, reset=True)
        self._start(np.unique(y), X.shape[1])
        return self._first_update(X, y, sample_weight)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Update the model with one batch; ``classes`` (all labels) is required on the first call."""
        validate_params(self)
        first_call = not hasattr(self, "classes_")
        if first_call and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        X, y = self._validate_Xy(X, y, reset=first_call)
        if first_call:
            self._start(np.unique(classes), X.shape[1])
            return self._first_update(X, y, sample_weight)
        if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes={classes!r} differs from the classes of the first call {self.classes_!r}.")
        return self._update(X, y, sample_weight)

    def _first_update(self, X, y, sample_weight):
        """The first batch's update; a refused one leaves the model unfitted (``_start`` has set its
        empty statistics, which read as fitted)."""
        try:
            return self._update(X, y, sample_weight)
        except ValueError:
            unfit(self)
            raise

    def _validate_Xy(self, X, y, reset):
        X, y = check_fit_data(self, X, y, order=self._order, accept_sparse="csr" if self._accept_sparse else False,
                              float32=True, reset=reset)
        check_classification_targets(y)
        self._check_fit_values(X)
        return self._prepare(X), y

    def _validate_X(self, X):
        sparse = "csr" if self._accept_sparse else False
        return self._prepare(check_predict_data(self, X, order=self._order, accept_sparse=sparse, dtype=FLOAT_DTYPES,
                                                bounded=self._squares_features))

    def _prepare(self, X):
        """X as the model reads it, at fit and predict time alike (BernoulliNB binarizes it)."""
        return X

    def _check_fit_values(self, X):
        """Refuse training data the model cannot learn from (fit only: scikit-learn checks new data
        at predict time for its type and shape, not for the training data's value range).

        By default: features whose squares overflow (the Gaussian model's variances)."""
        check_magnitude(X, self)

    def _update(self, X, y, sample_weight):
        class_index = np.minimum(np.searchsorted(self.classes_, y), len(self.classes_) - 1)
        unknown = self.classes_[class_index] != y
        if unknown.any():
            raise ValueError(f"y contains labels {np.unique(y[unknown])!r} that are not in classes {self.classes_!r}.")
        weight = check_sample_weight(sample_weight, X.shape[0])
        if weight is None:
            weight = np.ones(X.shape[0])
        self._accumulate(X, class_index, weight)
        return self

    def predict_joint_log_proba(self, X):
        """log p(c) + log p(x | c) for each sample and class, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        return self._joint_log_likelihood(self._validate_X(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accept_sparse
        return tags

