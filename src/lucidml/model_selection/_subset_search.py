"""What the wrapper feature selectors share: the parameters, the default model, the CV score of a subset."""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, is_classifier
from sklearn.feature_selection import SelectorMixin
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv, cross_val_score
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_array, check_is_fitted

from ..utils import N_JOBS, VERBOSE, HasMethods, Interval, validate_params
from ..utils.validation import check_fit_data, check_methods

__all__ = []


class _SubsetSearch(SelectorMixin, MetaEstimatorMixin, BaseEstimator):
    """Base of the wrapper selectors: a subclass writes ``_search(subset_score, n_features)``.

    ``_search`` gets a function that maps a list of column indices to the mean cross-validated
    score of the model on those columns (higher is better) and returns the chosen columns.
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit"]), None],
        "scoring": [str, "callable", None],
        "cv": [Interval(Integral, 2, None, closed="left"), HasMethods(["split"]), "array-like"],
        "n_jobs": N_JOBS,
        "verbose": VERBOSE,
    }

    def fit(self, X, y):
        """Search the feature subsets by cross-validation on ``X, y`` and keep the chosen one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        validate_params(self)
        X, y = check_fit_data(self, X, y)
        estimator = self._model_for(y)
        # scoring=None cross-validates with the estimator's own ``score``
        check_methods(estimator, ["fit"] if self.scoring is not None else ["fit", "score"], type(self).__name__)
        cv = check_cv(self.cv, y, classifier=is_classifier(estimator))
        scorer = check_scoring(estimator, scoring=self.scoring)

        def subset_score(columns):
            # A fit that fails fails the search with its own error (a NaN score would only hide it).
            folds = cross_val_score(estimator, X[:, columns], y, cv=cv, scoring=scorer, n_jobs=self.n_jobs,
                                    error_score="raise")
            return float(np.mean(folds))

        chosen = self._search(subset_score, X.shape[1])
        support = np.zeros(X.shape[1], dtype=bool)
        support[list(chosen)] = True
        self.support_ = support
        return self

    def _model_for(self, y):
        """The user's estimator, or the default: the notes' 5-nearest-neighbour classifier for class
        labels (seeds 002 §6.4.2 runs SBS with it), least squares for anything else."""
        if self.estimator is not None:
            return self.estimator
        if type_of_target(y) in ("binary", "multiclass"):
            from ..neighbors import KNeighborsClassifier

            return KNeighborsClassifier(n_neighbors=5)
        from ..linear import LinearRegression

        return LinearRegression()

    def transform(self, X):
        """The selected columns of X (scikit-learn's ``SelectorMixin.transform``); numbers stored as
        Python objects come back as float64, the numbers ``fit`` read."""
        if getattr(X, "dtype", None) == object:
            X = check_array(X, dtype=np.float64)
        return super().transform(X)

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        if tags.transformer_tags is not None:  # (transform selects columns: X's precision stays)
            tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


def best_candidate(subset_score, candidates, subset_of):
    """The candidate whose subset scores highest (the first one on ties) and that score."""
    scores = [subset_score(subset_of(candidate)) for candidate in candidates]
    best = int(np.argmax(scores))
    return candidates[best], scores[best]
