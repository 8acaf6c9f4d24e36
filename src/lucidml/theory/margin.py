"""The largest geometric margin of a hyperplane separating two classes: the hard-margin problem."""

import numpy as np
from sklearn.utils import Bunch, check_X_y
from sklearn.utils.multiclass import type_of_target

from ..optim.qp import interior_point_qp

__all__ = ["max_margin"]

_INTERCEPTS = ("none", "augmented", "free")


def max_margin(X, y, *, intercept="augmented", tol=1e-10):
    """The separating hyperplane with the largest geometric margin, and that margin.

    A data set is linearly separable with margin γ when some unit vector ŵ has yᵢ ŵ·xᵢ ≥ γ > 0
    for every sample, yᵢ ∈ {−1, +1} (seeds 002 Definition 3.6, Theorem 3.8; 001 §5). The
    largest such γ comes from the hard-margin problem

        minimize ½‖w‖²   subject to   yᵢ (w·xᵢ + b) ≥ 1 for every i,

    whose solution has margin γ = 1/‖w‖ (the SVM of 002 §5.3, with no slack). It is solved in
    the primal with lucidml's interior-point QP solver (:func:`lucidml.optim.qp.interior_point_qp`),
    which detects by linear programming when no w satisfies the constraints. How b is treated:

    - ``"none"``: b = 0, hyperplanes through the origin; γ = min yᵢ w·xᵢ / ‖w‖.
    - ``"augmented"``: the notes' convention for the perceptron — b is the weight of a constant
      feature 1 (x read as (x, 1)), so b is penalized with w and the margin is measured in that
      augmented space: γ = min yᵢ (w·xᵢ + b) / ‖(w, b)‖. This is the γ of the perceptron's
      mistake bound when it learns an intercept.
    - ``"free"``: b is not penalized, γ = min yᵢ (w·xᵢ + b) / ‖w‖, the geometric margin of an
      affine hyperplane in the input space — the margin 1/‖w‖ of a hard-margin SVM
      (``sklearn.svm.SVC(kernel="linear", C=1e10)``).

    The reported margin is min yᵢ (w·xᵢ + b) / norm at the solver's (w, b): the margin of an
    actual hyperplane, equal to 1/norm up to the solver's tolerance.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two classes; the larger label (in sorted order) is +1, as in scikit-learn.
    intercept : {"augmented", "none", "free"}, default="augmented"
    tol : float, default=1e-10
        Tolerance of the interior-point solver.

    Returns
    -------
    Bunch
        ``coef`` (n_features,), ``intercept`` (float), ``margin`` γ, ``classes`` (the two labels,
        the second one is +1) and ``n_iter`` of the solver.

    Raises
    ------
    ValueError
        If the two classes are not linearly separable (with the chosen intercept), or y does not
        hold exactly two classes.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.theory import max_margin
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0], [4.0, 0.0]])
    >>> result = max_margin(X, [0, 0, 1, 1], intercept="free")
    >>> round(result.margin, 6)  # the gap between x = 1 and x = 3, halved
    1.0
    """
    if intercept not in _INTERCEPTS:
        raise ValueError(f"intercept must be one of {_INTERCEPTS}; got {intercept!r}.")
    X, signs, classes = _check_two_classes(X, y)
    with_bias = intercept != "none"
    features = np.hstack([X, np.ones((X.shape[0], 1))]) if with_bias else X
    n_params = features.shape[1]
    penalty = np.eye(n_params)
    if intercept == "free":
        penalty[-1, -1] = 0.0
    solution = interior_point_qp(penalty, np.zeros(n_params), A_ineq=-signs[:, None] * features,
                                 b_ineq=-np.ones(len(signs)), tol=tol)
    if not solution.success:
        if not np.all(np.isfinite(solution.x)):
            where = "by a hyperplane through the origin" if intercept == "none" else "by a hyperplane"
            raise ValueError(f"The two classes are not linearly separable {where}: no w satisfies yᵢ (w·xᵢ + b) ≥ 1.")
        raise ValueError(f"The hard-margin problem was not solved: {solution.message}.")
    params = solution.x
    weights = params[:-1] if intercept == "free" else params
    functional = signs * (features @ params)
    margin = float(functional.min() / np.linalg.norm(weights))
    return Bunch(coef=params[: X.shape[1]].copy(), intercept=float(params[-1]) if with_bias else 0.0,
                 margin=margin, classes=classes, n_iter=solution.n_iter)


def _check_two_classes(X, y):
    """(X as float64, y as ±1, the two labels) for a finite two-class problem."""
    X, y = check_X_y(X, y, dtype=np.float64, y_numeric=False)
    if type_of_target(y) not in ("binary", "multiclass"):
        raise ValueError(f"y must hold class labels; got a target of type {type_of_target(y)!r}.")
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"A margin needs exactly two classes in y; got {classes.size}.")
    return X, np.where(y == classes[1], 1.0, -1.0), classes
