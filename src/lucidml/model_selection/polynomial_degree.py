"""Choosing the degree of a polynomial regression by cross-validation and Occam's razor."""

from dataclasses import dataclass
from numbers import Integral

import numpy as np
from sklearn.base import clone
from sklearn.dummy import DummyRegressor
from sklearn.model_selection import KFold, check_cv, cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler
from sklearn.utils.validation import check_X_y

__all__ = ["DegreeSelectionResult", "select_polynomial_degree"]


@dataclass(frozen=True)
class DegreeSelectionResult:
    """The cross-validation curve of :func:`select_polynomial_degree` and the degree it chose.

    Attributes
    ----------
    degrees : ndarray of int
        The degrees tried, in the order given.
    cv_errors : ndarray
        Mean squared error over the folds, one per degree.
    cv_std_errors : ndarray
        Standard error of that mean: std of the fold errors (ddof=1) / √K.
    fold_errors : ndarray of shape (n_degrees, n_folds)
    best_degree : int
        The degree of smallest CV error.
    degree : int
        The degree chosen by ``rule``.
    rule : str
    model : Pipeline
        The model of the chosen degree, fitted on all the data.
    """

    degrees: np.ndarray
    cv_errors: np.ndarray
    cv_std_errors: np.ndarray
    fold_errors: np.ndarray
    best_degree: int
    degree: int
    rule: str
    model: Pipeline


def select_polynomial_degree(X, y, degrees, *, estimator=None, cv=5, rule="occam", random_state=None):
    """Cross-validated error of polynomial models of each degree, and the degree to use.

    The notes fit polynomials P_n of degree n = 0, 1, … to noisy data and pick the simplest one that
    explains the data about as well as any more complex one (seeds 002 §1.3, Example 1.6, Strategy
    1.7 and Occam's razor, Proposition 1.8; the error is measured on held-out folds, as model
    selection requires, seeds 000 §9). For every degree n the model is
    standardize → all monomials of the features up to total degree n → ``estimator`` (degree 0 is
    the mean of y), and its mean squared error over the K folds gives the curve CV(n).

    - ``rule="best"``: the degree of smallest CV error.
    - ``rule="occam"``: the smallest degree whose CV error is at most CV(n*) + SE(n*), where n* is the
      best degree and SE(n*) the standard error of its K fold errors. The notes ask for "similar
      explanatory ability" without a number; one standard error is the usual measure of it
      (*Std:* the one-standard-error rule, Breiman et al. 1984; Hastie, Tibshirani & Friedman 2009 §7.10).

    Standardizing first spans the same polynomials (an affine change of each feature) and keeps high
    degrees well conditioned. Folds and scoring are scikit-learn's (``KFold``, ``cross_val_score``),
    and so are the features (``PolynomialFeatures``).

    Parameters
    ----------
    X : array-like of shape (n_samples,) or (n_samples, n_features)
    y : array-like of shape (n_samples,)
    degrees : iterable of int
        Degrees to try, each ≥ 0, without repeats.
    estimator : regressor or None, default=None
        Fitted on the monomials; None is :class:`lucidml.linear.LinearRegression` (least squares).
    cv : int, cross-validation splitter or list of (train, test) pairs, default=5
        An int K is K-fold over shuffled samples (data sorted by x would otherwise leave whole
        ranges of x out of training), shuffled with ``random_state``.
    rule : {"occam", "best"}, default="occam"
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    DegreeSelectionResult

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.model_selection import select_polynomial_degree
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(-2, 2, 100)
    >>> y = x ** 3 - 2 * x + rng.normal(scale=0.5, size=100)
    >>> result = select_polynomial_degree(x, y, range(0, 9), cv=10, random_state=0)
    >>> result.degree, result.best_degree
    (3, 4)
    >>> bool(result.cv_errors[1] > 5 * result.cv_errors[3])
    True
    """
    X, y = check_X_y(np.asarray(X).reshape(-1, 1) if np.ndim(X) == 1 else X, y, y_numeric=True)
    degrees = _check_degrees(degrees)
    if rule not in ("occam", "best"):
        raise ValueError(f"rule must be 'occam' or 'best'; got {rule!r}.")
    if isinstance(cv, Integral) and not isinstance(cv, bool):
        cv = KFold(int(cv), shuffle=True, random_state=random_state)
    cv = check_cv(cv)
    base = _least_squares() if estimator is None else estimator
    fold_errors = np.array([
        -cross_val_score(_polynomial_model(base, degree), X, y, cv=cv, scoring="neg_mean_squared_error")
        for degree in degrees
    ])
    cv_errors = fold_errors.mean(axis=1)
    std_errors = fold_errors.std(axis=1, ddof=1) / np.sqrt(fold_errors.shape[1])
    best = int(np.argmin(cv_errors))
    chosen = best if rule == "best" else _occam_choice(degrees, cv_errors, cv_errors[best] + std_errors[best])
    return DegreeSelectionResult(
        degrees=degrees, cv_errors=cv_errors, cv_std_errors=std_errors, fold_errors=fold_errors,
        best_degree=int(degrees[best]), degree=int(degrees[chosen]), rule=rule,
        model=_polynomial_model(base, int(degrees[chosen])).fit(X, y),
    )


def _check_degrees(degrees):
    degrees = list(degrees)
    if not degrees:
        raise ValueError("degrees is empty.")
    for degree in degrees:
        if isinstance(degree, bool) or not isinstance(degree, Integral) or degree < 0:
            raise ValueError(f"Every degree must be an integer ≥ 0; got {degree!r}.")
    if len(set(degrees)) != len(degrees):
        raise ValueError(f"degrees has repeats: {degrees}.")
    return np.asarray(degrees, dtype=np.int64)


def _occam_choice(degrees, cv_errors, threshold):
    """Index of the smallest degree whose CV error is within the threshold."""
    within = np.flatnonzero(cv_errors <= threshold)
    return int(within[np.argmin(degrees[within])])


def _least_squares():
    from ..linear import LinearRegression

    return LinearRegression()


def _polynomial_model(estimator, degree):
    if degree == 0:
        return make_pipeline(DummyRegressor(strategy="mean"))
    return make_pipeline(StandardScaler(), PolynomialFeatures(degree, include_bias=False), clone(estimator))
