"""Checking back-propagation against central finite differences.

For a scalar function f and a step ε, each partial derivative is estimated by

    ∂f/∂xⱼ ≈ (f(x + ε eⱼ) − f(x − ε eⱼ)) / 2ε        (error O(ε²))

and compared with the analytic gradient g through the relative error
‖g − ĝ‖ / (‖g‖ + ‖ĝ‖), which in float64 with ε = 1e-6 is around 1e-9 for a correct gradient
and of order 1 for a wrong one. The engine (``numerical_gradient``, ``relative_error``) is
lucidml.utils.numerics', shared with :func:`lucidml.utils.check_gradient` for users' own models.
"""

import numpy as np

from ..utils.numerics import numerical_gradient, relative_error
from ._network import Sequential
from .activations import get_activation
from .losses import get_loss

__all__ = ["gradient_check", "numerical_gradient", "relative_error"]  # the last two: lucidml.utils.numerics'


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
