"""Uniform convergence for a finite hypothesis class: Hoeffding's inequality plus the union bound."""

import math
from numbers import Integral, Real

from sklearn.utils.validation import check_scalar

from ..utils.validation import check_positive

__all__ = ["hoeffding_confidence", "hoeffding_gap", "hoeffding_sample_size"]


def hoeffding_gap(m, delta, n_hypotheses):
    """Largest gap between training and generalization error, for all of a finite class at once.

    For one hypothesis h, the training error ε̂(h) is the mean of m independent Bernoulli
    variables with mean ε(h), so Hoeffding's inequality gives P(|ε(h) − ε̂(h)| > γ) ≤ 2 exp(−2γ²m).
    The union bound over the k hypotheses of H gives

        P(some h ∈ H has |ε(h) − ε̂(h)| > γ) ≤ 2k exp(−2γ²m),

    and setting the right-hand side to δ: with probability at least 1 − δ, every h ∈ H has

        |ε(h) − ε̂(h)| ≤ γ = sqrt( ln(2k/δ) / (2m) ).

    For the ERM choice ĥ this gives ε(ĥ) ≤ min_h ε(h) + 2γ (seeds 000 §8.3–8.4, (8.6)).

    Parameters
    ----------
    m : int
        m ≥ 1, the number of training examples.
    delta : float
        δ in (0, 1): the bound fails with probability at most δ.
    n_hypotheses : int
        k = |H| ≥ 1 (a Python int of any size: ln(2k) is taken exactly, without overflow).

    Returns
    -------
    float
        γ.

    See Also
    --------
    hoeffding_sample_size : the inverse question, m for a given γ.

    Examples
    --------
    >>> from lucidml.theory import hoeffding_gap
    >>> round(hoeffding_gap(1000, 0.05, 100), 4)  # m = 1000 samples, δ = 0.05, k = 100 hypotheses
    0.0644
    """
    k = _check_hypotheses(n_hypotheses)
    m = check_scalar(m, "m", Integral, min_val=1)
    delta = _check_delta(delta)
    return math.sqrt(_log_2k_over_delta(k, delta) / (2.0 * int(m)))


def hoeffding_sample_size(gamma, delta, n_hypotheses):
    """Smallest m for which :func:`hoeffding_gap` is at most γ: the sample complexity of a finite class.

    Solving 2k exp(−2γ²m) ≤ δ for m gives (seeds 000 §8.4)

        m ≥ ln(2k/δ) / (2γ²),

    so that with probability at least 1 − δ every h ∈ H has |ε(h) − ε̂(h)| ≤ γ, and the ERM
    choice is within 2γ of the best hypothesis of H. The result is the smallest integer m with
    ``hoeffding_gap(m, δ, k) <= γ`` (the ceiling of the formula, checked against the gap in
    floating point so that the two functions always agree).

    The notes' worked example (k = 100, γ = 0.1, δ = 0.8, "m ≈ 483") evaluates
    (1/γ²) ln(k/δ) = 100 ln 125 ≈ 482.8 instead of the bound it states: it drops both the
    factor 2 of 2γ² and the 2 of 2k. The stated bound gives 50 ln 250 ≈ 276.1, so m = 277.
    (Note also that δ = 0.8 is the failure probability: the guarantee then holds with
    probability only 0.2.)

    Parameters
    ----------
    gamma : float
        γ > 0, the largest acceptable gap between training and generalization error.
    delta : float
        δ in (0, 1).
    n_hypotheses : int
        k = |H| ≥ 1.

    Returns
    -------
    int
        m.

    Examples
    --------
    >>> from lucidml.theory import hoeffding_sample_size
    >>> hoeffding_sample_size(0.1, 0.8, 100)  # the notes' example, with the bound they state
    277
    """
    k = _check_hypotheses(n_hypotheses)
    gamma = check_positive(gamma, "gamma")
    delta = _check_delta(delta)
    log_term = _log_2k_over_delta(k, delta)
    if not math.isfinite(log_term / (2.0 * gamma) / gamma):  # (γ² itself may underflow to 0)
        raise ValueError(f"gamma={gamma} is so small that the sample size is beyond any float.")
    m = max(1, math.ceil(log_term / (2.0 * gamma) / gamma))
    # The ceiling can be off by one where the formula lands on an integer up to rounding.
    while _gap(log_term, m) > gamma:
        m += 1
    while m > 1 and _gap(log_term, m - 1) <= gamma:
        m -= 1
    return m


def hoeffding_confidence(m, gamma, n_hypotheses):
    """Probability bound δ = min(1, 2k exp(−2γ²m)) that some h ∈ H has a gap larger than γ.

    The third reading of the same inequality (seeds 000 §8.4): given m and γ, the uniform
    convergence |ε(h) − ε̂(h)| ≤ γ for all h ∈ H holds with probability at least 1 − δ.

    Parameters
    ----------
    m : int
        m ≥ 1, the number of training examples.
    gamma : float
        γ > 0.
    n_hypotheses : int
        k = |H| ≥ 1.

    Returns
    -------
    float
        δ in (0, 1]; 1 means the inequality says nothing.

    Examples
    --------
    >>> from lucidml.theory import hoeffding_confidence
    >>> float(f"{hoeffding_confidence(1000, 0.1, 100):.4g}")
    4.122e-07
    """
    k = _check_hypotheses(n_hypotheses)
    m = check_scalar(m, "m", Integral, min_val=1)
    gamma = check_positive(gamma, "gamma")
    log_delta = math.log(2) + math.log(k) - 2.0 * gamma * gamma * int(m)  # in logs: k may be huge
    return 1.0 if log_delta >= 0 else math.exp(log_delta)


def _gap(log_term, m):
    return math.sqrt(log_term / (2.0 * m))


def _log_2k_over_delta(k, delta):
    return math.log(2) + math.log(k) - math.log(delta)


def _check_hypotheses(n_hypotheses):
    return int(check_scalar(n_hypotheses, "n_hypotheses", Integral, min_val=1))


def _check_delta(delta):
    delta = check_scalar(delta, "delta", Real, min_val=0.0, max_val=1.0, include_boundaries="neither")
    if math.isnan(delta):  # NaN passes every comparison check_scalar makes
        raise ValueError("delta must be a number in (0, 1); got nan.")
    return float(delta)
