"""Polynomial feature maps: the monomials of the inputs up to a degree (seeds 004 §2, 002 §1.3)."""

from itertools import combinations_with_replacement, product

import numpy as np

__all__ = ["polynomial_features"]


def polynomial_features(X, degree, *, ordered=False, include_bias=False):
    """The monomials of the columns of X of total degree 1 … ``degree`` (and the constant 1).

    A linear model on these features is polynomial regression. With ``ordered=False`` each
    monomial appears once, so d inputs give C(d + p, p) − 1 features of degree 1 … p (seed 004
    counts p(p+1)/2 for d = 2; the right count is (p+1)(p+2)/2 − 1 without the constant), in
    scikit-learn's ``PolynomialFeatures`` order. ``ordered=True`` is 004's map φ₁, which keeps the
    ordered products as separate features (x₁x₂ and x₂x₁): dᵏ features of degree k, a redundant
    design whose least-squares fit is the same function.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    degree : int ≥ 1
    ordered : bool, default=False
    include_bias : bool, default=False
        Prepend the column of ones.

    Returns
    -------
    ndarray of shape (n_samples, n_monomials)

    Examples
    --------
    >>> polynomial_features([[2.0, 3.0]], 2)
    array([[2., 3., 4., 6., 9.]])
    >>> polynomial_features([[2.0, 3.0]], 2, ordered=True, include_bias=True)
    array([[1., 2., 3., 4., 6., 6., 9.]])
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, not of shape {X.shape}.")
    if int(degree) != degree or degree < 1:
        raise ValueError(f"degree must be an integer ≥ 1; got {degree!r}.")
    d = X.shape[1]
    tuples = product if ordered else combinations_with_replacement
    columns = [np.ones((X.shape[0], 1))] if include_bias else []
    columns.append(X)
    for k in range(2, int(degree) + 1):
        index = np.array(list(tuples(range(d), repeat=k) if ordered else tuples(range(d), k)))
        columns.append(np.prod(X[:, index], axis=2))
    return np.hstack(columns)
