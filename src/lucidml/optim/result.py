"""The result every lucidml optimizer returns, and the bookkeeping they share."""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["OptimizeResult"]


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
    """f with a call counter (``nfev``)."""

    def __init__(self, fun):
        self.fun, self.calls = fun, 0

    def __call__(self, x):
        self.calls += 1
        return float(self.fun(x))


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

    def iteration(self, n_iter, x, f_old, f, grad, step, **extra):
        """Record iteration ``n_iter``; return the final result if a stopping test holds, else None."""
        record(self.history, x, f, grad, step, **extra)
        if self.callback is not None:
            self.callback(x)
        reason = stopping_test(grad, f_old, f, self.tol, self.ftol)
        if reason is None:
            return None
        return OptimizeResult(x, f, n_iter, True, reason, float(np.max(np.abs(grad))), self.fun.calls, self.history)

    def already_stationary(self, x, f, grad):
        """The result at the start point when its gradient already passes the test (no step to
        take: a line search along −∇f = 0 would find no descent), else None."""
        if np.max(np.abs(grad), initial=0.0) > self.tol:
            return None
        return OptimizeResult(x, f, 0, True, f"gradient norm ≤ tol={self.tol} at the start point",
                              float(np.max(np.abs(grad), initial=0.0)), self.fun.calls, self.history)

    def exhausted(self, x, f, grad, max_iter):
        """The result when ``max_iter`` iterations passed without a stopping test holding."""
        return OptimizeResult(x, f, max_iter, False, f"max_iter={max_iter} reached", float(np.max(np.abs(grad))),
                              self.fun.calls, self.history)
