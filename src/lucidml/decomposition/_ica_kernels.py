"""Numba kernel of ICA: one epoch of stochastic (mini-batch) maximum-likelihood updates."""

import numpy as np

from ..utils import njit


@njit
def _score(s, laplace):
    """d/ds log p(s): 1 − 2σ(s) = −tanh(s/2) for the logistic prior, −sign(s) for the Laplace prior."""
    if laplace:
        return -np.sign(s)
    return -np.tanh(0.5 * s)  # the notes' 1 − 2σ(s), without overflow in exp(−s)


@njit
def ica_epoch(X, W, order, eta, batch_size, laplace, natural):
    """One pass over the rows of X in ``order``, updating the unmixing matrix W in place.

    X may be float32; W, s, g and the sums are float64.

    With s = Wx and g = score(s), each mini-batch B takes the step
        natural gradient (Amari et al. 1996):  W ← W + η (I + mean_B g sᵀ) W
        plain gradient (000 §16):              W ← W + η (mean_B g xᵀ + W⁻ᵀ)
    both ascending the log-likelihood Σᵢ Σⱼ log p(wⱼᵀxᵢ) + m log|det W|.
    """
    m, k = X.shape
    identity = np.eye(k)
    acc = np.empty((k, k))
    s = np.empty(k)
    g = np.empty(k)
    for start in range(0, m, batch_size):
        stop = min(start + batch_size, m)
        acc[:] = 0.0
        for t in range(start, stop):
            x = X[order[t]]
            for j in range(k):
                total = 0.0
                for c in range(k):
                    total += W[j, c] * x[c]
                s[j] = total
                g[j] = _score(total, laplace)
            # Two loops rather than one on ``s if natural else x``: a float32 x and the float64 s
            # have different array types, which Numba cannot unify.
            if natural:
                for a in range(k):
                    for b in range(k):
                        acc[a, b] += g[a] * s[b]
            else:
                for a in range(k):
                    for b in range(k):
                        acc[a, b] += g[a] * x[b]
        acc /= stop - start
        if natural:
            W += eta * ((identity + acc) @ W)
        else:
            W += eta * (acc + np.linalg.inv(W).T)
    return W
