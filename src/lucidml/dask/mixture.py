"""Gaussian mixture on a Dask array: EM whose E-step statistics are summed over the chunks."""

import warnings

import dask
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..mixture import GaussianMixture as _LocalGaussianMixture
from ..mixture._base_em import _em
from ..mixture._gaussian_model import (
    _EMPTY,
    Gaussians,
    first_sums,
    gaussians_from_sums,
    responsibility_sums,
    warn_if_reg_covar_dominates,
    warn_regularized,
    weighted_log_prob,
)
from ..mixture._mixture_kernels import normalize_log_prob
from ..utils import Options
from ._base import DaskEstimator
from ._chunks import as_dask_X, compute, map_chunks, tree_reduce
from ._moments import diagonal_moments, finite, merge_moments
from .kmeans import KMeans

_MAX_SEED = np.iinfo(np.int32).max


def _chunk_moments(X):
    """(count, mean, M2) of the chunk's features, after the check that it is finite."""
    X = finite(np.ascontiguousarray(X))
    return diagonal_moments(X, np.zeros(X.shape[0], dtype=np.intp), 1)


def _chunk_e_step(X, shift, params, covariance_type):
    """The E-step on one chunk: (Σᵢ log p(xᵢ), the M-step's sums Σ rᵢₖ, Σ rᵢₖ xᵢ, Σ rᵢₖ xᵢxᵢᵀ or its diagonal)."""
    X = np.ascontiguousarray(X) - shift
    resp = weighted_log_prob(X, params, covariance_type)
    log_norm = np.empty(X.shape[0])
    normalize_log_prob(resp, log_norm)  # resp becomes the responsibilities, in place
    # The scatter about the current means: the next ones are near them, and nothing cancels.
    return float(log_norm.sum()), responsibility_sums(X, resp, covariance_type, params.means)


def _chunk_initial_sums(X, labels_or_seed, shift, n_components, covariance_type, centres):
    """The M-step's sums for the starting responsibilities: one-hot on k-means labels, or uniform
    draws normalized per row (an int: the chunk's seed). Without ``centres``, only (Σᵢ rᵢₖ, Σᵢ rᵢₖ xᵢ):
    the pass that finds the means the second one takes the scatter about."""
    X = np.ascontiguousarray(X) - shift
    if np.ndim(labels_or_seed) == 0:
        resp = np.random.RandomState(int(labels_or_seed)).uniform(size=(X.shape[0], n_components))
        resp /= resp.sum(axis=1, keepdims=True)
    else:
        resp = np.zeros((X.shape[0], n_components))
        resp[np.arange(X.shape[0]), labels_or_seed] = 1.0
    if centres is None:
        return first_sums(X, resp)
    return responsibility_sums(X, resp, covariance_type, centres)


def _add_sums(a, b):
    return tuple(x + y for x, y in zip(a, b))


def _add_e_steps(a, b):
    return a[0] + b[0], _add_sums(a[1], b[1])


