"""A binary classifier's scores that stay honest when one class is rare."""

from sklearn.utils import Bunch

from .binary import _confusion, _ratio

__all__ = ["unbalanced_summary"]


def unbalanced_summary(y_true, y_pred, *, pos_label=1):
    """Sensitivity, specificity, precision and balanced accuracy of a binary classifier, in one place.

    From the confusion counts TP, FN, TN, FP (seeds 003 §1; 002 §8.5.1, Definition 8.4):

        sensitivity = TP / (TP + FN)      true-positive rate, recall
        specificity = TN / (TN + FP)      true-negative rate = 1 − FPR
        precision   = TP / (TP + FP)
        accuracy    = (TP + TN) / n
        balanced_accuracy = (sensitivity + specificity) / 2

    On unbalanced data accuracy alone misleads (003 §1): with 99% negatives, the classifier that
    always answers "negative" is 99% accurate yet finds no positive. Its sensitivity (0) and
    balanced accuracy (0.5, chance for two classes) show it. ``majority_accuracy`` is that
    trivial classifier's accuracy, the baseline an accuracy must beat; ``prevalence`` is the
    fraction of positives. The ratios reuse :func:`lucidml.metrics.sensitivity` and
    :func:`lucidml.metrics.specificity`'s checks; an undefined ratio (no positive sample, no
    positive prediction, ...) is 0.0 with an ``UndefinedMetricWarning``, as in scikit-learn.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels, at most two distinct values between them.
    pos_label : int, float, bool or str, default=1
        The positive (usually rare) class; every other value is negative.

    Returns
    -------
    Bunch
        ``sensitivity``, ``specificity``, ``precision``, ``accuracy``, ``balanced_accuracy``,
        ``f1`` (harmonic mean of precision and sensitivity), ``false_positive_rate``,
        ``prevalence``, ``majority_accuracy`` and the counts ``tp``, ``fn``, ``tn``, ``fp``.

    Examples
    --------
    >>> from lucidml.metrics import unbalanced_summary
    >>> y_true = [1] * 2 + [0] * 98
    >>> caught_one = [1, 0] + [1] * 3 + [0] * 95
    >>> s = unbalanced_summary(y_true, caught_one)
    >>> s.accuracy, s.sensitivity, round(s.specificity, 4), round(s.balanced_accuracy, 4)
    (0.96, 0.5, 0.9694, 0.7347)
    >>> s.majority_accuracy
    0.98
    """
    tp, fn, tn, fp = _confusion(y_true, y_pred, pos_label)
    n = tp + fn + tn + fp
    if n == 0:
        raise ValueError("y_true and y_pred are empty.")
    sens = _ratio(tp, tp + fn, "Sensitivity", "positive")
    spec = _ratio(tn, tn + fp, "Specificity", "negative")
    precision = _ratio(tp, tp + fp, "Precision", "predicted positive")
    f1 = _ratio(2 * tp, 2 * tp + fp + fn, "F1", "positive or predicted positive")
    return Bunch(
        sensitivity=sens, specificity=spec, precision=precision, accuracy=(tp + tn) / n,
        balanced_accuracy=(sens + spec) / 2, f1=f1, false_positive_rate=_ratio(fp, fp + tn, "FPR", "negative"),
        prevalence=(tp + fn) / n, majority_accuracy=max(tp + fn, tn + fp) / n, tp=tp, fn=fn, tn=tn, fp=fp,
    )
