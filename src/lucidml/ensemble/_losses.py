"""Losses of gradient boosting: start value, gradients, leaf values and the reported loss.

Each loss works on raw predictions ``raw`` of shape (n_samples, K) — K = 1 except for the
multinomial log-loss — and supplies what Alg 11 of 000 §7.8.4 needs:

- ``baseline(y, w)``: f₀ = argmin_μ Σ wᵢ L(yᵢ, μ) (line 1);
- ``gradients(y, raw, w)``: g[k, i] = wᵢ ∂L/∂f_k and h[k, i] = wᵢ ∂²L/∂f_k² (line 3; tree k is
  fitted to the working target rᵢ = −g[k, i]/wᵢ; h is None when it is 1 everywhere);
- leaf values γ = argmin_γ Σ_leaf L(yᵢ, fᵢ + γ) (line 5): one Newton step −Σg/Σh for the smooth
  losses (over each leaf's samples, by the booster), the exact minimiser ``leaf_value`` for the others;
- ``__call__(y, raw, w)``: the weighted mean loss on the scale of scikit-learn's
  ``train_score_`` (squared error reports the MSE and binary log-loss the deviance 2·NLL,
  as scikit-learn does for backward compatibility);
- the smooth losses (squared error, the log-losses) also have ``gradients_and_loss(y, raw, w,
  out=None)``: both in one pass, into the booster's :data:`GradientArrays` when given.
"""

import math
from collections import namedtuple

import numpy as np
from numba import prange
from scipy.special import expit

from ..utils import njit

__all__ = ["LOSSES", "GradientArrays", "gradient_arrays", "weighted_quantile"]


def weighted_quantile(values, weights, q):
    """The smallest value v with Σ_{x ≤ v} w ≥ q·Σw (NumPy's 'inverted_cdf' with weights).

    This is scikit-learn's weighted percentile, so an even number of unit-weight values gives
    the lower median.
    """
    if weights is None:
        return np.quantile(values, q, method="inverted_cdf")
    order, cumulative, k = _weighted_position(values, weights, q)
    return values[order[k]]


def _weighted_position(values, weights, q):
    """(sorting order, cumulative weights in that order, the position k of the smallest value with
    Σ_{x ≤ v} w ≥ q·Σw)."""
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    return order, cumulative, min(int(np.searchsorted(cumulative, q * cumulative[-1], side="left")), values.size - 1)


def start_quantile(y, w, q):
    """f₀ of the quantile losses (absolute error, Huber, pinball): without weights scikit-learn's,
    NumPy's linear quantile; with weights :func:`weighted_quantile` (scikit-learn's weighted start
    too), but midway to the next value of positive weight when exactly q·Σw lies at or below the
    first. The lower value alone can leave every sign gradient equal: a balanced 0/1 target
    started at 0, each tree had one working target to fit, and the model stayed constant."""
    if w is None:
        return float(np.quantile(y, q))
    order, cumulative, k = _weighted_position(y, w, q)
    if cumulative[k] == q * cumulative[-1]:
        later = np.flatnonzero(w[order[k + 1:]] > 0)
        if later.size:
            return 0.5 * (y[order[k]] + y[order[k + 1 + later[0]]])
    return y[order[k]]


def _average(x, w):
    # An all-zero-weight subset (e.g. an out-of-bag sample) has no mean: NaN, not an error.
    return np.average(x, weights=w) if w is None or w.sum() > 0 else np.nan


_NO_WEIGHT = np.empty(0)


# The per-sample passes below run in parallel over fixed chunks of rows; each chunk's partial
# sums are added in chunk order afterwards, so the reported loss does not depend on the
# number of threads.
_CHUNK = 8192


@njit
def _n_chunks(n):
    return (n + _CHUNK - 1) // _CHUNK


@njit
def _mean(totals, weights):
    weight = weights.sum()
    return totals.sum() / weight if weight > 0 else np.nan


@njit(parallel=True, interpret_small=True)
def _binomial_gradients(y, f, e, log1p_e, w, g, h):
    """g = w(p − y), h = w·p(1 − p) with p = σ(f), and the mean loss at f, in one pass.

    ``e`` = e^{−|f|} and ``log1p_e`` = log(1 + e) come computed (by NumPy's vectorized functions:
    :meth:`_BinomialLogLoss.gradients_and_loss`). With q = 1/(1 + e), p is q (f ≥ 0) or e·q, and
    log(1 + eᶠ) = max(f, 0) + log(1 + e). A w of size 0 means unit weights.
    """
    n = f.shape[0]
    totals, weights = np.zeros(_n_chunks(n)), np.zeros(_n_chunks(n))
    for c in prange(_n_chunks(n)):
        total = 0.0
        weight = 0.0
        for i in range(c * _CHUNK, min(n, (c + 1) * _CHUNK)):
            q = 1.0 / (1.0 + e[i])
            p = q if f[i] >= 0 else e[i] * q
            wi = w[i] if w.shape[0] else 1.0
            g[i] = wi * (p - y[i])
            h[i] = wi * p * (1.0 - p)
            total += wi * (max(f[i], 0.0) + log1p_e[i] - y[i] * f[i])
            weight += wi
        totals[c], weights[c] = total, weight
    return _mean(totals, weights)


