"""Sensitivity and specificity of a binary classifier."""

import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_consistent_length, column_or_1d


def sensitivity(y_true, y_pred, *, pos_label=1):
    """Sensitivity (recall, true-positive rate): TP / (TP + FN).

    The fraction of the truly positive samples that are predicted positive (seeds: 002 §8.5.1,
    Definition 8.4; 003 §1). Equals ``sklearn.metrics.recall_score`` for binary labels.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels, at most two distinct values between them.
    pos_label : int, float, bool or str, default=1
        The positive label; every other value is negative.

    Returns
    -------
    float
        0.0 with an ``UndefinedMetricWarning`` when there are no positive samples.

    Examples
    --------
    >>> from lucidml.metrics import sensitivity
    >>> sensitivity([1, 1, 1, 0, 0], [1, 1, 0, 0, 1])
    0.6666666666666666
    """
    tp, fn, _, _ = _confusion(y_true, y_pred, pos_label)
    return _ratio(tp, tp + fn, "Sensitivity", "positive")


def specificity(y_true, y_pred, *, pos_label=1):
    """Specificity (true-negative rate): TN / (TN + FP).

    The fraction of the truly negative samples that are predicted negative, i.e. the recall of
    the negative class (seeds: 003 §1). 1 − specificity is the false-positive rate of an ROC curve.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels, at most two distinct values between them.
    pos_label : int, float, bool or str, default=1
        The positive label; every other value is negative.

    Returns
    -------
    float
        0.0 with an ``UndefinedMetricWarning`` when there are no negative samples.

    Examples
    --------
    >>> from lucidml.metrics import specificity
    >>> specificity([1, 1, 1, 0, 0], [1, 1, 0, 0, 1])
    0.5
    """
    _, _, tn, fp = _confusion(y_true, y_pred, pos_label)
    return _ratio(tn, tn + fp, "Specificity", "negative")


def _confusion(y_true, y_pred, pos_label):
    """(TP, FN, TN, FP) after checking that the labels are binary and contain pos_label."""
    y_true = column_or_1d(y_true)
    y_pred = column_or_1d(y_pred)
    check_consistent_length(y_true, y_pred)
    for name, y in (("y_true", y_true), ("y_pred", y_pred)):
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise ValueError(f"{name} contains NaN or infinity.")
    labels = np.union1d(y_true, y_pred)
    if labels.size > 2:
        raise ValueError(f"Sensitivity and specificity need binary labels; got {labels.size} distinct values.")
    if labels.size == 2 and pos_label not in labels:
        raise ValueError(f"pos_label={pos_label!r} is not a valid label; the labels are {labels.tolist()}.")
    true_pos = y_true == pos_label
    pred_pos = y_pred == pos_label
    tp = int(np.count_nonzero(true_pos & pred_pos))
    fn = int(np.count_nonzero(true_pos & ~pred_pos))
    tn = int(np.count_nonzero(~true_pos & ~pred_pos))
    fp = int(np.count_nonzero(~true_pos & pred_pos))
    return tp, fn, tn, fp


def _ratio(numerator, denominator, name, kind):
    if denominator == 0:
        warnings.warn(f"{name} is ill-defined: there are no {kind} samples; returning 0.0.", UndefinedMetricWarning)
        return 0.0
    return numerator / denominator
