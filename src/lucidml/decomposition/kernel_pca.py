"""Kernel principal component analysis."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse.linalg
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..kernels.pairwise import KERNELS, _kernel_params, kernel_times, pairwise_kernels
from ..utils import VERBOSE, Interval, IterationLog, Options, validate_params
from ..utils.linalg import (
    cholesky_factor,
    factorization_threads,
    refine_cholesky_solve,
    shifted_copy,
)
from ..utils.validation import (
    FLOAT_DTYPES,
    N_BY_N_ADVICE,
    check_fit_data,
    check_magnitude,
    check_predict_data,
    check_scores,
    check_square_fits,
)
from ._kernel_pca_kernels import center_gram
from ._randomized import randomized_range_finder, resolve_power_iterations


class KernelPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """PCA in the feature space of a kernel, computed from the N × N Gram matrix alone.

    With K = φ(X)φ(X)ᵀ the eigenvectors of the feature-space covariance are vⱼ = φ(X)ᵀαⱼ where
    K̃αⱼ = μⱼαⱼ (seeds: 002 §7.4, (7.92)–(7.97), Summary 7.27; Schölkopf, Smola & Müller 1998):

    1. centre the features implicitly: K̃ = K − 1_N K − K 1_N + 1_N K 1_N (1_N = 11ᵀ/N);
    2. eigendecompose K̃ = Σ μⱼ αⱼαⱼᵀ with unit αⱼ, largest μ first;
    3. training scores zⱼ = √μⱼ αⱼ;
    4. a new point x with kernel row k = [k(x, xᵢ)]ᵢ is centred the same way,
       k̃ = k − 1ᵀK/N − mean(k) + 1ᵀK1/N², and projected: zⱼ = k̃ᵀαⱼ/√μⱼ.

    This corrects the notes: (7.104) needs 1_N K 1_N in its last term, (7.106)–(7.107) need √μⱼ and
    1/√μⱼ, and new kernel rows must be centred (the notes never do), which is what makes
    ``fit_transform(X)`` equal ``fit(X).transform(X)``. Eigenvalues below 1e-12·μ₁ (and round-off
    negatives) are set to 0, and a component with μⱼ = 0 projects to 0.

    Eigenvector signs are fixed: the largest-magnitude entry of each αⱼ is positive
    (scikit-learn's rule), so results agree with scikit-learn's exactly.

    Float32 X is fitted in float32, as scikit-learn does: K (half the memory), its eigenvectors and
    eigenvalues, the scores and the pre-image map are float32, while the centring sums and the small
    eigenproblem of ``"randomized"`` are float64 and the pre-image solve is refined with float64
    residuals. The cut for zero eigenvalues is then 1e-6·μ₁ (1e-12·μ₁ in float64): what a float32 K,
    centred in float32, resolves (raw breast cancer's linear kernel: its eigenvalues at 7e-6·μ₁
    and 4e-6·μ₁ to 1%, one at 4e-7·μ₁ 2.4 times too large in scikit-learn's float32 fit). A
    warning names the requested components set to zero under it.

    Parameters
    ----------
    n_components : int or None, default=None
        Components kept; None keeps all with μ > 0.
    kernel : str or callable, default="linear"
        Any name of :func:`lucidml.kernels.pairwise.pairwise_kernels` ("linear", "poly", "rbf",
        "sigmoid", "laplacian", ...), a callable, or "precomputed": then ``fit`` takes the N × N
        Gram matrix and ``transform`` the n × N kernel between new and training points.
    gamma : float or None, default=None
        Kernel width of rbf, poly, sigmoid, laplacian (None: 1/n_features).
    degree : int, default=3
        Degree of the poly kernel.
    coef0 : float, default=1
        Offset of the poly and sigmoid kernels.
    kernel_params : dict or None, default=None
        Further keyword arguments of the kernel (the only ones a callable receives).
    alpha : float, default=1.0
        Ridge penalty of the learned pre-image map (``fit_inverse_transform``).
    fit_inverse_transform : bool, default=False
        Learn a pre-image map by kernel ridge regression from the scores back to X
        (Bakır, Weston & Schölkopf 2004), used by ``inverse_transform``.
    eigen_solver : {"auto", "dense", "arpack", "randomized"}, default="auto"
        ``"dense"``: LAPACK ``eigh`` of K̃, only the top k pairs; ``"arpack"``: Lanczos (ARPACK
        ``eigsh``); ``"randomized"``: randomized range finder (Halko et al. 2011) and the eigenpairs
        of QᵀK̃Q. ``"auto"``: arpack when N > 200 and k < max(10, N/20), else dense.
    tol : float, default=0
        ARPACK's tolerance (0 = machine precision).
    max_iter : int or None, default=None
        ARPACK's iteration limit (None: ARPACK's default).
    iterated_power : int or "auto", default="auto"
        Power iterations of ``"randomized"`` ("auto": 7 if k < 0.1·N, else 4).
    remove_zero_eig : bool, default=False
        Drop components with μ = 0 (always done when n_components is None).
    random_state : int, RandomState instance or None, default=None
        Start vector of ``"arpack"``, test matrix of ``"randomized"``.
    copy_X : bool, default=True
        Store a copy of X (rather than a reference) for ``transform``.
    verbose : int, default=0
        1 or more prints, on standard output, ``Iteration t`` after each power iteration of
        ``"randomized"`` (each a product with the n × n Gram matrix) and one closing line ``Solver s,
        n_components = k, largest_eigenvalue = …`` (``eigenvalues_[0]``); 0 prints nothing.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components_,)
        μⱼ, eigenvalues of the centred Gram matrix K̃, decreasing.
    eigenvectors_ : ndarray of shape (n_samples, n_components_)
        The unit eigenvectors αⱼ as columns.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training data (the Gram matrix itself for ``kernel="precomputed"``).
    gamma_ : float or None
        The kernel width used (gamma, or 1/n_features when gamma is None).
    dual_coef_ : ndarray of shape (n_samples, n_features)
        Pre-image map coefficients (only with ``fit_inverse_transform``).
    X_transformed_fit_ : ndarray of shape (n_samples, n_components_)
        Training scores (only with ``fit_inverse_transform``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.decomposition.kernel_pca import KernelPCA
    >>> rng = np.random.RandomState(0)
    >>> angle = rng.uniform(0, 2 * np.pi, 100)
    >>> radius = np.repeat([1.0, 3.0], 50)
    >>> X = np.c_[radius * np.cos(angle), radius * np.sin(angle)]
    >>> kpca = KernelPCA(n_components=2, kernel="rbf", gamma=0.5).fit(X)
    >>> Z = kpca.transform(X)
    >>> np.allclose(Z, kpca.fit_transform(X))
    True
    >>> bool(abs(Z[:50, 0].mean() - Z[50:, 0].mean()) > 0.3)  # the circles separate on component 1
    True
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "kernel": [Options(set(KERNELS) | {"precomputed"}), "callable"],
        "gamma": [Interval(Real, 0, None, closed="left"), None],
        "degree": [Interval(Real, 0, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "kernel_params": [dict, None],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "fit_inverse_transform": ["boolean"],
        "eigen_solver": [Options({"auto", "dense", "arpack", "randomized"})],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "iterated_power": [Interval(Integral, 0, None, closed="left"), Options({"auto"})],
        "remove_zero_eig": ["boolean"],
        "random_state": ["random_state"],
        "copy_X": ["boolean"],
        "verbose": VERBOSE,
    }

    def __init__(self, n_components=None, *, kernel="linear", gamma=None, degree=3, coef0=1, kernel_params=None,
                 alpha=1.0, fit_inverse_transform=False, eigen_solver="auto", tol=0, max_iter=None,
                 iterated_power="auto", remove_zero_eig=False, random_state=None, copy_X=True, verbose=0):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.alpha = alpha
        self.fit_inverse_transform = fit_inverse_transform
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.iterated_power = iterated_power
        self.remove_zero_eig = remove_zero_eig
        self.random_state = random_state
        self.copy_X = copy_X
        self.verbose = verbose

    def fit(self, X, y=None):
        """Eigendecompose the centred Gram matrix of X (n_samples, n_features)."""
        validate_params(self)
        if self.fit_inverse_transform and self.kernel == "precomputed":
            raise ValueError("fit_inverse_transform needs the data X; it is not available with kernel='precomputed'.")
        X = check_fit_data(self, X, copy=self.copy_X, float32=True)
        check_magnitude(X, self)  # near 1e300 the kernels come out NaN (and the eigenpairs with them)
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(f"kernel='precomputed' needs a square Gram matrix; got shape {X.shape}.")
        check_square_fits(self, X.shape[0], copies=1, what="the centred kernel matrix",
                          itemsize=X.dtype.itemsize, advice=N_BY_N_ADVICE)
        self.gamma_ = 1.0 / X.shape[1] if self.gamma is None else float(self.gamma)
        K = np.ascontiguousarray(self._kernel(X))
        self._row_means, self._grand_mean = _center_gram(K)
        values, vectors = self._eigen(K)
        self.eigenvalues_, self.eigenvectors_ = values, vectors
        self.X_fit_ = X
        if self.fit_inverse_transform:
            self._fit_preimage(X)
        return self

    def _kernel(self, X, Y=None):
        """k(X, Y) with this estimator's kernel parameters (Y = the training data by default)."""
        if self.kernel == "precomputed":
            return np.array(X)  # a copy in X's precision: centring writes into it
        params = _kernel_params(self.kernel, self.gamma_, self.degree, self.coef0, self.kernel_params)
        return pairwise_kernels(X, Y, kernel=self.kernel, **params)

    def _eigen(self, K):
        """Top eigenpairs (μ, α) of the centred K, cleaned, sorted and sign-fixed."""
        n = K.shape[0]
        k = n if self.n_components is None else min(self.n_components, n)
        solver = self.eigen_solver
        if solver == "auto":  # Lanczos needs far fewer flops than a full tridiagonalization for k ≪ N
            solver = "arpack" if n > 200 and (k < 10 or k < n / 20) else "dense"
        if solver == "arpack" and k >= n:
            solver = "dense"  # ARPACK needs k < N
        rng = check_random_state(self.random_state)
        log = IterationLog(self.verbose)
        values, vectors = _top_eigenpairs(K, k, solver, self.tol, self.max_iter, self.iterated_power, rng, log)

        # Round-off eigenvalues are zeroed. A float32 K (centred in float32) resolves about 1e-6 of μ₁:
        # raw breast cancer's linear kernel gives, in float32, its 6th and 7th eigenvalues (7e-6·μ₁,
        # 4e-6·μ₁) to 0.1% and its 9th (4e-7·μ₁) 2.4 times too large.
        tiny = 1e-12 if K.dtype == np.float64 else 1e-6
        below = values < tiny * max(values.max(initial=0.0), 0.0)
        if K.dtype == np.float32 and self.n_components is not None and np.any(below & (values > 0)):
            warnings.warn(f"KernelPCA: {int(np.count_nonzero(below))} of the {len(values)} eigenvalues asked for are "
                          f"under float32's resolution (1e-6 of the largest) and were set to 0, with their "
                          "components; fit on float64 data to resolve them.", UserWarning, stacklevel=3)
        values = np.where(below, 0.0, values)
        order = np.argsort(values, kind="stable")[::-1]
        values, vectors = values[order], vectors[:, order]
        peaks = vectors[np.argmax(np.abs(vectors), axis=0), np.arange(vectors.shape[1])]
        vectors = vectors * np.where(peaks < 0, -1.0, 1.0).astype(vectors.dtype)
        if self.remove_zero_eig or self.n_components is None:
            vectors, values = vectors[:, values > 0], values[values > 0]
        log.summary(f"Solver {solver}", n_components=len(values),
                    largest_eigenvalue=float(values[0]) if len(values) else 0.0)
        return values, vectors

    def _fit_preimage(self, X):
        """Kernel ridge regression Z → X on the training scores (Bakır et al. 2004)."""
        Z = self.eigenvectors_ * np.sqrt(self.eigenvalues_)
        K_z = self._kernel(Z)
        if K_z.dtype == np.float32:
            self.dual_coef_ = _solve_float32(K_z, self.alpha, X)
        else:
            K_z.flat[:: K_z.shape[0] + 1] += self.alpha
            try:
                self.dual_coef_ = scipy.linalg.solve(K_z, X, assume_a="pos")
            except np.linalg.LinAlgError:  # α too small against a huge kernel: minimum-norm least squares
                self.dual_coef_ = scipy.linalg.lstsq(K_z, X, check_finite=False)[0]
        self.X_transformed_fit_ = Z

    def transform(self, X):
        """Project new points: zⱼ = k̃(x)ᵀαⱼ/√μⱼ with the centred kernel row k̃(x)."""
        check_is_fitted(self)
        X = check_predict_data(self, X, dtype=FLOAT_DTYPES)
        n_train = self.eigenvectors_.shape[0]
        if self.kernel == "precomputed" and X.shape[1] != n_train:
            raise ValueError(f"The kernel of new points must have {n_train} columns (one per training sample); "
                             f"got {X.shape[1]}.")
        return kernel_times(self._centred_kernel_rows, X, n_train, self._scaled_alphas())

    def _centred_kernel_rows(self, rows):
        """k̃(x) for each of the rows: their kernel values against the training rows, centred as the
        training kernel was."""
        K = rows.copy() if self.kernel == "precomputed" else self._kernel(rows, self.X_fit_)
        K -= K.mean(axis=1, keepdims=True, dtype=np.float64)  # float64 sums: no float32 accumulation
        K -= self._row_means
        K += self._grand_mean
        return K

    def _scaled_alphas(self):
        """αⱼ/√μⱼ, and 0 for μⱼ = 0."""
        scale = np.zeros_like(self.eigenvalues_)
        positive = self.eigenvalues_ > 0
        scale[positive] = 1.0 / np.sqrt(self.eigenvalues_[positive])
        return self.eigenvectors_ * scale

    def fit_transform(self, X, y=None):
        """Fit and return the training scores √μⱼ αⱼ."""
        self.fit(X)
        return self.eigenvectors_ * np.sqrt(self.eigenvalues_)

    @available_if(lambda self: self.fit_inverse_transform)
    def inverse_transform(self, X):
        """Approximate pre-images of scores X: k(X, Z_fit) · dual_coef_ (only with ``fit_inverse_transform``)."""
        check_is_fitted(self)
        Z = check_scores(X, self.X_transformed_fit_.shape[1])
        return self._kernel(Z, self.X_transformed_fit_) @ self.dual_coef_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    @property
    def _n_features_out(self):
        return self.eigenvalues_.shape[0]


def _center_gram(K):
    """Centre K in place: K̃ = K − 1_N K − K 1_N + 1_N K 1_N; return (column means, grand mean)."""
    means, grand = center_gram(K)
    return means, float(grand)


def _solve_float32(K, alpha, X):
    """(K + αI)⁻¹X for a float32 K: float32 Cholesky, refined with float64 residuals (a float32 result)."""
    try:
        factor = cholesky_factor(shifted_copy(K, alpha), overwrite_a=True)
    except np.linalg.LinAlgError:  # α too small against a huge kernel: minimum-norm least squares
        return scipy.linalg.lstsq(shifted_copy(K, alpha), X, check_finite=False, overwrite_a=True)[0]
    coef = scipy.linalg.cho_solve(factor, X, check_finite=False)
    return refine_cholesky_solve(K, factor, X, coef, shift=alpha).astype(np.float32)


def _top_eigenpairs(K, k, solver, tol, max_iter, iterated_power, rng, log=None):
    """The k algebraically largest eigenpairs of the symmetric K (unsorted); ``log`` prints the
    randomized power iterations."""
    n = K.shape[0]
    if solver == "dense":
        with factorization_threads(n):
            return scipy.linalg.eigh(K, subset_by_index=[n - k, n - 1], check_finite=False)
    if solver == "arpack":  # a float32 K runs ARPACK in single precision (tol=0: float32's ε)
        if not K.any():  # e.g. an RBF kernel of features near 1e-300, centred: ARPACK's start vector "is zero"
            return np.zeros(k, dtype=K.dtype), np.eye(n, k, dtype=K.dtype)
        v0 = rng.uniform(-1.0, 1.0, size=n).astype(K.dtype)
        return scipy.sparse.linalg.eigsh(K, k, which="LA", tol=tol, maxiter=max_iter, v0=v0)
    n_iter = resolve_power_iterations(iterated_power, k, K.shape)
    Q = randomized_range_finder(K, min(k + 10, n), n_iter, "LU" if n_iter > 2 else "none", rng, log)
    # K ≈ Q (QᵀKQ) Qᵀ; the small eigenproblem in float64 whatever K's precision.
    values, small = np.linalg.eigh((Q.T @ K @ Q).astype(np.float64, copy=False))
    top = np.argsort(values)[::-1][:k]
    return values[top].astype(K.dtype, copy=False), Q @ small[:, top].astype(Q.dtype, copy=False)
