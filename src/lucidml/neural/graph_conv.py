"""The graph convolution of Kipf & Welling (2017): each node mixes its neighbours' features."""

import numpy as np
import scipy.sparse

from ._layer import Layer
from .activations import get_activation

__all__ = ["GraphConv", "normalized_adjacency"]


def normalized_adjacency(A):
    """Â = D̃^(−½) (A + I) D̃^(−½), with D̃ the diagonal degree matrix of A + I (sparse CSR).

    The self-loop keeps each node's own features; the symmetric scaling keeps repeated
    multiplication by Â from blowing up or shrinking the features of high-degree nodes.
    """
    A = scipy.sparse.csr_array(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"The adjacency matrix must be square; got shape {A.shape}.")
    if not np.all(np.isfinite(A.data)):
        raise ValueError("The adjacency matrix contains NaN or infinity.")
    if np.any(A.data < 0):
        raise ValueError("The adjacency matrix must have non-negative entries.")
    A_tilde = A + scipy.sparse.eye_array(A.shape[0], format="csr")
    d = np.asarray(A_tilde.sum(axis=1)).ravel()
    scale = scipy.sparse.dia_array((1.0 / np.sqrt(d), 0), shape=A.shape)
    return (scale @ A_tilde @ scale).tocsr()


class GraphConv(Layer):
    """Graph convolution H′ = g(Â H W + b) over all n nodes of a graph at once.

    Â (n × n, usually sparse) is set as ``layer.adjacency`` before the forward pass; the
    "batch" dimension is the node dimension. The product is taken in the cheaper order,
    Â (H W) when the layer narrows the features, (Â H) W otherwise. Back-propagation, with
    δ = ∂L/∂H′ ⊙ g′(Z):

        ∂L/∂W = (Â H)ᵀ δ = Hᵀ (Âᵀ δ)        ∂L/∂b = Σ δ        ∂L/∂H = Âᵀ δ Wᵀ

    Parameters
    ----------
    units : int
    activation : str, default="identity"
    adjacency : array or sparse matrix of shape (n, n), optional
        Â itself (already normalized, see :func:`normalized_adjacency`).

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.graph_conv import GraphConv, normalized_adjacency
    >>> A_hat = normalized_adjacency(np.array([[0, 1], [1, 0]]))
    >>> A_hat.toarray()
    array([[0.5, 0.5],
           [0.5, 0.5]])
    >>> layer = GraphConv(1, adjacency=A_hat)
    >>> _ = layer.build((1,))
    >>> layer.bind({"W": np.ones((1, 1)), "b": np.zeros(1)}, {"W": np.empty((1, 1)), "b": np.empty(1)})
    >>> layer.forward(np.array([[2.0], [0.0]])).ravel()
    array([1., 1.])
    """

    def __init__(self, units, activation="identity", adjacency=None):
        self.units = units
        self.activation = activation
        self.function = get_activation(activation)
        self.adjacency = adjacency

    def _output_shape(self, input_shape):
        if len(input_shape) != 1:
            raise ValueError(f"GraphConv expects node feature rows; got per-node shape {input_shape}.")
        self.param_specs = (("W", (input_shape[0], self.units), True), ("b", (self.units,), False))
        return (self.units,)

    def fans(self):
        return self.input_shape[0], self.units

    def forward(self, X, training=False):
        Z = self.apply(X, self.adjacency)
        self._X, self._A = X, Z
        return Z

    def apply(self, X, A):
        """g(Â X W + b) for the graph ``A`` (Â), keeping nothing on the layer: concurrent
        predictions on different graphs each pass their own."""
        if A is None or A.shape != (X.shape[0], X.shape[0]):
            raise ValueError(f"GraphConv needs an adjacency of shape {(X.shape[0], X.shape[0])}.")
        if self.units <= self.input_shape[0]:
            Z = np.asarray(A @ (X @ self.W))
        else:
            Z = np.asarray(A @ X) @ self.W
        Z = np.ascontiguousarray(Z, dtype=self.W.dtype)
        Z += self.b
        self.function.apply_(Z)
        return Z

    def backward(self, G, need_input_grad=True):
        delta = self.function.backprop_(self._A, G)
        At_delta = np.asarray(self.adjacency.T @ delta)
        np.dot(self._X.T, At_delta, out=self.dW)
        np.sum(delta, axis=0, out=self.db)
        if not need_input_grad:
            return None
        return At_delta @ self.W.T
