"""Per-class counts, priors and means, shared by the discriminant analyses."""

import numpy as np

from ..utils.validation import check_class_prior, check_classification_targets, class_sums


def class_statistics(X, y, priors=None):
    """Return (classes, class index of each sample, counts n_c, priors φ_c, means μ_c)."""
    check_classification_targets(y)
    classes, class_index, counts = np.unique(y, return_inverse=True, return_counts=True)
    check_two_classes(classes)
    means = class_sums(X, class_index, len(classes)) / counts[:, None]
    return classes, class_index, counts, class_priors(counts, priors), means


def check_two_classes(classes):
    """Refuse a target with fewer than two classes."""
    if len(classes) < 2:
        raise ValueError(f"Discriminant analysis needs at least two classes; y has only 1 class ({classes[0]}).")


def class_priors(counts, priors=None):
    """φ: the given ``priors`` (checked), or the class frequencies n_c / m."""
    if priors is None:
        return counts / counts.sum()
    return check_class_prior(priors, len(counts), "priors")
