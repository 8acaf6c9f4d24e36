"""First-order update rules for the flat parameter vector θ of a network, given g = ∇L(θ).

All updates happen in place in preallocated arrays (θ, g and the optimizer's state have the
same length), so a step costs a few vector operations whatever the number of layers.

    SGD        θ ← θ − η g                                       (seed 000 §5.2, Algorithm 3; 004 §11)
    momentum   v ← μ v − η g,  θ ← θ + v                         (Polyak 1964)
    Nesterov   v ← μ v − η g,  θ ← θ + μ v − η g                 (Sutskever et al. 2013's form)
    Adam       m ← β₁ m + (1 − β₁) g,  v ← β₂ v + (1 − β₂) g²,
               θ ← θ − η √(1 − β₂ᵗ)/(1 − β₁ᵗ) · m / (√v + ε)     (Kingma & Ba 2015)

Learning-rate schedules of SGD (scikit-learn's meaning): "constant"; "invscaling",
η = η₀ / tᵖ after t samples; "adaptive", η divided by 5 each time the training stops improving,
and training ends when η < 1e-6.
"""

import numpy as np

__all__ = ["SGD", "Adam"]


class SGD:
    """Stochastic gradient descent with optional (Nesterov) momentum and a schedule."""

    def __init__(self, size, dtype, learning_rate_init=0.1, learning_rate="constant", momentum=0.0,
                 nesterov=False, power_t=0.5):
        self.learning_rate_init = self.learning_rate = float(learning_rate_init)
        self.schedule, self.momentum, self.nesterov, self.power_t = learning_rate, momentum, nesterov, power_t
        self.velocity = np.zeros(size, dtype=dtype) if momentum > 0 else None
        self._tmp = np.empty(size, dtype=dtype)
        self._tmp2 = np.empty(size, dtype=dtype) if nesterov and momentum > 0 else None

    def step(self, theta, grad):
        lr = self.learning_rate
        if self.velocity is None:
            theta -= np.multiply(grad, lr, out=self._tmp)
            return
        v, step = self.velocity, self._tmp
        v *= self.momentum
        v -= np.multiply(grad, lr, out=step)
        if self.nesterov:
            np.multiply(v, self.momentum, out=step)
            step -= np.multiply(grad, lr, out=self._tmp2)
            theta += step
        else:
            theta += v

    def iteration_ends(self, time_step):
        """After an epoch; ``time_step`` = samples seen so far."""
        if self.schedule == "invscaling":
            self.learning_rate = self.learning_rate_init / (time_step + 1) ** self.power_t

    def trigger_stopping(self):
        """No improvement for a while: shrink η ("adaptive") or say stop (True)."""
        if self.schedule != "adaptive" or self.learning_rate <= 1e-6:
            return True
        self.learning_rate /= 5.0
        return False


class Adam:
    """Adam: per-coordinate steps scaled by running moments of the gradient."""

    def __init__(self, size, dtype, learning_rate_init=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-8):
        self.learning_rate_init = self.learning_rate = float(learning_rate_init)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.t = 0
        self.m = np.zeros(size, dtype=dtype)
        self.v = np.zeros(size, dtype=dtype)
        self._tmp = np.empty(size, dtype=dtype)

    def step(self, theta, grad):
        self.t += 1
        b1, b2, tmp = self.beta_1, self.beta_2, self._tmp
        m, v = self.m, self.v
        m *= b1
        m += np.multiply(grad, 1 - b1, out=tmp)
        v *= b2
        np.multiply(grad, grad, out=tmp)
        tmp *= 1 - b2
        v += tmp
        lr = self.learning_rate_init * np.sqrt(1 - b2**self.t) / (1 - b1**self.t)
        self.learning_rate = lr
        np.sqrt(v, out=tmp)
        tmp += self.epsilon
        np.divide(m, tmp, out=tmp)
        tmp *= lr
        theta -= tmp

    def iteration_ends(self, time_step):
        pass

    def trigger_stopping(self):
        return True
