"""The fully connected layer a = g(X W + b)."""

import numpy as np
import scipy.sparse

from ._layer import Layer
from .activations import get_activation

__all__ = ["Dense"]


class Dense(Layer):
    """Fully connected layer: Z = X W + b, A = g(Z), for a batch X of shape (n, n_in).

    Rows are samples, so W has shape (n_in, units) — the transpose of the notes' Wˡ, whose
    row j holds the weights into unit j (seed 002 (9.12)). Back-propagation, for the gradient
    G = ∂L/∂A from the layer above (002 §9.3.3, Theorem 9.3 (b)–(d), batch form):

        δ = G ⊙ g′(Z)        ∂L/∂W = Xᵀ δ        ∂L/∂b = Σᵢ δᵢ        ∂L/∂X = δ Wᵀ

    The products are single BLAS calls into buffers kept from batch to batch; the activation
    is applied in place. X may be a SciPy sparse matrix (first layer only).

    Parameters
    ----------
    units : int
        Number of output units.
    activation : str, default="identity"
        One of :data:`lucidml.neural.activations.ACTIVATIONS`.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.dense import Dense
    >>> layer = Dense(2, activation="relu")
    >>> layer.build((3,))
    (2,)
    >>> layer.bind({"W": np.ones((3, 2)), "b": np.array([0.0, -10.0])}, {"W": np.empty((3, 2)), "b": np.empty(2)})
    >>> layer.forward(np.array([[1.0, 2.0, 3.0]]))
    array([[6., 0.]])
    """

    def __init__(self, units, activation="identity"):
        self.units = units
        self.activation = activation
        self.function = get_activation(activation)

    def _output_shape(self, input_shape):
        if len(input_shape) != 1:
            raise ValueError(f"Dense expects flat inputs; got per-sample shape {input_shape} (add a Flatten).")
        self.param_specs = (("W", (input_shape[0], self.units), True), ("b", (self.units,), False))
        return (self.units,)

    def fans(self):
        return self.input_shape[0], self.units

    def forward(self, X, training=False):
        Z = self._out("Z", (X.shape[0], self.units), self.W.dtype, training)
        if scipy.sparse.issparse(X):
            Z[...] = X @ self.W
        else:
            np.dot(X, self.W, out=Z)
        Z += self.b
        self.function.apply_(Z)
        self._X_all = self._X = X
        self._A_all = self._A = Z
        return Z

    def use_rows(self, rows):
        """Back-propagate later through the rows ``rows`` of the last forward pass (000's per-epoch forward)."""
        self._X, self._A = self._X_all[rows], self._A_all[rows]

    def backward(self, G, need_input_grad=True):
        delta = self.function.backprop_(self._A, G)
        X = self._X
        if scipy.sparse.issparse(X):
            self.dW[...] = X.T @ delta
        else:
            np.dot(X.T, delta, out=self.dW)
        np.sum(delta, axis=0, out=self.db)
        if not need_input_grad:
            return None
        dX = self._ws.get("dX", (delta.shape[0], self.input_shape[0]), delta.dtype)
        return np.dot(delta, self.W.T, out=dX)
