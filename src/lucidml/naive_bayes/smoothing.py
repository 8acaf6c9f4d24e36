"""Additive (Laplace) smoothing of counts into probabilities."""

import numpy as np

__all__ = ["laplace_smoothing"]


def laplace_smoothing(counts, alpha=1.0, axis=-1):
    """(count + α) / (total + α·k): counts of k outcomes along ``axis`` turned into probabilities.

    α = 1 is Laplace's rule of succession, α = 0.5 the expected-likelihood estimate, α = 0 the
    maximum-likelihood frequencies. With α > 0 no outcome gets probability 0, so an event
    never seen in training (a new word) cannot zero out a whole product of probabilities
    (seeds: 000 §4.6, 003 §5.3). ``alpha`` may also be an array broadcasting against
    ``counts`` (one pseudo-count per outcome); the denominator then adds their sum.

    Examples
    --------
    >>> laplace_smoothing([3, 0, 1])
    array([0.57142857, 0.14285714, 0.28571429])
    >>> laplace_smoothing([[2, 0], [0, 0]], alpha=1.0, axis=1)
    array([[0.75, 0.25],
           [0.5 , 0.5 ]])
    """
    counts = np.asarray(counts, dtype=np.float64)
    smoothed = counts + alpha
    return smoothed / smoothed.sum(axis=axis, keepdims=True)
