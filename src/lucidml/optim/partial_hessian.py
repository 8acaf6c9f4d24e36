"""Quasi-Newton steps built on part of the Hessian: its diagonal or diagonal blocks, completed by BFGS pairs."""

import warnings
from collections import deque
from numbers import Integral

import numpy as np
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning

from .line_search import wolfe
from .newton import _modified_cholesky
from .quasi_newton import _skip, _two_loop
from .result import Run

__all__ = ["quasi_newton_partial"]


def quasi_newton_partial(fun, x0, grad, hess_part=None, *, blocks=None, memory=10, max_iter=1000, tol=1e-8,
                         ftol=None, callback=None):
    """Minimize f with a partial Hessian P ≈ ∇²f, completed by limited-memory BFGS (seeds: 002 §4.2–4.3, (4.62)).

    The notes' middle road between Newton and quasi-Newton (002 Exercise 4.3(b) replaces ∇²f by
    its diagonal D, (4.62); Project P.6, "quasi-Newton methods using partial information of the
    Hessian", survives in the seed as a title only). Here P(x) is the part of the Hessian that
    is cheap to get — its diagonal, or the square blocks ∇²_BB f of a partition of the variables
    into ``blocks`` (couplings inside a block kept, couplings across blocks dropped) — and the
    coupling P leaves out is learnt from the gradients as in BFGS. Each iteration:

    1. P = P(xₙ), made positive definite (max(|Dᵢᵢ|, ε) on a diagonal; a block B gets B + τI
       with the smallest τ that lets Cholesky succeed, as in :func:`newton`);
    2. p = −Bₙ∇f(xₙ), where Bₙ is the L-BFGS inverse-Hessian approximation built from the last
       ``memory`` pairs (s, y) by the two-loop recursion, started from B₀ = P⁻¹ instead of a
       multiple of I;
    3. a step γ satisfying the Wolfe conditions, xₙ₊₁ = xₙ + γp, and the pair s = γp,
       y = ∇f(xₙ₊₁) − ∇f(xₙ), kept when yᵀs > 10⁻¹⁰‖s‖‖y‖ (the BFGS skip rule).

    When P is the whole Hessian of a quadratic the first step is Newton's and lands on the
    minimizer; ``memory=0`` gives Newton's method on P alone (002 Ex. 4.3(b), with a Wolfe search).
    Stops when ‖∇f‖∞ ≤ tol, when the relative change of f is ≤ ``ftol`` (default: tol), or at
    ``max_iter`` with a ``ConvergenceWarning``.

    Parameters
    ----------
    fun, grad : callable
        f and ∇f of one point.
    x0 : array-like of shape (n,)
        Start.
    hess_part : callable or None, default=None
        ``hess_part(x)`` returns the diagonal of ∇²f(x) (shape (n,)) when ``blocks`` is None, or
        the list of the blocks ∇²_BB f(x), one square array per block, in the order of ``blocks``.
        None estimates the diagonal by forward differences of the gradient,
        Dᵢᵢ ≈ (∂ᵢf(x + hᵢeᵢ) − ∂ᵢf(x))/hᵢ with hᵢ = √ε·max(1, |xᵢ|): n more gradients per iteration.
    blocks : list of array-like of int, default=None
        A partition of the variables 0 … n−1 (every index in exactly one block).
    memory : int ≥ 0, default=10
        Number of (s, y) pairs kept.
    max_iter, tol, ftol, callback
        As for :func:`bfgs`.

    Returns
    -------
    OptimizeResult

    Examples
    --------
    A separable quadratic: its Hessian is diagonal, so the first step is exact.

    >>> import numpy as np
    >>> a, c = np.array([1.0, 100.0, 1e4]), np.array([1.0, -2.0, 3.0])
    >>> f = lambda x: float(a @ (x - c) ** 2)
    >>> g = lambda x: 2 * a * (x - c)
    >>> res = quasi_newton_partial(f, np.zeros(3), g, lambda x: 2 * a)
    >>> res.x, res.n_iter
    (array([ 1., -2.,  3.]), 1)
    """
    x = np.array(x0, dtype=np.float64)
    if x.ndim != 1 or not np.all(np.isfinite(x)):
        raise ValueError("x0 must be a 1-D array of finite numbers.")
    if not isinstance(memory, Integral) or isinstance(memory, bool) or memory < 0:
        raise ValueError(f"memory must be an int ≥ 0; got {memory!r}.")
    blocks = _check_blocks(blocks, x.size)
    if hess_part is None and blocks is not None:
        raise ValueError("blocks need hess_part: the finite-difference estimate gives the diagonal only.")
    run = Run(fun, callback, tol, ftol)
    f_count = run.fun
    pairs = deque(maxlen=memory)
    f, g = f_count(x), grad(x)
    if (done := run.already_stationary(x, f, g)) is not None:
        return done
    for n_iter in range(1, max_iter + 1):
        initial = _inverse_of_part(hess_part(x) if hess_part is not None else _diagonal_by_differences(grad, x, g),
                                   blocks, x.size)
        p = -_two_loop(g, pairs, initial)
        if g @ p >= 0:  # the pairs lost positive definiteness to round-off: restart from P alone
            pairs.clear()
            p = -initial(g)
        gamma, f_new, g_new, unbounded = wolfe(f_count, grad, x, f, g, p)
        predicted = -float(g @ p)
        s, y = gamma * p, g_new - g
        if memory and not _skip(s, y):
            pairs.append((s, y, 1.0 / float(y @ s)))
        f_old, x, f, g = f, x + s, f_new, g_new
        done = run.iteration(n_iter, x, f_old, f, g, gamma, predicted, unbounded)
        if done is not None:
            return done
    warnings.warn(f"quasi_newton_partial stopped at max_iter={max_iter} with ‖∇f‖∞ = {np.max(np.abs(g)):.3g} > "
                  f"tol={tol}.", ConvergenceWarning, stacklevel=2)
    return run.exhausted(x, f, g, max_iter)


