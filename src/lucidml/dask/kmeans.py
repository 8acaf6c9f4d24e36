"""K-means on a Dask array: sample-based k-means++ seeding and Lloyd iterations over the chunks."""

import warnings
from numbers import Integral

import dask
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array

from ..cluster import KMeans as _LocalKMeans
from ..cluster._kmeans_lloyd import assign_and_sum, kmeans_plusplus, random_points, samples
from ..utils import Interval
from ..utils.validation import MAX_MAGNITUDE, MAX_MAGNITUDE_FLOAT32
from ._base import DaskEstimator
from ._chunks import as_dask_X, compute, map_chunks, tree_reduce
from ._moments import diagonal_moments, finite, merge_moments

_MAX_SEED = np.iinfo(np.int32).max


def _chunk_prepare(X, n_draw, seed):
    """The chunk's (count, mean, M2) over all rows and ``n_draw`` of its rows drawn without replacement."""
    X = np.ascontiguousarray(X)  # (float32 distances are squared in float32, as in memory)
    X = finite(X, limit=MAX_MAGNITUDE_FLOAT32 if X.dtype == np.float32 else MAX_MAGNITUDE)
    moments = diagonal_moments(X, np.zeros(X.shape[0], dtype=np.intp), 1)
    rows = np.random.RandomState(seed).choice(X.shape[0], size=min(n_draw, X.shape[0]), replace=False)
    return moments, X[np.sort(rows)]


def _merge_prepared(a, b):
    return merge_moments(a[0], b[0]), np.concatenate([a[1], b[1]])


def _chunk_lloyd_step(X, local_centers, shift):
    """One assignment pass of the chunk against the centres (in the frame centred on ``shift``).

    Returns the per-cluster sums Σ (xᵢ − shift) and counts, the SSE, and the chunk's K farthest
    points from their centres (distance, row in the centred frame, label), which re-seed empty
    clusters as the in-memory k-means does.
    """
    X = np.ascontiguousarray(X)
    n_clusters = local_centers.shape[0]
    data = samples(X, np.ones(X.shape[0]), n_clusters, 1, shift=shift)
    labels, distance = np.full(X.shape[0], -1, dtype=np.int32), np.empty(X.shape[0])
    sums, weights, sse, _ = assign_and_sum(data, local_centers, labels, distance)
    far = np.argsort(distance, kind="stable")[::-1][:n_clusters]
    return sums, weights, float(sse), (distance[far], data.rows(far).astype(np.float64), labels[far])


def _merge_steps(a, b):
    far = tuple(np.concatenate([x, y]) for x, y in zip(a[3], b[3]))
    keep = np.argsort(far[0], kind="stable")[::-1][: a[0].shape[0]]
    return a[0] + b[0], a[1] + b[1], a[2] + b[2], tuple(x[keep] for x in far)


