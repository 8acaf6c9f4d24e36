"""CLARANS: randomized search for k-medoids over single swaps (Ng & Han 2002)."""

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from ..utils import VERBOSE, Interval, IterationLog, Options, validate_params
from ._medoids import METRICS, REL_TOL, CandidateRows, _BaseMedoids
from ._pam import nearest_two

# Trial swaps drawn per call of the compiled search: it doubles after each batch without an
# improvement (few rows wasted right after a move when rows are materialized, little Python
# overhead later).
_MAX_BATCH = 64


class CLARANS(_BaseMedoids):
    """K-medoids by randomized local search over the graph of medoid sets.

    A node is a set M of K medoids with cost(M) = Σ_o min_{m ∈ M} d(x_o, x_m); its neighbours are
    the K(n−K) sets that differ by one swap M − {m} + {o}. From a random node, CLARANS draws
    random neighbours and moves to the first one of strictly lower cost; after ``maxneighbor``
    draws in a row without improvement the node is taken as a local optimum. ``numlocal``
    searches from fresh random nodes are run and the best local optimum is kept (seeds: 002
    §8.2.4; Ng & Han 2002).

    A neighbour is priced, not recomputed: with every point's nearest (dn) and second-nearest
    (ds) medoid distance and the candidate's distances d(·, o),

        Δ = Σ_{o': nearest(o')=m} (min(d(o',o), ds(o')) − dn(o')) + Σ_{other o'} min(d(o',o) − dn(o'), 0),

    O(n) per neighbour plus one row of n distances. Memory is O(n·K) (no n × n matrix, except
    the one passed with ``metric="precomputed"``).

    Parameters
    ----------
    n_clusters : int, default=8
        The number of medoids K.
    numlocal : int, default=2
        The number of local searches (Ng & Han: 2).
    maxneighbor : int or None, default=None
        Neighbours drawn without improvement before a node counts as a local optimum; None means
        max(250, ⌊1.25% · K(n−K)⌋) (Ng & Han). Larger values search longer and find lower costs.
    metric : str or callable, default="euclidean"
        The dissimilarity, as in :class:`~lucidml.cluster.kmedoids.KMedoids` ("precomputed": X is
        the n × n distance matrix).
    random_state : int, RandomState instance or None, default=None
        Draws the start nodes and the neighbours.
    verbose : int, default=0
        1 or more prints one line per local search on standard output, ``Local search i, n_moves
        = …, cost = …`` (the moves it made and its final cost, ``local_costs_[i]``); 0 prints
        nothing.

    Attributes
    ----------
    medoid_indices_ : ndarray of shape (n_clusters,)
        Row indices of the medoids in the training data.
    cluster_centers_ : ndarray of shape (n_clusters, n_features) or None
        The medoid rows of X; None with ``metric="precomputed"``.
    labels_ : ndarray of shape (n_samples,)
        Index of each point's nearest medoid.
    inertia_ : float
        The cost of the best local optimum.
    n_iter_ : int
        Moves (accepted swaps) of the search that found the kept medoids.
    loss_curve_ : ndarray of shape (n_iter_ + 1,)
        The cost of that search at its random start and after each move.
    local_costs_ : ndarray of shape (numlocal,)
        The cost of every local optimum found.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lucidml.cluster.clarans import CLARANS
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.normal(0, 1, (100, 2)), rng.normal(10, 1, (100, 2))])
    >>> model = CLARANS(n_clusters=2, random_state=0).fit(X)
    >>> np.bincount(model.labels_)
    array([100, 100])
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "numlocal": [Interval(Integral, 1, None, closed="left")],
        "maxneighbor": [Interval(Integral, 1, None, closed="left"), None],
        "metric": [Options(METRICS), "callable"],
        "random_state": ["random_state"],
        "verbose": VERBOSE,
    }

    def __init__(self, n_clusters=8, *, numlocal=2, maxneighbor=None, metric="euclidean", random_state=None,
                 verbose=0):
        self.n_clusters = n_clusters
        self.numlocal = numlocal
        self.maxneighbor = maxneighbor
        self.metric = metric
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None):
        """Find the medoids of X (n_samples × n_features, or n × n distances if precomputed)."""
        validate_params(self)
        X = self._validate_training_data(X)
        n, k = X.shape[0], self.n_clusters
        maxneighbor = self.maxneighbor
        if maxneighbor is None:
            maxneighbor = max(250, int(0.0125 * k * (n - k)))
        rng = check_random_state(self.random_state)
        best_cost, self.local_costs_ = np.inf, np.empty(self.numlocal)
        candidate_rows = CandidateRows(X, self.metric)
        log = IterationLog(self.verbose)
        for i in range(self.numlocal):
            medoids, costs = _local_search(candidate_rows, n, k, maxneighbor, rng)
            self.local_costs_[i] = costs[-1]
            log.summary(f"Local search {i}", n_moves=len(costs) - 1, cost=costs[-1])
            if i == 0 or costs[-1] < best_cost:  # the first search counts even if its cost is not finite
                best_cost, best, self.loss_curve_ = costs[-1], medoids, costs
        self.n_iter_ = len(self.loss_curve_) - 1
        return self._set_result(X, best)


def _local_search(candidate_rows, n, n_clusters, maxneighbor, rng):
    """One CLARANS search: random start, move on the first improving random neighbour, stop
    after ``maxneighbor`` failures in a row. Returns (medoids, cost at start and after each move)."""
    medoids = rng.choice(n, n_clusters, replace=False)
    # Non-medoids in an array with each point's position, for O(1) draws and swaps.
    others = np.setdiff1d(np.arange(n), medoids)
    position = np.full(n, -1)
    position[others] = np.arange(n - n_clusters)
    Dk = candidate_rows(medoids)
    nearest, dn, ds = nearest_two(Dk)
    costs = [dn.sum()]
    failures, batch = 0, 1
    while failures < maxneighbor and len(others) > 0:
        size = min(batch, maxneighbor - failures)
        slots = rng.randint(n_clusters, size=size)
        candidates = others[rng.randint(len(others), size=size)]
        p, row = candidate_rows.first_improving(candidates, slots, nearest, dn, ds, -REL_TOL * costs[-1])
        if p < 0:
            failures += size
            batch = min(2 * batch, _MAX_BATCH)
            continue
        slot, new = slots[p], candidates[p]
        old, hole = medoids[slot], position[new]
        others[hole], position[old], position[new] = old, hole, -1
        medoids[slot] = new
        Dk[slot] = row
        nearest, dn, ds = nearest_two(Dk)
        costs.append(dn.sum())
        failures, batch = 0, 1
    return medoids, np.array(costs)
