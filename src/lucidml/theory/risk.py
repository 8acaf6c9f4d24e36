"""Empirical risk of a predictor and empirical risk minimization over a finite hypothesis class."""

import numpy as np
from sklearn.utils import Bunch, check_array, check_consistent_length

from ..utils import InvalidParameterError

__all__ = ["empirical_risk", "erm"]


def _zero_one(y_true, y_pred):
    return (y_true != y_pred).astype(np.float64)


def _squared(y_true, y_pred):
    return (np.asarray(y_true, dtype=np.float64) - np.asarray(y_pred, dtype=np.float64)) ** 2


def _absolute(y_true, y_pred):
    return np.abs(np.asarray(y_true, dtype=np.float64) - np.asarray(y_pred, dtype=np.float64))


_LOSSES = {"zero_one": _zero_one, "squared": _squared, "absolute": _absolute}


def empirical_risk(predictor, X, y, *, loss="zero_one"):
    """Training error ε̂(h) = (1/m) Σᵢ L(yᵢ, h(xᵢ)): the average loss of a predictor on a sample.

    With the 0-1 loss L = 1{h(x) ≠ y} this is the fraction of misclassified samples (seeds 000
    §8.2, (8.1)); it estimates the generalization error ε(h) = P(h(x) ≠ y) without bias
    (002 §1.3), and Hoeffding's inequality bounds how far off it can be
    (:func:`lucidml.theory.hoeffding_gap`).

    Parameters
    ----------
    predictor : fitted estimator or callable
        Anything with a ``predict(X)`` method, or a function X ↦ predictions.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    loss : {"zero_one", "squared", "absolute"} or callable, default="zero_one"
        ``"squared"`` is (y − h(x))², ``"absolute"`` |y − h(x)|; a callable takes
        (y_true, y_pred) and returns the loss of every sample.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.theory import empirical_risk
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> empirical_risk(lambda X: (X[:, 0] > 1.5).astype(int), X, [0, 0, 1, 1])
    0.25
    >>> empirical_risk(lambda X: X[:, 0], X, [-1.0, -1.0, 1.0, 1.0], loss="squared")
    0.5
    """
    loss_fn = _loss_function(loss)
    X, y = _check_sample(X, y)
    return _risk(predictor, X, y, loss_fn)


def erm(hypotheses, X, y, *, loss="zero_one"):
    """Empirical risk minimization over a finite class: the hypothesis with the least training error.

    ĥ = argmin over h ∈ H = {h₁, …, h_k} of ε̂(h) (seeds 000 §8.2, §8.4). Every hypothesis is
    scored once with :func:`empirical_risk`; ties go to the earliest hypothesis in the list.
    With probability 1 − δ, ε(ĥ) ≤ min_h ε(h) + 2 ``hoeffding_gap(m, δ, k)`` for the 0-1 loss.

    Parameters
    ----------
    hypotheses : sequence of fitted estimators or callables
        The class H, each element as accepted by :func:`empirical_risk`.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    loss : {"zero_one", "squared", "absolute"} or callable, default="zero_one"

    Returns
    -------
    Bunch
        ``best_index``, ``best`` (that hypothesis) and ``risks`` (ndarray of shape (k,), the
        empirical risk of every hypothesis).

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.theory import erm
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> thresholds = [0.5, 1.5, 2.5]
    >>> H = [lambda X, t=t: (X[:, 0] > t).astype(int) for t in thresholds]
    >>> result = erm(H, X, [0, 0, 1, 1])
    >>> result.best_index, result.risks.tolist()
    (1, [0.25, 0.0, 0.25])
    """
    hypotheses = list(hypotheses)
    if not hypotheses:
        raise ValueError("hypotheses is empty: ERM needs at least one hypothesis.")
    loss_fn = _loss_function(loss)
    X, y = _check_sample(X, y)
    risks = np.array([_risk(h, X, y, loss_fn) for h in hypotheses])
    best = int(np.argmin(risks))
    return Bunch(best_index=best, best=hypotheses[best], risks=risks)


def _risk(predictor, X, y, loss_fn):
    if hasattr(predictor, "predict"):
        y_pred = predictor.predict(X)
    elif callable(predictor):
        y_pred = predictor(X)
    else:
        raise InvalidParameterError(
            f"A hypothesis must have a predict method or be callable; got {type(predictor).__name__}.")
    y_pred = np.asarray(y_pred)
    if y_pred.shape != y.shape:
        raise ValueError(f"The predictions have shape {y_pred.shape}; expected {y.shape}, one per sample.")
    losses = np.asarray(loss_fn(y, y_pred), dtype=np.float64)
    if losses.shape != y.shape:
        raise ValueError(f"The loss must return one value per sample, shape {y.shape}; got {losses.shape}.")
    if not np.all(np.isfinite(losses)):
        raise ValueError("The loss is NaN or infinite for some samples (check the predictions and y).")
    return float(losses.mean())


def _loss_function(loss):
    if callable(loss):
        return loss
    if loss not in _LOSSES:
        raise ValueError(f"loss must be one of {sorted(_LOSSES)} or a callable; got {loss!r}.")
    return _LOSSES[loss]


def _check_sample(X, y):
    X = check_array(X, dtype=None, ensure_all_finite=True)
    y = check_array(y, ensure_2d=False, dtype=None, ensure_all_finite=True)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional; got shape {y.shape}.")
    check_consistent_length(X, y)
    return X, y
