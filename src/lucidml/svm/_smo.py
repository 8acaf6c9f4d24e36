"""Sequential minimal optimization for the LIBSVM form of the SVM duals.

The solver minimises, over l variables,

    f(α) = ½ αᵀQα + pᵀα    subject to  yᵀα = 0,  0 ≤ αₜ ≤ Cₜ,    Q_st = y_s y_t k(x_σ(s), x_σ(t)),

with yₜ = ±1 and σ(t) the sample behind variable t. The C-SVC dual (seeds: 000 §6.3, (6.10)) is
p = −1, σ = identity; ε-SVR has 2n variables α, α* for the same n samples with y = (+1, −1),
p = (ε − z, ε + z) (Chang & Lin 2011). Both share this one solver.

Optimality (KKT). With Fₜ = −yₜ ∇f(α)ₜ, the sets I_up = {t : yₜαₜ can grow} and
I_low = {t : yₜαₜ can shrink}, α is optimal iff max_{I_up} F ≤ min_{I_low} F; the solver stops
when the gap m_up − M_low falls below ``tol`` (000 (6.17) is this condition per variable).

One iteration (000 (6.11)–(6.14), in the direction form): pick i = argmax_{I_up} Fₜ and, by the
second-order rule of Fan, Chen & Lin (2005), j = argmin over t ∈ I_low with bₜ = F_i − Fₜ > 0 of
−bₜ²/ηₜ, where ηₜ = K_ii + K_tt − 2K_it is the curvature along the pair. Then move
α_i += y_i τ, α_j −= y_j τ with τ = b_j / η clipped to the box (τ is the exact minimiser of
the one-dimensional quadratic). A non-positive η (a non-PSD kernel, or duplicated points)
is replaced by a tiny positive τ-constant, so the step goes to the end of the feasible
segment, which is where the concave or linear objective is lowest (Platt's endpoint rule).
The gradient is kept up to date, ∇f += Q_i Δα_i + Q_j Δα_j, so each iteration needs the
two kernel columns of i and j only; they come from an LRU cache of columns.

Shrinking (Joachims 1998; Chang & Lin 2011 §5): every min(l, 1000) iterations, a variable at a
bound whose F lies beyond the other side's extreme cannot take part in a violating pair and is
set aside; its gradient is later rebuilt from Ḡₜ = Σ_{s at upper bound} C_s Q_st, which is
kept up to date as variables reach or leave the upper bound.
"""

from collections import namedtuple

import numpy as np

from ..utils import njit
from ._cache import column, diagonal, make_cache, set_active

__all__ = ["Dual", "bias_from_gradient", "smo_solve"]

# The problem over l variables: each one's sample σ(t) (sample_of), sign yₜ = ±1, linear term pₜ and upper bound.
Dual = namedtuple("Dual", ["sample_of", "y", "p", "upper"])
# The solver's per-variable state, updated in place: α, F = −y∇f, H = −yḠ and the I_up/I_low flags.
Iterate = namedtuple("Iterate", ["alpha", "F", "H", "flags"])
# How a variable reads the kernel: its entry of a column (sample_of[t], or t when identity) and Q_tt = k(x, x).
VarKernel = namedtuple("VarKernel", ["sample_of", "identity", "qd"])

_TAU = 1e-12  # curvature used where η ≤ 0
_SHRINK_EVERY = 1000
# Iterations between two reads of the cancel flag. An iteration scans all l gradients and may
# compute two kernel columns: a fit of 1,024 iterations on 30,000 × 20 RBF data took 2.3 s on a
# slow 2-core machine (2.0 GHz), past 3 s with the other core busy (a Ctrl-C test's limit), one
# of 64 took 0.16 s; a read costs one byte against O(l) work.
CANCEL_EVERY = 64
_UP, _LOW = 1, 2  # flags: the variable is in I_up / in I_low


@njit
def _flags(yt, a, c):
    """Which of I_up (yₜαₜ can grow) and I_low (yₜαₜ can shrink) the variable belongs to."""
    if yt > 0:
        return (_UP if a < c else 0) | (_LOW if a > 0.0 else 0)
    return (_UP if a > 0.0 else 0) | (_LOW if a < c else 0)


