"""Linear discriminant analysis: Gaussian classes with one shared covariance, and Fisher's projection."""

from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.covariance import ledoit_wolf_shrinkage
from sklearn.utils.validation import check_is_fitted

from ..base import GenerativeClassifierMixin
from ..utils import Interval, Options, validate_params
from ..utils.linalg import factorization_threads
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_magnitude, check_predict_data, check_square_fits
from ._classes import class_statistics


class LinearDiscriminantAnalysis(
    ClassNamePrefixFeaturesOutMixin, GenerativeClassifierMixin, TransformerMixin, ClassifierMixin, BaseEstimator
):
    """Gaussian discriminant analysis with a shared covariance (LDA), and Fisher's projection.

    The model (seeds: 000 §4.2–4.4, 003 §5.1, 004 §7): y ~ Categorical(φ), x | y = c ~ N(μ_c, Σ)
    with maximum-likelihood estimates φ_c = n_c/m, μ_c = class mean and the pooled
    Σ = (1/m) Σᵢ (xᵢ − μ_yᵢ)(xᵢ − μ_yᵢ)ᵀ. The log posterior is linear in x:

        δ_c(x) = xᵀΣ⁻¹μ_c − ½ μ_cᵀΣ⁻¹μ_c + log φ_c,    p(c | x) = softmax_c δ(x).

    ``transform`` projects onto Fisher's discriminant directions (002 §7.3): the w maximizing
    J(w) = wᵀS_b w / wᵀS_w w, with S_w = m Σ the within-class scatter and
    S_b = Σ_c n_c (μ_c − μ)(μ_c − μ)ᵀ the between-class scatter, i.e. the generalized
    eigenvectors S_b w = λ S_w w. At most c − 1 eigenvalues are non-zero; with two classes
    w ∝ S_w⁻¹(μ₁ − μ₂).

    Both are computed through an eigendecomposition of Σ: a matrix W with Wᵀ Σ W = I whitens
    the data, so Σ⁻¹ = W Wᵀ and the generalized eigenproblem becomes an ordinary symmetric one
    for Wᵀ S_b W. Degenerate directions of Σ (see ``tol``) are dropped, so a singular Σ
    (constant or collinear features, fewer samples than features) uses its pseudo-inverse
    instead of failing.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Class priors φ; by default the class frequencies.
    shrinkage : "auto" or float in [0, 1], default=None
        Shrink Σ towards (tr Σ / d) I: Σ ← (1 − s) Σ + s (tr Σ / d) I. "auto" shrinks each class's
        covariance Σ_c on the scale of its own standardized features (its correlation matrix,
        with s_c from the Ledoit–Wolf formula, scikit-learn's ``ledoit_wolf_shrinkage``), scales
        it back, and averages the Σ_c with the class frequencies n_c / n: scikit-learn's
        ``shrinkage="auto"`` (``solver="lsqr"`` or ``"eigen"``), which averages with
        ``priors_``, the same unless ``priors`` is given.
    n_components : int, default=None
        Number of Fisher directions kept by ``transform``; at most min(c − 1, n_features).
        None keeps all of them.
    tol : float, default=1e-4
        A direction of Σ counts as degenerate when its singular value, on the scale of
        standardized features, is below ``tol`` times the largest (scale-free, so features in
        very different units are fine).
    store_covariance : bool or None, default=None
        Keep the d × d matrix Σ as ``covariance_``. None keeps it whenever the fit forms it anyway
        (as many rows as columns, or a shrinkage) and skips it on a wide table without shrinkage,
        whose fit then needs O(n d) memory and time O(n² d) instead of the d × d matrix's O(d²) and
        O(n d²) (NCI-60, 57 × 6,830: 0.4 GiB and most of the fit). True always keeps it, False never
        (scikit-learn's default ``solver="svd"`` keeps it only when asked).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    priors_ : ndarray of shape (n_classes,)
    means_ : ndarray of shape (n_classes, n_features)
    covariance_ : ndarray of shape (n_features, n_features)
        The pooled (maximum-likelihood, possibly shrunk) Σ; present as ``store_covariance`` says.
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
        Σ⁻¹μ_c (for two classes, the difference of the two rows, as scikit-learn).
    intercept_ : ndarray of shape (n_classes,), or (1,)
    scalings_ : ndarray of shape (n_features, rank)
        Fisher directions as columns, by decreasing eigenvalue, scaled to unit within-class
        variance (wᵀΣw = 1), the largest entry of each positive.
    xbar_ : ndarray of shape (n_features,)
        The overall mean μ, subtracted by ``transform``.
    explained_variance_ratio_ : ndarray of shape (n_components_,)
        Share of the between-class variance along each kept direction.
    n_components_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.discriminant import LinearDiscriminantAnalysis
    >>> X = np.array([[2, 3], [4, 3], [2, 1], [3, 4], [5, 4], [7, 4], [6, 8], [7, 6], [8, 9], [10, 9]], float)
    >>> y = np.array([1, 1, 1, 1, 1, 2, 2, 2, 2, 2])
    >>> lda = LinearDiscriminantAnalysis().fit(X, y)
    >>> w = lda.scalings_[:, 0]
    >>> (w / np.linalg.norm(w)).round(4)  # Fisher's direction of 002 §7.3.1
    array([0.9503, 0.3113])
    >>> lda.predict([[3.0, 3.0], [8.0, 8.0]])
    array([1, 2])
    """

    _parameter_constraints = {
        "priors": ["array-like", None],
        "shrinkage": [Options({"auto"}), Interval(Real, 0, 1, closed="both"), None],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
        "store_covariance": ["boolean", None],
    }

    def __init__(self, *, priors=None, shrinkage=None, n_components=None, tol=1e-4, store_covariance=None):
        self.priors = priors
        self.shrinkage = shrinkage
        self.n_components = n_components
        self.tol = tol
        self.store_covariance = store_covariance

    def fit(self, X, y):
        """Estimate φ, μ_c and the shared Σ; find the Fisher directions."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, float32=True)
        check_magnitude(X, self)
        self.classes_, class_index, counts, self.priors_, self.means_ = class_statistics(X, y, self.priors)
        # A wide table without shrinkage is whitened from its centred rows (O(n d) memory); the
        # d × d scatter is formed only when the estimate needs it or the user asked for Σ.
        wide = self.shrinkage is None and X.shape[0] < X.shape[1]
        needs_square = not wide or bool(self.store_covariance)
        self._check_dimensions(X.shape[1], square=needs_square)
        centred = covariance = None
        if self.shrinkage == "auto":  # Ledoit–Wolf needs each class's centred rows themselves
            covariance = _auto_shrunk_covariance(X, self.means_, class_index, counts)
        elif needs_square:
            scatter = _within_class_scatter(X, self.means_, class_index)
            covariance = shrink_covariance(scatter / X.shape[0], self.shrinkage)
        if wide:
            centred = X - self.means_[class_index]
        return self._finish(counts, covariance, X.dtype, centred)

    def _check_dimensions(self, n_features, square=True):
        """Refuse a d × d problem that does not fit in memory (``square``: the fit forms d × d
        matrices), or too many components; return the largest number of Fisher directions,
        min(c − 1, d) (``classes_`` must be set)."""
        if square:
            check_square_fits(self, n_features, copies=3, what="scatter, covariance, whitening")
        max_components = min(len(self.classes_) - 1, n_features)
        if self.n_components is not None and self.n_components > max_components:
            raise ValueError(
                f"n_components={self.n_components} is larger than min(n_classes - 1, n_features) = {max_components}."
            )
        return max_components

    def _finish(self, counts, covariance, dtype, centred=None):
        """The discriminant functions and Fisher's directions from the class counts n_c and the
        shared covariance Σ (float64, shrunk as asked); ``classes_``, ``priors_`` and ``means_``
        are set. The one finishing step of ``fit`` and of ``lucidml.dask.LinearDiscriminantAnalysis``
        (Σ from scatters merged over chunks). ``centred``: the n × d class-centred rows of a table
        with fewer rows than columns (no shrinkage), whitened by their SVD, O(n²d), instead of
        the d × d eigenproblem, O(d³); Σ is then None unless it is to be stored."""
        n_samples, n_features = int(round(counts.sum())), self.means_.shape[1]
        max_components = self._check_dimensions(n_features, square=covariance is not None)
        # A feature whose within-class variance is no more than rounding of the class means leaves
        # (a feature constant at 0.7) is constant: left out of Σ⁺, not standardized to unit variance.
        floor = rounding_variance(np.abs(self.means_).max(axis=0))
        with factorization_threads(n_features):  # Σ⁺ = W Wᵀ, the same W either way
            if centred is None:
                whiten = _whitening(covariance, self.tol, floor)
            else:
                whiten = _whitening_of_rows(centred, self.tol, floor)
        keep_covariance = self.store_covariance is not False and covariance is not None
        if keep_covariance:
            self.covariance_ = covariance
        elif hasattr(self, "covariance_"):
            del self.covariance_  # a refit must not keep the previous data's Σ

        # Discriminant functions δ_c(x) = x·(Σ⁻¹μ_c) − ½ μ_c·Σ⁻¹μ_c + log φ_c, up to a term shared by
        # the classes: (x − x̄)·Σ⁻¹(μ_c − x̄) − ½ (μ_c − x̄)ᵀΣ⁻¹(μ_c − x̄) + log φ_c. About x̄ the terms
        # are as small as the differences between the classes; about 0 a feature near 1e9 made
        # them 1e24 apiece, and rounding swamped their differences (52% accuracy where 85% is due).
        self.xbar_ = counts @ self.means_ / n_samples
        white_means = (self.means_ - self.xbar_) @ whiten
        with np.errstate(divide="ignore"):  # a class with prior 0 gets δ = −∞
            log_priors = np.log(self.priors_)
        self._class_coef = white_means @ whiten.T
        self._class_intercept = -0.5 * np.sum(white_means**2, axis=1) + log_priors - self._class_coef @ self.xbar_
        if len(self.classes_) == 2:
            self.coef_ = (self._class_coef[1] - self._class_coef[0])[None, :]
            self.intercept_ = np.array([self._class_intercept[1] - self._class_intercept[0]])
        else:
            self.coef_, self.intercept_ = self._class_coef, self._class_intercept

        # Fisher: S_b w = λ S_w w, solved in whitened coordinates where S_w = m I.
        between = white_means * np.sqrt(counts / n_samples)[:, None]
        with factorization_threads(n_features):
            eigenvalues, rotations = scipy.linalg.eigh(between.T @ between)
        order = np.argsort(eigenvalues)[::-1][:max_components]
        eigenvalues, scalings = np.clip(eigenvalues[order], 0.0, None), whiten @ rotations[:, order]
        largest = np.argmax(np.abs(scalings), axis=0)
        self.scalings_ = scalings * np.sign(scalings[largest, np.arange(scalings.shape[1])])
        self.n_components_ = max_components if self.n_components is None else self.n_components
        total = eigenvalues.sum()
        self.explained_variance_ratio_ = (eigenvalues / total if total > 0 else eigenvalues)[: self.n_components_]
        # Computed in float64; the model is kept in the data's precision (float32 in, float32 scores
        # and projections out), as scikit-learn's.
        for name in ("means_", "coef_", "intercept_", "scalings_", "xbar_", "_class_coef", "_class_intercept",
                     "explained_variance_ratio_") + (("covariance_",) if keep_covariance else ()):
            setattr(self, name, getattr(self, name).astype(dtype, copy=False))
        return self

    def predict_joint_log_proba(self, X):
        """δ_c(x) = log p(c) + log p(x | c) up to a term shared by all classes."""
        check_is_fitted(self)
        X = check_predict_data(self, X, dtype=FLOAT_DTYPES)
        return X @ self._class_coef.T + self._class_intercept

    def decision_function(self, X):
        """δ(x); for two classes δ₂ − δ₁ (positive means the second class), as scikit-learn."""
        check_is_fitted(self)
        X = check_predict_data(self, X, dtype=FLOAT_DTYPES)
        scores = X @ self.coef_.T + self.intercept_
        return scores.ravel() if len(self.classes_) == 2 else scores

    def predict(self, X):
        """The class of largest δ_c(x) (one score column for two classes)."""
        scores = self.decision_function(X)
        winner = (scores > 0).astype(np.intp) if scores.ndim == 1 else np.argmax(scores, axis=1)
        return self.classes_[winner]

    def transform(self, X):
        """Project onto the first ``n_components_`` Fisher directions."""
        check_is_fitted(self)
        X = check_predict_data(self, X, dtype=FLOAT_DTYPES)
        return (X - self.xbar_) @ self.scalings_[:, : self.n_components_]

    @property
    def _n_features_out(self):
        return self.n_components_


def _within_class_scatter(X, means, class_index, block=4096):
    """Σᵢ (xᵢ − μ_cᵢ)(xᵢ − μ_cᵢ)ᵀ in float64, block by block: no centred n × d copy of X."""
    scatter = np.zeros((X.shape[1], X.shape[1]))
    for start in range(0, X.shape[0], block):
        centred = X[start : start + block] - means[class_index[start : start + block]]
        scatter += centred.T @ centred
    return scatter


def _whitening(covariance, tol, floor):
    """W with Wᵀ Σ W = I over the non-degenerate directions of Σ.

    The eigendecomposition is taken on the correlation scale C = D⁻¹ Σ D⁻¹ (D = the within-class
    standard deviations), so that the cut-off does not depend on the units of the features:
    directions with singular value √λ(C) ≤ ``tol``·√λ_max(C) are dropped, as are features with
    no within-class variance beyond rounding (``floor``, from :func:`rounding_variance`). Then
    W = D⁻¹ V Λ^(−½).
    """
    variance = np.diag(covariance)
    varying = variance > floor
    std = np.sqrt(variance)
    if not varying.any():
        raise ValueError("All features are constant within every class: the shared covariance is zero.")
    scale = np.where(varying, std, 1.0)
    correlation = covariance / np.outer(scale, scale)
    correlation[~varying, :] = correlation[:, ~varying] = 0.0
    eigenvalues, vectors = scipy.linalg.eigh(correlation)
    keep = eigenvalues > tol**2 * eigenvalues.max()
    return vectors[:, keep] / np.sqrt(eigenvalues[keep]) / scale[:, None]


def _whitening_of_rows(centred, tol, floor):
    """:func:`_whitening` of Σ = centredᵀ centred / n from the n × d centred rows themselves.

    On the correlation scale, C = ZᵀZ with Z = centred D⁻¹ / √n; the SVD Z = U S Vᵀ gives C's
    eigenvectors V and eigenvalues S², so the same directions are kept (s > ``tol``·s_max) and
    W = D⁻¹ V S⁻¹, exactly as from the eigendecomposition of C.
    """
    n_samples = centred.shape[0]
    variance = np.einsum("ij,ij->j", centred, centred, dtype=np.float64) / n_samples
    varying = variance > floor
    std = np.sqrt(variance)
    if not varying.any():
        raise ValueError("All features are constant within every class: the shared covariance is zero.")
    scale = np.where(varying, std, 1.0)
    _, singular, vt = scipy.linalg.svd(centred / (scale * np.sqrt(n_samples)), full_matrices=False,
                                       lapack_driver="gesdd")
    keep = singular > tol * singular.max()
    return vt[keep].T / singular[keep] / scale[:, None]


def rounding_variance(magnitude):
    """The variance that rounding alone leaves in a constant feature of size ``magnitude`` (its
    largest |class mean|): a class mean off by a few ulps, (64·ε·|μ|)². A column of 0.7s has a
    within-class variance near 1e-33, which is not data; 1e9 ± 1e-3 has 1e-6, which is."""
    return (64 * np.finfo(np.float64).eps * magnitude) ** 2


def constant_features(variance, magnitude, n_samples):
    """Which features are constant but for rounding: a variance no larger than the mean of
    ``n_samples`` values of size ``magnitude`` can leave by rounding, n·ε·σ² + (n·ε·|μ|)²
    (scikit-learn's test in StandardScaler). A column of 1.1s has a class mean off by an ulp,
    and a variance near 1e-33 that is not data."""
    eps = np.finfo(np.float64).eps
    return variance <= n_samples * eps * variance + (n_samples * eps * magnitude) ** 2


def correlation_scale(covariance, mean, n_samples):
    """The standard deviations D of a class's covariance Σ (``mean``: the class's means, of its
    ``n_samples`` rows), with 1 for a constant feature (which keeps its variance near zero), as
    scikit-learn's StandardScaler standardizes."""
    variance = np.diag(covariance)
    return np.where(constant_features(variance, np.abs(mean), n_samples), 1.0, np.sqrt(variance))


