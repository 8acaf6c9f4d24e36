"""What every ``lucidml.dask`` estimator shares: its in-memory twin, ``to_local`` and lazy prediction."""

import copy

from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ..utils import validate_params
from ._predict import LazyPredictMixin


class DaskEstimator(LazyPredictMixin, BaseEstimator):
    """A chunked fit that ends in an ordinary lucidml estimator.

    ``_local_class`` is the in-memory estimator; the constructor parameters shared with it are
    passed on, so both validate them alike. ``fit`` reduces the chunks to small statistics and
    hands them to the in-memory estimator's own finishing code (``_local``); its fitted
    attributes are then also set on ``self``, and :meth:`to_local` returns a copy of it.
    """

    _local_class = None

    def _new_local(self):
        """An unfitted in-memory estimator with this one's (shared) parameters, validated."""
        validate_params(self)
        names = self._local_class().get_params().keys()
        local = self._local_class(**{k: v for k, v in self.get_params().items() if k in names})
        validate_params(local)
        return local

    def _publish(self, local, n_features, feature_names):
        """Adopt the fitted in-memory ``local``: its public fitted attributes become this estimator's."""
        local.n_features_in_ = n_features
        if feature_names is not None:
            local.feature_names_in_ = feature_names
        self._local = local
        for name, value in vars(local).items():
            if name.endswith("_") and not name.startswith("_"):
                setattr(self, name, value)
        return self

    def to_local(self):
        """The fitted model as the ordinary in-memory lucidml estimator (a copy, same attributes).

        It predicts on NumPy data, saves with ``lucidml.save``, and goes anywhere a lucidml
        estimator goes; wrap it in :class:`~lucidml.dask.ParallelPostFit` for dask data.
        """
        check_is_fitted(self, "_local")
        return copy.deepcopy(self._local)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "_local")
