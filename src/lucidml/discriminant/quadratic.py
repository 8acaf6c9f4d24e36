"""Quadratic discriminant analysis: Gaussian classes, each with its own covariance."""

from numbers import Real

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..base import GenerativeClassifierMixin
from ..utils import Interval, validate_params
from ..utils.linalg import cholesky_or_none
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_magnitude, check_predict_data, check_square_fits
from ._classes import class_statistics


class QuadraticDiscriminantAnalysis(GenerativeClassifierMixin, ClassifierMixin, BaseEstimator):
    """Gaussian discriminant analysis with one covariance per class (QDA).

    x | y = c ~ N(μ_c, Σ_c) with maximum-likelihood Σ_c = (1/n_c) Σ_{yᵢ=c} (xᵢ − μ_c)(xᵢ − μ_c)ᵀ
    (seeds: 000 §4.3; 001 §15), regularized towards the identity as Σ_c ← (1 − r) Σ_c + r I with
    r = ``reg_param``. The log posterior is quadratic in x:

        δ_c(x) = −½ log|Σ_c| − ½ (x − μ_c)ᵀ Σ_c⁻¹ (x − μ_c) + log φ_c,

    evaluated with the Cholesky factor Σ_c = L Lᵀ: log|Σ_c| = 2 Σ log Lᵢᵢ and the quadratic form
    is ‖L⁻¹(x − μ_c)‖². Both the 1/n_c estimate and the regularization are scikit-learn's
    (≥ 1.9; earlier versions divided by n_c − 1), so the probabilities agree with it.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Class priors φ; by default the class frequencies.
    reg_param : float in [0, 1], default=0.0
        r above. A class whose covariance is singular (constant or collinear features, fewer
        samples than features) needs r > 0.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    priors_ : ndarray of shape (n_classes,)
    means_ : ndarray of shape (n_classes, n_features)
    covariance_ : ndarray of shape (n_classes, n_features, n_features)
        The regularized Σ_c.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.discriminant import QuadraticDiscriminantAnalysis
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(0, 4, (50, 2))])
    >>> y = np.repeat([0, 1], 50)
    >>> qda = QuadraticDiscriminantAnalysis().fit(X, y)
    >>> qda.predict([[0.1, -0.2], [6.0, 6.0]])  # same means, different spreads
    array([0, 1])
    """

    _parameter_constraints = {
        "priors": ["array-like", None],
        "reg_param": [Interval(Real, 0, 1, closed="both")],
    }

    def __init__(self, *, priors=None, reg_param=0.0):
        self.priors = priors
        self.reg_param = reg_param

    def fit(self, X, y):
        """Estimate φ, μ_c and Σ_c for every class."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, float32=True)  # float32 is read as it is
        check_magnitude(X, self)
        self.classes_, class_index, counts, self.priors_, self.means_ = class_statistics(X, y, self.priors)
        n_features = X.shape[1]
        check_square_fits(self, n_features, copies=2 * len(self.classes_), what="a covariance and its factor per class")
        scatters = np.empty((len(self.classes_), n_features, n_features))
        for c in range(len(self.classes_)):
            centred = X[class_index == c] - self.means_[c]
            scatters[c] = centred.T @ centred
        return self._finish(counts, scatters, X.dtype)

    def _finish(self, counts, scatters, dtype):
        """Σ_c, their Cholesky factors and log-determinants from the class counts n_c and scatter
        matrices Σ_{yᵢ=c} (xᵢ − μ_c)(xᵢ − μ_c)ᵀ (float64); ``classes_``, ``priors_`` and ``means_``
        are set. The one finishing step of ``fit`` and of ``lucidml.dask.QuadraticDiscriminantAnalysis``
        (scatters merged from chunks)."""
        n_features = scatters.shape[1]
        covariances, factors = [], []
        for c, label in enumerate(self.classes_):
            if counts[c] < 2:
                raise ValueError(f"y has only 1 sample in class {label}, so its covariance is ill defined.")
            cov = (1.0 - self.reg_param) * scatters[c] / counts[c] + self.reg_param * np.eye(n_features)
            lower = cholesky_or_none(cov)
            if lower is None:
                raise ValueError(
                    f"The covariance matrix of class {label} is singular (constant or collinear features, "
                    f"or {counts[c]:g} samples for {n_features} features); increase reg_param."
                )
            covariances.append(cov)
            factors.append(lower)
        self.covariance_ = np.array(covariances)
        # L⁻¹ once per class, so that scoring is one matrix product per class.
        self._inverse_factors = np.array([scipy.linalg.lapack.dtrtri(lower, lower=1)[0] for lower in factors])
        self._half_log_dets = np.array([np.sum(np.log(np.diag(lower))) for lower in factors])
        self.means_ = self.means_.astype(dtype, copy=False)  # scikit-learn's dtype; scores stay float64
        return self

    def predict_joint_log_proba(self, X):
        """δ_c(x) = log p(c) + log p(x | c) up to a term shared by all classes."""
        check_is_fitted(self)
        X = check_predict_data(self, X, dtype=FLOAT_DTYPES, bounded=True)
        return _quadratic_scores(X, self.means_, self._inverse_factors, self._half_log_dets, self.priors_)

    def decision_function(self, X):
        """δ(x); for two classes δ₂ − δ₁ (positive means the second class), as scikit-learn."""
        scores = self.predict_joint_log_proba(X)
        return scores[:, 1] - scores[:, 0] if len(self.classes_) == 2 else scores


def _quadratic_scores(X, means, inverse_factors, half_log_dets, priors):
    """δ_c(x) = −½ log|Σ_c| − ½ ‖L_c⁻¹(x − μ_c)‖² + log φ_c for every sample and class."""
    scores = np.empty((X.shape[0], len(means)))
    with np.errstate(divide="ignore"):  # a class with prior 0 gets δ = −∞
        log_priors = np.log(priors)
    for c, (mean, inverse) in enumerate(zip(means, inverse_factors)):
        z = (X - mean) @ inverse.T
        scores[:, c] = -half_log_dets[c] - 0.5 * np.einsum("ij,ij->i", z, z) + log_priors[c]
    return scores
