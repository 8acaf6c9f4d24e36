"""Activation functions g and the factor they contribute to back-propagation.

Back-propagation (seed 002 §9.3.3, Theorem 9.3 (b); 000 §5.2) multiplies the incoming gradient
by g′(z) elementwise: δ = (∂L/∂a) ⊙ g′(z). Every activation here can write g′ from its own
output a = g(z), so layers keep only a and update in place:

    identity   a = z                        g′ = 1
    logistic   a = 1 / (1 + e^(−z))         g′ = a (1 − a)
    tanh       a = tanh z                   g′ = 1 − a²
    relu       a = max(z, 0)                g′ = 1 if a > 0 else 0
    exp        a = e^z                      g′ = a        (Poisson output only)
    softmax    aₖ = e^(zₖ) / Σⱼ e^(zⱼ)      ∂L/∂zₖ = aₖ (∂L/∂aₖ − Σⱼ aⱼ ∂L/∂aⱼ)

ReLU′(0): the notes (004 §11) take ReLU′(0) = 1; this module reads the derivative off the output,
where a = 0 covers both z = 0 and z < 0, so g′ = 0 there, as scikit-learn does. The two differ
only on a set of measure zero; the gradient checks avoid z = 0.

Softmax subtracts the row maximum first (max-shifted), so e^z never overflows.
"""

import numpy as np
from scipy.special import expit

from ._layer import Layer

__all__ = ["ACTIVATIONS", "Activation", "get_activation"]


class _Identity:
    name = "identity"

    @staticmethod
    def apply_(Z):
        return Z

    @staticmethod
    def backprop_(A, G):
        return G


class _Logistic:
    name = "logistic"

    @staticmethod
    def apply_(Z):
        return expit(Z, out=Z)  # SciPy's ufunc: no overflow warning for very negative z

    @staticmethod
    def backprop_(A, G):
        G *= A
        G *= 1 - A
        return G


class _Tanh:
    name = "tanh"

    @staticmethod
    def apply_(Z):
        return np.tanh(Z, out=Z)

    @staticmethod
    def backprop_(A, G):
        G *= 1 - A * A
        return G


class _ReLU:
    name = "relu"

    @staticmethod
    def apply_(Z):
        return np.maximum(Z, 0, out=Z)

    @staticmethod
    def backprop_(A, G):
        return np.multiply(G, A > 0, out=G)  # ~15× faster than masked assignment


class _Exp:
    name = "exp"  # the output of a Poisson regression

    @staticmethod
    def apply_(Z):
        return np.exp(Z, out=Z)

    @staticmethod
    def backprop_(A, G):
        G *= A
        return G


class _Softmax:
    name = "softmax"

    @staticmethod
    def apply_(Z):
        Z -= _row_reduce(np.maximum, Z)[:, None]
        np.exp(Z, out=Z)
        Z /= _row_reduce(np.add, Z)[:, None]
        return Z

    @staticmethod
    def backprop_(A, G):
        G -= np.einsum("ij,ij->i", A, G)[:, None]
        G *= A
        return G


# Rows at least this many, of at most SHORT_ROW classes, are reduced column by column.
MANY_ROWS = 1024
SHORT_ROW = 32


def _row_reduce(ufunc, Z):
    """``ufunc.reduce(Z, axis=1)``. NumPy reduces each row of a short last axis (a few classes) as a
    loop of tiny reductions: for many rows, a loop over the columns is about 3× faster (softmax of
    12,500 × 5 scores: 0.91 → 0.32 ms)."""
    n, k = Z.shape
    if n < MANY_ROWS or k > SHORT_ROW:
        return ufunc.reduce(Z, axis=1)
    out = Z[:, 0].copy()
    for j in range(1, k):
        ufunc(out, Z[:, j], out=out)
    return out


ACTIVATIONS = {act.name: act for act in (_Identity, _Logistic, _Tanh, _ReLU, _Exp, _Softmax)}


def get_activation(name):
    """The activation called ``name`` (one of :data:`ACTIVATIONS`)."""
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise ValueError(f"Unknown activation {name!r}; expected one of {sorted(ACTIVATIONS)}.") from None


class Activation(Layer):
    """An activation as a layer of its own: a = g(z) elementwise (softmax: per row).

    Dense, Conv2D and GraphConv apply their activation in place on their own output, which is
    faster; this stand-alone layer copies, so it never overwrites the array it was given.

    Parameters
    ----------
    name : {"identity", "logistic", "tanh", "relu", "exp", "softmax"}

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.activations import Activation
    >>> layer = Activation("relu")
    >>> _ = layer.build((3,))
    >>> layer.forward(np.array([[-1.0, 0.5, 2.0]]))
    array([[0. , 0.5, 2. ]])
    >>> layer.backward(np.ones((1, 3)))
    array([[0., 1., 1.]])
    """

    def __init__(self, name):
        self.name = name
        self.function = get_activation(name)

    def forward(self, X, training=False):
        if self.name == "softmax" and X.ndim != 2:
            raise ValueError("softmax needs a 2-D input (n_samples, n_classes).")
        self._A = self.function.apply_(np.array(X, copy=True))
        return self._A

    def backward(self, G, need_input_grad=True):
        if not need_input_grad:
            return None
        return self.function.backprop_(self._A, np.array(G, copy=True))
