"""Binary sub-problems of a multiclass SVC and the bookkeeping that turns their duals into one model."""

import numpy as np

__all__ = ["binary_problems", "collect_support", "ovo_dual_coef", "ovo_votes", "ovr_shape"]


def binary_problems(y_idx, n_classes, keep, scheme):
    """[(positive classes, samples, y ±1)] of each binary problem.

    "ovo": one per pair a < b, in the order (0,1), (0,2), …, (1,2), …, on the samples of a and b
    with y = +1 for a (libsvm's convention); "ovr": one per class c, on all samples, y = +1 for c.
    Two classes give the single problem (0, 1) either way. Samples with ``keep`` False (zero
    weight) are left out: a variable with Cᵢ = 0 can only be 0.
    """
    problems = []
    if scheme == "ovr" and n_classes > 2:
        samples = np.flatnonzero(keep)
        for c in range(n_classes):
            problems.append(((c,), samples, np.where(y_idx[samples] == c, 1.0, -1.0)))
        return problems
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            samples = np.flatnonzero(keep & ((y_idx == a) | (y_idx == b)))
            problems.append(((a, b), samples, np.where(y_idx[samples] == a, 1.0, -1.0)))
    return problems


def collect_support(y_idx, n_classes, problems, solutions):
    """Support vectors of all sub-problems and their coefficients αₜyₜ, one column per sub-problem.

    Returns support (sample indices grouped by class, ascending inside a class, as scikit-learn
    orders them), n_support per class, and coef of shape (n_SV, n_problems).
    """
    is_sv = np.zeros(len(y_idx), dtype=bool)
    for (_, samples, _), sol in zip(problems, solutions):
        is_sv[samples[sol.alpha > 0]] = True
    support = np.concatenate([np.flatnonzero(is_sv & (y_idx == c)) for c in range(n_classes)])
    n_support = np.array([np.sum(is_sv & (y_idx == c)) for c in range(n_classes)], dtype=np.int32)
    position = np.full(len(y_idx), -1)
    position[support] = np.arange(len(support))
    coef = np.zeros((len(support), len(problems)))
    for p, ((_, samples, y), sol) in enumerate(zip(problems, solutions)):
        nonzero = sol.alpha > 0
        coef[position[samples[nonzero]], p] = sol.alpha[nonzero] * y[nonzero]
    return support, n_support, coef


def ovo_dual_coef(y_idx, support, n_classes, problems, coef):
    """scikit-learn's (n_classes − 1, n_SV) layout: the coefficient of an SV of class a in pair (a, b)
    sits in row b − 1, that of an SV of class b in row a."""
    dual = np.zeros((n_classes - 1, len(support)))
    sv_class = y_idx[support]
    for p, ((a, b), _, _) in enumerate(problems):
        in_a = (sv_class == a) & (coef[:, p] != 0)
        in_b = (sv_class == b) & (coef[:, p] != 0)
        dual[b - 1, in_a] = coef[in_a, p]
        dual[a, in_b] = coef[in_b, p]
    return dual


def ovo_votes(decision, n_classes):
    """Class index with the most pairwise wins (pair (a, b) votes a when its value is > 0); ties → lowest."""
    votes = np.zeros((decision.shape[0], n_classes), dtype=np.int64)
    pair = 0
    rows = np.arange(decision.shape[0])
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            winner = np.where(decision[:, pair] > 0, a, b)
            np.add.at(votes, (rows, winner), 1)
            pair += 1
    return np.argmax(votes, axis=1)


def ovr_shape(decision, n_classes):
    """One column per class from the pairwise values: votes plus a confidence in (−⅓, ⅓).

    The confidence of class c is s/(3(|s| + 1)) with s the sum of its pairwise values (taken with
    the sign that favours c), so it breaks ties between equal vote counts but never outweighs a
    vote — the same construction scikit-learn uses for ``decision_function_shape="ovr"``.
    """
    n = decision.shape[0]
    votes = np.zeros((n, n_classes))
    confidence = np.zeros((n, n_classes))
    pair = 0
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            value = decision[:, pair]
            votes[:, a] += value >= 0
            votes[:, b] += value < 0
            confidence[:, a] += value
            confidence[:, b] -= value
            pair += 1
    return votes + confidence / (3.0 * (np.abs(confidence) + 1.0))
