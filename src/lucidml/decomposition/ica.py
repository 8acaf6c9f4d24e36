"""Independent component analysis by maximum likelihood (Bell & Sejnowski's infomax)."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils import VERBOSE, Interval, IterationLog, Options, validate_params
from ..utils.linalg import in_precision, product_in_precision
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_predict_data, check_scores
from ._ica_kernels import ica_epoch


class ICA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Independent component analysis: unmix x = As into independent non-Gaussian sources s = Wx.

    With independent sources of density p, x = As has density p(x) = Πⱼ p(wⱼᵀx)·|det W| for
    W = A⁻¹, so W maximizes the log-likelihood (seeds: 000 §16; Bell & Sejnowski 1995)

        ℓ(W) = Σᵢ [ Σⱼ log p(wⱼᵀxᵢ) + log|det W| ].

    For the notes' logistic prior p = σ′ (σ the sigmoid CDF), ∂/∂s log p(s) = 1 − 2σ(s); for the
    Laplace prior p(s) = ½e^{−|s|} it is −sign(s). Per sample (or mini-batch mean) the updates are

        ``"gradient"`` (the notes' rule):  W ← W + η ([1 − 2σ(Wx)] xᵀ + W⁻ᵀ)
        ``"natural_gradient"`` (Amari, Cichocki & Yang 1996):  W ← W + η (I + [1 − 2σ(s)] sᵀ) W,  s = Wx

    The natural gradient is the plain gradient multiplied by WᵀW: same fixed points, no matrix
    inverse, and a step that does not depend on how badly A is conditioned. The notes call the
    rule descent; it is ascent on ℓ. X is centred and (by default) whitened first (PCA whitening,
    Hyvärinen & Oja 2000), which turns A into a rotation and makes a fixed learning rate work.

    Both priors are super-Gaussian (heavier tails than a Gaussian): they separate sources such as
    speech, Laplace or sparse signals. Sub-Gaussian sources (uniform, sine, square waves) are a
    minimum of this likelihood's stability condition and are not reliably separated; FastICA or
    extended infomax handle them. Gaussian sources are never identifiable (000 §16). Sources are
    recovered up to order, sign and scale.

    Float32 X is fitted in float32, as scikit-learn's FastICA is: the centred and whitened copies of
    X are float32 (half the memory), and so are the fitted arrays and the sources. The SVD that
    whitens runs on a float64 copy of the centred X (its arbitrary signs must be float64's for the
    fit to match a float64 fit); the small k × k unmixing matrix W is updated in float64 (with sums
    over samples in float64), and components_ = W·whitening_ and its pseudo-inverse mixing_ are
    formed in float64, then rounded.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of sources (≤ n_features; with ``whiten=False`` it must equal n_features). None:
        n_features.
    algorithm : {"natural_gradient", "gradient"}, default="natural_gradient"
    fun : {"logistic", "laplace"}, default="logistic"
        The source prior p.
    whiten : bool, default=True
        Whiten (and reduce to n_components dimensions by PCA) before unmixing.
    learning_rate : float, default=1e-3
        η, per update.
    batch_size : int, default=1
        Samples per update (1 = the notes' per-sample stochastic rule). Samples are reshuffled
        every epoch.
    max_iter : int, default=200
        Epochs at most.
    tol : float, default=1e-4
        Stop when an epoch changes the mean negative log-likelihood by less than tol.
    random_state : int, RandomState instance or None, default=None
        Initial W (a random rotation) and the shuffling.
    verbose : int, default=0
        1 or more prints ``Iteration t, loss = −ℓ(W)/m`` after every epoch (the values of
        ``loss_curve_``) and how the run stopped, on standard output; 0 prints nothing.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The unmixing matrix from centred X to the sources (whitening included): s = components_ (x − μ).
    mixing_ : ndarray of shape (n_features, n_components)
        The pseudo-inverse of components_: x ≈ μ + mixing_ s.
    unmixing_ : ndarray of shape (n_components, n_components)
        W, acting on the whitened data.
    whitening_ : ndarray of shape (n_components, n_features) or None
        The whitening matrix (None when ``whiten=False``).
    mean_ : ndarray of shape (n_features,)
        μ.
    n_iter_ : int
        Epochs run.
    loss_curve_ : ndarray of shape (n_iter_,)
        −ℓ(W)/m on the (whitened) training data after each epoch.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.decomposition.ica import ICA
    >>> rng = np.random.RandomState(0)
    >>> S = rng.laplace(size=(2000, 2))
    >>> X = S @ np.array([[1.0, 1.0], [0.5, 2.0]]).T
    >>> S_hat = ICA(random_state=0).fit_transform(X)
    >>> corr = np.abs(np.corrcoef(S.T, S_hat.T)[:2, 2:])
    >>> bool(np.all(corr.max(axis=1) > 0.99))
    True
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "algorithm": [Options({"natural_gradient", "gradient"})],
        "fun": [Options({"logistic", "laplace"})],
        "whiten": ["boolean"],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, n_components=None, *, algorithm="natural_gradient", fun="logistic", whiten=True,
                 learning_rate=1e-3, batch_size=1, max_iter=200, tol=1e-4, random_state=None,
                 verbose=0):
        self.n_components = n_components
        self.algorithm = algorithm
        self.fun = fun
        self.whiten = whiten
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None):
        """Estimate the unmixing matrix from X (n_samples, n_features)."""
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the recovered sources S = (X − μ) components_ᵀ."""
        validate_params(self)
        # C order whatever the caller's layout: the iterations then sum in one order, and every layout
        # of the same numbers gives the very same sources.
        X = check_fit_data(self, X, ensure_min_samples=2, float32=True, order="C")
        d = X.shape[1]
        k = d if self.n_components is None else self.n_components
        if k > d:
            raise ValueError(f"n_components={k} must be at most n_features={d}.")
        if not self.whiten and k != d:
            raise ValueError(f"Without whitening n_components must equal n_features={d}; got {k}.")
        rng = check_random_state(self.random_state)

        self.mean_ = X.mean(axis=0, dtype=np.float64).astype(X.dtype, copy=False)  # summed in float64
        Xc = X - self.mean_
        self.whitening_ = _whitening_matrix(Xc, k) if self.whiten else None
        Z = Xc @ self.whitening_.T if self.whiten else Xc
        W0 = scipy.linalg.qr(rng.standard_normal((k, k)))[0]  # a random rotation
        W, losses, converged = _infomax(Z, W0, self.algorithm == "natural_gradient", self.fun == "laplace",
                             self.learning_rate, self.batch_size, self.max_iter, self.tol, rng,
                                        IterationLog(self.verbose))
        self.unmixing_ = in_precision(W, X.dtype)
        components = W @ self.whitening_ if self.whiten else W.copy()  # in W's float64, rounded below
        self.components_ = in_precision(components, X.dtype)
        self.mixing_ = in_precision(scipy.linalg.pinv(components), X.dtype)
        self.loss_curve_ = np.asarray(losses)
        self.n_iter_ = len(losses)
        if not converged and self.tol > 0:
            warnings.warn(f"ICA stopped at max_iter={self.max_iter} epochs before the loss changed by less "
                          f"than tol={self.tol}; increase max_iter or learning_rate.", ConvergenceWarning,
                          stacklevel=2)
        return product_in_precision(Z, W.T, dtype=None)

    def transform(self, X):
        """Recovered sources of new data: s = components_ (x − μ)."""
        check_is_fitted(self)
        X = check_predict_data(self, X, dtype=FLOAT_DTYPES)
        return (X - self.mean_) @ self.components_.T

    def inverse_transform(self, X):
        """Mix sources back: x = μ + mixing_ s."""
        check_is_fitted(self)
        S = check_scores(X, self.mixing_.shape[1])
        return S @ self.mixing_.T + self.mean_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    @property
    def _n_features_out(self):
        return self.components_.shape[0]