class KMeans(DaskEstimator):
    """K-means clustering of a Dask array by Lloyd's algorithm, data-parallel over the row chunks.

    Minimizes SSE = Σ_k Σ_{i ∈ C_k} ‖xᵢ − c_k‖² (seeds: 002 §8.2.1) as
    :class:`lucidml.cluster.KMeans` does, with every pass spread over the chunks:

    - **seeding** (``"k-means++"``): one pass draws about ``init_sample_size`` rows, each chunk its
      share, at random, and computes the feature means and variances (for ``tol``); lucidml's
      greedy k-means++ runs on that sample in the client. ``"random"``: K rows of the sample.
      An array: the initial centres themselves;
    - **Lloyd iterations**: each chunk assigns its rows to the nearest centre with lucidml's
      compiled kernel and returns only the per-cluster sums and counts, its SSE and its K
      farthest points; the client sums them and moves the centres to the means (an empty
      cluster takes the globally farthest point, as in memory). The loop stops when the centres
      move by Σ_k ‖Δc_k‖² ≤ tol · (mean feature variance) — which includes the pass where no
      label changes, as their means then stay put — or after ``max_iter`` passes. X is
      persisted in the workers' memory for the passes.

    Started from the same centres, the iterations are the in-memory ones (the same centres, up to
    the order of float sums; the same ``n_iter_``).

    Parameters
    ----------
    n_clusters : int, default=8
    init : {"k-means++", "random"} or array-like of shape (n_clusters, n_features), default="k-means++"
    n_init : int, default=1
        Runs from different seeds (each a full Lloyd run over the data); the lowest SSE is kept.
    max_iter : int, default=300
    tol : float, default=1e-4
    random_state : int, RandomState instance or None, default=None
        Seeds of the sample and of the seeding.
    init_sample_size : int or None, default=None
        Rows drawn for the seeding; None: max(10 000, 100 · n_clusters) (all rows if fewer).

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
    labels_ : dask array of shape (n_samples,)
        The nearest centre of every training row, lazy (computed chunk by chunk when asked).
    inertia_ : float
        SSE of the training data against the final centres.
    n_iter_ : int
    loss_curve_ : ndarray of shape (n_iter_,)
        The SSE after every assignment pass.
    n_features_in_, feature_names_in_

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import KMeans
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> X = np.array([[1.0, 2.0], [1.0, 4.0], [1.0, 0.0], [10.0, 2.0], [10.0, 4.0], [10.0, 0.0]])
    >>> km = KMeans(n_clusters=2, random_state=0).fit(da.from_array(X, chunks=(2, 2)))
    >>> km.cluster_centers_[np.argsort(km.cluster_centers_[:, 0])]
    array([[ 1.,  2.],
           [10.,  2.]])
    >>> round(km.inertia_, 6)
    16.0
    >>> bool(km.labels_.compute()[0] == km.predict(da.from_array(X[:1])).compute()[0])
    True
    >>> client.close()
    """

    _local_class = _LocalKMeans
    _parameter_constraints = {
        **{k: v for k, v in _LocalKMeans._parameter_constraints.items()
           if k not in ("n_init", "n_jobs", "init", "verbose")},
        "init": [_LocalKMeans._parameter_constraints["init"][0], "array-like"],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "init_sample_size": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, n_clusters=8, *, init="k-means++", n_init=1, max_iter=300, tol=1e-4, random_state=None,
                 init_sample_size=None):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.init_sample_size = init_sample_size

    def fit(self, X, y=None):
        """Cluster the rows of X (dask array or DataFrame)."""
        local = self._new_local()
        X, names = as_dask_X(X)
        n, d = X.shape
        if n < self.n_clusters:
            raise ValueError(f"n_samples={n} should be >= n_clusters={self.n_clusters}.")
        rng = check_random_state(self.random_state)
        X = X.persist()  # read once per pass: kept in the workers' memory
        given = None if isinstance(self.init, str) else self._given_centers(d, X.dtype)
        size = 0 if given is not None else (self.init_sample_size or max(10_000, 100 * self.n_clusters))
        if given is None and size < self.n_clusters:
            raise ValueError(f"init_sample_size={size} must be ≥ n_clusters={self.n_clusters}: the centres are "
                             "seeded from that sample of rows.")
        # Each chunk draws its share of the sample, rounded up (so the sample has at least K rows), from
        # seeds of one draw of rng: the seeding that follows does not depend on the number of chunks.
        shares = [-(-size * c // n) for c in X.chunks[0]]
        seeds = np.random.RandomState(rng.randint(_MAX_SEED)).randint(_MAX_SEED, size=len(shares))
        prepare = dask.delayed(_chunk_prepare, pure=True)
        parts = [prepare(block, share, seed) for block, share, seed in zip(X.to_delayed().ravel(), shares, seeds)]
        (count, mean, m2), sample = compute(tree_reduce(parts, _merge_prepared))[0]
        shift = mean[0].astype(X.dtype)
        tol = self.tol * float(m2.sum() / (count[0] * d))

        best = None
        for _ in range(self.n_init if given is None else 1):
            if given is None:
                seeding = samples(sample, np.ones(len(sample)), self.n_clusters, 1)
                pick = kmeans_plusplus if self.init == "k-means++" else random_points
                centers = pick(seeding, self.n_clusters, rng)
            else:
                centers = given
            run = self._lloyd(X, centers, shift, tol)
            if best is None or run["inertia"] < best["inertia"]:
                best = run

        local.cluster_centers_ = (best["centers"] + shift).astype(X.dtype)
        local.inertia_, local.n_iter_ = best["inertia"], best["n_iter"]
        local.loss_curve_ = np.array(best["distortion"])
        local._counts, local.n_steps_, local._n_features_out = best["weights"], 0, self.n_clusters
        self._publish(local, d, names)
        self.labels_ = self.predict(X)
        if np.count_nonzero(best["weights"]) < self.n_clusters:
            warnings.warn(f"Number of distinct clusters ({np.count_nonzero(best['weights'])}) found smaller than "
                          f"n_clusters ({self.n_clusters}). Possibly due to duplicate points in X.",
                          ConvergenceWarning, stacklevel=2)
        if not best["converged"]:
            warnings.warn(f"KMeans stopped at max_iter={self.max_iter} before the centres moved less than tol.",
                          ConvergenceWarning, stacklevel=2)
        return self

    def _given_centers(self, n_features, dtype):
        centers = check_array(self.init, dtype=dtype, order="C", copy=True, input_name="init")
        if centers.shape != (self.n_clusters, n_features):
            raise ValueError(f"The initial centres have shape {centers.shape}; expected "
                             f"(n_clusters, n_features) = ({self.n_clusters}, {n_features}).")
        return centers

    def _lloyd(self, X, centers, shift, tol):
        """Lloyd's iterations from ``centers`` (coordinates of X), one pass over the chunks each."""
        centers = (centers - shift).astype(np.float64)
        distortion, converged, last_move = [], False, None
        for n_iter in range(1, self.max_iter + 1):
            step = map_chunks(_chunk_lloyd_step, X, None, centers.astype(X.dtype), shift)
            sums, weights, sse, far = compute(tree_reduce(step, _merge_steps))[0]
            distortion.append(sse)
            new_centers = _update_centers(centers, sums, weights, far)
            last_move = float(np.sum((new_centers - centers) ** 2))
            centers = new_centers
            if last_move <= tol:
                converged = True
                break
        if last_move > 0:  # the SSE and counts of the final centres: one more pass
            step = map_chunks(_chunk_lloyd_step, X, None, centers.astype(X.dtype), shift)
            _, weights, sse, _ = compute(tree_reduce(step, _merge_steps))[0]
        return {"centers": centers, "inertia": float(sse), "n_iter": n_iter, "distortion": distortion,
                "converged": converged, "weights": weights}

    def to_local(self):
        """The fitted model as :class:`lucidml.cluster.KMeans` (a copy), with ``labels_`` computed
        (n_samples integers gathered: the one O(n) result of a clustering)."""
        local = super().to_local()
        local.labels_ = np.asarray(self.labels_.compute(), dtype=np.int32)
        return local


def _update_centers(centers, sums, weights, far):
    """The M-step on the merged sums: cluster means; an empty cluster takes the point farthest from
    its own centre (the globally farthest ones, taken from their clusters), as in memory."""
    sums, weights = sums.copy(), weights.copy()
    empty = np.flatnonzero(weights <= 0)
    _, rows, labels = far
    for x, label, cluster in zip(rows, labels, empty):
        sums[label] -= x
        weights[label] -= 1.0
        sums[cluster], weights[cluster] = x, 1.0
    new_centers = centers.copy()
    full = weights > 0
    new_centers[full] = sums[full] / weights[full, None]
    new_centers[empty] = rows[: len(empty)]
    return new_centers