def _auto_shrunk_covariance(X, means, class_index, counts):
    """Σ for ``shrinkage="auto"``: Σ_c (n_c / n) Σ̂_c, each class's covariance M_c / n_c shrunk on
    its own standardized features by the Ledoit–Wolf coefficient s_c of its own centred rows
    (scikit-learn's formula), one class at a time (a d × d matrix per class at once, not c)."""
    n = counts.sum()
    total = np.zeros((X.shape[1], X.shape[1]))
    for c, n_c in enumerate(counts):
        centred = X[class_index == c] - means[c]
        covariance = (centred.T @ centred) / n_c
        scale = correlation_scale(covariance, means[c], n_c)
        coefficient = float(ledoit_wolf_shrinkage(centred / scale, assume_centered=True))
        total += (n_c / n) * shrink_covariance(covariance, "auto", coefficient, scale)
    return total


def ledoit_wolf_from_moments(covariance, fourth, n_samples, scale):
    """The Ledoit–Wolf coefficient from sums only: R = D⁻¹ΣD⁻¹ (D = ``scale``, from
    :func:`correlation_scale`) and Σᵢ ‖zᵢ‖⁴ of the standardized rows zᵢ.

    Ledoit & Wolf (2004) on the p standardized features, in their notation
        δ = ‖R − (tr R / p) I‖²_F / p,    β = min(δ, (Σᵢ ‖zᵢ‖⁴ / n − ‖R‖²_F) / (p n)),    s = β / δ,
    (s = 0 when β = 0, and for a single feature), which is what ``ledoit_wolf_shrinkage`` computes from
    the rows themselves; ``lucidml.dask.LinearDiscriminantAnalysis`` sums Σᵢ ‖zᵢ‖⁴ over its chunks.
    """
    p = covariance.shape[0]
    if p == 1:
        return 0.0
    correlation = covariance / np.outer(scale, scale)
    frobenius = float(np.sum(correlation**2))
    delta = (frobenius - np.trace(correlation) ** 2 / p) / p
    beta = min(delta, (fourth / n_samples - frobenius) / (p * n_samples))
    return 0.0 if beta == 0 else float(beta / delta)


def shrink_covariance(covariance, shrinkage, coefficient=None, scale=None):
    """Σ shrunk towards a multiple of the identity: (1 − s)Σ + s (tr Σ / d) I for a given s.

    ``"auto"`` works on the standardized features, as scikit-learn does: the Ledoit–Wolf s
    (``coefficient``) of the correlation matrix R = D⁻¹ΣD⁻¹ (D = ``scale``, from
    :func:`correlation_scale`), R shrunk towards (tr R / d) I, then scaled back.
    On unscaled features a target proportional to I would pull every variance towards the mean
    variance, which for features of very different units (wine: 0.01 to 1,000) ruins the discriminant.
    """
    if shrinkage is None:
        return covariance
    d = covariance.shape[0]
    if shrinkage != "auto":
        target = np.trace(covariance) / d
        return (1.0 - shrinkage) * covariance + shrinkage * target * np.eye(d)
    shrunk = covariance / scale[:, None]  # in place from here: one d × d matrix
    shrunk /= scale[None, :]
    target = np.trace(shrunk) / d
    shrunk *= 1.0 - coefficient
    shrunk.flat[:: d + 1] += coefficient * target
    shrunk *= scale[:, None]
    shrunk *= scale[None, :]
    return shrunk
