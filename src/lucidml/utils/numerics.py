"""Small numerics the notes use: stable logistic functions, gradient and KKT checkers, the online mistake count.

- :func:`sigmoid`, :func:`logit`, :func:`softplus`: σ(x) = 1/(1 + e⁻ˣ), its inverse log(p/(1 − p))
  and log(1 + eˣ) = −log σ(−x), computed so that no intermediate overflows for any float.
- :func:`check_gradient`: the relative error between a user's gradient and central differences
  (the engine :func:`numerical_gradient` and :func:`relative_error` are also the neural
  network's gradient check, :func:`lucidml.neural.gradient_check`).
- :func:`kkt_residual`: how far a point and its multipliers are from the KKT conditions of
  min f(x) s.t. A_eq x = b_eq, A_ineq x ≤ b_ineq (the conventions of :mod:`lucidml.optim.qp`).
- :func:`unit_rows`: each row of X scaled by a power of 2 to a largest |entry| in [0.5, 1), for
  what does not change with a row's scale (cosine, correlation, a row normalized to length 1)
  but overflows or underflows in its sums of squares near 1e±300.
- :func:`online_mistakes`: the total online error Σ 1{ŷ⁽ⁱ⁾ ≠ y⁽ⁱ⁾} of a learner fed a stream in
  order (seeds 000 §10).
"""

import numpy as np
import scipy.sparse
from sklearn.base import clone
from sklearn.utils.validation import check_array, check_X_y

from .validation import check_methods

__all__ = [
    "check_gradient", "kkt_residual", "logit", "numerical_gradient", "online_mistakes", "relative_error", "sigmoid",
    "in_power_of_two_units", "power_of_two_unit", "softplus", "times_power_of_two", "unit_rows", "units_exponent",
]


def _finish(out, x):
    """A Python float for a scalar input, the array otherwise."""
    return float(out) if np.ndim(x) == 0 else out


def sigmoid(x):
    """The logistic function σ(x) = 1 / (1 + e⁻ˣ), without overflow for any x.

    For x ≥ 0 it is evaluated as 1 / (1 + e⁻ˣ) and for x < 0 as eˣ / (1 + eˣ), so the
    exponential is never of a positive number: σ(±1e308) = 1 and 0 with no warning,
    σ(+inf) = 1, σ(−inf) = 0, and NaN stays NaN. Agrees with ``scipy.special.expit`` to
    within a unit in the last place, except below x ≈ −709, where expit returns 0 and σ(x) ≈ eˣ
    here keeps the subnormal value (down to σ(−745) = 5e-324).

    Parameters
    ----------
    x : float or array-like

    Returns
    -------
    float or ndarray of float64
        A float for a scalar x, else an array of x's shape.

    Examples
    --------
    >>> from lucidml.utils import sigmoid
    >>> sigmoid(0.0), sigmoid(-1e308), sigmoid([-800.0, 800.0]).tolist()
    (0.5, 0.0, [0.0, 1.0])
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    positive = x >= 0
    negative = ~positive  # NaN lands here and stays NaN
    out[positive] = 1.0 / (1.0 + np.exp(-x[positive]))
    exp_x = np.exp(x[negative])
    out[negative] = exp_x / (1.0 + exp_x)
    return _finish(out, x)


def logit(p):
    """The log-odds log(p / (1 − p)), the inverse of :func:`sigmoid`.

    Evaluated as log(p) − log1p(−p), accurate for any float p (but a float near 1 has few digits
    left for 1 − p: sigmoid(30) is stored as 1 − 9.4e-14 and maps back to 30.001, while
    logit(sigmoid(−30)) is −30 to the last digit). logit(0) = −inf and
    logit(1) = +inf; p outside [0, 1] or NaN gives NaN (as ``scipy.special.logit``), with no
    warning.

    Parameters
    ----------
    p : float or array-like
        Probabilities.

    Returns
    -------
    float or ndarray of float64

    Examples
    --------
    >>> from lucidml.utils import logit, sigmoid
    >>> logit(0.5), logit(1.0), round(logit(sigmoid(-30.0)), 9)
    (0.0, inf, -30.0)
    """
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(p) - np.log1p(-p)
    out = np.where((p >= 0) & (p <= 1), out, np.nan)
    return _finish(out, p)


def softplus(x):
    """softplus(x) = log(1 + eˣ) = −log σ(−x), without overflow for any x.

    Evaluated as max(x, 0) + log1p(e^(−|x|)): the exponential is at most 1. softplus(x) ≈ x for
    large x (softplus(1e308) = 1e308), ≈ eˣ for very negative x, softplus(+inf) = +inf,
    softplus(−inf) = 0, NaN stays NaN. The same as ``np.logaddexp(0, x)``. It is the logistic
    loss: −log σ(y z) = softplus(−y z) for y ∈ {−1, +1}.

    Parameters
    ----------
    x : float or array-like

    Returns
    -------
    float or ndarray of float64

    Examples
    --------
    >>> from lucidml.utils import softplus
    >>> round(softplus(0.0), 9), softplus(1000.0), softplus(-1e308)
    (0.693147181, 1000.0, 0.0)
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore"):  # inf − inf never happens; NaN in, NaN out
        out = np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))
    return _finish(out, x)


