"""The result every lucidml optimizer returns, and the bookkeeping they share."""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["NonFiniteStart", "OptimizeResult"]


@dataclass
class OptimizeResult:
    """Outcome of an optimization (field names as SciPy's where they exist).

    Attributes
    ----------
    x : ndarray            the last iterate
    fun : float            f(x)
    n_iter : int           iterations performed
    success : bool         whether a stopping test (not ``max_iter``) ended the run
    message : str          which test, in words
    grad_norm : float      ‖∇f(x)‖∞ (for least squares: of the gradient of rᵀWr)
    nfev : int             evaluations of f
    history : list of dict one per iteration: ``x``, ``f``, ``grad_norm``, ``step`` (and method extras);
                           ``x`` is a copy of the iterate for problems of up to ``HISTORY_MAX_SIZE``
                           unknowns and None above (a model with 250,000 weights would otherwise keep
                           2 MB per iteration, more than its data)
    """

    x: np.ndarray
    fun: float
    n_iter: int
    success: bool
    message: str
    grad_norm: float
    nfev: int
    history: list = field(default_factory=list)


class Counted:
    """f with a call counter (``nfev``). NaN reads as +∞: a point where f is undefined is worse
    than any other, so a line search steps back from it instead of comparing NaN (always False)."""

    def __init__(self, fun):
        self.fun, self.calls = fun, 0

    def __call__(self, x):
        self.calls += 1
        value = float(self.fun(x))
        return np.inf if np.isnan(value) else value


class NonFiniteStart(ValueError):
    """f or its gradient is not finite at the start point (a model's caller may say why in its
    own terms: features that overflow its arithmetic)."""


def check_start(x, f, grad):
    """Refuse a start the run cannot leave: f(x₀) not finite, or a gradient that is not finite or
    not of x's shape (NumPy would broadcast it and minimize another function)."""
    if np.shape(grad) != np.shape(x):
        raise ValueError(f"grad(x) has shape {np.shape(grad)}; it must have x's shape {np.shape(x)}.")
    if not np.isfinite(f):
        raise NonFiniteStart(f"f(x0) is not finite ({f}, or NaN): start where f is defined.")
    if not np.all(np.isfinite(grad)):
        raise NonFiniteStart("grad(x0) is not finite: start where f is differentiable.")


def stopping_test(grad, f_old, f_new, tol, ftol=None):
    """The common stopping rule: ‖∇f‖∞ ≤ tol, or a relative change |Δf| ≤ ftol·max(1, |f|); else None.

    ``ftol`` defaults to ``tol``. Near a minimum f changes like ‖x − x*‖², so this default stops
    at about ‖x − x*‖ ≈ √tol; a caller that wants the gradient test to decide passes a tiny ftol.
    ``ftol=0`` (or ``tol=0`` without ftol) turns the f test off, so ``tol=0`` runs the notes'
    fixed-count loops to the end unless the gradient is exactly zero.
    """
    if np.max(np.abs(grad)) <= tol:
        return f"gradient norm ≤ tol={tol}"
    ftol = tol if ftol is None else ftol
    if f_old is not None and ftol > 0 and abs(f_old - f_new) <= ftol * max(1.0, abs(f_new)):
        return f"relative change of f ≤ ftol={ftol}"
    return None


# A promised decrease of f below this many units of f's last digit cannot be seen in f.
_ROUNDING = 1e3 * np.finfo(np.float64).eps

# Iterates kept in the history up to this many unknowns (the notes' examples: a handful).
HISTORY_MAX_SIZE = 10_000


def record(history, x, f, grad, step, **extra):
    kept = np.array(x, copy=True) if np.size(x) <= HISTORY_MAX_SIZE else None
    history.append({"x": kept, "f": f, "grad_norm": float(np.max(np.abs(grad))), "step": step, **extra})


class Run:
    """The bookkeeping of one optimizer run: counted f, history, callback, stopping test, result."""

    def __init__(self, fun, callback, tol, ftol=None):
        self.fun = Counted(fun)
        self.callback, self.tol, self.ftol, self.history = callback, tol, ftol, []

    def iteration(self, n_iter, x, f_old, f, grad, step, predicted=None, unbounded=False, **extra):
        """Record iteration ``n_iter``; return the final result if a stopping test holds or the run
        cannot go on, else None.

        ``predicted``: for a line search, the decrease of f its first trial step promised (|∇fᵀp|
        times that step). When it found no step at all (``step`` 0) the run ends: a success if
        that promise was below f's rounding (the minimum, to the precision f has), a failure
        otherwise (the gradient does not describe f, or f is not smooth there). ``unbounded``: the
        line search found f falling however far it stepped, which ends the run as a failure."""
        record(self.history, x, f, grad, step, **extra)
        if self.callback is not None:
            self.callback(x)
        if np.shape(grad) != np.shape(x):
            raise ValueError(f"grad(x) has shape {np.shape(grad)}; it must have x's shape {np.shape(x)}.")
        if not (np.isfinite(f) and np.all(np.isfinite(grad))):
            return self._failure(x, f, n_iter, grad, "f or its gradient is not finite: the iterates diverged (f "
                                                     "unbounded below, or a step too long)")
        if unbounded:
            return self._failure(x, f, n_iter, grad, "f fell at every step of the line search, however long: "
                                                     "it looks unbounded below along the search direction")
        reason = stopping_test(grad, f_old, f, self.tol, self.ftol)
        if step == 0 and predicted is not None and np.max(np.abs(grad), initial=0.0) > self.tol:
            if predicted > _ROUNDING * max(1.0, abs(f)):
                return self._failure(x, f, n_iter, grad, "the line search found no step that decreases f although "
                                     f"∇f promised a decrease of {predicted:.3g}: is grad the gradient of fun?")
            reason = "no decrease left at the rounding level of f"
        if reason is None:
            return None
        return OptimizeResult(x, f, n_iter, True, reason, float(np.max(np.abs(grad))), self.fun.calls, self.history)

    def _failure(self, x, f, n_iter, grad, message):
        return OptimizeResult(x, f, n_iter, False, message, float(np.max(np.abs(grad))), self.fun.calls, self.history)

    def already_stationary(self, x, f, grad):
        """The result at the start point when its gradient already passes the test (no step to
        take: a line search along −∇f = 0 would find no descent), else None; an unusable start
        is refused (:func:`check_start`)."""
        check_start(x, f, grad)
        if np.max(np.abs(grad), initial=0.0) > self.tol:
            return None
        return OptimizeResult(x, f, 0, True, f"gradient norm ≤ tol={self.tol} at the start point",
                              float(np.max(np.abs(grad), initial=0.0)), self.fun.calls, self.history)

    def exhausted(self, x, f, grad, max_iter):
        """The result when ``max_iter`` iterations passed without a stopping test holding."""
        return OptimizeResult(x, f, max_iter, False, f"max_iter={max_iter} reached", float(np.max(np.abs(grad))),
                              self.fun.calls, self.history)
