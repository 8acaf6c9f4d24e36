"""Non-overlapping max and average pooling over channels-last images (n, h, w, c)."""

import numpy as np

from ._layer import Layer
from ._pool_kernels import maxpool_backward, maxpool_forward
from .conv import _pair

__all__ = ["AvgPool2D", "MaxPool2D"]


class _Pool(Layer):
    """Shared geometry: windows of ph×pw with stride equal to the window, the remainder cropped.

    A window larger than the image along an axis shrinks to the image size there, so a
    one-row "image" (a plain feature vector) still passes through.
    """

    def __init__(self, pool_size=2):
        self.pool_size = pool_size

    def _output_shape(self, input_shape):
        if len(input_shape) != 3:
            raise ValueError(f"{type(self).__name__} expects images (h, w, channels); got {input_shape}.")
        h, w, c = input_shape
        ph, pw = _pair(self.pool_size)
        self._pool = min(ph, h), min(pw, w)
        return h // self._pool[0], w // self._pool[1], c

    def _blocks(self, X):
        """X cropped and split as (n, oh, ph, ow, pw, c) — a view."""
        (ph, pw), (oh, ow, c) = self._pool, self.output_shape
        return X[:, :oh * ph, :ow * pw].reshape(X.shape[0], oh, ph, ow, pw, c)

    def _input_grad(self, n, dtype):
        h, w, c = self.input_shape
        dX = self._ws.zeros("dX", (n, h, w, c), dtype)
        return dX, self._blocks(dX)


class MaxPool2D(_Pool):
    """Max pooling: out = max over each ph×pw window; the gradient goes to the window's argmax.

        out[i, y, x, c] = max_{u<ph, v<pw} X[i, ph·y + u, pw·x + v, c]
        ∂L/∂X = ∂L/∂out at the first maximizing position of each window, 0 elsewhere

    Parameters
    ----------
    pool_size : int or (int, int), default=2

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.pooling import MaxPool2D
    >>> layer = MaxPool2D(2)
    >>> layer.build((4, 4, 1))
    (2, 2, 1)
    >>> layer.forward(np.arange(16.0).reshape(1, 4, 4, 1))[0, :, :, 0]
    array([[ 5.,  7.],
           [13., 15.]])
    """

    def forward(self, X, training=False):
        shape = (X.shape[0],) + self.output_shape
        out = self._out("out", shape, X.dtype, training)
        self._argmax = self._out("argmax", shape, np.int32, training)
        maxpool_forward(np.ascontiguousarray(X), *self._pool, out, self._argmax)
        return out

    def backward(self, G, need_input_grad=True):
        if not need_input_grad:
            return None
        dX, _ = self._input_grad(G.shape[0], G.dtype)
        maxpool_backward(np.ascontiguousarray(G), self._argmax, *self._pool, dX)
        return dX


class AvgPool2D(_Pool):
    """Average pooling: out = mean over each ph×pw window; the gradient is shared equally.

        ∂L/∂X[i, ph·y + u, pw·x + v, c] = ∂L/∂out[i, y, x, c] / (ph·pw)

    Parameters
    ----------
    pool_size : int or (int, int), default=2

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.pooling import AvgPool2D
    >>> layer = AvgPool2D(2)
    >>> _ = layer.build((2, 2, 1))
    >>> layer.forward(np.arange(4.0).reshape(1, 2, 2, 1)).ravel()
    array([1.5])
    """

    def forward(self, X, training=False):
        return self._blocks(X).mean(axis=(2, 4))

    def backward(self, G, need_input_grad=True):
        if not need_input_grad:
            return None
        ph, pw = self._pool
        dX, blocks = self._input_grad(G.shape[0], G.dtype)
        blocks[...] = G[:, :, None, :, None, :] / (ph * pw)
        return dX
