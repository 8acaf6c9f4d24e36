"""Model-based imputation: each column with missing values predicted from the other columns, in rounds."""

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, HasMethods, Interval, IterationLog, Options, validate_params
from ..utils.validation import check_fit_data, check_predict_data

__all__ = ["ModelImputer"]


class ModelImputer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Fill missing values (NaN) with a regression model's predictions from the other columns.

    The notes' third way of handling missing data, "predictive values computed by an ML
    algorithm" (seeds: 002 §6.2.1), made precise as chained equations (van Buuren's MICE
    without sampling; the notes leave the order and the number of rounds open):

    1. fill every missing entry with its column's mean (or median) of the observed values;
    2. for each column j with missing values, fewest missing first (ties in column order):
       fit a clone of ``estimator`` on the rows where column j is observed, predicting xⱼ from
       all the other columns (as currently filled), and overwrite the missing entries of
       column j with its predictions — the next column already sees them;
    3. repeat step 2 until no imputed value moves by more than
       ``tol`` · max |observed value| in a round, or for ``max_iter`` rounds.

    This is scikit-learn's ``IterativeImputer`` with ``initial_strategy`` as here,
    ``imputation_order="ascending"``, ``sample_posterior=False`` and ``n_nearest_features=None``;
    the two differ only in the stopping test (it measures the change of a round by the
    largest row sum of changes, this by the largest single change), so with ``tol=0`` they
    agree to round-off. It is written here so that the procedure of the notes is visible and
    needs no import from ``sklearn.experimental``.

    A column observed everywhere is never overwritten; an imputed value is a prediction, not
    an observation, so an imputed data set looks more certain than it is (the notes' warning
    that imputation "can generate bias").

    Parameters
    ----------
    estimator : regressor or None, default=None
        The model of one column given the others; cloned for every column and round. None means
        ``lucidml.linear.LinearRegression()``.
    max_iter : int, default=10
        Most rounds (step 2).
    tol : float, default=1e-3
        Stop when the largest change of an imputed value in a round is ≤ tol · max |observed|;
        0 runs all ``max_iter`` rounds.
    initial_strategy : {"mean", "median"}, default="mean"
        The first fill (step 1), also used at ``transform`` for columns that had nothing missing
        during ``fit``.
    verbose : int, default=0
        1 or more prints ``Iteration t, change = …`` after every round (the largest change of an
        imputed value, as in ``changes_``) and how the rounds stopped, on standard output; 0 prints
        nothing.

    Attributes
    ----------
    initial_values_ : ndarray of shape (n_features,)
        Column means (medians) of the observed training values.
    imputation_sequence_ : list of (int, estimator)
        Every fitted model, in the order applied: column index and model, round after round.
        ``transform`` replays it, so ``transform(X)`` of the training data equals ``fit_transform(X)``.
    n_iter_ : int
        Rounds run (0 when nothing was missing).
    changes_ : list of float
        Largest change of an imputed value in each round (the convergence history).
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.preprocessing import ModelImputer
    >>> X = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, np.nan], [4.0, 8.0]])    # x₂ = 2 x₁
    >>> ModelImputer().fit_transform(X)[2]
    array([3., 6.])
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "initial_strategy": [Options({"mean", "median"})],
        "verbose": VERBOSE,
    }

    def __init__(self, estimator=None, *, max_iter=10, tol=1e-3, initial_strategy="mean", verbose=0):
        self.estimator = estimator
        self.max_iter = max_iter
        self.tol = tol
        self.initial_strategy = initial_strategy
        self.verbose = verbose

    def fit(self, X, y=None):
        """Learn the column models from X (NaN = missing); returns self."""
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        """Learn the column models from X and return X with its missing entries imputed (a new array)."""
        validate_params(self)
        X = check_fit_data(self, X, ensure_all_finite="allow-nan", copy=True)
        missing = np.isnan(X)
        empty = np.flatnonzero(missing.all(axis=0))
        if empty.size:
            raise ValueError(f"{type(self).__name__}: column(s) {empty.tolist()} have no observed value; drop them "
                             "or fill them before imputing.")
        if X.shape[1] == 1 and missing.any():
            raise ValueError(f"{type(self).__name__} predicts a column from the other columns; X has only one column.")
        average = np.nanmedian if self.initial_strategy == "median" else np.nanmean
        self.initial_values_ = average(X, axis=0)
        X[missing] = np.take(self.initial_values_, np.nonzero(missing)[1])
        order = _ascending_missing(missing)
        scale = float(np.max(np.abs(X[~missing]))) if (~missing).any() else 0.0
        self.imputation_sequence_, self.changes_ = [], []
        log = IterationLog(self.verbose)
        for _ in range(self.max_iter if order.size else 0):
            before = X[missing]
            self.imputation_sequence_ += _impute_round(X, missing, order, self._estimator())
            self.changes_.append(float(np.max(np.abs(X[missing] - before))))
            log.iteration(len(self.changes_), change=self.changes_[-1])
            if self.changes_[-1] <= self.tol * scale:
                log.converged(len(self.changes_), self.changes_[-1] / scale if scale else 0.0, self.tol,
                              name="relative change")
                break
        else:
            if order.size:
                log.stopped(self.max_iter, "max_iter reached")
            if order.size and self.tol > 0:
                warnings.warn(f"{type(self).__name__}: imputed values still moved by {self.changes_[-1]:.3g} in round "
                              f"{self.max_iter} (max_iter); raise max_iter or tol.", ConvergenceWarning, stacklevel=2)
        self.n_iter_ = len(self.changes_)
        return X

    def transform(self, X):
        """X with its missing entries imputed by the fitted column models, in the fitted order (a new array)."""
        check_is_fitted(self)
        X = np.array(check_predict_data(self, X, allow_nan=True), dtype=np.float64, copy=True)
        missing = np.isnan(X)
        X[missing] = np.take(self.initial_values_, np.nonzero(missing)[1])
        for column, model in self.imputation_sequence_:
            rows = missing[:, column]
            if rows.any():
                X[rows, column] = model.predict(np.delete(X[rows], column, axis=1))
        return X

    def _estimator(self):
        if self.estimator is not None:
            return self.estimator
        from ..linear import LinearRegression

        return LinearRegression()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def _ascending_missing(missing):
    """Columns with at least one missing entry, fewest missing first (a stable sort keeps ties in column order)."""
    counts = missing.sum(axis=0)
    order = np.argsort(counts, kind="stable")
    return order[counts[order] > 0]


def _impute_round(X, missing, order, estimator):
    """One round of step 2, in place on the filled X; returns the fitted (column, model) pairs."""
    fitted = []
    for column in order:
        rows = missing[:, column]
        others = np.delete(X, column, axis=1)
        model = clone(estimator).fit(others[~rows], X[~rows, column])
        X[rows, column] = model.predict(others[rows])
        fitted.append((int(column), model))
    return fitted
