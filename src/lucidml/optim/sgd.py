"""Stochastic gradient descent on a finite sum f = (1/m) Σᵢ fᵢ."""

from contextlib import nullcontext
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..utils import Interval, Options
from .result import Counted, OptimizeResult, record, stopping_test

__all__ = ["sgd"]

# The variance-reduced epochs multiply their step by this after an epoch that lowered f (and halve it
# after one that did not): a slow growth that finds the largest stable step within a few dozen
# epochs, and loses one epoch in ten or fewer to an undone one (measured on breast cancer, C = 10).
VR_GROWTH = 1.1
# Relative rounding error of f: near the minimum f changes by less than this, and the stationarity
# measure decides whether a variance-reduced epoch is kept (see _kept): the epoch is undone if it
# raised the measure by more than FLAT_FACTOR. Not 1: ‖∇f‖∞ is not monotone along a converging path
# on an ill-conditioned f (factor 1 stalled diabetes least squares at ‖∇f‖∞ ≈ 1e-8, 1.5 reaches 1e-12).
FLAT_FACTOR = 1.5
_ROUNDOFF = 64 * np.finfo(np.float64).eps

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
        c2=10.0, max_iter=100, tol=1e-6, ftol=None, record_every=None, random_state=None, callback=None, prox=None,
        online_prox=None, variance_reduced_from=None):
    """Minimize f(x) = (1/m) Σᵢ fᵢ(x) by x ← x − γₖ gₖ, gₖ a mini-batch gradient (seeds: 002 §4.4
    Alg 4.25, (4.47)–(4.48) and §3.3.2; 000 §2.4.2; 004 §11), optionally finishing with
    variance-reduced epochs that converge to the minimizer itself.

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

    **Variance-reduced epochs** (``variance_reduced_from=e``: epochs e, e + 1, …). A decaying step
    converges, but slowly: the noise of gₖ, whose variance does not vanish at the minimum, is
    what (4.47) has to average away, and on an ill-conditioned f an objective within 1e-4 of the
    optimum takes thousands of epochs. SVRG (Johnson & Zhang 2013) removes that noise with a
    control variate: at the start of the epoch it keeps the snapshot x̃ = x and its full gradient
    ∇f(x̃) (which the stopping test has computed anyway), and steps along

        vₖ = gₖ(x) − gₖ(x̃) + ∇f(x̃),

    the same mini-batch B evaluated at both points. E[vₖ] = ∇f(x) as in (4.49), but vₖ → 0 as x and
    x̃ approach the minimizer, so a constant step converges, linearly for a strongly convex f;
    with ``prox`` this is Prox-SVRG (Xiao & Zhang 2014). The step of these epochs starts at the
    last step of the schedule and adapts, as there is no line search: an epoch that leaves f + h
    lower is kept and the step grows by ``VR_GROWTH``; one that raises it beyond round-off (or overflows) is
    undone and the step halved. Where f is flat to round-off, near the minimum, the stationarity
    measure of the stopping test decides instead: the epoch is kept unless it raised it by more than
    ``FLAT_FACTOR``. Such an
    epoch costs two mini-batch gradients per update instead of one, and f + h decreases (to
    round-off) monotonically across the variance-reduced epochs.

    Parameters
    ----------
    fun : callable ``fun(x) -> float``, the full objective (f, or f + h with ``prox``); called only
        at epoch ends and at recording points.
    x0 : array-like, the starting point.
    grad_batch : callable ``grad_batch(x, idx) -> ndarray``, the mean of ∇fᵢ(x) over ``idx``.
    n_samples : int, m.
    batch_size, order, schedule, lr, c1, c2 : see above (c2 ≥ 0, the others > 0).
    max_iter : int, the number of epochs at most.
    tol : float ≥ 0. After each epoch, with g the full gradient ``grad_batch(x, arange(m))``, stop
        when ‖g‖∞ ≤ tol (with ``prox``: the gradient mapping ‖(x − prox(x − γg, γ))/γ‖∞, zero exactly
        at a minimizer of f + h) or |f_prev − f| ≤ ftol·max(1, |f|). ``tol=0`` runs exactly
        ``max_iter`` epochs.
    ftol : float ≥ 0 or None (= ``tol``). With decaying steps f can change little from one epoch
        to the next far from the minimum; ``ftol=0`` lets only the gradient decide.
    record_every : int or None. None records one history entry per epoch (at its end, with the full
        gradient or mapping); an int r records after every r-th update (so ⌊total updates / r⌋
        entries; r = 40 is what 000 §2.4.2 intended), with the direction of that update. Each entry
        holds ``x``, ``f``, ``grad_norm`` (‖·‖∞ of the gradient named), ``step`` (γₖ), ``epoch`` and
        ``update``.
    random_state : None, int or RandomState; drives ``"shuffle"`` and ``"uniform"``.
    callback : callable ``callback(x)``, called after each epoch.
    prox : callable ``prox(x, γ) -> x`` or None, the proximal map of γh. Applied after every step
        (proximal SGD): for f + h with a non-smooth h, ``grad_batch`` is the smooth part's and
        ``prox`` is h's proximal map, e.g. soft-thresholding for an L1 term.
    online_prox : callable ``online_prox(x, γ) -> x`` or None (= ``prox``). Replaces ``prox`` after
        the steps of the plain (not variance-reduced) epochs; it may keep state, e.g. the
        cumulative L1 penalty, which keeps the noisy steps from leaving weights jittering around 0.
    variance_reduced_from : int ≥ 1 or None. The first variance-reduced epoch (None: none).

    Returns
    -------
    OptimizeResult
        ``n_iter`` counts epochs (undone ones included); ``grad_norm`` is ‖∇f‖∞ of the full gradient
        (with ``prox``, of the gradient mapping) at the last iterate. A non-finite f in a plain
        epoch ends the run with ``success=False`` (the step is too large).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]); b = np.array([1.0, 2.0, 3.0])  # exact fit (1, 2)
    >>> f = lambda x: 0.5 * np.mean((A @ x - b) ** 2)
    >>> grad = lambda x, idx: A[idx].T @ (A[idx] @ x - b[idx]) / len(idx)
    >>> res = sgd(f, np.zeros(2), grad, n_samples=3, lr=0.3, max_iter=200, tol=0, random_state=0)
    >>> res.x.round(4), res.n_iter
    (array([1., 2.]), 200)

    Without an exact fit a constant step bounces around the minimizer (4/3, 7/3); variance-reduced
    epochs converge to it:

    >>> b = np.array([1.0, 2.0, 4.0])
    >>> sgd(f, np.zeros(2), grad, n_samples=3, lr=0.3, max_iter=200, tol=0, random_state=0).x.round(4)
    array([1.3773, 2.4207])
    >>> res = sgd(f, np.zeros(2), grad, n_samples=3, lr=0.3, max_iter=200, tol=1e-10, ftol=0, random_state=0,
    ...           variance_reduced_from=1)
    >>> (3 * res.x).round(6), res.success
    (array([4., 7.]), True)
    """
    _validate(n_samples=n_samples, batch_size=batch_size, order=order, schedule=schedule, lr=lr, c1=c1, c2=c2,
              max_iter=max_iter, tol=tol)
    for name, value in (("record_every", record_every), ("variance_reduced_from", variance_reduced_from)):
        if value is not None and not Interval(Integral, 1, None, closed="left").is_satisfied_by(value):
            raise ValueError(f"{name} must be None or an int ≥ 1; got {value!r}.")
    if batch_size > n_samples:
        raise ValueError(f"batch_size={batch_size} exceeds n_samples={n_samples}.")
    rng = check_random_state(random_state)
    f_count, history = Counted(fun), []
    everything = np.arange(n_samples)
    online_prox = prox if online_prox is None else online_prox
    x = np.array(x0, dtype=np.float64)
    f, k, g, gamma = f_count(x), 0, None, _step(schedule, 1, lr, c1, c2)
    for epoch in range(1, max_iter + 1):
        reduced = variance_reduced_from is not None and epoch >= variance_reduced_from
        if reduced and g is None:  # the snapshot's full gradient, when no epoch has computed it yet
            g = np.asarray(grad_batch(x, everything), dtype=np.float64)
        z = x
        with np.errstate(over="ignore", invalid="ignore") if reduced else nullcontext():
            for idx in _batches(order, n_samples, batch_size, rng):
                k += 1
                direction = np.asarray(grad_batch(z, idx), dtype=np.float64)
                if reduced:  # vₖ = gₖ(z) − gₖ(x̃) + ∇f(x̃), x̃ = x the epoch's snapshot
                    direction = direction - np.asarray(grad_batch(x, idx), dtype=np.float64) + g
                else:
                    gamma = _step(schedule, k, lr, c1, c2)
                z = z - gamma * direction
                step_prox = prox if reduced else online_prox
                if step_prox is not None:
                    z = step_prox(z, gamma)
                if record_every is not None and k % record_every == 0:
                    record(history, z, f_count(z), direction, gamma, epoch=epoch, update=k)
            f_new = f_count(z)
            g_new = np.asarray(grad_batch(z, everything), dtype=np.float64)
        used = gamma
        if reduced:
            before, measure = _stationarity(x, g, prox, used), _stationarity(z, g_new, prox, used)
            if not _kept(f, f_new, _norm(before), _norm(measure)):  # too long a step: undo the epoch
                gamma /= 2
                if record_every is None:
                    record(history, x, f, before, used, epoch=epoch, update=k)
                if callback is not None:
                    callback(x)
                continue
            gamma *= VR_GROWTH
        x, f_old, f, g = z, f, f_new, g_new
        measure = _stationarity(x, g, prox, used)
        if record_every is None:
            record(history, x, f, measure, used, epoch=epoch, update=k)
        if callback is not None:
            callback(x)
        if not np.isfinite(f):
            return _result(x, f, epoch, False, "f is not finite: the steps are too large", measure, f_count, history)
        reason = stopping_test(measure, f_old, f, tol, ftol) if tol > 0 else None
        if reason is not None:
            return _result(x, f, epoch, True, reason, measure, f_count, history)
    return _result(x, f, max_iter, False, f"max_iter={max_iter} reached", _stationarity(x, g, prox, gamma), f_count,
                   history)


def _kept(f, f_new, before, after):
    """Whether a variance-reduced epoch is kept: it lowered f beyond round-off; or, where f is flat to
    round-off (near the minimum, where f cannot tell two points apart), it kept f there and raised
    the stationarity measure ‖·‖∞ by no more than FLAT_FACTOR. A NaN or infinite f_new is never kept."""
    slack = _ROUNDOFF * abs(f)
    return f_new < f - slack or (f_new <= f + slack and after <= FLAT_FACTOR * before)


def _norm(v):
    return float(np.max(np.abs(v), initial=0.0))


def _stationarity(x, g, prox, gamma):
    """What the stopping test reads: ∇f, or with a proximal term the gradient mapping
    (x − prox(x − γ∇f, γ))/γ, which is zero exactly at a minimizer of f + h."""
    if prox is None:
        return g
    return (x - prox(x - gamma * g, gamma)) / gamma


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