@njit
def _select_i(F, flags, active, n_active):
    """i = argmax_{I_up} F (first-order rule) over the n_active variables ``active`` (all l when n_active = l)."""
    full = n_active == F.shape[0]
    i = -1
    m_up = -np.inf
    for t in range(n_active):
        k = t if full else active[t]
        if flags[k] & _UP and F[k] >= m_up:
            m_up = F[k]
            i = k
    return i, m_up


@njit
def _select_j(F, flags, active, n_active, col_i, q_ii, m_up, vk):
    """j = argmin over t ∈ I_low with bₜ = m_up − Fₜ > 0 of −bₜ²/ηₜ (second-order rule); also min_{I_low} F.

    col_i: the kernel column of i's sample; q_ii = Q_ii; vk: a :data:`VarKernel`.
    """
    sample_of, identity, qd = vk.sample_of, vk.identity, vk.qd
    full = n_active == F.shape[0]
    j = -1
    m_low = np.inf
    best = np.inf
    for t in range(n_active):
        k = t if full else active[t]
        if flags[k] & _LOW:
            f = F[k]
            m_low = min(m_low, f)
            b = m_up - f
            if b > 0.0:
                eta = q_ii + qd[k] - 2.0 * col_i[k if identity else sample_of[k]]
                score = -b * b / (eta if eta > 0.0 else _TAU)
                if score <= best:
                    best = score
                    j = k
    return j, m_low


@njit
def _update_F(F, active, n_active, col_i, col_j, d_i, d_j, vk):
    """F −= d_i k(x_i, ·) + d_j k(x_j, ·) on the active variables (F = −y∇f, dₜ = yₜΔαₜ; vk: a :data:`VarKernel`)."""
    sample_of, identity = vk.sample_of, vk.identity
    full = n_active == F.shape[0]
    for t in range(n_active):
        k = t if full else active[t]
        s = k if identity else sample_of[k]
        F[k] -= d_i * col_i[s] + d_j * col_j[s]


