"""Ordinary and weighted least squares."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..optim.gradient_descent import gradient_descent
from ..optim.sgd import sgd
from ..utils import VERBOSE, Interval, IterationLog, Options, check_sample_weight, validate_params
from ..utils.linalg import (
    TRUSTED_CONDITION,
    blas_gram,
    blas_product,
    blas_threads,
    cholesky_or_none,
    factorization_threads,
    in_precision,
    scaled_eigen_split,
)
from ..utils.validation import FLOAT_DTYPES, check_finite_fit, check_fit_data, check_predict_data
from ._preprocess import center_and_weight, intercept_from_means
from ._sparse_least_squares import solve_ridge_implicit


class LinearRegression(RegressorMixin, BaseEstimator):
    """Least-squares linear regression, optionally weighted.

    Minimizes the squared error, which is the Gaussian maximum-likelihood fit:

        J(w, b) = ½ Σᵢ sᵢ (yᵢ − w·xᵢ − b)²        (sᵢ = sample weight, 1 by default)

    The intercept b is not penalized and replaces the notes' x₀ = 1 column: X and y are
    centred with their (weighted) means, w solves the centred problem and
    b = ȳ − x̄·w. The normal equations XᵀSX w = XᵀS y are the stationarity condition
    (seeds: 000 §1.1–1.3, 003 §2.3, 004 §2 for the weighted form).

    Parameters
    ----------
    fit_intercept : bool, default=True
        Whether to fit the intercept b. If False the data are assumed centred.
    solver : {"lstsq", "normal", "gd", "sgd"}, default="lstsq"
        ``"lstsq"`` solves min ‖√S (Xw − y)‖ to the accuracy of a QR solve and returns the
        minimum-norm solution when X is rank deficient: for tall, well-conditioned X
        (κ ≤ 1e4) by Cholesky of XᵀSX refined once with the residual (as accurate as QR there,
        and faster); for tall X that lacks rank but is well-conditioned on its range (one-hot
        columns beside an intercept) by the eigenvectors of its column-scaled XᵀSX, refined the
        same way; otherwise by LAPACK's rank-revealing QR ``gelsy``. ``"normal"`` is the
        textbook route of the notes: Cholesky of XᵀSX, no refinement; its error grows with
        κ(X)², and it raises when XᵀSX is singular.
        ``"gd"`` and ``"sgd"`` are the notes' iterative routes (000 §2.4, 003 §2.1, 004 §2), on the
        mean loss f(w) = 1/(2n) ‖√S(Xw − y)‖² of the centred data (the notes' summed gradient with
        rate α is this mean gradient with rate α·n): batch gradient descent w ← w − γ Xᵀ(Xw − y)/n
        with γ = 1/L, L = λ_max(XᵀX)/n the gradient's Lipschitz constant (or ``eta0``); and
        mini-batch SGD, reshuffled every epoch: a first epoch with step η₀/(1 + k/u) after k
        updates, u per epoch, η₀ = ``eta0`` or 1/max‖xᵢ‖² (a step no single sample can overshoot),
        then variance-reduced epochs (SVRG, see :func:`lucidml.optim.sgd`), which converge to the
        least-squares solution itself rather than to a neighbourhood of it. They are for
        teaching and comparison: the direct solvers are faster and exact.

        A sparse X (CSR or CSC) is never densified or centred in memory: ``"lstsq"`` forms the
        centred normal equations from the sparse product when there are at most 2048 features
        (falling back to LSQR when they are singular), and runs LSQR (Paige & Saunders) on the
        implicitly centred X otherwise, which converges to the minimum-norm solution;
        ``"normal"`` insists on the normal equations; ``"gd"``/``"sgd"`` need a dense X.
        A float32 X gives float32 ``coef_`` and predictions. ``"lstsq"`` and ``"normal"`` solve
        on a float64 copy of a dense float32 X (scikit-learn solves in float32, where the rank test
        cannot tell a feature in small units from a missing one); ``"gd"``/``"sgd"`` multiply in
        float32, and a sparse X's normal equations are summed in float64.
    copy_X : bool, default=True
        If False, X may be overwritten by the centring.
    max_iter : int, default=1000
        Iterations (``"gd"``) or epochs (``"sgd"``) at most.
    tol : float, default=1e-6
        ``"gd"``/``"sgd"`` stop when ‖∇f‖∞ ≤ tol (for ``"sgd"`` at the end of an epoch; a
        ``ConvergenceWarning`` says when ``max_iter`` came first); LSQR's relative tolerance on a
        sparse X. Both iterative solvers descend on the standardised problem — every column of the
        centred, weighted X and the centred, weighted y divided by its root mean square — and map the
        result back (w = ŵ · rms(y) / rms(xⱼ)), so f, ∇f and this test are unit-free: the fit does not
        change when X, y or the sample weights are multiplied by a constant (features near 1e-300 or
        1e150 give the exact solver's answer).
    eta0 : float or None, default=None
        Step size of ``"gd"`` or initial step of ``"sgd"`` on that standardised problem; None chooses
        the safe step above.
    batch_size : int, default=32
        Mini-batch size of ``"sgd"``.
    random_state : int, RandomState instance or None, default=None
        Shuffling of ``"sgd"``.
    verbose : int, default=0
        ``"gd"`` and ``"sgd"``: 1 or more prints ``Iteration t, loss = …`` after every step or
        epoch (f, as in ``loss_curve_``) and how the run stopped, on standard output, after a
        ``Problem target k`` line per target when y has several columns. The direct solvers take
        one step and print nothing. 0 prints nothing.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        The weights w.
    intercept_ : float or ndarray of shape (n_targets,)
        The intercept b (0.0 when ``fit_intercept=False``).
    rank_ : int or None
        Numerical rank of the (centred) design matrix (for ``"gd"``/``"sgd"``: the number of features);
        None when LSQR solved a sparse problem (it does not reveal the rank).
    n_iter_ : int
        Iterations of ``"gd"``/``"sgd"`` or LSQR; 1 for the direct solvers (one solve).
    loss_curve_ : ndarray
        f after each iteration or epoch of ``"gd"``/``"sgd"`` (only set by those solvers).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear import LinearRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = 1.0 + 2.0 * X[:, 0]
    >>> reg = LinearRegression().fit(X, y)
    >>> print(np.round(reg.coef_, 6), round(float(reg.intercept_), 6))
    [2.] 1.0
    >>> reg.predict([[4.0]]).round(6)
    array([9.])
    """

    _parameter_constraints = {
        "fit_intercept": ["boolean"],
        "solver": [Options({"lstsq", "normal", "gd", "sgd"})],
        "copy_X": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "eta0": [Interval(Real, 0, None, closed="neither"), None],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, *, fit_intercept=True, solver="lstsq", copy_X=True, max_iter=1000, tol=1e-6, eta0=None,
                 batch_size=32, random_state=None, verbose=0):
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.eta0 = eta0
        self.batch_size = batch_size
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Fit the model to X (n_samples, n_features) and y (n_samples,) or (n_samples, n_targets)."""
        validate_params(self)
        dense = not scipy.sparse.issparse(X)
        # The direct solvers take a float32 X as a float64 copy (made below), not a float32 one.
        direct_float32 = self.solver in ("lstsq", "normal") and getattr(X, "dtype", None) == np.float32
        X, y = check_fit_data(self, X, y, accept_sparse=("csr", "csc"), float32=True, y_numeric=True,
                              multi_output=True, copy=self.copy_X and dense and not direct_float32)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        y = np.array(y, dtype=np.float64)  # always a copy: centring writes into it
        if not dense:
            return self._fit_sparse(X, y, sample_weight)
        dtype = X.dtype  # coef_ and intercept_ are in the data's precision
        if self.solver in ("lstsq", "normal") and dtype != np.float64:
            # Solved in float64: single-precision LAPACK counted breast cancer's raw features (scales
            # from 1e-3 to 1e3) as rank 13 of 30 and changed the predictions by a third.
            X = X.astype(np.float64)
        if self.solver in ("gd", "sgd"):
            x_mean, y_mean = center_and_weight(X, y, sample_weight, self.fit_intercept)
            Y = y.reshape(len(y), -1)
            # The descent runs on the standardised problem (unit-RMS columns and targets), so its step, its
            # stopping test and its result do not depend on the units of X, y or the sample weights.
            x_scale = unit_rms_columns(X)
            y_scale = unit_rms_columns(Y)
            log = IterationLog(self.verbose)
            results = []
            for k in range(Y.shape[1]):
                if Y.shape[1] > 1:
                    log.summary(f"Problem target {k}")
                with np.errstate(over="ignore", invalid="ignore"):  # (a divergence is named below)
                    results.append(_least_squares_iterative(X, Y[:, k], self.solver, self.max_iter, self.tol,
                                                            self.eta0, self.batch_size, self.random_state, log,
                                                            loss_unit=y_scale[k] ** 2))
            diverged = [r for r in results if not r.success and not np.isfinite(r.fun)]
            if diverged:  # the loss overflowed: a step beyond 2/L (the iterates' last values mean nothing)
                raise ValueError(f"LinearRegression(solver={self.solver!r}) diverged: the loss left float64's range "
                                 f"after {diverged[0].n_iter} iterations ({diverged[0].message}); lower eta0="
                                 f"{self.eta0}.")
            coef = np.array([r.x for r in results]) * y_scale[:, None] / x_scale
            coef = coef[0] if y.ndim == 1 else coef
            intercept = intercept_from_means(x_mean, y_mean, coef, self.fit_intercept)
            # Features of magnitude 1e-300 need coefficients near 1e300; beyond float64's range they overflow.
            check_finite_fit(self, coefficients=coef, intercept=intercept)
            self.coef_ = in_precision(coef, X.dtype)
            self.intercept_ = in_precision(intercept, X.dtype)
            self.rank_ = X.shape[1]
            self.n_iter_ = max(r.n_iter for r in results)
            self.loss_curve_ = np.array([h["f"] for h in results[0].history]) * y_scale[0] ** 2
            if not all(r.success for r in results):
                warnings.warn(f"LinearRegression(solver={self.solver!r}) stopped at max_iter={self.max_iter} before "
                              f"‖∇f‖∞ ≤ tol={self.tol}.", ConvergenceWarning, stacklevel=2)
            return self
        coef, intercept, rank = _least_squares(X, y, sample_weight, self.fit_intercept, self.solver)
        check_finite_fit(self, coefficients=coef, intercept=intercept)
        self.coef_, self.intercept_, self.rank_ = in_precision(coef, dtype), in_precision(intercept, dtype), rank
        self.n_iter_ = 1
        return self

    def _fit_sparse(self, X, y, sample_weight):
        """Least squares on a sparse X by the implicitly centred normal equations or LSQR."""
        if self.solver in ("gd", "sgd"):
            raise ValueError(f"LinearRegression(solver={self.solver!r}) needs a dense X; use solver='lstsq' for a "
                             "sparse one.")
        Y = y.reshape(len(y), -1)
        coef, x_mean, y_mean, factor, self.n_iter_ = solve_ridge_implicit(
            X, Y, sample_weight, np.zeros(Y.shape[1]), self.fit_intercept,
            method="gram" if self.solver == "normal" else "auto", tol=self.tol, name="LinearRegression")
        coef = coef.T[0] if y.ndim == 1 else coef.T
        intercept = intercept_from_means(x_mean, y_mean[0] if y.ndim == 1 else y_mean, coef, self.fit_intercept)
        check_finite_fit(self, coefficients=coef, intercept=intercept)
        self.coef_, self.intercept_ = in_precision(coef, X.dtype), in_precision(intercept, X.dtype)
        self.rank_ = X.shape[1] if factor is not None else None
        return self

    def predict(self, X):
        """Return X·w + b."""
        check_is_fitted(self)
        X = check_predict_data(self, X, accept_sparse=("csr", "csc"), dtype=FLOAT_DTYPES)
        return X @ self.coef_.T + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = True
        return tags


def _least_squares(X, y, sample_weight, fit_intercept, solver):
    """Solve min_w,b ½ Σ sᵢ (yᵢ − w·xᵢ − b)² in place on X and y; return (w, b, rank)."""
    x_mean, y_mean = center_and_weight(X, y, sample_weight, fit_intercept)

    if solver == "lstsq":
        # The centred (and √s-weighted) columns are orthogonal to u = √s/‖√s‖, the intercept's direction.
        direction = None
        if fit_intercept:
            direction = np.ones(X.shape[0]) if sample_weight is None else np.sqrt(sample_weight)
            direction /= np.linalg.norm(direction)
        coef, rank = _solve_lstsq(X, y, direction)
    else:
        coef, rank = _solve_normal_equations(X, y), X.shape[1]

    coef = coef.T  # (n_targets, n_features), or (n_features,) for a single target
    intercept = intercept_from_means(x_mean, y_mean, coef, fit_intercept)
    return coef, intercept, int(rank)


def _solve_lstsq(X, y, direction=None):
    """Minimum-norm least squares, rank-safe; return (w, rank).

    For tall X (n ≥ 2d, the common case) from the Gram matrix XᵀX, one BLAS-3 product several
    times cheaper than a QR of X:

    - well-conditioned X: Cholesky XᵀX = RᵀR, w = R⁻¹R⁻ᵀXᵀy, then one step of iterative
      refinement with the residual r = y − Xw (the corrected semi-normal equations, Björck 1987);
    - rank-deficient X whose range is well-conditioned (one-hot columns that sum to a constant):
      the eigenvectors of XᵀX (``_eigen_route``).

    Otherwise (κ > 1e4 on the range, an unclear rank, or n < 2d) LAPACK's rank-revealing QR
    ``gelsy`` on the columns scaled to unit RMS, with singular values below max(n, d)·ε·σ_max
    counted as zero (NumPy's rule; LAPACK's default ε·σ_max over-counts the rank): unscaled, that
    cutoff took a feature in small units for a missing direction (raw breast cancer's 'mean area'
    regressed on the other features: rank 28 of 29 with one column in units 1e8 times larger, 21
    with one 1e8 times smaller). Where X is rank-deficient, the solution is then projected onto X's
    row space (from the economy SVD of the scaled X): the minimum-norm solution in X's own units,
    as from an unscaled QR. The products go through
    ``utils.linalg.blas_gram``/``blas_product`` and the factorizations through
    ``factorization_threads``, which choose their BLAS pool and threads (see the note on the two
    pools there): for d > SMALL_MATRIX on threaded BLAS, the products in the pool of SciPy's
    LAPACK (NumPy's spinning threads beside it made this solve twice as slow on two cores), but
    the Gram matrix of a tall X on lucidml's own threads; else NumPy's products and LAPACK on one
    thread.

    ``direction``: a unit vector u that X's and y's columns are orthogonal to in exact arithmetic
    (the intercept's, for centred data). Before a rank is decided, their rounding component along u
    is removed (X ← X − u uᵀX): a mean's rounding, ε·|x̄|, is large in units of a column of small
    spread (3 + 0.01·noise) and left the centred rows off zero sum, an extra direction that an
    8 × 20 X of rank 7 was solved with (rank 8, coefficient norm 10.9 for the minimum-norm 1.50).
    """
    n, d = X.shape
    # The refinement argument below holds in float64; another precision goes to LAPACK as it is.
    if n >= 2 * d and X.dtype == np.float64:
        gram = blas_gram(X)
        try:
            with factorization_threads(d):
                upper = scipy.linalg.cholesky(gram, lower=False, check_finite=False)
                reciprocal_condition, _ = scipy.linalg.lapack.dtrcon(upper, norm="1", uplo="U")
        except scipy.linalg.LinAlgError:
            reciprocal_condition = 0.0
        # κ(R) estimates κ(X) because XᵀX = RᵀR.
        if reciprocal_condition * TRUSTED_CONDITION >= 1.0:
            factor = (upper, False)
            coef = scipy.linalg.cho_solve(factor, blas_product(X, y, transpose_a=True), check_finite=False)
            coef += scipy.linalg.cho_solve(factor, blas_product(X, y - blas_product(X, coef), transpose_a=True),
                                           check_finite=False)
            return coef, d
        if direction is not None:  # (the well-conditioned case above needs no rank, nor this pass)
            _remove_direction(X, y, direction)
            direction, gram = None, blas_gram(X)
        solved = _eigen_route(X, y, gram)
        if solved is not None:
            return solved
    if direction is not None:
        _remove_direction(X, y, direction)
    cutoff = max(n, d) * np.finfo(X.dtype).eps
    scale = unit_rms_columns(X)  # in place: X is the caller's centred copy
    coef, _, rank, _ = scipy.linalg.lstsq(X, y.astype(X.dtype, copy=False), cond=cutoff, lapack_driver="gelsy",
                                          overwrite_a=False, overwrite_b=True, check_finite=False)
    coef = (coef.T / scale).T  # w = S⁻¹v for X = (XS⁻¹)S, one target or several
    if rank < d and np.all(np.isfinite(coef)):
        # The minimum-norm solution is the projection of any solution onto X's row space,
        # range(Xᵀ) = S·range(Vᵣ) for XS⁻¹ = UΣVᵀ: d × rank, from the economy SVD. (A coefficient
        # beyond float64, for subnormal features, is left for the caller's check to name.)
        _, _, Vt = scipy.linalg.svd(X, full_matrices=False, overwrite_a=True, check_finite=False)
        row_space = scipy.linalg.qr(Vt[:rank].T * scale[:, None], mode="economic", check_finite=False)[0]
        coef = row_space @ (row_space.T @ coef)
    return coef, rank


def _remove_direction(X, y, u):
    """X ← X − u(uᵀX) and y ← y − u(uᵀy), in place: the columns' components along the unit vector u."""
    X -= np.outer(u, u @ X).astype(X.dtype, copy=False)
    y -= np.outer(u, u @ y).reshape(y.shape)


def _eigen_route(X, y, gram):
    """(w, rank) of min ‖Xw − y‖ with the least ‖w‖ from XᵀX, or None where that is unsafe.

    From the eigenvectors of XᵀX with its columns scaled to unit length
    (``utils.linalg.scaled_eigen_split``): the least-norm solution on X's range, plus one
    refinement step with the residual (as the Cholesky route). Safe when the spectrum splits
    cleanly (κ ≤ 1e4 on X's range, the rest at the rounding level) and no column's length is near
    an underflow or below the QR's rank cutoff beside the longest. Otherwise None, and the QR
    decides.
    """
    n, d = X.shape
    eps, tiny = np.finfo(np.float64).eps, np.finfo(np.float64).tiny
    lengths = np.sqrt(np.maximum(np.diag(gram), 0.0))
    nonzero = lengths > 0.0
    if not (np.all(np.isfinite(lengths)) and np.any(nonzero)) or np.any(X[:, ~nonzero]):
        return None  # an overflow, or columns whose squares underflowed to zero
    lengths = lengths[nonzero]
    if lengths.min() ** 2 < tiny / eps or lengths.min() < max(n, d) * eps * lengths.max():
        return None
    split = scaled_eigen_split(gram, n)
    if split is None:
        return None
    targets = y.reshape(n, -1)  # one target as a column: the same products either way
    coef = split.least_norm(blas_product(X, targets, transpose_a=True))
    coef += split.least_norm(blas_product(X, targets - blas_product(X, coef), transpose_a=True))
    return coef.reshape((d,) + y.shape[1:]), split.rank


def unit_rms_columns(X):
    """Divide every column of X (n, d) by its root mean square, in place; return the d scales.

    Overflow- and underflow-safe: each column is first divided by its largest |entry|, so columns of
    magnitude 1e-300 or 1e300 come out of unit RMS too. An all-zero column keeps the scale 1.
    """
    scale = np.max(np.abs(X), axis=0) if X.shape[0] else np.ones(X.shape[1])
    scale[scale == 0] = 1.0
    X /= scale
    rms = np.sqrt(np.mean(X * X, axis=0))
    rms[rms == 0] = 1.0
    X /= rms
    return scale * rms


def _least_squares_iterative(X, y, solver, max_iter, tol, eta0, batch_size, random_state, log=None, loss_unit=1.0):
    """Minimize f(w) = 1/(2n)‖Xw − y‖² on centred data by gradient descent or SGD; the OptimizeResult.
    ``log`` (an ``IterationLog``) prints ``loss_unit``·f after every step (GD) or epoch (SGD) and how the
    run ended (``loss_unit`` converts f of a rescaled y back to the caller's units)."""
    n = X.shape[0]
    log = IterationLog(0) if log is None else log
    steps = []

    def loss(w):
        r = X @ w - y
        return 0.5 * float(r @ r) / n

    def step_taken(w):  # f again, only when it is printed: the optimizer records the same value
        steps.append(None)
        log.iteration(len(steps), loss=loss_unit * loss(w))

    callback = step_taken if log else None
    result = _minimize(X, y, solver, max_iter, tol, eta0, batch_size, random_state, loss, callback)
    if result.success:
        log.converged(result.n_iter, reason=result.message)
    else:
        log.stopped(result.n_iter, result.message)
    return result


def _minimize(X, y, solver, max_iter, tol, eta0, batch_size, random_state, loss, callback):
    """Run ``lucidml.optim``'s fixed-step gradient descent (step 1/L) or SGD (c1/(k + c2) steps) on ``loss``."""
    n = X.shape[0]

    def grad_batch(w, idx):
        rows = X[idx]
        return rows.T @ (rows @ w - y[idx]) / len(idx)

    w0 = np.zeros(X.shape[1])
    if solver == "gd":
        with blas_threads(1):
            lipschitz = float(scipy.linalg.eigvalsh(X.T @ X / n, subset_by_index=[X.shape[1] - 1] * 2)[0])
        step = eta0 if eta0 is not None else 1.0 / max(lipschitz, np.finfo(float).tiny)
        return gradient_descent(loss, w0, lambda w: X.T @ (X @ w - y) / n, step="fixed", lr=step, max_iter=max_iter,
                                tol=tol, ftol=0.0, callback=callback)
    batch_size = min(batch_size, n)
    per_epoch = -(-n // batch_size)
    eta0 = eta0 if eta0 is not None else 1.0 / max(float(np.max(np.einsum("ij,ij->i", X, X))), np.finfo(float).tiny)
    return sgd(loss, w0, grad_batch, n_samples=n, batch_size=batch_size, schedule="c1_c2", c1=eta0 * per_epoch,
               c2=per_epoch, max_iter=max_iter, tol=tol, ftol=0.0, random_state=random_state,
               variance_reduced_from=2, callback=callback)


def _solve_normal_equations(X, y):
    """w = (XᵀX)⁻¹ Xᵀy by Cholesky; XᵀX must be positive definite."""
    lower = cholesky_or_none(blas_gram(X))  # (which BLAS pool: see _solve_lstsq)
    if lower is None:
        raise ValueError(
            "XᵀX is singular (collinear or constant features, or fewer samples than "
            "features), so the normal equations have no unique solution; use solver='lstsq'."
        )
    return scipy.linalg.cho_solve((lower, True), blas_product(X, y, transpose_a=True), check_finite=False)
