"""What every layer shares: the forward/backward contract and reusable work buffers.

A layer maps a batch ``X`` of shape (n, *input_shape) to (n, *output_shape). Its parameters
(if any) are views into one flat vector owned by the network (:mod:`._network`), so an
optimizer updates all of them with a handful of vector operations and L-BFGS needs no packing.

The contract, for a batch X and the gradient G = ∂L/∂(output) coming from above:

    forward(X, training)            → output, remembering what backward needs
    backward(G, need_input_grad)    → ∂L/∂X (or None), and writes ∂L/∂θ into the bound gradient views

During training the outputs and gradients live in buffers that are allocated once and reused
for every batch (a smaller last batch uses the leading rows); at inference (``training=False``)
fresh arrays are returned, so a prediction never aliases a training buffer.
"""

import numpy as np

__all__ = ["Layer", "Workspace"]


class Workspace:
    """Named scratch arrays, grown on demand and reused: ``get(name, shape, dtype)`` → a view."""

    def __init__(self):
        self._arrays = {}

    def get(self, name, shape, dtype):
        array = self._arrays.get(name)
        if array is None or array.dtype != dtype or array.shape[1:] != tuple(shape[1:]) or array.shape[0] < shape[0]:
            array = np.empty(shape, dtype=dtype)
            self._arrays[name] = array
        return array[: shape[0]]

    def zeros(self, name, shape, dtype):
        array = self.get(name, shape, dtype)
        array.fill(0)
        return array


class Layer:
    """Base of all layers. Subclasses override the methods they need.

    Attributes set by :meth:`build`: ``input_shape`` and ``output_shape`` (per sample).
    Parameterized layers list ``param_specs`` as (name, shape, is_weight) and receive their
    views through :meth:`bind`; ``is_weight`` marks the arrays the L2 penalty acts on.
    """

    param_specs = ()

    def build(self, input_shape):
        """Fix the per-sample input shape; return the per-sample output shape."""
        self.input_shape = tuple(input_shape)
        self.output_shape = self._output_shape(self.input_shape)
        self._ws = Workspace()
        return self.output_shape

    def _output_shape(self, input_shape):
        return input_shape

    def fans(self):
        """(fan_in, fan_out) of the weights, for the initializers."""
        raise NotImplementedError

    def bind(self, params, grads):
        """Receive the parameter and gradient views (dicts keyed by the names of ``param_specs``)."""
        for name, _, _ in self.param_specs:
            setattr(self, name, params[name])
            setattr(self, "d" + name, grads[name])

    def forward(self, X, training=False):
        raise NotImplementedError

    def backward(self, G, need_input_grad=True):
        raise NotImplementedError

    def _out(self, name, shape, dtype, training):
        """An output array: a reused buffer while training, a fresh one otherwise."""
        return self._ws.get(name, shape, dtype) if training else np.empty(shape, dtype=dtype)

    def __repr__(self):
        return f"{type(self).__name__}({getattr(self, 'output_shape', '')})"
