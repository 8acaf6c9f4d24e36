"""Per-class counts, priors and means, shared by the discriminant analyses."""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from ..utils.validation import check_class_prior, class_sums


def class_statistics(X, y, priors=None):
    """Return (classes, class index of each sample, counts n_c, priors φ_c, means μ_c)."""
    check_classification_targets(y)
    classes, class_index, counts = np.unique(y, return_inverse=True, return_counts=True)
    if len(classes) < 2:
        raise ValueError(f"Discriminant analysis needs at least two classes; y has only 1 class ({classes[0]}).")
    n_samples = X.shape[0]
    if priors is None:
        priors = counts / n_samples
    else:
        priors = check_class_prior(priors, len(classes), "priors")
    means = class_sums(X, class_index, len(classes)) / counts[:, None]
    return classes, class_index, counts, priors, means
