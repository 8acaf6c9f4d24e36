"""K-means clustering: Lloyd's algorithm, k-means++ seeding, restarts and mini-batch updates."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted

from ..utils import (
    N_JOBS,
    VERBOSE,
    Interval,
    IterationLog,
    Options,
    check_sample_weight,
    interruptible,
    validate_params,
)
from ..utils.validation import FLOAT_DTYPES, check_fit_data, check_magnitude, check_predict_data
from ._kmeans_lloyd import (
    assign,
    kmeans_plusplus,
    lloyd,
    minibatch_step,
    random_points,
    same_partition,
    samples,
    squared_distances,
    tolerance,
)


class _CentroidClusterer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, BaseEstimator):
    """What k-means and bisecting k-means share: a fitted ``cluster_centers_`` and its uses."""

    def _validate_test_data(self, X):
        check_is_fitted(self)
        X = check_predict_data(self, X, order="C", dtype=FLOAT_DTYPES, accept_sparse="csr")
        return check_magnitude(X, self, in_precision=True)  # (float32 distances are taken in float32)

    def _samples(self, X, sample_weight=None):
        return samples(X, _sample_weight(sample_weight, X.shape[0]), self.n_clusters, self.n_jobs)

    def _test_samples(self, X, sample_weight=None):
        """New data read in one streamed pass, centred on the centres' mean (no copy of X)."""
        X = self._validate_test_data(X)
        shift = self.cluster_centers_.mean(axis=0)
        return samples(X, _sample_weight(sample_weight, X.shape[0]), self.n_clusters, self.n_jobs, shift=shift)

    def predict(self, X):
        """Index of the nearest centre, argmin_k ‖x − c_k‖², for every row of X."""
        data = self._test_samples(X)
        return assign(data, self.cluster_centers_)[0]

    def transform(self, X):
        """Euclidean distances ‖x − c_k‖ of every row of X to every centre, shape (n_samples, n_clusters)."""
        data = self._test_samples(X)
        return np.sqrt(squared_distances(data, self.cluster_centers_))

    def score(self, X, y=None, sample_weight=None):
        """Minus the (weighted) SSE of X against its nearest centres: −Σ wᵢ min_k ‖xᵢ − c_k‖²."""
        data = self._test_samples(X, sample_weight)
        return -float(assign(data, self.cluster_centers_)[2])

    def _check_n_samples(self, X):
        if X.shape[0] < self.n_clusters:
            raise ValueError(f"n_samples={X.shape[0]} should be >= n_clusters={self.n_clusters}.")

    def _warn_if_fewer_clusters(self):
        found = len(np.unique(self.labels_))
        if found < self.n_clusters:
            warnings.warn(f"Number of distinct clusters ({found}) found smaller than n_clusters "
                          f"({self.n_clusters}). Possibly due to duplicate points in X.", ConvergenceWarning, stacklevel=3)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


