"""Classification by least-squares regression on indicator (one-hot) targets."""

from numbers import Integral, Real

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_array, check_is_fitted

from ..utils import Interval, check_sample_weight, restored_if_refused, validate_params
from ..utils.linalg import blas_product, in_precision
from ..utils.validation import (
    FLOAT_DTYPES,
    check_classification_targets,
    check_fit_data,
    check_magnitude,
    check_predict_data,
)
from ._sparse_least_squares import solve_ridge_implicit
from .linear_regression import _least_squares
from .polynomial import polynomial_features


class LeastSquaresClassifier(ClassifierMixin, BaseEstimator):
    """Linear regression of the class indicators, predicting the class whose indicator fits best.

    Each class c gets the target column Yᵢc = 1{yᵢ = c} (one-hot coding). With the feature matrix
    Φ = [1, φ(X)] the coefficients of all classes solve one least-squares problem

        min_W ‖Y − ΦW‖² + α‖W'‖²        (W' = W without the bias row, which is not penalized)
        ⇔ (ΦᵀΦ + αD) W = ΦᵀY,  D = I except D₀₀ = 0,

    solved for α = 0 as the minimum-norm least-squares solution (rank-safe), for α > 0 by
    Cholesky. A sample x is assigned the class with the largest score f_c(x) = (1, φ(x))·W_c:
    the nearest code wins, and with two classes (where f₀ + f₁ = 1 when the bias is fitted)
    this is the threshold f₁ > ½ (seeds: 004 §3; 002 P.3 and §1.4 name the method and its
    feature expansion; the algebra is ESL §4.2). With 3 or more classes and linear features a
    class lying between two others can be masked: its score is never the largest.

    φ is, by default, every distinct monomial of the inputs of degree 1 to ``degree``
    (x₁, x₂, x₁², x₁x₂, x₂², ... for degree 2), or any user map such as 002 §5.3.5's
    φ(x₁, x₂) = (x₁, x₂, x₁² + x₂²), which makes two concentric circles linearly separable.

    The same scores with ±1 codes (scikit-learn's ``RidgeClassifier``) are 2f_c − 1, so both
    predict the same classes for the same ``alpha``.

    Parameters
    ----------
    alpha : float, default=0.0
        Ridge penalty α on the non-bias coefficients (scikit-learn's scale: the objective is
        the plain sum of squares plus α‖W'‖²). 0 gives ordinary least squares.
    degree : int, default=1
        Largest total degree of the monomial features; 1 means φ(x) = x. Ignored when
        ``feature_map`` is given.
    feature_map : callable, default=None
        φ: a function taking X of shape (n_samples, n_features) and returning an array of shape
        (n_samples, n_mapped). It replaces the polynomial features.
    standardize : bool, default=False
        Scale every column of φ(X) to zero mean and unit variance (statistics of the training
        data) before solving. With an intercept this changes the fit only through α, which then
        treats the features alike; without one, the centring also acts as an implicit intercept.
    fit_intercept : bool, default=True
        Whether Φ has the unpenalized bias column 1.

    X may be a SciPy sparse matrix (CSR or CSC) when φ(x) = x (``degree=1``, no ``feature_map``,
    no ``standardize``): the system is then solved without densifying or centring X (see
    :class:`~lucidml.linear.Ridge`). A float32 X gets float32 ``coef_``, ``intercept_`` and scores
    (``feature_map`` output is read in X's precision), solved in float64 as the direct solvers of
    :class:`~lucidml.linear.LinearRegression` solve it; the scores are then float32 products, which
    lose what float32 loses where w·x and the intercept cancel (a feature of mean 1e7).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    coef_ : ndarray of shape (n_classes, n_mapped)
        W', one row of feature coefficients per class (on the standardized scale when
        ``standardize=True``).
    intercept_ : ndarray of shape (n_classes,)
        The bias row of W (0 when ``fit_intercept=False``).
    n_features_in_ : int
        Number of input features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear.least_squares_classifier import LeastSquaresClassifier
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])                     # XOR: not linearly separable
    >>> LeastSquaresClassifier().fit(X, y).score(X, y)
    0.5
    >>> LeastSquaresClassifier(degree=2).fit(X, y).predict(X)   # x₁x₂ separates it
    array([0, 0, 1, 1])
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "feature_map": ["callable", None],
        "standardize": ["boolean"],
        "fit_intercept": ["boolean"],
    }

    def __init__(self, *, alpha=0.0, degree=1, feature_map=None, standardize=False, fit_intercept=True):
        self.alpha = alpha
        self.degree = degree
        self.feature_map = feature_map
        self.standardize = standardize
        self.fit_intercept = fit_intercept

    @restored_if_refused
    def fit(self, X, y, sample_weight=None):
        """Fit one least-squares score per class to X (n_samples, n_features) and labels y."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, accept_sparse=("csr", "csc"), float32=True)
        check_magnitude(X, self)  # the normal equations square the features
        if scipy.sparse.issparse(X) and (self.degree != 1 or self.feature_map is not None or self.standardize):
            raise ValueError("LeastSquaresClassifier takes a sparse X only with degree=1, feature_map=None and "
                             "standardize=False (the other feature maps would densify it); pass X.toarray().")
        check_classification_targets(y)
        self.classes_, class_index = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(
                f"LeastSquaresClassifier needs at least 2 classes; got only one class ({self.classes_[0]!r})."
            )
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        # Solved in float64 whatever X's precision: float32 normal equations of an ill-conditioned
        # X (breast cancer's raw features) changed 17 of 569 predictions.
        phi = self._features(X, np.float64)
        if self.standardize:
            mean = np.average(phi, axis=0, weights=sample_weight)
            scale = np.sqrt(np.average((phi - mean) ** 2, axis=0, weights=sample_weight))
            scale = np.where(scale > 0, scale, 1.0)  # constant columns stay as they are
            phi = (phi - mean) / scale
            self.feature_mean_, self.feature_scale_ = in_precision(mean, X.dtype), in_precision(scale, X.dtype)
        Y = np.zeros((X.shape[0], self.classes_.size))
        Y[np.arange(X.shape[0]), class_index] = 1.0
        coef, intercept = _indicator_least_squares(phi, Y, sample_weight, self.alpha, self.fit_intercept)
        self.coef_, self.intercept_ = in_precision(coef, X.dtype), in_precision(intercept, X.dtype)
        return self

    def decision_function(self, X):
        """Scores f_c(x); for two classes the single column f₁ − f₀ (> 0 means ``classes_[1]``)."""
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse=("csr", "csc"), dtype=FLOAT_DTYPES)
        coef, intercept = self._score_coefficients()
        phi = self._features(X, X.dtype)
        if scipy.sparse.issparse(phi):
            return phi @ coef.T + intercept
        # By utils.linalg.blas_product, the rule of the fit's products: in SciPy's pool after a solve
        # there of more than SMALL_MATRIX features (NumPy's pool, woken while SciPy's threads still
        # spun, made the predict after such a fit three times slower), else in NumPy's.
        return blas_product(phi, coef.T) + intercept

    def _score_coefficients(self):
        """The score coefficients on φ(X) itself: standardization (φ − m)/s folded into W' and b,
        and for two classes the single difference row f₁ − f₀ (no n × d temporaries at predict)."""
        coef, intercept = self.coef_, self.intercept_
        if self.standardize:
            coef = coef / self.feature_scale_
            intercept = intercept - coef @ self.feature_mean_
        if self.classes_.size == 2:
            return coef[1] - coef[0], intercept[1] - intercept[0]
        return coef, intercept

    def predict(self, X):
        """The class with the largest score."""
        scores = self.decision_function(X)
        index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
        return self.classes_[index]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # refused at fit for the feature maps that would densify it
        return tags

    def _features(self, X, dtype):
        """φ(X) in ``dtype``: the user's map, or the monomials of degree 1 to ``degree``."""
        if self.feature_map is None:
            phi = X if self.degree == 1 else _poly_features(X, self.degree)
            return phi.astype(dtype, copy=False)
        phi = check_array(self.feature_map(X), dtype=dtype, ensure_2d=False)
        phi = phi.reshape(-1, 1) if phi.ndim == 1 else phi
        if phi.ndim != 2 or phi.shape[0] != X.shape[0]:
            raise ValueError(
                f"feature_map must return one row per sample, shape ({X.shape[0]}, n_mapped); "
                f"got shape {phi.shape}."
            )
        return phi


def _indicator_least_squares(phi, Y, sample_weight, alpha, fit_intercept):
    """Solve (ΦᵀSΦ + αD)W = ΦᵀSY with an unpenalized bias; return (W' as (classes, features), bias)."""
    sparse = scipy.sparse.issparse(phi)
    if alpha == 0 and not sparse:
        coef, intercept, _ = _least_squares(phi.copy(), Y, sample_weight, fit_intercept, "lstsq")
        return coef, np.atleast_1d(intercept)
    # The ridge engine: centring (with the weighted means) removes the bias from the penalized system
    # exactly, and a sparse Φ is never centred in memory.
    W, phi_mean, y_mean, _, _ = solve_ridge_implicit(
        phi, Y, sample_weight, np.full(Y.shape[1], float(alpha)), fit_intercept, method="auto" if sparse else "gram",
        name="LeastSquaresClassifier")
    return W.T, y_mean - phi_mean @ W


def _poly_features(X, degree):
    """All distinct monomials of the columns of X with total degree 1..degree (scikit-learn's order)."""
    return polynomial_features(X, degree)
