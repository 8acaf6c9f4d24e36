"""The one engine of the chunked smooth fits (logistic, softmax, Poisson): an objective whose data
term is summed over the chunks, minimized by lucidml's own L-BFGS in the client.

f(θ) = (1/n) Σ_chunks Σ_{i ∈ chunk} ℓᵢ(θ) + (λ/2) ‖W‖², with θ viewed as (n_vectors, d [+ 1]) and
W its columns without the intercept. Each evaluation sends θ to the workers; every chunk returns
(Σ ℓᵢ, Σ ∂ℓᵢ/∂θ) computed by the in-memory estimator's own loss code, and the pairs are added in a
tree. L-BFGS asks for f and ∇f at the same θ: one pass over the chunks serves both.
"""

import warnings

import numpy as np

from ._chunks import compute, map_chunks, tree_reduce

__all__ = ["ChunkedObjective", "warn_if_separable"]


def _add(a, b):
    return a[0] + b[0], a[1] + b[1]


class ChunkedObjective:
    """f and ∇f of a penalized mean loss over the row chunks of the (persisted) dask arrays X, y.

    ``chunk_loss(X_chunk, y_chunk, *args, theta) -> (Σ ℓᵢ, Σ ∂ℓᵢ/∂θ)`` runs on the workers; ``l2``
    is λ. ``x_spread``: the features' spreads about the chunk function's centre, the scales of
    ``preconditioned`` (``_moments.feature_moments``). ``objective``/``gradient`` are aliases of
    ``fun``/``grad`` (the GLM solvers' names).
    """

    def __init__(self, X, y, chunk_loss, args, l2, fit_intercept, n_vectors, x_spread=None):
        self.X, self.y, self.chunk_loss, self.args = X, y, chunk_loss, tuple(args)
        self.l2, self.fit_intercept, self.n_vectors, self.x_spread = l2, fit_intercept, n_vectors, x_spread
        self.n = float(X.shape[0])
        self.size = n_vectors * (X.shape[1] + fit_intercept)
        self._cached = None

    def unpack(self, theta):
        """(W of shape (n_vectors, d), b′ of shape (n_vectors,)): θ's intercepts, those of the
        features centred on the chunk function's centre (``lucidml.utils.centered.uncentred``)."""
        theta = theta.reshape(self.n_vectors, -1)
        if self.fit_intercept:
            return theta[:, :-1], theta[:, -1]
        return theta, np.zeros(self.n_vectors)

    def _compute(self, theta):
        if self._cached is None or not np.array_equal(self._cached[0], theta):
            parts = map_chunks(self.chunk_loss, self.X, self.y, *self.args, theta)
            total, data_grad = compute(tree_reduce(parts, _add))[0]
            W, _ = self.unpack(theta)
            f = total / self.n + 0.5 * self.l2 * float(np.sum(W * W))
            penalty = np.hstack([self.l2 * W, np.zeros((self.n_vectors, int(self.fit_intercept)))])
            gradient = np.reshape(data_grad, (self.n_vectors, -1)) / self.n + penalty
            self._cached = (theta.copy(), f, gradient.ravel())
        return self._cached

    def fun(self, theta):
        return self._compute(theta)[1]

    def grad(self, theta):
        return self._compute(theta)[2]

    objective, gradient = fun, grad


def _chunk_separable(X, y, coef, intercept, classes):
    """Whether the linear scores classify every row of the chunk correctly."""
    scores = np.asarray(X) @ coef.T + intercept
    predicted = classes[(scores[:, 0] >= 0).astype(int)] if scores.shape[1] == 1 else classes[scores.argmax(axis=1)]
    return bool(np.all(predicted == y))


def warn_if_separable(X, y, coef, intercept, classes, advice):
    """Without a penalty, a perfect fit of the training data means the likelihood has no maximum:
    one pass over the chunks checks it, and warns."""
    if all(compute(*map_chunks(_chunk_separable, X, y, coef, intercept, classes))):
        warnings.warn("The training data are linearly separable: without a penalty the maximum-likelihood weights "
                      f"are infinite, and the returned ones only reflect where the solver stopped. {advice}",
                      UserWarning, stacklevel=3)
