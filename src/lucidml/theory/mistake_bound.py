"""Novikoff's bound on the number of mistakes of the perceptron, measured on a data set."""

import numpy as np
from sklearn.utils import Bunch

from .margin import max_margin

__all__ = ["perceptron_mistake_bound"]


def perceptron_mistake_bound(X, y, *, fit_intercept=True):
    """The perceptron mistake bound (R/γ)² of a linearly separable data set.

    If ‖xᵢ‖ ≤ R for every sample and some unit vector ŵ separates the classes with margin γ
    (yᵢ ŵ·xᵢ ≥ γ > 0), the perceptron started from w = 0 makes at most R²/γ² mistakes, in any
    order of the samples and for any learning rate (seeds 002 Theorem 3.8; 001 §5, where the
    data are rescaled to R = 1 and the bound reads 1/γ²). Each mistake raises ŵ·w by at least
    ηγ' and ‖w‖² by at most (ηR')², with the same factor on both sides, so the count of
    mistakes ℓ satisfies ℓ²γ² ≤ ℓR².

    Here R = max ‖xᵢ‖ and γ is the largest margin of any separating hyperplane, found by
    :func:`lucidml.theory.max_margin`, which gives the smallest bound the theorem allows.
    With ``fit_intercept=True`` the perceptron learns b as the weight of a constant input 1
    (002 §3.2), so both R and γ are measured on the augmented points (xᵢ, 1).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two classes.
    fit_intercept : bool, default=True
        As in :class:`lucidml.linear.Perceptron`: True measures on (x, 1), False on x with
        hyperplanes through the origin.

    Returns
    -------
    Bunch
        ``bound`` = (R/γ)², ``radius`` R, ``margin`` γ, and the separating ``coef``,
        ``intercept`` that attain γ.

    Raises
    ------
    ValueError
        If the classes are not linearly separable: then the perceptron never stops making mistakes.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.theory import perceptron_mistake_bound
    >>> X = np.array([[1.0, 1.0], [2.0, 1.0], [-1.0, -1.0], [-2.0, -1.0]])
    >>> result = perceptron_mistake_bound(X, [1, 1, 0, 0], fit_intercept=False)
    >>> round(result.margin, 6), round(result.radius, 6), round(result.bound, 6)
    (1.414214, 2.236068, 2.5)
    """
    separation = max_margin(X, y, intercept="augmented" if fit_intercept else "none")
    X = np.asarray(X, dtype=np.float64)  # already validated by max_margin
    squared_norms = np.einsum("ij,ij->i", X, X) + (1.0 if fit_intercept else 0.0)
    radius = float(np.sqrt(squared_norms.max()))
    return Bunch(bound=(radius / separation.margin) ** 2, radius=radius, margin=separation.margin,
                 coef=separation.coef, intercept=separation.intercept)
