"""Impurity criteria of the CART trees: node impurities, node values, and the split "proxy".

A node holding weighted class counts n_k (total W) or targets yᵢ with weights wᵢ has impurity

    gini               I = 1 − Σ_k p_k²                 p_k = n_k / W
    entropy            I = −Σ_k p_k log₂ p_k
    misclassification  I = 1 − max_k p_k
    squared_error      I = Σ wᵢ (yᵢ − ȳ)² / W           value ȳ (weighted mean)
    absolute_error     I = Σ wᵢ |yᵢ − m| / W            value m (weighted median)

(seeds: 000 §7.6–7.7, 002 (5.67), 004 §12). A split of a node into children c minimises
Σ_c W_c I_c. Dropping the terms that do not depend on the split, every criterion becomes a
*proxy* to maximise that is cheap to update while a sorted sweep moves one sample left:

    gini               Σ_c Σ_k n_ck² / W_c
    entropy            Σ_c (Σ_k n_ck ln n_ck − W_c ln W_c)
    misclassification  Σ_c max_k n_ck
    squared_error      Σ_c S_c² / W_c                    S_c = Σ_{i∈c} wᵢ yᵢ
    absolute_error     −Σ_c Σ_{i∈c} wᵢ |yᵢ − m_c|
    newton             Σ_c G_c² / (H_c + λ)              G_c = Σ_{i∈c} gᵢ, H_c = Σ_{i∈c} hᵢ

The last is gradient boosting's (000 §7.8.4; XGBoost/LightGBM): a tree fitted to gradients gᵢ
and hessians hᵢ scores a split by half its gain Σ_c G_c²/(H_c + λ) − G²/(H + λ). With λ = 0 it
is the squared error's proxy for the targets −gᵢ/hᵢ with weights hᵢ, which is why one histogram
layout (count, Σh, −Σg) and one split search serve both.

The proxies hold for any number of children, so a multiway categorical split (004 §12) and a
binary threshold split are compared on the same scale.
"""

import numpy as np

from ..utils import njit

GINI = 0
ENTROPY = 1
MISCLASSIFICATION = 2
SQUARED_ERROR = 3
ABSOLUTE_ERROR = 4
NEWTON = 5  # gradient boosting's second-order gain; its trees carry no per-sample targets

CLASSIFICATION_CRITERIA = {"gini": GINI, "entropy": ENTROPY, "log_loss": ENTROPY,
                           "misclassification": MISCLASSIFICATION}
REGRESSION_CRITERIA = {"squared_error": SQUARED_ERROR, "absolute_error": ABSOLUTE_ERROR}

_LN2 = np.log(2.0)


# Split proxies closer than this (relative) are tied. The same split can be scored from sums
# rounded differently (a weight of 2 against a repeated sample; a sparse column's zeros moved
# at once, from the node's sums minus the rest; histogram subtraction), and the first candidate
# (the feature drawn first, the smallest threshold) must then win either way, so that a sparse,
# dense or histogram search of the same data grows the same tree. Regression targets are
# centred first (``_base``), so that proxies are on the scale of the gains they compare.
TIE = 1e-12


@njit(inline="always")
def beats(proxy, best):
    """Whether a split scoring ``proxy`` beats the best so far by more than rounding."""
    return proxy > best and (best == -np.inf or proxy - best > TIE * abs(best))


@njit(inline="always")
def beats_ranked(proxy, rank, best, best_rank):
    """Whether a candidate from a feature of rank ``rank`` beats the best so far: a higher proxy
    (:func:`beats`), or the same to rounding from a feature of lower rank (drawn earlier, or of a
    lower random rank: ``_random.feature_rank``)."""
    if beats(proxy, best):
        return True
    return rank < best_rank and not beats(best, proxy)


@njit
def xlogx(x):
    """x ln x with 0 ln 0 = 0."""
    return x * np.log(x) if x > 0.0 else 0.0


