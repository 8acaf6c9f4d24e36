"""Rosenbrock's banana function in any dimension, the standard test of the optimizers."""

import numpy as np
import scipy.sparse

__all__ = ["rosenbrock", "rosenbrock_grad", "rosenbrock_hess"]


def rosenbrock(x):
    """f(x) = Σ_{i<N} [(1 − xᵢ)² + 100 (xᵢ₊₁ − xᵢ²)²], N ≥ 2; minimum 0 at x = (1, …, 1) (002 Example 4.2).

    >>> rosenbrock([1.0, 1.0]), rosenbrock([0.0, 0.0])
    (0.0, 1.0)
    """
    x = _check(x)
    return float(np.sum((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2))


def rosenbrock_grad(x):
    """∇f: ∂f/∂xᵢ = −2(1 − xᵢ) − 400 xᵢ (xᵢ₊₁ − xᵢ²) + 200 (xᵢ − xᵢ₋₁²), with the end terms absent."""
    x = _check(x)
    g = np.zeros_like(x)
    inner = x[1:] - x[:-1] ** 2
    g[:-1] = -2 * (1 - x[:-1]) - 400 * x[:-1] * inner
    g[1:] += 200 * inner
    return g


def rosenbrock_hess(x, sparse=False):
    """∇²f, tridiagonal: dense, or SciPy sparse with ``sparse=True``."""
    x = _check(x)
    diagonal = np.zeros_like(x)
    diagonal[:-1] = 2 + 1200 * x[:-1] ** 2 - 400 * x[1:]
    diagonal[1:] += 200
    off = -400 * x[:-1]
    hessian = scipy.sparse.diags_array([off, diagonal, off], offsets=[-1, 0, 1], format="csr")
    return hessian if sparse else hessian.toarray()


def _check(x):
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"the Rosenbrock function needs a vector of length ≥ 2; got shape {x.shape}.")
    return x
