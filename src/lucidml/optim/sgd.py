"""Stochastic gradient descent on a finite sum f = (1/m) Σᵢ fᵢ."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..utils import Interval, Options
from .result import Counted, OptimizeResult, record, stopping_test

__all__ = ["sgd"]

_CONSTRAINTS = {
    "n_samples": Interval(Integral, 1, None, closed="left"),
    "batch_size": Interval(Integral, 1, None, closed="left"),
    "order": Options({"shuffle", "uniform", "cyclic"}),
    "schedule": Options({"constant", "inverse", "c1_c2"}),
    "lr": Interval(Real, 0, None, closed="neither"),
    "c1": Interval(Real, 0, None, closed="neither"),
    "c2": Interval(Real, 0, None, closed="left"),
    "max_iter": Interval(Integral, 1, None, closed="left"),
    "tol": Interval(Real, 0, None, closed="left"),
}


def sgd(fun, x0, grad_batch, *, n_samples, batch_size=1, order="shuffle", schedule="constant", lr=0.01, c1=1.0,
        c2=10.0, max_iter=100, tol=1e-6, ftol=None, record_every=None, random_state=None, callback=None, prox=None):
    """Minimize f(x) = (1/m) Σᵢ fᵢ(x) by x ← x − γₖ gₖ, gₖ a mini-batch gradient (seeds: 002 §4.4
    Alg 4.25, (4.47)–(4.48) and §3.3.2; 000 §2.4.2; 004 §11).

    gₖ = (1/|B|) Σ_{i∈B} ∇fᵢ(x) is ``grad_batch(x, idx)`` for an integer array ``idx`` of sample
    indices (it must return the *mean* gradient over ``idx``). An epoch (one iteration, counted by
    ``max_iter``) takes ⌈m/b⌉ updates, b = ``batch_size``, whose batches are drawn by ``order``:

    - ``"shuffle"``: a new random permutation cut into batches every epoch (002 (3.18)); the
      batches hold distinct samples, as in 004's mini-batch rule θ ← θ − (α/B) Σ ∇J⁽ʲ⁾;
    - ``"uniform"``: every index drawn i.i.d. uniformly from 0 … m−1, so E[gₖ] = ∇f(x) (Alg 4.25,
      (4.49)); a batch may repeat a sample;
    - ``"cyclic"``: the data order, as in 000 §2.4.2.

    The step γₖ, with k = 1, 2, … the update count over the whole run, follows ``schedule``:

    - ``"constant"``: γₖ = ``lr``; reaches a neighbourhood of the minimum fast, then bounces around it;
    - ``"inverse"``: γₖ = ``lr``/k, the notes' C/n (4.48), so Σγₖ = ∞ and Σγₖ² < ∞ (4.47);
    - ``"c1_c2"``: γₖ = ``c1``/(k + ``c2``), the same decay with a gentler start.

    The notes' per-sample loops on a summed cost (000) correspond to ``batch_size=1``; with the mean
    gradient used here, their α is ``lr``. There is no line search: evaluating f would cost as
    much as the gradient steps it decides (002 §4.4).

    Parameters
    ----------
    fun : callable ``fun(x) -> float``, the full objective f; called only at epoch ends and at
        recording points.
    x0 : array-like, the starting point.
    grad_batch : callable ``grad_batch(x, idx) -> ndarray``, the mean of ∇fᵢ(x) over ``idx``.
    n_samples : int, m.
    batch_size, order, schedule, lr, c1, c2 : see above (c2 ≥ 0, the others > 0).
    max_iter : int, the number of epochs at most.
    tol : float ≥ 0. After each epoch, with g the full gradient ``grad_batch(x, arange(m))``, stop
        when ‖g‖∞ ≤ tol or |f_prev − f| ≤ ftol·max(1, |f|). ``tol=0`` runs exactly ``max_iter`` epochs.
    ftol : float ≥ 0 or None (= ``tol``). With decaying steps f can change little from one epoch
        to the next far from the minimum; ``ftol=0`` lets only the gradient decide.
    record_every : int or None. None records one history entry per epoch (at its end, with the full
        gradient); an int r records after every r-th update (so ⌊total updates / r⌋ entries; r = 40
        is what 000 §2.4.2 intended), with the mini-batch gradient of that update. Each entry holds
        ``x``, ``f``, ``grad_norm`` (‖·‖∞ of the gradient named), ``step`` (γₖ), ``epoch`` and ``update``.
    random_state : None, int or RandomState; drives ``"shuffle"`` and ``"uniform"``.
    callback : callable ``callback(x)``, called after each epoch.
    prox : callable ``prox(x, γ) -> x`` or None. Applied after every step (proximal SGD): for
        f + h with a non-smooth h, ``grad_batch`` is the smooth part's and ``prox`` is h's
        proximal map, e.g. soft-thresholding for an L1 term. The stopping test then reads the
        smooth part's gradient, so it is rarely met: use ``tol=0`` and ``max_iter``.

    Returns
    -------
    OptimizeResult
        ``n_iter`` counts epochs; ``grad_norm`` is ‖∇f‖∞ of the full gradient at the last iterate.
        A non-finite f ends the run with ``success=False`` (the step is too large).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]); b = np.array([1.0, 2.0, 3.0])  # exact fit (1, 2)
    >>> f = lambda x: 0.5 * np.mean((A @ x - b) ** 2)
    >>> grad = lambda x, idx: A[idx].T @ (A[idx] @ x - b[idx]) / len(idx)
    >>> res = sgd(f, np.zeros(2), grad, n_samples=3, lr=0.3, max_iter=200, tol=0, random_state=0)
    >>> res.x.round(4), res.n_iter
    (array([1., 2.]), 200)
    """
    _validate(n_samples=n_samples, batch_size=batch_size, order=order, schedule=schedule, lr=lr, c1=c1, c2=c2,
              max_iter=max_iter, tol=tol)
    if record_every is not None and not Interval(Integral, 1, None, closed="left").is_satisfied_by(record_every):
        raise ValueError(f"record_every must be None or an int ≥ 1; got {record_every!r}.")
    if batch_size > n_samples:
        raise ValueError(f"batch_size={batch_size} exceeds n_samples={n_samples}.")
    rng = check_random_state(random_state)
    f_count, history = Counted(fun), []
    everything = np.arange(n_samples)
    x = np.array(x0, dtype=np.float64)
    f, k = f_count(x), 0
    for epoch in range(1, max_iter + 1):
        for idx in _batches(order, n_samples, batch_size, rng):
            k += 1
            g = np.asarray(grad_batch(x, idx), dtype=np.float64)
            gamma = _step(schedule, k, lr, c1, c2)
            x = x - gamma * g
            if prox is not None:
                x = prox(x, gamma)
            if record_every is not None and k % record_every == 0:
                record(history, x, f_count(x), g, gamma, epoch=epoch, update=k)
        f_old, f = f, f_count(x)
        g = np.asarray(grad_batch(x, everything), dtype=np.float64)
        if record_every is None:
            record(history, x, f, g, gamma, epoch=epoch, update=k)
        if callback is not None:
            callback(x)
        if not np.isfinite(f):
            return _result(x, f, epoch, False, "f is not finite: the steps are too large", g, f_count, history)
        reason = stopping_test(g, f_old, f, tol, ftol) if tol > 0 else None
        if reason is not None:
            return _result(x, f, epoch, True, reason, g, f_count, history)
    return _result(x, f, max_iter, False, f"max_iter={max_iter} reached", g, f_count, history)


def _batches(order, m, size, rng):
    """The index batches of one epoch: ⌈m/size⌉ of them."""
    if order == "uniform":
        return rng.randint(m, size=(-(-m // size), size))
    samples = rng.permutation(m) if order == "shuffle" else np.arange(m)
    return [samples[start:start + size] for start in range(0, m, size)]


def _step(schedule, k, lr, c1, c2):
    """γₖ for the k-th update (k ≥ 1)."""
    if schedule == "constant":
        return lr
    if schedule == "inverse":
        return lr / k
    return c1 / (k + c2)


def _result(x, f, n_iter, success, message, g, f_count, history):
    return OptimizeResult(x, f, n_iter, success, message, float(np.max(np.abs(g))), f_count.calls, history)


def _validate(**values):
    for name, value in values.items():
        if not _CONSTRAINTS[name].is_satisfied_by(value):
            raise ValueError(f"{name} must be {_CONSTRAINTS[name]}; got {value!r}.")
