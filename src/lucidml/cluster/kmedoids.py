"""K-medoids clustering by PAM (Partitioning Around Medoids)."""

import warnings
from numbers import Integral

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..utils import VERBOSE, Interval, IterationLog, Options, validate_params
from ._medoids import METRICS, REL_TOL, _BaseMedoids, candidate_matrix
from ._pam import alternate, build, pam_swap


class KMedoids(_BaseMedoids):
    """K-medoids clustering: K data points (medoids) as centres, for any dissimilarity.

    Minimizes the total dissimilarity of the points to their nearest medoid,

        cost(M) = Σ_o min_{m ∈ M} d(x_o, x_m),      M ⊂ {1, …, n}, |M| = K,

    for any metric d — a SciPy/scikit-learn name, a callable, or a precomputed matrix — while
    k-means only minimizes squared Euclidean distances to means (seeds: 002 §8.2.3).

    PAM (Kaufman & Rousseeuw 1990): BUILD picks K medoids greedily, each lowering the cost the
    most; SWAP then exchanges a medoid m with a non-medoid o while that strictly lowers the cost:

        M ← M − {m} + {o}   if  cost(M − {m} + {o}) < cost(M).

    Only strict decreases are accepted (the notes only undo increases, so swaps of equal cost
    could cycle); a decrease smaller than 1e-10·cost counts as a tie (rounding noise).

    Each swap is priced from every point's nearest and second-nearest medoid distance, and one
    pass over a candidate's distances prices its swaps with all K medoids at once (FastPAM1,
    Schubert & Rousseeuw 2019): an iteration of ``swap="best"`` costs O(n²) instead of the notes'
    O(K(n−K)²), with exactly the same swap costs. ``swap="first"`` prices one (medoid, candidate)
    pair at a time, O(n) each, so a sweep costs O(K·n²).

    Memory: PAM needs the n × n distance matrix (8n² bytes: 200 MB at n = 5,000; 1.5× that
    while it is built from SciPy's condensed form). Above 2 GiB
    (n ≈ 16,000) ``fit`` raises and suggests :class:`~lucidml.cluster.clara.CLARA` or
    :class:`~lucidml.cluster.clarans.CLARANS`, which need O(n·K).

    Parameters
    ----------
    n_clusters : int, default=8
        The number of medoids K.
    metric : str or callable, default="euclidean"
        The dissimilarity: "euclidean", "sqeuclidean", "manhattan" ("cityblock", "l1"), "l2",
        "chebyshev", "minkowski" (p=2), "cosine", "correlation", "canberra", "braycurtis",
        "hamming", "jaccard", "jensenshannon", "haversine"; a callable f(a, b) -> float, taken as
        symmetric; or "precomputed", when X is the n × n matrix with X[i, j] = d(xᵢ, xⱼ) (a
        non-symmetric one is copied transposed).
    method : {"pam", "alternate"}, default="pam"
        ``"pam"``: BUILD/init then SWAP. ``"alternate"``: k-means-style iterations — assign every
        point to its nearest medoid, then make each cluster's medoid the member with the smallest
        total distance to the cluster; faster, but it stops at worse local optima.
    init : {"build", "random", "k-medoids++"}, default="build"
        The starting medoids: PAM's BUILD; K distinct random points; or k-means++ seeding with
        probabilities proportional to the distance to the nearest medoid chosen so far (the
        point's share of the cost, as k-means++ uses the squared distance).
    swap : {"best", "first"}, default="best"
        ``"best"``: each iteration makes the single swap that lowers the cost the most (PAM).
        ``"first"``: the notes' loop — for each medoid in turn, scan the non-medoids in index
        order and make every improving swap at once; an iteration is one such sweep.
    max_iter : int, default=300
        The most SWAP (or alternating) iterations.
    random_state : int, RandomState instance or None, default=None
        Used by ``init="random"`` and ``"k-medoids++"``.
    verbose : int, default=0
        1 or more prints one line on standard output when the search ends: ``Method pam, n_iter =
        …, cost = …`` (``n_iter_`` and the last entry of ``loss_curve_``; the swaps run in one
        compiled loop); 0 prints nothing.

    Attributes
    ----------
    medoid_indices_ : ndarray of shape (n_clusters,)
        Row indices of the medoids in the training data.
    cluster_centers_ : ndarray of shape (n_clusters, n_features) or None
        The medoid rows of X; None with ``metric="precomputed"`` (scikit-learn-extra's convention).
    labels_ : ndarray of shape (n_samples,)
        Index of each point's nearest medoid (a medoid always labels itself).
    inertia_ : float
        The cost Σ_o d(x_o, nearest medoid).
    n_iter_ : int
        Iterations run; the last one finds no improving swap when the fit converged.
    loss_curve_ : ndarray of shape (n_iter_ + 1,)
        The cost after the initialization and after each iteration.
    n_features_in_ : int
        Number of features seen in ``fit`` (n_samples for a precomputed matrix).
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Notes
    -----
    ``predict`` and ``transform`` use the distances to ``cluster_centers_``. With
    ``metric="precomputed"`` they take an (n_queries × n_train) matrix of distances to the
    training points and read its medoid columns.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.cluster.kmedoids import KMedoids
    >>> X = np.array([[1.0, 2.0], [1.0, 4.0], [1.0, 0.0], [10.0, 2.0], [10.0, 4.0], [10.0, 0.0], [12.0, 2.0]])
    >>> km = KMedoids(n_clusters=2, metric="manhattan").fit(X)
    >>> km.medoid_indices_
    array([3, 0])
    >>> km.labels_
    array([1, 1, 1, 0, 0, 0, 0])
    >>> round(km.inertia_, 6)
    10.0
    >>> km.predict([[0.0, 1.0], [9.0, 5.0]])
    array([1, 0])
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "metric": [Options(METRICS), "callable"],
        "method": [Options({"pam", "alternate"})],
        "init": [Options({"build", "random", "k-medoids++"})],
        "swap": [Options({"best", "first"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, n_clusters=8, *, metric="euclidean", method="pam", init="build", swap="best", max_iter=300,
                 random_state=None, verbose=0):
        self.n_clusters = n_clusters
        self.metric = metric
        self.method = method
        self.init = init
        self.swap = swap
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None):
        """Find the medoids of X (n_samples × n_features, or n × n distances if precomputed)."""
        validate_params(self)
        X = self._validate_training_data(X)
        Dc = candidate_matrix(X, self.metric)
        rng = check_random_state(self.random_state)
        medoids, costs, self.n_iter_, converged = _k_medoids(
            Dc, self.n_clusters, self.method, self.init, self.swap, self.max_iter, rng
        )
        self.loss_curve_ = costs
        IterationLog(self.verbose).summary(f"Method {self.method}", n_iter=self.n_iter_, cost=costs[-1])
        if not converged:
            warnings.warn(f"KMedoids stopped at max_iter={self.max_iter} while swaps still lowered the cost.",
                          ConvergenceWarning, stacklevel=2)
        return self._set_result(X, medoids)


def _k_medoids(Dc, n_clusters, method, init, swap, max_iter, rng):
    """Initial medoids, then SWAP (or the alternating update) on Dc[c, o] = d(x_o, x_c)."""
    medoids = initial_medoids(Dc, n_clusters, init, rng)
    if method == "alternate":
        return alternate(Dc, medoids, max_iter, REL_TOL)
    return pam_swap(Dc, medoids, max_iter, swap == "first", REL_TOL)


def initial_medoids(Dc, n_clusters, init, rng):
    """BUILD, K distinct random points, or k-medoids++ seeding."""
    n = Dc.shape[0]
    if init == "build":
        return build(Dc, n_clusters)
    if init == "random":
        return rng.choice(n, n_clusters, replace=False).astype(np.int64)
    medoids = [rng.randint(n)]
    nearest = Dc[medoids[0]].copy()
    for _ in range(1, n_clusters):
        total = nearest.sum()
        if total > 0:
            chosen = rng.choice(n, p=nearest / total)  # a medoid (distance 0) is never drawn again
        else:  # every point coincides with a medoid: any other point will do
            chosen = rng.choice(np.setdiff1d(np.arange(n), medoids))
        medoids.append(int(chosen))
        np.minimum(nearest, Dc[chosen], out=nearest)
    return np.array(medoids, dtype=np.int64)
