"""Checking back-propagation against central finite differences.

For a scalar function f and a step ε, each partial derivative is estimated by

    ∂f/∂xⱼ ≈ (f(x + ε eⱼ) − f(x − ε eⱼ)) / 2ε        (error O(ε²))

and compared with the analytic gradient g through the relative error
‖g − ĝ‖ / (‖g‖ + ‖ĝ‖), which in float64 with ε = 1e-6 is around 1e-9 for a correct gradient
and of order 1 for a wrong one.
"""

import numpy as np

from ._network import Sequential
from .activations import get_activation
from .losses import get_loss

__all__ = ["gradient_check", "numerical_gradient", "relative_error"]


def numerical_gradient(f, x, eps=1e-6):
    """Central-difference gradient of the scalar function f at x (x is perturbed in place, then restored)."""
    grad = np.zeros(x.shape, dtype=np.float64)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    if not np.shares_memory(flat, x):
        raise ValueError("x must be contiguous so that it can be perturbed in place.")
    for j in range(flat.size):
        saved = flat[j]
        flat[j] = saved + eps
        f_plus = f()
        flat[j] = saved - eps
        f_minus = f()
        flat[j] = saved
        gflat[j] = (f_plus - f_minus) / (2 * eps)
    return grad


def relative_error(a, b):
    """‖a − b‖ / (‖a‖ + ‖b‖), and 0 when both are zero."""
    a, b = np.ravel(a), np.ravel(b)
    scale = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if scale == 0 else float(np.linalg.norm(a - b) / scale)


def gradient_check(target, X, y=None, *, eps=1e-6, random_state=0):
    """Relative errors of back-propagated gradients against finite differences.

    Parameters
    ----------
    target : Layer or str
        A layer (unbuilt; it is built for ``X.shape[1:]`` and its parameters initialized), or
        the name of a loss from :data:`lucidml.neural.losses.LOSSES`.
    X : ndarray
        A small float64 batch: the layer input, or the pre-activation Z of the output for a loss.
    y : ndarray, optional
        The targets, for a loss (same shape as X).
    eps : float, default=1e-6
    random_state : int, default=0
        Seeds the parameters and the random projection R: a layer is checked through the
        scalar f = Σ R ⊙ layer(X); a loss through f = L(g(Z), y).

    Returns
    -------
    dict
        ``{"input": error}`` plus one entry per parameter array of the layer (e.g. "W", "b").

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.neural.dense import Dense
    >>> from lucidml.neural.gradient_check import gradient_check
    >>> X = np.random.default_rng(0).normal(size=(4, 3))
    >>> errors = gradient_check(Dense(2, activation="tanh"), X)
    >>> sorted(errors), max(errors.values()) < 1e-7
    (['W', 'b', 'input'], True)
    """
    X = np.array(X, dtype=np.float64, order="C")
    if isinstance(target, str):
        return _check_loss(target, X, np.asarray(y, dtype=np.float64), eps)
    rng = np.random.RandomState(random_state)
    net = Sequential([target]).build(X.shape[1:], random_state=rng)
    R = rng.normal(size=(X.shape[0],) + net.output_shape)
    seed = rng.randint(2**31 - 1)

    def f():
        if hasattr(target, "rng"):  # the same dropout mask on every evaluation
            target.rng = np.random.default_rng(seed)
        return float(np.sum(R * target.forward(X, training=True)))

    f()
    dX = target.backward(R.copy(), need_input_grad=True)
    errors = {"input": relative_error(dX, numerical_gradient(f, X, eps))}
    for layer, name, shape, start, stop in net._layout:
        analytic = net.grad[start:stop].copy()
        errors[name] = relative_error(analytic, numerical_gradient(f, net.theta[start:stop], eps))
    return errors


def _check_loss(name, Z, Y, eps):
    loss = get_loss(name)
    g = get_activation(loss.out_activation)

    def f():
        return loss.value(g.apply_(Z.copy()), Y)

    analytic = loss.delta_(g.apply_(Z.copy()), Y)
    return {"input": relative_error(analytic, numerical_gradient(f, Z, eps))}
