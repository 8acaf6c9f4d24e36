"""Losses, each fused with the output activation that is its canonical link.

For these pairs the output error of back-propagation (seed 002 §9.3.3 (a): δᴸ = ∂C/∂aᴸ ⊙ g′(zᴸ))
collapses to the same expression, δᴸ = aᴸ − y (000 §5.2, Algorithm 3, line 7), so the loss
hands the first layer below it ∂L/∂z directly and no softmax Jacobian is ever formed:

    squared error    identity output   L = 1/n Σᵢ ½ ‖aᵢ − yᵢ‖²
    binary log loss  logistic output   L = −1/n Σᵢ Σₖ [yᵢₖ ln aᵢₖ + (1 − yᵢₖ) ln(1 − aᵢₖ)]
    log loss         softmax output    L = −1/n Σᵢ Σₖ yᵢₖ ln aᵢₖ
    Poisson          exp output        L = 1/n Σᵢ Σₖ [yᵢₖ ln(yᵢₖ/aᵢₖ) − yᵢₖ + aᵢₖ]

and in every case ∂L/∂zᵢ = (aᵢ − yᵢ)/n. With sample weights sᵢ the 1/n becomes sᵢ/Σⱼsⱼ.
Probabilities are clipped to [ε, 1 − ε] (ε = machine epsilon of the dtype) inside the logs.

The squared error sums over outputs, so its value and its gradient agree for several targets;
scikit-learn reports the mean over outputs instead (the same fit, its ``loss_curve_`` is
smaller by the factor n_outputs).
"""

import numpy as np
from scipy.special import xlogy

__all__ = ["LOSSES", "get_loss"]


def _weights(n, sample_weight):
    """The per-sample factor of the mean: 1/n, or sᵢ/Σs."""
    if sample_weight is None:
        return None
    return (sample_weight / sample_weight.sum())[:, None]


def _mean(per_entry, sample_weight):
    """Σₖ over outputs, then the (weighted) mean over samples."""
    if sample_weight is None:
        return float(per_entry.sum() / per_entry.shape[0])
    return float(np.einsum("ik,i->", per_entry, sample_weight) / sample_weight.sum())


class _Loss:
    """value(A, Y) of the output A = g(Z); delta_(A, Y) turns A into ∂L/∂Z in place."""

    @staticmethod
    def delta_(A, Y, sample_weight=None):
        A -= Y
        w = _weights(A.shape[0], sample_weight)
        if w is None:
            A *= 1.0 / A.shape[0]
        else:
            A *= w
        return A


class SquaredError(_Loss):
    name = "squared_error"
    out_activation = "identity"

    @staticmethod
    def value(A, Y, sample_weight=None):
        R = A - Y
        R *= R
        return 0.5 * _mean(R, sample_weight)


class LogLoss(_Loss):
    name = "log_loss"
    out_activation = "softmax"

    @staticmethod
    def value(A, Y, sample_weight=None):
        eps = np.finfo(A.dtype).eps
        return -_mean(xlogy(Y, np.clip(A, eps, 1 - eps)), sample_weight)


class BinaryLogLoss(_Loss):
    name = "binary_log_loss"
    out_activation = "logistic"

    @staticmethod
    def value(A, Y, sample_weight=None):
        eps = np.finfo(A.dtype).eps
        P = np.clip(A, eps, 1 - eps)
        return -_mean(xlogy(Y, P) + xlogy(1 - Y, 1 - P), sample_weight)


class PoissonLoss(_Loss):
    name = "poisson"
    out_activation = "exp"

    @staticmethod
    def value(A, Y, sample_weight=None):
        return _mean(xlogy(Y, Y / A) - Y + A, sample_weight)


LOSSES = {loss.name: loss for loss in (SquaredError, LogLoss, BinaryLogLoss, PoissonLoss)}


def get_loss(name):
    """The loss called ``name`` (one of :data:`LOSSES`)."""
    try:
        return LOSSES[name]
    except KeyError:
        raise ValueError(f"Unknown loss {name!r}; expected one of {sorted(LOSSES)}.") from None
