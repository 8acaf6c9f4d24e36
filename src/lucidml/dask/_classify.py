"""Labels of a chunked classification target: the sorted classes, found without gathering y."""

import dask.array as da
import numpy as np

from ..utils.validation import check_classification_targets
from ._chunks import as_dask_X, as_dask_y, compute


def classification_data(X, y):
    """(X, y, feature names, classes): validated dask inputs and the sorted distinct labels of y."""
    X, names = as_dask_X(X)
    y = as_dask_y(y, X)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D for a classifier; got shape {y.shape}.")
    (classes,) = compute(da.unique(y))  # one pass over y: the distinct labels of every chunk, merged
    classes = np.sort(np.asarray(classes))
    check_classification_targets(classes)
    return X, y, names, classes
