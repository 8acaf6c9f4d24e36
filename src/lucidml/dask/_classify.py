"""Labels of a chunked classification target: the sorted classes, found without gathering y."""

from contextlib import contextmanager

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
    with labels_that_sort():
        (classes,) = compute(da.unique(y))  # one pass over y: the distinct labels of every chunk, merged
        classes = np.sort(np.asarray(classes))
    check_classification_targets(classes)
    return X, y, names, classes


@contextmanager
def labels_that_sort():
    """Sorting labels that do not compare (strings beside numbers) is a ValueError that says so."""
    try:
        yield
    except TypeError as error:
        raise ValueError(f"Unknown label type: y mixes labels that cannot be ordered together (strings and "
                         f"numbers?): {error}. Give every label one type.") from None
