"""The simplified SMO of the notes (000 Alg 6): every KKT violator j tries random partners i.

A teaching solver, for comparison with the production solver of ``_smo.py``. It works on the
C-SVC dual  max W(α) = Σαᵢ − ½ΣΣ αᵢαⱼyᵢyⱼKᵢⱼ,  Σαᵢyᵢ = 0,  0 ≤ αᵢ ≤ Cᵢ  (000 §6.3, (6.10)),
with the whole Gram matrix in memory (n² floats) and an error cache Eₖ = f(xₖ) − yₖ.

One sweep: for every j violating the KKT conditions by more than ``tol`` (000 (6.17)), the other
indices are tried in random order, without replacement, until one step succeeds or the candidates
run out (the notes' "until False" loop ends there). For a partner i, with s = yᵢyⱼ:

    [L, H]  the segment of (6.13)/(6.14) (with per-sample bounds Cᵢ, Cⱼ),
    η = Kᵢᵢ + Kⱼⱼ − 2Kᵢⱼ,  αⱼ′ = clip(αⱼ + yⱼ(Eᵢ − Eⱼ)/η, L, H)              (6.11)
    αᵢ′ = αᵢ + s(αⱼ − αⱼ′)                                                  (6.12)
    b from (6.15) if αⱼ′ is free, else (6.16) if αᵢ′ is free, else their mean,

skipping the pair when L = H or |Δαⱼ| < 1e−5. ⚠ The notes write η with the opposite sign and skip
only η = 0; here η ≤ 0 (a non-PSD kernel or duplicated points) is handled by Platt's endpoint
rule: W is evaluated at both ends of the segment and the better one taken. The solver stops
after ``max_passes`` consecutive sweeps that change nothing (or ``max_iter`` sweeps).
"""

import numpy as np

from ..utils import njit
from ._kernel import block_rows, kernel_block

__all__ = ["simplified_smo"]

_MIN_STEP = 1e-5  # the notes' threshold on |Δαⱼ|


def simplified_smo(X, gram, kind, gamma, coef0, degree, sample_of, y, upper, tol, max_passes, max_iter, random_state):
    """Run 000 Alg 6 on the samples ``sample_of``; same outputs as :func:`lucidml.svm._smo.smo_solve`.

    ``max_iter`` caps the number of sweeps. ``random_state`` (a RandomState) draws the seed of
    the partner order.
    """
    if kind == 0:
        K = np.ascontiguousarray(gram[np.ix_(sample_of, sample_of)])
    else:
        rows = block_rows(X, sample_of)
        K = kernel_block(rows, rows, kind, gamma, coef0, degree)
    seed = int(random_state.randint(np.iinfo(np.int32).max))
    return _simplified_loop(K, y, upper, tol, max_passes, max_iter, seed)


@njit
def _simplified_loop(K, y, upper, tol, max_passes, max_iter, seed):
    np.random.seed(seed)  # Numba's own generator, seeded from random_state; NumPy's is untouched
    n = y.shape[0]
    alpha = np.zeros(n)
    b = 0.0
    error = -y.copy()  # E = f − y with f ≡ 0 at α = 0, b = 0
    objective = 0.0  # −W(α), the minimised form
    history = np.empty(max(1, min(max_iter, 100_000)))
    passes = 0
    sweeps = 0
    non_psd = False
    while passes < max_passes and sweeps < max_iter:
        changed = 0
        for j in range(n):
            yj_ej = y[j] * error[j]
            if not ((yj_ej < -tol and alpha[j] < upper[j]) or (yj_ej > tol and alpha[j] > 0.0)):
                continue
            for i in np.random.permutation(n):
                if i == j:
                    continue
                s = y[i] * y[j]
                if s > 0:  # (6.13): αᵢ + αⱼ is fixed
                    low = max(0.0, alpha[i] + alpha[j] - upper[i])
                    high = min(upper[j], alpha[i] + alpha[j])
                else:  # (6.14): αⱼ − αᵢ is fixed
                    low = max(0.0, alpha[j] - alpha[i])
                    high = min(upper[j], upper[i] + alpha[j] - alpha[i])
                if low >= high:
                    continue
                eta = K[i, i] + K[j, j] - 2.0 * K[i, j]
                slope = y[j] * (error[i] - error[j])  # dW/dαⱼ along the constraint line
                if eta > 0.0:
                    new_j = min(max(alpha[j] + slope / eta, low), high)
                else:  # W is convex along the line: take the better end (Platt 1998)
                    non_psd = non_psd or eta < -1e-10 * (K[i, i] + K[j, j] + 1.0)
                    gain_low = slope * (low - alpha[j]) - 0.5 * eta * (low - alpha[j]) ** 2
                    gain_high = slope * (high - alpha[j]) - 0.5 * eta * (high - alpha[j]) ** 2
                    new_j = low if gain_low > gain_high else high
                step_j = new_j - alpha[j]
                if abs(step_j) < _MIN_STEP:
                    continue
                # Snap to the box (Platt 1998): round-off would leave αᵢ at 1e-17 or C − 1e-16, which
                # later reads as a free support vector and skews b.
                new_j = _snap(new_j, upper[j], alpha[j] + abs(step_j))
                step_j = new_j - alpha[j]
                new_i = _snap(alpha[i] - s * step_j, upper[i], alpha[i] + abs(step_j))
                step_i = new_i - alpha[i]
                # (6.15)/(6.16): b that puts the free one of the pair on its margin
                b_j = b - error[j] - y[i] * K[i, j] * step_i - y[j] * K[j, j] * step_j
                b_i = b - error[i] - y[i] * K[i, i] * step_i - y[j] * K[i, j] * step_j
                if 0.0 < new_j < upper[j]:
                    new_b = b_j
                elif 0.0 < new_i < upper[i]:
                    new_b = b_i
                else:
                    new_b = 0.5 * (b_i + b_j)
                objective -= slope * step_j - 0.5 * eta * step_j * step_j
                for k in range(n):  # the error cache
                    error[k] += y[i] * step_i * K[i, k] + y[j] * step_j * K[j, k] + new_b - b
                alpha[i] = new_i
                alpha[j] = new_j
                b = new_b
                changed += 1
                break
        if sweeps < history.shape[0]:
            history[sweeps] = objective
        sweeps += 1
        passes = passes + 1 if changed == 0 else 0
    grad = y * (error - b)  # ∇(½αᵀQα − Σα) = y(E − b)
    status = 0 if passes >= max_passes else 1
    return alpha, grad, history[: min(sweeps, history.shape[0])].copy(), sweeps, status, non_psd


@njit
def _snap(a, upper, scale):
    """a, or the bound 0 or ``upper`` when it is within round-off of it.

    ``scale`` is the size of the terms that a was summed from: the round-off near 0 is relative to
    them, not to ``upper`` (with C · sample_weight near 1e300, a tolerance of 1e-12 · upper snapped
    every α to 0, and the sweeps never ended).
    """
    if a < 1e-12 * max(min(scale, upper), 1.0):
        return 0.0
    if a > upper - 1e-12 * max(upper, 1.0):
        return upper
    return a
