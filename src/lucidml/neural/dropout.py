"""Inverted dropout (Srivastava et al. 2014)."""

import numpy as np

from ._layer import Layer

__all__ = ["Dropout"]


class Dropout(Layer):
    """While training, zero each input with probability p and scale the survivors by 1/(1 − p).

        a = x ⊙ m / (1 − p),  mᵢ ~ Bernoulli(1 − p)        ∂L/∂x = ∂L/∂a ⊙ m / (1 − p)

    The scaling keeps E[a] = x, so at inference the layer is the identity. The mask comes from
    ``rng`` (a NumPy Generator the network seeds from its ``random_state``).

    Parameters
    ----------
    rate : float in [0, 1)
        The drop probability p.
    rng : numpy.random.Generator, optional

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.dropout import Dropout
    >>> layer = Dropout(0.5, rng=np.random.default_rng(0))
    >>> _ = layer.build((1000,))
    >>> out = layer.forward(np.ones((1, 1000)), training=True)
    >>> sorted(set(out.ravel().tolist()))
    [0.0, 2.0]
    >>> bool(np.all(layer.forward(np.ones((1, 3))) == 1.0))
    True
    """

    def __init__(self, rate, rng=None):
        if not 0 <= rate < 1:
            raise ValueError(f"Dropout rate must be in [0, 1); got {rate}.")
        self.rate = rate
        self.rng = np.random.default_rng() if rng is None else rng

    def forward(self, X, training=False):
        if not training or self.rate == 0:
            self._mask = None
            return X
        mask = self._ws.get("mask", X.shape, X.dtype)
        keep = self.rng.random(X.shape) >= self.rate
        np.multiply(keep, 1.0 / (1.0 - self.rate), out=mask)
        self._mask = mask
        out = self._ws.get("out", X.shape, X.dtype)
        return np.multiply(X, mask, out=out)

    def backward(self, G, need_input_grad=True):
        if not need_input_grad:
            return None
        return G if self._mask is None else G * self._mask
