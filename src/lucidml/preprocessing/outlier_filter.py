"""Cluster-based outlier removal in front of a classifier: filter (X, y) at fit time, then fit the classifier."""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.spatial
from sklearn.base import BaseEstimator, ClassifierMixin, ClusterMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_array, check_is_fitted, check_scalar, column_or_1d

from ..utils import HasMethods, Interval, Options, validate_params
from ..utils.validation import check_classification_targets, check_fit_data, check_predict_data

__all__ = ["ClusterOutlierFilter", "cluster_outlier_mask"]


def _estimator_has(method):
    """True when the fitted classifier (or, before fit, the unfitted one) has ``method``."""

    def check(self):
        if hasattr(self, "estimator_"):
            return hasattr(self.estimator_, method)
        return hasattr(self.estimator if self.estimator is not None else _default_classifier(), method)

    return check


# The default DBSCAN: k = min_samples, and ε at this quantile of the k-distances (the fraction of core points).
DEFAULT_MIN_SAMPLES, DEFAULT_CORE_FRACTION = 5, 0.95


def k_distance_eps(X, k, quantile):
    """ε at the ``quantile`` of the distances of each row to its k-th nearest row (itself the first), so that
    that fraction of the rows has k rows within ε: core points of DBSCAN(eps=ε, min_samples=k) (002 §8.4)."""
    distances = scipy.spatial.cKDTree(X).query(X, k=[k])[0][:, 0]
    eps = float(np.quantile(distances, quantile))
    return eps if eps > 0 else float(np.finfo(np.float64).tiny)  # duplicated rows: distance 0 still counts


def _default_classifier():
    from ..neighbors import KNeighborsClassifier  # imported on use: importing the package stays light

    return KNeighborsClassifier()