@njit(interpret_small=True)
def _softmax_rows(raw):
    """Row-wise softmax, max-shifted so no exponent overflows."""
    p = np.empty_like(raw)
    for i in range(raw.shape[0]):
        m = raw[i].max()
        s = 0.0
        for k in range(raw.shape[1]):
            p[i, k] = math.exp(raw[i, k] - m)
            s += p[i, k]
        for k in range(raw.shape[1]):
            p[i, k] /= s
    return p


@njit(parallel=True, interpret_small=True)
def _multinomial_gradients(y, raw, w, g, h):
    """g[k] = w(p_k − 1[y = k]), h[k] = w·p_k(1 − p_k), p = softmax(f), and the mean loss at f."""
    n, n_classes = raw.shape
    totals, weights = np.zeros(_n_chunks(n)), np.zeros(_n_chunks(n))
    for c in prange(_n_chunks(n)):
        p = np.empty(n_classes)
        total = 0.0
        weight = 0.0
        for i in range(c * _CHUNK, min(n, (c + 1) * _CHUNK)):
            m = raw[i].max()
            s = 0.0
            for k in range(n_classes):
                p[k] = math.exp(raw[i, k] - m)
                s += p[k]
            wi = w[i] if w.shape[0] else 1.0
            for k in range(n_classes):
                pk = p[k] / s
                g[k, i] = wi * (pk - (1.0 if y[i] == k else 0.0))
                h[k, i] = wi * pk * (1.0 - pk)
            total += wi * (m + math.log(s) - raw[i, y[i]])
            weight += wi
        totals[c], weights[c] = total, weight
    return _mean(totals, weights)


# What a loss's ``gradients_and_loss`` writes into: g and h (n_trees, n) and the loss's scratch
# (``scratch_rows`` × n). The boosting loop passes the same arrays at every stage: a new array of
# a stage's size is new memory whose pages fault in again each time (a third of the gradient
# pass at 500,000 rows).
GradientArrays = namedtuple("GradientArrays", ["g", "h", "scratch"])


def gradient_arrays(loss, n):
    """New :data:`GradientArrays` for ``loss`` on n samples."""
    return GradientArrays(np.empty((loss.n_trees, n)), np.empty((loss.n_trees, n)), np.empty((loss.scratch_rows, n)))


class _SquaredError:
    """L = ½(y − f)²: g = f − y, h = 1; the Newton leaf is the mean residual (exact)."""

    n_trees = 1
    newton = True
    constant_hessian = True
    scratch_rows = 1  # the squared residuals

    def baseline(self, y, w):
        return np.array([_average(y, w)])

    def gradients(self, y, raw, w):
        return self.gradients_and_loss(y, raw, w)[:2]

    def gradients_and_loss(self, y, raw, w, out=None):
        """(g, h, the loss at raw), written into ``out`` (:data:`GradientArrays`) when given; h is
        None without weights."""
        g, h, scratch = gradient_arrays(self, raw.shape[0]) if out is None else out
        residual = np.subtract(raw[:, 0], y, out=g[0])
        value = _average(np.square(residual, out=scratch[0]), w)
        if w is None:
            return g, None, value
        np.multiply(residual, w, out=g[0])
        h[0] = w
        return g, h, value

    def __call__(self, y, raw, w):
        return _average((y - raw[:, 0]) ** 2, w)


class _AbsoluteError:
    """L = |y − f|: g = −sign(y − f) (the sign residuals), γ = weighted median of y − f."""

    n_trees = 1
    newton = False
    constant_hessian = True

    def baseline(self, y, w):
        return np.array([start_quantile(y, w, 0.5)])

    def gradients(self, y, raw, w):
        g = np.where(raw[:, 0] > y, 1.0, -1.0)  # −sign(y − f), with sign(0) = +1
        return (g[None], None) if w is None else ((w * g)[None], w[None].copy())

    def leaf_value(self, residual, w):
        return weighted_quantile(residual, w, 0.5)

    def __call__(self, y, raw, w):
        return _average(np.abs(y - raw[:, 0]), w)


class _QuantileError:
    """Pinball loss L = α(y − f)⁺ + (1 − α)(f − y)⁺: g = 1[y < f] − α, γ = α-quantile of y − f."""

    n_trees = 1
    newton = False
    constant_hessian = True

    def __init__(self, alpha):
        self.alpha = alpha

    def baseline(self, y, w):
        return np.array([start_quantile(y, w, self.alpha)])

    def gradients(self, y, raw, w):
        g = np.where(y >= raw[:, 0], -self.alpha, 1.0 - self.alpha)
        return (g[None], None) if w is None else ((w * g)[None], w[None].copy())

    def leaf_value(self, residual, w):
        return weighted_quantile(residual, w, self.alpha)

    def __call__(self, y, raw, w):
        d = y - raw[:, 0]
        return _average(np.where(d >= 0, self.alpha * d, (self.alpha - 1.0) * d), w)


