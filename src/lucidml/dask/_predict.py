"""Lazy, block-by-block prediction with any fitted estimator: :class:`ParallelPostFit`.

Prediction is embarrassingly parallel over the rows: the fitted model (small) is shipped once
to the workers as a shared task, and its ``predict`` (or ``predict_proba``, ``transform``, ...)
runs on every row chunk where the chunk lives. The result is a lazy dask array with X's row
chunks; nothing is computed until the caller asks.
"""

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._chunks import as_dask_X, check_n_features

__all__ = ["ParallelPostFit", "lazy_method", "PREDICT_METHODS"]

PREDICT_METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "transform",
                   "score_samples")


def _apply(block, estimator, method, columns):
    """Run ``estimator.method`` on one block (a data frame again when the model knows column names)."""
    if columns is not None:
        block = pd.DataFrame(block, columns=columns)
    return getattr(estimator, method)(block)


def _probe(estimator, method, X, columns):
    """The output of ``method`` on one row: its dtype and number of columns, without computing X."""
    try:
        return np.asarray(_apply(np.zeros((1, X.shape[1]), dtype=X.dtype), estimator, method, columns))
    except (ValueError, TypeError):  # a model that refuses zeros (e.g. wants positive counts): read X's first row
        return np.asarray(_apply(X[:1].compute(), estimator, method, columns))


def lazy_method(estimator, method, X):
    """``estimator.method(X)`` as a lazy dask array, computed chunk by chunk where the chunks live.

    Parameters
    ----------
    estimator : fitted estimator
        Any fitted estimator with ``method``.
    method : str
        One of ``predict``, ``predict_proba``, ``predict_log_proba``, ``decision_function``,
        ``transform``, ``score_samples``.
    X : dask array, dask DataFrame, or array-like of shape (n_samples, n_features)

    Returns
    -------
    dask array of shape (n_samples,) or (n_samples, n_outputs), with X's row chunks.
    """
    if method not in PREDICT_METHODS:
        raise ValueError(f"method must be one of {PREDICT_METHODS}; got {method!r}.")
    X, names = as_dask_X(X)
    if hasattr(estimator, "n_features_in_"):
        check_n_features(estimator, X)
    columns = getattr(estimator, "feature_names_in_", None)
    if columns is not None and names is not None and list(names) != list(columns):
        raise ValueError(f"The feature names of X {list(names)} differ from those seen in fit {list(columns)}.")
    columns = None if columns is None else list(columns)
    probe = _probe(estimator, method, X, columns)
    if probe.ndim not in (1, 2):
        raise ValueError(f"{type(estimator).__name__}.{method} returned an array of {probe.ndim} dimensions; "
                         "only 1-D and 2-D outputs can be computed block by block.")
    # One shared task holds the model: every block's task depends on it, so it travels once per worker.
    shared = dask.delayed(estimator, pure=True, traverse=False)
    if probe.ndim == 1:
        return X.map_blocks(_apply, shared, method, columns, dtype=probe.dtype, chunks=(X.chunks[0],), drop_axis=1,
                            meta=np.empty((0,), dtype=probe.dtype))
    return X.map_blocks(_apply, shared, method, columns, dtype=probe.dtype, chunks=(X.chunks[0], (probe.shape[1],)),
                        meta=np.empty((0, 0), dtype=probe.dtype))


def _has(method):
    def check(self):
        return hasattr(self._model(), method) if hasattr(self, "estimator_") else hasattr(self.estimator, method)
    return check


