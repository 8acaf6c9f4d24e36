"""Probabilities for SVMs: Platt's sigmoid on cross-validated decision values, and pairwise coupling.

Platt (1999) maps a decision value f to P(y = +1 | f) = 1 / (1 + exp(A f + B)), fitting A, B by
maximum likelihood on decision values that the model did not train on (here from an internal
5-fold cross-validation), with the regularised targets t₊ = (N₊ + 1)/(N₊ + 2), t₋ = 1/(N₋ + 2).
The fit is Newton's method with a backtracking line search on the cross-entropy, written to stay
finite for any f (Lin, Lin & Weng 2007).

For k > 2 classes each one-vs-one sigmoid gives rᵢⱼ ≈ P(i | i or j); the class probabilities
solve Wu, Lin & Weng's (2004) second coupling problem

    min_p ½ Σᵢ Σ_{j≠i} (rⱼᵢ pᵢ − rᵢⱼ pⱼ)²   subject to Σᵢ pᵢ = 1,

i.e. the linear system [Q 1; 1ᵀ 0] [p; −λ] = [0; 1], Qᵢᵢ = Σ_{j≠i} rⱼᵢ², Qᵢⱼ = −rⱼᵢ rᵢⱼ, solved
here for all samples at once.
"""

import numpy as np

from ..utils.numerics import softplus

__all__ = ["clip_pairwise", "cross_val_decision", "pairwise_coupling", "sigmoid_fit", "sigmoid_predict"]

_MIN_PROB = 1e-7  # pairwise probabilities are kept inside [1e-7, 1 − 1e-7]


def cross_val_decision(fit_decision, y, rng, n_folds=5):
    """Out-of-fold decision values: fit_decision(train_idx, test_idx) on each of ``n_folds`` random folds.

    A training part that holds one class only gives the constant ±1 (0 if empty).
    """
    n = len(y)
    perm = rng.permutation(n)
    decision = np.empty(n)
    for fold in range(n_folds):
        test = perm[fold * n // n_folds: (fold + 1) * n // n_folds]
        if len(test) == 0:
            continue
        train = np.setdiff1d(perm, test, assume_unique=True)
        n_pos, n_neg = np.sum(y[train] > 0), np.sum(y[train] < 0)
        if n_pos > 0 and n_neg > 0:
            decision[test] = fit_decision(np.sort(train), test)
        else:
            decision[test] = 1.0 if n_pos > 0 else (-1.0 if n_neg > 0 else 0.0)
    return decision


def _cross_entropy(z, t):
    """Σ −t log σ(−z) − (1 − t) log σ(z) with p = σ(−z) = 1/(1 + eᶻ), stable for any z.

    −log σ(−z) = softplus(z) and −log σ(z) = softplus(z) − z, so the sum is Σ softplus(z) − (1 − t) z.
    """
    return float(np.sum(softplus(z) - (1.0 - t) * z))


def sigmoid_fit(decision, y, max_iter=100, min_step=1e-10, sigma=1e-12, eps=1e-5):
    """(A, B) of P(y = +1 | f) = 1/(1 + exp(A f + B)) by regularised maximum likelihood."""
    n_pos = np.sum(y > 0)
    n_neg = len(y) - n_pos
    t = np.where(y > 0, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    a, b = 0.0, np.log((n_neg + 1.0) / (n_pos + 1.0))
    value = _cross_entropy(decision * a + b, t)
    for _ in range(max_iter):
        p = sigmoid_predict(decision, a, b)  # P(+1), = 1 − q
        d2 = p * (1.0 - p)
        h11 = sigma + np.sum(decision * decision * d2)
        h22 = sigma + np.sum(d2)
        h21 = np.sum(decision * d2)
        d1 = t - p
        g1, g2 = np.sum(decision * d1), np.sum(d1)
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21  # Newton direction −H⁻¹g (H has σ on the diagonal: never singular)
        da = -(h22 * g1 - h21 * g2) / det
        db = -(-h21 * g1 + h11 * g2) / det
        slope = g1 * da + g2 * db
        step = 1.0
        while step >= min_step:  # backtrack until the Armijo condition holds
            new_value = _cross_entropy(decision * (a + step * da) + (b + step * db), t)
            if new_value < value + 1e-4 * step * slope:
                a, b, value = a + step * da, b + step * db, new_value
                break
            step /= 2.0
        else:
            break
    return float(a), float(b)


def sigmoid_predict(decision, a, b):
    """1/(1 + exp(A f + B)), computed without overflow."""
    z = np.asarray(decision) * a + b
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, e / (1.0 + e), 1.0 / (1.0 + e))


def pairwise_coupling(pairwise, n_classes):
    """Class probabilities from pairwise ones (Wu, Lin & Weng 2004, method 2).

    pairwise : (n, n_pairs) with column (i, j), i < j, in the order (0,1), (0,2), …, holding rᵢⱼ.
    """
    n = pairwise.shape[0]
    r = np.zeros((n, n_classes, n_classes))
    pair = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            r[:, i, j] = pairwise[:, pair]
            r[:, j, i] = 1.0 - pairwise[:, pair]
            pair += 1
    Q = -r.transpose(0, 2, 1) * r  # Qᵢⱼ = −rⱼᵢ rᵢⱼ
    diagonal = np.einsum("nji,nji->ni", r, r)  # Σⱼ rⱼᵢ² (rᵢᵢ = 0)
    idx = np.arange(n_classes)
    Q[:, idx, idx] = diagonal
    system = np.zeros((n, n_classes + 1, n_classes + 1))
    system[:, :n_classes, :n_classes] = Q
    system[:, :n_classes, n_classes] = 1.0
    system[:, n_classes, :n_classes] = 1.0
    rhs = np.zeros((n, n_classes + 1, 1))
    rhs[:, n_classes, 0] = 1.0
    p = np.linalg.solve(system, rhs)[:, :n_classes, 0]
    p = np.clip(p, 0.0, None)  # the solution is non-negative in theory; round-off aside
    return p / p.sum(axis=1, keepdims=True)


def clip_pairwise(prob):
    """rᵢⱼ kept away from 0 and 1, so that every coupling system stays regular."""
    return np.clip(prob, _MIN_PROB, 1.0 - _MIN_PROB)