class _Huber:
    """Huber loss with δ = the α-quantile of |y − f| at the current stage (Friedman 2001).

    L = ½r² for |r| ≤ δ, δ(|r| − δ/2) beyond; g = −clip(r, −δ, δ) with r = y − f; the leaf
    is Friedman's one-step estimate γ = r̃ + mean(sign(r − r̃)·min(δ, |r − r̃|)), r̃ = median r.
    """

    n_trees = 1
    newton = False
    constant_hessian = True

    def __init__(self, alpha):
        self.alpha = alpha
        self.delta = None

    def baseline(self, y, w):
        return np.array([start_quantile(y, w, 0.5)])

    def gradients(self, y, raw, w):
        r = y - raw[:, 0]
        self.delta = float(weighted_quantile(np.abs(r), w, self.alpha))
        g = -np.clip(r, -self.delta, self.delta)
        return (g[None], None) if w is None else ((w * g)[None], w[None].copy())

    def leaf_value(self, residual, w):
        median = weighted_quantile(residual, w, 0.5)
        d = residual - median
        return median + _average(np.sign(d) * np.minimum(self.delta, np.abs(d)), w)

    def __call__(self, y, raw, w):
        r = np.abs(y - raw[:, 0])
        delta = self.delta if self.delta is not None else float(weighted_quantile(r, w, self.alpha))
        return _average(np.where(r <= delta, 0.5 * r**2, delta * (r - 0.5 * delta)), w)


class _BinomialLogLoss:
    """L = log(1 + eᶠ) − y f with p = σ(f): g = p − y, h = p(1 − p); leaf Σr / Σp(1−p)."""

    n_trees = 1
    newton = True
    constant_hessian = False
    leaf_factor = 1.0
    scratch_rows = 2  # e^{−|f|} and log(1 + e^{−|f|})

    def baseline(self, y, w):
        p = np.clip(_average(y, w), 1e-15, 1 - 1e-15)
        return np.array([np.log(p / (1 - p))])

    def gradients(self, y, raw, w):
        return self.gradients_and_loss(y, raw, w)[:2]

    def gradients_and_loss(self, y, raw, w, out=None):
        """(g, h, the loss at raw): the loss comes almost free with the gradients; written into
        ``out`` (:data:`GradientArrays`) when given."""
        g, h, scratch = gradient_arrays(self, raw.shape[0]) if out is None else out
        f = np.ascontiguousarray(raw[:, 0])
        # e^{−|f|} and log(1 + e^{−|f|}) by NumPy's vectorized exp and log1p: a fifth of the time
        # of the scalar functions that a compiled loop calls. (Not into g and h: the compiled
        # parallel loop takes its arrays to be distinct, and may write g before it reads e.)
        e = np.exp(np.negative(np.abs(f, out=scratch[0]), out=scratch[0]), out=scratch[0])
        log1p_e = np.log1p(e, out=scratch[1])
        value = _binomial_gradients(y, f, e, log1p_e, _NO_WEIGHT if w is None else w, g[0], h[0])
        return g, h, 2.0 * value

    def probabilities(self, raw):
        p = expit(raw[:, 0])
        return np.column_stack((1.0 - p, p))

    def __call__(self, y, raw, w):
        return self.gradients_and_loss(y, raw, w)[2]  # one kernel for both; the gradients are cheap


class _MultinomialLogLoss:
    """L = log Σ_c e^{f_c} − f_y with p = softmax(f): tree k fits g = p_k − 1[y = k], h = p_k(1 − p_k).

    Friedman's leaf (K − 1)/K · Σr/Σ|r|(1 − |r|) is the Newton step times (K − 1)/K.
    """

    newton = True
    constant_hessian = False
    scratch_rows = 0

    def __init__(self, n_classes):
        self.n_trees = n_classes
        self.leaf_factor = (n_classes - 1) / n_classes

    def baseline(self, y, w):
        prior = np.bincount(y, weights=w, minlength=self.n_trees)
        prior = np.clip(prior / prior.sum(), 1e-15, None)
        return np.log(prior)

    def gradients(self, y, raw, w):
        return self.gradients_and_loss(y, raw, w)[:2]

    def gradients_and_loss(self, y, raw, w, out=None):
        """(g, h, the loss at raw); all K trees of a stage fit the gradients at the same f. Written
        into ``out`` (:data:`GradientArrays`) when given."""
        g, h, _ = gradient_arrays(self, raw.shape[0]) if out is None else out
        value = _multinomial_gradients(y, np.ascontiguousarray(raw), _NO_WEIGHT if w is None else w, g, h)
        return g, h, value

    def probabilities(self, raw):
        return _softmax_rows(np.ascontiguousarray(raw))

    def __call__(self, y, raw, w):
        return self.gradients_and_loss(y, raw, w)[2]


LOSSES = {
    "squared_error": lambda alpha, n_classes: _SquaredError(),
    "absolute_error": lambda alpha, n_classes: _AbsoluteError(),
    "huber": lambda alpha, n_classes: _Huber(alpha),
    "quantile": lambda alpha, n_classes: _QuantileError(alpha),
    "log_loss": lambda alpha, n_classes: _BinomialLogLoss() if n_classes == 2 else _MultinomialLogLoss(n_classes),
}
