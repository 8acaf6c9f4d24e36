"""Locally weighted linear regression (loess with a Gaussian kernel)."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..utils import Interval, Options, check_sample_weight, validate_params
from ..utils.validation import check_fit_data, check_magnitude, check_predict_data, check_square_fits

# Entries of the (queries × training samples) weight matrix, and of the queries' d × d scatter
# matrices, handled at once: bounds memory at a few such blocks of 8 bytes each (16 MiB), while
# every block is still one large matrix product.
_BLOCK_ENTRIES = 2**21
# Above this many entries (n·d²) the per-sample outer products xᵢxᵢᵀ are not materialized and
# the weighted scatter matrices are built one query at a time instead.
_MAX_OUTER_ENTRIES = 2**22


class LocallyWeightedRegression(RegressorMixin, BaseEstimator):
    """Locally weighted linear regression: a new weighted least-squares fit for every query.

    A lazy learner: ``fit`` only stores the data. To predict at a query x̂, every training
    sample gets the weight

        wᵢ = sᵢ exp(−‖xᵢ − x̂‖² / (2τ²))        (sᵢ = sample weight, 1 by default)

    and (b, β) minimize Σᵢ wᵢ (yᵢ − b − β·(xᵢ − x̂))² + ε‖β‖², so the prediction is the local
    intercept b = θᵀ(1, x̂) of a line fitted mostly to the neighbours of x̂ (seeds: 000 §7.1,
    §7.9.1; 003 §2.5). The intercept is not penalized; the small ridge ε (``reg``) keeps the
    local problem solvable where the neighbours do not span every direction.

    Far from the data every exp(·) underflows to 0 and 0/0 follows. Scaling all weights of one
    query by the same constant does not change its weighted least-squares minimizer, so the
    kernel values are divided by their largest value (the exponent is shifted by its maximum):
    the nearest sample always has kernel value 1 (weight sᵢ), and ε acts relative to it.

    ``solver``:

    - ``"wls"``: solve the normal equations directly. With x̄ = Σwᵢxᵢ/Σwᵢ and ȳ = Σwᵢyᵢ/Σwᵢ,
      (Σwᵢ(xᵢ − x̄)(xᵢ − x̄)ᵀ + εI) β = Σwᵢ(xᵢ − x̄)(yᵢ − ȳ) and the prediction is
      ȳ + β·(x̂ − x̄). The weighted moments of a block of queries come from one matrix product
      and all the d × d systems from one batched solve.
    - ``"gd"``: 000's gradient descent on the mean loss, θ ← θ − lr · ∇, with
      ∇ = (1/m) Σᵢ wᵢ (θ·zᵢ − yᵢ) zᵢ + (ε/m)(0, β), zᵢ = (1, xᵢ − x̂), from θ = (ȳ_train, 0)
      rather than 000's random start, and m = Σsᵢ (the number of samples when unweighted);
      every query of a block iterates together. Stops when
      ‖∇‖∞ ≤ ``tol`` for every query, or after ``max_iter`` steps with a ConvergenceWarning
      (none when tol=0, which asks for exactly ``max_iter`` steps).
      The notes' summed gradient with step α corresponds to lr = α·m.

    Both minimize the same function; ``"gd"`` approaches ``"wls"`` as it converges.

    Parameters
    ----------
    tau : float, default=1.0
        The bandwidth τ: samples farther than a few τ from the query hardly count. Meant for
        standardized inputs (000's demo uses 0.2 on x ∈ [−2, 2]). As τ → ∞ every weight tends
        to 1 and the model becomes ordinary least squares. The weighted moments are summed in
        one pass, so predictions carry a relative error of about ε·(spread of X / τ)²: around
        1e-6 when the data spread 10⁴ times τ (a regime where the model is a nearest-neighbour
        average anyway).
    solver : {"wls", "gd"}, default="wls"
        How each local fit is computed, see above.
    reg : float, default=1e-8
        The ridge ε on the local slopes, relative to the kernel value 1 of the nearest sample.
    lr : float, default=0.1
        ``"gd"`` only: the step size.
    max_iter : int, default=1000
        ``"gd"`` only: the largest number of steps.
    tol : float, default=1e-6
        ``"gd"`` only: stop when the largest gradient entry is ≤ tol; tol=0 runs ``max_iter``
        steps, as the notes do.

    Attributes
    ----------
    X_fit_ : ndarray of shape (n_samples, n_features)
        The stored training inputs.
    y_fit_ : ndarray of shape (n_samples,)
        The stored training targets.
    sample_weight_ : ndarray of shape (n_samples,)
        The stored sample weights (ones when none were given).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear.locally_weighted import LocallyWeightedRegression
    >>> X = np.linspace(-3, 3, 61).reshape(-1, 1)
    >>> y = np.sin(X[:, 0])
    >>> reg = LocallyWeightedRegression(tau=0.3).fit(X, y)
    >>> print(np.round(reg.predict([[0.5], [1.5]]), 2), np.round(np.sin([0.5, 1.5]), 2))
    [0.46 0.95] [0.48 1.  ]
    """

    _parameter_constraints = {
        "tau": [Interval(Real, 0, None, closed="neither")],
        "solver": [Options({"wls", "gd"})],
        "reg": [Interval(Real, 0, None, closed="left")],
        "lr": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, *, tau=1.0, solver="wls", reg=1e-8, lr=0.1, max_iter=1000, tol=1e-6):
        self.tau = tau
        self.solver = solver
        self.reg = reg
        self.lr = lr
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y, sample_weight=None):
        """Store the training data X (n_samples, n_features) and y (n_samples,)."""
        validate_params(self)
        X, y = check_fit_data(self, X, y, y_numeric=True)
        check_magnitude(X, self)
        check_square_fits(self, X.shape[1] + 1, copies=2, what="each query's weighted normal equations")
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        self.X_fit_, self.y_fit_ = X, np.asarray(y, dtype=np.float64)
        self.sample_weight_ = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        return self

    def predict(self, X):
        """Return the local linear fit's value at every row of X."""
        check_is_fitted(self)
        X = check_predict_data(self, X)
        # Centring the data translates the problem without changing its solution, and keeps
        # the one-pass moments below accurate.
        s = self.sample_weight_
        x_mean, y_mean = np.average(self.X_fit_, axis=0, weights=s), np.average(self.y_fit_, weights=s)
        train, targets, queries = self.X_fit_ - x_mean, self.y_fit_ - y_mean, X - x_mean
        predictions, converged = _lwr_predict(
            train, targets, s, queries, self.tau, self.reg, self.solver,
            self.lr, self.max_iter, self.tol,
        )
        if not np.all(np.isfinite(predictions)) and self.solver == "wls":
            raise ValueError("LocallyWeightedRegression(solver='wls'): the local fits left float64's range; rescale "
                             "X and y (e.g. StandardScaler).")
        if not np.all(np.isfinite(predictions)):
            raise ValueError(
                f"LocallyWeightedRegression(solver='gd') diverged: lr={self.lr} is too large for the curvature of "
                "the local problems (with sample weights far below 1 the ridge reg dominates it); lower lr, or "
                "use solver='wls'.")
        if not converged:
            warnings.warn(
                f"LocallyWeightedRegression(solver='gd') stopped at max_iter={self.max_iter} before "
                f"every local gradient fell below tol={self.tol}; increase max_iter or lr.",
                ConvergenceWarning,
            )
        return predictions + y_mean


def _lwr_predict(X, y, s, queries, tau, reg, solver, lr, max_iter, tol):
    """Local predictions at every query, in blocks; return (predictions, all gd runs converged)."""
    # The weights in units of the largest, so that weights near 1e−300 or 1e300 neither underflow
    # nor overflow the moments; the ridge ε, in the weights' own units, is rescaled with them
    # (so the problem is the same, and integer weights still equal repeated samples).
    unit = s.max()
    s, reg = s / unit, reg / unit
    m = s.sum()  # the mean loss divides by the (weighted) number of samples
    keep = s > 0  # a zero-weight sample never counts, and must not set the scale of the weights
    X, y, s = X[keep], y[keep], s[keep]
    # Moments are summed in one pass (Σwxxᵀ − m₁x̄ᵀ), which loses about log₁₀(‖x‖²/τ²) digits;
    # centring the data removes the part of ‖x‖ that is a common offset.
    center = X.mean(axis=0)
    X, queries = X - center, queries - center
    n, d = X.shape
    outer = (X[:, :, None] * X[:, None, :]).reshape(n, d * d) if n * d * d <= _MAX_OUTER_ENTRIES else None
    moments_basis = np.column_stack([np.ones(n), X, y, X * y[:, None]])
    # A block holds its q × n weights and its q local d × d scatter matrices: bound both.
    block = max(1, _BLOCK_ENTRIES // max(n, d * d))
    predictions, converged = np.empty(queries.shape[0]), True
    for start in range(0, queries.shape[0], block):
        Q = queries[start : start + block]
        W = _local_weights(X, s, Q, tau)
        m0, m1, my, mxy = np.split(W @ moments_basis, [1, 1 + d, 2 + d], axis=1)
        m2 = _weighted_scatter(W, X, outer)
        if solver == "wls":
            predictions[start : start + block] = _solve_wls(Q, m0[:, 0], m1, my[:, 0], mxy, m2, reg)
        else:
            values, ok = _solve_gd(Q, m0[:, 0], m1, my[:, 0], mxy, m2, reg, m, lr, max_iter, tol)
            predictions[start : start + block] = values
            converged &= ok
    return predictions, converged


def _local_weights(X, s, Q, tau):
    """wᵢ(x̂) = sᵢ exp(−‖xᵢ − x̂‖²/(2τ²)), each row's kernel scaled so that its largest value is 1.

    −‖xᵢ − x̂‖²/(2τ²) = (x̂·xᵢ − ½‖xᵢ‖²)/τ² − ‖x̂‖²/(2τ²), and the last term is constant along a
    row, so the max-shift removes it: one matrix product and one exp per entry. The shift comes
    before the division by τ² (twice by τ), so that neither extreme of τ overflows: τ = 1e200 (the
    ordinary least-squares limit) gave an OverflowError from τ², τ = 1e-200 NaN weights; now every
    weight 1, and the nearest training rows' alone.
    """
    log_k = Q @ X.T
    log_k -= 0.5 * (X**2).sum(axis=1)
    log_k -= log_k.max(axis=1, keepdims=True)  # same minimizer; no underflow to all-zero rows
    with np.errstate(over="ignore", under="ignore"):
        log_k /= tau
        log_k /= tau
    return np.exp(log_k, out=log_k) * s


def _weighted_scatter(W, X, outer):
    """Σᵢ wᵢ xᵢxᵢᵀ for every query row of W, shape (q, d, d)."""
    q, d = W.shape[0], X.shape[1]
    if outer is not None:
        return (W @ outer).reshape(q, d, d)
    return np.stack([(X.T * w) @ X for w in W])


def _solve_wls(Q, m0, m1, my, mxy, m2, reg):
    """ȳ + β·(x̂ − x̄) with (C + εI)β = c, C and c the weighted scatter about the local means."""
    x_bar, y_bar = m1 / m0[:, None], my / m0
    scatter = m2 - m1[:, :, None] * x_bar[:, None, :]
    cross = mxy - m1 * y_bar[:, None]
    scatter += reg * np.eye(Q.shape[1])
    try:
        beta = np.linalg.solve(scatter, cross[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:  # only with reg=0 and too few distinct neighbours: minimum norm
        beta = (np.linalg.pinv(scatter, hermitian=True) @ cross[:, :, None])[:, :, 0]
    return y_bar + np.einsum("qj,qj->q", Q - x_bar, beta)


def _solve_gd(Q, m0, m1, my, mxy, m2, reg, m, lr, max_iter, tol):
    """Gradient descent on the mean weighted loss in query-centred coordinates z = (1, x − x̂).

    The gradient (1/m) Σᵢ wᵢ (θ·zᵢ − yᵢ) zᵢ + (ε/m)(0, β) equals Hθ − g with the moments
    H = (1/m)(Σᵢ wᵢ zᵢzᵢᵀ + ε diag(0, I)) and g = (1/m) Σᵢ wᵢ yᵢ zᵢ, so one step costs O(d²)
    per query instead of a pass over the data; the prediction at x̂ (where z = (1, 0)) is θ₀.
    """
    q, d = Q.shape
    s_z = m1 - m0[:, None] * Q  # Σ wᵢ (xᵢ − x̂)
    s_zz = m2 - m1[:, :, None] * Q[:, None, :] - Q[:, :, None] * m1[:, None, :]
    s_zz += m0[:, None, None] * (Q[:, :, None] * Q[:, None, :]) + reg * np.eye(d)
    H = np.empty((q, d + 1, d + 1))
    H[:, 0, 0], H[:, 0, 1:], H[:, 1:, 0], H[:, 1:, 1:] = m0, s_z, s_z, s_zz
    H /= m
    g = np.column_stack([my, mxy - my[:, None] * Q]) / m
    theta = np.zeros((q, d + 1))
    # Each query stops on its own test (so a prediction does not depend on its block-mates);
    # the arrays are compacted only when some query finishes.
    index, H_run, g_run, theta_run = np.arange(q), H, g, theta.copy()
    for _ in range(max_iter):
        grad = (H_run @ theta_run[:, :, None])[:, :, 0] - g_run
        done = np.max(np.abs(grad), axis=1) <= tol
        if done.any():
            theta[index[done]] = theta_run[done]
            index, H_run, g_run, theta_run, grad = (a[~done] for a in (index, H_run, g_run, theta_run, grad))
            if index.size == 0:
                return theta[:, 0], True
        theta_run -= lr * grad
    theta[index] = theta_run
    return theta[:, 0], tol == 0