def numerical_gradient(f, x, eps=1e-6):
    """Central-difference gradient of a scalar function at x: ∂f/∂xⱼ ≈ (f(x + ε eⱼ) − f(x − ε eⱼ)) / 2ε.

    The error is O(ε²). f takes no argument and reads x, which is perturbed in place one entry
    at a time and restored (so that f can be the loss of a model whose parameters live in x).

    Parameters
    ----------
    f : callable
        f() → float.
    x : ndarray of float64
        Contiguous; perturbed in place and left as it was.
    eps : float, default=1e-6

    Returns
    -------
    ndarray of x's shape

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.utils.numerics import numerical_gradient
    >>> x = np.array([1.0, 2.0])
    >>> numerical_gradient(lambda: float(x @ x), x).round(6).tolist()
    [2.0, 4.0]
    """
    grad = np.zeros(x.shape, dtype=np.float64)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    if not np.shares_memory(flat, x):
        raise ValueError("x must be contiguous so that it can be perturbed in place.")
    for j in range(flat.size):
        saved = flat[j]
        flat[j] = saved + eps
        f_plus = f()
        flat[j] = saved - eps
        f_minus = f()
        flat[j] = saved
        gflat[j] = (f_plus - f_minus) / (2 * eps)
    return grad


def relative_error(a, b):
    """‖a − b‖ / (‖a‖ + ‖b‖), and 0 when both are zero.

    Examples
    --------
    >>> from lucidml.utils.numerics import relative_error
    >>> round(relative_error([1.0, 0.0], [0.0, 1.0]), 6), relative_error([0.0], [0.0])
    (0.707107, 0.0)
    """
    a, b = np.ravel(a), np.ravel(b)
    scale = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if scale == 0 else float(np.linalg.norm(a - b) / scale)


def check_gradient(fun, grad, x, *, eps=1e-6):
    """Relative error between an analytic gradient and central finite differences at x.

    Computes ĝ by :func:`numerical_gradient` (2 evaluations of ``fun`` per coordinate) and
    returns ‖grad(x) − ĝ‖ / (‖grad(x)‖ + ‖ĝ‖). In float64 with ε = 1e-6 a correct gradient of a
    smooth function gives about 1e-9 or less; a wrong one gives something of order 1e-2 to 1.
    Check at a random point, not at one where terms vanish (x = 0 hides many mistakes).

    Parameters
    ----------
    fun : callable
        fun(x) → float.
    grad : callable
        grad(x) → array of x's shape (or anything that ravels to x's size).
    x : array-like
        The point; not modified (a copy is perturbed).
    eps : float, default=1e-6
        The finite-difference step.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.utils import check_gradient
    >>> f = lambda w: float(np.sum(np.log1p(np.exp(w))))
    >>> check_gradient(f, lambda w: 1 / (1 + np.exp(-w)), [0.3, -1.2]) < 1e-8
    True
    >>> check_gradient(f, lambda w: np.exp(w), [0.3, -1.2]) > 0.1   # a wrong gradient
    True
    """
    point = np.array(x, dtype=np.float64, order="C")
    if not np.all(np.isfinite(point)):
        raise ValueError("x must be finite.")
    if not eps > 0:
        raise ValueError(f"eps must be > 0; got {eps!r}.")
    analytic = np.asarray(grad(point.copy()), dtype=np.float64)
    if analytic.size != point.size:
        raise ValueError(f"grad(x) has {analytic.size} entries; x has {point.size}.")
    numeric = numerical_gradient(lambda: float(fun(point)), point, eps)
    return relative_error(analytic, numeric)


