"""Gaussian homotopy ("Gaussian sailing"): minimize ever less smoothed versions of f, each from the last minimizer."""

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from .gradient_descent import gradient_descent
from .quasi_newton import bfgs, lbfgs
from .result import Counted, OptimizeResult

__all__ = ["gaussian_homotopy", "gaussian_smoothing"]

_INNER = {"bfgs": bfgs, "lbfgs": lbfgs, "gradient_descent": gradient_descent}


def gaussian_smoothing(fun, grad, sigma, n_samples=64, random_state=None, n_features=None):
    """Monte-Carlo estimates of f_σ(x) = E[f(x + σz)] and ∇f_σ(x) = E[∇f(x + σz)], z ~ N(0, I).

    A fixed set of ``n_samples`` directions is drawn once (antithetic pairs z and −z, so that
    the estimate is exact for every f of degree ≤ 1 and unbiased for all f) and used at every x:
    with these common random numbers the estimate is itself a smooth function of x whose exact
    gradient is the returned gradient estimate, so a line search can trust it.

    Parameters
    ----------
    fun, grad : callable
        f and ∇f of one point (1-D array).
    sigma : float ≥ 0
        The smoothing width σ; 0 returns ``fun`` and ``grad`` unchanged.
    n_samples : int ≥ 2, default=64
        Number of directions (rounded up to an even number).
    random_state : int, RandomState instance or None
        Seeds the directions.
    n_features : int
        Dimension of x.

    Returns
    -------
    (smoothed_fun, smoothed_grad) : pair of callables

    Examples
    --------
    >>> import numpy as np
    >>> f, g = (lambda x: float(x @ x)), (lambda x: 2 * x)     # E‖x + σz‖² = ‖x‖² + n σ²
    >>> f_s, g_s = gaussian_smoothing(f, g, 0.5, n_samples=20_000, random_state=0, n_features=2)
    >>> round(f_s(np.array([1.0, 2.0])), 1), g_s(np.array([1.0, 2.0]))
    (5.5, array([2., 4.]))
    """
    if sigma == 0:
        return fun, grad
    half = check_random_state(random_state).standard_normal(((n_samples + 1) // 2, n_features))
    shifts = sigma * np.vstack([half, -half])

    def smoothed_fun(x):
        return float(np.mean([fun(x + shift) for shift in shifts]))

    def smoothed_grad(x):
        return np.mean([grad(x + shift) for shift in shifts], axis=0)

    return smoothed_fun, smoothed_grad


def gaussian_homotopy(fun, x0, sigmas, grad, *, smoothed=None, n_samples=64, method="bfgs", max_iter=1000,
                      tol=1e-8, random_state=None, callback=None):
    """Minimize a non-convex f by Gaussian homotopy continuation (seeds: 002 §4.1.3 Remark 4.13, Fig. 4.9).

    The notes' remedy for the multiple-local-minima problem. Gaussian smoothing replaces f by
    its average under a Gaussian blur of width σ,

        f_σ(x) = E_{z ~ N(0, I)} [ f(x + σ z) ],

    which flattens dips narrower than about σ (for large σ, f_σ is often convex even when f is
    not) and tends to f as σ → 0. For σ₁ > σ₂ > … > σ_K the method minimizes f_{σ₁} from x₀,
    then each f_{σ_k} starting from the minimizer of f_{σ_{k−1}} (a warm start), so the iterate
    follows the minimizer of the smoothed function as the blur is taken away. There is no
    guarantee of reaching the global minimum; it is reached when that path leads there.

    f_σ and ∇f_σ come from ``smoothed`` when given (closed forms), else from the Monte-Carlo
    estimate of :func:`gaussian_smoothing` with one fixed set of directions for all stages
    (scaled by each σ). A stage with σ = 0 minimizes f itself. Each stage is one run of the
    inner ``method`` (BFGS by default) with ``max_iter`` and ``tol``.

    Parameters
    ----------
    fun : callable
        f of one point (1-D array), returning a float.
    x0 : array-like
        Start of the first stage.
    sigmas : array-like of float or None
        The non-increasing schedule σ₁ ≥ … ≥ σ_K ≥ 0; None means 1, 0.5, 0.25, 0.125, 0.0625, 0
        (choose σ₁ on the scale of the dips to be smoothed away).
    grad : callable
        ∇f of one point.
    smoothed : pair of callables (value(x, σ), gradient(x, σ)), default=None
        Closed forms of f_σ and ∇f_σ; then no sampling takes place.
    n_samples : int ≥ 2, default=64
        Monte-Carlo directions (each evaluation of f_σ costs that many evaluations of f).
    method : {"bfgs", "lbfgs", "gradient_descent"}, default="bfgs"
        The minimizer of each stage (lucidml's, with its line search).
    max_iter, tol : int, float
        Per stage, passed to ``method``.
    random_state : int, RandomState instance or None, default=None
        Seeds the Monte-Carlo directions.
    callback : callable, default=None
        Called with each iterate of every stage.

    Returns
    -------
    OptimizeResult
        ``x`` the last stage's minimizer, ``fun`` = f(x) and ``grad_norm`` = ‖∇f(x)‖∞ of the
        unsmoothed f; ``n_iter`` the iterations of all stages; ``nfev`` the evaluations of f
        (the samples included); ``success`` and ``message`` those of the last stage. ``history``
        has one entry per iteration of every stage, each with ``stage`` (0, 1, …) and ``sigma``
        added; its ``f`` and ``grad_norm`` are those of that stage's f_σ.

    Examples
    --------
    A tilted double well f(x) = x⁴ − 4x² + x: its global minimum is at x ≈ −1.47, and gradient
    descent started at x = 2 stops in the other well, at x ≈ 1.35. With closed-form smoothing
    (E(x + σz)⁴ = x⁴ + 6σ²x² + 3σ⁴, E(x + σz)² = x² + σ²) the homotopy finds the global one:

    >>> import numpy as np
    >>> f = lambda x: float(x[0] ** 4 - 4 * x[0] ** 2 + x[0])
    >>> g = lambda x: np.array([4 * x[0] ** 3 - 8 * x[0] + 1])
    >>> f_s = lambda x, s: f(x) + 6 * s**2 * x[0] ** 2 + 3 * s**4 - 4 * s**2
    >>> g_s = lambda x, s: g(x) + 12 * s**2 * x
    >>> result = gaussian_homotopy(f, [2.0], [1.0, 0.5, 0.0], g, smoothed=(f_s, g_s))
    >>> result.x.round(3), sorted({entry["stage"] for entry in result.history})
    (array([-1.473]), [0, 1, 2])
    """
    schedule = _check_schedule(sigmas)
    if method not in _INNER:
        raise ValueError(f"method must be one of {sorted(_INNER)}; got {method!r}.")
    if not isinstance(n_samples, Integral) or isinstance(n_samples, bool) or n_samples < 2:
        raise ValueError(f"n_samples must be an int ≥ 2; got {n_samples!r}.")
    if smoothed is not None and not (len(smoothed) == 2 and all(map(callable, smoothed))):
        raise TypeError("smoothed must be a pair of callables (value(x, sigma), gradient(x, sigma)).")
    x = np.array(x0, dtype=np.float64)
    if x.ndim != 1 or not np.all(np.isfinite(x)):
        raise ValueError("x0 must be a 1-D array of finite numbers.")
    counted = Counted(fun)
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)  # same directions at every stage
    history, n_iter = [], 0
    for stage, sigma in enumerate(schedule):
        if smoothed is not None and sigma > 0:
            value, gradient = (lambda x, s=sigma: float(smoothed[0](x, s))), (lambda x, s=sigma: smoothed[1](x, s))
        else:
            value, gradient = gaussian_smoothing(counted, grad, sigma, n_samples, seed, x.size)
        result = _INNER[method](value, x, gradient, max_iter=max_iter, tol=tol, callback=callback)
        history += [{**entry, "stage": stage, "sigma": sigma} for entry in result.history]
        n_iter += result.n_iter
        x = result.x
    message = f"stage {len(schedule) - 1} (sigma={schedule[-1]:g}): {result.message}"
    return OptimizeResult(x, counted(x), n_iter, result.success, message, float(np.max(np.abs(grad(x)))),
                          counted.calls, history)


def _check_schedule(sigmas):
    """The σ schedule as a float array: non-empty, finite, ≥ 0 and non-increasing."""
    if sigmas is None:
        return np.r_[0.5 ** np.arange(5), 0.0]
    schedule = np.asarray(sigmas, dtype=np.float64)
    if schedule.ndim != 1 or schedule.size == 0:
        raise ValueError("sigmas must be a non-empty 1-D sequence of widths.")
    if not np.all(np.isfinite(schedule)) or np.any(schedule < 0):
        raise ValueError(f"sigmas must be finite and ≥ 0; got {schedule.tolist()}.")
    if np.any(np.diff(schedule) > 0):
        raise ValueError(f"sigmas must be non-increasing (the blur is taken away); got {schedule.tolist()}.")
    return schedule