def _whitening_matrix(Xc, k):
    """K (k × d) with Cov(Xc Kᵀ) = I: the top-k principal directions divided by their standard deviations.

    Returned in Xc's precision; the rank test's threshold follows it (float32 round-off leaves
    singular values of ≈ ε₃₂ times the columns' sizes where the exact ones are 0)."""
    n = Xc.shape[0]
    if k > n - 1:  # centring leaves at most n − 1 independent directions
        raise ValueError(f"ICA needs more samples than components to whiten: n_samples={n} gives at most "
                         f"{n - 1} components after centring, n_components={k}. Lower n_components.")
    # In float64 even for a float32 Xc: the SVD's signs are arbitrary and LAPACK's float32 and float64
    # routines choose them differently; from differently signed whitenings the same start W0 leads
    # stochastic ascent to a different unmixing, so float32 could not match the float64 fit.
    single = Xc.dtype == np.float32
    _, s, Vt = scipy.linalg.svd(Xc.astype(np.float64) if single else Xc, full_matrices=False, check_finite=False,
                                overwrite_a=single)
    cutoff = max(Xc.shape) * np.finfo(Xc.dtype).eps
    if not (s[0] > 0 and s[k - 1] > cutoff * s[0]) and not _rank_of_scaled_columns_at_least(Xc, k, cutoff):
        raise ValueError(f"X has rank < n_components={k} after centring; ICA cannot whiten it. "
                         f"Lower n_components.")
    K = Vt[:k] / s[:k, None] * np.sqrt(n)
    if not np.all(np.isfinite(K)):  # 1/σ overflows for subnormal features: no whitening in float64
        raise ValueError(f"X's spread is too small to whiten in float64 (smallest kept singular value "
                         f"{s[k - 1]:.3g}; its inverse overflows). Rescale X (e.g. StandardScaler).")
    return K.astype(Xc.dtype, copy=False)


