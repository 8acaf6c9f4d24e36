"""A sequential network: layers applied in order, gradients back-propagated in reverse.

All parameters live in one flat vector θ = [W¹, W², …, b¹, b², …] (weights first, then
biases, scikit-learn's packing), and all gradients in a flat vector of the same layout; each
layer works on views into the two. The L2 penalty therefore touches the prefix θ[:n_weights]
only, optimizers update the whole vector in a few operations, and L-BFGS sees θ directly.
"""

import numpy as np

from .activations import get_activation
from .dropout import Dropout
from .initializers import initialize

__all__ = ["Sequential"]


class Sequential:
    """Layers in a row, with the output activation applied after the last one.

    The last layer produces the pre-activation Z of the output; ``output`` (the canonical link
    of the loss: identity, logistic, softmax, exp) turns it into predictions, and the fused
    loss gives ∂L/∂Z directly (see :mod:`lucidml.neural.losses`).

    Parameters
    ----------
    layers : list of Layer
    output : str, default="identity"
        The output activation.
    """

    def __init__(self, layers, output="identity"):
        self.layers = list(layers)
        self.output = output

    def build(self, input_shape, *, dtype=np.float64, init="glorot", random_state=None, gain="relu"):
        """Fix the shapes, allocate θ and ∇θ, and initialize the weights by ``init``.

        Layers are initialized in order, weights then bias, from ``random_state`` (a
        RandomState); ``gain`` is the hidden activation the Glorot bound is chosen for.
        """
        rng = np.random.RandomState(random_state) if not isinstance(random_state, np.random.RandomState) \
            else random_state
        shape = tuple(input_shape)
        for layer in self.layers:
            shape = layer.build(shape)
        self.output_shape = shape
        specs = [(layer, name, s, is_w) for layer in self.layers for name, s, is_w in layer.param_specs]
        ordered = [spec for spec in specs if spec[3]] + [spec for spec in specs if not spec[3]]
        sizes = [int(np.prod(s)) for _, _, s, _ in ordered]
        self.n_weights = sum(size for size, spec in zip(sizes, ordered) if spec[3])
        self.theta = np.zeros(sum(sizes), dtype=dtype)
        self.grad = np.zeros(sum(sizes), dtype=dtype)
        self._layout = [(layer, name, s, start, start + size) for (layer, name, s, _), size, start
                        in zip(ordered, sizes, np.cumsum([0] + sizes[:-1]))]
        self._bind()
        for layer in self.parameterized:
            initialize(init, layer.W, layer.b, *layer.fans(), rng, activation=gain)
        for layer in self.layers:
            if isinstance(layer, Dropout):
                layer.rng = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        return self

    def _bind(self):
        params, grads = {}, {}
        for layer, name, shape, start, stop in self._layout:
            params.setdefault(id(layer), {})[name] = self.theta[start:stop].reshape(shape)
            grads.setdefault(id(layer), {})[name] = self.grad[start:stop].reshape(shape)
        self.parameterized = [layer for layer in self.layers if layer.param_specs]
        for layer in self.parameterized:
            layer.bind(params[id(layer)], grads[id(layer)])

    def batch_work(self, batch_size):
        """Multiply-adds of the largest matrix product of one batch (conv: per output position)."""
        work = 0
        for layer in self.parameterized:
            rows = batch_size * int(np.prod(layer.output_shape[:-1]))
            work = max(work, rows * layer.W.size)
        return work

    @property
    def coefs(self):
        return [layer.W for layer in self.parameterized]

    @property
    def intercepts(self):
        return [layer.b for layer in self.parameterized]

    def forward(self, X, training=False):
        """The pre-activation Z of the output layer."""
        for layer in self.layers:
            X = layer.forward(X, training=training)
        return X

    def predict(self, X):
        """The network's output g(Z) for X (fresh arrays, no training buffers)."""
        return get_activation(self.output).apply_(self.forward(X, training=False))

    def backward(self, delta):
        """Back-propagate ∂L/∂Z of the output; fills ``grad`` (the input gradient is not needed)."""
        for i in range(len(self.layers) - 1, -1, -1):
            delta = self.layers[i].backward(delta, need_input_grad=i > 0)

    def loss_and_grad(self, X, Y, loss, alpha=0.0, sample_weight=None):
        """L(θ) + (α/2n)‖W‖² on the batch (n = Σ weights), with its gradient written into ``grad``."""
        A = get_activation(self.output).apply_(self.forward(X, training=True))
        value = loss.value(A, Y, sample_weight)
        self.backward(loss.delta_(A, Y, sample_weight))
        if alpha:
            value += self.add_l2(alpha / (X.shape[0] if sample_weight is None else sample_weight.sum()))
        return value

    def add_l2(self, scale):
        """Add the gradient of (scale/2)‖W‖² to ``grad``; return its value."""
        w = self.theta[: self.n_weights]
        self.grad[: self.n_weights] += scale * w
        return 0.5 * scale * float(w @ w)

    def __getstate__(self):
        state = self.__dict__.copy()
        index = {id(layer): i for i, layer in enumerate(self.layers)}
        state["layers"] = [_strip(layer) for layer in self.layers]
        state.pop("parameterized", None)
        if "_layout" in state:
            state["_layout"] = [(index[id(layer)], *rest) for layer, *rest in self._layout]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "theta" in state:  # rebuild the views into θ and ∇θ that pickling turned into copies
            self._layout = [(self.layers[i], name, shape, start, stop) for i, name, shape, start, stop in self._layout]
            self._bind()


def _strip(layer):
    """A layer without its buffers and parameter views, for pickling (they are rebuilt on load)."""
    from ._layer import Workspace

    state = layer.__dict__.copy()
    for key in [k for k in state if k.startswith("_") and isinstance(state[k], np.ndarray)] + ["W", "b", "dW", "db"]:
        state.pop(key, None)
    state["_ws"] = Workspace()
    clone = object.__new__(type(layer))
    clone.__dict__.update(state)
    return clone
