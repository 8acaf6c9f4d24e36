"""Compiled loops of the self-organizing map: the best-matching units and the online training."""

from collections import namedtuple

import numpy as np

from ..utils import njit

# A unit whose neighbourhood weight h is below e⁻³⁰ ≈ 10⁻¹³ is not moved (the move would be
# ~10⁻¹³ of its distance to the sample), which spares the exp() of far units late in training.
H_CUTOFF_EXPONENT = 30.0

# The online training's schedule, one entry per step t: the row drawn ``samples[t]``, the
# neighbourhood radius ``sigma[t]`` and the learning rate ``eta[t]``.
Schedule = namedtuple("Schedule", ["samples", "sigma", "eta"])


@njit
def nearest_units(X, W):
    """Best-matching unit, second-best unit and distance ‖x − w_bmu‖ of every row x of X.

    Distances are summed from the differences (no ‖x‖² − 2x·w + ‖w‖² cancellation); a tie goes
    to the lower unit index. With a single unit the second-best is −1.
    """
    n, d = X.shape
    n_units = W.shape[0]
    best = np.empty(n, dtype=np.intp)
    second = np.empty(n, dtype=np.intp)
    dist = np.empty(n)
    for i in range(n):
        b, s = -1, -1
        db, ds = np.inf, np.inf
        for k in range(n_units):
            acc = 0.0
            for j in range(d):
                diff = X[i, j] - W[k, j]
                acc += diff * diff
            if acc < db:
                s, ds = b, db
                b, db = k, acc
            elif acc < ds:
                s, ds = k, acc
        best[i] = b
        second[i] = s
        dist[i] = np.sqrt(db)
    return best, second, dist


@njit
def sum_by_unit(X, bmu, n_units):
    """Σ_{i: bmu_i = k} x_i and the count of those i, for every unit k."""
    sums = np.zeros((n_units, X.shape[1]))
    counts = np.zeros(n_units)
    for i in range(X.shape[0]):
        k = bmu[i]
        counts[k] += 1.0
        for j in range(X.shape[1]):
            sums[k, j] += X[i, j]
    return sums, counts


@njit
def train_online(X, W, lattice, schedule, gaussian, block, curve):
    """Kohonen's stochastic SOM (002 Alg 8.12), one drawn sample x = X[samples[t]] per step t of
    the :class:`Schedule` (``samples``, ``sigma``, ``eta``):

        bmu = argmin_k ‖x − w_k‖²                         (competition)
        h_k = exp(−‖r_k − r_bmu‖² / 2σ(t)²)               (cooperation; bubble: 1 if ‖r_k − r_bmu‖ ≤ σ(t), else 0)
        w_k ← w_k + η(t) h_k (x − w_k)   for every unit k (adaptation)

    with r_k the lattice position of unit k. W is updated in place; ``curve[t // block]``
    accumulates ‖x − w_bmu‖ before the update.
    """
    samples, sigma, eta = schedule.samples, schedule.sigma, schedule.eta
    n_units, d = W.shape
    for t in range(samples.shape[0]):
        i = samples[t]
        bmu = 0
        best = np.inf
        for k in range(n_units):
            acc = 0.0
            for j in range(d):
                diff = X[i, j] - W[k, j]
                acc += diff * diff
            if acc < best:
                bmu, best = k, acc
        curve[t // block] += np.sqrt(best)
        two_sigma2 = 2.0 * sigma[t] * sigma[t]
        for k in range(n_units):
            g0 = lattice[k, 0] - lattice[bmu, 0]
            g1 = lattice[k, 1] - lattice[bmu, 1]
            g2 = g0 * g0 + g1 * g1
            if gaussian:
                if g2 > H_CUTOFF_EXPONENT * two_sigma2:
                    continue
                step = eta[t] * np.exp(-g2 / two_sigma2)
            else:
                if g2 > sigma[t] * sigma[t]:
                    continue
                step = eta[t]
            for j in range(d):
                W[k, j] += step * (X[i, j] - W[k, j])