def _rank_of_scaled_columns_at_least(Xc, k, cutoff):
    """Whether Xc's k-th singular value exceeds round-off, ``cutoff`` times the largest, once its
    columns are scaled to a largest entry of 1 (which leaves the rank as it is).

    Round-off is relative to each column's own size: unscaled, a column in small units looks like a
    missing direction (breast cancer's smallest singular value is 1e-6 of its largest, under
    float32's cutoff; X's own singular values are tested first, this only where they fail)."""
    scale = np.abs(Xc).max(axis=0).astype(np.float64)
    scale[scale == 0] = 1.0  # a constant column stays zero: a missing direction
    s = scipy.linalg.svdvals(Xc / scale, check_finite=False)
    return bool(s[0] > 0 and s[k - 1] > cutoff * s[0])


def _infomax(Z, W, natural, laplace, eta, batch_size, max_iter, tol, rng, log):
    """Stochastic ascent of ℓ(W) on the rows of Z, one epoch per iteration; (W, loss per epoch, converged).
    ``log`` (an ``IterationLog``) prints each epoch's loss."""
    W = np.ascontiguousarray(W)
    Z = np.ascontiguousarray(Z)
    batch_size = min(batch_size, Z.shape[0])
    losses = []
    for _ in range(max_iter):
        try:
            W = ica_epoch(Z, W, rng.permutation(Z.shape[0]), eta, batch_size, laplace, natural)
        except np.linalg.LinAlgError:  # the plain gradient's W⁻ᵀ of a W driven singular
            W = np.full_like(W, np.nan)
        if not np.all(np.isfinite(W)):
            raise ValueError("ICA diverged (W is no longer finite, or singular): lower learning_rate, or rescale X "
                             "if its values are extremely small or large.")
        losses.append(_negative_log_likelihood(Z, W, laplace))
        log.iteration(len(losses), loss=losses[-1])
        if len(losses) > 1 and abs(losses[-2] - losses[-1]) < tol:
            log.converged(len(losses), abs(losses[-2] - losses[-1]), tol)
            return W, losses, True
    log.stopped(len(losses), "max_iter reached")
    return W, losses, False


def _negative_log_likelihood(Z, W, laplace):
    """−ℓ(W)/m = −mean Σⱼ log p(wⱼᵀz) − log|det W|."""
    S = product_in_precision(Z, W.T, dtype=None)  # float32 Z: no float64 copy of it; sums in float64
    if laplace:
        per_sample = np.abs(S).sum(axis=1, dtype=np.float64) + S.shape[1] * np.log(2.0)
    else:  # −log σ′(s) = 2 log(2 cosh(s/2)) = 2 logaddexp(s/2, −s/2)
        per_sample = 2.0 * np.logaddexp(0.5 * S, -0.5 * S).sum(axis=1, dtype=np.float64)
    return float(per_sample.mean() - np.linalg.slogdet(W)[1])
