"""Gaussian naive Bayes fitted chunk by chunk on a Dask array."""

import numpy as np

from ..naive_bayes import GaussianNB as _LocalGaussianNB
from ._base import DaskEstimator
from ._chunks import compute, map_chunks, tree_reduce
from ._classify import classification_data
from ._moments import class_index, diagonal_moments, finite, merge_pair


def _chunk_moments(X, y, classes):
    """Per-class (count, mean, M2) of one chunk, and its unweighted moments over all rows (for ε)."""
    X = finite(np.ascontiguousarray(X))
    return (diagonal_moments(X, class_index(y, classes), len(classes)),
            diagonal_moments(X, np.zeros(X.shape[0], dtype=np.intp), 1))


class GaussianNB(DaskEstimator):
    """Gaussian naive Bayes on a Dask array or DataFrame, fitted data-parallel.

    Each row chunk computes, on its worker, the per-class counts, means and sums of squared
    deviations of every feature (float64, about the chunk's own means); the chunks' statistics
    are merged pairwise in a tree with the update of Chan, Golub & LeVeque, and the merged
    statistics are finished by :class:`lucidml.naive_bayes.GaussianNB`'s own code, so the model is
    the in-memory one on the same data (up to the order of the float sums). Only the statistics,
    O(n_classes × n_features) per chunk, leave the workers.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Prior class probabilities; None: the class frequencies.
    var_smoothing : float, default=1e-9
        The fraction of the largest feature variance added to every variance.

    Attributes
    ----------
    classes_, class_count_, class_prior_, theta_, var_, epsilon_, n_features_in_, feature_names_in_
        As :class:`lucidml.naive_bayes.GaussianNB`.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import GaussianNB
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> rng = np.random.default_rng(0)
    >>> X = da.from_array(np.vstack([rng.normal(-2, 1, (100, 2)), rng.normal(2, 1, (100, 2))]), chunks=(50, 2))
    >>> y = da.from_array(np.repeat([0, 1], 100), chunks=50)
    >>> clf = GaussianNB().fit(X, y)
    >>> clf.class_count_
    array([100., 100.])
    >>> clf.predict(da.from_array(np.array([[-2.0, -2.0], [2.0, 2.0]]))).compute()
    array([0, 1])
    >>> type(clf.to_local()).__module__
    'lucidml.naive_bayes.gaussian'
    >>> client.close()
    """

    _local_class = _LocalGaussianNB
    _parameter_constraints = _LocalGaussianNB._parameter_constraints

    def __init__(self, *, priors=None, var_smoothing=1e-9):
        self.priors = priors
        self.var_smoothing = var_smoothing

    def fit(self, X, y):
        """Fit on X (dask array or DataFrame, n_samples × n_features) and y (its labels)."""
        local = self._new_local()
        X, y, names, classes = classification_data(X, y)
        (moments, total) = compute(tree_reduce(map_chunks(_chunk_moments, X, y, classes), merge_pair))[0]
        local._start(classes, X.shape[1])
        local._absorb(moments, total, X.dtype)
        return self._publish(local, X.shape[1], names)