# interpret_small: SMO's work grows faster than its arrays; on 10,000 elements (a thousand rows)
# it takes under a second interpreted (SVR on diabetes, 8,000: 1.4 s).
@njit(interpret_small=10_000)
def smo_solve(kernel, dual, tol, max_iter, shrinking, n_slots, cancel):
    """Minimise ½αᵀQα + pᵀα s.t. yᵀα = 0, 0 ≤ α ≤ upper, starting from α = 0.

    Parameters
    ----------
    kernel : :data:`lucidml.svm._cache.KernelData` (from ``kernel_data``): the (n_s, d) samples X
        (``kind`` 1–4) or an empty array, the (n_s, n_s) Gram matrix (kind 0), kind, gamma, coef0, degree.
    dual : :data:`Dual`: sample_of (l,) sample index of each variable; y (l,) ±1; p (l,); upper (l,) > 0.
    tol, max_iter, shrinking : the stopping gap, the iteration cap, whether to shrink.
    n_slots : columns the LRU cache may hold (kind ≠ 0).
    cancel : (1,) uint8, the cancel flag (``utils._interrupt``), read every ``CANCEL_EVERY`` iterations.

    Returns
    -------
    alpha, grad (∇f at alpha, all l entries), objective per iteration, n_iter,
    status (0 converged, 1 max_iter reached, 2 cancelled), non_psd (η < 0 was met).
    """
    sample_of, y, p, upper = dual.sample_of, dual.y, dual.p, dual.upper
    l = y.shape[0]
    cc = make_cache(kernel, n_slots)
    qd = diagonal(cc)[sample_of]  # k(x, x) per variable
    identity = sample_of.shape[0] == cc.slot_of.shape[0]
    for t in range(l):
        identity = identity and sample_of[t] == t
    alpha = np.zeros(l)
    F = -y * p  # F = −y∇f, and ∇f = p at α = 0
    H = np.zeros(l)  # −y Ḡ, Ḡ = Σ_{s at upper bound} C_s Q_s· (for rebuilding shrunk gradients)
    flags = np.empty(l, dtype=np.int8)
    for t in range(l):
        flags[t] = _flags(y[t], 0.0, upper[t])
    active = np.arange(l)
    n_active = l
    it = Iterate(alpha, F, H, flags)
    vk = VarKernel(sample_of, identity, qd)

    history = np.empty(1024)
    objective = 0.0
    n_iter = 0
    status = 0
    non_psd = False
    unshrunk = False
    counter = min(l, _SHRINK_EVERY)
    recheck = False  # True right after the gradient was rebuilt: check optimality before shrinking again
    while True:
        if shrinking and not recheck:
            counter -= 1
            if counter == 0:
                counter = min(l, _SHRINK_EVERY)
                n_old = n_active
                n_active, unshrunk, grew = _shrink(cc, dual, it, active, n_active, tol, unshrunk)
                if grew or n_active != n_old:
                    set_active(cc, active, n_active, sample_of, grew)

        # --- working set: i by the first-order rule, j by the second-order rule
        i, m_up = _select_i(F, flags, active, n_active)
        j = -1
        m_low = np.inf
        if i >= 0:
            col_i = column(cc, sample_of[i], False)
            j, m_low = _select_j(F, flags, active, n_active, col_i, qd[i], m_up, vk)
        if j < 0 or m_up - m_low < tol:
            if n_active < l:  # optimal on the active set: bring everything back and check again
                _reconstruct(cc, dual, it, active, n_active)
                n_active = l
                active[:] = np.arange(l)
                set_active(cc, active, n_active, sample_of, True)
                counter = 1
                recheck = True
                continue
            break
        recheck = False
        if n_iter >= max_iter:
            status = 1
            break
        if n_iter % CANCEL_EVERY == 0 and cancel[0]:
            status = 2
            break
        n_iter += 1

        # --- the pair step along α_i += y_i τ, α_j −= y_j τ
        col_i = column(cc, sample_of[i], False)
        col_j = column(cc, sample_of[j], False)
        eta_true = qd[i] + qd[j] - 2.0 * col_i[sample_of[j]]
        eta = eta_true
        if eta <= 0.0:
            if eta < -1e-10 * (qd[i] + qd[j] + 1.0):
                non_psd = True
            eta = _TAU
        b = m_up - F[j]
        room_i = upper[i] - alpha[i] if y[i] > 0 else alpha[i]
        room_j = alpha[j] if y[j] > 0 else upper[j] - alpha[j]
        tau = min(b / eta, room_i, room_j)
        old_i = alpha[i]
        old_j = alpha[j]
        alpha[i] = old_i + y[i] * tau
        alpha[j] = old_j - y[j] * tau
        if tau == room_i:  # land exactly on the bound
            alpha[i] = upper[i] if y[i] > 0 else 0.0
        if tau == room_j:
            alpha[j] = 0.0 if y[j] > 0 else upper[j]
        flags[i] = _flags(y[i], alpha[i], upper[i])
        flags[j] = _flags(y[j], alpha[j], upper[j])
        objective += -b * tau + 0.5 * eta_true * tau * tau
        if n_iter > history.shape[0]:
            longer = np.empty(2 * history.shape[0])
            longer[: history.shape[0]] = history
            history = longer
        history[n_iter - 1] = objective
        _update_F(F, active, n_active, col_i, col_j, (alpha[i] - old_i) * y[i], (alpha[j] - old_j) * y[j], vk)

        if shrinking:  # keep H = −yḠ current: whole columns of variables that reach or leave the upper bound
            for v in (i, j):
                old = old_i if v == i else old_j
                if (old >= upper[v]) != (alpha[v] >= upper[v]):
                    col = column(cc, sample_of[v], True)
                    w = upper[v] * y[v] if alpha[v] >= upper[v] else -upper[v] * y[v]
                    for k in range(l):
                        H[k] -= w * col[sample_of[k]]

    if n_active < l:  # stopped by max_iter while shrunk
        _reconstruct(cc, dual, it, active, n_active)
    return alpha, -y * F, history[:n_iter].copy(), n_iter, status, non_psd