@njit
def class_impurity(counts, total, criterion):
    """Impurity of a node from its weighted class counts."""
    if total <= 0.0:
        return 0.0
    if criterion == GINI:
        s = 0.0
        for c in counts:
            s += (c / total) ** 2
        return 1.0 - s
    if criterion == ENTROPY:
        h = 0.0
        for c in counts:
            if c > 0.0:
                p = c / total
                h -= p * np.log(p)
        return h / _LN2
    best = 0.0
    for c in counts:
        best = max(best, c)
    return 1.0 - best / total


@njit
def class_proxy(counts, total, criterion):
    """One child's term of the proxy (see the module docstring) from its class counts."""
    if total <= 0.0:
        return 0.0
    if criterion == GINI:
        s = 0.0
        for c in counts:
            s += c * c
        return s / total
    if criterion == ENTROPY:
        s = 0.0
        for c in counts:
            s += xlogx(c)
        return s - xlogx(total)
    best = 0.0
    for c in counts:
        best = max(best, c)
    return best


@njit
def class_counts(idx, start, end, yk, w, out):
    """Weighted class counts of the samples idx[start:end] into ``out``; returns their total."""
    for k in range(out.size):
        out[k] = 0.0
    total = 0.0
    for p in range(start, end):
        i = idx[p]
        out[yk[i]] += w[i]
        total += w[i]
    return total


@njit
def weighted_median(y, w):
    """Weighted median: the value where the cumulative weight of the sorted targets crosses W/2.

    When a prefix holds exactly half the weight, the midpoint of the two values around it
    (scikit-learn's convention, so leaf values agree).
    """
    order = np.argsort(y)
    half = 0.5 * np.sum(w)
    cum = 0.0
    prev = -1
    for k in range(order.size):
        i = order[k]
        if w[i] <= 0.0:
            continue
        if cum == half and prev >= 0:
            return 0.5 * (y[prev] + y[i])
        cum += w[i]
        if cum > half:
            return y[i]
        prev = i
    return y[order[order.size - 1]]


@njit
def regression_stats(idx, start, end, y, w, criterion, work_y, work_w):
    """(value, impurity, W, constant) of the samples idx[start:end].

    The squared error is computed in two passes (mean, then squared deviations), which keeps
    every digit even when the mean is large against the spread. ``work_y``/``work_w`` (buffers
    for the absolute error's median) are None for the squared error: Numba then leaves the
    median's code out.
    """
    total = 0.0
    s = 0.0
    lo = np.inf
    hi = -np.inf
    n = end - start
    for p in range(start, end):
        i = idx[p]
        total += w[i]
        s += w[i] * y[i]
        lo = min(lo, y[i])
        hi = max(hi, y[i])
    constant = lo == hi
    if criterion == SQUARED_ERROR:
        mean = s / total
        if constant:
            return lo, 0.0, total, True
        ss = 0.0
        for p in range(start, end):
            i = idx[p]
            d = y[i] - mean
            ss += w[i] * d * d
        return mean, ss / total, total, False
    if work_y is None:
        return np.nan, np.nan, total, constant
    for p in range(start, end):
        work_y[p - start] = y[idx[p]]
        work_w[p - start] = w[idx[p]]
    if constant:
        return lo, 0.0, total, True
    median = weighted_median(work_y[:n], work_w[:n])
    ae = 0.0
    for k in range(n):
        ae += work_w[k] * abs(work_y[k] - median)
    return median, ae / total, total, False


# What a sweep does with a candidate threshold (see admissible).
SCORE, SKIP, STOP = 0, 1, 2


@njit
def admissible(n_left, n, w_left, total, msl, mwl):
    """Whether a sweep scores the threshold after n_left of the node's n samples (SCORE), skips it
    (SKIP: a child below min_samples_leaf or min_weight_leaf), or stops (STOP: the right child
    is already too small)."""
    if n_left < msl:
        return SKIP
    if n - n_left < msl:
        return STOP
    if w_left < mwl or total - w_left < mwl:
        return SKIP
    return SCORE
