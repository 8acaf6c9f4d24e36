"""Back-propagation of every layer and loss against central finite differences (float64)."""

import numpy as np
import pytest

from lucidml.neural.activations import Activation
from lucidml.neural.conv import Conv2D
from lucidml.neural.dense import Dense
from lucidml.neural.dropout import Dropout
from lucidml.neural.flatten import Flatten
from lucidml.neural.gradient_check import (
    gradient_check,
    numerical_gradient,
    relative_error,
)
from lucidml.neural.graph_conv import GraphConv, normalized_adjacency
from lucidml.neural.losses import LOSSES
from lucidml.neural.pooling import AvgPool2D, MaxPool2D

TOL = 1e-6
RNG = np.random.default_rng(0)
IMAGES = RNG.normal(size=(2, 5, 6, 3))


def _graph(n=7):
    A = np.triu((RNG.random((n, n)) < 0.4).astype(float), 1)
    return normalized_adjacency(A + A.T)


LAYERS = {
    **{f"dense-{a}": (lambda a=a: Dense(3, activation=a), (5, 4)) for a in ("identity", "logistic", "tanh", "relu")},
    **{f"activation-{a}": (lambda a=a: Activation(a), (5, 4))
       for a in ("identity", "logistic", "tanh", "relu", "exp", "softmax")},
    "conv-same": (lambda: Conv2D(4, activation="tanh"), IMAGES),
    "conv-valid": (lambda: Conv2D(2, kernel_size=2, padding="valid", activation="relu"), IMAGES),
    "conv-stride2": (lambda: Conv2D(3, stride=2), IMAGES),
    "conv-rect-pad1": (lambda: Conv2D(2, kernel_size=(2, 3), stride=(2, 1), padding=1, activation="logistic"), IMAGES),
    "conv-same-strip": (lambda: Conv2D(2, kernel_size=(4, 3), activation="tanh"), (2, 1, 6, 3)),
    "maxpool-2": (lambda: MaxPool2D(2), IMAGES),
    "maxpool-3x2-cropped": (lambda: MaxPool2D((3, 2)), IMAGES),
    "avgpool-2": (lambda: AvgPool2D(2), IMAGES),
    "flatten": (lambda: Flatten(), IMAGES),
    "dropout": (lambda: Dropout(0.5), (5, 4)),
    "graphconv-narrow": (lambda: GraphConv(2, activation="relu", adjacency=_graph()), (7, 4)),
    "graphconv-wide": (lambda: GraphConv(6, activation="tanh", adjacency=_graph()), (7, 4)),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_gradients_match_finite_differences(name):
    make, X = LAYERS[name]
    X = RNG.normal(size=X) if isinstance(X, tuple) else X
    errors = gradient_check(make(), X)
    assert errors, "no gradient was checked"
    assert max(errors.values()) < TOL, errors


def _targets(name, shape):
    if name == "log_loss":
        return np.eye(shape[1])[RNG.integers(0, shape[1], shape[0])]
    if name == "binary_log_loss":
        return (RNG.random(shape) < 0.5).astype(float)
    if name == "poisson":
        return RNG.poisson(2.0, size=shape).astype(float)
    return RNG.normal(size=shape)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_fused_loss_gradient_is_a_minus_y_over_n(name):
    Z = RNG.normal(size=(6, 3))
    assert gradient_check(name, Z, _targets(name, Z.shape))["input"] < TOL


def test_loss_with_sample_weights_has_the_weighted_gradient():
    loss = LOSSES["log_loss"]
    Z, Y, w = RNG.normal(size=(5, 3)), np.eye(3)[[0, 1, 2, 0, 1]], RNG.random(5) + 0.5
    from lucidml.neural.activations import get_activation

    softmax = get_activation("softmax")
    numeric = numerical_gradient(lambda: loss.value(softmax.apply_(Z.copy()), Y, w), Z)
    assert relative_error(loss.delta_(softmax.apply_(Z.copy()), Y, w), numeric) < TOL


def test_gradient_check_detects_a_wrong_backward_pass():
    class BrokenDense(Dense):
        def backward(self, G, need_input_grad=True):
            dX = super().backward(G, need_input_grad)
            self.dW *= 1.01  # a 1 % error in ∂L/∂W
            return dX

    errors = gradient_check(BrokenDense(3, activation="tanh"), RNG.normal(size=(5, 4)))
    assert errors["W"] > 1e-3
    assert errors["input"] < TOL


def test_numerical_gradient_of_a_quadratic():
    x = np.array([1.0, -2.0, 3.0])
    assert np.allclose(numerical_gradient(lambda: float(x @ x), x), 2 * x, atol=1e-8)
    assert np.array_equal(x, [1.0, -2.0, 3.0])  # restored


def test_conv_matches_a_direct_cross_correlation():
    X = RNG.normal(size=(2, 5, 5, 2))
    layer = Conv2D(3, kernel_size=3, padding="valid")
    layer.build(X.shape[1:])
    W, b = RNG.normal(size=(18, 3)), RNG.normal(size=3)
    layer.bind({"W": W, "b": b}, {"W": np.empty_like(W), "b": np.empty_like(b)})
    K = layer.kernel
    direct = np.zeros((2, 3, 3, 3))
    for y in range(3):
        for x in range(3):
            direct[:, y, x, :] = np.einsum("nuvc,uvcf->nf", X[:, y:y + 3, x:x + 3, :], K) + b
    assert np.allclose(layer.forward(X), direct, atol=1e-12)


@pytest.mark.parametrize("shape, kernel, stride, shrunk", [
    ((2, 1, 6, 2), (3, 3), 1, (1, 3)),  # a 1 × d strip: a 1-D convolution
    ((2, 2, 7, 1), (5, 4), 1, (3, 4)),
    ((2, 2, 7, 1), (4, 3), 2, (3, 3)),  # even kernel, stride 2
])
def test_same_padding_drops_only_taps_that_never_meet_the_image(shape, kernel, stride, shrunk):
    """A "same" kernel longer than 2n − 1 along an axis of n pixels gives what the full kernel gives
    on the zero-padded image, whatever its outer taps hold."""
    X = RNG.normal(size=shape)
    layer = Conv2D(3, kernel_size=kernel, stride=stride)
    layer.build(X.shape[1:])
    (kh, kw), c = kernel, shape[3]
    full = RNG.normal(size=(kh, kw, c, 3))  # the full kernel; its outer taps are arbitrary
    (top, left) = ((kh - 1) // 2, (kw - 1) // 2)
    u0, v0 = top - (shrunk[0] - 1) // 2, left - (shrunk[1] - 1) // 2
    W = np.ascontiguousarray(full[u0:u0 + shrunk[0], v0:v0 + shrunk[1]]).reshape(-1, 3)
    b = RNG.normal(size=3)
    layer.bind({"W": W, "b": b}, {"W": np.empty_like(W), "b": np.empty_like(b)})
    assert layer.kernel.shape == shrunk + (c, 3)
    padded = np.pad(X, ((0, 0), (top, kh - 1 - top), (left, kw - 1 - left), (0, 0)))
    oh, ow = (padded.shape[1] - kh) // stride + 1, (padded.shape[2] - kw) // stride + 1
    direct = np.empty((shape[0], oh, ow, 3))
    for y in range(oh):
        for x in range(ow):
            window = padded[:, stride * y:stride * y + kh, stride * x:stride * x + kw, :]
            direct[:, y, x, :] = np.einsum("nuvc,uvcf->nf", window, full) + b
    assert np.allclose(layer.forward(X), direct, atol=1e-12)


def test_maxpool_routes_ties_to_one_position():
    layer = MaxPool2D(2)
    layer.build((2, 2, 1))
    out = layer.forward(np.ones((1, 2, 2, 1)), training=True)
    dX = layer.backward(np.full_like(out, 3.0))
    assert dX.sum() == 3.0 and np.count_nonzero(dX) == 1


def test_normalized_adjacency_is_symmetric_with_spectrum_in_minus_one_one():
    A_hat = _graph(10).toarray()
    assert np.allclose(A_hat, A_hat.T)
    eig = np.linalg.eigvalsh(A_hat)
    assert eig.max() <= 1 + 1e-12 and eig.min() > -1


def test_bad_layer_input_raises():
    with pytest.raises(ValueError, match="flat"):
        Dense(2).build((3, 3))
    with pytest.raises(ValueError, match="images"):
        Conv2D(2).build((9,))
    with pytest.raises(ValueError, match="square"):
        normalized_adjacency(np.ones((2, 3)))
    with pytest.raises(ValueError, match="Dropout rate"):
        Dropout(1.0)