class KMeans(_CentroidClusterer):
    """K-means clustering by Lloyd's algorithm, seeded by k-means++, best of ``n_init`` runs.

    Minimizes the sum of squared errors (the distortion; seeds: 002 §8.2.1 (8.2), 000 §12.1,
    001 §14.1, 004 §13)

        SSE = Σ_k Σ_{i ∈ C_k} wᵢ ‖xᵢ − c_k‖²                  (wᵢ = sample weight, 1 by default)

    by coordinate descent, alternating

        assignment:  ℓᵢ ← argmin_k ‖xᵢ − c_k‖²       (argmin over all K; 000 §12.2's code takes an
                                                       argmax over two clusters, a typo)
        update:      c_k ← Σ_{ℓᵢ=k} wᵢ xᵢ / Σ_{ℓᵢ=k} wᵢ,

    until no label changes, the centres move by Σ_k ‖Δc_k‖² ≤ tol · (mean feature variance), or
    ``max_iter`` passes. Each step can only lower the SSE, so the runs stop at a local minimum;
    the run with the lowest SSE among ``n_init`` starts is kept. A cluster that loses all its
    points is re-seeded with the point farthest from its centre.

    The assignment and the centre sums are computed in one compiled pass over the data, split
    across threads (the sums are corrected only for the points that changed cluster); distances are the direct Σⱼ(xⱼ − c_kⱼ)² (for K ≥ 32 centres the products
    x·c come from BLAS on centred data), and no n × K matrix is stored. Memory: a centred copy
    of X in blocks of 64 samples (the size of X), O(n) for labels and distances, O(threads·K·d).

    Sparse X (SciPy CSR; other formats are converted) is clustered without densifying it: the
    distances are ‖x‖² − 2x·c + ‖c‖² with x·c summed over the stored entries of x, the centre sums
    are updated from those entries only, and nothing of X is copied (the centres stay dense).
    float32 X is computed in float32 (``cluster_centers_`` and ``transform`` are float32, as in
    scikit-learn); the centre sums and the SSE are accumulated in float64.

    ``partial_fit`` is mini-batch k-means (Sculley 2010): every batch is assigned to the nearest
    centres and each centre moves to the running mean of all the points it was ever given, with
    a per-centre count N_k (c_k ← c_k + (Σ_batch wᵢxᵢ − Σ_batch wᵢ · c_k)/N_k). After ``fit``, the
    counts start at the clusters' weights, so ``partial_fit`` goes on from the fitted model.

    Parameters
    ----------
    n_clusters : int, default=8
        The number of clusters K.
    init : {"k-means++", "random"}, callable or array-like of shape (n_clusters, n_features), \
default="k-means++"
        ``"k-means++"``: seeding by Arthur & Vassilvitskii (2007; 002 Ex. 8.1), the first centre
        drawn ∝ wᵢ, every next one ∝ wᵢ·D²(xᵢ), D² the squared distance to the nearest centre so
        far, in its greedy variant (2 + ⌊ln K⌋ candidates per step, the one lowering the
        potential most is kept; as scikit-learn). ``"random"``: K distinct rows, drawn ∝ wᵢ.
        An array: the initial centres themselves (one run only). A callable
        ``init(X, n_clusters, random_state)`` returning the centres.
    n_init : int or "auto", default=10
        Runs from different seeds; the one with the lowest SSE is kept. ``"auto"``: 1 run for
        ``"k-means++"`` or an array, 10 for ``"random"`` or a callable (scikit-learn's rule).
        With an array ``init`` only one run is made (a RuntimeWarning says so if n_init > 1).
    max_iter : int, default=300
        Lloyd iterations at most per run.
    tol : float, default=1e-4
        Convergence when Σ_k ‖c_k(t) − c_k(t−1)‖² ≤ tol × (mean variance of the features), the
        squared Frobenius norm of the centre shift (scikit-learn's rule).
    random_state : int, RandomState instance or None, default=None
        Seeds of the initializations. With the same integer, ``"k-means++"`` and ``"random"``
        draw the same seeds as scikit-learn's KMeans.
    n_jobs : None, -1 or int ≥ 1, default=None
        Threads sharing each pass over the data. None follows ``lucidml.set_config(n_threads=...)``
        (every core by default, as scikit-learn's OpenMP), -1 is every core; small problems run on
        one thread.
    verbose : int, default=0
        Progress on standard output (as scikit-learn's KMeans): 1 or more prints
        ``Initialization r`` at each run, ``Iteration t, inertia = J`` after every Lloyd pass (the
        values of ``loss_curve_`` for the run kept) and how the run stopped; 0 prints nothing.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The centres c_k, dense, float32 for float32 X and float64 otherwise.
    labels_ : ndarray of shape (n_samples,)
        The cluster of every training sample (of the last batch after ``partial_fit``).
    inertia_ : float
        The SSE of the kept run (of the last batch against the updated centres after
        ``partial_fit``).
    n_iter_ : int
        Lloyd iterations of the kept run.
    loss_curve_ : ndarray of shape (n_iter_,)
        The SSE after every assignment step of the kept run (non-increasing; after a stop on
        ``tol`` the final update lowers ``inertia_`` below the last entry).
    n_steps_ : int
        Mini-batch updates made by ``partial_fit`` since the last ``fit``.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.cluster.kmeans import KMeans
    >>> X = np.array([[1.0, 2.0], [1.0, 4.0], [1.0, 0.0], [10.0, 2.0], [10.0, 4.0], [10.0, 0.0]])
    >>> km = KMeans(n_clusters=2, random_state=0).fit(X)
    >>> km.cluster_centers_[np.argsort(km.cluster_centers_[:, 0])]
    array([[ 1.,  2.],
           [10.,  2.]])
    >>> round(km.inertia_, 6)
    16.0
    >>> bool(km.predict([[0.0, 0.0]])[0] == km.labels_[0])
    True
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "init": [Options({"k-means++", "random"}), "array-like", "callable"],
        "n_init": [Options({"auto"}), Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS,
        "verbose": VERBOSE,
    }

    def __init__(self, n_clusters=8, *, init="k-means++", n_init=10, max_iter=300, tol=1e-4, random_state=None,
                 n_jobs=None, verbose=0):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @interruptible
    def fit(self, X, y=None, sample_weight=None):
        """Cluster X (n_samples, n_features; dense or sparse, float32 or float64): ``n_init`` runs of
        Lloyd's algorithm, the lowest SSE kept."""
        validate_params(self)
        X = check_fit_data(self, X, accept_sparse="csr", float32=True, order="C")
        check_magnitude(X, self, in_precision=True)
        self._check_n_samples(X)
        rng = check_random_state(self.random_state)
        n_init = self._effective_n_init()
        tol = tolerance(X, self.tol)
        best = None
        data = self._samples(X, sample_weight)
        log = IterationLog(self.verbose)
        for init in range(n_init):
            log.start(init)
            run = lloyd(data, self._initial_centers(data, rng), self.max_iter, tol, log)
            # A run that only relabels the kept partition (with a rounding-level SSE change)
            # does not replace it, so the labels do not depend on rounding.
            if best is None or (run.inertia < best.inertia
                                and not same_partition(run.labels, best.labels, self.n_clusters)):
                best = run
        self.cluster_centers_, self.labels_, self.inertia_ = best.centers, best.labels, float(best.inertia)
        self.n_iter_, self.loss_curve_ = best.n_iter, np.array(best.distortion)
        self._counts = np.bincount(best.labels, weights=data.weight, minlength=self.n_clusters)
        self.n_steps_ = 0
        self._n_features_out = self.n_clusters
        self._warn_if_fewer_clusters()
        if not best.converged:
            warnings.warn(f"KMeans stopped at max_iter={self.max_iter} before the labels settled or the centres "
                          f"moved less than tol.", ConvergenceWarning, stacklevel=2)
        return self

    def partial_fit(self, X, y=None, sample_weight=None):
        """One mini-batch step on X: assign the batch, move the centres to the running means.

        The first call (without a previous ``fit``) seeds the centres on this batch with ``init``,
        so it needs at least ``n_clusters`` samples.
        """
        first = not hasattr(self, "cluster_centers_")
        if first:
            validate_params(self)
            X = check_fit_data(self, X, accept_sparse="csr", float32=True, order="C")
        else:  # the batch in the precision of the fitted centres
            X = check_predict_data(self, X, order="C", dtype=self.cluster_centers_.dtype, accept_sparse="csr")
        check_magnitude(X, self, in_precision=True)
        if first:
            self._check_n_samples(X)
        data = self._samples(X, sample_weight)
        if first:
            self._rng = check_random_state(self.random_state)
            self.cluster_centers_ = self._initial_centers(data, self._rng)
            self._counts = np.zeros(self.n_clusters)
            self.n_steps_ = 0
            self._n_features_out = self.n_clusters
        self.cluster_centers_ = minibatch_step(data, self.cluster_centers_, self._counts)
        self.labels_, _, inertia = assign(data, self.cluster_centers_)
        self.inertia_ = float(inertia)
        self.n_steps_ += 1
        return self

    def _effective_n_init(self):
        if isinstance(self.init, str) or callable(self.init):
            if self.n_init == "auto":
                return 1 if self.init == "k-means++" else 10
            return self.n_init
        if self.n_init not in ("auto", 1):
            warnings.warn(f"Explicit initial centres passed: performing only one run instead of n_init={self.n_init}.",
                          RuntimeWarning, stacklevel=3)
        return 1

    def _initial_centers(self, data, rng):
        X = data.X
        if isinstance(self.init, str) and self.init == "k-means++":
            return kmeans_plusplus(data, self.n_clusters, rng)
        if isinstance(self.init, str):
            return random_points(data, self.n_clusters, rng)
        centers = self.init(X, self.n_clusters, random_state=rng) if callable(self.init) else self.init
        centers = check_array(centers, dtype=X.dtype, order="C", copy=True, input_name="init")
        if centers.shape != (self.n_clusters, X.shape[1]):
            raise ValueError(f"The initial centres have shape {centers.shape}; expected "
                             f"(n_clusters, n_features) = ({self.n_clusters}, {X.shape[1]}).")
        return centers


def _sample_weight(sample_weight, n_samples):
    weight = check_sample_weight(sample_weight, n_samples)
    return np.ones(n_samples) if weight is None else weight