@njit
def _shrink(cc, dual, it, active, n_active, tol, unshrunk):
    """Set aside bound variables that cannot join a violating pair; returns (n_active, unshrunk, grew).

    A variable only in I_up with F below min_{I_low} F, or only in I_low with F above
    max_{I_up} F, cannot be one end of a pair with m_up > M_low. ``dual``: the :data:`Dual`;
    ``it``: the :data:`Iterate` (F rebuilt in place when everything is brought back).
    """
    F, flags = it.F, it.flags
    l = F.shape[0]
    m_up = -np.inf
    m_low = np.inf
    for t in range(n_active):
        k = active[t]
        if flags[k] & _UP:
            m_up = max(m_up, F[k])
        if flags[k] & _LOW:
            m_low = min(m_low, F[k])
    grew = False
    if not unshrunk and m_up - m_low <= 10.0 * tol:
        # Close to the end: rebuild every gradient once, undoing any wrong shrinking so far.
        unshrunk = True
        grew = n_active < l
        _reconstruct(cc, dual, it, active, n_active)
        n_active = l
        active[:] = np.arange(l)
    kept = 0
    for t in range(n_active):
        k = active[t]
        if (flags[k] == _UP and F[k] < m_low) or (flags[k] == _LOW and F[k] > m_up):
            continue
        active[kept] = k
        kept += 1
    return kept, unshrunk, grew


@njit
def _reconstruct(cc, dual, it, active, n_active):
    """F of the inactive variables from H: Fₜ = Hₜ − yₜpₜ − Σ_{s free} α_s y_s k(x_s, x_t).

    ``dual``: the :data:`Dual`; ``it``: the :data:`Iterate`, whose F is written in place.
    """
    sample_of, y, p = dual.sample_of, dual.y, dual.p
    alpha, F, H, flags = it.alpha, it.F, it.H, it.flags
    l = y.shape[0]
    if n_active == l:
        return
    is_active = np.zeros(l, dtype=np.bool_)
    for t in range(n_active):
        is_active[active[t]] = True
    inactive = np.flatnonzero(~is_active)
    for k in inactive:
        F[k] = H[k] - y[k] * p[k]
    free = np.empty(n_active, dtype=np.int64)
    n_free = 0
    for t in range(n_active):
        if flags[active[t]] == _UP | _LOW:
            free[n_free] = active[t]
            n_free += 1
    free = free[:n_free]
    if n_free == 0:
        return
    if free.shape[0] * l > 2 * n_active * (l - n_active):
        # few inactive variables: one column (on the active samples) per inactive variable
        for k in inactive:
            col = column(cc, sample_of[k], False)
            acc = 0.0
            for s in free:
                acc += alpha[s] * y[s] * col[sample_of[s]]
            F[k] -= acc
    else:
        # few free variables: one whole column per free variable
        for s in free:
            col = column(cc, sample_of[s], True)
            w = alpha[s] * y[s]
            for k in inactive:
                F[k] -= w * col[sample_of[k]]


def bias_from_gradient(alpha, grad, y, upper):
    """b of f(x) = Σ αₜyₜ k(xₜ, x) + b: −yₜ∇fₜ averaged over free variables, else the middle of its range.

    A free variable sits on its margin, so b = −yₜ∇fₜ exactly there; with none free the KKT
    conditions only bound b, and the midpoint of that interval is taken (libsvm's rule).
    """
    yg = y * grad
    free = (alpha > 0) & (alpha < upper)
    if np.any(free):
        return -float(np.mean(yg[free]))
    at_upper = alpha >= upper
    # −yg must stay ≥ b at I_up-only points and ≤ b at I_low-only points: yg gives the two bounds
    up_only = (at_upper & (y < 0)) | (~at_upper & (y > 0))
    high = np.min(yg[up_only], initial=np.inf)
    low = np.max(yg[~up_only], initial=-np.inf)
    if not np.isfinite(high):
        high = low
    if not np.isfinite(low):
        low = high
    return -0.5 * (high + low)