def _check_blocks(blocks, n):
    """``blocks`` as a list of int arrays that partition 0 … n−1, or None."""
    if blocks is None:
        return None
    parts = [np.asarray(block, dtype=np.intp).ravel() for block in blocks]
    joined = np.concatenate(parts) if parts else np.empty(0, dtype=np.intp)
    if any(part.size == 0 for part in parts) or np.sort(joined).tolist() != list(range(n)):
        raise ValueError(f"blocks must split the {n} variables into non-empty groups, each index 0 … {n - 1} in "
                         "exactly one group.")
    return parts


def _diagonal_by_differences(grad, x, g):
    """Forward-difference estimate of diag ∇²f(x) from n extra gradients."""
    steps = np.sqrt(np.finfo(np.float64).eps) * np.maximum(1.0, np.abs(x))
    diagonal = np.empty(x.size)
    for i, h in enumerate(steps):
        shifted = x.copy()
        shifted[i] += h
        diagonal[i] = (grad(shifted)[i] - g[i]) / h
    return diagonal


def _inverse_of_part(part, blocks, n):
    """q ↦ P⁻¹q for the partial Hessian P (a diagonal, or blocks), after making P positive definite."""
    if blocks is None:
        diagonal = np.asarray(part, dtype=np.float64)
        if diagonal.shape != (n,):
            raise ValueError(f"hess_part must return the diagonal, shape ({n},); got shape {diagonal.shape}.")
        if not np.all(np.isfinite(diagonal)):
            raise ValueError("hess_part returned NaN or infinity.")
        safe = np.maximum(np.abs(diagonal), np.finfo(np.float64).eps)
        return lambda q: q / safe
    if len(part) != len(blocks):
        raise ValueError(f"hess_part must return one matrix per block ({len(blocks)}); got {len(part)}.")
    factors = []
    for index, matrix in zip(blocks, part):
        matrix = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
        if matrix.shape != (index.size, index.size):
            raise ValueError(f"a block of {index.size} variables needs a {index.size}×{index.size} Hessian block; "
                             f"got shape {matrix.shape}.")
        if not np.all(np.isfinite(matrix)):
            raise ValueError("hess_part returned NaN or infinity.")
        factors.append(_modified_cholesky((matrix + matrix.T) / 2))

    def solve(q):
        out = np.empty_like(q)
        for index, factor in zip(blocks, factors):
            out[index] = scipy.linalg.cho_solve((factor, True), q[index])
        return out

    return solve