def kkt_residual(grad, x, *, y=None, z=None, A_eq=None, b_eq=None, A_ineq=None, b_ineq=None):
    """∞-norms of the four KKT conditions of min f(x) s.t. A_eq x = b_eq, A_ineq x ≤ b_ineq.

    With the sign convention of :mod:`lucidml.optim.qp` (multipliers y of the equalities and
    z ≥ 0 of the inequalities, Lagrangian f(x) + yᵀ(A_eq x − b_eq) + zᵀ(A_ineq x − b_ineq)), a
    point x* with multipliers (y, z) is a KKT point when all of these vanish:

    - ``stationarity``: ∇f(x) + A_eqᵀ y + A_ineqᵀ z = 0;
    - primal feasibility, ``equality``: A_eq x − b_eq = 0, and ``inequality``: max(A_ineq x − b_ineq, 0) = 0;
    - ``dual_feasibility``: min(z, 0) = 0, i.e. z ≥ 0;
    - ``complementarity``: zᵢ (A_ineq x − b_ineq)ᵢ = 0 for every i.

    For a convex f they are sufficient for a global minimum (seeds 000 §6, 002 §4.2). The QP
    solvers report the same numbers in ``QPResult.kkt``.

    Parameters
    ----------
    grad : callable or array-like
        ∇f, as a function of x or its value at x.
    x : array-like of shape (n,)
    y : array-like of shape (n_eq,) or None
        Equality multipliers (zeros if None).
    z : array-like of shape (n_ineq,) or None
        Inequality multipliers (zeros if None).
    A_eq, b_eq, A_ineq, b_ineq : array-like or None
        The constraints, both parts of a kind or neither.

    Returns
    -------
    dict
        ``stationarity``, ``equality``, ``inequality``, ``dual_feasibility``, ``complementarity``
        (each 0.0 when there is nothing to check).

    Examples
    --------
    min (x₀ − 2)² + (x₁ − 2)² s.t. x₀ + x₁ ≤ 2 has x* = (1, 1) with z = 2:

    >>> import numpy as np
    >>> from lucidml.utils import kkt_residual
    >>> grad = lambda x: 2 * (x - 2)
    >>> kkt_residual(grad, [1.0, 1.0], z=[2.0], A_ineq=[[1.0, 1.0]], b_ineq=[2.0])
    {'stationarity': 0.0, 'equality': 0.0, 'inequality': 0.0, 'dual_feasibility': 0.0, 'complementarity': 0.0}
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    n = x.size
    A_eq, b_eq = _constraint_pair(A_eq, b_eq, n, "equality")
    A_ineq, b_ineq = _constraint_pair(A_ineq, b_ineq, n, "inequality")
    y = _multipliers(y, A_eq.shape[0], "y")
    z = _multipliers(z, A_ineq.shape[0], "z")
    gradient = np.asarray(grad(x.copy()) if callable(grad) else grad, dtype=np.float64).ravel()
    if gradient.size != n:
        raise ValueError(f"The gradient has {gradient.size} entries; x has {n}.")
    slack = A_ineq @ x - b_ineq
    return {
        "stationarity": _norm(gradient + A_eq.T @ y + A_ineq.T @ z),
        "equality": _norm(A_eq @ x - b_eq),
        "inequality": _norm(np.maximum(slack, 0.0)),
        "dual_feasibility": _norm(np.minimum(z, 0.0)),
        "complementarity": _norm(z * slack),
    }


def _constraint_pair(A, b, n, kind):
    if A is None and b is None:
        return np.zeros((0, n)), np.zeros(0)
    if A is None or b is None:
        raise ValueError(f"Give both the matrix and the right-hand side of the {kind} constraints.")
    A = np.atleast_2d(np.asarray(A, dtype=np.float64))
    b = np.asarray(b, dtype=np.float64).ravel()
    if A.shape != (b.size, n):
        raise ValueError(f"{kind} constraints: A must be {b.size} × {n}; got shape {A.shape}.")
    return A, b


def _multipliers(values, m, name):
    if values is None:
        return np.zeros(m)
    values = np.asarray(values, dtype=np.float64).ravel()
    if values.size != m:
        raise ValueError(f"{name} must hold one multiplier per constraint, {m}; got {values.size}.")
    return values


def _norm(v):
    return float(np.max(np.abs(v))) if v.size else 0.0


def online_mistakes(estimator, X, y, *, classes=None):
    """Total online error Σᵢ 1{ŷ⁽ⁱ⁾ ≠ y⁽ⁱ⁾} of a learner that sees the samples one at a time, in order.

    The protocol of online learning (seeds 000 §10): for i = 1, …, m the learner predicts
    ŷ⁽ⁱ⁾ for x⁽ⁱ⁾, is told y⁽ⁱ⁾, and updates (here one ``partial_fit`` call on that sample).
    Before its first update the learner has no hypothesis (θ = 0), so its first prediction
    counts as a mistake — as the perceptron's, whose zero decision value is a mistake. For the
    perceptron on separable data the count is at most Novikoff's R²/γ²
    (:func:`lucidml.theory.perceptron_mistake_bound`).

    Parameters
    ----------
    estimator : classifier with ``partial_fit``
        Cloned; the user's estimator is not modified.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    classes : array-like or None, default=None
        All the labels, for ``partial_fit``; None takes those of y.

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.linear import Perceptron
    >>> from lucidml.utils import online_mistakes
    >>> X = np.array([[2.0, 1.0], [-1.0, -2.0], [1.0, 2.0], [-2.0, -1.0]] * 5)
    >>> y = np.array([1, 0, 1, 0] * 5)
    >>> online_mistakes(Perceptron(), X, y)   # wrong at the start only, then never again
    1
    """
    check_methods(estimator, ["partial_fit", "predict"], "online_mistakes", "an online learner")
    X, y = check_X_y(X, y, accept_sparse="csr")
    classes = np.unique(y) if classes is None else check_array(classes, ensure_2d=False, dtype=None)
    model = clone(estimator)
    mistakes = 0
    for i in range(X.shape[0]):
        if i == 0 or model.predict(X[i:i + 1])[0] != y[i]:
            mistakes += 1
        model.partial_fit(X[i:i + 1], y[i:i + 1], classes=classes)
    return mistakes


def unit_rows(X):
    """X (dense, or CSR) with each row multiplied by a power of 2 that brings its largest |entry|
    into [0.5, 1); rows of zeros stay as they are.

    Exact (only exponents change), so a scale-free quantity of rows of normal magnitude is the
    same to the last bit; rows near 1e-300 or 1e300 no longer underflow or overflow in their
    squared norms. Returns a new array (of X's precision; float64 for integer or boolean X) or CSR
    matrix (float64).
    """
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csr_matrix(X, dtype=np.float64, copy=True)
        largest = np.asarray(abs(X).max(axis=1).todense()).ravel()
        X.data = np.ldexp(X.data, -np.repeat(np.frexp(largest)[1], np.diff(X.indptr)))
        return X
    X = np.asarray(X)
    if X.dtype.kind != "f":
        X = X.astype(np.float64)
    return np.ldexp(X, -np.frexp(np.max(np.abs(X), axis=1, initial=0.0))[1][:, None])


def units_exponent(largest, safe=None):
    """0, or the power of two e that brings ``largest`` (a largest |value|) into [0.5, 1): for any
    largest > 0 when ``safe`` is None, else only when it lies outside the closed range ``safe`` =
    (low, high) (where squares or sums of squares would overflow or underflow). Scaling by 2⁻ᵉ is
    exact, whatever e (:func:`times_power_of_two`)."""
    if largest == 0.0 or (safe is not None and safe[0] <= largest <= safe[1]):
        return 0
    return int(np.frexp(largest)[1])


def times_power_of_two(X, exponent):
    """X · 2^exponent, exactly (only exponents change): a new dense array, or a copy of a sparse
    matrix with its data scaled."""
    if scipy.sparse.issparse(X):
        X = X.copy()
        X.data = np.ldexp(X.data, exponent)
        return X
    return np.ldexp(X, exponent)


def power_of_two_unit(weight):
    """The largest power of 2 not above the largest of the positive ``weight``s (which it brings
    into [1, 2)), as a float: dividing by it is exact (only exponents change), so weights that
    are whole numbers stay whole-number multiples of one unit, and their sums (a weighted median's
    half-weight test, say) are as exact as the unscaled ones; sums of weights near 1e300 no longer
    overflow. (Always finite: 2^1023 for weights near the largest float.)"""
    return float(np.ldexp(1.0, int(np.frexp(np.max(weight))[1]) - 1))


def in_power_of_two_units(weight):
    """``weight`` divided by its :func:`power_of_two_unit` (exact), or None for None: the largest
    weight in [1, 2), the ratios of the weights (all a weighted fit depends on) unchanged, and their
    sums and products far from overflow and underflow."""
    return None if weight is None else weight / power_of_two_unit(weight)
