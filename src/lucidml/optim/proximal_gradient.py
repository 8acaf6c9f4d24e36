"""Proximal gradient descent (ISTA) with a backtracking step, for f + h with h non-smooth."""

import numpy as np

from ..utils.validation import check_positive
from .result import Counted, OptimizeResult, check_start, record

__all__ = ["proximal_gradient", "soft_threshold"]

_MAX_STEP = 1e6


def soft_threshold(x, threshold):
    """S(x, t) = sign(x) max(|x| − t, 0): the proximal map of t‖·‖₁."""
    return np.sign(x) * np.maximum(np.abs(x) - threshold, 0.0)


def proximal_gradient(fun, x0, grad, prox, *, h=None, lr=1.0, max_iter=1000, tol=1e-8, callback=None):
    """Minimize F = f + h with f smooth and h simple, by x ← prox_γh(x − γ∇f(x)).

    With h = λ‖x‖₁ the proximal map is soft-thresholding (``prox(x, γ) = soft_threshold(x, γλ)``),
    which sets small coordinates exactly to zero; with h = 0 this is gradient descent. The step γ
    starts each iteration at twice the last one and is halved until the quadratic upper bound
    f(x⁺) ≤ f(x) + ∇f(x)ᵀ(x⁺ − x) + ‖x⁺ − x‖²/(2γ) holds, which guarantees that F decreases
    (Beck & Teboulle 2009). Stops when the gradient mapping ‖(x − x⁺)/γ‖∞ ≤ tol — zero exactly
    at a minimizer of F — or at ``max_iter``.

    Parameters
    ----------
    fun, grad : callables, f and ∇f of the smooth part.
    x0 : array-like
    prox : callable ``prox(x, γ) -> x``, the proximal map of γh.
    h : callable or None, the non-smooth part, only to report F in ``fun`` and ``history``.
    lr : float, the first trial step.

    Returns
    -------
    OptimizeResult
        ``fun`` is F = f + h; ``grad_norm`` is the gradient mapping's ‖·‖∞.

    Examples
    --------
    >>> import numpy as np
    >>> f, grad = (lambda x: 0.5 * np.sum((x - 3.0) ** 2)), (lambda x: x - 3.0)
    >>> prox = lambda x, gamma: soft_threshold(x, gamma * 1.0)     # h = ‖x‖₁
    >>> proximal_gradient(f, np.zeros(2), grad, prox).x            # the minimizer of F: 3 − 1
    array([2., 2.])
    """
    lr = check_positive(lr, "lr")
    f_count = Counted(fun)
    total = (lambda x, f: f + float(h(x))) if h is not None else (lambda x, f: f)
    x = np.array(x0, dtype=np.float64)
    f, g, gamma, history = f_count(x), grad(x), lr / 2, []
    check_start(x, f, g)
    mapping = np.inf
    for n_iter in range(1, max_iter + 1):
        gamma = min(2 * gamma, _MAX_STEP)
        first = None
        for _ in range(60):
            x_new = prox(x - gamma * g, gamma)
            step = x_new - x
            first = float(np.max(np.abs(step), initial=0.0)) / gamma if first is None else first
            f_new = f_count(x_new)
            if f_new <= f + float(g @ step) + float(step @ step) / (2 * gamma) * (1 + 1e-12):
                break
            gamma /= 2
        else:  # no step satisfies the bound (f is not smooth at this scale): stay
            return OptimizeResult(x, total(x, f), n_iter, False, "no step satisfies the descent bound",
                                  mapping, f_count.calls, history)
        if not np.any(step) and first > tol:
            # Accepted only once the step rounded to nothing: the gradient promised a move at the
            # first trial step, and no step of any length kept the bound (a gradient that is not f's).
            return OptimizeResult(x, total(x, f), n_iter, False, "no step satisfies the descent bound although the "
                                  f"gradient mapping was {first:.3g}: is grad the gradient of fun?", first,
                                  f_count.calls, history)
        mapping = float(np.max(np.abs(step))) / gamma
        x, f, g = x_new, f_new, grad(x_new)
        record(history, x, total(x, f), step / gamma, gamma)
        if callback is not None:
            callback(x)
        if mapping <= tol:
            return OptimizeResult(x, total(x, f), n_iter, True, f"gradient mapping ≤ tol={tol}", mapping,
                                  f_count.calls, history)
    return OptimizeResult(x, total(x, f), max_iter, False, f"max_iter={max_iter} reached", mapping, f_count.calls,
                          history)
