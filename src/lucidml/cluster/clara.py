"""CLARA: PAM on samples of the data (Clustering LARge Applications)."""

import warnings
from numbers import Integral

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..utils import VERBOSE, Interval, IterationLog, Options, validate_params
from ._medoids import METRICS, REL_TOL, _BaseMedoids, nearest_medoid, submatrix
from ._pam import build, pam_swap


class CLARA(_BaseMedoids):
    """K-medoids for large data: PAM on random samples, the medoids scored on all the data.

    Each of ``n_samples`` rounds draws ``sample_size`` points, runs PAM (BUILD + best SWAP) on
    them, and evaluates the sample's medoids on the full data set,

        cost(M) = Σ_{o=1..n} min_{m ∈ M} d(x_o, x_m),

    keeping the medoids of lowest cost (seeds: 002 §8.2.4). As in Kaufman & Rousseeuw (1990),
    every sample after the first contains the best medoids found so far, so the kept cost can
    only go down. Medoids are always sample points: CLARA misses the optimum when one of its
    medoids is never drawn.

    Cost: n_samples × (PAM on s points, O(s²) memory) + n_samples scorings of O(n·K)
    distances, computed in blocks, so memory stays O(s² + n) for any n. With
    ``sample_size ≥ n`` the one sample is the whole data set and CLARA is PAM.

    Parameters
    ----------
    n_clusters : int, default=8
        The number of medoids K.
    n_samples : int, default=5
        The number of samples drawn (Kaufman & Rousseeuw: 5), the issue's name for it. Not the
        number of rows of X, and not scikit-learn-extra's ``n_sampling`` (its sample size).
    sample_size : int or None, default=None
        Points per sample; None means 40 + 2K (Kaufman & Rousseeuw). At least ``n_clusters``;
        capped at the number of rows of X.
    metric : str or callable, default="euclidean"
        The dissimilarity, as in :class:`~lucidml.cluster.kmedoids.KMedoids` ("precomputed": X is
        the n × n distance matrix).
    max_iter : int, default=300
        The most SWAP iterations of each PAM run.
    random_state : int, RandomState instance or None, default=None
        Draws the samples.
    verbose : int, default=0
        1 or more prints one line per sample on standard output, ``Sample s, n_iter = …, cost =
        …``: PAM's swaps on it and the cost of its medoids on all the data (``sample_costs_``);
        0 prints nothing.

    Attributes
    ----------
    medoid_indices_ : ndarray of shape (n_clusters,)
        Row indices of the medoids in the full training data.
    cluster_centers_ : ndarray of shape (n_clusters, n_features) or None
        The medoid rows of X; None with ``metric="precomputed"``.
    labels_ : ndarray of shape (n_samples,)
        Index of each point's nearest medoid.
    inertia_ : float
        The cost of the kept medoids on the full data.
    n_iter_ : int
        SWAP iterations of the PAM run that found the kept medoids.
    loss_curve_ : ndarray of shape (n_iter_ + 1,)
        That run's cost on its sample after BUILD and after each SWAP iteration (as KMedoids' ``loss_curve_``).
    sample_costs_ : ndarray of shape (number of samples drawn,)
        Full-data cost of each sample's medoids.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.cluster.clara import CLARA
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.normal(0, 1, (200, 2)), rng.normal(10, 1, (200, 2))])
    >>> clara = CLARA(n_clusters=2, random_state=0).fit(X)
    >>> np.bincount(clara.labels_)
    array([200, 200])
    >>> np.sort(np.abs(clara.cluster_centers_.sum(axis=1))).round(-1)  # medoids near (0, 0) and (10, 10)
    array([ 0., 20.])
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "sample_size": [Interval(Integral, 1, None, closed="left"), None],
        "metric": [Options(METRICS), "callable"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, n_clusters=8, *, n_samples=5, sample_size=None, metric="euclidean", max_iter=300,
                 random_state=None, verbose=0):
        self.n_clusters = n_clusters
        self.n_samples = n_samples
        self.sample_size = sample_size
        self.metric = metric
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None):
        """Find the medoids of X (n_samples × n_features, or n × n distances if precomputed)."""
        validate_params(self)
        X = self._validate_training_data(X)
        size = 40 + 2 * self.n_clusters if self.sample_size is None else self.sample_size
        if size < self.n_clusters:
            raise ValueError(f"sample_size={size} should be >= n_clusters={self.n_clusters}.")
        rng = check_random_state(self.random_state)
        medoids, self.n_iter_, self.loss_curve_, self.sample_costs_, converged = _clara(
            X, self.n_clusters, min(size, X.shape[0]), self.n_samples, self.metric, self.max_iter, rng,
            IterationLog(self.verbose),
        )
        if not converged:
            warnings.warn(f"CLARA: PAM stopped at max_iter={self.max_iter} on the kept sample while swaps still "
                          "lowered the cost.", ConvergenceWarning, stacklevel=2)
        return self._set_result(X, medoids)


def _clara(X, n_clusters, size, n_samples, metric, max_iter, rng, log=None):
    """PAM on each sample; keep the medoids with the lowest full-data cost (ties keep the earlier).
    ``log`` (an ``IterationLog``) prints a line per sample."""
    log = IterationLog(0) if log is None else log
    n = X.shape[0]
    best, best_cost, best_iter, best_curve, best_converged = None, np.inf, 0, np.zeros(0), True
    sample_costs = []
    for _ in range(1 if size >= n else n_samples):  # a sample of all points is the same every time
        if size >= n:
            sample = np.arange(n)
        elif best is None:
            sample = np.sort(rng.choice(n, size, replace=False))
        else:
            others = rng.choice(np.setdiff1d(np.arange(n), best), size - n_clusters, replace=False)
            sample = np.sort(np.concatenate([best, others]))
        Dc = submatrix(X, sample, metric)
        local, curve, n_iter, converged = pam_swap(Dc, build(Dc, n_clusters), max_iter, False, REL_TOL)
        medoids = sample[local]
        cost = float(nearest_medoid(X, medoids, metric)[1].sum())
        sample_costs.append(cost)
        log.summary(f"Sample {len(sample_costs) - 1}", n_iter=n_iter, cost=cost)
        if best is None or cost < best_cost:  # the first sample counts even if its cost is not finite
            best, best_cost, best_iter, best_curve, best_converged = medoids, cost, n_iter, curve, converged
    return best, best_iter, np.asarray(best_curve), np.array(sample_costs), best_converged