class GaussianMixture(DaskEstimator):
    """Mixture of K Gaussians, p(x) = Σ_k φ_k N(x | μ_k, Σ_k), fitted by EM over the chunks of a Dask array.

    Each EM iteration is one pass over the chunks: with the current parameters sent to the
    workers, every chunk computes its responsibilities rᵢₖ (lucidml's log-space E-step) and
    returns only their sufficient statistics — n_k = Σ rᵢₖ, Σ rᵢₖ xᵢ, Σ rᵢₖ xᵢxᵢᵀ (its diagonal for
    "diag"/"spherical", Σ xᵢxᵢᵀ for "tied") — and its Σᵢ log p(xᵢ); the sums are added in a tree,
    and the M-step, the bound, the stopping rule and the loop are those of
    :class:`lucidml.mixture.GaussianMixture` (X is centred at its mean, as there). Started from
    the same parameters (``weights_init``, ``means_init``, ``precisions_init``), the iterations
    are the in-memory ones: the same ``n_iter_``, parameters equal up to the order of float sums.
    ``init_params="kmeans"`` starts from the labels of :class:`lucidml.dask.KMeans` (sampled
    k-means++ seeding), ``"random"`` from uniform responsibilities drawn per chunk. X is
    persisted in the workers' memory for the iterations.

    Parameters
    ----------
    n_components : int, default=1
    covariance_type : {"full", "tied", "diag", "spherical"}, default="full"
    tol : float, default=1e-3
    reg_covar : float, default=1e-6
    max_iter : int, default=100
    n_init : int, default=1
    init_params : {"kmeans", "random"}, default="kmeans"
    weights_init, means_init, precisions_init : array-like, default=None
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    weights_, means_, covariances_, precisions_, precisions_cholesky_
        As :class:`lucidml.mixture.GaussianMixture`.
    converged_, n_iter_, lower_bound_, lower_bounds_, n_features_in_, feature_names_in_
        As :class:`lucidml.mixture.GaussianMixture`.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client
    >>> from lucidml.dask import GaussianMixture
    >>> client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0")
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-3, 1, (200, 2)), rng.normal(3, 1, (200, 2))])
    >>> gm = GaussianMixture(2, means_init=[[-1.0, -1.0], [1.0, 1.0]]).fit(da.from_array(X, chunks=(100, 2)))
    >>> gm.means_.round(1)
    array([[-3.1, -3. ],
           [ 3. ,  3. ]])
    >>> gm.predict(da.from_array(np.array([[-3.0, -3.0], [3.0, 3.0]]))).compute()
    array([0, 1])
    >>> client.close()
    """

    _local_class = _LocalGaussianMixture
    _parameter_constraints = {
        **{k: v for k, v in _LocalGaussianMixture._parameter_constraints.items()
           if k not in ("warm_start", "verbose")},
        "init_params": [Options({"kmeans", "random"})],
    }

    def __init__(self, n_components=1, *, covariance_type="full", tol=1e-3, reg_covar=1e-6, max_iter=100,
                 n_init=1, init_params="kmeans", weights_init=None, means_init=None, precisions_init=None,
                 random_state=None):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.tol = tol
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.weights_init = weights_init
        self.means_init = means_init
        self.precisions_init = precisions_init
        self.random_state = random_state

    def fit(self, X, y=None):
        """Fit the mixture on the rows of X (dask array or DataFrame) by EM; return self."""
        local = self._new_local()
        X, names = as_dask_X(X)
        n, d = X.shape
        if n < max(2, self.n_components):
            raise ValueError(f"Expected n_samples >= n_components (and >= 2) but got n_components = "
                             f"{self.n_components}, n_samples = {n}.")
        user = local._check_user_init(d)
        X = X.persist()  # read once per iteration: kept in the workers' memory
        count, mean, m2 = compute(tree_reduce(map_chunks(_chunk_moments, X), merge_moments))[0]
        shift = mean[0].astype(X.dtype)
        kind = self.covariance_type
        local._dtype, local._shift, local._n_regularized = X.dtype, shift, 0

        def data_variance():  # the features' variances, for the jitter of a singular covariance
            return np.asarray(m2, dtype=np.float64).reshape(-1, d)[0] / count[0]

        warn_if_reg_covar_dominates(data_variance(), self.reg_covar, stacklevel=3)

        def e_step(_, params):
            parts = map_chunks(_chunk_e_step, X, None, shift, params, kind)
            log_likelihood, sums = compute(tree_reduce(parts, _add_e_steps))[0]
            return (sums, params.means), log_likelihood / n

        def m_step(_, sums_and_centres):
            sums, centres = sums_and_centres
            params, n_fixed = gaussians_from_sums(sums, kind, self.reg_covar, data_variance, np.finfo(X.dtype).eps,
                                                  centres)
            local._n_regularized += n_fixed
            return params

        rng = check_random_state(self.random_state)
        best, best_final = None, -np.inf
        for _ in range(self.n_init):
            start = self._initialize(X, shift, user, rng, m_step)
            run = _em(X, start, e_step, m_step, self.max_iter, self.tol)
            final = run[1][-1] if run[1] else -np.inf
            if best is None or final > best_final:
                best, best_final = run, final
        params, bounds, converged, drop = best
        local._set_fitted(params)
        local._store_bounds(np.asarray(bounds, dtype=np.float64))
        local._em_last_bound = bounds[-1] if bounds else -np.inf
        local.n_iter_, local.converged_ = len(bounds), converged
        del local._shift
        if drop > 0:
            warnings.warn(f"The EM bound decreased by {drop:.3g} during the fit: the model is degenerate for this "
                          f"data (collapsing components or singular covariances).", RuntimeWarning, stacklevel=2)
        if not converged and self.max_iter > 0:
            warnings.warn(local._convergence_message, ConvergenceWarning, stacklevel=2)
        warn_regularized(local._n_regularized, stacklevel=3)
        return self._publish(local, d, names)

    def _initialize(self, X, shift, user, rng, m_step):
        """The starting parameters (in the frame centred on ``shift``), as the in-memory estimator's:
        the user's weights, means and precisions where given, else the M-step of the starting
        responsibilities."""
        weights, means, precisions = user
        if weights is not None and means is not None and precisions is not None:
            params = Gaussians(weights, means - shift, precisions[0], precisions[1])
        else:
            K = self.n_components
            if self.init_params == "kmeans":
                with warnings.catch_warnings():  # a k-means start need not have converged
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    labels = KMeans(K, n_init=1, random_state=rng).fit(X).labels_

                def sums(centres):
                    return map_chunks(_chunk_initial_sums, X, labels, shift, K, self.covariance_type, centres)
            else:
                seeds = rng.randint(_MAX_SEED, size=len(X.chunks[0]))
                task = dask.delayed(_chunk_initial_sums, pure=True)

                def sums(centres):
                    return [task(block, int(seed), shift, K, self.covariance_type, centres)
                            for block, seed in zip(X.to_delayed().ravel(), seeds)]
            counts, first = compute(tree_reduce(sums(None), _add_sums))[0]
            centres = first / (counts + _EMPTY)[:, None]
            params = m_step(X, (compute(tree_reduce(sums(centres), _add_sums))[0], centres))
        if weights is not None:
            params = params._replace(weights=weights)
        if means is not None:
            params = params._replace(means=means - shift)
        if precisions is not None:
            params = params._replace(covariances=precisions[0], precisions_cholesky=precisions[1])
        return params