class ClusterOutlierFilter(ClassifierMixin, BaseEstimator):
    """Drop the training samples a clustering calls outliers, then fit a classifier on the rest.

    The notes' cleaning step before learning (seeds: 002 §6.1, "detection and removal of
    outliers"; 002 §8.2.1, "eliminate small clusters that may represent outliers"; 002 §8.4,
    DBSCAN's noise points). A clone of ``clusterer`` labels the training rows; a row is an
    outlier when

    - ``method="noise"``: its label is −1 (DBSCAN's noise: not within ε of a core point);
    - ``method="small_clusters"``: its label is −1 or its cluster has fewer than
      ``min_cluster_size`` members;
    - ``method="distance"``: as ``"small_clusters"``, or its distance ‖x − c‖ to its cluster's
      centre c exceeds the ``quantile`` of those distances within its cluster (so about a
      fraction 1 − ``quantile`` of each cluster goes). The centre is the clusterer's
      ``cluster_centers_`` row when it has them, else the mean of the cluster's rows.

    A clone of ``estimator`` is then fitted on the kept rows of X *and* y. scikit-learn's
    ``Pipeline`` cannot drop rows of y, which is why this is a meta-estimator and not a
    transformer: put it last in a pipeline, or hand it to ``GridSearchCV`` / ``cross_val_score``
    like any classifier (its parameters, the inner ones included, clone as usual).

    Filtering happens in ``fit`` only. ``predict``, ``predict_proba``, ``decision_function`` and
    ``score`` pass *every* row to the fitted classifier: an outlier at prediction time still
    gets a prediction. ``fit_resample`` returns the kept rows instead (the imbalanced-learn
    convention), without fitting the classifier.

    Input checks (finite numbers, consistent lengths, class labels) are scikit-learn's
    ``validate_data`` and ``check_classification_targets``; the clustering is lucidml's
    (:class:`~lucidml.cluster.DBSCAN`, :class:`~lucidml.cluster.KMeans`).

    Parameters
    ----------
    estimator : classifier or None, default=None
        The model fitted on the kept rows (cloned; the object passed is not changed). None means
        ``lucidml.neighbors.KNeighborsClassifier()`` (k-NN, which outliers mislead most).
    clusterer : clusterer or None, default=None
        Any estimator with ``fit`` and a ``labels_`` result (``ClusterMixin``), noise as −1. None
        means, for ``"noise"`` and ``"small_clusters"``, ``lucidml.cluster.DBSCAN(eps=ε̂,
        min_samples=k)`` with k = min(5, n) and ε̂ read off the sorted k-distance graph of the
        training rows (002 §8.4): its 95th percentile, so that 95% of the rows are core points
        and ε̂ follows the scale of X; and ``lucidml.cluster.KMeans(n_clusters=8,
        random_state=random_state)`` for ``"distance"``.
    method : {"noise", "small_clusters", "distance"}, default="noise"
        Which rows count as outliers (see above).
    min_cluster_size : int, default=5
        Clusters with fewer members are outliers (``"small_clusters"`` and ``"distance"``).
    quantile : float in (0, 1], default=0.95
        Per-cluster quantile of the distances to the centre above which a row is an outlier
        (``"distance"``); 1 keeps every row of a large enough cluster.
    random_state : int, RandomState instance or None, default=None
        Seeds the default KMeans (``method="distance"`` with ``clusterer=None``); a clusterer you
        pass keeps its own ``random_state``.

    Attributes
    ----------
    estimator_ : classifier
        The clone of ``estimator`` fitted on the kept rows.
    clusterer_ : clusterer
        The fitted clone of the clusterer.
    inlier_mask_ : ndarray of bool, shape (n_samples,)
        True for the training rows that were kept.
    n_outliers_ : int
        Number of training rows dropped.
    classes_ : ndarray
        The classes of the fitted classifier (a class whose every row was dropped is absent).
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.cluster import DBSCAN
    >>> from lucidml.neighbors import KNeighborsClassifier
    >>> from lucidml.preprocessing import ClusterOutlierFilter
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.3, (20, 2)), rng.normal(3, 0.3, (20, 2)), [[1.5, 8.0]]])
    >>> y = np.r_[np.zeros(20), np.ones(20), 0]
    >>> model = ClusterOutlierFilter(KNeighborsClassifier(n_neighbors=3), DBSCAN(eps=0.8)).fit(X, y)
    >>> model.n_outliers_, bool(model.inlier_mask_[-1])
    (1, False)
    >>> model.predict([[0.1, 0.0], [2.9, 3.1]])
    array([0., 1.])
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "clusterer": [ClusterMixin, None],
        "method": [Options({"noise", "small_clusters", "distance"})],
        "min_cluster_size": [Interval(Integral, 1, None, closed="left")],
        "quantile": [Interval(Real, 0, 1, closed="right")],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, clusterer=None, *, method="noise", min_cluster_size=5, quantile=0.95,
                 random_state=None):
        self.estimator = estimator
        self.clusterer = clusterer
        self.method = method
        self.min_cluster_size = min_cluster_size
        self.quantile = quantile
        self.random_state = random_state

    def fit(self, X, y):
        """Find the outliers of the training rows, then fit a clone of ``estimator`` on the others."""
        X, y = self._filter(X, y)
        self.estimator_ = self._classifier().fit(X[self.inlier_mask_], y[self.inlier_mask_])
        return self

    def fit_resample(self, X, y):
        """Find the outliers of (X, y) and return the kept rows ``(X[inlier_mask_], y[inlier_mask_])``.

        X and y come back as the validated NumPy arrays (copies of the kept rows); the
        classifier is not fitted.
        """
        X, y = self._filter(X, y)
        return X[self.inlier_mask_], y[self.inlier_mask_]

    def _filter(self, X, y):
        validate_params(self)
        X, y = check_fit_data(self, X, y, ensure_min_samples=2)
        check_classification_targets(y)
        self.clusterer_ = clone(self.clusterer) if self.clusterer is not None else self._default_clusterer(X)
        labels = np.asarray(self.clusterer_.fit(X).labels_)
        if labels.shape != (X.shape[0],):
            raise ValueError(f"the clusterer gave labels of shape {labels.shape}; expected ({X.shape[0]},).")
        centres = getattr(self.clusterer_, "cluster_centers_", None) if self.method == "distance" else None
        mask = cluster_outlier_mask(X, labels, method=self.method, min_cluster_size=self.min_cluster_size,
                                    quantile=self.quantile, centres=centres)
        if not mask.any():
            raise ValueError(f"{type(self).__name__}: every one of the {X.shape[0]} training samples was found to be "
                             f"an outlier (method={self.method!r}); loosen the clusterer (e.g. a larger DBSCAN eps).")
        self.inlier_mask_ = mask
        self.n_outliers_ = int(np.count_nonzero(~mask))
        return X, y

    def _classifier(self):
        return clone(self.estimator) if self.estimator is not None else _default_classifier()

    def _default_clusterer(self, X):
        from ..cluster import DBSCAN, KMeans

        if self.method == "distance":
            seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
            return KMeans(n_clusters=8, random_state=seed)
        k = min(DEFAULT_MIN_SAMPLES, X.shape[0])
        return DBSCAN(eps=k_distance_eps(X, k, DEFAULT_CORE_FRACTION), min_samples=k)

    def _delegate(self, method, X, *args, **kwargs):
        """``estimator_.method`` on the validated X: every row, none dropped."""
        check_is_fitted(self)
        X = check_predict_data(self, X)
        return getattr(self.estimator_, method)(X, *args, **kwargs)

    @property
    def classes_(self):
        check_is_fitted(self)
        return self.estimator_.classes_

    def predict(self, X):
        """The fitted classifier's predictions for every row of X (no row is dropped)."""
        return self._delegate("predict", X)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """The fitted classifier's class probabilities for every row of X."""
        return self._delegate("predict_proba", X)

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """The fitted classifier's log class probabilities for every row of X."""
        return self._delegate("predict_log_proba", X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """The fitted classifier's decision function for every row of X."""
        return self._delegate("decision_function", X)

    def score(self, X, y, sample_weight=None):
        """The fitted classifier's ``score`` (accuracy for a classifier) on every row of (X, y)."""
        return self._delegate("score", X, y, sample_weight=sample_weight)


def cluster_outlier_mask(X, labels, *, method="noise", min_cluster_size=5, quantile=0.95, centres=None):
    """The rows a clustering keeps: False for noise, members of small clusters, or rows far from their centre.

    The rule of :class:`ClusterOutlierFilter` on given cluster ``labels`` (−1 = noise); see there
    for ``method``, ``min_cluster_size`` and ``quantile``. ``centres`` (one row per label 0, 1, …)
    are used for ``method="distance"`` when given, else each cluster's mean.

    Returns
    -------
    ndarray of bool, shape (n_samples,)
        True for inliers.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [9.0]])
    >>> cluster_outlier_mask(X, np.array([0, 0, 0, 1, -1]), method="small_clusters", min_cluster_size=2)
    array([ True,  True,  True, False, False])
    """
    if method not in ("noise", "small_clusters", "distance"):
        raise ValueError(f"method must be 'noise', 'small_clusters' or 'distance'; got {method!r}.")
    X, labels, centres = _mask_input(X, labels, centres if method == "distance" else None)
    min_cluster_size = check_scalar(min_cluster_size, "min_cluster_size", Integral, min_val=1)
    quantile = check_scalar(quantile, "quantile", Real, min_val=0.0, max_val=1.0)
    keep = labels >= 0
    if method == "noise":
        return keep
    clusters, sizes = np.unique(labels[keep], return_counts=True)
    keep &= np.isin(labels, clusters[sizes >= min_cluster_size])
    if method == "small_clusters":
        return keep
    for cluster in clusters[sizes >= min_cluster_size]:
        members = np.flatnonzero(labels == cluster)
        centre = centres[cluster] if centres is not None else X[members].mean(axis=0)
        distance = np.linalg.norm(X[members] - centre, axis=1)
        keep[members[distance > np.quantile(distance, quantile)]] = False
    return keep


def _mask_input(X, labels, centres):
    """X (finite numbers, 2-d), the labels as integers (one per row, −1 for noise) and the centres
    (one row of X's width per label 0 … max), checked for :func:`cluster_outlier_mask`."""
    X = check_array(X, dtype=np.float64, input_name="X")
    labels = column_or_1d(labels)
    if labels.shape[0] != X.shape[0]:
        raise ValueError(f"labels has {labels.shape[0]} entries for the {X.shape[0]} rows of X.")
    numeric = labels.dtype.kind in "iub" or (labels.dtype.kind == "f" and np.all(np.isfinite(labels)))
    if not numeric or np.any(labels != np.round(labels)) or np.any(labels < -1):
        raise ValueError("labels must be integer cluster labels 0, 1, … (−1 for noise), as a clusterer's labels_; "
                         f"got values such as {labels[:3].tolist()}.")
    labels = labels.astype(np.intp)
    if centres is not None:
        centres = check_array(centres, dtype=np.float64, input_name="centres")
        if centres.shape[1] != X.shape[1] or centres.shape[0] <= labels.max(initial=-1):
            raise ValueError(f"centres must have a row of X's {X.shape[1]} features for every label 0 … "
                             f"{labels.max(initial=-1)}; got shape {centres.shape}.")
    return X, labels, centres
