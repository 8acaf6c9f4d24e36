"""Flatten: images (n, h, w, c) to rows (n, h·w·c), so a Dense layer can follow a convolution."""

import numpy as np

from ._layer import Layer

__all__ = ["Flatten"]


class Flatten(Layer):
    """Reshape each sample to a vector; back-propagation reshapes the gradient back.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.flatten import Flatten
    >>> layer = Flatten()
    >>> layer.build((2, 2, 3))
    (12,)
    >>> layer.forward(np.zeros((5, 2, 2, 3))).shape
    (5, 12)
    """

    def _output_shape(self, input_shape):
        return (int(np.prod(input_shape)),)

    def forward(self, X, training=False):
        return X.reshape(X.shape[0], -1)

    def backward(self, G, need_input_grad=True):
        return G.reshape((G.shape[0],) + self.input_shape) if need_input_grad else None