class ParallelPostFit(MetaEstimatorMixin, BaseEstimator):
    """Predict, transform and score any fitted estimator lazily, block by block, on dask data.

    A model fitted in memory (on data that fit in one process, or converted from a
    ``lucidml.dask`` estimator with ``to_local()``) is applied to a dask array or DataFrame
    that does not: each method returns a dask array with X's row chunks, each chunk computed
    on the worker that holds it by the model's own method. The model travels once to each
    worker; the data never leave theirs.

    Parameters
    ----------
    estimator : estimator
        A fitted estimator, used as it is; or an unfitted one, fitted (a clone) on in-memory
        data by :meth:`fit`.

    Attributes
    ----------
    estimator_ : estimator
        The clone fitted by :meth:`fit` (absent when ``estimator`` was passed fitted).

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from lucidml.dask import ParallelPostFit
    >>> from lucidml.naive_bayes import GaussianNB
    >>> X = np.array([[-2.0, -1.0], [-1.0, -1.5], [1.0, 1.0], [2.0, 1.5]])
    >>> model = ParallelPostFit(GaussianNB()).fit(X, [0, 0, 1, 1])
    >>> big = da.from_array(np.tile(X, (5, 1)), chunks=(8, 2))
    >>> labels = model.predict(big)          # lazy: nothing computed yet
    >>> labels.chunks
    ((8, 8, 4),)
    >>> labels[:4].compute()
    array([0, 0, 1, 1])
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y=None, **fit_params):
        """Fit a clone of ``estimator`` on in-memory X (and y)."""
        if isinstance(X, (da.Array, dd.DataFrame, dd.Series)):
            raise TypeError("ParallelPostFit.fit fits the model in memory; pass NumPy or pandas data, or fit a "
                            "lucidml.dask estimator on the dask data and wrap its to_local().")
        self.estimator_ = clone(self.estimator).fit(X, y, **fit_params)
        return self

    def _model(self):
        if hasattr(self, "estimator_"):
            return self.estimator_
        check_is_fitted(self.estimator)
        return self.estimator

    @available_if(_has("predict"))
    def predict(self, X):
        """``estimator.predict`` on every chunk: a lazy dask array of shape (n_samples,)."""
        return lazy_method(self._model(), "predict", X)

    @available_if(_has("predict_proba"))
    def predict_proba(self, X):
        """``estimator.predict_proba`` on every chunk: a lazy dask array (n_samples, n_classes)."""
        return lazy_method(self._model(), "predict_proba", X)

    @available_if(_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """``estimator.predict_log_proba`` on every chunk."""
        return lazy_method(self._model(), "predict_log_proba", X)

    @available_if(_has("decision_function"))
    def decision_function(self, X):
        """``estimator.decision_function`` on every chunk."""
        return lazy_method(self._model(), "decision_function", X)

    @available_if(_has("transform"))
    def transform(self, X):
        """``estimator.transform`` on every chunk."""
        return lazy_method(self._model(), "transform", X)

    @available_if(_has("score_samples"))
    def score_samples(self, X):
        """``estimator.score_samples`` on every chunk."""
        return lazy_method(self._model(), "score_samples", X)


class LazyPredictMixin:
    """The lazy prediction methods of every ``lucidml.dask`` estimator: its in-memory model
    (``_local``, built at fit) applied chunk by chunk through :func:`lazy_method`.

    A subclass names its in-memory class in ``_local_class``; the methods exist when that class
    has them.
    """

    def _model(self):
        check_is_fitted(self, "_local")
        return self._local

    def _local_has(method):
        return lambda self: hasattr(self._local_class, method)

    @available_if(_local_has("predict"))
    def predict(self, X):
        """The in-memory model's ``predict`` on every chunk of X: a lazy dask array (n_samples,)."""
        return lazy_method(self._model(), "predict", X)

    @available_if(_local_has("predict_proba"))
    def predict_proba(self, X):
        """``predict_proba`` on every chunk of X: a lazy dask array (n_samples, n_classes)."""
        return lazy_method(self._model(), "predict_proba", X)

    @available_if(_local_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """``predict_log_proba`` on every chunk of X."""
        return lazy_method(self._model(), "predict_log_proba", X)

    @available_if(_local_has("decision_function"))
    def decision_function(self, X):
        """``decision_function`` on every chunk of X."""
        return lazy_method(self._model(), "decision_function", X)

    @available_if(_local_has("transform"))
    def transform(self, X):
        """``transform`` on every chunk of X."""
        return lazy_method(self._model(), "transform", X)

    @available_if(_local_has("score_samples"))
    def score_samples(self, X):
        """``score_samples`` on every chunk of X."""
        return lazy_method(self._model(), "score_samples", X)

    del _local_has
