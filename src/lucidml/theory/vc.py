"""The VC generalization bound, up to its constant, and the VC dimension of large-margin classifiers."""

import math
from numbers import Integral

from sklearn.utils.validation import check_scalar

from ..utils.validation import check_positive
from .hoeffding import _check_delta

__all__ = ["margin_vc_dimension", "vc_bound"]


def vc_bound(m, vc_dim, delta, constant=1.0):
    """The VC bound on the gap between training and generalization error, with a given constant.

    If H has VC dimension d, then with probability at least 1 − δ every h ∈ H satisfies
    (seeds 000 §8.5)

        |ε(h) − ε̂(h)| ≤ O( sqrt( (d/m) ln(m/d) + (1/m) ln(1/δ) ) ),

    and hence ε(ĥ) ≤ ε(h*) + twice that for the ERM choice ĥ. The notes leave the constant of
    the O(·) unspecified (its value depends on the proof), so it is a parameter here: the
    result is ``constant * sqrt(d/m · ln(m/d) + ln(1/δ)/m)``. With the default of 1 it shows
    how the bound scales with d, m and δ, not a certified number.

    Parameters
    ----------
    m : int
        m ≥ d, the number of training examples: below d samples the logarithm is negative and
        the bound says nothing.
    vc_dim : int
        d ≥ 1 (e.g. n + 1 for linear classifiers in ℝⁿ, 000 §8.5).
    delta : float
        δ in (0, 1).
    constant : float, default=1.0
        The constant c > 0 in front of the square root.

    Returns
    -------
    float

    Examples
    --------
    >>> from lucidml.theory import vc_bound
    >>> round(vc_bound(1000, 3, 0.05), 4)  # m = 1000 samples, d = 3, δ = 0.05
    0.1429
    >>> round(vc_bound(1000, 3, 0.05, constant=2.0), 4)
    0.2858
    """
    m = int(check_scalar(m, "m", Integral, min_val=1))
    d = int(check_scalar(vc_dim, "vc_dim", Integral, min_val=1))
    delta = _check_delta(delta)
    constant = check_positive(constant, "constant")
    if m < d:
        raise ValueError(f"The VC bound needs m >= vc_dim; got m={m} < vc_dim={d}.")
    # (math.log of the ints themselves, and 1/m as 0 where m is beyond any float)
    inverse_m = 1.0 / m if m < 2**1023 else 0.0
    return constant * math.sqrt(inverse_m * (d * (math.log(m) - math.log(d)) + math.log(1.0 / delta)))


def margin_vc_dimension(radius, margin):
    """Upper bound ⌈R²/(4γ²)⌉ + 1 on the VC dimension of classifiers with margin γ on data in a ball of radius R.

    For large-margin classifiers the VC dimension need not grow with the number of features
    (seeds 000 §8.5): if every ‖x‖ ≤ R and every point is at distance at least γ from the
    decision boundary, VC(H) ≤ ⌈R²/(4γ²)⌉ + 1. Feed it the radius and margin that
    :func:`lucidml.theory.max_margin` or :func:`lucidml.theory.perceptron_mistake_bound` measure.

    Parameters
    ----------
    radius : float
        R > 0.
    margin : float
        γ > 0.

    Returns
    -------
    int

    Examples
    --------
    >>> from lucidml.theory import margin_vc_dimension
    >>> margin_vc_dimension(10.0, 1.0)
    26
    """
    radius = check_positive(radius, "radius")
    margin = check_positive(margin, "margin")
    bound = (radius / margin) ** 2 / 4.0 if radius / margin < 1e150 else math.inf
    if not math.isfinite(bound):
        raise ValueError(f"R²/(4γ²) is beyond any float for radius={radius} and margin={margin}.")
    return math.ceil(bound) + 1
