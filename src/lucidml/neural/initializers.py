"""Random starting weights.

A network must start away from the symmetric point (equal weights make every hidden unit
compute the same thing forever), and at a scale where activations neither vanish nor
saturate. The choices, for a weight array with fan_in inputs and fan_out outputs per unit:

    "glorot"        W, b ~ U(−r, r),  r = √(6 / (fan_in + fan_out))   (Glorot & Bengio 2010;
                    r = √(2 / (fan_in + fan_out)) for logistic units, as scikit-learn's MLP does)
    "he"            W ~ N(0, 2 / fan_in), b = 0                        (He et al. 2015, for ReLU)
    "normal"        W, b ~ N(0, 1)                                     (seed 002 §9.2: Nielsen's network.py)
    ("uniform", r)  W, b ~ U(−r, r)                                    (seed 000 §5.3 uses r = 10,
                    which saturates the sigmoids; kept to reproduce the notes)

For a convolution, fan_in = channels·kh·kw and fan_out = filters·kh·kw.
"""

from numbers import Real

import numpy as np

__all__ = ["INITIALIZERS", "check_init", "initialize"]

INITIALIZERS = ("glorot", "he", "normal")


def check_init(init):
    """Raise ValueError unless ``init`` is a known name or ("uniform", r) with r > 0."""
    if isinstance(init, str) and init in INITIALIZERS:
        return
    if (isinstance(init, tuple) and len(init) == 2 and init[0] == "uniform" and isinstance(init[1], Real)
            and not isinstance(init[1], bool) and init[1] > 0):
        return
    raise ValueError(f"init must be one of {INITIALIZERS} or ('uniform', r) with r > 0; got {init!r}.")


def initialize(init, W, b, fan_in, fan_out, rng, activation="relu"):
    """Fill the arrays W and b (in place) by the rule ``init``; ``rng`` is a RandomState."""
    check_init(init)
    if init == "glorot":
        r = np.sqrt((2.0 if activation == "logistic" else 6.0) / (fan_in + fan_out))
        W[...] = rng.uniform(-r, r, W.shape)
        if b is not None:
            b[...] = rng.uniform(-r, r, b.shape)
    elif init == "he":
        W[...] = rng.normal(0.0, np.sqrt(2.0 / fan_in), W.shape)
        if b is not None:
            b[...] = 0.0
    elif init == "normal":
        W[...] = rng.normal(0.0, 1.0, W.shape)
        if b is not None:
            b[...] = rng.normal(0.0, 1.0, b.shape)
    else:
        r = float(init[1])
        W[...] = rng.uniform(-r, r, W.shape)
        if b is not None:
            b[...] = rng.uniform(-r, r, b.shape)
